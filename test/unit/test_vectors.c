/*
 * test_vectors.c: every block of the shared test vectors
 * (test/vectors/vectors-v1.txt, computed independently from hsc-v1.md)
 * against the core.
 *
 *   kdf blocks:    x_n from hsc_kdf_derive, v from hsc_authenticator
 *   cookie blocks: the MAC key derivation, the MAC input, the exact value
 *                  minted by hsc_cookie_mint, and hsc_cookie_check
 *                  accepting it with the same scope/address at iat + 1
 *
 * A block with a field this file does not know, or without one it needs,
 * fails: a vector cannot be skipped silently.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>
#include <openssl/hmac.h>
#include <openssl/evp.h>

#include "hsc_test.h"
#include "vector_file.h"
#include "hsc_kdf.h"
#include "hsc_keys.h"
#include "hsc_cookie.h"
#include "hsc_b64.h"

/* The vectors, in the source tree (HSC_SRCDIR: set by Makefile.am). */
#ifndef HSC_SRCDIR
#error "HSC_SRCDIR must name the source tree"
#endif
#define HSC_VECTORS_FILE HSC_SRCDIR "/test/vectors/vectors-v1.txt"

static apr_pool_t *pool;
static int kdf_blocks, cookie_blocks;

static void check_kdf_block(vblock_t *b)
{
    const char *alg = vb_field(b, "kdf"), *pw = vb_field(b, "password");
    const char *salt_hex = vb_field(b, "salt"), *xn_hex = vb_field(b, "x_n");
    const char *v_hex = vb_field(b, "authenticator");
    const char *spec = NULL;
    unsigned char salt[HSC_SALT_LEN], want_xn[32], want_v[32], xn[32], v[32];
    hsc_kdf_t k;
    char what[160];

    if (alg != NULL && strcmp(alg, "sha256-chain") == 0) {
        const char *n = vb_field(b, "n");

        spec = n ? apr_pstrcat(pool, "sha256-chain:", n, NULL) : NULL;
    }
    else if (alg != NULL && strcmp(alg, "scrypt") == 0) {
        const char *N = vb_field(b, "N"), *r = vb_field(b, "r"),
                   *p = vb_field(b, "p");

        spec = (N && r && p)
                   ? apr_pstrcat(pool, "scrypt:", N, ":", r, ":", p, NULL)
                   : NULL;
    }
    snprintf(what, sizeof(what), "line %d: block complete (%s)", b->line,
             spec ? spec : "?");
    CHECK(spec != NULL && pw != NULL && salt_hex != NULL && xn_hex != NULL
              && v_hex != NULL
              && vb_unhex(salt_hex, salt, sizeof(salt)) == HSC_SALT_LEN
              && vb_unhex(xn_hex, want_xn, 32) == 32
              && vb_unhex(v_hex, want_v, 32) == 32,
          what);
    if (spec == NULL || pw == NULL || salt_hex == NULL || xn_hex == NULL
        || v_hex == NULL) {
        return;
    }
    snprintf(what, sizeof(what), "line %d: %s parses", b->line, spec);
    CHECK_EQ(hsc_kdf_parse(spec, &k), HSC_OK, what);
    snprintf(what, sizeof(what), "line %d: %s x_n", b->line, spec);
    CHECK(hsc_kdf_derive(&k, pw, strlen(pw), salt, xn) == HSC_OK
              && memcmp(xn, want_xn, 32) == 0,
          what);
    snprintf(what, sizeof(what), "line %d: %s authenticator", b->line, spec);
    CHECK(hsc_authenticator(xn, v) == HSC_OK && memcmp(v, want_v, 32) == 0,
          what);
    kdf_blocks++;
}

