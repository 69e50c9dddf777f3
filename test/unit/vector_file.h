/*
 * vector_file.h: the reader of the test vector files (test/vectors-v*.txt):
 * blocks of "key = value" lines, separated by a blank line, each opened by
 * an optional line naming its kind ("cookie", "refuse", "totp"; a block
 * without one has kind ""). Lines starting with '#' are comments.
 *
 * Each block goes to a callback; afterwards every field must have been read
 * (vb_field), so that a vector cannot be skipped silently.
 */
#ifndef VECTOR_FILE_H
#define VECTOR_FILE_H

#include <stdio.h>
#include <string.h>

#include <apr_pools.h>
#include <apr_strings.h>

#include "hsc_b64.h"
#include "hsc_test.h"

#define VB_MAX_FIELDS 24

typedef struct {
    int line;         /* first line of the block, for messages */
    const char *kind; /* "" when the block names none */
    int n;
    const char *key[VB_MAX_FIELDS];
    const char *val[VB_MAX_FIELDS];
    int used[VB_MAX_FIELDS]; /* the field was read by a check */
} vblock_t;

typedef void vb_check_fn(vblock_t *b);

/*
 * Defined here, static: a header included by each vector test once, so
 * that CHECK counts into that test's one TAP stream (hsc_test.h).
 *
 * vb_field: the value of key, marking it read; NULL when absent.
 * vb_text: as vb_field, with "(empty)" read as "".
 * vb_unhex: hex into out (cap bytes); the length, or -1.
 * vb_bytes: a hex field as bytes (pool memory), *n its length; NULL (and
 *   *n 0) when absent or not hex.
 * vb_b64u: base64url of a hex field's bytes (a challenge as
 *   clientDataJSON has it); "" when absent.
 * vb_read_file: read path, calling check on every block whose kind is one
 *   of kinds (NULL-terminated), and checking it read every field; a block
 *   of another kind, or a line that is no "key = value", fails. Returns the
 *   blocks checked, or -1 when the file does not open.
 */
static const char *vb_field(vblock_t *b, const char *key)
{
    int i;

    for (i = 0; i < b->n; i++) {
        if (strcmp(b->key[i], key) == 0) {
            b->used[i] = 1;
            return b->val[i];
        }
    }
    return NULL;
}

static inline const char *vb_text(vblock_t *b, const char *key)
{
    const char *v = vb_field(b, key);

    return (v != NULL && strcmp(v, "(empty)") == 0) ? "" : v;
}

static long vb_unhex(const char *hex, unsigned char *out, size_t cap)
{
    size_t n = strlen(hex), i;

    if (n % 2 != 0 || n / 2 > cap) {
        return -1;
    }
    for (i = 0; i < n / 2; i++) {
        unsigned int byte;

        if (sscanf(hex + 2 * i, "%2x", &byte) != 1) {
            return -1;
        }
        out[i] = (unsigned char)byte;
    }
    return (long)(n / 2);
}

static inline unsigned char *vb_bytes(vblock_t *b, const char *key,
                                      apr_pool_t *pool, size_t *n)
{
    const char *hex = vb_field(b, key);
    unsigned char *out;
    long got;

    *n = 0;
    if (hex == NULL) {
        return NULL;
    }
    out = apr_palloc(pool, strlen(hex) / 2 + 1);
    got = vb_unhex(hex, out, strlen(hex) / 2 + 1);
    if (got < 0) {
        return NULL;
    }
    *n = (size_t)got;
    return out;
}

static inline const char *vb_b64u(vblock_t *b, const char *key,
                                  apr_pool_t *pool)
{
    size_t n = 0;
    unsigned char *raw = vb_bytes(b, key, pool, &n);
    char *out;

    if (raw == NULL) {
        return "";
    }
    out = apr_palloc(pool, n * 4 / 3 + 4);
    out[hsc_b64url_encode(raw, n, out)] = '\0';
    return out;
}

static int known_kind(const char *kind, const char *const *kinds)
{
    for (; *kinds != NULL; kinds++) {
        if (strcmp(*kinds, kind) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Check one finished block: its kind is known, and every field was read. */
static int finish(vblock_t *b, const char *const *kinds, vb_check_fn *check)
{
    char what[160];
    int i;

    snprintf(what, sizeof(what), "line %d: a block of a known kind (\"%s\")",
             b->line, b->kind);
    CHECK(known_kind(b->kind, kinds), what);
    if (!known_kind(b->kind, kinds)) {
        return 0;
    }
    check(b);
    for (i = 0; i < b->n; i++) {
        snprintf(what, sizeof(what), "line %d: field \"%s\" was checked",
                 b->line, b->key[i]);
        CHECK(b->used[i], what);
    }
    return 1;
}

static int vb_read_file(const char *path, apr_pool_t *pool,
                        const char *const *kinds, vb_check_fn *check)
{
    FILE *f = fopen(path, "r");
    char buf[4096];
    vblock_t b;
    int lineno = 0, blocks = 0, bad_lines = 0, open = 0;

    if (f == NULL) {
        return -1;
    }
    memset(&b, 0, sizeof(b));
    b.kind = "";
    for (;;) {
        char *got = fgets(buf, sizeof(buf), f);
        size_t len;
        char *eq;

        if (got != NULL) {
            lineno++;
            len = strlen(buf);
            while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) {
                buf[--len] = '\0';
            }
        }
        if (got == NULL || buf[0] == '\0') {
            if (open) {
                blocks += finish(&b, kinds, check);
            }
            memset(&b, 0, sizeof(b));
            b.kind = "";
            open = 0;
            if (got == NULL) {
                break;
            }
            continue;
        }
        if (buf[0] == '#') {
            continue;
        }
        if (!open) {
            b.line = lineno;
            open = 1;
            if (strstr(buf, " = ") == NULL) {
                b.kind = apr_pstrdup(pool, buf);
                continue;
            }
        }
        eq = strstr(buf, " = ");
        if (eq == NULL || b.n >= VB_MAX_FIELDS) {
            printf("# line %d: not \"key = value\"\n", lineno);
            bad_lines++;
            continue;
        }
        b.key[b.n] = apr_pstrndup(pool, buf, (apr_size_t)(eq - buf));
        b.val[b.n] = apr_pstrdup(pool, eq + 3);
        b.n++;
    }
    fclose(f);
    CHECK_EQ(bad_lines, 0, "every line is a comment, a key = value or blank");
    return blocks;
}

#endif /* VECTOR_FILE_H */
