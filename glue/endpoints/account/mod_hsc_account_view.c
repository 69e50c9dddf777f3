/*
 * mod_hsc_account_view.c: what every part of the account page shares,
 * below them all (mod_hsc_account.c, _factor.c, _link.c use it; it uses
 * none of them): the user's factors and new-password policy, the page
 * itself, a short message page, and this browser's cookie re-issued
 * after a change.
 */
#include <string.h>

#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"

#include "mod_hsc_account_view.h"
#include "mod_hsc_factor.h"
#include "mod_hsc_form.h"
#include "mod_hsc_log.h"
#include "mod_hsc_session.h"
#include "mod_hsc_token.h"
#include "hsc_b64.h"
#include "hsc_passkeys.h"
#include "hsc_policy.h"
#include "hsc_tokens.h"

/* The new-password policy of this location: its blocklist (NULL: none;
 * unset: the built-in one) and, unless HSCPasswordMinLength says, 15
 * characters or 8 beside a second factor. */
void hsc_account_policy(const hsc_srv_conf_t *sc, const hsc_dir_conf_t *d,
                        int has_factor, const hsc_blocklist_t **b,
                        int *min_chars)
{
    *min_chars = d->password_min_set ? d->password_min
                 : has_factor        ? HSC_POLICY_MIN_WITH_FACTOR
                                     : HSC_POLICY_MIN_ALONE;
    *b = d->blocklist_set ? d->blocklist : sc->global->default_blocklist;
}

static void policy_of(const hsc_account_t *a, int has_factor,
                      const hsc_blocklist_t **b, int *min_chars)
{
    hsc_account_policy(a->sc, a->d, has_factor, b, min_chars);
}

/* What the user has enrolled: -1 (logged) when it cannot be read. */
int hsc_account_factors(request_rec *r, const hsc_account_t *a,
                        hsc_factor_info_t *fi)
{
    return hsc_factor_info(r, a->sc, a->user, fi);
}

/* hsc_tokens_list's walk: a's live tokens into an array. */
typedef struct {
    request_rec *r;
    apr_array_header_t *list;
} token_walk_t;

static int token_seen(void *baton, const hsc_token_t *t)
{
    token_walk_t *w = baton;
    hsc_page_token_t *pt;

    if (t->revoked != 0) {
        return 0;
    }
    pt = apr_array_push(w->list);
    pt->id = apr_pstrdup(w->r->pool, t->id);
    pt->name = apr_pstrdup(w->r->pool, t->name);
    pt->scopes = apr_pstrdup(w->r->pool, t->scopes);
    pt->created = t->created;
    pt->expires = t->expires;
    pt->last_used = hsc_token_last_used(w->r, t->id);
    return 0;
}

/* Both stores: on PostgreSQL through the schema's functions (version 6). */
int hsc_account_tokens_here(const hsc_account_t *a)
{
    return a->store != NULL;
}

int hsc_account_token_list(request_rec *r, const hsc_account_t *a,
                           apr_array_header_t **list)
{
    token_walk_t w;

    *list = NULL;
    if (!hsc_account_tokens_here(a)) {
        return 0;
    }
    w.r = r;
    w.list = apr_array_make(r->pool, 4, sizeof(hsc_page_token_t));
    if (hsc_tokens_list(a->store, a->user, token_seen, &w) != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r,
                      HSCLOGNO(236) "account page: the app passwords of user "
                                    "\"%s\" cannot be listed: %s",
                      ap_escape_logitem(r->pool, a->user),
                      hsc_store_errmsg(a->store));
        return -1;
    }
    *list = w.list;
    return 1;
}

/* The app-password section's list: v->tokens stays 0 (no section) when
 * the list cannot be read (logged). */
static void tokens_of(request_rec *r, const hsc_account_t *a,
                      hsc_account_view_t *v)
{
    apr_array_header_t *list;

    if (hsc_account_token_list(r, a, &list) != 1) {
        return;
    }
    v->tokens = 1;
    v->token_list = (const hsc_page_token_t *)list->elts;
    v->n_tokens = (size_t)list->nelts;
    v->now = (int64_t)apr_time_sec(r->request_time);
}

static int passkey_row(void *baton, const hsc_passkey_t *pk)
{
    apr_array_header_t *list = baton;
    hsc_page_passkey_t *k = apr_array_push(list);
    char *id = apr_palloc(list->pool, HSC_B64URL_LEN(pk->id_len) + 1);

    id[hsc_b64url_encode(pk->id, pk->id_len, id)] = '\0';
    k->id = id;
    k->name = apr_pstrdup(list->pool, pk->name);
    k->created = pk->created;
    k->sealed = pk->sealed;
    k->last_used = pk->last_used;
    return 0;
}

/* The user's passkeys, where HSCPasskeys is On (a store that cannot list
 * them shows no section: logged, HSC305). */
