/*
 * fuzz_audit.c: the audit log's escaping of hostile usernames
 * (hsc_audit.h). Whatever bytes a client types as its username, the line
 * must stay one JSON object on one line of well-formed UTF-8 without a
 * raw control byte, never longer than HSC_AUDIT_LINE_MAX; and when the
 * name (cut to HSC_AUDIT_FIELD_MAX bytes) is itself well-formed UTF-8, a
 * JSON reader written here must get exactly those bytes back.
 */
#include <string.h>

#include "hsc_fuzz.h"
#include "hsc_audit.h"

/* Reference (RFC 3629): length of a well-formed sequence at s, or 0. */
static size_t ref_utf8(const unsigned char *s, size_t len)
{
    unsigned char b = s[0], lo = 0x80, hi = 0xBF;
    size_t n, i;

    if (b < 0x80) {
        return 1;
    }
    if (b >= 0xC2 && b <= 0xDF) {
        n = 2;
    }
    else if (b >= 0xE0 && b <= 0xEF) {
        n = 3;
        if (b == 0xE0) {
            lo = 0xA0;
        }
        if (b == 0xED) {
            hi = 0x9F;
        }
    }
    else if (b >= 0xF0 && b <= 0xF4) {
        n = 4;
        if (b == 0xF0) {
            lo = 0x90;
        }
        if (b == 0xF4) {
            hi = 0x8F;
        }
    }
    else {
        return 0;
    }
    if (len < n || s[1] < lo || s[1] > hi) {
        return 0;
    }
    for (i = 2; i < n; ++i) {
        if (s[i] < 0x80 || s[i] > 0xBF) {
            return 0;
        }
    }
    return n;
}

static int all_utf8(const unsigned char *s, size_t len)
{
    size_t i = 0, n;

    while (i < len) {
        if ((n = ref_utf8(s + i, len - i)) == 0) {
            return 0;
        }
        i += n;
    }
    return 1;
}

static unsigned hexval(char h)
{
    if (h >= '0' && h <= '9') {
        return (unsigned)(h - '0');
    }
    if (h >= 'a' && h <= 'f') {
        return (unsigned)(h - 'a' + 10);
    }
    HSC_FUZZ_ASSERT(!"a \\u escape with a non-hex digit");
    return 0;
}

/* Decode the JSON string starting after its opening quote at p into out;
 * returns its length; *end is the closing quote. */
static size_t json_string(const char *p, char *out, const char **end)
{
    size_t o = 0;

    for (; *p != '"'; ++p) {
        unsigned v;
        HSC_FUZZ_ASSERT(*p != '\0' && (unsigned char)*p >= 0x20);
        if (*p != '\\') {
            out[o++] = *p;
            continue;
        }
        ++p;
        if (*p == '"' || *p == '\\') {
            out[o++] = *p;
            continue;
        }
        HSC_FUZZ_ASSERT(*p == 'u');
        v = (hexval(p[1]) << 12) | (hexval(p[2]) << 8) | (hexval(p[3]) << 4)
            | hexval(p[4]);
        p += 4;
        HSC_FUZZ_ASSERT(v < 0xD800 || v > 0xDFFF); /* no surrogate halves */
        if (v < 0x80) {
            out[o++] = (char)v;
        }
        else if (v < 0x800) {
            out[o++] = (char)(0xC0 | (v >> 6));
            out[o++] = (char)(0x80 | (v & 0x3F));
        }
        else {
            out[o++] = (char)(0xE0 | (v >> 12));
            out[o++] = (char)(0x80 | ((v >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (v & 0x3F));
        }
    }
    *end = p;
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char line[HSC_AUDIT_LINE_MAX], back[HSC_AUDIT_LINE_MAX];
    hsc_audit_event_t e;
    const char *p, *end;
    size_t n, i, got, kept;

    hsc_audit_event_init(&e);
    e.time_us = 1796373797123456;
    e.event = "login";
    e.outcome = "failure";
    e.reason = "bad_credentials";
    e.user = (const char *)data;
    e.user_len = size;
    e.client = "192.0.2.1";
    n = hsc_audit_format(&e, line, sizeof(line));

    HSC_FUZZ_ASSERT(n > 0 && n < HSC_AUDIT_LINE_MAX && n == strlen(line));
    HSC_FUZZ_ASSERT(line[0] == '{' && line[n - 2] == '}'
                    && line[n - 1] == '\n');
    for (i = 0; i + 1 < n; ++i) {
        HSC_FUZZ_ASSERT((unsigned char)line[i] >= 0x20
                        && (unsigned char)line[i] != 0x7F);
    }
    HSC_FUZZ_ASSERT(all_utf8((const unsigned char *)line, n));

    /* The user field, and the fields after it, read back. */
    p = strstr(line, ",\"user\":\"");
    HSC_FUZZ_ASSERT(p != NULL);
    got = json_string(p + 9, back, &end);
    HSC_FUZZ_ASSERT(strcmp(end, "\",\"client\":\"192.0.2.1\"}\n") == 0);
    kept = size < HSC_AUDIT_FIELD_MAX ? size : HSC_AUDIT_FIELD_MAX;
    if (all_utf8(data, kept)) {
        HSC_FUZZ_ASSERT(got == kept && memcmp(back, data, kept) == 0);
    }
    /* Nothing before the user field was disturbed. */
    HSC_FUZZ_ASSERT(strncmp(line,
                            "{\"time\":\"2026-12-04T08:43:17.123Z\","
                            "\"event\":\"login\",\"outcome\":\"failure\","
                            "\"reason\":\"bad_credentials\",",
                            (size_t)(p - line) + 1)
                    == 0);
    return 0;
}
