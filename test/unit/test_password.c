/*
 * test_password.c: hsc_password_check and hsc_password_make.
 *
 * That an unknown or disabled user costs the same KDF work is tested by
 * behaviour, not by timing: the test is linked with
 * -Wl,--wrap=hsc_kdf_derive, so every derivation made by hsc_password.c
 * passes through __wrap_hsc_kdf_derive below, which counts it and records
 * the parameters and salt before doing the real work.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hsc_test.h"
#include "hsc_password.h"
#include "hsc_store_sqlite.h"
#include "hsc_store_backend.h" /* a broken store of its own */

/* --- the derivation spy ----------------------------------------------------
 */

hsc_status_t __real_hsc_kdf_derive(const hsc_kdf_t *k, const void *password,
                                   size_t pwlen,
                                   const unsigned char salt[HSC_SALT_LEN],
                                   unsigned char xn[HSC_XN_LEN]);
hsc_status_t __wrap_hsc_kdf_derive(const hsc_kdf_t *k, const void *password,
                                   size_t pwlen,
                                   const unsigned char salt[HSC_SALT_LEN],
                                   unsigned char xn[HSC_XN_LEN]);

static int derive_calls;
static hsc_kdf_t derive_kdf, derive_first_kdf;
static unsigned char derive_salt[HSC_SALT_LEN];
static size_t derive_pwlen;

hsc_status_t __wrap_hsc_kdf_derive(const hsc_kdf_t *k, const void *password,
                                   size_t pwlen,
                                   const unsigned char salt[HSC_SALT_LEN],
                                   unsigned char xn[HSC_XN_LEN])
{
    if (derive_calls++ == 0) {
        derive_first_kdf = *k;
    }
    derive_kdf = *k;
    memcpy(derive_salt, salt, HSC_SALT_LEN);
    derive_pwlen = pwlen;
    return __real_hsc_kdf_derive(k, password, pwlen, salt, xn);
}

static void spy_reset(void)
{
    derive_calls = 0;
    memset(&derive_kdf, 0, sizeof(derive_kdf));
    memset(derive_salt, 0, sizeof(derive_salt));
    derive_pwlen = 0;
}

static int kdf_equal(const hsc_kdf_t *a, const hsc_kdf_t *b)
{
    return a->alg == b->alg && a->iterations == b->iterations && a->N == b->N
           && a->r == b->r && a->p == b->p;
}

static int all_zero(const unsigned char *p, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++) {
        if (p[i] != 0) {
            return 0;
        }
    }
    return 1;
}

/* --- fixtures --------------------------------------------------------------
 */

static char tmpdir[256];
static char dbpath[512];
static hsc_store_t *store;
static hsc_kdf_t user_kdf, dummy_kdf;
static char long_pw[HSC_PASSWORD_MAX + 2];

/* Add a user with password pw (pwlen bytes) through hsc_password_make. */
static hsc_status_t add_user(const char *name, const char *pw, size_t pwlen,
                             int disabled)
{
    hsc_user_t u;
    hsc_status_t st;

    memset(&u, 0, sizeof(u));
    u.name = name;
    u.name_len = strlen(name);
    u.groups = "";
    u.disabled = disabled;
    st = hsc_password_make(&user_kdf, pw, pwlen, &u);
    if (st != HSC_OK) {
        return st;
    }
    return hsc_store_add(store, &u);
}

static int setup(void)
{
    const char *t = getenv("TMPDIR");
    char err[256];

    snprintf(tmpdir, sizeof(tmpdir), "%s/hsc-password-XXXXXX",
             t && *t ? t : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        return 0;
    }
    snprintf(dbpath, sizeof(dbpath), "%s/users.db", tmpdir);
    if (hsc_store_sqlite_open(dbpath, HSC_STORE_CREATE, &store, err,
                              sizeof(err))
        != HSC_OK) {
        printf("# %s\n", err);
        return 0;
    }
    hsc_kdf_parse("sha256-chain:1000", &user_kdf);
    hsc_kdf_parse("scrypt:1024:8:1", &dummy_kdf);
    memset(long_pw, 'x', sizeof(long_pw));
    return add_user("alice", "correct horse", 13, 0) == HSC_OK
           && add_user("mallory", "correct horse", 13, 1) == HSC_OK
           && add_user("long", long_pw, HSC_PASSWORD_MAX, 0) == HSC_OK;
}

