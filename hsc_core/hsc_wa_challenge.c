/*
 * hsc_wa_challenge.c: stateless WebAuthn challenges (hsc_wa_challenge.h).
 */
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "hsc_wa_challenge.h"

#define CHALLENGE_VERSION 1
#define MAC_PART 16
#define SIGNED (HSC_WA_CHALLENGE_LEN - MAC_PART)
#define LABEL "hsc-wa-challenge\n"

/* The MAC of the first SIGNED bytes of c and user under k. */
static hsc_status_t challenge_mac(const hsc_key_t *k, const unsigned char *c,
                                  const char *user,
                                  unsigned char out[HSC_MAC_LEN])
{
    unsigned char msg[sizeof(LABEL) - 1 + SIGNED + HSC_USER_MAX];
    size_t ulen = strlen(user), n = sizeof(LABEL) - 1;
    unsigned int outlen = 0;

    if (ulen > HSC_USER_MAX) {
        return HSC_EINVAL;
    }
    memcpy(msg, LABEL, n);
    memcpy(msg + n, c, SIGNED);
    memcpy(msg + n + SIGNED, user, ulen);
    if (HMAC(EVP_sha256(), hsc_key_challenge_secret(k), HSC_MAC_LEN, msg,
             n + SIGNED + ulen, out, &outlen)
            == NULL
        || outlen != HSC_MAC_LEN) {
        return HSC_ECRYPTO;
    }
    return HSC_OK;
}

static int purpose_valid(int p)
{
    return p == HSC_WA_REGISTER || p == HSC_WA_SECOND_FACTOR
           || p == HSC_WA_PASSWORDLESS;
}

hsc_status_t hsc_wa_challenge_make(const hsc_keyring_t *kr,
                                   hsc_wa_purpose_t purpose, const char *user,
                                   int64_t now_ms,
                                   unsigned char out[HSC_WA_CHALLENGE_LEN])
{
    unsigned char mac[HSC_MAC_LEN];
    uint64_t t = (uint64_t)now_ms;
    int i;

    if (kr == NULL || !purpose_valid((int)purpose) || now_ms < 0) {
        return HSC_EINVAL;
    }
    out[0] = CHALLENGE_VERSION;
    out[1] = (unsigned char)purpose;
    for (i = 0; i < 8; i++) {
        out[2 + i] = (unsigned char)(t >> (56 - 8 * i));
    }
    if (user != NULL && strlen(user) > HSC_USER_MAX) {
        return HSC_EINVAL;
    }
    if (hsc_random(out + 10, 16) != HSC_OK
        || challenge_mac(hsc_keyring_signer(kr), out, user ? user : "", mac)
               != HSC_OK) {
        return HSC_ECRYPTO;
    }
    memcpy(out + SIGNED, mac, MAC_PART);
    hsc_wipe(mac, sizeof(mac));
    return HSC_OK;
}

hsc_status_t hsc_wa_challenge_check(const hsc_keyring_t *kr,
                                    const unsigned char *c, size_t len,
                                    hsc_wa_purpose_t purpose, const char *user,
                                    int64_t now_ms, int64_t lifetime_ms,
                                    int64_t skew_ms, int64_t *issued_ms)
{
    unsigned char mac[HSC_MAC_LEN];
    uint64_t t = 0;
    int i, n, found = 0;

    if (kr == NULL || len != HSC_WA_CHALLENGE_LEN || c[0] != CHALLENGE_VERSION
        || !purpose_valid(c[1])) {
        return HSC_EMALFORMED;
    }
    if (user != NULL && strlen(user) > HSC_USER_MAX) {
        return HSC_EBADMAC; /* no challenge is made for such a name */
    }
    /* Every key: constant time in which one matched. */
    n = hsc_keyring_count(kr);
    for (i = 0; i < n; i++) {
        if (challenge_mac(hsc_keyring_key(kr, i), c, user ? user : "", mac)
            != HSC_OK) {
            return HSC_ECRYPTO;
        }
        found |= hsc_ct_equal(mac, c + SIGNED, MAC_PART);
    }
    hsc_wipe(mac, sizeof(mac));
    /* The purpose is under the MAC: a challenge for another is not ours. */
    if (!found || c[1] != (unsigned char)purpose) {
        return HSC_EBADMAC;
    }
    for (i = 0; i < 8; i++) {
        t = t << 8 | c[2 + i];
    }
    if (t > (uint64_t)INT64_MAX) {
        return HSC_EMALFORMED;
    }
    *issued_ms = (int64_t)t;
    if (*issued_ms > now_ms + skew_ms) {
        return HSC_EFUTURE;
    }
    if (now_ms - *issued_ms > lifetime_ms) {
        return HSC_EEXPIRED;
    }
    return HSC_OK;
}
