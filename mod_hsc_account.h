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
#include "mod_hsc_config.h"

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

/* The app passwords' actions (mod_hsc_account_token.c): make one (after a
 * recent login, as a factor change), revoke one. The answer. */
int hsc_account_token_new(request_rec *r, const hsc_account_t *a,
                          const hsc_login_form_t *f);
int hsc_account_token_revoke(request_rec *r, const hsc_account_t *a,
                             const hsc_login_form_t *f);

/* A request that carries a one-time link (mod_hsc_account_link.c): get
 * for a GET, f the form or the query. The answer. */
int hsc_account_link(request_rec *r, const hsc_srv_conf_t *sc,
                     const hsc_dir_conf_t *d, int get,
                     const hsc_login_form_t *f);

#endif /* MOD_HSC_ACCOUNT_H */
