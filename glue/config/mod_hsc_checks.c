/*
 * mod_hsc_checks.c: configuration mistakes said at `httpd -t` and at
 * startup, before they show up as a failed login or a 500.
 *
 * - check_config: the cookie rules on the merged configuration of every
 *   section (and HSCSecondFactor only with an SQLite user database); AuthType
 * HSC only where a key file and a user database are set; the server's User must
 * be able to read the user database and its -wal/-shm files (or create those),
 * or every request gets 503 (one it can read but not write is a warning).
 * - test_config and post_config: the key file's warnings (HSC003).
 */
#include <errno.h>
#include <grp.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apr_atomic.h"
#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "unixd.h"

#include "mod_hsc_log.h"
#include "mod_hsc_checks.h"
#include "mod_hsc_config.h"
#include "hsc_store.h"
#include "hsc_store_sqlite.h"
#include "hsc_wa_ceremony.h"

/* --- the user database, as the server's User ----------------------------- */

/*
 * What the children need, in order: the first three are required (without
 * them every lookup fails: 503), the rest only for writes ("log out
 * everywhere"): a read-only database is a supported setup (schema.md).
 */
enum {
    NEED_READ_DB,  /* read the database */
    NEED_READ_WAL, /* read the -wal and -shm files, where they exist */
    NEED_READ_SHM,
    NEED_DIR,      /* create them, where they do not */
    NEED_WRITE_DB, /* write the database, -wal and -shm */
    NEED_WRITE_WAL,
    NEED_WRITE_SHM,
    NEED_N,
    NEED_FIRST_WRITE = NEED_WRITE_DB
};

typedef struct {
    const char *path[NEED_N];
    int mode[NEED_N];
    int skip[NEED_N]; /* 1: not needed (the file is absent, or present) */
} db_needs_t;

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 || errno != ENOENT;
}

static void db_needs(apr_pool_t *p, const char *db, db_needs_t *n)
{
    const char *slash = strrchr(db, '/');
    const char *dir = slash == NULL ? "."
                      : slash == db
                          ? "/"
                          : apr_pstrndup(p, db, (apr_size_t)(slash - db));
    const char *wal = apr_pstrcat(p, db, "-wal", NULL);
    const char *shm = apr_pstrcat(p, db, "-shm", NULL);
    int have_wal = exists(wal), have_shm = exists(shm);
    const db_needs_t tmpl = {{db, wal, shm, dir, db, wal, shm},
                             {R_OK, R_OK, R_OK, W_OK | X_OK, W_OK, W_OK, W_OK},
                             {0, !have_wal, !have_shm, have_wal && have_shm, 0,
                              !have_wal, !have_shm}};

    *n = tmpl;
}

/* The first need access(2) denies, or NEED_N. */
static int first_denied_here(const db_needs_t *n)
{
    int i;

    for (i = 0; i < NEED_N; ++i) {
        if (!n->skip[i] && access(n->path[i], n->mode[i]) != 0) {
            return i;
        }
    }
    return NEED_N;
}

/*
 * The first need the server's User is denied, NEED_N when none, -1 when this
 * could not be checked. As root the test runs in a child that has become the
 * server's User and Group (with the user's other groups), as httpd's
 * children will; otherwise httpd's children are this process's user.
 */
static int first_denied(const db_needs_t *n)
{
    int status;
    pid_t pid;

    if (geteuid() != 0) {
        return first_denied_here(n);
    }
    if (ap_unixd_config.user_id == (uid_t)-1) {
        return NEED_N; /* no User: httpd itself refuses to start as root */
    }
    pid = fork();
    if (pid < 0) {
        return -1;
    }
    if (pid == 0) {
        const char *name = ap_unixd_config.user_name;
        gid_t gid = ap_unixd_config.group_id;
        if (name == NULL || name[0] == '#' ? setgroups(1, &gid) != 0
                                           : initgroups(name, gid) != 0) {
            _exit(100);
        }
        if (setgid(gid) != 0 || setuid(ap_unixd_config.user_id) != 0
            || getuid() == 0) {
            _exit(100);
        }
        _exit(first_denied_here(n));
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            return -1;
        }
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) > NEED_N) {
        return -1;
    }
    return WEXITSTATUS(status);
}

