/*
 * mod_hsc_account_passkey.c: the account page's passkey forms (ordinary
 * POSTs, as app passwords' revoke): rename one, remove one. A new passkey
 * is added by mod_hsc_passkey.c's JSON endpoint. Removing one, like
 * removing the authenticator app (and `hsc-admin webauthn remove`), ends
 * the user's other sessions: a lost authenticator may be a thief's.
 */
#include <string.h>

#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_protocol.h"

#include "mod_hsc_account_passkey.h"
#include "mod_hsc_account_confirm.h"
#include "mod_hsc_account_view.h"
#include "mod_hsc_factor.h"
#include "mod_hsc_log.h"
#include "mod_hsc_ops.h"
#include "mod_hsc_userdb.h"
#include "hsc_b64.h"
#include "hsc_passkeys.h"

/* The form's credential id; 0 or -1 (not base64url of an id). */
static int form_id(const hsc_login_form_t *f, unsigned char *id, size_t *len)
{
    *len = 0;
    return f->passkey_id.present
                   && hsc_b64url_decode(f->passkey_id.value, f->passkey_id.len,
                                        id, HSC_PASSKEY_ID_MAX, len)
                          == HSC_OK
               ? 0
               : -1;
}

static int done(request_rec *r, const char *what)
{
    apr_table_setn(r->headers_out, "Location",
                   apr_pstrcat(r->pool, r->uri, "?done=", what, NULL));
    return HTTP_SEE_OTHER;
}

int hsc_account_passkey_rename(request_rec *r, const hsc_account_t *a,
                               const hsc_login_form_t *f)
{
    unsigned char id[HSC_PASSKEY_ID_MAX];
    hsc_factors_t *fs;
    size_t len;
    hsc_status_t st;

    if (form_id(f, id, &len) != 0 || !f->passkey_name.present
        || !hsc_passkey_name_valid(f->passkey_name.value)) {
        return hsc_account_show(r, a, HTTP_BAD_REQUEST, NULL,
                                "A passkey's name is 1 to 64 printable "
                                "characters.");
    }
    if ((fs = hsc_factor_open(r, a->sc, 0)) == NULL) {
        return hsc_userdb_unavailable(r);
    }
    st = hsc_passkeys_rename(fs, a->user, id, len, f->passkey_name.value);
    if (st == HSC_ENOUSER) {
        return hsc_account_show(r, a, HTTP_BAD_REQUEST, NULL,
                                "No such passkey.");
    }
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(306) "passkey of user \"%s\" not renamed: %s",
                      ap_escape_logitem(r->pool, a->user),
                      hsc_factors_errmsg(fs));
        return hsc_userdb_unavailable(r);
    }
    hsc_ops_account(r, a->user, "passkey-rename", NULL);
    return done(r, "passkey-renamed");
}

int hsc_account_passkey_remove(request_rec *r, const hsc_account_t *a,
                               const hsc_login_form_t *f)
{
    unsigned char id[HSC_PASSKEY_ID_MAX];
    hsc_account_outcome_t o;
    hsc_factors_t *fs;
    hsc_user_t nu;
    size_t len;
    hsc_status_t st;

    if (form_id(f, id, &len) != 0) {
        return hsc_account_show(r, a, HTTP_BAD_REQUEST, NULL,
                                "No such passkey.");
    }
    /* This session is re-issued with the new gen and its x_n: a login
     * without the password (passwordless) has none to re-issue with. */
    if (!(a->c.amr & HSC_AMR_PWD)) {
        return hsc_account_show(r, a, HTTP_FORBIDDEN, NULL,
                                "To remove a passkey, log out and log in "
                                "again with your password.");
    }
    if (!hsc_account_confirmed(r, a, f, "passkey-remove", &o)) {
        return hsc_account_answer(r, a, &o);
    }
    if ((fs = hsc_factor_open(r, a->sc, 0)) == NULL) {
        return hsc_userdb_unavailable(r);
    }
    st = hsc_passkeys_remove(fs, a->user, id, len);
    if (st == HSC_ENOUSER) {
        return hsc_account_show(r, a, HTTP_BAD_REQUEST, NULL,
                                "No such passkey.");
    }
    if (st == HSC_OK) {
        st = hsc_store_revoke_now(a->store, a->user,
                                  (int64_t)apr_time_sec(r->request_time));
    }
    if (st == HSC_OK) {
        st = hsc_store_get_fresh(a->store, a->user, strlen(a->user), &nu);
    }
    if (st == HSC_OK) {
        st = hsc_account_reissue(r, a, &nu, a->c.auth);
    }
    ap_log_rerror(APLOG_MARK, st == HSC_OK ? APLOG_NOTICE : APLOG_ERR, 0, r,
                  HSCLOGNO(307) "user \"%s\" removed a passkey%s%s",
                  ap_escape_logitem(r->pool, a->user),
                  st == HSC_OK ? "; their other sessions end" : ": ",
                  st == HSC_OK ? "" : hsc_factors_errmsg(fs));
    hsc_ops_account(r, a->user, "passkey-remove",
                    st == HSC_OK ? NULL : "store_fault");
    if (st != HSC_OK) {
        return hsc_userdb_unavailable(r);
    }
    return done(r, "passkey-removed");
}

