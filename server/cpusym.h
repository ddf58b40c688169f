/* cpusym.h -- naming the frames of one CPU profile's samples (one sampler
 * run, cpuprof.c; its thread only, no lock of the server).
 *
 * Each sampled address is classified once and cached (CPUSYM_MAX_IPS):
 *  - native code of an ELF file the target mapped (procmaps.h): named from
 *    the file's symbols, else its unwind table's function start (elfsyms.h),
 *    else "module+0xoffset"; the vDSO by its name;
 *  - managed code (the JIT's double mapping, anonymous executable memory,
 *    ReadyToRun code in a mapped .dll): resolved later through the session's
 *    code map and the agent's code lookups (cpufold.c), so it is "managed"
 *    here with its state (not yet known, asked, found, not managed code);
 *  - an address in no mapping: "[unmapped]".
 * Names go into the run's symbol table, whose index i is the CPU profile's
 * symbol i (profile_cpu.h): the first CPUSYM_LABELS entries are the labels
 * below, the rest come in the order they were first met and are handed to
 * the profile by cpufold.c (cpusym_next_new). The table holds at most
 * PROFILE_CPU_MAX_SYMBOLS entries; later names become CPUSYM_LABEL_FULL.
 *
 * Frame pointers: the kernel walks the chain of saved frame pointers, so a
 * function that does not keep one hides its caller. For managed code the
 * first bytes of each method (read from the target with process_vm_readv,
 * once per code start) say whether it sets up a frame (push rbp), where its
 * prolog ends, and whether it is on-stack-replacement code (CPUSYM_CODE_OSR);
 * cpufold.c marks the sample where a frame is missing.
 */
#ifndef JITSCOPE_CPUSYM_H
#define JITSCOPE_CPUSYM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ehframe.h"
#include "elfsyms.h"
#include "hashslots.h"
#include "idmap.h"
#include "procmaps.h"

#define CPUSYM_MAX_IPS (256u * 1024u) /* cached addresses; the cache starts over when full */
#define CPUSYM_MAX_FILES 256u         /* ELF files read */
#define CPUSYM_MAX_FRAMES_INFO 65536u /* code starts whose prolog was read */
#define CPUSYM_MAPS_EVERY_MS 2000u    /* the maps are read again this often (and on a miss) */
#define CPUSYM_PROLOG_STEPS 8u        /* prolog instructions before rbp is set, kept */

/* The labels: symbols 0 .. CPUSYM_LABELS-1 of every CPU profile. */
enum cpusym_label {
    CPUSYM_LABEL_BROKEN = 0,  /* the chain ended in managed code, or ran into an address in no
                                 mapping after one: frames toward the thread's start are lost */
    CPUSYM_LABEL_NO_FP = 1,   /* the frame above has no frame pointer (yet): its caller is lost */
    CPUSYM_LABEL_STUB = 2,    /* the leaf is in a stub: its caller may be lost */
    CPUSYM_LABEL_UNNAMED = 3, /* managed code no method was found for */
    CPUSYM_LABEL_KERNEL = 4,  /* the thread was in the kernel (a system call, a page fault) */
    CPUSYM_LABEL_UNMAPPED = 5,
    CPUSYM_LABEL_FULL = 6,          /* the symbol table was full */
    CPUSYM_LABEL_OSR = 7,           /* an on-stack-replaced frame: its method's caller is lost */
    CPUSYM_LABEL_BROKEN_NATIVE = 8, /* after a native frame the chain ran into an address in
                                       no mapping (a function without a frame pointer left
                                       another value in its register): frames toward the
                                       thread's start are lost */
    CPUSYM_LABELS = 9
};

enum cpusym_kind { CPUSYM_NATIVE = 1, CPUSYM_MANAGED = 2 };
enum cpusym_state {                         /* a managed address */
                    CPUSYM_UNKNOWN = 0,     /* not in the code map yet */
                    CPUSYM_ASKED = 1,       /* asked of the agent at asked_ms */
                    CPUSYM_FOUND = 2,       /* function_id, code_start */
                    CPUSYM_NOT_MANAGED = 3, /* the agent says no method's code is there (a stub) */
                    CPUSYM_GAVE_UP = 4,     /* no answer in time, or none possible */
};

