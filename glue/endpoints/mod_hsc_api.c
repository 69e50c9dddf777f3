/*
 * mod_hsc_api.c: SetHandler hsc-api, the login for single-page apps
 * (docs/json-api.md), and the JSON body of a 401 on a protected location
 * for a client that prefers JSON.
 *
 *   GET  <location>/session   who is signed in; never refreshes the cookie
 *   POST <location>/login     {"username":..,"password":..[,"remember":true]}
 *   POST <location>/logout    {} or {"everywhere":true}
 *
 * The path below the handler's <Location> names the endpoint (a table:
 * name, method, function); anything else is a 404, another method a 405.
 * A POST needs Content-Type: application/json (415: a form or text/plain
 * is what a cross-site page can send without a preflight) and passes the
 * form POSTs' Origin check unless its Origin is an HSCAPIAllowOrigin one.
 * The login and the logout are the hsc-login and hsc-logout handlers' own
 * (hsc_login_password, hsc_logout in mod_hsc_login.c): the same throttle,
 * KDF cap, timing pad, audit lines and metrics. Every answer is JSON,
 * no-store and nosniff; an error is {"error":CODE,"message":WORDS}.
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

#include "mod_hsc_account.h"
#include "mod_hsc_account_confirm.h"
#include "mod_hsc_account_token.h"
#include "mod_hsc_account_view.h"
#include "mod_hsc_api.h"
#include "mod_hsc_form.h"
#include "mod_hsc_log.h"
#include "mod_hsc_login.h"
#include "mod_hsc_session.h"
#include "mod_hsc_userdb.h"
#include "hsc_json.h"
#include "hsc_token.h"

#define HSC_API_HANDLER "hsc-api"
/* r->notes: this 401 carries the JSON body (hsc_api_unauthenticated). */
#define NOTE_JSON_401 "hsc-api-json-401"
#define JSON_401_FILTER "HSC_JSON_401"
/* Room for an answer: a user, their groups and methods, each escaped. */
#define HSC_API_ANSWER_MAX (HSC_JSON_ESCAPED_MAX(HSC_USER_MAX) + 8192)

/* --- answers -------------------------------------------------------------- */

static void common_headers(request_rec *r)
{
    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    apr_table_setn(r->err_headers_out, "X-Content-Type-Options", "nosniff");
}

/* The written object w with status; OK (the body is ours, never an
 * ErrorDocument's). */
static int send_json(request_rec *r, int status, hsc_json_writer_t *w)
{
    const char *body = w->buf;
    size_t len;

    if (hsc_json_end(w, &len) != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(240) "hsc-api: an answer did not fit in %d "
                                    "bytes",
                      (int)w->cap);
        status = HTTP_INTERNAL_SERVER_ERROR;
        body = "{\"error\":\"internal\",\"message\":\"The answer was too "
               "large.\"}";
    }
    r->status = status;
    ap_set_content_type(r, "application/json");
    if (!r->header_only) {
        ap_rputs(body, r);
    }
    return OK;
}

static hsc_json_writer_t *writer_of(request_rec *r, apr_size_t cap)
{
    hsc_json_writer_t *w = apr_palloc(r->pool, sizeof(*w));

    hsc_json_begin(w, apr_palloc(r->pool, cap), cap);
    return w;
}

static hsc_json_writer_t *writer(request_rec *r)
{
    return writer_of(r, HSC_API_ANSWER_MAX);
}

/* {"error":code,"message":message} with status. */
static int api_error(request_rec *r, int status, const char *code,
                     const char *message)
{
    hsc_json_writer_t *w = writer(r);

    hsc_json_add_string(w, "error", code, strlen(code));
    hsc_json_add_string(w, "message", message, strlen(message));
    return send_json(r, status, w);
}

/* 429 or 503 with Retry-After. */
static int api_wait(request_rec *r, int status, apr_int64_t retry_after,
                    const char *code, const char *message)
{
    hsc_json_writer_t *w = writer(r);

    if (retry_after < 1) {
        retry_after = 1;
    }
    apr_table_setn(r->err_headers_out, "Retry-After",
                   apr_psprintf(r->pool, "%" APR_INT64_T_FMT, retry_after));
    hsc_json_add_string(w, "error", code, strlen(code));
    hsc_json_add_string(w, "message", message, strlen(message));
    hsc_json_add_int(w, "retry_after", retry_after);
    return send_json(r, status, w);
}

static int store_down(request_rec *r)
{
    return api_wait(r, HTTP_SERVICE_UNAVAILABLE, 5, "unavailable",
                    "The user database cannot answer; try again shortly.");
}

