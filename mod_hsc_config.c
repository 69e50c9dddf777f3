/*
 * mod_hsc_config.c: every directive of the module.
 *
 * Each directive has one small setter named after it (set_<field>), one
 * row in hsc_cmds[], and one merge line; values are parsed here, once,
 * into enums and checked integers (the parsers are in hsc_core/), and an
 * error names the directive. Defaults come from hsc_core/hsc_defaults.h.
 * The startup checks of cross-field rules (hsc_check_config) are here too.
 * Adding a directive: README.md, "Layout".
 */
#include <string.h>

#include "apr_strings.h"
#include "apr_lib.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "util_cfgtree.h"

#include "mod_hsc_log.h"
#include "mod_hsc_config.h"
#include "mod_hsc_throttle.h"
#include "mod_hsc_userdb.h"
#include "mod_hsc_ops.h"
#include "hsc_parse.h"
#include "hsc_pages.h"
#include "hsc_store.h"
#include "hsc_cache.h"

/* --- create and merge ----------------------------------------------------- */

void *hsc_create_srv_conf(apr_pool_t *p, server_rec *s)
{
    hsc_srv_conf_t *sc = apr_pcalloc(p, sizeof(*sc));

    (void)s;
    sc->userdb_cache = HSC_DEFAULT_USERDB_CACHE;
    sc->user_cache_size = HSC_DEFAULT_USER_CACHE_SIZE;
    sc->throttle.addr = HSC_DEFAULT_THROTTLE_ADDRESS;
    sc->throttle.user = HSC_DEFAULT_THROTTLE_USER;
    sc->throttle.window = HSC_DEFAULT_THROTTLE_WINDOW;
    sc->throttle.max_kdf = HSC_DEFAULT_MAX_LOGIN_KDF;
    sc->db_index = -1;
    /* test_defaults checks that the default parses. */
    if (hsc_kdf_parse(HSC_DEFAULT_DUMMY_KDF_TEXT, &sc->dummy_kdf) != HSC_OK) {
        sc->dummy_kdf.alg = HSC_KDF_SHA256_CHAIN;
        sc->dummy_kdf.iterations = 600000;
    }
    return sc;
}

/* The one merge rule: add's value when add set it, else base's. */
#define HSC_MERGE(to, base, add, f)                                            \
    do {                                                                       \
        (to)->f = (add)->f##_set ? (add)->f : (base)->f;                       \
        (to)->f##_set = (add)->f##_set | (base)->f##_set;                      \
    } while (0)

void *hsc_merge_srv_conf(apr_pool_t *p, void *basev, void *addv)
{
    const hsc_srv_conf_t *base = basev, *add = addv;
    hsc_srv_conf_t *sc = apr_pcalloc(p, sizeof(*sc));
    const hsc_srv_conf_t *keys = add->keyfile_set ? add : base;

    HSC_MERGE(sc, base, add, keyfile);
    sc->keys = keys->keys; /* the key file's contents travel with it */
    sc->key_warning = keys->key_warning;
    HSC_MERGE(sc, base, add, userdb);
    HSC_MERGE(sc, base, add, userdb_cache);
    HSC_MERGE(sc, base, add, user_cache_size);
    HSC_MERGE(&sc->throttle, &base->throttle, &add->throttle, addr);
    HSC_MERGE(&sc->throttle, &base->throttle, &add->throttle, user);
    HSC_MERGE(&sc->throttle, &base->throttle, &add->throttle, window);
    HSC_MERGE(&sc->throttle, &base->throttle, &add->throttle, max_kdf);
    HSC_MERGE(sc, base, add, dummy_kdf);
    sc->db_index = -1;
    return sc;
}

