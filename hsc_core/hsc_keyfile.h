/*
 * hsc_keyfile.h: the key file as text: a new key line, and the rotations of
 * hsc-admin keygen, in memory and checked (hsc_keyfile.c). Loading a key
 * file and the MAC are hsc_keys.h's.
 */
#ifndef HSC_KEYFILE_H
#define HSC_KEYFILE_H

#include "hsc_keys.h"

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

#endif /* HSC_KEYFILE_H */
