/*
 * test_passkeys.c: the passkey store (hsc_passkeys.h) on both backends.
 * Two factor handles on one database stand for two servers: a challenge
 * accepted on one is refused on the other (a replay), an older challenge
 * is refused, a sign count must grow unless both are 0; a credential id
 * is registered once; the x_n proof (a wrong one, a disabled user); the
 * user's handle; rename and remove only of the user's own; the seal
 * hashes column (hsc_users.passkey_seals) following adds and removes;
 * the user's deletion taking the credentials and the handle; the seal
 * switch (hsc_passkeys_require_seal) and the row the request path reads;
 * an older schema refused, naming the upgrade, until it is upgraded; the
 * first passkey added by a one-time enrolment link (hsc_passkeys_add_by_link).
 *
 * Without arguments: SQLite files in a temporary directory. With
 * "pgsql": the databases pk_store, pk_switch and pk_old of the server
 * HSC_PG_CONNINFO names, made empty by test/pgsql/passkeys-pgsql.sh; the
 * test fails without it, never skips.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>
#ifdef HSC_HAVE_PGSQL
#include <libpq-fe.h>
#endif

#include "hsc_kdf.h"
#include "hsc_passkeys.h"
#include "hsc_test.h"

static char tmpdir[256];
static const char *pg; /* the server's conninfo in pgsql mode, else NULL */

static const unsigned char xa[HSC_XN_LEN] = {0xa1, 0xa2};
static const unsigned char xb[HSC_XN_LEN] = {0xb1, 0xb2};
static const unsigned char xc[HSC_XN_LEN] = {0xc1, 0xc2};

static const char *db_spec(const char *name, char *buf, size_t len)
{
    if (pg != NULL) {
        snprintf(buf, len, "pgsql:%s dbname=pk_%s", pg, name);
    }
    else {
        snprintf(buf, len, "%s/%s.db", tmpdir, name);
    }
    return buf;
}

static int add_user(hsc_store_t *s, const char *name,
                    const unsigned char xn[HSC_XN_LEN], int disabled)
{
    static const unsigned char salt[HSC_SALT_LEN] = {1};
    hsc_user_t u;

    memset(&u, 0, sizeof(u));
    memcpy(u.salt, salt, sizeof(salt));
    u.groups = "";
    u.name = name;
    u.name_len = strlen(name);
    u.disabled = disabled;
    return hsc_kdf_parse("sha256-chain:1000", &u.kdf) == HSC_OK
           && hsc_authenticator(xn, u.authenticator) == HSC_OK
           && hsc_store_add(s, &u) == HSC_OK;
}

/* A user database with alice, bob and carol (disabled). */
static hsc_store_t *make_db(const char *spec)
{
    hsc_store_t *s = NULL;
    char err[256];

    if (hsc_store_open(spec, HSC_STORE_CREATE, &s, err, sizeof(err))
        != HSC_OK) {
        printf("# %s\n", err);
        return NULL;
    }
    if (!add_user(s, "alice", xa, 0) || !add_user(s, "bob", xb, 0)
        || !add_user(s, "carol", xc, 1)) {
        printf("# %s\n", hsc_store_errmsg(s));
        hsc_store_close(s);
        return NULL;
    }
    return s;
}

static hsc_factors_t *open_factors(const char *spec)
{
    hsc_factors_t *f = NULL;
    char err[256];

    if (hsc_factors_open(spec, 0, &f, err, sizeof(err)) != HSC_OK) {
        printf("# %s\n", err);
        return NULL;
    }
    return f;
}

/* hsc_passkeys_list's walk: the last_used of the credential whose first
 * id byte is the baton's (in; out: its last_used, or -1 when absent). */
static int last_used_of(void *baton, const hsc_passkey_t *pk)
{
    int64_t *b = baton;

    if (pk->id_len > 0 && pk->id[0] == (unsigned char)b[0]) {
        b[1] = pk->last_used;
    }
    return 0;
}

