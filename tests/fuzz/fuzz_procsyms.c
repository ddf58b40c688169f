/* fuzz_procsyms.c -- libFuzzer target for server/procsyms.c: naming addresses
 * of a target process from its /proc/PID/maps text (outside input: the code
 * view names native call targets with it).
 *
 * The input is a maps text; addresses around every mapping are named. The
 * parsers it stands on have their own targets (fuzz_procmaps, fuzz_elfsyms).
 * Checked: every mapping has end > start; kinds are procsyms_kind values;
 * names are NUL-terminated inside their buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "procsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    procsyms p;
    char name[64];

    if (procsyms_parse_maps(&p, (const char *)data, size) == 0) {
        for (size_t i = 0; i < p.maps.count; i++)
            FUZZ_REQUIRE(p.maps.entries[i].end > p.maps.entries[i].start);
        /* names without ELF files: only paths that exist on this machine are opened */
        for (size_t i = 0; i < p.maps.count && i < 8; i++) {
            const procmaps_entry *e = &p.maps.entries[i];
            uint64_t at[3] = {e->start, e->end - 1, e->end};
            for (int k = 0; k < 3; k++) {
                int kind = procsyms_name(&p, at[k], name, sizeof(name));
                FUZZ_REQUIRE(kind >= PROCSYMS_UNKNOWN && kind <= PROCSYMS_ANON);
                FUZZ_REQUIRE(memchr(name, '\0', sizeof(name)) != NULL);
            }
        }
    }
    procsyms_close(&p);
    return 0;
}
