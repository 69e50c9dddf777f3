/*
 * fuzz_code.c: a second-factor code as typed into the code field, read as
 * a TOTP code (hsc_totp_code_parse, 6 to 8 digits by the first byte) and
 * as a recovery code (hsc_recovery_normalize, then hsc_recovery_hash).
 *
 * Properties (each aborts when violated):
 *   - TOTP: on HSC_OK the output is exactly `digits` ASCII digits, and
 *     they are the input's bytes with its spaces taken out; on a refusal
 *     the output is empty;
 *   - recovery: on HSC_OK the output is 12 characters of the alphabet
 *     (0-9, a-z without i, l, o, u), normalizing it again gives itself, it
 *     hashes, and the input without '-' and ' ' has 12 bytes; on a refusal
 *     the output is empty.
 */
#include <string.h>

#include "hsc_fuzz.h"
#include "hsc_recovery.h"
#include "hsc_totp.h"

#define ALPHABET "0123456789abcdefghjkmnpqrstvwxyz"

static void totp_code(const char *in, size_t len, unsigned digits)
{
    hsc_totp_params_t p;
    char out[16], stripped[64];
    size_t i, n = 0;

    hsc_totp_defaults(&p);
    p.digits = digits;
    if (hsc_totp_code_parse(&p, in, len, out) != HSC_OK) {
        HSC_FUZZ_ASSERT(out[0] == '\0');
        return;
    }
    HSC_FUZZ_ASSERT(strlen(out) == digits);
    for (i = 0; i < len; i++) {
        if (in[i] != ' ') {
            HSC_FUZZ_ASSERT(n < sizeof(stripped));
            stripped[n++] = in[i];
        }
    }
    HSC_FUZZ_ASSERT(n == digits && memcmp(stripped, out, n) == 0);
    HSC_FUZZ_ASSERT(strspn(out, "0123456789") == digits);
}

static void recovery_code(const char *in, size_t len)
{
    char out[HSC_RECOVERY_CHARS + 1], again[HSC_RECOVERY_CHARS + 1];
    unsigned char h[HSC_RECOVERY_HASH_LEN];
    size_t i, n = 0;

    if (hsc_recovery_normalize(in, len, out) != HSC_OK) {
        HSC_FUZZ_ASSERT(out[0] == '\0');
        return;
    }
    HSC_FUZZ_ASSERT(strlen(out) == HSC_RECOVERY_CHARS);
    HSC_FUZZ_ASSERT(strspn(out, ALPHABET) == HSC_RECOVERY_CHARS);
    HSC_FUZZ_ASSERT(hsc_recovery_normalize(out, HSC_RECOVERY_CHARS, again)
                    == HSC_OK);
    HSC_FUZZ_ASSERT(strcmp(out, again) == 0);
    HSC_FUZZ_ASSERT(hsc_recovery_hash("u", out, h) == HSC_OK);
    for (i = 0; i < len; i++) {
        n += in[i] != '-' && in[i] != ' ';
    }
    HSC_FUZZ_ASSERT(n == HSC_RECOVERY_CHARS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in;

    if (size < 1) {
        return 0;
    }
    in = (const char *)data + 1;
    totp_code(in, size - 1, 6 + data[0] % 3);
    recovery_code(in, size - 1);
    return 0;
}
