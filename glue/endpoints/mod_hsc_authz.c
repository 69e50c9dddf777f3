/*
 * mod_hsc_authz.c: SetHandler hsc-authz, the authorization endpoint that
 * nginx (auth_request), Caddy (forward_auth), Traefik and HAProxy call
 * for each request of an application behind them
 * (docs/authz-endpoint.md).
 *
 * The endpoint's location is an ordinary protected one (AuthType HSC, its
 * own Require): httpd's authentication and authorization decide, and the
 * handler only answers 200 with the identity. Around them:
 * - access_checker, first: only HSCAuthzTrustedProxy addresses (the TCP
 *   peer, never a forwarded one) may ask (403 otherwise), and the URL the
 *   client asked the proxy for is read from the proxy's headers, once,
 *   strictly (400 when it does not parse); the endpoint's own query
 *   string is ignored (Caddy appends the client's to it);
 * - no valid cookie (mod_hsc.c asks hsc_authz_unauthenticated): auth-
 *   request answers 401 with the login URL in Location (nginx's
 *   error_page 401 =302 $loc follows it), forward-auth 302 to it for a
 *   browser's navigation and 401 for anything else;
 * - the handler: 200, the HSCIdentityHeader names as response headers,
 *   each always present (empty when unknown: Caddy copies a literal
 *   placeholder for a missing one), and the refreshed cookie when due.
 */
#include <string.h>
#include <strings.h>

#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "ap_expr.h"

#include "mod_hsc_authz.h"
#include "mod_hsc_checks.h"
#include "mod_hsc_config.h"
#include "mod_hsc_log.h"
#include "mod_hsc_session.h"
#include "hsc_authz.h"
#include "hsc_http.h"

#define HSC_AUTHZ_HANDLER "hsc-authz"
/* r->notes: the URL asked about, and "1" for a browser's navigation. */
#define NOTE_URL "hsc-authz-url"
#define NOTE_NAV "hsc-authz-nav"

/* 1 when SetHandler names hsc-authz for r's location (before the handler
 * is set: core applies SetHandler after authorization). */
static int is_authz_location(request_rec *r)
{
    core_dir_config *cd = ap_get_core_module_config(r->per_dir_config);
    const char *err = NULL, *h;

    if (cd == NULL || cd->expr_handler == NULL) {
        return 0;
    }
    h = ap_expr_str_exec(r, cd->expr_handler, &err);
    return err == NULL && h != NULL && !strcasecmp(h, HSC_AUTHZ_HANDLER);
}

static int trusted_peer(request_rec *r, const hsc_dir_conf_t *d)
{
    int i;

    for (i = 0; d->authz_proxies != NULL && i < d->authz_proxies->nelts; i++) {
        if (apr_ipsubnet_test(APR_ARRAY_IDX(d->authz_proxies, i,
                                            apr_ipsubnet_t *),
                              r->connection->client_addr)) {
            return 1;
        }
    }
    return 0;
}

/* GET or HEAD, case as sent. */
static int get_or_head(const char *m)
{
    return m != NULL && (!strcmp(m, "GET") || !strcmp(m, "HEAD"));
}

static int authz_access(request_rec *r)
{
    const hsc_dir_conf_t *d;
    char url[HSC_AUTHZ_URL_MAX + 1];
    const char *method;
    hsc_status_t st;

    if (!is_authz_location(r)) {
        return DECLINED;
    }
    d = hsc_dir_conf(r);
    if (!trusted_peer(r, d)) {
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r,
                      HSCLOGNO(226) "hsc-authz: %s is not an "
                                    "HSCAuthzTrustedProxy here: 403",
                      r->connection->client_ip);
        return HTTP_FORBIDDEN;
    }
    if (d->authz_forward) {
        st = hsc_authz_url(apr_table_get(r->headers_in, "X-Forwarded-Proto"),
                           apr_table_get(r->headers_in, "X-Forwarded-Host"),
                           apr_table_get(r->headers_in, "X-Forwarded-Uri"), url,
                           sizeof(url));
        method = apr_table_get(r->headers_in, "X-Forwarded-Method");
    }
    else {
        st = hsc_authz_url_parse(apr_table_get(r->headers_in, "X-Original-URL"),
                                 url, sizeof(url));
        method = apr_table_get(r->headers_in, "X-Original-Method");
    }
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r,
                      HSCLOGNO(227) "hsc-authz: the proxy's %s is missing "
                                    "or not a URL this endpoint takes "
                                    "(http or https, a host name, a path): "
                                    "400",
                      d->authz_forward ? "X-Forwarded-Proto, -Host or -Uri"
                                       : "X-Original-URL");
        return HTTP_BAD_REQUEST;
    }
    apr_table_set(r->notes, NOTE_URL, url);
    /* A navigation by the proxied request's method, and the client's own
     * fetch metadata or Accept, which the proxy passes on. */
    if (hsc_is_navigation(get_or_head(method),
                          apr_table_get(r->headers_in, "Sec-Fetch-Mode"),
                          apr_table_get(r->headers_in, "Sec-Fetch-Dest"),
                          apr_table_get(r->headers_in, "Accept"))) {
        apr_table_setn(r->notes, NOTE_NAV, "1");
    }
    return DECLINED;
}

