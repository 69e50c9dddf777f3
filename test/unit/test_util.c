/*
 * test_util.c: the small helpers of hsc_util.h: error strings, the
 * constant-time compare, canonical decimal time, strict UTF-8 usernames,
 * group names, the CSPRNG.
 */
#include <stdio.h>
#include <string.h>

#include "hsc_test.h"
#include "hsc_util.h"

/* --- hsc_strerror -------------------------------------------------------- */

static void strerror_names_every_status_distinctly(void)
{
    int a, b, distinct = 1, named = 1;

    for (a = HSC_OK; a <= HSC_EKDFLIMIT; a++) {
        const char *s = hsc_strerror((hsc_status_t)a);

        if (s == NULL || *s == '\0' || strcmp(s, "unknown status") == 0) {
            named = 0;
        }
        for (b = HSC_OK; b < a; b++) {
            if (strcmp(s, hsc_strerror((hsc_status_t)b)) == 0) {
                distinct = 0;
            }
        }
    }
    CHECK(named, "every status has a name");
    CHECK(distinct, "no two statuses share a name");
    CHECK_STR(hsc_strerror(HSC_EBADMAC), "bad mac", "HSC_EBADMAC");
    CHECK_STR(hsc_strerror((hsc_status_t)999), "unknown status",
              "out of range");
}

/* --- hsc_status_class ----------------------------------------------------- */

static void status_class_puts_every_status_in_one_class(void)
{
    static const struct {
        hsc_status_t st; /* a status */
        hsc_class_t cl;  /* its class */
    } cases[] = {
        {HSC_OK, HSC_CLASS_OK},
        {HSC_EEXPIRED, HSC_CLASS_REFUSAL},
        {HSC_EMAXAGE, HSC_CLASS_REFUSAL},
        {HSC_ENOUSER, HSC_CLASS_REFUSAL},
        {HSC_EDISABLED, HSC_CLASS_REFUSAL},
        {HSC_EREVOKED, HSC_CLASS_REFUSAL},
        {HSC_EAUTH, HSC_CLASS_REFUSAL},
        {HSC_EMALFORMED, HSC_CLASS_FORGERY},
        {HSC_ETOOLONG, HSC_CLASS_FORGERY},
        {HSC_ENOKEY, HSC_CLASS_FORGERY},
        {HSC_EBADMAC, HSC_CLASS_FORGERY},
        {HSC_EFUTURE, HSC_CLASS_FORGERY},
        {HSC_EEXISTS, HSC_CLASS_FORGERY},
        {HSC_EINVAL, HSC_CLASS_FORGERY},
        {HSC_ESTORE, HSC_CLASS_FAULT},
        {HSC_EREADONLY, HSC_CLASS_FAULT},
        {HSC_ECRYPTO, HSC_CLASS_FAULT},
        {HSC_EIO, HSC_CLASS_FAULT},
        {HSC_ENOMEM, HSC_CLASS_FAULT},
        {HSC_EKDFLIMIT, HSC_CLASS_REFUSAL},
    };
    size_t i;
    int seen[HSC_EKDFLIMIT + 1] = {0}, all = 1;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK_EQ(hsc_status_class(cases[i].st), cases[i].cl,
                 hsc_strerror(cases[i].st));
        seen[cases[i].st] = 1;
    }
    for (i = 0; i <= HSC_EKDFLIMIT; i++) {
        all &= seen[i];
    }
    CHECK(all, "the table names every status");
    CHECK_EQ(hsc_status_class((hsc_status_t)999), HSC_CLASS_FORGERY,
             "an unknown status is never taken for success or a refusal");
}

/* --- hsc_ct_equal -------------------------------------------------------- */

static void ct_equal_returns_one_only_when_equal(void)
{
    unsigned char a[32], b[32];
    size_t i;
    int all = 1;

    memset(a, 0x5a, sizeof(a));
    memcpy(b, a, sizeof(b));
    CHECK_EQ(hsc_ct_equal(a, b, sizeof(a)), 1, "equal buffers give 1");
    CHECK_EQ(hsc_ct_equal(a, b, 0), 1, "zero length is equal");
    for (i = 0; i < sizeof(a); i++) {
        b[i] ^= 0x01;
        if (hsc_ct_equal(a, b, sizeof(a)) != 0) {
            all = 0;
        }
        b[i] ^= 0x01;
    }
    CHECK(all, "a one-bit difference at any position gives 0");
    b[31] = 0x00;
    CHECK_EQ(hsc_ct_equal(a, b, 31), 1, "only len bytes are compared");
}

