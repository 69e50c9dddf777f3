/*
 * mod_hsc_factor.c: the second-factor step of a login (HSCSecondFactor;
 * docs/second-factors.md, hsc-v2.md "Issuing").
 *
 * After a right password, a user who has a second factor gets a pending
 * cookie (amr pwd|pending, valid a few minutes, refused everywhere but
 * here) and a 303 back to the login page, which then shows the code form.
 * A right code (TOTP, or a recovery code in the same field) re-issues the
 * cookie with the same iat, gen, lid and x_n, the method's bit and
 * mfa_at = now. Codes are counted by the login throttle like passwords.
 *
 * The factors are read through their own handle (hsc_factors.h), opened
 * for the request that needs it and closed with its pool: nothing here
 * touches the per-request lookup.
 */
#include <string.h>

#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "mod_auth.h"

#include "mod_hsc_factor.h"
#include "mod_hsc_log.h"
#include "mod_hsc_ops.h"
#include "mod_hsc_session.h"
#include "mod_hsc_attempt.h"
#include "mod_hsc_userdb.h"
#include "hsc_factors.h"
#include "hsc_passkeys.h"
#include "hsc_recovery.h"
#include "hsc_seal.h"
#include "hsc_totp.h"

static apr_status_t close_factors(void *f)
{
    hsc_factors_close(f);
    return APR_SUCCESS;
}

hsc_factors_t *hsc_factor_open(request_rec *r, const hsc_srv_conf_t *sc,
                               int readonly)
{
    hsc_factors_t *f = NULL;
    hsc_store_t *store;
    char err[512];

    if (sc->userdb != NULL && hsc_store_spec_conninfo(sc->userdb) != NULL) {
        /* PostgreSQL: the thread's handle on the child's pool, so a login
         * connects nothing anew. */
        if ((store = hsc_userdb_acquire(r, sc)) == NULL) {
            return NULL;
        }
        if (hsc_factors_on_store(store, 0, readonly, &f) != HSC_OK) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                          HSCLOGNO(223) "second factors cannot be read: "
                                        "this build has no PostgreSQL "
                                        "store");
            return NULL;
        }
    }
    else if (sc->userdb == NULL
             || hsc_factors_open(sc->userdb, readonly, &f, err, sizeof(err))
                    != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(193) "second factors cannot be read: %s",
                      sc->userdb == NULL ? "no HSCUserDB" : err);
        return NULL;
    }
    apr_pool_cleanup_register(r->pool, f, close_factors, apr_pool_cleanup_null);
    return f;
}

static int count_one(void *baton, const hsc_passkey_t *pk)
{
    (void)pk;
    ++*(int *)baton;
    return 1; /* one is enough */
}

int hsc_factor_passkeys(request_rec *r, hsc_factors_t *f, const char *user,
                        int level)
{
    int n = 0;

    if (hsc_passkeys_list(f, user, count_one, &n) != HSC_OK) {
        ap_log_rerror(APLOG_MARK, level, 0, r,
                      HSCLOGNO(283) "cannot read the passkeys of user \"%s\": "
                                    "%s",
                      ap_escape_logitem(r->pool, user), hsc_factors_errmsg(f));
        return -1;
    }
    return n > 0;
}

hsc_factor_due_t hsc_factor_due(request_rec *r, const hsc_srv_conf_t *sc,
                                const hsc_dir_conf_t *d, const hsc_user_t *u)
{
    hsc_factor_info_t fi;
    hsc_factors_t *f;
    hsc_status_t st;

    /* Read at every door and for every location: a factor belongs to the
     * user, and HSCSecondFactor only says what a user without one gets.
     * Read only: a read-only user database (HSC143) still logs users in;
     * the code step opens the state file it writes. */
    if ((f = hsc_factor_open(r, sc, 1)) == NULL) {
        return HSC_FACTOR_FAULT;
    }
    st = hsc_factors_get(f, u->name, &fi);
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(194) "cannot read the second factors of user "
                                    "\"%s\": %s",
                      ap_escape_logitem(r->pool, u->name),
                      hsc_factors_errmsg(f));
        return HSC_FACTOR_FAULT;
    }
    hsc_wipe(fi.sealed, sizeof(fi.sealed));
    if (hsc_factors_any(&fi)) {
        return HSC_FACTOR_DUE;
    }
    /* A passkey is a second factor too, wherever the login is (a
     * location without HSCPasskeys then offers the user's other factors,
     * or none: the login cannot finish there, never skips the factor).
     * A store that cannot list passkeys fails the login where passkeys
     * are on; elsewhere it is a store older than passkeys (schema 6 on
     * SQLite, 7 on PostgreSQL), whose users have none (logged, HSC283). */
    switch (hsc_factor_passkeys(r, f, u->name,
                                d->passkeys ? APLOG_ERR : APLOG_DEBUG)) {
    case 1: return HSC_FACTOR_DUE;
    case 0: break;
    default:
        if (d->passkeys) {
            return HSC_FACTOR_FAULT;
        }
    }
    return d->second_factor == HSC_SECOND_FACTOR_REQUIRED ? HSC_FACTOR_MISSING
                                                          : HSC_FACTOR_NOT_DUE;
}

