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

/* Per server: HSCThrottleAddress, HSCThrottleUser, HSCThrottleWindow,
 * HSCMaxLoginKDF (0 turns a limit off). */
typedef struct {
    int addr;           /* failed logins per window per address */
    int user;           /* failed logins per window per username */
    apr_int64_t window; /* seconds */
    int max_kdf;        /* KDFs at once in a child; 0: no cap */
    unsigned int addr_set : 1, user_set : 1, window_set : 1, max_kdf_set : 1;
} hsc_throttle_conf_t;

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

#endif /* MOD_HSC_THROTTLE_H */
