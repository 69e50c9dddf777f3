/*
 * mod_hsc_login.c: the hsc-login and hsc-logout handlers.
 *
 *   SetHandler hsc-login    GET: the built-in login page; POST: log in
 *   SetHandler hsc-logout   GET: a confirmation form; POST: log out
 *
 * Every response carries Cache-Control: no-store. A POST from another site
 * is refused before its body is read, a large body is a 413
 * (mod_hsc_form.c). A redirect target from the client is used only when
 * hsc_return_url_safe() accepts it. The pages' HTML and CSP come from
 * hsc_core/hsc_pages.c; this file only decides which page and sends it.
 */
#include <string.h>

#include "apr_strings.h"
#include "apr_lib.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "util_script.h"

#include "mod_hsc_factor.h"
#include "mod_hsc_form.h"
#include "mod_hsc_log.h"
#include "mod_hsc_login.h"
#include "mod_hsc_ops.h"
#include "mod_hsc_passkey.h"
#include "mod_hsc_session.h"
#include "mod_hsc_attempt.h"
#include "mod_hsc_userdb.h"
#include "hsc_b64.h"
#include "hsc_authz.h"
#include "hsc_http.h"
#include "hsc_password.h"
#include "hsc_pages.h"

/* The one message a failed login shows, whatever the reason. */
#define HSC_LOGIN_FAILED "Login failed: wrong username or password."

/* This login page's own URL, with the (safe) return target. */
static const char *login_again_url(request_rec *r, const char *ret)
{
    if (ret == NULL) {
        return r->uri;
    }
    return apr_pstrcat(r->pool, r->uri,
                       "?return=", ap_escape_urlencoded(r->pool, ret), NULL);
}

/* The built-in login page; ret (already safe) is carried in the form,
 * username (after a failure) is kept in its field. */
static int login_page(request_rec *r, const hsc_dir_conf_t *d, const char *ret,
                      int status, const char *username, const char *message)
{
    hsc_page_conf_t c = hsc_form_page_conf(d);

    hsc_form_csp_return(r, d, ret);
    return hsc_form_send(r, status,
                         hsc_page_login(r->pool, &c, ret, username, message));
}

/* The return target of a form or query, when it is safe (a local path,
 * or an absolute URL to an HSCReturnHosts host); else NULL. */
static const char *safe_return(const hsc_dir_conf_t *d,
                               const hsc_login_form_t *f)
{
    const apr_array_header_t *h = d->return_hosts;

    if (f->ret.present
        && hsc_return_url_allowed(f->ret.value, f->ret.len,
                                  h ? (const char *const *)h->elts : NULL,
                                  h ? (size_t)h->nelts : 0)) {
        return f->ret.value;
    }
    return NULL;
}

/* The second-factor step's form for the user of a pending cookie. */
static int code_page(request_rec *r, const hsc_dir_conf_t *d, const char *ret,
                     int status, const char *user, const char *message)
{
    hsc_page_conf_t c = hsc_form_page_conf(d);
    hsc_factors_t *f;

    /* The passkey button only for a user who has one. */
    if (c.passkeys) {
        const hsc_srv_conf_t *sc = hsc_srv_conf(r->server);
        c.passkeys = (f = hsc_factor_open(r, sc, 1)) != NULL
                     && hsc_factor_passkeys(r, f, user, APLOG_ERR) == 1;
    }

    hsc_form_csp_return(r, d, ret);
    return hsc_form_send(r, status,
                         hsc_page_code(r->pool, &c, ret, user, message));
}

/*
 * The login the code step is for, into *c (wipe it) and *user: a pending
 * cookie (the password done, a second factor due), or a full login's
 * (step-up: a location wants a second factor it has not done, or not
 * lately). Else the status: no cookie or a refused one (HSC_EINVAL and the
 * refusals), or a fault.
 */
static hsc_status_t code_login(request_rec *r, const hsc_srv_conf_t *sc,
                               const hsc_dir_conf_t *d, hsc_store_t **store,
                               hsc_cookie_t *c, const char **user)
{
    hsc_status_t st;
    hsc_user_t u;

    *user = NULL;
    if (sc->keys == NULL) {
        return HSC_EINVAL;
    }
    if ((*store = hsc_userdb_acquire(r, sc)) == NULL) {
        return HSC_ESTORE;
    }
    st = hsc_session_verify_step(r, sc, d, *store, c, &u);
    if (st == HSC_OK) {
        *user = apr_pstrmemdup(r->pool, c->user, c->user_len);
    }
    return st;
}

/*
 * GET: the code form for a pending cookie (a user with a factor, at any
 * login page) or, with ?factor=1 (a location sent the browser here for a second
 * factor), for a full login whose user has one; else the login form.
 */
