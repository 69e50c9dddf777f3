/*
 * test_http.c: the untrusted HTTP inputs (hsc_http.h): Cookie header scan,
 * login form parsing, the return-URL check, the same-origin check, the
 * Content-Type match, the query escaping, X-Forwarded-Proto and the
 * Referer path of the logout page's Cancel link.
 */
#include <stdio.h>
#include <string.h>

#include "hsc_test.h"
#include "hsc_http.h"

/* --- Cookie header -------------------------------------------------------- */

static const struct {
    const char *header; /* the Cookie request header */
    const char *name;   /* cookie looked for */
    hsc_status_t st;    /* expected status */
    int count;          /* expected number of cookies of that name */
    const char *value;  /* expected value when st == HSC_OK */
} cookie_cases[] = {
    {"hsc=abc", "hsc", HSC_OK, 1, "abc"},
    {"a=1; hsc=abc; b=2", "hsc", HSC_OK, 1, "abc"},
    {"a=1;hsc=abc;b=2", "hsc", HSC_OK, 1, "abc"},
    {"  hsc =  abc  ;b=2", "hsc", HSC_OK, 1, "abc"},
    {"\thsc=abc\t", "hsc", HSC_OK, 1, "abc"},
    {"hsc=\"abc\"", "hsc", HSC_OK, 1, "abc"},
    {"hsc=\"\"", "hsc", HSC_OK, 1, ""},
    {"hsc=\"abc", "hsc", HSC_OK, 1, "\"abc"},
    {"hsc=", "hsc", HSC_OK, 1, ""},
    {"hsc=a=b", "hsc", HSC_OK, 1, "a=b"},
    {"xhsc=evil; hsc=good", "hsc", HSC_OK, 1, "good"},
    {"hscx=evil; hsc=good", "hsc", HSC_OK, 1, "good"},
    {"hsc=good; xhsc=evil", "hsc", HSC_OK, 1, "good"},
    {"HSC=evil; hsc=good", "hsc", HSC_OK, 1, "good"},
    {"__Host-hsc=v", "__Host-hsc", HSC_OK, 1, "v"},
    {"hsc=v", "__Host-hsc", HSC_EINVAL, 0, NULL},
    {"", "hsc", HSC_EINVAL, 0, NULL},
    {";;;", "hsc", HSC_EINVAL, 0, NULL},
    {"hsc", "hsc", HSC_EINVAL, 0, NULL},
    {"xhsc=1", "hsc", HSC_EINVAL, 0, NULL},
    {"hscx=1", "hsc", HSC_EINVAL, 0, NULL},
    {"a=hsc=1", "hsc", HSC_EINVAL, 0, NULL},
    /* Two Cookie header lines, which httpd joins with ", ": the session
     * cookie at the start of the second line is found, and two
     * of ours are two. */
    {"hsc=a, hsc=b", "hsc", HSC_EMALFORMED, 2, NULL},
    {"theme=dark, hsc=v1", "hsc", HSC_OK, 1, "v1"},
    {"theme=dark; lang=en, hsc=v1; x=2", "hsc", HSC_OK, 1, "v1"},
    {"hsc=v1, theme=dark", "hsc", HSC_OK, 1, "v1"},
    {"hsc=1; hsc=2", "hsc", HSC_EMALFORMED, 2, NULL},
    {"hsc=1; hsc=1", "hsc", HSC_EMALFORMED, 2, NULL},
    {"hsc=1;hsc=2;hsc=3", "hsc", HSC_EMALFORMED, 3, NULL},
    {" hsc = 1 ; a=2 ;  hsc=", "hsc", HSC_EMALFORMED, 2, NULL},
};