static void teardown(void)
{
    char p[600];

    hsc_store_close(store);
    unlink(dbpath);
    snprintf(p, sizeof(p), "%s-wal", dbpath);
    unlink(p);
    snprintf(p, sizeof(p), "%s-shm", dbpath);
    unlink(p);
    rmdir(tmpdir);
}

/* --- hsc_password_make -----------------------------------------------------
 */

static void make_fills_salt_kdf_and_authenticator_only(void)
{
    hsc_user_t u, u2;
    unsigned char xn[HSC_XN_LEN], v[HSC_AUTH_LEN];

    memset(&u, 0, sizeof(u));
    u.name = "keep";
    u.groups = "g";
    u.disabled = 1;
    CHECK_EQ(hsc_password_make(&user_kdf, "pw", 2, &u), HSC_OK, "make");
    CHECK(kdf_equal(&u.kdf, &user_kdf), "kdf copied");
    CHECK(!all_zero(u.salt, HSC_SALT_LEN), "a salt was drawn");
    __real_hsc_kdf_derive(&user_kdf, "pw", 2, u.salt, xn);
    hsc_authenticator(xn, v);
    CHECK(memcmp(v, u.authenticator, HSC_AUTH_LEN) == 0,
          "authenticator = SHA-256(x_n) with that salt");
    CHECK_STR(u.name, "keep", "name untouched");
    CHECK_STR(u.groups, "g", "groups untouched");
    CHECK_EQ(u.disabled, 1, "disabled untouched");

    memset(&u2, 0, sizeof(u2));
    hsc_password_make(&user_kdf, "pw", 2, &u2);
    CHECK(memcmp(u.salt, u2.salt, HSC_SALT_LEN) != 0, "a new salt every time");
    CHECK(memcmp(u.authenticator, u2.authenticator, HSC_AUTH_LEN) != 0,
          "so a new authenticator for the same password");

    CHECK_EQ(hsc_password_make(&user_kdf, long_pw, HSC_PASSWORD_MAX + 1, &u2),
             HSC_ETOOLONG, "1025 bytes refused");
    memset(&u2.kdf, 0, sizeof(u2.kdf));
    CHECK(hsc_password_make(&u2.kdf, "pw", 2, &u) != HSC_OK,
          "an empty kdf is refused");
}

/* --- hsc_password_check ----------------------------------------------------
 */

static void check_accepts_the_right_password(void)
{
    unsigned char xn[HSC_XN_LEN], want[HSC_XN_LEN];
    hsc_user_t u;

    spy_reset();
    CHECK_EQ(hsc_password_check(store, "alice", 5, "correct horse", 13,
                                &dummy_kdf, xn, &u),
             HSC_OK, "right password");
    CHECK_EQ(derive_calls, 1, "one derivation");
    CHECK(kdf_equal(&derive_kdf, &user_kdf), "with the user's kdf");
    CHECK(memcmp(derive_salt, u.salt, HSC_SALT_LEN) == 0,
          "and the user's salt");
    __real_hsc_kdf_derive(&user_kdf, "correct horse", 13, u.salt, want);
    CHECK(memcmp(xn, want, HSC_XN_LEN) == 0, "xn is x_n");
    CHECK_STR(u.name, "alice", "the user is returned");
}

static void check_refuses_a_wrong_password_and_wipes_xn(void)
{
    unsigned char xn[HSC_XN_LEN];
    hsc_user_t u;

    spy_reset();
    memset(xn, 0xaa, sizeof(xn));
    CHECK_EQ(hsc_password_check(store, "alice", 5, "correct horsE", 13,
                                &dummy_kdf, xn, &u),
             HSC_EAUTH, "wrong password");
    /* The glue pads the failure to the dummy's cost (the login pad). */
    CHECK_EQ(derive_calls, 1, "one derivation: the user's kdf only");
    CHECK(kdf_equal(&derive_first_kdf, &user_kdf), "the user's kdf");
    CHECK(all_zero(xn, sizeof(xn)), "xn wiped");
    CHECK(u.name == NULL, "no user returned");
    CHECK_EQ(hsc_password_check(store, "alice", 5, "", 0, &dummy_kdf, xn, &u),
             HSC_EAUTH, "empty password");
    CHECK_EQ(hsc_password_check(store, "alice", 5, "correct horse", 12,
                                &dummy_kdf, xn, &u),
             HSC_EAUTH, "a prefix of the password");
}

