/*
 * hsc_factors_sqlite.c: second factors in an SQLite user database
 * (hsc_factors.h). Two connections a handle: the user file (its factor
 * tables, schema version 4) and the state file beside it, which holds
 * hsc_totp_used (username, last_at): the start time of the last TOTP step
 * accepted. Time, not the step number, so that a new enrolment with
 * another period cannot lower it.
 *
 * Every failure is HSC_ESTORE (or HSC_EREADONLY) with f->base.errmsg set from
 * SQLite's message and ours, never a bound value: callers fail closed.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "hsc_factors.h"
#include "hsc_factors_sqlite.h"
#include "hsc_store.h"

static const hsc_factors_vtable_t sq_vtable;

/* "HSC1": the user file's PRAGMA application_id (hsc_store_sqlite.c). */
#define USER_FILE_APP_ID 0x48534331
/* The schema version that made the factor tables. */
#define FACTORS_VERSION 4
/* Milliseconds a statement waits for another writer's lock. */
#define WAIT_MS 3000

static void msgf(sq_factors_t *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void msgf(sq_factors_t *f, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(f->base.errmsg, sizeof(f->base.errmsg), fmt, ap);
    va_end(ap);
}

hsc_status_t hsc_fx_fail(sq_factors_t *f, sqlite3 *db, const char *what, int rc)
{
    msgf(f, "%s: %s", what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    if (rc == SQLITE_READONLY) {
        return HSC_EREADONLY;
    }
    return rc == SQLITE_NOMEM ? HSC_ENOMEM : HSC_ESTORE;
}

static void sq_close(hsc_factors_t *fb)
{
    sq_factors_t *f = (sq_factors_t *)fb;

    sqlite3_close_v2(f->db);
    sqlite3_close_v2(f->state);
    free(f);
}

static int query_int(sqlite3 *db, const char *sql, int64_t *out)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

    *out = 0;
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            *out = sqlite3_column_int64(st, 0);
        }
        rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    sqlite3_finalize(st);
    return rc;
}

/*
 * Make the state file, when absent, with the user file's mode and (when
 * root makes it: hsc-admin init) its owner, so that whoever may write the
 * user file may write this one and nobody else may read it. SQLite gives
 * its -wal and -shm the same. A failure here shows at the open after.
 */
static void create_like(const char *path, const char *user_file)
{
    struct stat sb;
    int fd;

    if (stat(user_file, &sb) != 0) {
        return;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
              sb.st_mode & 0660);
    if (fd < 0) {
        return;
    }
    if (fchmod(fd, sb.st_mode & 0660) != 0
        || (geteuid() == 0 && fchown(fd, sb.st_uid, sb.st_gid) != 0)) {
        /* Left as made: the open after still works for this process. */
    }
    close(fd);
}

/* Open the state file (created when absent) and its one table. */
static hsc_status_t open_state(sq_factors_t *f, const char *spec)
{
    size_t n = strlen(spec);
    char *path = malloc(n + sizeof(HSC_FACTORS_STATE_SUFFIX));
    int rc;

    if (path == NULL) {
        return HSC_ENOMEM;
    }
    memcpy(path, spec, n);
    memcpy(path + n, HSC_FACTORS_STATE_SUFFIX,
           sizeof(HSC_FACTORS_STATE_SUFFIX));
    create_like(path, spec);
    rc = sqlite3_open_v2(path, &f->state,
                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                             | SQLITE_OPEN_NOMUTEX,
                         NULL);
    free(path);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(f->state, WAIT_MS);
        /* WAL: servers of one file accept codes without blocking reads. */
        rc = sqlite3_exec(f->state,
                          "PRAGMA journal_mode = WAL;"
                          "CREATE TABLE IF NOT EXISTS hsc_totp_used ("
                          " username TEXT NOT NULL PRIMARY KEY,"
                          " last_at INTEGER NOT NULL) WITHOUT ROWID;"
                          /* hsc_passkeys_sqlite.c: the one-time rule. */
                          "CREATE TABLE IF NOT EXISTS hsc_passkey_used ("
                          " cred_id BLOB NOT NULL PRIMARY KEY,"
                          " last_challenge INTEGER NOT NULL,"
                          " sign_count INTEGER NOT NULL) WITHOUT ROWID",
                          NULL, NULL, NULL);
    }
    if (rc != SQLITE_OK) {
        return hsc_fx_fail(f, f->state, "the TOTP state file", rc);
    }
    return HSC_OK;
}

