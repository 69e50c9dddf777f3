/*
 * mod_hsc_passkey.c: the passkey endpoints of hsc-login (a passwordless
 * login; the second factor after the password) and hsc-account (a new
 * passkey), in JSON, as docs/dev/passkeys.md's "Ceremony contract" fixes
 * them: the request's body parsed, the answer sent, and the entry that
 * sends each step to mod_hsc_passkey_login.c or mod_hsc_passkey_create.c
 * (what they share: mod_hsc_passkey_rp.c).
 * The checks are the core's (hsc_wa_ceremony.c, hsc_wa_challenge.c).
 */
#include <stdlib.h>
#include <string.h>

#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"

#include "mod_hsc_form.h"
#include "mod_hsc_log.h"
#include "mod_hsc_passkey.h"
#include "mod_hsc_passkey_create.h"
#include "mod_hsc_passkey_login.h"
#include "mod_hsc_passkey_rp.h"
#include "hsc_b64.h"
#include "hsc_passkeys.h"
#include "hsc_wa_ceremony.h"
#include "hsc_wa_challenge.h"

/* --- the body --------------------------------------------------------------
 */

static const char **pk_slot(hsc_passkey_form_t *f, const char *name)
{
    static const struct {
        const char *name;
        size_t off;
    } names[] = {
        {"hsc_passkey", offsetof(hsc_passkey_form_t, passkey)},
        {"purpose", offsetof(hsc_passkey_form_t, purpose)},
        {"challenge", offsetof(hsc_passkey_form_t, challenge)},
        {"id", offsetof(hsc_passkey_form_t, id)},
        {"clientDataJSON", offsetof(hsc_passkey_form_t, cdj)},
        {"authenticatorData", offsetof(hsc_passkey_form_t, ad)},
        {"signature", offsetof(hsc_passkey_form_t, sig)},
        {"userHandle", offsetof(hsc_passkey_form_t, uh)},
        {"prf", offsetof(hsc_passkey_form_t, prf)},
        {"attestationObject", offsetof(hsc_passkey_form_t, att)},
        {"publicKey", offsetof(hsc_passkey_form_t, spki)},
        {"alg", offsetof(hsc_passkey_form_t, alg)},
        {"transports", offsetof(hsc_passkey_form_t, transports)},
        {"name", offsetof(hsc_passkey_form_t, name)},
        {"hsc_return", offsetof(hsc_passkey_form_t, ret)},
        {"hsc_remember", offsetof(hsc_passkey_form_t, remember)},
        {"link", offsetof(hsc_passkey_form_t, link)},
    };
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (!strcmp(names[i].name, name)) {
            return (const char **)((char *)f + names[i].off);
        }
    }
    return NULL;
}

/* Parse the body (modified in place): 0, or -1 for a field twice or a
 * bad escape. Fields not ours (the password form's) are ignored. */
static int pk_parse(char *body, hsc_passkey_form_t *f)
{
    char *pair, *last = NULL;

    memset(f, 0, sizeof(*f));
    for (pair = apr_strtok(body, "&", &last); pair != NULL;
         pair = apr_strtok(NULL, "&", &last)) {
        char *eq = strchr(pair, '=');
        const char **slot;
        if (eq == NULL) {
            continue;
        }
        *eq = '\0';
        if (ap_unescape_urlencoded(pair) != OK
            || ap_unescape_urlencoded(eq + 1) != OK) {
            return -1;
        }
        if ((slot = pk_slot(f, pair)) == NULL) {
            continue;
        }
        if (*slot != NULL) {
            return -1;
        }
        *slot = eq + 1;
    }
    return 0;
}

/* --- answers ------------------------------------------------------------- */

static int send_json(request_rec *r, int status, const char *body)
{
    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    apr_table_setn(r->err_headers_out, "X-Content-Type-Options", "nosniff");
    r->status = status;
    ap_set_content_type(r, "application/json");
    if (!r->header_only) {
        ap_rputs(body, r);
    }
    return OK;
}

static int send_error(request_rec *r, int status, const char *code,
                      apr_int64_t retry_after)
{
    if (retry_after > 0) {
        apr_table_setn(r->err_headers_out, "Retry-After",
                       apr_psprintf(r->pool, "%" APR_INT64_T_FMT, retry_after));
    }
    return send_json(r, status,
                     apr_psprintf(r->pool, "{\"error\":\"%s\"}", code));
}

static int send_answer(request_rec *r, const hsc_passkey_answer_t *a)
{
    if (a->error != NULL) {
        return send_error(r, a->status, a->error, a->retry_after);
    }
    return send_json(r, HTTP_OK, a->json);
}

/* --- the relying party -----------------------------------------------------
 */

static void rp_init(hsc_passkey_rp_t *rp, request_rec *r,
                    const hsc_srv_conf_t *sc, const hsc_dir_conf_t *d)
{
    rp->r = r;
    rp->sc = sc;
    rp->d = d;
    rp->rp_id = sc->wa_rp_id != NULL ? sc->wa_rp_id
                                     : r->server->server_hostname;
    if (sc->wa_origins != NULL && sc->wa_origins->nelts > 0) {
        rp->origins = (const char *const *)sc->wa_origins->elts;
        rp->n_origins = (size_t)sc->wa_origins->nelts;
    }
    else {
        const char **one = apr_palloc(r->pool, sizeof(*one));
        *one = apr_pstrcat(r->pool, "https://", rp->rp_id, NULL);
        rp->origins = one;
        rp->n_origins = 1;
    }
    rp->now_ms = (int64_t)apr_time_as_msec(r->request_time);
}

/* --- the entry --------------------------------------------------------------
 */

int hsc_passkey_handle(request_rec *r, const hsc_srv_conf_t *sc,
                       const hsc_dir_conf_t *d, hsc_passkey_at_t at)
{
    apr_size_t len;
    char *body = hsc_form_passkey_body(r, &len);
    hsc_passkey_answer_t a;
    hsc_passkey_rp_t rp;
    int rv;

    if (body == NULL) {
        return DECLINED;
    }
    memset(&a, 0, sizeof(a));
    if (!d->passkeys) {
        hsc_wipe(body, len);
        return send_error(r, HTTP_NOT_FOUND, "not_found", 0);
    }
    rp_init(&rp, r, sc, d);
    if (sc->keys == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(302) "passkey request without HSCKeyFile");
        hsc_passkey_rp_refuse(&a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
    }
    else if (pk_parse(body, &rp.f) != 0 || rp.f.passkey == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(303) "passkey request refused: malformed "
                                    "body");
        hsc_passkey_rp_refuse(&a, HTTP_BAD_REQUEST, "bad_request");
    }
    else if (at == HSC_PASSKEY_AT_ACCOUNT) {
        hsc_passkey_create_step(&rp, &a);
    }
    else if (!strcmp(rp.f.passkey, "options")) {
        hsc_passkey_login_options(&rp, &a);
    }
    else if (!strcmp(rp.f.passkey, "assert")) {
        hsc_passkey_login_assert(&rp, &a);
    }
    else {
        hsc_passkey_rp_refuse(&a, HTTP_BAD_REQUEST, "bad_request");
    }
    rv = send_answer(r, &a);
    hsc_wipe(body, len);
    return rv;
}
