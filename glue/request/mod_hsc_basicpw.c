/*
 * mod_hsc_basicpw.c: HSCBasicPassword, the account password over HTTP
 * Basic (docs/app-passwords.md, "The account password over Basic").
 *
 * A Basic password that is not shaped like an app password is checked as
 * the form login checks one (hsc_attempt_login: the throttle per address
 * and user, the KDF cap, the timing pad), audited and counted as a
 * login. A right one is remembered per child so that the KDF does not run
 * per request: an entry keyed by the user name holds HMAC-SHA256 of the
 * name and password under a key made in child_init (never the password
 * nor x_n), and the state of the user's row it was checked against (the
 * verifier SHA-256(x_n), the revocation time and generation, and the
 * row's updated time, which every change of its second factors raises:
 * the schema's triggers). A hit needs
 * the row as every request reads it (the record cache), enabled, in the
 * same state, and a constant-time equal HMAC: a new password, a
 * revocation, a disabled user or a second factor set up take effect on
 * the next request in every child. Entries live PW_TTL seconds at most, in a
 * table of PW_SLOTS (4-way sets).
 *
 * The password over Basic would bypass a second factor: it is refused for
 * a user who has one enrolled, and wherever HSCSecondFactor is required.
 *
 * AuthBasicProvider hsc is registered here: a password shaped like an app
 * password goes down to mod_hsc_token.c (hsc_token_basic_check), the rest
 * is checked here where HSCBasicPassword is On.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "apr_strings.h"
#include "apr_thread_mutex.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"

#include "mod_hsc_log.h"
#include "mod_hsc_basicpw.h"
#include "mod_hsc_factor.h"
#include "mod_hsc_ops.h"
#include "mod_hsc_session.h"
#include "mod_hsc_attempt.h"
#include "mod_hsc_token.h"
#include "mod_hsc_userdb.h"
#include "hsc_hmac.h"
#include "hsc_token.h"

/* Entries of a child's cache: a fixed table of sets of PW_WAYS entries,
 * a name's set chosen by a keyed hash; a full set gives up its oldest. */
#define PW_SLOTS 1024
#define PW_WAYS 4
/* Seconds an entry stands for a KDF check, at most. */
#define PW_TTL 300

typedef struct {
    char user[HSC_USER_MAX + 1]; /* "": a free slot */
    unsigned char mac[32];       /* HMAC-SHA256(key, user NUL password) */
    unsigned char verifier[HSC_AUTH_LEN]; /* the row's SHA-256(x_n) */
    int64_t revoked_before, gen;          /* the row's revocation state */
    int64_t updated;    /* the row's: a factor set up or removed changes it */
    int64_t checked_at; /* the KDF check, Unix seconds */
} pw_entry_t;

static apr_thread_mutex_t *pw_lock; /* NULL: no cache in this child */
/* Made at the first right password (about 350 kB): a child of a server
 * that never sees one pays nothing. */
static pw_entry_t *pw_slots;
static hsc_hmac_key_t pw_key; /* the child's HMAC key, as its states */
static apr_uint32_t pw_seed;

static apr_status_t pw_wipe(void *unused)
{
    (void)unused;
    if (pw_slots != NULL) {
        OPENSSL_cleanse(pw_slots, PW_SLOTS * sizeof(*pw_slots));
        free(pw_slots);
        pw_slots = NULL;
    }
    hsc_hmac_key_wipe(&pw_key);
    pw_lock = NULL;
    return APR_SUCCESS;
}

/* The child's HMAC key: 32 random bytes, kept only as its two states,
 * made once (hsc_hmac.h: the one-shot HMAC() redid the key schedule and
 * cost about 20,000 instructions a request under callgrind). */
static int pw_key_make(void)
{
    unsigned char key[32];
    int ok = hsc_random(key, sizeof(key)) == HSC_OK
             && hsc_hmac_key_init(&pw_key, key, sizeof(key)) == HSC_OK;

    hsc_wipe(key, sizeof(key));
    return ok;
}

static void basicpw_child_init(apr_pool_t *p, server_rec *s)
{
    if (!pw_key_make() || hsc_random(&pw_seed, sizeof(pw_seed)) != HSC_OK
        || apr_thread_mutex_create(&pw_lock, APR_THREAD_MUTEX_DEFAULT, p)
               != APR_SUCCESS) {
        pw_lock = NULL;
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                     HSCLOGNO(257) "HSCBasicPassword: this child has no "
                                   "password cache (no random key or mutex): "
                                   "every Basic password runs the KDF");
    }
    apr_pool_cleanup_register(p, NULL, pw_wipe, apr_pool_cleanup_null);
}