/* --- CORS and the Origin check -------------------------------------------- */

/* The request's Origin when HSCAPIAllowOrigin lists it exactly, else NULL. */
static const char *listed_origin(request_rec *r, const hsc_dir_conf_t *d)
{
    const char *origin = apr_table_get(r->headers_in, "Origin");
    int i;

    for (i = 0;
         origin != NULL && d->api_origins != NULL && i < d->api_origins->nelts;
         i++) {
        if (!strcmp(origin, APR_ARRAY_IDX(d->api_origins, i, const char *))) {
            return origin;
        }
    }
    return NULL;
}

/* The CORS headers for a listed origin; Vary: Origin wherever the answer
 * depends on it (HSCAPIAllowOrigin set). */
static void cors_headers(request_rec *r, const hsc_dir_conf_t *d)
{
    const char *origin = listed_origin(r, d);

    if (d->api_origins == NULL) {
        return;
    }
    apr_table_mergen(r->err_headers_out, "Vary", "Origin");
    if (origin != NULL) {
        apr_table_setn(r->err_headers_out, "Access-Control-Allow-Origin",
                       origin);
        apr_table_setn(r->err_headers_out, "Access-Control-Allow-Credentials",
                       "true");
    }
}

/* OPTIONS: a listed origin's preflight, else the methods. */
static int preflight(request_rec *r, const hsc_dir_conf_t *d)
{
    apr_table_setn(r->err_headers_out, "Allow", "GET, HEAD, POST, OPTIONS");
    if (listed_origin(r, d) != NULL) {
        apr_table_setn(r->err_headers_out, "Access-Control-Allow-Methods",
                       "POST, GET");
        apr_table_setn(r->err_headers_out, "Access-Control-Allow-Headers",
                       "Content-Type");
        apr_table_setn(r->err_headers_out, "Access-Control-Max-Age", "600");
    }
    ap_set_content_length(r, 0);
    r->status = HTTP_NO_CONTENT;
    return OK;
}

/*
 * A POST's checks before its body is believed: JSON, same site or a
 * listed origin, at most HSC_JSON_MAX bytes, one flat object (an empty
 * body reads as {}). DECLINED with *o filled (hsc_json_wipe it), or the
 * answer already sent (OK).
 */
static int read_json(request_rec *r, const hsc_dir_conf_t *d,
                     hsc_json_object_t *o)
{
    char *body;
    apr_size_t len;
    hsc_status_t st;
    int rv;

    o->n = 0;
    if (!hsc_json_content_type(apr_table_get(r->headers_in, "Content-Type"))) {
        hsc_form_drain(r, HSC_JSON_MAX);
        return api_error(r, HTTP_UNSUPPORTED_MEDIA_TYPE,
                         "unsupported_media_type",
                         "Send Content-Type: application/json.");
    }
    if (hsc_form_cross_site(r) && listed_origin(r, d) == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r,
                      HSCLOGNO(241) "hsc-api: cross-site POST from an origin "
                                    "HSCAPIAllowOrigin does not list refused");
        hsc_form_drain(r, HSC_JSON_MAX);
        return api_error(r, HTTP_FORBIDDEN, "origin",
                         "Requests from this origin are not accepted.");
    }
    rv = hsc_form_read_body(r, HSC_JSON_MAX, &body, &len);
    if (rv == HTTP_REQUEST_ENTITY_TOO_LARGE) {
        return api_error(r, rv, "too_large", "The request body is too large.");
    }
    if (rv != OK) {
        return api_error(r, HTTP_BAD_REQUEST, "bad_request",
                         "The request body could not be read.");
    }
    st = len == 0 ? hsc_json_parse("{}", 2, o) : hsc_json_parse(body, len, o);
    hsc_wipe(body, len);
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(242) "hsc-api: request body refused: %s",
                      st == HSC_ETOOLONG ? "too many members"
                                         : "not one flat JSON object");
        return api_error(r, HTTP_BAD_REQUEST, "bad_json",
                         "The body must be one flat JSON object.");
    }
    return DECLINED;
}

/*
 * The endpoint's name: the path below the handler's <Location>, without
 * the slash that follows it; NULL when the request is not below it, or
 * the section is a regex or wildcard one (there is no "below" to take).
 */
