/*
 * test_vectors_v2.c: every block of test/vectors/vectors-v2.txt (format 2,
 * computed independently by test/vectors/gen-vectors-v2.py) against the
 * core.
 *
 *   cookie blocks: hsc_cookie_mint2 mints exactly the value from the
 *                  block's claims; hsc_cookie_verify with the block's user
 *                  record (gen, v, seal hashes) accepts it at `now`, except
 *                  a pending cookie (accepted only where pending is
 *                  allowed); a sealed one is accepted when the record holds
 *                  seal_hash (alone, or after other_seal_hashes) and
 *                  refused at step 6 when it holds none, or only the
 *                  others
 *   refuse blocks: refused, at the step the block's "why" names (the
 *                  record holds the other seal hashes and seal_hash)
 *   totp blocks:   RFC 6238 codes: hsc_base32_decode, hsc_totp_step and
 *                  hsc_hotp give the block's counter and 6- and 8-digit
 *                  codes
 *
 * A block with a field this file does not read fails (vector_file.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>

#include "hsc_test.h"
#include "vector_file.h"
#include "hsc_b64.h"
#include "hsc_kdf.h"
#include "hsc_keys.h"
#include "hsc_cookie.h"
#include "hsc_store_sqlite.h"
#include "hsc_totp.h"

#include <sqlite3.h>

#ifndef HSC_SRCDIR
#error "HSC_SRCDIR must name the source tree"
#endif
#define HSC_VECTORS_FILE HSC_SRCDIR "/test/vectors/vectors-v2.txt"

static apr_pool_t *pool;
static int accepted, refused, totp_blocks;
static char tmpdir[256];

/* A keyring of the block's one key. */
static hsc_keyring_t *block_keys(vblock_t *b)
{
    const char *kid = vb_field(b, "kid"), *hex = vb_field(b, "secret");
    unsigned char secret[64];
    char b64[100];
    const char *line, *msg = NULL;
    hsc_keyring_t *kr = NULL;
    long n = hex ? vb_unhex(hex, secret, sizeof(secret)) : -1;

    vb_field(b, "mac_key"); /* the derivation is test_vectors.c's */
    if (kid == NULL || n < 32) {
        return NULL;
    }
    hsc_b64url_encode(secret, (size_t)n, b64);
    line = apr_pstrcat(pool, kid, " ", b64, "\n", NULL);
    return hsc_keyring_parse(pool, "vector", line, strlen(line), &kr, &msg)
                   == HSC_OK
               ? kr
               : NULL;
}

/* Set user's passkey_seals in the file at path (NULL when n is 0), as
 * the passkey store does: the cookie check reads the column. */
static int set_seals(const char *path, const char *user,
                     const unsigned char *seals, size_t n)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int ok;

    ok = sqlite3_open(path, &db) == SQLITE_OK
         && sqlite3_prepare_v2(db,
                               "UPDATE hsc_users SET passkey_seals = ?1 "
                               "WHERE username = ?2",
                               -1, &st, NULL)
                == SQLITE_OK
         && (n > 0 ? sqlite3_bind_blob(st, 1, seals, (int)n, SQLITE_STATIC)
                   : sqlite3_bind_null(st, 1))
                == SQLITE_OK
         && sqlite3_bind_text(st, 2, user, -1, SQLITE_STATIC) == SQLITE_OK
         && sqlite3_step(st) == SQLITE_DONE && sqlite3_changes(db) == 1;
    sqlite3_finalize(st);
    sqlite3_close(db);
    return ok ? 0 : -1;
}

/* A store holding the block's user with its gen and v, and n bytes of
 * seal hashes (none when n is 0). */
static hsc_store_t *block_store_seals(vblock_t *b, const char *user,
                                      const unsigned char *seals, size_t n,
                                      int variant)
{
    const char *v_hex = vb_field(b, "v"), *gen_s = vb_field(b, "gen");
    char path[512], err[256];
    hsc_store_t *s = NULL;
    hsc_user_t u;
    int64_t gen = 0;
    int64_t i;

    memset(&u, 0, sizeof(u));
    snprintf(path, sizeof(path), "%s/line%d-%d.db", tmpdir, b->line, variant);
    if (v_hex == NULL || gen_s == NULL
        || vb_unhex(v_hex, u.authenticator, HSC_AUTH_LEN) != HSC_AUTH_LEN
        || hsc_parse_time(gen_s, strlen(gen_s), &gen) != HSC_OK
        || hsc_store_sqlite_open(path, HSC_STORE_CREATE, &s, err, sizeof(err))
               != HSC_OK) {
        return NULL;
    }
    u.name = user;
    u.name_len = strlen(user);
    u.groups = "";
    (void)hsc_kdf_parse("sha256-chain:1000", &u.kdf);
    if (hsc_store_add(s, &u) != HSC_OK) {
        hsc_store_close(s);
        return NULL;
    }
    /* The record's gen: the vector's (3) for the cookie's (3, or the
     * older 2 of the revocation vector). */
    for (i = 0; i < 3; i++) {
        if (hsc_store_revoke(s, user, 1) != HSC_OK) {
            hsc_store_close(s);
            return NULL;
        }
    }
    if (set_seals(path, user, seals, n) != 0) {
        hsc_store_close(s);
        return NULL;
    }
    return s;
}

