/*
 * test_keys.c: the key file (hsc_keys.h): every fault with its message,
 * the mode warning, comments, duplicates, the signer, the derived MAC key
 * and the precomputed HMAC, key generation.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>
#include <openssl/hmac.h>
#include <openssl/evp.h>

#include "hsc_test.h"
#include "hsc_keys.h"
#include "hsc_keyfile.h"
#include "hsc_b64.h"
#include "hsc_hmac.h"

static apr_pool_t *pool;

/* base64url of bytes 0..31, 32..63, 64..95 (32 bytes each), of 0..30 (31
 * bytes, too short) and 0..32 (33 bytes). */
#define S0 "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
#define S1 "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8"
#define S2 "QEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaW1xdXl8"
#define S31 "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg"
#define S33 "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g"

/* Key file texts and what loading them gives. */
static const struct {
    const char *text;   /* the file content */
    hsc_status_t st;    /* expected status */
    int count;          /* keys loaded on success */
    const char *signer; /* kid of the signing key on success */
    const char *msg;    /* expected message on failure (exact) */
} file_cases[] = {
    /* accepted */
    {"k1 " S0 "\n", HSC_OK, 1, "k1", NULL},
    {"k1 " S0, HSC_OK, 1, "k1", NULL}, /* no final line feed */
    {"k1\t" S0 "\r\n", HSC_OK, 1, "k1", NULL},
    {"k1  \t " S0 "  \n", HSC_OK, 1, "k1", NULL},
    {"# keys\n\n   \nnew " S1 "\n# old key, until its cookies expire\n"
     "old " S0 "\n\n",
     HSC_OK, 2, "new", NULL},
    {"a " S0 "\nb " S1 "\nc " S2 "\n", HSC_OK, 3, "a", NULL},
    {"k1 " S33 "\n", HSC_OK, 1, "k1", NULL},
    {"Az09_-Az09_-Az09_-Az09_-Az09_-ab " S0 "\n", HSC_OK, 1,
     "Az09_-Az09_-Az09_-Az09_-Az09_-ab", NULL},
    /* refused */
    {"", HSC_EINVAL, 0, NULL, "keys.txt: no key in key file"},
    {"# only a comment\n\n  \n", HSC_EINVAL, 0, NULL,
     "keys.txt: no key in key file"},
    {"k1 " S31 "\n", HSC_EINVAL, 0, NULL,
     "keys.txt:1: secret is 31 bytes, at least 32 are needed"},
    {"k1 " S0 "\nk1 " S1 "\n", HSC_EINVAL, 0, NULL,
     "keys.txt:2: duplicate key id \"k1\""},
    {"#\n\nk1 " S0 "\nk2 " S1 "\nk1 " S2 "\n", HSC_EINVAL, 0, NULL,
     "keys.txt:5: duplicate key id \"k1\""},
    {"k.1 " S0 "\n", HSC_EINVAL, 0, NULL,
     "keys.txt:1: bad key id (1..32 characters of A-Za-z0-9_-)"},
    {"Az09_-Az09_-Az09_-Az09_-Az09_-abc " S0 "\n", HSC_EINVAL, 0, NULL,
     "keys.txt:1: bad key id (1..32 characters of A-Za-z0-9_-)"},
    {" k1 " S0 "\n", HSC_EINVAL, 0, NULL,
     "keys.txt:1: bad key id (1..32 characters of A-Za-z0-9_-)"},
    {"k\xc3\xa9 " S0 "\n", HSC_EINVAL, 0, NULL,
     "keys.txt:1: bad key id (1..32 characters of A-Za-z0-9_-)"},
    {"k1\n", HSC_EINVAL, 0, NULL,
     "keys.txt:1: missing secret after the key id"},
    {"k1 " S0 "=\n", HSC_EINVAL, 0, NULL,
     "keys.txt:1: secret is not canonical base64url without padding"},
    {"k1 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh9\n", HSC_EINVAL, 0, NULL,
     "keys.txt:1: secret is not canonical base64url without padding"},
    {"k1 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+/\n", HSC_EINVAL, 0, NULL,
     "keys.txt:1: secret is not canonical base64url without padding"},
    {"k1 " S0 " extra\n", HSC_EINVAL, 0, NULL,
     "keys.txt:1: trailing garbage after the secret"},
    {"k1 " S0 " # comment\n", HSC_EINVAL, 0, NULL,
     "keys.txt:1: trailing garbage after the secret"},
    {"k1 " S0 "\n\nk2 " S1 " x\n", HSC_EINVAL, 0, NULL,
     "keys.txt:3: trailing garbage after the secret"},
};

