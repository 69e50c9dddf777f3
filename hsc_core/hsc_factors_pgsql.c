/*
 * hsc_factors_pgsql.c: second factors and one-time links in a PostgreSQL
 * user database (hsc_factors.h; schema version 4,
 * hsc_core/sql/pgsql/004-factors.sql).
 *
 * What a web server does goes through the SECURITY DEFINER functions of
 * the schema, one statement each, so that the httpd role needs no right
 * on the tables and every write that must happen once (a TOTP step, a
 * recovery code, a link) is one atomic statement on the one database all
 * nodes share. What only an administrator does (an active enrolment, a
 * link, the list, a reseal) is plain SQL that needs the owner's rights.
 * Links expire by the database's clock: the functions take no "now".
 *
 * Statements run on the store handle's connections (hsc_store_pgsql_exec:
 * its pool, its timeouts, its messages without secrets).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "hsc_factors_backend.h"
#include "hsc_store_pgsql.h"

typedef struct {
    struct hsc_factors base; /* first: the handle callers hold */
    hsc_store_t *s;
    int own; /* close s with the factors */
} pq_factors_t;

#define PQF(f) ((pq_factors_t *)(f))

/* Run sql; on failure errmsg from the store. */
static hsc_status_t exec(hsc_factors_t *f, const char *what, const char *sql,
                         int n, const char *const *v, const int *l,
                         const int *fmt, int write, PGresult **res)
{
    hsc_status_t st;

    if (write && f->readonly) {
        hsc_factors_msgf(f, "%s: the factors were opened read-only", what);
        return HSC_EREADONLY;
    }
    st = hsc_store_pgsql_exec(PQF(f)->s, what, sql, n, v, l, fmt, write, res);
    if (st != HSC_OK) {
        hsc_factors_msgf(f, "%s", hsc_store_errmsg(PQF(f)->s));
    }
    return st;
}

/* A statement whose answer is "did it happen": HSC_OK when it returned or
 * changed a row, else `none`. */
static hsc_status_t exec_once(hsc_factors_t *f, const char *what,
                              const char *sql, int n, const char *const *v,
                              const int *l, const int *fmt, hsc_status_t none)
{
    PGresult *res;
    hsc_status_t st = exec(f, what, sql, n, v, l, fmt, 1, &res);

    if (st == HSC_OK) {
        st = atol(PQcmdTuples(res)) >= 1 ? HSC_OK : none;
    }
    PQclear(res);
    return st;
}

/* Binary integers of a result (network order). */
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

/* A text column into buf (NUL-terminated); 0 when NULL or too long. */
static int text_col(const PGresult *res, int row, int col, char *buf,
                    size_t cap)
{
    int n = PQgetlength(res, row, col);

    if (PQgetisnull(res, row, col) || n <= 0 || (size_t)n >= cap) {
        return 0;
    }
    memcpy(buf, PQgetvalue(res, row, col), (size_t)n);
    buf[n] = '\0';
    return 1;
}

static hsc_status_t pq_get(hsc_factors_t *f, const char *user,
                           hsc_factor_info_t *out)
{
    const char *v[1] = {user};
    char alg[16];
    PGresult *res;
    hsc_status_t st;
    int n;

    st = exec(f, "reading the factors",
              "SELECT sealed, alg, digits, period, active, created, "
              "recovery_left FROM hsc_factors_of($1)",
              1, v, NULL, NULL, 0, &res);
    if (st != HSC_OK) {
        return st;
    }
    if (PQntuples(res) != 1 || PQnfields(res) != 7) {
        PQclear(res);
        hsc_factors_msgf(f, "reading the factors: an unexpected answer");
        return HSC_ESTORE;
    }
    out->recovery_left = (int)be_int(res, 0, 6);
    if (!PQgetisnull(res, 0, 0)) {
        n = PQgetlength(res, 0, 0);
        out->params.digits = (unsigned)be_int(res, 0, 2);
        out->params.period = (unsigned)be_int(res, 0, 3);
        if (n <= 0 || n > HSC_TOTP_SEALED_MAX
            || !text_col(res, 0, 1, alg, sizeof(alg))
            || hsc_totp_alg_parse(alg, &out->params.alg) != HSC_OK
            || !hsc_totp_params_valid(&out->params)) {
            PQclear(res);
            memset(out, 0, sizeof(*out));
            hsc_factors_msgf(f, "the TOTP enrolment of this user is malformed");
            return HSC_ESTORE;
        }
        memcpy(out->sealed, PQgetvalue(res, 0, 0), (size_t)n);
        out->sealed_len = (size_t)n;
        out->totp = PQgetvalue(res, 0, 4)[0] ? HSC_TOTP_ACTIVE
                                             : HSC_TOTP_ENROLLING;
        out->totp_created = be_int(res, 0, 5);
    }
    /* The secret's copy in libpq's memory goes with the result. */
    memset(PQgetvalue(res, 0, 0), 0, (size_t)PQgetlength(res, 0, 0));
    PQclear(res);
    return HSC_OK;
}