hsc_status_t hsc_factors_sqlite_open(const char *spec, int readonly,
                                     hsc_factors_t **out, char *errbuf,
                                     size_t errlen)
{
    sq_factors_t *f;
    int64_t app = 0, ver = 0;
    hsc_status_t st = HSC_ESTORE;
    int rc;

    *out = NULL;
    if ((f = calloc(1, sizeof(*f))) == NULL) {
        snprintf(errbuf, errlen, "out of memory");
        return HSC_ENOMEM;
    }
    f->base.vt = &sq_vtable;
    f->base.readonly = readonly;
    rc = sqlite3_open_v2(spec, &f->db,
                         (readonly ? SQLITE_OPEN_READONLY
                                   : SQLITE_OPEN_READWRITE)
                             | SQLITE_OPEN_NOMUTEX,
                         NULL);
    if (rc != SQLITE_OK) {
        st = hsc_fx_fail(f, f->db, spec, rc);
        st = st == HSC_ESTORE ? HSC_EIO : st;
    }
    else {
        sqlite3_busy_timeout(f->db, WAIT_MS);
        if ((rc = query_int(f->db, "PRAGMA application_id", &app)) != SQLITE_OK
            || (rc = query_int(f->db, "PRAGMA user_version", &ver))
                   != SQLITE_OK) {
            st = hsc_fx_fail(f, f->db, spec, rc);
        }
        else if (app != USER_FILE_APP_ID) {
            msgf(f, "%s: not an hsc user database", spec);
        }
        else if (ver < FACTORS_VERSION) {
            msgf(f,
                 "%s: schema version %lld has no second factors: "
                 "\"hsc-admin init %s\" upgrades it",
                 spec, (long long)ver, spec);
        }
        else if ((f->version = (int)ver, readonly)
                 || (st = open_state(f, spec)) == HSC_OK) {
            *out = &f->base;
            return HSC_OK;
        }
    }
    snprintf(errbuf, errlen, "%s", f->base.errmsg);
    sq_close(&f->base);
    return st;
}

sqlite3_stmt *hsc_fx_prepare_user(sqlite3 *db, const char *sql,
                                  const char *user, int *rc)
{
    sqlite3_stmt *st = NULL;

    *rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (*rc == SQLITE_OK) {
        *rc = sqlite3_bind_text(st, 1, user, -1, SQLITE_STATIC);
    }
    if (*rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

hsc_status_t hsc_fx_run_write(sq_factors_t *f, sqlite3 *db, sqlite3_stmt *st,
                              const char *what, int *changes)
{
    int rc = sqlite3_step(st);

    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        return hsc_fx_fail(f, db, what, rc);
    }
    if (changes != NULL) {
        *changes = sqlite3_changes(db);
    }
    return HSC_OK;
}

hsc_status_t hsc_fx_finish(sq_factors_t *f, hsc_status_t s, const char *what)
{
    int rc;

    if (s == HSC_OK
        && (rc = sqlite3_exec(f->db, "COMMIT", NULL, NULL, NULL))
               != SQLITE_OK) {
        s = hsc_fx_fail(f, f->db, what, rc);
    }
    if (s != HSC_OK) {
        sqlite3_exec(f->db, "ROLLBACK", NULL, NULL, NULL);
    }
    return s;
}

int hsc_fx_user_exists(sq_factors_t *f, const char *user)
{
    int rc, found;
    sqlite3_stmt
        *st = hsc_fx_prepare_user(f->db,
                                  "SELECT 1 FROM hsc_users WHERE username = ?1",
                                  user, &rc);

    if (st == NULL) {
        hsc_fx_fail(f, f->db, "looking the user up", rc);
        return -1;
    }
    rc = sqlite3_step(st);
    found = rc == SQLITE_ROW;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        hsc_fx_fail(f, f->db, "looking the user up", rc);
        return -1;
    }
    return found;
}

