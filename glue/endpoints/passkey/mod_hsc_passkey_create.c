/*
 * mod_hsc_passkey_create.c: hsc-account's new passkey (options and the
 * create step), proved by a recent login's session or by a one-time
 * enrolment link (the first passkey only; docs/passkeys.md, "Lost every
 * passkey").
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
#include "mod_hsc_passkey_create.h"
#include "mod_hsc_passkey_rp.h"
#include "mod_hsc_session.h"
#include "mod_hsc_attempt.h"
#include "mod_hsc_userdb.h"
#include "hsc_json.h"
#include "hsc_passkeys.h"
#include "hsc_wa_ceremony.h"
#include "hsc_webauthn.h"

/* --- the account page: a new passkey ---------------------------------------
 */

/* The signed-in user of the account page: HSC_OK with *c (wipe it). */
static hsc_status_t account_login(hsc_passkey_rp_t *rp, hsc_cookie_t *c,
                                  hsc_user_t *u, int *recent)
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
static int user_handle(hsc_passkey_rp_t *rp, hsc_factors_t *f, const char *user,
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

static void options_create(hsc_passkey_rp_t *rp, const char *user,
                           hsc_passkey_answer_t *a)
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
        || (ids = hsc_passkey_rp_credential_ids(r, f, user)) == NULL
        || (have = user_handle(rp, f, user, handle)) < 0
        || (ch = hsc_passkey_rp_new_challenge(rp, HSC_WA_REGISTER, user))
               == NULL) {
        hsc_passkey_rp_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
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
    s = hsc_passkey_rp_b64_text(r->pool, handle, sizeof(handle));
    hsc_json_add_string(&w, "userId", s, strlen(s));
    hsc_json_add_string(&w, "userName", user, strlen(user));
    hsc_json_add_int(&w, "timeout", rp->sc->wa_lifetime * 1000);
    hsc_json_add_string(&w, "userVerification", "preferred", 9);
    hsc_json_add_string(&w, "residentKey", "preferred", 9);
    hsc_json_add_string(&w, "excludeCredentials", ids, strlen(ids));
    s = hsc_passkey_rp_prf_salt(r->pool);
    hsc_json_add_string(&w, "prfSalt", s, strlen(s));
    if (hsc_json_end(&w, &len) != HSC_OK) {
        hsc_passkey_rp_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
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

/* A new credential's fields, decoded. */
typedef struct {
    hsc_passkey_bin_t id, cdj, att, spki, prf;
    long alg;
} new_pk_t;

/* The create step's fields into n: 0, or -1 refused (logged). */
static int create_fields(hsc_passkey_rp_t *rp, const char *who, new_pk_t *n,
                         hsc_passkey_answer_t *a)
{
    request_rec *r = rp->r;
    char *end = NULL;

    n->alg = rp->f.alg ? strtol(rp->f.alg, &end, 10) : 0;
    if (hsc_passkey_rp_b64_field(r, rp->f.id, HSC_PASSKEY_ID_MAX, &n->id) != 0
        || hsc_passkey_rp_b64_field(r, rp->f.cdj, 4096, &n->cdj) != 0
        || hsc_passkey_rp_b64_field(r, rp->f.att, 4096, &n->att) != 0
        || hsc_passkey_rp_b64_field(r, rp->f.spki, HSC_PASSKEY_SPKI_MAX,
                                    &n->spki)
               != 0
        || end == NULL || *end != '\0' || end == rp->f.alg
        || (rp->f.prf
            && (hsc_passkey_rp_secret_field(r, rp->f.prf, 32, &n->prf) != 0
                || n->prf.len != 32))
        || !hsc_passkey_name_valid(rp->f.name ? rp->f.name : "Passkey")) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(297) "new passkey of user \"%s\" refused: a "
                                    "field is missing or malformed (or the "
                                    "name is not 1-64 printable characters)",
                      who);
        hsc_passkey_rp_refuse(a, HTTP_BAD_REQUEST, "bad_request");
        return -1;
    }
    return 0;
}

/* n's registration verified against user's challenge: HSC_OK with *reg
 * and *canon (the challenge's text); else refused (logged, audited, and
 * counted as a wrong password for user). */
