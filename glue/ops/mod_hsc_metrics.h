/*
 * mod_hsc_metrics.h: SetHandler hsc-metrics, Prometheus counters in a
 * shared memory segment, summed over every child (mod_hsc_metrics.c;
 * docs/metrics.md).
 */
#ifndef MOD_HSC_METRICS_H
#define MOD_HSC_METRICS_H

#include "httpd.h"

#include "hsc_outcome.h"

void hsc_metrics_login(hsc_method_t how, hsc_login_outcome_t o);
void hsc_metrics_cookie(hsc_cookie_outcome_t o);
void hsc_metrics_logout(int everywhere);
void hsc_metrics_lockout(int by_user);
void hsc_metrics_kdf_begin(void);
void hsc_metrics_kdf_end(apr_interval_time_t took);
void hsc_metrics_store_error(void);
void hsc_metrics_key_use(const char *kid);
/* post_config (the counters' shared memory) and SetHandler hsc-metrics. */
void hsc_metrics_register_hooks(apr_pool_t *p);

#endif /* MOD_HSC_METRICS_H */
