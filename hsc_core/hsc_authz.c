/*
 * hsc_authz.c: the URL a proxy asks about, and the return URLs a login
 * may go back to (hsc_authz.h). One parser for both: what the endpoint
 * puts in return= is exactly what the login page accepts.
 */
#include <string.h>
#include <strings.h>

#include "hsc_authz.h"
#include "hsc_http.h"

/* The host part: its length when host[0..len) is a DNS name or an IPv6
 * literal, with an optional port; 0 otherwise. *port_at: where ':port'
 * starts (len when none). */
static size_t host_ok(const char *h, size_t len, size_t *port_at)
{
    size_t i = 0, p;
    unsigned long port = 0;

    *port_at = len;
    if (len == 0) {
        return 0;
    }
    if (h[0] == '[') {
        for (i = 1; i < len && h[i] != ']'; i++) {
            if (!strchr("0123456789abcdefABCDEF:.", h[i])) {
                return 0;
            }
        }
        if (i >= len || i < 3) {
            return 0;
        }
        i++;
    }
    else {
        for (; i < len && h[i] != ':'; i++) {
            char c = h[i];
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                  || (c >= '0' && c <= '9') || c == '-' || c == '.')) {
                return 0;
            }
        }
        if (i == 0 || h[0] == '.' || h[0] == '-') {
            return 0;
        }
    }
    if (i == len) {
        return len;
    }
    if (h[i] != ':' || i + 1 == len || len - i - 1 > 5) {
        return 0;
    }
    *port_at = i;
    for (p = i + 1; p < len; p++) {
        if (h[p] < '0' || h[p] > '9') {
            return 0;
        }
        port = port * 10 + (unsigned long)(h[p] - '0');
    }
    return port >= 1 && port <= 65535 && h[i + 1] != '0' ? len : 0;
}

/* 1 when path is '/' then printable ASCII without space or '#'. */
static int path_ok(const char *p, size_t len)
{
    size_t i;

    if (len == 0 || p[0] != '/') {
        return 0;
    }
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c <= 0x20 || c >= 0x7f || c == '#') {
            return 0;
        }
    }
    return 1;
}

/* Lower-case copy of n bytes. */
static void lower_copy(char *to, const char *from, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        char c = from[i];
        to[i] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
    }
}

static hsc_status_t build(const char *scheme, size_t slen, const char *host,
                          size_t hlen, const char *path, size_t plen, char *out,
                          size_t cap)
{
    size_t port_at, n;

    if (!((slen == 4 && !strncasecmp(scheme, "http", 4))
          || (slen == 5 && !strncasecmp(scheme, "https", 5)))
        || host_ok(host, hlen, &port_at) == 0 || !path_ok(path, plen)) {
        return HSC_EMALFORMED;
    }
    n = slen + 3 + hlen + plen;
    if (n > HSC_AUTHZ_URL_MAX || n + 1 > cap) {
        return HSC_ETOOLONG;
    }
    lower_copy(out, scheme, slen);
    memcpy(out + slen, "://", 3);
    lower_copy(out + slen + 3, host, hlen);
    memcpy(out + slen + 3 + hlen, path, plen);
    out[n] = '\0';
    return HSC_OK;
}

hsc_status_t hsc_authz_url(const char *scheme, const char *host,
                           const char *path, char *out, size_t cap)
{
    if (cap > 0) {
        out[0] = '\0';
    }
    if (scheme == NULL || host == NULL || path == NULL || cap == 0) {
        return HSC_EMALFORMED;
    }
    return build(scheme, strlen(scheme), host, strlen(host), path, strlen(path),
                 out, cap);
}

/* Split "scheme://host/path": HSC_OK with the three parts' bounds. */
static hsc_status_t split(const char *url, size_t len, size_t *slen,
                          const char **host, size_t *hlen, const char **path)
{
    const char *sep = len >= 3 ? strstr(url, "://") : NULL, *slash;

    if (sep == NULL || (size_t)(sep - url) > 5 || sep + 3 > url + len) {
        return HSC_EMALFORMED;
    }
    *slen = (size_t)(sep - url);
    *host = sep + 3;
    slash = memchr(*host, '/', (size_t)(url + len - *host));
    if (slash == NULL) {
        return HSC_EMALFORMED;
    }
    *hlen = (size_t)(slash - *host);
    *path = slash;
    return HSC_OK;
}

hsc_status_t hsc_authz_url_parse(const char *url, char *out, size_t cap)
{
    const char *host, *path;
    size_t len, slen, hlen;

    if (cap > 0) {
        out[0] = '\0';
    }
    if (url == NULL || cap == 0) {
        return HSC_EMALFORMED;
    }
    len = strlen(url);
    if (len > HSC_AUTHZ_URL_MAX) {
        return HSC_ETOOLONG;
    }
    if (split(url, len, &slen, &host, &hlen, &path) != HSC_OK) {
        return HSC_EMALFORMED;
    }
    return build(url, slen, host, hlen, path, (size_t)(url + len - path), out,
                 cap);
}

int hsc_return_url_allowed(const char *url, size_t len,
                           const char *const *hosts, size_t n)
{
    char canon[HSC_AUTHZ_URL_MAX + 1];
    const char *host, *path;
    size_t slen, hlen, port_at, i;

    if (url == NULL || len == 0 || memchr(url, '\0', len) != NULL) {
        return 0;
    }
    if (url[0] == '/') {
        return hsc_return_url_safe(url, len);
    }
    if (len > HSC_AUTHZ_URL_MAX
        || split(url, len, &slen, &host, &hlen, &path) != HSC_OK
        || build(url, slen, host, hlen, path, (size_t)(url + len - path), canon,
                 sizeof(canon))
               != HSC_OK
        || memcmp(canon, url, len) != 0 /* only the canonical spelling */
        || !hsc_return_url_safe(path, (size_t)(url + len - path))) {
        return 0;
    }
    host_ok(host, hlen, &port_at);
    for (i = 0; i < n; i++) {
        size_t el = hosts[i] != NULL ? strlen(hosts[i]) : 0;

        if (el == 0) {
            continue;
        }
        if ((el == hlen && !strncasecmp(hosts[i], host, hlen))
            || (el == port_at && !strncasecmp(hosts[i], host, port_at))) {
            return 1;
        }
    }
    return 0;
}