static hsc_status_t pq_totp_enrol(hsc_factors_t *f, const char *user,
                                  const unsigned char *sealed, size_t len,
                                  const hsc_totp_params_t *p, int active,
                                  int64_t now)
{
    char digits[8], period[8], when[24];
    const char *v[6] = {user,
                        (const char *)sealed,
                        hsc_totp_alg_name(p->alg),
                        digits,
                        period,
                        when};
    int l[6] = {0, (int)len, 0, 0, 0, 0};
    int fmt[6] = {0, 1, 0, 0, 0, 0};
    hsc_status_t st;

    snprintf(digits, sizeof(digits), "%u", p->digits);
    snprintf(period, sizeof(period), "%u", p->period);
    snprintf(when, sizeof(when), "%lld", (long long)now);
    if (!active) {
        /* The web server's way: inactive, never over an active one. */
        PGresult *res;

        st = exec(f, "enrolling TOTP",
                  "SELECT hsc_totp_begin($1, $2, $3, $4::integer, "
                  "$5::integer)",
                  5, v, l, fmt, 1, &res);
        if (st == HSC_OK && PQntuples(res) == 1) {
            st = PQgetisnull(res, 0, 0)     ? HSC_ENOUSER
                 : PQgetvalue(res, 0, 0)[0] ? HSC_OK
                                            : HSC_EEXISTS;
        }
        PQclear(res);
        if (st == HSC_EEXISTS) {
            hsc_factors_msgf(f, "enrolling TOTP: an authenticator app is on "
                                "already");
        }
        return st;
    }
    /* hsc-admin: active at once, replacing any. */
    return exec_once(f, "enrolling TOTP",
                     "INSERT INTO hsc_totp (username, sealed, alg, digits, "
                     "period, active, created) SELECT username, $2, $3, "
                     "$4::integer, $5::integer, true, $6::bigint FROM "
                     "hsc_users WHERE username = $1 ON CONFLICT (username) DO "
                     "UPDATE SET sealed = excluded.sealed, alg = excluded.alg, "
                     "digits = excluded.digits, period = excluded.period, "
                     "active = true, created = excluded.created",
                     6, v, l, fmt, HSC_ENOUSER);
}

static hsc_status_t pq_totp_activate(hsc_factors_t *f, const char *user)
{
    const char *v[1] = {user};

    return exec_once(f, "activating TOTP",
                     "SELECT FROM hsc_totp_confirm($1) AS r WHERE r", 1, v,
                     NULL, NULL, HSC_ENOUSER);
}

static hsc_status_t pq_totp_remove(hsc_factors_t *f, const char *user)
{
    const char *v[1] = {user};

    return exec_once(f, "removing TOTP",
                     "SELECT FROM hsc_totp_remove($1) AS r WHERE r", 1, v, NULL,
                     NULL, HSC_ENOUSER);
}

static hsc_status_t pq_totp_accept(hsc_factors_t *f, const char *user,
                                   int64_t step_at)
{
    char at[24];
    const char *v[2] = {user, at};

    snprintf(at, sizeof(at), "%lld", (long long)step_at);
    /* One statement: of two nodes with the same code, one row changes. */
    return exec_once(f, "accepting a TOTP code",
                     "SELECT FROM hsc_totp_accept($1, $2::bigint) AS r "
                     "WHERE r",
                     2, v, NULL, NULL, HSC_EAUTH);
}

/*
 * Append one element to the text of an array literal in *buf ({"a","b"}),
 * quoted: text with its quotes and backslashes escaped, bytea as
 * "\\x<hex>". Room is kept for the closing "}" and NUL (arr_end). 0 when
 * out of memory.
 */
static int arr_add(char **buf, size_t *len, size_t *cap, const void *v,
                   size_t n, int bytea)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = v;
    size_t need = *len + 2 * n + 8, i;
    char *p;

    if (need > *cap) {
        char *more = realloc(*buf, 2 * need);
        if (more == NULL) {
            return 0;
        }
        *buf = more;
        *cap = 2 * need;
    }
    p = *buf + *len;
    *p++ = *len == 0 ? '{' : ',';
    *p++ = '"';
    if (bytea) {
        memcpy(p, "\\\\x", 3);
        p += 3;
    }
    for (i = 0; i < n; ++i) {
        if (bytea) {
            *p++ = hex[s[i] >> 4];
            *p++ = hex[s[i] & 15];
            continue;
        }
        if (s[i] == '"' || s[i] == '\\') {
            *p++ = '\\';
        }
        *p++ = (char)s[i];
    }
    *p++ = '"';
    *len = (size_t)(p - *buf);
    return 1;
}

