/*
 * test_audit.c: the audit log's JSON lines (hsc_audit.h): every field,
 * the escaping of hostile usernames, the bounds. Each line is also checked
 * by a small JSON string reader written here from RFC 8259, so that what
 * is asserted is "a JSON parser reads back the bytes", not our own text.
 */
#include <stdio.h>
#include <string.h>

#include "hsc_test.h"
#include "hsc_audit.h"

#define T0 ((int64_t)1796373797123456) /* 2026-12-04T08:43:17.123456Z */

static size_t fmt(const hsc_audit_event_t *e, char *buf)
{
    return hsc_audit_format(e, buf, HSC_AUDIT_LINE_MAX);
}

static void time_is_rfc3339_utc_with_milliseconds(void)
{
    char t[32];

    CHECK_EQ(hsc_rfc3339_ms(T0, t), 24, "24 characters");
    CHECK_STR(t, "2026-12-04T08:43:17.123Z", "date T time . ms Z");
    hsc_rfc3339_ms(0, t);
    CHECK_STR(t, "1970-01-01T00:00:00.000Z", "the epoch");
    hsc_rfc3339_ms(-5, t);
    CHECK_STR(t, "1970-01-01T00:00:00.000Z", "before the epoch: the epoch");
    hsc_rfc3339_ms((int64_t)951782400999999, t);
    CHECK_STR(t, "2000-02-29T00:00:00.999Z", "a leap day; ms truncated");
}

static void login_failure_line_has_every_field_in_order(void)
{
    hsc_audit_event_t e;
    char buf[HSC_AUDIT_LINE_MAX];

    hsc_audit_event_init(&e);
    e.time_us = T0;
    e.event = "login";
    e.outcome = "failure";
    e.reason = "throttled";
    e.user = "alice";
    e.user_len = 5;
    e.client = "192.0.2.7";
    e.vhost = "www.example.org";
    e.request_id = "Z2d3ZXJ0eXVpb3Bhc2RmZ2g";
    e.counter = "address";
    e.until = 1796374097;
    CHECK_EQ(fmt(&e, buf), strlen(buf), "returns the length");
    CHECK_STR(buf,
              "{\"time\":\"2026-12-04T08:43:17.123Z\",\"event\":\"login\","
              "\"outcome\":\"failure\",\"reason\":\"throttled\","
              "\"user\":\"alice\",\"client\":\"192.0.2.7\","
              "\"vhost\":\"www.example.org\","
              "\"request_id\":\"Z2d3ZXJ0eXVpb3Bhc2RmZ2g\","
              "\"counter\":\"address\","
              "\"until\":\"2026-12-04T08:48:17.000Z\"}\n",
              "one object, one line");
}

static void unset_fields_are_left_out(void)
{
    hsc_audit_event_t e;
    char buf[HSC_AUDIT_LINE_MAX];

    hsc_audit_event_init(&e);
    e.time_us = T0;
    e.event = "logout";
    e.outcome = "success";
    e.everywhere = 1;
    e.kid = "k1";
    fmt(&e, buf);
    CHECK_STR(buf,
              "{\"time\":\"2026-12-04T08:43:17.123Z\",\"event\":\"logout\","
              "\"outcome\":\"success\",\"kid\":\"k1\",\"everywhere\":true}\n",
              "no user, client, reason; everywhere a JSON boolean");
    e.everywhere = 0;
    e.kid = NULL;
    e.action = "revoke";
    e.actor = "root";
    e.event = "admin";
    fmt(&e, buf);
    CHECK(strstr(buf, "\"everywhere\":false,\"action\":\"revoke\","
                      "\"actor\":\"root\"}\n")
              != NULL,
          "false, then action and actor");
}

