/*
 * mod_hsc_form.c: what every page of mod_hsc (login, logout, account)
 * does around its forms: the headers of a page, sending the HTML that
 * hsc_core/hsc_pages.c made, and the checks before a POST is believed
 * (GET and POST only, same site, a small urlencoded body).
 */
#include <string.h>

#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"

#include "mod_hsc_form.h"
#include "mod_hsc_log.h"
#include "hsc_authz.h"
#include "hsc_http.h"
#include "hsc_pages.h"

/* Largest form body read; anything bigger is a 413. */
#define HSC_FORM_BODY_MAX 8192

/* The CSP of a page: the built-in stylesheet by its hash (and
 * HSCLoginStylesheet, if set); forms may lead to the configured URLs'
 * origins and to ret's (an absolute return target, or NULL). */
static void set_csp(request_rec *r, const hsc_dir_conf_t *d, const char *ret)
{
    const char *const urls[] = {d->success_url, d->logout_url, d->failure_url,
                                ret};
    const char *targets[5];
    size_t i, n = 0;

    /* NULL ends the list: the unset ones are left out, not ending it. */
    for (i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
        if (urls[i] != NULL) {
            targets[n++] = urls[i];
        }
    }
    targets[n] = NULL;
    apr_table_setn(r->err_headers_out, "Content-Security-Policy",
                   apr_pstrcat(r->pool,
                               hsc_page_csp(r->pool, d->stylesheet, targets),
                               d->passkeys ? hsc_page_script_csp() : "", NULL));
}

/* Headers every page carries. */
void hsc_form_headers(request_rec *r, const hsc_dir_conf_t *d)
{
    apr_table_t *h = r->err_headers_out;

    apr_table_setn(h, "Cache-Control", "no-store");
    apr_table_setn(h, "X-Frame-Options", "DENY");
    set_csp(r, d, NULL);
    apr_table_setn(h, "Referrer-Policy", "same-origin");
}

void hsc_form_csp_return(request_rec *r, const hsc_dir_conf_t *d,
                         const char *ret)
{
    const apr_array_header_t *h = d->return_hosts;

    /* Checked here again: only a target on an HSCReturnHosts host, in its
     * canonical spelling, may name an origin in the header. */
    if (ret != NULL && ret[0] != '/' && h != NULL
        && hsc_return_url_allowed(ret, strlen(ret),
                                  (const char *const *)h->elts,
                                  (size_t)h->nelts)) {
        set_csp(r, d, ret);
    }
}

/* Send a page made by hsc_core/hsc_pages.c. */
int hsc_form_send(request_rec *r, int status, const char *html)
{
    r->status = status;
    ap_set_content_type(r, "text/html; charset=utf-8");
    ap_rputs(html, r);
    return OK;
}

hsc_page_conf_t hsc_form_page_conf(const hsc_dir_conf_t *d)
{
    hsc_page_conf_t c;

    c.site_name = d->site_name;
    c.stylesheet = d->stylesheet;
    c.remember = d->remember > 0;
    c.passkeys = d->passkeys;
    return c;
}

/*
 * The scheme the client used: https when mod_ssl serves the connection or
 * ServerName says https:// (ap_http_scheme), else http; behind a proxy,
 * its X-Forwarded-Proto, but only when mod_remoteip has replaced the
 * client address, that is when a proxy it trusts sent the request
 * (docs/login-page.md).
 */
static const char *request_scheme(request_rec *r)
{
    const char *xfp = hsc_forwarded_proto(
        apr_table_get(r->headers_in, "X-Forwarded-Proto"));

    if (xfp != NULL && r->useragent_ip != NULL
        && r->connection->client_ip != NULL
        && strcmp(r->useragent_ip, r->connection->client_ip) != 0) {
        return xfp;
    }
    return ap_http_scheme(r);
}

/*
 * 1 when a POST comes from another site: Sec-Fetch-Site says cross-site,
 * or Origin names another scheme, host or port than the request's own
 * (an opaque "null" Origin counts as another: hsc_same_origin). Requests
 * without either header (old browsers, curl) pass; SameSite on the cookie
 * is the other half of the defence.
 */
int hsc_form_cross_site(request_rec *r)
{
    const char *sfs = apr_table_get(r->headers_in, "Sec-Fetch-Site");
    const char *origin = apr_table_get(r->headers_in, "Origin");
    const char *host;

    if (sfs != NULL && !strcasecmp(sfs, "cross-site")) {
        return 1;
    }
    if (origin == NULL) {
        return 0;
    }
    host = apr_table_get(r->headers_in, "Host");
    if (host == NULL) {
        host = r->hostname;
    }
    return !hsc_same_origin(origin, request_scheme(r), host);
}

