/*
 * hsc_parse.c: durations, counts, sizes, keywords and directive values as
 * administrators write them.
 */
#include <string.h>
#include <strings.h>

#include "hsc_parse.h"

hsc_status_t hsc_parse_duration(const char *s, int allow_zero, int64_t *out)
{
    int64_t v = 0, unit = 1;
    const char *p = s;

    *out = 0;
    if (p == NULL || *p < '0' || *p > '9') {
        return HSC_EMALFORMED;
    }
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (*p - '0');
        if (v > HSC_DURATION_MAX) {
            return HSC_EMALFORMED; /* before it can overflow */
        }
        ++p;
    }
    if (*p != '\0') {
        switch (*p) {
        case 's': unit = 1; break;
        case 'm': unit = 60; break;
        case 'h': unit = 3600; break;
        case 'd': unit = 86400; break;
        default: return HSC_EMALFORMED;
        }
        if (p[1] != '\0') {
            return HSC_EMALFORMED;
        }
    }
    v *= unit;
    if (v > HSC_DURATION_MAX || (v == 0 && !allow_zero)) {
        return HSC_EMALFORMED;
    }
    *out = v;
    return HSC_OK;
}

hsc_status_t hsc_parse_count(const char *s, int max, int *out)
{
    const char *p = s;
    long v = 0;

    *out = 0;
    if (max > HSC_COUNT_MAX) {
        max = HSC_COUNT_MAX;
    }
    if (p == NULL || *p == '\0') {
        return HSC_EMALFORMED;
    }
    for (; *p; ++p) {
        if (*p < '0' || *p > '9') {
            return HSC_EMALFORMED;
        }
        v = v * 10 + (*p - '0');
        if (v > max) {
            return HSC_EMALFORMED;
        }
    }
    *out = (int)v;
    return HSC_OK;
}

/* --- milliseconds and sizes ---------------------------------------------- */

/* The units of hsc_parse_millis, in milliseconds; "" is a bare number. */
static const struct {
    const char *name;
    int64_t ms;
} millis_units[] = {{"", 1000},   {"ms", 1},      {"s", 1000},
                    {"m", 60000}, {"h", 3600000}, {"d", 86400000}};

hsc_status_t hsc_parse_millis(const char *s, int64_t lo, int64_t hi,
                              int64_t *out)
{
    const char *p = s;
    int64_t v = 0;
    size_t i;

    *out = 0;
    if (p == NULL || *p < '0' || *p > '9') {
        return HSC_EMALFORMED;
    }
    for (; *p >= '0' && *p <= '9'; ++p) {
        v = v * 10 + (*p - '0');
        if (v > HSC_MILLIS_MAX) {
            return HSC_EMALFORMED; /* before it can overflow */
        }
    }
    for (i = 0; i < sizeof(millis_units) / sizeof(millis_units[0]); ++i) {
        if (strcmp(p, millis_units[i].name) == 0) {
            break;
        }
    }
    if (i == sizeof(millis_units) / sizeof(millis_units[0])
        || v > HSC_MILLIS_MAX / millis_units[i].ms) {
        return HSC_EMALFORMED;
    }
    v *= millis_units[i].ms;
    if (v < lo || v > hi) {
        return HSC_EMALFORMED;
    }
    *out = v;
    return HSC_OK;
}

hsc_status_t hsc_parse_size(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    const char *p = s;
    int64_t v = 0;

    *out = 0;
    if (p == NULL || *p == '\0') {
        return HSC_EMALFORMED;
    }
    for (; *p; ++p) {
        if (*p < '0' || *p > '9') {
            return HSC_EMALFORMED;
        }
        if (v > (hi - (*p - '0')) / 10) {
            return HSC_EMALFORMED; /* over hi, before it can overflow */
        }
        v = v * 10 + (*p - '0');
    }
    if (v < lo || v > hi) { /* also hi < one digit */
        return HSC_EMALFORMED;
    }
    *out = v;
    return HSC_OK;
}

/* --- keywords ------------------------------------------------------------ */

/* The index of s in words (n of them, case-insensitive), or -1. */
static int keyword(const char *s, const char *const *words, int n)
{
    int i;

    for (i = 0; s != NULL && i < n; ++i) {
        if (strcasecmp(s, words[i]) == 0) {
            return i;
        }
    }
    return -1;
}

/* In enum order; "401" has no case. */
static const char *const samesite_words[] = {"Strict", "Lax", "None"};
static const char *const unauth_words[] = {"auto", "redirect", "401"};
static const char *const throttle_down_words[] = {"allow", "refuse"};

hsc_status_t hsc_parse_samesite(const char *s, hsc_cookie_samesite_t *out)
{
    int k = keyword(s, samesite_words, 3);

    *out = k < 0 ? HSC_SITE_STRICT : (hsc_cookie_samesite_t)k;
    return k < 0 ? HSC_EMALFORMED : HSC_OK;
}

hsc_status_t hsc_parse_unauth(const char *s, hsc_unauth_mode_t *out)
{
    int k = keyword(s, unauth_words, 3);

    *out = k < 0 ? HSC_UNAUTHENTICATED_AUTO : (hsc_unauth_mode_t)k;
    return k < 0 ? HSC_EMALFORMED : HSC_OK;
}

hsc_status_t hsc_parse_throttle_down(const char *s, hsc_throttle_down_t *out)
{
    int k = keyword(s, throttle_down_words, 2);

    *out = k < 0 ? HSC_THROTTLE_DOWN_ALLOW : (hsc_throttle_down_t)k;
    return k < 0 ? HSC_EMALFORMED : HSC_OK;
}

const char *hsc_samesite_name(hsc_cookie_samesite_t v)
{
    return (unsigned)v < 3 ? samesite_words[v] : "Strict";
}

int hsc_is_none(const char *s)
{
    return s != NULL && strcasecmp(s, "none") == 0;
}

/* --- value validators ---------------------------------------------------- */

int hsc_printable_nospace(const char *s)
{
    if (s == NULL) {
        return 0;
    }
    for (; *s; ++s) {
        if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f) {
            return 0;
        }
    }
    return 1;
}

int hsc_url_valid(const char *s)
{
    return s != NULL && *s != '\0' && hsc_printable_nospace(s);
}

/* An RFC 7230 tchar: ASCII letters and digits (never the locale's). */
static int tchar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
           || (c >= '0' && c <= '9')
           || (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

int hsc_cookie_name_valid(const char *s)
{
    if (s == NULL || *s == '\0') {
        return 0;
    }
    for (; *s; ++s) {
        if (!tchar(*s)) {
            return 0;
        }
    }
    return 1;
}

int hsc_cookie_domain_valid(const char *s)
{
    return s != NULL && *s != '\0'
           && strspn(s, "abcdefghijklmnopqrstuvwxyz"
                        "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                        "0123456789.-")
                  == strlen(s);
}

int hsc_cookie_path_valid(const char *s)
{
    return s != NULL && s[0] == '/' && hsc_printable_nospace(s)
           && strchr(s, ';') == NULL;
}

int hsc_scope_valid(const char *s)
{
    for (; s != NULL && *s; ++s) {
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e) {
            return 0;
        }
    }
    return 1;
}

int hsc_site_name_valid(const char *s)
{
    if (s == NULL) {
        return 0;
    }
    for (; *s; ++s) {
        if ((unsigned char)*s < 0x20 || *s == 0x7f) {
            return 0;
        }
    }
    return 1;
}
