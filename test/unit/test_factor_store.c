/*
 * test_factor_store.c: second factors and one-time links (hsc_factors.h),
 * on both backends: TOTP enrolment and its replay guard across two
 * handles (two servers), recovery codes used once, links used once, a
 * password set by a link or changed with the current one, a reseal, a
 * user's rows going with the user.
 *
 * Without arguments: SQLite files in a temporary directory (and the
 * SQLite refusals). With "pgsql": the databases fx_totp, fx_rc, fx_reseal,
 * fx_links and fx_pw of the server HSC_PG_CONNINFO names, made empty by
 * test/pgsql/factors-pgsql.sh; the test fails without it, never skips.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "hsc_test.h"
#include "hsc_factors.h"
#include "hsc_store.h"

static char tmpdir[256];
static const char *pg; /* the server's conninfo in pgsql mode, else NULL */

/* The spec of the test database `name`: a file, or a database. */
static const char *db_spec(const char *name, char *buf, size_t len)
{
    if (pg != NULL) {
        snprintf(buf, len, "pgsql:%s dbname=fx_%s", pg, name);
    }
    else {
        snprintf(buf, len, "%s/%s.db", tmpdir, name);
    }
    return buf;
}

/* A new user database with alice and bob. */
static int make_db(const char *path)
{
    static const unsigned char salt[HSC_SALT_LEN] = {1};
    static const unsigned char v[HSC_AUTH_LEN] = {2};
    hsc_store_t *s = NULL;
    hsc_user_t u;
    char err[256];
    int ok;

    if (hsc_store_open(path, HSC_STORE_CREATE, &s, err, sizeof(err))
        != HSC_OK) {
        printf("# %s\n", err);
        return 0;
    }
    memset(&u, 0, sizeof(u));
    memcpy(u.salt, salt, sizeof(salt));
    memcpy(u.authenticator, v, sizeof(v));
    ok = hsc_kdf_parse("sha256-chain:1000", &u.kdf) == HSC_OK;
    u.name = "alice";
    u.name_len = 5;
    u.groups = "";
    ok = ok && hsc_store_add(s, &u) == HSC_OK;
    u.name = "bob";
    u.name_len = 3;
    ok = ok && hsc_store_add(s, &u) == HSC_OK;
    hsc_store_close(s);
    return ok;
}

static hsc_factors_t *open_f(const char *path, int ro)
{
    hsc_factors_t *f = NULL;
    char err[256];

    if (hsc_factors_open(path, ro, &f, err, sizeof(err)) != HSC_OK) {
        printf("# open: %s\n", err);
    }
    return f;
}

