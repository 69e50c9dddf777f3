/*
 * hsc_store.c: the callers' side of the user-store vtable.
 *
 * The wrappers check their arguments once, for every backend, so that a
 * backend only ever sees a valid username and a canonical group list.
 *
 * get() is on the hot path of every request. With a record cache attached
 * it asks the backend's validation rule once (hsc_store_backend.h), applies
 * the verdict to the cache, and answers from the cache when it can; on a
 * miss it asks the backend and keeps the record under a ticket taken
 * before the read (and, for a snapshot rule, only when the token is the
 * same after the read). Unknown names are never kept.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hsc_store_backend.h"
#include "hsc_store_pgsql.h"
#include "hsc_store_sqlite.h"

/* Longest group list ("g1,g2,...") a store accepts, in bytes. */
#define HSC_GROUPS_MAX 65535

/* 1 when group (len bytes) is in the first groups_len bytes of groups. */
static int groups_contain_n(const char *groups, size_t groups_len,
                            const char *group, size_t len)
{
    const char *p, *q, *e;

    if (groups == NULL || group == NULL || len == 0) {
        return 0;
    }
    p = groups;
    e = groups + groups_len;
    while (p < e) {
        q = memchr(p, ',', (size_t)(e - p));
        if (q == NULL) {
            q = e;
        }
        if ((size_t)(q - p) == len && memcmp(p, group, len) == 0) {
            return 1;
        }
        p = q + 1;
    }
    return 0;
}

/* 1 when user is a NUL-terminated valid username. */
static int user_ok(const char *user)
{
    return user != NULL && hsc_username_valid(user, strlen(user));
}

hsc_groups_problem_t hsc_groups_check(const char *groups, const char **bad,
                                      size_t *bad_len)
{
    const char *p, *q, *e;
    size_t len;

    *bad = NULL;
    *bad_len = 0;
    if (groups == NULL) {
        return HSC_GROUPS_BAD_NAME;
    }
    len = strlen(groups);
    if (len == 0) {
        return HSC_GROUPS_OK;
    }
    if (len > HSC_GROUPS_MAX) {
        return HSC_GROUPS_TOO_LONG;
    }
    p = groups;
    e = groups + len;
    while (p <= e) {
        q = memchr(p, ',', (size_t)(e - p));
        if (q == NULL) {
            q = e;
        }
        *bad = p;
        *bad_len = (size_t)(q - p);
        if (!hsc_groupname_valid(p, (size_t)(q - p))) {
            return HSC_GROUPS_BAD_NAME;
        }
        /* A duplicate: the same name earlier in the list. */
        if (groups_contain_n(groups, (size_t)(p - groups), p,
                             (size_t)(q - p))) {
            return HSC_GROUPS_TWICE;
        }
        p = q + 1;
    }
    *bad = NULL;
    *bad_len = 0;
    return HSC_GROUPS_OK;
}

/* 1 when groups is the one form the store keeps (hsc_groups_check). */
static int groups_ok(const char *groups)
{
    const char *bad;
    size_t bad_len;

    return hsc_groups_check(groups, &bad, &bad_len) == HSC_GROUPS_OK;
}

/* 1 when k names a KDF whose SPEC round-trips (so it can be stored). */
static int kdf_ok(const hsc_kdf_t *k)
{
    char spec[HSC_KDF_SPEC_MAX];
    hsc_kdf_t back;

    if (k == NULL) {
        return 0;
    }
    spec[0] = '\0';
    hsc_kdf_format(k, spec, sizeof(spec));
    return hsc_kdf_parse(spec, &back) == HSC_OK;
}

static void set_msg(hsc_store_t *s, const char *msg)
{
    size_t n = strlen(msg);

    if (n >= sizeof(s->errmsg)) {
        n = sizeof(s->errmsg) - 1;
    }
    memcpy(s->errmsg, msg, n);
    s->errmsg[n] = '\0';
}

/* Apply a verdict to the cache. Returns 1 when this get may use and fill
 * the cache, 0 to read through, -1 to refuse. */
static int apply_verdict(hsc_cache_t *c, const hsc_validation_t *v)
{
    size_t i;

    switch (v->verdict) {
    case HSC_VALID_UNCHANGED: break;
    case HSC_VALID_NAMES:
        for (i = 0; i < v->n_names; i++) {
            hsc_cache_drop(c, v->names[i], v->name_lens[i]);
        }
        break;
    case HSC_VALID_ALL: hsc_cache_clear(c); break;
    case HSC_VALID_BYPASS: return 0;
    default: return -1; /* HSC_VALID_UNAVAILABLE, or a verdict we do not know */
    }
    if (v->token_len > 0) {
        hsc_cache_sync_token(c, v->token, v->token_len);
    }
    return 1;
}

