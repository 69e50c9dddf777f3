/*
 * test_cache.c: the record cache shared by a process's threads
 * (hsc_core/hsc_cache.c) on its own, then behind real SQLite store handles
 * that share it (one per thread, as in httpd).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "hsc_test.h"
#include "hsc_cache.h"
#include "hsc_defaults.h"
#include "hsc_store.h"
#include "hsc_store_sqlite.h"

/* A record whose every field follows from (name, version), so a torn or
 * mixed-up record shows. */
typedef struct {
    char name[128];
    char groups[32];
    unsigned char seals[HSC_CACHE_SEAL_BYTES];
    hsc_user_t u;
} rec_t;

static void make_rec(rec_t *r, const char *name, unsigned version)
{
    size_t i, n;

    memset(r, 0, sizeof(*r));
    snprintf(r->name, sizeof(r->name), "%s", name);
    snprintf(r->groups, sizeof(r->groups), "g%u", version % 7);
    n = strlen(r->name);
    r->u.name = r->name;
    r->u.name_len = n;
    r->u.groups = r->groups;
    hsc_kdf_parse("sha256-chain:1000", &r->u.kdf);
    for (i = 0; i < HSC_SALT_LEN; i++) {
        r->u.salt[i] = (unsigned char)(version + i + n);
    }
    for (i = 0; i < HSC_AUTH_LEN; i++) {
        r->u.authenticator[i] = (unsigned char)(version * 3 + i + n);
    }
    r->u.disabled = (int)(version & 1);
    r->u.revoked_before = (int64_t)version;
    r->u.created = 1000 + (int64_t)n;
    r->u.updated = 2000 + (int64_t)version;
    r->u.gen = (int64_t)version * 5 - 1; /* -1 (a file without gen) too */
    /* From version 1000 on, 0 to 4 seal hashes (version % 5). */
    if (version >= 1000 && version % 5 > 0) {
        for (i = 0; i < sizeof(r->seals); i++) {
            r->seals[i] = (unsigned char)(version * 11 + i + n);
        }
        r->u.seals = r->seals;
        r->u.seals_len = (size_t)(version % 5) * 32;
    }
}

/* 1 when u is exactly make_rec(name, u->revoked_before). */
static int rec_ok(const hsc_user_t *u, const char *name)
{
    rec_t want;

    make_rec(&want, name, (unsigned)u->revoked_before);
    return u->name_len == want.u.name_len && strcmp(u->name, name) == 0
           && strcmp(u->groups, want.groups) == 0
           && u->kdf.alg == want.u.kdf.alg
           && u->kdf.iterations == want.u.kdf.iterations
           && memcmp(u->salt, want.u.salt, HSC_SALT_LEN) == 0
           && memcmp(u->authenticator, want.u.authenticator, HSC_AUTH_LEN) == 0
           && u->disabled == want.u.disabled && u->created == want.u.created
           && u->updated == want.u.updated && u->gen == want.u.gen
           && u->seals_len == want.u.seals_len
           && (want.u.seals_len == 0
                   ? u->seals == NULL
                   : memcmp(u->seals, want.u.seals, want.u.seals_len) == 0);
}

static int put(hsc_cache_t *c, const char *name, unsigned version)
{
    hsc_cache_ticket_t t;
    rec_t r;

    make_rec(&r, name, version);
    hsc_cache_ticket(c, &t);
    return hsc_cache_put(c, &t, &r.u);
}

static int get(hsc_cache_t *c, const char *name, hsc_user_t *u, char *text)
{
    static unsigned char seals_buf[HSC_CACHE_SEAL_BYTES];

    return hsc_cache_get(c, name, strlen(name), u, text, seals_buf);
}

