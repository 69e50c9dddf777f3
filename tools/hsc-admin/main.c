/*
 * hsc-admin: the htpasswd of mod_hsc. Manages the user store and the key
 * file, and explains why a cookie is accepted or refused. This file: the
 * messages, the command line, the command table (a command is a row here
 * and a section in docs/hsc-admin.md) and the audit line of a change.
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
#include <apr_strings.h>

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

#include "hsc_admin.h"

/* --- messages --------------------------------------------------------------
 */

/* Print "hsc-admin: <message>" on stderr and return code. */
int fail(int code, const char *fmt, ...)
{
    va_list ap;

    fputs("hsc-admin: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return code;
}

int usage_error(const char *fmt, ...)
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
int store_exit(hsc_status_t st)
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
const char *utc(int64_t t, char *buf, size_t len)
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

static const struct {
    const char *name; /* without the leading "--" */
    unsigned bit;
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
    {"issuer", OPT_ISSUER, 1},
    {"count", OPT_COUNT, 1},
    {"min-length", OPT_MIN_LENGTH, 1},
    {"blocklist", OPT_BLOCKLIST, 1},
    {"for", OPT_FOR, 1},
    {"ttl", OPT_TTL, 1},
    {"url", OPT_URL, 1},
    {"list", OPT_LIST, 0},
    {"revoke", OPT_REVOKE, 0},
    {"invite", OPT_INVITE, 0},
    {"name", OPT_NAME, 1},
    {"scopes", OPT_SCOPES, 1},
    {"expires", OPT_EXPIRES, 1},
    {"all", OPT_ALL, 0},
    {"activity", OPT_ACTIVITY, 1},
};
#define NOPTIONS ((int)(sizeof(options) / sizeof(options[0])))
/* hsc_admin.h sizes args_t by the table. */
typedef char options_match_header[NOPTIONS == HSC_ADMIN_NOPTIONS ? 1 : -1];

const char *opt(const args_t *a, unsigned bit)
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
static int parse_args(int argc, char **argv, unsigned allowed, args_t *a)
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
            /* One credential id in 64 begins with "-" (base64url). */
            return usage_error("unknown option %s (an argument that begins "
                               "with \"-\", such as a credential id, goes "
                               "after \"--\")",
                               s);
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

/* --- main ------------------------------------------------------------------
 */

/* Every command: its name, handler, arguments, synopsis and help. Adding a
 * command is a row here (the usage follows) and a section in
 * docs/hsc-admin.md. */
static const struct {
    const char *name;
    int (*run)(apr_pool_t *pool, const char *name, const args_t *a);
    int min_pos, max_pos; /* positional arguments after the command */
    unsigned options;     /* OPT_* allowed */
    const char *synopsis; /* after "hsc-admin NAME " */
    const char *help;     /* one line */
} commands[] = {
    {"init", cmd_init, 1, 1, 0, "DB", "create an empty user database"},
    {"add", cmd_add, 2, 2,
     OPT_GROUPS | OPT_KDF | OPT_STDIN | OPT_FORCE | OPT_AUDIT | OPT_POLICY
         | OPT_INVITE | OPT_TTL | OPT_URL,
     "DB USER [--groups G1,G2] [--kdf SPEC] [--password-stdin] "
     "[--min-length N] [--blocklist FILE|none] [--force]\n"
     "                    | DB USER --invite [--groups G1,G2] [--ttl "
     "DURATION] [--url URL]",
     "add a user (the password is asked for), or invite one (a link that "
     "sets it)"},
    {"passwd", cmd_passwd, 2, 2,
     OPT_KDF | OPT_STDIN | OPT_FORCE | OPT_AUDIT | OPT_POLICY,
     "DB USER [--kdf SPEC] [--password-stdin] [--min-length N] "
     "[--blocklist FILE|none] [--force]",
     "set a user's password (a new salt; old cookies are refused)"},
    {"del", cmd_simple, 2, 2, OPT_AUDIT, "DB USER", "delete a user"},
    {"disable", cmd_simple, 2, 2, OPT_AUDIT, "DB USER",
     "refuse a user's logins and cookies"},
    {"enable", cmd_simple, 2, 2, OPT_AUDIT, "DB USER", "undo disable"},
    {"revoke", cmd_simple, 2, 2, OPT_AUDIT, "DB USER",
     "refuse every cookie the user holds now"},
    {"groups", cmd_groups, 2, 3, OPT_AUDIT, "DB USER [G1,G2,...]",
     "print or set a user's groups"},
    {"list", cmd_list, 1, 1, 0, "DB", "list the users"},
    {"show", cmd_show, 2, 2, 0, "DB USER",
     "print a user's record, second factors, app passwords and passkeys"},
    {"totp", cmd_totp, 2, 3, OPT_KEYS | OPT_ISSUER | OPT_AUDIT,
     "enrol DB USER --keys KEYFILE [--issuer NAME] | remove DB USER\n"
     "                    | reseal DB --keys KEYFILE",
     "enrol a TOTP secret (prints its otpauth:// URI), remove it (the "
     "user's cookies end), or seal every secret under the signing key"},
    {"recovery-codes", cmd_recovery_codes, 2, 2, OPT_COUNT | OPT_AUDIT,
     "DB USER [--count N]",
     "print a new set of recovery codes (the old set stops working)"},
    {"link", cmd_link, 1, 2,
     OPT_FOR | OPT_TTL | OPT_URL | OPT_LIST | OPT_REVOKE | OPT_AUDIT,
     "DB USER --for invite|reset|enrol [--ttl DURATION] [--url URL]\n"
     "                    | DB --list | DB USER --revoke [--for PURPOSE]",
     "print a one-time link that sets a password or adds an authenticator "
     "app or a first passkey (the old one of that purpose stops working), "
     "list or delete links"},
    {"token", cmd_token, 2, 4,
     OPT_NAME | OPT_SCOPES | OPT_EXPIRES | OPT_ALL | OPT_AUDIT | OPT_ACTIVITY,
     "add DB USER --name NAME [--scopes S1,S2] [--expires DURATION|never]\n"
     "                    | list DB [USER] [--activity FILE|pgsql:...]\n"
     "                    | revoke DB USER ID|--all",
     "make an app password (printed once), list them, or revoke one or "
     "all of a user's"},
    {"webauthn", cmd_webauthn, 3, 5, OPT_AUDIT,
     "list DB USER | rename DB USER ID NAME | remove DB USER ID\n"
     "                    | require-seal DB USER on|off",
     "list a user's passkeys (ids in base64url), rename one, remove one "
     "(the user's cookies end), or require the seal in every cookie of "
     "the user"},
    {"check", cmd_check, 2, 2, OPT_STDIN, "DB USER [--password-stdin]",
     "check a password as a login would"},
    {"keygen", cmd_keygen, 1, 1,
     OPT_KID | OPT_VERIFY_ONLY | OPT_SIGN | OPT_RETIRE,
     "KEYFILE [--kid ID] [--verify-only] | --sign ID | --retire ID",
     "create a key file, or add a key to one: first (signs) or last "
     "(--verify-only); --sign moves a key first, --retire removes one"},
    {"inspect", cmd_inspect, 1, 1,
     OPT_KEYS | OPT_DB | OPT_SCOPE | OPT_ADDRESS | OPT_NOW | OPT_SKEW
         | OPT_MAX_AGE,
     "--keys KEYFILE [--db DB] [--scope S] [--address A]\n"
     "                    [--now T] [--skew S] [--max-age S] COOKIE|-",
     "explain, step by step, why a cookie is accepted or refused"},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

void print_usage(FILE *f)
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
    const char *cmd, *action, *who;
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
    /* Only changes are audited ("groups DB USER" alone, "link DB --list"
     * and "token list" only print). */
    if (!(a.given & OPT_AUDIT) || (strcmp(cmd, "groups") == 0 && a.npos < 3)
        || (strcmp(cmd, "link") == 0 && (a.given & OPT_LIST))
        || ((strcmp(cmd, "token") == 0 || strcmp(cmd, "webauthn") == 0)
            && strcmp(a.pos[0], "list") == 0)) {
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
    /* The user is the argument after DB; "totp enrol DB USER" and "token
     * add DB USER" have one more word, and "totp reseal DB" no user. */
    action = cmd;
    who = a.pos[1];
    if (strcmp(cmd, "totp") == 0 || strcmp(cmd, "token") == 0
        || strcmp(cmd, "webauthn") == 0) {
        action = apr_pstrcat(pool, cmd, "-", a.pos[0], NULL);
        who = a.npos > 2 ? a.pos[2] : "";
    }
    arc = audit_change(fd, (a.given & OPT_AUDIT_SYSLOG) != 0, action, who, rc);
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
