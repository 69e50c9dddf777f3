/*
 * hsc_activity_sqlite.c: the activity store in an SQLite file of its own
 * (hsc_activity.h): created with mode 0600 when absent (never by a
 * read-only open), WAL mode, one table
 *
 *     hsc_token_activity (id TEXT PRIMARY KEY, last_at INTEGER,
 *                         last_addr TEXT)
 *
 * A touch is one upsert whose time only grows. It runs on the request
 * path, so it waits at most HSC_ACTIVITY_BUSY_MS for the file's lock:
 * past that it fails (HSC_ESTORE), it never hangs a request. The user
 * file is refused here (its application id): every commit to it would
 * empty the record caches.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "hsc_activity_backend.h"

/* The longest wait for the file's lock on a touch or a read. */
#define HSC_ACTIVITY_BUSY_MS 200
/* At open (once per process): creating the table, setting WAL. */
#define HSC_ACTIVITY_OPEN_WAIT_MS 2000
/* The user database's application id ("HSC1"): not an activity file. */
#define HSC_USERDB_APPLICATION_ID 0x48534331

typedef struct {
    struct hsc_activity base; /* first: the handle callers hold */
    sqlite3 *db;              /* NULL: read-only and no file yet */
    sqlite3_stmt *touch, *get;
} sq_activity_t;

static const hsc_activity_vtable_t sq_vtable;

static hsc_status_t fail(hsc_activity_t *a, const char *what, sqlite3 *db,
                         int rc)
{
    if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
        hsc_activity_msgf(a, "%s: the activity file stayed locked over %d ms",
                          what, HSC_ACTIVITY_BUSY_MS);
    }
    else {
        hsc_activity_msgf(a, "%s: %s", what,
                          db != NULL ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    }
    return HSC_ESTORE;
}

static hsc_status_t sq_touch(hsc_activity_t *a, const char *id, int64_t at,
                             const char *addr)
{
    sq_activity_t *h = (sq_activity_t *)a;
    int rc;

    if (h->db == NULL) {
        hsc_activity_msgf(a, "touch: the activity store is open read-only");
        return HSC_EREADONLY;
    }
    rc = sqlite3_bind_text(h->touch, 1, id, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_int64(h->touch, 2, at);
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_text(h->touch, 3, addr, -1, SQLITE_STATIC);
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(h->touch);
    }
    sqlite3_reset(h->touch);
    sqlite3_clear_bindings(h->touch);
    if (rc != SQLITE_DONE) {
        return fail(a, "touch", h->db, rc);
    }
    return HSC_OK;
}

static hsc_status_t sq_get(hsc_activity_t *a, const char *id, int64_t *at,
                           char *addr)
{
    sq_activity_t *h = (sq_activity_t *)a;
    hsc_status_t st;
    int rc;

    if (h->db == NULL) {
        return HSC_ENOUSER; /* no file yet: no token was ever used */
    }
    rc = sqlite3_bind_text(h->get, 1, id, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(h->get);
    }
    if (rc == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(h->get, 1);

        *at = sqlite3_column_int64(h->get, 0);
        snprintf(addr, HSC_ACTIVITY_ADDR_MAX, "%s", t ? (const char *)t : "");
        st = HSC_OK;
    }
    else if (rc == SQLITE_DONE) {
        st = HSC_ENOUSER;
    }
    else {
        st = fail(a, "get", h->db, rc);
    }
    sqlite3_reset(h->get);
    sqlite3_clear_bindings(h->get);
    return st;
}

static void sq_close(hsc_activity_t *a)
{
    sq_activity_t *h = (sq_activity_t *)a;

    sqlite3_finalize(h->touch);
    sqlite3_finalize(h->get);
    sqlite3_close(h->db);
    free(h);
}

static const hsc_activity_vtable_t sq_vtable = {.touch = sq_touch,
                                                .get = sq_get,
                                                .close = sq_close};