/* A credential of user: id of n bytes of b; sealed with seal byte s. */
static void make_pk(hsc_passkey_t *pk, const char *user, unsigned char b,
                    size_t n, int sealed, int64_t count, const char *name)
{
    memset(pk, 0, sizeof(*pk));
    memset(pk->id, b, n);
    pk->id_len = n;
    snprintf(pk->user, sizeof(pk->user), "%s", user);
    pk->alg = -7;
    memset(pk->spki, 0x30 ^ b, 91);
    pk->spki_len = 91;
    pk->sign_count = count;
    pk->be = pk->bs = 1;
    pk->uv = 1;
    pk->prf = sealed;
    pk->sealed = sealed;
    memset(pk->seal_hash, 0x50 ^ b, sizeof(pk->seal_hash));
    snprintf(pk->transports, sizeof(pk->transports), "internal,hybrid");
    snprintf(pk->name, sizeof(pk->name), "%s", name);
}

typedef struct {
    int n, sealed, keyless;
    char names[4][HSC_PASSKEY_NAME_MAX + 1];
} seen_t;

static int collect(void *baton, const hsc_passkey_t *pk)
{
    seen_t *s = baton;
    static const unsigned char zero[HSC_PASSKEY_SEAL_LEN];

    if (s->n < 4) {
        snprintf(s->names[s->n], sizeof(s->names[0]), "%s", pk->name);
    }
    s->n++;
    s->sealed += pk->sealed;
    s->keyless += pk->spki_len == 0
                  && memcmp(pk->seal_hash, zero, sizeof(zero)) == 0;
    return 0;
}

static int seals_are(hsc_factors_t *f, const char *user,
                     const unsigned char *want, size_t n)
{
    unsigned char buf[HSC_PASSKEY_SEALS_MAX * HSC_PASSKEY_SEAL_LEN];
    size_t len = 99;

    if (hsc_passkeys_seals(f, user, buf, sizeof(buf), &len) != HSC_OK) {
        printf("# %s\n", hsc_factors_errmsg(f));
        return 0;
    }
    return len == n && (n == 0 || memcmp(buf, want, n) == 0);
}