static int login_get(request_rec *r, const hsc_srv_conf_t *sc,
                     const hsc_dir_conf_t *d)
{
    hsc_login_form_t f;
    const char *ret = NULL, *user;
    hsc_store_t *store;
    hsc_cookie_t c;
    char *args;
    int step_up = 0, rv;

    if ((rv = hsc_factor_stepup_redirect(r)) != DECLINED) {
        return rv;
    }
    if (r->args != NULL) {
        args = apr_pstrdup(r->pool, r->args);
        if (hsc_form_parse(args, strlen(args), &f) == HSC_OK) {
            ret = safe_return(d, &f);
            step_up = f.factor.present;
        }
    }
    if (code_login(r, sc, d, &store, &c, &user) != HSC_OK) {
        return login_page(r, d, ret, HTTP_OK, NULL, NULL);
    }
    rv = (c.amr & HSC_AMR_PENDING) != 0;
    step_up = step_up && c.format == 2; /* format 1: a new login instead */
    hsc_wipe(&c, sizeof(c));
    if (rv) {
        return code_page(r, d, ret, HTTP_OK, user, NULL);
    }
    if (!step_up) {
        return login_page(r, d, ret, HTTP_OK, NULL, NULL);
    }
    switch (hsc_factor_has(r, sc, user)) {
    case 1: return code_page(r, d, ret, HTTP_OK, user, NULL);
    case 0: {
        hsc_page_conf_t pc = hsc_form_page_conf(d);
        return hsc_form_send(r, HTTP_FORBIDDEN,
                             hsc_page_no_factor(r->pool, &pc,
                                                ret ? ret : d->success_url));
    }
    default: return hsc_userdb_unavailable(r);
    }
}

/*
 * With HSCLoginFailureURL, a failed login goes back to the site's own page:
 * 303 to URL?hsc_error=CODE (plus the return target and, for a 429,
 * retry_after). Returns 0 when the directive is not set.
 */
static int failure_redirect(request_rec *r, const hsc_dir_conf_t *d,
                            const char *code, const char *target,
                            apr_int64_t retry_after)
{
    const char *loc;

    if (d->failure_url == NULL) {
        return 0;
    }
    loc = apr_pstrcat(r->pool, d->failure_url,
                      strchr(d->failure_url, '?') ? "&" : "?",
                      "hsc_error=", code, NULL);
    if (retry_after > 0) {
        loc = apr_psprintf(r->pool, "%s&retry_after=%" APR_INT64_T_FMT, loc,
                           retry_after);
    }
    if (target != NULL) {
        loc = apr_pstrcat(r->pool, loc,
                          "&return=", ap_escape_urlencoded(r->pool, target),
                          NULL);
    }
    apr_table_set(r->headers_out, "Location", loc);
    return HTTP_SEE_OTHER;
}

/* A failed login: the form again with the username kept, or the site's
 * own page (HSCLoginFailureURL). */
static int login_failed(request_rec *r, const hsc_dir_conf_t *d,
                        const char *target, const hsc_login_form_t *f)
{
    int rv = failure_redirect(r, d, "failed", target, 0);

    if (rv != 0) {
        return rv;
    }
    return login_page(r, d, target, HTTP_UNAUTHORIZED,
                      f->username.present && f->username.len <= 256
                          ? f->username.value
                          : NULL,
                      HSC_LOGIN_FAILED);
}

/*
 * 429 (throttled) or 503 (the KDF cap): a short page with the wait in
 * words, Retry-After, and a link back (no form: the client should wait).
 */
static int busy_page(request_rec *r, const hsc_dir_conf_t *d,
                     const char *target, int status, apr_int64_t retry_after)
{
    hsc_page_conf_t c = hsc_form_page_conf(d);
    const char *back = login_again_url(r, target);
    int rv;

    apr_table_setn(r->err_headers_out, "Retry-After",
                   apr_psprintf(r->pool, "%" APR_INT64_T_FMT, retry_after));
    rv = failure_redirect(r, d,
                          status == HTTP_TOO_MANY_REQUESTS ? "throttled"
                                                           : "busy",
                          target, retry_after);
    if (rv != 0) {
        return rv;
    }
    return hsc_form_send(r, status,
                         status == HTTP_TOO_MANY_REQUESTS
                             ? hsc_page_throttled(r->pool, &c, retry_after,
                                                  back)
                             : hsc_page_busy(r->pool, &c, back));
}

/* The login id as HSC_LOGIN_ID and the audit log show it; its text. */
static const char *note_login_id(request_rec *r,
                                 const unsigned char lid[HSC_LID_LEN])
{
    char *text = apr_palloc(r->pool, HSC_LOGIN_ID_SIZE);

    text[hsc_b64url_encode(lid, HSC_LID_LEN, text)] = '\0';
    apr_table_setn(r->notes, HSC_NOTE_LOGIN_ID, text);
    return text;
}

