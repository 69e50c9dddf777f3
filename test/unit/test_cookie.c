/*
 * test_cookie.c: format 1 cookies (hsc_cookie.h): every refusal reason of
 * the six verification steps, in order, against a real SQLite user store;
 * forgery with the MAC key plus the whole database; splicing; rotation;
 * refresh and its bounds; format 2's seals (64 hashes) and the seal
 * switch.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>
#include <openssl/evp.h>

#include "hsc_test.h"
#include "hsc_cookie.h"
#include "hsc_b64.h"
#include "hsc_kdf.h"
#include "hsc_password.h"
#include "hsc_store_sqlite.h"

#include <sqlite3.h>

static apr_pool_t *pool;

/* Secrets (32 bytes each, base64url) for the keys "new" and "old". */
#define S_NEW "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8"
#define S_OLD "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
#define S_OTHER "QEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaW1xdXl8"

#define T0 1800000000 /* a login time */
#define IDLE 3600     /* idle timeout */
#define MAX_AGE 86400 /* absolute lifetime */
#define SKEW 60       /* allowed clock skew */
#define SCOPE "app"
#define ADDR "127.0.0.1"

static hsc_keyring_t *ring;       /* new (signs), old */
static hsc_keyring_t *ring_new;   /* new only: old was removed */
static hsc_keyring_t *ring_other; /* a key "new" with another secret */
static const hsc_key_t *key_new, *key_old;
static unsigned char xn0[HSC_XN_LEN]; /* an x_n for tests without a store */

static hsc_keyring_t *load_ring(const char *text)
{
    hsc_keyring_t *kr = NULL;
    const char *msg = NULL;

    if (hsc_keyring_parse(pool, "test", text, strlen(text), &kr, &msg)
        != HSC_OK) {
        printf("# key ring: %s\n", msg ? msg : "?");
        exit(1);
    }
    return kr;
}

static hsc_verify_params_t params(int64_t now)
{
    hsc_verify_params_t vp;

    memset(&vp, 0, sizeof(vp)); /* format 2's fields: off */
    vp.keys = ring;
    vp.scope = SCOPE;
    vp.address = ADDR;
    vp.now = now;
    vp.skew = SKEW;
    vp.max_age = MAX_AGE;
    return vp;
}

/* Mint into a pool string; exits on failure (a test setup fault). */
static const char *mint(const hsc_key_t *k, const char *user, int64_t iat,
                        int64_t exp, const unsigned char *xn)
{
    char out[HSC_COOKIE_VALUE_MAX];
    size_t n = 0;

    if (hsc_cookie_mint(k, user, strlen(user), iat, exp, xn, SCOPE, ADDR, out,
                        sizeof(out), &n)
        != HSC_OK) {
        printf("# mint failed for a test cookie\n");
        exit(1);
    }
    return apr_pstrndup(pool, out, n);
}

/*
 * A value with a correct MAC (key "new", SCOPE, ADDR) over six arbitrary
 * field texts: shows that a refusal comes from the syntax check, not from
 * the MAC.
 */
static const char *signed_fields(const char *f[6])
{
    unsigned char mac[HSC_MAC_LEN];
    char mac64[HSC_B64URL_LEN(HSC_MAC_LEN) + 1];
    const char *body = apr_pstrcat(pool, f[0], ".", f[1], ".", f[2], ".", f[3],
                                   ".", f[4], ".", f[5], NULL);

    hsc_key_mac3(key_new, body, strlen(body), SCOPE, strlen(SCOPE), ADDR,
                 strlen(ADDR), mac);
    hsc_b64url_encode(mac, sizeof(mac), mac64);
    return apr_pstrcat(pool, body, ".", mac64, NULL);
}

static const char *b64(const void *p, size_t len)
{
    char *out = apr_palloc(pool, HSC_B64URL_LEN(len) + 1);

    hsc_b64url_encode(p, len, out);
    return out;
}

static hsc_status_t check(const char *value, int64_t now)
{
    hsc_verify_params_t vp = params(now);
    hsc_cookie_t c;

    return hsc_cookie_check(&vp, value, strlen(value), &c);
}

/* --- steps 1-4 --------------------------------------------------------- */

static void cookie_round_trips_through_mint_and_check(void)
{
    const char *v = mint(key_new, "alice", T0, T0 + IDLE, xn0);
    hsc_verify_params_t vp = params(T0 + 10);
    hsc_cookie_t c;

    CHECK_EQ(hsc_cookie_check(&vp, v, strlen(v), &c), HSC_OK, "accepted");
    CHECK_STR(c.kid, "new", "kid");
    CHECK(c.user_len == 5 && strcmp(c.user, "alice") == 0, "user");
    CHECK(c.iat == T0 && c.exp == T0 + IDLE, "times");
    CHECK(memcmp(c.auth, xn0, HSC_XN_LEN) == 0, "auth is x_n");
    CHECK_EQ(c.signed_len, (size_t)(strrchr(v, '.') - v), "signed_len");
    CHECK(strncmp(v, "1.new.YWxpY2U.1800000000.1800003600.", 36) == 0,
          "the layout of format 1");
}

static void cookie_rejects_each_tampered_field(void)
{
    static const struct {
        int field;        /* 0..6 */
        const char *with; /* the replacement text for that field */
        hsc_status_t st;  /* expected refusal */
    } cases[] = {
        {0, "2", HSC_EMALFORMED},       /* version */
        {1, "nex", HSC_ENOKEY},         /* kid: no such key */
        {1, "old", HSC_EBADMAC},        /* kid: another key of the ring */
        {2, "YWxpY2E", HSC_EBADMAC},    /* user: "alica" */
        {3, "1800000001", HSC_EBADMAC}, /* iat */
        {4, "1800003601", HSC_EBADMAC}, /* exp */
        {5, NULL, HSC_EBADMAC},         /* auth: first character changed */
        {6, NULL, HSC_EBADMAC},         /* mac: first character changed */
    };
    const char *v = mint(key_new, "alice", T0, T0 + IDLE, xn0);
    size_t i;
    char what[80];

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *copy = apr_pstrdup(pool, v);
        char *f[7], *last;
        const char *joined;
        int j;

        f[0] = apr_strtok(copy, ".", &last);
        for (j = 1; j < 7; j++) {
            f[j] = apr_strtok(NULL, ".", &last);
        }
        if (cases[i].with != NULL) {
            f[cases[i].field] = apr_pstrdup(pool, cases[i].with);
        }
        else {
            f[cases[i].field][0] = f[cases[i].field][0] == 'A' ? 'B' : 'A';
        }
        joined = apr_pstrcat(pool, f[0], ".", f[1], ".", f[2], ".", f[3], ".",
                             f[4], ".", f[5], ".", f[6], NULL);
        snprintf(what, sizeof(what), "field %d -> %s", cases[i].field,
                 hsc_strerror(cases[i].st));
        CHECK_EQ(check(joined, T0 + 10), cases[i].st, what);
    }
}

static void cookie_rejects_any_single_character_change(void)
{
    static const char subst[] = {'A', 'z', '0', '9', '-',
                                 '_', '.', '=', ' ', '+'};
    const char *v = mint(key_new, "alice", T0, T0 + IDLE, xn0);
    size_t len = strlen(v), i, j, tried = 0, accepted = 0;
    char *copy = apr_pstrdup(pool, v);

    for (i = 0; i < len; i++) {
        for (j = 0; j < sizeof(subst); j++) {
            if (v[i] == subst[j]) {
                continue;
            }
            copy[i] = subst[j];
            tried++;
            if (check(copy, T0 + 10) == HSC_OK) {
                accepted++;
            }
            copy[i] = v[i];
        }
    }
    CHECK(tried > 1000, "every position, ten substitutes");
    CHECK_EQ(accepted, 0, "no changed value is accepted");
}

