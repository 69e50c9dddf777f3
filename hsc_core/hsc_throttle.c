/*
 * hsc_throttle.c: keys, stored values and the window rule of the login
 * throttling counters (hsc_throttle.h).
 */
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include <openssl/evp.h>

#include "hsc_throttle.h"

hsc_status_t hsc_throttle_key(char tag, const char *scope, const char *value,
                              size_t value_len, char key[HSC_THROTTLE_KEY_LEN])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0, i;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok;

    key[0] = '\0';
    if (ctx == NULL) {
        return HSC_ECRYPTO;
    }
    /* The NUL after scope keeps ("ab", "c") and ("a", "bc") apart. */
    ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)
         && EVP_DigestUpdate(ctx, scope, strlen(scope) + 1)
         && EVP_DigestUpdate(ctx, value, value_len)
         && EVP_DigestFinal_ex(ctx, md, &mdlen)
         && mdlen > HSC_THROTTLE_HASH_LEN;
    EVP_MD_CTX_free(ctx);
    if (!ok) {
        return HSC_ECRYPTO;
    }
    /* The hash first: shmcb's subcache is the first byte's low bits. */
    key[0] = (char)('?' + (md[HSC_THROTTLE_HASH_LEN] & 63));
    key[1] = tag;
    key[2] = ':';
    for (i = 0; i < HSC_THROTTLE_HASH_LEN; ++i) {
        key[3 + 2 * i] = hex[md[i] >> 4];
        key[4 + 2 * i] = hex[md[i] & 15];
    }
    key[3 + 2 * HSC_THROTTLE_HASH_LEN] = '\0';
    return HSC_OK;
}

void hsc_throttle_address(const char *ip, char out[HSC_THROTTLE_ADDR_MAX])
{
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0,    0,
                                             0, 0, 0, 0, 0xff, 0xff};
    unsigned char a6[16];
    char buf[INET6_ADDRSTRLEN];

    out[0] = '\0';
    if (ip == NULL) {
        return;
    }
    if (strchr(ip, ':') != NULL && inet_pton(AF_INET6, ip, a6) == 1) {
        if (memcmp(a6, mapped, sizeof(mapped)) == 0) {
            inet_ntop(AF_INET, a6 + 12, out, HSC_THROTTLE_ADDR_MAX);
            return;
        }
        memset(a6 + 8, 0, 8);
        if (inet_ntop(AF_INET6, a6, buf, sizeof(buf)) != NULL) {
            snprintf(out, HSC_THROTTLE_ADDR_MAX, "%s/64", buf);
            return;
        }
    }
    snprintf(out, HSC_THROTTLE_ADDR_MAX, "%s", ip);
}

hsc_status_t hsc_counter_decode(const char *value, size_t len, int64_t now,
                                int64_t window, uint32_t max, hsc_counter_t *c)
{
    const char *sp = value != NULL ? memchr(value, ' ', len) : NULL;
    int64_t start, count;

    c->start = now;
    c->count = 0;
    if (value == NULL) {
        return HSC_OK;
    }
    /* Two canonical decimals (hsc_parse_time); 18 digits of start keep
     * start + window far from overflow. */
    if (sp == NULL || sp - value > 18
        || hsc_parse_time(value, (size_t)(sp - value), &start) != HSC_OK
        || hsc_parse_time(sp + 1, len - (size_t)(sp - value) - 1, &count)
               != HSC_OK
        || count > (int64_t)max) {
        return HSC_EMALFORMED;
    }
    if (start + window <= now) {
        return HSC_OK; /* forgotten: past its window */
    }
    /* Written by a server whose clock runs ahead: keep its count (forgetting
     * it would let one skewed server reset everyone's), from now on. */
    if (start > now) {
        start = now;
    }
    c->start = start;
    c->count = (uint32_t)count;
    return HSC_OK;
}

size_t hsc_counter_encode(const hsc_counter_t *c,
                          char buf[HSC_THROTTLE_VALUE_MAX])
{
    int n = snprintf(buf, HSC_THROTTLE_VALUE_MAX, "%lld %lu",
                     (long long)c->start, (unsigned long)c->count);

    return n > 0 && n < HSC_THROTTLE_VALUE_MAX ? (size_t)n : 0;
}

int64_t hsc_counter_wait(const hsc_counter_t *c, int limit, int64_t now,
                         int64_t window)
{
    int64_t left = c->start + window - now;

    if (limit <= 0 || c->count < (uint32_t)limit || left <= 0) {
        return 0;
    }
    return left;
}

hsc_status_t hsc_throttle_exact_key(const char *key, int start,
                                    char out[HSC_THROTTLE_EXACT_KEY_MAX])
{
    size_t len = key != NULL ? strlen(key) : 0, i;

    out[0] = '\0';
    /* Only hsc_throttle_key()'s keys: printable ASCII, no spaces. */
    if (len == 0 || len >= HSC_THROTTLE_KEY_LEN) {
        return HSC_EINVAL;
    }
    for (i = 0; i < len; i++) {
        if (key[i] <= ' ' || key[i] > '~') {
            return HSC_EINVAL;
        }
    }
    memcpy(out, "hsc:", 4);
    memcpy(out + 4, key, len);
    memcpy(out + 4 + len, start ? ":t" : "", start ? 3 : 1);
    return HSC_OK;
}