/* Close the literal ("{}" when empty); its text, or NULL. */
static const char *arr_end(char **buf, size_t *len, size_t *cap)
{
    if (*buf == NULL && (*buf = malloc(*cap = 3)) != NULL) {
        (*buf)[(*len)++] = '{';
    }
    if (*buf != NULL) {
        (*buf)[(*len)++] = '}';
        (*buf)[*len] = '\0';
    }
    return *buf;
}

static hsc_status_t
pq_recovery_set(hsc_factors_t *f, const char *user,
                const unsigned char (*hashes)[HSC_RECOVERY_HASH_LEN], size_t n,
                int64_t now)
{
    char *arr = NULL;
    size_t len = 0, cap = 0, i;
    const char *v[2] = {user, NULL};
    hsc_status_t st;

    (void)now; /* the database's clock */
    for (i = 0; i < n; ++i) {
        if (!arr_add(&arr, &len, &cap, hashes[i], HSC_RECOVERY_HASH_LEN, 1)) {
            free(arr);
            return HSC_ENOMEM;
        }
    }
    if ((v[1] = arr_end(&arr, &len, &cap)) == NULL) {
        return HSC_ENOMEM;
    }
    st = exec_once(f, "replacing the recovery codes",
                   "SELECT FROM hsc_recovery_replace($1, $2::bytea[]) AS r "
                   "WHERE r IS NOT NULL",
                   2, v, NULL, NULL, HSC_ENOUSER);
    free(arr);
    return st;
}

static hsc_status_t
pq_recovery_use(hsc_factors_t *f, const char *user,
                const unsigned char hash[HSC_RECOVERY_HASH_LEN])
{
    const char *v[2] = {user, (const char *)hash};
    int l[2] = {0, HSC_RECOVERY_HASH_LEN}, fmt[2] = {0, 1};

    return exec_once(f, "using a recovery code",
                     "SELECT FROM hsc_recovery_use($1, $2) AS r WHERE r", 2, v,
                     l, fmt, HSC_EAUTH);
}

/*
 * Read every enrolment, reseal each in C, and write them back in one
 * statement that changes only the rows still as they were read: atomic,
 * and a secret changed meanwhile (a new enrolment) is left as it is.
 */
static hsc_status_t pq_totp_reseal(hsc_factors_t *f, hsc_factors_reseal_fn *fn,
                                   void *baton, int *resealed, int *unopened)
{
    unsigned char out[HSC_TOTP_SEALED_MAX];
    char *arr[3] = {NULL, NULL, NULL};
    size_t len[3] = {0, 0, 0}, cap[3] = {0, 0, 0}, outlen;
    char user[HSC_USER_MAX + 1];
    PGresult *res = NULL, *upd = NULL;
    hsc_status_t st;
    int i, rows, k;

    st = exec(f, "resealing", "SELECT username, sealed FROM hsc_totp", 0, NULL,
              NULL, NULL, 1, &res);
    rows = st == HSC_OK ? PQntuples(res) : 0;
    for (i = 0; st == HSC_OK && i < rows; ++i) {
        int n = PQgetlength(res, i, 1);
        const unsigned char *sealed = (const unsigned char *)PQgetvalue(res, i,
                                                                        1);

        if (!text_col(res, i, 0, user, sizeof(user)) || n <= 0
            || n > HSC_TOTP_SEALED_MAX) {
            hsc_factors_msgf(f, "a TOTP enrolment is malformed");
            st = HSC_ESTORE;
            break;
        }
        st = fn(baton, user, sealed, (size_t)n, out, sizeof(out), &outlen);
        if (st == HSC_EAUTH) {
            ++*unopened;
            st = HSC_OK;
            continue;
        }
        if (st != HSC_OK) {
            hsc_factors_msgf(f, "cannot reseal the secret of %s: %s", user,
                             hsc_strerror(st));
            break;
        }
        if (!arr_add(&arr[0], &len[0], &cap[0], user, strlen(user), 0)
            || !arr_add(&arr[1], &len[1], &cap[1], (const char *)sealed,
                        (size_t)n, 1)
            || !arr_add(&arr[2], &len[2], &cap[2], (const char *)out, outlen,
                        1)) {
            st = HSC_ENOMEM;
        }
    }
    hsc_wipe(out, sizeof(out));
    if (st == HSC_OK && arr[0] != NULL) {
        const char *v[3];

        for (k = 0; k < 3; ++k) {
            v[k] = arr_end(&arr[k], &len[k], &cap[k]);
        }
        st = exec(f, "resealing",
                  "UPDATE hsc_totp t SET sealed = r.fresh FROM unnest("
                  "$1::text[], $2::bytea[], $3::bytea[]) AS r(who, old, fresh) "
                  "WHERE t.username = r.who AND t.sealed = r.old",
                  3, v, NULL, NULL, 1, &upd);
        if (st == HSC_OK) {
            *resealed = atoi(PQcmdTuples(upd));
        }
    }
    for (k = 0; k < 3; ++k) {
        if (arr[k] != NULL) {
            hsc_wipe(arr[k], cap[k]);
            free(arr[k]);
        }
    }
    PQclear(upd);
    PQclear(res);
    return st;
}

