/* wire_alloc.h -- the allocation records (WIRE_ALLOCATION, 33;
 * WIRE_CMD_ALLOCATIONS, 109; agent/allocations.h) and the heap's after each
 * collection (WIRE_GC_HEAP_STATS, 34; agent/gcheap.h), part of proto/wire.h
 * (which includes it: wire.h would pass 800 lines).
 *
 * One ALLOCATION per allocation sample the runtime reports on the allocating
 * thread: on .NET 10 its randomized allocation sampling (AllocationSampled:
 * on average one sample per WIRE_ALLOC_SAMPLING_MEAN bytes allocated, any
 * object may be the one), on .NET 8 and 9 its AllocationTick (one event each
 * time about 100 KB were allocated on a heap, the object that crossed the line
 * named). Each carries the thread's stack (at most WIRE_ALLOC_MAX_FRAMES,
 * leaf first) and the type's name. Off until asked for (WIRE_CMD_ALLOCATIONS,
 * or JITSCOPE_ALLOCATIONS=1 at start); at most WIRE_ALLOC_MAX_PER_SECOND
 * records a second, the samples past that counted in the next one's `unsent`.
 * The server scales them to estimated bytes and objects (docs/RUNTIME.md,
 * "Allocations"). */
#ifndef JITSCOPE_WIRE_ALLOC_H
#define JITSCOPE_WIRE_ALLOC_H

#include <stdint.h>

/* "1": allocation records on from the start (else off until WIRE_CMD_ALLOCATIONS). */
#define WIRE_ENV_ALLOCATIONS "JITSCOPE_ALLOCATIONS"

#define WIRE_ALLOC_TYPE_MAX 512u           /* type name bytes kept (UTF-8; cut: TRUNCATED) */
#define WIRE_ALLOC_MAX_FRAMES 32u          /* stack frames of a sample (the leaf end) */
#define WIRE_ALLOC_MAX_PER_SECOND 1000u    /* records a second; more are counted, not sent */
#define WIRE_ALLOC_SAMPLING_MEAN 102400ull /* AllocationSampled: mean bytes between samples */

/* wire_allocation.source: which event the sample came from */
enum wire_alloc_source {
    WIRE_ALLOC_SAMPLED = 1, /* AllocationSampled (.NET 10 and later) */
    WIRE_ALLOC_TICK = 2,    /* GCAllocationTick_V4 (.NET 8 and 9) */
};

/* wire_allocation.kind of a record that is no sample: it only carries the
 * samples not sent since the last record (the sender's, with its drop counts;
 * its size, frames and type are then 0 and empty). */
#define WIRE_ALLOC_KIND_UNSENT_ONLY 0xFFFFFFFFu

/* WIRE_ALLOCATION: fixed part, frame_count wire_stack_frame entries (leaf
 * first), then one string: the type's full name. */
typedef struct wire_allocation {
    uint64_t thread_id;   /* ThreadID of the allocating thread; 0: not known */
    uint64_t type_id;     /* the runtime's TypeID (MethodTable) */
    uint64_t object_size; /* the sampled object's size in bytes (> 0) */
    uint64_t weight;      /* SAMPLED: its SampledByteOffset; TICK: bytes since the last tick */
    uint32_t source;      /* wire_alloc_source */
    uint32_t kind;        /* the runtime's AllocationKind: 0 small, 1 large, 2 pinned */
    uint32_t unsent;      /* samples the agent did not send before this one (its rate cap) */
    uint32_t frame_count; /* <= WIRE_ALLOC_MAX_FRAMES */
} wire_allocation;
_Static_assert(sizeof(wire_allocation) == 48, "wire_allocation layout");

/* WIRE_GC_HEAP_STATS: the runtime's GCHeapStats_V2 at the end of a
 * collection, as it counts them: each generation's size after it (bytes;
 * 0, 1, 2, then the large and the pinned object heaps) and the bytes that
 * survived it from each (promoted out of 0 and 1; what remained in 2, LOH,
 * POH). Sizes of the pinned object heap are 0 from a runtime whose event has
 * no such fields (V1: flags without WIRE_HEAP_HAS_POH). */
#define WIRE_HEAP_GENERATIONS 5u
#define WIRE_HEAP_HAS_POH 1u
typedef struct wire_gc_heap_stats {
    uint64_t size[WIRE_HEAP_GENERATIONS];     /* GenerationSize0..4 */
    uint64_t promoted[WIRE_HEAP_GENERATIONS]; /* TotalPromotedSize0..4 */
    uint64_t finalization_promoted;           /* FinalizationPromotedSize */
    uint32_t pinned_objects;                  /* PinnedObjectCount */
    uint32_t gc_handles;                      /* GCHandleCount */
    uint32_t flags;                           /* WIRE_HEAP_HAS_POH */
    uint32_t reserved;
} wire_gc_heap_stats;
_Static_assert(sizeof(wire_gc_heap_stats) == 104, "wire_gc_heap_stats layout");

/* Turns allocation records on or off (the agent's EventPipe session for them). */
typedef struct wire_cmd_allocations {
    uint32_t enabled; /* 1 on, 0 off */
    uint32_t reserved;
} wire_cmd_allocations;

#endif
