/*
 * test_webauthn.c: the relying party's store-free checks (hsc_webauthn.c,
 * hsc_cbor.c) against WebAuthn Level 3's own test vectors
 * (test/vectors/vectors-webauthn.txt, transcribed from the
 * specification), and the refusals around them.
 *
 * For each vector: the registration's clientDataJSON passes the limited
 * verification for its challenge and origin (or is refused, for the
 * crossOrigin and topOrigin examples); the attestation object's
 * authenticator data parses, its rpIdHash is SHA-256("example.org"), its
 * COSE key gives a key (ES384 is refused: not an algorithm verified
 * here) whose SPKI gives the same key back; the assertion's
 * authenticator data parses and its signature verifies, and no longer
 * does with a bit of the signature, the authenticator data or the
 * clientDataJSON changed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>

#include <openssl/ec.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include "hsc_test.h"
#include "vector_file.h"
#include "hsc_b64.h"
#include "hsc_cbor.h"
#include "hsc_keys.h"
#include "hsc_wa_challenge.h"
#include "hsc_webauthn.h"

#ifndef HSC_SRCDIR
#error "HSC_SRCDIR must name the source tree"
#endif
#define HSC_VECTORS_FILE HSC_SRCDIR "/test/vectors/vectors-webauthn.txt"
#define HSC_CHALLENGES_FILE HSC_SRCDIR "/test/vectors/vectors-wa-challenge.txt"
#define ORIGIN "https://example.org"

static apr_pool_t *pool;
static int verified, refused_cross, refused_alg;

/* The key's SPKI DER, read back through hsc_wa_key_from_spki: the same. */
static void spki_round_trip(const char *name, EVP_PKEY *pk, int alg)
{
    unsigned char *der = NULL;
    int n = i2d_PUBKEY(pk, &der);
    EVP_PKEY *back = NULL;

    CHECK(n > 0, apr_pstrcat(pool, name, ": the key has an SPKI", NULL));
    CHECK(n > 0 && hsc_wa_key_from_spki(der, (size_t)n, alg, &back) == HSC_OK,
          apr_pstrcat(pool, name, ": its SPKI is read", NULL));
    CHECK(back != NULL && hsc_wa_key_equal(pk, back),
          apr_pstrcat(pool, name, ": the SPKI and the COSE key agree", NULL));
    /* The same key offered for another algorithm is refused. */
    if (n > 0) {
        EVP_PKEY *other = NULL;
        int wrong = alg == HSC_WA_ES256 ? HSC_WA_EDDSA : HSC_WA_ES256;
        CHECK(hsc_wa_key_from_spki(der, (size_t)n, wrong, &other)
                  == HSC_EMALFORMED,
              apr_pstrcat(pool, name, ": not a key of another algorithm",
                          NULL));
        EVP_PKEY_free(other);
    }
    EVP_PKEY_free(back);
    OPENSSL_free(der);
}