static hsc_status_t pq_link_put(hsc_factors_t *f, const char *user,
                                hsc_link_purpose_t purpose,
                                const unsigned char hash[HSC_LINK_HASH_LEN],
                                int64_t expires, int64_t now)
{
    char ex[24], cr[24];
    const char *v[5] = {user, (const char *)hash,
                        hsc_link_purpose_name(purpose), ex, cr};
    int l[5] = {0, HSC_LINK_HASH_LEN, 0, 0, 0}, fmt[5] = {0, 1, 0, 0, 0};

    snprintf(ex, sizeof(ex), "%lld", (long long)expires);
    snprintf(cr, sizeof(cr), "%lld", (long long)now);
    /* A new link replaces the user's earlier one of the same purpose. */
    return exec_once(f, "storing a link",
                     "INSERT INTO hsc_links (token_hash, username, purpose, "
                     "expires, created) SELECT $2, username, $3, $4::bigint, "
                     "$5::bigint FROM hsc_users WHERE username = $1 "
                     "ON CONFLICT (username, purpose) DO UPDATE SET "
                     "token_hash = excluded.token_hash, expires = "
                     "excluded.expires, created = excluded.created",
                     5, v, l, fmt, HSC_ENOUSER);
}

/* The user named in the first column of a one-row answer into user. */
static hsc_status_t user_answer(hsc_status_t st, PGresult *res, char *user)
{
    if (st == HSC_OK
        && (PQntuples(res) != 1
            || !text_col(res, 0, 0, user, HSC_USER_MAX + 1))) {
        user[0] = '\0';
        st = HSC_EAUTH;
    }
    PQclear(res);
    return st;
}

static hsc_status_t pq_link_peek(hsc_factors_t *f,
                                 const unsigned char hash[HSC_LINK_HASH_LEN],
                                 int64_t now, hsc_link_purpose_t *purpose,
                                 char *user)
{
    const char *v[1] = {(const char *)hash};
    int l[1] = {HSC_LINK_HASH_LEN}, fmt[1] = {1};
    char p[16];
    PGresult *res;
    hsc_status_t st;

    (void)now; /* the database's clock */
    st = exec(f, "reading a link",
              "SELECT username, purpose FROM hsc_link_peek($1)", 1, v, l, fmt,
              0, &res);
    if (st == HSC_OK
        && (PQntuples(res) != 1 || !text_col(res, 0, 1, p, sizeof(p))
            || hsc_link_purpose_parse(p, purpose) != HSC_OK)) {
        PQclear(res);
        return HSC_EAUTH;
    }
    return user_answer(st, res, user);
}

static hsc_status_t pq_link_take(hsc_factors_t *f,
                                 const unsigned char hash[HSC_LINK_HASH_LEN],
                                 hsc_link_purpose_t purpose, int64_t now,
                                 char *user)
{
    const char *v[2] = {(const char *)hash, hsc_link_purpose_name(purpose)};
    int l[2] = {HSC_LINK_HASH_LEN, 0}, fmt[2] = {1, 0};
    PGresult *res;
    hsc_status_t st;

    (void)now;
    st = exec(f, "using a link",
              "SELECT u FROM hsc_link_take($1, $2) AS u WHERE u IS NOT NULL", 2,
              v, l, fmt, 1, &res);
    return user_answer(st, res, user);
}