/*
 * The new login's cookie: format 2 with a fresh login id (noted for the
 * audit log) and amr = pwd; format 1 for a user database older than gen
 * (u->gen -1: its revocation is revoked_before alone).
 */
static hsc_status_t mint_login(request_rec *r, const hsc_srv_conf_t *sc,
                               const hsc_verify_params_t *vp,
                               const hsc_user_t *u, int64_t iat, int64_t exp,
                               unsigned amr, const unsigned char xn[HSC_XN_LEN],
                               char *out, size_t cap, size_t *len)
{
    unsigned char lid[HSC_LID_LEN];
    hsc_claims_t cl;
    hsc_status_t st;

    if (u->gen < 0) {
        return hsc_cookie_mint(hsc_keyring_signer(sc->keys), u->name,
                               u->name_len, iat, exp, xn, vp->scope,
                               vp->address, out, cap, len);
    }
    st = hsc_random(lid, sizeof(lid));
    if (st != HSC_OK) {
        return st;
    }
    memset(&cl, 0, sizeof(cl));
    cl.user = u->name;
    cl.user_len = u->name_len;
    cl.iat = iat;
    cl.exp = exp;
    cl.gen = u->gen;
    cl.lid = lid;
    cl.amr = HSC_AMR_PWD | amr;
    cl.xn = xn;
    st = hsc_cookie_mint2(hsc_keyring_signer(sc->keys), &cl, vp->scope,
                          vp->address, out, cap, len);
    if (st == HSC_OK) {
        note_login_id(r, lid);
    }
    return st;
}

/* Whether u's right password owes a second factor (hsc_factor_due: asked
 * of every user, a file older than the factors too, where they cannot be
 * read: HSC193, 503, never skipped): *pending, and *setup where a first
 * one is to be set up at HSCAccountURL; HSC_LOGIN_RESULT_OK to go on,
 * else the result of a login that ends here (logged, audited). */
static hsc_login_result_t factor_step(request_rec *r, const hsc_srv_conf_t *sc,
                                      const hsc_dir_conf_t *d,
                                      const hsc_user_t *u, const char *user,
                                      const hsc_login_form_t *f, int *pending,
                                      int *setup)
{
    switch (hsc_factor_due(r, sc, d, u)) {
    case HSC_FACTOR_NOT_DUE: return HSC_LOGIN_RESULT_OK;
    case HSC_FACTOR_MISSING:
        if (d->account_url == NULL || u->gen < 0) {
            ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                          HSCLOGNO(198) "login refused for user \"%s\": "
                                        "HSCSecondFactor required and the "
                                        "user has no second factor",
                          user);
            hsc_ops_login(r, f, HSC_LOGIN_NO_FACTOR, NULL);
            return HSC_LOGIN_RESULT_NO_FACTOR;
        }
        /* HSCAccountURL: a pending cookie that the account page takes
         * only to set up a first factor, which finishes the login. */
        *setup = 1;
        *pending = 1;
        return HSC_LOGIN_RESULT_OK;
    case HSC_FACTOR_DUE: *pending = 1; return HSC_LOGIN_RESULT_OK;
    default:
        hsc_ops_login(r, f, HSC_LOGIN_STORE_FAULT, NULL);
        return HSC_LOGIN_RESULT_UNAVAILABLE;
    }
}

/* A checked login: mint the cookie (a pending one when a second factor
 * is due) and set it; logged and reported. */
