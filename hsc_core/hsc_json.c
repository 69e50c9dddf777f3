/*
 * hsc_json.c: one flat JSON object in, one JSON object out (hsc_json.h).
 * The reader copies what it decodes into the object's own text: the input
 * is never written, and every value is NUL-terminated there.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "hsc_json.h"

/* --- UTF-8 ---------------------------------------------------------------- */

static int cont(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

/* The length of the well-formed UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];

    if (c < 0x80) {
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        return n >= 2 && cont(s[1]) ? 2 : 0;
    }
    if (c >= 0xE0 && c <= 0xEF) {
        if (n < 3 || !cont(s[1]) || !cont(s[2])) {
            return 0;
        }
        if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0)) {
            return 0; /* overlong, or a surrogate */
        }
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (n < 4 || !cont(s[1]) || !cont(s[2]) || !cont(s[3])) {
            return 0;
        }
        if ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90)) {
            return 0; /* overlong, or above U+10FFFF */
        }
        return 4;
    }
    return 0;
}

int hsc_json_utf8_valid(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, n;

    while (i < len) {
        if ((n = utf8_seq(u + i, len - i)) == 0) {
            return 0;
        }
        i += n;
    }
    return 1;
}

/* --- the reader ----------------------------------------------------------- */

typedef struct {
    const unsigned char *p, *end;
    hsc_json_object_t *o;
    size_t used; /* bytes of o->text */
} reader_t;

static void skip_ws(reader_t *r)
{
    while (
        r->p < r->end
        && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) {
        r->p++;
    }
}

/* Append n bytes to the object's text; 0 when they do not fit (never, for
 * an input of at most HSC_JSON_MAX bytes: the decoded text is shorter). */
static int put(reader_t *r, const void *b, size_t n)
{
    if (n > sizeof(r->o->text) - r->used) {
        return 0;
    }
    memcpy(r->o->text + r->used, b, n);
    r->used += n;
    return 1;
}

static int hex4(const unsigned char *p, const unsigned char *end, unsigned *out)
{
    unsigned v = 0;
    int i;

    if (end - p < 4) {
        return 0;
    }
    for (i = 0; i < 4; i++) {
        unsigned char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') {
            v |= (unsigned)(c - '0');
        }
        else if (c >= 'a' && c <= 'f') {
            v |= (unsigned)(c - 'a' + 10);
        }
        else if (c >= 'A' && c <= 'F') {
            v |= (unsigned)(c - 'A' + 10);
        }
        else {
            return 0;
        }
    }
    *out = v;
    return 1;
}

/* The UTF-8 of code point cp (not a surrogate, at most U+10FFFF). */
static size_t utf8_encode(unsigned cp, unsigned char out[4])
{
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xC0 | (cp >> 6));
        out[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xE0 | (cp >> 12));
        out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (unsigned char)(0xF0 | (cp >> 18));
    out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* After "\u": the code point of one escape, or of a surrogate pair's two. */
static int read_u_escape(reader_t *r, unsigned *cp)
{
    unsigned lo;

    if (!hex4(r->p, r->end, cp)) {
        return 0;
    }
    r->p += 4;
    if (*cp >= 0xDC00 && *cp <= 0xDFFF) {
        return 0; /* a low surrogate first */
    }
    if (*cp < 0xD800 || *cp > 0xDBFF) {
        return 1;
    }
    if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u'
        || !hex4(r->p + 2, r->end, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
        return 0; /* a high surrogate alone */
    }
    r->p += 6;
    *cp = 0x10000 + ((*cp - 0xD800) << 10) + (lo - 0xDC00);
    return 1;
}

/* One escape after its backslash, decoded into the text. */
static int read_escape(reader_t *r)
{
    unsigned char b[4];
    unsigned cp;
    char c;

    if (r->p >= r->end) {
        return 0;
    }
    switch (*r->p++) {
    case '"': c = '"'; break;
    case '\\': c = '\\'; break;
    case '/': c = '/'; break;
    case 'b': c = '\b'; break;
    case 'f': c = '\f'; break;
    case 'n': c = '\n'; break;
    case 'r': c = '\r'; break;
    case 't': c = '\t'; break;
    case 'u':
        if (!read_u_escape(r, &cp)) {
            return 0;
        }
        return put(r, b, utf8_encode(cp, b));
    default: return 0;
    }
    return put(r, &c, 1);
}

