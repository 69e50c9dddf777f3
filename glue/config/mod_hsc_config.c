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
#include "ap_provider.h"
#include "ap_socache.h"

#include "mod_hsc_log.h"
#include "mod_hsc_config.h"
#include "hsc_authz.h"
#include "hsc_parse.h"
#include "hsc_pages.h"
#include "hsc_policy.h"
#include "hsc_store.h"
#include "hsc_store_sqlite.h"
#include "hsc_token.h"
#include "hsc_cache.h"
#include "hsc_wa_ceremony.h"

/* --- create and merge ----------------------------------------------------- */

/* The one hsc_global_conf_t of this configuration pass, made with the
 * main server's configuration and found by the virtual hosts' (p is pconf
 * for every server; a new pass has a new pconf, so new defaults). */
static hsc_global_conf_t *global_conf(apr_pool_t *p)
{
    void *v = NULL;
    hsc_global_conf_t *g;

    if (apr_pool_userdata_get(&v, "hsc_global_conf", p) == APR_SUCCESS
        && v != NULL) {
        return v;
    }
    g = apr_pcalloc(p, sizeof(*g));
    /* hsc_core/hsc_defaults.h (docs/directives.md, test_defaults). */
    g->pool_size = HSC_DEFAULT_USERDB_POOL_SIZE;
    g->pool_wait_ms = HSC_DEFAULT_USERDB_POOL_WAIT_MS;
    g->max_stale_ms = HSC_DEFAULT_USERDB_MAX_STALE_MS;
    g->statement_timeout_ms = HSC_DEFAULT_USERDB_TIMEOUT_MS;
    g->throttle_refuse = HSC_DEFAULT_THROTTLE_UNAVAILABLE_REFUSE;
    apr_pool_userdata_setn(g, "hsc_global_conf", NULL, p);
    return g;
}

void *hsc_create_srv_conf(apr_pool_t *p, server_rec *s)
{
    hsc_srv_conf_t *sc = apr_pcalloc(p, sizeof(*sc));

    (void)s;
    sc->global = global_conf(p);
    sc->userdb_cache = HSC_DEFAULT_USERDB_CACHE;
    sc->user_cache_size = HSC_DEFAULT_USER_CACHE_SIZE;
    sc->throttle.addr = HSC_DEFAULT_THROTTLE_ADDRESS;
    sc->throttle.user = HSC_DEFAULT_THROTTLE_USER;
    sc->throttle.window = HSC_DEFAULT_THROTTLE_WINDOW;
    sc->throttle.max_kdf = HSC_DEFAULT_MAX_LOGIN_KDF;
    sc->wa_lifetime = HSC_DEFAULT_WA_CHALLENGE_LIFETIME;
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
    HSC_MERGE(sc, base, add, wa_rp_id);
    HSC_MERGE(sc, base, add, wa_origins);
    HSC_MERGE(sc, base, add, wa_lifetime);
    sc->global = add->global != NULL ? add->global : base->global;
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
    d->account_url = NULL;
    d->unauth = HSC_UNAUTHENTICATED_AUTO; /* HSC_DEFAULT_UNAUTHENTICATED_TEXT */
    d->success_url = HSC_DEFAULT_LOGIN_SUCCESS_URL;
    d->logout_url = HSC_DEFAULT_LOGOUT_URL;
    d->site_name = NULL;
    d->stylesheet = NULL;
    d->failure_url = NULL;
    d->health_details = HSC_DEFAULT_HEALTH_DETAILS;
    d->cookie_format1 = HSC_DEFAULT_COOKIE_FORMAT1;
    d->remember = HSC_DEFAULT_REMEMBER;
    d->second_factor = HSC_DEFAULT_SECOND_FACTOR;
    d->totp_skew = HSC_DEFAULT_TOTP_SKEW;
    d->recent_auth = HSC_DEFAULT_ACCOUNT_RECENT_AUTH;
    return d;
}

