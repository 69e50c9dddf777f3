/*
 * hsc_activity.c: the activity store's wrapper (hsc_activity.h): the
 * spec names the backend as HSCUserDB's does (hsc_store_spec_conninfo:
 * "pgsql:<conninfo>", else an SQLite path); each call's arguments are
 * checked here, once, then the backend's entry runs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hsc_activity_backend.h"
#include "hsc_store.h"

hsc_status_t hsc_activity_open(const char *spec, int readonly,
                               hsc_activity_t **out, char *errbuf,
                               size_t errlen)
{
    const char *conninfo = hsc_store_spec_conninfo(spec);

    *out = NULL;
    if (errbuf != NULL && errlen > 0) {
        errbuf[0] = '\0';
    }
    if (spec == NULL || spec[0] == '\0') {
        if (errbuf != NULL && errlen > 0) {
            snprintf(errbuf, errlen, "no activity store named");
        }
        return HSC_EINVAL;
    }
    if (conninfo != NULL) {
#ifdef HSC_HAVE_PGSQL
        return hsc_activity_pgsql_open(conninfo, readonly, out, errbuf, errlen);
#else
        if (errbuf != NULL && errlen > 0) {
            snprintf(errbuf, errlen, "%s", HSC_STORE_NO_PGSQL_MSG);
        }
        return HSC_EINVAL;
#endif
    }
    return hsc_activity_sqlite_open(spec, readonly, out, errbuf, errlen);
}

hsc_status_t hsc_activity_touch(hsc_activity_t *a, const char *id, int64_t at,
                                const char *addr)
{
    char kept[HSC_ACTIVITY_ADDR_MAX];

    if (id == NULL || !hsc_token_id_valid(id, strlen(id)) || at < 0) {
        hsc_activity_msgf(a, "touch: invalid token id or time");
        return HSC_EINVAL;
    }
    if (a->readonly) {
        hsc_activity_msgf(a, "touch: the activity store is open read-only");
        return HSC_EREADONLY;
    }
    /* An address is kept to its first 63 bytes (an IPv6 text fits). */
    snprintf(kept, sizeof(kept), "%s", addr != NULL ? addr : "");
    return a->vt->touch(a, id, at, kept);
}

hsc_status_t hsc_activity_get(hsc_activity_t *a, const char *id, int64_t *at,
                              char *addr)
{
    *at = 0;
    addr[0] = '\0';
    if (id == NULL || !hsc_token_id_valid(id, strlen(id))) {
        return HSC_ENOUSER; /* no such id was ever touched */
    }
    return a->vt->get(a, id, at, addr);
}

const char *hsc_activity_errmsg(const hsc_activity_t *a)
{
    return a != NULL ? a->errmsg : "";
}

void hsc_activity_close(hsc_activity_t *a)
{
    if (a != NULL) {
        a->vt->close(a);
    }
}
