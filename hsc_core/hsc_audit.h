/*
 * hsc_audit.h: one audit log line (docs/audit-log.md), as a JSON object
 * on one line, without httpd: the module's glue and hsc-admin fill an
 * hsc_audit_event_t and write what hsc_audit_format() makes.
 *
 * Every string that may come from a client (the username as typed) is
 * escaped so that the line stays one valid JSON object of printable text:
 * '"', '\' and every control character (C0, DEL, C1, U+2028, U+2029) are
 * escaped; a byte that is not part of well-formed UTF-8 becomes U+FFFD.
 */
#ifndef HSC_AUDIT_H
#define HSC_AUDIT_H

#include <stddef.h>
#include <stdint.h>

/* The longest line: PIPE_BUF on Linux, so one write() of a line to a
 * piped log (rotatelogs) is never interleaved with another child's. */
#define HSC_AUDIT_LINE_MAX 4096
/* Bytes of a string field kept; the rest is cut (a username is at most
 * 255 bytes, but a failed login logs the name as typed). */
#define HSC_AUDIT_FIELD_MAX 255

/** One security event. NULL strings and unset numbers are left out. */
typedef struct {
    int64_t time_us;     /* Unix microseconds (time: RFC 3339, ms, UTC) */
    const char *event;   /* login, logout, cookie, account, admin */
    const char *outcome; /* success, failure */
    const char *reason;  /* failures: a class (docs/audit-log.md) */
    const char *user;    /* user_len bytes, any bytes (escaped here) */
    size_t user_len;
    const char *client;     /* client address (after mod_remoteip) */
    const char *vhost;      /* ServerName of the virtual host */
    const char *request_id; /* UNIQUE_ID (mod_unique_id) */
    const char *kid;        /* key id that signed or verified a cookie */
    const char *login_id;   /* format 2: the login's id (base64url) */
    const char *method;     /* second-factor step: "otp" or "rc" */
    const char *counter;    /* throttled logins: "address" or "user" */
    int64_t until;          /* throttled logins: Unix seconds; 0: none */
    int everywhere;         /* logout: 0 or 1; -1: left out */
    const char *action;     /* admin: add, passwd, ...; account: password */
    const char *actor;      /* admin: the Unix user who ran hsc-admin */
} hsc_audit_event_t;

/** An event with every optional field unset (everywhere = -1). */
void hsc_audit_event_init(hsc_audit_event_t *e);

/**
 * Write e as one JSON object and a "\n" into buf (cap at least
 * HSC_AUDIT_LINE_MAX), NUL-terminated. Returns the length without the
 * NUL, or 0 when cap is too small or event/outcome is NULL. Never writes
 * past cap; string fields are cut to HSC_AUDIT_FIELD_MAX bytes first.
 */
size_t hsc_audit_format(const hsc_audit_event_t *e, char *buf, size_t cap);

/**
 * Escape len bytes of s as the inside of a JSON string (no quotes) into
 * out (cap bytes, NUL-terminated), stopping before a character that would
 * not fit. Returns the length written. Used by hsc_audit_format.
 */
size_t hsc_json_escape(const char *s, size_t len, char *out, size_t cap);

/**
 * "2026-12-04T08:43:17.123Z" for t (Unix microseconds; negative: the
 * epoch) into out (at least 32 bytes). Returns the length (24).
 */
size_t hsc_rfc3339_ms(int64_t time_us, char *out);

#endif /* HSC_AUDIT_H */
