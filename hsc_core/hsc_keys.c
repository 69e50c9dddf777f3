/*
 * hsc_keys.c: the key file (hsc-v1.md, "Keys") and the cookie MAC.
 */
#include <string.h>
#include <time.h>

#include <apr_strings.h>
#include <apr_file_io.h>
#include <apr_file_info.h>

/*
 * hsc_key_mac3() runs on every request: its HMAC states are made once at
 * load time (hsc_hmac.h says why). The labelled keys below them are made
 * with OpenSSL's one-shot HMAC(), once per key.
 */
#include <openssl/hmac.h>
#include <openssl/evp.h>

#include "hsc_keys.h"
#include "hsc_b64.h"
#include "hsc_hmac.h"

/* The label that derives the MAC key from a key file secret. */
#define MAC_KEY_LABEL "hsc-cookie-mac-v1"
#define SEAL_KEY_LABEL "hsc-factor-seal-v1"
#define CHALLENGE_KEY_LABEL "hsc-webauthn-challenge-v1"
/* A secret longer than this is refused (nobody needs more than 256). */
#define SECRET_MAX 256
/* A key file larger than this is refused before it is read. */
#define KEYFILE_MAX (1024 * 1024)

struct hsc_key {
    char kid[HSC_KID_MAX + 1];
    size_t kid_len;
    hsc_hmac_key_t mac; /* the cookie MAC key K's HMAC states */
    /* HMAC-SHA256(secret, SEAL_KEY_LABEL): the AEAD key that seals second
     * factors' secrets (hsc_seal.c); its own label, so it is no cookie
     * MAC key and the cookie MAC key is not it. */
    unsigned char seal[HSC_MAC_LEN];
    /* HMAC-SHA256(secret, CHALLENGE_KEY_LABEL): the MAC key of WebAuthn
     * challenges (hsc_wa_challenge.c), again a key of its own. */
    unsigned char challenge[HSC_MAC_LEN];
};

struct hsc_keyring {
    hsc_key_t *keys; /* file order; keys[0] signs */
    int nkeys;
    int nalloc;
};

int hsc_kid_valid(const char *kid, size_t len)
{
    size_t i;

    if (kid == NULL || len == 0 || len > HSC_KID_MAX) {
        return 0;
    }
    for (i = 0; i < len; i++) {
        char c = kid[i];

        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
              || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
            return 0;
        }
    }
    return 1;
}

/* Pool cleanup: wipe every key state (they are key-equivalent). */
static apr_status_t keyring_wipe(void *data)
{
    hsc_keyring_t *kr = data;

    if (kr->keys != NULL) {
        hsc_wipe(kr->keys, sizeof(*kr->keys) * (size_t)kr->nalloc);
    }
    kr->nkeys = 0;
    return APR_SUCCESS;
}

/*
 * Fill k's HMAC states from a secret: K = HMAC-SHA256(secret, label), then
 * the inner and outer states of HMAC-SHA256 keyed with K (RFC 2104; K is
 * 32 bytes, shorter than the 64-byte block, so it is zero-padded).
 */
