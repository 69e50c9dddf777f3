/*
 * mod_hsc_passkey_create.h: hsc-account's new passkey
 * (mod_hsc_passkey_create.c), called by the entry (mod_hsc_passkey.c).
 */
#ifndef MOD_HSC_PASSKEY_CREATE_H
#define MOD_HSC_PASSKEY_CREATE_H

#include "mod_hsc_passkey_rp.h"

/* Options and the create step of a new passkey, by a session or an
 * enrolment link. */
void hsc_passkey_create_step(hsc_passkey_rp_t *rp, hsc_passkey_answer_t *a);

#endif /* MOD_HSC_PASSKEY_CREATE_H */
