/*
 * mod_hsc_account_token.h: app passwords on the account page and in hsc-api
 * (mod_hsc_account_token.c).
 */
#ifndef MOD_HSC_ACCOUNT_TOKEN_H
#define MOD_HSC_ACCOUNT_TOKEN_H

#include "httpd.h"

#include "hsc_http.h"
#include "hsc_token.h"
#include "mod_hsc_account_view.h"

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

#endif /* MOD_HSC_ACCOUNT_TOKEN_H */