static void cookie_header_find_follows_the_table(void)
{
    size_t i;
    char what[160];

    for (i = 0; i < sizeof(cookie_cases) / sizeof(cookie_cases[0]); ++i) {
        const char *val = (const char *)1;
        size_t vallen = 99;
        int count = -1;
        hsc_status_t st = hsc_cookie_header_find(cookie_cases[i].header,
                                                 cookie_cases[i].name, &val,
                                                 &vallen, &count);
        snprintf(what, sizeof(what), "case %zu status (\"%s\")", i,
                 cookie_cases[i].header);
        CHECK_EQ(st, cookie_cases[i].st, what);
        snprintf(what, sizeof(what), "case %zu count", i);
        CHECK_EQ(count, cookie_cases[i].count, what);
        if (cookie_cases[i].value != NULL) {
            snprintf(what, sizeof(what), "case %zu value", i);
            CHECK(val != NULL && vallen == strlen(cookie_cases[i].value)
                      && memcmp(val, cookie_cases[i].value, vallen) == 0,
                  what);
        }
        else {
            snprintf(what, sizeof(what), "case %zu outputs cleared", i);
            CHECK(val == NULL && vallen == 0, what);
        }
    }
}

static void cookie_header_find_refuses_null_inputs(void)
{
    const char *val = (const char *)1;
    size_t vallen = 5;
    int count = 7;

    CHECK_EQ(hsc_cookie_header_find(NULL, "hsc", &val, &vallen, &count),
             HSC_EINVAL, "NULL header is none");
    CHECK(val == NULL && vallen == 0 && count == 0, "outputs assigned");
    CHECK_EQ(hsc_cookie_header_find("hsc=1", "", &val, &vallen, &count),
             HSC_EINVAL, "empty name finds nothing");
}

/* --- Login form ----------------------------------------------------------- */

/* Parses a copy of body exactly len bytes long (no NUL after it). */
static hsc_status_t parse_copy(const char *body, char *buf, size_t bufsize,
                               hsc_login_form_t *form)
{
    size_t len = strlen(body);

    if (len > bufsize) {
        len = bufsize;
    }
    memcpy(buf, body, len);
    return hsc_form_parse(buf, len, form);
}

static void form_parse_decodes_percent_and_plus(void)
{
    char buf[256];
    hsc_login_form_t f;

    CHECK_EQ(parse_copy("username=alice+b%40x&password=p%2Bw+d%25"
                        "&return=%2Fa%3Fb%3Dc",
                        buf, sizeof(buf), &f),
             HSC_OK, "parses");
    CHECK_STR(f.username.value, "alice b@x", "username decoded");
    CHECK_EQ(f.username.len, 9, "username length");
    CHECK_STR(f.password.value, "p+w d%", "password decoded");
    CHECK_STR(f.ret.value, "/a?b=c", "return decoded");
    CHECK(f.username.present && f.password.present && f.ret.present,
          "fields present");
    CHECK(!f.everywhere.present && f.everywhere.value == NULL,
          "absent field stays absent");
}

static void form_parse_accepts_lowercase_hex_and_decoded_names(void)
{
    char buf[128];
    hsc_login_form_t f;

    CHECK_EQ(parse_copy("user%6eame=%61%62&everywhere=1", buf, sizeof(buf), &f),
             HSC_OK, "parses");
    CHECK_STR(f.username.value, "ab", "encoded name and lowercase hex");
    CHECK_STR(f.everywhere.value, "1", "everywhere");
}

static void form_parse_terminates_last_value_inside_the_buffer(void)
{
    /* The buffer is exactly the body: a NUL past it would overflow, and
     * the guard byte after it must stay untouched. */
    char buf[32];
    hsc_login_form_t f;

    memset(buf, 'Z', sizeof(buf));
    memcpy(buf, "password=abc", 12);
    CHECK_EQ(hsc_form_parse(buf, 12, &f), HSC_OK, "parses");
    CHECK_STR(f.password.value, "abc", "value terminated");
    CHECK(buf[12] == 'Z', "no byte written past the body");
}

static void form_parse_ignores_unknown_and_empty_pairs(void)
{
    char buf[128];
    hsc_login_form_t f;

    CHECK_EQ(parse_copy("&&foo=bar&username=bob&&x&=y&", buf, sizeof(buf), &f),
             HSC_OK, "parses");
    CHECK_STR(f.username.value, "bob", "username");
    CHECK(!f.password.present, "no password");
}

