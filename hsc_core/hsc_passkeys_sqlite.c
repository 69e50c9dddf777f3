/*
 * hsc_passkeys_sqlite.c: passkeys in an SQLite user database (schema
 * version 6: hsc_passkeys, hsc_passkey_users and hsc_users.passkey_seals;
 * hsc_passkeys.h), on the factor handle's two connections. The user file
 * holds the credentials; the state file holds hsc_passkey_used (cred_id,
 * last_challenge, sign_count), the one-time rule's frequent write, so
 * that a login never commits to the user file. The sign count of
 * hsc_passkeys is the registration's; a row of hsc_passkey_used, once
 * there, is the current one.
 *
 * Every add and remove rewrites the user's hsc_users.passkey_seals in
 * its transaction (seals_rewrite), from the credentials then present,
 * keeping the seal switch's block of zeros at its end (hsc_store.h,
 * hsc_user_seal_required) while any sealed credential is left.
 */
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "hsc_factors_sqlite.h"
#include "hsc_passkeys.h"

#define PK_COLUMNS                                                             \
    "p.cred_id, p.username, h.handle, p.alg, p.spki, p.sign_count, p.be, "     \
    "p.bs, p.uv, p.transports, p.prf, p.seal_hash, p.name, p.created"

/* The user file, if its schema has passkeys; else NULL with errmsg. */
static sq_factors_t *with_passkeys(hsc_factors_t *fb)
{
    sq_factors_t *f = (sq_factors_t *)fb;

    if (f->version < HSC_PASSKEYS_SQLITE_VERSION) {
        hsc_factors_msgf(fb,
                         "schema version %d has no passkeys: run \"hsc-admin "
                         "init\" to upgrade the file",
                         f->version);
        return NULL;
    }
    return f;
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

/* The current row (PK_COLUMNS; handle, spki and seal_hash may be NULL
 * in a list) into *pk. */
static int row_to_pk(sqlite3_stmt *st, hsc_passkey_t *pk)
{
    int idn = sqlite3_column_bytes(st, 0), kn = sqlite3_column_bytes(st, 4);
    int hn = sqlite3_column_bytes(st, 2), sn = sqlite3_column_bytes(st, 11);

    memset(pk, 0, sizeof(*pk));
    if (idn <= 0 || idn > HSC_PASSKEY_ID_MAX || kn > HSC_PASSKEY_SPKI_MAX
        || (hn != 0 && hn != HSC_PASSKEY_HANDLE_LEN)
        || (sn != 0 && sn != HSC_PASSKEY_SEAL_LEN)
        || sqlite3_column_bytes(st, 1) > HSC_USER_MAX) {
        return 0;
    }
    memcpy(pk->id, sqlite3_column_blob(st, 0), (size_t)idn);
    pk->id_len = (size_t)idn;
    text_col(st, 1, pk->user, sizeof(pk->user));
    if (hn) {
        memcpy(pk->handle, sqlite3_column_blob(st, 2), (size_t)hn);
    }
    pk->alg = sqlite3_column_int(st, 3);
    if (kn > 0) {
        memcpy(pk->spki, sqlite3_column_blob(st, 4), (size_t)kn);
        pk->spki_len = (size_t)kn;
    }
    pk->sign_count = sqlite3_column_int64(st, 5);
    pk->be = sqlite3_column_int(st, 6);
    pk->bs = sqlite3_column_int(st, 7);
    pk->uv = sqlite3_column_int(st, 8);
    text_col(st, 9, pk->transports, sizeof(pk->transports));
    pk->prf = sqlite3_column_int(st, 10);
    pk->sealed = sqlite3_column_type(st, 11) != SQLITE_NULL;
    if (sn) {
        memcpy(pk->seal_hash, sqlite3_column_blob(st, 11), (size_t)sn);
    }
    text_col(st, 12, pk->name, sizeof(pk->name));
    pk->created = sqlite3_column_int64(st, 13);
    return 1;
}

/* 1 when user's seal column ends with the seal switch's block (read
 * inside the caller's transaction); 0 when not; -1 on a failure. */
static int switch_on(sq_factors_t *f, const char *user)
{
    unsigned char buf[HSC_PASSKEY_SEALS_MAX * HSC_PASSKEY_SEAL_LEN];
    sqlite3_stmt *st;
    hsc_user_t u;
    int rc, n, on = -1;

    st = hsc_fx_prepare_user(f->db,
                             "SELECT passkey_seals FROM hsc_users "
                             "WHERE username = ?1",
                             user, &rc);
    if (st == NULL) {
        return -1;
    }
    rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        on = 0;
    }
    else if (rc == SQLITE_ROW) {
        n = sqlite3_column_bytes(st, 0);
        if (n >= 0 && (size_t)n <= sizeof(buf)) {
            memset(&u, 0, sizeof(u));
            if (n > 0) {
                memcpy(buf, sqlite3_column_blob(st, 0), (size_t)n);
            }
            u.seals = buf;
            u.seals_len = (size_t)n;
            on = hsc_user_seal_required(&u);
        }
    }
    sqlite3_finalize(st);
    return on;
}

