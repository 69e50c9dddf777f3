/*
 * hsc_keyfile.c: the key file as text (hsc_keyfile.h): a new key line, and
 * the rewrites of hsc-admin keygen (a new signing key first, a key staged
 * verify-only, promoted, retired), each checked by loading the result with
 * hsc_keyring_parse. hsc_keys.c holds the keyring itself.
 */
#include <string.h>
#include <time.h>

#include <apr_strings.h>

#include "hsc_keyfile.h"
#include "hsc_b64.h"

hsc_status_t hsc_key_generate_line(const char *kid, char *buf, size_t buflen)
{
    static const char alpha
        [] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char secret[32];
    char genkid[HSC_KID_MAX + 1];
    char b64[HSC_B64URL_LEN(sizeof(secret)) + 1];
    size_t kidlen, need;
    hsc_status_t rv;

    if (buf != NULL && buflen > 0) {
        buf[0] = '\0';
    }
    if (buf == NULL) {
        return HSC_EINVAL;
    }
    if (kid == NULL) {
        /* k<YYYYMMDD>-<6 random alphanumerics>, e.g. k20261203-Q7tb2X */
        unsigned char rnd[6];
        time_t t = time(NULL);
        struct tm tm;
        size_t i, n;

        if (gmtime_r(&t, &tm) == NULL) {
            return HSC_EINVAL;
        }
        n = strftime(genkid, sizeof(genkid), "k%Y%m%d-", &tm);
        if (n == 0 || hsc_random(rnd, sizeof(rnd)) != HSC_OK) {
            return HSC_ECRYPTO;
        }
        for (i = 0; i < sizeof(rnd) && n < HSC_KID_MAX; i++) {
            /* 62 does not divide 256; the slight bias is harmless in a
             * public key id. */
            genkid[n++] = alpha[rnd[i] % (sizeof(alpha) - 1)];
        }
        genkid[n] = '\0';
        kid = genkid;
    }
    kidlen = strlen(kid);
    if (!hsc_kid_valid(kid, kidlen)) {
        return HSC_EINVAL;
    }
    need = kidlen + 1 + HSC_B64URL_LEN(sizeof(secret)) + 2;
    if (buflen < need) {
        return HSC_EINVAL;
    }
    rv = hsc_random(secret, sizeof(secret));
    if (rv != HSC_OK) {
        goto cleanup;
    }
    hsc_b64url_encode(secret, sizeof(secret), b64);
    memcpy(buf, kid, kidlen);
    buf[kidlen] = ' ';
    memcpy(buf + kidlen + 1, b64, HSC_B64URL_LEN(sizeof(secret)));
    buf[need - 2] = '\n';
    buf[need - 1] = '\0';

cleanup:
    hsc_wipe(secret, sizeof(secret));
    hsc_wipe(b64, sizeof(b64));
    return rv;
}

/* --- rotation: a new first key -------------------------------------------- */

typedef struct {
    char *buf;
    size_t len;
} wipe_buf_t;

static apr_status_t buf_wipe(void *data)
{
    wipe_buf_t *w = data;

    hsc_wipe(w->buf, w->len);
    return APR_SUCCESS;
}

/* Offset of the first key line of text: past comments and blank lines. */
static size_t first_key_line(const char *text, size_t len)
{
    size_t at = 0;

    while (at < len) {
        size_t end = at, i = at;

        while (end < len && text[end] != '\n') {
            end++;
        }
        while (i < end
               && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) {
            i++;
        }
        if (i < end && text[i] != '#') {
            break;
        }
        at = end < len ? end + 1 : end;
    }
    return at;
}