static hsc_status_t create_verify(hsc_passkey_rp_t *rp, const char *user,
                                  const char *who, const new_pk_t *n,
                                  hsc_wa_registration_t *reg,
                                  const char **canon, hsc_passkey_answer_t *a)
{
    request_rec *r = rp->r;
    hsc_wa_expect_t e;
    hsc_store_t *store;
    apr_int64_t retry = 0;
    int64_t issued;
    const char *why;
    char err[200];
    hsc_status_t st;

    st = hsc_passkey_rp_check_challenge(rp, HSC_WA_REGISTER, user, &issued,
                                        canon);
    if (st == HSC_OK) {
        e.rp_id = rp->rp_id;
        e.origins = rp->origins;
        e.n_origins = rp->n_origins;
        e.challenge = *canon;
        e.require_uv = 0;
        st = hsc_wa_registration_verify(&e, n->cdj.v, n->cdj.len, n->att.v,
                                        n->att.len, n->spki.v, n->spki.len,
                                        (int)n->alg, n->id.v, n->id.len, reg,
                                        err, sizeof(err));
        why = err;
    }
    else {
        why = st == HSC_EEXPIRED ? "the challenge is too old (expired)"
                                 : "the challenge is not ours, or for another "
                                   "purpose or user";
    }
    if (st == HSC_OK) {
        return st;
    }
    ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                  HSCLOGNO(298) "new passkey of user \"%s\" refused: %s", who,
                  why);
    hsc_ops_account(r, user, "passkey-add", "refused");
    hsc_passkey_rp_refuse(a, HTTP_FORBIDDEN,
                          st == HSC_EEXPIRED ? "expired" : "refused");
    store = hsc_userdb_acquire(r, rp->sc);
    if (store != NULL
        && hsc_attempt_failed(r, rp->sc, store, user, strlen(user), &retry)
               == HSC_ATTEMPT_THROTTLED) {
        hsc_passkey_rp_refuse(a, HTTP_TOO_MANY_REQUESTS, "throttled");
        a->retry_after = retry;
    }
    return st;
}

/* pk: user's verified credential n (reg), sealed only when proved by a
 * session (by_session); n's PRF output wiped. */
static void fill_passkey(hsc_passkey_rp_t *rp, hsc_passkey_t *pk,
                         const char *user, const new_pk_t *n,
                         const hsc_wa_registration_t *reg, const char *canon,
                         int by_session)
{
    memcpy(pk->id, n->id.v, n->id.len);
    pk->id_len = n->id.len;
    apr_cpystrn(pk->user, user, sizeof(pk->user));
    pk->alg = (int)n->alg;
    memcpy(pk->spki, n->spki.v, n->spki.len);
    pk->spki_len = n->spki.len;
    pk->sign_count = reg->sign_count;
    pk->be = (reg->flags & HSC_WA_FLAG_BE) != 0;
    pk->bs = (reg->flags & HSC_WA_FLAG_BS) != 0;
    pk->uv = (reg->flags & HSC_WA_FLAG_UV) != 0;
    pk->prf = n->prf.v != NULL;
    /* By an enrolment link, never sealed: a sealed passkey logs in without
     * the password, and a link must stay what it was, a second factor
     * added (the password still needed). The user seals one on the
     * account page after signing in. */
    pk->sealed = n->prf.v != NULL && by_session;
    if (pk->sealed) {
        SHA256(n->prf.v, n->prf.len, pk->seal_hash);
    }
    if (n->prf.v != NULL) {
        hsc_wipe(n->prf.v, n->prf.len);
    }
    /* The handle offered at options (the store keeps the user's own). */
    handle_for(canon, pk->handle);
    apr_cpystrn(pk->transports, transports_of(rp->f.transports),
                sizeof(pk->transports));
    /* No name given: "Passkey" (the account page renames it). */
    apr_cpystrn(pk->name, rp->f.name ? rp->f.name : "Passkey",
                sizeof(pk->name));
}

/* pk stored, proved by xn or else by the link of hash: HSC_OK, or refused
 * (logged, audited). */
static hsc_status_t create_store(hsc_passkey_rp_t *rp, hsc_passkey_t *pk,
                                 const char *user, const char *who,
                                 const unsigned char *xn,
                                 const unsigned char *hash,
                                 hsc_passkey_answer_t *a)
{
    request_rec *r = rp->r;
    int64_t now = (int64_t)apr_time_sec(r->request_time);
    hsc_factors_t *f;
    hsc_status_t st;
    int level;

    if ((f = hsc_factor_open(r, rp->sc, 0)) == NULL) {
        hsc_passkey_rp_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return HSC_ESTORE;
    }
    st = xn != NULL ? hsc_passkeys_add(f, pk, xn, now)
                    : hsc_passkeys_add_by_link(f, pk, hash, now);
    if (st == HSC_OK) {
        return st;
    }
    level = hsc_status_class(st) == HSC_CLASS_FAULT ? APLOG_ERR : APLOG_NOTICE;
    ap_log_rerror(APLOG_MARK, level, 0, r,
                  HSCLOGNO(299) "new passkey of user \"%s\" not stored: "
                                "%s: %s",
                  who, hsc_strerror(st), hsc_factors_errmsg(f));
    hsc_ops_account(r, user, "passkey-add",
                    st == HSC_EEXISTS ? "exists" : hsc_strerror(st));
    if (st == HSC_EEXISTS) {
        hsc_passkey_rp_refuse(a, HTTP_CONFLICT, "exists");
    }
    else if (st == HSC_EAUTH) {
        hsc_passkey_rp_refuse(a, HTTP_FORBIDDEN,
                              xn != NULL ? "reauth" : "link");
    }
    else if (st == HSC_EINVAL) {
        hsc_passkey_rp_refuse(a, HTTP_BAD_REQUEST, "bad_request");
    }
    else {
        hsc_passkey_rp_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
    }
    return st;
}

/* The new credential of user, proved by x_n (a session's) or, when xn is
 * NULL, by the enrolment link of hash (hsc_passkeys_add_by_link). */
