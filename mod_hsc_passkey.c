/*
 * mod_hsc_passkey.c: the passkey endpoints of hsc-login (a passwordless
 * login; the second factor after the password) and hsc-account (a new
 * passkey), in JSON, as docs/dev/passkeys.md's "Ceremony contract" fixes
 * them. The checks are the core's (hsc_wa_ceremony.c, hsc_wa_challenge.c);
 * the store's one-time compare-and-set (hsc_passkeys_accept) makes an
 * assertion good once, on every server. Every refusal: one log line, the
 * login throttle (as a wrong password), the audit line.
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
#include "mod_hsc_form.h"
#include "mod_hsc_log.h"
#include "mod_hsc_ops.h"
#include "mod_hsc_passkey.h"
#include "mod_hsc_session.h"
#include "mod_hsc_throttle.h"
#include "mod_hsc_userdb.h"
#include "hsc_authz.h"
#include "hsc_b64.h"
#include "hsc_json.h"
#include "hsc_passkeys.h"
#include "hsc_wa_ceremony.h"
#include "hsc_wa_challenge.h"
#include "hsc_webauthn.h"

/* How far in the future a challenge's time may be: another server's clock
 * ahead of ours. Small, whatever HSCClockSkew says: an accepted challenge
 * from the future would refuse the credential's next ones (the one-time
 * rule keeps the latest time) until that time comes. */
#define HSC_PASSKEY_CHALLENGE_SKEW_MS 10000

/* The fields of a passkey request (base64url where binary). */
typedef struct {
    const char *passkey, *purpose, *challenge, *id, *cdj, *ad, *sig, *uh, *prf,
        *att, *spki, *alg, *transports, *name, *ret, *remember, *link;
} pk_form_t;

/* What a request decoded: binary fields. */
typedef struct {
    unsigned char *v;
    size_t len;
} bin_t;

/* One answer of the endpoints. */
typedef struct {
    int status;
    const char *error; /* NULL: success, body in json */
    const char *json;
    apr_int64_t retry_after;
} answer_t;

/* --- the body --------------------------------------------------------------
 */

static const char **pk_slot(pk_form_t *f, const char *name)
{
    static const struct {
        const char *name;
        size_t off;
    } names[] = {
        {"hsc_passkey", offsetof(pk_form_t, passkey)},
        {"purpose", offsetof(pk_form_t, purpose)},
        {"challenge", offsetof(pk_form_t, challenge)},
        {"id", offsetof(pk_form_t, id)},
        {"clientDataJSON", offsetof(pk_form_t, cdj)},
        {"authenticatorData", offsetof(pk_form_t, ad)},
        {"signature", offsetof(pk_form_t, sig)},
        {"userHandle", offsetof(pk_form_t, uh)},
        {"prf", offsetof(pk_form_t, prf)},
        {"attestationObject", offsetof(pk_form_t, att)},
        {"publicKey", offsetof(pk_form_t, spki)},
        {"alg", offsetof(pk_form_t, alg)},
        {"transports", offsetof(pk_form_t, transports)},
        {"name", offsetof(pk_form_t, name)},
        {"hsc_return", offsetof(pk_form_t, ret)},
        {"hsc_remember", offsetof(pk_form_t, remember)},
        {"link", offsetof(pk_form_t, link)},
    };
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (!strcmp(names[i].name, name)) {
            return (const char **)((char *)f + names[i].off);
        }
    }
    return NULL;
}

/* Parse the body (modified in place): 0, or -1 for a field twice or a
 * bad escape. Fields not ours (the password form's) are ignored. */
static int pk_parse(char *body, pk_form_t *f)
{
    char *pair, *last = NULL;

    memset(f, 0, sizeof(*f));
    for (pair = apr_strtok(body, "&", &last); pair != NULL;
         pair = apr_strtok(NULL, "&", &last)) {
        char *eq = strchr(pair, '=');
        const char **slot;
        if (eq == NULL) {
            continue;
        }
        *eq = '\0';
        if (ap_unescape_urlencoded(pair) != OK
            || ap_unescape_urlencoded(eq + 1) != OK) {
            return -1;
        }
        if ((slot = pk_slot(f, pair)) == NULL) {
            continue;
        }
        if (*slot != NULL) {
            return -1;
        }
        *slot = eq + 1;
    }
    return 0;
}

