/*
 * fuzz_cookie_header.c: hsc_cookie_header_find() and
 * hsc_cookie_header_without() (HSCStripCookie) on an untrusted Cookie
 * request header.
 *
 * Input: when it holds a NUL byte and the part before it is 1..64 bytes,
 * that part is the cookie name to look for and the rest is the header;
 * otherwise the whole input is the header and the name is "hsc".
 *
 * Properties (each aborts when violated):
 *   - HSC_OK: count is 1 and the value lies wholly inside the header;
 *   - HSC_EINVAL: count is 0; HSC_EMALFORMED: count is over 1; on both the
 *     value is NULL and its length 0;
 *   - no other status;
 *   - a found value holds no ';' (it ends at the next cookie);
 *   - the call is pure: asking again gives the same answer;
 *   - without(): it fits in 2 x the header + 1 bytes, removes as many
 *     pairs as find() counts, and what is left has no cookie of that name
 *     (find() on it: HSC_EINVAL) and is a fixed point (without() again
 *     removes nothing and changes nothing).
 */
#include <string.h>

#include "hsc_fuzz.h"
#include "hsc_http.h"

#define FUZZ_NAME_MAX 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    char name[FUZZ_NAME_MAX + 1] = "hsc";
    const uint8_t *hdr = data;
    size_t hlen = size;
    char *header;
    const char *val = (const char *)"x";
    const char *val2 = NULL;
    size_t vallen = 777, vallen2 = 0;
    int count = -1, count2 = -1;
    hsc_status_t st, st2;

    if (nul != NULL && nul > data && (size_t)(nul - data) <= FUZZ_NAME_MAX) {
        memcpy(name, data, (size_t)(nul - data));
        name[nul - data] = '\0';
        hdr = nul + 1;
        hlen = size - (size_t)(nul - data) - 1;
    }
    /* The header as httpd hands it over: NUL-terminated, in its own buffer
     * (so ASan sees a read past the terminator). Embedded NULs end it. */
    header = malloc(hlen + 1);
    if (header == NULL) {
        return 0;
    }
    memcpy(header, hdr, hlen);
    header[hlen] = '\0';
    hlen = strlen(header);

    st = hsc_cookie_header_find(header, name, &val, &vallen, &count);
    switch (st) {
    case HSC_OK:
        HSC_FUZZ_ASSERT(count == 1);
        HSC_FUZZ_ASSERT(val != NULL);
        HSC_FUZZ_ASSERT(val >= header && val <= header + hlen);
        HSC_FUZZ_ASSERT(vallen <= (size_t)(header + hlen - val));
        HSC_FUZZ_ASSERT(memchr(val, ';', vallen) == NULL);
        /* Pure: asking again gives the same answer. */
        st2 = hsc_cookie_header_find(header, name, &val2, &vallen2, &count2);
        HSC_FUZZ_ASSERT(st2 == HSC_OK && val2 == val && vallen2 == vallen
                        && count2 == 1);
        break;
    case HSC_EINVAL:
        HSC_FUZZ_ASSERT(count == 0);
        HSC_FUZZ_ASSERT(val == NULL && vallen == 0);
        break;
    case HSC_EMALFORMED:
        HSC_FUZZ_ASSERT(count > 1);
        HSC_FUZZ_ASSERT(val == NULL && vallen == 0);
        break;
    default: HSC_FUZZ_ASSERT(!"unexpected status");
    }
    {
        size_t cap = 2 * hlen + 1, n, n2;
        char *rest = malloc(cap), *again = malloc(cap);
        int removed = -1, removed2 = -1;

        if (rest == NULL || again == NULL) {
            free(rest);
            free(again);
            free(header);
            return 0;
        }
        n = hsc_cookie_header_without(header, name, rest, cap, &removed);
        HSC_FUZZ_ASSERT(n != (size_t)-1 && n == strlen(rest) && n < cap);
        HSC_FUZZ_ASSERT(removed == count);
        st2 = hsc_cookie_header_find(rest, name, &val2, &vallen2, &count2);
        HSC_FUZZ_ASSERT(st2 == HSC_EINVAL && count2 == 0);
        n2 = hsc_cookie_header_without(rest, name, again, cap, &removed2);
        HSC_FUZZ_ASSERT(removed2 == 0 && n2 == n && !memcmp(rest, again, n));
        free(rest);
        free(again);
    }
    free(header);
    return 0;
}
