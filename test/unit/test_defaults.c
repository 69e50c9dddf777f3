/*
 * test_defaults.c: every directive's default is written once, in
 * hsc_core/hsc_defaults.h, and conf/hsc.conf and docs/directives.md show
 * that value: each _TEXT spelling is on the directive's commented line in
 * conf/hsc.conf and in the "| Default |" row of its docs section, and
 * parses (as the directive would) to the value the module uses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsc_test.h"
#include "hsc_defaults.h"
#include "hsc_parse.h"
#include "hsc_kdf.h"

#ifndef HSC_SRCDIR
#define HSC_SRCDIR "."
#endif

/* How the module parses a directive; the keyword kinds compare with the
 * core's enums (hsc_parse.h), in the order of the glue's own. */
enum kind {
    TEXT,
    FLAG,
    DURATION,
    COUNT,
    KDF,
    MILLIS,
    SIZE,
    SAMESITE,
    UNAUTH,
    THROTTLE_DOWN,
    NONE,
    COOKIE_NAME,
    COOKIE_PATH,
    URL
};

static const struct {
    const char *directive; /* as in the command table */
    const char *text;      /* the _TEXT default, as an admin writes it */
    enum kind kind;        /* how the module parses it */
    long long value;       /* the value create() uses (FLAG, DURATION,
                            * COUNT) */
} defaults[] = {
    {"HSCUserDBCache", HSC_DEFAULT_USERDB_CACHE_TEXT, FLAG,
     HSC_DEFAULT_USERDB_CACHE},
    {"HSCUserCacheSize", HSC_DEFAULT_USER_CACHE_SIZE_TEXT, SIZE,
     HSC_DEFAULT_USER_CACHE_SIZE},
    {"HSCUserDBPoolSize", HSC_DEFAULT_USERDB_POOL_SIZE_TEXT, SIZE,
     HSC_DEFAULT_USERDB_POOL_SIZE},
    {"HSCUserDBPoolWait", HSC_DEFAULT_USERDB_POOL_WAIT_TEXT, MILLIS,
     HSC_DEFAULT_USERDB_POOL_WAIT_MS},
    {"HSCUserDBTimeout", HSC_DEFAULT_USERDB_TIMEOUT_TEXT, MILLIS,
     HSC_DEFAULT_USERDB_TIMEOUT_MS},
    {"HSCUserDBMaxStale", HSC_DEFAULT_USERDB_MAX_STALE_TEXT, MILLIS,
     HSC_DEFAULT_USERDB_MAX_STALE_MS},
    {"HSCCookieName", HSC_DEFAULT_COOKIE_NAME, COOKIE_NAME, 1},
    {"HSCCookiePath", HSC_DEFAULT_COOKIE_PATH, COOKIE_PATH, 1},
    {"HSCCookieSecure", HSC_DEFAULT_COOKIE_SECURE_TEXT, FLAG,
     HSC_DEFAULT_COOKIE_SECURE},
    /* hsc_create_dir_conf hard-codes HSC_SITE_LAX */
    {"HSCCookieSameSite", HSC_DEFAULT_SAMESITE_TEXT, SAMESITE, HSC_SITE_LAX},
    {"HSCIdleTimeout", HSC_DEFAULT_IDLE_TIMEOUT_TEXT, DURATION,
     HSC_DEFAULT_IDLE_TIMEOUT},
    {"HSCMaxAge", HSC_DEFAULT_MAX_AGE_TEXT, DURATION, HSC_DEFAULT_MAX_AGE},
    {"HSCClockSkew", HSC_DEFAULT_CLOCK_SKEW_TEXT, DURATION,
     HSC_DEFAULT_CLOCK_SKEW},
    {"HSCTOTPSkew", HSC_DEFAULT_TOTP_SKEW_TEXT, COUNT, HSC_DEFAULT_TOTP_SKEW},
    {"HSCRefresh", HSC_DEFAULT_REFRESH_TEXT, FLAG, HSC_DEFAULT_REFRESH},
    {"HSCHealthDetails", HSC_DEFAULT_HEALTH_DETAILS_TEXT, FLAG,
     HSC_DEFAULT_HEALTH_DETAILS},
    {"HSCBindAddress", HSC_DEFAULT_BIND_ADDRESS_TEXT, FLAG,
     HSC_DEFAULT_BIND_ADDRESS},
    /* ... and HSC_UNAUTHENTICATED_AUTO */
    {"HSCUnauthenticated", HSC_DEFAULT_UNAUTHENTICATED_TEXT, UNAUTH,
     HSC_UNAUTHENTICATED_AUTO},
    {"HSCLoginSuccessURL", HSC_DEFAULT_LOGIN_SUCCESS_URL, URL, 1},
    {"HSCLoginStylesheet", HSC_DEFAULT_LOGIN_STYLESHEET_TEXT, NONE, 1},
    {"HSCLoginFailureURL", HSC_DEFAULT_LOGIN_FAILURE_URL_TEXT, NONE, 1},
    {"HSCThrottleCache", HSC_DEFAULT_THROTTLE_CACHE_TEXT, TEXT, 0},
    /* HSC_DEFAULT_THROTTLE_UNAVAILABLE_REFUSE is the refuse flag */
    {"HSCThrottleUnavailable", HSC_DEFAULT_THROTTLE_UNAVAILABLE_TEXT,
     THROTTLE_DOWN, HSC_DEFAULT_THROTTLE_UNAVAILABLE_REFUSE},
    {"HSCThrottleAddress", HSC_DEFAULT_THROTTLE_ADDRESS_TEXT, COUNT,
     HSC_DEFAULT_THROTTLE_ADDRESS},
    {"HSCThrottleUser", HSC_DEFAULT_THROTTLE_USER_TEXT, COUNT,
     HSC_DEFAULT_THROTTLE_USER},
    {"HSCThrottleWindow", HSC_DEFAULT_THROTTLE_WINDOW_TEXT, DURATION,
     HSC_DEFAULT_THROTTLE_WINDOW},
    {"HSCMaxLoginKDF", HSC_DEFAULT_MAX_LOGIN_KDF_TEXT, COUNT,
     HSC_DEFAULT_MAX_LOGIN_KDF},
    /* value 1: it parses, formats back the same and is within the
     * ceilings (what HSCDummyKDF accepts); NONE, COOKIE_NAME, COOKIE_PATH
     * and URL: 1, the keyword "none" or a valid value */
    {"HSCDummyKDF", HSC_DEFAULT_DUMMY_KDF_TEXT, KDF, 1},
};