hsc_status_t hsc_store_get(hsc_store_t *s, const char *user, size_t len,
                           hsc_user_t *out)
{
    hsc_validation_t v, after;
    hsc_cache_ticket_t t;
    hsc_status_t st;
    int use;

    if (s == NULL || user == NULL || out == NULL) {
        if (out != NULL) {
            memset(out, 0, sizeof(*out));
        }
        return HSC_EINVAL;
    }
    s->lagging = 0;
    if (s->cache == NULL || s->vt->validate == NULL || len == 0
        || len > HSC_USER_MAX) {
        s->queries++;
        return s->vt->get(s, user, len, out);
    }
    memset(&v, 0, sizeof(v));
    s->vt->validate(s, &v);
    use = apply_verdict(s->cache, &v);
    if (use < 0) {
        memset(out, 0, sizeof(*out));
        if (s->errmsg[0] == '\0') {
            set_msg(s, "the user store cannot be validated");
        }
        return HSC_ESTORE;
    }
    if (use) {
        hsc_cache_ticket(s->cache, &t);
        if (hsc_cache_get(s->cache, user, len, out, s->text, s->seals)) {
            s->hits++;
            s->lagging = v.lags;
            hsc_store_cache_note(1);
            return HSC_OK;
        }
    }
    s->queries++;
    hsc_store_cache_note(0); /* the cache was asked and could not answer */
    st = s->vt->get(s, user, len, out);
    if (st != HSC_OK || !use) {
        return st;
    }
    if (v.token_len > 0) {
        /* A snapshot rule: the read is the state the token names only if
         * nothing committed while it ran. */
        memset(&after, 0, sizeof(after));
        s->vt->validate(s, &after);
        if (after.verdict != HSC_VALID_UNCHANGED
            || after.token_len != v.token_len
            || memcmp(after.token, v.token, v.token_len) != 0) {
            return st;
        }
    }
    hsc_cache_put(s->cache, &t, out);
    return st;
}

/* After a write through this handle: forget what it changed (a snapshot
 * rule would notice anyway; a lease rule only at its next poll). */
static hsc_status_t wrote(hsc_store_t *s, const char *user, hsc_status_t st)
{
    if (s->cache != NULL && user != NULL) {
        hsc_cache_drop(s->cache, user, strlen(user));
    }
    return st;
}

hsc_status_t hsc_store_get_fresh(hsc_store_t *s, const char *user, size_t len,
                                 hsc_user_t *out)
{
    if (s == NULL || user == NULL || out == NULL) {
        if (out != NULL) {
            memset(out, 0, sizeof(*out));
        }
        return HSC_EINVAL;
    }
    /* The backend's get() always asks the store itself. */
    s->lagging = 0;
    s->queries++;
    return s->vt->get(s, user, len, out);
}

hsc_status_t hsc_store_id(hsc_store_t *s, char *buf, size_t len)
{
    if (buf == NULL || len < HSC_STORE_ID_SIZE) {
        return HSC_EINVAL;
    }
    buf[0] = '\0';
    if (s == NULL || s->vt->store_id == NULL) {
        return HSC_EINVAL;
    }
    return s->vt->store_id(s, buf, len);
}

int hsc_store_have_pgsql(void)
{
#ifdef HSC_HAVE_PGSQL
    return 1;
#else
    return 0;
#endif
}

const char *hsc_store_spec_conninfo(const char *spec)
{
    size_t plen = sizeof(HSC_STORE_PGSQL_PREFIX) - 1;

    return spec != NULL && strncmp(spec, HSC_STORE_PGSQL_PREFIX, plen) == 0
               ? spec + plen
               : NULL;
}

hsc_status_t hsc_store_spec_check(const char *spec, char *errbuf, size_t errlen)
{
    const char *conninfo = hsc_store_spec_conninfo(spec);

    if (conninfo == NULL) {
        return HSC_OK;
    }
#ifdef HSC_HAVE_PGSQL
    {
        hsc_pg_options_t o;
        hsc_pg_pool_t *p = NULL;
        hsc_status_t st;

        hsc_pg_options_default(&o);
        st = hsc_pg_pool_create(conninfo, &o, &p, errbuf, errlen);
        if (st == HSC_OK) {
            hsc_pg_pool_destroy(p);
        }
        return st == HSC_OK ? HSC_OK : HSC_EINVAL;
    }
#else
    if (errbuf != NULL && errlen > 0) {
        snprintf(errbuf, errlen,
                 "this mod_hsc was built without the PostgreSQL store "
                 "(libpq); rebuild with libpq-dev installed or configure "
                 "--with-pgsql, or give the path of an SQLite file");
    }
    return HSC_EINVAL;
#endif
}

