/*
 * bench_users.c: the benchmarks' bulk path to many users (not installed,
 * not part of make check).
 *
 *   bench_users DB KEYFILE N COOKIES [COOKIES2]
 *
 * Adds users b0000000 .. b(N-1) to the user table of DB (made with
 * hsc-admin init) in one transaction, written directly with SQLite, each
 * with a cheap KDF (sha256-chain:1: the benchmarks measure verification,
 * which costs the same whatever the KDF) and groups "staff"; then writes
 * to COOKIES one line per user, "hsc=<cookie>", minted with the key
 * file's signing key for scope "" and no address binding, valid for a day.
 * A million users take about ten seconds. Going through hsc-admin add
 * would cost one transaction (one fsync) and one KDF per user.
 *
 * HSC_BENCH_AMR=N (environment) mints format 2 cookies with amr N (3:
 * pwd|otp, a second factor done at login) instead of format 1, to
 * compare what verifying each format costs. With COOKIES2, that file gets
 * a format 2 cookie (amr pwd|otp) for each of the same users besides, so
 * that one run can measure both formats side by side.
 *
 * HSC_BENCH_SEALED=FILE (environment) adds N more users, s0000000 ..
 * s(N-1), each with three passkey seal hashes in its row (two of other
 * passkeys, then SHA-256(z) of its own z), and writes to FILE one sealed
 * format 2 cookie a user (amr pwd|hwk|uv|seal, auth x_n || z), for the
 * sealed row of bench/callgrind-rows.sh; the b users keep no seals.
 *
 * HSC_BENCH_TOKENS=PREFIX (environment) gives each user an app password
 * besides (the table hsc_tokens, schema 5) and writes PREFIX.bearer and
 * PREFIX.basic, one "Authorization: ..." line per user, for the token
 * rows of bench/callgrind-rows.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <apr_base64.h>
#include <apr_general.h>
#include <apr_pools.h>
#include <sqlite3.h>

#include "hsc_cookie.h"
#include "hsc_kdf.h"
#include "hsc_keys.h"
#include "hsc_token.h"

#define KDF "sha256-chain:1"

/* A day's cookie for name: format 1, or format 2 with amr (a decimal);
 * z when amr has seal. */
static hsc_status_t mint(const hsc_key_t *key, const char *name, int64_t now,
                         const unsigned char xn[HSC_XN_LEN], const char *amr,
                         const unsigned char *z, char *out, size_t cap,
                         size_t *len)
{
    unsigned char lid[HSC_LID_LEN] = {0};
    hsc_claims_t cl;

    if (amr == NULL || *amr == '\0') {
        return hsc_cookie_mint(key, name, strlen(name), now, now + 86400, xn,
                               "", "", out, cap, len);
    }
    memset(&cl, 0, sizeof(cl));
    memcpy(lid, name, strlen(name) < sizeof(lid) ? strlen(name) : sizeof(lid));
    cl.user = name;
    cl.user_len = strlen(name);
    cl.iat = now;
    cl.exp = now + 86400;
    cl.gen = 0;
    cl.lid = lid;
    cl.amr = (unsigned)strtoul(amr, NULL, 10);
    cl.mfa_at = (cl.amr & HSC_AMR_FACTOR) ? now : 0;
    cl.xn = xn;
    cl.z = z;
    return hsc_cookie_mint2(key, &cl, "", "", out, cap, len);
}

/* The sealed twin of user i: s<i> with three seal hashes, its cookie a
 * line of out. */
