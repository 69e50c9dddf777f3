/*
 * mod_hsc_login.h: the hsc-login and hsc-logout handlers (mod_hsc_login.c).
 */
#ifndef MOD_HSC_LOGIN_H
#define MOD_HSC_LOGIN_H

#include "apr_pools.h"

#include "httpd.h"

#include "hsc_http.h"
#include "mod_hsc_config.h"

/* SetHandler hsc-login and SetHandler hsc-logout. */
void hsc_login_register_hooks(apr_pool_t *p);

/* How a password login went (hsc_login_password). */
typedef enum {
    HSC_LOGIN_RESULT_OK,          /* the cookie is set */
    HSC_LOGIN_RESULT_PENDING,     /* a pending cookie is set: a second
                                   * factor is due at the login page */
    HSC_LOGIN_RESULT_FAILED,      /* wrong or unknown name or password, or
                                   * fields missing: one answer for all */
    HSC_LOGIN_RESULT_NO_FACTOR,   /* HSCSecondFactor required, none: 403 */
    HSC_LOGIN_RESULT_SETUP,       /* the same with HSCAccountURL: a pending
                                   * cookie is set, to set one up there */
    HSC_LOGIN_RESULT_THROTTLED,   /* 429, *retry_after */
    HSC_LOGIN_RESULT_BUSY,        /* HSCMaxLoginKDF: 503, *retry_after */
    HSC_LOGIN_RESULT_UNAVAILABLE, /* the store or the throttle: 503 */
    HSC_LOGIN_RESULT_ERROR,       /* no key file, no cookie minted: 500 */
    HSC_LOGIN_RESULT_NO_LOGIN     /* hsc_login_code: no pending cookie or
                                   * login for the code (expired, done) */
} hsc_login_result_t;

/*
 * A login with f's username, password and remember fields: the attempt
 * (hsc_attempt_login: throttle, KDF cap, check, timing pad), the cookie
 * minted and set, the log lines, the audit line and the metrics. The
 * caller answers (the login page, or hsc-api's JSON).
 */
hsc_login_result_t hsc_login_password(request_rec *r, const hsc_srv_conf_t *sc,
                                      const hsc_dir_conf_t *d,
                                      const hsc_login_form_t *f,
                                      apr_int64_t *retry_after);

/*
 * The second-factor step: code (a TOTP or a recovery code, as typed) for
 * the request's pending cookie, or a full login's (step-up). A right one
 * re-issues the cookie as hsc-v2.md says: the same iat, gen, lid and x_n,
 * the method's bit instead of pending, mfa_at = now, the expiry of a login
 * from iat. hsc_factor_check counts, logs and audits the code. *user: the
 * login's user (NULL without one). OK, NO_LOGIN, FAILED (a wrong or used
 * code), THROTTLED (*retry_after), UNAVAILABLE or ERROR.
 */
hsc_login_result_t hsc_login_code(request_rec *r, const hsc_srv_conf_t *sc,
                                  const hsc_dir_conf_t *d, const char *code,
                                  size_t code_len, const char **user,
                                  apr_int64_t *retry_after);

/* How a logout went (hsc_logout). */
typedef enum {
    HSC_LOGOUT_RESULT_DONE,        /* this cookie cleared */
    HSC_LOGOUT_RESULT_REVOKED,     /* and every session revoked */
    HSC_LOGOUT_RESULT_READONLY,    /* cleared; the revocation refused: the
                                    * store is read-only */
    HSC_LOGOUT_RESULT_NOT_REVOKED, /* cleared; the revocation failed */
    HSC_LOGOUT_RESULT_ERROR        /* no cookie could be set: 500 */
} hsc_logout_result_t;

/* Log out: the cookie cleared; everywhere 1: the user's sessions revoked
 * (when the cookie verifies). Logged and reported; the caller answers. */
hsc_logout_result_t hsc_logout(request_rec *r, const hsc_srv_conf_t *sc,
                               const hsc_dir_conf_t *d, int everywhere);

#endif /* MOD_HSC_LOGIN_H */
