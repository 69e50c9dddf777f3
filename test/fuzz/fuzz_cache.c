/*
 * fuzz_cache.c: the shared record cache (hsc_cache.c) driven by a byte
 * string of operations, checked against a model of what it may answer.
 * The cache parses nothing; what is fuzzed is its bookkeeping: tickets,
 * generations, drops, tokens, two-choice sets and CLOCK eviction.
 *
 * Each operation is two bytes: an opcode and an argument. Names are
 * "n0".."n39" plus a few long ones (some too long to keep) in a cache of
 * 64 records (4 sets of 16), so sets overflow all the time.
 *
 * Properties (each aborts when violated):
 *   - a hit returns exactly the last record put for that name since it was
 *     last forgotten (a cache may forget at any time, never make up);
 *   - after a clear, a new token, or a drop of that name, no hit until a
 *     new put;
 *   - a put with a ticket taken before a clear, a new token or any drop is
 *     refused; a put with a fresh ticket of a record that fits is kept;
 *   - the cache never holds more live records than its size.
 */
#include <stdio.h>
#include <string.h>

#include "hsc_fuzz.h"
#include "hsc_cache.h"
#include "hsc_store.h"

#define NAMES 48
#define OPS_MAX 4096

/* The model: for each name, the version it holds (0: none). */
typedef struct {
    unsigned version[NAMES];
} model_t;

static void name_of(unsigned i, char *buf, size_t len)
{
    if (i < 40) {
        snprintf(buf, len, "n%u", i);
    }
    else {
        /* 40..47: long names; from 44 on they do not fit with "g". */
        memset(buf, 'L', 70 + (i - 40) * 2);
        snprintf(buf + 70 + (i - 40) * 2, len - (70 + (i - 40) * 2), "%u", i);
    }
}

/* Seal hashes of version v: v % 6 of them (5 is one too many to keep). */
static unsigned char seal_bytes[5 * 32];

/* 1 when a record of version v may be kept at all. */
static int fits(const hsc_user_t *u, const char *groups)
{
    return hsc_cache_fits(u->name_len, strlen(groups))
           && u->seals_len <= HSC_CACHE_SEAL_BYTES;
}

static void record(hsc_user_t *u, char *name, char *groups, unsigned v)
{
    memset(u, 0, sizeof(*u));
    memset(seal_bytes, (int)((v * 7) & 0xff), sizeof(seal_bytes));
    seal_bytes[0] = (unsigned char)(v >> 16);
    u->seals_len = (size_t)(v % 6) * 32;
    u->seals = u->seals_len > 0 ? seal_bytes : NULL;
    u->name = name;
    u->name_len = strlen(name);
    snprintf(groups, 16, "g%u", v % 10);
    u->groups = groups;
    hsc_kdf_parse("sha256-chain:1", &u->kdf);
    memset(u->salt, (int)(v & 0xff), HSC_SALT_LEN);
    memset(u->authenticator, (int)((v >> 8) & 0xff), HSC_AUTH_LEN);
    u->revoked_before = (int64_t)v;
    u->disabled = (int)(v & 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hsc_cache_t *c = NULL;
    model_t m;
    hsc_cache_ticket_t held;
    int have_held = 0, held_stale = 0;
    unsigned held_name = 0, next_version = 1;
    int token = -1; /* the cache starts with no token */
    size_t i;

    if (hsc_cache_create(64, 4, &c) != HSC_OK) {
        return 0;
    }
    memset(&m, 0, sizeof(m));
    if (size > 2 * OPS_MAX) {
        size = 2 * OPS_MAX;
    }
    for (i = 0; i + 1 < size; i += 2) {
        unsigned op = data[i] % 8, arg = data[i + 1];
        unsigned n = arg % NAMES;
        char name[128], groups[16], text[HSC_CACHE_TEXT];
        unsigned char seals_buf[HSC_CACHE_SEAL_BYTES];
        hsc_cache_ticket_t t;
        hsc_user_t u, got;
        int kept, j;

        name_of(n, name, sizeof(name));
        switch (op) {
        case 0: /* put with a fresh ticket */
        case 1:
            record(&u, name, groups, next_version);
            hsc_cache_ticket(c, &t);
            kept = hsc_cache_put(c, &t, &u);
            HSC_FUZZ_ASSERT(kept == fits(&u, groups));
            if (kept) {
                m.version[n] = next_version;
            }
            next_version++;
            break;
        case 2: /* get */
        case 3:
            if (hsc_cache_get(c, name, strlen(name), &got, text, seals_buf)) {
                HSC_FUZZ_ASSERT(m.version[n] != 0);
                record(&u, name, groups, m.version[n]);
                HSC_FUZZ_ASSERT(
                    got.name_len == u.name_len && strcmp(got.name, name) == 0
                    && strcmp(got.groups, groups) == 0
                    && got.revoked_before == u.revoked_before
                    && got.disabled == u.disabled
                    && memcmp(got.salt, u.salt, HSC_SALT_LEN) == 0
                    && memcmp(got.authenticator, u.authenticator, HSC_AUTH_LEN)
                           == 0
                    && got.seals_len == u.seals_len
                    && (u.seals_len == 0
                            ? got.seals == NULL
                            : memcmp(got.seals, u.seals, u.seals_len) == 0));
            }
            break;
        case 4: /* drop a name */
            hsc_cache_drop(c, name, strlen(name));
            m.version[n] = 0;
            held_stale = 1;
            break;
        case 5: /* clear, or a token: the same one (no change) or new */
            if (arg & 0x80) {
                hsc_cache_clear(c);
                memset(&m, 0, sizeof(m));
                held_stale = 1;
            }
            else {
                unsigned char tok[2] = {'T', 0};

                tok[1] = (unsigned char)(arg & 0x3);
                hsc_cache_sync_token(c, tok, sizeof(tok));
                if ((int)tok[1] != token) {
                    memset(&m, 0, sizeof(m)); /* another token: emptied */
                    held_stale = 1;
                    token = tok[1];
                }
            }
            break;
        case 6: /* take a ticket, to put later */
            hsc_cache_ticket(c, &held);
            have_held = 1;
            held_stale = 0;
            held_name = n;
            break;
        case 7: /* put with the held ticket */
            if (!have_held) {
                break;
            }
            name_of(held_name, name, sizeof(name));
            record(&u, name, groups, next_version);
            kept = hsc_cache_put(c, &held, &u);
            if (held_stale) {
                HSC_FUZZ_ASSERT(kept == 0);
            }
            else {
                HSC_FUZZ_ASSERT(kept == fits(&u, groups));
            }
            if (kept) {
                m.version[held_name] = next_version;
            }
            next_version++;
            break;
        }
        /* A miss is always allowed (eviction); a stale hit never is. */
        for (j = 0; j < NAMES && (i & 63) == 0; j++) {
            name_of((unsigned)j, name, sizeof(name));
            if (hsc_cache_get(c, name, strlen(name), &got, text, seals_buf)) {
                HSC_FUZZ_ASSERT(m.version[j] != 0
                                && got.revoked_before == (int64_t)m.version[j]);
            }
        }
    }
    HSC_FUZZ_ASSERT(hsc_cache_count(c) <= hsc_cache_entries(c));
    hsc_cache_destroy(c);
    return 0;
}
