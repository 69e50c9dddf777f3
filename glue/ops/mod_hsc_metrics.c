/*
 * mod_hsc_metrics.c: SetHandler hsc-metrics, Prometheus text exposition
 * format 0.0.4 (docs/metrics.md).
 *
 * The counters live in one anonymous shared memory segment made by the
 * parent in post_config, which every child inherits, so a scrape sums all
 * children and threads without asking them. A request only ever does an
 * atomic add (apr_atomic_*64): no lock. A restart makes a new segment, so
 * counters start again from zero, which Prometheus's rate() expects of
 * counters. Key ids are fixed per configuration: every kid of every
 * HSCKeyFile gets its slot at startup.
 */
#include <stddef.h>
#include <string.h>

#include "apr_strings.h"
#include "apr_atomic.h"
#include "apr_shm.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"

#include "mod_hsc_log.h"
#include "mod_hsc_metrics.h"
#include "hsc_version.h"
#include "mod_hsc_config.h"

/* Upper bounds of the KDF histogram, in microseconds and as printed. */
static const apr_uint64_t kdf_le_us[] = {5000,    10000,   25000,   50000,
                                         100000,  250000,  500000,  1000000,
                                         2500000, 5000000, 10000000};
static const char *const kdf_le[] = {"0.005", "0.01", "0.025", "0.05",
                                     "0.1",   "0.25", "0.5",   "1",
                                     "2.5",   "5",    "10"};
#define KDF_BUCKETS (sizeof(kdf_le_us) / sizeof(kdf_le_us[0]))
/* Key ids counted one by one; more than that share kid="other". */
#define KIDS_MAX 64

typedef struct {
    apr_uint64_t cookie[HSC_COOKIE_OUTCOMES];
    apr_uint64_t login[HSC_METHODS][HSC_LOGIN_OUTCOMES];
    apr_uint64_t logout[2];                   /* everywhere false, true */
    apr_uint64_t lockout[2];                  /* address, user */
    apr_uint64_t kdf_bucket[KDF_BUCKETS + 1]; /* last: over every bound */
    apr_uint64_t kdf_sum_us;
    apr_uint64_t kdf_running;
    apr_uint64_t cache_hits, cache_misses;
    apr_uint64_t store_errors;
    apr_uint64_t kid_uses[KIDS_MAX + 1]; /* last: "other" */
} metrics_t;

static metrics_t *m; /* NULL until post_config made it */
static const char *kids[KIDS_MAX];
static int nkids;

#define BUMP(field)                                                            \
    do {                                                                       \
        if (m != NULL)                                                         \
            apr_atomic_inc64(&m->field);                                       \
    } while (0)

void hsc_metrics_login(hsc_method_t how, hsc_login_outcome_t o)
{
    BUMP(login[how][o]);
}

void hsc_metrics_cookie(hsc_cookie_outcome_t o)
{
    BUMP(cookie[o]);
}

void hsc_metrics_logout(int everywhere)
{
    BUMP(logout[everywhere ? 1 : 0]);
}

void hsc_metrics_lockout(int by_user)
{
    BUMP(lockout[by_user ? 1 : 0]);
}

void hsc_metrics_kdf_begin(void)
{
    BUMP(kdf_running);
}

void hsc_metrics_kdf_end(apr_interval_time_t took)
{
    apr_uint64_t us = took > 0 ? (apr_uint64_t)took : 0;
    size_t i;

    if (m == NULL) {
        return;
    }
    apr_atomic_dec64(&m->kdf_running);
    for (i = 0; i < KDF_BUCKETS && us > kdf_le_us[i]; ++i) {
    }
    apr_atomic_inc64(&m->kdf_bucket[i]);
    apr_atomic_add64(&m->kdf_sum_us, us);
}

void hsc_metrics_store_error(void)
{
    BUMP(store_errors);
}

void hsc_metrics_key_use(const char *kid)
{
    int i;

    for (i = 0; i < nkids && strcmp(kids[i], kid) != 0; ++i) {
    }
    BUMP(kid_uses[i < nkids ? i : KIDS_MAX]);
}

/* The store's record cache reports here (hsc_store_cache_note). */
static void cache_note(int hit)
{
    if (hit) {
        BUMP(cache_hits);
    }
    else {
        BUMP(cache_misses);
    }
}