static void keyring_parse_follows_the_table(void)
{
    size_t i;
    char what[160];

    for (i = 0; i < sizeof(file_cases) / sizeof(file_cases[0]); i++) {
        hsc_keyring_t *kr = (hsc_keyring_t *)1;
        const char *msg = "unset";
        hsc_status_t st = hsc_keyring_parse(pool, "keys.txt",
                                            file_cases[i].text,
                                            strlen(file_cases[i].text), &kr,
                                            &msg);

        snprintf(what, sizeof(what), "case %zu status", i);
        CHECK_EQ(st, file_cases[i].st, what);
        if (file_cases[i].st == HSC_OK) {
            snprintf(what, sizeof(what), "case %zu no message", i);
            CHECK(msg == NULL, what);
            snprintf(what, sizeof(what), "case %zu count", i);
            CHECK_EQ(hsc_keyring_count(kr), file_cases[i].count, what);
            snprintf(what, sizeof(what), "case %zu signer", i);
            CHECK_STR(hsc_key_id(hsc_keyring_signer(kr)), file_cases[i].signer,
                      what);
        }
        else {
            snprintf(what, sizeof(what), "case %zu no ring", i);
            CHECK(kr == NULL, what);
            snprintf(what, sizeof(what), "case %zu message", i);
            CHECK_STR(msg, file_cases[i].msg, what);
        }
    }
}

static void keyring_message_never_contains_the_secret(void)
{
    hsc_keyring_t *kr;
    const char *msg = NULL;
    const char *text = "k1 " S31 "\nk2 " S0 " trailing\n";

    hsc_keyring_parse(pool, "keys.txt", text, strlen(text), &kr, &msg);
    CHECK(msg != NULL && strstr(msg, "AAECAwQF") == NULL,
          "no secret text in the message");
}

static void keyring_parse_handles_nul_bytes(void)
{
    static const char text[] = "k1 " S0 "\0\n";
    hsc_keyring_t *kr;
    const char *msg = NULL;

    CHECK_EQ(hsc_keyring_parse(pool, "keys.txt", text, sizeof(text) - 1, &kr,
                               &msg),
             HSC_EINVAL, "NUL after the secret is refused");
    CHECK_EQ(hsc_keyring_parse(pool, "keys.txt", "k\0 " S0, 46, &kr, &msg),
             HSC_EINVAL, "NUL in the key id is refused");
}

static void keyring_find_returns_each_key(void)
{
    const char *text = "# rotation\nnew " S1 "\nold " S0 "\n";
    hsc_keyring_t *kr;
    const char *msg;

    CHECK_EQ(hsc_keyring_parse(pool, "k", text, strlen(text), &kr, &msg),
             HSC_OK, "parse");
    CHECK_STR(hsc_key_id(hsc_keyring_find(kr, "new", 3)), "new", "new");
    CHECK_STR(hsc_key_id(hsc_keyring_find(kr, "old", 3)), "old", "old");
    CHECK(hsc_keyring_find(kr, "ol", 2) == NULL, "prefix not found");
    CHECK(hsc_keyring_find(kr, "oldx", 4) == NULL, "longer not found");
    CHECK(hsc_keyring_find(kr, "OLD", 3) == NULL, "case matters");
    CHECK(hsc_keyring_find(kr, "old.", 3) != NULL, "only kidlen bytes read");
    CHECK(hsc_keyring_signer(kr) == hsc_keyring_find(kr, "new", 3),
          "the first key signs");
}

/* HMAC-SHA256(secret, label), then HMAC-SHA256(K, a\nb\nc), one-shot. */
static void reference_mac(const unsigned char *secret, size_t slen,
                          const char *msg, unsigned char out[32])
{
    unsigned char K[32];
    unsigned int n = 0;

    HMAC(EVP_sha256(), secret, (int)slen,
         (const unsigned char *)"hsc-cookie-mac-v1", 17, K, &n);
    HMAC(EVP_sha256(), K, 32, (const unsigned char *)msg, strlen(msg), out, &n);
}

/* hsc_hmac: RFC 4231's test cases 1 and 2 (messages given in parts), a
 * block-long key against OpenSSL's one-shot HMAC(), a longer one refused
 * (the wiped struct is all zeros: the check reads its first 65 bytes). */
