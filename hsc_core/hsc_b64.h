/*
 * hsc_b64.h: canonical base64url without padding (RFC 4648 section 5).
 */
#ifndef HSC_B64_H
#define HSC_B64_H

#include "hsc_util.h"

/** Characters needed to encode len bytes, without the NUL. */
#define HSC_B64URL_LEN(len) ((((len)*4) + 2) / 3)

/**
 * Encode len bytes into out, which must hold HSC_B64URL_LEN(len) + 1 bytes.
 * Writes no padding and a terminating NUL. Returns the encoded length.
 */
size_t hsc_b64url_encode(const void *in, size_t len, char *out);

/**
 * Decode exactly len characters of canonical base64url: only [A-Za-z0-9_-],
 * no padding, a length that is not 1 mod 4, and zero unused bits in the last
 * character. Anything else is HSC_EMALFORMED; a result larger than outcap
 * is HSC_ETOOLONG. *outlen is always assigned (0 on failure).
 */
hsc_status_t hsc_b64url_decode(const char *in, size_t len, unsigned char *out,
                               size_t outcap, size_t *outlen) HSC_MUST_CHECK;

#endif /* HSC_B64_H */