static void cookie_rejects_spliced_user_and_iat(void)
{
    /* CVE-2008-1930: with MAC(user . expiry), "admin0" + "1800000000"
     * equals "admin" + "01800000000". Here the fields are separate, the
     * user is base64url and numbers are canonical, so a spliced value is
     * refused whichever way the bytes move. */
    const char *v = mint(key_new, "admin0", T0, T0 + IDLE, xn0);
    char *copy = apr_pstrdup(pool, v), *last;
    char *f[7];
    int j;
    const char *spliced;

    f[0] = apr_strtok(copy, ".", &last);
    for (j = 1; j < 7; j++) {
        f[j] = apr_strtok(NULL, ".", &last);
    }
    CHECK_STR(f[2], b64("admin0", 6), "user field is base64url");
    /* "admin" + "0" + iat. */
    spliced = apr_pstrcat(pool, f[0], ".", f[1], ".", b64("admin", 5), ".0",
                          f[3], ".", f[4], ".", f[5], ".", f[6], NULL);
    CHECK_EQ(check(spliced, T0 + 10), HSC_EMALFORMED,
             "admin / 0+iat: leading zero refused");
    /* Even with a valid MAC over the spliced text it stays malformed. */
    {
        const char *sf[6] = {"1",
                             "new",
                             b64("admin", 5),
                             apr_pstrcat(pool, "0", f[3], NULL),
                             f[4],
                             f[5]};

        CHECK_EQ(check(signed_fields(sf), T0 + 10), HSC_EMALFORMED,
                 "re-MACed splice: still malformed");
    }
    /* The other direction: "admin" + "1" + "800000000". */
    v = mint(key_new, "admin", T0, T0 + IDLE, xn0);
    copy = apr_pstrdup(pool, v);
    f[0] = apr_strtok(copy, ".", &last);
    for (j = 1; j < 7; j++) {
        f[j] = apr_strtok(NULL, ".", &last);
    }
    spliced = apr_pstrcat(pool, f[0], ".", f[1], ".", b64("admin1", 6), ".",
                          f[3] + 1, ".", f[4], ".", f[5], ".", f[6], NULL);
    CHECK_EQ(check(spliced, T0 + 10), HSC_EBADMAC,
             "admin1 / iat without its first digit: bad MAC");
    /* Moving a base64url character across the separator. */
    spliced = apr_pstrcat(pool, f[0], ".", f[1], ".",
                          apr_pstrndup(pool, f[2], strlen(f[2]) - 1), ".",
                          f[2] + strlen(f[2]) - 1, f[3], ".", f[4], ".", f[5],
                          ".", f[6], NULL);
    CHECK(check(spliced, T0 + 10) != HSC_OK, "shifted separator refused");
}

/* Six fields (before the MAC) with a valid MAC, refused by syntax. */
static const struct {
    const char *f[6]; /* version, kid, user, iat, exp, auth */
    const char *why;  /* what the case shows */
} syntax_cases[] = {
    {{"1", "new", "YWxpY2U", "01800000000", "1800003600", NULL},
     "iat with a leading zero"},
    {{"1", "new", "YWxpY2U", "+1800000000", "1800003600", NULL},
     "iat with '+'"},
    {{"1", "new", "YWxpY2U", " 1800000000", "1800003600", NULL},
     "iat with a space"},
    {{"1", "new", "YWxpY2U", "1800000000", "01800003600", NULL},
     "exp with a leading zero"},
    {{"1", "new", "YWxpY2U", "1800000000", "+1800003600", NULL},
     "exp with '+'"},
    {{"1", "new", "YWxpY2U", "1800000000", "1800003600 ", NULL},
     "exp with a space"},
    {{"1", "new", "YWxpY2U", "1800000000", "1800000000", NULL}, "exp == iat"},
    {{"1", "new", "YWxpY2U", "1800000000", "1799999999", NULL}, "exp < iat"},
    {{"1", "new", "YWxpY2U", "", "1800003600", NULL}, "empty iat"},
    {{"1", "new", "YWxpY2U", "1800000000", "99999999999999999999", NULL},
     "exp overflows int64"},
    {{"1", "new", "YWxpY2U=", "1800000000", "1800003600", NULL},
     "user with padding"},
    {{"1", "new", "YWxpY2V", "1800000000", "1800003600", NULL},
     "user with non-zero unused bits"},
    {{"1", "new", "YWxp+2U", "1800000000", "1800003600", NULL},
     "user with '+'"},
    {{"1", "new", "YWxp/2U", "1800000000", "1800003600", NULL},
     "user with '/'"},
    {{"1", "new", "", "1800000000", "1800003600", NULL}, "empty user"},
    {{"1", "new", "YWxpY2UK", "1800000000", "1800003600", NULL},
     "user with a line feed"},
    {{"1", "new", "YWwAaWNl", "1800000000", "1800003600", NULL},
     "user with a NUL"},
    {{"1", "new", "wK8", "1800000000", "1800003600", NULL},
     "user with an overlong UTF-8 '/'"},
    {{"1", "new", "7aCA", "1800000000", "1800003600", NULL},
     "user with a surrogate"},
    {{"1", "new", "wpE", "1800000000", "1800003600", NULL},
     "user with a C1 control"},
    {{"1", "", "YWxpY2U", "1800000000", "1800003600", NULL}, "empty kid"},
    {{"1", "ne w", "YWxpY2U", "1800000000", "1800003600", NULL},
     "kid with a space"},
    {{"1", "new!", "YWxpY2U", "1800000000", "1800003600", NULL},
     "kid with '!'"},
    {{"1", "abcdefghijklmnopqrstuvwxyz0123456", "YWxpY2U", "1800000000",
      "1800003600", NULL},
     "kid of 33 characters"},
    {{"01", "new", "YWxpY2U", "1800000000", "1800003600", NULL}, "version 01"},
    {{"", "new", "YWxpY2U", "1800000000", "1800003600", NULL}, "empty version"},
    {{"1", "new", "YWxpY2U", "1800000000", "1800003600", "AAAA"},
     "auth of 3 bytes"},
    {{"1", "new", "YWxpY2U", "1800000000", "1800003600",
      "16303K-HVvQRSEtSJNIE6iWWZlOEW9iqYKiqIGCXcaw="},
     "auth with padding"},
    {{"1", "new", "YWxpY2U", "1800000000", "1800003600",
      "16303K-HVvQRSEtSJNIE6iWWZlOEW9iqYKiqIGCXcax"},
     "auth with non-zero unused bits"},
    {{"1", "new", "YWxpY2U", "1800000000", "1800003600",
      "16303K+HVvQRSEtSJNIE6iWWZlOEW9iqYKiqIGCXcaw"},
     "auth with '+'"},
    {{"1", "new", "YWxpY2U", "1800000000", "1800003600",
      "16303K-HVvQRSEtSJNIE6iWWZlOEW9iqYKiqIGCXcawAAAA"},
     "auth of 35 bytes"},
};

static void cookie_rejects_non_canonical_fields_even_when_maced(void)
{
    size_t i;
    const char *good_auth = b64(xn0, HSC_XN_LEN);

    for (i = 0; i < sizeof(syntax_cases) / sizeof(syntax_cases[0]); i++) {
        const char *f[6];

        memcpy(f, syntax_cases[i].f, sizeof(f));
        if (f[5] == NULL) {
            f[5] = good_auth;
        }
        CHECK_EQ(check(signed_fields(f), T0 + 10), HSC_EMALFORMED,
                 syntax_cases[i].why);
    }
}

static void cookie_signed_fields_helper_produces_valid_cookies(void)
{
    /* The control for the table above: the same helper with canonical
     * fields yields an accepted cookie, so the refusals are the syntax. */
    const char *f[6] = {"1",          "new",        "YWxpY2U",
                        "1800000000", "1800003600", b64(xn0, HSC_XN_LEN)};

    CHECK_EQ(check(signed_fields(f), T0 + 10), HSC_OK, "canonical accepted");
}

