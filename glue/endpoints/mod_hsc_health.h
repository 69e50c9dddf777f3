/*
 * mod_hsc_health.h: SetHandler hsc-health, 200 or 503 for a load balancer
 * (mod_hsc_health.c; docs/metrics.md).
 */
#ifndef MOD_HSC_HEALTH_H
#define MOD_HSC_HEALTH_H

#include "httpd.h"

void hsc_health_register_hooks(apr_pool_t *p);

#endif /* MOD_HSC_HEALTH_H */
