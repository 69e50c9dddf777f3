/*
 * hsc_hmac.c: HMAC-SHA256 from precomputed states (hsc_hmac.h).
 *
 * OpenSSL's low-level SHA256_Init/Update/Final are deprecated in OpenSSL 3
 * but present; they are what lets a state be copied as a plain struct
 * (the EVP equivalents allocate on every copy). The suppression is
 * limited to this file.
 */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <string.h>

#include <openssl/sha.h>

#include "hsc_hmac.h"

/* Absorb the key block K ^ pad into a fresh state. */
static int absorb(SHA256_CTX *c, const unsigned char *key, size_t len,
                  unsigned char pad)
{
    unsigned char block[SHA256_CBLOCK];
    size_t i;
    int ok;

    memset(block, pad, sizeof(block));
    for (i = 0; i < len; i++) {
        block[i] ^= key[i];
    }
    ok = SHA256_Init(c) && SHA256_Update(c, block, sizeof(block));
    hsc_wipe(block, sizeof(block));
    return ok;
}

hsc_status_t hsc_hmac_key_init(hsc_hmac_key_t *hk, const unsigned char *key,
                               size_t len)
{
    if (len > SHA256_CBLOCK) {
        hsc_hmac_key_wipe(hk);
        return HSC_EINVAL;
    }
    if (!absorb(&hk->inner, key, len, 0x36)
        || !absorb(&hk->outer, key, len, 0x5c)) {
        hsc_hmac_key_wipe(hk);
        return HSC_ECRYPTO;
    }
    return HSC_OK;
}

hsc_status_t hsc_hmac_sum(const hsc_hmac_key_t *hk,
                          const hsc_hmac_part_t *parts, size_t n,
                          unsigned char out[HSC_MAC_LEN])
{
    SHA256_CTX c = hk->inner;
    unsigned char ih[SHA256_DIGEST_LENGTH];
    hsc_status_t rv = HSC_ECRYPTO;
    size_t i;

    for (i = 0; i < n; i++) {
        if (parts[i].len > 0
            && !SHA256_Update(&c, parts[i].data, parts[i].len)) {
            goto cleanup;
        }
    }
    if (!SHA256_Final(ih, &c)) {
        goto cleanup;
    }
    c = hk->outer;
    if (SHA256_Update(&c, ih, sizeof(ih)) && SHA256_Final(out, &c)) {
        rv = HSC_OK;
    }

cleanup:
    /* A copied state is key-equivalent: leave none on the stack. */
    hsc_wipe(&c, sizeof(c));
    hsc_wipe(ih, sizeof(ih));
    if (rv != HSC_OK) {
        memset(out, 0, HSC_MAC_LEN);
    }
    return rv;
}

void hsc_hmac_key_wipe(hsc_hmac_key_t *hk)
{
    hsc_wipe(hk, sizeof(*hk));
}
