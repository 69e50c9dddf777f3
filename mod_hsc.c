/*
 * mod_hsc.c: httpd glue for hardened stateless session cookies.
 *
 * Configuration (parsed once, at config time, into enums and checked
 * integers), the check_authn hook for AuthType HSC, the hsc-group authz
 * provider, and the per-thread user store cache. The login and logout
 * handlers live in mod_hsc_login.c; everything that parses untrusted
 * bytes or does cryptography lives in hsc_core/.
 */
#include <string.h>

#include "apr_strings.h"
#include "apr_thread_proc.h"
#include "apr_lib.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "util_cfgtree.h"
#include "mod_auth.h"

#include "mod_hsc.h"
#include "mod_hsc_ops.h"
#include "hsc_http.h"

/* Defined at the bottom; log calls above need the index now. */
APLOG_USE_MODULE(hsc);

#define HSC_AUTH_TYPE "HSC"
/* Durations: at most ten years, in seconds. */
#define HSC_DURATION_MAX ((apr_int64_t)10 * 366 * 86400)

/* --- configuration -------------------------------------------------------- */

static void *hsc_create_srv_conf(apr_pool_t *p, server_rec *s)
{
    hsc_srv_conf_t *sc = apr_pcalloc(p, sizeof(*sc));

    (void)s;
    sc->db_index = -1;
    sc->userdb_cache = -1;
    /* The dummy KDF an unknown user costs: the default for new users. */
    if (hsc_kdf_parse(HSC_KDF_DEFAULT_SPEC, &sc->dummy_kdf) != HSC_OK) {
        sc->dummy_kdf.alg = HSC_KDF_SHA256_CHAIN;
        sc->dummy_kdf.iterations = 600000;
    }
    sc->throttle_addr = HSC_THROTTLE_ADDR_DEFAULT;
    sc->throttle_user = HSC_THROTTLE_USER_DEFAULT;
    sc->throttle_window = HSC_THROTTLE_WINDOW_DEFAULT;
    sc->max_kdf = HSC_MAX_KDF_DEFAULT;
    return sc;
}

static void *hsc_merge_srv_conf(apr_pool_t *p, void *basev, void *addv)
{
    const hsc_srv_conf_t *base = basev, *add = addv;
    hsc_srv_conf_t *sc = apr_pmemdup(p, add, sizeof(*sc));

    if (add->keyfile == NULL) {
        sc->keyfile = base->keyfile;
        sc->keys = base->keys;
        sc->key_warning = base->key_warning;
    }
    if (add->userdb == NULL) {
        sc->userdb = base->userdb;
    }
    if (add->userdb_cache == -1) {
        sc->userdb_cache = base->userdb_cache;
    }
    if (!add->throttle_addr_set) {
        sc->throttle_addr = base->throttle_addr;
        sc->throttle_addr_set = base->throttle_addr_set;
    }
    if (!add->throttle_user_set) {
        sc->throttle_user = base->throttle_user;
        sc->throttle_user_set = base->throttle_user_set;
    }
    if (!add->throttle_window_set) {
        sc->throttle_window = base->throttle_window;
        sc->throttle_window_set = base->throttle_window_set;
    }
    if (!add->max_kdf_set) {
        sc->max_kdf = base->max_kdf;
        sc->max_kdf_set = base->max_kdf_set;
    }
    return sc;
}

static void *hsc_create_dir_conf(apr_pool_t *p, char *dir)
{
    hsc_dir_conf_t *d = apr_pcalloc(p, sizeof(*d));

    (void)dir;
    d->cookie_name = "hsc";
    d->cookie_domain = NULL;
    d->cookie_path = "/";
    d->secure = 1;
    d->samesite = HSC_SAMESITE_LAX;
    d->idle = 30 * 60;
    d->max_age = 8 * 3600;
    d->skew = 60;
    d->refresh = 1;
    d->scope = "";
    d->bind_address = 0;
    d->login_url = NULL;
    d->unauth = HSC_UNAUTH_AUTO;
    d->success_url = "/";
    d->logout_url = "/";
    return d;
}

#define HSC_MERGE(f)                                                          \
    do {                                                                      \
        d->f = add->f##_set ? add->f : base->f;                               \
        d->f##_set = add->f##_set | base->f##_set;                            \
    } while (0)

static void *hsc_merge_dir_conf(apr_pool_t *p, void *basev, void *addv)
{
    const hsc_dir_conf_t *base = basev, *add = addv;
    hsc_dir_conf_t *d = apr_palloc(p, sizeof(*d));

    HSC_MERGE(cookie_name);
    HSC_MERGE(cookie_domain);
    HSC_MERGE(cookie_path);
    HSC_MERGE(secure);
    HSC_MERGE(samesite);
    HSC_MERGE(idle);
    HSC_MERGE(max_age);
    HSC_MERGE(skew);
    HSC_MERGE(refresh);
    HSC_MERGE(scope);
    HSC_MERGE(bind_address);
    HSC_MERGE(login_url);
    HSC_MERGE(unauth);
    HSC_MERGE(success_url);
    HSC_MERGE(logout_url);
    return d;
}

/* "30m", "2s", "8h", "1d", or bare seconds; 1 .. HSC_DURATION_MAX (or 0
 * when allow_zero). Returns NULL or an error naming the directive. */
static const char *parse_duration(cmd_parms *cmd, const char *arg,
                                  int allow_zero, apr_int64_t *out)
{
    apr_int64_t v = 0, unit = 1;
    const char *p = arg;

    if (!apr_isdigit(*p)) {
        goto bad;
    }
    while (apr_isdigit(*p)) {
        v = v * 10 + (*p - '0');
        if (v > HSC_DURATION_MAX) {
            goto bad;
        }
        ++p;
    }
    if (*p != '\0') {
        switch (*p) {
        case 's': unit = 1; break;
        case 'm': unit = 60; break;
        case 'h': unit = 3600; break;
        case 'd': unit = 86400; break;
        default: goto bad;
        }
        if (p[1] != '\0') {
            goto bad;
        }
    }
    v *= unit;
    if (v > HSC_DURATION_MAX || (v == 0 && !allow_zero)) {
        goto bad;
    }
    *out = v;
    return NULL;
bad:
    return apr_psprintf(cmd->pool,
                        "%s: '%s' is not a duration (a number with an "
                        "optional unit s, m, h or d, %s10 years)",
                        cmd->cmd->name, arg,
                        allow_zero ? "0 to " : "more than 0, at most ");
}

