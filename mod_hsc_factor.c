/*
 * mod_hsc_factor.c: the second-factor step of a login (HSCSecondFactor;
 * docs/second-factors.md, hsc-v2.md "Issuing").
 *
 * After a right password, a user who owes a second factor gets a pending
 * cookie (amr pwd|pending, valid a few minutes, refused everywhere but
 * here) and a 303 back to the login page, which then shows the code form.
 * A right code (TOTP, or a recovery code in the same field) re-issues the
 * cookie with the same iat, gen, lid and x_n, the method's bit and
 * mfa_at = now. Codes are counted by the login throttle like passwords.
 *
 * The factors are read through their own handle (hsc_factors.h), opened
 * for the request that needs it and closed with its pool: nothing here
 * touches the per-request lookup.
 */
#include <string.h>

#include "apr_strings.h"

#include "httpd.h"
#include "http_log.h"
#include "http_protocol.h"

#include "mod_hsc_factor.h"
#include "mod_hsc_log.h"
#include "mod_hsc_ops.h"
#include "mod_hsc_session.h"
#include "mod_hsc_throttle.h"
#include "mod_hsc_userdb.h"
#include "hsc_factors.h"
#include "hsc_recovery.h"
#include "hsc_seal.h"
#include "hsc_totp.h"

static apr_status_t close_factors(void *f)
{
    hsc_factors_close(f);
    return APR_SUCCESS;
}

/* This request's factor handle, closed with its pool; NULL (logged) when
 * the factors cannot be read: the caller fails closed. */
static hsc_factors_t *factors_open(request_rec *r, const hsc_srv_conf_t *sc)
{
    hsc_factors_t *f = NULL;
    char err[512];

    if (sc->userdb == NULL
        || hsc_factors_open(sc->userdb, 0, &f, err, sizeof(err)) != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(193) "second factors cannot be read: %s",
                      sc->userdb == NULL ? "no HSCUserDB" : err);
        return NULL;
    }
    apr_pool_cleanup_register(r->pool, f, close_factors, apr_pool_cleanup_null);
    return f;
}

hsc_factor_due_t hsc_factor_due(request_rec *r, const hsc_srv_conf_t *sc,
                                const hsc_dir_conf_t *d, const hsc_user_t *u)
{
    hsc_factor_info_t fi;
    hsc_factors_t *f;
    hsc_status_t st;

    if (d->second_factor == HSC_SECOND_FACTOR_OFF) {
        return HSC_FACTOR_NOT_DUE;
    }
    if ((f = factors_open(r, sc)) == NULL) {
        return HSC_FACTOR_FAULT;
    }
    st = hsc_factors_get(f, u->name, &fi);
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(194) "cannot read the second factors of user "
                                    "\"%s\": %s",
                      ap_escape_logitem(r->pool, u->name),
                      hsc_factors_errmsg(f));
        return HSC_FACTOR_FAULT;
    }
    hsc_wipe(fi.sealed, sizeof(fi.sealed));
    if (hsc_factors_any(&fi)) {
        return HSC_FACTOR_DUE;
    }
    return d->second_factor == HSC_SECOND_FACTOR_REQUIRED ? HSC_FACTOR_MISSING
                                                          : HSC_FACTOR_NOT_DUE;
}

/* What a code check needs (hsc_code_check_fn's baton). */
typedef struct {
    const hsc_srv_conf_t *sc;
    hsc_factors_t *f;
    const char *user;
    const char *code; /* as typed */
    size_t code_len;
    unsigned amr;       /* out: HSC_AMR_OTP or HSC_AMR_RC */
    const char *method; /* out: "otp" or "rc" */
    const char *why;    /* out: a refusal's reason, for the log */
} code_check_t;

/* A TOTP code: the window around now, then the replay guard. */
static hsc_status_t check_totp(request_rec *r, code_check_t *k,
                               const hsc_factor_info_t *fi)
{
    unsigned char secret[HSC_TOTP_SECRET_MAX];
    char digits[16];
    size_t n = 0;
    int64_t step = 0, now = (int64_t)apr_time_sec(r->request_time);
    hsc_status_t st;

    if (hsc_totp_code_parse(&fi->params, k->code, k->code_len, digits)
        != HSC_OK) {
        k->why = "not a code of this enrolment's length";
        return HSC_EAUTH;
    }
    st = hsc_unseal(k->sc->keys, "totp", k->user, fi->sealed, fi->sealed_len,
                    secret, sizeof(secret), &n, NULL);
    if (st != HSC_OK) {
        /* A key that sealed it was removed from the key file, or the row
         * was tampered with: this factor cannot be used (fail closed). */
        k->why = "its sealed secret does not open with this key file "
                 "(hsc-admin totp reseal, or a new enrolment)";
        return HSC_EAUTH;
    }
    k->method = "otp";
    st = hsc_totp_check(&fi->params, secret, n, digits, now, 1, -1, &step);
    hsc_wipe(secret, sizeof(secret));
    hsc_wipe(digits, sizeof(digits));
    if (st != HSC_OK) {
        k->why = "wrong TOTP code";
        return st;
    }
    st = hsc_factors_totp_accept(k->f, k->user,
                                 step * (int64_t)fi->params.period);
    if (st == HSC_EAUTH) {
        k->why = "a TOTP code of a step already used (a replay)";
    }
    k->amr = HSC_AMR_OTP;
    return st;
}

