/*
 * hsc_wa_challenge.h: WebAuthn challenges without a session store
 * (hsc-v2.md, "One-time and replay rules"). A challenge is 42 bytes:
 *
 *     version(1) = 1 | purpose(1) | issued(8, ms, big-endian) |
 *     nonce(16) | mac(16)
 *
 * mac is the first 16 bytes of HMAC-SHA256 under the key file's challenge
 * key (hsc_key_challenge_secret) of "hsc-wa-challenge\n" and the fields
 * before it, then the user's name (empty when none: a passwordless
 * login's). It is sent to the browser as the challenge, comes back inside
 * clientDataJSON (signed by the authenticator), and is checked here:
 * ours, for this purpose and user, and young enough. What makes it
 * one-time is the store: an assertion is accepted only when its issued
 * time is later than the credential's last accepted one, by an atomic
 * compare-and-set, so a replay fails on every server.
 *
 * A key-file thief can make challenges; that gives nothing without the
 * authenticator that must sign them.
 */
#ifndef HSC_WA_CHALLENGE_H
#define HSC_WA_CHALLENGE_H

#include <stddef.h>
#include <stdint.h>

#include "hsc_keys.h"
#include "hsc_util.h"

#define HSC_WA_CHALLENGE_LEN 42
/* Its base64url text, as clientDataJSON carries it, and a NUL. */
#define HSC_WA_CHALLENGE_TEXT_MAX 57

typedef enum {
    HSC_WA_REGISTER = 1,      /* add a credential (a signed-in user) */
    HSC_WA_SECOND_FACTOR = 2, /* after the password (a pending login) */
    HSC_WA_PASSWORDLESS = 3   /* no user yet: the user handle names one */
} hsc_wa_purpose_t;

/* A new challenge for purpose and user (NULL or "" for none), issued at
 * now_ms, under the ring's signing key. HSC_OK, HSC_EINVAL, or
 * HSC_ECRYPTO (no randomness). */
hsc_status_t
hsc_wa_challenge_make(const hsc_keyring_t *kr, hsc_wa_purpose_t purpose,
                      const char *user, int64_t now_ms,
                      unsigned char out[HSC_WA_CHALLENGE_LEN]) HSC_MUST_CHECK;

/*
 * Check a challenge (len bytes, as decoded from clientDataJSON): made by a
 * key of the ring (any: a rotation keeps ceremonies in flight), for
 * purpose and user, issued at most lifetime_ms before now_ms and not more
 * than skew_ms after it. HSC_OK and *issued_ms; HSC_EMALFORMED (length,
 * version, purpose byte), HSC_EBADMAC (not ours, or for another purpose
 * or user), HSC_EEXPIRED, HSC_EFUTURE.
 */
hsc_status_t hsc_wa_challenge_check(const hsc_keyring_t *kr,
                                    const unsigned char *c, size_t len,
                                    hsc_wa_purpose_t purpose, const char *user,
                                    int64_t now_ms, int64_t lifetime_ms,
                                    int64_t skew_ms,
                                    int64_t *issued_ms) HSC_MUST_CHECK;

#endif /* HSC_WA_CHALLENGE_H */