static char *slurp(const char *rel)
{
    char path[1024];
    FILE *f;
    char *buf;
    long n;

    snprintf(path, sizeof(path), "%s/%s", HSC_SRCDIR, rel);
    if ((f = fopen(path, "rb")) == NULL) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf != NULL) {
        buf[n] = '\0';
    }
    fclose(f);
    return buf;
}

/* What the directive of that kind makes of text, or -1; -2: no parser
 * (TEXT). The kinds of defaults_parse_to_the_values_the_module_uses that
 * need no local variable. */
static long long parse_other(enum kind kind, const char *text)
{
    int64_t v;
    hsc_cookie_samesite_t ss;
    hsc_unauth_mode_t ua;
    hsc_throttle_down_t td;

    switch (kind) {
    case MILLIS:
        return hsc_parse_millis(text, 0, HSC_MILLIS_MAX, &v) == HSC_OK ? v : -1;
    case SIZE: return hsc_parse_size(text, 0, INT64_MAX, &v) == HSC_OK ? v : -1;
    case SAMESITE:
        return hsc_parse_samesite(text, &ss) == HSC_OK ? (long long)ss : -1;
    case UNAUTH:
        return hsc_parse_unauth(text, &ua) == HSC_OK ? (long long)ua : -1;
    case THROTTLE_DOWN:
        return hsc_parse_throttle_down(text, &td) == HSC_OK
                   ? (long long)(td == HSC_THROTTLE_DOWN_REFUSE)
                   : -1;
    case NONE: return hsc_is_none(text);
    case COOKIE_NAME: return hsc_cookie_name_valid(text);
    case COOKIE_PATH: return hsc_cookie_path_valid(text);
    case URL: return hsc_url_valid(text);
    default: return -2;
    }
}

