/*
 * inspect.c: hsc-admin inspect: explain, step by step as the module
 * verifies, why a cookie is accepted or refused.
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

#include "hsc_admin.h"

/* --- inspect ---------------------------------------------------------------
 */

static void step(int n, const char *name, const char *verdict, const char *why)
{
    printf("%d %-6s %s%s%s%s\n", n, name, verdict, why[0] ? " (" : "", why,
           why[0] ? ")" : "");
}

static const char *const step_names[] = {"",     "syntax", "key",  "mac",
                                         "time", "user",   "auth", "pending"};

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
        else if (!pass && ex->fields != 7 && ex->fields != 11) {
            snprintf(why, len,
                     "%d fields, expected 7 (format 1) or 11 "
                     "(format 2)",
                     ex->fields);
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
        else if (ex->why[n] == HSC_EMAXAGE && (c->amr & HSC_AMR_PENDING)
                 && now < c->iat + max_age) {
            snprintf(why, len, "a pending cookie living longer than %ds",
                     HSC_PENDING_TIMEOUT_DEFAULT);
        }
        else if (ex->why[n] == HSC_EMAXAGE) {
            snprintf(why, len, "login older than the maximum age %llds",
                     (long long)max_age);
        }
        else if (ex->why[n] == HSC_EMALFORMED) {
            snprintf(why, len,
                     "mfa_at does not match the second-factor bits "
                     "(0 exactly without one, else >= iat)");
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
        if (ex->why[n] == HSC_EREVOKED && c->format == 1) {
            snprintf(why, len, "revoked: logins before %s",
                     utc(ex->user.revoked_before, d, sizeof(d)));
        }
        else if (ex->why[n] == HSC_EREVOKED) {
            snprintf(why, len,
                     "revoked: minted under gen %lld, the user's "
                     "is %lld%s",
                     (long long)c->gen, (long long)ex->user.gen,
                     ex->user.gen < 0 ? " (none: run hsc-admin init)" : "");
        }
        else if (!pass && why[0] == '\0') {
            snprintf(why, len, "store: %s", hsc_store_errmsg(s));
        }
        break;
    case HSC_STEP_PENDING:
        snprintf(why, len, "%s",
                 pass ? "not pending"
                      : "second factor due: good at the second-factor step "
                        "only");
        break;
    default:
        snprintf(why, len, "%s",
                 (c->amr & HSC_AMR_SEAL)
                     ? "sealed: no passkey of the user's can match yet"
                 : pass
                     ? "SHA-256(auth) = v"
                     : "SHA-256(auth) != v: password changed since login, or a "
                       "forged cookie");
        break;
    }
}

/* Format 2's own fields: gen, the login id, the methods, mfa_at. */
static void print_format2(const hsc_cookie_t *c)
{
    char names[HSC_AMR_NAMES_MAX], d[32];
    size_t i;

    hsc_amr_names(c->amr, names);
    printf("gen     %lld\nlid     ", (long long)c->gen);
    for (i = 0; i < HSC_LID_LEN; i++) {
        printf("%02x", c->lid[i]);
    }
    printf("\namr     %u %s%s%s\n", c->amr, names,
           (c->amr & HSC_AMR_PENDING) ? " (pending)" : "",
           (c->amr & HSC_AMR_REM) ? " (remembered)" : "");
    if (c->mfa_at != 0) {
        printf("mfa_at  %lld %s\n", (long long)c->mfa_at,
               utc(c->mfa_at, d, sizeof(d)));
    }
    else {
        printf("mfa_at  0 (no second factor)\n");
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
int cmd_inspect(apr_pool_t *pool, const char *name, const args_t *a)
{
    (void)name;
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
        printf("version %d\nkid     %s\nuser    %s\niat     %lld %s\n"
               "exp     %lld %s\n",
               ex.cookie.format, ex.cookie.kid, ex.cookie.user,
               (long long)ex.cookie.iat, utc(ex.cookie.iat, d1, sizeof(d1)),
               (long long)ex.cookie.exp, utc(ex.cookie.exp, d2, sizeof(d2)));
        if (ex.cookie.format == 2) {
            print_format2(&ex.cookie);
        }
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