static const char *endpoint(request_rec *r)
{
    const core_dir_config *cd = ap_get_core_module_config(r->per_dir_config);
    size_t n;

    if (cd == NULL || cd->d == NULL || cd->r != NULL || cd->d_is_fnmatch) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(258) "hsc-api: SetHandler hsc-api needs a "
                                    "plain <Location> (endpoints are named "
                                    "below it), not %s",
                      cd != NULL && cd->d != NULL ? cd->d : "this section");
        return NULL;
    }
    n = strlen(cd->d);
    while (n > 0 && cd->d[n - 1] == '/') {
        n--;
    }
    if (strncmp(r->uri, cd->d, n) != 0 || r->uri[n] != '/') {
        return NULL;
    }
    return r->uri + n + 1;
}

/* The URL of endpoint name beside this request's (below the same
 * location). */
static const char *endpoint_url(request_rec *r, const char *name)
{
    const char *here = endpoint(r);

    return apr_pstrcat(r->pool,
                       apr_pstrmemdup(r->pool, r->uri,
                                      here != NULL ? (apr_size_t)(here - r->uri)
                                                   : 0),
                       name, NULL);
}

/* --- the endpoints -------------------------------------------------------- */

/* GET session: the cookie verified, never refreshed (hsc_session_admit is
 * what slides it, and it is not called here). */
static int api_session(request_rec *r, const hsc_srv_conf_t *sc,
                       const hsc_dir_conf_t *d)
{
    hsc_json_writer_t *w;
    char amr[HSC_AMR_NAMES_MAX];
    hsc_store_t *store;
    hsc_cookie_t c;
    hsc_user_t u;
    hsc_status_t st = HSC_EINVAL;
    int level;

    if (sc->keys != NULL) {
        if ((store = hsc_userdb_acquire(r, sc)) == NULL) {
            return store_down(r);
        }
        st = hsc_session_verify(r, sc, d, store, &c, &u);
    }
    if (st != HSC_OK) {
        if (hsc_status_outcome(st, &level) == HTTP_SERVICE_UNAVAILABLE) {
            return store_down(r);
        }
        w = writer(r);
        hsc_json_add_bool(w, "authenticated", 0);
        return send_json(r, HTTP_OK, w);
    }
    /* However many groups the user has: each byte escapes to 6 at most. */
    w = writer_of(r, HSC_API_ANSWER_MAX
                         + HSC_JSON_ESCAPED_MAX(strlen(u.groups)) * 2);
    hsc_amr_names(c.amr, amr);
    hsc_json_add_bool(w, "authenticated", 1);
    hsc_json_add_string(w, "user", c.user, c.user_len);
    hsc_json_add_list(w, "groups", u.groups, strlen(u.groups), ',');
    hsc_json_add_int(w, "login_time", c.iat);
    hsc_json_add_int(w, "expires", c.exp);
    hsc_json_add_list(w, "methods", amr, strlen(amr), ' ');
    if (c.mfa_at > 0) {
        hsc_json_add_int(w, "second_factor_time", c.mfa_at);
    }
    hsc_wipe(&c, sizeof(c));
    return send_json(r, HTTP_OK, w);
}

/* A JSON string member as a form field (pointing into o). */
static int string_field(const hsc_json_object_t *o, const char *key,
                        hsc_form_field_t *f)
{
    const hsc_json_field_t *j = hsc_json_get(o, key);

    if (j == NULL || j->type != HSC_JSON_STRING) {
        return 0;
    }
    f->value = (char *)j->value;
    f->len = j->len;
    f->present = 1;
    return 1;
}

