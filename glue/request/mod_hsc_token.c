/*
 * mod_hsc_token.c: app passwords on the request path (docs/app-passwords.md).
 *
 * A token is read from Authorization (Bearer, or Basic with the owner's
 * name), parsed by the core (hsc_token_parse: form and check digits, no
 * store read for a typo), looked up by id on the request's store handle,
 * compared in constant time, then its owner's row read as a cookie's is
 * (the record cache): a disabled owner's tokens fail. No KDF runs. Only
 * failures reach the throttle. The last use goes to HSCActivityDB at most
 * once a minute per token per child, never to the user store.
 */
#include <string.h>

#include "apr_base64.h"
#include "apr_hash.h"
#include "apr_strings.h"
#include "apr_thread_mutex.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "mod_auth.h"

#include "mod_hsc_log.h"
#include "mod_hsc_token.h"
#include "mod_hsc_session.h"
#include "mod_hsc_attempt.h"
#include "mod_hsc_userdb.h"
#include "hsc_token.h"
#include "hsc_tokens.h"
#include "hsc_activity.h"

/* Longest Authorization value read: a Basic pair of the longest name and
 * a token, in base64, with room to spare. */
#define AUTH_MAX 1024
/* Seconds between two writes of one token's last use, per child. */
#define ACTIVITY_EVERY 60

/* An offered app password, as read from the request. */
typedef struct {
    const char *user; /* Basic: the name sent; Bearer: NULL */
    const char *token;
    size_t len;
} offered_t;

int hsc_basic_pair(request_rec *r, char **user, char **pw)
{
    const char *h = apr_table_get(r->headers_in, "Authorization");
    char *plain, *colon;
    int n;

    if (h == NULL || strlen(h) > AUTH_MAX || strncasecmp(h, "Basic ", 6)) {
        return 0;
    }
    h += 6;
    while (*h == ' ') {
        h++;
    }
    plain = apr_palloc(r->pool, apr_base64_decode_len(h) + 1);
    n = apr_base64_decode(plain, h);
    plain[n > 0 ? n : 0] = '\0';
    if (n <= 0 || (colon = strchr(plain, ':')) == NULL
        || memchr(plain, '\0', (size_t)n) != NULL) {
        hsc_wipe(plain, n > 0 ? (size_t)n : 0);
        return 0;
    }
    *colon = '\0';
    *user = plain;
    *pw = colon + 1;
    return 1;
}

/*
 * What the request offers where d takes it: 1 with *o filled; 0 when it
 * offers nothing d takes (no Authorization, another scheme, a Basic
 * password that is not shaped like a token).
 */
static int offered(request_rec *r, int accept, offered_t *o)
{
    const char *h = apr_table_get(r->headers_in, "Authorization");
    char *user, *pw;

    if (h == NULL || strlen(h) > AUTH_MAX) {
        return 0;
    }
    if ((accept & HSC_TOKENS_BEARER) && !strncasecmp(h, "Bearer ", 7)) {
        h += 7;
        while (*h == ' ') {
            h++;
        }
        o->user = NULL;
        o->token = h;
        o->len = strcspn(h, " \t");
        return 1;
    }
    if (!(accept & HSC_TOKENS_BASIC) || !hsc_basic_pair(r, &user, &pw)) {
        return 0;
    }
    o->user = user;
    o->token = pw;
    o->len = strlen(pw);
    if (!hsc_token_shaped(o->token, o->len)) {
        hsc_wipe(pw, o->len); /* perhaps an account password */
        return 0;
    }
    return 1;
}

/* --- the activity store: one writer per child ----------------------------- */

static apr_thread_mutex_t *activity_lock;
static hsc_activity_t *activity;     /* opened on first use */
static apr_hash_t *activity_written; /* id -> apr_time_t of the last write */
static apr_pool_t *activity_pool;
static int activity_down; /* 1 while a failure is reported (logged once) */

