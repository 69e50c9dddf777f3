/*
 * mod_hsc_preflight.c: deployment mistakes that would otherwise show up only
 * as a failed login, said plainly and early.
 *
 * - At `apache2ctl -t` and at startup: the server's User must be able to
 *   read the user database and its -wal/-shm files (or create those), or
 *   every request gets 503; a database made by root otherwise passed the
 *   configuration test. One it can read but not write is a warning.
 * - Per request: a Secure cookie set over plain http is dropped by the
 *   browser, so the login looks like it failed. Warned once per child.
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
#include "mod_hsc.h"

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

int hsc_check_db_access(apr_pool_t *ptemp, server_rec *main_s)
{
    server_rec *s;
    apr_hash_t *seen = apr_hash_make(ptemp);
    int bad = 0;

    for (s = main_s; s != NULL; s = s->next) {
        const hsc_srv_conf_t *sc = ap_get_module_config(s->module_config,
                                                        &hsc_module);
        /* A pgsql: store is no file: its reachability is the child's
         * business (HSC180), not a permission of the server's User. */
        if (sc->userdb == NULL
            || !strncmp(sc->userdb, HSC_STORE_PGSQL_PREFIX,
                        sizeof(HSC_STORE_PGSQL_PREFIX) - 1)
            || apr_hash_get(seen, sc->userdb, APR_HASH_KEY_STRING)) {
            continue;
        }
        apr_hash_set(seen, sc->userdb, APR_HASH_KEY_STRING, "");
        bad |= check_one_db(ptemp, s, sc->userdb);
    }
    return bad;
}

/* --- Secure cookies over plain http -------------------------------------- */

/* 1 when the request's first X-Forwarded-Proto value is https. */
static int forwarded_https(request_rec *r)
{
    const char *v = apr_table_get(r->headers_in, "X-Forwarded-Proto");

    return v != NULL && !strncasecmp(v, "https", 5)
           && (v[5] == '\0' || v[5] == ',' || v[5] == ' ');
}

/*
 * The browser keeps a Secure cookie only from https (or from localhost).
 * TLS here is ap_http_scheme(): mod_ssl, or `ServerName https://...` for a
 * server behind a TLS proxy. X-Forwarded-Proto counts only from a proxy
 * that mod_remoteip trusts (it replaced the client address).
 */
void hsc_warn_insecure_cookie(request_rec *r, const hsc_dir_conf_t *d)
{
    static apr_uint32_t warned;
    const char *host = r->hostname;
    size_t n;

    if (!d->secure || !strcmp(ap_http_scheme(r), "https")) {
        return;
    }
    if (host != NULL) {
        n = strlen(host);
        if (!strcasecmp(host, "localhost")
            || (n > 10 && !strcasecmp(host + n - 10, ".localhost"))) {
            return;
        }
    }
    if (forwarded_https(r) && r->useragent_ip != NULL
        && r->connection->client_ip != NULL
        && strcmp(r->useragent_ip, r->connection->client_ip) != 0) {
        return;
    }
    if (apr_atomic_cas32(&warned, 1, 0) != 0) {
        return;
    }
    ap_log_rerror(
        APLOG_MARK, APLOG_WARNING, 0, r,
        HSCLOGNO(141) "the %s cookie is Secure but this request came over "
                      "plain http: the browser will drop it and the user will "
                      "seem not logged in. Serve the site over https; behind a "
                      "TLS proxy use ServerName https://%s or trust the "
                      "proxy's X-Forwarded-Proto with mod_remoteip "
                      "(RemoteIPInternalProxy); HSCCookieSecure Off only for "
                      "testing (said once per child)",
        d->cookie_name, host != NULL ? host : "your.host");
}