/* 0, or -1 after logging HSC140 for one database (HSC143: read-only). */
static int check_one_db(apr_pool_t *p, server_rec *s, const char *db)
{
    db_needs_t n;
    const char *user, *group, *dir, *what, *fix;
    int bad;

    db_needs(p, db, &n);
    bad = first_denied(&n);
    if (bad == NEED_N) {
        return 0;
    }
    if (bad < 0) {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_WARNING, 0, s,
                     HSCLOGNO(142) "cannot check whether the server's User may "
                                   "read and write the user database %s",
                     db);
        return 0;
    }
    if (geteuid() == 0) {
        user = ap_unixd_config.user_name;
        group = ap_unixd_config.group_name;
    }
    else {
        user = apr_psprintf(p, "#%ld", (long)geteuid());
        group = apr_psprintf(p, "#%ld", (long)getegid());
    }
    dir = n.path[NEED_DIR];
    fix = apr_psprintf(p,
                       "chown %s:%s %s %s*; and run hsc-admin as that user "
                       "(runuser -u %s -- hsc-admin ..., or sudo -u %s "
                       "hsc-admin ...)",
                       user, group, dir, db, user, user);
    if (bad >= NEED_FIRST_WRITE) {
        ap_log_error(
            APLOG_MARK, APLOG_STARTUP | APLOG_WARNING, 0, s,
            HSCLOGNO(143) "HSCUserDB %s is read-only for the server's User %s "
                          "(cannot write %s): logins and cookies work, but "
                          "\"log out everywhere\" cannot revoke cookies. To "
                          "allow it: %s",
            db, user, n.path[bad], fix);
        return 0;
    }
    what = bad == NEED_DIR
               ? apr_psprintf(p, "create the -wal and -shm files in %s", dir)
               : apr_psprintf(p, "read %s", n.path[bad]);
    ap_log_error(
        APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s,
        HSCLOGNO(140) "HSCUserDB %s: the server's User %s cannot %s, so every "
                      "login and cookie would get 503. Give the database and "
                      "its directory to the server: %s",
        db, user, what, fix);
    return -1;
}

static int check_db_access(apr_pool_t *ptemp, server_rec *main_s)
{
    server_rec *s;
    apr_hash_t *seen = apr_hash_make(ptemp);
    int bad = 0;

    for (s = main_s; s != NULL; s = s->next) {
        const hsc_srv_conf_t *sc = hsc_srv_conf(s);
        /* A pgsql: store is no file: its reachability is the child's
         * business (HSC180), not a permission of the server's User. */
        if (sc->userdb == NULL || hsc_store_spec_conninfo(sc->userdb) != NULL
            || apr_hash_get(seen, sc->userdb, APR_HASH_KEY_STRING)) {
            continue;
        }
        apr_hash_set(seen, sc->userdb, APR_HASH_KEY_STRING, "");
        bad |= check_one_db(ptemp, s, sc->userdb);
        if (hsc_store_sqlite_is_version1(sc->userdb)) {
            ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_WARNING, 0, s,
                         HSCLOGNO(187) "HSCUserDB %s has schema version 1 (no "
                                       "store id): failed logins per username "
                                       "are counted under the path as written "
                                       "until \"hsc-admin init\" upgrades it",
                         sc->userdb);
        }
    }
    return bad;
}

/* --- cookie rules and AuthType, per section ------------------------------ */

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
    hsc_cookie_attrs_t attrs;
    const char *problem;

    if (d == NULL) {
        return 0;
    }
    if (base != NULL) {
        d = hsc_merge_dir_conf(p, (void *)base, (void *)d);
    }
    attrs = hsc_cookie_attrs(d);
    problem = hsc_cookie_attrs_conflict(&attrs);
    if (problem == NULL) {
        return 0;
    }
    if (s->is_virtual) {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s,
                     HSCLOGNO(007) "%s (in %s of the virtual host at %s:%d)",
                     problem, what, s->defn_name ? s->defn_name : "?",
                     s->defn_line_number);
    }
    else {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s,
                     HSCLOGNO(001) "%s (in %s of the main server)", problem,
                     what);
    }
    return -1;
}