static void cookie_rejects_non_canonical_mac(void)
{
    const char *v = mint(key_new, "alice", T0, T0 + IDLE, xn0);
    char *copy = apr_pstrdup(pool, v);
    size_t len = strlen(copy);
    const char *enc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                      "0123456789-_";
    int idx = (int)(strchr(enc, copy[len - 1]) - enc);

    /* The last of 43 characters carries 2 unused bits: set one. */
    copy[len - 1] = enc[idx | 1];
    CHECK_EQ(check(copy, T0 + 10), HSC_EMALFORMED, "unused bits set");
    CHECK_EQ(check(apr_pstrcat(pool, v, "=", NULL), T0 + 10), HSC_EMALFORMED,
             "padding");
    copy = apr_pstrdup(pool, v);
    copy[len - 2] = '+';
    CHECK_EQ(check(copy, T0 + 10), HSC_EMALFORMED, "'+' in the mac");
}

static void cookie_rejects_wrong_field_counts(void)
{
    const char *v = mint(key_new, "alice", T0, T0 + IDLE, xn0);
    const char *dot = strchr(v, '.');

    CHECK_EQ(check(dot + 1, T0 + 10), HSC_EMALFORMED,
             "six fields (no version)");
    CHECK_EQ(check(apr_pstrndup(pool, v, (apr_size_t)(strrchr(v, '.') - v)),
                   T0 + 10),
             HSC_EMALFORMED, "six fields (no mac)");
    CHECK_EQ(check(apr_pstrcat(pool, v, ".x", NULL), T0 + 10), HSC_EMALFORMED,
             "eight fields");
    CHECK_EQ(check(apr_pstrcat(pool, v, ".", NULL), T0 + 10), HSC_EMALFORMED,
             "trailing dot");
    CHECK_EQ(check(apr_pstrcat(pool, "1.", v, NULL), T0 + 10), HSC_EMALFORMED,
             "eight fields in front");
    CHECK_EQ(check("", T0 + 10), HSC_EMALFORMED, "empty value");
    CHECK_EQ(check("......", T0 + 10), HSC_EMALFORMED, "seven empty fields");
}

static void cookie_refuses_values_over_4096_bytes_first(void)
{
    char *big = apr_palloc(pool, 5000);
    hsc_cookie_t c;
    hsc_verify_params_t vp = params(T0);

    memset(big, '.', 5000); /* would be malformed if it were looked at */
    CHECK_EQ(hsc_cookie_parse(big, 4097, &c), HSC_ETOOLONG, "4097 bytes");
    CHECK_EQ(hsc_cookie_check(&vp, big, 5000, &c), HSC_ETOOLONG,
             "5000 bytes, through check");
    CHECK_EQ(hsc_cookie_parse(big, 4096, &c), HSC_EMALFORMED,
             "4096 bytes are looked at");
}

static void cookie_parse_zeroes_out_on_failure(void)
{
    const char *v = mint(key_new, "alice", T0, T0 + IDLE, xn0);
    hsc_cookie_t c, zero;
    char *bad = apr_pstrdup(pool, v);

    memset(&zero, 0, sizeof(zero));
    bad[strlen(bad) - 1] = '=';
    memset(&c, 0xAA, sizeof(c));
    CHECK(hsc_cookie_parse(bad, strlen(bad), &c) == HSC_EMALFORMED
              && memcmp(&c, &zero, sizeof(c)) == 0,
          "late syntax fault: out all zero (no x_n left)");
    {
        hsc_verify_params_t vp = params(T0 + IDLE + 1);

        memset(&c, 0xAA, sizeof(c));
        CHECK(hsc_cookie_check(&vp, v, strlen(v), &c) == HSC_EEXPIRED
                  && memcmp(&c, &zero, sizeof(c)) == 0,
              "refused by check (expired): out all zero");
    }
}

static void cookie_rejects_unknown_kid(void)
{
    hsc_keyring_t *other = load_ring("stranger " S_NEW "\n");
    const char *v = mint(hsc_keyring_signer(other), "alice", T0, T0 + IDLE,
                         xn0);

    CHECK_EQ(check(v, T0 + 10), HSC_ENOKEY, "kid not in the ring");
}

static void cookie_rejects_a_mac_from_another_secret_with_same_kid(void)
{
    const char *v = mint(hsc_keyring_signer(ring_other), "alice", T0, T0 + IDLE,
                         xn0);

    CHECK_EQ(check(v, T0 + 10), HSC_EBADMAC, "same kid, other secret");
}

/* Time checks: now against iat/exp, skew and max age. */
static const struct {
    int64_t iat, exp; /* the cookie */
    int64_t now;      /* verification time */
    hsc_status_t st;  /* expected */
    const char *why;  /* the boundary shown */
} time_cases[] = {
    {T0, T0 + IDLE, T0, HSC_OK, "now == iat"},
    {T0, T0 + IDLE, T0 + IDLE - 1, HSC_OK, "last second before exp"},
    {T0, T0 + IDLE, T0 + IDLE, HSC_EEXPIRED, "now == exp"},
    {T0, T0 + IDLE, T0 + IDLE + 100000, HSC_EEXPIRED, "long expired"},
    {T0, T0 + IDLE, T0 - SKEW, HSC_OK, "iat == now + skew"},
    {T0, T0 + IDLE, T0 - SKEW - 1, HSC_EFUTURE, "iat == now + skew + 1"},
    {T0, T0 + 2 * MAX_AGE, T0 + MAX_AGE - 1, HSC_OK, "last second of age"},
    {T0, T0 + 2 * MAX_AGE, T0 + MAX_AGE, HSC_EMAXAGE, "now == iat + max"},
    {T0, T0 + 2 * MAX_AGE, T0 + MAX_AGE + 5, HSC_EMAXAGE, "past max age"},
    {T0, T0 + IDLE, T0 + MAX_AGE + 5, HSC_EEXPIRED,
     "expired and past max age: expiry is checked first"},
};

static void cookie_time_checks_follow_the_table(void)
{
    size_t i;

    for (i = 0; i < sizeof(time_cases) / sizeof(time_cases[0]); i++) {
        const char *v = mint(key_new, "alice", time_cases[i].iat,
                             time_cases[i].exp, xn0);

        CHECK_EQ(check(v, time_cases[i].now), time_cases[i].st,
                 time_cases[i].why);
    }
}

static void cookie_time_checks_do_not_overflow(void)
{
    const char *v = mint(key_new, "alice", INT64_MAX - 10, INT64_MAX, xn0);
    hsc_verify_params_t vp = params(INT64_MAX - 5);
    hsc_cookie_t c;

    vp.skew = INT64_MAX;
    vp.max_age = INT64_MAX;
    CHECK_EQ(hsc_cookie_check(&vp, v, strlen(v), &c), HSC_OK,
             "huge times and limits saturate");
    vp.now = 0;
    vp.skew = 0;
    CHECK_EQ(hsc_cookie_check(&vp, v, strlen(v), &c), HSC_EFUTURE,
             "far future iat refused");
}

