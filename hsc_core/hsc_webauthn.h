/*
 * hsc_webauthn.h: the relying party's checks of WebAuthn Level 3 (§7.1
 * registration, §7.2 authentication, attestation "none") that need no
 * store and no httpd: clientDataJSON by the spec's limited verification
 * algorithm (§5.8.1.2), authenticator data (§6.1), the credential's public
 * key (its SPKI from getPublicKey(), or its COSE key), and the assertion's
 * signature for ES256 (-7), EdDSA (-8, Ed25519) and RS256 (-257) with
 * OpenSSL 3. Every parser takes any bytes (test/fuzz/fuzz_webauthn.c).
 */
#ifndef HSC_WEBAUTHN_H
#define HSC_WEBAUTHN_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "hsc_util.h"

/* COSE algorithm identifiers (IANA) this relying party verifies. */
#define HSC_WA_ES256 (-7)
#define HSC_WA_EDDSA (-8)
#define HSC_WA_RS256 (-257)

/* Flags of authenticator data. */
#define HSC_WA_FLAG_UP 0x01 /* user present */
#define HSC_WA_FLAG_UV 0x04 /* user verified */
#define HSC_WA_FLAG_BE 0x08 /* backup eligible */
#define HSC_WA_FLAG_BS 0x10 /* backed up */
#define HSC_WA_FLAG_AT 0x40 /* attested credential data follows */
#define HSC_WA_FLAG_ED 0x80 /* extensions follow */

/* A credential id's longest (§5.1.3's credential id, 1023 bytes). */
#define HSC_WA_CRED_ID_MAX 1023
/* RSA keys shorter than this are refused. */
#define HSC_WA_RSA_BITS_MIN 2048

/* Authenticator data, its parts pointing into the bytes parsed. */
typedef struct {
    const unsigned char *rp_id_hash; /* 32 bytes */
    unsigned flags;
    uint32_t sign_count;
    /* With HSC_WA_FLAG_AT (registration), else NULL and 0: */
    const unsigned char *aaguid; /* 16 bytes */
    const unsigned char *cred_id;
    size_t cred_id_len;
    const unsigned char *cose_key; /* one CBOR map */
    size_t cose_key_len;
    /* With HSC_WA_FLAG_ED: one CBOR map (unread: no extension of the
     * authenticator's is asked for), else NULL and 0. */
    const unsigned char *ext;
    size_t ext_len;
} hsc_wa_auth_data_t;

/*
 * Parse authenticator data: rpIdHash(32) flags(1) signCount(4, big-endian)
 * [aaguid(16) credIdLen(2) credId COSE_Key] [extensions], nothing after.
 * HSC_OK, or HSC_EMALFORMED (short, a credential id over the maximum, a
 * COSE key or extensions that are not one well-formed CBOR map, trailing
 * bytes, BS set without BE).
 */
hsc_status_t hsc_wa_auth_data_parse(const unsigned char *p, size_t len,
                                    hsc_wa_auth_data_t *ad) HSC_MUST_CHECK;

/*
 * The authenticator data of an attestation object (a CBOR map of "fmt",
 * "attStmt" and "authData"; the statement is not read: attestation
 * "none" is the policy). HSC_OK with *ad and *ad_len pointing into att,
 * or HSC_EMALFORMED.
 */
hsc_status_t hsc_wa_attestation_auth_data(const unsigned char *att, size_t len,
                                          const unsigned char **ad,
                                          size_t *ad_len) HSC_MUST_CHECK;

/*
 * The limited verification algorithm of clientDataJSON (§5.8.1.2): it
 * must begin {"type":TYPE,"challenge":CHALLENGE,"origin":ORIGIN,
 * "crossOrigin":false with each string as CCDToString writes it, then '}'
 * or ',', and no "topOrigin" after it (no iframes). type is
 * "webauthn.create" or "webauthn.get"; challenge its base64url text.
 * HSC_OK, or HSC_EAUTH (not the ceremony, challenge or origin asked for,
 * or cross-origin), or HSC_EMALFORMED (not a clientDataJSON at all).
 */
hsc_status_t hsc_wa_client_data_check(const unsigned char *cdj, size_t len,
                                      const char *type, const char *challenge,
                                      const char *origin) HSC_MUST_CHECK;

/*
 * A credential's public key from its SPKI DER (getPublicKey()) for alg:
 * the key's type must be the algorithm's (P-256 for ES256, Ed25519 for
 * EdDSA, RSA of HSC_WA_RSA_BITS_MIN bits or more for RS256), an EC point
 * must be on its curve. HSC_OK and *pk (EVP_PKEY_free it), HSC_EINVAL
 * (another algorithm), HSC_EMALFORMED (not such a key).
 */
hsc_status_t hsc_wa_key_from_spki(const unsigned char *der, size_t len, int alg,
                                  EVP_PKEY **pk) HSC_MUST_CHECK;

/*
 * The same from a COSE_Key (RFC 9053: kty 2 crv 1 alg -7; kty 1 crv 6
 * alg -8; kty 3 alg -257), as authenticator data carries it. *alg is its
 * algorithm. HSC_OK, HSC_EINVAL (an algorithm not verified here),
 * HSC_EMALFORMED.
 */
hsc_status_t hsc_wa_key_from_cose(const unsigned char *cose, size_t len,
                                  int *alg, EVP_PKEY **pk) HSC_MUST_CHECK;

/* 1 when a and b are the same public key. */
int hsc_wa_key_equal(const EVP_PKEY *a, const EVP_PKEY *b);

/*
 * An assertion's signature (§7.2 step 20) over authData ||
 * SHA-256(clientDataJSON) with pk for alg: ES256 a DER ECDSA signature,
 * EdDSA 64 bytes, RS256 PKCS#1 v1.5 with SHA-256. HSC_OK, or HSC_EAUTH
 * (a bad signature), HSC_EINVAL (alg), HSC_ECRYPTO.
 */
hsc_status_t hsc_wa_verify(EVP_PKEY *pk, int alg, const unsigned char *ad,
                           size_t ad_len, const unsigned char *cdj,
                           size_t cdj_len, const unsigned char *sig,
                           size_t sig_len) HSC_MUST_CHECK;

#endif /* HSC_WEBAUTHN_H */
