/*
 * webauthn.c: hsc-admin webauthn list|rename|remove|require-seal, a
 * user's passkeys and seal switch (docs/hsc-admin.md;
 * hsc_core/hsc_passkeys.h), and the passkeys of show.
 * Only the hsc_passkeys_* calls touch the store, so every command works
 * on an SQLite file and a pgsql: database alike. A credential id is
 * printed and read as base64url; a key or a seal hash is never printed.
 * Registering a passkey needs a browser (the account page), so there is
 * no "webauthn add".
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hsc_b64.h"
#include "hsc_passkeys.h"

#include "hsc_admin.h"

/* Report a failed passkey call on user; id: the credential named. */
static int passkeys_fail(hsc_factors_t *f, const char *user, const char *id,
                         hsc_status_t st)
{
    audit_reason = st == HSC_ENOUSER     ? "no_such_passkey"
                   : st == HSC_EREADONLY ? "read_only"
                   : st == HSC_EINVAL    ? "bad_input"
                                         : "store_fault";
    switch (st) {
    case HSC_ENOUSER:
        return fail(EX_INPUT, "%s: no passkey %s (unknown, or another user's)",
                    user, id);
    case HSC_EINVAL:
        return fail(EX_INPUT,
                    "%s: invalid passkey name (1 to %d printable ASCII "
                    "characters, no space first or last)",
                    user, HSC_PASSKEY_NAME_MAX);
    case HSC_EREADONLY:
        return fail(EX_FILE, "the database is read-only for this user");
    default:
        return fail(store_exit(st), "%s: passkeys: %s (%s)", user,
                    hsc_strerror(st), hsc_factors_errmsg(f));
    }
}

/* Open the store (to check that user exists: a typo is not "no
 * passkeys") and the factors. EX_OK or the exit code (reported). */
static int open_both(const char *db, const char *user, int readonly,
                     hsc_store_t **ps, hsc_factors_t **pf)
{
    char err[512];
    hsc_user_t u;
    hsc_status_t st;
    int rc;

    *ps = NULL;
    *pf = NULL;
    if ((rc = check_user(user)) != EX_OK
        || (rc = open_store(db, readonly ? HSC_STORE_READONLY : 0, ps))
               != EX_OK) {
        return rc;
    }
    st = hsc_store_get_fresh(*ps, user, strlen(user), &u);
    hsc_wipe(&u, sizeof(u));
    if (st != HSC_OK) {
        rc = store_fail(*ps, user, st);
    }
    else if ((st = hsc_factors_open(db, readonly, pf, err, sizeof(err)))
             != HSC_OK) {
        rc = fail(st == HSC_EINVAL ? EX_INPUT : EX_FILE, "%s", err);
    }
    if (rc != EX_OK) {
        hsc_store_close(*ps);
        *ps = NULL;
    }
    return rc;
}

/* The id of ID's text into id; EX_OK or EX_INPUT (reported). */
static int parse_id(const char *text, unsigned char *id, size_t *len)
{
    if (hsc_b64url_decode(text, strlen(text), id, HSC_PASSKEY_ID_MAX, len)
            != HSC_OK
        || *len == 0) {
        audit_reason = "bad_input";
        return fail(EX_INPUT,
                    "%s: not a credential id (base64url, as webauthn list "
                    "prints it)",
                    text);
    }
    return EX_OK;
}

/* list: one line a passkey, fields separated by tabs: id (base64url),
 * name, created, sealed or not, algorithm, flags, transports. */
static int passkey_print(void *baton, const hsc_passkey_t *pk)
{
    char id[HSC_PASSKEY_ID_B64_MAX], cr[32];

    (void)baton;
    hsc_b64url_encode(pk->id, pk->id_len, id);
    printf("%s\t%s\t%s\t%s\t%s\t%s%s%s\t%s\n", id, pk->name,
           utc(pk->created, cr, sizeof(cr)),
           pk->sealed ? "sealed" : "not sealed",
           pk->alg == -7   ? "ES256"
           : pk->alg == -8 ? "EdDSA"
                           : "RS256",
           pk->uv ? "uv" : "no-uv", pk->be ? ",backup-eligible" : "",
           pk->bs ? ",backed-up" : "",
           pk->transports[0] ? pk->transports : "-");
    return 0;
}

static int webauthn_list(const args_t *a)
{
    const char *db = a->pos[1], *user = a->pos[2];
    hsc_factors_t *f;
    hsc_store_t *s;
    hsc_status_t st;
    int rc;

    if (a->npos != 3) {
        return usage_error("webauthn list DB USER");
    }
    if ((rc = open_both(db, user, 1, &s, &f)) != EX_OK) {
        return rc;
    }
    st = hsc_passkeys_list(f, user, passkey_print, NULL);
    if (st != HSC_OK) {
        rc = fail(store_exit(st), "webauthn list: %s (%s)", hsc_strerror(st),
                  hsc_factors_errmsg(f));
    }
    hsc_factors_close(f);
    hsc_store_close(s);
    return rc;
}