static void form_parse_treats_a_bare_name_as_empty(void)
{
    char buf[64];
    hsc_login_form_t f;

    CHECK_EQ(parse_copy("everywhere&username=", buf, sizeof(buf), &f), HSC_OK,
             "parses");
    CHECK(f.everywhere.present && f.everywhere.len == 0, "bare name");
    CHECK(f.username.present && f.username.len == 0, "empty value");
    CHECK_STR(f.username.value, "", "empty string");
}

static void form_parse_keeps_nul_bytes_counted(void)
{
    char buf[64];
    hsc_login_form_t f;

    CHECK_EQ(parse_copy("username=a%00b", buf, sizeof(buf), &f), HSC_OK,
             "parses");
    CHECK_EQ(f.username.len, 3, "length counts the NUL");
    CHECK(f.username.value[1] == '\0' && f.username.value[2] == 'b',
          "NUL kept in place");
}

static const struct {
    const char *body; /* form body */
    hsc_status_t st;  /* expected status */
} form_bad_cases[] = {
    {"username=%", HSC_EMALFORMED},
    {"username=%4", HSC_EMALFORMED},
    {"username=%zz", HSC_EMALFORMED},
    {"username=%g0", HSC_EMALFORMED},
    {"password=a%2", HSC_EMALFORMED},
    {"unknown=%x1&username=a", HSC_EMALFORMED},
    {"user%6=a", HSC_EMALFORMED},
    {"username=a&username=b", HSC_EMALFORMED},
    {"password=a&password=a", HSC_EMALFORMED},
    {"return=/a&return=/b", HSC_EMALFORMED},
    {"everywhere&everywhere=1", HSC_EMALFORMED},
    {"user%6eame=a&username=b", HSC_EMALFORMED},
};

static void form_parse_refuses_bad_escapes_and_repeats(void)
{
    size_t i;
    char buf[128], what[128];

    for (i = 0; i < sizeof(form_bad_cases) / sizeof(form_bad_cases[0]); ++i) {
        hsc_login_form_t f;
        hsc_status_t st = parse_copy(form_bad_cases[i].body, buf, sizeof(buf),
                                     &f);
        snprintf(what, sizeof(what), "\"%s\"", form_bad_cases[i].body);
        CHECK_EQ(st, form_bad_cases[i].st, what);
        CHECK(!f.username.present && !f.password.present && !f.ret.present
                  && f.username.value == NULL,
              "form cleared on failure");
    }
}

/* Builds "name=" followed by n bytes of fill, possibly percent-encoded. */
static size_t build_field(char *buf, const char *name, size_t n, int encoded)
{
    size_t o = strlen(name), i;

    memcpy(buf, name, o);
    buf[o++] = '=';
    for (i = 0; i < n; ++i) {
        if (encoded) {
            memcpy(buf + o, "%41", 3);
            o += 3;
        }
        else {
            buf[o++] = 'a';
        }
    }
    return o;
}

static const struct {
    const char *name; /* field name */
    size_t limit;     /* largest decoded length accepted */
} form_limits[] = {
    {"username", 255},
    {"password", 1024},
    {"return", 2048},
};

static void form_parse_enforces_decoded_limits(void)
{
    static char buf[8 * 1024];
    size_t i, len;
    hsc_login_form_t f;
    char what[96];

    for (i = 0; i < sizeof(form_limits) / sizeof(form_limits[0]); ++i) {
        len = build_field(buf, form_limits[i].name, form_limits[i].limit, 0);
        snprintf(what, sizeof(what), "%s at its limit", form_limits[i].name);
        CHECK_EQ(hsc_form_parse(buf, len, &f), HSC_OK, what);
        len = build_field(buf, form_limits[i].name, form_limits[i].limit + 1,
                          0);
        snprintf(what, sizeof(what), "%s one over", form_limits[i].name);
        CHECK_EQ(hsc_form_parse(buf, len, &f), HSC_ETOOLONG, what);
        /* The limit is on decoded bytes: encoded at the limit is fine. */
        len = build_field(buf, form_limits[i].name, form_limits[i].limit, 1);
        snprintf(what, sizeof(what), "%s encoded at its limit",
                 form_limits[i].name);
        CHECK_EQ(hsc_form_parse(buf, len, &f), HSC_OK, what);
        CHECK_EQ(f.username.len + f.password.len + f.ret.len,
                 form_limits[i].limit, "decoded length");
        len = build_field(buf, form_limits[i].name, form_limits[i].limit + 1,
                          1);
        snprintf(what, sizeof(what), "%s encoded one over",
                 form_limits[i].name);
        CHECK_EQ(hsc_form_parse(buf, len, &f), HSC_ETOOLONG, what);
    }
}