static void check_block(vblock_t *b)
{
    const char *name = vb_field(b, "name");
    size_t rcd_len = 0, att_len = 0, ad_len = 0, acd_len = 0, sig_len = 0;
    size_t reg_ad_len = 0;
    unsigned char *rcd = vb_bytes(b, "reg_client_data", pool, &rcd_len);
    unsigned char *att = vb_bytes(b, "attestation", pool, &att_len);
    unsigned char *ad = vb_bytes(b, "auth_data", pool, &ad_len);
    unsigned char *acd = vb_bytes(b, "auth_client_data", pool, &acd_len);
    unsigned char *sig = vb_bytes(b, "signature", pool, &sig_len);
    const char *rch = vb_b64u(b, "reg_challenge", pool);
    const char *ach = vb_b64u(b, "auth_challenge", pool);
    const unsigned char *reg_ad = NULL;
    unsigned char rp_hash[32];
    hsc_wa_auth_data_t reg, as;
    EVP_PKEY *pk = NULL;
    int alg = 0, framed;
    hsc_status_t st;

    if (name == NULL || rcd == NULL || att == NULL || ad == NULL || acd == NULL
        || sig == NULL) {
        CHECK(0, "a vector has every field");
        return;
    }
    framed = strstr(name, "crossOrigin") != NULL
             || strstr(name, "topOrigin") != NULL;
    SHA256((const unsigned char *)"example.org", 11, rp_hash);

    st = hsc_wa_client_data_check(rcd, rcd_len, "webauthn.create", rch, ORIGIN);
    CHECK_EQ(st, framed ? HSC_EAUTH : HSC_OK,
             apr_pstrcat(pool, name,
                         framed ? ": a framed registration is refused"
                                : ": the registration's clientDataJSON passes",
                         NULL));
    CHECK_EQ(hsc_wa_client_data_check(rcd, rcd_len, "webauthn.get", rch,
                                      ORIGIN),
             HSC_EAUTH,
             apr_pstrcat(pool, name, ": not as an assertion's", NULL));
    CHECK_EQ(hsc_wa_client_data_check(rcd, rcd_len, "webauthn.create", ach,
                                      ORIGIN),
             HSC_EAUTH,
             apr_pstrcat(pool, name, ": not for another challenge", NULL));
    CHECK_EQ(hsc_wa_client_data_check(rcd, rcd_len, "webauthn.create", rch,
                                      "https://example.com"),
             HSC_EAUTH,
             apr_pstrcat(pool, name, ": not for another origin", NULL));

    CHECK(hsc_wa_attestation_auth_data(att, att_len, &reg_ad, &reg_ad_len)
              == HSC_OK,
          apr_pstrcat(pool, name, ": the attestation object has authData",
                      NULL));
    CHECK(reg_ad != NULL
              && hsc_wa_auth_data_parse(reg_ad, reg_ad_len, &reg) == HSC_OK,
          apr_pstrcat(pool, name, ": its authenticator data parses", NULL));
    if (reg_ad == NULL
        || hsc_wa_auth_data_parse(reg_ad, reg_ad_len, &reg) != HSC_OK) {
        return;
    }
    CHECK(memcmp(reg.rp_id_hash, rp_hash, 32) == 0,
          apr_pstrcat(pool, name, ": rpIdHash is SHA-256(example.org)", NULL));
    CHECK((reg.flags & (HSC_WA_FLAG_UP | HSC_WA_FLAG_AT))
              == (HSC_WA_FLAG_UP | HSC_WA_FLAG_AT),
          apr_pstrcat(pool, name, ": user present, a credential attested",
                      NULL));
    CHECK(reg.cred_id_len > 0 && reg.cose_key != NULL,
          apr_pstrcat(pool, name, ": a credential id and a COSE key", NULL));
    st = hsc_wa_key_from_cose(reg.cose_key, reg.cose_key_len, &alg, &pk);
    if (strstr(name, "es384") != NULL) {
        CHECK_EQ(st, HSC_EINVAL,
                 apr_pstrcat(pool, name, ": ES384 is not verified here", NULL));
        refused_alg++;
        return;
    }
    CHECK_EQ(st, HSC_OK,
             apr_pstrcat(pool, name, ": the COSE key is read", NULL));
    if (st != HSC_OK) {
        return;
    }
    CHECK_EQ(alg,
             strstr(name, "rs256")   ? HSC_WA_RS256
             : strstr(name, "eddsa") ? HSC_WA_EDDSA
                                     : HSC_WA_ES256,
             apr_pstrcat(pool, name, ": the key's algorithm", NULL));
    spki_round_trip(name, pk, alg);

    st = hsc_wa_client_data_check(acd, acd_len, "webauthn.get", ach, ORIGIN);
    CHECK_EQ(st, framed ? HSC_EAUTH : HSC_OK,
             apr_pstrcat(pool, name,
                         framed ? ": a framed assertion is refused"
                                : ": the assertion's clientDataJSON passes",
                         NULL));
    CHECK(hsc_wa_auth_data_parse(ad, ad_len, &as) == HSC_OK
              && as.cose_key == NULL && memcmp(as.rp_id_hash, rp_hash, 32) == 0
              && (as.flags & HSC_WA_FLAG_UP),
          apr_pstrcat(pool, name,
                      ": the assertion's authenticator data parses, "
                      "no credential, user present",
                      NULL));
    CHECK_EQ(hsc_wa_verify(pk, alg, ad, ad_len, acd, acd_len, sig, sig_len),
             HSC_OK, apr_pstrcat(pool, name, ": the signature verifies", NULL));
    sig[sig_len - 1] ^= 1;
    CHECK_EQ(hsc_wa_verify(pk, alg, ad, ad_len, acd, acd_len, sig, sig_len),
             HSC_EAUTH,
             apr_pstrcat(pool, name, ": not with a bit of it changed", NULL));
    sig[sig_len - 1] ^= 1;
    ad[32] ^= HSC_WA_FLAG_UV;
    CHECK_EQ(hsc_wa_verify(pk, alg, ad, ad_len, acd, acd_len, sig, sig_len),
             HSC_EAUTH,
             apr_pstrcat(pool, name, ": not with the UV flag flipped", NULL));
    ad[32] ^= HSC_WA_FLAG_UV;
    acd[acd_len - 2] ^= 1;
    CHECK_EQ(hsc_wa_verify(pk, alg, ad, ad_len, acd, acd_len, sig, sig_len),
             HSC_EAUTH,
             apr_pstrcat(pool, name, ": not with clientDataJSON changed",
                         NULL));
    acd[acd_len - 2] ^= 1;
    if (framed) {
        refused_cross++;
    }
    verified++;
    EVP_PKEY_free(pk);
}

