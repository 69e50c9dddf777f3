/*
 * hsc_store_pgsql.c: the user store in PostgreSQL (hsc_store_pgsql.h),
 * through libpq directly (apr_dbd loses its prepared statements on a
 * server restart, returns bytea as text and has neither SQLSTATE nor a
 * timeout).
 *
 * A pool belongs to one process: its connections, and the lease of the
 * record cache its threads share (the cache itself is hsc_cache.c, driven
 * by hsc_store.c through validate()). A handle belongs to one thread:
 * buffers for the strings it returns, the last poll's answer, and its
 * last error. A call takes a free connection (waiting at most wait_ms),
 * runs one statement, gives the connection back; nothing is held across
 * calls.
 *
 * The lease (docs/several-servers.md): validate() lets kept records be
 * used only while the last successful poll of hsc_changes started less
 * than max_stale_ms ago. The cache's tickets keep a record read before a
 * change out of the cache once the poll has reported that change.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <poll.h>
#include <sys/socket.h>

#include <libpq-fe.h>

#include "hsc_store_backend.h"
#include "hsc_store_pgsql.h"

/* The schema files, in order (generated from hsc_core/sql/pgsql/). */
extern const char *const hsc_pgsql_schema[];

/* pg_advisory_xact_lock key of a schema change: "HSC1". */
#define PG_SCHEMA_LOCK "1213416241"
/* A poll asks for at most this many changes; further behind, the whole
 * cache is dropped (the trigger keeps 100,000). */
#define PG_CHANGES_MAX 1000
/* After a failed connect, the next attempt waits this long: a database
 * that is down costs one attempt a second per process, not one a
 * request, and is found again within a second when it is back. */
#define PG_RETRY_MS 1000
/* Type oids of the statements' parameters (pg_type.h). */
#define PG_OID_INT8 20
#define PG_OID_TEXT 25

#define USER_COLUMNS                                                           \
    "u.username, u.salt, u.kdf, u.authenticator, u.groups, u.disabled, "       \
    "u.revoked_before, u.created, u.updated, u.gen, u.passkey_seals"

/* Prepared on every new connection. */
static const struct {
    const char *name, *sql;
    int nparams;
    Oid type;
} statements[] = {
    {"hsc_get",
     "SELECT " USER_COLUMNS ", g.generation FROM hsc_generation g LEFT JOIN "
     "hsc_users u ON u.username = $1 WHERE g.id = 1",
     1, PG_OID_TEXT},
    /* The store id comes along: a database replaced under the same name
     * is another store, whatever its generation says. */
    {"hsc_poll",
     "SELECT g.generation, c.username, m.store_id "
     "FROM hsc_generation g CROSS JOIN hsc_meta m LEFT JOIN hsc_changes c "
     "ON c.generation > $1 AND c.generation <= g.generation "
     "AND g.generation - $1 <= "
     "1000"
     " WHERE g.id = 1 AND m.id = 1 ORDER BY c.generation",
     1, PG_OID_INT8},
};

typedef struct {
    PGconn *conn; /* NULL: not connected */
    int busy;
} pg_slot_t;

struct hsc_pg_pool {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a slot was given back */
    char *conninfo;
    char display[256]; /* conninfo without password, for messages */
    hsc_pg_options_t opt;
    int create; /* connections may create/migrate the schema */
    int nslots;
    pg_slot_t *slots;
    int64_t retry_at; /* no connect attempt before (ms, monotonic) */
    char store_id[HSC_STORE_ID_SIZE]; /* "" until a connection read it */
    char down_msg[256];               /* why the last connect failed */
    int down;                         /* an outage is being reported */
    /* the lease of the record cache (kept by hsc_store.c, shared by the
     * process's handles) */
    int have_gen;        /* a poll has succeeded: gen is known */
    int64_t gen;         /* the generation the cache is current to */
    int64_t lease_start; /* when the last successful poll started */
    char lease_store_id[HSC_STORE_ID_SIZE]; /* the store id it answered */
    int polling;                            /* a thread is polling now */
    hsc_pg_counters_t n;
};

typedef struct {
    hsc_store_t base; /* first: the handle callers hold */
    hsc_pg_pool_t *pool;
    int own_pool; /* hsc_store_pgsql_open: freed on close */
    int readonly;
    int nocache;
    /* The last poll's answer, which validate() hands to the wrapper: the
     * names point into poll_res, valid until this handle's next call. */
    PGresult *poll_res;
    const char *names[PG_CHANGES_MAX];
    size_t name_lens[PG_CHANGES_MAX];
} pg_store_t;

static const hsc_store_vtable_t pg_vtable;

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The client's own bound on a statement: the server's statement_timeout
 * plus this, for its error to arrive. */
#define PG_CLIENT_MARGIN_MS 500

/*
 * The result of the statement just sent (sent: what PQsend* returned),
 * waiting at most ms: statement_timeout is the server's, and does not help
 * when the server or the network stalls (a stopped server, a lost route).
 * On timeout *timed_out is 1, the connection is shut (a late answer could
 * not be told from the next one's: the caller must not use it again) and
 * NULL returned; NULL too when sending failed. Like PQexec, the last
 * result.
 */
static PGresult *wait_result(PGconn *conn, int sent, int ms, int *timed_out)
{
    int64_t end = now_ms() + ms, left;
    PGresult *res = NULL, *r;
    struct pollfd pfd;

    *timed_out = 0;
    if (!sent) {
        return NULL;
    }
    for (;;) {
        while (!PQisBusy(conn)) {
            if ((r = PQgetResult(conn)) == NULL) {
                return res;
            }
            PQclear(res);
            res = r;
        }
        left = end - now_ms();
        if (left <= 0) {
            *timed_out = 1;
            PQclear(res);
            /* Not PQfinish: the caller still owns conn; a bad socket makes
             * the connection count as broken, so it is made anew. */
            shutdown(PQsocket(conn), SHUT_RDWR);
            PQconsumeInput(conn);
            while ((r = PQgetResult(conn)) != NULL) {
                PQclear(r);
            }
            return NULL;
        }
        pfd.fd = PQsocket(conn);
        pfd.events = POLLIN;
        pfd.revents = 0;
        if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR) {
            return res;
        }
        if (pfd.revents != 0 && !PQconsumeInput(conn)) {
            /* Broken: whatever libpq made of it. */
            while ((r = PQgetResult(conn)) != NULL) {
                PQclear(res);
                res = r;
            }
            return res;
        }
    }
}