/* A base64url field into *b (pool memory): 0, or -1 when absent (and
 * required), malformed or over max bytes. */
static int b64_field(request_rec *r, const char *text, size_t max, bin_t *b)
{
    size_t n = text != NULL ? strlen(text) : 0;

    b->v = NULL;
    b->len = 0;
    if (n == 0) {
        return -1;
    }
    b->v = apr_palloc(r->pool, max + 1);
    return hsc_b64url_decode(text, n, b->v, max, &b->len) == HSC_OK ? 0 : -1;
}

/* The PRF output z is a secret: wiped when the request ends, whatever
 * path the answer took. */
static apr_status_t wipe_bin(void *b)
{
    bin_t *x = b;

    if (x->v != NULL) {
        hsc_wipe(x->v, x->len);
    }
    return APR_SUCCESS;
}

static int secret_field(request_rec *r, const char *text, size_t max, bin_t *b)
{
    int rv = b64_field(r, text, max, b);
    /* A copy of the pointer and size in the pool (b may be on a stack). */
    bin_t *keep = apr_pmemdup(r->pool, b, sizeof(*b));

    if (b->v != NULL) {
        keep->len = max; /* the whole buffer, decoded or not */
    }
    apr_pool_cleanup_register(r->pool, keep, wipe_bin, apr_pool_cleanup_null);
    return rv;
}

static const char *b64_text(apr_pool_t *p, const unsigned char *v, size_t n)
{
    char *out = apr_palloc(p, HSC_B64URL_LEN(n) + 1);

    out[hsc_b64url_encode(v, n, out)] = '\0';
    return out;
}

/* --- answers ------------------------------------------------------------- */

static int send_json(request_rec *r, int status, const char *body)
{
    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    apr_table_setn(r->err_headers_out, "X-Content-Type-Options", "nosniff");
    r->status = status;
    ap_set_content_type(r, "application/json");
    if (!r->header_only) {
        ap_rputs(body, r);
    }
    return OK;
}

static int send_error(request_rec *r, int status, const char *code,
                      apr_int64_t retry_after)
{
    if (retry_after > 0) {
        apr_table_setn(r->err_headers_out, "Retry-After",
                       apr_psprintf(r->pool, "%" APR_INT64_T_FMT, retry_after));
    }
    return send_json(r, status,
                     apr_psprintf(r->pool, "{\"error\":\"%s\"}", code));
}

static int send_answer(request_rec *r, const answer_t *a)
{
    if (a->error != NULL) {
        return send_error(r, a->status, a->error, a->retry_after);
    }
    return send_json(r, HTTP_OK, a->json);
}

static void refuse(answer_t *a, int status, const char *error)
{
    a->status = status;
    a->error = error;
}

/* --- the relying party -----------------------------------------------------
 */

typedef struct {
    request_rec *r;
    const hsc_srv_conf_t *sc;
    const hsc_dir_conf_t *d;
    pk_form_t f;
    const char *rp_id;
    const char *const *origins;
    size_t n_origins;
    int64_t now_ms;
} rp_t;

static void rp_init(rp_t *rp, request_rec *r, const hsc_srv_conf_t *sc,
                    const hsc_dir_conf_t *d)
{
    rp->r = r;
    rp->sc = sc;
    rp->d = d;
    rp->rp_id = sc->wa_rp_id != NULL ? sc->wa_rp_id
                                     : r->server->server_hostname;
    if (sc->wa_origins != NULL && sc->wa_origins->nelts > 0) {
        rp->origins = (const char *const *)sc->wa_origins->elts;
        rp->n_origins = (size_t)sc->wa_origins->nelts;
    }
    else {
        const char **one = apr_palloc(r->pool, sizeof(*one));
        *one = apr_pstrcat(r->pool, "https://", rp->rp_id, NULL);
        rp->origins = one;
        rp->n_origins = 1;
    }
    rp->now_ms = (int64_t)apr_time_as_msec(r->request_time);
}

/* A new challenge's text for purpose and user ("" for none); NULL on a
 * fault (logged). */
static const char *new_challenge(rp_t *rp, hsc_wa_purpose_t purpose,
                                 const char *user)
{
    unsigned char c[HSC_WA_CHALLENGE_LEN];

    if (hsc_wa_challenge_make(rp->sc->keys, purpose, user, rp->now_ms, c)
        != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, rp->r,
                      HSCLOGNO(284) "passkey: no challenge could be made (no "
                                    "random bytes?)");
        return NULL;
    }
    return b64_text(rp->r->pool, c, sizeof(c));
}

