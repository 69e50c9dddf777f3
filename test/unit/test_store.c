/*
 * test_store.c: the SQLite user store on real files in a temporary
 * directory: schema, every operation, refusals of foreign, garbage, missing,
 * newer and locked files, read-only handles, migration, a file replaced or
 * deleted under a long-lived handle, and readers running while a writer
 * changes users.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "hsc_test.h"
#include "hsc_password.h"
#include "hsc_store.h"
#include "hsc_store_sqlite.h"

#define APP_ID 0x48534331 /* "HSC1", as docs/spec/schema.md says */

static char tmpdir[256];
static int tmpcount;

/* A fresh path in the temporary directory (no file yet). */
static const char *tmp_path(char *buf, size_t len, const char *stem)
{
    snprintf(buf, len, "%s/%s-%d.db", tmpdir, stem, ++tmpcount);
    return buf;
}

/* Remove a database and its -wal and -shm. */
static void rm_db(const char *path)
{
    char p[512];

    unlink(path);
    snprintf(p, sizeof(p), "%s-wal", path);
    unlink(p);
    snprintf(p, sizeof(p), "%s-shm", path);
    unlink(p);
}

/* Run SQL on the file with a plain SQLite connection; returns the rc. */
static int raw_exec(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    int rc;

    rc = sqlite3_open(path, &db);
    if (rc == SQLITE_OK) {
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    }
    sqlite3_close(db);
    return rc;
}

/* One integer from a query on the file, -1 on any error. */
static long long raw_int(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long long v = -1;

    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK
        && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK
        && sqlite3_step(st) == SQLITE_ROW) {
        v = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* One text from a query on the file, into buf ("" on any error). */
static const char *raw_text(const char *path, const char *sql, char *buf,
                            size_t len)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;

    buf[0] = '\0';
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK
        && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK
        && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return buf;
}

/* A user record with recognisable bytes: salt all `fill`, v all ~fill. */
static void make_user(hsc_user_t *u, const char *name, const char *groups,
                      unsigned char fill)
{
    memset(u, 0, sizeof(*u));
    u->name = name;
    u->name_len = strlen(name);
    memset(u->salt, fill, HSC_SALT_LEN);
    memset(u->authenticator, (unsigned char)~fill, HSC_AUTH_LEN);
    hsc_kdf_parse("sha256-chain:1000", &u->kdf);
    u->groups = groups;
}

/* Open a fresh database with one user "alice" in groups "staff,admins". */
static hsc_store_t *fresh_store(char *path, size_t len, const char *stem)
{
    hsc_store_t *s = NULL;
    hsc_user_t u;
    char err[256];

    tmp_path(path, len, stem);
    if (hsc_store_sqlite_open(path, HSC_STORE_CREATE, &s, err, sizeof(err))
        != HSC_OK) {
        printf("# open %s: %s\n", path, err);
        return NULL;
    }
    make_user(&u, "alice", "staff,admins", 0x11);
    if (hsc_store_add(s, &u) != HSC_OK) {
        printf("# add alice: %s\n", hsc_store_errmsg(s));
    }
    return s;
}

static int contains(const char *hay, const char *needle)
{
    return hay != NULL && strstr(hay, needle) != NULL;
}

/* --- schema ----------------------------------------------------------------
 */

static void create_writes_application_id_version_and_wal(void)
{
    char path[512], text[2048], err[256];
    hsc_store_t *s = NULL;
    hsc_status_t st;

    tmp_path(path, sizeof(path), "schema");
    st = hsc_store_sqlite_open(path, HSC_STORE_CREATE, &s, err, sizeof(err));
    CHECK_EQ(st, HSC_OK, "CREATE opens a new file");
    CHECK(s != NULL, "and returns a handle");
    CHECK_STR(err, "", "with no error text");
    hsc_store_close(s);
    CHECK_EQ(raw_int(path, "PRAGMA application_id"), APP_ID,
             "application_id is HSC1");
    CHECK_EQ(raw_int(path, "PRAGMA user_version"), 7, "user_version is 7");
    CHECK_STR(raw_text(path, "PRAGMA journal_mode", text, sizeof(text)), "wal",
              "journal mode is WAL");
    raw_text(path, "SELECT sql FROM sqlite_master WHERE name = 'hsc_users'",
             text, sizeof(text));
    CHECK(contains(text, "WITHOUT ROWID"), "hsc_users is WITHOUT ROWID");
    CHECK(contains(text, "length(salt) = 16"), "salt length is checked");
    CHECK(contains(text, "length(authenticator) = 32"),
          "authenticator length is checked");

    /* Reopening an initialized file with CREATE changes nothing. */
    st = hsc_store_sqlite_open(path, HSC_STORE_CREATE, &s, err, sizeof(err));
    CHECK_EQ(st, HSC_OK, "CREATE on an existing hsc database opens it");
    hsc_store_close(s);
    CHECK_EQ(raw_int(path, "PRAGMA user_version"), 7, "still version 7");
    rm_db(path);
}

static void schema_checks_refuse_bad_lengths(void)
{
    char path[512];
    hsc_store_t *s;

    s = fresh_store(path, sizeof(path), "checks");
    hsc_store_close(s);
    CHECK_EQ(
        raw_exec(path,
                 "INSERT INTO hsc_users VALUES ('bob', zeroblob(15), "
                 "'sha256-chain:1', zeroblob(32), '', 0, 0, 1, 1, 0, NULL)"),
        SQLITE_CONSTRAINT, "a 15-byte salt is refused");
    CHECK_EQ(
        raw_exec(path,
                 "INSERT INTO hsc_users VALUES ('bob', zeroblob(16), "
                 "'sha256-chain:1', zeroblob(31), '', 0, 0, 1, 1, 0, NULL)"),
        SQLITE_CONSTRAINT, "a 31-byte authenticator is refused");
    CHECK_EQ(
        raw_exec(path,
                 "INSERT INTO hsc_users VALUES ('', zeroblob(16), "
                 "'sha256-chain:1', zeroblob(32), '', 0, 0, 1, 1, 0, NULL)"),
        SQLITE_CONSTRAINT, "an empty username is refused");
    CHECK_EQ(raw_exec(path,
                      "INSERT INTO hsc_users VALUES ('bob', "
                      "'0123456789abcdef', 'sha256-chain:1', zeroblob(32), '', "
                      "0, 0, 1, 1, 0, NULL)"),
             SQLITE_CONSTRAINT, "a text salt is refused");
    CHECK_EQ(
        raw_exec(path,
                 "INSERT INTO hsc_users VALUES ('bob', zeroblob(16), "
                 "'sha256-chain:1', zeroblob(32), '', 2, 0, 1, 1, 0, NULL)"),
        SQLITE_CONSTRAINT, "disabled = 2 is refused");
    CHECK_EQ(
        raw_exec(path,
                 "INSERT INTO hsc_users VALUES ('bob', zeroblob(16), "
                 "'sha256-chain:1', zeroblob(32), '', 0, 0, 1, 1, 0, NULL)"),
        SQLITE_OK, "a well-formed row is accepted");
    rm_db(path);
}

/* --- the operations --------------------------------------------------------
 */

static void add_then_get_returns_every_field(void)
{
    char path[512];
    hsc_store_t *s;
    hsc_user_t u, want;
    int64_t now = (int64_t)time(NULL);
    unsigned char salt[HSC_SALT_LEN], v[HSC_AUTH_LEN];
    char spec[HSC_KDF_SPEC_MAX];

    s = fresh_store(path, sizeof(path), "get");
    CHECK(s != NULL, "store opened");
    if (s == NULL) {
        return;
    }
    make_user(&want, "alice", "staff,admins", 0x11);
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice is found");
    CHECK_STR(u.name, "alice", "name");
    CHECK_EQ(u.name_len, 5, "name length");
    CHECK(memcmp(u.salt, want.salt, HSC_SALT_LEN) == 0, "salt");
    CHECK(memcmp(u.authenticator, want.authenticator, HSC_AUTH_LEN) == 0,
          "authenticator");
    hsc_kdf_format(&u.kdf, spec, sizeof(spec));
    CHECK_STR(spec, "sha256-chain:1000", "kdf");
    CHECK_STR(u.groups, "staff,admins", "groups");
    CHECK_EQ(u.disabled, 0, "not disabled");
    CHECK_EQ(u.revoked_before, 0, "never revoked");
    CHECK_EQ(u.gen, 0, "gen starts at 0");
    CHECK(u.created >= now - 5 && u.created <= now + 5, "created is now");
    CHECK_EQ(u.updated, u.created, "updated equals created");
    CHECK_STR(raw_text(path, "SELECT kdf FROM hsc_users", spec, sizeof(spec)),
              "sha256-chain:1000", "the kdf column holds the SPEC text");

    /* The key is the exact byte string: a prefix or longer name misses. */
    CHECK_EQ(hsc_store_get(s, "alic", 4, &u), HSC_ENOUSER, "prefix misses");
    CHECK_EQ(hsc_store_get(s, "alice!", 6, &u), HSC_ENOUSER,
             "longer name misses");
    CHECK_EQ(hsc_store_get(s, "alice!", 5, &u), HSC_OK,
             "the length, not the NUL, bounds the name");
    CHECK_EQ(hsc_store_get(s, "ALICE", 5, &u), HSC_ENOUSER,
             "names are case-sensitive");
    CHECK_EQ(hsc_store_get(s, "", 0, &u), HSC_ENOUSER, "empty name misses");
    CHECK(u.name == NULL && u.groups == NULL, "a miss zeroes the output");

    /* set_password replaces salt, kdf and v, and moves `updated`. */
    raw_exec(path, "UPDATE hsc_users SET updated = 1000");
    memset(salt, 0x5a, sizeof(salt));
    memset(v, 0xa5, sizeof(v));
    hsc_kdf_parse("scrypt:1024:8:1", &want.kdf);
    CHECK_EQ(hsc_store_set_password(s, "alice", salt, &want.kdf, v), HSC_OK,
             "set_password");
    hsc_store_get(s, "alice", 5, &u);
    CHECK(memcmp(u.salt, salt, sizeof(salt)) == 0, "new salt");
    CHECK(memcmp(u.authenticator, v, sizeof(v)) == 0, "new authenticator");
    CHECK_EQ(u.kdf.alg, HSC_KDF_SCRYPT, "new kdf");
    CHECK_EQ(u.kdf.N, 1024, "new kdf N");
    CHECK(u.updated >= now - 5, "set_password updates `updated`");
    CHECK_STR(u.groups, "staff,admins", "groups untouched");
    CHECK_EQ(hsc_store_set_password(s, "nobody", salt, &want.kdf, v),
             HSC_ENOUSER, "set_password on an unknown user");
    hsc_store_close(s);
    rm_db(path);
}

