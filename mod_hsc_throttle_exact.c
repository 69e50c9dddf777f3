/*
 * mod_hsc_throttle_exact.c: the memcached client of HSCThrottleCache
 * memcache-exact: (mod_hsc_throttle_exact.h). One per child, made in
 * child_init; memcached's atomic add and incr count, decr gives back,
 * delete forgets. The counting rules (what to count, when to refuse) are
 * mod_hsc_throttle.c's; this file only talks to memcached.
 */
#include <string.h>

#include "apr_strings.h"
#include "apr_memcache.h"

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "ap_mpm.h"

#include "mod_hsc_log.h"
#include "mod_hsc_config.h"
#include "mod_hsc_throttle_exact.h"
#include "hsc_throttle.h"

/* A connection idle this long is closed when next met (microseconds).
 * Short on purpose: apr_memcache retries a server it found dead every 5 s
 * with one of its idle connections, and one left from before a memcached
 * restart fails that retry; with 2 s every such one has expired by then,
 * so a child counts again within about 5 s of memcached's return. A login
 * costs a KDF: a new connection now and then is nothing beside it. */
#define HSC_EXACT_CONN_TTL (2 * APR_USEC_PER_SEC)

/* This child's client; NULL before child_init or when it could not be
 * made (logged: every login then meets HSCThrottleUnavailable). */
static apr_memcache_t *exact_mc;

/* HSCThrottleUnavailable, for the log line. */
static int refuses(const server_rec *s)
{
    return hsc_srv_conf(s)->global->throttle_refuse;
}

int hsc_exact_ready(void)
{
    return exact_mc != NULL;
}

/* The exact mode's client in a child: one pool of connections per server,
 * at most one per thread, none opened until a login needs one. NULL on
 * failure (logged): every login then meets HSCThrottleUnavailable. */
void hsc_exact_child_init(apr_pool_t *pchild, server_rec *s)
{
    const apr_array_header_t *servers = hsc_srv_conf(s)->global->throttle_exact;
    apr_memcache_t *mc = NULL;
    apr_status_t rv;
    int threads = 1, i;

    exact_mc = NULL;
    if (ap_mpm_query(AP_MPMQ_MAX_THREADS, &threads) != APR_SUCCESS
        || threads < 1) {
        threads = 1;
    }
    rv = apr_memcache_create(pchild, (apr_uint16_t)servers->nelts, 0, &mc);
    for (i = 0; rv == APR_SUCCESS && i < servers->nelts; ++i) {
        const hsc_exact_server_t *es = &APR_ARRAY_IDX(servers, i,
                                                      hsc_exact_server_t);
        apr_memcache_server_t *ms = NULL;

        rv = apr_memcache_server_create(pchild, es->host, es->port, 0, 1,
                                        (apr_uint32_t)threads,
                                        HSC_EXACT_CONN_TTL, &ms);
        if (rv == APR_SUCCESS) {
            rv = apr_memcache_add_server(mc, ms);
        }
        if (rv != APR_SUCCESS) {
            ap_log_error(APLOG_MARK, APLOG_ERR, rv, s,
                         HSCLOGNO(183) "cannot set up the memcached client for "
                                       "exact login throttling (%s:%u) in a "
                                       "child: its logins meet "
                                       "HSCThrottleUnavailable (%s)",
                         es->host, (unsigned)es->port,
                         refuses(s) ? "refuse" : "allow");
            return;
        }
    }
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_ERR, rv, s,
                     HSCLOGNO(184) "cannot make the memcached client for "
                                   "exact login throttling in a child: its "
                                   "logins meet HSCThrottleUnavailable (%s)",
                     refuses(s) ? "refuse" : "allow");
        return;
    }
    exact_mc = mc;
}

/* HSC054's words for a failed memcached call. apr_memcache answers
 * APR_NOTFOUND also when no server is alive (it retries a dead one every
 * 5 s), so where absence is not an answer NOTFOUND means that. */
static const char *exact_what(apr_status_t rv, const char *call)
{
    return rv == APR_NOTFOUND ? "memcached: no server answers" : call;
}

