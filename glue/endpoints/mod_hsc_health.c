/*
 * mod_hsc_health.c: SetHandler hsc-health, for a load balancer's probe.
 *
 * 200 {"status":"ok"} when this virtual host's key file is loaded and
 * still on disk, and its user database answers a lookup of a name no user
 * can have within HSC_HEALTH_BOUND; otherwise 503 {"status":"unavailable"}.
 * With HSCHealthDetails On, also the reason, version, key count and store
 * time. No KDF, no login, no write: one indexed query, whose answer a
 * child reuses for HSC_HEALTH_REUSE, so anonymous probes cannot make the
 * database work per request. Failures are logged at info (HSC163), since
 * a probe repeats them every second.
 */
#include <string.h>

#include "apr_strings.h"
#include "apr_file_info.h"
#include "apr_hash.h"
#include "apr_thread_mutex.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"

#include "mod_hsc_log.h"
#include "mod_hsc_health.h"
#include "hsc_version.h"
#include "mod_hsc_ops.h"
#include "mod_hsc_userdb.h"

/* The longest a healthy store may take to answer the probe. */
#define HSC_HEALTH_BOUND apr_time_from_msec(1000)
/* A store's answer is reused this long in a child: a flood of anonymous
 * probes then costs at most one statement per child and second. */
#define HSC_HEALTH_REUSE apr_time_from_msec(1000)
/* A name the store looks up but no user has: valid for a lookup (a name
 * with a control character would be refused before any query), and
 * starting with U+200B, an invisible character hsc-admin add refuses. Not
 * found, it is never cached: every probe runs the store's query. */
#define HSC_HEALTH_PROBE "\xe2\x80\x8bhsc-health"

/* A virtual host's last store probe in this child. */
typedef struct {
    apr_time_t at;       /* when it ran; 0: never */
    apr_time_t took;     /* how long the store took */
    const char *failure; /* NULL, or the reason (a literal) */
} probe_t;

/* This child's probes, by the virtual host's configuration. probe_run
 * lets one thread at a time ask the store: the others wait for its answer
 * and reuse it, so a burst of parallel probes is one statement, not one
 * per thread. */
static apr_thread_mutex_t *probe_lock, *probe_run;
static apr_hash_t *probes;
static apr_pool_t *probe_pool;

static void health_child_init(apr_pool_t *pchild, server_rec *s)
{
    (void)s;
    probe_pool = pchild;
    probes = apr_hash_make(pchild);
    if (apr_thread_mutex_create(&probe_lock, APR_THREAD_MUTEX_DEFAULT, pchild)
            != APR_SUCCESS
        || apr_thread_mutex_create(&probe_run, APR_THREAD_MUTEX_DEFAULT, pchild)
               != APR_SUCCESS) {
        probe_lock = NULL; /* every probe then runs the query */
    }
}

/* The probe of sc when it ran less than HSC_HEALTH_REUSE ago. */
static int probe_recent(const hsc_srv_conf_t *sc, apr_time_t now, probe_t *out)
{
    const probe_t *p;
    int hit = 0;

    if (probe_lock == NULL) {
        return 0;
    }
    apr_thread_mutex_lock(probe_lock);
    p = apr_hash_get(probes, &sc, sizeof(sc));
    if (p != NULL && now >= p->at && now - p->at < HSC_HEALTH_REUSE) {
        *out = *p;
        hit = 1;
    }
    apr_thread_mutex_unlock(probe_lock);
    return hit;
}

static void probe_keep(const hsc_srv_conf_t *sc, const probe_t *in)
{
    probe_t *p;

    if (probe_lock == NULL) {
        return;
    }
    apr_thread_mutex_lock(probe_lock);
    p = apr_hash_get(probes, &sc, sizeof(sc));
    if (p == NULL) { /* once per virtual host and child */
        const hsc_srv_conf_t **k = apr_palloc(probe_pool, sizeof(*k));

        *k = sc;
        p = apr_palloc(probe_pool, sizeof(*p));
        apr_hash_set(probes, k, sizeof(*k), p);
    }
    *p = *in;
    apr_thread_mutex_unlock(probe_lock);
}

