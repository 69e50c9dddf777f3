/*
 * fuzz_origin.c: the two request headers a login POST is judged by before
 * its body is read: hsc_same_origin() (Origin against the request's scheme
 * and Host) and hsc_content_type_is_form(); and the two others that name
 * a site: hsc_forwarded_proto() and hsc_referer_path() (the ORIGIN part
 * read as a Referer, with "/logout" as the page's own path).
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
 *   - an accepted Content-Type starts with the form media type;
 *   - X-Forwarded-Proto (the whole input) names a scheme only when it is
 *     "http" or "https" in some case, and then that one, in lower case;
 *   - a Referer path lies inside the Referer, after "http(s)://" and
 *     exactly the Host, is a safe return URL and not "/logout...".
 */
#include <string.h>
#include <strings.h>

#include "hsc_fuzz.h"
#include "hsc_http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *scheme, *xfp, *path;
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

    xfp = hsc_forwarded_proto(buf);
    HSC_FUZZ_ASSERT(xfp == NULL || !strcmp(xfp, "http")
                    || !strcmp(xfp, "https"));
    HSC_FUZZ_ASSERT((xfp != NULL)
                    == (!strcasecmp(buf, "http") || !strcasecmp(buf, "https")));
    HSC_FUZZ_ASSERT(xfp == NULL || !strcasecmp(buf, xfp));

    origin = buf;
    nl = strchr(buf, '\n');
    if (nl != NULL) {
        *nl = '\0';
        host = nl + 1;
    }
    else {
        host = buf + strlen(buf); /* "" */
    }
    path = hsc_referer_path(origin, host, "/logout");
    if (path != NULL) {
        size_t hl = strlen(host),
               skip = !strncasecmp(origin, "https://", 8) ? 8 : 7;

        HSC_FUZZ_ASSERT(path > origin && path < origin + strlen(origin));
        HSC_FUZZ_ASSERT(!strncasecmp(origin, "https://", 8)
                        || !strncasecmp(origin, "http://", 7));
        HSC_FUZZ_ASSERT(path == origin + skip + hl);
        HSC_FUZZ_ASSERT(!strncasecmp(origin + skip, host, hl));
        HSC_FUZZ_ASSERT(hsc_return_url_safe(path, strlen(path)));
        HSC_FUZZ_ASSERT(strncmp(path, "/logout", 7) != 0);
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