static void every_vector_holds(void)
{
    static const char *const kinds[] = {"vector", NULL};
    int blocks = vb_read_file(HSC_VECTORS_FILE, pool, kinds, check_block);

    CHECK(blocks >= 0, "the vectors file opens: " HSC_VECTORS_FILE);
    CHECK_EQ(blocks, verified + refused_alg, "every vector was checked");
    CHECK(verified >= 7, "ES256, RS256 and EdDSA assertions verified");
    CHECK_EQ(refused_cross, 2, "the crossOrigin and topOrigin examples");
}

/* --- client data: CCDToString and the bytes after the prefix --------------
 */

static void client_data_is_read_as_the_spec_writes_it(void)
{
    const char *ok = "{\"type\":\"webauthn.get\",\"challenge\":\"abc\","
                     "\"origin\":\"http://localhost:8080\","
                     "\"crossOrigin\":false}";
    const char *more = "{\"type\":\"webauthn.get\",\"challenge\":\"abc\","
                       "\"origin\":\"http://localhost:8080\","
                       "\"crossOrigin\":false,\"other_keys_can_be_added_"
                       "here\":\"do not compare clientDataJSON against a "
                       "template\"}";
    const char *odd = "{\"type\":\"webauthn.get\",\"challenge\":\"abc\","
                      "\"origin\":\"http://a\\\"b\\\\c\\u000a\","
                      "\"crossOrigin\":false}";
    const char *cases[][2] =
        {{"{\"type\":\"webauthn.get\",\"challenge\":\"abc\",\"origin\":"
          "\"http://localhost:8080\",\"crossOrigin\":true}",
          "crossOrigin true"},
         {"{\"type\":\"webauthn.get\",\"challenge\":\"abc\",\"origin\":"
          "\"http://localhost:8080\",\"crossOrigin\":false,\"topOrigin\":"
          "\"http://evil\"}",
          "a topOrigin"},
         {"{\"type\":\"webauthn.get\",\"challenge\":\"abc\",\"origin\":"
          "\"http://localhost:8080\",\"crossOrigin\":false",
          "nothing after the prefix"},
         {"{\"type\":\"webauthn.get\",\"challenge\":\"abc\",\"origin\":"
          "\"http://localhost:8080\",\"crossOrigin\":falsey}",
          "another byte after it"},
         {"{\"type\":\"webauthn.get\",\"challenge\":\"abcd\",\"origin\":"
          "\"http://localhost:8080\",\"crossOrigin\":false}",
          "a longer challenge"},
         {"{\"type\":\"webauthn.get\",\"origin\":\"http://localhost:8080\","
          "\"challenge\":\"abc\",\"crossOrigin\":false}",
          "members in another order"},
         {"{\"type\":\"webauthn.get\",\"challenge\":\"abc\",\"origin\":"
          "\"http://localhost:8080/\",\"crossOrigin\":false}",
          "an origin with a path"},
         {"{\"type\":\"webauthn.get\", \"challenge\":\"abc\",\"origin\":"
          "\"http://localhost:8080\",\"crossOrigin\":false}",
          "a space"}};
    size_t i;

#define CD(s, o)                                                               \
    hsc_wa_client_data_check((const unsigned char *)(s), strlen(s),            \
                             "webauthn.get", "abc", (o))
    CHECK_EQ(CD(ok, "http://localhost:8080"), HSC_OK, "the usual one");
    CHECK_EQ(CD(more, "http://localhost:8080"), HSC_OK,
             "members after crossOrigin are allowed");
    CHECK_EQ(CD(odd, "http://a\"b\\c\n"), HSC_OK,
             "quotes, backslashes and controls escaped as CCDToString does");
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK_EQ(CD(cases[i][0], "http://localhost:8080"), HSC_EAUTH,
                 apr_pstrcat(pool, "refused: ", cases[i][1], NULL));
    }
    CHECK_EQ(CD("[]", "http://localhost:8080"), HSC_EMALFORMED,
             "not a clientDataJSON");
    CHECK_EQ(CD("", "http://localhost:8080"), HSC_EMALFORMED, "empty");