int hsc_form_read_body(request_rec *r, apr_size_t max, char **body,
                       apr_size_t *len)
{
    apr_size_t n = 0;
    char *buf;
    int rv;

    *body = NULL;
    *len = 0;
    if ((rv = ap_setup_client_block(r, REQUEST_CHUNKED_DECHUNK)) != OK) {
        return rv;
    }
    if (r->remaining > (apr_off_t)max) {
        return HTTP_REQUEST_ENTITY_TOO_LARGE;
    }
    buf = apr_palloc(r->pool, max + 1);
    if (ap_should_client_block(r)) {
        long got;
        while ((got = ap_get_client_block(r, buf + n, max + 1 - n)) > 0) {
            n += (apr_size_t)got;
            if (n > max) {
                hsc_wipe(buf, n);
                return HTTP_REQUEST_ENTITY_TOO_LARGE;
            }
        }
        if (got < 0) {
            hsc_wipe(buf, n);
            return HTTP_BAD_REQUEST;
        }
    }
    buf[n] = '\0';
    *body = buf;
    *len = n;
    return OK;
}

/*
 * Read an application/x-www-form-urlencoded body of at most
 * HSC_FORM_BODY_MAX bytes into *body (pool memory). OK or an HTTP status.
 */
void hsc_form_drain(request_rec *r, apr_size_t max)
{
    char *body;
    apr_size_t len;

    if (hsc_form_read_body(r, max, &body, &len) == OK) {
        hsc_wipe(body, len);
    }
}

static int read_form(request_rec *r, char **body, apr_size_t *len)
{
    *body = NULL;
    *len = 0;
    if (!hsc_content_type_is_form(
            apr_table_get(r->headers_in, "Content-Type"))) {
        hsc_form_drain(r, HSC_FORM_BODY_MAX);
        return HTTP_UNSUPPORTED_MEDIA_TYPE;
    }
    return hsc_form_read_body(r, HSC_FORM_BODY_MAX, body, len);
}

/* The pool key of a passkey request's body copy. */
#define HSC_PASSKEY_BODY "hsc-passkey-body"

typedef struct {
    char *body;
    apr_size_t len;
} raw_body_t;

static apr_status_t wipe_raw(void *k)
{
    hsc_wipe(((raw_body_t *)k)->body, ((raw_body_t *)k)->len);
    return APR_SUCCESS;
}

/* A body naming hsc_passkey is kept whole (hsc_form_parse decodes in
 * place) for the passkey endpoints, which have fields of their own. */
static void keep_passkey_body(request_rec *r, const char *body, apr_size_t len)
{
    raw_body_t *k;

    if (len < 12
        || (strncmp(body, "hsc_passkey=", 12) != 0
            && ap_strstr_c(body, "&hsc_passkey=") == NULL)) {
        return;
    }
    k = apr_palloc(r->pool, sizeof(*k));
    k->body = apr_pstrmemdup(r->pool, body, len);
    k->len = len;
    /* It may hold a PRF output or a password: wiped with the request. */
    apr_pool_userdata_setn(k, HSC_PASSKEY_BODY, wipe_raw, r->pool);
}

char *hsc_form_passkey_body(request_rec *r, apr_size_t *len)
{
    void *k = NULL;

    *len = 0;
    apr_pool_userdata_get(&k, HSC_PASSKEY_BODY, r->pool);
    if (k == NULL) {
        return NULL;
    }
    *len = ((raw_body_t *)k)->len;
    return ((raw_body_t *)k)->body;
}

/*
 * What both handlers do before their POST work: the common headers, GET
 * and POST only, same-site, a small form body, parsed. DECLINED with
 * *get set for a GET (the caller shows its page), OK with the parsed form
 * (wipe *body after use), or the HTTP status to answer.
 */
int hsc_form_post(request_rec *r, const hsc_dir_conf_t *d, const char *what,
                  int *get, hsc_login_form_t *f, char **body, apr_size_t *len)
{
    int rv;

    *get = 0;
    *body = NULL;
    *len = 0;
    memset(f, 0, sizeof(*f));
    hsc_form_headers(r, d);
    r->allowed = (AP_METHOD_BIT << M_GET) | (AP_METHOD_BIT << M_POST);
    ap_allow_methods(r, 1, "GET", "HEAD", "POST", NULL);
    if (r->method_number == M_GET) {
        *get = 1;
        return DECLINED;
    }
    if (r->method_number != M_POST) {
        return HTTP_METHOD_NOT_ALLOWED;
    }
    if (hsc_form_cross_site(r)) {
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r,
                      HSCLOGNO(020) "cross-site %s POST refused", what);
        hsc_form_drain(r, HSC_FORM_BODY_MAX);
        return HTTP_FORBIDDEN;
    }
    if ((rv = read_form(r, body, len)) != OK) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(021) "%s form refused: HTTP %d", what, rv);
        return rv;
    }
    keep_passkey_body(r, *body, *len);
    if (hsc_form_parse(*body, *len, f) != HSC_OK) {
        hsc_wipe(*body, *len);
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(022) "%s form refused: malformed body", what);
        return HTTP_BAD_REQUEST;
    }
    return OK;
}
