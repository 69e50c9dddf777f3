/*
 * hsc_passkeys.c: the passkey calls' argument checks, then the factor
 * backend's entry (hsc_factors_backend.h), as hsc_factors.c does.
 */
#include <string.h>

#include "hsc_factors_backend.h"
#include "hsc_passkeys.h"
#include "hsc_token.h"

int hsc_passkey_name_valid(const char *name)
{
    return name != NULL && hsc_token_name_valid(name, strlen(name))
           && strlen(name) <= HSC_PASSKEY_NAME_MAX;
}

static hsc_status_t none(hsc_factors_t *f)
{
    hsc_factors_msgf(f, "this store has no passkeys");
    return HSC_ESTORE;
}

static int user_ok(hsc_factors_t *f, const char *user)
{
    if (user == NULL || !hsc_username_valid(user, strlen(user))) {
        hsc_factors_msgf(f, "passkey: invalid username");
        return 0;
    }
    return 1;
}

static int id_ok(hsc_factors_t *f, const unsigned char *id, size_t len)
{
    if (id == NULL || len == 0 || len > HSC_PASSKEY_ID_MAX) {
        hsc_factors_msgf(f, "passkey: invalid credential id");
        return 0;
    }
    return 1;
}

static int writable(hsc_factors_t *f)
{
    if (f->readonly) {
        hsc_factors_msgf(f, "the factors were opened read-only");
        return 0;
    }
    return 1;
}

/* Only characters a transports list is made of: "usb,nfc,internal". */
static int transports_ok(const char *t)
{
    size_t i, n = strnlen(t, HSC_PASSKEY_TRANSPORTS_MAX + 1);

    if (n > HSC_PASSKEY_TRANSPORTS_MAX) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        if (!((c >= 'a' && c <= 'z') || c == '-' || c == ',')) {
            return 0;
        }
    }
    return 1;
}

static int seal_is_zero(const unsigned char *h)
{
    static const unsigned char zero[HSC_PASSKEY_SEAL_LEN];

    return memcmp(h, zero, sizeof(zero)) == 0;
}

/* The checks of every add, then the handle to store: the caller's (the
 * one it offered the authenticator at registration), else a random one;
 * either is stored only when the user has none yet. */
static hsc_status_t add_checks(hsc_factors_t *f, const hsc_passkey_t *pk,
                               unsigned char handle[HSC_PASSKEY_HANDLE_LEN])
{
    static const unsigned char zero[HSC_PASSKEY_HANDLE_LEN];
    hsc_status_t st;

    if (!user_ok(f, pk->user) || !id_ok(f, pk->id, pk->id_len)) {
        return HSC_EINVAL;
    }
    if ((pk->alg != -7 && pk->alg != -8 && pk->alg != -257) || pk->spki_len == 0
        || pk->spki_len > HSC_PASSKEY_SPKI_MAX || pk->sign_count < 0
        || pk->sign_count > 0xffffffffLL || !hsc_passkey_name_valid(pk->name)
        || !transports_ok(pk->transports) || (pk->bs && !pk->be)) {
        hsc_factors_msgf(f, "passkey add: invalid algorithm, key, count, "
                            "name, transports or flags");
        return HSC_EINVAL;
    }
    if (pk->sealed && seal_is_zero(pk->seal_hash)) {
        /* Zeros are the seal switch's block (hsc_user_seal_required); no
         * z has them as its SHA-256, so only a bug or a forgery sends it. */
        hsc_factors_msgf(f, "passkey add: a seal hash of zeros");
        return HSC_EINVAL;
    }
    if (!writable(f)) {
        return HSC_EREADONLY;
    }
    if (memcmp(pk->handle, zero, sizeof(zero)) != 0) {
        memcpy(handle, pk->handle, HSC_PASSKEY_HANDLE_LEN);
    }
    else if ((st = hsc_random(handle, HSC_PASSKEY_HANDLE_LEN)) != HSC_OK) {
        hsc_factors_msgf(f, "passkey add: no random bytes for the handle");
        return st;
    }
    return HSC_OK;
}

hsc_status_t hsc_passkeys_add(hsc_factors_t *f, const hsc_passkey_t *pk,
                              const unsigned char xn[HSC_XN_LEN], int64_t now)
{
    unsigned char handle[HSC_PASSKEY_HANDLE_LEN];
    hsc_status_t st;

    if (xn == NULL) {
        hsc_factors_msgf(f, "passkey add: no x_n to prove the password");
        return HSC_EAUTH;
    }
    if ((st = add_checks(f, pk, handle)) != HSC_OK) {
        return st;
    }
    if (f->vt->passkey_add == NULL) {
        return none(f);
    }
    return f->vt->passkey_add(f, pk, xn, handle, now);
}

hsc_status_t
hsc_passkeys_add_by_link(hsc_factors_t *f, const hsc_passkey_t *pk,
                         const unsigned char link_hash[HSC_LINK_HASH_LEN],
                         int64_t now)
{
    unsigned char handle[HSC_PASSKEY_HANDLE_LEN];
    hsc_status_t st;

    if (link_hash == NULL) {
        hsc_factors_msgf(f, "passkey add: no link to prove it");
        return HSC_EAUTH;
    }
    if ((st = add_checks(f, pk, handle)) != HSC_OK) {
        return st;
    }
    if (f->vt->passkey_add_link == NULL) {
        hsc_factors_msgf(f, "this store cannot add a passkey by a link "
                            "(PostgreSQL: schema version 9 needed)");
        return HSC_ESTORE;
    }
    return f->vt->passkey_add_link(f, pk, link_hash, handle, now);
}