uint32_t hsc_throttle_exact_expiry(int64_t window, int64_t now)
{
    if (window < 1) {
        window = 1;
    }
    if (window <= HSC_THROTTLE_MC_RELATIVE_MAX) {
        return (uint32_t)window;
    }
    /* A Unix time: 32 bits hold it until 2106. */
    if (now + window > (int64_t)UINT32_MAX) {
        return UINT32_MAX;
    }
    return (uint32_t)(now + window);
}

int64_t hsc_throttle_exact_wait(const char *start, size_t len, int64_t now,
                                int64_t window)
{
    int64_t s, left;

    if (window < 1) {
        return 1;
    }
    if (start == NULL || len > 18 || hsc_parse_time(start, len, &s) != HSC_OK) {
        return window;
    }
    left = s + window - now;
    if (left < 1) {
        return 1; /* memcached still holds the count: its clock decides */
    }
    return left > window ? window : left;
}

/* --- memcached's replies ------------------------------------------------- */

/* The length of the line at buf (without its CRLF), or -1 when no CRLF
 * has arrived yet. A bare CR or LF inside is not a line of memcached's. */
static long mc_line(const char *buf, size_t len)
{
    size_t i;

    for (i = 0; i < len && i < HSC_MC_REPLY_MAX; ++i) {
        if (buf[i] == '\n') {
            return -2;
        }
        if (buf[i] == '\r') {
            if (i + 1 == len) {
                return -1;
            }
            return buf[i + 1] == '\n' ? (long)i : -2;
        }
    }
    return i >= HSC_MC_REPLY_MAX ? -2 : -1;
}

/* A canonical decimal (no sign, no leading zero) below 2^64. */
static int mc_number(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    size_t i;

    if (n == 0 || n > 20 || (n > 1 && s[0] == '0')) {
        return 0;
    }
    for (i = 0; i < n; ++i) {
        unsigned d = (unsigned char)s[i] - '0';

        if (d > 9 || v > (UINT64_MAX - d) / 10) {
            return 0;
        }
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

#define MC_IS(line, n, word)                                                   \
    ((n) == sizeof(word) - 1 && memcmp((line), (word), (n)) == 0)

/* "VALUE <key> <flags> <bytes>\r\n<data>\r\nEND\r\n", line n long. */
static hsc_mc_reply_t mc_value(const char *buf, size_t len, size_t n,
                               size_t *used, const char **data, size_t *dlen)
{
    const char *p = buf + 6, *end = buf + n, *sp;
    uint64_t bytes;
    size_t total;

    /* key and flags: skip two words; the byte count is the third */
    for (int w = 0; w < 2; ++w) {
        sp = memchr(p, ' ', (size_t)(end - p));
        if (sp == NULL || sp == p) {
            return HSC_MC_ERROR;
        }
        p = sp + 1;
    }
    if (!mc_number(p, (size_t)(end - p), &bytes) || bytes > HSC_MC_REPLY_MAX) {
        return HSC_MC_ERROR;
    }
    total = n + 2 + (size_t)bytes + 7; /* CRLF, data, "\r\nEND\r\n" */
    if (total > HSC_MC_REPLY_MAX) {
        return HSC_MC_ERROR;
    }
    if (len < total) {
        return HSC_MC_MORE;
    }
    if (memcmp(buf + n + 2 + bytes, "\r\nEND\r\n", 7) != 0) {
        return HSC_MC_ERROR;
    }
    *data = buf + n + 2;
    *dlen = (size_t)bytes;
    *used = total;
    return HSC_MC_VALUE;
}

hsc_mc_reply_t hsc_mc_reply(const char *buf, size_t len, size_t *used,
                            uint64_t *number, const char **data, size_t *dlen)
{
    long l = mc_line(buf, len);
    size_t n;

    *used = 0;
    if (l == -1) {
        return HSC_MC_MORE;
    }
    if (l < 0) {
        return HSC_MC_ERROR;
    }
    n = (size_t)l;
    if (n > 6 && memcmp(buf, "VALUE ", 6) == 0) {
        return mc_value(buf, len, n, used, data, dlen);
    }
    *used = n + 2;
    if (MC_IS(buf, n, "STORED")) {
        return HSC_MC_STORED;
    }
    if (MC_IS(buf, n, "NOT_STORED")) {
        return HSC_MC_NOT_STORED;
    }
    if (MC_IS(buf, n, "NOT_FOUND")) {
        return HSC_MC_NOT_FOUND;
    }
    if (MC_IS(buf, n, "DELETED")) {
        return HSC_MC_DELETED;
    }
    if (MC_IS(buf, n, "END")) {
        return HSC_MC_END;
    }
    if (mc_number(buf, n, number)) {
        return HSC_MC_NUMBER;
    }
    *used = 0;
    return HSC_MC_ERROR;
}

unsigned hsc_mc_server_of(const char *key, unsigned n)
{
    uint32_t h = 2166136261u; /* FNV-1a */

    for (; *key; ++key) {
        h = (h ^ (unsigned char)*key) * 16777619u;
    }
    return n > 1 ? h % n : 0;
}