static hsc_status_t sq_get(hsc_factors_t *fb, const char *user,
                           hsc_factor_info_t *out)
{
    sq_factors_t *f = (sq_factors_t *)fb;
    sqlite3_stmt *st;
    const void *blob;
    int rc, n;

    memset(out, 0, sizeof(*out));
    st = hsc_fx_prepare_user(
        f->db,
        "SELECT sealed, alg, digits, period, active, created "
        "FROM hsc_totp WHERE username = ?1",
        user, &rc);
    if (st == NULL) {
        return hsc_fx_fail(f, f->db, "reading the TOTP enrolment", rc);
    }
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *alg = (const char *)sqlite3_column_text(st, 1);

        blob = sqlite3_column_blob(st, 0);
        n = sqlite3_column_bytes(st, 0);
        out->params.digits = (unsigned)sqlite3_column_int(st, 2);
        out->params.period = (unsigned)sqlite3_column_int(st, 3);
        if (blob == NULL || n <= 0 || n > HSC_TOTP_SEALED_MAX || alg == NULL
            || hsc_totp_alg_parse(alg, &out->params.alg) != HSC_OK
            || !hsc_totp_params_valid(&out->params)) {
            sqlite3_finalize(st);
            memset(out, 0, sizeof(*out));
            msgf(f, "the TOTP enrolment of this user is malformed");
            return HSC_ESTORE;
        }
        memcpy(out->sealed, blob, (size_t)n);
        out->sealed_len = (size_t)n;
        out->totp = sqlite3_column_int(st, 4) ? HSC_TOTP_ACTIVE
                                              : HSC_TOTP_ENROLLING;
        out->totp_created = sqlite3_column_int64(st, 5);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        memset(out, 0, sizeof(*out));
        return hsc_fx_fail(f, f->db, "reading the TOTP enrolment", rc);
    }
    st = hsc_fx_prepare_user(
        f->db, "SELECT count(*) FROM hsc_recovery WHERE username = ?1", user,
        &rc);
    if (st == NULL || (rc = sqlite3_step(st)) != SQLITE_ROW) {
        sqlite3_finalize(st);
        memset(out, 0, sizeof(*out));
        return hsc_fx_fail(f, f->db, "counting the recovery codes", rc);
    }
    out->recovery_left = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return HSC_OK;
}