static void cookie_rejects_wrong_scope_and_address(void)
{
    const char *v = mint(key_new, "alice", T0, T0 + IDLE, xn0);
    hsc_verify_params_t vp = params(T0 + 10);
    hsc_cookie_t c;
    char out[HSC_COOKIE_VALUE_MAX];
    size_t n;

    vp.scope = "other-app";
    CHECK_EQ(hsc_cookie_check(&vp, v, strlen(v), &c), HSC_EBADMAC,
             "another scope");
    vp.scope = "";
    CHECK_EQ(hsc_cookie_check(&vp, v, strlen(v), &c), HSC_EBADMAC, "no scope");
    vp.scope = SCOPE;
    vp.address = "127.0.0.2";
    CHECK_EQ(hsc_cookie_check(&vp, v, strlen(v), &c), HSC_EBADMAC,
             "another address");
    vp.address = NULL;
    CHECK_EQ(hsc_cookie_check(&vp, v, strlen(v), &c), HSC_EBADMAC,
             "no address");
    /* NULL and "" are the same empty part. */
    hsc_cookie_mint(key_new, "alice", 5, T0, T0 + IDLE, xn0, NULL, NULL, out,
                    sizeof(out), &n);
    vp.scope = "";
    vp.address = "";
    CHECK_EQ(hsc_cookie_check(&vp, out, n, &c), HSC_OK,
             "NULL at mint equals \"\" at check");
    /* A line feed would make M ambiguous: refused. */
    vp.scope = "app\n127.0.0.1";
    vp.address = "";
    CHECK_EQ(hsc_cookie_check(&vp, v, strlen(v), &c), HSC_EINVAL,
             "scope with a line feed");
    /* scope "app" + address "127.0.0.1" vs scope "app\n127.0.0.1". */
    CHECK_EQ(hsc_cookie_mint(key_new, "alice", 5, T0, T0 + IDLE, xn0,
                             "app\n127.0.0.1", "", out, sizeof(out), &n),
             HSC_EINVAL, "mint refuses it too");
}

/* --- rotation, mint, refresh ---------------------------------------------- */

static void cookie_key_rotation_keeps_old_cookies_until_removal(void)
{
    const char *v = mint(key_old, "alice", T0, T0 + IDLE, xn0);
    hsc_verify_params_t vp = params(T0 + 10);
    hsc_cookie_t c;
    char out[HSC_COOKIE_VALUE_MAX];
    size_t n = 0;

    CHECK_EQ(hsc_cookie_check(&vp, v, strlen(v), &c), HSC_OK,
             "old key, second line: verifies");
    CHECK_EQ(hsc_cookie_refresh(&vp, &c, IDLE, out, sizeof(out), &n), HSC_OK,
             "refresh");
    CHECK(strncmp(out, "1.new.", 6) == 0, "refresh signs with the new key");
    vp.keys = ring_new;
    CHECK_EQ(hsc_cookie_check(&vp, v, strlen(v), &c), HSC_ENOKEY,
             "old key removed: refused");
    CHECK_EQ(hsc_cookie_check(&vp, out, n, &c), HSC_OK,
             "the refreshed cookie survives the removal");
}

static void cookie_mint_refuses_bad_input(void)
{
    char out[HSC_COOKIE_VALUE_MAX], small[100];
    size_t n = 99;
    char longname[300];

    memset(longname, 'u', sizeof(longname));
    CHECK(hsc_cookie_mint(key_new, "a\nb", 3, T0, T0 + 1, xn0, "", "", out,
                          sizeof(out), &n)
                  == HSC_EINVAL
              && n == 0 && out[0] == '\0',
          "control character in the user");
    CHECK_EQ(hsc_cookie_mint(key_new, "", 0, T0, T0 + 1, xn0, "", "", out,
                             sizeof(out), &n),
             HSC_EINVAL, "empty user");
    CHECK_EQ(hsc_cookie_mint(key_new, longname, 256, T0, T0 + 1, xn0, "", "",
                             out, sizeof(out), &n),
             HSC_EINVAL, "256-byte user");
    CHECK_EQ(hsc_cookie_mint(key_new, longname, 255, T0, T0 + 1, xn0, "", "",
                             out, sizeof(out), &n),
             HSC_OK, "255-byte user fits HSC_COOKIE_VALUE_MAX");
    CHECK_EQ(hsc_cookie_mint(key_new, longname, 255, INT64_MAX - 1, INT64_MAX,
                             xn0, "", "", out, sizeof(out), &n),
             HSC_OK, "the longest value fits too");
    CHECK(n < HSC_COOKIE_VALUE_MAX, "and is under the maximum");
    CHECK_EQ(hsc_cookie_mint(key_new, "alice", 5, T0, T0, xn0, "", "", out,
                             sizeof(out), &n),
             HSC_EINVAL, "exp == iat");
    CHECK_EQ(hsc_cookie_mint(key_new, "alice", 5, -1, T0, xn0, "", "", out,
                             sizeof(out), &n),
             HSC_EINVAL, "negative iat");
    CHECK_EQ(hsc_cookie_mint(NULL, "alice", 5, T0, T0 + 1, xn0, "", "", out,
                             sizeof(out), &n),
             HSC_EINVAL, "no key");
    CHECK(hsc_cookie_mint(key_new, "alice", 5, T0, T0 + 1, xn0, "", "", small,
                          sizeof(small), &n)
                  == HSC_ETOOLONG
              && n == 0,
          "buffer too small");
}

/* hsc_cookie_expiry: min(now + idle, iat + max_age). */
static const struct {
    int64_t iat, now, idle, max_age; /* inputs */
    int64_t want;                    /* expected expiry */
} expiry_cases[] = {
    {T0, T0, IDLE, MAX_AGE, T0 + IDLE},
    {T0, T0 + 1000, IDLE, MAX_AGE, T0 + 1000 + IDLE},
    {T0, T0 + MAX_AGE - IDLE, IDLE, MAX_AGE, T0 + MAX_AGE},
    {T0, T0 + MAX_AGE - 10, IDLE, MAX_AGE, T0 + MAX_AGE},
    {T0, T0, MAX_AGE * 2, MAX_AGE, T0 + MAX_AGE},
    {T0, INT64_MAX - 5, IDLE, INT64_MAX, INT64_MAX},
};

static void cookie_expiry_never_passes_max_age(void)
{
    size_t i;
    char what[40];

    for (i = 0; i < sizeof(expiry_cases) / sizeof(expiry_cases[0]); i++) {
        snprintf(what, sizeof(what), "case %zu", i);
        CHECK(hsc_cookie_expiry(expiry_cases[i].iat, expiry_cases[i].now,
                                expiry_cases[i].idle, expiry_cases[i].max_age)
                  == expiry_cases[i].want,
              what);
    }
}

/* hsc_cookie_needs_refresh with idle = 3600 (half: 1800). */
static const struct {
    int64_t iat, exp, now; /* the cookie and the time */
    int want;              /* expected */
    const char *why;
} refresh_cases[] = {
    {T0, T0 + IDLE, T0, 0, "fresh"},
    {T0, T0 + IDLE, T0 + 1800, 0, "exactly half remains"},
    {T0, T0 + IDLE, T0 + 1801, 1, "just under half remains"},
    {T0, T0 + IDLE, T0 + IDLE - 1, 1, "one second left"},
    {T0, T0 + MAX_AGE, T0 + MAX_AGE - 10, 0, "already at max age"},
    {T0, T0 + MAX_AGE - 100, T0 + MAX_AGE - 1000, 1,
     "100 seconds more are possible"},
    {T0, T0 + IDLE, T0 + IDLE, 0, "expired"},
};

static void cookie_needs_refresh_boundaries(void)
{
    size_t i;

    for (i = 0; i < sizeof(refresh_cases) / sizeof(refresh_cases[0]); i++) {
        hsc_cookie_t c;

        memset(&c, 0, sizeof(c));
        c.iat = refresh_cases[i].iat;
        c.exp = refresh_cases[i].exp;
        CHECK_EQ(hsc_cookie_needs_refresh(&c, refresh_cases[i].now, IDLE,
                                          MAX_AGE),
                 refresh_cases[i].want, refresh_cases[i].why);
    }
}

