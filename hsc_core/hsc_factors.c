/*
 * hsc_factors.c: the factor store's calls (hsc_factors.h): the backend
 * chosen by the spec, arguments checked once here, then its vtable
 * (hsc_factors_backend.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hsc_factors_backend.h"

int hsc_factors_any(const hsc_factor_info_t *fi)
{
    return fi->totp == HSC_TOTP_ACTIVE || fi->recovery_left > 0;
}

const char *hsc_factors_errmsg(const hsc_factors_t *f)
{
    return f != NULL ? f->errmsg : "no factor store";
}

void hsc_factors_close(hsc_factors_t *f)
{
    if (f != NULL) {
        f->vt->close(f);
    }
}

hsc_status_t hsc_factors_on_store(hsc_store_t *s, int own, int readonly,
                                  hsc_factors_t **out)
{
    *out = NULL;
#ifdef HSC_HAVE_PGSQL
    return hsc_factors_pgsql_open(s, own, readonly, out);
#else
    (void)s;
    (void)own;
    (void)readonly;
    return HSC_EINVAL;
#endif
}

hsc_status_t hsc_factors_open(const char *spec, int readonly,
                              hsc_factors_t **out, char *errbuf, size_t errlen)
{
    hsc_store_t *s = NULL;
    hsc_status_t st;

    *out = NULL;
    if (hsc_store_spec_conninfo(spec) == NULL) {
        return hsc_factors_sqlite_open(spec, readonly, out, errbuf, errlen);
    }
    st = hsc_store_open(spec, readonly ? HSC_STORE_READONLY : 0, &s, errbuf,
                        errlen);
    if (st == HSC_OK
        && (st = hsc_factors_on_store(s, 1, readonly, out)) != HSC_OK) {
        snprintf(errbuf, errlen, "%s", hsc_store_errmsg(s));
        hsc_store_close(s);
    }
    return st;
}

/* A username the stores could hold. */
static int user_ok(hsc_factors_t *f, const char *user)
{
    size_t n = user != NULL ? strlen(user) : 0;

    if (n == 0 || n > HSC_USER_MAX) {
        hsc_factors_msgf(f, "invalid username");
        return 0;
    }
    return 1;
}

hsc_status_t hsc_factors_get(hsc_factors_t *f, const char *user,
                             hsc_factor_info_t *out)
{
    memset(out, 0, sizeof(*out));
    return user_ok(f, user) ? f->vt->get(f, user, out) : HSC_EINVAL;
}

hsc_status_t hsc_factors_totp_enrol(hsc_factors_t *f, const char *user,
                                    const unsigned char *sealed, size_t len,
                                    const hsc_totp_params_t *p, int active,
                                    int64_t now)
{
    if (!user_ok(f, user) || sealed == NULL || len == 0
        || len > HSC_TOTP_SEALED_MAX || !hsc_totp_params_valid(p)) {
        return HSC_EINVAL;
    }
    return f->vt->totp_enrol(f, user, sealed, len, p, active, now);
}

hsc_status_t hsc_factors_totp_activate(hsc_factors_t *f, const char *user)
{
    return user_ok(f, user) ? f->vt->totp_activate(f, user) : HSC_EINVAL;
}

hsc_status_t hsc_factors_totp_remove(hsc_factors_t *f, const char *user)
{
    return user_ok(f, user) ? f->vt->totp_remove(f, user) : HSC_EINVAL;
}

hsc_status_t hsc_factors_totp_accept(hsc_factors_t *f, const char *user,
                                     int64_t step_at)
{
    if (f->readonly) {
        hsc_factors_msgf(f, "the factors were opened read-only");
        return HSC_EREADONLY;
    }
    return user_ok(f, user) ? f->vt->totp_accept(f, user, step_at) : HSC_EINVAL;
}

hsc_status_t
hsc_factors_recovery_set(hsc_factors_t *f, const char *user,
                         const unsigned char (*hashes)[HSC_RECOVERY_HASH_LEN],
                         size_t n, int64_t now)
{
    if (!user_ok(f, user) || (n > 0 && hashes == NULL)) {
        return HSC_EINVAL;
    }
    return f->vt->recovery_set(f, user, hashes, n, now);
}

hsc_status_t
hsc_factors_recovery_use(hsc_factors_t *f, const char *user,
                         const unsigned char hash[HSC_RECOVERY_HASH_LEN])
{
    return user_ok(f, user) ? f->vt->recovery_use(f, user, hash) : HSC_EINVAL;
}

hsc_status_t hsc_factors_totp_reseal(hsc_factors_t *f,
                                     hsc_factors_reseal_fn *fn, void *baton,
                                     int *resealed, int *unopened)
{
    *resealed = *unopened = 0;
    return f->vt->totp_reseal(f, fn, baton, resealed, unopened);
}

hsc_status_t hsc_factors_link_put(hsc_factors_t *f, const char *user,
                                  hsc_link_purpose_t purpose,
                                  const unsigned char hash[HSC_LINK_HASH_LEN],
                                  int64_t expires, int64_t now)
{
    return user_ok(f, user)
               ? f->vt->link_put(f, user, purpose, hash, expires, now)
               : HSC_EINVAL;
}

hsc_status_t hsc_factors_link_peek(hsc_factors_t *f,
                                   const unsigned char hash[HSC_LINK_HASH_LEN],
                                   int64_t now, hsc_link_purpose_t *purpose,
                                   char *user)
{
    user[0] = '\0';
    return f->vt->link_peek(f, hash, now, purpose, user);
}

hsc_status_t hsc_factors_link_take(hsc_factors_t *f,
                                   const unsigned char hash[HSC_LINK_HASH_LEN],
                                   hsc_link_purpose_t purpose, int64_t now,
                                   char *user)
{
    user[0] = '\0';
    return f->vt->link_take(f, hash, purpose, now, user);
}

hsc_status_t hsc_factors_link_password(
    hsc_factors_t *f, const unsigned char hash[HSC_LINK_HASH_LEN],
    hsc_link_purpose_t purpose, int64_t now, const hsc_user_t *nu, char *user)
{
    user[0] = '\0';
    if (purpose != HSC_LINK_INVITE && purpose != HSC_LINK_RESET) {
        return HSC_EINVAL;
    }
    return f->vt->link_password(f, hash, purpose, now, nu, user);
}

hsc_status_t hsc_factors_link_list(hsc_factors_t *f, hsc_factors_link_fn *fn,
                                   void *baton)
{
    return f->vt->link_list(f, fn, baton);
}

hsc_status_t hsc_factors_link_revoke(hsc_factors_t *f, const char *user,
                                     int all, hsc_link_purpose_t purpose,
                                     int *count)
{
    *count = 0;
    return user_ok(f, user) ? f->vt->link_revoke(f, user, all, purpose, count)
                            : HSC_EINVAL;
}
