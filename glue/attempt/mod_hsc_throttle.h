/*
 * mod_hsc_throttle.h: login throttling's counters and the per-child KDF
 * cap, the part of the glue that owns them (mod_hsc_throttle.c), for the
 * login attempt (mod_hsc_attempt.c), which uses them in its steps. The
 * design, the limits and their trade-offs are described once, in
 * docs/throttling.md.
 *
 * Its settings are parsed in mod_hsc_config.c: per server in
 * hsc_throttle_conf_t, the cache and HSCThrottleUnavailable in
 * hsc_global_conf_t.
 */
#ifndef MOD_HSC_THROTTLE_H
#define MOD_HSC_THROTTLE_H

#include "httpd.h"
#include "http_config.h"

#include "hsc_util.h"
#include "mod_hsc_config.h"

/* Registers throttling's own pre_config, post_config and child_init. */
void hsc_throttle_register_hooks(apr_pool_t *p);

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

/* The username's counters: its passwords (and a token's guesses, under
 * a name no user can have), and apart from them its second-factor codes,
 * so that a right password, which clears its own, never clears the
 * codes' (docs/throttling.md). */
#define HSC_THROTTLE_TAG_PASSWORD 'u'
#define HSC_THROTTLE_TAG_CODE 'c'

/*
 * Before a password check: 0 when the login may go on (the attempt is
 * counted in *t), or the seconds until the window frees when the address
 * or the username is over its limit (logged; nothing counted). A cache
 * failure is logged once per outage and the login goes on (0), or, with
 * HSCThrottleUnavailable refuse, -1: the caller answers 503. userdb
 * scopes the username counter; utag is HSC_THROTTLE_TAG_PASSWORD or
 * HSC_THROTTLE_TAG_CODE.
 */
apr_int64_t hsc_throttle_begin(request_rec *r, const hsc_throttle_conf_t *tc,
                               const char *userdb, char utag, const char *user,
                               size_t user_len, hsc_throttle_t *t);

/* After the check: settle what hsc_throttle_begin counted in *t. */
void hsc_throttle_end(request_rec *r, const hsc_throttle_conf_t *tc,
                      const hsc_throttle_t *t, hsc_throttle_outcome_t outcome);

/* The per-child KDF cap: 1 when a slot was taken (give it back with
 * hsc_throttle_kdf_give), 0 when tc->max_kdf KDFs already run in this child. */
int hsc_throttle_kdf_take(const hsc_throttle_conf_t *tc);
void hsc_throttle_kdf_give(const hsc_throttle_conf_t *tc);

#endif /* MOD_HSC_THROTTLE_H */