static void add_refuses_duplicates_and_invalid_input(void)
{
    char path[512];
    hsc_store_t *s;
    hsc_user_t u;
    hsc_kdf_t bad;

    s = fresh_store(path, sizeof(path), "add");
    if (s == NULL) {
        CHECK(0, "store opened");
        return;
    }
    make_user(&u, "alice", "", 0x22);
    CHECK_EQ(hsc_store_add(s, &u), HSC_EEXISTS, "a second alice");
    CHECK(contains(hsc_store_errmsg(s), "exists"), "errmsg says exists");
    make_user(&u, "bad\nname", "", 0x22);
    CHECK_EQ(hsc_store_add(s, &u), HSC_EINVAL, "a control character");
    make_user(&u, "bob", "a,,b", 0x22);
    CHECK_EQ(hsc_store_add(s, &u), HSC_EINVAL, "an empty group");
    make_user(&u, "bob", "a b", 0x22);
    CHECK_EQ(hsc_store_add(s, &u), HSC_EINVAL, "a space in a group");
    make_user(&u, "bob", "a,b,a", 0x22);
    CHECK_EQ(hsc_store_add(s, &u), HSC_EINVAL, "a duplicate group");
    make_user(&u, "bob", "a,", 0x22);
    CHECK_EQ(hsc_store_add(s, &u), HSC_EINVAL, "a trailing comma");
    make_user(&u, "bob", "", 0x22);
    memset(&bad, 0, sizeof(bad));
    u.kdf = bad;
    CHECK_EQ(hsc_store_add(s, &u), HSC_EINVAL, "no kdf");
    make_user(&u, "bob", "", 0x22);
    u.disabled = 1;
    CHECK_EQ(hsc_store_add(s, &u), HSC_OK, "bob, disabled from the start");
    CHECK_EQ(hsc_store_get(s, "bob", 3, &u), HSC_OK, "bob is found");
    CHECK_EQ(u.disabled, 1, "bob is disabled");
    CHECK_STR(u.groups, "", "bob has no groups");
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM hsc_users"), 2,
             "exactly two rows were stored");
    hsc_store_close(s);
    rm_db(path);
}

static void groups_disable_revoke_and_delete_change_one_user(void)
{
    char path[512];
    hsc_store_t *s;
    hsc_user_t u;

    s = fresh_store(path, sizeof(path), "ops");
    if (s == NULL) {
        CHECK(0, "store opened");
        return;
    }
    make_user(&u, "bob", "", 0x33);
    hsc_store_add(s, &u);

    CHECK_EQ(hsc_store_set_groups(s, "alice", "ops"), HSC_OK, "set groups");
    hsc_store_get(s, "alice", 5, &u);
    CHECK_STR(u.groups, "ops", "groups replaced");
    CHECK_EQ(hsc_store_set_groups(s, "alice", ""), HSC_OK, "clear groups");
    hsc_store_get(s, "alice", 5, &u);
    CHECK_STR(u.groups, "", "groups cleared");
    CHECK_EQ(hsc_store_set_groups(s, "alice", "x,,y"), HSC_EINVAL,
             "bad group list refused");
    CHECK_EQ(hsc_store_set_groups(s, "carol", "ops"), HSC_ENOUSER,
             "set_groups on an unknown user");

    CHECK_EQ(hsc_store_set_disabled(s, "alice", 1), HSC_OK, "disable");
    hsc_store_get(s, "alice", 5, &u);
    CHECK_EQ(u.disabled, 1, "alice disabled");
    hsc_store_get(s, "bob", 3, &u);
    CHECK_EQ(u.disabled, 0, "bob untouched");
    CHECK_EQ(hsc_store_set_disabled(s, "alice", 0), HSC_OK, "enable");
    hsc_store_get(s, "alice", 5, &u);
    CHECK_EQ(u.disabled, 0, "alice enabled");
    CHECK_EQ(hsc_store_set_disabled(s, "carol", 1), HSC_ENOUSER,
             "disable an unknown user");

    CHECK_EQ(hsc_store_revoke_now(s, "alice", -1), HSC_EINVAL,
             "a negative now is refused");
    {
        int64_t t0 = (int64_t)time(NULL);
        CHECK_EQ(hsc_store_set_disabled(s, "alice", 1), HSC_OK, "disable");
        CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice");
        CHECK(u.revoked_before >= t0 + 1 && u.revoked_before <= t0 + 5,
              "disabling revoked: revoked_before = now + 1");
        CHECK_EQ(hsc_store_set_disabled(s, "alice", 0), HSC_OK, "enable");
        CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice");
        CHECK(u.revoked_before >= t0 + 1,
              "enabling keeps the revocation: no earlier cookie comes back");
    }
    /* Revoking at now stores now + 1, so this second's cookies are
     * refused too; disabling revokes as well. A second revocation in the same
     * second moves it again (a cookie issued between the two has iat = the
     * first value), and nothing lowers it. */
    {
        int64_t t = (int64_t)time(NULL) + 1000;

        CHECK_EQ(hsc_store_revoke_now(s, "alice", t), HSC_OK, "revoke now");
        CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice");
        CHECK_EQ(u.revoked_before, t + 1, "revoked_before = now + 1");
        CHECK_EQ(hsc_store_revoke_now(s, "alice", t), HSC_OK,
                 "revoke again in the same second");
        CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice");
        CHECK_EQ(u.revoked_before, t + 2,
                 "the second revocation refuses a cookie of iat now + 1");
        CHECK_EQ(hsc_store_revoke(s, "alice", 0), HSC_OK,
                 "a revocation to an earlier time");
        CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice");
        CHECK_EQ(u.revoked_before, t + 3,
                 "does not lower revoked_before: it only grows");
    }
    CHECK_EQ(hsc_store_revoke(s, "alice", 4000000000), HSC_OK, "revoke");
    hsc_store_get(s, "alice", 5, &u);
    CHECK_EQ(u.revoked_before, 4000000000, "revoked_before set");
    CHECK_EQ(hsc_store_revoke(s, "carol", 1), HSC_ENOUSER,
             "revoke an unknown user");

    CHECK_EQ(hsc_store_del(s, "alice"), HSC_OK, "delete");
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_ENOUSER, "alice is gone");
    CHECK_EQ(hsc_store_get(s, "bob", 3, &u), HSC_OK, "bob remains");
    CHECK_EQ(hsc_store_del(s, "alice"), HSC_ENOUSER, "delete twice");
    hsc_store_close(s);
    rm_db(path);
}

/* Collects names from list(); stops after `stop` users when non-zero. */
typedef struct {
    char names[256];
    int count, stop;
} list_acc_t;

static int list_cb(void *baton, const hsc_user_t *u)
{
    list_acc_t *acc = baton;
    size_t n = strlen(acc->names);

    snprintf(acc->names + n, sizeof(acc->names) - n, "%s%s(%s)", n ? " " : "",
             u->name, u->groups);
    acc->count++;
    return acc->stop != 0 && acc->count >= acc->stop;
}

static void list_walks_users_in_name_order(void)
{
    char path[512];
    hsc_store_t *s;
    hsc_user_t u;
    list_acc_t acc;

    s = fresh_store(path, sizeof(path), "list");
    if (s == NULL) {
        CHECK(0, "store opened");
        return;
    }
    make_user(&u, "zoe", "z", 1);
    hsc_store_add(s, &u);
    make_user(&u, "bob", "", 2);
    hsc_store_add(s, &u);
    memset(&acc, 0, sizeof(acc));
    CHECK_EQ(hsc_store_list(s, list_cb, &acc), HSC_OK, "list");
    CHECK_EQ(acc.count, 3, "three users");
    CHECK_STR(acc.names, "alice(staff,admins) bob() zoe(z)", "in name order");
    memset(&acc, 0, sizeof(acc));
    acc.stop = 2;
    CHECK_EQ(hsc_store_list(s, list_cb, &acc), HSC_OK, "list, stopped");
    CHECK_EQ(acc.count, 2, "a non-zero return stops the walk");
    hsc_store_close(s);
    rm_db(path);
}

static void get_copies_long_group_lists_into_the_handle(void)
{
    char path[512], groups[3000];
    hsc_store_t *s;
    hsc_user_t u;
    size_t n = 0;
    int i;

    s = fresh_store(path, sizeof(path), "grow");
    if (s == NULL) {
        CHECK(0, "store opened");
        return;
    }
    groups[0] = '\0';
    for (i = 0; i < 200; i++) {
        n += (size_t)snprintf(groups + n, sizeof(groups) - n, "%sgroup%03d",
                              i ? "," : "", i);
    }
    CHECK_EQ(hsc_store_set_groups(s, "alice", groups), HSC_OK,
             "a 1999-byte group list is stored");
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "and read back");
    CHECK_STR(u.groups, groups, "whole");
    CHECK(hsc_groups_contain(u.groups, "group199", 8), "last group present");
    hsc_store_close(s);
    rm_db(path);
}

