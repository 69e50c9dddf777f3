/*
 * hsc_store.h: the user store, as callers see it: open a backend, then
 * hsc_store_* calls. The backends' side (the table of functions, the
 * handle's common part, the validation rule for the record cache) is in
 * hsc_store_backend.h, which callers never include.
 *
 * A handle is used by one thread at a time and allocates nothing per call:
 * strings in an hsc_user_t returned by get() point into handle-owned memory
 * that stays valid until the next call on the same handle. Copy what you keep.
 * Every failure of the backing store is HSC_ESTORE: callers fail closed.
 */
#ifndef HSC_STORE_H
#define HSC_STORE_H

#include "hsc_util.h"
#include "hsc_kdf.h"
#include "hsc_cache.h"

typedef struct hsc_user_s {
    const char *name; /* username, NUL-terminated */
    size_t name_len;
    unsigned char salt[HSC_SALT_LEN];
    hsc_kdf_t kdf;
    unsigned char authenticator[HSC_AUTH_LEN]; /* v = SHA-256(x_n) */
    const char *groups;                        /* "g1,g2" or "" */
    int disabled;             /* 1: cookies and logins refused */
    int64_t revoked_before;   /* cookies with iat < this are refused */
    int64_t created, updated; /* Unix seconds */
} hsc_user_t;

typedef struct hsc_store hsc_store_t;

/* Called by list() once a user, in name order; non-zero stops the walk. */
typedef int hsc_store_each_fn(void *baton, const hsc_user_t *u);

/* Bytes of a store id with its NUL: 32 hex digits. */
#define HSC_STORE_ID_SIZE 33

/* Flags for hsc_store_sqlite_open(). */
#define HSC_STORE_READONLY 0x1 /* open read-only; writes are HSC_EREADONLY */
#define HSC_STORE_CREATE 0x2   /* create the file and schema if absent */
#define HSC_STORE_NOCACHE 0x4  /* no private record cache (see below) */
/* An older schema that can still be read is used as it is, never upgraded
 * (httpd: only hsc-admin changes the schema); ignored with CREATE. */
#define HSC_STORE_NOMIGRATE 0x8

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
 * For tests and benchmarks: how many get() calls on a handle were answered
 * from the record cache (*hits) and by asking the store (*queries).
 */
void hsc_store_counters(const hsc_store_t *s, unsigned long *hits,
                        unsigned long *queries);
/* The same, under its earlier name. */
#define hsc_store_sqlite_counters hsc_store_counters
/** 1 when the handle has a cache and its backend can validate it now
 *  (SQLite: WAL mode, -shm mapped). */
int hsc_store_sqlite_cached(const hsc_store_t *s);

/**
 * Use cache (shared by any number of handles of the same database, one
 * per thread) instead of the handle's own; NULL: none. The handle drops
 * its private cache. The cache must outlive the handle. A backend without
 * a validation rule never uses one.
 */
void hsc_store_use_cache(hsc_store_t *s, hsc_cache_t *cache);

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

/* The prefix of a PostgreSQL store spec: "pgsql:<libpq conninfo>". */
#define HSC_STORE_PGSQL_PREFIX "pgsql:"

/** 1 when this build has the PostgreSQL store (configure found libpq). */
int hsc_store_have_pgsql(void);

/**
 * Open the store a spec names: "pgsql:<conninfo>" (hsc_store_pgsql.h), or
 * else the path of an SQLite file (hsc_store_sqlite_open, same flags).
 * A pgsql: spec on a build without libpq is HSC_EINVAL with a message
 * saying so. Messages never carry the conninfo's password.
 */
hsc_status_t hsc_store_open(const char *spec, int flags, hsc_store_t **ps,
                            char *errbuf, size_t errlen) HSC_MUST_CHECK;

/* Callers go through these, so the vtable stays an implementation detail. */
hsc_status_t hsc_store_get(hsc_store_t *s, const char *user, size_t len,
                           hsc_user_t *out) HSC_MUST_CHECK;
/** For logins: the record as the database has it now, never from a cache
 *  that may lag (the PostgreSQL store's lease). Otherwise as get(). */
