/*
 * test_response.c: the response headers (hsc_response.h): Cache-Control
 * of admitted responses, the cookie attribute rules and the Set-Cookie
 * line.
 */
#include <stdio.h>
#include <string.h>

#include "hsc_test.h"
#include "hsc_response.h"

/* --- Cache-Control of admitted requests ---------------------------------- */

static const struct {
    const char *cc;   /* what the response had (NULL: none) */
    int cookie_set;   /* the response sets or refreshes the cookie */
    const char *want; /* hsc_cc_private */
} cc_cases[] = {
    {NULL, 0, "private"},
    {"", 0, "private"},
    {NULL, 1, "private, no-store"},
    {"max-age=3600", 0, "max-age=3600, private"},
    {"max-age=3600", 1, "max-age=3600, private, no-store"},
    {"public, max-age=3600", 0, "max-age=3600, private"},
    {"PUBLIC,s-maxage=600 , max-age=60", 0, "max-age=60, private"},
    {"no-store", 0, "no-store"},
    {"no-store", 1, "no-store"},
    {"private", 0, "private"},
    {"private, max-age=60", 1, "private, max-age=60, no-store"},
    {"no-cache=\"Set-Cookie, X\", max-age=5", 0,
     "no-cache=\"Set-Cookie, X\", max-age=5, private"},
    {"no-storex", 0, "no-storex, private"},
    {" , ,", 0, "private"},
    {"max-age=3600, max-age=3600", 0, "max-age=3600, max-age=3600, private"},
};

static void cache_control_is_private_and_never_weaker(void)
{
    char out[128];
    size_t i;

    for (i = 0; i < sizeof(cc_cases) / sizeof(cc_cases[0]); i++) {
        size_t n = hsc_cc_private(cc_cases[i].cc, cc_cases[i].cookie_set, out,
                                  sizeof(out));
        printf("# case %u\n", (unsigned)i);
        CHECK_STR(out, cc_cases[i].want, "merged as the table says");
        CHECK_EQ(n, strlen(cc_cases[i].want), "its length");
    }
    CHECK_EQ(hsc_cc_private("max-age=3600", 1, out, 20), 0,
             "too small a buffer: 0");
    CHECK_STR(out, "", "and an empty string");
}

/* --- cookie attributes ---------------------------------------------------- */

static const struct {
    const char *name, *domain, *path; /* the attributes */
    int secure;
    hsc_cookie_samesite_t samesite;
    const char *problem; /* start of the expected text (NULL: allowed) */
} attrs_cases[] = {
    {"hsc", NULL, "/", 1, HSC_SITE_LAX, NULL},
    {"hsc", "example.test", "/app", 0, HSC_SITE_STRICT, NULL},
    {"__Host-hsc", NULL, "/", 1, HSC_SITE_LAX, NULL},
    {"__Host-hsc", NULL, "/", 0, HSC_SITE_LAX, "a __Host- cookie"},
    {"__Host-hsc", NULL, "/app", 1, HSC_SITE_LAX, "a __Host- cookie"},
    {"__Host-hsc", "example.test", "/", 1, HSC_SITE_LAX, "a __Host- cookie"},
    {"__Secure-hsc", "example.test", "/app", 1, HSC_SITE_LAX, NULL},
    {"__Secure-hsc", NULL, "/", 0, HSC_SITE_LAX, "a __Secure- cookie"},
    {"hsc", NULL, "/", 0, HSC_SITE_NONE, "HSCCookieSameSite None"},
    {"hsc", NULL, "/", 1, HSC_SITE_NONE, NULL},
    {"__host-hsc", NULL, "/app", 0, HSC_SITE_LAX, NULL}, /* as today */
};

static void cookie_attrs_conflict_follows_the_table(void)
{
    size_t i;

    for (i = 0; i < sizeof(attrs_cases) / sizeof(attrs_cases[0]); i++) {
        hsc_cookie_attrs_t a;
        const char *got;

        a.name = attrs_cases[i].name;
        a.domain = attrs_cases[i].domain;
        a.path = attrs_cases[i].path;
        a.secure = attrs_cases[i].secure;
        a.samesite = attrs_cases[i].samesite;
        got = hsc_cookie_attrs_conflict(&a);
        printf("# case %u\n", (unsigned)i);
        if (attrs_cases[i].problem == NULL) {
            CHECK(got == NULL, "allowed");
        }
        else {
            CHECK(got != NULL
                      && !strncmp(got, attrs_cases[i].problem,
                                  strlen(attrs_cases[i].problem)),
                  "refused with its reason");
        }
    }
}

