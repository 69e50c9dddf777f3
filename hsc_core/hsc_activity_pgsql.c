/*
 * hsc_activity_pgsql.c: the activity store in PostgreSQL (hsc_activity.h;
 * the table hsc_token_activity of schema version 5). A touch goes
 * through the SECURITY DEFINER function hsc_token_touch, so the httpd
 * role needs no right on the table; a read (hsc-admin) reads the table
 * with the admin role's rights.
 *
 * Each handle has its own libpq connection, made on first use, not at
 * open (a database that is down at start only fails touches). Every
 * statement is bounded (statement_timeout on the server, a wait on the
 * client): a touch runs on the request path and never hangs it. A
 * connection that broke or timed out is dropped, and the next call makes
 * a new one; after a failed connect, calls fail at once for
 * HSC_ACTIVITY_RETRY_MS (one attempt a second, not one per request).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>

#include "hsc_activity_backend.h"
#include "hsc_store_pgsql.h"

/* The server's bound on a statement, and the client's on its answer. */
#define HSC_ACTIVITY_STATEMENT_MS 500
#define HSC_ACTIVITY_WAIT_MS 1000
/* After a failed connect, no new attempt before this long. */
#define HSC_ACTIVITY_RETRY_MS 1000

typedef struct {
    struct hsc_activity base; /* first: the handle callers hold */
    char *conninfo;
    char display[256]; /* conninfo without its password */
    PGconn *conn;      /* NULL: not connected */
    int64_t retry_at;  /* no connect before (ms, monotonic) */
} pg_activity_t;

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void ignore_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* libpq's message on one line, without its trailing newline. */
static void one_line(char *buf, size_t len, const char *m)
{
    size_t i;

    snprintf(buf, len, "%s", m != NULL ? m : "");
    for (i = 0; buf[i] != '\0'; ++i) {
        if (buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t') {
            buf[i] = ' ';
        }
    }
    while (i > 0 && buf[i - 1] == ' ') {
        buf[--i] = '\0';
    }
}

static void drop(pg_activity_t *h)
{
    PQfinish(h->conn);
    h->conn = NULL;
}

/* The last result of the statement just sent, waiting at most
 * HSC_ACTIVITY_WAIT_MS; NULL (and *timed_out) past that. */
static PGresult *wait_result(PGconn *c, int *timed_out)
{
    int64_t end = now_ms() + HSC_ACTIVITY_WAIT_MS, left;
    PGresult *res = NULL, *r;
    struct pollfd pfd;

    *timed_out = 0;
    for (;;) {
        while (!PQisBusy(c)) {
            if ((r = PQgetResult(c)) == NULL) {
                return res;
            }
            PQclear(res);
            res = r;
        }
        if ((left = end - now_ms()) <= 0) {
            *timed_out = 1;
            PQclear(res);
            return NULL;
        }
        pfd.fd = PQsocket(c);
        pfd.events = POLLIN;
        pfd.revents = 0;
        if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR) {
            return res;
        }
        if (pfd.revents != 0 && !PQconsumeInput(c)) {
            while ((r = PQgetResult(c)) != NULL) {
                PQclear(res);
                res = r;
            }
            return res;
        }
    }
}

/* The connection, made now if there is none. NULL with errmsg set. */
static PGconn *conn(pg_activity_t *h, const char *what)
{
    const char *keys[] = {"connect_timeout", "client_encoding",
                          "fallback_application_name", "dbname", NULL};
    const char *vals[] = {"2", "UTF8", "mod_hsc-activity", h->conninfo, NULL};
    char m[200], sql[64];
    PGresult *res;
    int timed_out;

    if (h->conn != NULL) {
        return h->conn;
    }
    if (now_ms() < h->retry_at) {
        hsc_activity_msgf(&h->base,
                          "%s: %s: down a moment ago (next attempt "
                          "within %d ms)",
                          what, h->display, HSC_ACTIVITY_RETRY_MS);
        return NULL;
    }
    h->conn = PQconnectdbParams(keys, vals, 1);
    if (h->conn != NULL && PQstatus(h->conn) == CONNECTION_OK) {
        PQsetNoticeProcessor(h->conn, ignore_notice, NULL);
        snprintf(sql, sizeof(sql), "SET statement_timeout = %d",
                 HSC_ACTIVITY_STATEMENT_MS);
        res = PQsendQuery(h->conn, sql) ? wait_result(h->conn, &timed_out)
                                        : NULL;
        if (res != NULL && PQresultStatus(res) == PGRES_COMMAND_OK) {
            PQclear(res);
            return h->conn;
        }
        PQclear(res);
    }
    one_line(m, sizeof(m), h->conn ? PQerrorMessage(h->conn) : "out of memory");
    hsc_activity_msgf(&h->base, "%s: cannot connect to %s: %s", what,
                      h->display, m);
    drop(h);
    h->retry_at = now_ms() + HSC_ACTIVITY_RETRY_MS;
    return NULL;
}