/* 1 when s has only printable ASCII without space (URLs, paths). */
static int printable_nospace(const char *s)
{
    for (; *s; ++s) {
        if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f) {
            return 0;
        }
    }
    return 1;
}

/* RFC 6265 cookie-name: an RFC 7230 token. */
static int cookie_name_valid(const char *s)
{
    if (*s == '\0') {
        return 0;
    }
    for (; *s; ++s) {
        if (!apr_isalnum(*s) && !strchr("!#$%&'*+-.^_`|~", *s)) {
            return 0;
        }
    }
    return 1;
}

enum {
    HSC_CMD_COOKIE_NAME,
    HSC_CMD_COOKIE_DOMAIN,
    HSC_CMD_COOKIE_PATH,
    HSC_CMD_SAMESITE,
    HSC_CMD_IDLE,
    HSC_CMD_MAX_AGE,
    HSC_CMD_SKEW,
    HSC_CMD_SCOPE,
    HSC_CMD_LOGIN_URL,
    HSC_CMD_UNAUTH,
    HSC_CMD_SUCCESS_URL,
    HSC_CMD_LOGOUT_URL,
    HSC_CMD_SECURE,
    HSC_CMD_REFRESH,
    HSC_CMD_BIND
};

/* Every per-directory directive with one argument. */
static const char *hsc_cmd_take1(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;
    const char *name = cmd->cmd->name, *err;

    switch ((int)(apr_uintptr_t)cmd->info) {
    case HSC_CMD_COOKIE_NAME:
        if (!cookie_name_valid(arg)) {
            return apr_pstrcat(cmd->pool, name, ": '", arg,
                               "' is not a valid cookie name", NULL);
        }
        d->cookie_name = arg;
        d->cookie_name_set = 1;
        break;
    case HSC_CMD_COOKIE_DOMAIN:
        if (*arg == '\0' || strspn(arg, "abcdefghijklmnopqrstuvwxyz"
                                        "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789.-") != strlen(arg)) {
            return apr_pstrcat(cmd->pool, name, ": '", arg,
                               "' is not a host or domain name", NULL);
        }
        d->cookie_domain = arg;
        d->cookie_domain_set = 1;
        break;
    case HSC_CMD_COOKIE_PATH:
        if (arg[0] != '/' || !printable_nospace(arg) || strchr(arg, ';')) {
            return apr_pstrcat(cmd->pool, name,
                               ": the path must start with '/' and hold no "
                               "';', space or control character", NULL);
        }
        d->cookie_path = arg;
        d->cookie_path_set = 1;
        break;
    case HSC_CMD_SAMESITE:
        if (!strcasecmp(arg, "Strict")) {
            d->samesite = HSC_SAMESITE_STRICT;
        }
        else if (!strcasecmp(arg, "Lax")) {
            d->samesite = HSC_SAMESITE_LAX;
        }
        else if (!strcasecmp(arg, "None")) {
            d->samesite = HSC_SAMESITE_NONE;
        }
        else {
            return apr_pstrcat(cmd->pool, name,
                               ": must be Strict, Lax or None", NULL);
        }
        d->samesite_set = 1;
        break;
    case HSC_CMD_IDLE:
        if ((err = parse_duration(cmd, arg, 0, &d->idle)) != NULL) {
            return err;
        }
        d->idle_set = 1;
        break;
    case HSC_CMD_MAX_AGE:
        if ((err = parse_duration(cmd, arg, 0, &d->max_age)) != NULL) {
            return err;
        }
        d->max_age_set = 1;
        break;
    case HSC_CMD_SKEW:
        if ((err = parse_duration(cmd, arg, 1, &d->skew)) != NULL) {
            return err;
        }
        d->skew_set = 1;
        break;
    case HSC_CMD_SCOPE:
        /* Part of the MAC input: printable ASCII, so never a line feed. */
        for (err = arg; *err; ++err) {
            if ((unsigned char)*err < 0x20 || (unsigned char)*err > 0x7e) {
                return apr_pstrcat(cmd->pool, name,
                                   ": only printable ASCII is allowed",
                                   NULL);
            }
        }
        d->scope = arg;
        d->scope_set = 1;
        break;
    case HSC_CMD_LOGIN_URL:
    case HSC_CMD_SUCCESS_URL:
    case HSC_CMD_LOGOUT_URL:
        if (*arg == '\0' || !printable_nospace(arg)) {
            return apr_pstrcat(cmd->pool, name,
                               ": the URL must be non-empty, without space "
                               "or control characters",
                               NULL);
        }
        if ((apr_uintptr_t)cmd->info == HSC_CMD_LOGIN_URL) {
            d->login_url = arg;
            d->login_url_set = 1;
        }
        else if ((apr_uintptr_t)cmd->info == HSC_CMD_SUCCESS_URL) {
            d->success_url = arg;
            d->success_url_set = 1;
        }
        else {
            d->logout_url = arg;
            d->logout_url_set = 1;
        }
        break;
    case HSC_CMD_UNAUTH:
        if (!strcasecmp(arg, "auto")) {
            d->unauth = HSC_UNAUTH_AUTO;
        }
        else if (!strcasecmp(arg, "redirect")) {
            d->unauth = HSC_UNAUTH_REDIRECT;
        }
        else if (!strcmp(arg, "401")) {
            d->unauth = HSC_UNAUTH_401;
        }
        else {
            return apr_pstrcat(cmd->pool, name,
                               ": must be auto, redirect or 401", NULL);
        }
        d->unauth_set = 1;
        break;
    default:
        return apr_pstrcat(cmd->pool, name, ": internal error", NULL);
    }
    return NULL;
}

/* Every per-directory On|Off directive. */
static const char *hsc_cmd_flag(cmd_parms *cmd, void *dv, int on)
{
    hsc_dir_conf_t *d = dv;

    switch ((int)(apr_uintptr_t)cmd->info) {
    case HSC_CMD_SECURE:
        d->secure = on;
        d->secure_set = 1;
        break;
    case HSC_CMD_REFRESH:
        d->refresh = on;
        d->refresh_set = 1;
        break;
    case HSC_CMD_BIND:
        d->bind_address = on;
        d->bind_address_set = 1;
        break;
    default:
        return apr_pstrcat(cmd->pool, cmd->cmd->name, ": internal error",
                           NULL);
    }
    return NULL;
}

