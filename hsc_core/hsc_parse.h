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

/* Durations in milliseconds: at most HSC_DURATION_MAX seconds' worth. */
#define HSC_MILLIS_MAX (HSC_DURATION_MAX * 1000)

/**
 * A duration in milliseconds, the one grammar of every millisecond
 * directive (HSCUserDBPoolWait, HSCUserDBTimeout, HSCUserDBMaxStale):
 * decimal digits with an optional unit ms, s, m, h or d, a bare number
 * being seconds ("500ms", "2s", "2", "1m"), within lo .. hi milliseconds
 * (each caller's own range; 0 <= lo <= hi <= HSC_MILLIS_MAX). HSC_OK and
 * *out in milliseconds, else HSC_EMALFORMED and *out = 0. NULL is
 * malformed. The seconds directives keep hsc_parse_duration, which has no
 * "ms" (a cookie lifetime is whole seconds).
 */
hsc_status_t hsc_parse_millis(const char *s, int64_t lo, int64_t hi,
                              int64_t *out) HSC_MUST_CHECK;

/**
 * A size (HSCUserCacheSize: records; HSCUserDBPoolSize: connections):
 * decimal digits only, lo .. hi (0 <= lo <= hi). HSC_OK and *out, else
 * HSC_EMALFORMED and *out = 0. NULL is malformed.
 */
hsc_status_t hsc_parse_size(const char *s, int64_t lo, int64_t hi,
                            int64_t *out) HSC_MUST_CHECK;

/* Keyword directives, as enums (the glue's configuration holds these). */

/** HSCCookieSameSite Strict|Lax|None (case-insensitive). */
typedef enum {
    HSC_SITE_STRICT,
    HSC_SITE_LAX,
    HSC_SITE_NONE
} hsc_cookie_samesite_t;

/** HSCUnauthenticated auto|redirect (case-insensitive)|401. */
typedef enum {
    HSC_UNAUTHENTICATED_AUTO,     /* browser navigation: redirect; else 401 */
    HSC_UNAUTHENTICATED_REDIRECT, /* always redirect to HSCLoginURL */
    HSC_UNAUTHENTICATED_401       /* always 401 */
} hsc_unauth_mode_t;

/** HSCThrottleUnavailable allow|refuse (case-insensitive). */
typedef enum {
    HSC_THROTTLE_DOWN_ALLOW, /* the counters are down: let logins through */
    HSC_THROTTLE_DOWN_REFUSE /* ... or refuse them (503) */
} hsc_throttle_down_t;

/**
 * The keyword parsers: HSC_OK and *out, else HSC_EMALFORMED and *out the
 * first value (which is not the default: callers must check). NULL is
 * malformed.
 */
hsc_status_t hsc_parse_samesite(const char *s,
                                hsc_cookie_samesite_t *out) HSC_MUST_CHECK;
hsc_status_t hsc_parse_unauth(const char *s,
                              hsc_unauth_mode_t *out) HSC_MUST_CHECK;
hsc_status_t hsc_parse_throttle_down(const char *s,
                                     hsc_throttle_down_t *out) HSC_MUST_CHECK;

/** The spelling of a SameSite value in a Set-Cookie line ("Lax"). */
const char *hsc_samesite_name(hsc_cookie_samesite_t v);

/** 1 when s is "none" in any case: the "no value" keyword of
 * HSCLoginStylesheet and HSCLoginFailureURL. NULL: 0. */
int hsc_is_none(const char *s);

/*
 * Value validators: 1 when s (NUL-terminated) is allowed, else 0 (NULL
 * included unless said otherwise). They do not allocate.
 */

/** Only printable ASCII without space (0x21 .. 0x7e); "" is 1. */
int hsc_printable_nospace(const char *s);

/** A URL directive (HSCLoginURL, ...): non-empty, hsc_printable_nospace. */
int hsc_url_valid(const char *s);

/** HSCCookieName: an RFC 6265 cookie-name (a non-empty RFC 7230 token). */
int hsc_cookie_name_valid(const char *s);

/** HSCCookieDomain: non-empty, only ASCII letters, digits, '.' and '-'. */
int hsc_cookie_domain_valid(const char *s);

/** HSCCookiePath: starts with '/', hsc_printable_nospace, no ';'. */
int hsc_cookie_path_valid(const char *s);

/**
 * HSCScope, part of the MAC input (hsc_cookie.h): printable ASCII
 * (0x20 .. 0x7e), so never a line feed, or M = value \n scope \n address
 * would parse two ways. NULL and "" are 1 (no scope).
 */
int hsc_scope_valid(const char *s);

/** HSCSiteName, shown (escaped) in the pages: no control byte (< 0x20,
 * 0x7f); UTF-8 is allowed. "" is 1 (no name). */
int hsc_site_name_valid(const char *s);

#endif /* HSC_PARSE_H */