static void get_refuses_a_record_with_an_invalid_kdf(void)
{
    char path[512];
    hsc_store_t *s;
    hsc_user_t u;

    s = fresh_store(path, sizeof(path), "badkdf");
    if (s == NULL) {
        CHECK(0, "store opened");
        return;
    }
    raw_exec(path, "UPDATE hsc_users SET kdf = 'md5:1' WHERE username = "
                   "'alice'");
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_ESTORE,
             "an unknown kdf is a store failure, not a login");
    CHECK(contains(hsc_store_errmsg(s), "kdf"), "errmsg names the kdf");
    CHECK(u.name == NULL, "output zeroed");
    hsc_store_close(s);
    rm_db(path);
}

/* --- refusals at open ------------------------------------------------------
 */

static void open_refuses_missing_foreign_garbage_and_newer_files(void)
{
    char path[512], err[256];
    hsc_store_t *s = (hsc_store_t *)&s; /* must be reset to NULL */
    FILE *f;
    int i;

    tmp_path(path, sizeof(path), "missing");
    CHECK_EQ(hsc_store_sqlite_open(path, 0, &s, err, sizeof(err)), HSC_EIO,
             "a missing file is HSC_EIO");
    CHECK(s == NULL, "*ps is NULL on failure");
    CHECK(contains(err, "no such file"), "message says no such file");
    CHECK(access(path, F_OK) != 0, "and no file was created");
    CHECK_EQ(hsc_store_sqlite_open(path, HSC_STORE_READONLY, &s, err,
                                   sizeof(err)),
             HSC_EIO, "read-only: missing file is HSC_EIO too");

    tmp_path(path, sizeof(path), "foreign");
    raw_exec(path, "CREATE TABLE accounts (id INTEGER, name TEXT)");
    CHECK_EQ(hsc_store_sqlite_open(path, HSC_STORE_CREATE, &s, err,
                                   sizeof(err)),
             HSC_ESTORE, "a foreign SQLite file is refused, even with CREATE");
    CHECK(contains(err, "not an hsc user database"), "message says why");
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM sqlite_master"), 1,
             "and it was not touched");
    rm_db(path);

    tmp_path(path, sizeof(path), "otherapp");
    raw_exec(path, "PRAGMA application_id = 1234");
    CHECK_EQ(hsc_store_sqlite_open(path, HSC_STORE_CREATE, &s, err,
                                   sizeof(err)),
             HSC_ESTORE, "another application's id is refused");
    CHECK(contains(err, "not an hsc user database"), "message says why");
    rm_db(path);

    tmp_path(path, sizeof(path), "garbage");
    f = fopen(path, "wb");
    for (i = 0; i < 8192; i++) {
        fputc((i * 7919) & 0xff, f);
    }
    fclose(f);
    CHECK_EQ(hsc_store_sqlite_open(path, 0, &s, err, sizeof(err)), HSC_ESTORE,
             "a garbage file is refused");
    CHECK(contains(err, "not an hsc user database"), "message says why");
    CHECK_EQ(hsc_store_sqlite_open(path, HSC_STORE_READONLY, &s, err,
                                   sizeof(err)),
             HSC_ESTORE, "read-only too");
    rm_db(path);

    tmp_path(path, sizeof(path), "empty");
    f = fopen(path, "wb");
    fclose(f);
    CHECK_EQ(hsc_store_sqlite_open(path, 0, &s, err, sizeof(err)), HSC_ESTORE,
             "an empty file without CREATE is refused");
    CHECK(contains(err, "hsc-admin init"), "message says to init it");
    CHECK_EQ(hsc_store_sqlite_open(path, HSC_STORE_CREATE, &s, err,
                                   sizeof(err)),
             HSC_OK, "an empty file with CREATE is initialized");
    hsc_store_close(s);
    rm_db(path);

    s = fresh_store(path, sizeof(path), "newer");
    hsc_store_close(s);
    raw_exec(path, "PRAGMA user_version = 8");
    CHECK_EQ(hsc_store_sqlite_open(path, 0, &s, err, sizeof(err)), HSC_ESTORE,
             "a newer schema version is refused");
    CHECK(contains(err, "newer"), "message says newer");
    CHECK_EQ(raw_int(path, "PRAGMA user_version"), 8, "version untouched");
    rm_db(path);

    CHECK_EQ(hsc_store_sqlite_open(tmpdir, 0, &s, err, sizeof(err)), HSC_EIO,
             "a directory is refused");
    CHECK_EQ(hsc_store_sqlite_open(path, HSC_STORE_CREATE | HSC_STORE_READONLY,
                                   &s, err, sizeof(err)),
             HSC_ESTORE, "CREATE with READONLY is refused");
}

static void truncated_database_fails_closed(void)
{
    char path[512], err[256];
    hsc_store_t *s;
    hsc_user_t u;
    int i;
    hsc_status_t st;

    s = fresh_store(path, sizeof(path), "truncated");
    if (s == NULL) {
        CHECK(0, "store opened");
        return;
    }
    for (i = 0; i < 50; i++) {
        char name[16];

        snprintf(name, sizeof(name), "user%02d", i);
        make_user(&u, name, "", (unsigned char)i);
        hsc_store_add(s, &u);
    }
    hsc_store_close(s);
    /* Page 1 (the schema) survives; the table's pages are gone. */
    CHECK_EQ(truncate(path, 4096), 0, "truncate to one page");
    s = NULL;
    st = hsc_store_sqlite_open(path, 0, &s, err, sizeof(err));
    if (st == HSC_OK) {
        CHECK_EQ(hsc_store_get(s, "user07", 6, &u), HSC_ESTORE,
                 "a lookup in the missing pages is HSC_ESTORE");
        CHECK(u.name == NULL, "with a zeroed output");
        CHECK(hsc_store_errmsg(s)[0] != '\0', "and a message");
    }
    else {
        CHECK_EQ(st, HSC_ESTORE, "or the open itself is HSC_ESTORE");
        CHECK(s == NULL, "with no handle");
        CHECK(err[0] != '\0', "and a message");
        printf("# %s\n", err);
    }
    hsc_store_close(s);
    rm_db(path);
}

static void open_migrates_an_older_version_when_writable(void)
{
    char path[512], sql[64], err[256];
    hsc_store_t *s = NULL;
    hsc_user_t u;

    /* Version 0 of our own file: application_id set, no table yet. */
    tmp_path(path, sizeof(path), "old");
    snprintf(sql, sizeof(sql), "PRAGMA application_id = %d", APP_ID);
    raw_exec(path, sql);
    CHECK_EQ(hsc_store_sqlite_open(path, HSC_STORE_READONLY, &s, err,
                                   sizeof(err)),
             HSC_ESTORE, "read-only cannot migrate");
    CHECK(contains(err, "upgrade"), "message says an upgrade is needed");
    CHECK_EQ(raw_int(path, "PRAGMA user_version"), 0, "still version 0");
    CHECK_EQ(hsc_store_sqlite_open(path, 0, &s, err, sizeof(err)), HSC_OK,
             "a writable open migrates");
    CHECK_EQ(raw_int(path, "PRAGMA user_version"), 7, "now version 7");
    make_user(&u, "dave", "", 9);
    CHECK_EQ(hsc_store_add(s, &u), HSC_OK, "and the table works");
    hsc_store_close(s);
    rm_db(path);
}

/* 1 when id is 32 lowercase hex digits. */
static int is_store_id(const char *id)
{
    size_t i;

    for (i = 0; id[i] != '\0'; i++) {
        if (!((id[i] >= '0' && id[i] <= '9')
              || (id[i] >= 'a' && id[i] <= 'f'))) {
            return 0;
        }
    }
    return i == HSC_STORE_ID_SIZE - 1;
}

/* Make path a file of schema version 2 (mod_hsc before format 2): what
 * versions 3 to 6 added, taken away again. */
static int make_version_2(const char *path)
{
    return raw_exec(path, "DROP TRIGGER hsc_users_passkeys_go; "
                          "DROP TABLE hsc_passkeys; "
                          "DROP TABLE hsc_passkey_users; "
                          "ALTER TABLE hsc_users DROP COLUMN passkey_seals; "
                          "DROP TRIGGER hsc_users_tokens_go; "
                          "DROP TABLE hsc_tokens; "
                          "DROP TRIGGER hsc_users_factors_go; "
                          "DROP TABLE hsc_totp; DROP TABLE hsc_recovery; "
                          "DROP TABLE hsc_links; "
                          "ALTER TABLE hsc_users DROP COLUMN gen; "
                          "PRAGMA user_version = 2");
}

/* Make path a file of schema version 1 (as mod_hsc 1.x left it). */
static int make_version_1(const char *path)
{
    return make_version_2(path) != SQLITE_OK
               ? SQLITE_ERROR
               : raw_exec(path, "DROP TABLE hsc_meta; PRAGMA user_version = 1");
}

