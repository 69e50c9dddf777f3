/*
 * mod_hsc.c: httpd glue for hardened stateless session cookies.
 *
 * The module record, the check_authn hook for AuthType HSC, the hsc-group
 * authz provider, and hsc_register_hooks: one line per part, each of which
 * registers its own hooks and handlers (the parts, top to bottom, are
 * listed in docs/dev/HACKING.md). Everything that parses untrusted bytes
 * or does cryptography lives in hsc_core/.
 */
#include <string.h>
#include <unistd.h>

#include "apr_strings.h"
#include "apr_thread_proc.h"
#include "apr_lib.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "mod_auth.h"

#include "mod_hsc_log.h"
#include "mod_hsc_audit.h"
#include "mod_hsc_health.h"
#include "mod_hsc_metrics.h"
#include "mod_hsc_account.h"
#include "mod_hsc_api.h"
#include "mod_hsc_authz.h"
#include "mod_hsc_cachectl.h"
#include "mod_hsc_checks.h"
#include "mod_hsc_config.h"
#include "mod_hsc_factor.h"
#include "mod_hsc_identity.h"
#include "mod_hsc_login.h"
#include "mod_hsc_login_pad.h"
#include "mod_hsc_ops.h"
#include "mod_hsc_session.h"
#include "mod_hsc_throttle.h"
#include "mod_hsc_token.h"
#include "mod_hsc_basicpw.h"
#include "mod_hsc_userdb.h"
#include "hsc_http.h"
#include "hsc_version.h"

/* --- startup -------------------------------------------------------------- */

/* As mod_ssl and mod_md do: the version once per (re)start. */
static int hsc_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                           apr_pool_t *ptemp, server_rec *main_s)
{
    (void)pconf;
    (void)plog;
    (void)ptemp;
    if (ap_state_query(AP_SQ_MAIN_STATE) != AP_SQ_MS_CREATE_PRE_CONFIG) {
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, main_s,
                     HSCLOGNO(019) "mod_hsc/%s configured", HSC_VERSION);
    }
    return OK;
}

/* --- authentication ------------------------------------------------------- */

/* The answer to a request without a valid cookie: 302 or 401. */
static int unauthenticated(request_rec *r, const hsc_dir_conf_t *d)
{
    int redirect = hsc_authz_unauthenticated(r, d);

    if (redirect != DECLINED) {
        return redirect; /* an hsc-authz location answers its proxy */
    }

    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    switch (d->unauth) {
    case HSC_UNAUTHENTICATED_REDIRECT: redirect = 1; break;
    case HSC_UNAUTHENTICATED_401: redirect = 0; break;
    default: redirect = hsc_browser_navigation(r); break;
    }
    if (redirect && d->login_url != NULL) {
        apr_table_setn(r->headers_out, "Location",
                       hsc_login_url_back(r, d, ""));
        return HTTP_MOVED_TEMPORARILY;
    }
    if (!hsc_token_challenge(r, d)) {
        apr_table_setn(r->err_headers_out, "WWW-Authenticate", HSC_AUTH_TYPE);
    }
    hsc_api_unauthenticated(r, d); /* JSON for a client that prefers it */
    return HTTP_UNAUTHORIZED;
}

/* 1 (logged) for a protected subrequest of a page this module did not
 * protect, whose response may already be on its way to a shared cache
 * without Cache-Control: private (mod_hsc_cachectl.c). */
static int late_include(request_rec *r)
{
    const request_rec *top = hsc_cachectl_too_late(r);

    if (top == NULL) {
        return 0;
    }
    ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                  HSCLOGNO(189) "refused: %s is protected by AuthType HSC "
                                "but included in %s, which is not: that "
                                "page's headers may have gone out without "
                                "Cache-Control: private, and a shared cache "
                                "would give the user's part to everyone. "
                                "Protect the including page too",
                  r->uri, top->uri);
    return 1;
}

/*
 * check_authn for AuthType HSC: find the cookie, verify it (the spec's six
 * steps in hsc_cookie_verify), record the verdict, slide the expiry.
 */
static int hsc_check_authn(request_rec *r)
{
    const char *type = ap_auth_type(r);
    const hsc_srv_conf_t *sc;
    const hsc_dir_conf_t *d;
    hsc_store_t *store;
    hsc_cookie_t c;
    hsc_user_t u;
    hsc_status_t st;
    int rv;

    if (type == NULL || strcasecmp(type, HSC_AUTH_TYPE) != 0) {
        return DECLINED;
    }
    /* Subrequests and internal redirects reuse the first verdict. */
    if (hsc_session_adopt(r)) {
        return OK;
    }
    if (late_include(r)) {
        return HTTP_FORBIDDEN;
    }
    sc = hsc_srv_conf(r->server);
    d = hsc_dir_conf(r);
    if (sc->keys == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(013) "AuthType HSC without HSCKeyFile");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    if ((store = hsc_userdb_acquire(r, sc)) == NULL) {
        return hsc_userdb_unavailable(r);
    }
    /* HSCAcceptTokens: an app password offered in Authorization decides. */
    if (d->accept_tokens != 0
        && (rv = hsc_token_authn(r, sc, d, store)) != DECLINED) {
        return rv;
    }
    /* HSCBasicPassword: the account password over Basic decides. */
    if (d->basic_password
        && (rv = hsc_basicpw_authn(r, sc, d, store)) != DECLINED) {
        return rv;
    }
    st = hsc_session_verify(r, sc, d, store, &c, &u);
    if (st != HSC_OK) {
        int level; /* logged by hsc_session_verify */

        switch (hsc_status_outcome(st, &level)) {
        case HTTP_SERVICE_UNAVAILABLE: return hsc_userdb_unavailable(r);
        case HTTP_UNAUTHORIZED: return unauthenticated(r, d);
        default: return HTTP_INTERNAL_SERVER_ERROR;
        }
    }

    /* HSCMaxAuthAge: a valid login, but its password is too old here. */
    if ((rv = hsc_factor_auth_too_old(r, d, c.iat)) != OK) {
        hsc_wipe(&c, sizeof(c));
        return rv;
    }
    hsc_session_admit(r, sc, d, &c, &u);
    hsc_wipe(&c, sizeof(c));
    return OK;
}

