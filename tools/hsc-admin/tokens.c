/*
 * tokens.c: hsc-admin token add|list|revoke, app passwords
 * (docs/hsc-admin.md; hsc_core/hsc_token.h, hsc_tokens.h), and the
 * tokens of show. Only the hsc_tokens_* calls touch the store, so every
 * command works on an SQLite file and a pgsql: database alike. A token's
 * text is printed once, by add; the store keeps the SHA-256 of its
 * secret, and nothing here prints that hash.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hsc_token.h"
#include "hsc_activity.h"
#include "hsc_tokens.h"

#include "hsc_admin.h"

/* The shortest --expires: a token that dies before it is typed in is a
 * mistake. */
#define TOKEN_EXPIRES_MIN 60

/* Report a failed token call on user; id: the token named, or NULL. */
static int tokens_fail(hsc_store_t *s, const char *user, const char *id,
                       hsc_status_t st)
{
    audit_reason = st == HSC_ENOUSER   ? (id ? "no_such_token" : "no_such_user")
                   : st == HSC_EEXISTS ? "token_exists"
                   : st == HSC_EREADONLY ? "read_only"
                   : st == HSC_EINVAL    ? "bad_input"
                                         : "store_fault";
    switch (st) {
    case HSC_ENOUSER:
        if (id != NULL) {
            return fail(EX_INPUT,
                        "%s: no live token %s (unknown, another user's, or "
                        "already revoked)",
                        user, id);
        }
        return fail(EX_INPUT, "%s: no such user", user);
    case HSC_EREADONLY:
        return fail(EX_FILE, "the database is read-only for this user");
    default:
        return fail(store_exit(st), "%s: %s (%s)", user, hsc_strerror(st),
                    hsc_store_errmsg(s));
    }
}

/* Refuse a user who does not exist (list and revoke of USER would
 * otherwise say nothing, or "0 revoked", for a typo). */
static int token_owner(hsc_store_t *s, const char *user)
{
    hsc_user_t u;
    hsc_status_t st = hsc_store_get_fresh(s, user, strlen(user), &u);

    hsc_wipe(&u, sizeof(u));
    return st == HSC_OK ? EX_OK : store_fail(s, user, st);
}

/* The state of t at now: "live", "expired" or "revoked at DATE". */
static const char *token_state(const hsc_token_t *t, int64_t now, char *buf,
                               size_t len)
{
    char when[32];

    if (t->revoked != 0) {
        snprintf(buf, len, "revoked at %s",
                 utc(t->revoked, when, sizeof(when)));
    }
    else if (t->expires != 0 && now >= t->expires) {
        snprintf(buf, len, "expired");
    }
    else {
        snprintf(buf, len, "live");
    }
    return buf;
}

/* --expires DURATION|never (as --ttl takes a duration): *expires is the
 * Unix second it ends at, 0 for never. EX_OK or EX_USAGE. */
static int token_expires(const args_t *a, int64_t now, int64_t *expires)
{
    const char *e = opt(a, OPT_EXPIRES);
    int64_t d = 0;

    *expires = 0;
    if (e == NULL || strcmp(e, "never") == 0) {
        return EX_OK;
    }
    if (!parse_seconds(e, &d) || d < TOKEN_EXPIRES_MIN) {
        return usage_error("--expires: never, or a duration from 60s to "
                           "ten years (90d, 12h, 30m)");
    }
    *expires = now + d;
    return EX_OK;
}