static void store_id_is_made_once_and_kept(void)
{
    char path[512], path2[512], id[HSC_STORE_ID_SIZE], id2[HSC_STORE_ID_SIZE];
    char raw[64], err[256];
    hsc_store_t *s, *s2;

    s = fresh_store(path, sizeof(path), "storeid");
    if (s == NULL) {
        CHECK(0, "store opened");
        return;
    }
    CHECK_EQ(hsc_store_id(s, id, sizeof(id)), HSC_OK, "a new file has an id");
    CHECK(is_store_id(id), "32 lowercase hex digits");
    CHECK_STR(raw_text(path, "SELECT store_id FROM hsc_meta WHERE id = 1", raw,
                       sizeof(raw)),
              id, "kept in hsc_meta");
    CHECK_EQ(hsc_store_id(s, id2, 10), HSC_EINVAL, "a short buffer is refused");
    hsc_store_close(s);

    s = NULL;
    CHECK_EQ(hsc_store_sqlite_open(path, HSC_STORE_CREATE, &s, err,
                                   sizeof(err)),
             HSC_OK, "reopened with CREATE (init again)");
    CHECK_EQ(hsc_store_id(s, id2, sizeof(id2)), HSC_OK, "has an id");
    CHECK_STR(id2, id, "the same id after init again");
    hsc_store_close(s);
    s = NULL;
    CHECK_EQ(hsc_store_sqlite_open(path, HSC_STORE_READONLY, &s, err,
                                   sizeof(err)),
             HSC_OK, "reopened read-only");
    CHECK_EQ(hsc_store_id(s, id2, sizeof(id2)), HSC_OK, "has an id");
    CHECK_STR(id2, id, "the same id read-only");
    hsc_store_close(s);

    /* Another spelling of the path: the same file, the same id. */
    snprintf(path2, sizeof(path2), "%s/./%s", tmpdir, strrchr(path, '/') + 1);
    s = NULL;
    CHECK_EQ(hsc_store_sqlite_open(path2, HSC_STORE_NOMIGRATE, &s, err,
                                   sizeof(err)),
             HSC_OK, "opened as dir/./file");
    CHECK_EQ(hsc_store_id(s, id2, sizeof(id2)), HSC_OK, "has an id");
    CHECK_STR(id2, id, "the same id under another spelling");
    hsc_store_close(s);

    /* Another database: another id. */
    s2 = fresh_store(path2, sizeof(path2), "storeid-other");
    CHECK_EQ(hsc_store_id(s2, id2, sizeof(id2)), HSC_OK, "the other has one");
    CHECK(strcmp(id, id2) != 0, "two databases have two ids");
    hsc_store_close(s2);
    rm_db(path2);

    CHECK_EQ(raw_exec(path, "UPDATE hsc_meta SET store_id = 'ABC'"),
             SQLITE_CONSTRAINT, "the schema refuses an id that is not 32 hex");
    CHECK_EQ(raw_exec(path, "INSERT INTO hsc_meta VALUES (2, "
                            "'0123456789abcdef0123456789abcdef')"),
             SQLITE_CONSTRAINT, "and a second row");
    rm_db(path);
}

static void version_1_is_upgraded_by_init_and_read_as_is_before(void)
{
    char path[512], id[HSC_STORE_ID_SIZE], id2[HSC_STORE_ID_SIZE], err[256];
    hsc_store_t *s, *ro = NULL, *nm = NULL;
    hsc_user_t u;

    s = fresh_store(path, sizeof(path), "v1");
    if (s == NULL) {
        CHECK(0, "store opened");
        return;
    }
    make_user(&u, "bob", "", 0x22);
    CHECK_EQ(hsc_store_add(s, &u), HSC_OK, "bob added");
    hsc_store_close(s);
    CHECK_EQ(hsc_store_sqlite_is_version1(path), 0,
             "a current file's header is not version 1");
    CHECK_EQ(hsc_store_sqlite_is_version1("/nonexistent/users.db"), 0,
             "no file is not version 1");
    CHECK_EQ(make_version_1(path), SQLITE_OK, "made a version 1 file");
    CHECK_EQ(raw_int(path, "PRAGMA user_version"), 1, "it says version 1");
    CHECK_EQ(hsc_store_sqlite_is_version1(path), 1,
             "its header says version 1 (read without SQLite, for configtest)");

    /* httpd's opens: read-only (the startup check) and NOMIGRATE (the
     * children) use it as it is, users and all, without an id. */
    CHECK_EQ(hsc_store_sqlite_open(path, HSC_STORE_READONLY, &ro, err,
                                   sizeof(err)),
             HSC_OK, "read-only opens version 1");
    CHECK_EQ(hsc_store_sqlite_open(path, HSC_STORE_NOMIGRATE, &nm, err,
                                   sizeof(err)),
             HSC_OK, "NOMIGRATE opens version 1");
    if (ro == NULL || nm == NULL) {
        hsc_store_close(ro);
        hsc_store_close(nm);
        rm_db(path);
        return;
    }
    CHECK_EQ(raw_int(path, "PRAGMA user_version"), 1, "and leaves it at 1");
    CHECK_EQ(hsc_store_get(nm, "alice", 5, &u), HSC_OK, "alice is read");
    CHECK_STR(u.groups, "staff,admins", "with her groups");
    CHECK_EQ(hsc_store_id(nm, id, sizeof(id)), HSC_EINVAL, "no store id yet");
    CHECK_STR(id, "", "an empty id");
    CHECK(contains(hsc_store_errmsg(nm), "hsc-admin init"),
          "the message says what adds one");
    CHECK_EQ(hsc_store_id(ro, id, sizeof(id)), HSC_EINVAL,
             "none read-only either");

    /* hsc-admin init: a CREATE open upgrades it in place. */
    s = NULL;
    CHECK_EQ(hsc_store_sqlite_open(path, HSC_STORE_CREATE, &s, err,
                                   sizeof(err)),
             HSC_OK, "init upgrades version 1");
    CHECK_EQ(raw_int(path, "PRAGMA user_version"), 7, "now version 7");
    CHECK_EQ(hsc_store_id(s, id, sizeof(id)), HSC_OK, "with a store id");
    CHECK(is_store_id(id), "of 32 hex digits");
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice kept");
    CHECK_EQ(hsc_store_get(s, "bob", 3, &u), HSC_OK, "bob kept");
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM hsc_users"), 2,
             "no user lost or added");
    hsc_store_close(s);

    /* Handles opened before the upgrade see the id without a reopen. */
    CHECK_EQ(hsc_store_id(nm, id2, sizeof(id2)), HSC_OK,
             "a handle opened before sees the new id");
    CHECK_STR(id2, id, "the same id");
    CHECK_EQ(hsc_store_id(ro, id2, sizeof(id2)), HSC_OK, "a read-only one too");
    CHECK_STR(id2, id, "the same id");
    hsc_store_close(ro);
    hsc_store_close(nm);

    /* A plain read-write open (hsc-admin add, ...) upgrades as well. */
    CHECK_EQ(make_version_1(path), SQLITE_OK, "version 1 again");
    s = NULL;
    CHECK_EQ(hsc_store_sqlite_open(path, 0, &s, err, sizeof(err)), HSC_OK,
             "a read-write open");
    CHECK_EQ(raw_int(path, "PRAGMA user_version"), 7, "upgrades it");
    CHECK_EQ(hsc_store_id(s, id2, sizeof(id2)), HSC_OK, "and makes an id");
    CHECK(strcmp(id2, id) != 0, "a new one (the old was dropped)");
    hsc_store_close(s);
    rm_db(path);
}

/* Format 2's revocation: every revocation, and a new password, raise gen
 * by one; a file of version 2 reads gen -1 (format 1 only), is revoked
 * without it, and once upgraded under an open handle, that handle reads
 * and raises the real gen. */
static void gen_grows_with_each_revocation_and_survives_upgrade(void)
{
    char path[512], err[256];
    unsigned char salt[HSC_SALT_LEN] = {1}, v[HSC_AUTH_LEN] = {2};
    hsc_store_t *s, *nm = NULL;
    hsc_user_t u;

    s = fresh_store(path, sizeof(path), "gen");
    if (s == NULL) {
        CHECK(0, "store opened");
        return;
    }
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice");
    CHECK_EQ(u.gen, 0, "gen 0");
    CHECK_EQ(hsc_store_revoke_now(s, "alice", (int64_t)time(NULL)), HSC_OK,
             "log out everywhere");
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice");
    CHECK_EQ(u.gen, 1, "gen 1 after a revocation");
    CHECK_EQ(hsc_store_set_disabled(s, "alice", 1), HSC_OK, "disable");
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice");
    CHECK_EQ(u.gen, 2, "disabling revokes: gen 2");
    CHECK_EQ(hsc_store_set_disabled(s, "alice", 0), HSC_OK, "enable");
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice");
    CHECK_EQ(u.gen, 2, "enabling does not move gen");
    CHECK_EQ(hsc_store_set_password(s, "alice", salt, &u.kdf, v), HSC_OK,
             "a new password");
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice");
    CHECK_EQ(u.gen, 3, "a new password ends every format 2 cookie: gen 3");
    CHECK_EQ(hsc_store_set_groups(s, "alice", "staff"), HSC_OK, "groups");
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice");
    CHECK_EQ(u.gen, 3, "a group change does not");
    CHECK_EQ(raw_exec(path, "UPDATE hsc_users SET gen = -1"), SQLITE_CONSTRAINT,
             "the schema refuses a negative gen");
    hsc_store_close(s);

    CHECK_EQ(make_version_2(path), SQLITE_OK, "made a version 2 file");
    CHECK_EQ(hsc_store_sqlite_open(path, HSC_STORE_NOMIGRATE, &nm, err,
                                   sizeof(err)),
             HSC_OK, "httpd's open uses a version 2 file as it is");
    if (nm == NULL) {
        rm_db(path);
        return;
    }
    CHECK_EQ(hsc_store_get(nm, "alice", 5, &u), HSC_OK, "alice is read");
    CHECK_EQ(u.gen, -1, "with gen -1: no format 2 cookie matches");
    CHECK_EQ(hsc_store_revoke_now(nm, "alice", (int64_t)time(NULL)), HSC_OK,
             "log out everywhere works without gen");
    CHECK_EQ(raw_int(path, "PRAGMA user_version"), 2, "still version 2");

    s = NULL;
    CHECK_EQ(hsc_store_sqlite_open(path, HSC_STORE_CREATE, &s, err,
                                   sizeof(err)),
             HSC_OK, "hsc-admin init upgrades it");
    CHECK_EQ(raw_int(path, "PRAGMA user_version"), 7, "to version 7");
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice kept");
    CHECK_EQ(u.gen, 0, "at gen 0");
    hsc_store_close(s);
    CHECK_EQ(hsc_store_get(nm, "alice", 5, &u), HSC_OK,
             "the handle opened before reads her");
    CHECK_EQ(u.gen, 0, "with the real gen, without a reopen");
    CHECK_EQ(hsc_store_revoke_now(nm, "alice", (int64_t)time(NULL)), HSC_OK,
             "and revokes");
    CHECK_EQ(raw_int(path, "SELECT gen FROM hsc_users WHERE username = "
                           "'alice'"),
             1, "raising gen");
    hsc_store_close(nm);
    rm_db(path);
}