static void add_kid(const char *kid)
{
    int i;

    for (i = 0; i < nkids; ++i) {
        if (!strcmp(kids[i], kid)) {
            return;
        }
    }
    if (nkids < KIDS_MAX) {
        kids[nkids++] = kid;
    }
}

static int metrics_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                               apr_pool_t *ptemp, server_rec *main_s)
{
    apr_shm_t *shm;
    apr_status_t rv;
    server_rec *s;

    (void)plog;
    (void)ptemp;
    m = NULL;
    nkids = 0;
    hsc_store_set_cache_observer(NULL);
    /* Not for httpd's first, dry configuration pass. */
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG) {
        return OK;
    }
    for (s = main_s; s != NULL; s = s->next) {
        const hsc_srv_conf_t *sc = hsc_srv_conf(s);
        int i;
        for (i = 0; sc->keys != NULL && i < hsc_keyring_count(sc->keys); ++i) {
            add_kid(hsc_key_id(hsc_keyring_key(sc->keys, i)));
        }
    }
    /* Anonymous: nothing on disk, gone with the last process using it. */
    rv = apr_shm_create(&shm, sizeof(metrics_t), NULL, pconf);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_ERR, rv, main_s,
                     HSCLOGNO(162) "cannot create the shared memory of the "
                                   "metrics: hsc-metrics will answer 503");
        return OK;
    }
    m = apr_shm_baseaddr_get(shm);
    memset(m, 0, sizeof(*m));
    hsc_store_set_cache_observer(cache_note);
    return OK;
}

#define RD(field) apr_atomic_read64(&m->field)

