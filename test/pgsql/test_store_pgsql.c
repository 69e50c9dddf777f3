/*
 * test_store_pgsql.c: the PostgreSQL user store against a real server.
 *
 * Run by test/pgsql/store-pgsql.sh, which starts a throwaway cluster
 * (initdb in a temporary directory, Unix socket only) and exports:
 *   HSC_PG_CONNINFO  conninfo of its database "hsc" (user postgres)
 *   HSC_PG_STOP, HSC_PG_START  shell commands that crash and restart it
 * Without HSC_PG_CONNINFO the test fails: it never skips itself.
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "hsc_test.h"
#include "hsc_store.h"
#include "hsc_store_pgsql.h"
#include "hsc_cache.h"

static const char *conninfo;
static char spec[1024];

static int64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
    struct timespec ts;

    if (ms <= 0) {
        return;
    }
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

/* Run sql on database db (NULL: the test's); 0 on success. */
static int sql_on(const char *db, const char *sql)
{
    char ci[1200];
    PGconn *c;
    PGresult *r;
    int ok;

    snprintf(ci, sizeof(ci), "%s%s%s", conninfo, db ? " dbname=" : "",
             db ? db : "");
    c = PQconnectdb(ci);
    if (PQstatus(c) != CONNECTION_OK) {
        printf("# connect: %s", PQerrorMessage(c));
        PQfinish(c);
        return -1;
    }
    r = PQexec(c, sql);
    ok = PQresultStatus(r) == PGRES_COMMAND_OK
         || PQresultStatus(r) == PGRES_TUPLES_OK;
    if (!ok) {
        printf("# %s: %s", sql, PQerrorMessage(c));
    }
    PQclear(r);
    PQfinish(c);
    return ok ? 0 : -1;
}

static long sql_long(const char *db, const char *sql)
{
    char ci[1200];
    PGconn *c;
    PGresult *r;
    long v = -1;

    snprintf(ci, sizeof(ci), "%s%s%s", conninfo, db ? " dbname=" : "",
             db ? db : "");
    c = PQconnectdb(ci);
    r = PQexec(c, sql);
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
        v = atol(PQgetvalue(r, 0, 0));
    }
    PQclear(r);
    PQfinish(c);
    return v;
}

/* "pgsql:<conninfo> dbname=db" */
static const char *spec_for(char *buf, size_t len, const char *db)
{
    snprintf(buf, len, "pgsql:%s%s%s", conninfo, db ? " dbname=" : "",
             db ? db : "");
    return buf;
}

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

static int contains(const char *hay, const char *needle)
{
    return hay != NULL && strstr(hay, needle) != NULL;
}

/* --- schema -----------------------------------------------------------------
 */

static void init_creates_schema_once_and_keeps_its_store_id(void)
{
    hsc_store_t *s = NULL;
    char err[256], id1[HSC_STORE_ID_SIZE], id2[HSC_STORE_ID_SIZE];
    size_t i;
    int hex = 1;

    CHECK_EQ(hsc_store_open(spec, HSC_STORE_CREATE, &s, err, sizeof(err)),
             HSC_OK, "init opens and creates");
    CHECK_EQ(hsc_store_id(s, id1, sizeof(id1)), HSC_OK, "store id read");
    for (i = 0; i < 32; ++i) {
        hex &= (id1[i] >= '0' && id1[i] <= '9')
               || (id1[i] >= 'a' && id1[i] <= 'f');
    }
    CHECK(strlen(id1) == 32 && hex, "store id is 32 hex digits");
    hsc_store_close(s);
    CHECK_EQ(hsc_store_open(spec, HSC_STORE_CREATE, &s, err, sizeof(err)),
             HSC_OK, "a second init succeeds");
    hsc_store_id(s, id2, sizeof(id2));
    CHECK_STR(id2, id1, "a second init keeps the store id (no overwrite)");
    hsc_store_close(s);
    CHECK_EQ(sql_long(NULL, "SELECT count(*) FROM hsc_schema"),
             HSC_PGSQL_SCHEMA_VERSION, "one row per schema version");
}

