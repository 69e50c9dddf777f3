/*
 * mod_hsc.c: httpd glue for hardened stateless session cookies.
 *
 * The module record and its hooks: the check_authn hook for AuthType HSC,
 * the hsc-group authz provider, the per-thread user store cache, and the
 * one mapping of a status to a log level and an HTTP status. Directives
 * live in mod_hsc_config.c, the login and logout handlers in
 * mod_hsc_login.c, throttling in mod_hsc_throttle.c (which registers its
 * own hooks); everything that parses untrusted bytes or does cryptography
 * lives in hsc_core/.
 */
#include <string.h>
#include <unistd.h>

#include "apr_strings.h"
#include "apr_thread_proc.h"
#include "apr_lib.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "mod_auth.h"

#include "mod_hsc_log.h"
#include "mod_hsc.h"
#include "mod_hsc_ops.h"
#include "hsc_http.h"
#include "hsc_cache.h"

/* --- startup -------------------------------------------------------------- */

/*
 * The key file's warning (mode too open), once per server that has its own
 * (vhosts inherit the main server's). flags: APLOG_STARTUP for `httpd -t`,
 * whose output has no error log prefix. One call site, so one tag.
 */
static void log_key_warning(server_rec *s, const hsc_srv_conf_t *sc,
                            const char **warned, int flags)
{
    if (sc->key_warning != NULL && sc->key_warning != *warned) {
        ap_log_error(APLOG_MARK, flags | APLOG_WARNING, 0, s,
                     HSCLOGNO(003) "%s", sc->key_warning);
        *warned = sc->key_warning;
    }
}

/*
 * `httpd -t` (and apachectl configtest) only: the key file warnings that a
 * start logs in post_config (HSC003), which a configuration test never
 * reaches, so that the test shows them too.
 */
static void hsc_test_config(apr_pool_t *pconf, server_rec *main_s)
{
    const char *warned = NULL;
    server_rec *s;

    (void)pconf;
    for (s = main_s; s != NULL; s = s->next) {
        log_key_warning(s, ap_get_module_config(s->module_config, &hsc_module),
                        &warned, APLOG_STARTUP);
    }
}

/* Distinct user databases, numbered for the per-thread store cache. */
static int hsc_db_count;
/* Their paths, by number (pconf), and each one's record cache in this
 * child (NULL: off), shared by the child's threads. */
static const char **hsc_db_paths;
static hsc_cache_t **hsc_db_caches;

/* What hsc_pre_config did to SQLite in this process: 1 tuned, 0 not. */
static int hsc_sqlite_tuned;

/*
 * Before any directive opens a database, and while httpd has one thread:
 * the only moment SQLite's process-wide settings may change (the children
 * inherit them).
 */
static int hsc_pre_config(apr_pool_t *pconf, apr_pool_t *plog,
                          apr_pool_t *ptemp)
{
    (void)pconf;
    (void)plog;
    (void)ptemp;
    hsc_sqlite_tuned = hsc_store_sqlite_process_init();
    hsc_userdb_pre_config();
    return OK;
}

static int hsc_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                           apr_pool_t *ptemp, server_rec *main_s)
{
    server_rec *s;
    const char **paths;
    const char *warned = NULL;
    int n = 0;

    (void)pconf;
    (void)plog;
    for (s = main_s; s != NULL; s = s->next) {
        ++n;
    }
    paths = apr_pcalloc(ptemp, sizeof(*paths) * (apr_size_t)n);
    hsc_db_count = 0;
    hsc_db_paths = apr_pcalloc(pconf, sizeof(*paths) * (apr_size_t)n);
    for (s = main_s; s != NULL; s = s->next) {
        hsc_srv_conf_t *sc = ap_get_module_config(s->module_config,
                                                  &hsc_module);
        int i;

        /* Once per (re)start: not in the first of httpd's two passes. */
        if (ap_state_query(AP_SQ_MAIN_STATE) != AP_SQ_MS_CREATE_PRE_CONFIG) {
            log_key_warning(s, sc, &warned, 0);
        }
        sc->db_index = -1;
        if (sc->userdb == NULL) {
            continue;
        }
        for (i = 0; i < hsc_db_count; ++i) {
            if (!strcmp(paths[i], sc->userdb)) {
                break;
            }
        }
        if (i == hsc_db_count) {
            hsc_db_paths[hsc_db_count] = sc->userdb;
            paths[hsc_db_count++] = sc->userdb;
        }
        sc->db_index = i;
    }
    if (hsc_db_count > 0) {
        ap_log_error(
            APLOG_MARK, APLOG_DEBUG, 0, main_s, HSCLOGNO(009) "%s",
            hsc_sqlite_tuned
                ? "SQLite's memory statistics are off (no process-wide mutex "
                  "per allocation)"
                : "SQLite was in use before this configuration pass; its "
                  "process-wide settings are left as they were");
    }
    /* As mod_ssl and mod_md do: the version once per (re)start. */
    if (ap_state_query(AP_SQ_MAIN_STATE) != AP_SQ_MS_CREATE_PRE_CONFIG) {
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, main_s,
                     HSCLOGNO(019) "mod_hsc/%s configured", HSC_VERSION);
    }
    return OK;
}

