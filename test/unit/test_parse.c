/*
 * test_parse.c: durations, counts, sizes, keywords and directive values as
 * administrators write them (hsc_parse.h), shared by the module's
 * directives and hsc-admin.
 */
#include <stdio.h>
#include <string.h>

#include "hsc_test.h"
#include "hsc_parse.h"

static const struct {
    const char *in;  /* the argument as written */
    int allow_zero;  /* 1: HSCClockSkew-style, 0 allowed */
    hsc_status_t st; /* expected status */
    long long out;   /* expected seconds when HSC_OK */
} duration_cases[] = {
    {"30m", 0, HSC_OK, 1800},
    {"8h", 0, HSC_OK, 28800},
    {"60s", 0, HSC_OK, 60},
    {"1d", 0, HSC_OK, 86400},
    {"90", 0, HSC_OK, 90},
    {"0", 1, HSC_OK, 0},
    {"0s", 1, HSC_OK, 0},
    {"0", 0, HSC_EMALFORMED, 0},
    {"0m", 0, HSC_EMALFORMED, 0},
    {"3660d", 0, HSC_OK, 3660LL * 86400}, /* exactly ten years */
    {"3661d", 0, HSC_EMALFORMED, 0},      /* over ten years */
    {"316224001", 0, HSC_EMALFORMED, 0},
    {"99999999999999999999d", 0, HSC_EMALFORMED, 0}, /* no overflow */
    {"", 0, HSC_EMALFORMED, 0},
    {"m", 0, HSC_EMALFORMED, 0},
    {"10x", 0, HSC_EMALFORMED, 0},
    {"10mm", 0, HSC_EMALFORMED, 0},
    {"-5", 1, HSC_EMALFORMED, 0},
    {"+5", 1, HSC_EMALFORMED, 0},
    {" 5", 1, HSC_EMALFORMED, 0},
    {"5 ", 1, HSC_EMALFORMED, 0},
    {"5M", 1, HSC_EMALFORMED, 0}, /* units are lower case */
};

static void parse_duration_follows_the_table(void)
{
    size_t i;
    char what[96];

    for (i = 0; i < sizeof(duration_cases) / sizeof(duration_cases[0]); i++) {
        int64_t out = -1;
        hsc_status_t st = hsc_parse_duration(duration_cases[i].in,
                                             duration_cases[i].allow_zero,
                                             &out);
        snprintf(what, sizeof(what), "\"%s\" (zero %s)", duration_cases[i].in,
                 duration_cases[i].allow_zero ? "allowed" : "refused");
        CHECK_EQ(st, duration_cases[i].st, what);
        CHECK_EQ(out, duration_cases[i].out, "and its seconds (0 on error)");
    }
}

static void parse_duration_refuses_null(void)
{
    int64_t out = 7;

    CHECK_EQ(hsc_parse_duration(NULL, 1, &out), HSC_EMALFORMED, "NULL");
    CHECK_EQ(out, 0, "out is assigned");
}

static const struct {
    const char *in;  /* the argument */
    int max;         /* the caller's bound */
    hsc_status_t st; /* expected */
    int out;         /* expected value when HSC_OK */
} count_cases[] = {
    {"0", HSC_COUNT_MAX, HSC_OK, 0},
    {"20", HSC_COUNT_MAX, HSC_OK, 20},
    {"1000000", HSC_COUNT_MAX, HSC_OK, 1000000},
    {"1000001", HSC_COUNT_MAX, HSC_EMALFORMED, 0},
    {"1000001", 2000000, HSC_EMALFORMED, 0}, /* never over HSC_COUNT_MAX */
    {"5", 4, HSC_EMALFORMED, 0},
    {"4", 4, HSC_OK, 4},
    {"007", HSC_COUNT_MAX, HSC_OK, 7},
    {"", HSC_COUNT_MAX, HSC_EMALFORMED, 0},
    {"-1", HSC_COUNT_MAX, HSC_EMALFORMED, 0},
    {"2x", HSC_COUNT_MAX, HSC_EMALFORMED, 0},
    {"lots", HSC_COUNT_MAX, HSC_EMALFORMED, 0},
    {"99999999999999999999", HSC_COUNT_MAX, HSC_EMALFORMED, 0},
};