/* A recovery code: its hash deleted, once. */
static hsc_status_t check_recovery(code_check_t *k)
{
    char canon[HSC_RECOVERY_CHARS + 1];
    unsigned char h[HSC_RECOVERY_HASH_LEN];
    hsc_status_t st;

    k->method = "rc";
    if (hsc_recovery_normalize(k->code, k->code_len, canon) != HSC_OK) {
        k->why = "neither a TOTP code nor a recovery code";
        return HSC_EAUTH;
    }
    st = hsc_recovery_hash(k->user, canon, h);
    hsc_wipe(canon, sizeof(canon));
    if (st == HSC_OK) {
        st = hsc_factors_recovery_use(k->f, k->user, h);
    }
    if (st == HSC_EAUTH) {
        k->why = "not a recovery code of this user, or one already used";
    }
    k->amr = HSC_AMR_RC;
    return st;
}

/* hsc_code_check_fn: TOTP when the user has it and the field is all
 * digits (and spaces); else a recovery code. */
static hsc_status_t check_code(request_rec *r, void *baton)
{
    code_check_t *k = baton;
    hsc_factor_info_t fi;
    hsc_status_t st;
    size_t digits;

    st = hsc_factors_get(k->f, k->user, &fi);
    if (st != HSC_OK) {
        k->why = hsc_factors_errmsg(k->f);
        return st;
    }
    digits = strspn(k->code, "0123456789 ");
    if (fi.totp == HSC_TOTP_ACTIVE && digits == k->code_len
        && strspn(k->code, " ") < digits) {
        st = check_totp(r, k, &fi);
    }
    else {
        st = check_recovery(k);
    }
    hsc_wipe(fi.sealed, sizeof(fi.sealed));
    return st;
}

hsc_factor_result_t hsc_factor_check(request_rec *r, const hsc_srv_conf_t *sc,
                                     hsc_store_t *store, const char *user,
                                     const char *code, size_t code_len,
                                     unsigned *amr, apr_int64_t *retry_after)
{
    code_check_t k;
    hsc_code_attempt_t a;
    const char *who = ap_escape_logitem(r->pool, user);

    memset(&k, 0, sizeof(k));
    *amr = 0;
    *retry_after = 0;
    if ((k.f = factors_open(r, sc)) == NULL) {
        return HSC_FACTOR_CHECK_FAULT;
    }
    k.sc = sc;
    k.user = user;
    k.code = code;
    k.code_len = code_len;
    memset(&a, 0, sizeof(a));
    a.user = user;
    a.user_len = strlen(user);
    a.check = check_code;
    a.baton = &k;
    switch (hsc_code_attempt(r, sc, store, &a)) {
    case HSC_ATTEMPT_THROTTLED:
    case HSC_ATTEMPT_BUSY:
        *retry_after = a.retry_after;
        return HSC_FACTOR_CHECK_THROTTLED;
    case HSC_ATTEMPT_UNAVAILABLE: return HSC_FACTOR_CHECK_FAULT;
    case HSC_ATTEMPT_CHECKED: break;
    }
    if (a.st == HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(195) "user \"%s\" passed the second factor (%s)",
                      who, k.method);
        hsc_ops_code(r, user, a.user_len, HSC_LOGIN_SUCCESS, k.method,
                     hsc_key_id(hsc_keyring_signer(sc->keys)));
        *amr = k.amr;
        return HSC_FACTOR_CHECK_OK;
    }
    if (hsc_status_class(a.st) == HSC_CLASS_FAULT) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(196) "second factor of user \"%s\" not "
                                    "checked: %s: %s",
                      who, hsc_strerror(a.st),
                      k.why ? k.why : hsc_factors_errmsg(k.f));
        hsc_ops_code(r, user, a.user_len, HSC_LOGIN_STORE_FAULT, k.method,
                     NULL);
        return HSC_FACTOR_CHECK_FAULT;
    }
    ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                  HSCLOGNO(197) "second factor refused for user \"%s\": %s",
                  who, k.why ? k.why : hsc_strerror(a.st));
    hsc_ops_code(r, user, a.user_len, HSC_LOGIN_BAD_CODE, k.method, NULL);
    return HSC_FACTOR_CHECK_REFUSED;
}
