/*
 * users.c: hsc-admin's user commands (init, add, passwd, del, disable,
 * enable, revoke, groups, list, check) and the checks of their input.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <sys/stat.h>
#include <syslog.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <apr_general.h>
#include <apr_pools.h>

#include "hsc_util.h"
#include "hsc_b64.h"
#include "hsc_kdf.h"
#include "hsc_keys.h"
#include "hsc_keyfile.h"
#include "hsc_cookie.h"
#include "hsc_password.h"
#include "hsc_version.h"
#include "hsc_store.h"
#include "hsc_audit.h"
#include "hsc_defaults.h"
#include "hsc_parse.h"

#include "hsc_factors.h"
#include "hsc_policy.h"

#include "hsc_admin.h"

/* --- checks of input -------------------------------------------------------
 */

/* "" or comma-separated valid group names, each once. */
int check_groups(const char *groups)
{
    const char *bad;
    size_t n;

    switch (hsc_groups_check(groups, &bad, &n)) {
    case HSC_GROUPS_OK: return EX_OK;
    case HSC_GROUPS_TOO_LONG:
        return fail(EX_INPUT, "the list of groups is longer than 65535 bytes");
    case HSC_GROUPS_TWICE:
        return fail(EX_INPUT, "group \"%.*s\" listed twice", (int)n, bad);
    default:
        return fail(EX_INPUT,
                    "invalid group name \"%.*s\" (1-255 bytes, no comma, "
                    "space or control character)",
                    (int)n, bad ? bad : "");
    }
}

/* A new user's name: also no bidi or invisible characters, which make it
 * show as another name in lists and logs. */
int check_new_user(const char *user)
{
    int rc = check_user(user);

    if (rc == EX_OK && hsc_username_has_invisible(user, strlen(user))) {
        return fail(EX_INPUT,
                    "invalid username: it holds a bidirectional control or an "
                    "invisible character (U+200B, U+202E, ...), which would "
                    "make it look like another name");
    }
    return rc;
}

int check_kdf(const char *spec, hsc_kdf_t *k, int force)
{
    if (hsc_kdf_parse(spec, k) != HSC_OK) {
        return fail(EX_INPUT,
                    "malformed or out-of-range kdf SPEC \"%s\" "
                    "(sha256-chain:ITERATIONS or scrypt:N:r:p)",
                    spec);
    }
    if (!force && !hsc_kdf_within_ceiling(k)) {
        return fail(EX_INPUT,
                    "kdf SPEC \"%s\" is above the ceilings (sha256-chain: "
                    "20000000 steps; scrypt: 128*N*r at most 256 MiB, "
                    "128*N*r*p at most 512 MiB): every login would be a denial "
                    "of service, and mod_hsc refuses such logins; --force "
                    "stores it all the same",
                    spec);
    }
    return EX_OK;
}

int policy_prepare(apr_pool_t *pool, const args_t *a, policy_t *pol)
{
    const char *file = opt(a, OPT_BLOCKLIST);
    hsc_blocklist_t *b = NULL;
    char err[512];

    memset(pol, 0, sizeof(*pol));
    pol->off = (a->given & OPT_FORCE) != 0;
    if ((a->given & OPT_MIN_LENGTH)
        && (hsc_parse_count(opt(a, OPT_MIN_LENGTH), 256, &pol->min_chars)
                != HSC_OK
            || pol->min_chars < HSC_POLICY_MIN_WITH_FACTOR)) {
        return usage_error("--min-length: a number of characters from %d to "
                           "256",
                           HSC_POLICY_MIN_WITH_FACTOR);
    }
    if (file == NULL) {
        pol->list = hsc_blocklist_builtin(pool);
    }
    else if (strcmp(file, "none") != 0) {
        if (hsc_blocklist_load(pool, file, &b, err, sizeof(err)) != HSC_OK) {
            return fail(EX_FILE, "--blocklist: %s", err);
        }
        pol->list = b;
    }
    return EX_OK;
}

