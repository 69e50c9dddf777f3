/*
 * mod_hsc_session.c: the cookie on the wire. Verify a request's cookie
 * (hsc_core's six steps, plus the log line and the events), the verdict a
 * verified request carries (r->request_config; reused by subrequests and
 * internal redirects only under the same rules), the sliding refresh, the
 * one Set-Cookie, and the one mapping of a status to a log level and an
 * HTTP status.
 */
#include <string.h>
#include <strings.h>

#include "apr_atomic.h"
#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"

#include "mod_hsc_log.h"
#include "mod_hsc_session.h"
#include "mod_hsc_cachectl.h"
#include "mod_hsc_ops.h"
#include "mod_hsc_userdb.h"
#include "hsc_http.h"

/* What a verified request carries, in r->request_config. */
typedef struct {
    const char *user;
    const char *groups;          /* "g1,g2" or "" */
    char iat[24], exp[24];       /* canonical decimal, for the environment */
    char mfa_at[24];             /* the latest second factor, or "0" */
    char amr[HSC_AMR_NAMES_MAX]; /* "pwd otp mfa" */
    char lid[HSC_LOGIN_ID_SIZE]; /* base64url; "" for format 1 */
    unsigned amr_bits;           /* for Require hsc-factor */
    int64_t iat_n, mfa_at_n;
} hsc_req_t;

/* --- the one status mapping ---------------------------------------------- */

int hsc_status_outcome(hsc_status_t st, int *level)
{
    switch (hsc_status_class(st)) {
    case HSC_CLASS_OK: *level = APLOG_DEBUG; return OK;
    case HSC_CLASS_REFUSAL: /* ordinary ends: quietly */
        *level = APLOG_INFO;
        return HTTP_UNAUTHORIZED;
    case HSC_CLASS_FORGERY: /* nobody honest sends these: loudly */
        *level = APLOG_WARNING;
        return HTTP_UNAUTHORIZED;
    case HSC_CLASS_FAULT: break;
    }
    *level = APLOG_ERR;
    /* Fail closed; a store or memory fault may pass, so come back. */
    return st == HSC_ECRYPTO ? HTTP_INTERNAL_SERVER_ERROR
                             : HTTP_SERVICE_UNAVAILABLE;
}

/* --- the refused-cookie log budget -------------------------------------- */

/* A flood of forged cookies must not fill the disk: per child, at most
 * this many HSC011/HSC012 lines (below error) per interval; the rest are
 * counted and said in one HSC188 line when the next interval's first one
 * is written. The audit log and the metrics still count every refusal. */
#define HSC_REFUSAL_LOG_BURST 20
#define HSC_REFUSAL_LOG_INTERVAL 10 /* seconds */

static apr_uint32_t refusal_window; /* the interval's start, in seconds */
static apr_uint32_t refusal_lines;  /* lines written in it */
static apr_uint32_t refusal_held; /* lines not written since the last HSC188 */

/* 1 when a refused-cookie line at level may be written now. Lines that
 * LogLevel would drop, and errors (store faults say themselves once per
 * outage), do not spend the budget. Races between threads may let a line
 * or two more through; the counts stay exact. */
static int refusal_log_allowed(request_rec *r, int level)
{
    apr_uint32_t now = (apr_uint32_t)apr_time_sec(r->request_time);
    apr_uint32_t start = apr_atomic_read32(&refusal_window);

    if (level <= APLOG_ERR || !APLOG_R_IS_LEVEL(r, level)) {
        return 1;
    }
    if (now - start >= HSC_REFUSAL_LOG_INTERVAL
        && apr_atomic_cas32(&refusal_window, now, start) == start) {
        apr_uint32_t held = apr_atomic_xchg32(&refusal_held, 0);

        apr_atomic_set32(&refusal_lines, 0);
        if (held > 0) {
            ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r,
                          HSCLOGNO(188) "%u refused-cookie lines "
                                        "(HSC011/HSC012) not written in this "
                                        "child since its last such line: at "
                                        "most %d are written per %d s; the "
                                        "audit log and the metrics count "
                                        "every refusal",
                          (unsigned)held, HSC_REFUSAL_LOG_BURST,
                          HSC_REFUSAL_LOG_INTERVAL);
        }
    }
    if (apr_atomic_inc32(&refusal_lines) < HSC_REFUSAL_LOG_BURST) {
        return 1;
    }
    apr_atomic_inc32(&refusal_held);
    return 0;
}

