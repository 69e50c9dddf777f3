/*
 * hsc_totp.h: time-based one-time passwords (RFC 6238, on HOTP, RFC 4226)
 * and the base32 text (RFC 4648) their secrets travel in.
 *
 * What is checked here is the code; the replay rule (a step is accepted
 * once, and never one older than the last accepted, hsc-v2.md) is the
 * store's atomic "last_step < s" update, given the step this returns.
 * Nothing here allocates.
 */
#ifndef HSC_TOTP_H
#define HSC_TOTP_H

#include <stddef.h>
#include <stdint.h>

#include "hsc_util.h"

/** Bytes of a secret we generate (160 bits, RFC 4226's recommendation). */
#define HSC_TOTP_SECRET_LEN 20
/** Longest secret accepted (a SHA-512 block). */
#define HSC_TOTP_SECRET_MAX 64
/** Characters of base32 for n bytes, without padding. */
#define HSC_BASE32_LEN(n) (((n)*8 + 4) / 5)

typedef enum {
    HSC_TOTP_SHA1 = 0, /* the default; what every authenticator app does */
    HSC_TOTP_SHA256,
    HSC_TOTP_SHA512
} hsc_totp_alg_t;

/** An enrolment's parameters (stored with it). */
typedef struct {
    hsc_totp_alg_t alg;
    unsigned digits; /* 6 to 8 */
    unsigned period; /* seconds of a step, 15 to 300 */
} hsc_totp_params_t;

/** RFC 6238's defaults: SHA-1, 6 digits, 30 seconds. */
void hsc_totp_defaults(hsc_totp_params_t *p);

/** 1 when p is within the bounds above. */
int hsc_totp_params_valid(const hsc_totp_params_t *p);

/** "SHA1", "SHA256", "SHA512" (the otpauth URI's names). */
const char *hsc_totp_alg_name(hsc_totp_alg_t alg);

/** The algorithm named (case-insensitive); HSC_OK or HSC_EINVAL. */
hsc_status_t hsc_totp_alg_parse(const char *name,
                                hsc_totp_alg_t *out) HSC_MUST_CHECK;

/**
 * Base32 (RFC 4648 alphabet, upper case, no padding) of len bytes into
 * out (HSC_BASE32_LEN(len) + 1 bytes, NUL-terminated); the length.
 */
size_t hsc_base32_encode(const unsigned char *in, size_t len, char *out);

/**
 * Decode base32 as people and apps write it: either case, '=' padding
 * only at the end, spaces and '-' between groups ignored. The bits left
 * over after the last whole byte must be zero (one encoding per secret).
 * HSC_OK with *outlen; HSC_EMALFORMED; HSC_ETOOLONG over cap.
 */
hsc_status_t hsc_base32_decode(const char *in, size_t len, unsigned char *out,
                               size_t cap, size_t *outlen) HSC_MUST_CHECK;

/** HOTP (RFC 4226) of counter: the code as a number below 10^digits. */
hsc_status_t hsc_hotp(const hsc_totp_params_t *p, const unsigned char *secret,
                      size_t secret_len, uint64_t counter,
                      uint32_t *code) HSC_MUST_CHECK;

/** The step of Unix time t: floor(t / period) (t >= 0). */
int64_t hsc_totp_step(const hsc_totp_params_t *p, int64_t t);

/**
 * A code as typed: exactly p->digits ASCII digits after removing spaces
 * (a code shown as "123 456" may be typed so). HSC_OK with the digits in
 * out (p->digits + 1 bytes, NUL-terminated), else HSC_EMALFORMED.
 */
hsc_status_t hsc_totp_code_parse(const hsc_totp_params_t *p, const char *in,
                                 size_t len, char *out) HSC_MUST_CHECK;

/**
 * Check a code (as hsc_totp_code_parse gives it) at time now against the
 * steps now - window .. now + window (one step of skew each way by
 * default) that are later than last_step; every candidate is computed and
 * compared in constant time, whatever matched. HSC_OK with *step the
 * matching step (the caller stores it as the new last_step, atomically:
 * "UPDATE ... WHERE last_step < step"); HSC_EAUTH when none matches.
 */
hsc_status_t hsc_totp_check(const hsc_totp_params_t *p,
                            const unsigned char *secret, size_t secret_len,
                            const char *code, int64_t now, int window,
                            int64_t last_step, int64_t *step) HSC_MUST_CHECK;

/**
 * The otpauth:// URI that authenticator apps read from a QR code:
 * otpauth://totp/ISSUER:USER?secret=...&issuer=ISSUER&algorithm=...
 * &digits=...&period=..., ISSUER and USER percent-encoded. HSC_OK, or
 * HSC_ETOOLONG when it does not fit in cap bytes with its NUL.
 */
hsc_status_t hsc_totp_uri(const hsc_totp_params_t *p, const char *issuer,
                          const char *user, const unsigned char *secret,
                          size_t secret_len, char *out,
                          size_t cap) HSC_MUST_CHECK;

#endif /* HSC_TOTP_H */