static void wipe_zeroes_the_buffer(void)
{
    unsigned char buf[40];
    size_t i;
    int zero = 1;

    memset(buf, 0xAB, sizeof(buf));
    hsc_wipe(buf, sizeof(buf));
    for (i = 0; i < sizeof(buf); i++) {
        zero &= buf[i] == 0;
    }
    CHECK(zero, "every byte is zero");
    hsc_wipe(NULL, 10); /* must not crash: the run would abort */
}

/* --- hsc_parse_time / hsc_format_time ------------------------------------- */

static const struct {
    const char *text; /* input, taken with strlen() */
    hsc_status_t st;  /* expected status */
    int64_t value;    /* expected value (0 on failure) */
} time_cases[] = {
    {"0", HSC_OK, 0},
    {"1", HSC_OK, 1},
    {"1800000000", HSC_OK, 1800000000},
    {"999999999999999999", HSC_OK, 999999999999999999}, /* 18 digits */
    {"9223372036854775807", HSC_OK, INT64_MAX},
    {"9223372036854775799", HSC_OK, INT64_MAX - 8},
    {"9223372036854775808", HSC_EMALFORMED, 0},  /* INT64_MAX + 1 */
    {"9999999999999999999", HSC_EMALFORMED, 0},  /* 19 digits, overflow */
    {"10000000000000000000", HSC_EMALFORMED, 0}, /* 20 digits */
    {"", HSC_EMALFORMED, 0},
    {"00", HSC_EMALFORMED, 0},
    {"01800000000", HSC_EMALFORMED, 0}, /* leading zero */
    {"+1800000000", HSC_EMALFORMED, 0}, /* sign */
    {"-1", HSC_EMALFORMED, 0},
    {" 1800000000", HSC_EMALFORMED, 0}, /* space before */
    {"1800000000 ", HSC_EMALFORMED, 0}, /* space after */
    {"18000x0000", HSC_EMALFORMED, 0},
    {"1e9", HSC_EMALFORMED, 0},
    {"0x10", HSC_EMALFORMED, 0},
    {"18000/0000", HSC_EMALFORMED, 0}, /* the character before '0' */
    {"18000:0000", HSC_EMALFORMED, 0}, /* and the one after '9' */
};

static void parse_time_accepts_only_canonical_decimal(void)
{
    size_t i;
    char what[120];

    for (i = 0; i < sizeof(time_cases) / sizeof(time_cases[0]); i++) {
        int64_t v = 12345;
        hsc_status_t st = hsc_parse_time(time_cases[i].text,
                                         strlen(time_cases[i].text), &v);

        snprintf(what, sizeof(what), "\"%s\" status", time_cases[i].text);
        CHECK_EQ(st, time_cases[i].st, what);
        snprintf(what, sizeof(what), "\"%s\" value", time_cases[i].text);
        CHECK(v == time_cases[i].value, what);
    }
}

static void parse_time_reads_only_len_bytes(void)
{
    int64_t v = 0;

    CHECK_EQ(hsc_parse_time("1234.5678", 4, &v), HSC_OK, "prefix accepted");
    CHECK(v == 1234, "value of the prefix");
    CHECK_EQ(hsc_parse_time("1234", 0, &v), HSC_EMALFORMED, "len 0 refused");
    CHECK(v == 0, "out is zero on failure");
}

static void format_time_round_trips(void)
{
    static const int64_t values[] = {0,        1,     9,         10,
                                     11,       42,    99,        100,
                                     101,      12345, 987654321, 1800000000,
                                     INT64_MAX};
    size_t i;
    char buf[21], what[80];

    for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        int64_t back = -1;
        size_t n = hsc_format_time(values[i], buf);

        snprintf(what, sizeof(what), "%lld: length matches",
                 (long long)values[i]);
        CHECK_EQ(n, strlen(buf), what);
        snprintf(what, sizeof(what), "%lld: parses back", (long long)values[i]);
        CHECK(hsc_parse_time(buf, n, &back) == HSC_OK && back == values[i],
              what);
    }
    hsc_format_time(INT64_MAX, buf);
    CHECK_STR(buf, "9223372036854775807", "INT64_MAX text");
    for (i = 0; i < 200000; i += 7) {
        char want[24];
        int64_t v = (int64_t)i * 1000003;

        snprintf(want, sizeof(want), "%lld", (long long)v);
        hsc_format_time(v, buf);
        if (strcmp(buf, want) != 0) {
            break;
        }
    }
    CHECK(i >= 200000, "28,572 values formatted as printf does");
    hsc_format_time(-1, buf);
    CHECK_STR(buf, "0", "a negative time is 0");
}