static void put_then_get_returns_the_same_record(void)
{
    hsc_cache_t *c = NULL;
    hsc_user_t u;
    char text[HSC_CACHE_TEXT];

    CHECK_EQ(hsc_cache_create(1000, 0, &c), HSC_OK, "created");
    CHECK(hsc_cache_entries(c) >= 1000, "holds at least what was asked");
    CHECK_EQ(get(c, "alice", &u, text), 0, "empty: a miss");
    CHECK_EQ(put(c, "alice", 42), 1, "alice kept");
    CHECK_EQ(get(c, "alice", &u, text), 1, "then a hit");
    CHECK(rec_ok(&u, "alice") && u.revoked_before == 42, "every field as put");
    CHECK(u.name == text && u.groups == text + 6,
          "strings point into the caller's buffer");
    CHECK_EQ(get(c, "alic", &u, text), 0, "a prefix is another name");
    CHECK_EQ(get(c, "alicex", &u, text), 0, "so is a longer one");
    CHECK_EQ(put(c, "alice", 43), 1, "a newer read replaces it");
    CHECK(get(c, "alice", &u, text) == 1 && u.revoked_before == 43,
          "and is what a get returns");
    CHECK_EQ(hsc_cache_count(c), 1, "one record, not two");
    hsc_cache_destroy(c);

    CHECK_EQ(hsc_cache_create(0, 0, &c), HSC_EINVAL, "size 0 refused");
    CHECK(c == NULL, "and no cache");
    CHECK_EQ(hsc_cache_create(HSC_CACHE_MAX_ENTRIES + 1, 0, &c), HSC_EINVAL,
             "over the maximum refused");
    CHECK_EQ(hsc_cache_create(100, 3, &c), HSC_EINVAL,
             "a shard count that is not a power of two refused");
}

static void records_that_do_not_fit_are_not_kept(void)
{
    hsc_cache_t *c = NULL;
    hsc_user_t u;
    char text[HSC_CACHE_TEXT], name[128];
    rec_t r;
    hsc_cache_ticket_t t;

    hsc_cache_create(64, 0, &c);
    memset(name, 'n', sizeof(name));
    name[HSC_CACHE_TEXT - 3] = '\0'; /* + NUL + "g0" + NUL is too long */
    make_rec(&r, name, 0);
    hsc_cache_ticket(c, &t);
    CHECK_EQ(hsc_cache_put(c, &t, &r.u), 0, "a name too long to fit");
    CHECK_EQ(get(c, name, &u, text), 0, "is never a hit");
    name[HSC_CACHE_TEXT - 5] = '\0'; /* exactly fits with "gN" */
    CHECK_EQ(put(c, name, 0), 1, "one that just fits is kept");
    CHECK(get(c, name, &u, text) == 1 && rec_ok(&u, name), "and returned");
    CHECK(hsc_cache_fits(1, HSC_CACHE_TEXT - 3)
              && !hsc_cache_fits(1, HSC_CACHE_TEXT - 2)
              && !hsc_cache_fits(0, 0),
          "hsc_cache_fits draws the same line");
    make_rec(&r, "gen-big", 1);
    r.u.gen = (int64_t)INT32_MAX + 1;
    hsc_cache_ticket(c, &t);
    CHECK_EQ(hsc_cache_put(c, &t, &r.u), 0,
             "a gen above INT32_MAX is not kept");
    CHECK_EQ(get(c, "gen-big", &u, text), 0, "and never a hit");
    r.u.gen = INT32_MAX;
    hsc_cache_ticket(c, &t);
    CHECK_EQ(hsc_cache_put(c, &t, &r.u), 1, "INT32_MAX is");
    CHECK(get(c, "gen-big", &u, text) == 1 && u.gen == INT32_MAX,
          "and comes back whole");
    hsc_cache_destroy(c);
}

static void seals_are_kept_beside_the_record_only_when_there(void)
{
    hsc_cache_t *c = NULL;
    hsc_user_t u;
    char text[HSC_CACHE_TEXT];
    rec_t r;
    hsc_cache_ticket_t t;
    size_t bytes;

    hsc_cache_create(1000, 0, &c);
    bytes = hsc_cache_bytes(c);
    CHECK_EQ(put(c, "plain", 42), 1, "a record without seals kept");
    CHECK(get(c, "plain", &u, text) == 1 && u.seals == NULL && u.seals_len == 0,
          "and read back without seals");
    CHECK_EQ(hsc_cache_bytes(c), bytes,
             "records without seals: the cache is as large as before");
    CHECK_EQ(put(c, "sealed", 1004), 1, "a record with four seals kept");
    CHECK(get(c, "sealed", &u, text) == 1 && rec_ok(&u, "sealed")
              && u.seals_len == 4 * 32,
          "and read back with the same four");
    CHECK_EQ(hsc_cache_bytes(c),
             bytes + hsc_cache_entries(c) * HSC_CACHE_SEAL_BYTES,
             "the first sealed record maps the seal slots (and the bound "
             "says so)");
    CHECK_EQ(put(c, "sealed", 1005), 1, "the same user without seals now");
    CHECK(get(c, "sealed", &u, text) == 1 && u.seals == NULL
              && u.seals_len == 0,
          "reads back without seals (none left over from before)");
    make_rec(&r, "five", 1004);
    r.u.seals_len = 5 * 32; /* one more than a slot holds */
    hsc_cache_ticket(c, &t);
    CHECK_EQ(hsc_cache_put(c, &t, &r.u), 0, "five seals: not kept");
    CHECK_EQ(get(c, "five", &u, text), 0, "so read through every time");
    r.u.seals_len = 33;
    hsc_cache_ticket(c, &t);
    CHECK_EQ(hsc_cache_put(c, &t, &r.u), 0,
             "not a whole number of hashes: not kept");
    CHECK_EQ(put(c, "sealed", 1003), 1, "three seals");
    hsc_cache_drop(c, "sealed", 6);
    CHECK_EQ(get(c, "sealed", &u, text), 0, "a drop forgets them");
    hsc_cache_destroy(c);
}

