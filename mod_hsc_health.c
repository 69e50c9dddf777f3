/*
 * mod_hsc_health.c: SetHandler hsc-health, for a load balancer's probe.
 *
 * 200 {"status":"ok",...} when this virtual host's key file is loaded and
 * still on disk, and its user database answers a lookup of a name no user
 * can have within HSC_HEALTH_BOUND; otherwise 503 {"status":"unavailable",
 * "reason":"..."}. No KDF, no login, no write: one indexed SQLite query
 * (or a file check), cheap enough to poll every second. Failures are
 * logged at info (HSC163), since a probe repeats them every second.
 */
#include <string.h>

#include "apr_strings.h"
#include "apr_file_info.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"

#include "mod_hsc_log.h"
#include "hsc_version.h"
#include "mod_hsc_ops.h"
#include "mod_hsc_userdb.h"

/* The longest a healthy store may take to answer the probe. */
#define HSC_HEALTH_BOUND apr_time_from_msec(1000)
/* A name the store looks up but no user has: valid for a lookup (a name
 * with a control character would be refused before any query), and
 * starting with U+200B, an invisible character hsc-admin add refuses. Not
 * found, it is never cached: every probe runs the store's query. */
#define HSC_HEALTH_PROBE "\xe2\x80\x8bhsc-health"

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

static int unhealthy(request_rec *r, const char *reason)
{
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(163) "health check: 503: %s", reason);
    apr_table_setn(r->err_headers_out, "Retry-After", "5");
    return answer(r, HTTP_SERVICE_UNAVAILABLE,
                  apr_psprintf(r->pool,
                               "{\"status\":\"unavailable\",\"reason\":"
                               "\"%s\",\"version\":\"%s\"}",
                               reason, HSC_VERSION));
}

static int health_handler(request_rec *r)
{
    const hsc_srv_conf_t *sc = ap_get_module_config(r->server->module_config,
                                                    &hsc_module);
    apr_finfo_t fi;
    hsc_store_t *store;
    hsc_user_t u;
    hsc_status_t st;
    apr_time_t t0, took;

    if (r->handler == NULL || strcmp(r->handler, "hsc-health") != 0) {
        return DECLINED;
    }
    r->allowed = AP_METHOD_BIT << M_GET;
    if (r->method_number != M_GET) {
        return HTTP_METHOD_NOT_ALLOWED;
    }
    if (sc->keys == NULL) {
        return unhealthy(r, "no key file (HSCKeyFile)");
    }
    /* Loaded keys still work, but the next restart would fail. */
    if (apr_stat(&fi, sc->keyfile, APR_FINFO_TYPE, r->pool) != APR_SUCCESS
        || fi.filetype != APR_REG) {
        return unhealthy(r, "key file missing");
    }
    if (sc->userdb == NULL) {
        return unhealthy(r, "no user database (HSCUserDB)");
    }
    t0 = apr_time_now();
    if ((store = hsc_userdb_acquire(r, sc)) == NULL) {
        return unhealthy(r, "user store down"); /* HSC006 says why */
    }
    st = hsc_store_get(store, HSC_HEALTH_PROBE, strlen(HSC_HEALTH_PROBE), &u);
    took = apr_time_now() - t0;
    hsc_userdb_note_recovery(r, sc, store);
    if (st != HSC_OK && st != HSC_ENOUSER) {
        hsc_ops_store_error(r);
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(164) "health check: user store: %s (%s)",
                      hsc_strerror(st), hsc_store_errmsg(store));
        return unhealthy(r, "user store down");
    }
    if (took > HSC_HEALTH_BOUND) {
        return unhealthy(r, "user store slow");
    }
    return answer(r, HTTP_OK,
                  apr_psprintf(r->pool,
                               "{\"status\":\"ok\",\"version\":\"%s\","
                               "\"keys\":%d,\"store_ms\":%" APR_TIME_T_FMT
                               ".%03" APR_TIME_T_FMT "}",
                               HSC_VERSION, hsc_keyring_count(sc->keys),
                               took / 1000, took % 1000));
}

void hsc_health_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_handler(health_handler, NULL, NULL, APR_HOOK_MIDDLE);
}