static void totp_enrolment_and_replay_guard(void)
{
    char path[1100], state[1120];
    const unsigned char sealed[40] = "not really sealed, but bytes";
    hsc_totp_params_t p;
    hsc_factor_info_t fi;
    hsc_factors_t *a, *b;
    struct stat sb;
    int64_t now = (int64_t)time(NULL);

    db_spec("totp", path, sizeof(path));
    snprintf(state, sizeof(state), "%s-state", path);
    CHECK(make_db(path), "a user database");
    a = open_f(path, 0);
    b = open_f(path, 0);
    CHECK(a && b, "two handles: two servers of one file");
    if (!(a && b)) {
        return;
    }
    if (pg == NULL) {
        CHECK_EQ(stat(state, &sb), 0, "the state file was made beside it");
    }
    hsc_totp_defaults(&p);
    CHECK(hsc_factors_get(a, "alice", &fi) == HSC_OK && fi.totp == HSC_TOTP_NONE
              && fi.recovery_left == 0 && !hsc_factors_any(&fi),
          "no factor yet");
    CHECK_EQ(hsc_factors_totp_enrol(a, "carol", sealed, 30, &p, 0, 1000),
             HSC_ENOUSER, "no enrolment of a user who does not exist");
    CHECK_EQ(hsc_factors_totp_enrol(a, "alice", sealed, 0, &p, 0, 1000),
             HSC_EINVAL, "no empty sealed secret");
    CHECK_EQ(hsc_factors_totp_enrol(a, "alice", sealed, 30, &p, 0, now), HSC_OK,
             "enrolled");
    CHECK(hsc_factors_get(b, "alice", &fi) == HSC_OK
              && fi.totp == HSC_TOTP_ENROLLING && fi.sealed_len == 30
              && !memcmp(fi.sealed, sealed, 30) && fi.params.digits == 6
              && fi.params.period == 30 && fi.params.alg == HSC_TOTP_SHA1
              && fi.totp_created >= now - 60 && fi.totp_created <= now + 60
              && !hsc_factors_any(&fi),
          "the other server reads it, waiting for its first code");
    CHECK_EQ(hsc_factors_totp_activate(a, "alice"), HSC_OK, "activated");
    CHECK_EQ(hsc_factors_totp_activate(a, "alice"), HSC_ENOUSER,
             "nothing left to activate");
    CHECK(hsc_factors_get(b, "alice", &fi) == HSC_OK
              && fi.totp == HSC_TOTP_ACTIVE && hsc_factors_any(&fi),
          "active: a login owes it");
    if (pg != NULL) {
        /* The web server's enrolment never replaces an active one (the
         * httpd role could otherwise swap in an app of its own). */
        CHECK_EQ(hsc_factors_totp_enrol(a, "alice", sealed, 20, &p, 0, now),
                 HSC_EEXISTS, "no inactive enrolment over an active one");
        CHECK(hsc_factors_get(b, "alice", &fi) == HSC_OK && fi.sealed_len == 30
                  && fi.totp == HSC_TOTP_ACTIVE,
              "the active one stays");
    }

    CHECK_EQ(hsc_factors_totp_accept(a, "alice", 3000), HSC_OK, "step 100");
    CHECK_EQ(hsc_factors_totp_accept(b, "alice", 3000), HSC_EAUTH,
             "the same step on the other server: a replay");
    CHECK_EQ(hsc_factors_totp_accept(a, "alice", 2970), HSC_EAUTH,
             "an older step after a newer one");
    CHECK_EQ(hsc_factors_totp_accept(b, "alice", 3030), HSC_OK,
             "the next step, on the other server");
    CHECK_EQ(hsc_factors_totp_accept(a, "bob", 3000), HSC_OK,
             "each user has their own last step");

    CHECK_EQ(hsc_factors_totp_remove(a, "alice"), HSC_OK, "removed");
    CHECK_EQ(hsc_factors_totp_remove(a, "alice"), HSC_ENOUSER, "removed twice");
    CHECK(hsc_factors_get(b, "alice", &fi) == HSC_OK
              && fi.totp == HSC_TOTP_NONE,
          "gone for the other server too");
    p.alg = HSC_TOTP_SHA256;
    p.digits = 8;
    p.period = 60;
    CHECK_EQ(hsc_factors_totp_enrol(a, "alice", sealed, 30, &p, 1, 2000),
             HSC_OK, "enrolled again, active at once (an admin's enrol)");
    CHECK(hsc_factors_get(b, "alice", &fi) == HSC_OK
              && fi.params.alg == HSC_TOTP_SHA256 && fi.params.digits == 8
              && fi.params.period == 60 && fi.totp == HSC_TOTP_ACTIVE,
          "its parameters are kept");
    CHECK_EQ(hsc_factors_totp_accept(a, "alice", 3000), HSC_EAUTH,
             "the last step (a time) survives a new enrolment");
    hsc_factors_close(a);
    hsc_factors_close(b);
}

/* A reseal callback: "x" + the bytes, except for bob (no key opens his). */
static hsc_status_t prefix_x(void *baton, const char *user,
                             const unsigned char *sealed, size_t len,
                             unsigned char *out, size_t cap, size_t *outlen)
{
    (void)baton;
    if (strcmp(user, "bob") == 0) {
        return HSC_EAUTH;
    }
    if (len + 1 > cap) {
        return HSC_ETOOLONG;
    }
    out[0] = 'x';
    memcpy(out + 1, sealed, len);
    *outlen = len + 1;
    return HSC_OK;
}

static hsc_status_t refuse_all(void *baton, const char *user,
                               const unsigned char *sealed, size_t len,
                               unsigned char *out, size_t cap, size_t *outlen)
{
    (void)baton, (void)user, (void)sealed, (void)len, (void)out, (void)cap;
    *outlen = 0;
    return HSC_ECRYPTO;
}

