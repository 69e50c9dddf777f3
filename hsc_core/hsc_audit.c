/*
 * hsc_audit.c: the audit log's JSON lines (hsc_audit.h).
 */
#include <string.h>
#include <time.h>
#include <stdio.h>

#include "hsc_audit.h"

void hsc_audit_event_init(hsc_audit_event_t *e)
{
    memset(e, 0, sizeof(*e));
    e->everywhere = -1;
}

/* Length of the well-formed UTF-8 sequence at s (RFC 3629), or 0; *cp
 * receives its code point. */
static size_t utf8_seq(const unsigned char *s, size_t len, unsigned long *cp)
{
    unsigned char b = s[0], lo = 0x80, hi = 0xBF;
    size_t n, i;
    unsigned long c;

    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    if (b >= 0xC2 && b <= 0xDF) {
        n = 2;
        c = b & 0x1F;
    }
    else if (b >= 0xE0 && b <= 0xEF) {
        n = 3;
        c = b & 0x0F;
        lo = b == 0xE0 ? 0xA0 : 0x80; /* no overlong form */
        hi = b == 0xED ? 0x9F : 0xBF; /* no surrogate */
    }
    else if (b >= 0xF0 && b <= 0xF4) {
        n = 4;
        c = b & 0x07;
        lo = b == 0xF0 ? 0x90 : 0x80; /* no overlong form */
        hi = b == 0xF4 ? 0x8F : 0xBF; /* nothing over U+10FFFF */
    }
    else {
        return 0;
    }
    if (len < n) {
        return 0;
    }
    for (i = 1; i < n; ++i) {
        if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xBF)) {
            return 0;
        }
        c = (c << 6) | (s[i] & 0x3F);
    }
    *cp = c;
    return n;
}

size_t hsc_json_escape(const char *s, size_t len, char *out, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, o = 0;

    if (cap == 0) {
        return 0;
    }
    while (i < len) {
        char tmp[8];
        size_t tn, n;
        unsigned long cp = 0;

        n = utf8_seq(p + i, len - i, &cp);
        if (n == 0) {
            memcpy(tmp, "\\ufffd", 6); /* not UTF-8: replaced, never raw */
            tn = 6;
            n = 1;
        }
        else if (cp == '"' || cp == '\\') {
            tmp[0] = '\\';
            tmp[1] = (char)cp;
            tn = 2;
        }
        else if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028
                 || cp == 0x2029) {
            /* Controls, DEL, C1 and the JavaScript line separators. */
            tmp[0] = '\\';
            tmp[1] = 'u';
            tmp[2] = hex[(cp >> 12) & 15];
            tmp[3] = hex[(cp >> 8) & 15];
            tmp[4] = hex[(cp >> 4) & 15];
            tmp[5] = hex[cp & 15];
            tn = 6;
        }
        else {
            memcpy(tmp, p + i, n);
            tn = n;
        }
        if (o + tn + 1 > cap) {
            break; /* cut before a character that does not fit */
        }
        memcpy(out + o, tmp, tn);
        o += tn;
        i += n;
    }
    out[o] = '\0';
    return o;
}

size_t hsc_rfc3339_ms(int64_t time_us, char *out)
{
    time_t secs;
    struct tm tm;
    int ms;

    if (time_us < 0) {
        time_us = 0;
    }
    secs = (time_t)(time_us / 1000000);
    ms = (int)((time_us / 1000) % 1000);
    if (gmtime_r(&secs, &tm) == NULL) {
        memset(&tm, 0, sizeof(tm));
        tm.tm_year = 70;
        tm.tm_mday = 1;
    }
    /* Years past 9999 are not RFC 3339: the clock is wrong, say 9999. */
    if (tm.tm_year > 9999 - 1900) {
        tm.tm_year = 9999 - 1900;
    }
    snprintf(out, 32, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
             (tm.tm_year + 1900) % 10000, (tm.tm_mon + 1) % 100,
             tm.tm_mday % 100, tm.tm_hour % 100, tm.tm_min % 100,
             tm.tm_sec % 100, ms % 1000);
    return strlen(out);
}

/* The line being written: never past cap - 3 ("}\n" and the NUL). */
typedef struct {
    char *buf;
    size_t len, cap;
} line_t;

static void put_raw(line_t *l, const char *s)
{
    size_t n = strlen(s);

    if (l->len + n + 3 <= l->cap) {
        memcpy(l->buf + l->len, s, n);
        l->len += n;
    }
}

/* ,"name":"value" with value escaped and cut to HSC_AUDIT_FIELD_MAX. */
static void put_str(line_t *l, const char *name, const char *v, size_t vlen)
{
    size_t room;

    if (v == NULL) {
        return;
    }
    if (vlen > HSC_AUDIT_FIELD_MAX) {
        vlen = HSC_AUDIT_FIELD_MAX;
    }
    /* The key, the quotes, and at least the closing quote must fit. */
    if (l->len + strlen(name) + 6 + 3 > l->cap) {
        return;
    }
    put_raw(l, l->len > 1 ? ",\"" : "\"");
    put_raw(l, name);
    put_raw(l, "\":\"");
    room = l->cap - 3 - 1 - l->len; /* leave the closing quote */
    l->len += hsc_json_escape(v, vlen, l->buf + l->len, room + 1);
    put_raw(l, "\"");
}

static void put_cstr(line_t *l, const char *name, const char *v)
{
    put_str(l, name, v, v ? strlen(v) : 0);
}

size_t hsc_audit_format(const hsc_audit_event_t *e, char *buf, size_t cap)
{
    line_t l;
    char tmp[32];

    if (cap < HSC_AUDIT_LINE_MAX || e->event == NULL || e->outcome == NULL) {
        if (cap > 0) {
            buf[0] = '\0';
        }
        return 0;
    }
    l.buf = buf;
    l.len = 0;
    l.cap = cap < HSC_AUDIT_LINE_MAX ? cap : HSC_AUDIT_LINE_MAX;
    put_raw(&l, "{");
    hsc_rfc3339_ms(e->time_us, tmp);
    put_cstr(&l, "time", tmp);
    put_cstr(&l, "event", e->event);
    put_cstr(&l, "outcome", e->outcome);
    put_cstr(&l, "reason", e->reason);
    put_str(&l, "user", e->user, e->user ? e->user_len : 0);
    put_cstr(&l, "client", e->client);
    put_cstr(&l, "vhost", e->vhost);
    put_cstr(&l, "request_id", e->request_id);
    put_cstr(&l, "kid", e->kid);
    put_cstr(&l, "login_id", e->login_id);
    put_cstr(&l, "method", e->method);
    put_cstr(&l, "counter", e->counter);
    if (e->until > 0 && e->until < (int64_t)253402300800) { /* < 10000 */
        hsc_rfc3339_ms(e->until * 1000000, tmp);
        put_cstr(&l, "until", tmp);
    }
    if (e->everywhere >= 0) {
        put_raw(&l, e->everywhere ? ",\"everywhere\":true"
                                  : ",\"everywhere\":false");
    }
    put_cstr(&l, "action", e->action);
    put_cstr(&l, "actor", e->actor);
    memcpy(buf + l.len, "}\n", 3);
    return l.len + 2;
}