static void form_parse_accepts_an_empty_body(void)
{
    char buf[1];
    hsc_login_form_t f;

    CHECK_EQ(hsc_form_parse(buf, 0, &f), HSC_OK, "empty body");
    CHECK(!f.username.present && !f.password.present, "nothing present");
}

/* --- Return URL ----------------------------------------------------------- */

static const struct {
    const char *url; /* candidate redirect target (NUL-free unless len) */
    size_t len;      /* 0: strlen(url) */
    int safe;        /* expected verdict */
} return_cases[] = {
    /* Safe local targets. */
    {"/", 0, 1},
    {"/app", 0, 1},
    {"/app/page?x=1&y=2#frag", 0, 1},
    {"/a%20b", 0, 1},
    {"/caf%C3%A9", 0, 1},
    {"/a?q=%2F%2Fx%2E%2E", 0, 1}, /* encoded separators in the query */
    {"/a#%2F%2Fx", 0, 1},
    {"/a:b", 0, 1},
    {"/.well-known/x", 0, 1},
    {"/?return=//evil.example", 0, 1},
    /* Absolute and scheme-relative. */
    {"//evil.example", 0, 0},
    {"//evil.example/path", 0, 0},
    {"///evil.example", 0, 0},
    {"https://evil.example", 0, 0},
    {"http://evil.example/", 0, 0},
    {"javascript:alert(1)", 0, 0},
    {"evil.example", 0, 0},
    {"", 0, 0},
    {"app", 0, 0},
    /* Backslashes, raw and encoded. */
    {"/\\evil.example", 0, 0},
    {"\\\\evil.example", 0, 0},
    {"/a\\b", 0, 0},
    {"/%5Cevil.example", 0, 0},
    {"/%5cevil.example", 0, 0},
    {"/%2F%5Cevil.example", 0, 0},
    /* Percent-encoded slashes, single and double. */
    {"/%2F%2Fevil.example", 0, 0},
    {"/%2fevil.example", 0, 0},
    {"/%2F/evil.example", 0, 0},
    {"/%252F%252Fevil.example", 0, 0},
    {"/%25", 0, 0},
    {"%2F%2Fevil.example", 0, 0},
    {"/a/%2F/b", 0, 0},
    /* Encoded dot segments and slashes anywhere in the path,
     * "/..//evil.com" once decoded. */
    {"/%2e%2e%2f%2fevil.com", 0, 0},
    {"/%2E%2E%2F%2Fevil.com", 0, 0},
    {"/a/%2e%2e%2f%2fevil.com", 0, 0},
    {"/%2e%2e%5c%5cevil.com", 0, 0},
    {"/x/..%2f%2fevil.com", 0, 0},
    {"/%2e./%2fevil.com", 0, 0},
    {"/a%2Eb", 0, 0},
    {"/a%2fb", 0, 0},
    {"/%252e%252e%252f%252fevil.com", 0, 0},
    {"/a/..%3f/", 0, 0}, /* "/a/..?/" once decoded: a dot segment */
    {"/a/..%23x", 0, 0},
    /* Control characters, raw and encoded. */
    {"/\t/evil.example", 0, 0},
    {"/\r\nSet-Cookie: x=1", 0, 0},
    {"/a\nb", 0, 0},
    {"/a\rb", 0, 0},
    {"/a b", 0, 0},
    {"/a\x7f", 0, 0},
    {"/a\x80", 0, 0},
    {"/caf\xc3\xa9", 0, 0},
    {"/a%0D%0ASet-Cookie:x", 0, 0},
    {"/a%0aLocation", 0, 0},
    {"/a%09", 0, 0},
    {"/a%7f", 0, 0},
    {"/a%00", 0, 0},
    {"/a\0b", 4, 0},
    /* Dot segments, which browsers resolve ("/..//x" is "//x"). */
    {"/..//evil.example", 0, 0},
    {"/.//evil.example", 0, 0},
    {"/a/../b", 0, 0},
    {"/a/./b", 0, 0},
    {"/a/..", 0, 0},
    {"/%2e%2e//evil.example", 0, 0},
    {"/%2E//evil.example", 0, 0},
    {"/.%2e/x", 0, 0},
    {"/...", 0, 1},
    {"/a.b/.c/d..", 0, 1},
    {"/a?x=/../y", 0, 1},
    {"/a#/../y", 0, 1},
    /* Broken escapes. */
    {"/a%", 0, 0},
    {"/a%4", 0, 0},
    {"/a%zz", 0, 0},
};

