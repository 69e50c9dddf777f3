/*
 * mod_hsc_attempt.c: one login, code or token attempt, in its steps:
 * throttle (count it, or refuse it), cap (a KDF slot), check (the
 * password, or the caller's code check), settle (a success or a fault
 * gives the attempt back), pad (a failed login takes as long as an
 * unknown name). The counters and the cap are mod_hsc_throttle.c's, the
 * pad mod_hsc_login_pad.c's; the design is docs/throttling.md.
 */
#include "apr_time.h"

#include "httpd.h"
#include "http_log.h"

#include "mod_hsc_log.h"
#include "mod_hsc_attempt.h"
#include "mod_hsc_throttle.h"
#include "mod_hsc_login_pad.h"
#include "mod_hsc_userdb.h"
#include "mod_hsc_ops.h"
#include "mod_hsc_metrics.h"
#include "hsc_throttle.h"
#include "hsc_password.h"

/* The check, timed into the metrics' KDF histogram. */
static hsc_status_t check_password(request_rec *r, const hsc_srv_conf_t *sc,
                                   hsc_store_t *store, hsc_login_t *a)
{
    apr_time_t t0 = apr_time_now();
    hsc_status_t st;

    hsc_metrics_kdf_begin();
    st = hsc_password_check(store, a->user, a->user_len, a->password,
                            a->password_len, &sc->dummy_kdf, a->xn, &a->u);
    hsc_metrics_kdf_end(apr_time_now() - t0);
    if (st == HSC_ESTORE) {
        hsc_ops_store_error(r);
    }
    return st;
}

/*
 * Count an attempt of user (a password or a code: utag) before it is
 * checked, before any KDF work: 0 when it may go on (*th to settle), else
 * 1 with *refused and the wait. The username counter is scoped by the
 * database (its store id, so every node and spelling of it shares counts).
 */
static int count_attempt(request_rec *r, const hsc_srv_conf_t *sc,
                         hsc_store_t *store, char utag, const char *user,
                         size_t len, hsc_throttle_t *th,
                         apr_int64_t *retry_after, hsc_attempt_t *refused)
{
    *retry_after = hsc_throttle_begin(r, &sc->throttle,
                                      hsc_userdb_throttle_ns(r, sc->userdb,
                                                             store),
                                      utag, user, len, th);
    if (*retry_after > 0) {
        *refused = HSC_ATTEMPT_THROTTLED;
        return 1;
    }
    if (*retry_after < 0) { /* cache down, HSCThrottleUnavailable refuse */
        *retry_after = 1;
        *refused = HSC_ATTEMPT_UNAVAILABLE;
        return 1;
    }
    return 0;
}

hsc_attempt_t hsc_attempt_login(request_rec *r, const hsc_srv_conf_t *sc,
                                hsc_store_t *store, hsc_login_t *a)
{
    const hsc_throttle_conf_t *tc = &sc->throttle;
    hsc_attempt_t refused;
    hsc_throttle_t th;
    apr_time_t t0;

    a->st = HSC_EAUTH;
    if (count_attempt(r, sc, store, HSC_THROTTLE_TAG_PASSWORD, a->user,
                      a->user_len, &th, &a->retry_after, &refused)) {
        return refused;
    }
    /* The cap: a login it refuses (503) still counts for its address, so
     * that one address cannot hold every slot for free. */
    if (!hsc_throttle_kdf_take(tc)) {
        hsc_throttle_end(r, tc, &th, HSC_THROTTLE_BUSY);
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r,
                      HSCLOGNO(055) "login refused (503) for user \"%s\": %d "
                                    "password checks already run in this child "
                                    "(HSCMaxLoginKDF); counted for the address",
                      ap_escape_logitem(r->pool, a->user), tc->max_kdf);
        a->retry_after = 1;
        return HSC_ATTEMPT_BUSY;
    }
    t0 = apr_time_now();
    a->st = check_password(r, sc, store, a);
    t0 = apr_time_now() - t0;
    hsc_throttle_kdf_give(tc);
    /* Settle: a fault says nothing about the password: not an attempt. */
    switch (hsc_status_class(a->st)) {
    case HSC_CLASS_OK:
        /* With a second factor to come, only the whole login clears the
         * password's failures (forget_password_failures). The codes have
         * their own counter, which no password clears. */
        hsc_throttle_end(r, tc, &th,
                         a->factor_follows ? HSC_THROTTLE_UNDO
                                           : HSC_THROTTLE_SUCCEEDED);
        break;
    case HSC_CLASS_FAULT:
        hsc_throttle_end(r, tc, &th, HSC_THROTTLE_UNDO);
        break;
    default: hsc_throttle_end(r, tc, &th, HSC_THROTTLE_FAILED); break;
    }
    /* Counted; now as long as an unknown name takes, outside the cap. */
    hsc_login_pad(r, sc, a->st, t0);
    return HSC_ATTEMPT_CHECKED;
}