int hsc_authz_unauthenticated(request_rec *r, const hsc_dir_conf_t *d)
{
    const char *url = apr_table_get(r->notes, NOTE_URL), *login;
    char *ret;

    if (url == NULL) {
        return DECLINED;
    }
    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    apr_table_setn(r->err_headers_out, "WWW-Authenticate", HSC_AUTH_TYPE);
    if (d->login_url == NULL) {
        return HTTP_UNAUTHORIZED;
    }
    ret = apr_palloc(r->pool, 3 * strlen(url) + 1);
    hsc_query_escape(url, ret);
    login = apr_pstrcat(r->pool, d->login_url,
                        strchr(d->login_url, '?') ? "&" : "?", "return=", ret,
                        NULL);
    if (!d->authz_forward) {
        /* nginx turns anything but 2xx, 401 and 403 into 500: 401, and
         * the login in Location for its error_page 401 =302 $loc. */
        apr_table_setn(r->err_headers_out, "Location", login);
        return HTTP_UNAUTHORIZED;
    }
    if (apr_table_get(r->notes, NOTE_NAV) != NULL) {
        apr_table_setn(r->headers_out, "Location", login);
        return HTTP_MOVED_TEMPORARILY;
    }
    return HTTP_UNAUTHORIZED;
}

static int authz_handler(request_rec *r)
{
    const hsc_dir_conf_t *d;
    int i;

    if (r->handler == NULL || strcmp(r->handler, HSC_AUTHZ_HANDLER) != 0) {
        return DECLINED;
    }
    d = hsc_dir_conf(r);
    if (hsc_session_field(r, HSC_ID_USER) == NULL) {
        /* Reached without a verdict: no AuthType HSC here, or a Require
         * that needs no user. Never an allow by default. */
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(228) "hsc-authz at %s answers only under "
                                    "AuthType HSC and a Require that needs a "
                                    "user: 403",
                      r->uri);
        return HTTP_FORBIDDEN;
    }
    for (i = 0; d->identity_headers != NULL && i < d->identity_headers->nelts;
         i++) {
        const hsc_identity_header_t *h = &APR_ARRAY_IDX(d->identity_headers, i,
                                                        hsc_identity_header_t);
        const char *v = hsc_session_field(r, h->field);

        apr_table_set(r->headers_out, h->name, v != NULL ? v : "");
    }
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    ap_set_content_length(r, 0);
    return OK;
}

/* --- startup: a refused authorization must be 403 -------------------- */

/*
 * Every section with SetHandler hsc-authz must say
 * AuthzSendForbiddenOnFailure On: httpd answers 401 to an authenticated
 * user whom Require refuses, the proxy sends the browser to the login
 * page, the login page back, and round it goes. 0, or -1 (logged).
 */
static int check_sections(const ap_directive_t *d, server_rec *s)
{
    int bad = 0;

    for (; d != NULL; d = d->next) {
        const ap_directive_t *c;
        int authz = 0, forbidden = 0;

        for (c = d->first_child; c != NULL; c = c->next) {
            if (!strcasecmp(c->directive, "SetHandler")
                && hsc_directive_arg_is(c, HSC_AUTHZ_HANDLER)) {
                authz = 1;
            }
            if (!strcasecmp(c->directive, "AuthzSendForbiddenOnFailure")
                && hsc_directive_arg_is(c, "on")) {
                forbidden = 1;
            }
        }
        if (authz && !forbidden) {
            ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s,
                         HSCLOGNO(229) "%s:%d: SetHandler hsc-authz needs "
                                       "AuthzSendForbiddenOnFailure On in "
                                       "the same section: a user whom "
                                       "Require refuses would get 401, and "
                                       "the proxy would loop between the "
                                       "login page and the application",
                         d->filename, d->line_num);
            bad = -1;
        }
        if (d->first_child != NULL) {
            bad |= check_sections(d->first_child, s);
        }
    }
    return bad;
}

static int authz_check_config(apr_pool_t *pconf, apr_pool_t *plog,
                              apr_pool_t *ptemp, server_rec *s)
{
    (void)pconf;
    (void)plog;
    (void)ptemp;
    return check_sections(ap_conftree, s) ? !OK : OK;
}

void hsc_authz_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_check_config(authz_check_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_access_checker(authz_access, NULL, NULL, APR_HOOK_FIRST);
    ap_hook_handler(authz_handler, NULL, NULL, APR_HOOK_MIDDLE);
}
