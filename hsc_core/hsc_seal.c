/*
 * hsc_seal.c: AES-256-GCM sealing of second factors' secrets (hsc_seal.h).
 */
#include <string.h>

#include <openssl/evp.h>

#include "hsc_seal.h"

/* Associated data: purpose NUL user, so neither can be swapped. One
 * function for both directions: EVP_CipherUpdate follows the context's. */
static int add_ad(EVP_CIPHER_CTX *ctx, const char *purpose, const char *user)
{
    int n;

    return EVP_CipherUpdate(ctx, NULL, &n, (const unsigned char *)purpose,
                            (int)strlen(purpose) + 1)
           && EVP_CipherUpdate(ctx, NULL, &n, (const unsigned char *)user,
                               (int)strlen(user));
}

hsc_status_t hsc_seal(const hsc_key_t *k, const char *purpose, const char *user,
                      const unsigned char *pt, size_t len, unsigned char *out,
                      size_t cap, size_t *outlen)
{
    const char *kid;
    size_t kid_len, o;
    EVP_CIPHER_CTX *ctx;
    int n, ok;

    *outlen = 0;
    if (k == NULL || purpose == NULL || user == NULL || pt == NULL
        || len > 4096) {
        return HSC_EINVAL;
    }
    kid = hsc_key_id(k);
    kid_len = strlen(kid);
    if (cap < 1 + kid_len + HSC_SEAL_NONCE_LEN + len + HSC_SEAL_TAG_LEN) {
        return HSC_ETOOLONG;
    }
    out[0] = (unsigned char)kid_len;
    memcpy(out + 1, kid, kid_len);
    o = 1 + kid_len;
    if (hsc_random(out + o, HSC_SEAL_NONCE_LEN) != HSC_OK) {
        return HSC_ECRYPTO;
    }
    ctx = EVP_CIPHER_CTX_new();
    ok = ctx != NULL
         && EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), NULL,
                               hsc_key_seal_secret(k), out + o)
         && add_ad(ctx, purpose, user)
         && EVP_EncryptUpdate(ctx, out + o + HSC_SEAL_NONCE_LEN, &n, pt,
                              (int)len)
         && (size_t)n == len
         && EVP_EncryptFinal_ex(ctx, out + o + HSC_SEAL_NONCE_LEN + len, &n)
         && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, HSC_SEAL_TAG_LEN,
                                out + o + HSC_SEAL_NONCE_LEN + len);
    EVP_CIPHER_CTX_free(ctx);
    if (!ok) {
        hsc_wipe(out, cap);
        return HSC_ECRYPTO;
    }
    *outlen = o + HSC_SEAL_NONCE_LEN + len + HSC_SEAL_TAG_LEN;
    return HSC_OK;
}

hsc_status_t hsc_unseal(const hsc_keyring_t *kr, const char *purpose,
                        const char *user, const unsigned char *in, size_t inlen,
                        unsigned char *out, size_t cap, size_t *outlen,
                        const hsc_key_t **kid_out)
{
    const hsc_key_t *k;
    const unsigned char *nonce, *ct, *tag;
    size_t kid_len, len;
    EVP_CIPHER_CTX *ctx;
    int n, ok;

    *outlen = 0;
    if (kid_out != NULL) {
        *kid_out = NULL;
    }
    if (kr == NULL || purpose == NULL || user == NULL || in == NULL
        || inlen < 1) {
        return HSC_EINVAL;
    }
    kid_len = in[0];
    if (kid_len == 0 || kid_len > HSC_KID_MAX
        || inlen < 1 + kid_len + HSC_SEAL_NONCE_LEN + HSC_SEAL_TAG_LEN
        || !hsc_kid_valid((const char *)in + 1, kid_len)) {
        return HSC_EMALFORMED;
    }
    len = inlen - 1 - kid_len - HSC_SEAL_NONCE_LEN - HSC_SEAL_TAG_LEN;
    if (cap < len) {
        return HSC_ETOOLONG;
    }
    k = hsc_keyring_find(kr, (const char *)in + 1, kid_len);
    if (k == NULL) {
        return HSC_ENOKEY;
    }
    nonce = in + 1 + kid_len;
    ct = nonce + HSC_SEAL_NONCE_LEN;
    tag = ct + len;
    ctx = EVP_CIPHER_CTX_new();
    ok = ctx != NULL
         && EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), NULL,
                               hsc_key_seal_secret(k), nonce)
         && add_ad(ctx, purpose, user)
         && EVP_DecryptUpdate(ctx, out, &n, ct, (int)len) && (size_t)n == len
         && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, HSC_SEAL_TAG_LEN,
                                (void *)tag)
         && EVP_DecryptFinal_ex(ctx, out + len, &n) > 0;
    EVP_CIPHER_CTX_free(ctx);
    if (!ok) {
        hsc_wipe(out, cap);
        return HSC_EAUTH;
    }
    *outlen = len;
    if (kid_out != NULL) {
        *kid_out = k;
    }
    return HSC_OK;
}
