/*
 * hsc_store_sqlite.c: the user store in an SQLite file (docs/spec/schema.md).
 *
 * One connection per handle, opened with SQLITE_OPEN_NOMUTEX: a handle
 * belongs to one thread at a time (the module keeps one per thread).
 *
 * The file is ours when PRAGMA application_id says so; PRAGMA user_version
 * is the schema version, raised by the migration steps below. Version 2
 * adds the store id (hsc_meta), 32 random hex digits made once, that names
 * the database whatever path spells it. WAL mode lets
 * readers go on while hsc-admin writes. Readers wait at most
 * HSC_SQLITE_READ_WAIT_MS for a lock, so a verification never hangs;
 * writers wait longer. Every SQLite failure is HSC_ESTORE with a message in
 * s->errmsg (SQLite's text and ours, never a bound value): callers fail
 * closed.
 *
 * get() is the hot path: one statement prepared once per connection, one
 * primary-key lookup in a WITHOUT ROWID table, strings copied into buffers
 * the handle owns, no allocation unless a group list outgrows its buffer.
 *
 * The record cache in front of that query is the wrapper's (hsc_store.c,
 * hsc_cache.c); this file provides its validation rule, sq_validate(),
 * built on SQLite's own change detector (see "The validation rule"
 * below): records are trusted only while the database has not committed
 * a single transaction since they were read, so a get() answers exactly
 * what the query would. It never trades freshness for speed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <sqlite3.h>

#include "hsc_store_backend.h"
#include "hsc_store_sqlite.h"

/* PRAGMA application_id of an hsc user database: "HSC1" in ASCII. */
#define HSC_SQLITE_APP_ID 0x48534331
/* Milliseconds a read waits for a lock, and a write. */
#define HSC_SQLITE_READ_WAIT_MS 300
#define HSC_SQLITE_WRITE_WAIT_MS 5000
/* Bytes the WAL is truncated to after a checkpoint. */
#define HSC_SQLITE_WAL_LIMIT 1048576
/*
 * SQLite's page cache of a connection with a record cache in front of it,
 * in KiB (PRAGMA cache_size = -N). SQLite's default is 2,000 KiB per
 * connection, and the module keeps one connection per thread: a child of
 * 128 threads that has looked up enough users grows by 256 MiB of page
 * caches, ten times its record cache (docs/dev/performance.md). With a record
 * cache in front, a lookup reaches SQLite only on a miss, and a miss is a
 * user none of the child's threads has read lately: its leaf page is
 * almost never in this one connection's cache, whatever its size (a
 * million users fill 26,000 leaves; a commit by any process empties the
 * page cache anyway). What a page cache still saves is the B-tree's upper
 * pages: 256 KiB (about 60 pages) keeps page 1, the root and the level
 * below it for tables of a million users, so a miss there reads 2.3 pages
 * from the file (the OS's page cache) against 1.7 with SQLite's 2,000 KiB.
 * Without a record cache (HSCUserDBCache Off, HSC_STORE_NOCACHE alone)
 * every request runs the query and SQLite's default stays.
 */
#define HSC_SQLITE_PAGE_CACHE_KIB 256
/* The WAL-index header (https://www.sqlite.org/walformat.html): two copies
 * of 48 bytes at the start of the -shm file; iVersion and isInit within. */
#define WAL_HDR_LEN 48
#define WAL_HDR_VERSION 3007000
#define WAL_HDR_ISINIT 12
/* Bytes of the first wal-index region, as SQLite maps it. */
#define WAL_SHM_REGION 32768

/*
 * The schema, one step a version: hsc_sqlite_schema[i] takes user_version
 * i to i + 1. It is hsc_core/sql/sqlite/NNN-*.sql, compiled in by
 * build-aux/sql2c.sh: append new files; never edit a released one.
 */
extern const char *const hsc_sqlite_schema[];
extern const size_t hsc_sqlite_schema_count;
#define HSC_SQLITE_VERSION ((int)hsc_sqlite_schema_count)
/* The version whose step made hsc_meta. */
#define HSC_SQLITE_STORE_ID_VERSION 2
/*
 * The oldest version that can be used as it is, without its missing steps
 * (a read-only open, or HSC_STORE_NOMIGRATE): the user table of version 1
 * is still read, a file of version 1 just has no store id, and one older
 * than version 3 no gen (below).
 */
#define HSC_SQLITE_MIN_USABLE_VERSION 1
/*
 * The version whose step added gen. An older file's users read gen -1,
 * which no format 2 cookie carries: httpd mints format 1 for them (their
 * revocation is revoked_before alone) until "hsc-admin init" upgrades it.
 */
#define HSC_SQLITE_GEN_VERSION 3
/* The version whose step added hsc_links: from it on, a password change
 * and a revocation delete the user's links with it (write_run_links). */
#define HSC_SQLITE_LINKS_VERSION 4

#define USER_COLUMNS_NO_GEN                                                    \
    "username, salt, kdf, authenticator, groups, disabled, revoked_before, "   \
    "created, updated"
#define USER_COLUMNS USER_COLUMNS_NO_GEN ", gen"
/*
 * The version whose step added hsc_users.passkey_seals (hsc_passkeys.h).
 * An older file's users read no seal hashes, so a sealed cookie fails
 * there (closed): no passkey can be registered before the upgrade.
 */
#define HSC_SQLITE_SEALS_VERSION 6
/* The newest version whose columns a read selects: a connection to an
 * older file looks for an upgrade under it on each lookup (catch_up). */
#define HSC_SQLITE_READ_VERSION HSC_SQLITE_SEALS_VERSION
/* What a read selects from a file of version ver: USER_COLUMNS, then
 * the seal hashes. */
#define SELECT_USER(ver)                                                       \
    ((ver) >= HSC_SQLITE_SEALS_VERSION ? "SELECT " USER_COLUMNS                \
                                         ", passkey_seals"                     \
     : (ver) >= HSC_SQLITE_GEN_VERSION ? "SELECT " USER_COLUMNS ", NULL"       \
                                       : "SELECT " USER_COLUMNS_NO_GEN         \
                                         ", -1, NULL")

typedef struct {
    hsc_store_t base;     /* first: the handle callers hold */
    sqlite3 *db;          /* NULL while the file is gone */
    sqlite3_stmt *get_st; /* the lookup, prepared once per connection */
    sqlite3_stmt *kept[HSC_SQ_KEPT]; /* hsc_sq_kept(): other files' lookups */
    char *path;
    int flags;    /* as passed to open, without HSC_STORE_CREATE */
    int readonly; /* 1: read-only open, or SQLite fell back to it */
    int version;  /* the file's schema version when connected */
    char store_id[HSC_STORE_ID_SIZE]; /* "" until read (version 1: none) */
    struct timespec next_check;       /* when to look for a replaced file */
    struct stat seen; /* the file at the path when last connected */
    /* The validation rule's input: SQLite's mapping of the first wal-index
     * region of this connection, NULL when no record may be trusted (not
     * WAL, read-only -shm, any doubt). */
    const unsigned char *shm;
    int reconnected;      /* 1: validate() must say everything changed */
    int small_pages;      /* 1: cache_size is HSC_SQLITE_PAGE_CACHE_KIB */
    int64_t pages_before; /* cache_size before it was made small */
} sq_store_t;

static const hsc_store_vtable_t sq_vtable;

