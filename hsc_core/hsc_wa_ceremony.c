/*
 * hsc_wa_ceremony.c: registration and assertion checks in the spec's
 * order (§7.1, §7.2), and the RP ID and origin rules. Every refusal says
 * which check in err; the caller logs it with its tag.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/sha.h>

#include "hsc_wa_ceremony.h"
#include "hsc_webauthn.h"

static const char *const uv_names[] = {"preferred", "required", "discouraged"};

const char *hsc_wa_uv_name(hsc_wa_uv_t uv)
{
    return (unsigned)uv < 3 ? uv_names[uv] : "preferred";
}

hsc_status_t hsc_wa_uv_parse(const char *s, hsc_wa_uv_t *uv)
{
    unsigned i;

    *uv = HSC_WA_UV_PREFERRED;
    for (i = 0; s != NULL && i < 3; i++) {
        if (!strcmp(s, uv_names[i])) {
            *uv = (hsc_wa_uv_t)i;
            return HSC_OK;
        }
    }
    return HSC_EINVAL;
}

static hsc_status_t fail(hsc_status_t st, char *err, size_t errlen,
                         const char *msg)
{
    if (err != NULL && errlen > 0) {
        snprintf(err, errlen, "%s", msg);
    }
    return st;
}

/* A host name's characters, labels of 1..63, no '-' at either end. */
static int dns_name(const char *s, size_t n)
{
    size_t i, label = 0;

    if (n == 0 || n > HSC_WA_RP_ID_MAX || s[0] == '.' || s[n - 1] == '.') {
        return 0;
    }
    for (i = 0; i < n; i++) {
        char c = s[i];
        if (c == '.') {
            if (label == 0 || s[i - 1] == '-') {
                return 0;
            }
            label = 0;
            continue;
        }
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')
            || (c == '-' && label == 0) || ++label > 63) {
            return 0;
        }
    }
    return s[n - 1] != '-';
}

/* Only digits and dots: an IPv4 address (or something no browser would
 * treat as a domain either). */
static int ipv4_like(const char *s)
{
    return strspn(s, "0123456789.") == strlen(s);
}

hsc_status_t hsc_wa_rp_id_check(const char *rp_id, char *err, size_t errlen)
{
    if (rp_id == NULL || rp_id[0] == '\0') {
        return fail(HSC_EINVAL, err, errlen, "the RP ID is empty");
    }
    if (strchr(rp_id, ':') != NULL || strchr(rp_id, '[') != NULL
        || ipv4_like(rp_id)) {
        return fail(HSC_EINVAL, err, errlen,
                    "the RP ID is an IP address (WebAuthn needs a domain "
                    "name)");
    }
    if (!dns_name(rp_id, strlen(rp_id))) {
        return fail(HSC_EINVAL, err, errlen,
                    "the RP ID is not a domain name in lower case");
    }
    return HSC_OK;
}

hsc_status_t hsc_wa_origin_check(const char *origin, const char *rp_id,
                                 char *err, size_t errlen)
{
    const char *host, *end;
    size_t hn, rn = rp_id != NULL ? strlen(rp_id) : 0;
    int local = 0;

    if (origin == NULL) {
        return fail(HSC_EINVAL, err, errlen, "no origin");
    }
    if (!strncmp(origin, "https://", 8)) {
        host = origin + 8;
    }
    else if (!strncmp(origin, "http://", 7)) {
        host = origin + 7;
        local = 1;
    }
    else {
        return fail(HSC_EINVAL, err, errlen,
                    "an origin is https://host[:port] or "
                    "http://localhost[:port]");
    }
    end = strchr(host, ':');
    hn = end != NULL ? (size_t)(end - host) : strlen(host);
    if (end != NULL) {
        size_t d = strspn(end + 1, "0123456789");
        if (d == 0 || d > 5 || end[1 + d] != '\0' || end[1] == '0') {
            return fail(HSC_EINVAL, err, errlen,
                        "the origin's port is not a number, or something "
                        "follows it");
        }
    }
    if (!dns_name(host, hn)) {
        return fail(HSC_EINVAL, err, errlen,
                    "the origin's host is not a domain name in lower case, "
                    "or a path follows it");
    }
    if (local && (hn != 9 || memcmp(host, "localhost", 9))) {
        return fail(HSC_EINVAL, err, errlen,
                    "http:// is only for http://localhost (tests)");
    }
    if (!(hn == rn && !memcmp(host, rp_id, rn))
        && !(hn > rn + 1 && host[hn - rn - 1] == '.'
             && !memcmp(host + hn - rn, rp_id, rn))) {
        return fail(HSC_EINVAL, err, errlen,
                    "the origin's host is neither the RP ID nor a subdomain "
                    "of it");
    }
    return HSC_OK;
}

