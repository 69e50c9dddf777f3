/*
 * hsc_activity.h: the activity store (HSCActivityDB): when and from
 * where each app password was last used. Kept apart from the user store
 * on purpose: the module writes here at most once a minute per token per
 * child, and a write to the user file would empty every record cache.
 *
 * A spec names it as HSCUserDB's does: the path of an SQLite file of its
 * own (created with mode 0600 when absent, WAL mode, the table
 * hsc_token_activity), or "pgsql:<conninfo>": the table
 * hsc_token_activity of schema version 5, written through the SECURITY
 * DEFINER function hsc_token_touch, so the httpd role needs no right on
 * the table. A handle is used by one thread at a time.
 */
#ifndef HSC_ACTIVITY_H
#define HSC_ACTIVITY_H

#include <stddef.h>
#include <stdint.h>

#include "hsc_token.h"
#include "hsc_util.h"

typedef struct hsc_activity hsc_activity_t;

/* Bytes of an address as kept (an IPv6 text with its NUL fits). */
#define HSC_ACTIVITY_ADDR_MAX 64

/**
 * Open the activity store spec names. readonly: never create or write
 * (hsc-admin token list); an SQLite file that does not exist then reads
 * as one in which no token was ever used. A "pgsql:" spec connects on
 * first use, not here. HSC_OK; HSC_EIO, HSC_ESTORE, HSC_EINVAL (a pgsql:
 * spec without PostgreSQL in this build, a conninfo that does not parse,
 * the user database's file) with errbuf set.
 */
hsc_status_t hsc_activity_open(const char *spec, int readonly,
                               hsc_activity_t **out, char *errbuf,
                               size_t errlen) HSC_MUST_CHECK;

/** Token id was used at time at (Unix seconds) from addr (kept to its
 *  first HSC_ACTIVITY_ADDR_MAX - 1 bytes): the row's time only grows (an
 *  older touch arriving late changes nothing). HSC_OK, HSC_EREADONLY,
 *  HSC_ESTORE (SQLite: the file stayed locked over 200 ms), HSC_EINVAL (a
 *  malformed id, a negative time). */
hsc_status_t hsc_activity_touch(hsc_activity_t *a, const char *id, int64_t at,
                                const char *addr) HSC_MUST_CHECK;

/** The last use of token id: HSC_OK with *at and addr
 *  (HSC_ACTIVITY_ADDR_MAX bytes); HSC_ENOUSER when never used; HSC_ESTORE.
 */
hsc_status_t hsc_activity_get(hsc_activity_t *a, const char *id, int64_t *at,
                              char *addr) HSC_MUST_CHECK;

/** The last failure's message (never a bound value). */
const char *hsc_activity_errmsg(const hsc_activity_t *a);

void hsc_activity_close(hsc_activity_t *a);

#endif /* HSC_ACTIVITY_H */