int hsc_factor_info(request_rec *r, const hsc_srv_conf_t *sc, const char *user,
                    hsc_factor_info_t *fi)
{
    hsc_factors_t *f;

    memset(fi, 0, sizeof(*fi));
    if ((f = hsc_factor_open(r, sc, 1)) == NULL) {
        return -1;
    }
    if (hsc_factors_get(f, user, fi) != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(205) "cannot read the second factors of user "
                                    "\"%s\": %s",
                      ap_escape_logitem(r->pool, user), hsc_factors_errmsg(f));
        return -1;
    }
    hsc_wipe(fi->sealed, sizeof(fi->sealed));
    return 0;
}

int hsc_factor_has(request_rec *r, const hsc_srv_conf_t *sc, const char *user)
{
    hsc_factor_info_t fi;
    hsc_factors_t *f;

    if (hsc_factor_info(r, sc, user, &fi) != 0) {
        return -1;
    }
    if (hsc_factors_any(&fi)) {
        return 1;
    }
    /* A passkey counts (a store older than passkeys has none: debug). */
    return (f = hsc_factor_open(r, sc, 1)) != NULL
           && hsc_factor_passkeys(r, f, user, APLOG_DEBUG) == 1;
}

int hsc_factor_fresh(request_rec *r, const hsc_cookie_t *c, apr_int64_t recent)
{
    apr_int64_t now = apr_time_sec(r->request_time);

    return (c->amr & HSC_AMR_FACTOR) && !(c->amr & HSC_AMR_PENDING)
           && c->mfa_at > 0 && now - c->mfa_at <= recent; /* verified:
                                                           * mfa_at <= now
                                                           * + skew */
}

hsc_factor_gate_t hsc_factor_gate(request_rec *r, const hsc_srv_conf_t *sc,
                                  const hsc_cookie_t *c, const char *user,
                                  const char *action, apr_int64_t recent)
{
    /* The cookie first: a fresh factor needs no read of the factors. */
    if (hsc_factor_fresh(r, c, recent)) {
        return HSC_FACTOR_GATE_FRESH;
    }
    switch (hsc_factor_has(r, sc, user)) {
    case 0: return HSC_FACTOR_GATE_NO_FACTOR;
    case 1: break;
    default: return HSC_FACTOR_GATE_FAULT; /* logged (HSC193, HSC205) */
    }
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(380) "%s of user \"%s\" refused: the user has a "
                                "second factor and this session has not used "
                                "it within HSCAccountRecentAuth",
                  action, ap_escape_logitem(r->pool, user));
    return HSC_FACTOR_GATE_NEEDED;
}

/* What a code check needs (hsc_code_check_fn's baton). */
typedef struct {
    const hsc_srv_conf_t *sc;
    hsc_factors_t *f;
    const char *user;
    const char *code; /* as typed */
    size_t code_len;
    unsigned amr;     /* out: HSC_AMR_OTP or HSC_AMR_RC */
    hsc_method_t how; /* out: what the code was read as */
    const char *why;  /* out: a refusal's reason, for the log */
} code_check_t;

/* A TOTP code (digits, as hsc_totp_code_parse gave them): the window
 * around now, then the replay guard. */
