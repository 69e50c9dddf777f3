/*
 * hsc-admin: the htpasswd of mod_hsc. Manages the SQLite user store and the
 * key file, and explains why a cookie is accepted or refused.
 * The command reference and exit codes are in docs/hsc-admin.md.
 *
 * Passwords are read from the terminal (twice, without echo) or, with
 * --password-stdin, as one line from standard input; never from the command
 * line. Every buffer that held a password, an x_n or a key is wiped.
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

/* Exit codes (docs/hsc-admin.md). */
#define EX_OK 0 /* done; for check and inspect: accepted */
#define EX_REFUSED                                                             \
    1              /* check or inspect refused: wrong password, disabled       \
                      user, invalid cookie */
#define EX_USAGE 2 /* bad command line */
#define EX_INPUT                                                               \
    3 /* no such user, user exists, invalid username, group,                   \
         SPEC, key id, password or cookie text */
#define EX_FILE                                                                \
    4 /* database or key file missing, unreadable, foreign,                    \
         corrupt, locked, read-only; or a system failure */

/* Key files are small; anything bigger is not one. */
#define KEYFILE_MAX (1024 * 1024)
/* inspect checks times as mod_hsc does by default (HSCMaxAge,
 * HSCClockSkew). */
#define INSPECT_MAX_AGE HSC_DEFAULT_MAX_AGE
#define INSPECT_SKEW HSC_DEFAULT_CLOCK_SKEW

/* The usage, generated from the command table (bottom of this file). */
static void print_usage(FILE *f);

/* --- messages --------------------------------------------------------------
 */