static void create(hsc_passkey_rp_t *rp, const char *user,
                   const unsigned char *xn, const unsigned char *hash,
                   hsc_passkey_answer_t *a)
{
    request_rec *r = rp->r;
    const char *who = ap_escape_logitem(r->pool, user);
    hsc_passkey_t *pk = apr_pcalloc(r->pool, sizeof(*pk));
    hsc_wa_registration_t reg;
    const char *canon;
    new_pk_t n;

    memset(&n, 0, sizeof(n));
    if (create_fields(rp, who, &n, a) != 0
        || create_verify(rp, user, who, &n, &reg, &canon, a) != HSC_OK) {
        return;
    }
    fill_passkey(rp, pk, user, &n, &reg, canon, xn != NULL);
    if (create_store(rp, pk, user, who, xn, hash, a) != HSC_OK) {
        return;
    }
    ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                  HSCLOGNO(300) "user \"%s\" added a passkey \"%s\" (%s)%s",
                  who, ap_escape_logitem(r->pool, pk->name),
                  pk->sealed ? "sealed"
                  : pk->prf  ? "not sealed: a link adds a second factor"
                             : "not sealed: no PRF",
                  xn != NULL ? "" : " by a one-time enrolment link");
    hsc_ops_account(r, user, xn != NULL ? "passkey-add" : "link-passkey", NULL);
    /* prf: the page tells "no PRF" from "a link's: a second factor". */
    a->json = apr_psprintf(r->pool, "{\"ok\":true,\"sealed\":%s,\"prf\":%s}",
                           pk->sealed ? "true" : "false",
                           pk->prf ? "true" : "false");
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
static void link_step(hsc_passkey_rp_t *rp, int options,
                      hsc_passkey_answer_t *a)
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
        hsc_passkey_rp_refuse(a, HTTP_FORBIDDEN, "link");
        return;
    }
    if ((f = hsc_factor_open(r, rp->sc, 1)) == NULL) {
        hsc_passkey_rp_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
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
        hsc_passkey_rp_refuse(a,
                              st == HSC_EAUTH ? HTTP_FORBIDDEN
                                              : HTTP_SERVICE_UNAVAILABLE,
                              st == HSC_EAUTH ? "link" : "unavailable");
        return;
    }
    if (hsc_passkeys_list(f, user, any_passkey, &has) != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(321) "passkey by a one-time link: the "
                                    "credentials of user \"%s\" cannot be "
                                    "read: %s",
                      ap_escape_logitem(r->pool, user), hsc_factors_errmsg(f));
        hsc_passkey_rp_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return;
    }
    if (has) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(322) "passkey by a one-time link refused: user "
                                    "\"%s\" has a passkey already (a link "
                                    "adds only the first)",
                      ap_escape_logitem(r->pool, user));
        hsc_passkey_rp_refuse(a, HTTP_CONFLICT, "has_passkey");
        return;
    }
    if (options) {
        options_create(rp, apr_pstrdup(r->pool, user), a);
    }
    else {
        create(rp, apr_pstrdup(r->pool, user), NULL, hash, a);
    }
}

void hsc_passkey_create_step(hsc_passkey_rp_t *rp, hsc_passkey_answer_t *a)
{
    request_rec *r = rp->r;
    int options = !strcmp(rp->f.passkey, "options");
    hsc_cookie_t c;
    hsc_user_t u;
    hsc_status_t st;
    int recent;

    if (!options && strcmp(rp->f.passkey, "create")) {
        hsc_passkey_rp_refuse(a, HTTP_BAD_REQUEST, "bad_request");
        return;
    }
    if (options && (rp->f.purpose == NULL || strcmp(rp->f.purpose, "create"))) {
        hsc_passkey_rp_refuse(a, HTTP_BAD_REQUEST, "bad_request");
        return;
    }
    if (rp->f.link != NULL) {
        link_step(rp, options, a);
        return;
    }
    st = account_login(rp, &c, &u, &recent);
    if (st != HSC_OK) {
        hsc_passkey_rp_refuse(a,
                              hsc_status_class(st) == HSC_CLASS_FAULT
                                  ? HTTP_SERVICE_UNAVAILABLE
                                  : HTTP_UNAUTHORIZED,
                              hsc_status_class(st) == HSC_CLASS_FAULT
                                  ? "unavailable"
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
        hsc_passkey_rp_refuse(a, HTTP_FORBIDDEN, "reauth");
        return;
    }
    /* A user who has a second factor adds a passkey only with it, used
     * lately: a password-only session sets up the first factor, nothing
     * more (else a stolen password would add a sealed passkey). */
    switch (hsc_factor_gate(r, rp->sc, &c, u.name, "new passkey",
                            rp->d->recent_auth)) {
    case HSC_FACTOR_GATE_NEEDED:
        hsc_wipe(&c, sizeof(c));
        hsc_passkey_rp_refuse(a, HTTP_FORBIDDEN, "factor_needed");
        return;
    case HSC_FACTOR_GATE_FAULT:
        hsc_wipe(&c, sizeof(c));
        hsc_passkey_rp_refuse(a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
        return;
    default: break;
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