/* Create path (mode 0600) when it is absent; HSC_OK when it is there. */
static hsc_status_t create_file(const char *path, char *errbuf, size_t errlen)
{
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                  0600);

    if (fd >= 0) {
        close(fd);
        return HSC_OK;
    }
    if (errno == EEXIST) {
        return HSC_OK;
    }
    snprintf(errbuf, errlen, "%s: cannot create the activity file: %s", path,
             strerror(errno));
    return HSC_EIO;
}

/* The schema and the two statements, on an open connection. */
static int prepare(sq_activity_t *h, int readonly, const char **what)
{
    sqlite3 *db = h->db;
    sqlite3_stmt *st = NULL;
    int rc, app = 0;

    *what = "application id";
    rc = sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        app = sqlite3_column_int(st, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK) {
        return rc;
    }
    if (app == HSC_USERDB_APPLICATION_ID) {
        *what = NULL; /* the user file */
        return SQLITE_MISUSE;
    }
    if (!readonly) {
        *what = "create";
        rc = sqlite3_exec(db,
                          "PRAGMA journal_mode = WAL; "
                          "CREATE TABLE IF NOT EXISTS hsc_token_activity ("
                          " id TEXT NOT NULL PRIMARY KEY,"
                          " last_at INTEGER NOT NULL,"
                          " last_addr TEXT NOT NULL DEFAULT '')",
                          NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
            return rc;
        }
        *what = "prepare";
        rc = sqlite3_prepare_v2(
            db,
            "INSERT INTO hsc_token_activity (id, last_at, last_addr) "
            "VALUES (?1, ?2, ?3) ON CONFLICT (id) DO UPDATE SET "
            "last_at = max(last_at, excluded.last_at), "
            "last_addr = CASE WHEN excluded.last_at > last_at "
            "THEN excluded.last_addr ELSE last_addr END",
            -1, &h->touch, NULL);
        if (rc != SQLITE_OK) {
            return rc;
        }
    }
    *what = "prepare";
    return sqlite3_prepare_v2(db,
                              "SELECT last_at, last_addr FROM "
                              "hsc_token_activity WHERE id = ?1",
                              -1, &h->get, NULL);
}

hsc_status_t hsc_activity_sqlite_open(const char *path, int readonly,
                                      hsc_activity_t **out, char *errbuf,
                                      size_t errlen)
{
    sq_activity_t *h;
    const char *what;
    hsc_status_t st;
    int rc;

    h = calloc(1, sizeof(*h));
    if (h == NULL) {
        snprintf(errbuf, errlen, "out of memory");
        return HSC_ENOMEM;
    }
    h->base.vt = &sq_vtable;
    h->base.readonly = readonly;
    if (readonly && access(path, F_OK) != 0 && errno == ENOENT) {
        *out = &h->base; /* nothing was ever recorded */
        return HSC_OK;
    }
    if (!readonly && (st = create_file(path, errbuf, errlen)) != HSC_OK) {
        free(h);
        return st;
    }
    rc = sqlite3_open_v2(path, &h->db,
                         readonly ? SQLITE_OPEN_READONLY
                                  : SQLITE_OPEN_READWRITE,
                         NULL);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(h->db, HSC_ACTIVITY_OPEN_WAIT_MS);
        rc = prepare(h, readonly, &what);
    }
    else {
        what = "open";
    }
    if (rc != SQLITE_OK) {
        if (what == NULL) {
            snprintf(errbuf, errlen,
                     "%s is the user database: the activity store needs a "
                     "file of its own",
                     path);
        }
        else {
            snprintf(errbuf, errlen, "%s: %s: %s", path, what,
                     h->db ? sqlite3_errmsg(h->db) : sqlite3_errstr(rc));
        }
        sq_close(&h->base);
        return what == NULL ? HSC_EINVAL : HSC_ESTORE;
    }
    sqlite3_busy_timeout(h->db, HSC_ACTIVITY_BUSY_MS);
    *out = &h->base;
    return HSC_OK;
}
