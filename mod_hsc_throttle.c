/*
 * mod_hsc_throttle.c: login throttling and the per-child KDF cap.
 *
 * Failed logins are counted in an httpd socache (ap_socache.h), "shmcb"
 * by default, so that every child sees the same counts; a networked
 * provider (memcache, redis) lets several servers share them. Two
 * counters, each a fixed window that starts at the first counted attempt:
 *
 *   "a:" + H(ServerName, client address)   HSCThrottleAddress per window
 *   "u:" + H(user database, username)      HSCThrottleUser per window
 *
 * H is the first 128 bits of SHA-256 in hex, so keys are short and bounded
 * (usernames reach 255 bytes) and safe for any provider (no spaces or
 * control bytes for memcache). A value is "<window start> <count>" in decimal.
 * Keys, values and the window rule are in hsc_core/hsc_throttle.c.
 *
 * An attempt is counted when it starts, before the KDF, under the cache
 * lock, so parallel guesses cannot all pass the check before any of them
 * is counted; a success then clears the username's count and gives its
 * own attempt back to the address's, and a fault (the user database
 * cannot answer) gives both back. Over a limit the login is refused
 * with 429 before any KDF work, and the refusal is not counted: a lockout
 * ends when its window does. A cache failure is logged and the login goes
 * on to the ordinary password check: throttling is a brake, never an
 * authentication factor.
 *
 * The KDF cap is an atomic counter in each child's own memory: at most
 * HSCMaxLoginKDF password checks (the dummy KDF of unknown users included)
 * run at once in a child; more get 503 with Retry-After: 1.
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
#include "util_mutex.h"

#include "mod_hsc.h"
#include "hsc_throttle.h"
#include "mod_hsc_ops.h"

APLOG_USE_MODULE(hsc);

#define HSC_THROTTLE_MUTEX "hsc-throttle"
#define HSC_THROTTLE_DEFAULT_PROVIDER "shmcb"
/* Default shmcb size: 2 MB, some 15,000 counters (shmcb's own default is
 * 512 KB). shmcb drops the oldest entries when it is full. */
#define HSC_THROTTLE_DEFAULT_SIZE "2097152"

/* --- state of this configuration generation ------------------------------ */

/* What HSCThrottleCache said: NULL for the default (shmcb). */
static const char *cache_name;
static const char *cache_args;
/* The cache in use, or NULL provider when throttling is off. */
static const ap_socache_provider_t *cache_provider;
static ap_socache_instance_t *cache_inst;
/* Only for providers that are not safe across processes and threads. */
static apr_global_mutex_t *cache_mutex;

/* KDFs running now in this child (process memory, never shared). */
static volatile apr_uint32_t kdf_running;

int hsc_throttle_pre_config(apr_pool_t *pconf, apr_pool_t *plog,
                            apr_pool_t *ptemp)
{
    apr_status_t rv;

    (void)plog;
    (void)ptemp;
    cache_name = NULL;
    cache_args = NULL;
    cache_provider = NULL;
    cache_inst = NULL;
    cache_mutex = NULL;
    /* Registered here so that the Mutex directive can configure it. */
    rv = ap_mutex_register(pconf, HSC_THROTTLE_MUTEX, NULL, APR_LOCK_DEFAULT,
                           0);
    if (rv != APR_SUCCESS) {
        ap_log_perror(APLOG_MARK, APLOG_CRIT, rv, plog,
                      "HSC051: cannot register the %s mutex",
                      HSC_THROTTLE_MUTEX);
        return !OK;
    }
    return OK;
}

/*
 * HSCThrottleCache none | provider[:args]. The provider must be loaded
 * before this line; its arguments are checked here (provider->create).
 */
