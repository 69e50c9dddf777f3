/*
 * hsc_cbor.h: the little CBOR (RFC 8949) WebAuthn needs: the attestation
 * object, the attested credential's COSE key, the extensions of
 * authenticator data. A reader of one item at a time, definite lengths
 * only (what CTAP2's canonical CBOR allows); indefinite lengths, tags,
 * floats, simple values other than false/true/null, and nesting deeper
 * than HSC_CBOR_DEPTH_MAX are refused. No allocation: values point into
 * the input.
 */
#ifndef HSC_CBOR_H
#define HSC_CBOR_H

#include <stddef.h>
#include <stdint.h>

#include "hsc_util.h"

#define HSC_CBOR_DEPTH_MAX 8

/* Major types. */
enum {
    HSC_CBOR_UINT = 0,
    HSC_CBOR_NINT = 1,
    HSC_CBOR_BYTES = 2,
    HSC_CBOR_TEXT = 3,
    HSC_CBOR_ARRAY = 4,
    HSC_CBOR_MAP = 5,
    HSC_CBOR_SIMPLE = 7 /* false, true, null */
};

/* One item's head. */
typedef struct {
    int major;
    uint64_t arg;            /* the value, a length or a count; for NINT,
                              * the value is -1 - arg; SIMPLE: 20, 21, 22 */
    const unsigned char *at; /* BYTES, TEXT: the content (arg bytes) */
    size_t head_len;         /* bytes of the head */
} hsc_cbor_head_t;

/* The head of the item at p (len bytes left): HSC_OK, or HSC_EMALFORMED
 * (truncated, a reserved or indefinite length, a tag, a float, a string
 * longer than what is left, a non-shortest argument). */
hsc_status_t hsc_cbor_head(const unsigned char *p, size_t len,
                           hsc_cbor_head_t *h) HSC_MUST_CHECK;

/* The length of the whole well-formed item at p, nested items included:
 * HSC_OK and *item_len, or HSC_EMALFORMED (as above, or too deep). */
hsc_status_t hsc_cbor_skip(const unsigned char *p, size_t len,
                           size_t *item_len) HSC_MUST_CHECK;

/* A map's member by key: the map at p (its whole item), a text key (when
 * key_text is not NULL) or an integer key (-2^31..2^31-1 otherwise).
 * HSC_OK and the value's item (*v, *v_len); HSC_ENOUSER when the map has
 * no such key; HSC_EMALFORMED when p is not a map or a key appears
 * twice. */
hsc_status_t hsc_cbor_map_get(const unsigned char *p, size_t len,
                              const char *key_text, int64_t key_int,
                              const unsigned char **v,
                              size_t *v_len) HSC_MUST_CHECK;

#endif /* HSC_CBOR_H */
