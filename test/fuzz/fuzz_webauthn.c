/*
 * fuzz_webauthn.c: WebAuthn's parsers (hsc_cbor.c, hsc_webauthn.c) on any
 * bytes.
 *
 * Input: the whole of it is, in turn, one CBOR item, authenticator data,
 * an attestation object, a COSE key, an SPKI for each algorithm, and a
 * clientDataJSON. Properties (each aborts when violated):
 *   - hsc_cbor_skip's length is within the input, at least the head, and
 *     the same twice; a map's member found by key lies within the map;
 *   - parsed authenticator data covers the input exactly: 37 bytes, plus
 *     18 and the credential id and a COSE key that is one well-formed map
 *     when AT is set, plus one map when ED is set; a credential id is 1 to
 *     1023 bytes; BS never without BE;
 *   - an attestation object's authData lies within it, and is parsed as
 *     above without a crash;
 *   - a key read from a COSE key or an SPKI is of an algorithm verified
 *     here, and verifying any signature with it over the input neither
 *     crashes nor succeeds with an empty signature;
 *   - clientDataJSON accepted for "webauthn.get", challenge "abc", origin
 *     "https://example.org" starts with the spec's prefix and is followed
 *     by '}' or ','.
 */
#include <string.h>

#include "hsc_fuzz.h"
#include "hsc_cbor.h"
#include "hsc_webauthn.h"

static void check_auth_data(const uint8_t *p, size_t n)
{
    hsc_wa_auth_data_t ad;
    size_t covered;

    if (hsc_wa_auth_data_parse(p, n, &ad) != HSC_OK) {
        return;
    }
    HSC_FUZZ_ASSERT(ad.rp_id_hash == p);
    HSC_FUZZ_ASSERT(!(ad.flags & HSC_WA_FLAG_BS)
                    || (ad.flags & HSC_WA_FLAG_BE));
    covered = 37;
    if (ad.flags & HSC_WA_FLAG_AT) {
        HSC_FUZZ_ASSERT(ad.cred_id_len >= 1
                        && ad.cred_id_len <= HSC_WA_CRED_ID_MAX);
        HSC_FUZZ_ASSERT(ad.cred_id == p + 37 + 18);
        HSC_FUZZ_ASSERT(ad.cose_key == ad.cred_id + ad.cred_id_len);
        HSC_FUZZ_ASSERT(ad.cose_key[0] >> 5 == HSC_CBOR_MAP);
        covered += 18 + ad.cred_id_len + ad.cose_key_len;
    }
    else {
        HSC_FUZZ_ASSERT(ad.cred_id == NULL && ad.cose_key == NULL);
    }
    if (ad.flags & HSC_WA_FLAG_ED) {
        HSC_FUZZ_ASSERT(ad.ext == p + covered
                        && ad.ext[0] >> 5 == HSC_CBOR_MAP);
        covered += ad.ext_len;
    }
    HSC_FUZZ_ASSERT(covered == n);
}

static void check_key(EVP_PKEY *pk, int alg, const uint8_t *data, size_t size)
{
    HSC_FUZZ_ASSERT(alg == HSC_WA_ES256 || alg == HSC_WA_EDDSA
                    || alg == HSC_WA_RS256);
    HSC_FUZZ_ASSERT(hsc_wa_verify(pk, alg, data, size, data, size, data, 0)
                    != HSC_OK);
    (void)hsc_wa_verify(pk, alg, data, size / 2, data + size / 2,
                        size - size / 2, data, size);
    EVP_PKEY_free(pk);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int algs[] = {HSC_WA_ES256, HSC_WA_EDDSA, HSC_WA_RS256};
    const unsigned char *v, *ad;
    size_t len, again, vlen, ad_len, i;
    EVP_PKEY *pk = NULL;
    int alg = 0;

    if (hsc_cbor_skip(data, size, &len) == HSC_OK) {
        hsc_cbor_head_t h;
        HSC_FUZZ_ASSERT(len <= size && len >= 1);
        HSC_FUZZ_ASSERT(hsc_cbor_head(data, size, &h) == HSC_OK
                        && h.head_len <= len);
        HSC_FUZZ_ASSERT(hsc_cbor_skip(data, size, &again) == HSC_OK
                        && again == len);
        if (hsc_cbor_map_get(data, size, NULL, 3, &v, &vlen) == HSC_OK) {
            HSC_FUZZ_ASSERT(v > data && v + vlen <= data + len);
        }
    }
    check_auth_data(data, size);
    if (hsc_wa_attestation_auth_data(data, size, &ad, &ad_len) == HSC_OK) {
        HSC_FUZZ_ASSERT(ad > data && ad + ad_len <= data + size);
        check_auth_data(ad, ad_len);
    }
    if (hsc_wa_key_from_cose(data, size, &alg, &pk) == HSC_OK) {
        check_key(pk, alg, data, size);
    }
    for (i = 0; i < sizeof(algs) / sizeof(algs[0]); i++) {
        if (hsc_wa_key_from_spki(data, size, algs[i], &pk) == HSC_OK) {
            check_key(pk, algs[i], data, size);
        }
    }
    if (hsc_wa_client_data_check(data, size, "webauthn.get", "abc",
                                 "https://example.org")
        == HSC_OK) {
        static const char prefix
            [] = "{\"type\":\"webauthn.get\",\"challenge\":\"abc\",\"origin\":"
                 "\"https://example.org\",\"crossOrigin\":false";
        HSC_FUZZ_ASSERT(size > sizeof(prefix) - 1
                        && memcmp(data, prefix, sizeof(prefix) - 1) == 0);
        HSC_FUZZ_ASSERT(data[sizeof(prefix) - 1] == '}'
                        || data[sizeof(prefix) - 1] == ',');
    }
    return 0;
}