static void passkeys_of(request_rec *r, const hsc_account_t *a,
                        hsc_account_view_t *v)
{
    apr_array_header_t *list;
    hsc_factors_t *f;

    /* Not read-only: on SQLite, "last used" is in the state file, which
     * only a handle that may write opens. */
    if (!a->d->passkeys || (f = hsc_factor_open(r, a->sc, 0)) == NULL) {
        return;
    }
    list = apr_array_make(r->pool, 4, sizeof(hsc_page_passkey_t));
    if (hsc_passkeys_list(f, a->user, passkey_row, list) != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(305) "the account page cannot list the "
                                    "passkeys of user \"%s\": %s",
                      ap_escape_logitem(r->pool, a->user),
                      hsc_factors_errmsg(f));
        return;
    }
    v->passkeys = 1;
    v->passkey_list = (const hsc_page_passkey_t *)list->elts;
    v->n_passkeys = (size_t)list->nelts;
    /* The switch as the request path read it, with the session's row. */
    v->seal_required = hsc_user_seal_required(&a->u);
    v->sealed_session = (a->c.amr & HSC_AMR_SEAL) != 0;
}

/* The page for a, with a notice of what was done or a refusal. */
int hsc_account_show(request_rec *r, const hsc_account_t *a, int status,
                     const char *notice, const char *error)
{
    hsc_page_conf_t pc = hsc_form_page_conf(a->d);
    hsc_account_view_t v;
    hsc_factor_info_t fi;
    const hsc_blocklist_t *b;
    int known = hsc_account_factors(r, a, &fi) == 0;

    memset(&v, 0, sizeof(v));
    v.user = a->user;
    v.groups = a->u.groups;
    v.totp = known ? fi.totp == HSC_TOTP_ACTIVE : -1;
    v.recovery_left = known ? fi.recovery_left : -1;
    v.factors = known && a->sc->keys != NULL;
    v.recent = a->recent;
    policy_of(a, known && hsc_factors_any(&fi), &b, &v.min_chars);
    v.notice = notice;
    v.error = error;
    tokens_of(r, a, &v);
    passkeys_of(r, a, &v);
    if (a->link == NULL && a->d->login_url != NULL
        && ((known && hsc_factors_any(&fi)) || v.n_passkeys > 0)
        && !hsc_factor_fresh(r, &a->c, a->d->recent_auth)) {
        v.stepup_url = hsc_login_url_back(r, a->d, "&factor=1");
    }
    return hsc_form_send(r, status, hsc_page_account(r->pool, &pc, &v));
}

/* The cookie of the same login for the new password: the same iat, lid,
 * amr and mfa_at (as the code step re-issues), the new gen and x_n. A
 * format 1 login becomes a format 2 one (a new lid) where the user
 * database has gen. */
hsc_status_t hsc_account_reissue(request_rec *r, const hsc_account_t *a,
                                 const hsc_user_t *nu,
                                 const unsigned char xn[HSC_XN_LEN])
{
    const hsc_dir_conf_t *d = a->d;
    char value[HSC_COOKIE_VALUE_MAX];
    unsigned char lid[HSC_LID_LEN];
    hsc_verify_params_t vp;
    hsc_claims_t cl;
    hsc_status_t st = HSC_OK;
    size_t len;
    int rem = (a->c.amr & HSC_AMR_REM) != 0;

    hsc_session_params(r, a->sc, d, &vp);
    memset(&cl, 0, sizeof(cl));
    cl.user = a->c.user;
    cl.user_len = a->c.user_len;
    cl.iat = a->c.iat;
    cl.exp = hsc_cookie_expiry(cl.iat, vp.now, rem ? d->remember : d->idle,
                               rem ? d->remember : d->max_age);
    if (cl.exp <= vp.now) {
        cl.exp = vp.now + 1;
    }
    if (nu->gen < 0) {
        st = hsc_cookie_mint(hsc_keyring_signer(a->sc->keys), cl.user,
                             cl.user_len, cl.iat, cl.exp, xn, vp.scope,
                             vp.address, value, sizeof(value), &len);
    }
    else {
        if (a->c.format == 2) {
            memcpy(lid, a->c.lid, sizeof(lid));
            cl.amr = a->c.amr;
            cl.mfa_at = a->c.mfa_at;
            /* A sealed login keeps its z (after x_n in auth). */
            if ((cl.amr & HSC_AMR_SEAL) && a->c.auth_len == 2 * HSC_XN_LEN) {
                cl.z = a->c.auth + HSC_XN_LEN;
            }
        }
        else {
            st = hsc_random(lid, sizeof(lid));
            cl.amr = HSC_AMR_PWD;
        }
        cl.gen = nu->gen;
        cl.lid = lid;
        cl.xn = xn;
        if (st == HSC_OK) {
            st = hsc_cookie_mint2(hsc_keyring_signer(a->sc->keys), &cl,
                                  vp.scope, vp.address, value, sizeof(value),
                                  &len);
        }
    }
    if (st == HSC_OK) {
        st = hsc_set_cookie(r, d, value, cl.exp - vp.now);
    }
    hsc_wipe(value, sizeof(value));
    return st;
}

int hsc_account_message(request_rec *r, const hsc_dir_conf_t *d, int status,
                        const char *heading, const char *text)
{
    hsc_page_conf_t pc = hsc_form_page_conf(d);

    return hsc_form_send(r, status,
                         hsc_page_message(r->pool, &pc, heading, text,
                                          status >= 400, d->login_url,
                                          "Log in"));
}