static int64_t be64(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    uint64_t v = 0;
    int i;

    for (i = 0; i < 8; ++i) {
        v = (v << 8) | u[i];
    }
    return (int64_t)v;
}

/* libpq's message on one line: no trailing newline, inner ones and tabs
 * as spaces (one log line per event). */
static void copy_msg(char *buf, size_t len, const char *m)
{
    size_t n = m ? strlen(m) : 0, i;

    while (n > 0 && (m[n - 1] == '\n' || m[n - 1] == '\r')) {
        --n;
    }
    hsc_store_msgf(buf, len, "%.*s", (int)n, m ? m : "");
    for (i = 0; i < len && buf[i] != '\0'; ++i) {
        if (buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t') {
            buf[i] = ' ';
        }
    }
}

void hsc_pg_options_default(hsc_pg_options_t *o)
{
    o->pool_size = 4;
    o->wait_ms = 500;
    o->max_stale_ms = 1000;
    o->statement_timeout_ms = 2000;
}

const char *hsc_pg_redact(const char *conninfo, char *buf, size_t len)
{
    PQconninfoOption *opts, *o;
    char *err = NULL;
    size_t used = 0;

    if (len == 0) {
        return buf;
    }
    buf[0] = '\0';
    opts = PQconninfoParse(conninfo ? conninfo : "", &err);
    if (opts == NULL) {
        PQfreemem(err);
        hsc_store_msgf(buf, len, "(unparsable conninfo)");
        return buf;
    }
    for (o = opts; o->keyword != NULL; ++o) {
        const char *v;
        int n;

        if (o->val == NULL) {
            continue;
        }
        /* libpq's own keyword table marks its secrets (password,
         * sslpassword, and any it adds) with dispchar "*". */
        v = o->dispchar != NULL && o->dispchar[0] == '*' ? "***" : o->val;
        n = snprintf(buf + used, len - used, "%s%s=%s%s%s", used ? " " : "",
                     o->keyword, strchr(v, ' ') || *v == '\0' ? "'" : "", v,
                     strchr(v, ' ') || *v == '\0' ? "'" : "");
        if (n < 0 || (size_t)n >= len - used) {
            break; /* truncated; still NUL-terminated */
        }
        used += (size_t)n;
    }
    PQconninfoFree(opts);
    return buf;
}

/* "<what>: SQLSTATE xxxxx: <message>" from a failed result or connection. */
static void result_msg(char *buf, size_t len, const char *what, PGconn *conn,
                       const PGresult *res)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *m = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY)
                        : NULL;
    char text[200];

    copy_msg(text, sizeof(text),
             m      ? m
             : conn ? PQerrorMessage(conn)
                    : "no connection");
    if (state != NULL) {
        hsc_store_msgf(buf, len, "%s: SQLSTATE %s: %s", what, state, text);
    }
    else {
        hsc_store_msgf(buf, len, "%s: %s", what, text);
    }
}

/* 1 when res is a failure whose SQLSTATE is state. */
static int has_state(const PGresult *res, const char *state)
{
    const char *s = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

    return s != NULL && strcmp(s, state) == 0;
}

/*
 * 1 when a failed res is the server's considered answer on a working
 * connection; 0 when the connection is gone or unusable: no result, no
 * SQLSTATE (libpq's own "server closed the connection unexpectedly"),
 * class 08 (connection exception), 57P01-57P03 (shutdown, crash,
 * cannot connect now), or 26000 (prepared statement gone, as after a
 * pooler's DISCARD ALL).
 */
static int server_answered(PGconn *conn, const PGresult *res)
{
    const char *s = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

    if (s == NULL || PQstatus(conn) != CONNECTION_OK) {
        return 0;
    }
    return strncmp(s, "08", 2) != 0 && strncmp(s, "57P0", 4) != 0
           && strcmp(s, "26000") != 0;
}

/* --- the schema ----------------------------------------------------------- */

/* Run sql; 0 when it succeeded (command or rows), else msg says why. */
static int exec_ok(PGconn *conn, int ms, const char *what, const char *sql,
                   PGresult **pres, char *msg, size_t msglen)
{
    int timed_out;
    PGresult *res = wait_result(conn, PQsendQuery(conn, sql), ms, &timed_out);
    ExecStatusType es = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;

    if (timed_out) {
        hsc_store_msgf(msg, msglen, "%s: no answer within %d ms", what, ms);
        return -1;
    }
    if (es != PGRES_COMMAND_OK && es != PGRES_TUPLES_OK) {
        result_msg(msg, msglen, what, conn, res);
        PQclear(res);
        return -1;
    }
    if (pres != NULL) {
        *pres = res;
    }
    else {
        PQclear(res);
    }
    return 0;
}

static int schema_count(void)
{
    int n = 0;

    while (hsc_pgsql_schema[n] != NULL) {
        ++n;
    }
    return n;
}

/*
 * Check the schema, and with create bring it up to date: in one
 * transaction under an advisory lock, so two concurrent inits apply each
 * file once; an existing database is only ever migrated forward.
 */
static int schema_check(PGconn *conn, int ms, int create, char *msg,
                        size_t msglen)
{
    PGresult *res = NULL;
    int has_schema, has_users, ver, i, nfiles = schema_count();
    char sql[96];

    if (create
        && (exec_ok(conn, ms, "init", "BEGIN", NULL, msg, msglen)
            || exec_ok(conn, ms, "init",
                       "SELECT pg_advisory_xact_lock(" PG_SCHEMA_LOCK ")", NULL,
                       msg, msglen))) {
        goto fail;
    }
    if (exec_ok(conn, ms, "schema",
                "SELECT to_regclass('hsc_schema') IS NOT NULL, "
                "to_regclass('hsc_users') IS NOT NULL",
                &res, msg, msglen)) {
        goto fail;
    }
    has_schema = PQgetvalue(res, 0, 0)[0] == 't';
    has_users = PQgetvalue(res, 0, 1)[0] == 't';
    PQclear(res);
    res = NULL;
    if (!has_schema && has_users) {
        hsc_store_msgf(
            msg, msglen,
            "not an hsc user database (a table hsc_users without hsc_schema: "
            "made by another program)");
        goto fail;
    }
    ver = 0;
    if (has_schema) {
        if (exec_ok(conn, ms, "schema",
                    "SELECT coalesce(max(version), 0) FROM hsc_schema", &res,
                    msg, msglen)) {
            goto fail;
        }
        ver = atoi(PQgetvalue(res, 0, 0));
        PQclear(res);
        res = NULL;
    }
    if (ver > nfiles) {
        hsc_store_msgf(
            msg, msglen,
            "schema version %d is newer than this program knows (%d): upgrade "
            "mod_hsc",
            ver, nfiles);
        goto fail;
    }
    if (ver < nfiles && !create) {
        if (ver == 0) {
            hsc_store_msgf(
                msg, msglen,
                "not an hsc user database (no schema; create it with "
                "\"hsc-admin init\")");
        }
        else {
            hsc_store_msgf(
                msg, msglen,
                "schema version %d needs an upgrade (run \"hsc-admin init\")",
                ver);
        }
        goto fail;
    }
    for (i = ver; i < nfiles; ++i) {
        snprintf(sql, sizeof(sql),
                 "INSERT INTO hsc_schema (version) VALUES (%d)", i + 1);
        if (exec_ok(conn, ms, "init", hsc_pgsql_schema[i], NULL, msg, msglen)
            || exec_ok(conn, ms, "init", sql, NULL, msg, msglen)) {
            goto fail;
        }
    }
    if (create && exec_ok(conn, ms, "init", "COMMIT", NULL, msg, msglen)) {
        goto fail;
    }
    return 0;

fail:
    PQclear(res);
    if (create) {
        PQclear(PQexec(conn, "ROLLBACK"));
    }
    return -1;
}

