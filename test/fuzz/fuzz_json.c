/*
 * fuzz_json.c: the hsc-api handler's JSON (hsc_json.c): the flat-object
 * reader on any bytes, and the writer's escaping of any bytes.
 *
 * Input: the whole of it is a document for hsc_json_parse(), and also a
 * string for hsc_json_escape_safe(). Properties (each aborts when violated):
 *   - the reader's verdict and members are the same when asked twice, and
 *     a refusal leaves no members;
 *   - an accepted object has at most HSC_JSON_FIELDS_MAX members, distinct
 *     keys, keys and string values of well-formed UTF-8, NUL-terminated at
 *     their length, a number's text non-empty and starting '-' or a digit;
 *   - writing an accepted object back (strings, booleans; null and numbers
 *     as strings of their text) gives a document the reader accepts with
 *     the same keys and the same values, byte for byte;
 *   - the escape of any bytes holds no control byte, '<', '>', '&' or a
 *     bare quote, is at most HSC_JSON_ESCAPED_MAX long, and read back inside
 *     {"k":"..."} is accepted; when the bytes were well-formed UTF-8 it
 *     decodes to exactly them;
 *   - the same bytes as a header (cut at a NUL): hsc_json_content_type and
 *     hsc_json_accept_prefers answer 0 or 1, the same twice; an accepted
 *     Content-Type starts with application/json, and an Accept that
 *     prefers JSON names application/json.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strcasestr */
#endif
#include <string.h>
#include <strings.h>

#include "hsc_fuzz.h"
#include "hsc_json.h"

static hsc_json_object_t a, b, c;

static void check_object(const hsc_json_object_t *o)
{
    size_t i, j;

    HSC_FUZZ_ASSERT(o->n <= HSC_JSON_FIELDS_MAX);
    for (i = 0; i < o->n; i++) {
        const hsc_json_field_t *f = &o->fields[i];

        HSC_FUZZ_ASSERT(f->key[f->key_len] == '\0');
        HSC_FUZZ_ASSERT(hsc_json_utf8_valid(f->key, f->key_len));
        HSC_FUZZ_ASSERT(f->value[f->len] == '\0');
        HSC_FUZZ_ASSERT(hsc_json_utf8_valid(f->value, f->len));
        if (f->type == HSC_JSON_NUMBER) {
            HSC_FUZZ_ASSERT(f->len > 0);
            HSC_FUZZ_ASSERT(f->value[0] == '-'
                            || (f->value[0] >= '0' && f->value[0] <= '9'));
        }
        else if (f->type != HSC_JSON_STRING) {
            HSC_FUZZ_ASSERT(f->len == 0);
        }
        for (j = 0; j < i; j++) {
            HSC_FUZZ_ASSERT(o->fields[j].key_len != f->key_len
                            || memcmp(o->fields[j].key, f->key, f->key_len));
        }
    }
}

/* Write o back and read it again: the same members. */
static void round_trip(const hsc_json_object_t *o)
{
    size_t cap = 16, i, len;
    hsc_json_writer_t w;
    char *buf;

    for (i = 0; i < o->n; i++) {
        cap += HSC_JSON_ESCAPED_MAX(o->fields[i].key_len)
               + HSC_JSON_ESCAPED_MAX(o->fields[i].len) + 8;
    }
    if ((buf = malloc(cap)) == NULL) {
        return;
    }
    hsc_json_begin(&w, buf, cap);
    for (i = 0; i < o->n; i++) {
        const hsc_json_field_t *f = &o->fields[i];
        if (f->type == HSC_JSON_TRUE || f->type == HSC_JSON_FALSE) {
            hsc_json_add_bool(&w, f->key, f->type == HSC_JSON_TRUE);
        }
        else {
            hsc_json_add_string(&w, f->key, f->value, f->len);
        }
    }
    HSC_FUZZ_ASSERT(hsc_json_end(&w, &len) == HSC_OK);
    HSC_FUZZ_ASSERT(len == strlen(buf));
    /* Keys holding NUL are cut at it by the writer (a C string key): only
     * objects without them come back whole. */
    for (i = 0; i < o->n; i++) {
        if (strlen(o->fields[i].key) != o->fields[i].key_len) {
            free(buf);
            return;
        }
    }
    if (len <= HSC_JSON_MAX) {
        HSC_FUZZ_ASSERT(hsc_json_parse(buf, len, &c) == HSC_OK);
        HSC_FUZZ_ASSERT(c.n == o->n);
        for (i = 0; i < o->n; i++) {
            const hsc_json_field_t *f = &o->fields[i], *g = &c.fields[i];
            HSC_FUZZ_ASSERT(g->key_len == f->key_len
                            && !memcmp(g->key, f->key, f->key_len));
            HSC_FUZZ_ASSERT(g->len == f->len
                            && !memcmp(g->value, f->value, f->len));
        }
    }
    free(buf);
}