/* Rewrite user's hsc_users.passkey_seals from the credentials present:
 * inside the caller's transaction. */
static hsc_status_t seals_rewrite(sq_factors_t *f, const char *user)
{
    unsigned char buf[HSC_PASSKEY_SEALS_MAX * HSC_PASSKEY_SEAL_LEN];
    size_t n = 0;
    sqlite3_stmt *st;
    int rc, on = switch_on(f, user);

    if (on < 0) {
        return hsc_fx_fail(f, f->db, "passkey seals", SQLITE_ERROR);
    }
    st = hsc_fx_prepare_user(f->db,
                             "SELECT seal_hash FROM hsc_passkeys "
                             "WHERE username = ?1 AND seal_hash IS NOT NULL "
                             "ORDER BY created, cred_id",
                             user, &rc);
    if (st == NULL) {
        return hsc_fx_fail(f, f->db, "passkey seals", rc);
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_bytes(st, 0) != HSC_PASSKEY_SEAL_LEN
            || n + HSC_PASSKEY_SEAL_LEN > sizeof(buf)) {
            sqlite3_finalize(st);
            hsc_factors_msgf(&f->base,
                             "passkey seals: more than %d sealed passkeys "
                             "or a malformed seal hash",
                             HSC_PASSKEY_SEALS_MAX);
            return HSC_EINVAL;
        }
        memcpy(buf + n, sqlite3_column_blob(st, 0), HSC_PASSKEY_SEAL_LEN);
        n += HSC_PASSKEY_SEAL_LEN;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        return hsc_fx_fail(f, f->db, "passkey seals", rc);
    }
    /* The switch stays on while a sealed credential is left (none left:
     * NULL, so the last one's removal turns it off). */
    if (on && n > 0) {
        if (n + HSC_PASSKEY_SEAL_LEN > sizeof(buf)) {
            hsc_factors_msgf(&f->base,
                             "passkey seals: the seal switch is on, so at "
                             "most %d sealed passkeys",
                             HSC_PASSKEY_SEALS_MAX - 1);
            return HSC_EINVAL;
        }
        memset(buf + n, 0, HSC_PASSKEY_SEAL_LEN);
        n += HSC_PASSKEY_SEAL_LEN;
    }
    st = hsc_fx_prepare_user(f->db,
                             "UPDATE hsc_users SET passkey_seals = ?2 "
                             "WHERE username = ?1 "
                             "AND passkey_seals IS NOT ?2",
                             user, &rc);
    if (st == NULL) {
        return hsc_fx_fail(f, f->db, "passkey seals", rc);
    }
    rc = n > 0 ? sqlite3_bind_blob(st, 2, buf, (int)n, SQLITE_TRANSIENT)
               : sqlite3_bind_null(st, 2);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return hsc_fx_fail(f, f->db, "passkey seals", rc);
    }
    return hsc_fx_run_write(f, f->db, st, "passkey seals", NULL);
}

/* Inside the add's transaction, once the proof made pk->user's handle
 * row: the seal switch's rule, the credential, the seal column. */