static void defaults_parse_to_the_values_the_module_uses(void)
{
    size_t i;

    for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
        long long got = -1;

        if (defaults[i].kind == FLAG) {
            got = !strcmp(defaults[i].text, "On")    ? 1
                  : !strcmp(defaults[i].text, "Off") ? 0
                                                     : -1;
        }
        else if (defaults[i].kind == DURATION) {
            int64_t v;
            got = hsc_parse_duration(defaults[i].text, 0, &v) == HSC_OK
                      ? (long long)v
                      : -1;
        }
        else if (defaults[i].kind == COUNT) {
            int v;
            got = hsc_parse_count(defaults[i].text, HSC_COUNT_MAX, &v) == HSC_OK
                      ? v
                      : -1;
        }
        else if (defaults[i].kind == KDF) {
            hsc_kdf_t k;
            char spec[HSC_KDF_SPEC_MAX];
            got = 0;
            if (hsc_kdf_parse(defaults[i].text, &k) == HSC_OK) {
                hsc_kdf_format(&k, spec, sizeof(spec));
                got = !strcmp(spec, defaults[i].text)
                      && hsc_kdf_within_ceiling(&k);
            }
        }
        else {
            got = parse_other(defaults[i].kind, defaults[i].text);
        }
        if (got == -2) {
            continue;
        }
        CHECK_EQ(got, defaults[i].value, defaults[i].directive);
    }
}

/* Each pool default lies in the range its setter takes (hsc_defaults.h). */
static void pool_defaults_lie_in_their_ranges(void)
{
    static const struct {
        const char *directive, *text; /* the default as written */
        long long lo, hi;             /* the setter's range */
        int millis;                   /* 1: hsc_parse_millis, 0: size */
    } r[] = {
        {"HSCUserDBPoolSize", HSC_DEFAULT_USERDB_POOL_SIZE_TEXT,
         HSC_USERDB_POOL_SIZE_MIN, HSC_USERDB_POOL_SIZE_MAX, 0},
        {"HSCUserDBPoolWait", HSC_DEFAULT_USERDB_POOL_WAIT_TEXT,
         HSC_USERDB_POOL_WAIT_MIN_MS, HSC_USERDB_POOL_WAIT_MAX_MS, 1},
        {"HSCUserDBTimeout", HSC_DEFAULT_USERDB_TIMEOUT_TEXT,
         HSC_USERDB_TIMEOUT_MIN_MS, HSC_USERDB_TIMEOUT_MAX_MS, 1},
        {"HSCUserDBMaxStale", HSC_DEFAULT_USERDB_MAX_STALE_TEXT,
         HSC_USERDB_MAX_STALE_MIN_MS, HSC_USERDB_MAX_STALE_MAX_MS, 1},
    };
    size_t i;

    for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
        int64_t v;
        hsc_status_t st = r[i].millis
                              ? hsc_parse_millis(r[i].text, r[i].lo, r[i].hi,
                                                 &v)
                              : hsc_parse_size(r[i].text, r[i].lo, r[i].hi, &v);

        CHECK_EQ(st, HSC_OK, r[i].directive);
    }
}

static void conf_hsc_conf_shows_each_default(void)
{
    char *conf = slurp("conf/hsc.conf");
    size_t i;

    CHECK(conf != NULL, "conf/hsc.conf is readable");
    if (conf == NULL) {
        return;
    }
    for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
        char line[256];

        /* "    #HSCIdleTimeout 30m" followed by the end of the line */
        snprintf(line, sizeof(line), "#%s %s\n", defaults[i].directive,
                 defaults[i].text);
        CHECK(strstr(conf, line) != NULL, defaults[i].directive);
    }
    free(conf);
}

static void docs_show_each_default(void)
{
    char *doc = slurp("docs/directives.md");
    size_t i;

    CHECK(doc != NULL, "docs/directives.md is readable");
    if (doc == NULL) {
        return;
    }
    for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
        char head[128], row[256];
        const char *sec, *next, *hit;

        snprintf(head, sizeof(head), "\n## %s\n", defaults[i].directive);
        snprintf(row, sizeof(row), "| Default | `%s`", defaults[i].text);
        sec = strstr(doc, head);
        next = sec ? strstr(sec + 1, "\n## ") : NULL;
        hit = sec ? strstr(sec, row) : NULL;
        CHECK(sec != NULL && hit != NULL && (next == NULL || hit < next),
              defaults[i].directive);
    }
    free(doc);
}

int main(void)
{
    RUN(defaults_parse_to_the_values_the_module_uses);
    RUN(pool_defaults_lie_in_their_ranges);
    RUN(conf_hsc_conf_shows_each_default);
    RUN(docs_show_each_default);
    return hsc_test_done();
}