/* A string at r->p (its opening quote), decoded and NUL-terminated into
 * the text: *s and *len. */
static int read_string(reader_t *r, const char **s, size_t *len)
{
    size_t start, n;

    if (r->p >= r->end || *r->p != '"') {
        return 0;
    }
    r->p++;
    start = r->used;
    for (;;) {
        if (r->p >= r->end) {
            return 0;
        }
        if (*r->p == '"') {
            r->p++;
            break;
        }
        if (*r->p < 0x20) {
            return 0;
        }
        if (*r->p == '\\') {
            r->p++;
            if (!read_escape(r)) {
                return 0;
            }
            continue;
        }
        n = utf8_seq(r->p, (size_t)(r->end - r->p));
        if (n == 0 || !put(r, r->p, n)) {
            return 0;
        }
        r->p += n;
    }
    *s = r->o->text + start;
    *len = r->used - start;
    return put(r, "", 1);
}

static int digits(reader_t *r)
{
    const unsigned char *p0 = r->p;

    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
        r->p++;
    }
    return r->p > p0;
}

/* A number (RFC 8259's grammar), copied as text. */
static int read_number(reader_t *r, const char **s, size_t *len)
{
    const unsigned char *p0 = r->p;
    size_t start = r->used;

    if (r->p < r->end && *r->p == '-') {
        r->p++;
    }
    if (r->p < r->end && *r->p == '0') {
        r->p++;
    }
    else if (!digits(r)) {
        return 0;
    }
    if (r->p < r->end && *r->p == '.') {
        r->p++;
        if (!digits(r)) {
            return 0;
        }
    }
    if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
        r->p++;
        if (r->p < r->end && (*r->p == '+' || *r->p == '-')) {
            r->p++;
        }
        if (!digits(r)) {
            return 0;
        }
    }
    if (!put(r, p0, (size_t)(r->p - p0)) || !put(r, "", 1)) {
        return 0;
    }
    *s = r->o->text + start;
    *len = (size_t)(r->p - p0);
    return 1;
}

static int literal(reader_t *r, const char *word)
{
    size_t n = strlen(word);

    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0) {
        return 0;
    }
    r->p += n;
    return 1;
}

/* One value into f. */
static int read_value(reader_t *r, hsc_json_field_t *f)
{
    if (r->p >= r->end) {
        return 0;
    }
    f->value = "";
    f->len = 0;
    switch (*r->p) {
    case '"':
        f->type = HSC_JSON_STRING;
        return read_string(r, &f->value, &f->len);
    case 't': f->type = HSC_JSON_TRUE; return literal(r, "true");
    case 'f': f->type = HSC_JSON_FALSE; return literal(r, "false");
    case 'n': f->type = HSC_JSON_NULL; return literal(r, "null");
    default:
        f->type = HSC_JSON_NUMBER;
        return read_number(r, &f->value, &f->len);
    }
}

static int duplicate(const hsc_json_object_t *o, const hsc_json_field_t *f)
{
    size_t i;

    for (i = 0; i < o->n; i++) {
        if (o->fields[i].key_len == f->key_len
            && memcmp(o->fields[i].key, f->key, f->key_len) == 0) {
            return 1;
        }
    }
    return 0;
}

/* The members after '{': HSC_OK at the closing '}'. */
static hsc_status_t read_members(reader_t *r)
{
    hsc_json_object_t *o = r->o;
    hsc_json_field_t f;

    skip_ws(r);
    if (r->p < r->end && *r->p == '}') {
        r->p++;
        return HSC_OK;
    }
    for (;;) {
        skip_ws(r);
        if (!read_string(r, &f.key, &f.key_len)) {
            return HSC_EMALFORMED;
        }
        skip_ws(r);
        if (r->p >= r->end || *r->p++ != ':') {
            return HSC_EMALFORMED;
        }
        skip_ws(r);
        if (!read_value(r, &f) || duplicate(o, &f)) {
            return HSC_EMALFORMED;
        }
        if (o->n == HSC_JSON_FIELDS_MAX) {
            return HSC_ETOOLONG;
        }
        o->fields[o->n++] = f;
        skip_ws(r);
        if (r->p >= r->end) {
            return HSC_EMALFORMED;
        }
        if (*r->p == '}') {
            r->p++;
            return HSC_OK;
        }
        if (*r->p++ != ',') {
            return HSC_EMALFORMED;
        }
    }
}

