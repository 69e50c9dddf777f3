/*
 * mod_hsc_login_pad.h: every failed login takes as long as the dummy
 * KDF (mod_hsc_login_pad.c), whatever the user's KDF, so that timing
 * does not tell which names exist. For mod_hsc_attempt.c's login attempt.
 */
#ifndef MOD_HSC_LOGIN_PAD_H
#define MOD_HSC_LOGIN_PAD_H

#include "httpd.h"
#include "mod_hsc_config.h"

/* After a password check that took `took` and ended in st: an unknown
 * user's check (the dummy ran) is a new sample of the pad; any refusal
 * (wrong password, unknown, disabled, KDF over the ceilings) then sleeps
 * until the pad has passed. Successes and faults return at once. */
void hsc_login_pad(request_rec *r, const hsc_srv_conf_t *sc, hsc_status_t st,
                   apr_time_t took);

/* post_config: each HSCDummyKDF's cost, measured once per (re)start. */
void hsc_login_pad_register_hooks(apr_pool_t *p);

#endif /* MOD_HSC_LOGIN_PAD_H */
