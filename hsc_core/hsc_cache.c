/*
 * hsc_cache.c: the record cache shared by a process's threads (see
 * hsc_cache.h for the design).
 *
 * Locking: a set is only read or written under its shard's mutex; the
 * mutex's cache line also holds that shard's counters, so a hit writes
 * nothing another shard's thread reads. The generation and the drop count
 * are atomics that change only when the store changes. The token is a
 * seqlock: a reader copies it with relaxed atomic loads between two reads
 * of the sequence; a writer (under tok_lock) makes the sequence odd while
 * it writes.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "hsc_cache.h"
#include "hsc_store.h"

#define LINE 64
#define TOKEN_WORDS (HSC_CACHE_TOKEN_MAX / 8)

/* One kept record: HSC_CACHE_RECORD bytes. */
typedef struct {
    uint64_t gen; /* generation it was stored under */
    uint8_t ref;  /* CLOCK: used since the hand last passed */
    uint8_t name_len;
    uint8_t groups_len;
    uint8_t disabled : 1;
    uint8_t nseals : 7; /* seal hashes in this record's seal slot */
    int32_t user_gen;   /* the user's gen (-1: none); larger is not kept */
    hsc_kdf_t kdf;
    unsigned char salt[HSC_SALT_LEN];
    unsigned char auth[HSC_AUTH_LEN];
    int64_t revoked_before, created, updated;
    char text[HSC_CACHE_TEXT]; /* name NUL groups NUL */
} rec_t;

typedef char rec_size_check[sizeof(rec_t) == HSC_CACHE_RECORD ? 1 : -1];

/* A lock stripe and its counters, alone on its cache lines. */
typedef struct {
    pthread_mutex_t mu;
    uint64_t hits, misses, puts, evictions, refused, waits;
} __attribute__((aligned(LINE))) shard_t;

/* Take a stripe's lock, counting the times another thread held it (the
 * contention figure bench_core prints). */
static void shard_lock(shard_t *sh)
{
    if (pthread_mutex_trylock(&sh->mu) != 0) {
        pthread_mutex_lock(&sh->mu);
        sh->waits++;
    }
}

struct hsc_cache {
    /* Read by every request: kept apart from what writers touch. */
    uint64_t seed;
    size_t nsets;
    unsigned shard_mask;
    shard_t *shards;
    uint32_t *tags; /* nsets * WAYS; 0 = empty */
    uint8_t *hands; /* nsets */
    rec_t *recs;    /* nsets * WAYS */
    size_t map_len; /* one mapping: tags, hands, recs */
    /* The seal slots (nsets * WAYS of HSC_CACHE_SEAL_BYTES), a mapping of
     * their own made at the first put of a record with seals (atomic;
     * under tok_lock): a cache that never meets a passkey user has the
     * size and bound it had before passkeys. */
    unsigned char *seals;
    void *map;
    char pad0[LINE];
    uint64_t gen;    /* atomic */
    uint64_t drops;  /* atomic */
    uint64_t clears; /* atomic */
    char pad1[LINE];
    uint64_t tok_seq;          /* atomic; odd while written */
    uint64_t tok[TOKEN_WORDS]; /* atomic words */
    uint64_t tok_len;          /* atomic */
    pthread_mutex_t tok_lock;
};

/* A seeded 64-bit hash (FNV-1a over the bytes, then a murmur3 finish):
 * the seed is random per cache, so which names share a set cannot be
 * planned from outside. */
