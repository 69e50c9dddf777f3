/*
 * mod_hsc.h: what the parts of the httpd glue share (mod_hsc.c: hooks,
 * authentication, authorization; mod_hsc_config.[ch]: every directive;
 * mod_hsc_login.c: the login and logout handlers; mod_hsc_throttle.[ch]:
 * throttling). Private to the module; never included by hsc_core.
 */
#ifndef MOD_HSC_H
#define MOD_HSC_H

#include "httpd.h"
#include "http_config.h"

#include "hsc_util.h"
#include "hsc_version.h"
#include "hsc_keys.h"
#include "hsc_kdf.h"
#include "hsc_store.h"
#include "hsc_cookie.h"
#include "mod_hsc_config.h"
#include "mod_hsc_log.h"

/* Largest login or logout form body read; anything bigger is a 413. */
#define HSC_FORM_BODY_MAX 8192

/* What a verified request carries, in r->request_config. */
typedef struct {
    const char *user;
    const char *groups;    /* "g1,g2" or "" */
    char iat[24], exp[24]; /* canonical decimal, for the environment */
} hsc_req_t;

/* mod_hsc_pgsql.c: what HSCUserDB names (an SQLite path or "pgsql:"), the
 * PostgreSQL pool directives, one pool per child and database. */
void hsc_userdb_pre_config(void);
const char *hsc_pgsql_set_pool_size(cmd_parms *cmd, void *dv, const char *arg);
const char *hsc_pgsql_set_pool_wait(cmd_parms *cmd, void *dv, const char *arg);
const char *hsc_pgsql_set_timeout(cmd_parms *cmd, void *dv, const char *arg);
const char *hsc_pgsql_set_max_stale(cmd_parms *cmd, void *dv, const char *arg);
/* HSCUserDB pgsql:...: checked (parsed; a build without libpq refuses). */
const char *hsc_userdb_check(cmd_parms *cmd, const char *arg,
                             const char **spec);
/* spec for a log line: a conninfo's password replaced by "***". */
const char *hsc_userdb_shown(apr_pool_t *p, const char *spec);
void hsc_userdb_child_init(apr_pool_t *pchild, server_rec *main_s);
/* What names the user database in the per-user throttle key: the store's
 * id ("store:<id>", so every spelling of one database shares counts; an
 * SQLite file's read by store, the thread's handle), else HSCUserDB as
 * written (a PostgreSQL store not reached yet, an SQLite file of schema
 * version 1). */
const char *hsc_userdb_throttle_ns(request_rec *r, const char *spec,
                                   hsc_store_t *store);
/* A thread's handle: SQLite opens its own connection, pgsql: borrows the
 * child's pool. */
hsc_status_t hsc_userdb_open(const char *spec, int flags, hsc_store_t **ps,
                             char *errbuf, size_t errlen);

/* The calling thread's handle on the server's user store, or NULL (logged,
 * with tag) when it cannot be opened: callers answer hsc_store_unavailable. */
hsc_store_t *hsc_thread_store(request_rec *r, const hsc_srv_conf_t *sc);

/* 503 with Retry-After for a user database that cannot answer (the cause
 * already logged); the store re-opens its file by itself. */
int hsc_store_unavailable(request_rec *r);

/* After a call on store: when it ended an outage this child had reported
 * (hsc_store_take_recovery), say once that the database answers again. */
void hsc_store_note_recovery(request_rec *r, const hsc_srv_conf_t *sc,
                             hsc_store_t *store);

/* Fill vp for this request and location. */
void hsc_verify_params(request_rec *r, const hsc_srv_conf_t *sc,
                       const hsc_dir_conf_t *d, hsc_verify_params_t *vp);

/*
 * Find and verify the request's cookie. Returns HSC_OK with *c and *u
 * filled (c->auth is x_n: wipe *c after use), HSC_EINVAL when there is no
 * cookie, or the refusal (already logged once, with its tag).
 */
hsc_status_t hsc_verify_request(request_rec *r, const hsc_srv_conf_t *sc,
                                const hsc_dir_conf_t *d, hsc_store_t *store,
                                hsc_cookie_t *c, hsc_user_t *u);

/*
 * The one place a Set-Cookie is built: name=value with the location's
 * attributes, HttpOnly always, lifetime seconds (0: expire it now). Added
 * to err_headers_out so it survives redirects and error responses.
 * Returns 0, or -1 when the merged attributes break a cookie rule
 * (logged; nothing is set: the caller answers 500).
 */
int hsc_set_cookie(request_rec *r, const hsc_dir_conf_t *d, const char *value,
                   apr_int64_t lifetime);

/*
 * The one mapping of a status to what the glue does with it (the core
 * classifies: hsc_status_class). *level is the log level of the refusal;
 * the return value is the HTTP status: HTTP_UNAUTHORIZED for a refusal or
 * a forgery (the caller answers with its login page, redirect or 401),
 * HTTP_SERVICE_UNAVAILABLE for a fault the client may retry (answer with
 * hsc_store_unavailable), HTTP_INTERNAL_SERVER_ERROR for a crypto fault,
 * OK for HSC_OK.
 */
int hsc_status_outcome(hsc_status_t st, int *level);

/* How a login attempt went (hsc_login_attempt). */
typedef enum {
    HSC_ATTEMPT_CHECKED,    /* the password was checked: *st says how */
    HSC_ATTEMPT_BUSY,       /* HSCMaxLoginKDF checks run already: 503 */
    HSC_ATTEMPT_THROTTLED,  /* over a failed-login limit: 429 */
    HSC_ATTEMPT_UNAVAILABLE /* throttling cache down and
                             * HSCThrottleUnavailable refuse: 503 */
} hsc_attempt_t;

/*
 * The login attempt, in its four steps (mod_hsc_throttle.c, beside the
 * counters): throttle (count the attempt, or refuse it), cap (a KDF slot;
 * its refusal keeps the address's count), check (hsc_password_check: *st,
 * and xn and *u on HSC_OK; wipe xn), and settle (a success or a fault
 * gives the attempt back). The refusals of
 * the cap and the throttle are logged here, with *retry_after set; the
 * check's verdict is the caller's to log.
 */
hsc_attempt_t hsc_login_attempt(request_rec *r, const hsc_srv_conf_t *sc,
                                hsc_store_t *store, const char *user,
                                size_t user_len, const char *password,
                                size_t password_len,
                                unsigned char xn[HSC_XN_LEN], hsc_user_t *u,
                                hsc_status_t *st, apr_int64_t *retry_after);

/* The hsc-login and hsc-logout handlers (mod_hsc_login.c). */
int hsc_login_handler(request_rec *r);
int hsc_logout_handler(request_rec *r);

/* mod_hsc_preflight.c: deployment mistakes said early. */
/* The server's User can read and write every user database (HSC140); 0 or
 * -1 (logged). */
int hsc_check_db_access(apr_pool_t *ptemp, server_rec *main_s);
/* Once per child: a Secure cookie set over plain http (HSC141). */
void hsc_warn_insecure_cookie(request_rec *r, const hsc_dir_conf_t *d);

/*
 * mod_hsc_private.c: mark a request AuthType HSC admitted (cookie_set: its
 * response sets or refreshes the cookie), so that its response says
 * Cache-Control private (and no-store), Vary: Cookie; and the hooks.
 */
void hsc_private_mark(request_rec *r, int cookie_set);
void hsc_private_register_hooks(apr_pool_t *p);

#endif /* MOD_HSC_H */
