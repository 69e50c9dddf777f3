/*
 * test_wa_ceremony.c: hsc_wa_ceremony.c's registration and assertion
 * against WebAuthn Level 3's own vectors
 * (test/vectors/vectors-webauthn.txt: RP ID example.org, origin
 * https://example.org), each followed by the refusals a relying party
 * must make with one thing changed: the RP ID, the origin, the challenge,
 * the ceremony's type, UV required, the credential id, the key, the
 * signature, the sign count. Also the RP ID and origin rules of the
 * configuration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>

#include <openssl/x509.h>

#include "hsc_test.h"
#include "vector_file.h"
#include "hsc_b64.h"
#include "hsc_wa_ceremony.h"
#include "hsc_webauthn.h"

#ifndef HSC_SRCDIR
#error "HSC_SRCDIR must name the source tree"
#endif
#define HSC_VECTORS_FILE HSC_SRCDIR "/test/vectors/vectors-webauthn.txt"

static apr_pool_t *pool;
static int registered, asserted, refused_cross, refused_alg;

static const char *const origins[] = {"https://other.example.org",
                                      "https://example.org"};

#define NAMED(what) apr_pstrcat(pool, name, ": ", what, NULL)

static void check_block(vblock_t *b)
{
    const char *name = vb_field(b, "name");
    size_t rcd_len, att_len, ad_len, acd_len, sig_len, spki_len = 0;
    unsigned char *rcd = vb_bytes(b, "reg_client_data", pool, &rcd_len);
    unsigned char *att = vb_bytes(b, "attestation", pool, &att_len);
    unsigned char *ad = vb_bytes(b, "auth_data", pool, &ad_len);
    unsigned char *acd = vb_bytes(b, "auth_client_data", pool, &acd_len);
    unsigned char *sig = vb_bytes(b, "signature", pool, &sig_len);
    hsc_wa_expect_t e = {"example.org", origins, 2,
                         vb_b64u(b, "reg_challenge", pool), 0};
    const char *ach = vb_b64u(b, "auth_challenge", pool);
    const unsigned char *adp;
    size_t adlen;
    hsc_wa_auth_data_t rad;
    hsc_wa_registration_t reg;
    hsc_wa_assertion_t as;
    EVP_PKEY *pk = NULL;
    unsigned char *spki = NULL, *der = NULL, *id;
    int alg = 0, n;
    unsigned flags;
    char err[200];
    hsc_status_t st;

    if (name == NULL || rcd == NULL || att == NULL || ad == NULL || acd == NULL
        || sig == NULL
        || hsc_wa_attestation_auth_data(att, att_len, &adp, &adlen) != HSC_OK
        || hsc_wa_auth_data_parse(adp, adlen, &rad) != HSC_OK) {
        CHECK(0, "a vector has every field");
        return;
    }
    /* The SPKI a browser's getPublicKey() would give: from the COSE key. */
    st = hsc_wa_key_from_cose(rad.cose_key, rad.cose_key_len, &alg, &pk);
    if (st == HSC_EINVAL) {
        /* ES384: the registration is refused as an algorithm not ours. */
        CHECK_EQ(hsc_wa_registration_verify(&e, rcd, rcd_len, att, att_len,
                                            (const unsigned char *)"x", 1, -35,
                                            rad.cred_id, rad.cred_id_len, &reg,
                                            err, sizeof(err)),
                 HSC_EINVAL, NAMED("an algorithm not verified is refused"));
        refused_alg++;
        return;
    }
    n = i2d_PUBKEY(pk, &der);
    EVP_PKEY_free(pk);
    CHECK(n > 0, NAMED("the key has an SPKI"));
    spki = der;
    spki_len = n > 0 ? (size_t)n : 0;
    id = apr_pmemdup(pool, rad.cred_id, rad.cred_id_len);

    st = hsc_wa_registration_verify(&e, rcd, rcd_len, att, att_len, spki,
                                    spki_len, alg, id, rad.cred_id_len, &reg,
                                    err, sizeof(err));
    if (strstr(name, "Origin") != NULL) {
        CHECK_EQ(st, HSC_EAUTH, NAMED("a cross-origin registration refused"));
        CHECK(strstr(err, "cross-origin") != NULL, NAMED(err));
        refused_cross++;
        goto done;
    }
    CHECK_EQ(st, HSC_OK, NAMED("the registration verifies"));
    if (st != HSC_OK) {
        fprintf(stderr, "# %s: %s\n", name, err);
        goto done;
    }
    registered++;
    CHECK(reg.cred_id_len == rad.cred_id_len && reg.alg == alg
              && (reg.flags & HSC_WA_FLAG_AT),
          NAMED("it returns the credential id, algorithm and flags"));

    /* Registration refusals, one change each. */
    e.rp_id = "example.com";
    CHECK_EQ(hsc_wa_registration_verify(&e, rcd, rcd_len, att, att_len, spki,
                                        spki_len, alg, id, rad.cred_id_len,
                                        &reg, err, sizeof(err)),
             HSC_EAUTH, NAMED("another RP ID: refused"));
    CHECK(strstr(err, "rpIdHash") != NULL, NAMED("rpIdHash named"));
    e.rp_id = "example.org";
    e.n_origins = 1;
    CHECK_EQ(hsc_wa_registration_verify(&e, rcd, rcd_len, att, att_len, spki,
                                        spki_len, alg, id, rad.cred_id_len,
                                        &reg, err, sizeof(err)),
             HSC_EAUTH, NAMED("an origin not allowed: refused"));
    e.n_origins = 2;
    e.challenge = ach;
    CHECK_EQ(hsc_wa_registration_verify(&e, rcd, rcd_len, att, att_len, spki,
                                        spki_len, alg, id, rad.cred_id_len,
                                        &reg, err, sizeof(err)),
             HSC_EAUTH, NAMED("another challenge: refused"));
    e.challenge = vb_b64u(b, "reg_challenge", pool);
    e.require_uv = !(rad.flags & HSC_WA_FLAG_UV);
    if (e.require_uv) {
        CHECK_EQ(hsc_wa_registration_verify(&e, rcd, rcd_len, att, att_len,
                                            spki, spki_len, alg, id,
                                            rad.cred_id_len, &reg, err,
                                            sizeof(err)),
                 HSC_EAUTH, NAMED("UV required, UV clear: refused"));
        e.require_uv = 0;
    }
    id[0] ^= 1;
    CHECK_EQ(hsc_wa_registration_verify(&e, rcd, rcd_len, att, att_len, spki,
                                        spki_len, alg, id, rad.cred_id_len,
                                        &reg, err, sizeof(err)),
             HSC_EAUTH, NAMED("another credential id: refused"));
    id[0] ^= 1;
    CHECK(hsc_wa_registration_verify(&e, rcd, rcd_len, att, att_len, spki,
                                     spki_len,
                                     alg == HSC_WA_ES256 ? HSC_WA_EDDSA
                                                         : HSC_WA_ES256,
                                     id, rad.cred_id_len, &reg, err,
                                     sizeof(err))
              != HSC_OK,
          NAMED("another algorithm reported: refused"));
    if (alg == HSC_WA_ES256) {
        /* Another P-256 key's SPKI: the key cross-check refuses it. */
        EVP_PKEY *other = EVP_EC_gen("P-256");
        unsigned char *oder = NULL;
        int on = other != NULL ? i2d_PUBKEY(other, &oder) : 0;
        CHECK(on > 0
                  && hsc_wa_registration_verify(&e, rcd, rcd_len, att, att_len,
                                                oder, (size_t)on, alg, id,
                                                rad.cred_id_len, &reg, err,
                                                sizeof(err))
                         == HSC_EAUTH
                  && strstr(err, "SPKI") != NULL,
              NAMED("another key's SPKI: refused"));
        OPENSSL_free(oder);
        EVP_PKEY_free(other);
    }
    CHECK_EQ(hsc_wa_registration_verify(&e, acd, acd_len, att, att_len, spki,
                                        spki_len, alg, id, rad.cred_id_len,
                                        &reg, err, sizeof(err)),
             HSC_EAUTH, NAMED("a webauthn.get clientDataJSON: refused"));
    CHECK_EQ(hsc_wa_registration_verify(&e, rcd, rcd_len, att, att_len - 1,
                                        spki, spki_len, alg, id,
                                        rad.cred_id_len, &reg, err,
                                        sizeof(err)),
             HSC_EMALFORMED, NAMED("a cut attestation object: malformed"));

    /* The assertion. */
    e.challenge = ach;
    st = hsc_wa_assertion_verify(&e, acd, acd_len, ad, ad_len, sig, sig_len,
                                 spki, spki_len, alg, 0, &as, err, sizeof(err));
    CHECK_EQ(st, HSC_OK, NAMED("the assertion verifies"));
    if (st != HSC_OK) {
        fprintf(stderr, "# %s: %s\n", name, err);
        goto done;
    }
    asserted++;
    flags = as.flags;
    CHECK_EQ(hsc_wa_assertion_verify(&e, rcd, rcd_len, ad, ad_len, sig, sig_len,
                                     spki, spki_len, alg, 0, &as, err,
                                     sizeof(err)),
             HSC_EAUTH, NAMED("a webauthn.create clientDataJSON: refused"));
    e.rp_id = "example.com";
    CHECK_EQ(hsc_wa_assertion_verify(&e, acd, acd_len, ad, ad_len, sig, sig_len,
                                     spki, spki_len, alg, 0, &as, err,
                                     sizeof(err)),
             HSC_EAUTH, NAMED("assertion for another RP ID: refused"));
    e.rp_id = "example.org";
    e.n_origins = 1;
    CHECK_EQ(hsc_wa_assertion_verify(&e, acd, acd_len, ad, ad_len, sig, sig_len,
                                     spki, spki_len, alg, 0, &as, err,
                                     sizeof(err)),
             HSC_EAUTH, NAMED("assertion from another origin: refused"));
    e.n_origins = 2;
    if (!(flags & HSC_WA_FLAG_UV)) {
        e.require_uv = 1;
        CHECK_EQ(hsc_wa_assertion_verify(&e, acd, acd_len, ad, ad_len, sig,
                                         sig_len, spki, spki_len, alg, 0, &as,
                                         err, sizeof(err)),
                 HSC_EAUTH, NAMED("assertion without UV where required"));
        CHECK(strstr(err, "UV") != NULL, NAMED("UV named"));
        e.require_uv = 0;
    }
    sig[sig_len / 2] ^= 0x01;
    CHECK(hsc_wa_assertion_verify(&e, acd, acd_len, ad, ad_len, sig, sig_len,
                                  spki, spki_len, alg, 0, &as, err, sizeof(err))
              != HSC_OK,
          NAMED("a bit of the signature changed: refused"));
    sig[sig_len / 2] ^= 0x01;
    CHECK_EQ(hsc_wa_assertion_verify(&e, acd, acd_len, ad, ad_len, sig, sig_len,
                                     spki, spki_len, alg, 5, &as, err,
                                     sizeof(err)),
             HSC_EAUTH, NAMED("a count that did not grow: refused"));
    CHECK_EQ(hsc_wa_assertion_verify(&e, acd, acd_len, adp, adlen, sig, sig_len,
                                     spki, spki_len, alg, 0, &as, err,
                                     sizeof(err)),
             HSC_EAUTH, NAMED("registration's authData as an assertion's"));

