/*
 * hsc_passkeys_pgsql.c: passkeys in a PostgreSQL user database (schema
 * version 7, hsc_core/sql/pgsql/007-passkeys.sql; hsc_passkeys.h), on the
 * factor handle's user store (its pool, timeouts and messages).
 *
 * What a web server does goes through the SECURITY DEFINER functions
 * (the httpd role has no right on the tables): hsc_passkeys_of,
 * hsc_passkey_get, hsc_passkey_add (proved by x_n), hsc_passkey_accept
 * (the one-time rule's compare-and-set), hsc_passkey_rename and
 * hsc_passkey_remove. The handle and the seal column are read from the
 * tables (the admin role: hsc-admin and tests). The trigger
 * hsc_passkeys_seals keeps hsc_users.passkey_seals right. The seal switch
 * (schema version 8, 008-seal-switch.sql): hsc_passkey_seal_switch (on;
 * off with a seal) for the httpd role, hsc_passkey_seal_off (off without
 * one) for the admin role only. Version 9 (009-passkey-link.sql):
 * hsc_passkey_add_link, the first passkey proved by an enrolment link.
 * Version 10 (010-passkey-used.sql): hsc_passkeys_used, the list's "last
 * used".
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "hsc_factors_backend.h"
#include "hsc_store_pgsql.h"

/* Run sql; errmsg from the store, naming the upgrade when the schema has
 * no passkeys (SQLSTATE 42P01 undefined table, 42883 undefined function,
 * 42703 undefined column). */
static hsc_status_t exec(hsc_factors_t *f, const char *what, const char *sql,
                         int n, const char *const *v, const int *l,
                         const int *fmt, int write, PGresult **res)
{
    hsc_store_t *s = hsc_pq_factors_store(f);
    hsc_status_t st;

    if (write && f->readonly) {
        hsc_factors_msgf(f, "%s: the factors were opened read-only", what);
        return HSC_EREADONLY;
    }
    st = hsc_store_pgsql_exec(s, what, sql, n, v, l, fmt, write, res);
    if (st != HSC_OK) {
        const char *m = hsc_store_errmsg(s);
        if (st == HSC_ESTORE
            && (strstr(m, "SQLSTATE 42P01") != NULL
                || strstr(m, "SQLSTATE 42883") != NULL
                || strstr(m, "SQLSTATE 42703") != NULL)) {
            hsc_factors_msgf(f,
                             "%s: the database's schema is older than "
                             "version %d and has no passkeys: run "
                             "\"hsc-admin init\" to upgrade it",
                             what, HSC_PASSKEYS_PGSQL_VERSION);
        }
        else {
            hsc_factors_msgf(f, "%s", m);
        }
    }
    return st;
}

