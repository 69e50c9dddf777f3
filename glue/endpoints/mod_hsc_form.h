/*
 * mod_hsc_form.h: the pages' common ground (mod_hsc_form.c).
 */
#ifndef MOD_HSC_FORM_H
#define MOD_HSC_FORM_H

#include "httpd.h"

#include "hsc_http.h"
#include "hsc_pages.h"
#include "mod_hsc_config.h"

/* The headers every page carries: no-store, no framing, its CSP. */
void hsc_form_headers(request_rec *r, const hsc_dir_conf_t *d);

/*
 * A page whose form carries ret, the return target of a login: its CSP
 * lets the form's redirect go to ret's origin too (Chromium checks the
 * 303 after a POST against form-action), when ret is an absolute URL on
 * an HSCReturnHosts host; else it stays as hsc_form_headers set it.
 */
void hsc_form_csp_return(request_rec *r, const hsc_dir_conf_t *d,
                         const char *ret);

/* Send a page made by hsc_core/hsc_pages.c with status; returns OK. */
int hsc_form_send(request_rec *r, int status, const char *html);

/* The site's page settings (HSCSiteName, HSCLoginStylesheet, ...). */
hsc_page_conf_t hsc_form_page_conf(const hsc_dir_conf_t *d);

/*
 * 1 when a POST comes from another site: Sec-Fetch-Site says cross-site,
 * or Origin names another scheme, host or port than the request's own.
 * Requests with neither header pass (SameSite is the other half).
 */
int hsc_form_cross_site(request_rec *r);

/* Read a request body of at most max bytes into *body (pool memory,
 * NUL-terminated; wipe it after use when it may hold a secret). OK, 413
 * when larger, or another HTTP status. */
int hsc_form_read_body(request_rec *r, apr_size_t max, char **body,
                       apr_size_t *len);

/*
 * What a handler does before its POST work: the common headers, GET and
 * POST only, same-site, a small form body, parsed. DECLINED with *get set
 * for a GET (the caller shows its page), OK with the parsed form (wipe
 * *body after use), or the HTTP status to answer. what names the form in
 * log lines ("login", "logout", "account").
 */
int hsc_form_post(request_rec *r, const hsc_dir_conf_t *d, const char *what,
                  int *get, hsc_login_form_t *f, char **body, apr_size_t *len);

/* After hsc_form_post: the whole body (pool memory, NUL-terminated, *len
 * bytes; wipe it after use) when it named hsc_passkey, else NULL. */
char *hsc_form_passkey_body(request_rec *r, apr_size_t *len);

/* Read (at most max bytes) and wipe a body that a refusal leaves unread:
 * over HTTP/2 an answer sent while the body still comes ends its stream
 * with a reset, and some clients then lose the answer (curl 7.88 did, one
 * time in five under load). It may hold a password. */
void hsc_form_drain(request_rec *r, apr_size_t max);

#endif /* MOD_HSC_FORM_H */
