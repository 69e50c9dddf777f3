/*
 * hsc_links_sqlite.c: one-time links in an SQLite user database
 * (hsc_factors.h, the links' part; the table hsc_links of schema 4).
 * Using a link is one DELETE of its row that must change exactly one
 * row, so that of two servers (or two clicks) only one succeeds.
 */
#include <string.h>

#include "hsc_factors.h"
#include "hsc_factors_sqlite.h"
#include "hsc_store.h"

hsc_status_t hsc_fx_link_put(hsc_factors_t *fb, const char *user,
                             hsc_link_purpose_t purpose,
                             const unsigned char hash[HSC_LINK_HASH_LEN],
                             int64_t expires, int64_t now)
{
    sq_factors_t *f = (sq_factors_t *)fb;
    const char *what = "storing a link";
    sqlite3_stmt *st;
    hsc_status_t s;
    int rc, ex;

    rc = sqlite3_exec(f->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        return hsc_fx_fail(f, f->db, what, rc);
    }
    if ((ex = hsc_fx_user_exists(f, user)) <= 0) {
        sqlite3_exec(f->db, "ROLLBACK", NULL, NULL, NULL);
        return ex == 0 ? HSC_ENOUSER : HSC_ESTORE;
    }
    /* A new link replaces the user's earlier one of the same purpose. */
    st = hsc_fx_prepare_user(f->db,
                             "INSERT OR REPLACE INTO hsc_links (token_hash, "
                             "username, purpose, expires, created) "
                             "VALUES (?2, ?1, ?3, ?4, ?5)",
                             user, &rc);
    if (st == NULL) {
        s = hsc_fx_fail(f, f->db, what, rc);
    }
    else {
        sqlite3_bind_blob(st, 2, hash, HSC_LINK_HASH_LEN, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, hsc_link_purpose_name(purpose), -1,
                          SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, expires);
        sqlite3_bind_int64(st, 5, now);
        s = hsc_fx_run_write(f, f->db, st, what, NULL);
    }
    return hsc_fx_finish(f, s, what);
}

/* Copy a username column into user (HSC_USER_MAX + 1 bytes). */
static int copy_user(sqlite3_stmt *st, int col, char *user)
{
    const unsigned char *u = sqlite3_column_text(st, col);
    int n = sqlite3_column_bytes(st, col);

    if (u == NULL || n <= 0 || n > HSC_USER_MAX) {
        return 0;
    }
    memcpy(user, u, (size_t)n);
    user[n] = '\0';
    return 1;
}

hsc_status_t hsc_fx_link_peek(hsc_factors_t *fb,
                              const unsigned char hash[HSC_LINK_HASH_LEN],
                              int64_t now, hsc_link_purpose_t *purpose,
                              char *user)
{
    sq_factors_t *f = (sq_factors_t *)fb;
    sqlite3_stmt *st = NULL;
    hsc_status_t s = HSC_EAUTH;
    int rc;

    user[0] = '\0';
    rc = sqlite3_prepare_v2(f->db,
                            "SELECT username, purpose FROM hsc_links "
                            "WHERE token_hash = ?1 AND expires > ?2",
                            -1, &st, NULL);
    if (rc != SQLITE_OK) {
        return hsc_fx_fail(f, f->db, "reading a link", rc);
    }
    sqlite3_bind_blob(st, 1, hash, HSC_LINK_HASH_LEN, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, now);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        if (copy_user(st, 0, user)
            && hsc_link_purpose_parse((const char *)sqlite3_column_text(st, 1),
                                      purpose)
                   == HSC_OK) {
            s = HSC_OK;
        }
    }
    else if (rc != SQLITE_DONE) {
        s = hsc_fx_fail(f, f->db, "reading a link", rc);
    }
    sqlite3_finalize(st);
    return s;
}

hsc_status_t hsc_fx_link_take_in(hsc_factors_t *fb,
                                 const unsigned char hash[HSC_LINK_HASH_LEN],
                                 hsc_link_purpose_t purpose, int64_t now,
                                 char *user, const char *what)
{
    sq_factors_t *f = (sq_factors_t *)fb;
    hsc_link_purpose_t found;
    sqlite3_stmt *st = NULL;
    hsc_status_t s;
    int rc, changes = 0;

    s = hsc_fx_link_peek(fb, hash, now, &found, user);
    if (s == HSC_OK && found != purpose) {
        s = HSC_EAUTH;
    }
    if (s != HSC_OK) {
        return s;
    }
    rc = sqlite3_prepare_v2(f->db,
                            "DELETE FROM hsc_links WHERE token_hash = ?1", -1,
                            &st, NULL);
    if (rc != SQLITE_OK) {
        return hsc_fx_fail(f, f->db, what, rc);
    }
    sqlite3_bind_blob(st, 1, hash, HSC_LINK_HASH_LEN, SQLITE_STATIC);
    s = hsc_fx_run_write(f, f->db, st, what, &changes);
    return s == HSC_OK && changes != 1 ? HSC_EAUTH : s;
}

