/*
 * hsc_outcome.c: the classes of login and cookie outcomes and their labels
 * (hsc_outcome.h).
 */
#include <string.h>

#include "hsc_outcome.h"

static const char *const login_reasons[HSC_LOGIN_OUTCOMES] =
    {"success",     "bad_credentials", "disabled",   "throttled", "kdf_cap",
     "store_fault", "error",           "factor_due", "bad_code",  "no_factor"};

static const char *const cookie_reasons[HSC_COOKIE_OUTCOMES] =
    {"ok",          "malformed", "duplicate", "unknown_kid", "bad_mac",
     "wrong_scope", "idle",      "expired",   "future",      "unknown_user",
     "disabled",    "revoked",   "bad_auth",  "store_fault", "error",
     "pending",     "old_format"};

static const char *const method_names[HSC_METHODS] = {"pwd", "otp", "rc", "hwk",
                                                      "none"};

const char *hsc_method_name(hsc_method_t m)
{
    return (unsigned)m < HSC_METHODS ? method_names[m] : "none";
}

int hsc_method_outcome_possible(hsc_method_t m, hsc_login_outcome_t o)
{
    switch (m) {
    case HSC_METHOD_PWD: return o != HSC_LOGIN_BAD_CODE;
    case HSC_METHOD_OTP:
    case HSC_METHOD_RC:
    case HSC_METHOD_HWK:
        return o == HSC_LOGIN_SUCCESS || o == HSC_LOGIN_BAD_CODE
               || o == HSC_LOGIN_STORE_FAULT;
    case HSC_METHOD_NONE:
        return o == HSC_LOGIN_THROTTLED || o == HSC_LOGIN_STORE_FAULT;
    default: return 0;
    }
}

const char *hsc_login_outcome_name(hsc_login_outcome_t o)
{
    return (unsigned)o < HSC_LOGIN_OUTCOMES ? login_reasons[o] : "error";
}

const char *hsc_cookie_outcome_name(hsc_cookie_outcome_t o)
{
    return (unsigned)o < HSC_COOKIE_OUTCOMES ? cookie_reasons[o] : "error";
}

hsc_login_outcome_t hsc_login_outcome_of(hsc_status_t st)
{
    switch (st) {
    case HSC_OK: return HSC_LOGIN_SUCCESS;
    case HSC_EDISABLED: return HSC_LOGIN_DISABLED;
    case HSC_ESTORE:
    case HSC_ENOMEM: return HSC_LOGIN_STORE_FAULT;
    case HSC_ECRYPTO: return HSC_LOGIN_ERROR;
    default: return HSC_LOGIN_BAD_CREDENTIALS; /* ENOUSER, EAUTH, EINVAL, ... */
    }
}

/* 1 when the cookie's MAC is good under another of the scopes. */
static int other_scope(const hsc_verify_params_t *vp, const char *val,
                       size_t len, const char *const *scopes, size_t n)
{
    hsc_verify_params_t v2 = *vp;
    hsc_cookie_t c;
    size_t i;
    int found = 0;

    memset(&c, 0, sizeof(c));
    for (i = 0; scopes != NULL && i < n && !found; ++i) {
        v2.scope = scopes[i];
        if (!strcmp(v2.scope, vp->scope ? vp->scope : "")) {
            continue;
        }
        found = hsc_cookie_check(&v2, val, len, &c) != HSC_EBADMAC;
    }
    hsc_wipe(&c, sizeof(c));
    return found;
}

hsc_cookie_outcome_t
hsc_cookie_outcome_of(const hsc_verify_params_t *vp, const char *val,
                      size_t len, hsc_status_t st, const hsc_cookie_t *p,
                      const char *const *scopes, size_t nscopes)
{
    switch (st) {
    case HSC_OK: return HSC_COOKIE_OK;
    case HSC_ENOKEY: return HSC_COOKIE_UNKNOWN_KID;
    case HSC_EBADMAC:
        return other_scope(vp, val, len, scopes, nscopes)
                   ? HSC_COOKIE_WRONG_SCOPE
                   : HSC_COOKIE_BAD_MAC;
    case HSC_EEXPIRED:
        /* exp reached iat + HSCMaxAge: the login's end, not idleness. */
        return p->exp != 0 && p->exp - p->iat >= vp->max_age
                   ? HSC_COOKIE_EXPIRED
                   : HSC_COOKIE_IDLE;
    case HSC_EMAXAGE: return HSC_COOKIE_EXPIRED;
    case HSC_EFUTURE: return HSC_COOKIE_FUTURE;
    case HSC_ENOUSER: return HSC_COOKIE_UNKNOWN_USER;
    case HSC_EDISABLED: return HSC_COOKIE_DISABLED;
    case HSC_EREVOKED: return HSC_COOKIE_REVOKED;
    case HSC_EAUTH: return HSC_COOKIE_BAD_AUTH;
    case HSC_EPENDING: return HSC_COOKIE_PENDING;
    case HSC_EOLDFORMAT: return HSC_COOKIE_OLD_FORMAT;
    case HSC_ESTORE:
    case HSC_ENOMEM: return HSC_COOKIE_STORE_FAULT;
    case HSC_ECRYPTO: return HSC_COOKIE_ERROR;
    default: return HSC_COOKIE_MALFORMED;
    }
}
