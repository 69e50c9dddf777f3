/*
 * hsc_store_backend.h: what a user-store backend implements. Callers never
 * include this: they see hsc_store.h (hsc_store_* calls) only. A backend
 * is one file (hsc_store_sqlite.c, hsc_store_pgsql.c) that fills an
 * hsc_store_vtable_t, embeds struct hsc_store first in its handle, and
 * exports an open function declared in hsc_store.h.
 *
 * The shared record cache (hsc_cache.h) lives in the wrapper
 * (hsc_store.c), not in the backends: get() here always asks the store.
 * What a backend adds for the cache is its validation rule, validate()
 * below: "may records kept from earlier reads be trusted for this
 * request?" The wrapper calls it once per hsc_store_get(), before looking
 * in the cache, never once per record.
 *
 * Threads: a handle is used by one thread at a time; the cache behind it
 * may be shared by every handle of the process (one per thread), so a
 * backend's rule must be right whichever handle runs it.
 */
#ifndef HSC_STORE_BACKEND_H
#define HSC_STORE_BACKEND_H

#include "hsc_store.h"
#include "hsc_cache.h"
#include "hsc_tokens.h"

/* What a validation rule answers (hsc_validation_t.verdict). */
typedef enum {
    /* Nothing changed that the cache does not know of: kept records may be
     * trusted (subject to the token, if one is given). */
    HSC_VALID_UNCHANGED = 0,
    /* These names changed (names/lens/n_names): forget them, trust the
     * rest. A lease rule that polled an ordered change log says this. */
    HSC_VALID_NAMES,
    /* Anything may have changed: empty the cache, then read through (and
     * refill) as usual. A reconnect, a change log that was truncated past
     * the last position seen, a lease that lapsed too long ago. */
    HSC_VALID_ALL,
    /* Cannot tell for this request (a writer is mid-commit, no usable
     * change detector): read through, neither use nor fill the cache. */
    HSC_VALID_BYPASS,
    /* The store cannot answer: the request is refused (HSC_ESTORE, 503),
     * with errmsg set. A lease that could not be renewed within its bound
     * says this rather than trust records older than the bound. */
    HSC_VALID_UNAVAILABLE
} hsc_validity_t;

typedef struct {
    hsc_validity_t verdict;
    /*
     * Optional snapshot token (token_len > 0): bytes that name the store's
     * state exactly, so that equal tokens mean "no change in between"
     * (SQLite: the file's identity and the WAL-index header). The cache
     * holds the token its records were read under; a different token
     * empties it. A rule with a token is also asked again right after a
     * miss's read, and the record is kept only when the token is still
     * the same (no change during the read). A lease rule leaves it empty.
     */
    unsigned char token[HSC_CACHE_TOKEN_MAX];
    size_t token_len;
    /* HSC_VALID_NAMES: n_names usernames (not NUL-terminated necessarily),
     * in memory the backend owns until its next call on this handle. */
    const char *const *names;
    const size_t *name_lens;
    size_t n_names;
    /* 1: a record kept under this verdict may lag the store within the
     * rule's bound (a lease); the wrapper then marks a hit as lagging
     * (hsc_store_lagging), and a refusal is confirmed by the store. */
    int lags;
} hsc_validation_t;

