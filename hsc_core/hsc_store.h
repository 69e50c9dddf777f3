/*
 * hsc_store.h: the user store, as callers see it: open a backend, then
 * hsc_store_* calls. The backends' side (the table of functions, the
 * handle's common part, the validation rule for the record cache) is in
 * hsc_store_backend.h, which callers never include.
 *
 * A handle is used by one thread at a time and allocates nothing per call:
 * strings in an hsc_user_t returned by get() point into handle-owned memory
 * that stays valid until the next call on the same handle. Copy what you keep.
 * Every failure of the backing store is HSC_ESTORE: callers fail closed.
 */
#ifndef HSC_STORE_H
#define HSC_STORE_H

#include "hsc_util.h"
#include "hsc_kdf.h"
#include "hsc_cache.h"

typedef struct hsc_user_s {
    const char *name; /* username, NUL-terminated */
    size_t name_len;
    unsigned char salt[HSC_SALT_LEN];
    hsc_kdf_t kdf;
    unsigned char authenticator[HSC_AUTH_LEN]; /* v = SHA-256(x_n) */
    const char *groups;                        /* "g1,g2" or "" */
    int disabled;           /* 1: cookies and logins refused */
    int64_t revoked_before; /* format 1: cookies with iat < this are refused */
    int64_t gen;            /* format 2: cookies of another gen are refused */
    int64_t created, updated; /* Unix seconds */
    /* The user's passkeys' seal hashes (SHA-256(z), HSC_SEAL_HASH_LEN
     * bytes each, hsc_users.passkey_seals): seals_len bytes, a multiple
     * of HSC_SEAL_HASH_LEN, at most HSC_SEALS_MAX of them; NULL and 0
     * when none (or the file predates them). Handle-owned, as groups. */
    const unsigned char *seals;
    size_t seals_len;
} hsc_user_t;

/* Bytes of one seal hash, and how many a user's row holds at most (the
 * schema's CHECK on passkey_seals). */
#define HSC_SEAL_HASH_LEN 32
#define HSC_SEALS_MAX 64

/**
 * The per-user switch "every cookie of this user needs the seal" is a
 * last block of HSC_SEAL_HASH_LEN zero bytes in the seal column (no z
 * has SHA-256 zero, so it can never match a cookie): 1 when u has it.
 * It is in the row the request path reads already, in every cache of
 * it, and leaves with the user's last passkey (the column is then NULL).
 * docs/dev/passkeys.md says why this encoding.
 */
int hsc_user_seal_required(const hsc_user_t *u);
/** The bytes of u's seal column that are seal hashes (without the
 *  switch's block). */
size_t hsc_user_seal_bytes(const hsc_user_t *u);

typedef struct hsc_store hsc_store_t;

/* Called by list() once a user, in name order; non-zero stops the walk. */
typedef int hsc_store_each_fn(void *baton, const hsc_user_t *u);

/* Bytes of a store id with its NUL: 32 hex digits. */
#define HSC_STORE_ID_SIZE 33

/* Flags for hsc_store_open() and the backends' open functions. */
#define HSC_STORE_READONLY 0x1 /* open read-only; writes are HSC_EREADONLY */
#define HSC_STORE_CREATE 0x2   /* create the file and schema if absent */
#define HSC_STORE_NOCACHE 0x4  /* no private record cache (see below) */
/* An older schema that can still be read is used as it is, never upgraded
 * (httpd: only hsc-admin changes the schema); ignored with CREATE. */
#define HSC_STORE_NOMIGRATE 0x8

/**
 * For tests and benchmarks: how many get() calls on a handle were answered
 * from the record cache (*hits) and by asking the store (*queries).
 */
void hsc_store_counters(const hsc_store_t *s, unsigned long *hits,
                        unsigned long *queries);

/**
 * Use cache (shared by any number of handles of the same database, one
 * per thread) instead of the handle's own; NULL: none. The handle drops
 * its private cache. The cache must outlive the handle. A backend without
 * a validation rule never uses one.
 */
void hsc_store_use_cache(hsc_store_t *s, hsc_cache_t *cache);

/* The prefix of a PostgreSQL store spec: "pgsql:<libpq conninfo>". */
#define HSC_STORE_PGSQL_PREFIX "pgsql:"