static hsc_login_result_t
login_mint(request_rec *r, const hsc_srv_conf_t *sc, const hsc_dir_conf_t *d,
           const hsc_user_t *u, unsigned char xn[HSC_XN_LEN], const char *user,
           const hsc_login_form_t *f)
{
    char value[HSC_COOKIE_VALUE_MAX];
    hsc_verify_params_t vp;
    hsc_status_t st;
    int64_t iat, exp;
    size_t len;
    int rem, pending = 0, setup = 0;
    hsc_login_result_t res;
    const char *lid;

    hsc_session_params(r, sc, d, &vp);
    /* Never a cookie its own revoked_before refuses (a revocation in this
     * second stored now + 1). */
    iat = hsc_login_iat(vp.now, u->revoked_before);
    /* "Keep me signed in" (HSCRememberMe), ticked: a format 2 cookie with
     * the rem bit, whose idle timeout and max age are the remembered
     * span (a format 1 cookie has no such bit: a plain login). */
    rem = d->remember > 0 && f != NULL && f->remember.present && u->gen >= 0;
    exp = hsc_cookie_expiry(iat, vp.now, rem ? d->remember : d->idle,
                            rem ? d->remember : d->max_age);
    if (exp <= iat) {
        exp = iat + 1;
    }
    /* A second factor due: a pending cookie, valid at its step only. */
    res = factor_step(r, sc, d, u, user, f, &pending, &setup);
    if (res != HSC_LOGIN_RESULT_OK) {
        hsc_wipe(xn, HSC_XN_LEN);
        return res;
    }
    if (pending) {
        exp = iat
              + (vp.pending_timeout > 0 ? vp.pending_timeout
                                        : HSC_PENDING_TIMEOUT_DEFAULT);
    }
    st = mint_login(r, sc, &vp, u, iat, exp,
                    (rem ? HSC_AMR_REM : 0) | (pending ? HSC_AMR_PENDING : 0),
                    xn, value, sizeof(value), &len);
    hsc_wipe(xn, HSC_XN_LEN);
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(033) "cannot mint a cookie for user \"%s\": %s",
                      user, hsc_strerror(st));
        hsc_ops_login(r, f, HSC_LOGIN_ERROR, NULL);
        return HSC_LOGIN_RESULT_ERROR;
    }
    st = hsc_set_cookie(r, d, value, exp - vp.now);
    hsc_wipe(value, sizeof(value));
    if (st != HSC_OK) {
        return HSC_LOGIN_RESULT_ERROR;
    }
    lid = apr_table_get(r->notes, HSC_NOTE_LOGIN_ID);
    if (pending) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(199) "user \"%s\": password accepted, second "
                                    "factor due%s, login id %s",
                      user, setup ? " (to be set up at HSCAccountURL)" : "",
                      lid ? lid : "");
        hsc_ops_login(r, f, HSC_LOGIN_FACTOR_DUE, NULL);
        return setup ? HSC_LOGIN_RESULT_SETUP : HSC_LOGIN_RESULT_PENDING;
    }
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(034) "user \"%s\" logged in%s%s", user,
                  lid ? ", login id " : "", lid ? lid : "");
    hsc_ops_login(r, f, HSC_LOGIN_SUCCESS,
                  hsc_key_id(hsc_keyring_signer(sc->keys)));
    return HSC_LOGIN_RESULT_OK;
}

/*
 * Where "Cancel" on the logout page goes: a safe ?return=, else the
 * Referer when it is a safe path of this host (not the logout page
 * itself), else HSCLoginSuccessURL.
 */
static const char *cancel_url(request_rec *r, const hsc_dir_conf_t *d,
                              const hsc_login_form_t *q)
{
    const char *path;

    if (q != NULL && safe_return(d, q) != NULL) {
        return safe_return(d, q);
    }
    path = hsc_referer_path(apr_table_get(r->headers_in, "Referer"),
                            apr_table_get(r->headers_in, "Host"), r->uri);
    return path != NULL ? path : d->success_url;
}

/*
 * GET /logout: the confirmation form saying who is signed in (a GET never
 * logs anyone out), or, at ?done[=everywhere], the logged-out message
 * that a POST without HSCLogoutURL leads to.
 */
static int logout_get(request_rec *r, const hsc_srv_conf_t *sc,
                      const hsc_dir_conf_t *d)
{
    hsc_page_conf_t pc = hsc_form_page_conf(d);
    hsc_login_form_t q, *qp = NULL;
    const char *user = NULL;
    hsc_store_t *store;
    hsc_cookie_t c;
    hsc_user_t u;
    char *args;

    if (r->args != NULL
        && (!strcmp(r->args, "done") || !strcmp(r->args, "done=everywhere"))) {
        return hsc_form_send(r, HTTP_OK,
                             hsc_page_logged_out(r->pool, &pc,
                                                 r->args[4] == '=', NULL,
                                                 d->login_url));
    }
    if (r->args != NULL) {
        args = apr_pstrdup(r->pool, r->args);
        if (hsc_form_parse(args, strlen(args), &q) == HSC_OK) {
            qp = &q;
        }
    }
    if (sc->keys != NULL && (store = hsc_userdb_acquire(r, sc)) != NULL
        && hsc_session_verify(r, sc, d, store, &c, &u) == HSC_OK) {
        user = apr_pstrmemdup(r->pool, c.user, c.user_len);
        hsc_wipe(&c, sizeof(c));
    }
    return hsc_form_send(r, HTTP_OK,
                         hsc_page_logout(r->pool, &pc, user,
                                         cancel_url(r, d, qp), d->login_url));
}

