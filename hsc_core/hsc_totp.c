/*
 * hsc_totp.c: RFC 6238 time-based one-time passwords, RFC 4226 HOTP, and
 * RFC 4648 base32 (hsc_totp.h).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "hsc_totp.h"

static const char b32_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

void hsc_totp_defaults(hsc_totp_params_t *p)
{
    p->alg = HSC_TOTP_SHA1;
    p->digits = 6;
    p->period = 30;
}

int hsc_totp_params_valid(const hsc_totp_params_t *p)
{
    return p != NULL
           && (p->alg == HSC_TOTP_SHA1 || p->alg == HSC_TOTP_SHA256
               || p->alg == HSC_TOTP_SHA512)
           && p->digits >= 6 && p->digits <= 8 && p->period >= 15
           && p->period <= 300;
}

const char *hsc_totp_alg_name(hsc_totp_alg_t alg)
{
    switch (alg) {
    case HSC_TOTP_SHA256: return "SHA256";
    case HSC_TOTP_SHA512: return "SHA512";
    case HSC_TOTP_SHA1: break;
    }
    return "SHA1";
}

hsc_status_t hsc_totp_alg_parse(const char *name, hsc_totp_alg_t *out)
{
    static const hsc_totp_alg_t algs[] = {HSC_TOTP_SHA1, HSC_TOTP_SHA256,
                                          HSC_TOTP_SHA512};
    size_t i;

    for (i = 0; name != NULL && i < sizeof(algs) / sizeof(algs[0]); i++) {
        if (strcasecmp(name, hsc_totp_alg_name(algs[i])) == 0) {
            *out = algs[i];
            return HSC_OK;
        }
    }
    return HSC_EINVAL;
}

size_t hsc_base32_encode(const unsigned char *in, size_t len, char *out)
{
    size_t i, o = 0;
    unsigned buf = 0;
    int bits = 0;

    for (i = 0; i < len; i++) {
        buf = (buf << 8) | in[i];
        bits += 8;
        while (bits >= 5) {
            out[o++] = b32_alphabet[(buf >> (bits - 5)) & 31];
            bits -= 5;
        }
    }
    if (bits > 0) {
        out[o++] = b32_alphabet[(buf << (5 - bits)) & 31];
    }
    out[o] = '\0';
    return o;
}

/* The value of a base32 character (either case), or -1. */
static int b32_value(char ch)
{
    if (ch >= 'a' && ch <= 'z') {
        return ch - 'a';
    }
    if (ch >= 'A' && ch <= 'Z') {
        return ch - 'A';
    }
    if (ch >= '2' && ch <= '7') {
        return ch - '2' + 26;
    }
    return -1;
}

hsc_status_t hsc_base32_decode(const char *in, size_t len, unsigned char *out,
                               size_t cap, size_t *outlen)
{
    size_t i, o = 0, chars = 0;
    unsigned buf = 0;
    int bits = 0, padding = 0;

    *outlen = 0;
    for (i = 0; i < len; i++) {
        int v;

        if (in[i] == ' ' || in[i] == '-') {
            continue; /* grouping, as apps and people write it */
        }
        if (in[i] == '=') {
            padding = 1;
            continue;
        }
        v = b32_value(in[i]);
        if (v < 0 || padding) {
            return HSC_EMALFORMED; /* a stranger, or text after '=' */
        }
        chars++;
        buf = (buf << 5) | (unsigned)v;
        bits += 5;
        if (bits >= 8) {
            if (o == cap) {
                return HSC_ETOOLONG;
            }
            out[o++] = (unsigned char)(buf >> (bits - 8));
            bits -= 8;
        }
        buf &= (1u << bits) - 1;
    }
    /* Leftover bits: fewer than a character's worth, and all zero. */
    if (bits >= 5 || buf != 0 || chars != HSC_BASE32_LEN(o)) {
        return HSC_EMALFORMED;
    }
    *outlen = o;
    return HSC_OK;
}

static const EVP_MD *alg_md(hsc_totp_alg_t alg)
{
    switch (alg) {
    case HSC_TOTP_SHA256: return EVP_sha256();
    case HSC_TOTP_SHA512: return EVP_sha512();
    case HSC_TOTP_SHA1: break;
    }
    return EVP_sha1();
}

hsc_status_t hsc_hotp(const hsc_totp_params_t *p, const unsigned char *secret,
                      size_t secret_len, uint64_t counter, uint32_t *code)
{
    static const uint32_t pow10[] = {1,      10,      100,      1000,     10000,
                                     100000, 1000000, 10000000, 100000000};
    unsigned char msg[8], mac[EVP_MAX_MD_SIZE];
    unsigned int maclen = 0, off;
    uint32_t bin;
    int i;

    *code = 0;
    if (!hsc_totp_params_valid(p) || secret == NULL || secret_len == 0
        || secret_len > HSC_TOTP_SECRET_MAX) {
        return HSC_EINVAL;
    }
    for (i = 7; i >= 0; i--) {
        msg[i] = (unsigned char)(counter & 0xff);
        counter >>= 8;
    }
    if (HMAC(alg_md(p->alg), secret, (int)secret_len, msg, sizeof(msg), mac,
             &maclen)
            == NULL
        || maclen < 20) {
        return HSC_ECRYPTO;
    }
    /* Dynamic truncation (RFC 4226, 5.3). */
    off = mac[maclen - 1] & 0x0f;
    bin = ((uint32_t)(mac[off] & 0x7f) << 24) | ((uint32_t)mac[off + 1] << 16)
          | ((uint32_t)mac[off + 2] << 8) | mac[off + 3];
    hsc_wipe(mac, sizeof(mac));
    *code = bin % pow10[p->digits];
    return HSC_OK;
}