static hsc_status_t key_setup(hsc_key_t *k, const unsigned char *secret,
                              size_t secret_len)
{
    unsigned char K[HSC_MAC_LEN];
    unsigned int klen = 0;
    hsc_status_t rv = HSC_ECRYPTO;

    if (HMAC(EVP_sha256(), secret, (int)secret_len,
             (const unsigned char *)MAC_KEY_LABEL, sizeof(MAC_KEY_LABEL) - 1, K,
             &klen)
            == NULL
        || klen != sizeof(K)) {
        goto cleanup;
    }
    if (HMAC(EVP_sha256(), secret, (int)secret_len,
             (const unsigned char *)SEAL_KEY_LABEL, sizeof(SEAL_KEY_LABEL) - 1,
             k->seal, &klen)
            == NULL
        || klen != sizeof(k->seal)) {
        goto cleanup;
    }
    if (HMAC(EVP_sha256(), secret, (int)secret_len,
             (const unsigned char *)CHALLENGE_KEY_LABEL,
             sizeof(CHALLENGE_KEY_LABEL) - 1, k->challenge, &klen)
            == NULL
        || klen != sizeof(k->challenge)) {
        goto cleanup;
    }
    if (hsc_hmac_key_init(&k->mac, K, sizeof(K)) != HSC_OK) {
        goto cleanup;
    }
    rv = HSC_OK;

cleanup:
    hsc_wipe(K, sizeof(K));
    if (rv != HSC_OK) {
        hsc_hmac_key_wipe(&k->mac);
        hsc_wipe(k->seal, sizeof(k->seal));
        hsc_wipe(k->challenge, sizeof(k->challenge));
    }
    return rv;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* 1 when the line holds nothing to parse (blank, white space or comment). */
static int line_ignored(const char *s, size_t len)
{
    size_t i = 0;

    if (len > 0 && s[0] == '#') {
        return 1;
    }
    while (i < len && is_space(s[i])) {
        i++;
    }
    return i == len;
}

/*
 * Parse one key line into kr->keys[kr->nkeys]. On a fault returns
 * HSC_EINVAL and sets *why to a short static reason (or an allocated one).
 */
static hsc_status_t parse_line(apr_pool_t *p, hsc_keyring_t *kr, const char *s,
                               size_t len, const char **why)
{
    unsigned char secret[SECRET_MAX];
    size_t i = 0, kid_end, sec_start, sec_end, secret_len = 0;
    hsc_key_t *k;
    hsc_status_t rv;
    int j;

    *why = NULL;
    while (i < len && !is_space(s[i])) {
        i++;
    }
    kid_end = i;
    if (!hsc_kid_valid(s, kid_end)) {
        *why = "bad key id (1..32 characters of A-Za-z0-9_-)";
        return HSC_EINVAL;
    }
    for (j = 0; j < kr->nkeys; j++) {
        if (kr->keys[j].kid_len == kid_end
            && memcmp(kr->keys[j].kid, s, kid_end) == 0) {
            *why = apr_psprintf(p, "duplicate key id \"%.*s\"", (int)kid_end,
                                s);
            return HSC_EINVAL;
        }
    }
    while (i < len && is_space(s[i])) {
        i++;
    }
    sec_start = i;
    while (i < len && !is_space(s[i])) {
        i++;
    }
    sec_end = i;
    while (i < len && is_space(s[i])) {
        i++;
    }
    if (sec_start == sec_end) {
        *why = "missing secret after the key id";
        return HSC_EINVAL;
    }
    if (i != len) {
        *why = "trailing garbage after the secret";
        return HSC_EINVAL;
    }
    rv = hsc_b64url_decode(s + sec_start, sec_end - sec_start, secret,
                           sizeof(secret), &secret_len);
    if (rv == HSC_ETOOLONG) {
        *why = apr_psprintf(p, "secret longer than %d bytes", SECRET_MAX);
        rv = HSC_EINVAL;
        goto cleanup;
    }
    if (rv != HSC_OK) {
        *why = "secret is not canonical base64url without padding";
        rv = HSC_EINVAL;
        goto cleanup;
    }
    if (secret_len < HSC_SECRET_MIN) {
        *why = apr_psprintf(p, "secret is %lu bytes, at least %d are needed",
                            (unsigned long)secret_len, HSC_SECRET_MIN);
        rv = HSC_EINVAL;
        goto cleanup;
    }
    k = &kr->keys[kr->nkeys];
    memcpy(k->kid, s, kid_end);
    k->kid[kid_end] = '\0';
    k->kid_len = kid_end;
    rv = key_setup(k, secret, secret_len);
    if (rv != HSC_OK) {
        *why = "key derivation failed in the crypto library";
        goto cleanup;
    }
    kr->nkeys++;

cleanup:
    hsc_wipe(secret, sizeof(secret)); /* only K's HMAC states are kept */
    return rv;
}

hsc_status_t hsc_keyring_parse(apr_pool_t *p, const char *name,
                               const char *text, size_t len,
                               hsc_keyring_t **pkr, const char **pmsg)
{
    hsc_keyring_t *kr;
    size_t pos, end;
    int lineno, candidates = 0;
    hsc_status_t rv = HSC_OK;
    const char *why = NULL;

    *pkr = NULL;
    *pmsg = NULL;
    if (name == NULL) {
        name = "(key file)";
    }
    if (text == NULL) {
        len = 0;
    }
    /* First pass: count the lines that may hold a key, to size the ring. */
    for (pos = 0; pos < len; pos = end + 1) {
        const char *nl = memchr(text + pos, '\n', len - pos);

        end = nl ? (size_t)(nl - text) : len;
        if (!line_ignored(text + pos, end - pos)) {
            candidates++;
        }
    }
    if (candidates == 0) {
        *pmsg = apr_psprintf(p, "%s: no key in key file", name);
        return HSC_EINVAL;
    }
    kr = apr_pcalloc(p, sizeof(*kr));
    kr->keys = apr_pcalloc(p, sizeof(*kr->keys) * (size_t)candidates);
    kr->nalloc = candidates;
    apr_pool_cleanup_register(p, kr, keyring_wipe, apr_pool_cleanup_null);

    lineno = 0;
    for (pos = 0; pos < len; pos = end + 1) {
        const char *nl = memchr(text + pos, '\n', len - pos);

        end = nl ? (size_t)(nl - text) : len;
        lineno++;
        if (line_ignored(text + pos, end - pos)) {
            continue;
        }
        rv = parse_line(p, kr, text + pos, end - pos, &why);
        if (rv != HSC_OK) {
            *pmsg = apr_psprintf(p, "%s:%d: %s", name, lineno, why);
            keyring_wipe(kr);
            return rv;
        }
    }
    *pkr = kr;
    return HSC_OK;
}

hsc_status_t hsc_keyring_load(apr_pool_t *p, const char *path,
                              hsc_keyring_t **pkr, const char **pmsg)
{
    apr_file_t *f = NULL;
    apr_finfo_t finfo;
    apr_status_t st;
    char *buf = NULL;
    apr_size_t size = 0, got = 0;
    hsc_status_t rv;
    char err[120];
    int group_other_read;

    *pkr = NULL;
    *pmsg = NULL;
    if (path == NULL) {
        *pmsg = "key file: no path given";
        return HSC_EIO;
    }
    st = apr_file_open(&f, path, APR_FOPEN_READ | APR_FOPEN_BINARY,
                       APR_OS_DEFAULT, p);
    if (st != APR_SUCCESS) {
        *pmsg = apr_psprintf(p, "%s: cannot open key file: %s", path,
                             APR_STATUS_IS_ENOENT(st)
                                 ? "missing (no such file)"
                                 : apr_strerror(st, err, sizeof(err)));
        return HSC_EIO;
    }
    st = apr_file_info_get(&finfo,
                           APR_FINFO_SIZE | APR_FINFO_PROT | APR_FINFO_TYPE, f);
    if (st != APR_SUCCESS) {
        *pmsg = apr_psprintf(p, "%s: cannot stat key file: %s", path,
                             apr_strerror(st, err, sizeof(err)));
        rv = HSC_EIO;
        goto cleanup;
    }
    if (finfo.filetype != APR_REG) {
        *pmsg = apr_psprintf(p, "%s: key file is not a regular file", path);
        rv = HSC_EIO;
        goto cleanup;
    }
    if (finfo.size > KEYFILE_MAX) {
        *pmsg = apr_psprintf(p, "%s: key file larger than %d bytes", path,
                             KEYFILE_MAX);
        rv = HSC_EINVAL;
        goto cleanup;
    }
    group_other_read = (finfo.protection & (APR_GREAD | APR_WREAD)) != 0;
    size = (apr_size_t)finfo.size;
    buf = apr_palloc(p, size + 1);
    if (size > 0) {
        st = apr_file_read_full(f, buf, size, &got);
        if (st != APR_SUCCESS && !(APR_STATUS_IS_EOF(st) && got > 0)) {
            *pmsg = apr_psprintf(p, "%s: cannot read key file: %s", path,
                                 apr_strerror(st, err, sizeof(err)));
            rv = HSC_EIO;
            goto cleanup;
        }
    }
    rv = hsc_keyring_parse(p, path, buf, got, pkr, pmsg);
    if (rv == HSC_OK && group_other_read) {
        *pmsg = apr_psprintf(p,
                             "%s: key file is readable by group or others "
                             "(chmod 600 or 400 it)",
                             path);
    }

cleanup:
    if (buf != NULL) {
        hsc_wipe(buf, size + 1);
    }
    if (f != NULL) {
        apr_file_close(f);
    }
    return rv;
}

const hsc_key_t *hsc_keyring_signer(const hsc_keyring_t *kr)
{
    return (kr != NULL && kr->nkeys > 0) ? &kr->keys[0] : NULL;
}

const hsc_key_t *hsc_keyring_find(const hsc_keyring_t *kr, const char *kid,
                                  size_t kidlen)
{
    int i;

    if (kr == NULL || kid == NULL) {
        return NULL;
    }
    for (i = 0; i < kr->nkeys; i++) {
        if (kr->keys[i].kid_len == kidlen
            && memcmp(kr->keys[i].kid, kid, kidlen) == 0) {
            return &kr->keys[i];
        }
    }
    return NULL;
}

int hsc_keyring_count(const hsc_keyring_t *kr)
{
    return kr != NULL ? kr->nkeys : 0;
}

const hsc_key_t *hsc_keyring_key(const hsc_keyring_t *kr, int i)
{
    return (kr != NULL && i >= 0 && i < kr->nkeys) ? &kr->keys[i] : NULL;
}

const char *hsc_key_id(const hsc_key_t *k)
{
    return k != NULL ? k->kid : "";
}

hsc_status_t hsc_key_mac3(const hsc_key_t *k, const char *part1, size_t len1,
                          const char *part2, size_t len2, const char *part3,
                          size_t len3, unsigned char out[HSC_MAC_LEN])
{
    const hsc_hmac_part_t parts[5] = {{part1, len1},
                                      {"\n", 1},
                                      {part2, len2},
                                      {"\n", 1},
                                      {part3, len3}};

    if (k == NULL) {
        memset(out, 0, HSC_MAC_LEN);
        return HSC_EINVAL;
    }
    return hsc_hmac_sum(&k->mac, parts, 5, out);
}

const unsigned char *hsc_key_seal_secret(const hsc_key_t *k)
{
    return k->seal;
}

const unsigned char *hsc_key_challenge_secret(const hsc_key_t *k)
{
    return k->challenge;
}
