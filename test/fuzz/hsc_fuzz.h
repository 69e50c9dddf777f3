/*
 * hsc_fuzz.h: what every fuzz target and the replay driver share.
 *
 * Each fuzz_<target>.c defines LLVMFuzzerTestOneInput(). Built with
 * `clang -fsanitize=fuzzer` (test/fuzz/run-fuzzers.sh) it is a libFuzzer
 * target; linked with replay.c (any compiler, `make check`) it runs the
 * committed corpus once. A target calls HSC_FUZZ_ASSERT() for every property
 * it checks: a violation prints the property and aborts, which libFuzzer
 * reports as a crash and saves the input.
 */
#ifndef HSC_FUZZ_H
#define HSC_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HSC_FUZZ_ASSERT(cond)                                                  \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: property violated: %s\n", __FILE__,        \
                    __LINE__, #cond);                                          \
            abort();                                                           \
        }                                                                      \
    } while (0)

#endif /* HSC_FUZZ_H */