static void return_url_safe_follows_the_table(void)
{
    size_t i;
    char what[128];

    for (i = 0; i < sizeof(return_cases) / sizeof(return_cases[0]); ++i) {
        size_t len = return_cases[i].len ? return_cases[i].len
                                         : strlen(return_cases[i].url);
        snprintf(what, sizeof(what), "case %zu (%s)", i,
                 return_cases[i].safe ? "safe" : "refused");
        CHECK_EQ(hsc_return_url_safe(return_cases[i].url, len),
                 return_cases[i].safe, what);
    }
}

static void return_url_safe_refuses_null_and_prefix_lengths(void)
{
    CHECK_EQ(hsc_return_url_safe(NULL, 5), 0, "NULL");
    /* Only len bytes count: "/" of "//evil" is safe by itself. */
    CHECK_EQ(hsc_return_url_safe("//evil.example", 1), 1, "prefix of one");
    CHECK_EQ(hsc_return_url_safe("/app%2F", 6), 0, "cut escape");
}

/* --- same origin ---------------------------------------------------------- */

static const struct {
    const char *origin; /* the Origin header */
    const char *scheme; /* the request's scheme */
    const char *host;   /* the Host header */
    int same;           /* expected */
} origin_cases[] = {
    {"http://example.test", "http", "example.test", 1},
    {"https://example.test", "https", "example.test", 1},
    {"HTTP://Example.TEST", "http", "example.test", 1},
    {"http://example.test:80", "http", "example.test", 1},
    {"http://example.test", "http", "example.test:80", 1},
    {"https://example.test:443", "https", "example.test", 1},
    {"https://example.test", "https", "example.test:443", 1},
    {"http://127.0.0.1:8529", "http", "127.0.0.1:8529", 1},
    {"http://[::1]:8080", "http", "[::1]:8080", 1},
    {"http://[::1]", "http", "[::1]:80", 1},
    /* the scheme counts: */
    {"https://example.test", "http", "example.test", 0},
    {"http://example.test", "https", "example.test", 0},
    {"https://example.test:80", "http", "example.test", 0},
    {"http://example.test:443", "https", "example.test", 0},
    /* so do host and port: */
    {"http://evil.test", "http", "example.test", 0},
    {"http://example.test.evil.test", "http", "example.test", 0},
    {"http://example.tes", "http", "example.test", 0},
    {"http://example.test:8080", "http", "example.test", 0},
    {"http://example.test", "http", "example.test:8080", 0},
    {"http://example.test:8080", "http", "example.test:8081", 0},
    {"http://[::1]:8080", "http", "[::2]:8080", 0},
    /* and anything that is not a plain origin is another site: */
    {"null", "http", "example.test", 0},
    {"", "http", "example.test", 0},
    {"http://", "http", "", 0},
    {"http://example.test/", "http", "example.test", 0},
    {"http://user@example.test", "http", "example.test", 0},
    {"http://example.test:", "http", "example.test", 0},
    {"http://example.test:0", "http", "example.test", 0},
    {"http://example.test:65536", "http", "example.test", 0},
    {"http://example.test:080x", "http", "example.test", 0},
    {"http://example.test:123456", "http", "example.test", 0},
    {"http://example.test:80:80", "http", "example.test", 0},
    {"http://[::1", "http", "[::1", 0},
    {"http://[]", "http", "[]", 0},
    {"http:/example.test", "http", "example.test", 0},
    {"ftp://example.test", "ftp", "example.test", 0},
    {"http://exa mple.test", "http", "exa mple.test", 0},
    {"http://example.test\x7f", "http", "example.test", 0},
    {"http://example.test", "http", "example.test\t", 0},
};

