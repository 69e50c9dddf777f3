/*
 * mod_hsc_pgsql.c: which store HSCUserDB names, and the PostgreSQL glue:
 * the pool directives, one pool (connections and record cache) per child
 * process and database, shared by the child's threads.
 *
 * The pool directives are global (main server only): a child has one
 * pool per distinct conninfo, whatever virtual host asks. Their values
 * live here, reset before each configuration pass.
 */
#include <stdlib.h>
#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "apr_strings.h"
#include "apr_atomic.h"

#include "mod_hsc_log.h"
#include "mod_hsc.h"
#ifdef HSC_HAVE_PGSQL
#include "hsc_store_pgsql.h"
#endif

static int is_pgsql(const char *spec)
{
    return spec != NULL
           && strncmp(spec, HSC_STORE_PGSQL_PREFIX,
                      sizeof(HSC_STORE_PGSQL_PREFIX) - 1)
                  == 0;
}

/* The directives' values, checked in every build (milliseconds). */
static struct {
    int pool_size, wait_ms, max_stale_ms, statement_timeout_ms;
} pg_opt;

void hsc_userdb_pre_config(void)
{
    /* hsc_core/hsc_defaults.h (docs/directives.md, test_defaults). */
    pg_opt.pool_size = HSC_DEFAULT_USERDB_POOL_SIZE;
    pg_opt.wait_ms = HSC_DEFAULT_USERDB_POOL_WAIT_MS;
    pg_opt.max_stale_ms = HSC_DEFAULT_USERDB_MAX_STALE_MS;
    pg_opt.statement_timeout_ms = HSC_DEFAULT_USERDB_TIMEOUT_MS;
}

/* A duration in [lo, hi] ms: digits, then "ms", "s" or nothing (seconds). */
static const char *parse_ms(cmd_parms *cmd, const char *arg, int lo, int hi,
                            int *out)
{
    char *end;
    long long v;

    v = (*arg >= '0' && *arg <= '9') ? strtoll(arg, &end, 10) : -1;
    if (v >= 0 && v <= 3600000 && strcmp(end, "ms") == 0) {
        /* milliseconds as given */
    }
    else if (v >= 0 && v <= 3600 && (*end == '\0' || !strcmp(end, "s"))) {
        v *= 1000;
    }
    else {
        v = -1;
    }
    if (v < lo || v > hi) {
        return apr_psprintf(cmd->pool,
                            "%s: '%s' is not a duration from %dms to %dms "
                            "(e.g. 500ms, 1s)",
                            cmd->cmd->name, arg, lo, hi);
    }
    *out = (int)v;
    return NULL;
}

/* Pool directives: global (main server only), one setter each. */
static const char *global_only(cmd_parms *cmd)
{
    return ap_check_cmd_context(cmd, GLOBAL_ONLY);
}

/* HSCUserDBPoolSize: connections per child, 1 to 64. */
const char *hsc_pgsql_set_pool_size(cmd_parms *cmd, void *dv, const char *arg)
{
    const char *err = global_only(cmd);
    char *end;
    long n;

    (void)dv;
    if (err != NULL) {
        return err;
    }
    n = strtol(arg, &end, 10);
    if (*arg < '0' || *arg > '9' || *end != '\0' || n < 1 || n > 64) {
        return apr_psprintf(cmd->pool,
                            "HSCUserDBPoolSize: '%s' is not a number of "
                            "connections from 1 to 64",
                            arg);
    }
    pg_opt.pool_size = (int)n;
    return NULL;
}

/* HSCUserDBPoolWait: the longest wait for a free connection. */
const char *hsc_pgsql_set_pool_wait(cmd_parms *cmd, void *dv, const char *arg)
{
    const char *err = global_only(cmd);

    (void)dv;
    return err ? err : parse_ms(cmd, arg, 1, 60000, &pg_opt.wait_ms);
}

/* HSCUserDBTimeout: the statement timeout. */
const char *hsc_pgsql_set_timeout(cmd_parms *cmd, void *dv, const char *arg)
{
    const char *err = global_only(cmd);

    (void)dv;
    return err ? err
               : parse_ms(cmd, arg, 10, 600000, &pg_opt.statement_timeout_ms);
}