/** Why a list of groups is not one the store keeps. */
typedef enum {
    HSC_GROUPS_OK,
    HSC_GROUPS_TOO_LONG, /* over 65,535 bytes */
    HSC_GROUPS_BAD_NAME, /* a name hsc_groupname_valid refuses (or NULL) */
    HSC_GROUPS_TWICE     /* a name listed twice */
} hsc_groups_problem_t;

/**
 * Check a list of groups as the store keeps it: "" or names joined by ',',
 * each valid and listed once. On a refusal *bad and *bad_len name the
 * offending group (for a message; NULL and 0 when none is to blame).
 */
hsc_groups_problem_t hsc_groups_check(const char *groups, const char **bad,
                                      size_t *bad_len);

/**
 * The conninfo of a PostgreSQL store spec ("pgsql:<conninfo>": what
 * follows the prefix), or NULL for any other spec (an SQLite path, NULL).
 * The one place the prefix is tested: HSCUserDB, hsc-admin and the store.
 */
const char *hsc_store_spec_conninfo(const char *spec);

/**
 * HSCUserDB's check of a spec when it is read: a pgsql: conninfo must
 * parse (nothing is connected: a node starts while the database is down),
 * and this build must have the PostgreSQL store; a path is HSC_OK (it is
 * checked by opening it). HSC_OK, or HSC_EINVAL with errbuf saying why.
 */
hsc_status_t hsc_store_spec_check(const char *spec, char *errbuf,
                                  size_t errlen) HSC_MUST_CHECK;

/* What a pgsql: spec meets in a build without libpq (every open says it). */
#define HSC_STORE_NO_PGSQL_MSG                                                 \
    "this build of mod_hsc has no PostgreSQL store (rebuild with libpq-dev "   \
    "installed, configure --with-pgsql)"

/** 1 when this build has the PostgreSQL store (configure found libpq). */
int hsc_store_have_pgsql(void);

/** 1 when s is a PostgreSQL store reached as a superuser (hsc-admin init
 *  warns: the tables would belong to it, not to the admin role). */
int hsc_store_superuser(hsc_store_t *s);

/**
 * Open the store a spec names: "pgsql:<conninfo>" (hsc_store_pgsql.h), or
 * else the path of an SQLite file (hsc_store_sqlite_open, same flags).
 * A pgsql: spec on a build without libpq is HSC_EINVAL with a message
 * saying so. Messages never carry the conninfo's password.
 */
hsc_status_t hsc_store_open(const char *spec, int flags, hsc_store_t **ps,
                            char *errbuf, size_t errlen) HSC_MUST_CHECK;

/* Callers go through these, so the vtable stays an implementation detail. */
hsc_status_t hsc_store_get(hsc_store_t *s, const char *user, size_t len,
                           hsc_user_t *out) HSC_MUST_CHECK;
/** For logins: the record as the database has it now, never from a cache
 *  that may lag (the PostgreSQL store's lease). Otherwise as get(). */
hsc_status_t hsc_store_get_fresh(hsc_store_t *s, const char *user, size_t len,
                                 hsc_user_t *out) HSC_MUST_CHECK;
/** The store's id into buf (HSC_STORE_ID_SIZE bytes): HSC_OK, or
 *  HSC_EINVAL when the store has none (buf is then ""). */
hsc_status_t hsc_store_id(hsc_store_t *s, char *buf, size_t len) HSC_MUST_CHECK;
hsc_status_t hsc_store_add(hsc_store_t *s, const hsc_user_t *u) HSC_MUST_CHECK;
hsc_status_t hsc_store_set_password(
    hsc_store_t *s, const char *user, const unsigned char salt[HSC_SALT_LEN],
    const hsc_kdf_t *kdf, const unsigned char v[HSC_AUTH_LEN]) HSC_MUST_CHECK;
/**
 * A user's own password change (the account page): as set_password, but
 * only while the stored password is still the one whose x_n is
 * current_xn (HSC_XN_LEN bytes), checked by the database in the statement
 * that writes; HSC_EAUTH otherwise. On PostgreSQL this is the function
 * hsc_password_change, so that the httpd role cannot set a password
 * without the current one.
 */
