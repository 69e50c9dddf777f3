/*
 * mod_hsc_login.h: the hsc-login and hsc-logout handlers (mod_hsc_login.c).
 */
#ifndef MOD_HSC_LOGIN_H
#define MOD_HSC_LOGIN_H

#include "apr_pools.h"

/* SetHandler hsc-login and SetHandler hsc-logout. */
void hsc_login_register_hooks(apr_pool_t *p);

#endif /* MOD_HSC_LOGIN_H */