typedef struct {

    /** Look a user up in the store itself (no cache). HSC_OK, HSC_ENOUSER,
     *  or HSC_ESTORE. Strings in *out point into handle-owned memory. */
    hsc_status_t (*get)(hsc_store_t *s, const char *user, size_t len,
                        hsc_user_t *out);
    /** Insert a new user (name, salt, kdf, authenticator, groups, disabled).
     *  HSC_EEXISTS if present; created/updated are set to now. */
    hsc_status_t (*add)(hsc_store_t *s, const hsc_user_t *u);
    /** Replace salt, kdf and authenticator, and raise gen. HSC_ENOUSER if
     *  absent. current_xn (HSC_XN_LEN bytes) or NULL: only while the stored
     *  authenticator is SHA-256(current_xn), else HSC_EAUTH. */
    hsc_status_t (*set_password)(hsc_store_t *s, const char *user,
                                 const unsigned char *current_xn,
                                 const unsigned char salt[HSC_SALT_LEN],
                                 const hsc_kdf_t *kdf,
                                 const unsigned char v[HSC_AUTH_LEN]);
    hsc_status_t (*set_groups)(hsc_store_t *s, const char *user,
                               const char *groups);
    hsc_status_t (*set_disabled)(hsc_store_t *s, const char *user, int on);
    /** revoked_before = max(when, revoked_before + 1) and gen + 1, in one
     * statement: format 1 cookies issued earlier and every format 2
     * cookie stop working. links: and the user's one-time links deleted
     * in the same transaction (hsc_store_revoke_user). */
    hsc_status_t (*revoke)(hsc_store_t *s, const char *user, int64_t when,
                           int links);
    hsc_status_t (*del)(hsc_store_t *s, const char *user);
    hsc_status_t (*list)(hsc_store_t *s, hsc_store_each_fn *fn, void *baton);
    /** Free the backend's handle (the wrapper has let go of the cache). */
    void (*close)(hsc_store_t *s);
    /**
     * The validation rule (see hsc_validity_t), or NULL when the backend
     * has none: then no cache is ever used with it. Fills *v (zeroed by
     * the caller); must be cheap on the usual path (SQLite: reading 96
     * bytes of shared memory; a lease: comparing a clock with its expiry),
     * and must never answer UNCHANGED for a state it has not checked
     * within the backend's staleness bound.
     */
    void (*validate)(hsc_store_t *s, hsc_validation_t *v);
    /** Optional (NULL: none). The store's id (32 hex digits) into buf. */
    hsc_status_t (*store_id)(hsc_store_t *s, char *buf, size_t len);
    /* App passwords (hsc_tokens.h; the wrapper hsc_tokens.c has checked
     * the arguments): each as its hsc_tokens_* call. */
    hsc_status_t (*token_get)(hsc_store_t *s, const char *id, hsc_token_t *out);
    hsc_status_t (*token_add)(hsc_store_t *s, const hsc_token_t *t,
                              int64_t now);
    /* xn: HSC_XN_LEN bytes, never NULL; the proof is checked in the
     * statement that inserts. */
    hsc_status_t (*token_add_own)(hsc_store_t *s, const hsc_token_t *t,
                                  int64_t now, const unsigned char *xn);
    hsc_status_t (*token_list)(hsc_store_t *s, const char *user,
                               hsc_tokens_each_fn *fn, void *baton);
    hsc_status_t (*token_revoke)(hsc_store_t *s, const char *user,
                                 const char *id, int64_t now, int *count);
} hsc_store_vtable_t;

/* The part of every handle the wrapper owns; first in a backend's handle. */
struct hsc_store {
    const hsc_store_vtable_t *vt;
    hsc_cache_t *cache;          /* NULL: no cache; shared or owned */
    int cache_owned;             /* 1: hsc_store_close destroys it */
    unsigned long hits, queries; /* this handle's gets, by how answered */
    char text[HSC_CACHE_TEXT];   /* a hit's name and groups */
    char errmsg[256]; /* the backend's last error, for logs; never secrets */
    int repeat_fault; /* hsc_store_repeat_fault() */
    int recovered;    /* hsc_store_take_recovery(): set by the backend */
    int lagging;      /* hsc_store_lagging() */
    /* The last user a backend read (hsc_store_hold_user): the strings
     * its hsc_user_t points to, until the next call on this handle. */
    char name[HSC_USER_MAX + 1];
    char *groups; /* grown as needed; freed by hsc_store_close */
    size_t groups_cap;
    /* The last user's seal hashes (a backend's read or a cache hit). */
    unsigned char seals[HSC_SEALS_MAX * HSC_SEAL_HASH_LEN];
};

/* One user's row as a backend read it, before any check: lengths as the
 * database gave them, integers already decoded. */
typedef struct {
    const char *name;
    size_t name_len;
    const void *salt;
    size_t salt_len;
    const char *kdf; /* not NUL-terminated */
    size_t kdf_len;
    const void *auth;
    size_t auth_len;
    const char *groups;
    size_t groups_len;
    const void *seals; /* passkey_seals; NULL or 0 bytes: none */
    size_t seals_len;
    int disabled;
    int64_t revoked_before, created, updated, gen;
} hsc_store_row_t;

/* Check a row and copy it into *out, its strings into the handle (name,
 * groups, seals). HSC_OK; HSC_ESTORE with errmsg "user record is
 * malformed" (seals too: not a whole number of hashes, or too many) or
 * "... has an invalid kdf"; HSC_ENOMEM. The one row copy of every
 * backend. */
hsc_status_t hsc_store_hold_user(hsc_store_t *s, const hsc_store_row_t *row,
                                 hsc_user_t *out);

/* Format a message into buf (truncating; never overflows; NULL or 0
 * writes nothing): errmsg and open's error text, in every backend. */
void hsc_store_msgf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* HSC_STORE_BACKEND_H */
