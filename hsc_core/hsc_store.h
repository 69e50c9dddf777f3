/*
 * hsc_store.h: the user store, as a table of functions.
 *
 * The SQLite store (hsc_store_sqlite.c) is the one implementation today; a
 * networked SQL store can be added later by filling another table, without
 * touching callers.
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

typedef struct {
    const char *name;      /* username, NUL-terminated */
    size_t name_len;
    unsigned char salt[HSC_SALT_LEN];
    hsc_kdf_t kdf;
    unsigned char authenticator[HSC_AUTH_LEN]; /* v = SHA-256(x_n) */
    const char *groups;    /* "g1,g2" or "" */
    int disabled;          /* 1: cookies and logins refused */
    int64_t revoked_before; /* cookies with iat < this are refused */
    int64_t created, updated; /* Unix seconds */
} hsc_user_t;

typedef struct hsc_store hsc_store_t;

/* Called by list() once a user, in name order; non-zero stops the walk. */
typedef int hsc_store_each_fn(void *baton, const hsc_user_t *u);

typedef struct {
    const char *name; /* "sqlite" */

    /** Look a user up. HSC_OK, HSC_ENOUSER, or HSC_ESTORE. */
    hsc_status_t (*get)(hsc_store_t *s, const char *user, size_t len,
                        hsc_user_t *out);
    /** Insert a new user (name, salt, kdf, authenticator, groups, disabled).
     *  HSC_EEXISTS if present; created/updated are set to now. */
    hsc_status_t (*add)(hsc_store_t *s, const hsc_user_t *u);
    /** Replace salt, kdf and authenticator. HSC_ENOUSER if absent. */
    hsc_status_t (*set_password)(hsc_store_t *s, const char *user,
                                 const unsigned char salt[HSC_SALT_LEN],
                                 const hsc_kdf_t *kdf,
                                 const unsigned char v[HSC_AUTH_LEN]);
    hsc_status_t (*set_groups)(hsc_store_t *s, const char *user,
                               const char *groups);
    hsc_status_t (*set_disabled)(hsc_store_t *s, const char *user, int on);
    /** revoked_before = when: cookies issued earlier stop working. */
    hsc_status_t (*revoke)(hsc_store_t *s, const char *user, int64_t when);
    hsc_status_t (*del)(hsc_store_t *s, const char *user);
    hsc_status_t (*list)(hsc_store_t *s, hsc_store_each_fn *fn, void *baton);
    void (*close)(hsc_store_t *s);
} hsc_store_vtable_t;

struct hsc_store {
    const hsc_store_vtable_t *vt;
    char errmsg[256]; /* the backend's last error, for logs; never secrets */
};

/* Flags for hsc_store_sqlite_open(). */
#define HSC_STORE_READONLY 0x1 /* open read-only; writes are HSC_EREADONLY */
#define HSC_STORE_CREATE 0x2   /* create the file and schema if absent */
#define HSC_STORE_NOCACHE 0x4  /* no validated cache: get() always queries */

/**
 * Open the SQLite user store at path. Without HSC_STORE_CREATE the file
 * must exist and carry this project's schema (a foreign database is
 * HSC_ESTORE with a message saying so); an older schema version is
 * migrated when writable. WAL mode and a busy timeout let readers go on
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
 * Unless HSC_STORE_NOCACHE, get() keeps a few recent records (32, short
 * names and group lists only) and returns one only while SQLite's WAL-index
 * header in the -shm file is unchanged since the record was read, that is
 * while no transaction has committed, by any process: the answer is always
 * the one the query would give now, so a change by hsc-admin is seen on
 * the next get(). In rollback-journal mode, or when the -shm cannot be
 * mapped read-write, every get() runs the query.
 */
hsc_status_t hsc_store_sqlite_open(const char *path, int flags,
                                   hsc_store_t **ps, char *errbuf,
                                   size_t errlen);

/**
 * For tests and benchmarks: how many get() calls on an SQLite handle were
 * answered from the validated cache (*hits) and by running the query
 * (*queries). Zeroes for another store.
 */
void hsc_store_sqlite_counters(const hsc_store_t *s, unsigned long *hits,
                               unsigned long *queries);
/** 1 when the handle's validated cache is in use (WAL mode, -shm mapped). */
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

/* Callers go through these, so the vtable stays an implementation detail. */
hsc_status_t hsc_store_get(hsc_store_t *s, const char *user, size_t len,
                           hsc_user_t *out);
hsc_status_t hsc_store_add(hsc_store_t *s, const hsc_user_t *u);
hsc_status_t hsc_store_set_password(hsc_store_t *s, const char *user,
                                    const unsigned char salt[HSC_SALT_LEN],
                                    const hsc_kdf_t *kdf,
                                    const unsigned char v[HSC_AUTH_LEN]);
hsc_status_t hsc_store_set_groups(hsc_store_t *s, const char *user,
                                  const char *groups);
hsc_status_t hsc_store_set_disabled(hsc_store_t *s, const char *user, int on);
hsc_status_t hsc_store_revoke(hsc_store_t *s, const char *user, int64_t when);
hsc_status_t hsc_store_del(hsc_store_t *s, const char *user);
hsc_status_t hsc_store_list(hsc_store_t *s, hsc_store_each_fn *fn,
                            void *baton);
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
/** Close and free the handle; NULL is allowed. */
void hsc_store_close(hsc_store_t *s);

/**
 * 1 when group (len bytes) is one of the comma-separated groups.
 */
int hsc_groups_contain(const char *groups, const char *group, size_t len);

#endif /* HSC_STORE_H */