/* --- the per-thread store cache ------------------------------------------ */

/*
 * Each thread that serves requests keeps its own handles, one per distinct
 * user database, opened on first use and closed when the thread exits:
 * SQLite connections are not shared, so no lock is taken by all threads
 * around the database, and every request still reads the current user
 * table (hsc-admin changes take effect on the next request). The key is
 * the database's number from post_config; a restart makes new children,
 * so numbers never go stale.
 */
typedef struct {
    int n;
    hsc_store_t *s[1]; /* n of them */
} hsc_thread_stores_t;

static apr_threadkey_t *hsc_store_key;

static void hsc_thread_stores_free(void *v)
{
    hsc_thread_stores_t *ts = v;
    int i;

    for (i = 0; ts != NULL && i < ts->n; ++i) {
        hsc_store_close(ts->s[i]);
    }
    free(ts);
}

/*
 * One record cache per user database in this child, shared by its
 * threads (hsc_core/hsc_cache.c). Its memory is reserved, not touched: the
 * child's RSS grows as records land, up to the size logged here. The
 * caches live as long as the process (threads may still hold handles that
 * point to them while pchild is destroyed).
 */
static void hsc_child_caches(apr_pool_t *pchild, server_rec *s)
{
    const hsc_srv_conf_t *sc = ap_get_module_config(s->module_config,
                                                    &hsc_module);
    apr_int64_t size = sc->user_cache_size < 0 ? HSC_CACHE_DEFAULT_ENTRIES
                                               : sc->user_cache_size;
    hsc_status_t st;
    int i;

    hsc_db_caches = NULL;
    if (hsc_db_count == 0) {
        return;
    }
    hsc_db_caches = apr_pcalloc(pchild, sizeof(*hsc_db_caches)
                                            * (apr_size_t)hsc_db_count);
    if (sc->userdb_cache == 0 || size == 0) {
        ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, s,
                     HSCLOGNO(100) "user record cache off in this child (%s)",
                     sc->userdb_cache == 0 ? "HSCUserDBCache Off"
                                           : "HSCUserCacheSize 0");
        return;
    }
    for (i = 0; i < hsc_db_count; ++i) {
        st = hsc_cache_create((size_t)size, 0, &hsc_db_caches[i]);
        if (st != HSC_OK) {
            /* Slower, never wrong: every request asks the database. */
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                         HSCLOGNO(101) "cannot reserve the user record cache "
                                       "of %" APR_INT64_T_FMT
                                       " records for %s: %s; every request "
                                       "reads the database",
                         size, hsc_userdb_shown(pchild, hsc_db_paths[i]),
                         hsc_strerror(st));
            hsc_db_caches[i] = NULL;
            continue;
        }
        ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, s,
                     HSCLOGNO(102) "user record cache for %s: "
                                   "%" APR_SIZE_T_FMT " records shared by this "
                                   "child's threads, at most %.1f MiB (%d "
                                   "bytes a record)",
                     hsc_userdb_shown(pchild, hsc_db_paths[i]),
                     hsc_cache_entries(hsc_db_caches[i]),
                     (double)hsc_cache_bytes(hsc_db_caches[i])
                         / (1024.0 * 1024.0),
                     HSC_CACHE_RECORD);
    }
}