/* errmsg = "<what>: <SQLite's message>"; returns HSC_ESTORE. */
static hsc_status_t sq_fail(sq_store_t *sq, const char *what, int rc)
{
    const char *m = sq->db ? sqlite3_errmsg(sq->db) : sqlite3_errstr(rc);

    hsc_store_msgf(sq->base.errmsg, sizeof(sq->base.errmsg), "%s: %s", what, m);
    return rc == SQLITE_NOMEM ? HSC_ENOMEM : HSC_ESTORE;
}

/* Run a PRAGMA (or any one-column query) and read its integer result. */
static int query_int(sqlite3 *db, const char *sql, int64_t *out)
{
    sqlite3_stmt *st = NULL;
    int rc;

    *out = 0;
    rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        return rc;
    }
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *out = sqlite3_column_int64(st, 0);
        rc = SQLITE_OK;
    }
    else if (rc == SQLITE_DONE) {
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

/* 1 when id is a store id: 32 lowercase hex digits. */
static int store_id_valid(const char *id, size_t len)
{
    size_t i;

    if (id == NULL || len != HSC_STORE_ID_SIZE - 1) {
        return 0;
    }
    for (i = 0; i < len; i++) {
        if (!((id[i] >= '0' && id[i] <= '9')
              || (id[i] >= 'a' && id[i] <= 'f'))) {
            return 0;
        }
    }
    return 1;
}

/* The store id of db into buf (HSC_STORE_ID_SIZE bytes), or "". */
static void read_store_id(sqlite3 *db, char *buf)
{
    sqlite3_stmt *st = NULL;
    const unsigned char *v;

    buf[0] = '\0';
    if (sqlite3_prepare_v2(db, "SELECT store_id FROM hsc_meta WHERE id = 1", -1,
                           &st, NULL)
            == SQLITE_OK
        && sqlite3_step(st) == SQLITE_ROW
        && (v = sqlite3_column_text(st, 0)) != NULL
        && store_id_valid((const char *)v,
                          (size_t)sqlite3_column_bytes(st, 0))) {
        memcpy(buf, v, HSC_STORE_ID_SIZE - 1);
        buf[HSC_STORE_ID_SIZE - 1] = '\0';
    }
    sqlite3_finalize(st);
}

/*
 * What a step needs besides its SQL, run right after hsc_sqlite_schema[version
 * - 1] in the same transaction: version 2's row of hsc_meta, a new random id
 * (16 bytes from the CSPRNG, as 32 hex digits).
 */
static int fill_step(sqlite3 *db, int version, const char **why)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[(HSC_STORE_ID_SIZE - 1) / 2];
    char id[HSC_STORE_ID_SIZE];
    sqlite3_stmt *st = NULL;
    size_t i;
    int rc;

    if (version != HSC_SQLITE_STORE_ID_VERSION) {
        return SQLITE_OK;
    }
    if (hsc_random(raw, sizeof(raw)) != HSC_OK) {
        *why = "no random bytes for the store id";
        return SQLITE_ERROR;
    }
    for (i = 0; i < sizeof(raw); i++) {
        id[2 * i] = hex[raw[i] >> 4];
        id[2 * i + 1] = hex[raw[i] & 0x0f];
    }
    id[HSC_STORE_ID_SIZE - 1] = '\0';
    rc = sqlite3_prepare_v2(db,
                            "INSERT INTO hsc_meta (id, store_id) VALUES (1, "
                            "?1)",
                            -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    sqlite3_finalize(st);
    return rc;
}

/*
 * Bring the schema from version `from` to HSC_SQLITE_VERSION in one
 * transaction. The version is read again under the write lock, in case
 * another process migrated first.
 */
static int migrate(sqlite3 *db, const char *path, char *msg, size_t msglen)
{
    int64_t app = 0, ver = 0;
    const char *why = NULL;
    char sql[64];
    int rc, i;

    sqlite3_busy_timeout(db, HSC_SQLITE_WRITE_WAIT_MS);
    rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        goto fail;
    }
    if ((rc = query_int(db, "PRAGMA application_id", &app)) != SQLITE_OK
        || (rc = query_int(db, "PRAGMA user_version", &ver)) != SQLITE_OK) {
        goto fail;
    }
    if ((app != 0 && app != HSC_SQLITE_APP_ID) || ver < 0
        || ver > HSC_SQLITE_VERSION) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_busy_timeout(db, HSC_SQLITE_READ_WAIT_MS);
        hsc_store_msgf(msg, msglen,
                       "%s: changed by another program while opening", path);
        return SQLITE_ERROR;
    }
    for (i = (int)ver; i < HSC_SQLITE_VERSION; i++) {
        rc = sqlite3_exec(db, hsc_sqlite_schema[i], NULL, NULL, NULL);
        if (rc == SQLITE_OK) {
            rc = fill_step(db, i + 1, &why);
        }
        if (rc != SQLITE_OK) {
            goto fail;
        }
    }
    snprintf(sql, sizeof(sql), "PRAGMA application_id = %d", HSC_SQLITE_APP_ID);
    if ((rc = sqlite3_exec(db, sql, NULL, NULL, NULL)) != SQLITE_OK) {
        goto fail;
    }
    snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", HSC_SQLITE_VERSION);
    if ((rc = sqlite3_exec(db, sql, NULL, NULL, NULL)) != SQLITE_OK) {
        goto fail;
    }
    rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        goto fail;
    }
    sqlite3_busy_timeout(db, HSC_SQLITE_READ_WAIT_MS);
    return SQLITE_OK;

fail:
    hsc_store_msgf(msg, msglen, "%s: schema upgrade failed: %s", path,
                   why != NULL ? why : sqlite3_errmsg(db));
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_busy_timeout(db, HSC_SQLITE_READ_WAIT_MS);
    return rc;
}

/*
 * Open path, check that it is ours, migrate it when writable (unless
 * HSC_STORE_NOMIGRATE), prepare the lookup, read the store id (into
 * store_id, "" when the file has none). On failure everything is closed
 * and msg says why.
 */
/* The file exists as a regular file, or may be created. */
static hsc_status_t check_path(const char *path, int flags, char *msg,
                               size_t msglen)
{
    struct stat sb;

    if ((flags & HSC_STORE_READONLY) && (flags & HSC_STORE_CREATE)) {
        hsc_store_msgf(msg, msglen, "%s: cannot create a database read-only",
                       path);
        return HSC_ESTORE;
    }
    if (stat(path, &sb) != 0) {
        if (errno == ENOENT && (flags & HSC_STORE_CREATE)) {
            return HSC_OK;
        }
        if (errno == ENOENT) {
            hsc_store_msgf(
                msg, msglen,
                "%s: no such file (create it with \"hsc-admin init\")", path);
        }
        else {
            hsc_store_msgf(msg, msglen, "%s: %s", path, strerror(errno));
        }
        return HSC_EIO;
    }
    if (!S_ISREG(sb.st_mode)) {
        hsc_store_msgf(msg, msglen, "%s: not a regular file", path);
        return HSC_EIO;
    }
    return HSC_OK;
}

