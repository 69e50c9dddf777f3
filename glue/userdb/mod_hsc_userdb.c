/*
 * mod_hsc_userdb.c: the user store part. Which store HSCUserDB names (an
 * SQLite path or pgsql:), the distinct databases numbered at startup, each
 * thread's handles (hsc_userdb_acquire, as ap_dbd_acquire), each child's
 * record caches and PostgreSQL pools, the 503 answer and the recovery
 * note, the per-user throttle namespace, and hsc-cache-status.
 *
 * The pool directives are global (main server only: hsc_global_conf_t):
 * a child has one pool per distinct conninfo, whatever virtual host asks.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_protocol.h"
#include "apr_strings.h"
#include "apr_atomic.h"
#include "apr_thread_proc.h"

#include "mod_hsc_log.h"
#include "mod_hsc_userdb.h"
#include "hsc_parse.h"
#include "mod_hsc_ops.h"
#include "hsc_cache.h"
#include "hsc_store_sqlite.h"
#ifdef HSC_HAVE_PGSQL
#include "hsc_store_pgsql.h"
#endif

static int is_pgsql(const char *spec)
{
    return hsc_store_spec_conninfo(spec) != NULL;
}

/* This child's SQLite databases, for the "no store id" notice (once per
 * child and file; the array is fixed after child_init). */
typedef struct {
    const char *spec;
    apr_uint32_t noted;
} sqlite_entry_t;
static apr_array_header_t *sqlite_dbs;

static void sqlite_child_init(apr_pool_t *pchild, server_rec *main_s)
{
    server_rec *s;
    int i;

    sqlite_dbs = apr_array_make(pchild, 2, sizeof(sqlite_entry_t));
    for (s = main_s; s != NULL; s = s->next) {
        hsc_srv_conf_t *sc = hsc_srv_conf(s);
        sqlite_entry_t *e;

        if (sc->userdb == NULL || is_pgsql(sc->userdb)) {
            continue;
        }
        for (i = 0; i < sqlite_dbs->nelts; ++i) {
            if (!strcmp(APR_ARRAY_IDX(sqlite_dbs, i, sqlite_entry_t).spec,
                        sc->userdb)) {
                break;
            }
        }
        if (i == sqlite_dbs->nelts) {
            e = apr_array_push(sqlite_dbs);
            e->spec = sc->userdb;
            e->noted = 0;
        }
    }
}

/*
 * An SQLite file's store id ("store:<id>", as for PostgreSQL), read by the
 * thread's handle. A file of schema version 1 has none until hsc-admin
 * init upgrades it: its path as written, and a notice once per child.
 */
static const char *sqlite_throttle_ns(request_rec *r, const char *spec,
                                      hsc_store_t *store)
{
    char id[HSC_STORE_ID_SIZE];
    hsc_status_t st;
    int i;

    st = store != NULL ? hsc_store_id(store, id, sizeof(id)) : HSC_ESTORE;
    if (st == HSC_OK) {
        return apr_pstrcat(r->pool, "store:", id, NULL);
    }
    /* HSC_ESTORE: the file is gone or damaged; the login's own lookup
     * fails and says so. */
    for (i = 0; st == HSC_EINVAL && sqlite_dbs != NULL && i < sqlite_dbs->nelts;
         ++i) {
        sqlite_entry_t *e = &APR_ARRAY_IDX(sqlite_dbs, i, sqlite_entry_t);

        if (!strcmp(e->spec, spec) && apr_atomic_cas32(&e->noted, 1, 0) == 0) {
            ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                          HSCLOGNO(181) "%s: %s; failed logins per username "
                                        "are counted under the path as "
                                        "written until then",
                          spec, hsc_store_errmsg(store));
        }
    }
    return spec;
}

#ifdef HSC_HAVE_PGSQL

/* This child's pools: one per distinct spec. */
typedef struct {
    const char *spec;
    hsc_pg_pool_t *pool;
} pool_entry_t;
static apr_array_header_t *pools;

static void options(hsc_pg_options_t *o, const hsc_global_conf_t *g)
{
    hsc_pg_options_default(o);
    o->pool_size = g->pool_size;
    o->wait_ms = g->pool_wait_ms;
    o->max_stale_ms = g->max_stale_ms;
    o->statement_timeout_ms = g->statement_timeout_ms;
}

const char *hsc_userdb_shown(apr_pool_t *p, const char *spec)
{
    char buf[512];

    if (!is_pgsql(spec)) {
        return spec;
    }
    hsc_pg_redact(hsc_store_spec_conninfo(spec), buf, sizeof(buf));
    return apr_pstrcat(p, HSC_STORE_PGSQL_PREFIX, buf, NULL);
}