int policy_check(apr_pool_t *pool, const policy_t *pol, const char *user,
                 const char *pw, size_t len, int has_factor)
{
    int min = pol->min_chars ? pol->min_chars
              : has_factor   ? HSC_POLICY_MIN_WITH_FACTOR
                             : HSC_POLICY_MIN_ALONE;
    hsc_policy_verdict_t v;

    if (pol->off) {
        return EX_OK;
    }
    v = hsc_policy_check(pol->list, min, user, pw, len);
    if (v == HSC_POLICY_OK) {
        return EX_OK;
    }
    return fail(EX_INPUT,
                "%s: password refused: %s (--force sets it all the "
                "same)",
                user, hsc_policy_message(pool, v, min));
}

/* 1 when user has a second factor (the policy's 8 characters); 0 when
 * none, or when the factors cannot be read (15, the stricter). */
static int has_factor(const char *db, const char *user)
{
    hsc_factor_info_t fi;
    hsc_factors_t *f = NULL;
    char err[512];
    int any = 0;

    if (hsc_factors_open(db, 1, &f, err, sizeof(err)) != HSC_OK) {
        return 0;
    }
    if (hsc_factors_get(f, user, &fi) == HSC_OK) {
        any = hsc_factors_any(&fi);
    }
    hsc_wipe(&fi, sizeof(fi));
    hsc_factors_close(f);
    return any;
}

/* --- the store -------------------------------------------------------------
 */

int is_pgsql(const char *db)
{
    return hsc_store_spec_conninfo(db) != NULL;
}

int open_store(const char *db, int flags, hsc_store_t **ps)
{
    char err[512];
    hsc_status_t st;

    /* A path, or "pgsql:<conninfo>": every command takes either. */
    st = hsc_store_open(db, flags, ps, err, sizeof(err));
    if (st != HSC_OK) {
        return fail(EX_FILE, "%s", err[0] ? err : hsc_strerror(st));
    }
    return EX_OK;
}

/* Report a failed store call on user. */
int store_fail(hsc_store_t *s, const char *user, hsc_status_t st)
{
    audit_reason = st == HSC_ENOUSER     ? "no_such_user"
                   : st == HSC_EEXISTS   ? "user_exists"
                   : st == HSC_EREADONLY ? "read_only"
                                         : "store_fault";
    switch (st) {
    case HSC_ENOUSER: return fail(EX_INPUT, "%s: no such user", user);
    case HSC_EEXISTS: return fail(EX_INPUT, "%s: user already exists", user);
    case HSC_EREADONLY:
        return fail(EX_FILE, "the database is read-only for this user");
    default:
        return fail(store_exit(st), "%s: %s (%s)", user, hsc_strerror(st),
                    hsc_store_errmsg(s));
    }
}

/* The store id of s, for init's last line ("" when it cannot be read). */
static const char *init_store_id(hsc_store_t *s, char *id, size_t len)
{
    if (hsc_store_id(s, id, len) != HSC_OK) {
        id[0] = '\0';
    }
    return id;
}

int cmd_init(apr_pool_t *pool, const char *name, const args_t *a)
{
    (void)pool;
    (void)name;
    const char *db = a->pos[0];
    char id[HSC_STORE_ID_SIZE], err[512];
    hsc_factors_t *f = NULL;
    hsc_store_t *s = NULL;
    struct stat sb;
    int existed, fd, rc;

    if (is_pgsql(db)) {
        /* The schema files are applied under an advisory lock; an
         * existing database is migrated, never overwritten. */
        if ((rc = open_store(db, HSC_STORE_CREATE, &s)) != EX_OK) {
            return rc;
        }
        if (hsc_store_superuser(s)) {
            fprintf(stderr,
                    "hsc-admin: warning: connected as a PostgreSQL superuser: "
                    "the tables and the SECURITY DEFINER function belong to "
                    "it; run init as the admin role of "
                    "docs/several-servers.md\n");
        }
        init_store_id(s, id, sizeof(id));
        hsc_store_close(s);
        printf("pgsql: an hsc user database, schema up to date, store id "
               "%s\n",
               id[0] ? id : "unknown");
        return EX_OK;
    }
    existed = stat(db, &sb) == 0;
    if (!existed) {
        /* The file holds salts and authenticators: not for everyone to
         * read. SQLite gives its -wal and -shm the same mode. */
        fd = open(db, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0600);
        if (fd < 0) {
            return fail(EX_FILE, "%s: %s", db, strerror(errno));
        }
        fchmod(fd, 0600);
        close(fd);
    }
    rc = open_store(db, HSC_STORE_CREATE, &s);
    if (rc != EX_OK) {
        if (!existed) {
            unlink(db);
        }
        return rc;
    }
    /* An existing file of an older version was upgraded by the open
     * (version 2 adds the store id); its users are kept. */
    init_store_id(s, id, sizeof(id));
    hsc_store_close(s);
    /* The TOTP state file beside it, owned and moded like it. */
    if (hsc_factors_open(db, 0, &f, err, sizeof(err)) != HSC_OK) {
        return fail(EX_FILE, "%s", err);
    }
    hsc_factors_close(f);
    printf(existed ? "%s: already an hsc user database, up to date, store id "
                     "%s\n"
                   : "%s: initialized, store id %s\n",
           db, id[0] ? id : "unknown");
    return EX_OK;
}

