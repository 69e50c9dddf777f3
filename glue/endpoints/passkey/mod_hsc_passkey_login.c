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
static hsc_status_t pending_login(rp_t *rp, hsc_store_t **store,
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

void hsc_pk_options_login(rp_t *rp, answer_t *a)
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
        hsc_pk_refuse(a, HTTP_BAD_REQUEST, "bad_request");
        return;
    }
    purpose = second ? HSC_WA_SECOND_FACTOR : HSC_WA_PASSWORDLESS;
    if (second) {
        hsc_status_t st = pending_login(rp, &store, &c, &user);
        pending = (c.amr & HSC_AMR_PENDING) != 0;
        hsc_wipe(&c, sizeof(c));
        if (st != HSC_OK) {
            if (hsc_status_class(st) == HSC_CLASS_FAULT) {
                hsc_pk_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
                return;
            }
            ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                          HSCLOGNO(286) "passkey options for a second "
                                        "factor refused: no pending login");
            hsc_pk_refuse(a, HTTP_UNAUTHORIZED, "no_pending_login");
            return;
        }
        if ((f = hsc_factor_open(r, rp->sc, 1)) == NULL
            || (ids = hsc_pk_credential_ids(r, f, user)) == NULL) {
            hsc_pk_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
            return;
        }
        if (!pending && ids[0] == '\0') {
            /* A full login (a step-up) of a user without a passkey. */
            ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                          HSCLOGNO(304) "passkey options for a second "
                                        "factor refused: user \"%s\" is "
                                        "logged in and has no passkey",
                          ap_escape_logitem(r->pool, user));
            hsc_pk_refuse(a, HTTP_UNAUTHORIZED, "no_pending_login");
            return;
        }
    }
    if ((ch = hsc_pk_new_challenge(rp, purpose, user)) == NULL) {
        hsc_pk_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
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
        const char *salt = hsc_pk_prf_salt(r->pool);
        hsc_json_add_string(&w, "prfSalt", salt, strlen(salt));
    }
    if (hsc_json_end(&w, &len) != HSC_OK) {
        hsc_pk_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return;
    }
    a->json = buf;
}

/* --- assert ----------------------------------------------------------------
 */

/* What the assertion check (a hsc_code_check_fn, under the throttle)
 * needs and finds. */
