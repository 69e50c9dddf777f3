/*
 * mod_hsc_throttle.c: login throttling's counters and the per-child KDF
 * cap, which the login attempt (mod_hsc_attempt.c) uses in its steps.
 *
 * The design (two fixed-window counters per login, per client address and
 * per username, in an httpd socache; counted before the KDF, under the
 * cache lock; or, HSCThrottleCache memcache-exact:, in memcached raised
 * by its atomic incr; a success gives its attempt back; a cache failure
 * does what HSCThrottleUnavailable says; the KDF cap is an atomic counter
 * per child) is described once, in docs/throttling.md. Keys, values and the
 * window rule are in hsc_core/hsc_throttle.c. This file registers its own
 * hooks.
 */
#include <string.h>

#include "apr_strings.h"
#include "apr_atomic.h"
#include "apr_global_mutex.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "ap_provider.h"
#include "ap_socache.h"
#include "ap_mpm.h"
#include "util_mutex.h"

#include "mod_hsc_log.h"
#include "mod_hsc_throttle.h"
#include "mod_hsc_throttle_exact.h"
#include "hsc_throttle.h"
#include "mod_hsc_ops.h"
#include "hsc_parse.h"

#define HSC_THROTTLE_MUTEX "hsc-throttle"
#define HSC_THROTTLE_DEFAULT_PROVIDER "shmcb"
/* Default shmcb size: 4 MB, 128 subcaches of which the keys use 64 (their
 * first byte takes 64 values, hsc_throttle_key), some 23,000 counters
 * (shmcb's own default is 512 KB). A full subcache drops its oldest. */
#define HSC_THROTTLE_DEFAULT_SIZE "4194304"

/* --- state of this configuration generation ------------------------------ */

/* The cache in use, or NULL provider when throttling is off. */
static const ap_socache_provider_t *cache_provider;
static ap_socache_instance_t *cache_inst;
/* Around every read-modify-write of a counter, whatever the provider:
 * socache has no increment, so even a provider that is safe across
 * processes (memcache, redis) loses counts to two children of this node
 * raising one counter at once. (Across nodes nothing serialises it:
 * docs/several-servers.md.) */
static apr_global_mutex_t *cache_mutex;
/* The exact mode: 1 when post_config chose it (HSCThrottleCache
 * memcache-exact:); its memcached client is mod_hsc_throttle_exact.c's. */
static int exact_on;
/* 1 while this child is in a reported cache outage (logged once). */
static volatile apr_uint32_t cache_down;

/* HSCThrottleUnavailable refuse: logins wait for the counters. */
static int refuses(const server_rec *s)
{
    return hsc_srv_conf(s)->global->throttle_refuse;
}

/* KDFs running now in this child (process memory, never shared). */
static volatile apr_uint32_t kdf_running;

static int throttle_pre_config(apr_pool_t *pconf, apr_pool_t *plog,
                               apr_pool_t *ptemp)
{
    apr_status_t rv;

    (void)plog;
    (void)ptemp;
    /* Registered here so that the Mutex directive can configure it. */
    rv = ap_mutex_register(pconf, HSC_THROTTLE_MUTEX, NULL, APR_LOCK_DEFAULT,
                           0);
    if (rv != APR_SUCCESS) {
        ap_log_perror(APLOG_MARK, APLOG_CRIT, rv, plog,
                      HSCLOGNO(051) "cannot register the %s mutex",
                      HSC_THROTTLE_MUTEX);
        return !OK;
    }
    return OK;
}

typedef struct {
    const ap_socache_provider_t *provider;
    ap_socache_instance_t *inst;
    server_rec *s;
} cache_owner_t;

static apr_status_t cache_destroy(void *v)
{
    cache_owner_t *o = v;

    o->provider->destroy(o->inst, o->s);
    return APR_SUCCESS;
}

/* 1 when some server counts failed logins. */
static int throttling_wanted(server_rec *main_s)
{
    server_rec *s;

    for (s = main_s; s != NULL; s = s->next) {
        const hsc_srv_conf_t *sc = hsc_srv_conf(s);
        if (sc->userdb != NULL
            && (sc->throttle.addr > 0 || sc->throttle.user > 0)) {
            return 1;
        }
    }
    return 0;
}