#undef CD
}

/* --- authenticator data and CBOR ------------------------------------------
 */

static void authenticator_data_is_bounded(void)
{
    unsigned char ad[37 + 18 + 4 + 16];
    hsc_wa_auth_data_t a;

    memset(ad, 0, sizeof(ad));
    ad[32] = HSC_WA_FLAG_UP;
    ad[36] = 7;
    CHECK(hsc_wa_auth_data_parse(ad, 37, &a) == HSC_OK && a.sign_count == 7
              && a.cred_id == NULL,
          "37 bytes: an assertion's, its sign count");
    CHECK_EQ(hsc_wa_auth_data_parse(ad, 36, &a), HSC_EMALFORMED, "36: short");
    CHECK_EQ(hsc_wa_auth_data_parse(ad, 38, &a), HSC_EMALFORMED,
             "a byte after it");
    ad[32] = HSC_WA_FLAG_UP | HSC_WA_FLAG_BS;
    CHECK_EQ(hsc_wa_auth_data_parse(ad, 37, &a), HSC_EMALFORMED,
             "backed up but not backup eligible");
    ad[32] = HSC_WA_FLAG_UP | HSC_WA_FLAG_ED;
    ad[37] = 0xa0; /* {} */
    CHECK(hsc_wa_auth_data_parse(ad, 38, &a) == HSC_OK && a.ext_len == 1,
          "an empty extensions map");
    ad[37] = 0x80; /* [] */
    CHECK_EQ(hsc_wa_auth_data_parse(ad, 38, &a), HSC_EMALFORMED,
             "extensions that are not a map");
    ad[32] = HSC_WA_FLAG_UP | HSC_WA_FLAG_AT;
    ad[53] = 0x00;
    ad[54] = 0x04; /* a credential id of 4 bytes */
    ad[59] = 0xa0; /* and a COSE key {} */
    CHECK(hsc_wa_auth_data_parse(ad, 60, &a) == HSC_OK && a.cred_id_len == 4
              && a.cose_key_len == 1,
          "attested credential data");
    ad[53] = 0x04; /* 1028 bytes: over the maximum */
    CHECK_EQ(hsc_wa_auth_data_parse(ad, 60, &a), HSC_EMALFORMED,
             "a credential id over 1023 bytes");
    ad[53] = 0x00;
    ad[54] = 0x00;
    CHECK_EQ(hsc_wa_auth_data_parse(ad, 60, &a), HSC_EMALFORMED,
             "an empty credential id");
}

