/*
 * mod_hsc_ops.c: the security events (mod_hsc_ops.h). Each is one call at
 * its site in the request path; here it becomes counters in the metrics
 * (mod_hsc_metrics.c) and a line in the audit log (mod_hsc_audit.c). The
 * classes and their labels are hsc_core/hsc_outcome.c's. Nothing here
 * reads the request's cookie or the user store: the caller names what
 * happened.
 */
#include <string.h>

#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_request.h"
#include "util_cfgtree.h"

#include "mod_hsc_log.h"
#include "mod_hsc_audit.h"
#include "mod_hsc_metrics.h"
#include "mod_hsc_ops.h"
#include "hsc_audit.h"
#include "hsc_version.h"

/* Every distinct HSCScope of the configuration, to tell a cookie made for
 * another scope from a forged one. */
static apr_array_header_t *known_scopes;

/* Each HSCScope argument in the configuration tree, once. */
static void collect_scopes(apr_pool_t *p, const ap_directive_t *d)
{
    for (; d != NULL; d = d->next) {
        if (!strcasecmp(d->directive, "HSCScope") && d->args != NULL) {
            const char *a = d->args;
            const char *w = ap_getword_conf(p, &a);
            int i, seen = 0;
            for (i = 0; i < known_scopes->nelts; ++i) {
                seen |= !strcmp(((const char **)known_scopes->elts)[i], w);
            }
            if (!seen) {
                *(const char **)apr_array_push(known_scopes) = w;
            }
        }
        collect_scopes(p, d->first_child);
    }
}

static int ops_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                           apr_pool_t *ptemp, server_rec *main_s)
{
    (void)plog;
    (void)ptemp;
    (void)main_s;
    known_scopes = apr_array_make(pconf, 4, sizeof(const char *));
    *(const char **)apr_array_push(known_scopes) = "";
    collect_scopes(pconf, ap_conftree);
    /* In the Server header with ServerTokens Full only, as every module's
     * version component (mod_ssl, mod_perl): core drops them otherwise. */
    ap_add_version_component(pconf, "mod_hsc/" HSC_VERSION);
    return OK;
}

void hsc_ops_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_post_config(ops_post_config, NULL, NULL, APR_HOOK_MIDDLE);
}

/* --- the events ------------------------------------------------------------
 */

/* The fields every event of a request carries. */
static void request_fields(request_rec *r, hsc_audit_event_t *e,
                           const char *event, const char *outcome)
{
    hsc_audit_event_init(e);
    e->time_us = (int64_t)apr_time_now();
    e->event = event;
    e->outcome = outcome;
    /* The address the throttle counts: after mod_remoteip. */
    e->client = r->useragent_ip;
    e->vhost = r->server->server_hostname;
    e->request_id = apr_table_get(r->subprocess_env, "UNIQUE_ID");
    e->login_id = apr_table_get(r->notes, HSC_NOTE_LOGIN_ID);
}

void hsc_ops_login(request_rec *r, const hsc_login_form_t *f,
                   hsc_login_outcome_t o, const char *kid)
{
    hsc_audit_event_t e;

    hsc_metrics_login(HSC_METHOD_PWD, o);
    if (o == HSC_LOGIN_SUCCESS && kid != NULL) {
        hsc_metrics_key_use(kid);
    }
    request_fields(r, &e, "login",
                   o == HSC_LOGIN_SUCCESS      ? "success"
                   : o == HSC_LOGIN_FACTOR_DUE ? "pending"
                                               : "failure");
    if (o != HSC_LOGIN_SUCCESS) {
        e.reason = hsc_login_outcome_name(o);
    }
    /* The name as typed (the core cuts and escapes it). */
    if (f != NULL && f->username.present) {
        e.user = f->username.value;
        e.user_len = f->username.len;
    }
    e.kid = o == HSC_LOGIN_SUCCESS ? kid : NULL;
    hsc_audit_write(r, &e);
}

