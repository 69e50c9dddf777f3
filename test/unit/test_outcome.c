/*
 * test_outcome.c: the classes of login and cookie outcomes and their labels
 * (hsc_outcome.h), which the audit log and the metrics show: every label is
 * distinct, well-formed and in docs/audit-log.md; each status maps to the
 * class the docs give it; a good MAC for another configured scope is told
 * from a forgery.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_general.h>
#include <apr_pools.h>

#include "hsc_test.h"
#include "hsc_outcome.h"

static apr_pool_t *pool;

/* 1 when s is non-empty lower-case ASCII and '_'. */
static int label_ok(const char *s)
{
    if (s == NULL || *s == '\0') {
        return 0;
    }
    for (; *s; ++s) {
        if (!((*s >= 'a' && *s <= 'z') || *s == '_')) {
            return 0;
        }
    }
    return 1;
}

static char *read_doc(const char *name)
{
    char path[512];
    FILE *f;
    char *buf;
    long n;

    snprintf(path, sizeof(path), "%s/%s", HSC_SRCDIR, name);
    if ((f = fopen(path, "rb")) == NULL) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = calloc(1, (size_t)n + 1);
    if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

static void labels_are_distinct_and_documented(void)
{
    char *doc = read_doc("docs/audit-log.md");
    char want[64];
    int i, j;

    CHECK(doc != NULL, "docs/audit-log.md is readable");
    for (i = 0; i < HSC_COOKIE_OUTCOMES; ++i) {
        const char *a = hsc_cookie_outcome_name((hsc_cookie_outcome_t)i);
        int dup = 0;

        for (j = 0; j < i; ++j) {
            dup |= !strcmp(a, hsc_cookie_outcome_name((hsc_cookie_outcome_t)j));
        }
        CHECK(label_ok(a) && !dup, a);
        snprintf(want, sizeof(want), "| `%s` |", a);
        if (i != HSC_COOKIE_OK && i != HSC_COOKIE_ERROR
            && i != HSC_COOKIE_STORE_FAULT) {
            CHECK(doc != NULL && strstr(doc, want) != NULL,
                  "a cookie reason has its row in docs/audit-log.md");
        }
    }
    for (i = 0; i < HSC_LOGIN_OUTCOMES; ++i) {
        const char *a = hsc_login_outcome_name((hsc_login_outcome_t)i);
        int dup = 0;

        for (j = 0; j < i; ++j) {
            dup |= !strcmp(a, hsc_login_outcome_name((hsc_login_outcome_t)j));
        }
        CHECK(label_ok(a) && !dup, a);
        snprintf(want, sizeof(want), "| `%s` |", a);
        if (i != HSC_LOGIN_SUCCESS) {
            CHECK(doc != NULL && strstr(doc, want) != NULL,
                  "a login reason has its row in docs/audit-log.md");
        }
    }
    CHECK_STR(hsc_cookie_outcome_name(
                  (hsc_cookie_outcome_t)HSC_COOKIE_OUTCOMES),
              "error", "a cookie outcome out of range is \"error\"");
    CHECK_STR(hsc_login_outcome_name((hsc_login_outcome_t)-1), "error",
              "a login outcome out of range is \"error\"");
    free(doc);
}

static void statuses_map_to_the_documented_login_classes(void)
{
    CHECK_EQ(hsc_login_outcome_of(HSC_OK), HSC_LOGIN_SUCCESS, "OK");
    CHECK_EQ(hsc_login_outcome_of(HSC_ENOUSER), HSC_LOGIN_BAD_CREDENTIALS,
             "an unknown user is bad_credentials");
    CHECK_EQ(hsc_login_outcome_of(HSC_EAUTH), HSC_LOGIN_BAD_CREDENTIALS,
             "a wrong password is the same bad_credentials");
    CHECK_EQ(hsc_login_outcome_of(HSC_EDISABLED), HSC_LOGIN_DISABLED,
             "disabled");
    CHECK_EQ(hsc_login_outcome_of(HSC_ESTORE), HSC_LOGIN_STORE_FAULT,
             "a store failure");
    CHECK_EQ(hsc_login_outcome_of(HSC_ECRYPTO), HSC_LOGIN_ERROR, "OpenSSL");
}

#define SECRET "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8"
#define T0 1800000000

static void every_method_has_a_name_and_its_outcomes(void)
{
    int m, o, listed;

    CHECK_STR(hsc_method_name(HSC_METHOD_PWD), "pwd", "the password: pwd");
    CHECK_STR(hsc_method_name(HSC_METHOD_OTP), "otp", "TOTP: otp (RFC 8176)");
    CHECK_STR(hsc_method_name(HSC_METHOD_RC), "rc", "a recovery code: rc");
    CHECK_STR(hsc_method_name(HSC_METHOD_HWK), "hwk", "a passkey: hwk");
    CHECK_STR(hsc_method_name(HSC_METHODS), "none", "out of range: none");
    for (m = 0; m < HSC_METHODS; m++) {
        listed = 0;
        for (o = 0; o < HSC_LOGIN_OUTCOMES; o++) {
            listed += hsc_method_outcome_possible((hsc_method_t)m,
                                                  (hsc_login_outcome_t)o);
        }
        CHECK(listed > 0, hsc_method_name((hsc_method_t)m));
    }
    CHECK(!hsc_method_outcome_possible(HSC_METHOD_PWD, HSC_LOGIN_BAD_CODE),
          "no bad_code at the password step");
    CHECK(!hsc_method_outcome_possible(HSC_METHOD_OTP,
                                       HSC_LOGIN_BAD_CREDENTIALS),
          "no bad_credentials at the code step");
    CHECK(hsc_method_outcome_possible(HSC_METHOD_RC, HSC_LOGIN_BAD_CODE)
              && hsc_method_outcome_possible(HSC_METHOD_OTP, HSC_LOGIN_SUCCESS),
          "a code succeeds or is refused");
}

static void cookie_classes_tell_scopes_and_ages_apart(void)
{
    hsc_keyring_t *kr = NULL;
    const char *msg = NULL;
    const char *scopes[] = {"", "app", "wiki"};
    unsigned char xn[HSC_XN_LEN];
    char val[HSC_COOKIE_VALUE_MAX];
    size_t n = 0;
    hsc_verify_params_t vp;
    hsc_cookie_t p;

    memset(xn, 7, sizeof(xn));
    memset(&p, 0, sizeof(p));
    memset(&vp, 0, sizeof(vp)); /* format 2's fields: off */
    CHECK_EQ(hsc_keyring_parse(pool, "t", "k1 " SECRET "\n",
                               strlen("k1 " SECRET "\n"), &kr, &msg),
             HSC_OK, "a key ring");
    CHECK_EQ(hsc_cookie_mint(hsc_keyring_find(kr, "k1", 2), "alice", 5, T0,
                             T0 + 60, xn, "wiki", "", val, sizeof(val), &n),
             HSC_OK, "a cookie of the scope wiki");
    vp.keys = kr;
    vp.scope = "app";
    vp.address = "";
    vp.now = T0 + 1;
    vp.skew = 60;
    vp.max_age = 3600;
    CHECK_EQ(hsc_cookie_outcome_of(&vp, val, n, HSC_EBADMAC, &p, scopes, 3),
             HSC_COOKIE_WRONG_SCOPE,
             "its MAC is good under another configured scope: wrong_scope");
    CHECK_EQ(hsc_cookie_outcome_of(&vp, val, n, HSC_EBADMAC, &p, scopes, 2),
             HSC_COOKIE_BAD_MAC, "no configured scope fits it: bad_mac");
    val[n - 1] = val[n - 1] == 'A' ? 'B' : 'A';
    CHECK_EQ(hsc_cookie_outcome_of(&vp, val, n, HSC_EBADMAC, &p, scopes, 3),
             HSC_COOKIE_BAD_MAC, "an altered MAC fits no scope: bad_mac");
    p.iat = T0;
    p.exp = T0 + 60;
    CHECK_EQ(hsc_cookie_outcome_of(&vp, val, n, HSC_EEXPIRED, &p, NULL, 0),
             HSC_COOKIE_IDLE, "expired before the max age: idle");
    p.exp = T0 + 3600;
    CHECK_EQ(hsc_cookie_outcome_of(&vp, val, n, HSC_EEXPIRED, &p, NULL, 0),
             HSC_COOKIE_EXPIRED, "exp at iat + max age: expired");
    CHECK_EQ(hsc_cookie_outcome_of(&vp, val, n, HSC_EMAXAGE, &p, NULL, 0),
             HSC_COOKIE_EXPIRED, "older than the max age: expired");
    CHECK_EQ(hsc_cookie_outcome_of(&vp, val, n, HSC_EREVOKED, &p, NULL, 0),
             HSC_COOKIE_REVOKED, "revoked");
    CHECK_EQ(hsc_cookie_outcome_of(&vp, val, n, HSC_ENOKEY, &p, NULL, 0),
             HSC_COOKIE_UNKNOWN_KID, "unknown_kid");
    CHECK_EQ(hsc_cookie_outcome_of(&vp, val, n, HSC_EMALFORMED, &p, NULL, 0),
             HSC_COOKIE_MALFORMED, "malformed");
    CHECK_EQ(hsc_cookie_outcome_of(&vp, val, n, HSC_ESTORE, &p, NULL, 0),
             HSC_COOKIE_STORE_FAULT, "store_fault");
}

int main(void)
{
    apr_initialize();
    apr_pool_create(&pool, NULL);
    RUN(labels_are_distinct_and_documented);
    RUN(statuses_map_to_the_documented_login_classes);
    RUN(cookie_classes_tell_scopes_and_ages_apart);
    RUN(every_method_has_a_name_and_its_outcomes);
    apr_pool_destroy(pool);
    apr_terminate();
    return hsc_test_done();
}