/* Check the server context and every Directory, Location, Files section. */
static int check_sections(apr_pool_t *p, server_rec *s)
{
    core_server_config *core = ap_get_core_module_config(s->module_config);
    const hsc_dir_conf_t *base = ap_get_module_config(s->lookup_defaults,
                                                      &hsc_module);
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
int hsc_directive_arg_is(const ap_directive_t *d, const char *word)
{
    const char *a = d->args;
    size_t n = strlen(word);

    if (a == NULL) {
        return 0;
    }
    a += (*a == '"' || *a == '\'');
    return !strncasecmp(a, word, n) && strchr("\"' \t", a[n]) != NULL;
}

static int check_authtype_uses(const ap_directive_t *d, server_rec *main_s,
                               server_rec *cur)
{
    int bad = 0;

    for (; d != NULL; d = d->next) {
        if (!strcasecmp(d->directive, "AuthType")
            && hsc_directive_arg_is(d, HSC_AUTH_TYPE)) {
            const hsc_srv_conf_t *sc = hsc_srv_conf(cur);
            if (sc->keys == NULL || sc->userdb == NULL) {
                ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, cur,
                             HSCLOGNO(002) "AuthType HSC at %s:%d, but %s "
                                           "is not set for this server",
                             d->filename, d->line_num,
                             sc->keys == NULL ? "HSCKeyFile" : "HSCUserDB");
                bad = -1;
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

/* --- WebAuthn: the RP ID and origins of each server -------------------- */

/* 1 when a section of s (or its server context) has HSCPasskeys On. */
static int passkeys_used(server_rec *s)
{
    core_server_config *core = ap_get_core_module_config(s->module_config);
    const hsc_dir_conf_t *d = ap_get_module_config(s->lookup_defaults,
                                                   &hsc_module);
    apr_array_header_t *arrs[2];
    int i, j;

    if (d != NULL && d->passkeys) {
        return 1;
    }
    arrs[0] = core->sec_dir;
    arrs[1] = core->sec_url;
    for (i = 0; i < 2; ++i) {
        ap_conf_vector_t **secs = (ap_conf_vector_t **)arrs[i]->elts;
        for (j = 0; j < arrs[i]->nelts; ++j) {
            d = ap_get_module_config(secs[j], &hsc_module);
            if (d != NULL && d->passkeys_set && d->passkeys) {
                return 1;
            }
        }
    }
    return 0;
}

/*
 * The RP ID (HSCWebAuthnRPID, else the ServerName) is a domain name and
 * every HSCWebAuthnOrigin is on it; checked where passkeys are on, and
 * wherever an RP ID or origin was written. 0 or -1 (logged).
 */
static int check_webauthn(server_rec *s)
{
    const hsc_srv_conf_t *sc = hsc_srv_conf(s);
    const char *rp = sc->wa_rp_id != NULL ? sc->wa_rp_id : s->server_hostname;
    char why[160];
    int i, bad = 0;

    if (!sc->wa_rp_id_set && !sc->wa_origins_set && !passkeys_used(s)) {
        return 0;
    }
    if (hsc_wa_rp_id_check(rp, why, sizeof(why)) != HSC_OK) {
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s,
                     HSCLOGNO(281) "HSCWebAuthnRPID: '%s' (%s) cannot be "
                                   "the RP ID of passkeys: %s",
                     rp ? rp : "", sc->wa_rp_id ? "set" : "the ServerName",
                     why);
        return -1;
    }
    for (i = 0; sc->wa_origins != NULL && i < sc->wa_origins->nelts; i++) {
        const char *o = APR_ARRAY_IDX(sc->wa_origins, i, const char *);
        if (hsc_wa_origin_check(o, rp, why, sizeof(why)) != HSC_OK) {
            ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_EMERG, 0, s,
                         HSCLOGNO(282) "HSCWebAuthnOrigin: '%s' does not "
                                       "fit the RP ID '%s': %s",
                         o, rp, why);
            bad = -1;
        }
    }
    return bad;
}

/* Runs for `httpd -t` as well as at startup, before test_config. */
static int checks_check_config(apr_pool_t *pconf, apr_pool_t *plog,
                               apr_pool_t *ptemp, server_rec *main_s)
{
    server_rec *s;
    int bad = 0;

    (void)pconf;
    (void)plog;
    for (s = main_s; s != NULL; s = s->next) {
        bad |= check_sections(ptemp, s);
        bad |= check_webauthn(s);
    }
    bad |= check_authtype_uses(ap_conftree, main_s, main_s);
    bad |= check_db_access(ptemp, main_s);
    return bad ? !OK : OK;
}

/* --- the key file's warnings ---------------------------------------------- */

/*
 * The key file's warning (mode too open), once per server that has its own
 * (vhosts inherit the main server's). flags: APLOG_STARTUP for `httpd -t`,
 * whose output has no error log prefix. One call site, so one tag.
 */
static void log_key_warning(server_rec *s, const hsc_srv_conf_t *sc,
                            const char **warned, int flags)
{
    if (sc->key_warning != NULL && sc->key_warning != *warned) {
        ap_log_error(APLOG_MARK, flags | APLOG_WARNING, 0, s,
                     HSCLOGNO(003) "%s", sc->key_warning);
        *warned = sc->key_warning;
    }
}

/*
 * `httpd -t` (and apachectl configtest) only: the key file warnings that a
 * start logs in post_config (HSC003), which a configuration test never
 * reaches, so that the test shows them too.
 */
static void checks_test_config(apr_pool_t *pconf, server_rec *main_s)
{
    const char *warned = NULL;
    server_rec *s;

    (void)pconf;
    for (s = main_s; s != NULL; s = s->next) {
        log_key_warning(s, hsc_srv_conf(s), &warned, APLOG_STARTUP);
    }
}

/* At each (re)start, not in the first of httpd's two passes. */
static int checks_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                              apr_pool_t *ptemp, server_rec *main_s)
{
    const char *warned = NULL;
    server_rec *s;

    (void)pconf;
    (void)plog;
    (void)ptemp;
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG) {
        return OK;
    }
    for (s = main_s; s != NULL; s = s->next) {
        log_key_warning(s, hsc_srv_conf(s), &warned, 0);
    }
    return OK;
}

void hsc_checks_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_check_config(checks_check_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_test_config(checks_test_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(checks_post_config, NULL, NULL, APR_HOOK_MIDDLE);
}
