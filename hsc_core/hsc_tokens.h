/*
 * hsc_tokens.h: app passwords in the user store (hsc_token.h is their
 * text form). The calls take the user store's handle: a request with a
 * token reads its row by id on the handle the request already holds,
 * then its owner's row through the record cache as a cookie would.
 *
 * SQLite (schema version 5): the table hsc_tokens in the user file.
 * PostgreSQL (schema version 5, and 6 for the account page): the table
 * hsc_tokens, which the httpd role reaches only through SECURITY DEFINER
 * functions: hsc_token_get (by id), hsc_token_add (a user's own, with
 * x_n), hsc_tokens_of (one user's list) and hsc_token_revoke (one of a
 * user's); hsc-admin's role writes the table itself. A file or database
 * of an older schema has no tokens: every call is HSC_ESTORE with a
 * message naming the upgrade ("hsc-admin init").
 */
#ifndef HSC_TOKENS_H
#define HSC_TOKENS_H

#include "hsc_store.h"
#include "hsc_token.h"

/** The schema version that made the token table (both stores). */
#define HSC_TOKENS_VERSION 5

/** The token id into *out. HSC_OK; HSC_ENOUSER when no token has that id;
 *  HSC_ESTORE. */
hsc_status_t hsc_tokens_get(hsc_store_t *s, const char *id,
                            hsc_token_t *out) HSC_MUST_CHECK;

/**
 * Store t (id, user, name, scopes, hash, expires; created is now,
 * revoked 0). HSC_OK; HSC_ENOUSER (no such user); HSC_EEXISTS (the id is
 * taken, or a live token of the user has that name); HSC_EINVAL (a name,
 * scope list or id the format refuses); HSC_EREADONLY; HSC_ESTORE.
 */
hsc_status_t hsc_tokens_add(hsc_store_t *s, const hsc_token_t *t,
                            int64_t now) HSC_MUST_CHECK;

/**
 * A user's own new token (the account page): as hsc_tokens_add, but only
 * while t->user is enabled and xn (HSC_XN_LEN bytes: the cookie's x_n) is
 * the x_n of the current password, which the store checks in the
 * statement that inserts (PostgreSQL: the function hsc_token_add, so
 * that the httpd role cannot make a token for anyone without it). HSC_OK;
 * HSC_EAUTH (no such enabled user with that x_n: one answer, the password
 * may have changed meanwhile); HSC_EEXISTS (the id, or a live token's
 * name); HSC_EINVAL; HSC_EREADONLY; HSC_ESTORE.
 */
hsc_status_t
hsc_tokens_add_own(hsc_store_t *s, const hsc_token_t *t, int64_t now,
                   const unsigned char xn[HSC_XN_LEN]) HSC_MUST_CHECK;

/** fn for each token of user (NULL: of everyone), by user, then by
 *  creation; non-zero from fn stops. A listed token's hash is all zero
 *  (no lister needs it). PostgreSQL: one user's list goes through
 *  hsc_tokens_of (the httpd role may); everyone's needs the admin role. */
typedef int hsc_tokens_each_fn(void *baton, const hsc_token_t *t);
hsc_status_t hsc_tokens_list(hsc_store_t *s, const char *user,
                             hsc_tokens_each_fn *fn,
                             void *baton) HSC_MUST_CHECK;

/**
 * Revoke user's live token id, or every live token of user when id is
 * NULL, as of now; *count says how many. HSC_OK; HSC_ENOUSER when an id
 * was named and no live token of user has it; HSC_EREADONLY; HSC_ESTORE.
 * PostgreSQL: one id goes through hsc_token_revoke (the httpd role may;
 * the time is cut to a minute past the database's clock); every token of
 * user (id NULL) needs the admin role.
 */
hsc_status_t hsc_tokens_revoke(hsc_store_t *s, const char *user, const char *id,
                               int64_t now, int *count) HSC_MUST_CHECK;

#endif /* HSC_TOKENS_H */