static void same_origin_follows_the_table(void)
{
    size_t i;
    char what[160];

    for (i = 0; i < sizeof(origin_cases) / sizeof(origin_cases[0]); i++) {
        snprintf(what, sizeof(what), "Origin \"%s\", %s, Host \"%s\"",
                 origin_cases[i].origin, origin_cases[i].scheme,
                 origin_cases[i].host);
        CHECK_EQ(hsc_same_origin(origin_cases[i].origin, origin_cases[i].scheme,
                                 origin_cases[i].host),
                 origin_cases[i].same, what);
    }
}

static void same_origin_refuses_null_inputs(void)
{
    CHECK_EQ(hsc_same_origin(NULL, "http", "h"), 0, "no origin");
    CHECK_EQ(hsc_same_origin("http://h", NULL, "h"), 0, "no scheme");
    CHECK_EQ(hsc_same_origin("http://h", "http", NULL), 0, "no host");
}

/* --- Content-Type --------------------------------------------------------- */

static void content_type_is_form_matches_the_media_type_only(void)
{
    CHECK(hsc_content_type_is_form("application/x-www-form-urlencoded"),
          "exact");
    CHECK(hsc_content_type_is_form("Application/X-WWW-Form-Urlencoded"),
          "case-insensitive");
    CHECK(hsc_content_type_is_form(
              "application/x-www-form-urlencoded; charset=UTF-8"),
          "with a parameter");
    CHECK(hsc_content_type_is_form("application/x-www-form-urlencoded ;a"),
          "a space before the parameter");
    CHECK(!hsc_content_type_is_form("application/x-www-form-urlencodedx"),
          "a longer type");
    CHECK(!hsc_content_type_is_form("application/x-www-form"), "a prefix");
    CHECK(!hsc_content_type_is_form("multipart/form-data; boundary=x"),
          "multipart");
    CHECK(!hsc_content_type_is_form("text/plain"), "text/plain");
    CHECK(!hsc_content_type_is_form(""), "empty");
    CHECK(!hsc_content_type_is_form(NULL), "absent");
}

/* --- query escaping ------------------------------------------------------- */

static void query_escape_keeps_unreserved_and_slash_only(void)
{
    char out[3 * 64 + 1];
    size_t n;

    n = hsc_query_escape("/a/b-c.d_e~f/09AZaz", out);
    CHECK_STR(out, "/a/b-c.d_e~f/09AZaz", "unreserved bytes and '/' stay");
    CHECK_EQ(n, strlen(out), "the length is returned");
    hsc_query_escape("/p?x=1&y=2#f", out);
    CHECK_STR(out, "/p%3Fx%3D1%26y%3D2%23f", "query syntax is escaped");
    hsc_query_escape("/%20 +", out);
    CHECK_STR(out, "/%2520%20%2B", "percent, space and plus");
    hsc_query_escape("/\xc3\xa9\x7f\x01", out);
    CHECK_STR(out, "/%C3%A9%7F%01", "bytes over 0x7e and controls");
    n = hsc_query_escape("", out);
    CHECK(n == 0 && out[0] == '\0', "empty");
}

/* --- X-Forwarded-Proto and the Referer ---------------------------------- */

static const struct {
    const char *xfp;  /* the header value (NULL: none) */
    const char *want; /* hsc_forwarded_proto (NULL: not trusted) */
} xfp_cases[] = {
    {"https", "https"},    {"HTTPS", "https"}, {"http", "http"},
    {"Http", "http"},      {NULL, NULL},       {"", NULL},
    {"https, http", NULL}, /* a list: the first item may be the client's */
    {"http, https", NULL}, {"https,", NULL},   {"https ", NULL},
    {" https", NULL},      {"httpsx", NULL},   {"ftp", NULL},
    {"ws", NULL},
};

