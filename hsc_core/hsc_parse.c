/*
 * hsc_parse.c: durations and counts as administrators write them.
 */
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
