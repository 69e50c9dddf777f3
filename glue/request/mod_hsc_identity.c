/*
 * mod_hsc_identity.c: who the user is, for an application behind httpd's
 * reverse proxy (docs/identity-headers.md).
 *
 * - header_parser, first of all: every request header the client sent
 *   whose name is an HSCIdentityHeader or HSCStripRequestHeaders name is
 *   removed, compared after lower-casing and reading '_' as '-' (a CGI
 *   gateway, PHP or WSGI folds "X_Remote_User" into the X-Remote-User an
 *   application trusts). Before authentication, so that nothing of the
 *   client's can pass for ours, whether or not a user is verified.
 * - fixups, first: the verified identity into the HSCIdentityHeader
 *   headers (a field with no value, or no verified user: no header, never
 *   "(null)" or an empty one), and with HSCStripCookie this module's
 *   cookie out of the Cookie header, so no backend sees x_n.
 * - configtest and startup: a warning where a configuration that uses
 *   AuthType HSC builds a header from %{REMOTE_USER}s (mod_ssl's
 *   variable: "(null)" without it) or %{REMOTE_USER}e (not in the
 *   environment when mod_headers runs): the recipes that send "(null)".
 */
#include <string.h>
#include <strings.h>

#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_request.h"

#include "mod_hsc_checks.h"
#include "mod_hsc_config.h"
#include "mod_hsc_identity.h"
#include "mod_hsc_log.h"
#include "mod_hsc_session.h"
#include "hsc_http.h"

/* The configured name that header (a client's) matches, or NULL. */
static const char *matching_name(const hsc_dir_conf_t *d, const char *header)
{
    int i;

    for (i = 0; d->identity_headers != NULL && i < d->identity_headers->nelts;
         i++) {
        const hsc_identity_header_t *h = &APR_ARRAY_IDX(d->identity_headers, i,
                                                        hsc_identity_header_t);

        if (hsc_header_name_same(header, h->name)) {
            return h->name;
        }
    }
    for (i = 0; d->strip_headers != NULL && i < d->strip_headers->nelts; i++) {
        const char *name = APR_ARRAY_IDX(d->strip_headers, i, const char *);

        if (hsc_header_name_same(header, name)) {
            return name;
        }
    }
    return NULL;
}

static int strip_client_headers(request_rec *r)
{
    const hsc_dir_conf_t *d = hsc_dir_conf(r);
    const apr_array_header_t *in;
    const apr_table_entry_t *e;
    apr_array_header_t *gone = NULL;
    int i;

    if (d == NULL
        || (d->identity_headers == NULL && d->strip_headers == NULL)) {
        return DECLINED;
    }
    in = apr_table_elts(r->headers_in);
    e = (const apr_table_entry_t *)in->elts;
    for (i = 0; i < in->nelts; i++) {
        const char *name = e[i].key ? matching_name(d, e[i].key) : NULL;

        if (name == NULL) {
            continue;
        }
        if (gone == NULL) {
            gone = apr_array_make(r->pool, 2, sizeof(const char *));
        }
        *(const char **)apr_array_push(gone) = e[i].key;
        /* A subrequest or an internal redirect shares what the first
         * request's fixups set: ours, not the client's. Only a client's
         * copy is news. */
        ap_log_rerror(APLOG_MARK,
                      r->main || r->prev ? APLOG_TRACE1 : APLOG_WARNING, 0, r,
                      HSCLOGNO(224) "removed the client's request header "
                                    "\"%s\": it names %s, which only this "
                                    "server may set",
                      ap_escape_logitem(r->pool, e[i].key), name);
    }
    for (i = 0; gone != NULL && i < gone->nelts; i++) {
        apr_table_unset(r->headers_in, APR_ARRAY_IDX(gone, i, const char *));
    }
    return DECLINED;
}

/* The Cookie header without this location's cookie. */
static void strip_own_cookie(request_rec *r, const hsc_dir_conf_t *d)
{
    const char *cookie = apr_table_get(r->headers_in, "Cookie");
    size_t cap, len;
    char *rest;
    int removed;

    if (cookie == NULL) {
        return;
    }
    /* Each separator may become "; ": twice the input is enough. */
    cap = 2 * strlen(cookie) + 1;
    rest = apr_palloc(r->pool, cap);
    len = hsc_cookie_header_without(cookie, d->cookie_name, rest, cap,
                                    &removed);
    if (removed == 0 || len == (size_t)-1) {
        return;
    }
    if (len == 0) {
        apr_table_unset(r->headers_in, "Cookie");
    }
    else {
        apr_table_setn(r->headers_in, "Cookie", rest);
    }
}

