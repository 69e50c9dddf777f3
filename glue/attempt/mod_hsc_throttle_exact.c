/*
 * mod_hsc_throttle_exact.c: the memcached client of HSCThrottleCache
 * memcache-exact: (mod_hsc_throttle_exact.h). memcached's atomic add and
 * incr count, decr gives back, delete forgets. The counting rules (what
 * to count, when to refuse) are mod_hsc_throttle.c's; this file only
 * talks to memcached, in its text protocol over APR sockets, and every
 * exchange ends within HSC_EXACT_TIMEOUT: apr_memcache, which this
 * replaced, has no read timeout, and a memcached that accepted and never
 * answered held every login thread. Replies are read by hsc_mc_reply()
 * in hsc_core/hsc_throttle.c.
 */
#include <string.h>

#include "apr_strings.h"
#include "apr_network_io.h"
#include "apr_thread_mutex.h"

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"

#include "mod_hsc_log.h"
#include "mod_hsc_config.h"
#include "mod_hsc_throttle_exact.h"
#include "hsc_throttle.h"

/* A connection idle this long is closed when next met (microseconds):
 * one left from before a memcached restart would fail its first use. A
 * login costs a KDF: a new connection now and then is nothing beside it. */
#define HSC_EXACT_CONN_TTL (2 * APR_USEC_PER_SEC)
/* Every exchange (connect, send, the whole reply) ends within this: a
 * memcached that accepts and never answers holds a login no longer. */
#define HSC_EXACT_TIMEOUT (APR_USEC_PER_SEC)
/* A server that failed is tried again this long after, by one login. */
#define HSC_EXACT_RETRY (5 * APR_USEC_PER_SEC)

/* An open connection, idle on its server's list or in a thread's hands. */
typedef struct exact_conn {
    struct exact_conn *next;
    apr_pool_t *pool; /* its own: the socket, freed when it is closed */
    apr_socket_t *sock;
    apr_time_t idle_since;
} exact_conn_t;

/* One memcached server of the list, in this child. */
typedef struct {
    const hsc_exact_server_t *conf;
    apr_sockaddr_t *sa;
    apr_thread_mutex_t *lock; /* idle and failed_at */
    exact_conn_t *idle;
    apr_time_t failed_at; /* 0: answering */
} exact_server_t;

/* This child's servers; NULL before child_init or when they could not be
 * set up (logged: every login then meets HSCThrottleUnavailable). */
static exact_server_t *exact_servers;
static unsigned exact_count;

/* HSCThrottleUnavailable, for the log line. */
static int refuses(const server_rec *s)
{
    return hsc_srv_conf(s)->global->throttle_refuse;
}

int hsc_exact_ready(void)
{
    return exact_servers != NULL;
}

static void log_setup_failure(server_rec *s, apr_status_t rv,
                              const hsc_exact_server_t *es)
{
    ap_log_error(APLOG_MARK, APLOG_ERR, rv, s,
                 HSCLOGNO(183) "cannot set up the memcached client for "
                               "exact login throttling (%s:%u) in a "
                               "child: its logins meet "
                               "HSCThrottleUnavailable (%s)",
                 es->host, (unsigned)es->port, refuses(s) ? "refuse" : "allow");
}

/* The exact mode's client in a child: each server's address, resolved
 * once, and a list of idle connections; none is opened until a login
 * needs one. On failure (logged) every login meets HSCThrottleUnavailable. */
void hsc_exact_child_init(apr_pool_t *pchild, server_rec *s)
{
    const apr_array_header_t *list = hsc_srv_conf(s)->global->throttle_exact;
    exact_server_t *servers;
    int i;

    exact_servers = NULL;
    if (list->nelts < 1) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     HSCLOGNO(184) "cannot make the memcached client for "
                                   "exact login throttling in a child: no "
                                   "server; its logins meet "
                                   "HSCThrottleUnavailable (%s)",
                     refuses(s) ? "refuse" : "allow");
        return;
    }
    servers = apr_pcalloc(pchild, sizeof(*servers) * (apr_size_t)list->nelts);
    for (i = 0; i < list->nelts; ++i) {
        exact_server_t *es = &servers[i];
        apr_status_t rv;

        es->conf = &APR_ARRAY_IDX(list, i, hsc_exact_server_t);
        rv = apr_sockaddr_info_get(&es->sa, es->conf->host, APR_UNSPEC,
                                   es->conf->port, 0, pchild);
        if (rv == APR_SUCCESS) {
            rv = apr_thread_mutex_create(&es->lock, APR_THREAD_MUTEX_DEFAULT,
                                         pchild);
        }
        if (rv != APR_SUCCESS) {
            log_setup_failure(s, rv, es->conf);
            return;
        }
    }
    exact_count = (unsigned)list->nelts;
    exact_servers = servers;
}