/* The set of a name (PW_WAYS slots): FNV-1a under the child's seed. */
static pw_entry_t *pw_set(const char *user)
{
    apr_uint32_t h = 2166136261u ^ pw_seed;

    for (; *user; user++) {
        h = (h ^ (unsigned char)*user) * 16777619u;
    }
    return &pw_slots[(h % (PW_SLOTS / PW_WAYS)) * PW_WAYS];
}

/* user's slot in its set, or NULL. */
static pw_entry_t *pw_find(pw_entry_t *set, const char *user)
{
    int i;

    for (i = 0; i < PW_WAYS; i++) {
        if (set[i].user[0] != '\0' && strcmp(set[i].user, user) == 0) {
            return &set[i];
        }
    }
    return NULL;
}

/* mac = HMAC-SHA256(child key, user NUL password); 0 on failure. */
static int pw_mac(const char *user, const char *pw, size_t pw_len,
                  unsigned char mac[32])
{
    const hsc_hmac_part_t parts[2] = {{user, strlen(user) + 1}, {pw, pw_len}};

    return hsc_hmac_sum(&pw_key, parts, 2, mac) == HSC_OK;
}

/* 1 with *checked_at when u's row (read now) and mac match an entry
 * younger than ttl seconds. */
static int pw_hit(const hsc_user_t *u, const unsigned char mac[32], int64_t now,
                  int64_t ttl, int64_t *checked_at)
{
    pw_entry_t *e;
    int hit = 0;

    if (pw_lock == NULL || apr_thread_mutex_lock(pw_lock) != APR_SUCCESS) {
        return 0;
    }
    if (pw_slots != NULL && (e = pw_find(pw_set(u->name), u->name)) != NULL) {
        if (u->disabled || now - e->checked_at >= ttl || now < e->checked_at
            || e->gen != u->gen || e->revoked_before != u->revoked_before
            || e->updated != u->updated
            || !hsc_ct_equal(e->verifier, u->authenticator,
                             sizeof(e->verifier))) {
            /* Stale: a new password, a revocation, disabled, a factor
             * set up or removed (updated), or old. */
            OPENSSL_cleanse(e, sizeof(*e));
        }
        else if (hsc_ct_equal(e->mac, mac, sizeof(e->mac))) {
            *checked_at = e->checked_at;
            hit = 1;
        }
    }
    apr_thread_mutex_unlock(pw_lock);
    return hit;
}

/* Remember u's password (its mac) as checked against u's row now. */
static void pw_keep(const hsc_user_t *u, const unsigned char mac[32],
                    int64_t now)
{
    pw_entry_t *set, *e;
    int i;

    if (pw_lock == NULL || u->name_len > HSC_USER_MAX
        || apr_thread_mutex_lock(pw_lock) != APR_SUCCESS) {
        return;
    }
    if (pw_slots == NULL
        && (pw_slots = calloc(PW_SLOTS, sizeof(*pw_slots))) == NULL) {
        apr_thread_mutex_unlock(pw_lock);
        return; /* no cache: the next request runs the KDF again */
    }
    /* The user's slot, else a free one, else the oldest of the set. */
    set = pw_set(u->name);
    if ((e = pw_find(set, u->name)) == NULL) {
        e = &set[0];
        for (i = 0; i < PW_WAYS && e->user[0] != '\0'; i++) {
            if (set[i].user[0] == '\0' || set[i].checked_at < e->checked_at) {
                e = &set[i];
            }
        }
    }
    OPENSSL_cleanse(e, sizeof(*e));
    memcpy(e->user, u->name, u->name_len);
    e->user[u->name_len] = '\0';
    memcpy(e->mac, mac, sizeof(e->mac));
    memcpy(e->verifier, u->authenticator, sizeof(e->verifier));
    e->revoked_before = u->revoked_before;
    e->gen = u->gen;
    e->updated = u->updated;
    e->checked_at = now;
    apr_thread_mutex_unlock(pw_lock);
}

/* --- the check ------------------------------------------------------------ */

/* How a check ended. */
typedef enum {
    BP_OK,        /* admitted (hsc_session_admit_basic done) */
    BP_REFUSED,   /* 401 */
    BP_THROTTLED, /* 429, *retry */
    BP_BUSY,      /* 503 (HSCMaxLoginKDF), *retry */
    BP_STORE      /* 503: the store, the factors or the throttle */
} bp_outcome_t;

/* The audit line and metrics of a KDF-checked attempt (the form's). */
static void audit(request_rec *r, const char *user, hsc_login_outcome_t o)
{
    hsc_login_form_t f;

    memset(&f, 0, sizeof(f));
    f.username.present = 1;
    f.username.value = (char *)user;
    f.username.len = strlen(user);
    hsc_ops_login(r, &f, o, NULL);
}

