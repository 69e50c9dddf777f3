/*
 * bench_core.c: what the core costs per request and per login.
 *
 *   make bench/bench_core && bench/bench_core [--users N] [--runs R]
 *                                  [--quick] [--dir DIR] [--sqlite-stats]
 *
 * DIR (default /dev/shm when writable, else $TMPDIR or /tmp) holds the
 * temporary user table.
 *
 * Per request (nanoseconds, median of R runs): the whole cookie verification
 * (parse, key, MAC, time, user lookup in a real SQLite table of N users,
 * SHA-256 of auth against v), its pieces (hsc_cookie_check without the
 * store, hsc_cookie_parse, hsc_key_mac3, a store lookup alone) and minting.
 * Then lookups that miss every cache from 1, 2, 4 and 8 threads at once,
 * each with its own handle as in httpd: gets per second in all. Like
 * mod_hsc, it first turns SQLite's memory statistics off (one process-wide
 * mutex per allocation); --sqlite-stats leaves them on, for comparison.
 * Per login (milliseconds, median of R runs): hsc_password_check for each
 * KDF setting worth comparing, and OpenSSL's PBKDF2-HMAC-SHA256 at
 * 600,000 iterations, OWASP's current guidance, as the reference.
 *
 * The table of N users is built in a fresh temporary directory with the
 * cheap "sha256-chain:1" KDF (only the logins measured use real settings)
 * and removed at exit. Output is Markdown, ready for docs/dev/benchmarks.md.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sqlite3.h>

#include "hsc_b64.h"
#include "hsc_cookie.h"
#include "hsc_kdf.h"
#include "hsc_keys.h"
#include "hsc_keyfile.h"
#include "hsc_password.h"
#include "hsc_store.h"
#include "hsc_store_sqlite.h"
#include "hsc_cache.h"
#include "hsc_defaults.h"
#include "hsc_util.h"

/* Cookies minted up front for randomly chosen users, used round robin. */
#define NCOOKIES 4096
/* Each timed run of a per-request operation lasts about this long. */
#define RUN_NS 150000000.0
#define SCOPE "bench"
#define ADDRESS "127.0.0.1"

typedef struct {
    char value[HSC_COOKIE_VALUE_MAX];
    size_t len;
    unsigned user;
} bench_cookie_t;

static struct {
    unsigned users;
    int runs;
    const char *dir;
    char tmpdir[4096];
    char dbpath[4200];
    apr_pool_t *pool;
    hsc_keyring_t *ring;
    hsc_store_t *store;
    hsc_store_t *nocache; /* the same file, HSC_STORE_NOCACHE */
    hsc_verify_params_t vp;
    bench_cookie_t *cookies;
    unsigned *lookups; /* random user numbers for the store lookups */
    int sqlite_stats;  /* --sqlite-stats: SQLite's memory statistics on */
    int shared_only;   /* --shared-only: the shared cache section alone */
    volatile unsigned sink;
} B;

