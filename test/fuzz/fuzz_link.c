/*
 * fuzz_link.c: what comes in from the account page that is not a cookie:
 * a one-time link's token from the URL (hsc_link_hash) and a new password
 * (hsc_utf8_chars, hsc_policy_check). The first byte picks the minimum
 * length; the rest is the text.
 *
 * Properties (each aborts when violated):
 *   - a token is accepted exactly when it is 43 characters of the
 *     base64url alphabet that decode to 32 bytes, and then its hash is
 *     the SHA-256 of those bytes, computed here independently;
 *   - the character count agrees with a reference UTF-8 decoder written
 *     here from RFC 3629 (no overlongs, surrogates or code points past
 *     U+10FFFF; C0 and DEL refused), and is at most the byte count;
 *   - the policy accepts only text of at least the minimum of characters,
 *     at most 1024 bytes, that is not the username in any case of ASCII
 *     letters; and it accepts every such text when no list is given.
 */
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>

#include "hsc_b64.h"
#include "hsc_fuzz.h"
#include "hsc_links.h"
#include "hsc_policy.h"

/* RFC 3629 by the table of its section 4; -1 when not UTF-8 text. */
static long reference_chars(const unsigned char *s, size_t len)
{
    size_t i = 0, need, k;
    long n = 0;

    while (i < len) {
        unsigned c = s[i], lo = 0x80, hi = 0xbf;

        if (c < 0x80) {
            if (c < 0x20 || c == 0x7f) {
                return -1;
            }
            i++;
            n++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf) {
            need = 1;
        }
        else if (c >= 0xe0 && c <= 0xef) {
            need = 2;
        }
        else if (c >= 0xf0 && c <= 0xf4) {
            need = 3;
        }
        else {
            return -1;
        }
        /* The narrower second bytes of RFC 3629's table. */
        if (c == 0xe0) {
            lo = 0xa0;
        }
        else if (c == 0xed) {
            hi = 0x9f;
        }
        else if (c == 0xf0) {
            lo = 0x90;
        }
        else if (c == 0xf4) {
            hi = 0x8f;
        }
        for (k = 1; k <= need; k++) {
            if (i + k >= len || s[i + k] < (k == 1 ? lo : 0x80)
                || s[i + k] > (k == 1 ? hi : 0xbf)) {
                return -1;
            }
        }
        i += need + 1;
        n++;
    }
    return n;
}

static void token(const char *in, size_t len)
{
    unsigned char h[HSC_LINK_HASH_LEN], bytes[64], md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    size_t n = 0;
    int ok = len == HSC_LINK_TEXT_LEN
             && hsc_b64url_decode(in, len, bytes, sizeof(bytes), &n) == HSC_OK
             && n == HSC_LINK_SECRET_LEN;

    if (hsc_link_hash(in, len, h) != HSC_OK) {
        HSC_FUZZ_ASSERT(!ok);
        return;
    }
    HSC_FUZZ_ASSERT(ok);
    HSC_FUZZ_ASSERT(EVP_Digest(bytes, n, md, &mdlen, EVP_sha256(), NULL) == 1);
    HSC_FUZZ_ASSERT(mdlen == sizeof(h) && memcmp(md, h, sizeof(h)) == 0);
}

static void password(const char *in, size_t len, int min)
{
    long chars = hsc_utf8_chars(in, len);
    long ref = reference_chars((const unsigned char *)in, len);
    hsc_policy_verdict_t v = hsc_policy_check(NULL, min, "Fuzz.User", in, len);
    int is_user = len == 9 && strncasecmp(in, "fuzz.user", 9) == 0;

    HSC_FUZZ_ASSERT(chars == ref);
    HSC_FUZZ_ASSERT(chars <= (long)len);
    if (v == HSC_POLICY_OK) {
        HSC_FUZZ_ASSERT(len <= HSC_POLICY_MAX_BYTES && chars >= min
                        && !is_user);
    }
    else if (len <= HSC_POLICY_MAX_BYTES && chars >= min && !is_user) {
        HSC_FUZZ_ASSERT(0); /* no other rule without a list */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in;

    if (size < 1) {
        return 0;
    }
    in = (const char *)data + 1;
    token(in, size - 1);
    password(in, size - 1, 8 + data[0] % 12);
    return 0;
}
