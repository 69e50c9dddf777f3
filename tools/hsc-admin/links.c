/*
 * links.c: hsc-admin link, and the invitation of add --invite
 * (docs/hsc-admin.md; hsc_core/hsc_links.h). The link's secret is
 * printed once and stored only as its SHA-256: neither the key file nor
 * the table can make one.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <apr_strings.h>

#include "hsc_factors.h"
#include "hsc_links.h"
#include "hsc_parse.h"

#include "hsc_admin.h"

/* How long a link lives unless --ttl says, and at most. */
#define LINK_TTL_DEFAULT (24 * 3600)
#define LINK_TTL_MAX (30 * 24 * 3600)

/* Where the account page is when --url does not say. */
#define LINK_PATH_DEFAULT "/account"

int link_issue(apr_pool_t *pool, const args_t *a, const char *db,
               const char *user, hsc_link_purpose_t purpose)
{
    char text[HSC_LINK_TEXT_LEN + 1], err[512];
    unsigned char hash[HSC_LINK_HASH_LEN];
    const char *base = opt(a, OPT_URL) ? opt(a, OPT_URL) : LINK_PATH_DEFAULT;
    int64_t ttl = LINK_TTL_DEFAULT, now = (int64_t)time(NULL);
    hsc_factors_t *f = NULL;
    hsc_status_t st;

    (void)pool;
    if (opt(a, OPT_TTL) != NULL
        && (!parse_seconds(opt(a, OPT_TTL), &ttl) || ttl < 60
            || ttl > LINK_TTL_MAX)) {
        return usage_error("--ttl: a duration from 60s to 30d");
    }
    if (strpbrk(base, " \t\r\n\"<>") != NULL) {
        return usage_error("--url: no spaces, quotes or angle brackets");
    }
    st = hsc_factors_open(db, 0, &f, err, sizeof(err));
    if (st != HSC_OK) {
        return fail(st == HSC_EINVAL ? EX_INPUT : EX_FILE, "%s", err);
    }
    st = hsc_link_new(text, hash);
    if (st == HSC_OK) {
        st = hsc_factors_link_put(f, user, purpose, hash, now + ttl, now);
    }
    if (st != HSC_OK) {
        int rc;
        audit_reason = st == HSC_ENOUSER ? "no_such_user" : "store_fault";
        /* An invitation names a user that exists (made without a
         * password); inviting a new user is add --invite. A pgsql: spec
         * may hold a password: then the hint says DB, not the spec. */
        if (st == HSC_ENOUSER && purpose == HSC_LINK_INVITE) {
            const char *shown = strncmp(db, "pgsql:", 6) == 0
                                        || strpbrk(db, " \t'\"")
                                    ? "DB"
                                    : db;
            rc = fail(EX_INPUT,
                      "%s: no such user (to invite a new user: hsc-admin add "
                      "%s %s --invite)",
                      user, shown, user);
        }
        else if (st == HSC_ENOUSER) {
            rc = fail(EX_INPUT, "%s: no such user", user);
        }
        else {
            rc = fail(store_exit(st), "%s: %s (%s)", user, hsc_strerror(st),
                      hsc_factors_errmsg(f));
        }
        hsc_factors_close(f);
        return rc;
    }
    hsc_factors_close(f);
    /* The link alone on standard output, for a script to mail. */
    printf("%s%slink=%s\n", base, strchr(base, '?') ? "&" : "?", text);
    hsc_wipe(text, sizeof(text));
    {
        char when[64];
        fprintf(stderr, "%s: %s link, valid once until %s%s\n", user,
                hsc_link_purpose_name(purpose),
                utc(now + ttl, when, sizeof(when)),
                opt(a, OPT_URL) ? ""
                                : " (a path: put the site's address before "
                                  "it, or give --url)");
    }
    return EX_OK;
}

/* --list: one line a link, "user purpose expires [expired]". */
static int print_link(void *baton, const char *user, hsc_link_purpose_t purpose,
                      int64_t expires, int64_t created)
{
    char when[64];
    int64_t now = *(const int64_t *)baton;

    (void)created;
    printf("%s %s %s%s\n", user, hsc_link_purpose_name(purpose),
           utc(expires, when, sizeof(when)), expires <= now ? " expired" : "");
    return 0;
}

int cmd_link(apr_pool_t *pool, const char *name, const args_t *a)
{
    const char *db = a->pos[0], *user = a->npos > 1 ? a->pos[1] : NULL;
    hsc_link_purpose_t purpose = HSC_LINK_INVITE;
    int64_t now = (int64_t)time(NULL);
    hsc_factors_t *f = NULL;
    hsc_status_t st;
    char err[512];
    int rc, n = 0;

    (void)name;
    if (opt(a, OPT_FOR) != NULL
        && hsc_link_purpose_parse(opt(a, OPT_FOR), &purpose) != HSC_OK) {
        return usage_error("--for: invite, reset or enrol");
    }
    if (a->given & OPT_LIST) {
        if (user != NULL || (a->given & ~OPT_LIST & ~OPT_AUDIT)) {
            return usage_error("link DB --list takes nothing else");
        }
        if ((st = hsc_factors_open(db, 1, &f, err, sizeof(err))) != HSC_OK) {
            return fail(st == HSC_EINVAL ? EX_INPUT : EX_FILE, "%s", err);
        }
        st = hsc_factors_link_list(f, print_link, &now);
        rc = st == HSC_OK ? EX_OK
                          : fail(store_exit(st), "%s", hsc_factors_errmsg(f));
        hsc_factors_close(f);
        return rc;
    }
    if (user == NULL) {
        return usage_error("link: DB USER --for PURPOSE, DB --list, or "
                           "DB USER --revoke");
    }
    if ((rc = check_user(user)) != EX_OK) {
        return rc;
    }
    if (a->given & OPT_REVOKE) {
        if (a->given & (OPT_TTL | OPT_URL)) {
            return usage_error("--revoke takes --for only");
        }
        if ((st = hsc_factors_open(db, 0, &f, err, sizeof(err))) != HSC_OK) {
            return fail(st == HSC_EINVAL ? EX_INPUT : EX_FILE, "%s", err);
        }
        st = hsc_factors_link_revoke(f, user, opt(a, OPT_FOR) == NULL, purpose,
                                     &n);
        rc = st == HSC_OK ? EX_OK
                          : fail(store_exit(st), "%s", hsc_factors_errmsg(f));
        hsc_factors_close(f);
        if (rc == EX_OK) {
            printf("%s: %d link%s deleted\n", user, n, n == 1 ? "" : "s");
        }
        return rc;
    }
    if (opt(a, OPT_FOR) == NULL) {
        return usage_error("link DB USER needs --for invite|reset|enrol");
    }
    return link_issue(pool, a, db, user, purpose);
}
