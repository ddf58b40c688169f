/* fuzz_procmaps.c -- libFuzzer target for the parser of /proc/PID/maps,
 * procmaps_parse in server/procmaps.c (another process's file: the CPU
 * profiler reads the target's mappings with it).
 *
 * The input is the file's text. Checked: the mappings kept are executable
 * ones in increasing, non-overlapping order, each with start < end and a
 * known kind, a path inside the parsed text (NUL-terminated, at most
 * PROCMAPS_PATH_MAX bytes), and procmaps_find finds each one by its first
 * and last address and nothing below the first.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"

#include "procmaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    procmaps m;
    size_t i;

    if (procmaps_parse(&m, (const char *)data, size) != 0)
        return 0; /* out of memory */
    FUZZ_REQUIRE(m.count <= PROCMAPS_MAX && m.text != NULL);
    for (i = 0; i < m.count; i++) {
        const procmaps_entry *e = &m.entries[i];
        FUZZ_REQUIRE(e->start < e->end);
        FUZZ_REQUIRE(i == 0 || e->start >= m.entries[i - 1].end);
        FUZZ_REQUIRE(e->kind >= PROCMAPS_ELF && e->kind <= PROCMAPS_SPECIAL);
        FUZZ_REQUIRE(e->path < m.text_used);
        FUZZ_REQUIRE(strlen(procmaps_path(&m, e)) <= PROCMAPS_PATH_MAX);
        FUZZ_REQUIRE(procmaps_find(&m, e->start) == e);
        FUZZ_REQUIRE(procmaps_find(&m, e->end - 1) == e);
    }
    if (m.count && m.entries[0].start > 0)
        FUZZ_REQUIRE(procmaps_find(&m, m.entries[0].start - 1) == NULL);
    procmaps_free(&m);
    return 0;
}
