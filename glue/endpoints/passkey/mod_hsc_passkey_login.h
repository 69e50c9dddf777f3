/*
 * mod_hsc_passkey_login.h: hsc-login's passkey steps
 * (mod_hsc_passkey_login.c), called by the entry (mod_hsc_passkey.c).
 */
#ifndef MOD_HSC_PASSKEY_LOGIN_H
#define MOD_HSC_PASSKEY_LOGIN_H

#include "mod_hsc_passkey_rp.h"

/* Options for a passwordless login or a second factor, and the assertion
 * that answers them. */
void hsc_passkey_login_options(hsc_passkey_rp_t *rp, hsc_passkey_answer_t *a);
void hsc_passkey_login_assert(hsc_passkey_rp_t *rp, hsc_passkey_answer_t *a);

#endif /* MOD_HSC_PASSKEY_LOGIN_H */
