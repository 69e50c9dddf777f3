/*
 * mod_hsc_account_confirm.h: what the account wing's actions share above the
 * page (mod_hsc_account_confirm.c): a refusal and its answer, the current
 * password checked, a change confirmed (a recent login, the password, or
 * the user's second factor).
 */
#ifndef MOD_HSC_ACCOUNT_CONFIRM_H
#define MOD_HSC_ACCOUNT_CONFIRM_H

#include "httpd.h"

#include "hsc_http.h"
#include "mod_hsc_account_view.h"
#include "mod_hsc_attempt.h"

/* A refused action (action: "password", "totp-setup", ...): logged,
 * audited, into *o. */
void hsc_account_refuse(request_rec *r, const hsc_account_t *a,
                        const char *action, int status, const char *reason,
                        const char *message, hsc_account_outcome_t *o);

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

#endif /* MOD_HSC_ACCOUNT_CONFIRM_H */
