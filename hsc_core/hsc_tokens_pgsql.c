/*
 * hsc_tokens_pgsql.c: app passwords in a PostgreSQL user database (the
 * table hsc_tokens of schema version 5,
 * hsc_core/sql/pgsql/005-tokens.sql; hsc_tokens.h).
 *
 * The httpd role has no right on the table: what it does goes through
 * SECURITY DEFINER functions. The lookup by id, the request path, is
 * hsc_token_get; the account page's calls (schema version 6,
 * 006-own-tokens.sql) are hsc_token_add (a user's own token, proved by
 * x_n), hsc_tokens_of (one user's list) and hsc_token_revoke (one of the
 * user's, by id), which the admin role may call too. What only hsc-admin
 * does (add without a proof, everyone's list, revoke all of a user's) is
 * plain SQL on the table, which needs the owner's rights (the admin
 * role), as the writes of hsc_users do. Statements run on the store handle's
 * connections (hsc_store_pgsql_exec: its pool, its timeouts, its messages
 * without secrets).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "hsc_store_backend.h"
#include "hsc_store_pgsql.h"

#define TOKEN_COLUMNS                                                          \
    "id, username, name, scopes, secret_hash, created, expires, revoked"
/* What a list selects in the hash's place. */
#define ZERO_HASH "decode(repeat('00', 32), 'hex')"

/* Run sql on s. A database without the token table or functions (schema
 * older than 5, or 6 for the account page's functions: SQLSTATE 42P01,
 * undefined table, or 42883, undefined function) is HSC_ESTORE naming
 * the upgrade, as on SQLite. */
static hsc_status_t exec(hsc_store_t *s, const char *what, const char *sql,
                         int n, const char *const *v, const int *l,
                         const int *fmt, int write, PGresult **res)
{
    hsc_status_t st = hsc_store_pgsql_exec(s, what, sql, n, v, l, fmt, write,
                                           res);

    if (st == HSC_ESTORE
        && (strstr(s->errmsg, "SQLSTATE 42P01") != NULL
            || strstr(s->errmsg, "SQLSTATE 42883") != NULL)) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "%s: the database's schema is older than version %d "
                       "and lacks app passwords' tables or functions: run "
                       "\"hsc-admin init\" to upgrade it",
                       what, HSC_PGSQL_SCHEMA_VERSION);
    }
    return st;
}

/* A binary bigint of a result (network order). */
static int64_t be64(const PGresult *res, int row, int col)
{
    const unsigned char *p = (const unsigned char *)PQgetvalue(res, row, col);
    uint64_t v = 0;
    int i;

    for (i = 0; i < 8; ++i) {
        v = (v << 8) | p[i];
    }
    return (int64_t)v;
}

/* A text column of at most cap - 1 bytes into out; 0 when longer. */
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

/* Row `row` of a TOKEN_COLUMNS result (binary) into *t. */
static hsc_status_t row_to_token(hsc_store_t *s, const PGresult *res, int row,
                                 hsc_token_t *t)
{
    int ok;

    memset(t, 0, sizeof(*t));
    ok = PQnfields(res) == 8 && PQgetlength(res, row, 0) == HSC_TOKEN_ID_LEN
         && text_col(res, row, 0, t->id, sizeof(t->id))
         && text_col(res, row, 1, t->user, sizeof(t->user))
         && text_col(res, row, 2, t->name, sizeof(t->name))
         && text_col(res, row, 3, t->scopes, sizeof(t->scopes))
         && !PQgetisnull(res, row, 4)
         && PQgetlength(res, row, 4) == HSC_TOKEN_HASH_LEN
         && PQgetlength(res, row, 5) == 8 && PQgetlength(res, row, 6) == 8
         && PQgetlength(res, row, 7) == 8;
    if (!ok) {
        memset(t, 0, sizeof(*t));
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "token record is malformed");
        return HSC_ESTORE;
    }
    memcpy(t->hash, PQgetvalue(res, row, 4), HSC_TOKEN_HASH_LEN);
    t->created = be64(res, row, 5);
    t->expires = be64(res, row, 6);
    t->revoked = be64(res, row, 7);
    return HSC_OK;
}

hsc_status_t hsc_pg_token_get(hsc_store_t *s, const char *id, hsc_token_t *out)
{
    const char *v[1] = {id};
    PGresult *res;
    hsc_status_t st;

    st = exec(s, "token", "SELECT " TOKEN_COLUMNS " FROM hsc_token_get($1)", 1,
              v, NULL, NULL, 0, &res);
    if (st != HSC_OK) {
        return st;
    }
    if (PQntuples(res) == 0) {
        st = HSC_ENOUSER;
    }
    else if (PQntuples(res) != 1) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "token: unexpected answer");
        st = HSC_ESTORE;
    }
    else {
        st = row_to_token(s, res, 0, out);
    }
    PQclear(res);
    return st;
}

/* The owner must exist, and no other token may have the id or, while
 * live, the name: one statement says which (a user row, a row inserted). */
