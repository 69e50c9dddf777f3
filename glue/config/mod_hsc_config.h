/*
 * mod_hsc_config.h: every setting of the module, as parsed at config time
 * (mod_hsc_config.c: one setter per directive, one command table, the
 * create and merge functions). Defaults: hsc_core/hsc_defaults.h.
 *
 * One "unset" convention: every directive's field has a `_set` bit; create
 * puts the default in the field, merge takes add's value when add set it
 * (HSC_MERGE). Adding a directive: README.md, "Layout".
 */
#ifndef MOD_HSC_CONFIG_H
#define MOD_HSC_CONFIG_H

#include "httpd.h"
#include "http_config.h"
#include "ap_socache.h"

#include "mod_hsc_log.h"
#include "hsc_util.h"
#include "hsc_defaults.h"
#include "hsc_keys.h"
#include "hsc_kdf.h"
#include "hsc_parse.h"
#include "hsc_response.h"

/* Per server: HSCThrottleAddress, HSCThrottleUser, HSCThrottleWindow,
 * HSCMaxLoginKDF (0 turns a limit off). */
typedef struct {
    int addr;           /* failed logins per window per address */
    int user;           /* failed logins per window per username */
    apr_int64_t window; /* seconds */
    int max_kdf;        /* KDFs at once in a child; 0: no cap */
    unsigned int addr_set : 1, user_set : 1, window_set : 1, max_kdf_set : 1;
} hsc_throttle_conf_t;

/* One memcached of HSCThrottleCache memcache-exact:. */
typedef struct {
    const char *host;
    apr_port_t port;
} hsc_exact_server_t;

/*
 * Main-server-only settings (GLOBAL_ONLY directives): one struct per
 * configuration pass (kept in pconf, so each pass starts from the
 * defaults), reached from every server's config as sc->global, as mod_md
 * reaches its md_mod_conf_t. The parts read it; none keeps configuration
 * of its own.
 */
typedef struct {
    /* HSCUserDBPoolSize, HSCUserDBPoolWait, HSCUserDBTimeout,
     * HSCUserDBMaxStale (milliseconds) */
    int pool_size, pool_wait_ms, statement_timeout_ms, max_stale_ms;
    const char *audit_log; /* HSCAuditLog: a path or "|program"; NULL */
    int throttle_refuse;   /* HSCThrottleUnavailable: 1 refuse, 0 allow */
    /* HSCThrottleCache: NULL (the default, shmcb), "none",
     * "memcache-exact" (with its servers), or a provider's name with its
     * args and the instance made when the directive was read. */
    const char *throttle_cache;
    const char *throttle_cache_args;
    ap_socache_instance_t *throttle_inst;
    apr_array_header_t *throttle_exact; /* hsc_exact_server_t, or NULL */
    const char *activity_db; /* HSCActivityDB: a path or pgsql:; NULL */
    /* The built-in password blocklist (hsc_blocklist_builtin), for
     * locations without HSCPasswordBlocklist: made at post_config. */
    const struct hsc_blocklist *default_blocklist;
} hsc_global_conf_t;

/* Per server (RSRC_CONF): the secrets, the user store, throttling. */
typedef struct {
    const char *keyfile;          /* HSCKeyFile: resolved path, or NULL */
    hsc_keyring_t *keys;          /*   loaded in the parent, in pconf */
    const char *key_warning;      /*   e.g. mode too open; logged at startup */
    const char *userdb;           /* HSCUserDB: resolved path, or NULL */
    int userdb_cache;             /* HSCUserDBCache: 1 or 0 */
    apr_int64_t user_cache_size;  /* HSCUserCacheSize: records; 0 off */
    hsc_throttle_conf_t throttle; /* HSCThrottle*, HSCMaxLoginKDF */
    hsc_kdf_t dummy_kdf;          /* HSCDummyKDF: what a failed login costs */
    const char *wa_rp_id;         /* HSCWebAuthnRPID; NULL: the ServerName */
    /* HSCWebAuthnOrigin (const char *); NULL: https://<RP ID> */
    apr_array_header_t *wa_origins;
    apr_int64_t wa_lifetime; /* HSCWebAuthnChallengeLifetime, seconds */
    unsigned int keyfile_set : 1, userdb_set : 1, userdb_cache_set : 1,
        dummy_kdf_set : 1, user_cache_size_set : 1, wa_rp_id_set : 1,
        wa_origins_set : 1, wa_lifetime_set : 1;

    hsc_global_conf_t *global; /* the main-server-only settings, shared */

    /* Not directives: set by create and post_config. */
    int db_index; /* slot in each thread's store cache */
} hsc_srv_conf_t;