/* sqlite3_open_v2 as flags ask; *readonly when the open could not write. */
static hsc_status_t open_db(const char *path, int flags, sqlite3 **pdb,
                            int *readonly, char *msg, size_t msglen)
{
    int rc, oflags = SQLITE_OPEN_NOMUTEX;

    if (flags & HSC_STORE_READONLY) {
        oflags |= SQLITE_OPEN_READONLY;
    }
    else {
        oflags |= SQLITE_OPEN_READWRITE;
        if (flags & HSC_STORE_CREATE) {
            oflags |= SQLITE_OPEN_CREATE;
        }
    }
    rc = sqlite3_open_v2(path, pdb, oflags, NULL);
    if (rc != SQLITE_OK) {
        hsc_store_msgf(msg, msglen, "%s: cannot open: %s", path,
                       *pdb ? sqlite3_errmsg(*pdb) : sqlite3_errstr(rc));
        return rc == SQLITE_NOMEM               ? HSC_ENOMEM
               : (rc & 0xff) == SQLITE_CANTOPEN ? HSC_EIO
                                                : HSC_ESTORE;
    }
    sqlite3_extended_result_codes(*pdb, 1);
    sqlite3_busy_timeout(*pdb, HSC_SQLITE_READ_WAIT_MS);
    /* A read-write open of a file we may not write falls back silently. */
    *readonly = (flags & HSC_STORE_READONLY)
                || sqlite3_db_readonly(*pdb, "main") == 1;
    return HSC_OK;
}

/* application_id and user_version; 0, or -1 with msg. */
static int read_identity(sqlite3 *db, const char *path, int readonly,
                         int64_t *app, int64_t *ver, char *msg, size_t msglen)
{
    int rc;

    if ((rc = query_int(db, "PRAGMA application_id", app)) == SQLITE_OK
        && (rc = query_int(db, "PRAGMA user_version", ver)) == SQLITE_OK) {
        return 0;
    }
    if ((rc & 0xff) == SQLITE_NOTADB) {
        hsc_store_msgf(msg, msglen,
                       "%s: not an hsc user database (not an SQLite file)",
                       path);
    }
    else if (readonly
             && ((rc & 0xff) == SQLITE_READONLY
                 || (rc & 0xff) == SQLITE_CANTOPEN)) {
        /* WAL needs the -shm file: a reader that may not create it in
         * the directory can only use one that already exists. */
        hsc_store_msgf(
            msg, msglen,
            "%s: cannot read the database read-only (%s): its -wal/-shm "
            "files are missing and this user may not create them; make "
            "the directory writable by this user",
            path, sqlite3_errmsg(db));
    }
    else {
        hsc_store_msgf(msg, msglen, "%s: %s", path, sqlite3_errmsg(db));
    }
    return -1;
}

/* An empty file (application_id and user_version 0): 1 when it may be
 * created here, 0 when it is empty or foreign (msg), -1 on an error. */
static int empty_and_creatable(sqlite3 *db, const char *path, int flags,
                               char *msg, size_t msglen)
{
    int64_t ntables = 0;

    if (query_int(db, "SELECT count(*) FROM sqlite_master", &ntables)
        != SQLITE_OK) {
        hsc_store_msgf(msg, msglen, "%s: %s", path, sqlite3_errmsg(db));
        return -1;
    }
    if (ntables != 0) {
        hsc_store_msgf(
            msg, msglen,
            "%s: not an hsc user database (a foreign SQLite database)", path);
        return 0;
    }
    if (!(flags & HSC_STORE_CREATE)) {
        hsc_store_msgf(
            msg, msglen,
            "%s: not an hsc user database (empty; initialize it with "
            "\"hsc-admin init\")",
            path);
        return 0;
    }
    return 1;
}

/*
 * Whether this open migrates the file: *migrate 1 or 0; -1 (msg) when the
 * file is foreign, newer, or too old for what this open may do.
 */
static int plan_migration(sqlite3 *db, const char *path, int flags,
                          int readonly, int64_t app, int64_t ver, int *migrate,
                          char *msg, size_t msglen)
{
    *migrate = 0;
    if (app == 0 && ver == 0) {
        if (empty_and_creatable(db, path, flags, msg, msglen) != 1) {
            return -1;
        }
    }
    else if (app != HSC_SQLITE_APP_ID) {
        hsc_store_msgf(msg, msglen,
                       "%s: not an hsc user database (application_id 0x%08llx)",
                       path, (unsigned long long)(uint32_t)app);
        return -1;
    }
    else if (ver > HSC_SQLITE_VERSION || ver < 0) {
        hsc_store_msgf(
            msg, msglen,
            "%s: schema version %lld is newer than this program knows (%d): "
            "upgrade mod_hsc",
            path, (long long)ver, HSC_SQLITE_VERSION);
        return -1;
    }
    else if (ver == HSC_SQLITE_VERSION) {
        return 0;
    }
    else if (!(flags & HSC_STORE_CREATE)
             && (readonly || (flags & HSC_STORE_NOMIGRATE))) {
        /* An older file this version can still read is used as it is
         * (hsc-admin init upgrades it); an older one is refused. */
        if (ver >= HSC_SQLITE_MIN_USABLE_VERSION) {
            return 0;
        }
        hsc_store_msgf(
            msg, msglen,
            "%s: schema version %lld needs an upgrade to %d, which %s "
            "cannot do (run \"hsc-admin init\")",
            path, (long long)ver, HSC_SQLITE_VERSION,
            readonly ? "a read-only open" : "this program");
        return -1;
    }
    if (readonly) {
        hsc_store_msgf(
            msg, msglen,
            "%s: schema version %lld needs an upgrade to %d, which a "
            "read-only open cannot do (run \"hsc-admin init\")",
            path, (long long)ver, HSC_SQLITE_VERSION);
        return -1;
    }
    *migrate = 1;
    return 0;
}

/* A writer's setup: WAL and the migration when due, the WAL's limits. */
static int setup_writer(sqlite3 *db, const char *path, int need_migration,
                        int64_t *ver, char *msg, size_t msglen)
{
    int one = 1;
    char sql[64];

    if (need_migration) {
        /* WAL is a property of the file: set once, at creation. */
        if (sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL)
            != SQLITE_OK) {
            hsc_store_msgf(msg, msglen, "%s: cannot enable WAL: %s", path,
                           sqlite3_errmsg(db));
            return -1;
        }
        if (migrate(db, path, msg, msglen) != SQLITE_OK) {
            return -1;
        }
        *ver = HSC_SQLITE_VERSION;
    }
    /* Keep -wal and -shm when the last writer closes, so that a reader
     * that may not create files in the directory can still open the
     * database read-only; the WAL is truncated on close. */
    sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &one);
    snprintf(sql, sizeof(sql), "PRAGMA journal_size_limit = %d",
             HSC_SQLITE_WAL_LIMIT);
    sqlite3_exec(db, sql, NULL, NULL, NULL);
    return 0;
}