/* The answer to a login the way hsc_login_password ended. */
static int login_answer(request_rec *r, const hsc_dir_conf_t *d,
                        hsc_login_result_t res, apr_int64_t retry,
                        const hsc_form_field_t *user)
{
    hsc_json_writer_t *w = writer(r);
    const char *code_url;

    switch (res) {
    case HSC_LOGIN_RESULT_OK:
        hsc_json_add_bool(w, "authenticated", 1);
        hsc_json_add_string(w, "user", user->value, user->len);
        return send_json(r, HTTP_OK, w);
    case HSC_LOGIN_RESULT_PENDING:
        hsc_json_add_bool(w, "authenticated", 0);
        hsc_json_add_string(w, "second_factor", "required", 8);
        code_url = endpoint_url(r, "code");
        hsc_json_add_string(w, "code_url", code_url, strlen(code_url));
        if (d->login_url != NULL) {
            hsc_json_add_string(w, "next", d->login_url, strlen(d->login_url));
        }
        return send_json(r, HTTP_OK, w);
    case HSC_LOGIN_RESULT_SETUP:
        /* A first factor is set up on the account page (a browser's). */
        hsc_json_add_bool(w, "authenticated", 0);
        hsc_json_add_string(w, "second_factor", "setup", 5);
        hsc_json_add_string(w, "next", d->account_url, strlen(d->account_url));
        return send_json(r, HTTP_OK, w);
    case HSC_LOGIN_RESULT_FAILED:
        return api_error(r, HTTP_UNAUTHORIZED, "login_failed",
                         "Wrong username or password.");
    case HSC_LOGIN_RESULT_NO_FACTOR:
        return api_error(r, HTTP_FORBIDDEN, "second_factor_missing",
                         "A second factor is required and this account has "
                         "none; ask an administrator.");
    case HSC_LOGIN_RESULT_THROTTLED:
        return api_wait(r, HTTP_TOO_MANY_REQUESTS, retry, "throttled",
                        "Too many failed logins; wait before trying again.");
    case HSC_LOGIN_RESULT_BUSY:
        return api_wait(r, HTTP_SERVICE_UNAVAILABLE, retry, "busy",
                        "The server is busy; try again shortly.");
    case HSC_LOGIN_RESULT_UNAVAILABLE: return store_down(r);
    default:
        return api_error(r, HTTP_INTERNAL_SERVER_ERROR, "internal",
                         "The login could not be completed.");
    }
}

/* POST login: {"username":..,"password":..[,"remember":true]}. */
static int api_login(request_rec *r, const hsc_srv_conf_t *sc,
                     const hsc_dir_conf_t *d)
{
    hsc_json_object_t *o = apr_palloc(r->pool, sizeof(*o));
    const hsc_json_field_t *rem;
    hsc_login_result_t res;
    hsc_login_form_t f;
    apr_int64_t retry;
    int rv;

    if ((rv = read_json(r, d, o)) != DECLINED) {
        return rv;
    }
    memset(&f, 0, sizeof(f));
    if (!string_field(o, "username", &f.username)
        || !string_field(o, "password", &f.password)) {
        hsc_json_wipe(o);
        return api_error(r, HTTP_BAD_REQUEST, "bad_request",
                         "username and password are strings.");
    }
    rem = hsc_json_get(o, "remember");
    if (rem != NULL && rem->type == HSC_JSON_TRUE) {
        f.remember.value = apr_pstrdup(r->pool, "1");
        f.remember.len = 1;
        f.remember.present = 1;
    }
    res = hsc_login_password(r, sc, d, &f, &retry);
    rv = login_answer(r, d, res, retry, &f.username);
    hsc_json_wipe(o); /* the password */
    return rv;
}

/* POST logout: {} or {"everywhere":true}. */
static int api_logout(request_rec *r, const hsc_srv_conf_t *sc,
                      const hsc_dir_conf_t *d)
{
    hsc_json_object_t *o = apr_palloc(r->pool, sizeof(*o));
    const hsc_json_field_t *e;
    hsc_json_writer_t *w;
    int rv, everywhere;

    if ((rv = read_json(r, d, o)) != DECLINED) {
        return rv;
    }
    e = hsc_json_get(o, "everywhere");
    everywhere = e != NULL && e->type == HSC_JSON_TRUE;
    hsc_json_wipe(o);
    switch (hsc_logout(r, sc, d, everywhere)) {
    case HSC_LOGOUT_RESULT_ERROR:
        return api_error(r, HTTP_INTERNAL_SERVER_ERROR, "internal",
                         "The cookie could not be cleared.");
    case HSC_LOGOUT_RESULT_READONLY:
    case HSC_LOGOUT_RESULT_NOT_REVOKED:
        return api_wait(r, HTTP_SERVICE_UNAVAILABLE, 5, "not_revoked",
                        "Logged out here, but the other sessions could not "
                        "be ended; ask an administrator to revoke them.");
    case HSC_LOGOUT_RESULT_REVOKED:
    case HSC_LOGOUT_RESULT_DONE: break;
    }
    w = writer(r);
    hsc_json_add_bool(w, "authenticated", 0);
    hsc_json_add_bool(w, "everywhere", everywhere);
    return send_json(r, HTTP_OK, w);
}

/* POST code: {"code":"123456"}: the second-factor step of a pending
 * login, or a full login's (step-up), as the login page's
 * (hsc_login_code). */
