/* fuzz_procsyms.c -- libFuzzer target for server/procsyms.c: the target
 * process's /proc/PID/maps text and the ELF files it maps, both outside input
 * (the code view names native call targets with them).
 *
 * The first byte picks what the rest is: even, a maps text (parsed, then
 * addresses around every mapping named); odd, an ELF file read through the
 * parser's reader callback from memory. Checked: every mapping has end >
 * start and a NUL-terminated path; names are NUL-terminated inside their
 * buffer; an ELF's symbols are sorted, within the count cap, and every name
 * offset lies inside its string table, which is NUL-terminated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "procsyms.h"

typedef struct fuzz_file {
    const uint8_t *bytes;
    size_t size;
} fuzz_file;

static int fuzz_read(void *ctx, uint64_t offset, void *buf, size_t n)
{
    const fuzz_file *f = ctx;

    if (offset > f->size || n > f->size - offset)
        return -1;
    memcpy(buf, f->bytes + offset, n);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (data[0] % 2 == 0) {
        procsyms p;
        char name[64];
        memset(&p, 0, sizeof(p));
        if (procsyms_parse_maps(&p, (const char *)data + 1, size - 1) == 0) {
            for (size_t i = 0; i < p.map_count; i++) {
                FUZZ_REQUIRE(p.maps[i].end > p.maps[i].start);
                FUZZ_REQUIRE(!p.maps[i].path || strlen(p.maps[i].path) <= 4096);
            }
            /* names without ELF files: only paths that exist on this machine are opened */
            for (size_t i = 0; i < p.map_count && i < 8; i++) {
                uint64_t at[3] = {p.maps[i].start, p.maps[i].end - 1, p.maps[i].end};
                for (int k = 0; k < 3; k++) {
                    int kind = procsyms_name(&p, at[k], name, sizeof(name));
                    FUZZ_REQUIRE(kind >= PROCSYMS_UNKNOWN && kind <= PROCSYMS_ANON);
                    FUZZ_REQUIRE(memchr(name, '\0', sizeof(name)) != NULL);
                }
            }
        }
        procsyms_close(&p);
    } else {
        fuzz_file f = {data + 1, size - 1};
        procsyms_elf e;
        memset(&e, 0, sizeof(e));
        if (procsyms_elf_load(&e, fuzz_read, &f, f.size) == 0) {
            FUZZ_REQUIRE(e.ok && e.segment_count <= 16 && e.sym_count <= PROCSYMS_MAX_SYMBOLS);
            FUZZ_REQUIRE(!e.sym_count || (e.names && e.names[e.names_size] == '\0'));
            for (size_t i = 0; i < e.sym_count; i++) {
                FUZZ_REQUIRE(e.syms[i].name < e.names_size);
                FUZZ_REQUIRE(i == 0 || e.syms[i - 1].value <= e.syms[i].value);
            }
        }
        procsyms_elf_free(&e);
    }
    return 0;
}