static hsc_status_t connect_db(const char *path, int flags, sqlite3 **pdb,
                               sqlite3_stmt **pget, int *preadonly,
                               int *pversion, char *store_id, char *msg,
                               size_t msglen)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *get = NULL;
    int64_t app = 0, ver = 0;
    int readonly = 0, need_migration = 0;
    char sql[256];
    hsc_status_t st;

    *pdb = NULL;
    *pget = NULL;
    *preadonly = 0;
    *pversion = 0;
    store_id[0] = '\0';
    if ((st = check_path(path, flags, msg, msglen)) != HSC_OK
        || (st = open_db(path, flags, &db, &readonly, msg, msglen)) != HSC_OK) {
        goto cleanup;
    }
    st = HSC_ESTORE;
    if (read_identity(db, path, readonly, &app, &ver, msg, msglen) != 0
        || plan_migration(db, path, flags, readonly, app, ver, &need_migration,
                          msg, msglen)
               != 0
        || (!readonly
            && setup_writer(db, path, need_migration, &ver, msg, msglen)
                   != 0)) {
        goto cleanup;
    }
    snprintf(sql, sizeof(sql), "%s FROM hsc_users WHERE username = ?1",
             SELECT_USER(ver));
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &get, NULL)
        != SQLITE_OK) {
        hsc_store_msgf(msg, msglen, "%s: not a usable hsc user database: %s",
                       path, sqlite3_errmsg(db));
        goto cleanup;
    }
    if (ver >= HSC_SQLITE_STORE_ID_VERSION) {
        read_store_id(db, store_id);
    }
    *pdb = db;
    *pget = get;
    *preadonly = readonly;
    *pversion = (int)ver;
    return HSC_OK;

cleanup:
    sqlite3_finalize(get);
    sqlite3_close(db);
    return st;
}

/*
 * The validation rule.
 *
 * In WAL mode, every transaction that commits rewrites the WAL-index
 * header at the start of the -shm file, which every connection to the
 * database maps: two copies of 48 bytes, copy 1 written first, then copy 0
 * (https://www.sqlite.org/walformat.html). Among its fields iChange goes
 * up by one on every commit (and on every WAL reset or recovery), mxFrame
 * and the checksums move with each frame. SQLite's readers in every
 * process learn whether the database changed exactly this way: a reader
 * compares the header with the one it last saw (walIndexTryHdr), and keeps
 * its page cache across transactions when they are equal. A cached user
 * record is therefore tied to the header it was read under, and is
 * returned only while the live header is byte for byte that one: no
 * commit, by any connection in any process, has happened since. The first
 * request after hsc-admin's commit sees a new header and reads the table.
 * The token handed to the cache is the file's device and inode followed by
 * the header, so two files with equal headers are never confused.
 *
 * Reading the header without a lock is what SQLite does too: copy 0, a
 * barrier, copy 1; a writer busy between them leaves them different, and
 * the rule says "bypass" (the lookup runs the query, nothing is kept). The
 * wrapper (hsc_store.c) keeps a row only when the token read before the
 * query equals the one read after it (no commit in between, so the row is
 * the one that header describes).
 *
 * Rollback-journal mode has no such header, so the cache is used only when
 * the connection is in WAL mode. Another process cannot take the file out
 * of WAL mode under an open handle: a WAL connection keeps a SHARED lock on
 * the database file between transactions, and leaving WAL needs an
 * EXCLUSIVE one, so "PRAGMA journal_mode=DELETE" elsewhere fails with
 * SQLITE_BUSY (test_store.c checks both). A handle that (re)connects to a
 * file in another mode runs the query every time.
 *
 * Besides, the rule says "everything changed" after the handle reconnects
 * (watch(), at most once a second, reconnects when the file was replaced,
 * deleted or written over in place): that bounds to a second what no
 * SQLite reader would see either (a writer that bypasses locking).
 */

/* Read a consistent WAL-index header into h: 1, or 0 when torn/unusable. */
static int wal_hdr_read(const unsigned char *shm, unsigned char *h)
{
    unsigned char h1[WAL_HDR_LEN];
    uint32_t version;

    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    memcpy(h, shm, WAL_HDR_LEN);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    memcpy(h1, shm + WAL_HDR_LEN, WAL_HDR_LEN);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    memcpy(&version, h, sizeof(version));
    return memcmp(h, h1, WAL_HDR_LEN) == 0 && version == WAL_HDR_VERSION
           && h[WAL_HDR_ISINIT] == 1;
}

/* 1 when the one-row PRAGMA sql answers want. */
static int pragma_is(sqlite3 *db, const char *sql, const char *want)
{
    sqlite3_stmt *st = NULL;
    const unsigned char *v;
    int is = 0;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK
        && sqlite3_step(st) == SQLITE_ROW
        && (v = sqlite3_column_text(st, 0)) != NULL) {
        is = strcmp((const char *)v, want) == 0;
    }
    sqlite3_finalize(st);
    return is;
}

/*
 * 1 when the connection uses the shared -shm file as its WAL-index: WAL
 * mode, and the normal locking mode (in exclusive locking mode SQLite may
 * keep the WAL-index in heap memory instead, where no other process
 * writes and the mapping below would be a different one).
 */
static int uses_shared_wal_index(sqlite3 *db)
{
    return pragma_is(db, "PRAGMA journal_mode", "wal")
           && pragma_is(db, "PRAGMA locking_mode", "normal");
}

/*
 * After a connect: find the connection's mapping of the WAL-index through
 * the VFS (the one SQLite itself reads), or leave the cache off. Any doubt
 * (not WAL, an old VFS, a read-only or heap-memory -shm, nothing mapped
 * yet) means the query on every get().
 */
static void cache_attach(sq_store_t *sq)
{
    sqlite3_file *f = NULL;
    volatile void *p = NULL;

    sq->shm = NULL;
    sq->reconnected = 1;
    if (sq->db == NULL || !uses_shared_wal_index(sq->db)) {
        return;
    }
    if (sqlite3_file_control(sq->db, "main", SQLITE_FCNTL_FILE_POINTER, &f)
            != SQLITE_OK
        || f == NULL || f->pMethods == NULL || f->pMethods->iVersion < 2
        || f->pMethods->xShmMap == NULL) {
        return;
    }
    /* bExtend 0: the region SQLite has mapped already; SQLITE_READONLY
     * (a -shm this process may not write) is refused too. */
    if (f->pMethods->xShmMap(f, 0, WAL_SHM_REGION, 0, &p) != SQLITE_OK
        || p == NULL) {
        return;
    }
    /* Read with explicit fences (wal_hdr_read), as SQLite does; the
     * volatile qualifier is dropped so the copies can use memcpy. */
    sq->shm = (const unsigned char *)(uintptr_t)p;
}

static void disconnect(sq_store_t *sq)
{
    int i;

    sq->shm = NULL;
    sq->small_pages = 0; /* a new connection starts with SQLite's default */
    sqlite3_finalize(sq->get_st);
    sq->get_st = NULL;
    for (i = 0; i < HSC_SQ_KEPT; i++) {
        sqlite3_finalize(sq->kept[i]);
        sq->kept[i] = NULL;
    }
    sqlite3_close(sq->db);
    sq->db = NULL;
}

/*
 * The page cache follows the record cache: HSC_SQLITE_PAGE_CACHE_KIB while
 * one is in front of this handle, SQLite's default otherwise. Checked on
 * every get() that reaches SQLite (one comparison; the PRAGMA runs once
 * per connection and whenever hsc_store_use_cache() adds or removes the
 * record cache).
 */
static void size_page_cache(sq_store_t *sq)
{
    int want = sq->base.cache != NULL;
    char sql[64];

    if (sq->db == NULL || want == sq->small_pages) {
        return;
    }
    if (want) {
        if (query_int(sq->db, "PRAGMA cache_size", &sq->pages_before)
            != SQLITE_OK) {
            return;
        }
        snprintf(sql, sizeof(sql), "PRAGMA cache_size = -%d",
                 HSC_SQLITE_PAGE_CACHE_KIB);
    }
    else {
        snprintf(sql, sizeof(sql), "PRAGMA cache_size = %lld",
                 (long long)sq->pages_before);
    }
    /* A failure leaves the size as it was: slower or larger, never wrong. */
    if (sqlite3_exec(sq->db, sql, NULL, NULL, NULL) == SQLITE_OK) {
        sq->small_pages = want;
    }
}