static void a_ticket_taken_before_a_change_cannot_put(void)
{
    hsc_cache_t *c = NULL;
    hsc_cache_ticket_t t;
    hsc_user_t u;
    char text[HSC_CACHE_TEXT];
    rec_t r;
    hsc_cache_stats_t st;

    hsc_cache_create(64, 0, &c);
    make_rec(&r, "bob", 1);
    hsc_cache_ticket(c, &t);
    hsc_cache_clear(c);
    CHECK_EQ(hsc_cache_put(c, &t, &r.u), 0, "emptied since the ticket");
    hsc_cache_ticket(c, &t);
    hsc_cache_drop(c, "someone-else", 12);
    CHECK_EQ(hsc_cache_put(c, &t, &r.u), 0,
             "a name dropped since the ticket (any name)");
    hsc_cache_ticket(c, &t);
    hsc_cache_sync_token(c, (const unsigned char *)"T2", 2);
    CHECK_EQ(hsc_cache_put(c, &t, &r.u), 0, "a new token since the ticket");
    hsc_cache_ticket(c, &t);
    CHECK_EQ(hsc_cache_put(c, &t, &r.u), 1, "a fresh ticket puts");
    CHECK_EQ(get(c, "bob", &u, text), 1, "bob is there");
    hsc_cache_drop(c, "bob", 3);
    CHECK_EQ(get(c, "bob", &u, text), 0, "dropped: gone");
    hsc_cache_stats(c, &st);
    CHECK_EQ(st.refused, 3, "three puts refused, counted");
    hsc_cache_destroy(c);
}

static void a_new_token_empties_the_cache_the_same_keeps_it(void)
{
    hsc_cache_t *c = NULL;
    hsc_user_t u;
    char text[HSC_CACHE_TEXT];
    unsigned char tok[HSC_CACHE_TOKEN_MAX];

    hsc_cache_create(256, 0, &c);
    memset(tok, 0xa5, sizeof(tok));
    hsc_cache_sync_token(c, tok, sizeof(tok));
    put(c, "carol", 1);
    put(c, "dave", 2);
    hsc_cache_sync_token(c, tok, sizeof(tok));
    CHECK(get(c, "carol", &u, text) == 1 && get(c, "dave", &u, text) == 1,
          "the same token: records stay");
    tok[HSC_CACHE_TOKEN_MAX - 1] ^= 1;
    hsc_cache_sync_token(c, tok, sizeof(tok));
    CHECK(get(c, "carol", &u, text) == 0 && get(c, "dave", &u, text) == 0,
          "one bit of the token changed: all gone");
    put(c, "carol", 3);
    hsc_cache_sync_token(c, tok, sizeof(tok) - 1);
    CHECK_EQ(get(c, "carol", &u, text), 0, "a shorter token is another token");
    put(c, "carol", 3);
    hsc_cache_clear(c);
    CHECK_EQ(get(c, "carol", &u, text), 0, "clear empties it");
    CHECK_EQ(hsc_cache_count(c), 0, "nothing current left");
    hsc_cache_destroy(c);
}

