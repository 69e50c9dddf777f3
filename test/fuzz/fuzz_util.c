/*
 * fuzz_util.c: the small validators every parser above relies on, checked
 * against independent reference implementations written here from the
 * header comments (differential fuzzing):
 *
 *   hsc_username_valid   1..255 bytes of well-formed UTF-8 (RFC 3629: no
 *                        overlong forms, no surrogates, nothing over
 *                        U+10FFFF) without C0, DEL or C1 controls
 *   hsc_groupname_valid  the same without ',' or white space
 *   hsc_parse_time       1..19 digits, no leading zero, fits int64_t; and
 *                        hsc_format_time gives the same text back
 *   hsc_kdf_parse        anything accepted formats back to the same text
 *                        (one spelling per setting) and is within the
 *                        documented ranges; a refusal zeroes the output
 *   hsc_counter_decode   a throttle counter as stored: anything accepted
 *                        encodes back to the same bytes; a refusal leaves
 *                        a fresh counter
 *   hsc_mc_reply         a memcached reply: what it takes lies within the
 *                        input and ends in CRLF; a value lies within it;
 *                        a number formats back to its line; every prefix
 *                        of an accepted reply asks for more, never
 *                        another answer
 *
 * A username or group is what the cookie's user field decodes to, and the
 * KDF spec is read from the user table; both must be exact.
 */
#include <stdio.h>
#include <string.h>

#include "hsc_fuzz.h"
#include "hsc_kdf.h"
#include "hsc_throttle.h"
#include "hsc_util.h"

/* Reference: the length of one well-formed UTF-8 sequence at s, or 0, and
 * its code point. Table 3-7 of the Unicode standard. */
static size_t ref_utf8(const unsigned char *s, size_t len, uint32_t *cp)
{
    unsigned char b = s[0];
    unsigned char lo = 0x80, hi = 0xBF;
    size_t n, i;

    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    if (b >= 0xC2 && b <= 0xDF) {
        n = 2;
        *cp = b & 0x1F;
    }
    else if (b >= 0xE0 && b <= 0xEF) {
        n = 3;
        *cp = b & 0x0F;
        if (b == 0xE0) {
            lo = 0xA0;
        }
        else if (b == 0xED) {
            hi = 0x9F;
        }
    }
    else if (b >= 0xF0 && b <= 0xF4) {
        n = 4;
        *cp = b & 0x07;
        if (b == 0xF0) {
            lo = 0x90;
        }
        else if (b == 0xF4) {
            hi = 0x8F;
        }
    }
    else {
        return 0;
    }
    if (len < n) {
        return 0;
    }
    for (i = 1; i < n; i++) {
        unsigned char c = s[i];

        if (i == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xBF)) {
            return 0;
        }
        *cp = (*cp << 6) | (c & 0x3F);
    }
    return n;
}

/* Reference: 1 when s is a valid name; group adds the group rules. */
static int ref_name(const unsigned char *s, size_t len, int group)
{
    size_t i = 0, n;
    uint32_t cp;

    if (len == 0 || len > 255) {
        return 0;
    }
    while (i < len) {
        n = ref_utf8(s + i, len - i, &cp);
        if (n == 0 || cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) {
            return 0;
        }
        if (group && (cp == ',' || cp == ' ' || cp == 0xA0)) {
            return 0;
        }
        i += n;
    }
    return 1;
}

/* Reference canonical decimal: returns 1 and *v, or 0. */
static int ref_time(const unsigned char *s, size_t len, int64_t *v)
{
    uint64_t acc = 0;
    size_t i;

    *v = 0;
    if (len == 0 || len > 19 || (len > 1 && s[0] == '0')) {
        return 0;
    }
    for (i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return 0;
        }
        acc = acc * 10 + (uint64_t)(s[i] - '0'); /* 19 digits fit */
    }
    if (acc > (uint64_t)INT64_MAX) {
        return 0;
    }
    *v = (int64_t)acc;
    return 1;
}