static hsc_status_t insert_passkey(sq_factors_t *f, const hsc_passkey_t *pk,
                                   int64_t now)
{
    hsc_factors_t *fb = (hsc_factors_t *)f;
    sqlite3_stmt *st = NULL;
    hsc_status_t s;
    int rc, changes = 0;

    if (!pk->sealed && switch_on(f, pk->user) != 0) {
        hsc_factors_msgf(fb, "passkey add: every passkey of this user must "
                             "be sealed (the seal switch is on)");
        return HSC_EINVAL;
    }
    rc = sqlite3_prepare_v2(
        f->db,
        "INSERT INTO hsc_passkeys (cred_id, username, alg, spki, sign_count, "
        "be, bs, uv, transports, prf, seal_hash, name, created) VALUES "
        "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) "
        "ON CONFLICT (cred_id) DO NOTHING",
        -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_blob(st, 1, pk->id, (int)pk->id_len, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, pk->user, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, pk->alg);
        sqlite3_bind_blob(st, 4, pk->spki, (int)pk->spki_len, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, pk->sign_count);
        sqlite3_bind_int(st, 6, pk->be != 0);
        sqlite3_bind_int(st, 7, pk->bs != 0);
        sqlite3_bind_int(st, 8, pk->uv != 0);
        sqlite3_bind_text(st, 9, pk->transports, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 10, pk->prf != 0);
        if (pk->sealed) {
            sqlite3_bind_blob(st, 11, pk->seal_hash, HSC_PASSKEY_SEAL_LEN,
                              SQLITE_STATIC);
        }
        sqlite3_bind_text(st, 12, pk->name, -1, SQLITE_STATIC);
        rc = sqlite3_bind_int64(st, 13, now);
    }
    if (rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return hsc_fx_fail(f, f->db, "passkey add", rc);
    }
    s = hsc_fx_run_write(f, f->db, st, "passkey add", &changes);
    if (s == HSC_OK && changes == 0) {
        hsc_factors_msgf(fb, "passkey add: that credential id is registered "
                             "already");
        s = HSC_EEXISTS;
    }
    if (s == HSC_OK && pk->sealed) {
        s = seals_rewrite(f, pk->user);
    }
    return s;
}

/* Inside the add's transaction: the handle row of pk->user by sql (?1
 * the user, ?2 the proof when proof is not NULL, ?3 the handle), which
 * must change a row: HSC_EAUTH (with refused as the message) if not. */
static hsc_status_t handle_row(sq_factors_t *f, const hsc_passkey_t *pk,
                               const char *sql, const unsigned char *proof,
                               const unsigned char *handle, const char *refused)
{
    sqlite3_stmt *st;
    hsc_status_t s;
    int rc = SQLITE_OK, changes = 0;

    st = hsc_fx_prepare_user(f->db, sql, pk->user, &rc);
    if (st != NULL && proof != NULL) {
        rc = sqlite3_bind_blob(st, 2, proof, HSC_AUTH_LEN, SQLITE_STATIC);
    }
    if (st != NULL && rc == SQLITE_OK) {
        rc = sqlite3_bind_blob(st, 3, handle, HSC_PASSKEY_HANDLE_LEN,
                               SQLITE_STATIC);
    }
    if (st == NULL || rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return hsc_fx_fail(f, f->db, "passkey add", rc);
    }
    s = hsc_fx_run_write(f, f->db, st, "passkey add", &changes);
    if (s == HSC_OK && changes == 0) {
        hsc_factors_msgf((hsc_factors_t *)f, "%s", refused);
        s = HSC_EAUTH;
    }
    return s;
}

hsc_status_t hsc_fx_passkey_add(hsc_factors_t *fb, const hsc_passkey_t *pk,
                                const unsigned char *xn,
                                const unsigned char *handle, int64_t now)
{
    sq_factors_t *f = with_passkeys(fb);
    unsigned char auth[HSC_AUTH_LEN];
    hsc_status_t s;
    int rc;

    if (f == NULL) {
        return HSC_ESTORE;
    }
    if ((s = hsc_authenticator(xn, auth)) != HSC_OK) {
        return s;
    }
    rc = sqlite3_exec(f->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        hsc_wipe(auth, sizeof(auth));
        return hsc_fx_fail(f, f->db, "passkey add", rc);
    }
    /* The proof: an enabled user whose authenticator is SHA-256(xn). */
    s = handle_row(f, pk,
                   "INSERT INTO hsc_passkey_users (username, handle) "
                   "SELECT username, ?3 FROM hsc_users "
                   "WHERE username = ?1 AND authenticator = ?2 "
                   "AND disabled = 0 "
                   "ON CONFLICT (username) DO UPDATE "
                   "SET handle = handle",
                   auth, handle,
                   "passkey add: no enabled user of that name "
                   "whose password has this x_n");
    if (s == HSC_OK) {
        s = insert_passkey(f, pk, now);
    }
    hsc_wipe(auth, sizeof(auth));
    return hsc_fx_finish(f, s, "passkey add");
}

