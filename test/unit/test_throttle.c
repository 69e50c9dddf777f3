/*
 * test_throttle.c: the counting behind login throttling (hsc_throttle.h):
 * keys, stored values read strictly, the fixed window, and when an attempt
 * must wait. mod_hsc_throttle.c keeps these counters in httpd's socache;
 * t/16_throttle.t tests them there.
 */
#include <stdio.h>
#include <string.h>

#include "hsc_test.h"
#include "hsc_throttle.h"

#define WINDOW 300
#define MAX 1000
/* Ten years (hsc_parse.h's HSC_DURATION_MAX). */
#define HSC_DURATION_MAX_TEST ((int64_t)10 * 366 * 86400)

static void key_is_spread_tag_colon_and_32_hex_digits_of_sha256(void)
{
    char key[HSC_THROTTLE_KEY_LEN];

    /* printf '%s\0%s' example.org 198.51.100.7 | sha256sum: 16 bytes,
     * and byte 16 (0x58) & 63 = 24 above '?': 'W'. */
    CHECK_EQ(hsc_throttle_key('a', "example.org", "198.51.100.7", 12, key),
             HSC_OK, "an address key is made");
    CHECK_STR(key, "Wa:d4260452848f320e5663e337c52c4066",
              "spread, tag, colon, SHA-256(scope NUL value) in hex");
    CHECK_EQ(strlen(key), HSC_THROTTLE_KEY_LEN - 1, "36 bytes with its NUL");
}

/*
 * shmcb picks a subcache by the key's first byte & (subcaches - 1). With
 * the tag first, every address key went to one subcache of 128 (~185
 * entries) and a few hundred other addresses evicted a lockout.
 */
static void keys_spread_evenly_over_64_subcaches(void)
{
    unsigned hits[128] = {0};
    unsigned i, used = 0, most = 0, odd = 0;
    char key[HSC_THROTTLE_KEY_LEN], name[32];

    for (i = 0; i < 6400; i++) {
        int n = snprintf(name, sizeof(name), "user%u", i);
        hsc_throttle_key('u', "/db", name, (size_t)n, key);
        odd += key[0] < '?' || key[0] > '~';
        hits[(unsigned char)key[0] & 127]++;
    }
    for (i = 0; i < 128; i++) {
        used += hits[i] > 0;
        most = hits[i] > most ? hits[i] : most;
    }
    CHECK_EQ(odd, 0, "every first byte is one of '?' to '~'");
    CHECK_EQ(used, 64, "64 of 128 subcaches take usernames");
    CHECK(most < 200, "none holds more than twice its share of 100");
    for (i = 0; i < 64; i++) {
        hits[i] = 0;
    }
    for (i = 0; i < 6400; i++) {
        int n = snprintf(name, sizeof(name), "user%u", i);
        hsc_throttle_key('u', "/db", name, (size_t)n, key);
        hits[(unsigned char)key[0] & 63]++;
    }
    for (i = 0, used = 0; i < 64; i++) {
        used += hits[i] > 0;
    }
    CHECK_EQ(used, 64, "with 64 subcaches (a smaller cache), all 64");
}

/* The value an address is counted under. */
static const struct {
    const char *ip, *want, *what;
} address_cases[] = {
    {"198.51.100.7", "198.51.100.7", "IPv4 as it is"},
    {"2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64", "IPv6: its /64"},
    {"2001:db8:1:2::1", "2001:db8:1:2::/64", "another address, same /64"},
    {"2001:DB8:1:2:0:0:0:ffff", "2001:db8:1:2::/64", "any spelling"},
    {"2001:db8:1:3::1", "2001:db8:1:3::/64", "the next /64 is another"},
    {"::ffff:192.0.2.9", "192.0.2.9", "IPv4-mapped: the IPv4 address"},
    {"::1", "::/64", "loopback"},
    {"not-an-address", "not-an-address", "anything else as it is"},
    {"", "", "empty"},
};

static void ipv6_addresses_count_by_their_64(void)
{
    size_t i;
    char out[HSC_THROTTLE_ADDR_MAX];

    for (i = 0; i < sizeof(address_cases) / sizeof(address_cases[0]); i++) {
        hsc_throttle_address(address_cases[i].ip, out);
        CHECK_STR(out, address_cases[i].want, address_cases[i].what);
    }
    hsc_throttle_address(NULL, out);
    CHECK_STR(out, "", "NULL: empty");
}

