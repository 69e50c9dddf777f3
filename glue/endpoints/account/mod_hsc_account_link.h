/*
 * mod_hsc_account_link.h: one-time links on the account page
 * (mod_hsc_account_link.c).
 */
#ifndef MOD_HSC_ACCOUNT_LINK_H
#define MOD_HSC_ACCOUNT_LINK_H

#include "httpd.h"

#include "hsc_http.h"
#include "mod_hsc_config.h"

/* A request that carries a one-time link (mod_hsc_account_link.c): get
 * for a GET, f the form or the query. The answer. */
int hsc_account_link(request_rec *r, const hsc_srv_conf_t *sc,
                     const hsc_dir_conf_t *d, int get,
                     const hsc_login_form_t *f);

#endif /* MOD_HSC_ACCOUNT_LINK_H */
