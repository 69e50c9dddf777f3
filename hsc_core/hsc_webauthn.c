/*
 * hsc_webauthn.c: WebAuthn's relying-party checks that need no store
 * (hsc_webauthn.h). Every length is checked before it is used; OpenSSL
 * does the keys and signatures, and its error queue is emptied after a
 * refusal so that one bad assertion leaves nothing for the next caller.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/param_build.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include "hsc_b64.h"
#include "hsc_cbor.h"
#include "hsc_webauthn.h"

/* --- authenticator data --------------------------------------------------- */

hsc_status_t hsc_wa_auth_data_parse(const unsigned char *p, size_t len,
                                    hsc_wa_auth_data_t *ad)
{
    size_t off = 37, n;
    hsc_cbor_head_t h;

    memset(ad, 0, sizeof(*ad));
    if (len < 37) {
        return HSC_EMALFORMED;
    }
    ad->rp_id_hash = p;
    ad->flags = p[32];
    ad->sign_count = (uint32_t)p[33] << 24 | (uint32_t)p[34] << 16
                     | (uint32_t)p[35] << 8 | p[36];
    if ((ad->flags & HSC_WA_FLAG_BS) && !(ad->flags & HSC_WA_FLAG_BE)) {
        return HSC_EMALFORMED; /* backed up but not eligible: §6.1 */
    }
    if (ad->flags & HSC_WA_FLAG_AT) {
        if (len - off < 18) {
            return HSC_EMALFORMED;
        }
        ad->aaguid = p + off;
        n = (size_t)p[off + 16] << 8 | p[off + 17];
        off += 18;
        if (n == 0 || n > HSC_WA_CRED_ID_MAX || len - off < n) {
            return HSC_EMALFORMED;
        }
        ad->cred_id = p + off;
        ad->cred_id_len = n;
        off += n;
        if (hsc_cbor_skip(p + off, len - off, &n) != HSC_OK
            || hsc_cbor_head(p + off, n, &h) != HSC_OK
            || h.major != HSC_CBOR_MAP) {
            return HSC_EMALFORMED;
        }
        ad->cose_key = p + off;
        ad->cose_key_len = n;
        off += n;
    }
    if (ad->flags & HSC_WA_FLAG_ED) {
        if (hsc_cbor_skip(p + off, len - off, &n) != HSC_OK
            || hsc_cbor_head(p + off, n, &h) != HSC_OK
            || h.major != HSC_CBOR_MAP) {
            return HSC_EMALFORMED;
        }
        ad->ext = p + off;
        ad->ext_len = n;
        off += n;
    }
    return off == len ? HSC_OK : HSC_EMALFORMED;
}

hsc_status_t hsc_wa_attestation_auth_data(const unsigned char *att, size_t len,
                                          const unsigned char **ad,
                                          size_t *ad_len)
{
    const unsigned char *v;
    size_t whole, vlen;
    hsc_cbor_head_t h;

    /* One map and nothing after it. */
    if (hsc_cbor_skip(att, len, &whole) != HSC_OK || whole != len
        || hsc_cbor_map_get(att, len, "authData", 0, &v, &vlen) != HSC_OK
        || hsc_cbor_head(v, vlen, &h) != HSC_OK || h.major != HSC_CBOR_BYTES) {
        return HSC_EMALFORMED;
    }
    *ad = h.at;
    *ad_len = (size_t)h.arg;
    return HSC_OK;
}

/* --- clientDataJSON ------------------------------------------------------- */

/* Append CCDToString(s) at *at in buf (cap bytes): 0, or -1 when it does
 * not fit. s is UTF-8: every code point from U+0020 up but '"' and '\\'
 * is written as its UTF-8, that is, its bytes are copied. */
static int ccd_string(char *buf, size_t cap, size_t *at, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = *at;

    if (o + 1 > cap) {
        return -1;
    }
    buf[o++] = '"';
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            if (o + 2 > cap) {
                return -1;
            }
            buf[o++] = '\\';
            buf[o++] = (char)c;
        }
        else if (c < 0x20) {
            if (o + 6 > cap) {
                return -1;
            }
            memcpy(buf + o, "\\u00", 4);
            buf[o + 4] = hex[c >> 4];
            buf[o + 5] = hex[c & 15];
            o += 6;
        }
        else {
            if (o + 1 > cap) {
                return -1;
            }
            buf[o++] = (char)c;
        }
    }
    if (o + 1 > cap) {
        return -1;
    }
    buf[o++] = '"';
    *at = o;
    return 0;
}

/* Append the literal s. */
static int lit(char *buf, size_t cap, size_t *at, const char *s)
{
    size_t n = strlen(s);

    if (*at + n > cap) {
        return -1;
    }
    memcpy(buf + *at, s, n);
    *at += n;
    return 0;
}

#define TOP_ORIGIN ",\"topOrigin\":"