const char *hsc_throttle_cmd_cache(cmd_parms *cmd, void *dv, const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    const ap_socache_provider_t *prov;
    const char *sep, *name, *args = NULL;

    (void)dv;
    if (err != NULL) {
        return err;
    }
    if (!strcasecmp(arg, "none")) {
        cache_name = "none";
        cache_args = NULL;
        cache_inst = NULL;
        return NULL;
    }
    sep = strchr(arg, ':');
    if (sep != NULL) {
        name = apr_pstrmemdup(cmd->pool, arg, (apr_size_t)(sep - arg));
        args = sep + 1;
    }
    else {
        name = arg;
    }
    if (*name == '\0') {
        return "HSCThrottleCache: name a socache provider (shmcb, "
               "memcache, ...) or none";
    }
    prov = ap_lookup_provider(AP_SOCACHE_PROVIDER_GROUP, name,
                              AP_SOCACHE_PROVIDER_VERSION);
    if (prov == NULL) {
        return apr_psprintf(cmd->pool,
                            "HSCThrottleCache: the socache provider '%s' is "
                            "not loaded (LoadModule socache_%s_module "
                            "before this line), or use none",
                            name, name);
    }
    cache_inst = NULL;
    err = prov->create(&cache_inst, args, cmd->temp_pool, cmd->pool);
    if (err != NULL) {
        return apr_psprintf(cmd->pool, "HSCThrottleCache: %s: %s", name,
                            err);
    }
    cache_name = name;
    cache_args = args;
    return NULL;
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
        const hsc_srv_conf_t *sc = ap_get_module_config(s->module_config,
                                                        &hsc_module);
        if (sc->userdb != NULL
            && (sc->throttle_addr > 0 || sc->throttle_user > 0)) {
            return 1;
        }
    }
    return 0;
}

int hsc_throttle_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                             apr_pool_t *ptemp, server_rec *main_s)
{
    struct ap_socache_hints hints;
    const ap_socache_provider_t *prov;
    cache_owner_t *owner;
    const char *err;
    apr_status_t rv;

    (void)plog;
    cache_provider = NULL;
    cache_mutex = NULL;
    /* httpd reads its configuration twice at startup: no shared memory
     * for the first, dry run. */
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG) {
        return OK;
    }
    if ((cache_name != NULL && !strcmp(cache_name, "none"))
        || !throttling_wanted(main_s)) {
        return OK;
    }
    if (cache_name == NULL) {
        prov = ap_lookup_provider(AP_SOCACHE_PROVIDER_GROUP,
                                  HSC_THROTTLE_DEFAULT_PROVIDER,
                                  AP_SOCACHE_PROVIDER_VERSION);
        if (prov == NULL) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, main_s,
                         "HSC050: login throttling is off: the socache "
                         "provider shmcb is not loaded (LoadModule "
                         "socache_shmcb_module, or HSCThrottleCache none "
                         "to say it is meant)");
            return OK;
        }
        /* The file is only used where anonymous shared memory is not. */
        cache_args = apr_pstrcat(pconf,
                                 ap_runtime_dir_relative(pconf,
                                                         "hsc-throttle"),
                                 "(" HSC_THROTTLE_DEFAULT_SIZE ")", NULL);
        cache_inst = NULL;
        err = prov->create(&cache_inst, cache_args, ptemp, pconf);
        if (err != NULL) {
            ap_log_error(APLOG_MARK, APLOG_EMERG, 0, main_s,
                         "HSC051: cannot create the login throttling "
                         "cache: %s", err);
            return !OK;
        }
    }
    else {
        prov = ap_lookup_provider(AP_SOCACHE_PROVIDER_GROUP, cache_name,
                                  AP_SOCACHE_PROVIDER_VERSION);
        if (prov == NULL || cache_inst == NULL) {
            ap_log_error(APLOG_MARK, APLOG_EMERG, 0, main_s,
                         "HSC051: the login throttling cache %s is gone",
                         cache_name);
            return !OK;
        }
    }
    if (prov->flags & AP_SOCACHE_FLAG_NOTMPSAFE) {
        rv = ap_global_mutex_create(&cache_mutex, NULL, HSC_THROTTLE_MUTEX,
                                    NULL, main_s, pconf, 0);
        if (rv != APR_SUCCESS) {
            ap_log_error(APLOG_MARK, APLOG_EMERG, rv, main_s,
                         "HSC051: cannot create the %s mutex",
                         HSC_THROTTLE_MUTEX);
            return !OK;
        }
    }
    memset(&hints, 0, sizeof(hints));
    hints.avg_id_len = 2 + 2 * HSC_THROTTLE_HASH_LEN;
    hints.avg_obj_size = 16;
    hints.expiry_interval = 30;
    rv = prov->init(cache_inst, "hsc-throttle", &hints, main_s, pconf);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_EMERG, rv, main_s,
                     "HSC051: cannot initialise the login throttling "
                     "cache (%s%s%s)",
                     cache_name ? cache_name : HSC_THROTTLE_DEFAULT_PROVIDER,
                     cache_args ? ":" : "", cache_args ? cache_args : "");
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