static void check_cookie_block(vblock_t *b)
{
    const char *kid = vb_field(b, "kid"), *secret_hex = vb_field(b, "secret");
    const char *mac_key_hex = vb_field(b, "mac_key"),
               *user = vb_field(b, "user");
    const char *iat_s = vb_field(b, "iat"), *exp_s = vb_field(b, "exp");
    const char *xn_hex = vb_field(b, "x_n"), *scope = vb_text(b, "scope");
    const char *address = vb_text(b, "address");
    const char *mi_hex = vb_field(b, "mac_input_hex"),
               *value = vb_field(b, "value");
    unsigned char secret[256], mac_key[32], xn[32], mi[2048];
    unsigned char mac[32], ref[32], label_mac[32];
    char b64[400], out[HSC_COOKIE_VALUE_MAX], what[160];
    const char *dot;
    long slen = -1, milen = -1;
    int64_t iat = 0, exp = 0;
    size_t outlen = 0, vlen;
    unsigned int hlen = 0;
    hsc_keyring_t *kr = NULL;
    const hsc_key_t *key;
    const char *msg = NULL, *line;
    hsc_verify_params_t vp;
    hsc_cookie_t c;
    hsc_status_t st;

    memset(&vp, 0, sizeof(vp)); /* format 2's fields: off */
    if (secret_hex) {
        slen = vb_unhex(secret_hex, secret, sizeof(secret));
    }
    if (mi_hex) {
        milen = vb_unhex(mi_hex, mi, sizeof(mi));
    }
    snprintf(what, sizeof(what), "line %d: block complete", b->line);
    CHECK(kid && slen >= 32 && mac_key_hex
              && vb_unhex(mac_key_hex, mac_key, 32) == 32 && user && iat_s
              && hsc_parse_time(iat_s, strlen(iat_s), &iat) == HSC_OK && exp_s
              && hsc_parse_time(exp_s, strlen(exp_s), &exp) == HSC_OK && xn_hex
              && vb_unhex(xn_hex, xn, 32) == 32 && scope && address && milen > 0
              && value,
          what);
    if (!(kid && slen >= 32 && mac_key_hex && user && iat_s && exp_s && xn_hex
          && scope && address && milen > 0 && value)) {
        return;
    }
    vlen = strlen(value);

    /* The MAC key: K = HMAC-SHA256(secret, "hsc-cookie-mac-v1"). First the
     * vector against OpenSSL, then the core against K: its MAC must equal
     * a one-shot HMAC keyed with the vector's mac_key. */
    HMAC(EVP_sha256(), secret, (int)slen,
         (const unsigned char *)"hsc-cookie-mac-v1", 17, label_mac, &hlen);
    snprintf(what, sizeof(what), "line %d: mac_key = HMAC(secret, label)",
             b->line);
    CHECK(memcmp(label_mac, mac_key, 32) == 0, what);
    hsc_b64url_encode(secret, (size_t)slen, b64);
    line = apr_pstrcat(pool, kid, " ", b64, "\n", NULL);
    st = hsc_keyring_parse(pool, "vector", line, strlen(line), &kr, &msg);
    snprintf(what, sizeof(what), "line %d: key line loads", b->line);
    CHECK_EQ(st, HSC_OK, what);
    if (st != HSC_OK) {
        return;
    }
    key = hsc_keyring_signer(kr);

    /* mac_input = value up to its last '.' \n scope \n address. */
    dot = strrchr(value, '.');
    snprintf(what, sizeof(what), "line %d: mac_input is value/scope/address",
             b->line);
    CHECK(dot != NULL
              && (size_t)milen
                     == (size_t)(dot - value) + 1 + strlen(scope) + 1
                            + strlen(address)
              && memcmp(mi, value, (size_t)(dot - value)) == 0
              && mi[dot - value] == '\n'
              && memcmp(mi + (dot - value) + 1, scope, strlen(scope)) == 0
              && mi[(dot - value) + 1 + strlen(scope)] == '\n'
              && memcmp(mi + (dot - value) + 2 + strlen(scope), address,
                        strlen(address))
                     == 0,
          what);
    HMAC(EVP_sha256(), mac_key, 32, mi, (size_t)milen, ref, &hlen);
    snprintf(what, sizeof(what),
             "line %d: hsc_key_mac3 = HMAC(mac_key, mac_input)", b->line);
    CHECK(dot != NULL
              && hsc_key_mac3(key, value, (size_t)(dot - value), scope,
                              strlen(scope), address, strlen(address), mac)
                     == HSC_OK
              && memcmp(mac, ref, 32) == 0,
          what);

    /* The exact value. */
    st = hsc_cookie_mint(key, user, strlen(user), iat, exp, xn, scope, address,
                         out, sizeof(out), &outlen);
    snprintf(what, sizeof(what), "line %d: mint status", b->line);
    CHECK_EQ(st, HSC_OK, what);
    snprintf(what, sizeof(what), "line %d: minted value is the vector",
             b->line);
    CHECK(outlen == vlen && strcmp(out, value) == 0, what);

    /* And it verifies (steps 1-4) one second after issue. */
    vp.keys = kr;
    vp.scope = scope;
    vp.address = address;
    vp.now = iat + 1;
    vp.skew = 60;
    vp.max_age = exp - iat + 1;
    st = hsc_cookie_check(&vp, value, vlen, &c);
    snprintf(what, sizeof(what), "line %d: check accepts it", b->line);
    CHECK_EQ(st, HSC_OK, what);
    snprintf(what, sizeof(what), "line %d: parsed fields", b->line);
    CHECK(st == HSC_OK && strcmp(c.kid, kid) == 0 && strcmp(c.user, user) == 0
              && c.user_len == strlen(user) && c.iat == iat && c.exp == exp
              && memcmp(c.auth, xn, 32) == 0
              && c.signed_len == (size_t)(dot - value),
          what);
    /* The same value under another scope/address is refused. */
    vp.scope = *scope ? "" : "other";
    snprintf(what, sizeof(what), "line %d: another scope is refused", b->line);
    CHECK_EQ(hsc_cookie_check(&vp, value, vlen, &c), HSC_EBADMAC, what);
    vp.scope = scope;
    vp.address = *address ? "" : "10.0.0.1";
    snprintf(what, sizeof(what), "line %d: another address is refused",
             b->line);
    CHECK_EQ(hsc_cookie_check(&vp, value, vlen, &c), HSC_EBADMAC, what);
    hsc_wipe(&c, sizeof(c));
    hsc_wipe(secret, sizeof(secret));
    cookie_blocks++;
}

static void check_block(vblock_t *b)
{
    if (strcmp(b->kind, "cookie") == 0) {
        check_cookie_block(b);
    }
    else {
        check_kdf_block(b);
    }
}

static void every_vector_block_holds(void)
{
    static const char *const kinds[] = {"", "cookie", NULL};
    int blocks = vb_read_file(HSC_VECTORS_FILE, pool, kinds, check_block);

    CHECK(blocks >= 0, "the vectors file opens: " HSC_VECTORS_FILE);
    CHECK_EQ(blocks, kdf_blocks + cookie_blocks, "every block was checked");
    CHECK(kdf_blocks >= 5, "the kdf blocks are there");
    CHECK(cookie_blocks >= 4, "the cookie blocks are there");
}

int main(void)
{
    apr_initialize();
    apr_pool_create(&pool, NULL);
    RUN(every_vector_block_holds);
    printf("# %d kdf blocks, %d cookie blocks\n", kdf_blocks, cookie_blocks);
    apr_pool_destroy(pool);
    apr_terminate();
    return hsc_test_done();
}
