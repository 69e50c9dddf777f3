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
    free(text);
    apr_pool_destroy(p);
    return 0;
}