static hsc_status_t
pq_link_password(hsc_factors_t *f, const unsigned char hash[HSC_LINK_HASH_LEN],
                 hsc_link_purpose_t purpose, int64_t now, const hsc_user_t *nu,
                 char *user)
{
    char spec[HSC_KDF_SPEC_MAX];
    const char *v[5] = {(const char *)hash, hsc_link_purpose_name(purpose),
                        (const char *)nu->salt, spec,
                        (const char *)nu->authenticator};
    int l[5] = {HSC_LINK_HASH_LEN, 0, HSC_SALT_LEN, 0, HSC_AUTH_LEN};
    int fmt[5] = {1, 0, 1, 0, 1};
    PGresult *res;
    hsc_status_t st;

    (void)now;
    hsc_kdf_format(&nu->kdf, spec, sizeof(spec));
    st = exec(f, "setting a password by a link",
              "SELECT u FROM hsc_link_password($1, $2, $3, $4, $5) AS u "
              "WHERE u IS NOT NULL",
              5, v, l, fmt, 1, &res);
    return user_answer(st, res, user);
}

static hsc_status_t pq_link_list(hsc_factors_t *f, hsc_factors_link_fn *fn,
                                 void *baton)
{
    char user[HSC_USER_MAX + 1], p[16];
    hsc_link_purpose_t purpose;
    PGresult *res;
    hsc_status_t st;
    int i;

    st = exec(f, "listing the links",
              "SELECT username, purpose, expires, created FROM hsc_links "
              "ORDER BY username, purpose",
              0, NULL, NULL, NULL, 0, &res);
    for (i = 0; st == HSC_OK && i < PQntuples(res); ++i) {
        if (text_col(res, i, 0, user, sizeof(user))
            && text_col(res, i, 1, p, sizeof(p))
            && hsc_link_purpose_parse(p, &purpose) == HSC_OK
            && fn(baton, user, purpose, be_int(res, i, 2), be_int(res, i, 3))
                   != 0) {
            break;
        }
    }
    PQclear(res);
    return st;
}

static hsc_status_t pq_link_revoke(hsc_factors_t *f, const char *user, int all,
                                   hsc_link_purpose_t purpose, int *count)
{
    const char *v[2] = {user, all ? NULL : hsc_link_purpose_name(purpose)};
    PGresult *res;
    hsc_status_t st;

    st = exec(f, "deleting links",
              "DELETE FROM hsc_links WHERE username = $1 "
              "AND ($2::text IS NULL OR purpose = $2)",
              2, v, NULL, NULL, 1, &res);
    if (st == HSC_OK) {
        *count = atoi(PQcmdTuples(res));
    }
    PQclear(res);
    return st;
}

static void pq_close(hsc_factors_t *f)
{
    if (PQF(f)->own) {
        hsc_store_close(PQF(f)->s);
    }
    free(f);
}

static const hsc_factors_vtable_t pq_vtable = {
    .get = pq_get,
    .totp_enrol = pq_totp_enrol,
    .totp_activate = pq_totp_activate,
    .totp_remove = pq_totp_remove,
    .totp_accept = pq_totp_accept,
    .recovery_set = pq_recovery_set,
    .recovery_use = pq_recovery_use,
    .totp_reseal = pq_totp_reseal,
    .link_put = pq_link_put,
    .link_peek = pq_link_peek,
    .link_take = pq_link_take,
    .link_password = pq_link_password,
    .link_list = pq_link_list,
    .link_revoke = pq_link_revoke,
    .close = pq_close,
    .passkey_add = hsc_pq_passkey_add,
    .passkey_add_link = hsc_pq_passkey_add_link,
    .passkey_list = hsc_pq_passkey_list,
    .passkey_get = hsc_pq_passkey_get,
    .passkey_accept = hsc_pq_passkey_accept,
    .passkey_rename = hsc_pq_passkey_rename,
    .passkey_remove = hsc_pq_passkey_remove,
    .passkey_handle = hsc_pq_passkey_handle,
    .passkey_seals = hsc_pq_passkey_seals,
    .passkey_require_seal = hsc_pq_passkey_require_seal,
};

hsc_store_t *hsc_pq_factors_store(hsc_factors_t *f)
{
    return PQF(f)->s;
}

hsc_status_t hsc_factors_pgsql_open(hsc_store_t *s, int own, int readonly,
                                    hsc_factors_t **out)
{
    pq_factors_t *f;

    *out = NULL;
    if (s == NULL) {
        return HSC_EINVAL;
    }
    if ((f = calloc(1, sizeof(*f))) == NULL) {
        return HSC_ENOMEM;
    }
    f->base.vt = &pq_vtable;
    f->base.readonly = readonly;
    f->s = s;
    f->own = own;
    *out = &f->base;
    return HSC_OK;
}