static void reseal_rewrites_every_secret_or_none(void)
{
    char path[1100];
    hsc_totp_params_t p;
    hsc_factor_info_t fi;
    hsc_factors_t *f;
    int done = -1, left = -1;

    db_spec("reseal", path, sizeof(path));
    CHECK(make_db(path), "a user database");
    if ((f = open_f(path, 0)) == NULL) {
        CHECK(0, "opened");
        return;
    }
    hsc_totp_defaults(&p);
    CHECK(hsc_factors_totp_enrol(f, "alice", (const unsigned char *)"aa", 2, &p,
                                 1, 1)
                  == HSC_OK
              && hsc_factors_totp_enrol(f, "bob", (const unsigned char *)"bb",
                                        2, &p, 1, 1)
                     == HSC_OK,
          "two enrolments");
    CHECK_EQ(hsc_factors_totp_reseal(f, refuse_all, NULL, &done, &left),
             HSC_ECRYPTO, "a failure stops the reseal");
    CHECK(hsc_factors_get(f, "alice", &fi) == HSC_OK && fi.sealed_len == 2,
          "and rolls it back");
    CHECK_EQ(hsc_factors_totp_reseal(f, prefix_x, NULL, &done, &left), HSC_OK,
             "resealed");
    CHECK(done == 1 && left == 1, "one rewritten, one its key cannot open");
    CHECK(hsc_factors_get(f, "alice", &fi) == HSC_OK && fi.sealed_len == 3
              && !memcmp(fi.sealed, "xaa", 3),
          "alice's new bytes stored");
    CHECK(hsc_factors_get(f, "bob", &fi) == HSC_OK && fi.sealed_len == 2
              && !memcmp(fi.sealed, "bb", 2),
          "bob's left as they were");
    hsc_factors_close(f);
}

static void recovery_codes_once_each(void)
{
    char path[1100];
    unsigned char h[3][HSC_RECOVERY_HASH_LEN], other[HSC_RECOVERY_HASH_LEN];
    hsc_factor_info_t fi;
    hsc_factors_t *f, *ro;
    hsc_store_t *s = NULL;
    char err[256];
    int i;

    db_spec("rc", path, sizeof(path));
    CHECK(make_db(path), "a user database");
    f = open_f(path, 0);
    if (f == NULL) {
        CHECK(0, "opened");
        return;
    }
    for (i = 0; i < 3; i++) {
        memset(h[i], 'a' + i, sizeof(h[i]));
    }
    memset(other, 'z', sizeof(other));
    CHECK_EQ(hsc_factors_recovery_set(f, "carol", h, 3, 1), HSC_ENOUSER,
             "no codes for a user who does not exist");
    CHECK_EQ(hsc_factors_recovery_set(f, "alice", h, 3, 1), HSC_OK, "3 codes");
    CHECK(hsc_factors_get(f, "alice", &fi) == HSC_OK && fi.recovery_left == 3
              && hsc_factors_any(&fi),
          "3 left: a login owes a second factor");
    CHECK_EQ(hsc_factors_recovery_use(f, "bob", h[0]), HSC_EAUTH,
             "not another user's code");
    CHECK_EQ(hsc_factors_recovery_use(f, "alice", other), HSC_EAUTH,
             "not a code never issued");
    CHECK_EQ(hsc_factors_recovery_use(f, "alice", h[1]), HSC_OK, "used");
    CHECK_EQ(hsc_factors_recovery_use(f, "alice", h[1]), HSC_EAUTH,
             "used once only");
    CHECK(hsc_factors_get(f, "alice", &fi) == HSC_OK && fi.recovery_left == 2,
          "2 left");
    CHECK_EQ(hsc_factors_recovery_set(f, "alice", &other, 1, 2), HSC_OK,
             "a new set");
    CHECK(hsc_factors_recovery_use(f, "alice", h[0]) == HSC_EAUTH
              && hsc_factors_recovery_use(f, "alice", other) == HSC_OK,
          "a new set replaces the old");
    CHECK_EQ(hsc_factors_recovery_set(f, "alice", h, 3, 3), HSC_OK, "again");
    ro = open_f(path, 1);
    CHECK(ro != NULL, "a read-only handle");
    if (ro != NULL) {
        CHECK_EQ(hsc_factors_totp_accept(ro, "alice", 30), HSC_EREADONLY,
                 "a read-only handle accepts no code");
        hsc_factors_close(ro);
    }
    CHECK(hsc_store_open(path, 0, &s, err, sizeof(err)) == HSC_OK
              && hsc_store_del(s, "alice") == HSC_OK,
          "alice deleted");
    hsc_store_close(s);
    CHECK(hsc_factors_get(f, "alice", &fi) == HSC_OK && fi.recovery_left == 0,
          "her codes went with her");
    hsc_factors_close(f);
}

