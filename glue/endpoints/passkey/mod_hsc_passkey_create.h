/*
 * mod_hsc_passkey_create.h: hsc-account's new passkey
 * (mod_hsc_passkey_create.c), called by the entry (mod_hsc_passkey.c).
 */
#ifndef MOD_HSC_PASSKEY_CREATE_H
#define MOD_HSC_PASSKEY_CREATE_H

#include "mod_hsc_passkey_rp.h"

/* Options and the create step of a new passkey, by a session or an
 * enrolment link. */
void hsc_pk_account_step(rp_t *rp, answer_t *a);

#endif /* MOD_HSC_PASSKEY_CREATE_H */
