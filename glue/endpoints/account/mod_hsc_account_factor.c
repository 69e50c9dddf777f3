/*
 * mod_hsc_account_factor.c: the account page's second factors
 * (docs/account-page.md): setting up an authenticator app, removing it,
 * and new recovery codes. mod_hsc_account.c has checked the session and,
 * for all but the first code of a setup, a recent login or the password.
 *
 * Setting up is two steps with nothing kept between them but the
 * database row: totp-setup stores a new secret, sealed and inactive, and
 * shows its QR code; totp-confirm opens that row, and the app's first
 * right code activates it (and uses up its step). An inactive row logs
 * nobody in and asks nothing of a login.
 */
#include <string.h>

#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_protocol.h"

#include "mod_hsc_account_factor.h"
#include "mod_hsc_account_view.h"
#include "mod_hsc_factor.h"
#include "mod_hsc_form.h"
#include "mod_hsc_log.h"
#include "mod_hsc_ops.h"
#include "mod_hsc_userdb.h"
#include "hsc_factors.h"
#include "hsc_qr.h"
#include "hsc_recovery.h"
#include "hsc_seal.h"
#include "hsc_totp.h"

/* The account page's own URL, with a notice of what was done. */
static const char *done_url(request_rec *r, const char *what)
{
    return apr_pstrcat(r->pool, r->uri, "?done=", what, NULL);
}

/* The name the app shows beside the account: HSCSiteName, else the host. */
static const char *issuer(request_rec *r, const hsc_account_t *a)
{
    return a->d->site_name && *a->d->site_name ? a->d->site_name : r->hostname;
}

/* A factor fault: logged, and 503 (fail closed). */
static int fault(request_rec *r, const hsc_account_t *a, const char *action,
                 const char *what, const char *why)
{
    ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                  HSCLOGNO(214) "account action %s of user \"%s\" failed: "
                                "%s: %s",
                  action, ap_escape_logitem(r->pool, a->user), what, why);
    hsc_ops_account(r, a->user, action, "store_fault");
    return hsc_userdb_unavailable(r);
}

/* Why a factor call failed: the store's words, else the status's. */
static const char *why(const hsc_factors_t *f, hsc_status_t st)
{
    return hsc_factors_errmsg(f)[0] ? hsc_factors_errmsg(f) : hsc_strerror(st);
}

/* The setup page for secret (n bytes): its QR code and key. */
static int setup_page(request_rec *r, const hsc_account_t *a,
                      const hsc_totp_params_t *p, const unsigned char *secret,
                      size_t n, int status, const char *error)
{
    hsc_page_conf_t pc = hsc_form_page_conf(a->d);
    char uri[1024], key[HSC_BASE32_LEN(HSC_TOTP_SECRET_MAX) + 1];
    const char *svg = NULL, *html;

    key[hsc_base32_encode(secret, n, key)] = '\0';
    if (hsc_totp_uri(p, issuer(r, a), a->user, secret, n, uri, sizeof(uri))
        == HSC_OK) {
        svg = hsc_qr_svg(r->pool, uri,
                         "QR code of the key for your authenticator app");
    }
    /* Cancel: back to the account page, or to the link's first page. */
    html = hsc_page_totp_setup(r->pool, &pc, svg, key, a->link,
                               a->link ? apr_pstrcat(r->pool, r->uri,
                                                     "?link=", a->link, NULL)
                                       : r->uri,
                               error);
    hsc_wipe(uri, sizeof(uri));
    hsc_wipe(key, sizeof(key));
    return hsc_form_send(r, status, html);
}

int hsc_account_totp_setup(request_rec *r, const hsc_account_t *a)
{
    unsigned char secret[HSC_TOTP_SECRET_LEN], sealed[HSC_TOTP_SEALED_MAX];
    hsc_factor_info_t fi;
    hsc_totp_params_t p;
    hsc_factors_t *f;
    hsc_status_t st;
    size_t n = 0;
    int rv;

    if ((f = hsc_factor_open(r, a->sc, 0)) == NULL) {
        return fault(r, a, "totp-setup", "the factors", "cannot be read");
    }
    if ((st = hsc_factors_get(f, a->user, &fi)) != HSC_OK) {
        return fault(r, a, "totp-setup", "the factors", hsc_factors_errmsg(f));
    }
    hsc_wipe(fi.sealed, sizeof(fi.sealed));
    if (fi.totp == HSC_TOTP_ACTIVE) {
        return hsc_account_show(r, a, HTTP_BAD_REQUEST, NULL,
                                "An authenticator app is on already: remove "
                                "it first to set up another.");
    }
    hsc_totp_defaults(&p);
    st = hsc_random(secret, sizeof(secret));
    if (st == HSC_OK) {
        st = hsc_seal(hsc_keyring_signer(a->sc->keys), "totp", a->user, secret,
                      sizeof(secret), sealed, sizeof(sealed), &n);
    }
    if (st == HSC_OK) {
        /* Inactive until its first code: it asks nothing of a login. */
        st = hsc_factors_totp_enrol(f, a->user, sealed, n, &p, 0,
                                    (int64_t)apr_time_sec(r->request_time));
    }
    if (st != HSC_OK) {
        hsc_wipe(secret, sizeof(secret));
        return fault(r, a, "totp-setup", "a new secret", why(f, st));
    }
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(215) "user \"%s\" began setting up an "
                                "authenticator app",
                  ap_escape_logitem(r->pool, a->user));
    rv = setup_page(r, a, &p, secret, sizeof(secret), HTTP_OK, NULL);
    hsc_wipe(secret, sizeof(secret));
    return rv;
}

