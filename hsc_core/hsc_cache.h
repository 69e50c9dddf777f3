/*
 * hsc_cache.h: a record cache shared by every thread of a process.
 *
 * Keyed by username, it keeps what verifying a cookie needs (v = SHA-256
 * of x_n, salt, KDF, groups, disabled, revoked_before, gen, the passkeys'
 * seal hashes; created and updated so a hit is the whole record). It knows
 * nothing of any store: whether a kept record may be trusted is decided by the
 * store's validation rule (hsc_store_backend.h), which the store wrapper feeds
 * in through hsc_cache_sync_token(), hsc_cache_clear() and hsc_cache_drop().
 *
 * Layout: a fixed array of sets of HSC_CACHE_WAYS records, one set per
 * name (a seeded 64-bit hash picks it), with a CLOCK reference bit per
 * record and a hand per set: a hit only sets its record's bit; an insert
 * into a full set sweeps at most two turns of that set. Sets are striped
 * over `shards` mutexes (each on its own cache line), so no lock is shared
 * by all threads on the hit path; the only process-wide state read per
 * request is the validation token, behind a seqlock that readers never
 * write. Memory is one anonymous mapping reserved at create time: the
 * kernel backs pages as records land, so a child's RSS grows with the
 * records it holds and never beyond hsc_cache_bytes().
 *
 * Validity is by generation: every record carries the generation it was
 * stored under, and only records of the current one are returned. Emptying
 * the cache (hsc_cache_clear, or a new token) is one atomic increment.
 * A record read from the store is stored only with a ticket taken before
 * the read: if the generation moved or any name was dropped since, the
 * put is refused, so a record read before a change can never outlive it.
 *
 * Negative answers (no such user) are never kept, so unknown names cannot
 * push real users out; a record whose name and group list do not fit in
 * HSC_CACHE_TEXT bytes is never kept either (read through every time),
 * nor one with more than HSC_CACHE_SEALS seal hashes, nor one whose gen
 * is above INT32_MAX (two billion revocations).
 */
#ifndef HSC_CACHE_H
#define HSC_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "hsc_util.h"
#include "hsc_kdf.h"

struct hsc_user_s;

typedef struct hsc_cache hsc_cache_t;

/* Records per set. */
#define HSC_CACHE_WAYS 16
/* Bytes of name + NUL + groups + NUL a kept record may have. */
#define HSC_CACHE_TEXT 80
/* Bytes one record takes (fixed; the bound is entries x this + tags). */
#define HSC_CACHE_RECORD 192
/* Seal hashes (passkeys' SHA-256(z), 32 bytes each) a kept record may
 * have. They live in a slot of HSC_CACHE_SEAL_BYTES per record in a
 * mapping of their own, made when the first record with seals is kept
 * (hsc_cache_bytes() then counts it): a cache that never meets a passkey
 * user is as large as before, and its records as fast. A user with more
 * seals is read through every time, as a long group list is. */
#define HSC_CACHE_SEALS 4
#define HSC_CACHE_SEAL_BYTES (HSC_CACHE_SEALS * 32)
/* The default size is HSC_DEFAULT_USER_CACHE_SIZE (hsc_defaults.h):
 * 131,072 records hold 100,000 users (a set overflows rarely at 76% load)
 * in 24.5 MiB. */
/* Largest size accepted (about 3 GiB). */
#define HSC_CACHE_MAX_ENTRIES (16u * 1024u * 1024u)
/* Lock stripes by default (a power of two). */
#define HSC_CACHE_DEFAULT_SHARDS 256
/* Longest validation token (bytes). */
#define HSC_CACHE_TOKEN_MAX 64

/**
 * Create a cache of `entries` records (rounded up to whole sets; at least
 * one set) whose sets are striped over `shards` locks (a power of two, at
 * most the number of sets; 0 = the default). Returns HSC_OK, HSC_EINVAL
 * (entries 0 or over HSC_CACHE_MAX_ENTRIES) or HSC_ENOMEM; *pc is NULL on
 * failure. Safe to share between threads from then on.
 */
hsc_status_t hsc_cache_create(size_t entries, unsigned shards,
                              hsc_cache_t **pc);
/** Free the cache (wiping its records). No thread may use it any more. */
void hsc_cache_destroy(hsc_cache_t *c);

/** Records it holds at most. */
size_t hsc_cache_entries(const hsc_cache_t *c);
/** Bytes it may take at most (records, tags, hands, locks). */
size_t hsc_cache_bytes(const hsc_cache_t *c);

/* Taken before a read from the store; a put with it is refused when the
 * cache was emptied or a name dropped since. */
typedef struct {
    uint64_t gen;
    uint64_t drops;
} hsc_cache_ticket_t;

/**
 * Snapshot rule: tok (len bytes, at most HSC_CACHE_TOKEN_MAX) names the
 * store's state now. When it differs from the token the cache holds, the
 * cache is emptied and tok becomes its token. Lock-free when unchanged.
 */
void hsc_cache_sync_token(hsc_cache_t *c, const unsigned char *tok, size_t len);
/** Forget every record (one atomic increment). */
void hsc_cache_clear(hsc_cache_t *c);
/** Forget one name's record, if kept. */
void hsc_cache_drop(hsc_cache_t *c, const char *name, size_t len);

/** The ticket for a read from the store that starts now. */
void hsc_cache_ticket(hsc_cache_t *c, hsc_cache_ticket_t *t);

/**
 * Look name up. On a hit: 1, *out filled, with out->name and out->groups
 * pointing into text (HSC_CACHE_TEXT bytes the caller owns) and
 * out->seals into seals (HSC_CACHE_SEAL_BYTES bytes the caller owns; NULL
 * when the record has none). On a miss: 0 and *out untouched.
 */
int hsc_cache_get(hsc_cache_t *c, const char *name, size_t len,
                  struct hsc_user_s *out, char *text, unsigned char *seals);

/**
 * Keep u (as just read from the store) unless the ticket is stale or the
 * record does not fit (hsc_cache_fits, and at most HSC_CACHE_SEALS seal
 * hashes). Returns 1 when kept.
 */
int hsc_cache_put(hsc_cache_t *c, const hsc_cache_ticket_t *t,
                  const struct hsc_user_s *u);

/** 1 when a record with this name and group list can be kept at all. */
int hsc_cache_fits(size_t name_len, size_t groups_len);

typedef struct {
    uint64_t hits;      /* gets answered */
    uint64_t misses;    /* gets not answered */
    uint64_t puts;      /* records stored */
    uint64_t evictions; /* live records pushed out by a put */
    uint64_t refused;   /* puts refused for a stale ticket */
    uint64_t clears;    /* times emptied (new token or clear) */
    uint64_t waits;     /* gets and puts that found their lock taken */
    size_t entries;     /* capacity, records */
    size_t bytes;       /* the bound, as hsc_cache_bytes() */
} hsc_cache_stats_t;

/** Counters summed over the shards (each read under its lock). */
void hsc_cache_stats(hsc_cache_t *c, hsc_cache_stats_t *st);

/** Live records of the current generation (walks every set: slow). */
size_t hsc_cache_count(hsc_cache_t *c);

#endif /* HSC_CACHE_H */
