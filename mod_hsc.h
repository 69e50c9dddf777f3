/*
 * mod_hsc.h: what the two halves of the httpd glue share (mod_hsc.c:
 * configuration, authentication, authorization; mod_hsc_login.c: the login
 * and logout handlers). Private to the module; never included by hsc_core.
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

/* Largest login or logout form body read; anything bigger is a 413. */
#define HSC_FORM_BODY_MAX 8192

typedef enum {
    HSC_SAMESITE_STRICT,
    HSC_SAMESITE_LAX,
    HSC_SAMESITE_NONE
} hsc_samesite_t;

typedef enum {
    HSC_UNAUTH_AUTO,     /* browser navigation: redirect; else 401 */
    HSC_UNAUTH_REDIRECT, /* always redirect to HSCLoginURL */
    HSC_UNAUTH_401       /* always 401 */
} hsc_unauth_t;

/* Per server (RSRC_CONF): the secrets and the user store. */
typedef struct {
    const char *keyfile;         /* resolved path, or NULL */
    hsc_keyring_t *keys;         /* loaded in the parent, in pconf */
    const char *key_warning;     /* e.g. mode too open; logged at startup */
    const char *userdb;          /* resolved path, or NULL */
    int userdb_cache;            /* HSCUserDBCache: 1, 0, -1 unset (on) */
    apr_int64_t user_cache_size; /* HSCUserCacheSize: records; -1 unset */
    int db_index;                /* slot in each thread's store cache */
    hsc_kdf_t dummy_kdf;         /* KDF work an unknown user costs */
    /* Login throttling (mod_hsc_throttle.c); 0 turns a counter off. */
    int throttle_addr;           /* failed logins per window per address */
    int throttle_user;           /* failed logins per window per username */
    apr_int64_t throttle_window; /* seconds */
    int max_kdf;                 /* KDFs at once in a child; 0: no cap */
    unsigned int throttle_addr_set : 1, throttle_user_set : 1,
        throttle_window_set : 1, max_kdf_set : 1;
} hsc_srv_conf_t;

/* Defaults of the throttling directives (docs/throttling.md). */
#define HSC_THROTTLE_ADDR_DEFAULT 20
#define HSC_THROTTLE_USER_DEFAULT 10
#define HSC_THROTTLE_WINDOW_DEFAULT (5 * 60)
#define HSC_MAX_KDF_DEFAULT 2
/* Upper bound of every count the throttling directives take. */
#define HSC_THROTTLE_COUNT_MAX 1000000

/* Per directory (OR_AUTHCFG). Every value is parsed at config time. */
typedef struct {
    const char *cookie_name;
    const char *cookie_domain;   /* NULL: no Domain attribute */
    const char *cookie_path;
    int secure;
    hsc_samesite_t samesite;
    apr_int64_t idle, max_age, skew; /* seconds */
    int refresh;
    const char *scope;
    int bind_address;
    const char *login_url;       /* NULL: never redirect */
    hsc_unauth_t unauth;
    const char *success_url;
    const char *logout_url;

    unsigned int cookie_name_set : 1, cookie_domain_set : 1,
        cookie_path_set : 1, secure_set : 1, samesite_set : 1, idle_set : 1,
        max_age_set : 1, skew_set : 1, refresh_set : 1, scope_set : 1,
        bind_address_set : 1, login_url_set : 1, unauth_set : 1,
        success_url_set : 1, logout_url_set : 1;
} hsc_dir_conf_t;

/* What a verified request carries, in r->request_config. */
typedef struct {
    const char *user;
    const char *groups;          /* "g1,g2" or "" */
    char iat[24], exp[24];       /* canonical decimal, for the environment */
} hsc_req_t;

extern module AP_MODULE_DECLARE_DATA hsc_module;

/* mod_hsc_pgsql.c: what HSCUserDB names (an SQLite path or "pgsql:"), the
 * PostgreSQL pool directives, one pool per child and database. */