/* A checked login that failed (a's status): logged, audited, the result. */
static hsc_login_result_t login_refused(request_rec *r,
                                        const hsc_login_form_t *f,
                                        const hsc_login_t *a,
                                        hsc_store_t *store, const char *user)
{
    int level, http;

    http = hsc_status_outcome(a->st, &level);
    if (a->st == HSC_EKDFLIMIT) {
        char spec[HSC_KDF_SPEC_MAX];
        hsc_kdf_format(&a->u.kdf, spec, sizeof(spec));
        ap_log_rerror(
            APLOG_MARK, APLOG_ERR, 0, r,
            HSCLOGNO(120) "login refused for user \"%s\": the stored KDF %s is "
                          "above the ceilings and is never run (hsc-admin "
                          "passwd to reset it)",
            user, spec);
    }
    else {
        /* A store outage is logged once (HSC006/HSC180); repeats at debug. */
        if (hsc_status_class(a->st) == HSC_CLASS_FAULT
            && hsc_store_repeat_fault(store)) {
            level = APLOG_DEBUG;
        }
        ap_log_rerror(APLOG_MARK, level, 0, r,
                      HSCLOGNO(032) "login refused for user \"%s\": %s%s%s",
                      user, hsc_strerror(a->st),
                      a->st == HSC_ESTORE ? ": " : "",
                      a->st == HSC_ESTORE ? hsc_store_errmsg(store) : "");
    }
    hsc_ops_login(r, f, hsc_login_outcome_of(a->st), NULL);
    if (http == HTTP_SERVICE_UNAVAILABLE) {
        return HSC_LOGIN_RESULT_UNAVAILABLE;
    }
    if (http != HTTP_UNAUTHORIZED) {
        return HSC_LOGIN_RESULT_ERROR;
    }
    return HSC_LOGIN_RESULT_FAILED;
}

hsc_login_result_t hsc_login_password(request_rec *r, const hsc_srv_conf_t *sc,
                                      const hsc_dir_conf_t *d,
                                      const hsc_login_form_t *f,
                                      apr_int64_t *retry_after)
{
    const char *user;
    hsc_store_t *store;
    hsc_login_t a;
    hsc_attempt_t attempt;

    *retry_after = 0;
    if (!f->username.present || !f->password.present
        || !hsc_username_valid(f->username.value, f->username.len)) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(030) "login refused: missing or invalid "
                                    "username or password field");
        hsc_ops_login(r, f, HSC_LOGIN_BAD_CREDENTIALS, NULL);
        return HSC_LOGIN_RESULT_FAILED;
    }
    user = ap_escape_logitem(r->pool, f->username.value);
    if (sc->keys == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(031) "hsc-login without HSCKeyFile");
        return HSC_LOGIN_RESULT_ERROR;
    }
    if ((store = hsc_userdb_acquire(r, sc)) == NULL) {
        hsc_ops_login(r, f, HSC_LOGIN_STORE_FAULT, NULL);
        return HSC_LOGIN_RESULT_UNAVAILABLE; /* logged (HSC006) */
    }
    a.user = f->username.value;
    a.user_len = f->username.len;
    a.password = f->password.value;
    a.password_len = f->password.len;
    a.factor_follows = d->second_factor != HSC_SECOND_FACTOR_OFF;
    attempt = hsc_attempt_login(r, sc, store, &a);
    hsc_userdb_note_recovery(r, sc, store);
    *retry_after = a.retry_after;
    switch (attempt) {
    case HSC_ATTEMPT_BUSY:
        hsc_ops_login(r, f, HSC_LOGIN_KDF_CAP, NULL);
        return HSC_LOGIN_RESULT_BUSY;
    case HSC_ATTEMPT_THROTTLED: return HSC_LOGIN_RESULT_THROTTLED;
    case HSC_ATTEMPT_UNAVAILABLE: /* HSCThrottleUnavailable refuse (HSC054) */
        return HSC_LOGIN_RESULT_UNAVAILABLE;
    case HSC_ATTEMPT_CHECKED: break;
    }
    if (a.st == HSC_OK) {
        return login_mint(r, sc, d, &a.u, a.xn, user, f);
    }
    return login_refused(r, f, &a, store, user);
}

/* Log in (hsc_login_password), then its page or redirect. */
static int login_post(request_rec *r, const hsc_srv_conf_t *sc,
                      const hsc_dir_conf_t *d, const hsc_login_form_t *f)
{
    const char *target = safe_return(d, f);
    apr_int64_t retry;

    switch (hsc_login_password(r, sc, d, f, &retry)) {
    case HSC_LOGIN_RESULT_OK:
        /* Copied: target points into the body, which is wiped. */
        apr_table_set(r->headers_out, "Location",
                      target ? target : d->success_url);
        return HTTP_SEE_OTHER;
    case HSC_LOGIN_RESULT_PENDING:
        /* This page again, which now asks for the code. */
        apr_table_set(r->headers_out, "Location", login_again_url(r, target));
        return HTTP_SEE_OTHER;
    case HSC_LOGIN_RESULT_FAILED: return login_failed(r, d, target, f);
    case HSC_LOGIN_RESULT_SETUP:
        /* The account page, to set up a first factor, and back. */
        apr_table_set(r->headers_out, "Location",
                      apr_pstrcat(r->pool, d->account_url,
                                  strchr(d->account_url, '?') ? "&" : "?",
                                  "setup=1", target ? "&return=" : "",
                                  target ? ap_escape_urlencoded(r->pool, target)
                                         : "",
                                  NULL));
        return HTTP_SEE_OTHER;
    case HSC_LOGIN_RESULT_NO_FACTOR: {
        hsc_page_conf_t c = hsc_form_page_conf(d);
        return hsc_form_send(r, HTTP_FORBIDDEN,
                             hsc_page_no_factor(r->pool, &c,
                                                login_again_url(r, target)));
    }
    case HSC_LOGIN_RESULT_THROTTLED:
        return busy_page(r, d, target, HTTP_TOO_MANY_REQUESTS, retry);
    case HSC_LOGIN_RESULT_BUSY:
        return busy_page(r, d, target, HTTP_SERVICE_UNAVAILABLE, retry);
    case HSC_LOGIN_RESULT_UNAVAILABLE: return hsc_userdb_unavailable(r);
    default: return HTTP_INTERNAL_SERVER_ERROR;
    }
}

