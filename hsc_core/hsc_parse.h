/*
 * hsc_parse.h: the values an administrator writes (directive arguments,
 * hsc-admin options), parsed without httpd so the module and hsc-admin read
 * them the same way, and so they can be unit-tested and fuzzed.
 */
#ifndef HSC_PARSE_H
#define HSC_PARSE_H

#include <stdint.h>

#include "hsc_util.h"

/* Durations: at most ten years, in seconds. */
#define HSC_DURATION_MAX ((int64_t)10 * 366 * 86400)
/* Upper bound of every count the throttling directives take. */
#define HSC_COUNT_MAX 1000000

/**
 * A duration: decimal digits with an optional unit s, m, h or d ("30m",
 * "2s", "8h", "1d", "90"), at most HSC_DURATION_MAX seconds, and more than
 * 0 unless allow_zero. HSC_OK and *out in seconds, else HSC_EMALFORMED
 * and *out = 0. s is NUL-terminated; NULL is malformed.
 */
hsc_status_t hsc_parse_duration(const char *s, int allow_zero,
                                int64_t *out) HSC_MUST_CHECK;

/**
 * A count: decimal digits only, 0 .. max (max <= HSC_COUNT_MAX).
 * HSC_OK and *out, else HSC_EMALFORMED and *out = 0.
 */
hsc_status_t hsc_parse_count(const char *s, int max, int *out) HSC_MUST_CHECK;

#endif /* HSC_PARSE_H */