/*
 * The provider and instance the counters use: HSCThrottleCache's, or the
 * default shmcb made here. OK with *prov, DECLINED when throttling stays
 * off (shmcb not loaded: HSC050), !OK when startup must fail (logged).
 */
static int cache_instance(apr_pool_t *pconf, apr_pool_t *ptemp,
                          server_rec *main_s, const hsc_global_conf_t *g,
                          const ap_socache_provider_t **prov, const char **args)
{
    const char *err;

    if (g->throttle_cache != NULL) {
        *prov = ap_lookup_provider(AP_SOCACHE_PROVIDER_GROUP, g->throttle_cache,
                                   AP_SOCACHE_PROVIDER_VERSION);
        if (*prov == NULL || g->throttle_inst == NULL) {
            ap_log_error(APLOG_MARK, APLOG_EMERG, 0, main_s,
                         HSCLOGNO(061) "the login throttling cache %s is gone",
                         g->throttle_cache);
            return !OK;
        }
        cache_inst = g->throttle_inst;
        *args = g->throttle_cache_args;
        return OK;
    }
    *prov = ap_lookup_provider(AP_SOCACHE_PROVIDER_GROUP,
                               HSC_THROTTLE_DEFAULT_PROVIDER,
                               AP_SOCACHE_PROVIDER_VERSION);
    if (*prov == NULL) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, main_s,
                     HSCLOGNO(050) "login throttling is off: the socache "
                                   "provider shmcb is not loaded (LoadModule "
                                   "socache_shmcb_module, or HSCThrottleCache "
                                   "none to say it is meant)");
        return DECLINED;
    }
    /* The file is only used where anonymous shared memory is not. */
    *args = apr_pstrcat(pconf, ap_runtime_dir_relative(pconf, "hsc-throttle"),
                        "(" HSC_THROTTLE_DEFAULT_SIZE ")", NULL);
    cache_inst = NULL;
    err = (*prov)->create(&cache_inst, *args, ptemp, pconf);
    if (err != NULL) {
        ap_log_error(APLOG_MARK, APLOG_EMERG, 0, main_s,
                     HSCLOGNO(060) "cannot create the login throttling cache: "
                                   "%s",
                     err);
        return !OK;
    }
    return OK;
}

static int throttle_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                                apr_pool_t *ptemp, server_rec *main_s)
{
    const hsc_global_conf_t *g = hsc_srv_conf(main_s)->global;
    struct ap_socache_hints hints;
    const ap_socache_provider_t *prov = NULL;
    const char *args = NULL;
    cache_owner_t *owner;
    apr_status_t rv;
    int rc;

    (void)plog;
    /* This generation's cache, counters and client: set up anew below. */
    cache_provider = NULL;
    cache_inst = NULL;
    cache_mutex = NULL;
    exact_on = 0;
    /* httpd reads its configuration twice at startup: no shared memory
     * for the first, dry run. */
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG) {
        return OK;
    }
    if ((g->throttle_cache != NULL && !strcmp(g->throttle_cache, "none"))
        || !throttling_wanted(main_s)) {
        return OK;
    }
    /* Exact: no socache and no mutex; memcached's incr is atomic. The
     * client is made per child (child_init). */
    if (g->throttle_exact != NULL) {
        exact_on = 1;
        return OK;
    }
    if ((rc = cache_instance(pconf, ptemp, main_s, g, &prov, &args)) != OK) {
        return rc == DECLINED ? OK : rc;
    }
    {
        rv = ap_global_mutex_create(&cache_mutex, NULL, HSC_THROTTLE_MUTEX,
                                    NULL, main_s, pconf, 0);
        if (rv != APR_SUCCESS) {
            ap_log_error(APLOG_MARK, APLOG_EMERG, rv, main_s,
                         HSCLOGNO(062) "cannot create the %s mutex",
                         HSC_THROTTLE_MUTEX);
            return !OK;
        }
    }
    memset(&hints, 0, sizeof(hints));
    hints.avg_id_len = HSC_THROTTLE_KEY_LEN - 1;
    hints.avg_obj_size = 16;
    hints.expiry_interval = 30;
    rv = prov->init(cache_inst, "hsc-throttle", &hints, main_s, pconf);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_EMERG, rv, main_s,
                     HSCLOGNO(063) "cannot initialise the login throttling "
                                   "cache (%s%s%s)",
                     g->throttle_cache ? g->throttle_cache
                                       : HSC_THROTTLE_DEFAULT_PROVIDER,
                     args ? ":" : "", args ? args : "");
        return !OK;
    }
    owner = apr_palloc(pconf, sizeof(*owner));
    owner->provider = prov;
    owner->inst = cache_inst;
    owner->s = main_s;
    apr_pool_cleanup_register(pconf, owner, cache_destroy,
                              apr_pool_cleanup_null);
    cache_provider = prov;
    return OK;
}

