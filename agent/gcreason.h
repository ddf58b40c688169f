/* gcreason.h -- why each garbage collection happened, as the runtime itself
 * says it.
 *
 * The profiling API's GarbageCollectionStarted tells only "induced" from
 * "other"; the runtime's GCTriggered event (Microsoft-Windows-DotNETRuntime,
 * GC keyword, id 35, informational) carries its own reason: a small-object or
 * large-object allocation budget used up, low memory, an induced collection,
 * out of space, a background-GC tuning step... tiers.c opens an in-process
 * EventPipe session for the GC keyword at the informational level next to the
 * tier source (not verbose: that would add the allocation-tick events with
 * their stacks), unless JITSCOPE_GC_REASONS=0. The runtime raises GCTriggered
 * on the thread that starts the collection, once the runtime is suspended and
 * just before the profiler's GarbageCollectionStarted: gcreason_note parks the
 * reason in one slot and the callback takes it (gcreason_take) into its
 * record. Collections do not overlap at their start (a background collection
 * and the foreground ones during it each start in their own suspension), so
 * one slot is enough; a start with nothing parked is unknown. No allocation,
 * no lock. The session's other GC events (heap stats, marks, per-heap
 * history, about twenty a collection) are delivered to the callback and
 * ignored: docs/BENCHMARKS.md measures what a collection pays for them. */
#ifndef JITSCOPE_GCREASON_H
#define JITSCOPE_GCREASON_H

#include <stddef.h>
#include <stdint.h>

#include "corprof.h"

/* 0 when JITSCOPE_GC_REASONS=0 asks for no GC session. */
int gcreason_wanted(void);
/* The session's one provider: the runtime's, GC keyword, informational. */
void gcreason_config(COR_PRF_EVENTPIPE_PROVIDER_CONFIG *out, const WCHAR *runtime_provider);
/* GCTriggered's payload (Reason u32, ClrInstanceID u16): parks the reason. */
void gcreason_note(const uint8_t *payload, size_t size);
/* The reason parked for the collection starting now, + 1 (0: none came). */
uint32_t gcreason_take(void);

#endif