/* hsc_factors_link_list's callback: "user:purpose:expires;" per link. */
static int list_links(void *baton, const char *user, hsc_link_purpose_t p,
                      int64_t expires, int64_t created)
{
    char *out = baton;
    size_t n = strlen(out);

    (void)created;
    snprintf(out + n, 256 - n, "%s:%s:%lld;", user, hsc_link_purpose_name(p),
             (long long)expires);
    return 0;
}

static void links_are_used_once(void)
{
    char path[1100], user[HSC_USER_MAX + 1], text[HSC_LINK_TEXT_LEN + 1],
        text2[HSC_LINK_TEXT_LEN + 1], listed[256] = "", want[256];
    unsigned char h[HSC_LINK_HASH_LEN], h2[HSC_LINK_HASH_LEN],
        again[HSC_LINK_HASH_LEN];
    hsc_link_purpose_t p = HSC_LINK_ENROL;
    hsc_factors_t *f;
    hsc_store_t *s = NULL;
    char err[256];
    int n = -1;
    /* Real times: PostgreSQL's functions expire links by its own clock. */
    int64_t t = (int64_t)time(NULL), t1 = t + 1000, t2 = t + 2000;

    db_spec("links", path, sizeof(path));
    CHECK(make_db(path), "a user database");
    if ((f = open_f(path, 0)) == NULL) {
        CHECK(0, "opened");
        return;
    }
    CHECK_EQ(hsc_link_new(text, h), HSC_OK, "a new link");
    CHECK_EQ(strlen(text), HSC_LINK_TEXT_LEN, "43 characters");
    CHECK_EQ(hsc_link_hash(text, strlen(text), again), HSC_OK,
             "its text hashes");
    CHECK(memcmp(h, again, sizeof(h)) == 0, "to the hash that is stored");
    CHECK_EQ(hsc_link_hash(text, 42, again), HSC_EMALFORMED,
             "a cut link is malformed");
    CHECK_EQ(hsc_factors_link_put(f, "nobody", HSC_LINK_RESET, h, t1, t),
             HSC_ENOUSER, "no link for a user who does not exist");
    CHECK_EQ(hsc_factors_link_put(f, "alice", HSC_LINK_RESET, h, t - 1, t - 9),
             HSC_OK, "a reset link for alice that has expired");
    CHECK_EQ(hsc_factors_link_peek(f, h, t, &p, user), HSC_EAUTH,
             "an expired link is not found");
    CHECK_EQ(hsc_factors_link_take(f, h, HSC_LINK_RESET, t, user), HSC_EAUTH,
             "nor taken");
    CHECK_EQ(hsc_factors_link_put(f, "alice", HSC_LINK_RESET, h, t1, t), HSC_OK,
             "a reset link for alice, valid");
    CHECK_EQ(hsc_factors_link_peek(f, h, t, &p, user), HSC_OK,
             "peeking finds it");
    CHECK(strcmp(user, "alice") == 0 && p == HSC_LINK_RESET,
          "alice's reset link");
    CHECK_EQ(hsc_factors_link_take(f, h, HSC_LINK_INVITE, t, user), HSC_EAUTH,
             "not for another purpose");
    CHECK_EQ(hsc_factors_link_take(f, h, HSC_LINK_RESET, t, user), HSC_OK,
             "taken for its purpose");
    CHECK(strcmp(user, "alice") == 0, "naming alice");
    CHECK_EQ(hsc_factors_link_take(f, h, HSC_LINK_RESET, t, user), HSC_EAUTH,
             "once only");
    CHECK_EQ(hsc_factors_link_peek(f, h, t, &p, user), HSC_EAUTH, "and gone");
    /* A new link replaces the old one of the same purpose. */
    CHECK_EQ(hsc_link_new(text, h) | hsc_link_new(text2, h2), HSC_OK,
             "two new links");
    CHECK_EQ(hsc_factors_link_put(f, "bob", HSC_LINK_ENROL, h, t1, t), HSC_OK,
             "an enrolment link for bob");
    CHECK_EQ(hsc_factors_link_put(f, "bob", HSC_LINK_ENROL, h2, t2, t), HSC_OK,
             "and another");
    CHECK_EQ(hsc_factors_link_peek(f, h, t, &p, user), HSC_EAUTH,
             "the first is dead");
    CHECK_EQ(hsc_factors_link_put(f, "bob", HSC_LINK_RESET, h, t1, t), HSC_OK,
             "a reset link beside it");
    CHECK_EQ(hsc_factors_link_list(f, list_links, listed), HSC_OK, "listed");
    snprintf(want, sizeof(want), "bob:enrol:%lld;bob:reset:%lld;",
             (long long)t2, (long long)t1);
    CHECK_STR(listed, want, "by user and purpose, never a hash");
    CHECK_EQ(hsc_factors_link_revoke(f, "bob", 0, HSC_LINK_RESET, &n), HSC_OK,
             "revoke bob's reset link");
    CHECK_EQ(n, 1, "one row");
    CHECK_EQ(hsc_factors_link_peek(f, h2, t, &p, user), HSC_OK,
             "the enrolment link stays");
    hsc_factors_close(f);
    /* A user's links go with the user. */
    if (hsc_store_open(path, 0, &s, err, sizeof(err)) == HSC_OK) {
        CHECK_EQ(hsc_store_del(s, "bob"), HSC_OK, "bob deleted");
        hsc_store_close(s);
    }
    if ((f = open_f(path, 0)) != NULL) {
        CHECK_EQ(hsc_factors_link_peek(f, h2, t, &p, user), HSC_EAUTH,
                 "and his links with him");
        hsc_factors_close(f);
    }
}

