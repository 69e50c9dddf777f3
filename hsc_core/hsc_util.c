/*
 * hsc_util.c: the error space and the small helpers of the core.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "hsc_util.h"

const char *hsc_strerror(hsc_status_t st)
{
    switch (st) {
    case HSC_OK: return "ok";
    case HSC_EMALFORMED: return "malformed";
    case HSC_ETOOLONG: return "too long";
    case HSC_ENOKEY: return "unknown key id";
    case HSC_EBADMAC: return "bad mac";
    case HSC_EEXPIRED: return "expired";
    case HSC_EFUTURE: return "issued in the future";
    case HSC_EMAXAGE: return "past maximum age";
    case HSC_ENOUSER: return "no such user";
    case HSC_EDISABLED: return "user disabled";
    case HSC_EREVOKED: return "revoked";
    case HSC_EAUTH: return "authentication failed";
    case HSC_ESTORE: return "user store failure";
    case HSC_EREADONLY: return "user store is read-only";
    case HSC_EEXISTS: return "user exists";
    case HSC_EINVAL: return "invalid argument";
    case HSC_ECRYPTO: return "crypto library failure";
    case HSC_EIO: return "i/o error";
    case HSC_ENOMEM: return "out of memory";
    case HSC_EKDFLIMIT: return "the user's KDF is above the ceilings";
    case HSC_EPENDING: return "second factor pending";
    case HSC_EOLDFORMAT: return "format 1 refused";
    }
    return "unknown status";
}

hsc_class_t hsc_status_class(hsc_status_t st)
{
    switch (st) {
    case HSC_OK: return HSC_CLASS_OK;
    case HSC_EEXPIRED:
    case HSC_EMAXAGE:
    case HSC_ENOUSER:
    case HSC_EDISABLED:
    case HSC_EREVOKED:
    case HSC_EAUTH:
    case HSC_EPENDING:
    case HSC_EOLDFORMAT:
    case HSC_EKDFLIMIT: /* the admin's to fix (HSC120); for the client a
                         * failed login like any other */
        return HSC_CLASS_REFUSAL;
    case HSC_ESTORE:
    case HSC_EREADONLY:
    case HSC_ECRYPTO:
    case HSC_EIO:
    case HSC_ENOMEM: return HSC_CLASS_FAULT;
    case HSC_EMALFORMED:
    case HSC_ETOOLONG:
    case HSC_ENOKEY:
    case HSC_EBADMAC:
    case HSC_EFUTURE:
    case HSC_EEXISTS:
    case HSC_EINVAL: break;
    }
    return HSC_CLASS_FORGERY; /* and any value outside the enum */
}

int hsc_ct_equal(const void *a, const void *b, size_t len)
{
    /* CRYPTO_memcmp returns 0 when equal; this function returns 1. */
    return CRYPTO_memcmp(a, b, len) == 0;
}

/* glibc's explicit_bzero is its optimized memset behind a barrier the
 * compiler cannot see through; OPENSSL_cleanse stores a byte at a time.
 * Every request wipes its parsed cookie (some 500 bytes): that was 700
 * instructions of it. */
void hsc_wipe(void *p, size_t len)
{
    if (p != NULL && len > 0) {
#if defined(__GLIBC__)                                                         \
    && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 25))
        explicit_bzero(p, len);
#else
        OPENSSL_cleanse(p, len);
#endif
    }
}

hsc_status_t hsc_parse_time(const char *s, size_t len, int64_t *out)
{
    int64_t v = 0;
    size_t i;

    *out = 0;
    if (s == NULL || len == 0 || len > 19) {
        return HSC_EMALFORMED;
    }
    if (s[0] == '0' && len > 1) {
        return HSC_EMALFORMED; /* leading zero: not canonical */
    }
    /* 18 digits cannot overflow int64_t: only a 19th needs the check (a
     * cookie parses four or five of these on every request). */
    for (i = 0; i < len; i++) {
        unsigned d = (unsigned char)s[i] - (unsigned)'0';

        if (d > 9) {
            return HSC_EMALFORMED;
        }
        if (i == 18 && v > (INT64_MAX - (int64_t)d) / 10) {
            return HSC_EMALFORMED; /* would overflow int64_t */
        }
        v = v * 10 + (int64_t)d;
    }
    *out = v;
    return HSC_OK;
}

