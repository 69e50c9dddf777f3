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

/* The HSC_PRIVATE output filter and its insert hooks. */
void hsc_cachectl_register_hooks(apr_pool_t *p);

#endif /* MOD_HSC_CACHECTL_H */