hsc_status_t hsc_wa_client_data_check(const unsigned char *cdj, size_t len,
                                      const char *type, const char *challenge,
                                      const char *origin)
{
    char expected[1024];
    size_t n = 0;

    if (lit(expected, sizeof(expected), &n, "{\"type\":") != 0
        || ccd_string(expected, sizeof(expected), &n, type) != 0
        || lit(expected, sizeof(expected), &n, ",\"challenge\":") != 0
        || ccd_string(expected, sizeof(expected), &n, challenge) != 0
        || lit(expected, sizeof(expected), &n, ",\"origin\":") != 0
        || ccd_string(expected, sizeof(expected), &n, origin) != 0
        || lit(expected, sizeof(expected), &n, ",\"crossOrigin\":false") != 0) {
        return HSC_EINVAL; /* an origin of several hundred bytes */
    }
    if (len < 9 || memcmp(cdj, "{\"type\":", 8) != 0) {
        return HSC_EMALFORMED;
    }
    /* Public values (the challenge travelled to the browser and back):
     * an ordinary compare. */
    if (len <= n || memcmp(cdj, expected, n) != 0) {
        return HSC_EAUTH;
    }
    if (cdj[n] != '}' && cdj[n] != ',') {
        return HSC_EAUTH;
    }
    /* Not framed: a page of ours is never in an iframe (frame-ancestors
     * 'none'), so a topOrigin means someone else's page. */
    if (len - n >= sizeof(TOP_ORIGIN) - 1
        && memcmp(cdj + n, TOP_ORIGIN, sizeof(TOP_ORIGIN) - 1) == 0) {
        return HSC_EAUTH;
    }
    return HSC_OK;
}

/* --- keys ----------------------------------------------------------------- */

/* 1 when pk has alg's key type (and for EC, curve; for RSA, size). */
static int key_fits(EVP_PKEY *pk, int alg)
{
    char group[64];
    size_t glen = 0;

    switch (alg) {
    case HSC_WA_ES256:
        return EVP_PKEY_get_base_id(pk) == EVP_PKEY_EC
               && EVP_PKEY_get_group_name(pk, group, sizeof(group), &glen) == 1
               && (strcmp(group, "prime256v1") == 0
                   || strcmp(group, "P-256") == 0);
    case HSC_WA_EDDSA: return EVP_PKEY_get_base_id(pk) == EVP_PKEY_ED25519;
    case HSC_WA_RS256:
        return EVP_PKEY_get_base_id(pk) == EVP_PKEY_RSA
               && EVP_PKEY_get_bits(pk) >= HSC_WA_RSA_BITS_MIN;
    default: return 0;
    }
}

/* pk checked as a public key of alg: an EC point on its curve. */
static hsc_status_t key_checked(EVP_PKEY *pk, int alg, EVP_PKEY **out)
{
    EVP_PKEY_CTX *c;
    int ok = key_fits(pk, alg);

    if (ok && alg == HSC_WA_ES256) {
        c = EVP_PKEY_CTX_new_from_pkey(NULL, pk, NULL);
        ok = c != NULL && EVP_PKEY_public_check(c) == 1;
        EVP_PKEY_CTX_free(c);
    }
    if (!ok) {
        EVP_PKEY_free(pk);
        ERR_clear_error();
        return HSC_EMALFORMED;
    }
    *out = pk;
    return HSC_OK;
}

static int alg_known(int alg)
{
    return alg == HSC_WA_ES256 || alg == HSC_WA_EDDSA || alg == HSC_WA_RS256;
}

hsc_status_t hsc_wa_key_from_spki(const unsigned char *der, size_t len, int alg,
                                  EVP_PKEY **pk)
{
    const unsigned char *p = der;
    EVP_PKEY *k;

    if (!alg_known(alg)) {
        return HSC_EINVAL;
    }
    if (len == 0 || len > 4096) {
        return HSC_EMALFORMED;
    }
    k = d2i_PUBKEY(NULL, &p, (long)len);
    if (k == NULL || p != der + len) {
        EVP_PKEY_free(k);
        ERR_clear_error();
        return HSC_EMALFORMED;
    }
    return key_checked(k, alg, pk);
}

/* An integer member of a COSE map (*v), or -1 when absent or not one. */
static int cose_int(const unsigned char *m, size_t len, int64_t key, int64_t *v)
{
    const unsigned char *p;
    size_t n;
    hsc_cbor_head_t h;

    if (hsc_cbor_map_get(m, len, NULL, key, &p, &n) != HSC_OK
        || hsc_cbor_head(p, n, &h) != HSC_OK || h.arg > INT32_MAX) {
        return -1;
    }
    if (h.major == HSC_CBOR_UINT) {
        *v = (int64_t)h.arg;
    }
    else if (h.major == HSC_CBOR_NINT) {
        *v = -1 - (int64_t)h.arg;
    }
    else {
        return -1;
    }
    return 0;
}

/* A byte-string member of a COSE map, or NULL. */
static const unsigned char *cose_bytes(const unsigned char *m, size_t len,
                                       int64_t key, size_t *n)
{
    const unsigned char *p;
    size_t pl;
    hsc_cbor_head_t h;

    if (hsc_cbor_map_get(m, len, NULL, key, &p, &pl) != HSC_OK
        || hsc_cbor_head(p, pl, &h) != HSC_OK || h.major != HSC_CBOR_BYTES) {
        return NULL;
    }
    *n = (size_t)h.arg;
    return h.at;
}

