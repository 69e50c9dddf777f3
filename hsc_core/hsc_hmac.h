/*
 * hsc_hmac.h: HMAC-SHA256 with its key schedule done once (RFC 2104).
 *
 * The states after K ^ ipad and K ^ opad are kept, and each message
 * copies them: no allocation and no key schedule per call, which is why
 * the cookie MAC (hsc_keys.c) and HSCBasicPassword's per-child cache use
 * it rather than OpenSSL's one-shot HMAC() (about four times the cost).
 * A key is only read once made, so threads may share one.
 */
#ifndef HSC_HMAC_H
#define HSC_HMAC_H

#include <stddef.h>

#include <openssl/sha.h>

#include "hsc_util.h"

typedef struct {
    SHA256_CTX inner; /* after absorbing K ^ ipad */
    SHA256_CTX outer; /* after absorbing K ^ opad */
} hsc_hmac_key_t;

/** One part of a message: the message is the parts in order. */
typedef struct {
    const void *data;
    size_t len;
} hsc_hmac_part_t;

/** Make hk from a key of at most 64 bytes (the block). HSC_OK,
 * HSC_EINVAL (longer key) or HSC_ECRYPTO; hk is wiped on failure. */
hsc_status_t hsc_hmac_key_init(hsc_hmac_key_t *hk, const unsigned char *key,
                               size_t len) HSC_MUST_CHECK;

/** out = HMAC-SHA256(hk, parts[0] || ... || parts[n-1]). HSC_OK or
 * HSC_ECRYPTO (out zeroed). */
hsc_status_t hsc_hmac_sum(const hsc_hmac_key_t *hk,
                          const hsc_hmac_part_t *parts, size_t n,
                          unsigned char out[HSC_MAC_LEN]) HSC_MUST_CHECK;

/** Forget hk (its states are key-equivalent). */
void hsc_hmac_key_wipe(hsc_hmac_key_t *hk);

#endif /* HSC_HMAC_H */
