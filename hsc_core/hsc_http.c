/*
 * hsc_http.c: the untrusted HTTP inputs of the module (Cookie header, login
 * form, return URL), parsed without httpd so they can be unit-tested and
 * fuzzed. Nothing here allocates: all work is done in the caller's buffers.
 */
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "hsc_http.h"

/* Decoded limits of the form fields (hsc_http.h). */
#define HSC_FORM_USERNAME_MAX HSC_USER_MAX
#define HSC_FORM_PASSWORD_MAX HSC_PASSWORD_MAX
#define HSC_FORM_RETURN_MAX 2048
#define HSC_FORM_EVERYWHERE_MAX 16
/* A TOTP code or a recovery code, with room for spaces and dashes. */
#define HSC_FORM_CODE_MAX 64
/* An app password's name, scopes, expiry or id (hsc_token.h's bounds). */
#define HSC_FORM_TOKEN_MAX 255

/* RFC 6265 allows only SP and HTAB as optional white space. */
static int is_ows(char c)
{
    return c == ' ' || c == '\t';
}

/* 1 when s (a header value) is, ignoring case, exactly word. */
static int value_is(const char *s, const char *word)
{
    return s != NULL && strcasecmp(s, word) == 0;
}

int hsc_is_navigation(int get, const char *fetch_mode, const char *fetch_dest,
                      const char *accept)
{
    size_t i, n;

    if (!get) {
        return 0;
    }
    if (fetch_mode != NULL) {
        return value_is(fetch_mode, "navigate")
               && (fetch_dest == NULL || value_is(fetch_dest, "document")
                   || value_is(fetch_dest, "iframe")
                   || value_is(fetch_dest, "frame"));
    }
    if (accept == NULL) {
        return 0;
    }
    /* "text/html" anywhere in the list, any case. */
    n = strlen(accept);
    for (i = 0; i + 9 <= n; i++) {
        if (strncasecmp(accept + i, "text/html", 9) == 0) {
            return 1;
        }
    }
    return 0;
}

int hsc_header_name_same(const char *a, const char *b)
{
    if (a == NULL || b == NULL) {
        return 0;
    }
    for (; *a != '\0' && *b != '\0'; ++a, ++b) {
        unsigned char x = (unsigned char)*a, y = (unsigned char)*b;

        x = x == '_'                 ? '-'
            : (x >= 'A' && x <= 'Z') ? (unsigned char)(x + 32)
                                     : x;
        y = y == '_'                 ? '-'
            : (y >= 'A' && y <= 'Z') ? (unsigned char)(y + 32)
                                     : y;
        if (x != y) {
            return 0;
        }
    }
    return *a == *b;
}

size_t hsc_cookie_header_without(const char *header, const char *name,
                                 char *out, size_t cap, int *removed)
{
    size_t namelen = name != NULL ? strlen(name) : 0, o = 0;
    const char *p = header;

    *removed = 0;
    if (cap == 0) {
        return (size_t)-1;
    }
    out[0] = '\0';
    if (header == NULL) {
        return 0;
    }
    while (*p) {
        /* Pairs end at ';' or ',' as in hsc_cookie_header_find. */
        const char *end = p + strcspn(p, ";,"), *ns = p, *ne, *te = end;

        while (ns < end && is_ows(*ns)) {
            ++ns;
        }
        while (te > ns && is_ows(te[-1])) {
            --te;
        }
        ne = memchr(ns, '=', (size_t)(te - ns));
        if (ne != NULL) {
            while (ne > ns && is_ows(ne[-1])) {
                --ne;
            }
        }
        if (ne != NULL && namelen > 0 && (size_t)(ne - ns) == namelen
            && memcmp(ns, name, namelen) == 0) {
            ++*removed;
        }
        else if (te > ns) {
            size_t n = (size_t)(te - ns) + (o > 0 ? 2 : 0);

            if (o + n + 1 > cap) {
                return (size_t)-1;
            }
            if (o > 0) {
                memcpy(out + o, "; ", 2);
                o += 2;
            }
            memcpy(out + o, ns, (size_t)(te - ns));
            o += (size_t)(te - ns);
            out[o] = '\0';
        }
        p = *end ? end + 1 : end;
    }
    return o;
}