static void activity_note(request_rec *r, const char *spec, const char *id)
{
    apr_time_t now = apr_time_now(), *last;
    char err[256];
    hsc_status_t st = HSC_OK;

    if (spec == NULL || activity_lock == NULL
        || apr_thread_mutex_lock(activity_lock) != APR_SUCCESS) {
        return;
    }
    last = apr_hash_get(activity_written, id, HSC_TOKEN_ID_LEN);
    if (last != NULL && now - *last < apr_time_from_sec(ACTIVITY_EVERY)) {
        apr_thread_mutex_unlock(activity_lock);
        return;
    }
    if (last == NULL && apr_hash_count(activity_written) < 65536) {
        last = apr_palloc(activity_pool, sizeof(*last));
        apr_hash_set(activity_written,
                     apr_pstrmemdup(activity_pool, id, HSC_TOKEN_ID_LEN),
                     HSC_TOKEN_ID_LEN, last);
    }
    if (activity == NULL) {
        st = hsc_activity_open(spec, 0, &activity, err, sizeof(err));
    }
    if (st == HSC_OK) {
        st = hsc_activity_touch(activity, id, (int64_t)apr_time_sec(now),
                                r->useragent_ip);
        if (st != HSC_OK) {
            apr_cpystrn(err, hsc_activity_errmsg(activity), sizeof(err));
            hsc_activity_close(activity); /* reopened by the next write */
            activity = NULL;
        }
    }
    if (st == HSC_OK) {
        if (last != NULL) {
            *last = now;
        }
        if (activity_down) {
            ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                          HSCLOGNO(235) "HSCActivityDB answers again");
        }
        activity_down = 0;
    }
    else if (!activity_down) {
        activity_down = 1;
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r,
                      HSCLOGNO(234) "HSCActivityDB: the last use of app "
                                    "passwords is not recorded: %s "
                                    "(requests go on; logged once until it "
                                    "works again)",
                      err);
    }
    apr_thread_mutex_unlock(activity_lock);
}

int64_t hsc_token_last_used(request_rec *r, const char *id)
{
    const char *spec = hsc_srv_conf(r->server)->global->activity_db;
    char err[256], addr[HSC_ACTIVITY_ADDR_MAX];
    int64_t at = 0;

    if (spec == NULL || activity_lock == NULL
        || apr_thread_mutex_lock(activity_lock) != APR_SUCCESS) {
        return 0;
    }
    if (activity != NULL
        || hsc_activity_open(spec, 0, &activity, err, sizeof(err)) == HSC_OK) {
        if (hsc_activity_get(activity, id, &at, addr) != HSC_OK) {
            at = 0;
        }
    }
    apr_thread_mutex_unlock(activity_lock);
    return at;
}

static apr_status_t activity_close(void *unused)
{
    (void)unused;
    hsc_activity_close(activity);
    activity = NULL;
    return APR_SUCCESS;
}

static void token_child_init(apr_pool_t *p, server_rec *s)
{
    if (hsc_srv_conf(s)->global->activity_db == NULL) {
        return;
    }
    if (apr_thread_mutex_create(&activity_lock, APR_THREAD_MUTEX_DEFAULT, p)
        != APR_SUCCESS) {
        activity_lock = NULL; /* nothing recorded; requests go on */
        return;
    }
    activity_pool = p;
    activity_written = apr_hash_make(p);
    apr_pool_cleanup_register(p, NULL, activity_close, apr_pool_cleanup_null);
}

/* --- the check ------------------------------------------------------------ */

static void log_store_fault(request_rec *r, const char *why)
{
    ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                  HSCLOGNO(233) "app password not checked: the user "
                                "database failed: %s",
                  why);
}

static void log_scope(request_rec *r, const hsc_token_t *t, const char *missing,
                      int basic)
{
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(231) "app password %s of user %s lacks the "
                                "scope %s this location needs (%s)",
                  t->id, ap_escape_logitem(r->pool, t->user), missing,
                  basic ? "401: AuthBasicProvider cannot answer 403" : "403");
}

/* How a token check ended. */
typedef enum {
    TK_OK,
    TK_REFUSED, /* 401 (or 429 once counted over the limit) */
    TK_STORE    /* 503 */
} tk_outcome_t;

/* Check o: the token, its owner, the Basic name. *t and *u filled on
 * TK_OK; *why names a refusal for the log. */
