/*
 * mod_hsc_account.c: the account page (SetHandler hsc-account;
 * docs/account-page.md).
 *
 *   GET    who is signed in, their groups and second factors, the forms
 *   POST   action=password: change the password (the current one, the new
 *          one twice, the policy of hsc_core/hsc_policy.h);
 *          action=signout: end every session of the user
 *
 * The handler verifies the request's cookie itself, as the logout page
 * does, so its location needs no Require; a request without a full login
 * is sent to HSCLoginURL (a browser) or answered 401.
 */
#include <string.h>

#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"

#include "mod_hsc_account.h"
#include "mod_hsc_account_confirm.h"
#include "mod_hsc_account_factor.h"
#include "mod_hsc_account_link.h"
#include "mod_hsc_account_passkey.h"
#include "mod_hsc_account_setup.h"
#include "mod_hsc_account_token.h"
#include "mod_hsc_account_view.h"
#include "mod_hsc_factor.h"
#include "mod_hsc_form.h"
#include "mod_hsc_log.h"
#include "mod_hsc_ops.h"
#include "mod_hsc_passkey.h"
#include "mod_hsc_session.h"
#include "mod_hsc_attempt.h"
#include "mod_hsc_userdb.h"
#include "hsc_password.h"
#include "hsc_policy.h"

/* No full login: a browser goes to the login page and back; others get
 * 401 and the page saying so. */
static int not_signed_in(request_rec *r, const hsc_dir_conf_t *d)
{
    hsc_page_conf_t pc = hsc_form_page_conf(d);
    hsc_account_view_t v;

    if (d->login_url != NULL && hsc_browser_navigation(r)) {
        apr_table_set(r->headers_out, "Location", hsc_login_url_back(r, d, ""));
        return HTTP_SEE_OTHER;
    }
    memset(&v, 0, sizeof(v));
    v.login_url = d->login_url;
    apr_table_setn(r->err_headers_out, "WWW-Authenticate", HSC_AUTH_TYPE);
    return hsc_form_send(r, HTTP_UNAUTHORIZED,
                         hsc_page_account(r->pool, &pc, &v));
}

/* The form's new password for a: 1 when it may be set, else 0 and *o
 * (400: incomplete, mismatch, policy_*, unchanged; factor_needed; 503). */
static int new_password_ok(request_rec *r, hsc_account_t *a,
                           const hsc_login_form_t *f, int repeat,
                           hsc_account_outcome_t *o)
{
    const hsc_form_field_t *np = &f->new_password, *np2 = &f->new_password2;
    const hsc_blocklist_t *b;
    hsc_factor_info_t fi;
    hsc_policy_verdict_t pv;
    int min_chars, has_factor;

    if (!f->password.present || !np->present || (repeat && !np2->present)) {
        hsc_account_refuse(
            r, a, "password", HTTP_BAD_REQUEST, "incomplete",
            repeat ? "Enter the current password and the new one twice."
                   : "Send the current password and the new one.",
            o);
        return 0;
    }
    /* The current password is always asked; a user with a second factor
     * also needs it used within HSCAccountRecentAuth. */
    if (hsc_account_factor_gate(r, a, "password", o) < 0) {
        return 0;
    }
    has_factor = hsc_account_factors(r, a, &fi) == 0 && hsc_factors_any(&fi);
    hsc_account_policy(a->sc, a->d, has_factor, &b, &min_chars);
    if (repeat
        && (np->len != np2->len
            || !hsc_ct_equal(np->value, np2->value, np->len))) {
        hsc_account_refuse(r, a, "password", HTTP_BAD_REQUEST, "mismatch",
                           "The two new passwords are not the same.", o);
        return 0;
    }
    pv = hsc_policy_check(b, min_chars, a->user, np->value, np->len);
    if (pv != HSC_POLICY_OK) {
        hsc_account_refuse(r, a, "password", HTTP_BAD_REQUEST,
                           apr_pstrcat(r->pool, "policy_", hsc_policy_name(pv),
                                       NULL),
                           hsc_policy_message(r->pool, pv, min_chars), o);
        return 0;
    }
    if (np->len == f->password.len
        && hsc_ct_equal(np->value, f->password.value, np->len)) {
        hsc_account_refuse(r, a, "password", HTTP_BAD_REQUEST, "unchanged",
                           "The new password is the current one.", o);
        return 0;
    }
    return 1;
}