/* The seal hashes of a record: other_seal_hashes when others, then
 * seal_hash when own; into buf (room for 4 hashes). Bytes, or -1. */
static long block_seals(vblock_t *b, int others, int own, unsigned char *buf)
{
    const char *mine = vb_field(b, "seal_hash");
    const char *other = vb_field(b, "other_seal_hashes");
    long n = 0, k;

    if (others && other != NULL) {
        if ((k = vb_unhex(other, buf, 96)) != 96) {
            return -1;
        }
        n += k;
    }
    if (own) {
        if (mine == NULL || vb_unhex(mine, buf + n, 32) != 32) {
            return -1;
        }
        n += 32;
    }
    return n;
}

/* The block's record as the vectors' header says: its one credential's
 * seal hash (after the other ones, where the block has them). */
static hsc_store_t *block_store(vblock_t *b, const char *user)
{
    unsigned char seals[128];
    long n = block_seals(b, 1, 1, seals);

    return n < 0 ? NULL : block_store_seals(b, user, seals, (size_t)n, 0);
}

/* The claims of a block, into *cl (buffers in *xn, *z, *lid). */
static int block_claims(vblock_t *b, hsc_claims_t *cl, unsigned char *xn,
                        unsigned char *z, unsigned char *lid)
{
    const char *iat = vb_field(b, "iat"), *exp = vb_field(b, "exp");
    const char *gen = vb_field(b, "gen"), *lid_hex = vb_field(b, "lid");
    const char *amr = vb_field(b, "amr"), *mfa = vb_field(b, "mfa_at");
    const char *auth = vb_field(b, "auth");
    unsigned char a[64];
    long alen;

    memset(cl, 0, sizeof(*cl));
    cl->user = vb_field(b, "user");
    if (!cl->user || !iat || !exp || !gen || !lid_hex || !amr || !mfa || !auth
        || vb_unhex(lid_hex, lid, HSC_LID_LEN) != HSC_LID_LEN) {
        return -1;
    }
    cl->user_len = strlen(cl->user);
    cl->iat = atoll(iat);
    cl->exp = atoll(exp);
    cl->gen = atoll(gen);
    cl->mfa_at = atoll(mfa);
    cl->amr = (unsigned)atoi(amr); /* "45 (pwd|hwk|uv|seal)" */
    cl->lid = lid;
    alen = vb_unhex(auth, a, sizeof(a));
    if (alen >= 32 && (cl->amr & HSC_AMR_PWD)) {
        memcpy(xn, a, 32);
        cl->xn = xn;
    }
    if (cl->amr & HSC_AMR_SEAL) {
        memcpy(z, a + alen - 32, 32);
        cl->z = z;
    }
    return 0;
}

static void params(vblock_t *b, hsc_keyring_t *kr, hsc_verify_params_t *vp)
{
    const char *now = vb_field(b, "now");

    memset(vp, 0, sizeof(*vp));
    vp->keys = kr;
    vp->scope = vb_text(b, "scope");
    vp->address = vb_text(b, "address");
    vp->now = now ? atoll(now) : 0;
    vp->skew = 60;
    vp->max_age = 86400;
    vb_field(b, "mac_input_hex"); /* test_vectors.c checks M's layout */
    vb_field(b, "what");
}

/* A sealed cookie against records with other seal hashes: accepted only
 * where one of them is SHA-256(z). */