void *hsc_create_dir_conf(apr_pool_t *p, char *dir)
{
    hsc_dir_conf_t *d = apr_pcalloc(p, sizeof(*d));

    (void)dir;
    d->cookie_name = HSC_DEFAULT_COOKIE_NAME;
    d->cookie_domain = NULL;
    d->cookie_path = HSC_DEFAULT_COOKIE_PATH;
    d->secure = HSC_DEFAULT_COOKIE_SECURE;
    d->samesite = HSC_SITE_LAX; /* HSC_DEFAULT_SAMESITE_TEXT */
    d->idle = HSC_DEFAULT_IDLE_TIMEOUT;
    d->max_age = HSC_DEFAULT_MAX_AGE;
    d->skew = HSC_DEFAULT_CLOCK_SKEW;
    d->refresh = HSC_DEFAULT_REFRESH;
    d->scope = HSC_DEFAULT_SCOPE;
    d->bind_address = HSC_DEFAULT_BIND_ADDRESS;
    d->login_url = NULL;
    d->unauth = HSC_UNAUTHENTICATED_AUTO; /* HSC_DEFAULT_UNAUTHENTICATED_TEXT */
    d->success_url = HSC_DEFAULT_LOGIN_SUCCESS_URL;
    d->logout_url = HSC_DEFAULT_LOGOUT_URL;
    d->site_name = NULL;
    d->stylesheet = NULL;
    d->failure_url = NULL;
    return d;
}

void *hsc_merge_dir_conf(apr_pool_t *p, void *basev, void *addv)
{
    const hsc_dir_conf_t *base = basev, *add = addv;
    hsc_dir_conf_t *d = apr_pcalloc(p, sizeof(*d));

    HSC_MERGE(d, base, add, cookie_name);
    HSC_MERGE(d, base, add, cookie_domain);
    HSC_MERGE(d, base, add, cookie_path);
    HSC_MERGE(d, base, add, secure);
    HSC_MERGE(d, base, add, samesite);
    HSC_MERGE(d, base, add, idle);
    HSC_MERGE(d, base, add, max_age);
    HSC_MERGE(d, base, add, skew);
    HSC_MERGE(d, base, add, refresh);
    HSC_MERGE(d, base, add, scope);
    HSC_MERGE(d, base, add, bind_address);
    HSC_MERGE(d, base, add, login_url);
    HSC_MERGE(d, base, add, unauth);
    HSC_MERGE(d, base, add, success_url);
    HSC_MERGE(d, base, add, logout_url);
    HSC_MERGE(d, base, add, site_name);
    HSC_MERGE(d, base, add, stylesheet);
    HSC_MERGE(d, base, add, failure_url);
    return d;
}

/* --- helpers of the setters ----------------------------------------------- */

/* The server config a per-server directive sets. */
static hsc_srv_conf_t *srv_conf(cmd_parms *cmd)
{
    return ap_get_module_config(cmd->server->module_config, &hsc_module);
}

/* NULL, or the error for a per-server directive inside a section
 * (RSRC_CONF lets <Limit> through). */
static const char *not_in_section(cmd_parms *cmd)
{
    return ap_check_cmd_context(cmd, NOT_IN_DIR_LOC_FILE);
}

/* NULL or an error naming the directive, for a duration (hsc_parse.h). */
static const char *duration(cmd_parms *cmd, const char *arg, int allow_zero,
                            apr_int64_t *out)
{
    int64_t v;

    if (hsc_parse_duration(arg, allow_zero, &v) != HSC_OK) {
        return apr_psprintf(cmd->pool,
                            "%s: '%s' is not a duration (a number with an "
                            "optional unit s, m, h or d, %s10 years)",
                            cmd->cmd->name, arg,
                            allow_zero ? "0 to " : "more than 0, at most ");
    }
    *out = (apr_int64_t)v;
    return NULL;
}

