/* gcheap.h -- the heap's generations after each garbage collection, as the
 * runtime counts them: its GCHeapStats_V2 event (Microsoft-Windows-
 * DotNETRuntime, GC keyword, id 4, informational), which gcreason.h's
 * EventPipe session already receives, raised on the collecting thread at the
 * end of each collection. gcheap_note reads the payload and emits one
 * WIRE_GC_HEAP_STATS (proto/wire_alloc.h) into the ring: no lock, no
 * allocation. The same event reaches the agent once per EventPipe session
 * that enables the GC keyword (on .NET 8 and 9 the allocation session does
 * too, for AllocationTick), back to back on the same thread: a second copy
 * (the same payload for the same collection, gctimeline_gc_count) is dropped. */
#ifndef JITSCOPE_GCHEAP_H
#define JITSCOPE_GCHEAP_H

#include <stddef.h>
#include <stdint.h>

#define GCHEAP_EVENT_ID 4u /* GCHeapStats (V1 and V2) of the runtime's provider */

/* GCHeapStats' payload (V1: 94 bytes, without the pinned object heap; V2: 110). */
void gcheap_note(const uint8_t *payload, size_t size);

#endif