static void ignore_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* --- connections ---------------------------------------------------------- */

/*
 * A new connection, checked and with its statements prepared; NULL and
 * msg on failure. The defaults come before the conninfo, so the admin's
 * own connect_timeout wins.
 */
static PGconn *connect_one(hsc_pg_pool_t *p, char *msg, size_t msglen)
{
    /* TCP keepalives and a user timeout notice a peer that went away
     * while idle or while data is unacknowledged (ignored on a Unix
     * socket); the statements below are bounded by wait_result. */
    const char *keys[] = {"connect_timeout",
                          "client_encoding",
                          "keepalives",
                          "keepalives_idle",
                          "keepalives_interval",
                          "keepalives_count",
                          "tcp_user_timeout",
                          "fallback_application_name",
                          "dbname",
                          NULL};
    char tcp_ms[16];
    const char *vals[] = {"2", "UTF8", "1",       "10",        "2",
                          "3", tcp_ms, "mod_hsc", p->conninfo, NULL};
    int ms = p->opt.statement_timeout_ms + PG_CLIENT_MARGIN_MS, timed_out;
    PGconn *conn;
    PGresult *res;
    char sql[64], m[200];
    size_t i;

    snprintf(tcp_ms, sizeof(tcp_ms), "%d", ms);

    conn = PQconnectdbParams(keys, vals, 1);
    if (conn == NULL || PQstatus(conn) != CONNECTION_OK) {
        copy_msg(m, sizeof(m), conn ? PQerrorMessage(conn) : "out of memory");
        hsc_store_msgf(msg, msglen, "cannot connect to %s: %s", p->display, m);
        PQfinish(conn);
        return NULL;
    }
    /* Notices (a shutdown's WARNING, ...) would go to stderr, that is
     * httpd's error log without a tag: failures are reported instead. */
    PQsetNoticeProcessor(conn, ignore_notice, NULL);
    /* Bounded statements: a lock held by an admin's open transaction
     * becomes a failure after this long, not a hung request. */
    snprintf(sql, sizeof(sql), "SET statement_timeout = %d",
             p->opt.statement_timeout_ms);
    if (exec_ok(conn, ms, "connect", sql, NULL, m, sizeof(m))
        || schema_check(conn, ms, p->create, m, sizeof(m))) {
        hsc_store_msgf(msg, msglen, "%s: %s", p->display, m);
        PQfinish(conn);
        return NULL;
    }
    res = wait_result(conn,
                      PQsendQuery(conn,
                                  "SELECT store_id FROM hsc_meta WHERE id = 1"),
                      ms, &timed_out);
    if (res != NULL && PQresultStatus(res) == PGRES_TUPLES_OK
        && PQntuples(res) == 1
        && PQgetlength(res, 0, 0) == HSC_STORE_ID_SIZE - 1) {
        pthread_mutex_lock(&p->mu);
        memcpy(p->store_id, PQgetvalue(res, 0, 0), HSC_STORE_ID_SIZE);
        pthread_mutex_unlock(&p->mu);
    }
    PQclear(res);
    for (i = 0; i < sizeof(statements) / sizeof(statements[0]); ++i) {
        res = wait_result(conn,
                          PQsendPrepare(conn, statements[i].name,
                                        statements[i].sql,
                                        statements[i].nparams,
                                        &statements[i].type),
                          ms, &timed_out);
        if (res == NULL || PQresultStatus(res) != PGRES_COMMAND_OK) {
            if (timed_out) {
                hsc_store_msgf(m, sizeof(m), "prepare: no answer within %d ms",
                               ms);
            }
            else {
                result_msg(m, sizeof(m), "prepare", conn, res);
            }
            hsc_store_msgf(msg, msglen,
                           "%s: not a usable hsc user database: %s", p->display,
                           m);
            PQclear(res);
            PQfinish(conn);
            return NULL;
        }
        PQclear(res);
    }
    return conn;
}

/*
 * The answer to what was just sent on sl's connection (sent: the PQsend*
 * result), bounded. On timeout: NULL, *timed_out, errmsg set, and the
 * connection closed and forgotten (the slot stays the caller's to put).
 */
static PGresult *slot_wait(pg_store_t *ps, pg_slot_t *sl, const char *what,
                           int sent, int *timed_out)
{
    int ms = ps->pool->opt.statement_timeout_ms + PG_CLIENT_MARGIN_MS;
    PGresult *res = wait_result(sl->conn, sent, ms, timed_out);

    if (*timed_out) {
        hsc_store_msgf(ps->base.errmsg, sizeof(ps->base.errmsg),
                       "%s: no answer within %d ms", what, ms);
        PQfinish(sl->conn);
        sl->conn = NULL;
    }
    return res;
}

/* A failure while the database is down: quiet when already reported. */
static hsc_status_t fault(pg_store_t *ps)
{
    pthread_mutex_lock(&ps->pool->mu);
    ps->base.repeat_fault = ps->pool->down;
    ps->pool->down = 1;
    pthread_mutex_unlock(&ps->pool->mu);
    return HSC_ESTORE;
}

/*
 * Take a free slot, connected. fresh: set to 1 when the connection was
 * made for this call (a failure on it is not a stale connection). On
 * failure: HSC_ESTORE and errmsg.
 */
