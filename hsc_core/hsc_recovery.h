/*
 * hsc_recovery.h: recovery codes, the second factor of last resort. Each
 * is 60 random bits in Crockford's base32 (no I, L, O, U: nothing to
 * confuse), shown as three groups of four, "7kq2-m9xd-4bfa"; typed in
 * either case, with or without the dashes and spaces, O read as 0 and I or
 * L as 1. The table keeps only SHA-256("hsc-recovery-v1" NUL user NUL
 * code), each row accepted once by an atomic delete (hsc-v2.md).
 */
#ifndef HSC_RECOVERY_H
#define HSC_RECOVERY_H

#include <stddef.h>

#include "hsc_util.h"

/** Characters of a code without its dashes (12 x 5 = 60 bits). */
#define HSC_RECOVERY_CHARS 12
/** Bytes of a code as shown, with its two dashes and a NUL. */
#define HSC_RECOVERY_SHOWN_SIZE (HSC_RECOVERY_CHARS + 3)
/** Codes in a new set unless told otherwise. */
#define HSC_RECOVERY_DEFAULT_COUNT 10
#define HSC_RECOVERY_MAX_COUNT 50
#define HSC_RECOVERY_HASH_LEN 32

/** A new random code as shown ("xxxx-xxxx-xxxx") into out. */
hsc_status_t hsc_recovery_new(char out[HSC_RECOVERY_SHOWN_SIZE]) HSC_MUST_CHECK;

/**
 * A code as typed, in its one canonical form (12 lower-case characters of
 * the alphabet, no dashes) into out (HSC_RECOVERY_CHARS + 1 bytes).
 * HSC_OK or HSC_EMALFORMED (not 12 characters of the alphabet once
 * dashes and spaces are dropped).
 */
hsc_status_t hsc_recovery_normalize(const char *in, size_t len,
                                    char *out) HSC_MUST_CHECK;

/** The stored hash of a canonical code for user. */
hsc_status_t
hsc_recovery_hash(const char *user, const char *canonical,
                  unsigned char out[HSC_RECOVERY_HASH_LEN]) HSC_MUST_CHECK;

/**
 * A new set of n codes for user (n at most HSC_RECOVERY_MAX_COUNT): the
 * codes as shown into codes (for the user, once; wipe them) and their
 * stored hashes into hashes, for hsc_factors_recovery_set().
 */
hsc_status_t hsc_recovery_make(
    const char *user, size_t n, char (*codes)[HSC_RECOVERY_SHOWN_SIZE],
    unsigned char (*hashes)[HSC_RECOVERY_HASH_LEN]) HSC_MUST_CHECK;

#endif /* HSC_RECOVERY_H */
