/*
 * hsc_keys.h: the key file (hsc-v1.md, "Keys").
 *
 * One key a line: "<kid> <secret in base64url>"; blank lines and lines
 * starting with '#' are ignored. The first key signs, every key verifies.
 * The HMAC key actually used is K = HMAC-SHA256(secret, "hsc-cookie-mac-v1").
 */
#ifndef HSC_KEYS_H
#define HSC_KEYS_H

#include <apr_pools.h>
#include "hsc_util.h"

typedef struct hsc_key hsc_key_t;         /* opaque: kid, K, HMAC state */
typedef struct hsc_keyring hsc_keyring_t; /* opaque: keys in file order */

/**
 * Load and check a key file. On success *pkr is allocated from p (keys are
 * wiped by a cleanup on p) and *pmsg is NULL, or a warning such as "key file
 * is readable by group or others" that the caller should log. On failure
 * *pkr is NULL and *pmsg is a one-line reason naming the path and, where it
 * applies, the line number: missing, unreadable, no key, bad or duplicate key
 * id, bad base64url, secret under 32 bytes.
 * Returns HSC_OK, HSC_EIO (missing/unreadable) or HSC_EINVAL (content).
 */
hsc_status_t hsc_keyring_load(apr_pool_t *p, const char *path,
                              hsc_keyring_t **pkr,
                              const char **pmsg) HSC_MUST_CHECK;

/**
 * The same, from text already in memory (len bytes); name is used in
 * messages. For tests, fuzzing and hsc-admin.
 */
hsc_status_t hsc_keyring_parse(apr_pool_t *p, const char *name,
                               const char *text, size_t len,
                               hsc_keyring_t **pkr,
                               const char **pmsg) HSC_MUST_CHECK;

/** The signing key: the first in the file. Never NULL for a loaded ring. */
const hsc_key_t *hsc_keyring_signer(const hsc_keyring_t *kr);

/** The key with this id (kidlen bytes), or NULL. */
const hsc_key_t *hsc_keyring_find(const hsc_keyring_t *kr, const char *kid,
                                  size_t kidlen);

/** Number of keys in the ring. */
int hsc_keyring_count(const hsc_keyring_t *kr);

/** The i-th key in file order (0 signs), or NULL when out of range. */
const hsc_key_t *hsc_keyring_key(const hsc_keyring_t *kr, int i);

/** The key's id, NUL-terminated. */
const char *hsc_key_id(const hsc_key_t *k);

/**
 * out = HMAC-SHA256(K, part1 || "\n" || part2 || "\n" || part3), the
 * cookie MAC over "value-without-mac \n scope \n address". Any part may be
 * empty (len 0). Thread-safe; no allocation. Returns HSC_OK or HSC_ECRYPTO.
 */
hsc_status_t hsc_key_mac3(const hsc_key_t *k, const char *part1, size_t len1,
                          const char *part2, size_t len2, const char *part3,
                          size_t len3,
                          unsigned char out[HSC_MAC_LEN]) HSC_MUST_CHECK;

/** The key's 32-byte sealing key, HMAC-SHA256(secret,
 * "hsc-factor-seal-v1"), for hsc_seal.c only. */
const unsigned char *hsc_key_seal_secret(const hsc_key_t *k);

/** The key's 32-byte WebAuthn challenge key, HMAC-SHA256(secret,
 * "hsc-webauthn-challenge-v1"), for hsc_wa_challenge.c only. */
const unsigned char *hsc_key_challenge_secret(const hsc_key_t *k);

/** 1 when kid (len bytes) is 1..32 characters of [A-Za-z0-9_-]. */
int hsc_kid_valid(const char *kid, size_t len);

#endif /* HSC_KEYS_H */