/* One set (16 records): a referenced record survives the sweep. */
static void clock_keeps_the_records_in_use(void)
{
    hsc_cache_t *c = NULL;
    hsc_user_t u;
    char text[HSC_CACHE_TEXT], name[32];
    int i, kept = 0, newer = 0;
    hsc_cache_stats_t st;

    hsc_cache_create(HSC_CACHE_WAYS, 1, &c);
    CHECK_EQ(hsc_cache_entries(c), HSC_CACHE_WAYS, "one set");
    for (i = 0; i < HSC_CACHE_WAYS; i++) {
        snprintf(name, sizeof(name), "old%d", i);
        put(c, name, 1);
    }
    for (i = 0; i < HSC_CACHE_WAYS / 2; i++) {
        snprintf(name, sizeof(name), "old%d", i);
        get(c, name, &u, text); /* in use: its bit is set */
    }
    for (i = 0; i < HSC_CACHE_WAYS / 2; i++) {
        snprintf(name, sizeof(name), "new%d", i);
        newer += put(c, name, 1);
    }
    for (i = 0; i < HSC_CACHE_WAYS / 2; i++) {
        snprintf(name, sizeof(name), "old%d", i);
        kept += get(c, name, &u, text);
    }
    CHECK_EQ(newer, HSC_CACHE_WAYS / 2, "new records went in");
    CHECK_EQ(kept, HSC_CACHE_WAYS / 2, "every record in use stayed");
    hsc_cache_stats(c, &st);
    CHECK_EQ(st.evictions, HSC_CACHE_WAYS / 2, "unused ones made room");
    hsc_cache_destroy(c);
}

/* AddressSanitizer backs every 8 bytes the cache touches with a shadow
 * byte, resident too: allowed for in a sanitizer build. */
#if defined(__SANITIZE_ADDRESS__) /* gcc */
#define HSC_ASAN 1
#elif defined(__has_feature) /* clang */
#if __has_feature(address_sanitizer)
#define HSC_ASAN 1
#endif
#endif
#if defined(HSC_ASAN)
#define SHADOW_KIB(kib) ((long)(kib) / 8 + 1024)
#define SANITIZED 1
#else
#define SHADOW_KIB(kib) 0L
#define SANITIZED 0
#endif

/* VmRSS of this process in KiB (Linux), or -1. */
static long rss_kib(void)
{
    char line[256];
    long v = -1;
    FILE *f = fopen("/proc/self/status", "r");

    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        if (sscanf(line, "VmRSS: %ld kB", &v) == 1) {
            break;
        }
    }
    if (f != NULL) {
        fclose(f);
    }
    return v;
}

/*
 * The default size holds 100,000 users; more users than that fill it and
 * never grow the process beyond its bound.
 */
static void the_default_holds_100000_users_within_its_bound(void)
{
    hsc_cache_t *c = NULL;
    hsc_user_t u;
    char text[HSC_CACHE_TEXT], name[32], what[128];
    long before, after;
    int i, hits = 0;

    before = rss_kib();
    CHECK_EQ(hsc_cache_create(HSC_DEFAULT_USER_CACHE_SIZE, 0, &c), HSC_OK,
             "the default size");
    CHECK(hsc_cache_bytes(c) < 26u * 1024 * 1024,
          "bound under 26 MiB (a few tens of MB)");
    CHECK(rss_kib() - before < 1024, "reserving it costs no resident memory");
    for (i = 0; i < 100000; i++) {
        snprintf(name, sizeof(name), "user%d", i);
        put(c, name, (unsigned)i);
    }
    for (i = 0; i < 100000; i++) {
        snprintf(name, sizeof(name), "user%d", i);
        if (get(c, name, &u, text) && rec_ok(&u, name)
            && u.revoked_before == i) {
            hits++;
        }
    }
    snprintf(what, sizeof(what),
             "100,000 users put, %d of them kept (at least 99.9%%)", hits);
    CHECK(hits >= 99900, what);
    for (i = 0; i < 1000000; i++) {
        snprintf(name, sizeof(name), "more%d", i);
        put(c, name, (unsigned)i);
    }
    after = rss_kib();
    snprintf(what, sizeof(what),
             "1,000,000 more users: RSS grew %ld KiB, the bound is %zu KiB",
             after - before, hsc_cache_bytes(c) / 1024);
    CHECK(after - before <= (long)(hsc_cache_bytes(c) / 1024) + 1024
                                + SHADOW_KIB(hsc_cache_bytes(c) / 1024),
          what);
    CHECK(hsc_cache_count(c) <= hsc_cache_entries(c),
          "never more records than its size");
    hsc_cache_destroy(c);
}

/* --- many threads ------------------------------------------------------- */

#define THREADS 25
#define NAMES 2000