/*
 * HSCKeyFile: loaded here, in the parent, as the user httpd starts as (the
 * file may be readable by root only), into pconf; children inherit it.
 * A graceful restart reads it again, so a rotated file takes effect then.
 */
static const char *hsc_cmd_keyfile(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_srv_conf_t *sc = ap_get_module_config(cmd->server->module_config,
                                              &hsc_module);
    const char *path, *msg = NULL;
    hsc_keyring_t *kr = NULL;
    const char *err = ap_check_cmd_context(cmd, NOT_IN_DIR_LOC_FILE);

    (void)dv;
    if (err != NULL) {
        return err;
    }
    path = ap_server_root_relative(cmd->pool, arg);
    if (path == NULL) {
        return apr_pstrcat(cmd->pool, "HSCKeyFile: invalid path '", arg, "'",
                           NULL);
    }
    if (hsc_keyring_load(cmd->pool, path, &kr, &msg) != HSC_OK) {
        return apr_pstrcat(cmd->pool, "HSCKeyFile: ",
                           msg ? msg : "cannot load the key file ", 
                           msg ? "" : path, NULL);
    }
    sc->keyfile = path;
    sc->keys = kr;
    sc->key_warning = msg;
    return NULL;
}

/*
 * HSCUserDB: opened once here, read-only, to fail the configuration early
 * (missing file, not a user database); the children open their own
 * handles lazily, one per thread (hsc_thread_store).
 */
static const char *hsc_cmd_userdb(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_srv_conf_t *sc = ap_get_module_config(cmd->server->module_config,
                                              &hsc_module);
    const char *path;
    hsc_store_t *s = NULL;
    char errbuf[256];
    const char *err = ap_check_cmd_context(cmd, NOT_IN_DIR_LOC_FILE);

    (void)dv;
    if (err != NULL) {
        return err;
    }
    path = ap_server_root_relative(cmd->pool, arg);
    if (path == NULL) {
        return apr_pstrcat(cmd->pool, "HSCUserDB: invalid path '", arg, "'",
                           NULL);
    }
    errbuf[0] = '\0';
    if (hsc_store_sqlite_open(path, HSC_STORE_READONLY, &s, errbuf,
                              sizeof(errbuf)) != HSC_OK) {
        return apr_pstrcat(cmd->pool, "HSCUserDB: cannot open user database ",
                           path, ": ", errbuf[0] ? errbuf : "unknown error",
                           NULL);
    }
    hsc_store_close(s);
    sc->userdb = path;
    return NULL;
}

enum {
    HSC_CMD_THROTTLE_ADDR,
    HSC_CMD_THROTTLE_USER,
    HSC_CMD_THROTTLE_WINDOW,
    HSC_CMD_MAX_KDF
};

/* A count 0 .. HSC_THROTTLE_COUNT_MAX in decimal; NULL or the error. */
static const char *parse_count(cmd_parms *cmd, const char *arg, int *out)
{
    const char *p = arg;
    long v = 0;

    if (*p == '\0') {
        goto bad;
    }
    for (; *p; ++p) {
        if (!apr_isdigit(*p)) {
            goto bad;
        }
        v = v * 10 + (*p - '0');
        if (v > HSC_THROTTLE_COUNT_MAX) {
            goto bad;
        }
    }
    *out = (int)v;
    return NULL;
bad:
    return apr_psprintf(cmd->pool,
                        "%s: '%s' is not a count (a whole number from 0, "
                        "which turns it off, to %d)",
                        cmd->cmd->name, arg, HSC_THROTTLE_COUNT_MAX);
}

/* The per-server throttling directives (mod_hsc_throttle.c). */
static const char *hsc_cmd_throttle(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_srv_conf_t *sc = ap_get_module_config(cmd->server->module_config,
                                              &hsc_module);
    const char *err = ap_check_cmd_context(cmd, NOT_IN_DIR_LOC_FILE);

    (void)dv;
    if (err != NULL) {
        return err;
    }
    switch ((int)(apr_uintptr_t)cmd->info) {
    case HSC_CMD_THROTTLE_ADDR:
        err = parse_count(cmd, arg, &sc->throttle_addr);
        sc->throttle_addr_set = 1;
        break;
    case HSC_CMD_THROTTLE_USER:
        err = parse_count(cmd, arg, &sc->throttle_user);
        sc->throttle_user_set = 1;
        break;
    case HSC_CMD_THROTTLE_WINDOW:
        err = parse_duration(cmd, arg, 0, &sc->throttle_window);
        sc->throttle_window_set = 1;
        break;
    case HSC_CMD_MAX_KDF:
        err = parse_count(cmd, arg, &sc->max_kdf);
        sc->max_kdf_set = 1;
        break;
    default:
        err = apr_pstrcat(cmd->pool, cmd->cmd->name, ": internal error",
                          NULL);
    }
    return err;
}

/*
 * HSCUserDBCache: main server only, because the children share one handle
 * per database path and thread, whatever virtual host asks.
 */
static const char *hsc_cmd_userdb_cache(cmd_parms *cmd, void *dv, int on)
{
    hsc_srv_conf_t *sc = ap_get_module_config(cmd->server->module_config,
                                              &hsc_module);
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    (void)dv;
    if (err != NULL) {
        return err;
    }
    sc->userdb_cache = on;
    return NULL;
}

#define HSC_SRV_TAKE1(name, what, help)                                       \
    AP_INIT_TAKE1(name, hsc_cmd_throttle, (void *)(apr_uintptr_t)(what),      \
                  RSRC_CONF, help)

/* Per-directory directives are also allowed at server and vhost level,
 * where they set the defaults of every section (HSCScope per vhost). */
#define HSC_DIR_TAKE1(name, what, help)                                       \
    AP_INIT_TAKE1(name, hsc_cmd_take1, (void *)(apr_uintptr_t)(what),         \
                  RSRC_CONF | OR_AUTHCFG, help)
