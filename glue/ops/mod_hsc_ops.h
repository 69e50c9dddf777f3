/*
 * mod_hsc_ops.h: what operators see of mod_hsc, apart from the error log:
 * the events below (mod_hsc_ops.c), counted in the metrics
 * (mod_hsc_metrics.h) and one JSON line each in the audit log
 * (mod_hsc_audit.h). The rest of the glue reports each event with one
 * call; the ops wing decides what is logged and counted.
 */
#ifndef MOD_HSC_OPS_H
#define MOD_HSC_OPS_H

#include "httpd.h"
#include "http_config.h"

#include "hsc_audit.h"
#include "hsc_cookie.h"
#include "hsc_outcome.h"
#include "hsc_store.h"
#include "mod_hsc_config.h"
#include "hsc_http.h"

/* The events' hooks (the configured scopes collected, the version
 * component). */
void hsc_ops_register_hooks(apr_pool_t *p);

/* --- events: one call at each site ---------------------------------------- */

/* A login attempt of form f ended with o; kid: the key that signed the
 * new cookie (success only). */
void hsc_ops_login(request_rec *r, const hsc_login_form_t *f,
                   hsc_login_outcome_t o, const char *kid);

/* The second-factor step of user: its outcome and method (HSC_METHOD_NONE
 * when no code was read), the metrics and the audit line. */
void hsc_ops_code(request_rec *r, const char *user, size_t len,
                  hsc_login_outcome_t o, hsc_method_t how, const char *kid);

/* A login refused by the throttle: by_user 0 for the address's counter,
 * 1 for the username's; until: Unix seconds when it frees. */
void hsc_ops_lockout(request_rec *r, const char *user, size_t len, int by_user,
                     apr_int64_t until);

/* A logout by user (user_len bytes; NULL: nobody named), whose cookie kid
 * signed (or NULL); everywhere 1 when the revocation was asked for, st its
 * result (HSC_OK, or why not). The handler names the user: reporting
 * never reads the request's cookie. */
void hsc_ops_logout(request_rec *r, const char *user, size_t user_len,
                    const char *kid, int everywhere, hsc_status_t st);

/* The account page's action ("password", "signout") by user: reason
 * NULL for a success, else why it was refused (docs/audit-log.md). */
void hsc_ops_account(request_rec *r, const char *user, const char *action,
                     const char *reason);

/* A cookie was verified (st HSC_OK, c its fields) or refused (st, the
 * value val of len bytes); vp NULL: refused for being sent twice. */
void hsc_ops_cookie(request_rec *r, const hsc_verify_params_t *vp,
                    const char *val, size_t len, hsc_status_t st,
                    const hsc_cookie_t *c);

/* The user database could not be opened or failed a call. */
void hsc_ops_store_error(request_rec *r);

#endif /* MOD_HSC_OPS_H */