hsc_status_t hsc_cookie_header_find(const char *header, const char *name,
                                    const char **val, size_t *vallen,
                                    int *count)
{
    const char *p, *found = NULL;
    size_t namelen, foundlen = 0;
    int n = 0;

    *val = NULL;
    *vallen = 0;
    *count = 0;
    if (header == NULL || name == NULL || (namelen = strlen(name)) == 0) {
        return HSC_EINVAL;
    }

    p = header;
    while (*p) {
        const char *ns, *ne, *vs, *ve, *end;

        /* One "name=value" pair runs up to the next ';' or ',' or the end:
         * httpd joins two Cookie header lines with ", ", and a cookie
         * value has no ',' (RFC 6265 cookie-octet), so the session cookie
         * at the start of a second line is still found (and counted). */
        end = p + strcspn(p, ";,");
        ns = p;
        while (ns < end && is_ows(*ns)) {
            ++ns;
        }
        ne = memchr(ns, '=', (size_t)(end - ns));
        if (ne != NULL) {
            vs = ne + 1;
            while (ne > ns && is_ows(ne[-1])) {
                --ne;
            }
            /* Exact, case-sensitive name match: "xhsc" is not "hsc". */
            if ((size_t)(ne - ns) == namelen
                && memcmp(ns, name, namelen) == 0) {
                while (vs < end && is_ows(*vs)) {
                    ++vs;
                }
                ve = end;
                while (ve > vs && is_ows(ve[-1])) {
                    --ve;
                }
                /* RFC 6265: a value may be wrapped in one pair of DQUOTEs. */
                if (ve - vs >= 2 && vs[0] == '"' && ve[-1] == '"') {
                    ++vs;
                    --ve;
                }
                ++n;
                found = vs;
                foundlen = (size_t)(ve - vs);
            }
        }
        p = *end ? end + 1 : end;
    }

    *count = n;
    if (n == 1) {
        *val = found;
        *vallen = foundlen;
        return HSC_OK;
    }
    return n == 0 ? HSC_EINVAL : HSC_EMALFORMED;
}