/* The store did not take a's new password (st): logged, audited, *o. */
static void password_fault(request_rec *r, const hsc_account_t *a,
                           hsc_status_t st, hsc_account_outcome_t *o)
{
    ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                  HSCLOGNO(208) "cannot change the password of user "
                                "\"%s\": %s (%s)",
                  ap_escape_logitem(r->pool, a->user), hsc_strerror(st),
                  hsc_store_errmsg(a->store));
    hsc_ops_account(r, a->user, "password", "store_fault");
    o->status = HTTP_SERVICE_UNAVAILABLE;
    o->reason = st == HSC_EREADONLY ? "readonly" : "store_fault";
    o->message = st == HSC_EREADONLY
                     ? "The password was not changed: the user database "
                       "is read-only. Ask an administrator."
                     : "The password was not changed because of a server "
                       "problem. Try again later.";
}

void hsc_account_password(request_rec *r, hsc_account_t *a,
                          const hsc_login_form_t *f, int repeat,
                          hsc_account_outcome_t *o)
{
    const hsc_form_field_t *np = &f->new_password;
    unsigned char xn[HSC_XN_LEN];
    hsc_user_t nu;
    hsc_login_t l;
    hsc_status_t st;

    memset(o, 0, sizeof(*o));
    if (!new_password_ok(r, a, f, repeat, o)) {
        return;
    }
    if (!hsc_account_current(r, a, "password", &f->password, &l, o)) {
        return;
    }
    /* The user's own KDF setting (hsc-admin passwd --kdf changes it).
     * Outside the KDF cap: only a holder of the session and the current
     * password gets here, counted by the throttle. The store writes only
     * while the current password is still l.xn's (PostgreSQL: the httpd
     * role cannot set a password otherwise). */
    nu = l.u;
    st = hsc_password_make_xn(&l.u.kdf, np->value, np->len, &nu, xn);
    if (st == HSC_OK) {
        st = hsc_store_change_password(a->store, a->user, l.xn, nu.salt,
                                       &nu.kdf, nu.authenticator);
    }
    hsc_wipe(l.xn, sizeof(l.xn));
    if (st == HSC_EAUTH) {
        /* Another browser or an administrator changed it after this
         * request read it: nothing written. */
        hsc_wipe(xn, sizeof(xn));
        hsc_account_refuse(
            r, a, "password", HTTP_CONFLICT, "changed_meanwhile",
            "The password was changed meanwhile: sign in again with the "
            "new one.",
            o);
        return;
    }
    if (st == HSC_OK) {
        st = hsc_store_get_fresh(a->store, a->user, strlen(a->user), &nu);
    }
    if (st != HSC_OK) {
        hsc_wipe(xn, sizeof(xn));
        password_fault(r, a, st, o);
        return;
    }
    st = hsc_account_reissue(r, a, &nu, xn);
    hsc_wipe(xn, sizeof(xn));
    ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                  HSCLOGNO(209) "user \"%s\" changed their password; their "
                                "other sessions end",
                  ap_escape_logitem(r->pool, a->user));
    hsc_ops_account(r, a->user, "password", NULL);
    if (st != HSC_OK) {
        /* Changed, but no cookie for it: this client logs in again. */
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(210) "cannot re-issue the cookie of user "
                                    "\"%s\" after a password change: %s",
                      ap_escape_logitem(r->pool, a->user), hsc_strerror(st));
        o->status = HTTP_INTERNAL_SERVER_ERROR;
        return;
    }
    o->status = HTTP_OK;
}

/* POST action=password: hsc_account_password, then the page. */
static int change_password(request_rec *r, hsc_account_t *a,
                           const hsc_login_form_t *f)
{
    hsc_account_outcome_t o;

    hsc_account_password(r, a, f, 1, &o);
    if (o.status != HTTP_OK) {
        return hsc_account_answer(r, a, &o);
    }
    apr_table_setn(r->headers_out, "Location",
                   apr_pstrcat(r->pool, r->uri, "?done=password", NULL));
    return HTTP_SEE_OTHER;
}

