/*
 * mod_hsc_basicpw.h: HSCBasicPassword, the account password over HTTP Basic
 * (mod_hsc_basicpw.c; docs/app-passwords.md): checked as a login is, its
 * KDF result cached per child; and AuthBasicProvider hsc, which sends an
 * app password to mod_hsc_token.c.
 */
#ifndef MOD_HSC_BASICPW_H
#define MOD_HSC_BASICPW_H

#include "httpd.h"
#include "mod_auth.h"

#include "hsc_store.h"
#include "mod_hsc_config.h"

/*
 * check_authn's step after app passwords where HSCBasicPassword is On:
 * DECLINED when the request offers no Basic pair, or its password is
 * shaped like an app password; OK with the verdict recorded (r->user, the
 * HSC_* environment, HSC_AMR basic-password); or the answer: 401 with the
 * challenges, 429 or 503 (HSCMaxLoginKDF) with Retry-After, 503 when the
 * store fails.
 */
int hsc_basicpw_authn(request_rec *r, const hsc_srv_conf_t *sc,
                      const hsc_dir_conf_t *d, hsc_store_t *store);

/* AuthBasicProvider hsc (a password shaped like an app password goes to
 * hsc_token_basic_check, below), and the child's password cache (its
 * key, table and mutex). */
void hsc_basicpw_register_hooks(apr_pool_t *p);

#endif /* MOD_HSC_BASICPW_H */