done:
    OPENSSL_free(der);
}

static void every_vector(void)
{
    static const char *const kinds[] = {"vector", NULL};
    int blocks = vb_read_file(HSC_VECTORS_FILE, pool, kinds, check_block);

    CHECK(blocks >= 0, "the vectors file opens");
    CHECK_EQ(registered, 5,
             "five registrations verified (ES256 x3, RS256, "
             "EdDSA)");
    CHECK_EQ(asserted, 5, "and their assertions");
    CHECK_EQ(refused_cross, 2, "crossOrigin and topOrigin refused");
    CHECK_EQ(refused_alg, 1, "ES384 refused");
}

static void sign_counts(void)
{
    CHECK(hsc_wa_sign_count_ok(0, 0), "0 then 0: no counter");
    CHECK(hsc_wa_sign_count_ok(0, 1), "0 then 1");
    CHECK(hsc_wa_sign_count_ok(7, 8), "7 then 8");
    CHECK(!hsc_wa_sign_count_ok(7, 7), "7 then 7 refused");
    CHECK(!hsc_wa_sign_count_ok(7, 0), "7 then 0 refused");
}

static void rp_ids_and_origins(void)
{
    char err[160];
    static const char *const bad_ids[] =
        {"",     "127.0.0.1",    "::1",       "[::1]",   "Example.com",
         "a..b", ".example.com", "example.",  "-a.com",  "a-.com",
         "a b",  "example.com/", "10.0.0.1.", "x_y.com", NULL};
    static const char *const bad_origins[] = {"example.org",
                                              "https://example.org/",
                                              "https://example.org:",
                                              "https://example.org:0443",
                                              "https://example.org:123456",
                                              "http://example.org",
                                              "https://badexample.org",
                                              "https://example.org.evil.com",
                                              "https://EXAMPLE.org",
                                              "ftp://example.org",
                                              NULL};
    int i;

    CHECK_EQ(hsc_wa_rp_id_check("example.org", err, sizeof(err)), HSC_OK,
             "example.org is an RP ID");
    CHECK_EQ(hsc_wa_rp_id_check("localhost", err, sizeof(err)), HSC_OK,
             "localhost is an RP ID");
    for (i = 0; bad_ids[i] != NULL; i++) {
        CHECK_EQ(hsc_wa_rp_id_check(bad_ids[i], err, sizeof(err)), HSC_EINVAL,
                 apr_pstrcat(pool, "not an RP ID: '", bad_ids[i], "'", NULL));
    }
    CHECK(hsc_wa_rp_id_check("192.0.2.1", err, sizeof(err)) == HSC_EINVAL
              && strstr(err, "IP address") != NULL,
          "an IP address is named as such");
    CHECK_EQ(hsc_wa_origin_check("https://example.org", "example.org", err,
                                 sizeof(err)),
             HSC_OK, "the RP ID's own origin");
    CHECK_EQ(hsc_wa_origin_check("https://login.example.org:8443",
                                 "example.org", err, sizeof(err)),
             HSC_OK, "a subdomain with a port");
    CHECK_EQ(hsc_wa_origin_check("http://localhost:8529", "localhost", err,
                                 sizeof(err)),
             HSC_OK, "http://localhost for tests");
    CHECK_EQ(hsc_wa_origin_check("https://localhost", "example.org", err,
                                 sizeof(err)),
             HSC_EINVAL, "localhost is not on example.org");
    for (i = 0; bad_origins[i] != NULL; i++) {
        CHECK_EQ(hsc_wa_origin_check(bad_origins[i], "example.org", err,
                                     sizeof(err)),
                 HSC_EINVAL,
                 apr_pstrcat(pool, "refused: '", bad_origins[i], "'", NULL));
    }
}

