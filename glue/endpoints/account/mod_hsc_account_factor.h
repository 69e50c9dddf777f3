/*
 * mod_hsc_account_factor.h: an authenticator app and recovery codes on the
 * account page (mod_hsc_account_factor.c); each action returns the answer.
 */
#ifndef MOD_HSC_ACCOUNT_FACTOR_H
#define MOD_HSC_ACCOUNT_FACTOR_H

#include "httpd.h"

#include "hsc_http.h"
#include "mod_hsc_account_view.h"

/* The actions of mod_hsc_account_factor.c; each returns the answer. */
int hsc_account_totp_setup(request_rec *r, const hsc_account_t *a);

int hsc_account_totp_confirm(request_rec *r, const hsc_account_t *a,
                             const hsc_login_form_t *f);

int hsc_account_totp_remove(request_rec *r, const hsc_account_t *a);

int hsc_account_recovery_new(request_rec *r, const hsc_account_t *a);

#endif /* MOD_HSC_ACCOUNT_FACTOR_H */
