/*
 * test_tokens.c: app passwords: the text form (hsc_token.h) and the
 * store (hsc_tokens.h) on both backends: add, look up by id, list,
 * revoke one or all, a name free again after a revocation, a user's
 * tokens going with the user, a file of an older schema refused; a
 * user's own token (hsc_tokens_add_own, the account page's) only with
 * the x_n of the user's current password, and only while enabled.
 *
 * Without arguments: the format, then SQLite files in a temporary
 * directory. With "pgsql": the store part against the databases tk_store,
 * tk_own and tk_v4 (a schema 4 database refused until "hsc-admin init")
 * of the server HSC_PG_CONNINFO names, made empty by
 * test/pgsql/tokens-pgsql.sh; the test fails without it, never skips.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>
#ifdef HSC_HAVE_PGSQL
#include <libpq-fe.h>
#endif

#include "hsc_test.h"
#include "hsc_tokens.h"

static char tmpdir[256];
static const char *pg; /* the server's conninfo in pgsql mode, else NULL */

static void token_text_round_trips(void)
{
    char text[HSC_TOKEN_TEXT_LEN + 1], id[HSC_TOKEN_ID_LEN + 1];
    char id2[HSC_TOKEN_ID_LEN + 1], other[HSC_TOKEN_TEXT_LEN + 1];
    unsigned char hash[HSC_TOKEN_HASH_LEN], hash2[HSC_TOKEN_HASH_LEN];
    size_t i;
    int shaped = 1;

    CHECK_EQ(hsc_token_new(text, id, hash), HSC_OK, "a new token");
    CHECK_EQ(strlen(text), 82, "82 characters");
    CHECK(strncmp(text, "hsc_", 4) == 0 && text[20] == '_' && text[73] == '_',
          "hsc_<id>_<secret>_<check>");
    for (i = 4; i < 82; i++) {
        char c = text[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
            shaped = 0;
        }
    }
    CHECK(shaped, "lower case letters, digits and '_' only");
    CHECK(strncmp(text + 4, id, 16) == 0, "the id is in the text");
    CHECK_EQ(hsc_token_parse(text, 82, id2, hash2), HSC_OK, "it parses");
    CHECK(strcmp(id, id2) == 0 && memcmp(hash, hash2, 32) == 0,
          "to the same id and hash");
    CHECK(hsc_token_new(other, id2, hash2) == HSC_OK && strcmp(id, id2) != 0
              && memcmp(hash, hash2, 32) != 0,
          "two tokens differ");
}

static void malformed_tokens_are_refused(void)
{
    char text[HSC_TOKEN_TEXT_LEN + 1], t[HSC_TOKEN_TEXT_LEN + 2];
    char id[HSC_TOKEN_ID_LEN + 1];
    unsigned char hash[HSC_TOKEN_HASH_LEN];
    static const size_t at[] = {0, 3, 4, 19, 20, 21, 60, 72, 73, 74, 81};
    size_t i;
    int all = 1;

    if (hsc_token_new(text, id, hash) != HSC_OK) {
        CHECK(0, "a new token");
        return;
    }
    CHECK_EQ(hsc_token_parse(text, 81, id, hash), HSC_EMALFORMED, "one short");
    memcpy(t, text, 82);
    t[82] = 'a';
    CHECK_EQ(hsc_token_parse(t, 83, id, hash), HSC_EMALFORMED, "one long");
    for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
        memcpy(t, text, 83);
        t[at[i]] = t[at[i]] == 'b' ? 'c' : 'b';
        all &= hsc_token_parse(t, 82, id, hash) == HSC_EMALFORMED;
    }
    CHECK(all, "any one character changed (prefix, id, '_', secret, check)");
    memcpy(t, text, 83);
    /* The secret's first letter (positions 21-72): positions 30 and 31,
     * as before, are both digits in 1 token of 28 (the test then failed). */
    for (i = 21; i < 73 && !(t[i] >= 'a' && t[i] <= 'z'); i++) {
    }
    if (i < 73) {
        t[i] = (char)(t[i] - 'a' + 'A');
    }
    CHECK_EQ(hsc_token_parse(t, 82, id, hash), HSC_EMALFORMED,
             "upper case in the secret");
    CHECK(hsc_token_shaped(text, 82) && !hsc_token_shaped("hunter2", 7)
              && !hsc_token_shaped("hsc_", 4),
          "shaped: a password is not a token");
    CHECK(hsc_token_id_valid("abcdefgh234567zz", 16)
              && !hsc_token_id_valid("abcdefgh2345671z", 16)
              && !hsc_token_id_valid("ABCDEFGH234567ZZ", 16)
              && !hsc_token_id_valid("abc", 3),
          "ids: 16 of [a-z2-7]");
}

