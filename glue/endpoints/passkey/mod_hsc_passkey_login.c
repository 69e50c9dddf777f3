/*
 * mod_hsc_passkey_login.c: hsc-login's passkey steps (a passwordless
 * login; the second factor after the password): the options, and the
 * assertion that answers them. The store's one-time compare-and-set
 * (hsc_passkeys_accept) makes an assertion good once, on every server.
 * Every refusal: one log line, the login throttle (as a wrong password),
 * the audit line.
 */
#include <stdlib.h>
#include <string.h>

#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"

#include <openssl/sha.h>

#include "mod_hsc_factor.h"
#include "mod_hsc_log.h"
#include "mod_hsc_ops.h"
#include "mod_hsc_passkey_login.h"
#include "mod_hsc_passkey_rp.h"
#include "mod_hsc_session.h"
#include "mod_hsc_attempt.h"
#include "mod_hsc_userdb.h"
#include "hsc_authz.h"
#include "hsc_b64.h"
#include "hsc_json.h"
#include "hsc_passkeys.h"
#include "hsc_wa_ceremony.h"
#include "hsc_webauthn.h"

/* --- the second factor's pending login ------------------------------------ */

/* The pending (or step-up) login of this request: HSC_OK with *c (wipe
 * it) and *user; else no login here. */
static hsc_status_t pending_login(hsc_passkey_rp_t *rp, hsc_store_t **store,
                                  hsc_cookie_t *c, const char **user)
{
    hsc_user_t u;
    hsc_status_t st;

    *user = NULL;
    if ((*store = hsc_userdb_acquire(rp->r, rp->sc)) == NULL) {
        return HSC_ESTORE;
    }
    st = hsc_session_verify_step(rp->r, rp->sc, rp->d, *store, c, &u);
    if (st == HSC_OK && c->format != 2) {
        hsc_wipe(c, sizeof(*c));
        st = HSC_EINVAL;
    }
    if (st == HSC_OK) {
        *user = apr_pstrmemdup(rp->r->pool, c->user, c->user_len);
    }
    return st;
}

/* --- options ---------------------------------------------------------------
 */

void hsc_passkey_login_options(hsc_passkey_rp_t *rp, hsc_passkey_answer_t *a)
{
    request_rec *r = rp->r;
    hsc_json_writer_t w;
    char *buf = apr_palloc(r->pool, 8192);
    const char *ch = NULL, *ids = "", *user = "";
    hsc_wa_purpose_t purpose;
    hsc_store_t *store;
    hsc_cookie_t c;
    hsc_factors_t *f;
    size_t len;
    int second = rp->f.purpose && !strcmp(rp->f.purpose, "second-factor");
    int pending = 0;

    if (!second && (rp->f.purpose == NULL || strcmp(rp->f.purpose, "login"))) {
        hsc_passkey_rp_refuse(a, HTTP_BAD_REQUEST, "bad_request");
        return;
    }
    purpose = second ? HSC_WA_SECOND_FACTOR : HSC_WA_PASSWORDLESS;
    if (second) {
        hsc_status_t st = pending_login(rp, &store, &c, &user);
        pending = (c.amr & HSC_AMR_PENDING) != 0;
        hsc_wipe(&c, sizeof(c));
        if (st != HSC_OK) {
            if (hsc_status_class(st) == HSC_CLASS_FAULT) {
                hsc_passkey_rp_refuse(a, HTTP_SERVICE_UNAVAILABLE,
                                      "unavailable");
                return;
            }
            ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                          HSCLOGNO(286) "passkey options for a second "
                                        "factor refused: no pending login");
            hsc_passkey_rp_refuse(a, HTTP_UNAUTHORIZED, "no_pending_login");
            return;
        }
        if ((f = hsc_factor_open(r, rp->sc, 1)) == NULL
            || (ids = hsc_passkey_rp_credential_ids(r, f, user)) == NULL) {
            hsc_passkey_rp_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
            return;
        }
        if (!pending && ids[0] == '\0') {
            /* A full login (a step-up) of a user without a passkey. */
            ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                          HSCLOGNO(304) "passkey options for a second "
                                        "factor refused: user \"%s\" is "
                                        "logged in and has no passkey",
                          ap_escape_logitem(r->pool, user));
            hsc_passkey_rp_refuse(a, HTTP_UNAUTHORIZED, "no_pending_login");
            return;
        }
    }
    if ((ch = hsc_passkey_rp_new_challenge(rp, purpose, user)) == NULL) {
        hsc_passkey_rp_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return;
    }
    hsc_json_begin(&w, buf, 8192);
    hsc_json_add_string(&w, "challenge", ch, strlen(ch));
    hsc_json_add_string(&w, "rpId", rp->rp_id, strlen(rp->rp_id));
    hsc_json_add_int(&w, "timeout", rp->sc->wa_lifetime * 1000);
    {
        const char *uv = second ? hsc_wa_uv_name((hsc_wa_uv_t)rp->d->wa_uv)
                                : "required";
        hsc_json_add_string(&w, "userVerification", uv, strlen(uv));
    }
    if (second) {
        hsc_json_add_string(&w, "allowCredentials", ids, strlen(ids));
    }
    {
        const char *salt = hsc_passkey_rp_prf_salt(r->pool);
        hsc_json_add_string(&w, "prfSalt", salt, strlen(salt));
    }
    if (hsc_json_end(&w, &len) != HSC_OK) {
        hsc_passkey_rp_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return;
    }
    a->json = buf;
}