/* HSCSecondFactor: what a login of this location asks after the password. */
typedef enum {
    HSC_SECOND_FACTOR_OFF = 0,  /* nothing: a password login */
    HSC_SECOND_FACTOR_OPTIONAL, /* a user who has a factor must use it */
    HSC_SECOND_FACTOR_REQUIRED  /* and a user without one cannot log in */
} hsc_second_factor_t;

/* HSCIdentityHeader: which part of the verified identity a header names. */
typedef enum {
    HSC_ID_USER = 0,   /* user */
    HSC_ID_GROUPS,     /* groups: "g1,g2" */
    HSC_ID_LOGIN_TIME, /* login-time: iat, Unix seconds */
    HSC_ID_EXPIRES,    /* expires: the cookie's exp after this response */
    HSC_ID_METHODS,    /* methods: RFC 8176 names, "pwd otp mfa" */
    HSC_ID_MFA_TIME,   /* mfa-time: the last second factor, or 0 */
    HSC_ID_LOGIN_ID,   /* login-id: format 2's lid */
    HSC_ID_FIELD_COUNT
} hsc_identity_field_t;

typedef struct {
    hsc_identity_field_t field;
    const char *name; /* the request header the backend reads */
} hsc_identity_header_t;

/* Per directory (OR_AUTHCFG; also allowed per server, as defaults). */
typedef struct {
    const char *cookie_name;        /* HSCCookieName */
    const char *cookie_domain;      /* HSCCookieDomain; NULL: no Domain */
    const char *cookie_path;        /* HSCCookiePath */
    int secure;                     /* HSCCookieSecure */
    hsc_cookie_samesite_t samesite; /* HSCCookieSameSite */
    apr_int64_t idle;               /* HSCIdleTimeout, seconds */
    apr_int64_t max_age;            /* HSCMaxAge, seconds */
    apr_int64_t remember;           /* HSCRememberMe, seconds; 0: off */
    apr_int64_t skew;               /* HSCClockSkew, seconds */
    int refresh;                    /* HSCRefresh */
    const char *scope;              /* HSCScope */
    int bind_address;               /* HSCBindAddress */
    const char *login_url;          /* HSCLoginURL; NULL: never redirect */
    /* HSCAccountURL: where a user without a second factor sets one up
     * to finish a login that requires one; NULL: such a login is refused */
    const char *account_url;
    hsc_unauth_mode_t unauth;          /* HSCUnauthenticated */
    const char *success_url;           /* HSCLoginSuccessURL */
    const char *logout_url;            /* HSCLogoutURL; NULL: the logged-out
                                        * page (hsc_core/hsc_pages.h) */
    const char *site_name;             /* HSCSiteName; NULL: none */
    const char *stylesheet;            /* HSCLoginStylesheet; NULL: none */
    const char *failure_url;           /* HSCLoginFailureURL; NULL: the form */
    int health_details;                /* HSCHealthDetails */
    int cookie_format1;                /* HSCCookieFormat1 */
    hsc_second_factor_t second_factor; /* HSCSecondFactor */
    int totp_skew;                     /* HSCTOTPSkew: steps either side */
    apr_int64_t factor_max_age;        /* HSCSecondFactorMaxAge; 0: none */
    apr_int64_t max_auth_age;          /* HSCMaxAuthAge; 0: none */
    apr_int64_t recent_auth;           /* HSCAccountRecentAuth, seconds */
    int password_min; /* HSCPasswordMinLength; 0: 15 alone, 8 beside a
                       * second factor (hsc_policy.h) */
    const struct hsc_blocklist *blocklist; /* HSCPasswordBlocklist, loaded;
                                            * NULL when set to none; unset:
                                            * sc->global's default */
    /* HSCIdentityHeader (hsc_identity_header_t) and HSCStripRequestHeaders
     * (const char *): a nested section adds to its parent's. NULL: none. */
    apr_array_header_t *identity_headers;
    apr_array_header_t *strip_headers;
    int strip_cookie;  /* HSCStripCookie */
    int authz_forward; /* HSCAuthzStyle: 0 auth-request, 1 forward-auth */
    /* HSCAuthzTrustedProxy (apr_ipsubnet_t *) and HSCReturnHosts (const
     * char *): a nested section adds to its parent's. */
    apr_array_header_t *authz_proxies;
    apr_array_header_t *return_hosts;
    int accept_tokens; /* HSCAcceptTokens: HSC_TOKENS_BASIC | _BEARER */
    /* HSCTokenScope (const char *): a token needs every one; a nested
     * section adds to its parent's. NULL: none. */
    apr_array_header_t *token_scopes;
    /* HSCAPIAllowOrigin (const char *, "scheme://host[:port]"): the origins
     * hsc-api answers with CORS headers; a nested section adds to its
     * parent's. NULL: none (no CORS headers). */
    apr_array_header_t *api_origins;
    int basic_password; /* HSCBasicPassword: the account password over Basic */
    int passkeys;       /* HSCPasskeys: the passkey endpoints and buttons */
    int wa_uv;          /* HSCWebAuthnUserVerification: hsc_wa_uv_t */

    unsigned int cookie_name_set : 1, cookie_domain_set : 1,
        cookie_path_set : 1, secure_set : 1, samesite_set : 1, idle_set : 1,
        max_age_set : 1, skew_set : 1, refresh_set : 1, scope_set : 1,
        bind_address_set : 1, login_url_set : 1, account_url_set : 1,
        unauth_set : 1, success_url_set : 1, logout_url_set : 1,
        site_name_set : 1, stylesheet_set : 1, failure_url_set : 1,
        health_details_set : 1, cookie_format1_set : 1, remember_set : 1,
        second_factor_set : 1, factor_max_age_set : 1, max_auth_age_set : 1,
        password_min_set : 1, blocklist_set : 1, recent_auth_set : 1,
        strip_cookie_set : 1, authz_forward_set : 1, accept_tokens_set : 1,
        basic_password_set : 1, passkeys_set : 1, wa_uv_set : 1,
        totp_skew_set : 1;
} hsc_dir_conf_t;