hsc_status_t hsc_store_change_password(
    hsc_store_t *s, const char *user, const unsigned char *current_xn,
    const unsigned char salt[HSC_SALT_LEN], const hsc_kdf_t *kdf,
    const unsigned char v[HSC_AUTH_LEN]) HSC_MUST_CHECK;
hsc_status_t hsc_store_set_groups(hsc_store_t *s, const char *user,
                                  const char *groups) HSC_MUST_CHECK;
/** Disabling also revokes (hsc_store_revoke_now), so that enabling the user
 * again brings back no earlier cookie, a stolen one included, and deletes
 * the user's one-time links with the flag. */
hsc_status_t hsc_store_set_disabled(hsc_store_t *s, const char *user,
                                    int on) HSC_MUST_CHECK;
/**
 * revoked_before = max(when, revoked_before + 1), in one statement: it only
 * grows, and every revocation moves it (two in one second both refuse a
 * cookie issued between them). Callers mean hsc_store_revoke_now.
 */
hsc_status_t hsc_store_revoke(hsc_store_t *s, const char *user,
                              int64_t when) HSC_MUST_CHECK;
/**
 * "Log out everywhere" at time now: revoked_before = at least now + 1
 * (spec), so every cookie issued up to and including this second is
 * refused; a login later gets iat = revoked_before (hsc_login_iat), which a
 * second revocation in the same second moves past.
 */
hsc_status_t hsc_store_revoke_now(hsc_store_t *s, const char *user,
                                  int64_t now) HSC_MUST_CHECK;
/**
 * hsc_store_revoke_now, and the user's one-time links deleted in the same
 * transaction (hsc-admin revoke): a reset link must not outlive it. The
 * other revocations (a factor removed, sign out everywhere) keep the
 * links: an enrolment link is how a user who lost every factor gets in
 * again. On PostgreSQL only the admin role may (the httpd role has no
 * right on hsc_links).
 */
hsc_status_t hsc_store_revoke_user(hsc_store_t *s, const char *user,
                                   int64_t now) HSC_MUST_CHECK;
hsc_status_t hsc_store_del(hsc_store_t *s, const char *user) HSC_MUST_CHECK;
hsc_status_t hsc_store_list(hsc_store_t *s, hsc_store_each_fn *fn,
                            void *baton) HSC_MUST_CHECK;
/**
 * Record cache statistics (hsc_user_cache_hits_total / _misses_total in
 * mod_hsc's metrics): a record cache calls hsc_store_cache_note(1) when it
 * answers a get() and hsc_store_cache_note(0) when it was asked and the
 * query had to run; that is its one call site per outcome. The observer is
 * process-wide, set once before any thread uses a store (NULL: none); it
 * must be cheap and thread-safe (an atomic add).
 */
typedef void hsc_store_cache_note_fn(int hit);
void hsc_store_set_cache_observer(hsc_store_cache_note_fn *fn);
void hsc_store_cache_note(int hit);

/** The backend's last error message ("" when none). */
const char *hsc_store_errmsg(const hsc_store_t *s);
/** 1 when the last failure continues an outage this process already
 *  reported once (callers log it quietly); 0 for a new one. */
int hsc_store_repeat_fault(const hsc_store_t *s);
/** 1 once after a call on this handle ended an outage that this process
 *  had reported (the store answers again: the caller logs it once), then
 *  0 until the next outage ends; clears the mark. Only the PostgreSQL
 *  store marks it (its pool, shared by the process's threads, knows when
 *  an outage began; the first statement that succeeds after it ends it). */
int hsc_store_take_recovery(hsc_store_t *s);
/** 1 when the last get() answered from a record cache that may lag the
 *  store within its bound (a lease rule: the PostgreSQL store). A refusal
 *  based on it is to be confirmed with hsc_store_get_fresh(), so that a
 *  lagging cache can delay a refusal but never refuse a cookie the
 *  database accepts (hsc_cookie_check_user does). */
int hsc_store_lagging(const hsc_store_t *s);
/** Close and free the handle; NULL is allowed. */
void hsc_store_close(hsc_store_t *s);

/**
 * 1 when group (len bytes) is one of the comma-separated groups.
 */
int hsc_groups_contain(const char *groups, const char *group, size_t len);

#endif /* HSC_STORE_H */