static const char *prf_salt(apr_pool_t *p)
{
    unsigned char salt[32];

    hsc_wa_prf_salt(salt);
    return b64_text(p, salt, sizeof(salt));
}

/*
 * The challenge sent back: ours, for purpose and user, young enough.
 * HSC_OK with *issued_ms and *canon (its canonical text, which
 * clientDataJSON must carry); HSC_EEXPIRED; else a refusal.
 */
static hsc_status_t check_challenge(rp_t *rp, hsc_wa_purpose_t purpose,
                                    const char *user, int64_t *issued_ms,
                                    const char **canon)
{
    bin_t c;

    *issued_ms = 0;
    *canon = NULL;
    if (b64_field(rp->r, rp->f.challenge, HSC_WA_CHALLENGE_LEN, &c) != 0) {
        return HSC_EMALFORMED;
    }
    *canon = b64_text(rp->r->pool, c.v, c.len);
    return hsc_wa_challenge_check(rp->sc->keys, c.v, c.len, purpose, user,
                                  rp->now_ms, rp->sc->wa_lifetime * 1000,
                                  HSC_PASSKEY_CHALLENGE_SKEW_MS, issued_ms);
}

/* --- listing a user's credentials ---------------------------------------- */

typedef struct {
    apr_pool_t *p;
    const char *ids; /* space-separated base64url */
} ids_t;

static int add_id(void *baton, const hsc_passkey_t *pk)
{
    ids_t *k = baton;
    const char *id = b64_text(k->p, pk->id, pk->id_len);

    k->ids = k->ids[0] ? apr_pstrcat(k->p, k->ids, " ", id, NULL) : id;
    return 0;
}

/* The user's credential ids, or NULL on a fault (logged). */
static const char *credential_ids(request_rec *r, hsc_factors_t *f,
                                  const char *user)
{
    ids_t k = {r->pool, ""};

    if (hsc_passkeys_list(f, user, add_id, &k) != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(285) "passkey: the credentials of user \"%s\" "
                                    "cannot be read: %s",
                      ap_escape_logitem(r->pool, user), hsc_factors_errmsg(f));
        return NULL;
    }
    return k.ids;
}

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

static void options_login(rp_t *rp, answer_t *a)
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
        refuse(a, HTTP_BAD_REQUEST, "bad_request");
        return;
    }
    purpose = second ? HSC_WA_SECOND_FACTOR : HSC_WA_PASSWORDLESS;
    if (second) {
        hsc_status_t st = pending_login(rp, &store, &c, &user);
        pending = (c.amr & HSC_AMR_PENDING) != 0;
        hsc_wipe(&c, sizeof(c));
        if (st != HSC_OK) {
            if (hsc_status_class(st) == HSC_CLASS_FAULT) {
                refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
                return;
            }
            ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                          HSCLOGNO(286) "passkey options for a second "
                                        "factor refused: no pending login");
            refuse(a, HTTP_UNAUTHORIZED, "no_pending_login");
            return;
        }
        if ((f = hsc_factor_open(r, rp->sc, 1)) == NULL
            || (ids = credential_ids(r, f, user)) == NULL) {
            refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
            return;
        }
        if (!pending && ids[0] == '\0') {
            /* A full login (a step-up) of a user without a passkey. */
            ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                          HSCLOGNO(304) "passkey options for a second "
                                        "factor refused: user \"%s\" is "
                                        "logged in and has no passkey",
                          ap_escape_logitem(r->pool, user));
            refuse(a, HTTP_UNAUTHORIZED, "no_pending_login");
            return;
        }
    }
    if ((ch = new_challenge(rp, purpose, user)) == NULL) {
        refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
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
        const char *salt = prf_salt(r->pool);
        hsc_json_add_string(&w, "prfSalt", salt, strlen(salt));
    }
    if (hsc_json_end(&w, &len) != HSC_OK) {
        refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
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
        && hsc_token_failed(rp->r, rp->sc, store, key, strlen(key), &retry)
               == HSC_ATTEMPT_THROTTLED) {
        refuse(a, HTTP_TOO_MANY_REQUESTS, "throttled");
        a->retry_after = retry;
    }
}