typedef struct cpusym_ip {
    uint64_t ip;
    uint64_t function_id; /* CPUSYM_FOUND */
    uint64_t code_start;  /* CPUSYM_FOUND: the start of the range that holds ip */
    uint32_t symbol;      /* CPUSYM_NATIVE: index in the symbol table */
    uint32_t asked_ms;    /* CPUSYM_ASKED: ms since the run began */
    uint8_t kind, state;
    uint8_t rule;      /* native code: its unwind rule (cpusym_leaf_rule), CPUSYM_RULE_* */
    uint8_t rbp_saved; /* rbp saved at CFA + rbp_off */
    int16_t rbp_off;
    uint16_t cfa_off; /* CFA = rsp (CPUSYM_RULE_RSP) or rbp (CPUSYM_RULE_RBP) + cfa_off */
} cpusym_ip;
enum { CPUSYM_RULE_UNREAD = 0, CPUSYM_RULE_NONE = 1, CPUSYM_RULE_RSP = 2, CPUSYM_RULE_RBP = 3 };

/* Prolog facts of one code start (cpusym_code_info). OSR: the code of an
 * on-stack replacement (a loop's method compiled again while it runs): its
 * prolog copies the saved frame pointer of the frame it replaces, so the walk
 * meets that frame's call site in the old code (the same method again) and
 * then skips the method's caller. */
enum {
    CPUSYM_CODE_KNOWN = 1,
    CPUSYM_CODE_FRAMED = 2,
    CPUSYM_CODE_OSR = 4,
    CPUSYM_CODE_FP_DELTA = 8
};
typedef struct cpusym_code {
    uint32_t flags;
    uint32_t prolog_end; /* bytes from the start until the frame pointer is set */
    uint32_t fp_delta;   /* CPUSYM_CODE_FP_DELTA: rbp - rsp after the prolog (its pushes,
                            its sub rsp and where it sets rbp, read from its bytes) */
    uint32_t steps;      /* CPUSYM_CODE_FP_DELTA: the prolog's instructions before rbp is
                            set: step_at[i] the offset after one, step_depth[i] the bytes
                            pushed (or subtracted) below the return address after it */
    uint8_t step_at[CPUSYM_PROLOG_STEPS];
    uint16_t step_depth[CPUSYM_PROLOG_STEPS];
} cpusym_code;
/* Where the return address of code sampled at `offset` in its prolog (before
 * rbp is set) is: 1 with *depth (the address is at rsp + depth), else 0. */
int cpusym_prolog_depth(const cpusym_code *info, uint32_t offset, uint32_t *depth);

typedef struct cpusym_file {
    uint64_t inode;
    uint32_t dev_major, dev_minor;
    int ok; /* symbols read */
    elfsyms syms;
    char *module; /* its file name */
    ehframe eh;   /* its unwind table (leaves without a frame pointer) */
} cpusym_file;

typedef struct cpusym_symbol {
    char *name;
    const char *module; /* a cpusym_file's module, or NULL */
} cpusym_symbol;

typedef struct cpusym {
    pid_t pid;
    procmaps maps;
    uint64_t maps_ms; /* when they were read (ms since the run began) */
    cpusym_file *files;
    size_t file_count;
    cpusym_ip *ips;
    size_t ip_count;
    idmap ip_index;
    cpusym_symbol *names;                      /* the symbol table */
    size_t name_count, name_cap, names_handed; /* handed to the profile: [0, names_handed) */
    hashslots name_index;                      /* (module, name) -> position in names */
    cpusym_ip zero;                            /* the entry of address 0: unmapped */
    idmap code_index;                          /* code start -> index in code */
    cpusym_code *code;
    size_t code_count;
} cpusym;

int cpusym_init(cpusym *y, pid_t pid);
void cpusym_free(cpusym *y);
/* The cache entry of ip, classified now if new (may read the maps and an ELF
 * file). NULL only when out of memory. now_ms: ms since the run began. */
cpusym_ip *cpusym_lookup(cpusym *y, uint64_t ip, uint64_t now_ms);
/* The cache entry of ip if it was classified (no I/O: fit for use under a
 * lock), else NULL. */
cpusym_ip *cpusym_find(cpusym *y, uint64_t ip);
/* The prolog facts of code_start if already read: 1 with *info, else 0. */
int cpusym_code_peek(const cpusym *y, uint64_t code_start, cpusym_code *info);
/* The prolog facts of the managed code starting at code_start, read once. */
cpusym_code cpusym_code_info(cpusym *y, uint64_t code_start);
/* The unwind rule of the native code at ip (classified by cpusym_lookup):
 * its CPUSYM_RULE_* (RSP, RBP: c's cfa_off, rbp_saved, rbp_off), read once
 * from the file's .eh_frame. */
int cpusym_leaf_rule(cpusym *y, cpusym_ip *c);
/* Symbols not yet handed to the profile: index *first on, count returned. */
size_t cpusym_pending_names(const cpusym *y, size_t *first);
/* At the start of a batch: the address cache starts over when it is 3/4 full
 * (entries stay put within a batch). */
void cpusym_batch_begin(cpusym *y);

#endif
