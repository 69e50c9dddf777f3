/*
 * mod_hsc_passkey.h: the passkey endpoints (the contract in
 * docs/dev/passkeys.md, "Ceremony contract"; docs/passkeys.md). A POST of
 * hsc-login or hsc-account whose form names hsc_passkey is answered here,
 * in JSON; the handlers call in after their POST checks (mod_hsc_form.c).
 */
#ifndef MOD_HSC_PASSKEY_H
#define MOD_HSC_PASSKEY_H

#include "httpd.h"

#include "mod_hsc_config.h"

/* Where the request came: SetHandler hsc-login or hsc-account. */
typedef enum { HSC_PASSKEY_AT_LOGIN, HSC_PASSKEY_AT_ACCOUNT } hsc_passkey_at_t;

/*
 * DECLINED when the POST's body did not name hsc_passkey (the handler
 * goes on with its form); else the answer was sent: OK. The body copy
 * (hsc_form_passkey_body) is wiped here.
 */
int hsc_passkey_handle(request_rec *r, const hsc_srv_conf_t *sc,
                       const hsc_dir_conf_t *d, hsc_passkey_at_t at);

#endif /* MOD_HSC_PASSKEY_H */