/* POST action=signout: every session of the user ends, this one too. */
static int sign_out(request_rec *r, hsc_account_t *a)
{
    hsc_page_conf_t pc = hsc_form_page_conf(a->d);
    hsc_status_t st;

    st = hsc_store_revoke_now(a->store, a->user,
                              (int64_t)apr_time_sec(r->request_time));
    hsc_ops_logout(r, a->user, strlen(a->user), a->c.kid, 1, st);
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(211) "cannot end the sessions of user \"%s\": "
                                    "%s (%s)",
                      ap_escape_logitem(r->pool, a->user), hsc_strerror(st),
                      hsc_store_errmsg(a->store));
        return hsc_account_show(
            r, a, HTTP_SERVICE_UNAVAILABLE, NULL,
            "Your sessions could not be ended because of a server "
            "problem. Try again later, or ask an administrator.");
    }
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(212) "user \"%s\" signed out everywhere from the "
                                "account page",
                  ap_escape_logitem(r->pool, a->user));
    if (hsc_set_cookie(r, a->d, "", 0) != HSC_OK) {
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    if (a->d->logout_url != NULL) {
        apr_table_setn(r->headers_out, "Location", a->d->logout_url);
        return HTTP_SEE_OTHER;
    }
    return hsc_form_send(r, HTTP_OK,
                         hsc_page_logged_out(r->pool, &pc, 1, NULL,
                                             a->d->login_url));
}

/* The notice after a change (the query of the redirect that follows it). */
static const char *done_notice(const request_rec *r)
{
    static const struct {
        const char *args, *notice;
    } done[] = {
        {"done=password",
         "Your password is changed. Your other sessions have ended."},
        {"done=totp-on", "The authenticator app is on: signing in asks for "
                         "its code."},
        {"done=totp-off", "The authenticator app is removed. Your other "
                          "sessions have ended."},
        {"done=token-revoked", "The app password is revoked."},
        {"done=passkey", "The passkey is added."},
        {"done=passkey-renamed", "The passkey is renamed."},
        {"done=passkey-removed", "The passkey is removed. Your other "
                                 "sessions have ended."},
        {"done=seal-on", "Every sign-in now needs a passkey. Sessions "
                         "signed in without one have ended."},
        {"done=seal-off", "A password signs you in again."},
    };
    size_t i;

    for (i = 0; r->args != NULL && i < sizeof(done) / sizeof(done[0]); i++) {
        if (strcmp(r->args, done[i].args) == 0) {
            return done[i].notice;
        }
    }
    return NULL;
}

/* 1 when the form's action is name. */
static int is_action(const hsc_login_form_t *f, const char *name)
{
    return f->action.present && strcmp(f->action.value, name) == 0;
}

/*
 * A factor change (setting up or removing an authenticator app, new
 * recovery codes, a new app password): after a recent login
 * (HSCAccountRecentAuth) or the password again, counted like a login. The
 * action's answer.
 */
static int factor_change(request_rec *r, const hsc_account_t *a,
                         const hsc_login_form_t *f, const char *action)
{
    hsc_account_outcome_t o;

    if (!hsc_account_confirmed(r, a, f, action, &o)) {
        return hsc_account_answer(r, a, &o);
    }
    if (strcmp(action, "totp-setup") == 0) {
        return hsc_account_totp_setup(r, a);
    }
    if (strcmp(action, "totp-remove") == 0) {
        return hsc_account_totp_remove(r, a);
    }
    if (strcmp(action, "token-new") == 0) {
        return hsc_account_token_new(r, a, f);
    }
    return hsc_account_recovery_new(r, a);
}

hsc_status_t hsc_account_session(request_rec *r, hsc_account_t *a)
{
    hsc_status_t st;

    if (a->sc->keys == NULL) {
        return HSC_EINVAL;
    }
    if ((a->store = hsc_userdb_acquire(r, a->sc)) == NULL) {
        return HSC_ESTORE;
    }
    st = hsc_session_verify(r, a->sc, a->d, a->store, &a->c, &a->u);
    if (st != HSC_OK) {
        return st;
    }
    a->user = apr_pstrmemdup(r->pool, a->c.user, a->c.user_len);
    /* The password or a second factor, whichever came last. */
    a->recent = (int64_t)apr_time_sec(r->request_time)
                    - (a->c.mfa_at > a->c.iat ? a->c.mfa_at : a->c.iat)
                <= a->d->recent_auth;
    return HSC_OK;
}

