/*
 * mod_hsc_account_link.c: one-time links on the account page
 * (docs/account-page.md, "One-time links"; hsc-admin link). A link
 * stands in for a session for one purpose: an invitation or a reset sets
 * the password, an enrolment sets up an authenticator app. A GET only
 * looks (a mail scanner that follows it uses nothing); the POST that
 * finishes the purpose deletes the link's row, atomically, so it works
 * once on any number of servers. The table keeps only the SHA-256 of the
 * link's secret: neither the key file nor the table can make one.
 */
#include <string.h>

#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_protocol.h"

#include "mod_hsc_account_link.h"
#include "mod_hsc_account_factor.h"
#include "mod_hsc_account_view.h"
#include "mod_hsc_factor.h"
#include "mod_hsc_form.h"
#include "mod_hsc_log.h"
#include "mod_hsc_ops.h"
#include "mod_hsc_userdb.h"
#include "hsc_factors.h"
#include "hsc_links.h"
#include "hsc_passkeys.h"
#include "hsc_password.h"
#include "hsc_policy.h"

/* What a link request knows once its link checked out. */
typedef struct {
    const hsc_srv_conf_t *sc;
    const hsc_dir_conf_t *d;
    hsc_factors_t *f;
    unsigned char hash[HSC_LINK_HASH_LEN];
    const char *text; /* the link as it came */
    char user[HSC_USER_MAX + 1];
    hsc_link_purpose_t purpose;
} link_req_t;

/* The same refusal for a malformed, unknown, used, replaced or expired
 * link: which of them is nobody's business but the log's. */
static int dead_link(request_rec *r, const link_req_t *k, const char *why)
{
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(220) "one-time link refused: %s", why);
    return hsc_account_message(
        r, k->d, HTTP_BAD_REQUEST, "Link not valid",
        "This link cannot be used: it was used already, replaced "
        "by a newer one, or it has expired. Ask for a new one.");
}

/* The minimum and blocklist of a new password of k's user. */
static void policy_of(request_rec *r, const link_req_t *k,
                      const hsc_blocklist_t **b, int *min_chars)
{
    hsc_factor_info_t fi;
    int has = hsc_factors_get(k->f, k->user, &fi) == HSC_OK
              && hsc_factors_any(&fi);

    (void)r;
    hsc_wipe(fi.sealed, sizeof(fi.sealed));
    hsc_account_policy(k->sc, k->d, has, b, min_chars);
}

/* The password page of an invitation or a reset. */
static int password_page(request_rec *r, const link_req_t *k, int status,
                         const char *error)
{
    hsc_page_conf_t pc = hsc_form_page_conf(k->d);
    const hsc_blocklist_t *b;
    int min;

    policy_of(r, k, &b, &min);
    return hsc_form_send(r, status,
                         hsc_page_link_password(r->pool, &pc, k->user,
                                                k->purpose == HSC_LINK_INVITE,
                                                k->text, min, error));
}

/* POST action=link-password: the policy, then the link is used and the
 * password set (every session of the user ends: gen grows). */
static int set_password(request_rec *r, link_req_t *k,
                        const hsc_login_form_t *fm)
{
    const hsc_form_field_t *np = &fm->new_password, *np2 = &fm->new_password2;
    const char *action = k->purpose == HSC_LINK_INVITE ? "link-invite"
                                                       : "link-reset";
    int64_t now = (int64_t)apr_time_sec(r->request_time);
    unsigned char xn[HSC_XN_LEN];
    const hsc_blocklist_t *b;
    char owner[HSC_USER_MAX + 1];
    hsc_policy_verdict_t v;
    hsc_store_t *store;
    hsc_status_t st;
    hsc_user_t u, nu;
    int min;

    if (!np->present || !np2->present) {
        return password_page(r, k, HTTP_BAD_REQUEST,
                             "Enter the new password twice.");
    }
    if (np->len != np2->len || !hsc_ct_equal(np->value, np2->value, np->len)) {
        return password_page(r, k, HTTP_BAD_REQUEST,
                             "The two new passwords are not the same.");
    }
    policy_of(r, k, &b, &min);
    v = hsc_policy_check(b, min, k->user, np->value, np->len);
    if (v != HSC_POLICY_OK) {
        hsc_ops_account(r, k->user, action,
                        apr_pstrcat(r->pool, "policy_", hsc_policy_name(v),
                                    NULL));
        return password_page(r, k, HTTP_BAD_REQUEST,
                             hsc_policy_message(r->pool, v, min));
    }
    if ((store = hsc_userdb_acquire(r, k->sc)) == NULL) {
        return hsc_userdb_unavailable(r);
    }
    st = hsc_store_get_fresh(store, k->user, strlen(k->user), &u);
    if (st != HSC_OK) {
        return st == HSC_ENOUSER ? dead_link(r, k, "its user is gone")
                                 : hsc_userdb_unavailable(r);
    }
    /* The KDF before the link is used: a fault here leaves it usable. */
    nu = u;
    st = hsc_password_make_xn(&u.kdf, np->value, np->len, &nu, xn);
    hsc_wipe(xn, sizeof(xn));
    if (st != HSC_OK) {
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    /* One transaction: the link goes and the password is set, or neither
     * (PostgreSQL: hsc_link_password, the httpd role's only way to set a
     * password without the current one). */
    st = hsc_factors_link_password(k->f, k->hash, k->purpose, now, &nu, owner);
    if (st == HSC_EAUTH) {
        return dead_link(r, k, "used by another request first");
    }
    if (st != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(221) "a one-time link of user \"%s\" could "
                                    "not set the password: %s (%s)",
                      ap_escape_logitem(r->pool, k->user), hsc_strerror(st),
                      hsc_factors_errmsg(k->f));
        hsc_ops_account(r, k->user, action, "store_fault");
        return hsc_userdb_unavailable(r);
    }
    ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                  HSCLOGNO(222) "user \"%s\" set a password by a one-time "
                                "%s link; their other sessions end",
                  ap_escape_logitem(r->pool, k->user),
                  hsc_link_purpose_name(k->purpose));
    hsc_ops_account(r, k->user, action, NULL);
    return hsc_account_message(r, k->d, HTTP_OK, "Password set",
                               "Your password is set. Log in with it now.");
}

