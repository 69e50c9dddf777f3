/*
 * hsc_response.c: response headers (Cache-Control, Set-Cookie) composed in
 * the caller's buffer; nothing here allocates.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "hsc_response.h"

/* --- Cache-Control ------------------------------------------------------- */

/* 1 when the directive d (n bytes) is name, or name=..., case-insensitive. */
static int directive_is(const char *d, size_t n, const char *name)
{
    size_t k = strlen(name);

    return n >= k && strncasecmp(d, name, k) == 0
           && (n == k || d[k] == '=' || d[k] == ' ' || d[k] == '\t');
}

size_t hsc_cc_private(const char *cc, int cookie_set, char *out, size_t outcap)
{
    const char *p = cc ? cc : "";
    size_t o = 0;
    int no_store = 0, private_ = 0;

    if (outcap == 0) {
        return 0;
    }
    out[0] = '\0';
    while (*p) {
        const char *start, *end;
        int quoted = 0;

        while (*p == ',' || *p == ' ' || *p == '\t') {
            ++p;
        }
        start = p;
        /* A directive runs to the next ',' outside a quoted string. */
        while (*p && (quoted || *p != ',')) {
            if (*p == '"') {
                quoted = !quoted;
            }
            else if (*p == '\\' && quoted && p[1] != '\0') {
                ++p;
            }
            ++p;
        }
        end = p;
        while (end > start && (end[-1] == ' ' || end[-1] == '\t')) {
            --end;
        }
        if (end == start || directive_is(start, (size_t)(end - start), "public")
            || directive_is(start, (size_t)(end - start), "s-maxage")) {
            continue;
        }
        no_store |= directive_is(start, (size_t)(end - start), "no-store");
        private_ |= directive_is(start, (size_t)(end - start), "private");
        if (o + (size_t)(end - start) + 2 >= outcap) {
            out[0] = '\0';
            return 0;
        }
        if (o > 0) {
            out[o++] = ',';
            out[o++] = ' ';
        }
        memcpy(out + o, start, (size_t)(end - start));
        o += (size_t)(end - start);
    }
    if (!private_ && !no_store) {
        if (o + 9 >= outcap) {
            out[0] = '\0';
            return 0;
        }
        memcpy(out + o, o ? ", private" : "private", o ? 9 : 7);
        o += o ? 9 : 7;
    }
    if (cookie_set && !no_store) {
        if (o + 10 >= outcap) {
            out[0] = '\0';
            return 0;
        }
        memcpy(out + o, o ? ", no-store" : "no-store", o ? 10 : 8);
        o += o ? 10 : 8;
    }
    out[o] = '\0';
    return o;
}

/* --- the cookie ---------------------------------------------------------- */

const char *hsc_cookie_attrs_conflict(const hsc_cookie_attrs_t *a)
{
    if (!strncmp(a->name, "__Host-", 7)
        && (!a->secure || strcmp(a->path, "/") != 0 || a->domain != NULL)) {
        return "a __Host- cookie needs HSCCookieSecure On, HSCCookiePath / and "
               "no HSCCookieDomain";
    }
    if (!strncmp(a->name, "__Secure-", 9) && !a->secure) {
        return "a __Secure- cookie needs HSCCookieSecure On";
    }
    if (a->samesite == HSC_SITE_NONE && !a->secure) {
        return "HSCCookieSameSite None needs HSCCookieSecure On";
    }
    return NULL;
}

/* 1 when every byte of s is an RFC 6265 cookie-octet. */
static int cookie_value_valid(const char *s)
{
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;

        if (c < 0x21 || c > 0x7e || c == '"' || c == ',' || c == ';'
            || c == '\\') {
            return 0;
        }
    }
    return 1;
}

/* The date as apr_rfc822_date writes it, locale-free; 1 when written. */
static int http_date(int64_t t, char *out)
{
    static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed",
                                    "Thu", "Fri", "Sat"};
    static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr",
                                       "May", "Jun", "Jul", "Aug",
                                       "Sep", "Oct", "Nov", "Dec"};
    time_t tt = (time_t)t;
    struct tm tm;

    if ((int64_t)tt != t || gmtime_r(&tt, &tm) == NULL || tm.tm_year < -1900
        || tm.tm_year > 9999 - 1900) {
        return 0;
    }
    snprintf(out, HSC_SET_COOKIE_DATE_LEN,
             "%s, %02d %s %04d %02d:%02d:%02d GMT", days[tm.tm_wday],
             tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour,
             tm.tm_min, tm.tm_sec);
    return 1;
}

size_t hsc_set_cookie_line(const hsc_cookie_attrs_t *a, const char *value,
                           int64_t max_age, int64_t expires, char *out,
                           size_t outcap)
{
    char date[HSC_SET_COOKIE_DATE_LEN];
    int n;

    if (outcap > 0) {
        out[0] = '\0';
    }
    if (a == NULL || value == NULL || !hsc_cookie_name_valid(a->name)
        || !hsc_cookie_path_valid(a->path)
        || (a->domain != NULL && !hsc_cookie_domain_valid(a->domain))
        || !cookie_value_valid(value) || !http_date(expires, date)) {
        return 0;
    }
    n = snprintf(out, outcap,
                 "%s=%s; Path=%s%s%s; Max-Age=%lld; Expires=%s; HttpOnly%s; "
                 "SameSite=%s",
                 a->name, value, a->path, a->domain ? "; Domain=" : "",
                 a->domain ? a->domain : "",
                 (long long)(max_age < 0 ? 0 : max_age), date,
                 a->secure ? "; Secure" : "", hsc_samesite_name(a->samesite));
    if (n < 0 || (size_t)n >= outcap) {
        if (outcap > 0) {
            out[0] = '\0';
        }
        return 0;
    }
    return (size_t)n;
}