hsc_status_t hsc_passkeys_list(hsc_factors_t *f, const char *user,
                               hsc_passkeys_each_fn *fn, void *baton)
{
    if (!user_ok(f, user)) {
        return HSC_EINVAL;
    }
    return f->vt->passkey_list != NULL ? f->vt->passkey_list(f, user, fn, baton)
                                       : none(f);
}

hsc_status_t hsc_passkeys_get(hsc_factors_t *f, const unsigned char *id,
                              size_t len, hsc_passkey_t *out)
{
    memset(out, 0, sizeof(*out));
    if (id == NULL || len == 0 || len > HSC_PASSKEY_ID_MAX) {
        hsc_factors_msgf(f, "passkey: no such credential");
        return HSC_ENOUSER; /* no such id can be stored */
    }
    return f->vt->passkey_get != NULL ? f->vt->passkey_get(f, id, len, out)
                                      : none(f);
}

hsc_status_t hsc_passkeys_accept(hsc_factors_t *f, const unsigned char *id,
                                 size_t len, int64_t challenge_ms,
                                 int64_t new_count)
{
    if (!writable(f)) {
        return HSC_EREADONLY;
    }
    if (id == NULL || len == 0 || len > HSC_PASSKEY_ID_MAX || challenge_ms <= 0
        || new_count < 0 || new_count > 0xffffffffLL) {
        hsc_factors_msgf(f, "passkey accept: refused (malformed)");
        return HSC_EAUTH;
    }
    return f->vt->passkey_accept != NULL
               ? f->vt->passkey_accept(f, id, len, challenge_ms, new_count)
               : none(f);
}

hsc_status_t hsc_passkeys_rename(hsc_factors_t *f, const char *user,
                                 const unsigned char *id, size_t len,
                                 const char *name)
{
    if (!user_ok(f, user) || !id_ok(f, id, len)) {
        return HSC_ENOUSER;
    }
    if (!hsc_passkey_name_valid(name)) {
        hsc_factors_msgf(f, "passkey rename: invalid name");
        return HSC_EINVAL;
    }
    if (!writable(f)) {
        return HSC_EREADONLY;
    }
    return f->vt->passkey_rename != NULL
               ? f->vt->passkey_rename(f, user, id, len, name)
               : none(f);
}

hsc_status_t hsc_passkeys_remove(hsc_factors_t *f, const char *user,
                                 const unsigned char *id, size_t len)
{
    if (!user_ok(f, user) || !id_ok(f, id, len)) {
        return HSC_ENOUSER;
    }
    if (!writable(f)) {
        return HSC_EREADONLY;
    }
    return f->vt->passkey_remove != NULL
               ? f->vt->passkey_remove(f, user, id, len)
               : none(f);
}

hsc_status_t hsc_passkeys_handle(hsc_factors_t *f, const char *user,
                                 unsigned char out[HSC_PASSKEY_HANDLE_LEN])
{
    memset(out, 0, HSC_PASSKEY_HANDLE_LEN);
    if (!user_ok(f, user)) {
        return HSC_ENOUSER;
    }
    return f->vt->passkey_handle != NULL ? f->vt->passkey_handle(f, user, out)
                                         : none(f);
}

/* The raw seal column of user's row (with the switch's block). */
static hsc_status_t seal_column(hsc_factors_t *f, const char *user,
                                unsigned char *buf, size_t cap, size_t *len)
{
    *len = 0;
    if (!user_ok(f, user)) {
        return HSC_ENOUSER;
    }
    return f->vt->passkey_seals != NULL
               ? f->vt->passkey_seals(f, user, buf, cap, len)
               : none(f);
}

hsc_status_t hsc_passkeys_seals(hsc_factors_t *f, const char *user,
                                unsigned char *buf, size_t cap, size_t *len)
{
    hsc_user_t u;
    hsc_status_t st = seal_column(f, user, buf, cap, len);

    if (st == HSC_OK) {
        memset(&u, 0, sizeof(u));
        u.seals = buf;
        u.seals_len = *len;
        *len = hsc_user_seal_bytes(&u);
    }
    return st;
}

hsc_status_t hsc_passkeys_seal_required(hsc_factors_t *f, const char *user,
                                        int *on)
{
    unsigned char buf[HSC_SEALS_MAX * HSC_SEAL_HASH_LEN];
    hsc_user_t u;
    hsc_status_t st;

    *on = 0;
    memset(&u, 0, sizeof(u));
    st = seal_column(f, user, buf, sizeof(buf), &u.seals_len);
    if (st == HSC_OK) {
        u.seals = buf;
        *on = hsc_user_seal_required(&u);
    }
    return st;
}

hsc_status_t hsc_passkeys_require_seal(hsc_factors_t *f, const char *user,
                                       int on, const unsigned char *z)
{
    if (!user_ok(f, user)) {
        return HSC_ENOUSER;
    }
    if (!writable(f)) {
        return HSC_EREADONLY;
    }
    return f->vt->passkey_require_seal != NULL
               ? f->vt->passkey_require_seal(f, user, on ? 1 : 0, on ? NULL : z)
               : none(f);
}