static hsc_status_t check_totp(request_rec *r, code_check_t *k,
                               const hsc_factor_info_t *fi, const char *digits)
{
    unsigned char secret[HSC_TOTP_SECRET_MAX];
    size_t n = 0;
    int64_t step = 0, now = (int64_t)apr_time_sec(r->request_time);
    /* HSCTOTPSkew where the code is checked (the login, hsc-api). */
    const hsc_dir_conf_t *d = hsc_dir_conf(r);
    hsc_status_t st;

    k->how = HSC_METHOD_OTP;
    st = hsc_unseal(k->sc->keys, "totp", k->user, fi->sealed, fi->sealed_len,
                    secret, sizeof(secret), &n, NULL);
    if (st != HSC_OK) {
        /* A key that sealed it was removed from the key file, or the row
         * was tampered with: this factor cannot be used (fail closed). */
        k->why = "its sealed secret does not open with this key file "
                 "(hsc-admin totp reseal, or a new enrolment)";
        return HSC_EAUTH;
    }
    st = hsc_totp_check(&fi->params, secret, n, digits, now, d->totp_skew, -1,
                        &step);
    hsc_wipe(secret, sizeof(secret));
    if (st != HSC_OK) {
        k->why = "wrong TOTP code";
        return st;
    }
    st = hsc_factors_totp_accept(k->f, k->user,
                                 step * (int64_t)fi->params.period);
    if (st == HSC_EAUTH) {
        k->why = "a TOTP code of a step already used (a replay)";
    }
    k->amr = HSC_AMR_OTP;
    return st;
}

/* A recovery code: its hash deleted, once. */
static hsc_status_t check_recovery(code_check_t *k)
{
    char canon[HSC_RECOVERY_CHARS + 1];
    unsigned char h[HSC_RECOVERY_HASH_LEN];
    hsc_status_t st;

    k->how = HSC_METHOD_RC;
    if (hsc_recovery_normalize(k->code, k->code_len, canon) != HSC_OK) {
        k->why = "neither a TOTP code nor a recovery code";
        return HSC_EAUTH;
    }
    st = hsc_recovery_hash(k->user, canon, h);
    hsc_wipe(canon, sizeof(canon));
    if (st == HSC_OK) {
        st = hsc_factors_recovery_use(k->f, k->user, h);
    }
    if (st == HSC_EAUTH) {
        k->why = "not a recovery code of this user, or one already used";
    }
    k->amr = HSC_AMR_RC;
    return st;
}

/* hsc_code_check_fn: a TOTP code when the user has TOTP and the field is
 * one (its number of digits, spaces allowed); anything else is tried as a
 * recovery code (which may be all digits too). */
static hsc_status_t check_code(request_rec *r, void *baton)
{
    code_check_t *k = baton;
    hsc_factor_info_t fi;
    hsc_status_t st;
    char digits[16];

    st = hsc_factors_get(k->f, k->user, &fi);
    if (st != HSC_OK) {
        k->why = hsc_factors_errmsg(k->f);
        return st;
    }
    if (fi.totp == HSC_TOTP_ACTIVE
        && hsc_totp_code_parse(&fi.params, k->code, k->code_len, digits)
               == HSC_OK) {
        st = check_totp(r, k, &fi, digits);
    }
    else {
        st = check_recovery(k);
    }
    hsc_wipe(digits, sizeof(digits));
    hsc_wipe(fi.sealed, sizeof(fi.sealed));
    return st;
}