static int api_code(request_rec *r, const hsc_srv_conf_t *sc,
                    const hsc_dir_conf_t *d)
{
    hsc_json_object_t *o = apr_palloc(r->pool, sizeof(*o));
    hsc_form_field_t code;
    hsc_login_result_t res;
    hsc_json_writer_t *w;
    const char *user = NULL;
    apr_int64_t retry = 0;
    int rv;

    if ((rv = read_json(r, d, o)) != DECLINED) {
        return rv;
    }
    if (!string_field(o, "code", &code)) {
        hsc_json_wipe(o);
        return api_error(r, HTTP_BAD_REQUEST, "bad_request",
                         "code is a string.");
    }
    res = hsc_login_code(r, sc, d, code.value, code.len, &user, &retry);
    hsc_json_wipe(o); /* the code */
    switch (res) {
    case HSC_LOGIN_RESULT_OK:
        w = writer(r);
        hsc_json_add_bool(w, "authenticated", 1);
        hsc_json_add_string(w, "user", user, strlen(user));
        return send_json(r, HTTP_OK, w);
    case HSC_LOGIN_RESULT_NO_LOGIN:
        return api_error(r, HTTP_UNAUTHORIZED, "no_login",
                         "No login is waiting for a code (expired, or never "
                         "begun): log in again.");
    case HSC_LOGIN_RESULT_FAILED:
        return api_error(r, HTTP_UNAUTHORIZED, "code_failed",
                         "That code is not right, or was used already.");
    case HSC_LOGIN_RESULT_THROTTLED:
        return api_wait(r, HTTP_TOO_MANY_REQUESTS, retry, "throttled",
                        "Too many failed codes; wait before trying again.");
    case HSC_LOGIN_RESULT_UNAVAILABLE: return store_down(r);
    default:
        return api_error(r, HTTP_INTERNAL_SERVER_ERROR, "internal",
                         "The login could not be completed.");
    }
}

/*
 * The signed-in user of an account endpoint (the password, app
 * passwords) into *a (wipe a->c): 1, else 0 and the answer sent in *rv.
 * A request that carries Authorization (an app password) is refused
 * whatever else it carries: a token is not a login, and changing the
 * password or making tokens with one would let a leaked token outlive
 * its revocation.
 */
static int api_account(request_rec *r, const hsc_srv_conf_t *sc,
                       const hsc_dir_conf_t *d, hsc_account_t *a, int *rv)
{
    hsc_status_t st;

    memset(a, 0, sizeof(*a));
    a->sc = sc;
    a->d = d;
    if (apr_table_get(r->headers_in, "Authorization") != NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                      HSCLOGNO(259) "hsc-api: %s refused: the request carries "
                                    "Authorization (an app password is not "
                                    "a login)",
                      ap_escape_logitem(r->pool, r->uri));
        *rv = api_error(r, HTTP_FORBIDDEN, "token_not_login",
                        "An app password cannot change the password or "
                        "manage app passwords: sign in with the password "
                        "(the session cookie), without Authorization.");
        return 0;
    }
    st = hsc_account_session(r, a);
    if (st == HSC_OK) {
        return 1;
    }
    if (hsc_status_class(st) == HSC_CLASS_FAULT) {
        *rv = store_down(r);
    }
    else {
        *rv = api_error(r, HTTP_UNAUTHORIZED, "unauthenticated",
                        "Sign in first (POST login).");
    }
    return 0;
}

/* The JSON answer to a refused account action (hsc_account_outcome_t):
 * its reason is the error code. */
static int account_refusal(request_rec *r, const hsc_account_outcome_t *o)
{
    const char *code = o->reason != NULL ? o->reason : "internal";
    int status = o->status;

    if (!strcmp(code, "not_recent")) {
        /* Signed in, but long ago: not a 401, which says "no session". */
        status = HTTP_FORBIDDEN;
        return api_error(r, status, code,
                         "You signed in a while ago: send your password as "
                         "\"password\" to confirm, or log in again.");
    }
    if (!strcmp(code, "factor_needed")) {
        /* The user has a second factor, not used lately: a step-up. */
        return api_error(r, HTTP_FORBIDDEN, code,
                         "This change needs your second factor: post a code "
                         "to \"code\" (or use a passkey on the login page), "
                         "then try again.");
    }
    switch (status) {
    case HTTP_TOO_MANY_REQUESTS:
        return api_wait(r, status, o->retry_after, "throttled",
                        "Too many wrong passwords; wait before trying "
                        "again.");
    case HTTP_SERVICE_UNAVAILABLE:
        return api_wait(r, status, 5, code,
                        o->message != NULL
                            ? o->message
                            : "The user database cannot answer; try again "
                              "shortly.");
    case HTTP_BAD_REQUEST:
    case HTTP_UNAUTHORIZED:
    case HTTP_CONFLICT:
        return api_error(r, status, code,
                         o->message != NULL ? o->message : "Refused.");
    default:
        return api_error(r, HTTP_INTERNAL_SERVER_ERROR, "internal",
                         "The change could not be completed.");
    }
}