/* The cookie of c's login re-issued after a right code of method amr:
 * the same iat, gen and lid, the method instead of pending, mfa_at now,
 * and set. */
static hsc_status_t code_reissue(request_rec *r, const hsc_srv_conf_t *sc,
                                 const hsc_dir_conf_t *d, const hsc_cookie_t *c,
                                 unsigned amr)
{
    char value[HSC_COOKIE_VALUE_MAX];
    hsc_verify_params_t vp;
    hsc_claims_t cl;
    hsc_status_t st;
    size_t len;
    int rem = (c->amr & HSC_AMR_REM) != 0;

    hsc_session_params(r, sc, d, &vp);
    memset(&cl, 0, sizeof(cl));
    cl.user = c->user;
    cl.user_len = c->user_len;
    cl.iat = c->iat;
    cl.exp = hsc_cookie_expiry(c->iat, vp.now, rem ? d->remember : d->idle,
                               rem ? d->remember : d->max_age);
    cl.gen = c->gen;
    cl.lid = c->lid;
    cl.amr = (c->amr & ~HSC_AMR_PENDING) | amr;
    cl.mfa_at = vp.now < c->iat ? c->iat : vp.now;
    /* auth is x_n when pwd, then z when seal (a passkey login may have z
     * alone): both go on, or the mint refuses a seal without its z. */
    cl.xn = (c->amr & HSC_AMR_PWD) ? c->auth : NULL;
    if (c->amr & HSC_AMR_SEAL) {
        cl.z = c->auth + ((c->amr & HSC_AMR_PWD) ? HSC_XN_LEN : 0);
    }
    if (cl.exp <= vp.now) {
        cl.exp = vp.now + 1;
    }
    st = hsc_cookie_mint2(hsc_keyring_signer(sc->keys), &cl, vp.scope,
                          vp.address, value, sizeof(value), &len);
    if (st == HSC_OK) {
        st = hsc_set_cookie(r, d, value, cl.exp - vp.now);
    }
    hsc_wipe(value, sizeof(value));
    return st;
}

hsc_login_result_t hsc_login_code(request_rec *r, const hsc_srv_conf_t *sc,
                                  const hsc_dir_conf_t *d, const char *code,
                                  size_t code_len, const char **user,
                                  apr_int64_t *retry_after)
{
    const char *lid;
    hsc_store_t *store = NULL;
    hsc_cookie_t c;
    hsc_status_t st;
    unsigned amr = 0;

    *retry_after = 0;
    st = code_login(r, sc, d, &store, &c, user);
    if (st == HSC_OK && c.format != 2) {
        /* A format 1 login (before second factors) has no lid or amr to
         * carry one: it logs in again. */
        hsc_wipe(&c, sizeof(c));
        st = HSC_EINVAL;
    }
    if (st != HSC_OK) {
        /* Expired, already finished, or never begun: from the start. */
        return hsc_status_class(st) == HSC_CLASS_FAULT
                   ? HSC_LOGIN_RESULT_UNAVAILABLE
                   : HSC_LOGIN_RESULT_NO_LOGIN;
    }
    /* The login's id, for the audit lines of this step. */
    lid = note_login_id(r, c.lid);
    switch (hsc_factor_check(r, sc, store, *user, code, code_len, &amr,
                             retry_after)) {
    case HSC_FACTOR_CHECK_OK: break;
    case HSC_FACTOR_CHECK_REFUSED:
        hsc_wipe(&c, sizeof(c));
        return HSC_LOGIN_RESULT_FAILED;
    case HSC_FACTOR_CHECK_THROTTLED:
        hsc_wipe(&c, sizeof(c));
        return HSC_LOGIN_RESULT_THROTTLED;
    case HSC_FACTOR_CHECK_FAULT:
        hsc_wipe(&c, sizeof(c));
        return HSC_LOGIN_RESULT_UNAVAILABLE;
    }
    st = code_reissue(r, sc, d, &c, amr);
    hsc_wipe(&c, sizeof(c));
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(200) "cannot mint a cookie for user \"%s\": %s",
                      ap_escape_logitem(r->pool, *user), hsc_strerror(st));
        return HSC_LOGIN_RESULT_ERROR;
    }
    ap_log_rerror(
        APLOG_MARK, APLOG_INFO, 0, r,
        HSCLOGNO(201) "user \"%s\" logged in with a second factor, login id %s",
        ap_escape_logitem(r->pool, *user), lid);
    return HSC_LOGIN_RESULT_OK;
}

