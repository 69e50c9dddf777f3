/*
 * mod_hsc_checks.h: configuration checks at `httpd -t` and at startup
 * (mod_hsc_checks.c): cookie rules per section, AuthType HSC uses, the
 * user database's permissions, the key file's warnings.
 */
#ifndef MOD_HSC_CHECKS_H
#define MOD_HSC_CHECKS_H

#include "apr_pools.h"
#include "util_cfgtree.h"

/* 1 when the first argument of configuration line d is word, in any
 * case, quoted or not ("AuthType HSC", "SetHandler hsc-authz"): how the
 * checks that walk the configuration tree read it. */
int hsc_directive_arg_is(const ap_directive_t *d, const char *word);

/* check_config, test_config and post_config. */
void hsc_checks_register_hooks(apr_pool_t *p);

#endif /* MOD_HSC_CHECKS_H */