static int token_add(const args_t *a)
{
    const char *db = a->pos[1], *user = a->pos[2];
    const char *tname = opt(a, OPT_NAME);
    const char *scopes = opt(a, OPT_SCOPES) ? opt(a, OPT_SCOPES) : "";
    char text[HSC_TOKEN_TEXT_LEN + 1], when[32];
    int64_t now = (int64_t)time(NULL);
    hsc_store_t *s = NULL;
    hsc_token_t t;
    hsc_status_t st;
    int rc;

    memset(&t, 0, sizeof(t));
    if (a->npos != 3 || tname == NULL || (a->given & OPT_ALL)) {
        return usage_error("token add DB USER --name NAME [--scopes S1,S2] "
                           "[--expires DURATION|never]");
    }
    if ((rc = check_user(user)) != EX_OK
        || (rc = token_expires(a, now, &t.expires)) != EX_OK) {
        return rc;
    }
    if (!hsc_token_name_valid(tname, strlen(tname))) {
        return fail(EX_INPUT,
                    "invalid token name (1-%d bytes of printable "
                    "ASCII, no leading or trailing space)",
                    HSC_TOKEN_NAME_MAX);
    }
    if (!hsc_token_scopes_valid(scopes)) {
        return fail(EX_INPUT,
                    "invalid scopes \"%s\" (names of a-z 0-9 . _ : -, 1-%d "
                    "characters, joined by commas, each once, at most %d "
                    "bytes)",
                    scopes, HSC_TOKEN_SCOPE_MAX, HSC_TOKEN_SCOPES_MAX);
    }
    if ((rc = open_store(db, 0, &s)) != EX_OK) {
        return rc;
    }
    snprintf(t.user, sizeof(t.user), "%s", user);
    snprintf(t.name, sizeof(t.name), "%s", tname);
    snprintf(t.scopes, sizeof(t.scopes), "%s", scopes);
    st = hsc_token_new(text, t.id, t.hash);
    if (st != HSC_OK) {
        rc = fail(EX_FILE, "no random bytes: %s", hsc_strerror(st));
        goto cleanup;
    }
    st = hsc_tokens_add(s, &t, now);
    if (st == HSC_EEXISTS) {
        audit_reason = "token_exists";
        rc = fail(EX_INPUT,
                  "%s: a live token is named \"%s\" (revoke it first, or "
                  "choose another name)",
                  user, tname);
        goto cleanup;
    }
    if (st != HSC_OK) {
        rc = tokens_fail(s, user, NULL, st);
        goto cleanup;
    }
    /* The token alone on standard output: TOKEN=$(hsc-admin token add
     * ...) takes it; everything else goes to standard error. */
    printf("%s\n", text);
    fprintf(stderr,
            "%s: token %s \"%s\", scopes %s, expires %s\n"
            "store it now: it cannot be shown again\n",
            user, t.id, t.name, t.scopes[0] ? t.scopes : "none",
            t.expires ? utc(t.expires, when, sizeof(when)) : "never");

cleanup:
    hsc_wipe(text, sizeof(text));
    hsc_wipe(&t, sizeof(t));
    hsc_store_close(s);
    return rc;
}

/* What list prints a line for: the time, and the activity store or NULL. */
typedef struct {
    int64_t now;
    hsc_activity_t *act;
    hsc_status_t act_st; /* the first failure to read it, or HSC_OK */
} token_listing_t;

/* The last use of t as a field: "DATE ADDRESS", "never used", or "-"
 * without an activity store. */
static const char *last_use(token_listing_t *l, const hsc_token_t *t, char *buf,
                            size_t len)
{
    char addr[HSC_ACTIVITY_ADDR_MAX], when[32];
    int64_t at = 0;
    hsc_status_t st;

    if (l->act == NULL) {
        return "-";
    }
    st = hsc_activity_get(l->act, t->id, &at, addr);
    if (st == HSC_ENOUSER) {
        return "never used";
    }
    if (st != HSC_OK) {
        if (l->act_st == HSC_OK) {
            l->act_st = st;
        }
        return "?";
    }
    snprintf(buf, len, "%s %s", utc(at, when, sizeof(when)), addr);
    return buf;
}

/* list: one line a token, fields separated by tabs (names are printable
 * ASCII; users as list shows them). Never the hash. With --activity, an
 * eighth field: the last use. */
static int token_print(void *baton, const hsc_token_t *t)
{
    token_listing_t *l = baton;
    char name[8 * HSC_USER_MAX + 1], cr[32], ex[32], state[64];
    char use[32 + HSC_ACTIVITY_ADDR_MAX];

    hsc_username_escape(t->user, strlen(t->user), name);
    printf("%s\t%s\t%s\t%s\t%s\t%s\t%s", t->id, name, t->name,
           t->scopes[0] ? t->scopes : "-", utc(t->created, cr, sizeof(cr)),
           t->expires ? utc(t->expires, ex, sizeof(ex)) : "never",
           token_state(t, l->now, state, sizeof(state)));
    if (l->act != NULL) {
        printf("\t%s", last_use(l, t, use, sizeof(use)));
    }
    printf("\n");
    return 0;
}

