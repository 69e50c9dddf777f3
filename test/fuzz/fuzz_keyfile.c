/*
 * fuzz_keyfile.c: hsc_keyring_parse() on key file text (operator input: a
 * typo or a truncated copy must be a clear refusal, never a crash).
 *
 * Properties (each aborts when violated):
 *   - HSC_OK: a ring with at least one key, and a signer whose id is valid,
 *     appears in the text, and finds the signer again;
 *   - a refusal is HSC_EINVAL (content) with no ring and a message;
 *   - the signer MACs (the derived key works).
 * And of hsc_keyfile_prepend() (hsc-admin keygen's rotation) with a fixed
 * new key line:
 *   - HSC_OK exactly when the text loads and lacks the new key id
 *     (HSC_EEXISTS when it has it, HSC_EINVAL when it does not load);
 *   - the result is the text with the line inserted at one place (a text
 *     that loads has a key line, so no '\n' is ever added); it loads,
 *     has the new key as its signer and one key more, and the old
 *     signer is still found;
 *   - a refusal leaves no output and says why.
 */
#include <string.h>

#include <apr_general.h>
#include <apr_pools.h>

#include "hsc_fuzz.h"
#include "hsc_keys.h"
#include "hsc_keyfile.h"

/* Bounds the work per input; longer inputs are cut. */
#define FUZZ_KEYFILE_MAX 16384

static apr_pool_t *root;

/* 1 when the len bytes at hay hold the string needle. */
static int contains(const char *hay, size_t len, const char *needle)
{
    size_t n = strlen(needle), i;

    for (i = 0; n <= len && i <= len - n; i++) {
        if (memcmp(hay + i, needle, n) == 0) {
            return 1;
        }
    }
    return 0;
}

#define ROT_LINE "zzrotate AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8\n"

/* The rotation properties for text, which loaded as kr (or did not). */
static void check_prepend(apr_pool_t *p, const char *text, size_t size,
                          const hsc_keyring_t *kr)
{
    char *out = (char *)&root;
    size_t outlen = 7, ll = strlen(ROT_LINE), at;
    int count = -1;
    const char *msg = "unset";
    hsc_keyring_t *nr = NULL;
    hsc_status_t st;

    st = hsc_keyfile_prepend(p, "fuzz.keys", text, size, ROT_LINE, &out,
                             &outlen, &count, &msg);
    if (kr == NULL) {
        HSC_FUZZ_ASSERT(st == HSC_EINVAL);
    }
    else if (hsc_keyring_find(kr, "zzrotate", 8) != NULL) {
        HSC_FUZZ_ASSERT(st == HSC_EEXISTS);
    }
    else {
        HSC_FUZZ_ASSERT(st == HSC_OK);
    }
    if (st != HSC_OK) {
        HSC_FUZZ_ASSERT(out == NULL && outlen == 0 && count == 0);
        HSC_FUZZ_ASSERT(msg != NULL && msg[0] != '\0');
        return;
    }
    HSC_FUZZ_ASSERT(msg == NULL && out != NULL);
    HSC_FUZZ_ASSERT(outlen == size + ll);
    HSC_FUZZ_ASSERT(out[outlen] == '\0');
    /* The line sits at the start of a line (the same bytes may also
     * stand in a comment); around it, the text is unchanged. */
    for (at = 0; at + ll <= outlen; at++) {
        if ((at == 0 || out[at - 1] == '\n')
            && memcmp(out + at, ROT_LINE, ll) == 0 && at <= size
            && memcmp(out, text, at) == 0
            && memcmp(out + at + ll, text + at, size - at) == 0) {
            break;
        }
    }
    HSC_FUZZ_ASSERT(at + ll <= outlen);
    HSC_FUZZ_ASSERT(hsc_keyring_parse(p, "rotated", out, outlen, &nr, &msg)
                    == HSC_OK);
    HSC_FUZZ_ASSERT(count == hsc_keyring_count(kr) + 1
                    && count == hsc_keyring_count(nr));
    HSC_FUZZ_ASSERT(strcmp(hsc_key_id(hsc_keyring_signer(nr)), "zzrotate")
                    == 0);
    HSC_FUZZ_ASSERT(hsc_keyring_find(nr, hsc_key_id(hsc_keyring_signer(kr)),
                                     strlen(hsc_key_id(hsc_keyring_signer(kr))))
                    != NULL);
}

/* The other rotation steps of several nodes (hsc-admin keygen
 * --verify-only, --sign KID, --retire KID) on the same text: each either
 * refuses with a reason and no output, or gives a file that loads with the
 * signer and the number of keys the step promises. */