#define HSC_DIR_FLAG(name, what, help)                                        \
    AP_INIT_FLAG(name, hsc_cmd_flag, (void *)(apr_uintptr_t)(what),           \
                 RSRC_CONF | OR_AUTHCFG, help)

static const command_rec hsc_cmds[] = {
    AP_INIT_TAKE1("HSCUserDB", hsc_cmd_userdb, NULL, RSRC_CONF,
                  "Path of the SQLite user database (made with hsc-admin)"),
    AP_INIT_FLAG("HSCUserDBCache", hsc_cmd_userdb_cache, NULL, RSRC_CONF,
                 "On|Off: keep user records between requests, validated "
                 "against every commit (default On)"),
    AP_INIT_TAKE1("HSCKeyFile", hsc_cmd_keyfile, NULL, RSRC_CONF,
                  "Path of the key file; the first key signs, all verify"),
    HSC_DIR_TAKE1("HSCCookieName", HSC_CMD_COOKIE_NAME,
                  "Name of the session cookie (default hsc)"),
    HSC_DIR_TAKE1("HSCCookieDomain", HSC_CMD_COOKIE_DOMAIN,
                  "Domain attribute of the cookie (default: none)"),
    HSC_DIR_TAKE1("HSCCookiePath", HSC_CMD_COOKIE_PATH,
                  "Path attribute of the cookie (default /)"),
    HSC_DIR_FLAG("HSCCookieSecure", HSC_CMD_SECURE,
                 "On|Off: send the cookie over HTTPS only (default On)"),
    HSC_DIR_TAKE1("HSCCookieSameSite", HSC_CMD_SAMESITE,
                  "Strict|Lax|None (default Lax)"),
    HSC_DIR_TAKE1("HSCIdleTimeout", HSC_CMD_IDLE,
                  "Idle timeout of a session, e.g. 30m (default 30m)"),
    HSC_DIR_TAKE1("HSCMaxAge", HSC_CMD_MAX_AGE,
                  "Absolute lifetime of a login, e.g. 8h (default 8h)"),
    HSC_DIR_TAKE1("HSCClockSkew", HSC_CMD_SKEW,
                  "How far a login time may lie in the future (default 60s)"),
    HSC_DIR_FLAG("HSCRefresh", HSC_CMD_REFRESH,
                 "On|Off: re-issue the cookie past half the idle timeout"),
    HSC_DIR_TAKE1("HSCScope", HSC_CMD_SCOPE,
                  "Scope string bound into the MAC (default empty)"),
    HSC_DIR_FLAG("HSCBindAddress", HSC_CMD_BIND,
                 "On|Off: bind cookies to the client address (default Off)"),
    HSC_DIR_TAKE1("HSCLoginURL", HSC_CMD_LOGIN_URL,
                  "Where browsers without a valid cookie are sent"),
    HSC_DIR_TAKE1("HSCUnauthenticated", HSC_CMD_UNAUTH,
                  "auto|redirect|401: answer to a request without a cookie"),
    HSC_DIR_TAKE1("HSCLoginSuccessURL", HSC_CMD_SUCCESS_URL,
                  "Where a login goes without a safe return (default /)"),
    HSC_DIR_TAKE1("HSCLogoutURL", HSC_CMD_LOGOUT_URL,
                  "Where a logout goes (default /)"),
    AP_INIT_TAKE1("HSCAuditLog", hsc_audit_cmd_log, NULL, RSRC_CONF,
                  "File or |program that receives one JSON line per "
                  "security event"),
    AP_INIT_TAKE1("HSCThrottleCache", hsc_throttle_cmd_cache, NULL,
                  RSRC_CONF,
                  "none|provider[:args]: socache of the failed-login "
                  "counts (default shmcb)"),
    HSC_SRV_TAKE1("HSCThrottleAddress", HSC_CMD_THROTTLE_ADDR,
                  "Failed logins per window from one address (default "
                  "20; 0: off)"),
    HSC_SRV_TAKE1("HSCThrottleUser", HSC_CMD_THROTTLE_USER,
                  "Failed logins per window for one username (default "
                  "10; 0: off)"),
    HSC_SRV_TAKE1("HSCThrottleWindow", HSC_CMD_THROTTLE_WINDOW,
                  "Window of the failed-login counts (default 5m)"),
    HSC_SRV_TAKE1("HSCMaxLoginKDF", HSC_CMD_MAX_KDF,
                  "Password checks at once in one child (default 2; 0: "
                  "no cap)"),
    {NULL, {NULL}, NULL, 0, RAW_ARGS, NULL}
};

/* NULL, or why these cookie attributes are not allowed together. */
const char *hsc_cookie_attrs_problem(const hsc_dir_conf_t *d)
{
    if (!strncmp(d->cookie_name, "__Host-", 7)
        && (!d->secure || strcmp(d->cookie_path, "/") != 0
            || d->cookie_domain != NULL)) {
        return "a __Host- cookie needs HSCCookieSecure On, HSCCookiePath / "
               "and no HSCCookieDomain";
    }
    if (!strncmp(d->cookie_name, "__Secure-", 9) && !d->secure) {
        return "a __Secure- cookie needs HSCCookieSecure On";
    }
    if (d->samesite == HSC_SAMESITE_NONE && !d->secure) {
        return "HSCCookieSameSite None needs HSCCookieSecure On";
    }
    return NULL;
}

/* --- startup checks ------------------------------------------------------- */

/*
 * Check one section's cookie attributes, as merged over the server's
 * defaults (deeper nesting is checked again when a cookie is set); 0 or -1
 * (logged).
 */
static int check_section(apr_pool_t *p, server_rec *s,
                         const hsc_dir_conf_t *base, ap_conf_vector_t *sec,
                         const char *what)
{
    const hsc_dir_conf_t *d = ap_get_module_config(sec, &hsc_module);
    const char *problem;

    if (d == NULL) {
        return 0;
    }
    if (base != NULL) {
        d = hsc_merge_dir_conf(p, (void *)base, (void *)d);
    }
    if ((problem = hsc_cookie_attrs_problem(d)) == NULL) {
        return 0;
    }
    if (s->is_virtual) {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s,
                     "HSC007: %s (in %s of the virtual host at %s:%d)",
                     problem, what, s->defn_name ? s->defn_name : "?",
                     s->defn_line_number);
    }
    else {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s,
                     "HSC001: %s (in %s of the main server)", problem, what);
    }
    return -1;
}

