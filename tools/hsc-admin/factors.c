/*
 * factors.c: the second-factor commands of hsc-admin (docs/hsc-admin.md):
 * totp enrol|remove, recovery-codes, show (its tokens: tokens.c). They work on
 * the factor tables of an SQLite user database (hsc_factors.h); TOTP secrets
 * are sealed under the key file's sealing key, so enrol needs --keys.
 */
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hsc_factors.h"
#include "hsc_recovery.h"
#include "hsc_qr.h"
#include "hsc_seal.h"
#include "hsc_totp.h"

#include "hsc_admin.h"

/* Open the factors of db; EX_OK or the exit code (reported). */
static int open_factors(const char *db, int readonly, hsc_factors_t **pf)
{
    char err[512];
    hsc_status_t st = hsc_factors_open(db, readonly, pf, err, sizeof(err));

    if (st != HSC_OK) {
        return fail(st == HSC_EINVAL ? EX_INPUT : EX_FILE, "%s", err);
    }
    return EX_OK;
}

/* Report a failed factor call on user. */
static int factors_fail(hsc_factors_t *f, const char *user, hsc_status_t st,
                        const char *what)
{
    audit_reason = st == HSC_ENOUSER     ? "no_such_user"
                   : st == HSC_EREADONLY ? "read_only"
                                         : "store_fault";
    if (st == HSC_ENOUSER) {
        return fail(EX_INPUT, "%s: %s", user, what);
    }
    return fail(store_exit(st), "%s: %s (%s)", user, hsc_strerror(st),
                hsc_factors_errmsg(f));
}

/* End the user's sessions after a factor went: gen + 1 (hsc-v2.md). */
static int revoke_sessions(const char *db, const char *user)
{
    hsc_store_t *s = NULL;
    hsc_status_t st;
    int rc = open_store(db, 0, &s);

    if (rc != EX_OK) {
        return rc;
    }
    st = hsc_store_revoke_now(s, user, (int64_t)time(NULL));
    rc = st == HSC_OK ? EX_OK : store_fail(s, user, st);
    hsc_store_close(s);
    return rc;
}

/* totp enrol DB USER --keys KEYFILE [--issuer NAME] */
static int totp_enrol(apr_pool_t *pool, const args_t *a)
{
    const char *db = a->pos[1], *user = a->pos[2];
    const char *issuer = opt(a, OPT_ISSUER) ? opt(a, OPT_ISSUER) : "mod_hsc";
    unsigned char secret[HSC_TOTP_SECRET_LEN];
    unsigned char sealed[HSC_TOTP_SEALED_MAX];
    char uri[1024], text[HSC_BASE32_LEN(HSC_TOTP_SECRET_LEN) + 1];
    hsc_keyring_t *kr = NULL;
    hsc_totp_params_t p;
    hsc_factors_t *f = NULL;
    hsc_status_t st;
    size_t n = 0;
    int rc;

    if (!(a->given & OPT_KEYS)) {
        return usage_error("totp enrol needs --keys KEYFILE (the secret is "
                           "sealed under its key)");
    }
    if ((rc = check_user(user)) != EX_OK) {
        return rc;
    }
    if (load_keys(pool, opt(a, OPT_KEYS), &kr) != HSC_OK) {
        return EX_FILE;
    }
    hsc_totp_defaults(&p);
    st = hsc_random(secret, sizeof(secret));
    if (st == HSC_OK) {
        st = hsc_seal(hsc_keyring_signer(kr), "totp", user, secret,
                      sizeof(secret), sealed, sizeof(sealed), &n);
    }
    if (st == HSC_OK) {
        st = hsc_totp_uri(&p, issuer, user, secret, sizeof(secret), uri,
                          sizeof(uri));
    }
    text[hsc_base32_encode(secret, sizeof(secret), text)] = '\0';
    hsc_wipe(secret, sizeof(secret));
    if (st != HSC_OK) {
        hsc_wipe(text, sizeof(text));
        return fail(st == HSC_ETOOLONG ? EX_INPUT : EX_FILE,
                    "cannot make the secret: %s", hsc_strerror(st));
    }
    if ((rc = open_factors(db, 0, &f)) != EX_OK) {
        hsc_wipe(text, sizeof(text));
        hsc_wipe(uri, sizeof(uri));
        return rc;
    }
    st = hsc_factors_totp_enrol(f, user, sealed, n, &p, 1, (int64_t)time(NULL));
    if (st != HSC_OK) {
        rc = factors_fail(f, user, st, "no such user");
    }
    else {
        /* The URI alone on its line: scripts and QR tools take it; on a
         * terminal, its QR code below it for the phone to scan. */
        const char *qr = isatty(STDOUT_FILENO) ? hsc_qr_text(pool, uri) : NULL;
        printf("%s\n%s", uri, qr ? qr : "");
        fprintf(stderr,
                "%s: TOTP enrolled and active; the secret (for typing into "
                "an app): %s\n",
                user, text);
    }
    hsc_wipe(text, sizeof(text));
    hsc_wipe(uri, sizeof(uri));
    hsc_factors_close(f);
    return rc;
}

