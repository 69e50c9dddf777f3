/*
 * hsc_factors.h: a user's second factors in the user database (hsc-v2.md,
 * docs/dev/second-factors.md): the TOTP enrolment (its secret sealed,
 * hsc_seal.h), the recovery codes (hashes, hsc_recovery.h) and TOTP's
 * replay guard.
 *
 * A handle of its own, not the user store's: nothing here is read on an
 * ordinary request, so the module opens one only at a login, the
 * second-factor step or the account page, and the per-request lookup and
 * its record cache stay as they are. A handle is used by one thread at a
 * time.
 *
 * Two backends (hsc_factors_backend.h), chosen by the spec as for users:
 * - SQLite (schema version 4): the user file holds the factor tables, and
 *   "<file>-state" beside it holds the one frequent write, the time of
 *   the last accepted TOTP step, so that a TOTP login does not commit to
 *   the user file (whose every commit empties the record caches);
 * - PostgreSQL (schema version 4): tables of their own in the user
 *   database, reached only through SECURITY DEFINER functions for what a
 *   web server does (hsc_core/sql/pgsql/004-factors.sql), so the httpd
 *   role needs no right on them; the last step's table is not hsc_users,
 *   so the change log never sees it. The module's handle borrows the
 *   child's connection pool (hsc_factors_on_store).
 */
#ifndef HSC_FACTORS_H
#define HSC_FACTORS_H

#include <stddef.h>
#include <stdint.h>

#include "hsc_recovery.h"
#include "hsc_store.h"
#include "hsc_seal.h"
#include "hsc_links.h"
#include "hsc_totp.h"
#include "hsc_util.h"

/** Bytes of a sealed TOTP secret, at most (the schema's bound). */
#define HSC_TOTP_SEALED_MAX 255
/** The state file's name: the user file's path and this suffix. */
#define HSC_FACTORS_STATE_SUFFIX "-state"

typedef struct hsc_factors hsc_factors_t;

/** A user's TOTP enrolment. */
typedef enum {
    HSC_TOTP_NONE = 0,  /* not enrolled */
    HSC_TOTP_ENROLLING, /* enrolled, waiting for its first correct code */
    HSC_TOTP_ACTIVE     /* enrolled and confirmed: a login asks for it */
} hsc_totp_state_t;

/** What hsc_factors_get() reads. */
typedef struct {
    hsc_totp_state_t totp;
    hsc_totp_params_t params; /* when totp != HSC_TOTP_NONE */
    unsigned char sealed[HSC_TOTP_SEALED_MAX];
    size_t sealed_len;
    int64_t totp_created; /* Unix seconds */
    int recovery_left;    /* unused recovery codes */
} hsc_factor_info_t;

/** 1 when a login of this user owes a second factor (an active TOTP or a
 *  recovery code left). */
int hsc_factors_any(const hsc_factor_info_t *fi);

/**
 * Open the factors of the user database spec (a path). readonly: no
 * writes (hsc-admin show). The file must be an hsc user database of
 * schema version 4 or later ("hsc-admin init" upgrades one). The state
 * file is created when absent (mode 0600, or the umask's), unless
 * readonly. A "pgsql:" spec connects (hsc-admin). HSC_OK; HSC_EIO,
 * HSC_ESTORE or HSC_EINVAL (no PostgreSQL in this build) with errbuf set.
 */
hsc_status_t hsc_factors_open(const char *spec, int readonly,
                              hsc_factors_t **out, char *errbuf,
                              size_t errlen) HSC_MUST_CHECK;

/**
 * The factors of a PostgreSQL user store, through the handle s (the
 * module's thread handle on the child's pool): nothing is connected
 * anew. own: closing the factors closes s. HSC_EINVAL when s is not a
 * PostgreSQL store (SQLite: hsc_factors_open with the path).
 */
hsc_status_t hsc_factors_on_store(hsc_store_t *s, int own, int readonly,
                                  hsc_factors_t **out) HSC_MUST_CHECK;

/** The user's factors into *out (zeros when none). HSC_OK or HSC_ESTORE. */
hsc_status_t hsc_factors_get(hsc_factors_t *f, const char *user,
                             hsc_factor_info_t *out) HSC_MUST_CHECK;

/**
 * A new TOTP enrolment of user, replacing any (and forgetting its last
 * step): sealed secret, parameters, active or waiting for its first code.
 * HSC_OK, HSC_ENOUSER, HSC_EINVAL, HSC_EREADONLY or HSC_ESTORE.
 */
hsc_status_t hsc_factors_totp_enrol(hsc_factors_t *f, const char *user,
                                    const unsigned char *sealed, size_t len,
                                    const hsc_totp_params_t *p, int active,
                                    int64_t now) HSC_MUST_CHECK;

/** Mark an enrolment confirmed. HSC_OK, HSC_ENOUSER (none waiting). */
hsc_status_t hsc_factors_totp_activate(hsc_factors_t *f,
                                       const char *user) HSC_MUST_CHECK;

/** Remove user's TOTP. HSC_OK, HSC_ENOUSER (none enrolled), ... */
hsc_status_t hsc_factors_totp_remove(hsc_factors_t *f,
                                     const char *user) HSC_MUST_CHECK;

