/*
 * mod_hsc_cachectl.h: what a shared cache may keep (mod_hsc_cachectl.c).
 * Responses to requests that AuthType HSC admitted say Cache-Control
 * private (and no-store when they set the cookie) and Vary: Cookie.
 */
#ifndef MOD_HSC_CACHECTL_H
#define MOD_HSC_CACHECTL_H

#include "httpd.h"

/* Mark r admitted (cookie_set: its response sets or refreshes the
 * cookie); the output filter rewrites the headers. */
void hsc_cachectl_mark(request_rec *r, int cookie_set);

/* For a subrequest whose main request is not marked and whose output
 * may have begun (an SSI include in a public page): that main request,
 * which can no longer be made private; else NULL. */
request_rec *hsc_cachectl_too_late(request_rec *r);

/* The HSC_PRIVATE output filter and its insert hooks. */
void hsc_cachectl_register_hooks(apr_pool_t *p);

#endif /* MOD_HSC_CACHECTL_H */