static hsc_status_t slot_get(pg_store_t *ps, const char *what, pg_slot_t **out,
                             int *fresh)
{
    hsc_pg_pool_t *p = ps->pool;
    pg_slot_t *sl = NULL;
    struct timespec deadline;
    int i, rc = 0;

    *out = NULL;
    *fresh = 0;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += p->opt.wait_ms / 1000;
    deadline.tv_nsec += (long)(p->opt.wait_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&p->mu);
    for (;;) {
        /* A connected free slot first, then any free one. */
        for (i = 0; i < p->nslots; ++i) {
            if (!p->slots[i].busy && p->slots[i].conn != NULL) {
                sl = &p->slots[i];
                break;
            }
        }
        for (i = 0; sl == NULL && i < p->nslots; ++i) {
            if (!p->slots[i].busy) {
                sl = &p->slots[i];
            }
        }
        if (sl != NULL || rc == ETIMEDOUT) {
            break;
        }
        rc = pthread_cond_timedwait(&p->cv, &p->mu, &deadline);
    }
    if (sl == NULL) {
        pthread_mutex_unlock(&p->mu);
        hsc_store_msgf(
            ps->base.errmsg, sizeof(ps->base.errmsg),
            "%s: no free database connection within %d ms (pool of %d)", what,
            p->opt.wait_ms, p->nslots);
        return HSC_ESTORE;
    }
    sl->busy = 1;
    if (sl->conn == NULL && now_ms() < p->retry_at) {
        /* Down a moment ago: fail fast, with the reason of then. */
        sl->busy = 0;
        hsc_store_msgf(ps->base.errmsg, sizeof(ps->base.errmsg),
                       "%s: %s (next attempt within %d ms)", what, p->down_msg,
                       PG_RETRY_MS);
        pthread_cond_signal(&p->cv);
        pthread_mutex_unlock(&p->mu);
        return fault(ps);
    }
    pthread_mutex_unlock(&p->mu);
    if (sl->conn == NULL) {
        char m[sizeof(p->down_msg)];

        sl->conn = connect_one(p, m, sizeof(m));
        if (sl->conn == NULL) {
            pthread_mutex_lock(&p->mu);
            memcpy(p->down_msg, m, sizeof(m));
            p->retry_at = now_ms() + PG_RETRY_MS;
            sl->busy = 0;
            pthread_cond_signal(&p->cv);
            pthread_mutex_unlock(&p->mu);
            hsc_store_msgf(ps->base.errmsg, sizeof(ps->base.errmsg), "%s: %s",
                           what, m);
            return fault(ps);
        }
        *fresh = 1;
    }
    *out = sl;
    return HSC_OK;
}