static void concurrent_inits_apply_each_file_once(void)
{
    char sp[1200], err[256];
    pid_t pids[4];
    int i, st, all_ok = 1;

    sql_on(NULL, "CREATE DATABASE hsc_race");
    spec_for(sp, sizeof(sp), "hsc_race");
    for (i = 0; i < 4; ++i) {
        pids[i] = fork();
        if (pids[i] == 0) {
            hsc_store_t *s = NULL;

            _exit(hsc_store_open(sp, HSC_STORE_CREATE, &s, err, sizeof(err))
                          == HSC_OK
                      ? 0
                      : 1);
        }
    }
    for (i = 0; i < 4; ++i) {
        if (waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st)
            || WEXITSTATUS(st) != 0) {
            all_ok = 0;
        }
    }
    CHECK(all_ok, "four inits at once all succeed");
    CHECK_EQ(sql_long("hsc_race", "SELECT count(*) FROM hsc_schema"),
             HSC_PGSQL_SCHEMA_VERSION, "the schema was applied once");
    CHECK_EQ(sql_long("hsc_race", "SELECT count(*) FROM hsc_meta"), 1,
             "one store id");
}

static void uninitialised_and_foreign_databases_are_refused(void)
{
    hsc_store_t *s = NULL;
    char sp[1200], err[256];

    sql_on(NULL, "CREATE DATABASE hsc_empty");
    sql_on(NULL, "CREATE DATABASE hsc_foreign");
    sql_on("hsc_foreign", "CREATE TABLE hsc_users (x int)");
    CHECK_EQ(hsc_store_open(spec_for(sp, sizeof(sp), "hsc_empty"), 0, &s, err,
                            sizeof(err)),
             HSC_ESTORE, "an empty database is refused without init");
    CHECK(s == NULL && contains(err, "hsc-admin init"),
          "the message says to run hsc-admin init");
    CHECK_EQ(hsc_store_open(spec_for(sp, sizeof(sp), "hsc_foreign"),
                            HSC_STORE_CREATE, &s, err, sizeof(err)),
             HSC_ESTORE, "init refuses a foreign hsc_users table");
    CHECK(contains(err, "not an hsc user database"), "and says why");
    CHECK_EQ(sql_long("hsc_foreign",
                      "SELECT count(*) FROM information_schema.tables WHERE "
                      "table_name = 'hsc_schema'"),
             0, "the foreign database is untouched");
}

static void a_newer_schema_is_refused(void)
{
    hsc_store_t *s = NULL;
    char err[256];

    sql_on(NULL, "INSERT INTO hsc_schema (version) VALUES (99)");
    CHECK_EQ(hsc_store_open(spec, 0, &s, err, sizeof(err)), HSC_ESTORE,
             "schema version 99 is refused");
    CHECK(contains(err, "newer"), "as newer than this program");
    sql_on(NULL, "DELETE FROM hsc_schema WHERE version = 99");
}

/* --- users
 * -------------------------------------------------------------------- */