/* --- verifying a request ------------------------------------------------ */

void hsc_session_params(request_rec *r, const hsc_srv_conf_t *sc,
                        const hsc_dir_conf_t *d, hsc_verify_params_t *vp)
{
    vp->keys = sc->keys;
    vp->scope = d->scope;
    vp->address = d->bind_address ? r->useragent_ip : "";
    vp->now = (int64_t)apr_time_sec(r->request_time);
    vp->skew = d->skew;
    vp->max_age = d->max_age;
    vp->refuse_format1 = !d->cookie_format1;
    vp->remember = d->remember;
    vp->allow_pending = 0;
    vp->pending_timeout = 0;
}

/* hsc_session_verify; pending 1: a pending cookie (a second factor due)
 * passes too, for the second-factor step (hsc_session_verify_step). */
static hsc_status_t verify_cookie(request_rec *r, const hsc_srv_conf_t *sc,
                                  const hsc_dir_conf_t *d, hsc_store_t *store,
                                  hsc_cookie_t *c, hsc_user_t *u, int pending)
{
    const char *val;
    size_t vallen;
    int count;
    hsc_status_t st;
    hsc_verify_params_t vp;

    st = hsc_cookie_header_find(apr_table_get(r->headers_in, "Cookie"),
                                d->cookie_name, &val, &vallen, &count);
    if (st == HSC_EINVAL) {
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r,
                      HSCLOGNO(010) "no %s cookie in the request",
                      d->cookie_name);
        return HSC_EINVAL;
    }
    if (st != HSC_OK) {
        if (refusal_log_allowed(r, APLOG_WARNING)) {
            ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r,
                          HSCLOGNO(011) "refused: %d cookies named %s in the "
                                        "request",
                          count, d->cookie_name);
        }
        hsc_ops_cookie(r, NULL, NULL, 0, HSC_EMALFORMED, NULL);
        return HSC_EMALFORMED;
    }
    hsc_session_params(r, sc, d, &vp);
    vp.allow_pending = pending;
    st = hsc_cookie_verify(&vp, store, val, vallen, c, u);
    hsc_userdb_note_recovery(r, sc, store);
    hsc_ops_cookie(r, &vp, val, vallen, st, c);
    if (st != HSC_OK) {
        int level;

        (void)hsc_status_outcome(st, &level);
        /* A database outage is logged once at error, then quietly. */
        if (st == HSC_ESTORE && hsc_store_repeat_fault(store)) {
            level = APLOG_DEBUG;
        }
        if (refusal_log_allowed(r, level)) {
            ap_log_rerror(APLOG_MARK, level, 0, r,
                          HSCLOGNO(012) "cookie refused: %s%s%s",
                          hsc_strerror(st), st == HSC_ESTORE ? ": " : "",
                          st == HSC_ESTORE ? hsc_store_errmsg(store) : "");
        }
    }
    return st;
}

hsc_status_t hsc_session_verify(request_rec *r, const hsc_srv_conf_t *sc,
                                const hsc_dir_conf_t *d, hsc_store_t *store,
                                hsc_cookie_t *c, hsc_user_t *u)
{
    return verify_cookie(r, sc, d, store, c, u, 0);
}

hsc_status_t hsc_session_verify_step(request_rec *r, const hsc_srv_conf_t *sc,
                                     const hsc_dir_conf_t *d,
                                     hsc_store_t *store, hsc_cookie_t *c,
                                     hsc_user_t *u)
{
    return verify_cookie(r, sc, d, store, c, u, 1);
}

