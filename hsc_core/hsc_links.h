/*
 * hsc_links.h: one-time links that set a credential (hsc-v2.md, "Links
 * that set a credential"): an invitation or a reset sets a password, an
 * enrolment adds an authenticator app. The secret is 32 random bytes,
 * carried in the URL as 43 base64url characters; the database keeps only
 * its SHA-256, so nothing in the key file or the table mints one. The
 * storage is on the factors handle (hsc_factors.h).
 */
#ifndef HSC_LINKS_H
#define HSC_LINKS_H

#include <stddef.h>

#include "hsc_util.h"

#define HSC_LINK_SECRET_LEN 32
#define HSC_LINK_TEXT_LEN 43 /* base64url of 32 bytes, no padding */
#define HSC_LINK_HASH_LEN 32

typedef enum {
    HSC_LINK_INVITE, /* a new user's first password */
    HSC_LINK_RESET,  /* a new password for a user who lost theirs */
    HSC_LINK_ENROL   /* an authenticator app, for a user without one */
} hsc_link_purpose_t;

/* "invite", "reset", "enrol". */
const char *hsc_link_purpose_name(hsc_link_purpose_t p);

/* The purpose named s: HSC_OK, or HSC_EINVAL. */
hsc_status_t hsc_link_purpose_parse(const char *s,
                                    hsc_link_purpose_t *p) HSC_MUST_CHECK;

/* A new link: its text for the URL (NUL-terminated) and the hash to
 * store. HSC_OK or HSC_ECRYPTO. */
hsc_status_t hsc_link_new(char text[HSC_LINK_TEXT_LEN + 1],
                          unsigned char hash[HSC_LINK_HASH_LEN]) HSC_MUST_CHECK;

/* The stored hash of a link's text as it came in the URL: HSC_OK, or
 * HSC_EMALFORMED when it is not 43 characters of canonical base64url. */
hsc_status_t
hsc_link_hash(const char *text, size_t len,
              unsigned char hash[HSC_LINK_HASH_LEN]) HSC_MUST_CHECK;

#endif /* HSC_LINKS_H */