static void hmac_states_follow_rfc4231(void)
{
    static const unsigned char k1[20] = {0x0b, 0x0b, 0x0b, 0x0b, 0x0b,
                                         0x0b, 0x0b, 0x0b, 0x0b, 0x0b,
                                         0x0b, 0x0b, 0x0b, 0x0b, 0x0b,
                                         0x0b, 0x0b, 0x0b, 0x0b, 0x0b};
    static const unsigned char m1[32] = {0xb0, 0x34, 0x4c, 0x61, 0xd8, 0xdb,
                                         0x38, 0x53, 0x5c, 0xa8, 0xaf, 0xce,
                                         0xaf, 0x0b, 0xf1, 0x2b, 0x88, 0x1d,
                                         0xc2, 0x00, 0xc9, 0x83, 0x3d, 0xa7,
                                         0x26, 0xe9, 0x37, 0x6c, 0x2e, 0x32,
                                         0xcf, 0xf7};
    static const unsigned char m2[32] = {0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60,
                                         0x75, 0x4e, 0x6a, 0x04, 0x24, 0x26,
                                         0x08, 0x95, 0x75, 0xc7, 0x5a, 0x00,
                                         0x3f, 0x08, 0x9d, 0x27, 0x39, 0x83,
                                         0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec,
                                         0x38, 0x43};
    const hsc_hmac_part_t p1[2] = {{"Hi ", 3}, {"There", 5}};
    const hsc_hmac_part_t p2[3] = {{"what do ya want ", 16},
                                   {"", 0},
                                   {"for nothing?", 12}};
    unsigned char key64[64], big[65] = {0}, out[32], ref[32];
    unsigned int rlen = 0;
    hsc_hmac_key_t hk;
    int i;

    CHECK_EQ(hsc_hmac_key_init(&hk, k1, sizeof(k1)), HSC_OK, "key 1");
    CHECK_EQ(hsc_hmac_sum(&hk, p1, 2, out), HSC_OK, "case 1");
    CHECK(memcmp(out, m1, 32) == 0, "RFC 4231 case 1");
    CHECK_EQ(hsc_hmac_key_init(&hk, (const unsigned char *)"Jefe", 4), HSC_OK,
             "key 2");
    CHECK_EQ(hsc_hmac_sum(&hk, p2, 3, out), HSC_OK, "case 2");
    CHECK(memcmp(out, m2, 32) == 0, "RFC 4231 case 2, an empty part inside");
    for (i = 0; i < 64; i++) {
        key64[i] = (unsigned char)(i * 7 + 1);
    }
    CHECK_EQ(hsc_hmac_key_init(&hk, key64, 64), HSC_OK, "a block-long key");
    CHECK_EQ(hsc_hmac_sum(&hk, p1, 2, out), HSC_OK, "a block-long key sums");
    HMAC(EVP_sha256(), key64, 64, (const unsigned char *)"Hi There", 8, ref,
         &rlen);
    CHECK(rlen == 32 && memcmp(out, ref, 32) == 0,
          "a block-long key as OpenSSL's HMAC()");
    CHECK_EQ(hsc_hmac_key_init(&hk, big, sizeof(big)), HSC_EINVAL,
             "a key longer than the block is refused");
    CHECK(memcmp(&hk, big, sizeof(big)) == 0, "a refused key leaves zeros");
    hsc_hmac_key_wipe(&hk);
}