/* Remember what the file at the path looks like now (see watch()). */
static void remember_file(sq_store_t *sq)
{
    if (stat(sq->path, &sq->seen) != 0) {
        memset(&sq->seen, 0, sizeof(sq->seen));
    }
}

/*
 * 1 when the file at the path is no longer the one last connected to, or
 * was written outside SQLite's locking (another inode, or another size,
 * modification or change time). A checkpoint by hsc-admin changes the
 * times too and costs one reconnect; a file overwritten in place (cp over
 * a live database) is otherwise invisible to an open connection, whose
 * page cache and validated cache only follow the WAL-index.
 */
static int file_changed(const sq_store_t *sq)
{
    struct stat sb;

    if (stat(sq->path, &sb) != 0) {
        return 1;
    }
    return sb.st_dev != sq->seen.st_dev || sb.st_ino != sq->seen.st_ino
           || sb.st_size != sq->seen.st_size
           || sb.st_mtim.tv_sec != sq->seen.st_mtim.tv_sec
           || sb.st_mtim.tv_nsec != sq->seen.st_mtim.tv_nsec
           || sb.st_ctim.tv_sec != sq->seen.st_ctim.tv_sec
           || sb.st_ctim.tv_nsec != sq->seen.st_ctim.tv_nsec;
}

/*
 * At most once a second: has the file been deleted, replaced (another
 * inode at the path) or written behind SQLite's back (file_changed())?
 * Then drop the connection and open the path again.
 * While the file is gone every call fails with HSC_ESTORE (fail closed).
 */
static hsc_status_t watch(sq_store_t *sq)
{
    struct timespec now;
    hsc_status_t st;
    int moved = 0, ro = 0;
    char msg[sizeof(sq->base.errmsg)];

    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec < sq->next_check.tv_sec
        || (now.tv_sec == sq->next_check.tv_sec
            && now.tv_nsec < sq->next_check.tv_nsec)) {
        if (sq->db != NULL) {
            return HSC_OK;
        }
        return HSC_ESTORE; /* gone; errmsg still says why */
    }
    sq->next_check = now;
    sq->next_check.tv_sec += 1;
    if (sq->db != NULL) {
        if (sqlite3_file_control(sq->db, "main", SQLITE_FCNTL_HAS_MOVED, &moved)
            != SQLITE_OK) {
            moved = 0; /* a VFS without the check: the stat below decides */
        }
        if (!moved && !file_changed(sq)) {
            return HSC_OK;
        }
        disconnect(sq);
    }
    msg[0] = '\0';
    remember_file(sq);
    st = connect_db(sq->path, sq->flags, &sq->db, &sq->get_st, &ro,
                    &sq->version, sq->store_id, msg, sizeof(msg));
    if (st != HSC_OK) {
        hsc_store_msgf(sq->base.errmsg, sizeof(sq->base.errmsg),
                       "database file replaced, deleted or damaged: %s", msg);
        return HSC_ESTORE;
    }
    sq->readonly = ro;
    cache_attach(sq);
    return HSC_OK;
}

/* The current row of st (SELECT_USER) into *out (hsc_store_hold_user). */
static hsc_status_t row_to_user(sq_store_t *sq, sqlite3_stmt *st,
                                hsc_user_t *out)
{
    hsc_store_row_t row;
    int n;

    row.name = (const char *)sqlite3_column_text(st, 0);
    row.name_len = (size_t)sqlite3_column_bytes(st, 0);
    row.salt = sqlite3_column_blob(st, 1);
    row.salt_len = (size_t)sqlite3_column_bytes(st, 1);
    row.kdf = (const char *)sqlite3_column_text(st, 2);
    row.kdf_len = (size_t)sqlite3_column_bytes(st, 2);
    row.auth = sqlite3_column_blob(st, 3);
    row.auth_len = (size_t)sqlite3_column_bytes(st, 3);
    row.groups = (const char *)sqlite3_column_text(st, 4);
    n = sqlite3_column_bytes(st, 4);
    row.groups_len = n < 0 ? 0 : (size_t)n;
    row.disabled = sqlite3_column_int64(st, 5) != 0;
    row.revoked_before = sqlite3_column_int64(st, 6);
    row.created = sqlite3_column_int64(st, 7);
    row.updated = sqlite3_column_int64(st, 8);
    row.gen = sqlite3_column_int64(st, 9);
    row.seals = sqlite3_column_blob(st, 10);
    n = sqlite3_column_bytes(st, 10);
    row.seals_len = n < 0 ? 0 : (size_t)n;
    if (sqlite3_column_type(st, 10) != SQLITE_NULL
        && sqlite3_column_type(st, 10) != SQLITE_BLOB) {
        row.seals_len = 1; /* not a whole hash: malformed */
    }
    return hsc_store_hold_user(&sq->base, &row, out);
}

/*
 * A connection to a file older than version 3 reads gen -1 (older than
 * 6: no seal hashes). Once "hsc-admin init" has upgraded the file under
 * it, its lookup must read the new columns, or it would refuse the format
 * 2 (or sealed) cookies other processes now mint: asked on each lookup of
 * such a connection only (one PRAGMA).
 */
static void gen_catch_up(sq_store_t *sq)
{
    sqlite3_stmt *get = NULL;
    int64_t ver;
    char sql[256];

    if (sq->version >= HSC_SQLITE_READ_VERSION || sq->db == NULL
        || query_int(sq->db, "PRAGMA user_version", &ver) != SQLITE_OK
        || ver <= sq->version) {
        return;
    }
    snprintf(sql, sizeof(sql), "%s FROM hsc_users WHERE username = ?1",
             SELECT_USER(ver));
    if (sqlite3_prepare_v3(sq->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &get,
                           NULL)
        != SQLITE_OK) {
        sqlite3_finalize(get);
        return;
    }
    sqlite3_finalize(sq->get_st);
    sq->get_st = get;
    sq->version = (int)ver;
}

static hsc_status_t sq_get(hsc_store_t *s, const char *user, size_t len,
                           hsc_user_t *out)
{
    sq_store_t *sq = (sq_store_t *)s;
    hsc_status_t st;
    int rc;

    memset(out, 0, sizeof(*out));
    if (len == 0 || len > HSC_USER_MAX) {
        return HSC_ENOUSER; /* no such name can be stored */
    }
    if ((st = watch(sq)) != HSC_OK) {
        return st;
    }
    gen_catch_up(sq);
    size_page_cache(sq);
    rc = sqlite3_bind_text(sq->get_st, 1, user, (int)len, SQLITE_STATIC);
    if (rc != SQLITE_OK) {
        st = sq_fail(sq, "get", rc);
        goto cleanup;
    }
    rc = sqlite3_step(sq->get_st);
    if (rc == SQLITE_DONE) {
        st = HSC_ENOUSER;
    }
    else if (rc == SQLITE_ROW) {
        st = row_to_user(sq, sq->get_st, out);
    }
    else {
        st = sq_fail(sq, "get", rc);
    }

cleanup:
    /* Ends the read transaction, so the next get sees new writes. */
    sqlite3_reset(sq->get_st);
    sqlite3_clear_bindings(sq->get_st);
    if (st != HSC_OK) {
        memset(out, 0, sizeof(*out));
        if (st != HSC_ENOUSER) {
            st = HSC_ESTORE; /* get's contract: OK, ENOUSER or ESTORE */
        }
    }
    return st;
}

