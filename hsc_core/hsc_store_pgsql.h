/*
 * hsc_store_pgsql.h: the user store in PostgreSQL, through libpq.
 *
 * Built when configure finds libpq (HSC_HAVE_PGSQL). Several httpd nodes
 * share one database; each child process keeps a small pool of
 * connections, and its record cache (hsc_cache.h, attached with
 * hsc_store_use_cache) is held under a lease, the store's validation rule
 * (hsc_store_backend.h; docs/several-servers.md):
 *
 * - a cached record is used only while the last successful poll of the
 *   change log (hsc_changes, ordered by generation) started less than
 *   max_stale_ms ago; the poll runs on the request path, at most once per
 *   lease per process, and drops the names that changed (everything when
 *   the process is more than 1,000 changes behind);
 * - when the poll fails, the cache is not used once the lease ends: every
 *   get() queries, and fails (HSC_ESTORE, callers answer 503) while the
 *   database is down. A change made anywhere is honoured everywhere within
 *   max_stale_ms.
 *
 * Queries are prepared statements with binary results, prepared again on
 * every new connection; a connection that breaks is replaced, and a read
 * is retried once on a new one. Every message names the SQLSTATE when
 * PostgreSQL gave one, and never the conninfo's password.
 */
#ifndef HSC_STORE_PGSQL_H
#define HSC_STORE_PGSQL_H

#include "hsc_store.h"
#include "hsc_tokens.h"

/* Schema version this build creates and reads (hsc_core/sql/pgsql/). */
#define HSC_PGSQL_SCHEMA_VERSION 12

typedef struct {
    int pool_size;            /* connections per process, >= 1 (default 4) */
    int wait_ms;              /* longest wait for a free connection (500) */
    int max_stale_ms;         /* the lease (1000); 0: no record cache */
    int statement_timeout_ms; /* server-side, per statement (2000) */
} hsc_pg_options_t;

/** The defaults above. */
void hsc_pg_options_default(hsc_pg_options_t *o);

/** One process's connections and record cache, shared by its threads. */
typedef struct hsc_pg_pool hsc_pg_pool_t;

/**
 * A pool for conninfo (a libpq connection string or URI, without the
 * "pgsql:" prefix). Connects nothing yet: connections are made on first
 * use, so a database that is down at start only fails requests.
 * HSC_EINVAL (conninfo does not parse; errbuf says why) or HSC_ENOMEM.
 * The pool is freed by hsc_pg_pool_destroy, after its last handle closed.
 */
hsc_status_t hsc_pg_pool_create(const char *conninfo,
                                const hsc_pg_options_t *opt, hsc_pg_pool_t **pp,
                                char *errbuf, size_t errlen);
void hsc_pg_pool_destroy(hsc_pg_pool_t *p);

/**
 * A handle on pool for one thread (as hsc_store.h: one thread at a time,
 * strings valid until the next call). Closing it leaves the pool. flags:
 * HSC_STORE_READONLY (writes are HSC_EREADONLY). It has no cache until
 * hsc_store_use_cache() gives it the process's.
 */
hsc_status_t hsc_store_pgsql_open_pool(hsc_pg_pool_t *pool, int flags,
                                       hsc_store_t **ps) HSC_MUST_CHECK;

/**
 * A handle with its own pool of one connection (hsc-admin, tests). It
 * connects now, so errors show at once; with HSC_STORE_CREATE it creates
 * or migrates the schema (under an advisory lock, so two at once are
 * safe; an existing database is migrated, never overwritten); without it,
 * a database whose schema is missing or older is refused.
 */
hsc_status_t hsc_store_pgsql_open(const char *conninfo, int flags,
                                  hsc_store_t **ps, char *errbuf,
                                  size_t errlen) HSC_MUST_CHECK;

/**
 * conninfo for a log line: every parameter as parsed, each secret that
 * libpq's keyword table marks (password, sslpassword) replaced by "***"
 * (or "(unparsable conninfo)"). Returns buf.
 */
const char *hsc_pg_redact(const char *conninfo, char *buf, size_t len);

/** The store id (hsc_meta.store_id) into buf (HSC_STORE_ID_SIZE bytes)
 *  and 1, once a connection of the pool has read it; else 0 and "". */
int hsc_pg_pool_store_id(hsc_pg_pool_t *p, char *buf, size_t len);

/** 1 when s is a PostgreSQL store whose role is a superuser (libpq's
 *  is_superuser parameter of its connection); else 0. */
int hsc_store_pgsql_superuser(hsc_store_t *s);

/**
 * For the factor store on PostgreSQL (hsc_factors_pgsql.c): run one
 * statement on a connection of s's pool, parameters in text form except
 * where formats[i] is 1 (bytea), results binary. write: refused
 * (HSC_EREADONLY) on a read-only handle, and never retried; a read
 * (write 0: only statements without side effects) whose pooled
 * connection broke is run again on another, as a user's lookup is after
 * a server restart. HSC_OK with *pres (the caller
 * PQclear()s it); else HSC_ESTORE or HSC_EREADONLY (no right) with
 * hsc_store_errmsg(s) set. HSC_EINVAL when s is not a PostgreSQL store.
 */
struct pg_result;
hsc_status_t hsc_store_pgsql_exec(hsc_store_t *s, const char *what,
                                  const char *sql, int n,
                                  const char *const *values, const int *lengths,
                                  const int *formats, int write,
                                  struct pg_result **pres) HSC_MUST_CHECK;

/* App passwords (hsc_tokens_pgsql.c): the backend's token entries
 * (hsc_store_backend.h), each as its hsc_tokens_* call. */
hsc_status_t hsc_pg_token_get(hsc_store_t *s, const char *id, hsc_token_t *out);
hsc_status_t hsc_pg_token_add(hsc_store_t *s, const hsc_token_t *t,
                              int64_t now);
hsc_status_t hsc_pg_token_add_own(hsc_store_t *s, const hsc_token_t *t,
                                  int64_t now, const unsigned char *xn);
hsc_status_t hsc_pg_token_list(hsc_store_t *s, const char *user,
                               hsc_tokens_each_fn *fn, void *baton);
hsc_status_t hsc_pg_token_revoke(hsc_store_t *s, const char *user,
                                 const char *id, int64_t now, int *count);

/** For tests and status pages: polls of the change log made and failed,
 *  names they reported changed, and times the whole cache was dropped. */
typedef struct {
    unsigned long polls, poll_failures, drops, flushes;
} hsc_pg_counters_t;
void hsc_pg_pool_counters(hsc_pg_pool_t *p, hsc_pg_counters_t *out);

#endif /* HSC_STORE_PGSQL_H */