static int some_passkey(void *baton, const hsc_passkey_t *pk)
{
    (void)pk;
    *(int *)baton = 1;
    return 1;
}

/* 1 when user has no passkey (a fault: 0, and the passkey step's own
 * check logs and refuses). */
static int no_passkey(hsc_factors_t *f, const char *user)
{
    int has = 0;

    return hsc_passkeys_list(f, user, some_passkey, &has) == HSC_OK && !has;
}

/* An enrolment link as the account page's session: the setup steps. */
static void as_account(request_rec *r, const link_req_t *k, hsc_account_t *a)
{
    memset(a, 0, sizeof(*a));
    a->sc = k->sc;
    a->d = k->d;
    a->user = apr_pstrdup(r->pool, k->user);
    a->recent = 1;
    a->link = k->text;
    a->link_hash = k->hash;
}

int hsc_account_link(request_rec *r, const hsc_srv_conf_t *sc,
                     const hsc_dir_conf_t *d, int get,
                     const hsc_login_form_t *fm)
{
    const char *action = fm->action.present ? fm->action.value : "";
    hsc_page_conf_t pc = hsc_form_page_conf(d);
    hsc_factor_info_t fi;
    hsc_account_t a;
    link_req_t k;
    hsc_status_t st;

    memset(&k, 0, sizeof(k));
    k.sc = sc;
    k.d = d;
    if (hsc_link_hash(fm->link.value, fm->link.len, k.hash) != HSC_OK) {
        return dead_link(r, &k, "malformed");
    }
    k.text = apr_pstrmemdup(r->pool, fm->link.value, fm->link.len);
    if (sc->keys == NULL || (k.f = hsc_factor_open(r, sc, 0)) == NULL) {
        return hsc_userdb_unavailable(r);
    }
    st = hsc_factors_link_peek(k.f, k.hash,
                               (int64_t)apr_time_sec(r->request_time),
                               &k.purpose, k.user);
    if (st == HSC_EAUTH) {
        return dead_link(r, &k, "unknown, used, replaced or expired");
    }
    if (st != HSC_OK) {
        return hsc_userdb_unavailable(r);
    }
    if (k.purpose != HSC_LINK_ENROL) {
        if (get) {
            return password_page(r, &k, HTTP_OK, NULL);
        }
        if (strcmp(action, "link-password") == 0) {
            return set_password(r, &k, fm);
        }
        return dead_link(r, &k, "an action its purpose does not allow");
    }
    if (get) {
        /* Where passkeys are on, the link may add the user's first one
         * instead (mod_hsc_passkey.c, link_step; docs/passkeys.md). */
        return hsc_form_send(r, HTTP_OK,
                             d->passkeys && no_passkey(k.f, k.user)
                                 ? hsc_page_link_passkey(r->pool, &pc, k.user,
                                                         k.text, d->login_url)
                                 : hsc_page_link_enrol(r->pool, &pc, k.user,
                                                       k.text));
    }
    as_account(r, &k, &a);
    if (strcmp(action, "totp-confirm") == 0) {
        return hsc_account_totp_confirm(r, &a, fm);
    }
    if (strcmp(action, "link-enrol") != 0) {
        return dead_link(r, &k, "an action its purpose does not allow");
    }
    if (hsc_factors_get(k.f, k.user, &fi) == HSC_OK
        && fi.totp == HSC_TOTP_ACTIVE) {
        hsc_wipe(fi.sealed, sizeof(fi.sealed));
        return hsc_account_message(
            r, k.d, HTTP_BAD_REQUEST, "Already on",
            "An authenticator app is on already for this "
            "account.");
    }
    hsc_wipe(fi.sealed, sizeof(fi.sealed));
    return hsc_account_totp_setup(r, &a);
}
