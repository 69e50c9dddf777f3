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

/**
 * Make a new key line "<kid> <32 random bytes base64url>\n" into buf
 * (at least 128 bytes). kid NULL: a kid from the current date and random
 * characters. Returns HSC_OK, HSC_EINVAL (bad kid) or HSC_ECRYPTO.
 * WARNING: buf holds a secret; wipe it after use.
 */
hsc_status_t hsc_key_generate_line(const char *kid, char *buf,
                                   size_t buflen) HSC_MUST_CHECK;

/**
 * The rotation of a key file, in memory (hsc-admin keygen on an existing
 * file): text (len bytes, the current file) with line (one
 * "<kid> <secret>\n", as hsc_key_generate_line makes) put first among its
 * keys. Comments and blank lines above the first key stay above it; a last
 * line without '\n' gets one; nothing else changes. text must load
 * (hsc_keyring_parse) and line's key id must be new. The result is checked
 * before it is returned: it loads, line's key signs, and it holds one key
 * more than text.
 * On HSC_OK: *out (NUL-terminated, *outlen bytes, from p, wiped by a
 * cleanup on p) and *count, its number of keys; *msg NULL. Otherwise *out
 * NULL, *outlen and *count 0, and *msg a one-line reason (naming name).
 * Returns HSC_OK, HSC_EINVAL (text or line does not load, or the result
 * fails its check) or HSC_EEXISTS (the key id is in text already).
 * WARNING: *out holds every secret of the file.
 */
hsc_status_t hsc_keyfile_prepend(apr_pool_t *p, const char *name,
                                 const char *text, size_t len, const char *line,
                                 char **out, size_t *outlen, int *count,
                                 const char **msg) HSC_MUST_CHECK;

/** What hsc_keyfile_rotate does to a key file (hsc-admin keygen). */
typedef enum {
    HSC_ROTATE_SIGN,        /* arg, a new key line, goes first: it signs
                             * (hsc_keyfile_prepend) */
    HSC_ROTATE_VERIFY_ONLY, /* arg, a new key line, goes last: it only
                             * verifies until promoted */
    HSC_ROTATE_PROMOTE,     /* the line of key id arg moves first: it signs */
    HSC_ROTATE_RETIRE       /* the line of key id arg goes (not the signer) */
} hsc_rotate_t;

/**
 * A key file's rotation step, in memory, on several nodes: stage a key
 * everywhere (VERIFY_ONLY), then make it sign (PROMOTE), then drop the old
 * one (RETIRE); SIGN is hsc_keyfile_prepend. Comments and blank lines
 * stay where they are. The result is checked before it is returned: it
 * loads, the expected key signs (the new or promoted one, else the old
 * signer), it holds one key more (SIGN, VERIFY_ONLY), as many (PROMOTE)
 * or one fewer (RETIRE, without arg). Outputs as hsc_keyfile_prepend.
 * Returns HSC_OK, HSC_EINVAL (text or line does not load, or the check
 * fails), HSC_EEXISTS (a new key's id is in text already, or RETIRE of the
 * signing key) or HSC_ENOKEY (PROMOTE or RETIRE of a key id not in text).
 * WARNING: *out holds every secret of the file.
 */
hsc_status_t hsc_keyfile_rotate(apr_pool_t *p, const char *name,
                                const char *text, size_t len, hsc_rotate_t op,
                                const char *arg, char **out, size_t *outlen,
                                int *count, const char **msg) HSC_MUST_CHECK;

/** 1 when kid (len bytes) is 1..32 characters of [A-Za-z0-9_-]. */
int hsc_kid_valid(const char *kid, size_t len);

#endif /* HSC_KEYS_H */
