/*
 * hsc_throttle.c: keys, stored values and the window rule of the login
 * throttling counters (hsc_throttle.h).
 */
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "hsc_throttle.h"

hsc_status_t hsc_throttle_key(char tag, const char *scope, const char *value,
                              size_t value_len,
                              char key[HSC_THROTTLE_KEY_LEN])
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
         && mdlen >= HSC_THROTTLE_HASH_LEN;
    EVP_MD_CTX_free(ctx);
    if (!ok) {
        return HSC_ECRYPTO;
    }
    key[0] = tag;
    key[1] = ':';
    for (i = 0; i < HSC_THROTTLE_HASH_LEN; ++i) {
        key[2 + 2 * i] = hex[md[i] >> 4];
        key[3 + 2 * i] = hex[md[i] & 15];
    }
    key[2 + 2 * HSC_THROTTLE_HASH_LEN] = '\0';
    return HSC_OK;
}

/* A canonical decimal (no sign, no leading zero but "0") of at most
 * `digits` digits at *p, up to `end`; advances *p. */
static int read_decimal(const char **p, const char *end, int digits,
                        uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    int n = 0;

    while (s < end && *s >= '0' && *s <= '9' && n < digits) {
        v = v * 10 + (uint64_t)(*s - '0');
        ++s;
        ++n;
    }
    if (n == 0 || (n > 1 && **p == '0')
        || (s < end && *s >= '0' && *s <= '9')) {
        return 0;
    }
    *p = s;
    *out = v;
    return 1;
}

hsc_status_t hsc_counter_decode(const char *value, size_t len, int64_t now,
                                int64_t window, uint32_t max,
                                hsc_counter_t *c)
{
    const char *p = value, *end = value + len;
    uint64_t start, count;

    c->start = now;
    c->count = 0;
    if (value == NULL) {
        return HSC_OK;
    }
    /* 18 digits keep start + window far from overflow. */
    if (!read_decimal(&p, end, 18, &start) || p == end || *p++ != ' '
        || !read_decimal(&p, end, 10, &count) || p != end || count > max) {
        return HSC_EMALFORMED;
    }
    if ((int64_t)start + window <= now || (int64_t)start > now) {
        return HSC_OK; /* forgotten: past its window, or a clock went back */
    }
    c->start = (int64_t)start;
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