typedef struct {
    hsc_cache_t *c;
    unsigned seed;
    long ops, hits, bad, stale;
} worker_t;

/* The "store": each name's current version. A change bumps store_version
 * first, then empties the cache, then publishes (visible_version). */
static unsigned store_version = 1, visible_version = 1;
static int stop_flag;

static void *worker(void *arg)
{
    worker_t *w = arg;
    hsc_user_t u;
    hsc_cache_ticket_t t;
    char text[HSC_CACHE_TEXT], name[32];
    unsigned char seals_buf[HSC_CACHE_SEAL_BYTES];
    rec_t r;

    while (!__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE)) {
        unsigned seen = __atomic_load_n(&visible_version, __ATOMIC_ACQUIRE);
        int n = (int)(rand_r(&w->seed) % NAMES);

        snprintf(name, sizeof(name), "u%d", n);
        hsc_cache_ticket(w->c, &t);
        if (hsc_cache_get(w->c, name, strlen(name), &u, text, seals_buf)) {
            w->hits++;
            if (!rec_ok(&u, name)) {
                w->bad++;
            }
            else if ((unsigned)u.revoked_before < seen) {
                w->stale++; /* older than a change published before */
            }
        }
        else {
            /* The read from the store, after the ticket. */
            make_rec(&r, name,
                     __atomic_load_n(&store_version, __ATOMIC_ACQUIRE));
            hsc_cache_put(w->c, &t, &r.u);
        }
        if (n == 0 && (w->ops % 64) == 0) {
            hsc_cache_drop(w->c, "u1", 2);
        }
        w->ops++;
    }
    return NULL;
}

static void many_threads_never_see_torn_or_stale_records(void)
{
    hsc_cache_t *c = NULL;
    pthread_t th[THREADS];
    worker_t w[THREADS];
    long ops = 0, hits = 0, bad = 0, stale = 0;
    char what[160];
    int i, k;

    /* A small cache: evictions and puts race with hits all the time. */
    hsc_cache_create(1024, 16, &c);
    for (i = 0; i < THREADS; i++) {
        memset(&w[i], 0, sizeof(w[i]));
        w[i].c = c;
        w[i].seed = (unsigned)i * 7919u + 1;
        pthread_create(&th[i], NULL, worker, &w[i]);
    }
    for (k = 0; k < 40; k++) {
        usleep(10000);
        /* A change: the store first, then the cache, then publish. */
        __atomic_add_fetch(&store_version, 1, __ATOMIC_ACQ_REL);
        if (k % 2) {
            hsc_cache_clear(c);
        }
        else {
            unsigned char tok[8];

            memcpy(tok, &k, sizeof(k));
            memset(tok + sizeof(k), 0, sizeof(tok) - sizeof(k));
            hsc_cache_sync_token(c, tok, sizeof(tok));
        }
        __atomic_store_n(&visible_version,
                         __atomic_load_n(&store_version, __ATOMIC_ACQUIRE),
                         __ATOMIC_RELEASE);
    }
    __atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
    for (i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        ops += w[i].ops;
        hits += w[i].hits;
        bad += w[i].bad;
        stale += w[i].stale;
    }
    snprintf(what, sizeof(what), "%d threads, %ld gets, %ld hits, 40 changes",
             THREADS, ops, hits);
    CHECK(ops > 10000 && hits > 0, what);
    CHECK_EQ(bad, 0, "no hit returned a torn or mixed record");
    CHECK_EQ(stale, 0, "no hit was older than a change made before it");
    hsc_cache_destroy(c);
}

/* --- behind real store handles ---------------------------------------- */

static char dir[256];

static int make_db(char *path, size_t len, int nusers)
{
    sqlite3 *db = NULL;
    hsc_store_t *s = NULL;
    char sql[512];
    int i, rc;

    snprintf(path, len, "%s/users.db", dir);
    if (hsc_store_sqlite_open(path, HSC_STORE_CREATE, &s, NULL, 0) != HSC_OK) {
        return 0;
    }
    hsc_store_close(s);
    if (sqlite3_open(path, &db) != SQLITE_OK) {
        return 0;
    }
    rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    for (i = 0; rc == SQLITE_OK && i < nusers; i++) {
        snprintf(
            sql, sizeof(sql),
            "INSERT INTO hsc_users VALUES ('u%d', zeroblob(16), "
            "'sha256-chain:1000', zeroblob(32), 'staff', 0, 0, 1, 1, 0, NULL)",
            i);
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    }
    sqlite3_close(db);
    return rc == SQLITE_OK;
}

