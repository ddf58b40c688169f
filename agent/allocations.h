/* allocations.h -- sampled allocations, by type and allocating stack, from
 * the runtime's own allocation events (proto/wire_alloc.h).
 *
 * tiers.c opens a fourth in-process EventPipe session beside the tier source,
 * the GC reasons and the exceptions, while allocations are wanted (off by
 * default; on with JITSCOPE_ALLOCATIONS=1 at start, or at run time by
 * WIRE_CMD_ALLOCATIONS): on .NET 10 and later the runtime provider's
 * AllocationSampling keyword (0x80000000000) at the informational level, whose
 * AllocationSampled event (303) is raised for randomly chosen allocations (on
 * average one per 100 KB allocated); on .NET 8 and 9 its GC keyword (0x1) at
 * the verbose level, whose GCAllocationTick_V4 (10) is raised each time about
 * 100 KB were allocated on a heap. Both come synchronously on the allocating
 * thread: allocations_event turns one into one WIRE_ALLOCATION with the
 * thread's own stack (walk_current_thread, WIRE_ALLOC_MAX_FRAMES frames) and
 * the type's name, at most WIRE_ALLOC_MAX_PER_SECOND a second (past that the
 * samples are counted and the next record carries their number). No
 * allocation, no lock: stack buffers, the ring (a full ring drops and counts,
 * as for every record). docs/RUNTIME.md ("Allocations") says what each
 * event's samples stand for and how the server scales them. */
#ifndef JITSCOPE_ALLOCATIONS_H
#define JITSCOPE_ALLOCATIONS_H

#include <stddef.h>
#include <stdint.h>

#include "corprof.h"

/* 1 while allocations are wanted: JITSCOPE_ALLOCATIONS=1 at start says yes,
 * the server's command sets it. */
int allocations_wanted(void);
void allocations_want(int on);
/* The session's one provider: the runtime's, the keyword and level of the
 * runtime's major version (major). */
void allocations_config(COR_PRF_EVENTPIPE_PROVIDER_CONFIG *out, const WCHAR *runtime_provider,
                        unsigned major);
/* 1 for the event ids this module reads (of the runtime's provider). */
int allocations_event_id(DWORD event_id);
/* On the sender's thread, with its drop counts (every 500 ms): the samples
 * not sent since the last record, if any, in a record of their own (else a
 * burst's last ones would wait for the next sample); also, with none, while
 * the newest sample is less than a second old and once after: its time tells
 * the server that the newest sample's second is over (allocsites.h). */
void allocations_flush_unsent(void);
/* One of those events, on the thread that raised it (its ThreadID: thread). */
void allocations_event(DWORD event_id, const uint8_t *payload, size_t size, ThreadID thread);

#endif