static void names_and_scopes(void)
{
    CHECK(hsc_token_name_valid("laptop calendar", 15)
              && hsc_token_name_valid("ci", 2) && !hsc_token_name_valid("", 0)
              && !hsc_token_name_valid(" x", 2)
              && !hsc_token_name_valid("x ", 2)
              && !hsc_token_name_valid("a\nb", 3)
              && !hsc_token_name_valid("caf\xc3\xa9", 5),
          "names: printable ASCII, trimmed, 1 to 64");
    CHECK(hsc_token_scopes_valid("") && hsc_token_scopes_valid("dav")
              && hsc_token_scopes_valid("dav,git:read,api.v1-x_y"),
          "scope lists");
    CHECK(!hsc_token_scopes_valid("dav,") && !hsc_token_scopes_valid(",dav")
              && !hsc_token_scopes_valid("dav,,git")
              && !hsc_token_scopes_valid("Dav")
              && !hsc_token_scopes_valid("dav git")
              && !hsc_token_scopes_valid("dav,git,dav")
              && !hsc_token_scopes_valid("a23456789012345678901234567890123"),
          "bad scope lists (empty names, upper case, spaces, twice, >32)");
    CHECK(hsc_token_has_scope("dav,git", "git", 3)
              && !hsc_token_has_scope("dav,git", "gi", 2)
              && !hsc_token_has_scope("", "dav", 3)
              && !hsc_token_has_scope("dav", "", 0),
          "has_scope matches whole names");
}

static void checks_of_a_stored_token(void)
{
    hsc_token_t t;
    unsigned char other[HSC_TOKEN_HASH_LEN];

    memset(&t, 0, sizeof(t));
    memset(t.hash, 7, sizeof(t.hash));
    memset(other, 7, sizeof(other));
    CHECK_EQ(hsc_token_check(&t, other, 1000), HSC_OK, "live, never expires");
    other[31] = 8;
    CHECK_EQ(hsc_token_check(&t, other, 1000), HSC_EAUTH, "another secret");
    other[31] = 7;
    t.expires = 1000;
    CHECK_EQ(hsc_token_check(&t, other, 999), HSC_OK, "before its expiry");
    CHECK_EQ(hsc_token_check(&t, other, 1000), HSC_EEXPIRED, "at its expiry");
    t.revoked = 5;
    CHECK_EQ(hsc_token_check(&t, other, 999), HSC_EREVOKED, "revoked");
}

/* --- the store ------------------------------------------------------------ */

static const char *db_spec(const char *name, char *buf, size_t len)
{
    if (pg != NULL) {
        snprintf(buf, len, "pgsql:%s dbname=tk_%s", pg, name);
    }
    else {
        snprintf(buf, len, "%s/%s.db", tmpdir, name);
    }
    return buf;
}

