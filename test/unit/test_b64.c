/*
 * test_b64.c: canonical base64url without padding (hsc_b64.h).
 */
#include <stdio.h>
#include <string.h>

#include "hsc_test.h"
#include "hsc_b64.h"

/* RFC 4648 section 10 vectors, with the padding removed (section 5 form). */
static const struct {
    const char *plain; /* bytes to encode */
    const char *b64;   /* their canonical base64url */
} rfc_cases[] = {
    {"", ""},
    {"f", "Zg"},
    {"fo", "Zm8"},
    {"foo", "Zm9v"},
    {"foob", "Zm9vYg"},
    {"fooba", "Zm9vYmE"},
    {"foobar", "Zm9vYmFy"},
};

static void encode_matches_rfc4648_without_padding(void)
{
    size_t i;
    char out[32], what[80];

    for (i = 0; i < sizeof(rfc_cases) / sizeof(rfc_cases[0]); i++) {
        size_t n = hsc_b64url_encode(rfc_cases[i].plain,
                                     strlen(rfc_cases[i].plain), out);

        snprintf(what, sizeof(what), "encode \"%s\"", rfc_cases[i].plain);
        CHECK_STR(out, rfc_cases[i].b64, what);
        snprintf(what, sizeof(what), "length of \"%s\"", rfc_cases[i].plain);
        CHECK_EQ(n, HSC_B64URL_LEN(strlen(rfc_cases[i].plain)), what);
    }
}

static void decode_matches_rfc4648_without_padding(void)
{
    size_t i;
    unsigned char out[32];
    char what[80];

    for (i = 0; i < sizeof(rfc_cases) / sizeof(rfc_cases[0]); i++) {
        size_t n = 99;
        hsc_status_t st = hsc_b64url_decode(rfc_cases[i].b64,
                                            strlen(rfc_cases[i].b64), out,
                                            sizeof(out), &n);

        snprintf(what, sizeof(what), "decode \"%s\"", rfc_cases[i].b64);
        CHECK(st == HSC_OK && n == strlen(rfc_cases[i].plain)
                  && memcmp(out, rfc_cases[i].plain, n) == 0,
              what);
    }
}

static void encode_uses_the_url_alphabet(void)
{
    /* FB EF BE is indexes 62 62 62 62, FF FF is 63 63 60: '-' and '_' in
     * base64url where plain base64 has '+' and '/'. */
    static const unsigned char in[] = {0xFB, 0xEF, 0xBE, 0xFF, 0xFF};
    char out[16];
    unsigned char back[8];
    size_t n = 0;

    hsc_b64url_encode(in, sizeof(in), out);
    CHECK_STR(out, "----__8", "62 and 63 are '-' and '_'");
    CHECK(hsc_b64url_decode(out, strlen(out), back, sizeof(back), &n) == HSC_OK
              && n == sizeof(in) && memcmp(back, in, n) == 0,
          "round trip");
}

static void every_byte_value_round_trips(void)
{
    unsigned char in[256], back[256];
    char enc[HSC_B64URL_LEN(256) + 1];
    size_t len, n;
    int ok = 1;

    for (len = 0; len < sizeof(in); len++) {
        in[len] = (unsigned char)(255 - len);
    }
    for (len = 0; len <= sizeof(in); len++) {
        size_t e = hsc_b64url_encode(in, len, enc);

        if (e != HSC_B64URL_LEN(len) || strlen(enc) != e
            || hsc_b64url_decode(enc, e, back, sizeof(back), &n) != HSC_OK
            || n != len || memcmp(in, back, len) != 0) {
            ok = 0;
        }
    }
    CHECK(ok, "lengths 0..256 encode and decode back");
}

/* Inputs that canonical decoding refuses. */
static const struct {
    const char *text; /* input */
    hsc_status_t st;  /* expected status */
    const char *why;  /* what the case shows */
} reject_cases[] = {
    {"Zg==", HSC_EMALFORMED, "padding"},
    {"Zm8=", HSC_EMALFORMED, "one padding character"},
    {"Z", HSC_EMALFORMED, "length 1 mod 4"},
    {"Zm9vY", HSC_EMALFORMED, "length 5 (1 mod 4)"},
    {"Zh", HSC_EMALFORMED, "non-zero unused bits (4 bits)"},
    {"Zm9", HSC_EMALFORMED, "non-zero unused bits (2 bits)"},
    {"Zm+v", HSC_EMALFORMED, "'+' of plain base64"},
    {"Zm/v", HSC_EMALFORMED, "'/' of plain base64"},
    {"Zm9v\n", HSC_EMALFORMED, "line feed"},
    {"Zm 9v", HSC_EMALFORMED, "space"},
    {"Zm.v", HSC_EMALFORMED, "dot"},
    {"Zm9\xc3\xa9", HSC_EMALFORMED, "non-ASCII"},
};

static void decode_refuses_non_canonical_input(void)
{
    size_t i;
    unsigned char out[32];

    for (i = 0; i < sizeof(reject_cases) / sizeof(reject_cases[0]); i++) {
        size_t n = 99;
        hsc_status_t st = hsc_b64url_decode(reject_cases[i].text,
                                            strlen(reject_cases[i].text), out,
                                            sizeof(out), &n);

        CHECK(st == reject_cases[i].st && n == 0, reject_cases[i].why);
    }
}

static void decode_refuses_an_embedded_nul(void)
{
    unsigned char out[8];
    size_t n = 99;

    CHECK_EQ(hsc_b64url_decode("Zm\0v", 4, out, sizeof(out), &n),
             HSC_EMALFORMED, "NUL inside the length");
    CHECK_EQ(n, 0, "outlen zero");
}

static void decode_refuses_output_beyond_capacity(void)
{
    unsigned char out[6];
    size_t n = 99;

    CHECK_EQ(hsc_b64url_decode("Zm9vYmFy", 8, out, 6, &n), HSC_OK,
             "exactly the capacity");
    CHECK_EQ(n, 6, "six bytes");
    CHECK_EQ(hsc_b64url_decode("Zm9vYmFy", 8, out, 5, &n), HSC_ETOOLONG,
             "one byte over");
    CHECK_EQ(n, 0, "outlen zero on failure");
    CHECK_EQ(hsc_b64url_decode("Zm9vYmE", 7, out, 4, &n), HSC_ETOOLONG,
             "partial group over");
}

static void decode_reads_only_len_bytes(void)
{
    unsigned char out[8];
    size_t n = 0;

    CHECK(hsc_b64url_decode("Zm9v====", 4, out, sizeof(out), &n) == HSC_OK
              && n == 3 && memcmp(out, "foo", 3) == 0,
          "bytes after len are not looked at");
}

int main(void)
{
    RUN(encode_matches_rfc4648_without_padding);
    RUN(decode_matches_rfc4648_without_padding);
    RUN(encode_uses_the_url_alphabet);
    RUN(every_byte_value_round_trips);
    RUN(decode_refuses_non_canonical_input);
    RUN(decode_refuses_an_embedded_nul);
    RUN(decode_refuses_output_beyond_capacity);
    RUN(decode_reads_only_len_bytes);
    return hsc_test_done();
}