static void parse_count_follows_the_table(void)
{
    size_t i;
    char what[96];

    for (i = 0; i < sizeof(count_cases) / sizeof(count_cases[0]); i++) {
        int out = -1;
        hsc_status_t st = hsc_parse_count(count_cases[i].in, count_cases[i].max,
                                          &out);
        snprintf(what, sizeof(what), "\"%s\" (max %d)", count_cases[i].in,
                 count_cases[i].max);
        CHECK_EQ(st, count_cases[i].st, what);
        CHECK_EQ(out, count_cases[i].out, "and its value (0 on error)");
    }
    {
        int out = 7;
        CHECK_EQ(hsc_parse_count(NULL, 5, &out), HSC_EMALFORMED, "NULL");
        CHECK_EQ(out, 0, "out is assigned");
    }
}

/* --- milliseconds --------------------------------------------------------- */

static const struct {
    const char *in; /* the argument as written */
    long long lo;   /* the caller's range, in ms */
    long long hi;
    hsc_status_t st; /* expected status */
    long long out;   /* expected milliseconds when HSC_OK */
} millis_cases[] = {
    {"500ms", 1, 60000, HSC_OK, 500},
    {"2s", 10, 600000, HSC_OK, 2000},
    {"2", 10, 600000, HSC_OK, 2000}, /* a bare number is seconds */
    {"1s", 0, 60000, HSC_OK, 1000},
    {"0", 0, 60000, HSC_OK, 0},
    {"0ms", 0, 60000, HSC_OK, 0},
    {"0s", 0, 60000, HSC_OK, 0},
    {"0", 1, 60000, HSC_EMALFORMED, 0},
    {"1m", 0, 60000, HSC_OK, 60000}, /* new: what HSCIdleTimeout takes */
    {"10m", 10, 600000, HSC_OK, 600000},
    {"11m", 10, 600000, HSC_EMALFORMED, 0},
    {"1h", 0, HSC_MILLIS_MAX, HSC_OK, 3600000},
    {"1d", 0, HSC_MILLIS_MAX, HSC_OK, 86400000},
    {"60000ms", 1, 60000, HSC_OK, 60000},
    {"60001ms", 1, 60000, HSC_EMALFORMED, 0},
    {"61", 1, 60000, HSC_EMALFORMED, 0},
    {"9ms", 10, 600000, HSC_EMALFORMED, 0},
    {"007s", 1, 60000, HSC_OK, 7000},
    {"3660d", 0, HSC_MILLIS_MAX, HSC_OK, 3660LL * 86400000},
    {"3661d", 0, HSC_MILLIS_MAX, HSC_EMALFORMED, 0},
    {"99999999999999999999ms", 0, HSC_MILLIS_MAX, HSC_EMALFORMED, 0},
    {"9999999999999d", 0, HSC_MILLIS_MAX, HSC_EMALFORMED, 0},
    {"", 0, 60000, HSC_EMALFORMED, 0},
    {"ms", 0, 60000, HSC_EMALFORMED, 0},
    {"5MS", 0, 60000, HSC_EMALFORMED, 0},
    {"5 ms", 0, 60000, HSC_EMALFORMED, 0},
    {"5ms ", 0, 60000, HSC_EMALFORMED, 0},
    {"5mss", 0, 60000, HSC_EMALFORMED, 0},
    {"5sm", 0, 60000, HSC_EMALFORMED, 0},
    {"-5", 0, 60000, HSC_EMALFORMED, 0},
    {"+5", 0, 60000, HSC_EMALFORMED, 0},
    {"0x10", 0, 60000, HSC_EMALFORMED, 0},
    {"1.5s", 0, 60000, HSC_EMALFORMED, 0},
};