static hsc_status_t sq_totp_enrol(hsc_factors_t *fb, const char *user,
                                  const unsigned char *sealed, size_t len,
                                  const hsc_totp_params_t *p, int active,
                                  int64_t now)
{
    sq_factors_t *f = (sq_factors_t *)fb;
    sqlite3_stmt *st;
    hsc_status_t s;
    int rc, ex;

    if (sealed == NULL || len == 0 || len > HSC_TOTP_SEALED_MAX
        || !hsc_totp_params_valid(p)) {
        return HSC_EINVAL;
    }
    if ((ex = hsc_fx_user_exists(f, user)) <= 0) {
        return ex == 0 ? HSC_ENOUSER : HSC_ESTORE;
    }
    st = hsc_fx_prepare_user(
        f->db,
        "INSERT OR REPLACE INTO hsc_totp (username, sealed, alg, "
        "digits, period, active, created) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        user, &rc);
    if (st == NULL) {
        return hsc_fx_fail(f, f->db, "enrolling TOTP", rc);
    }
    sqlite3_bind_blob(st, 2, sealed, (int)len, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, hsc_totp_alg_name(p->alg), -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, (int)p->digits);
    sqlite3_bind_int(st, 5, (int)p->period);
    sqlite3_bind_int(st, 6, active ? 1 : 0);
    sqlite3_bind_int64(st, 7, now);
    s = hsc_fx_run_write(f, f->db, st, "enrolling TOTP", NULL);
    /* The last step stays: a new secret's codes of a step at or before
     * the old one's last would be refused for at most one period. */
    return s;
}

static hsc_status_t sq_totp_activate(hsc_factors_t *fb, const char *user)
{
    sq_factors_t *f = (sq_factors_t *)fb;
    int rc, changes = 0;
    hsc_status_t s;
    sqlite3_stmt *st = hsc_fx_prepare_user(
        f->db,
        "UPDATE hsc_totp SET active = 1 WHERE username = ?1 AND active = 0",
        user, &rc);

    if (st == NULL) {
        return hsc_fx_fail(f, f->db, "activating TOTP", rc);
    }
    s = hsc_fx_run_write(f, f->db, st, "activating TOTP", &changes);
    return s != HSC_OK ? s : changes == 1 ? HSC_OK : HSC_ENOUSER;
}

static hsc_status_t sq_totp_remove(hsc_factors_t *fb, const char *user)
{
    sq_factors_t *f = (sq_factors_t *)fb;
    int rc, changes = 0;
    hsc_status_t s;
    sqlite3_stmt
        *st = hsc_fx_prepare_user(f->db,
                                  "DELETE FROM hsc_totp WHERE username = ?1",
                                  user, &rc);

    if (st == NULL) {
        return hsc_fx_fail(f, f->db, "removing TOTP", rc);
    }
    s = hsc_fx_run_write(f, f->db, st, "removing TOTP", &changes);
    return s != HSC_OK ? s : changes == 1 ? HSC_OK : HSC_ENOUSER;
}

static hsc_status_t sq_totp_accept(hsc_factors_t *fb, const char *user,
                                   int64_t step_at)
{
    sq_factors_t *f = (sq_factors_t *)fb;
    int rc, changes = 0;
    hsc_status_t s;
    sqlite3_stmt *st;

    if (f->state == NULL) {
        msgf(f, "the factors were opened read-only");
        return HSC_EREADONLY;
    }
    /* One statement: a new row, or a later step than the row's; a replay
     * (or a race lost to another server) changes nothing. */
    st = hsc_fx_prepare_user(f->state,
                             "INSERT INTO hsc_totp_used (username, last_at) "
                             "VALUES (?1, ?2) ON CONFLICT (username) DO UPDATE "
                             "SET last_at = excluded.last_at "
                             "WHERE hsc_totp_used.last_at < excluded.last_at",
                             user, &rc);
    if (st == NULL) {
        return hsc_fx_fail(f, f->state, "accepting a TOTP code", rc);
    }
    sqlite3_bind_int64(st, 2, step_at);
    s = hsc_fx_run_write(f, f->state, st, "accepting a TOTP code", &changes);
    return s != HSC_OK ? s : changes == 1 ? HSC_OK : HSC_EAUTH;
}

static hsc_status_t
sq_recovery_set(hsc_factors_t *fb, const char *user,
                const unsigned char (*hashes)[HSC_RECOVERY_HASH_LEN], size_t n,
                int64_t now)
{
    sq_factors_t *f = (sq_factors_t *)fb;
    sqlite3_stmt *st;
    hsc_status_t s;
    size_t i;
    int rc, ex;

    rc = sqlite3_exec(f->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        return hsc_fx_fail(f, f->db, "replacing the recovery codes", rc);
    }
    if ((ex = hsc_fx_user_exists(f, user)) <= 0) {
        sqlite3_exec(f->db, "ROLLBACK", NULL, NULL, NULL);
        return ex == 0 ? HSC_ENOUSER : HSC_ESTORE;
    }
    st = hsc_fx_prepare_user(f->db,
                             "DELETE FROM hsc_recovery WHERE username = ?1",
                             user, &rc);
    s = st ? hsc_fx_run_write(f, f->db, st, "replacing the recovery codes",
                              NULL)
           : hsc_fx_fail(f, f->db, "replacing the recovery codes", rc);
    for (i = 0; s == HSC_OK && i < n; i++) {
        st = hsc_fx_prepare_user(
            f->db,
            "INSERT INTO hsc_recovery (code_hash, username, "
            "created) VALUES (?2, ?1, ?3)",
            user, &rc);
        if (st == NULL) {
            s = hsc_fx_fail(f, f->db, "replacing the recovery codes", rc);
            break;
        }
        sqlite3_bind_blob(st, 2, hashes[i], HSC_RECOVERY_HASH_LEN,
                          SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, now);
        s = hsc_fx_run_write(f, f->db, st, "replacing the recovery codes",
                             NULL);
    }
    return hsc_fx_finish(f, s, "replacing the recovery codes");
}

static hsc_status_t
sq_recovery_use(hsc_factors_t *fb, const char *user,
                const unsigned char hash[HSC_RECOVERY_HASH_LEN])
{
    sq_factors_t *f = (sq_factors_t *)fb;
    int rc, changes = 0;
    hsc_status_t s;
    sqlite3_stmt *st = hsc_fx_prepare_user(f->db,
                                           "DELETE FROM hsc_recovery WHERE "
                                           "code_hash = ?2 AND username = ?1",
                                           user, &rc);

    if (st == NULL) {
        return hsc_fx_fail(f, f->db, "using a recovery code", rc);
    }
    sqlite3_bind_blob(st, 2, hash, HSC_RECOVERY_HASH_LEN, SQLITE_STATIC);
    s = hsc_fx_run_write(f, f->db, st, "using a recovery code", &changes);
    return s != HSC_OK ? s : changes == 1 ? HSC_OK : HSC_EAUTH;
}

/* One enrolment read for a reseal. */
typedef struct {
    char user[HSC_USER_MAX + 1];
    unsigned char sealed[HSC_TOTP_SEALED_MAX];
    size_t len;
} reseal_row_t;

/* Every enrolment into *rows (malloc'd; *n of them), read before any is
 * rewritten: SQLite does not promise what a scan sees of rows changed
 * under it. */
static hsc_status_t read_enrolments(sq_factors_t *f, reseal_row_t **rows,
                                    size_t *n)
{
    sqlite3_stmt *sel = NULL;
    size_t cap = 0;
    int rc;

    *rows = NULL;
    *n = 0;
    rc = sqlite3_prepare_v2(f->db, "SELECT username, sealed FROM hsc_totp", -1,
                            &sel, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(sel)) == SQLITE_ROW) {
        const void *user = sqlite3_column_text(sel, 0);
        const void *blob = sqlite3_column_blob(sel, 1);
        int ulen = sqlite3_column_bytes(sel, 0);
        int len = sqlite3_column_bytes(sel, 1);
        reseal_row_t *row;

        if (user == NULL || blob == NULL || ulen <= 0 || ulen > HSC_USER_MAX
            || len <= 0 || len > HSC_TOTP_SEALED_MAX) {
            sqlite3_finalize(sel);
            msgf(f, "a TOTP enrolment is malformed");
            return HSC_ESTORE;
        }
        if (*n == cap) {
            reseal_row_t *more;
            cap = cap ? 2 * cap : 16;
            if ((more = realloc(*rows, cap * sizeof(**rows))) == NULL) {
                sqlite3_finalize(sel);
                return HSC_ENOMEM;
            }
            *rows = more;
        }
        row = &(*rows)[(*n)++];
        memcpy(row->user, user, (size_t)ulen);
        row->user[ulen] = '\0';
        memcpy(row->sealed, blob, (size_t)len);
        row->len = (size_t)len;
        rc = SQLITE_OK;
    }
    sqlite3_finalize(sel);
    return rc == SQLITE_DONE ? HSC_OK : hsc_fx_fail(f, f->db, "resealing", rc);
}