/* POST password: {"current":..,"new":..}: the account page's change
 * (hsc_account_password) without its repeat field. */
static int api_password(request_rec *r, const hsc_srv_conf_t *sc,
                        const hsc_dir_conf_t *d)
{
    hsc_json_object_t *o = apr_palloc(r->pool, sizeof(*o));
    hsc_account_outcome_t out;
    hsc_json_writer_t *w;
    hsc_login_form_t f;
    hsc_account_t a;
    int rv;

    if ((rv = read_json(r, d, o)) != DECLINED) {
        return rv;
    }
    if (!api_account(r, sc, d, &a, &rv)) {
        hsc_json_wipe(o);
        return rv;
    }
    memset(&f, 0, sizeof(f));
    if (!string_field(o, "current", &f.password)
        || !string_field(o, "new", &f.new_password)) {
        hsc_json_wipe(o);
        hsc_wipe(&a.c, sizeof(a.c));
        return api_error(r, HTTP_BAD_REQUEST, "bad_request",
                         "current and new are strings.");
    }
    hsc_account_password(r, &a, &f, 0, &out);
    hsc_json_wipe(o); /* the passwords */
    hsc_wipe(&a.c, sizeof(a.c));
    if (out.status != HTTP_OK) {
        return account_refusal(r, &out);
    }
    w = writer(r);
    hsc_json_add_bool(w, "changed", 1);
    hsc_json_add_string(w, "user", a.user, strlen(a.user));
    return send_json(r, HTTP_OK, w);
}

/* A token's fields as hsc_account_token_add reads them: f's token_name,
 * token_scopes, token_expires from the body's name, scopes, expires. */
static int token_fields(const hsc_json_object_t *o, hsc_login_form_t *f)
{
    const char *keys[] = {"name", "scopes", "expires"};
    hsc_form_field_t *fields[] = {&f->token_name, &f->token_scopes,
                                  &f->token_expires};
    size_t i;

    for (i = 0; i < 3; i++) {
        const hsc_json_field_t *j = hsc_json_get(o, keys[i]);
        if (j != NULL && j->type != HSC_JSON_STRING) {
            return 0;
        }
        if (j != NULL) {
            string_field(o, keys[i], fields[i]);
        }
    }
    return 1;
}

/* POST tokens: {"name":..,"scopes":..,"expires":..[,"password":..]}: a
 * new app password, after a recent login or with the password, as the
 * account page makes it (hsc_account_token_add); 201 with its text, shown
 * this once. */
static int api_token_new(request_rec *r, const hsc_srv_conf_t *sc,
                         const hsc_dir_conf_t *d)
{
    hsc_json_object_t *o = apr_palloc(r->pool, sizeof(*o));
    char text[HSC_TOKEN_TEXT_LEN + 1];
    hsc_account_outcome_t out;
    hsc_json_writer_t *w;
    hsc_login_form_t f;
    hsc_account_t a;
    hsc_token_t t;
    int rv;

    if ((rv = read_json(r, d, o)) != DECLINED) {
        return rv;
    }
    if (!api_account(r, sc, d, &a, &rv)) {
        hsc_json_wipe(o);
        return rv;
    }
    memset(&f, 0, sizeof(f));
    if (!token_fields(o, &f)
        || (hsc_json_get(o, "password") != NULL
            && !string_field(o, "password", &f.password))) {
        hsc_json_wipe(o);
        hsc_wipe(&a.c, sizeof(a.c));
        return api_error(r, HTTP_BAD_REQUEST, "bad_request",
                         "name, scopes, expires and password are strings.");
    }
    if (hsc_account_confirmed(r, &a, &f, "token-add", &out)) {
        hsc_account_token_add(r, &a, &f, &t, text, &out);
    }
    hsc_json_wipe(o); /* the password */
    hsc_wipe(&a.c, sizeof(a.c));
    if (out.status != HTTP_CREATED) {
        return account_refusal(r, &out);
    }
    w = writer(r);
    hsc_json_add_string(w, "id", t.id, strlen(t.id));
    hsc_json_add_string(w, "name", t.name, strlen(t.name));
    hsc_json_add_list(w, "scopes", t.scopes, strlen(t.scopes), ',');
    hsc_json_add_int(w, "created", (apr_int64_t)apr_time_sec(r->request_time));
    if (t.expires > 0) {
        hsc_json_add_int(w, "expires", t.expires);
    }
    hsc_json_add_string(w, "token", text, strlen(text));
    rv = send_json(r, HTTP_CREATED, w);
    hsc_wipe(text, sizeof(text));
    hsc_wipe(w->buf, w->cap); /* sent: the token is not kept */
    return rv;
}

