/*
 * mod_hsc_token.h: app passwords on the request path (mod_hsc_token.c;
 * docs/app-passwords.md): HSCAcceptTokens in check_authn, the
 * WWW-Authenticate challenges of a 401, the app password check of
 * AuthBasicProvider hsc (which mod_hsc_basicpw.c, above, registers), and
 * the last use written to HSCActivityDB.
 */
#ifndef MOD_HSC_TOKEN_H
#define MOD_HSC_TOKEN_H

#include "httpd.h"
#include "mod_auth.h"

#include "hsc_store.h"
#include "mod_hsc_config.h"

/*
 * check_authn's first step where HSCAcceptTokens is not Off: DECLINED
 * when the request offers no app password the location takes (the cookie
 * decides then); OK with the verdict recorded (r->user, the HSC_*
 * environment, groups); or the answer: 401 with the challenges, 403
 * (HSCTokenScope), 429 or 503 with Retry-After.
 */
int hsc_token_authn(request_rec *r, const hsc_srv_conf_t *sc,
                    const hsc_dir_conf_t *d, hsc_store_t *store);

/* The WWW-Authenticate lines of a 401 where d takes app passwords: Basic
 * (realm: AuthName, charset UTF-8) and/or Bearer; 0 when d takes none
 * (the caller sends its own), else 1. */
int hsc_token_challenge(request_rec *r, const hsc_dir_conf_t *d);

/*
 * The name and password of r's "Authorization: Basic" header, decoded
 * into r->pool: 1 with *user and *pw set (the caller wipes *pw after
 * use), 0 without a well-formed one (no header, another scheme, longer
 * than mod_hsc reads, no colon, a NUL inside). One decoder for app
 * passwords and HSCBasicPassword.
 */
int hsc_basic_pair(request_rec *r, char **user, char **pw);

/*
 * AuthBasicProvider hsc's check of a password shaped like an app password
 * (or of any, where HSCBasicPassword is Off): it must be an app password
 * of user. A refusal is AUTH_DENIED (401; counted as check_authn's are);
 * a store failure AUTH_GENERAL_ERROR, which mod_auth_basic answers 500
 * (its limit: docs/app-passwords.md).
 */
authn_status hsc_token_basic_check(request_rec *r, const char *user,
                                   const char *password);

/* When token id was last used (HSCActivityDB), or 0: never, not kept,
 * or the activity store cannot be read now. */
int64_t hsc_token_last_used(request_rec *r, const char *id);

/* The child's activity writer. */
void hsc_token_register_hooks(apr_pool_t *p);

#endif /* MOD_HSC_TOKEN_H */
