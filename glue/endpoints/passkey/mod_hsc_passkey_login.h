/*
 * mod_hsc_passkey_login.h: hsc-login's passkey steps
 * (mod_hsc_passkey_login.c), called by the entry (mod_hsc_passkey.c).
 */
#ifndef MOD_HSC_PASSKEY_LOGIN_H
#define MOD_HSC_PASSKEY_LOGIN_H

#include "mod_hsc_passkey_rp.h"

/* Options for a passwordless login or a second factor, and the assertion
 * that answers them. */
void hsc_pk_options_login(rp_t *rp, answer_t *a);
void hsc_pk_assert_login(rp_t *rp, answer_t *a);

#endif /* MOD_HSC_PASSKEY_LOGIN_H */
