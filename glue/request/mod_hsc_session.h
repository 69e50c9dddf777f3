/*
 * mod_hsc_session.h: the cookie on the wire (mod_hsc_session.c). Verify a
 * request, the verdict it carries, the sliding refresh, Set-Cookie, and
 * what a status means in HTTP.
 */
#ifndef MOD_HSC_SESSION_H
#define MOD_HSC_SESSION_H

#include "httpd.h"

#include "hsc_cookie.h"
#include "hsc_store.h"
#include "hsc_token.h"
#include "mod_hsc_config.h"

/*
 * The one mapping of a status to what the glue does with it (the core
 * classifies: hsc_status_class). *level is the log level of the refusal;
 * the return value is the HTTP status: HTTP_UNAUTHORIZED for a refusal or
 * a forgery (the caller answers with its login page, redirect or 401),
 * HTTP_SERVICE_UNAVAILABLE for a fault the client may retry (answer with
 * hsc_userdb_unavailable), HTTP_INTERNAL_SERVER_ERROR for a crypto fault,
 * OK for HSC_OK.
 */
int hsc_status_outcome(hsc_status_t st, int *level);

/* Fill vp for this request and location. */
void hsc_session_params(request_rec *r, const hsc_srv_conf_t *sc,
                        const hsc_dir_conf_t *d, hsc_verify_params_t *vp);

/*
 * Find and verify the request's cookie. Returns HSC_OK with *c and *u
 * filled (c->auth is x_n: wipe *c after use), HSC_EINVAL when there is no
 * cookie, or the refusal (already logged once, with its tag, and counted).
 */
hsc_status_t hsc_session_verify(request_rec *r, const hsc_srv_conf_t *sc,
                                const hsc_dir_conf_t *d, hsc_store_t *store,
                                hsc_cookie_t *c, hsc_user_t *u);

/* The same at the second-factor step, where a pending cookie (amr
 * pending: the password done, a second factor due) is HSC_OK too: the
 * caller tells it from a full login's by c->amr. */
hsc_status_t hsc_session_verify_step(request_rec *r, const hsc_srv_conf_t *sc,
                                     const hsc_dir_conf_t *d,
                                     hsc_store_t *store, hsc_cookie_t *c,
                                     hsc_user_t *u);

/*
 * The one place a Set-Cookie is built: name=value with the location's
 * attributes, HttpOnly always, lifetime seconds (0: expire it now). Added
 * to err_headers_out so it survives redirects and error responses; the
 * response is marked no-store. HSC_OK, or HSC_EINVAL when the merged
 * attributes break a cookie rule (logged; nothing is set: the caller
 * answers 500).
 */
hsc_status_t hsc_set_cookie(request_rec *r, const hsc_dir_conf_t *d,
                            const char *value,
                            apr_int64_t lifetime) HSC_MUST_CHECK;

/*
 * For a subrequest or internal redirect: when the main or an earlier
 * request reached a verdict on the same server under the same rules (the
 * same cookie, scope, binding and ages), r takes it (r->user, the
 * environment, private caching) and 1; else 0 and r must verify afresh.
 */
int hsc_session_adopt(request_rec *r);

/* Record on r the verdict of a verified cookie (r->user, AuthType, the
 * HSC_* environment), refresh the cookie when due, mark r private. */
void hsc_session_admit(request_rec *r, const hsc_srv_conf_t *sc,
                       const hsc_dir_conf_t *d, const hsc_cookie_t *c,
                       const hsc_user_t *u);

/* The methods of a request opened by an app password (HSC_AMR,
 * HSCIdentityHeader methods): not an RFC 8176 name, so that nothing takes
 * it for a login. */
#define HSC_AMR_APP_PASSWORD "app-password"

/* Record on r the verdict of an app password t of user u (mod_hsc_token.c):
 * r->user, the HSC_* environment (HSC_LOGIN_TIME: the token's creation,
 * HSC_EXPIRES: its expiry or 0, HSC_AMR: app-password, HSC_TOKEN_ID), the
 * groups for Require hsc-group; marks r private. No cookie is set. */
void hsc_session_admit_token(request_rec *r, const hsc_token_t *t,
                             const hsc_user_t *u);

/* The methods of a request opened by the account password over HTTP Basic
 * (HSCBasicPassword): not an RFC 8176 name either. */
#define HSC_AMR_BASIC_PASSWORD "basic-password"

/* Record on r the verdict of user u's account password over Basic
 * (mod_hsc_basicpw.c): r->user, the HSC_* environment (HSC_LOGIN_TIME:
 * checked_at, when the password was last checked; HSC_EXPIRES: 0; HSC_AMR:
 * basic-password), the groups; marks r private. No cookie is set. */
void hsc_session_admit_basic(request_rec *r, const hsc_user_t *u,
                             int64_t checked_at);

/* The groups of r's verdict ("g1,g2" or ""), or NULL when this module
 * did not verify r (nor a request it inherits from). */
const char *hsc_session_groups(const request_rec *r);

/* One field of r's verdict, as text (HSCIdentityHeader; the same text as
 * its HSC_ variable), or NULL when this module did not verify r (nor a
 * request it inherits from). */
const char *hsc_session_field(const request_rec *r, hsc_identity_field_t f);

/* 1 for a browser's navigation: GET that accepts HTML (what
 * HSCUnauthenticated auto redirects, and step-up sends to the code step). */
int hsc_browser_navigation(const request_rec *r);

/* HSCLoginURL (d->login_url, not NULL) with ?return=<this request> and
 * extra ("" or "&name=value") when the request's target is origin-form;
 * HSCLoginURL alone otherwise. */
const char *hsc_login_url_back(request_rec *r, const hsc_dir_conf_t *d,
                               const char *extra);

/* How r's verified user logged in (amr bits, iat, mfa_at): 1, or 0 when
 * this module did not verify r. For Require hsc-factor. */
int hsc_session_auth(const request_rec *r, unsigned *amr, int64_t *iat,
                     int64_t *mfa_at);

#endif /* MOD_HSC_SESSION_H */