/* Value of one hex digit, or -1. */
static int hexval(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/*
 * Decode len bytes of src (percent escapes and '+') into dst, which may be
 * src itself or lie before it: decoding never grows. Returns the decoded
 * length, or (size_t)-1 on a bad escape.
 */
static size_t form_decode(char *dst, const char *src, size_t len)
{
    size_t i, o = 0;

    for (i = 0; i < len; ++i) {
        char c = src[i];
        if (c == '+') {
            c = ' ';
        }
        else if (c == '%') {
            int hi, lo;
            if (len - i < 3) {
                return (size_t)-1;
            }
            hi = hexval(src[i + 1]);
            lo = hexval(src[i + 2]);
            if (hi < 0 || lo < 0) {
                return (size_t)-1;
            }
            c = (char)((hi << 4) | lo);
            i += 2;
        }
        dst[o++] = c;
    }
    return o;
}

/* The fields the handlers read, each with its limit on the decoded value. */
static const struct {
    const char *name;
    size_t offset;
    size_t limit;
} form_fields[] = {
    {"username", offsetof(hsc_login_form_t, username), HSC_FORM_USERNAME_MAX},
    {"password", offsetof(hsc_login_form_t, password), HSC_FORM_PASSWORD_MAX},
    {"return", offsetof(hsc_login_form_t, ret), HSC_FORM_RETURN_MAX},
    {"everywhere", offsetof(hsc_login_form_t, everywhere),
     HSC_FORM_EVERYWHERE_MAX},
    {"remember", offsetof(hsc_login_form_t, remember), HSC_FORM_EVERYWHERE_MAX},
    {"factor", offsetof(hsc_login_form_t, factor), HSC_FORM_EVERYWHERE_MAX},
    {"code", offsetof(hsc_login_form_t, code), HSC_FORM_CODE_MAX},
    {"action", offsetof(hsc_login_form_t, action), HSC_FORM_EVERYWHERE_MAX},
    {"new_password", offsetof(hsc_login_form_t, new_password),
     HSC_FORM_PASSWORD_MAX},
    {"new_password2", offsetof(hsc_login_form_t, new_password2),
     HSC_FORM_PASSWORD_MAX},
    {"link", offsetof(hsc_login_form_t, link), HSC_FORM_CODE_MAX},
    {"token_name", offsetof(hsc_login_form_t, token_name), HSC_FORM_TOKEN_MAX},
    {"token_scopes", offsetof(hsc_login_form_t, token_scopes),
     HSC_FORM_TOKEN_MAX},
    {"token_expires", offsetof(hsc_login_form_t, token_expires),
     HSC_FORM_EVERYWHERE_MAX},
    {"token_id", offsetof(hsc_login_form_t, token_id), HSC_FORM_CODE_MAX},
    /* A credential id of 1023 bytes is 1364 base64url characters. */
    {"passkey_id", offsetof(hsc_login_form_t, passkey_id), 1364},
    {"passkey_name", offsetof(hsc_login_form_t, passkey_name),
     HSC_FORM_TOKEN_MAX},
};

/* The field of form called name (nlen bytes) and its limit, or NULL. */
static hsc_form_field_t *form_field(hsc_login_form_t *form, const char *name,
                                    size_t nlen, size_t *limit)
{
    size_t i;

    for (i = 0; i < sizeof(form_fields) / sizeof(form_fields[0]); i++) {
        if (strlen(form_fields[i].name) == nlen
            && memcmp(form_fields[i].name, name, nlen) == 0) {
            *limit = form_fields[i].limit;
            return (hsc_form_field_t *)((char *)form + form_fields[i].offset);
        }
    }
    return NULL;
}

hsc_status_t hsc_form_parse(char *body, size_t len, hsc_login_form_t *form)
{
    size_t pos = 0;
    hsc_status_t st = HSC_OK;

    memset(form, 0, sizeof(*form));
    if (body == NULL) {
        return len == 0 ? HSC_OK : HSC_EINVAL;
    }

    while (pos < len) {
        char *pair = body + pos, *eq, *amp;
        size_t pairlen, nlen, rawnamelen, vlen;
        hsc_form_field_t *f = NULL;
        size_t limit = 0;

        amp = memchr(pair, '&', len - pos);
        pairlen = amp ? (size_t)(amp - pair) : len - pos;
        pos += pairlen + (amp ? 1 : 0);
        if (pairlen == 0) {
            continue;
        }
        eq = memchr(pair, '=', pairlen);
        rawnamelen = eq ? (size_t)(eq - pair) : pairlen;

        /* The name is decoded in place; it only shrinks. */
        nlen = form_decode(pair, pair, rawnamelen);
        if (nlen == (size_t)-1) {
            st = HSC_EMALFORMED;
            goto cleanup;
        }
        f = form_field(form, pair, nlen, &limit);

        if (eq == NULL) {
            /* "name" alone: an empty value, terminated where it stood. */
            vlen = 0;
            if (f != NULL) {
                if (f->present) {
                    st = HSC_EMALFORMED;
                    goto cleanup;
                }
                f->value = pair;
                pair[0] = '\0';
                f->len = 0;
                f->present = 1;
            }
            continue;
        }

        /*
         * The value is decoded to start at the '=' (one byte before it
         * stood), so its terminating NUL always lands inside the pair,
         * even for the last pair of a body that is not NUL-terminated.
         */
        vlen = form_decode(eq, eq + 1, pairlen - rawnamelen - 1);
        if (vlen == (size_t)-1) {
            st = HSC_EMALFORMED;
            goto cleanup;
        }
        eq[vlen] = '\0';
        if (f == NULL) {
            continue;
        }
        if (f->present) {
            st = HSC_EMALFORMED;
            goto cleanup;
        }
        if (vlen > limit) {
            st = HSC_ETOOLONG;
            goto cleanup;
        }
        f->value = eq;
        f->len = vlen;
        f->present = 1;
    }

cleanup:
    if (st != HSC_OK) {
        memset(form, 0, sizeof(*form));
    }
    return st;
}

/*
 * 1 when the escape "%XY" at s (3 bytes, already checked to be hex) stands
 * for '/', '\\', '.', '%', '?' or '#'. Decoded once (by a proxy, a
 * framework, an application that redirects again), "/%2e%2e%2f%2fevil.com"
 * is "/..//evil.com", whose dot segment a browser removes to leave
 * "//evil.com"; "%25" opens another layer of the same; "/a/..%3F" ends its
 * path at a new dot segment. No path needs them encoded, so the path part
 * of a target may hold none.
 */
static int escape_is_separator(const char *s)
{
    int c = (hexval(s[1]) << 4) | hexval(s[2]);

    return c == '/' || c == '\\' || c == '.' || c == '%' || c == '?'
           || c == '#';
}

/*
 * 1 when the path part of url (up to '?' or '#') has a "." or ".." segment,
 * raw or as %2E: browsers remove them, so "/..//host" or "/.//host" would
 * become "//host" in the path, one careless redirect away from leaving.
 */
static int has_dot_segment(const char *url, size_t len)
{
    size_t i = 0;

    while (i < len && url[i] != '?' && url[i] != '#') {
        size_t dots = 0, other = 0;
        ++i; /* past the '/' that starts the segment */
        while (i < len && url[i] != '/' && url[i] != '?' && url[i] != '#') {
            if (url[i] == '.') {
                ++dots;
                ++i;
            }
            else if (url[i] == '%' && len - i >= 3 && url[i + 1] == '2'
                     && (url[i + 2] == 'e' || url[i + 2] == 'E')) {
                ++dots;
                i += 3;
            }
            else {
                ++other;
                ++i;
            }
        }
        if (other == 0 && (dots == 1 || dots == 2)) {
            return 1;
        }
    }
    return 0;
}

int hsc_return_url_safe(const char *url, size_t len)
{
    size_t i;
    int in_path = 1;

    if (url == NULL || len == 0 || url[0] != '/') {
        return 0;
    }
    /* Printable ASCII only: no controls (CR, LF, tab), space, DEL, 8-bit. */
    for (i = 0; i < len; ++i) {
        unsigned char c = (unsigned char)url[i];
        if (c <= 0x20 || c >= 0x7f || c == '\\') {
            return 0;
        }
        /* An encoded control character has no business in a target. */
        if (c == '%') {
            int hi, lo;
            if (i + 2 >= len) {
                return 0;
            }
            hi = hexval(url[i + 1]);
            lo = hexval(url[i + 2]);
            if (hi < 0 || lo < 0) {
                return 0;
            }
            if (hi < 2 || (hi == 7 && lo == 15)) {
                return 0;
            }
            /* An encoded '/', '\\', '.', '%', '?' or '#' in the path. */
            if (in_path && escape_is_separator(url + i)) {
                return 0;
            }
        }
        if (c == '?' || c == '#') {
            in_path = 0;
        }
    }
    if (len == 1) {
        return 1;
    }
    /* "//host" and "/\host" are scheme-relative in browsers. */
    if (url[1] == '/') {
        return 0;
    }
    if (url[1] == '%' && escape_is_separator(url + 1)) {
        return 0;
    }
    return !has_dot_segment(url, len);
}

/* --- Origin, Content-Type, query escaping --------------------------------- */

/* A byte of a host name or an IPv6 literal as the two headers carry it. */
static int host_char(unsigned char c, int bracketed)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_'
        || c == '~') {
        return 1;
    }
    return bracketed && c == ':';
}