/* The second-factor step (hsc_login_code), then its page or redirect. */
static int code_post(request_rec *r, const hsc_srv_conf_t *sc,
                     const hsc_dir_conf_t *d, const hsc_login_form_t *f)
{
    const char *target = safe_return(d, f), *user = NULL;
    apr_int64_t retry = 0;

    switch (
        hsc_login_code(r, sc, d, f->code.value, f->code.len, &user, &retry)) {
    case HSC_LOGIN_RESULT_OK:
        apr_table_set(r->headers_out, "Location",
                      target ? target : d->success_url);
        return HTTP_SEE_OTHER;
    case HSC_LOGIN_RESULT_NO_LOGIN:
        return login_page(r, d, target, HTTP_UNAUTHORIZED, NULL,
                          "Your sign-in expired. Log in again.");
    case HSC_LOGIN_RESULT_FAILED:
        return code_page(r, d, target, HTTP_UNAUTHORIZED, user,
                         "That code is not right, or was used already.");
    case HSC_LOGIN_RESULT_THROTTLED:
        return busy_page(r, d, target, HTTP_TOO_MANY_REQUESTS, retry);
    case HSC_LOGIN_RESULT_UNAVAILABLE: return hsc_userdb_unavailable(r);
    default: return HTTP_INTERNAL_SERVER_ERROR;
    }
}

/* 1 when the request's cookie has a good MAC and times (*c filled: wipe
 * it); no store lookup: a plain logout verifies nothing, it only names. */
static int cookie_names(request_rec *r, const hsc_srv_conf_t *sc,
                        const hsc_dir_conf_t *d, hsc_cookie_t *c)
{
    hsc_verify_params_t vp;
    const char *val;
    size_t len;
    int count;

    if (sc->keys == NULL
        || hsc_cookie_header_find(apr_table_get(r->headers_in, "Cookie"),
                                  d->cookie_name, &val, &len, &count)
               != HSC_OK) {
        return 0;
    }
    hsc_session_params(r, sc, d, &vp);
    return hsc_cookie_check(&vp, val, len, c) == HSC_OK;
}

/* The logout event, naming the user: the verified one, else the one the
 * cookie names (cookie_names), else nobody. */
static void logout_event(request_rec *r, const hsc_srv_conf_t *sc,
                         const hsc_dir_conf_t *d, const char *user,
                         int everywhere, hsc_status_t st)
{
    hsc_cookie_t c;

    if (user != NULL) {
        hsc_ops_logout(r, user, strlen(user), NULL, everywhere, st);
    }
    else if (cookie_names(r, sc, d, &c)) {
        hsc_ops_logout(r, c.user, c.user_len, c.kid, everywhere, st);
        hsc_wipe(&c, sizeof(c));
    }
    else {
        hsc_ops_logout(r, NULL, 0, NULL, everywhere, st);
    }
}

hsc_logout_result_t hsc_logout(request_rec *r, const hsc_srv_conf_t *sc,
                               const hsc_dir_conf_t *d, int everywhere)
{
    hsc_logout_result_t res = HSC_LOGOUT_RESULT_DONE;

    if (everywhere) {
        hsc_store_t *store = hsc_userdb_acquire(r, sc);
        hsc_cookie_t c;
        hsc_user_t u;
        hsc_status_t st = HSC_ESTORE;

        if (store != NULL && sc->keys != NULL) {
            st = hsc_session_verify(r, sc, d, store, &c, &u);
        }
        if (st == HSC_OK) {
            const char *user = apr_pstrmemdup(r->pool, c.user, c.user_len);
            hsc_wipe(&c, sizeof(c));
            st = hsc_store_revoke_now(store, user,
                                      (int64_t)apr_time_sec(r->request_time));
            if (st == HSC_OK) {
                res = HSC_LOGOUT_RESULT_REVOKED;
                ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                              HSCLOGNO(040) "user \"%s\" logged out everywhere",
                              ap_escape_logitem(r->pool, user));
                logout_event(r, sc, d, user, 1, HSC_OK);
            }
            else {
                ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                              HSCLOGNO(041) "cannot revoke the cookies of user "
                                            "\"%s\": %s (%s)",
                              ap_escape_logitem(r->pool, user),
                              hsc_strerror(st), hsc_store_errmsg(store));
                logout_event(r, sc, d, user, 1, st);
                res = st == HSC_EREADONLY ? HSC_LOGOUT_RESULT_READONLY
                                          : HSC_LOGOUT_RESULT_NOT_REVOKED;
            }
        }
        else if (st != HSC_EINVAL) {
            ap_log_rerror(
                APLOG_MARK, APLOG_INFO, 0, r,
                HSCLOGNO(042) "logout everywhere without a valid cookie: only "
                              "this browser's cookie is cleared");
            logout_event(r, sc, d, NULL, 1, st);
        }
    }
    else {
        logout_event(r, sc, d, NULL, 0, HSC_OK);
    }
    if (hsc_set_cookie(r, d, "", 0) != HSC_OK) {
        return HSC_LOGOUT_RESULT_ERROR;
    }
    return res;
}