static void check_escape(const uint8_t *data, size_t size)
{
    size_t cap = HSC_JSON_ESCAPED_MAX(size) + 16, len, i;
    char *doc = malloc(cap);
    const hsc_json_field_t *f;

    if (doc == NULL) {
        return;
    }
    memcpy(doc, "{\"k\":\"", 6);
    len = hsc_json_escape_safe((const char *)data, size, doc + 6);
    HSC_FUZZ_ASSERT(len < HSC_JSON_ESCAPED_MAX(size));
    HSC_FUZZ_ASSERT(doc[6 + len] == '\0');
    for (i = 6; i < 6 + len; i++) {
        unsigned char ch = (unsigned char)doc[i];
        HSC_FUZZ_ASSERT(ch >= 0x20 && ch != 0x7f && ch != '<' && ch != '>'
                        && ch != '&');
        if (ch == '"') {
            HSC_FUZZ_ASSERT(doc[i - 1] == '\\');
        }
    }
    memcpy(doc + 6 + len, "\"}", 2);
    if (len + 8 <= HSC_JSON_MAX) {
        HSC_FUZZ_ASSERT(hsc_json_parse(doc, len + 8, &c) == HSC_OK);
        f = hsc_json_get(&c, "k");
        HSC_FUZZ_ASSERT(f != NULL && f->type == HSC_JSON_STRING);
        if (hsc_json_utf8_valid((const char *)data, size)) {
            HSC_FUZZ_ASSERT(f->len == size && !memcmp(f->value, data, size));
        }
    }
    free(doc);
}

static void check_headers(const uint8_t *data, size_t size)
{
    char *h = malloc(size + 1);
    int ct, acc;

    if (h == NULL) {
        return;
    }
    memcpy(h, data, size);
    h[size] = '\0';
    ct = hsc_json_content_type(h);
    acc = hsc_json_accept_prefers(h);
    HSC_FUZZ_ASSERT(ct == 0 || ct == 1);
    HSC_FUZZ_ASSERT(acc == 0 || acc == 1);
    HSC_FUZZ_ASSERT(hsc_json_content_type(h) == ct);
    HSC_FUZZ_ASSERT(hsc_json_accept_prefers(h) == acc);
    if (ct) {
        HSC_FUZZ_ASSERT(!strncasecmp(h, "application/json", 16));
    }
    if (acc) {
        HSC_FUZZ_ASSERT(strcasestr(h, "application/json") != NULL);
    }
    free(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hsc_status_t s1, s2;
    size_t i;

    s1 = hsc_json_parse((const char *)data, size, &a);
    s2 = hsc_json_parse((const char *)data, size, &b);
    HSC_FUZZ_ASSERT(s1 == s2);
    HSC_FUZZ_ASSERT(s1 == HSC_OK || s1 == HSC_EMALFORMED || s1 == HSC_ETOOLONG);
    HSC_FUZZ_ASSERT(a.n == b.n);
    if (s1 != HSC_OK) {
        HSC_FUZZ_ASSERT(a.n == 0);
        HSC_FUZZ_ASSERT(size <= HSC_JSON_MAX || s1 == HSC_ETOOLONG);
    }
    else {
        check_object(&a);
        for (i = 0; i < a.n; i++) {
            HSC_FUZZ_ASSERT(a.fields[i].type == b.fields[i].type);
            HSC_FUZZ_ASSERT(a.fields[i].len == b.fields[i].len
                            && !memcmp(a.fields[i].value, b.fields[i].value,
                                       a.fields[i].len));
        }
        round_trip(&a);
    }
    check_escape(data, size);
    check_headers(data, size);
    return 0;
}