/*
 * Split "host[:port]" (len bytes) into the host and its port, the scheme's
 * default when none is given. 1 when well formed, else 0.
 */
static int split_authority(const char *a, size_t len, unsigned int dflt,
                           const char **host, size_t *hlen, unsigned int *port)
{
    size_t i = 0, end;
    unsigned long p = 0;

    if (len > 0 && a[0] == '[') {
        for (i = 1; i < len && a[i] != ']'; ++i) {
            if (!host_char((unsigned char)a[i], 1)) {
                return 0;
            }
        }
        if (i >= len || i == 1) {
            return 0;
        }
        end = ++i; /* past ']' */
    }
    else {
        for (; i < len && a[i] != ':'; ++i) {
            if (!host_char((unsigned char)a[i], 0)) {
                return 0;
            }
        }
        end = i;
    }
    if (end == 0) {
        return 0;
    }
    *host = a;
    *hlen = end;
    if (i == len) {
        *port = dflt;
        return 1;
    }
    if (a[i] != ':' || i + 1 == len || len - (i + 1) > 5) {
        return 0; /* "host:" and "host:123456" are not ports we accept */
    }
    for (++i; i < len; ++i) {
        if (a[i] < '0' || a[i] > '9') {
            return 0;
        }
        p = p * 10 + (unsigned long)(a[i] - '0');
    }
    if (p == 0 || p > 65535) {
        return 0;
    }
    *port = (unsigned int)p;
    return 1;
}

