/* fuzz_sig.c -- fuzz target for proto/sig.c, the method-signature decoder.
 *
 * The input is a signature blob as GetMethodProps would hand it over (from a
 * module the app loaded: as hostile as any outside input). It is formatted as
 * a parameter list and, from its second byte, as a lone type, with a token
 * callback that names every token, with generic argument names for a few
 * indexes, and into output buffers of several sizes. Checked: no crash or
 * overread (ASan), the output always NUL-terminated inside its buffer, and a
 * malformed answer always "(?)".
 * Built and run by `make fuzz` (build/fuzz/sig); docs/FUZZING.md. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "sig.h"

static size_t fuzz_token_name(void *ctx, uint32_t token, char *out, size_t outsz)
{
    int n = snprintf(out, outsz, "T%08x`2", token);
    (void)ctx;
    return n > 0 && (size_t)n < outsz ? (size_t)n : 0;
}

static size_t fuzz_handle_name(void *ctx, uint64_t handle, char *out, size_t outsz)
{
    int n = (handle & 1) ? snprintf(out, outsz, "H%llx<?>", (unsigned long long)handle) : 0;
    (void)ctx;
    return n > 0 && (size_t)n < outsz ? (size_t)n : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const class_args[] = {"A", "B"};
    static const char *const method_args[] = {"M"};
    static const size_t sizes[] = {8, 9, 17, 64, 1024};
    sig_names names = {.type_token = fuzz_token_name,
                       .type_handle = fuzz_handle_name,
                       .class_args = class_args,
                       .class_arg_count = 2,
                       .method_args = method_args,
                       .method_arg_count = 1};

    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        char *out = malloc(sizes[k]);
        int rc;

        FUZZ_REQUIRE(out != NULL);
        rc = sig_format_params(data, size, k % 2 ? &names : NULL, out, sizes[k]);
        FUZZ_REQUIRE(memchr(out, '\0', sizes[k]) != NULL);
        FUZZ_REQUIRE(rc >= 0 || strcmp(out, "(?)") == 0);
        FUZZ_REQUIRE(rc < 0 || (out[0] == '(' && out[strlen(out) - 1] == ')'));
        if (size > 1) {
            rc = sig_format_type(data + 1, size - 1, &names, out, sizes[k]);
            FUZZ_REQUIRE(memchr(out, '\0', sizes[k]) != NULL);
            FUZZ_REQUIRE(rc < 0 || (size_t)rc == strlen(out));
        }
        free(out);
    }
    return 0;
}