hsc_factor_result_t hsc_factor_check(request_rec *r, const hsc_srv_conf_t *sc,
                                     hsc_store_t *store, const char *user,
                                     const char *code, size_t code_len,
                                     unsigned *amr, apr_int64_t *retry_after)
{
    code_check_t k;
    hsc_code_attempt_t a;
    const char *who = ap_escape_logitem(r->pool, user);

    memset(&k, 0, sizeof(k));
    k.how = HSC_METHOD_NONE;
    *amr = 0;
    *retry_after = 0;
    if ((k.f = hsc_factor_open(r, sc, 0)) == NULL) {
        hsc_ops_code(r, user, strlen(user), HSC_LOGIN_STORE_FAULT,
                     HSC_METHOD_NONE, NULL);
        return HSC_FACTOR_CHECK_FAULT;
    }
    k.sc = sc;
    k.user = user;
    k.code = code;
    k.code_len = code_len;
    memset(&a, 0, sizeof(a));
    a.user = user;
    a.user_len = strlen(user);
    a.check = check_code;
    a.baton = &k;
    apr_table_setn(r->notes, HSC_NOTE_CODE_STEP, "1");
    switch (hsc_attempt_code(r, sc, store, &a)) {
    case HSC_ATTEMPT_THROTTLED:
    case HSC_ATTEMPT_BUSY:
        *retry_after = a.retry_after;
        return HSC_FACTOR_CHECK_THROTTLED;
    case HSC_ATTEMPT_UNAVAILABLE: /* logged by the throttle */
        hsc_ops_code(r, user, a.user_len, HSC_LOGIN_STORE_FAULT,
                     HSC_METHOD_NONE, NULL);
        return HSC_FACTOR_CHECK_FAULT;
    case HSC_ATTEMPT_CHECKED: break;
    }
    if (a.st == HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(195) "user \"%s\" passed the second factor (%s)",
                      who, hsc_method_name(k.how));
        hsc_ops_code(r, user, a.user_len, HSC_LOGIN_SUCCESS, k.how,
                     hsc_key_id(hsc_keyring_signer(sc->keys)));
        *amr = k.amr;
        return HSC_FACTOR_CHECK_OK;
    }
    if (hsc_status_class(a.st) == HSC_CLASS_FAULT) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(196) "second factor of user \"%s\" not "
                                    "checked: %s: %s",
                      who, hsc_strerror(a.st),
                      k.why ? k.why : hsc_factors_errmsg(k.f));
        hsc_ops_code(r, user, a.user_len, HSC_LOGIN_STORE_FAULT, k.how, NULL);
        return HSC_FACTOR_CHECK_FAULT;
    }
    ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                  HSCLOGNO(197) "second factor refused for user \"%s\": %s",
                  who, k.why ? k.why : hsc_strerror(a.st));
    hsc_ops_code(r, user, a.user_len, HSC_LOGIN_BAD_CODE, k.how, NULL);
    return HSC_FACTOR_CHECK_REFUSED;
}

/* --- step-up: Require hsc-factor, HSCSecondFactorMaxAge, HSCMaxAuthAge --- */

/* r->notes: why this request's login falls short ("factor" or "password"),
 * for the answer (hsc_factor_note_failure). */
#define HSC_NOTE_SHORT "hsc-insufficient"

/* What a Require hsc-factor line asks for: any of these amr bits. */
static const char *factor_parse(cmd_parms *cmd, const char *line,
                                const void **parsed)
{
    const char *w = ap_getword_conf(cmd->pool, &line);
    unsigned *need = apr_palloc(cmd->pool, sizeof(*need));

    if (!strcmp(w, "2")) {
        *need = HSC_AMR_OTP | HSC_AMR_HWK | HSC_AMR_RC;
    }
    else if (!strcmp(w, "phishing-resistant")) {
        *need = HSC_AMR_HWK;
    }
    else if (!strcmp(w, "sealed")) {
        *need = HSC_AMR_SEAL;
    }
    else {
        return apr_pstrcat(cmd->pool,
                           "Require hsc-factor: 2, phishing-resistant or "
                           "sealed, not '",
                           w, "'", NULL);
    }
    if (*ap_getword_conf(cmd->pool, &line) != '\0') {
        return "Require hsc-factor: one word (2, phishing-resistant or sealed)";
    }
    *parsed = need;
    return NULL;
}

/* Granted when the verified login has one of the methods, done within
 * HSCSecondFactorMaxAge when that is set. */
static authz_status factor_check(request_rec *r, const char *line,
                                 const void *parsed)
{
    const hsc_dir_conf_t *d = hsc_dir_conf(r);
    int64_t iat, mfa_at, now = (int64_t)apr_time_sec(r->request_time);
    unsigned amr;

    (void)line;
    if (r->user == NULL) {
        return AUTHZ_DENIED_NO_USER;
    }
    if (!hsc_session_auth(r, &amr, &iat, &mfa_at)) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(202) "Require hsc-factor needs AuthType HSC");
        return AUTHZ_DENIED;
    }
    if ((amr & *(const unsigned *)parsed) != 0
        && (d->factor_max_age <= 0 || now - mfa_at <= d->factor_max_age)) {
        return AUTHZ_GRANTED;
    }
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(203) "user %s: %s second factor for this location",
                  r->user,
                  (amr & *(const unsigned *)parsed) ? "no recent enough"
                                                    : "no required");
    apr_table_setn(r->notes, HSC_NOTE_SHORT, "factor");
    return AUTHZ_DENIED;
}

