/* fuzz.h -- what every fuzz target shares: the libFuzzer entry point (run by
 * libFuzzer, or by tests/fuzz/driver.c under gcc) and FUZZ_REQUIRE, a check
 * that aborts so the driver saves the input that broke it. */
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
