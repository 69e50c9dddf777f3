/*
 * hsc_password.c: setting and checking passwords against the user store.
 *
 * A failed check costs at least the dummy KDF, whatever the name: an
 * unknown user runs the dummy; a known user whose KDF is another setting
 * (cheaper, older, or above the ceilings) runs the dummy as well on
 * failure, so a user stored with sha256-chain:1000 cannot be told from an
 * unknown name by a wrong password answering in 2 ms. Running the dummy
 * rather than sleeping keeps the two equal under any load. Only an invalid
 * username (which no stored user can have), an oversized password and a
 * store failure answer early.
 */
#include <string.h>

#include "hsc_password.h"

/*
 * The salt of the work done for an unknown user. Fixed and public: that
 * work is only there to take the same time, its result is thrown away.
 */
static const unsigned char dummy_salt[HSC_SALT_LEN] = {'h', 's', 'c', '-',
                                                       'n', 'o', '-', 's',
                                                       'u', 'c', 'h', '-',
                                                       'u', 's', 'e', 'r'};

/* The dummy KDF work: same cost as a failed check of a dummy-KDF user. */
static hsc_status_t run_dummy(const hsc_kdf_t *dummy_kdf, const char *password,
                              size_t pwlen)
{
    unsigned char xn[HSC_XN_LEN];
    hsc_kdf_t fallback;
    hsc_status_t st;

    if (dummy_kdf == NULL) {
        if (hsc_kdf_parse(HSC_KDF_DEFAULT_SPEC, &fallback) != HSC_OK) {
            return HSC_ECRYPTO;
        }
        dummy_kdf = &fallback;
    }
    st = hsc_kdf_derive(dummy_kdf, password ? password : "", pwlen, dummy_salt,
                        xn);
    hsc_wipe(xn, sizeof(xn));
    return st;
}

hsc_status_t hsc_password_check(hsc_store_t *s, const char *user,
                                size_t user_len, const char *password,
                                size_t pwlen, const hsc_kdf_t *dummy_kdf,
                                unsigned char xn[HSC_XN_LEN], hsc_user_t *u)
{
    unsigned char v[HSC_AUTH_LEN];
    hsc_kdf_t fallback, kdf;
    hsc_status_t st, kst;
    int equal;

    memset(u, 0, sizeof(*u));
    hsc_wipe(xn, HSC_XN_LEN);
    if (password == NULL && pwlen > 0) {
        return HSC_EINVAL;
    }
    if (pwlen > HSC_PASSWORD_MAX) {
        return HSC_ETOOLONG;
    }
    if (user == NULL || !hsc_username_valid(user, user_len)) {
        return HSC_EINVAL;
    }

    if (dummy_kdf == NULL) {
        if (hsc_kdf_parse(HSC_KDF_DEFAULT_SPEC, &fallback) != HSC_OK) {
            return HSC_ECRYPTO;
        }
        dummy_kdf = &fallback;
    }
    /* A login reads the database, never a record cache that may lag. */
    st = hsc_store_get_fresh(s, user, user_len, u);
    if (st == HSC_ENOUSER) {
        /* Same cost as a real user with the dummy (default) KDF. */
        kst = run_dummy(dummy_kdf, password, pwlen);
        memset(u, 0, sizeof(*u));
        return kst == HSC_OK ? HSC_ENOUSER : kst;
    }
    if (st != HSC_OK) {
        memset(u, 0, sizeof(*u));
        return st;
    }
    /* Never run a KDF above the ceilings: fail closed, in a failure's
     * time. u->kdf is kept for the caller's log line. */
    if (!hsc_kdf_within_ceiling(&u->kdf)) {
        kdf = u->kdf;
        kst = run_dummy(dummy_kdf, password, pwlen);
        memset(u, 0, sizeof(*u));
        u->kdf = kdf;
        return kst == HSC_OK ? HSC_EKDFLIMIT : kst;
    }

    /* A disabled user costs the KDF work too, then is refused. */
    st = hsc_kdf_derive(&u->kdf, password ? password : "", pwlen, u->salt, xn);
    if (st != HSC_OK) {
        goto cleanup;
    }
    st = hsc_authenticator(xn, v);
    if (st != HSC_OK) {
        goto cleanup;
    }
    equal = hsc_ct_equal(v, u->authenticator, HSC_AUTH_LEN);
    if (u->disabled) {
        st = HSC_EDISABLED;
    }
    else if (!equal) {
        st = HSC_EAUTH;
    }

cleanup:
    hsc_wipe(v, sizeof(v));
    if (st != HSC_OK) {
        hsc_wipe(xn, HSC_XN_LEN);
        memset(u, 0, sizeof(*u));
    }
    return st;
}

hsc_status_t hsc_password_dummy(const hsc_kdf_t *dummy_kdf)
{
    return run_dummy(dummy_kdf, "", 0);
}

hsc_status_t hsc_password_make(const hsc_kdf_t *kdf, const char *password,
                               size_t pwlen, hsc_user_t *u)
{
    return hsc_password_make_xn(kdf, password, pwlen, u, NULL);
}

hsc_status_t hsc_password_make_xn(const hsc_kdf_t *kdf, const char *password,
                                  size_t pwlen, hsc_user_t *u,
                                  unsigned char xn_out[HSC_XN_LEN])
{
    unsigned char salt[HSC_SALT_LEN], xn[HSC_XN_LEN], v[HSC_AUTH_LEN];
    hsc_status_t st;

    if (kdf == NULL || u == NULL || (password == NULL && pwlen > 0)) {
        return HSC_EINVAL;
    }
    if (pwlen > HSC_PASSWORD_MAX) {
        return HSC_ETOOLONG;
    }
    st = hsc_random(salt, sizeof(salt));
    if (st != HSC_OK) {
        goto cleanup;
    }
    st = hsc_kdf_derive(kdf, password ? password : "", pwlen, salt, xn);
    if (st != HSC_OK) {
        goto cleanup;
    }
    st = hsc_authenticator(xn, v);
    if (st != HSC_OK) {
        goto cleanup;
    }
    memcpy(u->salt, salt, sizeof(salt));
    u->kdf = *kdf;
    memcpy(u->authenticator, v, sizeof(v));
    if (xn_out != NULL) {
        memcpy(xn_out, xn, sizeof(xn));
    }

cleanup:
    hsc_wipe(xn, sizeof(xn));
    hsc_wipe(v, sizeof(v));
    hsc_wipe(salt, sizeof(salt));
    return st;
}
