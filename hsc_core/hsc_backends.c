/*
 * hsc_backends.c: what the stores' backends share with their wrappers,
 * in a file below both (a wrapper opens its backends, and they call these:
 * here, nobody calls back up). The user store's (hsc_store_backend.h): an
 * error message, a user's row copied into the handle; the factor store's
 * (hsc_factors_backend.h) and the activity store's
 * (hsc_activity_backend.h): an error message.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsc_activity_backend.h"
#include "hsc_factors_backend.h"
#include "hsc_store_backend.h"

/* --- the user store ------------------------------------------------------ */

void hsc_store_msgf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;

    if (buf == NULL || len == 0) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* Room in the handle for n bytes of groups and a NUL; 0, or -1. */
static int groups_room(hsc_store_t *s, size_t n)
{
    size_t cap = s->groups_cap ? s->groups_cap : 256;
    char *g;

    if (s->groups != NULL && n < s->groups_cap) {
        return 0;
    }
    while (cap <= n) {
        cap *= 2;
    }
    if ((g = realloc(s->groups, cap)) == NULL) {
        return -1;
    }
    s->groups = g;
    s->groups_cap = cap;
    return 0;
}

hsc_status_t hsc_store_hold_user(hsc_store_t *s, const hsc_store_row_t *row,
                                 hsc_user_t *out)
{
    char spec[HSC_KDF_SPEC_MAX];

    if (row->name == NULL || row->salt == NULL || row->kdf == NULL
        || row->auth == NULL || row->groups == NULL || row->name_len < 1
        || row->name_len > HSC_USER_MAX || row->salt_len != HSC_SALT_LEN
        || row->auth_len != HSC_AUTH_LEN || row->kdf_len < 1
        || row->kdf_len >= sizeof(spec)
        || (row->seals_len > 0 && row->seals == NULL)
        || row->seals_len % HSC_SEAL_HASH_LEN != 0
        || row->seals_len > sizeof(s->seals)) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "user record is malformed");
        return HSC_ESTORE;
    }
    memcpy(spec, row->kdf, row->kdf_len);
    spec[row->kdf_len] = '\0';
    if (hsc_kdf_parse(spec, &out->kdf) != HSC_OK) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "user record has an invalid kdf");
        return HSC_ESTORE;
    }
    if (groups_room(s, row->groups_len) != 0) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg), "out of memory");
        return HSC_ENOMEM;
    }
    memcpy(s->name, row->name, row->name_len);
    s->name[row->name_len] = '\0';
    memcpy(s->groups, row->groups, row->groups_len);
    s->groups[row->groups_len] = '\0';
    out->name = s->name;
    out->name_len = row->name_len;
    memcpy(out->salt, row->salt, HSC_SALT_LEN);
    memcpy(out->authenticator, row->auth, HSC_AUTH_LEN);
    out->groups = s->groups;
    out->disabled = row->disabled;
    out->revoked_before = row->revoked_before;
    out->gen = row->gen;
    out->created = row->created;
    out->updated = row->updated;
    out->seals = NULL;
    out->seals_len = row->seals_len;
    if (row->seals_len > 0) {
        memcpy(s->seals, row->seals, row->seals_len);
        out->seals = s->seals;
    }
    return HSC_OK;
}

/* --- the factor store and the activity store ------------------------------ */

void hsc_factors_msgf(hsc_factors_t *f, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(f->errmsg, sizeof(f->errmsg), fmt, ap);
    va_end(ap);
}

void hsc_activity_msgf(hsc_activity_t *a, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(a->errmsg, sizeof(a->errmsg), fmt, ap);
    va_end(ap);
}