int hsc_same_origin(const char *origin, const char *scheme, const char *host)
{
    const char *oh, *hh, *auth;
    size_t ohlen, hhlen, slen;
    unsigned int oport, hport, dflt;

    if (origin == NULL || scheme == NULL || host == NULL) {
        return 0;
    }
    if (!strcasecmp(scheme, "https")) {
        dflt = 443;
    }
    else if (!strcasecmp(scheme, "http")) {
        dflt = 80;
    }
    else {
        return 0;
    }
    slen = strlen(scheme);
    if (strncasecmp(origin, scheme, slen) != 0
        || strncmp(origin + slen, "://", 3) != 0) {
        return 0; /* another scheme, or "null" */
    }
    auth = origin + slen + 3;
    if (!split_authority(auth, strlen(auth), dflt, &oh, &ohlen, &oport)
        || !split_authority(host, strlen(host), dflt, &hh, &hhlen, &hport)) {
        return 0;
    }
    return ohlen == hhlen && strncasecmp(oh, hh, ohlen) == 0 && oport == hport;
}

int hsc_content_type_is_form(const char *ct)
{
    static const char form[] = "application/x-www-form-urlencoded";
    const size_t n = sizeof(form) - 1;

    return ct != NULL && strncasecmp(ct, form, n) == 0
           && (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

size_t hsc_query_escape(const char *s, char *out)
{
    static const char hex[] = "0123456789ABCDEF";
    char *o = out;

    for (; *s; ++s) {
        unsigned char ch = (unsigned char)*s;
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')
            || (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' || ch == '_'
            || ch == '~' || ch == '/') {
            *o++ = (char)ch;
        }
        else {
            *o++ = '%';
            *o++ = hex[ch >> 4];
            *o++ = hex[ch & 15];
        }
    }
    *o = '\0';
    return (size_t)(o - out);
}

/* --- X-Forwarded-Proto, Referer ------------------------------------------ */

const char *hsc_forwarded_proto(const char *xfp)
{
    if (xfp != NULL && strcasecmp(xfp, "https") == 0) {
        return "https";
    }
    if (xfp != NULL && strcasecmp(xfp, "http") == 0) {
        return "http";
    }
    return NULL;
}

const char *hsc_referer_path(const char *ref, const char *host,
                             const char *self)
{
    const char *auth, *path;
    size_t hl;

    if (ref == NULL || host == NULL || self == NULL) {
        return NULL;
    }
    if (!strncasecmp(ref, "https://", 8)) {
        auth = ref + 8;
    }
    else if (!strncasecmp(ref, "http://", 7)) {
        auth = ref + 7;
    }
    else {
        return NULL;
    }
    hl = strlen(host);
    path = strchr(auth, '/');
    if (path == NULL || (size_t)(path - auth) != hl
        || strncasecmp(auth, host, hl) != 0
        || !hsc_return_url_safe(path, strlen(path))
        || !strncmp(path, self, strlen(self))) {
        return NULL;
    }
    return path;
}