static hsc_store_t *make_db(const char *spec)
{
    static const unsigned char salt[HSC_SALT_LEN] = {1};
    static const unsigned char v[HSC_AUTH_LEN] = {2};
    hsc_store_t *s = NULL;
    hsc_user_t u;
    char err[256];
    int ok;

    if (hsc_store_open(spec, HSC_STORE_CREATE, &s, err, sizeof(err))
        != HSC_OK) {
        printf("# %s\n", err);
        return NULL;
    }
    memset(&u, 0, sizeof(u));
    memcpy(u.salt, salt, sizeof(salt));
    memcpy(u.authenticator, v, sizeof(v));
    ok = hsc_kdf_parse("sha256-chain:1000", &u.kdf) == HSC_OK;
    u.groups = "";
    u.name = "alice";
    u.name_len = 5;
    ok = ok && hsc_store_add(s, &u) == HSC_OK;
    u.name = "bob";
    u.name_len = 3;
    ok = ok && hsc_store_add(s, &u) == HSC_OK;
    if (!ok) {
        printf("# %s\n", hsc_store_errmsg(s));
        hsc_store_close(s);
        return NULL;
    }
    return s;
}

static int add(hsc_store_t *s, const char *user, const char *name,
               const char *scopes, int64_t expires, hsc_token_t *t, int64_t now)
{
    char text[HSC_TOKEN_TEXT_LEN + 1];
    hsc_status_t st;

    memset(t, 0, sizeof(*t));
    if (hsc_token_new(text, t->id, t->hash) != HSC_OK) {
        return HSC_ECRYPTO;
    }
    snprintf(t->user, sizeof(t->user), "%s", user);
    snprintf(t->name, sizeof(t->name), "%s", name);
    snprintf(t->scopes, sizeof(t->scopes), "%s", scopes);
    t->expires = expires;
    st = hsc_tokens_add(s, t, now);
    if (st != HSC_OK) {
        printf("# add: %s\n", hsc_store_errmsg(s));
    }
    return st;
}

typedef struct {
    int n, live;
    char names[512];
} seen_t;

static int each(void *baton, const hsc_token_t *t)
{
    seen_t *s = baton;

    s->n++;
    s->live += t->revoked == 0;
    snprintf(s->names + strlen(s->names), sizeof(s->names) - strlen(s->names),
             "%s%s/%s%s", s->names[0] ? "," : "", t->user, t->name,
             t->revoked ? "(revoked)" : "");
    return 0;
}