static void event_and_outcome_are_required(void)
{
    hsc_audit_event_t e;
    char buf[HSC_AUDIT_LINE_MAX];

    hsc_audit_event_init(&e);
    e.outcome = "success";
    CHECK_EQ(fmt(&e, buf), 0, "no event: nothing");
    CHECK_STR(buf, "", "and an empty buffer");
    e.event = "login";
    e.outcome = NULL;
    CHECK_EQ(fmt(&e, buf), 0, "no outcome: nothing");
    e.outcome = "success";
    CHECK_EQ(hsc_audit_format(&e, buf, HSC_AUDIT_LINE_MAX - 1), 0,
             "a buffer under HSC_AUDIT_LINE_MAX: refused");
}

/* (input bytes, length, expected escape) */
static const struct {
    const char *in;
    size_t len;
    const char *out;
} esc_cases[] = {
    {"plain", 5, "plain"},
    {"a\"b\\c", 5, "a\\\"b\\\\c"},                  /* quote, backslash */
    {"a\nb\rc\td", 7, "a\\u000ab\\u000dc\\u0009d"}, /* no raw line break */
    {"\x00x", 2, "\\u0000x"},                       /* NUL kept, escaped */
    {"\x1b[31mred", 8, "\\u001b[31mred"},           /* terminal escape */
    {"del\x7f", 4, "del\\u007f"},                   /* DEL */
    {"\xc2\x85", 2, "\\u0085"},                     /* C1 NEL */
    {"\xe2\x80\xa8", 3, "\\u2028"},                 /* line separator */
    {"J\xc3\xbcrgen", 7, "J\xc3\xbcrgen"},          /* UTF-8 kept */
    {"\xf0\x9f\x94\x91", 4, "\xf0\x9f\x94\x91"},    /* 4-byte kept */
    {"\xff", 1, "\\ufffd"},                         /* not UTF-8 */
    {"\xc0\xaf", 2, "\\ufffd\\ufffd"},              /* overlong '/' */
    {"\xed\xa0\x80", 3, "\\ufffd\\ufffd\\ufffd"},   /* surrogate */
    {"\xe2\x82", 2, "\\ufffd\\ufffd"},              /* truncated */
    {"\xf4\x90\x80\x80", 4, "\\ufffd\\ufffd\\ufffd\\ufffd"}, /* > 10FFFF */
};

static void hostile_usernames_are_escaped(void)
{
    size_t i;
    char out[128];

    for (i = 0; i < sizeof(esc_cases) / sizeof(esc_cases[0]); ++i) {
        char what[64];
        snprintf(what, sizeof(what), "case %zu", i);
        hsc_json_escape(esc_cases[i].in, esc_cases[i].len, out, sizeof(out));
        CHECK_STR(out, esc_cases[i].out, what);
    }
}

static void escape_stops_before_a_character_that_does_not_fit(void)
{
    char out[8];

    CHECK_EQ(hsc_json_escape("abc\"def", 7, out, 6), 5, "abc\\\" fits 5");
    CHECK_STR(out, "abc\\\"", "whole escape kept");
    CHECK_EQ(hsc_json_escape("ab\x01", 3, out, 6), 2,
             "\\u0001 does not fit after ab: cut before it");
    CHECK_STR(out, "ab", "never half an escape");
    CHECK_EQ(hsc_json_escape("\xc3\xbc\xc3\xbc", 4, out, 4), 2,
             "never half a UTF-8 character");
}

/* A JSON string reader (RFC 8259, section 7) for the value of "user":
 * returns its decoded length, or -1 when the text is not valid JSON. */
