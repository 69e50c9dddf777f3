/*
 * mod_hsc_account.h: the account page (mod_hsc_account.c).
 */
#ifndef MOD_HSC_ACCOUNT_H
#define MOD_HSC_ACCOUNT_H

#include "apr_pools.h"

/* Registers the hsc-account handler and the post_config that reads the
 * default password blocklist. */
void hsc_account_register_hooks(apr_pool_t *p);

#endif /* MOD_HSC_ACCOUNT_H */