/* The credential's last accepted challenge (seconds) from the state
 * file, read for a list: 0 when none, or the handle is read-only. */
static void state_used(sq_factors_t *f, hsc_passkey_t *pk)
{
    sqlite3_stmt *st = NULL;

    if (f->state == NULL
        || sqlite3_prepare_v2(f->state,
                              "SELECT last_challenge FROM hsc_passkey_used "
                              "WHERE cred_id = ?1",
                              -1, &st, NULL)
               != SQLITE_OK) {
        sqlite3_finalize(st);
        return;
    }
    sqlite3_bind_blob(st, 1, pk->id, (int)pk->id_len, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0) {
        pk->last_used = sqlite3_column_int64(st, 0) / 1000;
    }
    sqlite3_finalize(st);
}

/* 1 when user has a passkey, 0 when not, -1 on a fault. */
static int has_passkey(sq_factors_t *f, const char *user)
{
    sqlite3_stmt *st;
    int rc, has = -1;

    st = hsc_fx_prepare_user(f->db,
                             "SELECT 1 FROM hsc_passkeys WHERE username = ?1",
                             user, &rc);
    if (st != NULL) {
        rc = sqlite3_step(st);
        has = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
        sqlite3_finalize(st);
    }
    return has;
}

hsc_status_t hsc_fx_passkey_add_link(hsc_factors_t *fb, const hsc_passkey_t *pk,
                                     const unsigned char *hash,
                                     const unsigned char *handle, int64_t now)
{
    sq_factors_t *f = with_passkeys(fb);
    char owner[HSC_USER_MAX + 1];
    hsc_status_t s;
    int rc, has;

    if (f == NULL) {
        return HSC_ESTORE;
    }
    rc = sqlite3_exec(f->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        return hsc_fx_fail(f, f->db, "passkey add", rc);
    }
    /* The proof: the link, deleted here; whose it is decides whose. */
    s = hsc_fx_link_take_in(fb, hash, HSC_LINK_ENROL, now, owner,
                            "passkey add by a link");
    if (s == HSC_EAUTH || (s == HSC_OK && strcmp(owner, pk->user) != 0)) {
        hsc_factors_msgf(fb, "passkey add: no valid enrolment link of "
                             "this user");
        s = HSC_EAUTH;
    }
    /* Only the first passkey: the rollback keeps the link. */
    if (s == HSC_OK && (has = has_passkey(f, pk->user)) != 0) {
        s = has < 0 ? hsc_fx_fail(f, f->db, "passkey add", SQLITE_ERROR)
                    : HSC_EINVAL;
        if (has > 0) {
            hsc_factors_msgf(fb, "passkey add: the user has a passkey "
                                 "already; a link adds only the first");
        }
    }
    if (s == HSC_OK) {
        s = handle_row(f, pk,
                       "INSERT INTO hsc_passkey_users (username, handle) "
                       "SELECT username, ?3 FROM hsc_users "
                       "WHERE username = ?1 AND disabled = 0 "
                       "ON CONFLICT (username) DO UPDATE "
                       "SET handle = handle",
                       NULL, handle,
                       "passkey add: no enabled user of that name");
    }
    if (s == HSC_OK) {
        s = insert_passkey(f, pk, now);
    }
    return hsc_fx_finish(f, s, "passkey add");
}