static void read_only_handle_reads_and_refuses_writes(void)
{
    char path[512], err[256];
    hsc_store_t *rw, *ro = NULL;
    hsc_user_t u;
    unsigned char salt[HSC_SALT_LEN] = {0}, v[HSC_AUTH_LEN] = {0};

    rw = fresh_store(path, sizeof(path), "ro");
    CHECK_EQ(hsc_store_sqlite_open(path, HSC_STORE_READONLY, &ro, err,
                                   sizeof(err)),
             HSC_OK, "read-only open");
    if (ro == NULL) {
        hsc_store_close(rw);
        return;
    }
    CHECK_EQ(hsc_store_get(ro, "alice", 5, &u), HSC_OK, "get works");
    make_user(&u, "bob", "", 1);
    CHECK_EQ(hsc_store_add(ro, &u), HSC_EREADONLY, "add refused");
    CHECK(contains(hsc_store_errmsg(ro), "read-only"), "errmsg says so");
    CHECK_EQ(hsc_store_set_password(ro, "alice", salt, &u.kdf, v),
             HSC_EREADONLY, "set_password refused");
    CHECK_EQ(hsc_store_set_groups(ro, "alice", "x"), HSC_EREADONLY,
             "set_groups refused");
    CHECK_EQ(hsc_store_set_disabled(ro, "alice", 1), HSC_EREADONLY,
             "set_disabled refused");
    CHECK_EQ(hsc_store_revoke(ro, "alice", 5), HSC_EREADONLY, "revoke refused");
    CHECK_EQ(hsc_store_del(ro, "alice"), HSC_EREADONLY, "del refused");
    CHECK_EQ(hsc_store_get(ro, "alice", 5, &u), HSC_OK, "alice unchanged");
    CHECK_EQ(u.disabled, 0, "not disabled");

    /* The read-only handle sees what the writer commits. */
    hsc_store_set_disabled(rw, "alice", 1);
    CHECK_EQ(hsc_store_get(ro, "alice", 5, &u), HSC_OK, "get again");
    CHECK_EQ(u.disabled, 1, "the writer's change is visible at once");
    hsc_store_close(ro);
    hsc_store_close(rw);
    rm_db(path);
}

static void locked_database_fails_closed(void)
{
    char path[512], err[256];
    hsc_store_t *s, *s2 = (hsc_store_t *)&s;
    hsc_user_t u;
    sqlite3 *db = NULL;
    int rc;

    s = fresh_store(path, sizeof(path), "locked");
    if (s == NULL) {
        CHECK(0, "store opened");
        return;
    }
    hsc_store_close(s);
    /* Exclusive locking mode keeps every other connection out, readers
     * included, until this one closes. */
    sqlite3_open(path, &db);
    rc = sqlite3_exec(db,
                      "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;"
                      " UPDATE hsc_users SET updated = updated; COMMIT",
                      NULL, NULL, NULL);
    CHECK_EQ(rc, SQLITE_OK, "another connection holds an exclusive lock");
    CHECK_EQ(hsc_store_sqlite_open(path, 0, &s2, err, sizeof(err)), HSC_ESTORE,
             "opening a locked database is HSC_ESTORE");
    CHECK(s2 == NULL, "no handle");
    CHECK(contains(err, "locked"), "message says locked");
    CHECK_EQ(hsc_store_sqlite_open(path, HSC_STORE_READONLY, &s2, err,
                                   sizeof(err)),
             HSC_ESTORE, "read-only open too");
    sqlite3_close(db);
    CHECK_EQ(hsc_store_sqlite_open(path, 0, &s, err, sizeof(err)), HSC_OK,
             "open works once the lock is gone");
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "and so does get");
    hsc_store_close(s);
    rm_db(path);
}

static void handle_notices_a_deleted_or_replaced_file(void)
{
    char path[512], other[512], err[256];
    hsc_store_t *s, *s2 = NULL;
    hsc_user_t u;

    s = fresh_store(path, sizeof(path), "watch");
    if (s == NULL) {
        CHECK(0, "store opened");
        return;
    }
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice at first");
    rm_db(path);
    sleep(1);
    usleep(100000);
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_ESTORE,
             "once the file is deleted, get fails closed");
    CHECK(contains(hsc_store_errmsg(s), "no such file"),
          "errmsg says the file is gone");
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_ESTORE, "and keeps failing");

    /* A new database appears at the path: the handle reopens it. */
    CHECK_EQ(hsc_store_sqlite_open(path, HSC_STORE_CREATE, &s2, err,
                                   sizeof(err)),
             HSC_OK, "a new file at the same path");
    make_user(&u, "erin", "", 5);
    hsc_store_add(s2, &u);
    hsc_store_close(s2);
    sleep(1);
    usleep(100000);
    CHECK_EQ(hsc_store_get(s, "erin", 4, &u), HSC_OK,
             "the handle reopened the new file");
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_ENOUSER,
             "and no longer sees the old one");

    /* Replaced by rename(2): the old inode stays open; the path moves on. */
    s2 = fresh_store(other, sizeof(other), "replacement");
    make_user(&u, "frank", "", 6);
    hsc_store_add(s2, &u);
    hsc_store_close(s2);
    CHECK_EQ(rename(other, path), 0, "rename a database over the path");
    sleep(1);
    usleep(100000);
    CHECK_EQ(hsc_store_get(s, "frank", 5, &u), HSC_OK,
             "the handle follows the rename");
    CHECK_EQ(hsc_store_get(s, "erin", 4, &u), HSC_ENOUSER,
             "and drops the replaced file");
    hsc_store_close(s);
    rm_db(path);
    rm_db(other);
}

/* Write len bytes over the file at path, in place (same inode). */
static int overwrite_in_place(const char *path, const void *buf, size_t len)
{
    int fd = open(path, O_WRONLY | O_TRUNC);
    ssize_t n;

    if (fd < 0) {
        return -1;
    }
    n = write(fd, buf, len);
    close(fd);
    return n == (ssize_t)len ? 0 : -1;
}

/* A file written over in place (cp over a live database) keeps its inode,
 * so only its size and times tell: the handle must stop answering from the
 * old connection within a second, and follow the file once it is good. */
static void handle_notices_a_file_overwritten_in_place(void)
{
    char path[512], junk[8192];
    static char good[1 << 20];
    hsc_store_t *s;
    hsc_user_t u;
    ssize_t len;
    int fd;

    s = fresh_store(path, sizeof(path), "inplace");
    if (s == NULL) {
        CHECK(0, "store opened");
        return;
    }
    /* Everything into the main file, so its bytes are the whole database. */
    CHECK_EQ(raw_exec(path, "PRAGMA wal_checkpoint(TRUNCATE)"), SQLITE_OK,
             "checkpoint");
    sleep(1);
    usleep(100000);
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice at first");
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice again");
    fd = open(path, O_RDONLY);
    len = fd < 0 ? -1 : read(fd, good, sizeof(good));
    if (fd >= 0) {
        close(fd);
    }
    CHECK(len > 0 && (size_t)len < sizeof(good), "saved the good bytes");
    if (len <= 0) {
        hsc_store_close(s);
        return;
    }

    memset(junk, 'J', sizeof(junk));
    CHECK_EQ(overwrite_in_place(path, junk, sizeof(junk)), 0,
             "garbage written over the file in place");
    sleep(1);
    usleep(100000);
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_ESTORE,
             "within a second, get fails closed");
    CHECK(contains(hsc_store_errmsg(s), "not an hsc user database"),
          "errmsg says what the file is");

    CHECK_EQ(overwrite_in_place(path, good, (size_t)len), 0,
             "the good bytes written back in place");
    sleep(1);
    usleep(100000);
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK,
             "the handle recovers by itself");
    hsc_store_close(s);
    rm_db(path);
}

/* --- the validated cache ----------------------------------------------- */

/* Run sql on path in a separate sqlite3 process; its exit status, or -1. */
static int sqlite3_process(const char *path, const char *sql)
{
    pid_t pid;
    int status = -1;

    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        FILE *f = freopen("/dev/null", "w", stdout);

        (void)f;
        f = freopen("/dev/null", "w", stderr);
        (void)f;
        execlp("sqlite3", "sqlite3", path, sql, (char *)NULL);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
        return -1;
    }
    return WEXITSTATUS(status);
}

static unsigned long cache_hits(const hsc_store_t *s)
{
    unsigned long hits, queries;

    hsc_store_counters(s, &hits, &queries);
    return hits;
}