static void cookie_refresh_keeps_iat_and_auth_within_max_age(void)
{
    const char *v = mint(key_new, "alice", T0, T0 + IDLE, xn0);
    hsc_verify_params_t vp = params(T0 + 2000);
    hsc_cookie_t c, r;
    char out[HSC_COOKIE_VALUE_MAX];
    size_t n = 0;

    CHECK_EQ(hsc_cookie_check(&vp, v, strlen(v), &c), HSC_OK, "verified");
    CHECK_EQ(hsc_cookie_refresh(&vp, &c, IDLE, out, sizeof(out), &n), HSC_OK,
             "refreshed");
    CHECK_EQ(hsc_cookie_check(&vp, out, n, &r), HSC_OK,
             "the new value verifies");
    CHECK(r.iat == T0 && memcmp(r.auth, xn0, HSC_XN_LEN) == 0
              && strcmp(r.user, "alice") == 0,
          "same iat, auth and user");
    CHECK(r.exp == T0 + 2000 + IDLE, "exp = now + idle");

    /* Near the end of the login, refresh stops at iat + max age. */
    vp.now = T0 + MAX_AGE - 100;
    c.exp = T0 + MAX_AGE - 50;
    CHECK_EQ(hsc_cookie_refresh(&vp, &c, IDLE, out, sizeof(out), &n), HSC_OK,
             "refresh near max age");
    CHECK(hsc_cookie_parse(out, n, &r) == HSC_OK && r.exp == T0 + MAX_AGE,
          "exp capped at iat + max age");
    vp.now = T0 + MAX_AGE;
    CHECK(hsc_cookie_refresh(&vp, &c, IDLE, out, sizeof(out), &n) == HSC_EMAXAGE
              && n == 0,
          "no refresh once max age is reached");
}

/* --- steps 5-6 against a real SQLite store ------------------------------- */

static const char *db_path;
static hsc_store_t *store;
static hsc_kdf_t test_kdf; /* scrypt:1024:8:1: fast */

static hsc_status_t add_user(const char *name, const char *password)
{
    hsc_user_t u;
    hsc_status_t st;

    memset(&u, 0, sizeof(u));
    u.name = name;
    u.name_len = strlen(name);
    u.groups = "";
    st = hsc_password_make(&test_kdf, password, strlen(password), &u);
    if (st != HSC_OK) {
        return st;
    }
    return hsc_store_add(store, &u);
}

/* Log in as a server would: password -> x_n -> cookie. */
static const char *login(const char *name, const char *password, int64_t iat)
{
    unsigned char xn[HSC_XN_LEN];
    hsc_user_t u;
    const char *v;

    if (hsc_password_check(store, name, strlen(name), password,
                           strlen(password), &test_kdf, xn, &u)
        != HSC_OK) {
        return NULL;
    }
    v = mint(key_new, name, iat, iat + IDLE, xn);
    hsc_wipe(xn, sizeof(xn));
    return v;
}

static hsc_status_t verify(const char *value, int64_t now, hsc_cookie_t *c,
                           hsc_user_t *u)
{
    hsc_verify_params_t vp = params(now);

    return hsc_cookie_verify(&vp, store, value, strlen(value), c, u);
}

static void store_setup(void)
{
    char err[256] = "";
    hsc_status_t st;

    db_path = apr_psprintf(pool, "%s/hsc-test-cookie-%ld.db",
                           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                           (long)getpid());
    unlink(db_path);
    st = hsc_store_sqlite_open(db_path, HSC_STORE_CREATE, &store, err,
                               sizeof(err));
    CHECK_EQ(st, HSC_OK, "a fresh SQLite store opens");
    if (st != HSC_OK) {
        printf("# %s\n", err);
        exit(1);
    }
    CHECK_EQ(add_user("alice", "correct horse battery staple"), HSC_OK,
             "add alice");
    CHECK_EQ(add_user("bob", "hunter2"), HSC_OK, "add bob");
    CHECK_EQ(add_user("carol", "pw-carol"), HSC_OK, "add carol");
    CHECK_EQ(add_user("j\xc3\xb6rg", "pw-j"), HSC_OK, "add a UTF-8 name");
}

static void verify_accepts_a_login_cookie(void)
{
    const char *v = login("alice", "correct horse battery staple", T0);
    hsc_cookie_t c;
    hsc_user_t u;

    CHECK(v != NULL, "alice logs in");
    CHECK_EQ(verify(v, T0 + 10, &c, &u), HSC_OK, "all six steps pass");
    CHECK(u.name != NULL && strcmp(u.name, "alice") == 0, "user filled");
    CHECK(strcmp(c.user, "alice") == 0, "cookie filled");
    v = login("j\xc3\xb6rg", "pw-j", T0);
    CHECK(v != NULL && verify(v, T0 + 10, &c, &u) == HSC_OK,
          "a UTF-8 username works end to end");
}

static void verify_refuses_an_unknown_user(void)
{
    const char *v = mint(key_new, "mallory", T0, T0 + IDLE, xn0);
    hsc_cookie_t c;
    hsc_user_t u;

    CHECK_EQ(verify(v, T0 + 10, &c, &u), HSC_ENOUSER, "no such user");
    CHECK(u.name == NULL, "user zeroed");
}

static void verify_refuses_a_disabled_user(void)
{
    const char *v = login("bob", "hunter2", T0);
    hsc_cookie_t c;
    hsc_user_t u;

    CHECK_EQ(verify(v, T0 + 10, &c, &u), HSC_OK, "before");
    hsc_store_set_disabled(store, "bob", 1);
    CHECK_EQ(verify(v, T0 + 10, &c, &u), HSC_EDISABLED, "disabled");
    CHECK_STR(c.user, "bob", "the refused cookie still names its user");
    hsc_store_set_disabled(store, "bob", 0);
    CHECK_EQ(verify(v, T0 + 10, &c, &u), HSC_OK, "enabled again");
}

static void verify_refuses_cookies_issued_before_revocation(void)
{
    const char *before = login("carol", "pw-carol", T0);
    const char *at = login("carol", "pw-carol", T0 + 5);
    hsc_cookie_t c;
    hsc_user_t u;

    hsc_store_revoke(store, "carol", T0 + 5);
    CHECK_EQ(verify(before, T0 + 10, &c, &u), HSC_EREVOKED,
             "iat < revoked_before");
    CHECK_EQ(verify(at, T0 + 10, &c, &u), HSC_OK, "iat == revoked_before");
}

static void verify_refuses_a_wrong_auth(void)
{
    unsigned char other[HSC_XN_LEN];
    const char *v;
    hsc_cookie_t c;
    hsc_user_t u;

    memcpy(other, xn0, sizeof(other));
    v = mint(key_new, "alice", T0, T0 + IDLE, other);
    CHECK_EQ(verify(v, T0 + 10, &c, &u), HSC_EAUTH, "an unrelated x_n");
    other[0] ^= 1;
    v = mint(key_new, "alice", T0, T0 + IDLE, other);
    CHECK_EQ(verify(v, T0 + 10, &c, &u), HSC_EAUTH, "one bit off");
}

static void verify_refuses_forgeries_from_key_and_database(void)
{
    /* The attacker has the MAC key and the whole user record (salt, kdf,
     * v), not the password: every auth it can compute is refused. */
    hsc_user_t rec;
    unsigned char guess[HSC_XN_LEN];
    const char *v;
    hsc_cookie_t c;
    hsc_user_t u;
    unsigned char both[HSC_SALT_LEN + HSC_AUTH_LEN];

    CHECK_EQ(hsc_store_get(store, "alice", 5, &rec), HSC_OK,
             "read alice's record");
    v = mint(key_new, "alice", T0, T0 + IDLE, rec.authenticator);
    CHECK_EQ(verify(v, T0 + 10, &c, &u), HSC_EAUTH, "auth = v");

    hsc_store_get(store, "alice", 5, &rec);
    hsc_authenticator(rec.authenticator, guess);
    v = mint(key_new, "alice", T0, T0 + IDLE, guess);
    CHECK_EQ(verify(v, T0 + 10, &c, &u), HSC_EAUTH, "auth = SHA-256(v)");

    hsc_store_get(store, "alice", 5, &rec);
    memset(guess, 0, sizeof(guess));
    memcpy(guess, rec.salt, HSC_SALT_LEN);
    v = mint(key_new, "alice", T0, T0 + IDLE, guess);
    CHECK_EQ(verify(v, T0 + 10, &c, &u), HSC_EAUTH, "auth = salt, padded");

    hsc_store_get(store, "alice", 5, &rec);
    memcpy(both, rec.salt, HSC_SALT_LEN);
    memcpy(both + HSC_SALT_LEN, rec.authenticator, HSC_AUTH_LEN);
    EVP_Digest(both, sizeof(both), guess, NULL, EVP_sha256(), NULL);
    v = mint(key_new, "alice", T0, T0 + IDLE, guess);
    CHECK_EQ(verify(v, T0 + 10, &c, &u), HSC_EAUTH,
             "auth = SHA-256(salt || v)");

    hsc_random(guess, sizeof(guess));
    v = mint(key_new, "alice", T0, T0 + IDLE, guess);
    CHECK_EQ(verify(v, T0 + 10, &c, &u), HSC_EAUTH, "auth = random bytes");
}

