/* elfsyms.h -- the function symbols of one ELF file mapped into the target,
 * to name the native frames of CPU samples (cpusym.c).
 *
 * Read with libelf from the file the target mapped: the functions of .symtab
 * and .dynsym (with their sizes), and, for stripped code such as the runtime's
 * libcoreclr.so, the function starts of the unwind table (.eh_frame_hdr's
 * binary search table), so an address without a symbol still names one
 * function ("libcoreclr.so+0x5fa2c0") rather than one name per address. A
 * file is outside input: every count and offset is checked against it.
 * Bounds: ELFSYMS_MAX_SYMBOLS symbols, ELFSYMS_MAX_TEXT bytes of names,
 * ELFSYMS_MAX_STARTS unwind entries. */
#ifndef JITSCOPE_ELFSYMS_H
#define JITSCOPE_ELFSYMS_H

#include <stddef.h>
#include <stdint.h>

#define ELFSYMS_MAX_SYMBOLS (1u << 20)
#define ELFSYMS_MAX_TEXT (32u * 1024u * 1024u)
#define ELFSYMS_MAX_STARTS (2u << 20)
#define ELFSYMS_MAX_LOADS 32u

typedef struct elfsyms_symbol {
    uint64_t start, size; /* virtual addresses of the file */
    uint32_t name;        /* offset in text */
} elfsyms_symbol;

typedef struct elfsyms_segment {
    uint64_t offset, filesz, vaddr;
} elfsyms_segment;

typedef struct elfsyms {
    elfsyms_symbol *symbols; /* by start */
    size_t symbol_count;
    uint64_t *starts; /* unwind table's function starts, ascending */
    size_t start_count;
    char *text;
    size_t text_used;
    elfsyms_segment loads[ELFSYMS_MAX_LOADS];
    unsigned load_count;
} elfsyms;

/* Reads the file open at fd. 0, or -1 (not ELF, or out of memory: t is then empty). */
int elfsyms_load(elfsyms *t, int fd);
/* The virtual address of file offset `offset` (as /proc/PID/maps maps it),
 * by the PT_LOAD segment that holds it: 1 with *vaddr, or 0 when none does. */
int elfsyms_vaddr(const elfsyms *t, uint64_t offset, uint64_t *vaddr);
/* The function at file offset `offset` (as /proc/PID/maps maps it): 1 with
 * *name its symbol; 2 with *name NULL and *start the address of an unnamed
 * function (unwind table); 0 when neither says. *start is the function's
 * address in the file's own terms (virtual address). */
int elfsyms_find(const elfsyms *t, uint64_t offset, const char **name, uint64_t *start);
void elfsyms_free(elfsyms *t);

#endif