static void hsc_child_init(apr_pool_t *pchild, server_rec *s)
{
    apr_status_t rv = apr_threadkey_private_create(&hsc_store_key,
                                                   hsc_thread_stores_free,
                                                   pchild);

    hsc_child_caches(pchild, s);

    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s,
                     HSCLOGNO(004) "cannot create the thread key for store "
                                   "handles");
        hsc_store_key = NULL;
    }
    hsc_userdb_child_init(pchild, s);
}

hsc_store_t *hsc_thread_store(request_rec *r, const hsc_srv_conf_t *sc)
{
    void *v = NULL;
    hsc_thread_stores_t *ts;
    char errbuf[256];
    hsc_status_t st;

    if (hsc_store_key == NULL || sc->db_index < 0
        || sc->db_index >= hsc_db_count) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(005) "no user database for this server");
        return NULL;
    }
    if (apr_threadkey_private_get(&v, hsc_store_key) != APR_SUCCESS) {
        v = NULL;
    }
    ts = v;
    if (ts == NULL) {
        ts = calloc(1,
                    sizeof(*ts) + sizeof(ts->s[0]) * (apr_size_t)hsc_db_count);
        if (ts == NULL) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                          HSCLOGNO(065) "out of memory for this thread's store "
                                        "handles");
            return NULL;
        }
        ts->n = hsc_db_count;
        if (apr_threadkey_private_set(ts, hsc_store_key) != APR_SUCCESS) {
            free(ts);
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                          HSCLOGNO(066) "cannot keep this thread's store "
                                        "handles (thread key)");
            return NULL;
        }
    }
    if (ts->s[sc->db_index] == NULL) {
        errbuf[0] = '\0';
        /* httpd never changes the schema: hsc-admin init does. */
        st = hsc_userdb_open(sc->userdb,
                             HSC_STORE_NOCACHE | HSC_STORE_NOMIGRATE,
                             &ts->s[sc->db_index], errbuf, sizeof(errbuf));
        if (st != HSC_OK) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                          HSCLOGNO(006) "cannot open user database %s: %s (%s)",
                          hsc_userdb_shown(r->pool, sc->userdb), errbuf,
                          hsc_strerror(st));
            hsc_ops_store_error(r);
            ts->s[sc->db_index] = NULL;
            return NULL;
        }
        if (hsc_db_caches != NULL) {
            hsc_store_use_cache(ts->s[sc->db_index],
                                hsc_db_caches[sc->db_index]);
        }
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r,
                      HSCLOGNO(008) "user database %s opened for this thread "
                                    "(record cache %s)",
                      hsc_userdb_shown(r->pool, sc->userdb),
                      hsc_db_caches != NULL
                              && hsc_db_caches[sc->db_index] != NULL
                          ? "shared by the child's threads"
                          : "off");
    }
    return ts->s[sc->db_index];
}

/*
 * SetHandler hsc-cache-status: this child's record caches as text (for
 * benchmarks and capacity planning; a location an admin protects like
 * server-status). One line per database: pid, capacity, the bound in
 * bytes, live records, hits, misses, puts, evictions, refused puts,
 * clears.
 */
static int hsc_cache_status_handler(request_rec *r)
{
    int i;

    if (r->handler == NULL || strcmp(r->handler, "hsc-cache-status") != 0) {
        return DECLINED;
    }
    if (r->method_number != M_GET) {
        return HTTP_METHOD_NOT_ALLOWED;
    }
    ap_set_content_type(r, "text/plain; charset=utf-8");
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    if (r->header_only) {
        return OK;
    }
    for (i = 0; i < hsc_db_count; ++i) {
        hsc_cache_t *c = hsc_db_caches != NULL ? hsc_db_caches[i] : NULL;
        hsc_cache_stats_t st;

        if (c == NULL) {
            ap_rprintf(r, "db=%s pid=%" APR_PID_T_FMT " cache=off\n",
                       hsc_userdb_shown(r->pool, hsc_db_paths[i]), getpid());
            continue;
        }
        hsc_cache_stats(c, &st);
        ap_rprintf(r,
                   "db=%s pid=%" APR_PID_T_FMT " entries=%" APR_SIZE_T_FMT
                   " bytes=%" APR_SIZE_T_FMT " live=%" APR_SIZE_T_FMT
                   " hits=%" APR_UINT64_T_FMT " misses=%" APR_UINT64_T_FMT
                   " puts=%" APR_UINT64_T_FMT " evictions=%" APR_UINT64_T_FMT
                   " refused=%" APR_UINT64_T_FMT " clears=%" APR_UINT64_T_FMT
                   "\n",
                   hsc_userdb_shown(r->pool, hsc_db_paths[i]), getpid(),
                   st.entries, st.bytes, hsc_cache_count(c), st.hits, st.misses,
                   st.puts, st.evictions, st.refused, st.clears);
    }
    return OK;
}