static void key_mac3_is_hmac_with_the_derived_key(void)
{
    const char *text = "a " S0 "\nb " S1 "\n";
    unsigned char secret[32], mac[32], ref[32];
    hsc_keyring_t *kr;
    const char *msg;
    size_t i;
    char big[300];
    char *joined;

    for (i = 0; i < 32; i++) {
        secret[i] = (unsigned char)i;
    }
    hsc_keyring_parse(pool, "k", text, strlen(text), &kr, &msg);
    CHECK_EQ(hsc_key_mac3(hsc_keyring_find(kr, "a", 1), "abc", 3, "scope", 5,
                          "::1", 3, mac),
             HSC_OK, "status");
    reference_mac(secret, 32, "abc\nscope\n::1", ref);
    CHECK(memcmp(mac, ref, 32) == 0, "equals HMAC(HMAC(secret, label), M)");
    hsc_key_mac3(hsc_keyring_find(kr, "a", 1), "", 0, "", 0, "", 0, mac);
    reference_mac(secret, 32, "\n\n", ref);
    CHECK(memcmp(mac, ref, 32) == 0, "empty parts give \"\\n\\n\"");
    hsc_key_mac3(hsc_keyring_find(kr, "a", 1), "abc\n", 4, "", 0, "", 0, mac);
    reference_mac(secret, 32, "abc\n\n\n", ref);
    CHECK(memcmp(mac, ref, 32) == 0, "the parts are joined, not framed");
    /* A message over several SHA-256 blocks. */
    memset(big, 'm', sizeof(big));
    joined = apr_pstrcat(pool, apr_pstrndup(pool, big, sizeof(big)), "\n",
                         "s\n", "127.0.0.1", NULL);
    hsc_key_mac3(hsc_keyring_find(kr, "a", 1), big, sizeof(big), "s", 1,
                 "127.0.0.1", 9, mac);
    reference_mac(secret, 32, joined, ref);
    CHECK(memcmp(mac, ref, 32) == 0, "300-byte message");
    /* The other key gives another MAC. */
    hsc_key_mac3(hsc_keyring_find(kr, "b", 1), "abc", 3, "scope", 5, "::1", 3,
                 ref);
    hsc_key_mac3(hsc_keyring_find(kr, "a", 1), "abc", 3, "scope", 5, "::1", 3,
                 mac);
    CHECK(memcmp(mac, ref, 32) != 0, "another key, another MAC");
    /* Repeated calls give the same result (the shared state is not
     * modified). */
    hsc_key_mac3(hsc_keyring_find(kr, "a", 1), "abc", 3, "scope", 5, "::1", 3,
                 ref);
    CHECK(memcmp(mac, ref, 32) == 0, "the key state is only read");
}

static void keyring_cleanup_wipes_the_keys(void)
{
    apr_pool_t *sub;
    hsc_keyring_t *kr;
    const char *msg;
    const unsigned char *raw;
    size_t i, nonzero = 0;
    const char *text = "wipe-me " S0 "\n";

    apr_pool_create(&sub, pool);
    hsc_keyring_parse(sub, "k", text, strlen(text), &kr, &msg);
    raw = (const unsigned char *)hsc_keyring_signer(kr);
    for (i = 0; i < 64; i++) {
        nonzero += raw[i] != 0;
    }
    CHECK(nonzero > 0, "the key holds data before the cleanup");
    /* apr_pool_clear runs the cleanups and keeps the pool's first block,
     * so the memory is still the pool's to read. */
    apr_pool_clear(sub);
    nonzero = 0;
    for (i = 0; i < 64; i++) {
        nonzero += ((const volatile unsigned char *)raw)[i] != 0;
    }
    CHECK_EQ(nonzero, 0, "the key memory is zero after the cleanup");
    apr_pool_destroy(sub);
}

/* --- files ---------------------------------------------------------------- */

static const char *write_file(const char *name, const char *text, int mode)
{
    char *path = apr_psprintf(pool, "%s/hsc-keys-test-%ld-%s",
                              getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                              (long)getpid(), name);
    FILE *f;

    unlink(path);
    f = fopen(path, "w");
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
    chmod(path, (mode_t)mode);
    return path;
}

static void keyring_load_warns_about_readable_modes(void)
{
    static const struct {
        int mode;  /* file mode */
        int warns; /* expect the warning */
    } modes[] = {{0600, 0}, {0400, 0}, {0640, 1}, {0604, 1}, {0644, 1}};
    size_t i;
    char what[80];

    for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        const char *path = write_file("mode", "k1 " S0 "\n", modes[i].mode);
        hsc_keyring_t *kr = NULL;
        const char *msg = NULL;
        hsc_status_t st = hsc_keyring_load(pool, path, &kr, &msg);

        snprintf(what, sizeof(what), "mode %04o loads", modes[i].mode);
        CHECK(st == HSC_OK && kr != NULL && hsc_keyring_count(kr) == 1, what);
        snprintf(what, sizeof(what), "mode %04o %s", modes[i].mode,
                 modes[i].warns ? "warns" : "is quiet");
        if (modes[i].warns) {
            CHECK_STR(msg,
                      apr_pstrcat(pool, path,
                                  ": key file is readable by group or others "
                                  "(chmod 600 or 400 it)",
                                  NULL),
                      what);
        }
        else {
            CHECK(msg == NULL, what);
        }
        unlink(path);
    }
}