/* --- hsc_username_valid -------------------------------------------------- */

static const struct {
    const char *bytes; /* the username bytes */
    size_t len;        /* their length (0: use strlen) */
    int valid;         /* expected result */
    const char *why;   /* what the case shows */
} user_cases[] = {
    {"alice", 0, 1, "ASCII"},
    {"j\xc3\xb6rg.o'neil@example.org", 0, 1, "two-byte UTF-8 (U+00F6)"},
    {"\xe2\x82\xac", 0, 1, "three-byte U+20AC"},
    {"\xf0\x9f\x98\x80", 0, 1, "four-byte U+1F600"},
    {"\xf4\x8f\xbf\xbf", 0, 1, "U+10FFFF, the last code point"},
    {"\xc2\xa0", 0, 1, "U+00A0, first after C1"},
    {"\xef\xbf\xbd", 0, 1, "U+FFFD"},
    {"a b", 0, 1, "space is not a control"},
    {"~", 0, 1, "0x7E, last before DEL"},
    {"", 0, 0, "empty"},
    {"a\0b", 3, 0, "NUL inside"},
    {"a\tb", 0, 0, "C0 tab"},
    {"a\nb", 0, 0, "C0 line feed"},
    {"\x1f", 0, 0, "C0 0x1F"},
    {"a\x7f", 0, 0, "DEL"},
    {"\xc2\x80", 0, 0, "C1 U+0080"},
    {"\xc2\x9f", 0, 0, "C1 U+009F"},
    {"\xc0\xaf", 0, 0, "overlong '/' (two bytes)"},
    {"\xc1\xbf", 0, 0, "overlong (C1 lead)"},
    {"\xe0\x80\xaf", 0, 0, "overlong '/' (three bytes)"},
    {"\xe0\x9f\xbf", 0, 0, "overlong U+07FF (three bytes)"},
    {"\xf0\x80\x80\xaf", 0, 0, "overlong '/' (four bytes)"},
    {"\xf0\x8f\xbf\xbf", 0, 0, "overlong U+FFFF (four bytes)"},
    {"\xed\xa0\x80", 0, 0, "surrogate U+D800"},
    {"\xed\xbf\xbf", 0, 0, "surrogate U+DFFF"},
    {"\xf4\x90\x80\x80", 0, 0, "U+110000, above the maximum"},
    {"\xf5\x80\x80\x80", 0, 0, "lead byte F5"},
    {"\xff", 0, 0, "byte FF"},
    {"\x80", 0, 0, "lone continuation byte"},
    {"\xc3", 0, 0, "truncated two-byte sequence"},
    {"\xe2\x82", 0, 0, "truncated three-byte sequence"},
    {"\xe2\x28\xa1", 0, 0, "bad continuation byte"},
};

static void username_valid_follows_the_table(void)
{
    size_t i;
    char what[120];

    for (i = 0; i < sizeof(user_cases) / sizeof(user_cases[0]); i++) {
        size_t len = user_cases[i].len ? user_cases[i].len
                                       : strlen(user_cases[i].bytes);

        snprintf(what, sizeof(what), "%s", user_cases[i].why);
        CHECK_EQ(hsc_username_valid(user_cases[i].bytes, len),
                 user_cases[i].valid, what);
    }
}

static void username_valid_limits_length_to_255_bytes(void)
{
    char buf[300];

    memset(buf, 'a', sizeof(buf));
    CHECK_EQ(hsc_username_valid(buf, 255), 1, "255 bytes accepted");
    CHECK_EQ(hsc_username_valid(buf, 256), 0, "256 bytes refused");
    CHECK_EQ(hsc_username_valid(NULL, 3), 0, "NULL refused");
}

/* --- hsc_groupname_valid ------------------------------------------------- */

