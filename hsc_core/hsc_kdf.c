/*
 * hsc_kdf.c: the password hash x_n (hsc-v1.md, "The password hash x_n").
 */
#include <string.h>
#include <stdio.h>

/*
 * The chain uses OpenSSL's low-level SHA256_Init/Update/Final, deprecated in
 * OpenSSL 3 but present. Reason: one chain step hashes 48 bytes (a single
 * compression), and the EVP path (EVP_DigestInit_ex/Update/Final_ex, even
 * with one reused EVP_MD_CTX) adds provider dispatch per step that costs
 * more than the compression itself. A defender that is slower per step than
 * an attacker's plain SHA-256 loop buys less security for the same latency.
 * The suppression is limited to this file.
 */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/sha.h>
#include <openssl/evp.h>
#include <openssl/crypto.h>

#include "hsc_kdf.h"

#define CHAIN_MAX 100000000u
#define SCRYPT_N_MAX (1ull << 30)
#define SCRYPT_RP_MAX (1ull << 30)  /* r * p < 2^30 (RFC 7914) */
#define SCRYPT_MEM_MAX (1ull << 30) /* 128 * N * r * p <= 1 GiB */

/* Parse a canonical decimal (no sign, no leading zero, no space) of 1..10
 * digits, ending at ':' or NUL; the caller checks its range. Advances *s. */
static int parse_u64_field(const char **s, uint64_t *out)
{
    const char *p = *s;
    uint64_t v = 0;
    size_t n = 0;

    while (p[n] >= '0' && p[n] <= '9') {
        if (n == 10) {
            return 0;
        }
        v = v * 10 + (uint64_t)(p[n] - '0');
        n++;
    }
    if (n == 0 || (p[0] == '0' && n > 1)) {
        return 0;
    }
    if (p[n] != ':' && p[n] != '\0') {
        return 0;
    }
    *out = v;
    *s = p + n;
    return 1;
}

/* 1 when the parameters are within the bounds this project accepts. */
static int kdf_valid(const hsc_kdf_t *k)
{
    if (k == NULL) {
        return 0;
    }
    if (k->alg == HSC_KDF_SHA256_CHAIN) {
        return k->iterations >= 1 && k->iterations <= CHAIN_MAX;
    }
    if (k->alg == HSC_KDF_SCRYPT) {
        uint64_t rp;

        if (k->N < 2 || k->N > SCRYPT_N_MAX || (k->N & (k->N - 1)) != 0) {
            return 0;
        }
        if (k->r < 1 || k->p < 1) {
            return 0;
        }
        rp = (uint64_t)k->r * k->p;
        if (rp >= SCRYPT_RP_MAX) {
            return 0;
        }
        /* rp < 2^30 and N <= 2^30, so this product fits in 64 bits. */
        if (128u * k->N * rp > SCRYPT_MEM_MAX) {
            return 0;
        }
        /* RFC 7914 requires N < 2^(128 * r / 8); OpenSSL enforces it. */
        if (k->r < 4) {
            uint64_t lim = 1ull << (16 * k->r);

            if (k->N >= lim) {
                return 0;
            }
        }
        return 1;
    }
    return 0;
}

hsc_status_t hsc_kdf_parse(const char *spec, hsc_kdf_t *out)
{
    hsc_kdf_t k;
    const char *s;
    uint64_t a, b, c;

    memset(out, 0, sizeof(*out));
    memset(&k, 0, sizeof(k));
    if (spec == NULL) {
        return HSC_EINVAL;
    }
    if (strncmp(spec, "sha256-chain:", 13) == 0) {
        s = spec + 13;
        if (!parse_u64_field(&s, &a) || *s != '\0' || a > CHAIN_MAX) {
            return HSC_EINVAL;
        }
        k.alg = HSC_KDF_SHA256_CHAIN;
        k.iterations = (uint32_t)a;
    }
    else if (strncmp(spec, "scrypt:", 7) == 0) {
        s = spec + 7;
        if (!parse_u64_field(&s, &a) || *s++ != ':' || !parse_u64_field(&s, &b)
            || *s++ != ':' || !parse_u64_field(&s, &c) || *s != '\0') {
            return HSC_EINVAL;
        }
        if (b > UINT32_MAX || c > UINT32_MAX) {
            return HSC_EINVAL;
        }
        k.alg = HSC_KDF_SCRYPT;
        k.N = a;
        k.r = (uint32_t)b;
        k.p = (uint32_t)c;
    }
    else {
        return HSC_EINVAL;
    }
    if (!kdf_valid(&k)) {
        return HSC_EINVAL;
    }
    *out = k;
    return HSC_OK;
}

void hsc_kdf_format(const hsc_kdf_t *k, char *buf, size_t buflen)
{
    if (buf == NULL || buflen == 0) {
        return;
    }
    buf[0] = '\0';
    if (k == NULL) {
        return;
    }
    if (k->alg == HSC_KDF_SHA256_CHAIN) {
        snprintf(buf, buflen, "sha256-chain:%lu", (unsigned long)k->iterations);
    }
    else if (k->alg == HSC_KDF_SCRYPT) {
        snprintf(buf, buflen, "scrypt:%llu:%lu:%lu", (unsigned long long)k->N,
                 (unsigned long)k->r, (unsigned long)k->p);
    }
}

