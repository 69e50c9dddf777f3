/*
 * mod_hsc_account_token.c: app passwords on the account page
 * (docs/app-passwords.md). A new one is made after a recent login or the
 * password again (mod_hsc_account.c's factor_change), shown once, and
 * stored as SHA-256 of its secret; any live one of the user's can be
 * revoked. A new one is stored only with the cookie's x_n, which the
 * store checks against the user's password in the statement that inserts
 * (on PostgreSQL the function hsc_token_add: the httpd role cannot make a
 * token for anyone without it).
 */
#include <string.h>

#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_protocol.h"

#include "mod_hsc_account_token.h"
#include "mod_hsc_account_confirm.h"
#include "mod_hsc_account_view.h"
#include "mod_hsc_form.h"
#include "mod_hsc_log.h"
#include "mod_hsc_ops.h"
#include "mod_hsc_userdb.h"
#include "hsc_pages.h"
#include "hsc_tokens.h"

/* A token action's store fault: logged, audited, 503 into *o. */
static void fault(request_rec *r, const hsc_account_t *a, const char *action,
                  hsc_account_outcome_t *o)
{
    ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                  HSCLOGNO(250) "account action %s of user \"%s\" failed: "
                                "the user database: %s",
                  action, ap_escape_logitem(r->pool, a->user),
                  hsc_store_errmsg(a->store));
    hsc_ops_account(r, a->user, action, "store_fault");
    o->status = HTTP_SERVICE_UNAVAILABLE;
    o->reason = "store_fault";
}

/* A refused request: why (400) into *o, logged, audited. */
static void bad(request_rec *r, const hsc_account_t *a, const char *action,
                const char *reason, const char *message,
                hsc_account_outcome_t *o)
{
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(239) "account action %s of user \"%s\" refused: %s",
                  action, ap_escape_logitem(r->pool, a->user), reason);
    hsc_ops_account(r, a->user, action, reason);
    o->status = HTTP_BAD_REQUEST;
    o->reason = reason;
    o->message = message;
}

/* The form's expiry: seconds from now, 0 for never; -1 when not one. */
static apr_int64_t expiry_of(const hsc_form_field_t *e)
{
    static const struct {
        const char *text;
        apr_int64_t secs;
    } ways[] = {{"30d", 30 * 86400},
                {"90d", 90 * 86400},
                {"365d", 365 * 86400},
                {"never", 0}};
    size_t i;

    if (!e->present) {
        return 90 * 86400; /* the form's default */
    }
    for (i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
        if (strcmp(e->value, ways[i].text) == 0) {
            return ways[i].secs;
        }
    }
    return -1;
}

/* The new app password's fields of f (life: expiry_of's): 1 when good,
 * else 0 and *o (400: bad_name, bad_scopes, bad_expiry). */
static int token_form_ok(request_rec *r, const hsc_account_t *a,
                         const hsc_login_form_t *f, apr_int64_t life,
                         hsc_account_outcome_t *o)
{
    if (!f->token_name.present
        || !hsc_token_name_valid(f->token_name.value, f->token_name.len)) {
        bad(r, a, "token-add", "bad_name",
            "Give the app password a name of 1 to 64 letters, "
            "digits, spaces or punctuation.",
            o);
        return 0;
    }
    if (f->token_scopes.present
        && (strlen(f->token_scopes.value) != f->token_scopes.len
            || !hsc_token_scopes_valid(f->token_scopes.value))) {
        bad(r, a, "token-add", "bad_scopes",
            "Scopes are names of lower-case letters, digits and . _ "
            ": - separated by commas, each once.",
            o);
        return 0;
    }
    if (life < 0) {
        bad(r, a, "token-add", "bad_expiry",
            "Choose when the app password expires.", o);
        return 0;
    }
    return 1;
}