/* alice's password is x_n = {9...} for the change below. */
static void passwords_set_by_a_link_or_the_current_one(void)
{
    char path[1100], err[256], user[HSC_USER_MAX + 1] = "x";
    char text[HSC_LINK_TEXT_LEN + 1];
    unsigned char xn[HSC_XN_LEN], wrong[HSC_XN_LEN], h[HSC_LINK_HASH_LEN];
    hsc_user_t u, nu;
    hsc_store_t *s = NULL;
    hsc_factors_t *f;
    int64_t t = (int64_t)time(NULL), gen;

    db_spec("pw", path, sizeof(path));
    CHECK(make_db(path), "a user database");
    if (hsc_store_open(path, 0, &s, err, sizeof(err)) != HSC_OK
        || (f = open_f(path, 0)) == NULL) {
        CHECK(0, "opened");
        hsc_store_close(s);
        return;
    }
    memset(xn, 9, sizeof(xn));
    memset(wrong, 8, sizeof(wrong));
    CHECK(hsc_store_get_fresh(s, "alice", 5, &u) == HSC_OK
              && hsc_authenticator(xn, nu.authenticator) == HSC_OK,
          "alice read");
    memcpy(nu.salt, u.salt, sizeof(nu.salt));
    nu.kdf = u.kdf;
    CHECK_EQ(hsc_store_set_password(s, "alice", nu.salt, &nu.kdf,
                                    nu.authenticator),
             HSC_OK, "alice's password is xn's");
    CHECK(hsc_store_get_fresh(s, "alice", 5, &u) == HSC_OK, "read again");
    gen = u.gen;
    memset(nu.authenticator, 7, sizeof(nu.authenticator));
    CHECK_EQ(hsc_store_change_password(s, "alice", wrong, nu.salt, &nu.kdf,
                                       nu.authenticator),
             HSC_EAUTH, "no change without the current password");
    CHECK_EQ(hsc_store_change_password(s, "alice", xn, nu.salt, &nu.kdf,
                                       nu.authenticator),
             HSC_OK, "a change with it");
    CHECK(hsc_store_get_fresh(s, "alice", 5, &u) == HSC_OK
              && u.authenticator[0] == 7 && u.gen == gen + 1,
          "stored, and gen grew by one (the other sessions end)");
    CHECK_EQ(hsc_store_change_password(s, "alice", xn, nu.salt, &nu.kdf,
                                       nu.authenticator),
             HSC_EAUTH, "the old password changes it no more");

    CHECK(hsc_link_new(text, h) == HSC_OK
              && hsc_factors_link_put(f, "bob", HSC_LINK_INVITE, h, t + 600, t)
                     == HSC_OK,
          "an invitation for bob");
    CHECK(hsc_store_get_fresh(s, "bob", 3, &u) == HSC_OK, "bob read");
    gen = u.gen;
    memset(nu.authenticator, 6, sizeof(nu.authenticator));
    CHECK_EQ(hsc_factors_link_password(f, h, HSC_LINK_ENROL, t, &nu, user),
             HSC_EINVAL, "an enrolment link sets no password");
    CHECK_EQ(hsc_factors_link_password(f, h, HSC_LINK_RESET, t, &nu, user),
             HSC_EAUTH, "nor does it for another purpose than its own");
    CHECK_EQ(hsc_factors_link_password(f, h, HSC_LINK_INVITE, t, &nu, user),
             HSC_OK, "the invitation sets bob's password");
    CHECK_STR(user, "bob", "and names its user");
    CHECK(hsc_store_get_fresh(s, "bob", 3, &u) == HSC_OK
              && u.authenticator[0] == 6 && u.gen == gen + 1,
          "stored, gen grew by one");
    memset(nu.authenticator, 5, sizeof(nu.authenticator));
    CHECK_EQ(hsc_factors_link_password(f, h, HSC_LINK_INVITE, t, &nu, user),
             HSC_EAUTH, "used once only");
    CHECK(hsc_store_get_fresh(s, "bob", 3, &u) == HSC_OK
              && u.authenticator[0] == 6,
          "and the second try changed nothing");
    hsc_factors_close(f);
    hsc_store_close(s);
}