/* Tell the rest of httpd: r->user, the auth type, the environment. */
/* 1 when t has an entry whose name begins with "HSC_" (any case). */
static int has_hsc_entry(const apr_table_t *t)
{
    const apr_array_header_t *a = apr_table_elts(t);
    const apr_table_entry_t *e = (const apr_table_entry_t *)a->elts;
    int i;

    for (i = 0; i < a->nelts; i++) {
        if (e[i].key != NULL && strncasecmp(e[i].key, "HSC_", 4) == 0) {
            return 1;
        }
    }
    return 0;
}

static void export_verdict(request_rec *r, const hsc_req_t *rq)
{
    apr_table_t *env = r->subprocess_env;
    /* apr_table_setn compares a new name with every entry whose first
     * four bytes match it, and all of ours begin "HSC_": seven setn were
     * 21 strcasecmp()s a request. Where no HSC_ entry is there yet (a new
     * request: the usual case), addn makes the same table; otherwise
     * (an earlier SetEnv, an internal redirect's adoption) setn replaces
     * whatever is there, so nothing else can speak for these names. */
    void (*put)(apr_table_t *, const char *,
                const char *) = has_hsc_entry(env) ? apr_table_setn
                                                   : apr_table_addn;

    r->user = (char *)rq->user;
    r->ap_auth_type = (char *)HSC_AUTH_TYPE;
    put(env, "HSC_USER", rq->user);
    put(env, "HSC_GROUPS", rq->groups);
    put(env, "HSC_LOGIN_TIME", rq->iat);
    put(env, "HSC_EXPIRES", rq->exp);
    put(env, "HSC_AMR", rq->amr);
    put(env, "HSC_MFA_TIME", rq->mfa_at);
    if (rq->lid[0] != '\0') {
        put(env, "HSC_LOGIN_ID", rq->lid);
        apr_table_setn(r->notes, HSC_NOTE_LOGIN_ID, rq->lid);
    }
}

/* Record the verdict on r: user, auth type, environment, request config. */
static void set_verdict(request_rec *r, const hsc_cookie_t *c,
                        const hsc_user_t *u, int64_t exp)
{
    size_t glen = strlen(u->groups);
    hsc_req_t *rq = apr_palloc(r->pool, sizeof(*rq) + c->user_len + glen + 2);
    char *buf = (char *)(rq + 1);

    memcpy(buf, c->user, c->user_len);
    buf[c->user_len] = '\0';
    rq->user = buf;
    buf += c->user_len + 1;
    memcpy(buf, u->groups, glen + 1);
    rq->groups = buf;
    hsc_format_time(c->iat, rq->iat);
    hsc_format_time(exp, rq->exp);
    hsc_format_time(c->mfa_at, rq->mfa_at);
    hsc_amr_names(c->amr, rq->amr);
    rq->amr_bits = c->amr;
    rq->iat_n = c->iat;
    rq->mfa_at_n = c->mfa_at;
    hsc_login_id_text(c, rq->lid);
    ap_set_module_config(r->request_config, &hsc_module, rq);

    export_verdict(r, rq);
}

/*
 * 1 when a verdict reached under a and one under b would be the same: the
 * same cookie, scope, address binding and age limits. A subrequest or
 * internal redirect into a location that wants another cookie or scope
 * (an SSI include, an ErrorDocument, a rewrite) must verify afresh.
 */
static int same_verification(const hsc_dir_conf_t *a, const hsc_dir_conf_t *b)
{
    return a == b
           || (a != NULL && b != NULL && !strcmp(a->cookie_name, b->cookie_name)
               && !strcmp(a->scope, b->scope)
               && a->bind_address == b->bind_address && a->max_age == b->max_age
               && a->skew == b->skew && a->cookie_format1 == b->cookie_format1
               && a->remember == b->remember);
}

