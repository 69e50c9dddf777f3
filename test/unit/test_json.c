/*
 * test_json.c: the flat-object JSON reader and the writer of the hsc-api
 * handler (hsc_json.c).
 */
#include <string.h>

#include "hsc_test.h"
#include "hsc_json.h"

static hsc_json_object_t obj;

static hsc_status_t parse(const char *s)
{
    return hsc_json_parse(s, strlen(s), &obj);
}

static void a_flat_object_parses(void)
{
    const hsc_json_field_t *f;

    CHECK_EQ(parse(" {\"username\" : \"alice\",\n\"password\":\"s3cret\","
                   "\"remember\":true,\"x\":false,\"y\":null,"
                   "\"n\":-12.5e+3}\r\n"),
             HSC_OK, "every value type, white space around");
    CHECK_EQ(obj.n, 6, "six members");
    f = hsc_json_get(&obj, "username");
    CHECK(f != NULL && f->type == HSC_JSON_STRING, "a string");
    CHECK_STR(f ? f->value : NULL, "alice", "its value");
    CHECK_EQ(f ? f->len : 0, 5, "its length");
    f = hsc_json_get(&obj, "remember");
    CHECK(f != NULL && f->type == HSC_JSON_TRUE, "true");
    f = hsc_json_get(&obj, "x");
    CHECK(f != NULL && f->type == HSC_JSON_FALSE, "false");
    f = hsc_json_get(&obj, "y");
    CHECK(f != NULL && f->type == HSC_JSON_NULL, "null");
    f = hsc_json_get(&obj, "n");
    CHECK(f != NULL && f->type == HSC_JSON_NUMBER, "a number");
    CHECK_STR(f ? f->value : NULL, "-12.5e+3", "as its text");
    CHECK(hsc_json_get(&obj, "missing") == NULL, "an absent key: NULL");
    CHECK(hsc_json_get(&obj, "user") == NULL, "a prefix is not a key");
    CHECK_EQ(parse("{}"), HSC_OK, "the empty object");
    CHECK_EQ(obj.n, 0, "has no members");
    hsc_json_wipe(&obj);
    CHECK(obj.n == 0 && obj.text[0] == '\0', "wiped");
}

static void escapes_decode(void)
{
    const hsc_json_field_t *f;

    CHECK_EQ(parse("{\"a\":\"q\\\"b\\\\s\\/n\\nt\\tr\\rb\\bf\\f\"}"), HSC_OK,
             "the short escapes");
    f = hsc_json_get(&obj, "a");
    CHECK_STR(f ? f->value : NULL, "q\"b\\s/n\nt\tr\rb\bf\f", "decoded");
    CHECK_EQ(parse("{\"a\":\"\\u00e9\\u20AC\\ud83d\\ude00\"}"), HSC_OK,
             "\\u escapes and a surrogate pair");
    f = hsc_json_get(&obj, "a");
    CHECK_STR(f ? f->value : NULL, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
              "as UTF-8");
    CHECK_EQ(parse("{\"a\":\"x\\u0000y\"}"), HSC_OK, "\\u0000");
    f = hsc_json_get(&obj, "a");
    CHECK(f != NULL && f->len == 3 && memcmp(f->value, "x\0y", 3) == 0,
          "keeps its NUL, counted in len");
    CHECK_EQ(parse("{\"\\u0061\":1,\"a\":2}"), HSC_EMALFORMED,
             "a key spelled twice, once escaped: a duplicate");
    CHECK_EQ(parse("{\"p\":\"\xc3\xa9t\xc3\xa9\"}"), HSC_OK, "raw UTF-8");
}

static void bad_documents_are_refused(void)
{
    static const char *const bad[] = {
        "",
        " ",
        "[]",
        "\"a\"",
        "1",
        "null",
        "{",
        "}",
        "{\"a\"}",
        "{\"a\":}",
        "{\"a\":1,}",
        "{,}",
        "{\"a\":1 \"b\":2}",
        "{\"a\":1}x",
        "{\"a\":1}{}",
        "{a:1}",
        "{'a':1}",
        "{\"a\":'x'}",
        "{\"a\":[1]}",
        "{\"a\":{}}",
        "{\"a\":{\"b\":1}}",
        "{\"a\":tru}",
        "{\"a\":True}",
        "{\"a\":nul}",
        "{\"a\":01}",
        "{\"a\":+1}",
        "{\"a\":1.}",
        "{\"a\":.5}",
        "{\"a\":1e}",
        "{\"a\":-}",
        "{\"a\":0x10}",
        "{\"a\":NaN}",
        "{\"a\":\"x}",
        "{\"a\":\"\\x\"}",
        "{\"a\":\"\\u12\"}",
        "{\"a\":\"\\u12G4\"}",
        "{\"a\":\"\\ud83d\"}",
        "{\"a\":\"\\ud83dx\"}",
        "{\"a\":\"\\ud83d\\u0041\"}",
        "{\"a\":\"\\ude00\"}",
        "{\"a\":\"tab\there\"}",
        "{\"a\":\"nl\nhere\"}",
        "{\"a\":1,\"a\":2}",
        "{\"a\":\"x\",\"a\":\"x\"}",
        "\xef\xbb\xbf{}",
        "{\"a\":\"\xc0\xaf\"}",
        "{\"a\":\"\xed\xa0\x80\"}",
        "{\"a\":\"\xf4\x90\x80\x80\"}",
        "{\"a\":\"\xe2\x82\"}",
        "{\"a\":\"\x80\"}",
        "{\"\xff\":1}",
        "{\"a\" 1}",
    };
    size_t i;
    int all = 1;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        hsc_status_t st = parse(bad[i]);
        if (st != HSC_EMALFORMED || obj.n != 0) {
            printf("# accepted or mis-refused: [%s] (%d)\n", bad[i], (int)st);
            all = 0;
        }
    }
    CHECK(all && i > 50, "every malformed document: HSC_EMALFORMED, empty");
    CHECK_EQ(hsc_json_parse(NULL, 0, &obj), HSC_EMALFORMED, "NULL");
    CHECK_EQ(hsc_json_parse("{\"a\":1}\0", 8, &obj), HSC_EMALFORMED,
             "a NUL after the object");
}