/* The end of a KDF check of a->user's password (a->st): a right one
 * admitted and remembered (mac, when made), unless the user has a second
 * factor (has); a wrong one refused. Logged and audited here. */
static bp_outcome_t checked(request_rec *r, hsc_store_t *store,
                            const hsc_login_t *a, int has, const char *name,
                            const unsigned char *mac, int64_t now)
{
    bp_outcome_t out = BP_REFUSED;
    int level;

    if (a->st == HSC_OK && has) {
        ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                      HSCLOGNO(252) "account password over Basic of user "
                                    "\"%s\" refused: the user has a second "
                                    "factor, which the password over Basic "
                                    "would bypass (use an app password)",
                      name);
        audit(r, a->user, HSC_LOGIN_FACTOR_DUE); /* right, and never done */
        return BP_REFUSED;
    }
    if (a->st == HSC_OK) {
        if (mac != NULL) {
            pw_keep(&a->u, mac, now);
        }
        hsc_session_admit_basic(r, &a->u, now);
        audit(r, a->user, HSC_LOGIN_SUCCESS);
        return BP_OK;
    }
    level = APLOG_INFO;
    if (hsc_status_outcome(a->st, &level) == HTTP_SERVICE_UNAVAILABLE) {
        out = BP_STORE;
    }
    ap_log_rerror(APLOG_MARK, level, 0, r,
                  HSCLOGNO(251) "account password over Basic of user \"%s\" "
                                "refused: %s%s%s",
                  name, hsc_strerror(a->st), a->st == HSC_ESTORE ? ": " : "",
                  a->st == HSC_ESTORE ? hsc_store_errmsg(store) : "");
    audit(r, a->user, hsc_login_outcome_of(a->st));
    return out;
}

/* A miss of the cache: user's password pw checked as a login is (the
 * throttle, the KDF cap, the timing pad). A user with a second factor
 * gets the answer after the KDF (no oracle), and a right password does
 * not clear the username's failures (as at the form's code step). */
static bp_outcome_t check_kdf(request_rec *r, const hsc_srv_conf_t *sc,
                              hsc_store_t *store, hsc_login_t *a,
                              const char *user, const char *pw,
                              const char *name, const unsigned char *mac,
                              int64_t now, apr_int64_t *retry)
{
    hsc_attempt_t attempt;
    int has = hsc_factor_has(r, sc, user);

    if (has < 0) {
        return BP_STORE; /* logged (HSC193) */
    }
    a->user = user;
    a->user_len = strlen(user);
    a->password = pw;
    a->password_len = strlen(pw);
    a->factor_follows = has;
    attempt = hsc_attempt_login(r, sc, store, a);
    hsc_userdb_note_recovery(r, sc, store);
    *retry = a->retry_after;
    switch (attempt) {
    case HSC_ATTEMPT_BUSY: audit(r, user, HSC_LOGIN_KDF_CAP); return BP_BUSY;
    case HSC_ATTEMPT_THROTTLED: return BP_THROTTLED;
    case HSC_ATTEMPT_UNAVAILABLE: return BP_STORE;
    case HSC_ATTEMPT_CHECKED: break;
    }
    hsc_wipe(a->xn, sizeof(a->xn));
    return checked(r, store, a, has, name, mac, now);
}

/* Check user's account password pw for r at d: the cache, else the
 * login's attempt. Logged and audited here. */