/* --- authorization: Require hsc-group ------------------------------------ */

/* The group names of a Require line, checked once at config time. */
static const char *hsc_group_parse(cmd_parms *cmd, const char *line,
                                   const void **parsed)
{
    apr_array_header_t *groups = apr_array_make(cmd->pool, 4,
                                                sizeof(const char *));
    const char *w;

    while (*(w = ap_getword_conf(cmd->pool, &line)) != '\0') {
        if (!hsc_groupname_valid(w, strlen(w))) {
            return apr_pstrcat(cmd->pool, "Require hsc-group: '", w,
                               "' is not a valid group name", NULL);
        }
        *(const char **)apr_array_push(groups) = w;
    }
    if (groups->nelts == 0) {
        return "Require hsc-group: name at least one group";
    }
    *parsed = groups;
    return NULL;
}

/* Granted when the user (verified by this module) is in any listed group. */
static authz_status hsc_group_check(request_rec *r, const char *line,
                                    const void *parsed)
{
    const apr_array_header_t *groups = parsed;
    const char *have;
    int i;

    (void)line;
    if (r->user == NULL) {
        return AUTHZ_DENIED_NO_USER;
    }
    if ((have = hsc_session_groups(r)) == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(017) "Require hsc-group needs AuthType HSC");
        return AUTHZ_DENIED;
    }
    for (i = 0; i < groups->nelts; ++i) {
        const char *g = ((const char **)groups->elts)[i];
        if (hsc_groups_contain(have, g, strlen(g))) {
            return AUTHZ_GRANTED;
        }
    }
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(018) "user %s is in none of the groups required",
                  r->user);
    return AUTHZ_DENIED;
}

static const authz_provider hsc_group_provider = {
    &hsc_group_check,
    &hsc_group_parse,
};

/*
 * The table of contents: each part registers its own hooks and handlers.
 * Hooks of one phase at APR_HOOK_MIDDLE run in this order; no part reads
 * what another's hook of the same phase sets.
 */
static void hsc_register_hooks(apr_pool_t *p)
{
    hsc_checks_register_hooks(p); /* configtest and startup checks */
    hsc_userdb_register_hooks(p); /* stores, caches, pools, cache-status */
    ap_hook_post_config(hsc_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_check_authn(hsc_check_authn, NULL, NULL, APR_HOOK_MIDDLE,
                        AP_AUTH_INTERNAL_PER_CONF);
    hsc_login_register_hooks(p);     /* hsc-login, hsc-logout */
    hsc_account_register_hooks(p);   /* hsc-account, its blocklist */
    hsc_audit_register_hooks(p);     /* HSCAuditLog */
    hsc_ops_register_hooks(p);       /* the events: audit lines, counters */
    hsc_metrics_register_hooks(p);   /* counters, hsc-metrics */
    hsc_health_register_hooks(p);    /* hsc-health */
    hsc_throttle_register_hooks(p);  /* login counters, KDF cap */
    hsc_login_pad_register_hooks(p); /* failed logins take the dummy's time */
    hsc_cachectl_register_hooks(p);  /* Cache-Control on admitted responses */
    hsc_factor_register_hooks(p);    /* Require hsc-factor, its 401/303 */
    hsc_identity_register_hooks(p);  /* identity headers, their scrubbing */
    hsc_authz_register_hooks(p);     /* hsc-authz for nginx, Caddy, HAProxy */
    hsc_token_register_hooks(p);     /* app passwords' last use */
    hsc_basicpw_register_hooks(p);   /* AuthBasicProvider hsc, Basic cache */
    hsc_api_register_hooks(p);       /* hsc-api: JSON login for scripts */
    ap_register_auth_provider(p, AUTHZ_PROVIDER_GROUP, "hsc-group",
                              AUTHZ_PROVIDER_VERSION, &hsc_group_provider,
                              AP_AUTH_INTERNAL_PER_CONF);
}

module AP_MODULE_DECLARE_DATA
    hsc_module = {STANDARD20_MODULE_STUFF, hsc_create_dir_conf,
                  hsc_merge_dir_conf,      hsc_create_srv_conf,
                  hsc_merge_srv_conf,      hsc_cmds,
                  hsc_register_hooks,      AP_MODULE_FLAG_NONE};
