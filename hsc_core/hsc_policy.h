/*
 * hsc_policy.h: which new passwords are acceptable (NIST SP 800-63B-4,
 * section 3.1.1.2): a minimum length in characters, at least 64 allowed
 * (HSC_POLICY_MAX_BYTES bytes, the login form's limit), any Unicode, no
 * composition rules, and neither a listed common password (a blocklist
 * file) nor the username. The account page and hsc-admin apply it alike.
 */
#ifndef HSC_POLICY_H
#define HSC_POLICY_H

#include <stddef.h>

#include "apr_pools.h"

#include "hsc_util.h"

/* The login form's limit (hsc_form_parse): 1024 bytes, 256 characters or
 * more, so the NIST maximum of at least 64 characters holds for any text. */
#define HSC_POLICY_MAX_BYTES 1024

/* NIST's floors: 15 characters for a password that is the only factor,
 * 8 beside a second factor. HSCPasswordMinLength may raise them only. */
#define HSC_POLICY_MIN_ALONE 15
#define HSC_POLICY_MIN_WITH_FACTOR 8

/* A loaded blocklist: sorted, case-folded (ASCII), for bsearch. */
typedef struct hsc_blocklist hsc_blocklist_t;

/*
 * Load a blocklist: one password a line, '#' lines and blank lines
 * ignored, a trailing CR dropped. HSC_OK with *out in p, or HSC_EIO
 * (cannot read it: errbuf says why) or HSC_ETOOLONG (over 16 MiB).
 */
hsc_status_t hsc_blocklist_load(apr_pool_t *p, const char *path,
                                hsc_blocklist_t **out, char *errbuf,
                                size_t errlen) HSC_MUST_CHECK;

/* The built-in list, conf/password-blocklist.txt as the build found it
 * (John the Ripper's public-domain password.lst), parsed into p. */
const hsc_blocklist_t *hsc_blocklist_builtin(apr_pool_t *p);

/* How many passwords a blocklist holds. */
size_t hsc_blocklist_size(const hsc_blocklist_t *b);

/* 1 when pw (ASCII letters folded) is on the list (b may be NULL: 0). */
int hsc_blocklist_has(const hsc_blocklist_t *b, const char *pw, size_t len);

/* The verdict on a new password. */
typedef enum {
    HSC_POLICY_OK,
    HSC_POLICY_SHORT,    /* fewer characters than the minimum */
    HSC_POLICY_LONG,     /* over HSC_POLICY_MAX_BYTES */
    HSC_POLICY_NOT_TEXT, /* not UTF-8, or a control character in it */
    HSC_POLICY_USERNAME, /* the username itself (letters folded) */
    HSC_POLICY_LISTED    /* on the blocklist */
} hsc_policy_verdict_t;

/* Characters (Unicode code points) of valid UTF-8 s, or -1 when s is not
 * valid UTF-8 or holds a control character (C0, DEL). */
long hsc_utf8_chars(const char *s, size_t len);

/* The verdict for password pw of user: min_chars characters at least. */
hsc_policy_verdict_t hsc_policy_check(const hsc_blocklist_t *b, int min_chars,
                                      const char *user, const char *pw,
                                      size_t len);

/* The words a page or hsc-admin shows for a refusal, in p. */
const char *hsc_policy_message(apr_pool_t *p, hsc_policy_verdict_t v,
                               int min_chars);

/* A short name for logs and the audit log: "short", "listed", ... */
const char *hsc_policy_name(hsc_policy_verdict_t v);

#endif /* HSC_POLICY_H */
