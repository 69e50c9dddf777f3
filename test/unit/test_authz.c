/*
 * test_authz.c: the URL a proxy asks hsc-authz about, and the return URLs
 * a login may go back to (hsc_authz.c).
 */
#include <string.h>

#include "hsc_test.h"
#include "hsc_authz.h"

static void parts_make_one_canonical_url(void)
{
    static const struct {
        const char *scheme, *host, *path, *want;
        hsc_status_t st;
    } cases[] = {
        {"https", "app.example.com", "/a?b=1", "https://app.example.com/a?b=1",
         HSC_OK},
        {"HTTP", "App.Example.COM:8080", "/", "http://app.example.com:8080/",
         HSC_OK},
        {"https", "[::1]:8443", "/x", "https://[::1]:8443/x", HSC_OK},
        {"ftp", "a", "/", "", HSC_EMALFORMED},
        {"https", "", "/", "", HSC_EMALFORMED},
        {"https", "a b", "/", "", HSC_EMALFORMED},
        {"https", "a@b", "/", "", HSC_EMALFORMED},
        {"https", "a/b", "/", "", HSC_EMALFORMED},
        {"https", "a:0", "/", "", HSC_EMALFORMED},
        {"https", "a:65536", "/", "", HSC_EMALFORMED},
        {"https", "a:", "/", "", HSC_EMALFORMED},
        {"https", ".a", "/", "", HSC_EMALFORMED},
        {"https", "[zz]", "/", "", HSC_EMALFORMED},
        {"https", "a", "x", "", HSC_EMALFORMED},
        {"https", "a", "", "", HSC_EMALFORMED},
        {"https", "a", "/a b", "", HSC_EMALFORMED},
        {"https", "a", "/a#b", "", HSC_EMALFORMED},
        {"https", "a", "/a\r\nX: y", "", HSC_EMALFORMED},
        {NULL, "a", "/", "", HSC_EMALFORMED},
    };
    char out[HSC_AUTHZ_URL_MAX + 1];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK_EQ(hsc_authz_url(cases[i].scheme, cases[i].host, cases[i].path,
                               out, sizeof(out)),
                 cases[i].st, cases[i].want[0] ? cases[i].want : "refused");
        CHECK_STR(out, cases[i].want, "and its text");
    }
}

static void one_url_parses_as_its_parts(void)
{
    char out[HSC_AUTHZ_URL_MAX + 1], big[HSC_AUTHZ_URL_MAX + 40];

    CHECK_EQ(hsc_authz_url_parse("HTTPS://App.example.com/p?q", out,
                                 sizeof(out)),
             HSC_OK, "an absolute URL");
    CHECK_STR(out, "https://app.example.com/p?q", "made canonical");
    CHECK_EQ(hsc_authz_url_parse("https://app.example.com", out, sizeof(out)),
             HSC_EMALFORMED, "no path: refused");
    CHECK_EQ(hsc_authz_url_parse("/p", out, sizeof(out)), HSC_EMALFORMED,
             "no scheme: refused");
    CHECK_EQ(hsc_authz_url_parse("https://user@app/p", out, sizeof(out)),
             HSC_EMALFORMED, "userinfo: refused");
    CHECK_EQ(hsc_authz_url_parse("javascript://x/%0a", out, sizeof(out)),
             HSC_EMALFORMED, "another scheme: refused");
    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    memcpy(big, "https://h/", 10);
    CHECK_EQ(hsc_authz_url_parse(big, out, sizeof(out)), HSC_ETOOLONG,
             "past 2,048 bytes: too long");
    CHECK_EQ(hsc_authz_url_parse("https://h/p", out, 5), HSC_ETOOLONG,
             "past cap: too long");
    CHECK_EQ(hsc_authz_url_parse(NULL, out, sizeof(out)), HSC_EMALFORMED,
             "NULL");
}

static void return_urls_are_local_or_allowed_hosts(void)
{
    const char *hosts[] = {"app.example.com", "other.example.com:8443"};
    static const struct {
        const char *url;
        int want;
    } cases[] = {
        {"/private/page.html", 1},
        {"//evil.example/", 0},
        {"https://app.example.com/x", 1},
        {"http://app.example.com:8080/x?y=1", 1},
        {"https://other.example.com:8443/", 1},
        {"https://other.example.com/", 0},
        {"https://other.example.com:9443/", 0},
        {"https://evil.example/", 0},
        {"https://app.example.com.evil.example/", 0},
        {"https://App.example.com/x", 0}, /* not canonical */
        {"https://app.example.com//evil.example/", 0},
        {"https://app.example.com/%2e%2e/x", 0},
        {"https://app.example.com", 0},
        {"javascript:alert(1)", 0},
        {"", 0},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK_EQ(hsc_return_url_allowed(cases[i].url, strlen(cases[i].url),
                                        hosts, 2),
                 cases[i].want, cases[i].url);
    }
    CHECK_EQ(hsc_return_url_allowed("https://app.example.com/x", 25, NULL, 0),
             0, "no hosts: no absolute URL");
    CHECK_EQ(hsc_return_url_allowed("/x\0y", 4, hosts, 2), 0, "a NUL: refused");
}

int main(void)
{
    RUN(parts_make_one_canonical_url);
    RUN(one_url_parses_as_its_parts);
    RUN(return_urls_are_local_or_allowed_hosts);
    return hsc_test_done();
}
