/*
 * mod_hsc_account.h: the account page (mod_hsc_account.c: the page, the
 * password, sign out everywhere; mod_hsc_account_factor.c: an
 * authenticator app and recovery codes).
 */
#ifndef MOD_HSC_ACCOUNT_H
#define MOD_HSC_ACCOUNT_H

#include "apr_pools.h"
#include "httpd.h"

#include "hsc_cookie.h"
#include "hsc_factors.h"
#include "hsc_http.h"
#include "hsc_store.h"
#include "hsc_token.h"
#include "hsc_pages.h"
#include "mod_hsc_config.h"
#include "mod_hsc_attempt.h"

/* Registers the hsc-account handler and the post_config that makes the
 * built-in password blocklist. */
void hsc_account_register_hooks(apr_pool_t *p);

/* The signed-in user an account page request is for. */
typedef struct {
    const hsc_srv_conf_t *sc;
    const hsc_dir_conf_t *d;
    hsc_store_t *store;
    hsc_cookie_t c; /* the verified cookie: c.auth is x_n, wipe it */
    hsc_user_t u;
    const char *user;
    int recent; /* the login's password or second factor is at most
                 * HSCAccountRecentAuth old */
    /* Came by a one-time enrolment link instead of a session: its text
     * (carried through the setup's forms) and hash (taken, atomically,
     * by the first right code). NULL otherwise. */
    const char *link;
    const unsigned char *link_hash;
    /* A login's pending cookie of a user without a factor, taken only to
     * set up the first (mod_hsc_account_setup.c), and where the login
     * goes back to afterwards (NULL: the page). */
    int setup;
    const char *ret;
} hsc_account_t;

/* --- mod_hsc_account_view.c: below every other part -------------------- */

/* What a's user has enrolled: 0, or -1 (logged) when it cannot be read.
 * A PostgreSQL user database has no factor tables yet: none. */
int hsc_account_factors(request_rec *r, const hsc_account_t *a,
                        hsc_factor_info_t *fi);

/* A short page (a heading, a sentence: an alert from status 400 up) with
 * a link to HSCLoginURL; the answer. */
int hsc_account_message(request_rec *r, const hsc_dir_conf_t *d, int status,
                        const char *heading, const char *text);

/* The new-password policy of the location for a user (with a second
 * factor or not): its blocklist and minimum. */
void hsc_account_policy(const hsc_srv_conf_t *sc, const hsc_dir_conf_t *d,
                        int has_factor, const struct hsc_blocklist **b,
                        int *min_chars);

/* 1 when the page manages a's app passwords: whenever it has the user
 * store (SQLite, or PostgreSQL through hsc_token_add, hsc_tokens_of and
 * hsc_token_revoke). */
int hsc_account_tokens_here(const hsc_account_t *a);

/* The page for a, with a notice of what was done or a refusal. */
int hsc_account_show(request_rec *r, const hsc_account_t *a, int status,
                     const char *notice, const char *error);

/* Set this browser's cookie of the same login after a change of the
 * user's record: nu's gen, the x_n given (the cookie's own, or a new
 * password's). */
hsc_status_t hsc_account_reissue(request_rec *r, const hsc_account_t *a,
                                 const hsc_user_t *nu,
                                 const unsigned char xn[HSC_XN_LEN]);

/* --- above it ------------------------------------------------------------ */

/* The actions of mod_hsc_account_factor.c; each returns the answer. */
int hsc_account_totp_setup(request_rec *r, const hsc_account_t *a);
int hsc_account_totp_confirm(request_rec *r, const hsc_account_t *a,
                             const hsc_login_form_t *f);
int hsc_account_totp_remove(request_rec *r, const hsc_account_t *a);
int hsc_account_recovery_new(request_rec *r, const hsc_account_t *a);

/* --- mod_hsc_account.c: shared by the page and hsc-api ------------------ */

/* How an action went, for the page or hsc-api (mod_hsc_api.c) to answer:
 * the HTTP status (200: done), the audit reason and the user's words of a
 * refusal (a 503 without words: the store or the throttle cannot answer),
 * the wait of a 429. Logged and audited already. */
typedef struct {
    int status;
    const char *reason;
    const char *message;
    apr_int64_t retry_after;
} hsc_account_outcome_t;

/* The request's session into a (a->sc and a->d set by the caller): the
 * store, the verified cookie (wipe a->c), the user, recent. HSC_OK, or a
 * refusal (no cookie, a bad one) or a fault (hsc_status_class). */
hsc_status_t hsc_account_session(request_rec *r, hsc_account_t *a);

/* The page's answer to a refused action: the page with o's words, the
 * throttled page (429), or the store's 503. */
int hsc_account_answer(request_rec *r, const hsc_account_t *a,
                       const hsc_account_outcome_t *o);

