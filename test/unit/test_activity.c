/*
 * test_activity.c: the activity store (hsc_activity.h): when and from
 * where each app password was last used.
 *
 * Without arguments: SQLite files in a temporary directory (a new file's
 * mode and journal, the time that only grows, read-only handles, a locked
 * file failing a touch within its bound, the user file refused). With
 * "pgsql": the same through hsc_token_touch against the databases
 * ac_store and ac_old of the server HSC_PG_CONNINFO names, made empty by
 * test/pgsql/tokens-pgsql.sh (a reconnect after the server ended the
 * connection, a schema older than 5, a server that is not there); the
 * test fails without it, never skips.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <sqlite3.h>
#ifdef HSC_HAVE_PGSQL
#include <libpq-fe.h>
#endif

#include "hsc_activity.h"
#include "hsc_store.h"
#include "hsc_test.h"

static char tmpdir[256];
static const char *pg; /* the server's conninfo in pgsql mode, else NULL */

#define ID_A "abcdefghijklmnop"
#define ID_B "qrstuvwxyz234567"

static int64_t ms_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *spec_of(const char *name, char *buf, size_t len)
{
    if (pg != NULL) {
        snprintf(buf, len, "pgsql:%s dbname=ac_%s", pg, name);
    }
    else {
        snprintf(buf, len, "%s/%s.db", tmpdir, name);
    }
    return buf;
}

static hsc_activity_t *open_or_say(const char *spec, int readonly)
{
    hsc_activity_t *a = NULL;
    char err[256];

    if (hsc_activity_open(spec, readonly, &a, err, sizeof(err)) != HSC_OK) {
        printf("# open %s: %s\n", spec, err);
        return NULL;
    }
    return a;
}

/* Both stores: the time only grows, the address follows the time. */
static void touches_keep_the_latest_use(void)
{
    char spec[1100], addr[HSC_ACTIVITY_ADDR_MAX], longaddr[200];
    hsc_activity_t *a, *b;
    int64_t at = -1;

    spec_of("store", spec, sizeof(spec));
    if ((a = open_or_say(spec, 0)) == NULL
        || (b = open_or_say(spec, 0)) == NULL) {
        CHECK(0, "two handles on the activity store");
        hsc_activity_close(a);
        return;
    }
    CHECK_EQ(hsc_activity_get(a, ID_A, &at, addr), HSC_ENOUSER,
             "a token never used has no row");
    CHECK_EQ(hsc_activity_touch(a, ID_A, 1000, "192.0.2.1"), HSC_OK,
             "a first use");
    CHECK(hsc_activity_get(b, ID_A, &at, addr) == HSC_OK && at == 1000
              && strcmp(addr, "192.0.2.1") == 0,
          "another handle (server) reads its time and address");
    CHECK_EQ(hsc_activity_touch(b, ID_A, 900, "198.51.100.7"), HSC_OK,
             "an older use arriving late is not an error");
    CHECK(hsc_activity_get(a, ID_A, &at, addr) == HSC_OK && at == 1000
              && strcmp(addr, "192.0.2.1") == 0,
          "... and changes nothing: the time never goes back");
    CHECK(hsc_activity_touch(b, ID_A, 1000, "198.51.100.8") == HSC_OK
              && hsc_activity_get(a, ID_A, &at, addr) == HSC_OK && at == 1000
              && strcmp(addr, "192.0.2.1") == 0,
          "a use of the same second keeps the first address");
    CHECK(hsc_activity_touch(b, ID_A, 2000, "2001:db8::1") == HSC_OK
              && hsc_activity_get(a, ID_A, &at, addr) == HSC_OK && at == 2000
              && strcmp(addr, "2001:db8::1") == 0,
          "a later use moves time and address");
    CHECK(hsc_activity_get(a, ID_B, &at, addr) == HSC_ENOUSER,
          "another token is still unused");
    memset(longaddr, '9', sizeof(longaddr) - 1);
    longaddr[sizeof(longaddr) - 1] = '\0';
    CHECK(hsc_activity_touch(a, ID_B, 3000, longaddr) == HSC_OK
              && hsc_activity_get(b, ID_B, &at, addr) == HSC_OK && at == 3000
              && strlen(addr) == HSC_ACTIVITY_ADDR_MAX - 1,
          "an overlong address is kept to 63 bytes");
    CHECK_EQ(hsc_activity_touch(a, "ABCDEFGHIJKLMNOP", 10, ""), HSC_EINVAL,
             "a malformed id is refused");
    CHECK_EQ(hsc_activity_touch(a, ID_A, -1, ""), HSC_EINVAL,
             "a negative time is refused");
    CHECK_EQ(hsc_activity_get(a, "nope", &at, addr), HSC_ENOUSER,
             "a malformed id was never used");
    hsc_activity_close(b);
    hsc_activity_close(a);
    if ((a = open_or_say(spec, 1)) == NULL) {
        CHECK(0, "a read-only handle");
        return;
    }
    CHECK(hsc_activity_get(a, ID_A, &at, addr) == HSC_OK && at == 2000,
          "a read-only handle reads");
    CHECK_EQ(hsc_activity_touch(a, ID_A, 5000, "x"), HSC_EREADONLY,
             "and never writes");
    CHECK(hsc_activity_get(a, ID_A, &at, addr) == HSC_OK && at == 2000,
          "the row is as it was");
    hsc_activity_close(a);
}