static void tokens_in_the_store(void)
{
    char spec[1100];
    hsc_store_t *s, *s2 = NULL;
    hsc_token_t a, b, c, g;
    seen_t seen;
    int n = -1;
    char err[256];

    db_spec("store", spec, sizeof(spec));
    if ((s = make_db(spec)) == NULL) {
        CHECK(0, "a user database");
        return;
    }
    CHECK_EQ(add(s, "alice", "calendar", "dav", 0, &a, 100), HSC_OK,
             "alice's calendar token");
    CHECK_EQ(add(s, "alice", "ci", "git,api", 5000, &b, 200), HSC_OK,
             "alice's ci token");
    CHECK_EQ(add(s, "alice", "calendar", "", 0, &c, 300), HSC_EEXISTS,
             "not a second live token of that name");
    CHECK_EQ(add(s, "carol", "x", "", 0, &c, 300), HSC_ENOUSER,
             "none for a user who does not exist");
    CHECK_EQ(add(s, "alice", "bad scope", "Dav", 0, &c, 300), HSC_EINVAL,
             "a bad scope list is refused");
    CHECK_EQ(add(s, "bob", "phone", "", 0, &c, 400), HSC_OK, "bob's token");
    CHECK(hsc_store_open(spec, 0, &s2, err, sizeof(err)) == HSC_OK,
          "a second handle (another server)");
    if (s2 == NULL) {
        hsc_store_close(s);
        return;
    }
    CHECK(hsc_tokens_get(s2, b.id, &g) == HSC_OK && !strcmp(g.user, "alice")
              && !strcmp(g.name, "ci") && !strcmp(g.scopes, "git,api")
              && !memcmp(g.hash, b.hash, 32) && g.created == 200
              && g.expires == 5000 && g.revoked == 0 && !strcmp(g.id, b.id),
          "looked up by id: every field");
    CHECK_EQ(hsc_tokens_get(s2, "aaaaaaaaaaaaaaaa", &g), HSC_ENOUSER,
             "an unknown id");
    CHECK_EQ(hsc_tokens_get(s2, "nope", &g), HSC_ENOUSER, "a malformed id");
    memset(&seen, 0, sizeof(seen));
    CHECK(hsc_tokens_list(s2, "alice", each, &seen) == HSC_OK && seen.n == 2
              && !strcmp(seen.names, "alice/calendar,alice/ci"),
          "alice's list, oldest first");
    memset(&seen, 0, sizeof(seen));
    CHECK(hsc_tokens_list(s2, NULL, each, &seen) == HSC_OK && seen.n == 3,
          "everyone's list");
    CHECK_EQ(hsc_tokens_revoke(s, "bob", a.id, 600, &n), HSC_ENOUSER,
             "bob cannot revoke alice's token");
    CHECK(hsc_tokens_revoke(s, "alice", a.id, 600, &n) == HSC_OK && n == 1,
          "alice revokes her calendar token");
    CHECK(hsc_tokens_get(s2, a.id, &g) == HSC_OK && g.revoked == 600
              && hsc_token_check(&g, a.hash, 601) == HSC_EREVOKED,
          "the other server sees it revoked");
    CHECK_EQ(hsc_tokens_revoke(s, "alice", a.id, 700, &n), HSC_ENOUSER,
             "revoked once");
    CHECK_EQ(add(s, "alice", "calendar", "dav", 0, &c, 800), HSC_OK,
             "its name is free again");
    CHECK(hsc_tokens_revoke(s, "alice", NULL, 900, &n) == HSC_OK && n == 2,
          "revoke all: her two live tokens");
    memset(&seen, 0, sizeof(seen));
    CHECK(hsc_tokens_list(s2, "alice", each, &seen) == HSC_OK && seen.n == 3
              && seen.live == 0,
          "listed as revoked, kept");
    CHECK(hsc_tokens_get(s2, c.id, &g) == HSC_OK && g.revoked != 0,
          "the new one among them");
    CHECK(hsc_store_del(s, "alice") == HSC_OK
              && hsc_tokens_get(s2, b.id, &g) == HSC_ENOUSER,
          "a user's tokens go with the user");
    CHECK(hsc_tokens_get(s2, c.id, &g) == HSC_ENOUSER, "every one of them");
    hsc_store_close(s2);
    hsc_store_close(s);
}

/* t: a new token of user's named name, no scopes, never expiring. */
static void new_token(hsc_token_t *t, const char *user, const char *name)
{
    char text[HSC_TOKEN_TEXT_LEN + 1];

    memset(t, 0, sizeof(*t));
    if (hsc_token_new(text, t->id, t->hash) != HSC_OK) {
        memset(t->id, 0, sizeof(t->id)); /* refused as invalid below */
    }
    snprintf(t->user, sizeof(t->user), "%s", user);
    snprintf(t->name, sizeof(t->name), "%s", name);
}

static int zero_hash(void *baton, const hsc_token_t *t)
{
    static const unsigned char zero[HSC_TOKEN_HASH_LEN];
    int *all = baton;

    *all &= memcmp(t->hash, zero, sizeof(zero)) == 0;
    return 0;
}

/* The account page's add: proved by the x_n of the owner's current
 * password (SHA-256 of it is the stored authenticator), refused alike for
 * a wrong x_n, another user's, an unknown or a disabled user; a name
 * taken is told apart. */