/* The verdict of the main or an earlier request of this one, when it was
 * reached on the same server under the same rules as r's; else NULL. */
static const hsc_req_t *inherited_verdict(const request_rec *r)
{
    const request_rec *o;

    for (o = r->main ? r->main : r->prev; o != NULL;
         o = o->main ? o->main : o->prev) {
        const hsc_req_t *rq = ap_get_module_config(o->request_config,
                                                   &hsc_module);
        if (rq != NULL && o->user != NULL) {
            if (o->server != r->server
                || !same_verification(hsc_dir_conf(r), hsc_dir_conf(o))) {
                return NULL;
            }
            return rq;
        }
    }
    return NULL;
}

/* --- Set-Cookie and the sliding refresh ---------------------------------- */

/* 1 when X-Forwarded-Proto says https (hsc_forwarded_proto: one rule for
 * the login's Origin check and this warning). */
static int forwarded_https(request_rec *r)
{
    const char *p = hsc_forwarded_proto(
        apr_table_get(r->headers_in, "X-Forwarded-Proto"));

    return p != NULL && !strcmp(p, "https");
}

/*
 * The browser keeps a Secure cookie only from https (or from localhost).
 * TLS here is ap_http_scheme(): mod_ssl, or `ServerName https://...` for a
 * server behind a TLS proxy. X-Forwarded-Proto counts only from a proxy
 * that mod_remoteip trusts (it replaced the client address).
 */
static void warn_insecure_cookie(request_rec *r, const hsc_dir_conf_t *d)
{
    static apr_uint32_t warned;
    const char *host = r->hostname;
    size_t n;

    if (!d->secure || !strcmp(ap_http_scheme(r), "https")) {
        return;
    }
    if (host != NULL) {
        n = strlen(host);
        if (!strcasecmp(host, "localhost")
            || (n > 10 && !strcasecmp(host + n - 10, ".localhost"))) {
            return;
        }
    }
    if (forwarded_https(r) && r->useragent_ip != NULL
        && r->connection->client_ip != NULL
        && strcmp(r->useragent_ip, r->connection->client_ip) != 0) {
        return;
    }
    if (apr_atomic_cas32(&warned, 1, 0) != 0) {
        return;
    }
    ap_log_rerror(
        APLOG_MARK, APLOG_WARNING, 0, r,
        HSCLOGNO(141) "the %s cookie is Secure but this request came over "
                      "plain http: the browser will drop it and the user will "
                      "seem not logged in. Serve the site over https; behind a "
                      "TLS proxy use ServerName https://%s or trust the "
                      "proxy's X-Forwarded-Proto with mod_remoteip "
                      "(RemoteIPInternalProxy); HSCCookieSecure Off only for "
                      "testing (said once per child)",
        d->cookie_name, host != NULL ? host : "your.host");
}
hsc_status_t hsc_set_cookie(request_rec *r, const hsc_dir_conf_t *d,
                            const char *value, apr_int64_t lifetime)
{
    hsc_cookie_attrs_t a = hsc_cookie_attrs(d);
    const char *problem = hsc_cookie_attrs_conflict(&a);
    apr_size_t cap;
    char *line;

    if (problem != NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(016) "no cookie set: %s", problem);
        return HSC_EINVAL;
    }
    warn_insecure_cookie(r, d);
    if (lifetime < 0) {
        lifetime = 0;
    }
    /* The attributes' and the date's text, with room to spare. */
    cap = strlen(a.name) + strlen(value) + strlen(a.path)
          + (a.domain ? strlen(a.domain) : 0) + 128;
    line = apr_palloc(r->pool, cap);
    if (!hsc_set_cookie_line(&a, value, lifetime,
                             lifetime ? apr_time_sec(r->request_time) + lifetime
                                      : 0,
                             line, cap)) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(185) "no cookie set: a cookie attribute or "
                                    "the value is not allowed in Set-Cookie");
        return HSC_EINVAL;
    }
    hsc_cachectl_mark(r, 1); /* never stored by a shared cache */
    apr_table_addn(r->err_headers_out, "Set-Cookie", line);
    return HSC_OK;
}

