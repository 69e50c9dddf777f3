/*
 * hsc_policy.c: the new-password policy (hsc_policy.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apr_file_io.h"
#include "apr_strings.h"

#include "hsc_policy.h"

/* A blocklist file larger than this is refused: the shipped one is 30 kB,
 * the largest lists people use (a million entries) about 8 MB. */
#define HSC_BLOCKLIST_MAX_BYTES (16 * 1024 * 1024)

struct hsc_blocklist {
    char **words; /* folded, sorted, unique */
    size_t n;
};

static char fold(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Compare a folded word with len bytes of s, folding s as it goes. */
static int cmp_folded(const char *word, const char *s, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++) {
        unsigned char a = (unsigned char)word[i], b = (unsigned char)fold(s[i]);
        if (a == '\0') {
            return -1;
        }
        if (a != b) {
            return a < b ? -1 : 1;
        }
    }
    return word[len] == '\0' ? 0 : 1;
}

static int cmp_words(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Parse text (NUL-terminated, modified in place, kept by the list). */
static hsc_blocklist_t *parse_list(apr_pool_t *p, char *text, size_t len)
{
    hsc_blocklist_t *b = apr_pcalloc(p, sizeof(*b));
    char *line, *next;
    size_t cap = 0, i, j;

    for (i = 0; i < len; i++) {
        cap += text[i] == '\n';
    }
    b->words = apr_palloc(p, (cap + 1) * sizeof(char *));
    for (line = text; line != NULL && *line != '\0'; line = next) {
        size_t n;
        next = strchr(line, '\n');
        if (next != NULL) {
            *next++ = '\0';
        }
        n = strlen(line);
        if (n > 0 && line[n - 1] == '\r') {
            line[--n] = '\0';
        }
        if (n == 0 || line[0] == '#') {
            continue;
        }
        for (j = 0; j < n; j++) {
            line[j] = fold(line[j]);
        }
        b->words[b->n++] = line;
    }
    qsort(b->words, b->n, sizeof(char *), cmp_words);
    for (i = j = 0; i < b->n; i++) { /* drop repeats */
        if (j == 0 || strcmp(b->words[j - 1], b->words[i]) != 0) {
            b->words[j++] = b->words[i];
        }
    }
    b->n = j;
    return b;
}

hsc_status_t hsc_blocklist_load(apr_pool_t *p, const char *path,
                                hsc_blocklist_t **out, char *errbuf,
                                size_t errlen)
{
    apr_finfo_t fi;
    apr_file_t *f;
    apr_size_t got;
    apr_status_t rv;
    char *text, msg[120];

    *out = NULL;
    rv = apr_file_open(&f, path, APR_FOPEN_READ, 0, p);
    if (rv == APR_SUCCESS) {
        rv = apr_file_info_get(&fi, APR_FINFO_SIZE, f);
        if (rv != APR_SUCCESS) {
            apr_file_close(f);
        }
    }
    if (rv != APR_SUCCESS) {
        snprintf(errbuf, errlen, "cannot read %s: %s", path,
                 apr_strerror(rv, msg, sizeof(msg)));
        return HSC_EIO;
    }
    if (fi.size > HSC_BLOCKLIST_MAX_BYTES) {
        apr_file_close(f);
        snprintf(errbuf, errlen, "%s is over %d bytes", path,
                 HSC_BLOCKLIST_MAX_BYTES);
        return HSC_ETOOLONG;
    }
    text = apr_palloc(p, (apr_size_t)fi.size + 1);
    rv = apr_file_read_full(f, text, (apr_size_t)fi.size, &got);
    apr_file_close(f);
    if (rv != APR_SUCCESS && rv != APR_EOF) {
        snprintf(errbuf, errlen, "cannot read %s: %s", path,
                 apr_strerror(rv, msg, sizeof(msg)));
        return HSC_EIO;
    }
    text[got] = '\0';
    *out = parse_list(p, text, got);
    return HSC_OK;
}

/* conf/password-blocklist.txt, compiled in (build-aux/sql2c.sh). */
extern const char *const hsc_blocklist_text[];

const hsc_blocklist_t *hsc_blocklist_builtin(apr_pool_t *p)
{
    size_t len = strlen(hsc_blocklist_text[0]);

    return parse_list(p, apr_pstrmemdup(p, hsc_blocklist_text[0], len), len);
}

size_t hsc_blocklist_size(const hsc_blocklist_t *b)
{
    return b ? b->n : 0;
}

int hsc_blocklist_has(const hsc_blocklist_t *b, const char *pw, size_t len)
{
    size_t lo = 0, hi;

    if (b == NULL) {
        return 0;
    }
    hi = b->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_folded(b->words[mid], pw, len);
        if (c == 0) {
            return 1;
        }
        if (c < 0) {
            lo = mid + 1;
        }
        else {
            hi = mid;
        }
    }
    return 0;
}