/* z of a's cookie when it is sealed (after x_n when pwd), else NULL. */
static const unsigned char *session_z(const hsc_account_t *a)
{
    size_t off = (a->c.amr & HSC_AMR_PWD) ? HSC_XN_LEN : 0;

    return (a->c.amr & HSC_AMR_SEAL) && a->c.auth_len == off + HSC_SEAL_LEN
               ? a->c.auth + off
               : NULL;
}

int hsc_account_seal_switch(request_rec *r, const hsc_account_t *a,
                            const hsc_login_form_t *f, int on)
{
    const char *action = on ? "seal-on" : "seal-off";
    const unsigned char *z = session_z(a);
    hsc_account_outcome_t o;
    hsc_factors_t *fs;
    hsc_status_t st;

    /* Both need this session sealed: off proves a passkey by its z (the
     * store's rule); on is refused from an unsealed session, which the
     * switch would end at once (and it shows a sealed passkey works). */
    if (z == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(311) "seal switch of user \"%s\" not turned "
                                    "%s: this session is not sealed",
                      ap_escape_logitem(r->pool, a->user), on ? "on" : "off");
        hsc_ops_account(r, a->user, action, "not_sealed");
        return hsc_account_show(r, a, HTTP_FORBIDDEN, NULL,
                                on ? "To turn this on, sign in with your "
                                     "passkey first."
                                   : "Sign in with your passkey to turn "
                                     "this off.");
    }
    if (!hsc_account_confirmed(r, a, f, action, &o)) {
        return hsc_account_answer(r, a, &o);
    }
    if ((fs = hsc_factor_open(r, a->sc, 0)) == NULL) {
        return hsc_userdb_unavailable(r);
    }
    st = hsc_passkeys_require_seal(fs, a->user, on, on ? NULL : z);
    if (st == HSC_EINVAL || st == HSC_EAUTH) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(312) "seal switch of user \"%s\" not turned "
                                    "%s: %s",
                      ap_escape_logitem(r->pool, a->user), on ? "on" : "off",
                      hsc_factors_errmsg(fs));
        hsc_ops_account(r, a->user, action,
                        st == HSC_EINVAL ? "not_all_sealed" : "wrong_seal");
        return hsc_account_show(r, a, HTTP_BAD_REQUEST, NULL,
                                st == HSC_EINVAL
                                    ? "It can be turned on only while every "
                                      "passkey of yours is sealed."
                                    : "Sign in with your passkey to turn "
                                      "this off.");
    }
    ap_log_rerror(APLOG_MARK, st == HSC_OK ? APLOG_NOTICE : APLOG_ERR, 0, r,
                  HSCLOGNO(313) "user \"%s\" turned the seal switch %s%s%s",
                  ap_escape_logitem(r->pool, a->user), on ? "on" : "off",
                  st == HSC_OK ? "" : ": failed: ",
                  st == HSC_OK ? "" : hsc_factors_errmsg(fs));
    hsc_ops_account(r, a->user, action, st == HSC_OK ? NULL : "store_fault");
    if (st != HSC_OK) {
        return hsc_userdb_unavailable(r);
    }
    return done(r, action);
}