static tk_outcome_t check_token(request_rec *r, hsc_store_t *store,
                                const offered_t *o, hsc_token_t *t,
                                hsc_user_t *u, const char **why)
{
    unsigned char hash[HSC_TOKEN_HASH_LEN];
    char id[HSC_TOKEN_ID_LEN + 1];
    hsc_status_t st;

    if (hsc_token_parse(o->token, o->len, id, hash) != HSC_OK) {
        *why = "not an app password (form or check digits)";
        return TK_REFUSED;
    }
    st = hsc_tokens_get(store, id, t);
    if (st == HSC_ENOUSER) {
        *why = "no such app password";
        return TK_REFUSED;
    }
    if (st != HSC_OK) {
        *why = hsc_store_errmsg(store);
        return TK_STORE;
    }
    st = hsc_token_check(t, hash, (int64_t)apr_time_sec(r->request_time));
    hsc_wipe(hash, sizeof(hash));
    if (st != HSC_OK) {
        *why = st == HSC_EREVOKED   ? "revoked"
               : st == HSC_EEXPIRED ? "expired"
                                    : "wrong secret";
        return TK_REFUSED;
    }
    if (o->user != NULL && strcmp(o->user, t->user) != 0) {
        *why = "the Basic username is not the token's owner";
        return TK_REFUSED;
    }
    st = hsc_store_get(store, t->user, strlen(t->user), u);
    if (st == HSC_ENOUSER || (st == HSC_OK && u->disabled)) {
        *why = st == HSC_OK ? "its owner is disabled" : "its owner is gone";
        return TK_REFUSED;
    }
    if (st != HSC_OK) {
        *why = hsc_store_errmsg(store);
        return TK_STORE;
    }
    return TK_OK;
}

/* The scopes d needs that t lacks, space-separated, or NULL. */
static const char *missing_scopes(request_rec *r, const hsc_dir_conf_t *d,
                                  const hsc_token_t *t)
{
    const char *need = NULL;
    int i;

    for (i = 0; d->token_scopes != NULL && i < d->token_scopes->nelts; i++) {
        const char *sc = APR_ARRAY_IDX(d->token_scopes, i, const char *);
        if (!hsc_token_has_scope(t->scopes, sc, strlen(sc))) {
            need = need ? apr_pstrcat(r->pool, need, " ", sc, NULL) : sc;
        }
    }
    return need;
}

/* A refusal: counted (under the id when the text had one), logged, and
 * answered 401, or 429/503 from the throttle. */
static int refuse(request_rec *r, const hsc_srv_conf_t *sc,
                  const hsc_dir_conf_t *d, hsc_store_t *store,
                  const offered_t *o, const char *why)
{
    char key[2 + HSC_TOKEN_ID_LEN + 1];
    apr_int64_t retry = 0;
    hsc_attempt_t a;

    /* "\t:" and the id: a name no user can have (no control characters). */
    key[0] = '\t';
    key[1] = ':';
    if (o->len >= 4 + HSC_TOKEN_ID_LEN) {
        memcpy(key + 2, o->token + 4, HSC_TOKEN_ID_LEN);
    }
    else {
        memset(key + 2, '-', HSC_TOKEN_ID_LEN);
    }
    key[sizeof(key) - 1] = '\0';
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(230) "app password refused: %s (id %s%s%s)", why,
                  ap_escape_logitem(r->pool, key + 2),
                  o->user ? ", Basic user " : "",
                  o->user ? ap_escape_logitem(r->pool, o->user) : "");
    a = hsc_attempt_failed(r, sc, store, key, sizeof(key) - 1, &retry);
    if (a == HSC_ATTEMPT_THROTTLED || a == HSC_ATTEMPT_UNAVAILABLE) {
        apr_table_setn(r->err_headers_out, "Retry-After",
                       apr_psprintf(r->pool, "%" APR_INT64_T_FMT, retry));
        apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
        return a == HSC_ATTEMPT_THROTTLED ? HTTP_TOO_MANY_REQUESTS
                                          : HTTP_SERVICE_UNAVAILABLE;
    }
    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    hsc_token_challenge(r, d);
    return HTTP_UNAUTHORIZED;
}