/* Check the server context and every Directory, Location, Files section. */
static int check_sections(apr_pool_t *p, server_rec *s)
{
    core_server_config *core = ap_get_core_module_config(s->module_config);
    const hsc_dir_conf_t *base =
        ap_get_module_config(s->lookup_defaults, &hsc_module);
    int i, j, bad = 0;
    apr_array_header_t *arrs[2];

    bad |= check_section(p, s, NULL, s->lookup_defaults, "the server context");
    arrs[0] = core->sec_dir;
    arrs[1] = core->sec_url;
    for (i = 0; i < 2; ++i) {
        ap_conf_vector_t **secs = (ap_conf_vector_t **)arrs[i]->elts;
        for (j = 0; j < arrs[i]->nelts; ++j) {
            core_dir_config *cd;
            bad |= check_section(p, s, base, secs[j],
                                 i ? "a Location section"
                                   : "a Directory section");
            cd = ap_get_core_module_config(secs[j]);
            if (cd != NULL && cd->sec_file != NULL) {
                ap_conf_vector_t **f = (ap_conf_vector_t **)cd->sec_file->elts;
                int k;
                for (k = 0; k < cd->sec_file->nelts; ++k) {
                    bad |= check_section(p, s, base, f[k], "a Files section");
                }
            }
        }
    }
    return bad;
}

/* The server a <VirtualHost> directive node defined, or NULL. */
static server_rec *vhost_of(server_rec *main_s, const ap_directive_t *d)
{
    server_rec *s;

    for (s = main_s->next; s != NULL; s = s->next) {
        if ((int)s->defn_line_number == d->line_num && s->defn_name != NULL
            && d->filename != NULL && !strcmp(s->defn_name, d->filename)) {
            return s;
        }
    }
    return NULL;
}

/*
 * Walk the configuration tree for "AuthType HSC" and fail when the server
 * it belongs to has no key file or no user database: a protected location
 * that could only answer 500 is a configuration error.
 */
static int check_authtype_uses(const ap_directive_t *d, server_rec *main_s,
                               server_rec *cur)
{
    int bad = 0;

    for (; d != NULL; d = d->next) {
        if (!strcasecmp(d->directive, "AuthType") && d->args != NULL) {
            const char *a = d->args;
            size_t n;
            if (*a == '"' || *a == '\'') {
                ++a;
            }
            n = strcspn(a, "\"' \t");
            if (n == 3 && !strncasecmp(a, HSC_AUTH_TYPE, 3)) {
                const hsc_srv_conf_t *sc =
                    ap_get_module_config(cur->module_config, &hsc_module);
                if (sc->keys == NULL || sc->userdb == NULL) {
                    ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0,
                                 cur,
                                 "HSC002: AuthType HSC at %s:%d, but %s is "
                                 "not set for this server",
                                 d->filename, d->line_num,
                                 sc->keys == NULL ? "HSCKeyFile"
                                                  : "HSCUserDB");
                    bad = -1;
                }
            }
        }
        if (d->first_child != NULL) {
            server_rec *next = cur;
            if (!strcasecmp(d->directive, "<VirtualHost")) {
                next = vhost_of(main_s, d);
                if (next == NULL) {
                    next = cur;
                }
            }
            bad |= check_authtype_uses(d->first_child, main_s, next);
        }
    }
    return bad;
}

/* Runs for `httpd -t` as well as at startup, before test_config. */
static int hsc_check_config(apr_pool_t *pconf, apr_pool_t *plog,
                            apr_pool_t *ptemp, server_rec *main_s)
{
    server_rec *s;
    int bad = 0;

    (void)pconf;
    (void)plog;
    for (s = main_s; s != NULL; s = s->next) {
        bad |= check_sections(ptemp, s);
    }
    bad |= check_authtype_uses(ap_conftree, main_s, main_s);
    return bad ? !OK : OK;
}

/* Distinct user databases, numbered for the per-thread store cache. */
static int hsc_db_count;

/* What hsc_pre_config did to SQLite in this process: 1 tuned, 0 not. */
static int hsc_sqlite_tuned;

/*
 * Before any directive opens a database, and while httpd has one thread:
 * the only moment SQLite's process-wide settings may change (the children
 * inherit them).
 */
static int hsc_pre_config(apr_pool_t *pconf, apr_pool_t *plog,
                          apr_pool_t *ptemp)
{
    (void)pconf;
    (void)plog;
    (void)ptemp;
    hsc_sqlite_tuned = hsc_store_sqlite_process_init();
    return OK;
}

static int hsc_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                           apr_pool_t *ptemp, server_rec *main_s)
{
    server_rec *s;
    const char **paths;
    const char *warned = NULL;
    int n = 0;

    for (s = main_s; s != NULL; s = s->next) {
        ++n;
    }
    paths = apr_pcalloc(ptemp, sizeof(*paths) * (apr_size_t)n);
    hsc_db_count = 0;
    for (s = main_s; s != NULL; s = s->next) {
        hsc_srv_conf_t *sc = ap_get_module_config(s->module_config,
                                                  &hsc_module);
        int i;

        /* Once per (re)start: not in the first of httpd's two passes. */
        if (sc->key_warning != NULL && sc->key_warning != warned
            && ap_state_query(AP_SQ_MAIN_STATE)
                   != AP_SQ_MS_CREATE_PRE_CONFIG) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, "HSC003: %s",
                         sc->key_warning);
            warned = sc->key_warning;
        }
        sc->db_index = -1;
        if (sc->userdb == NULL) {
            continue;
        }
        for (i = 0; i < hsc_db_count; ++i) {
            if (!strcmp(paths[i], sc->userdb)) {
                break;
            }
        }
        if (i == hsc_db_count) {
            paths[hsc_db_count++] = sc->userdb;
        }
        sc->db_index = i;
    }
    if (hsc_db_count > 0) {
        ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, main_s,
                     "HSC009: %s", hsc_sqlite_tuned
                     ? "SQLite's memory statistics are off (no process-wide "
                       "mutex per allocation)"
                     : "SQLite was in use before this configuration pass; "
                       "its process-wide settings are left as they were");
    }
    /* As mod_ssl and mod_md do: the version once per (re)start. */
    if (ap_state_query(AP_SQ_MAIN_STATE) != AP_SQ_MS_CREATE_PRE_CONFIG) {
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, main_s,
                     "HSC019: mod_hsc/%s configured", HSC_VERSION);
    }
    return hsc_throttle_post_config(pconf, plog, ptemp, main_s);
}

