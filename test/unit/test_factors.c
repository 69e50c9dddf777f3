/*
 * test_factors.c: the core pieces second factors are stored with: sealing
 * (hsc_seal.c, AES-256-GCM under the key file's sealing key, purpose and
 * user bound) and recovery codes (hsc_recovery.c).
 */
#include <stdio.h>
#include <string.h>

#include <apr_general.h>
#include <apr_pools.h>

#include "hsc_test.h"
#include "hsc_keys.h"
#include "hsc_recovery.h"
#include "hsc_seal.h"

static apr_pool_t *pool;

static hsc_keyring_t *ring(const char *text)
{
    hsc_keyring_t *kr = NULL;
    const char *msg = NULL;

    if (hsc_keyring_parse(pool, "test", text, strlen(text), &kr, &msg)
        != HSC_OK) {
        printf("# keyring: %s\n", msg ? msg : "?");
    }
    return kr;
}

#define K_OLD "old AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8\n"
#define K_NEW "new ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8\n"

static void seal_opens_only_for_its_user_purpose_and_key(void)
{
    hsc_keyring_t *old = ring(K_OLD), *both = ring(K_NEW K_OLD);
    hsc_keyring_t *only_new = ring(K_NEW);
    const unsigned char secret[20] = "12345678901234567890";
    unsigned char s1[200], s2[200], back[64];
    size_t n1 = 0, n2 = 0, n = 0;
    const hsc_key_t *used = NULL;

    CHECK(old && both && only_new, "three key rings");
    if (!(old && both && only_new)) {
        return;
    }
    CHECK_EQ(hsc_seal(hsc_keyring_signer(old), "totp", "alice", secret, 20, s1,
                      sizeof(s1), &n1),
             HSC_OK, "sealed");
    CHECK_EQ(n1, 1 + 3 + 12 + 20 + 16, "kid, nonce, 20 bytes, tag");
    CHECK(memmem(s1, n1, secret, 20) == NULL, "no plain text in it");
    CHECK(hsc_seal(hsc_keyring_signer(old), "totp", "alice", secret, 20, s2,
                   sizeof(s2), &n2)
                  == HSC_OK
              && n2 == n1 && memcmp(s1, s2, n1) != 0,
          "sealing again gives another value (a fresh nonce)");
    CHECK(hsc_unseal(old, "totp", "alice", s1, n1, back, sizeof(back), &n,
                     &used)
                  == HSC_OK
              && n == 20 && memcmp(back, secret, 20) == 0
              && strcmp(hsc_key_id(used), "old") == 0,
          "opens for alice's totp, with the key that sealed it");
    CHECK_EQ(hsc_unseal(old, "totp", "bob", s1, n1, back, sizeof(back), &n,
                        NULL),
             HSC_EAUTH, "not as bob's (a row copied to another user)");
    CHECK_EQ(hsc_unseal(old, "link", "alice", s1, n1, back, sizeof(back), &n,
                        NULL),
             HSC_EAUTH, "not for another purpose");
    CHECK_EQ(n, 0, "and gives nothing");
    s2[0] = s1[0];
    memcpy(s2, s1, n1);
    s2[n1 - 1] ^= 1;
    CHECK_EQ(hsc_unseal(old, "totp", "alice", s2, n1, back, sizeof(back), &n,
                        NULL),
             HSC_EAUTH, "a flipped bit of the tag");
    memcpy(s2, s1, n1);
    s2[1 + 3 + 12] ^= 0x80;
    CHECK_EQ(hsc_unseal(old, "totp", "alice", s2, n1, back, sizeof(back), &n,
                        NULL),
             HSC_EAUTH, "a flipped bit of the cipher text");
    CHECK_EQ(hsc_unseal(old, "totp", "alice", s1, 10, back, sizeof(back), &n,
                        NULL),
             HSC_EMALFORMED, "a cut value");
    /* Key rotation: a ring whose first key is new still opens it, by its
     * kid; one without the old key cannot. */
    CHECK(hsc_unseal(both, "totp", "alice", s1, n1, back, sizeof(back), &n,
                     &used)
                  == HSC_OK
              && strcmp(hsc_key_id(used), "old") == 0,
          "after a rotation, the old key (still in the file) opens it");
    CHECK_EQ(hsc_unseal(only_new, "totp", "alice", s1, n1, back, sizeof(back),
                        &n, NULL),
             HSC_ENOKEY, "once the old key is gone, it does not open: reseal");
    CHECK(hsc_seal(hsc_keyring_signer(both), "totp", "alice", back, 20, s2,
                   sizeof(s2), &n2)
                  == HSC_OK
              && hsc_unseal(only_new, "totp", "alice", s2, n2, back,
                            sizeof(back), &n, NULL)
                     == HSC_OK,
          "sealed again under the new first key, the new ring opens it");
    CHECK_EQ(hsc_seal(hsc_keyring_signer(old), "totp", "alice", secret, 20, s1,
                      30, &n1),
             HSC_ETOOLONG, "a short buffer");
}