static hsc_store_t *open_shared(const char *path, hsc_cache_t *c)
{
    hsc_store_t *s = NULL;

    if (hsc_store_sqlite_open(path, HSC_STORE_NOCACHE, &s, NULL, 0) != HSC_OK) {
        return NULL;
    }
    hsc_store_use_cache(s, c);
    return s;
}

static int run_sql(const char *path, const char *sql)
{
    pid_t pid;
    int status = -1;

    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        /* Another program, not this one's copy: under valgrind a forked
         * copy is leak-checked at its exit with this process's handles in
         * its heap, and the report turns its exit code to 1. */
        execlp("sqlite3", "sqlite3", "-bail", "-cmd", ".timeout 5000", path,
               sql, (char *)NULL);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
        return -1;
    }
    return WEXITSTATUS(status);
}

/*
 * Two handles (two threads in httpd) share one cache: what one read, the
 * other is answered from; a change by another process is seen by both on
 * their next get, whichever warmed the cache.
 */
static void handles_share_records_and_see_another_process_change(void)
{
    char path[512], name[16];
    hsc_cache_t *c = NULL;
    hsc_store_t *a, *b;
    hsc_user_t u;
    unsigned long ha, qa, hb, qb;
    int i, ok = 1;

    if (!make_db(path, sizeof(path), 100)) {
        CHECK(0, "database made");
        return;
    }
    hsc_cache_create(4096, 0, &c);
    a = open_shared(path, c);
    b = open_shared(path, c);
    CHECK(a != NULL && b != NULL, "two handles on one cache");
    if (a == NULL || b == NULL) {
        return;
    }
    CHECK_EQ(hsc_store_sqlite_cached(a), 1, "validated (WAL mode)");
    for (i = 0; i < 100; i++) {
        snprintf(name, sizeof(name), "u%d", i);
        ok &= hsc_store_get(a, name, strlen(name), &u) == HSC_OK;
    }
    for (i = 0; i < 100; i++) {
        snprintf(name, sizeof(name), "u%d", i);
        ok &= hsc_store_get(b, name, strlen(name), &u) == HSC_OK
              && strcmp(u.name, name) == 0 && strcmp(u.groups, "staff") == 0;
    }
    hsc_store_counters(a, &ha, &qa);
    hsc_store_counters(b, &hb, &qb);
    CHECK(ok, "every user found by both");
    CHECK(qa == 100 && hb == 100 && qb == 0,
          "what a read, b was answered from the cache");

    CHECK_EQ(run_sql(path, "UPDATE hsc_users SET revoked_before = 99 WHERE "
                           "username = 'u7'"),
             0, "another process revokes u7");
    CHECK(hsc_store_get(b, "u7", 2, &u) == HSC_OK && u.revoked_before == 99,
          "b sees it on its next get");
    CHECK_EQ(run_sql(path, "UPDATE hsc_users SET disabled = 1 WHERE username = "
                           "'u8'"),
             0, "another process disables u8");
    CHECK(hsc_store_get(a, "u8", 2, &u) == HSC_OK && u.disabled == 1,
          "a sees it on its next get");
    CHECK_EQ(run_sql(path, "UPDATE hsc_users SET authenticator = "
                           "x'0101010101010101010101010101010101010101010101"
                           "010101010101010101' WHERE username = 'u9'"),
             0, "another process changes u9's password");
    CHECK(hsc_store_get(b, "u9", 2, &u) == HSC_OK && u.authenticator[0] == 1,
          "b sees the new verifier on its next get");
    CHECK_EQ(run_sql(path, "DELETE FROM hsc_users WHERE username = 'u10'"), 0,
             "another process deletes u10");
    CHECK_EQ(hsc_store_get(a, "u10", 3, &u), HSC_ENOUSER,
             "a finds no u10 on its next get");
    CHECK_EQ(hsc_store_revoke(a, "u11", 5), HSC_OK, "a revokes u11 itself");
    CHECK(hsc_store_get(b, "u11", 3, &u) == HSC_OK && u.revoked_before == 5,
          "b sees a's write on its next get");
    hsc_store_close(a);
    hsc_store_close(b);
    hsc_cache_destroy(c);
    unlink(path);
}

/*
 * A flood of cookies for names that do not exist: each costs one lookup,
 * none is kept, and the real users stay in the cache.
 */