static void users_round_trip_byte_for_byte(void)
{
    hsc_store_t *s = NULL;
    hsc_user_t u, got;
    char err[256];
    unsigned char salt[HSC_SALT_LEN], v[HSC_AUTH_LEN];
    hsc_kdf_t k;

    if (hsc_store_open(spec, 0, &s, err, sizeof(err)) != HSC_OK) {
        CHECK(0, err);
        return;
    }
    make_user(&u, "alice", "staff,admins", 0x00); /* zero bytes in bytea */
    CHECK_EQ(hsc_store_add(s, &u), HSC_OK, "add alice");
    CHECK_EQ(hsc_store_add(s, &u), HSC_EEXISTS, "add alice again");
    make_user(&u, "b\xc3\xa9la", "", 0x80);
    CHECK_EQ(hsc_store_add(s, &u), HSC_OK, "add a UTF-8 name");
    CHECK_EQ(hsc_store_get(s, "alice", 5, &got), HSC_OK, "get alice");
    memset(salt, 0x00, sizeof(salt));
    memset(v, 0xff, sizeof(v));
    CHECK(memcmp(got.salt, salt, HSC_SALT_LEN) == 0
              && memcmp(got.authenticator, v, HSC_AUTH_LEN) == 0,
          "salt and authenticator come back byte for byte");
    CHECK_STR(got.groups, "staff,admins", "groups");
    CHECK(got.disabled == 0 && got.revoked_before == 0 && got.created > 0
              && got.updated >= got.created && got.gen == 0,
          "flags, times and gen 0");
    CHECK_EQ(got.kdf.iterations, 1000, "kdf");
    CHECK_EQ(hsc_store_get(s, "b\xc3\xa9la", 5, &got), HSC_OK,
             "get the UTF-8 name");
    CHECK_EQ(hsc_store_get(s, "Alice", 5, &got), HSC_ENOUSER,
             "names compare byte for byte");
    CHECK_EQ(hsc_store_get(s, "al\xff", 3, &got), HSC_ENOUSER,
             "an invalid name is no user, not a store error");
    CHECK_EQ(hsc_store_set_disabled(s, "alice", 1), HSC_OK, "disable");
    CHECK_EQ(hsc_store_revoke(s, "alice", 4000000000), HSC_OK, "revoke");
    CHECK_EQ(hsc_store_set_groups(s, "alice", "ops"), HSC_OK, "set groups");
    memset(salt, 0x42, sizeof(salt));
    memset(v, 0x24, sizeof(v));
    hsc_kdf_parse("sha256-chain:7", &k);
    CHECK_EQ(hsc_store_set_password(s, "alice", salt, &k, v), HSC_OK,
             "set password");
    CHECK_EQ(hsc_store_get(s, "alice", 5, &got), HSC_OK, "get again");
    CHECK(got.disabled == 1 && got.revoked_before == 4000000000
              && strcmp(got.groups, "ops") == 0 && got.kdf.iterations == 7
              && memcmp(got.salt, salt, HSC_SALT_LEN) == 0
              && memcmp(got.authenticator, v, HSC_AUTH_LEN) == 0,
          "every change is read back");
    CHECK_EQ(got.gen, 3,
             "gen: + 1 for disabling, the revocation, the new password");
    /* Revocation only grows, and moves on every call. */
    CHECK_EQ(hsc_store_revoke(s, "alice", 4000000000), HSC_OK,
             "revoke again at the same time");
    CHECK_EQ(hsc_store_revoke(s, "alice", 5), HSC_OK,
             "revoke to an earlier time");
    CHECK(hsc_store_get(s, "alice", 5, &got) == HSC_OK
              && got.revoked_before == 4000000002,
          "revoked_before moved past each value and was never lowered");
    CHECK_EQ(got.gen, 5, "and gen by one each time");
    CHECK_EQ(hsc_store_revoke(s, "nobody", 5), HSC_ENOUSER,
             "revoking an unknown user is ENOUSER");
    CHECK_EQ(hsc_store_set_disabled(s, "nobody", 1), HSC_ENOUSER,
             "changing a missing user is ENOUSER");
    CHECK_EQ(hsc_store_del(s, "b\xc3\xa9la"), HSC_OK, "del");
    CHECK_EQ(hsc_store_del(s, "b\xc3\xa9la"), HSC_ENOUSER, "del again");
    CHECK(sql_long(NULL, "SELECT generation FROM hsc_generation") >= 7,
          "every change drew a generation");
    hsc_store_close(s);
    CHECK_EQ(hsc_store_open(spec, HSC_STORE_READONLY, &s, err, sizeof(err)),
             HSC_OK, "read-only open");
    CHECK_EQ(hsc_store_set_disabled(s, "alice", 0), HSC_EREADONLY,
             "a read-only handle does not write");
    hsc_store_close(s);
}

