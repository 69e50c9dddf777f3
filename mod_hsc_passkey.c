/*
 * mod_hsc_passkey.c: the passkey endpoints of hsc-login (a passwordless
 * login; the second factor after the password) and hsc-account (a new
 * passkey), in JSON, as docs/dev/passkeys.md's "Ceremony contract" fixes
 * them: the request's fields, the answer, challenges, and the entry that
 * sends each step to mod_hsc_passkey_login.c or mod_hsc_passkey_create.c.
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
#include "mod_hsc_passkey_rp.h"
#include "hsc_b64.h"
#include "hsc_passkeys.h"
#include "hsc_wa_ceremony.h"
#include "hsc_wa_challenge.h"

/* --- the body --------------------------------------------------------------
 */

static const char **pk_slot(pk_form_t *f, const char *name)
{
    static const struct {
        const char *name;
        size_t off;
    } names[] = {
        {"hsc_passkey", offsetof(pk_form_t, passkey)},
        {"purpose", offsetof(pk_form_t, purpose)},
        {"challenge", offsetof(pk_form_t, challenge)},
        {"id", offsetof(pk_form_t, id)},
        {"clientDataJSON", offsetof(pk_form_t, cdj)},
        {"authenticatorData", offsetof(pk_form_t, ad)},
        {"signature", offsetof(pk_form_t, sig)},
        {"userHandle", offsetof(pk_form_t, uh)},
        {"prf", offsetof(pk_form_t, prf)},
        {"attestationObject", offsetof(pk_form_t, att)},
        {"publicKey", offsetof(pk_form_t, spki)},
        {"alg", offsetof(pk_form_t, alg)},
        {"transports", offsetof(pk_form_t, transports)},
        {"name", offsetof(pk_form_t, name)},
        {"hsc_return", offsetof(pk_form_t, ret)},
        {"hsc_remember", offsetof(pk_form_t, remember)},
        {"link", offsetof(pk_form_t, link)},
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
static int pk_parse(char *body, pk_form_t *f)
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

/* A base64url field into *b (pool memory): 0, or -1 when absent (and
 * required), malformed or over max bytes. */
int hsc_pk_b64_field(request_rec *r, const char *text, size_t max, bin_t *b)
{
    size_t n = text != NULL ? strlen(text) : 0;

    b->v = NULL;
    b->len = 0;
    if (n == 0) {
        return -1;
    }
    b->v = apr_palloc(r->pool, max + 1);
    return hsc_b64url_decode(text, n, b->v, max, &b->len) == HSC_OK ? 0 : -1;
}

/* The PRF output z is a secret: wiped when the request ends, whatever
 * path the answer took. */
static apr_status_t wipe_bin(void *b)
{
    bin_t *x = b;

    if (x->v != NULL) {
        hsc_wipe(x->v, x->len);
    }
    return APR_SUCCESS;
}

int hsc_pk_secret_field(request_rec *r, const char *text, size_t max, bin_t *b)
{
    int rv = hsc_pk_b64_field(r, text, max, b);
    /* A copy of the pointer and size in the pool (b may be on a stack). */
    bin_t *keep = apr_pmemdup(r->pool, b, sizeof(*b));

    if (b->v != NULL) {
        keep->len = max; /* the whole buffer, decoded or not */
    }
    apr_pool_cleanup_register(r->pool, keep, wipe_bin, apr_pool_cleanup_null);
    return rv;
}

const char *hsc_pk_b64_text(apr_pool_t *p, const unsigned char *v, size_t n)
{
    char *out = apr_palloc(p, HSC_B64URL_LEN(n) + 1);

    out[hsc_b64url_encode(v, n, out)] = '\0';
    return out;
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

static int send_answer(request_rec *r, const answer_t *a)
{
    if (a->error != NULL) {
        return send_error(r, a->status, a->error, a->retry_after);
    }
    return send_json(r, HTTP_OK, a->json);
}

void hsc_pk_refuse(answer_t *a, int status, const char *error)
{
    a->status = status;
    a->error = error;
}

/* --- the relying party -----------------------------------------------------
 */

static void rp_init(rp_t *rp, request_rec *r, const hsc_srv_conf_t *sc,
                    const hsc_dir_conf_t *d)
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

/* A new challenge's text for purpose and user ("" for none); NULL on a
 * fault (logged). */
const char *hsc_pk_new_challenge(rp_t *rp, hsc_wa_purpose_t purpose,
                                 const char *user)
{
    unsigned char c[HSC_WA_CHALLENGE_LEN];

    if (hsc_wa_challenge_make(rp->sc->keys, purpose, user, rp->now_ms, c)
        != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, rp->r,
                      HSCLOGNO(284) "passkey: no challenge could be made (no "
                                    "random bytes?)");
        return NULL;
    }
    return hsc_pk_b64_text(rp->r->pool, c, sizeof(c));
}

const char *hsc_pk_prf_salt(apr_pool_t *p)
{
    unsigned char salt[32];

    hsc_wa_prf_salt(salt);
    return hsc_pk_b64_text(p, salt, sizeof(salt));
}

/*
 * The challenge sent back: ours, for purpose and user, young enough.
 * HSC_OK with *issued_ms and *canon (its canonical text, which
 * clientDataJSON must carry); HSC_EEXPIRED; else a refusal.
 */
hsc_status_t hsc_pk_check_challenge(rp_t *rp, hsc_wa_purpose_t purpose,
                                    const char *user, int64_t *issued_ms,
                                    const char **canon)
{
    bin_t c;

    *issued_ms = 0;
    *canon = NULL;
    if (hsc_pk_b64_field(rp->r, rp->f.challenge, HSC_WA_CHALLENGE_LEN, &c)
        != 0) {
        return HSC_EMALFORMED;
    }
    *canon = hsc_pk_b64_text(rp->r->pool, c.v, c.len);
    return hsc_wa_challenge_check(rp->sc->keys, c.v, c.len, purpose, user,
                                  rp->now_ms, rp->sc->wa_lifetime * 1000,
                                  HSC_PASSKEY_CHALLENGE_SKEW_MS, issued_ms);
}

/* --- listing a user's credentials ---------------------------------------- */

typedef struct {
    apr_pool_t *p;
    const char *ids; /* space-separated base64url */
} ids_t;

static int add_id(void *baton, const hsc_passkey_t *pk)
{
    ids_t *k = baton;
    const char *id = hsc_pk_b64_text(k->p, pk->id, pk->id_len);

    k->ids = k->ids[0] ? apr_pstrcat(k->p, k->ids, " ", id, NULL) : id;
    return 0;
}

/* The user's credential ids, or NULL on a fault (logged). */
const char *hsc_pk_credential_ids(request_rec *r, hsc_factors_t *f,
                                  const char *user)
{
    ids_t k = {r->pool, ""};

    if (hsc_passkeys_list(f, user, add_id, &k) != HSC_OK) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      HSCLOGNO(285) "passkey: the credentials of user \"%s\" "
                                    "cannot be read: %s",
                      ap_escape_logitem(r->pool, user), hsc_factors_errmsg(f));
        return NULL;
    }
    return k.ids;
}