hsc_status_t hsc_fx_passkey_list(hsc_factors_t *fb, const char *user,
                                 hsc_passkeys_each_fn *fn, void *baton)
{
    sq_factors_t *f = with_passkeys(fb);
    hsc_passkey_t pk;
    sqlite3_stmt *st;
    int rc;

    if (f == NULL) {
        return HSC_ESTORE;
    }
    /* No handle, key or seal hash in a list: NULL in their places, and
     * whether there is a seal hash as a zero-length blob or NULL. */
    st = hsc_fx_prepare_user(
        f->db,
        "SELECT cred_id, username, NULL, alg, NULL, sign_count, be, bs, uv, "
        "transports, prf, CASE WHEN seal_hash IS NULL THEN NULL ELSE x'' END, "
        "name, created FROM hsc_passkeys WHERE username = ?1 "
        "ORDER BY created, cred_id",
        user, &rc);
    if (st == NULL) {
        return hsc_fx_fail(f, f->db, "passkey list", rc);
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!row_to_pk(st, &pk)) {
            sqlite3_finalize(st);
            hsc_factors_msgf(fb, "passkey record is malformed");
            return HSC_ESTORE;
        }
        state_used(f, &pk);
        if (fn(baton, &pk)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? HSC_OK
                             : hsc_fx_fail(f, f->db, "passkey list", rc);
}

/* The credential's last accepted sign count in the state file, if any. */
static void state_count(sq_factors_t *f, hsc_passkey_t *pk)
{
    sqlite3_stmt *st = NULL;

    if (f->state == NULL
        || sqlite3_prepare_v2(f->state,
                              "SELECT sign_count FROM hsc_passkey_used "
                              "WHERE cred_id = ?1",
                              -1, &st, NULL)
               != SQLITE_OK) {
        sqlite3_finalize(st);
        return;
    }
    sqlite3_bind_blob(st, 1, pk->id, (int)pk->id_len, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
        pk->sign_count = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
}

hsc_status_t hsc_fx_passkey_get(hsc_factors_t *fb, const unsigned char *id,
                                size_t len, hsc_passkey_t *out)
{
    sq_factors_t *f = with_passkeys(fb);
    sqlite3_stmt *st = NULL;
    hsc_status_t s = HSC_OK;
    int rc;

    if (f == NULL) {
        return HSC_ESTORE;
    }
    rc = sqlite3_prepare_v2(f->db,
                            "SELECT " PK_COLUMNS " FROM hsc_passkeys p "
                            "JOIN hsc_passkey_users h "
                            "ON h.username = p.username WHERE p.cred_id = ?1",
                            -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_blob(st, 1, id, (int)len, SQLITE_STATIC);
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
    }
    if (rc == SQLITE_ROW) {
        if (!row_to_pk(st, out) || out->spki_len == 0) {
            memset(out, 0, sizeof(*out));
            hsc_factors_msgf(fb, "passkey record is malformed");
            s = HSC_ESTORE;
        }
    }
    else if (rc == SQLITE_DONE) {
        hsc_factors_msgf(fb, "passkey: no such credential");
        s = HSC_ENOUSER;
    }
    else {
        s = hsc_fx_fail(f, f->db, "passkey get", rc);
    }
    sqlite3_finalize(st);
    if (s == HSC_OK) {
        state_count(f, out);
    }
    return s;
}

hsc_status_t hsc_fx_passkey_accept(hsc_factors_t *fb, const unsigned char *id,
                                   size_t len, int64_t challenge_ms,
                                   int64_t new_count)
{
    sq_factors_t *f = with_passkeys(fb);
    sqlite3_stmt *st = NULL;
    int64_t registered;
    hsc_status_t s;
    int rc, changes = 0;

    if (f == NULL) {
        return HSC_ESTORE;
    }
    if (f->state == NULL) {
        hsc_factors_msgf(fb, "the factors were opened read-only");
        return HSC_EREADONLY;
    }
    /* The registration's count (it never changes): the floor of a first
     * assertion. */
    rc = sqlite3_prepare_v2(f->db,
                            "SELECT sign_count FROM hsc_passkeys "
                            "WHERE cred_id = ?1",
                            -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_blob(st, 1, id, (int)len, SQLITE_STATIC);
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
    }
    registered = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE) {
        hsc_factors_msgf(fb, "passkey accept: no such credential");
        return HSC_EAUTH;
    }
    if (rc != SQLITE_ROW) {
        return hsc_fx_fail(f, f->db, "passkey accept", rc);
    }
    /* One statement: a first row only above the registration's count, or
     * a later challenge with a greater count (or 0 and 0) than the row's;
     * a replay, an older challenge or a race lost to another server
     * changes nothing. */
    rc = sqlite3_prepare_v2(
        f->state,
        "INSERT INTO hsc_passkey_used (cred_id, last_challenge, sign_count) "
        "SELECT ?1, ?2, ?3 WHERE ?3 > ?4 OR (?3 = 0 AND ?4 = 0) "
        "ON CONFLICT (cred_id) DO UPDATE "
        "SET last_challenge = excluded.last_challenge, "
        "sign_count = excluded.sign_count "
        "WHERE hsc_passkey_used.last_challenge < excluded.last_challenge "
        "AND (excluded.sign_count > hsc_passkey_used.sign_count "
        "OR (excluded.sign_count = 0 AND hsc_passkey_used.sign_count = 0))",
        -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_blob(st, 1, id, (int)len, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, challenge_ms);
        sqlite3_bind_int64(st, 3, new_count);
        rc = sqlite3_bind_int64(st, 4, registered);
    }
    if (rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return hsc_fx_fail(f, f->state, "passkey accept", rc);
    }
    s = hsc_fx_run_write(f, f->state, st, "passkey accept", &changes);
    if (s == HSC_OK && changes != 1) {
        hsc_factors_msgf(fb, "passkey accept: refused (a replayed or older "
                             "challenge, or a sign count that did not grow)");
        s = HSC_EAUTH;
    }
    return s;
}

/* A write of user's credential id (rename: name; remove: NULL). */
static hsc_status_t own_write(hsc_factors_t *fb, const char *user,
                              const unsigned char *id, size_t len,
                              const char *name)
{
    sq_factors_t *f = with_passkeys(fb);
    const char *what = name ? "passkey rename" : "passkey remove";
    sqlite3_stmt *st;
    hsc_status_t s;
    int rc, changes = 0;

    if (f == NULL) {
        return HSC_ESTORE;
    }
    rc = sqlite3_exec(f->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        return hsc_fx_fail(f, f->db, what, rc);
    }
    st = hsc_fx_prepare_user(f->db,
                             name ? "UPDATE hsc_passkeys SET name = ?3 "
                                    "WHERE username = ?1 AND cred_id = ?2"
                                  : "DELETE FROM hsc_passkeys "
                                    "WHERE username = ?1 AND cred_id = ?2",
                             user, &rc);
    if (st != NULL) {
        rc = sqlite3_bind_blob(st, 2, id, (int)len, SQLITE_STATIC);
        if (rc == SQLITE_OK && name != NULL) {
            rc = sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
        }
    }
    if (st == NULL || rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return hsc_fx_finish(f, hsc_fx_fail(f, f->db, what, rc), what);
    }
    s = hsc_fx_run_write(f, f->db, st, what, &changes);
    if (s == HSC_OK && changes == 0) {
        hsc_factors_msgf(fb, "%s: this user has no such passkey", what);
        s = HSC_ENOUSER;
    }
    if (s == HSC_OK && name == NULL) {
        s = seals_rewrite(f, user);
    }
    s = hsc_fx_finish(f, s, what);
    if (s == HSC_OK && name == NULL && f->state != NULL
        && sqlite3_prepare_v2(f->state,
                              "DELETE FROM hsc_passkey_used "
                              "WHERE cred_id = ?1",
                              -1, &st, NULL)
               == SQLITE_OK) {
        /* Best effort: a row left behind names an id no longer stored. */
        sqlite3_bind_blob(st, 1, id, (int)len, SQLITE_STATIC);
        sqlite3_step(st);
        sqlite3_finalize(st);
    }
    return s;
}

hsc_status_t hsc_fx_passkey_rename(hsc_factors_t *fb, const char *user,
                                   const unsigned char *id, size_t len,
                                   const char *name)
{
    return own_write(fb, user, id, len, name);
}

hsc_status_t hsc_fx_passkey_remove(hsc_factors_t *fb, const char *user,
                                   const unsigned char *id, size_t len)
{
    return own_write(fb, user, id, len, NULL);
}

/* Whether user may turn the switch on: HSC_OK, HSC_EINVAL (no passkey,
 * an unsealed one) or a failure. Inside the caller's transaction. */
static hsc_status_t may_require(sq_factors_t *f, const char *user)
{
    sqlite3_stmt *st;
    hsc_status_t s = HSC_OK;
    int rc;

    st = hsc_fx_prepare_user(f->db,
                             "SELECT count(*), count(*) - count(seal_hash) "
                             "FROM hsc_passkeys WHERE username = ?1",
                             user, &rc);
    if (st == NULL) {
        return hsc_fx_fail(f, f->db, "require seal", rc);
    }
    if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
        s = hsc_fx_fail(f, f->db, "require seal", rc);
    }
    else if (sqlite3_column_int64(st, 0) == 0
             || sqlite3_column_int64(st, 1) != 0) {
        hsc_factors_msgf(&f->base,
                         "require seal: the user needs at least one passkey, "
                         "and every one sealed");
        s = HSC_EINVAL;
    }
    sqlite3_finalize(st);
    return s;
}