/* --- one exchange, bounded ------------------------------------------------ */

static void conn_close(exact_conn_t *c)
{
    apr_socket_close(c->sock);
    apr_pool_destroy(c->pool);
}

/* Time left until deadline as a socket timeout (at least 1 ms). */
static apr_status_t set_time_left(apr_socket_t *sock, apr_time_t deadline)
{
    apr_time_t left = deadline - apr_time_now();

    if (left <= 0) {
        return APR_TIMEUP;
    }
    return apr_socket_timeout_set(sock, left < 1000 ? 1000 : left);
}

/* An idle connection of es that has not been idle too long, or a new one
 * (connected within the time left until deadline); NULL and *rv if none. */
static exact_conn_t *conn_get(exact_server_t *es, apr_time_t deadline,
                              apr_status_t *rv)
{
    apr_time_t now = apr_time_now();
    exact_conn_t *c, *stale = NULL;
    apr_sockaddr_t *sa;
    apr_pool_t *p;

    apr_thread_mutex_lock(es->lock);
    while ((c = es->idle) != NULL) {
        es->idle = c->next;
        if (now - c->idle_since < HSC_EXACT_CONN_TTL) {
            break;
        }
        c->next = stale;
        stale = c;
    }
    apr_thread_mutex_unlock(es->lock);
    while (stale != NULL) {
        exact_conn_t *next = stale->next;

        conn_close(stale);
        stale = next;
    }
    if (c != NULL) {
        return c;
    }
    /* Its own unmanaged pool: created and freed by any thread, no lock. */
    if ((*rv = apr_pool_create_unmanaged_ex(&p, NULL, NULL)) != APR_SUCCESS) {
        return NULL;
    }
    c = apr_pcalloc(p, sizeof(*c));
    c->pool = p;
    /* Each address of the name in turn (IPv6 and IPv4), in the time left. */
    for (sa = es->sa; sa != NULL; sa = sa->next) {
        *rv = apr_socket_create(&c->sock, sa->family, SOCK_STREAM,
                                APR_PROTO_TCP, p);
        if (*rv != APR_SUCCESS) {
            continue;
        }
        apr_socket_opt_set(c->sock, APR_TCP_NODELAY, 1);
        if ((*rv = set_time_left(c->sock, deadline)) == APR_SUCCESS
            && (*rv = apr_socket_connect(c->sock, sa)) == APR_SUCCESS) {
            return c;
        }
        apr_socket_close(c->sock);
        if (APR_STATUS_IS_TIMEUP(*rv)) {
            break;
        }
    }
    apr_pool_destroy(p);
    return NULL;
}

static void conn_put(exact_server_t *es, exact_conn_t *c)
{
    c->idle_since = apr_time_now();
    apr_thread_mutex_lock(es->lock);
    c->next = es->idle;
    es->idle = c;
    apr_thread_mutex_unlock(es->lock);
}

/* Send req, read one whole reply into buf: APR_SUCCESS and its kind. */
static apr_status_t conn_exchange(exact_conn_t *c, apr_time_t deadline,
                                  const char *req, apr_size_t reqlen, char *buf,
                                  hsc_mc_reply_t *kind, uint64_t *number,
                                  const char **data, size_t *dlen)
{
    apr_size_t have = 0, used = 0;
    apr_status_t rv;

    while (reqlen > 0) {
        apr_size_t n = reqlen;

        if ((rv = set_time_left(c->sock, deadline)) != APR_SUCCESS
            || (rv = apr_socket_send(c->sock, req, &n)) != APR_SUCCESS) {
            return rv;
        }
        req += n;
        reqlen -= n;
    }
    do {
        apr_size_t n = HSC_MC_REPLY_MAX - have;

        if (n == 0) {
            return APR_EGENERAL; /* hsc_mc_reply says ERROR before this */
        }
        if ((rv = set_time_left(c->sock, deadline)) != APR_SUCCESS) {
            return rv;
        }
        rv = apr_socket_recv(c->sock, buf + have, &n);
        have += n;
        if (rv != APR_SUCCESS && (rv != APR_EOF || n == 0)) {
            return rv == APR_EOF ? APR_ECONNRESET : rv;
        }
        *kind = hsc_mc_reply(buf, have, &used, number, data, dlen);
    } while (*kind == HSC_MC_MORE);
    /* Anything after the reply would be read as the next one's start. */
    return used == have ? APR_SUCCESS : APR_EGENERAL;
}

