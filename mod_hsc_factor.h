/*
 * mod_hsc_factor.h: the second-factor step of a login (mod_hsc_factor.c):
 * whether a login owes a factor, and checking a code.
 */
#ifndef MOD_HSC_FACTOR_H
#define MOD_HSC_FACTOR_H

#include "httpd.h"

#include "hsc_store.h"
#include "mod_hsc_config.h"

/* What a right password leads to (hsc_factor_due). */
typedef enum {
    HSC_FACTOR_NOT_DUE, /* mint the login's cookie */
    HSC_FACTOR_DUE,     /* mint a pending cookie: the code step follows */
    HSC_FACTOR_MISSING, /* HSCSecondFactor required and the user has none */
    HSC_FACTOR_FAULT    /* the factors cannot be read (logged): 503 */
} hsc_factor_due_t;

/* After user u's right password at a location of d. */
hsc_factor_due_t hsc_factor_due(request_rec *r, const hsc_srv_conf_t *sc,
                                const hsc_dir_conf_t *d, const hsc_user_t *u);

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

#endif /* MOD_HSC_FACTOR_H */