/* 1 when SHA-256(z) is one of the n bytes of seal hashes in col (each
 * compared in constant time). */
static int z_matches(const unsigned char *z, const unsigned char *col, size_t n)
{
    unsigned char h[HSC_AUTH_LEN];
    size_t i;
    int found = 0;

    if (hsc_authenticator(z, h) != HSC_OK) {
        return 0;
    }
    for (i = 0; i + HSC_PASSKEY_SEAL_LEN <= n; i += HSC_PASSKEY_SEAL_LEN) {
        found |= hsc_ct_equal(h, col + i, HSC_PASSKEY_SEAL_LEN);
    }
    hsc_wipe(h, sizeof(h));
    return found;
}

/* user's seal column into col (u->seals, u->seals_len): HSC_OK,
 * HSC_ENOUSER, or a failure. Inside the caller's transaction. */
static hsc_status_t read_column(sq_factors_t *f, const char *user,
                                unsigned char *col, size_t cap, hsc_user_t *u)
{
    sqlite3_stmt *st;
    hsc_status_t s = HSC_OK;
    int rc, n;

    memset(u, 0, sizeof(*u));
    st = hsc_fx_prepare_user(f->db,
                             "SELECT passkey_seals FROM hsc_users "
                             "WHERE username = ?1",
                             user, &rc);
    if (st == NULL) {
        return hsc_fx_fail(f, f->db, "require seal", rc);
    }
    rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        hsc_factors_msgf(&f->base, "require seal: no such user");
        s = HSC_ENOUSER;
    }
    else if (rc != SQLITE_ROW) {
        s = hsc_fx_fail(f, f->db, "require seal", rc);
    }
    else if ((n = sqlite3_column_bytes(st, 0)) < 0 || (size_t)n > cap) {
        hsc_factors_msgf(&f->base, "require seal: malformed seal column");
        s = HSC_ESTORE;
    }
    else {
        if (n > 0) {
            memcpy(col, sqlite3_column_blob(st, 0), (size_t)n);
        }
        u->seals = col;
        u->seals_len = (size_t)n;
    }
    sqlite3_finalize(st);
    return s;
}

