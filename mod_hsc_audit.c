/*
 * mod_hsc_audit.c: HSCAuditLog and the security events (mod_hsc_ops.h).
 *
 *   HSCAuditLog /var/log/apache2/hsc-audit.log
 *   HSCAuditLog "|/usr/bin/rotatelogs /var/log/apache2/hsc-audit.%Y%m%d 86400"
 *
 * One JSON object per line (hsc_core/hsc_audit.c writes it; this file only
 * collects the fields), opened by the parent as CustomLog is: a path is
 * relative to ServerRoot, "|prog" is a piped log (ap_open_piped_log: "|$"
 * through the shell, "||" or "|" directly), and the children inherit it.
 * Each line is one write() of at most PIPE_BUF bytes, so lines of several
 * children never mix, on a pipe or on a file opened for appending.
 * The fields and events are in docs/audit-log.md. Every event is also
 * counted in the metrics (mod_hsc_metrics.c), with or without the log.
 */
#include <string.h>

#include "apr_strings.h"
#include "apr_file_io.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_request.h"
#include "ap_mpm.h"

#include "mod_hsc_log.h"
#include "mod_hsc_ops.h"
#include "hsc_audit.h"
#include "hsc_version.h"
#include "hsc_password.h"

/* What HSCAuditLog said (main server only), and where lines go now. */
static const char *audit_target;
static apr_file_t *audit_file;
/* Every distinct HSCScope of the configuration, to tell a cookie made for
 * another scope from a forged one. */
static apr_array_header_t *known_scopes;

static int ops_pre_config(apr_pool_t *pconf, apr_pool_t *plog,
                          apr_pool_t *ptemp)
{
    (void)pconf;
    (void)plog;
    (void)ptemp;
    audit_target = NULL;
    audit_file = NULL;
    known_scopes = NULL;
    return OK;
}

const char *hsc_audit_set_log(cmd_parms *cmd, void *dv, const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    (void)dv;
    if (err != NULL) {
        return err;
    }
    if (*arg == '\0' || (*arg == '|' && arg[strspn(arg, "|$ \t")] == '\0')) {
        return "HSCAuditLog: name a file or a \"|program\"";
    }
    if (*arg != '|' && ap_server_root_relative(cmd->temp_pool, arg) == NULL) {
        return apr_pstrcat(cmd->pool, "HSCAuditLog: invalid path '", arg, "'",
                           NULL);
    }
    audit_target = arg;
    return NULL;
}

/* As mod_log_config does for CustomLog: in the parent, in pconf. */
static int ops_open_logs(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                         server_rec *s)
{
    apr_status_t rv;
    const char *path;

    (void)plog;
    (void)ptemp;
    audit_file = NULL;
    if (audit_target == NULL
        || ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG) {
        return OK;
    }
    if (*audit_target == '|') {
        piped_log *pl = ap_open_piped_log(pconf, audit_target + 1);
        if (pl == NULL) {
            ap_log_error(APLOG_MARK, APLOG_EMERG, 0, s,
                         HSCLOGNO(160) "HSCAuditLog: cannot start the piped "
                                       "log %s",
                         audit_target + 1);
            return !OK;
        }
        audit_file = ap_piped_log_write_fd(pl);
        return OK;
    }
    path = ap_server_root_relative(pconf, audit_target);
    rv = apr_file_open(&audit_file, path,
                       APR_FOPEN_WRITE | APR_FOPEN_APPEND | APR_FOPEN_CREATE
                           | APR_FOPEN_LARGEFILE,
                       APR_UREAD | APR_UWRITE | APR_GREAD, pconf);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_EMERG, rv, s,
                     HSCLOGNO(165) "HSCAuditLog: cannot open %s", path);
        audit_file = NULL;
        return !OK;
    }
    return OK;
}

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
    known_scopes = apr_array_make(pconf, 4, sizeof(const char *));
    *(const char **)apr_array_push(known_scopes) = "";
    collect_scopes(pconf, ap_conftree);
    /* In the Server header with ServerTokens Full only, as every module's
     * version component (mod_ssl, mod_perl): core drops them otherwise. */
    ap_add_version_component(pconf, "mod_hsc/" HSC_VERSION);
    (void)main_s;
    return OK;
}

