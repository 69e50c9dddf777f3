/*
 * hsc_json.h: the JSON the hsc-api handler reads and writes (RFC 8259),
 * as little of it as that needs. The reader takes one flat object: string,
 * true, false, null and number values, no arrays or nested objects, no
 * duplicate keys, at most HSC_JSON_MAX bytes and HSC_JSON_FIELDS_MAX
 * members, well-formed UTF-8 throughout, \u escapes (surrogate pairs
 * joined, lone surrogates refused). The writer builds one object of
 * strings, booleans, integers and arrays of strings, every string escaped
 * so that the result is valid JSON whatever bytes it was given.
 */
#ifndef HSC_JSON_H
#define HSC_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "hsc_util.h"

/* Largest document read, in bytes; larger is HSC_ETOOLONG. */
#define HSC_JSON_MAX 8192
/* Most members of the one object; more is HSC_ETOOLONG. */
#define HSC_JSON_FIELDS_MAX 16

typedef enum {
    HSC_JSON_STRING,
    HSC_JSON_NUMBER,
    HSC_JSON_TRUE,
    HSC_JSON_FALSE,
    HSC_JSON_NULL
} hsc_json_type_t;

/** One member. key and value are NUL-terminated copies in the object's
 * text; a string's value is decoded (it may hold NUL bytes from \u0000:
 * use len), a number's is its literal text, the others' "". */
typedef struct {
    const char *key;
    size_t key_len;
    hsc_json_type_t type;
    const char *value;
    size_t len;
} hsc_json_field_t;

/** A parsed object. It holds decoded copies of the input's strings (a
 * password, say): hsc_json_wipe() it after use. */
typedef struct {
    hsc_json_field_t fields[HSC_JSON_FIELDS_MAX];
    size_t n;
    char text[HSC_JSON_MAX + 1];
} hsc_json_object_t;

/**
 * Parse in (len bytes, need not be NUL-terminated): optional white space,
 * one object, optional white space, nothing else. HSC_OK with *o filled;
 * HSC_ETOOLONG when len > HSC_JSON_MAX or there are more than
 * HSC_JSON_FIELDS_MAX members; HSC_EMALFORMED for anything else that is not
 * such an object (bad syntax, a nested value, a duplicate key, ill-formed
 * UTF-8, a lone surrogate, a control character in a string, a byte-order
 * mark, trailing bytes). On a refusal o->n is 0.
 */
hsc_status_t hsc_json_parse(const char *in, size_t len,
                            hsc_json_object_t *o) HSC_MUST_CHECK;

/** The member called key (a C string), or NULL. */
const hsc_json_field_t *hsc_json_get(const hsc_json_object_t *o,
                                     const char *key);

/** Overwrite everything o holds. */
void hsc_json_wipe(hsc_json_object_t *o);

/** 1 when s (len bytes) is well-formed UTF-8 (no overlong forms, no
 * surrogates, nothing above U+10FFFF); NUL bytes are allowed. */
int hsc_json_utf8_valid(const char *s, size_t len);

/**
 * Write s (len bytes) as the inside of a JSON string (no quotes) into out,
 * NUL-terminated: '"' and '\\' escaped, control characters, DEL, '<', '>',
 * '&' and '\'' as \u00XX (safe inside HTML too), U+2028 and U+2029 as
 * \u2028 and \u2029, every byte that is not part of well-formed UTF-8 as
 * \ufffd. out needs HSC_JSON_ESCAPED_MAX(len) bytes. Returns the length
 * written. (hsc_audit.h's hsc_json_escape is the audit log's: it cuts at a
 * cap and leaves HTML's characters as they are.)
 */
#define HSC_JSON_ESCAPED_MAX(len) (6 * (len) + 1)
size_t hsc_json_escape_safe(const char *s, size_t len, char *out);

/** A writer of one object into a fixed buffer. A member that does not fit
 * sets err, and hsc_json_end then says so; nothing is ever written past
 * cap. */
typedef struct {
    char *buf;
    size_t cap, len;
    int members;
    int err;
} hsc_json_writer_t;

void hsc_json_begin(hsc_json_writer_t *w, char *buf, size_t cap);
void hsc_json_add_string(hsc_json_writer_t *w, const char *key, const char *s,
                         size_t len);
void hsc_json_add_bool(hsc_json_writer_t *w, const char *key, int b);
void hsc_json_add_int(hsc_json_writer_t *w, const char *key, int64_t v);
/** A member whose value is json (len bytes) as it is: an array of objects
 * made by other writers, "[{..},{..}]". WARNING: never text from a client
 * or a store, which would be written unescaped. */
void hsc_json_add_raw(hsc_json_writer_t *w, const char *key, const char *json,
                      size_t len);
/** An array of the strings of list (len bytes) between the separator sep
 * ("g1,g2" with ','; "pwd otp" with ' '); empty items are left out. */
void hsc_json_add_list(hsc_json_writer_t *w, const char *key, const char *list,
                       size_t len, char sep);
/** Close the object: HSC_OK with buf NUL-terminated and *len its length,
 * or HSC_ETOOLONG (buf then holds "" ). */
hsc_status_t hsc_json_end(hsc_json_writer_t *w, size_t *len) HSC_MUST_CHECK;

/** 1 when a Content-Type header value is application/json (any case),
 * alone or followed by ';' or a space (parameters such as charset). */
int hsc_json_content_type(const char *ct);

/**
 * 1 when an Accept header value prefers JSON to HTML: it names
 * application/json with a q above 0, at least the q of text/html (0 when
 * not named) and of any other type it names explicitly. Wildcards count
 * for neither. NULL (no Accept): 0.
 */
int hsc_json_accept_prefers(const char *accept);

#endif /* HSC_JSON_H */