static bp_outcome_t check(request_rec *r, const hsc_srv_conf_t *sc,
                          const hsc_dir_conf_t *d, hsc_store_t *store,
                          const char *user, const char *pw, apr_int64_t *retry)
{
    const char *name = ap_escape_logitem(r->pool, user);
    int64_t now = (int64_t)apr_time_sec(r->request_time), at = 0;
    unsigned char mac[32];
    hsc_login_t a;
    hsc_status_t st;
    int have_mac;
    bp_outcome_t out;
    /* HSCMaxAuthAge shorter than an entry's life: the password is checked
     * again as often (HSC_LOGIN_TIME is never older than it allows). */
    int64_t ttl = d->max_auth_age > 0 && d->max_auth_age < PW_TTL
                      ? (int64_t)d->max_auth_age
                      : PW_TTL;

    *retry = 0;
    if (!hsc_username_valid(user, strlen(user))) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(256) "account password over Basic refused: "
                                    "not a valid username");
        audit(r, user, HSC_LOGIN_BAD_CREDENTIALS);
        return BP_REFUSED;
    }
    if (d->second_factor == HSC_SECOND_FACTOR_REQUIRED) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(253) "account password over Basic of user "
                                    "\"%s\" refused: HSCSecondFactor "
                                    "required here, which a password over "
                                    "Basic cannot meet (use an app password)",
                      name);
        return BP_REFUSED;
    }
    /* A hit: the row as every request reads it, and the same state. */
    have_mac = pw_mac(user, pw, strlen(pw), mac);
    memset(&a.u, 0, sizeof(a.u));
    st = hsc_store_get(store, user, strlen(user), &a.u);
    if (st != HSC_OK && st != HSC_ENOUSER) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(255) "account password over Basic of user "
                                    "\"%s\" not checked: %s: %s",
                      name, hsc_strerror(st), hsc_store_errmsg(store));
        out = BP_STORE;
    }
    else if (st == HSC_OK && have_mac && pw_hit(&a.u, mac, now, ttl, &at)) {
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r,
                      HSCLOGNO(254) "account password over Basic of user "
                                    "\"%s\": accepted from this child's cache "
                                    "(checked at %" APR_INT64_T_FMT ")",
                      name, (apr_int64_t)at);
        hsc_session_admit_basic(r, &a.u, at);
        out = BP_OK;
    }
    else {
        out = check_kdf(r, sc, store, &a, user, pw, name, have_mac ? mac : NULL,
                        now, retry);
    }
    hsc_wipe(mac, sizeof(mac));
    return out;
}

int hsc_basicpw_authn(request_rec *r, const hsc_srv_conf_t *sc,
                      const hsc_dir_conf_t *d, hsc_store_t *store)
{
    char *user, *pw;
    apr_int64_t retry;
    bp_outcome_t o;

    if (!d->basic_password || !hsc_basic_pair(r, &user, &pw)
        || hsc_token_shaped(pw, strlen(pw))) {
        return DECLINED; /* an app password is HSCAcceptTokens' */
    }
    o = check(r, sc, d, store, user, pw, &retry);
    hsc_wipe(pw, strlen(pw));
    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    switch (o) {
    case BP_OK: return OK;
    case BP_THROTTLED:
    case BP_BUSY:
        apr_table_setn(r->err_headers_out, "Retry-After",
                       apr_psprintf(r->pool, "%" APR_INT64_T_FMT,
                                    retry > 0 ? retry : 1));
        return o == BP_BUSY ? HTTP_SERVICE_UNAVAILABLE : HTTP_TOO_MANY_REQUESTS;
    case BP_STORE: return hsc_userdb_unavailable(r);
    default: hsc_token_challenge(r, d); return HTTP_UNAUTHORIZED;
    }
}

/* --- AuthBasicProvider hsc --------------------------------------------- */

/*
 * mod_auth_basic asks with the name and password of a Basic header. A
 * password shaped like an app password, or any where HSCBasicPassword is
 * Off, must be an app password of user (hsc_token_basic_check); else it
 * is the account password: AUTH_GRANTED, AUTH_DENIED (with Retry-After
 * when throttled or capped) or AUTH_GENERAL_ERROR.
 */
static authn_status basic_check(request_rec *r, const char *user,
                                const char *password)
{
    const hsc_srv_conf_t *sc = hsc_srv_conf(r->server);
    const hsc_dir_conf_t *d = hsc_dir_conf(r);
    hsc_store_t *store;
    apr_int64_t retry;

    if (!d->basic_password || hsc_token_shaped(password, strlen(password))) {
        return hsc_token_basic_check(r, user, password);
    }
    if ((store = hsc_userdb_acquire(r, sc)) == NULL) {
        return AUTH_GENERAL_ERROR;
    }
    switch (check(r, sc, d, store, user, password, &retry)) {
    case BP_OK: return AUTH_GRANTED;
    case BP_STORE: return AUTH_GENERAL_ERROR; /* mod_auth_basic: 500 */
    case BP_THROTTLED:
    case BP_BUSY:
        /* mod_auth_basic answers a denial 401: the wait goes with it. */
        apr_table_setn(r->err_headers_out, "Retry-After",
                       apr_psprintf(r->pool, "%" APR_INT64_T_FMT,
                                    retry > 0 ? retry : 1));
        return AUTH_DENIED;
    default: return AUTH_DENIED;
    }
}

static const authn_provider hsc_basic_provider = {&basic_check, NULL};

void hsc_basicpw_register_hooks(apr_pool_t *p)
{
    ap_hook_child_init(basicpw_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_register_auth_provider(p, AUTHN_PROVIDER_GROUP, "hsc",
                              AUTHN_PROVIDER_VERSION, &hsc_basic_provider,
                              AP_AUTH_INTERNAL_PER_CONF);
}