static void die(const char *what, hsc_status_t st)
{
    fprintf(stderr, "bench_core: %s: %s%s%s\n", what, hsc_strerror(st),
            B.store ? " / " : "", B.store ? hsc_store_errmsg(B.store) : "");
    exit(1);
}

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* A small deterministic generator (xorshift32): same users every run. */
static unsigned rng(void)
{
    static unsigned s = 2463534242u;

    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return (n % 2) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void user_name(unsigned i, char *buf, size_t len)
{
    snprintf(buf, len, "user%06u@example.org", i);
}

static void user_password(unsigned i, char *buf, size_t len)
{
    snprintf(buf, len, "password-%u", i);
}

/* Adds a user with the given KDF, computing x_n here so that a cookie can
 * be minted for it; returns x_n in xn. */
static void add_user(const char *name, const char *pw, const hsc_kdf_t *kdf,
                     unsigned char xn[HSC_XN_LEN])
{
    hsc_user_t u;
    hsc_status_t st;

    memset(&u, 0, sizeof(u));
    u.name = name;
    u.name_len = strlen(name);
    u.kdf = *kdf;
    u.groups = "";
    if ((st = hsc_random(u.salt, sizeof(u.salt))) != HSC_OK) {
        die("random salt", st);
    }
    if ((st = hsc_kdf_derive(kdf, pw, strlen(pw), u.salt, xn)) != HSC_OK) {
        die("derive", st);
    }
    if ((st = hsc_authenticator(xn, u.authenticator)) != HSC_OK) {
        die("authenticator", st);
    }
    if ((st = hsc_store_add(B.store, &u)) != HSC_OK) {
        die("store add", st);
    }
}

/* One operation of a per-request benchmark, on the i-th prepared input. */
typedef void bench_fn(unsigned i);

static void op_verify(unsigned i)
{
    const bench_cookie_t *c = &B.cookies[i % NCOOKIES];
    hsc_cookie_t pc;
    hsc_user_t u;
    hsc_status_t st;

    st = hsc_cookie_verify(&B.vp, B.store, c->value, c->len, &pc, &u);
    if (st != HSC_OK) {
        die("hsc_cookie_verify of a valid cookie", st);
    }
    B.sink += (unsigned)u.name_len;
    hsc_wipe(pc.auth, sizeof(pc.auth));
}

/* One cookie again and again, as one browser's requests (the httpd
 * benchmark's case): through the validated cache, and without it. */
static void verify_one(hsc_store_t *store)
{
    const bench_cookie_t *c = &B.cookies[0];
    hsc_cookie_t pc;
    hsc_user_t u;
    hsc_status_t st;

    st = hsc_cookie_verify(&B.vp, store, c->value, c->len, &pc, &u);
    if (st != HSC_OK) {
        die("hsc_cookie_verify of a valid cookie", st);
    }
    B.sink += (unsigned)u.name_len;
    hsc_wipe(pc.auth, sizeof(pc.auth));
}

static void op_verify_one(unsigned i)
{
    (void)i;
    verify_one(B.store);
}

static void op_verify_one_nocache(unsigned i)
{
    (void)i;
    verify_one(B.nocache);
}

static void op_check(unsigned i)
{
    const bench_cookie_t *c = &B.cookies[i % NCOOKIES];
    hsc_cookie_t pc;
    hsc_status_t st;

    st = hsc_cookie_check(&B.vp, c->value, c->len, &pc);
    if (st != HSC_OK) {
        die("hsc_cookie_check of a valid cookie", st);
    }
    B.sink += (unsigned)pc.user_len;
    hsc_wipe(pc.auth, sizeof(pc.auth));
}

static void op_parse(unsigned i)
{
    const bench_cookie_t *c = &B.cookies[i % NCOOKIES];
    hsc_cookie_t pc;
    hsc_status_t st;

    st = hsc_cookie_parse(c->value, c->len, &pc);
    if (st != HSC_OK) {
        die("hsc_cookie_parse of a valid cookie", st);
    }
    B.sink += (unsigned)pc.user_len;
    hsc_wipe(pc.auth, sizeof(pc.auth));
}

static void op_mac3(unsigned i)
{
    const bench_cookie_t *c = &B.cookies[i % NCOOKIES];
    unsigned char mac[HSC_MAC_LEN];
    hsc_status_t st;

    /* The MAC input of a cookie: the value up to its last '.' (43 + 1
     * characters of MAC follow it), the scope, the address. */
    st = hsc_key_mac3(hsc_keyring_signer(B.ring), c->value,
                      c->len - 1 - HSC_B64URL_LEN(HSC_MAC_LEN), SCOPE,
                      sizeof(SCOPE) - 1, ADDRESS, sizeof(ADDRESS) - 1, mac);
    if (st != HSC_OK) {
        die("hsc_key_mac3", st);
    }
    B.sink += mac[0];
}

static void op_mint(unsigned i)
{
    static const unsigned char xn[HSC_XN_LEN] = {1, 2, 3};
    char name[64], out[HSC_COOKIE_VALUE_MAX];
    size_t outlen;
    hsc_status_t st;

    user_name(B.cookies[i % NCOOKIES].user, name, sizeof(name));
    st = hsc_cookie_mint(hsc_keyring_signer(B.ring), name, strlen(name),
                         B.vp.now, B.vp.now + 3600, xn, SCOPE, ADDRESS, out,
                         sizeof(out), &outlen);
    if (st != HSC_OK) {
        die("hsc_cookie_mint", st);
    }
    B.sink += (unsigned)outlen;
}

static void op_store_get(unsigned i)
{
    char name[64];
    hsc_user_t u;
    hsc_status_t st;

    user_name(B.lookups[i % NCOOKIES], name, sizeof(name));
    st = hsc_store_get(B.store, name, strlen(name), &u);
    if (st != HSC_OK) {
        die("hsc_store_get of an existing user", st);
    }
    B.sink += u.authenticator[0];
}

static void get_one(hsc_store_t *store)
{
    char name[64];
    hsc_user_t u;
    hsc_status_t st;

    user_name(B.lookups[0], name, sizeof(name));
    st = hsc_store_get(store, name, strlen(name), &u);
    if (st != HSC_OK) {
        die("hsc_store_get of an existing user", st);
    }
    B.sink += u.authenticator[0];
}

static void op_store_get_one(unsigned i)
{
    (void)i;
    get_one(B.store);
}

static void op_store_get_one_nocache(unsigned i)
{
    (void)i;
    get_one(B.nocache);
}

static void op_store_get_missing(unsigned i)
{
    char name[64];
    hsc_user_t u;
    hsc_status_t st;

    snprintf(name, sizeof(name), "nobody%u@example.org",
             B.lookups[i % NCOOKIES]);
    st = hsc_store_get(B.store, name, strlen(name), &u);
    if (st != HSC_ENOUSER) {
        die("hsc_store_get of a missing user", st);
    }
    B.sink += 1;
}

/* Calibrates an iteration count for about RUN_NS, then times B.runs runs;
 * prints one table row with the median nanoseconds per operation. */
static void bench_ns(const char *label, bench_fn *fn)
{
    double t0, dt, per[64], med, lo, hi;
    unsigned iters = 16, i;
    int r;

    /* Warm up (caches, prepared statements), then calibrate: double the
     * batch until it takes at least 20 ms. */
    for (i = 0; i < 1024; i++) {
        fn(i);
    }
    for (;;) {
        t0 = now_ns();
        for (i = 0; i < iters; i++) {
            fn(i);
        }
        dt = now_ns() - t0;
        if (dt >= 2e7 || iters >= (1u << 28)) {
            break;
        }
        iters *= 2;
    }
    iters = (unsigned)((double)iters * RUN_NS / (dt > 1 ? dt : 1)) + 1;

    for (r = 0; r < B.runs; r++) {
        t0 = now_ns();
        for (i = 0; i < iters; i++) {
            fn(i);
        }
        per[r] = (now_ns() - t0) / iters;
    }
    med = median(per, B.runs);
    lo = per[0];
    hi = per[B.runs - 1];
    printf("| %-46s | %9.0f | %6.0f - %-6.0f | %d x %u |\n", label, med, lo, hi,
           B.runs, iters);
    fflush(stdout);
}

/* One row of the login table: median, min and max of B.runs times. */
static void print_ms(const char *label, double *per)
{
    double med = median(per, B.runs); /* sorts per */

    printf("| %-34s | %8.1f | %6.1f - %-6.1f | %d |\n", label, med, per[0],
           per[B.runs - 1], B.runs);
    fflush(stdout);
}

/* Times hsc_password_check for one user (runs times, median in ms). */
static void bench_login(const char *label, const char *user, const char *pw,
                        const hsc_kdf_t *dummy, hsc_status_t expect)
{
    double per[64], t0;
    unsigned char xn[HSC_XN_LEN];
    hsc_user_t u;
    hsc_status_t st;
    int r;

    for (r = 0; r < B.runs; r++) {
        t0 = now_ns();
        st = hsc_password_check(B.store, user, strlen(user), pw, strlen(pw),
                                dummy, xn, &u);
        per[r] = (now_ns() - t0) / 1e6;
        if (st != expect) {
            fprintf(stderr, "bench_core: password check for %s: %s\n", label,
                    hsc_strerror(st));
            exit(1);
        }
        hsc_wipe(xn, sizeof(xn));
    }
    print_ms(label, per);
}

static void bench_pbkdf2(unsigned iterations)
{
    static const unsigned char salt[HSC_SALT_LEN] = {0};
    const char *pw = "correct horse battery staple";
    unsigned char out[32];
    double per[64], t0;
    char label[64];
    int r;

    for (r = 0; r < B.runs; r++) {
        t0 = now_ns();
        if (PKCS5_PBKDF2_HMAC(pw, (int)strlen(pw), salt, sizeof(salt),
                              (int)iterations, EVP_sha256(), sizeof(out), out)
            != 1) {
            fprintf(stderr, "bench_core: PKCS5_PBKDF2_HMAC failed\n");
            exit(1);
        }
        per[r] = (now_ns() - t0) / 1e6;
    }
    snprintf(label, sizeof(label), "PBKDF2-HMAC-SHA256 %u (OWASP)", iterations);
    print_ms(label, per);
}

static void cpu_model(char *buf, size_t len)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];

    snprintf(buf, len, "unknown");
    if (f == NULL) {
        return;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        char *colon = strchr(line, ':');

        if (strncmp(line, "model name", 10) == 0 && colon != NULL) {
            snprintf(buf, len, "%s", colon + 2);
            buf[strcspn(buf, "\n")] = '\0';
            break;
        }
    }
    fclose(f);
}

