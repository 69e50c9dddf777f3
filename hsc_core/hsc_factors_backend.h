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
#endif

#endif /* HSC_FACTORS_BACKEND_H */
