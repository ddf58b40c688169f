/* procsyms.h -- names for native addresses of a running process, for the
 * code view: which mapped file (/proc/PID/maps) and, when the file's ELF
 * symbol tables say, which function ("libSystem.Native.so!SystemNative_Read+0x10");
 * the runtime's own helpers are in a stripped libcoreclr.so and read as
 * "libcoreclr.so+0x1d2e0".
 *
 * The maps text and the ELF files are the target's: they are read by the
 * CPU profiler's parsers (procmaps.h, bounded and fuzzed; elfsyms.h, every
 * count and offset checked), the files opened as procmaps_open_file says
 * (through /proc/PID/root, never blocking, the mapped inode only). This file
 * names what they found, with the files of one lookup table cached; naming
 * over a maps text is fuzzed by tests/fuzz/fuzz_procsyms.c.
 * Not thread-safe: one table per request.
 */
#ifndef JITSCOPE_PROCSYMS_H
#define JITSCOPE_PROCSYMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "elfsyms.h"
#include "procmaps.h"

#define PROCSYMS_MAX_FILES 64u /* ELF files read per table */

typedef struct procsyms_file {
    char *path; /* as mapped */
    int ok;     /* its symbols were read */
    elfsyms syms;
} procsyms_file;

typedef struct procsyms {
    procmaps maps;        /* the executable mappings */
    procsyms_file *files; /* PROCSYMS_MAX_FILES, allocated on first use */
    unsigned file_count;
    pid_t pid; /* whose files (opened through /proc/PID/root); 0: this process's view */
} procsyms;

/* What an address is in. */
enum procsyms_kind {
    PROCSYMS_UNKNOWN = 0, /* no executable mapping holds it */
    PROCSYMS_FILE = 1,    /* a native library or the host */
    PROCSYMS_IMAGE = 2,   /* a managed image (.dll, .exe, .ni): ReadyToRun code */
    PROCSYMS_ANON = 3,    /* anonymous or the runtime's double-mapped code: JIT code, stubs */
};

/* A table over a maps text, with this process's view of the files (tests,
 * fuzzing). 0, or -1 when out of memory; lines that do not parse are skipped. */
int procsyms_parse_maps(procsyms *p, const char *text, size_t length);

/* Reads /proc/PID/maps. 0, or -1 (no such process, or not ours). */
int procsyms_open(procsyms *p, pid_t pid);
void procsyms_close(procsyms *p);

/* Names address into buf ("file!symbol+0x10", "file+0x1234", "" when
 * unknown); returns its procsyms_kind. */
int procsyms_name(procsyms *p, uint64_t address, char *buf, size_t size);

#endif
