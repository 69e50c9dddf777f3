/*
 * test_store_init.c: hsc_store_sqlite_process_init() turns SQLite's memory
 * statistics off when it runs before SQLite's first use, and changes
 * nothing (but harms nothing) once SQLite is in use. A separate program,
 * because the setting is process-wide: main() must be the first to touch
 * SQLite. The control (the same work without the call, in a fresh process
 * image) shows the statistics on, so the main assertion can fail.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "hsc_test.h"
#include "hsc_store.h"
#include "hsc_store_sqlite.h"

static char dbpath[300];
static const char *self; /* argv[0]: under valgrind, /proc/self/exe is not us */

/* Create a database with one user and read it back: HSC_OK or an error. */
static hsc_status_t some_store_work(void)
{
    hsc_store_t *s = NULL;
    hsc_user_t u, got;
    char err[256];
    hsc_status_t st;

    unlink(dbpath);
    st = hsc_store_sqlite_open(dbpath, HSC_STORE_CREATE, &s, err, sizeof(err));
    if (st != HSC_OK) {
        printf("# open %s: %s\n", dbpath, err);
        return st;
    }
    memset(&u, 0, sizeof(u));
    u.name = "alice";
    u.name_len = 5;
    memset(u.salt, 0x11, HSC_SALT_LEN);
    memset(u.authenticator, 0xee, HSC_AUTH_LEN);
    hsc_kdf_parse("sha256-chain:1000", &u.kdf);
    u.groups = "staff";
    st = hsc_store_add(s, &u);
    if (st == HSC_OK) {
        st = hsc_store_get(s, "alice", 5, &got);
    }
    if (st == HSC_OK && strcmp(got.groups, "staff") != 0) {
        st = HSC_ESTORE;
    }
    hsc_store_close(s);
    return st;
}

/* SQLite's own count of the memory it holds now. */
static long long sqlite_memory_used(void)
{
    sqlite3_int64 cur = -1, high = -1;

    if (sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &cur, &high, 0)
        != SQLITE_OK) {
        return -1;
    }
    return cur;
}

static void first_call_turns_memory_statistics_off(void)
{
    CHECK_EQ(hsc_store_sqlite_process_init(), 1,
             "before SQLite's first use, the call takes effect");
    CHECK_EQ(some_store_work(), HSC_OK, "the store works");
    CHECK_EQ(sqlite_memory_used(), 0, "SQLite counted none of its allocations");
}

static void a_later_call_changes_nothing(void)
{
    CHECK_EQ(hsc_store_sqlite_process_init(), 0,
             "once SQLite is in use, the call says it did nothing");
    CHECK_EQ(some_store_work(), HSC_OK, "and the store still works");
    CHECK_EQ(sqlite_memory_used(), 0, "the statistics stay off");
}

/* The control: the same work in a fresh process image, without the call. */
static void without_the_call_sqlite_counts_its_memory(void)
{
    char cmd[400];
    FILE *p;
    long long used = -1;

    snprintf(cmd, sizeof(cmd), "'%s' --without-init", self);
    p = popen(cmd, "r");
    CHECK(p != NULL, "the control process starts");
    if (p == NULL) {
        return;
    }
    if (fscanf(p, "%lld", &used) != 1) {
        used = -1;
    }
    CHECK_EQ(pclose(p), 0, "the control process did its work");
    CHECK(used > 0, "without the call, SQLite counts its memory");
    if (used <= 0) {
        printf("#   the control reported %lld bytes\n", used);
    }
}

int main(int argc, char **argv)
{
    const char *t = getenv("TMPDIR");
    int control = argc > 1 && strcmp(argv[1], "--without-init") == 0;

    self = argv[0];
    snprintf(dbpath, sizeof(dbpath), "%s/hsc-store-init-%ld%s.db",
             t && *t ? t : "/tmp", (long)getpid(), control ? "-c" : "");
    if (control) {
        /* Keep a connection open so that SQLite holds memory to count. */
        sqlite3 *db = NULL;
        int ok = some_store_work() == HSC_OK
                 && sqlite3_open(dbpath, &db) == SQLITE_OK;

        printf("%lld\n", sqlite_memory_used());
        sqlite3_close(db);
        unlink(dbpath);
        return ok ? 0 : 1;
    }
    RUN(first_call_turns_memory_statistics_off);
    RUN(a_later_call_changes_nothing);
    RUN(without_the_call_sqlite_counts_its_memory);
    unlink(dbpath);
    return hsc_test_done();
}