static int fail(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Print "hsc-admin: <message>" on stderr and return code. */
static int fail(int code, const char *fmt, ...)
{
    va_list ap;

    fputs("hsc-admin: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return code;
}

static int usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
    va_list ap;

    fputs("hsc-admin: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    print_usage(stderr);
    return EX_USAGE;
}

/* The exit code a status deserves: the core's classification
 * (hsc_status_class), as the module's log level and HTTP status are. */
static int store_exit(hsc_status_t st)
{
    switch (hsc_status_class(st)) {
    case HSC_CLASS_OK: return EX_OK;
    case HSC_CLASS_REFUSAL:
        /* Naming a user who does not exist is bad input to this tool. */
        return st == HSC_ENOUSER ? EX_INPUT : EX_REFUSED;
    case HSC_CLASS_FORGERY: return EX_INPUT;
    case HSC_CLASS_FAULT: break;
    }
    return EX_FILE;
}

/* Unix seconds as an ISO 8601 UTC date into buf (32 bytes). */
static const char *utc(int64_t t, char *buf, size_t len)
{
    time_t tt = (time_t)t;
    struct tm tm;

    if (gmtime_r(&tt, &tm) == NULL
        || strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) {
        snprintf(buf, len, "?");
    }
    return buf;
}

/* --- the command line ------------------------------------------------------
 */

enum {
    OPT_GROUPS = 1 << 0,
    OPT_KDF = 1 << 1,
    OPT_STDIN = 1 << 2,
    OPT_KID = 1 << 3,
    OPT_KEYS = 1 << 4,
    OPT_DB = 1 << 5,
    OPT_SCOPE = 1 << 6,
    OPT_ADDRESS = 1 << 7,
    OPT_NOW = 1 << 8,
    OPT_SKEW = 1 << 9,
    OPT_MAX_AGE = 1 << 10,
    OPT_FORCE = 1 << 11,
    OPT_VERIFY_ONLY = 1 << 12,
    OPT_SIGN = 1 << 13,
    OPT_RETIRE = 1 << 14,
    OPT_AUDIT_LOG = 1 << 15,
    OPT_AUDIT_SYSLOG = 1 << 16
};
/* The commands that change a user through the store are audited. */
#define OPT_AUDIT (OPT_AUDIT_LOG | OPT_AUDIT_SYSLOG)

static const struct {
    const char *name; /* without the leading "--" */
    int bit;
    int takes_value;
} options[] = {
    {"groups", OPT_GROUPS, 1},
    {"kdf", OPT_KDF, 1},
    {"password-stdin", OPT_STDIN, 0},
    {"kid", OPT_KID, 1},
    {"keys", OPT_KEYS, 1},
    {"db", OPT_DB, 1},
    {"scope", OPT_SCOPE, 1},
    {"address", OPT_ADDRESS, 1},
    {"now", OPT_NOW, 1},
    {"skew", OPT_SKEW, 1},
    {"max-age", OPT_MAX_AGE, 1},
    {"force", OPT_FORCE, 0},
    {"verify-only", OPT_VERIFY_ONLY, 0},
    {"sign", OPT_SIGN, 1},
    {"retire", OPT_RETIRE, 1},
    {"audit-log", OPT_AUDIT_LOG, 1},
    {"audit-syslog", OPT_AUDIT_SYSLOG, 0},
};
#define NOPTIONS ((int)(sizeof(options) / sizeof(options[0])))

#define MAXPOS 4

typedef struct {
    const char *pos[MAXPOS];
    int npos;
    int given;                   /* OPT_* bits */
    const char *value[NOPTIONS]; /* by index into options[] */
} args_t;

static const char *opt(const args_t *a, int bit)
{
    int i;

    for (i = 0; i < NOPTIONS; i++) {
        if (options[i].bit == bit) {
            return a->value[i];
        }
    }
    return NULL;
}

/*
 * Split argv into positionals and known options ("--name value" or
 * "--name=value"; "--" ends the options). Returns EX_OK or EX_USAGE.
 */
static int parse_args(int argc, char **argv, int allowed, args_t *a)
{
    int i, j, only_pos = 0;

    memset(a, 0, sizeof(*a));
    for (i = 0; i < argc; i++) {
        const char *s = argv[i];
        const char *eq;
        size_t nlen;

        if (only_pos || s[0] != '-' || s[1] == '\0') {
            if (a->npos == MAXPOS) {
                return usage_error("too many arguments");
            }
            a->pos[a->npos++] = s;
            continue;
        }
        if (strcmp(s, "--") == 0) {
            only_pos = 1;
            continue;
        }
        if (s[1] != '-') {
            return usage_error("unknown option %s", s);
        }
        eq = strchr(s + 2, '=');
        nlen = eq ? (size_t)(eq - (s + 2)) : strlen(s + 2);
        for (j = 0; j < NOPTIONS; j++) {
            if (strlen(options[j].name) == nlen
                && strncmp(options[j].name, s + 2, nlen) == 0) {
                break;
            }
        }
        if (j == NOPTIONS || !(allowed & options[j].bit)) {
            return usage_error("unknown option --%.*s for this command",
                               (int)nlen, s + 2);
        }
        if (a->given & options[j].bit) {
            return usage_error("--%s given twice", options[j].name);
        }
        a->given |= options[j].bit;
        if (!options[j].takes_value) {
            if (eq != NULL) {
                return usage_error("--%s takes no value", options[j].name);
            }
            continue;
        }
        if (eq != NULL) {
            a->value[j] = eq + 1;
        }
        else if (i + 1 < argc) {
            a->value[j] = argv[++i];
        }
        else {
            return usage_error("--%s needs a value", options[j].name);
        }
    }
    return EX_OK;
}

/* --- checks of input -------------------------------------------------------
 */

static int check_user(const char *user)
{
    if (!hsc_username_valid(user, strlen(user))) {
        return fail(EX_INPUT, "invalid username (1-255 bytes of UTF-8, no "
                              "control characters)");
    }
    return EX_OK;
}

/* "" or comma-separated valid group names, each once. */
static int check_groups(const char *groups)
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
static int check_new_user(const char *user)
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

static int check_kdf(const char *spec, hsc_kdf_t *k, int force)
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

/* A duration as the directives take it ("60", "90s", "8h"; 0 allowed):
 * hsc_parse_duration. 1 when valid. */
static int parse_seconds(const char *s, int64_t *out)
{
    return hsc_parse_duration(s, 1, out) == HSC_OK;
}

/* --- passwords -------------------------------------------------------------
 */

static int tty_fd = -1;
static struct termios tty_saved;
static volatile sig_atomic_t tty_echo_off;

static void restore_tty(void)
{
    if (tty_echo_off) {
        tcsetattr(tty_fd, TCSAFLUSH, &tty_saved);
        tty_echo_off = 0;
    }
}

/* Turn the echo back on before dying of a signal. */
static void on_signal(int sig)
{
    restore_tty();
    signal(sig, SIG_DFL);
    raise(sig);
}

/*
 * Read one line from fd into buf (cap bytes) byte by byte, so no copy of
 * the password lingers in a stdio buffer. Strips "\n" or "\r\n".
 * Returns the length, -1 at end of input with nothing read, -2 when the
 * line is longer than HSC_PASSWORD_MAX bytes, -3 on a read error.
 */
static long read_line(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    int got_any = 0, toolong = 0;
    char c;

    for (;;) {
        ssize_t r = read(fd, &c, 1);

        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r < 0) {
            return -3;
        }
        if (r == 0) {
            if (!got_any) {
                return -1;
            }
            break;
        }
        got_any = 1;
        if (c == '\n') {
            break;
        }
        if (n < cap) {
            buf[n++] = c;
        }
        else {
            toolong = 1; /* keep reading to the end of the line */
        }
    }
    c = 0;
    if (n > 0 && buf[n - 1] == '\r') {
        n--;
    }
    if (toolong || n > HSC_PASSWORD_MAX) {
        hsc_wipe(buf, cap);
        return -2;
    }
    return (long)n;
}

/* Prompt on the terminal and read a line without echo. */
static long read_tty(const char *prompt, char *buf, size_t cap)
{
    struct termios t;
    struct sigaction sa, old_int, old_term, old_hup;
    long n;

    if (write(tty_fd, prompt, strlen(prompt)) < 0) {
        return -3;
    }
    if (tcgetattr(tty_fd, &tty_saved) != 0) {
        return -3;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    t = tty_saved;
    t.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
    tty_echo_off = 1;
    if (tcsetattr(tty_fd, TCSAFLUSH, &t) != 0) {
        tty_echo_off = 0;
        n = -3;
    }
    else {
        n = read_line(tty_fd, buf, cap);
        restore_tty();
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    if (write(tty_fd, "\n", 1) < 0) {
        /* the newline is cosmetic */
    }
    return n;
}

/*
 * Get a password: one line of stdin, or from the terminal (twice when
 * confirm). buf has HSC_PASSWORD_MAX + 1 bytes. Returns EX_OK and *len.
 */
static int get_password(int from_stdin, int confirm, int allow_empty, char *buf,
                        size_t *len)
{
    char again[HSC_PASSWORD_MAX + 1];
    long n, m;
    int rc = EX_OK;

    *len = 0;
    if (from_stdin) {
        n = read_line(STDIN_FILENO, buf, HSC_PASSWORD_MAX + 1);
    }
    else {
        tty_fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (tty_fd < 0) {
            return fail(EX_USAGE, "no terminal to read the password from (use "
                                  "--password-stdin)");
        }
        n = read_tty("Password: ", buf, HSC_PASSWORD_MAX + 1);
        if (n >= 0 && confirm) {
            m = read_tty("Retype password: ", again, sizeof(again));
            if (m != n || !hsc_ct_equal(buf, again, (size_t)n)) {
                rc = fail(EX_INPUT, "the passwords do not match");
            }
            hsc_wipe(again, sizeof(again));
        }
        close(tty_fd);
        tty_fd = -1;
    }
    if (rc == EX_OK) {
        if (n == -1) {
            rc = fail(EX_INPUT, "no password given");
        }
        else if (n == -2) {
            rc = fail(EX_INPUT, "password longer than %d bytes",
                      HSC_PASSWORD_MAX);
        }
        else if (n < 0) {
            rc = fail(EX_FILE, "cannot read the password: %s", strerror(errno));
        }
        else if (n == 0 && !allow_empty) {
            rc = fail(EX_INPUT, "empty password refused");
        }
    }
    if (rc != EX_OK) {
        hsc_wipe(buf, HSC_PASSWORD_MAX + 1);
        return rc;
    }
    *len = (size_t)n;
    return EX_OK;
}

/* --- the store -------------------------------------------------------------
 */

static int is_pgsql(const char *db)
{
    return hsc_store_spec_conninfo(db) != NULL;
}

static int open_store(const char *db, int flags, hsc_store_t **ps)
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
/* Why the last store call failed, for the audit line. */
static const char *audit_reason;

static int store_fail(hsc_store_t *s, const char *user, hsc_status_t st)
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

static int cmd_init(const args_t *a)
{
    const char *db = a->pos[0];
    char id[HSC_STORE_ID_SIZE];
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
    printf(existed ? "%s: already an hsc user database, up to date, store id "
                     "%s\n"
                   : "%s: initialized, store id %s\n",
           db, id[0] ? id : "unknown");
    return EX_OK;
}

static int cmd_add(const args_t *a)
{
    const char *db = a->pos[0], *user = a->pos[1];
    const char *groups = (a->given & OPT_GROUPS) ? opt(a, OPT_GROUPS) : "";
    const char *spec = (a->given & OPT_KDF) ? opt(a, OPT_KDF)
                                            : HSC_KDF_DEFAULT_SPEC;
    char pw[HSC_PASSWORD_MAX + 1];
    hsc_store_t *s = NULL;
    hsc_user_t u;
    hsc_kdf_t k;
    hsc_status_t st;
    size_t pwlen = 0;
    int rc;

    if ((rc = check_new_user(user)) || (rc = check_groups(groups))
        || (rc = check_kdf(spec, &k, a->given & OPT_FORCE))) {
        return rc;
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
    rc = get_password(a->given & OPT_STDIN, 1, 0, pw, &pwlen);
    if (rc != EX_OK) {
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
    printf("%s: added\n", user);

cleanup:
    hsc_wipe(pw, sizeof(pw));
    hsc_wipe(&u, sizeof(u));
    hsc_store_close(s);
    return rc;
}

static int cmd_passwd(const args_t *a)
{
    const char *db = a->pos[0], *user = a->pos[1];
    const char *spec = (a->given & OPT_KDF) ? opt(a, OPT_KDF)
                                            : HSC_KDF_DEFAULT_SPEC;
    char pw[HSC_PASSWORD_MAX + 1];
    hsc_store_t *s = NULL;
    hsc_user_t u;
    hsc_kdf_t k;
    hsc_status_t st;
    size_t pwlen = 0;
    int rc;

    if ((rc = check_user(user))
        || (rc = check_kdf(spec, &k, a->given & OPT_FORCE))) {
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
    if (rc != EX_OK) {
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
static int cmd_simple(const char *cmd, const args_t *a)
{
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
    else {
        st = hsc_store_revoke_now(s, user, now);
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

static int cmd_groups(const args_t *a)
{
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

static int cmd_list(const args_t *a)
{
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

static int cmd_check(const args_t *a)
{
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

/* --- keygen ----------------------------------------------------------------
 */

static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Load path as a key ring; on success *pkr is set and warnings printed. */
static hsc_status_t load_keys(apr_pool_t *p, const char *path,
                              hsc_keyring_t **pkr)
{
    const char *msg = NULL;
    hsc_status_t st;

    st = hsc_keyring_load(p, path, pkr, &msg);
    if (st == HSC_OK && msg != NULL) {
        fprintf(stderr, "hsc-admin: warning: %s\n", msg);
    }
    else if (st != HSC_OK) {
        fail(EX_FILE, "%s", msg ? msg : hsc_strerror(st));
    }
    return st;
}

/* fsync the directory holding path, so a rename survives a crash. */
static void sync_dir_of(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    int fd;

    if (slash == NULL) {
        snprintf(dir, sizeof(dir), ".");
    }
    else if (slash == path) {
        snprintf(dir, sizeof(dir), "/");
    }
    else {
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    }
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* Create a new key file holding line, mode 0600 whatever the umask. */
static int keygen_create(apr_pool_t *pool, const char *path, const char *line,
                         const char *kid)
{
    hsc_keyring_t *kr;
    int fd;

    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        return -1; /* errno says why; EEXIST means rotate */
    }
    if (fchmod(fd, 0600) != 0 || write_all(fd, line, strlen(line)) != 0
        || fsync(fd) != 0) {
        int e = errno;

        close(fd);
        unlink(path);
        return fail(EX_FILE, "%s: %s", path, strerror(e));
    }
    close(fd);
    sync_dir_of(path);
    if (load_keys(pool, path, &kr) != HSC_OK) {
        unlink(path);
        return EX_FILE;
    }
    printf("%s: created with signing key %s\n", path, kid);
    return EX_OK;
}

/*
 * Rewrite an existing key file: read it, let hsc_keyfile_rotate rewrite
 * and check the text (op: a new line first or last, kid's line first, or
 * kid's line gone), write that to a temporary file beside it (0600), load
 * that back, rename it over. arg is the new line (SIGN, VERIFY_ONLY) or
 * the key id (PROMOTE, RETIRE); kid names the key in messages.
 */
/*
 * Open the key file and lock it (flock, exclusive) against another
 * hsc-admin editing it at the same time: the second waits, then reads what
 * the first wrote. The rename replaces the file, so a lock taken on the
 * file just replaced is taken again on the new one. *fd, *sb; EX_OK or the
 * exit code (said).
 */
static int open_locked(const char *path, int *fd, struct stat *sb)
{
    struct stat now;

    for (;;) {
        *fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (*fd < 0) {
            return fail(EX_FILE, "%s: %s%s", path, strerror(errno),
                        errno == ELOOP
                            ? " (a symbolic link: give the real path)"
                            : "");
        }
        if (flock(*fd, LOCK_EX) != 0) {
            return fail(EX_FILE, "%s: lock: %s", path, strerror(errno));
        }
        if (fstat(*fd, sb) != 0 || !S_ISREG(sb->st_mode)) {
            return fail(EX_FILE, "%s: not a regular file", path);
        }
        if (stat(path, &now) == 0 && now.st_ino == sb->st_ino
            && now.st_dev == sb->st_dev) {
            return EX_OK;
        }
        close(*fd); /* replaced while we waited: lock the new one */
    }
}

/* The whole file into *text (malloc, st_size + 2 bytes), *len. */
static int read_keyfile(const char *path, int fd, const struct stat *sb,
                        char **text, size_t *len)
{
    *len = 0;
    if (sb->st_size > KEYFILE_MAX) {
        return fail(EX_FILE, "%s: too large for a key file", path);
    }
    if ((*text = malloc((size_t)sb->st_size + 2)) == NULL) {
        return fail(EX_FILE, "out of memory");
    }
    while (*len < (size_t)sb->st_size) {
        ssize_t n = read(fd, *text + *len, (size_t)sb->st_size - *len);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return fail(EX_FILE, "%s: read: %s", path,
                        n < 0 ? strerror(errno) : "file shrank");
        }
        *len += (size_t)n;
    }
    return EX_OK;
}

/* out into a new temporary file beside path (tmp: its name, "" if none),
 * mode 0600, the old file's owner when we may, synced. */
static int write_beside(const char *path, const struct stat *sb,
                        const char *out, size_t outlen, char *tmp,
                        size_t tmpcap)
{
    int tfd, rc = EX_OK;

    if (snprintf(tmp, tmpcap, "%s.XXXXXX", path) >= (int)tmpcap) {
        tmp[0] = '\0';
        return fail(EX_FILE, "%s: path too long", path);
    }
    if ((tfd = mkstemp(tmp)) < 0) {
        tmp[0] = '\0';
        return fail(EX_FILE, "%s: cannot create a temporary file: %s", path,
                    strerror(errno));
    }
    if (fchmod(tfd, 0600) != 0) {
        rc = fail(EX_FILE, "%s: chmod: %s", tmp, strerror(errno));
    }
    /* Keep the owner (e.g. root) when we may; the mode stays 0600. */
    else if (fchown(tfd, sb->st_uid, sb->st_gid) != 0) {
        /* not permitted: the file becomes ours, which is what we can do */
    }
    if (rc == EX_OK && (write_all(tfd, out, outlen) != 0 || fsync(tfd) != 0)) {
        rc = fail(EX_FILE, "%s: write: %s", tmp, strerror(errno));
    }
    close(tfd);
    return rc;
}

/* What keygen says it did. */
static void say_rotated(const char *path, hsc_rotate_t op, const char *kid,
                        const char *old_signer, int count)
{
    switch (op) {
    case HSC_ROTATE_SIGN:
        printf("%s: new signing key %s; %d keys (the older ones still "
               "verify)\n",
               path, kid, count);
        break;
    case HSC_ROTATE_VERIFY_ONLY:
        printf("%s: new key %s staged, verify-only (%s still signs); %d keys\n",
               path, kid, old_signer, count);
        break;
    case HSC_ROTATE_PROMOTE:
        printf("%s: %s signs now; %d keys (the others still verify)\n", path,
               kid, count);
        break;
    case HSC_ROTATE_RETIRE:
        printf("%s: key %s retired; %d keys\n", path, kid, count);
        break;
    }
}

static int keygen_rotate(apr_pool_t *pool, const char *path, hsc_rotate_t op,
                         const char *arg, const char *kid)
{
    char tmp[4096];
    char *text = NULL;
    struct stat sb;
    hsc_keyring_t *kr = NULL, *old = NULL;
    const char *msg = NULL;
    char *out = NULL;
    char old_signer[HSC_KID_MAX + 1];
    size_t len = 0, outlen = 0;
    int fd = -1, rc, new_count = 0;
    hsc_status_t st;

    tmp[0] = '\0';
    old_signer[0] = '\0';
    sb.st_size = 0;
    if ((rc = open_locked(path, &fd, &sb)) != EX_OK
        || (rc = read_keyfile(path, fd, &sb, &text, &len)) != EX_OK) {
        goto cleanup;
    }
    /* The old signer, for the message (the text loads: checked next). */
    if (hsc_keyring_parse(pool, path, text, len, &old, &msg) == HSC_OK) {
        snprintf(old_signer, sizeof(old_signer), "%s",
                 hsc_key_id(hsc_keyring_signer(old)));
    }
    /* The rewrite itself, checked, is the library's. */
    st = hsc_keyfile_rotate(pool, path, text, len, op, arg, &out, &outlen,
                            &new_count, &msg);
    if (st != HSC_OK) {
        rc = fail(st == HSC_EEXISTS || st == HSC_ENOKEY ? EX_INPUT : EX_FILE,
                  "%s", msg ? msg : hsc_strerror(st));
        goto cleanup;
    }
    if ((rc = write_beside(path, &sb, out, outlen, tmp, sizeof(tmp)))
        != EX_OK) {
        goto cleanup;
    }
    rc = EX_FILE;
    if (load_keys(pool, tmp, &kr) != HSC_OK) {
        goto cleanup;
    }
    if (strcmp(hsc_key_id(hsc_keyring_signer(kr)),
               op == HSC_ROTATE_SIGN || op == HSC_ROTATE_PROMOTE ? kid
                                                                 : old_signer)
            != 0
        || hsc_keyring_count(kr) != new_count) {
        rc = fail(EX_FILE,
                  "%s: the rewritten file is not what was asked; left "
                  "unchanged",
                  path);
        goto cleanup;
    }
    if (rename(tmp, path) != 0) {
        rc = fail(EX_FILE, "%s: rename: %s", path, strerror(errno));
        goto cleanup;
    }
    tmp[0] = '\0';
    sync_dir_of(path);
    say_rotated(path, op, kid, old_signer, new_count);
    rc = EX_OK;

cleanup:
    if (tmp[0] != '\0') {
        unlink(tmp);
    }
    if (fd >= 0) {
        close(fd); /* and the lock with it, after the rename */
    }
    if (text != NULL) {
        hsc_wipe(text, (size_t)sb.st_size + 2);
        free(text);
    }
    return rc;
}

static int cmd_keygen(apr_pool_t *pool, const args_t *a)
{
    const char *path = a->pos[0];
    const char *kid = (a->given & OPT_KID) ? opt(a, OPT_KID) : NULL;
    char line[160], newkid[HSC_KID_MAX + 1];
    size_t n;
    hsc_status_t st;
    int rc;

    const char *sign = (a->given & OPT_SIGN) ? opt(a, OPT_SIGN) : NULL;
    const char *retire = (a->given & OPT_RETIRE) ? opt(a, OPT_RETIRE) : NULL;

    if (!!sign + !!retire + !!(a->given & (OPT_KID | OPT_VERIFY_ONLY)) > 1) {
        return usage_error("keygen: --sign and --retire take no other option");
    }
    if (sign != NULL || retire != NULL) {
        /* Several nodes: stage (--verify-only) everywhere, then --sign,
         * then --retire the old key, reloading every node each time. */
        kid = sign ? sign : retire;
        if (!hsc_kid_valid(kid, strlen(kid))) {
            return fail(EX_INPUT, "invalid key id \"%s\"", kid);
        }
        return keygen_rotate(pool, path,
                             sign ? HSC_ROTATE_PROMOTE : HSC_ROTATE_RETIRE, kid,
                             kid);
    }
    if (kid != NULL && !hsc_kid_valid(kid, strlen(kid))) {
        return fail(EX_INPUT,
                    "invalid key id \"%s\" (1-%d characters of A-Z a-z 0-9 _ "
                    "-)",
                    kid, HSC_KID_MAX);
    }
    st = hsc_key_generate_line(kid, line, sizeof(line));
    if (st != HSC_OK) {
        return fail(EX_FILE, "cannot generate a key: %s", hsc_strerror(st));
    }
    n = strcspn(line, " \t");
    if (n == 0 || n > HSC_KID_MAX) {
        hsc_wipe(line, sizeof(line));
        return fail(EX_FILE, "cannot generate a key: bad key line");
    }
    memcpy(newkid, line, n);
    newkid[n] = '\0';
    rc = keygen_create(pool, path, line, newkid);
    if (rc == -1) {
        if (errno == EEXIST) {
            rc = keygen_rotate(pool, path,
                               (a->given & OPT_VERIFY_ONLY)
                                   ? HSC_ROTATE_VERIFY_ONLY
                                   : HSC_ROTATE_SIGN,
                               line, newkid);
        }
        else {
            rc = fail(EX_FILE, "%s: %s", path, strerror(errno));
        }
    }
    hsc_wipe(line, sizeof(line));
    return rc;
}

/* --- inspect ---------------------------------------------------------------
 */

static void step(int n, const char *name, const char *verdict, const char *why)
{
    printf("%d %-6s %s%s%s%s\n", n, name, verdict, why[0] ? " (" : "", why,
           why[0] ? ")" : "");
}

static const char *const step_names[] = {"",     "syntax", "key", "mac",
                                         "time", "user",   "auth"};

/* Why a step ended as it did, for the steps that say more than pass. */
static void step_why(const hsc_explain_t *ex, int n, const char *keyfile,
                     const char *scope, const char *address, int64_t now,
                     int64_t skew, int64_t max_age, hsc_store_t *s, char *why,
                     size_t len)
{
    const hsc_cookie_t *c = &ex->cookie;
    int pass = ex->verdict[n] == HSC_STEP_PASS;
    char d[32];

    why[0] = '\0';
    switch (n) {
    case HSC_STEP_SYNTAX:
        if (ex->why[n] == HSC_ETOOLONG) {
            snprintf(why, len, "over %d bytes", HSC_COOKIE_MAX);
        }
        else if (!pass && ex->fields != 7) {
            snprintf(why, len, "%d fields, expected 7", ex->fields);
        }
        else if (!pass) {
            snprintf(why, len,
                     "a field has a wrong alphabet, length or non-canonical "
                     "form, or exp <= iat");
        }
        break;
    case HSC_STEP_KEY:
        snprintf(why, len, pass ? "%s is in %s" : "no key %s in %s", c->kid,
                 keyfile);
        break;
    case HSC_STEP_MAC:
        snprintf(why, len, "scope \"%s\", address \"%s\"%s", scope, address,
                 pass ? ""
                      : ": wrong key, scope or address, or the value was "
                        "altered");
        break;
    case HSC_STEP_TIME:
        if (ex->why[n] == HSC_EEXPIRED) {
            snprintf(why, len, "expired at %s", utc(c->exp, d, sizeof(d)));
        }
        else if (ex->why[n] == HSC_EFUTURE) {
            snprintf(why, len, "issued in the future, beyond the %llds skew",
                     (long long)skew);
        }
        else if (ex->why[n] == HSC_EMAXAGE) {
            snprintf(why, len, "login older than the maximum age %llds",
                     (long long)max_age);
        }
        else {
            snprintf(why, len, "expires in %llds, max age %llds",
                     (long long)(c->exp - now), (long long)max_age);
        }
        break;
    case HSC_STEP_USER:
        snprintf(why, len, "%s",
                 pass                          ? "exists, enabled, not revoked"
                 : ex->why[n] == HSC_ENOUSER   ? "no such user"
                 : ex->why[n] == HSC_EDISABLED ? "user disabled"
                                               : "");
        if (ex->why[n] == HSC_EREVOKED) {
            snprintf(why, len, "revoked: logins before %s",
                     utc(ex->user.revoked_before, d, sizeof(d)));
        }
        else if (!pass && why[0] == '\0') {
            snprintf(why, len, "store: %s", hsc_store_errmsg(s));
        }
        break;
    default:
        snprintf(why, len, "%s",
                 pass
                     ? "SHA-256(auth) = v"
                     : "SHA-256(auth) != v: password changed since login, or a "
                       "forged cookie");
        break;
    }
}

/* Read the cookie: the argument, or "-" for one line of stdin. */
static size_t inspect_input(const char *in, char *value, size_t cap)
{
    size_t len;

    if (strcmp(in, "-") == 0) {
        size_t got = 0;
        char ch;

        while (got < cap - 1 && read(STDIN_FILENO, &ch, 1) == 1 && ch != '\n') {
            value[got++] = ch;
        }
        if (got > 0 && value[got - 1] == '\r') {
            got--;
        }
        value[got] = '\0';
        return got;
    }
    len = strlen(in);
    if (len > cap - 1) {
        len = cap - 1; /* still over HSC_COOKIE_MAX */
    }
    memcpy(value, in, len);
    value[len] = '\0';
    return len;
}

/*
 * Explain a cookie: the library's hsc_cookie_explain checks every step it
 * can and records each verdict; this prints them and the verdict.
 */
static int cmd_inspect(apr_pool_t *pool, const args_t *a)
{
    const char *keyfile = opt(a, OPT_KEYS), *db = opt(a, OPT_DB);
    const char *scope = (a->given & OPT_SCOPE) ? opt(a, OPT_SCOPE) : "";
    const char *address = (a->given & OPT_ADDRESS) ? opt(a, OPT_ADDRESS) : "";
    char value[HSC_COOKIE_MAX + 2], why[256], d1[32], d2[32];
    hsc_keyring_t *kr = NULL;
    hsc_store_t *s = NULL;
    hsc_verify_params_t vp;
    hsc_explain_t ex;
    hsc_status_t verdict;
    int64_t now, skew = INSPECT_SKEW, max_age = INSPECT_MAX_AGE;
    size_t len;
    int rc, n;

    if (!(a->given & OPT_KEYS)) {
        return usage_error("inspect needs --keys KEYFILE");
    }
    now = (int64_t)time(NULL);
    if ((a->given & OPT_NOW)
        && hsc_parse_time(opt(a, OPT_NOW), strlen(opt(a, OPT_NOW)), &now)
               != HSC_OK) {
        return fail(EX_INPUT, "--now: not Unix seconds");
    }
    if ((a->given & OPT_SKEW) && !parse_seconds(opt(a, OPT_SKEW), &skew)) {
        return fail(EX_INPUT, "--skew: not a number of seconds");
    }
    if ((a->given & OPT_MAX_AGE)
        && !parse_seconds(opt(a, OPT_MAX_AGE), &max_age)) {
        return fail(EX_INPUT, "--max-age: not a number of seconds");
    }
    if (strchr(scope, '\n') || strchr(address, '\n')) {
        return fail(EX_INPUT, "--scope and --address cannot hold a line feed");
    }
    len = inspect_input(a->pos[0], value, sizeof(value));
    if (load_keys(pool, keyfile, &kr) != HSC_OK) {
        return EX_FILE;
    }
    if (db != NULL && (rc = open_store(db, HSC_STORE_READONLY, &s))) {
        return rc;
    }

    memset(&vp, 0, sizeof(vp));
    vp.keys = kr;
    vp.scope = scope;
    vp.address = address;
    vp.now = now;
    vp.skew = skew;
    vp.max_age = max_age;
    verdict = hsc_cookie_explain(&vp, s, value, len, &ex);
    hsc_wipe(value, sizeof(value));

    if (ex.verdict[HSC_STEP_SYNTAX] == HSC_STEP_PASS) {
        printf("version 1\nkid     %s\nuser    %s\niat     %lld %s\n"
               "exp     %lld %s\n",
               ex.cookie.kid, ex.cookie.user, (long long)ex.cookie.iat,
               utc(ex.cookie.iat, d1, sizeof(d1)), (long long)ex.cookie.exp,
               utc(ex.cookie.exp, d2, sizeof(d2)));
        printf("now     %lld %s\n", (long long)now, utc(now, d1, sizeof(d1)));
    }
    for (n = HSC_STEP_SYNTAX; n <= HSC_STEP_COUNT; n++) {
        if (ex.verdict[n] == HSC_STEP_NOT_CHECKED) {
            step(n, step_names[n], "not checked",
                 ex.verdict[HSC_STEP_SYNTAX] != HSC_STEP_PASS ? ""
                 : n == HSC_STEP_MAC                          ? "no key"
                 : s == NULL                                  ? "no --db"
                                                              : "no user");
            continue;
        }
        step_why(&ex, n, keyfile, scope, address, now, skew, max_age, s, why,
                 sizeof(why));
        step(n, step_names[n], ex.verdict[n] == HSC_STEP_PASS ? "pass" : "fail",
             why);
    }
    if (verdict == HSC_OK) {
        printf("verdict: valid%s\n", s ? "" : " (steps 1-4; no --db)");
        rc = EX_OK;
    }
    else {
        printf("verdict: refused (%s)\n", hsc_strerror(verdict));
        rc = EX_REFUSED;
    }
    hsc_wipe(&ex, sizeof(ex));
    hsc_store_close(s);
    return rc;
}

/* --- main ------------------------------------------------------------------
 */

/* Handlers of the table's shape for the commands that need more. */
static int run_init(apr_pool_t *p, const char *n, const args_t *a)
{
    (void)p;
    (void)n;
    return cmd_init(a);
}

static int run_add(apr_pool_t *p, const char *n, const args_t *a)
{
    (void)p;
    (void)n;
    return cmd_add(a);
}

static int run_passwd(apr_pool_t *p, const char *n, const args_t *a)
{
    (void)p;
    (void)n;
    return cmd_passwd(a);
}

static int run_simple(apr_pool_t *p, const char *n, const args_t *a)
{
    (void)p;
    return cmd_simple(n, a);
}

static int run_groups(apr_pool_t *p, const char *n, const args_t *a)
{
    (void)p;
    (void)n;
    return cmd_groups(a);
}

static int run_list(apr_pool_t *p, const char *n, const args_t *a)
{
    (void)p;
    (void)n;
    return cmd_list(a);
}

static int run_check(apr_pool_t *p, const char *n, const args_t *a)
{
    (void)p;
    (void)n;
    return cmd_check(a);
}

static int run_keygen(apr_pool_t *p, const char *n, const args_t *a)
{
    (void)n;
    return cmd_keygen(p, a);
}

static int run_inspect(apr_pool_t *p, const char *n, const args_t *a)
{
    (void)n;
    return cmd_inspect(p, a);
}

/* Every command: its name, handler, arguments, synopsis and help. Adding a
 * command is a row here (the usage follows) and a section in
 * docs/hsc-admin.md. */
static const struct {
    const char *name;
    int (*run)(apr_pool_t *pool, const char *name, const args_t *a);
    int min_pos, max_pos; /* positional arguments after the command */
    int options;          /* OPT_* allowed */
    const char *synopsis; /* after "hsc-admin NAME " */
    const char *help;     /* one line */
} commands[] = {
    {"init", run_init, 1, 1, 0, "DB", "create an empty user database"},
    {"add", run_add, 2, 2,
     OPT_GROUPS | OPT_KDF | OPT_STDIN | OPT_FORCE | OPT_AUDIT,
     "DB USER [--groups G1,G2] [--kdf SPEC [--force]] [--password-stdin]",
     "add a user (the password is asked for)"},
    {"passwd", run_passwd, 2, 2, OPT_KDF | OPT_STDIN | OPT_FORCE | OPT_AUDIT,
     "DB USER [--kdf SPEC [--force]] [--password-stdin]",
     "set a user's password (a new salt; old cookies are refused)"},
    {"del", run_simple, 2, 2, OPT_AUDIT, "DB USER", "delete a user"},
    {"disable", run_simple, 2, 2, OPT_AUDIT, "DB USER",
     "refuse a user's logins and cookies"},
    {"enable", run_simple, 2, 2, OPT_AUDIT, "DB USER", "undo disable"},
    {"revoke", run_simple, 2, 2, OPT_AUDIT, "DB USER",
     "refuse every cookie the user holds now"},
    {"groups", run_groups, 2, 3, OPT_AUDIT, "DB USER [G1,G2,...]",
     "print or set a user's groups"},
    {"list", run_list, 1, 1, 0, "DB", "list the users"},
    {"check", run_check, 2, 2, OPT_STDIN, "DB USER [--password-stdin]",
     "check a password as a login would"},
    {"keygen", run_keygen, 1, 1,
     OPT_KID | OPT_VERIFY_ONLY | OPT_SIGN | OPT_RETIRE,
     "KEYFILE [--kid ID] [--verify-only] | --sign ID | --retire ID",
     "create a key file, or add a key to one: first (signs) or last "
     "(--verify-only); --sign moves a key first, --retire removes one"},
    {"inspect", run_inspect, 1, 1,
     OPT_KEYS | OPT_DB | OPT_SCOPE | OPT_ADDRESS | OPT_NOW | OPT_SKEW
         | OPT_MAX_AGE,
     "--keys KEYFILE [--db DB] [--scope S] [--address A]\n"
     "                    [--now T] [--skew S] [--max-age S] COOKIE|-",
     "explain, step by step, why a cookie is accepted or refused"},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void print_usage(FILE *f)
{
    size_t c;

    fputs("usage:\n", f);
    for (c = 0; c < NCOMMANDS; c++) {
        fprintf(f, "  hsc-admin %s %s\n      %s\n", commands[c].name,
                commands[c].synopsis, commands[c].help);
    }
    fputs("SPEC is sha256-chain:ITERATIONS or scrypt:N:r:p "
          "(default " HSC_KDF_DEFAULT_SPEC ").\n"
          "Without --password-stdin the password is read twice from the "
          "terminal.\n",
          f);
    /* The commands that change something: the table's OPT_AUDIT. */
    fputs("--audit-log FILE and --audit-syslog (one JSON line per change) go "
          "with:\n ",
          f);
    for (c = 0; c < NCOMMANDS; c++) {
        if (commands[c].options & OPT_AUDIT) {
            fprintf(f, " %s", commands[c].name);
        }
    }
    fputs("\n"
          "A pgsql: database's password: not on the command line (ps shows "
          "it) but in\n~/.pgpass or PGPASSFILE, or a service= entry, as "
          "libpq reads them.\n"
          "Exit status: 0 ok, 1 refused, 2 usage, 3 bad input or not found,\n"
          "4 database or file error. See docs/hsc-admin.md.\n",
          f);
}

/*
 * The audit line of a change (docs/audit-log.md): event "admin", the
 * action, the user, who ran the tool, and how it ended. Appended with one
 * write() to the file httpd's HSCAuditLog names (fd, opened before the
 * change), and/or sent to syslog (authpriv.notice).
 */
static int audit_change(int fd, int use_syslog, const char *action,
                        const char *user, int rc)
{
    char line[HSC_AUDIT_LINE_MAX];
    struct passwd *pw = getpwuid(getuid());
    struct timespec ts;
    hsc_audit_event_t e;
    size_t n;

    clock_gettime(CLOCK_REALTIME, &ts);
    hsc_audit_event_init(&e);
    e.time_us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
    e.event = "admin";
    e.action = action;
    e.outcome = rc == EX_OK ? "success" : "failure";
    if (rc != EX_OK) {
        e.reason = audit_reason     ? audit_reason
                   : rc == EX_INPUT ? "bad_input"
                   : rc == EX_FILE  ? "store_fault"
                                    : "refused";
    }
    e.user = user;
    e.user_len = strlen(user);
    e.actor = pw != NULL ? pw->pw_name : "?";
    n = hsc_audit_format(&e, line, sizeof(line));
    if (use_syslog) {
        openlog("hsc-admin", LOG_PID, LOG_AUTHPRIV);
        syslog(LOG_NOTICE, "%.*s", (int)(n > 0 ? n - 1 : 0), line);
        closelog();
    }
    if (fd >= 0 && write_all(fd, line, n) != 0) {
        return fail(EX_FILE, "cannot write the audit log: %s", strerror(errno));
    }
    return EX_OK;
}

static int run(apr_pool_t *pool, int argc, char **argv)
{
    int fd = -1, arc;
    const char *cmd;
    args_t a;
    size_t c;
    int i, rc;

    if (argc < 2) {
        return usage_error("no command");
    }
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            break;
        }
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            print_usage(stdout);
            return EX_OK;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf("hsc-admin (mod_hsc) %s\n", HSC_VERSION);
            return EX_OK;
        }
    }
    cmd = argv[1];
    for (c = 0; c < NCOMMANDS; c++) {
        if (strcmp(commands[c].name, cmd) == 0) {
            break;
        }
    }
    if (c == NCOMMANDS) {
        return usage_error("unknown command \"%s\"", cmd);
    }
    rc = parse_args(argc - 2, argv + 2, commands[c].options, &a);
    if (rc != EX_OK) {
        return rc;
    }
    if (a.npos < commands[c].min_pos || a.npos > commands[c].max_pos) {
        return usage_error("%s: wrong number of arguments", cmd);
    }
    /* Only changes are audited ("groups DB USER" alone only prints). */
    if (!(a.given & OPT_AUDIT) || (strcmp(cmd, "groups") == 0 && a.npos < 3)) {
        return commands[c].run(pool, commands[c].name, &a);
    }
    /* Opened first: a change that cannot be audited is not made. */
    if (a.given & OPT_AUDIT_LOG) {
        const char *path = opt(&a, OPT_AUDIT_LOG);

        /* Not through a symbolic link: root appending to whatever a link
         * in a writable directory points at is a way to corrupt a file. */
        fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
                  0640);
        if (fd < 0) {
            return fail(EX_FILE, "cannot open the audit log %s: %s%s", path,
                        strerror(errno),
                        errno == ELOOP
                            ? " (a symbolic link: give the real path)"
                            : "");
        }
    }
    rc = commands[c].run(pool, commands[c].name, &a);
    arc = audit_change(fd, (a.given & OPT_AUDIT_SYSLOG) != 0, cmd, a.pos[1],
                       rc);
    if (fd >= 0 && close(fd) != 0 && arc == EX_OK) {
        arc = fail(EX_FILE, "cannot write the audit log: %s", strerror(errno));
    }
    return rc != EX_OK ? rc : arc;
}

int main(int argc, char **argv)
{
    apr_pool_t *pool = NULL;
    int rc;

    if (apr_initialize() != APR_SUCCESS
        || apr_pool_create(&pool, NULL) != APR_SUCCESS) {
        fprintf(stderr, "hsc-admin: cannot initialize APR\n");
        return EX_FILE;
    }
    rc = run(pool, argc, argv);
    apr_pool_destroy(pool); /* runs the key wipe cleanups */
    apr_terminate();
    if (fflush(stdout) != 0 && rc == EX_OK) {
        rc = fail(EX_FILE, "write error on standard output");
    }
    return rc;
}
