/*
 * mod_hsc_throttle.h: login throttling and the per-child KDF cap, the part
 * of the glue that owns them (mod_hsc_throttle.c). The design, the limits
 * and their trade-offs are described once, in docs/throttling.md.
 *
 * The settings live here; their directives are rows of the one command
 * table in mod_hsc_config.c (HSCThrottleCache's setter is here, because it
 * sets up this file's cache).
 */
#ifndef MOD_HSC_THROTTLE_H
#define MOD_HSC_THROTTLE_H

#include "httpd.h"
#include "http_config.h"

#include "hsc_util.h"
#include "hsc_defaults.h"
#include "hsc_kdf.h"
#include "hsc_store.h"
#include "mod_hsc_config.h"

/* What hsc_throttle_begin counted, for hsc_throttle_end. */
#define HSC_THROTTLE_KEY_MAX 40
typedef struct {
    char akey[HSC_THROTTLE_KEY_MAX]; /* hsc_throttle_key(), or "" */
    char ukey[HSC_THROTTLE_KEY_MAX]; /* hsc_throttle_key(), or "" */
} hsc_throttle_t;

/* How a counted attempt ended. */
typedef enum {
    HSC_THROTTLE_FAILED,    /* wrong password, unknown user: it counts */
    HSC_THROTTLE_SUCCEEDED, /* clear the username's count, give the
                             * address its attempt back */
    HSC_THROTTLE_UNDO,      /* a fault (store down): give both back */
    HSC_THROTTLE_BUSY       /* refused by the KDF cap (503): the
                             * address keeps it, the username not */
} hsc_throttle_outcome_t;

/* Registers throttling's own pre_config, post_config and child_init. */
void hsc_throttle_register_hooks(apr_pool_t *p);

/* HSCThrottleUnavailable allow | refuse (main server only). */
const char *hsc_throttle_set_unavailable(cmd_parms *cmd, void *dv,
                                         const char *arg);

/* HSCThrottleCache none | provider[:args] | memcache-exact:host[:port],...
 * (main server only). */
const char *hsc_throttle_set_cache(cmd_parms *cmd, void *dv, const char *arg);

/*
 * Before a password check: 0 when the login may go on (the attempt is
 * counted in *t), or the seconds until the window frees when the address
 * or the username is over its limit (logged; nothing counted). A cache
 * failure is logged once per outage and the login goes on (0), or, with
 * HSCThrottleUnavailable refuse, -1: the caller answers 503. userdb
 * scopes the username counter.
 */
apr_int64_t hsc_throttle_begin(request_rec *r, const hsc_throttle_conf_t *tc,
                               const char *userdb, const char *user,
                               size_t user_len, hsc_throttle_t *t);

/* After the password check. */
void hsc_throttle_end(request_rec *r, const hsc_throttle_conf_t *tc,
                      const hsc_throttle_t *t, hsc_throttle_outcome_t outcome);

/* The per-child KDF cap: 1 when a slot was taken (give it back with
 * hsc_kdf_slot_give), 0 when tc->max_kdf KDFs already run in this child. */
int hsc_kdf_slot_take(const hsc_throttle_conf_t *tc);
void hsc_kdf_slot_give(const hsc_throttle_conf_t *tc);

/* How a login attempt went (hsc_login_attempt). */
typedef enum {
    HSC_ATTEMPT_CHECKED,    /* the password was checked: *st says how */
    HSC_ATTEMPT_BUSY,       /* HSCMaxLoginKDF checks run already: 503 */
    HSC_ATTEMPT_THROTTLED,  /* over a failed-login limit: 429 */
    HSC_ATTEMPT_UNAVAILABLE /* throttling cache down and
                             * HSCThrottleUnavailable refuse: 503 */
} hsc_attempt_t;

/*
 * The login attempt, in its four steps (mod_hsc_throttle.c, beside the
 * counters): throttle (count the attempt, or refuse it), cap (a KDF slot;
 * its refusal keeps the address's count), check (hsc_password_check: *st,
 * and xn and *u on HSC_OK; wipe xn), and settle (a success or a fault
 * gives the attempt back). The refusals of
 * the cap and the throttle are logged here, with *retry_after set; the
 * check's verdict is the caller's to log.
 */
hsc_attempt_t hsc_login_attempt(request_rec *r, const hsc_srv_conf_t *sc,
                                hsc_store_t *store, const char *user,
                                size_t user_len, const char *password,
                                size_t password_len,
                                unsigned char xn[HSC_XN_LEN], hsc_user_t *u,
                                hsc_status_t *st, apr_int64_t *retry_after);

#endif /* MOD_HSC_THROTTLE_H */
