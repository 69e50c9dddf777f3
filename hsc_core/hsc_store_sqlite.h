/*
 * hsc_store_sqlite.h: the SQLite backend of the user store (the default:
 * one file, no server), as hsc_store_pgsql.h is PostgreSQL's. Everything
 * else goes through hsc_store.h.
 */
#ifndef HSC_STORE_SQLITE_H
#define HSC_STORE_SQLITE_H

#include "hsc_store.h"
#include "hsc_tokens.h"

/**
 * Open the SQLite user store at path. Without HSC_STORE_CREATE the file
 * must exist and carry this project's schema (a foreign database is
 * HSC_ESTORE with a message saying so); an older schema version is
 * migrated when writable, unless HSC_STORE_NOMIGRATE. A read-only or
 * NOMIGRATE open uses a version-1 file as it is: its users read the same,
 * it just has no store id (hsc_store_id() is HSC_EINVAL until hsc-admin
 * init upgrades it). WAL mode and a busy timeout let readers go on
 * while a writer changes users. On failure *ps is NULL and, when errbuf is
 * not NULL, the reason is written there.
 * Returns HSC_OK, HSC_EIO, HSC_ESTORE or HSC_ENOMEM.
 *
 * The connection is opened with SQLITE_OPEN_NOMUTEX: use one handle per
 * thread. Without HSC_STORE_READONLY a file this process may not write is
 * opened read-only all the same (writes are then HSC_EREADONLY).
 *
 * A long-lived handle watches its file: at most once a second, a call
 * checks whether the path still names the file it opened (SQLite's
 * SQLITE_FCNTL_HAS_MOVED: deleted, or renamed over). If not, the handle
 * drops its connection and opens the path again; while that fails (file
 * gone, foreign, ...) every call is HSC_ESTORE, and it retries a second
 * later. So a deleted database fails closed within a second, and a
 * replaced one is picked up without restarting the server.
 *
 * Unless HSC_STORE_NOCACHE, the handle gets a small private record cache
 * (HSC_STORE_PRIVATE_CACHE records); hsc_store_use_cache() replaces it
 * with one shared by the process's handles. Either way a kept record is
 * returned only while SQLite's WAL-index header in the -shm file (and the
 * file's identity) is unchanged since the record was read, that is while
 * no transaction has committed, by any process: the answer is always the
 * one the query would give now, so a change by hsc-admin is seen on the
 * next get(). In rollback-journal mode, or when the -shm cannot be mapped
 * read-write, every get() runs the query.
 */
hsc_status_t hsc_store_sqlite_open(const char *path, int flags,
                                   hsc_store_t **ps, char *errbuf,
                                   size_t errlen) HSC_MUST_CHECK;

/* Records in the private cache of a handle opened without NOCACHE. */
#define HSC_STORE_PRIVATE_CACHE 1024

/**
 * 1 when the file at path is an hsc user database whose header says schema
 * version 1 (no store id: hsc-admin init upgrades it), read from the
 * header's bytes alone (application_id, user_version), without opening it
 * with SQLite; else 0 (another version, not ours, unreadable). A version
 * changed since the last checkpoint may still be in the WAL: a hint for a
 * configtest warning, not a verdict.
 */
int hsc_store_sqlite_is_version1(const char *path);

/** 1 when the handle has a cache and SQLite can validate it now (WAL mode,
 *  the -shm mapped). */
int hsc_store_sqlite_cached(const hsc_store_t *s);

/**
 * Once per process, before SQLite's first use and while no other thread
 * can use it (httpd's pre_config): turn off SQLite's memory statistics,
 * which take one process-wide mutex on every allocation; with many threads
 * querying at once that mutex is where they queue. Returns 1 when done, 0
 * when SQLite was in use already (then nothing changes, and nothing else
 * goes wrong). The statistics only feed sqlite3_memory_used() and the soft
 * heap limit, which no part of mod_hsc uses.
 */
int hsc_store_sqlite_process_init(void);

/*
 * For the backend's other files (hsc_tokens_sqlite.c), which use the
 * handle's connection; nothing outside hsc_core/ calls these.
 */
struct sqlite3;
struct sqlite3_stmt;
/* Statements kept prepared per connection (hsc_sq_kept's slots). */
enum { HSC_SQ_TOKEN_GET, HSC_SQ_KEPT };
/* The connection after the file check (a replaced file reconnects), with
 * the file's schema version; NULL (errmsg set) when the file is gone, s is
 * not an SQLite store, or write and the handle is read-only. */
struct sqlite3 *hsc_sq_conn(hsc_store_t *s, int write, int *version);
/* The statement of slot, prepared on the connection's first use; NULL
 * (errmsg set) when it does not prepare. Reset it after each use. */
struct sqlite3_stmt *hsc_sq_kept(hsc_store_t *s, int slot, const char *sql);
/* errmsg = "<what>: <SQLite's message>": HSC_EREADONLY, HSC_EINVAL (a
 * CHECK or UNIQUE refused), HSC_ENOMEM or HSC_ESTORE. */
hsc_status_t hsc_sq_fail(hsc_store_t *s, const char *what, int rc);
/* hsc_tokens_sqlite.c: the token entries of the SQLite backend's table. */
hsc_status_t hsc_sq_token_get(hsc_store_t *s, const char *id, hsc_token_t *out);
hsc_status_t hsc_sq_token_add(hsc_store_t *s, const hsc_token_t *t,
                              int64_t now);
hsc_status_t hsc_sq_token_add_own(hsc_store_t *s, const hsc_token_t *t,
                                  int64_t now, const unsigned char *xn);
hsc_status_t hsc_sq_token_list(hsc_store_t *s, const char *user,
                               hsc_tokens_each_fn *fn, void *baton);
hsc_status_t hsc_sq_token_revoke(hsc_store_t *s, const char *user,
                                 const char *id, int64_t now, int *count);
/* Writers wait longer for the lock than readers: on (1) around a write. */
void hsc_sq_write_wait(hsc_store_t *s, int on);

#endif /* HSC_STORE_SQLITE_H */