/* The load average, so a reader can tell a busy machine's figures. */
static void print_loadavg(const char *when)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double l1, l5, l15;

    if (f != NULL && fscanf(f, "%lf %lf %lf", &l1, &l5, &l15) == 3) {
        printf("# load average %s: %.2f %.2f %.2f\n", when, l1, l5, l15);
    }
    if (f != NULL) {
        fclose(f);
    }
}

static void remove_store(void)
{
    char p[4300];

    hsc_store_close(B.nocache);
    B.nocache = NULL;
    if (B.store != NULL) {
        hsc_store_close(B.store);
        B.store = NULL;
    }
    if (B.tmpdir[0] == '\0') {
        return;
    }
    unlink(B.dbpath);
    snprintf(p, sizeof(p), "%s-wal", B.dbpath);
    unlink(p);
    snprintf(p, sizeof(p), "%s-shm", B.dbpath);
    unlink(p);
    snprintf(p, sizeof(p), "%s-journal", B.dbpath);
    unlink(p);
    rmdir(B.tmpdir);
}

/* One of the threads of the concurrent lookups: its own NOCACHE handle. */
typedef struct {
    pthread_t tid;
    hsc_store_t *store;
    unsigned next;      /* index into B.lookups */
    unsigned long gets; /* done while the clock ran */
} getter_t;