hsc_status_t hsc_fx_passkey_require_seal(hsc_factors_t *fb, const char *user,
                                         int on, const unsigned char *z)
{
    sq_factors_t *f = with_passkeys(fb);
    unsigned char col[HSC_PASSKEY_SEALS_MAX * HSC_PASSKEY_SEAL_LEN];
    hsc_user_t u;
    sqlite3_stmt *st;
    hsc_status_t s;
    int rc;

    if (f == NULL) {
        return HSC_ESTORE;
    }
    rc = sqlite3_exec(f->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        return hsc_fx_fail(f, f->db, "require seal", rc);
    }
    s = read_column(f, user, col, sizeof(col), &u);
    if (s != HSC_OK || on == hsc_user_seal_required(&u)) {
        return hsc_fx_finish(f, s, "require seal"); /* or so already */
    }
    if (on) {
        s = may_require(f, user);
        if (s == HSC_OK && u.seals_len + HSC_PASSKEY_SEAL_LEN > sizeof(col)) {
            hsc_factors_msgf(fb,
                             "require seal: %d sealed passkeys leave no "
                             "room for the switch",
                             HSC_PASSKEY_SEALS_MAX);
            s = HSC_EINVAL;
        }
        if (s != HSC_OK) {
            return hsc_fx_finish(f, s, "require seal");
        }
        memset(col + u.seals_len, 0, HSC_PASSKEY_SEAL_LEN);
        u.seals_len += HSC_PASSKEY_SEAL_LEN;
    }
    else {
        u.seals_len = hsc_user_seal_bytes(&u);
        if (z != NULL && !z_matches(z, col, u.seals_len)) {
            hsc_factors_msgf(fb, "require seal: turning it off needs the "
                                 "seal of one of the user's passkeys");
            return hsc_fx_finish(f, HSC_EAUTH, "require seal");
        }
    }
    st = hsc_fx_prepare_user(f->db,
                             "UPDATE hsc_users SET passkey_seals = ?2 "
                             "WHERE username = ?1",
                             user, &rc);
    if (st != NULL) {
        rc = u.seals_len > 0 ? sqlite3_bind_blob(st, 2, col, (int)u.seals_len,
                                                 SQLITE_TRANSIENT)
                             : sqlite3_bind_null(st, 2);
    }
    if (st == NULL || rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return hsc_fx_finish(f, hsc_fx_fail(f, f->db, "require seal", rc),
                             "require seal");
    }
    s = hsc_fx_run_write(f, f->db, st, "require seal", NULL);
    return hsc_fx_finish(f, s, "require seal");
}

