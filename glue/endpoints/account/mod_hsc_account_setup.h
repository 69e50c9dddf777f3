/*
 * mod_hsc_account_setup.h: a login that needs a first second factor
 * (mod_hsc_account_setup.c).
 */
#ifndef MOD_HSC_ACCOUNT_SETUP_H
#define MOD_HSC_ACCOUNT_SETUP_H

#include "httpd.h"

#include "hsc_http.h"
#include "mod_hsc_account_view.h"

/* mod_hsc_account_setup.c: a's request with a login's pending cookie of
 * a user without a factor (HSCSecondFactor required, HSCAccountURL): the
 * setup page and its two actions; DECLINED when it is no such cookie. */
int hsc_account_setup(request_rec *r, hsc_account_t *a, int get,
                      const hsc_login_form_t *f);

#endif /* MOD_HSC_ACCOUNT_SETUP_H */