void hsc_throttle_child_init(apr_pool_t *pchild, server_rec *s)
{
    apr_status_t rv;

    if (cache_mutex == NULL) {
        return;
    }
    rv = apr_global_mutex_child_init(
        &cache_mutex, apr_global_mutex_lockfile(cache_mutex), pchild);
    if (rv != APR_SUCCESS) {
        /* Without the lock the cache is not used: logins go unthrottled. */
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s,
                     "HSC051: cannot attach the %s mutex in a child: login "
                     "throttling is off in it",
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
        hsc_counter_decode(NULL, 0, now, window, 0, c);
        return APR_SUCCESS;
    }
    if (rv != APR_SUCCESS) {
        return rv;
    }
    /* Twice the highest limit: counts go past a limit by at most the
     * attempts in flight when it was reached. */
    if (len > sizeof(buf)
        || hsc_counter_decode((const char *)buf, len, now, window,
                              2 * HSC_THROTTLE_COUNT_MAX, c) != HSC_OK) {
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

/* Log a cache failure once per request; the login goes on. */
static void cache_failed(request_rec *r, apr_status_t rv, const char *what)
{
    ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r,
                  "HSC054: login throttling cache failure (%s): this "
                  "login is not throttled",
                  what);
}

apr_int64_t hsc_throttle_begin(request_rec *r, const hsc_srv_conf_t *sc,
                               const char *user, size_t user_len,
                               hsc_throttle_t *t)
{
    apr_int64_t now = (apr_int64_t)apr_time_sec(r->request_time);
    apr_int64_t window = sc->throttle_window, wait_a = 0, wait_u = 0;
    hsc_counter_t a = {0, 0}, u = {0, 0};
    const char *addr = r->useragent_ip ? r->useragent_ip : "";
    apr_status_t rv;

    t->akey[0] = '\0';
    t->ukey[0] = '\0';
    if (cache_provider == NULL
        || (sc->throttle_addr <= 0 && sc->throttle_user <= 0)) {
        return 0;
    }
    if ((sc->throttle_addr > 0
         && hsc_throttle_key('a', r->server->server_hostname
                                      ? r->server->server_hostname : "",
                             addr, strlen(addr), t->akey) != HSC_OK)
        || (sc->throttle_user > 0
            && hsc_throttle_key('u', sc->userdb ? sc->userdb : "", user,
                                user_len, t->ukey) != HSC_OK)) {
        t->akey[0] = t->ukey[0] = '\0';
        cache_failed(r, APR_EGENERAL, "key");
        return 0;
    }
    if ((rv = lock()) != APR_SUCCESS) {
        t->akey[0] = t->ukey[0] = '\0';
        cache_failed(r, rv, "lock");
        return 0;
    }
    if (t->akey[0] && (rv = counter_get(r, t->akey, now, window, &a))
                          != APR_SUCCESS) {
        goto failed;
    }
    if (t->ukey[0] && (rv = counter_get(r, t->ukey, now, window, &u))
                          != APR_SUCCESS) {
        goto failed;
    }
    if (t->akey[0]) {
        wait_a = hsc_counter_wait(&a, sc->throttle_addr, now, window);
    }
    if (t->ukey[0]) {
        wait_u = hsc_counter_wait(&u, sc->throttle_user, now, window);
    }
    if (wait_a > 0 || wait_u > 0) {
        unlock();
        t->akey[0] = t->ukey[0] = '\0';
        if (wait_a > 0) {
            ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r,
                          "HSC052: login throttled (429) for user \"%s\": "
                          "%u failed logins from address %s within %"
                          APR_INT64_T_FMT " s (HSCThrottleAddress %d); "
                          "free again in %" APR_INT64_T_FMT " s",
                          ap_escape_logitem(r->pool, user), a.count, addr,
                          window, sc->throttle_addr,
                          wait_a > wait_u ? wait_a : wait_u);
        }
        else {
            ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r,
                          "HSC053: login throttled (429) for user \"%s\": "
                          "%u failed logins for this user within %"
                          APR_INT64_T_FMT " s (HSCThrottleUser %d); "
                          "free again in %" APR_INT64_T_FMT " s",
                          ap_escape_logitem(r->pool, user), u.count, window,
                          sc->throttle_user, wait_u);
        }
        hsc_ops_lockout(r, user, user_len, wait_a <= 0,
                        now + (wait_a > wait_u ? wait_a : wait_u));
        return wait_a > wait_u ? wait_a : wait_u;
    }
    /* Counted now; a success gives it back (hsc_throttle_end). */
    if (t->akey[0]) {
        ++a.count;
        if ((rv = counter_put(r, t->akey, window, &a)) != APR_SUCCESS) {
            goto failed;
        }
    }
    if (t->ukey[0]) {
        ++u.count;
        if ((rv = counter_put(r, t->ukey, window, &u)) != APR_SUCCESS) {
            /* The address is counted already: keep its key, so that a
             * success gives that attempt back. */
            unlock();
            t->ukey[0] = '\0';
            cache_failed(r, rv, "store");
            return 0;
        }
    }
    unlock();
    return 0;