/*
 * Count one attempt in an exact counter: APR_SUCCESS and *v, the count
 * with it, as memcached's atomic incr returned it: whatever the other
 * nodes do at the same moment, each attempt gets its own value. A counter
 * that is absent is made by add (1, the window as its expiry: incr never
 * moves it), and an add that lost the race to another node's is followed
 * by incr again.
 */
apr_status_t hsc_exact_take(const char *key, apr_int64_t now,
                            apr_int64_t window, apr_uint32_t *v,
                            const char **what)
{
    char mk[HSC_THROTTLE_EXACT_KEY_MAX], tk[HSC_THROTTLE_EXACT_KEY_MAX];
    char one[] = "1", start[24];
    apr_uint32_t exp = hsc_throttle_exact_expiry(window, now);
    apr_status_t rv;
    int tries;

    *what = "memcached key";
    if (hsc_throttle_exact_key(key, 0, mk) != HSC_OK
        || hsc_throttle_exact_key(key, 1, tk) != HSC_OK) {
        return APR_EGENERAL;
    }
    for (tries = 0; tries < 3; ++tries) {
        *v = 0;
        rv = apr_memcache_incr(exact_mc, mk, 1, v);
        if (rv == APR_SUCCESS) {
            /* incr by 1 gives 1 or more; apr_memcache reads any other
             * answer (CLIENT_ERROR: not a number, SERVER_ERROR) as 0. */
            *what = "memcached incr: not a counter";
            return *v > 0 ? APR_SUCCESS : APR_EGENERAL;
        }
        if (rv != APR_NOTFOUND) {
            *what = "memcached incr";
            return rv;
        }
        rv = apr_memcache_add(exact_mc, mk, one, 1, exp, 0);
        if (rv == APR_SUCCESS) {
            int n = apr_snprintf(start, sizeof(start), "%" APR_INT64_T_FMT,
                                 now);

            *v = 1;
            /* The window's start, for Retry-After. set, not add: the one
             * of the last window may outlive its counter by a second. If
             * it is lost, a refusal says the whole window. */
            (void)apr_memcache_set(exact_mc, tk, start, (apr_size_t)n, exp, 0);
            return APR_SUCCESS;
        }
        if (rv != APR_EEXIST) { /* NOT_STORED: another node's add won */
            *what = exact_what(rv, "memcached add");
            return rv;
        }
    }
    *what = "memcached add and incr keep missing";
    return APR_EGENERAL;
}

/* Take one attempt back (a decr stops at 0). Absent is fine: its window
 * ended, or a success removed it. A failure leaves the attempt counted. */
apr_status_t hsc_exact_give_back(const char *key)
{
    char mk[HSC_THROTTLE_EXACT_KEY_MAX];
    apr_uint32_t v = 0;
    apr_status_t rv;

    if (hsc_throttle_exact_key(key, 0, mk) != HSC_OK) {
        return APR_EGENERAL;
    }
    rv = apr_memcache_decr(exact_mc, mk, 1, &v);
    return rv == APR_NOTFOUND ? APR_SUCCESS : rv;
}

/* Seconds until a full counter's window ends, from the start kept beside
 * it (the whole window when that cannot be read). */
apr_int64_t hsc_exact_wait(request_rec *r, const char *key, apr_int64_t now,
                           apr_int64_t window)
{
    char tk[HSC_THROTTLE_EXACT_KEY_MAX];
    char *val = NULL;
    apr_size_t len = 0;

    if (hsc_throttle_exact_key(key, 1, tk) != HSC_OK
        || apr_memcache_getp(exact_mc, r->pool, tk, &val, &len, NULL)
               != APR_SUCCESS) {
        val = NULL;
        len = 0;
    }
    return hsc_throttle_exact_wait(val, len, now, window);
}

apr_status_t hsc_exact_forget(const char *key)
{
    char mk[HSC_THROTTLE_EXACT_KEY_MAX];
    apr_status_t rv;

    if (hsc_throttle_exact_key(key, 0, mk) != HSC_OK) {
        return APR_EGENERAL;
    }
    rv = apr_memcache_delete(exact_mc, mk, 0);
    return rv == APR_NOTFOUND ? APR_SUCCESS : rv;
}