static void keys_keep_scope_and_value_apart(void)
{
    char k1[HSC_THROTTLE_KEY_LEN], k2[HSC_THROTTLE_KEY_LEN];
    char k3[HSC_THROTTLE_KEY_LEN];

    hsc_throttle_key('u', "ab", "c", 1, k1);
    hsc_throttle_key('u', "a", "bc", 2, k2);
    /* printf '%s\0%s' ab c | sha256sum */
    CHECK_STR(k1, "@u:6c032e631d39a14d85aff7e319546af7",
              "(\"ab\", \"c\") as sha256sum says");
    /* printf '%s\0%s' a bc | sha256sum */
    CHECK_STR(k2, "Ju:40bb547d936bbd31318ee37ac8799e7e",
              "(\"a\", \"bc\") differs: the NUL separates");
    hsc_throttle_key('a', "ab", "c", 1, k3);
    CHECK(strcmp(k1 + 2, k3 + 2) == 0 && k1[0] == k3[0] && k1[1] != k3[1],
          "the tag keeps address and user counters apart");
    hsc_throttle_key('u', "ab", "c\0d", 3, k3);
    CHECK(strcmp(k1, k3) != 0, "bytes after a NUL in the value count");
}

/* One stored value and what reading it at `now` gives. */
static const struct {
    const char *value; /* stored bytes */
    int64_t now;       /* when read */
    hsc_status_t st;   /* expected status */
    int64_t start;     /* expected counter */
    uint32_t count;
    const char *what;
} decode_cases[] = {
    {"100 3", 150, HSC_OK, 100, 3, "inside its window"},
    {"100 0", 100, HSC_OK, 100, 0, "at its first second"},
    {"100 3", 399, HSC_OK, 100, 3, "at the window's last second"},
    {"100 3", 400, HSC_OK, 400, 0, "at start + window: forgotten"},
    {"100 3", 9999, HSC_OK, 9999, 0, "long after: forgotten"},
    {"500 3", 400, HSC_OK, 400, 3,
     "from the future (another clock runs ahead): kept, from now"},
    {"999999999999999999 7", 400, HSC_OK, 400, 7,
     "far in the future: kept, from now"},
    {"100 1000", 150, HSC_OK, 100, 1000, "the highest count allowed"},
    {"0 2", 10, HSC_OK, 0, 2, "a start of 0"},
    {"100 1001", 150, HSC_EMALFORMED, 150, 0, "a count over the maximum"},
    {"", 150, HSC_EMALFORMED, 150, 0, "empty"},
    {"100", 150, HSC_EMALFORMED, 150, 0, "no count"},
    {"100 ", 150, HSC_EMALFORMED, 150, 0, "an empty count"},
    {"100 3 ", 150, HSC_EMALFORMED, 150, 0, "a trailing space"},
    {" 100 3", 150, HSC_EMALFORMED, 150, 0, "a leading space"},
    {"100  3", 150, HSC_EMALFORMED, 150, 0, "two spaces"},
    {"100 -1", 150, HSC_EMALFORMED, 150, 0, "a negative count"},
    {"-100 3", 150, HSC_EMALFORMED, 150, 0, "a negative start"},
    {"+100 3", 150, HSC_EMALFORMED, 150, 0, "a plus sign"},
    {"0100 3", 150, HSC_EMALFORMED, 150, 0, "a leading zero"},
    {"100 03", 150, HSC_EMALFORMED, 150, 0, "a leading zero in the count"},
    {"100 x", 150, HSC_EMALFORMED, 150, 0, "a letter"},
    {"100\t3", 150, HSC_EMALFORMED, 150, 0, "a tab"},
    {"1000000000000000000 3", 150, HSC_EMALFORMED, 150, 0,
     "a start of 19 digits"},
    {"100 99999999999", 150, HSC_EMALFORMED, 150, 0, "a count of 11 digits"},
};

