/*
 * mod_hsc_audit.h: HSCAuditLog, where the events' JSON lines go
 * (mod_hsc_audit.c; docs/audit-log.md).
 */
#ifndef MOD_HSC_AUDIT_H
#define MOD_HSC_AUDIT_H

#include "httpd.h"

#include "hsc_audit.h"

/* The audit log's hooks (HSCAuditLog opened). */
void hsc_audit_register_hooks(apr_pool_t *p);

/* Write e to the audit log, if HSCAuditLog is set. */
void hsc_audit_write(request_rec *r, const hsc_audit_event_t *e);

#endif /* MOD_HSC_AUDIT_H */