/* One blob of user's row by sql into buf (cap); ENOUSER when no row. */
static hsc_status_t user_blob(hsc_factors_t *fb, const char *sql,
                              const char *user, unsigned char *buf, size_t cap,
                              size_t *len, const char *what)
{
    sq_factors_t *f = with_passkeys(fb);
    sqlite3_stmt *st;
    hsc_status_t s = HSC_OK;
    int rc, n;

    *len = 0;
    if (f == NULL) {
        return HSC_ESTORE;
    }
    if ((st = hsc_fx_prepare_user(f->db, sql, user, &rc)) == NULL) {
        return hsc_fx_fail(f, f->db, what, rc);
    }
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        n = sqlite3_column_bytes(st, 0);
        if (n < 0 || (size_t)n > cap) {
            hsc_factors_msgf(fb, "%s: malformed", what);
            s = HSC_ESTORE;
        }
        else {
            if (n > 0) {
                memcpy(buf, sqlite3_column_blob(st, 0), (size_t)n);
            }
            *len = (size_t)n;
        }
    }
    else if (rc == SQLITE_DONE) {
        hsc_factors_msgf(fb, "%s: no such user", what);
        s = HSC_ENOUSER;
    }
    else {
        s = hsc_fx_fail(f, f->db, what, rc);
    }
    sqlite3_finalize(st);
    return s;
}

hsc_status_t hsc_fx_passkey_handle(hsc_factors_t *fb, const char *user,
                                   unsigned char *out)
{
    size_t n = 0;
    hsc_status_t s =
        user_blob(fb,
                  "SELECT handle FROM hsc_passkey_users WHERE username = ?1",
                  user, out, HSC_PASSKEY_HANDLE_LEN, &n, "passkey handle");

    if (s == HSC_OK && n != HSC_PASSKEY_HANDLE_LEN) {
        memset(out, 0, HSC_PASSKEY_HANDLE_LEN);
        hsc_factors_msgf(fb, "passkey handle: malformed");
        s = HSC_ESTORE;
    }
    return s;
}

hsc_status_t hsc_fx_passkey_seals(hsc_factors_t *fb, const char *user,
                                  unsigned char *buf, size_t cap, size_t *len)
{
    return user_blob(fb,
                     "SELECT passkey_seals FROM hsc_users WHERE username = ?1",
                     user, buf, cap, len, "passkey seals");
}
