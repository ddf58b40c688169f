/* gcheap.c -- the heap's generations after each collection (see gcheap.h). */
#include "gcheap.h"

#include <stdatomic.h>
#include <string.h>

#include "emit.h"
#include "gctimeline.h"
#include "wire.h"

/* GCHeapStats' fields: ten u64 (GenerationSize0, TotalPromotedSize0, ... of
 * generations 0 to 3, then FinalizationPromotedSize and Count), then
 * PinnedObjectCount, SinkBlockCount, GCHandleCount (u32), ClrInstanceID (u16);
 * V2 adds GenerationSize4 and TotalPromotedSize4 (u64) at 94. */
#define GCHEAP_V1_SIZE 94u
#define GCHEAP_V2_SIZE 110u
#define GCHEAP_OFFSET_FINALIZATION 64u
#define GCHEAP_OFFSET_PINNED 80u
#define GCHEAP_OFFSET_HANDLES 88u
#define GCHEAP_OFFSET_POH 94u

static _Atomic uint64_t gcheap_last; /* the last one emitted: its hash ^ its collection */

static uint64_t gcheap_u64(const uint8_t *p, size_t at)
{
    uint64_t v;

    memcpy(&v, p + at, sizeof(v));
    return v;
}

void gcheap_note(const uint8_t *payload, size_t size)
{
    wire_gc_heap_stats h;
    uint64_t key = 0xcbf29ce484222325ull;
    unsigned g;

    if (!payload || size < GCHEAP_V1_SIZE)
        return;
    memset(&h, 0, sizeof(h));
    for (g = 0; g < 4; g++) {
        h.size[g] = gcheap_u64(payload, g * 16u);
        h.promoted[g] = gcheap_u64(payload, g * 16u + 8u);
    }
    h.finalization_promoted = gcheap_u64(payload, GCHEAP_OFFSET_FINALIZATION);
    memcpy(&h.pinned_objects, payload + GCHEAP_OFFSET_PINNED, sizeof(h.pinned_objects));
    memcpy(&h.gc_handles, payload + GCHEAP_OFFSET_HANDLES, sizeof(h.gc_handles));
    if (size >= GCHEAP_V2_SIZE) {
        h.size[4] = gcheap_u64(payload, GCHEAP_OFFSET_POH);
        h.promoted[4] = gcheap_u64(payload, GCHEAP_OFFSET_POH + 8u);
        h.flags = WIRE_HEAP_HAS_POH;
    }
    for (size_t i = 0; i < sizeof(h); i++) /* FNV-1a of what is sent */
        key = (key ^ ((const uint8_t *)&h)[i]) * 0x100000001b3ull;
    key ^= gctimeline_gc_count() * 0x9e3779b97f4a7c15ull;
    if (atomic_exchange_explicit(&gcheap_last, key, memory_order_relaxed) == key)
        return; /* the same event again, through another session */
    emit_record(WIRE_GC_HEAP_STATS, 0, &h, sizeof(h), NULL, 0, NULL, 0);
}