static void own_tokens_need_the_password(void)
{
    static const unsigned char salt[HSC_SALT_LEN] = {1};
    unsigned char xa[HSC_XN_LEN], xb[HSC_XN_LEN], va[HSC_AUTH_LEN];
    unsigned char vb[HSC_AUTH_LEN];
    char spec[1100];
    hsc_store_t *s;
    hsc_token_t t, t2, g;
    hsc_kdf_t kdf;
    seen_t seen;
    int n = -1, zeros = 1;

    memset(xa, 0xa1, sizeof(xa));
    memset(xb, 0xb2, sizeof(xb));
    db_spec("own", spec, sizeof(spec));
    if ((s = make_db(spec)) == NULL || hsc_authenticator(xa, va) != HSC_OK
        || hsc_authenticator(xb, vb) != HSC_OK
        || hsc_kdf_parse("sha256-chain:1000", &kdf) != HSC_OK
        || hsc_store_set_password(s, "alice", salt, &kdf, va) != HSC_OK
        || hsc_store_set_password(s, "bob", salt, &kdf, vb) != HSC_OK) {
        CHECK(0, "a user database, alice's x_n and bob's");
        hsc_store_close(s);
        return;
    }
    new_token(&t, "alice", "phone");
    t.expires = 9000;
    snprintf(t.scopes, sizeof(t.scopes), "dav");
    CHECK_EQ(hsc_tokens_add_own(s, &t, 100, xb), HSC_EAUTH,
             "not with bob's x_n");
    xa[31] ^= 1;
    CHECK_EQ(hsc_tokens_add_own(s, &t, 100, xa), HSC_EAUTH,
             "not with an x_n one bit off");
    xa[31] ^= 1;
    CHECK_EQ(hsc_tokens_add_own(s, &t, 100, NULL), HSC_EAUTH, "not without");
    CHECK_EQ(hsc_tokens_get(s, t.id, &g), HSC_ENOUSER, "nothing stored so far");
    CHECK_EQ(hsc_tokens_add_own(s, &t, 100, xa), HSC_OK,
             "with alice's own x_n");
    CHECK(hsc_tokens_get(s, t.id, &g) == HSC_OK && !strcmp(g.user, "alice")
              && !strcmp(g.name, "phone") && !strcmp(g.scopes, "dav")
              && !memcmp(g.hash, t.hash, 32) && g.created == 100
              && g.expires == 9000 && g.revoked == 0,
          "stored: every field");
    new_token(&t2, "alice", "phone");
    CHECK_EQ(hsc_tokens_add_own(s, &t2, 110, xa), HSC_EEXISTS,
             "a live name taken is HSC_EEXISTS, not a refused proof");
    new_token(&t2, "alice", "bad\nname");
    CHECK_EQ(hsc_tokens_add_own(s, &t2, 110, xa), HSC_EINVAL,
             "a name the format refuses");
    new_token(&t2, "carol", "x");
    CHECK_EQ(hsc_tokens_add_own(s, &t2, 110, xa), HSC_EAUTH,
             "an unknown user is the same refusal");
    new_token(&t2, "bob", "laptop");
    CHECK_EQ(hsc_tokens_add_own(s, &t2, 120, xb), HSC_OK, "bob's own");
    CHECK(hsc_store_set_disabled(s, "alice", 1) == HSC_OK, "alice disabled");
    new_token(&t2, "alice", "ci");
    CHECK_EQ(hsc_tokens_add_own(s, &t2, 130, xa), HSC_EAUTH,
             "a disabled user makes none, even with her x_n");
    CHECK(hsc_store_set_disabled(s, "alice", 0) == HSC_OK
              && hsc_tokens_add_own(s, &t2, 140, xa) == HSC_OK,
          "enabled again, she does");
    memset(&seen, 0, sizeof(seen));
    CHECK(hsc_tokens_list(s, "alice", each, &seen) == HSC_OK && seen.n == 2
              && !strcmp(seen.names, "alice/phone,alice/ci"),
          "alice's list: hers only, oldest first");
    CHECK(hsc_tokens_list(s, "alice", zero_hash, &zeros) == HSC_OK && zeros,
          "a list carries no secret's hash");
    CHECK_EQ(hsc_tokens_revoke(s, "bob", t.id, 200, &n), HSC_ENOUSER,
             "bob cannot revoke alice's token by its id");
    CHECK(hsc_tokens_get(s, t.id, &g) == HSC_OK && g.revoked == 0,
          "it stays live");
    CHECK(hsc_tokens_revoke(s, "alice", t.id, 200, &n) == HSC_OK && n == 1
              && hsc_tokens_get(s, t.id, &g) == HSC_OK && g.revoked == 200,
          "alice revokes it");
    new_token(&t2, "alice", "phone");
    CHECK_EQ(hsc_tokens_add_own(s, &t2, 300, xa), HSC_OK,
             "its name is free again");
    CHECK(hsc_store_set_password(s, "alice", salt, &kdf, vb) == HSC_OK,
          "alice's password changes");
    new_token(&t2, "alice", "later");
    CHECK_EQ(hsc_tokens_add_own(s, &t2, 400, xa), HSC_EAUTH,
             "the old x_n proves nothing after a password change");
    hsc_store_close(s);
}