void hsc_userdb_pre_config(void);
const char *hsc_cmd_userdb_pool(cmd_parms *cmd, void *dv, const char *arg);
/* HSCUserDB pgsql:...: checked (parsed; a build without libpq refuses). */
const char *hsc_userdb_check(cmd_parms *cmd, const char *arg,
                             const char **spec);
/* spec for a log line: a conninfo's password replaced by "***". */
const char *hsc_userdb_shown(apr_pool_t *p, const char *spec);
void hsc_userdb_child_init(apr_pool_t *pchild, server_rec *main_s);
/* What names the user database in the per-user throttle key: the store id
 * of a PostgreSQL store ("store:<id>", so every spelling of one database
 * shares counts), else HSCUserDB as written. */
const char *hsc_userdb_throttle_ns(request_rec *r, const char *spec);
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
int hsc_set_cookie(request_rec *r, const hsc_dir_conf_t *d,
                   const char *value, apr_int64_t lifetime);

/* NULL, or why these cookie attributes are not allowed together. */
const char *hsc_cookie_attrs_problem(const hsc_dir_conf_t *d);

/* The hsc-login and hsc-logout handlers (mod_hsc_login.c). */
int hsc_login_handler(request_rec *r);

/* --- login throttling (mod_hsc_throttle.c) --------------------------------
 *
 * Failed logins are counted per client address (per ServerName) and per
 * username (per user database) in an httpd socache (shmcb by default), so
 * every child and, with a networked provider, every server sees them. An
 * attempt is counted when it starts, before the KDF, so parallel guesses
 * cannot slip past the limit together; a success gives its attempt back to
 * the address and clears the username's count.
 */

/* What hsc_throttle_begin counted, for hsc_throttle_end. */
#define HSC_THROTTLE_KEY_MAX 40
typedef struct {
    char akey[HSC_THROTTLE_KEY_MAX]; /* "a:" + 32 hex digits, or "" */
    char ukey[HSC_THROTTLE_KEY_MAX]; /* "u:" + 32 hex digits, or "" */
} hsc_throttle_t;

/* Config-time hooks and the HSCThrottleCache directive. */
int hsc_throttle_pre_config(apr_pool_t *pconf, apr_pool_t *plog,
                            apr_pool_t *ptemp);
int hsc_throttle_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                             apr_pool_t *ptemp, server_rec *main_s);
void hsc_throttle_child_init(apr_pool_t *pchild, server_rec *s);
const char *hsc_throttle_cmd_unavailable(cmd_parms *cmd, void *dv,
                                         const char *arg);
const char *hsc_throttle_cmd_cache(cmd_parms *cmd, void *dv,
                                   const char *arg);

/*
 * Before a password check: 0 when the login may go on (the attempt is
 * counted in *t), or the seconds until the window frees when the address
 * or the username is over its limit (logged; nothing counted). A cache
 * failure is logged once and the login goes on (0), or with
 * HSCThrottleUnavailable refuse, -1: the caller answers 503.
 */
apr_int64_t hsc_throttle_begin(request_rec *r, const hsc_srv_conf_t *sc,
                               const char *user, size_t user_len,
                               hsc_throttle_t *t);

/* How a counted attempt ended. */
typedef enum {
    HSC_THROTTLE_FAILED,         /* wrong password, unknown user: it counts */
    HSC_THROTTLE_SUCCEEDED,      /* clear the username's count, give the
                                  * address its attempt back */
    HSC_THROTTLE_UNDO            /* a fault (store down): give both back */
} hsc_throttle_outcome_t;

/* After the password check. */
void hsc_throttle_end(request_rec *r, const hsc_srv_conf_t *sc,
                      const hsc_throttle_t *t,
                      hsc_throttle_outcome_t outcome);

/* The per-child KDF cap: 1 when a slot was taken (give it back with
 * hsc_kdf_slot_give), 0 when sc->max_kdf KDFs already run in this child. */
int hsc_kdf_slot_take(const hsc_srv_conf_t *sc);
void hsc_kdf_slot_give(const hsc_srv_conf_t *sc);

#endif /* MOD_HSC_H */
