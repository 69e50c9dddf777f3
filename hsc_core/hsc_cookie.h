/*
 * hsc_cookie.h: cookies of formats 1 (hsc-v1.md) and 2 (hsc-v2.md): mint,
 * parse, verify, refresh.
 *
 *   1.<kid>.<user>.<iat>.<exp>.<auth>.<mac>
 *   2.<kid>.<user>.<iat>.<exp>.<gen>.<lid>.<amr>.<mfa_at>.<auth>.<mac>
 *   mac = HMAC-SHA256(K, <value up to the last '.'> \n <scope> \n <address>)
 *
 * Nothing here allocates; all buffers are the caller's.
 */
#ifndef HSC_COOKIE_H
#define HSC_COOKIE_H

#include "hsc_util.h"
#include "hsc_keys.h"
#include "hsc_store.h"

/** Longest value we ever mint (format 2 with a 255-byte name and a
 * seal: 2 + kid + 340 + 4 x 19 + 11 + 3 + 86 + 43 + 10 dots). */
#define HSC_COOKIE_VALUE_MAX 640

/** Bytes of a login id (format 2's lid). */
#define HSC_LID_LEN 8
/** Bytes of z, a passkey's PRF output that seals a cookie (part 2). */
#define HSC_SEAL_LEN 32

/** The amr bits of format 2 (hsc-v2.md, "The cookie value"). */
#define HSC_AMR_PWD 1u
#define HSC_AMR_OTP 2u
#define HSC_AMR_HWK 4u
#define HSC_AMR_UV 8u
#define HSC_AMR_RC 16u
#define HSC_AMR_SEAL 32u
#define HSC_AMR_PENDING 64u
#define HSC_AMR_REM 128u
#define HSC_AMR_ALL 255u
/** The bits that are a second factor: mfa_at is set exactly with one. */
#define HSC_AMR_FACTOR (HSC_AMR_OTP | HSC_AMR_HWK | HSC_AMR_RC)

/** What a pending cookie may live at most unless told (seconds). */
#define HSC_PENDING_TIMEOUT_DEFAULT 300

/** A parsed cookie. Only syntax has been checked. A format 1 cookie reads
 * as amr = pwd, gen = -1 (none), lid all zero, mfa_at = 0. */
typedef struct {
    int format; /* 1 or 2 */
    char kid[HSC_KID_MAX + 1];
    size_t kid_len;
    char user[HSC_USER_MAX + 1]; /* decoded, NUL-terminated */
    size_t user_len;
    int64_t iat, exp;
    int64_t gen;    /* format 2: the user's gen when minted; format 1: -1 */
    unsigned amr;   /* HSC_AMR_* bits */
    int64_t mfa_at; /* the latest second factor, or 0 */
    unsigned char lid[HSC_LID_LEN];
    /* x_n when pwd, then z when seal: secrets, wipe after use */
    unsigned char auth[HSC_XN_LEN + HSC_SEAL_LEN];
    size_t auth_len; /* 32 or 64 */
    unsigned char mac[HSC_MAC_LEN];
    size_t signed_len; /* bytes of the value before its last '.' */
} hsc_cookie_t;

/** What a format 2 cookie says, for minting one. */
typedef struct {
    const char *user;
    size_t user_len;
    int64_t iat, exp;
    int64_t gen;              /* >= 0 */
    const unsigned char *lid; /* HSC_LID_LEN bytes */
    unsigned amr;
    int64_t mfa_at;
    const unsigned char *xn; /* HSC_XN_LEN bytes when amr has pwd */
    const unsigned char *z;  /* HSC_SEAL_LEN bytes when amr has seal */
} hsc_claims_t;

/** What a verification checks against. */
typedef struct {
    const hsc_keyring_t *keys;
    const char *scope;   /* "" or NULL for none */
    const char *address; /* client address when bound, else "" or NULL */
    int64_t now;         /* Unix seconds */
    int64_t skew;        /* seconds iat may lie in the future */
    int64_t max_age;     /* absolute lifetime of a login, seconds */
    int refuse_format1;  /* 1: a genuine format 1 cookie is HSC_EOLDFORMAT */
    int allow_pending;   /* 1 only at the second-factor step */
    int64_t pending_timeout; /* exp - iat bound of a pending cookie; 0:
                              * HSC_PENDING_TIMEOUT_DEFAULT */
    int64_t remember;        /* max age of a rem cookie (HSCRememberMe); 0:
                              * max_age, as for any other */
} hsc_verify_params_t;

/**
 * Step 1: syntax. value is len bytes (not necessarily NUL-terminated);
 * over HSC_COOKIE_MAX is HSC_ETOOLONG without further work. Format 1:
 * exactly seven fields; format 2: eleven, amr within HSC_AMR_ALL with pwd
 * or seal, seal only with hwk, auth as long as pwd and seal say. Each
 * field has its alphabet, length and canonical form; the username must be
 * valid (hsc_username_valid) and exp > iat. Returns HSC_OK or
 * HSC_EMALFORMED / HSC_ETOOLONG; out is zeroed on failure.
 */
hsc_status_t hsc_cookie_parse(const char *value, size_t len,
                              hsc_cookie_t *out) HSC_MUST_CHECK;