/* --- assert ----------------------------------------------------------------
 */

/* What the assertion check (a hsc_code_check_fn, under the throttle)
 * needs and finds. */
typedef struct {
    hsc_passkey_rp_t *rp;
    hsc_factors_t *f;
    hsc_passkey_t *pk;
    int passwordless;
    int64_t issued_ms;
    const char *canon;
    hsc_passkey_bin_t cdj, ad, sig, uh, prf;
    hsc_wa_assertion_t as;
    int sealed; /* prf hashes to the credential's seal */
    const char *why;
    char err[200];
} assert_t;

static hsc_status_t assert_check(request_rec *r, void *baton)
{
    assert_t *k = baton;
    hsc_wa_expect_t e;
    hsc_status_t st;

    (void)r;
    if (k->prf.v != NULL) {
        unsigned char h[32];
        SHA256(k->prf.v, k->prf.len, h);
        k->sealed = k->pk->sealed
                    && hsc_ct_equal(h, k->pk->seal_hash, sizeof(h));
    }
    if (k->passwordless) {
        if (!k->pk->sealed) {
            k->why = "an unsealed passkey cannot log in without the "
                     "password";
            return HSC_EAUTH;
        }
        if (k->uh.v == NULL || k->uh.len != HSC_PASSKEY_HANDLE_LEN
            || !hsc_ct_equal(k->uh.v, k->pk->handle, HSC_PASSKEY_HANDLE_LEN)) {
            k->why = "the user handle is not the credential's user's";
            return HSC_EAUTH;
        }
        if (!k->sealed) {
            k->why = "the PRF output is missing or does not match the seal";
            return HSC_EAUTH;
        }
    }
    e.rp_id = k->rp->rp_id;
    e.origins = k->rp->origins;
    e.n_origins = k->rp->n_origins;
    e.challenge = k->canon;
    e.require_uv = k->passwordless || k->rp->d->wa_uv == HSC_WA_UV_REQUIRED;
    st = hsc_wa_assertion_verify(&e, k->cdj.v, k->cdj.len, k->ad.v, k->ad.len,
                                 k->sig.v, k->sig.len, k->pk->spki,
                                 k->pk->spki_len, k->pk->alg, k->pk->sign_count,
                                 &k->as, k->err, sizeof(k->err));
    if (st != HSC_OK) {
        k->why = k->err;
        return hsc_status_class(st) == HSC_CLASS_FAULT ? st : HSC_EAUTH;
    }
    st = hsc_passkeys_accept(k->f, k->pk->id, k->pk->id_len, k->issued_ms,
                             (int64_t)k->as.sign_count);
    if (st == HSC_EAUTH) {
        k->why = "already used (a replay), an older challenge than the last "
                 "accepted, or a sign count that did not grow";
    }
    else if (st != HSC_OK) {
        k->why = hsc_factors_errmsg(k->f);
    }
    return st;
}

