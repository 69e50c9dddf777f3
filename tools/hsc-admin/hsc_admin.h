/*
 * hsc_admin.h: what the parts of hsc-admin share: exit codes, the parsed
 * command line, messages, input checks, the store and key helpers, and
 * one function per command, all of one shape. main.c holds the command
 * table; users.c the user commands; keys.c keygen; inspect.c inspect;
 * tty.c reading passwords; factors.c the second-factor commands;
 * links.c one-time links; tokens.c app passwords.
 */
#ifndef HSC_ADMIN_H
#define HSC_ADMIN_H

#include <stdio.h>

#include <apr_pools.h>

#include "hsc_util.h"
#include "hsc_kdf.h"
#include "hsc_links.h"
#include "hsc_keys.h"
#include "hsc_store.h"
#include "hsc_defaults.h"

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

/* The options, one bit each (args_t.given); 32 at most. */
#define OPT_GROUPS (1u << 0)
#define OPT_KDF (1u << 1)
#define OPT_STDIN (1u << 2)
#define OPT_KID (1u << 3)
#define OPT_KEYS (1u << 4)
#define OPT_DB (1u << 5)
#define OPT_SCOPE (1u << 6)
#define OPT_ADDRESS (1u << 7)
#define OPT_NOW (1u << 8)
#define OPT_SKEW (1u << 9)
#define OPT_MAX_AGE (1u << 10)
#define OPT_FORCE (1u << 11)
#define OPT_VERIFY_ONLY (1u << 12)
#define OPT_SIGN (1u << 13)
#define OPT_RETIRE (1u << 14)
#define OPT_AUDIT_LOG (1u << 15)
#define OPT_AUDIT_SYSLOG (1u << 16)
#define OPT_ISSUER (1u << 17)
#define OPT_COUNT (1u << 18)
#define OPT_MIN_LENGTH (1u << 19)
#define OPT_BLOCKLIST (1u << 20)
#define OPT_FOR (1u << 21)
#define OPT_TTL (1u << 22)
#define OPT_URL (1u << 23)
#define OPT_LIST (1u << 24)
#define OPT_REVOKE (1u << 25)
#define OPT_INVITE (1u << 26)
#define OPT_NAME (1u << 27)
#define OPT_SCOPES (1u << 28)
#define OPT_EXPIRES (1u << 29)
#define OPT_ALL (1u << 30)
#define OPT_ACTIVITY (1u << 31)
/* The commands that change a user through the store are audited. */
#define OPT_AUDIT (OPT_AUDIT_LOG | OPT_AUDIT_SYSLOG)
/* The commands that set a password take the policy's options. */
#define OPT_POLICY (OPT_MIN_LENGTH | OPT_BLOCKLIST)

/* The number of rows of main.c's option table. */
#define HSC_ADMIN_NOPTIONS 32
#define MAXPOS 5

typedef struct {
    const char *pos[MAXPOS];
    int npos;
    unsigned given;                        /* OPT_* bits */
    const char *value[HSC_ADMIN_NOPTIONS]; /* by index into options[] */
} args_t;

/* --- messages (main.c) ---------------------------------------------------- */

/* "hsc-admin: <message>" on stderr; returns code. */
int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same, then the usage; returns EX_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The exit code a status deserves (hsc_status_class). */
int store_exit(hsc_status_t st);
/* Unix seconds as an ISO 8601 UTC date into buf. */
const char *utc(int64_t t, char *buf, size_t len);
/* The value of an option given (OPT_* bit), or NULL. */
const char *opt(const args_t *a, unsigned bit);
/* The usage, from the command table. */
void print_usage(FILE *f);
/* Why a change failed, for the audit line (set by store_fail). */
extern const char *audit_reason;

/* --- input, passwords, store, keys (users.c, tty.c, keys.c) --------------- */

int check_user(const char *user);
int check_groups(const char *groups);
int check_new_user(const char *user);
int check_kdf(const char *spec, hsc_kdf_t *k, int force);

/* The new-password policy of add and passwd (hsc_core/hsc_policy.h). */
typedef struct {
    int off;                          /* --force: any password */
    int min_chars;                    /* --min-length, or 0: by the factors */
    const struct hsc_blocklist *list; /* --blocklist, the built-in, NULL */
} policy_t;
/* Read --force, --min-length and --blocklist before a password is asked. */
int policy_prepare(apr_pool_t *pool, const args_t *a, policy_t *pol);
/* Refuse pw of user (EX_INPUT, with the rule) unless pol allows it;
 * has_factor: the user has a second factor (8 characters, not 15). */
int policy_check(apr_pool_t *pool, const policy_t *pol, const char *user,
                 const char *pw, size_t len, int has_factor);
int parse_seconds(const char *s, int64_t *out);
int get_password(int from_stdin, int confirm, int allow_empty, char *buf,
                 size_t *len);
int is_pgsql(const char *db);
int open_store(const char *db, int flags, hsc_store_t **ps);
int store_fail(hsc_store_t *s, const char *user, hsc_status_t st);
int write_all(int fd, const char *p, size_t len);
hsc_status_t load_keys(apr_pool_t *p, const char *path, hsc_keyring_t **pkr);

/* --- the commands: (pool, the command's name, its arguments) -------------- */

int cmd_init(apr_pool_t *pool, const char *name, const args_t *a);
int cmd_add(apr_pool_t *pool, const char *name, const args_t *a);
int cmd_passwd(apr_pool_t *pool, const char *name, const args_t *a);
int cmd_simple(apr_pool_t *pool, const char *name, const args_t *a);
int cmd_groups(apr_pool_t *pool, const char *name, const args_t *a);
int cmd_list(apr_pool_t *pool, const char *name, const args_t *a);
int cmd_check(apr_pool_t *pool, const char *name, const args_t *a);
int cmd_keygen(apr_pool_t *pool, const char *name, const args_t *a);
int cmd_inspect(apr_pool_t *pool, const char *name, const args_t *a);
int cmd_totp(apr_pool_t *pool, const char *name, const args_t *a);
int cmd_recovery_codes(apr_pool_t *pool, const char *name, const args_t *a);
int cmd_show(apr_pool_t *pool, const char *name, const args_t *a);
int cmd_link(apr_pool_t *pool, const char *name, const args_t *a);
int cmd_token(apr_pool_t *pool, const char *name, const args_t *a);
/* show's tokens of user: a count, then a line each (tokens.c). */
int show_tokens(hsc_store_t *s, const char *user);
/* webauthn.c: webauthn list|rename|remove, and the passkeys of show. */
int cmd_webauthn(apr_pool_t *pool, const char *name, const args_t *a);
struct hsc_factors;
int show_passkeys(struct hsc_factors *f, const char *user);
/* A new one-time link of user for purpose, printed (links.c); --ttl and
 * --url of a. */
int link_issue(apr_pool_t *pool, const args_t *a, const char *db,
               const char *user, hsc_link_purpose_t purpose);

#endif /* HSC_ADMIN_H */