static void check_seal_records(vblock_t *b, const hsc_verify_params_t *vp,
                               const char *user, const char *value)
{
    static const struct {
        int others, own;   /* the record's hashes: the others, z's */
        hsc_status_t want; /* the verdict */
        const char *what;
    } rows[] = {
        {0, 1, HSC_OK, "the record holds SHA-256(z) alone: accepted"},
        {1, 1, HSC_OK, "SHA-256(z) after three others: accepted"},
        {0, 0, HSC_EAUTH, "no seal hash in the record: refused"},
        {1, 0, HSC_EAUTH, "only other passkeys' hashes: refused"},
    };
    unsigned char seals[128];
    char what[200];
    hsc_cookie_t c;
    hsc_user_t u;
    hsc_store_t *s;
    size_t i;
    long n;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        n = block_seals(b, rows[i].others, rows[i].own, seals);
        s = n < 0 ? NULL
                  : block_store_seals(b, user, seals, (size_t)n, 1 + (int)i);
        snprintf(what, sizeof(what), "line %d: %s", b->line, rows[i].what);
        CHECK(s != NULL
                  && hsc_cookie_verify(vp, s, value, strlen(value), &c, &u)
                         == rows[i].want,
              what);
        hsc_wipe(&c, sizeof(c));
        hsc_store_close(s);
    }
}

static void check_accepted(vblock_t *b)
{
    hsc_keyring_t *kr = block_keys(b);
    const char *value = vb_field(b, "value");
    unsigned char xn[32], z[32], lid[HSC_LID_LEN];
    char out[HSC_COOKIE_VALUE_MAX], what[200];
    hsc_verify_params_t vp;
    hsc_claims_t cl;
    hsc_cookie_t c;
    hsc_user_t u;
    hsc_store_t *s;
    size_t len = 0;
    hsc_status_t st, want;

    params(b, kr, &vp);
    snprintf(what, sizeof(what), "line %d: block complete", b->line);
    CHECK(kr != NULL && value != NULL && block_claims(b, &cl, xn, z, lid) == 0,
          what);
    if (kr == NULL || value == NULL || cl.user == NULL) {
        return;
    }
    s = block_store(b, cl.user);
    snprintf(what, sizeof(what), "line %d: mint2 gives the exact value",
             b->line);
    st = hsc_cookie_mint2(hsc_keyring_signer(kr), &cl, vp.scope, vp.address,
                          out, sizeof(out), &len);
    CHECK(st == HSC_OK && len == strlen(value) && strcmp(out, value) == 0,
          what);
    want = (cl.amr & HSC_AMR_PENDING) ? HSC_EPENDING : HSC_OK;
    snprintf(what, sizeof(what), "line %d: verify says %s", b->line,
             hsc_strerror(want));
    CHECK_EQ(hsc_cookie_verify(&vp, s, value, strlen(value), &c, &u), want,
             what);
    snprintf(what, sizeof(what), "line %d: steps 1-4 pass, with its fields",
             b->line);
    CHECK(hsc_cookie_check(&vp, value, strlen(value), &c) == HSC_OK
              && c.format == 2 && c.gen == cl.gen && c.amr == cl.amr
              && c.mfa_at == cl.mfa_at && c.iat == cl.iat
              && memcmp(c.lid, lid, HSC_LID_LEN) == 0
              && strcmp(c.user, cl.user) == 0,
          what);
    if (cl.amr & HSC_AMR_SEAL) {
        check_seal_records(b, &vp, cl.user, value);
    }
    if (cl.amr & HSC_AMR_PENDING) {
        vp.allow_pending = 1;
        snprintf(what, sizeof(what), "line %d: good at the second-factor step",
                 b->line);
        CHECK_EQ(hsc_cookie_verify(&vp, s, value, strlen(value), &c, &u),
                 HSC_OK, what);
    }
    hsc_wipe(&c, sizeof(c));
    hsc_store_close(s);
    accepted++;
}

/* The status a refusal's "why" names: its step, or syntax. */
static hsc_status_t refusal_of(const char *why)
{
    if (strncmp(why, "user:", 5) == 0) {
        return HSC_EREVOKED;
    }
    if (strncmp(why, "auth:", 5) == 0) {
        return HSC_EAUTH;
    }
    return HSC_EMALFORMED; /* syntax, and time's mfa_at consistency */
}

static void check_refused(vblock_t *b)
{
    hsc_keyring_t *kr = block_keys(b);
    const char *value = vb_field(b, "value"), *why = vb_field(b, "why");
    const char *user = vb_field(b, "user");
    char what[200];
    hsc_verify_params_t vp;
    hsc_cookie_t c;
    hsc_user_t u;
    hsc_store_t *s;
    hsc_status_t want;

    params(b, kr, &vp);
    /* Fields a refusal block may carry beyond what its check reads. */
    vb_field(b, "iat");
    vb_field(b, "exp");
    vb_field(b, "lid");
    vb_field(b, "amr");
    vb_field(b, "mfa_at");
    vb_field(b, "auth");
    snprintf(what, sizeof(what), "line %d: block complete", b->line);
    CHECK(kr != NULL && value != NULL && why != NULL && user != NULL, what);
    if (kr == NULL || value == NULL || why == NULL || user == NULL) {
        return;
    }
    if (vp.now == 0) {
        vp.now = 1800000100; /* a syntax vector carries no time */
    }
    s = vb_field(b, "v") != NULL ? block_store(b, user) : NULL;
    vb_field(b, "gen");
    want = refusal_of(why);
    snprintf(what, sizeof(what), "line %d: refused (%s): %s", b->line, why,
             hsc_strerror(want));
    if (s != NULL) {
        CHECK_EQ(hsc_cookie_verify(&vp, s, value, strlen(value), &c, &u), want,
                 what);
    }
    else {
        CHECK_EQ(hsc_cookie_check(&vp, value, strlen(value), &c), want, what);
    }
    hsc_wipe(&c, sizeof(c));
    hsc_store_close(s);
    refused++;
}