static void recovery_codes_are_typable_and_hashed_per_user(void)
{
    char code[HSC_RECOVERY_SHOWN_SIZE], canon[HSC_RECOVERY_CHARS + 1];
    char first[HSC_RECOVERY_SHOWN_SIZE];
    unsigned char h1[32], h2[32];
    int i, shape = 1, same = 0, seen[256] = {0}, letters = 0;

    for (i = 0; i < 2000; i++) {
        size_t k;

        if (hsc_recovery_new(code) != HSC_OK) {
            shape = 0;
            break;
        }
        if (i == 0) {
            memcpy(first, code, sizeof(first));
        }
        else {
            same += strcmp(code, first) == 0;
        }
        shape &= strlen(code) == 14 && code[4] == '-' && code[9] == '-'
                 && hsc_recovery_normalize(code, 14, canon) == HSC_OK;
        for (k = 0; k < 14; k++) {
            seen[(unsigned char)code[k]]++;
        }
    }
    CHECK(shape, "2,000 codes of the form xxxx-xxxx-xxxx, each normalizes");
    CHECK_EQ(same, 0, "none repeats the first");
    for (i = 0; i < 256; i++) {
        letters += i != '-' && seen[i] > 0;
    }
    CHECK_EQ(letters, 32, "all 32 characters of the alphabet occur");
    CHECK(!seen['i'] && !seen['l'] && !seen['o'] && !seen['u'],
          "never i, l, o or u");

    CHECK(hsc_recovery_normalize("7KQ2-M9XD-4BFA", 14, canon) == HSC_OK
              && strcmp(canon, "7kq2m9xd4bfa") == 0,
          "upper case and dashes");
    CHECK(hsc_recovery_normalize(" 7kq2 m9xd 4bfa ", 16, canon) == HSC_OK
              && strcmp(canon, "7kq2m9xd4bfa") == 0,
          "spaces");
    CHECK(hsc_recovery_normalize("OIL2-m9xd-4bfa", 14, canon) == HSC_OK
              && strcmp(canon, "0112m9xd4bfa") == 0,
          "O read as 0, I and L as 1");
    CHECK_EQ(hsc_recovery_normalize("7kq2-m9xd-4bfu", 14, canon),
             HSC_EMALFORMED, "u is no character of the alphabet");
    CHECK_EQ(hsc_recovery_normalize("7kq2-m9xd-4bf", 13, canon), HSC_EMALFORMED,
             "eleven characters");
    CHECK_EQ(hsc_recovery_normalize("7kq2-m9xd-4bfaa", 15, canon),
             HSC_EMALFORMED, "thirteen");
    CHECK_STR(canon, "", "a refusal leaves nothing");

    CHECK(hsc_recovery_hash("alice", "7kq2m9xd4bfa", h1) == HSC_OK
              && hsc_recovery_hash("alice", "7kq2m9xd4bfa", h2) == HSC_OK
              && memcmp(h1, h2, 32) == 0,
          "the hash is a function of user and code");
    CHECK(hsc_recovery_hash("bob", "7kq2m9xd4bfa", h2) == HSC_OK
              && memcmp(h1, h2, 32) != 0,
          "another user's hash of the same code differs");
    CHECK_EQ(hsc_recovery_hash("alice", "7kq2", h2), HSC_EINVAL,
             "only a canonical code is hashed");
}

int main(void)
{
    apr_initialize();
    apr_pool_create(&pool, NULL);
    RUN(seal_opens_only_for_its_user_purpose_and_key);
    RUN(recovery_codes_are_typable_and_hashed_per_user);
    apr_pool_destroy(pool);
    apr_terminate();
    return hsc_test_done();
}