/* x_0 = P, x_i = SHA-256(x_{i-1} || salt) for i = 1..n. */
static hsc_status_t derive_chain(uint32_t n, const void *password, size_t pwlen,
                                 const unsigned char salt[HSC_SALT_LEN],
                                 unsigned char xn[HSC_XN_LEN])
{
    SHA256_CTX ctx;
    unsigned char x[SHA256_DIGEST_LENGTH];
    hsc_status_t rv = HSC_ECRYPTO;
    uint32_t i;

    if (!SHA256_Init(&ctx)
        || (pwlen > 0 && !SHA256_Update(&ctx, password, pwlen))
        || !SHA256_Update(&ctx, salt, HSC_SALT_LEN) || !SHA256_Final(x, &ctx)) {
        goto cleanup;
    }
    /* No allocation and no per-step setup beyond SHA256_Init, which only
     * writes the initial state. */
    for (i = 1; i < n; i++) {
        if (!SHA256_Init(&ctx) || !SHA256_Update(&ctx, x, sizeof(x))
            || !SHA256_Update(&ctx, salt, HSC_SALT_LEN)
            || !SHA256_Final(x, &ctx)) {
            goto cleanup;
        }
    }
    memcpy(xn, x, HSC_XN_LEN);
    rv = HSC_OK;

cleanup:
    hsc_wipe(x, sizeof(x));
    hsc_wipe(&ctx, sizeof(ctx));
    return rv;
}

static hsc_status_t derive_scrypt(const hsc_kdf_t *k, const void *password,
                                  size_t pwlen,
                                  const unsigned char salt[HSC_SALT_LEN],
                                  unsigned char xn[HSC_XN_LEN])
{
    /*
     * OpenSSL's default limit (32 MiB) refuses N = 2^17, r = 8. It needs
     * 128*r*(N+2) bytes for V plus 128*r*p for B; raise the limit to what
     * these (already bounded) parameters need, plus a little slack.
     */
    uint64_t maxmem = 128ull * k->r * (k->N + 2) + 128ull * k->r * k->p
                      + (1u << 20);
    static const char empty[1] = "";

    if (EVP_PBE_scrypt(pwlen > 0 ? password : empty, pwlen, salt, HSC_SALT_LEN,
                       k->N, k->r, k->p, maxmem, xn, HSC_XN_LEN)
        != 1) {
        return HSC_ECRYPTO;
    }
    return HSC_OK;
}

hsc_status_t hsc_kdf_derive(const hsc_kdf_t *k, const void *password,
                            size_t pwlen,
                            const unsigned char salt[HSC_SALT_LEN],
                            unsigned char xn[HSC_XN_LEN])
{
    hsc_status_t rv;

    if (pwlen > HSC_PASSWORD_MAX) {
        rv = HSC_ETOOLONG; /* refused before any hashing */
    }
    else if (!kdf_valid(k) || salt == NULL || (password == NULL && pwlen > 0)) {
        rv = HSC_EINVAL;
    }
    else if (k->alg == HSC_KDF_SHA256_CHAIN) {
        rv = derive_chain(k->iterations, password, pwlen, salt, xn);
    }
    else {
        rv = derive_scrypt(k, password, pwlen, salt, xn);
    }
    if (rv != HSC_OK) {
        hsc_wipe(xn, HSC_XN_LEN);
    }
    return rv;
}

hsc_status_t hsc_authenticator(const unsigned char xn[HSC_XN_LEN],
                               unsigned char v[HSC_AUTH_LEN])
{
    SHA256_CTX ctx;
    hsc_status_t rv = HSC_OK;

    if (!SHA256_Init(&ctx) || !SHA256_Update(&ctx, xn, HSC_XN_LEN)
        || !SHA256_Final(v, &ctx)) {
        hsc_wipe(v, HSC_AUTH_LEN);
        rv = HSC_ECRYPTO;
    }
    hsc_wipe(&ctx, sizeof(ctx));
    return rv;
}

int hsc_kdf_within_ceiling(const hsc_kdf_t *k)
{
    if (!kdf_valid(k)) {
        return 0;
    }
    if (k->alg == HSC_KDF_SHA256_CHAIN) {
        return k->iterations <= HSC_KDF_CHAIN_CEILING;
    }
    /* kdf_valid bounds 128 * N * r * p by 1 GiB: no overflow. */
    return 128u * k->N * k->r <= HSC_KDF_SCRYPT_MEM_CEILING
           && 128u * k->N * k->r * k->p <= HSC_KDF_SCRYPT_WORK_CEILING;
}

int hsc_kdf_same(const hsc_kdf_t *a, const hsc_kdf_t *b)
{
    if (a->alg != b->alg) {
        return 0;
    }
    if (a->alg == HSC_KDF_SHA256_CHAIN) {
        return a->iterations == b->iterations;
    }
    return a->N == b->N && a->r == b->r && a->p == b->p;
}