static void parse_millis_follows_the_table(void)
{
    size_t i;
    char what[96];

    for (i = 0; i < sizeof(millis_cases) / sizeof(millis_cases[0]); i++) {
        int64_t out = -1;
        hsc_status_t st = hsc_parse_millis(millis_cases[i].in,
                                           millis_cases[i].lo,
                                           millis_cases[i].hi, &out);

        snprintf(what, sizeof(what), "\"%s\" (%lld .. %lld)",
                 millis_cases[i].in, millis_cases[i].lo, millis_cases[i].hi);
        CHECK_EQ(st, millis_cases[i].st, what);
        CHECK_EQ(out, millis_cases[i].out, "and its milliseconds (0 on error)");
    }
    {
        int64_t out = 7;
        CHECK_EQ(hsc_parse_millis(NULL, 0, 10, &out), HSC_EMALFORMED, "NULL");
        CHECK_EQ(out, 0, "out is assigned");
    }
}

/*
 * What mod_hsc_userdb.c's parse_ms accepted: digits then "ms" (at most
 * 3600000), or "s" or nothing (seconds, at most 3600), within [lo, hi].
 * Every number of the three pool directives' ranges, in every form it
 * took, must read the same.
 */
static void parse_millis_keeps_what_the_pool_directives_took(void)
{
    static const struct {
        long long lo, hi;
    } ranges[] = {{1, 60000}, {10, 600000}, {0, 60000}};
    static const char *const forms[] = {"ms", "s", ""};
    long long v, bad = 0, tried = 0;
    size_t r, f;
    char in[32];

    for (r = 0; r < 3; r++) {
        for (f = 0; f < 3; f++) {
            for (v = 0; v <= 700000; v += (v < 5000 ? 1 : 7)) {
                long long want = f == 0 ? v : (v <= 3600 ? v * 1000 : -1);
                int ok = want >= ranges[r].lo && want <= ranges[r].hi;
                int64_t out;
                hsc_status_t st;

                snprintf(in, sizeof(in), "%lld%s", v, forms[f]);
                st = hsc_parse_millis(in, ranges[r].lo, ranges[r].hi, &out);
                bad += ok ? (st != HSC_OK || out != want) : (st == HSC_OK);
                tried++;
            }
        }
    }
    printf("# %lld inputs\n", tried);
    CHECK_EQ(bad, 0, "same answer as parse_ms on every one");
}

/* --- sizes ---------------------------------------------------------------- */

static const struct {
    const char *in; /* the argument */
    long long lo;   /* the caller's range */
    long long hi;
    hsc_status_t st; /* expected */
    long long out;
} size_cases[] = {
    {"131072", 0, 16777216, HSC_OK, 131072},
    {"0", 0, 16777216, HSC_OK, 0}, /* HSCUserCacheSize 0: off */
    {"16777216", 0, 16777216, HSC_OK, 16777216},
    {"16777217", 0, 16777216, HSC_EMALFORMED, 0},
    {"4", 1, 64, HSC_OK, 4},
    {"064", 1, 64, HSC_OK, 64},
    {"0", 1, 64, HSC_EMALFORMED, 0}, /* HSCUserDBPoolSize: 1 .. 64 */
    {"65", 1, 64, HSC_EMALFORMED, 0},
    {"99999999999999999999999", 0, 16777216, HSC_EMALFORMED, 0},
    {"", 0, 10, HSC_EMALFORMED, 0},
    {"1k", 0, 10000, HSC_EMALFORMED, 0},
    {"-1", 0, 10, HSC_EMALFORMED, 0},
    {"+1", 0, 10, HSC_EMALFORMED, 0},
    {" 1", 0, 10, HSC_EMALFORMED, 0},
    {"1 ", 0, 10, HSC_EMALFORMED, 0},
    {"7", 0, 5, HSC_EMALFORMED, 0},
    {"9223372036854775807", 0, INT64_MAX, HSC_OK, INT64_MAX},
    {"9223372036854775808", 0, INT64_MAX, HSC_EMALFORMED, 0},
};