static int token_list(const args_t *a)
{
    const char *db = a->pos[1], *user = a->npos > 2 ? a->pos[2] : NULL;
    const char *act = opt(a, OPT_ACTIVITY);
    token_listing_t l;
    hsc_store_t *s = NULL;
    hsc_status_t st;
    char err[256];
    int rc;

    if (a->npos > 3 || (a->given & ~(OPT_AUDIT | OPT_ACTIVITY))) {
        return usage_error("token list DB [USER] takes no option but "
                           "--activity");
    }
    memset(&l, 0, sizeof(l));
    l.now = (int64_t)time(NULL);
    if ((user != NULL && (rc = check_user(user)) != EX_OK)
        || (rc = open_store(db, HSC_STORE_READONLY, &s)) != EX_OK) {
        return rc;
    }
    if (act != NULL
        && (st = hsc_activity_open(act, 1, &l.act, err, sizeof(err)))
               != HSC_OK) {
        hsc_store_close(s);
        return fail(store_exit(st), "token list: the activity store: %s", err);
    }
    if (user == NULL || (rc = token_owner(s, user)) == EX_OK) {
        st = hsc_tokens_list(s, user, token_print, &l);
        if (st != HSC_OK) {
            rc = fail(store_exit(st), "token list: %s (%s)", hsc_strerror(st),
                      hsc_store_errmsg(s));
        }
        else if (l.act_st != HSC_OK) {
            rc = fail(store_exit(l.act_st),
                      "token list: the activity store: %s",
                      hsc_activity_errmsg(l.act));
        }
    }
    hsc_activity_close(l.act);
    hsc_store_close(s);
    return rc;
}

static int token_revoke(const args_t *a)
{
    const char *db = a->pos[1], *user = a->pos[2];
    const char *id = a->npos > 3 ? a->pos[3] : NULL;
    int64_t now = (int64_t)time(NULL);
    hsc_store_t *s = NULL;
    hsc_status_t st;
    int rc, n = 0;

    if (a->npos < 3 || (id == NULL) == !(a->given & OPT_ALL)
        || (a->given & ~(OPT_ALL | OPT_AUDIT))) {
        return usage_error("token revoke DB USER ID, or DB USER --all");
    }
    if ((rc = check_user(user)) != EX_OK
        || (rc = open_store(db, 0, &s)) != EX_OK) {
        return rc;
    }
    if ((rc = token_owner(s, user)) == EX_OK) {
        st = hsc_tokens_revoke(s, user, id, now, &n);
        if (st != HSC_OK) {
            rc = tokens_fail(s, user, id, st);
        }
        else {
            printf("%s: %d token%s revoked\n", user, n, n == 1 ? "" : "s");
        }
    }
    hsc_store_close(s);
    return rc;
}

int cmd_token(apr_pool_t *pool, const char *name, const args_t *a)
{
    const char *sub = a->pos[0];

    (void)pool;
    (void)name;
    if (strcmp(sub, "add") == 0) {
        return token_add(a);
    }
    if (a->given & (OPT_NAME | OPT_SCOPES | OPT_EXPIRES)) {
        return usage_error("--name, --scopes and --expires go with token add");
    }
    if (strcmp(sub, "list") == 0) {
        return token_list(a);
    }
    if (strcmp(sub, "revoke") == 0) {
        return token_revoke(a);
    }
    return usage_error("token: add, list or revoke");
}

/* show: "tokens: N live of M", then "token: ..." a token. */
typedef struct {
    int64_t now;
    int live, all;
    int print;
} show_baton_t;

static int token_show_one(void *baton, const hsc_token_t *t)
{
    show_baton_t *b = baton;
    char cr[32], ex[32], state[64];

    if (!b->print) {
        b->all++;
        b->live += t->revoked == 0 && (t->expires == 0 || b->now < t->expires);
        return 0;
    }
    printf("token: %s \"%s\", scopes %s, created %s, expires %s, %s\n", t->id,
           t->name, t->scopes[0] ? t->scopes : "-",
           utc(t->created, cr, sizeof(cr)),
           t->expires ? utc(t->expires, ex, sizeof(ex)) : "never",
           token_state(t, b->now, state, sizeof(state)));
    return 0;
}

int show_tokens(hsc_store_t *s, const char *user)
{
    show_baton_t b = {(int64_t)time(NULL), 0, 0, 0};
    hsc_status_t st;

    /* Counted first, so the count heads the list. */
    st = hsc_tokens_list(s, user, token_show_one, &b);
    if (st == HSC_OK) {
        printf("tokens: %d live, %d in all\n", b.live, b.all);
        b.print = 1;
        st = hsc_tokens_list(s, user, token_show_one, &b);
    }
    if (st != HSC_OK) {
        return fail(store_exit(st), "%s: tokens: %s (%s)", user,
                    hsc_strerror(st), hsc_store_errmsg(s));
    }
    return EX_OK;
}