static void decode_reads_two_canonical_decimals_within_the_window(void)
{
    size_t i;

    for (i = 0; i < sizeof(decode_cases) / sizeof(decode_cases[0]); i++) {
        hsc_counter_t c = {-1, 77};
        hsc_status_t st = hsc_counter_decode(decode_cases[i].value,
                                             strlen(decode_cases[i].value),
                                             decode_cases[i].now, WINDOW, MAX,
                                             &c);

        CHECK(st == decode_cases[i].st && c.start == decode_cases[i].start
                  && c.count == decode_cases[i].count,
              decode_cases[i].what);
        if (st != decode_cases[i].st || c.start != decode_cases[i].start
            || c.count != decode_cases[i].count) {
            printf("#   \"%s\" at %lld: status %d, %lld %lu\n",
                   decode_cases[i].value, (long long)decode_cases[i].now,
                   (int)st, (long long)c.start, (unsigned long)c.count);
        }
    }
}

static void decode_reads_only_len_bytes_and_absent_is_fresh(void)
{
    hsc_counter_t c = {-1, 77};

    CHECK_EQ(hsc_counter_decode("100 35", 5, 150, WINDOW, MAX, &c), HSC_OK,
             "the bytes after len are not read");
    CHECK_EQ(c.count, 3, "so the count is 3");
    c.start = -1;
    c.count = 77;
    CHECK_EQ(hsc_counter_decode(NULL, 0, 150, WINDOW, MAX, &c), HSC_OK,
             "an absent counter");
    CHECK(c.start == 150 && c.count == 0, "starts now at 0");
}

static void encode_then_decode_gives_the_counter_back(void)
{
    hsc_counter_t in = {1796310804, 19}, out = {0, 0};
    char buf[HSC_THROTTLE_VALUE_MAX];
    size_t n = hsc_counter_encode(&in, buf);

    CHECK_STR(buf, "1796310804 19", "encoded as two decimals");
    CHECK_EQ(n, strlen("1796310804 19"), "its length");
    CHECK_EQ(hsc_counter_decode(buf, n, in.start + 10, WINDOW, MAX, &out),
             HSC_OK, "read back");
    CHECK(out.start == in.start && out.count == in.count, "unchanged");
}

/* A counter, a limit, now, and the wait expected. */
static const struct {
    int64_t start;
    uint32_t count;
    int limit;
    int64_t now;
    int64_t wait;
    const char *what;
} wait_cases[] = {
    {100, 4, 5, 150, 0, "under the limit: go on"},
    {100, 5, 5, 150, 250, "at the limit: wait for the window's end"},
    {100, 9, 5, 150, 250, "over it: the same wait"},
    {100, 5, 5, 399, 1, "one second before the end: 1"},
    {100, 5, 5, 400, 0, "at the end: go on"},
    {100, 5, 0, 150, 0, "a limit of 0 never waits"},
    {100, 5, -1, 150, 0, "nor a negative one"},
    {100, 0, 1, 100, 0, "a fresh counter with limit 1: go on"},
    {100, 1, 1, 100, 300, "one attempt with limit 1: the whole window"},
};

static void wait_is_the_rest_of_the_window_at_or_over_the_limit(void)
{
    size_t i;

    for (i = 0; i < sizeof(wait_cases) / sizeof(wait_cases[0]); i++) {
        hsc_counter_t c;

        c.start = wait_cases[i].start;
        c.count = wait_cases[i].count;
        CHECK_EQ(hsc_counter_wait(&c, wait_cases[i].limit, wait_cases[i].now,
                                  WINDOW),
                 wait_cases[i].wait, wait_cases[i].what);
    }
}

/* The exact mode's memcached keys: prefixed, bounded, printable. */
static void exact_keys_are_prefixed_hash_keys(void)
{
    char key[HSC_THROTTLE_KEY_LEN], mk[HSC_THROTTLE_EXACT_KEY_MAX];
    char name[300];
    size_t i;

    CHECK_EQ(hsc_throttle_key('a', "example.org", "198.51.100.7", 12, key),
             HSC_OK, "an address key");
    CHECK_EQ(hsc_throttle_exact_key(key, 0, mk), HSC_OK, "its counter");
    CHECK_STR(mk, "hsc:Wa:d4260452848f320e5663e337c52c4066",
              "hsc: and the socache path's key");
    CHECK_EQ(hsc_throttle_exact_key(key, 1, mk), HSC_OK, "its start");
    CHECK_STR(mk, "hsc:Wa:d4260452848f320e5663e337c52c4066:t", "and :t");
    CHECK(strlen(mk) < HSC_THROTTLE_EXACT_KEY_MAX && strlen(mk) <= 250,
          "within the buffer and memcached's 250 bytes");
    /* A 255-byte username with spaces and control bytes: the key is its
     * hash, so nothing of it reaches memcached. */
    memset(name, ' ', 255);
    name[0] = '\n';
    name[254] = '\r';
    CHECK_EQ(hsc_throttle_key('u', "/db", name, 255, key), HSC_OK,
             "a hostile username's key");
    CHECK_EQ(hsc_throttle_exact_key(key, 1, mk), HSC_OK, "its start's key");
    for (i = 0; mk[i] != '\0'; i++) {
        if (mk[i] <= ' ' || mk[i] > '~') {
            break;
        }
    }
    CHECK_EQ(mk[i], '\0', "no space or control byte in the key");
    CHECK_EQ(hsc_throttle_exact_key("a b", 0, mk), HSC_EINVAL,
             "a key with a space is refused");
    CHECK_STR(mk, "", "and nothing is written");
    CHECK_EQ(hsc_throttle_exact_key("", 0, mk), HSC_EINVAL, "an empty key");
    memset(name, 'x', 60);
    name[60] = '\0';
    CHECK_EQ(hsc_throttle_exact_key(name, 1, mk), HSC_EINVAL,
             "a key longer than hsc_throttle_key's");
}