hsc_status_t hsc_keyfile_prepend(apr_pool_t *p, const char *name,
                                 const char *text, size_t len, const char *line,
                                 char **out, size_t *outlen, int *count,
                                 const char **msg)
{
    hsc_keyring_t *kr = NULL, *nr = NULL;
    size_t linelen = line ? strlen(line) : 0, at, n;
    const char *kid;
    wipe_buf_t *w;
    int old;
    hsc_status_t st;

    *out = NULL;
    *outlen = 0;
    *count = 0;
    *msg = NULL;
    /* The new line: one key, alone, ending in '\n'. */
    if (linelen == 0 || line[linelen - 1] != '\n'
        || memchr(line, '\n', linelen - 1) != NULL
        || hsc_keyring_parse(p, "the new key line", line, linelen, &nr, msg)
               != HSC_OK
        || hsc_keyring_count(nr) != 1) {
        *msg = apr_psprintf(p, "%s: the new key line is not one valid key",
                            name);
        return HSC_EINVAL;
    }
    st = hsc_keyring_parse(p, name, text, len, &kr, msg);
    if (st != HSC_OK) {
        *msg = apr_psprintf(p, "%s; not rotating a key file that does not load",
                            *msg ? *msg : hsc_strerror(st));
        return HSC_EINVAL;
    }
    kid = hsc_key_id(hsc_keyring_signer(nr));
    if (hsc_keyring_find(kr, kid, strlen(kid)) != NULL) {
        *msg = apr_psprintf(p, "%s: key id %s is already in the file", name,
                            kid);
        return HSC_EEXISTS;
    }
    old = hsc_keyring_count(kr);

    at = first_key_line(text, len);
    w = apr_palloc(p, sizeof(*w));
    w->len = len + linelen + 2;
    w->buf = apr_palloc(p, w->len);
    apr_pool_cleanup_register(p, w, buf_wipe, apr_pool_cleanup_null);
    memcpy(w->buf, text, at);
    n = at;
    if (at == len && len > 0 && text[len - 1] != '\n') {
        w->buf[n++] = '\n'; /* only comments, the last without '\n' */
    }
    memcpy(w->buf + n, line, linelen);
    n += linelen;
    memcpy(w->buf + n, text + at, len - at);
    n += len - at;
    w->buf[n] = '\0';

    /* The check: the result loads, starts with the new key, adds one. */
    if (hsc_keyring_parse(p, name, w->buf, n, &kr, msg) != HSC_OK
        || strcmp(hsc_key_id(hsc_keyring_signer(kr)), kid) != 0
        || hsc_keyring_count(kr) != old + 1) {
        *msg = apr_psprintf(p,
                            "%s: the rewritten file does not start with the "
                            "new key; left unchanged",
                            name);
        return HSC_EINVAL;
    }
    *msg = NULL;
    *out = w->buf;
    *outlen = n;
    *count = old + 1;
    return HSC_OK;
}

/* --- rotation on several nodes: stage, promote, retire ---------------------
 */

/* [*ls, *le) of the key line whose first word is kid; 0 when none. */
static int find_key_line(const char *text, size_t len, const char *kid,
                         size_t *ls, size_t *le)
{
    size_t at = 0, klen = strlen(kid);

    while (at < len) {
        size_t end = at, i = at;

        while (end < len && text[end] != '\n') {
            end++;
        }
        while (i < end && (text[i] == ' ' || text[i] == '\t')) {
            i++;
        }
        if (end - i > klen && memcmp(text + i, kid, klen) == 0
            && (text[i + klen] == ' ' || text[i + klen] == '\t')) {
            *ls = at;
            *le = end < len ? end + 1 : end;
            return 1;
        }
        at = end < len ? end + 1 : end;
    }
    return 0;
}

/* The text as pieces to join, in order (at most four). */
typedef struct {
    const char *at[4];
    size_t len[4];
    int n;
} pieces_t;

static void piece(pieces_t *pc, const char *at, size_t len)
{
    pc->at[pc->n] = at;
    pc->len[pc->n++] = len;
}

/* --verify-only's new line: one valid key line; *kid its id. */
static hsc_status_t new_key_line(apr_pool_t *p, const char *name,
                                 const char *line, size_t len, const char **kid,
                                 const char **msg)
{
    hsc_keyring_t *nr = NULL;

    if (len == 0 || line[len - 1] != '\n' || memchr(line, '\n', len - 1) != NULL
        || hsc_keyring_parse(p, "the new key line", line, len, &nr, msg)
               != HSC_OK
        || hsc_keyring_count(nr) != 1) {
        *msg = apr_psprintf(p, "%s: the new key line is not one valid key",
                            name);
        return HSC_EINVAL;
    }
    *kid = hsc_key_id(hsc_keyring_signer(nr));
    return HSC_OK;
}

/*
 * The pieces of the rewritten text t (len bytes, every line ending in
 * '\n') for op on kid; *want_signer and *want: the signer and the key count
 * the result must have. HSC_OK, or the refusal with *msg.
 */