static void verify_password_change_kills_old_cookies(void)
{
    const char *old = login("alice", "correct horse battery staple", T0);
    const char *fresh;
    hsc_user_t u;
    hsc_cookie_t c;

    CHECK_EQ(verify(old, T0 + 10, &c, &u), HSC_OK, "old cookie works");
    memset(&u, 0, sizeof(u));
    CHECK_EQ(hsc_password_make(&test_kdf, "correct horse battery staple", 28,
                               &u),
             HSC_OK, "same password, new salt");
    CHECK_EQ(hsc_store_set_password(store, "alice", u.salt, &u.kdf,
                                    u.authenticator),
             HSC_OK, "stored");
    CHECK_EQ(verify(old, T0 + 10, &c, &u), HSC_EAUTH, "the old cookie is dead");
    fresh = login("alice", "correct horse battery staple", T0 + 20);
    CHECK(fresh != NULL && verify(fresh, T0 + 30, &c, &u) == HSC_OK,
          "a new login works");
}

static void verify_checks_in_the_spec_order(void)
{
    /* A cookie failing several steps reports the first. */
    const char *v = mint(key_new, "mallory", T0, T0 + IDLE, xn0);
    hsc_cookie_t c;
    hsc_user_t u;
    char *bad = apr_pstrdup(pool, v);

    CHECK_EQ(verify(v, T0 + IDLE, &c, &u), HSC_EEXPIRED,
             "expired before unknown user");
    bad[strlen(bad) - 2] = bad[strlen(bad) - 2] == 'A' ? 'B' : 'A';
    CHECK_EQ(verify(bad, T0 + IDLE, &c, &u), HSC_EBADMAC,
             "bad MAC before expired");
    v = mint(hsc_keyring_signer(load_ring("zz " S_OTHER "\n")), "mallory", T0,
             T0 + IDLE, xn0);
    CHECK_EQ(verify(v, T0 + IDLE, &c, &u), HSC_ENOKEY,
             "unknown key before MAC and time");
    bad = apr_pstrdup(pool, v);
    bad[0] = '2';
    CHECK_EQ(verify(bad, T0 + IDLE, &c, &u), HSC_EMALFORMED, "syntax first");
    /* The store is not consulted before steps 1-4 pass: without one,
     * step 5 would fail with HSC_EINVAL. */
    v = mint(key_new, "alice", T0, T0 + IDLE, xn0);
    {
        hsc_verify_params_t vp = params(T0 + IDLE + 1);

        CHECK_EQ(hsc_cookie_verify(&vp, NULL, v, strlen(v), &c, &u),
                 HSC_EEXPIRED, "expired: the store is not reached");
        vp.now = T0 + 10;
        CHECK_EQ(hsc_cookie_verify(&vp, NULL, v, strlen(v), &c, &u), HSC_EINVAL,
                 "valid: the store is reached");
    }
}

/* hsc_cookie_explain: its verdict is verify's, and each step is recorded. */
static hsc_status_t explain_and_compare(const char *v, int64_t now,
                                        hsc_store_t *st_store,
                                        hsc_explain_t *ex)
{
    hsc_verify_params_t vp = params(now);
    hsc_cookie_t c;
    hsc_user_t u;
    hsc_status_t want, got;

    want = st_store ? hsc_cookie_verify(&vp, st_store, v, strlen(v), &c, &u)
                    : hsc_cookie_check(&vp, v, strlen(v), &c);
    hsc_wipe(&c, sizeof(c));
    got = hsc_cookie_explain(&vp, st_store, v, strlen(v), ex);
    CHECK_EQ(got, want, "the verdict is verify's (check's without a store)");
    CHECK_EQ(ex->status, got, "and is recorded");
    {
        static const unsigned char zero[HSC_XN_LEN + HSC_SEAL_LEN];
        CHECK(!memcmp(ex->cookie.auth, zero, sizeof(ex->cookie.auth))
                  && !memcmp(ex->cookie.mac, zero, sizeof(ex->cookie.mac)),
              "auth and mac are wiped");
    }
    return got;
}

static void explain_records_every_step(void)
{
    const char *v = login("alice", "correct horse battery staple", T0);
    char *bad = apr_pstrdup(pool, v);
    hsc_explain_t ex;
    int i, all = 1;

    explain_and_compare(v, T0 + 10, store, &ex);
    for (i = HSC_STEP_SYNTAX; i <= HSC_STEP_COUNT; i++) {
        all &= ex.verdict[i] == HSC_STEP_PASS;
    }
    CHECK(all, "a good cookie passes all six steps");
    CHECK_STR(ex.cookie.user, "alice", "the user is recorded");

    /* A bad MAC on an expired cookie: the rest is still explained. */
    bad[strlen(bad) - 2] = bad[strlen(bad) - 2] == 'A' ? 'B' : 'A';
    CHECK_EQ(explain_and_compare(bad, T0 + IDLE, store, &ex), HSC_EBADMAC,
             "bad MAC first");
    CHECK(ex.verdict[HSC_STEP_MAC] == HSC_STEP_FAIL
              && ex.verdict[HSC_STEP_TIME] == HSC_STEP_FAIL
              && ex.why[HSC_STEP_TIME] == HSC_EEXPIRED
              && ex.verdict[HSC_STEP_USER] == HSC_STEP_PASS
              && ex.verdict[HSC_STEP_AUTH] == HSC_STEP_PASS,
          "mac fail, time fail (expired), user and auth pass");

    /* An unknown key: the MAC cannot be checked, the time can. */
    v = mint(hsc_keyring_signer(load_ring("zz " S_OTHER "\n")), "mallory", T0,
             T0 + IDLE, xn0);
    CHECK_EQ(explain_and_compare(v, T0 + 10, store, &ex), HSC_ENOKEY,
             "unknown key");
    CHECK(ex.verdict[HSC_STEP_KEY] == HSC_STEP_FAIL
              && ex.verdict[HSC_STEP_MAC] == HSC_STEP_NOT_CHECKED
              && ex.verdict[HSC_STEP_TIME] == HSC_STEP_PASS
              && ex.why[HSC_STEP_USER] == HSC_ENOUSER
              && ex.verdict[HSC_STEP_AUTH] == HSC_STEP_NOT_CHECKED,
          "key fail, mac not checked, time pass, no user, auth not checked");

    /* A wrong auth for a real user: only step 6 fails. */
    v = mint(key_new, "bob", T0, T0 + IDLE, xn0);
    CHECK_EQ(explain_and_compare(v, T0 + 10, store, &ex), HSC_EAUTH,
             "wrong auth");
    CHECK(ex.verdict[HSC_STEP_USER] == HSC_STEP_PASS
              && ex.verdict[HSC_STEP_AUTH] == HSC_STEP_FAIL,
          "user pass, auth fail");

    /* Without a store, steps 5-6 are not checked. */
    CHECK_EQ(explain_and_compare(v, T0 + 10, NULL, &ex), HSC_OK,
             "steps 1-4 pass without a store");
    CHECK(ex.verdict[HSC_STEP_USER] == HSC_STEP_NOT_CHECKED
              && ex.verdict[HSC_STEP_AUTH] == HSC_STEP_NOT_CHECKED,
          "user and auth not checked");

    /* Syntax: nothing else is checked; the field count is recorded. */
    CHECK_EQ(explain_and_compare("1.a.b", T0, store, &ex), HSC_EMALFORMED,
             "malformed");
    CHECK(ex.fields == 3 && ex.verdict[HSC_STEP_SYNTAX] == HSC_STEP_FAIL
              && ex.verdict[HSC_STEP_KEY] == HSC_STEP_NOT_CHECKED
              && ex.verdict[HSC_STEP_AUTH] == HSC_STEP_NOT_CHECKED,
          "three fields, only syntax checked");
}