long hsc_utf8_chars(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    long n = 0;

    while (i < len) {
        unsigned c = u[i], need, cp, k;
        if (c < 0x80) {
            if (c < 0x20 || c == 0x7f) {
                return -1;
            }
            i++;
            n++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf) {
            need = 1;
            cp = c & 0x1f;
        }
        else if (c >= 0xe0 && c <= 0xef) {
            need = 2;
            cp = c & 0x0f;
        }
        else if (c >= 0xf0 && c <= 0xf4) {
            need = 3;
            cp = c & 0x07;
        }
        else {
            return -1;
        }
        if (i + need >= len) { /* cut short */
            return -1;
        }
        for (k = 1; k <= need; k++) {
            if ((u[i + k] & 0xc0) != 0x80) {
                return -1;
            }
            cp = (cp << 6) | (u[i + k] & 0x3f);
        }
        /* Overlong forms, UTF-16 surrogates and past U+10FFFF. */
        if ((need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000)
            || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
            return -1;
        }
        i += need + 1;
        n++;
    }
    return n;
}

hsc_policy_verdict_t hsc_policy_check(const hsc_blocklist_t *b, int min_chars,
                                      const char *user, const char *pw,
                                      size_t len)
{
    long chars;

    if (len > HSC_POLICY_MAX_BYTES) {
        return HSC_POLICY_LONG;
    }
    if ((chars = hsc_utf8_chars(pw, len)) < 0) {
        return HSC_POLICY_NOT_TEXT;
    }
    if (chars < min_chars) {
        return HSC_POLICY_SHORT;
    }
    if (user != NULL && strlen(user) == len) {
        size_t i;
        for (i = 0; i < len && fold(user[i]) == fold(pw[i]); i++) {
        }
        if (i == len) {
            return HSC_POLICY_USERNAME;
        }
    }
    if (hsc_blocklist_has(b, pw, len)) {
        return HSC_POLICY_LISTED;
    }
    return HSC_POLICY_OK;
}

const char *hsc_policy_message(apr_pool_t *p, hsc_policy_verdict_t v,
                               int min_chars)
{
    switch (v) {
    case HSC_POLICY_OK: return "";
    case HSC_POLICY_SHORT:
        return apr_psprintf(
            p,
            "The new password is too short: use at least %d "
            "characters. A few unrelated words make a good one.",
            min_chars);
    case HSC_POLICY_LONG:
        return apr_psprintf(p,
                            "The new password is too long: at most %d bytes.",
                            HSC_POLICY_MAX_BYTES);
    case HSC_POLICY_NOT_TEXT:
        return "The new password holds a character that cannot be used "
               "(a control character, or text that is not UTF-8).";
    case HSC_POLICY_USERNAME:
        return "The new password cannot be your username.";
    case HSC_POLICY_LISTED:
        return "The new password is on a list of commonly used passwords. "
               "Choose another.";
    }
    return "";
}

const char *hsc_policy_name(hsc_policy_verdict_t v)
{
    static const char *const names[] = {"ok",       "short",    "long",
                                        "not_text", "username", "listed"};

    return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}
