/*
 * fuzz_cookie.c: hsc_cookie_parse() and hsc_cookie_check() on untrusted
 * cookie values, against a fixed two-key ring whose first key is the one of
 * the spec's test vectors (so the vectors in the corpus verify).
 *
 * Properties (each aborts when violated):
 *   - a refused value leaves the parsed cookie zeroed (no x_n left behind);
 *   - anything hsc_cookie_parse() accepts re-encodes to the same bytes, field
 *     by field: one spelling per cookie (canonical base64url and decimals);
 *   - hsc_cookie_explain() (no store) returns what hsc_cookie_check() does;
 *   - anything hsc_cookie_check() accepts was also accepted by parse, and
 *     re-mints (hsc_cookie_mint, same key, scope and address) to exactly the
 *     same value;
 *   - a refresh of an accepted cookie is itself accepted, with the same user,
 *     iat and auth and an expiry no earlier than before.
 */
#include <string.h>

#include <apr_general.h>
#include <apr_pools.h>

#include "hsc_fuzz.h"
#include "hsc_b64.h"
#include "hsc_cookie.h"
#include "hsc_keys.h"
#include "hsc_util.h"

/* k1 is the vectors' secret 00..1f; k2 (20..3f) is a second verifying key. */
static const char
    keyfile[] = "# fuzz_cookie key ring\n"
                "k1 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8\n"
                "k2 ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8\n";

/* The (scope, address) pairs of the vectors: each input is checked with
 * every one of them. */
static const struct {
    const char *scope;
    const char *address;
} binds[] = {
    {"", ""},
    {"", "127.0.0.1"},
    {"intranet", ""},
    {"intranet", "::1"},
};

/* Between the vectors' iat (1800000000) and exp (1800003600). */
#define FUZZ_NOW 1800001000
#define FUZZ_SKEW 60
#define FUZZ_MAX_AGE (30 * 86400)
#define FUZZ_IDLE 7200

static apr_pool_t *pool;
static hsc_keyring_t *ring;

static void setup(void)
{
    const char *msg = NULL;

    if (ring != NULL) {
        return;
    }
    if (apr_initialize() != APR_SUCCESS
        || apr_pool_create(&pool, NULL) != APR_SUCCESS) {
        abort();
    }
    if (hsc_keyring_parse(pool, "fuzz", keyfile, sizeof(keyfile) - 1, &ring,
                          &msg)
            != HSC_OK
        || ring == NULL) {
        fprintf(stderr, "fuzz_cookie: key ring refused: %s\n",
                msg ? msg : "(no message)");
        abort();
    }
}

static int all_zero(const void *p, size_t len)
{
    const unsigned char *b = p;
    size_t i;

    for (i = 0; i < len; i++) {
        if (b[i] != 0) {
            return 0;
        }
    }
    return 1;
}

static void assert_zeroed(const hsc_cookie_t *c)
{
    HSC_FUZZ_ASSERT(c->kid_len == 0);
    HSC_FUZZ_ASSERT(c->user_len == 0);
    HSC_FUZZ_ASSERT(c->iat == 0 && c->exp == 0);
    HSC_FUZZ_ASSERT(c->signed_len == 0);
    HSC_FUZZ_ASSERT(all_zero(c->auth, sizeof(c->auth)));
    HSC_FUZZ_ASSERT(all_zero(c->mac, sizeof(c->mac)));
}

/* Rebuilds "1.kid.user.iat.exp.auth.mac" or
 * "2.kid.user.iat.exp.gen.lid.amr.mfa_at.auth.mac" from a parsed cookie and
 * checks it is the input, byte for byte. */
static void assert_reencodes(const hsc_cookie_t *c, const char *v, size_t len)
{
    char buf[HSC_COOKIE_MAX + 64];
    char tmp[HSC_B64URL_LEN(HSC_USER_MAX) + 1];
    size_t n = 0, k;

    HSC_FUZZ_ASSERT(c->kid_len >= 1 && c->kid_len <= HSC_KID_MAX);
    HSC_FUZZ_ASSERT(hsc_kid_valid(c->kid, c->kid_len));
    HSC_FUZZ_ASSERT(c->kid[c->kid_len] == '\0');
    HSC_FUZZ_ASSERT(c->user_len >= 1 && c->user_len <= HSC_USER_MAX);
    HSC_FUZZ_ASSERT(c->user[c->user_len] == '\0');
    HSC_FUZZ_ASSERT(hsc_username_valid(c->user, c->user_len));
    HSC_FUZZ_ASSERT(c->iat >= 0 && c->exp > c->iat);

    HSC_FUZZ_ASSERT(c->format == 1 || c->format == 2);
    HSC_FUZZ_ASSERT(c->auth_len == HSC_XN_LEN || c->auth_len == 64);
    buf[n++] = (char)('0' + c->format);
    buf[n++] = '.';
    memcpy(buf + n, c->kid, c->kid_len);
    n += c->kid_len;
    buf[n++] = '.';
    k = hsc_b64url_encode(c->user, c->user_len, tmp);
    memcpy(buf + n, tmp, k);
    n += k;
    buf[n++] = '.';
    n += hsc_format_time(c->iat, buf + n);
    buf[n++] = '.';
    n += hsc_format_time(c->exp, buf + n);
    buf[n++] = '.';
    if (c->format == 2) {
        HSC_FUZZ_ASSERT(c->amr <= HSC_AMR_ALL && c->gen >= 0);
        n += hsc_format_time(c->gen, buf + n);
        buf[n++] = '.';
        n += hsc_b64url_encode(c->lid, HSC_LID_LEN, buf + n);
        buf[n++] = '.';
        n += hsc_format_time((int64_t)c->amr, buf + n);
        buf[n++] = '.';
        n += hsc_format_time(c->mfa_at, buf + n);
        buf[n++] = '.';
    }
    n += hsc_b64url_encode(c->auth, c->auth_len, buf + n);
    HSC_FUZZ_ASSERT(c->signed_len == n);
    buf[n++] = '.';
    n += hsc_b64url_encode(c->mac, sizeof(c->mac), buf + n);

    HSC_FUZZ_ASSERT(n == len);
    HSC_FUZZ_ASSERT(memcmp(buf, v, len) == 0);
}