/**
 * Steps 1-4: syntax, key, MAC (constant time), time. Needs no store.
 * A genuine format 1 cookie is HSC_EOLDFORMAT after its MAC when
 * vp->refuse_format1. Format 2's time step also checks mfa_at (0 exactly
 * without a second factor, else iat <= mfa_at <= now + skew) and a
 * pending cookie's short life. out receives the parsed cookie (zeroed on
 * failure).
 */
hsc_status_t hsc_cookie_check(const hsc_verify_params_t *vp, const char *value,
                              size_t len, hsc_cookie_t *out) HSC_MUST_CHECK;

/**
 * Steps 5-7 on a cookie that passed hsc_cookie_check(): the user exists,
 * is not disabled, was not revoked since (format 1: iat >= revoked_before;
 * format 2: gen equal), SHA-256(x_n) == v (constant time) when pwd,
 * SHA-256(z) equal to one of user->seals when seal (each compared in
 * constant time, no early exit; a seal with none in the row is
 * HSC_EAUTH), every cookie without seal HSC_EAUTH where the row requires
 * the seal (hsc_user_seal_required) but a pending one, and a pending
 * cookie only where vp->allow_pending (else HSC_EPENDING). *user is filled by
 * the store (see hsc_store.h for lifetimes).
 */
hsc_status_t hsc_cookie_check_user(const hsc_verify_params_t *vp,
                                   const hsc_cookie_t *c, hsc_store_t *store,
                                   hsc_user_t *user) HSC_MUST_CHECK;

/** All the steps, in the spec's order. */
hsc_status_t hsc_cookie_verify(const hsc_verify_params_t *vp,
                               hsc_store_t *store, const char *value,
                               size_t len, hsc_cookie_t *out,
                               hsc_user_t *user) HSC_MUST_CHECK;

/** The steps of verification (hsc-v1.md, hsc-v2.md), numbered as the
 * specs do. */
typedef enum {
    HSC_STEP_SYNTAX = 1,
    HSC_STEP_KEY,
    HSC_STEP_MAC,
    HSC_STEP_TIME,
    HSC_STEP_USER,
    HSC_STEP_AUTH,
    HSC_STEP_PENDING, /* format 2: a pending cookie outside its step */
    HSC_STEP_COUNT = HSC_STEP_PENDING
} hsc_step_t;

typedef enum {
    HSC_STEP_NOT_CHECKED = 0, /* an earlier step it needs failed, or no
                               * store was given (steps 5-6) */
    HSC_STEP_PASS,
    HSC_STEP_FAIL
} hsc_step_verdict_t;

/** What hsc_cookie_explain found, step by step. */
typedef struct {
    hsc_step_verdict_t verdict[HSC_STEP_COUNT + 1]; /* [1..7] */
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
 * Mint a format 2 value from *cl, with the same output contract as
 * hsc_cookie_mint(). Refuses (HSC_EINVAL) what a verifier would refuse by
 * syntax: bits outside HSC_AMR_ALL, neither pwd nor seal, seal without
 * hwk, a missing xn or z, mfa_at set without a second factor or the
 * reverse, or mfa_at < iat.
 */
hsc_status_t hsc_cookie_mint2(const hsc_key_t *key, const hsc_claims_t *cl,
                              const char *scope, const char *address, char *out,
                              size_t outcap, size_t *outlen) HSC_MUST_CHECK;

/** Bytes of a login id as text (base64url of HSC_LID_LEN bytes, NUL). */
#define HSC_LOGIN_ID_SIZE 12

/** The login id of c as text into out: base64url for format 2, "" for
 * format 1 (which has none). */
void hsc_login_id_text(const hsc_cookie_t *c, char out[HSC_LOGIN_ID_SIZE]);

/** The max age that applies to c: vp->remember for a remembered login
 * where that is set, else vp->max_age. */
int64_t hsc_cookie_max_age(const hsc_verify_params_t *vp,
                           const hsc_cookie_t *c);

/** The claims of a parsed format 2 cookie (pointers into *c). */
void hsc_cookie_claims(const hsc_cookie_t *c, hsc_claims_t *cl);

/**
 * The names of amr's methods (the spec's, which are RFC 8176's where one
 * exists), space-separated, into buf (at least HSC_AMR_NAMES_MAX bytes):
 * "pwd", "pwd otp mfa", "hwk uv seal mfa". "mfa" (RFC 8176) follows when
 * a second factor joined the password or a verified passkey; pending and
 * rem are no methods and are left out.
 */
#define HSC_AMR_NAMES_MAX 40
void hsc_amr_names(unsigned amr, char *buf);

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
 * Re-issue a verified cookie in its own format with the signing key of
 * vp->keys, every field the same but exp = hsc_cookie_expiry(c->iat,
 * vp->now, idle, vp->max_age). A pending cookie is never refreshed
 * (HSC_EPENDING). Same output contract as hsc_cookie_mint().
 */
hsc_status_t hsc_cookie_refresh(const hsc_verify_params_t *vp,
                                const hsc_cookie_t *c, int64_t idle, char *out,
                                size_t outcap, size_t *outlen) HSC_MUST_CHECK;

#endif /* HSC_COOKIE_H */
