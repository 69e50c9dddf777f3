/*
 * hsc_passkeys.h: passkeys (WebAuthn credentials) in the user
 * database, on the factor store's handle (hsc_factors.h): nothing here is
 * read on an ordinary request. docs/dev/passkeys.md says what is built
 * and why.
 *
 * SQLite (schema version 6): the tables hsc_passkeys and
 * hsc_passkey_users in the user file; the one-time rule's write (the last
 * accepted challenge's time and the sign count, per credential) goes to
 * the state file "<file>-state" (hsc_passkey_used), as TOTP's last step
 * does, never to the user file. PostgreSQL (schema version 7): the same
 * tables, reached by the httpd role only through SECURITY DEFINER
 * functions (hsc_core/sql/pgsql/007-passkeys.sql). On both, the user's
 * seal hashes are also in the user's row (hsc_users.passkey_seals),
 * rewritten in the transaction of every add and remove. An older schema
 * has no passkeys: every call is HSC_ESTORE naming the upgrade.
 */
#ifndef HSC_PASSKEYS_H
#define HSC_PASSKEYS_H

#include <stddef.h>
#include <stdint.h>

#include "hsc_factors.h"

/** The schema versions that made the passkey tables. */
#define HSC_PASSKEYS_SQLITE_VERSION 6
#define HSC_PASSKEYS_PGSQL_VERSION 7

/** Bounds (the schema's CHECKs say the same). */
#define HSC_PASSKEY_ID_MAX 1023
#define HSC_PASSKEY_SPKI_MAX 1024
#define HSC_PASSKEY_HANDLE_LEN 32
#define HSC_PASSKEY_SEAL_LEN 32
#define HSC_PASSKEY_NAME_MAX 64
#define HSC_PASSKEY_TRANSPORTS_MAX 128
/** Sealed credentials a user may have (the seal column's bound). */
#define HSC_PASSKEY_SEALS_MAX 64
/** Characters of an id in base64url, with its NUL. */
#define HSC_PASSKEY_ID_B64_MAX 1366

/** One credential. */
typedef struct {
    unsigned char id[HSC_PASSKEY_ID_MAX];
    size_t id_len;
    char user[HSC_USER_MAX + 1];
    /* The user's handle: filled by hsc_passkeys_get only. */
    unsigned char handle[HSC_PASSKEY_HANDLE_LEN];
    int alg; /* COSE: -7, -8 or -257 */
    /* The key (SPKI DER): filled by hsc_passkeys_get only. */
    unsigned char spki[HSC_PASSKEY_SPKI_MAX];
    size_t spki_len;
    int64_t sign_count; /* 0 .. 2^32 - 1; get: the last accepted one */
    int be, bs;         /* backup eligible, backed up */
    int uv;             /* user verification done at registration */
    int prf;            /* the credential has PRF */
    int sealed;         /* it has a seal hash */
    /* SHA-256(z): filled by hsc_passkeys_get (and read by add) only. */
    unsigned char seal_hash[HSC_PASSKEY_SEAL_LEN];
    char transports[HSC_PASSKEY_TRANSPORTS_MAX + 1]; /* "usb,internal" */
    char name[HSC_PASSKEY_NAME_MAX + 1]; /* hsc_passkey_name_valid */
    int64_t created;                     /* Unix seconds */
    /* The last accepted assertion's challenge time (Unix seconds), from
     * the one-time rule's state: filled by hsc_passkeys_list on SQLite
     * when the handle is not read-only, and on PostgreSQL from schema
     * version 10; 0: never, or not known. */
    int64_t last_used;
} hsc_passkey_t;

/**
 * Store the credential pk for pk->user, proved by xn (HSC_XN_LEN bytes:
 * the cookie's x_n), checked in the statement or function that inserts:
 * only while pk->user is enabled and SHA-256(xn) is the stored
 * authenticator. The user's handle is made at the first credential:
 * pk->handle when it is not all zero (the one the caller offered the
 * authenticator), else 32 random bytes. created is now; the seal hash (when
 * pk->sealed) joins the user's row in the same transaction. HSC_OK; HSC_EAUTH
 * (the proof is refused: no such enabled user with that x_n); HSC_EEXISTS (the
 * id is registered already, to anyone); HSC_EINVAL (a field the schema
 * refuses); HSC_EREADONLY; HSC_ESTORE.
 */
hsc_status_t hsc_passkeys_add(hsc_factors_t *f, const hsc_passkey_t *pk,
                              const unsigned char xn[HSC_XN_LEN],
                              int64_t now) HSC_MUST_CHECK;

/**
 * Store the first credential of pk->user, proved by a one-time enrolment
 * link (hsc_links.h; link_hash is the SHA-256 of its secret) instead of
 * x_n: in one transaction the link's row (purpose enrol, valid at now,
 * whose user is pk->user) is deleted and the credential inserted, so that
 * a link used twice adds at most one passkey. Refused while pk->user has
 * a passkey already (a link adds only the first one; the link stays).
 * HSC_OK; HSC_EAUTH (no such valid link of pk->user, or the user is
 * disabled); HSC_EINVAL (the user has a passkey already, or a field);
 * HSC_EEXISTS (the id is registered already); HSC_EREADONLY; HSC_ESTORE.
 */
