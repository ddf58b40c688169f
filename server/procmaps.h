/* procmaps.h -- the executable mappings of a process, from /proc/PID/maps.
 *
 * The CPU profiler (cpusym.c) finds the mapping of each sampled address and
 * what kind of code it holds: a native ELF file (named from its symbols),
 * managed code the agent knows by address (the JIT's `memfd:doublemapper`
 * double mapping, anonymous executable memory, ReadyToRun code in a mapped
 * .dll), or the kernel's vDSO. procmaps_parse is a pure function over the
 * file's text (another process's: hostile until checked), unit-tested and
 * fuzzed (tests/fuzz/fuzz_procmaps.c).
 */
#ifndef JITSCOPE_PROCMAPS_H
#define JITSCOPE_PROCMAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROCMAPS_MAX 65536u     /* executable mappings kept */
#define PROCMAPS_PATH_MAX 1024u /* longer paths are cut (and never opened) */

enum procmaps_kind {
    PROCMAPS_ELF = 1,     /* a file, perhaps an ELF object: native code */
    PROCMAPS_IMAGE = 2,   /* a .dll / .exe file: a managed image's ReadyToRun code */
    PROCMAPS_JIT = 3,     /* memfd:doublemapper or anonymous: the JIT's code, stubs */
    PROCMAPS_SPECIAL = 4, /* [vdso], [vsyscall] and the like */
};

typedef struct procmaps_entry {
    uint64_t start, end, offset;
    uint64_t inode;
    uint32_t dev_major, dev_minor;
    int kind;      /* procmaps_kind */
    int cut;       /* the path was longer than PROCMAPS_PATH_MAX */
    uint32_t path; /* offset of its NUL-terminated path in text ("" anonymous) */
} procmaps_entry;

typedef struct procmaps {
    procmaps_entry *entries; /* executable ones, by start */
    size_t count;
    char *text;
    size_t text_used;
} procmaps;

/* Parses the text of a maps file; keeps the executable mappings (in the
 * order of the file, which is by address; an out-of-order or overlapping
 * line is left out). 0, or -1 when out of memory. Lines that do not parse
 * are skipped. */
int procmaps_parse(procmaps *m, const char *text, size_t length);
/* Reads and parses /proc/PID/maps. 0, or -1 with errno. */
int procmaps_read(procmaps *m, pid_t pid);
/* Opens the file of an ELF mapping (kind PROCMAPS_ELF, path not cut) as
 * the process sees it: through /proc/PID/root (pid 0: this process's own
 * view, the path as it is), never blocking (a FIFO put where a deleted
 * library was would hang the caller in open()), and only when it is a
 * regular file that is still the mapped inode. The fd, or -1. */
int procmaps_open_file(const procmaps *m, const procmaps_entry *e, pid_t pid);
/* The mapping holding addr, or NULL. */
const procmaps_entry *procmaps_find(const procmaps *m, uint64_t addr);
static inline const char *procmaps_path(const procmaps *m, const procmaps_entry *e)
{
    return m->text + e->path;
}
void procmaps_free(procmaps *m);

#endif