/* --- the one status mapping ---------------------------------------------- */

int hsc_status_outcome(hsc_status_t st, int *level)
{
    switch (hsc_status_class(st)) {
    case HSC_CLASS_OK: *level = APLOG_DEBUG; return OK;
    case HSC_CLASS_REFUSAL: /* ordinary ends: quietly */
        *level = APLOG_INFO;
        return HTTP_UNAUTHORIZED;
    case HSC_CLASS_FORGERY: /* nobody honest sends these: loudly */
        *level = APLOG_WARNING;
        return HTTP_UNAUTHORIZED;
    case HSC_CLASS_FAULT: break;
    }
    *level = APLOG_ERR;
    /* Fail closed; a store or memory fault may pass, so come back. */
    return st == HSC_ECRYPTO ? HTTP_INTERNAL_SERVER_ERROR
                             : HTTP_SERVICE_UNAVAILABLE;
}

/* --- authentication ------------------------------------------------------- */

void hsc_verify_params(request_rec *r, const hsc_srv_conf_t *sc,
                       const hsc_dir_conf_t *d, hsc_verify_params_t *vp)
{
    vp->keys = sc->keys;
    vp->scope = d->scope;
    vp->address = d->bind_address ? r->useragent_ip : "";
    vp->now = (int64_t)apr_time_sec(r->request_time);
    vp->skew = d->skew;
    vp->max_age = d->max_age;
}

hsc_status_t hsc_verify_request(request_rec *r, const hsc_srv_conf_t *sc,
                                const hsc_dir_conf_t *d, hsc_store_t *store,
                                hsc_cookie_t *c, hsc_user_t *u)
{
    const char *val;
    size_t vallen;
    int count;
    hsc_status_t st;
    hsc_verify_params_t vp;

    st = hsc_cookie_header_find(apr_table_get(r->headers_in, "Cookie"),
                                d->cookie_name, &val, &vallen, &count);
    if (st == HSC_EINVAL) {
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r,
                      HSCLOGNO(010) "no %s cookie in the request",
                      d->cookie_name);
        return HSC_EINVAL;
    }
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r,
                      HSCLOGNO(011) "refused: %d cookies named %s in the "
                                    "request",
                      count, d->cookie_name);
        hsc_ops_cookie(r, NULL, NULL, 0, HSC_EMALFORMED, NULL);
        return HSC_EMALFORMED;
    }
    hsc_verify_params(r, sc, d, &vp);
    st = hsc_cookie_verify(&vp, store, val, vallen, c, u);
    hsc_store_note_recovery(r, sc, store);
    hsc_ops_cookie(r, &vp, val, vallen, st, c);
    if (st != HSC_OK) {
        int level;

        (void)hsc_status_outcome(st, &level);
        /* A database outage is logged once at error, then quietly. */
        if (st == HSC_ESTORE && hsc_store_repeat_fault(store)) {
            level = APLOG_DEBUG;
        }
        ap_log_rerror(APLOG_MARK, level, 0, r,
                      HSCLOGNO(012) "cookie refused: %s%s%s", hsc_strerror(st),
                      st == HSC_ESTORE ? ": " : "",
                      st == HSC_ESTORE ? hsc_store_errmsg(store) : "");
    }
    return st;
}

/* Tell the rest of httpd: r->user, the auth type, the environment. */
static void export_verdict(request_rec *r, const hsc_req_t *rq)
{
    r->user = (char *)rq->user;
    r->ap_auth_type = (char *)HSC_AUTH_TYPE;
    apr_table_setn(r->subprocess_env, "HSC_USER", rq->user);
    apr_table_setn(r->subprocess_env, "HSC_GROUPS", rq->groups);
    apr_table_setn(r->subprocess_env, "HSC_LOGIN_TIME", rq->iat);
    apr_table_setn(r->subprocess_env, "HSC_EXPIRES", rq->exp);
}

