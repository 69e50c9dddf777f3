/*
 * mod_hsc_account_setup.c: a login that needs a first second factor
 * (HSCSecondFactor required with HSCAccountURL; docs/second-factors.md).
 *
 * The login gave a user without a factor a pending cookie and sent the
 * browser here (?setup=1&return=...). This page takes that cookie for one
 * thing only: setting up an authenticator app. Its confirming code
 * re-issues the cookie as a full login (otp, mfa_at now), and the recovery
 * codes that follow link back to the return target. A pending cookie of a
 * user who has a factor belongs at the login's code step, not here. The
 * forms post to this page's own URL, query included, so the return target
 * goes along without a field.
 */
#include <string.h>

#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_protocol.h"

#include "mod_hsc_account_setup.h"
#include "mod_hsc_account_factor.h"
#include "mod_hsc_account_view.h"
#include "mod_hsc_factor.h"
#include "mod_hsc_form.h"
#include "mod_hsc_log.h"
#include "mod_hsc_session.h"
#include "mod_hsc_userdb.h"
#include "hsc_authz.h"

/* The query's return target, when the location may go there. */
static const char *setup_return(request_rec *r, const hsc_dir_conf_t *d)
{
    const apr_array_header_t *h = d->return_hosts;
    hsc_login_form_t q;
    char *args;

    if (r->args == NULL) {
        return NULL;
    }
    args = apr_pstrdup(r->pool, r->args);
    if (hsc_form_parse(args, strlen(args), &q) != HSC_OK || !q.ret.present
        || !hsc_return_url_allowed(q.ret.value, q.ret.len,
                                   h ? (const char *const *)h->elts : NULL,
                                   h ? (size_t)h->nelts : 0)) {
        return NULL;
    }
    return q.ret.value;
}

int hsc_account_setup(request_rec *r, hsc_account_t *a, int get,
                      const hsc_login_form_t *f)
{
    hsc_page_conf_t pc = hsc_form_page_conf(a->d);

    if (a->store == NULL
        || hsc_session_verify_step(r, a->sc, a->d, a->store, &a->c, &a->u)
               != HSC_OK
        || a->c.format != 2 || !(a->c.amr & HSC_AMR_PENDING)) {
        return DECLINED;
    }
    a->user = apr_pstrmemdup(r->pool, a->c.user, a->c.user_len);
    switch (hsc_factor_has(r, a->sc, a->user)) {
    case 0: break;
    case 1: return DECLINED; /* the login's code step is the way */
    default: return hsc_userdb_unavailable(r);
    }
    a->recent = 1; /* a password of at most the pending cookie's life */
    a->setup = 1;
    a->ret = setup_return(r, a->d);
    if (get || !f->action.present) {
        return hsc_form_send(r, HTTP_OK,
                             hsc_page_factor_setup(r->pool, &pc, a->user));
    }
    if (strcmp(f->action.value, "totp-setup") == 0) {
        return hsc_account_totp_setup(r, a);
    }
    if (strcmp(f->action.value, "totp-confirm") == 0) {
        return hsc_account_totp_confirm(r, a, f);
    }
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  HSCLOGNO(381) "account action of user \"%s\" refused: the "
                                "login waits for a first second factor, and "
                                "only setting one up is possible",
                  ap_escape_logitem(r->pool, a->user));
    return hsc_form_send(r, HTTP_FORBIDDEN,
                         hsc_page_factor_setup(r->pool, &pc, a->user));
}
