/*
 * mod_hsc_log.h: the one header every glue file (mod_hsc*.c) includes. It
 * names the module record, so that `LogLevel hsc:debug` reaches each file's
 * ap_log_*error calls (APLOG_USE_MODULE), and defines the log tag.
 * Never included by hsc_core/, which does not log.
 */
#ifndef MOD_HSC_LOG_H
#define MOD_HSC_LOG_H

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"

extern module AP_MODULE_DECLARE_DATA hsc_module;

APLOG_USE_MODULE(hsc);

/*
 * The tag of a log line, as httpd's APLOGNO: HSCLOGNO(012) "text" logs
 * "HSC012: text". One number per call site (two places, two numbers; a
 * removed number is never reused); the next free one is in
 * docs/dev/log-tags-next, and every tag has a row in docs/directives.md's
 * "Log messages" table. test/checks/log-tags.sh (make check) enforces it.
 */
#define HSCLOGNO(n) "HSC" #n ": "

/* r->notes keys that one wing sets and a lower one reads. */
/* The login id of the request's cookie (format 2), for the audit log's
 * events of this request. */
#define HSC_NOTE_LOGIN_ID "hsc-login-id"
/* r->notes: set while a code is counted, so that a lockout there is
 * counted for the second-factor step. */
#define HSC_NOTE_CODE_STEP "hsc-code-step"

#endif /* MOD_HSC_LOG_H */