/* Record the verdict on r: user, auth type, environment, request config. */
static void set_verdict(request_rec *r, const hsc_cookie_t *c,
                        const hsc_user_t *u, int64_t exp)
{
    size_t glen = strlen(u->groups);
    hsc_req_t *rq = apr_palloc(r->pool, sizeof(*rq) + c->user_len + glen + 2);
    char *buf = (char *)(rq + 1);

    memcpy(buf, c->user, c->user_len);
    buf[c->user_len] = '\0';
    rq->user = buf;
    buf += c->user_len + 1;
    memcpy(buf, u->groups, glen + 1);
    rq->groups = buf;
    hsc_format_time(c->iat, rq->iat);
    hsc_format_time(exp, rq->exp);
    ap_set_module_config(r->request_config, &hsc_module, rq);

    export_verdict(r, rq);
}

/*
 * 1 when a verdict reached under a and one under b would be the same: the
 * same cookie, scope, address binding and age limits. A subrequest or
 * internal redirect into a location that wants another cookie or scope
 * (an SSI include, an ErrorDocument, a rewrite) must verify afresh.
 */
static int same_verification(const hsc_dir_conf_t *a, const hsc_dir_conf_t *b)
{
    return a == b
           || (a != NULL && b != NULL && !strcmp(a->cookie_name, b->cookie_name)
               && !strcmp(a->scope, b->scope)
               && a->bind_address == b->bind_address && a->max_age == b->max_age
               && a->skew == b->skew);
}

/* The verdict of the main or an earlier request of this one, when it was
 * reached on the same server under the same rules as r's; else NULL. */
static const hsc_req_t *inherited_verdict(const request_rec *r)
{
    const request_rec *o;

    for (o = r->main ? r->main : r->prev; o != NULL;
         o = o->main ? o->main : o->prev) {
        const hsc_req_t *rq = ap_get_module_config(o->request_config,
                                                   &hsc_module);
        if (rq != NULL && o->user != NULL) {
            if (o->server != r->server
                || !same_verification(ap_get_module_config(r->per_dir_config,
                                                           &hsc_module),
                                      ap_get_module_config(o->per_dir_config,
                                                           &hsc_module))) {
                return NULL;
            }
            return rq;
        }
    }
    return NULL;
}

/* The answer to a request without a valid cookie: 302 or 401. */
static int unauthenticated(request_rec *r, const hsc_dir_conf_t *d)
{
    int redirect;

    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    switch (d->unauth) {
    case HSC_UNAUTHENTICATED_REDIRECT: redirect = 1; break;
    case HSC_UNAUTHENTICATED_401: redirect = 0; break;
    default: {
        /* A browser navigation: GET or HEAD that accepts HTML. */
        const char *accept = apr_table_get(r->headers_in, "Accept");
        redirect = r->method_number == M_GET && accept != NULL
                   && ap_strcasestr(accept, "text/html") != NULL;
        break;
    }
    }
    if (redirect && d->login_url != NULL) {
        const char *loc = d->login_url;
        /* Only origin-form targets can come back: never "http://x/..." */
        if (r->unparsed_uri != NULL && r->unparsed_uri[0] == '/') {
            char *ret = apr_palloc(r->pool, 3 * strlen(r->unparsed_uri) + 1);
            hsc_query_escape(r->unparsed_uri, ret);
            loc = apr_pstrcat(r->pool, loc, strchr(loc, '?') ? "&" : "?",
                              "return=", ret, NULL);
        }
        apr_table_setn(r->headers_out, "Location", loc);
        return HTTP_MOVED_TEMPORARILY;
    }
    apr_table_setn(r->err_headers_out, "WWW-Authenticate", HSC_AUTH_TYPE);
    return HTTP_UNAUTHORIZED;
}

/*
 * The sliding refresh: past half the idle timeout, re-issue the cookie with
 * a later expiry (never past the max age). Returns the expiry the client
 * holds after this response.
 */
