/*
 * hsc_factors_sqlite.h: inside the SQLite factor store, what its two files
 * share (hsc_factors_sqlite.c: TOTP and recovery codes;
 * hsc_links_sqlite.c: one-time links). Not an API: hsc_factors.h is.
 */
#ifndef HSC_FACTORS_SQLITE_H
#define HSC_FACTORS_SQLITE_H

#include <sqlite3.h>

#include "hsc_factors_backend.h"

typedef struct {
    struct hsc_factors base; /* first: the handle callers hold */
    sqlite3 *db;             /* the user file */
    sqlite3 *state;          /* the state file; NULL when read-only */
    int version;             /* the user file's schema version */
} sq_factors_t;

/* errmsg = "<what>: <SQLite's message>"; the status a failure deserves. */
hsc_status_t hsc_fx_fail(sq_factors_t *f, sqlite3 *db, const char *what,
                         int rc);

/* Prepare sql on db and bind user as ?1; NULL (and *rc) on failure. */
sqlite3_stmt *hsc_fx_prepare_user(sqlite3 *db, const char *sql,
                                  const char *user, int *rc);

/* Run a prepared write to its end (and finalize it); the rows it changed
 * into *changes (may be NULL). */
hsc_status_t hsc_fx_run_write(sq_factors_t *f, sqlite3 *db, sqlite3_stmt *st,
                              const char *what, int *changes);

/* End the transaction begun with BEGIN IMMEDIATE: COMMIT when s is
 * HSC_OK (its failure becomes the result), else ROLLBACK. */
hsc_status_t hsc_fx_finish(sq_factors_t *f, hsc_status_t s, const char *what);

/* 1 when the user exists; 0, or -1 with errmsg. */
int hsc_fx_user_exists(sq_factors_t *f, const char *user);

/* The links' part of the table (hsc_links_sqlite.c). */
hsc_status_t hsc_fx_link_put(hsc_factors_t *fb, const char *user,
                             hsc_link_purpose_t purpose,
                             const unsigned char hash[HSC_LINK_HASH_LEN],
                             int64_t expires, int64_t now);
hsc_status_t hsc_fx_link_peek(hsc_factors_t *fb,
                              const unsigned char hash[HSC_LINK_HASH_LEN],
                              int64_t now, hsc_link_purpose_t *purpose,
                              char *user);
/* Inside a write transaction: delete the link of purpose valid at now,
 * its user into user. HSC_EAUTH when there is none. */
hsc_status_t hsc_fx_link_take_in(hsc_factors_t *fb,
                                 const unsigned char hash[HSC_LINK_HASH_LEN],
                                 hsc_link_purpose_t purpose, int64_t now,
                                 char *user, const char *what);
hsc_status_t hsc_fx_link_take(hsc_factors_t *fb,
                              const unsigned char hash[HSC_LINK_HASH_LEN],
                              hsc_link_purpose_t purpose, int64_t now,
                              char *user);
hsc_status_t hsc_fx_link_password(hsc_factors_t *fb,
                                  const unsigned char hash[HSC_LINK_HASH_LEN],
                                  hsc_link_purpose_t purpose, int64_t now,
                                  const hsc_user_t *nu, char *user);
hsc_status_t hsc_fx_link_list(hsc_factors_t *fb, hsc_factors_link_fn *fn,
                              void *baton);
hsc_status_t hsc_fx_link_revoke(hsc_factors_t *fb, const char *user, int all,
                                hsc_link_purpose_t purpose, int *count);

/* The passkeys' part (hsc_passkeys_sqlite.c; hsc_passkeys.h). */
hsc_status_t hsc_fx_passkey_add(hsc_factors_t *fb, const hsc_passkey_t *pk,
                                const unsigned char *xn,
                                const unsigned char *handle, int64_t now);
hsc_status_t hsc_fx_passkey_add_link(hsc_factors_t *fb, const hsc_passkey_t *pk,
                                     const unsigned char *hash,
                                     const unsigned char *handle, int64_t now);
hsc_status_t hsc_fx_passkey_list(hsc_factors_t *fb, const char *user,
                                 hsc_passkeys_each_fn *fn, void *baton);
hsc_status_t hsc_fx_passkey_get(hsc_factors_t *fb, const unsigned char *id,
                                size_t len, hsc_passkey_t *out);
hsc_status_t hsc_fx_passkey_accept(hsc_factors_t *fb, const unsigned char *id,
                                   size_t len, int64_t challenge_ms,
                                   int64_t new_count);
hsc_status_t hsc_fx_passkey_rename(hsc_factors_t *fb, const char *user,
                                   const unsigned char *id, size_t len,
                                   const char *name);
hsc_status_t hsc_fx_passkey_remove(hsc_factors_t *fb, const char *user,
                                   const unsigned char *id, size_t len);
hsc_status_t hsc_fx_passkey_handle(hsc_factors_t *fb, const char *user,
                                   unsigned char *out);
hsc_status_t hsc_fx_passkey_require_seal(hsc_factors_t *fb, const char *user,
                                         int on, const unsigned char *z);
hsc_status_t hsc_fx_passkey_seals(hsc_factors_t *fb, const char *user,
                                  unsigned char *buf, size_t cap, size_t *len);

#endif /* HSC_FACTORS_SQLITE_H */
