/*
 * mod_hsc_account.h: the account page's handler (mod_hsc_account.c, the
 * top of the account wing: the request's session, a password change, sign
 * out everywhere, and each action sent to the file below that does it).
 */
#ifndef MOD_HSC_ACCOUNT_H
#define MOD_HSC_ACCOUNT_H

#include "apr_pools.h"
#include "httpd.h"

#include "hsc_http.h"
#include "mod_hsc_account_view.h"

/* Registers the hsc-account handler and the post_config that makes the
 * built-in password blocklist. */
void hsc_account_register_hooks(apr_pool_t *p);

/* The request's session into a (a->sc and a->d set by the caller): the
 * store, the verified cookie (wipe a->c), the user, recent. HSC_OK, or a
 * refusal (no cookie, a bad one) or a fault (hsc_status_class). */
hsc_status_t hsc_account_session(request_rec *r, hsc_account_t *a);

/* Change a's password: f's password (current) and new_password, and with
 * repeat new_password2 (the page's second field). The policy, the
 * throttle, the conditional write (409 changed_meanwhile), the cookie of
 * this login re-issued, the log and audit lines. *o: 200, 400 (the
 * reason names the rule: policy_*, incomplete, mismatch, unchanged), 401,
 * 409, 429, 503 (readonly, store_fault, busy), 500. */
void hsc_account_password(request_rec *r, hsc_account_t *a,
                          const hsc_login_form_t *f, int repeat,
                          hsc_account_outcome_t *o);

#endif /* MOD_HSC_ACCOUNT_H */