/* Ask the store for a name nobody has: how long it took, or why not. */
static void probe_store(request_rec *r, const hsc_srv_conf_t *sc, probe_t *p)
{
    hsc_store_t *store;
    hsc_user_t u;
    hsc_status_t st;
    apr_time_t t0 = apr_time_now();

    p->failure = NULL;
    if ((store = hsc_userdb_acquire(r, sc)) == NULL) {
        p->failure = "user store down"; /* HSC006 says why */
    }
    else {
        st = hsc_store_get(store, HSC_HEALTH_PROBE, strlen(HSC_HEALTH_PROBE),
                           &u);
        hsc_userdb_note_recovery(r, sc, store);
        if (st != HSC_OK && st != HSC_ENOUSER) {
            hsc_ops_store_error(r);
            ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                          HSCLOGNO(164) "health check: user store: %s (%s)",
                          hsc_strerror(st), hsc_store_errmsg(store));
            p->failure = "user store down";
        }
    }
    p->at = apr_time_now();
    p->took = p->at - t0;
    if (p->failure == NULL && p->took > HSC_HEALTH_BOUND) {
        p->failure = "user store slow";
    }
}

static int answer(request_rec *r, int status, const char *json)
{
    r->status = status;
    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    ap_set_content_type(r, "application/json");
    if (!r->header_only) {
        ap_rvputs(r, json, "\n", NULL);
    }
    return OK;
}

/* 503; the reason and version in the body only with HSCHealthDetails. */
static int unhealthy(request_rec *r, int details, const char *reason)
{
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(163) "health check: 503: %s", reason);
    apr_table_setn(r->err_headers_out, "Retry-After", "5");
    if (!details) {
        return answer(r, HTTP_SERVICE_UNAVAILABLE,
                      "{\"status\":\"unavailable\"}");
    }
    return answer(r, HTTP_SERVICE_UNAVAILABLE,
                  apr_psprintf(r->pool,
                               "{\"status\":\"unavailable\",\"reason\":"
                               "\"%s\",\"version\":\"%s\"}",
                               reason, HSC_VERSION));
}

static int health_handler(request_rec *r)
{
    const hsc_srv_conf_t *sc = hsc_srv_conf(r->server);
    const hsc_dir_conf_t *d = hsc_dir_conf(r);
    int details = d->health_details;
    apr_finfo_t fi;
    probe_t p;

    if (r->handler == NULL || strcmp(r->handler, "hsc-health") != 0) {
        return DECLINED;
    }
    r->allowed = AP_METHOD_BIT << M_GET;
    if (r->method_number != M_GET) {
        return HTTP_METHOD_NOT_ALLOWED;
    }
    if (sc->keys == NULL) {
        return unhealthy(r, details, "no key file (HSCKeyFile)");
    }
    /* Loaded keys still work, but the next restart would fail. */
    if (apr_stat(&fi, sc->keyfile, APR_FINFO_TYPE, r->pool) != APR_SUCCESS
        || fi.filetype != APR_REG) {
        return unhealthy(r, details, "key file missing");
    }
    if (sc->userdb == NULL) {
        return unhealthy(r, details, "no user database (HSCUserDB)");
    }
    if (!probe_recent(sc, apr_time_now(), &p)) {
        if (probe_lock != NULL) {
            apr_thread_mutex_lock(probe_run);
        }
        /* Again: the thread that held probe_run may have just asked. */
        if (!probe_recent(sc, apr_time_now(), &p)) {
            probe_store(r, sc, &p);
            probe_keep(sc, &p);
        }
        if (probe_lock != NULL) {
            apr_thread_mutex_unlock(probe_run);
        }
    }
    if (p.failure != NULL) {
        return unhealthy(r, details, p.failure);
    }
    if (!details) {
        return answer(r, HTTP_OK, "{\"status\":\"ok\"}");
    }
    return answer(r, HTTP_OK,
                  apr_psprintf(r->pool,
                               "{\"status\":\"ok\",\"version\":\"%s\","
                               "\"keys\":%d,\"store_ms\":%" APR_TIME_T_FMT
                               ".%03" APR_TIME_T_FMT "}",
                               HSC_VERSION, hsc_keyring_count(sc->keys),
                               p.took / 1000, p.took % 1000));
}

void hsc_health_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_handler(health_handler, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(health_child_init, NULL, NULL, APR_HOOK_MIDDLE);
}