/* A list directive's merge: the parent's entries, then the section's. */
static apr_array_header_t *concat(apr_pool_t *p, apr_array_header_t *base,
                                  apr_array_header_t *add)
{
    if (base == NULL || add == NULL) {
        return base != NULL ? base : add;
    }
    return apr_array_append(p, base, add);
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
    HSC_MERGE(d, base, add, account_url);
    HSC_MERGE(d, base, add, unauth);
    HSC_MERGE(d, base, add, success_url);
    HSC_MERGE(d, base, add, logout_url);
    HSC_MERGE(d, base, add, site_name);
    HSC_MERGE(d, base, add, stylesheet);
    HSC_MERGE(d, base, add, failure_url);
    HSC_MERGE(d, base, add, health_details);
    HSC_MERGE(d, base, add, cookie_format1);
    HSC_MERGE(d, base, add, remember);
    HSC_MERGE(d, base, add, second_factor);
    HSC_MERGE(d, base, add, totp_skew);
    HSC_MERGE(d, base, add, factor_max_age);
    HSC_MERGE(d, base, add, max_auth_age);
    HSC_MERGE(d, base, add, password_min);
    HSC_MERGE(d, base, add, blocklist);
    HSC_MERGE(d, base, add, recent_auth);
    HSC_MERGE(d, base, add, strip_cookie);
    d->identity_headers = concat(p, base->identity_headers,
                                 add->identity_headers);
    d->strip_headers = concat(p, base->strip_headers, add->strip_headers);
    HSC_MERGE(d, base, add, authz_forward);
    d->authz_proxies = concat(p, base->authz_proxies, add->authz_proxies);
    d->return_hosts = concat(p, base->return_hosts, add->return_hosts);
    HSC_MERGE(d, base, add, accept_tokens);
    d->token_scopes = concat(p, base->token_scopes, add->token_scopes);
    d->api_origins = concat(p, base->api_origins, add->api_origins);
    HSC_MERGE(d, base, add, basic_password);
    HSC_MERGE(d, base, add, passkeys);
    HSC_MERGE(d, base, add, wa_uv);
    return d;
}

/* --- helpers of the setters ----------------------------------------------- */