static void passkeys_in_the_store(void)
{
    char spec[1100];
    hsc_store_t *s;
    hsc_factors_t *f1, *f2;
    hsc_passkey_t p1, p2, p3, pb, g;
    unsigned char h1[32], h2[32], hb[32], want[64];
    seen_t seen;

    db_spec("store", spec, sizeof(spec));
    if ((s = make_db(spec)) == NULL) {
        CHECK(0, "a user database");
        return;
    }
    f1 = open_factors(spec);
    f2 = open_factors(spec);
    if (f1 == NULL || f2 == NULL) {
        CHECK(0, "two factor handles");
        return;
    }

    /* adding: the proof, the id once */
    make_pk(&p1, "alice", 0x11, 64, 1, 0, "phone");
    CHECK_EQ(hsc_passkeys_handle(f1, "alice", h1), HSC_ENOUSER,
             "no handle before the first credential");
    CHECK_EQ(hsc_passkeys_add(f1, &p1, xb, 100), HSC_EAUTH,
             "another user's x_n proves nothing");
    CHECK_EQ(hsc_passkeys_handle(f1, "alice", h1), HSC_ENOUSER,
             "and made no handle");
    CHECK_EQ(hsc_passkeys_add(f1, &p1, xa, 100), HSC_OK, "alice adds one");
    CHECK_EQ(hsc_passkeys_add(f2, &p1, xa, 101), HSC_EEXISTS,
             "the same id again is refused (on the other handle)");
    make_pk(&pb, "bob", 0x11, 64, 0, 0, "key");
    CHECK_EQ(hsc_passkeys_add(f2, &pb, xb, 101), HSC_EEXISTS,
             "and for another user");
    make_pk(&pb, "carol", 0x33, 16, 0, 0, "key");
    CHECK_EQ(hsc_passkeys_add(f1, &pb, xc, 101), HSC_EAUTH,
             "a disabled user's x_n is refused");
    make_pk(&pb, "nobody", 0x34, 16, 0, 0, "key");
    CHECK_EQ(hsc_passkeys_add(f1, &pb, xc, 101), HSC_EAUTH,
             "so is an unknown user (the same answer)");
    make_pk(&pb, "alice", 0x35, 16, 0, 0, "bad\tname");
    CHECK_EQ(hsc_passkeys_add(f1, &pb, xa, 101), HSC_EINVAL,
             "a name with a control character is refused");
    CHECK(hsc_passkeys_handle(f1, "alice", h1) == HSC_OK
              && hsc_passkeys_handle(f2, "alice", h2) == HSC_OK
              && memcmp(h1, h2, 32) == 0,
          "alice has a handle, the same on both handles");
    memset(want, 0, 32);
    CHECK(memcmp(h1, want, 32) != 0 && memcmp(h1, "alice", 5) != 0,
          "not zeros, not the name");

    make_pk(&p2, "alice", 0x22, 1023, 0, 10, "laptop");
    make_pk(&p3, "alice", 0x23, 1, 1, 0, "key");
    CHECK(hsc_passkeys_add(f2, &p2, xa, 200) == HSC_OK
              && hsc_passkeys_add(f2, &p3, xa, 300) == HSC_OK,
          "an unsealed and a sealed one more (ids of 1023 and 1 bytes)");
    CHECK(hsc_passkeys_handle(f2, "alice", h2) == HSC_OK
              && memcmp(h1, h2, 32) == 0,
          "the handle stays what the first credential made");
    make_pk(&pb, "bob", 0x44, 32, 1, 0, "bob's");
    CHECK(hsc_passkeys_add(f1, &pb, xb, 400) == HSC_OK
              && hsc_passkeys_handle(f1, "bob", hb) == HSC_OK
              && memcmp(hb, h1, 32) != 0,
          "bob's handle is another");
    memcpy(want, p1.seal_hash, 32);
    memcpy(want + 32, p3.seal_hash, 32);
    CHECK(seals_are(f1, "alice", want, 64),
          "alice's row holds her two seal hashes, oldest first");
    CHECK(seals_are(f1, "bob", pb.seal_hash, 32), "bob's his one");
    CHECK(seals_are(f1, "carol", NULL, 0), "carol's none");

    memset(&seen, 0, sizeof(seen));
    CHECK(hsc_passkeys_list(f2, "alice", collect, &seen) == HSC_OK
              && seen.n == 3 && seen.sealed == 2 && seen.keyless == 3
              && strcmp(seen.names[0], "phone") == 0
              && strcmp(seen.names[1], "laptop") == 0
              && strcmp(seen.names[2], "key") == 0,
          "alice's list: three, oldest first, two sealed, no key or hash");
    CHECK(hsc_passkeys_get(f2, p2.id, p2.id_len, &g) == HSC_OK
              && strcmp(g.user, "alice") == 0 && memcmp(g.handle, h1, 32) == 0
              && g.alg == -7 && g.spki_len == 91
              && memcmp(g.spki, p2.spki, 91) == 0 && g.sign_count == 10 && g.be
              && g.bs && g.uv && !g.prf && !g.sealed
              && strcmp(g.transports, "internal,hybrid") == 0
              && g.created == 200,
          "get by id: the user, the handle, the key, the count, the flags");
    CHECK(hsc_passkeys_get(f1, p1.id, p1.id_len, &g) == HSC_OK && g.sealed
              && memcmp(g.seal_hash, p1.seal_hash, 32) == 0,
          "and the seal hash");
    CHECK_EQ(hsc_passkeys_get(f1, p1.id, 63, &g), HSC_ENOUSER,
             "a prefix of an id is no id");

    /* the one-time rule: two servers */
    CHECK_EQ(hsc_passkeys_accept(f1, p1.id, p1.id_len, 1000, 0), HSC_OK,
             "an assertion accepted on server 1 (counts 0 and 0)");
    CHECK_EQ(hsc_passkeys_accept(f2, p1.id, p1.id_len, 1000, 0), HSC_EAUTH,
             "the same challenge on server 2 is refused (a replay)");
    CHECK_EQ(hsc_passkeys_accept(f2, p1.id, p1.id_len, 999, 0), HSC_EAUTH,
             "an older challenge is refused");
    CHECK_EQ(hsc_passkeys_accept(f2, p1.id, p1.id_len, 1001, 0), HSC_OK,
             "a later one with counts 0 and 0 is accepted");
    CHECK_EQ(hsc_passkeys_accept(f1, p1.id, p1.id_len, 1002, 5), HSC_OK,
             "a count that starts counting");
    CHECK_EQ(hsc_passkeys_accept(f2, p1.id, p1.id_len, 1003, 5), HSC_EAUTH,
             "the same count again is refused");
    CHECK_EQ(hsc_passkeys_accept(f2, p1.id, p1.id_len, 1004, 4), HSC_EAUTH,
             "a count going backwards is refused");
    CHECK_EQ(hsc_passkeys_accept(f2, p1.id, p1.id_len, 1005, 0), HSC_EAUTH,
             "a count back to 0 is refused");
    CHECK_EQ(hsc_passkeys_accept(f2, p1.id, p1.id_len, 1006, 6), HSC_OK,
             "a greater count with a later challenge is accepted");
    CHECK_EQ(hsc_passkeys_accept(f1, p1.id, p1.id_len, 1006, 7), HSC_EAUTH,
             "a greater count with the same challenge is refused");
    CHECK(hsc_passkeys_get(f1, p1.id, p1.id_len, &g) == HSC_OK
              && g.sign_count == 6,
          "get says the last accepted count");
    {
        /* The last accepted challenge (1006 ms) in seconds: SQLite's
         * state file, PostgreSQL's hsc_passkeys_used (version 10). */
        int64_t b[2] = {p1.id[0], -1};
        CHECK(hsc_passkeys_list(f1, "alice", last_used_of, b) == HSC_OK
                  && b[1] == 1,
              "the list says when it was last used");
    }
    CHECK_EQ(hsc_passkeys_accept(f1, p2.id, p2.id_len, 1000, 10), HSC_EAUTH,
             "a first assertion must pass the registration's count");
    CHECK_EQ(hsc_passkeys_accept(f1, p2.id, p2.id_len, 1000, 11), HSC_OK,
             "and is accepted above it");
    CHECK_EQ(hsc_passkeys_accept(f1, (const unsigned char *)"zz", 2, 5000, 0),
             HSC_EAUTH, "an unknown id is refused");

    /* rename and remove: only the user's own */
    CHECK_EQ(hsc_passkeys_rename(f1, "bob", p1.id, p1.id_len, "mine"),
             HSC_ENOUSER, "bob cannot rename alice's");
    CHECK_EQ(hsc_passkeys_remove(f1, "bob", p1.id, p1.id_len), HSC_ENOUSER,
             "nor remove it");
    CHECK_EQ(hsc_passkeys_rename(f1, "alice", p1.id, p1.id_len, " x"),
             HSC_EINVAL, "a name with a leading space is refused");
    CHECK(hsc_passkeys_rename(f2, "alice", p1.id, p1.id_len, "old phone")
                  == HSC_OK
              && hsc_passkeys_get(f1, p1.id, p1.id_len, &g) == HSC_OK
              && strcmp(g.name, "old phone") == 0,
          "alice renames hers");
    CHECK_EQ(hsc_passkeys_remove(f2, "alice", p1.id, p1.id_len), HSC_OK,
             "and removes it");
    CHECK_EQ(hsc_passkeys_get(f1, p1.id, p1.id_len, &g), HSC_ENOUSER,
             "it is gone");
    CHECK(seals_are(f1, "alice", p3.seal_hash, 32),
          "its seal hash left alice's row in the same transaction");
    CHECK_EQ(hsc_passkeys_remove(f2, "alice", p1.id, p1.id_len), HSC_ENOUSER,
             "removing it again finds nothing");
    CHECK(hsc_passkeys_remove(f1, "alice", p3.id, p3.id_len) == HSC_OK
              && seals_are(f1, "alice", NULL, 0),
          "no sealed credential left: no seal hashes");
    CHECK(hsc_passkeys_handle(f1, "alice", h2) == HSC_OK
              && memcmp(h1, h2, 32) == 0,
          "the handle stays while the user exists");

    /* the user's deletion */
    CHECK_EQ(hsc_store_del(s, "alice"), HSC_OK, "alice is deleted");
    CHECK_EQ(hsc_passkeys_get(f2, p2.id, p2.id_len, &g), HSC_ENOUSER,
             "her credentials went with her");
    CHECK_EQ(hsc_passkeys_handle(f2, "alice", h2), HSC_ENOUSER,
             "and her handle");
    memset(&seen, 0, sizeof(seen));
    CHECK(hsc_passkeys_list(f2, "alice", collect, &seen) == HSC_OK
              && seen.n == 0,
          "her list is empty");
    CHECK(hsc_passkeys_get(f2, pb.id, pb.id_len, &g) == HSC_OK, "bob's stays");
    hsc_factors_close(f1);
    hsc_factors_close(f2);
    hsc_store_close(s);
}

