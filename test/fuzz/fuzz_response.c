/*
 * fuzz_response.c: the response headers (hsc_response.h): the Set-Cookie
 * line and the Cache-Control merge.
 *
 * Input: first byte: bit 0 Secure, bits 1-2 SameSite, bit 3 a Domain,
 * bit 4 cookie_set; the rest is split at '\n' into value, name, path,
 * domain and a Cache-Control list (missing parts: "hsc", "/", NULL, "").
 * Properties (each aborts when violated):
 *   - a Set-Cookie line is written only from valid inputs, and then it
 *     holds no CR, LF or NUL, exactly as many "; " as the attributes it
 *     has (so neither the value nor an attribute injected one), starts
 *     with name=value and ends with its SameSite; a refused one is "";
 *   - hsc_cookie_attrs_conflict is NULL or one of its three texts, and
 *     NULL for a name without a prefix and Secure;
 *   - the Cache-Control merge fits in 2 * strlen(cc) + 32 bytes, never
 *     keeps a leading "public", and says "private" or "no-store" (and
 *     "no-store" when the cookie is set).
 */
#include <string.h>
#include <strings.h>

#include "hsc_fuzz.h"
#include "hsc_response.h"

/* The next '\n'-separated part of *p, or NULL at the end. */
static char *next_part(char **p)
{
    char *s = *p, *nl;

    if (s == NULL) {
        return NULL;
    }
    nl = strchr(s, '\n');
    if (nl != NULL) {
        *nl = '\0';
        *p = nl + 1;
    }
    else {
        *p = NULL;
    }
    return s;
}

static size_t count_sep(const char *s)
{
    size_t n = 0;

    for (; (s = strstr(s, "; ")) != NULL; s += 2) {
        n++;
    }
    return n;
}

static void check_cookie(const hsc_cookie_attrs_t *a, const char *value)
{
    char out[8192], head[8192];
    const char *c = hsc_cookie_attrs_conflict(a);
    size_t n, want;

    HSC_FUZZ_ASSERT(c == NULL || !strncmp(c, "a __Host- ", 10)
                    || !strncmp(c, "a __Secure- ", 12)
                    || !strncmp(c, "HSCCookieSameSite None", 22));
    if (a->secure && strncmp(a->name, "__", 2) != 0) {
        HSC_FUZZ_ASSERT(c == NULL);
    }
    n = hsc_set_cookie_line(a, value, 60, 1700000000, out, sizeof(out));
    HSC_FUZZ_ASSERT(n == strlen(out));
    if (n == 0) {
        HSC_FUZZ_ASSERT(out[0] == '\0');
        return;
    }
    HSC_FUZZ_ASSERT(hsc_cookie_name_valid(a->name));
    HSC_FUZZ_ASSERT(hsc_cookie_path_valid(a->path));
    HSC_FUZZ_ASSERT(a->domain == NULL || hsc_cookie_domain_valid(a->domain));
    HSC_FUZZ_ASSERT(strpbrk(out, "\r\n") == NULL);
    /* Path, Max-Age, Expires, HttpOnly, SameSite [, Domain, Secure] */
    want = 5 + (a->domain != NULL) + (a->secure != 0);
    HSC_FUZZ_ASSERT(count_sep(out) == want);
    snprintf(head, sizeof(head), "%s=%s; Path=%s; ", a->name, value, a->path);
    HSC_FUZZ_ASSERT(!strncmp(out, head, strlen(head)));
    snprintf(head, sizeof(head), "; SameSite=%s",
             hsc_samesite_name(a->samesite));
    HSC_FUZZ_ASSERT(n > strlen(head) && !strcmp(out + n - strlen(head), head));
}

/* Cache-Control directive names are case-insensitive (RFC 9111 5.2): a
 * kept "no-Store" is a no-store. */
static int has_nocase(const char *s, const char *word)
{
    size_t n = strlen(word);

    for (; *s; ++s) {
        if (!strncasecmp(s, word, n)) {
            return 1;
        }
    }
    return 0;
}

static void check_cc(const char *cc, int cookie_set)
{
    size_t cap = 2 * strlen(cc) + 32, n;
    char *out = malloc(cap);

    if (out == NULL) {
        return;
    }
    n = hsc_cc_private(cc, cookie_set, out, cap);
    HSC_FUZZ_ASSERT(n > 0 && n == strlen(out));
    HSC_FUZZ_ASSERT(strcasecmp(out, "public") != 0
                    && strncasecmp(out, "public,", 7) != 0);
    HSC_FUZZ_ASSERT(has_nocase(out, "private") || has_nocase(out, "no-store"));
    if (cookie_set) {
        HSC_FUZZ_ASSERT(has_nocase(out, "no-store"));
    }
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf, *p, *value, *name, *path, *domain, *cc;
    hsc_cookie_attrs_t a;

    if (size < 1 || size > 4096) {
        return 0;
    }
    buf = malloc(size);
    if (buf == NULL) {
        return 0;
    }
    memcpy(buf, data + 1, size - 1);
    buf[size - 1] = '\0';
    p = buf;
    value = next_part(&p);
    name = next_part(&p);
    path = next_part(&p);
    domain = next_part(&p);
    cc = next_part(&p);

    a.name = name != NULL ? name : "hsc";
    a.path = path != NULL ? path : "/";
    a.domain = (data[0] & 8) && domain != NULL ? domain : NULL;
    a.secure = data[0] & 1;
    a.samesite = (hsc_cookie_samesite_t)((data[0] >> 1) & 3);
    if (a.samesite > HSC_SITE_NONE) {
        a.samesite = HSC_SITE_LAX;
    }
    check_cookie(&a, value);
    check_cc(cc != NULL ? cc : "", (data[0] >> 4) & 1);
    free(buf);
    return 0;
}
