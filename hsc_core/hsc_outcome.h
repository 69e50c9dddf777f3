/*
 * hsc_outcome.h: how a login or a cookie check ended, by class, and the
 * labels of the classes. The audit log's "reason" and the metrics'
 * "outcome" are these labels: one list, here, unit-tested
 * (test/unit/test_outcome.c) against docs/audit-log.md.
 */
#ifndef HSC_OUTCOME_H
#define HSC_OUTCOME_H

#include <stddef.h>

#include "hsc_cookie.h"
#include "hsc_util.h"

/* How a login ended (label "outcome" of hsc_login_attempts_total, and
 * "reason" of a failed login in the audit log). An unknown user and a
 * wrong password are one outcome, there as on the wire. */
typedef enum {
    HSC_LOGIN_SUCCESS,
    HSC_LOGIN_BAD_CREDENTIALS, /* unknown user, wrong password, bad form */
    HSC_LOGIN_DISABLED,
    HSC_LOGIN_THROTTLED,   /* 429: a failed-login counter is full */
    HSC_LOGIN_KDF_CAP,     /* 503: HSCMaxLoginKDF checks running */
    HSC_LOGIN_STORE_FAULT, /* 503: the user database cannot answer */
    HSC_LOGIN_ERROR,       /* 500: OpenSSL or a cookie rule failed */
    HSC_LOGIN_FACTOR_DUE,  /* the password was right; a second factor is
                            * due (a pending cookie, 303 to its step) */
    HSC_LOGIN_BAD_CODE,    /* a wrong, used or replayed second-factor code */
    HSC_LOGIN_NO_FACTOR,   /* HSCSecondFactor required; the user has none */
    HSC_LOGIN_OUTCOMES
} hsc_login_outcome_t;

/* How a login step was tried (labels step and method of
 * hsc_login_attempts_total; method of the audit line). */
typedef enum {
    HSC_METHOD_PWD,  /* the password step */
    HSC_METHOD_OTP,  /* a TOTP code at the second-factor step */
    HSC_METHOD_RC,   /* a recovery code there */
    HSC_METHOD_HWK,  /* a passkey: there, or a passwordless login */
    HSC_METHOD_NONE, /* the second-factor step, refused before a code was
                      * read (throttled, or the factors cannot be read) */
    HSC_METHODS
} hsc_method_t;

/* "pwd", "otp", "rc", "hwk", "none". */
const char *hsc_method_name(hsc_method_t m);

/* 1 when outcome o can happen at a step tried as m (the metrics list only
 * those pairs). */
int hsc_method_outcome_possible(hsc_method_t m, hsc_login_outcome_t o);

/* Refused cookies, by class (label "outcome" of hsc_cookie_checks_total,
 * "reason" in the audit log); HSC_COOKIE_OK is a verified cookie. */
typedef enum {
    HSC_COOKIE_OK,
    HSC_COOKIE_MALFORMED,
    HSC_COOKIE_DUPLICATE,
    HSC_COOKIE_UNKNOWN_KID,
    HSC_COOKIE_BAD_MAC,     /* forged, or altered */
    HSC_COOKIE_WRONG_SCOPE, /* a good MAC for another HSCScope */
    HSC_COOKIE_IDLE,        /* expired by the idle timeout */
    HSC_COOKIE_EXPIRED,     /* the login is older than HSCMaxAge */
    HSC_COOKIE_FUTURE,
    HSC_COOKIE_UNKNOWN_USER,
    HSC_COOKIE_DISABLED,
    HSC_COOKIE_REVOKED,
    HSC_COOKIE_BAD_AUTH, /* x_n no longer matches: new password */
    HSC_COOKIE_STORE_FAULT,
    HSC_COOKIE_ERROR,
    HSC_COOKIE_PENDING,    /* second factor due: good at its step only */
    HSC_COOKIE_OLD_FORMAT, /* format 1, refused by HSCCookieFormat1 Off */
    HSC_COOKIE_OUTCOMES
} hsc_cookie_outcome_t;

/**
 * The label of an outcome: the audit log's "reason" and the metrics'
 * "outcome" (docs/audit-log.md, docs/metrics.md: a documented interface).
 * Lower-case ASCII and '_'; "error" for a value out of range.
 */
const char *hsc_login_outcome_name(hsc_login_outcome_t o);
const char *hsc_cookie_outcome_name(hsc_cookie_outcome_t o);

/** The outcome a failed password check's status means. */
hsc_login_outcome_t hsc_login_outcome_of(hsc_status_t st);

/**
 * The class of a cookie that hsc_cookie_verify answered st for. p: the
 * cookie as hsc_cookie_parse read it (zeroed when it did not parse); val,
 * len: the value, checked again under each of the nscopes other HSCScope
 * values configured, so that a good MAC for another scope is told from a
 * forgery (HSC_COOKIE_WRONG_SCOPE). Pure: no store, no clock.
 */
hsc_cookie_outcome_t
hsc_cookie_outcome_of(const hsc_verify_params_t *vp, const char *val,
                      size_t len, hsc_status_t st, const hsc_cookie_t *p,
                      const char *const *scopes, size_t nscopes);

#endif /* HSC_OUTCOME_H */