static int64_t slide_expiry(request_rec *r, const hsc_srv_conf_t *sc,
                            const hsc_dir_conf_t *d, const hsc_cookie_t *c)
{
    int64_t now = (int64_t)apr_time_sec(r->request_time), exp;
    hsc_verify_params_t vp;
    char value[HSC_COOKIE_VALUE_MAX];
    size_t len;
    hsc_status_t st;

    if (!d->refresh || !hsc_cookie_needs_refresh(c, now, d->idle, d->max_age)) {
        return c->exp;
    }
    hsc_verify_params(r, sc, d, &vp);
    st = hsc_cookie_refresh(&vp, c, d->idle, value, sizeof(value), &len);
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(015) "cookie refresh failed: %s",
                      hsc_strerror(st));
        return c->exp;
    }
    exp = hsc_cookie_expiry(c->iat, now, d->idle, d->max_age);
    if (hsc_set_cookie(r, d, value, exp - now) != 0) {
        exp = c->exp;
    }
    else {
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r,
                      HSCLOGNO(014) "cookie refreshed until %" APR_INT64_T_FMT,
                      (apr_int64_t)exp);
    }
    hsc_wipe(value, sizeof(value));
    return exp;
}

/*
 * The user database cannot answer (gone, locked, unreadable, foreign; the
 * cause is logged by the caller): the request is refused, and the client
 * told to come back, since the store re-opens its file by itself.
 */
int hsc_store_unavailable(request_rec *r)
{
    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    apr_table_setn(r->err_headers_out, "Retry-After", "5");
    return HTTP_SERVICE_UNAVAILABLE;
}

void hsc_store_note_recovery(request_rec *r, const hsc_srv_conf_t *sc,
                             hsc_store_t *store)
{
    if (hsc_store_take_recovery(store)) {
        ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                      HSCLOGNO(182) "user database %s answers again; the "
                                    "outage logged before is over in this "
                                    "child",
                      hsc_userdb_shown(r->pool, sc->userdb));
    }
}

/*
 * check_authn for AuthType HSC: find the cookie, verify it (the spec's six
 * steps in hsc_cookie_verify), record the verdict, slide the expiry.
 */
static int hsc_check_authn(request_rec *r)
{
    const char *type = ap_auth_type(r);
    const hsc_srv_conf_t *sc;
    const hsc_dir_conf_t *d;
    const hsc_req_t *prev;
    hsc_store_t *store;
    hsc_cookie_t c;
    hsc_user_t u;
    hsc_status_t st;

    if (type == NULL || strcasecmp(type, HSC_AUTH_TYPE) != 0) {
        return DECLINED;
    }
    /* Subrequests and internal redirects reuse the first verdict (an
     * internal redirect renames the environment to REDIRECT_*: set it). */
    if ((prev = inherited_verdict(r)) != NULL) {
        ap_set_module_config(r->request_config, &hsc_module, (void *)prev);
        export_verdict(r, prev);
        hsc_private_mark(r, 0);
        return OK;
    }
    sc = ap_get_module_config(r->server->module_config, &hsc_module);
    d = ap_get_module_config(r->per_dir_config, &hsc_module);
    if (sc->keys == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(013) "AuthType HSC without HSCKeyFile");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    if ((store = hsc_thread_store(r, sc)) == NULL) {
        return hsc_store_unavailable(r);
    }
    st = hsc_verify_request(r, sc, d, store, &c, &u);
    if (st != HSC_OK) {
        int level; /* logged by hsc_verify_request */

        switch (hsc_status_outcome(st, &level)) {
        case HTTP_SERVICE_UNAVAILABLE: return hsc_store_unavailable(r);
        case HTTP_UNAUTHORIZED: return unauthenticated(r, d);
        default: return HTTP_INTERNAL_SERVER_ERROR;
        }
    }

    set_verdict(r, &c, &u, slide_expiry(r, sc, d, &c));
    hsc_wipe(&c, sizeof(c));
    /* Private to this user; no-store when slide_expiry set the cookie. */
    hsc_private_mark(r, 0);
    return OK;
}

/* --- Set-Cookie ----------------------------------------------------------- */