static int add_sealed(sqlite3_stmt *ins3, const hsc_key_t *key, long i,
                      const hsc_kdf_t *kdf, int64_t now, FILE *out)
{
    char name[24], pw[24], cookie[HSC_COOKIE_MAX + 1];
    unsigned char salt[HSC_SALT_LEN], xn[HSC_XN_LEN], v[HSC_AUTH_LEN];
    unsigned char z[HSC_SEAL_LEN], seals[3 * 32];
    size_t clen;

    snprintf(name, sizeof(name), "s%07ld", i);
    snprintf(pw, sizeof(pw), "pw-%ld", i);
    memset(salt, 0, sizeof(salt));
    memcpy(salt, &i, sizeof(i));
    memset(z, 0x5a, sizeof(z));
    memcpy(z, &i, sizeof(i));
    memset(seals, 0x11, 32);      /* another passkey's */
    memset(seals + 32, 0x22, 32); /* and another's */
    if (hsc_kdf_derive(kdf, pw, strlen(pw), salt, xn) != HSC_OK
        || hsc_authenticator(xn, v) != HSC_OK
        || hsc_authenticator(z, seals + 64) != HSC_OK /* SHA-256(z) */
        || mint(key, name, now, xn, "45", z, cookie, sizeof(cookie), &clen)
               != HSC_OK) {
        return 0;
    }
    sqlite3_bind_text(ins3, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_blob(ins3, 2, salt, sizeof(salt), SQLITE_STATIC);
    sqlite3_bind_blob(ins3, 3, v, sizeof(v), SQLITE_STATIC);
    sqlite3_bind_int64(ins3, 4, now);
    sqlite3_bind_blob(ins3, 5, seals, sizeof(seals), SQLITE_STATIC);
    if (sqlite3_step(ins3) != SQLITE_DONE) {
        return 0;
    }
    sqlite3_reset(ins3);
    fprintf(out, "hsc=%s\n", cookie);
    return 1;
}

/* A token of user name into the table (ins2) and its two header lines. */
static int add_token(sqlite3_stmt *ins2, const char *name, int64_t now,
                     FILE *bearer, FILE *basic)
{
    char text[HSC_TOKEN_TEXT_LEN + 1], id[HSC_TOKEN_ID_LEN + 1];
    char pair[64 + HSC_TOKEN_TEXT_LEN], b64[256];
    unsigned char hash[HSC_TOKEN_HASH_LEN];

    if (hsc_token_new(text, id, hash) != HSC_OK) {
        return 0;
    }
    sqlite3_bind_text(ins2, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(ins2, 2, name, -1, SQLITE_STATIC);
    sqlite3_bind_blob(ins2, 3, hash, sizeof(hash), SQLITE_STATIC);
    sqlite3_bind_int64(ins2, 4, now);
    if (sqlite3_step(ins2) != SQLITE_DONE) {
        return 0;
    }
    sqlite3_reset(ins2);
    snprintf(pair, sizeof(pair), "%s:%s", name, text);
    apr_base64_encode(b64, pair, (int)strlen(pair));
    fprintf(bearer, "Authorization: Bearer %s\n", text);
    fprintf(basic, "Authorization: Basic %s\n", b64);
    return 1;
}

int main(int argc, char **argv)
{
    const char *tokens = getenv("HSC_BENCH_TOKENS");
    const char *sealed = getenv("HSC_BENCH_SEALED");
    sqlite3_stmt *ins2 = NULL, *ins3 = NULL;
    FILE *out3 = NULL;
    FILE *bearer = NULL, *basic = NULL;
    apr_pool_t *pool = NULL;
    hsc_keyring_t *ring = NULL;
    const char *msg = NULL;
    sqlite3 *db = NULL;
    sqlite3_stmt *ins = NULL;
    FILE *out = NULL, *out2 = NULL;
    hsc_kdf_t kdf;
    long n, i;
    int64_t now = (int64_t)time(NULL);
    const char *amr = getenv("HSC_BENCH_AMR");
    int rc = 1;

    if ((argc != 5 && argc != 6) || (n = strtol(argv[3], NULL, 10)) <= 0
        || n > 10000000) {
        fprintf(stderr, "usage: bench_users DB KEYFILE N COOKIES [COOKIES2] "
                        "(N from 1 to 10,000,000)\n");
        return 2;
    }
    if (apr_initialize() != APR_SUCCESS
        || apr_pool_create(&pool, NULL) != APR_SUCCESS
        || hsc_keyring_load(pool, argv[2], &ring, &msg) != HSC_OK) {
        fprintf(stderr, "bench_users: %s\n", msg ? msg : "cannot start");
        return 1;
    }
    hsc_kdf_parse(KDF, &kdf);
    if (sqlite3_open(argv[1], &db) != SQLITE_OK
        || sqlite3_busy_timeout(db, 10000) != SQLITE_OK
        || sqlite3_exec(db, "PRAGMA synchronous = OFF; BEGIN", NULL, NULL, NULL)
               != SQLITE_OK
        || sqlite3_prepare_v2(db,
                              "INSERT INTO hsc_users (username, salt, kdf, "
                              "authenticator, groups, disabled, "
                              "revoked_before, created, updated) VALUES "
                              "(?1, ?2, '" KDF "', ?3, 'staff', 0, 0, ?4, ?4)",
                              -1, &ins, NULL)
               != SQLITE_OK) {
        fprintf(stderr, "bench_users: %s: %s\n", argv[1], sqlite3_errmsg(db));
        goto done;
    }
    if (tokens != NULL) {
        char path[4096];

        snprintf(path, sizeof(path), "%s.bearer", tokens);
        bearer = fopen(path, "w");
        snprintf(path, sizeof(path), "%s.basic", tokens);
        basic = fopen(path, "w");
        if (bearer == NULL || basic == NULL
            || sqlite3_prepare_v2(db,
                                  "INSERT INTO hsc_tokens (id, username, "
                                  "name, secret_hash, scopes, created) "
                                  "VALUES (?1, ?2, 'bench', ?3, 'api', ?4)",
                                  -1, &ins2, NULL)
                   != SQLITE_OK) {
            fprintf(stderr, "bench_users: tokens: %s\n", sqlite3_errmsg(db));
            goto done;
        }
    }
    if (sealed != NULL
        && ((out3 = fopen(sealed, "w")) == NULL
            || sqlite3_prepare_v2(db,
                                  "INSERT INTO hsc_users (username, salt, kdf, "
                                  "authenticator, groups, disabled, "
                                  "revoked_before, created, updated, "
                                  "passkey_seals) VALUES (?1, ?2, '" KDF
                                  "', ?3, 'staff', 0, 0, ?4, ?4, ?5)",
                                  -1, &ins3, NULL)
                   != SQLITE_OK)) {
        fprintf(stderr, "bench_users: sealed: %s\n", sqlite3_errmsg(db));
        goto done;
    }
    if ((out = fopen(argv[4], "w")) == NULL) {
        perror(argv[4]);
        goto done;
    }
    if (argc == 6 && (out2 = fopen(argv[5], "w")) == NULL) {
        perror(argv[5]);
        goto done;
    }
    for (i = 0; i < n; i++) {
        char name[16], pw[24], cookie[HSC_COOKIE_MAX + 1];
        unsigned char salt[HSC_SALT_LEN], xn[HSC_XN_LEN], v[HSC_AUTH_LEN];
        size_t clen;

        snprintf(name, sizeof(name), "b%07ld", i);
        snprintf(pw, sizeof(pw), "pw-%ld", i);
        memset(salt, 0, sizeof(salt));
        memcpy(salt, &i, sizeof(i));
        if (hsc_kdf_derive(&kdf, pw, strlen(pw), salt, xn) != HSC_OK
            || hsc_authenticator(xn, v) != HSC_OK
            || mint(hsc_keyring_signer(ring), name, now, xn, amr, NULL, cookie,
                    sizeof(cookie), &clen)
                   != HSC_OK) {
            fprintf(stderr, "bench_users: cannot make %s\n", name);
            goto done;
        }
        sqlite3_bind_text(ins, 1, name, -1, SQLITE_STATIC);
        sqlite3_bind_blob(ins, 2, salt, sizeof(salt), SQLITE_STATIC);
        sqlite3_bind_blob(ins, 3, v, sizeof(v), SQLITE_STATIC);
        sqlite3_bind_int64(ins, 4, now);
        if (sqlite3_step(ins) != SQLITE_DONE) {
            fprintf(stderr, "bench_users: %s: %s\n", name, sqlite3_errmsg(db));
            goto done;
        }
        sqlite3_reset(ins);
        if (ins2 != NULL && !add_token(ins2, name, now, bearer, basic)) {
            fprintf(stderr, "bench_users: token of %s: %s\n", name,
                    sqlite3_errmsg(db));
            goto done;
        }
        fprintf(out, "hsc=%s\n", cookie);
        if (out2 != NULL) {
            if (mint(hsc_keyring_signer(ring), name, now, xn, "3", NULL, cookie,
                     sizeof(cookie), &clen)
                != HSC_OK) {
                fprintf(stderr, "bench_users: cannot make %s\n", name);
                goto done;
            }
            fprintf(out2, "hsc=%s\n", cookie);
        }
    }
    for (i = 0; ins3 != NULL && i < n; i++) {
        if (!add_sealed(ins3, hsc_keyring_signer(ring), i, &kdf, now, out3)) {
            fprintf(stderr, "bench_users: sealed user %ld: %s\n", i,
                    sqlite3_errmsg(db));
            goto done;
        }
    }
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(stderr, "bench_users: commit: %s\n", sqlite3_errmsg(db));
        goto done;
    }
    rc = 0;

done:
    if (out != NULL && fclose(out) != 0) {
        rc = 1;
    }
    if (out2 != NULL && fclose(out2) != 0) {
        rc = 1;
    }
    if (out3 != NULL && fclose(out3) != 0) {
        rc = 1;
    }
    if (bearer != NULL && fclose(bearer) != 0) {
        rc = 1;
    }
    if (basic != NULL && fclose(basic) != 0) {
        rc = 1;
    }
    sqlite3_finalize(ins);
    sqlite3_finalize(ins2);
    sqlite3_finalize(ins3);
    sqlite3_close(db);
    apr_pool_destroy(pool);
    apr_terminate();
    return rc;
}