static void cbor_is_definite_and_shortest(void)
{
    static const unsigned char map[] = {0xa2, 0x01, 0x02, 0x20, 0x43,
                                        'a',  'b',  'c'}; /* {1:2,-1:"abc"} */
    static const unsigned char twice[] = {0xa2, 0x01, 0x02, 0x01, 0x03};
    static const unsigned char bad[][3] =
        {{0x5f, 0x41, 0xff}, /* an indefinite byte string */
         {0x18, 0x05, 0x00}, /* 5 in two bytes: not the shortest */
         {0xc1, 0x01, 0x00}, /* a tag */
         {0xf9, 0x00, 0x00}, /* a half float */
         {0x43, 'a', 'b'}};  /* a string longer than what is left */
    const unsigned char *v;
    size_t n, i;
    hsc_cbor_head_t h;
    unsigned char deep[HSC_CBOR_DEPTH_MAX + 3];

    CHECK(hsc_cbor_skip(map, sizeof(map), &n) == HSC_OK && n == sizeof(map),
          "a map's length");
    CHECK(hsc_cbor_map_get(map, sizeof(map), NULL, -1, &v, &n) == HSC_OK
              && hsc_cbor_head(v, n, &h) == HSC_OK && h.major == HSC_CBOR_BYTES
              && h.arg == 3 && memcmp(h.at, "abc", 3) == 0,
          "a member by a negative key");
    CHECK_EQ(hsc_cbor_map_get(map, sizeof(map), NULL, 2, &v, &n), HSC_ENOUSER,
             "a key it has not");
    CHECK_EQ(hsc_cbor_map_get(twice, sizeof(twice), NULL, 1, &v, &n),
             HSC_EMALFORMED, "a key twice");
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_EQ(hsc_cbor_skip(bad[i], 3, &n), HSC_EMALFORMED,
                 apr_psprintf(pool, "refused: malformed item %d", (int)i));
    }
    memset(deep, 0x81, sizeof(deep)); /* [[[[...]]]] */
    deep[sizeof(deep) - 1] = 0x00;
    CHECK_EQ(hsc_cbor_skip(deep, sizeof(deep), &n), HSC_EMALFORMED,
             "nesting deeper than the maximum");
    CHECK(hsc_cbor_skip(deep + 3, sizeof(deep) - 3, &n) == HSC_OK,
          "nesting within it");
    {
        static const unsigned char many[] = {0x9a, 0xff, 0xff, 0xff, 0xff};
        CHECK_EQ(hsc_cbor_skip(many, sizeof(many), &n), HSC_EMALFORMED,
                 "an array that counts more items than bytes");
    }
}

/* --- keys that are refused ------------------------------------------------
 */

static EVP_PKEY *make_key(const char *type, const char *param, int bits)
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
    EVP_PKEY *k = NULL;

    if (c != NULL && EVP_PKEY_keygen_init(c) == 1) {
        if (param != NULL) {
            EVP_PKEY_CTX_set_group_name(c, param);
        }
        if (bits > 0) {
            EVP_PKEY_CTX_set_rsa_keygen_bits(c, bits);
        }
        if (EVP_PKEY_generate(c, &k) != 1) {
            k = NULL;
        }
    }
    EVP_PKEY_CTX_free(c);
    return k;
}