static void help(request_rec *r, const char *name, const char *type,
                 const char *text)
{
    ap_rprintf(r, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

/* The build, and the counters by outcome. */
static void write_outcomes(request_rec *r)
{
    size_t i, h;

    help(r, "hsc_build_info", "gauge",
         "The mod_hsc version serving; always 1.");
    ap_rprintf(r, "hsc_build_info{version=\"%s\"} 1\n", HSC_VERSION);
    help(r, "hsc_cookie_checks_total", "counter",
         "Session cookies checked, by outcome (ok, or why refused).");
    for (i = 0; i < HSC_COOKIE_OUTCOMES; ++i) {
        ap_rprintf(r,
                   "hsc_cookie_checks_total{outcome=\"%s\"} %" APR_UINT64_T_FMT
                   "\n",
                   hsc_cookie_outcome_name((hsc_cookie_outcome_t)i),
                   RD(cookie[i]));
    }
    help(r, "hsc_login_attempts_total", "counter",
         "Login attempts, by step (password, second_factor), method and "
         "outcome.");
    for (h = 0; h < HSC_METHODS; ++h) {
        for (i = 0; i < HSC_LOGIN_OUTCOMES; ++i) {
            /* Only the pairs that can happen: a code step has no
             * bad_credentials, a password step no bad_code. */
            if (!hsc_method_outcome_possible((hsc_method_t)h,
                                             (hsc_login_outcome_t)i)) {
                continue;
            }
            ap_rprintf(r,
                       "hsc_login_attempts_total{step=\"%s\",method=\"%s\","
                       "outcome=\"%s\"} %" APR_UINT64_T_FMT "\n",
                       h == HSC_METHOD_PWD ? "password" : "second_factor",
                       hsc_method_name((hsc_method_t)h),
                       hsc_login_outcome_name((hsc_login_outcome_t)i),
                       RD(login[h][i]));
        }
    }
    help(r, "hsc_logouts_total", "counter",
         "Logouts; everywhere=\"true\" when the user's other cookies were "
         "revoked.");
    ap_rprintf(r,
               "hsc_logouts_total{everywhere=\"false\"} %" APR_UINT64_T_FMT
               "\nhsc_logouts_total{everywhere=\"true\"} %" APR_UINT64_T_FMT
               "\n",
               RD(logout[0]), RD(logout[1]));
    help(r, "hsc_throttle_lockouts_total", "counter",
         "Logins refused (429) by a full failed-login counter.");
    ap_rprintf(
        r,
        "hsc_throttle_lockouts_total{counter=\"address\"} %" APR_UINT64_T_FMT
        "\nhsc_throttle_lockouts_total{counter="
        "\"user\"} %" APR_UINT64_T_FMT "\n",
        RD(lockout[0]), RD(lockout[1]));
}

/* The KDF histogram. */
static void write_kdf(request_rec *r)
{
    apr_uint64_t cum = 0;
    size_t i;

    help(r, "hsc_kdf_seconds", "histogram",
         "Time of the password checks of logins (the KDF).");
    for (i = 0; i < KDF_BUCKETS; ++i) {
        cum += RD(kdf_bucket[i]);
        ap_rprintf(r,
                   "hsc_kdf_seconds_bucket{le=\"%s\"} %" APR_UINT64_T_FMT "\n",
                   kdf_le[i], cum);
    }
    cum += RD(kdf_bucket[KDF_BUCKETS]);
    ap_rprintf(r,
               "hsc_kdf_seconds_bucket{le=\"+Inf\"} %" APR_UINT64_T_FMT
               "\nhsc_kdf_seconds_sum %" APR_UINT64_T_FMT
               ".%06" APR_UINT64_T_FMT
               "\nhsc_kdf_seconds_count %" APR_UINT64_T_FMT "\n",
               cum, RD(kdf_sum_us) / 1000000, RD(kdf_sum_us) % 1000000, cum);
}

/* The metrics of one value and no label, in the order they are shown. */
static const struct {
    const char *name, *type, *text;
    size_t offset; /* of the apr_uint64_t in metrics_t */
} plain[] = {
    {"hsc_kdf_slots_in_use", "gauge",
     "Password checks running now, over all children.",
     offsetof(metrics_t, kdf_running)},
    {"hsc_user_cache_hits_total", "counter",
     "User lookups answered by the record cache.",
     offsetof(metrics_t, cache_hits)},
    {"hsc_user_cache_misses_total", "counter",
     "User lookups the record cache could not answer (the query ran).",
     offsetof(metrics_t, cache_misses)},
    {"hsc_store_errors_total", "counter",
     "User database failures (cannot open, query failed).",
     offsetof(metrics_t, store_errors)},
};

static void write_plain(request_rec *r)
{
    size_t i;

    for (i = 0; i < sizeof(plain) / sizeof(plain[0]); ++i) {
        help(r, plain[i].name, plain[i].type, plain[i].text);
        ap_rprintf(r, "%s %" APR_UINT64_T_FMT "\n", plain[i].name,
                   apr_atomic_read64(
                       (apr_uint64_t *)((char *)m + plain[i].offset)));
    }
}

/* Uses by key id. */
static void write_keys(request_rec *r)
{
    int k;

    help(r, "hsc_signing_key_uses_total", "counter",
         "Cookies verified or signed at login, by key id.");
    for (k = 0; k < nkids; ++k) {
        ap_rprintf(r,
                   "hsc_signing_key_uses_total{kid=\"%s\"} %" APR_UINT64_T_FMT
                   "\n",
                   kids[k], RD(kid_uses[k]));
    }
    ap_rprintf(r,
               "hsc_signing_key_uses_total{kid=\"other\"} %" APR_UINT64_T_FMT
               "\n",
               RD(kid_uses[KIDS_MAX]));
}

/* SetHandler hsc-metrics: the Prometheus text exposition. */
static int metrics_handler(request_rec *r)
{
    if (r->handler == NULL || strcmp(r->handler, "hsc-metrics") != 0) {
        return DECLINED;
    }
    r->allowed = AP_METHOD_BIT << M_GET;
    if (r->method_number != M_GET) {
        return HTTP_METHOD_NOT_ALLOWED;
    }
    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    if (m == NULL) {
        return HTTP_SERVICE_UNAVAILABLE; /* logged at startup (HSC162) */
    }
    ap_set_content_type(r, "text/plain; version=0.0.4; charset=utf-8");
    if (r->header_only) {
        return OK;
    }
    write_outcomes(r);
    write_kdf(r);
    write_plain(r);
    write_keys(r);
    return OK;
}

void hsc_metrics_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_post_config(metrics_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(metrics_handler, NULL, NULL, APR_HOOK_MIDDLE);
}
