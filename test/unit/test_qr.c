/*
 * test_qr.c: the QR codes of TOTP enrolment (hsc_qr.c): the SVG has the
 * three finder patterns where the standard puts them, inside the quiet
 * zone, and the terminal text draws two rows a line.
 */
#include <stdio.h>
#include <string.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>

#include "hsc_test.h"
#include "hsc_qr.h"

static apr_pool_t *pool;

#define URI                                                                    \
    "otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"     \
    "&issuer=Example&algorithm=SHA1&digits=6&period=30"

static void svg_has_the_finder_patterns(void)
{
    const char *svg = hsc_qr_svg(pool, URI, "QR code");
    int size = 0;

    CHECK(svg != NULL, "the URI encodes");
    if (svg == NULL) {
        return;
    }
    CHECK(sscanf(strstr(svg, "viewBox=\"0 0 ") + 13, "%d", &size) == 1,
          "a viewBox");
    /* Versions are 21 + 4k modules wide, and 4 of quiet zone each side. */
    CHECK(size >= 29 && (size - 2 * HSC_QR_QUIET - 21) % 4 == 0,
          "as wide as a QR version and its quiet zone");
    CHECK(strstr(svg, "M4 4h7v1h-7z") != NULL,
          "the top-left finder's first row, inside the quiet zone");
    CHECK(strstr(svg, apr_psprintf(pool, "M%d 4h7v1h-7z", size - 11)) != NULL,
          "the top-right finder");
    CHECK(strstr(svg, apr_psprintf(pool, "M4 %dh7v1h-7z", size - 11)) != NULL,
          "the bottom-left finder");
    CHECK(strstr(svg, "M0 0") == NULL, "nothing dark in the quiet zone");
    CHECK(strstr(svg, "aria-label=\"QR code\"") != NULL, "its accessible name");
    CHECK(strstr(svg, "<script") == NULL && strstr(svg, "style=") == NULL,
          "no script and no style attribute (the CSP allows neither)");
}

static void terminal_text(void)
{
    const char *t = hsc_qr_text(pool, URI), *nl;
    int lines = 0;

    CHECK(t != NULL, "the URI draws");
    if (t == NULL) {
        return;
    }
    for (nl = t; (nl = strchr(nl, '\n')) != NULL; nl++) {
        lines++;
    }
    nl = strchr(t, '\n');
    /* The first line is quiet zone: full blocks (3 bytes each) only. */
    CHECK(nl != NULL && (nl - t) % 3 == 0
              && strncmp(t, "\xe2\x96\x88\xe2\x96\x88", 6) == 0,
          "the first line is the light quiet zone");
    CHECK(lines == ((int)(nl - t) / 3 + 1) / 2, "two rows of modules a line");
}

static void too_long_is_null(void)
{
    char big[8000];

    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    CHECK(hsc_qr_svg(pool, big, "x") == NULL,
          "over a QR code's capacity: NULL");
    CHECK(hsc_qr_text(pool, big) == NULL, "and for the terminal");
}

int main(void)
{
    apr_initialize();
    apr_pool_create(&pool, NULL);
    RUN(svg_has_the_finder_patterns);
    RUN(terminal_text);
    RUN(too_long_is_null);
    apr_pool_destroy(pool);
    apr_terminate();
    return hsc_test_done();
}
