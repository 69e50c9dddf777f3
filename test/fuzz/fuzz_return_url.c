/*
 * fuzz_return_url.c: hsc_return_url_safe() on an untrusted redirect target
 * (the login form's return field).
 *
 * Properties of every accepted URL (each aborts when violated):
 *   - it starts with '/', and its second byte is neither '/' nor '\\';
 *   - it holds no control byte (0x00-0x1f, 0x7f), no '\\' and no byte over
 *     0x7e;
 *   - decoded once (%XX escapes), it still starts with a single '/', not
 *     "//" or "/\\" (the percent-encoded spelling of a protocol-relative
 *     URL);
 *   - no segment of its path (before '?' or '#'; split at '/'), with %2E
 *     read as '.', is "." or ".." (browsers drop them: "/..//host");
 *   - the answer is the same when asked twice, and for a copy that is
 *     NUL-terminated (the length, not a terminator, bounds the read).
 * And of hsc_query_escape(), which puts the URL a login page gets back in
 * its query (the text up to the first NUL):
 *   - the escaped text holds only unreserved bytes, '/' and "%XX" escapes
 *     (so no '&', '#', '?', '=', '+' or space), at most 3 bytes a byte;
 *   - decoding it gives the text back.
 */
#include <string.h>

#include "hsc_fuzz.h"
#include "hsc_http.h"

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* The byte at *i of url decoded once (a "%XX" counts as one byte). */
static int decoded_at(const unsigned char *u, size_t len, size_t *i)
{
    int hi, lo;

    if (*i >= len) {
        return -1;
    }
    if (u[*i] == '%' && *i + 2 < len && (hi = hexval(u[*i + 1])) >= 0
        && (lo = hexval(u[*i + 2])) >= 0) {
        *i += 3;
        return hi * 16 + lo;
    }
    return u[(*i)++];
}

/* 1 when a path segment of u is "." or ".." once %2E is read as '.'. */
static int ref_dot_segment(const unsigned char *u, size_t len)
{
    size_t end = 0, i = 0;

    while (end < len && u[end] != '?' && u[end] != '#') {
        end++;
    }
    while (i < end) {
        size_t dots = 0;
        int other = 0;

        i++; /* the '/' that starts the segment */
        while (i < end && u[i] != '/') {
            if (u[i] == '.') {
                dots++;
                i++;
            }
            else if (u[i] == '%' && end - i >= 3 && u[i + 1] == '2'
                     && (u[i + 2] == 'e' || u[i + 2] == 'E')) {
                dots++;
                i += 3;
            }
            else {
                other = 1;
                i++;
            }
        }
        if (!other && (dots == 1 || dots == 2)) {
            return 1;
        }
    }
    return 0;
}

/* The query escaping of z (NUL-terminated) and back. */
static void check_query_escape(const char *z)
{
    size_t zlen = strlen(z), n, i, j;
    char *esc = malloc(3 * zlen + 1), *dec = malloc(zlen + 1);

    if (esc == NULL || dec == NULL) {
        free(esc);
        free(dec);
        return;
    }
    n = hsc_query_escape(z, esc);
    HSC_FUZZ_ASSERT(n == strlen(esc) && n <= 3 * zlen);
    for (i = 0, j = 0; i < n; j++) {
        unsigned char c = (unsigned char)esc[i];
        if (c == '%') {
            HSC_FUZZ_ASSERT(i + 2 < n);
            HSC_FUZZ_ASSERT(hexval((unsigned char)esc[i + 1]) >= 0
                            && hexval((unsigned char)esc[i + 2]) >= 0);
            dec[j] = (char)(hexval((unsigned char)esc[i + 1]) * 16
                            + hexval((unsigned char)esc[i + 2]));
            i += 3;
        }
        else {
            HSC_FUZZ_ASSERT((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                            || (c >= '0' && c <= '9')
                            || strchr("-._~/", c) != NULL);
            dec[j] = (char)c;
            i++;
        }
    }
    HSC_FUZZ_ASSERT(j == zlen && memcmp(dec, z, zlen) == 0);
    free(esc);
    free(dec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Exactly size bytes, so ASan sees any read past the length. */
    char *url = malloc(size ? size : 1);
    char *z = malloc(size + 1);
    int ok, c0, c1;
    size_t i;

    if (url == NULL || z == NULL) {
        free(url);
        free(z);
        return 0;
    }
    if (size) {
        memcpy(url, data, size);
        memcpy(z, data, size);
    }
    z[size] = '\0';

    ok = hsc_return_url_safe(url, size);
    HSC_FUZZ_ASSERT(ok == 0 || ok == 1);
    HSC_FUZZ_ASSERT(hsc_return_url_safe(url, size) == ok);
    HSC_FUZZ_ASSERT(hsc_return_url_safe(z, size) == ok);

    if (ok) {
        HSC_FUZZ_ASSERT(size >= 1 && url[0] == '/');
        HSC_FUZZ_ASSERT(size < 2 || (url[1] != '/' && url[1] != '\\'));
        for (i = 0; i < size; i++) {
            unsigned char ch = (unsigned char)url[i];

            HSC_FUZZ_ASSERT(ch >= 0x20 && ch < 0x7f);
            HSC_FUZZ_ASSERT(ch != '\\');
        }
        i = 0;
        c0 = decoded_at((const unsigned char *)url, size, &i);
        c1 = decoded_at((const unsigned char *)url, size, &i);
        HSC_FUZZ_ASSERT(c0 == '/');
        HSC_FUZZ_ASSERT(c1 != '/' && c1 != '\\');
        HSC_FUZZ_ASSERT(!ref_dot_segment((const unsigned char *)url, size));
    }
    check_query_escape(z);
    free(z);
    free(url);
    return 0;
}