void hsc_ops_code(request_rec *r, const char *user, size_t len,
                  hsc_login_outcome_t o, hsc_method_t how, const char *kid)
{
    hsc_audit_event_t e;

    hsc_metrics_login(how, o);
    if (o == HSC_LOGIN_SUCCESS && kid != NULL) {
        hsc_metrics_key_use(kid);
    }
    request_fields(r, &e, "login",
                   o == HSC_LOGIN_SUCCESS ? "success" : "failure");
    if (o != HSC_LOGIN_SUCCESS) {
        e.reason = hsc_login_outcome_name(o);
    }
    e.user = user;
    e.user_len = len;
    e.method = how == HSC_METHOD_NONE ? NULL : hsc_method_name(how);
    e.kid = o == HSC_LOGIN_SUCCESS ? kid : NULL;
    hsc_audit_write(r, &e);
}

void hsc_ops_lockout(request_rec *r, const char *user, size_t len, int by_user,
                     apr_int64_t until)
{
    hsc_audit_event_t e;

    hsc_metrics_login(apr_table_get(r->notes, HSC_NOTE_CODE_STEP)
                          ? HSC_METHOD_NONE
                          : HSC_METHOD_PWD,
                      HSC_LOGIN_THROTTLED);
    hsc_metrics_lockout(by_user);
    request_fields(r, &e, "login", "failure");
    e.reason = hsc_login_outcome_name(HSC_LOGIN_THROTTLED);
    e.user = user;
    e.user_len = len;
    e.counter = by_user ? "user" : "address";
    e.until = until;
    hsc_audit_write(r, &e);
}

void hsc_ops_logout(request_rec *r, const char *user, size_t user_len,
                    const char *kid, int everywhere, hsc_status_t st)
{
    hsc_audit_event_t e;

    hsc_metrics_logout(everywhere && st == HSC_OK);
    if (st == HSC_ESTORE) {
        hsc_ops_store_error(r);
    }
    request_fields(r, &e, "logout", st == HSC_OK ? "success" : "failure");
    e.everywhere = everywhere;
    if (st != HSC_OK) {
        e.reason = st == HSC_ESTORE || st == HSC_EREADONLY ? "store_fault"
                                                           : "no_valid_cookie";
    }
    if (user != NULL) {
        e.user = user;
        e.user_len = user_len;
        e.kid = kid;
    }
    hsc_audit_write(r, &e);
}

void hsc_ops_account(request_rec *r, const char *user, const char *action,
                     const char *reason)
{
    hsc_audit_event_t e;

    request_fields(r, &e, "account", reason ? "failure" : "success");
    e.action = action;
    e.reason = reason;
    e.user = user;
    e.user_len = strlen(user);
    hsc_audit_write(r, &e);
}

void hsc_ops_cookie(request_rec *r, const hsc_verify_params_t *vp,
                    const char *val, size_t len, hsc_status_t st,
                    const hsc_cookie_t *c)
{
    hsc_audit_event_t e;
    hsc_cookie_t p;
    hsc_cookie_outcome_t o;
    char lid[HSC_LOGIN_ID_SIZE];

    if (vp != NULL && st == HSC_OK) {
        hsc_metrics_cookie(HSC_COOKIE_OK);
        hsc_metrics_key_use(c->kid);
        return;
    }
    /* Refused: parse again (syntax only) for the name and key id. */
    memset(&p, 0, sizeof(p));
    if (vp != NULL && hsc_cookie_parse(val, len, &p) != HSC_OK) {
        memset(&p, 0, sizeof(p));
    }
    o = vp == NULL
            ? HSC_COOKIE_DUPLICATE
            : hsc_cookie_outcome_of(vp, val, len, st, &p,
                                    known_scopes ? (const char *const *)
                                                       known_scopes->elts
                                                 : NULL,
                                    known_scopes ? (size_t)known_scopes->nelts
                                                 : 0);
    hsc_metrics_cookie(o);
    if (o == HSC_COOKIE_STORE_FAULT) {
        hsc_ops_store_error(r);
    }
    request_fields(r, &e, "cookie", "failure");
    e.reason = hsc_cookie_outcome_name(o);
    if (p.user_len > 0) {
        e.user = p.user; /* as the cookie names it; not verified */
        e.user_len = p.user_len;
    }
    if (p.kid_len > 0) {
        e.kid = p.kid;
    }
    hsc_login_id_text(&p, lid);
    if (lid[0] != '\0') {
        e.login_id = lid; /* as the cookie says; not verified */
    }
    hsc_audit_write(r, &e);
    hsc_wipe(&p, sizeof(p));
}

void hsc_ops_store_error(request_rec *r)
{
    (void)r;
    hsc_metrics_store_error();
}