size_t hsc_format_time(int64_t t, char *buf)
{
    /* Two digits a step from a table, from the end of tmp: a request
     * formats three of these for its HSC_ variables. */
    static const char pairs[] = "00010203040506070809101112131415161718192021"
                                "22232425262728293031323334353637383940414243"
                                "44454647484950515253545556575859606162636465"
                                "66676869707172737475767778798081828384858687"
                                "888990919293949596979899";
    uint64_t v = t < 0 ? 0 : (uint64_t)t;
    char tmp[20];
    size_t i = sizeof(tmp), n;

    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);

        v /= 100;
        i -= 2;
        memcpy(tmp + i, pairs + 2 * r, 2);
    }
    if (v >= 10) {
        i -= 2;
        memcpy(tmp + i, pairs + 2 * v, 2);
    }
    else {
        tmp[--i] = (char)('0' + (int)v);
    }
    n = sizeof(tmp) - i;
    memcpy(buf, tmp + i, n);
    buf[n] = '\0';
    return n;
}

/*
 * Decode one UTF-8 sequence at s (at most len bytes). Strict: no overlong
 * forms, no surrogates, nothing above U+10FFFF. Returns its length in bytes
 * and sets *cp, or 0 when the bytes are not well-formed UTF-8.
 */
static size_t utf8_next(const unsigned char *s, size_t len, uint32_t *cp)
{
    uint32_t c;
    size_t n, i;
    uint32_t min;

    if (len == 0) {
        return 0;
    }
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    else if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        n = 2;
        c = s[0] & 0x1F;
        min = 0x80;
    }
    else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        n = 3;
        c = s[0] & 0x0F;
        min = 0x800;
    }
    else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        n = 4;
        c = s[0] & 0x07;
        min = 0x10000;
    }
    else {
        return 0; /* continuation byte, C0/C1 overlong lead, or > F4 */
    }
    if (len < n) {
        return 0;
    }
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            return 0;
        }
        c = (c << 6) | (s[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
        return 0;
    }
    *cp = c;
    return n;
}

/* 1 for C0 controls, DEL and C1 controls. */
static int is_control(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
}

int hsc_username_valid(const char *u, size_t len)
{
    const unsigned char *s = (const unsigned char *)u;
    size_t i = 0;

    if (u == NULL || len == 0 || len > HSC_USER_MAX) {
        return 0;
    }
    while (i < len) {
        uint32_t cp;
        size_t n = utf8_next(s + i, len - i, &cp);

        if (n == 0 || is_control(cp)) {
            return 0;
        }
        i += n;
    }
    return 1;
}

/* 1 for a bidi control or an invisible character (hsc_util.h). */
static int is_invisible(uint32_t cp)
{
    return cp == 0x00AD || cp == 0x061C || cp == 0x180E
           || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E)
           || (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x2066 && cp <= 0x2069)
           || cp == 0xFEFF;
}

int hsc_username_has_invisible(const char *u, size_t len)
{
    const unsigned char *s = (const unsigned char *)u;
    size_t i = 0;

    while (u != NULL && i < len) {
        uint32_t cp;
        size_t n = utf8_next(s + i, len - i, &cp);

        if (n == 0) {
            return 0;
        }
        if (is_invisible(cp)) {
            return 1;
        }
        i += n;
    }
    return 0;
}

size_t hsc_username_escape(const char *u, size_t len, char *out)
{
    const unsigned char *s = (const unsigned char *)u;
    size_t i = 0, o = 0;

    while (u != NULL && i < len) {
        uint32_t cp;
        size_t n = utf8_next(s + i, len - i, &cp);

        if (n == 0) {
            cp = s[i]; /* not UTF-8: escape the byte itself */
            n = 1;
            o += (size_t)snprintf(out + o, 9, "\\u{%X}", (unsigned)cp);
        }
        else if (is_invisible(cp) || cp == '\\') {
            o += (size_t)snprintf(out + o, 9, "\\u{%X}", (unsigned)cp);
        }
        else {
            memcpy(out + o, s + i, n);
            o += n;
        }
        i += n;
    }
    out[o] = '\0';
    return o;
}

int hsc_groupname_valid(const char *g, size_t len)
{
    const unsigned char *s = (const unsigned char *)g;
    size_t i = 0;

    if (g == NULL || len == 0 || len > HSC_USER_MAX) {
        return 0;
    }
    while (i < len) {
        uint32_t cp;
        size_t n = utf8_next(s + i, len - i, &cp);

        /* ',' separates groups in the store, ' ' in Require lines. */
        if (n == 0 || is_control(cp) || cp == ',' || cp == ' ' || cp == 0xA0) {
            return 0;
        }
        i += n;
    }
    return 1;
}

hsc_status_t hsc_random(void *buf, size_t len)
{
    unsigned char *b = buf;

    /* RAND_bytes takes an int; feed it in chunks so any size_t works. */
    while (len > 0) {
        int n = len > 65536 ? 65536 : (int)len;

        if (RAND_bytes(b, n) != 1) {
            return HSC_ECRYPTO;
        }
        b += n;
        len -= (size_t)n;
    }
    return HSC_OK;
}
