/*
 * hsc_seal.h: second factors' secrets (a TOTP key) are stored sealed, never
 * in plain text: AES-256-GCM under a key derived from the key file with its
 * own label (hsc_keys.c, "hsc-factor-seal-v1"), with the purpose and the
 * username as associated data, so that a sealed value moved to another
 * user's row, or used for another purpose, does not open.
 *
 *   sealed = kid_len (1 byte) || kid || nonce (12) || ciphertext || tag (16)
 *
 * The kid names the key that sealed it: after a key rotation the old key
 * must stay in the key file (as a verifying key) until "hsc-admin totp
 * reseal" has sealed every secret again under the new first key. A stolen
 * table alone opens nothing; table plus key file open the TOTP secrets,
 * which adds nothing a thief can mint without the password (hsc-v2.md).
 */
#ifndef HSC_SEAL_H
#define HSC_SEAL_H

#include <stddef.h>

#include "hsc_keys.h"
#include "hsc_util.h"

#define HSC_SEAL_NONCE_LEN 12
#define HSC_SEAL_TAG_LEN 16
/** Bytes a sealed value has beyond its plain text, at most. */
#define HSC_SEAL_OVERHEAD                                                      \
    (1 + HSC_KID_MAX + HSC_SEAL_NONCE_LEN + HSC_SEAL_TAG_LEN)

/**
 * Seal len bytes of pt under key k for (purpose, user) into out (cap >=
 * len + HSC_SEAL_OVERHEAD); *outlen its length. A fresh random nonce each
 * time. HSC_OK, HSC_EINVAL, HSC_ETOOLONG or HSC_ECRYPTO.
 */
hsc_status_t hsc_seal(const hsc_key_t *k, const char *purpose, const char *user,
                      const unsigned char *pt, size_t len, unsigned char *out,
                      size_t cap, size_t *outlen) HSC_MUST_CHECK;

/**
 * Open a sealed value with the key its kid names in kr. HSC_OK with the
 * plain text in out (*outlen) and *kid_out (may be NULL) the key that
 * opened it; HSC_ENOKEY when that key is no longer in the key file;
 * HSC_EAUTH when it does not open (altered, another user or purpose);
 * HSC_EMALFORMED when it is not a sealed value. out is wiped on failure.
 */
hsc_status_t hsc_unseal(const hsc_keyring_t *kr, const char *purpose,
                        const char *user, const unsigned char *in, size_t inlen,
                        unsigned char *out, size_t cap, size_t *outlen,
                        const hsc_key_t **kid_out) HSC_MUST_CHECK;

#endif /* HSC_SEAL_H */
