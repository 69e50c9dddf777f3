/*
 * hsc_store.c: the callers' side of the user-store vtable.
 *
 * The wrappers check their arguments once, for every backend, so that a
 * backend only ever sees a valid username and a canonical group list. get()
 * is on the hot path of every request and does nothing but dispatch.
 */
#include <string.h>

#include "hsc_store.h"

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

/*
 * 1 when groups is "" or a comma-separated list of valid group names, each
 * at most once: the one form the store keeps.
 */
static int groups_ok(const char *groups)
{
    const char *p, *q, *e;
    size_t len;

    if (groups == NULL) {
        return 0;
    }
    len = strlen(groups);
    if (len == 0) {
        return 1;
    }
    if (len > HSC_GROUPS_MAX) {
        return 0;
    }
    p = groups;
    e = groups + len;
    while (p <= e) {
        q = memchr(p, ',', (size_t)(e - p));
        if (q == NULL) {
            q = e;
        }
        if (!hsc_groupname_valid(p, (size_t)(q - p))) {
            return 0;
        }
        /* A duplicate: the same name earlier in the list. */
        if (groups_contain_n(groups, (size_t)(p - groups), p,
                             (size_t)(q - p))) {
            return 0;
        }
        p = q + 1;
    }
    return 1;
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

hsc_status_t hsc_store_get(hsc_store_t *s, const char *user, size_t len,
                           hsc_user_t *out)
{
    if (s == NULL || user == NULL || out == NULL) {
        if (out != NULL) {
            memset(out, 0, sizeof(*out));
        }
        return HSC_EINVAL;
    }
    return s->vt->get(s, user, len, out);
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

hsc_status_t hsc_store_set_password(hsc_store_t *s, const char *user,
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
    return s->vt->set_password(s, user, salt, kdf, v);
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
    return s->vt->set_groups(s, user, groups);
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
    return s->vt->set_disabled(s, user, on ? 1 : 0);
}

hsc_status_t hsc_store_revoke(hsc_store_t *s, const char *user, int64_t when)
{
    if (s == NULL) {
        return HSC_EINVAL;
    }
    if (!user_ok(user) || when < 0) {
        set_msg(s, "revoke: invalid username or time");
        return HSC_EINVAL;
    }
    return s->vt->revoke(s, user, when);
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
    return s->vt->del(s, user);
}

hsc_status_t hsc_store_list(hsc_store_t *s, hsc_store_each_fn *fn,
                            void *baton)
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

void hsc_store_close(hsc_store_t *s)
{
    if (s != NULL) {
        s->vt->close(s);
    }
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