/* clientDataJSON against each allowed origin: the first that fits. */
static hsc_status_t client_data(const hsc_wa_expect_t *e,
                                const unsigned char *cdj, size_t len,
                                const char *type, char *err, size_t errlen)
{
    hsc_status_t st = HSC_EAUTH;
    size_t i;

    for (i = 0; i < e->n_origins; i++) {
        st = hsc_wa_client_data_check(cdj, len, type, e->challenge,
                                      e->origins[i]);
        if (st != HSC_EAUTH) {
            break; /* accepted, or not a clientDataJSON at all */
        }
    }
    if (st == HSC_EMALFORMED) {
        return fail(st, err, errlen, "clientDataJSON is malformed");
    }
    if (st != HSC_OK) {
        return fail(HSC_EAUTH, err, errlen,
                    "clientDataJSON: another type, challenge or origin, or "
                    "cross-origin");
    }
    return HSC_OK;
}

/* The flags and rpIdHash every ceremony checks. */
static hsc_status_t auth_data_common(const hsc_wa_expect_t *e,
                                     const hsc_wa_auth_data_t *ad, char *err,
                                     size_t errlen)
{
    unsigned char h[32];

    SHA256((const unsigned char *)e->rp_id, strlen(e->rp_id), h);
    if (!hsc_ct_equal(h, ad->rp_id_hash, sizeof(h))) {
        return fail(HSC_EAUTH, err, errlen,
                    "authenticator data: rpIdHash is not the RP ID's");
    }
    if (!(ad->flags & HSC_WA_FLAG_UP)) {
        return fail(HSC_EAUTH, err, errlen,
                    "authenticator data: user not present (UP clear)");
    }
    if (e->require_uv && !(ad->flags & HSC_WA_FLAG_UV)) {
        return fail(HSC_EAUTH, err, errlen,
                    "authenticator data: user verification required, UV "
                    "clear");
    }
    return HSC_OK;
}

