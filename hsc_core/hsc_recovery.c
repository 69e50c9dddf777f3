/*
 * hsc_recovery.c: recovery codes (hsc_recovery.h).
 */
#include <string.h>

#include <openssl/evp.h>

#include "hsc_recovery.h"

/* Crockford's base32, lower case. */
static const char alphabet[] = "0123456789abcdefghjkmnpqrstvwxyz";

#define LABEL "hsc-recovery-v1"

hsc_status_t hsc_recovery_new(char out[HSC_RECOVERY_SHOWN_SIZE])
{
    unsigned char r[HSC_RECOVERY_CHARS];
    size_t i, o = 0;

    if (hsc_random(r, sizeof(r)) != HSC_OK) {
        out[0] = '\0';
        return HSC_ECRYPTO;
    }
    for (i = 0; i < HSC_RECOVERY_CHARS; i++) {
        if (i == 4 || i == 8) {
            out[o++] = '-';
        }
        out[o++] = alphabet[r[i] & 31]; /* 256 = 8 x 32: no bias */
    }
    out[o] = '\0';
    hsc_wipe(r, sizeof(r));
    return HSC_OK;
}

/* The canonical character for a typed one, or 0. */
static char canonical(char ch)
{
    if (ch >= 'A' && ch <= 'Z') {
        ch = (char)(ch - 'A' + 'a');
    }
    if (ch == 'o') {
        return '0';
    }
    if (ch == 'i' || ch == 'l') {
        return '1';
    }
    return ch != '\0' && strchr(alphabet, ch) != NULL ? ch : 0;
}

hsc_status_t hsc_recovery_normalize(const char *in, size_t len, char *out)
{
    size_t i, n = 0;

    out[0] = '\0';
    if (in == NULL || len > 64) {
        return HSC_EMALFORMED;
    }
    for (i = 0; i < len; i++) {
        char ch;

        if (in[i] == '-' || in[i] == ' ') {
            continue;
        }
        ch = canonical(in[i]);
        if (ch == 0 || n == HSC_RECOVERY_CHARS) {
            hsc_wipe(out, HSC_RECOVERY_CHARS + 1);
            return HSC_EMALFORMED;
        }
        out[n++] = ch;
    }
    out[n] = '\0';
    if (n != HSC_RECOVERY_CHARS) {
        hsc_wipe(out, HSC_RECOVERY_CHARS + 1);
        return HSC_EMALFORMED;
    }
    return HSC_OK;
}

hsc_status_t hsc_recovery_hash(const char *user, const char *code,
                               unsigned char out[HSC_RECOVERY_HASH_LEN])
{
    EVP_MD_CTX *ctx;
    unsigned int n = 0;
    int ok;

    if (user == NULL || code == NULL || strlen(code) != HSC_RECOVERY_CHARS) {
        return HSC_EINVAL;
    }
    ctx = EVP_MD_CTX_new();
    ok = ctx != NULL && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)
         && EVP_DigestUpdate(ctx, LABEL, sizeof(LABEL)) /* with its NUL */
         && EVP_DigestUpdate(ctx, user, strlen(user) + 1)
         && EVP_DigestUpdate(ctx, code, HSC_RECOVERY_CHARS)
         && EVP_DigestFinal_ex(ctx, out, &n) && n == HSC_RECOVERY_HASH_LEN;
    EVP_MD_CTX_free(ctx);
    return ok ? HSC_OK : HSC_ECRYPTO;
}

hsc_status_t hsc_recovery_make(const char *user, size_t n,
                               char (*codes)[HSC_RECOVERY_SHOWN_SIZE],
                               unsigned char (*hashes)[HSC_RECOVERY_HASH_LEN])
{
    char canon[HSC_RECOVERY_CHARS + 1];
    hsc_status_t st = n <= HSC_RECOVERY_MAX_COUNT ? HSC_OK : HSC_EINVAL;
    size_t i;

    for (i = 0; i < n && st == HSC_OK; i++) {
        st = hsc_recovery_new(codes[i]);
        if (st == HSC_OK) {
            st = hsc_recovery_normalize(codes[i], strlen(codes[i]), canon);
        }
        if (st == HSC_OK) {
            st = hsc_recovery_hash(user, canon, hashes[i]);
        }
    }
    hsc_wipe(canon, sizeof(canon));
    return st;
}
