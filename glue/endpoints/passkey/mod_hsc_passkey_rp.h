/*
 * mod_hsc_passkey_rp.h: what the passkey wing's files share, at its
 * bottom (mod_hsc_passkey_rp.c): the request's fields and their types,
 * the answer, challenges, a user's credential ids. Above it:
 * mod_hsc_passkey_login.c (hsc-login's options and assertions) and
 * mod_hsc_passkey_create.c (hsc-account's new passkey, by a session or an
 * enrolment link), and at the top mod_hsc_passkey.c, the entry
 * (mod_hsc_passkey.h) that parses a request and sends each step to them.
 */
#ifndef MOD_HSC_PASSKEY_RP_H
#define MOD_HSC_PASSKEY_RP_H

#include "httpd.h"

#include "mod_hsc_config.h"
#include "hsc_factors.h"
#include "hsc_wa_challenge.h"

/* How far in the future a challenge's time may be: another server's clock
 * ahead of ours. Small, whatever HSCClockSkew says: an accepted challenge
 * from the future would refuse the credential's next ones (the one-time
 * rule keeps the latest time) until that time comes. */
#define HSC_PASSKEY_CHALLENGE_SKEW_MS 10000

/* The fields of a passkey request (base64url where binary). */
typedef struct {
    const char *passkey, *purpose, *challenge, *id, *cdj, *ad, *sig, *uh, *prf,
        *att, *spki, *alg, *transports, *name, *ret, *remember, *link;
} hsc_passkey_form_t;

/* What a request decoded: binary fields. */
typedef struct {
    unsigned char *v;
    size_t len;
} hsc_passkey_bin_t;

/* One answer of the endpoints. */
typedef struct {
    int status;
    const char *error; /* NULL: success, body in json */
    const char *json;
    apr_int64_t retry_after;
} hsc_passkey_answer_t;

/* A request at the relying party: the configuration, the fields, the
 * RP ID and origins it checks against, the request's time. */
typedef struct {
    request_rec *r;
    const hsc_srv_conf_t *sc;
    const hsc_dir_conf_t *d;
    hsc_passkey_form_t f;
    const char *rp_id;
    const char *const *origins;
    size_t n_origins;
    int64_t now_ms;
} hsc_passkey_rp_t;

/* A base64url field into *b (pool memory): 0, or -1 when absent (and
 * required), malformed or over max bytes. */
int hsc_passkey_rp_b64_field(request_rec *r, const char *text, size_t max,
                             hsc_passkey_bin_t *b);

/* The same for a secret (the PRF output z): wiped when the request ends,
 * whatever path the answer took. */
int hsc_passkey_rp_secret_field(request_rec *r, const char *text, size_t max,
                                hsc_passkey_bin_t *b);

/* v as base64url text in p. */
const char *hsc_passkey_rp_b64_text(apr_pool_t *p, const unsigned char *v,
                                    size_t n);

/* The answer is a refusal: status and its JSON error code. */
void hsc_passkey_rp_refuse(hsc_passkey_answer_t *a, int status,
                           const char *error);

/* A new challenge's text for purpose and user ("" for none); NULL on a
 * fault (logged). */
const char *hsc_passkey_rp_new_challenge(hsc_passkey_rp_t *rp,
                                         hsc_wa_purpose_t purpose,
                                         const char *user);

/* The PRF salt every page asks the authenticator for, as base64url. */
const char *hsc_passkey_rp_prf_salt(apr_pool_t *p);

/*
 * The challenge sent back: ours, for purpose and user, young enough.
 * HSC_OK with *issued_ms and *canon (its canonical text, which
 * clientDataJSON must carry); HSC_EEXPIRED; else a refusal.
 */
hsc_status_t hsc_passkey_rp_check_challenge(hsc_passkey_rp_t *rp,
                                            hsc_wa_purpose_t purpose,
                                            const char *user,
                                            int64_t *issued_ms,
                                            const char **canon);

/* The user's credential ids, space-separated base64url, or NULL on a
 * fault (logged). */
const char *hsc_passkey_rp_credential_ids(request_rec *r, hsc_factors_t *f,
                                          const char *user);

#endif /* MOD_HSC_PASSKEY_RP_H */