static void store_teardown(void)
{
    hsc_store_close(store);
    store = NULL;
    unlink(db_path);
    unlink(apr_pstrcat(pool, db_path, "-wal", NULL));
    unlink(apr_pstrcat(pool, db_path, "-shm", NULL));
}

/* The spec's "Login": iat = max(now, revoked_before). */
static void login_iat_is_never_refused_by_its_own_revocation(void)
{
    CHECK_EQ(hsc_login_iat(1000, 0), 1000, "never revoked: now");
    CHECK_EQ(hsc_login_iat(1000, 1000), 1000, "revoked last second: now");
    CHECK_EQ(hsc_login_iat(1000, 1001), 1001,
             "revoked this second (now + 1 stored): one second ahead");
    CHECK_EQ(hsc_login_iat(1000, 500), 1000, "revoked long ago: now");
}

/* Format 2 beside format 1: HSCCookieFormat1 Off refuses a genuine old
 * cookie after its MAC; a remembered login lives by HSCRememberMe's span
 * where that is set and by the max age elsewhere; a refresh keeps every
 * field but exp, and a pending cookie is never refreshed. */
/* carol's passkey_seals set by another connection (as the passkey store
 * does): n bytes, NULL when 0. */
static int set_seals(const unsigned char *seals, size_t n)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int ok = sqlite3_open(db_path, &db) == SQLITE_OK
             && sqlite3_prepare_v2(db,
                                   "UPDATE hsc_users SET passkey_seals = ?1 "
                                   "WHERE username = 'carol'",
                                   -1, &st, NULL)
                    == SQLITE_OK
             && (n ? sqlite3_bind_blob(st, 1, seals, (int)n, SQLITE_STATIC)
                   : sqlite3_bind_null(st, 1))
                    == SQLITE_OK
             && sqlite3_step(st) == SQLITE_DONE;

    sqlite3_finalize(st);
    sqlite3_close(db);
    return ok;
}

/* A format 2 cookie of carol's (her gen) with amr and auth x_n / z. */
static int64_t carol_gen;
static const char *carol2(unsigned amr, const unsigned char *xn,
                          const unsigned char *z, int64_t exp)
{
    static const unsigned char lid[HSC_LID_LEN] = {9};
    char out[HSC_COOKIE_VALUE_MAX];
    hsc_claims_t cl;
    size_t n = 0;

    memset(&cl, 0, sizeof(cl));
    cl.user = "carol";
    cl.user_len = 5;
    cl.iat = T0;
    cl.exp = exp;
    cl.gen = carol_gen;
    cl.lid = lid;
    cl.amr = amr;
    cl.mfa_at = (amr & HSC_AMR_FACTOR) ? T0 : 0;
    cl.xn = xn;
    cl.z = z;
    if (hsc_cookie_mint2(key_new, &cl, SCOPE, ADDR, out, sizeof(out), &n)
        != HSC_OK) {
        printf("Bail out! carol2\n");
        exit(1);
    }
    return apr_pstrdup(pool, out);
}

/* Step 6 with seals: the 64th of 64 hashes matches; the seal switch (a
 * block of zeros ending the column) refuses every cookie without seal
 * but a pending one at the second-factor step; a format 1 cookie too. */
static void seals_and_the_switch(void)
{
    static unsigned char seals[HSC_SEALS_MAX * HSC_SEAL_HASH_LEN];
    unsigned char xn[HSC_XN_LEN], z[HSC_SEAL_LEN];
    hsc_verify_params_t vp = params(T0 + 10), vp1;
    const char *sealed, *pwd, *hwk, *pending, *v1;
    int64_t rb;
    hsc_cookie_t c;
    hsc_user_t u;
    size_t i;

    CHECK(hsc_password_check(store, "carol", 5, "pw-carol", 8, &test_kdf, xn,
                             &u)
              == HSC_OK,
          "carol's x_n");
    carol_gen = u.gen;
    memset(z, 0x3c, sizeof(z));
    for (i = 0; i < sizeof(seals); i++) {
        seals[i] = (unsigned char)(i * 13 + 1);
    }
    hsc_authenticator(z, seals + sizeof(seals) - HSC_SEAL_HASH_LEN);
    sealed = carol2(HSC_AMR_PWD | HSC_AMR_HWK | HSC_AMR_SEAL, xn, z, T0 + 600);
    pwd = carol2(HSC_AMR_PWD, xn, NULL, T0 + 600);
    hwk = carol2(HSC_AMR_PWD | HSC_AMR_HWK, xn, NULL, T0 + 600);
    pending = carol2(HSC_AMR_PWD | HSC_AMR_PENDING, xn, NULL, T0 + 120);
    /* A format 1 cookie is checked by revoked_before: one issued since. */
    rb = u.revoked_before > T0 ? u.revoked_before : T0;
    vp1 = params(rb + 5);
    v1 = mint(key_new, "carol", rb, rb + IDLE, xn);
    CHECK_EQ(hsc_cookie_verify(&vp, store, sealed, strlen(sealed), &c, &u),
             HSC_EAUTH, "a seal with no seal hash in the row: refused");
    CHECK(set_seals(seals, sizeof(seals)), "64 seal hashes, z's the last");
    CHECK(hsc_cookie_verify(&vp, store, sealed, strlen(sealed), &c, &u)
                  == HSC_OK
              && u.seals_len == sizeof(seals),
          "the last of 64 matches: accepted");
    CHECK(set_seals(seals, sizeof(seals) - HSC_SEAL_HASH_LEN),
          "the other 63 only");
    CHECK_EQ(hsc_cookie_verify(&vp, store, sealed, strlen(sealed), &c, &u),
             HSC_EAUTH, "refused");
    memcpy(seals, seals + sizeof(seals) - HSC_SEAL_HASH_LEN, HSC_SEAL_HASH_LEN);
    memset(seals + HSC_SEAL_HASH_LEN, 0, HSC_SEAL_HASH_LEN);
    CHECK(set_seals(seals, 2 * HSC_SEAL_HASH_LEN),
          "z's hash, then the switch's block of zeros");
    CHECK_EQ(hsc_cookie_verify(&vp, store, sealed, strlen(sealed), &c, &u),
             HSC_OK, "the sealed cookie passes");
    CHECK(hsc_user_seal_required(&u) && hsc_user_seal_bytes(&u) == 32,
          "the row says the seal is required, beside one hash");
    CHECK_EQ(hsc_cookie_verify(&vp, store, pwd, strlen(pwd), &c, &u), HSC_EAUTH,
             "a password-only cookie is refused");
    CHECK_EQ(hsc_cookie_verify(&vp, store, hwk, strlen(hwk), &c, &u), HSC_EAUTH,
             "so is hwk without seal");
    CHECK_EQ(hsc_cookie_verify(&vp1, store, v1, strlen(v1), &c, &u), HSC_EAUTH,
             "and a format 1 cookie");
    CHECK_EQ(hsc_cookie_verify(&vp, store, pending, strlen(pending), &c, &u),
             HSC_EPENDING, "a pending cookie stays refused outside its step");
    vp.allow_pending = 1;
    CHECK_EQ(hsc_cookie_verify(&vp, store, pending, strlen(pending), &c, &u),
             HSC_OK, "and good at the second-factor step");
    vp.allow_pending = 0;
    CHECK(set_seals(NULL, 0), "no seals");
    CHECK_EQ(hsc_cookie_verify(&vp, store, pwd, strlen(pwd), &c, &u), HSC_OK,
             "the password-only cookie passes again");
    CHECK_EQ(hsc_cookie_verify(&vp1, store, v1, strlen(v1), &c, &u), HSC_OK,
             "so does the format 1 one");
    hsc_wipe(xn, sizeof(xn));
    hsc_wipe(&c, sizeof(c));
}