/* NULL or an error naming the directive, for a count 0..HSC_COUNT_MAX. */
static const char *count(cmd_parms *cmd, const char *arg, int *out)
{
    if (hsc_parse_count(arg, HSC_COUNT_MAX, out) != HSC_OK) {
        return apr_psprintf(cmd->pool,
                            "%s: '%s' is not a count (a whole number from 0, "
                            "which turns it off, to %d)",
                            cmd->cmd->name, arg, HSC_COUNT_MAX);
    }
    return NULL;
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

/* NULL, or the error for a URL directive's argument. */
static const char *url_problem(cmd_parms *cmd, const char *arg)
{
    if (*arg == '\0' || !printable_nospace(arg)) {
        return apr_pstrcat(cmd->pool, cmd->cmd->name,
                           ": the URL must be non-empty, without space or "
                           "control characters",
                           NULL);
    }
    return NULL;
}

/* An On|Off per-directory directive: no check needed beyond httpd's. */
#define HSC_DIR_FLAG_SETTER(field)                                             \
    static const char *set_##field(cmd_parms *cmd, void *dv, int on)           \
    {                                                                          \
        hsc_dir_conf_t *d = dv;                                                \
        (void)cmd;                                                             \
        d->field = on;                                                         \
        d->field##_set = 1;                                                    \
        return NULL;                                                           \
    }

/* --- per-server setters --------------------------------------------------- */

/*
 * HSCKeyFile: loaded here, in the parent, as the user httpd starts as (the
 * file may be readable by root only), into pconf; children inherit it.
 * A graceful restart reads it again, so a rotated file takes effect then.
 */
static const char *set_keyfile(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_srv_conf_t *sc = srv_conf(cmd);
    const char *path, *msg = NULL;
    hsc_keyring_t *kr = NULL;
    const char *err = not_in_section(cmd);

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
    sc->keyfile_set = 1;
    return NULL;
}

/*
 * HSCUserDB: opened once here, read-only, to fail the configuration early
 * (missing file, not a user database); the children open their own
 * handles lazily, one per thread (hsc_userdb_acquire).
 */
static const char *set_userdb(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_srv_conf_t *sc = srv_conf(cmd);
    const char *path;
    hsc_store_t *s = NULL;
    char errbuf[256];
    const char *err = not_in_section(cmd);

    (void)dv;
    if (err != NULL) {
        return err;
    }
    if (strncmp(arg, HSC_STORE_PGSQL_PREFIX, sizeof(HSC_STORE_PGSQL_PREFIX) - 1)
        == 0) {
        /* Parsed here, connected in the children (mod_hsc_userdb.c). */
        if ((err = hsc_userdb_check(cmd, arg, &path)) != NULL) {
            return err;
        }
        sc->userdb = path;
        sc->userdb_set = 1;
        return NULL;
    }
    path = ap_server_root_relative(cmd->pool, arg);
    if (path == NULL) {
        return apr_pstrcat(cmd->pool, "HSCUserDB: invalid path '", arg, "'",
                           NULL);
    }
    errbuf[0] = '\0';
    if (hsc_store_sqlite_open(path, HSC_STORE_READONLY, &s, errbuf,
                              sizeof(errbuf))
        != HSC_OK) {
        return apr_pstrcat(cmd->pool, "HSCUserDB: cannot open user database ",
                           path, ": ", errbuf[0] ? errbuf : "unknown error",
                           NULL);
    }
    hsc_store_close(s);
    sc->userdb = path;
    sc->userdb_set = 1;
    return NULL;
}

/*
 * HSCUserDBCache: main server only (the table row says GLOBAL_ONLY is
 * checked here), because the children share one handle per database path
 * and thread, whatever virtual host asks.
 */
static const char *set_userdb_cache(cmd_parms *cmd, void *dv, int on)
{
    hsc_srv_conf_t *sc = srv_conf(cmd);
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    (void)dv;
    if (err != NULL) {
        return err;
    }
    sc->userdb_cache = on;
    sc->userdb_cache_set = 1;
    return NULL;
}

/*
 * HSCUserCacheSize N: records in each child's shared record cache (one
 * cache per user database); 0 turns it off like HSCUserDBCache Off. Main
 * server only, as HSCUserDBCache.
 */
static const char *set_user_cache_size(cmd_parms *cmd, void *dv,
                                       const char *arg)
{
    hsc_srv_conf_t *sc = srv_conf(cmd);
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    const char *p;
    apr_int64_t v = 0;

    (void)dv;
    if (err != NULL) {
        return err;
    }
    for (p = arg; *p; ++p) {
        if (!apr_isdigit(*p) || v > HSC_CACHE_MAX_ENTRIES) {
            break;
        }
        v = v * 10 + (*p - '0');
    }
    if (*arg == '\0' || *p != '\0' || v > HSC_CACHE_MAX_ENTRIES) {
        return apr_psprintf(cmd->pool,
                            "HSCUserCacheSize: '%s' is not a number of records "
                            "from 0 (off) to %u",
                            arg, (unsigned)HSC_CACHE_MAX_ENTRIES);
    }
    sc->user_cache_size = v;
    sc->user_cache_size_set = 1;
    return NULL;
}

static const char *set_throttle_addr(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_throttle_conf_t *tc = &srv_conf(cmd)->throttle;

    const char *err = not_in_section(cmd);

    (void)dv;
    if (err != NULL) {
        return err;
    }
    tc->addr_set = 1;
    return count(cmd, arg, &tc->addr);
}

static const char *set_throttle_user(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_throttle_conf_t *tc = &srv_conf(cmd)->throttle;

    const char *err = not_in_section(cmd);

    (void)dv;
    if (err != NULL) {
        return err;
    }
    tc->user_set = 1;
    return count(cmd, arg, &tc->user);
}

static const char *set_throttle_window(cmd_parms *cmd, void *dv,
                                       const char *arg)
{
    hsc_throttle_conf_t *tc = &srv_conf(cmd)->throttle;

    const char *err = not_in_section(cmd);

    (void)dv;
    if (err != NULL) {
        return err;
    }
    tc->window_set = 1;
    return duration(cmd, arg, 0, &tc->window);
}

static const char *set_max_kdf(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_throttle_conf_t *tc = &srv_conf(cmd)->throttle;

    const char *err = not_in_section(cmd);

    (void)dv;
    if (err != NULL) {
        return err;
    }
    tc->max_kdf_set = 1;
    return count(cmd, arg, &tc->max_kdf);
}

/*
 * HSCDummyKDF SPEC: the work every failed login costs (what an unknown name
 * runs, and what a failure of a user with another KDF runs as well), so
 * timing does not tell which names exist. Set it to the KDF the users are
 * stored with; within the ceilings, like every KDF the module runs.
 */
static const char *set_dummy_kdf(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_srv_conf_t *sc = srv_conf(cmd);
    const char *err = not_in_section(cmd);
    hsc_kdf_t k;

    (void)dv;
    if (err != NULL) {
        return err;
    }
    if (hsc_kdf_parse(arg, &k) != HSC_OK) {
        return apr_pstrcat(cmd->pool, "HSCDummyKDF: '", arg,
                           "' is not a KDF (sha256-chain:N or scrypt:N:r:p)",
                           NULL);
    }
    if (!hsc_kdf_within_ceiling(&k)) {
        return apr_pstrcat(cmd->pool, "HSCDummyKDF: '", arg,
                           "' is above the KDF ceilings (docs/security.md)",
                           NULL);
    }
    sc->dummy_kdf = k;
    sc->dummy_kdf_set = 1;
    return NULL;
}

/* --- per-directory setters ------------------------------------------------ */

/* HSCCookieName: an RFC 6265 cookie-name (an RFC 7230 token). */
static const char *set_cookie_name(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;
    const char *s = arg;

    for (; *s; ++s) {
        if (!apr_isalnum(*s) && !strchr("!#$%&'*+-.^_`|~", *s)) {
            break;
        }
    }
    if (*arg == '\0' || *s != '\0') {
        return apr_pstrcat(cmd->pool, cmd->cmd->name, ": '", arg,
                           "' is not a valid cookie name", NULL);
    }
    d->cookie_name = arg;
    d->cookie_name_set = 1;
    return NULL;
}

static const char *set_cookie_domain(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    if (*arg == '\0'
        || strspn(arg, "abcdefghijklmnopqrstuvwxyz"
                       "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                       "0123456789.-")
               != strlen(arg)) {
        return apr_pstrcat(cmd->pool, cmd->cmd->name, ": '", arg,
                           "' is not a host or domain name", NULL);
    }
    d->cookie_domain = arg;
    d->cookie_domain_set = 1;
    return NULL;
}

static const char *set_cookie_path(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    if (arg[0] != '/' || !printable_nospace(arg) || strchr(arg, ';')) {
        return apr_pstrcat(cmd->pool, cmd->cmd->name,
                           ": the path must start with '/' and hold no ';', "
                           "space or control character",
                           NULL);
    }
    d->cookie_path = arg;
    d->cookie_path_set = 1;
    return NULL;
}

HSC_DIR_FLAG_SETTER(secure)

static const char *set_samesite(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    if (hsc_parse_samesite(arg, &d->samesite) != HSC_OK) {
        return apr_pstrcat(cmd->pool, cmd->cmd->name,
                           ": must be Strict, Lax or None", NULL);
    }
    d->samesite_set = 1;
    return NULL;
}

static const char *set_idle(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    d->idle_set = 1;
    return duration(cmd, arg, 0, &d->idle);
}

static const char *set_max_age(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    d->max_age_set = 1;
    return duration(cmd, arg, 0, &d->max_age);
}

static const char *set_skew(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    d->skew_set = 1;
    return duration(cmd, arg, 1, &d->skew);
}

HSC_DIR_FLAG_SETTER(refresh)

/* HSCScope is part of the MAC input: printable ASCII, never a line feed. */
static const char *set_scope(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;
    const char *s;

    for (s = arg; *s; ++s) {
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e) {
            return apr_pstrcat(cmd->pool, cmd->cmd->name,
                               ": only printable ASCII is allowed", NULL);
        }
    }
    d->scope = arg;
    d->scope_set = 1;
    return NULL;
}

HSC_DIR_FLAG_SETTER(bind_address)

static const char *set_login_url(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    d->login_url = arg;
    d->login_url_set = 1;
    return url_problem(cmd, arg);
}

static const char *set_unauth(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    if (hsc_parse_unauth(arg, &d->unauth) != HSC_OK) {
        return apr_pstrcat(cmd->pool, cmd->cmd->name,
                           ": must be auto, redirect or 401", NULL);
    }
    d->unauth_set = 1;
    return NULL;
}

static const char *set_success_url(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    d->success_url = arg;
    d->success_url_set = 1;
    return url_problem(cmd, arg);
}

static const char *set_logout_url(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    d->logout_url = arg;
    d->logout_url_set = 1;
    return url_problem(cmd, arg);
}

/* HSCSiteName is shown in the pages (escaped there): no control bytes. */
static const char *set_site_name(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;
    const char *c;

    for (c = arg; *c; ++c) {
        if ((unsigned char)*c < 0x20 || *c == 0x7f) {
            return apr_pstrcat(cmd->pool, cmd->cmd->name,
                               ": no control characters allowed", NULL);
        }
    }
    d->site_name = *arg ? arg : NULL;
    d->site_name_set = 1;
    return NULL;
}

/* HSCLoginStylesheet goes into the pages' CSP: hsc_page_stylesheet_valid
 * allows a local path or an http(s) URL only. */
static const char *set_login_stylesheet(cmd_parms *cmd, void *dv,
                                        const char *arg)
{
    hsc_dir_conf_t *d = dv;

    if (!strcasecmp(arg, "none")) {
        d->stylesheet = NULL;
    }
    else if (!hsc_page_stylesheet_valid(arg)) {
        return apr_pstrcat(cmd->pool, cmd->cmd->name, ": '", arg,
                           "' must be a local path (/...) or an http(s):// "
                           "URL, without space, quote, ';' or ','",
                           NULL);
    }
    else {
        d->stylesheet = arg;
    }
    d->stylesheet_set = 1;
    return NULL;
}

static const char *set_login_failure_url(cmd_parms *cmd, void *dv,
                                         const char *arg)
{
    hsc_dir_conf_t *d = dv;

    if (!strcasecmp(arg, "none")) {
        d->failure_url = NULL;
        d->failure_url_set = 1;
        return NULL;
    }
    d->failure_url = arg;
    d->failure_url_set = 1;
    return url_problem(cmd, arg);
}

/* --- cross-field rules, checked at startup ------------------------------- */

/* The section's cookie attributes, as the core's cookie rules take them. */
hsc_cookie_attrs_t hsc_cookie_attrs(const hsc_dir_conf_t *d)
{
    hsc_cookie_attrs_t a;

    a.name = d->cookie_name;
    a.domain = d->cookie_domain;
    a.path = d->cookie_path;
    a.secure = d->secure;
    a.samesite = d->samesite;
    return a;
}

/* --- the command table ---------------------------------------------------- */

/* Secrets, stores and throttling: main server or virtual host only. */
#define HSC_SRV_TAKE1(name, fn, help)                                          \
    AP_INIT_TAKE1(name, fn, NULL, RSRC_CONF, help)
/* Per-directory directives are also allowed at server and vhost level,
 * where they set the defaults of every section (HSCScope per vhost). */
#define HSC_DIR_TAKE1(name, fn, help)                                          \
    AP_INIT_TAKE1(name, fn, NULL, RSRC_CONF | OR_AUTHCFG, help)
#define HSC_DIR_FLAG(name, fn, help)                                           \
    AP_INIT_FLAG(name, fn, NULL, RSRC_CONF | OR_AUTHCFG, help)

const command_rec hsc_cmds[] = {
    HSC_SRV_TAKE1("HSCUserDB", set_userdb,
                  "Path of the SQLite user database, or pgsql:<conninfo> (made "
                  "with hsc-admin init)"),
    AP_INIT_TAKE1("HSCUserDBPoolSize", hsc_pgsql_set_pool_size, NULL, RSRC_CONF,
                  "PostgreSQL connections per child process "
                  "(default " HSC_DEFAULT_USERDB_POOL_SIZE_TEXT ")"),
    AP_INIT_TAKE1("HSCUserDBPoolWait", hsc_pgsql_set_pool_wait, NULL, RSRC_CONF,
                  "Longest wait for a free PostgreSQL connection before a "
                  "503 (default " HSC_DEFAULT_USERDB_POOL_WAIT_TEXT ")"),
    AP_INIT_TAKE1(
        "HSCUserDBTimeout", hsc_pgsql_set_timeout, NULL, RSRC_CONF,
        "PostgreSQL statement timeout (default " HSC_DEFAULT_USERDB_TIMEOUT_TEXT
        ")"),
    AP_INIT_TAKE1("HSCUserDBMaxStale", hsc_pgsql_set_max_stale, NULL, RSRC_CONF,
                  "How long a cached PostgreSQL user record may lag the "
                  "database (default " HSC_DEFAULT_USERDB_MAX_STALE_TEXT
                  "; 0 turns the cache off)"),
    AP_INIT_FLAG("HSCUserDBCache", set_userdb_cache, NULL, RSRC_CONF,
                 "On|Off: keep user records between requests, validated "
                 "against every commit (default " HSC_DEFAULT_USERDB_CACHE_TEXT
                 ")"),
    AP_INIT_TAKE1("HSCUserCacheSize", set_user_cache_size, NULL, RSRC_CONF,
                  "Records in each child's user record cache, shared by its "
                  "threads (default " HSC_DEFAULT_USER_CACHE_SIZE_TEXT
                  ", about 25 MB; 0: off)"),
    HSC_SRV_TAKE1("HSCKeyFile", set_keyfile,
                  "Path of the key file; the first key signs, all verify"),
    HSC_DIR_TAKE1("HSCCookieName", set_cookie_name,
                  "Name of the session cookie (default " HSC_DEFAULT_COOKIE_NAME
                  ")"),
    HSC_DIR_TAKE1("HSCCookieDomain", set_cookie_domain,
                  "Domain attribute of the cookie (default: none)"),
    HSC_DIR_TAKE1(
        "HSCCookiePath", set_cookie_path,
        "Path attribute of the cookie (default " HSC_DEFAULT_COOKIE_PATH ")"),
    HSC_DIR_FLAG("HSCCookieSecure", set_secure,
                 "On|Off: send the cookie over HTTPS only "
                 "(default " HSC_DEFAULT_COOKIE_SECURE_TEXT ")"),
    HSC_DIR_TAKE1("HSCCookieSameSite", set_samesite,
                  "Strict|Lax|None (default " HSC_DEFAULT_SAMESITE_TEXT ")"),
    HSC_DIR_TAKE1("HSCIdleTimeout", set_idle,
                  "Idle timeout of a session, e.g. 30m "
                  "(default " HSC_DEFAULT_IDLE_TIMEOUT_TEXT ")"),
    HSC_DIR_TAKE1("HSCMaxAge", set_max_age,
                  "Absolute lifetime of a login, e.g. 8h "
                  "(default " HSC_DEFAULT_MAX_AGE_TEXT ")"),
    HSC_DIR_TAKE1("HSCClockSkew", set_skew,
                  "How far a login time may lie in the future "
                  "(default " HSC_DEFAULT_CLOCK_SKEW_TEXT ")"),
    HSC_DIR_FLAG("HSCRefresh", set_refresh,
                 "On|Off: re-issue the cookie past half the idle timeout "
                 "(default " HSC_DEFAULT_REFRESH_TEXT ")"),
    HSC_DIR_TAKE1("HSCScope", set_scope,
                  "Scope string bound into the MAC (default empty)"),
    HSC_DIR_FLAG("HSCBindAddress", set_bind_address,
                 "On|Off: bind cookies to the client address "
                 "(default " HSC_DEFAULT_BIND_ADDRESS_TEXT ")"),
    HSC_DIR_TAKE1("HSCLoginURL", set_login_url,
                  "Where browsers without a valid cookie are sent"),
    HSC_DIR_TAKE1("HSCUnauthenticated", set_unauth,
                  "auto|redirect|401: answer to a request without a cookie "
                  "(default " HSC_DEFAULT_UNAUTHENTICATED_TEXT ")"),
    HSC_DIR_TAKE1("HSCLoginSuccessURL", set_success_url,
                  "Where a login goes without a safe return "
                  "(default " HSC_DEFAULT_LOGIN_SUCCESS_URL ")"),
    HSC_DIR_TAKE1("HSCLogoutURL", set_logout_url,
                  "Where a logout goes (default: the logged-out page)"),
    HSC_DIR_TAKE1("HSCSiteName", set_site_name,
                  "Site name in the title and heading of the login pages"),
    HSC_DIR_TAKE1(
        "HSCLoginStylesheet", set_login_stylesheet,
        "URL|none: the site's stylesheet, linked after the built-in one and "
        "allowed by the CSP (default " HSC_DEFAULT_LOGIN_STYLESHEET_TEXT ")"),
    HSC_DIR_TAKE1(
        "HSCLoginFailureURL", set_login_failure_url,
        "URL|none: send failed logins there with ?hsc_error= (a custom login "
        "page; default " HSC_DEFAULT_LOGIN_FAILURE_URL_TEXT ")"),
    AP_INIT_TAKE1("HSCAuditLog", hsc_audit_set_log, NULL, RSRC_CONF,
                  "File or |program that receives one JSON line per security "
                  "event (default: none)"),
    AP_INIT_TAKE1("HSCThrottleCache", hsc_throttle_set_cache, NULL, RSRC_CONF,
                  "none|provider[:args]: socache of the failed-login "
                  "counts (default " HSC_DEFAULT_THROTTLE_CACHE_TEXT ")"),
    AP_INIT_TAKE1("HSCThrottleUnavailable", hsc_throttle_set_unavailable, NULL,
                  RSRC_CONF,
                  "allow|refuse: logins while the throttling cache fails "
                  "(default " HSC_DEFAULT_THROTTLE_UNAVAILABLE_TEXT ")"),
    HSC_SRV_TAKE1("HSCThrottleAddress", set_throttle_addr,
                  "Failed logins per window from one address "
                  "(default " HSC_DEFAULT_THROTTLE_ADDRESS_TEXT "; 0: off)"),
    HSC_SRV_TAKE1("HSCThrottleUser", set_throttle_user,
                  "Failed logins per window for one username "
                  "(default " HSC_DEFAULT_THROTTLE_USER_TEXT "; 0: off)"),
    HSC_SRV_TAKE1("HSCThrottleWindow", set_throttle_window,
                  "Window of the failed-login counts "
                  "(default " HSC_DEFAULT_THROTTLE_WINDOW_TEXT ")"),
    HSC_SRV_TAKE1("HSCMaxLoginKDF", set_max_kdf,
                  "Password checks at once in one child "
                  "(default " HSC_DEFAULT_MAX_LOGIN_KDF_TEXT "; 0: no cap)"),
    HSC_SRV_TAKE1("HSCDummyKDF", set_dummy_kdf,
                  "KDF every failed login costs, e.g. scrypt:65536:8:2 "
                  "(default " HSC_DEFAULT_DUMMY_KDF_TEXT ")"),
    {NULL, {NULL}, NULL, 0, RAW_ARGS, NULL}};