static void bounds_hold(void)
{
    static char big[HSC_JSON_MAX + 2];
    char many[600];
    size_t n = 0;
    int i;

    /* {"p":"xxxx...."} of exactly HSC_JSON_MAX bytes, then one more. */
    memset(big, 'x', sizeof(big));
    memcpy(big, "{\"p\":\"", 6);
    memcpy(big + HSC_JSON_MAX - 2, "\"}", 2);
    CHECK_EQ(hsc_json_parse(big, HSC_JSON_MAX, &obj), HSC_OK,
             "HSC_JSON_MAX bytes");
    CHECK_EQ(obj.fields[0].len, HSC_JSON_MAX - 8, "the whole string");
    memcpy(big + HSC_JSON_MAX - 2, "x\"}", 3);
    CHECK_EQ(hsc_json_parse(big, HSC_JSON_MAX + 1, &obj), HSC_ETOOLONG,
             "one byte more: too long");

    n += (size_t)sprintf(many + n, "{");
    for (i = 0; i < HSC_JSON_FIELDS_MAX; i++) {
        n += (size_t)sprintf(many + n, "%s\"k%d\":%d", i ? "," : "", i, i);
    }
    sprintf(many + n, "}");
    CHECK_EQ(parse(many), HSC_OK, "HSC_JSON_FIELDS_MAX members");
    CHECK_EQ(obj.n, HSC_JSON_FIELDS_MAX, "all of them");
    sprintf(many + n, ",\"one\":1}");
    CHECK_EQ(parse(many), HSC_ETOOLONG, "one more: too long");
    CHECK_EQ(obj.n, 0, "and nothing kept");
}

static void utf8_validity(void)
{
    CHECK(hsc_json_utf8_valid("abc\0\xc3\xa9", 6), "ASCII, NUL, 2 bytes");
    CHECK(hsc_json_utf8_valid("\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf", 8),
          "4 bytes up to U+10FFFF");
    CHECK(!hsc_json_utf8_valid("\xc1\xbf", 2), "overlong 2");
    CHECK(!hsc_json_utf8_valid("\xe0\x9f\xbf", 3), "overlong 3");
    CHECK(!hsc_json_utf8_valid("\xf0\x8f\xbf\xbf", 4), "overlong 4");
    CHECK(!hsc_json_utf8_valid("\xed\xbf\xbf", 3), "a surrogate");
    CHECK(!hsc_json_utf8_valid("\xf4\x90\x80\x80", 4), "above U+10FFFF");
    CHECK(!hsc_json_utf8_valid("\xc3", 1), "cut short");
    CHECK(!hsc_json_utf8_valid("\xfe", 1), "never a lead byte");
}

static void escape_writes_safe_strings(void)
{
    char out[HSC_JSON_ESCAPED_MAX(32)];

    CHECK_EQ(hsc_json_escape_safe("a\"b\\c", 5, out), 7, "quote and backslash");
    CHECK_STR(out, "a\\\"b\\\\c", "escaped");
    hsc_json_escape_safe("<x>&'\n\x01\x7f", 8, out);
    CHECK_STR(out, "\\u003cx\\u003e\\u0026\\u0027\\u000a\\u0001\\u007f",
              "HTML's and control characters as \\u00XX");
    hsc_json_escape_safe("\xc3\xa9\xe2\x80\xa8\xe2\x80\xa9", 8, out);
    CHECK_STR(out, "\xc3\xa9\\u2028\\u2029", "U+2028, U+2029 escaped");
    hsc_json_escape_safe("a\xff"
                         "b\xc3",
                         4, out);
    CHECK_STR(out, "a\\ufffdb\\ufffd", "ill-formed bytes: U+FFFD");
    CHECK_EQ(hsc_json_escape_safe("\x80\x80\x80", 3, out), 18,
             "the worst case is six bytes a byte");
}