static void throttle_child_init(apr_pool_t *pchild, server_rec *s)
{
    apr_status_t rv;

    if (exact_on) {
        hsc_exact_child_init(pchild, s);
        return;
    }
    if (cache_mutex == NULL) {
        return;
    }
    rv = apr_global_mutex_child_init(&cache_mutex,
                                     apr_global_mutex_lockfile(cache_mutex),
                                     pchild);
    if (rv != APR_SUCCESS) {
        /* Without the lock the cache is not used: logins go unthrottled. */
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s,
                     HSCLOGNO(064) "cannot attach the %s mutex in a child: "
                                   "login throttling is off in it",
                     HSC_THROTTLE_MUTEX);
        cache_provider = NULL;
    }
}

/* --- the counters -------------------------------------------------------- */

/*
 * Read a counter: APR_SUCCESS with *c (fresh when absent or past its
 * window; hsc_counter_decode), or the cache's error.
 */
static apr_status_t counter_get(request_rec *r, const char *key,
                                apr_int64_t now, apr_int64_t window,
                                hsc_counter_t *c)
{
    unsigned char buf[HSC_THROTTLE_VALUE_MAX];
    unsigned int len = sizeof(buf);
    apr_status_t rv;

    rv = cache_provider->retrieve(cache_inst, r->server,
                                  (const unsigned char *)key,
                                  (unsigned int)strlen(key), buf, &len,
                                  r->pool);
    if (APR_STATUS_IS_NOTFOUND(rv)) {
        /* Absent: a fresh counter (the decode of nothing cannot fail). */
        return hsc_counter_decode(NULL, 0, now, window, 0, c) == HSC_OK
                   ? APR_SUCCESS
                   : APR_EGENERAL;
    }
    if (rv != APR_SUCCESS) {
        return rv;
    }
    /* Twice the highest limit: counts go past a limit by at most the
     * attempts in flight when it was reached. */
    if (len > sizeof(buf)
        || hsc_counter_decode((const char *)buf, len, now, window,
                              2 * HSC_COUNT_MAX, c)
               != HSC_OK) {
        return APR_EGENERAL;
    }
    return APR_SUCCESS;
}

static apr_status_t counter_put(request_rec *r, const char *key,
                                apr_int64_t window, const hsc_counter_t *c)
{
    char buf[HSC_THROTTLE_VALUE_MAX];
    size_t n = hsc_counter_encode(c, buf);

    if (n == 0) {
        return APR_EGENERAL;
    }
    return cache_provider->store(cache_inst, r->server,
                                 (const unsigned char *)key,
                                 (unsigned int)strlen(key),
                                 apr_time_from_sec(c->start + window),
                                 (unsigned char *)buf, (unsigned int)n,
                                 r->pool);
}

static apr_status_t lock(void)
{
    return cache_mutex ? apr_global_mutex_lock(cache_mutex) : APR_SUCCESS;
}

static void unlock(void)
{
    if (cache_mutex) {
        apr_global_mutex_unlock(cache_mutex);
    }
}

/* Take one attempt back from a counter (same window only). */
static apr_status_t counter_give_back(request_rec *r, const char *key,
                                      apr_int64_t now, apr_int64_t window)
{
    hsc_counter_t c;
    apr_status_t rv = counter_get(r, key, now, window, &c);

    if (rv == APR_SUCCESS && c.count > 0) {
        --c.count;
        rv = counter_put(r, key, window, &c);
    }
    return rv;
}