int hsc_token_authn(request_rec *r, const hsc_srv_conf_t *sc,
                    const hsc_dir_conf_t *d, hsc_store_t *store)
{
    offered_t o;
    hsc_token_t t;
    hsc_user_t u;
    const char *why = NULL, *missing;

    if (d->accept_tokens == 0 || !offered(r, d->accept_tokens, &o)) {
        return DECLINED;
    }
    switch (check_token(r, store, &o, &t, &u, &why)) {
    case TK_REFUSED: return refuse(r, sc, d, store, &o, why);
    case TK_STORE: log_store_fault(r, why); return hsc_userdb_unavailable(r);
    default: break;
    }
    if ((missing = missing_scopes(r, d, &t)) != NULL) {
        log_scope(r, &t, missing, 0);
        apr_table_setn(r->err_headers_out, "WWW-Authenticate",
                       apr_psprintf(r->pool,
                                    "Bearer error=\"insufficient_scope\", "
                                    "scope=\"%s\"",
                                    missing));
        apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
        return HTTP_FORBIDDEN;
    }
    hsc_session_admit_token(r, &t, &u);
    ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r,
                  HSCLOGNO(232) "app password %s (\"%s\") of user %s accepted",
                  t.id, ap_escape_logitem(r->pool, t.name),
                  ap_escape_logitem(r->pool, t.user));
    activity_note(r, sc->global->activity_db, t.id);
    return OK;
}

int hsc_token_challenge(request_rec *r, const hsc_dir_conf_t *d)
{
    const char *realm = ap_auth_name(r);
    char *q;

    if (d->accept_tokens == 0 && !d->basic_password) {
        return 0;
    }
    /* A quoted-string: drop what would end it. */
    q = apr_pstrdup(r->pool, realm ? realm : HSC_AUTH_TYPE);
    for (char *p = q; *p; p++) {
        if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20) {
            *p = '_';
        }
    }
    /* HSCBasicPassword On alone asks for Basic too, so DAV clients ask. */
    if ((d->accept_tokens & HSC_TOKENS_BASIC) || d->basic_password) {
        apr_table_addn(r->err_headers_out, "WWW-Authenticate",
                       apr_psprintf(r->pool,
                                    "Basic realm=\"%s\", charset=\"UTF-8\"",
                                    q));
    }
    if (d->accept_tokens & HSC_TOKENS_BEARER) {
        apr_table_addn(r->err_headers_out, "WWW-Authenticate",
                       apr_psprintf(r->pool, "Bearer realm=\"%s\"", q));
    }
    return 1;
}

/* --- AuthBasicProvider hsc's app passwords ---------------------------------
 */

authn_status hsc_token_basic_check(request_rec *r, const char *user,
                                   const char *password)
{
    const hsc_srv_conf_t *sc = hsc_srv_conf(r->server);
    const hsc_dir_conf_t *d = hsc_dir_conf(r);
    hsc_store_t *store;
    offered_t o;
    hsc_token_t t;
    hsc_user_t u;
    const char *why = NULL, *missing;

    if ((store = hsc_userdb_acquire(r, sc)) == NULL) {
        return AUTH_GENERAL_ERROR;
    }
    o.user = user;
    o.token = password;
    o.len = strlen(password);
    switch (check_token(r, store, &o, &t, &u, &why)) {
    case TK_OK: break;
    case TK_STORE: log_store_fault(r, why); return AUTH_GENERAL_ERROR;
    default:
        (void)refuse(r, sc, d, store, &o, why);
        apr_table_unset(r->err_headers_out, "WWW-Authenticate");
        return AUTH_DENIED;
    }
    if ((missing = missing_scopes(r, d, &t)) != NULL) {
        log_scope(r, &t, missing, 1);
        return AUTH_DENIED;
    }
    hsc_session_admit_token(r, &t, &u);
    activity_note(r, sc->global->activity_db, t.id);
    return AUTH_GRANTED;
}

void hsc_token_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_child_init(token_child_init, NULL, NULL, APR_HOOK_MIDDLE);
}