/* 1 when user's row, as the request path reads it, has the switch on and
 * n bytes of seal hashes. */
static int row_is(hsc_store_t *s, const char *user, int on, size_t n)
{
    hsc_user_t u;

    return hsc_store_get(s, user, strlen(user), &u) == HSC_OK
           && hsc_user_seal_required(&u) == on && hsc_user_seal_bytes(&u) == n;
}

static int switch_is(hsc_factors_t *f, const char *user, int want)
{
    int on = -1;

    return hsc_passkeys_seal_required(f, user, &on) == HSC_OK && on == want;
}

/* The per-user seal switch: on only with passkeys, all sealed; off with a
 * seal (or the administrator's NULL); unsealed adds refused while on; the
 * last passkey's removal turns it off; the row the request path reads
 * says it. */
static void the_seal_switch(void)
{
    char spec[1100];
    hsc_store_t *s;
    hsc_factors_t *f;
    hsc_passkey_t p1, p2, pz, pu;
    unsigned char z[HSC_PASSKEY_SEAL_LEN], wrong[HSC_PASSKEY_SEAL_LEN],
        want[64];
    int on = -1;

    db_spec("switch", spec, sizeof(spec));
    if ((s = make_db(spec)) == NULL || (f = open_factors(spec)) == NULL) {
        CHECK(0, "a user database and its factors");
        return;
    }
    memset(z, 0x7a, sizeof(z));
    memset(wrong, 0x7b, sizeof(wrong));
    make_pk(&p1, "alice", 0x61, 16, 1, 0, "phone");
    make_pk(&p2, "alice", 0x62, 16, 1, 0, "laptop");
    make_pk(&pz, "alice", 0x63, 16, 1, 0, "key");
    hsc_authenticator(z, pz.seal_hash); /* SHA-256(z) */
    make_pk(&pu, "alice", 0x64, 16, 0, 0, "old key");

    CHECK_EQ(hsc_passkeys_require_seal(f, "alice", 1, NULL), HSC_EINVAL,
             "on is refused while alice has no passkey");
    CHECK_EQ(hsc_passkeys_require_seal(f, "nobody", 1, NULL), HSC_ENOUSER,
             "an unknown user has no switch");
    CHECK(hsc_passkeys_add(f, &pu, xa, 10) == HSC_OK
              && hsc_passkeys_add(f, &p1, xa, 11) == HSC_OK,
          "an unsealed and a sealed passkey");
    CHECK_EQ(hsc_passkeys_require_seal(f, "alice", 1, NULL), HSC_EINVAL,
             "on is refused while one is unsealed");
    CHECK(switch_is(f, "alice", 0) && row_is(s, "alice", 0, 32),
          "and stays off");
    CHECK(hsc_passkeys_remove(f, "alice", pu.id, pu.id_len) == HSC_OK
              && hsc_passkeys_add(f, &pz, xa, 12) == HSC_OK,
          "the unsealed one removed, another sealed one added");
    CHECK_EQ(hsc_passkeys_require_seal(f, "alice", 1, NULL), HSC_OK,
             "on, now that every passkey is sealed");
    CHECK(switch_is(f, "alice", 1), "the factor handle says on");
    CHECK(row_is(s, "alice", 1, 64),
          "and so does the row the request path reads, beside both hashes");
    memcpy(want, p1.seal_hash, 32);
    memcpy(want + 32, pz.seal_hash, 32);
    CHECK(seals_are(f, "alice", want, 64),
          "the seal hashes are still listed without the switch's block");
    CHECK(hsc_passkeys_require_seal(f, "alice", 1, NULL) == HSC_OK
              && row_is(s, "alice", 1, 64),
          "on twice: on, one block");
    CHECK(switch_is(f, "bob", 0) && row_is(s, "bob", 0, 0), "bob's is off");
    CHECK_EQ(hsc_passkeys_add(f, &pu, xa, 13), HSC_EINVAL,
             "an unsealed passkey is refused while it is on");
    memset(pu.seal_hash, 0, sizeof(pu.seal_hash));
    pu.sealed = 1;
    CHECK_EQ(hsc_passkeys_add(f, &pu, xa, 13), HSC_EINVAL,
             "a seal hash of zeros (the switch's block) is refused");
    pu.sealed = 0;
    CHECK(hsc_passkeys_add(f, &p2, xa, 14) == HSC_OK
              && row_is(s, "alice", 1, 96),
          "a sealed one is added, and the switch stays");
    CHECK_EQ(hsc_passkeys_require_seal(f, "alice", 0, wrong), HSC_EAUTH,
             "off with a z of no passkey of hers is refused");
    CHECK(switch_is(f, "alice", 1), "and it stays on");
    CHECK_EQ(hsc_passkeys_require_seal(f, "alice", 0, z), HSC_OK,
             "off with the z of one of her passkeys");
    CHECK(switch_is(f, "alice", 0) && row_is(s, "alice", 0, 96),
          "off, her hashes kept");
    CHECK(hsc_passkeys_require_seal(f, "alice", 1, NULL) == HSC_OK
              && hsc_passkeys_require_seal(f, "alice", 0, NULL) == HSC_OK
              && switch_is(f, "alice", 0),
          "the administrator's off needs no z");
    CHECK(hsc_passkeys_require_seal(f, "alice", 1, NULL) == HSC_OK
              && hsc_passkeys_remove(f, "alice", p1.id, p1.id_len) == HSC_OK
              && row_is(s, "alice", 1, 64),
          "on; removing one of three keeps it on");
    CHECK(hsc_passkeys_remove(f, "alice", p2.id, p2.id_len) == HSC_OK
              && hsc_passkeys_remove(f, "alice", pz.id, pz.id_len) == HSC_OK,
          "the other two removed");
    CHECK(switch_is(f, "alice", 0) && row_is(s, "alice", 0, 0),
          "the last passkey's removal turned it off");
    CHECK(hsc_passkeys_seal_required(f, "nobody", &on) == HSC_ENOUSER
              && on == 0,
          "an unknown user's switch: ENOUSER, off");
    hsc_factors_close(f);
    hsc_store_close(s);
}