static unsigned long cache_queries(const hsc_store_t *s)
{
    unsigned long hits, queries;

    hsc_store_counters(s, &hits, &queries);
    return queries;
}

typedef enum { F_NONE, F_REVOKED, F_DISABLED, F_SALT, F_GROUPS } field_t;

/*
 * Every kind of change hsc-admin makes, written by another connection
 * (writer 0: a plain SQLite connection of this process; writer 1: an
 * sqlite3 process), must be what the very next get() returns, although
 * the get() before it was answered from the cache.
 */
static void cache_sees_every_change_on_the_next_get(int writer)
{
    static const struct {
        const char *what;    /* the change, as hsc-admin would make it */
        const char *sql;     /* how the other writer makes it */
        hsc_status_t expect; /* the next get() */
        field_t field;       /* which field shows the change */
        long long value;     /* its new value (first byte for salt) */
        const char *groups;  /* F_GROUPS: the new list */
    } steps[] = {
        {"revoke",
         "UPDATE hsc_users SET revoked_before = 1234 WHERE username = 'alice'",
         HSC_OK, F_REVOKED, 1234, NULL},
        {"disable",
         "UPDATE hsc_users SET disabled = 1 WHERE username = 'alice'", HSC_OK,
         F_DISABLED, 1, NULL},
        {"enable", "UPDATE hsc_users SET disabled = 0 WHERE username = 'alice'",
         HSC_OK, F_DISABLED, 0, NULL},
        {"password change",
         "UPDATE hsc_users SET salt = "
         "x'22222222222222222222222222222222', authenticator = x'"
         "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd'"
         " WHERE username = 'alice'",
         HSC_OK, F_SALT, 0x22, NULL},
        {"groups",
         "UPDATE hsc_users SET groups = 'ops' WHERE username = 'alice'", HSC_OK,
         F_GROUPS, 0, "ops"},
        {"delete", "DELETE FROM hsc_users WHERE username = 'alice'",
         HSC_ENOUSER, F_NONE, 0, NULL},
        {"re-add",
         "INSERT INTO hsc_users VALUES ('alice', "
         "x'33333333333333333333333333333333', 'sha256-chain:1000', x'"
         "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc'"
         ", '', 0, 0, 1, 1, 0, NULL)",
         HSC_OK, F_SALT, 0x33, NULL},
    };
    char path[512], what[160];
    hsc_store_t *s;
    hsc_user_t u;
    unsigned long h;
    size_t i;
    int ok, rc;

    s = fresh_store(path, sizeof(path), writer ? "cache-proc" : "cache-conn");
    if (s == NULL) {
        CHECK(0, "store opened");
        return;
    }
    CHECK_EQ(hsc_store_sqlite_cached(s), 1, "the cache is on in WAL mode");
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice read");
    h = cache_hits(s);
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "alice again");
    CHECK_EQ(cache_hits(s), h + 1, "the second get came from the cache");
    for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        rc = writer ? sqlite3_process(path, steps[i].sql)
                    : raw_exec(path, steps[i].sql);
        snprintf(what, sizeof(what), "%s: written by the other %s",
                 steps[i].what, writer ? "process" : "connection");
        CHECK_EQ(rc, 0, what);
        h = cache_hits(s);
        snprintf(what, sizeof(what), "%s: seen on the next get", steps[i].what);
        CHECK_EQ(hsc_store_get(s, "alice", 5, &u), steps[i].expect, what);
        switch (steps[i].field) {
        case F_REVOKED: ok = u.revoked_before == steps[i].value; break;
        case F_DISABLED: ok = u.disabled == (int)steps[i].value; break;
        case F_SALT:
            ok = u.salt[0] == steps[i].value
                 && u.salt[HSC_SALT_LEN - 1] == steps[i].value
                 && u.authenticator[0] == (unsigned char)~steps[i].value;
            break;
        case F_GROUPS:
            ok = u.groups != NULL && strcmp(u.groups, steps[i].groups) == 0;
            break;
        default: ok = u.name == NULL; break;
        }
        snprintf(what, sizeof(what), "%s: the new value", steps[i].what);
        CHECK(ok, what);
        snprintf(what, sizeof(what), "%s: that get ran the query",
                 steps[i].what);
        CHECK_EQ(cache_hits(s), h, what);
        if (steps[i].expect == HSC_OK) {
            snprintf(what, sizeof(what),
                     "%s: the get after it is a hit with the same record",
                     steps[i].what);
            CHECK(hsc_store_get(s, "alice", 5, &u) == HSC_OK
                      && cache_hits(s) == h + 1 && strcmp(u.name, "alice") == 0,
                  what);
        }
    }
    hsc_store_close(s);
    rm_db(path);
}

static void cache_sees_changes_by_another_connection(void)
{
    cache_sees_every_change_on_the_next_get(0);
}

static void cache_sees_changes_by_another_process(void)
{
    cache_sees_every_change_on_the_next_get(1);
}

/* Own writes, and a write by a second store handle, are seen as well. */
static void cache_sees_writes_through_store_handles(void)
{
    char path[512], err[256];
    hsc_store_t *s, *s2 = NULL;
    hsc_user_t u;
    unsigned char salt[HSC_SALT_LEN], v[HSC_AUTH_LEN];
    hsc_kdf_t k;

    s = fresh_store(path, sizeof(path), "cache-handles");
    if (s == NULL
        || hsc_store_sqlite_open(path, 0, &s2, err, sizeof(err)) != HSC_OK) {
        CHECK(0, "stores opened");
        hsc_store_close(s);
        return;
    }
    hsc_store_get(s, "alice", 5, &u);
    hsc_store_get(s, "alice", 5, &u);
    CHECK(cache_hits(s) >= 1, "warm");
    CHECK_EQ(hsc_store_set_disabled(s2, "alice", 1), HSC_OK, "disable (s2)");
    CHECK(hsc_store_get(s, "alice", 5, &u) == HSC_OK && u.disabled == 1,
          "a second handle's disable is seen");
    {
        int64_t before = u.revoked_before;

        CHECK_EQ(hsc_store_revoke(s, "alice", 77), HSC_OK, "revoke (own)");
        CHECK(hsc_store_get(s, "alice", 5, &u) == HSC_OK
                  && u.revoked_before == before + 1,
              "an own revoke is seen");
    }
    memset(salt, 0x44, sizeof(salt));
    memset(v, 0x55, sizeof(v));
    hsc_kdf_parse("sha256-chain:7", &k);
    hsc_store_get(s, "alice", 5, &u);
    CHECK_EQ(hsc_store_set_password(s2, "alice", salt, &k, v), HSC_OK,
             "new password (s2)");
    CHECK(hsc_store_get(s, "alice", 5, &u) == HSC_OK && u.salt[0] == 0x44
              && u.authenticator[0] == 0x55 && u.kdf.iterations == 7,
          "a second handle's password change is seen");
    CHECK_EQ(hsc_store_del(s2, "alice"), HSC_OK, "delete (s2)");
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_ENOUSER,
             "a second handle's delete is seen");
    hsc_store_close(s2);
    hsc_store_close(s);
    rm_db(path);
}

/* Names or group lists too long for a slot are always queried. */
static void cache_skips_long_records_and_nocache_handles(void)
{
    char path[512], err[256], groups[301];
    hsc_store_t *s, *s2 = NULL;
    hsc_user_t u;
    unsigned long h;
    int i;

    s = fresh_store(path, sizeof(path), "cache-long");
    if (s == NULL) {
        CHECK(0, "store opened");
        return;
    }
    /* A valid list of about 200 bytes: "g0,g1,g2,...". */
    groups[0] = '\0';
    for (i = 0; strlen(groups) < 200; i++) {
        char g[16];

        snprintf(g, sizeof(g), "%sg%d", i ? "," : "", i);
        strcat(groups, g);
    }
    CHECK_EQ(hsc_store_set_groups(s, "alice", groups), HSC_OK,
             "a 200-byte group list");
    hsc_store_get(s, "alice", 5, &u);
    h = cache_hits(s);
    CHECK(hsc_store_get(s, "alice", 5, &u) == HSC_OK
              && strcmp(u.groups, groups) == 0,
          "the long list is returned");
    CHECK_EQ(cache_hits(s), h, "and never from the cache");

    CHECK_EQ(hsc_store_sqlite_open(path, HSC_STORE_NOCACHE, &s2, err,
                                   sizeof(err)),
             HSC_OK, "a HSC_STORE_NOCACHE handle");
    CHECK_EQ(hsc_store_sqlite_cached(s2), 0, "has its cache off");
    hsc_store_set_groups(s, "alice", "x");
    hsc_store_get(s2, "alice", 5, &u);
    hsc_store_get(s2, "alice", 5, &u);
    CHECK(cache_hits(s2) == 0 && cache_queries(s2) == 2,
          "and queries every time");
    hsc_store_close(s2);
    hsc_store_close(s);
    rm_db(path);
}

/*
 * The cache relies on WAL mode. A handle opened on a file in rollback-
 * journal mode queries every time (and sees changes); and no other
 * connection or process can take the file out of WAL mode while a handle
 * is open, because that needs an exclusive lock and the handle's
 * connection holds a shared one between transactions.
 */