/* --- the per-thread store cache ------------------------------------------ */

/*
 * Each thread that serves requests keeps its own handles, one per distinct
 * user database, opened on first use and closed when the thread exits:
 * SQLite connections are not shared, so no lock is taken by all threads
 * around the database, and every request still reads the current user
 * table (hsc-admin changes take effect on the next request). The key is
 * the database's number from post_config; a restart makes new children,
 * so numbers never go stale.
 */
typedef struct {
    int n;
    hsc_store_t *s[1]; /* n of them */
} hsc_thread_stores_t;

static apr_threadkey_t *hsc_store_key;

static void hsc_thread_stores_free(void *v)
{
    hsc_thread_stores_t *ts = v;
    int i;

    for (i = 0; ts != NULL && i < ts->n; ++i) {
        hsc_store_close(ts->s[i]);
    }
    free(ts);
}

static void hsc_child_init(apr_pool_t *pchild, server_rec *s)
{
    apr_status_t rv = apr_threadkey_private_create(
        &hsc_store_key, hsc_thread_stores_free, pchild);

    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s,
                     "HSC004: cannot create the thread key for store "
                     "handles");
        hsc_store_key = NULL;
    }
    hsc_throttle_child_init(pchild, s);
}

hsc_store_t *hsc_thread_store(request_rec *r, const hsc_srv_conf_t *sc)
{
    void *v = NULL;
    hsc_thread_stores_t *ts;
    char errbuf[256];
    hsc_status_t st;

    if (hsc_store_key == NULL || sc->db_index < 0
        || sc->db_index >= hsc_db_count) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      "HSC005: no user database for this server");
        return NULL;
    }
    if (apr_threadkey_private_get(&v, hsc_store_key) != APR_SUCCESS) {
        v = NULL;
    }
    ts = v;
    if (ts == NULL) {
        ts = calloc(1, sizeof(*ts)
                           + sizeof(ts->s[0]) * (apr_size_t)hsc_db_count);
        if (ts == NULL) {
            return NULL;
        }
        ts->n = hsc_db_count;
        if (apr_threadkey_private_set(ts, hsc_store_key) != APR_SUCCESS) {
            free(ts);
            return NULL;
        }
    }
    if (ts->s[sc->db_index] == NULL) {
        errbuf[0] = '\0';
        st = hsc_store_sqlite_open(sc->userdb,
                                   sc->userdb_cache == 0 ? HSC_STORE_NOCACHE
                                                         : 0,
                                   &ts->s[sc->db_index], errbuf,
                                   sizeof(errbuf));
        if (st != HSC_OK) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                          "HSC006: cannot open user database %s: %s (%s)",
                          sc->userdb, errbuf, hsc_strerror(st));
            hsc_ops_store_error(r);
            ts->s[sc->db_index] = NULL;
            return NULL;
        }
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r,
                      "HSC008: user database %s opened for this thread "
                      "(record cache %s)", sc->userdb,
                      sc->userdb_cache == 0 ? "off" : "on");
    }
    return ts->s[sc->db_index];
}

/* --- authentication ------------------------------------------------------- */

void hsc_verify_params(request_rec *r, const hsc_srv_conf_t *sc,
                       const hsc_dir_conf_t *d, hsc_verify_params_t *vp)
{
    vp->keys = sc->keys;
    vp->scope = d->scope;
    vp->address = d->bind_address ? r->useragent_ip : "";
    vp->now = (int64_t)apr_time_sec(r->request_time);
    vp->skew = d->skew;
    vp->max_age = d->max_age;
}

/* How loudly a refusal is logged: ordinary ends quietly, forgery loudly. */
static int refusal_level(hsc_status_t st)
{
    switch (st) {
    case HSC_EEXPIRED:
    case HSC_EMAXAGE:
    case HSC_ENOUSER:
    case HSC_EDISABLED:
    case HSC_EREVOKED:
    case HSC_EAUTH:
        return APLOG_INFO;
    case HSC_ESTORE:
    case HSC_ECRYPTO:
    case HSC_ENOMEM:
    case HSC_EIO:
        return APLOG_ERR;
    default:
        return APLOG_WARNING; /* bad MAC, unknown key, malformed, future */
    }
}

hsc_status_t hsc_verify_request(request_rec *r, const hsc_srv_conf_t *sc,
                                const hsc_dir_conf_t *d, hsc_store_t *store,
                                hsc_cookie_t *c, hsc_user_t *u)
{
    const char *val;
    size_t vallen;
    int count;
    hsc_status_t st;
    hsc_verify_params_t vp;

    st = hsc_cookie_header_find(apr_table_get(r->headers_in, "Cookie"),
                                d->cookie_name, &val, &vallen, &count);
    if (st == HSC_EINVAL) {
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r,
                      "HSC010: no %s cookie in the request", d->cookie_name);
        return HSC_EINVAL;
    }
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r,
                      "HSC011: refused: %d cookies named %s in the request",
                      count, d->cookie_name);
        hsc_ops_cookie(r, NULL, NULL, 0, HSC_EMALFORMED, NULL);
        return HSC_EMALFORMED;
    }
    hsc_verify_params(r, sc, d, &vp);
    st = hsc_cookie_verify(&vp, store, val, vallen, c, u);
    hsc_ops_cookie(r, &vp, val, vallen, st, c);
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, refusal_level(st), 0, r,
                      "HSC012: cookie refused: %s%s%s", hsc_strerror(st),
                      st == HSC_ESTORE ? ": " : "",
                      st == HSC_ESTORE ? hsc_store_errmsg(store) : "");
    }
    return st;
}

