/*
 * test_parse.c: durations and counts as administrators write them
 * (hsc_parse.h), shared by the module's directives and hsc-admin.
 */
#include <stdio.h>
#include <string.h>

#include "hsc_test.h"
#include "hsc_parse.h"

static const struct {
    const char *in;  /* the argument as written */
    int allow_zero;  /* 1: HSCClockSkew-style, 0 allowed */
    hsc_status_t st; /* expected status */
    long long out;   /* expected seconds when HSC_OK */
} duration_cases[] = {
    {"30m", 0, HSC_OK, 1800},
    {"8h", 0, HSC_OK, 28800},
    {"60s", 0, HSC_OK, 60},
    {"1d", 0, HSC_OK, 86400},
    {"90", 0, HSC_OK, 90},
    {"0", 1, HSC_OK, 0},
    {"0s", 1, HSC_OK, 0},
    {"0", 0, HSC_EMALFORMED, 0},
    {"0m", 0, HSC_EMALFORMED, 0},
    {"3660d", 0, HSC_OK, 3660LL * 86400}, /* exactly ten years */
    {"3661d", 0, HSC_EMALFORMED, 0},      /* over ten years */
    {"316224001", 0, HSC_EMALFORMED, 0},
    {"99999999999999999999d", 0, HSC_EMALFORMED, 0}, /* no overflow */
    {"", 0, HSC_EMALFORMED, 0},
    {"m", 0, HSC_EMALFORMED, 0},
    {"10x", 0, HSC_EMALFORMED, 0},
    {"10mm", 0, HSC_EMALFORMED, 0},
    {"-5", 1, HSC_EMALFORMED, 0},
    {"+5", 1, HSC_EMALFORMED, 0},
    {" 5", 1, HSC_EMALFORMED, 0},
    {"5 ", 1, HSC_EMALFORMED, 0},
    {"5M", 1, HSC_EMALFORMED, 0}, /* units are lower case */
};

static void parse_duration_follows_the_table(void)
{
    size_t i;
    char what[96];

    for (i = 0; i < sizeof(duration_cases) / sizeof(duration_cases[0]); i++) {
        int64_t out = -1;
        hsc_status_t st = hsc_parse_duration(duration_cases[i].in,
                                             duration_cases[i].allow_zero,
                                             &out);
        snprintf(what, sizeof(what), "\"%s\" (zero %s)", duration_cases[i].in,
                 duration_cases[i].allow_zero ? "allowed" : "refused");
        CHECK_EQ(st, duration_cases[i].st, what);
        CHECK_EQ(out, duration_cases[i].out, "and its seconds (0 on error)");
    }
}

static void parse_duration_refuses_null(void)
{
    int64_t out = 7;

    CHECK_EQ(hsc_parse_duration(NULL, 1, &out), HSC_EMALFORMED, "NULL");
    CHECK_EQ(out, 0, "out is assigned");
}

static const struct {
    const char *in;  /* the argument */
    int max;         /* the caller's bound */
    hsc_status_t st; /* expected */
    int out;         /* expected value when HSC_OK */
} count_cases[] = {
    {"0", HSC_COUNT_MAX, HSC_OK, 0},
    {"20", HSC_COUNT_MAX, HSC_OK, 20},
    {"1000000", HSC_COUNT_MAX, HSC_OK, 1000000},
    {"1000001", HSC_COUNT_MAX, HSC_EMALFORMED, 0},
    {"1000001", 2000000, HSC_EMALFORMED, 0}, /* never over HSC_COUNT_MAX */
    {"5", 4, HSC_EMALFORMED, 0},
    {"4", 4, HSC_OK, 4},
    {"007", HSC_COUNT_MAX, HSC_OK, 7},
    {"", HSC_COUNT_MAX, HSC_EMALFORMED, 0},
    {"-1", HSC_COUNT_MAX, HSC_EMALFORMED, 0},
    {"2x", HSC_COUNT_MAX, HSC_EMALFORMED, 0},
    {"lots", HSC_COUNT_MAX, HSC_EMALFORMED, 0},
    {"99999999999999999999", HSC_COUNT_MAX, HSC_EMALFORMED, 0},
};

static void parse_count_follows_the_table(void)
{
    size_t i;
    char what[96];

    for (i = 0; i < sizeof(count_cases) / sizeof(count_cases[0]); i++) {
        int out = -1;
        hsc_status_t st = hsc_parse_count(count_cases[i].in, count_cases[i].max,
                                          &out);
        snprintf(what, sizeof(what), "\"%s\" (max %d)", count_cases[i].in,
                 count_cases[i].max);
        CHECK_EQ(st, count_cases[i].st, what);
        CHECK_EQ(out, count_cases[i].out, "and its value (0 on error)");
    }
    {
        int out = 7;
        CHECK_EQ(hsc_parse_count(NULL, 5, &out), HSC_EMALFORMED, "NULL");
        CHECK_EQ(out, 0, "out is assigned");
    }
}

int main(void)
{
    RUN(parse_duration_follows_the_table);
    RUN(parse_duration_refuses_null);
    RUN(parse_count_follows_the_table);
    return hsc_test_done();
}