static void parse_size_follows_the_table(void)
{
    size_t i;
    char what[96];

    for (i = 0; i < sizeof(size_cases) / sizeof(size_cases[0]); i++) {
        int64_t out = -1;
        hsc_status_t st = hsc_parse_size(size_cases[i].in, size_cases[i].lo,
                                         size_cases[i].hi, &out);

        snprintf(what, sizeof(what), "\"%s\" (%lld .. %lld)", size_cases[i].in,
                 size_cases[i].lo, size_cases[i].hi);
        CHECK_EQ(st, size_cases[i].st, what);
        CHECK_EQ(out, size_cases[i].out, "and its value (0 on error)");
    }
    {
        int64_t out = 7;
        CHECK_EQ(hsc_parse_size(NULL, 0, 10, &out), HSC_EMALFORMED, "NULL");
        CHECK_EQ(out, 0, "out is assigned");
    }
}

/* --- keywords ------------------------------------------------------------- */

static void keyword_parsers_take_their_words_in_any_case(void)
{
    hsc_cookie_samesite_t ss;
    hsc_unauth_mode_t ua;
    hsc_throttle_down_t td;

    CHECK_EQ(hsc_parse_samesite("Strict", &ss), HSC_OK, "Strict");
    CHECK_EQ(ss, HSC_SITE_STRICT, "is strict");
    CHECK_EQ(hsc_parse_samesite("lax", &ss), HSC_OK, "lax");
    CHECK_EQ(ss, HSC_SITE_LAX, "is lax");
    CHECK_EQ(hsc_parse_samesite("NONE", &ss), HSC_OK, "NONE");
    CHECK_EQ(ss, HSC_SITE_NONE, "is none");
    CHECK_EQ(hsc_parse_samesite("Laxx", &ss), HSC_EMALFORMED, "Laxx");
    CHECK_EQ(hsc_parse_samesite("", &ss), HSC_EMALFORMED, "empty");
    CHECK_EQ(hsc_parse_samesite(NULL, &ss), HSC_EMALFORMED, "NULL");
    CHECK_STR(hsc_samesite_name(HSC_SITE_LAX), "Lax", "Lax spelled");
    CHECK_STR(hsc_samesite_name(HSC_SITE_NONE), "None", "None spelled");
    CHECK_STR(hsc_samesite_name(HSC_SITE_STRICT), "Strict", "Strict spelled");

    CHECK_EQ(hsc_parse_unauth("AUTO", &ua), HSC_OK, "AUTO");
    CHECK_EQ(ua, HSC_UNAUTHENTICATED_AUTO, "is auto");
    CHECK_EQ(hsc_parse_unauth("Redirect", &ua), HSC_OK, "Redirect");
    CHECK_EQ(ua, HSC_UNAUTHENTICATED_REDIRECT, "is redirect");
    CHECK_EQ(hsc_parse_unauth("401", &ua), HSC_OK, "401");
    CHECK_EQ(ua, HSC_UNAUTHENTICATED_401, "is 401");
    CHECK_EQ(hsc_parse_unauth("403", &ua), HSC_EMALFORMED, "403");
    CHECK_EQ(hsc_parse_unauth("401 ", &ua), HSC_EMALFORMED, "401 and space");

    CHECK_EQ(hsc_parse_throttle_down("Allow", &td), HSC_OK, "Allow");
    CHECK_EQ(td, HSC_THROTTLE_DOWN_ALLOW, "is allow");
    CHECK_EQ(hsc_parse_throttle_down("REFUSE", &td), HSC_OK, "REFUSE");
    CHECK_EQ(td, HSC_THROTTLE_DOWN_REFUSE, "is refuse");
    CHECK_EQ(hsc_parse_throttle_down("deny", &td), HSC_EMALFORMED, "deny");

    CHECK_EQ(hsc_is_none("None"), 1, "None is none");
    CHECK_EQ(hsc_is_none("none "), 0, "with a space it is not");
    CHECK_EQ(hsc_is_none(NULL), 0, "NULL is not");
}

