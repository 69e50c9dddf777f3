/*
 * mod_hsc_cachectl.c: responses to requests that AuthType HSC admitted are
 * private to their user.
 *
 * A shared cache in front (mod_cache, a CDN, a corporate proxy) that
 * honours Expires or max-age would otherwise store a user's page and hand
 * it to strangers, and worse, a response carrying a refreshed Set-Cookie
 * (with x_n), which makes the stranger that user. mod_cache answers from
 * its cache in a quick handler, before any access check, so the only
 * defence is never to let such a response be stored:
 *
 *   - every response to an admitted request: Cache-Control "private"
 *     merged into what the content or mod_expires set (never weakening a
 *     "no-store"; "public" and "s-maxage" dropped), and Vary: Cookie;
 *   - a response that sets or refreshes the cookie: also "no-store".
 *
 * The access checker marks the request (hsc_cachectl_mark); an output
 * filter of type CONTENT_SET, after mod_expires (CONTENT_SET - 2) and
 * mod_headers, before mod_cache's CACHE_SAVE (CONTENT_SET + 1), rewrites
 * the headers once, when the first data passes. The merge itself is
 * hsc_cc_private() in hsc_core/hsc_response.c.
 */
#include <string.h>

#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "util_filter.h"

#include "mod_hsc_log.h"
#include "mod_hsc_cachectl.h"
#include "hsc_response.h"

/* The note on the main request: "private" or "cookie" (also no-store). */
#define HSC_PRIVATE_NOTE "hsc-private"
/* The note on a main request whose handler runs: its output may leave. */
#define HSC_BEGUN_NOTE "hsc-output-begun"

static ap_filter_rec_t *private_filter;

/* Cache-Control of both header tables, joined, as one list (or NULL). */
static const char *cache_control_of(request_rec *r)
{
    const char *a = apr_table_get(r->headers_out, "Cache-Control");
    const char *b = apr_table_get(r->err_headers_out, "Cache-Control");

    if (a && b) {
        return apr_pstrcat(r->pool, a, ", ", b, NULL);
    }
    return a ? a : b;
}

/* Rewrite r's headers: private (and no-store when cookie_set), Vary. */
static void make_private(request_rec *r, int cookie_set)
{
    const char *cc = cache_control_of(r), *vary;
    size_t cap = (cc ? strlen(cc) : 0) + 32;
    char *out = apr_palloc(r->pool, cap);

    if (hsc_cc_private(cc, cookie_set, out, cap) == 0) {
        /* cannot happen (cap always suffices): the strictest answer */
        apr_cpystrn(out, "private, no-store", cap);
    }
    apr_table_unset(r->headers_out, "Cache-Control");
    apr_table_setn(r->err_headers_out, "Cache-Control", out);
    /* The page depends on the cookie: tell any cache keying by URL. */
    vary = apr_table_get(r->headers_out, "Vary");
    if (vary == NULL
        || (!ap_strcasestr(vary, "cookie") && strchr(vary, '*') == NULL)) {
        apr_table_mergen(r->headers_out, "Vary", "Cookie");
    }
}

static apr_status_t private_out_filter(ap_filter_t *f, apr_bucket_brigade *bb)
{
    const char *mark = f->ctx;

    make_private(f->r, mark != NULL && !strcmp(mark, "cookie"));
    ap_remove_output_filter(f);
    return ap_pass_brigade(f->next, bb);
}

/* The mark of r or of an earlier request of its internal redirects. */
static const char *mark_of(request_rec *r)
{
    const char *best = NULL;

    for (; r != NULL; r = r->prev) {
        const char *m = apr_table_get(r->notes, HSC_PRIVATE_NOTE);
        if (m != NULL && (best == NULL || !strcmp(m, "cookie"))) {
            best = m;
        }
    }
    return best;
}

/* The main request of r's subrequests. */
static request_rec *top_of(request_rec *r)
{
    while (r->main != NULL) {
        r = r->main;
    }
    return r;
}

/* insert_filter and insert_error_filter: the filter for marked requests. */
static void private_insert(request_rec *r)
{
    const char *mark;

    if (r->main != NULL) {
        return;
    }
    apr_table_setn(r->notes, HSC_BEGUN_NOTE, "1");
    if ((mark = mark_of(r)) == NULL) {
        return;
    }
    ap_add_output_filter_handle(private_filter, (void *)mark, r, r->connection);
}

void hsc_cachectl_mark(request_rec *r, int cookie_set)
{
    request_rec *top = top_of(r);

    if (cookie_set || apr_table_get(top->notes, HSC_PRIVATE_NOTE) == NULL) {
        apr_table_setn(top->notes, HSC_PRIVATE_NOTE,
                       cookie_set ? "cookie" : "private");
    }
    /* A subrequest (an SSI include of a protected page) runs after the
     * main request's filters were inserted: mark its headers directly,
     * which counts as long as they have not been sent. */
    if (top != r) {
        make_private(top, cookie_set);
    }
}

/*
 * An SSI include runs inside the including page's handler, whose first
 * bytes, headers included, may already have passed mod_cache's CACHE_SAVE
 * (which decides once, at the first data) and the network: marking that
 * page private now comes too late. A lookup (DirectoryIndex, MultiViews)
 * runs before the page's handler, while marking still counts.
 */
request_rec *hsc_cachectl_too_late(request_rec *r)
{
    request_rec *top = top_of(r);

    if (top == r || mark_of(top) != NULL
        || apr_table_get(top->notes, HSC_BEGUN_NOTE) == NULL) {
        return NULL;
    }
    return top;
}

void hsc_cachectl_register_hooks(apr_pool_t *p)
{
    (void)p;
    private_filter = ap_register_output_filter("HSC_PRIVATE",
                                               private_out_filter, NULL,
                                               AP_FTYPE_CONTENT_SET);
    /* Really last: after mod_headers' filter of the same type. */
    ap_hook_insert_filter(private_insert, NULL, NULL, APR_HOOK_REALLY_LAST);
    ap_hook_insert_error_filter(private_insert, NULL, NULL,
                                APR_HOOK_REALLY_LAST);
}