int64_t hsc_totp_step(const hsc_totp_params_t *p, int64_t t)
{
    return t < 0 ? -1 : t / (int64_t)p->period;
}

hsc_status_t hsc_totp_code_parse(const hsc_totp_params_t *p, const char *in,
                                 size_t len, char *out)
{
    size_t i, n = 0;

    out[0] = '\0';
    if (!hsc_totp_params_valid(p) || in == NULL || len > 32) {
        return HSC_EMALFORMED;
    }
    for (i = 0; i < len; i++) {
        if (in[i] == ' ') {
            continue;
        }
        if (in[i] < '0' || in[i] > '9' || n == p->digits) {
            out[0] = '\0';
            return HSC_EMALFORMED;
        }
        out[n++] = in[i];
    }
    out[n] = '\0';
    if (n != p->digits) {
        out[0] = '\0';
        return HSC_EMALFORMED;
    }
    return HSC_OK;
}

hsc_status_t hsc_totp_check(const hsc_totp_params_t *p,
                            const unsigned char *secret, size_t secret_len,
                            const char *code, int64_t now, int window,
                            int64_t last_step, int64_t *step)
{
    int64_t t = hsc_totp_step(p, now), s, found = -1;
    char want[16];
    uint32_t c;
    hsc_status_t st;

    *step = -1;
    if (!hsc_totp_params_valid(p) || code == NULL || strlen(code) != p->digits
        || t < 0 || window < 0 || window > 10) {
        return HSC_EINVAL;
    }
    /* Every step of the window is computed and compared, matched or not,
     * so that the time taken says nothing about which one matched. */
    for (s = t - window; s <= t + window; s++) {
        if (s < 0) {
            continue;
        }
        st = hsc_hotp(p, secret, secret_len, (uint64_t)s, &c);
        if (st != HSC_OK) {
            return st;
        }
        snprintf(want, sizeof(want), "%0*u", (int)p->digits, (unsigned)c);
        if (hsc_ct_equal(want, code, p->digits) && s > last_step) {
            found = s;
        }
    }
    hsc_wipe(want, sizeof(want));
    if (found < 0) {
        return HSC_EAUTH;
    }
    *step = found;
    return HSC_OK;
}

/* Percent-encode s (RFC 3986 unreserved kept) at out + *o; -1 when full. */
static int put_escaped(const char *s, char *out, size_t cap, size_t *o)
{
    static const char hex[] = "0123456789ABCDEF";

    for (; *s != '\0'; s++) {
        unsigned char ch = (unsigned char)*s;
        int plain = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z')
                    || (ch >= '0' && ch <= '9') || ch == '-' || ch == '.'
                    || ch == '_' || ch == '~' || ch == '@';

        if (*o + (plain ? 1 : 3) >= cap) {
            return -1;
        }
        if (plain) {
            out[(*o)++] = (char)ch;
        }
        else {
            out[(*o)++] = '%';
            out[(*o)++] = hex[ch >> 4];
            out[(*o)++] = hex[ch & 15];
        }
    }
    out[*o] = '\0';
    return 0;
}

/* Append the plain text s; -1 when full. */
static int put_plain(const char *s, char *out, size_t cap, size_t *o)
{
    size_t n = strlen(s);

    if (*o + n >= cap) {
        return -1;
    }
    memcpy(out + *o, s, n + 1);
    *o += n;
    return 0;
}

hsc_status_t hsc_totp_uri(const hsc_totp_params_t *p, const char *issuer,
                          const char *user, const unsigned char *secret,
                          size_t secret_len, char *out, size_t cap)
{
    char b32[HSC_BASE32_LEN(HSC_TOTP_SECRET_MAX) + 1], tail[80];
    size_t o = 0;
    int bad;

    if (cap > 0) {
        out[0] = '\0';
    }
    if (!hsc_totp_params_valid(p) || issuer == NULL || user == NULL
        || secret == NULL || secret_len == 0
        || secret_len > HSC_TOTP_SECRET_MAX) {
        return HSC_EINVAL;
    }
    hsc_base32_encode(secret, secret_len, b32);
    snprintf(tail, sizeof(tail), "&algorithm=%s&digits=%u&period=%u",
             hsc_totp_alg_name(p->alg), p->digits, p->period);
    bad = put_plain("otpauth://totp/", out, cap, &o)
          || put_escaped(issuer, out, cap, &o) || put_plain(":", out, cap, &o)
          || put_escaped(user, out, cap, &o)
          || put_plain("?secret=", out, cap, &o) || put_plain(b32, out, cap, &o)
          || put_plain("&issuer=", out, cap, &o)
          || put_escaped(issuer, out, cap, &o) || put_plain(tail, out, cap, &o);
    hsc_wipe(b32, sizeof(b32));
    if (bad) {
        hsc_wipe(out, cap);
        return HSC_ETOOLONG;
    }
    return HSC_OK;
}
