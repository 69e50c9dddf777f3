/*
 * mod_hsc_account_passkey.h: the passkey list's forms on the account page
 * (mod_hsc_account_passkey.c).
 */
#ifndef MOD_HSC_ACCOUNT_PASSKEY_H
#define MOD_HSC_ACCOUNT_PASSKEY_H

#include "httpd.h"

#include "hsc_http.h"
#include "mod_hsc_account_view.h"

int hsc_account_passkey_rename(request_rec *r, const hsc_account_t *a,
                               const hsc_login_form_t *f);

int hsc_account_passkey_remove(request_rec *r, const hsc_account_t *a,
                               const hsc_login_form_t *f);

/* The seal switch (action=seal-on, seal-off): from a sealed session, after
 * a recent login (or the password again). */
int hsc_account_seal_switch(request_rec *r, const hsc_account_t *a,
                            const hsc_login_form_t *f, int on);

#endif /* MOD_HSC_ACCOUNT_PASSKEY_H */