/* An SQLite file of schema version 4 (made, then its version lowered and
 * its tables dropped as version 4 had none): tokens refused, not a crash. */
static void an_older_file_has_no_tokens(void)
{
    char path[1100], err[256];
    hsc_store_t *s, *ro = NULL;
    hsc_token_t g;
    sqlite3 *db = NULL;
    int ok;

    db_spec("v4", path, sizeof(path));
    if ((s = make_db(path)) == NULL) {
        CHECK(0, "a user database");
        return;
    }
    hsc_store_close(s);
    ok = sqlite3_open(path, &db) == SQLITE_OK
         && sqlite3_exec(db,
                         "DROP TRIGGER hsc_users_tokens_go; DROP TABLE "
                         "hsc_tokens; DROP TRIGGER hsc_users_passkeys_go; "
                         "DROP TABLE hsc_passkeys; DROP TABLE "
                         "hsc_passkey_users; ALTER TABLE hsc_users DROP "
                         "COLUMN passkey_seals; PRAGMA user_version = 4",
                         NULL, NULL, NULL)
                == SQLITE_OK;
    sqlite3_close(db);
    CHECK(ok, "made a version 4 file");
    CHECK(hsc_store_open(path, HSC_STORE_NOMIGRATE, &ro, err, sizeof(err))
              == HSC_OK,
          "opened as httpd opens it (no upgrade)");
    if (ro == NULL) {
        return;
    }
    CHECK(hsc_tokens_get(ro, "aaaaaaaaaaaaaaaa", &g) == HSC_ESTORE
              && strstr(hsc_store_errmsg(ro), "hsc-admin init") != NULL,
          "a lookup fails closed, naming the upgrade");
    hsc_store_close(ro);
    CHECK(hsc_store_open(path, 0, &ro, err, sizeof(err)) == HSC_OK
              && hsc_tokens_get(ro, "aaaaaaaaaaaaaaaa", &g) == HSC_ENOUSER,
          "a writable open upgrades it: the table is there");
    hsc_store_close(ro);
}

#ifdef HSC_HAVE_PGSQL
/* A PostgreSQL database of schema version 4 (made, then its versions 5
 * to 7 taken off by hand): httpd's open refuses it as a whole, naming the
 * upgrade (a PostgreSQL store of an older schema is never half-used);
 * hsc-admin init upgrades it, and tokens work. */
