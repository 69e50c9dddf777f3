/*
 * mod_hsc_account_view.h: the account wing's bottom: who an account request is
 * for (hsc_account_t), how an action went (hsc_account_outcome_t), the page,
 * the policy, the list of app passwords, the cookie re-issued
 * (mod_hsc_account_view.c).
 */
#ifndef MOD_HSC_ACCOUNT_VIEW_H
#define MOD_HSC_ACCOUNT_VIEW_H

#include "apr_pools.h"
#include "apr_tables.h"
#include "httpd.h"

#include "hsc_cookie.h"
#include "hsc_factors.h"
#include "hsc_pages.h"
#include "hsc_store.h"
#include "mod_hsc_config.h"

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

/* a's live app passwords, oldest first, into *list (hsc_page_token_t,
 * last_used from HSCActivityDB): 1; 0 where the page does not manage
 * them (hsc_account_tokens_here); -1 (logged) when they cannot be read. */
int hsc_account_token_list(request_rec *r, const hsc_account_t *a,
                           apr_array_header_t **list);

/* The page for a, with a notice of what was done or a refusal. */
int hsc_account_show(request_rec *r, const hsc_account_t *a, int status,
                     const char *notice, const char *error);

/* Set this browser's cookie of the same login after a change of the
 * user's record: nu's gen, the x_n given (the cookie's own, or a new
 * password's). */
hsc_status_t hsc_account_reissue(request_rec *r, const hsc_account_t *a,
                                 const hsc_user_t *nu,
                                 const unsigned char xn[HSC_XN_LEN]);

#endif /* MOD_HSC_ACCOUNT_VIEW_H */