int cmd_add(apr_pool_t *pool, const char *name, const args_t *a)
{
    (void)name;
    const char *db = a->pos[0], *user = a->pos[1];
    const char *groups = (a->given & OPT_GROUPS) ? opt(a, OPT_GROUPS) : "";
    const char *spec = (a->given & OPT_KDF) ? opt(a, OPT_KDF)
                                            : HSC_KDF_DEFAULT_SPEC;
    char pw[HSC_PASSWORD_MAX + 1];
    hsc_store_t *s = NULL;
    policy_t pol;
    hsc_user_t u;
    hsc_kdf_t k;
    hsc_status_t st;
    size_t pwlen = 0;
    int rc;

    if ((rc = check_new_user(user)) || (rc = check_groups(groups))
        || (rc = check_kdf(spec, &k, a->given & OPT_FORCE))
        || (rc = policy_prepare(pool, a, &pol))) {
        return rc;
    }
    if ((a->given & OPT_INVITE)
        && (a->given & (OPT_STDIN | OPT_POLICY | OPT_FORCE))) {
        return usage_error("--invite sets no password: no --password-stdin, "
                           "--min-length, --blocklist or --force");
    }
    if (!(a->given & OPT_INVITE) && (a->given & (OPT_TTL | OPT_URL))) {
        return usage_error("--ttl and --url go with --invite");
    }
    if ((rc = open_store(db, 0, &s)) != EX_OK) {
        return rc;
    }
    /* Refuse a duplicate before asking for a password. */
    st = hsc_store_get(s, user, strlen(user), &u);
    if (st != HSC_ENOUSER) {
        rc = st == HSC_OK ? fail(EX_INPUT, "%s: user already exists", user)
                          : store_fail(s, user, st);
        goto cleanup;
    }
    if (a->given & OPT_INVITE) {
        /* No password anybody knows: the invitation link sets one. */
        unsigned char r[24];
        st = hsc_random(r, sizeof(r));
        pwlen = hsc_b64url_encode(r, sizeof(r), pw);
        hsc_wipe(r, sizeof(r));
        if (st != HSC_OK) {
            rc = fail(EX_FILE, "no random bytes: %s", hsc_strerror(st));
            goto cleanup;
        }
    }
    else if ((rc = get_password(a->given & OPT_STDIN, 1, 0, pw, &pwlen))
                 != EX_OK
             || (rc = policy_check(pool, &pol, user, pw, pwlen, 0)) != EX_OK) {
        goto cleanup;
    }
    memset(&u, 0, sizeof(u));
    u.name = user;
    u.name_len = strlen(user);
    u.groups = groups;
    st = hsc_password_make(&k, pw, pwlen, &u);
    if (st != HSC_OK) {
        rc = fail(store_exit(st), "cannot hash the password: %s",
                  hsc_strerror(st));
        goto cleanup;
    }
    st = hsc_store_add(s, &u);
    if (st != HSC_OK) {
        rc = store_fail(s, user, st);
        goto cleanup;
    }
    if (a->given & OPT_INVITE) {
        /* The link is all it prints: a script mails it. */
        rc = link_issue(pool, a, db, user, HSC_LINK_INVITE);
        goto cleanup;
    }
    printf("%s: added\n", user);

cleanup:
    hsc_wipe(pw, sizeof(pw));
    hsc_wipe(&u, sizeof(u));
    hsc_store_close(s);
    return rc;
}

