/*
 * hsc_factors_sqlite.h: inside the SQLite factor store, what its two files
 * share (hsc_factors_sqlite.c: TOTP and recovery codes;
 * hsc_links_sqlite.c: one-time links). Not an API: hsc_factors.h is.
 */
#ifndef HSC_FACTORS_SQLITE_H
#define HSC_FACTORS_SQLITE_H

#include <sqlite3.h>

#include "hsc_factors.h"

struct hsc_factors {
    sqlite3 *db;    /* the user file */
    sqlite3 *state; /* the state file; NULL when read-only */
    int readonly;
    char errmsg[256];
};

/* errmsg = "<what>: <SQLite's message>"; the status a failure deserves. */
hsc_status_t hsc_fx_fail(hsc_factors_t *f, sqlite3 *db, const char *what,
                         int rc);

/* Prepare sql on db and bind user as ?1; NULL (and *rc) on failure. */
sqlite3_stmt *hsc_fx_prepare_user(sqlite3 *db, const char *sql,
                                  const char *user, int *rc);

/* Run a prepared write to its end (and finalize it); the rows it changed
 * into *changes (may be NULL). */
hsc_status_t hsc_fx_run_write(hsc_factors_t *f, sqlite3 *db, sqlite3_stmt *st,
                              const char *what, int *changes);

/* End the transaction begun with BEGIN IMMEDIATE: COMMIT when s is
 * HSC_OK (its failure becomes the result), else ROLLBACK. */
hsc_status_t hsc_fx_finish(hsc_factors_t *f, hsc_status_t s, const char *what);

/* 1 when the user exists; 0, or -1 with errmsg. */
int hsc_fx_user_exists(hsc_factors_t *f, const char *user);

#endif /* HSC_FACTORS_SQLITE_H */