static void weak_or_other_keys_are_refused(void)
{
    struct {
        const char *type, *group;
        int bits, alg;
        const char *what;
    } cases[] = {{"RSA", NULL, 1024, HSC_WA_RS256, "RSA of 1024 bits"},
                 {"EC", "P-384", 0, HSC_WA_ES256, "P-384 for ES256"},
                 {"ED448", NULL, 0, HSC_WA_EDDSA, "Ed448 for EdDSA"}};
    size_t i;
    EVP_PKEY *out = NULL;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        EVP_PKEY *k = make_key(cases[i].type, cases[i].group, cases[i].bits);
        unsigned char *der = NULL;
        int n = k ? i2d_PUBKEY(k, &der) : -1;

        CHECK(n > 0
                  && hsc_wa_key_from_spki(der, (size_t)n, cases[i].alg, &out)
                         == HSC_EMALFORMED,
              apr_pstrcat(pool, "refused: ", cases[i].what, NULL));
        OPENSSL_free(der);
        EVP_PKEY_free(k);
    }
    CHECK_EQ(hsc_wa_key_from_spki((const unsigned char *)"\x30\x00", 2,
                                  HSC_WA_ES256, &out),
             HSC_EMALFORMED, "refused: not an SPKI");
    CHECK_EQ(hsc_wa_key_from_spki((const unsigned char *)"\x30\x00", 2, -35,
                                  &out),
             HSC_EINVAL, "refused: ES384 asked for");
}

/* --- challenges ------------------------------------------------------------
 */

#define LIFETIME 300000
#define SKEW 5000

static hsc_keyring_t *ring_of(const char *text)
{
    hsc_keyring_t *kr = NULL;
    const char *msg = NULL;

    if (hsc_keyring_parse(pool, "test", text, strlen(text), &kr, &msg)
        != HSC_OK) {
        return NULL;
    }
    return kr;
}

static hsc_keyring_t *vector_ring;
static int challenges_accepted, challenges_refused;

static hsc_wa_purpose_t purpose_of(const char *s)
{
    return s == NULL                         ? 0
           : strcmp(s, "register") == 0      ? HSC_WA_REGISTER
           : strcmp(s, "second-factor") == 0 ? HSC_WA_SECOND_FACTOR
           : strcmp(s, "passwordless") == 0  ? HSC_WA_PASSWORDLESS
                                             : 0;
}

static void check_challenge(vblock_t *b)
{
    hsc_wa_purpose_t purpose = purpose_of(vb_field(b, "purpose"));
    const char *user = vb_text(b, "user"), *now = vb_field(b, "now_ms");
    size_t n = 0;
    unsigned char *c = vb_bytes(b, "challenge", pool, &n);
    int64_t issued = -1;
    hsc_status_t st;

    if (purpose == 0 || user == NULL || now == NULL || c == NULL) {
        CHECK(0, "a challenge block has its fields");
        return;
    }
    st = hsc_wa_challenge_check(vector_ring, c, n, purpose, user,
                                apr_atoi64(now), LIFETIME, SKEW, &issued);
    if (strcmp(b->kind, "challenge") == 0) {
        const char *want = vb_field(b, "issued_ms");
        CHECK(st == HSC_OK && want != NULL && issued == apr_atoi64(want),
              apr_psprintf(pool, "line %d: accepted, issued %s", b->line,
                           want ? want : "?"));
        challenges_accepted++;
    }
    else {
        const char *why = vb_field(b, "why");
        hsc_status_t want = why == NULL                     ? HSC_OK
                            : strcmp(why, "expired") == 0   ? HSC_EEXPIRED
                            : strcmp(why, "future") == 0    ? HSC_EFUTURE
                            : strcmp(why, "badmac") == 0    ? HSC_EBADMAC
                            : strcmp(why, "malformed") == 0 ? HSC_EMALFORMED
                                                            : HSC_OK;
        CHECK(want != HSC_OK && st == want,
              apr_psprintf(pool, "line %d: refused (%s)", b->line,
                           why ? why : "?"));
        challenges_refused++;
    }
}

static void challenges_made_elsewhere_are_read(void)
{
    static const char *const kinds[] = {"challenge", "refuse", NULL};
    int blocks;

    vector_ring = ring_of("k1 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8\n");
    CHECK(vector_ring != NULL, "the vectors' key file");
    blocks = vb_read_file(HSC_CHALLENGES_FILE, pool, kinds, check_challenge);
    CHECK(blocks >= 0, "the file opens: " HSC_CHALLENGES_FILE);
    CHECK_EQ(blocks, challenges_accepted + challenges_refused,
             "every block was checked");
    CHECK(challenges_accepted >= 3 && challenges_refused >= 6,
          "accepted and refused ones are there");
}

