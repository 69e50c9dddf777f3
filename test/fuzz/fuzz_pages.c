/*
 * fuzz_pages.c: the pages (hsc_pages.h) with untrusted text in every field
 * a request or the configuration fills: the username kept after a failure,
 * the return target, the user on the logout page, the site name.
 *
 * Properties (each aborts when violated):
 *   - hsc_page_escape() output holds no < > " ' and no '&' that does not
 *     start one of its five entities; unescaped, it is the input again;
 *   - a page made with the input has exactly as many < > " ' bytes as the
 *     same page made with "x" in those fields: the input adds no markup
 *     and cannot leave an attribute;
 *   - hsc_page_wait_words() never fails and never prints a negative.
 */
#include <string.h>

#include "apr_general.h"
#include "apr_strings.h"

#include "hsc_fuzz.h"
#include "hsc_pages.h"

static size_t count(const char *s, const char *set)
{
    size_t n = 0;

    for (; *s; ++s) {
        n += strchr(set, *s) != NULL;
    }
    return n;
}

/* The five entities hsc_page_escape writes, and what they stand for. */
static const struct {
    const char *ent;
    char c;
} ents[] = {{"&amp;", '&'},
            {"&lt;", '<'},
            {"&gt;", '>'},
            {"&quot;", '"'},
            {"&#x27;", '\''}};

static void check_escape(apr_pool_t *p, const char *in)
{
    const char *e = hsc_page_escape(p, in), *q = e, *r = in;
    size_t i;

    HSC_FUZZ_ASSERT(count(e, "<>\"'") == 0);
    while (*q) {
        if (*q != '&') {
            HSC_FUZZ_ASSERT(*q == *r);
            ++q;
            ++r;
            continue;
        }
        for (i = 0; i < sizeof(ents) / sizeof(ents[0]); ++i) {
            if (!strncmp(q, ents[i].ent, strlen(ents[i].ent))) {
                break;
            }
        }
        HSC_FUZZ_ASSERT(i < sizeof(ents) / sizeof(ents[0]));
        HSC_FUZZ_ASSERT(*r == ents[i].c);
        q += strlen(ents[i].ent);
        ++r;
    }
    HSC_FUZZ_ASSERT(*r == '\0');
}

static void same_markup(const char *a, const char *b)
{
    HSC_FUZZ_ASSERT(count(a, "<") == count(b, "<"));
    HSC_FUZZ_ASSERT(count(a, ">") == count(b, ">"));
    HSC_FUZZ_ASSERT(count(a, "\"") == count(b, "\""));
    HSC_FUZZ_ASSERT(count(a, "'") == count(b, "'"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int inited;
    apr_pool_t *p;
    char *s;
    hsc_page_conf_t c = {NULL, NULL, 1, 0}, x = {"x", NULL, 1, 0};
    uint64_t secs = 0;
    size_t i;

    if (!inited) {
        apr_initialize();
        inited = 1;
    }
    if (apr_pool_create(&p, NULL) != APR_SUCCESS) {
        return 0;
    }
    s = apr_pstrmemdup(p, (const char *)data, size); /* to a NUL */
    check_escape(p, s);
    c.site_name = s;
    x.site_name = *s ? "x" : ""; /* an empty site name shows none */
    same_markup(hsc_page_login(p, &c, s, s, "e"),
                hsc_page_login(p, &x, "x", "x", "e"));
    same_markup(hsc_page_logout(p, &c, s, s, s),
                hsc_page_logout(p, &x, "x", "x", "x"));
    same_markup(hsc_page_logged_out(p, &c, 1, s, s),
                hsc_page_logged_out(p, &x, 1, "x", "x"));
    same_markup(hsc_page_throttled(p, &c, 1, s),
                hsc_page_throttled(p, &x, 1, "x"));
    for (i = 0; i < size && i < 8; ++i) {
        secs = (secs << 8) | data[i];
    }
    HSC_FUZZ_ASSERT(strchr(hsc_page_wait_words(p, (int64_t)secs), '-') == NULL);
    apr_pool_destroy(p);
    return 0;
}
