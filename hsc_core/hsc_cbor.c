/*
 * hsc_cbor.c: a definite-length CBOR reader (hsc_cbor.h). Every length is
 * checked against what is left before it is used, and nesting is bounded,
 * so any bytes are safe to give it (test/fuzz/fuzz_webauthn.c).
 */
#include <string.h>

#include "hsc_cbor.h"

hsc_status_t hsc_cbor_head(const unsigned char *p, size_t len,
                           hsc_cbor_head_t *h)
{
    unsigned info;
    size_t n, i;
    uint64_t v = 0;

    if (len == 0) {
        return HSC_EMALFORMED;
    }
    h->major = p[0] >> 5;
    info = p[0] & 0x1f;
    h->at = NULL;
    if (h->major == 6) {
        return HSC_EMALFORMED; /* tags: nothing WebAuthn sends */
    }
    if (info < 24) {
        v = info;
        n = 0;
    }
    else if (info <= 27) {
        n = (size_t)1 << (info - 24);
        if (len < 1 + n) {
            return HSC_EMALFORMED;
        }
        for (i = 0; i < n; i++) {
            v = (v << 8) | p[1 + i];
        }
        /* Shortest form only, as CTAP2's canonical CBOR requires. */
        if ((n == 1 && v < 24) || (n == 2 && v <= 0xff)
            || (n == 4 && v <= 0xffff) || (n == 8 && v <= 0xffffffffu)) {
            return HSC_EMALFORMED;
        }
    }
    else {
        return HSC_EMALFORMED; /* reserved, or indefinite length */
    }
    if (h->major == HSC_CBOR_SIMPLE && (n != 0 || v < 20 || v > 22)) {
        return HSC_EMALFORMED; /* floats, undefined, other simples */
    }
    h->arg = v;
    h->head_len = 1 + n;
    if (h->major == HSC_CBOR_BYTES || h->major == HSC_CBOR_TEXT) {
        if (v > len - h->head_len) {
            return HSC_EMALFORMED;
        }
        h->at = p + h->head_len;
    }
    return HSC_OK;
}

static hsc_status_t skip(const unsigned char *p, size_t len, int depth,
                         size_t *item_len)
{
    hsc_cbor_head_t h;
    size_t off, sub;
    uint64_t count, i;

    if (depth > HSC_CBOR_DEPTH_MAX || hsc_cbor_head(p, len, &h) != HSC_OK) {
        return HSC_EMALFORMED;
    }
    off = h.head_len;
    switch (h.major) {
    case HSC_CBOR_BYTES:
    case HSC_CBOR_TEXT: off += (size_t)h.arg; break;
    case HSC_CBOR_ARRAY:
    case HSC_CBOR_MAP:
        /* Each member takes a byte at least: a count above what is left
         * is refused before any loop. */
        count = h.major == HSC_CBOR_MAP ? h.arg * 2 : h.arg;
        if (h.arg > len || count > len - off) {
            return HSC_EMALFORMED;
        }
        for (i = 0; i < count; i++) {
            if (skip(p + off, len - off, depth + 1, &sub) != HSC_OK) {
                return HSC_EMALFORMED;
            }
            off += sub;
        }
        break;
    default: break;
    }
    *item_len = off;
    return HSC_OK;
}

hsc_status_t hsc_cbor_skip(const unsigned char *p, size_t len, size_t *item_len)
{
    return skip(p, len, 0, item_len);
}

/* 1 when the key item at p is the key asked for. */
static int key_is(const hsc_cbor_head_t *k, const char *key_text,
                  int64_t key_int)
{
    if (key_text != NULL) {
        return k->major == HSC_CBOR_TEXT && k->arg == strlen(key_text)
               && memcmp(k->at, key_text, (size_t)k->arg) == 0;
    }
    if (key_int >= 0) {
        return k->major == HSC_CBOR_UINT && k->arg == (uint64_t)key_int;
    }
    return k->major == HSC_CBOR_NINT && k->arg == (uint64_t)(-1 - key_int);
}

hsc_status_t hsc_cbor_map_get(const unsigned char *p, size_t len,
                              const char *key_text, int64_t key_int,
                              const unsigned char **v, size_t *v_len)
{
    hsc_cbor_head_t h, k;
    size_t off, klen, vlen, whole;
    uint64_t i;
    int found = 0;

    if (hsc_cbor_skip(p, len, &whole) != HSC_OK
        || hsc_cbor_head(p, whole, &h) != HSC_OK || h.major != HSC_CBOR_MAP) {
        return HSC_EMALFORMED;
    }
    off = h.head_len;
    for (i = 0; i < h.arg; i++) {
        /* Well-formed (checked above): these cannot fail. */
        if (hsc_cbor_skip(p + off, whole - off, &klen) != HSC_OK
            || hsc_cbor_head(p + off, klen, &k) != HSC_OK
            || hsc_cbor_skip(p + off + klen, whole - off - klen, &vlen)
                   != HSC_OK) {
            return HSC_EMALFORMED;
        }
        if (key_is(&k, key_text, key_int)) {
            if (found) {
                return HSC_EMALFORMED; /* a key twice: which one counts? */
            }
            found = 1;
            *v = p + off + klen;
            *v_len = vlen;
        }
        off += klen + vlen;
    }
    return found ? HSC_OK : HSC_ENOUSER;
}