static hsc_status_t sq_totp_reseal(hsc_factors_t *fb, hsc_factors_reseal_fn *fn,
                                   void *baton, int *resealed, int *unopened)
{
    sq_factors_t *f = (sq_factors_t *)fb;
    sqlite3_stmt *upd = NULL;
    unsigned char out[HSC_TOTP_SEALED_MAX];
    reseal_row_t *rows = NULL;
    hsc_status_t st;
    size_t i, n = 0, outlen;
    int rc;

    *resealed = *unopened = 0;
    rc = sqlite3_exec(f->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        return hsc_fx_fail(f, f->db, "resealing", rc);
    }
    st = read_enrolments(f, &rows, &n);
    if (st == HSC_OK
        && (rc = sqlite3_prepare_v2(f->db,
                                    "UPDATE hsc_totp SET sealed = ?2 "
                                    "WHERE username = ?1",
                                    -1, &upd, NULL))
               != SQLITE_OK) {
        st = hsc_fx_fail(f, f->db, "resealing", rc);
    }
    for (i = 0; st == HSC_OK && i < n; i++) {
        st = fn(baton, rows[i].user, rows[i].sealed, rows[i].len, out,
                sizeof(out), &outlen);
        if (st == HSC_EAUTH) {
            ++*unopened;
            st = HSC_OK;
            continue;
        }
        if (st != HSC_OK) {
            msgf(f, "cannot reseal the secret of %s: %s", rows[i].user,
                 hsc_strerror(st));
            break;
        }
        sqlite3_reset(upd);
        sqlite3_bind_text(upd, 1, rows[i].user, -1, SQLITE_STATIC);
        sqlite3_bind_blob(upd, 2, out, (int)outlen, SQLITE_STATIC);
        if ((rc = sqlite3_step(upd)) != SQLITE_DONE) {
            st = hsc_fx_fail(f, f->db, "resealing", rc);
            break;
        }
        ++*resealed;
    }
    sqlite3_finalize(upd);
    hsc_wipe(out, sizeof(out));
    if (rows != NULL) {
        hsc_wipe(rows, n * sizeof(*rows));
        free(rows);
    }
    if (st == HSC_OK
        && (rc = sqlite3_exec(f->db, "COMMIT", NULL, NULL, NULL))
               != SQLITE_OK) {
        st = hsc_fx_fail(f, f->db, "resealing", rc);
    }
    if (st != HSC_OK) {
        sqlite3_exec(f->db, "ROLLBACK", NULL, NULL, NULL);
        *resealed = 0;
    }
    return st;
}