/* New recovery codes for a (replacing any), shown once; notice says what
 * came before them (or NULL). */
static int new_codes(request_rec *r, const hsc_account_t *a, hsc_factors_t *f,
                     const char *notice)
{
    char codes[HSC_RECOVERY_DEFAULT_COUNT][HSC_RECOVERY_SHOWN_SIZE];
    unsigned char hashes[HSC_RECOVERY_DEFAULT_COUNT][HSC_RECOVERY_HASH_LEN];
    const char *shown[HSC_RECOVERY_DEFAULT_COUNT];
    hsc_page_conf_t pc = hsc_form_page_conf(a->d);
    hsc_status_t st;
    const char *html;
    size_t i;

    st = hsc_recovery_make(a->user, HSC_RECOVERY_DEFAULT_COUNT, codes, hashes);
    if (st == HSC_OK) {
        st = hsc_factors_recovery_set(f, a->user,
                                      (const unsigned char(
                                              *)[HSC_RECOVERY_HASH_LEN])hashes,
                                      HSC_RECOVERY_DEFAULT_COUNT,
                                      (int64_t)apr_time_sec(r->request_time));
    }
    if (st != HSC_OK) {
        hsc_wipe(codes, sizeof(codes));
        return fault(r, a, "recovery-new", "new recovery codes", why(f, st));
    }
    ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                  HSCLOGNO(216) "user \"%s\" made new recovery codes",
                  ap_escape_logitem(r->pool, a->user));
    hsc_ops_account(r, a->user, "recovery-new", NULL);
    for (i = 0; i < HSC_RECOVERY_DEFAULT_COUNT; i++) {
        shown[i] = codes[i];
    }
    html = hsc_page_recovery_codes(r->pool, &pc, notice, shown,
                                   HSC_RECOVERY_DEFAULT_COUNT,
                                   a->ret ? a->ret : r->uri);
    hsc_wipe(codes, sizeof(codes));
    return hsc_form_send(r, HTTP_OK, html);
}

/* a's authenticator app is on (its first code taken): logged, this
 * session re-issued with it, then the first recovery codes (none left),
 * the link's message or the page. */
static int totp_on(request_rec *r, const hsc_account_t *a, hsc_factors_t *fs,
                   int recovery_left, int64_t now)
{
    ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                  HSCLOGNO(217) "user \"%s\" turned on an authenticator app",
                  ap_escape_logitem(r->pool, a->user));
    hsc_ops_account(r, a->user, "totp-on", NULL);
    if (a->link == NULL && a->c.format == 2) {
        /* The code just proved the new factor: this session now carries
         * it, so the next change (recovery codes, a passkey) needs no
         * second sign-in, and a login that waited for a first factor
         * (a->setup) is finished. A failure means signing in again. */
        hsc_account_t b = *a;
        b.c.amr = (b.c.amr & ~HSC_AMR_PENDING) | HSC_AMR_OTP;
        b.c.mfa_at = now < a->c.iat ? a->c.iat : now;
        (void)hsc_account_reissue(r, &b, &a->u, a->c.auth);
    }
    /* Without recovery codes a lost phone locks the user out: a first set
     * comes with the app. */
    if (recovery_left == 0) {
        return new_codes(r, a, fs,
                         "The authenticator app is on. Now save these "
                         "recovery codes.");
    }
    if (a->link != NULL) {
        /* No session to go back to: say so, and where to log in. */
        return hsc_account_message(r, a->d, HTTP_OK, "Authenticator app on",
                                   "The authenticator app is on: signing in "
                                   "asks for its code.");
    }
    apr_table_setn(r->headers_out, "Location", done_url(r, "totp-on"));
    return HTTP_SEE_OTHER;
}

/* A first code without a setup waiting: start again (by the link). */
static int no_setup(request_rec *r, const hsc_account_t *a)
{
    hsc_page_conf_t pc = hsc_form_page_conf(a->d);

    if (a->link != NULL) {
        return hsc_form_send(r, HTTP_BAD_REQUEST,
                             hsc_page_message(r->pool, &pc, "Start again",
                                              "No authenticator app is being "
                                              "set up: open the link again.",
                                              1, NULL, NULL));
    }
    return hsc_account_show(r, a, HTTP_BAD_REQUEST, NULL,
                            "No authenticator app is being set up: "
                            "start again.");
}

