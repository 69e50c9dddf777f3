/*
 * hsc_activity_backend.h: what an activity-store backend implements
 * (hsc_activity.h is the API; hsc_activity.c the wrapper that checks the
 * arguments and dispatches on the spec). A backend embeds struct
 * hsc_activity first in its handle. Callers never include this.
 */
#ifndef HSC_ACTIVITY_BACKEND_H
#define HSC_ACTIVITY_BACKEND_H

#include "hsc_activity.h"

typedef struct {
    /* id valid, at >= 0, addr at most HSC_ACTIVITY_ADDR_MAX - 1 bytes, the
     * handle writable: the wrapper has checked. */
    hsc_status_t (*touch)(hsc_activity_t *a, const char *id, int64_t at,
                          const char *addr);
    hsc_status_t (*get)(hsc_activity_t *a, const char *id, int64_t *at,
                        char *addr);
    void (*close)(hsc_activity_t *a);
} hsc_activity_vtable_t;

struct hsc_activity {
    const hsc_activity_vtable_t *vt;
    int readonly;
    char errmsg[256]; /* the last failure, for logs; never a bound value */
};

/* Format the handle's errmsg (truncating). */
void hsc_activity_msgf(hsc_activity_t *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

hsc_status_t hsc_activity_sqlite_open(const char *path, int readonly,
                                      hsc_activity_t **out, char *errbuf,
                                      size_t errlen);
#ifdef HSC_HAVE_PGSQL
hsc_status_t hsc_activity_pgsql_open(const char *conninfo, int readonly,
                                     hsc_activity_t **out, char *errbuf,
                                     size_t errlen);
#endif

#endif /* HSC_ACTIVITY_BACKEND_H */
