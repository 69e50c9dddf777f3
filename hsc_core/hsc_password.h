/*
 * hsc_password.h: setting and checking passwords against the user store.
 */
#ifndef HSC_PASSWORD_H
#define HSC_PASSWORD_H

#include "hsc_util.h"
#include "hsc_kdf.h"
#include "hsc_store.h"

/**
 * Check a password at login. Computes x_n with the user's salt and kdf and
 * compares SHA-256(x_n) with v in constant time. An unknown user runs
 * dummy_kdf (NULL: the default for new users) with a fixed salt, so that
 * it costs what a user stored with that KDF costs; a known user runs only
 * their own KDF. The caller pads every failure to the dummy's measured
 * cost (mod_hsc_login_pad.c), so that timing does not reveal which
 * names exist whatever a user's KDF. A stored KDF above the ceilings
 * (hsc_kdf_within_ceiling) is never run: the dummy runs instead.
 *
 * On HSC_OK, xn holds x_n (a secret: wipe it once the cookie is minted) and
 * *u the user (store-owned strings, see hsc_store.h). On any failure xn is
 * wiped and *u zeroed, except that on HSC_EKDFLIMIT u->kdf holds the
 * refused setting (for the log). Returns HSC_OK, HSC_ETOOLONG (password
 * over 1024 bytes, refused before hashing), HSC_EINVAL (invalid username),
 * HSC_ENOUSER, HSC_EDISABLED, HSC_EAUTH (wrong password), HSC_EKDFLIMIT,
 * HSC_ESTORE or HSC_ECRYPTO.
 */
hsc_status_t hsc_password_check(hsc_store_t *s, const char *user,
                                size_t user_len, const char *password,
                                size_t pwlen, const hsc_kdf_t *dummy_kdf,
                                unsigned char xn[HSC_XN_LEN],
                                hsc_user_t *u) HSC_MUST_CHECK;

/**
 * Run dummy_kdf (NULL: the default) once on an empty password, as an
 * unknown user's login does: for measuring what a failure must cost.
 * HSC_OK or HSC_ECRYPTO.
 */
hsc_status_t hsc_password_dummy(const hsc_kdf_t *dummy_kdf) HSC_MUST_CHECK;

/**
 * Make the salt and authenticator for a new password: a fresh random salt,
 * x_n by kdf, v = SHA-256(x_n). Fills salt, kdf and authenticator of *u and
 * leaves the other fields alone. Returns HSC_OK, HSC_ETOOLONG, HSC_EINVAL
 * or HSC_ECRYPTO.
 */
hsc_status_t hsc_password_make(const hsc_kdf_t *kdf, const char *password,
                               size_t pwlen, hsc_user_t *u) HSC_MUST_CHECK;

/** The same, also giving x_n (a secret: wipe it) for the cookie that a
 *  password change re-issues (xn_out may be NULL). */
hsc_status_t
hsc_password_make_xn(const hsc_kdf_t *kdf, const char *password, size_t pwlen,
                     hsc_user_t *u,
                     unsigned char xn_out[HSC_XN_LEN]) HSC_MUST_CHECK;

#endif /* HSC_PASSWORD_H */