/* --- SQLite ------------------------------------------------------------- */

static void a_new_file_is_private_and_in_wal_mode(void)
{
    char path[1100], mode[16] = "";
    hsc_activity_t *a;
    struct stat sb;
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;

    spec_of("new", path, sizeof(path));
    CHECK(stat(path, &sb) != 0, "the file is absent at first");
    if ((a = open_or_say(path, 0)) == NULL) {
        CHECK(0, "opened read-write");
        return;
    }
    CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600,
          "created with mode 0600");
    hsc_activity_close(a);
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK
        && sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL)
               == SQLITE_OK
        && sqlite3_step(st) == SQLITE_ROW) {
        snprintf(mode, sizeof(mode), "%s",
                 (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    CHECK_STR(mode, "wal", "in WAL mode");
}

static void a_read_only_open_creates_nothing(void)
{
    char path[1100], addr[HSC_ACTIVITY_ADDR_MAX];
    hsc_activity_t *a;
    struct stat sb;
    int64_t at;

    spec_of("absent", path, sizeof(path));
    if ((a = open_or_say(path, 1)) == NULL) {
        CHECK(0, "a read-only open of an absent file");
        return;
    }
    CHECK_EQ(hsc_activity_get(a, ID_A, &at, addr), HSC_ENOUSER,
             "an absent file: no token was ever used");
    CHECK_EQ(hsc_activity_touch(a, ID_A, 1, ""), HSC_EREADONLY,
             "a touch is refused");
    CHECK(stat(path, &sb) != 0, "and no file was created");
    hsc_activity_close(a);
}

static void a_locked_file_fails_a_touch_quickly(void)
{
    char path[1100], addr[HSC_ACTIVITY_ADDR_MAX];
    hsc_activity_t *a;
    sqlite3 *db = NULL;
    int64_t t0, took, at;
    hsc_status_t st;
    int locked;

    spec_of("busy", path, sizeof(path));
    if ((a = open_or_say(path, 0)) == NULL) {
        CHECK(0, "an activity file");
        return;
    }
    locked = sqlite3_open(path, &db) == SQLITE_OK
             && sqlite3_exec(db,
                             "BEGIN IMMEDIATE; INSERT INTO hsc_token_activity "
                             "VALUES ('" ID_B "', 1, '')",
                             NULL, NULL, NULL)
                    == SQLITE_OK;
    CHECK(locked, "another writer holds the file's lock");
    t0 = ms_now();
    st = hsc_activity_touch(a, ID_A, 100, "192.0.2.9");
    took = ms_now() - t0;
    CHECK_EQ(st, HSC_ESTORE, "a touch meanwhile fails");
    printf("# waited %lld ms: %s\n", (long long)took, hsc_activity_errmsg(a));
    CHECK(took >= 150 && took < 1000, "after its 200 ms bound, not longer");
    CHECK(strstr(hsc_activity_errmsg(a), "locked") != NULL,
          "the message says the file was locked");
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(db);
    CHECK(hsc_activity_touch(a, ID_A, 100, "192.0.2.9") == HSC_OK
              && hsc_activity_get(a, ID_A, &at, addr) == HSC_OK && at == 100,
          "once the lock is gone the same handle records again");
    hsc_activity_close(a);
}

static void the_user_file_is_refused(void)
{
    char path[1100], err[256];
    hsc_store_t *s = NULL;
    hsc_activity_t *a = NULL;

    spec_of("users", path, sizeof(path));
    if (hsc_store_open(path, HSC_STORE_CREATE, &s, err, sizeof(err))
        != HSC_OK) {
        CHECK(0, "a user database");
        printf("# %s\n", err);
        return;
    }
    hsc_store_close(s);
    CHECK_EQ(hsc_activity_open(path, 0, &a, err, sizeof(err)), HSC_EINVAL,
             "a user database is not an activity file");
    CHECK(strstr(err, "file of its own") != NULL, "the message says why");
    hsc_activity_close(a);
}

/* --- PostgreSQL --------------------------------------------------------- */

#ifdef HSC_HAVE_PGSQL
/* Run sql as the test's role on database ac_<db>; 1 when it worked. */
static int pg_sql(const char *db, const char *sql)
{
    char ci[1100];
    PGconn *c;
    PGresult *r;
    int ok;

    snprintf(ci, sizeof(ci), "%s dbname=ac_%s", pg, db);
    c = PQconnectdb(ci);
    r = PQexec(c, sql);
    ok = PQresultStatus(r) == PGRES_COMMAND_OK
         || PQresultStatus(r) == PGRES_TUPLES_OK;
    if (!ok) {
        printf("# %s: %s", sql, PQerrorMessage(c));
    }
    PQclear(r);
    PQfinish(c);
    return ok;
}

/* The schema, made by the user store's init. */
static int pg_schema(const char *db)
{
    char spec[1100], err[256];
    hsc_store_t *s = NULL;

    snprintf(spec, sizeof(spec), "pgsql:%s dbname=ac_%s", pg, db);
    if (hsc_store_open(spec, HSC_STORE_CREATE, &s, err, sizeof(err))
        != HSC_OK) {
        printf("# init %s: %s\n", db, err);
        return 0;
    }
    hsc_store_close(s);
    return 1;
}

static void pg_a_use_is_not_in_the_future(void)
{
    char spec[1100], addr[HSC_ACTIVITY_ADDR_MAX];
    hsc_activity_t *a;
    int64_t at = 0, now = (int64_t)time(NULL);

    if ((a = open_or_say(spec_of("store", spec, sizeof(spec)), 0)) == NULL) {
        CHECK(0, "the activity store");
        return;
    }
    CHECK(hsc_activity_touch(a, ID_B, now + 100000, "") == HSC_OK
              && hsc_activity_get(a, ID_B, &at, addr) == HSC_OK
              && at <= now + 70 && at >= now,
          "a time far ahead is cut to the database's clock plus a minute");
    hsc_activity_close(a);
}

static void pg_a_broken_connection_is_made_anew(void)
{
    char spec[1100], addr[HSC_ACTIVITY_ADDR_MAX];
    hsc_activity_t *a;
    int64_t at = 0;

    if ((a = open_or_say(spec_of("store", spec, sizeof(spec)), 0)) == NULL) {
        CHECK(0, "the activity store");
        return;
    }
    CHECK_EQ(hsc_activity_touch(a, ID_A, 4000, "192.0.2.4"), HSC_OK,
             "connected");
    CHECK(pg_sql("store", "SELECT pg_terminate_backend(pid) FROM "
                          "pg_stat_activity WHERE application_name = "
                          "'mod_hsc-activity'"),
          "the server ends the connection");
    CHECK_EQ(hsc_activity_touch(a, ID_A, 4100, "192.0.2.5"), HSC_ESTORE,
             "the next touch fails (no quiet retry)");
    printf("# %s\n", hsc_activity_errmsg(a));
    CHECK(hsc_activity_touch(a, ID_A, 4200, "192.0.2.6") == HSC_OK
              && hsc_activity_get(a, ID_A, &at, addr) == HSC_OK && at == 4200
              && strcmp(addr, "192.0.2.6") == 0,
          "the one after reconnects and records");
    hsc_activity_close(a);
}

static void pg_an_older_schema_names_the_upgrade(void)
{
    char spec[1100], addr[HSC_ACTIVITY_ADDR_MAX];
    hsc_activity_t *a;
    int64_t at;
    int made;

    made = pg_schema("old")
           && pg_sql("old", "DROP FUNCTION hsc_token_touch(text, bigint, "
                            "text); DROP FUNCTION hsc_token_get(text); "
                            "DROP TABLE hsc_token_activity, hsc_tokens; "
                            "DELETE FROM hsc_schema WHERE version = 5");
    CHECK(made, "a database of schema version 4");
    if ((a = open_or_say(spec_of("old", spec, sizeof(spec)), 0)) == NULL) {
        CHECK(0, "opened");
        return;
    }
    CHECK(hsc_activity_touch(a, ID_A, 1, "") == HSC_ESTORE
              && strstr(hsc_activity_errmsg(a), "hsc-admin init") != NULL,
          "a touch fails, naming the upgrade");
    CHECK(hsc_activity_get(a, ID_A, &at, addr) == HSC_ESTORE
              && strstr(hsc_activity_errmsg(a), "hsc-admin init") != NULL,
          "a read too");
    hsc_activity_close(a);
}

static void pg_a_server_that_is_down_fails_fast(void)
{
    char spec[1300];
    hsc_activity_t *a;
    int64_t t0, took;

    snprintf(spec, sizeof(spec),
             "pgsql:host=%s/nowhere port=1 dbname=ac_store connect_timeout=2",
             tmpdir);
    if ((a = open_or_say(spec, 0)) == NULL) {
        CHECK(0, "opened (nothing is connected yet)");
        return;
    }
    CHECK(hsc_activity_touch(a, ID_A, 1, "") == HSC_ESTORE
              && strstr(hsc_activity_errmsg(a), "cannot connect") != NULL,
          "a touch fails: cannot connect");
    t0 = ms_now();
    CHECK_EQ(hsc_activity_touch(a, ID_A, 2, ""), HSC_ESTORE,
             "so does the next one");
    took = ms_now() - t0;
    CHECK(took < 100 && strstr(hsc_activity_errmsg(a), "next attempt") != NULL,
          "at once, without a new attempt within the second");
    hsc_activity_close(a);
}
#endif

int main(int argc, char **argv)
{
    const char *t = getenv("TMPDIR");
    char cmd[300];

    snprintf(tmpdir, sizeof(tmpdir), "%s/hsc-activity-XXXXXX", t ? t : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    if (argc > 1 && strcmp(argv[1], "pgsql") == 0) {
#ifdef HSC_HAVE_PGSQL
        /* Never a quiet skip: no server is a failure. */
        if ((pg = getenv("HSC_PG_CONNINFO")) == NULL) {
            printf("not ok 1 - HSC_PG_CONNINFO names a server\n1..1\n");
            return 1;
        }
        CHECK(pg_schema("store"), "schema version 5 on ac_store");
        RUN(touches_keep_the_latest_use);
        RUN(pg_a_use_is_not_in_the_future);
        RUN(pg_a_broken_connection_is_made_anew);
        RUN(pg_an_older_schema_names_the_upgrade);
        RUN(pg_a_server_that_is_down_fails_fast);
#else
        printf("not ok 1 - this build has PostgreSQL\n1..1\n");
        return 1;
#endif
    }
    else {
        RUN(a_new_file_is_private_and_in_wal_mode);
        RUN(touches_keep_the_latest_use);
        RUN(a_read_only_open_creates_nothing);
        RUN(a_locked_file_fails_a_touch_quickly);
        RUN(the_user_file_is_refused);
    }
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) {
        printf("# could not remove %s\n", tmpdir);
    }
    return hsc_test_done();
}