static void assert_login(rp_t *rp, answer_t *a)
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
        refuse(a, HTTP_BAD_REQUEST, "bad_request");
        return;
    }
    if (b64_field(r, rp->f.id, HSC_PASSKEY_ID_MAX, &id) != 0
        || b64_field(r, rp->f.cdj, 4096, &k.cdj) != 0
        || b64_field(r, rp->f.ad, 2048, &k.ad) != 0
        || b64_field(r, rp->f.sig, 1024, &k.sig) != 0
        || (rp->f.uh && b64_field(r, rp->f.uh, 64, &k.uh) != 0)
        || (rp->f.prf
            && (secret_field(r, rp->f.prf, 32, &k.prf) != 0
                || k.prf.len != 32))) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(288) "passkey assertion refused: a field is "
                                    "missing or not base64url of its size");
        refuse(a, HTTP_BAD_REQUEST, "bad_request");
        return;
    }
    if (second) {
        st = pending_login(rp, &store, &c, &user);
        if (st != HSC_OK) {
            hsc_wipe(&c, sizeof(c));
            if (hsc_status_class(st) == HSC_CLASS_FAULT) {
                refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
                return;
            }
            ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                          HSCLOGNO(289) "passkey second factor refused: no "
                                        "pending login");
            refuse(a, HTTP_UNAUTHORIZED, "no_pending_login");
            return;
        }
    }
    else if ((store = hsc_userdb_acquire(r, rp->sc)) == NULL) {
        refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return;
    }
    who = ap_escape_logitem(r->pool, user);
    st = check_challenge(rp,
                         second ? HSC_WA_SECOND_FACTOR : HSC_WA_PASSWORDLESS,
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
        refuse(a, HTTP_FORBIDDEN, st == HSC_EEXPIRED ? "expired" : "refused");
        goto refused_early;
    }
    if ((k.f = hsc_factor_open(r, rp->sc, 0)) == NULL) {
        hsc_wipe(&c, sizeof(c));
        refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
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
            refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
            return;
        }
        ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                      HSCLOGNO(292) "passkey %s refused%s%s%s: no such "
                                    "credential%s",
                      second ? "second factor" : "login",
                      second ? " for user \"" : "", who, second ? "\"" : "",
                      second ? " of this user" : "");
        refuse(a, HTTP_FORBIDDEN, "refused");
        goto refused_early;
    }
    /* The user is known: the check runs under the login throttle. */
    memset(&at, 0, sizeof(at));
    at.user = pk->user;
    at.user_len = strlen(pk->user);
    at.check = assert_check;
    at.baton = &k;
    apr_table_setn(r->notes, HSC_NOTE_CODE_STEP, "1");
    switch (hsc_code_attempt(r, rp->sc, store, &at)) {
    case HSC_ATTEMPT_THROTTLED:
    case HSC_ATTEMPT_BUSY:
        hsc_wipe(&c, sizeof(c));
        refuse(a, HTTP_TOO_MANY_REQUESTS, "throttled");
        a->retry_after = at.retry_after;
        return;
    case HSC_ATTEMPT_UNAVAILABLE:
        hsc_wipe(&c, sizeof(c));
        hsc_ops_code(r, pk->user, at.user_len, HSC_LOGIN_STORE_FAULT,
                     HSC_METHOD_HWK, NULL);
        refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
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
            refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        }
        else {
            refuse(a, HTTP_FORBIDDEN, "refused");
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
            refuse(a,
                   hsc_status_class(st) == HSC_CLASS_FAULT
                       ? HTTP_SERVICE_UNAVAILABLE
                       : HTTP_FORBIDDEN,
                   hsc_status_class(st) == HSC_CLASS_FAULT ? "unavailable"
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
        refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
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

/* --- the account page: a new passkey ---------------------------------------
 */

/* The signed-in user of the account page: HSC_OK with *c (wipe it). */
static hsc_status_t account_login(rp_t *rp, hsc_cookie_t *c, hsc_user_t *u,
                                  int *recent)
{
    hsc_store_t *store;
    hsc_status_t st;

    *recent = 0;
    if ((store = hsc_userdb_acquire(rp->r, rp->sc)) == NULL) {
        return HSC_ESTORE;
    }
    st = hsc_session_verify(rp->r, rp->sc, rp->d, store, c, u);
    if (st == HSC_OK) {
        *recent = (int64_t)apr_time_sec(rp->r->request_time)
                      - (c->mfa_at > c->iat ? c->mfa_at : c->iat)
                  <= rp->d->recent_auth;
    }
    return st;
}

/* A user handle to offer at registration: the user's own when they have
 * one (read through a credential: PostgreSQL's httpd role may read
 * credentials, not handles), else one derived from the challenge, which
 * the create step derives again and the store keeps (hsc_passkeys_add). */
static void handle_for(const char *challenge, unsigned char out[32])
{
    char buf[32 + HSC_WA_CHALLENGE_TEXT_MAX];
    int n = apr_snprintf(buf, sizeof(buf), "hsc-passkey-handle-v1\n%s",
                         challenge);

    SHA256((const unsigned char *)buf, (size_t)n, out);
}

typedef struct {
    hsc_factors_t *f;
    unsigned char handle[HSC_PASSKEY_HANDLE_LEN];
    int found;
} handle_t;

static int first_handle(void *baton, const hsc_passkey_t *pk)
{
    handle_t *k = baton;
    hsc_passkey_t *full = malloc(sizeof(*full));

    if (full != NULL
        && hsc_passkeys_get(k->f, pk->id, pk->id_len, full) == HSC_OK) {
        memcpy(k->handle, full->handle, sizeof(k->handle));
        k->found = 1;
    }
    free(full);
    return k->found;
}

/* 1 and out: the user's handle; 0: none yet; -1: fault (logged). */
static int user_handle(rp_t *rp, hsc_factors_t *f, const char *user,
                       unsigned char out[HSC_PASSKEY_HANDLE_LEN])
{
    handle_t k;

    memset(&k, 0, sizeof(k));
    k.f = f;
    if (hsc_passkeys_list(f, user, first_handle, &k) != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, rp->r,
                      HSCLOGNO(296) "passkey: the credentials of user \"%s\" "
                                    "cannot be read: %s",
                      ap_escape_logitem(rp->r->pool, user),
                      hsc_factors_errmsg(f));
        return -1;
    }
    if (k.found) {
        memcpy(out, k.handle, HSC_PASSKEY_HANDLE_LEN);
    }
    return k.found;
}

static void options_create(rp_t *rp, const char *user, answer_t *a)
{
    request_rec *r = rp->r;
    unsigned char handle[HSC_PASSKEY_HANDLE_LEN];
    hsc_json_writer_t w;
    hsc_factors_t *f;
    const char *ch, *ids, *s;
    char *buf = apr_palloc(r->pool, 16384);
    size_t len;
    int have;

    if ((f = hsc_factor_open(r, rp->sc, 1)) == NULL
        || (ids = credential_ids(r, f, user)) == NULL
        || (have = user_handle(rp, f, user, handle)) < 0
        || (ch = new_challenge(rp, HSC_WA_REGISTER, user)) == NULL) {
        refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return;
    }
    if (!have) {
        handle_for(ch, handle);
    }
    hsc_json_begin(&w, buf, 16384);
    hsc_json_add_string(&w, "challenge", ch, strlen(ch));
    hsc_json_add_string(&w, "rpId", rp->rp_id, strlen(rp->rp_id));
    s = rp->d->site_name ? rp->d->site_name : rp->rp_id;
    hsc_json_add_string(&w, "rpName", s, strlen(s));
    s = b64_text(r->pool, handle, sizeof(handle));
    hsc_json_add_string(&w, "userId", s, strlen(s));
    hsc_json_add_string(&w, "userName", user, strlen(user));
    hsc_json_add_int(&w, "timeout", rp->sc->wa_lifetime * 1000);
    hsc_json_add_string(&w, "userVerification", "preferred", 9);
    hsc_json_add_string(&w, "residentKey", "preferred", 9);
    hsc_json_add_string(&w, "excludeCredentials", ids, strlen(ids));
    s = prf_salt(r->pool);
    hsc_json_add_string(&w, "prfSalt", s, strlen(s));
    if (hsc_json_end(&w, &len) != HSC_OK) {
        refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return;
    }
    a->json = buf;
}

/* A transports list as the store keeps it ([a-z,-]), else "". */
static const char *transports_of(const char *t)
{
    if (t == NULL || strlen(t) > HSC_PASSKEY_TRANSPORTS_MAX
        || strspn(t, "abcdefghijklmnopqrstuvwxyz,-") != strlen(t)) {
        return "";
    }
    return t;
}

/* The new credential of user, proved by x_n (a session's) or, when xn is
 * NULL, by the enrolment link of hash (hsc_passkeys_add_by_link). */
static void create(rp_t *rp, const char *user, const unsigned char *xn,
                   const unsigned char *hash, answer_t *a)
{
    request_rec *r = rp->r;
    const char *who = ap_escape_logitem(r->pool, user);
    hsc_passkey_t *pk = apr_pcalloc(r->pool, sizeof(*pk));
    hsc_wa_registration_t reg;
    hsc_wa_expect_t e;
    hsc_factors_t *f;
    bin_t id, cdj, att, spki, prf = {NULL, 0};
    int64_t issued;
    const char *canon, *why = NULL;
    char *end = NULL;
    char err[200];
    long alg;
    hsc_status_t st;

    alg = rp->f.alg ? strtol(rp->f.alg, &end, 10) : 0;
    if (b64_field(r, rp->f.id, HSC_PASSKEY_ID_MAX, &id) != 0
        || b64_field(r, rp->f.cdj, 4096, &cdj) != 0
        || b64_field(r, rp->f.att, 4096, &att) != 0
        || b64_field(r, rp->f.spki, HSC_PASSKEY_SPKI_MAX, &spki) != 0
        || end == NULL || *end != '\0' || end == rp->f.alg
        || (rp->f.prf
            && (secret_field(r, rp->f.prf, 32, &prf) != 0 || prf.len != 32))
        || !hsc_passkey_name_valid(rp->f.name ? rp->f.name : "Passkey")) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(297) "new passkey of user \"%s\" refused: a "
                                    "field is missing or malformed (or the "
                                    "name is not 1-64 printable characters)",
                      who);
        refuse(a, HTTP_BAD_REQUEST, "bad_request");
        return;
    }
    st = check_challenge(rp, HSC_WA_REGISTER, user, &issued, &canon);
    if (st == HSC_OK) {
        e.rp_id = rp->rp_id;
        e.origins = rp->origins;
        e.n_origins = rp->n_origins;
        e.challenge = canon;
        e.require_uv = 0;
        st = hsc_wa_registration_verify(&e, cdj.v, cdj.len, att.v, att.len,
                                        spki.v, spki.len, (int)alg, id.v,
                                        id.len, &reg, err, sizeof(err));
        why = err;
    }
    else {
        why = st == HSC_EEXPIRED ? "the challenge is too old (expired)"
                                 : "the challenge is not ours, or for another "
                                   "purpose or user";
    }
    if (st != HSC_OK) {
        apr_int64_t retry = 0;
        ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                      HSCLOGNO(298) "new passkey of user \"%s\" refused: %s",
                      who, why);
        hsc_ops_account(r, user, "passkey-add", "refused");
        refuse(a, HTTP_FORBIDDEN, st == HSC_EEXPIRED ? "expired" : "refused");
        hsc_store_t *store = hsc_userdb_acquire(r, rp->sc);
        if (store != NULL
            && hsc_token_failed(r, rp->sc, store, user, strlen(user), &retry)
                   == HSC_ATTEMPT_THROTTLED) {
            refuse(a, HTTP_TOO_MANY_REQUESTS, "throttled");
            a->retry_after = retry;
        }
        return;
    }
    memcpy(pk->id, id.v, id.len);
    pk->id_len = id.len;
    apr_cpystrn(pk->user, user, sizeof(pk->user));
    pk->alg = (int)alg;
    memcpy(pk->spki, spki.v, spki.len);
    pk->spki_len = spki.len;
    pk->sign_count = reg.sign_count;
    pk->be = (reg.flags & HSC_WA_FLAG_BE) != 0;
    pk->bs = (reg.flags & HSC_WA_FLAG_BS) != 0;
    pk->uv = (reg.flags & HSC_WA_FLAG_UV) != 0;
    pk->prf = prf.v != NULL;
    /* By an enrolment link, never sealed: a sealed passkey logs in without
     * the password, and a link must stay what it was, a second factor
     * added (the password still needed). The user seals one on the
     * account page after signing in. */
    pk->sealed = prf.v != NULL && xn != NULL;
    if (pk->sealed) {
        SHA256(prf.v, prf.len, pk->seal_hash);
    }
    if (prf.v != NULL) {
        hsc_wipe(prf.v, prf.len);
    }
    /* The handle offered at options (the store keeps the user's own). */
    handle_for(canon, pk->handle);
    apr_cpystrn(pk->transports, transports_of(rp->f.transports),
                sizeof(pk->transports));
    /* No name given: "Passkey" (the account page renames it). */
    apr_cpystrn(pk->name, rp->f.name ? rp->f.name : "Passkey",
                sizeof(pk->name));
    if ((f = hsc_factor_open(r, rp->sc, 0)) == NULL) {
        refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return;
    }
    st = xn != NULL
             ? hsc_passkeys_add(f, pk, xn,
                                (int64_t)apr_time_sec(r->request_time))
             : hsc_passkeys_add_by_link(f, pk, hash,
                                        (int64_t)apr_time_sec(r->request_time));
    if (st != HSC_OK) {
        int level = hsc_status_class(st) == HSC_CLASS_FAULT ? APLOG_ERR
                                                            : APLOG_NOTICE;
        ap_log_rerror(APLOG_MARK, level, 0, r,
                      HSCLOGNO(299) "new passkey of user \"%s\" not stored: "
                                    "%s: %s",
                      who, hsc_strerror(st), hsc_factors_errmsg(f));
        hsc_ops_account(r, user, "passkey-add",
                        st == HSC_EEXISTS ? "exists" : hsc_strerror(st));
        if (st == HSC_EEXISTS) {
            refuse(a, HTTP_CONFLICT, "exists");
        }
        else if (st == HSC_EAUTH) {
            refuse(a, HTTP_FORBIDDEN, xn != NULL ? "reauth" : "link");
        }
        else if (st == HSC_EINVAL) {
            refuse(a, HTTP_BAD_REQUEST, "bad_request");
        }
        else {
            refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        }
        return;
    }
    ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                  HSCLOGNO(300) "user \"%s\" added a passkey \"%s\" (%s)%s",
                  who, ap_escape_logitem(r->pool, pk->name),
                  pk->sealed ? "sealed" : "not sealed: no PRF",
                  xn != NULL ? "" : " by a one-time enrolment link");
    hsc_ops_account(r, user, xn != NULL ? "passkey-add" : "link-passkey", NULL);
    a->json = pk->sealed ? "{\"ok\":true,\"sealed\":true}"
                         : "{\"ok\":true,\"sealed\":false}";
}