static int set_identity_headers(request_rec *r)
{
    const hsc_dir_conf_t *d = hsc_dir_conf(r);
    int i;

    if (d == NULL) {
        return DECLINED;
    }
    for (i = 0; d->identity_headers != NULL && i < d->identity_headers->nelts;
         i++) {
        const hsc_identity_header_t *h = &APR_ARRAY_IDX(d->identity_headers, i,
                                                        hsc_identity_header_t);
        const char *v = hsc_session_field(r, h->field);

        if (v != NULL && *v != '\0') {
            apr_table_set(r->headers_in, h->name, v);
        }
        else {
            apr_table_unset(r->headers_in, h->name);
        }
    }
    if (d->strip_cookie) {
        strip_own_cookie(r, d);
    }
    return DECLINED;
}

/* --- configtest: headers built from REMOTE_USER the way that fails ------ */

/* 1 when the tree below d has "AuthType HSC". */
static int uses_hsc(const ap_directive_t *d)
{
    for (; d != NULL; d = d->next) {
        if (!strcasecmp(d->directive, "AuthType")
            && hsc_directive_arg_is(d, HSC_AUTH_TYPE)) {
            return 1;
        }
        if (d->first_child != NULL && uses_hsc(d->first_child)) {
            return 1;
        }
    }
    return 0;
}

/* The first %{REMOTE_USER}s or %{REMOTE_USER}e in args, or NULL. */
static const char *remote_user_var(const char *args)
{
    const char *p;

    for (p = args; p != NULL && (p = strstr(p, "%{")) != NULL; p += 2) {
        if (!strncasecmp(p + 2, "REMOTE_USER}", 12)
            && (p[14] == 's' || p[14] == 'e')) {
            return p[14] == 's' ? "%{REMOTE_USER}s" : "%{REMOTE_USER}e";
        }
    }
    return NULL;
}

static void warn_remote_user(const ap_directive_t *d, server_rec *s)
{
    for (; d != NULL; d = d->next) {
        const char *var;

        if ((!strcasecmp(d->directive, "RequestHeader")
             || !strcasecmp(d->directive, "Header"))
            && (var = remote_user_var(d->args)) != NULL) {
            ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_WARNING, 0, s,
                         HSCLOGNO(225) "%s:%d: %s builds a header from %s, "
                                       "which is \"(null)\" here (%s); use "
                                       "HSCIdentityHeader user NAME, which "
                                       "also removes a client's NAME in "
                                       "every spelling "
                                       "(docs/identity-headers.md)",
                         d->filename, d->line_num, d->directive, var,
                         var[14] == 's' ? "the s form is mod_ssl's variable"
                                        : "REMOTE_USER is not in the "
                                          "environment yet");
        }
        if (d->first_child != NULL) {
            warn_remote_user(d->first_child, s);
        }
    }
}

/* For `httpd -t`, and at the real (second) pass of a start. */
static int identity_check_config(apr_pool_t *pconf, apr_pool_t *plog,
                                 apr_pool_t *ptemp, server_rec *main_s)
{
    (void)pconf;
    (void)plog;
    (void)ptemp;
    if ((ap_state_query(AP_SQ_RUN_MODE) == AP_SQ_RM_CONFIG_TEST
         || ap_state_query(AP_SQ_MAIN_STATE) != AP_SQ_MS_CREATE_PRE_CONFIG)
        && uses_hsc(ap_conftree)) {
        warn_remote_user(ap_conftree, main_s);
    }
    return OK;
}

void hsc_identity_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_header_parser(strip_client_headers, NULL, NULL,
                          APR_HOOK_REALLY_FIRST);
    ap_hook_fixups(set_identity_headers, NULL, NULL, APR_HOOK_FIRST);
    ap_hook_check_config(identity_check_config, NULL, NULL, APR_HOOK_MIDDLE);
}
