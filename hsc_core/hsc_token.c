/*
 * hsc_token.c: app passwords' text form and checks (hsc_token.h).
 */
#include <string.h>

#include <openssl/evp.h>

#include "hsc_store.h"
#include "hsc_token.h"
#include "hsc_totp.h"

#define ID_BYTES 10
#define SECRET_BYTES 32
#define SECRET_AT (4 + HSC_TOKEN_ID_LEN + 1)
#define CHECK_AT (SECRET_AT + HSC_TOKEN_SECRET_LEN + 1)

static int is_b32(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7');
}

/* Lower-case base32 of n bytes into out (NUL-terminated). */
static void b32_lower(const unsigned char *in, size_t n, char *out)
{
    size_t i, len = hsc_base32_encode(in, n, out);

    for (i = 0; i < len; i++) {
        if (out[i] >= 'A' && out[i] <= 'Z') {
            out[i] = (char)(out[i] - 'A' + 'a');
        }
    }
}

static hsc_status_t sha256(const void *in, size_t len, unsigned char out[32])
{
    unsigned int n = 0;

    return EVP_Digest(in, len, out, &n, EVP_sha256(), NULL) == 1 && n == 32
               ? HSC_OK
               : HSC_ECRYPTO;
}

/* The 8 hex digits of the check over the first CHECK_AT - 1 bytes. */
static hsc_status_t check_digits(const char *text, char out[9])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char h[32];
    int i;

    if (sha256(text, CHECK_AT - 1, h) != HSC_OK) {
        return HSC_ECRYPTO;
    }
    for (i = 0; i < 4; i++) {
        out[2 * i] = hex[h[i] >> 4];
        out[2 * i + 1] = hex[h[i] & 15];
    }
    out[8] = '\0';
    return HSC_OK;
}

hsc_status_t hsc_token_new(char text[HSC_TOKEN_TEXT_LEN + 1],
                           char id[HSC_TOKEN_ID_LEN + 1],
                           unsigned char hash[HSC_TOKEN_HASH_LEN])
{
    unsigned char raw[ID_BYTES + SECRET_BYTES];
    char b32[HSC_BASE32_LEN(SECRET_BYTES) + 1];
    hsc_status_t st = hsc_random(raw, sizeof(raw));

    if (st == HSC_OK) {
        b32_lower(raw, ID_BYTES, id);
        b32_lower(raw + ID_BYTES, SECRET_BYTES, b32);
        memcpy(text, HSC_TOKEN_PREFIX, 4);
        memcpy(text + 4, id, HSC_TOKEN_ID_LEN);
        text[SECRET_AT - 1] = '_';
        memcpy(text + SECRET_AT, b32, HSC_TOKEN_SECRET_LEN);
        text[CHECK_AT - 1] = '_';
        st = check_digits(text, text + CHECK_AT);
    }
    if (st == HSC_OK) {
        st = sha256(raw + ID_BYTES, SECRET_BYTES, hash);
    }
    hsc_wipe(raw, sizeof(raw));
    hsc_wipe(b32, sizeof(b32));
    return st;
}

int hsc_token_shaped(const char *s, size_t len)
{
    return len == HSC_TOKEN_TEXT_LEN && memcmp(s, HSC_TOKEN_PREFIX, 4) == 0;
}

int hsc_token_id_valid(const char *id, size_t len)
{
    size_t i;

    if (len != HSC_TOKEN_ID_LEN) {
        return 0;
    }
    for (i = 0; i < len; i++) {
        if (!is_b32((unsigned char)id[i])) {
            return 0;
        }
    }
    return 1;
}

hsc_status_t hsc_token_parse(const char *text, size_t len,
                             char id[HSC_TOKEN_ID_LEN + 1],
                             unsigned char hash[HSC_TOKEN_HASH_LEN])
{
    unsigned char secret[SECRET_BYTES];
    char want[9];
    size_t i, n = 0;
    unsigned bad = 0;
    hsc_status_t st;

    if (!hsc_token_shaped(text, len) || text[SECRET_AT - 1] != '_'
        || text[CHECK_AT - 1] != '_'
        || !hsc_token_id_valid(text + 4, HSC_TOKEN_ID_LEN)) {
        return HSC_EMALFORMED;
    }
    for (i = 0; i < HSC_TOKEN_SECRET_LEN; i++) {
        bad |= (unsigned)!is_b32((unsigned char)text[SECRET_AT + i]);
    }
    if (bad || check_digits(text, want) != HSC_OK
        || !hsc_ct_equal(want, text + CHECK_AT, HSC_TOKEN_CHECK_LEN)) {
        return HSC_EMALFORMED;
    }
    /* Lower case only and no leftover bits: one text per token. */
    if (hsc_base32_decode(text + SECRET_AT, HSC_TOKEN_SECRET_LEN, secret,
                          sizeof(secret), &n)
            != HSC_OK
        || n != sizeof(secret)) {
        hsc_wipe(secret, sizeof(secret));
        return HSC_EMALFORMED;
    }
    st = sha256(secret, sizeof(secret), hash);
    hsc_wipe(secret, sizeof(secret));
    if (st == HSC_OK) {
        memcpy(id, text + 4, HSC_TOKEN_ID_LEN);
        id[HSC_TOKEN_ID_LEN] = '\0';
    }
    return st;
}

int hsc_token_name_valid(const char *name, size_t len)
{
    size_t i;

    if (name == NULL || len == 0 || len > HSC_TOKEN_NAME_MAX || name[0] == ' '
        || name[len - 1] == ' ') {
        return 0;
    }
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c < 0x20 || c > 0x7e) {
            return 0;
        }
    }
    return 1;
}

static int scope_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.'
           || c == '_' || c == ':' || c == '-';
}

/* 1 when name (n bytes, at end) is among the names before it. */
static int listed(const char *list, const char *end, size_t n)
{
    const char *p = list;

    while (p < end) {
        const char *q = memchr(p, ',', (size_t)(end - p));
        if (q == NULL) {
            return 0;
        }
        if ((size_t)(q - p) == n && memcmp(p, end, n) == 0) {
            return 1;
        }
        p = q + 1;
    }
    return 0;
}

int hsc_token_scopes_valid(const char *scopes)
{
    const char *p = scopes, *start;

    if (scopes == NULL || strlen(scopes) > HSC_TOKEN_SCOPES_MAX) {
        return 0;
    }
    if (*p == '\0') {
        return 1;
    }
    for (;;) {
        size_t n;

        start = p;
        while (scope_char((unsigned char)*p)) {
            p++;
        }
        n = (size_t)(p - start);
        if (n == 0 || n > HSC_TOKEN_SCOPE_MAX || (*p != ',' && *p != '\0')) {
            return 0;
        }
        /* Listed once: no earlier name equals this one. */
        if (listed(scopes, start, n)) {
            return 0;
        }
        if (*p == '\0') {
            return 1;
        }
        p++;
    }
}

int hsc_token_has_scope(const char *scopes, const char *scope, size_t len)
{
    return len > 0 && hsc_groups_contain(scopes, scope, len);
}

hsc_status_t hsc_token_check(const hsc_token_t *t,
                             const unsigned char hash[HSC_TOKEN_HASH_LEN],
                             int64_t now)
{
    if (!hsc_ct_equal(t->hash, hash, HSC_TOKEN_HASH_LEN)) {
        return HSC_EAUTH;
    }
    if (t->revoked != 0) {
        return HSC_EREVOKED;
    }
    if (t->expires != 0 && now >= t->expires) {
        return HSC_EEXPIRED;
    }
    return HSC_OK;
}