/* The cookie of a verified assertion; HSC_OK or a fault (logged). */
static hsc_status_t assert_cookie(hsc_passkey_rp_t *rp, assert_t *k,
                                  const hsc_cookie_t *c, const hsc_user_t *u)
{
    request_rec *r = rp->r;
    char value[HSC_COOKIE_VALUE_MAX];
    unsigned char lid[HSC_LID_LEN];
    hsc_verify_params_t vp;
    hsc_claims_t cl;
    hsc_status_t st;
    size_t len;
    int rem;

    hsc_session_params(r, rp->sc, rp->d, &vp);
    memset(&cl, 0, sizeof(cl));
    cl.amr = HSC_AMR_HWK | ((k->as.flags & HSC_WA_FLAG_UV) ? HSC_AMR_UV : 0)
             | (k->sealed ? HSC_AMR_SEAL : 0);
    cl.z = k->sealed ? k->prf.v : NULL;
    if (c != NULL) {
        /* The second factor: the same login, its new bits. */
        rem = (c->amr & HSC_AMR_REM) != 0;
        cl.user = c->user;
        cl.user_len = c->user_len;
        cl.iat = c->iat;
        cl.gen = c->gen;
        cl.lid = c->lid;
        cl.amr |= c->amr & ~HSC_AMR_PENDING;
        cl.xn = c->auth;
    }
    else {
        /* Passwordless: a new login. */
        rem = rp->d->remember > 0 && rp->f.remember != NULL
              && !strcmp(rp->f.remember, "1");
        if ((st = hsc_random(lid, sizeof(lid))) != HSC_OK) {
            return st;
        }
        cl.user = u->name;
        cl.user_len = u->name_len;
        cl.iat = hsc_login_iat(vp.now, u->revoked_before);
        cl.gen = u->gen;
        cl.lid = lid;
        cl.amr |= rem ? HSC_AMR_REM : 0;
    }
    cl.exp = hsc_cookie_expiry(cl.iat, vp.now,
                               rem ? rp->d->remember : rp->d->idle,
                               rem ? rp->d->remember : rp->d->max_age);
    cl.mfa_at = vp.now < cl.iat ? cl.iat : vp.now;
    if (cl.exp <= vp.now) {
        cl.exp = vp.now + 1;
    }
    st = hsc_cookie_mint2(hsc_keyring_signer(rp->sc->keys), &cl, vp.scope,
                          vp.address, value, sizeof(value), &len);
    if (st == HSC_OK) {
        char text[HSC_B64URL_LEN(HSC_LID_LEN) + 1];
        text[hsc_b64url_encode(cl.lid, HSC_LID_LEN, text)] = '\0';
        apr_table_set(r->notes, HSC_NOTE_LOGIN_ID, text);
        st = hsc_set_cookie(r, rp->d, value, cl.exp - vp.now);
    }
    hsc_wipe(value, sizeof(value));
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(287) "passkey: cannot mint a cookie for user "
                                    "\"%s\": %s",
                      ap_escape_logitem(r->pool, k->pk->user),
                      hsc_strerror(st));
    }
    return st;
}

/* Where the browser goes after a login: a safe hsc_return, else
 * HSCLoginSuccessURL. */
static const char *after_login(hsc_passkey_rp_t *rp)
{
    const apr_array_header_t *h = rp->d->return_hosts;
    const char *ret = rp->f.ret;

    if (ret != NULL
        && hsc_return_url_allowed(ret, strlen(ret),
                                  h ? (const char *const *)h->elts : NULL,
                                  h ? (size_t)h->nelts : 0)) {
        return ret;
    }
    return rp->d->success_url;
}

/* A refusal before the credential's user is known: the throttle counts
 * it for the address (and the credential id), as a wrong password. */
static void count_unknown(hsc_passkey_rp_t *rp, hsc_store_t *store,
                          hsc_passkey_answer_t *a)
{
    const char *key = rp->f.id ? apr_pstrndup(rp->r->pool, rp->f.id, 64)
                               : "(passkey)";
    apr_int64_t retry = 0;

    if (store != NULL
        && hsc_attempt_failed(rp->r, rp->sc, store, key, strlen(key), &retry)
               == HSC_ATTEMPT_THROTTLED) {
        hsc_passkey_rp_refuse(a, HTTP_TOO_MANY_REQUESTS, "throttled");
        a->retry_after = retry;
    }
}

