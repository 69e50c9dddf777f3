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
 *     letters; and it accepts every such text when no list is given;
 *   - an app password (hsc_token_parse, what Authorization carries) is
 *     accepted exactly when a reference check written here from
 *     hsc_token.h's grammar passes (lengths, alphabets, canonical base32,
 *     the SHA-256 check digits), and then its id is the text's and its
 *     hash the SHA-256 of the secret decoded here; a token built here from
 *     the input's bytes as its secret always parses back to them.
 */
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>

#include "hsc_b64.h"
#include "hsc_fuzz.h"
#include "hsc_links.h"
#include "hsc_policy.h"
#include "hsc_token.h"

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

/* RFC 4648 base32, lower case: the value of c, or -1. */
static int b32v(unsigned char c)
{
    if (c >= 'a' && c <= 'z') {
        return c - 'a';
    }
    return c >= '2' && c <= '7' ? c - '2' + 26 : -1;
}

/* The 32 bytes of a 52-character secret, or 0 when not canonical. */
static int b32_secret(const char *s, unsigned char out[32])
{
    unsigned long long acc = 0;
    int bits = 0, i, o = 0;

    for (i = 0; i < 52; i++) {
        int v = b32v((unsigned char)s[i]);
        if (v < 0) {
            return 0;
        }
        acc = (acc << 5) | (unsigned)v;
        bits += 5;
        if (bits >= 8) {
            if (o == 32) {
                return 0;
            }
            out[o++] = (unsigned char)(acc >> (bits - 8));
            bits -= 8;
        }
    }
    return o == 32 && (acc & ((1u << bits) - 1)) == 0;
}

static void sha256(const void *in, size_t len, unsigned char *md)
{
    unsigned int n = 0;

    HSC_FUZZ_ASSERT(EVP_Digest(in, len, md, &n, EVP_sha256(), NULL) == 1
                    && n == 32);
}

static void app_password(const char *in, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char secret[32], md[32], hash[HSC_TOKEN_HASH_LEN];
    char id[HSC_TOKEN_ID_LEN + 1], check[8];
    int i, ok = len == 82 && memcmp(in, "hsc_", 4) == 0 && in[20] == '_'
                && in[73] == '_';

    for (i = 4; ok && i < 20; i++) {
        ok = b32v((unsigned char)in[i]) >= 0;
    }
    ok = ok && b32_secret(in + 21, secret);
    if (ok) {
        sha256(in, 73, md);
        for (i = 0; i < 4; i++) {
            check[2 * i] = hex[md[i] >> 4];
            check[2 * i + 1] = hex[md[i] & 15];
        }
        ok = memcmp(check, in + 74, 8) == 0;
    }
    if (hsc_token_parse(in, len, id, hash) != HSC_OK) {
        HSC_FUZZ_ASSERT(!ok);
        return;
    }
    HSC_FUZZ_ASSERT(ok && strlen(id) == 16 && memcmp(id, in + 4, 16) == 0);
    sha256(secret, 32, md);
    HSC_FUZZ_ASSERT(memcmp(md, hash, 32) == 0);
}

/* A token made here with the input's first 42 bytes as id and secret. */
static void app_password_made(const unsigned char *in, size_t len)
{
    static const char alpha[] = "abcdefghijklmnopqrstuvwxyz234567";
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[42] = {0}, md[32], hash[HSC_TOKEN_HASH_LEN];
    char text[83], id[HSC_TOKEN_ID_LEN + 1];
    unsigned long long acc = 0;
    int bits = 0, o = 21, i;

    memcpy(raw, in, len < sizeof(raw) ? len : sizeof(raw));
    memcpy(text, "hsc_", 4);
    for (i = 0; i < 16; i++) {
        text[4 + i] = alpha[raw[i] & 31];
    }
    text[20] = '_';
    for (i = 10; i < 42; i++) {
        acc = (acc << 8) | raw[i];
        bits += 8;
        while (bits >= 5) {
            text[o++] = alpha[(acc >> (bits - 5)) & 31];
            bits -= 5;
        }
    }
    text[o++] = alpha[(acc << (5 - bits)) & 31];
    HSC_FUZZ_ASSERT(o == 73);
    text[73] = '_';
    sha256(text, 73, md);
    for (i = 0; i < 4; i++) {
        text[74 + 2 * i] = hex[md[i] >> 4];
        text[75 + 2 * i] = hex[md[i] & 15];
    }
    text[82] = '\0';
    HSC_FUZZ_ASSERT(hsc_token_parse(text, 82, id, hash) == HSC_OK);
    sha256(raw + 10, 32, md);
    HSC_FUZZ_ASSERT(memcmp(md, hash, 32) == 0);
    HSC_FUZZ_ASSERT(memcmp(id, text + 4, 16) == 0);
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
    app_password(in, size - 1);
    app_password_made(data + 1, size - 1);
    return 0;
}
