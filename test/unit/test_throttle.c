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
    return hsc_test_done();
}
