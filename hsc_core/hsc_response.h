/*
 * hsc_response.h: the response headers the module composes, without httpd
 * so they can be unit-tested and fuzzed: Cache-Control on admitted
 * responses, the Set-Cookie line, and the rules its attributes obey.
 * Request inputs: hsc_http.h.
 */
#ifndef HSC_RESPONSE_H
#define HSC_RESPONSE_H

#include <stdint.h>

#include "hsc_parse.h" /* hsc_cookie_samesite_t */
#include "hsc_util.h"

/**
 * The Cache-Control of a response to a request that AuthType HSC admitted,
 * from the directives the response already has (cc; NULL or "" for none):
 * every directive kept except "public" and "s-maxage" (which invite shared
 * caches), then "private" unless "no-store" or "private" is there, and
 * "no-store" when the response sets or refreshes the cookie (cookie_set):
 * a shared cache must never replay a page or a Set-Cookie to another
 * client, and a stricter directive is never weakened. Writes a
 * NUL-terminated list to out; returns its length, or 0 and "" when out
 * (outcap bytes) is too small: strlen(cc) + 32 suffice for lists written
 * with ", ", 2 * strlen(cc) + 32 for any (each directive may gain the
 * space after its comma). Quoted strings are kept whole
 * (no-cache="Set-Cookie, X").
 */
size_t hsc_cc_private(const char *cc, int cookie_set, char *out, size_t outcap);

/** The cookie's attributes, as the per-directory directives set them. */
typedef struct {
    const char *name;   /* HSCCookieName */
    const char *domain; /* HSCCookieDomain; NULL: none (host-only) */
    const char *path;   /* HSCCookiePath */
    int secure;         /* HSCCookieSecure */
    hsc_cookie_samesite_t samesite; /* HSCCookieSameSite */
} hsc_cookie_attrs_t;

/**
 * NULL, or why these attributes are not allowed together (the browsers'
 * cookie prefixes and SameSite=None rules): a "__Host-" name needs Secure,
 * Path=/ and no Domain; a "__Secure-" name needs Secure; SameSite None
 * needs Secure. The text is static and names the directives.
 */
const char *hsc_cookie_attrs_conflict(const hsc_cookie_attrs_t *a);

/* Room for the date of hsc_set_cookie_line ("Thu, 01 Jan 1970 ..."). */
#define HSC_SET_COOKIE_DATE_LEN 30

/**
 * The Set-Cookie header value:
 *   name=value; Path=path[; Domain=domain]; Max-Age=N; Expires=DATE;
 *   HttpOnly[; Secure]; SameSite=Strict|Lax|None
 * max_age in seconds (a negative one is 0, as the glue clamps it),
 * expires in seconds since the epoch (RFC 1123 date in GMT, as
 * apr_rfc822_date writes it; 0 is the epoch, which deletes the cookie).
 * Nothing can inject an attribute or a header: the name must be
 * hsc_cookie_name_valid, the path hsc_cookie_path_valid, the domain NULL
 * or hsc_cookie_domain_valid, and the value only RFC 6265 cookie-octets
 * (no space, '"', ',', ';', '\\' or control byte; "" allowed), or 0.
 * Writes a NUL-terminated line to out; returns its length, or 0 when an
 * input is refused, the year of expires is outside 0 .. 9999, or out
 * (outcap bytes) is too small. The attribute conflicts are the caller's
 * (hsc_cookie_attrs_conflict first).
 */
size_t hsc_set_cookie_line(const hsc_cookie_attrs_t *a, const char *value,
                           int64_t max_age, int64_t expires, char *out,
                           size_t outcap);

#endif /* HSC_RESPONSE_H */