void hsc_account_token_add(request_rec *r, const hsc_account_t *a,
                           const hsc_login_form_t *f, hsc_token_t *tp,
                           char text[HSC_TOKEN_TEXT_LEN + 1],
                           hsc_account_outcome_t *o)
{
    apr_int64_t life = expiry_of(&f->token_expires);
    int64_t now = (int64_t)apr_time_sec(r->request_time);
    hsc_token_t t;
    hsc_status_t st;

    memset(o, 0, sizeof(*o));
    memset(tp, 0, sizeof(*tp));
    text[0] = '\0';
    if (!hsc_account_tokens_here(a)) {
        bad(r, a, "token-add", "pgsql",
            "App passwords are managed by your administrator here.", o);
        return;
    }
    memset(&t, 0, sizeof(t));
    if (!token_form_ok(r, a, f, life, o)) {
        return;
    }
    apr_cpystrn(t.user, a->user, sizeof(t.user));
    apr_cpystrn(t.name, f->token_name.value, sizeof(t.name));
    apr_cpystrn(t.scopes, f->token_scopes.present ? f->token_scopes.value : "",
                sizeof(t.scopes));
    t.expires = life > 0 ? now + life : 0;
    if (hsc_token_new(text, t.id, t.hash) != HSC_OK) {
        o->status = HTTP_INTERNAL_SERVER_ERROR;
        return;
    }
    st = hsc_tokens_add_own(a->store, &t, now,
                            (a->c.amr & HSC_AMR_PWD) ? a->c.auth : NULL);
    if (st == HSC_EAUTH) {
        /* The password changed (or the user was disabled) after this
         * request's cookie was checked: nothing stored. */
        hsc_wipe(text, HSC_TOKEN_TEXT_LEN + 1);
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(266) "account action token-add of user \"%s\" "
                                    "refused: the store did not take the "
                                    "cookie's password as the user's: %s",
                      ap_escape_logitem(r->pool, a->user),
                      hsc_store_errmsg(a->store));
        hsc_ops_account(r, a->user, "token-add", "changed_meanwhile");
        o->status = HTTP_CONFLICT;
        o->reason = "changed_meanwhile";
        o->message = "The password was changed meanwhile: sign in again "
                     "with the new one.";
        return;
    }
    if (st == HSC_EEXISTS) {
        hsc_wipe(text, HSC_TOKEN_TEXT_LEN + 1);
        bad(r, a, "token-add", "name_taken",
            "You already have an app password of that name.", o);
        return;
    }
    if (st != HSC_OK) {
        hsc_wipe(text, HSC_TOKEN_TEXT_LEN + 1);
        fault(r, a, "token-add", o);
        return;
    }
    ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                  HSCLOGNO(237) "user \"%s\" made the app password %s (\"%s\", "
                                "scopes \"%s\")",
                  ap_escape_logitem(r->pool, a->user), t.id,
                  ap_escape_logitem(r->pool, t.name),
                  ap_escape_logitem(r->pool, t.scopes));
    hsc_ops_account(r, a->user, "token-add", NULL);
    *tp = t;
    o->status = HTTP_CREATED;
}

int hsc_account_token_new(request_rec *r, const hsc_account_t *a,
                          const hsc_login_form_t *f)
{
    char text[HSC_TOKEN_TEXT_LEN + 1];
    hsc_page_conf_t pc = hsc_form_page_conf(a->d);
    hsc_account_outcome_t o;
    hsc_token_t t;
    int rv;

    hsc_account_token_add(r, a, f, &t, text, &o);
    if (o.status != HTTP_CREATED) {
        return hsc_account_answer(r, a, &o);
    }
    rv = hsc_form_send(r, HTTP_OK,
                       hsc_page_token_made(r->pool, &pc, a->user, t.name, text,
                                           r->uri));
    hsc_wipe(text, sizeof(text));
    return rv;
}

void hsc_account_token_drop(request_rec *r, const hsc_account_t *a,
                            const hsc_login_form_t *f, hsc_account_outcome_t *o)
{
    hsc_status_t st;
    int n = 0;

    memset(o, 0, sizeof(*o));

    if (!hsc_account_tokens_here(a)) {
        bad(r, a, "token-revoke", "pgsql",
            "App passwords are managed by your administrator here.", o);
        return;
    }
    if (!f->token_id.present
        || !hsc_token_id_valid(f->token_id.value, f->token_id.len)) {
        bad(r, a, "token-revoke", "bad_id", "No such app password.", o);
        return;
    }
    st = hsc_tokens_revoke(a->store, a->user, f->token_id.value,
                           (int64_t)apr_time_sec(r->request_time), &n);
    if (st == HSC_ENOUSER) {
        bad(r, a, "token-revoke", "unknown",
            "No such app password (revoked already?).", o);
        return;
    }
    if (st != HSC_OK) {
        fault(r, a, "token-revoke", o);
        return;
    }
    ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                  HSCLOGNO(238) "user \"%s\" revoked the app password %s",
                  ap_escape_logitem(r->pool, a->user), f->token_id.value);
    hsc_ops_account(r, a->user, "token-revoke", NULL);
    o->status = HTTP_OK;
}

int hsc_account_token_revoke(request_rec *r, const hsc_account_t *a,
                             const hsc_login_form_t *f)
{
    hsc_account_outcome_t o;

    hsc_account_token_drop(r, a, f, &o);
    if (o.status != HTTP_OK) {
        return hsc_account_answer(r, a, &o);
    }
    apr_table_setn(r->headers_out, "Location",
                   apr_pstrcat(r->pool, r->uri, "?done=token-revoked", NULL));
    return HTTP_SEE_OTHER;
}