/* HSCAcceptTokens: where an app password may come from (0: Off). */
#define HSC_TOKENS_BASIC 1  /* Authorization: Basic user:token */
#define HSC_TOKENS_BEARER 2 /* Authorization: Bearer token */

/* The auth type this module answers (AuthType HSC). */
#define HSC_AUTH_TYPE "HSC"

/* A server's configuration (its sc->global: the main-server-only one). */
static inline hsc_srv_conf_t *hsc_srv_conf(const server_rec *s)
{
    return ap_get_module_config(s->module_config, &hsc_module);
}

/* A request's directory configuration (its location's, merged). */
static inline hsc_dir_conf_t *hsc_dir_conf(const request_rec *r)
{
    return ap_get_module_config(r->per_dir_config, &hsc_module);
}

/* The module record's configuration functions and command table. */
void *hsc_create_srv_conf(apr_pool_t *p, server_rec *s);
void *hsc_merge_srv_conf(apr_pool_t *p, void *basev, void *addv);
void *hsc_create_dir_conf(apr_pool_t *p, char *dir);
void *hsc_merge_dir_conf(apr_pool_t *p, void *basev, void *addv);
extern const command_rec hsc_cmds[];

/* The section's cookie attributes, as the core's cookie rules
 * (hsc_response.h) take them. */
hsc_cookie_attrs_t hsc_cookie_attrs(const hsc_dir_conf_t *d);

#endif /* MOD_HSC_CONFIG_H */