/* An SQLite file of schema version 5 (made, then the version 6 objects
 * dropped): passkeys refused naming the upgrade; an open that migrates
 * upgrades it (to 6 and on) and they work. */
static void an_older_file_is_upgraded(void)
{
    char path[1100], err[256];
    hsc_store_t *s;
    hsc_factors_t *f;
    hsc_passkey_t p;
    sqlite3 *db = NULL;
    int ok;

    db_spec("v5", path, sizeof(path));
    if ((s = make_db(path)) == NULL) {
        CHECK(0, "a user database");
        return;
    }
    hsc_store_close(s);
    ok = sqlite3_open(path, &db) == SQLITE_OK
         && sqlite3_exec(db,
                         "DROP TRIGGER hsc_users_passkeys_go; DROP TABLE "
                         "hsc_passkeys; DROP TABLE hsc_passkey_users; "
                         "ALTER TABLE hsc_users DROP COLUMN passkey_seals; "
                         "PRAGMA user_version = 5",
                         NULL, NULL, NULL)
                == SQLITE_OK;
    if (!ok) {
        printf("# %s\n", sqlite3_errmsg(db));
    }
    sqlite3_close(db);
    CHECK(ok, "made a version 5 file");
    f = open_factors(path);
    make_pk(&p, "alice", 0x11, 16, 1, 0, "phone");
    CHECK(f != NULL && hsc_passkeys_add(f, &p, xa, 1) == HSC_ESTORE
              && strstr(hsc_factors_errmsg(f), "hsc-admin init") != NULL,
          "a version 5 file has no passkeys: the message names the upgrade");
    hsc_factors_close(f);
    CHECK(hsc_store_open(path, 0, &s, err, sizeof(err)) == HSC_OK,
          "a writable open upgrades it");
    hsc_store_close(s);
    f = open_factors(path);
    CHECK(f != NULL && hsc_passkeys_add(f, &p, xa, 1) == HSC_OK
              && seals_are(f, "alice", p.seal_hash, 32),
          "then passkeys work");
    hsc_factors_close(f);
    ok = sqlite3_open(path, &db) == SQLITE_OK;
    {
        sqlite3_stmt *st = NULL;
        ok = ok
             && sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL)
                    == SQLITE_OK
             && sqlite3_step(st) == SQLITE_ROW
             && sqlite3_column_int(st, 0) >= HSC_PASSKEYS_SQLITE_VERSION;
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    CHECK(ok, "the file is at version 6 or later");
}