typedef struct {
    rp_t *rp;
    hsc_factors_t *f;
    hsc_passkey_t *pk;
    int passwordless;
    int64_t issued_ms;
    const char *canon;
    bin_t cdj, ad, sig, uh, prf;
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
static hsc_status_t assert_cookie(rp_t *rp, assert_t *k, const hsc_cookie_t *c,
                                  const hsc_user_t *u)
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
static const char *after_login(rp_t *rp)
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
static void count_unknown(rp_t *rp, hsc_store_t *store, answer_t *a)
{
    const char *key = rp->f.id ? apr_pstrndup(rp->r->pool, rp->f.id, 64)
                               : "(passkey)";
    apr_int64_t retry = 0;

    if (store != NULL
        && hsc_attempt_failed(rp->r, rp->sc, store, key, strlen(key), &retry)
               == HSC_ATTEMPT_THROTTLED) {
        hsc_pk_refuse(a, HTTP_TOO_MANY_REQUESTS, "throttled");
        a->retry_after = retry;
    }
}

void hsc_pk_assert_login(rp_t *rp, answer_t *a)
{
    request_rec *r = rp->r;
    int second = rp->f.purpose && !strcmp(rp->f.purpose, "second-factor");
    const char *user = "", *who;
    hsc_store_t *store = NULL;
    hsc_cookie_t c;
    hsc_user_t u;
    hsc_code_attempt_t at;
    hsc_passkey_t *pk = apr_pcalloc(r->pool, sizeof(*pk));
    assert_t k;
    bin_t id;
    hsc_status_t st;

    memset(&k, 0, sizeof(k));
    memset(&c, 0, sizeof(c));
    k.rp = rp;
    k.pk = pk;
    k.passwordless = !second;
    if (!second && (rp->f.purpose == NULL || strcmp(rp->f.purpose, "login"))) {
        hsc_pk_refuse(a, HTTP_BAD_REQUEST, "bad_request");
        return;
    }
    if (hsc_pk_b64_field(r, rp->f.id, HSC_PASSKEY_ID_MAX, &id) != 0
        || hsc_pk_b64_field(r, rp->f.cdj, 4096, &k.cdj) != 0
        || hsc_pk_b64_field(r, rp->f.ad, 2048, &k.ad) != 0
        || hsc_pk_b64_field(r, rp->f.sig, 1024, &k.sig) != 0
        || (rp->f.uh && hsc_pk_b64_field(r, rp->f.uh, 64, &k.uh) != 0)
        || (rp->f.prf
            && (hsc_pk_secret_field(r, rp->f.prf, 32, &k.prf) != 0
                || k.prf.len != 32))) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(288) "passkey assertion refused: a field is "
                                    "missing or not base64url of its size");
        hsc_pk_refuse(a, HTTP_BAD_REQUEST, "bad_request");
        return;
    }
    if (second) {
        st = pending_login(rp, &store, &c, &user);
        if (st != HSC_OK) {
            hsc_wipe(&c, sizeof(c));
            if (hsc_status_class(st) == HSC_CLASS_FAULT) {
                hsc_pk_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
                return;
            }
            ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                          HSCLOGNO(289) "passkey second factor refused: no "
                                        "pending login");
            hsc_pk_refuse(a, HTTP_UNAUTHORIZED, "no_pending_login");
            return;
        }
    }
    else if ((store = hsc_userdb_acquire(r, rp->sc)) == NULL) {
        hsc_pk_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return;
    }
    who = ap_escape_logitem(r->pool, user);
    st = hsc_pk_check_challenge(rp,
                                second ? HSC_WA_SECOND_FACTOR
                                       : HSC_WA_PASSWORDLESS,
                                user, &k.issued_ms, &k.canon);
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                      HSCLOGNO(290) "passkey %s refused%s%s%s: the challenge "
                                    "is %s",
                      second ? "second factor" : "login",
                      second ? " for user \"" : "", who, second ? "\"" : "",
                      st == HSC_EEXPIRED ? "too old (expired)"
                                         : "not ours, or for another purpose "
                                           "or user");
        hsc_pk_refuse(a, HTTP_FORBIDDEN,
                      st == HSC_EEXPIRED ? "expired" : "refused");
        goto refused_early;
    }
    if ((k.f = hsc_factor_open(r, rp->sc, 0)) == NULL) {
        hsc_wipe(&c, sizeof(c));
        hsc_pk_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return;
    }
    st = hsc_passkeys_get(k.f, id.v, id.len, pk);
    if (st == HSC_OK && second && strcmp(pk->user, user) != 0) {
        st = HSC_ENOUSER; /* another user's credential */
    }
    if (st != HSC_OK) {
        if (hsc_status_class(st) == HSC_CLASS_FAULT) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                          HSCLOGNO(291) "passkey: the credential cannot be "
                                        "read: %s",
                          hsc_factors_errmsg(k.f));
            hsc_wipe(&c, sizeof(c));
            hsc_pk_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
            return;
        }
        ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                      HSCLOGNO(292) "passkey %s refused%s%s%s: no such "
                                    "credential%s",
                      second ? "second factor" : "login",
                      second ? " for user \"" : "", who, second ? "\"" : "",
                      second ? " of this user" : "");
        hsc_pk_refuse(a, HTTP_FORBIDDEN, "refused");
        goto refused_early;
    }
    /* The user is known: the check runs under the login throttle. */
    memset(&at, 0, sizeof(at));
    at.user = pk->user;
    at.user_len = strlen(pk->user);
    at.check = assert_check;
    at.baton = &k;
    apr_table_setn(r->notes, HSC_NOTE_CODE_STEP, "1");
    switch (hsc_attempt_code(r, rp->sc, store, &at)) {
    case HSC_ATTEMPT_THROTTLED:
    case HSC_ATTEMPT_BUSY:
        hsc_wipe(&c, sizeof(c));
        hsc_pk_refuse(a, HTTP_TOO_MANY_REQUESTS, "throttled");
        a->retry_after = at.retry_after;
        return;
    case HSC_ATTEMPT_UNAVAILABLE:
        hsc_wipe(&c, sizeof(c));
        hsc_ops_code(r, pk->user, at.user_len, HSC_LOGIN_STORE_FAULT,
                     HSC_METHOD_HWK, NULL);
        hsc_pk_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return;
    case HSC_ATTEMPT_CHECKED: break;
    }
    who = ap_escape_logitem(r->pool, pk->user);
    if (at.st != HSC_OK) {
        int fault = hsc_status_class(at.st) == HSC_CLASS_FAULT;
        hsc_wipe(&c, sizeof(c));
        ap_log_rerror(APLOG_MARK, fault ? APLOG_ERR : APLOG_NOTICE, 0, r,
                      HSCLOGNO(293) "passkey %s refused for user \"%s\": %s",
                      second ? "second factor" : "login", who,
                      k.why ? k.why : hsc_strerror(at.st));
        hsc_ops_code(r, pk->user, at.user_len,
                     fault ? HSC_LOGIN_STORE_FAULT : HSC_LOGIN_BAD_CODE,
                     HSC_METHOD_HWK, NULL);
        if (fault) {
            hsc_pk_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        }
        else {
            hsc_pk_refuse(a, HTTP_FORBIDDEN, "refused");
        }
        return;
    }
    if (!second) {
        st = hsc_store_get_fresh(store, pk->user, strlen(pk->user), &u);
        if (st != HSC_OK || u.disabled || u.gen < 0) {
            ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                          HSCLOGNO(294) "passkey login refused for user "
                                        "\"%s\": %s",
                          who,
                          st != HSC_OK ? hsc_strerror(st)
                          : u.disabled ? "the user is disabled"
                                       : "the user database predates format "
                                         "2 cookies");
            hsc_ops_code(r, pk->user, at.user_len, HSC_LOGIN_DISABLED,
                         HSC_METHOD_HWK, NULL);
            hsc_pk_refuse(a,
                          hsc_status_class(st) == HSC_CLASS_FAULT
                              ? HTTP_SERVICE_UNAVAILABLE
                              : HTTP_FORBIDDEN,
                          hsc_status_class(st) == HSC_CLASS_FAULT
                              ? "unavailable"
                              : "refused");
            return;
        }
    }
    st = assert_cookie(rp, &k, second ? &c : NULL, second ? NULL : &u);
    hsc_wipe(&c, sizeof(c));
    if (k.prf.v != NULL) {
        hsc_wipe(k.prf.v, k.prf.len);
    }
    if (st != HSC_OK) {
        hsc_ops_code(r, pk->user, at.user_len, HSC_LOGIN_ERROR, HSC_METHOD_HWK,
                     NULL);
        hsc_pk_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return;
    }
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(295) "user \"%s\" %s with a passkey \"%s\"%s%s, "
                                "login id %s",
                  who, second ? "passed the second factor" : "logged in",
                  ap_escape_logitem(r->pool, pk->name),
                  (k.as.flags & HSC_WA_FLAG_UV) ? ", user verified" : "",
                  k.sealed ? ", sealed" : "",
                  apr_table_get(r->notes, HSC_NOTE_LOGIN_ID));
    hsc_ops_code(r, pk->user, at.user_len, HSC_LOGIN_SUCCESS, HSC_METHOD_HWK,
                 hsc_key_id(hsc_keyring_signer(rp->sc->keys)));
    {
        hsc_json_writer_t w;
        const char *loc = after_login(rp);
        char *buf = apr_palloc(r->pool, 4096);
        size_t len;
        hsc_json_begin(&w, buf, 4096);
        hsc_json_add_bool(&w, "ok", 1);
        hsc_json_add_string(&w, "location", loc, strlen(loc));
        a->json = hsc_json_end(&w, &len) == HSC_OK ? buf : "{\"ok\":true}";
    }
    return;

refused_early:
    hsc_wipe(&c, sizeof(c));
    hsc_ops_code(r, user, strlen(user), HSC_LOGIN_BAD_CODE, HSC_METHOD_HWK,
                 NULL);
    count_unknown(rp, store, a);
}
