/*
 * mod_hsc_login_pad.c: the pad under every failed login.
 *
 * An unknown name runs the dummy KDF (HSCDummyKDF); a known user runs
 * their own. A user stored with a cheaper KDF than the dummy used to fail
 * faster than an unknown name (or, when the dummy ran after their own,
 * slower): either way one request told that the name exists. Now every
 * refusal of a checked password sleeps until the pad has passed: the
 * longest of the last HSC_PAD_SAMPLES runs of the dummy in this child
 * (each unknown name's check is one), first filled by one run measured at
 * startup. As Authelia does, a sleep, not a second KDF: the pad follows
 * the load because it is made of recent runs. A user whose KDF costs more
 * than the dummy still fails slower than an unknown name; the first such
 * failure in a child is logged (HSC190) with what to do.
 */
#include <string.h>

#include "apr_atomic.h"
#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"

#include "mod_hsc_log.h"
#include "mod_hsc_login_pad.h"
#include "hsc_password.h"

/* Recent runs of one dummy KDF kept per child. */
#define HSC_PAD_SAMPLES 16
/* Distinct HSCDummyKDF settings with a pad of their own. */
#define HSC_PADS 16
/* No failure sleeps longer than this, whatever was measured. */
#define HSC_PAD_MAX apr_time_from_sec(5)

typedef struct {
    hsc_kdf_t kdf;
    apr_uint32_t us[HSC_PAD_SAMPLES]; /* microseconds */
    apr_uint32_t next;
    apr_uint32_t costlier_logged; /* HSC190 said in this child */
} pad_t;

/* Made by post_config in the parent; each child updates its own copy. */
static pad_t pads[HSC_PADS];
static int pad_count;

static pad_t *pad_of(const hsc_kdf_t *kdf)
{
    int i;

    for (i = 0; i < pad_count; ++i) {
        if (hsc_kdf_same(&pads[i].kdf, kdf)) {
            return &pads[i];
        }
    }
    return NULL;
}

static apr_time_t pad_value(const pad_t *f)
{
    apr_uint32_t most = 0;
    int i;

    for (i = 0; i < HSC_PAD_SAMPLES; ++i) {
        apr_uint32_t v = apr_atomic_read32((apr_uint32_t *)&f->us[i]);

        most = v > most ? v : most;
    }
    return (apr_time_t)most;
}

static void pad_sample(pad_t *f, apr_time_t took)
{
    apr_uint32_t i = apr_atomic_inc32(&f->next) % HSC_PAD_SAMPLES;

    if (took > HSC_PAD_MAX) {
        took = HSC_PAD_MAX;
    }
    apr_atomic_set32(&f->us[i], (apr_uint32_t)took);
}

/* One run of kdf, timed, as every sample of a new pad. */
static void pad_measure(server_rec *s, const hsc_kdf_t *kdf)
{
    pad_t *f;
    apr_time_t t0 = apr_time_now(), took;
    int i;

    if (pad_count == HSC_PADS) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                     HSCLOGNO(191) "more than %d different HSCDummyKDF "
                                   "settings: failed logins of this server "
                                   "are not padded to its dummy's cost",
                     HSC_PADS);
        return;
    }
    if (hsc_password_dummy(kdf) != HSC_OK) {
        return; /* logins meet the same fault: HSC_ECRYPTO, logged there */
    }
    took = apr_time_now() - t0;
    f = &pads[pad_count++];
    f->kdf = *kdf;
    f->next = 0;
    f->costlier_logged = 0;
    for (i = 0; i < HSC_PAD_SAMPLES; ++i) {
        f->us[i] = (apr_uint32_t)(took > HSC_PAD_MAX ? HSC_PAD_MAX : took);
    }
    ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, s,
                 HSCLOGNO(192) "a failed login takes at least %" APR_TIME_T_FMT
                               " ms here: one run of HSCDummyKDF",
                 took / 1000);
}

static int pad_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                           apr_pool_t *ptemp, server_rec *main_s)
{
    server_rec *s;

    (void)pconf;
    (void)plog;
    (void)ptemp;
    pad_count = 0;
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG) {
        return OK;
    }
    for (s = main_s; s != NULL; s = s->next) {
        const hsc_srv_conf_t *sc = hsc_srv_conf(s);

        if (sc->userdb != NULL && pad_of(&sc->dummy_kdf) == NULL) {
            pad_measure(s, &sc->dummy_kdf);
        }
    }
    return OK;
}

/* A failure that took longer than the pad allows, once per child and
 * dummy setting. */
static void log_costlier(request_rec *r, pad_t *f, apr_time_t took,
                         apr_time_t pad)
{
    if (apr_atomic_cas32(&f->costlier_logged, 1, 0) != 0) {
        return;
    }
    ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                  HSCLOGNO(190) "a failed login took %" APR_TIME_T_FMT
                                " ms, more than the %" APR_TIME_T_FMT
                                " ms of HSCDummyKDF that every failed login "
                                "takes: a user's KDF costs more than the "
                                "dummy, so such users' failures can be told "
                                "from unknown names. Set HSCDummyKDF to the "
                                "costliest KDF in use (hsc-admin list shows "
                                "them); said once per child and dummy",
                  took / 1000, pad / 1000);
}

void hsc_login_pad(request_rec *r, const hsc_srv_conf_t *sc, hsc_status_t st,
                   apr_time_t took)
{
    pad_t *f = pad_of(&sc->dummy_kdf);
    apr_time_t pad;

    if (f == NULL || hsc_status_class(st) != HSC_CLASS_REFUSAL) {
        return;
    }
    if (st == HSC_ENOUSER) {
        pad_sample(f, took);
    }
    pad = pad_value(f);
    if (took < pad) {
        apr_sleep(pad - took);
    }
    else if (st != HSC_ENOUSER && took > pad + pad / 2) {
        log_costlier(r, f, took, pad);
    }
}

void hsc_login_pad_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_post_config(pad_post_config, NULL, NULL, APR_HOOK_MIDDLE);
}