#ifdef HSC_HAVE_PGSQL
/* A PostgreSQL database of schema version 6 (made, then its versions 7
 * and 8 taken off by hand): httpd's open refuses it, naming the upgrade;
 * hsc-admin init (an open that creates) upgrades it to 8. */
static void an_older_database_is_upgraded(void)
{
    char spec[1100], ci[1100], err[256] = "";
    hsc_store_t *s = NULL;
    hsc_factors_t *f;
    hsc_passkey_t p;
    PGconn *c;
    PGresult *r;
    int ok;

    db_spec("old", spec, sizeof(spec));
    if ((s = make_db(spec)) == NULL) {
        CHECK(0, "a user database");
        return;
    }
    hsc_store_close(s);
    s = NULL;
    snprintf(ci, sizeof(ci), "%s dbname=pk_old", pg);
    c = PQconnectdb(ci);
    r = PQexec(c, "DROP TABLE hsc_passkeys, hsc_passkey_users; "
                  "DROP FUNCTION hsc_passkeys_seals(), hsc_passkeys_of(text), "
                  "hsc_passkey_get(bytea), hsc_passkey_add(text, bytea, "
                  "bytea, bytea, integer, bytea, bigint, boolean, boolean, "
                  "boolean, text, boolean, bytea, text, bigint), "
                  "hsc_passkey_accept(bytea, bigint, bigint), "
                  "hsc_passkey_rename(text, bytea, text), "
                  "hsc_passkey_remove(text, bytea); "
                  "DROP FUNCTION hsc_passkeys_sealed_only(), "
                  "hsc_passkey_seal_switch(text, boolean, bytea), "
                  "hsc_passkey_seal_off(text), "
                  "hsc_passkey_add_link(bytea, text, bytea, bytea, integer, "
                  "bytea, bigint, boolean, boolean, boolean, text, boolean, "
                  "bytea, text, bigint), hsc_passkeys_used(text), "
                  "hsc_grant_like_revoke(text); "
                  /* version 11's, with its trigger */
                  "DROP FUNCTION hsc_users_links_end() CASCADE; "
                  /* version 12's, with its triggers */
                  "DROP FUNCTION hsc_factor_touch() CASCADE; "
                  "ALTER TABLE hsc_users DROP COLUMN passkey_seals; "
                  "DELETE FROM hsc_schema WHERE version >= 7");
    ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!ok) {
        printf("# %s", PQerrorMessage(c));
    }
    PQclear(r);
    PQfinish(c);
    CHECK(ok, "made a version 6 database");
    CHECK(hsc_store_open(spec, 0, &s, err, sizeof(err)) == HSC_ESTORE
              && strstr(err, "hsc-admin init") != NULL,
          "httpd's open fails closed, naming the upgrade");
    hsc_store_close(s);
    s = NULL;
    CHECK(hsc_store_open(spec, HSC_STORE_CREATE, &s, err, sizeof(err))
              == HSC_OK,
          "hsc-admin init upgrades it");
    hsc_store_close(s);
    f = open_factors(spec);
    make_pk(&p, "alice", 0x11, 16, 1, 0, "phone");
    CHECK(f != NULL && hsc_passkeys_add(f, &p, xa, 1) == HSC_OK
              && seals_are(f, "alice", p.seal_hash, 32),
          "then passkeys work");
    hsc_factors_close(f);
}
#endif

