/*
 * hsc_links.c: one-time links' tokens (hsc_links.h).
 */
#include <string.h>

#include <openssl/evp.h>

#include "hsc_b64.h"
#include "hsc_links.h"

static const char *const names[] = {"invite", "reset", "enrol"};

const char *hsc_link_purpose_name(hsc_link_purpose_t p)
{
    return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "?";
}

hsc_status_t hsc_link_purpose_parse(const char *s, hsc_link_purpose_t *p)
{
    size_t i;

    for (i = 0; s != NULL && i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(s, names[i]) == 0) {
            *p = (hsc_link_purpose_t)i;
            return HSC_OK;
        }
    }
    return HSC_EINVAL;
}

static hsc_status_t sha256(const unsigned char *in, size_t len,
                           unsigned char out[HSC_LINK_HASH_LEN])
{
    unsigned int n = 0;

    return EVP_Digest(in, len, out, &n, EVP_sha256(), NULL) == 1
                   && n == HSC_LINK_HASH_LEN
               ? HSC_OK
               : HSC_ECRYPTO;
}

hsc_status_t hsc_link_new(char text[HSC_LINK_TEXT_LEN + 1],
                          unsigned char hash[HSC_LINK_HASH_LEN])
{
    unsigned char secret[HSC_LINK_SECRET_LEN];
    hsc_status_t st = hsc_random(secret, sizeof(secret));

    if (st == HSC_OK) {
        hsc_b64url_encode(secret, sizeof(secret), text);
        st = sha256(secret, sizeof(secret), hash);
    }
    hsc_wipe(secret, sizeof(secret));
    return st;
}

hsc_status_t hsc_link_hash(const char *text, size_t len,
                           unsigned char hash[HSC_LINK_HASH_LEN])
{
    unsigned char secret[HSC_LINK_SECRET_LEN];
    size_t n = 0;
    hsc_status_t st;

    if (len != HSC_LINK_TEXT_LEN
        || hsc_b64url_decode(text, len, secret, sizeof(secret), &n) != HSC_OK
        || n != sizeof(secret)) {
        hsc_wipe(secret, sizeof(secret));
        return HSC_EMALFORMED;
    }
    st = sha256(secret, sizeof(secret), hash);
    hsc_wipe(secret, sizeof(secret));
    return st;
}