int hsc_account_totp_confirm(request_rec *r, const hsc_account_t *a,
                             const hsc_login_form_t *f)
{
    unsigned char secret[HSC_TOTP_SECRET_MAX];
    int64_t step = 0, now = (int64_t)apr_time_sec(r->request_time);
    hsc_factor_info_t fi;
    hsc_factors_t *fs;
    hsc_status_t st;
    char digits[16];
    size_t n = 0;
    int rv;

    if ((fs = hsc_factor_open(r, a->sc, 0)) == NULL) {
        return fault(r, a, "totp-confirm", "the factors", "cannot be read");
    }
    if ((st = hsc_factors_get(fs, a->user, &fi)) != HSC_OK) {
        return fault(r, a, "totp-confirm", "the factors",
                     hsc_factors_errmsg(fs));
    }
    if (fi.totp != HSC_TOTP_ENROLLING) {
        hsc_wipe(fi.sealed, sizeof(fi.sealed));
        return no_setup(r, a);
    }
    st = hsc_unseal(a->sc->keys, "totp", a->user, fi.sealed, fi.sealed_len,
                    secret, sizeof(secret), &n, NULL);
    hsc_wipe(fi.sealed, sizeof(fi.sealed));
    if (st != HSC_OK) {
        /* Its key left the key file since the setup began. */
        return hsc_account_show(r, a, HTTP_BAD_REQUEST, NULL,
                                "This setup has expired: start again.");
    }
    if (!f->code.present
        || hsc_totp_code_parse(&fi.params, f->code.value, f->code.len, digits)
               != HSC_OK
        || hsc_totp_check(&fi.params, secret, n, digits, now, a->d->totp_skew,
                          -1, &step)
               != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(219) "the first code of the authenticator "
                                    "app of user \"%s\" is wrong",
                      ap_escape_logitem(r->pool, a->user));
        hsc_ops_account(r, a->user, "totp-confirm", "bad_code");
        rv = setup_page(r, a, &fi.params, secret, n, HTTP_BAD_REQUEST,
                        "That code is not right. Check the phone's clock, "
                        "and enter the code the app shows now.");
        hsc_wipe(secret, sizeof(secret));
        return rv;
    }
    hsc_wipe(secret, sizeof(secret));
    if (a->link_hash != NULL) {
        /* By a link: it is used now, once, whoever else holds it. */
        char owner[HSC_USER_MAX + 1];
        st = hsc_factors_link_take(fs, a->link_hash, HSC_LINK_ENROL, now,
                                   owner);
        if (st != HSC_OK || strcmp(owner, a->user) != 0) {
            return hsc_account_message(r, a->d, HTTP_BAD_REQUEST, "Link used",
                                       "This link was used already. Ask for "
                                       "a new one.");
        }
    }
    /* The step is used: this code cannot log in after it. */
    st = hsc_factors_totp_accept(fs, a->user, step * (int64_t)fi.params.period);
    if (st == HSC_OK) {
        st = hsc_factors_totp_activate(fs, a->user);
    }
    if (st != HSC_OK) {
        return fault(r, a, "totp-confirm", "activating it", why(fs, st));
    }
    return totp_on(r, a, fs, fi.recovery_left, now);
}

int hsc_account_totp_remove(request_rec *r, const hsc_account_t *a)
{
    hsc_factors_t *f;
    hsc_status_t st;
    hsc_user_t nu;

    if ((f = hsc_factor_open(r, a->sc, 0)) == NULL) {
        return fault(r, a, "totp-remove", "the factors", "cannot be read");
    }
    st = hsc_factors_totp_remove(f, a->user);
    if (st == HSC_ENOUSER) {
        return hsc_account_show(r, a, HTTP_BAD_REQUEST, NULL,
                                "No authenticator app is on.");
    }
    if (st != HSC_OK) {
        return fault(r, a, "totp-remove", "removing it", hsc_factors_errmsg(f));
    }
    /* A factor that went may have been a thief's: every other session
     * ends (hsc-v2.md, revocation), this one gets the new gen. */
    st = hsc_store_revoke_now(a->store, a->user,
                              (int64_t)apr_time_sec(r->request_time));
    if (st == HSC_OK) {
        st = hsc_store_get_fresh(a->store, a->user, strlen(a->user), &nu);
    }
    if (st == HSC_OK) {
        st = hsc_account_reissue(r, a, &nu, a->c.auth);
    }
    ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                  HSCLOGNO(218) "user \"%s\" removed their authenticator "
                                "app%s",
                  ap_escape_logitem(r->pool, a->user),
                  st == HSC_OK ? "; their other sessions end"
                               : "; their sessions could not be ended");
    hsc_ops_account(r, a->user, "totp-off", NULL);
    if (st != HSC_OK) {
        return fault(r, a, "totp-remove", "ending the other sessions",
                     hsc_strerror(st));
    }
    apr_table_setn(r->headers_out, "Location", done_url(r, "totp-off"));
    return HTTP_SEE_OTHER;
}

int hsc_account_recovery_new(request_rec *r, const hsc_account_t *a)
{
    hsc_factors_t *f;

    if ((f = hsc_factor_open(r, a->sc, 0)) == NULL) {
        return fault(r, a, "recovery-new", "the factors", "cannot be read");
    }
    return new_codes(r, a, f, NULL);
}