int cmd_passwd(apr_pool_t *pool, const char *name, const args_t *a)
{
    (void)name;
    const char *db = a->pos[0], *user = a->pos[1];
    const char *spec = (a->given & OPT_KDF) ? opt(a, OPT_KDF)
                                            : HSC_KDF_DEFAULT_SPEC;
    char pw[HSC_PASSWORD_MAX + 1];
    hsc_store_t *s = NULL;
    policy_t pol;
    hsc_user_t u;
    hsc_kdf_t k;
    hsc_status_t st;
    size_t pwlen = 0;
    int rc;

    if ((rc = check_user(user))
        || (rc = check_kdf(spec, &k, a->given & OPT_FORCE))
        || (rc = policy_prepare(pool, a, &pol))) {
        return rc;
    }
    if ((rc = open_store(db, 0, &s)) != EX_OK) {
        return rc;
    }
    st = hsc_store_get(s, user, strlen(user), &u);
    if (st != HSC_OK) {
        rc = store_fail(s, user, st);
        goto cleanup;
    }
    rc = get_password(a->given & OPT_STDIN, 1, 0, pw, &pwlen);
    if (rc != EX_OK
        || (rc = policy_check(pool, &pol, user, pw, pwlen,
                              has_factor(db, user)))
               != EX_OK) {
        goto cleanup;
    }
    memset(&u, 0, sizeof(u));
    st = hsc_password_make(&k, pw, pwlen, &u);
    if (st != HSC_OK) {
        rc = fail(store_exit(st), "cannot hash the password: %s",
                  hsc_strerror(st));
        goto cleanup;
    }
    st = hsc_store_set_password(s, user, u.salt, &u.kdf, u.authenticator);
    if (st != HSC_OK) {
        rc = store_fail(s, user, st);
        goto cleanup;
    }
    printf("%s: password changed; earlier cookies no longer work\n", user);

cleanup:
    hsc_wipe(pw, sizeof(pw));
    hsc_wipe(&u, sizeof(u));
    hsc_store_close(s);
    return rc;
}

/* del, disable, enable, revoke: one user, one write. */
int cmd_simple(apr_pool_t *pool, const char *cmd, const args_t *a)
{
    (void)pool;
    const char *db = a->pos[0], *user = a->pos[1];
    hsc_store_t *s = NULL;
    hsc_status_t st;
    char when[32];
    int64_t now = (int64_t)time(NULL);
    int rc;

    if ((rc = check_user(user)) || (rc = open_store(db, 0, &s))) {
        return rc;
    }
    if (strcmp(cmd, "del") == 0) {
        st = hsc_store_del(s, user);
    }
    else if (strcmp(cmd, "disable") == 0) {
        st = hsc_store_set_disabled(s, user, 1);
    }
    else if (strcmp(cmd, "enable") == 0) {
        st = hsc_store_set_disabled(s, user, 0);
    }
    else if ((st = hsc_store_revoke_user(s, user, now)) == HSC_EREADONLY) {
        /* A role that may revoke but has no right on the links (the
         * httpd role of several-servers.md): revoked, links kept. */
        st = hsc_store_revoke_now(s, user, now);
        if (st == HSC_OK) {
            fprintf(stderr,
                    "hsc-admin: %s: one-time links kept: this database "
                    "user cannot delete them (hsc-admin link DB %s --revoke "
                    "as the admin role)\n",
                    user, user);
        }
    }
    if (st != HSC_OK) {
        rc = store_fail(s, user, st);
    }
    else if (strcmp(cmd, "del") == 0) {
        printf("%s: deleted\n", user);
    }
    else if (strcmp(cmd, "disable") == 0) {
        printf("%s: disabled; cookies and logins are refused\n", user);
    }
    else if (strcmp(cmd, "enable") == 0) {
        printf("%s: enabled\n", user);
    }
    else {
        printf("%s: cookies issued before %s are refused\n", user,
               utc(now, when, sizeof(when)));
    }
    hsc_store_close(s);
    return rc;
}