int hsc_set_cookie(request_rec *r, const hsc_dir_conf_t *d, const char *value,
                   apr_int64_t lifetime)
{
    hsc_cookie_attrs_t a = hsc_cookie_attrs(d);
    const char *problem = hsc_cookie_attrs_conflict(&a);
    apr_size_t cap;
    char *line;

    if (problem != NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(016) "no cookie set: %s", problem);
        return -1;
    }
    hsc_warn_insecure_cookie(r, d);
    if (lifetime < 0) {
        lifetime = 0;
    }
    /* The attributes' and the date's text, with room to spare. */
    cap = strlen(a.name) + strlen(value) + strlen(a.path)
          + (a.domain ? strlen(a.domain) : 0) + 128;
    line = apr_palloc(r->pool, cap);
    if (!hsc_set_cookie_line(&a, value, lifetime,
                             lifetime ? apr_time_sec(r->request_time) + lifetime
                                      : 0,
                             line, cap)) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(185) "no cookie set: a cookie attribute or "
                                    "the value is not allowed in Set-Cookie");
        return -1;
    }
    hsc_private_mark(r, 1); /* never stored by a shared cache */
    apr_table_addn(r->err_headers_out, "Set-Cookie", line);
    return 0;
}

/* --- authorization: Require hsc-group ------------------------------------ */

/* The group names of a Require line, checked once at config time. */
static const char *hsc_group_parse(cmd_parms *cmd, const char *line,
                                   const void **parsed)
{
    apr_array_header_t *groups = apr_array_make(cmd->pool, 4,
                                                sizeof(const char *));
    const char *w;

    while (*(w = ap_getword_conf(cmd->pool, &line)) != '\0') {
        if (!hsc_groupname_valid(w, strlen(w))) {
            return apr_pstrcat(cmd->pool, "Require hsc-group: '", w,
                               "' is not a valid group name", NULL);
        }
        *(const char **)apr_array_push(groups) = w;
    }
    if (groups->nelts == 0) {
        return "Require hsc-group: name at least one group";
    }
    *parsed = groups;
    return NULL;
}

/* Granted when the user (verified by this module) is in any listed group. */
static authz_status hsc_group_check(request_rec *r, const char *line,
                                    const void *parsed)
{
    const apr_array_header_t *groups = parsed;
    const hsc_req_t *rq;
    int i;

    (void)line;
    if (r->user == NULL) {
        return AUTHZ_DENIED_NO_USER;
    }
    rq = ap_get_module_config(r->request_config, &hsc_module);
    if (rq == NULL) {
        rq = inherited_verdict(r);
    }
    if (rq == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(017) "Require hsc-group needs AuthType HSC");
        return AUTHZ_DENIED;
    }
    for (i = 0; i < groups->nelts; ++i) {
        const char *g = ((const char **)groups->elts)[i];
        if (hsc_groups_contain(rq->groups, g, strlen(g))) {
            return AUTHZ_GRANTED;
        }
    }
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(018) "user %s is in none of the groups required",
                  r->user);
    return AUTHZ_DENIED;
}

static const authz_provider hsc_group_provider = {
    &hsc_group_check,
    &hsc_group_parse,
};

static void hsc_register_hooks(apr_pool_t *p)
{
    ap_hook_pre_config(hsc_pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_check_config(hsc_check_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_test_config(hsc_test_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(hsc_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(hsc_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_check_authn(hsc_check_authn, NULL, NULL, APR_HOOK_MIDDLE,
                        AP_AUTH_INTERNAL_PER_CONF);
    ap_hook_handler(hsc_login_handler, NULL, NULL, APR_HOOK_MIDDLE);
    hsc_ops_register_hooks(p);
    ap_hook_handler(hsc_logout_handler, NULL, NULL, APR_HOOK_MIDDLE);
    hsc_throttle_register_hooks(p);
    hsc_private_register_hooks(p);
    ap_hook_handler(hsc_cache_status_handler, NULL, NULL, APR_HOOK_MIDDLE);
    ap_register_auth_provider(p, AUTHZ_PROVIDER_GROUP, "hsc-group",
                              AUTHZ_PROVIDER_VERSION, &hsc_group_provider,
                              AP_AUTH_INTERNAL_PER_CONF);
}

module AP_MODULE_DECLARE_DATA
    hsc_module = {STANDARD20_MODULE_STUFF, hsc_create_dir_conf,
                  hsc_merge_dir_conf,      hsc_create_srv_conf,
                  hsc_merge_srv_conf,      hsc_cmds,
                  hsc_register_hooks,      AP_MODULE_FLAG_NONE};