static int getters_stop;

static void *getter_run(void *v)
{
    getter_t *g = v;
    char name[64];
    hsc_user_t u;

    while (!__atomic_load_n(&getters_stop, __ATOMIC_RELAXED)) {
        user_name(B.lookups[g->next++ % NCOOKIES], name, sizeof(name));
        if (hsc_store_get(g->store, name, strlen(name), &u) != HSC_OK) {
            die("hsc_store_get from a thread", HSC_ESTORE);
        }
        g->gets++;
    }
    return NULL;
}

/* Gets per second from n threads at once, median of B.runs runs. */
static void bench_threads(int n)
{
    getter_t g[8];
    double per[64], t0, dt, med;
    char errbuf[256];
    unsigned long total;
    int r, i;

    for (i = 0; i < n; i++) {
        memset(&g[i], 0, sizeof(g[i]));
        g[i].next = (unsigned)i * (NCOOKIES / 8);
        if (hsc_store_sqlite_open(B.dbpath, HSC_STORE_NOCACHE, &g[i].store,
                                  errbuf, sizeof(errbuf))
            != HSC_OK) {
            fprintf(stderr, "bench_core: open %s: %s\n", B.dbpath, errbuf);
            exit(1);
        }
    }
    for (r = 0; r < B.runs; r++) {
        __atomic_store_n(&getters_stop, 0, __ATOMIC_RELAXED);
        for (i = 0; i < n; i++) {
            g[i].gets = 0;
        }
        t0 = now_ns();
        for (i = 0; i < n; i++) {
            if (pthread_create(&g[i].tid, NULL, getter_run, &g[i]) != 0) {
                fprintf(stderr, "bench_core: pthread_create failed\n");
                exit(1);
            }
        }
        usleep((useconds_t)(RUN_NS / 1000));
        __atomic_store_n(&getters_stop, 1, __ATOMIC_RELAXED);
        total = 0;
        for (i = 0; i < n; i++) {
            pthread_join(g[i].tid, NULL);
            total += g[i].gets;
        }
        dt = now_ns() - t0;
        per[r] = (double)total * 1e9 / dt;
    }
    for (i = 0; i < n; i++) {
        hsc_store_close(g[i].store);
    }
    med = median(per, B.runs); /* sorts per */
    printf("| %7d | %12.0f | %8.0f - %-8.0f |\n", n, med, per[0],
           per[B.runs - 1]);
    fflush(stdout);
}

