/*
 * hsc_b64.c: canonical base64url without padding (RFC 4648 section 5).
 *
 * Table-driven, no allocation. Decoding is strict on purpose: a cookie
 * field has exactly one accepted spelling, so no two distinct strings carry
 * the same bytes (no padding, no stray characters, unused bits zero).
 */
#include "hsc_b64.h"

static const char enc_table
    [64] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* 0..63 for the alphabet, 0xFF for everything else (including '=', '+'). */
#define XX 0xFF
static const unsigned char dec_table[256] = {
    XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, /* 00 */
    XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, /* 10 */
    XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, 62, XX, XX, /* 20 */
    52, 53, 54, 55, 56, 57, 58, 59, 60, 61, XX, XX, XX, XX, XX, XX, /* 30 */
    XX, 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, /* 40 */
    15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, XX, XX, XX, XX, 63, /* 50 */
    XX, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, /* 60 */
    41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, XX, XX, XX, XX, XX, /* 70 */
    XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, /* 80 */
    XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, /* 90 */
    XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, /* A0 */
    XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, /* B0 */
    XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, /* C0 */
    XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, /* D0 */
    XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, /* E0 */
    XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX, XX  /* F0 */
};
#undef XX

size_t hsc_b64url_encode(const void *in, size_t len, char *out)
{
    const unsigned char *s = in;
    size_t i = 0, o = 0;

    for (; i + 3 <= len; i += 3) {
        uint32_t w = ((uint32_t)s[i] << 16) | ((uint32_t)s[i + 1] << 8)
                     | s[i + 2];

        out[o++] = enc_table[(w >> 18) & 0x3F];
        out[o++] = enc_table[(w >> 12) & 0x3F];
        out[o++] = enc_table[(w >> 6) & 0x3F];
        out[o++] = enc_table[w & 0x3F];
    }
    if (len - i == 1) {
        uint32_t w = (uint32_t)s[i] << 16;

        out[o++] = enc_table[(w >> 18) & 0x3F];
        out[o++] = enc_table[(w >> 12) & 0x3F];
    }
    else if (len - i == 2) {
        uint32_t w = ((uint32_t)s[i] << 16) | ((uint32_t)s[i + 1] << 8);

        out[o++] = enc_table[(w >> 18) & 0x3F];
        out[o++] = enc_table[(w >> 12) & 0x3F];
        out[o++] = enc_table[(w >> 6) & 0x3F];
    }
    out[o] = '\0';
    return o;
}

hsc_status_t hsc_b64url_decode(const char *in, size_t len, unsigned char *out,
                               size_t outcap, size_t *outlen)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t need, i = 0, o = 0, rest;
    uint32_t w, a, b, c, d, bad = 0;

    *outlen = 0;
    if (len % 4 == 1) {
        return HSC_EMALFORMED; /* 6 bits cannot make a byte */
    }
    need = (len / 4) * 3 + (len % 4 == 0 ? 0 : len % 4 - 1);
    if (need > outcap) {
        /* A bad string is EMALFORMED whatever its length. */
        for (i = 0; i < len; i++) {
            bad |= dec_table[s[i]];
        }
        return (bad & 0xC0) ? HSC_EMALFORMED : HSC_ETOOLONG;
    }
    /* One pass: decode, and OR the table values together; a character
     * outside the alphabet (0xFF) leaves the top bits set. */
    for (i = 0; i + 4 <= len; i += 4) {
        a = dec_table[s[i]];
        b = dec_table[s[i + 1]];
        c = dec_table[s[i + 2]];
        d = dec_table[s[i + 3]];
        bad |= a | b | c | d;
        w = (a << 18) | (b << 12) | (c << 6) | d;
        out[o++] = (unsigned char)(w >> 16);
        out[o++] = (unsigned char)(w >> 8);
        out[o++] = (unsigned char)w;
    }
    rest = len - i;
    w = 0;
    if (rest >= 2) {
        a = dec_table[s[i]];
        b = dec_table[s[i + 1]];
        c = rest == 3 ? dec_table[s[i + 2]] : 0;
        bad |= a | b | c;
        w = (a << 18) | (b << 12) | (c << 6);
    }
    if (bad & 0xC0) {
        goto malformed; /* outside the alphabet */
    }
    if (rest == 2) {
        if (w & 0xFFFF) {
            goto malformed; /* noncanonical: the 4 unused bits must be 0 */
        }
        out[o++] = (unsigned char)(w >> 16);
    }
    else if (rest == 3) {
        if (w & 0xFF) {
            goto malformed; /* noncanonical: the 2 unused bits must be 0 */
        }
        out[o++] = (unsigned char)(w >> 16);
        out[o++] = (unsigned char)(w >> 8);
    }
    *outlen = o;
    return HSC_OK;

malformed:
    hsc_wipe(out, o); /* the output may be a secret; leave nothing */
    return HSC_EMALFORMED;
}
