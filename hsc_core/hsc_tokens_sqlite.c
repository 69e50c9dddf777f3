/*
 * hsc_tokens_sqlite.c: app passwords in an SQLite user file (the table
 * hsc_tokens of schema version 5; hsc_tokens.h), on the user store's own
 * connection (hsc_sq_conn). The lookup by id is the request path: its
 * statement is kept prepared per connection, and it reads one row of a
 * WITHOUT ROWID table by its primary key.
 */
#include <string.h>

#include <sqlite3.h>

#include "hsc_store_backend.h"
#include "hsc_store_sqlite.h"

#define TOKEN_COLUMNS                                                          \
    "id, username, name, scopes, secret_hash, created, expires, revoked"

/* The connection, if its file has the token table. */
static sqlite3 *conn(hsc_store_t *s, int write)
{
    int version = 0;
    sqlite3 *db = hsc_sq_conn(s, write, &version);

    if (db != NULL && version < HSC_TOKENS_VERSION) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "schema version %d has no app passwords: run "
                       "\"hsc-admin init\" to upgrade the file",
                       version);
        return NULL;
    }
    return db;
}

static void text_col(sqlite3_stmt *st, int col, char *out, size_t cap)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    size_t n = (size_t)sqlite3_column_bytes(st, col);

    if (t == NULL || n >= cap) {
        n = 0; /* the schema's CHECKs bound every column below cap */
    }
    memcpy(out, t ? (const char *)t : "", n);
    out[n] = '\0';
}

/* The current row (TOKEN_COLUMNS) into *t. */
static hsc_status_t row_to_token(hsc_store_t *s, sqlite3_stmt *st,
                                 hsc_token_t *t)
{
    memset(t, 0, sizeof(*t));
    if (sqlite3_column_bytes(st, 4) != HSC_TOKEN_HASH_LEN
        || sqlite3_column_bytes(st, 0) != HSC_TOKEN_ID_LEN
        || sqlite3_column_bytes(st, 1) > HSC_USER_MAX) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "token record is malformed");
        return HSC_ESTORE;
    }
    text_col(st, 0, t->id, sizeof(t->id));
    text_col(st, 1, t->user, sizeof(t->user));
    text_col(st, 2, t->name, sizeof(t->name));
    text_col(st, 3, t->scopes, sizeof(t->scopes));
    memcpy(t->hash, sqlite3_column_blob(st, 4), HSC_TOKEN_HASH_LEN);
    t->created = sqlite3_column_int64(st, 5);
    t->expires = sqlite3_column_int64(st, 6);
    t->revoked = sqlite3_column_int64(st, 7);
    return HSC_OK;
}

hsc_status_t hsc_sq_token_get(hsc_store_t *s, const char *id, hsc_token_t *out)
{
    sqlite3_stmt *st;
    hsc_status_t status;
    int rc;

    if (conn(s, 0) == NULL
        || (st = hsc_sq_kept(s, HSC_SQ_TOKEN_GET,
                             "SELECT " TOKEN_COLUMNS
                             " FROM hsc_tokens WHERE id = ?1"))
               == NULL) {
        return HSC_ESTORE;
    }
    rc = sqlite3_bind_text(st, 1, id, HSC_TOKEN_ID_LEN, SQLITE_STATIC);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
    }
    if (rc == SQLITE_ROW) {
        status = row_to_token(s, st, out);
    }
    else if (rc == SQLITE_DONE) {
        status = HSC_ENOUSER;
    }
    else {
        status = hsc_sq_fail(s, "token", rc) == HSC_ENOMEM ? HSC_ENOMEM
                                                           : HSC_ESTORE;
    }
    sqlite3_reset(st); /* ends the read transaction */
    sqlite3_clear_bindings(st);
    return status;
}

/* Run a write st (finalized here) with the writers' wait. */
static hsc_status_t write_step(hsc_store_t *s, sqlite3_stmt *st,
                               const char *what)
{
    int rc;

    hsc_sq_write_wait(s, 1);
    rc = sqlite3_step(st);
    hsc_sq_write_wait(s, 0);
    sqlite3_finalize(st);
    if (rc == SQLITE_CONSTRAINT_PRIMARYKEY || rc == SQLITE_CONSTRAINT_UNIQUE) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "%s: a live token of this user has that name", what);
        return HSC_EEXISTS;
    }
    return rc == SQLITE_DONE ? HSC_OK : hsc_sq_fail(s, what, rc);
}

/*
 * Insert t for its owner, who must exist; with auth (SHA-256 of the
 * cookie's x_n), only while it is the owner's authenticator and the owner
 * is enabled: the proof is the statement's own WHERE, so a password
 * changed meanwhile leaves the token unmade (HSC_EAUTH).
 */
