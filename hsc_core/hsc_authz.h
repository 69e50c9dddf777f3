/*
 * hsc_authz.h: what a reverse proxy asks the authorization endpoint
 * (SetHandler hsc-authz; docs/authz-endpoint.md), parsed without httpd so
 * that it can be unit-tested and fuzzed: the URL the client asked the
 * proxy for, from the headers a trusted proxy sends, and which absolute
 * return URLs a login may go back to.
 */
#ifndef HSC_AUTHZ_H
#define HSC_AUTHZ_H

#include <stddef.h>

#include "hsc_util.h"

/* The longest URL handled (longer: refused, 400). */
#define HSC_AUTHZ_URL_MAX 2048

/**
 * The URL "scheme://host[:port]/path?query" from its parts (a forward-auth
 * proxy's X-Forwarded-Proto, -Host and -Uri), canonical: scheme "http" or
 * "https" in lower case, host a DNS name (letters, digits, '-', '.') or an
 * IPv6 literal in brackets, lower-cased, with an optional port of 1 to
 * 65535; path starting with '/', printable ASCII without space or '#'.
 * Into out (cap bytes, NUL-terminated). HSC_OK, or HSC_EMALFORMED for
 * anything else (NULL parts included), HSC_ETOOLONG past
 * HSC_AUTHZ_URL_MAX or cap.
 */
hsc_status_t hsc_authz_url(const char *scheme, const char *host,
                           const char *path, char *out,
                           size_t cap) HSC_MUST_CHECK;

/**
 * The same from one absolute URL (nginx's X-Original-URL, built by the
 * admin's proxy_set_header as $scheme://$host$request_uri). Statuses as
 * hsc_authz_url.
 */
hsc_status_t hsc_authz_url_parse(const char *url, char *out,
                                 size_t cap) HSC_MUST_CHECK;

/**
 * 1 when url (len bytes) may be where a login goes back to: a local path
 * that hsc_return_url_safe accepts, or an absolute http(s) URL in
 * hsc_authz_url's canonical form whose host is one of hosts (n names,
 * compared without case; a name with ":port" matches that port only, one
 * without matches any port) and whose path hsc_return_url_safe accepts.
 * Else 0.
 */
int hsc_return_url_allowed(const char *url, size_t len,
                           const char *const *hosts, size_t n);

#endif /* HSC_AUTHZ_H */
