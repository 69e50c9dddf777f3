/*
 * hsc_token.h: app passwords ("tokens") for API clients, CalDAV, git
 * (docs/app-passwords.md). A token reads
 *
 *     hsc_<id>_<secret>_<check>
 *
 * id: 16 characters of lower-case base32 (10 random bytes), public: the
 * store looks the token up by it and lists it; secret: 52 characters of
 * lower-case base32 (32 random bytes, canonical); check: 8 hex digits, the
 * first 4 bytes of SHA-256 of everything before "_<check>", so that a
 * secret scanner can tell a real token from random text offline, and a
 * mistyped one is refused before any lookup. The regular expression
 * hsc_[a-z2-7]{16}_[a-z2-7]{52}_[0-9a-f]{8} finds them.
 *
 * The store keeps SHA-256 of the 32 secret bytes, never the secret: the
 * table and the key file together give nothing that opens a request. No
 * KDF runs: 256 random bits need none.
 */
#ifndef HSC_TOKEN_H
#define HSC_TOKEN_H

#include <stddef.h>
#include <stdint.h>

#include "hsc_util.h"

#define HSC_TOKEN_PREFIX "hsc_"
#define HSC_TOKEN_ID_LEN 16     /* base32 of 10 bytes */
#define HSC_TOKEN_SECRET_LEN 52 /* base32 of 32 bytes */
#define HSC_TOKEN_CHECK_LEN 8   /* hex of 4 bytes */
#define HSC_TOKEN_TEXT_LEN                                                     \
    (4 + HSC_TOKEN_ID_LEN + 1 + HSC_TOKEN_SECRET_LEN + 1 + HSC_TOKEN_CHECK_LEN)
#define HSC_TOKEN_HASH_LEN 32
/* A token's name (its owner's label: "laptop calendar", "ci"). */
#define HSC_TOKEN_NAME_MAX 64
/* Its scopes: names joined by ',' (as groups are), at most this long. */
#define HSC_TOKEN_SCOPES_MAX 255
/* One scope name: [a-z0-9._:-], 1 to this many characters. */
#define HSC_TOKEN_SCOPE_MAX 32

/** A new token: its text (printed once, NUL-terminated), its id (NUL-
 *  terminated) and the hash to store. HSC_OK or HSC_ECRYPTO. */
hsc_status_t
hsc_token_new(char text[HSC_TOKEN_TEXT_LEN + 1], char id[HSC_TOKEN_ID_LEN + 1],
              unsigned char hash[HSC_TOKEN_HASH_LEN]) HSC_MUST_CHECK;

/**
 * Read a token as a client sent it (len bytes): its id (NUL-terminated)
 * and the hash of its secret. HSC_OK; HSC_EMALFORMED when it is not of
 * the form above (length, alphabet, canonical base32) or its check digits
 * are wrong. Touches nothing else and runs in time independent of where
 * the secret differs.
 */
hsc_status_t
hsc_token_parse(const char *text, size_t len, char id[HSC_TOKEN_ID_LEN + 1],
                unsigned char hash[HSC_TOKEN_HASH_LEN]) HSC_MUST_CHECK;

/** 1 when s (len bytes) looks like a token at all ("hsc_" and the
 *  length): a Basic password that is not one is an account password. */
int hsc_token_shaped(const char *s, size_t len);

/** 1 when id (len bytes) is 16 characters of lower-case base32. */
int hsc_token_id_valid(const char *id, size_t len);

/** 1 when name (len bytes) is a token name: 1 to 64 bytes of printable
 *  ASCII, no leading or trailing space. */
int hsc_token_name_valid(const char *name, size_t len);

/** 1 when scopes is "" or scope names ([a-z0-9._:-]{1,32}) joined by ',',
 *  each once, at most HSC_TOKEN_SCOPES_MAX bytes. */
int hsc_token_scopes_valid(const char *scopes);

/** 1 when scope (len bytes) is one of the token's scopes. */
int hsc_token_has_scope(const char *scopes, const char *scope, size_t len);

/** A token as the store keeps it. */
typedef struct {
    char id[HSC_TOKEN_ID_LEN + 1];
    char user[HSC_USER_MAX + 1];
    char name[HSC_TOKEN_NAME_MAX + 1];
    char scopes[HSC_TOKEN_SCOPES_MAX + 1];
    unsigned char hash[HSC_TOKEN_HASH_LEN];
    int64_t created; /* Unix seconds */
    int64_t expires; /* Unix seconds; 0: never */
    int64_t revoked; /* Unix seconds; 0: not revoked */
} hsc_token_t;

/**
 * May the stored token t open a request at now, for a client whose
 * token hashed to hash? HSC_OK; HSC_EAUTH (another secret: compared in
 * constant time), HSC_EREVOKED, HSC_EEXPIRED.
 */
hsc_status_t hsc_token_check(const hsc_token_t *t,
                             const unsigned char hash[HSC_TOKEN_HASH_LEN],
                             int64_t now) HSC_MUST_CHECK;

#endif /* HSC_TOKEN_H */
