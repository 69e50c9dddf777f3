/*
 * fuzz_origin.c: the two request headers a login POST is judged by before
 * its body is read: hsc_same_origin() (Origin against the request's scheme
 * and Host) and hsc_content_type_is_form().
 *
 * Input: first byte picks the scheme (even: http, odd: https); the rest is
 * "ORIGIN\nHOST" (no newline: HOST is empty), also read whole as a
 * Content-Type. Properties (each aborts when violated):
 *   - answers are 0 or 1, and the same when asked twice;
 *   - an accepted Origin starts with the request's scheme and "://";
 *   - acceptance is symmetric: the Host, spelled as an Origin of the same
 *     scheme, accepts the Origin's authority as a Host;
 *   - an accepted Origin holds no '/', '@', '?', '#', space or control
 *     byte after "://";
 *   - an accepted Content-Type starts with the form media type.
 */
#include <string.h>
#include <strings.h>

#include "hsc_fuzz.h"
#include "hsc_http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *scheme;
    char *buf, *origin, *host, *nl, *swapped;
    size_t i, slen;
    int same, form;

    if (size < 1) {
        return 0;
    }
    scheme = (data[0] & 1) ? "https" : "http";
    slen = strlen(scheme);
    buf = malloc(size);
    swapped = malloc(size + 16);
    if (buf == NULL || swapped == NULL) {
        free(buf);
        free(swapped);
        return 0;
    }
    memcpy(buf, data + 1, size - 1);
    buf[size - 1] = '\0';

    form = hsc_content_type_is_form(buf);
    HSC_FUZZ_ASSERT(form == 0 || form == 1);
    HSC_FUZZ_ASSERT(hsc_content_type_is_form(buf) == form);
    if (form) {
        HSC_FUZZ_ASSERT(
            !strncasecmp(buf, "application/x-www-form-urlencoded", 33));
    }

    origin = buf;
    nl = strchr(buf, '\n');
    if (nl != NULL) {
        *nl = '\0';
        host = nl + 1;
    }
    else {
        host = buf + strlen(buf); /* "" */
    }
    same = hsc_same_origin(origin, scheme, host);
    HSC_FUZZ_ASSERT(same == 0 || same == 1);
    HSC_FUZZ_ASSERT(hsc_same_origin(origin, scheme, host) == same);
    if (same) {
        const char *auth = origin + slen + 3;

        HSC_FUZZ_ASSERT(!strncasecmp(origin, scheme, slen));
        HSC_FUZZ_ASSERT(!strncmp(origin + slen, "://", 3));
        for (i = 0; auth[i]; i++) {
            unsigned char c = (unsigned char)auth[i];
            HSC_FUZZ_ASSERT(c > 0x20 && c < 0x7f && !strchr("/@?#", c));
        }
        /* Symmetric: Host as the Origin, the Origin's authority as Host. */
        snprintf(swapped, size + 16, "%s://%s", scheme, host);
        HSC_FUZZ_ASSERT(hsc_same_origin(swapped, scheme, auth) == 1);
    }
    free(swapped);
    free(buf);
    return 0;
}
