/*
 * fuzz_authz.c: the URL a proxy asks hsc-authz about (hsc_authz_url,
 * hsc_authz_url_parse) and the return URLs a login accepts
 * (hsc_return_url_allowed).
 *
 * Input: up to three parts separated by NUL bytes: scheme, host, path
 * (missing parts are NULL). The whole input is also tried as one URL, and
 * as a return URL with the host part as the allowed host.
 *
 * Properties (each aborts when violated):
 *   - a URL made from parts is canonical: parsing it again gives it back,
 *     it has no byte below '!' or above '~', no '#', and fits the limit;
 *   - its host (the part as given, lower-cased) is allowed as a return
 *     host exactly when its path is a safe local return URL;
 *   - a URL parsed from the whole input is canonical the same way;
 *   - an allowed return URL is a local path or begins "http".
 */
#include <stdlib.h>
#include <string.h>

#include "hsc_fuzz.h"
#include "hsc_authz.h"
#include "hsc_http.h"

static void canonical(const char *url)
{
    char again[HSC_AUTHZ_URL_MAX + 1];
    size_t i, n = strlen(url);

    HSC_FUZZ_ASSERT(n <= HSC_AUTHZ_URL_MAX);
    for (i = 0; i < n; i++) {
        HSC_FUZZ_ASSERT(url[i] > 0x20 && url[i] < 0x7f && url[i] != '#');
    }
    HSC_FUZZ_ASSERT(hsc_authz_url_parse(url, again, sizeof(again)) == HSC_OK);
    HSC_FUZZ_ASSERT(strcmp(url, again) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1), *part[3] = {NULL, NULL, NULL};
    char url[HSC_AUTHZ_URL_MAX + 1], lower[HSC_AUTHZ_URL_MAX + 1];
    size_t i, n = 0, start = 0;

    if (buf == NULL) {
        return 0;
    }
    memcpy(buf, data, size);
    buf[size] = '\0';
    for (i = 0; i <= size && n < 3; i++) {
        if (i == size || buf[i] == '\0') {
            part[n++] = buf + start;
            start = i + 1;
        }
    }
    if (hsc_authz_url(part[0], part[1], part[2], url, sizeof(url)) == HSC_OK) {
        const char *host;

        canonical(url);
        for (i = 0; part[1][i] != '\0' && i < sizeof(lower) - 1; i++) {
            char c = part[1][i];
            lower[i] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
        }
        lower[i] = '\0';
        host = lower;
        HSC_FUZZ_ASSERT(hsc_return_url_allowed(url, strlen(url), &host, 1)
                        == hsc_return_url_safe(part[2], strlen(part[2])));
    }
    if (hsc_authz_url_parse(buf, url, sizeof(url)) == HSC_OK) {
        canonical(url);
    }
    if (part[1] != NULL) {
        const char *host = part[1];

        if (hsc_return_url_allowed(buf, strlen(buf), &host, 1)) {
            HSC_FUZZ_ASSERT(buf[0] == '/' || strncmp(buf, "http", 4) == 0);
        }
    }
    free(buf);
    return 0;
}