static apr_status_t pools_destroy(void *v)
{
    int i;

    (void)v;
    for (i = 0; pools != NULL && i < pools->nelts; ++i) {
        hsc_pg_pool_destroy(APR_ARRAY_IDX(pools, i, pool_entry_t).pool);
    }
    pools = NULL;
    return APR_SUCCESS;
}

static void pools_child_init(apr_pool_t *pchild, server_rec *main_s)
{
    server_rec *s;
    int i;

    sqlite_child_init(pchild, main_s);
    pools = apr_array_make(pchild, 2, sizeof(pool_entry_t));
    apr_pool_cleanup_register(pchild, NULL, pools_destroy,
                              apr_pool_cleanup_null);
    for (s = main_s; s != NULL; s = s->next) {
        hsc_srv_conf_t *sc = hsc_srv_conf(s);
        hsc_pg_options_t o;
        pool_entry_t *e;
        char errbuf[256];

        options(&o, sc->global);
        if (!is_pgsql(sc->userdb)) {
            continue;
        }
        for (i = 0; i < pools->nelts; ++i) {
            if (!strcmp(APR_ARRAY_IDX(pools, i, pool_entry_t).spec,
                        sc->userdb)) {
                break;
            }
        }
        if (i < pools->nelts) {
            continue;
        }
        if (sc->userdb_cache == 0) {
            o.max_stale_ms = 0;
        }
        e = apr_array_push(pools);
        e->spec = sc->userdb;
        e->pool = NULL;
        if (hsc_pg_pool_create(hsc_store_spec_conninfo(sc->userdb), &o,
                               &e->pool, errbuf, sizeof(errbuf))
            != HSC_OK) {
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s, HSCLOGNO(180) "%s: %s",
                         hsc_userdb_shown(pchild, sc->userdb), errbuf);
        }
    }
}

const char *hsc_userdb_throttle_ns(request_rec *r, const char *spec,
                                   hsc_store_t *store)
{
    char id[HSC_STORE_ID_SIZE];
    hsc_store_t *s = NULL;
    int i;

    if (!is_pgsql(spec)) {
        return sqlite_throttle_ns(r, spec, store);
    }
    for (i = 0; is_pgsql(spec) && pools != NULL && i < pools->nelts; ++i) {
        pool_entry_t *e = &APR_ARRAY_IDX(pools, i, pool_entry_t);

        if (strcmp(e->spec, spec) != 0 || e->pool == NULL) {
            continue;
        }
        /* Known once any connection of the child has read it; else ask
         * now (one statement, once per child). */
        if (!hsc_pg_pool_store_id(e->pool, id, sizeof(id))) {
            id[0] = '\0';
            if (hsc_store_pgsql_open_pool(e->pool, 0, &s) == HSC_OK) {
                /* Unknown (database down): the spec as written, below. This
                 * probe meets an outage first in a child that never reached
                 * the database: it reports it (at error once, then as a
                 * repeat), or the login's own failure would count as one. */
                if (hsc_store_id(s, id, sizeof(id)) != HSC_OK) {
                    id[0] = '\0';
                    ap_log_rerror(APLOG_MARK,
                                  hsc_store_repeat_fault(s) ? APLOG_DEBUG
                                                            : APLOG_ERR,
                                  0, r,
                                  HSCLOGNO(186) "user database %s cannot "
                                                "answer: %s",
                                  hsc_userdb_shown(r->pool, spec),
                                  hsc_store_errmsg(s));
                }
                hsc_store_close(s);
                s = NULL;
            }
        }
        if (id[0] != '\0') {
            return apr_pstrcat(r->pool, "store:", id, NULL);
        }
    }
    return spec != NULL ? spec : "";
}

static hsc_status_t userdb_open(const char *spec, int flags, hsc_store_t **ps,
                                char *errbuf, size_t errlen)
{
    int i;

    if (!is_pgsql(spec)) {
        return hsc_store_sqlite_open(spec, flags, ps, errbuf, errlen);
    }
    *ps = NULL;
    for (i = 0; pools != NULL && i < pools->nelts; ++i) {
        pool_entry_t *e = &APR_ARRAY_IDX(pools, i, pool_entry_t);

        if (!strcmp(e->spec, spec) && e->pool != NULL) {
            return hsc_store_pgsql_open_pool(e->pool, flags, ps);
        }
    }
    apr_cpystrn(errbuf, "no connection pool for this database in this process",
                errlen);
    return HSC_ESTORE;
}

