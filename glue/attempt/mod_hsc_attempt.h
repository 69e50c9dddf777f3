/*
 * mod_hsc_attempt.h: one login, code or token attempt (mod_hsc_attempt.c):
 * throttle -> cap -> check -> settle -> pad, on the counters and the KDF
 * cap of mod_hsc_throttle.c. The throttle's design is described once, in
 * docs/throttling.md.
 */
#ifndef MOD_HSC_ATTEMPT_H
#define MOD_HSC_ATTEMPT_H

#include "httpd.h"

#include "hsc_util.h"
#include "hsc_defaults.h"
#include "hsc_kdf.h"
#include "hsc_password.h"
#include "hsc_store.h"
#include "mod_hsc_config.h"

/* How a login attempt went (hsc_attempt_login). */
typedef enum {
    HSC_ATTEMPT_CHECKED,    /* the password was checked: *st says how */
    HSC_ATTEMPT_BUSY,       /* HSCMaxLoginKDF checks run already: 503 */
    HSC_ATTEMPT_THROTTLED,  /* over a failed-login limit: 429 */
    HSC_ATTEMPT_UNAVAILABLE /* throttling cache down and
                             * HSCThrottleUnavailable refuse: 503 */
} hsc_attempt_t;

/* A login attempt: in, the form's username and password; out, what the
 * password check found. */
typedef struct {
    const char *user; /* in */
    size_t user_len;
    const char *password;
    size_t password_len;
    int factor_follows; /* in: a second factor may follow (HSCSecondFactor
                         * not off): a right password alone does not clear
                         * the username's failures; the code step does */
    unsigned char xn[HSC_XN_LEN]; /* out: x_n when st is HSC_OK (wipe it) */
    hsc_user_t u;                 /* out: the user's record when HSC_OK */
    hsc_status_t st;              /* out: the check's verdict */
    apr_int64_t retry_after;      /* out: seconds, for a 429 or a 503 */
} hsc_login_t;

/*
 * The login attempt, in its four steps: throttle (count the attempt, or
 * refuse it), cap (a KDF slot; its refusal keeps the address's count),
 * check (hsc_password_check, timed into the metrics), and settle (a
 * success or a fault gives the attempt back). The refusals of the cap and
 * the throttle are logged here; the check's verdict is the caller's to log.
 */
hsc_attempt_t hsc_attempt_login(request_rec *r, const hsc_srv_conf_t *sc,
                                hsc_store_t *store, hsc_login_t *a);

/* A second-factor attempt: the code's check, and what it found. */
typedef hsc_status_t hsc_code_check_fn(request_rec *r, void *baton);
typedef struct {
    const char *user; /* in: the pending cookie's user */
    size_t user_len;
    hsc_code_check_fn *check; /* in: checks the code (and uses it up) */
    void *baton;
    hsc_status_t st;         /* out: check's verdict */
    apr_int64_t retry_after; /* out: seconds, for a 429 or a 503 */
} hsc_code_attempt_t;

/*
 * A code at the second-factor step, counted under the same keys as a
 * password (docs/throttling.md): throttle, check, settle. No KDF slot: a
 * code costs a few HMACs. HSC_ATTEMPT_CHECKED, THROTTLED or UNAVAILABLE.
 */
hsc_attempt_t hsc_attempt_code(request_rec *r, const hsc_srv_conf_t *sc,
                               hsc_store_t *store, hsc_code_attempt_t *a);

/*
 * An attempt refused without a password check: an app password
 * (mod_hsc_token.c), or a passkey (mod_hsc_passkey_*.c: an unknown
 * credential, a refused registration), counted as a failed login for the
 * address and under key (for a token its id in a name no user can have, so
 * guesses at a token never lock its owner's password out). Only failures
 * are counted: a good token costs no counter. HSC_ATTEMPT_CHECKED
 * (counted: answer 401), THROTTLED (429) or UNAVAILABLE (503), with
 * *retry_after for the last two.
 */
hsc_attempt_t hsc_attempt_failed(request_rec *r, const hsc_srv_conf_t *sc,
                                 hsc_store_t *store, const char *key,
                                 size_t len, apr_int64_t *retry_after);

#endif /* MOD_HSC_ATTEMPT_H */