static const hsc_factors_vtable_t sq_vtable = {
    .get = sq_get,
    .totp_enrol = sq_totp_enrol,
    .totp_activate = sq_totp_activate,
    .totp_remove = sq_totp_remove,
    .totp_accept = sq_totp_accept,
    .recovery_set = sq_recovery_set,
    .recovery_use = sq_recovery_use,
    .totp_reseal = sq_totp_reseal,
    .link_put = hsc_fx_link_put,
    .link_peek = hsc_fx_link_peek,
    .link_take = hsc_fx_link_take,
    .link_password = hsc_fx_link_password,
    .link_list = hsc_fx_link_list,
    .link_revoke = hsc_fx_link_revoke,
    .close = sq_close,
    .passkey_add = hsc_fx_passkey_add,
    .passkey_add_link = hsc_fx_passkey_add_link,
    .passkey_list = hsc_fx_passkey_list,
    .passkey_get = hsc_fx_passkey_get,
    .passkey_accept = hsc_fx_passkey_accept,
    .passkey_rename = hsc_fx_passkey_rename,
    .passkey_remove = hsc_fx_passkey_remove,
    .passkey_handle = hsc_fx_passkey_handle,
    .passkey_seals = hsc_fx_passkey_seals,
    .passkey_require_seal = hsc_fx_passkey_require_seal,
};