/* --- the shared record cache from many threads ------------------------ */

#define SHARED_MAX 25

typedef struct {
    pthread_t tid;
    hsc_store_t *store;
    uint32_t rng; /* each thread's own sequence of users */
    unsigned span;
    unsigned long gets;
} sharer_t;

static void *sharer_run(void *v)
{
    sharer_t *g = v;
    char name[64];
    hsc_user_t u;

    while (!__atomic_load_n(&getters_stop, __ATOMIC_RELAXED)) {
        /* Uniform over all span users (not the NCOOKIES lookups of the
         * other sections): with 100,000 users every get meets a record
         * no CPU cache is likely to hold, as a busy site's requests do. */
        g->rng ^= g->rng << 13;
        g->rng ^= g->rng >> 17;
        g->rng ^= g->rng << 5;
        user_name(g->rng % g->span, name, sizeof(name));
        if (hsc_store_get(g->store, name, strlen(name), &u) != HSC_OK) {
            die("hsc_store_get (shared cache)", HSC_ESTORE);
        }
        g->gets++;
    }
    return NULL;
}

/*
 * Gets per second from n threads, each with its own handle, all sharing
 * one cache of the default size striped over `shards` locks (1: one lock
 * for all), over `span` users (warm first, so every get is a hit when the
 * cache holds them). Median of B.runs runs.
 */
static void bench_shared(int n, unsigned shards, unsigned span)
{
    sharer_t g[SHARED_MAX];
    hsc_cache_t *cache = NULL;
    hsc_cache_stats_t cs, cs0;
    double per[64], t0, dt, med;
    char errbuf[256], name[64];
    unsigned long total;
    hsc_user_t u;
    unsigned k;
    int r, i;

    if (hsc_cache_create(HSC_DEFAULT_USER_CACHE_SIZE, shards, &cache)
        != HSC_OK) {
        die("hsc_cache_create", HSC_ENOMEM);
    }
    for (i = 0; i < n; i++) {
        memset(&g[i], 0, sizeof(g[i]));
        g[i].rng = 2463534242u + (uint32_t)i * 7919u;
        g[i].span = span;
        if (hsc_store_sqlite_open(B.dbpath, HSC_STORE_NOCACHE, &g[i].store,
                                  errbuf, sizeof(errbuf))
            != HSC_OK) {
            fprintf(stderr, "bench_core: open %s: %s\n", B.dbpath, errbuf);
            exit(1);
        }
        hsc_store_use_cache(g[i].store, cache);
    }
    for (k = 0; k < span; k++) {
        user_name(k, name, sizeof(name));
        hsc_store_get(g[0].store, name, strlen(name), &u);
    }
    hsc_cache_stats(cache, &cs0);
    for (r = 0; r < B.runs; r++) {
        __atomic_store_n(&getters_stop, 0, __ATOMIC_RELAXED);
        for (i = 0; i < n; i++) {
            g[i].gets = 0;
        }
        t0 = now_ns();
        for (i = 0; i < n; i++) {
            if (pthread_create(&g[i].tid, NULL, sharer_run, &g[i]) != 0) {
                fprintf(stderr, "bench_core: pthread_create failed\n");
                exit(1);
            }
        }
        usleep((useconds_t)(RUN_NS / 1000));
        __atomic_store_n(&getters_stop, 1, __ATOMIC_RELAXED);
        total = 0;
        for (i = 0; i < n; i++) {
            pthread_join(g[i].tid, NULL);
            total += g[i].gets;
        }
        dt = now_ns() - t0;
        per[r] = (double)total * 1e9 / dt;
    }
    hsc_cache_stats(cache, &cs);
    for (i = 0; i < n; i++) {
        hsc_store_close(g[i].store);
    }
    hsc_cache_destroy(cache);
    med = median(per, B.runs);
    cs.hits -= cs0.hits;
    cs.misses -= cs0.misses;
    cs.waits -= cs0.waits;
    if (n == 1) {
        snprintf(name, sizeof(name), "%.0f", 1e9 / med);
    }
    else {
        snprintf(name, sizeof(name), "-");
    }
    printf("| %7d | %6u | %7u | %12.0f | %8.0f - %-8.0f | %8s | %5.1f%% | "
           "%8.1f |\n",
           n, shards, span, med, per[0], per[B.runs - 1], name,
           cs.hits + cs.misses
               ? 100.0 * (double)cs.hits / (double)(cs.hits + cs.misses)
               : 0.0,
           cs.hits + cs.misses
               ? 1e6 * (double)cs.waits / (double)(cs.hits + cs.misses)
               : 0.0);
    fflush(stdout);
}