hsc_status_t hsc_pg_token_add(hsc_store_t *s, const hsc_token_t *t, int64_t now)
{
    char created[24], expires[24];
    const char *v[7];
    int l[7] = {0, 0, 0, HSC_TOKEN_HASH_LEN, 0, 0, 0};
    int f[7] = {0, 0, 0, 1, 0, 0, 0};
    PGresult *res;
    hsc_status_t st;

    snprintf(created, sizeof(created), "%" PRId64, now);
    snprintf(expires, sizeof(expires), "%" PRId64, t->expires);
    v[0] = t->id;
    v[1] = t->name;
    v[2] = t->scopes;
    v[3] = (const char *)t->hash;
    v[4] = created;
    v[5] = expires;
    v[6] = t->user;
    st = exec(s, "token add",
              "WITH u AS (SELECT username FROM hsc_users WHERE username = $7 "
              "FOR KEY SHARE), ins AS (INSERT INTO hsc_tokens (" TOKEN_COLUMNS
              ") SELECT $1, u.username, $2, $3, $4, $5::bigint, $6::bigint, 0 "
              "FROM u ON CONFLICT DO NOTHING RETURNING 1) "
              "SELECT (SELECT count(*) FROM u), (SELECT count(*) FROM ins)",
              7, v, l, f, 1, &res);
    if (st != HSC_OK) {
        return st;
    }
    if (PQntuples(res) != 1 || PQgetlength(res, 0, 0) != 8
        || PQgetlength(res, 0, 1) != 8) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "token add: unexpected answer");
        st = HSC_ESTORE;
    }
    else if (be64(res, 0, 0) == 0) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg), "token add: no such user");
        st = HSC_ENOUSER;
    }
    else if (be64(res, 0, 1) == 0) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "token add: a live token of this user has that name");
        st = HSC_EEXISTS;
    }
    PQclear(res);
    return st;
}

/* Through hsc_token_add (schema version 6): true stored, false the id
 * or a live name taken, NULL no enabled user with that x_n. */
hsc_status_t hsc_pg_token_add_own(hsc_store_t *s, const hsc_token_t *t,
                                  int64_t now, const unsigned char *xn)
{
    char created[24], expires[24];
    const char *v[8];
    int l[8] = {0, HSC_XN_LEN, 0, HSC_TOKEN_HASH_LEN, 0, 0, 0, 0};
    int f[8] = {0, 1, 0, 1, 0, 0, 0, 0};
    PGresult *res;
    hsc_status_t st;

    snprintf(created, sizeof(created), "%" PRId64, now);
    snprintf(expires, sizeof(expires), "%" PRId64, t->expires);
    v[0] = t->user;
    v[1] = (const char *)xn;
    v[2] = t->id;
    v[3] = (const char *)t->hash;
    v[4] = t->name;
    v[5] = t->scopes;
    v[6] = expires;
    v[7] = created;
    st = exec(s, "token add",
              "SELECT coalesce(hsc_token_add($1, $2, $3, $4, $5, $6, "
              "$7::bigint, $8::bigint)::text, 'refused')",
              8, v, l, f, 1, &res);
    if (st != HSC_OK) {
        return st;
    }
    if (PQntuples(res) != 1 || PQgetisnull(res, 0, 0)) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "token add: unexpected answer");
        st = HSC_ESTORE;
    }
    else if (strcmp(PQgetvalue(res, 0, 0), "refused") == 0) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "token add: no enabled user of that name whose "
                       "password has this x_n");
        st = HSC_EAUTH;
    }
    else if (strcmp(PQgetvalue(res, 0, 0), "false") == 0) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "token add: a live token of this user has that name");
        st = HSC_EEXISTS;
    }
    else if (strcmp(PQgetvalue(res, 0, 0), "true") != 0) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "token add: unexpected answer");
        st = HSC_ESTORE;
    }
    PQclear(res);
    return st;
}

hsc_status_t hsc_pg_token_list(hsc_store_t *s, const char *user,
                               hsc_tokens_each_fn *fn, void *baton)
{
    const char *v[1] = {user};
    PGresult *res;
    hsc_token_t t;
    hsc_status_t st;
    int i;

    /* A list never carries the secret's hash: zeros in its place. One
     * user's through hsc_tokens_of (the httpd role may), everyone's from
     * the table (the admin role). */
    st = exec(s, "token list",
              user != NULL
                  ? "SELECT id, username, name, scopes, " ZERO_HASH
                    ", created, expires, revoked FROM hsc_tokens_of($1) "
                    "ORDER BY created, id"
                  : "SELECT id, username, name, scopes, " ZERO_HASH
                    ", created, expires, revoked FROM hsc_tokens "
                    "ORDER BY username, created, id",
              user != NULL ? 1 : 0, v, NULL, NULL, 0, &res);
    if (st != HSC_OK) {
        return st;
    }
    for (i = 0; i < PQntuples(res); ++i) {
        if ((st = row_to_token(s, res, i, &t)) != HSC_OK || fn(baton, &t)) {
            break;
        }
    }
    PQclear(res);
    hsc_wipe(&t, sizeof(t));
    return st;
}

/* One id through hsc_token_revoke (schema version 6: the httpd role may);
 * all of a user's on the table (the admin role). */
hsc_status_t hsc_pg_token_revoke(hsc_store_t *s, const char *user,
                                 const char *id, int64_t now, int *count)
{
    char when[24];
    const char *v[3] = {when, user, id};
    PGresult *res;
    hsc_status_t st;

    snprintf(when, sizeof(when), "%" PRId64, now);
    if (id != NULL) {
        st = exec(s, "token revoke",
                  "SELECT FROM hsc_token_revoke($2, $3, $1::bigint) AS r "
                  "WHERE r",
                  3, v, NULL, NULL, 1, &res);
        if (st == HSC_OK) {
            *count = PQntuples(res);
        }
    }
    else {
        st = exec(s, "token revoke",
                  "UPDATE hsc_tokens SET revoked = greatest($1::bigint, 1) "
                  "WHERE username = $2 AND revoked = 0",
                  2, v, NULL, NULL, 1, &res);
        if (st == HSC_OK) {
            *count = atoi(PQcmdTuples(res));
        }
    }
    if (st != HSC_OK) {
        return st;
    }
    PQclear(res);
    if (id != NULL && *count == 0) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "token revoke: no live token %s of this user", id);
        return HSC_ENOUSER;
    }
    return HSC_OK;
}
