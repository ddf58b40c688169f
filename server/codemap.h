/* codemap.h -- a session's native code ranges: which function's code is at an
 * address (the CPU profiler's managed frames, cpuprof.h).
 *
 * Every compilation's code (JIT records, all tiers and OSR versions, catch-up's
 * code in use and version lists) and every answer of the agent's code lookups
 * (ReadyToRun code, code compiled before an attach: WIRE_CODE_RANGE) is one
 * range: its full 64-bit start, its size and the function's position in the
 * session's functions[] (a position never changes: the array is append-only).
 * An address the agent said is not managed code (a stub) is a range of one
 * byte marked CODEMAP_NOT_MANAGED, so it is not asked about again.
 *
 * Memory: 16 bytes per range, nothing else (no index). Ranges are appended
 * unsorted while nobody looks them up (ingest pays one store); a lookup sorts
 * what came since the last one (the tail) and merges it into the sorted part
 * once the tail is an eighth of it, so lookups cost a binary search in two
 * sorted arrays and merging stays amortised O(1) per range. At most
 * CODEMAP_MAX ranges (what does not fit is counted in `dropped`) and
 * CODEMAP_MAX_NOT_MANAGED of them not managed. Where ranges overlap (code
 * freed with a collectible module and its memory reused), the one with the
 * highest start at or below the address that holds it wins, the newest among
 * equal starts. Caller holds the sessions lock.
 */
#ifndef JITSCOPE_CODEMAP_H
#define JITSCOPE_CODEMAP_H

#include <stddef.h>
#include <stdint.h>

#define CODEMAP_MAX (8u * 1024u * 1024u) /* ranges: 128 MiB at most */
#define CODEMAP_MAX_NOT_MANAGED 65536u
#define CODEMAP_NOT_MANAGED UINT32_MAX /* function: the agent said no method's code is there */

typedef struct codemap_range {
    uint64_t start;
    uint32_t size;
    uint32_t function; /* position in the session's functions[], or CODEMAP_NOT_MANAGED */
} codemap_range;

typedef struct codemap {
    codemap_range *sorted; /* by start; equal starts in the order they came */
    size_t sorted_count, sorted_cap;
    codemap_range *tail; /* came since the last merge */
    size_t tail_count, tail_cap;
    int tail_sorted;
    size_t not_managed;
    uint64_t dropped; /* ranges not kept: CODEMAP_MAX reached or out of memory */
} codemap;

/* Adds a range (size 0 is ignored). 0, or -1 when it was not kept (counted). */
int codemap_add(codemap *m, uint64_t start, uint32_t size, uint32_t function);
/* The range that holds ip: 1 with *out set, else 0. Sorts and merges first. */
int codemap_find(codemap *m, uint64_t ip, codemap_range *out);
size_t codemap_count(const codemap *m);
size_t codemap_bytes(const codemap *m); /* allocated */
void codemap_free(codemap *m);

#endif
