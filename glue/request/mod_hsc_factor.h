/*
 * mod_hsc_factor.h: the second-factor step of a login (mod_hsc_factor.c):
 * whether a login owes a factor, and checking a code.
 */
#ifndef MOD_HSC_FACTOR_H
#define MOD_HSC_FACTOR_H

#include "httpd.h"

#include "hsc_cookie.h"
#include "hsc_factors.h"
#include "hsc_store.h"
#include "mod_hsc_config.h"

/* What a right password leads to (hsc_factor_due). */
typedef enum {
    HSC_FACTOR_NOT_DUE, /* mint the login's cookie */
    HSC_FACTOR_DUE,     /* mint a pending cookie: the code step follows */
    HSC_FACTOR_MISSING, /* HSCSecondFactor required and the user has none */
    HSC_FACTOR_FAULT    /* the factors cannot be read (logged): 503 */
} hsc_factor_due_t;

/* After user u's right password at a location of d: DUE whenever u has
 * a second factor, whatever d says (a factor belongs to the user, at
 * every door); MISSING where d requires one and u has none. */
hsc_factor_due_t hsc_factor_due(request_rec *r, const hsc_srv_conf_t *sc,
                                const hsc_dir_conf_t *d, const hsc_user_t *u);

/* This request's factor handle (readonly: no writes, no state file),
 * closed with its pool; NULL (logged, HSC193) when the factors cannot be
 * read: the caller fails closed. */
hsc_factors_t *hsc_factor_open(request_rec *r, const hsc_srv_conf_t *sc,
                               int readonly);

/* What user has enrolled, without the sealed secret (wiped): 0, or -1
 * (logged) when the factors cannot be read. */
int hsc_factor_info(request_rec *r, const hsc_srv_conf_t *sc, const char *user,
                    hsc_factor_info_t *fi);

/* 1 when user has a second factor to use (step-up), 0 when none, -1 when
 * the factors cannot be read (logged). */
int hsc_factor_has(request_rec *r, const hsc_srv_conf_t *sc, const char *user);

typedef enum {
    HSC_FACTOR_CHECK_OK,        /* *amr: the method's bit */
    HSC_FACTOR_CHECK_REFUSED,   /* wrong, used or replayed: 401 */
    HSC_FACTOR_CHECK_THROTTLED, /* *retry_after: 429 */
    HSC_FACTOR_CHECK_FAULT      /* the factors or the throttle are down: 503 */
} hsc_factor_result_t;

/* Check code (a TOTP code or a recovery code, as typed) for user, counted
 * by the login throttle; logged and audited here. */
hsc_factor_result_t hsc_factor_check(request_rec *r, const hsc_srv_conf_t *sc,
                                     hsc_store_t *store, const char *user,
                                     const char *code, size_t code_len,
                                     unsigned *amr, apr_int64_t *retry_after);

/* May a session change what proves its user (a factor, the password, an
 * app password)? A user who has a second factor needs a cookie carrying
 * one used within recent seconds: the password alone never lowers what
 * the user set up. */
typedef enum {
    HSC_FACTOR_GATE_NO_FACTOR, /* the user has none: the caller's own rule */
    HSC_FACTOR_GATE_FRESH,     /* c carries a factor used recently enough */
    HSC_FACTOR_GATE_NEEDED,    /* the user has one; c lacks it (logged) */
    HSC_FACTOR_GATE_FAULT      /* the factors cannot be read (logged) */
} hsc_factor_gate_t;

/* 1 when c carries a second factor used at most recent seconds ago. */
int hsc_factor_fresh(request_rec *r, const hsc_cookie_t *c, apr_int64_t recent);

hsc_factor_gate_t hsc_factor_gate(request_rec *r, const hsc_srv_conf_t *sc,
                                  const hsc_cookie_t *c, const char *user,
                                  const char *action, apr_int64_t recent);

/* Registers Require hsc-factor and the answer to a denial it causes. */
/* 1 when user has a passkey, 0 when none, -1 when they cannot be read
 * (logged at level). */
int hsc_factor_passkeys(request_rec *r, hsc_factors_t *f, const char *user,
                        int level);

void hsc_factor_register_hooks(apr_pool_t *p);

/* HSCMaxAuthAge, at check_authn: OK, or the answer to a login whose
 * password is older (303 to HSCLoginURL for a browser, else 401 with
 * WWW-Authenticate: HSC error="insufficient_authentication"). */
int hsc_factor_auth_too_old(request_rec *r, const hsc_dir_conf_t *d,
                            int64_t iat);

/* At the login page: a GET that httpd's error path made for a second
 * factor that falls short answers 303 to itself (so the browser's
 * address is the login page's); DECLINED for any other request. */
int hsc_factor_stepup_redirect(request_rec *r);

#endif /* MOD_HSC_FACTOR_H */