static int64_t be_int(const PGresult *res, int row, int col)
{
    const unsigned char *p = (const unsigned char *)PQgetvalue(res, row, col);
    int i, n = PQgetlength(res, row, col);
    uint64_t v = 0;

    for (i = 0; i < n && i < 8; ++i) {
        v = (v << 8) | p[i];
    }
    return n == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

static int bool_col(const PGresult *res, int row, int col)
{
    return PQgetlength(res, row, col) == 1 && PQgetvalue(res, row, col)[0];
}

static int text_col(const PGresult *res, int row, int col, char *out,
                    size_t cap)
{
    int n = PQgetlength(res, row, col);

    if (PQgetisnull(res, row, col) || n < 0 || (size_t)n >= cap) {
        return 0;
    }
    memcpy(out, PQgetvalue(res, row, col), (size_t)n);
    out[n] = '\0';
    return 1;
}

static int blob_col(const PGresult *res, int row, int col, unsigned char *out,
                    size_t cap, size_t *len)
{
    int n = PQgetlength(res, row, col);

    if (PQgetisnull(res, row, col) || n <= 0 || (size_t)n > cap) {
        return 0;
    }
    memcpy(out, PQgetvalue(res, row, col), (size_t)n);
    *len = (size_t)n;
    return 1;
}

/* Text forms of a passkey's numbers, alive as long as the parameters. */
typedef struct {
    char alg[16], count[24], created[24];
} pk_text_t;

/* The 13 parameters both add functions end with ($3 to $15): the handle,
 * then the passkey's columns, in v, l and fm from their first slot. */
static void credential_params(const hsc_passkey_t *pk,
                              const unsigned char *handle, int64_t now,
                              pk_text_t *t, const char **v, int *l, int *fm)
{
    int i;

    snprintf(t->alg, sizeof(t->alg), "%d", pk->alg);
    snprintf(t->count, sizeof(t->count), "%" PRId64, pk->sign_count);
    snprintf(t->created, sizeof(t->created), "%" PRId64, now);
    for (i = 0; i < 13; i++) {
        l[i] = 0;
        fm[i] = 0;
    }
    v[0] = (const char *)handle;
    l[0] = HSC_PASSKEY_HANDLE_LEN;
    fm[0] = 1;
    v[1] = (const char *)pk->id;
    l[1] = (int)pk->id_len;
    fm[1] = 1;
    v[2] = t->alg;
    v[3] = (const char *)pk->spki;
    l[3] = (int)pk->spki_len;
    fm[3] = 1;
    v[4] = t->count;
    v[5] = pk->be ? "t" : "f";
    v[6] = pk->bs ? "t" : "f";
    v[7] = pk->uv ? "t" : "f";
    v[8] = pk->transports;
    v[9] = pk->prf ? "t" : "f";
    v[10] = pk->sealed ? (const char *)pk->seal_hash : NULL;
    l[10] = HSC_PASSKEY_SEAL_LEN;
    fm[10] = 1;
    v[11] = pk->name;
    v[12] = t->created;
}

hsc_status_t hsc_pq_passkey_add(hsc_factors_t *f, const hsc_passkey_t *pk,
                                const unsigned char *xn,
                                const unsigned char *handle, int64_t now)
{
    pk_text_t t;
    const char *v[15];
    int l[15], fm[15];
    PGresult *res;
    hsc_status_t st;

    v[0] = pk->user;
    l[0] = 0;
    fm[0] = 0;
    v[1] = (const char *)xn;
    l[1] = HSC_XN_LEN;
    fm[1] = 1;
    credential_params(pk, handle, now, &t, v + 2, l + 2, fm + 2);
    st = exec(f, "passkey add",
              "SELECT coalesce(hsc_passkey_add($1, $2, $3, $4, $5::integer, "
              "$6, $7::bigint, $8::boolean, $9::boolean, $10::boolean, $11, "
              "$12::boolean, $13, $14, $15::bigint)::text, 'refused')",
              15, v, l, fm, 1, &res);
    if (st == HSC_ESTORE && strstr(f->errmsg, "SQLSTATE 23514") != NULL
        && strstr(f->errmsg, "seal switch") != NULL) {
        /* hsc_passkeys_sealed_only: a passkey without a seal while the
         * user's switch is on is bad input, as on SQLite. */
        hsc_factors_msgf(f, "passkey add: every passkey of this user must "
                            "be sealed (the seal switch is on)");
        return HSC_EINVAL;
    }
    if (st != HSC_OK) {
        return st;
    }
    if (PQntuples(res) != 1 || PQgetisnull(res, 0, 0)) {
        hsc_factors_msgf(f, "passkey add: unexpected answer");
        st = HSC_ESTORE;
    }
    else if (strcmp(PQgetvalue(res, 0, 0), "refused") == 0) {
        hsc_factors_msgf(f, "passkey add: no enabled user of that name whose "
                            "password has this x_n");
        st = HSC_EAUTH;
    }
    else if (strcmp(PQgetvalue(res, 0, 0), "false") == 0) {
        hsc_factors_msgf(f, "passkey add: that credential id is registered "
                            "already");
        st = HSC_EEXISTS;
    }
    else if (strcmp(PQgetvalue(res, 0, 0), "true") != 0) {
        hsc_factors_msgf(f, "passkey add: unexpected answer");
        st = HSC_ESTORE;
    }
    PQclear(res);
    return st;
}

hsc_status_t hsc_pq_passkey_add_link(hsc_factors_t *f, const hsc_passkey_t *pk,
                                     const unsigned char *hash,
                                     const unsigned char *handle, int64_t now)
{
    pk_text_t t;
    const char *v[15], *ans;
    int l[15], fm[15];
    PGresult *res;
    hsc_status_t st;

    v[0] = (const char *)hash;
    l[0] = HSC_LINK_HASH_LEN;
    fm[0] = 1;
    v[1] = pk->user;
    l[1] = 0;
    fm[1] = 0;
    credential_params(pk, handle, now, &t, v + 2, l + 2, fm + 2);
    st = exec(f, "passkey add by a link",
              "SELECT hsc_passkey_add_link($1, $2, $3, $4, $5::integer, $6, "
              "$7::bigint, $8::boolean, $9::boolean, $10::boolean, $11, "
              "$12::boolean, $13, $14, $15::bigint)",
              15, v, l, fm, 1, &res);
    if (st == HSC_ESTORE && strstr(f->errmsg, "older than version") != NULL) {
        hsc_factors_msgf(f, "passkey add by a link: the database's schema "
                            "is older than version 9: run \"hsc-admin "
                            "init\" to upgrade it");
        return st;
    }
    if (st == HSC_ESTORE && strstr(f->errmsg, "SQLSTATE 23505") != NULL) {
        hsc_factors_msgf(f, "passkey add: that credential id is registered "
                            "already");
        return HSC_EEXISTS;
    }
    if (st != HSC_OK) {
        return st;
    }
    ans = PQntuples(res) == 1 && !PQgetisnull(res, 0, 0) ? PQgetvalue(res, 0, 0)
                                                         : "";
    if (strcmp(ans, "ok") == 0) {
        st = HSC_OK;
    }
    else if (strcmp(ans, "link") == 0) {
        hsc_factors_msgf(f, "passkey add: no valid enrolment link of this "
                            "user (or the user is disabled)");
        st = HSC_EAUTH;
    }
    else if (strcmp(ans, "has") == 0) {
        hsc_factors_msgf(f, "passkey add: the user has a passkey already; a "
                            "link adds only the first");
        st = HSC_EINVAL;
    }
    else if (strcmp(ans, "exists") == 0) {
        hsc_factors_msgf(f, "passkey add: that credential id is registered "
                            "already");
        st = HSC_EEXISTS;
    }
    else {
        hsc_factors_msgf(f, "passkey add by a link: unexpected answer");
        st = HSC_ESTORE;
    }
    PQclear(res);
    return st;
}

hsc_status_t hsc_pq_passkey_list(hsc_factors_t *f, const char *user,
                                 hsc_passkeys_each_fn *fn, void *baton)
{
    const char *v[1] = {user};
    hsc_passkey_t pk;
    PGresult *res;
    hsc_status_t st;
    int i;

    st = exec(f, "passkey list",
              /* "Last used" (version 10) in the same round trip: NULL
               * for a passkey never used. */
              "SELECT o.cred_id, o.alg, o.sign_count, o.be, o.bs, o.uv, "
              "o.transports, o.prf, o.sealed, o.name, o.created, u.last_used "
              "FROM hsc_passkeys_of($1) o "
              "LEFT JOIN hsc_passkeys_used($1) u USING (cred_id) "
              "ORDER BY o.created, o.cred_id",
              1, v, NULL, NULL, 0, &res);
    if (st != HSC_OK) {
        return st;
    }
    for (i = 0; i < PQntuples(res); ++i) {
        memset(&pk, 0, sizeof(pk));
        if (PQnfields(res) != 12
            || !blob_col(res, i, 0, pk.id, sizeof(pk.id), &pk.id_len)
            || !text_col(res, i, 6, pk.transports, sizeof(pk.transports))
            || !text_col(res, i, 9, pk.name, sizeof(pk.name))) {
            hsc_factors_msgf(f, "passkey record is malformed");
            st = HSC_ESTORE;
            break;
        }
        snprintf(pk.user, sizeof(pk.user), "%s", user);
        pk.alg = (int)be_int(res, i, 1);
        pk.sign_count = be_int(res, i, 2);
        pk.be = bool_col(res, i, 3);
        pk.bs = bool_col(res, i, 4);
        pk.uv = bool_col(res, i, 5);
        pk.prf = bool_col(res, i, 7);
        pk.sealed = bool_col(res, i, 8);
        pk.created = be_int(res, i, 10);
        pk.last_used = PQgetisnull(res, i, 11) ? 0 : be_int(res, i, 11);
        if (fn(baton, &pk)) {
            break;
        }
    }
    PQclear(res);
    return st;
}

hsc_status_t hsc_pq_passkey_get(hsc_factors_t *f, const unsigned char *id,
                                size_t len, hsc_passkey_t *out)
{
    const char *v[1] = {(const char *)id};
    int l[1] = {(int)len}, fm[1] = {1};
    size_t hn = 0, sn = 0;
    PGresult *res;
    hsc_status_t st;

    st = exec(f, "passkey get",
              "SELECT cred_id, username, handle, alg, spki, sign_count, be, "
              "bs, uv, transports, prf, seal_hash, name, created "
              "FROM hsc_passkey_get($1)",
              1, v, l, fm, 0, &res);
    if (st != HSC_OK) {
        return st;
    }
    if (PQntuples(res) == 0) {
        hsc_factors_msgf(f, "passkey: no such credential");
        st = HSC_ENOUSER;
    }
    else if (PQntuples(res) != 1 || PQnfields(res) != 14
             || !blob_col(res, 0, 0, out->id, sizeof(out->id), &out->id_len)
             || !text_col(res, 0, 1, out->user, sizeof(out->user))
             || !blob_col(res, 0, 2, out->handle, sizeof(out->handle), &hn)
             || hn != HSC_PASSKEY_HANDLE_LEN
             || !blob_col(res, 0, 4, out->spki, sizeof(out->spki),
                          &out->spki_len)
             || !text_col(res, 0, 9, out->transports, sizeof(out->transports))
             || !text_col(res, 0, 12, out->name, sizeof(out->name))
             || (!PQgetisnull(res, 0, 11)
                 && (!blob_col(res, 0, 11, out->seal_hash,
                               sizeof(out->seal_hash), &sn)
                     || sn != HSC_PASSKEY_SEAL_LEN))) {
        memset(out, 0, sizeof(*out));
        hsc_factors_msgf(f, "passkey record is malformed");
        st = HSC_ESTORE;
    }
    else {
        out->alg = (int)be_int(res, 0, 3);
        out->sign_count = be_int(res, 0, 5);
        out->be = bool_col(res, 0, 6);
        out->bs = bool_col(res, 0, 7);
        out->uv = bool_col(res, 0, 8);
        out->prf = bool_col(res, 0, 10);
        out->sealed = !PQgetisnull(res, 0, 11);
        out->created = be_int(res, 0, 13);
    }
    PQclear(res);
    return st;
}

hsc_status_t hsc_pq_passkey_accept(hsc_factors_t *f, const unsigned char *id,
                                   size_t len, int64_t challenge_ms,
                                   int64_t new_count)
{
    char at[24], count[24];
    const char *v[3] = {(const char *)id, at, count};
    int l[3] = {(int)len, 0, 0}, fm[3] = {1, 0, 0};
    PGresult *res;
    hsc_status_t st;

    snprintf(at, sizeof(at), "%" PRId64, challenge_ms);
    snprintf(count, sizeof(count), "%" PRId64, new_count);
    /* One statement: of two nodes with the same assertion, one row
     * changes. */
    st = exec(f, "passkey accept",
              "SELECT FROM hsc_passkey_accept($1, $2::bigint, $3::bigint) "
              "AS r WHERE r",
              3, v, l, fm, 1, &res);
    if (st != HSC_OK) {
        return st;
    }
    if (PQntuples(res) != 1) {
        hsc_factors_msgf(f, "passkey accept: refused (a replayed or older "
                            "challenge, a sign count that did not grow, or "
                            "no such credential)");
        st = HSC_EAUTH;
    }
    PQclear(res);
    return st;
}

/* One of user's credentials through fn_sql ($1 user, $2 id, $3 name). */
static hsc_status_t own(hsc_factors_t *f, const char *what, const char *sql,
                        const char *user, const unsigned char *id, size_t len,
                        const char *name)
{
    const char *v[3] = {user, (const char *)id, name};
    int l[3] = {0, (int)len, 0}, fm[3] = {0, 1, 0};
    PGresult *res;
    hsc_status_t st;

    st = exec(f, what, sql, name ? 3 : 2, v, l, fm, 1, &res);
    if (st != HSC_OK) {
        return st;
    }
    if (PQntuples(res) != 1) {
        hsc_factors_msgf(f, "%s: this user has no such passkey", what);
        st = HSC_ENOUSER;
    }
    PQclear(res);
    return st;
}

hsc_status_t hsc_pq_passkey_rename(hsc_factors_t *f, const char *user,
                                   const unsigned char *id, size_t len,
                                   const char *name)
{
    return own(f, "passkey rename",
               "SELECT FROM hsc_passkey_rename($1, $2, $3) AS r WHERE r", user,
               id, len, name);
}

hsc_status_t hsc_pq_passkey_remove(hsc_factors_t *f, const char *user,
                                   const unsigned char *id, size_t len)
{
    return own(f, "passkey remove",
               "SELECT FROM hsc_passkey_remove($1, $2) AS r WHERE r", user, id,
               len, NULL);
}

/* One bytea of sql's one row ($1 user); ENOUSER when no row. */
static hsc_status_t user_blob(hsc_factors_t *f, const char *what,
                              const char *sql, const char *user,
                              unsigned char *buf, size_t cap, size_t *len)
{
    const char *v[1] = {user};
    PGresult *res;
    hsc_status_t st;
    int n;

    *len = 0;
    st = exec(f, what, sql, 1, v, NULL, NULL, 0, &res);
    if (st != HSC_OK) {
        return st;
    }
    if (PQntuples(res) != 1) {
        hsc_factors_msgf(f, "%s: no such user", what);
        st = HSC_ENOUSER;
    }
    else if (!PQgetisnull(res, 0, 0)) {
        n = PQgetlength(res, 0, 0);
        if (n < 0 || (size_t)n > cap) {
            hsc_factors_msgf(f, "%s: malformed", what);
            st = HSC_ESTORE;
        }
        else {
            memcpy(buf, PQgetvalue(res, 0, 0), (size_t)n);
            *len = (size_t)n;
        }
    }
    PQclear(res);
    return st;
}

hsc_status_t hsc_pq_passkey_handle(hsc_factors_t *f, const char *user,
                                   unsigned char *out)
{
    size_t n = 0;
    hsc_status_t st =
        user_blob(f, "passkey handle",
                  "SELECT handle FROM hsc_passkey_users WHERE username = $1",
                  user, out, HSC_PASSKEY_HANDLE_LEN, &n);

    if (st == HSC_OK && n != HSC_PASSKEY_HANDLE_LEN) {
        memset(out, 0, HSC_PASSKEY_HANDLE_LEN);
        hsc_factors_msgf(f, "passkey handle: malformed");
        st = HSC_ESTORE;
    }
    return st;
}

hsc_status_t hsc_pq_passkey_seals(hsc_factors_t *f, const char *user,
                                  unsigned char *buf, size_t cap, size_t *len)
{
    return user_blob(f, "passkey seals",
                     "SELECT passkey_seals FROM hsc_users WHERE username = $1",
                     user, buf, cap, len);
}

hsc_status_t hsc_pq_passkey_require_seal(hsc_factors_t *f, const char *user,
                                         int on, const unsigned char *z)
{
    const char *v[3] = {user, on ? "t" : "f", (const char *)z};
    int l[3] = {0, 0, z != NULL ? HSC_PASSKEY_SEAL_LEN : 0}, fm[3] = {0, 0, 1};
    PGresult *res;
    hsc_status_t st;
    const char *got;

    /* Off without a seal is the administrator's (a function the httpd
     * role may not call); the rest goes through the httpd role's. */
    if (!on && z == NULL) {
        st = exec(f, "require seal", "SELECT hsc_passkey_seal_off($1)", 1, v,
                  NULL, NULL, 1, &res);
    }
    else {
        st = exec(f, "require seal",
                  "SELECT hsc_passkey_seal_switch($1, $2::boolean, $3)", 3, v,
                  l, fm, 1, &res);
    }
    if (st != HSC_OK) {
        return st;
    }
    got = PQntuples(res) == 1 && !PQgetisnull(res, 0, 0) ? PQgetvalue(res, 0, 0)
                                                         : NULL;
    if (PQntuples(res) != 1) {
        hsc_factors_msgf(f, "require seal: unexpected answer");
        st = HSC_ESTORE;
    }
    else if (got == NULL) {
        hsc_factors_msgf(f, "require seal: no such user");
        st = HSC_ENOUSER;
    }
    else if (strcmp(got, "ok") != 0) {
        hsc_factors_msgf(f, on ? "require seal: the user needs at least one "
                                 "passkey, every one sealed (and at most 63)"
                               : "require seal: turning it off needs the "
                                 "seal of one of the user's passkeys");
        st = on ? HSC_EINVAL : HSC_EAUTH;
    }
    PQclear(res);
    return st;
}
