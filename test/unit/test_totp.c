/*
 * test_totp.c: TOTP (RFC 6238), HOTP (RFC 4226) and base32 (RFC 4648):
 * the RFCs' own vectors, the window and replay rule hsc_totp_check
 * applies, and oathtool (Debian's, an independent implementation) as an
 * oracle for random secrets, times and parameters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsc_test.h"
#include "hsc_totp.h"

static void base32_is_rfc4648(void)
{
    static const struct {
        const char *plain, *b32;
    } v[] = {{"", ""},
             {"f", "MY"},
             {"fo", "MZXQ"},
             {"foo", "MZXW6"},
             {"foob", "MZXW6YQ"},
             {"fooba", "MZXW6YTB"},
             {"foobar", "MZXW6YTBOI"}};
    unsigned char back[16];
    char out[32], what[80];
    size_t i, n;

    for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        hsc_base32_encode((const unsigned char *)v[i].plain, strlen(v[i].plain),
                          out);
        snprintf(what, sizeof(what), "encode \"%s\"", v[i].plain);
        CHECK_STR(out, v[i].b32, what);
        snprintf(what, sizeof(what), "decode %s", v[i].b32);
        CHECK(hsc_base32_decode(v[i].b32, strlen(v[i].b32), back, sizeof(back),
                                &n)
                      == HSC_OK
                  && n == strlen(v[i].plain)
                  && memcmp(back, v[i].plain, n) == 0,
              what);
    }
    CHECK(hsc_base32_decode("mzxw 6ytb-oi======", 18, back, sizeof(back), &n)
                  == HSC_OK
              && n == 6 && memcmp(back, "foobar", 6) == 0,
          "lower case, groups and padding as apps write them");
    CHECK_EQ(hsc_base32_decode("MZXW6YTBO1", 10, back, sizeof(back), &n),
             HSC_EMALFORMED, "a 1 is no base32");
    CHECK_EQ(hsc_base32_decode("MZ=XW", 5, back, sizeof(back), &n),
             HSC_EMALFORMED, "nothing after padding");
    CHECK_EQ(hsc_base32_decode("MY", 2, back, sizeof(back), &n), HSC_OK,
             "MY is f");
    CHECK_EQ(hsc_base32_decode("MZ7", 3, back, sizeof(back), &n),
             HSC_EMALFORMED, "a trailing character that makes no byte");
    CHECK_EQ(hsc_base32_decode("MZ", 1, back, sizeof(back), &n), HSC_EMALFORMED,
             "one character is no byte");
    CHECK_EQ(hsc_base32_decode("M3", 2, back, sizeof(back), &n), HSC_EMALFORMED,
             "leftover bits must be zero (one encoding)");
    CHECK_EQ(hsc_base32_decode("MZXW6YTBOI", 10, back, 5, &n), HSC_ETOOLONG,
             "too long for the buffer");
    CHECK_EQ(n, 0, "and nothing reported");
}

/* RFC 6238, appendix B: 8 digits, 30 s, each algorithm with its seed. */
static void totp_is_rfc6238_appendix_b(void)
{
    static const int64_t times[] = {59,         1111111109, 1111111111,
                                    1234567890, 2000000000, 20000000000LL};
    static const struct {
        hsc_totp_alg_t alg;
        const char *seed;
        uint32_t codes[6];
    } v[] = {
        {HSC_TOTP_SHA1,
         "12345678901234567890",
         {94287082, 7081804, 14050471, 89005924, 69279037, 65353130}},
        {HSC_TOTP_SHA256,
         "12345678901234567890123456789012",
         {46119246, 68084774, 67062674, 91819424, 90698825, 77737706}},
        {HSC_TOTP_SHA512,
         "1234567890123456789012345678901234567890123456789012345678901234",
         {90693936, 25091201, 99943326, 93441116, 38618901, 47863826}},
    };
    hsc_totp_params_t p = {HSC_TOTP_SHA1, 8, 30};
    char what[80];
    size_t a, i;
    uint32_t code;

    for (a = 0; a < sizeof(v) / sizeof(v[0]); a++) {
        p.alg = v[a].alg;
        for (i = 0; i < 6; i++) {
            snprintf(what, sizeof(what), "%s at %lld", hsc_totp_alg_name(p.alg),
                     (long long)times[i]);
            CHECK(hsc_hotp(&p, (const unsigned char *)v[a].seed,
                           strlen(v[a].seed),
                           (uint64_t)hsc_totp_step(&p, times[i]), &code)
                          == HSC_OK
                      && code == v[a].codes[i],
                  what);
        }
    }
}