static void exact_expiry_is_relative_up_to_30_days(void)
{
    CHECK_EQ(hsc_throttle_exact_expiry(300, 1700000000), 300, "5 minutes");
    CHECK_EQ(hsc_throttle_exact_expiry(30 * 86400, 1700000000), 30 * 86400,
             "30 days: still relative");
    CHECK_EQ(hsc_throttle_exact_expiry(30 * 86400 + 1, 1700000000),
             1700000000 + 30 * 86400 + 1, "above: a Unix time");
    CHECK_EQ(hsc_throttle_exact_expiry(0, 1700000000), 1, "at least 1");
    CHECK_EQ(hsc_throttle_exact_expiry(HSC_DURATION_MAX_TEST, 4294967000LL),
             4294967295U, "no wrap past 2106");
}

/* A start as stored, now, and the wait expected (window 300). */
static const struct {
    const char *start;
    int64_t now;
    int64_t wait;
    const char *what;
} exact_wait_cases[] = {
    {"1000", 1100, 200, "the rest of the window"},
    {"1000", 1299, 1, "its last second"},
    {"1000", 1300, 1, "past it by this clock: 1, memcached decides"},
    {"1000", 5000, 1, "long past: still 1"},
    {"1000", 900, 300, "a start in the future: one window"},
    {NULL, 1100, 300, "absent: the whole window"},
    {"", 1100, 300, "empty: the whole window"},
    {"01000", 1100, 300, "not canonical: the whole window"},
    {"1000 ", 1100, 300, "trailing space: the whole window"},
    {"-5", 1100, 300, "negative: the whole window"},
    {"99999999999999999999", 1100, 300, "too long: the whole window"},
};

static void exact_wait_is_the_rest_of_the_window(void)
{
    size_t i;

    for (i = 0; i < sizeof(exact_wait_cases) / sizeof(exact_wait_cases[0]);
         i++) {
        const char *s = exact_wait_cases[i].start;

        CHECK_EQ(hsc_throttle_exact_wait(s, s ? strlen(s) : 0,
                                         exact_wait_cases[i].now, WINDOW),
                 exact_wait_cases[i].wait, exact_wait_cases[i].what);
    }
    CHECK_EQ(hsc_throttle_exact_wait("1000xyz", 4, 1100, WINDOW), 200,
             "only len bytes are read");
}

/* One reply of memcached's text protocol, what it reads as, and the
 * bytes it takes (0 where none are). */
