/*
 * hsc_tokens.c: the token calls' argument checks, then the backend's
 * entry (hsc_store_backend.h), as hsc_store.c does for users.
 */
#include <string.h>

#include "hsc_store_backend.h"
#include "hsc_tokens.h"

static hsc_status_t none(hsc_store_t *s)
{
    hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                   "this store has no app passwords");
    return HSC_ESTORE;
}

hsc_status_t hsc_tokens_get(hsc_store_t *s, const char *id, hsc_token_t *out)
{
    memset(out, 0, sizeof(*out));
    if (id == NULL || !hsc_token_id_valid(id, strlen(id))) {
        return HSC_ENOUSER; /* no such id can be stored */
    }
    return s->vt->token_get != NULL ? s->vt->token_get(s, id, out) : none(s);
}

/* 1 when t's fields are ones the format allows, else errmsg says not. */
static int token_valid(hsc_store_t *s, const hsc_token_t *t)
{
    if (!hsc_token_id_valid(t->id, strlen(t->id))
        || !hsc_username_valid(t->user, strlen(t->user))
        || !hsc_token_name_valid(t->name, strlen(t->name))
        || !hsc_token_scopes_valid(t->scopes) || t->expires < 0) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "token: invalid id, user, name, scopes or expiry");
        return 0;
    }
    return 1;
}

hsc_status_t hsc_tokens_add(hsc_store_t *s, const hsc_token_t *t, int64_t now)
{
    if (!token_valid(s, t)) {
        return HSC_EINVAL;
    }
    return s->vt->token_add != NULL ? s->vt->token_add(s, t, now) : none(s);
}

hsc_status_t hsc_tokens_add_own(hsc_store_t *s, const hsc_token_t *t,
                                int64_t now, const unsigned char xn[HSC_XN_LEN])
{
    if (!token_valid(s, t)) {
        return HSC_EINVAL;
    }
    if (xn == NULL) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "token add: no x_n to prove the password");
        return HSC_EAUTH;
    }
    return s->vt->token_add_own != NULL ? s->vt->token_add_own(s, t, now, xn)
                                        : none(s);
}

hsc_status_t hsc_tokens_list(hsc_store_t *s, const char *user,
                             hsc_tokens_each_fn *fn, void *baton)
{
    return s->vt->token_list != NULL ? s->vt->token_list(s, user, fn, baton)
                                     : none(s);
}

hsc_status_t hsc_tokens_revoke(hsc_store_t *s, const char *user, const char *id,
                               int64_t now, int *count)
{
    *count = 0;
    if (user == NULL || (id != NULL && !hsc_token_id_valid(id, strlen(id)))) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg), "no such token");
        return HSC_ENOUSER;
    }
    return s->vt->token_revoke != NULL
               ? s->vt->token_revoke(s, user, id, now, count)
               : none(s);
}