/* Log out: expire the cookie; with everywhere=1 revoke the user's others. */
static int logout_post(request_rec *r, const hsc_srv_conf_t *sc,
                       const hsc_dir_conf_t *d, const hsc_login_form_t *f)
{
    const char *message = NULL;
    int everywhere = f->everywhere.present && f->everywhere.len > 0
                     && strcmp(f->everywhere.value, "0") != 0;
    hsc_logout_result_t res = hsc_logout(r, sc, d, everywhere);

    switch (res) {
    case HSC_LOGOUT_RESULT_ERROR: return HTTP_INTERNAL_SERVER_ERROR;
    case HSC_LOGOUT_RESULT_READONLY:
        message = "You are logged out on this device, but your other "
                  "sessions could not be ended: the user database is "
                  "read-only. Ask an administrator to revoke them.";
        break;
    case HSC_LOGOUT_RESULT_NOT_REVOKED:
        message = "You are logged out on this device, but your other "
                  "sessions could not be ended because of a server "
                  "problem. Ask an administrator to revoke them.";
        break;
    default: break;
    }
    if (message != NULL) {
        hsc_page_conf_t pc = hsc_form_page_conf(d);
        return hsc_form_send(r, HTTP_OK,
                             hsc_page_logged_out(r->pool, &pc, 0, message,
                                                 d->login_url));
    }
    /* Without HSCLogoutURL: GET this page's logged-out message. */
    apr_table_setn(r->headers_out, "Location",
                   d->logout_url ? d->logout_url
                                 : apr_pstrcat(r->pool, r->uri,
                                               res == HSC_LOGOUT_RESULT_REVOKED
                                                   ? "?done=everywhere"
                                                   : "?done",
                                               NULL));
    return HTTP_SEE_OTHER;
}

/* SetHandler hsc-login: GET the page, POST a login. */
static int login_handler(request_rec *r)
{
    const hsc_srv_conf_t *sc;
    const hsc_dir_conf_t *d;
    hsc_login_form_t f;
    char *body;
    apr_size_t len;
    int get, rv;

    if (r->handler == NULL || strcmp(r->handler, "hsc-login") != 0) {
        return DECLINED;
    }
    sc = hsc_srv_conf(r->server);
    d = hsc_dir_conf(r);
    if ((rv = hsc_form_post(r, d, "login", &get, &f, &body, &len)) != OK) {
        return get ? login_get(r, sc, d) : rv;
    }
    if ((rv = hsc_passkey_handle(r, sc, d, HSC_PASSKEY_AT_LOGIN)) != DECLINED) {
        hsc_wipe(body, len);
        return rv;
    }
    rv = f.code.present && !f.password.present ? code_post(r, sc, d, &f)
                                               : login_post(r, sc, d, &f);
    /* The body held the password: wipe it before the pool is reused. */
    hsc_wipe(body, len);
    return rv;
}

/* SetHandler hsc-logout: GET a confirmation form (or, at ?done, the
 * logged-out page), POST a logout. */
static int logout_handler(request_rec *r)
{
    const hsc_srv_conf_t *sc;
    const hsc_dir_conf_t *d;
    hsc_login_form_t f;
    char *body;
    apr_size_t len;
    int get, rv;

    if (r->handler == NULL || strcmp(r->handler, "hsc-logout") != 0) {
        return DECLINED;
    }
    sc = hsc_srv_conf(r->server);
    d = hsc_dir_conf(r);
    if ((rv = hsc_form_post(r, d, "logout", &get, &f, &body, &len)) != OK) {
        return get ? logout_get(r, sc, d) : rv;
    }
    rv = logout_post(r, sc, d, &f);
    hsc_wipe(body, len);
    return rv;
}

void hsc_login_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_handler(login_handler, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(logout_handler, NULL, NULL, APR_HOOK_MIDDLE);
}
