/*
 * mod_hsc_authz.h: SetHandler hsc-authz, the authorization endpoint for
 * nginx, Caddy, Traefik and HAProxy (mod_hsc_authz.c;
 * docs/authz-endpoint.md).
 */
#ifndef MOD_HSC_AUTHZ_H
#define MOD_HSC_AUTHZ_H

#include "httpd.h"

#include "mod_hsc_config.h"

/* A request to an hsc-authz location without a valid cookie: the answer
 * its HSCAuthzStyle wants (401 with the login in Location, or 302 to it
 * for a navigation); DECLINED for any other request. */
int hsc_authz_unauthenticated(request_rec *r, const hsc_dir_conf_t *d);

/* access_checker (trusted proxy, the URL asked about) and the handler. */
void hsc_authz_register_hooks(apr_pool_t *p);

#endif /* MOD_HSC_AUTHZ_H */