static void forwarded_proto_takes_one_exact_value(void)
{
    size_t i;

    for (i = 0; i < sizeof(xfp_cases) / sizeof(xfp_cases[0]); i++) {
        const char *got = hsc_forwarded_proto(xfp_cases[i].xfp);

        printf("# case %u\n", (unsigned)i);
        if (xfp_cases[i].want == NULL) {
            CHECK(got == NULL, "refused");
        }
        else {
            CHECK_STR(got != NULL ? got : "(null)", xfp_cases[i].want,
                      "the lower-case scheme");
        }
    }
}

static const struct {
    const char *ref;  /* the Referer */
    const char *host; /* the Host header */
    const char *want; /* hsc_referer_path (NULL: none) */
} referer_cases[] = {
    {"https://www.example.test/app/page?x=1", "www.example.test",
     "/app/page?x=1"},
    {"http://www.example.test/", "www.example.test", "/"},
    {"HTTPS://WWW.Example.TEST/app", "www.example.test", "/app"},
    {"https://www.example.test:8443/app", "www.example.test:8443", "/app"},
    {"https://www.example.test:8443/app", "www.example.test", NULL},
    {"https://www.example.test/app", "www.example.test:8443", NULL},
    {"https://evil.test/app", "www.example.test", NULL},
    {"https://www.example.test.evil.test/app", "www.example.test", NULL},
    {"https://www.example.test", "www.example.test", NULL}, /* no path */
    {"ftp://www.example.test/app", "www.example.test", NULL},
    {"//www.example.test/app", "www.example.test", NULL},
    {"/app", "www.example.test", NULL},
    {"https://www.example.test//evil.test/", "www.example.test", NULL},
    {"https://www.example.test/a/../b", "www.example.test", NULL},
    {"https://www.example.test/logout", "www.example.test", NULL}, /* self */
    {"https://www.example.test/logout?x", "www.example.test", NULL},
    {"https://www.example.test/logoutx", "www.example.test", NULL},
    {"https://www.example.test/log", "www.example.test", "/log"},
    {"https://user@www.example.test/app", "www.example.test", NULL},
};

static void referer_path_is_a_safe_path_of_this_host(void)
{
    size_t i;

    for (i = 0; i < sizeof(referer_cases) / sizeof(referer_cases[0]); i++) {
        const char *got = hsc_referer_path(referer_cases[i].ref,
                                           referer_cases[i].host, "/logout");

        printf("# case %u: %s\n", (unsigned)i, referer_cases[i].ref);
        if (referer_cases[i].want == NULL) {
            CHECK(got == NULL, "refused");
        }
        else {
            CHECK_STR(got != NULL ? got : "(null)", referer_cases[i].want,
                      "the path");
        }
    }
    CHECK(hsc_referer_path(NULL, "h", "/x") == NULL, "no Referer");
    CHECK(hsc_referer_path("http://h/a", NULL, "/x") == NULL, "no Host");
    CHECK(hsc_referer_path("http://h/a", "h", NULL) == NULL, "no self");
}

static void header_names_are_the_same_in_every_spelling(void)
{
    CHECK(hsc_header_name_same("X-Remote-User", "X-Remote-User"), "itself");
    CHECK(hsc_header_name_same("x-remote-user", "X-Remote-User"), "any case");
    CHECK(hsc_header_name_same("X_Remote_User", "X-Remote-User"),
          "'_' for '-'");
    CHECK(hsc_header_name_same("X-REMOTE_user", "x_remote-USER"), "mixed");
    CHECK(!hsc_header_name_same("X-Remote-User2", "X-Remote-User"),
          "not a longer name");
    CHECK(!hsc_header_name_same("X-Remote-Use", "X-Remote-User"),
          "nor a shorter one");
    CHECK(!hsc_header_name_same("X.Remote.User", "X-Remote-User"),
          "'.' is not '-'");
    CHECK(!hsc_header_name_same("X-Remote User", "X-Remote-User"),
          "nor is a space");
    CHECK(!hsc_header_name_same(NULL, "X"), "NULL");
}

