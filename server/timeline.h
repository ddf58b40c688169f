/* timeline.h -- one session's garbage collections and runtime suspensions.
 *
 * The agent reports GC_STARTED / GC_FINISHED and every phase of a runtime
 * suspension (RUNTIME_SUSPEND, proto/wire.h). The folds below pair them:
 * a GC is a start and the next finish; a suspension opens at phase STARTED
 * and closes at RESUME_FINISHED, or at SUSPEND_ABORTED as aborted. Every phase
 * carries its suspension's reason, and the records of two suspensions can
 * interleave (the runtime reports a resume as finished after it let the next
 * suspender in), so phases are paired within their class: jitscope's own
 * (reason TIMELINE_SUSPEND_FOR_PROFILER) and the runtime's (any other reason),
 * one open suspension each; within a class they never overlap. Ends without a
 * start (a collection or a suspension already running at attach, or records
 * lost) are ignored; a start that follows an unclosed one of its kind closes
 * the old GC as incomplete, or drops the old suspension. Both are counted in
 * `unmatched`.
 * Closed entries go into two rings keeping the newest TIMELINE_KEEP each
 * (32 + 24 bytes an entry, at most 3.5 MiB a session); older ones are
 * evicted and counted. Each closed entry is also a `gc` or `suspension` event
 * in the session's log, except jitscope's own suspensions while a profile is
 * running (hundreds a second would flood the log; /timeline has them).
 * The heap's generations after each collection (GC_HEAP_STATS, the runtime's
 * GCHeapStats) go into a third ring of the newest TIMELINE_KEEP (96 bytes an
 * entry), stamped when the agent read them (the end of the collection); they
 * log no event.
 * Durations come from the target's monotonic clock, start times are wall
 * clock (Unix ns). Caller holds the sessions lock.
 */
#ifndef JITSCOPE_TIMELINE_H
#define JITSCOPE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "eventlog.h"

#define TIMELINE_KEEP 65536u             /* newest GCs kept, and newest suspensions */
#define TIMELINE_SUSPEND_FOR_PROFILER 9u /* COR_PRF_SUSPEND_FOR_PROFILER: jitscope's own */

typedef struct timeline_gc {
    int64_t start_ns;        /* wall clock, Unix ns */
    uint64_t duration_ns;    /* 0 when incomplete */
    uint32_t generations;    /* bit g set: generation g collected (3 LOH, 4 POH) */
    uint32_t reason;         /* COR_PRF_GC_REASON: 0 other, 1 induced */
    uint32_t complete;       /* 1: the finish was seen */
    uint32_t runtime_reason; /* the runtime's own reason (GCTriggered's), + 1; 0 unknown */
} timeline_gc;

typedef struct timeline_suspension {
    int64_t start_ns;
    uint64_t duration_ns;
    uint32_t reason; /* COR_PRF_SUSPEND_REASON */
    uint32_t aborted;
} timeline_suspension;

typedef struct timeline_heap {
    int64_t time_ns;      /* wall clock, Unix ns: the end of its collection */
    uint64_t duration_ns; /* always 0 (the copies read every ring's entries as start, duration) */
    uint64_t size[5];     /* bytes after the collection: gen 0, 1, 2, LOH, POH */
    uint64_t promoted[5]; /* bytes that survived it, from each */
} timeline_heap;

typedef struct timeline_state {
    timeline_gc *gcs; /* ring of TIMELINE_KEEP, grown on demand */
    size_t gc_cap;
    uint64_t gc_total; /* closed so far; entry i lives at i % TIMELINE_KEEP */
    timeline_suspension *suspensions;
    size_t suspension_cap;
    uint64_t suspension_total;
    timeline_heap *heaps; /* ring of TIMELINE_KEEP, grown on demand */
    size_t heap_cap;
    uint64_t heap_total;
    uint64_t unmatched;      /* ends without a start, starts without an end */
    uint64_t capacity_drops; /* entries lost to a failed allocation */
    /* the GC in progress, and the open suspension of each class (0 the
     * runtime's, 1 jitscope's) */
    int gc_open, suspension_open[2];
    uint64_t gc_start_mono, suspension_start_mono[2];
    int64_t gc_start_ns, suspension_start_ns[2];
    uint32_t gc_generations, gc_reason, gc_runtime_reason, suspension_reason[2];
} timeline_state;

struct wire_record;

/* Folds one record in: a GC started, a GC finished, a phase of a runtime
 * suspension. `log`: where closed entries become events (NULL: none);
 * `profiling`: the sampler runs, so its suspensions stay out of the event log. */
void timeline_gc_started(timeline_state *t, eventlog *log, const struct wire_record *r,
                         int64_t when_ns);
void timeline_gc_finished(timeline_state *t, eventlog *log, const struct wire_record *r);
void timeline_runtime_suspend(timeline_state *t, int profiling, eventlog *log,
                              const struct wire_record *r, int64_t when_ns);
/* A GC_HEAP_STATS at when_ns. */
void timeline_heap_stats(timeline_state *t, const struct wire_record *r, int64_t when_ns);
void timeline_free(timeline_state *t);

uint64_t timeline_gcs_evicted(const timeline_state *t);
uint64_t timeline_suspensions_evicted(const timeline_state *t);
uint64_t timeline_heaps_evicted(const timeline_state *t);

/* Copies the newest `limit` entries (in the order they closed) overlapping
 * [from_ns, to_ns] into malloc'd arrays, ordered by start (*out NULL when
 * none). *matched counts every overlapping entry, also those left out by the
 * limit. -1 when out of memory. */
int timeline_copy_gcs(const timeline_state *t, int64_t from_ns, int64_t to_ns, size_t limit,
                      timeline_gc **out, size_t *count, size_t *matched);
int timeline_copy_heaps(const timeline_state *t, int64_t from_ns, int64_t to_ns, size_t limit,
                        timeline_heap **out, size_t *count, size_t *matched);
int timeline_copy_suspensions(const timeline_state *t, int64_t from_ns, int64_t to_ns, size_t limit,
                              timeline_suspension **out, size_t *count, size_t *matched);

/* A collection's reason as the API names it: the runtime's own when it said
 * (runtime_reason, + 1: "alloc_soh", "low_memory", "induced", ...), else what
 * the profiling API tells ("induced" or "other"). */
const char *timeline_gc_reason_name(uint32_t reason, uint32_t runtime_reason);
/* A GC_FINISHED event's id: both reasons in one number, and back. */
#define TIMELINE_GC_EVENT_ID(reason, runtime_reason)                                               \
    ((uint64_t)(reason) | (uint64_t)(runtime_reason) << 32)
#define TIMELINE_GC_EVENT_REASON(id) ((uint32_t)((id)&0xffffffffu))
#define TIMELINE_GC_EVENT_RUNTIME_REASON(id) ((uint32_t)((id) >> 32))
const char *timeline_suspend_reason_name(uint32_t reason);

#endif