static void check_unknown_user_does_the_same_kdf_work(void)
{
    unsigned char xn[HSC_XN_LEN], salt1[HSC_SALT_LEN];
    hsc_user_t u;
    hsc_kdf_t def;

    spy_reset();
    memset(xn, 0xaa, sizeof(xn));
    CHECK_EQ(hsc_password_check(store, "bob", 3, "correct horse", 13,
                                &dummy_kdf, xn, &u),
             HSC_ENOUSER, "unknown user");
    CHECK_EQ(derive_calls, 1, "one derivation all the same");
    CHECK(kdf_equal(&derive_kdf, &dummy_kdf), "with the dummy kdf");
    CHECK_EQ(derive_pwlen, 13, "over the whole password");
    CHECK(all_zero(xn, sizeof(xn)), "xn wiped");
    CHECK(u.name == NULL, "no user returned");
    memcpy(salt1, derive_salt, sizeof(salt1));

    spy_reset();
    hsc_password_check(store, "carol", 5, "x", 1, &dummy_kdf, xn, &u);
    CHECK(memcmp(salt1, derive_salt, HSC_SALT_LEN) == 0,
          "a fixed salt, whatever the name");

    /* No dummy given: the default for new users. */
    spy_reset();
    hsc_kdf_parse(HSC_KDF_DEFAULT_SPEC, &def);
    CHECK_EQ(hsc_password_check(store, "bob", 3, "pw", 2, NULL, xn, &u),
             HSC_ENOUSER, "unknown user, default dummy");
    CHECK_EQ(derive_calls, 1, "one derivation");
    CHECK(kdf_equal(&derive_kdf, &def), "with HSC_KDF_DEFAULT_SPEC");
}

static void check_disabled_user_does_the_work_then_refuses(void)
{
    unsigned char xn[HSC_XN_LEN];
    hsc_user_t u;

    spy_reset();
    memset(xn, 0xaa, sizeof(xn));
    CHECK_EQ(hsc_password_check(store, "mallory", 7, "correct horse", 13,
                                &dummy_kdf, xn, &u),
             HSC_EDISABLED, "disabled, right password");
    CHECK_EQ(derive_calls, 1, "the user's derivation was done");
    CHECK(kdf_equal(&derive_first_kdf, &user_kdf), "with the user's kdf");
    CHECK(all_zero(xn, sizeof(xn)), "xn wiped");
    CHECK(u.name == NULL, "no user returned");
    spy_reset();
    CHECK_EQ(hsc_password_check(store, "mallory", 7, "wrong", 5, &dummy_kdf, xn,
                                &u),
             HSC_EDISABLED, "disabled, wrong password: the same answer");
    CHECK_EQ(derive_calls, 1, "the user's derivation was done");
}

/*
 * A user stored with a cheap KDF would answer a wrong password in 2 ms
 * against 500 ms for an unknown name. The glue pads every failure to the
 * dummy's measured cost (mod_hsc_login_pad.c); the check itself runs one
 * derivation, and a success never pays the dummy.
 */
static void check_a_failure_or_success_runs_one_derivation(void)
{
    unsigned char xn[HSC_XN_LEN];
    hsc_user_t u;

    spy_reset();
    CHECK_EQ(hsc_password_check(store, "alice", 5, "wrong", 5, &user_kdf, xn,
                                &u),
             HSC_EAUTH, "wrong password, the dummy is the user's kdf");
    CHECK_EQ(derive_calls, 1, "one derivation");
    spy_reset();
    CHECK_EQ(hsc_password_check(store, "alice", 5, "correct horse", 13,
                                &dummy_kdf, xn, &u),
             HSC_OK, "the right password");
    CHECK_EQ(derive_calls, 1, "a success does not pay the dummy");
    hsc_wipe(xn, sizeof(xn));
}

/* A stored KDF above the ceilings is never run: HSC_EKDFLIMIT, after the
 * dummy's work, with the refused setting kept for the log line. */