static void an_older_database_is_refused_until_init(void)
{
    char spec[1100], ci[1100], err[256] = "";
    hsc_store_t *s = NULL;
    hsc_token_t g;
    PGconn *c;
    PGresult *r;
    int ok;

    db_spec("v4", spec, sizeof(spec));
    if ((s = make_db(spec)) == NULL) {
        CHECK(0, "a user database");
        return;
    }
    hsc_store_close(s);
    s = NULL;
    snprintf(ci, sizeof(ci), "%s dbname=tk_v4", pg);
    c = PQconnectdb(ci);
    r = PQexec(c, "DROP FUNCTION hsc_token_add(text, bytea, text, bytea, "
                  "text, text, bigint, bigint), hsc_tokens_of(text), "
                  "hsc_token_revoke(text, text, bigint); "
                  "DROP FUNCTION hsc_token_get(text); DROP FUNCTION "
                  "hsc_token_touch(text, bigint, text); DROP TABLE hsc_tokens, "
                  "hsc_token_activity; "
                  /* version 7's passkeys (test_passkeys.c) */
                  "DROP TABLE hsc_passkeys, hsc_passkey_users; "
                  "DROP FUNCTION hsc_passkeys_seals(), hsc_passkeys_of(text), "
                  "hsc_passkey_get(bytea), hsc_passkey_add(text, bytea, "
                  "bytea, bytea, integer, bytea, bigint, boolean, boolean, "
                  "boolean, text, boolean, bytea, text, bigint), "
                  "hsc_passkey_accept(bytea, bigint, bigint), "
                  "hsc_passkey_rename(text, bytea, text), "
                  "hsc_passkey_remove(text, bytea); "
                  /* version 8's and 9's (test_passkeys.c) */
                  "DROP FUNCTION hsc_passkeys_sealed_only(), "
                  "hsc_passkey_seal_switch(text, boolean, bytea), "
                  "hsc_passkey_seal_off(text); "
                  "DROP FUNCTION hsc_passkey_add_link(bytea, text, bytea, "
                  "bytea, integer, bytea, bigint, boolean, boolean, boolean, "
                  "text, boolean, bytea, text, bigint); "
                  "DROP FUNCTION hsc_passkeys_used(text), " /* version 10's */
                  "hsc_grant_like_revoke(text); "
                  /* version 11's, with its trigger */
                  "DROP FUNCTION hsc_users_links_end() CASCADE; "
                  /* version 12's, with its triggers */
                  "DROP FUNCTION hsc_factor_touch() CASCADE; "
                  "ALTER TABLE hsc_users DROP COLUMN passkey_seals; "
                  "DELETE FROM hsc_schema WHERE version >= 5");
    ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!ok) {
        printf("# %s", PQerrorMessage(c));
    }
    PQclear(r);
    PQfinish(c);
    CHECK(ok, "made a version 4 database");
    CHECK(hsc_store_open(spec, 0, &s, err, sizeof(err)) == HSC_ESTORE
              && strstr(err, "hsc-admin init") != NULL,
          "httpd's open fails closed, naming the upgrade");
    printf("# %s\n", err);
    hsc_store_close(s);
    s = NULL;
    CHECK(hsc_store_open(spec, HSC_STORE_CREATE, &s, err, sizeof(err)) == HSC_OK
              && hsc_tokens_get(s, "aaaaaaaaaaaaaaaa", &g) == HSC_ENOUSER,
          "hsc-admin init upgrades it: the table is there");
    hsc_store_close(s);
}
#endif

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
        RUN(tokens_in_the_store);
        RUN(own_tokens_need_the_password);
#ifdef HSC_HAVE_PGSQL
        RUN(an_older_database_is_refused_until_init);
#endif
        return hsc_test_done();
    }
    RUN(token_text_round_trips);
    RUN(malformed_tokens_are_refused);
    RUN(names_and_scopes);
    RUN(checks_of_a_stored_token);
    snprintf(tmpdir, sizeof(tmpdir), "%s/hsc-tokens-XXXXXX", t ? t : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    RUN(tokens_in_the_store);
    RUN(own_tokens_need_the_password);
    RUN(an_older_file_has_no_tokens);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) {
        printf("# could not remove %s\n", tmpdir);
    }
    return hsc_test_done();
}