int cmd_groups(apr_pool_t *pool, const char *name, const args_t *a)
{
    (void)pool;
    (void)name;
    const char *db = a->pos[0], *user = a->pos[1];
    hsc_store_t *s = NULL;
    hsc_user_t u;
    hsc_status_t st;
    int rc;

    if ((rc = check_user(user))) {
        return rc;
    }
    if (a->npos == 3 && (rc = check_groups(a->pos[2]))) {
        return rc;
    }
    rc = open_store(db, a->npos == 2 ? HSC_STORE_READONLY : 0, &s);
    if (rc != EX_OK) {
        return rc;
    }
    if (a->npos == 2) {
        st = hsc_store_get(s, user, strlen(user), &u);
        if (st == HSC_OK) {
            printf("%s\n", u.groups);
        }
    }
    else {
        st = hsc_store_set_groups(s, user, a->pos[2]);
        if (st == HSC_OK) {
            printf("%s: groups %s\n", user,
                   a->pos[2][0] ? a->pos[2] : "cleared");
        }
    }
    if (st != HSC_OK) {
        rc = store_fail(s, user, st);
    }
    hsc_store_close(s);
    return rc;
}

/* One line a user, fields separated by tabs (names have no controls;
 * bidi and invisible characters are shown as \u{XXXX}). */
static int list_one(void *baton, const hsc_user_t *u)
{
    char spec[HSC_KDF_SPEC_MAX], rb[32], up[32];
    char name[8 * HSC_USER_MAX + 1];

    (void)baton;
    hsc_kdf_format(&u->kdf, spec, sizeof(spec));
    hsc_username_escape(u->name, u->name_len, name);
    printf("%s\t%s\t%s\t%s\t%s\t%s\n", name, u->groups[0] ? u->groups : "-",
           u->disabled ? "disabled" : "enabled", spec,
           u->revoked_before > 0 ? utc(u->revoked_before, rb, sizeof(rb)) : "-",
           utc(u->updated, up, sizeof(up)));
    return 0;
}

int cmd_list(apr_pool_t *pool, const char *name, const args_t *a)
{
    (void)pool;
    (void)name;
    hsc_store_t *s = NULL;
    hsc_status_t st;
    int rc;

    if ((rc = open_store(a->pos[0], HSC_STORE_READONLY, &s)) != EX_OK) {
        return rc;
    }
    st = hsc_store_list(s, list_one, NULL);
    if (st != HSC_OK) {
        rc = fail(EX_FILE, "list: %s (%s)", hsc_strerror(st),
                  hsc_store_errmsg(s));
    }
    hsc_store_close(s);
    return rc;
}

int cmd_check(apr_pool_t *pool, const char *name, const args_t *a)
{
    (void)pool;
    (void)name;
    const char *db = a->pos[0], *user = a->pos[1];
    char pw[HSC_PASSWORD_MAX + 1];
    unsigned char xn[HSC_XN_LEN];
    hsc_store_t *s = NULL;
    hsc_user_t u;
    hsc_kdf_t dummy;
    hsc_status_t st;
    size_t pwlen = 0;
    int rc;

    if ((rc = check_user(user))) {
        return rc;
    }
    if ((rc = open_store(db, HSC_STORE_READONLY, &s)) != EX_OK) {
        return rc;
    }
    rc = get_password(a->given & OPT_STDIN, 0, 1, pw, &pwlen);
    if (rc != EX_OK) {
        goto cleanup;
    }
    /* A local tool has no timing to hide: the cheapest dummy. */
    if (hsc_kdf_parse("sha256-chain:1", &dummy) != HSC_OK) {
        rc = fail(EX_FILE, "the dummy KDF sha256-chain:1 does not parse");
        goto cleanup;
    }
    st = hsc_password_check(s, user, strlen(user), pw, pwlen, &dummy, xn, &u);
    switch (st) {
    case HSC_OK:
        printf("%s: password ok\n", user);
        rc = EX_OK;
        break;
    case HSC_EAUTH: rc = fail(EX_REFUSED, "%s: wrong password", user); break;
    case HSC_EDISABLED:
        rc = fail(EX_REFUSED, "%s: user is disabled", user);
        break;
    case HSC_EKDFLIMIT: {
        char spec[HSC_KDF_SPEC_MAX];
        hsc_kdf_format(&u.kdf, spec, sizeof(spec));
        rc = fail(EX_REFUSED,
                  "%s: the stored kdf %s is above the ceilings and is never "
                  "run (hsc-admin passwd to reset it)",
                  user, spec);
        break;
    }
    default: rc = store_fail(s, user, st); break;
    }

cleanup:
    hsc_wipe(pw, sizeof(pw));
    hsc_wipe(xn, sizeof(xn));
    hsc_store_close(s);
    return rc;
}