static void check_kdf(const uint8_t *data, size_t size)
{
    char spec[HSC_KDF_SPEC_MAX * 2];
    char back[HSC_KDF_SPEC_MAX];
    hsc_kdf_t k;
    size_t n = size < sizeof(spec) - 1 ? size : sizeof(spec) - 1;
    hsc_status_t st;

    memcpy(spec, data, n);
    spec[n] = '\0';
    memset(&k, 0xA5, sizeof(k));
    st = hsc_kdf_parse(spec, &k);
    if (st != HSC_OK) {
        static const hsc_kdf_t zero;

        HSC_FUZZ_ASSERT(st == HSC_EINVAL);
        HSC_FUZZ_ASSERT(k.alg == zero.alg && k.iterations == 0 && k.N == 0
                        && k.r == 0 && k.p == 0);
        return;
    }
    if (k.alg == HSC_KDF_SHA256_CHAIN) {
        HSC_FUZZ_ASSERT(k.iterations >= 1 && k.iterations <= 100000000);
    }
    else {
        HSC_FUZZ_ASSERT(k.alg == HSC_KDF_SCRYPT);
        HSC_FUZZ_ASSERT(k.N >= 2 && k.N <= (1ull << 30));
        HSC_FUZZ_ASSERT((k.N & (k.N - 1)) == 0);
        HSC_FUZZ_ASSERT(k.r >= 1 && k.p >= 1);
        HSC_FUZZ_ASSERT((uint64_t)k.r * k.p < (1ull << 30));
    }
    hsc_kdf_format(&k, back, sizeof(back));
    HSC_FUZZ_ASSERT(strcmp(back, spec) == 0);
}

/* A window so long, and a now so late, that no start it can read (18
 * digits at most) is forgotten: what is accepted must come back as is. */
static void check_counter(const char *buf, size_t size)
{
    const int64_t now = 999999999999999999LL, window = now + 1;
    hsc_counter_t c;
    char out[HSC_THROTTLE_VALUE_MAX];
    hsc_status_t st = hsc_counter_decode(buf, size, now, window, UINT32_MAX,
                                         &c);

    if (st == HSC_OK) {
        size_t n = hsc_counter_encode(&c, out);

        HSC_FUZZ_ASSERT(n == size && memcmp(out, buf, size) == 0);
    }
    else {
        HSC_FUZZ_ASSERT(st == HSC_EMALFORMED && c.start == now && c.count == 0);
    }
}

/* hsc_mc_reply on the input as memcached's reply. */
static void check_mc_reply(const char *buf, size_t size)
{
    size_t used = 0, dlen = 0, k;
    uint64_t v = 0;
    const char *d = NULL;
    hsc_mc_reply_t kind = hsc_mc_reply(buf, size, &used, &v, &d, &dlen);
    char line[32];

    if (kind == HSC_MC_MORE || kind == HSC_MC_ERROR) {
        HSC_FUZZ_ASSERT(used == 0);
        return;
    }
    HSC_FUZZ_ASSERT(used >= 2 && used <= size && used <= HSC_MC_REPLY_MAX);
    HSC_FUZZ_ASSERT(buf[used - 2] == '\r' && buf[used - 1] == '\n');
    if (kind == HSC_MC_VALUE) {
        HSC_FUZZ_ASSERT(d > buf && d + dlen + 7 == buf + used);
    }
    if (kind == HSC_MC_NUMBER) {
        int n = snprintf(line, sizeof(line), "%llu\r\n", (unsigned long long)v);

        HSC_FUZZ_ASSERT((size_t)n == used && memcmp(line, buf, used) == 0);
    }
    /* A reply cut short is never read as a whole one. */
    for (k = 0; k < used; ++k) {
        size_t u2;
        uint64_t v2;
        const char *d2;
        size_t l2;
        hsc_mc_reply_t k2 = hsc_mc_reply(buf, k, &u2, &v2, &d2, &l2);

        HSC_FUZZ_ASSERT(k2 == HSC_MC_MORE);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Exactly size bytes, so ASan sees any read past the length. */
    char *buf = malloc(size ? size : 1);
    const unsigned char *u = (const unsigned char *)buf;
    char digits[32];
    int64_t t = -1, rt = -1;
    hsc_status_t st;
    int ok;

    if (buf == NULL) {
        return 0;
    }
    if (size) {
        memcpy(buf, data, size);
    }

    HSC_FUZZ_ASSERT(hsc_username_valid(buf, size) == ref_name(u, size, 0));
    ok = hsc_groupname_valid(buf, size);
    HSC_FUZZ_ASSERT(ok == ref_name(u, size, 1));

    st = hsc_parse_time(buf, size, &t);
    ok = ref_time(u, size, &rt);
    HSC_FUZZ_ASSERT((st == HSC_OK) == ok);
    HSC_FUZZ_ASSERT(t == rt);
    if (ok) {
        size_t n = hsc_format_time(t, digits);

        HSC_FUZZ_ASSERT(n == size && memcmp(digits, buf, size) == 0);
    }
    else {
        HSC_FUZZ_ASSERT(st == HSC_EMALFORMED);
    }

    check_kdf(data, size);
    check_counter(buf, size);
    check_mc_reply(buf, size);
    free(buf);
    return 0;
}