static void check_rotate(apr_pool_t *p, const char *text, size_t size,
                         const hsc_keyring_t *kr)
{
    const char *signer = kr ? hsc_key_id(hsc_keyring_signer(kr)) : NULL;
    const char *last = kr ? hsc_key_id(
                           hsc_keyring_key(kr, hsc_keyring_count(kr) - 1))
                          : NULL;
    static const struct {
        hsc_rotate_t op;
        int which; /* arg: 0 the new line, 1 the last key, 2 the signer,
                    * 3 an id the file does not usually have */
    } steps[] = {
        {HSC_ROTATE_VERIFY_ONLY, 0}, {HSC_ROTATE_PROMOTE, 1},
        {HSC_ROTATE_RETIRE, 1},      {HSC_ROTATE_RETIRE, 2},
        {HSC_ROTATE_PROMOTE, 3},     {HSC_ROTATE_RETIRE, 3},
    };
    size_t i;

    for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        const char *arg = steps[i].which == 0   ? ROT_LINE
                          : steps[i].which == 1 ? last
                          : steps[i].which == 2 ? signer
                                                : "zz-not-there";
        char *out = (char *)&root;
        size_t outlen = 7;
        int count = -1, want;
        const char *msg = "unset", *nmsg = NULL;
        hsc_keyring_t *nr = NULL;
        hsc_status_t st;

        if (kr == NULL && steps[i].which != 0) {
            continue; /* no key id to name */
        }
        st = hsc_keyfile_rotate(p, "fuzz.keys", text, size, steps[i].op, arg,
                                &out, &outlen, &count, &msg);
        if (kr == NULL) {
            HSC_FUZZ_ASSERT(st == HSC_EINVAL);
        }
        if (steps[i].which == 3
            && hsc_keyring_find(kr, arg, strlen(arg)) == NULL) {
            /* The fuzzer does write "zz-not-there" into a file (its
             * dictionary learns the string): then the id is a key like
             * any other, checked below. */
            HSC_FUZZ_ASSERT(st == HSC_ENOKEY);
        }
        if (steps[i].op == HSC_ROTATE_RETIRE && kr != NULL
            && strcmp(arg, signer) == 0) {
            /* Never the signing key: EEXISTS, or ENOKEY where the file's
             * line ends are not '\n' and its line is not found. */
            HSC_FUZZ_ASSERT(st == HSC_EEXISTS || st == HSC_ENOKEY);
        }
        if (st != HSC_OK) {
            HSC_FUZZ_ASSERT(out == NULL && outlen == 0 && count == 0);
            HSC_FUZZ_ASSERT(msg != NULL && msg[0] != '\0');
            continue;
        }
        HSC_FUZZ_ASSERT(kr != NULL && msg == NULL && out != NULL);
        HSC_FUZZ_ASSERT(out[outlen] == '\0');
        HSC_FUZZ_ASSERT(hsc_keyring_parse(p, "rotated", out, outlen, &nr, &nmsg)
                        == HSC_OK);
        HSC_FUZZ_ASSERT(count == hsc_keyring_count(nr));
        want = hsc_keyring_count(kr) + (steps[i].op == HSC_ROTATE_VERIFY_ONLY)
               - (steps[i].op == HSC_ROTATE_RETIRE);
        HSC_FUZZ_ASSERT(count == want);
        switch (steps[i].op) {
        case HSC_ROTATE_VERIFY_ONLY: /* staged: the old signer still signs */
            HSC_FUZZ_ASSERT(strcmp(hsc_key_id(hsc_keyring_signer(nr)), signer)
                            == 0);
            HSC_FUZZ_ASSERT(hsc_keyring_find(nr, "zzrotate", 8) != NULL);
            break;
        case HSC_ROTATE_PROMOTE: /* the named key signs, every key stays */
            HSC_FUZZ_ASSERT(strcmp(hsc_key_id(hsc_keyring_signer(nr)), arg)
                            == 0);
            HSC_FUZZ_ASSERT(hsc_keyring_find(nr, signer, strlen(signer))
                            != NULL);
            break;
        default: /* RETIRE: gone, and the signer unchanged */
            HSC_FUZZ_ASSERT(hsc_keyring_find(nr, arg, strlen(arg)) == NULL);
            HSC_FUZZ_ASSERT(strcmp(hsc_key_id(hsc_keyring_signer(nr)), signer)
                            == 0);
            break;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p = NULL;
    hsc_keyring_t *kr = (hsc_keyring_t *)&root; /* must be overwritten */
    const char *msg = "unset";
    const hsc_key_t *signer, *again;
    const char *kid;
    unsigned char mac[HSC_MAC_LEN];
    char *text;
    hsc_status_t st;

    if (root == NULL) {
        if (apr_initialize() != APR_SUCCESS
            || apr_pool_create(&root, NULL) != APR_SUCCESS) {
            abort();
        }
    }
    if (size > FUZZ_KEYFILE_MAX) {
        size = FUZZ_KEYFILE_MAX;
    }
    if (apr_pool_create(&p, root) != APR_SUCCESS) {
        abort();
    }
    /* Exactly size bytes, not NUL-terminated: the length bounds the read. */
    text = malloc(size ? size : 1);
    if (text == NULL) {
        apr_pool_destroy(p);
        return 0;
    }
    if (size) {
        memcpy(text, data, size);
    }

    st = hsc_keyring_parse(p, "fuzz.keys", text, size, &kr, &msg);
    if (st != HSC_OK) {
        HSC_FUZZ_ASSERT(st == HSC_EINVAL);
        HSC_FUZZ_ASSERT(kr == NULL);
        HSC_FUZZ_ASSERT(msg != NULL && msg[0] != '\0');
        HSC_FUZZ_ASSERT(strlen(msg) < 4096);
    }
    else {
        HSC_FUZZ_ASSERT(kr != NULL && kr != (hsc_keyring_t *)&root);
        HSC_FUZZ_ASSERT(hsc_keyring_count(kr) >= 1);
        signer = hsc_keyring_signer(kr);
        HSC_FUZZ_ASSERT(signer != NULL);
        kid = hsc_key_id(signer);
        HSC_FUZZ_ASSERT(kid != NULL);
        HSC_FUZZ_ASSERT(hsc_kid_valid(kid, strlen(kid)));
        again = hsc_keyring_find(kr, kid, strlen(kid));
        HSC_FUZZ_ASSERT(again == signer);
        /* The id came from the text. */
        HSC_FUZZ_ASSERT(contains(text, size, kid));
        HSC_FUZZ_ASSERT(hsc_key_mac3(signer, "a", 1, "", 0, "b", 1, mac)
                        == HSC_OK);
    }
    check_prepend(p, text, size, st == HSC_OK ? kr : NULL);
    check_rotate(p, text, size, st == HSC_OK ? kr : NULL);
    free(text);
    apr_pool_destroy(p);
    return 0;
}