/*
 * hsc_keyring_load as a user that file modes apply to. Root reads a mode
 * 0000 file, so as root the load runs in a child that drops to nobody
 * (65534); the message comes back through a pipe.
 */
static hsc_status_t load_unprivileged(const char *path, char *buf, size_t len)
{
    hsc_keyring_t *kr;
    const char *msg = NULL;
    int fds[2], status = 0;
    pid_t pid;
    ssize_t n;

    buf[0] = '\0';
    if (geteuid() != 0) {
        hsc_status_t st = hsc_keyring_load(pool, path, &kr, &msg);

        snprintf(buf, len, "%s", msg ? msg : "");
        return st;
    }
    if (pipe(fds) != 0 || (pid = fork()) < 0) {
        return (hsc_status_t)-1;
    }
    if (pid == 0) {
        hsc_status_t st;

        close(fds[0]);
        if (setgid(65534) != 0 || setuid(65534) != 0) {
            _exit(100);
        }
        st = hsc_keyring_load(pool, path, &kr, &msg);
        if (msg != NULL && write(fds[1], msg, strlen(msg)) < 0) {
            _exit(101);
        }
        _exit((int)st);
    }
    close(fds[1]);
    n = read(fds[0], buf, len - 1);
    buf[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? (hsc_status_t)WEXITSTATUS(status)
                             : (hsc_status_t)-1;
}

static void keyring_load_reports_file_faults(void)
{
    hsc_keyring_t *kr = (hsc_keyring_t *)1;
    const char *msg = NULL;
    const char *path;
    char *dir;

    path = apr_psprintf(pool, "/nonexistent-hsc-%ld/keys", (long)getpid());
    CHECK_EQ(hsc_keyring_load(pool, path, &kr, &msg), HSC_EIO, "missing");
    CHECK(kr == NULL, "no ring");
    CHECK_STR(msg,
              apr_pstrcat(pool, path,
                          ": cannot open key file: missing (no such file)",
                          NULL),
              "message names the path");

    dir = apr_psprintf(pool, "/tmp/hsc-keys-dir-%ld", (long)getpid());
    mkdir(dir, 0700);
    CHECK_EQ(hsc_keyring_load(pool, dir, &kr, &msg), HSC_EIO, "a directory");
    CHECK(msg != NULL && strncmp(msg, dir, strlen(dir)) == 0
              && strstr(msg, "not a regular file") != NULL,
          "message names the path and the fault");
    rmdir(dir);

    path = write_file("unreadable", "k1 " S0 "\n", 0000);
    {
        char buf[300];
        hsc_status_t st = load_unprivileged(path, buf, sizeof(buf));

        CHECK_EQ(st, HSC_EIO,
                 "unreadable (mode 0000, as an unprivileged user)");
        CHECK_STR(buf,
                  apr_pstrcat(pool, path,
                              ": cannot open key file: Permission denied",
                              NULL),
                  "unreadable message");
    }
    unlink(path);

    path = write_file("dup", "# test\nk1 " S0 "\nk1 " S1 "\n", 0600);
    CHECK_EQ(hsc_keyring_load(pool, path, &kr, &msg), HSC_EINVAL,
             "content faults come through");
    CHECK_STR(msg, apr_pstrcat(pool, path, ":3: duplicate key id \"k1\"", NULL),
              "with path and line");
    unlink(path);

    path = write_file("empty", "", 0600);
    CHECK_EQ(hsc_keyring_load(pool, path, &kr, &msg), HSC_EINVAL, "empty file");
    CHECK_STR(msg, apr_pstrcat(pool, path, ": no key in key file", NULL),
              "empty file message");
    unlink(path);
}

/* --- kids and generation ------------------------------------------------- */

static const struct {
    const char *kid; /* candidate key id */
    int valid;       /* expected */
} kid_cases[] = {
    {"k1", 1},
    {"a", 1},
    {"A-Z_a-z_0-9", 1},
    {"0123456789abcdef0123456789abcdef", 1},  /* 32 */
    {"0123456789abcdef0123456789abcdefg", 0}, /* 33 */
    {"", 0},
    {"k 1", 0},
    {"k.1", 0},
    {"k/1", 0},
    {"k+1", 0},
    {"k=1", 0},
    {"k\xc3\xa9", 0},
};

static void kid_valid_follows_the_table(void)
{
    size_t i;
    char what[80];

    for (i = 0; i < sizeof(kid_cases) / sizeof(kid_cases[0]); i++) {
        snprintf(what, sizeof(what), "\"%s\"", kid_cases[i].kid);
        CHECK_EQ(hsc_kid_valid(kid_cases[i].kid, strlen(kid_cases[i].kid)),
                 kid_cases[i].valid, what);
    }
}

static void key_generate_line_makes_loadable_keys(void)
{
    char a[128], b[128], small[40];
    hsc_keyring_t *kr;
    const char *msg;
    size_t la;

    CHECK_EQ(hsc_key_generate_line("mykid", a, sizeof(a)), HSC_OK, "named");
    la = strlen(a);
    CHECK(la == 5 + 1 + 43 + 1 && strncmp(a, "mykid ", 6) == 0
              && a[la - 1] == '\n',
          "\"<kid> <43 characters>\\n\"");
    CHECK(hsc_keyring_parse(pool, "gen", a, la, &kr, &msg) == HSC_OK
              && hsc_keyring_count(kr) == 1
              && strcmp(hsc_key_id(hsc_keyring_signer(kr)), "mykid") == 0,
          "loads back");
    CHECK_EQ(hsc_key_generate_line("mykid", b, sizeof(b)), HSC_OK, "again");
    CHECK(strcmp(a, b) != 0, "two secrets differ");

    CHECK_EQ(hsc_key_generate_line(NULL, a, sizeof(a)), HSC_OK, "auto kid");
    CHECK(a[0] == 'k' && strchr(a, ' ') != NULL
              && hsc_kid_valid(a, (size_t)(strchr(a, ' ') - a)),
          "auto kid is valid");
    CHECK(hsc_keyring_parse(pool, "gen", a, strlen(a), &kr, &msg) == HSC_OK,
          "auto line loads back");

    CHECK_EQ(hsc_key_generate_line("bad kid", a, sizeof(a)), HSC_EINVAL,
             "bad kid refused");
    CHECK_EQ(a[0], '\0', "buffer empty on failure");
    CHECK_EQ(hsc_key_generate_line("mykid", small, sizeof(small)), HSC_EINVAL,
             "small buffer refused");
}

/* The metrics list every key id from startup: keys by position. */
static void keyring_key_walks_keys_in_file_order(void)
{
    static const char text[] = "new " S1 "\nold " S0 "\n";
    hsc_keyring_t *kr = NULL;
    const char *msg = NULL;

    hsc_keyring_parse(pool, "keys.txt", text, sizeof(text) - 1, &kr, &msg);
    CHECK_STR(hsc_key_id(hsc_keyring_key(kr, 0)), "new", "0: the signer");
    CHECK(hsc_keyring_key(kr, 0) == hsc_keyring_signer(kr),
          "the same key as hsc_keyring_signer");
    CHECK_STR(hsc_key_id(hsc_keyring_key(kr, 1)), "old", "1: the next line");
    CHECK(hsc_keyring_key(kr, 2) == NULL && hsc_keyring_key(kr, -1) == NULL
              && hsc_keyring_key(NULL, 0) == NULL,
          "out of range: NULL");
}

/* --- rotation: hsc_keyfile_prepend ---------------------------------------- */

static const struct {
    const char *text; /* the key file before */
    const char *line; /* the new key line */
    hsc_status_t st;  /* expected status */
    const char *out;  /* expected text after (HSC_OK) */
    const char *msg;  /* expected message (failure), exact */
} prepend_cases[] = {
    {"old " S0 "\n", "new " S1 "\n", HSC_OK, "new " S1 "\nold " S0 "\n", NULL},
    /* comments and blank lines above the first key stay above it */
    {"# keys\n\n# more\nold " S0 "\n# tail\n", "new " S1 "\n", HSC_OK,
     "# keys\n\n# more\nnew " S1 "\nold " S0 "\n# tail\n", NULL},
    /* a file without a final line feed keeps its last line as it was */
    {"a " S0 "\nb " S1, "new " S2 "\n", HSC_OK, "new " S2 "\na " S0 "\nb " S1,
     NULL},
    {"a " S0 "\r\n", "new " S1 "\n", HSC_OK, "new " S1 "\na " S0 "\r\n", NULL},
    /* refused */
    {"old " S0 "\n", "old " S1 "\n", HSC_EEXISTS, NULL,
     "keys.txt: key id old is already in the file"},
    {"# no key\n", "new " S1 "\n", HSC_EINVAL, NULL,
     "keys.txt: no key in key file; not rotating a key file that does not "
     "load"},
    {"k1 " S31 "\n", "new " S1 "\n", HSC_EINVAL, NULL,
     "keys.txt:1: secret is 31 bytes, at least 32 are needed; not rotating a "
     "key file that does not load"},
    {"old " S0 "\n", "new " S1, HSC_EINVAL, NULL,
     "keys.txt: the new key line is not one valid key"},
    {"old " S0 "\n", "new " S1 "\nx " S2 "\n", HSC_EINVAL, NULL,
     "keys.txt: the new key line is not one valid key"},
    {"old " S0 "\n", "# new\n", HSC_EINVAL, NULL,
     "keys.txt: the new key line is not one valid key"},
    {"old " S0 "\n", "new " S31 "\n", HSC_EINVAL, NULL,
     "keys.txt: the new key line is not one valid key"},
};

static void keyfile_prepend_follows_the_table(void)
{
    size_t i;
    char what[64];

    for (i = 0; i < sizeof(prepend_cases) / sizeof(prepend_cases[0]); i++) {
        char *out = (char *)"unset";
        size_t outlen = 99;
        int count = -1;
        const char *msg = "unset";
        hsc_status_t st;

        snprintf(what, sizeof(what), "case %lu", (unsigned long)i);
        st = hsc_keyfile_prepend(pool, "keys.txt", prepend_cases[i].text,
                                 strlen(prepend_cases[i].text),
                                 prepend_cases[i].line, &out, &outlen, &count,
                                 &msg);
        CHECK_EQ(st, prepend_cases[i].st, what);
        if (prepend_cases[i].st == HSC_OK) {
            hsc_keyring_t *kr = NULL, *nr = NULL;
            const char *m;

            CHECK_STR(out, prepend_cases[i].out, "the rewritten text");
            CHECK_EQ(outlen, strlen(prepend_cases[i].out), "its length");
            CHECK(msg == NULL, "no message");
            CHECK(hsc_keyring_parse(pool, "a", prepend_cases[i].text,
                                    strlen(prepend_cases[i].text), &kr, &m)
                          == HSC_OK
                      && hsc_keyring_parse(pool, "b", out, outlen, &nr, &m)
                             == HSC_OK
                      && count == hsc_keyring_count(kr) + 1
                      && count == hsc_keyring_count(nr)
                      && strcmp(hsc_key_id(hsc_keyring_signer(nr)), "new") == 0,
                  "one key more, and the new one signs");
        }
        else {
            CHECK(out == NULL && outlen == 0 && count == 0,
                  "no output on failure");
            CHECK_STR(msg, prepend_cases[i].msg, "the reason");
        }
    }
}

static void keyfile_prepend_output_is_wiped_with_its_pool(void)
{
    apr_pool_t *p;
    char *out;
    size_t outlen, i;
    int count, zero = 1;
    const char *msg;

    apr_pool_create(&p, pool);
    CHECK_EQ(hsc_keyfile_prepend(p, "k", "old " S0 "\n", strlen("old " S0 "\n"),
                                 "new " S1 "\n", &out, &outlen, &count, &msg),
             HSC_OK, "rotated");
    apr_pool_clear(p); /* runs the cleanups; the memory stays mapped */
    for (i = 0; i < outlen; i++) {
        zero &= out[i] == 0;
    }
    CHECK(zero, "the rewritten text (every secret) is wiped by the pool");
    apr_pool_destroy(p);
}

/* --- rotation on several nodes: hsc_keyfile_rotate ------------------------ */

static const struct {
    hsc_rotate_t op;
    const char *text; /* the key file before */
    const char *arg;  /* the new key line, or the key id */
    hsc_status_t st;
    const char *out;    /* expected text after (HSC_OK) */
    int count;          /* its keys */
    const char *signer; /* its signer */
} rotate_cases[] = {
    /* verify-only: last, the old key still signs */
    {HSC_ROTATE_VERIFY_ONLY, "# k\nold " S0 "\n", "new " S1 "\n", HSC_OK,
     "# k\nold " S0 "\nnew " S1 "\n", 2, "old"},
    {HSC_ROTATE_VERIFY_ONLY, "old " S0, "new " S1 "\n", HSC_OK,
     "old " S0 "\nnew " S1 "\n", 2, "old"},
    {HSC_ROTATE_VERIFY_ONLY, "old " S0 "\n", "old " S1 "\n", HSC_EEXISTS, NULL,
     0, NULL},
    /* promote: the line moves first, below the leading comments */
    {HSC_ROTATE_PROMOTE, "# k\na " S0 "\n# mid\nb " S1 "\n", "b", HSC_OK,
     "# k\nb " S1 "\na " S0 "\n# mid\n", 2, "b"},
    {HSC_ROTATE_PROMOTE, "a " S0 "\nb " S1, "b", HSC_OK, "b " S1 "\na " S0 "\n",
     2, "b"},
    {HSC_ROTATE_PROMOTE, "a " S0 "\n", "a", HSC_OK, "a " S0 "\n", 1, "a"},
    {HSC_ROTATE_PROMOTE, "a " S0 "\n", "c", HSC_ENOKEY, NULL, 0, NULL},
    /* retire: the line goes, never the signer's */
    {HSC_ROTATE_RETIRE, "a " S0 "\n# c\nb " S1 "\nc " S2 "\n", "b", HSC_OK,
     "a " S0 "\n# c\nc " S2 "\n", 2, "a"},
    {HSC_ROTATE_RETIRE, "a " S0 "\nb " S1 "\n", "a", HSC_EEXISTS, NULL, 0,
     NULL},
    {HSC_ROTATE_RETIRE, "a " S0 "\nb " S1 "\n", "bb", HSC_ENOKEY, NULL, 0,
     NULL},
    {HSC_ROTATE_RETIRE, "# none\n", "a", HSC_EINVAL, NULL, 0, NULL},
    /* sign is hsc_keyfile_prepend */
    {HSC_ROTATE_SIGN, "old " S0 "\n", "new " S1 "\n", HSC_OK,
     "new " S1 "\nold " S0 "\n", 2, "new"},
};

static void keyfile_rotate_follows_the_table(void)
{
    size_t i;
    char what[64];

    for (i = 0; i < sizeof(rotate_cases) / sizeof(rotate_cases[0]); i++) {
        char *out = (char *)"unset";
        size_t outlen = 99;
        int count = -1;
        const char *msg = "unset";
        hsc_status_t st;

        snprintf(what, sizeof(what), "rotate case %lu", (unsigned long)i);
        st = hsc_keyfile_rotate(pool, "keys.txt", rotate_cases[i].text,
                                strlen(rotate_cases[i].text),
                                rotate_cases[i].op, rotate_cases[i].arg, &out,
                                &outlen, &count, &msg);
        CHECK_EQ(st, rotate_cases[i].st, what);
        if (rotate_cases[i].st == HSC_OK && st == HSC_OK) {
            hsc_keyring_t *nr = NULL;
            const char *m;

            CHECK_STR(out, rotate_cases[i].out, what);
            CHECK_EQ(outlen, strlen(rotate_cases[i].out), what);
            CHECK_EQ(count, rotate_cases[i].count, what);
            CHECK(hsc_keyring_parse(pool, "b", out, outlen, &nr, &m) == HSC_OK
                      && strcmp(hsc_key_id(hsc_keyring_signer(nr)),
                                rotate_cases[i].signer)
                             == 0,
                  "it loads and the expected key signs");
        }
        else if (st != HSC_OK) {
            CHECK(out == NULL && outlen == 0 && count == 0 && msg != NULL
                      && strstr(msg, "keys.txt") != NULL,
                  "no output on failure, and a reason naming the file");
        }
    }
}

int main(void)
{
    apr_initialize();
    apr_pool_create(&pool, NULL);
    RUN(keyring_parse_follows_the_table);
    RUN(keyring_message_never_contains_the_secret);
    RUN(keyring_parse_handles_nul_bytes);
    RUN(keyring_find_returns_each_key);
    RUN(hmac_states_follow_rfc4231);
    RUN(key_mac3_is_hmac_with_the_derived_key);
    RUN(keyring_cleanup_wipes_the_keys);
    RUN(keyring_load_warns_about_readable_modes);
    RUN(keyring_load_reports_file_faults);
    RUN(kid_valid_follows_the_table);
    RUN(key_generate_line_makes_loadable_keys);
    RUN(keyring_key_walks_keys_in_file_order);
    RUN(keyfile_prepend_follows_the_table);
    RUN(keyfile_prepend_output_is_wiped_with_its_pool);
    RUN(keyfile_rotate_follows_the_table);
    apr_pool_destroy(pool);
    apr_terminate();
    return hsc_test_done();
}