/* --- an enrolment link: the first passkey without a session -------------
 */

static int any_passkey(void *baton, const hsc_passkey_t *pk)
{
    (void)pk;
    *(int *)baton = 1;
    return 1;
}

/* The account page's steps proved by a one-time enrolment link (field
 * link) instead of a session (docs/passkeys.md, "Lost every passkey"):
 * only while the link's user has no passkey; the create step uses the link
 * in the transaction that adds (hsc_passkeys_add_by_link). */
static void link_step(rp_t *rp, int options, answer_t *a)
{
    request_rec *r = rp->r;
    unsigned char hash[HSC_LINK_HASH_LEN];
    char user[HSC_USER_MAX + 1];
    hsc_link_purpose_t purpose;
    hsc_factors_t *f;
    hsc_status_t st;
    int has = 0;

    if (hsc_link_hash(rp->f.link, strlen(rp->f.link), hash) != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(319) "passkey by a one-time link refused: the "
                                    "link is malformed");
        refuse(a, HTTP_FORBIDDEN, "link");
        return;
    }
    if ((f = hsc_factor_open(r, rp->sc, 1)) == NULL) {
        refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return;
    }
    st = hsc_factors_link_peek(f, hash, (int64_t)apr_time_sec(r->request_time),
                               &purpose, user);
    if (st == HSC_OK && purpose != HSC_LINK_ENROL) {
        st = HSC_EAUTH;
    }
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, st == HSC_EAUTH ? APLOG_INFO : APLOG_ERR, 0,
                      r, HSCLOGNO(320) "passkey by a one-time link refused: %s",
                      st == HSC_EAUTH ? "no such valid enrolment link "
                                        "(unknown, used, replaced, expired "
                                        "or of another purpose)"
                                      : hsc_factors_errmsg(f));
        refuse(a, st == HSC_EAUTH ? HTTP_FORBIDDEN : HTTP_SERVICE_UNAVAILABLE,
               st == HSC_EAUTH ? "link" : "unavailable");
        return;
    }
    if (hsc_passkeys_list(f, user, any_passkey, &has) != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(321) "passkey by a one-time link: the "
                                    "credentials of user \"%s\" cannot be "
                                    "read: %s",
                      ap_escape_logitem(r->pool, user), hsc_factors_errmsg(f));
        refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return;
    }
    if (has) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(322) "passkey by a one-time link refused: user "
                                    "\"%s\" has a passkey already (a link "
                                    "adds only the first)",
                      ap_escape_logitem(r->pool, user));
        refuse(a, HTTP_CONFLICT, "has_passkey");
        return;
    }
    if (options) {
        options_create(rp, apr_pstrdup(r->pool, user), a);
    }
    else {
        create(rp, apr_pstrdup(r->pool, user), NULL, hash, a);
    }
}