static void challenges_are_bound_and_rotate(void)
{
    hsc_keyring_t *old = ring_of(
        "k1 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8\n");
    hsc_keyring_t *rotated = ring_of(
        "k2 ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8\n"
        "k1 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8\n");
    hsc_keyring_t *gone = ring_of(
        "k2 ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8\n");
    unsigned char a[HSC_WA_CHALLENGE_LEN], b[HSC_WA_CHALLENGE_LEN];
    int64_t now = 1764979200000, issued = 0;

    CHECK(old && rotated && gone, "three key files");
    CHECK(hsc_wa_challenge_make(old, HSC_WA_REGISTER, "alice", now, a) == HSC_OK
              && hsc_wa_challenge_make(old, HSC_WA_REGISTER, "alice", now, b)
                     == HSC_OK,
          "two made");
    CHECK(memcmp(a, b, sizeof(a)) != 0, "two challenges differ (a nonce)");
    CHECK(hsc_wa_challenge_check(old, a, sizeof(a), HSC_WA_REGISTER, "alice",
                                 now + 10, LIFETIME, SKEW, &issued)
                  == HSC_OK
              && issued == now,
          "accepted by the key that made it, its time read back");
    CHECK_EQ(hsc_wa_challenge_check(rotated, a, sizeof(a), HSC_WA_REGISTER,
                                    "alice", now, LIFETIME, SKEW, &issued),
             HSC_OK, "and after a rotation, by the old key in second place");
    CHECK_EQ(hsc_wa_challenge_check(gone, a, sizeof(a), HSC_WA_REGISTER,
                                    "alice", now, LIFETIME, SKEW, &issued),
             HSC_EBADMAC, "not once that key is removed");
    CHECK_EQ(hsc_wa_challenge_check(old, a, sizeof(a), HSC_WA_REGISTER, "alicf",
                                    now, LIFETIME, SKEW, &issued),
             HSC_EBADMAC, "not for another user");
    CHECK_EQ(hsc_wa_challenge_check(old, a, sizeof(a), HSC_WA_PASSWORDLESS,
                                    "alice", now, LIFETIME, SKEW, &issued),
             HSC_EBADMAC, "not for another purpose");
    a[12] ^= 1;
    CHECK_EQ(hsc_wa_challenge_check(old, a, sizeof(a), HSC_WA_REGISTER, "alice",
                                    now, LIFETIME, SKEW, &issued),
             HSC_EBADMAC, "not with its nonce changed");
    a[12] ^= 1;
    a[9] ^= 1;
    CHECK_EQ(hsc_wa_challenge_check(old, a, sizeof(a), HSC_WA_REGISTER, "alice",
                                    now, LIFETIME, SKEW, &issued),
             HSC_EBADMAC, "not with its time changed");
    a[9] ^= 1;
    CHECK(hsc_wa_challenge_make(old, HSC_WA_PASSWORDLESS, NULL, now, a)
                  == HSC_OK
              && hsc_wa_challenge_check(old, a, sizeof(a), HSC_WA_PASSWORDLESS,
                                        "", now, LIFETIME, SKEW, &issued)
                     == HSC_OK,
          "no user is the empty name");
    CHECK_EQ(hsc_wa_challenge_make(old, (hsc_wa_purpose_t)9, "alice", now, a),
             HSC_EINVAL, "no challenge for an unknown purpose");
}

int main(void)
{
    apr_initialize();
    apr_pool_create(&pool, NULL);
    RUN(every_vector_holds);
    RUN(client_data_is_read_as_the_spec_writes_it);
    RUN(authenticator_data_is_bounded);
    RUN(cbor_is_definite_and_shortest);
    RUN(weak_or_other_keys_are_refused);
    RUN(challenges_made_elsewhere_are_read);
    RUN(challenges_are_bound_and_rotate);
    apr_pool_destroy(pool);
    apr_terminate();
    return hsc_test_done();
}