/* The first passkey proved by a one-time enrolment link: the link's
 * delete and the add in one transaction (a second use adds nothing), only
 * the link's user, only an enrolment link valid now, only while the user
 * has no passkey (then the link stays), never a disabled user. */
static void added_by_a_link(void)
{
    char spec[1100];
    hsc_store_t *s;
    hsc_factors_t *f1, *f2;
    hsc_passkey_t p1, p2, pc;
    unsigned char ha[HSC_LINK_HASH_LEN], hr[HSC_LINK_HASH_LEN],
        hc[HSC_LINK_HASH_LEN], h1[32];
    char text[HSC_LINK_TEXT_LEN + 1], user[HSC_USER_MAX + 1];
    hsc_link_purpose_t purpose;
    seen_t seen;

    db_spec("link", spec, sizeof(spec));
    if ((s = make_db(spec)) == NULL) {
        CHECK(0, "a user database");
        return;
    }
    f1 = open_factors(spec);
    f2 = open_factors(spec);
    if (f1 == NULL || f2 == NULL || hsc_link_new(text, ha) != HSC_OK
        || hsc_link_new(text, hr) != HSC_OK || hsc_link_new(text, hc) != HSC_OK
        || hsc_factors_link_put(f1, "alice", HSC_LINK_ENROL, ha, 4000000000LL,
                                100)
               != HSC_OK
        || hsc_factors_link_put(f1, "alice", HSC_LINK_RESET, hr, 4000000000LL,
                                100)
               != HSC_OK
        || hsc_factors_link_put(f1, "carol", HSC_LINK_ENROL, hc, 4000000000LL,
                                100)
               != HSC_OK) {
        CHECK(0, "two factor handles and three links");
        return;
    }
    make_pk(&p1, "alice", 0x61, 32, 1, 0, "phone");
    make_pk(&p2, "alice", 0x62, 32, 0, 0, "key");
    make_pk(&pc, "carol", 0x63, 32, 0, 0, "key");
    CHECK_EQ(hsc_passkeys_add_by_link(f1, &p1, hr, 100), HSC_EAUTH,
             "a reset link adds no passkey");
    make_pk(&p1, "bob", 0x61, 32, 1, 0, "phone");
    CHECK_EQ(hsc_passkeys_add_by_link(f1, &p1, ha, 100), HSC_EAUTH,
             "alice's link adds no passkey of bob's");
    make_pk(&p1, "alice", 0x61, 32, 1, 0, "phone");
    CHECK_EQ(hsc_passkeys_add_by_link(f1, &pc, hc, 100), HSC_EAUTH,
             "a disabled user's link adds nothing");
    /* Expired by both clocks (PostgreSQL's is the database's). */
    CHECK(hsc_factors_link_put(f1, "alice", HSC_LINK_ENROL, ha, 1, 0) == HSC_OK
              && hsc_passkeys_add_by_link(f1, &p1, ha, 100) == HSC_EAUTH,
          "an expired link adds nothing");
    CHECK(hsc_factors_link_put(f1, "alice", HSC_LINK_ENROL, ha, 4000000000LL,
                               100)
              == HSC_OK,
          "a valid link again");
    CHECK_EQ(hsc_passkeys_add_by_link(f1, &p1, ha, 100), HSC_OK,
             "alice's enrolment link adds her first passkey");
    CHECK_EQ(hsc_passkeys_add_by_link(f2, &p2, ha, 101), HSC_EAUTH,
             "the same link again (another server): refused");
    memset(&seen, 0, sizeof(seen));
    CHECK(hsc_passkeys_list(f2, "alice", collect, &seen) == HSC_OK
              && seen.n == 1 && seen.sealed == 1
              && strcmp(seen.names[0], "phone") == 0,
          "one passkey, sealed");
    CHECK(seals_are(f2, "alice", p1.seal_hash, 32),
          "its seal hash is in the user's row");
    CHECK_EQ(hsc_passkeys_handle(f2, "alice", h1), HSC_OK,
             "the user's handle is made");
    CHECK_EQ(hsc_factors_link_peek(f2, ha, 100, &purpose, user), HSC_EAUTH,
             "the link is gone");
    CHECK(hsc_factors_link_put(f1, "alice", HSC_LINK_ENROL, ha, 4000000000LL,
                               100)
              == HSC_OK,
          "a new enrolment link");
    CHECK_EQ(hsc_passkeys_add_by_link(f1, &p2, ha, 102), HSC_EINVAL,
             "a user with a passkey: refused (only the first)");
    CHECK(hsc_factors_link_peek(f2, ha, 100, &purpose, user) == HSC_OK
              && purpose == HSC_LINK_ENROL,
          "and the link stays");
    CHECK_EQ(hsc_passkeys_remove(f1, "alice", p1.id, p1.id_len), HSC_OK,
             "the passkey removed (the administrator)");
    CHECK_EQ(hsc_passkeys_add_by_link(f1, &p1, ha, 103), HSC_OK,
             "now the link adds one again");
    CHECK_EQ(hsc_passkeys_add_by_link(f1, &p2, NULL, 103), HSC_EAUTH,
             "no link: refused");
    hsc_factors_close(f1);
    hsc_factors_close(f2);
    hsc_store_close(s);
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
        RUN(passkeys_in_the_store);
        RUN(the_seal_switch);
        RUN(added_by_a_link);
#ifdef HSC_HAVE_PGSQL
        RUN(an_older_database_is_upgraded);
#endif
        return hsc_test_done();
    }
    snprintf(tmpdir, sizeof(tmpdir), "%s/hsc-passkeys-XXXXXX", t ? t : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    RUN(passkeys_in_the_store);
    RUN(the_seal_switch);
    RUN(added_by_a_link);
    RUN(an_older_file_is_upgraded);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) {
        printf("# could not remove %s\n", tmpdir);
    }
    return hsc_test_done();
}