static void check_applies_the_window_and_the_last_step(void)
{
    hsc_totp_params_t p;
    const unsigned char key[] = "12345678901234567890";
    int64_t now = 1800000000, t, got;
    char code[16], typed[16];
    uint32_t c;

    hsc_totp_defaults(&p);
    t = hsc_totp_step(&p, now);
#define CODE_AT(step)                                                          \
    (hsc_hotp(&p, key, 20, (uint64_t)(step), &c),                              \
     snprintf(code, sizeof(code), "%06u", (unsigned)c), code)
    CHECK(hsc_totp_check(&p, key, 20, CODE_AT(t), now, 1, 0, &got) == HSC_OK
              && got == t,
          "the current code is accepted, at its step");
    CHECK_EQ(hsc_totp_check(&p, key, 20, CODE_AT(t), now, 1, t, &got),
             HSC_EAUTH, "not again once its step is the last accepted");
    CHECK(hsc_totp_check(&p, key, 20, CODE_AT(t - 1), now, 1, t - 2, &got)
                  == HSC_OK
              && got == t - 1,
          "one step behind (skew) is accepted");
    CHECK_EQ(hsc_totp_check(&p, key, 20, CODE_AT(t - 1), now, 1, t, &got),
             HSC_EAUTH, "an older step after a newer one is refused");
    CHECK(hsc_totp_check(&p, key, 20, CODE_AT(t + 1), now, 1, 0, &got) == HSC_OK
              && got == t + 1,
          "one step ahead is accepted");
    CHECK_EQ(hsc_totp_check(&p, key, 20, CODE_AT(t + 2), now, 1, 0, &got),
             HSC_EAUTH, "two steps ahead is not");
    CHECK_EQ(hsc_totp_check(&p, key, 20, CODE_AT(t - 2), now, 1, 0, &got),
             HSC_EAUTH, "nor two behind");
    CHECK_EQ(hsc_totp_check(&p, key, 20, CODE_AT(t + 1), now, 0, 0, &got),
             HSC_EAUTH, "window 0: the current step only");
    CHECK_EQ(got, -1, "a refusal gives no step");
    CHECK(hsc_totp_check(&p, key, 20, CODE_AT(t + 2), now, 2, 0, &got) == HSC_OK
              && got == t + 2,
          "window 2 (HSCTOTPSkew 2): two steps ahead");
    CHECK_EQ(hsc_totp_check(&p, key, 20, CODE_AT(t + 3), now, 2, 0, &got),
             HSC_EAUTH, "window 2: not three");
    {
        /* The window's edge: a code of the next step taken in the last
         * second of this one, then tried again in the next step's first
         * second, where it is the current code. */
        int64_t edge = (t + 1) * 30, last;

        CHECK(hsc_totp_check(&p, key, 20, CODE_AT(t + 1), edge - 1, 1, t - 5,
                             &last)
                      == HSC_OK
                  && last == t + 1,
              "the next step's code, at the step's last second");
        CHECK_EQ(hsc_totp_check(&p, key, 20, CODE_AT(t + 1), edge, 1, last,
                                &got),
                 HSC_EAUTH, "refused again past the edge, where it is current");
        CHECK_EQ(hsc_totp_check(&p, key, 20, CODE_AT(t + 1), edge + 30, 2, last,
                                &got),
                 HSC_EAUTH, "and a step later with window 2");
    }
    CHECK_EQ(hsc_totp_check(&p, key, 20, "12345", now, 1, 0, &got), HSC_EINVAL,
             "a code of the wrong length is no code");
#undef CODE_AT
    CHECK(hsc_totp_code_parse(&p, "123 456", 7, typed) == HSC_OK
              && strcmp(typed, "123456") == 0,
          "a code typed with a space");
    CHECK_EQ(hsc_totp_code_parse(&p, "12345a", 6, typed), HSC_EMALFORMED,
             "a letter");
    CHECK_EQ(hsc_totp_code_parse(&p, "1234567", 7, typed), HSC_EMALFORMED,
             "seven digits for six");
    CHECK_EQ(hsc_totp_code_parse(&p, "", 0, typed), HSC_EMALFORMED, "nothing");
}