hsc_status_t hsc_json_parse(const char *in, size_t len, hsc_json_object_t *o)
{
    reader_t r;
    hsc_status_t st;

    o->n = 0;
    if (in == NULL) {
        return HSC_EMALFORMED;
    }
    if (len > HSC_JSON_MAX) {
        return HSC_ETOOLONG;
    }
    r.p = (const unsigned char *)in;
    r.end = r.p + len;
    r.o = o;
    r.used = 0;
    skip_ws(&r);
    if (r.p >= r.end || *r.p++ != '{') {
        return HSC_EMALFORMED;
    }
    st = read_members(&r);
    if (st == HSC_OK) {
        skip_ws(&r);
        if (r.p != r.end) {
            st = HSC_EMALFORMED;
        }
    }
    if (st != HSC_OK) {
        hsc_wipe(o->text, r.used);
        o->n = 0;
    }
    return st;
}

const hsc_json_field_t *hsc_json_get(const hsc_json_object_t *o,
                                     const char *key)
{
    size_t i, n = strlen(key);

    for (i = 0; i < o->n; i++) {
        if (o->fields[i].key_len == n
            && memcmp(o->fields[i].key, key, n) == 0) {
            return &o->fields[i];
        }
    }
    return NULL;
}

void hsc_json_wipe(hsc_json_object_t *o)
{
    hsc_wipe(o, sizeof(*o));
}

/* --- the writer ----------------------------------------------------------- */

/* Escape s into out, or (out NULL) only count; the length. */
static size_t escape(const unsigned char *s, size_t len, char *out)
{
    static const char hex[] = "0123456789abcdef";
    size_t i = 0, o = 0, n;

#define EMIT(c)                                                                \
    do {                                                                       \
        if (out != NULL) {                                                     \
            out[o] = (c);                                                      \
        }                                                                      \
        o++;                                                                   \
    } while (0)
#define EMIT_U(a, b, c, d)                                                     \
    do {                                                                       \
        EMIT('\\');                                                            \
        EMIT('u');                                                             \
        EMIT(a);                                                               \
        EMIT(b);                                                               \
        EMIT(c);                                                               \
        EMIT(d);                                                               \
    } while (0)
    while (i < len) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\') {
            EMIT('\\');
            EMIT((char)c);
            i++;
        }
        else if (c < 0x20 || c == 0x7F || c == '<' || c == '>' || c == '&'
                 || c == '\'') {
            EMIT_U('0', '0', hex[c >> 4], hex[c & 15]);
            i++;
        }
        else if (c < 0x80) {
            EMIT((char)c);
            i++;
        }
        else if ((n = utf8_seq(s + i, len - i)) == 0) {
            EMIT_U('f', 'f', 'f', 'd');
            i++;
        }
        else if (n == 3 && c == 0xE2 && s[i + 1] == 0x80
                 && (s[i + 2] == 0xA8 || s[i + 2] == 0xA9)) {
            EMIT_U('2', '0', '2', s[i + 2] == 0xA8 ? '8' : '9');
            i += 3;
        }
        else {
            for (; n > 0; n--, i++) {
                EMIT((char)s[i]);
            }
        }
    }
#undef EMIT_U
#undef EMIT
    if (out != NULL) {
        out[o] = '\0';
    }
    return o;
}

size_t hsc_json_escape_safe(const char *s, size_t len, char *out)
{
    return escape((const unsigned char *)s, len, out);
}

/* Room for n more bytes and the closing "}" and NUL. */
static int room(hsc_json_writer_t *w, size_t n)
{
    if (w->err || w->cap - w->len < n + 2) {
        w->err = 1;
        return 0;
    }
    return 1;
}

static void raw(hsc_json_writer_t *w, const char *s, size_t n)
{
    if (room(w, n)) {
        memcpy(w->buf + w->len, s, n);
        w->len += n;
    }
}

/* "s" escaped. */
static void quoted(hsc_json_writer_t *w, const char *s, size_t n)
{
    size_t need = escape((const unsigned char *)s, n, NULL);

    raw(w, "\"", 1);
    if (room(w, need + 1)) { /* escape() writes a NUL after the text */
        w->len += escape((const unsigned char *)s, n, w->buf + w->len);
    }
    raw(w, "\"", 1);
}

/* ,"key": */
static void key(hsc_json_writer_t *w, const char *k)
{
    if (w->members++ > 0) {
        raw(w, ",", 1);
    }
    quoted(w, k, strlen(k));
    raw(w, ":", 1);
}