static void passwords_never_reach_messages(void)
{
    hsc_store_t *s = NULL;
    char buf[512], err[256], sp[1200];

    hsc_pg_redact("host=/x user=u password=sekret dbname=d", buf, sizeof(buf));
    CHECK(!contains(buf, "sekret") && contains(buf, "password=***")
              && contains(buf, "dbname=d"),
          "key=value conninfo redacted");
    hsc_pg_redact("host=/x sslpassword=sekret2 sslkey=/k.pem", buf,
                  sizeof(buf));
    CHECK(!contains(buf, "sekret2") && contains(buf, "sslpassword=***")
              && contains(buf, "sslkey=/k.pem"),
          "sslpassword (a secret in libpq's keyword table) redacted too");
    hsc_pg_redact("postgresql://u:sekret@localhost/d", buf, sizeof(buf));
    CHECK(!contains(buf, "sekret") && contains(buf, "password=***"),
          "URI conninfo redacted");
    snprintf(sp, sizeof(sp), "pgsql:%s port=1 password=sekret", conninfo);
    CHECK_EQ(hsc_store_open(sp, 0, &s, err, sizeof(err)), HSC_ESTORE,
             "a server that is not there");
    CHECK(!contains(err, "sekret") && contains(err, "cannot connect"),
          "its message names no password");
    CHECK_EQ(hsc_store_open("pgsql:host='x password=sekret", 0, &s, err,
                            sizeof(err)),
             HSC_EINVAL, "bad conninfo");
    CHECK(!contains(err, "sekret"), "its message names no password");
}

/* --- the pool and the lease --------------------------------------------- */

typedef struct {
    hsc_store_t *s;
    hsc_status_t st;
    char msg[256];
} getter_t;

static void *getter(void *v)
{
    getter_t *g = v;
    hsc_user_t u;

    g->st = hsc_store_get_fresh(g->s, "alice", 5, &u);
    memcpy(g->msg, hsc_store_errmsg(g->s), sizeof(g->msg));
    return NULL;
}

static void statements_time_out_and_the_pool_wait_is_bounded(void)
{
    hsc_pg_options_t o;
    hsc_pg_pool_t *pool = NULL;
    hsc_store_t *a = NULL, *b = NULL;
    PGconn *locker;
    PGresult *r;
    getter_t ga, gb;
    pthread_t t;
    char err[256];

    hsc_pg_options_default(&o);
    o.pool_size = 1;
    o.wait_ms = 100;
    o.statement_timeout_ms = 600;
    CHECK_EQ(hsc_pg_pool_create(conninfo, &o, &pool, err, sizeof(err)), HSC_OK,
             "pool of one");
    hsc_store_pgsql_open_pool(pool, 0, &a);
    hsc_store_pgsql_open_pool(pool, 0, &b);
    ga.s = a;
    getter(&ga); /* connected and prepared before the lock */
    /* An admin's open transaction holding the table. */
    locker = PQconnectdb(conninfo);
    r = PQexec(locker, "BEGIN; LOCK hsc_users IN ACCESS EXCLUSIVE MODE");
    PQclear(r);
    ga.s = a;
    gb.s = b;
    pthread_create(&t, NULL, getter, &ga);
    sleep_ms(250); /* a holds the one connection, waiting on the lock */
    getter(&gb);
    pthread_join(t, NULL);
    PQclear(PQexec(locker, "ROLLBACK"));
    PQfinish(locker);
    CHECK_EQ(ga.st, HSC_ESTORE, "a statement waiting on a lock fails");
    CHECK(contains(ga.msg, "SQLSTATE 57014"), "after the statement timeout, "
                                              "with its SQLSTATE");
    if (!contains(ga.msg, "SQLSTATE 57014")) {
        printf("#   %s\n", ga.msg);
    }
    CHECK_EQ(gb.st, HSC_ESTORE, "a second thread gets no connection");
    CHECK(contains(gb.msg, "no free database connection within 100 ms"),
          "after the bounded wait");
    getter(&gb);
    CHECK_EQ(gb.st, HSC_OK, "the pool works again afterwards");
    if (gb.st != HSC_OK) {
        printf("#   %s\n", gb.msg);
    }
    hsc_store_close(a);
    hsc_store_close(b);
    hsc_pg_pool_destroy(pool);
}

