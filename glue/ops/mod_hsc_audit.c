/*
 * mod_hsc_audit.c: HSCAuditLog, where the security events (mod_hsc_ops.c)
 * are written.
 *
 *   HSCAuditLog /var/log/apache2/hsc-audit.log
 *   HSCAuditLog "|/usr/bin/rotatelogs /var/log/apache2/hsc-audit.%Y%m%d 86400"
 *
 * One JSON object per line (hsc_core/hsc_audit.c writes it; this file only
 * collects the fields), opened by the parent as CustomLog is: a path is
 * relative to ServerRoot, "|prog" is a piped log (ap_open_piped_log: "|$"
 * through the shell, "||" or "|" directly), and the children inherit it.
 * Each line is one write() of at most PIPE_BUF bytes, so lines of several
 * children never mix, on a pipe or on a file opened for appending.
 * The fields and events are in docs/audit-log.md. Every event is also
 * counted in the metrics (mod_hsc_metrics.c), with or without the log.
 */
#include <string.h>

#include "apr_strings.h"
#include "apr_file_io.h"

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_request.h"
#include "ap_mpm.h"

#include "mod_hsc_log.h"
#include "mod_hsc_audit.h"
#include "mod_hsc_config.h"
#include "hsc_audit.h"

/* Where lines go in this generation (HSCAuditLog is hsc_global_conf_t's
 * audit_log); NULL: nowhere. */
static apr_file_t *audit_file;

/* As mod_log_config does for CustomLog: in the parent, in pconf. */
static int audit_open_logs(apr_pool_t *pconf, apr_pool_t *plog,
                           apr_pool_t *ptemp, server_rec *s)
{
    const char *audit_target = hsc_srv_conf(s)->global->audit_log;
    apr_status_t rv;
    const char *path;

    (void)plog;
    (void)ptemp;
    audit_file = NULL;
    if (audit_target == NULL
        || ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG) {
        return OK;
    }
    if (*audit_target == '|') {
        piped_log *pl = ap_open_piped_log(pconf, audit_target + 1);
        if (pl == NULL) {
            ap_log_error(APLOG_MARK, APLOG_EMERG, 0, s,
                         HSCLOGNO(160) "HSCAuditLog: cannot start the piped "
                                       "log %s",
                         audit_target + 1);
            return !OK;
        }
        audit_file = ap_piped_log_write_fd(pl);
        return OK;
    }
    path = ap_server_root_relative(pconf, audit_target);
    rv = apr_file_open(&audit_file, path,
                       APR_FOPEN_WRITE | APR_FOPEN_APPEND | APR_FOPEN_CREATE
                           | APR_FOPEN_LARGEFILE,
                       APR_UREAD | APR_UWRITE | APR_GREAD, pconf);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_EMERG, rv, s,
                     HSCLOGNO(165) "HSCAuditLog: cannot open %s", path);
        audit_file = NULL;
        return !OK;
    }
    return OK;
}

/* --- writing -------------------------------------------------------------- */

void hsc_audit_write(request_rec *r, const hsc_audit_event_t *e)
{
    char line[HSC_AUDIT_LINE_MAX];
    apr_size_t n;
    apr_status_t rv;

    if (audit_file == NULL) {
        return;
    }
    n = hsc_audit_format(e, line, sizeof(line));
    if (n == 0) {
        return;
    }
    /* One write: a line stays whole among the children's. */
    rv = apr_file_write(audit_file, line, &n);
    if (rv != APR_SUCCESS) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r,
                      HSCLOGNO(161) "cannot write to the audit log "
                                    "(HSCAuditLog %s)",
                      hsc_srv_conf(r->server)->global->audit_log);
    }
}

void hsc_audit_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_open_logs(audit_open_logs, NULL, NULL, APR_HOOK_MIDDLE);
}