static const struct {
    const char *name; /* group name */
    int valid;        /* expected result */
} group_cases[] = {
    {"admins", 1},   {"team-a_b.c", 1}, {"\xc3\xa9quipe", 1}, /* UTF-8 */
    {"", 0},         {"a,b", 0},      /* the store's separator */
    {"a b", 0},                       /* Require's separator */
    {"a\tb", 0},                      /* control */
    {"a\x7f", 0},    {"\xc0\xaf", 0}, /* overlong */
    {"\xc2\x85", 0},                  /* C1 next line */
};

static void groupname_valid_follows_the_table(void)
{
    size_t i;
    char what[80];
    char big[300];

    for (i = 0; i < sizeof(group_cases) / sizeof(group_cases[0]); i++) {
        snprintf(what, sizeof(what), "case %zu", i);
        CHECK_EQ(hsc_groupname_valid(group_cases[i].name,
                                     strlen(group_cases[i].name)),
                 group_cases[i].valid, what);
    }
    memset(big, 'g', sizeof(big));
    CHECK_EQ(hsc_groupname_valid(big, 255), 1, "255 bytes accepted");
    CHECK_EQ(hsc_groupname_valid(big, 256), 0, "256 bytes refused");
}

/* --- hsc_random ---------------------------------------------------------- */

static void random_fills_and_differs(void)
{
    unsigned char a[32], b[32], zero[32];

    memset(a, 0, sizeof(a));
    memset(b, 0, sizeof(b));
    memset(zero, 0, sizeof(zero));
    CHECK_EQ(hsc_random(a, sizeof(a)), HSC_OK, "first call");
    CHECK_EQ(hsc_random(b, sizeof(b)), HSC_OK, "second call");
    CHECK(memcmp(a, zero, sizeof(a)) != 0, "output is not all zero");
    CHECK(memcmp(a, b, sizeof(a)) != 0, "two calls differ");
    CHECK_EQ(hsc_random(a, 0), HSC_OK, "zero length");
}

/* Names that show as other names in a list or a log. */
static void username_invisible_characters_are_found_and_escaped(void)
{
    static const struct {
        const char *name;  /* a valid username */
        int invisible;     /* expected hsc_username_has_invisible */
        const char *shown; /* hsc_username_escape */
    } cases[] = {
        /* A name whose \x escape comes before a letter is two literals;
         * the table keeps each case on one line. */
        /* clang-format off */
        {"alice", 0, "alice"},
        {"j\xc3\xb6rg", 0, "j\xc3\xb6rg"}, /* U+00F6: an ordinary letter */
        {"evil\xe2\x80\xaegnp", 1, "evil\\u{202E}gnp"}, /* RLO */
        {"ali\xe2\x80\x8b" "ce", 1, "ali\\u{200B}ce"},   /* zero width */
        {"a\xe2\x81\xa6" "b", 1, "a\\u{2066}b"},         /* LRI */
        {"\xef\xbb\xbf" "bob", 1, "\\u{FEFF}bob"},       /* BOM */
        {"so\xc2\xad" "ft", 1, "so\\u{AD}ft"},            /* soft hyphen */
        {"x\xd8\x9c", 1, "x\\u{61C}"},                    /* ALM */
        {"a\xe2\x80\x8e", 1, "a\\u{200E}"},              /* LRM */
        {"a\\b", 0, "a\\u{5C}b"}, /* the escape character itself */
        /* clang-format on */
    };
    char out[8 * 32 + 1];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t len = strlen(cases[i].name);
        CHECK(hsc_username_valid(cases[i].name, len), cases[i].shown);
        CHECK_EQ(hsc_username_has_invisible(cases[i].name, len),
                 cases[i].invisible, cases[i].shown);
        CHECK_EQ(hsc_username_escape(cases[i].name, len, out),
                 strlen(cases[i].shown), cases[i].shown);
        CHECK_STR(out, cases[i].shown, cases[i].shown);
    }
}

int main(void)
{
    RUN(username_invisible_characters_are_found_and_escaped);
    RUN(status_class_puts_every_status_in_one_class);
    RUN(strerror_names_every_status_distinctly);
    RUN(ct_equal_returns_one_only_when_equal);
    RUN(wipe_zeroes_the_buffer);
    RUN(parse_time_accepts_only_canonical_decimal);
    RUN(parse_time_reads_only_len_bytes);
    RUN(format_time_round_trips);
    RUN(username_valid_follows_the_table);
    RUN(username_valid_limits_length_to_255_bytes);
    RUN(groupname_valid_follows_the_table);
    RUN(random_fills_and_differs);
    return hsc_test_done();
}