hsc_status_t hsc_fx_link_take(hsc_factors_t *fb,
                              const unsigned char hash[HSC_LINK_HASH_LEN],
                              hsc_link_purpose_t purpose, int64_t now,
                              char *user)
{
    sq_factors_t *f = (sq_factors_t *)fb;
    const char *what = "using a link";
    hsc_status_t s;
    int rc;

    /* Read and delete in one write transaction: no other writer between. */
    rc = sqlite3_exec(f->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        return hsc_fx_fail(f, f->db, what, rc);
    }
    s = hsc_fx_finish(f,
                      hsc_fx_link_take_in(fb, hash, purpose, now, user, what),
                      what);
    if (s != HSC_OK) {
        user[0] = '\0';
    }
    return s;
}

hsc_status_t hsc_fx_link_password(hsc_factors_t *fb,
                                  const unsigned char hash[HSC_LINK_HASH_LEN],
                                  hsc_link_purpose_t purpose, int64_t now,
                                  const hsc_user_t *nu, char *user)
{
    sq_factors_t *f = (sq_factors_t *)fb;
    const char *what = "setting a password by a link";
    char spec[HSC_KDF_SPEC_MAX];
    sqlite3_stmt *st;
    hsc_status_t s;
    int rc, changes = 0;

    rc = sqlite3_exec(f->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        return hsc_fx_fail(f, f->db, what, rc);
    }
    s = hsc_fx_link_take_in(fb, hash, purpose, now, user, what);
    if (s == HSC_OK) {
        /* The link's user, whatever nu names: the link decides whose. */
        st = hsc_fx_prepare_user(f->db,
                                 "UPDATE hsc_users SET salt = ?2, kdf = ?3, "
                                 "authenticator = ?4, gen = gen + 1, "
                                 "updated = ?5 WHERE username = ?1",
                                 user, &rc);
        if (st == NULL) {
            s = hsc_fx_fail(f, f->db, what, rc);
        }
        else {
            hsc_kdf_format(&nu->kdf, spec, sizeof(spec));
            sqlite3_bind_blob(st, 2, nu->salt, HSC_SALT_LEN, SQLITE_STATIC);
            sqlite3_bind_text(st, 3, spec, -1, SQLITE_STATIC);
            sqlite3_bind_blob(st, 4, nu->authenticator, HSC_AUTH_LEN,
                              SQLITE_STATIC);
            sqlite3_bind_int64(st, 5, now);
            s = hsc_fx_run_write(f, f->db, st, what, &changes);
            s = s == HSC_OK && changes != 1 ? HSC_EAUTH : s;
        }
    }
    if (s == HSC_OK) {
        /* The user's other links (an invite beside a reset) end with the
         * new password, as with every password change. */
        st = hsc_fx_prepare_user(f->db,
                                 "DELETE FROM hsc_links WHERE username = ?1",
                                 user, &rc);
        s = st == NULL ? hsc_fx_fail(f, f->db, what, rc)
                       : hsc_fx_run_write(f, f->db, st, what, &changes);
    }
    s = hsc_fx_finish(f, s, what);
    if (s != HSC_OK) {
        user[0] = '\0';
    }
    return s;
}

hsc_status_t hsc_fx_link_list(hsc_factors_t *fb, hsc_factors_link_fn *fn,
                              void *baton)
{
    sq_factors_t *f = (sq_factors_t *)fb;
    char user[HSC_USER_MAX + 1];
    hsc_link_purpose_t p;
    sqlite3_stmt *st = NULL;
    int rc;

    rc = sqlite3_prepare_v2(f->db,
                            "SELECT username, purpose, expires, created "
                            "FROM hsc_links ORDER BY username, purpose",
                            -1, &st, NULL);
    if (rc != SQLITE_OK) {
        return hsc_fx_fail(f, f->db, "listing the links", rc);
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (copy_user(st, 0, user)
            && hsc_link_purpose_parse((const char *)sqlite3_column_text(st, 1),
                                      &p)
                   == HSC_OK
            && fn(baton, user, p, sqlite3_column_int64(st, 2),
                  sqlite3_column_int64(st, 3))
                   != 0) {
            break;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        return hsc_fx_fail(f, f->db, "listing the links", rc);
    }
    return HSC_OK;
}

hsc_status_t hsc_fx_link_revoke(hsc_factors_t *fb, const char *user, int all,
                                hsc_link_purpose_t purpose, int *count)
{
    sq_factors_t *f = (sq_factors_t *)fb;
    sqlite3_stmt *st;
    int rc;

    *count = 0;
    st = hsc_fx_prepare_user(
        f->db,
        all ? "DELETE FROM hsc_links WHERE username = ?1"
            : "DELETE FROM hsc_links WHERE username = ?1 AND purpose = ?2",
        user, &rc);
    if (st == NULL) {
        return hsc_fx_fail(f, f->db, "deleting links", rc);
    }
    if (!all) {
        sqlite3_bind_text(st, 2, hsc_link_purpose_name(purpose), -1,
                          SQLITE_STATIC);
    }
    return hsc_fx_run_write(f, f->db, st, "deleting links", count);
}