/**
 * The replay guard: accept a code of the step that starts at Unix time
 * step_at only if it is later than every step accepted before for this
 * user, and remember it, in one atomic statement (on any number of
 * servers sharing the files). HSC_OK; HSC_EAUTH when a step as late or
 * later was accepted already (a replay); HSC_ESTORE, HSC_EREADONLY.
 */
hsc_status_t hsc_factors_totp_accept(hsc_factors_t *f, const char *user,
                                     int64_t step_at) HSC_MUST_CHECK;

/**
 * Replace user's recovery codes by n hashes (hsc_recovery_hash), in one
 * transaction. HSC_OK, HSC_ENOUSER, HSC_EREADONLY, HSC_ESTORE.
 */
hsc_status_t
hsc_factors_recovery_set(hsc_factors_t *f, const char *user,
                         const unsigned char (*hashes)[HSC_RECOVERY_HASH_LEN],
                         size_t n, int64_t now) HSC_MUST_CHECK;

/** Use one recovery code: the atomic delete of its hash. HSC_OK, HSC_EAUTH
 *  (no such code of this user: wrong or used), HSC_ESTORE, ... */
hsc_status_t hsc_factors_recovery_use(
    hsc_factors_t *f, const char *user,
    const unsigned char hash[HSC_RECOVERY_HASH_LEN]) HSC_MUST_CHECK;

/**
 * Reseal every TOTP secret (after a key rotation): fn gets each user's
 * sealed bytes and writes the new ones into out (cap bytes, *outlen);
 * HSC_OK stores them, HSC_EAUTH leaves that user as is (counted in
 * *unopened: its key is gone), anything else stops and rolls back. One
 * transaction. *resealed counts the rows rewritten.
 */
typedef hsc_status_t hsc_factors_reseal_fn(void *baton, const char *user,
                                           const unsigned char *sealed,
                                           size_t len, unsigned char *out,
                                           size_t cap, size_t *outlen);
hsc_status_t hsc_factors_totp_reseal(hsc_factors_t *f,
                                     hsc_factors_reseal_fn *fn, void *baton,
                                     int *resealed,
                                     int *unopened) HSC_MUST_CHECK;

/* --- one-time links (hsc_links.h) ----------------------------------------- */

/**
 * Store a link of user for purpose, valid until expires (Unix seconds),
 * replacing the user's earlier link of that purpose: one transaction.
 * HSC_OK, HSC_ENOUSER, HSC_EREADONLY, HSC_ESTORE.
 */
hsc_status_t hsc_factors_link_put(hsc_factors_t *f, const char *user,
                                  hsc_link_purpose_t purpose,
                                  const unsigned char hash[HSC_LINK_HASH_LEN],
                                  int64_t expires, int64_t now) HSC_MUST_CHECK;

/**
 * Whose link hash is, and for what, when it is valid at now (not used,
 * replaced or expired), without using it: HSC_OK with user (HSC_USER_MAX
 * + 1 bytes) and *purpose; HSC_EAUTH when there is no such valid link.
 */
hsc_status_t hsc_factors_link_peek(hsc_factors_t *f,
                                   const unsigned char hash[HSC_LINK_HASH_LEN],
                                   int64_t now, hsc_link_purpose_t *purpose,
                                   char *user) HSC_MUST_CHECK;

/**
 * Use a link of purpose: the atomic delete of its row, valid at now.
 * HSC_OK with user; HSC_EAUTH when no such valid link (used already, on
 * this server or another).
 */
hsc_status_t hsc_factors_link_take(hsc_factors_t *f,
                                   const unsigned char hash[HSC_LINK_HASH_LEN],
                                   hsc_link_purpose_t purpose, int64_t now,
                                   char *user) HSC_MUST_CHECK;

/**
 * An invitation or a reset: use the link of purpose (HSC_LINK_INVITE or
 * HSC_LINK_RESET) and set its user's password to nu's salt, kdf and
 * authenticator (raising gen: every session of the user ends), in one
 * transaction. HSC_OK with user (the link's, whatever nu names); HSC_EAUTH
 * when there is no such valid link.
 */
hsc_status_t
hsc_factors_link_password(hsc_factors_t *f,
                          const unsigned char hash[HSC_LINK_HASH_LEN],
                          hsc_link_purpose_t purpose, int64_t now,
                          const hsc_user_t *nu, char *user) HSC_MUST_CHECK;

/** Every stored link (expired ones too), by user and purpose: fn for each;
 *  non-zero from fn stops. Never a hash. */
typedef int hsc_factors_link_fn(void *baton, const char *user,
                                hsc_link_purpose_t purpose, int64_t expires,
                                int64_t created);
hsc_status_t hsc_factors_link_list(hsc_factors_t *f, hsc_factors_link_fn *fn,
                                   void *baton) HSC_MUST_CHECK;

/** Delete user's links (of purpose, or every one when all is 1); the rows
 *  deleted into *count. HSC_OK, HSC_EREADONLY, HSC_ESTORE. */
hsc_status_t hsc_factors_link_revoke(hsc_factors_t *f, const char *user,
                                     int all, hsc_link_purpose_t purpose,
                                     int *count) HSC_MUST_CHECK;

/** The last failure's message (the database's and ours; never a bound
 *  value). */
const char *hsc_factors_errmsg(const hsc_factors_t *f);

void hsc_factors_close(hsc_factors_t *f);

#endif /* HSC_FACTORS_H */