/*
 * The rule: the token is (device, inode, WAL-index header). Unavailable
 * while the file is gone; everything changed right after a (re)connect;
 * bypass while the header is torn or there is none to read.
 */
static void sq_validate(hsc_store_t *s, hsc_validation_t *v)
{
    sq_store_t *sq = (sq_store_t *)s;
    uint64_t id[2];

    if (watch(sq) != HSC_OK) {
        v->verdict = HSC_VALID_UNAVAILABLE;
        return;
    }
    if (sq->shm == NULL || !wal_hdr_read(sq->shm, v->token + sizeof(id))) {
        v->verdict = HSC_VALID_BYPASS;
        return;
    }
    id[0] = (uint64_t)sq->seen.st_dev;
    id[1] = (uint64_t)sq->seen.st_ino;
    memcpy(v->token, id, sizeof(id));
    v->token_len = sizeof(id) + WAL_HDR_LEN;
    v->verdict = sq->reconnected ? HSC_VALID_ALL : HSC_VALID_UNCHANGED;
    sq->reconnected = 0;
}

/* Check the handle can write, then prepare sql. */
static hsc_status_t write_prepare(sq_store_t *sq, const char *what,
                                  const char *sql, sqlite3_stmt **pst)
{
    hsc_status_t st;
    int rc;

    *pst = NULL;
    if ((st = watch(sq)) != HSC_OK) {
        return st;
    }
    if (sq->readonly) {
        hsc_store_msgf(sq->base.errmsg, sizeof(sq->base.errmsg),
                       "%s: the database is open read-only", what);
        return HSC_EREADONLY;
    }
    rc = sqlite3_prepare_v2(sq->db, sql, -1, pst, NULL);
    if (rc != SQLITE_OK) {
        *pst = NULL;
        return sq_fail(sq, what, rc);
    }
    return HSC_OK;
}

/*
 * Run a prepared write (autocommit: one statement, one transaction) with
 * the writers' lock timeout. An update that changes no row is HSC_ENOUSER.
 */
static hsc_status_t write_run(sq_store_t *sq, const char *what,
                              sqlite3_stmt *st)
{
    hsc_status_t status;
    int rc;

    sqlite3_busy_timeout(sq->db, HSC_SQLITE_WRITE_WAIT_MS);
    rc = sqlite3_step(st);
    sqlite3_busy_timeout(sq->db, HSC_SQLITE_READ_WAIT_MS);
    if (rc == SQLITE_DONE) {
        status = sqlite3_changes(sq->db) > 0 ? HSC_OK : HSC_ENOUSER;
        if (status == HSC_ENOUSER) {
            hsc_store_msgf(sq->base.errmsg, sizeof(sq->base.errmsg),
                           "%s: no such user", what);
        }
    }
    else if (rc == SQLITE_CONSTRAINT_PRIMARYKEY) {
        hsc_store_msgf(sq->base.errmsg, sizeof(sq->base.errmsg),
                       "%s: the user already exists", what);
        status = HSC_EEXISTS;
    }
    else if ((rc & 0xff) == SQLITE_CONSTRAINT) {
        sq_fail(sq, what, rc);
        status = HSC_EINVAL; /* a value the schema's CHECKs refuse */
    }
    else if ((rc & 0xff) == SQLITE_READONLY) {
        sq_fail(sq, what, rc);
        status = HSC_EREADONLY;
    }
    else {
        status = sq_fail(sq, what, rc);
    }
    sqlite3_finalize(st);
    return status;
}

/*
 * write_run, and in the same transaction the deletion of user's one-time
 * links: a reset or invite link must not outlive a password change,
 * hsc-admin revoke or disable (docs/security.md). A file without links:
 * write_run alone.
 */
static hsc_status_t write_run_links(sq_store_t *sq, const char *what,
                                    sqlite3_stmt *st, const char *user)
{
    sqlite3_stmt *del = NULL;
    hsc_status_t status;
    int rc;

    gen_catch_up(sq); /* a file upgraded under this connection */
    if (sq->version < HSC_SQLITE_LINKS_VERSION) {
        return write_run(sq, what, st);
    }
    sqlite3_busy_timeout(sq->db, HSC_SQLITE_WRITE_WAIT_MS);
    rc = sqlite3_exec(sq->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    sqlite3_busy_timeout(sq->db, HSC_SQLITE_READ_WAIT_MS);
    if (rc != SQLITE_OK) {
        status = sq_fail(sq, what, rc);
        sqlite3_finalize(st);
        return (rc & 0xff) == SQLITE_READONLY ? HSC_EREADONLY : status;
    }
    status = write_run(sq, what, st);
    if (status == HSC_OK) {
        rc = sqlite3_prepare_v2(sq->db,
                                "DELETE FROM hsc_links WHERE username = ?1", -1,
                                &del, NULL);
        if (rc == SQLITE_OK) {
            rc = sqlite3_bind_text(del, 1, user, -1, SQLITE_STATIC);
        }
        if (rc == SQLITE_OK) {
            rc = sqlite3_step(del);
            rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
        }
        sqlite3_finalize(del);
        if (rc == SQLITE_OK) {
            rc = sqlite3_exec(sq->db, "COMMIT", NULL, NULL, NULL);
        }
        if (rc != SQLITE_OK) {
            status = sq_fail(sq, what, rc);
        }
    }
    if (status != HSC_OK) {
        sqlite3_exec(sq->db, "ROLLBACK", NULL, NULL, NULL);
    }
    return status;
}

static int64_t now_s(void)
{
    return (int64_t)time(NULL);
}

static hsc_status_t sq_add(hsc_store_t *s, const hsc_user_t *u)
{
    sq_store_t *sq = (sq_store_t *)s;
    sqlite3_stmt *st;
    hsc_status_t status;
    char spec[HSC_KDF_SPEC_MAX];
    int64_t now = now_s();

    status = write_prepare(sq, "add",
                           "INSERT INTO hsc_users (" USER_COLUMNS
                           ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, ?7, ?7, 0)",
                           &st);
    if (status != HSC_OK) {
        return status;
    }
    hsc_kdf_format(&u->kdf, spec, sizeof(spec));
    if (sqlite3_bind_text(st, 1, u->name, (int)u->name_len, SQLITE_STATIC)
        || sqlite3_bind_blob(st, 2, u->salt, HSC_SALT_LEN, SQLITE_STATIC)
        || sqlite3_bind_text(st, 3, spec, -1, SQLITE_STATIC)
        || sqlite3_bind_blob(st, 4, u->authenticator, HSC_AUTH_LEN,
                             SQLITE_STATIC)
        || sqlite3_bind_text(st, 5, u->groups ? u->groups : "", -1,
                             SQLITE_STATIC)
        || sqlite3_bind_int(st, 6, u->disabled ? 1 : 0)
        || sqlite3_bind_int64(st, 7, now)) {
        status = sq_fail(sq, "add", sqlite3_errcode(sq->db));
        sqlite3_finalize(st);
        return status;
    }
    return write_run(sq, "add", st);
}

/* With current_xn, the check is the statement's own WHERE: a change made
 * meanwhile (another browser, hsc-admin) leaves this one undone. */