/* Give a slot back; a broken connection is closed, to be made anew. */
static void slot_put(hsc_pg_pool_t *p, pg_slot_t *sl)
{
    if (sl->conn != NULL && PQstatus(sl->conn) != CONNECTION_OK) {
        PQfinish(sl->conn);
        sl->conn = NULL;
    }
    pthread_mutex_lock(&p->mu);
    sl->busy = 0;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/*
 * Run a prepared statement (binary parameters and results). A read
 * (retry) that fails because its connection broke, or because its
 * statement is gone (SQLSTATE 26000, e.g. a pooler's DISCARD ALL), is run
 * again on the pool's next connection, up to a newly opened one: after a
 * server restart every pooled connection of the child is stale, and the
 * first request still finds the new server, not an error (as
 * hsc_store_pgsql_exec's reads do). *pres is a result with
 * tuples, or NULL with errmsg set and the status returned.
 */
static hsc_status_t run(pg_store_t *ps, const char *what, const char *stmt,
                        int nparams, const char *const *values,
                        const int *lengths, int retry, PGresult **pres)
{
    static const int formats[2] = {1, 1};
    pg_slot_t *sl;
    PGresult *res;
    int fresh, attempt, timed_out;
    hsc_status_t st;

    *pres = NULL;
    for (attempt = 0;; ++attempt) {
        if ((st = slot_get(ps, what, &sl, &fresh)) != HSC_OK) {
            return st;
        }
        res = slot_wait(ps, sl, what,
                        PQsendQueryPrepared(sl->conn, stmt, nparams, values,
                                            lengths, formats, 1),
                        &timed_out);
        if (timed_out) {
            /* A stalled server or network: no second try, it would
             * double the wait. */
            slot_put(ps->pool, sl);
            return fault(ps);
        }
        if (res != NULL && PQresultStatus(res) == PGRES_TUPLES_OK) {
            slot_put(ps->pool, sl);
            pthread_mutex_lock(&ps->pool->mu);
            if (ps->pool->down) {
                /* The first answer after a reported outage: this handle's
                 * caller says so, once for the process. */
                ps->base.recovered = 1;
                ps->pool->down = 0;
            }
            pthread_mutex_unlock(&ps->pool->mu);
            *pres = res;
            return HSC_OK;
        }
        result_msg(ps->base.errmsg, sizeof(ps->base.errmsg), what, sl->conn,
                   res);
        if (server_answered(sl->conn, res)) {
            /* An answer from a working server (a timeout, a missing
             * table, no right): retrying would not change it. */
            slot_put(ps->pool, sl);
            PQclear(res);
            return fault(ps);
        }
        /* The connection is broken (libpq may still call it OK after
         * the server went away) or lost its statements: make it anew. */
        PQfinish(sl->conn);
        sl->conn = NULL;
        slot_put(ps->pool, sl);
        PQclear(res);
        if (!retry || fresh || attempt >= ps->pool->nslots) {
            return fault(ps);
        }
    }
}

/* --- reading users ---------------------------------------------------------
 */

/* Row `row` of a user result (binary) into *out (hsc_store_hold_user). */
static hsc_status_t row_to_user(pg_store_t *ps, const PGresult *res, int row,
                                hsc_user_t *out)
{
    hsc_store_row_t r;

    if (PQnfields(res) < 11 || PQgetisnull(res, row, 1)
        || PQgetlength(res, row, 5) != 1 || PQgetlength(res, row, 6) != 8
        || PQgetlength(res, row, 7) != 8 || PQgetlength(res, row, 8) != 8
        || PQgetlength(res, row, 9) != 8 || PQgetlength(res, row, 0) < 0
        || PQgetlength(res, row, 4) < 0) {
        hsc_store_msgf(ps->base.errmsg, sizeof(ps->base.errmsg),
                       "user record is malformed");
        return HSC_ESTORE;
    }
    r.name = PQgetvalue(res, row, 0);
    r.name_len = (size_t)PQgetlength(res, row, 0);
    r.salt = PQgetvalue(res, row, 1);
    r.salt_len = (size_t)PQgetlength(res, row, 1);
    r.kdf = PQgetvalue(res, row, 2);
    r.kdf_len = (size_t)PQgetlength(res, row, 2);
    r.auth = PQgetvalue(res, row, 3);
    r.auth_len = (size_t)PQgetlength(res, row, 3);
    r.groups = PQgetvalue(res, row, 4);
    r.groups_len = (size_t)PQgetlength(res, row, 4);
    r.disabled = PQgetvalue(res, row, 5)[0] != 0;
    r.revoked_before = be64(PQgetvalue(res, row, 6));
    r.created = be64(PQgetvalue(res, row, 7));
    r.updated = be64(PQgetvalue(res, row, 8));
    r.gen = be64(PQgetvalue(res, row, 9));
    /* NULL (no sealed passkey) reads as 0 bytes. */
    r.seals = PQgetvalue(res, row, 10);
    r.seals_len = PQgetisnull(res, row, 10) ? 0
                                            : (size_t)PQgetlength(res, row, 10);
    return hsc_store_hold_user(&ps->base, &r, out);
}

/*
 * Poll the change log (the calling thread is the only poller), renew the
 * lease from `started`, and say what changed in *v. Returns HSC_OK or the
 * failure (errmsg set; the lease is not renewed).
 */
static hsc_status_t poll_changes(pg_store_t *ps, int64_t started,
                                 hsc_validation_t *v)
{
    hsc_pg_pool_t *p = ps->pool;
    PGresult *res;
    char param[8];
    const char *values[1] = {param};
    int lengths[1] = {8};
    int64_t since, gen;
    uint64_t u;
    int i, rows, have, other;
    size_t n = 0;
    hsc_status_t st;

    pthread_mutex_lock(&p->mu);
    since = p->have_gen ? p->gen : 0;
    have = p->have_gen;
    pthread_mutex_unlock(&p->mu);
    u = (uint64_t)since;
    for (i = 7; i >= 0; --i) {
        param[i] = (char)(u & 0xff);
        u >>= 8;
    }
    st = run(ps, "poll", "hsc_poll", 1, values, lengths, 1, &res);
    if (st == HSC_OK && (PQntuples(res) < 1 || PQgetlength(res, 0, 0) != 8)) {
        PQclear(res);
        hsc_store_msgf(ps->base.errmsg, sizeof(ps->base.errmsg),
                       "poll: the change log answered nothing");
        st = HSC_ESTORE;
    }
    pthread_mutex_lock(&p->mu);
    p->n.polls++;
    if (st != HSC_OK) {
        p->n.poll_failures++;
        pthread_mutex_unlock(&p->mu);
        return st;
    }
    rows = PQntuples(res);
    gen = be64(PQgetvalue(res, 0, 0));
    /* Compared with the last poll's, not the pool's (which a reconnect
     * to the new database has already read). */
    other = PQgetlength(res, 0, 2) != HSC_STORE_ID_SIZE - 1
            || memcmp(p->lease_store_id, PQgetvalue(res, 0, 2),
                      HSC_STORE_ID_SIZE - 1)
                   != 0;
    if (PQgetlength(res, 0, 2) == HSC_STORE_ID_SIZE - 1) {
        memcpy(p->lease_store_id, PQgetvalue(res, 0, 2), HSC_STORE_ID_SIZE);
    }
    if (!have || other || gen < since || gen - since > PG_CHANGES_MAX) {
        /* First poll, another database (replaced: its store id differs;
         * restored: its generation went back), or too far behind:
         * nothing kept can be trusted. */
        v->verdict = HSC_VALID_ALL;
        p->n.flushes++;
    }
    else {
        for (i = 0; i < rows && n < PG_CHANGES_MAX; ++i) {
            if (!PQgetisnull(res, i, 1)) {
                ps->names[n] = PQgetvalue(res, i, 1);
                ps->name_lens[n++] = (size_t)PQgetlength(res, i, 1);
            }
        }
        v->verdict = n > 0 ? HSC_VALID_NAMES : HSC_VALID_UNCHANGED;
        v->names = ps->names;
        v->name_lens = ps->name_lens;
        v->n_names = n;
        p->n.drops += n;
    }
    p->gen = gen;
    p->have_gen = 1;
    p->lease_start = started;
    pthread_mutex_unlock(&p->mu);
    PQclear(ps->poll_res);
    ps->poll_res = res;
    return HSC_OK;
}

/*
 * The lease rule (hsc_store_backend.h). Within the lease: UNCHANGED. At
 * its end one thread polls (NAMES, ALL, or UNCHANGED), the others read
 * through meanwhile (BYPASS). A failed poll: UNAVAILABLE, so nothing kept
 * is used after the lease, and the request fails closed (503).
 */
static void pg_validate(hsc_store_t *s, hsc_validation_t *v)
{
    pg_store_t *ps = (pg_store_t *)s;
    hsc_pg_pool_t *p = ps->pool;
    int64_t now = now_ms();

    v->lags = 1;
    pthread_mutex_lock(&p->mu);
    if (p->opt.max_stale_ms == 0) {
        pthread_mutex_unlock(&p->mu);
        v->verdict = HSC_VALID_BYPASS; /* HSCUserDBMaxStale 0 */
        return;
    }
    if (p->have_gen && now - p->lease_start < p->opt.max_stale_ms) {
        pthread_mutex_unlock(&p->mu);
        v->verdict = HSC_VALID_UNCHANGED;
        return;
    }
    if (p->polling) {
        pthread_mutex_unlock(&p->mu);
        v->verdict = HSC_VALID_BYPASS;
        return;
    }
    p->polling = 1;
    pthread_mutex_unlock(&p->mu);
    if (poll_changes(ps, now, v) != HSC_OK) {
        v->verdict = HSC_VALID_UNAVAILABLE;
        v->n_names = 0;
    }
    pthread_mutex_lock(&p->mu);
    p->polling = 0;
    pthread_mutex_unlock(&p->mu);
}

/* The query: one round trip, the record as the database has it now. */
static hsc_status_t pg_get(hsc_store_t *s, const char *user, size_t len,
                           hsc_user_t *out)
{
    pg_store_t *ps = (pg_store_t *)s;
    PGresult *res;
    const char *values[1] = {user};
    int lengths[1] = {(int)len};
    hsc_status_t st;

    memset(out, 0, sizeof(*out));
    if (!hsc_username_valid(user, len)) {
        return HSC_ENOUSER; /* no stored user has this name */
    }
    st = run(ps, "get", "hsc_get", 1, values, lengths, 1, &res);
    if (st != HSC_OK) {
        return st;
    }
    if (PQntuples(res) != 1 || PQnfields(res) != 12) {
        PQclear(res);
        hsc_store_msgf(ps->base.errmsg, sizeof(ps->base.errmsg),
                       "get: unexpected answer");
        return HSC_ESTORE;
    }
    if (PQgetisnull(res, 0, 0)) {
        PQclear(res);
        return HSC_ENOUSER;
    }
    st = row_to_user(ps, res, 0, out);
    PQclear(res);
    return st;
}

static hsc_status_t pg_list(hsc_store_t *s, hsc_store_each_fn *fn, void *baton)
{
    pg_store_t *ps = (pg_store_t *)s;
    pg_slot_t *sl;
    PGresult *res;
    hsc_user_t u;
    hsc_status_t st;
    int fresh, i, timed_out;

    if ((st = slot_get(ps, "list", &sl, &fresh)) != HSC_OK) {
        return st;
    }
    res = slot_wait(ps, sl, "list",
                    PQsendQueryParams(sl->conn,
                                      "SELECT " USER_COLUMNS
                                      " FROM hsc_users u ORDER BY u.username",
                                      0, NULL, NULL, NULL, NULL, 1),
                    &timed_out);
    if (res == NULL || PQresultStatus(res) != PGRES_TUPLES_OK) {
        if (!timed_out) {
            result_msg(ps->base.errmsg, sizeof(ps->base.errmsg), "list",
                       sl->conn, res);
        }
        PQclear(res);
        slot_put(ps->pool, sl);
        return fault(ps);
    }
    slot_put(ps->pool, sl);
    for (i = 0; i < PQntuples(res); ++i) {
        memset(&u, 0, sizeof(u));
        if ((st = row_to_user(ps, res, i, &u)) != HSC_OK) {
            break;
        }
        if (fn(baton, &u) != 0) {
            break;
        }
    }
    PQclear(res);
    return st;
}

static hsc_status_t pg_store_id(hsc_store_t *s, char *buf, size_t len)
{
    pg_store_t *ps = (pg_store_t *)s;
    pg_slot_t *sl;
    PGresult *res;
    hsc_status_t st;
    int fresh, timed_out;

    if (hsc_pg_pool_store_id(ps->pool, buf, len)) {
        return HSC_OK; /* read by a connection already: it never changes */
    }
    if ((st = slot_get(ps, "store_id", &sl, &fresh)) != HSC_OK) {
        return st;
    }
    res = slot_wait(ps, sl, "store_id",
                    PQsendQuery(sl->conn,
                                "SELECT store_id FROM hsc_meta WHERE id = 1"),
                    &timed_out);
    if (res == NULL || PQresultStatus(res) != PGRES_TUPLES_OK
        || PQntuples(res) != 1
        || (size_t)PQgetlength(res, 0, 0) != HSC_STORE_ID_SIZE - 1) {
        if (!timed_out) {
            result_msg(ps->base.errmsg, sizeof(ps->base.errmsg), "store_id",
                       sl->conn, res);
        }
        PQclear(res);
        slot_put(ps->pool, sl);
        return HSC_ESTORE;
    }
    slot_put(ps->pool, sl);
    hsc_store_msgf(buf, len, "%s", PQgetvalue(res, 0, 0));
    PQclear(res);
    return HSC_OK;
}

/* --- writing users (hsc-admin; revoke also from the module) --------------- */

/*
 * Run one statement with parameters (text form except those flagged
 * binary: the bytea columns), results binary. write: refused on a
 * read-only handle, and never run twice. A read (!write) that fails
 * because its pooled connection broke (as after a server restart: no
 * answer, class 08, 57P01-57P03) is run again on the pool's next
 * connection, until one made for this call (fresh) has answered or
 * failed: the first request after a restart finds the new server, as
 * run() does for a user's record. A timeout is not retried (it would
 * double the wait). *pres the result (tuples or command); on failure
 * NULL, errmsg set, and HSC_EREADONLY for a role without the right
 * (SQLSTATE 42501 or 25006), else HSC_ESTORE.
 */
static hsc_status_t params_run(pg_store_t *ps, const char *what,
                               const char *sql, int n,
                               const char *const *values, const int *lengths,
                               const int *formats, int write, PGresult **pres)
{
    pg_slot_t *sl;
    PGresult *res;
    hsc_status_t st;
    int fresh, timed_out, again, attempt;

    *pres = NULL;
    if (write && ps->readonly) {
        hsc_store_msgf(ps->base.errmsg, sizeof(ps->base.errmsg),
                       "%s: the store is open read-only", what);
        return HSC_EREADONLY;
    }
    /* At most one stale connection per slot, then a fresh one. */
    for (attempt = 0;; ++attempt) {
        if ((st = slot_get(ps, what, &sl, &fresh)) != HSC_OK) {
            return st;
        }
        res = slot_wait(ps, sl, what,
                        PQsendQueryParams(sl->conn, sql, n, NULL, values,
                                          lengths, formats, 1),
                        &timed_out);
        if (res != NULL
            && (PQresultStatus(res) == PGRES_COMMAND_OK
                || PQresultStatus(res) == PGRES_TUPLES_OK)) {
            slot_put(ps->pool, sl);
            *pres = res;
            return HSC_OK;
        }
        if (!timed_out) {
            result_msg(ps->base.errmsg, sizeof(ps->base.errmsg), what, sl->conn,
                       res);
        }
        st = has_state(res, "42501") || has_state(res, "25006") ? HSC_EREADONLY
                                                                : HSC_ESTORE;
        again = !write && !timed_out && !fresh && attempt < ps->pool->nslots
                && !server_answered(sl->conn, res);
        if (again) {
            /* Broken: closed here, so the next try takes another. */
            PQfinish(sl->conn);
            sl->conn = NULL;
        }
        PQclear(res);
        slot_put(ps->pool, sl);
        if (!again) {
            return st;
        }
    }
}

/* One write: HSC_OK with *rows the rows changed. */
static hsc_status_t write_run(pg_store_t *ps, const char *what, const char *sql,
                              int n, const char *const *values,
                              const int *lengths, const int *formats,
                              long *rows)
{
    PGresult *res;
    hsc_status_t st = params_run(ps, what, sql, n, values, lengths, formats, 1,
                                 &res);

    *rows = st == HSC_OK ? atol(PQcmdTuples(res)) : 0;
    PQclear(res);
    return st;
}

hsc_status_t hsc_store_pgsql_exec(hsc_store_t *s, const char *what,
                                  const char *sql, int n,
                                  const char *const *values, const int *lengths,
                                  const int *formats, int write,
                                  struct pg_result **pres)
{
    if (s == NULL || s->vt != &pg_vtable) {
        *pres = NULL;
        return HSC_EINVAL;
    }
    return params_run((pg_store_t *)s, what, sql, n, values, lengths, formats,
                      write, pres);
}

#define NOW_SQL "extract(epoch FROM now())::bigint"

/* Insert; disabled travels as text ('1' or '0'). */
static hsc_status_t pg_add(hsc_store_t *s, const hsc_user_t *u)
{
    pg_store_t *ps = (pg_store_t *)s;
    char spec[HSC_KDF_SPEC_MAX];
    const char *v[6];
    int l[6] = {0, HSC_SALT_LEN, 0, HSC_AUTH_LEN, 0, 0};
    int f[6] = {0, 1, 0, 1, 0, 0};
    long rows;
    hsc_status_t st;

    hsc_kdf_format(&u->kdf, spec, sizeof(spec));
    v[0] = u->name;
    v[1] = (const char *)u->salt;
    v[2] = spec;
    v[3] = (const char *)u->authenticator;
    v[4] = u->groups ? u->groups : "";
    v[5] = u->disabled ? "1" : "0";
    st = write_run(ps, "add",
                   "INSERT INTO hsc_users (username, salt, kdf, authenticator, "
                   "groups, disabled, created, updated) VALUES ($1, $2, $3, "
                   "$4, $5, $6::text = '1', " NOW_SQL ", " NOW_SQL
                   ") ON CONFLICT (username) DO NOTHING",
                   6, v, l, f, &rows);
    if (st == HSC_OK && rows == 0) {
        return HSC_EEXISTS;
    }
    return st;
}

/* An UPDATE of one user: HSC_ENOUSER when no row matched. */
static hsc_status_t update_user(pg_store_t *ps, const char *what,
                                const char *sql, int n, const char *const *v,
                                const int *l, const int *f)
{
    long rows;
    hsc_status_t st = write_run(ps, what, sql, n, v, l, f, &rows);

    if (st == HSC_OK && rows == 0) {
        return HSC_ENOUSER;
    }
    return st;
}

/* With current_xn, through hsc_password_change (schema version 4): the
 * httpd role's one way to set a password, and only its own user's with
 * the current one (the database compares SHA-256(x_n)). */
static hsc_status_t pg_set_password(hsc_store_t *s, const char *user,
                                    const unsigned char *current_xn,
                                    const unsigned char salt[HSC_SALT_LEN],
                                    const hsc_kdf_t *kdf,
                                    const unsigned char v[HSC_AUTH_LEN])
{
    char spec[HSC_KDF_SPEC_MAX];
    const char *vals[5];
    int l[5] = {0, HSC_SALT_LEN, 0, HSC_AUTH_LEN, HSC_XN_LEN};
    int f[5] = {0, 1, 0, 1, 1};
    hsc_status_t st;

    hsc_kdf_format(kdf, spec, sizeof(spec));
    vals[0] = user;
    vals[1] = (const char *)salt;
    vals[2] = spec;
    vals[3] = (const char *)v;
    vals[4] = (const char *)current_xn;
    if (current_xn == NULL) {
        return update_user((pg_store_t *)s, "set_password",
                           "UPDATE hsc_users SET salt = $2, kdf = $3, "
                           "authenticator = $4, gen = gen + 1, "
                           "updated = " NOW_SQL " WHERE username = $1",
                           4, vals, l, f);
    }
    st = update_user((pg_store_t *)s, "set_password",
                     "SELECT FROM hsc_password_change($1, $5, $2, $3, $4) "
                     "AS r WHERE r",
                     5, vals, l, f);
    if (st == HSC_ENOUSER) {
        hsc_store_msgf(s->errmsg, sizeof(s->errmsg),
                       "set_password: the current password changed meanwhile");
        st = HSC_EAUTH;
    }
    return st;
}

static hsc_status_t pg_set_groups(hsc_store_t *s, const char *user,
                                  const char *groups)
{
    const char *v[2] = {user, groups};

    return update_user((pg_store_t *)s, "set_groups",
                       "UPDATE hsc_users SET groups = $2, updated = " NOW_SQL
                       " WHERE username = $1",
                       2, v, NULL, NULL);
}

static hsc_status_t pg_set_disabled(hsc_store_t *s, const char *user, int on)
{
    const char *v[2] = {user, on ? "true" : "false"};

    return update_user(
        (pg_store_t *)s, "set_disabled",
        "UPDATE hsc_users SET disabled = $2::boolean, updated = " NOW_SQL
        " WHERE username = $1",
        2, v, NULL, NULL);
}

/*
 * Through hsc_revoke (schema version 2), which only raises revoked_before
 * and touches nothing else (not updated): the httpd role may call it for
 * "log out everywhere" and has no UPDATE right (a row means the user
 * exists).
 */
static hsc_status_t pg_revoke(hsc_store_t *s, const char *user, int64_t when,
                              int links)
{
    char num[24];
    const char *v[2] = {user, num};

    snprintf(num, sizeof(num), "%" PRId64, when);
    if (links) {
        /* One statement, one transaction: the user's links go with it
         * (the admin role's; the httpd role has no right on hsc_links). */
        return update_user((pg_store_t *)s, "revoke",
                           "WITH r AS (SELECT hsc_revoke($1, $2::bigint) AS "
                           "r), d AS (DELETE FROM hsc_links WHERE username "
                           "= $1 AND EXISTS (SELECT FROM r WHERE r IS NOT "
                           "NULL)) SELECT FROM r WHERE r IS NOT NULL",
                           2, v, NULL, NULL);
    }
    return update_user((pg_store_t *)s, "revoke",
                       "SELECT FROM hsc_revoke($1, $2::bigint) AS r "
                       "WHERE r IS NOT NULL",
                       2, v, NULL, NULL);
}

static hsc_status_t pg_del(hsc_store_t *s, const char *user)
{
    const char *v[1] = {user};

    return update_user((pg_store_t *)s, "del",
                       "DELETE FROM hsc_users WHERE username = $1", 1, v, NULL,
                       NULL);
}

/* --- handles and pools ------------------------------------------------------
 */

static void pg_close(hsc_store_t *s)
{
    pg_store_t *ps = (pg_store_t *)s;

    PQclear(ps->poll_res);
    if (ps->own_pool) {
        hsc_pg_pool_destroy(ps->pool);
    }
    free(ps);
}

static const hsc_store_vtable_t pg_vtable =
    {.get = pg_get,
     .add = pg_add,
     .set_password = pg_set_password,
     .set_groups = pg_set_groups,
     .set_disabled = pg_set_disabled,
     .revoke = pg_revoke,
     .del = pg_del,
     .list = pg_list,
     .close = pg_close,
     .validate = pg_validate,
     .store_id = pg_store_id,
     .token_get = hsc_pg_token_get,
     .token_add = hsc_pg_token_add,
     .token_add_own = hsc_pg_token_add_own,
     .token_list = hsc_pg_token_list,
     .token_revoke = hsc_pg_token_revoke};

hsc_status_t hsc_pg_pool_create(const char *conninfo,
                                const hsc_pg_options_t *opt, hsc_pg_pool_t **pp,
                                char *errbuf, size_t errlen)
{
    hsc_pg_pool_t *p;
    PQconninfoOption *parsed;
    pthread_condattr_t ca;
    char *err = NULL;

    *pp = NULL;
    parsed = PQconninfoParse(conninfo ? conninfo : "", &err);
    if (parsed == NULL) {
        char m[200];

        copy_msg(m, sizeof(m), err ? err : "out of memory");
        hsc_store_msgf(errbuf, errlen, "invalid conninfo: %s", m);
        PQfreemem(err);
        return HSC_EINVAL;
    }
    PQconninfoFree(parsed);
    if (opt->pool_size < 1 || opt->wait_ms < 0 || opt->max_stale_ms < 0
        || opt->statement_timeout_ms < 1) {
        hsc_store_msgf(errbuf, errlen, "invalid pool options");
        return HSC_EINVAL;
    }
    p = calloc(1, sizeof(*p));
    if (p == NULL) {
        hsc_store_msgf(errbuf, errlen, "out of memory");
        return HSC_ENOMEM;
    }
    p->opt = *opt;
    p->nslots = opt->pool_size;
    p->conninfo = strdup(conninfo);
    p->slots = calloc((size_t)p->nslots, sizeof(*p->slots));
    if (p->conninfo == NULL || p->slots == NULL) {
        free(p->conninfo);
        free(p->slots);
        free(p);
        hsc_store_msgf(errbuf, errlen, "out of memory");
        return HSC_ENOMEM;
    }
    hsc_pg_redact(conninfo, p->display, sizeof(p->display));
    pthread_mutex_init(&p->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->cv, &ca);
    pthread_condattr_destroy(&ca);
    *pp = p;
    return HSC_OK;
}

void hsc_pg_pool_destroy(hsc_pg_pool_t *p)
{
    int i;

    if (p == NULL) {
        return;
    }
    for (i = 0; i < p->nslots; ++i) {
        PQfinish(p->slots[i].conn);
    }
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p->slots);
    free(p->conninfo);
    free(p);
}