static uint64_t name_hash(const hsc_cache_t *c, const char *p, size_t len)
{
    uint64_t h = 14695981039346656037ull ^ c->seed;
    size_t i;

    for (i = 0; i < len; i++) {
        h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

/* The set (from the high half) and the tag (low half, never 0). */
static size_t set_of(const hsc_cache_t *c, uint64_t h)
{
    return (size_t)(((h >> 32) * (uint64_t)c->nsets) >> 32);
}

static uint32_t tag_of(uint64_t h)
{
    uint32_t t = (uint32_t)h;

    return t ? t : 1;
}

static shard_t *shard_of(const hsc_cache_t *c, size_t set)
{
    return &c->shards[set & c->shard_mask];
}

/* The name's second set: another set of the same shard (so one lock
 * covers both), picked by other bits of the hash. Two choices keep the
 * sets evenly filled: at 76% load almost no set overflows, where one
 * choice loses about 2% of the names to full sets. */
static size_t set2_of(const hsc_cache_t *c, size_t set, uint64_t h)
{
    size_t nshards = (size_t)c->shard_mask + 1;
    size_t span = c->nsets / nshards;
    size_t step;

    if (span < 2) {
        return set;
    }
    step = 1 + (size_t)((uint32_t)(h >> 11) % (uint32_t)(span - 1));
    return (set + step * nshards) % c->nsets;
}

static uint64_t load(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static uint64_t random_seed(const void *salt)
{
    uint64_t s = 0;
    struct timespec ts;
    FILE *f = fopen("/dev/urandom", "rb");

    if (f != NULL) {
        if (fread(&s, sizeof(s), 1, f) != 1) {
            s = 0;
        }
        fclose(f);
    }
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return s ^ (uint64_t)(uintptr_t)salt ^ (uint64_t)ts.tv_nsec
           ^ ((uint64_t)getpid() << 32);
}

hsc_status_t hsc_cache_create(size_t entries, unsigned shards, hsc_cache_t **pc)
{
    hsc_cache_t *c;
    size_t nsets, tags_len, hands_len, recs_len, i;
    void *map;

    *pc = NULL;
    if (entries == 0 || entries > HSC_CACHE_MAX_ENTRIES) {
        return HSC_EINVAL;
    }
    nsets = (entries + HSC_CACHE_WAYS - 1) / HSC_CACHE_WAYS;
    if (shards == 0) {
        shards = HSC_CACHE_DEFAULT_SHARDS;
    }
    if ((shards & (shards - 1)) != 0) {
        return HSC_EINVAL;
    }
    /* At least 8 sets a shard, so a name's second set is a real choice. */
    while (shards > 1 && shards * 8 > nsets) {
        shards /= 2;
    }
    /* Whole shards: a name's two sets then share one lock. */
    nsets = (nsets + shards - 1) / shards * shards;
    /* Tags first (one 64-byte line per set), then hands, then records. */
    tags_len = nsets * HSC_CACHE_WAYS * sizeof(uint32_t);
    hands_len = (nsets + LINE - 1) / LINE * LINE;
    recs_len = nsets * HSC_CACHE_WAYS * sizeof(rec_t);
    map = mmap(NULL, tags_len + hands_len + recs_len, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
        return HSC_ENOMEM;
    }
#if defined(PR_SET_VMA) && defined(PR_SET_VMA_ANON_NAME)
    /* Named in /proc/PID/smaps and pmap as [anon:hsc record cache], so an
     * admin (and bench/rss-rows.sh) can tell its pages from the rest of
     * the process; kernels without CONFIG_ANON_VMA_NAME refuse, harmlessly. */
    (void)prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)map,
                tags_len + hands_len + recs_len,
                (unsigned long)"hsc record cache");
#endif
    c = calloc(1, sizeof(*c));
    if (c != NULL) {
        if (posix_memalign((void **)&c->shards, LINE, shards * sizeof(shard_t))
            != 0) {
            c->shards = NULL;
        }
    }
    if (c == NULL || c->shards == NULL) {
        if (c != NULL) {
            free(c);
        }
        munmap(map, tags_len + hands_len + recs_len);
        return HSC_ENOMEM;
    }
    memset(c->shards, 0, shards * sizeof(shard_t));
    for (i = 0; i < shards; i++) {
        pthread_mutex_init(&c->shards[i].mu, NULL);
    }
    pthread_mutex_init(&c->tok_lock, NULL);
    c->map = map;
    c->map_len = tags_len + hands_len + recs_len;
    c->tags = map;
    c->hands = (uint8_t *)map + tags_len;
    c->recs = (rec_t *)(void *)((char *)map + tags_len + hands_len);
    c->nsets = nsets;
    c->shard_mask = shards - 1;
    c->seed = random_seed(c);
    c->gen = 1; /* a zeroed record (gen 0) is never current */
    *pc = c;
    return HSC_OK;
}

/* Bytes of the seal slots' mapping. */
static size_t seals_len(const hsc_cache_t *c)
{
    return c->nsets * HSC_CACHE_WAYS * (size_t)HSC_CACHE_SEAL_BYTES;
}

/* The seal slots, mapped at the first need; NULL when that failed. */
static unsigned char *seals_map(hsc_cache_t *c)
{
    unsigned char *p = __atomic_load_n(&c->seals, __ATOMIC_ACQUIRE);
    void *m;

    if (p != NULL) {
        return p;
    }
    pthread_mutex_lock(&c->tok_lock);
    p = c->seals;
    if (p == NULL) {
        m = mmap(NULL, seals_len(c), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED) {
#if defined(PR_SET_VMA) && defined(PR_SET_VMA_ANON_NAME)
            (void)prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)m,
                        seals_len(c), (unsigned long)"hsc record cache");
#endif
            p = m;
            __atomic_store_n(&c->seals, p, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&c->tok_lock);
    return p;
}

/* The seal slot of record i (set * WAYS + way); only for a record with
 * nseals > 0, which exists only once the slots are mapped. */
static unsigned char *seal_slot(const hsc_cache_t *c, size_t i)
{
    return __atomic_load_n(&c->seals, __ATOMIC_ACQUIRE)
           + i * (size_t)HSC_CACHE_SEAL_BYTES;
}

/* Wipe record i (and its seal slot when it has seals). Under the lock. */
static void wipe_rec(hsc_cache_t *c, size_t i)
{
    if (c->recs[i].nseals > 0) {
        hsc_wipe(seal_slot(c, i), HSC_CACHE_SEAL_BYTES);
    }
    hsc_wipe(&c->recs[i], sizeof(rec_t));
}

void hsc_cache_destroy(hsc_cache_t *c)
{
    size_t i;

    if (c == NULL) {
        return;
    }
    /* Records hold verifiers: wipe the pages that were ever touched
     * before they go back (untouched ones are zero already). */
    for (i = 0; i < c->nsets * HSC_CACHE_WAYS; i++) {
        if (c->tags[i] != 0) {
            wipe_rec(c, i);
        }
    }
    munmap(c->map, c->map_len);
    if (c->seals != NULL) {
        munmap(c->seals, seals_len(c));
    }
    for (i = 0; i <= c->shard_mask; i++) {
        pthread_mutex_destroy(&c->shards[i].mu);
    }
    pthread_mutex_destroy(&c->tok_lock);
    free(c->shards);
    free(c);
}

size_t hsc_cache_entries(const hsc_cache_t *c)
{
    return c != NULL ? c->nsets * HSC_CACHE_WAYS : 0;
}

size_t hsc_cache_bytes(const hsc_cache_t *c)
{
    return c != NULL
               ? c->map_len + sizeof(*c) + (c->shard_mask + 1) * sizeof(shard_t)
                     + (__atomic_load_n(&c->seals, __ATOMIC_ACQUIRE) != NULL
                            ? seals_len(c)
                            : 0)
               : 0;
}

/* --- validity ------------------------------------------------------------ */

void hsc_cache_clear(hsc_cache_t *c)
{
    __atomic_add_fetch(&c->gen, 1, __ATOMIC_ACQ_REL);
    __atomic_add_fetch(&c->clears, 1, __ATOMIC_RELAXED);
}

/* 1 when the cache's token is tok (seqlock read; never writes). */
static int token_is(hsc_cache_t *c, const uint64_t *w, size_t len)
{
    uint64_t s1, s2, mine[TOKEN_WORDS];
    size_t i, n = (len + 7) / 8;
    uint64_t cur_len;

    for (;;) {
        s1 = load(&c->tok_seq);
        if (s1 & 1) {
            sched_yield(); /* a writer is in the middle (a few ns, unless
                            * it was preempted there) */
            continue;
        }
        cur_len = __atomic_load_n(&c->tok_len, __ATOMIC_RELAXED);
        for (i = 0; i < n; i++) {
            mine[i] = __atomic_load_n(&c->tok[i], __ATOMIC_RELAXED);
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        s2 = __atomic_load_n(&c->tok_seq, __ATOMIC_RELAXED);
        if (s1 == s2) {
            break;
        }
    }
    return cur_len == len && memcmp(mine, w, n * 8) == 0;
}

void hsc_cache_sync_token(hsc_cache_t *c, const unsigned char *tok, size_t len)
{
    uint64_t w[TOKEN_WORDS];
    size_t i, n;

    if (len > HSC_CACHE_TOKEN_MAX) {
        hsc_cache_clear(c); /* not a token we can hold: trust nothing */
        return;
    }
    memset(w, 0, sizeof(w));
    memcpy(w, tok, len);
    n = (len + 7) / 8;
    if (token_is(c, w, len)) {
        return;
    }
    pthread_mutex_lock(&c->tok_lock);
    if (!token_is(c, w, len)) {
        /* Empty first: a reader that sees the new token must not find
         * records of the old generation current. */
        hsc_cache_clear(c);
        __atomic_add_fetch(&c->tok_seq, 1, __ATOMIC_ACQ_REL);
        for (i = 0; i < TOKEN_WORDS; i++) {
            __atomic_store_n(&c->tok[i], i < n ? w[i] : 0, __ATOMIC_RELAXED);
        }
        __atomic_store_n(&c->tok_len, len, __ATOMIC_RELAXED);
        __atomic_add_fetch(&c->tok_seq, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&c->tok_lock);
}

void hsc_cache_ticket(hsc_cache_t *c, hsc_cache_ticket_t *t)
{
    t->drops = load(&c->drops);
    t->gen = load(&c->gen);
}

/* The way holding name in set, or -1. Under the shard lock. */
static int find(const hsc_cache_t *c, size_t set, uint32_t tag, uint64_t gen,
                const char *name, size_t len)
{
    const uint32_t *tags = &c->tags[set * HSC_CACHE_WAYS];
    int w;

    for (w = 0; w < HSC_CACHE_WAYS; w++) {
        if (tags[w] == tag) {
            const rec_t *r = &c->recs[set * HSC_CACHE_WAYS + (size_t)w];

            if (r->gen == gen && r->name_len == len
                && memcmp(r->text, name, len) == 0) {
                return w;
            }
        }
    }
    return -1;
}

/* Forget name's record in set, if there. Under the lock. */
static void drop_in(hsc_cache_t *c, size_t set, uint32_t tag, const char *name,
                    size_t len)
{
    uint32_t *tags = &c->tags[set * HSC_CACHE_WAYS];
    int w;

    for (w = 0; w < HSC_CACHE_WAYS; w++) {
        rec_t *r = &c->recs[set * HSC_CACHE_WAYS + (size_t)w];

        if (tags[w] == tag && r->name_len == len
            && memcmp(r->text, name, len) == 0) {
            tags[w] = 0;
            wipe_rec(c, set * HSC_CACHE_WAYS + (size_t)w);
        }
    }
}

void hsc_cache_drop(hsc_cache_t *c, const char *name, size_t len)
{
    uint64_t h = name_hash(c, name, len);
    size_t set = set_of(c, h), set2 = set2_of(c, set, h);
    shard_t *sh = shard_of(c, set);

    /* Counted first: a read that started before the drop cannot put. */
    __atomic_add_fetch(&c->drops, 1, __ATOMIC_ACQ_REL);
    pthread_mutex_lock(&sh->mu);
    drop_in(c, set, tag_of(h), name, len);
    drop_in(c, set2, tag_of(h), name, len);
    pthread_mutex_unlock(&sh->mu);
}

/* --- lookups and puts ---------------------------------------------------- */

int hsc_cache_fits(size_t name_len, size_t groups_len)
{
    return name_len >= 1 && name_len <= 255 && groups_len <= 255
           && name_len + groups_len + 2 <= HSC_CACHE_TEXT;
}

int hsc_cache_get(hsc_cache_t *c, const char *name, size_t len, hsc_user_t *out,
                  char *text, unsigned char *seals)
{
    uint64_t h, gen;
    size_t set;
    shard_t *sh;
    const rec_t *r;
    int w;

    if (len == 0 || len + 2 > HSC_CACHE_TEXT) {
        return 0; /* never kept: no need to look */
    }
    h = name_hash(c, name, len);
    set = set_of(c, h);
    sh = shard_of(c, set);
    gen = load(&c->gen);
    shard_lock(sh);
    w = find(c, set, tag_of(h), gen, name, len);
    if (w < 0) {
        set = set2_of(c, set, h);
        w = find(c, set, tag_of(h), gen, name, len);
    }
    if (w < 0) {
        sh->misses++;
        pthread_mutex_unlock(&sh->mu);
        return 0;
    }
    r = &c->recs[set * HSC_CACHE_WAYS + (size_t)w];
    memcpy(text, r->text, (size_t)r->name_len + 1 + r->groups_len + 1);
    out->name = text;
    out->name_len = r->name_len;
    out->groups = text + r->name_len + 1;
    out->kdf = r->kdf;
    memcpy(out->salt, r->salt, HSC_SALT_LEN);
    memcpy(out->authenticator, r->auth, HSC_AUTH_LEN);
    out->disabled = r->disabled;
    out->revoked_before = r->revoked_before;
    out->gen = r->user_gen;
    out->created = r->created;
    out->updated = r->updated;
    out->seals = NULL;
    out->seals_len = (size_t)r->nseals * 32;
    if (r->nseals > 0) {
        memcpy(seals, seal_slot(c, set * HSC_CACHE_WAYS + (size_t)w),
               out->seals_len);
        out->seals = seals;
    }
    if (!r->ref) {
        ((rec_t *)r)->ref = 1;
    }
    sh->hits++;
    pthread_mutex_unlock(&sh->mu);
    return 1;
}

/* The way of set that holds name (any generation), or -1. */
static int holder(const hsc_cache_t *c, size_t set, uint32_t tag,
                  const char *name, size_t len)
{
    const uint32_t *tags = &c->tags[set * HSC_CACHE_WAYS];
    const rec_t *recs = &c->recs[set * HSC_CACHE_WAYS];
    int w;

    for (w = 0; w < HSC_CACHE_WAYS; w++) {
        if (tags[w] == tag && recs[w].name_len == len
            && memcmp(recs[w].text, name, len) == 0) {
            return w;
        }
    }
    return -1;
}

/* Free (empty or stale) ways of set, and the first of them in *first. */
static int free_ways(const hsc_cache_t *c, size_t set, uint64_t gen, int *first)
{
    const uint32_t *tags = &c->tags[set * HSC_CACHE_WAYS];
    const rec_t *recs = &c->recs[set * HSC_CACHE_WAYS];
    int w, n = 0;

    *first = -1;
    for (w = 0; w < HSC_CACHE_WAYS; w++) {
        if (tags[w] == 0 || recs[w].gen != gen) {
            if (n++ == 0) {
                *first = w;
            }
        }
    }
    return n;
}

/* CLOCK: from the hand on, the first record without its reference bit,
 * clearing bits as the hand passes (two turns at most). */
static int clock_victim(hsc_cache_t *c, size_t set)
{
    rec_t *recs = &c->recs[set * HSC_CACHE_WAYS];
    uint8_t *hand = &c->hands[set];
    int w = 0, i;

    for (i = 0; i < 2 * HSC_CACHE_WAYS; i++) {
        w = *hand;
        *hand = (uint8_t)((w + 1) % HSC_CACHE_WAYS);
        if (!recs[w].ref) {
            break;
        }
        recs[w].ref = 0;
    }
    return w;
}

/*
 * Where to put name: where it is already, else the emptier of its two
 * sets, else a CLOCK victim in one of them (chosen by a hash bit, so
 * evictions spread over both). *pset gets the set. Under the lock.
 */
static int victim(hsc_cache_t *c, uint64_t h, uint64_t gen, const char *name,
                  size_t len, size_t *pset, int *evicted)
{
    size_t a = set_of(c, h), b = set2_of(c, a, h);
    uint32_t tag = tag_of(h);
    int w, fa, fb, na, nb;

    *evicted = 0;
    if ((w = holder(c, a, tag, name, len)) >= 0) {
        *pset = a;
        return w;
    }
    if (b != a && (w = holder(c, b, tag, name, len)) >= 0) {
        *pset = b;
        return w;
    }
    na = free_ways(c, a, gen, &fa);
    nb = b != a ? free_ways(c, b, gen, &fb) : 0;
    if (na > 0 || nb > 0) {
        *pset = na >= nb ? a : b;
        return na >= nb ? fa : fb;
    }
    *evicted = 1;
    *pset = (b != a && (h & 0x400)) ? b : a;
    return clock_victim(c, *pset);
}

int hsc_cache_put(hsc_cache_t *c, const hsc_cache_ticket_t *t,
                  const hsc_user_t *u)
{
    size_t glen = u->groups != NULL ? strlen(u->groups) : 0;
    uint64_t h;
    size_t set;
    shard_t *sh;
    rec_t *r;
    int w, evicted;

    if (!hsc_cache_fits(u->name_len, glen) || u->gen < -1 || u->gen > INT32_MAX
        || u->seals_len % 32 != 0 || u->seals_len > HSC_CACHE_SEAL_BYTES
        || (u->seals_len > 0 && (u->seals == NULL || seals_map(c) == NULL))) {
        return 0; /* read through every time */
    }
    h = name_hash(c, u->name, u->name_len);
    sh = shard_of(c, set_of(c, h));
    shard_lock(sh);
    /* Under the lock: a drop of this name takes it after counting, so
     * either we see its count here or it removes what we store. */
    if (load(&c->gen) != t->gen || load(&c->drops) != t->drops) {
        sh->refused++;
        pthread_mutex_unlock(&sh->mu);
        return 0;
    }
    w = victim(c, h, t->gen, u->name, u->name_len, &set, &evicted);
    r = &c->recs[set * HSC_CACHE_WAYS + (size_t)w];
    wipe_rec(c, set * HSC_CACHE_WAYS + (size_t)w);
    r->gen = t->gen;
    r->ref = 0; /* earns its bit on the first hit */
    r->name_len = (uint8_t)u->name_len;
    r->groups_len = (uint8_t)glen;
    r->disabled = u->disabled ? 1 : 0;
    r->kdf = u->kdf;
    memcpy(r->salt, u->salt, HSC_SALT_LEN);
    memcpy(r->auth, u->authenticator, HSC_AUTH_LEN);
    r->revoked_before = u->revoked_before;
    r->user_gen = (int32_t)u->gen;
    r->created = u->created;
    r->updated = u->updated;
    memcpy(r->text, u->name, u->name_len);
    r->text[u->name_len] = '\0';
    memcpy(r->text + u->name_len + 1, u->groups ? u->groups : "", glen + 1);
    r->nseals = (uint8_t)(u->seals_len / 32);
    if (u->seals_len > 0) {
        memcpy(seal_slot(c, set * HSC_CACHE_WAYS + (size_t)w), u->seals,
               u->seals_len);
    }
    c->tags[set * HSC_CACHE_WAYS + (size_t)w] = tag_of(h);
    sh->puts++;
    sh->evictions += (uint64_t)evicted;
    pthread_mutex_unlock(&sh->mu);
    return 1;
}

void hsc_cache_stats(hsc_cache_t *c, hsc_cache_stats_t *st)
{
    unsigned i;

    memset(st, 0, sizeof(*st));
    for (i = 0; i <= c->shard_mask; i++) {
        shard_t *sh = &c->shards[i];

        pthread_mutex_lock(&sh->mu);
        st->hits += sh->hits;
        st->misses += sh->misses;
        st->puts += sh->puts;
        st->evictions += sh->evictions;
        st->refused += sh->refused;
        st->waits += sh->waits;
        pthread_mutex_unlock(&sh->mu);
    }
    st->clears = __atomic_load_n(&c->clears, __ATOMIC_RELAXED);
    st->entries = hsc_cache_entries(c);
    st->bytes = hsc_cache_bytes(c);
}

size_t hsc_cache_count(hsc_cache_t *c)
{
    uint64_t gen = load(&c->gen);
    size_t set, n = 0;
    int w;

    for (set = 0; set < c->nsets; set++) {
        shard_t *sh = shard_of(c, set);

        pthread_mutex_lock(&sh->mu);
        for (w = 0; w < HSC_CACHE_WAYS; w++) {
            if (c->tags[set * HSC_CACHE_WAYS + (size_t)w] != 0
                && c->recs[set * HSC_CACHE_WAYS + (size_t)w].gen == gen) {
                n++;
            }
        }
        pthread_mutex_unlock(&sh->mu);
    }
    return n;
}