static void uri_is_what_apps_read(void)
{
    hsc_totp_params_t p;
    char uri[300];

    hsc_totp_defaults(&p);
    CHECK_EQ(hsc_totp_uri(&p, "Example Site", "j\xc3\xb6rg@example.org",
                          (const unsigned char *)"12345678901234567890", 20,
                          uri, sizeof(uri)),
             HSC_OK, "an otpauth URI");
    CHECK_STR(uri,
              "otpauth://totp/Example%20Site:j%C3%B6rg@example.org?secret="
              "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Example%20Site&"
              "algorithm=SHA1&digits=6&period=30",
              "issuer and user escaped, the secret in base32");
    CHECK_EQ(hsc_totp_uri(&p, "x", "y", (const unsigned char *)"k", 1, uri, 20),
             HSC_ETOOLONG, "a short buffer");
    CHECK_STR(uri, "", "holds nothing after");
}

/* oathtool's code for secret (base32) at t with p, or -1. */
static long oathtool(const hsc_totp_params_t *p, const char *b32, int64_t t)
{
    char cmd[300], line[64];
    FILE *f;
    long code = -1;

    snprintf(cmd, sizeof(cmd),
             "oathtool --totp=%s -b -d %u -s %us -N @%lld %s 2>/dev/null",
             hsc_totp_alg_name(p->alg), p->digits, p->period, (long long)t,
             b32);
    f = popen(cmd, "r");
    if (f == NULL) {
        return -1;
    }
    if (fgets(line, sizeof(line), f) != NULL) {
        code = strtol(line, NULL, 10);
    }
    return pclose(f) == 0 ? code : -1;
}

static void oathtool_agrees(void)
{
    static const hsc_totp_alg_t algs[] = {HSC_TOTP_SHA1, HSC_TOTP_SHA256,
                                          HSC_TOTP_SHA512};
    unsigned char secret[HSC_TOTP_SECRET_MAX];
    char b32[HSC_BASE32_LEN(HSC_TOTP_SECRET_MAX) + 1];
    int i, agree = 0, ran = 0;
    unsigned seed = 20261205;

    for (i = 0; i < 60; i++) {
        hsc_totp_params_t p;
        size_t len = 10 + (size_t)(rand_r(&seed) % 40), k;
        int64_t t = (int64_t)(rand_r(&seed) % 2000000000) * 2;
        uint32_t mine;
        long theirs;

        p.alg = algs[i % 3];
        p.digits = 6 + (unsigned)(i % 3);
        p.period = i % 4 == 0 ? 60 : 30;
        for (k = 0; k < len; k++) {
            secret[k] = (unsigned char)rand_r(&seed);
        }
        hsc_base32_encode(secret, len, b32);
        theirs = oathtool(&p, b32, t);
        ran += theirs >= 0;
        agree += theirs >= 0
                 && hsc_hotp(&p, secret, len, (uint64_t)hsc_totp_step(&p, t),
                             &mine)
                        == HSC_OK
                 && (long)mine == theirs;
    }
    CHECK_EQ(ran, 60, "oathtool answered all 60 (Debian's oathtool package)");
    CHECK_EQ(agree, 60,
             "and agrees on every code (3 algorithms, 6-8 digits, 30/60 s)");
}

int main(void)
{
    RUN(base32_is_rfc4648);
    RUN(totp_is_rfc6238_appendix_b);
    RUN(check_applies_the_window_and_the_last_step);
    RUN(uri_is_what_apps_read);
    RUN(oathtool_agrees);
    return hsc_test_done();
}