static void the_cache_answers_within_the_lease_and_sees_changes_after(void)
{
    hsc_pg_options_t o;
    hsc_pg_pool_t *pool = NULL;
    hsc_cache_t *cache = NULL;
    hsc_store_t *s = NULL, *adm = NULL;
    hsc_pg_counters_t n0, n1;
    hsc_user_t u;
    unsigned long h0, q0, h1, q1;
    char err[256];
    int i, seen = 0;

    hsc_pg_options_default(&o);
    o.max_stale_ms = 300;
    hsc_pg_pool_create(conninfo, &o, &pool, err, sizeof(err));
    hsc_store_pgsql_open_pool(pool, 0, &s);
    hsc_cache_create(1024, 1, &cache);
    hsc_store_use_cache(s, cache);
    hsc_store_open(spec, 0, &adm, err, sizeof(err));
    hsc_store_set_disabled(adm, "alice", 0);
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "first get");
    hsc_store_get(s, "alice", 5, &u);
    hsc_store_counters(s, &h0, &q0);
    for (i = 0; i < 100; ++i) {
        hsc_store_get(s, "alice", 5, &u);
    }
    hsc_store_counters(s, &h1, &q1);
    CHECK(h1 - h0 >= 99 && q1 - q0 <= 1,
          "100 gets within the lease: at most one query");
    CHECK_EQ(hsc_store_lagging(s), 1, "a cached answer says it may lag");
    hsc_store_get_fresh(s, "alice", 5, &u);
    CHECK_EQ(hsc_store_lagging(s), 0, "a fresh one does not");
    CHECK_EQ(hsc_store_set_disabled(adm, "alice", 1), HSC_OK,
             "another node disables alice");
    for (i = 0; i < 40 && !seen; ++i) {
        hsc_store_get(s, "alice", 5, &u);
        seen = u.disabled;
        if (!seen) {
            sleep_ms(20);
        }
    }
    CHECK(seen && i * 20 <= 300 + 100, "seen within the lease (300 ms)");
    hsc_pg_pool_counters(pool, &n1);
    CHECK(n1.drops >= 1, "the poll named the changed record");
    hsc_store_set_disabled(adm, "alice", 0);
    CHECK_EQ(hsc_store_get_fresh(s, "alice", 5, &u), HSC_OK, "a login's get");
    CHECK_EQ(u.disabled, 0, "reads the database at once (no lease)");
    /* 1,100 inserts at once: more than a poll fetches. */
    sql_on(NULL, "INSERT INTO hsc_users SELECT 'bulk' || i, salt, kdf, "
                 "authenticator, '', false, 0, 0, 0 FROM hsc_users, "
                 "generate_series(1, 1100) i WHERE username = 'alice'");
    hsc_pg_pool_counters(pool, &n0);
    sleep_ms(320);
    hsc_store_get(s, "alice", 5, &u);
    hsc_pg_pool_counters(pool, &n1);
    CHECK_EQ(n1.flushes - n0.flushes, 1, "too far behind: all dropped");
    sql_on(NULL, "DELETE FROM hsc_users WHERE username LIKE 'bulk%'");
    hsc_store_close(adm);
    hsc_store_close(s);
    hsc_cache_destroy(cache);
    hsc_pg_pool_destroy(pool);
}

/* A database dropped and made again, whose change log has passed
 * the old generation, is another store: nothing cached from the old one
 * counts (a user deleted with it must not keep access). */