/* GET tokens: the signed-in user's live app passwords. */
static int api_token_list(request_rec *r, const hsc_srv_conf_t *sc,
                          const hsc_dir_conf_t *d)
{
    apr_array_header_t *list;
    const char *items = "[";
    hsc_json_writer_t *w;
    hsc_account_t a;
    size_t len;
    int rv, i;

    if (!api_account(r, sc, d, &a, &rv)) {
        return rv;
    }
    hsc_wipe(&a.c, sizeof(a.c));
    switch (hsc_account_token_list(r, &a, &list)) {
    case 1: break;
    case 0:
        return api_error(r, HTTP_FORBIDDEN, "pgsql",
                         "App passwords are managed by your administrator "
                         "here.");
    default: return store_down(r);
    }
    for (i = 0; i < list->nelts; i++) {
        const hsc_page_token_t *t = &APR_ARRAY_IDX(list, i, hsc_page_token_t);
        hsc_json_writer_t *tw = writer(r);

        hsc_json_add_string(tw, "id", t->id, strlen(t->id));
        hsc_json_add_string(tw, "name", t->name, strlen(t->name));
        hsc_json_add_list(tw, "scopes", t->scopes, strlen(t->scopes), ',');
        hsc_json_add_int(tw, "created", t->created);
        if (t->expires > 0) {
            hsc_json_add_int(tw, "expires", t->expires);
        }
        if (t->last_used > 0) {
            hsc_json_add_int(tw, "last_used", t->last_used);
        }
        if (hsc_json_end(tw, &len) != HSC_OK) {
            return api_error(r, HTTP_INTERNAL_SERVER_ERROR, "internal",
                             "The answer was too large.");
        }
        items = apr_pstrcat(r->pool, items, i > 0 ? "," : "", tw->buf, NULL);
    }
    items = apr_pstrcat(r->pool, items, "]", NULL);
    w = writer_of(r, HSC_API_ANSWER_MAX + strlen(items));
    hsc_json_add_string(w, "user", a.user, strlen(a.user));
    hsc_json_add_raw(w, "tokens", items, strlen(items));
    return send_json(r, HTTP_OK, w);
}

/* POST tokens/revoke: {"id":..}: one of the user's app passwords
 * revoked (hsc_account_token_drop). */
static int api_token_revoke(request_rec *r, const hsc_srv_conf_t *sc,
                            const hsc_dir_conf_t *d)
{
    hsc_json_object_t *o = apr_palloc(r->pool, sizeof(*o));
    hsc_account_outcome_t out;
    hsc_json_writer_t *w;
    hsc_login_form_t f;
    hsc_account_t a;
    int rv;

    if ((rv = read_json(r, d, o)) != DECLINED) {
        return rv;
    }
    if (!api_account(r, sc, d, &a, &rv)) {
        hsc_json_wipe(o);
        return rv;
    }
    hsc_wipe(&a.c, sizeof(a.c));
    memset(&f, 0, sizeof(f));
    if (!string_field(o, "id", &f.token_id)) {
        hsc_json_wipe(o);
        return api_error(r, HTTP_BAD_REQUEST, "bad_request", "id is a string.");
    }
    hsc_account_token_drop(r, &a, &f, &out);
    if (out.status != HTTP_OK) {
        hsc_json_wipe(o);
        return account_refusal(r, &out);
    }
    w = writer(r);
    hsc_json_add_string(w, "revoked", f.token_id.value, f.token_id.len);
    hsc_json_wipe(o);
    return send_json(r, HTTP_OK, w);
}

typedef int (*api_fn)(request_rec *r, const hsc_srv_conf_t *sc,
                      const hsc_dir_conf_t *d);

/* The endpoints: a name under the location, a method, its function. A
 * name may take several methods (one row each). */
static const struct {
    const char *name;
    int method;
    api_fn fn;
} endpoints[] = {
    {"session", M_GET, api_session},
    {"login", M_POST, api_login},
    {"logout", M_POST, api_logout},
    {"code", M_POST, api_code},
    {"password", M_POST, api_password},
    {"tokens", M_GET, api_token_list},
    {"tokens", M_POST, api_token_new},
    {"tokens/revoke", M_POST, api_token_revoke},
};

