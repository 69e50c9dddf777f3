/*
 * hsc_wa_ceremony.h: a WebAuthn registration (§7.1) and assertion (§7.2)
 * as the relying party verifies them, on top of hsc_webauthn.h's parsers
 * and checks, without a store or httpd; and the configuration rules of the
 * relying party's id and origins (docs/passkeys.md). What needs the store
 * (the one-time compare-and-set, the credential's key) is the caller's:
 * it looks the credential up, calls these, then hsc_passkeys_accept.
 */
#ifndef HSC_WA_CEREMONY_H
#define HSC_WA_CEREMONY_H

#include <stddef.h>
#include <stdint.h>

#include "hsc_util.h"

/* HSCWebAuthnUserVerification. */
typedef enum {
    HSC_WA_UV_PREFERRED = 0,
    HSC_WA_UV_REQUIRED,
    HSC_WA_UV_DISCOURAGED
} hsc_wa_uv_t;

/* Its keyword ("preferred", "required", "discouraged"). */
const char *hsc_wa_uv_name(hsc_wa_uv_t uv);
/* HSC_OK and *uv, or HSC_EINVAL. */
hsc_status_t hsc_wa_uv_parse(const char *s, hsc_wa_uv_t *uv) HSC_MUST_CHECK;

/* The longest RP ID (a DNS name). */
#define HSC_WA_RP_ID_MAX 253

/*
 * An RP ID: a DNS name in lower case (letters, digits, '-', '.'), not an
 * IP address (WebAuthn refuses those: a browser never offers a passkey
 * for one). HSC_OK, or HSC_EINVAL with the reason in err.
 */
hsc_status_t hsc_wa_rp_id_check(const char *rp_id, char *err,
                                size_t errlen) HSC_MUST_CHECK;

/*
 * An allowed origin for rp_id: "https://host[:port]" or, for tests,
 * "http://localhost[:port]", host equal to rp_id or a subdomain of it,
 * nothing after. HSC_OK, or HSC_EINVAL with the reason in err.
 */
hsc_status_t hsc_wa_origin_check(const char *origin, const char *rp_id,
                                 char *err, size_t errlen) HSC_MUST_CHECK;

/* What a ceremony expects (the server's settings and its challenge). */
typedef struct {
    const char *rp_id;
    const char *const *origins; /* clientDataJSON's origin must be one */
    size_t n_origins;
    const char *challenge; /* base64url text of the challenge issued */
    int require_uv;        /* UV flag required */
} hsc_wa_expect_t;

/* A verified registration: pointers into the attestation object. */
typedef struct {
    const unsigned char *cred_id;
    size_t cred_id_len;
    int alg;
    unsigned flags; /* HSC_WA_FLAG_* of its authenticator data */
    uint32_t sign_count;
} hsc_wa_registration_t;

/*
 * Registration (contract step 5): clientDataJSON of type webauthn.create
 * with the challenge and an allowed origin; the attestation object's
 * authenticator data with rpIdHash = SHA-256(rp_id), UP, UV when
 * required, AT, a credential id equal to id (the one the browser
 * reported), a COSE key of alg (-7, -8, -257) equal to the SPKI's key.
 * HSC_OK and *out; HSC_EMALFORMED (not these structures); HSC_EAUTH (a
 * check failed); HSC_EINVAL (an algorithm not verified here). err says
 * which check (never a secret: no key, no signature).
 */
hsc_status_t hsc_wa_registration_verify(
    const hsc_wa_expect_t *e, const unsigned char *cdj, size_t cdj_len,
    const unsigned char *att, size_t att_len, const unsigned char *spki,
    size_t spki_len, int alg, const unsigned char *id, size_t id_len,
    hsc_wa_registration_t *out, char *err, size_t errlen) HSC_MUST_CHECK;

/* A verified assertion. */
typedef struct {
    unsigned flags;
    uint32_t sign_count;
} hsc_wa_assertion_t;

/*
 * Assertion: clientDataJSON of type webauthn.get with the challenge and an
 * allowed origin; authenticator data without attested credential data,
 * rpIdHash, UP, UV when required; the signature with the stored key
 * (spki, alg); the sign count rule against stored_count
 * (hsc_wa_sign_count_ok). HSC_OK and *out; HSC_EMALFORMED; HSC_EAUTH;
 * HSC_EINVAL; HSC_ECRYPTO.
 */
hsc_status_t hsc_wa_assertion_verify(const hsc_wa_expect_t *e,
                                     const unsigned char *cdj, size_t cdj_len,
                                     const unsigned char *ad, size_t ad_len,
                                     const unsigned char *sig, size_t sig_len,
                                     const unsigned char *spki, size_t spki_len,
                                     int alg, int64_t stored_count,
                                     hsc_wa_assertion_t *out, char *err,
                                     size_t errlen) HSC_MUST_CHECK;

/* The sign count rule (§7.2 step 21): 1 when both counts are 0 (an
 * authenticator without a counter) or the new one is greater. */
int hsc_wa_sign_count_ok(int64_t stored, int64_t now_seen);

/* The PRF salt sent at every ceremony: SHA-256("hsc-prf-seal-v1"). */
void hsc_wa_prf_salt(unsigned char out[32]);

#endif /* HSC_WA_CEREMONY_H */
