/*
 * hsc_util.h: the project's error space and small helpers shared by the
 * whole core (constant-time compare, wiping, canonical decimal, usernames).
 *
 * Nothing below hsc_core/ includes an httpd header; APR, OpenSSL and SQLite
 * are allowed.
 */
#ifndef HSC_UTIL_H
#define HSC_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Sizes fixed by the spec (hsc-v1.md). */
#define HSC_SALT_LEN 16       /* bytes of salt per user */
#define HSC_XN_LEN 32         /* bytes of x_n, the cookie's auth field */
#define HSC_AUTH_LEN 32       /* bytes of v = SHA-256(x_n) */
#define HSC_MAC_LEN 32        /* bytes of HMAC-SHA256 */
#define HSC_USER_MAX 255      /* bytes of a username */
#define HSC_KID_MAX 32        /* characters of a key id */
#define HSC_PASSWORD_MAX 1024 /* bytes; longer passwords are refused */
#define HSC_COOKIE_MAX 4096   /* bytes of a cookie value */
#define HSC_SECRET_MIN 32     /* bytes of a key file secret */

/* A status-returning function whose result must be looked at (GCC, clang):
 * an ignored refusal is an accepted forgery. The core, the module and
 * hsc-admin build with it (-Werror); the tests, fuzz targets and benchmarks
 * define it empty (Makefile.am), since they call for effects on purpose. */
#ifndef HSC_MUST_CHECK
#if defined(__GNUC__) || defined(__clang__)
#define HSC_MUST_CHECK __attribute__((warn_unused_result))
#else
#define HSC_MUST_CHECK
#endif
#endif

/**
 * Every status the core returns. HSC_OK is zero; everything else is a
 * refusal or a fault. The reason goes to the server log; the client sees
 * one uniform outcome.
 */
typedef enum {
    HSC_OK = 0,
    HSC_EMALFORMED, /* syntax: field count, alphabet, length, canonical form */
    HSC_ETOOLONG,   /* input over its size limit (cookie, password, ...) */
    HSC_ENOKEY,     /* the cookie's key id is not in the key file */
    HSC_EBADMAC,    /* MAC mismatch */
    HSC_EEXPIRED,   /* exp <= now */
    HSC_EFUTURE,    /* iat > now + skew */
    HSC_EMAXAGE,    /* now >= iat + max age */
    HSC_ENOUSER,    /* no such user */
    HSC_EDISABLED,  /* user disabled */
    HSC_EREVOKED,   /* iat < revoked_before */
    HSC_EAUTH,      /* SHA-256(auth) != v, or wrong password */
    HSC_ESTORE, /* the user store failed (I/O, corrupt, locked): fail closed */
    HSC_EREADONLY, /* the user store cannot be written */
    HSC_EEXISTS,   /* the user already exists */
    HSC_EINVAL,    /* invalid argument (bad username, bad KDF spec, ...) */
    HSC_ECRYPTO,   /* OpenSSL failed */
    HSC_EIO,       /* file missing, unreadable, ... */
    HSC_ENOMEM,    /* allocation failed */
    HSC_EKDFLIMIT, /* a stored KDF above the ceilings: never run */
    HSC_EPENDING,  /* a pending cookie (second factor due) off its step */
    HSC_EOLDFORMAT /* a format 1 cookie where HSCCookieFormat1 is off */
} hsc_status_t;

/** A short, static, lower-case description of a status, for logs. */
const char *hsc_strerror(hsc_status_t st);

/**
 * What a status means for the caller, in one place (a new status is one
 * line in hsc_status_class):
 *   HSC_CLASS_OK       HSC_OK
 *   HSC_CLASS_REFUSAL  an ordinary end: expired, past its max age, no such
 *                      or disabled or revoked user, wrong password
 *   HSC_CLASS_FORGERY  input nobody honest sends: malformed, too long, an
 *                      unknown key, a bad MAC, issued in the future
 *   HSC_CLASS_FAULT    the server cannot answer: store, crypto, I/O,
 *                      memory (fail closed; retry later)
 * The glue maps a class to a log level and an HTTP status
 * (hsc_status_outcome), hsc-admin to its exit code.
 */
typedef enum {
    HSC_CLASS_OK = 0,
    HSC_CLASS_REFUSAL,
    HSC_CLASS_FORGERY,
    HSC_CLASS_FAULT
} hsc_class_t;

hsc_class_t hsc_status_class(hsc_status_t st);

/**
 * Compare two secrets of the same length in constant time.
 * Returns 1 when equal, 0 when different (note: the opposite sense of
 * memcmp and CRYPTO_memcmp).
 */
int hsc_ct_equal(const void *a, const void *b, size_t len) HSC_MUST_CHECK;

/** Overwrite a secret in memory so that the compiler cannot skip it. */
void hsc_wipe(void *p, size_t len);

/**
 * Parse canonical decimal Unix seconds: 1..19 digits, no sign, no leading
 * zero (except "0" itself), no spaces, no overflow of int64_t.
 * Returns HSC_OK and sets *out, else HSC_EMALFORMED and *out = 0.
 */
hsc_status_t hsc_parse_time(const char *s, size_t len,
                            int64_t *out) HSC_MUST_CHECK;

/**
 * Write t (>= 0) in canonical decimal into buf (at least 21 bytes);
 * returns the length written, without the terminating NUL.
 */
size_t hsc_format_time(int64_t t, char *buf);

/**
 * A valid username: 1..255 bytes of well-formed UTF-8 (no overlong forms,
 * no surrogates) with no control characters (C0, DEL, C1).
 * Returns 1 when valid.
 */
int hsc_username_valid(const char *u, size_t len);

/**
 * 1 when a valid username holds a character that changes how text around
 * it is shown without being seen itself: the bidirectional controls
 * (U+061C, U+200E-200F, U+202A-202E, U+2066-2069) and the invisible or
 * zero-width ones (U+00AD, U+180E, U+200B-200D, U+2060-2064, U+FEFF).
 * "alice\u202Egnp.exe" shows as another name in a list or a log: hsc-admin
 * add refuses such names, and list shows them escaped.
 */
int hsc_username_has_invisible(const char *u, size_t len);

/**
 * Write u (a valid username) to out with every character that
 * hsc_username_has_invisible names, and the backslash, as \u{XXXX}
 * (backslash as \u{5C}); NUL-terminated. out needs 8 * len + 1 bytes at
 * most. Returns the length written.
 */
size_t hsc_username_escape(const char *u, size_t len, char *out);

/**
 * A valid group name: 1..255 bytes, printable ASCII or UTF-8 without
 * controls, and no ',' or white space (groups are listed comma-separated
 * in the store and space-separated in Require lines). Returns 1 when valid.
 */
int hsc_groupname_valid(const char *g, size_t len);

/**
 * Fill buf with len bytes from the CSPRNG (OpenSSL RAND_bytes).
 * Returns HSC_OK or HSC_ECRYPTO.
 */
hsc_status_t hsc_random(void *buf, size_t len) HSC_MUST_CHECK;

#endif /* HSC_UTIL_H */
