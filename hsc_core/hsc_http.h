/*
 * hsc_http.h: the untrusted HTTP inputs the module reads, parsed without
 * httpd so they can be unit-tested and fuzzed: the Cookie header, the login
 * form body and its Content-Type, the return URL, the Origin of a POST, and
 * the query escaping of the URL a login page gets back.
 */
#ifndef HSC_HTTP_H
#define HSC_HTTP_H

#include "hsc_util.h"

/**
 * Find the cookie called name in a Cookie request header (RFC 6265
 * "name=value; name2=value2"; a ',' also ends a pair, since httpd joins
 * two Cookie header lines with ", "). *val and *vallen point into header;
 * *count is how many cookies of that name the header holds (callers refuse more
 * than one: an attacker who can set a cookie for a parent domain could
 * otherwise shadow the real one). Returns HSC_OK when exactly one was found,
 * HSC_EINVAL when none, HSC_EMALFORMED when more than one; the
 * out-parameters are always assigned (NULL/0 unless HSC_OK).
 */
hsc_status_t hsc_cookie_header_find(const char *header, const char *name,
                                    const char **val, size_t *vallen,
                                    int *count) HSC_MUST_CHECK;

/** One decoded field of the login form. */
typedef struct {
    char *value; /* decoded, NUL-terminated, in the caller's buffer */
    size_t len;  /* may contain NUL bytes if the client sent %00 */
    int present; /* 1 when the field appeared */
} hsc_form_field_t;

/** The fields the login and logout handlers read. */
typedef struct {
    hsc_form_field_t username, password, ret, everywhere;
} hsc_login_form_t;

/**
 * Parse an application/x-www-form-urlencoded body of len bytes in place
 * (body is modified: values are percent- and '+'-decoded where they stand).
 * Unknown fields are ignored; a repeated known field, a bad percent escape,
 * or a decoded field over its limit (username 255, password 1024, return
 * 2048 bytes) is HSC_EMALFORMED / HSC_ETOOLONG. *form is always assigned.
 */
hsc_status_t hsc_form_parse(char *body, size_t len,
                            hsc_login_form_t *form) HSC_MUST_CHECK;

/**
 * 1 when url (len bytes) is a safe local redirect target: it starts with a
 * single '/', is not "//" or "/\" in any spelling (including percent-encoded
 * and with embedded tabs), has no scheme or authority, no "." or ".." path
 * segment (raw or %2E), no escape in its path that decodes to '/', '\\',
 * '.', '%', '?' or '#' (so that decoding it once changes nothing:
 * "/%2e%2e%2f%2fx" is "/..//x" to the next decoder), and holds no control
 * characters, backslashes, or bytes above 0x7e. Anything else: 0, and callers
 * use the configured success URL instead.
 */
int hsc_return_url_safe(const char *url, size_t len);

/**
 * The Cache-Control of a response to a request that AuthType HSC admitted,
 * from the directives the response already has (cc; NULL or "" for none):
 * every directive kept except "public" and "s-maxage" (which invite shared
 * caches), then "private" unless "no-store" or "private" is there, and
 * "no-store" when the response sets or refreshes the cookie (cookie_set):
 * a shared cache must never replay a page or a Set-Cookie to another
 * client, and a stricter directive is never weakened. Writes a
 * NUL-terminated list to out; returns its length, or 0 when out (outcap
 * bytes; strlen(cc) + 32 always suffice) is too small. Quoted strings are
 * kept whole (no-cache="Set-Cookie, X").
 */
size_t hsc_cache_control_private(const char *cc, int cookie_set, char *out,
                                 size_t outcap);

/**
 * 1 when the Origin request header names the site this request was sent
 * to: origin is "scheme://host[:port]" (RFC 6454 serialisation, no path),
 * scheme is the request's own ("http" or "https": the TLS state, or the
 * X-Forwarded-Proto of a trusted proxy), host its Host header
 * ("host[:port]", IPv6 in brackets). Scheme, host (case-insensitive) and
 * port must all match, a missing port being the scheme's default (80,
 * 443). Anything else, "null", a userinfo, a path, a bad port or a NULL
 * argument: 0 (a cross-site request).
 */
int hsc_same_origin(const char *origin, const char *scheme, const char *host);

/**
 * 1 when a Content-Type header value is application/x-www-form-urlencoded
 * (case-insensitive), alone or followed by ';' or a space (parameters such
 * as charset); else 0 (NULL included).
 */
int hsc_content_type_is_form(const char *ct);

/**
 * Percent-encode s (NUL-terminated) for a query parameter value: every
 * byte but ALPHA, DIGIT, '-', '.', '_', '~' and '/' becomes %XX
 * (upper-case hex). out holds at least 3 * strlen(s) + 1 bytes; returns
 * the length written, without the NUL.
 */
size_t hsc_query_escape(const char *s, char *out);

#endif /* HSC_HTTP_H */
