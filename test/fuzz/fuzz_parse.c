/*
 * fuzz_parse.c: the values administrators write (hsc_parse.h): durations
 * (directives and hsc-admin's --skew and --max-age), milliseconds, counts,
 * sizes, keywords and the directive value validators.
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
 *     number when both are accepted;
 *   - milliseconds (range 0 .. the bound, in seconds) are digits and one
 *     of the units ms, s, m, h, d or none, in range, and 1000 times the
 *     duration when that reads the text too; a size is digits only, in
 *     range, the count when both are accepted;
 *   - a keyword accepted is its name in another case;
 *   - no validator accepts a control byte where the value ends up in a
 *     header or the MAC input (name, domain, path, scope, URL), a cookie
 *     name never holds ';', '=' or a space, a path never ';'.
 */
#include <string.h>
#include <strings.h>

#include "hsc_fuzz.h"
#include "hsc_parse.h"

/* hsc_parse_millis and hsc_parse_size; d and c: the duration and count
 * the same text read as, or -1. */
static void check_millis_and_size(const char *s, int max, int64_t d, int c)
{
    int64_t ms, sz, hi = (int64_t)max * 1000;
    hsc_status_t st;
    const char *p = s;

    st = hsc_parse_millis(s, 0, hi, &ms);
    HSC_FUZZ_ASSERT(st == HSC_OK || st == HSC_EMALFORMED);
    if (st != HSC_OK) {
        HSC_FUZZ_ASSERT(ms == 0);
    }
    else {
        HSC_FUZZ_ASSERT(ms >= 0 && ms <= hi && ms <= HSC_MILLIS_MAX);
        HSC_FUZZ_ASSERT(*p >= '0' && *p <= '9');
        while (*p >= '0' && *p <= '9') {
            ++p;
        }
        HSC_FUZZ_ASSERT(!strcmp(p, "") || !strcmp(p, "ms") || !strcmp(p, "s")
                        || !strcmp(p, "m") || !strcmp(p, "h")
                        || !strcmp(p, "d"));
        if (d >= 0) {
            HSC_FUZZ_ASSERT(ms == d * 1000);
        }
    }
    st = hsc_parse_size(s, 0, max, &sz);
    HSC_FUZZ_ASSERT(st == HSC_OK || st == HSC_EMALFORMED);
    if (st != HSC_OK) {
        HSC_FUZZ_ASSERT(sz == 0);
    }
    else {
        HSC_FUZZ_ASSERT(sz >= 0 && sz <= max);
        HSC_FUZZ_ASSERT(strspn(s, "0123456789") == strlen(s) && *s != '\0');
        if (c >= 0) {
            HSC_FUZZ_ASSERT(sz == c);
        }
    }
}

/* 1 when s holds a byte below 0x20 or 0x7f. */
static int has_control(const char *s)
{
    for (; *s; ++s) {
        if ((unsigned char)*s < 0x20 || *s == 0x7f) {
            return 1;
        }
    }
    return 0;
}

static void check_keywords_and_values(const char *s)
{
    hsc_cookie_samesite_t ss;
    hsc_unauth_mode_t ua;
    hsc_throttle_down_t td;

    if (hsc_parse_samesite(s, &ss) == HSC_OK) {
        HSC_FUZZ_ASSERT(!strcasecmp(s, hsc_samesite_name(ss)));
    }
    if (hsc_parse_unauth(s, &ua) == HSC_OK) {
        HSC_FUZZ_ASSERT(!strcasecmp(s, "auto") || !strcasecmp(s, "redirect")
                        || !strcmp(s, "401"));
    }
    if (hsc_parse_throttle_down(s, &td) == HSC_OK) {
        HSC_FUZZ_ASSERT(!strcasecmp(s, td == HSC_THROTTLE_DOWN_REFUSE
                                           ? "refuse"
                                           : "allow"));
    }
    if (hsc_cookie_name_valid(s)) {
        HSC_FUZZ_ASSERT(*s != '\0' && !has_control(s)
                        && strpbrk(s, "; =,\"") == NULL);
    }
    if (hsc_cookie_domain_valid(s)) {
        HSC_FUZZ_ASSERT(*s != '\0' && !has_control(s)
                        && strpbrk(s, "; ") == NULL);
    }
    if (hsc_cookie_path_valid(s)) {
        HSC_FUZZ_ASSERT(s[0] == '/' && !has_control(s)
                        && strpbrk(s, "; ") == NULL);
    }
    if (hsc_scope_valid(s)) {
        HSC_FUZZ_ASSERT(!has_control(s) && strchr(s, '\n') == NULL);
    }
    if (hsc_site_name_valid(s)) {
        HSC_FUZZ_ASSERT(!has_control(s));
    }
    if (hsc_url_valid(s)) {
        HSC_FUZZ_ASSERT(*s != '\0' && hsc_printable_nospace(s)
                        && !has_control(s) && strchr(s, ' ') == NULL);
    }
}

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
    check_millis_and_size(s, max, sd == HSC_OK ? d : -1, sc == HSC_OK ? c : -1);
    check_keywords_and_values(s);
    free(s);
    return 0;
}