failed:
    unlock();
    t->akey[0] = t->ukey[0] = '\0';
    cache_failed(r, rv, "lookup or store");
    return 0;
}

void hsc_throttle_end(request_rec *r, const hsc_srv_conf_t *sc,
                      const hsc_throttle_t *t,
                      hsc_throttle_outcome_t outcome)
{
    apr_int64_t now = (apr_int64_t)apr_time_sec(r->request_time);
    apr_status_t rv;

    if (outcome == HSC_THROTTLE_FAILED || cache_provider == NULL
        || (t->akey[0] == '\0' && t->ukey[0] == '\0')) {
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
        rv = counter_give_back(r, t->ukey, now, sc->throttle_window);
        if (rv != APR_SUCCESS) {
            cache_failed(r, rv, "store");
        }
    }
    if (t->akey[0]) {
        rv = counter_give_back(r, t->akey, now, sc->throttle_window);
        if (rv != APR_SUCCESS) {
            cache_failed(r, rv, "store");
        }
    }
    unlock();
}

/* --- the KDF cap --------------------------------------------------------- */

int hsc_kdf_slot_take(const hsc_srv_conf_t *sc)
{
    if (sc->max_kdf <= 0) {
        return 1;
    }
    if (apr_atomic_inc32(&kdf_running) >= (apr_uint32_t)sc->max_kdf) {
        apr_atomic_dec32(&kdf_running);
        return 0;
    }
    return 1;
}

void hsc_kdf_slot_give(const hsc_srv_conf_t *sc)
{
    if (sc->max_kdf > 0) {
        apr_atomic_dec32(&kdf_running);
    }
}