hsc_status_t hsc_wa_registration_verify(
    const hsc_wa_expect_t *e, const unsigned char *cdj, size_t cdj_len,
    const unsigned char *att, size_t att_len, const unsigned char *spki,
    size_t spki_len, int alg, const unsigned char *id, size_t id_len,
    hsc_wa_registration_t *out, char *err, size_t errlen)
{
    const unsigned char *adp;
    size_t adlen;
    hsc_wa_auth_data_t ad;
    EVP_PKEY *k1 = NULL, *k2 = NULL;
    int cose_alg = 0;
    hsc_status_t st;

    memset(out, 0, sizeof(*out));
    if ((st = client_data(e, cdj, cdj_len, "webauthn.create", err, errlen))
        != HSC_OK) {
        return st;
    }
    if (hsc_wa_attestation_auth_data(att, att_len, &adp, &adlen) != HSC_OK
        || hsc_wa_auth_data_parse(adp, adlen, &ad) != HSC_OK) {
        return fail(HSC_EMALFORMED, err, errlen,
                    "the attestation object or its authenticator data is "
                    "malformed");
    }
    if ((st = auth_data_common(e, &ad, err, errlen)) != HSC_OK) {
        return st;
    }
    if (!(ad.flags & HSC_WA_FLAG_AT) || ad.cred_id == NULL) {
        return fail(HSC_EAUTH, err, errlen,
                    "authenticator data: no attested credential data (AT)");
    }
    if (ad.cred_id_len != id_len || id == NULL
        || memcmp(ad.cred_id, id, id_len)) {
        return fail(HSC_EAUTH, err, errlen,
                    "the credential id is not the authenticator data's");
    }
    if (alg != HSC_WA_ES256 && alg != HSC_WA_EDDSA && alg != HSC_WA_RS256) {
        return fail(HSC_EINVAL, err, errlen,
                    "the algorithm is not -7, -8 or -257");
    }
    st = hsc_wa_key_from_cose(ad.cose_key, ad.cose_key_len, &cose_alg, &k1);
    if (st != HSC_OK) {
        return fail(st, err, errlen,
                    "the COSE key is malformed or of another algorithm");
    }
    if (cose_alg != alg) {
        st = fail(HSC_EAUTH, err, errlen,
                  "the COSE key's algorithm is not the one reported");
        goto cleanup;
    }
    if ((st = hsc_wa_key_from_spki(spki, spki_len, alg, &k2)) != HSC_OK) {
        st = fail(st == HSC_EINVAL ? HSC_EAUTH : st, err, errlen,
                  "the public key (SPKI) is malformed or not of the "
                  "algorithm");
        goto cleanup;
    }
    if (!hsc_wa_key_equal(k1, k2)) {
        st = fail(HSC_EAUTH, err, errlen,
                  "the public key (SPKI) is not the authenticator data's");
        goto cleanup;
    }
    out->cred_id = ad.cred_id;
    out->cred_id_len = ad.cred_id_len;
    out->alg = alg;
    out->flags = ad.flags;
    out->sign_count = ad.sign_count;
    st = HSC_OK;

cleanup:
    EVP_PKEY_free(k1);
    EVP_PKEY_free(k2);
    return st;
}

int hsc_wa_sign_count_ok(int64_t stored, int64_t now_seen)
{
    return (stored == 0 && now_seen == 0) || now_seen > stored;
}

hsc_status_t hsc_wa_assertion_verify(
    const hsc_wa_expect_t *e, const unsigned char *cdj, size_t cdj_len,
    const unsigned char *adp, size_t ad_len, const unsigned char *sig,
    size_t sig_len, const unsigned char *spki, size_t spki_len, int alg,
    int64_t stored_count, hsc_wa_assertion_t *out, char *err, size_t errlen)
{
    hsc_wa_auth_data_t ad;
    EVP_PKEY *pk = NULL;
    hsc_status_t st;

    memset(out, 0, sizeof(*out));
    if ((st = client_data(e, cdj, cdj_len, "webauthn.get", err, errlen))
        != HSC_OK) {
        return st;
    }
    if (hsc_wa_auth_data_parse(adp, ad_len, &ad) != HSC_OK) {
        return fail(HSC_EMALFORMED, err, errlen,
                    "authenticator data is malformed");
    }
    if ((st = auth_data_common(e, &ad, err, errlen)) != HSC_OK) {
        return st;
    }
    if (ad.flags & HSC_WA_FLAG_AT) {
        return fail(HSC_EAUTH, err, errlen,
                    "authenticator data of an assertion carries a credential");
    }
    if ((st = hsc_wa_key_from_spki(spki, spki_len, alg, &pk)) != HSC_OK) {
        return fail(st == HSC_EINVAL ? HSC_EINVAL : HSC_ECRYPTO, err, errlen,
                    "the stored key does not load");
    }
    st = hsc_wa_verify(pk, alg, adp, ad_len, cdj, cdj_len, sig, sig_len);
    EVP_PKEY_free(pk);
    if (st != HSC_OK) {
        return fail(st, err, errlen,
                    st == HSC_EAUTH ? "the signature does not verify"
                                    : "the signature check failed");
    }
    if (!hsc_wa_sign_count_ok(stored_count, ad.sign_count)) {
        return fail(HSC_EAUTH, err, errlen,
                    "the sign count did not grow (a cloned authenticator?)");
    }
    out->flags = ad.flags;
    out->sign_count = ad.sign_count;
    return HSC_OK;
}

void hsc_wa_prf_salt(unsigned char out[32])
{
    static const char label[] = "hsc-prf-seal-v1";

    SHA256((const unsigned char *)label, sizeof(label) - 1, out);
}
