/*
 * mod_hsc_userdb.h: the user store part (mod_hsc_userdb.c). Which store
 * HSCUserDB names, each thread's handles, each child's record caches and
 * PostgreSQL pools, the 503 answer, the throttle namespace.
 */
#ifndef MOD_HSC_USERDB_H
#define MOD_HSC_USERDB_H

#include "httpd.h"
#include "http_config.h"

#include "hsc_store.h"
#include "mod_hsc_config.h"

/* spec for a log line: a conninfo's secrets replaced by "***". */
const char *hsc_userdb_shown(apr_pool_t *p, const char *spec);

/*
 * The calling thread's handle on the server's user store (opened on first
 * use, closed when the thread exits; SQLite gets its own connection,
 * pgsql: borrows the child's pool), or NULL (logged, with tag) when it
 * cannot be opened: callers answer hsc_userdb_unavailable.
 */
hsc_store_t *hsc_userdb_acquire(request_rec *r, const hsc_srv_conf_t *sc);

/* 503 with Retry-After for a user database that cannot answer (the cause
 * already logged); the store re-opens by itself. */
int hsc_userdb_unavailable(request_rec *r);

/* After a call on store: when it ended an outage this child had reported
 * (hsc_store_take_recovery), say once that the database answers again. */
void hsc_userdb_note_recovery(request_rec *r, const hsc_srv_conf_t *sc,
                              hsc_store_t *store);

/*
 * What names the user database in the per-user throttle key: the store's
 * id ("store:<id>", so every spelling of one database shares counts; an
 * SQLite file's read by store, the thread's handle), else HSCUserDB as
 * written (a PostgreSQL store not reached yet, an SQLite file of schema
 * version 1).
 */
const char *hsc_userdb_throttle_ns(request_rec *r, const char *spec,
                                   hsc_store_t *store);

/* pre_config (SQLite's process-wide settings, the pool defaults),
 * post_config (the databases numbered), child_init (caches, pools, the
 * thread key) and the hsc-cache-status handler. */
void hsc_userdb_register_hooks(apr_pool_t *p);

#endif /* MOD_HSC_USERDB_H */
