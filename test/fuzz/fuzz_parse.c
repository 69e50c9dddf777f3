/*
 * fuzz_parse.c: the values administrators write (hsc_parse.h): durations
 * (directives and hsc-admin's --skew and --max-age) and counts.
 *
 * Input: first byte picks allow_zero (bit 0) and a count bound (the byte
 * times 4000, so bounds over HSC_COUNT_MAX are tried); the rest, up to a
 * NUL, is the text. Properties (each aborts when violated):
 *   - a refused value leaves the output 0; an accepted duration lies in
 *     1 .. HSC_DURATION_MAX (0 only when allowed), a count in 0 .. the
 *     bound and HSC_COUNT_MAX;
 *   - an accepted text is digits and at most one unit letter at the end
 *     (duration), digits only (count);
 *   - a count's digits read as a duration without a unit give the same
 *     number when both are accepted.
 */
#include <string.h>

#include "hsc_fuzz.h"
#include "hsc_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s;
    int64_t d;
    int c, allow_zero, max;
    hsc_status_t sd, sc;
    size_t i, len;

    if (size < 1) {
        return 0;
    }
    allow_zero = data[0] & 1;
    max = (int)data[0] * 4000;
    s = malloc(size);
    if (s == NULL) {
        return 0;
    }
    memcpy(s, data + 1, size - 1);
    s[size - 1] = '\0';
    len = strlen(s);

    sd = hsc_parse_duration(s, allow_zero, &d);
    HSC_FUZZ_ASSERT(sd == HSC_OK || sd == HSC_EMALFORMED);
    if (sd != HSC_OK) {
        HSC_FUZZ_ASSERT(d == 0);
    }
    else {
        HSC_FUZZ_ASSERT(d >= (allow_zero ? 0 : 1) && d <= HSC_DURATION_MAX);
        HSC_FUZZ_ASSERT(len >= 1 && s[0] >= '0' && s[0] <= '9');
        for (i = 0; i + 1 < len; i++) {
            HSC_FUZZ_ASSERT(s[i] >= '0' && s[i] <= '9');
        }
        HSC_FUZZ_ASSERT((s[len - 1] >= '0' && s[len - 1] <= '9')
                        || strchr("smhd", s[len - 1]) != NULL);
    }

    sc = hsc_parse_count(s, max, &c);
    HSC_FUZZ_ASSERT(sc == HSC_OK || sc == HSC_EMALFORMED);
    if (sc != HSC_OK) {
        HSC_FUZZ_ASSERT(c == 0);
    }
    else {
        HSC_FUZZ_ASSERT(c >= 0 && c <= max && c <= HSC_COUNT_MAX);
        for (i = 0; i < len; i++) {
            HSC_FUZZ_ASSERT(s[i] >= '0' && s[i] <= '9');
        }
        if (sd == HSC_OK) {
            HSC_FUZZ_ASSERT(d == c);
        }
    }
    free(s);
    return 0;
}