static void a_replaced_database_drops_the_cache(void)
{
    hsc_pg_options_t o;
    hsc_pg_pool_t *pool = NULL;
    hsc_cache_t *cache = NULL;
    hsc_store_t *s = NULL, *adm = NULL;
    hsc_user_t u;
    char err[256], sp[1200], ci[1200], sql[160];
    long gen;

    sql_on(NULL, "CREATE DATABASE hsc_replaced");
    spec_for(sp, sizeof(sp), "hsc_replaced");
    snprintf(ci, sizeof(ci), "%s dbname=hsc_replaced", conninfo);
    hsc_store_open(sp, HSC_STORE_CREATE, &adm, err, sizeof(err));
    make_user(&u, "eve", "", 0x31);
    CHECK_EQ(hsc_store_add(adm, &u), HSC_OK, "eve added to the old database");
    hsc_store_close(adm);
    adm = NULL;
    hsc_pg_options_default(&o);
    o.max_stale_ms = 200;
    hsc_pg_pool_create(ci, &o, &pool, err, sizeof(err));
    hsc_store_pgsql_open_pool(pool, 0, &s);
    hsc_cache_create(64, 1, &cache);
    hsc_store_use_cache(s, cache);
    CHECK_EQ(hsc_store_get(s, "eve", 3, &u), HSC_OK, "eve cached");
    gen = sql_long("hsc_replaced", "SELECT generation FROM hsc_generation");
    /* Replaced: dropped (its connections closed), made again, and its
     * change log moved past the old generation without naming eve. */
    CHECK_EQ(sql_on(NULL, "DROP DATABASE hsc_replaced WITH (FORCE)"), 0,
             "the old database dropped");
    sql_on(NULL, "CREATE DATABASE hsc_replaced");
    CHECK_EQ(hsc_store_open(sp, HSC_STORE_CREATE, &adm, err, sizeof(err)),
             HSC_OK, "a new database with the same name");
    hsc_store_close(adm);
    snprintf(sql, sizeof(sql), "UPDATE hsc_generation SET generation = %ld",
             gen + 3);
    sql_on("hsc_replaced", sql);
    sleep_ms(250);                  /* the lease ends */
    hsc_store_get(s, "eve", 3, &u); /* a broken connection: reconnects */
    sleep_ms(250);
    CHECK_EQ(hsc_store_get(s, "eve", 3, &u), HSC_ENOUSER,
             "eve, deleted with the old database, is no longer answered");
    hsc_store_close(s);
    hsc_cache_destroy(cache);
    hsc_pg_pool_destroy(pool);
    sql_on(NULL, "DROP DATABASE hsc_replaced WITH (FORCE)");
}

/* A server that stops answering (SIGSTOP: the socket stays open,
 * nothing comes back) holds a request no longer than statement_timeout
 * plus the client's margin; afterwards the store answers again. */
static void a_stalled_server_is_bounded_by_the_timeout(void)
{
    hsc_pg_options_t o;
    hsc_pg_pool_t *pool = NULL;
    hsc_store_t *s = NULL;
    hsc_user_t u;
    char err[256];
    const char *pause = getenv("HSC_PG_PAUSE"),
               *resume = getenv("HSC_PG_RESUME");
    int64_t t0, took;
    hsc_status_t st;

    if (pause == NULL || resume == NULL) {
        CHECK(0, "HSC_PG_PAUSE and HSC_PG_RESUME are set");
        return;
    }
    hsc_pg_options_default(&o);
    o.max_stale_ms = 0; /* no cache: every get asks the server */
    o.statement_timeout_ms = 300;
    hsc_pg_pool_create(conninfo, &o, &pool, err, sizeof(err));
    hsc_store_pgsql_open_pool(pool, 0, &s);
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "connected");
    CHECK(system(pause) == 0, "the server stalls (SIGSTOP)");
    t0 = mono_ms();
    st = hsc_store_get(s, "alice", 5, &u);
    took = mono_ms() - t0;
    CHECK(system(resume) == 0, "the server goes on (SIGCONT)");
    CHECK_EQ(st, HSC_ESTORE, "a stalled server is a store failure");
    CHECK(took >= 300 && took < 300 + 500 + 700,
          "answered after statement_timeout + the margin, not never");
    printf("#   waited %lld ms: %s\n", (long long)took, hsc_store_errmsg(s));
    CHECK(strstr(hsc_store_errmsg(s), "no answer within 800 ms") != NULL,
          "the message says what happened");
    sleep_ms(1100); /* past the pool's one-second reconnect pause */
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK,
             "answers again once the server does");
    hsc_store_close(s);
    hsc_pg_pool_destroy(pool);
}