/* Tell the rest of httpd: r->user, the auth type, the environment. */
static void export_verdict(request_rec *r, const hsc_req_t *rq)
{
    r->user = (char *)rq->user;
    r->ap_auth_type = (char *)HSC_AUTH_TYPE;
    apr_table_setn(r->subprocess_env, "HSC_USER", rq->user);
    apr_table_setn(r->subprocess_env, "HSC_GROUPS", rq->groups);
    apr_table_setn(r->subprocess_env, "HSC_LOGIN_TIME", rq->iat);
    apr_table_setn(r->subprocess_env, "HSC_EXPIRES", rq->exp);
}

/* Record the verdict on r: user, auth type, environment, request config. */
static void set_verdict(request_rec *r, const hsc_cookie_t *c,
                        const hsc_user_t *u, int64_t exp)
{
    size_t glen = strlen(u->groups);
    hsc_req_t *rq = apr_palloc(r->pool, sizeof(*rq) + c->user_len + glen + 2);
    char *buf = (char *)(rq + 1);

    memcpy(buf, c->user, c->user_len);
    buf[c->user_len] = '\0';
    rq->user = buf;
    buf += c->user_len + 1;
    memcpy(buf, u->groups, glen + 1);
    rq->groups = buf;
    hsc_format_time(c->iat, rq->iat);
    hsc_format_time(exp, rq->exp);
    ap_set_module_config(r->request_config, &hsc_module, rq);

    export_verdict(r, rq);
}

/*
 * 1 when a verdict reached under a and one under b would be the same: the
 * same cookie, scope, address binding and age limits. A subrequest or
 * internal redirect into a location that wants another cookie or scope
 * (an SSI include, an ErrorDocument, a rewrite) must verify afresh.
 */
static int same_verification(const hsc_dir_conf_t *a, const hsc_dir_conf_t *b)
{
    return a == b
           || (a != NULL && b != NULL
               && !strcmp(a->cookie_name, b->cookie_name)
               && !strcmp(a->scope, b->scope)
               && a->bind_address == b->bind_address
               && a->max_age == b->max_age && a->skew == b->skew);
}

/* The verdict of the main or an earlier request of this one, when it was
 * reached on the same server under the same rules as r's; else NULL. */
static const hsc_req_t *inherited_verdict(const request_rec *r)
{
    const request_rec *o;

    for (o = r->main ? r->main : r->prev; o != NULL;
         o = o->main ? o->main : o->prev) {
        const hsc_req_t *rq = ap_get_module_config(o->request_config,
                                                   &hsc_module);
        if (rq != NULL && o->user != NULL) {
            if (o->server != r->server
                || !same_verification(
                       ap_get_module_config(r->per_dir_config, &hsc_module),
                       ap_get_module_config(o->per_dir_config,
                                            &hsc_module))) {
                return NULL;
            }
            return rq;
        }
    }
    return NULL;
}

/* Percent-encode s for use as a query parameter value. */
static char *query_escape(apr_pool_t *p, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    char *out = apr_palloc(p, strlen(s) * 3 + 1), *o = out;

    for (; *s; ++s) {
        unsigned char ch = (unsigned char)*s;
        if (apr_isalnum(ch) || ch == '-' || ch == '.' || ch == '_'
            || ch == '~' || ch == '/') {
            *o++ = (char)ch;
        }
        else {
            *o++ = '%';
            *o++ = hex[ch >> 4];
            *o++ = hex[ch & 15];
        }
    }
    *o = '\0';
    return out;
}

/* The answer to a request without a valid cookie: 302 or 401. */
static int unauthenticated(request_rec *r, const hsc_dir_conf_t *d)
{
    int redirect;

    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    switch (d->unauth) {
    case HSC_UNAUTH_REDIRECT:
        redirect = 1;
        break;
    case HSC_UNAUTH_401:
        redirect = 0;
        break;
    default: {
        /* A browser navigation: GET or HEAD that accepts HTML. */
        const char *accept = apr_table_get(r->headers_in, "Accept");
        redirect = r->method_number == M_GET && accept != NULL
                   && ap_strcasestr(accept, "text/html") != NULL;
        break;
    }
    }
    if (redirect && d->login_url != NULL) {
        const char *loc = d->login_url;
        /* Only origin-form targets can come back: never "http://x/..." */
        if (r->unparsed_uri != NULL && r->unparsed_uri[0] == '/') {
            loc = apr_pstrcat(r->pool, loc, strchr(loc, '?') ? "&" : "?",
                              "return=",
                              query_escape(r->pool, r->unparsed_uri), NULL);
        }
        apr_table_setn(r->headers_out, "Location", loc);
        return HTTP_MOVED_TEMPORARILY;
    }
    apr_table_setn(r->err_headers_out, "WWW-Authenticate", HSC_AUTH_TYPE);
    return HTTP_UNAUTHORIZED;
}

/*
 * The sliding refresh: past half the idle timeout, re-issue the cookie with
 * a later expiry (never past the max age). Returns the expiry the client
 * holds after this response.
 */
static int64_t slide_expiry(request_rec *r, const hsc_srv_conf_t *sc,
                            const hsc_dir_conf_t *d, const hsc_cookie_t *c)
{
    int64_t now = (int64_t)apr_time_sec(r->request_time), exp;
    hsc_verify_params_t vp;
    char value[HSC_COOKIE_VALUE_MAX];
    size_t len;
    hsc_status_t st;

    if (!d->refresh
        || !hsc_cookie_needs_refresh(c, now, d->idle, d->max_age)) {
        return c->exp;
    }
    hsc_verify_params(r, sc, d, &vp);
    st = hsc_cookie_refresh(&vp, c, d->idle, value, sizeof(value), &len);
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      "HSC015: cookie refresh failed: %s", hsc_strerror(st));
        return c->exp;
    }
    exp = hsc_cookie_expiry(c->iat, now, d->idle, d->max_age);
    if (hsc_set_cookie(r, d, value, exp - now) != 0) {
        exp = c->exp;
    }
    else {
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r,
                      "HSC014: cookie refreshed until %" APR_INT64_T_FMT,
                      (apr_int64_t)exp);
    }
    hsc_wipe(value, sizeof(value));
    return exp;
}

/*
 * The user database cannot answer (gone, locked, unreadable, foreign; the
 * cause is logged by the caller): the request is refused, and the client
 * told to come back, since the store re-opens its file by itself.
 */
int hsc_store_unavailable(request_rec *r)
{
    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    apr_table_setn(r->err_headers_out, "Retry-After", "5");
    return HTTP_SERVICE_UNAVAILABLE;
}