static hsc_status_t insert(hsc_store_t *s, const hsc_token_t *t, int64_t now,
                           const unsigned char *auth)
{
    sqlite3 *db = conn(s, 1);
    sqlite3_stmt *st = NULL;
    hsc_status_t status;
    int rc;

    if (db == NULL) {
        return HSC_ESTORE;
    }
    rc = sqlite3_prepare_v2(db,
                            "INSERT INTO hsc_tokens (" TOKEN_COLUMNS
                            ") SELECT ?1, username, ?2, ?3, ?4, ?5, ?6, 0 "
                            "FROM hsc_users WHERE username = ?7 AND (?8 IS "
                            "NULL OR (authenticator = ?8 AND disabled = 0))",
                            -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_text(st, 1, t->id, -1, SQLITE_STATIC);
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_text(st, 2, t->name, -1, SQLITE_STATIC);
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_text(st, 3, t->scopes, -1, SQLITE_STATIC);
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_blob(st, 4, t->hash, HSC_TOKEN_HASH_LEN,
                               SQLITE_STATIC);
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_int64(st, 5, now);
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_int64(st, 6, t->expires);
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_text(st, 7, t->user, -1, SQLITE_STATIC);
    }
    if (rc == SQLITE_OK && auth != NULL) {
        rc = sqlite3_bind_blob(st, 8, auth, HSC_AUTH_LEN, SQLITE_STATIC);
    }
    if (rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return hsc_sq_fail(s, "token add", rc);
    }
    status = write_step(s, st, "token add");
    if (status == HSC_OK && sqlite3_changes(db) == 0) {
        if (auth != NULL) {
            hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                           "token add: no enabled user of that name whose "
                           "password has this x_n");
            return HSC_EAUTH;
        }
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg), "token add: no such user");
        status = HSC_ENOUSER;
    }
    return status;
}

hsc_status_t hsc_sq_token_add(hsc_store_t *s, const hsc_token_t *t, int64_t now)
{
    return insert(s, t, now, NULL);
}

hsc_status_t hsc_sq_token_add_own(hsc_store_t *s, const hsc_token_t *t,
                                  int64_t now, const unsigned char *xn)
{
    unsigned char auth[HSC_AUTH_LEN];
    hsc_status_t status = hsc_authenticator(xn, auth);

    if (status == HSC_OK) {
        status = insert(s, t, now, auth);
    }
    hsc_wipe(auth, sizeof(auth));
    return status;
}

hsc_status_t hsc_sq_token_list(hsc_store_t *s, const char *user,
                               hsc_tokens_each_fn *fn, void *baton)
{
    sqlite3 *db = conn(s, 0);
    sqlite3_stmt *st = NULL;
    hsc_token_t t;
    hsc_status_t status = HSC_OK;
    int rc;

    if (db == NULL) {
        return HSC_ESTORE;
    }
    rc = sqlite3_prepare_v2(db,
                            "SELECT " TOKEN_COLUMNS " FROM hsc_tokens "
                            "WHERE ?1 IS NULL OR username = ?1 "
                            "ORDER BY username, created, id",
                            -1, &st, NULL);
    if (rc == SQLITE_OK && user != NULL) {
        rc = sqlite3_bind_text(st, 1, user, -1, SQLITE_STATIC);
    }
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
            break;
        }
        if ((status = row_to_token(s, st, &t)) != HSC_OK) {
            rc = SQLITE_DONE;
            break;
        }
        memset(t.hash, 0, sizeof(t.hash)); /* a list never carries it */
        if (fn(baton, &t)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (status == HSC_OK && rc != SQLITE_DONE) {
        status = hsc_sq_fail(s, "token list", rc);
    }
    sqlite3_finalize(st);
    hsc_wipe(&t, sizeof(t));
    return status;
}

hsc_status_t hsc_sq_token_revoke(hsc_store_t *s, const char *user,
                                 const char *id, int64_t now, int *count)
{
    sqlite3 *db = conn(s, 1);
    sqlite3_stmt *st = NULL;
    hsc_status_t status;
    int rc;

    if (db == NULL) {
        return HSC_ESTORE;
    }
    rc = sqlite3_prepare_v2(db,
                            "UPDATE hsc_tokens SET revoked = max(?1, 1) "
                            "WHERE username = ?2 AND revoked = 0 "
                            "AND (?3 IS NULL OR id = ?3)",
                            -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_int64(st, 1, now);
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_text(st, 2, user, -1, SQLITE_STATIC);
    }
    if (rc == SQLITE_OK && id != NULL) {
        rc = sqlite3_bind_text(st, 3, id, -1, SQLITE_STATIC);
    }
    if (rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return hsc_sq_fail(s, "token revoke", rc);
    }
    status = write_step(s, st, "token revoke");
    if (status == HSC_OK) {
        *count = sqlite3_changes(db);
        if (id != NULL && *count == 0) {
            hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                           "token revoke: no live token %s of this user", id);
            status = HSC_ENOUSER;
        }
    }
    return status;
}
