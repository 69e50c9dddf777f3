/*
 * hsc_throttle.h: the counting behind login throttling, without httpd: the
 * cache key of a counter, its value as stored, and the window rule.
 * mod_hsc_throttle.c keeps the counters in an httpd socache, under a lock,
 * or (HSCThrottleCache memcache-exact:) as memcached counters raised with
 * its atomic incr: the hsc_throttle_exact_* calls below.
 *
 * A counter is a fixed window that starts at its first counted attempt:
 * within `window` seconds of `start` it holds `count` attempts; after that
 * it is forgotten and starts again. A `start` in the future (another
 * server's clock runs ahead) keeps its count, with the window moved to
 * start now: a skewed clock must not wipe the other servers' counts.
 */
#ifndef HSC_THROTTLE_H
#define HSC_THROTTLE_H

#include <stddef.h>
#include <stdint.h>

#include "hsc_util.h"

/* Bytes of SHA-256 in a key, and the key's length with its NUL:
 * spread tag ':' 32 hex digits. */
#define HSC_THROTTLE_HASH_LEN 16
#define HSC_THROTTLE_KEY_LEN (3 + 2 * HSC_THROTTLE_HASH_LEN + 1)
/* The longest address value hsc_throttle_address() writes, with its NUL. */
#define HSC_THROTTLE_ADDR_MAX 64
/* "<start> <count>": at most 20 + 1 + 10 digits and a NUL. */
#define HSC_THROTTLE_VALUE_MAX 40

typedef struct {
    int64_t start;  /* first counted attempt, seconds */
    uint32_t count; /* attempts counted since */
} hsc_counter_t;

/**
 * key = spread tag ":" hex(H[0..15]), H = SHA-256(scope NUL value): short
 * and bounded whatever the value (usernames reach 255 bytes), and safe for
 * any cache (printable, no spaces). spread is one of the 64 consecutive
 * characters '?' (0x3f) to '~' (0x7e), taken from H: shmcb picks a
 * subcache by the key's first byte (its low bits), so every counter kind
 * spreads evenly over 64 subcaches instead of crowding into the one its
 * tag would pick, where a few hundred other keys evicted a lockout.
 * HSC_OK, or HSC_ECRYPTO with key "".
 */
hsc_status_t hsc_throttle_key(char tag, const char *scope, const char *value,
                              size_t value_len,
                              char key[HSC_THROTTLE_KEY_LEN]) HSC_MUST_CHECK;

/**
 * The value an address is counted under: an IPv4 address as it is, an IPv6
 * address as its /64 ("2001:db8:1:2::/64"; one /64 is one client, which
 * can pick any of its 2^64 addresses), an IPv4-mapped IPv6 address as its
 * IPv4 address. Anything that does not parse is used as it is (truncated
 * to fit). Writes a NUL-terminated string to out.
 */
void hsc_throttle_address(const char *ip, char out[HSC_THROTTLE_ADDR_MAX]);

/**
 * A stored value (len bytes, no NUL needed) read at time now: HSC_OK and
 * *c, which is a fresh counter (start now, count 0) when value is NULL
 * (absent) or past its window; a start in the future is moved to now with
 * its count kept (another server's clock runs ahead). HSC_EMALFORMED, with a
 * fresh *c, for anything but two canonical decimals "<start> <count>"
 * with count <= max.
 */
hsc_status_t hsc_counter_decode(const char *value, size_t len, int64_t now,
                                int64_t window, uint32_t max,
                                hsc_counter_t *c) HSC_MUST_CHECK;

/** Writes "<start> <count>" and its NUL; returns its length without. */
size_t hsc_counter_encode(const hsc_counter_t *c,
                          char buf[HSC_THROTTLE_VALUE_MAX]);

/**
 * Seconds until c's window ends when it holds limit attempts or more (the
 * next attempt must wait), else 0. A limit of 0 or less never waits.
 */
