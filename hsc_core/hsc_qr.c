/*
 * hsc_qr.c: QR codes drawn as SVG and as terminal text (hsc_qr.h).
 */
#include <string.h>

#include <sys/uio.h>

#include <qrencode.h>

#include "apr_strings.h"

#include "hsc_qr.h"

/* The modules of text, or NULL. */
static QRcode *encode(const char *text)
{
    return QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M);
}

/* 1 when the module at (x, y) of the code with its quiet zone is dark. */
static int dark(const QRcode *q, int x, int y)
{
    x -= HSC_QR_QUIET;
    y -= HSC_QR_QUIET;
    if (x < 0 || y < 0 || x >= q->width || y >= q->width) {
        return 0;
    }
    return q->data[y * q->width + x] & 1;
}

const char *hsc_qr_svg(apr_pool_t *p, const char *text, const char *title)
{
    QRcode *q = encode(text);
    struct iovec *parts;
    int size, x, y, n = 0;
    const char *out;

    if (q == NULL) {
        return NULL;
    }
    size = q->width + 2 * HSC_QR_QUIET;
    /* One path segment per run of dark modules in a row. */
    parts = apr_palloc(p, sizeof(*parts) * (size_t)(size * size / 2 + 2));
    for (y = 0; y < size; y++) {
        for (x = 0; x < size; x++) {
            int run = 0;
            while (x + run < size && dark(q, x + run, y)) {
                run++;
            }
            if (run > 0) {
                char *seg = apr_psprintf(p, "M%d %dh%dv1h-%dz", x, y, run, run);
                parts[n].iov_base = seg;
                parts[n].iov_len = strlen(seg);
                n++;
                x += run;
            }
        }
    }
    QRcode_free(q);
    out = apr_pstrcatv(p, parts, (apr_size_t)n, NULL);
    return apr_psprintf(p,
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                        "class=\"hsc-qr\" viewBox=\"0 0 %d %d\" role=\"img\" "
                        "aria-label=\"%s\" shape-rendering=\"crispEdges\">"
                        "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>"
                        "<path fill=\"#000\" d=\"%s\"/></svg>",
                        size, size, title, size, size, out);
}

const char *hsc_qr_text(apr_pool_t *p, const char *text)
{
    /* U+2588 full block, U+2580 upper half, U+2584 lower half. */
    static const char *const glyph[4] = {"\xe2\x96\x88", "\xe2\x96\x80",
                                         "\xe2\x96\x84", " "};
    QRcode *q = encode(text);
    char *out, *o;
    int size, x, y;

    if (q == NULL) {
        return NULL;
    }
    size = q->width + 2 * HSC_QR_QUIET;
    o = out = apr_palloc(p,
                         (size_t)((size + 1) / 2) * (size_t)(size * 3 + 1) + 1);
    for (y = 0; y < size; y += 2) {
        for (x = 0; x < size; x++) {
            /* Light is drawn: index 0 both light, 3 both dark. */
            int top = dark(q, x, y), bottom = y + 1 < size && dark(q, x, y + 1);
            const char *g = glyph[(top ? 2 : 0) + (bottom ? 1 : 0)];
            size_t len = strlen(g);
            memcpy(o, g, len);
            o += len;
        }
        *o++ = '\n';
    }
    *o = '\0';
    QRcode_free(q);
    return out;
}