/* A cache failure: logged at error once per outage and child (then at
 * debug); what happens to the login is HSCThrottleUnavailable's. */
static void cache_failed(request_rec *r, apr_status_t rv, const char *what)
{
    int first = apr_atomic_cas32(&cache_down, 1, 0) == 0;

    ap_log_rerror(APLOG_MARK, first ? APLOG_ERR : APLOG_DEBUG, rv, r,
                  HSCLOGNO(054) "login throttling cache failure (%s): %s%s",
                  what,
                  refuses(r->server) ? "logins are refused (503)"
                                     : "logins go on, not throttled",
                  first ? " until it answers again (logged once)" : "");
}

/* The cache answered: a later failure is a new outage. */
static void cache_ok(void)
{
    apr_atomic_set32(&cache_down, 0);
}

/* One of the two counters of a login, as hsc_throttle_begin works on it. */
typedef struct {
    char *key;        /* in the hsc_throttle_t; "" when not counted */
    int limit;        /* 0: this counter is off */
    hsc_counter_t c;  /* as read */
    apr_int64_t wait; /* seconds until it frees, 0 when under its limit */
} counter_t;

/* Read a counter and how long it makes the login wait. */
static apr_status_t counter_read(request_rec *r, counter_t *k, apr_int64_t now,
                                 apr_int64_t window)
{
    apr_status_t rv;

    k->wait = 0;
    if (k->key[0] == '\0') {
        return APR_SUCCESS;
    }
    if ((rv = counter_get(r, k->key, now, window, &k->c)) == APR_SUCCESS) {
        k->wait = hsc_counter_wait(&k->c, k->limit, now, window);
    }
    return rv;
}

/* Count this attempt in a counter. */
static apr_status_t counter_count(request_rec *r, counter_t *k,
                                  apr_int64_t window)
{
    if (k->key[0] == '\0') {
        return APR_SUCCESS;
    }
    ++k->c.count;
    return counter_put(r, k->key, window, &k->c);
}

/* The two counters' keys (a counter turned off has none); 0 or -1. */
static int counter_keys(request_rec *r, const char *userdb, char utag,
                        const char *user, size_t user_len, counter_t k[2])
{
    const char *host = r->server->server_hostname;
    char addr[HSC_THROTTLE_ADDR_MAX];

    hsc_throttle_address(r->useragent_ip, addr); /* IPv6: its /64 */

    if ((k[0].limit > 0
         && hsc_throttle_key('a', host ? host : "", addr, strlen(addr),
                             k[0].key)
                != HSC_OK)
        || (k[1].limit > 0
            && hsc_throttle_key(utag, userdb ? userdb : "", user, user_len,
                                k[1].key)
                   != HSC_OK)) {
        return -1;
    }
    return 0;
}

/* Log the refusal of a login over a limit (429). */
static void log_throttled(request_rec *r, const hsc_throttle_conf_t *tc,
                          const char *user, char utag, const counter_t k[2],
                          apr_int64_t wait)
{
    if (k[0].wait > 0) {
        ap_log_rerror(
            APLOG_MARK, APLOG_WARNING, 0, r,
            HSCLOGNO(052) "login throttled (429) for user \"%s\": %u failed "
                          "logins from address %s within %" APR_INT64_T_FMT
                          " s (HSCThrottleAddress %d); "
                          "free again in %" APR_INT64_T_FMT " s",
            ap_escape_logitem(r->pool, user), k[0].c.count,
            r->useragent_ip ? r->useragent_ip : "", tc->window, tc->addr, wait);
    }
    else {
        ap_log_rerror(
            APLOG_MARK, APLOG_WARNING, 0, r,
            HSCLOGNO(053) "login throttled (429) for user \"%s\": %u failed "
                          "%s for this user within %" APR_INT64_T_FMT
                          " s (HSCThrottleUser %d); "
                          "free again in %" APR_INT64_T_FMT " s",
            ap_escape_logitem(r->pool, user), k[1].c.count,
            utag == HSC_THROTTLE_TAG_CODE ? "second-factor codes" : "logins",
            tc->window, tc->user, k[1].wait);
    }
}