int64_t hsc_counter_wait(const hsc_counter_t *c, int limit, int64_t now,
                         int64_t window);

/*
 * The exact mode (docs/throttling.md): a counter is a memcached item
 * holding the count alone, made by `add` with the window as its expiry and
 * raised by `incr`, which memcached applies atomically, so the value incr
 * returns decides. Beside it an item holds the window's start ("<start>",
 * a decimal) for Retry-After; it is only read when a login is refused.
 */

/* The longest memcached key hsc_throttle_exact_key() writes, with its NUL
 * ("hsc:" key ":t"); memcached allows 250 bytes. */
#define HSC_THROTTLE_EXACT_KEY_MAX (4 + HSC_THROTTLE_KEY_LEN + 2)
/* memcached reads an expiry above 30 days as a Unix time. */
#define HSC_THROTTLE_MC_RELATIVE_MAX ((int64_t)30 * 86400)

/**
 * The memcached key of a counter (start 0: "hsc:" key) or of its window's
 * start (start 1: "hsc:" key ":t"). key is hsc_throttle_key()'s: printable,
 * no spaces, so the result is a valid memcached key. HSC_OK, or
 * HSC_EINVAL with out "" for a key that is not one of those.
 */
hsc_status_t
hsc_throttle_exact_key(const char *key, int start,
                       char out[HSC_THROTTLE_EXACT_KEY_MAX]) HSC_MUST_CHECK;

/**
 * memcached's expiry for an item that lives `window` seconds from now:
 * the seconds themselves up to 30 days, else now + window as a Unix time
 * (memcached's rule); at least 1.
 */
uint32_t hsc_throttle_exact_expiry(int64_t window, int64_t now);

/**
 * Seconds a login over an exact counter's limit waits, from the window's
 * start stored beside the counter (len bytes, no NUL needed): start +
 * window - now, kept within 1 .. window (a skewed clock never gives 0 or
 * more than a window); the whole window when the start is absent (NULL)
 * or not a canonical decimal.
 */
int64_t hsc_throttle_exact_wait(const char *start, size_t len, int64_t now,
                                int64_t window);

/* What memcached answered to one command of the text protocol. */
typedef enum {
    HSC_MC_MORE = 0,   /* incomplete: read more */
    HSC_MC_NUMBER,     /* incr/decr: "<n>", in *number */
    HSC_MC_STORED,     /* add/set */
    HSC_MC_NOT_STORED, /* add: the item exists */
    HSC_MC_NOT_FOUND,  /* incr/decr/delete: no such item */
    HSC_MC_DELETED,    /* delete */
    HSC_MC_VALUE,      /* get: one item, in *data and *dlen */
    HSC_MC_END,        /* get: no item */
    HSC_MC_ERROR       /* ERROR, CLIENT_ERROR, SERVER_ERROR or garbage */
} hsc_mc_reply_t;

/* The longest reply hsc_mc_reply() reads (a get's value included). */
#define HSC_MC_REPLY_MAX 512

/**
 * Reads one reply of memcached's text protocol from buf[0..len): the
 * answer to incr, decr, add, set, delete or a one-key get. HSC_MC_MORE
 * while the reply is not whole (a reply longer than HSC_MC_REPLY_MAX is
 * HSC_MC_ERROR); *used is then the bytes it took (bytes after it are
 * not memcached's answer to us and make the connection unusable). A
 * number is canonical decimal below 2^64; a get's value is checked
 * against its length and its "\r\nEND\r\n".
 */
hsc_mc_reply_t hsc_mc_reply(const char *buf, size_t len, size_t *used,
                            uint64_t *number, const char **data, size_t *dlen);

/**
 * Which of n servers (n >= 1) holds key: a hash of the key, the same on
 * every node.
 */
unsigned hsc_mc_server_of(const char *key, unsigned n);

#endif /* HSC_THROTTLE_H */