static int webauthn_rename(const args_t *a)
{
    const char *db = a->pos[1], *user = a->pos[2];
    unsigned char id[HSC_PASSKEY_ID_MAX];
    size_t len = 0;
    hsc_factors_t *f;
    hsc_store_t *s;
    hsc_status_t st;
    int rc;

    if (a->npos != 5) {
        return usage_error("webauthn rename DB USER ID NAME");
    }
    if ((rc = parse_id(a->pos[3], id, &len)) != EX_OK
        || (rc = open_both(db, user, 0, &s, &f)) != EX_OK) {
        return rc;
    }
    st = hsc_passkeys_rename(f, user, id, len, a->pos[4]);
    if (st != HSC_OK) {
        rc = passkeys_fail(f, user, a->pos[3], st);
    }
    else {
        printf("%s: passkey renamed\n", user);
    }
    hsc_factors_close(f);
    hsc_store_close(s);
    return rc;
}

/* remove: the passkey goes (its seal hash leaves the user's row in the
 * same transaction), then the user's sessions end (gen + 1), as after
 * totp remove: a cookie made with a lost authenticator stops working. */
static int webauthn_remove(const args_t *a)
{
    const char *db = a->pos[1], *user = a->pos[2];
    unsigned char id[HSC_PASSKEY_ID_MAX];
    size_t len = 0;
    hsc_factors_t *f;
    hsc_store_t *s;
    hsc_status_t st;
    int rc;

    if (a->npos != 4) {
        return usage_error("webauthn remove DB USER ID");
    }
    if ((rc = parse_id(a->pos[3], id, &len)) != EX_OK
        || (rc = open_both(db, user, 0, &s, &f)) != EX_OK) {
        return rc;
    }
    st = hsc_passkeys_remove(f, user, id, len);
    if (st != HSC_OK) {
        rc = passkeys_fail(f, user, a->pos[3], st);
    }
    else if ((st = hsc_store_revoke_now(s, user, (int64_t)time(NULL)))
             != HSC_OK) {
        rc = store_fail(s, user, st);
    }
    else {
        printf("%s: passkey removed; the user's sessions end\n", user);
    }
    hsc_factors_close(f);
    hsc_store_close(s);
    return rc;
}

/* require-seal DB USER on|off: every cookie of the user needs the seal
 * (on: refused unless every passkey of the user is sealed). No gen + 1:
 * turning it on makes the user's unsealed cookies fail by themselves;
 * turning it off ends nothing. */
static int webauthn_require_seal(const args_t *a)
{
    const char *db = a->pos[1], *user = a->pos[2], *v = a->pos[3];
    hsc_factors_t *f;
    hsc_store_t *s;
    hsc_status_t st;
    int rc, on;

    if (a->npos != 4
        || ((on = strcmp(v, "on") == 0) == 0 && strcmp(v, "off") != 0)) {
        return usage_error("webauthn require-seal DB USER on|off");
    }
    if ((rc = open_both(db, user, 0, &s, &f)) != EX_OK) {
        return rc;
    }
    /* z NULL: the administrator's off, which needs no seal. */
    st = hsc_passkeys_require_seal(f, user, on, NULL);
    if (st == HSC_EINVAL) {
        audit_reason = "bad_input";
        rc = fail(EX_INPUT,
                  "%s: the seal can be required only while the user has a "
                  "passkey and every one is sealed (%s)",
                  user, hsc_factors_errmsg(f));
    }
    else if (st != HSC_OK) {
        rc = passkeys_fail(f, user, "", st);
    }
    else {
        printf("%s: the seal is %s\n", user,
               on ? "required: every cookie without it is refused"
                  : "no longer required");
    }
    hsc_factors_close(f);
    hsc_store_close(s);
    return rc;
}

int cmd_webauthn(apr_pool_t *pool, const char *name, const args_t *a)
{
    const char *sub = a->pos[0];

    (void)pool;
    (void)name;
    if (strcmp(sub, "list") == 0) {
        return webauthn_list(a);
    }
    if (strcmp(sub, "rename") == 0) {
        return webauthn_rename(a);
    }
    if (strcmp(sub, "remove") == 0) {
        return webauthn_remove(a);
    }
    if (strcmp(sub, "require-seal") == 0) {
        return webauthn_require_seal(a);
    }
    return usage_error("webauthn: list, rename, remove or require-seal");
}

/* show: "passkeys: N", "seal required: yes|no", then a "passkey:" line
 * each. */
static int passkey_show_one(void *baton, const hsc_passkey_t *pk)
{
    int *n = baton;
    char cr[32];

    if (*n >= 0) {
        ++*n;
        return 0;
    }
    printf("passkey: \"%s\", created %s, %s\n", pk->name,
           utc(pk->created, cr, sizeof(cr)),
           pk->sealed ? "sealed" : "not sealed");
    return 0;
}

int show_passkeys(hsc_factors_t *f, const char *user)
{
    int n = 0, print = -1, on = 0;
    hsc_status_t st;

    /* Counted first, so the count heads the list. */
    st = hsc_passkeys_list(f, user, passkey_show_one, &n);
    if (st == HSC_OK) {
        st = hsc_passkeys_seal_required(f, user, &on);
    }
    if (st == HSC_OK) {
        printf("passkeys: %d\n", n);
        printf("seal required: %s\n", on ? "yes" : "no");
        st = hsc_passkeys_list(f, user, passkey_show_one, &print);
    }
    if (st != HSC_OK) {
        return fail(store_exit(st), "%s: passkeys: %s (%s)", user,
                    hsc_strerror(st), hsc_factors_errmsg(f));
    }
    return EX_OK;
}