/* The current password pw of a's user, counted and capped like a login
 * (action names it in the audit): 1 when right (wipe l->xn), else 0 and
 * *o (401 wrong_password, 429, 503). */
int hsc_account_current(request_rec *r, const hsc_account_t *a,
                        const char *action, const hsc_form_field_t *pw,
                        hsc_login_t *l, hsc_account_outcome_t *o);

/* Where a's user has a second factor, a change to what proves them needs
 * this session to carry one used within HSCAccountRecentAuth: 1 when it
 * does, 0 when the user has none (or a's is an enrolment link), -1 with
 * *o (401 factor_needed, 503) when refused (logged, audited). */
int hsc_account_factor_gate(request_rec *r, const hsc_account_t *a,
                            const char *action, hsc_account_outcome_t *o);

/* A factor change's confirmation: where the user has a second factor,
 * hsc_account_factor_gate's; else 1 after a recent login
 * (HSCAccountRecentAuth) or with f's right password (counted like a
 * login); else 0 and *o (401 not_recent, or hsc_account_current's). */
int hsc_account_confirmed(request_rec *r, const hsc_account_t *a,
                          const hsc_login_form_t *f, const char *action,
                          hsc_account_outcome_t *o);

/* Change a's password: f's password (current) and new_password, and with
 * repeat new_password2 (the page's second field). The policy, the
 * throttle, the conditional write (409 changed_meanwhile), the cookie of
 * this login re-issued, the log and audit lines. *o: 200, 400 (the
 * reason names the rule: policy_*, incomplete, mismatch, unchanged), 401,
 * 409, 429, 503 (readonly, store_fault, busy), 500. */
void hsc_account_password(request_rec *r, hsc_account_t *a,
                          const hsc_login_form_t *f, int repeat,
                          hsc_account_outcome_t *o);

/* The app passwords' actions (mod_hsc_account_token.c): make one (after a
 * recent login, as a factor change), revoke one. The answer. */
int hsc_account_token_new(request_rec *r, const hsc_account_t *a,
                          const hsc_login_form_t *f);
int hsc_account_token_revoke(request_rec *r, const hsc_account_t *a,
                             const hsc_login_form_t *f);

/* Their bodies, shared with hsc-api. Make one from f's token_name,
 * token_scopes, token_expires (30d, 90d default, 365d, never), for a
 * confirmed user (hsc_account_confirmed): *o 201 with *t and text (shown
 * once: wipe it), or 400 (the reason: pgsql, bad_name, bad_scopes,
 * bad_expiry, name_taken), 503, 500. Revoke f's token_id: *o 200, 400
 * (pgsql, bad_id, unknown), 503. Logged and audited. */
void hsc_account_token_add(request_rec *r, const hsc_account_t *a,
                           const hsc_login_form_t *f, hsc_token_t *t,
                           char text[HSC_TOKEN_TEXT_LEN + 1],
                           hsc_account_outcome_t *o);
void hsc_account_token_drop(request_rec *r, const hsc_account_t *a,
                            const hsc_login_form_t *f,
                            hsc_account_outcome_t *o);

/* a's live app passwords, oldest first, into *list (hsc_page_token_t,
 * last_used from HSCActivityDB): 1; 0 where the page does not manage
 * them (hsc_account_tokens_here); -1 (logged) when they cannot be read. */
int hsc_account_token_list(request_rec *r, const hsc_account_t *a,
                           apr_array_header_t **list);

/* A request that carries a one-time link (mod_hsc_account_link.c): get
 * for a GET, f the form or the query. The answer. */
/* mod_hsc_account_passkey.c: the passkey list's forms. */
int hsc_account_passkey_rename(request_rec *r, const hsc_account_t *a,
                               const hsc_login_form_t *f);
int hsc_account_passkey_remove(request_rec *r, const hsc_account_t *a,
                               const hsc_login_form_t *f);
/* The seal switch (action=seal-on, seal-off): from a sealed session, after
 * a recent login (or the password again). */
int hsc_account_seal_switch(request_rec *r, const hsc_account_t *a,
                            const hsc_login_form_t *f, int on);

/* mod_hsc_account_setup.c: a's request with a login's pending cookie of
 * a user without a factor (HSCSecondFactor required, HSCAccountURL): the
 * setup page and its two actions; DECLINED when it is no such cookie. */
int hsc_account_setup(request_rec *r, hsc_account_t *a, int get,
                      const hsc_login_form_t *f);

int hsc_account_link(request_rec *r, const hsc_srv_conf_t *sc,
                     const hsc_dir_conf_t *d, int get,
                     const hsc_login_form_t *f);

#endif /* MOD_HSC_ACCOUNT_H */