static void cache_is_off_in_rollback_mode_and_wal_cannot_be_left(void)
{
    char path[512], mode[32];
    hsc_store_t *s;
    hsc_user_t u;

    s = fresh_store(path, sizeof(path), "cache-journal");
    if (s == NULL) {
        CHECK(0, "store opened");
        return;
    }
    hsc_store_get(s, "alice", 5, &u);
    CHECK(raw_exec(path, "PRAGMA journal_mode = DELETE") == SQLITE_BUSY,
          "another connection cannot leave WAL under an open handle");
    CHECK(sqlite3_process(path, "PRAGMA journal_mode = DELETE") > 0,
          "neither can another process");
    CHECK_STR(raw_text(path, "PRAGMA journal_mode", mode, sizeof(mode)), "wal",
              "the file stays in WAL mode");
    CHECK(hsc_store_get(s, "alice", 5, &u) == HSC_OK && cache_hits(s) >= 1,
          "and the handle keeps its cache");
    hsc_store_close(s);

    CHECK_EQ(sqlite3_process(path, "PRAGMA journal_mode = DELETE"), 0,
             "with no handle open, another process can leave WAL");
    CHECK_STR(raw_text(path, "PRAGMA journal_mode", mode, sizeof(mode)),
              "delete", "the file is in rollback-journal mode");
    s = NULL;
    CHECK_EQ(hsc_store_sqlite_open(path, 0, &s, NULL, 0), HSC_OK,
             "a handle opens it");
    if (s == NULL) {
        rm_db(path);
        return;
    }
    CHECK_EQ(hsc_store_sqlite_cached(s), 0, "with the cache off");
    hsc_store_get(s, "alice", 5, &u);
    hsc_store_get(s, "alice", 5, &u);
    CHECK(raw_exec(path, "UPDATE hsc_users SET disabled = 1") == SQLITE_OK
              && hsc_store_get(s, "alice", 5, &u) == HSC_OK && u.disabled == 1,
          "changes are seen");
    CHECK(cache_hits(s) == 0 && cache_queries(s) == 3,
          "every get ran the query");
    hsc_store_close(s);
    rm_db(path);
}

/* Flip a byte of the WAL-index header in the -shm file (both copies when
 * both is 1, else copy 1 only). Returns 0 on success. */
static int poke_wal_header(const char *path, size_t off, int both)
{
    char shm[600];
    unsigned char *p;
    int fd;

    snprintf(shm, sizeof(shm), "%s-shm", path);
    fd = open(shm, O_RDWR);
    if (fd < 0) {
        return -1;
    }
    p = mmap(NULL, 32768, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        return -1;
    }
    p[48 + off] ^= 0x5a;
    if (both) {
        p[off] ^= 0x5a;
    }
    munmap(p, 32768);
    return 0;
}

/*
 * A torn header (copies differ) and a header changed behind SQLite's back
 * (both copies alike, not the recorded one) both send get() to the query;
 * SQLite rebuilds the header, and the cache works again after.
 */
static void cache_takes_the_query_on_a_torn_or_changed_header(void)
{
    static const struct {
        const char *what; /* the damage */
        size_t off;       /* byte of the 48-byte header */
        int both;         /* 1: both copies alike; 0: copy 1 only */
    } cases[] = {
        {"torn header (padding of copy 1)", 4, 0},
        {"torn header (mxFrame of copy 1)", 16, 0},
        {"changed header (iChange of both)", 8, 1},
        {"changed header (salt of both)", 32, 1},
    };
    char path[512], what[160];
    hsc_store_t *s;
    hsc_user_t u;
    unsigned long h, q;
    size_t i;

    s = fresh_store(path, sizeof(path), "cache-torn");
    if (s == NULL) {
        CHECK(0, "store opened");
        return;
    }
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        hsc_store_get(s, "alice", 5, &u);
        h = cache_hits(s);
        hsc_store_get(s, "alice", 5, &u);
        snprintf(what, sizeof(what), "%s: warm before", cases[i].what);
        CHECK_EQ(cache_hits(s), h + 1, what);
        snprintf(what, sizeof(what), "%s: header poked", cases[i].what);
        CHECK_EQ(poke_wal_header(path, cases[i].off, cases[i].both), 0, what);
        h = cache_hits(s);
        q = cache_queries(s);
        snprintf(what, sizeof(what), "%s: get answers by query", cases[i].what);
        CHECK(hsc_store_get(s, "alice", 5, &u) == HSC_OK && cache_hits(s) == h
                  && cache_queries(s) == q + 1
                  && strcmp(u.groups, "staff,admins") == 0,
              what);
    }
    hsc_store_get(s, "alice", 5, &u);
    h = cache_hits(s);
    hsc_store_get(s, "alice", 5, &u);
    CHECK_EQ(cache_hits(s), h + 1, "the cache works again afterwards");
    hsc_store_close(s);
    rm_db(path);
}

static void groups_contain_matches_whole_names_only(void)
{
    static const struct {
        const char *groups; /* the stored list */
        const char *group;  /* the group asked about */
        int want;           /* 1: member */
    } cases[] = {
        {"staff,admins", "staff", 1},
        {"staff,admins", "admins", 1},
        {"staff,admins", "admin", 0},
        {"staff,admins", "staff,admins", 0},
        {"staff,admins", "taff", 0},
        {"staff", "staff", 1},
        {"", "staff", 0},
        {"staff", "", 0},
        {"a,b,c", "b", 1},
        {"a,b,c", "c", 1},
        {"ab,c", "a", 0},
    };
    size_t i;
    char what[96];

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(what, sizeof(what), "\"%s\" in \"%s\"", cases[i].group,
                 cases[i].groups);
        CHECK_EQ(hsc_groups_contain(cases[i].groups, cases[i].group,
                                    strlen(cases[i].group)),
                 cases[i].want, what);
    }
    CHECK_EQ(hsc_groups_contain(NULL, "a", 1), 0, "NULL list");
    CHECK_EQ(hsc_groups_contain("abc", "abcdef", 3), 1,
             "the length bounds the group, not a NUL");
}

/* --- concurrency -----------------------------------------------------------
 */

#define READERS 4
#define RUN_SECONDS 1.5

typedef struct {
    const char *path;
    hsc_user_t pw[2]; /* salt/kdf/v for password "pw-a" and "pw-b" */
    volatile int stop;
    /* writer */
    long writes;
    int write_failures;
    char write_err[320];
    /* readers */
    long reads[READERS];
    long checks[READERS];
    int store_errors[READERS];
    int torn[READERS];
    int bad_check[READERS];
    int saw_pw[READERS][2];       /* saw each password's record */
    int saw_disabled[READERS][2]; /* saw carol enabled, disabled */
    char read_err[READERS][320];
} race_t;

typedef struct {
    race_t *r;
    int id;
} reader_arg_t;

static double elapsed_since(const struct timespec *t0)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec)
           + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void *writer_main(void *arg)
{
    race_t *r = arg;
    hsc_store_t *s = NULL;
    hsc_user_t tmp;
    hsc_status_t st = HSC_OK;
    char err[256];
    long i = 0;

    if (hsc_store_sqlite_open(r->path, 0, &s, err, sizeof(err)) != HSC_OK) {
        snprintf(r->write_err, sizeof(r->write_err), "open: %s", err);
        r->write_failures++;
        return NULL;
    }
    while (!r->stop) {
        const hsc_user_t *p = &r->pw[(i / 4) & 1];

        switch (i % 4) {
        case 0:
            st = hsc_store_set_password(s, "carol", p->salt, &p->kdf,
                                        p->authenticator);
            break;
        case 1:
            st = hsc_store_set_disabled(s, "carol", (int)((i / 4) & 1));
            break;
        case 2:
            st = hsc_store_set_groups(s, "carol", (i / 4) & 1 ? "g2,g3" : "g1");
            break;
        case 3:
            /* An insert and a delete, so pages split and merge too. */
            make_user(&tmp, "temp", "", (unsigned char)i);
            st = hsc_store_add(s, &tmp);
            if (st == HSC_OK) {
                st = hsc_store_del(s, "temp");
            }
            break;
        }
        if (st != HSC_OK) {
            r->write_failures++;
            snprintf(r->write_err, sizeof(r->write_err), "%s: %s",
                     hsc_strerror(st), hsc_store_errmsg(s));
        }
        r->writes++;
        i++;
    }
    hsc_store_close(s);
    return NULL;
}

static void *reader_main(void *arg)
{
    reader_arg_t *ra = arg;
    race_t *r = ra->r;
    hsc_store_t *s = NULL;
    hsc_user_t u;
    hsc_status_t st;
    hsc_kdf_t dummy;
    unsigned char xn[HSC_XN_LEN];
    char err[256];
    int id = ra->id, k;

    hsc_kdf_parse("sha256-chain:10", &dummy);
    if (hsc_store_sqlite_open(r->path, id % 2 ? HSC_STORE_READONLY : 0, &s, err,
                              sizeof(err))
        != HSC_OK) {
        snprintf(r->read_err[id], sizeof(r->read_err[id]), "open: %s", err);
        r->store_errors[id]++;
        return NULL;
    }
    while (!r->stop) {
        st = hsc_store_get(s, "carol", 5, &u);
        r->reads[id]++;
        if (st != HSC_OK) {
            r->store_errors[id]++;
            snprintf(r->read_err[id], sizeof(r->read_err[id]), "get: %s: %s",
                     hsc_strerror(st), hsc_store_errmsg(s));
            continue;
        }
        /* Salt and v must come from the same write. */
        for (k = 0; k < 2; k++) {
            if (memcmp(u.salt, r->pw[k].salt, HSC_SALT_LEN) == 0) {
                break;
            }
        }
        if (k == 2
            || memcmp(u.authenticator, r->pw[k].authenticator, HSC_AUTH_LEN)
            || strcmp(u.name, "carol") != 0
            || (strcmp(u.groups, "g1") != 0
                && strcmp(u.groups, "g2,g3") != 0)) {
            r->torn[id]++;
        }
        else {
            r->saw_pw[id][k] = 1;
        }
        r->saw_disabled[id][u.disabled ? 1 : 0] = 1;
        /* A login attempt: the password of pw[0] is "pw-a". */
        st = hsc_password_check(s, "carol", 5, "pw-a", 4, &dummy, xn, &u);
        r->checks[id]++;
        if (st != HSC_OK && st != HSC_EAUTH && st != HSC_EDISABLED) {
            r->bad_check[id]++;
            snprintf(r->read_err[id], sizeof(r->read_err[id]), "check: %s: %s",
                     hsc_strerror(st), hsc_store_errmsg(s));
        }
        hsc_wipe(xn, sizeof(xn));
    }
    hsc_store_close(s);
    return NULL;
}

