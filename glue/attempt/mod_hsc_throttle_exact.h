/*
 * mod_hsc_throttle_exact.h: memcache-exact's memcached client
 * (mod_hsc_throttle_exact.c), for mod_hsc_throttle.c only. Keys are
 * hsc_throttle_key()'s; memcached's own keys are hsc_throttle_exact_key()'s.
 */
#ifndef MOD_HSC_THROTTLE_EXACT_H
#define MOD_HSC_THROTTLE_EXACT_H

#include "httpd.h"

/* Make this child's client (every server of the list resolved; its
 * connections opened when logins need them, at most one per thread per
 * server); on failure logged (HSC183, HSC184). */
void hsc_exact_child_init(apr_pool_t *pchild, server_rec *s);

/* 1 when the child has a client. */
int hsc_exact_ready(void);

/* Count one attempt: APR_SUCCESS and *v, the count with it (memcached's
 * atomic incr, or add for a new counter with the window as its expiry);
 * else the failure and *what, words for the log. Each call ends within
 * 1 s; a server that failed is left alone for 5 s. */
apr_status_t hsc_exact_take(const char *key, apr_int64_t now,
                            apr_int64_t window, apr_uint32_t *v,
                            const char **what);

/* Take one attempt back (decr; absent is fine). */
apr_status_t hsc_exact_give_back(const char *key);

/* Forget a counter (delete; absent is fine): a user's successful login. */
apr_status_t hsc_exact_forget(const char *key);

/* Seconds until a full counter's window ends. */
apr_int64_t hsc_exact_wait(request_rec *r, const char *key, apr_int64_t now,
                           apr_int64_t window);

#endif /* MOD_HSC_THROTTLE_EXACT_H */