/* HSCUserDBMaxStale: 0 turns the PostgreSQL lease off. */
const char *hsc_pgsql_set_max_stale(cmd_parms *cmd, void *dv, const char *arg)
{
    const char *err = global_only(cmd);

    (void)dv;
    return err ? err : parse_ms(cmd, arg, 0, 60000, &pg_opt.max_stale_ms);
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
        hsc_srv_conf_t *sc = ap_get_module_config(s->module_config,
                                                  &hsc_module);
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

static void options(hsc_pg_options_t *o)
{
    hsc_pg_options_default(o);
    o->pool_size = pg_opt.pool_size;
    o->wait_ms = pg_opt.wait_ms;
    o->max_stale_ms = pg_opt.max_stale_ms;
    o->statement_timeout_ms = pg_opt.statement_timeout_ms;
}

const char *hsc_userdb_check(cmd_parms *cmd, const char *arg, const char **spec)
{
    hsc_pg_pool_t *p = NULL;
    hsc_pg_options_t o;
    char errbuf[256];

    *spec = arg;
    options(&o);
    errbuf[0] = '\0';
    /* Parsed now (a typo is a configtest error); connected in the
     * children only, so a node starts while the database is down. */
    if (hsc_pg_pool_create(arg + sizeof(HSC_STORE_PGSQL_PREFIX) - 1, &o, &p,
                           errbuf, sizeof(errbuf))
        != HSC_OK) {
        return apr_pstrcat(cmd->pool, "HSCUserDB: ", errbuf, NULL);
    }
    hsc_pg_pool_destroy(p);
    return NULL;
}

const char *hsc_userdb_shown(apr_pool_t *p, const char *spec)
{
    char buf[512];

    if (!is_pgsql(spec)) {
        return spec;
    }
    hsc_pg_redact(spec + sizeof(HSC_STORE_PGSQL_PREFIX) - 1, buf, sizeof(buf));
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

void hsc_userdb_child_init(apr_pool_t *pchild, server_rec *main_s)
{
    server_rec *s;
    int i;

    sqlite_child_init(pchild, main_s);
    pools = apr_array_make(pchild, 2, sizeof(pool_entry_t));
    apr_pool_cleanup_register(pchild, NULL, pools_destroy,
                              apr_pool_cleanup_null);
    for (s = main_s; s != NULL; s = s->next) {
        hsc_srv_conf_t *sc = ap_get_module_config(s->module_config,
                                                  &hsc_module);
        hsc_pg_options_t o;
        pool_entry_t *e;
        char errbuf[256];

        options(&o);
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
        if (hsc_pg_pool_create(sc->userdb + sizeof(HSC_STORE_PGSQL_PREFIX) - 1,
                               &o, &e->pool, errbuf, sizeof(errbuf))
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
                /* Unknown (database down): the spec as written, below. */
                if (hsc_store_id(s, id, sizeof(id)) != HSC_OK) {
                    id[0] = '\0';
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

hsc_status_t hsc_userdb_open(const char *spec, int flags, hsc_store_t **ps,
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

const char *hsc_userdb_check(cmd_parms *cmd, const char *arg, const char **spec)
{
    *spec = arg;
    return apr_pstrcat(cmd->pool,
                       "HSCUserDB: this mod_hsc was built without the "
                       "PostgreSQL store (libpq); rebuild with libpq-dev "
                       "installed or configure --with-pgsql, or give the path "
                       "of an SQLite file",
                       NULL);
}

const char *hsc_userdb_shown(apr_pool_t *p, const char *spec)
{
    (void)p;
    return is_pgsql(spec) ? HSC_STORE_PGSQL_PREFIX "..." : spec;
}

void hsc_userdb_child_init(apr_pool_t *pchild, server_rec *main_s)
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

hsc_status_t hsc_userdb_open(const char *spec, int flags, hsc_store_t **ps,
                             char *errbuf, size_t errlen)
{
    return hsc_store_sqlite_open(spec, flags, ps, errbuf, errlen);
}

#endif /* HSC_HAVE_PGSQL */