static void check_never_runs_a_kdf_above_the_ceilings(void)
{
    static const char *const specs[] = {"scrypt:1048576:8:1",
                                        "sha256-chain:100000000",
                                        "scrypt:131072:8:5"};
    unsigned char xn[HSC_XN_LEN];
    hsc_user_t nu, u;
    hsc_kdf_t big;
    size_t i;

    for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
        char name[16];

        snprintf(name, sizeof(name), "huge%u", (unsigned)i);
        memset(&nu, 0, sizeof(nu));
        nu.name = name;
        nu.name_len = strlen(name);
        nu.groups = "";
        CHECK_EQ(hsc_kdf_parse(specs[i], &big), HSC_OK, specs[i]);
        nu.kdf = big; /* stored directly: salt and v are zero */
        CHECK_EQ(hsc_store_add(store, &nu), HSC_OK, "stored as --force");
        spy_reset();
        CHECK_EQ(hsc_password_check(store, name, strlen(name), "pw", 2,
                                    &dummy_kdf, xn, &u),
                 HSC_EKDFLIMIT, "refused");
        CHECK_EQ(derive_calls, 1, "only the dummy ran");
        CHECK(kdf_equal(&derive_kdf, &dummy_kdf), "with the dummy's kdf");
        CHECK(kdf_equal(&u.kdf, &big), "u->kdf names the refused setting");
        CHECK(u.name == NULL, "no user returned");
        CHECK(all_zero(xn, sizeof(xn)), "xn wiped");
    }
}

static void check_refuses_long_passwords_and_bad_names_before_hashing(void)
{
    unsigned char xn[HSC_XN_LEN];
    hsc_user_t u;

    spy_reset();
    memset(xn, 0xaa, sizeof(xn));
    CHECK_EQ(hsc_password_check(store, "long", 4, long_pw, HSC_PASSWORD_MAX + 1,
                                &dummy_kdf, xn, &u),
             HSC_ETOOLONG, "1025 bytes refused");
    CHECK_EQ(derive_calls, 0, "without hashing");
    CHECK(all_zero(xn, sizeof(xn)), "xn wiped");
    CHECK_EQ(hsc_password_check(store, "long", 4, long_pw, HSC_PASSWORD_MAX,
                                &dummy_kdf, xn, &u),
             HSC_OK, "1024 bytes accepted");
    CHECK_EQ(derive_calls, 1, "and hashed");

    spy_reset();
    CHECK_EQ(hsc_password_check(store, "bad\tname", 8, "pw", 2, &dummy_kdf, xn,
                                &u),
             HSC_EINVAL, "a control character in the name");
    CHECK_EQ(hsc_password_check(store, "", 0, "pw", 2, &dummy_kdf, xn, &u),
             HSC_EINVAL, "an empty name");
    CHECK_EQ(hsc_password_check(store, "\xc0\xaf", 2, "pw", 2, &dummy_kdf, xn,
                                &u),
             HSC_EINVAL, "an overlong UTF-8 name");
    CHECK_EQ(derive_calls, 0, "no hashing for names no user can have");
}

/* A store whose lookups always fail. */
static hsc_status_t broken_get(hsc_store_t *s, const char *user, size_t len,
                               hsc_user_t *out)
{
    (void)user;
    (void)len;
    memset(out, 0, sizeof(*out));
    snprintf(s->errmsg, sizeof(s->errmsg), "disk on fire");
    return HSC_ESTORE;
}

static void check_fails_closed_when_the_store_fails(void)
{
    static const hsc_store_vtable_t vt = {.get = broken_get};
    hsc_store_t broken;
    unsigned char xn[HSC_XN_LEN];
    hsc_user_t u;

    memset(&broken, 0, sizeof(broken));
    broken.vt = &vt;
    memset(xn, 0xaa, sizeof(xn));
    CHECK_EQ(hsc_password_check(&broken, "alice", 5, "correct horse", 13,
                                &dummy_kdf, xn, &u),
             HSC_ESTORE, "a store failure is HSC_ESTORE, never OK");
    CHECK(all_zero(xn, sizeof(xn)), "xn wiped");
    CHECK_STR(hsc_store_errmsg(&broken), "disk on fire", "errmsg kept");
}

int main(void)
{
    if (!setup()) {
        printf("Bail out! cannot set up the test database\n");
        return 1;
    }
    RUN(make_fills_salt_kdf_and_authenticator_only);
    RUN(check_accepts_the_right_password);
    RUN(check_refuses_a_wrong_password_and_wipes_xn);
    RUN(check_unknown_user_does_the_same_kdf_work);
    RUN(check_disabled_user_does_the_work_then_refuses);
    RUN(check_a_failure_or_success_runs_one_derivation);
    RUN(check_never_runs_a_kdf_above_the_ceilings);
    RUN(check_refuses_long_passwords_and_bad_names_before_hashing);
    RUN(check_fails_closed_when_the_store_fails);
    teardown();
    return hsc_test_done();
}