static void the_writer_makes_what_the_reader_reads(void)
{
    char buf[512];
    hsc_json_writer_t w;
    size_t len;
    const hsc_json_field_t *f;

    hsc_json_begin(&w, buf, sizeof(buf));
    hsc_json_add_bool(&w, "authenticated", 1);
    hsc_json_add_string(&w, "user", "al\"ice\n", 7);
    hsc_json_add_list(&w, "groups", "staff,,ops", 10, ',');
    hsc_json_add_list(&w, "methods", "", 0, ' ');
    hsc_json_add_int(&w, "expires", -1700000000);
    CHECK_EQ(hsc_json_end(&w, &len), HSC_OK, "an object written");
    CHECK_STR(buf,
              "{\"authenticated\":true,\"user\":\"al\\\"ice\\u000a\","
              "\"groups\":[\"staff\",\"ops\"],\"methods\":[],"
              "\"expires\":-1700000000}",
              "as expected");
    CHECK_EQ(len, strlen(buf), "its length");

    hsc_json_begin(&w, buf, sizeof(buf));
    hsc_json_add_string(&w, "error", "bad_json", 8);
    hsc_json_add_string(&w, "message", "\xff<script>\xc3\xa9", 11);
    hsc_json_add_bool(&w, "f", 0);
    CHECK_EQ(hsc_json_end(&w, &len), HSC_OK, "another");
    CHECK_EQ(hsc_json_parse(buf, len, &obj), HSC_OK, "which the reader reads");
    f = hsc_json_get(&obj, "message");
    CHECK_STR(f ? f->value : NULL, "\xef\xbf\xbd<script>\xc3\xa9",
              "back, with U+FFFD for the bad byte, UTF-8 as it was");
    f = hsc_json_get(&obj, "f");
    CHECK(f != NULL && f->type == HSC_JSON_FALSE, "false back");

    hsc_json_begin(&w, buf, sizeof(buf));
    hsc_json_add_raw(&w, "tokens", "[{\"id\":\"a\"},{}]", 15);
    hsc_json_add_int(&w, "n", 2);
    CHECK_EQ(hsc_json_end(&w, &len), HSC_OK, "a raw member");
    CHECK_STR(buf, "{\"tokens\":[{\"id\":\"a\"},{}],\"n\":2}",
              "written as it is, between the others");
}

static void the_writer_never_overflows(void)
{
    char buf[40];
    hsc_json_writer_t w;
    size_t len, cap;
    int fit = 0, over = 0;

    for (cap = 0; cap <= sizeof(buf); cap++) {
        memset(buf, '#', sizeof(buf));
        hsc_json_begin(&w, cap ? buf : NULL, cap);
        hsc_json_add_string(&w, "user", "alice", 5);
        hsc_json_add_bool(&w, "ok", 1);
        if (hsc_json_end(&w, &len) == HSC_OK) {
            fit += !strcmp(buf, "{\"user\":\"alice\",\"ok\":true}");
        }
        else {
            over += len == 0 && (cap == 0 || buf[0] == '\0');
        }
        if (cap < sizeof(buf) && buf[cap] != '#') {
            over = -1000;
        }
    }
    /* 26 bytes of text and its NUL: caps 27..40 fit. */
    CHECK_EQ(fit, 14, "every cap from 27 bytes holds the object");
    CHECK_EQ(over, 27, "every smaller cap says HSC_ETOOLONG, empty");
}

static void content_type_and_accept(void)
{
    CHECK(hsc_json_content_type("application/json"), "application/json");
    CHECK(hsc_json_content_type("Application/JSON; charset=utf-8"),
          "any case, with a charset");
    CHECK(!hsc_json_content_type("application/jsonx"), "a longer type: no");
    CHECK(!hsc_json_content_type("text/plain"), "text/plain: no");
    CHECK(!hsc_json_content_type("application/x-www-form-urlencoded"),
          "a form: no");
    CHECK(!hsc_json_content_type(NULL), "none: no");

    CHECK(hsc_json_accept_prefers("application/json"), "JSON alone");
    CHECK(hsc_json_accept_prefers("application/json, text/plain, */*"),
          "a script's usual Accept");
    CHECK(hsc_json_accept_prefers("text/html;q=0.5, application/json"),
          "JSON above HTML");
    CHECK(!hsc_json_accept_prefers("text/html,application/xhtml+xml,"
                                   "application/xml;q=0.9,*/*;q=0.8"),
          "a browser's navigation: no");
    CHECK(!hsc_json_accept_prefers("text/html, application/json;q=0.9"),
          "HTML above JSON: no");
    CHECK(!hsc_json_accept_prefers("application/json;q=0"), "q=0: no");
    CHECK(!hsc_json_accept_prefers("*/*"), "a wildcard alone: no");
    CHECK(!hsc_json_accept_prefers(NULL), "no Accept: no");
}

int main(void)
{
    RUN(content_type_and_accept);
    RUN(a_flat_object_parses);
    RUN(escapes_decode);
    RUN(bad_documents_are_refused);
    RUN(bounds_hold);
    RUN(utf8_validity);
    RUN(escape_writes_safe_strings);
    RUN(the_writer_makes_what_the_reader_reads);
    RUN(the_writer_never_overflows);
    return hsc_test_done();
}