static void shared_section(void)
{
    printf("\nThe shared record cache from threads at once (hsc_store_get "
           "of random users, a handle per thread, one cache of %u records "
           "shared by all, striped over N locks; 1 lock = a global lock):"
           "\n\n",
           (unsigned)HSC_DEFAULT_USER_CACHE_SIZE);
    printf("| threads | locks | users | gets/s in all | min - max | ns a get "
           "(1 thread) | hits | lock waits per million gets |\n");
    printf("|---:|---:|---:|---:|---|---:|---:|---:|\n");
    /* One thread, 1,000 users against 100,000 (first and last, so a drift
     * of the machine shows as a gap between the two 1,000 rows): the hit
     * path's cost with more users than the CPU caches hold. */
    bench_shared(1, 256, 1000);
    if (B.users >= 100000) {
        bench_shared(1, 256, 100000);
    }
    bench_shared(25, 1, 1000);
    bench_shared(25, 256, 1000);
    if (B.users >= 100000) {
        bench_shared(25, 1, 100000);
        bench_shared(25, 256, 100000);
        bench_shared(1, 256, 100000);
    }
    bench_shared(1, 256, 1000);
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_core [--users N] [--runs R] [--quick] [--dir "
                    "DIR] [--sqlite-stats] [--shared-only]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    static const char *kdfs[] = {
        "sha256-chain:100000", "sha256-chain:600000", "sha256-chain:1200000",
        "scrypt:16384:8:1",    "scrypt:32768:8:3",    "scrypt:65536:8:2",
        "scrypt:131072:8:1",
    };
    char keyline[160], cpu[256], name[64], pw[64], errbuf[256];
    const char *msg = NULL;
    unsigned char xn[HSC_XN_LEN];
    hsc_kdf_t kdf1, k, dummy;
    hsc_status_t st;
    double t0;
    unsigned i;
    int a;
    size_t j;

    B.users = 100000;
    B.runs = 7;
    /* tmpfs by default: adding 100,000 users one transaction each costs
     * 100,000 fsyncs on a disk, and lookups are served from the page cache
     * either way. */
    if (access("/dev/shm", W_OK) == 0) {
        B.dir = "/dev/shm";
    }
    else {
        B.dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    }
    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--users") == 0 && a + 1 < argc) {
            B.users = (unsigned)strtoul(argv[++a], NULL, 10);
        }
        else if (strcmp(argv[a], "--runs") == 0 && a + 1 < argc) {
            B.runs = atoi(argv[++a]);
        }
        else if (strcmp(argv[a], "--quick") == 0) {
            B.users = 10000;
            B.runs = 3;
        }
        else if (strcmp(argv[a], "--dir") == 0 && a + 1 < argc) {
            B.dir = argv[++a];
        }
        else if (strcmp(argv[a], "--sqlite-stats") == 0) {
            B.sqlite_stats = 1;
        }
        else if (strcmp(argv[a], "--shared-only") == 0) {
            B.shared_only = 1;
        }
        else {
            usage();
        }
    }
    if (B.users < 1 || B.runs < 1 || B.runs > 64) {
        usage();
    }

    /* What mod_hsc's pre_config does, before SQLite's first use. */
    if (!B.sqlite_stats && !hsc_store_sqlite_process_init()) {
        fprintf(stderr, "bench_core: SQLite was in use already\n");
        return 1;
    }
    if (apr_initialize() != APR_SUCCESS
        || apr_pool_create(&B.pool, NULL) != APR_SUCCESS) {
        fprintf(stderr, "bench_core: APR initialisation failed\n");
        return 1;
    }
    atexit(remove_store);

    /* A fresh signing key (wiped once parsed). */
    if ((st = hsc_key_generate_line("bench", keyline, sizeof(keyline)))
        != HSC_OK) {
        die("key generation", st);
    }
    st = hsc_keyring_parse(B.pool, "bench", keyline, strlen(keyline), &B.ring,
                           &msg);
    hsc_wipe(keyline, sizeof(keyline));
    if (st != HSC_OK) {
        fprintf(stderr, "bench_core: key ring: %s\n", msg ? msg : "?");
        return 1;
    }

    snprintf(B.tmpdir, sizeof(B.tmpdir), "%s/hsc-bench.XXXXXX", B.dir);
    if (mkdtemp(B.tmpdir) == NULL) {
        fprintf(stderr, "bench_core: mkdtemp %s: %s\n", B.tmpdir,
                strerror(errno));
        B.tmpdir[0] = '\0';
        return 1;
    }
    snprintf(B.dbpath, sizeof(B.dbpath), "%s/users.db", B.tmpdir);
    st = hsc_store_sqlite_open(B.dbpath, HSC_STORE_CREATE, &B.store, errbuf,
                               sizeof(errbuf));
    if (st != HSC_OK) {
        fprintf(stderr, "bench_core: open %s: %s\n", B.dbpath, errbuf);
        return 1;
    }

    cpu_model(cpu, sizeof(cpu));
    printf("# bench_core: %s; %ld CPUs online\n", cpu,
           sysconf(_SC_NPROCESSORS_ONLN));
    printf("# %s, SQLite %s; median of %d runs\n",
           OpenSSL_version(OPENSSL_VERSION), sqlite3_libversion(), B.runs);
    print_loadavg("before");
    fflush(stdout);

    /* The user table: B.users users with the cheap setup KDF. */
    if ((st = hsc_kdf_parse("sha256-chain:1", &kdf1)) != HSC_OK) {
        die("kdf parse", st);
    }
    t0 = now_ns();
    for (i = 0; i < B.users; i++) {
        user_name(i, name, sizeof(name));
        user_password(i, pw, sizeof(pw));
        add_user(name, pw, &kdf1, xn);
    }
    printf("# %u users added one by one (sha256-chain:1) in %.1f s, %s\n\n",
           B.users, (now_ns() - t0) / 1e9, B.dbpath);
    fflush(stdout);

    /* Cookies for random users: x_n recomputed with the user's salt. */
    B.cookies = calloc(NCOOKIES, sizeof(*B.cookies));
    B.lookups = calloc(NCOOKIES, sizeof(*B.lookups));
    if (B.cookies == NULL || B.lookups == NULL) {
        fprintf(stderr, "bench_core: out of memory\n");
        return 1;
    }
    B.vp.keys = B.ring;
    B.vp.scope = SCOPE;
    B.vp.address = ADDRESS;
    B.vp.now = (int64_t)time(NULL);
    B.vp.skew = 60;
    B.vp.max_age = 86400;
    for (i = 0; i < NCOOKIES; i++) {
        hsc_user_t u;
        bench_cookie_t *c = &B.cookies[i];

        c->user = rng() % B.users;
        B.lookups[i] = rng() % B.users;
        user_name(c->user, name, sizeof(name));
        user_password(c->user, pw, sizeof(pw));
        if ((st = hsc_store_get(B.store, name, strlen(name), &u)) != HSC_OK) {
            die("store get", st);
        }
        if ((st = hsc_kdf_derive(&u.kdf, pw, strlen(pw), u.salt, xn))
            != HSC_OK) {
            die("derive", st);
        }
        st = hsc_cookie_mint(hsc_keyring_signer(B.ring), name, strlen(name),
                             B.vp.now - 100, B.vp.now + 3600, xn, SCOPE,
                             ADDRESS, c->value, sizeof(c->value), &c->len);
        if (st != HSC_OK) {
            die("mint", st);
        }
    }
    hsc_wipe(xn, sizeof(xn));
    st = hsc_store_sqlite_open(B.dbpath, HSC_STORE_NOCACHE, &B.nocache, errbuf,
                               sizeof(errbuf));
    if (st != HSC_OK) {
        fprintf(stderr, "bench_core: open %s: %s\n", B.dbpath, errbuf);
        return 1;
    }

    if (B.shared_only) {
        shared_section();
        print_loadavg("after");
        return 0;
    }
    printf("Per request (ns per operation; %u users in SQLite, %d cookies for "
           "random users):\n\n",
           B.users, NCOOKIES);
    printf("| %-46s | %9s | %15s | %s |\n", "operation", "ns/op", "min - max",
           "runs x iterations");
    printf("|%s|%s|%s|%s|\n",
           "------------------------------------------------",
           "----------:", "-----------------", "---");
    bench_ns("hsc_cookie_verify (all six steps, SQLite)", op_verify);
    bench_ns("hsc_cookie_check (steps 1-4, no store)", op_check);
    bench_ns("hsc_cookie_parse (step 1)", op_parse);
    bench_ns("hsc_key_mac3 (the cookie MAC)", op_mac3);
    bench_ns("hsc_store_get (existing user)", op_store_get);
    bench_ns("hsc_store_get (missing user)", op_store_get_missing);
    bench_ns("hsc_cookie_mint", op_mint);
    bench_ns("hsc_cookie_verify (one cookie again, cached)", op_verify_one);
    bench_ns("hsc_cookie_verify (one cookie again, NOCACHE)",
             op_verify_one_nocache);
    bench_ns("hsc_store_get (one user again, cached)", op_store_get_one);
    bench_ns("hsc_store_get (one user again, NOCACHE)",
             op_store_get_one_nocache);
    {
        unsigned long hits, queries;

        hsc_store_counters(B.store, &hits, &queries);
        printf("\n# validated cache %s: %lu gets from the cache, %lu by "
               "query\n",
               hsc_store_sqlite_cached(B.store) ? "on" : "OFF", hits, queries);
    }

    printf("\nLookups from threads at once (hsc_store_get of random users, "
           "NOCACHE, a handle per thread; SQLite memory statistics %s):\n\n",
           B.sqlite_stats ? "ON (--sqlite-stats)" : "off, as in mod_hsc");
    printf("| threads | gets/s in all | min - max |\n");
    printf("|---:|---:|---|\n");
    bench_threads(1);
    bench_threads(2);
    bench_threads(4);
    bench_threads(8);

    shared_section();

    /* One user per KDF setting; the unknown-user row uses the default. */
    printf("\nPer login (ms per hsc_password_check, one user per setting):"
           "\n\n");
    printf("| %-34s | %8s | %15s | %s |\n", "KDF", "ms", "min - max", "runs");
    printf("|%s|%s|%s|%s|\n", "------------------------------------",
           "---------:", "-----------------", "---");
    if ((st = hsc_kdf_parse(HSC_KDF_DEFAULT_SPEC, &dummy)) != HSC_OK) {
        die("default kdf parse", st);
    }
    for (j = 0; j < sizeof(kdfs) / sizeof(kdfs[0]); j++) {
        if ((st = hsc_kdf_parse(kdfs[j], &k)) != HSC_OK) {
            die(kdfs[j], st);
        }
        snprintf(name, sizeof(name), "kdf-%s", kdfs[j]);
        add_user(name, "correct horse battery staple", &k, xn);
        bench_login(kdfs[j], name, "correct horse battery staple", &dummy,
                    HSC_OK);
    }
    hsc_wipe(xn, sizeof(xn));
    bench_login("unknown user (dummy: default)", "no-such-user",
                "correct horse battery staple", &dummy, HSC_ENOUSER);
    bench_pbkdf2(600000);
    printf("\n# default KDF for new users: %s\n", HSC_KDF_DEFAULT_SPEC);
    print_loadavg("after");
    return 0;
}
