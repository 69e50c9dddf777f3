/*
 * test_policy.c: the new-password policy (hsc_policy.c): characters
 * counted as code points, the NIST floors, the username, and the shipped
 * blocklist (conf/password-blocklist.txt) loaded and searched case-folded.
 */
#include <stdio.h>
#include <string.h>

#include <apr_general.h>
#include <apr_pools.h>

#include "hsc_test.h"
#include "hsc_policy.h"

static apr_pool_t *pool;

static hsc_policy_verdict_t check(const hsc_blocklist_t *b, int min,
                                  const char *user, const char *pw)
{
    return hsc_policy_check(b, min, user, pw, strlen(pw));
}

static void characters_are_code_points(void)
{
    /* "é" is 2 bytes, "€" 3, "😀" 4: each one character. */
    CHECK_EQ(hsc_utf8_chars("abc", 3), 3, "ASCII");
    CHECK_EQ(hsc_utf8_chars("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9), 3,
             "two, three and four bytes are one character each");
    CHECK_EQ(hsc_utf8_chars("a b", 3), 3, "a space is a character");
    CHECK_EQ(hsc_utf8_chars("\xc3", 1), -1, "a sequence cut short");
    CHECK_EQ(hsc_utf8_chars("\xc0\xaf", 2), -1, "an overlong form");
    CHECK_EQ(hsc_utf8_chars("\xed\xa0\x80", 3), -1, "a UTF-16 surrogate");
    CHECK_EQ(hsc_utf8_chars("\xf4\x90\x80\x80", 4), -1, "past U+10FFFF");
    CHECK_EQ(hsc_utf8_chars("a\tb", 3), -1, "a control character");
    CHECK_EQ(hsc_utf8_chars("a\0b", 3), -1, "a NUL byte");
    CHECK_EQ(hsc_utf8_chars("\xff", 1), -1, "a byte no UTF-8 has");
}

static void lengths_follow_nist(void)
{
    char big[HSC_POLICY_MAX_BYTES + 2];

    CHECK_EQ(check(NULL, 15, "u", "fourteen-chars"), HSC_POLICY_SHORT,
             "14 characters under a minimum of 15");
    CHECK_EQ(check(NULL, 15, "u", "fifteen-chars!!"), HSC_POLICY_OK,
             "15 characters");
    /* Eight characters of 3 bytes: 24 bytes, still 8 characters. */
    CHECK_EQ(check(NULL, 9, "u",
                   "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
                   "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"),
             HSC_POLICY_SHORT, "counted in characters, not bytes");
    memset(big, 'x', sizeof(big));
    big[64] = '\0';
    CHECK_EQ(check(NULL, 8, "u", big), HSC_POLICY_OK, "64 characters");
    big[HSC_POLICY_MAX_BYTES] = '\0';
    memset(big, 'y', HSC_POLICY_MAX_BYTES);
    CHECK_EQ(check(NULL, 8, "u", big), HSC_POLICY_OK,
             "the form's limit of 1024 bytes");
    CHECK_EQ(hsc_policy_check(NULL, 8, "u", big, HSC_POLICY_MAX_BYTES + 1),
             HSC_POLICY_LONG, "one byte more");
    CHECK_EQ(check(NULL, 8, "u", "no\ncontrols-here"), HSC_POLICY_NOT_TEXT,
             "a newline is refused");
    CHECK_EQ(check(NULL, 8, "u", "ALLCAPSNODIGITS"), HSC_POLICY_OK,
             "no composition rules");
}

static void username_is_refused(void)
{
    CHECK_EQ(check(NULL, 8, "alice.smith", "alice.smith"), HSC_POLICY_USERNAME,
             "the username");
    CHECK_EQ(check(NULL, 8, "alice.smith", "Alice.Smith"), HSC_POLICY_USERNAME,
             "the username in other capitals");
    CHECK_EQ(check(NULL, 8, "alice.smith", "alice.smith1"), HSC_POLICY_OK,
             "a longer password that starts with it");
}

static void shipped_blocklist(void)
{
    hsc_blocklist_t *b = NULL;
    char err[256] = "";
    hsc_status_t st;

    st = hsc_blocklist_load(pool, HSC_SRCDIR "/conf/password-blocklist.txt", &b,
                            err, sizeof(err));
    CHECK_EQ(st, HSC_OK, "the shipped list loads");
    if (st != HSC_OK) {
        printf("# %s\n", err);
        return;
    }
    CHECK(hsc_blocklist_size(b) > 3000, "it holds over 3,000 passwords");
    CHECK(hsc_blocklist_has(b, "password", 8), "password");
    CHECK(hsc_blocklist_has(b, "PassWord", 8), "letters are folded");
    CHECK(hsc_blocklist_has(b, "12345678", 8), "12345678");
    CHECK(!hsc_blocklist_has(b, "#", 1), "comment lines are not entries");
    CHECK(!hsc_blocklist_has(b, "", 0), "blank lines are not entries");
    CHECK(!hsc_blocklist_has(b, "passwor", 7), "a prefix is not a match");
    CHECK(!hsc_blocklist_has(b, "password!", 9), "nor a longer word");
    CHECK_EQ(check(b, 8, "u", "Password"), HSC_POLICY_LISTED,
             "a listed password is refused whatever its capitals");
    CHECK_EQ(check(b, 8, "u", "correct horse battery"), HSC_POLICY_OK,
             "an unlisted one passes");
    CHECK(strstr(hsc_policy_message(pool, HSC_POLICY_SHORT, 15), "15") != NULL,
          "the message names the minimum");
    CHECK_STR(hsc_policy_name(HSC_POLICY_LISTED), "listed", "log name");

    {
        const hsc_blocklist_t *in = hsc_blocklist_builtin(pool);
        CHECK_EQ(hsc_blocklist_size(in), hsc_blocklist_size(b),
                 "the built-in list is the shipped file");
        CHECK(hsc_blocklist_has(in, "Baseball", 8), "and finds as it does");
    }
    st = hsc_blocklist_load(pool, HSC_SRCDIR "/no/such/file", &b, err,
                            sizeof(err));
    CHECK_EQ(st, HSC_EIO, "a missing file is HSC_EIO");
    CHECK(strstr(err, "no/such/file") != NULL, "the error names the file");
}

int main(void)
{
    apr_initialize();
    apr_pool_create(&pool, NULL);
    RUN(characters_are_code_points);
    RUN(lengths_follow_nist);
    RUN(username_is_refused);
    RUN(shipped_blocklist);
    apr_pool_destroy(pool);
    apr_terminate();
    return hsc_test_done();
}
