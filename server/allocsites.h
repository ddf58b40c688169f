/* allocsites.h -- one session's allocation samples, folded by type and by
 * allocating stack, scaled to estimated bytes and objects.
 *
 * The agent sends one WIRE_ALLOCATION per sample the runtime reported
 * (proto/wire_alloc.h): the object's size, its type, the thread's stack, and
 * what the sample stands for. Each sample is scaled when it is folded:
 * AllocationSampled (.NET 10): the runtime's estimator, (mean - 1) + (size -
 * SampledByteOffset) bytes (mean WIRE_ALLOC_SAMPLING_MEAN: unbiased for every
 * type and size); AllocationTick (.NET 8, 9): the bytes allocated since the
 * last tick, all charged to the object that crossed the line (biased towards
 * large objects, docs/RUNTIME.md "Allocations"); objects: those bytes over the
 * object's size. Samples the agent counted but did not send (its rate cap,
 * `unsent`) scale every total alike when read (alloc_scale). At most
 * ALLOC_TYPES_MAX types and ALLOC_STACKS_MAX distinct (type, stack) pairs
 * (more: their samples counted in types_dropped / stacks_dropped and in the
 * totals only). Caller holds the sessions lock. */
#ifndef JITSCOPE_ALLOCSITES_H
#define JITSCOPE_ALLOCSITES_H

#include <stddef.h>
#include <stdint.h>

#include "wire_decode.h"

#define ALLOC_TYPES_MAX 4096u
#define ALLOC_STACKS_MAX 16384u

typedef struct alloc_type {
    char *name;
    uint64_t samples;
    double bytes, objects; /* estimated, before alloc_scale */
} alloc_type;

typedef struct alloc_stack {
    uint32_t type;    /* index in types */
    uint32_t depth;   /* frames, leaf first */
    uint64_t *frames; /* FunctionIDs (0: native) */
    uint64_t hash;
    uint64_t samples;
    double bytes, objects;
} alloc_stack;

typedef struct alloc_state {
    alloc_type *types;
    uint32_t type_count, type_cap;
    uint32_t *type_index; /* open addressing: index + 1, 0 empty */
    uint32_t type_index_cap;
    alloc_stack *stacks;
    uint32_t stack_count, stack_cap;
    uint32_t *stack_index;
    uint32_t stack_index_cap;
    uint32_t source;                        /* the last sample's wire_alloc_source */
    uint64_t samples, unsent;               /* received; counted by the agent, not sent */
    uint64_t types_dropped, stacks_dropped; /* samples past the caps */
    double bytes, objects;                  /* every sample's estimate */
    size_t held;                            /* bytes it holds (session_memory.c) */
} alloc_state;

/* A WIRE_ALLOCATION. 0, or -1 when out of memory. */
int alloc_sample(alloc_state *a, const wire_record *r);
/* What the samples not sent add: (samples + unsent) / samples (1 with none). */
double alloc_scale(const alloc_state *a);
/* An upper bound of the bytes r adds. */
uint64_t alloc_need(const alloc_state *a, const wire_record *r);
void alloc_free(alloc_state *a);

#endif