static long json_user(const char *line, char *out, size_t cap)
{
    const char *p = strstr(line, "\"user\":\"");
    size_t o = 0;

    if (p == NULL) {
        return -1;
    }
    for (p += 8; *p != '"'; ++p) {
        unsigned v = 0;
        int k;
        if ((unsigned char)*p < 0x20 || *p == '\0') {
            return -1;
        }
        if (*p != '\\') {
            if (o < cap) {
                out[o++] = *p;
            }
            continue;
        }
        ++p;
        if (*p == '"' || *p == '\\' || *p == '/') {
            if (o < cap) {
                out[o++] = *p;
            }
            continue;
        }
        if (*p != 'u') {
            return -1; /* we never write \n \t etc. */
        }
        for (k = 1; k <= 4; ++k) {
            char h = p[k];
            v = v * 16 + (unsigned)(h >= 'a' ? h - 'a' + 10 : h - '0');
        }
        p += 4;
        if (v < 0x80 && o < cap) {
            out[o++] = (char)v;
        }
        else if (o + 3 <= cap) { /* U+0080.. as UTF-8 (BMP only here) */
            if (v < 0x800) {
                out[o++] = (char)(0xC0 | (v >> 6));
            }
            else {
                out[o++] = (char)(0xE0 | (v >> 12));
                out[o++] = (char)(0x80 | ((v >> 6) & 0x3F));
            }
            out[o++] = (char)(0x80 | (v & 0x3F));
        }
    }
    return (long)o;
}

static void a_json_reader_gets_the_typed_name_back(void)
{
    static const char typed[] = "eve\"},\"outcome\":\"success\n{\"x\\\x01";
    hsc_audit_event_t e;
    char buf[HSC_AUDIT_LINE_MAX], back[300];
    long n;

    hsc_audit_event_init(&e);
    e.event = "login";
    e.outcome = "failure";
    e.user = typed;
    e.user_len = sizeof(typed) - 1;
    fmt(&e, buf);
    CHECK(strchr(buf, '\n') == buf + strlen(buf) - 1,
          "one line break, at the end");
    n = json_user(buf, back, sizeof(back));
    CHECK_EQ(n, (long)sizeof(typed) - 1, "a JSON reader decodes it");
    CHECK(n > 0 && memcmp(back, typed, (size_t)n) == 0,
          "to exactly the bytes typed");
    CHECK(strstr(buf, "\"outcome\":\"failure\"") != NULL
              && strstr(buf, "\"outcome\":\"success\"") == NULL,
          "an injected outcome stays inside the user string");
}

static void long_names_are_cut_and_the_line_stays_bounded(void)
{
    static char big[5000], back[300];
    hsc_audit_event_t e;
    char buf[HSC_AUDIT_LINE_MAX];
    size_t n;

    memset(big, 'A', sizeof(big));
    hsc_audit_event_init(&e);
    e.event = "login";
    e.outcome = "failure";
    e.user = big;
    e.user_len = sizeof(big);
    n = fmt(&e, buf);
    CHECK_EQ(json_user(buf, back, sizeof(back)), HSC_AUDIT_FIELD_MAX,
             "the name as typed, cut to 255 bytes");
    CHECK(n < HSC_AUDIT_LINE_MAX, "line under PIPE_BUF");
    /* Every field hostile and at its worst: 255 control bytes each. */
    memset(big, 1, sizeof(big));
    big[sizeof(big) - 1] = '\0';
    e.reason = e.client = e.vhost = e.request_id = e.kid = e.counter =
        e.action = e.actor = big;
    e.everywhere = 1;
    n = fmt(&e, buf);
    CHECK(n > 0 && n < HSC_AUDIT_LINE_MAX && n == strlen(buf),
          "the worst case still fits");
    CHECK(buf[n - 2] == '}' && buf[n - 1] == '\n', "and ends the object");
    CHECK(strstr(buf, "\\u0001\\u0001\"") != NULL
              || strstr(buf, "\\u0001\",") != NULL,
          "fields end with their quote, never inside an escape");
}

int main(void)
{
    RUN(time_is_rfc3339_utc_with_milliseconds);
    RUN(login_failure_line_has_every_field_in_order);
    RUN(unset_fields_are_left_out);
    RUN(event_and_outcome_are_required);
    RUN(hostile_usernames_are_escaped);
    RUN(escape_stops_before_a_character_that_does_not_fit);
    RUN(a_json_reader_gets_the_typed_name_back);
    RUN(long_names_are_cut_and_the_line_stays_bounded);
    return hsc_test_done();
}