static void account_step(rp_t *rp, answer_t *a)
{
    request_rec *r = rp->r;
    int options = !strcmp(rp->f.passkey, "options");
    hsc_cookie_t c;
    hsc_user_t u;
    hsc_status_t st;
    int recent;

    if (!options && strcmp(rp->f.passkey, "create")) {
        refuse(a, HTTP_BAD_REQUEST, "bad_request");
        return;
    }
    if (options && (rp->f.purpose == NULL || strcmp(rp->f.purpose, "create"))) {
        refuse(a, HTTP_BAD_REQUEST, "bad_request");
        return;
    }
    if (rp->f.link != NULL) {
        link_step(rp, options, a);
        return;
    }
    st = account_login(rp, &c, &u, &recent);
    if (st != HSC_OK) {
        refuse(a,
               hsc_status_class(st) == HSC_CLASS_FAULT
                   ? HTTP_SERVICE_UNAVAILABLE
                   : HTTP_UNAUTHORIZED,
               hsc_status_class(st) == HSC_CLASS_FAULT ? "unavailable"
                                                       : "not_signed_in");
        return;
    }
    /* The credential is added proved by x_n: a login without the password
     * (a passwordless one) enters it again, as does an old one. */
    if (!recent || !(c.amr & HSC_AMR_PWD)) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(301) "new passkey of user \"%s\" refused: %s",
                      ap_escape_logitem(r->pool, u.name),
                      recent ? "this login has no password (passwordless): "
                               "the password is needed again"
                             : "the login is older than HSCAccountRecentAuth");
        hsc_wipe(&c, sizeof(c));
        refuse(a, HTTP_FORBIDDEN, "reauth");
        return;
    }
    if (options) {
        options_create(rp, apr_pstrmemdup(r->pool, c.user, c.user_len), a);
    }
    else {
        create(rp, apr_pstrmemdup(r->pool, c.user, c.user_len), c.auth, NULL,
               a);
    }
    hsc_wipe(&c, sizeof(c));
}