/* The server config a per-server directive sets. */
static hsc_srv_conf_t *srv_conf(cmd_parms *cmd)
{
    return hsc_srv_conf(cmd->server);
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
    if (hsc_store_spec_conninfo(arg) != NULL) {
        /* Parsed here, connected in the children (mod_hsc_userdb.c). */
        errbuf[0] = '\0';
        if (hsc_store_spec_check(arg, errbuf, sizeof(errbuf)) != HSC_OK) {
            return apr_pstrcat(cmd->pool, "HSCUserDB: ", errbuf, NULL);
        }
        sc->userdb = arg;
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

/* DURATION|Off: 0 for Off. */
static const char *duration_or_off(cmd_parms *cmd, const char *arg,
                                   apr_int64_t *out)
{
    if (strcasecmp(arg, "off") == 0) {
        *out = 0;
        return NULL;
    }
    return duration(cmd, arg, 0, out);
}

static const char *set_remember(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    d->remember_set = 1;
    return duration_or_off(cmd, arg, &d->remember);
}

static const char *set_factor_max_age(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    d->factor_max_age_set = 1;
    return duration_or_off(cmd, arg, &d->factor_max_age);
}

static const char *set_max_auth_age(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    d->max_auth_age_set = 1;
    return duration_or_off(cmd, arg, &d->max_auth_age);
}

static const char *set_recent_auth(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    d->recent_auth_set = 1;
    return duration(cmd, arg, 1, &d->recent_auth);
}

static const char *set_skew(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    d->skew_set = 1;
    return duration(cmd, arg, 1, &d->skew);
}

/* An HTTP field name (RFC 9110 token): what a header directive may name. */
static int header_name_ok(const char *s)
{
    if (*s == '\0') {
        return 0;
    }
    for (; *s != '\0'; ++s) {
        if (!apr_isalnum(*s) && strchr("!#$%&'*+-.^_`|~", *s) == NULL) {
            return 0;
        }
    }
    return 1;
}

static const char *set_identity_header(cmd_parms *cmd, void *dv,
                                       const char *field, const char *name)
{
    static const char *const fields[HSC_ID_FIELD_COUNT] =
        {"user",    "groups",   "login-time", "expires",
         "methods", "mfa-time", "login-id"};
    hsc_dir_conf_t *d = dv;
    hsc_identity_header_t *h;
    int i;

    for (i = 0; i < HSC_ID_FIELD_COUNT; i++) {
        if (!strcasecmp(field, fields[i])) {
            break;
        }
    }
    if (i == HSC_ID_FIELD_COUNT) {
        return apr_psprintf(cmd->pool,
                            "HSCIdentityHeader: '%s' is not user, groups, "
                            "login-time, expires, methods, mfa-time or "
                            "login-id",
                            field);
    }
    if (!header_name_ok(name)) {
        return apr_psprintf(cmd->pool,
                            "HSCIdentityHeader: '%s' is not a header name",
                            name);
    }
    if (d->identity_headers == NULL) {
        d->identity_headers = apr_array_make(cmd->pool, 4, sizeof(*h));
    }
    h = apr_array_push(d->identity_headers);
    h->field = (hsc_identity_field_t)i;
    h->name = name;
    return NULL;
}

static const char *add_strip_header(cmd_parms *cmd, void *dv, const char *name)
{
    hsc_dir_conf_t *d = dv;

    if (!header_name_ok(name)) {
        return apr_psprintf(cmd->pool,
                            "HSCStripRequestHeaders: '%s' is not a header "
                            "name",
                            name);
    }
    if (d->strip_headers == NULL) {
        d->strip_headers = apr_array_make(cmd->pool, 4, sizeof(const char *));
    }
    *(const char **)apr_array_push(d->strip_headers) = name;
    return NULL;
}

static const char *set_authz_style(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    (void)cmd;
    if (!strcasecmp(arg, "auth-request")) {
        d->authz_forward = 0;
    }
    else if (!strcasecmp(arg, "forward-auth")) {
        d->authz_forward = 1;
    }
    else {
        return "HSCAuthzStyle: auth-request (nginx) or forward-auth (Caddy, "
               "Traefik, HAProxy)";
    }
    d->authz_forward_set = 1;
    return NULL;
}

static const char *add_authz_proxy(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;
    char *ip = apr_pstrdup(cmd->pool, arg), *mask = strchr(ip, '/');
    apr_ipsubnet_t *net;

    if (mask != NULL) {
        *mask++ = '\0';
    }
    if (apr_ipsubnet_create(&net, ip, mask, cmd->pool) != APR_SUCCESS) {
        return apr_psprintf(cmd->pool,
                            "HSCAuthzTrustedProxy: '%s' is not an IP address "
                            "or network (a.b.c.d, a.b.c.d/nn, an IPv6 one)",
                            arg);
    }
    if (d->authz_proxies == NULL) {
        d->authz_proxies = apr_array_make(cmd->pool, 2, sizeof(net));
    }
    *(apr_ipsubnet_t **)apr_array_push(d->authz_proxies) = net;
    return NULL;
}

static const char *add_return_host(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;
    char probe[HSC_AUTHZ_URL_MAX + 1];

    if (hsc_authz_url("https", arg, "/", probe, sizeof(probe)) != HSC_OK) {
        return apr_psprintf(cmd->pool,
                            "HSCReturnHosts: '%s' is not a host name or "
                            "host:port",
                            arg);
    }
    if (d->return_hosts == NULL) {
        d->return_hosts = apr_array_make(cmd->pool, 2, sizeof(const char *));
    }
    *(const char **)apr_array_push(d->return_hosts) = arg;
    return NULL;
}

static const char *set_accept_tokens(cmd_parms *cmd, void *dv, const char *arg)
{
    static const struct {
        const char *name;
        int bits;
    } ways[] = {{"off", 0},
                {"basic", HSC_TOKENS_BASIC},
                {"bearer", HSC_TOKENS_BEARER},
                {"both", HSC_TOKENS_BASIC | HSC_TOKENS_BEARER}};
    hsc_dir_conf_t *d = dv;
    size_t i;

    (void)cmd;
    for (i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
        if (!strcasecmp(arg, ways[i].name)) {
            d->accept_tokens = ways[i].bits;
            d->accept_tokens_set = 1;
            return NULL;
        }
    }
    return "HSCAcceptTokens: Off, Basic, Bearer or Both";
}

static const char *add_token_scope(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    if (strchr(arg, ',') != NULL || !hsc_token_scopes_valid(arg)
        || *arg == '\0') {
        return apr_psprintf(cmd->pool,
                            "HSCTokenScope: '%s' is not a scope name (1 to "
                            "32 of a-z, 0-9, '.', '_', ':', '-')",
                            arg);
    }
    if (d->token_scopes == NULL) {
        d->token_scopes = apr_array_make(cmd->pool, 2, sizeof(const char *));
    }
    *(const char **)apr_array_push(d->token_scopes) = arg;
    return NULL;
}

/* An origin as a browser sends it in Origin: http or https, a host in
 * lower case, a port only when it is not the scheme's default, no path. */
static const char *add_api_origin(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;
    char probe[HSC_AUTHZ_URL_MAX + 1];
    const char *host = NULL, *scheme = NULL;

    if (!strncmp(arg, "https://", 8)) {
        scheme = "https";
        host = arg + 8;
    }
    else if (!strncmp(arg, "http://", 7)) {
        scheme = "http";
        host = arg + 7;
    }
    if (host == NULL
        || hsc_authz_url(scheme, host, "/", probe, sizeof(probe)) != HSC_OK
        || strlen(probe) != strlen(arg) + 1 || strncmp(probe, arg, strlen(arg))
        || (!strcmp(scheme, "https") && ap_strstr_c(host, ":443") != NULL
            && !strcmp(ap_strstr_c(host, ":443"), ":443"))
        || (!strcmp(scheme, "http") && ap_strstr_c(host, ":80") != NULL
            && !strcmp(ap_strstr_c(host, ":80"), ":80"))) {
        return apr_psprintf(cmd->pool,
                            "HSCAPIAllowOrigin: '%s' is not an origin as a "
                            "browser sends it (http:// or https://, a host "
                            "in lower case, a port only when not the "
                            "default, no path)",
                            arg);
    }
    if (d->api_origins == NULL) {
        d->api_origins = apr_array_make(cmd->pool, 2, sizeof(const char *));
    }
    *(const char **)apr_array_push(d->api_origins) = arg;
    return NULL;
}

HSC_DIR_FLAG_SETTER(strip_cookie)
HSC_DIR_FLAG_SETTER(refresh)
HSC_DIR_FLAG_SETTER(health_details)
HSC_DIR_FLAG_SETTER(cookie_format1)
HSC_DIR_FLAG_SETTER(basic_password)
HSC_DIR_FLAG_SETTER(passkeys)

/* --- WebAuthn (docs/passkeys.md) ------------------------------------------ */

/* HSCWebAuthnRPID: a domain name, never an IP address (browsers refuse
 * those); the origins are checked against it in mod_hsc_checks.c, once
 * every directive of the server is read. */
static const char *set_wa_rp_id(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_srv_conf_t *sc = srv_conf(cmd);
    const char *err = not_in_section(cmd);
    char why[160];

    (void)dv;
    if (err != NULL) {
        return err;
    }
    if (hsc_wa_rp_id_check(arg, why, sizeof(why)) != HSC_OK) {
        return apr_psprintf(cmd->pool, "HSCWebAuthnRPID: '%s': %s", arg, why);
    }
    sc->wa_rp_id = arg;
    sc->wa_rp_id_set = 1;
    return NULL;
}

/* HSCWebAuthnOrigin: the shape here, the RP ID rule in the checks. */
static const char *add_wa_origin(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_srv_conf_t *sc = srv_conf(cmd);
    const char *err = not_in_section(cmd);
    const char *host = !strncmp(arg, "https://", 8)  ? arg + 8
                       : !strncmp(arg, "http://", 7) ? arg + 7
                                                     : "";
    const char *colon = strchr(host, ':');
    char why[160];

    (void)dv;
    if (err != NULL) {
        return err;
    }
    /* Its own host as RP ID: only the shape is checked here. */
    if (hsc_wa_origin_check(arg,
                            apr_pstrndup(cmd->pool, host,
                                         colon ? (apr_size_t)(colon - host)
                                               : strlen(host)),
                            why, sizeof(why))
        != HSC_OK) {
        return apr_psprintf(cmd->pool, "HSCWebAuthnOrigin: '%s': %s", arg, why);
    }
    if (!sc->wa_origins_set || sc->wa_origins == NULL) {
        sc->wa_origins = apr_array_make(cmd->pool, 2, sizeof(const char *));
    }
    *(const char **)apr_array_push(sc->wa_origins) = arg;
    sc->wa_origins_set = 1;
    return NULL;
}

static const char *set_wa_uv(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;
    hsc_wa_uv_t uv;

    if (hsc_wa_uv_parse(arg, &uv) != HSC_OK) {
        return apr_psprintf(cmd->pool,
                            "HSCWebAuthnUserVerification: '%s' is not "
                            "preferred, required or discouraged",
                            arg);
    }
    d->wa_uv = (int)uv;
    d->wa_uv_set = 1;
    return NULL;
}

static const char *set_wa_lifetime(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_srv_conf_t *sc = srv_conf(cmd);
    const char *err = not_in_section(cmd);
    int64_t v;

    (void)dv;
    if (err != NULL) {
        return err;
    }
    if (hsc_parse_duration(arg, 0, &v) != HSC_OK
        || v < HSC_WA_CHALLENGE_LIFETIME_MIN
        || v > HSC_WA_CHALLENGE_LIFETIME_MAX) {
        return apr_psprintf(cmd->pool,
                            "HSCWebAuthnChallengeLifetime: '%s' is not a "
                            "duration from %d to %d seconds",
                            arg, HSC_WA_CHALLENGE_LIFETIME_MIN,
                            HSC_WA_CHALLENGE_LIFETIME_MAX);
    }
    sc->wa_lifetime = (apr_int64_t)v;
    sc->wa_lifetime_set = 1;
    return NULL;
}

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

static const char *set_account_url(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    d->account_url = arg;
    d->account_url_set = 1;
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

static const char *set_second_factor(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    if (!strcasecmp(arg, "off")) {
        d->second_factor = HSC_SECOND_FACTOR_OFF;
    }
    else if (!strcasecmp(arg, "optional")) {
        d->second_factor = HSC_SECOND_FACTOR_OPTIONAL;
    }
    else if (!strcasecmp(arg, "required")) {
        d->second_factor = HSC_SECOND_FACTOR_REQUIRED;
    }
    else {
        return apr_pstrcat(cmd->pool, cmd->cmd->name,
                           ": must be off, optional or required", NULL);
    }
    d->second_factor_set = 1;
    return NULL;
}

static const char *set_totp_skew(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;

    if (hsc_parse_count(arg, HSC_TOTP_SKEW_MAX, &d->totp_skew) != HSC_OK) {
        return apr_pstrcat(cmd->pool, cmd->cmd->name,
                           ": must be 0, 1 or 2 (TOTP steps accepted either "
                           "side of now)",
                           NULL);
    }
    d->totp_skew_set = 1;
    return NULL;
}

static const char *set_password_min(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;
    int n = 0;

    if (hsc_parse_count(arg, 256, &n) != HSC_OK
        || n < HSC_POLICY_MIN_WITH_FACTOR) {
        return apr_psprintf(cmd->pool,
                            "%s: must be a number of characters from %d "
                            "to 256",
                            cmd->cmd->name, HSC_POLICY_MIN_WITH_FACTOR);
    }
    d->password_min = n;
    d->password_min_set = 1;
    return NULL;
}

/* Loaded here, so that a missing or unreadable file stops the start. */
static const char *set_blocklist(cmd_parms *cmd, void *dv, const char *arg)
{
    hsc_dir_conf_t *d = dv;
    hsc_blocklist_t *b = NULL;
    char err[512];

    d->blocklist_set = 1;
    d->blocklist = NULL;
    if (!strcasecmp(arg, "none")) {
        return NULL;
    }
    if (hsc_blocklist_load(cmd->pool, ap_server_root_relative(cmd->pool, arg),
                           &b, err, sizeof(err))
        != HSC_OK) {
        return apr_pstrcat(cmd->pool, cmd->cmd->name, ": ", err, NULL);
    }
    d->blocklist = b;
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

/* --- main-server-only settings (hsc_global_conf_t) ------------------------ */

/* The global settings of the server a directive is read in, which must be
 * the main server; NULL and *err otherwise. */
static hsc_global_conf_t *global_of(cmd_parms *cmd, const char **err)
{
    *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    return *err != NULL ? NULL : hsc_srv_conf(cmd->server)->global;
}

/* A duration in [lo, hi] ms, in the one duration grammar of every
 * directive (hsc_parse_millis: 500ms, 2s, 2, 1m). */
static const char *set_millis(cmd_parms *cmd, const char *arg, int lo, int hi,
                              int *out)
{
    int64_t v;

    if (hsc_parse_millis(arg, lo, hi, &v) != HSC_OK) {
        return apr_psprintf(cmd->pool,
                            "%s: '%s' is not a duration from %dms to %dms "
                            "(e.g. 500ms, 1s, 1m)",
                            cmd->cmd->name, arg, lo, hi);
    }
    *out = (int)v;
    return NULL;
}

/* HSCUserDBPoolSize: PostgreSQL connections per child. */
static const char *set_pool_size(cmd_parms *cmd, void *dv, const char *arg)
{
    const char *err;
    hsc_global_conf_t *g = global_of(cmd, &err);
    int64_t n;

    (void)dv;
    if (g == NULL) {
        return err;
    }
    if (hsc_parse_size(arg, HSC_USERDB_POOL_SIZE_MIN, HSC_USERDB_POOL_SIZE_MAX,
                       &n)
        != HSC_OK) {
        return apr_psprintf(cmd->pool,
                            "HSCUserDBPoolSize: '%s' is not a number of "
                            "connections from %d to %d",
                            arg, HSC_USERDB_POOL_SIZE_MIN,
                            HSC_USERDB_POOL_SIZE_MAX);
    }
    g->pool_size = (int)n;
    return NULL;
}

/* HSCUserDBPoolWait: the longest wait for a free connection. */
static const char *set_pool_wait(cmd_parms *cmd, void *dv, const char *arg)
{
    const char *err;
    hsc_global_conf_t *g = global_of(cmd, &err);

    (void)dv;
    return g == NULL
               ? err
               : set_millis(cmd, arg, HSC_USERDB_POOL_WAIT_MIN_MS,
                            HSC_USERDB_POOL_WAIT_MAX_MS, &g->pool_wait_ms);
}

/* HSCUserDBTimeout: the statement timeout (and the client's bound). */
static const char *set_pool_timeout(cmd_parms *cmd, void *dv, const char *arg)
{
    const char *err;
    hsc_global_conf_t *g = global_of(cmd, &err);

    (void)dv;
    return g == NULL ? err
                     : set_millis(cmd, arg, HSC_USERDB_TIMEOUT_MIN_MS,
                                  HSC_USERDB_TIMEOUT_MAX_MS,
                                  &g->statement_timeout_ms);
}

/* HSCUserDBMaxStale: 0 turns the PostgreSQL lease off. */
static const char *set_max_stale(cmd_parms *cmd, void *dv, const char *arg)
{
    const char *err;
    hsc_global_conf_t *g = global_of(cmd, &err);

    (void)dv;
    return g == NULL
               ? err
               : set_millis(cmd, arg, HSC_USERDB_MAX_STALE_MIN_MS,
                            HSC_USERDB_MAX_STALE_MAX_MS, &g->max_stale_ms);
}

/* HSCAuditLog file | "|program": opened by mod_hsc_audit.c at open_logs. */
static const char *set_audit_log(cmd_parms *cmd, void *dv, const char *arg)
{
    const char *err;
    hsc_global_conf_t *g = global_of(cmd, &err);

    (void)dv;
    if (g == NULL) {
        return err;
    }
    if (*arg == '\0' || (*arg == '|' && arg[strspn(arg, "|$ \t")] == '\0')) {
        return "HSCAuditLog: name a file or a \"|program\"";
    }
    if (*arg != '|' && ap_server_root_relative(cmd->temp_pool, arg) == NULL) {
        return apr_pstrcat(cmd->pool, "HSCAuditLog: invalid path '", arg, "'",
                           NULL);
    }
    g->audit_log = arg;
    return NULL;
}

/* HSCActivityDB path | pgsql:conninfo: opened by each child on first use. */
static const char *set_activity_db(cmd_parms *cmd, void *dv, const char *arg)
{
    const char *err;
    hsc_global_conf_t *g = global_of(cmd, &err);
    char why[256];

    (void)dv;
    if (g == NULL) {
        return err;
    }
    if (hsc_store_spec_conninfo(arg) == NULL) {
        arg = ap_server_root_relative(cmd->pool, arg);
        if (arg == NULL) {
            return "HSCActivityDB: invalid path";
        }
    }
    else if (hsc_store_spec_check(arg, why, sizeof(why)) != HSC_OK) {
        return apr_pstrcat(cmd->pool, "HSCActivityDB: ", why, NULL);
    }
    g->activity_db = arg;
    return NULL;
}

/* HSCThrottleCache memcache-exact:host[:port][,host[:port]...] */
#define HSC_EXACT_NAME "memcache-exact"
#define HSC_EXACT_DEFAULT_PORT 11211
#define HSC_EXACT_MAX_SERVERS 16

/*
 * memcache-exact's servers: host[:port] separated by commas, as
 * mod_socache_memcache takes them; an address ([::1] for IPv6) or a
 * host name. NULL, or the error.
 */
static const char *exact_parse(cmd_parms *cmd, const char *args,
                               apr_array_header_t **out)
{
    apr_array_header_t *exact_servers;
    char *list, *item, *last;

    if (args == NULL || *args == '\0') {
        return "HSCThrottleCache: memcache-exact: name the memcached "
               "servers, memcache-exact:host[:port][,host[:port]...]";
    }
    exact_servers = apr_array_make(cmd->pool, 2, sizeof(hsc_exact_server_t));
    list = apr_pstrdup(cmd->temp_pool, args);
    for (item = apr_strtok(list, ",", &last); item != NULL;
         item = apr_strtok(NULL, ",", &last)) {
        hsc_exact_server_t *es;
        char *host = NULL, *scope = NULL;
        apr_port_t port = 0;
        apr_status_t rv = apr_parse_addr_port(&host, &scope, &port, item,
                                              cmd->pool);

        if (rv != APR_SUCCESS || host == NULL || scope != NULL) {
            return apr_psprintf(cmd->pool,
                                "HSCThrottleCache: memcache-exact: '%s' is "
                                "not host[:port]",
                                item);
        }
        if (exact_servers->nelts >= HSC_EXACT_MAX_SERVERS) {
            return "HSCThrottleCache: memcache-exact: at most 16 servers";
        }
        es = apr_array_push(exact_servers);
        es->host = host;
        es->port = port != 0 ? port : HSC_EXACT_DEFAULT_PORT;
    }
    if (exact_servers->nelts == 0) {
        return "HSCThrottleCache: memcache-exact: name the memcached servers";
    }
    *out = exact_servers;
    return NULL;
}

/*
 * HSCThrottleCache none | memcache-exact:servers | provider[:args]. The
 * provider must be loaded before this line; its arguments are checked
 * here (provider->create).
 */
static const char *set_throttle_cache(cmd_parms *cmd, void *dv, const char *arg)
{
    const char *err;
    hsc_global_conf_t *g = global_of(cmd, &err);
    const ap_socache_provider_t *prov;
    const char *sep, *name, *args = NULL;

    (void)dv;
    if (g == NULL) {
        return err;
    }
    g->throttle_exact = NULL;
    g->throttle_inst = NULL;
    if (!strcasecmp(arg, "none")) {
        g->throttle_cache = "none";
        g->throttle_cache_args = NULL;
        return NULL;
    }
    if (!strncasecmp(arg, HSC_EXACT_NAME ":", sizeof(HSC_EXACT_NAME))
        || !strcasecmp(arg, HSC_EXACT_NAME)) {
        err = exact_parse(cmd,
                          arg[sizeof(HSC_EXACT_NAME) - 1] == ':'
                              ? arg + sizeof(HSC_EXACT_NAME)
                              : NULL,
                          &g->throttle_exact);
        if (err != NULL) {
            return err;
        }
        g->throttle_cache = HSC_EXACT_NAME;
        g->throttle_cache_args = NULL;
        return NULL;
    }
    sep = strchr(arg, ':');
    if (sep != NULL) {
        name = apr_pstrmemdup(cmd->pool, arg, (apr_size_t)(sep - arg));
        args = sep + 1;
    }
    else {
        name = arg;
    }
    if (*name == '\0') {
        return "HSCThrottleCache: name a socache provider (shmcb, memcache, "
               "...) or none";
    }
    prov = ap_lookup_provider(AP_SOCACHE_PROVIDER_GROUP, name,
                              AP_SOCACHE_PROVIDER_VERSION);
    if (prov == NULL) {
        return apr_psprintf(cmd->pool,
                            "HSCThrottleCache: the socache provider '%s' is "
                            "not loaded (LoadModule socache_%s_module before "
                            "this line), or use none",
                            name, name);
    }
    err = prov->create(&g->throttle_inst, args, cmd->temp_pool, cmd->pool);
    if (err != NULL) {
        g->throttle_inst = NULL;
        return apr_psprintf(cmd->pool, "HSCThrottleCache: %s: %s", name, err);
    }
    g->throttle_cache = name;
    g->throttle_cache_args = args;
    return NULL;
}

/* HSCThrottleUnavailable allow | refuse. */
static const char *set_throttle_unavailable(cmd_parms *cmd, void *dv,
                                            const char *arg)
{
    const char *err;
    hsc_global_conf_t *g = global_of(cmd, &err);
    hsc_throttle_down_t v;

    (void)dv;
    if (g == NULL) {
        return err;
    }
    if (hsc_parse_throttle_down(arg, &v) != HSC_OK) {
        return "HSCThrottleUnavailable: allow or refuse";
    }
    g->throttle_refuse = v == HSC_THROTTLE_DOWN_REFUSE;
    return NULL;
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
    AP_INIT_TAKE1("HSCUserDBPoolSize", set_pool_size, NULL, RSRC_CONF,
                  "PostgreSQL connections per child process "
                  "(default " HSC_DEFAULT_USERDB_POOL_SIZE_TEXT ")"),
    AP_INIT_TAKE1("HSCUserDBPoolWait", set_pool_wait, NULL, RSRC_CONF,
                  "Longest wait for a free PostgreSQL connection before a "
                  "503 (default " HSC_DEFAULT_USERDB_POOL_WAIT_TEXT ")"),
    AP_INIT_TAKE1(
        "HSCUserDBTimeout", set_pool_timeout, NULL, RSRC_CONF,
        "PostgreSQL statement timeout (default " HSC_DEFAULT_USERDB_TIMEOUT_TEXT
        ")"),
    AP_INIT_TAKE1("HSCUserDBMaxStale", set_max_stale, NULL, RSRC_CONF,
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
    HSC_DIR_FLAG("HSCHealthDetails", set_health_details,
                 "On|Off: hsc-health shows the reason, version, key count "
                 "and store time (default " HSC_DEFAULT_HEALTH_DETAILS_TEXT
                 ")"),
    HSC_DIR_TAKE1("HSCRememberMe", set_remember,
                  "DURATION|Off: a \"keep me signed in\" box on the login "
                  "page; a login with it lasts DURATION, idle or not "
                  "(default " HSC_DEFAULT_REMEMBER_TEXT ")"),
    HSC_DIR_FLAG("HSCCookieFormat1", set_cookie_format1,
                 "On|Off: accept cookies of format 1, minted before an "
                 "upgrade (default " HSC_DEFAULT_COOKIE_FORMAT1_TEXT ")"),
    HSC_DIR_TAKE1("HSCScope", set_scope,
                  "Scope string bound into the MAC (default empty)"),
    HSC_DIR_FLAG("HSCBindAddress", set_bind_address,
                 "On|Off: bind cookies to the client address "
                 "(default " HSC_DEFAULT_BIND_ADDRESS_TEXT ")"),
    HSC_DIR_TAKE1("HSCLoginURL", set_login_url,
                  "Where browsers without a valid cookie are sent"),
    HSC_DIR_TAKE1(
        "HSCSecondFactor", set_second_factor,
        "off|optional|required: what a user without a second "
        "factor gets (a user with one is always asked for it): "
        "the password is enough (off, optional), or they must set "
        "one up first (required) (default " HSC_DEFAULT_SECOND_FACTOR_TEXT ")"),
    HSC_DIR_TAKE1("HSCAccountURL", set_account_url,
                  "Where the account page is: with HSCSecondFactor "
                  "required, a user without a second factor sets one up "
                  "there to finish the login (default none: refused)"),
    HSC_DIR_TAKE1(
        "HSCTOTPSkew", set_totp_skew,
        "0|1|2: TOTP steps (of the code's period) accepted either "
        "side of now at a code step here (default " HSC_DEFAULT_TOTP_SKEW_TEXT
        ")"),
    HSC_DIR_TAKE1("HSCSecondFactorMaxAge", set_factor_max_age,
                  "DURATION|Off: Require hsc-factor also wants the second "
                  "factor done within DURATION (default Off)"),
    HSC_DIR_TAKE1("HSCMaxAuthAge", set_max_auth_age,
                  "DURATION|Off: the password must have been entered within "
                  "DURATION here; an older login is asked for it again "
                  "(default Off)"),
    HSC_DIR_TAKE1(
        "HSCAccountRecentAuth", set_recent_auth,
        "DURATION: the account page asks for the password again "
        "before a factor change when the login (password or "
        "second factor) is older (default " HSC_DEFAULT_ACCOUNT_RECENT_AUTH_TEXT
        ")"),
    AP_INIT_TAKE2("HSCIdentityHeader", set_identity_header, NULL,
                  OR_AUTHCFG | RSRC_CONF,
                  "FIELD NAME: after authentication, the request header NAME "
                  "carries the user's FIELD (user, groups, login-time, "
                  "expires, methods, mfa-time, login-id); a client's NAME, in "
                  "any spelling, is removed first"),
    AP_INIT_ITERATE("HSCStripRequestHeaders", add_strip_header, NULL,
                    OR_AUTHCFG | RSRC_CONF,
                    "NAME...: request headers removed from the client's "
                    "request, in any case and with '_' for '-'"),
    HSC_DIR_TAKE1("HSCAuthzStyle", set_authz_style,
                  "auth-request|forward-auth: how the proxy in front asks "
                  "hsc-authz (default auth-request)"),
    AP_INIT_ITERATE("HSCAuthzTrustedProxy", add_authz_proxy, NULL,
                    OR_AUTHCFG | RSRC_CONF,
                    "ADDRESS[/BITS]...: the proxies hsc-authz answers; "
                    "any other client gets 403"),
    AP_INIT_ITERATE("HSCReturnHosts", add_return_host, NULL,
                    OR_AUTHCFG | RSRC_CONF,
                    "HOST[:PORT]...: hosts a login may go back to by an "
                    "absolute URL (the applications behind hsc-authz)"),
    HSC_DIR_TAKE1("HSCAcceptTokens", set_accept_tokens,
                  "Off|Basic|Bearer|Both: where this location takes an app "
                  "password from, besides the cookie (default Off)"),
    AP_INIT_ITERATE("HSCTokenScope", add_token_scope, NULL,
                    OR_AUTHCFG | RSRC_CONF,
                    "SCOPE...: an app password opens this location only "
                    "with every scope named (403 otherwise)"),
    HSC_DIR_FLAG("HSCBasicPassword", set_basic_password,
                 "On|Off: take the account password over HTTP Basic too "
                 "(throttled, cached per child; default Off)"),
    AP_INIT_TAKE1("HSCActivityDB", set_activity_db, NULL, RSRC_CONF,
                  "FILE|pgsql:CONNINFO: where the last use of each app "
                  "password is kept (default: not kept)"),
    AP_INIT_ITERATE("HSCAPIAllowOrigin", add_api_origin, NULL,
                    OR_AUTHCFG | RSRC_CONF,
                    "ORIGIN...: other sites whose pages may call hsc-api "
                    "with the cookie (CORS); default none"),
    HSC_DIR_FLAG("HSCPasskeys", set_passkeys,
                 "On|Off: passkey sign-in and registration at this login or "
                 "account page (default Off)"),
    HSC_DIR_TAKE1("HSCWebAuthnUserVerification", set_wa_uv,
                  "preferred|required|discouraged: user verification asked "
                  "of a passkey used as a second factor (default preferred)"),
    HSC_SRV_TAKE1("HSCWebAuthnRPID", set_wa_rp_id,
                  "Domain name passkeys are bound to (default: the "
                  "ServerName)"),
    AP_INIT_ITERATE("HSCWebAuthnOrigin", add_wa_origin, NULL, RSRC_CONF,
                    "ORIGIN...: origins whose pages may use passkeys "
                    "(default https://<RP ID>)"),
    HSC_SRV_TAKE1("HSCWebAuthnChallengeLifetime", set_wa_lifetime,
                  "How long a passkey challenge stays valid, 30 to 3600 "
                  "seconds (default " HSC_DEFAULT_WA_CHALLENGE_LIFETIME_TEXT
                  ")"),
    HSC_DIR_FLAG("HSCStripCookie", set_strip_cookie,
                 "On|Off: after authentication, remove this module's cookie "
                 "from the Cookie header sent on (default Off)"),
    HSC_DIR_TAKE1("HSCPasswordMinLength", set_password_min,
                  "Characters a new password needs at least, 8 to 256 "
                  "(default 15, or 8 for a user with a second factor)"),
    HSC_DIR_TAKE1("HSCPasswordBlocklist", set_blocklist,
                  "FILE|none: new passwords on this list (one a line) are "
                  "refused (default: the built-in list)"),
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
    AP_INIT_TAKE1("HSCAuditLog", set_audit_log, NULL, RSRC_CONF,
                  "File or |program that receives one JSON line per security "
                  "event (default: none)"),
    AP_INIT_TAKE1("HSCThrottleCache", set_throttle_cache, NULL, RSRC_CONF,
                  "none|provider[:args]: socache of the failed-login "
                  "counts (default " HSC_DEFAULT_THROTTLE_CACHE_TEXT ")"),
    AP_INIT_TAKE1("HSCThrottleUnavailable", set_throttle_unavailable, NULL,
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
