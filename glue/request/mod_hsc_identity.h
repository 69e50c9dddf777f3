/*
 * mod_hsc_identity.h: the identity a proxied application reads
 * (mod_hsc_identity.c; docs/identity-headers.md): HSCIdentityHeader,
 * HSCStripRequestHeaders, HSCStripCookie, and configtest's warning about
 * headers built from %{REMOTE_USER}s or %{REMOTE_USER}e.
 */
#ifndef MOD_HSC_IDENTITY_H
#define MOD_HSC_IDENTITY_H

#include "httpd.h"

/* header_parser (the client's copies go), fixups (ours are set, the
 * cookie goes) and the configtest warning (post_config). */
void hsc_identity_register_hooks(apr_pool_t *p);

#endif /* MOD_HSC_IDENTITY_H */