/* A POST of a signed-in user: the form's action, the answer. */
static int signed_in_action(request_rec *r, hsc_account_t *a,
                            const hsc_login_form_t *f)
{
    if (is_action(f, "password")) {
        return change_password(r, a, f);
    }
    if (is_action(f, "signout")) {
        return sign_out(r, a);
    }
    if (is_action(f, "totp-confirm")) {
        return hsc_account_totp_confirm(r, a, f);
    }
    if (is_action(f, "passkey-rename") && a->d->passkeys) {
        return hsc_account_passkey_rename(r, a, f);
    }
    if (is_action(f, "passkey-remove") && a->d->passkeys) {
        return hsc_account_passkey_remove(r, a, f);
    }
    if ((is_action(f, "seal-on") || is_action(f, "seal-off"))
        && a->d->passkeys) {
        return hsc_account_seal_switch(r, a, f, is_action(f, "seal-on"));
    }
    if (is_action(f, "token-revoke")) {
        return hsc_account_token_revoke(r, a, f);
    }
    if (is_action(f, "totp-setup") || is_action(f, "totp-remove")
        || is_action(f, "recovery-new") || is_action(f, "token-new")) {
        return factor_change(r, a, f, f->action.value);
    }
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(213) "account form refused: no known action");
    return HTTP_BAD_REQUEST;
}

/* SetHandler hsc-account. */
static int account_handler(request_rec *r)
{
    hsc_login_form_t f;
    hsc_account_t a;
    char *body = NULL;
    apr_size_t len = 0;
    hsc_status_t st;
    int get, rv;

    if (r->handler == NULL || strcmp(r->handler, "hsc-account") != 0) {
        return DECLINED;
    }
    memset(&a, 0, sizeof(a));
    memset(&f, 0, sizeof(f)); /* a GET parses no body */
    a.sc = hsc_srv_conf(r->server);
    a.d = hsc_dir_conf(r);
    rv = hsc_form_post(r, a.d, "account", &get, &f, &body, &len);
    if (rv != OK && !get) {
        return rv;
    }
    if (!get
        && (rv = hsc_passkey_handle(r, a.sc, a.d, HSC_PASSKEY_AT_ACCOUNT))
               != DECLINED) {
        hsc_wipe(body, len);
        return rv;
    }
    if (get && r->args != NULL) {
        /* A one-time link arrives in the query (hsc-admin link). */
        char *q = apr_pstrdup(r->pool, r->args);
        if (hsc_form_parse(q, strlen(q), &f) != HSC_OK) {
            memset(&f, 0, sizeof(f));
        }
    }
    if (f.link.present) {
        rv = hsc_account_link(r, a.sc, a.d, get, &f);
        hsc_wipe(body, len);
        return rv;
    }
    st = hsc_account_session(r, &a);
    if (st == HSC_EPENDING
        && (rv = hsc_account_setup(r, &a, get, &f)) != DECLINED) {
        hsc_wipe(&a.c, sizeof(a.c));
        hsc_wipe(body, len);
        return rv;
    }
    if (st != HSC_OK) {
        hsc_wipe(body, len);
        return hsc_status_class(st) == HSC_CLASS_FAULT
                   ? hsc_userdb_unavailable(r)
                   : not_signed_in(r, a.d);
    }
    rv = get ? hsc_account_show(r, &a, HTTP_OK, done_notice(r), NULL)
             : signed_in_action(r, &a, &f);
    hsc_wipe(&a.c, sizeof(a.c));
    /* The body held passwords: wipe it before the pool is reused. */
    hsc_wipe(body, len);
    return rv;
}

/* The built-in blocklist, for locations without HSCPasswordBlocklist:
 * parsed once per configuration pass. */
static int account_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                               apr_pool_t *ptemp, server_rec *s)
{
    hsc_srv_conf_t *sc = hsc_srv_conf(s);

    (void)plog;
    (void)ptemp;
    sc->global->default_blocklist = hsc_blocklist_builtin(pconf);
    return OK;
}

void hsc_account_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_post_config(account_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(account_handler, NULL, NULL, APR_HOOK_MIDDLE);
}