static const authz_provider factor_provider = {&factor_check, &factor_parse};

/* HSCLoginURL?return=<this request>[&factor=1], or NULL without one or
 * for a target that could not come back. */
static const char *stepup_url(request_rec *r, const hsc_dir_conf_t *d,
                              int factor)
{
    if (d->login_url == NULL || r->unparsed_uri == NULL
        || r->unparsed_uri[0] != '/') {
        return NULL;
    }
    return hsc_login_url_back(r, d, factor ? "&factor=1" : "");
}

int hsc_factor_auth_too_old(request_rec *r, const hsc_dir_conf_t *d,
                            int64_t iat)
{
    const char *url;
    int64_t now = (int64_t)apr_time_sec(r->request_time);

    if (d->max_auth_age <= 0 || now - iat <= d->max_auth_age) {
        return OK;
    }
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(204) "the password was entered %" APR_INT64_T_FMT
                                " s ago, more than HSCMaxAuthAge here",
                  (apr_int64_t)(now - iat));
    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    if (hsc_browser_navigation(r) && (url = stepup_url(r, d, 0)) != NULL) {
        apr_table_setn(r->headers_out, "Location", url);
        return HTTP_SEE_OTHER;
    }
    apr_table_setn(r->err_headers_out, "WWW-Authenticate",
                   HSC_AUTH_TYPE " error=\"insufficient_authentication\"");
    return HTTP_UNAUTHORIZED;
}

/*
 * mod_authz_core's 401 after a denial of a verified user: say why
 * (WWW-Authenticate), and send a browser that lacks a second factor to
 * the login page's code step. The page is reached through httpd's error
 * document path (ap_custom_response): an internal GET of HSCLoginURL,
 * whose handler answers 303 to itself (hsc_factor_stepup_redirect), or a
 * 302 when HSCLoginURL is an absolute URL.
 */
static int note_auth_failure(request_rec *r, const char *type)
{
    const hsc_dir_conf_t *d;
    const char *url;
    int short_factor;

    if (type == NULL || strcasecmp(type, HSC_AUTH_TYPE) != 0) {
        return DECLINED;
    }
    d = hsc_dir_conf(r);
    short_factor = apr_table_get(r->notes, HSC_NOTE_SHORT) != NULL;
    apr_table_setn(r->err_headers_out, "WWW-Authenticate",
                   short_factor ? HSC_AUTH_TYPE
                       " error=\"insufficient_authentication\""
                                : HSC_AUTH_TYPE);
    if (short_factor && hsc_browser_navigation(r)
        && (url = stepup_url(r, d, 1)) != NULL) {
        ap_custom_response(r, HTTP_UNAUTHORIZED, url);
    }
    return OK;
}

int hsc_factor_stepup_redirect(request_rec *r)
{
    /* Only the error document path above: an internal redirect from a
     * 401, never a request from outside. */
    if (r->prev == NULL || r->prev->status != HTTP_UNAUTHORIZED
        || apr_table_get(r->prev->notes, HSC_NOTE_SHORT) == NULL) {
        return DECLINED;
    }
    apr_table_setn(r->headers_out, "Location",
                   apr_pstrcat(r->pool, r->uri, "?", r->args, NULL));
    /* An error document's request starts with the error's status (401),
     * and httpd answers a second status as a recursive error with the
     * first: this request has its own answer. */
    r->status = HTTP_OK;
    return HTTP_SEE_OTHER;
}

void hsc_factor_register_hooks(apr_pool_t *p)
{
    ap_hook_note_auth_failure(note_auth_failure, NULL, NULL, APR_HOOK_MIDDLE);
    ap_register_auth_provider(p, AUTHZ_PROVIDER_GROUP, "hsc-factor",
                              AUTHZ_PROVIDER_VERSION, &factor_provider,
                              AP_AUTH_INTERNAL_PER_CONF);
}
