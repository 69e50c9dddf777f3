/*
 * hsc_factors_backend.h: what a factor-store backend implements
 * (hsc_factors_sqlite.c with hsc_links_sqlite.c; hsc_factors_pgsql.c), as
 * hsc_store_backend.h is for users. Callers see hsc_factors.h only; the
 * wrapper (hsc_factors.c) checks arguments and dispatches. A backend's
 * handle embeds struct hsc_factors first.
 *
 * Each entry has the meaning and the statuses of its hsc_factors_* call.
 */
#ifndef HSC_FACTORS_BACKEND_H
#define HSC_FACTORS_BACKEND_H

#include "hsc_factors.h"
#include "hsc_passkeys.h"

typedef struct {
    hsc_status_t (*get)(hsc_factors_t *f, const char *user,
                        hsc_factor_info_t *out);
    hsc_status_t (*totp_enrol)(hsc_factors_t *f, const char *user,
                               const unsigned char *sealed, size_t len,
                               const hsc_totp_params_t *p, int active,
                               int64_t now);
    hsc_status_t (*totp_activate)(hsc_factors_t *f, const char *user);
    hsc_status_t (*totp_remove)(hsc_factors_t *f, const char *user);
    hsc_status_t (*totp_accept)(hsc_factors_t *f, const char *user,
                                int64_t step_at);
    hsc_status_t (*recovery_set)(
        hsc_factors_t *f, const char *user,
        const unsigned char (*hashes)[HSC_RECOVERY_HASH_LEN], size_t n,
        int64_t now);
    hsc_status_t (*recovery_use)(
        hsc_factors_t *f, const char *user,
        const unsigned char hash[HSC_RECOVERY_HASH_LEN]);
    hsc_status_t (*totp_reseal)(hsc_factors_t *f, hsc_factors_reseal_fn *fn,
                                void *baton, int *resealed, int *unopened);
    hsc_status_t (*link_put)(hsc_factors_t *f, const char *user,
                             hsc_link_purpose_t purpose,
                             const unsigned char hash[HSC_LINK_HASH_LEN],
                             int64_t expires, int64_t now);
    hsc_status_t (*link_peek)(hsc_factors_t *f,
                              const unsigned char hash[HSC_LINK_HASH_LEN],
                              int64_t now, hsc_link_purpose_t *purpose,
                              char *user);
    hsc_status_t (*link_take)(hsc_factors_t *f,
                              const unsigned char hash[HSC_LINK_HASH_LEN],
                              hsc_link_purpose_t purpose, int64_t now,
                              char *user);
    hsc_status_t (*link_password)(hsc_factors_t *f,
                                  const unsigned char hash[HSC_LINK_HASH_LEN],
                                  hsc_link_purpose_t purpose, int64_t now,
                                  const hsc_user_t *nu, char *user);
    hsc_status_t (*link_list)(hsc_factors_t *f, hsc_factors_link_fn *fn,
                              void *baton);
    hsc_status_t (*link_revoke)(hsc_factors_t *f, const char *user, int all,
                                hsc_link_purpose_t purpose, int *count);
    void (*close)(hsc_factors_t *f);
    /* Passkeys (hsc_passkeys.h; the wrapper hsc_passkeys.c has checked the
     * arguments; xn and handle are never NULL): each as its call. handle:
     * 32 random bytes, the user's handle if the user has none yet. */
    hsc_status_t (*passkey_add)(hsc_factors_t *f, const hsc_passkey_t *pk,
                                const unsigned char *xn,
                                const unsigned char *handle, int64_t now);
    /* As passkey_add, proved by the link of hash (HSC_LINK_HASH_LEN) that
     * the same transaction deletes; NULL: the store cannot. */
    hsc_status_t (*passkey_add_link)(hsc_factors_t *f, const hsc_passkey_t *pk,
                                     const unsigned char *hash,
                                     const unsigned char *handle, int64_t now);
    hsc_status_t (*passkey_list)(hsc_factors_t *f, const char *user,
                                 hsc_passkeys_each_fn *fn, void *baton);
    hsc_status_t (*passkey_get)(hsc_factors_t *f, const unsigned char *id,
                                size_t len, hsc_passkey_t *out);
    hsc_status_t (*passkey_accept)(hsc_factors_t *f, const unsigned char *id,
                                   size_t len, int64_t challenge_ms,
                                   int64_t new_count);
    hsc_status_t (*passkey_rename)(hsc_factors_t *f, const char *user,
                                   const unsigned char *id, size_t len,
                                   const char *name);
    hsc_status_t (*passkey_remove)(hsc_factors_t *f, const char *user,
                                   const unsigned char *id, size_t len);
    hsc_status_t (*passkey_handle)(hsc_factors_t *f, const char *user,
                                   unsigned char *out);
    hsc_status_t (*passkey_seals)(hsc_factors_t *f, const char *user,
                                  unsigned char *buf, size_t cap, size_t *len);
    /* hsc_passkeys_require_seal (the wrapper checked user and z's use). */
    hsc_status_t (*passkey_require_seal)(hsc_factors_t *f, const char *user,
                                         int on, const unsigned char *z);
} hsc_factors_vtable_t;