static int totp_remove(const args_t *a)
{
    const char *db = a->pos[1], *user = a->pos[2];
    hsc_factors_t *f = NULL;
    hsc_status_t st;
    int rc;

    if ((rc = check_user(user)) || (rc = open_factors(db, 0, &f))) {
        return rc;
    }
    st = hsc_factors_totp_remove(f, user);
    rc = st == HSC_OK ? EX_OK : factors_fail(f, user, st, "no TOTP enrolled");
    hsc_factors_close(f);
    if (rc != EX_OK) {
        return rc;
    }
    if ((rc = revoke_sessions(db, user)) != EX_OK) {
        return rc;
    }
    printf("%s: TOTP removed; the user's cookies are refused\n", user);
    return EX_OK;
}

/* hsc_factors_reseal_fn: open with any key of the ring, seal under its
 * signer; HSC_EAUTH when no key of the ring opens it. */
static hsc_status_t reseal_one(void *baton, const char *user,
                               const unsigned char *sealed, size_t len,
                               unsigned char *out, size_t cap, size_t *outlen)
{
    const hsc_keyring_t *kr = baton;
    unsigned char secret[HSC_TOTP_SECRET_MAX];
    const hsc_key_t *used = NULL;
    size_t n = 0;
    hsc_status_t st;

    st = hsc_unseal(kr, "totp", user, sealed, len, secret, sizeof(secret), &n,
                    &used);
    if (st != HSC_OK) {
        fprintf(stderr,
                "hsc-admin: %s: the TOTP secret does not open with any key of "
                "this file (left as it is: enrol again)\n",
                user);
        return HSC_EAUTH;
    }
    st = hsc_seal(hsc_keyring_signer(kr), "totp", user, secret, n, out, cap,
                  outlen);
    hsc_wipe(secret, sizeof(secret));
    return st;
}

/* totp reseal DB --keys KEYFILE: every secret under the signing key. */
static int totp_reseal(apr_pool_t *pool, const args_t *a)
{
    hsc_keyring_t *kr = NULL;
    hsc_factors_t *f = NULL;
    int rc, resealed = 0, unopened = 0;
    hsc_status_t st;

    if (!(a->given & OPT_KEYS)) {
        return usage_error("totp reseal needs --keys KEYFILE");
    }
    if (load_keys(pool, opt(a, OPT_KEYS), &kr) != HSC_OK) {
        return EX_FILE;
    }
    if ((rc = open_factors(a->pos[1], 0, &f)) != EX_OK) {
        return rc;
    }
    st = hsc_factors_totp_reseal(f, reseal_one, kr, &resealed, &unopened);
    if (st != HSC_OK) {
        rc = fail(store_exit(st), "%s", hsc_factors_errmsg(f));
    }
    else {
        printf("%d TOTP secrets sealed under key %s", resealed,
               hsc_key_id(hsc_keyring_signer(kr)));
        printf(unopened ? "; %d could not be opened\n" : "\n", unopened);
        rc = unopened ? EX_REFUSED : EX_OK;
    }
    hsc_factors_close(f);
    return rc;
}

int cmd_totp(apr_pool_t *pool, const char *name, const args_t *a)
{
    (void)name;
    if (strcmp(a->pos[0], "reseal") == 0) {
        if (a->npos != 2 || (a->given & OPT_ISSUER)) {
            return usage_error("totp reseal DB --keys KEYFILE");
        }
        return totp_reseal(pool, a);
    }
    if (a->npos != 3) {
        return usage_error("totp: wrong number of arguments");
    }
    if (strcmp(a->pos[0], "enrol") == 0) {
        return totp_enrol(pool, a);
    }
    if (strcmp(a->pos[0], "remove") == 0) {
        if (a->given & (OPT_KEYS | OPT_ISSUER)) {
            return usage_error("totp remove takes no --keys or --issuer");
        }
        return totp_remove(a);
    }
    return usage_error("totp: enrol, remove or reseal, not \"%s\"", a->pos[0]);
}

