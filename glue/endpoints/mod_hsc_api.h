/*
 * mod_hsc_api.h: SetHandler hsc-api, the JSON login for single-page apps,
 * and the JSON body of a protected location's 401 (mod_hsc_api.c).
 */
#ifndef MOD_HSC_API_H
#define MOD_HSC_API_H

#include "httpd.h"

#include "mod_hsc_config.h"

/* SetHandler hsc-api. */
void hsc_api_register_hooks(apr_pool_t *p);

/* Before a protected location answers 401: when the client's Accept
 * prefers application/json, the body becomes {"error":"unauthenticated",
 * "login_url":HSCLoginURL with the return} (ap_custom_response), typed
 * application/json. Otherwise nothing changes. */
void hsc_api_unauthenticated(request_rec *r, const hsc_dir_conf_t *d);

#endif /* MOD_HSC_API_H */