static void check_totp(vblock_t *b)
{
    const char *ascii = vb_field(b, "secret_ascii");
    const char *b32 = vb_field(b, "secret_base32");
    const char *alg = vb_field(b, "algorithm"), *step = vb_field(b, "step");
    const char *t = vb_field(b, "time"), *counter = vb_field(b, "counter");
    const char *c8 = vb_field(b, "code8"), *c6 = vb_field(b, "code6");
    hsc_totp_params_t p;
    unsigned char secret[HSC_TOTP_SECRET_MAX];
    char what[160], code[16];
    size_t n = 0;
    uint32_t got;
    int64_t s;

    snprintf(what, sizeof(what), "line %d: block complete", b->line);
    CHECK(ascii && b32 && alg && step && t && counter && c8 && c6, what);
    if (!(ascii && b32 && alg && step && t && counter && c8 && c6)) {
        return;
    }
    hsc_totp_defaults(&p);
    snprintf(what, sizeof(what), "line %d: the secret's base32 decodes to it",
             b->line);
    CHECK(hsc_base32_decode(b32, strlen(b32), secret, sizeof(secret), &n)
                  == HSC_OK
              && n == strlen(ascii) && memcmp(secret, ascii, n) == 0,
          what);
    snprintf(what, sizeof(what), "line %d: %s, %s s", b->line, alg, step);
    CHECK(strcmp(alg, "SHA-1") == 0 && (unsigned)atoi(step) == p.period, what);
    s = hsc_totp_step(&p, atoll(t));
    snprintf(what, sizeof(what), "line %d: the step of %s is %s", b->line, t,
             counter);
    CHECK_EQ(s, atoll(counter), what);
    p.digits = 8;
    snprintf(what, sizeof(what), "line %d: 8 digits %s", b->line, c8);
    CHECK(hsc_hotp(&p, secret, n, (uint64_t)s, &got) == HSC_OK
              && snprintf(code, sizeof(code), "%08u", (unsigned)got) == 8
              && strcmp(code, c8) == 0,
          what);
    p.digits = 6;
    snprintf(what, sizeof(what), "line %d: 6 digits %s", b->line, c6);
    CHECK(hsc_hotp(&p, secret, n, (uint64_t)s, &got) == HSC_OK
              && snprintf(code, sizeof(code), "%06u", (unsigned)got) == 6
              && strcmp(code, c6) == 0,
          what);
    totp_blocks++;
}

static void check_block(vblock_t *b)
{
    if (strcmp(b->kind, "cookie") == 0) {
        check_accepted(b);
    }
    else if (strcmp(b->kind, "refuse") == 0) {
        check_refused(b);
    }
    else {
        check_totp(b);
    }
}

static void every_vector_block_holds(void)
{
    static const char *const kinds[] = {"cookie", "refuse", "totp", NULL};
    int blocks = vb_read_file(HSC_VECTORS_FILE, pool, kinds, check_block);

    CHECK(blocks >= 0, "the vectors file opens: " HSC_VECTORS_FILE);
    CHECK_EQ(blocks, accepted + refused + totp_blocks,
             "every block was checked");
    CHECK(accepted >= 7, "the accepted cookies are there");
    CHECK(refused >= 11, "the refusals are there (three at step 6)");
}

int main(void)
{
    const char *base = getenv("TMPDIR");

    apr_initialize();
    apr_pool_create(&pool, NULL);
    snprintf(tmpdir, sizeof(tmpdir), "%s/hsc-v2-XXXXXX", base ? base : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    RUN(every_vector_block_holds);
    printf("# %d accepted, %d refused, %d totp blocks\n", accepted, refused,
           totp_blocks);
    {
        char cmd[300];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
        fflush(stdout);
        if (system(cmd) != 0) {
            printf("# could not remove %s\n", tmpdir);
        }
    }
    apr_pool_destroy(pool);
    apr_terminate();
    return hsc_test_done();
}