/* recovery-codes DB USER [--count N]: a new set, printed once. */
int cmd_recovery_codes(apr_pool_t *pool, const char *name, const args_t *a)
{
    (void)pool;
    (void)name;
    const char *db = a->pos[0], *user = a->pos[1];
    unsigned char hashes[HSC_RECOVERY_MAX_COUNT][HSC_RECOVERY_HASH_LEN];
    char codes[HSC_RECOVERY_MAX_COUNT][HSC_RECOVERY_SHOWN_SIZE];
    long count = HSC_RECOVERY_DEFAULT_COUNT;
    hsc_factors_t *f = NULL;
    hsc_status_t st = HSC_OK;
    char *end;
    long i;
    int rc;

    if (opt(a, OPT_COUNT) != NULL) {
        count = strtol(opt(a, OPT_COUNT), &end, 10);
        if (*end != '\0' || count < 1 || count > HSC_RECOVERY_MAX_COUNT) {
            return fail(EX_INPUT, "--count: 1 to %d", HSC_RECOVERY_MAX_COUNT);
        }
    }
    if ((rc = check_user(user)) || (rc = open_factors(db, 0, &f))) {
        return rc;
    }
    st = hsc_recovery_make(user, (size_t)count, codes, hashes);
    if (st == HSC_OK) {
        st = hsc_factors_recovery_set(f, user,
                                      (const unsigned char(*)[32])hashes,
                                      (size_t)count, (int64_t)time(NULL));
        if (st != HSC_OK) {
            rc = factors_fail(f, user, st, "no such user");
        }
    }
    else {
        rc = fail(EX_FILE, "cannot make codes: %s", hsc_strerror(st));
    }
    for (i = 0; rc == EX_OK && i < count; i++) {
        printf("%s\n", codes[i]);
    }
    hsc_wipe(codes, sizeof(codes));
    hsc_factors_close(f);
    return rc;
}

/* show DB USER: the user's record and factors, one "name: value" a line. */
int cmd_show(apr_pool_t *pool, const char *name, const args_t *a)
{
    (void)pool;
    (void)name;
    const char *db = a->pos[0], *user = a->pos[1];
    hsc_factor_info_t fi;
    hsc_factors_t *f = NULL;
    hsc_store_t *s = NULL;
    hsc_status_t st;
    hsc_user_t u;
    char when[32];
    int rc;

    if ((rc = check_user(user))
        || (rc = open_store(db, HSC_STORE_READONLY, &s))) {
        return rc;
    }
    st = hsc_store_get_fresh(s, user, strlen(user), &u);
    if (st != HSC_OK) {
        rc = store_fail(s, user, st);
        hsc_store_close(s);
        return rc;
    }
    printf("user: %s\ngroups: %s\ndisabled: %s\n", user, u.groups,
           u.disabled ? "yes" : "no");
    printf("created: %s\n", utc(u.created, when, sizeof(when)));
    if (u.gen >= 0) {
        printf("gen: %lld\n", (long long)u.gen);
    }
    if ((rc = open_factors(db, 1, &f)) != EX_OK) {
        hsc_store_close(s);
        return rc;
    }
    st = hsc_factors_get(f, user, &fi);
    if (st != HSC_OK) {
        rc = factors_fail(f, user, st, "");
    }
    else {
        if (fi.totp == HSC_TOTP_NONE) {
            printf("totp: no\n");
        }
        else {
            printf("totp: %s (%s, %u digits, %u s), since %s\n",
                   fi.totp == HSC_TOTP_ACTIVE ? "yes"
                                              : "waiting for its first code",
                   hsc_totp_alg_name(fi.params.alg), fi.params.digits,
                   fi.params.period, utc(fi.totp_created, when, sizeof(when)));
        }
        printf("recovery codes left: %d\n", fi.recovery_left);
        rc = show_tokens(s, user);
        if (rc == EX_OK) {
            rc = show_passkeys(f, user);
        }
    }
    hsc_factors_close(f);
    hsc_store_close(s);
    return rc;
}