static void format2_remember_and_old_format(void)
{
    unsigned char lid[HSC_LID_LEN] = {1, 2, 3, 4, 5, 6, 7, 8};
    char v1[HSC_COOKIE_VALUE_MAX], v2[HSC_COOKIE_VALUE_MAX];
    char v3[HSC_COOKIE_VALUE_MAX];
    size_t l1, l2, l3;
    hsc_verify_params_t vp = params(T0 + 10);
    hsc_claims_t cl;
    hsc_cookie_t c, c2;

    memset(&cl, 0, sizeof(cl));
    cl.user = "alice";
    cl.user_len = 5;
    cl.iat = T0;
    cl.exp = T0 + 30 * 86400;
    cl.gen = 4;
    cl.lid = lid;
    cl.amr = HSC_AMR_PWD | HSC_AMR_REM;
    cl.xn = xn0;
    CHECK(hsc_cookie_mint(key_new, "alice", 5, T0, T0 + 600, xn0, SCOPE, ADDR,
                          v1, sizeof(v1), &l1)
                  == HSC_OK
              && hsc_cookie_mint2(key_new, &cl, SCOPE, ADDR, v2, sizeof(v2),
                                  &l2)
                     == HSC_OK,
          "a format 1 and a remembered format 2 cookie");
    CHECK(hsc_cookie_check(&vp, v1, l1, &c) == HSC_OK && c.format == 1
              && c.amr == HSC_AMR_PWD && c.gen == -1,
          "format 1 reads as amr pwd, no gen");
    vp.refuse_format1 = 1;
    CHECK_EQ(hsc_cookie_check(&vp, v1, l1, &c), HSC_EOLDFORMAT,
             "HSCCookieFormat1 Off refuses it");
    CHECK_EQ(hsc_cookie_check(&vp, v2, l2, &c), HSC_OK, "not format 2");
    vp.refuse_format1 = 0;

    vp.now = T0 + MAX_AGE + 10;
    CHECK_EQ(hsc_cookie_check(&vp, v2, l2, &c), HSC_EMAXAGE,
             "past HSCMaxAge where HSCRememberMe is off");
    vp.remember = 30 * 86400;
    CHECK(hsc_cookie_check(&vp, v2, l2, &c) == HSC_OK && c.amr == cl.amr
              && c.gen == 4 && memcmp(c.lid, lid, HSC_LID_LEN) == 0,
          "within HSCRememberMe where it is set");
    CHECK(hsc_cookie_refresh(&vp, &c, 30 * 86400, v3, sizeof(v3), &l3) == HSC_OK
              && hsc_cookie_check(&vp, v3, l3, &c2) == HSC_OK && c2.iat == c.iat
              && c2.amr == c.amr && c2.gen == c.gen
              && memcmp(c2.lid, c.lid, HSC_LID_LEN) == 0
              && c2.exp == T0 + 30 * 86400,
          "a refresh keeps every field, exp capped by the remembered span");
    vp.now = T0 + 30 * 86400;
    CHECK_EQ(hsc_cookie_check(&vp, v2, l2, &c), HSC_EEXPIRED,
             "and ends with it");

    cl.amr = HSC_AMR_PWD | HSC_AMR_PENDING;
    cl.exp = T0 + 120;
    vp.now = T0 + 10;
    CHECK(hsc_cookie_mint2(key_new, &cl, SCOPE, ADDR, v3, sizeof(v3), &l3)
                  == HSC_OK
              && hsc_cookie_check(&vp, v3, l3, &c) == HSC_OK,
          "a pending cookie passes steps 1-4");
    CHECK_EQ(hsc_cookie_refresh(&vp, &c, 600, v1, sizeof(v1), &l1),
             HSC_EPENDING, "and is never refreshed");
    cl.exp = T0 + HSC_PENDING_TIMEOUT_DEFAULT + 1;
    CHECK(hsc_cookie_mint2(key_new, &cl, SCOPE, ADDR, v3, sizeof(v3), &l3)
                  == HSC_OK
              && hsc_cookie_check(&vp, v3, l3, &c) == HSC_EMAXAGE,
          "one that would live past the pending timeout is refused");
    cl.amr = HSC_AMR_OTP;
    cl.mfa_at = T0;
    CHECK_EQ(hsc_cookie_mint2(key_new, &cl, SCOPE, ADDR, v3, sizeof(v3), &l3),
             HSC_EINVAL, "mint2 refuses a cookie without pwd or seal");
    hsc_wipe(&c, sizeof(c));
    hsc_wipe(&c2, sizeof(c2));
}

int main(void)
{
    RUN(login_iat_is_never_refused_by_its_own_revocation);
    size_t i;

    apr_initialize();
    apr_pool_create(&pool, NULL);
    ring = load_ring("# rotation: new signs, old verifies\n"
                     "new " S_NEW "\nold " S_OLD "\n");
    ring_new = load_ring("new " S_NEW "\n");
    ring_other = load_ring("new " S_OTHER "\n");
    key_new = hsc_keyring_find(ring, "new", 3);
    key_old = hsc_keyring_find(ring, "old", 3);
    for (i = 0; i < sizeof(xn0); i++) {
        xn0[i] = (unsigned char)(0xA0 + i);
    }
    hsc_kdf_parse("scrypt:1024:8:1", &test_kdf);

    RUN(cookie_round_trips_through_mint_and_check);
    RUN(cookie_rejects_each_tampered_field);
    RUN(cookie_rejects_any_single_character_change);
    RUN(cookie_rejects_spliced_user_and_iat);
    RUN(cookie_signed_fields_helper_produces_valid_cookies);
    RUN(cookie_rejects_non_canonical_fields_even_when_maced);
    RUN(cookie_rejects_non_canonical_mac);
    RUN(cookie_rejects_wrong_field_counts);
    RUN(cookie_refuses_values_over_4096_bytes_first);
    RUN(cookie_parse_zeroes_out_on_failure);
    RUN(cookie_rejects_unknown_kid);
    RUN(cookie_rejects_a_mac_from_another_secret_with_same_kid);
    RUN(cookie_time_checks_follow_the_table);
    RUN(cookie_time_checks_do_not_overflow);
    RUN(cookie_rejects_wrong_scope_and_address);
    RUN(cookie_key_rotation_keeps_old_cookies_until_removal);
    RUN(cookie_mint_refuses_bad_input);
    RUN(cookie_expiry_never_passes_max_age);
    RUN(cookie_needs_refresh_boundaries);
    RUN(cookie_refresh_keeps_iat_and_auth_within_max_age);

    RUN(store_setup);
    RUN(verify_accepts_a_login_cookie);
    RUN(verify_refuses_an_unknown_user);
    RUN(verify_refuses_a_disabled_user);
    RUN(verify_refuses_cookies_issued_before_revocation);
    RUN(verify_refuses_a_wrong_auth);
    RUN(verify_refuses_forgeries_from_key_and_database);
    RUN(verify_password_change_kills_old_cookies);
    RUN(verify_checks_in_the_spec_order);
    RUN(explain_records_every_step);
    RUN(format2_remember_and_old_format);
    RUN(seals_and_the_switch);
    RUN(store_teardown);

    apr_pool_destroy(pool);
    apr_terminate();
    return hsc_test_done();
}