/* One assertion at hsc-login, the state its steps share: the second
 * factor of a pending login, or a passwordless login. */
typedef struct {
    hsc_passkey_rp_t *rp;
    hsc_passkey_answer_t *a;
    int second;       /* the second factor; else passwordless */
    const char *user; /* the pending login's user; "" passwordless */
    const char *who;  /* the user as logged */
    hsc_store_t *store;
    hsc_cookie_t c; /* the pending login: wiped at the end, on every path */
    hsc_code_attempt_t at;
    assert_t k;
    hsc_passkey_bin_t id;
} ceremony_t;

/* The assertion's fields decoded into g: 0, or -1 refused (logged). */
static int assert_fields(ceremony_t *g)
{
    request_rec *r = g->rp->r;
    const hsc_passkey_form_t *f = &g->rp->f;
    assert_t *k = &g->k;

    if (hsc_passkey_rp_b64_field(r, f->id, HSC_PASSKEY_ID_MAX, &g->id) != 0
        || hsc_passkey_rp_b64_field(r, f->cdj, 4096, &k->cdj) != 0
        || hsc_passkey_rp_b64_field(r, f->ad, 2048, &k->ad) != 0
        || hsc_passkey_rp_b64_field(r, f->sig, 1024, &k->sig) != 0
        || (f->uh && hsc_passkey_rp_b64_field(r, f->uh, 64, &k->uh) != 0)
        || (f->prf
            && (hsc_passkey_rp_secret_field(r, f->prf, 32, &k->prf) != 0
                || k->prf.len != 32))) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(288) "passkey assertion refused: a field is "
                                    "missing or not base64url of its size");
        hsc_passkey_rp_refuse(g->a, HTTP_BAD_REQUEST, "bad_request");
        return -1;
    }
    return 0;
}

/* A refusal before the credential's user is known: audited for the
 * pending login's user (passwordless: none), counted as a wrong password. */
static void refuse_unknown(ceremony_t *g, int status, const char *error)
{
    hsc_passkey_rp_refuse(g->a, status, error);
    hsc_ops_code(g->rp->r, g->user, strlen(g->user), HSC_LOGIN_BAD_CODE,
                 HSC_METHOD_HWK, NULL);
    count_unknown(g->rp, g->store, g->a);
}

/* The challenge checked, then the assertion's credential into g->k.pk
 * (the pending login's user's, for a second factor): 0, or -1 answered
 * (logged). */
static int find_credential(ceremony_t *g)
{
    request_rec *r = g->rp->r;
    const char *what = g->second ? "second factor" : "login";
    const char *for_user = g->second ? " for user \"" : "";
    const char *quote = g->second ? "\"" : "";
    hsc_status_t st;

    st = hsc_passkey_rp_check_challenge(g->rp,
                                        g->second ? HSC_WA_SECOND_FACTOR
                                                  : HSC_WA_PASSWORDLESS,
                                        g->user, &g->k.issued_ms, &g->k.canon);
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                      HSCLOGNO(290) "passkey %s refused%s%s%s: the challenge "
                                    "is %s",
                      what, for_user, g->who, quote,
                      st == HSC_EEXPIRED ? "too old (expired)"
                                         : "not ours, or for another purpose "
                                           "or user");
        refuse_unknown(g, HTTP_FORBIDDEN,
                       st == HSC_EEXPIRED ? "expired" : "refused");
        return -1;
    }
    if ((g->k.f = hsc_factor_open(r, g->rp->sc, 0)) == NULL) {
        hsc_passkey_rp_refuse(g->a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return -1;
    }
    st = hsc_passkeys_get(g->k.f, g->id.v, g->id.len, g->k.pk);
    if (st == HSC_OK && g->second && strcmp(g->k.pk->user, g->user) != 0) {
        st = HSC_ENOUSER; /* another user's credential */
    }
    if (st == HSC_OK) {
        return 0;
    }
    if (hsc_status_class(st) == HSC_CLASS_FAULT) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(291) "passkey: the credential cannot be "
                                    "read: %s",
                      hsc_factors_errmsg(g->k.f));
        hsc_passkey_rp_refuse(g->a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return -1;
    }
    ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                  HSCLOGNO(292) "passkey %s refused%s%s%s: no such "
                                "credential%s",
                  what, for_user, g->who, quote,
                  g->second ? " of this user" : "");
    refuse_unknown(g, HTTP_FORBIDDEN, "refused");
    return -1;
}