/*
 * One command for key on the server that holds it (or, while that one
 * has failed in the last HSC_EXACT_RETRY, the next that has not), within
 * HSC_EXACT_TIMEOUT. APR_SUCCESS and the reply's kind (a value is copied
 * into pool p when asked), or the failure and *what. A server that timed
 * out or dropped the connection is left alone for HSC_EXACT_RETRY; the
 * logins after that try it again.
 */
static apr_status_t exact_call(const char *key, const char *req,
                               apr_size_t reqlen, hsc_mc_reply_t *kind,
                               uint64_t *number, apr_pool_t *p, char **value,
                               const char **what)
{
    unsigned first = hsc_mc_server_of(key, exact_count), i;
    apr_time_t now = apr_time_now(), deadline = now + HSC_EXACT_TIMEOUT;
    char buf[HSC_MC_REPLY_MAX];
    const char *data = NULL;
    size_t dlen = 0;
    exact_server_t *es = NULL;
    exact_conn_t *c;
    apr_status_t rv;

    for (i = 0; i < exact_count; ++i) {
        exact_server_t *cand = &exact_servers[(first + i) % exact_count];
        int take;

        apr_thread_mutex_lock(cand->lock);
        /* Past its retry time every login tries it: a burst then waits
         * at most one timeout, and none is refused for another's try. */
        take = cand->failed_at == 0 || now - cand->failed_at >= HSC_EXACT_RETRY;
        apr_thread_mutex_unlock(cand->lock);
        if (take) {
            es = cand;
            break;
        }
    }
    if (es == NULL) {
        *what = "memcached: no server answers";
        return APR_ECONNREFUSED;
    }
    if ((c = conn_get(es, deadline, &rv)) != NULL) {
        rv = conn_exchange(c, deadline, req, reqlen, buf, kind, number, &data,
                           &dlen);
        if (rv == APR_SUCCESS && *kind != HSC_MC_ERROR) {
            conn_put(es, c);
            apr_thread_mutex_lock(es->lock);
            es->failed_at = 0;
            apr_thread_mutex_unlock(es->lock);
            if (value != NULL && *kind == HSC_MC_VALUE) {
                *value = apr_pstrmemdup(p, data, dlen);
            }
            return APR_SUCCESS;
        }
        conn_close(c);
    }
    if (rv == APR_SUCCESS) { /* memcached's ERROR: it answers, says no */
        *what = "memcached: an error reply";
        return APR_EGENERAL;
    }
    apr_thread_mutex_lock(es->lock);
    es->failed_at = apr_time_now();
    apr_thread_mutex_unlock(es->lock);
    *what = APR_STATUS_IS_TIMEUP(rv) || APR_STATUS_IS_EAGAIN(rv)
                ? "memcached: no answer within 1 s"
                : "memcached: connection failed";
    return rv;
}

/* A command line "<verb> <key>[ <args>]\r\n[<data>\r\n]" into buf. */
static apr_size_t command(char *buf, apr_size_t cap, const char *verb,
                          const char *key, const char *args, const char *data)
{
    int n = apr_snprintf(buf, cap, "%s %s%s%s\r\n%s%s", verb, key,
                         args ? " " : "", args ? args : "", data ? data : "",
                         data ? "\r\n" : "");

    return n > 0 && (apr_size_t)n < cap ? (apr_size_t)n : 0;
}

/* The longest command: "add <key> 0 <exp> <len>\r\n<data>\r\n". */
#define CMD_MAX (HSC_THROTTLE_EXACT_KEY_MAX + 80)

/*
 * Count one attempt in an exact counter: APR_SUCCESS and *v, the count
 * with it, as memcached's atomic incr returned it: whatever the other
 * nodes do at the same moment, each attempt gets its own value. A counter
 * that is absent is made by add (1, the window as its expiry: incr never
 * moves it), and an add that lost the race to another node's is followed
 * by incr again.
 */