#else /* !HSC_HAVE_PGSQL */

const char *hsc_userdb_shown(apr_pool_t *p, const char *spec)
{
    (void)p;
    return is_pgsql(spec) ? HSC_STORE_PGSQL_PREFIX "..." : spec;
}

static void pools_child_init(apr_pool_t *pchild, server_rec *main_s)
{
    sqlite_child_init(pchild, main_s);
}

const char *hsc_userdb_throttle_ns(request_rec *r, const char *spec,
                                   hsc_store_t *store)
{
    if (spec != NULL && !is_pgsql(spec)) {
        return sqlite_throttle_ns(r, spec, store);
    }
    return spec != NULL ? spec : "";
}

static hsc_status_t userdb_open(const char *spec, int flags, hsc_store_t **ps,
                                char *errbuf, size_t errlen)
{
    return hsc_store_sqlite_open(spec, flags, ps, errbuf, errlen);
}

#endif /* HSC_HAVE_PGSQL */

/* --- the databases, numbered at startup ----------------------------------- */

/* Distinct user databases, numbered for the per-thread store cache. */
static int hsc_db_count;
/* Their paths, by number (pconf), and each one's record cache in this
 * child (NULL: off), shared by the child's threads. */
static const char **hsc_db_paths;
static hsc_cache_t **hsc_db_caches;

/* What userdb_pre_config did to SQLite in this process: 1 tuned, 0 not. */
static int hsc_sqlite_tuned;

/*
 * Before any directive opens a database, and while httpd has one thread:
 * the only moment SQLite's process-wide settings may change (the children
 * inherit them).
 */
static int userdb_pre_config(apr_pool_t *pconf, apr_pool_t *plog,
                             apr_pool_t *ptemp)
{
    (void)pconf;
    (void)plog;
    (void)ptemp;
    hsc_sqlite_tuned = hsc_store_sqlite_process_init();
    return OK;
}

/* Number the distinct user databases (the per-thread handle cache's
 * keys); a restart makes new children, so numbers never go stale. */
static int userdb_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                              apr_pool_t *ptemp, server_rec *main_s)
{
    server_rec *s;
    const char **paths;
    int n = 0;

    (void)plog;
    for (s = main_s; s != NULL; s = s->next) {
        ++n;
    }
    paths = apr_pcalloc(ptemp, sizeof(*paths) * (apr_size_t)n);
    hsc_db_count = 0;
    hsc_db_paths = apr_pcalloc(pconf, sizeof(*paths) * (apr_size_t)n);
    for (s = main_s; s != NULL; s = s->next) {
        hsc_srv_conf_t *sc = hsc_srv_conf(s);
        int i;

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
    return OK;
}

/* --- each thread's handles, each child's caches ----------------------------
 */

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
static void child_caches(apr_pool_t *pchild, server_rec *s)
{
    const hsc_srv_conf_t *sc = hsc_srv_conf(s);
    apr_int64_t size = sc->user_cache_size; /* HSCUserCacheSize, or its
                                             * default */
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

static void userdb_child_init(apr_pool_t *pchild, server_rec *s)
{
    apr_status_t rv = apr_threadkey_private_create(&hsc_store_key,
                                                   hsc_thread_stores_free,
                                                   pchild);

    child_caches(pchild, s);

    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s,
                     HSCLOGNO(004) "cannot create the thread key for store "
                                   "handles");
        hsc_store_key = NULL;
    }
    pools_child_init(pchild, s);
}

hsc_store_t *hsc_userdb_acquire(request_rec *r, const hsc_srv_conf_t *sc)
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
        st = userdb_open(sc->userdb, HSC_STORE_NOCACHE | HSC_STORE_NOMIGRATE,
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
 * The user database cannot answer (gone, locked, unreadable, foreign; the
 * cause is logged by the caller): the request is refused, and the client
 * told to come back, since the store re-opens its file by itself.
 */
int hsc_userdb_unavailable(request_rec *r)
{
    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    apr_table_setn(r->err_headers_out, "Retry-After", "5");
    return HTTP_SERVICE_UNAVAILABLE;
}

void hsc_userdb_note_recovery(request_rec *r, const hsc_srv_conf_t *sc,
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

void hsc_userdb_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_pre_config(userdb_pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(userdb_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(userdb_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(hsc_cache_status_handler, NULL, NULL, APR_HOOK_MIDDLE);
}