/* A whole login (password and code) clears the password's failures too,
 * which a right password followed by a code step left in place. */
static void forget_password_failures(request_rec *r, const hsc_srv_conf_t *sc,
                                     hsc_store_t *store, const char *user,
                                     size_t len)
{
    const char *ns = hsc_userdb_throttle_ns(r, sc->userdb, store);
    hsc_throttle_t t;

    t.akey[0] = '\0';
    if (sc->throttle.user <= 0
        || hsc_throttle_key(HSC_THROTTLE_TAG_PASSWORD, ns ? ns : "", user, len,
                            t.ukey)
               != HSC_OK) {
        return;
    }
    hsc_throttle_end(r, &sc->throttle, &t, HSC_THROTTLE_SUCCEEDED);
}

hsc_attempt_t hsc_attempt_code(request_rec *r, const hsc_srv_conf_t *sc,
                               hsc_store_t *store, hsc_code_attempt_t *a)
{
    const hsc_throttle_conf_t *tc = &sc->throttle;
    hsc_attempt_t refused;
    hsc_throttle_t th;

    a->st = HSC_EAUTH;
    if (count_attempt(r, sc, store, HSC_THROTTLE_TAG_CODE, a->user, a->user_len,
                      &th, &a->retry_after, &refused)) {
        return refused;
    }
    if (th.ukey[0] == '\0') {
        /* Not counted for the user: HSCThrottleUser 0, no throttling
         * cache, or the cache failed. A password costs a KDF run; a code
         * costs nothing, and six digits fall to an unlimited guesser in
         * minutes: no check without the count (fail closed). */
        hsc_throttle_end(r, tc, &th, HSC_THROTTLE_UNDO);
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(206) "second-factor code of user \"%s\" "
                                    "refused (503): its attempts cannot be "
                                    "counted for the user (HSCThrottleUser "
                                    "0, no throttling cache, or the cache "
                                    "failed)",
                      ap_escape_logitem(r->pool, a->user));
        a->retry_after = 1;
        return HSC_ATTEMPT_UNAVAILABLE;
    }
    a->st = a->check(r, a->baton);
    hsc_throttle_end(r, tc, &th,
                     a->st == HSC_OK ? HSC_THROTTLE_SUCCEEDED
                     : hsc_status_class(a->st) == HSC_CLASS_FAULT
                         ? HSC_THROTTLE_UNDO
                         : HSC_THROTTLE_FAILED);
    if (a->st == HSC_OK) {
        forget_password_failures(r, sc, store, a->user, a->user_len);
    }
    return HSC_ATTEMPT_CHECKED;
}

hsc_attempt_t hsc_attempt_failed(request_rec *r, const hsc_srv_conf_t *sc,
                                 hsc_store_t *store, const char *key,
                                 size_t len, apr_int64_t *retry_after)
{
    hsc_attempt_t refused;
    hsc_throttle_t th;

    if (count_attempt(r, sc, store, HSC_THROTTLE_TAG_PASSWORD, key, len, &th,
                      retry_after, &refused)) {
        return refused;
    }
    hsc_throttle_end(r, &sc->throttle, &th, HSC_THROTTLE_FAILED);
    return HSC_ATTEMPT_CHECKED;
}