static hsc_status_t sq_set_password(hsc_store_t *s, const char *user,
                                    const unsigned char *current_xn,
                                    const unsigned char salt[HSC_SALT_LEN],
                                    const hsc_kdf_t *kdf,
                                    const unsigned char v[HSC_AUTH_LEN])
{
    sq_store_t *sq = (sq_store_t *)s;
    unsigned char cur[HSC_AUTH_LEN];
    sqlite3_stmt *st;
    hsc_status_t status;
    char spec[HSC_KDF_SPEC_MAX];

    if (current_xn != NULL
        && (status = hsc_authenticator(current_xn, cur)) != HSC_OK) {
        return status;
    }
    status = write_prepare(sq, "set_password",
                           "UPDATE hsc_users SET salt = ?2, kdf = ?3, "
                           "authenticator = ?4, gen = gen + 1, updated = ?5 "
                           "WHERE username = ?1 "
                           "AND (?6 IS NULL OR authenticator = ?6)",
                           &st);
    if (status != HSC_OK) {
        return status;
    }
    hsc_kdf_format(kdf, spec, sizeof(spec));
    if (sqlite3_bind_text(st, 1, user, -1, SQLITE_STATIC)
        || sqlite3_bind_blob(st, 2, salt, HSC_SALT_LEN, SQLITE_STATIC)
        || sqlite3_bind_text(st, 3, spec, -1, SQLITE_STATIC)
        || sqlite3_bind_blob(st, 4, v, HSC_AUTH_LEN, SQLITE_STATIC)
        || sqlite3_bind_int64(st, 5, now_s())
        || (current_xn != NULL
            && sqlite3_bind_blob(st, 6, cur, HSC_AUTH_LEN, SQLITE_STATIC))) {
        status = sq_fail(sq, "set_password", sqlite3_errcode(sq->db));
        sqlite3_finalize(st);
        return status;
    }
    status = write_run_links(sq, "set_password", st, user);
    if (status == HSC_ENOUSER && current_xn != NULL) {
        hsc_store_msgf(sq->base.errmsg, sizeof(sq->base.errmsg),
                       "set_password: the current password changed meanwhile");
        status = HSC_EAUTH;
    }
    return status;
}

static hsc_status_t sq_set_groups(hsc_store_t *s, const char *user,
                                  const char *groups)
{
    sq_store_t *sq = (sq_store_t *)s;
    sqlite3_stmt *st;
    hsc_status_t status;

    status = write_prepare(sq, "set_groups",
                           "UPDATE hsc_users SET groups = ?2, updated = ?3 "
                           "WHERE username = ?1",
                           &st);
    if (status != HSC_OK) {
        return status;
    }
    if (sqlite3_bind_text(st, 1, user, -1, SQLITE_STATIC)
        || sqlite3_bind_text(st, 2, groups, -1, SQLITE_STATIC)
        || sqlite3_bind_int64(st, 3, now_s())) {
        status = sq_fail(sq, "set_groups", sqlite3_errcode(sq->db));
        sqlite3_finalize(st);
        return status;
    }
    return write_run(sq, "set_groups", st);
}

static hsc_status_t sq_set_disabled(hsc_store_t *s, const char *user, int on)
{
    sq_store_t *sq = (sq_store_t *)s;
    sqlite3_stmt *st;
    hsc_status_t status;

    status = write_prepare(sq, "set_disabled",
                           "UPDATE hsc_users SET disabled = ?2, updated = ?3 "
                           "WHERE username = ?1",
                           &st);
    if (status != HSC_OK) {
        return status;
    }
    if (sqlite3_bind_text(st, 1, user, -1, SQLITE_STATIC)
        || sqlite3_bind_int(st, 2, on ? 1 : 0)
        || sqlite3_bind_int64(st, 3, now_s())) {
        status = sq_fail(sq, "set_disabled", sqlite3_errcode(sq->db));
        sqlite3_finalize(st);
        return status;
    }
    /* Disabled: the user's links go in the same transaction. */
    return on ? write_run_links(sq, "set_disabled", st, user)
              : write_run(sq, "set_disabled", st);
}

static hsc_status_t revoke_run(sq_store_t *sq, const char *sql,
                               const char *user, int64_t when, int links)
{
    sqlite3_stmt *st;
    hsc_status_t status;

    status = write_prepare(sq, "revoke", sql, &st);
    if (status != HSC_OK) {
        return status;
    }
    if (sqlite3_bind_text(st, 1, user, -1, SQLITE_STATIC)
        || sqlite3_bind_int64(st, 2, when)
        || sqlite3_bind_int64(st, 3, now_s())) {
        status = sq_fail(sq, "revoke", sqlite3_errcode(sq->db));
        sqlite3_finalize(st);
        return status;
    }
    return links ? write_run_links(sq, "revoke", st, user)
                 : write_run(sq, "revoke", st);
}

#define REVOKE_SQL(gen_too)                                                       \
    "UPDATE hsc_users SET revoked_before = max(?2, revoked_before + 1), " gen_too \
    "updated = ?3 WHERE username = ?1"

static hsc_status_t sq_revoke(hsc_store_t *s, const char *user, int64_t when,
                              int links)
{
    sq_store_t *sq = (sq_store_t *)s;
    hsc_status_t status;

    gen_catch_up(sq);
    if (sq->version >= HSC_SQLITE_GEN_VERSION) {
        return revoke_run(sq, REVOKE_SQL("gen = gen + 1, "), user, when, links);
    }
    /* httpd's "log out everywhere" on a file without gen (httpd never
     * upgrades one): its users hold format 1 cookies. Should the file
     * have been upgraded meanwhile, raise gen too: revocation is exact. */
    status = revoke_run(sq, REVOKE_SQL(""), user, when, links);
    gen_catch_up(sq);
    if (status == HSC_OK && sq->version >= HSC_SQLITE_GEN_VERSION) {
        status = revoke_run(sq, REVOKE_SQL("gen = gen + 1, "), user, when,
                            links);
    }
    return status;
}

static hsc_status_t sq_del(hsc_store_t *s, const char *user)
{
    sq_store_t *sq = (sq_store_t *)s;
    sqlite3_stmt *st;
    hsc_status_t status;

    status = write_prepare(sq, "del",
                           "DELETE FROM hsc_users WHERE username = ?1", &st);
    if (status != HSC_OK) {
        return status;
    }
    if (sqlite3_bind_text(st, 1, user, -1, SQLITE_STATIC)) {
        status = sq_fail(sq, "del", sqlite3_errcode(sq->db));
        sqlite3_finalize(st);
        return status;
    }
    return write_run(sq, "del", st);
}

static hsc_status_t sq_list(hsc_store_t *s, hsc_store_each_fn *fn, void *baton)
{
    sq_store_t *sq = (sq_store_t *)s;
    sqlite3_stmt *st = NULL;
    hsc_user_t u;
    hsc_status_t status;
    char sql[256];
    int rc;

    if ((status = watch(sq)) != HSC_OK) {
        return status;
    }
    snprintf(sql, sizeof(sql), "%s FROM hsc_users ORDER BY username",
             SELECT_USER(sq->version));
    rc = sqlite3_prepare_v2(sq->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        return sq_fail(sq, "list", rc);
    }
    status = HSC_OK;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        memset(&u, 0, sizeof(u));
        if ((status = row_to_user(sq, st, &u)) != HSC_OK) {
            break;
        }
        if (fn(baton, &u) != 0) {
            break;
        }
    }
    if (status == HSC_OK && rc != SQLITE_ROW && rc != SQLITE_DONE) {
        status = sq_fail(sq, "list", rc);
    }
    sqlite3_finalize(st);
    return status;
}