/*
 * The sliding refresh: past half the idle timeout, re-issue the cookie with
 * a later expiry (never past the max age). Returns the expiry the client
 * holds after this response.
 */
static int64_t slide_expiry(request_rec *r, const hsc_srv_conf_t *sc,
                            const hsc_dir_conf_t *d, const hsc_cookie_t *c)
{
    int64_t now = (int64_t)apr_time_sec(r->request_time), exp;
    hsc_verify_params_t vp;
    char value[HSC_COOKIE_VALUE_MAX];
    size_t len;
    hsc_status_t st;
    /* A remembered login slides within its own, longer, span. */
    int rem = (c->amr & HSC_AMR_REM) && d->remember > 0;
    int64_t idle = rem ? d->remember : d->idle;
    int64_t max_age = rem ? d->remember : d->max_age;

    if (!d->refresh || !hsc_cookie_needs_refresh(c, now, idle, max_age)) {
        return c->exp;
    }
    hsc_session_params(r, sc, d, &vp);
    st = hsc_cookie_refresh(&vp, c, idle, value, sizeof(value), &len);
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(015) "cookie refresh failed: %s",
                      hsc_strerror(st));
        return c->exp;
    }
    exp = hsc_cookie_expiry(c->iat, now, idle, max_age);
    if (hsc_set_cookie(r, d, value, exp - now) != HSC_OK) {
        exp = c->exp;
    }
    else {
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r,
                      HSCLOGNO(014) "cookie refreshed until %" APR_INT64_T_FMT,
                      (apr_int64_t)exp);
    }
    hsc_wipe(value, sizeof(value));
    return exp;
}

/* --- the verdict, for check_authn and Require hsc-group ------------------ */

int hsc_session_adopt(request_rec *r)
{
    const hsc_req_t *prev = inherited_verdict(r);

    if (prev == NULL) {
        return 0;
    }
    /* An internal redirect renames the environment to REDIRECT_*: set it. */
    ap_set_module_config(r->request_config, &hsc_module, (void *)prev);
    export_verdict(r, prev);
    hsc_cachectl_mark(r, 0);
    return 1;
}

void hsc_session_admit(request_rec *r, const hsc_srv_conf_t *sc,
                       const hsc_dir_conf_t *d, const hsc_cookie_t *c,
                       const hsc_user_t *u)
{
    set_verdict(r, c, u, slide_expiry(r, sc, d, c));
    /* Private to this user; no-store when slide_expiry set the cookie. */
    hsc_cachectl_mark(r, 0);
}

void hsc_session_admit_token(request_rec *r, const hsc_token_t *t,
                             const hsc_user_t *u)
{
    size_t ulen = strlen(t->user), glen = strlen(u->groups);
    hsc_req_t *rq = apr_pcalloc(r->pool, sizeof(*rq) + ulen + glen + 2);
    char *buf = (char *)(rq + 1);

    memcpy(buf, t->user, ulen + 1);
    rq->user = buf;
    memcpy(buf + ulen + 1, u->groups, glen + 1);
    rq->groups = buf + ulen + 1;
    /* The token's life stands for the login's: made, expires (0: never). */
    hsc_format_time(t->created, rq->iat);
    hsc_format_time(t->expires, rq->exp);
    hsc_format_time(0, rq->mfa_at);
    /* No amr bit: an app password satisfies no Require hsc-factor. */
    apr_cpystrn(rq->amr, HSC_AMR_APP_PASSWORD, sizeof(rq->amr));
    rq->iat_n = t->created;
    ap_set_module_config(r->request_config, &hsc_module, rq);
    export_verdict(r, rq);
    apr_table_setn(r->subprocess_env, "HSC_TOKEN_ID",
                   apr_pstrdup(r->pool, t->id));
    hsc_cachectl_mark(r, 0);
}