/* --- the entry --------------------------------------------------------------
 */

int hsc_passkey_handle(request_rec *r, const hsc_srv_conf_t *sc,
                       const hsc_dir_conf_t *d, hsc_passkey_at_t at)
{
    apr_size_t len;
    char *body = hsc_form_passkey_body(r, &len);
    answer_t a;
    rp_t rp;
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
        hsc_pk_refuse(&a, HTTP_SERVICE_UNAVAILABLE, "unavailable");
    }
    else if (pk_parse(body, &rp.f) != 0 || rp.f.passkey == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      HSCLOGNO(303) "passkey request refused: malformed "
                                    "body");
        hsc_pk_refuse(&a, HTTP_BAD_REQUEST, "bad_request");
    }
    else if (at == HSC_PASSKEY_AT_ACCOUNT) {
        hsc_pk_account_step(&rp, &a);
    }
    else if (!strcmp(rp.f.passkey, "options")) {
        hsc_pk_options_login(&rp, &a);
    }
    else if (!strcmp(rp.f.passkey, "assert")) {
        hsc_pk_assert_login(&rp, &a);
    }
    else {
        hsc_pk_refuse(&a, HTTP_BAD_REQUEST, "bad_request");
    }
    rv = send_answer(r, &a);
    hsc_wipe(body, len);
    return rv;
}