static const struct {
    const char *reply;
    hsc_mc_reply_t kind;
    size_t used;
    const char *what;
} mc_cases[] = {
    {"7\r\n", HSC_MC_NUMBER, 3, "incr's count"},
    {"18446744073709551615\r\n", HSC_MC_NUMBER, 22, "2^64 - 1"},
    {"18446744073709551616\r\n", HSC_MC_ERROR, 0, "2^64: too big"},
    {"07\r\n", HSC_MC_ERROR, 0, "a leading zero"},
    {"-1\r\n", HSC_MC_ERROR, 0, "a sign"},
    {"STORED\r\n", HSC_MC_STORED, 8, "add or set"},
    {"NOT_STORED\r\n", HSC_MC_NOT_STORED, 12, "add lost"},
    {"NOT_FOUND\r\n", HSC_MC_NOT_FOUND, 11, "no counter"},
    {"DELETED\r\n", HSC_MC_DELETED, 9, "delete"},
    {"END\r\n", HSC_MC_END, 5, "get: none"},
    {"VALUE hsc:k:t 0 4\r\n1000\r\nEND\r\n", HSC_MC_VALUE, 30, "get: one"},
    {"VALUE k 0 4\r\n1000\r\nEND", HSC_MC_MORE, 0, "a get without its end"},
    {"VALUE k 0 4\r\n10001\r\nEND\r\n", HSC_MC_ERROR, 0,
     "a value longer than said"},
    {"VALUE k 0\r\n\r\nEND\r\n", HSC_MC_ERROR, 0, "no length"},
    {"VALUE k 0 999\r\n", HSC_MC_ERROR, 0, "a value above the bound"},
    {"ERROR\r\n", HSC_MC_ERROR, 0, "ERROR"},
    {"SERVER_ERROR out of memory\r\n", HSC_MC_ERROR, 0, "SERVER_ERROR"},
    {"CLIENT_ERROR bad\r\n", HSC_MC_ERROR, 0, "CLIENT_ERROR"},
    {"STORED\n", HSC_MC_ERROR, 0, "a bare LF"},
    {"STO", HSC_MC_MORE, 0, "a part"},
    {"STORED\r", HSC_MC_MORE, 0, "all but the LF"},
    {"", HSC_MC_MORE, 0, "nothing yet"},
};

static void memcached_replies_read_one_way(void)
{
    size_t i;

    for (i = 0; i < sizeof(mc_cases) / sizeof(mc_cases[0]); i++) {
        const char *r = mc_cases[i].reply;
        size_t used = 99, dlen = 0;
        uint64_t v = 0;
        const char *data = NULL;

        CHECK_EQ(hsc_mc_reply(r, strlen(r), &used, &v, &data, &dlen),
                 mc_cases[i].kind, mc_cases[i].what);
        CHECK_EQ(used, mc_cases[i].used, mc_cases[i].what);
        if (mc_cases[i].kind == HSC_MC_VALUE) {
            CHECK_EQ(dlen, 4, "the value's length");
            CHECK(data != NULL && memcmp(data, "1000", 4) == 0, "the value");
        }
    }
    {
        char big[HSC_MC_REPLY_MAX + 8];
        size_t used;
        uint64_t v;
        const char *data;
        size_t dlen;

        memset(big, '1', sizeof(big));
        CHECK_EQ(hsc_mc_reply(big, sizeof(big), &used, &v, &data, &dlen),
                 HSC_MC_ERROR, "a line longer than the bound");
    }
}

static void memcached_servers_are_chosen_by_key_alike_everywhere(void)
{
    unsigned seen[4] = {0, 0, 0, 0}, i;
    char key[32];

    CHECK_EQ(hsc_mc_server_of("hsc:anything", 1), 0, "one server");
    CHECK_EQ(hsc_mc_server_of("hsc:a", 3), hsc_mc_server_of("hsc:a", 3),
             "the same key, the same server");
    for (i = 0; i < 400; i++) {
        snprintf(key, sizeof(key), "hsc:%u", i);
        seen[hsc_mc_server_of(key, 4)]++;
    }
    for (i = 0; i < 4; i++) {
        CHECK(seen[i] > 50, "400 keys spread over 4 servers");
    }
}

int main(void)
{
    RUN(key_is_spread_tag_colon_and_32_hex_digits_of_sha256);
    RUN(keys_spread_evenly_over_64_subcaches);
    RUN(ipv6_addresses_count_by_their_64);
    RUN(keys_keep_scope_and_value_apart);
    RUN(decode_reads_two_canonical_decimals_within_the_window);
    RUN(decode_reads_only_len_bytes_and_absent_is_fresh);
    RUN(encode_then_decode_gives_the_counter_back);
    RUN(wait_is_the_rest_of_the_window_at_or_over_the_limit);
    RUN(exact_keys_are_prefixed_hash_keys);
    RUN(exact_expiry_is_relative_up_to_30_days);
    RUN(exact_wait_is_the_rest_of_the_window);
    RUN(memcached_replies_read_one_way);
    RUN(memcached_servers_are_chosen_by_key_alike_everywhere);
    return hsc_test_done();
}