static void check_one(const char *v, size_t len, int parsed_ok, size_t b)
{
    hsc_verify_params_t vp;
    hsc_cookie_t c, c2;
    const hsc_key_t *key;
    char out[HSC_COOKIE_VALUE_MAX];
    char out2[HSC_COOKIE_VALUE_MAX];
    size_t outlen = 0, outlen2 = 0;
    hsc_status_t st;

    memset(&vp, 0, sizeof(vp));
    vp.keys = ring;
    vp.scope = binds[b].scope;
    vp.address = binds[b].address;
    vp.now = FUZZ_NOW;
    vp.skew = FUZZ_SKEW;
    vp.max_age = FUZZ_MAX_AGE;

    st = hsc_cookie_check(&vp, v, len, &c);
    /* hsc-admin inspect's explanation reaches the same verdict. */
    {
        hsc_explain_t ex;
        HSC_FUZZ_ASSERT(hsc_cookie_explain(&vp, NULL, v, len, &ex) == st);
    }
    if (st != HSC_OK) {
        assert_zeroed(&c);
        return;
    }
    /* Accepted: it parsed, it is canonical, and it re-mints identically. */
    HSC_FUZZ_ASSERT(parsed_ok);
    assert_reencodes(&c, v, len);
    HSC_FUZZ_ASSERT(c.exp > FUZZ_NOW);
    HSC_FUZZ_ASSERT(c.iat <= FUZZ_NOW + FUZZ_SKEW);
    HSC_FUZZ_ASSERT(FUZZ_NOW < c.iat + FUZZ_MAX_AGE);

    key = hsc_keyring_find(ring, c.kid, c.kid_len);
    HSC_FUZZ_ASSERT(key != NULL);
    if (c.format == 1) {
        st = hsc_cookie_mint(key, c.user, c.user_len, c.iat, c.exp, c.auth,
                             vp.scope, vp.address, out, sizeof(out), &outlen);
    }
    else {
        hsc_claims_t cl;

        hsc_cookie_claims(&c, &cl);
        st = hsc_cookie_mint2(key, &cl, vp.scope, vp.address, out, sizeof(out),
                              &outlen);
    }
    HSC_FUZZ_ASSERT(st == HSC_OK);
    HSC_FUZZ_ASSERT(outlen == len && strlen(out) == outlen);
    HSC_FUZZ_ASSERT(memcmp(out, v, len) == 0);

    /* A refresh is accepted and keeps user, iat and auth; a pending
     * cookie is never refreshed. */
    st = hsc_cookie_refresh(&vp, &c, FUZZ_IDLE, out2, sizeof(out2), &outlen2);
    if (c.amr & HSC_AMR_PENDING) {
        HSC_FUZZ_ASSERT(st == HSC_EPENDING && outlen2 == 0);
        hsc_wipe(&c, sizeof(c));
        return;
    }
    HSC_FUZZ_ASSERT(st == HSC_OK);
    HSC_FUZZ_ASSERT(strlen(out2) == outlen2);
    st = hsc_cookie_check(&vp, out2, outlen2, &c2);
    HSC_FUZZ_ASSERT(st == HSC_OK);
    HSC_FUZZ_ASSERT(c2.user_len == c.user_len
                    && memcmp(c2.user, c.user, c.user_len) == 0);
    HSC_FUZZ_ASSERT(c2.iat == c.iat && c2.format == c.format);
    HSC_FUZZ_ASSERT(c2.gen == c.gen && c2.amr == c.amr && c2.mfa_at == c.mfa_at
                    && memcmp(c2.lid, c.lid, HSC_LID_LEN) == 0);
    HSC_FUZZ_ASSERT(memcmp(c2.auth, c.auth, sizeof(c.auth)) == 0);
    HSC_FUZZ_ASSERT(
        c2.exp == hsc_cookie_expiry(c.iat, FUZZ_NOW, FUZZ_IDLE, FUZZ_MAX_AGE));
    /* The refresh is signed by the ring's signer. */
    HSC_FUZZ_ASSERT(strcmp(c2.kid, hsc_key_id(hsc_keyring_signer(ring))) == 0);
    hsc_wipe(&c2, sizeof(c2));
    hsc_wipe(&c, sizeof(c));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *v = (const char *)data;
    hsc_cookie_t c;
    hsc_status_t st;
    size_t b;
    int parsed_ok;

    setup();

    st = hsc_cookie_parse(v, size, &c);
    parsed_ok = (st == HSC_OK);
    if (parsed_ok) {
        assert_reencodes(&c, v, size);
        HSC_FUZZ_ASSERT(size <= HSC_COOKIE_MAX);
    }
    else {
        HSC_FUZZ_ASSERT(st == HSC_EMALFORMED || st == HSC_ETOOLONG);
        HSC_FUZZ_ASSERT(st == HSC_ETOOLONG || size <= HSC_COOKIE_MAX);
        assert_zeroed(&c);
    }
    hsc_wipe(&c, sizeof(c));

    for (b = 0; b < sizeof(binds) / sizeof(binds[0]); b++) {
        check_one(v, size, parsed_ok, b);
    }
    return 0;
}