/*
 * The id read at connect (a reconnect reads the new file's). A file of
 * version 1 has none until hsc-admin init upgrades it: asked again each
 * time, so the upgrade is seen without a restart.
 */
static hsc_status_t sq_store_id(hsc_store_t *s, char *buf, size_t len)
{
    sq_store_t *sq = (sq_store_t *)s;
    hsc_status_t st;

    if ((st = watch(sq)) != HSC_OK) {
        return st;
    }
    if (sq->store_id[0] == '\0') {
        read_store_id(sq->db, sq->store_id);
    }
    if (sq->store_id[0] == '\0') {
        hsc_store_msgf(
            sq->base.errmsg, sizeof(sq->base.errmsg),
            "the database has no store id (schema version %d; \"hsc-admin "
            "init\" adds one)",
            sq->version);
        return HSC_EINVAL;
    }
    hsc_store_msgf(buf, len, "%s", sq->store_id);
    return HSC_OK;
}

static void sq_close(hsc_store_t *s)
{
    sq_store_t *sq = (sq_store_t *)s;

    disconnect(sq);
    free(sq->path);
    free(sq);
}

static const hsc_store_vtable_t sq_vtable =
    {.get = sq_get,
     .add = sq_add,
     .set_password = sq_set_password,
     .set_groups = sq_set_groups,
     .set_disabled = sq_set_disabled,
     .revoke = sq_revoke,
     .del = sq_del,
     .list = sq_list,
     .close = sq_close,
     .validate = sq_validate,
     .store_id = sq_store_id,
     .token_get = hsc_sq_token_get,
     .token_add = hsc_sq_token_add,
     .token_add_own = hsc_sq_token_add_own,
     .token_list = hsc_sq_token_list,
     .token_revoke = hsc_sq_token_revoke};

hsc_status_t hsc_store_sqlite_open(const char *path, int flags,
                                   hsc_store_t **ps, char *errbuf,
                                   size_t errlen)
{
    sq_store_t *sq = NULL;
    hsc_status_t st;
    char msg[sizeof(sq->base.errmsg)];

    *ps = NULL;
    if (errbuf != NULL && errlen > 0) {
        errbuf[0] = '\0';
    }
    if (path == NULL || *path == '\0') {
        hsc_store_msgf(errbuf, errlen, "no database path given");
        return HSC_EIO;
    }
    sq = calloc(1, sizeof(*sq));
    if (sq == NULL) {
        hsc_store_msgf(errbuf, errlen, "out of memory");
        return HSC_ENOMEM;
    }
    sq->base.vt = &sq_vtable;
    sq->path = strdup(path);
    if (sq->path == NULL) {
        hsc_store_msgf(errbuf, errlen, "out of memory");
        st = HSC_ENOMEM;
        goto cleanup;
    }
    sq->flags = flags & ~HSC_STORE_CREATE; /* a reopen never creates */
    if (!(flags & HSC_STORE_NOCACHE)) {
        st = hsc_cache_create(HSC_STORE_PRIVATE_CACHE, 1, &sq->base.cache);
        if (st != HSC_OK) {
            hsc_store_msgf(errbuf, errlen, "out of memory");
            goto cleanup;
        }
        sq->base.cache_owned = 1;
    }
    msg[0] = '\0';
    remember_file(sq); /* before: a change after this reconnects once */
    st = connect_db(path, flags, &sq->db, &sq->get_st, &sq->readonly,
                    &sq->version, sq->store_id, msg, sizeof(msg));
    if (st != HSC_OK) {
        hsc_store_msgf(errbuf, errlen, "%s", msg);
        goto cleanup;
    }
    cache_attach(sq);
    sq->reconnected = 0; /* a first connect: nothing kept to distrust */
    clock_gettime(CLOCK_MONOTONIC, &sq->next_check);
    sq->next_check.tv_sec += 1;
    *ps = &sq->base;
    return HSC_OK;

cleanup:
    hsc_cache_destroy(sq->base.cache);
    free(sq->path);
    free(sq);
    return st;
}

/* --- for the backend's other files (hsc_tokens_sqlite.c) ----------------- */

sqlite3 *hsc_sq_conn(hsc_store_t *s, int write, int *version)
{
    sq_store_t *sq = (sq_store_t *)s;

    if (s->vt != &sq_vtable || watch(sq) != HSC_OK) {
        return NULL; /* errmsg says why */
    }
    if (write && sq->readonly) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "the database is open read-only");
        return NULL;
    }
    *version = sq->version;
    return sq->db;
}

sqlite3_stmt *hsc_sq_kept(hsc_store_t *s, int slot, const char *sql)
{
    sq_store_t *sq = (sq_store_t *)s;
    int rc;

    if (sq->kept[slot] == NULL) {
        rc = sqlite3_prepare_v3(sq->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
                                &sq->kept[slot], NULL);
        if (rc != SQLITE_OK) {
            sq_fail(sq, "prepare", rc);
            sq->kept[slot] = NULL;
        }
    }
    return sq->kept[slot];
}

hsc_status_t hsc_sq_fail(hsc_store_t *s, const char *what, int rc)
{
    sq_store_t *sq = (sq_store_t *)s;

    if ((rc & 0xff) == SQLITE_READONLY) {
        sq_fail(sq, what, rc);
        return HSC_EREADONLY;
    }
    if ((rc & 0xff) == SQLITE_CONSTRAINT) {
        sq_fail(sq, what, rc);
        return HSC_EINVAL;
    }
    return sq_fail(sq, what, rc);
}

void hsc_sq_write_wait(hsc_store_t *s, int on)
{
    sqlite3_busy_timeout(((sq_store_t *)s)->db, on ? HSC_SQLITE_WRITE_WAIT_MS
                                                   : HSC_SQLITE_READ_WAIT_MS);
}

int hsc_store_sqlite_cached(const hsc_store_t *s)
{
    return s != NULL && s->vt == &sq_vtable && s->cache != NULL
           && ((const sq_store_t *)s)->shm != NULL;
}

int hsc_store_sqlite_process_init(void)
{
    /* SQLITE_MISUSE once SQLite is initialized: another module (or an
     * earlier configuration pass) got there first, and that is fine. */
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK;
}

int hsc_store_sqlite_is_version1(const char *path)
{
    unsigned char h[72];
    FILE *f = fopen(path, "rb");
    size_t n;
    uint32_t ver, app;

    if (f == NULL) {
        return 0;
    }
    n = fread(h, 1, sizeof(h), f);
    fclose(f);
    /* The header: "SQLite format 3\0", user_version at 60, application_id
     * at 68, both big-endian. */
    if (n != sizeof(h) || memcmp(h, "SQLite format 3", 16) != 0) {
        return 0;
    }
    ver = (uint32_t)h[60] << 24 | (uint32_t)h[61] << 16 | (uint32_t)h[62] << 8
          | h[63];
    app = (uint32_t)h[68] << 24 | (uint32_t)h[69] << 16 | (uint32_t)h[70] << 8
          | h[71];
    return app == HSC_SQLITE_APP_ID && ver == 1;
}