static void unknown_names_cost_one_lookup_and_evict_nobody(void)
{
    char path[512], name[32], what[128];
    hsc_cache_t *c = NULL;
    hsc_store_t *s;
    hsc_user_t u;
    unsigned long h0, q0, h1, q1, h2, q2;
    int i, enouser = 0, found = 0;
    unsigned seed = 12345;

    if (!make_db(path, sizeof(path), 1000)) {
        CHECK(0, "database made");
        return;
    }
    /* A cache just big enough for the real users. */
    hsc_cache_create(2048, 0, &c);
    s = open_shared(path, c);
    if (s == NULL) {
        CHECK(0, "handle opened");
        return;
    }
    for (i = 0; i < 1000; i++) {
        snprintf(name, sizeof(name), "u%d", i);
        hsc_store_get(s, name, strlen(name), &u);
    }
    hsc_store_counters(s, &h0, &q0);
    for (i = 0; i < 100000; i++) {
        snprintf(name, sizeof(name), "x%08x%08x", rand_r(&seed), rand_r(&seed));
        enouser += hsc_store_get(s, name, strlen(name), &u) == HSC_ENOUSER;
    }
    hsc_store_counters(s, &h1, &q1);
    CHECK_EQ(enouser, 100000, "100,000 random names: no such user");
    CHECK_EQ(q1 - q0, 100000, "each cost exactly one lookup");
    CHECK_EQ(hsc_cache_count(c), 1000, "none of them was kept");
    for (i = 0; i < 1000; i++) {
        snprintf(name, sizeof(name), "u%d", i);
        found += hsc_store_get(s, name, strlen(name), &u) == HSC_OK;
    }
    hsc_store_counters(s, &h2, &q2);
    snprintf(what, sizeof(what),
             "then all 1,000 real users are hits (%lu hits, %lu lookups)",
             h2 - h1, q2 - q1);
    CHECK(found == 1000 && h2 - h1 == 1000 && q2 == q1, what);
    hsc_store_close(s);
    hsc_cache_destroy(c);
    unlink(path);
}

/*
 * What a child of many threads grows by as it meets more users than its
 * record cache holds: each thread's handle (its own SQLite connection)
 * keeps a page cache of its own, and with a record cache in front that is
 * HSC_SQLITE_PAGE_CACHE_KIB (256 KiB), not SQLite's 2,000 KiB. PAGE_HANDLES
 * threads, one handle each, share one small record cache and look up
 * random users of a table of PAGE_USERS, enough for every page cache to
 * fill: the process's RSS may grow by the record cache's bound, 256 KiB of
 * pages a handle (+25% for SQLite's page headers and malloc's), and 2 MiB.
 * With SQLite's default page cache it grew by about 2 MiB a handle.
 */
#define PAGE_HANDLES 32
#define PAGE_USERS 50000
#define PAGE_LOOKUPS 4000
#define PAGE_CACHE_KIB 256L

typedef struct {
    const char *path;
    hsc_cache_t *cache;
    pthread_barrier_t *opened, *measured, *done;
    unsigned seed;
    int lookups, ok;
} page_arg_t;

static void *page_worker(void *arg)
{
    page_arg_t *a = arg;
    hsc_store_t *s = open_shared(a->path, a->cache);
    hsc_user_t u;
    char name[32];
    int i;

    a->ok = s != NULL && hsc_store_get(s, "u0", 2, &u) == HSC_OK;
    pthread_barrier_wait(a->opened); /* the main thread measures */
    pthread_barrier_wait(a->measured);
    for (i = 0; a->ok && i < a->lookups; i++) {
        snprintf(name, sizeof(name), "u%u", rand_r(&a->seed) % PAGE_USERS);
        a->ok = hsc_store_get(s, name, strlen(name), &u) == HSC_OK
                && strcmp(u.name, name) == 0;
    }
    pthread_barrier_wait(a->done); /* and measures again */
    pthread_barrier_wait(a->measured);
    hsc_store_close(s);
    return NULL;
}