static void refusals(void)
{
    char path[300], err[256];
    hsc_factors_t *f = NULL;
    sqlite3 *db = NULL;

    snprintf(path, sizeof(path), "%s/none.db", tmpdir);
    CHECK_EQ(hsc_factors_open(path, 0, &f, err, sizeof(err)), HSC_EIO,
             "a missing file");
    snprintf(path, sizeof(path), "%s/v3.db", tmpdir);
    CHECK(make_db(path) && sqlite3_open(path, &db) == SQLITE_OK
              && sqlite3_exec(db, "PRAGMA user_version = 3", 0, 0, 0)
                     == SQLITE_OK,
          "a file that says version 3");
    sqlite3_close(db);
    CHECK_EQ(hsc_factors_open(path, 0, &f, err, sizeof(err)), HSC_ESTORE,
             "refused");
    CHECK(strstr(err, "hsc-admin init") != NULL, "with the way out");
    CHECK(f == NULL, "no handle");
}

int main(int argc, char **argv)
{
    const char *t = getenv("TMPDIR");
    char cmd[300];

    if (argc > 1 && strcmp(argv[1], "pgsql") == 0) {
        /* Never a quiet skip: no server is a failure. */
        if ((pg = getenv("HSC_PG_CONNINFO")) == NULL) {
            printf("not ok 1 - HSC_PG_CONNINFO names a server\n1..1\n");
            return 1;
        }
        RUN(totp_enrolment_and_replay_guard);
        RUN(recovery_codes_once_each);
        RUN(reseal_rewrites_every_secret_or_none);
        RUN(links_are_used_once);
        RUN(passwords_set_by_a_link_or_the_current_one);
        return hsc_test_done();
    }

    snprintf(tmpdir, sizeof(tmpdir), "%s/hsc-factors-XXXXXX", t ? t : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    RUN(totp_enrolment_and_replay_guard);
    RUN(recovery_codes_once_each);
    RUN(reseal_rewrites_every_secret_or_none);
    RUN(links_are_used_once);
    RUN(passwords_set_by_a_link_or_the_current_one);
    RUN(refusals);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) {
        printf("# could not remove %s\n", tmpdir);
    }
    return hsc_test_done();
}
