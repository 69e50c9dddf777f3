/*
 * fuzz_b64.c: hsc_b64url_decode() and hsc_base32_decode() (TOTP secrets
 * as typed or pasted) on untrusted text.
 *
 * Properties (each aborts when violated):
 *   - *outlen is 0 on every refusal, and never over the capacity given;
 *   - accepted input is canonical: encode(decode(x)) == x byte for byte, and
 *     its length is HSC_B64URL_LEN of the decoded length;
 *   - decoding into a buffer one byte too small is HSC_ETOOLONG and writes
 *     nothing past it;
 *   - the input read as bytes round-trips the other way:
 *     decode(encode(x)) == x.
 *   - base32: a refusal reports nothing; what decodes re-encodes to the
 *     input's letters (upper case, without spaces, '-' and '='); any bytes
 *     encode to base32 that decodes back.
 */
#include <string.h>

#include "hsc_fuzz.h"
#include "hsc_b64.h"
#include "hsc_totp.h"

/* Bounds the work per input; longer inputs are cut. */
#define FUZZ_B64_MAX 8192

/* out has room for size * 5 / 8 + 1 bytes, enc and back for size * 8 / 5
 * + 8 characters: what base32 of the input, either way, needs. */
static void base32_properties(const char *in, size_t size, unsigned char *out,
                              size_t cap, char *enc, unsigned char *back)
{
    size_t outlen = 12345, n, i, k = 0;
    hsc_status_t st;

    st = hsc_base32_decode(in, size, out, cap, &outlen);
    if (st != HSC_OK) {
        HSC_FUZZ_ASSERT(st == HSC_EMALFORMED || st == HSC_ETOOLONG);
        HSC_FUZZ_ASSERT(outlen == 0);
    }
    else {
        n = hsc_base32_encode(out, outlen, enc);
        for (i = 0; i < size; i++) {
            char ch = in[i];

            if (ch == ' ' || ch == '-' || ch == '=') {
                continue;
            }
            if (ch >= 'a' && ch <= 'z') {
                ch = (char)(ch - 'a' + 'A');
            }
            HSC_FUZZ_ASSERT(k < n && enc[k] == ch);
            k++;
        }
        HSC_FUZZ_ASSERT(k == n);
    }
    /* Bytes to base32 and back (at most cap of them). */
    n = size < cap ? size : cap;
    i = hsc_base32_encode((const unsigned char *)in, n, enc);
    HSC_FUZZ_ASSERT(i == HSC_BASE32_LEN(n));
    st = hsc_base32_decode(enc, i, back, n, &outlen);
    HSC_FUZZ_ASSERT(st == HSC_OK && outlen == n);
    HSC_FUZZ_ASSERT(n == 0 || memcmp(back, in, n) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data;
    unsigned char *out = NULL, *small = NULL, *back = NULL;
    char *enc = NULL;
    size_t cap, outlen = 12345, n, enclen;
    hsc_status_t st;

    if (size > FUZZ_B64_MAX) {
        size = FUZZ_B64_MAX;
    }
    /* Exactly what a decode of size characters can need (3 per 4). */
    cap = (size * 3) / 4;
    out = malloc(cap + 1);
    enc = malloc(2 * size + 16); /* base64url or base32 of either side */
    back = malloc(size + 1);
    if (out == NULL || enc == NULL || back == NULL) {
        goto cleanup;
    }

    st = hsc_b64url_decode(in, size, out, cap, &outlen);
    if (st != HSC_OK) {
        HSC_FUZZ_ASSERT(st == HSC_EMALFORMED || st == HSC_ETOOLONG);
        HSC_FUZZ_ASSERT(outlen == 0);
    }
    else {
        HSC_FUZZ_ASSERT(outlen <= cap);
        HSC_FUZZ_ASSERT(HSC_B64URL_LEN(outlen) == size);
        n = hsc_b64url_encode(out, outlen, enc);
        HSC_FUZZ_ASSERT(n == size);
        HSC_FUZZ_ASSERT(enc[n] == '\0');
        HSC_FUZZ_ASSERT(memcmp(enc, in, size) == 0);

        /* One byte short of room: refused, and nothing written past it. */
        if (outlen > 0) {
            size_t slen = 999;

            small = malloc(outlen - 1 ? outlen - 1 : 1);
            if (small != NULL) {
                st = hsc_b64url_decode(in, size, small, outlen - 1, &slen);
                HSC_FUZZ_ASSERT(st == HSC_ETOOLONG);
                HSC_FUZZ_ASSERT(slen == 0);
            }
        }
    }

    /* The other direction: any bytes encode to text that decodes back. */
    enclen = hsc_b64url_encode(data, size, enc);
    HSC_FUZZ_ASSERT(enclen == HSC_B64URL_LEN(size));
    HSC_FUZZ_ASSERT(enc[enclen] == '\0');
    st = hsc_b64url_decode(enc, enclen, back, size, &n);
    HSC_FUZZ_ASSERT(st == HSC_OK);
    HSC_FUZZ_ASSERT(n == size);
    HSC_FUZZ_ASSERT(size == 0 || memcmp(back, data, size) == 0);

    base32_properties(in, size, out, cap + 1, enc, back);

cleanup:
    free(small);
    free(back);
    free(enc);
    free(out);
    return 0;
}