void hsc_session_admit_basic(request_rec *r, const hsc_user_t *u,
                             int64_t checked_at)
{
    size_t ulen = strlen(u->name), glen = strlen(u->groups);
    hsc_req_t *rq = apr_pcalloc(r->pool, sizeof(*rq) + ulen + glen + 2);
    char *buf = (char *)(rq + 1);

    memcpy(buf, u->name, ulen + 1);
    rq->user = buf;
    memcpy(buf + ulen + 1, u->groups, glen + 1);
    rq->groups = buf + ulen + 1;
    /* The login time is the password's check (the KDF run this entry of
     * the child's cache stands for); nothing expires it but the cache. */
    hsc_format_time(checked_at, rq->iat);
    hsc_format_time(0, rq->exp);
    hsc_format_time(0, rq->mfa_at);
    /* No amr bit: the password over Basic satisfies no Require hsc-factor. */
    apr_cpystrn(rq->amr, HSC_AMR_BASIC_PASSWORD, sizeof(rq->amr));
    rq->iat_n = checked_at;
    ap_set_module_config(r->request_config, &hsc_module, rq);
    export_verdict(r, rq);
    hsc_cachectl_mark(r, 0);
}

int hsc_browser_navigation(const request_rec *r)
{
    /* HEAD included: its method number is M_GET. */
    return hsc_is_navigation(r->method_number == M_GET,
                             apr_table_get(r->headers_in, "Sec-Fetch-Mode"),
                             apr_table_get(r->headers_in, "Sec-Fetch-Dest"),
                             apr_table_get(r->headers_in, "Accept"));
}

const char *hsc_login_url_back(request_rec *r, const hsc_dir_conf_t *d,
                               const char *extra)
{
    char *ret;

    /* Only origin-form targets can come back: never "http://x/..." */
    if (r->unparsed_uri == NULL || r->unparsed_uri[0] != '/') {
        return d->login_url;
    }
    ret = apr_palloc(r->pool, 3 * strlen(r->unparsed_uri) + 1);
    hsc_query_escape(r->unparsed_uri, ret);
    return apr_pstrcat(r->pool, d->login_url,
                       strchr(d->login_url, '?') ? "&" : "?", "return=", ret,
                       extra, NULL);
}

int hsc_session_auth(const request_rec *r, unsigned *amr, int64_t *iat,
                     int64_t *mfa_at)
{
    const hsc_req_t *rq = ap_get_module_config(r->request_config, &hsc_module);

    if (rq == NULL) {
        rq = inherited_verdict(r);
    }
    if (rq == NULL) {
        return 0;
    }
    *amr = rq->amr_bits;
    *iat = rq->iat_n;
    *mfa_at = rq->mfa_at_n;
    return 1;
}

const char *hsc_session_field(const request_rec *r, hsc_identity_field_t f)
{
    const hsc_req_t *rq = ap_get_module_config(r->request_config, &hsc_module);

    if (rq == NULL) {
        rq = inherited_verdict(r);
    }
    if (rq == NULL) {
        return NULL;
    }
    switch (f) {
    case HSC_ID_USER: return rq->user;
    case HSC_ID_GROUPS: return rq->groups;
    case HSC_ID_LOGIN_TIME: return rq->iat;
    case HSC_ID_EXPIRES: return rq->exp;
    case HSC_ID_METHODS: return rq->amr;
    case HSC_ID_MFA_TIME: return rq->mfa_at;
    case HSC_ID_LOGIN_ID: return rq->lid;
    default: return NULL;
    }
}

const char *hsc_session_groups(const request_rec *r)
{
    const hsc_req_t *rq = ap_get_module_config(r->request_config, &hsc_module);

    if (rq == NULL) {
        rq = inherited_verdict(r);
    }
    return rq != NULL ? rq->groups : NULL;
}
