/*
 * hsc_qr.h: QR codes of an otpauth:// URI (TOTP enrolment), drawn for a
 * page (inline SVG, which the pages' CSP allows: no image, no script) and
 * for a terminal (hsc-admin totp enrol). libqrencode makes the modules.
 */
#ifndef HSC_QR_H
#define HSC_QR_H

#include "apr_pools.h"

/* Light modules around the code, as the QR standard asks. */
#define HSC_QR_QUIET 4

/*
 * The QR code of text (8-bit mode, error correction M, the smallest
 * version that holds it) as an <svg> element: one path of dark modules,
 * one unit a module, HSC_QR_QUIET units of quiet zone, scaled by the
 * page's stylesheet; title is its accessible name. NULL when text cannot
 * be encoded (too long, or out of memory).
 */
const char *hsc_qr_svg(apr_pool_t *p, const char *text, const char *title);

/*
 * The same for a terminal: two rows of modules a line, drawn with the
 * block characters U+2580, U+2584, U+2588 in the terminal's foreground
 * colour as the light modules, so that it scans on the usual light text
 * on a dark background. NULL when text cannot be encoded.
 */
const char *hsc_qr_text(apr_pool_t *p, const char *text);

#endif /* HSC_QR_H */
