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
 * totals only).
 * Per second (wall clock of the sample, whole Unix seconds): the estimated
 * bytes and objects of the newest ALLOC_SECONDS_KEEP seconds that had samples
 * (older ones evicted, counted); a second is closed when a sample of a later
 * one arrives or a count-only record (the agent's tick, every 500 ms while it
 * samples and once after) stamped after its end, and then becomes an
 * `allocation_second` event in the session's log (its samples, and its bytes
 * and objects as estimated then). Each second is scaled by its own samples
 * not sent (a record's `unsent` goes to the newest second before it: the cap
 * is per second, so a capped second's rest comes with the next second's first
 * record), not by the session's scale: allocation is uneven, and so is the
 * cap's loss. A sample of an
 * earlier second is added to it when it is kept (threads' records
 * interleave), else to the next one kept after it. Caller holds the sessions lock. */
#ifndef JITSCOPE_ALLOCSITES_H
#define JITSCOPE_ALLOCSITES_H

#include <stddef.h>
#include <stdint.h>

#include "eventlog.h"
#include "wire_decode.h"

#define ALLOC_TYPES_MAX 4096u
#define ALLOC_STACKS_MAX 16384u
#define ALLOC_SECONDS_KEEP 4096u /* newest seconds kept (32 bytes each) */

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

typedef struct alloc_second {
    int64_t second;        /* Unix seconds */
    uint64_t samples;      /* received in it */
    uint64_t unsent;       /* counted by the agent, not sent: its own scale */
    double bytes, objects; /* estimated, before its scale */
} alloc_second;

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
    alloc_second *seconds;  /* ring: second i (from 0) at i % second_cap once full */
    uint32_t second_cap;    /* grows to ALLOC_SECONDS_KEEP */
    uint64_t second_total;  /* seconds opened so far (evicted: second_total - kept) */
    int newest_closed;      /* the newest second's event is logged */
    uint64_t unsent_before; /* unsent before the first second: the first one's */
    size_t held;            /* bytes it holds (session_memory.c) */
} alloc_state;

/* A WIRE_ALLOCATION sampled at when_ns (wall clock); a second it closes
 * becomes an event in log (NULL: none, a replay). 0, or -1 when out of memory. */
int alloc_sample(alloc_state *a, eventlog *log, const wire_record *r, int64_t when_ns);
/* A second's estimated bytes and objects: scaled by its own samples not
 * sent ((samples + unsent) / samples), not the session's alloc_scale. */
void alloc_second_estimate(const alloc_second *sec, double *bytes, double *objects);
/* The seconds kept (oldest first): *first is the ring index of the oldest,
 * the i-th is a->seconds[(first + i) % a->second_cap]. */
uint32_t alloc_seconds_kept(const alloc_state *a, uint32_t *first);
/* What the samples not sent add: (samples + unsent) / samples (1 with none). */
double alloc_scale(const alloc_state *a);
/* An upper bound of the bytes r adds. */
uint64_t alloc_need(const alloc_state *a, const wire_record *r);
void alloc_free(alloc_state *a);

#endif