int hsc_store_superuser(hsc_store_t *s)
{
#ifdef HSC_HAVE_PGSQL
    return hsc_store_pgsql_superuser(s);
#else
    (void)s;
    return 0;
#endif
}

hsc_status_t hsc_store_open(const char *spec, int flags, hsc_store_t **ps,
                            char *errbuf, size_t errlen)
{
    const char *conninfo = hsc_store_spec_conninfo(spec);

    if (conninfo != NULL) {
#ifdef HSC_HAVE_PGSQL
        return hsc_store_pgsql_open(conninfo, flags, ps, errbuf, errlen);
#else
        *ps = NULL;
        if (errbuf != NULL && errlen > 0) {
            snprintf(errbuf, errlen, "%s", HSC_STORE_NO_PGSQL_MSG);
        }
        return HSC_EINVAL;
#endif
    }
    return hsc_store_sqlite_open(spec, flags, ps, errbuf, errlen);
}

hsc_status_t hsc_store_add(hsc_store_t *s, const hsc_user_t *u)
{
    if (s == NULL || u == NULL) {
        return HSC_EINVAL;
    }
    if (u->name == NULL || u->name_len != strlen(u->name)
        || !hsc_username_valid(u->name, u->name_len)) {
        set_msg(s, "add: invalid username");
        return HSC_EINVAL;
    }
    if (!groups_ok(u->groups ? u->groups : "")) {
        set_msg(s, "add: invalid group list");
        return HSC_EINVAL;
    }
    if (!kdf_ok(&u->kdf)) {
        set_msg(s, "add: invalid kdf");
        return HSC_EINVAL;
    }
    return s->vt->add(s, u);
}

static hsc_status_t password_write(hsc_store_t *s, const char *user,
                                   const unsigned char *current_xn,
                                   const unsigned char salt[HSC_SALT_LEN],
                                   const hsc_kdf_t *kdf,
                                   const unsigned char v[HSC_AUTH_LEN])
{
    if (s == NULL || salt == NULL || v == NULL) {
        return HSC_EINVAL;
    }
    if (!user_ok(user)) {
        set_msg(s, "set_password: invalid username");
        return HSC_EINVAL;
    }
    if (!kdf_ok(kdf)) {
        set_msg(s, "set_password: invalid kdf");
        return HSC_EINVAL;
    }
    return wrote(s, user,
                 s->vt->set_password(s, user, current_xn, salt, kdf, v));
}

hsc_status_t hsc_store_set_password(hsc_store_t *s, const char *user,
                                    const unsigned char salt[HSC_SALT_LEN],
                                    const hsc_kdf_t *kdf,
                                    const unsigned char v[HSC_AUTH_LEN])
{
    return password_write(s, user, NULL, salt, kdf, v);
}

hsc_status_t hsc_store_change_password(hsc_store_t *s, const char *user,
                                       const unsigned char *current_xn,
                                       const unsigned char salt[HSC_SALT_LEN],
                                       const hsc_kdf_t *kdf,
                                       const unsigned char v[HSC_AUTH_LEN])
{
    if (current_xn == NULL) {
        return HSC_EINVAL;
    }
    return password_write(s, user, current_xn, salt, kdf, v);
}

hsc_status_t hsc_store_set_groups(hsc_store_t *s, const char *user,
                                  const char *groups)
{
    if (s == NULL) {
        return HSC_EINVAL;
    }
    if (!user_ok(user)) {
        set_msg(s, "set_groups: invalid username");
        return HSC_EINVAL;
    }
    if (!groups_ok(groups)) {
        set_msg(s, "set_groups: invalid group list");
        return HSC_EINVAL;
    }
    return wrote(s, user, s->vt->set_groups(s, user, groups));
}

hsc_status_t hsc_store_set_disabled(hsc_store_t *s, const char *user, int on)
{
    if (s == NULL) {
        return HSC_EINVAL;
    }
    if (!user_ok(user)) {
        set_msg(s, "set_disabled: invalid username");
        return HSC_EINVAL;
    }
    /* Revoke first: if the second write fails, no cookie survives. */
    if (on) {
        hsc_status_t st = hsc_store_revoke_now(s, user, (int64_t)time(NULL));
        if (st != HSC_OK) {
            return st;
        }
    }
    return wrote(s, user, s->vt->set_disabled(s, user, on ? 1 : 0));
}

