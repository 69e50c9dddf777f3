/*
 * hsc_cookie.h: format 1 cookies (hsc-v1.md): mint, parse, verify, refresh.
 *
 *   1.<kid>.<user>.<iat>.<exp>.<auth>.<mac>
 *   mac = HMAC-SHA256(K, <value up to the last '.'> \n <scope> \n <address>)
 *
 * Nothing here allocates; all buffers are the caller's.
 */
#ifndef HSC_COOKIE_H
#define HSC_COOKIE_H

#include "hsc_util.h"
#include "hsc_keys.h"
#include "hsc_store.h"

/** Longest value we ever mint: 1 + kid + user b64 + 2 times + auth + mac. */
#define HSC_COOKIE_VALUE_MAX 512

/** A parsed cookie. Only syntax has been checked. */
typedef struct {
    char kid[HSC_KID_MAX + 1];
    size_t kid_len;
    char user[HSC_USER_MAX + 1]; /* decoded, NUL-terminated */
    size_t user_len;
    int64_t iat, exp;
    unsigned char auth[HSC_XN_LEN]; /* x_n: a secret, wipe after use */
    unsigned char mac[HSC_MAC_LEN];
    size_t signed_len; /* bytes of the value before its last '.' */
} hsc_cookie_t;

/** What a verification checks against. */
typedef struct {
    const hsc_keyring_t *keys;
    const char *scope;   /* "" or NULL for none */
    const char *address; /* client address when bound, else "" or NULL */
    int64_t now;         /* Unix seconds */
    int64_t skew;        /* seconds iat may lie in the future */
    int64_t max_age;     /* absolute lifetime of a login, seconds */
} hsc_verify_params_t;

/**
 * Step 1: syntax. value is len bytes (not necessarily NUL-terminated);
 * over HSC_COOKIE_MAX is HSC_ETOOLONG without further work. Exactly seven
 * fields, each with its alphabet, length and canonical form; the username
 * must be valid (hsc_username_valid) and exp > iat. Returns HSC_OK or
 * HSC_EMALFORMED / HSC_ETOOLONG; out is zeroed on failure.
 */
hsc_status_t hsc_cookie_parse(const char *value, size_t len,
                              hsc_cookie_t *out) HSC_MUST_CHECK;

/**
 * Steps 1-4: syntax, key, MAC (constant time), time. Needs no store.
 * out receives the parsed cookie (zeroed on failure).
 */
hsc_status_t hsc_cookie_check(const hsc_verify_params_t *vp, const char *value,
                              size_t len, hsc_cookie_t *out) HSC_MUST_CHECK;

/**
 * Steps 5-6 on a cookie that passed hsc_cookie_check(): the user exists,
 * is not disabled, iat >= revoked_before, and SHA-256(auth) == v (constant
 * time). *user is filled by the store (see hsc_store.h for lifetimes).
 */
hsc_status_t hsc_cookie_check_user(const hsc_cookie_t *c, hsc_store_t *store,
                                   hsc_user_t *user) HSC_MUST_CHECK;

/** All six steps, in the spec's order. */
hsc_status_t hsc_cookie_verify(const hsc_verify_params_t *vp,
                               hsc_store_t *store, const char *value,
                               size_t len, hsc_cookie_t *out,
                               hsc_user_t *user) HSC_MUST_CHECK;

/** The six steps of verification (hsc-v1.md), numbered as the spec does. */
typedef enum {
    HSC_STEP_SYNTAX = 1,
    HSC_STEP_KEY,
    HSC_STEP_MAC,
    HSC_STEP_TIME,
    HSC_STEP_USER,
    HSC_STEP_AUTH,
    HSC_STEP_COUNT = HSC_STEP_AUTH
} hsc_step_t;

typedef enum {
    HSC_STEP_NOT_CHECKED = 0, /* an earlier step it needs failed, or no
                               * store was given (steps 5-6) */
    HSC_STEP_PASS,
    HSC_STEP_FAIL
} hsc_step_verdict_t;

/** What hsc_cookie_explain found, step by step. */
typedef struct {
    hsc_step_verdict_t verdict[HSC_STEP_COUNT + 1]; /* [1..6] */
    hsc_status_t why[HSC_STEP_COUNT + 1];           /* a failed step's status */
    hsc_status_t status; /* the verdict: hsc_cookie_verify's (a store) or
                          * hsc_cookie_check's (no store) status */
    int fields;          /* '.'-separated fields of the value */
    hsc_cookie_t cookie; /* when syntax passed: kid, user, iat, exp
                          * (auth and mac are wiped) */
    hsc_user_t user;     /* when step 5 found the user (store-owned
                          * strings; authenticator wiped) */
} hsc_explain_t;

/**
 * The explaining form of hsc_cookie_verify (store NULL: of
 * hsc_cookie_check), for tools: the same checks, but every step that can
 * be checked is, even after an earlier one failed (time after a bad MAC,
 * the user after an expiry), and each step's verdict and status are
 * recorded in *ex. ex->status is the first failure in the spec's order,
 * so it equals what hsc_cookie_verify / hsc_cookie_check returns for the
 * same input; it is also the return value. Slower than verify (it does
 * not stop early): never use it to decide a request.
 */
hsc_status_t hsc_cookie_explain(const hsc_verify_params_t *vp,
                                hsc_store_t *store, const char *value,
                                size_t len, hsc_explain_t *ex) HSC_MUST_CHECK;

/**
 * Mint a value into out (outcap >= HSC_COOKIE_VALUE_MAX), NUL-terminated;
 * *outlen gets its length. Requires a valid username, exp > iat >= 0.
 * Returns HSC_OK, HSC_EINVAL, HSC_ETOOLONG or HSC_ECRYPTO.
 */
hsc_status_t hsc_cookie_mint(const hsc_key_t *key, const char *user,
                             size_t user_len, int64_t iat, int64_t exp,
                             const unsigned char xn[HSC_XN_LEN],
                             const char *scope, const char *address, char *out,
                             size_t outcap, size_t *outlen) HSC_MUST_CHECK;

/**
 * The login time a new cookie gets: max(now, revoked_before), so a login
 * in the second of a revocation (which stores now + 1) is not refused by
 * its own user's revoked_before; at most one second ahead, inside any
 * clock skew allowance (spec, "Login").
 */
int64_t hsc_login_iat(int64_t now, int64_t revoked_before);

/**
 * The expiry a login or refresh gets: min(now + idle, iat + max_age).
 */
int64_t hsc_cookie_expiry(int64_t iat, int64_t now, int64_t idle,
                          int64_t max_age);

/**
 * 1 when a verified cookie should be re-issued: less than half the idle
 * timeout remains and a later exp is possible within the max age.
 */
int hsc_cookie_needs_refresh(const hsc_cookie_t *c, int64_t now, int64_t idle,
                             int64_t max_age);

/**
 * Re-issue a verified cookie with the signing key of vp->keys, the same
 * iat and auth, and exp = hsc_cookie_expiry(c->iat, vp->now, idle,
 * vp->max_age). Same output contract as hsc_cookie_mint().
 */
hsc_status_t hsc_cookie_refresh(const hsc_verify_params_t *vp,
                                const hsc_cookie_t *c, int64_t idle, char *out,
                                size_t outcap, size_t *outlen) HSC_MUST_CHECK;

#endif /* HSC_COOKIE_H */
