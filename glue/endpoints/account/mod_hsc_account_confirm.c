/*
 * mod_hsc_account_confirm.c: what the account wing's actions share above
 * the page (mod_hsc_account_confirm.h): a refusal logged, audited and
 * answered, the current password checked as a login, and a change
 * confirmed: a user who has a second factor needs it used within
 * HSCAccountRecentAuth (hsc_factor_gate), a user without one a recent
 * login or the password again.
 */
#include <string.h>

#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_protocol.h"

#include "mod_hsc_account_confirm.h"
#include "mod_hsc_factor.h"
#include "mod_hsc_form.h"
#include "mod_hsc_log.h"
#include "mod_hsc_ops.h"
#include "mod_hsc_userdb.h"

/* A refused action (action: "password", "totp-setup", ...): logged,
 * audited, into *o. */
void hsc_account_refuse(request_rec *r, const hsc_account_t *a,
                        const char *action, int status, const char *reason,
                        const char *message, hsc_account_outcome_t *o)
{
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(207) "account action %s of user \"%s\" refused: %s",
                  action, ap_escape_logitem(r->pool, a->user), reason);
    hsc_ops_account(r, a->user, action, reason);
    o->status = status;
    o->reason = reason;
    o->message = message;
}

int hsc_account_answer(request_rec *r, const hsc_account_t *a,
                       const hsc_account_outcome_t *o)
{
    hsc_page_conf_t pc = hsc_form_page_conf(a->d);

    switch (o->status) {
    case HTTP_TOO_MANY_REQUESTS:
        apr_table_setn(r->err_headers_out, "Retry-After",
                       apr_psprintf(r->pool, "%" APR_INT64_T_FMT,
                                    o->retry_after));
        return hsc_form_send(r, HTTP_TOO_MANY_REQUESTS,
                             hsc_page_throttled(r->pool, &pc, o->retry_after,
                                                r->uri));
    case HTTP_SERVICE_UNAVAILABLE:
        if (o->message == NULL) {
            return hsc_userdb_unavailable(r);
        }
        break;
    case HTTP_INTERNAL_SERVER_ERROR: return HTTP_INTERNAL_SERVER_ERROR;
    default: break;
    }
    return hsc_account_show(r, a, o->status, NULL, o->message);
}

int hsc_account_current(request_rec *r, const hsc_account_t *a,
                        const char *action, const hsc_form_field_t *pw,
                        hsc_login_t *l, hsc_account_outcome_t *o)
{
    memset(l, 0, sizeof(*l));
    memset(o, 0, sizeof(*o));
    l->user = a->user;
    l->user_len = strlen(a->user);
    l->password = pw->value;
    l->password_len = pw->len;
    switch (hsc_attempt_login(r, a->sc, a->store, l)) {
    case HSC_ATTEMPT_CHECKED: break;
    case HSC_ATTEMPT_THROTTLED:
        hsc_ops_account(r, a->user, action, "throttled");
        o->status = HTTP_TOO_MANY_REQUESTS;
        o->reason = "throttled";
        o->retry_after = l->retry_after;
        return 0;
    case HSC_ATTEMPT_BUSY:
    case HSC_ATTEMPT_UNAVAILABLE:
        hsc_ops_account(r, a->user, action, "busy");
        o->status = HTTP_SERVICE_UNAVAILABLE;
        o->reason = "busy";
        return 0;
    }
    if (l->st == HSC_OK) {
        return 1;
    }
    if (hsc_status_class(l->st) == HSC_CLASS_FAULT) {
        hsc_ops_account(r, a->user, action, "store_fault");
        o->status = HTTP_SERVICE_UNAVAILABLE;
        o->reason = "store_fault";
        return 0;
    }
    hsc_account_refuse(r, a, action, HTTP_UNAUTHORIZED, "wrong_password",
                       strcmp(action, "password") == 0
                           ? "The current password is not right."
                           : "That password is not right.",
                       o);
    return 0;
}

int hsc_account_factor_gate(request_rec *r, const hsc_account_t *a,
                            const char *action, hsc_account_outcome_t *o)
{
    memset(o, 0, sizeof(*o));
    if (a->link != NULL) {
        return 0; /* an administrator's enrolment link: its own rule */
    }
    switch (
        hsc_factor_gate(r, a->sc, &a->c, a->user, action, a->d->recent_auth)) {
    case HSC_FACTOR_GATE_NO_FACTOR: return 0;
    case HSC_FACTOR_GATE_FRESH: return 1;
    case HSC_FACTOR_GATE_NEEDED:
        hsc_account_refuse(
            r, a, action, HTTP_UNAUTHORIZED, "factor_needed",
            "This change needs your second factor: confirm it first "
            "(\"Confirm with your second factor\" on this page), then "
            "try again.",
            o);
        return -1;
    default:
        hsc_ops_account(r, a->user, action, "store_fault");
        o->status = HTTP_SERVICE_UNAVAILABLE;
        o->reason = "store_fault";
        return -1;
    }
}

int hsc_account_confirmed(request_rec *r, const hsc_account_t *a,
                          const hsc_login_form_t *f, const char *action,
                          hsc_account_outcome_t *o)
{
    hsc_login_t l;

    switch (hsc_account_factor_gate(r, a, action, o)) {
    case 1: return 1;  /* a second factor, used recently */
    case -1: return 0; /* the user has one, not used lately: *o */
    }
    if (a->recent) {
        return 1;
    }
    if (!f->password.present) {
        hsc_account_refuse(
            r, a, action, HTTP_UNAUTHORIZED, "not_recent",
            "You signed in a while ago: enter your password to confirm.", o);
        return 0;
    }
    if (!hsc_account_current(r, a, action, &f->password, &l, o)) {
        return 0;
    }
    hsc_wipe(l.xn, sizeof(l.xn));
    return 1;
}