/*
 * check_authn for AuthType HSC: find the cookie, verify it (the spec's six
 * steps in hsc_cookie_verify), record the verdict, slide the expiry.
 */
static int hsc_check_authn(request_rec *r)
{
    const char *type = ap_auth_type(r);
    const hsc_srv_conf_t *sc;
    const hsc_dir_conf_t *d;
    const hsc_req_t *prev;
    hsc_store_t *store;
    hsc_cookie_t c;
    hsc_user_t u;
    hsc_status_t st;

    if (type == NULL || strcasecmp(type, HSC_AUTH_TYPE) != 0) {
        return DECLINED;
    }
    /* Subrequests and internal redirects reuse the first verdict (an
     * internal redirect renames the environment to REDIRECT_*: set it). */
    if ((prev = inherited_verdict(r)) != NULL) {
        ap_set_module_config(r->request_config, &hsc_module, (void *)prev);
        export_verdict(r, prev);
        return OK;
    }
    sc = ap_get_module_config(r->server->module_config, &hsc_module);
    d = ap_get_module_config(r->per_dir_config, &hsc_module);
    if (sc->keys == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      "HSC013: AuthType HSC without HSCKeyFile");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    if ((store = hsc_thread_store(r, sc)) == NULL) {
        return hsc_store_unavailable(r);
    }
    st = hsc_verify_request(r, sc, d, store, &c, &u);
    if (st != HSC_OK) {
        if (st == HSC_ESTORE || st == HSC_ENOMEM) {
            return hsc_store_unavailable(r);
        }
        return st == HSC_ECRYPTO ? HTTP_INTERNAL_SERVER_ERROR
                                 : unauthenticated(r, d);
    }

    set_verdict(r, &c, &u, slide_expiry(r, sc, d, &c));
    hsc_wipe(&c, sizeof(c));
    return OK;
}

/* --- Set-Cookie ----------------------------------------------------------- */

static const char *const samesite_names[] = {"Strict", "Lax", "None"};

int hsc_set_cookie(request_rec *r, const hsc_dir_conf_t *d,
                   const char *value, apr_int64_t lifetime)
{
    const char *problem = hsc_cookie_attrs_problem(d);
    char date[APR_RFC822_DATE_LEN];
    apr_time_t when;

    if (problem != NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      "HSC016: no cookie set: %s", problem);
        return -1;
    }
    if (lifetime < 0) {
        lifetime = 0;
    }
    when = lifetime ? r->request_time + apr_time_from_sec(lifetime) : 0;
    apr_rfc822_date(date, when);
    apr_table_addn(
        r->err_headers_out, "Set-Cookie",
        apr_psprintf(r->pool,
                     "%s=%s; Path=%s%s%s; Max-Age=%" APR_INT64_T_FMT
                     "; Expires=%s; HttpOnly%s; SameSite=%s",
                     d->cookie_name, value, d->cookie_path,
                     d->cookie_domain ? "; Domain=" : "",
                     d->cookie_domain ? d->cookie_domain : "", lifetime,
                     date, d->secure ? "; Secure" : "",
                     samesite_names[d->samesite]));
    return 0;
}

/* --- authorization: Require hsc-group ------------------------------------ */

/* The group names of a Require line, checked once at config time. */
static const char *hsc_group_parse(cmd_parms *cmd, const char *line,
                                   const void **parsed)
{
    apr_array_header_t *groups = apr_array_make(cmd->pool, 4,
                                                sizeof(const char *));
    const char *w;

    while (*(w = ap_getword_conf(cmd->pool, &line)) != '\0') {
        if (!hsc_groupname_valid(w, strlen(w))) {
            return apr_pstrcat(cmd->pool, "Require hsc-group: '", w,
                               "' is not a valid group name", NULL);
        }
        *(const char **)apr_array_push(groups) = w;
    }
    if (groups->nelts == 0) {
        return "Require hsc-group: name at least one group";
    }
    *parsed = groups;
    return NULL;
}

/* Granted when the user (verified by this module) is in any listed group. */
static authz_status hsc_group_check(request_rec *r, const char *line,
                                    const void *parsed)
{
    const apr_array_header_t *groups = parsed;
    const hsc_req_t *rq;
    int i;

    (void)line;
    if (r->user == NULL) {
        return AUTHZ_DENIED_NO_USER;
    }
    rq = ap_get_module_config(r->request_config, &hsc_module);
    if (rq == NULL) {
        rq = inherited_verdict(r);
    }
    if (rq == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      "HSC017: Require hsc-group needs AuthType HSC");
        return AUTHZ_DENIED;
    }
    for (i = 0; i < groups->nelts; ++i) {
        const char *g = ((const char **)groups->elts)[i];
        if (hsc_groups_contain(rq->groups, g, strlen(g))) {
            return AUTHZ_GRANTED;
        }
    }
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  "HSC018: user %s is in none of the groups required",
                  r->user);
    return AUTHZ_DENIED;
}

static const authz_provider hsc_group_provider = {
    &hsc_group_check,
    &hsc_group_parse,
};

static void hsc_register_hooks(apr_pool_t *p)
{
    ap_hook_pre_config(hsc_pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_pre_config(hsc_throttle_pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_check_config(hsc_check_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(hsc_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(hsc_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_check_authn(hsc_check_authn, NULL, NULL, APR_HOOK_MIDDLE,
                        AP_AUTH_INTERNAL_PER_CONF);
    ap_hook_handler(hsc_login_handler, NULL, NULL, APR_HOOK_MIDDLE);
    hsc_ops_register_hooks(p);
    ap_register_auth_provider(p, AUTHZ_PROVIDER_GROUP, "hsc-group",
                              AUTHZ_PROVIDER_VERSION, &hsc_group_provider,
                              AP_AUTH_INTERNAL_PER_CONF);
}

module AP_MODULE_DECLARE_DATA hsc_module = {
    STANDARD20_MODULE_STUFF,
    hsc_create_dir_conf,
    hsc_merge_dir_conf,
    hsc_create_srv_conf,
    hsc_merge_srv_conf,
    hsc_cmds,
    hsc_register_hooks,
    AP_MODULE_FLAG_NONE
};