static hsc_status_t plan_rotation(apr_pool_t *p, const char *name,
                                  const hsc_keyring_t *kr, const char *t,
                                  size_t len, hsc_rotate_t op, const char *arg,
                                  const char *kid, const char **want_signer,
                                  int *want, pieces_t *pc, const char **msg)
{
    size_t ls = 0, le = 0, at;

    pc->n = 0;
    if (op == HSC_ROTATE_VERIFY_ONLY) {
        if (hsc_keyring_find(kr, kid, strlen(kid)) != NULL) {
            *msg = apr_psprintf(p, "%s: key id %s is already in the file", name,
                                kid);
            return HSC_EEXISTS;
        }
        piece(pc, t, len);
        piece(pc, arg, strlen(arg));
        ++*want;
        return HSC_OK;
    }
    if (hsc_keyring_find(kr, kid, strlen(kid)) == NULL
        || !find_key_line(t, len, kid, &ls, &le)) {
        *msg = apr_psprintf(p, "%s: no key %s in the file", name, kid);
        return HSC_ENOKEY;
    }
    if (op == HSC_ROTATE_RETIRE) {
        if (strcmp(*want_signer, kid) == 0) {
            *msg = apr_psprintf(p,
                                "%s: %s is the signing key; make another key "
                                "sign first (--sign ID)",
                                name, kid);
            return HSC_EEXISTS;
        }
        piece(pc, t, ls);
        piece(pc, t + le, len - le);
        --*want;
        return HSC_OK;
    }
    /* PROMOTE: the key line is at or after the first key line */
    at = first_key_line(t, len);
    piece(pc, t, at);
    piece(pc, t + ls, le - ls);
    piece(pc, t + at, ls - at);
    piece(pc, t + le, len - le);
    *want_signer = kid;
    return HSC_OK;
}

hsc_status_t hsc_keyfile_rotate(apr_pool_t *p, const char *name,
                                const char *text, size_t len, hsc_rotate_t op,
                                const char *arg, char **out, size_t *outlen,
                                int *count, const char **msg)
{
    hsc_keyring_t *kr = NULL;
    const char *kid = arg, *want_signer;
    size_t n = 0, linelen = 0;
    pieces_t pc;
    int k, want;
    wipe_buf_t *w;
    char *t;
    hsc_status_t st;

    if (op == HSC_ROTATE_SIGN) {
        return hsc_keyfile_prepend(p, name, text, len, arg, out, outlen, count,
                                   msg);
    }
    *out = NULL;
    *outlen = 0;
    *count = 0;
    *msg = NULL;
    if (arg == NULL) {
        *msg = apr_psprintf(p, "%s: no key given", name);
        return HSC_EINVAL;
    }
    if (op == HSC_ROTATE_VERIFY_ONLY
        && (st = new_key_line(p, name, arg, linelen = strlen(arg), &kid, msg))
               != HSC_OK) {
        return st;
    }
    st = hsc_keyring_parse(p, name, text, len, &kr, msg);
    if (st != HSC_OK) {
        *msg = apr_psprintf(p, "%s; not rotating a key file that does not load",
                            *msg ? *msg : hsc_strerror(st));
        return HSC_EINVAL;
    }
    want_signer = apr_pstrdup(p, hsc_key_id(hsc_keyring_signer(kr)));
    want = hsc_keyring_count(kr);

    /* A working copy whose every line ends in '\n': lines can move. */
    w = apr_palloc(p, sizeof(*w));
    w->len = 2 * (len + linelen + 2);
    w->buf = apr_palloc(p, w->len);
    apr_pool_cleanup_register(p, w, buf_wipe, apr_pool_cleanup_null);
    t = w->buf + len + linelen + 2;
    memcpy(t, text, len);
    if (len > 0 && t[len - 1] != '\n') {
        t[len++] = '\n';
    }
    st = plan_rotation(p, name, kr, t, len, op, arg, kid, &want_signer, &want,
                       &pc, msg);
    if (st != HSC_OK) {
        return st;
    }
    for (k = 0; k < pc.n; ++k) {
        memcpy(w->buf + n, pc.at[k], pc.len[k]);
        n += pc.len[k];
    }
    w->buf[n] = '\0';

    /* The check: it loads, the expected key signs, the count is right,
     * and a retired key is gone. */
    if (hsc_keyring_parse(p, name, w->buf, n, &kr, msg) != HSC_OK
        || strcmp(hsc_key_id(hsc_keyring_signer(kr)), want_signer) != 0
        || hsc_keyring_count(kr) != want
        || (op == HSC_ROTATE_RETIRE
            && hsc_keyring_find(kr, kid, strlen(kid)) != NULL)) {
        *msg = apr_psprintf(p,
                            "%s: the rewritten file is not what was asked; "
                            "left unchanged",
                            name);
        return HSC_EINVAL;
    }
    *msg = NULL;
    *out = w->buf;
    *outlen = n;
    *count = want;
    return HSC_OK;
}