/*
 * Four reader threads against one writer: a thread of this process, or a
 * process of its own (as hsc-admin is to httpd's children), sharing the
 * counters through a shared mapping.
 */
/* 1 when the writer and every reader have done what the checks ask. */
static int race_enough_work(const race_t *r)
{
    int i;

    if (r->writes <= 100) {
        return 0;
    }
    for (i = 0; i < READERS; i++) {
        if (r->reads[i] <= 100 || !r->saw_pw[i][0] || !r->saw_pw[i][1]
            || !r->saw_disabled[i][0] || !r->saw_disabled[i][1]) {
            return 0;
        }
    }
    return 1;
}

static void race(int writer_process)
{
    char path[512];
    hsc_store_t *s;
    hsc_user_t u;
    hsc_kdf_t k;
    race_t *r;
    pthread_t w, rd[READERS];
    pid_t pid = -1;
    reader_arg_t ra[READERS];
    struct timespec t0;
    int i, errors = 0, torn = 0, bad = 0;
    long reads = 0, checks = 0;

    r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    s = fresh_store(path, sizeof(path), "race");
    if (s == NULL || r == MAP_FAILED) {
        CHECK(0, "store opened");
        return;
    }
    memset(r, 0, sizeof(*r));
    r->path = path;
    hsc_kdf_parse("sha256-chain:10", &k);
    CHECK_EQ(hsc_password_make(&k, "pw-a", 4, &r->pw[0]), HSC_OK, "pw-a");
    CHECK_EQ(hsc_password_make(&k, "pw-b", 4, &r->pw[1]), HSC_OK, "pw-b");
    make_user(&u, "carol", "g1", 0);
    memcpy(u.salt, r->pw[0].salt, HSC_SALT_LEN);
    memcpy(u.authenticator, r->pw[0].authenticator, HSC_AUTH_LEN);
    u.kdf = k;
    CHECK_EQ(hsc_store_add(s, &u), HSC_OK, "carol added");
    hsc_store_close(s);

    if (writer_process) {
        fflush(stdout);
        pid = fork();
        if (pid == 0) {
            writer_main(r);
            _exit(0);
        }
        CHECK(pid > 0, "writer process started");
    }
    else {
        pthread_create(&w, NULL, writer_main, r);
    }
    for (i = 0; i < READERS; i++) {
        ra[i].r = r;
        ra[i].id = i;
        pthread_create(&rd[i], NULL, reader_main, &ra[i]);
    }
    /* Run at least RUN_SECONDS, and on until every party has done enough
     * work to judge (a slow machine or valgrind), within a hard cap. */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (elapsed_since(&t0) < RUN_SECONDS
           || (!race_enough_work(r) && elapsed_since(&t0) < 120.0)) {
        usleep(10000);
    }
    r->stop = 1;
    if (writer_process) {
        int status = -1;

        if (pid > 0) {
            waitpid(pid, &status, 0);
        }
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "writer process exited cleanly");
    }
    else {
        pthread_join(w, NULL);
    }
    for (i = 0; i < READERS; i++) {
        pthread_join(rd[i], NULL);
        errors += r->store_errors[i];
        torn += r->torn[i];
        bad += r->bad_check[i];
        reads += r->reads[i];
        checks += r->checks[i];
        if (r->read_err[i][0]) {
            printf("# reader %d: %s\n", i, r->read_err[i]);
        }
    }
    if (r->write_err[0]) {
        printf("# writer: %s\n", r->write_err);
    }
    printf("# %ld writes, %ld gets, %ld password checks\n", r->writes, reads,
           checks);
    CHECK(r->writes > 100, "the writer made progress");
    CHECK_EQ(r->write_failures, 0, "every write succeeded");
    for (i = 0; i < READERS; i++) {
        char what[80];

        snprintf(what, sizeof(what), "reader %d made progress", i);
        CHECK(r->reads[i] > 100, what);
        snprintf(what, sizeof(what),
                 "reader %d saw both passwords and both disabled states", i);
        CHECK(r->saw_pw[i][0] && r->saw_pw[i][1] && r->saw_disabled[i][0]
                  && r->saw_disabled[i][1],
              what);
    }
    CHECK_EQ(errors, 0, "no reader got a store error");
    CHECK_EQ(torn, 0, "no reader saw a torn record");
    CHECK_EQ(bad, 0, "every password check ended ok/auth/disabled");
    munmap(r, sizeof(*r));
    rm_db(path);
}

static void readers_keep_working_while_a_writer_thread_changes_users(void)
{
    race(0);
}

static void readers_keep_working_while_a_writer_process_changes_users(void)
{
    race(1);
}

/* The one test of a store spec's prefix, and of a groups list
 * (hsc-admin's messages come from it). */
static void spec_and_groups_are_checked_in_one_place(void)
{
    const char *bad;
    size_t n;

    CHECK_STR(hsc_store_spec_conninfo("pgsql:host=/x dbname=d"),
              "host=/x dbname=d", "pgsql: gives its conninfo");
    CHECK(hsc_store_spec_conninfo("/var/lib/hsc/users.db") == NULL,
          "a path is no conninfo");
    CHECK(hsc_store_spec_conninfo("PGSQL:host=x") == NULL,
          "the prefix is lower case");
    CHECK(hsc_store_spec_conninfo("pgsql") == NULL, "no colon, no conninfo");
    CHECK(hsc_store_spec_conninfo(NULL) == NULL, "NULL");
    {
        char err[256] = "";

        CHECK_EQ(hsc_store_spec_check("/var/lib/hsc/users.db", err,
                                      sizeof(err)),
                 HSC_OK, "a path passes the spec check (opening checks it)");
        CHECK_EQ(hsc_store_spec_check("pgsql:host=/tmp dbname=x", err,
                                      sizeof(err)),
                 hsc_store_have_pgsql() ? HSC_OK : HSC_EINVAL,
                 "a conninfo that parses passes where libpq is built in");
        CHECK_EQ(hsc_store_spec_check("pgsql:host='x", err, sizeof(err)),
                 HSC_EINVAL, "one that does not parse is refused");
        CHECK(err[0] != '\0', "with a message");
    }
    CHECK_EQ(hsc_groups_check("", &bad, &n), HSC_GROUPS_OK, "no groups");
    CHECK_EQ(hsc_groups_check("ops,dev", &bad, &n), HSC_GROUPS_OK, "two");
    CHECK(hsc_groups_check("ops,dev,ops", &bad, &n) == HSC_GROUPS_TWICE
              && n == 3 && !strncmp(bad, "ops", 3),
          "a name twice, named");
    CHECK(hsc_groups_check("ops,d v", &bad, &n) == HSC_GROUPS_BAD_NAME && n == 3
              && !strncmp(bad, "d v", 3),
          "a bad name, named");
    CHECK(hsc_groups_check("ops,", &bad, &n) == HSC_GROUPS_BAD_NAME && n == 0,
          "an empty name at the end");
    CHECK_EQ(hsc_groups_check(NULL, &bad, &n), HSC_GROUPS_BAD_NAME, "NULL");
}

int main(void)
{
    const char *t = getenv("TMPDIR");

    snprintf(tmpdir, sizeof(tmpdir), "%s/hsc-store-XXXXXX",
             t && *t ? t : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        printf("Bail out! mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    RUN(spec_and_groups_are_checked_in_one_place);
    RUN(create_writes_application_id_version_and_wal);
    RUN(schema_checks_refuse_bad_lengths);
    RUN(add_then_get_returns_every_field);
    RUN(add_refuses_duplicates_and_invalid_input);
    RUN(groups_disable_revoke_and_delete_change_one_user);
    RUN(list_walks_users_in_name_order);
    RUN(get_copies_long_group_lists_into_the_handle);
    RUN(get_refuses_a_record_with_an_invalid_kdf);
    RUN(open_refuses_missing_foreign_garbage_and_newer_files);
    RUN(truncated_database_fails_closed);
    RUN(open_migrates_an_older_version_when_writable);
    RUN(store_id_is_made_once_and_kept);
    RUN(version_1_is_upgraded_by_init_and_read_as_is_before);
    RUN(gen_grows_with_each_revocation_and_survives_upgrade);
    RUN(read_only_handle_reads_and_refuses_writes);
    RUN(locked_database_fails_closed);
    RUN(handle_notices_a_deleted_or_replaced_file);
    RUN(handle_notices_a_file_overwritten_in_place);
    RUN(groups_contain_matches_whole_names_only);
    RUN(cache_sees_changes_by_another_connection);
    RUN(cache_sees_changes_by_another_process);
    RUN(cache_sees_writes_through_store_handles);
    RUN(cache_skips_long_records_and_nocache_handles);
    RUN(cache_is_off_in_rollback_mode_and_wal_cannot_be_left);
    RUN(cache_takes_the_query_on_a_torn_or_changed_header);
    RUN(readers_keep_working_while_a_writer_thread_changes_users);
    RUN(readers_keep_working_while_a_writer_process_changes_users);
    rmdir(tmpdir);
    return hsc_test_done();
}