hsc_status_t hsc_store_get_fresh(hsc_store_t *s, const char *user, size_t len,
                                 hsc_user_t *out) HSC_MUST_CHECK;
/** The store's id into buf (HSC_STORE_ID_SIZE bytes): HSC_OK, or
 *  HSC_EINVAL when the store has none (buf is then ""). */
hsc_status_t hsc_store_id(hsc_store_t *s, char *buf, size_t len) HSC_MUST_CHECK;
hsc_status_t hsc_store_add(hsc_store_t *s, const hsc_user_t *u) HSC_MUST_CHECK;
hsc_status_t hsc_store_set_password(
    hsc_store_t *s, const char *user, const unsigned char salt[HSC_SALT_LEN],
    const hsc_kdf_t *kdf, const unsigned char v[HSC_AUTH_LEN]) HSC_MUST_CHECK;
hsc_status_t hsc_store_set_groups(hsc_store_t *s, const char *user,
                                  const char *groups) HSC_MUST_CHECK;
/** Disabling also revokes (hsc_store_revoke_now), so that enabling the user
 * again brings back no earlier cookie, a stolen one included. */
hsc_status_t hsc_store_set_disabled(hsc_store_t *s, const char *user,
                                    int on) HSC_MUST_CHECK;
/**
 * revoked_before = max(when, revoked_before + 1), in one statement: it only
 * grows, and every revocation moves it (two in one second both refuse a
 * cookie issued between them). Callers mean hsc_store_revoke_now.
 */
hsc_status_t hsc_store_revoke(hsc_store_t *s, const char *user,
                              int64_t when) HSC_MUST_CHECK;
/**
 * "Log out everywhere" at time now: revoked_before = at least now + 1
 * (spec), so every cookie issued up to and including this second is
 * refused; a login later gets iat = revoked_before (hsc_login_iat), which a
 * second revocation in the same second moves past.
 */
hsc_status_t hsc_store_revoke_now(hsc_store_t *s, const char *user,
                                  int64_t now) HSC_MUST_CHECK;
hsc_status_t hsc_store_del(hsc_store_t *s, const char *user) HSC_MUST_CHECK;
hsc_status_t hsc_store_list(hsc_store_t *s, hsc_store_each_fn *fn,
                            void *baton) HSC_MUST_CHECK;
/**
 * Record cache statistics (hsc_user_cache_hits_total / _misses_total in
 * mod_hsc's metrics): a record cache calls hsc_store_cache_note(1) when it
 * answers a get() and hsc_store_cache_note(0) when it was asked and the
 * query had to run; that is its one call site per outcome. The observer is
 * process-wide, set once before any thread uses a store (NULL: none); it
 * must be cheap and thread-safe (an atomic add).
 */
typedef void hsc_store_cache_note_fn(int hit);
void hsc_store_set_cache_observer(hsc_store_cache_note_fn *fn);
void hsc_store_cache_note(int hit);

/** The backend's last error message ("" when none). */
const char *hsc_store_errmsg(const hsc_store_t *s);
/** 1 when the last failure continues an outage this process already
 *  reported once (callers log it quietly); 0 for a new one. */
int hsc_store_repeat_fault(const hsc_store_t *s);
/** 1 once after a call on this handle ended an outage that this process
 *  had reported (the store answers again: the caller logs it once), then
 *  0 until the next outage ends; clears the mark. Only the PostgreSQL
 *  store marks it (its pool, shared by the process's threads, knows when
 *  an outage began; the first statement that succeeds after it ends it). */
int hsc_store_take_recovery(hsc_store_t *s);
/** 1 when the last get() answered from a record cache that may lag the
 *  store within its bound (a lease rule: the PostgreSQL store). A refusal
 *  based on it is to be confirmed with hsc_store_get_fresh(), so that a
 *  lagging cache can delay a refusal but never refuse a cookie the
 *  database accepts (hsc_cookie_check_user does). */
int hsc_store_lagging(const hsc_store_t *s);
/** Close and free the handle; NULL is allowed. */
void hsc_store_close(hsc_store_t *s);

/**
 * 1 when group (len bytes) is one of the comma-separated groups.
 */
int hsc_groups_contain(const char *groups, const char *group, size_t len);

#endif /* HSC_STORE_H */
