/*
 * hsc_kdf.h: the password hash x_n of the spec, and v = SHA-256(x_n).
 *
 *   sha256-chain:n     x_0 = P, x_i = SHA-256(x_{i-1} || salt), i = 1..n
 *   scrypt:N:r:p       x_n = scrypt(P, salt, N, r, p, 32)   (RFC 7914)
 *
 * The parameters are stored per user as the text SPEC, so they can be
 * raised later without touching existing users.
 */
#ifndef HSC_KDF_H
#define HSC_KDF_H

#include "hsc_util.h"

typedef enum { HSC_KDF_SHA256_CHAIN = 1, HSC_KDF_SCRYPT = 2 } hsc_kdf_alg_t;

typedef struct {
    hsc_kdf_alg_t alg;
    uint32_t iterations; /* sha256-chain: n, 1..100000000 */
    uint64_t N;          /* scrypt: a power of two, 2..2^30 */
    uint32_t r, p;       /* scrypt: r*p < 2^30 */
} hsc_kdf_t;

/** Longest text a SPEC can take, with its NUL. */
#define HSC_KDF_SPEC_MAX 64

/**
 * The default for new users. Chosen so that one password check costs at
 * least what OWASP's PBKDF2-HMAC-SHA256 guidance (600,000 iterations)
 * costs; see the README for the measured figures.
 */
#define HSC_KDF_DEFAULT_SPEC "scrypt:65536:8:2"

/*
 * Ceilings: the most work one login may cost. A stored KDF above them is a
 * denial of service (scrypt:1048576:8:1 is 1 GiB and some 12 s a login):
 * hsc-admin refuses to store one without --force, and a login never runs
 * one (hsc_password_check: HSC_EKDFLIMIT). The default is a quarter of the
 * scrypt memory and a quarter of the work.
 */
#define HSC_KDF_CHAIN_CEILING 20000000u            /* sha256-chain steps */
#define HSC_KDF_SCRYPT_MEM_CEILING (256ull << 20)  /* 128 * N * r bytes */
#define HSC_KDF_SCRYPT_WORK_CEILING (512ull << 20) /* 128 * N * r * p */

/**
 * 1 when a valid k is within the ceilings above (at most 20,000,000 chain
 * steps; scrypt memory 128*N*r at most 256 MiB and 128*N*r*p at most
 * 512 MiB), else 0.
 */
int hsc_kdf_within_ceiling(const hsc_kdf_t *k);

/** 1 when a and b are the same setting. */
int hsc_kdf_same(const hsc_kdf_t *a, const hsc_kdf_t *b);

/**
 * Parse "sha256-chain:ITERATIONS" or "scrypt:N:r:p" (canonical decimals).
 * Returns HSC_OK or HSC_EINVAL; *out is zeroed on failure.
 */
hsc_status_t hsc_kdf_parse(const char *spec, hsc_kdf_t *out) HSC_MUST_CHECK;

/** Write the canonical SPEC of k into buf (HSC_KDF_SPEC_MAX bytes). */
void hsc_kdf_format(const hsc_kdf_t *k, char *buf, size_t buflen);

/**
 * Compute x_n from the password (pwlen bytes, not NUL-terminated) and salt.
 * Passwords over HSC_PASSWORD_MAX bytes are refused with HSC_ETOOLONG before
 * any hashing. Returns HSC_OK, HSC_EINVAL (bad parameters), HSC_ETOOLONG,
 * or HSC_ECRYPTO. xn is wiped on failure. Slow by design; thread-safe.
 */
hsc_status_t hsc_kdf_derive(const hsc_kdf_t *k, const void *password,
                            size_t pwlen,
                            const unsigned char salt[HSC_SALT_LEN],
                            unsigned char xn[HSC_XN_LEN]) HSC_MUST_CHECK;

/** v = SHA-256(x_n), the authenticator kept in the user table. */
hsc_status_t hsc_authenticator(const unsigned char xn[HSC_XN_LEN],
                               unsigned char v[HSC_AUTH_LEN]) HSC_MUST_CHECK;

#endif /* HSC_KDF_H */
