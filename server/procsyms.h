/* procsyms.h -- names for native addresses of a running process: which mapped
 * file (/proc/PID/maps) and, when the file's ELF symbol tables say, which
 * function ("libSystem.Native.so!SystemNative_Read+0x10"); the runtime's own
 * helpers are in a stripped libcoreclr.so and read as "libcoreclr.so+0x1d2e0".
 *
 * The maps text and the ELF files are the target's, so both parsers are pure
 * functions over bounded input (every offset and count checked; fuzzed by
 * tests/fuzz/fuzz_procsyms.c): procsyms_parse_maps over a text, and
 * procsyms_elf_load over a reader callback. procsyms_open / _name tie them to
 * a pid and the file system, with the files of one lookup table cached.
 * Not thread-safe: one table per request.
 */
#ifndef JITSCOPE_PROCSYMS_H
#define JITSCOPE_PROCSYMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROCSYMS_MAX_MAPS 65536u
#define PROCSYMS_MAX_SYMBOLS (1u << 20) /* per file */
#define PROCSYMS_MAX_FILES 64u          /* ELF files read per table */

typedef struct procsyms_map {
    uint64_t start, end, offset;
    int exec;
    char *path; /* NULL: anonymous; "[stack]"-like names kept as they are */
} procsyms_map;

typedef struct procsyms_sym {
    uint64_t value, size; /* as in the file (virtual addresses of the ELF) */
    uint32_t name;        /* offset in the file's names */
} procsyms_sym;

typedef struct procsyms_segment {
    uint64_t offset, vaddr, filesz;
} procsyms_segment;

typedef struct procsyms_elf {
    char *path;
    int ok; /* it read as an ELF64 file */
    procsyms_sym *syms;
    size_t sym_count; /* sorted by value */
    char *names;
    size_t names_size;
    procsyms_segment segments[16]; /* PT_LOAD */
    unsigned segment_count;
} procsyms_elf;

typedef struct procsyms {
    procsyms_map *maps;
    size_t map_count;
    procsyms_elf files[PROCSYMS_MAX_FILES];
    unsigned file_count;
    pid_t pid; /* whose files (opened through /proc/PID/root); 0: this process's view */
} procsyms;

/* What an address is in. */
enum procsyms_kind {
    PROCSYMS_UNKNOWN = 0, /* nothing maps it */
    PROCSYMS_FILE = 1,    /* a native library or the host */
    PROCSYMS_IMAGE = 2,   /* a managed image (.dll, .exe, .ni): ReadyToRun code */
    PROCSYMS_ANON = 3,    /* anonymous or the runtime's double-mapped code: JIT code, stubs */
};

/* Parses /proc/PID/maps text into p->maps (sorted as the kernel lists them).
 * 0, or -1 when out of memory; lines that do not parse are skipped. */
int procsyms_parse_maps(procsyms *p, const char *text, size_t length);

/* Reads an ELF64 little-endian file through read(ctx, offset, buf, n) (0 when
 * all n bytes were read): its PT_LOAD segments and its function symbols
 * (.symtab, else .dynsym). 0, or -1 when it is not such a file. */
int procsyms_elf_load(procsyms_elf *e, int (*read)(void *ctx, uint64_t offset, void *buf, size_t n),
                      void *ctx, uint64_t file_size);
void procsyms_elf_free(procsyms_elf *e);

/* Reads /proc/PID/maps. 0, or -1 (no such process, or not ours). */
int procsyms_open(procsyms *p, pid_t pid);
void procsyms_close(procsyms *p);

/* Names address into buf ("file!symbol+0x10", "file+0x1234", "" when
 * unknown); returns its procsyms_kind. */
int procsyms_name(procsyms *p, uint64_t address, char *buf, size_t size);

#endif