/* --- the exact mode: memcached's add and incr ---------------------------- */

/*
 * hsc_throttle_begin in the exact mode: the address counter, then the
 * username's, each raised first and judged by the value incr returned
 * (over the limit: given back, 429). No lock: memcached orders the incrs
 * of every node, so no two attempts get the same value and at most
 * `limit` of them get one within the limit.
 */
static apr_int64_t exact_begin(request_rec *r, const hsc_throttle_conf_t *tc,
                               char utag, const char *user, size_t user_len,
                               apr_int64_t now, counter_t k[2])
{
    const char *what = "memcached client";
    apr_status_t rv = APR_EGENERAL;
    apr_uint32_t v;
    apr_int64_t wait;
    int i, j;

    for (i = 0; i < 2; ++i) {
        if (k[i].key[0] == '\0') {
            continue;
        }
        if (!hsc_exact_ready()
            || (rv = hsc_exact_take(k[i].key, now, tc->window, &v, &what))
                   != APR_SUCCESS) {
            /* Not counted at all: give back what this login took. */
            for (j = 0; j < i; ++j) {
                if (k[j].key[0] != '\0') {
                    (void)hsc_exact_give_back(k[j].key);
                }
            }
            k[0].key[0] = k[1].key[0] = '\0';
            cache_failed(r, rv, what);
            return refuses(r->server) ? -1 : 0;
        }
        if (v > (apr_uint32_t)k[i].limit) {
            /* Over: refused and not counted (nor is the window moved:
             * incr keeps the expiry add gave). */
            k[i].c.count = v - 1;
            wait = k[i].wait = hsc_exact_wait(r, k[i].key, now, tc->window);
            for (j = 0; j <= i; ++j) {
                if (k[j].key[0] != '\0') {
                    (void)hsc_exact_give_back(k[j].key);
                }
            }
            k[0].key[0] = k[1].key[0] = '\0';
            cache_ok();
            log_throttled(r, tc, user, utag, k, wait);
            hsc_ops_lockout(r, user, user_len, i == 1, now + wait);
            return wait;
        }
        k[i].c.count = v;
    }
    cache_ok();
    return 0;
}

/* hsc_throttle_end in the exact mode (the same rules, as memcached
 * calls). */
static void exact_end(request_rec *r, const hsc_throttle_t *t,
                      hsc_throttle_outcome_t outcome)
{
    apr_status_t rv;

    if (!hsc_exact_ready()) {
        return;
    }
    if (t->ukey[0] && outcome == HSC_THROTTLE_SUCCEEDED) {
        if ((rv = hsc_exact_forget(t->ukey)) != APR_SUCCESS) {
            cache_failed(r, rv, "memcached delete");
        }
    }
    else if (t->ukey[0] && (rv = hsc_exact_give_back(t->ukey)) != APR_SUCCESS) {
        cache_failed(r, rv, "memcached decr");
    }
    if (t->akey[0] && outcome != HSC_THROTTLE_BUSY
        && (rv = hsc_exact_give_back(t->akey)) != APR_SUCCESS) {
        cache_failed(r, rv, "memcached decr");
    }
}

