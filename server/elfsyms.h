/* elfsyms.h -- the function symbols of one ELF file mapped into the target,
 * to name the native frames of CPU samples (cpusym.c) and the code view's
 * call targets (procsyms.c).
 *
 * Read with libelf from the file the target mapped: the functions of .symtab
 * and .dynsym (with their sizes), and of the symbol table compressed in
 * .gnu_debugdata (xz, "MiniDebugInfo": Fedora's and RHEL's libraries, their
 * packaged .NET runtime among them). A stripped file keeps only .dynsym: the
 * runtime's libcoreclr.so exports 9 functions, Debian's libc.so.6 not its
 * internal ones; its full symbol table is in a separate debug file
 * (debugfile.h finds one, by the build ID or the .gnu_debuglink read here,
 * and elfsyms_add_debug_file adds its symbols once it proves to be this
 * file's). Where no symbol holds an address, the function starts of the
 * unwind table (.eh_frame_hdr's binary search table) still name one function
 * ("libcoreclr.so+0x5fa2c0") rather than one name per address. A file is
 * outside input: every count and offset is checked against it. Bounds:
 * ELFSYMS_MAX_SYMBOLS symbols, ELFSYMS_MAX_TEXT bytes of names,
 * ELFSYMS_MAX_STARTS unwind entries, ELFSYMS_MAX_DEBUGDATA bytes of
 * .gnu_debugdata once decompressed. */
#ifndef JITSCOPE_ELFSYMS_H
#define JITSCOPE_ELFSYMS_H

#include <stddef.h>
#include <stdint.h>

#define ELFSYMS_MAX_SYMBOLS (1u << 20)
#define ELFSYMS_MAX_TEXT (32u * 1024u * 1024u)
#define ELFSYMS_MAX_STARTS (2u << 20)
#define ELFSYMS_MAX_LOADS 32u
#define ELFSYMS_MAX_DEBUGDATA (64u * 1024u * 1024u)
#define ELFSYMS_MAX_BUILD_ID 64u
#define ELFSYMS_MAX_DEBUGLINK 256u

/* Where a file's function names came from (elfsyms.names). */
enum elfsyms_names {
    ELFSYMS_NAMES_EXPORTS = 0,   /* .dynsym only (or nothing): a stripped file */
    ELFSYMS_NAMES_SYMTAB = 1,    /* its own .symtab */
    ELFSYMS_NAMES_DEBUGDATA = 2, /* .gnu_debugdata */
    ELFSYMS_NAMES_DEBUG_FILE = 3 /* a separate debug file */
};

typedef struct elfsyms_symbol {
    uint64_t start, size; /* virtual addresses of the file */
    uint32_t name;        /* offset in text */
} elfsyms_symbol;

typedef struct elfsyms_segment {
    uint64_t offset, filesz, vaddr;
} elfsyms_segment;

typedef struct elfsyms {
    elfsyms_symbol *symbols; /* by start */
    size_t symbol_count, symbol_cap;
    uint64_t *starts; /* unwind table's function starts, ascending */
    size_t start_count;
    char *text;
    size_t text_used, text_cap;
    elfsyms_segment loads[ELFSYMS_MAX_LOADS];
    unsigned load_count;
    int names; /* elfsyms_names: where the best of its names came from */
    uint8_t build_id[ELFSYMS_MAX_BUILD_ID]; /* NT_GNU_BUILD_ID */
    size_t build_id_length;                 /* 0: none */
    char debuglink[ELFSYMS_MAX_DEBUGLINK];  /* .gnu_debuglink's file name, "" none */
    uint32_t debuglink_crc;                 /* its CRC-32 of the debug file */
} elfsyms;

/* Reads the file open at fd. 0, or -1 (not ELF, or out of memory: t is then empty). */
int elfsyms_load(elfsyms *t, int fd);
/* Adds the function symbols of a separate debug file open at fd to t, when it
 * is t's: the same build ID, or, for a file without one, the CRC-32 its
 * .gnu_debuglink names. 1 added, 0 not t's debug file (or not ELF), -1 out of
 * memory (t keeps what it had). */
int elfsyms_add_debug_file(elfsyms *t, int fd);
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