int hsc_pg_pool_store_id(hsc_pg_pool_t *p, char *buf, size_t len)
{
    int known;

    if (len < HSC_STORE_ID_SIZE) {
        return 0;
    }
    pthread_mutex_lock(&p->mu);
    known = p->store_id[0] != '\0';
    memcpy(buf, p->store_id, HSC_STORE_ID_SIZE);
    pthread_mutex_unlock(&p->mu);
    return known;
}

void hsc_pg_pool_counters(hsc_pg_pool_t *p, hsc_pg_counters_t *out)
{
    memset(out, 0, sizeof(*out));
    if (p != NULL) {
        pthread_mutex_lock(&p->mu);
        *out = p->n;
        pthread_mutex_unlock(&p->mu);
    }
}

hsc_status_t hsc_store_pgsql_open_pool(hsc_pg_pool_t *pool, int flags,
                                       hsc_store_t **ps)
{
    pg_store_t *h;

    *ps = NULL;
    h = calloc(1, sizeof(*h));
    if (h == NULL) {
        return HSC_ENOMEM;
    }
    h->base.vt = &pg_vtable;
    h->pool = pool;
    h->readonly = (flags & HSC_STORE_READONLY) != 0;
    h->nocache = (flags & HSC_STORE_NOCACHE) != 0;
    *ps = &h->base;
    return HSC_OK;
}