hsc_status_t hsc_store_revoke_now(hsc_store_t *s, const char *user, int64_t now)
{
    if (now < 0 || now == INT64_MAX) {
        if (s != NULL) {
            set_msg(s, "revoke: invalid time");
        }
        return HSC_EINVAL;
    }
    return hsc_store_revoke(s, user, now + 1);
}

static hsc_status_t revoke(hsc_store_t *s, const char *user, int64_t when,
                           int links)
{
    if (s == NULL) {
        return HSC_EINVAL;
    }
    if (!user_ok(user) || when < 0) {
        set_msg(s, "revoke: invalid username or time");
        return HSC_EINVAL;
    }
    return wrote(s, user, s->vt->revoke(s, user, when, links));
}

hsc_status_t hsc_store_revoke(hsc_store_t *s, const char *user, int64_t when)
{
    return revoke(s, user, when, 0);
}

hsc_status_t hsc_store_revoke_user(hsc_store_t *s, const char *user,
                                   int64_t now)
{
    if (now < 0 || now == INT64_MAX) {
        if (s != NULL) {
            set_msg(s, "revoke: invalid time");
        }
        return HSC_EINVAL;
    }
    return revoke(s, user, now + 1, 1);
}

hsc_status_t hsc_store_del(hsc_store_t *s, const char *user)
{
    if (s == NULL) {
        return HSC_EINVAL;
    }
    if (!user_ok(user)) {
        set_msg(s, "del: invalid username");
        return HSC_EINVAL;
    }
    return wrote(s, user, s->vt->del(s, user));
}

hsc_status_t hsc_store_list(hsc_store_t *s, hsc_store_each_fn *fn, void *baton)
{
    if (s == NULL || fn == NULL) {
        return HSC_EINVAL;
    }
    return s->vt->list(s, fn, baton);
}

const char *hsc_store_errmsg(const hsc_store_t *s)
{
    return s != NULL ? s->errmsg : "";
}

int hsc_store_repeat_fault(const hsc_store_t *s)
{
    return s != NULL && s->repeat_fault;
}

int hsc_store_take_recovery(hsc_store_t *s)
{
    int r = s != NULL && s->recovered;

    if (s != NULL) {
        s->recovered = 0;
    }
    return r;
}

int hsc_store_lagging(const hsc_store_t *s)
{
    return s != NULL && s->lagging;
}

void hsc_store_close(hsc_store_t *s)
{
    if (s != NULL) {
        hsc_store_use_cache(s, NULL);
        free(s->groups);
        s->groups = NULL;
        s->vt->close(s);
    }
}

int hsc_user_seal_required(const hsc_user_t *u)
{
    static const unsigned char zero[HSC_SEAL_HASH_LEN];

    return u->seals != NULL && u->seals_len >= HSC_SEAL_HASH_LEN
           && memcmp(u->seals + u->seals_len - HSC_SEAL_HASH_LEN, zero,
                     HSC_SEAL_HASH_LEN)
                  == 0;
}

size_t hsc_user_seal_bytes(const hsc_user_t *u)
{
    return u->seals == NULL            ? 0
           : hsc_user_seal_required(u) ? u->seals_len - HSC_SEAL_HASH_LEN
                                       : u->seals_len;
}

void hsc_store_use_cache(hsc_store_t *s, hsc_cache_t *cache)
{
    if (s == NULL) {
        return;
    }
    if (s->cache_owned) {
        hsc_cache_destroy(s->cache);
    }
    s->cache = cache;
    s->cache_owned = 0;
}

void hsc_store_counters(const hsc_store_t *s, unsigned long *hits,
                        unsigned long *queries)
{
    *hits = s != NULL ? s->hits : 0;
    *queries = s != NULL ? s->queries : 0;
}

int hsc_groups_contain(const char *groups, const char *group, size_t len)
{
    if (groups == NULL) {
        return 0;
    }
    return groups_contain_n(groups, strlen(groups), group, len);
}

/* Set once at startup (httpd's post_config), read by every thread. */
static hsc_store_cache_note_fn *cache_observer;

void hsc_store_set_cache_observer(hsc_store_cache_note_fn *fn)
{
    cache_observer = fn;
}

void hsc_store_cache_note(int hit)
{
    if (cache_observer != NULL) {
        cache_observer(hit);
    }
}