static void many_handles_grow_by_their_bounds_only(void)
{
    char path[512], what[200];
    hsc_cache_t *c = NULL;
    pthread_t th[PAGE_HANDLES];
    page_arg_t args[PAGE_HANDLES];
    pthread_barrier_t opened, measured, done;
    hsc_cache_stats_t st;
    long before, after, allowed;
    int i, ok = 1;
    /* Under valgrind memory is valgrind's and threads run one at a time:
     * a few lookups still check the code, the bound is not measured. */
    int grind = getenv("HSC_UNDER_VALGRIND") != NULL;
    int lookups = grind ? PAGE_LOOKUPS / 40 : PAGE_LOOKUPS;

    if (!make_db(path, sizeof(path), PAGE_USERS)) {
        CHECK(0, "database made");
        return;
    }
    /* Smaller than the users looked up: it fills, and misses go on. */
    CHECK_EQ(hsc_cache_create(16384, 0, &c), HSC_OK, "a 16,384-record cache");
    pthread_barrier_init(&opened, NULL, PAGE_HANDLES + 1);
    pthread_barrier_init(&measured, NULL, PAGE_HANDLES + 1);
    pthread_barrier_init(&done, NULL, PAGE_HANDLES + 1);
    for (i = 0; i < PAGE_HANDLES; i++) {
        args[i] = (page_arg_t){.path = path,
                               .cache = c,
                               .opened = &opened,
                               .measured = &measured,
                               .done = &done,
                               .seed = (unsigned)i * 7919u + 1u,
                               .lookups = lookups};
        pthread_create(&th[i], NULL, page_worker, &args[i]);
    }
    pthread_barrier_wait(&opened);
    before = rss_kib();
    pthread_barrier_wait(&measured);
    pthread_barrier_wait(&done);
    after = rss_kib();
    pthread_barrier_wait(&measured);
    for (i = 0; i < PAGE_HANDLES; i++) {
        pthread_join(th[i], NULL);
        ok &= args[i].ok;
    }
    CHECK(ok, "every lookup of every thread found its user");
    hsc_cache_stats(c, &st);
    snprintf(what, sizeof(what),
             "%llu misses went to SQLite, the cache is full (%zu records)",
             (unsigned long long)st.misses, hsc_cache_count(c));
    if (grind) {
        SKIP(what, "under valgrind, too few lookups to fill it");
    }
    else {
        CHECK(st.misses > PAGE_HANDLES * PAGE_LOOKUPS / 2
                  && hsc_cache_count(c) > hsc_cache_entries(c) * 9 / 10,
              what);
    }
    allowed = (long)(hsc_cache_bytes(c) / 1024)
              + PAGE_HANDLES * PAGE_CACHE_KIB * 5 / 4 + 2048;
    snprintf(what, sizeof(what),
             "%d handles, %d lookups: RSS grew %ld KiB, allowed %ld (cache "
             "%zu KiB + %d x %ld KiB of pages + 25%% + 2 MiB)",
             PAGE_HANDLES, PAGE_HANDLES * PAGE_LOOKUPS, after - before, allowed,
             hsc_cache_bytes(c) / 1024, PAGE_HANDLES, PAGE_CACHE_KIB);
    if (grind) {
        SKIP(what, "valgrind's own memory is in the RSS");
    }
    else if (SANITIZED) {
        /* Redzones and the quarantine of freed blocks (256 MiB) grow with
         * every malloc SQLite makes: not this code's memory. */
        SKIP(what, "AddressSanitizer's quarantine is in the RSS");
    }
    else {
        CHECK(before > 0 && after - before <= allowed, what);
    }
    pthread_barrier_destroy(&opened);
    pthread_barrier_destroy(&measured);
    pthread_barrier_destroy(&done);
    hsc_cache_destroy(c);
    unlink(path);
}

int main(void)
{
    snprintf(dir, sizeof(dir), "%s/hsc-test-cache.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(dir) == NULL) {
        printf("Bail out! no temporary folder\n");
        return 1;
    }
    RUN(put_then_get_returns_the_same_record);
    RUN(records_that_do_not_fit_are_not_kept);
    RUN(seals_are_kept_beside_the_record_only_when_there);
    RUN(a_ticket_taken_before_a_change_cannot_put);
    RUN(a_new_token_empties_the_cache_the_same_keeps_it);
    RUN(clock_keeps_the_records_in_use);
    RUN(the_default_holds_100000_users_within_its_bound);
    RUN(many_threads_never_see_torn_or_stale_records);
    RUN(handles_share_records_and_see_another_process_change);
    RUN(unknown_names_cost_one_lookup_and_evict_nobody);
    RUN(many_handles_grow_by_their_bounds_only);
    {
        char cmd[300];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0) {
            printf("# could not remove %s\n", dir);
        }
    }
    return hsc_test_done();
}