/* --- value validators ----------------------------------------------------- */

/* Which validators accept a value: a bit each. */
#define V_NAME 1   /* hsc_cookie_name_valid */
#define V_DOMAIN 2 /* hsc_cookie_domain_valid */
#define V_PATH 4   /* hsc_cookie_path_valid */
#define V_SCOPE 8  /* hsc_scope_valid */
#define V_SITE 16  /* hsc_site_name_valid */
#define V_URL 32   /* hsc_url_valid (and hsc_printable_nospace) */

static const struct {
    const char *in; /* the argument */
    int valid;      /* V_* of the validators that accept it */
} value_cases[] = {
    {"hsc", V_NAME | V_DOMAIN | V_SCOPE | V_SITE | V_URL},
    {"__Host-hsc", V_NAME | V_SCOPE | V_SITE | V_URL},
    {"a!#$%&'*+-.^_`|~z", V_NAME | V_SCOPE | V_SITE | V_URL},
    {"example.test", V_NAME | V_DOMAIN | V_SCOPE | V_SITE | V_URL},
    {"/", V_PATH | V_SCOPE | V_SITE | V_URL},
    {"/app/x?y=1", V_PATH | V_SCOPE | V_SITE | V_URL},
    {"/a;b", V_SCOPE | V_SITE | V_URL},
    {"/a b", V_SCOPE | V_SITE},
    {"My site", V_SCOPE | V_SITE},
    {"h=sc", V_SCOPE | V_SITE | V_URL},
    {"a\tb", 0},
    {"a\nb", 0},
    {"a\x7f", 0},
    {"caf\xc3\xa9", V_SITE},
    {"ex_ample.test", V_NAME | V_SCOPE | V_SITE | V_URL},
    {"", V_SCOPE | V_SITE},
    {"https://example.test/x", V_SCOPE | V_SITE | V_URL},
};

static void validators_follow_the_table(void)
{
    size_t i;

    for (i = 0; i < sizeof(value_cases) / sizeof(value_cases[0]); i++) {
        const char *s = value_cases[i].in;
        int got = (hsc_cookie_name_valid(s) ? V_NAME : 0)
                  | (hsc_cookie_domain_valid(s) ? V_DOMAIN : 0)
                  | (hsc_cookie_path_valid(s) ? V_PATH : 0)
                  | (hsc_scope_valid(s) ? V_SCOPE : 0)
                  | (hsc_site_name_valid(s) ? V_SITE : 0)
                  | (hsc_url_valid(s) ? V_URL : 0);

        printf("# case %u\n", (unsigned)i);
        CHECK_EQ(got, value_cases[i].valid, "the validators that accept it");
        CHECK_EQ(hsc_printable_nospace(s), *s == '\0' || (got & V_URL) != 0,
                 "printable without space");
    }
    CHECK_EQ(hsc_scope_valid(NULL), 1, "no scope is a valid scope");
    CHECK_EQ(hsc_cookie_name_valid(NULL) | hsc_cookie_domain_valid(NULL)
                 | hsc_cookie_path_valid(NULL) | hsc_site_name_valid(NULL)
                 | hsc_url_valid(NULL) | hsc_printable_nospace(NULL),
             0, "NULL is refused by the others");
}

int main(void)
{
    RUN(parse_duration_follows_the_table);
    RUN(parse_duration_refuses_null);
    RUN(parse_count_follows_the_table);
    RUN(parse_millis_follows_the_table);
    RUN(parse_millis_keeps_what_the_pool_directives_took);
    RUN(parse_size_follows_the_table);
    RUN(keyword_parsers_take_their_words_in_any_case);
    RUN(validators_follow_the_table);
    return hsc_test_done();
}
