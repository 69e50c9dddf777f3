/*
 * hsc_test.h: a tiny TAP harness for the C unit tests. Each CHECK is one
 * numbered assertion; `make check` counts them through automake's TAP
 * driver. A test file is a list of functions with sentence names, run by
 * RUN() from main(), which ends with `return hsc_test_done();`.
 */
#ifndef HSC_TEST_H
#define HSC_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hsc_test_n, hsc_test_failed;
static const char *hsc_test_current = "";

/* One assertion: prints "ok N - test: what" or "not ok N - ...". */
#define CHECK(cond, what)                                                      \
    do {                                                                       \
        ++hsc_test_n;                                                          \
        if (cond) {                                                            \
            printf("ok %d - %s: %s\n", hsc_test_n, hsc_test_current, what);    \
        }                                                                      \
        else {                                                                 \
            ++hsc_test_failed;                                                 \
            printf("not ok %d - %s: %s\n", hsc_test_n, hsc_test_current,       \
                   what);                                                      \
            printf("# failed at %s:%d: %s\n", __FILE__, __LINE__, #cond);      \
        }                                                                      \
    } while (0)

/* Equality of two integers, showing both on failure. */
#define CHECK_EQ(a, b, what)                                                   \
    do {                                                                       \
        long long hsc_a_ = (long long)(a), hsc_b_ = (long long)(b);            \
        CHECK(hsc_a_ == hsc_b_, what);                                         \
        if (hsc_a_ != hsc_b_)                                                  \
            printf("#   got %lld, expected %lld\n", hsc_a_, hsc_b_);           \
    } while (0)

/* Equality of two C strings, showing both on failure. */
#define CHECK_STR(a, b, what)                                                  \
    do {                                                                       \
        const char *hsc_sa_ = (a), *hsc_sb_ = (b);                             \
        int hsc_eq_ = hsc_sa_ && hsc_sb_ && strcmp(hsc_sa_, hsc_sb_) == 0;     \
        CHECK(hsc_eq_, what);                                                  \
        if (!hsc_eq_)                                                          \
            printf("#   got \"%s\", expected \"%s\"\n",                        \
                   hsc_sa_ ? hsc_sa_ : "(null)",                               \
                   hsc_sb_ ? hsc_sb_ : "(null)");                              \
    } while (0)

/* An assertion that cannot mean anything in this run: counted, printed as
 * "ok N - ... # SKIP why" (scripts/test-all.sh lists it as skipped). */
#define SKIP(what, why)                                                        \
    do {                                                                       \
        ++hsc_test_n;                                                          \
        printf("ok %d - %s: %s # SKIP %s\n", hsc_test_n, hsc_test_current,     \
               what, why);                                                     \
    } while (0)

#define RUN(fn)                                                                \
    do {                                                                       \
        hsc_test_current = #fn;                                                \
        fn();                                                                  \
    } while (0)

/* Prints the plan (TAP allows it last) and returns main's exit status. */
static int hsc_test_done(void)
{
    printf("1..%d\n", hsc_test_n);
    if (hsc_test_n == 0) {
        printf("# no assertion ran\n");
        return 1;
    }
    return hsc_test_failed ? 1 : 0;
}

#endif /* HSC_TEST_H */