void hsc_json_begin(hsc_json_writer_t *w, char *buf, size_t cap)
{
    w->buf = buf;
    w->cap = cap;
    w->len = 0;
    w->members = 0;
    w->err = buf == NULL || cap < 3;
    raw(w, "{", 1);
}

void hsc_json_add_string(hsc_json_writer_t *w, const char *k, const char *s,
                         size_t len)
{
    key(w, k);
    quoted(w, s, len);
}

void hsc_json_add_bool(hsc_json_writer_t *w, const char *k, int b)
{
    key(w, k);
    raw(w, b ? "true" : "false", b ? 4 : 5);
}

void hsc_json_add_raw(hsc_json_writer_t *w, const char *k, const char *json,
                      size_t len)
{
    key(w, k);
    raw(w, json, len);
}

void hsc_json_add_int(hsc_json_writer_t *w, const char *k, int64_t v)
{
    char num[24];
    int n = snprintf(num, sizeof(num), "%lld", (long long)v);

    key(w, k);
    raw(w, num, (size_t)n);
}

void hsc_json_add_list(hsc_json_writer_t *w, const char *k, const char *list,
                       size_t len, char sep)
{
    size_t i = 0, j;
    int first = 1;

    key(w, k);
    raw(w, "[", 1);
    while (i < len) {
        for (j = i; j < len && list[j] != sep; j++) {
        }
        if (j > i) {
            if (!first) {
                raw(w, ",", 1);
            }
            quoted(w, list + i, j - i);
            first = 0;
        }
        i = j + 1;
    }
    raw(w, "]", 1);
}

hsc_status_t hsc_json_end(hsc_json_writer_t *w, size_t *len)
{
    *len = 0;
    if (w->err || w->cap - w->len < 2) {
        if (w->buf != NULL && w->cap > 0) {
            w->buf[0] = '\0';
        }
        return HSC_ETOOLONG;
    }
    w->buf[w->len++] = '}';
    w->buf[w->len] = '\0';
    *len = w->len;
    return HSC_OK;
}

/* --- headers -------------------------------------------------------------- */

int hsc_json_content_type(const char *ct)
{
    static const char mt[] = "application/json";

    if (ct == NULL || strncasecmp(ct, mt, sizeof(mt) - 1) != 0) {
        return 0;
    }
    ct += sizeof(mt) - 1;
    return *ct == '\0' || *ct == ';' || *ct == ' ' || *ct == '\t';
}

/* The q of one media range's parameters (after its ';'), in thousandths:
 * 1000 without q, 0 for a bad one. */
static int range_q(const char *p, const char *end)
{
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == ';')) {
            p++;
        }
        if (end - p >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
            int q = 0, scale = 1000;
            p += 2;
            if (p < end && (*p == '0' || *p == '1')) {
                q = (*p++ - '0') * 1000;
                if (p < end && *p == '.') {
                    for (p++; p < end && *p >= '0' && *p <= '9' && scale > 1;
                         p++) {
                        scale /= 10;
                        q += (*p - '0') * scale;
                    }
                }
                return q > 1000 ? 1000 : q;
            }
            return 0;
        }
        while (p < end && *p != ';') {
            p++;
        }
    }
    return 1000;
}

int hsc_json_accept_prefers(const char *accept)
{
    int json = -1, other = 0;
    const char *p = accept, *end, *semi, *t0, *t1;

    if (accept == NULL) {
        return 0;
    }
    while (*p != '\0') {
        for (end = p; *end != '\0' && *end != ','; end++) {
        }
        for (semi = p; semi < end && *semi != ';'; semi++) {
        }
        for (t0 = p; t0 < semi && (*t0 == ' ' || *t0 == '\t'); t0++) {
        }
        for (t1 = semi; t1 > t0 && (t1[-1] == ' ' || t1[-1] == '\t'); t1--) {
        }
        if (t1 > t0 && memchr(t0, '*', (size_t)(t1 - t0)) == NULL) {
            int q = range_q(semi, end);
            if ((size_t)(t1 - t0) == 16
                && strncasecmp(t0, "application/json", 16) == 0) {
                json = q > json ? q : json;
            }
            else if (q > other) {
                other = q;
            }
        }
        p = *end == ',' ? end + 1 : end;
    }
    return json > 0 && json >= other;
}