static void a_restart_is_survived_and_an_outage_fails_closed(void)
{
    hsc_pg_options_t o;
    hsc_pg_pool_t *pool = NULL;
    hsc_store_t *s = NULL;
    hsc_user_t u;
    char err[256];
    const char *stop = getenv("HSC_PG_STOP"), *start = getenv("HSC_PG_START");
    int i, back = 0, r1, r2;
    int64_t t0;
    hsc_cache_t *cache = NULL;
    hsc_status_t st;

    if (stop == NULL || start == NULL) {
        CHECK(0, "HSC_PG_STOP and HSC_PG_START are set");
        return;
    }
    hsc_pg_options_default(&o);
    o.max_stale_ms = 1000;
    hsc_pg_pool_create(conninfo, &o, &pool, err, sizeof(err));
    hsc_store_pgsql_open_pool(pool, 0, &s);
    hsc_cache_create(1024, 1, &cache);
    hsc_store_use_cache(s, cache);
    CHECK_EQ(hsc_store_get(s, "alice", 5, &u), HSC_OK, "connected");
    CHECK(system(stop) == 0 && system(start) == 0, "server crashed and back");
    sleep_ms(1050); /* the lease ends: the next get polls */
    st = hsc_store_get(s, "alice", 5, &u);
    CHECK_EQ(st, HSC_OK,
             "the first get after a restart succeeds (a new connection, "
             "statements prepared again)");
    if (st != HSC_OK) {
        printf("#   %s\n", hsc_store_errmsg(s));
    }
    t0 = mono_ms(); /* the lease started at most now */
    CHECK(system(stop) == 0, "server down");
    st = hsc_store_get(s, "alice", 5, &u);
    if (mono_ms() - t0 < 900) {
        CHECK_EQ(st, HSC_OK, "within the lease the cached record answers");
    }
    else {
        CHECK(1, "(the stop took too long to test within the lease)");
    }
    sleep_ms((int)(1100 - (mono_ms() - t0)));
    st = hsc_store_get(s, "alice", 5, &u);
    r1 = hsc_store_repeat_fault(s);
    CHECK_EQ(st, HSC_ESTORE, "after the lease: store failure (503)");
    CHECK(u.name == NULL, "nothing is returned");
    hsc_store_get(s, "alice", 5, &u);
    r2 = hsc_store_repeat_fault(s);
    CHECK(r1 == 0 && r2 == 1, "the outage is new once, then a repeat");
    CHECK_EQ(hsc_store_get_fresh(s, "alice", 5, &u), HSC_ESTORE,
             "a login fails too");
    CHECK_EQ(hsc_store_take_recovery(s), 0, "no recovery while down");
    CHECK(system(start) == 0, "server back");
    for (i = 0; i < 50 && !back; ++i) {
        back = hsc_store_get(s, "alice", 5, &u) == HSC_OK;
        if (!back) {
            sleep_ms(100);
        }
    }
    CHECK(back && i <= 15, "recovered by itself within 1.5 s");
    r1 = hsc_store_take_recovery(s);
    r2 = hsc_store_take_recovery(s);
    CHECK(r1 == 1 && r2 == 0,
          "the call that ended the outage marks the recovery, once");
    hsc_store_get_fresh(s, "alice", 5, &u);
    CHECK_EQ(hsc_store_take_recovery(s), 0,
             "a later answer is no new recovery");
    hsc_store_close(s);
    hsc_cache_destroy(cache);
    hsc_pg_pool_destroy(pool);
}

int main(void)
{
    conninfo = getenv("HSC_PG_CONNINFO");
    if (conninfo == NULL || *conninfo == '\0') {
        printf("not ok 1 - HSC_PG_CONNINFO is not set: run "
               "test/pgsql/store-pgsql.sh\n1..1\n");
        return 1;
    }
    snprintf(spec, sizeof(spec), "pgsql:%s", conninfo);
    RUN(init_creates_schema_once_and_keeps_its_store_id);
    RUN(concurrent_inits_apply_each_file_once);
    RUN(uninitialised_and_foreign_databases_are_refused);
    RUN(a_newer_schema_is_refused);
    RUN(users_round_trip_byte_for_byte);
    RUN(passwords_never_reach_messages);
    RUN(statements_time_out_and_the_pool_wait_is_bounded);
    RUN(the_cache_answers_within_the_lease_and_sees_changes_after);
    RUN(a_replaced_database_drops_the_cache);
    RUN(a_stalled_server_is_bounded_by_the_timeout);
    RUN(a_restart_is_survived_and_an_outage_fails_closed);
    return hsc_test_done();
}