#define N_ENDPOINTS (sizeof(endpoints) / sizeof(endpoints[0]))

/* The Allow header of a name: its rows' methods. */
static const char *allowed_of(request_rec *r, const char *name)
{
    const char *allow = NULL;
    size_t i;

    for (i = 0; i < N_ENDPOINTS; i++) {
        if (!strcmp(endpoints[i].name, name)) {
            const char *m = endpoints[i].method == M_GET ? "GET, HEAD" : "POST";
            allow = allow ? apr_pstrcat(r->pool, allow, ", ", m, NULL) : m;
        }
    }
    return allow ? apr_pstrcat(r->pool, allow, ", OPTIONS", NULL) : NULL;
}

static int api_handler(request_rec *r)
{
    const hsc_srv_conf_t *sc;
    const hsc_dir_conf_t *d;
    const char *name, *allow;
    size_t i;

    if (r->handler == NULL || strcmp(r->handler, HSC_API_HANDLER) != 0) {
        return DECLINED;
    }
    sc = hsc_srv_conf(r->server);
    d = hsc_dir_conf(r);
    common_headers(r);
    cors_headers(r, d);
    r->allowed = (AP_METHOD_BIT << M_GET) | (AP_METHOD_BIT << M_POST)
                 | (AP_METHOD_BIT << M_OPTIONS);
    if (r->method_number == M_OPTIONS) {
        return preflight(r, d);
    }
    name = endpoint(r);
    allow = name != NULL ? allowed_of(r, name) : NULL;
    if (allow == NULL) {
        const core_dir_config *cd = ap_get_core_module_config(
            r->per_dir_config);
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(260) "hsc-api: no endpoint \"%s\" below the "
                                    "location %s",
                      ap_escape_logitem(r->pool, name ? name : r->uri),
                      cd != NULL && cd->d != NULL ? cd->d : "?");
        return api_error(r, HTTP_NOT_FOUND, "not_found",
                         "No such endpoint here (docs/json-api.md).");
    }
    for (i = 0; i < N_ENDPOINTS; i++) {
        if (!strcmp(endpoints[i].name, name)
            && endpoints[i].method == r->method_number) {
            return endpoints[i].fn(r, sc, d);
        }
    }
    apr_table_setn(r->err_headers_out, "Allow", allow);
    return api_error(r, HTTP_METHOD_NOT_ALLOWED, "method_not_allowed",
                     apr_pstrcat(r->pool, "Use ", allow, ".", NULL));
}

/* --- the 401 of a protected location -------------------------------------- */

void hsc_api_unauthenticated(request_rec *r, const hsc_dir_conf_t *d)
{
    hsc_json_writer_t *w;
    size_t len;

    if (!hsc_json_accept_prefers(apr_table_get(r->headers_in, "Accept"))) {
        return;
    }
    w = writer(r);
    hsc_json_add_string(w, "error", "unauthenticated", 15);
    if (d->login_url != NULL) {
        const char *url = hsc_login_url_back(r, d, "");
        hsc_json_add_string(w, "login_url", url, strlen(url));
    }
    if (hsc_json_end(w, &len) != HSC_OK) {
        return;
    }
    /* The body httpd's error response sends (it overrides an ErrorDocument
     * 401 for this request only), no sniffing, and a note for the filter
     * below: httpd types its error responses text/html. */
    ap_custom_response(r, HTTP_UNAUTHORIZED, w->buf);
    apr_table_setn(r->err_headers_out, "X-Content-Type-Options", "nosniff");
    apr_table_setn(r->notes, NOTE_JSON_401, "1");
}

/* In the error response that carries the JSON body: its type, set before
 * the headers go out; then out of the way. */
static apr_status_t json_401_filter(ap_filter_t *f, apr_bucket_brigade *bb)
{
    ap_set_content_type(f->r, "application/json");
    ap_remove_output_filter(f);
    return ap_pass_brigade(f->next, bb);
}

static void json_401_insert(request_rec *r)
{
    if (r->status == HTTP_UNAUTHORIZED
        && apr_table_get(r->notes, NOTE_JSON_401) != NULL) {
        ap_add_output_filter(JSON_401_FILTER, NULL, r, r->connection);
    }
}

void hsc_api_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_handler(api_handler, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_insert_error_filter(json_401_insert, NULL, NULL, APR_HOOK_MIDDLE);
    ap_register_output_filter(JSON_401_FILTER, json_401_filter, NULL,
                              AP_FTYPE_CONTENT_SET);
}
