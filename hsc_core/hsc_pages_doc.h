/*
 * hsc_pages_doc.h: what the page files of the core share (hsc_pages.c,
 * hsc_pages_account.c): the document around a page, and a form's error.
 */
#ifndef HSC_PAGES_DOC_H
#define HSC_PAGES_DOC_H

#include "hsc_pages.h"

/* The document around a page's body; heading is plain text (trusted). */
const char *hsc_page_doc(apr_pool_t *p, const hsc_page_conf_t *c,
                         const char *heading, const char *body);

/* The same with a wider <main> for a page of several sections (the
 * account page). */
const char *hsc_page_doc_wide(apr_pool_t *p, const hsc_page_conf_t *c,
                              const char *heading, const char *body);

/* The classes of buttons that are not a form's main action: another
 * action beside it, and one that removes or ends something. */
#define BTN_SECONDARY " class=\"hsc-btn-secondary\""
#define BTN_DANGER " class=\"hsc-btn-danger\""

/* A form's error message (or ""): an alert its fields point to with
 * ERROR_ARIA. */
#define ERROR_ARIA " aria-invalid=\"true\" aria-describedby=\"hsc-error\""
const char *hsc_page_error_block(apr_pool_t *p, const char *error);

/* The passkey button of a page (passkey.js shows it where the browser
 * has WebAuthn): mode "login", "second-factor" or "create"; extra: HTML
 * before the button (the account page's name field), or NULL. */
const char *hsc_page_passkey_block(apr_pool_t *p, const char *mode,
                                   const char *label, const char *extra);

#endif /* HSC_PAGES_DOC_H */