/* Run sql (text parameters and results). HSC_OK with *pres (tuples);
 * else errmsg set, and a connection that may be broken dropped. */
static hsc_status_t run(pg_activity_t *h, const char *what, const char *sql,
                        int n, const char *const *v, PGresult **pres)
{
    PGconn *c = conn(h, what);
    PGresult *res;
    const char *state, *m;
    char text[200];
    int timed_out = 0;
    hsc_status_t st;

    *pres = NULL;
    if (c == NULL) {
        return HSC_ESTORE;
    }
    res = PQsendQueryParams(c, sql, n, NULL, v, NULL, NULL, 0)
              ? wait_result(c, &timed_out)
              : NULL;
    if (res != NULL && PQresultStatus(res) == PGRES_TUPLES_OK) {
        *pres = res;
        return HSC_OK;
    }
    state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    m = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    one_line(text, sizeof(text), m ? m : PQerrorMessage(c));
    if (timed_out) {
        hsc_activity_msgf(&h->base, "%s: no answer within %d ms", what,
                          HSC_ACTIVITY_WAIT_MS);
    }
    else if (state != NULL
             && (!strcmp(state, "42883") || !strcmp(state, "42P01"))) {
        hsc_activity_msgf(&h->base,
                          "%s: the database's schema is older than version "
                          "5 and has no token activity: run \"hsc-admin "
                          "init\" to upgrade it",
                          what);
    }
    else {
        hsc_activity_msgf(&h->base, "%s: %s%s%s", what,
                          state ? "SQLSTATE " : "", state ? state : "",
                          state ? ": " : "");
        snprintf(h->base.errmsg + strlen(h->base.errmsg),
                 sizeof(h->base.errmsg) - strlen(h->base.errmsg), "%s", text);
    }
    /* A timeout, no answer, or a connection-class error: the connection
     * cannot be trusted with the next statement. */
    if (timed_out || state == NULL || PQstatus(c) != CONNECTION_OK
        || !strncmp(state, "08", 2) || !strncmp(state, "57P0", 4)) {
        drop(h);
    }
    /* state points into res: read it before res goes. */
    st = state != NULL && !strcmp(state, "42501") ? HSC_EREADONLY : HSC_ESTORE;
    PQclear(res);
    return st;
}

static hsc_status_t pg_touch(hsc_activity_t *a, const char *id, int64_t at,
                             const char *addr)
{
    char num[24];
    const char *v[3] = {id, num, addr};
    PGresult *res;
    hsc_status_t st;

    snprintf(num, sizeof(num), "%" PRId64, at);
    st = run((pg_activity_t *)a, "touch",
             "SELECT hsc_token_touch($1, $2::bigint, $3)", 3, v, &res);
    PQclear(res);
    return st;
}

static hsc_status_t pg_get(hsc_activity_t *a, const char *id, int64_t *at,
                           char *addr)
{
    const char *v[1] = {id};
    PGresult *res;
    hsc_status_t st;

    st = run((pg_activity_t *)a, "get",
             "SELECT last_at, last_addr FROM hsc_token_activity "
             "WHERE id = $1",
             1, v, &res);
    if (st != HSC_OK) {
        return st;
    }
    if (PQntuples(res) == 0) {
        st = HSC_ENOUSER;
    }
    else {
        *at = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
        snprintf(addr, HSC_ACTIVITY_ADDR_MAX, "%s", PQgetvalue(res, 0, 1));
    }
    PQclear(res);
    return st;
}

static void pg_close(hsc_activity_t *a)
{
    pg_activity_t *h = (pg_activity_t *)a;

    drop(h);
    free(h->conninfo);
    free(h);
}

static const hsc_activity_vtable_t pg_vtable = {.touch = pg_touch,
                                                .get = pg_get,
                                                .close = pg_close};

hsc_status_t hsc_activity_pgsql_open(const char *conninfo, int readonly,
                                     hsc_activity_t **out, char *errbuf,
                                     size_t errlen)
{
    PQconninfoOption *parsed;
    pg_activity_t *h;
    char *err = NULL, m[200];

    parsed = PQconninfoParse(conninfo, &err);
    if (parsed == NULL) {
        one_line(m, sizeof(m), err ? err : "out of memory");
        snprintf(errbuf, errlen, "invalid conninfo: %s", m);
        PQfreemem(err);
        return HSC_EINVAL;
    }
    PQconninfoFree(parsed);
    h = calloc(1, sizeof(*h));
    if (h == NULL || (h->conninfo = strdup(conninfo)) == NULL) {
        free(h);
        snprintf(errbuf, errlen, "out of memory");
        return HSC_ENOMEM;
    }
    h->base.vt = &pg_vtable;
    h->base.readonly = readonly;
    hsc_pg_redact(conninfo, h->display, sizeof(h->display));
    *out = &h->base;
    return HSC_OK;
}
