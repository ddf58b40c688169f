/* fuzz_ilcalls.c -- fuzz target for the code view's calls named from the IL:
 * server/ilcalls.c (IL decoded for its call sites, a token named from a
 * module's metadata, generic owners and instantiations formatted with
 * proto/sig.c) and server/callnames.c (a version's unnamed calls matched with
 * the IL calls of their IL offsets).
 *
 * The input: two bytes (little-endian) giving the IL's length, the IL, then a
 * PE image read as a file (the seeds: tokens of E2ePlugin.dll's tables, then
 * that image). Every IL call site is named; then calls made up from the sites
 * (at their offsets, and between them: unnamed through a register or a stub,
 * named by "code" with a site's own name, helpers; the version's inlinees
 * the first two sites' names) are matched. Checked: no crash or overread
 * (ASan), sites inside the IL and rising, every name NUL-terminated inside
 * its buffer, and a name given to a call is one of the sites' names. Built
 * and run by `make fuzz` (build/fuzz/ilcalls); docs/FUZZING.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "callnames.h"
#include "ilcalls.h"

#define FUZZ_SITES 64u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char names_of[FUZZ_SITES][ILCALLS_NAME_BYTES];
    ilcalls_module m;
    ilcalls_site sites[FUZZ_SITES];
    callnames_call calls[2 * FUZZ_SITES];
    char *names[2 * FUZZ_SITES];
    const char *inlinees[2];
    uint32_t starts[FUZZ_SITES], n, i, ncalls = 0, il_len;
    const uint8_t *il;
    callnames_version ver;

    if (size < 2)
        return 0;
    il_len = (uint32_t)data[0] | (uint32_t)data[1] << 8;
    if (il_len > size - 2)
        il_len = (uint32_t)(size - 2);
    il = data + 2;
    memset(&m, 0, sizeof(m));
    m.map = (void *)(uintptr_t)(il + il_len);
    m.size = size - 2 - il_len;
    if (m.size == 0 || mdread_open_image(&m.md, m.map, m.size, 1) != 0)
        memset(&m.md, 0, sizeof(m.md)); /* no metadata: every name refused */
    n = ilcalls_scan(il, il_len, sites, FUZZ_SITES);
    FUZZ_REQUIRE(n <= FUZZ_SITES);
    for (i = 0; i < n; i++) {
        char simple[128];
        FUZZ_REQUIRE(sites[i].il_offset < il_len &&
                     (i == 0 || sites[i].il_offset > sites[i - 1].il_offset));
        names_of[i][0] = '\0';
        if (ilcalls_name(&m, sites[i].token, names_of[i], sizeof(names_of[i]), simple,
                         sizeof(simple)) == 0) {
            FUZZ_REQUIRE(memchr(names_of[i], '\0', sizeof(names_of[i])) != NULL);
            FUZZ_REQUIRE(memchr(simple, '\0', sizeof(simple)) != NULL);
        }
        starts[i] = sites[i].il_offset;
        calls[ncalls++] = (callnames_call){sites[i].il_offset, (int)(sites[i].token % 3),
                                           (int)(sites[i].token & 4),
                                           names_of[i][0] ? names_of[i] : NULL};
        if (calls[ncalls - 1].kind == CALLNAMES_NAMED && !calls[ncalls - 1].name)
            calls[ncalls - 1].kind = CALLNAMES_UNNAMED;
        calls[ncalls++] = (callnames_call){sites[i].il_offset + (sites[i].token & 1),
                                           CALLNAMES_UNNAMED, (int)(sites[i].token & 2), NULL};
    }
    inlinees[0] = n > 0 ? names_of[0] : "";
    inlinees[1] = n > 1 ? names_of[1] : "";
    ver = (callnames_version){il, il_len, starts, n, inlinees, 2, il_len & 1};
    if (callnames_assign(calls, ncalls, &ver, &m, names) != 0)
        return 0;
    for (i = 0; i < ncalls; i++) {
        uint32_t j;
        if (!names[i])
            continue;
        for (j = 0; j < n && strcmp(names[i], names_of[j]) != 0; j++)
            ;
        FUZZ_REQUIRE(j < n);
        free(names[i]);
    }
    return 0;
}