struct hsc_factors {
    const hsc_factors_vtable_t *vt;
    int readonly;
    char errmsg[256]; /* the last failure (never a bound value) */
};

/* errmsg from a format. */
void hsc_factors_msgf(hsc_factors_t *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The backends' opens (hsc_factors_open chooses). */
hsc_status_t hsc_factors_sqlite_open(const char *path, int readonly,
                                     hsc_factors_t **out, char *errbuf,
                                     size_t errlen);
#ifdef HSC_HAVE_PGSQL
hsc_status_t hsc_factors_pgsql_open(hsc_store_t *s, int own, int readonly,
                                    hsc_factors_t **out);
/* The user store a PostgreSQL factor handle runs on. */
hsc_store_t *hsc_pq_factors_store(hsc_factors_t *f);
/* The passkeys' part (hsc_passkeys_pgsql.c). */
hsc_status_t hsc_pq_passkey_add(hsc_factors_t *f, const hsc_passkey_t *pk,
                                const unsigned char *xn,
                                const unsigned char *handle, int64_t now);
hsc_status_t hsc_pq_passkey_add_link(hsc_factors_t *f, const hsc_passkey_t *pk,
                                     const unsigned char *hash,
                                     const unsigned char *handle, int64_t now);
hsc_status_t hsc_pq_passkey_list(hsc_factors_t *f, const char *user,
                                 hsc_passkeys_each_fn *fn, void *baton);
hsc_status_t hsc_pq_passkey_get(hsc_factors_t *f, const unsigned char *id,
                                size_t len, hsc_passkey_t *out);
hsc_status_t hsc_pq_passkey_accept(hsc_factors_t *f, const unsigned char *id,
                                   size_t len, int64_t challenge_ms,
                                   int64_t new_count);
hsc_status_t hsc_pq_passkey_rename(hsc_factors_t *f, const char *user,
                                   const unsigned char *id, size_t len,
                                   const char *name);
hsc_status_t hsc_pq_passkey_remove(hsc_factors_t *f, const char *user,
                                   const unsigned char *id, size_t len);
hsc_status_t hsc_pq_passkey_handle(hsc_factors_t *f, const char *user,
                                   unsigned char *out);
hsc_status_t hsc_pq_passkey_seals(hsc_factors_t *f, const char *user,
                                  unsigned char *buf, size_t cap, size_t *len);
hsc_status_t hsc_pq_passkey_require_seal(hsc_factors_t *f, const char *user,
                                         int on, const unsigned char *z);
#endif

#endif /* HSC_FACTORS_BACKEND_H */
