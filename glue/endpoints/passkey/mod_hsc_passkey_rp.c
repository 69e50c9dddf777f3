/*
 * mod_hsc_passkey_rp.c: what the passkey endpoints' files share, at the
 * bottom of the passkey wing (mod_hsc_passkey_rp.h): the request's binary
 * fields, a refusal, challenges made and checked, a user's credential ids.
 */
#include <stdlib.h>
#include <string.h>

#include "apr_strings.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"

#include "mod_hsc_log.h"
#include "mod_hsc_passkey_rp.h"
#include "hsc_b64.h"
#include "hsc_passkeys.h"
#include "hsc_wa_ceremony.h"
#include "hsc_wa_challenge.h"

/* --- the request's fields --------------------------------------------------
 */

/* A base64url field into *b (pool memory): 0, or -1 when absent (and
 * required), malformed or over max bytes. */
int hsc_passkey_rp_b64_field(request_rec *r, const char *text, size_t max,
                             hsc_passkey_bin_t *b)
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
    hsc_passkey_bin_t *x = b;

    if (x->v != NULL) {
        hsc_wipe(x->v, x->len);
    }
    return APR_SUCCESS;
}

int hsc_passkey_rp_secret_field(request_rec *r, const char *text, size_t max,
                                hsc_passkey_bin_t *b)
{
    int rv = hsc_passkey_rp_b64_field(r, text, max, b);
    /* A copy of the pointer and size in the pool (b may be on a stack). */
    hsc_passkey_bin_t *keep = apr_pmemdup(r->pool, b, sizeof(*b));

    if (b->v != NULL) {
        keep->len = max; /* the whole buffer, decoded or not */
    }
    apr_pool_cleanup_register(r->pool, keep, wipe_bin, apr_pool_cleanup_null);
    return rv;
}

const char *hsc_passkey_rp_b64_text(apr_pool_t *p, const unsigned char *v,
                                    size_t n)
{
    char *out = apr_palloc(p, HSC_B64URL_LEN(n) + 1);

    out[hsc_b64url_encode(v, n, out)] = '\0';
    return out;
}

void hsc_passkey_rp_refuse(hsc_passkey_answer_t *a, int status,
                           const char *error)
{
    a->status = status;
    a->error = error;
}

/* --- challenges --------------------------------------------------------- */

/* A new challenge's text for purpose and user ("" for none); NULL on a
 * fault (logged). */
const char *hsc_passkey_rp_new_challenge(hsc_passkey_rp_t *rp,
                                         hsc_wa_purpose_t purpose,
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
    return hsc_passkey_rp_b64_text(rp->r->pool, c, sizeof(c));
}

const char *hsc_passkey_rp_prf_salt(apr_pool_t *p)
{
    unsigned char salt[32];

    hsc_wa_prf_salt(salt);
    return hsc_passkey_rp_b64_text(p, salt, sizeof(salt));
}

/*
 * The challenge sent back: ours, for purpose and user, young enough.
 * HSC_OK with *issued_ms and *canon (its canonical text, which
 * clientDataJSON must carry); HSC_EEXPIRED; else a refusal.
 */
hsc_status_t hsc_passkey_rp_check_challenge(hsc_passkey_rp_t *rp,
                                            hsc_wa_purpose_t purpose,
                                            const char *user,
                                            int64_t *issued_ms,
                                            const char **canon)
{
    hsc_passkey_bin_t c;

    *issued_ms = 0;
    *canon = NULL;
    if (hsc_passkey_rp_b64_field(rp->r, rp->f.challenge, HSC_WA_CHALLENGE_LEN,
                                 &c)
        != 0) {
        return HSC_EMALFORMED;
    }
    *canon = hsc_passkey_rp_b64_text(rp->r->pool, c.v, c.len);
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
    const char *id = hsc_passkey_rp_b64_text(k->p, pk->id, pk->id_len);

    k->ids = k->ids[0] ? apr_pstrcat(k->p, k->ids, " ", id, NULL) : id;
    return 0;
}

/* The user's credential ids, or NULL on a fault (logged). */
const char *hsc_passkey_rp_credential_ids(request_rec *r, hsc_factors_t *f,
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