static void uv_and_salt(void)
{
    hsc_wa_uv_t uv;
    unsigned char salt[32];
    char b64[64];
    int i;

    for (i = 0; i < 3; i++) {
        CHECK(hsc_wa_uv_parse(hsc_wa_uv_name((hsc_wa_uv_t)i), &uv) == HSC_OK
                  && (int)uv == i,
              "a UV keyword reads back");
    }
    CHECK_EQ(hsc_wa_uv_parse("Required", &uv), HSC_EINVAL, "case matters");
    hsc_wa_prf_salt(salt);
    b64[hsc_b64url_encode(salt, 32, b64)] = '\0';
    /* python3 -c 'import hashlib,base64;print(base64.urlsafe_b64encode(
     *   hashlib.sha256(b"hsc-prf-seal-v1").digest()).rstrip(b"="))' */
    CHECK_STR(b64, "10dvcs8n1HwR8OZjVheQi7oEp-QDtJ12UEmruo6GhLw",
              "the PRF salt is SHA-256(\"hsc-prf-seal-v1\")");
}

int main(void)
{
    apr_initialize();
    apr_pool_create(&pool, NULL);
    RUN(every_vector);
    RUN(sign_counts);
    RUN(rp_ids_and_origins);
    RUN(uv_and_salt);
    apr_pool_destroy(pool);
    apr_terminate();
    return hsc_test_done();
}