apr_status_t hsc_exact_take(const char *key, apr_int64_t now,
                            apr_int64_t window, apr_uint32_t *v,
                            const char **what)
{
    char mk[HSC_THROTTLE_EXACT_KEY_MAX], tk[HSC_THROTTLE_EXACT_KEY_MAX];
    char cmd[CMD_MAX], args[48], start[24];
    apr_uint32_t exp = hsc_throttle_exact_expiry(window, now);
    hsc_mc_reply_t kind;
    uint64_t n = 0;
    apr_size_t len;
    apr_status_t rv;
    int tries;

    *what = "memcached key";
    if (hsc_throttle_exact_key(key, 0, mk) != HSC_OK
        || hsc_throttle_exact_key(key, 1, tk) != HSC_OK) {
        return APR_EGENERAL;
    }
    for (tries = 0; tries < 3; ++tries) {
        *v = 0;
        len = command(cmd, sizeof(cmd), "incr", mk, "1", NULL);
        if ((rv = exact_call(mk, cmd, len, &kind, &n, NULL, NULL, what))
            != APR_SUCCESS) {
            return rv;
        }
        if (kind == HSC_MC_NUMBER) {
            /* incr by 1 gives 1 or more */
            *what = "memcached incr: not a counter";
            *v = n > APR_UINT32_MAX ? APR_UINT32_MAX : (apr_uint32_t)n;
            return n > 0 ? APR_SUCCESS : APR_EGENERAL;
        }
        if (kind != HSC_MC_NOT_FOUND) {
            *what = "memcached incr: an unexpected reply";
            return APR_EGENERAL;
        }
        apr_snprintf(args, sizeof(args), "0 %u 1", (unsigned)exp);
        len = command(cmd, sizeof(cmd), "add", mk, args, "1");
        if ((rv = exact_call(mk, cmd, len, &kind, &n, NULL, NULL, what))
            != APR_SUCCESS) {
            return rv;
        }
        if (kind == HSC_MC_STORED) {
            int sl = apr_snprintf(start, sizeof(start), "%" APR_INT64_T_FMT,
                                  now);

            *v = 1;
            /* The window's start, for Retry-After. set, not add: the one
             * of the last window may outlive its counter by a second. If
             * it is lost, a refusal says the whole window. */
            apr_snprintf(args, sizeof(args), "0 %u %d", (unsigned)exp, sl);
            len = command(cmd, sizeof(cmd), "set", tk, args, start);
            (void)exact_call(tk, cmd, len, &kind, &n, NULL, NULL, what);
            return APR_SUCCESS;
        }
        if (kind != HSC_MC_NOT_STORED) { /* NOT_STORED: another node won */
            *what = "memcached add: an unexpected reply";
            return APR_EGENERAL;
        }
    }
    *what = "memcached add and incr keep missing";
    return APR_EGENERAL;
}

/* Take one attempt back (a decr stops at 0). Absent is fine: its window
 * ended, or a success removed it. A failure leaves the attempt counted. */
apr_status_t hsc_exact_give_back(const char *key)
{
    char mk[HSC_THROTTLE_EXACT_KEY_MAX], cmd[CMD_MAX];
    const char *what;
    hsc_mc_reply_t kind;
    uint64_t n;
    apr_status_t rv;

    if (hsc_throttle_exact_key(key, 0, mk) != HSC_OK) {
        return APR_EGENERAL;
    }
    rv = exact_call(mk, cmd, command(cmd, sizeof(cmd), "decr", mk, "1", NULL),
                    &kind, &n, NULL, NULL, &what);
    if (rv == APR_SUCCESS && kind != HSC_MC_NUMBER
        && kind != HSC_MC_NOT_FOUND) {
        rv = APR_EGENERAL;
    }
    return rv;
}

/* Seconds until a full counter's window ends, from the start kept beside
 * it (the whole window when that cannot be read). */
apr_int64_t hsc_exact_wait(request_rec *r, const char *key, apr_int64_t now,
                           apr_int64_t window)
{
    char tk[HSC_THROTTLE_EXACT_KEY_MAX], cmd[CMD_MAX];
    char *val = NULL;
    const char *what;
    hsc_mc_reply_t kind;
    uint64_t n;

    if (hsc_throttle_exact_key(key, 1, tk) != HSC_OK
        || exact_call(tk, cmd, command(cmd, sizeof(cmd), "get", tk, NULL, NULL),
                      &kind, &n, r->pool, &val, &what)
               != APR_SUCCESS
        || kind != HSC_MC_VALUE) {
        val = NULL;
    }
    return hsc_throttle_exact_wait(val, val ? strlen(val) : 0, now, window);
}

apr_status_t hsc_exact_forget(const char *key)
{
    char mk[HSC_THROTTLE_EXACT_KEY_MAX], cmd[CMD_MAX];
    const char *what;
    hsc_mc_reply_t kind;
    uint64_t n;
    apr_status_t rv;

    if (hsc_throttle_exact_key(key, 0, mk) != HSC_OK) {
        return APR_EGENERAL;
    }
    rv = exact_call(mk, cmd,
                    command(cmd, sizeof(cmd), "delete", mk, NULL, NULL), &kind,
                    &n, NULL, NULL, &what);
    if (rv == APR_SUCCESS && kind != HSC_MC_DELETED
        && kind != HSC_MC_NOT_FOUND) {
        rv = APR_EGENERAL;
    }
    return rv;
}