hsc_status_t hsc_store_pgsql_open(const char *conninfo, int flags,
                                  hsc_store_t **ps, char *errbuf, size_t errlen)
{
    hsc_pg_options_t opt;
    hsc_pg_pool_t *pool = NULL;
    pg_store_t *h;
    pg_slot_t *sl;
    hsc_status_t st;
    int fresh;

    *ps = NULL;
    if (errbuf != NULL && errlen > 0) {
        errbuf[0] = '\0';
    }
    if ((flags & HSC_STORE_READONLY) && (flags & HSC_STORE_CREATE)) {
        hsc_store_msgf(errbuf, errlen, "cannot create a database read-only");
        return HSC_ESTORE;
    }
    hsc_pg_options_default(&opt);
    opt.pool_size = 1;
    opt.max_stale_ms = 0; /* one-shot tools read the database itself */
    st = hsc_pg_pool_create(conninfo, &opt, &pool, errbuf, errlen);
    if (st != HSC_OK) {
        return st;
    }
    pool->create = (flags & HSC_STORE_CREATE) != 0;
    st = hsc_store_pgsql_open_pool(pool, flags, ps);
    if (st != HSC_OK) {
        hsc_pg_pool_destroy(pool);
        hsc_store_msgf(errbuf, errlen, "out of memory");
        return st;
    }
    h = (pg_store_t *)*ps;
    h->own_pool = 1;
    /* Connect now: a wrong conninfo or schema shows at once. */
    st = slot_get(h, "open", &sl, &fresh);
    if (st != HSC_OK) {
        hsc_store_msgf(errbuf, errlen, "%s", h->base.errmsg);
        pg_close(*ps);
        *ps = NULL;
        return st;
    }
    slot_put(pool, sl);
    pool->create = 0; /* a reconnect never migrates */
    return HSC_OK;
}

int hsc_store_pgsql_superuser(hsc_store_t *s)
{
    pg_store_t *ps = (pg_store_t *)s;
    pg_slot_t *sl;
    const char *v;
    int fresh, on;

    if (s == NULL || s->vt != &pg_vtable
        || slot_get(ps, "superuser", &sl, &fresh) != HSC_OK) {
        return 0;
    }
    v = PQparameterStatus(sl->conn, "is_superuser");
    on = v != NULL && strcmp(v, "on") == 0;
    slot_put(ps->pool, sl);
    return on;
}