apr_int64_t hsc_throttle_begin(request_rec *r, const hsc_throttle_conf_t *tc,
                               const char *userdb, char utag, const char *user,
                               size_t user_len, hsc_throttle_t *t)
{
    apr_int64_t now = (apr_int64_t)apr_time_sec(r->request_time), wait;
    counter_t k[2] = {{t->akey, tc->addr, {0, 0}, 0},
                      {t->ukey, tc->user, {0, 0}, 0}};
    apr_status_t rv;
    int i;

    t->akey[0] = t->ukey[0] = '\0';
    if ((cache_provider == NULL && !exact_on)
        || (tc->addr <= 0 && tc->user <= 0)) {
        return 0;
    }
    if (counter_keys(r, userdb, utag, user, user_len, k) != 0) {
        t->akey[0] = t->ukey[0] = '\0';
        cache_failed(r, APR_EGENERAL, "key");
        return refuses(r->server) ? -1 : 0;
    }
    if (exact_on) {
        return exact_begin(r, tc, utag, user, user_len, now, k);
    }
    if ((rv = lock()) != APR_SUCCESS) {
        t->akey[0] = t->ukey[0] = '\0';
        cache_failed(r, rv, "lock");
        return refuses(r->server) ? -1 : 0;
    }
    for (i = 0; i < 2; ++i) {
        if ((rv = counter_read(r, &k[i], now, tc->window)) != APR_SUCCESS) {
            unlock();
            t->akey[0] = t->ukey[0] = '\0';
            cache_failed(r, rv, "lookup or store");
            return refuses(r->server) ? -1 : 0;
        }
    }
    wait = k[0].wait > k[1].wait ? k[0].wait : k[1].wait;
    if (wait > 0) {
        unlock();
        t->akey[0] = t->ukey[0] = '\0';
        log_throttled(r, tc, user, utag, k, wait);
        hsc_ops_lockout(r, user, user_len, k[0].wait <= 0, now + wait);
        return wait;
    }
    /* Counted now; a success gives it back (hsc_throttle_end). */
    for (i = 0; i < 2; ++i) {
        if ((rv = counter_count(r, &k[i], tc->window)) != APR_SUCCESS) {
            const char *what = i == 0 ? "lookup or store" : "store";
            /* Counters counted already keep their keys, so that a
             * success gives those attempts back. */
            unlock();
            for (; i < 2; ++i) {
                k[i].key[0] = '\0';
            }
            cache_failed(r, rv, what);
            return refuses(r->server) ? -1 : 0;
        }
    }
    unlock();
    cache_ok();
    return 0;
}

void hsc_throttle_end(request_rec *r, const hsc_throttle_conf_t *tc,
                      const hsc_throttle_t *t, hsc_throttle_outcome_t outcome)
{
    apr_int64_t now = (apr_int64_t)apr_time_sec(r->request_time);
    apr_status_t rv;

    if (outcome == HSC_THROTTLE_FAILED || (cache_provider == NULL && !exact_on)
        || (t->akey[0] == '\0' && t->ukey[0] == '\0')) {
        return;
    }
    if (exact_on) {
        exact_end(r, t, outcome);
        return;
    }
    if ((rv = lock()) != APR_SUCCESS) {
        cache_failed(r, rv, "lock");
        return;
    }
    if (t->ukey[0] && outcome == HSC_THROTTLE_SUCCEEDED) {
        rv = cache_provider->remove(cache_inst, r->server,
                                    (const unsigned char *)t->ukey,
                                    (unsigned int)strlen(t->ukey), r->pool);
        if (rv != APR_SUCCESS && !APR_STATUS_IS_NOTFOUND(rv)) {
            cache_failed(r, rv, "remove");
        }
    }
    else if (t->ukey[0]) {
        rv = counter_give_back(r, t->ukey, now, tc->window);
        if (rv != APR_SUCCESS) {
            cache_failed(r, rv, "store");
        }
    }
    /* A login refused by the KDF cap still counts for its address: one
     * address must not hold every slot for free. */
    if (t->akey[0] && outcome != HSC_THROTTLE_BUSY) {
        rv = counter_give_back(r, t->akey, now, tc->window);
        if (rv != APR_SUCCESS) {
            cache_failed(r, rv, "store");
        }
    }
    unlock();
}

/* --- the KDF cap --------------------------------------------------------- */

int hsc_throttle_kdf_take(const hsc_throttle_conf_t *tc)
{
    if (tc->max_kdf <= 0) {
        return 1;
    }
    if (apr_atomic_inc32(&kdf_running) >= (apr_uint32_t)tc->max_kdf) {
        apr_atomic_dec32(&kdf_running);
        return 0;
    }
    return 1;
}

void hsc_throttle_kdf_give(const hsc_throttle_conf_t *tc)
{
    if (tc->max_kdf > 0) {
        apr_atomic_dec32(&kdf_running);
    }
}

void hsc_throttle_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_pre_config(throttle_pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(throttle_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(throttle_child_init, NULL, NULL, APR_HOOK_MIDDLE);
}