/* An EVP_PKEY of type name from params built by bld, or NULL. */
static EVP_PKEY *key_from_params(const char *name, OSSL_PARAM_BLD *bld)
{
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, name, NULL);
    EVP_PKEY *k = NULL;

    if (params == NULL || c == NULL || EVP_PKEY_fromdata_init(c) != 1
        || EVP_PKEY_fromdata(c, &k, EVP_PKEY_PUBLIC_KEY, params) != 1) {
        k = NULL;
    }
    EVP_PKEY_CTX_free(c);
    OSSL_PARAM_free(params);
    return k;
}

hsc_status_t hsc_wa_key_from_cose(const unsigned char *cose, size_t len,
                                  int *alg, EVP_PKEY **pk)
{
    int64_t kty, a, crv;
    const unsigned char *x, *y;
    size_t xl = 0, yl = 0;
    EVP_PKEY *k = NULL;
    OSSL_PARAM_BLD *bld;
    BIGNUM *n = NULL, *e = NULL;
    unsigned char point[65];

    if (cose_int(cose, len, 1, &kty) != 0 || cose_int(cose, len, 3, &a) != 0) {
        return HSC_EMALFORMED;
    }
    if (!alg_known((int)a)) {
        return HSC_EINVAL;
    }
    *alg = (int)a;
    if (a == HSC_WA_ES256) {
        x = cose_bytes(cose, len, -2, &xl);
        y = cose_bytes(cose, len, -3, &yl);
        if (kty != 2 || cose_int(cose, len, -1, &crv) != 0 || crv != 1
            || x == NULL || y == NULL || xl != 32 || yl != 32) {
            return HSC_EMALFORMED;
        }
        point[0] = 0x04; /* uncompressed */
        memcpy(point + 1, x, 32);
        memcpy(point + 33, y, 32);
        if ((bld = OSSL_PARAM_BLD_new()) == NULL) {
            return HSC_ENOMEM;
        }
        if (OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME,
                                            "P-256", 0)
                == 1
            && OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY,
                                                point, sizeof(point))
                   == 1) {
            k = key_from_params("EC", bld);
        }
        OSSL_PARAM_BLD_free(bld);
    }
    else if (a == HSC_WA_EDDSA) {
        x = cose_bytes(cose, len, -2, &xl);
        if (kty != 1 || cose_int(cose, len, -1, &crv) != 0 || crv != 6
            || x == NULL || xl != 32) {
            return HSC_EMALFORMED;
        }
        k = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, x, xl);
    }
    else {
        x = cose_bytes(cose, len, -1, &xl); /* n */
        y = cose_bytes(cose, len, -2, &yl); /* e */
        if (kty != 3 || x == NULL || y == NULL || xl == 0 || xl > 1024
            || yl == 0 || yl > 8) {
            return HSC_EMALFORMED;
        }
        n = BN_bin2bn(x, (int)xl, NULL);
        e = BN_bin2bn(y, (int)yl, NULL);
        bld = OSSL_PARAM_BLD_new();
        if (n != NULL && e != NULL && bld != NULL
            && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) == 1
            && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) == 1) {
            k = key_from_params("RSA", bld);
        }
        OSSL_PARAM_BLD_free(bld);
        BN_free(n);
        BN_free(e);
    }
    if (k == NULL) {
        ERR_clear_error();
        return HSC_EMALFORMED;
    }
    return key_checked(k, *alg, pk);
}

int hsc_wa_key_equal(const EVP_PKEY *a, const EVP_PKEY *b)
{
    int eq = EVP_PKEY_eq(a, b) == 1;

    ERR_clear_error();
    return eq;
}

/* --- signatures ----------------------------------------------------------- */

hsc_status_t hsc_wa_verify(EVP_PKEY *pk, int alg, const unsigned char *ad,
                           size_t ad_len, const unsigned char *cdj,
                           size_t cdj_len, const unsigned char *sig,
                           size_t sig_len)
{
    unsigned char *msg;
    EVP_MD_CTX *md;
    int ok;

    if (!alg_known(alg) || !key_fits(pk, alg)) {
        return HSC_EINVAL;
    }
    /* What is signed: authData || SHA-256(clientDataJSON), one buffer
     * (EdDSA signs in one shot). */
    if (ad_len > 65536 || (msg = malloc(ad_len + 32)) == NULL) {
        return ad_len > 65536 ? HSC_EAUTH : HSC_ENOMEM;
    }
    memcpy(msg, ad, ad_len);
    SHA256(cdj, cdj_len, msg + ad_len);
    if ((md = EVP_MD_CTX_new()) == NULL) {
        free(msg);
        return HSC_ENOMEM;
    }
    ok = EVP_DigestVerifyInit(md, NULL,
                              alg == HSC_WA_EDDSA ? NULL : EVP_sha256(), NULL,
                              pk)
             == 1
         && EVP_DigestVerify(md, sig, sig_len, msg, ad_len + 32) == 1;
    EVP_MD_CTX_free(md);
    free(msg);
    ERR_clear_error();
    return ok ? HSC_OK : HSC_EAUTH;
}