static void cookie_header_without_takes_out_one_name(void)
{
    static const struct {
        const char *in, *out;
        int removed;
    } cases[] = {
        {"hsc=abc", "", 1},
        {"a=1; hsc=abc; b=2", "a=1; b=2", 1},
        {"a=1;hsc=abc;b=2", "a=1; b=2", 1},
        {"hsc=1, hsc=2", "", 2}, /* two lines joined by httpd */
        {" a=1 ;  hsc = x ; b=2 ", "a=1; b=2", 1},
        {"xhsc=1; hscx=2; HSC=3", "xhsc=1; hscx=2; HSC=3", 0},
        {"a=1", "a=1", 0},
        {"flag; hsc=1", "flag", 1}, /* a pair without '=' stays */
        {"", "", 0},
    };
    char out[128];
    size_t i, n;
    int removed;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        n = hsc_cookie_header_without(cases[i].in, "hsc", out, sizeof(out),
                                      &removed);
        CHECK_STR(out, cases[i].out, cases[i].in);
        CHECK(n == strlen(cases[i].out) && removed == cases[i].removed,
              "its length and count");
    }
    CHECK_EQ(hsc_cookie_header_without("a=1; b=2", "hsc", out, 4, &removed),
             (size_t)-1, "too small: -1");
}

static void navigation_reads_fetch_metadata_then_accept(void)
{
    static const struct {
        int get;
        const char *mode, *dest, *accept;
        int want;
        const char *what;
    } cases[] = {
        {1, NULL, NULL, "text/html,*/*", 1, "no fetch metadata: Accept html"},
        {1, NULL, NULL, "TEXT/HTML", 1, "in any case"},
        {1, NULL, NULL, "application/json", 0, "Accept json: not"},
        {1, NULL, NULL, NULL, 0, "no Accept: not"},
        {0, NULL, NULL, "text/html", 0, "a POST never"},
        {1, "navigate", "document", "*/*", 1, "navigate to a document"},
        {1, "navigate", "iframe", NULL, 1, "or an iframe"},
        {1, "Navigate", NULL, NULL, 1, "navigate without a Dest"},
        {1, "navigate", "embed", "text/html", 0, "navigate into an embed: not"},
        {1, "cors", "empty", "text/html", 0, "a fetch() asking for html: not"},
        {1, "same-origin", "empty", "text/html", 0, "same-origin: not"},
        {1, "no-cors", "image", "text/html", 0, "an image: not"},
        {0, "navigate", "document", "text/html", 0, "a form POST: not"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK_EQ(hsc_is_navigation(cases[i].get, cases[i].mode, cases[i].dest,
                                   cases[i].accept),
                 cases[i].want, cases[i].what);
    }
}

int main(void)
{
    RUN(cookie_header_find_follows_the_table);
    RUN(cookie_header_find_refuses_null_inputs);
    RUN(form_parse_decodes_percent_and_plus);
    RUN(form_parse_accepts_lowercase_hex_and_decoded_names);
    RUN(form_parse_terminates_last_value_inside_the_buffer);
    RUN(form_parse_ignores_unknown_and_empty_pairs);
    RUN(form_parse_treats_a_bare_name_as_empty);
    RUN(form_parse_keeps_nul_bytes_counted);
    RUN(form_parse_refuses_bad_escapes_and_repeats);
    RUN(form_parse_enforces_decoded_limits);
    RUN(form_parse_accepts_an_empty_body);
    RUN(return_url_safe_follows_the_table);
    RUN(return_url_safe_refuses_null_and_prefix_lengths);
    RUN(same_origin_follows_the_table);
    RUN(same_origin_refuses_null_inputs);
    RUN(content_type_is_form_matches_the_media_type_only);
    RUN(query_escape_keeps_unreserved_and_slash_only);
    RUN(forwarded_proto_takes_one_exact_value);
    RUN(referer_path_is_a_safe_path_of_this_host);
    RUN(header_names_are_the_same_in_every_spelling);
    RUN(cookie_header_without_takes_out_one_name);
    RUN(navigation_reads_fetch_metadata_then_accept);
    return hsc_test_done();
}