/* The assertion checked (assert_check) under the login throttle, the
 * credential's user known: 0 verified and accepted; -1 answered (logged,
 * audited). */
static int check_attempt(ceremony_t *g)
{
    request_rec *r = g->rp->r;
    const hsc_passkey_t *pk = g->k.pk;
    hsc_code_attempt_t *at = &g->at;
    int fault;

    memset(at, 0, sizeof(*at));
    at->user = pk->user;
    at->user_len = strlen(pk->user);
    at->check = assert_check;
    at->baton = &g->k;
    apr_table_setn(r->notes, HSC_NOTE_CODE_STEP, "1");
    switch (hsc_attempt_code(r, g->rp->sc, g->store, at)) {
    case HSC_ATTEMPT_THROTTLED:
    case HSC_ATTEMPT_BUSY:
        hsc_passkey_rp_refuse(g->a, HTTP_TOO_MANY_REQUESTS, "throttled");
        g->a->retry_after = at->retry_after;
        return -1;
    case HSC_ATTEMPT_UNAVAILABLE:
        hsc_ops_code(r, pk->user, at->user_len, HSC_LOGIN_STORE_FAULT,
                     HSC_METHOD_HWK, NULL);
        hsc_passkey_rp_refuse(g->a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return -1;
    case HSC_ATTEMPT_CHECKED: break;
    }
    g->who = ap_escape_logitem(r->pool, pk->user);
    if (at->st == HSC_OK) {
        return 0;
    }
    fault = hsc_status_class(at->st) == HSC_CLASS_FAULT;
    ap_log_rerror(APLOG_MARK, fault ? APLOG_ERR : APLOG_NOTICE, 0, r,
                  HSCLOGNO(293) "passkey %s refused for user \"%s\": %s",
                  g->second ? "second factor" : "login", g->who,
                  g->k.why ? g->k.why : hsc_strerror(at->st));
    hsc_ops_code(r, pk->user, at->user_len,
                 fault ? HSC_LOGIN_STORE_FAULT : HSC_LOGIN_BAD_CODE,
                 HSC_METHOD_HWK, NULL);
    if (fault) {
        hsc_passkey_rp_refuse(g->a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
    }
    else {
        hsc_passkey_rp_refuse(g->a, HTTP_FORBIDDEN, "refused");
    }
    return -1;
}

/* What both ceremonies verify: the challenge, the credential, the
 * signature and the one-time acceptance: 0, or -1 answered. */
static int verify_assertion(ceremony_t *g)
{
    g->who = ap_escape_logitem(g->rp->r->pool, g->user);
    if (find_credential(g) != 0) {
        return -1;
    }
    return check_attempt(g);
}

/* A verified assertion's end: the cookie (of the pending login, or of
 * u's new login), the log line, the audit, where the browser goes. */
static void assert_done(ceremony_t *g, const hsc_user_t *u)
{
    hsc_passkey_rp_t *rp = g->rp;
    request_rec *r = rp->r;
    const hsc_passkey_t *pk = g->k.pk;
    hsc_json_writer_t w;
    const char *loc;
    char *buf;
    size_t len;

    if (assert_cookie(rp, &g->k, g->second ? &g->c : NULL, u) != HSC_OK) {
        hsc_ops_code(r, pk->user, g->at.user_len, HSC_LOGIN_ERROR,
                     HSC_METHOD_HWK, NULL);
        hsc_passkey_rp_refuse(g->a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return;
    }
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(295) "user \"%s\" %s with a passkey \"%s\"%s%s, "
                                "login id %s",
                  g->who, g->second ? "passed the second factor" : "logged in",
                  ap_escape_logitem(r->pool, pk->name),
                  (g->k.as.flags & HSC_WA_FLAG_UV) ? ", user verified" : "",
                  g->k.sealed ? ", sealed" : "",
                  apr_table_get(r->notes, HSC_NOTE_LOGIN_ID));
    hsc_ops_code(r, pk->user, g->at.user_len, HSC_LOGIN_SUCCESS, HSC_METHOD_HWK,
                 hsc_key_id(hsc_keyring_signer(rp->sc->keys)));
    loc = after_login(rp);
    buf = apr_palloc(r->pool, 4096);
    hsc_json_begin(&w, buf, 4096);
    hsc_json_add_bool(&w, "ok", 1);
    hsc_json_add_string(&w, "location", loc, strlen(loc));
    g->a->json = hsc_json_end(&w, &len) == HSC_OK ? buf : "{\"ok\":true}";
}

/* The second factor of a pending login (or a step-up of a full one). */
static void assert_second(ceremony_t *g)
{
    hsc_status_t st = pending_login(g->rp, &g->store, &g->c, &g->user);

    if (st != HSC_OK) {
        if (hsc_status_class(st) == HSC_CLASS_FAULT) {
            hsc_passkey_rp_refuse(g->a, HTTP_SERVICE_UNAVAILABLE,
                                  "unavailable");
            return;
        }
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, g->rp->r,
                      HSCLOGNO(289) "passkey second factor refused: no "
                                    "pending login");
        hsc_passkey_rp_refuse(g->a, HTTP_UNAUTHORIZED, "no_pending_login");
        return;
    }
    if (verify_assertion(g) == 0) {
        assert_done(g, NULL);
    }
}

/* A passwordless login (assert_check asks a sealed passkey, its user
 * handle and PRF output): a new login of the user's row, read fresh. */
static void assert_passwordless(ceremony_t *g)
{
    request_rec *r = g->rp->r;
    const hsc_passkey_t *pk = g->k.pk;
    hsc_user_t u;
    hsc_status_t st;
    int fault;

    if ((g->store = hsc_userdb_acquire(r, g->rp->sc)) == NULL) {
        hsc_passkey_rp_refuse(g->a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return;
    }
    if (verify_assertion(g) != 0) {
        return;
    }
    st = hsc_store_get_fresh(g->store, pk->user, strlen(pk->user), &u);
    if (st != HSC_OK || u.disabled || u.gen < 0) {
        ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                      HSCLOGNO(294) "passkey login refused for user "
                                    "\"%s\": %s",
                      g->who,
                      st != HSC_OK ? hsc_strerror(st)
                      : u.disabled ? "the user is disabled"
                                   : "the user database predates format "
                                     "2 cookies");
        hsc_ops_code(r, pk->user, g->at.user_len, HSC_LOGIN_DISABLED,
                     HSC_METHOD_HWK, NULL);
        fault = hsc_status_class(st) == HSC_CLASS_FAULT;
        hsc_passkey_rp_refuse(g->a,
                              fault ? HTTP_SERVICE_UNAVAILABLE : HTTP_FORBIDDEN,
                              fault ? "unavailable" : "refused");
        return;
    }
    assert_done(g, &u);
}

void hsc_passkey_login_assert(hsc_passkey_rp_t *rp, hsc_passkey_answer_t *a)
{
    ceremony_t g;

    memset(&g, 0, sizeof(g));
    g.rp = rp;
    g.a = a;
    g.second = rp->f.purpose && !strcmp(rp->f.purpose, "second-factor");
    g.user = "";
    g.k.rp = rp;
    g.k.pk = apr_pcalloc(rp->r->pool, sizeof(*g.k.pk));
    g.k.passwordless = !g.second;
    if (!g.second
        && (rp->f.purpose == NULL || strcmp(rp->f.purpose, "login"))) {
        hsc_passkey_rp_refuse(a, HTTP_BAD_REQUEST, "bad_request");
        return;
    }
    if (assert_fields(&g) == 0) {
        if (g.second) {
            assert_second(&g);
        }
        else {
            assert_passwordless(&g);
        }
    }
    /* The one cleanup: the pending login's cookie (x_n), the PRF output
     * (also wiped when the request ends). */
    hsc_wipe(&g.c, sizeof(g.c));
    if (g.k.prf.v != NULL) {
        hsc_wipe(g.k.prf.v, g.k.prf.len);
    }
}