void hsc_ops_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_pre_config(ops_pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_open_logs(ops_open_logs, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(ops_post_config, NULL, NULL, APR_HOOK_MIDDLE);
}

/* --- writing -------------------------------------------------------------- */

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
}

static void audit_write(request_rec *r, const hsc_audit_event_t *e)
{
    char line[HSC_AUDIT_LINE_MAX];
    apr_size_t n;
    apr_status_t rv;

    if (audit_file == NULL) {
        return;
    }
    n = hsc_audit_format(e, line, sizeof(line));
    if (n == 0) {
        return;
    }
    /* One write: a line stays whole among the children's. */
    rv = apr_file_write(audit_file, line, &n);
    if (rv != APR_SUCCESS) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r,
                      HSCLOGNO(161) "cannot write to the audit log "
                                    "(HSCAuditLog %s)",
                      audit_target ? audit_target : "?");
    }
}

void hsc_ops_login(request_rec *r, const hsc_login_form_t *f,
                   hsc_login_outcome_t o, const char *kid)
{
    hsc_audit_event_t e;

    hsc_metrics_login(o);
    if (o == HSC_LOGIN_SUCCESS && kid != NULL) {
        hsc_metrics_key_use(kid);
    }
    request_fields(r, &e, "login",
                   o == HSC_LOGIN_SUCCESS ? "success" : "failure");
    if (o != HSC_LOGIN_SUCCESS) {
        e.reason = hsc_login_outcome_name(o);
    }
    /* The name as typed (the core cuts and escapes it). */
    if (f != NULL && f->username.present) {
        e.user = f->username.value;
        e.user_len = f->username.len;
    }
    e.kid = o == HSC_LOGIN_SUCCESS ? kid : NULL;
    audit_write(r, &e);
}

void hsc_ops_lockout(request_rec *r, const char *user, size_t len, int by_user,
                     apr_int64_t until)
{
    hsc_audit_event_t e;

    hsc_metrics_login(HSC_LOGIN_THROTTLED);
    hsc_metrics_lockout(by_user);
    request_fields(r, &e, "login", "failure");
    e.reason = hsc_login_outcome_name(HSC_LOGIN_THROTTLED);
    e.user = user;
    e.user_len = len;
    e.counter = by_user ? "user" : "address";
    e.until = until;
    audit_write(r, &e);
}

hsc_status_t hsc_ops_password_check(request_rec *r, hsc_store_t *store,
                                    const char *user, size_t user_len,
                                    const char *pw, size_t pw_len,
                                    const hsc_kdf_t *dummy,
                                    unsigned char xn[HSC_XN_LEN], hsc_user_t *u)
{
    apr_time_t t0 = apr_time_now();
    hsc_status_t st;

    hsc_metrics_kdf_begin();
    st = hsc_password_check(store, user, user_len, pw, pw_len, dummy, xn, u);
    hsc_metrics_kdf_end(apr_time_now() - t0);
    if (st == HSC_ESTORE) {
        hsc_ops_store_error(r);
    }
    return st;
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
    audit_write(r, &e);
}

void hsc_ops_cookie(request_rec *r, const hsc_verify_params_t *vp,
                    const char *val, size_t len, hsc_status_t st,
                    const hsc_cookie_t *c)
{
    hsc_audit_event_t e;
    hsc_cookie_t p;
    hsc_cookie_outcome_t o;

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
    audit_write(r, &e);
    hsc_wipe(&p, sizeof(p));
}

void hsc_ops_store_error(request_rec *r)
{
    (void)r;
    hsc_metrics_store_error();
}
