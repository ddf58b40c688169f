/* fuzz.h -- what every fuzz target shares: the libFuzzer entry point (each
 * tests/fuzz/fuzz_<name>.c defines it; clang's -fsanitize=fuzzer supplies
 * main) and FUZZ_REQUIRE, a check that aborts, so a broken invariant is a
 * crash libFuzzer saves the input of, like a memory error. */
#ifndef JITSCOPE_FUZZ_H
#define JITSCOPE_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_REQUIRE(cond)                                                                         \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

#endif
