/*
 * hsc_http.h: the untrusted HTTP inputs the module reads, parsed without
 * httpd so they can be unit-tested and fuzzed: the Cookie header, the login
 * form body and its Content-Type, the return URL, the Origin of a POST, and
 * the query escaping of the URL a login page gets back, X-Forwarded-Proto
 * and the Referer. Response headers: hsc_response.h.
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
    hsc_form_field_t username, password, ret, everywhere, remember;
    hsc_form_field_t code; /* the second-factor step's TOTP or recovery code */
    hsc_form_field_t factor; /* "1": a location wants a second factor */
    hsc_form_field_t action; /* the account page: "password", "signout" */
    hsc_form_field_t new_password, new_password2; /* a password change */
    hsc_form_field_t link; /* a one-time link's token (hsc_links.h) */
    /* The account page's app passwords: a new one's name, scopes and
     * expiry ("30d", "90d", "365d", "never"); the id of one to revoke. */
    hsc_form_field_t token_name, token_scopes, token_expires, token_id;
    /* The account page's passkeys: one's id (base64url) and new name. */
    hsc_form_field_t passkey_id, passkey_name;
} hsc_login_form_t;

/**
 * Parse an application/x-www-form-urlencoded body of len bytes in place
 * (body is modified: values are percent- and '+'-decoded where they stand).
 * Unknown fields are ignored; a repeated known field, a bad percent escape,
 * or a decoded field over its limit (username 255, password 1024, return
 * 2048, code and link 64 bytes, new_password and new_password2 1024) is
 * HSC_EMALFORMED / HSC_ETOOLONG. *form is always assigned.
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

/**
 * The scheme an X-Forwarded-Proto header value names: "https" or "http"
 * (these static spellings) when the value is exactly one of them in any
 * case, else NULL (NULL, a list, spaces, anything else). The caller still
 * decides whether the header counts at all (only from a proxy that
 * mod_remoteip trusts) and falls back to its own scheme on NULL.
 *
 * One rule for the login's Origin check and the insecure-cookie warning.
 * It is the stricter of the two the glue had (the login's; the warning
 * took the first item of a list): a list means several proxies, and its
 * first item was written by the hop farthest away, possibly the client
 * itself, so no item of a list is trusted. Refusing fails closed: the
 * Origin check then compares with the server's own scheme (a refused
 * login, not an accepted cross-site one), and the warning is logged.
 */
const char *hsc_forwarded_proto(const char *xfp);

/**
 * The path of a Referer (ref) that names this host, for a "Cancel" link:
 * ref is "http://" or "https://" (any case), then exactly host (the Host
 * header, compared case-insensitively), then a path that
 * hsc_return_url_safe accepts and that does not start with self (the
 * page's own path, so Cancel never returns to itself). Returns a pointer
 * into ref, else NULL (also when an argument is NULL).
 */
const char *hsc_referer_path(const char *ref, const char *host,
                             const char *self);

/**
 * 1 when a request is a browser's navigation to a page, which a login
 * redirect suits; 0 for everything else (a script's fetch() or XHR, an
 * image, curl), which gets 401. get: the method is GET or HEAD. Fetch
 * metadata first, which every current browser sends and a page's script
 * cannot set: Sec-Fetch-Mode "navigate" with Sec-Fetch-Dest "document",
 * "iframe" or "frame" (or no Dest) is one, any other mode is not, whatever
 * its Accept says. Without Sec-Fetch-Mode (older browsers, tools): an
 * Accept that names text/html. Arguments may be NULL (header absent).
 */
int hsc_is_navigation(int get, const char *fetch_mode, const char *fetch_dest,
                      const char *accept);

/**
 * 1 when two header names are the same once lower-cased and with '_'
 * read as '-': the spelling every server and CGI gateway may fold
 * together ("X_Remote_User" reaches a CGI or a WSGI app as the
 * X-Remote-User it trusts). Identity headers are stripped, and trusted,
 * by this comparison only. NULL: 0.
 */
int hsc_header_name_same(const char *a, const char *b);

/**
 * The Cookie header without any cookie called name (exact, as
 * hsc_cookie_header_find matches it), into out (cap bytes, NUL-
 * terminated): the other pairs as they were, joined by "; ". Returns the
 * length, 0 when no other cookie is left (the header should go), or
 * (size_t)-1 when out is too small (never for cap > 2 x strlen(header):
 * a pair may gain a space after its ';').
 * *removed counts the pairs taken out.
 */
size_t hsc_cookie_header_without(const char *header, const char *name,
                                 char *out, size_t cap, int *removed);

#endif /* HSC_HTTP_H */