/* --- Set-Cookie ----------------------------------------------------------- */

static void set_cookie_line_is_as_the_module_writes_it(void)
{
    hsc_cookie_attrs_t a = {"hsc", NULL, "/", 1, HSC_SITE_LAX};
    char out[512];
    size_t n;

    n = hsc_set_cookie_line(&a, "v1.abc", 28800, 1733390839 + 28800, out,
                            sizeof(out));
    CHECK_STR(out,
              "hsc=v1.abc; Path=/; Max-Age=28800; Expires=Thu, 05 Dec 2024 "
              "17:27:19 GMT; HttpOnly; Secure; SameSite=Lax",
              "the line");
    CHECK_EQ(n, strlen(out), "its length");

    a.domain = "example.test";
    a.path = "/app";
    a.secure = 0;
    a.samesite = HSC_SITE_STRICT;
    n = hsc_set_cookie_line(&a, "", 0, 0, out, sizeof(out));
    CHECK_STR(out,
              "hsc=; Path=/app; Domain=example.test; Max-Age=0; Expires=Thu, "
              "01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict",
              "a deletion: empty value, epoch, no Secure");
    CHECK_EQ(n, strlen(out), "its length");

    a.samesite = HSC_SITE_NONE;
    a.secure = 1;
    CHECK(hsc_set_cookie_line(&a, "x", -5, 0, out, sizeof(out)) > 0,
          "a negative Max-Age");
    CHECK(strstr(out, "; Max-Age=0;") != NULL, "is written as 0");
    CHECK(strstr(out, "SameSite=None") != NULL, "SameSite=None");
}

static void set_cookie_line_refuses_what_would_inject(void)
{
    static const char *const values[] = {"a;b",  "a b",  "a\r\nX: y",
                                         "a,b",  "a\"",  "a\\b",
                                         "a\tb", "\x7f", "\xc3\xa9"};
    hsc_cookie_attrs_t a = {"hsc", NULL, "/", 1, HSC_SITE_LAX};
    char out[256];
    size_t i;

    for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        printf("# value %u\n", (unsigned)i);
        CHECK_EQ(hsc_set_cookie_line(&a, values[i], 1, 1, out, sizeof(out)), 0,
                 "a value that is not cookie-octets");
        CHECK_STR(out, "", "leaves an empty string");
    }
    a.name = "h;sc";
    CHECK_EQ(hsc_set_cookie_line(&a, "x", 1, 1, out, sizeof(out)), 0,
             "a name that is not a token");
    a.name = "hsc";
    a.path = "/a;Domain=evil";
    CHECK_EQ(hsc_set_cookie_line(&a, "x", 1, 1, out, sizeof(out)), 0,
             "a path with ';'");
    a.path = "/";
    a.domain = "evil.test; Secure";
    CHECK_EQ(hsc_set_cookie_line(&a, "x", 1, 1, out, sizeof(out)), 0,
             "a domain with '; '");
    a.domain = NULL;
    CHECK_EQ(hsc_set_cookie_line(&a, NULL, 1, 1, out, sizeof(out)), 0,
             "a NULL value");
    CHECK_EQ(hsc_set_cookie_line(NULL, "x", 1, 1, out, sizeof(out)), 0,
             "NULL attributes");
    CHECK_EQ(hsc_set_cookie_line(&a, "x", 1, (int64_t)400000 * 366 * 86400, out,
                                 sizeof(out)),
             0, "a year after 9999");
    CHECK_EQ(hsc_set_cookie_line(&a, "x", 1, 1, out, 20), 0,
             "too small a buffer");
    CHECK_STR(out, "", "leaves an empty string");
}

int main(void)
{
    RUN(cache_control_is_private_and_never_weaker);
    RUN(cookie_attrs_conflict_follows_the_table);
    RUN(set_cookie_line_is_as_the_module_writes_it);
    RUN(set_cookie_line_refuses_what_would_inject);
    return hsc_test_done();
}