/* --- the entry --------------------------------------------------------------
 */

int hsc_passkey_handle(request_rec *r, const hsc_srv_conf_t *sc,
                       const hsc_dir_conf_t *d, hsc_passkey_at_t at)
{
    apr_size_t len;
    char *body = hsc_form_passkey_body(r, &len);
    answer_t a;
    rp_t rp;
    int rv;

    if (body == NULL) {
        return DECLINED;
    }
    memset(&a, 0, sizeof(a));
    if (!d->passkeys) {
        hsc_wipe(body, len);
        return send_error(r, HTTP_NOT_FOUND, "not_found", 0);
    }
    rp_init(&rp, r, sc, d);
    if (sc->keys == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(302) "passkey request without HSCKeyFile");
        refuse(&a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
    }
    else if (pk_parse(body, &rp.f) != 0 || rp.f.passkey == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(303) "passkey request refused: malformed "
                                    "body");
        refuse(&a, HTTP_BAD_REQUEST, "bad_request");
    }
    else if (at == HSC_PASSKEY_AT_ACCOUNT) {
        account_step(&rp, &a);
    }
    else if (!strcmp(rp.f.passkey, "options")) {
        options_login(&rp, &a);
    }
    else if (!strcmp(rp.f.passkey, "assert")) {
        assert_login(&rp, &a);
    }
    else {
        refuse(&a, HTTP_BAD_REQUEST, "bad_request");
    }
    rv = send_answer(r, &a);
    hsc_wipe(body, len);
    return rv;
}