hsc_status_t
hsc_passkeys_add_by_link(hsc_factors_t *f, const hsc_passkey_t *pk,
                         const unsigned char link_hash[HSC_LINK_HASH_LEN],
                         int64_t now) HSC_MUST_CHECK;

/** fn for each credential of user, oldest first; non-zero from fn stops.
 *  A listed credential has no key, handle or seal hash (sealed says). */
typedef int hsc_passkeys_each_fn(void *baton, const hsc_passkey_t *pk);
hsc_status_t hsc_passkeys_list(hsc_factors_t *f, const char *user,
                               hsc_passkeys_each_fn *fn,
                               void *baton) HSC_MUST_CHECK;

/** The credential id (len bytes) into *out, with its user's handle, key
 *  and seal hash. HSC_OK; HSC_ENOUSER (no such id); HSC_ESTORE. */
hsc_status_t hsc_passkeys_get(hsc_factors_t *f, const unsigned char *id,
                              size_t len, hsc_passkey_t *out) HSC_MUST_CHECK;

/**
 * The one-time rule, one atomic compare-and-set: accept an assertion of
 * credential id for a challenge issued at challenge_ms (hsc_wa_challenge)
 * whose authenticator data says new_count, only when challenge_ms is
 * greater than the last accepted challenge's and, when either count is
 * not zero, new_count is greater than the stored count; both are stored.
 * HSC_OK; HSC_EAUTH (refused: a replay, an older challenge, a count that
 * did not grow, or no such credential); HSC_EREADONLY; HSC_ESTORE.
 */
hsc_status_t hsc_passkeys_accept(hsc_factors_t *f, const unsigned char *id,
                                 size_t len, int64_t challenge_ms,
                                 int64_t new_count) HSC_MUST_CHECK;

/** Rename user's credential id. HSC_OK; HSC_ENOUSER (user has no such
 *  credential); HSC_EINVAL (the name); HSC_EREADONLY; HSC_ESTORE. */
hsc_status_t hsc_passkeys_rename(hsc_factors_t *f, const char *user,
                                 const unsigned char *id, size_t len,
                                 const char *name) HSC_MUST_CHECK;

/** Remove user's credential id (and its seal hash from the user's row,
 *  in the same transaction). HSC_OK; HSC_ENOUSER; HSC_EREADONLY;
 *  HSC_ESTORE. */
hsc_status_t hsc_passkeys_remove(hsc_factors_t *f, const char *user,
                                 const unsigned char *id,
                                 size_t len) HSC_MUST_CHECK;

/** user's handle into out. HSC_OK; HSC_ENOUSER (no handle yet: the user
 *  never had a credential); HSC_ESTORE. PostgreSQL: the admin role's. */
hsc_status_t
hsc_passkeys_handle(hsc_factors_t *f, const char *user,
                    unsigned char out[HSC_PASSKEY_HANDLE_LEN]) HSC_MUST_CHECK;

/**
 * The seal hashes of user's row (hsc_users.passkey_seals) into buf (cap
 * bytes), *len bytes (a multiple of 32; 0 when none), without the seal
 * switch's block (hsc_passkeys_seal_required says whether it is there).
 * HSC_OK; HSC_ENOUSER; HSC_ESTORE. For hsc-admin and tests; PostgreSQL:
 * the admin role's. The request path reads the column with the user's row.
 */
hsc_status_t hsc_passkeys_seals(hsc_factors_t *f, const char *user,
                                unsigned char *buf, size_t cap,
                                size_t *len) HSC_MUST_CHECK;

/**
 * The per-user switch "every cookie of this user needs the seal"
 * (hsc_user_seal_required: a block of zeros ending the seal column, so
 * that the request path reads it with the row). Turning it on
 * (on = 1) is refused (HSC_EINVAL) while user has no passkey, or one
 * without a seal, or 64 sealed ones (no room for the block); it needs no
 * proof (it only takes away). Turning it off needs z (HSC_SEAL_LEN bytes,
 * the PRF output of one of user's sealed passkeys: HSC_EAUTH otherwise),
 * or z NULL for the administrator (on PostgreSQL only the admin role may:
 * the httpd role is refused by the database). While it is on, adding a
 * passkey without a seal is refused (HSC_EINVAL); removing the last
 * passkey turns it off. Old cookies need no gen + 1: they stop verifying.
 * HSC_OK (also when it was so already); HSC_ENOUSER; HSC_EINVAL;
 * HSC_EAUTH; HSC_EREADONLY; HSC_ESTORE.
 */
hsc_status_t hsc_passkeys_require_seal(hsc_factors_t *f, const char *user,
                                       int on,
                                       const unsigned char *z) HSC_MUST_CHECK;

/** *on = 1 when user's row has the seal switch on, else 0. HSC_OK;
 *  HSC_ENOUSER; HSC_ESTORE. PostgreSQL: the admin role's (as seals). */
hsc_status_t hsc_passkeys_seal_required(hsc_factors_t *f, const char *user,
                                        int *on) HSC_MUST_CHECK;

/** 1 when name is a credential name: as an app password's (1 to 64
 *  printable ASCII characters, no space first or last). */
int hsc_passkey_name_valid(const char *name);

#endif /* HSC_PASSKEYS_H */
