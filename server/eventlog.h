/* eventlog.h -- a session's event log: the ring of events behind
 * GET .../events, the live stream and the dashboard's feed.
 *
 * One entry per thing that happened (a compilation, a module or thread
 * coming or going, a GC, a suspension, a stack snapshot, a profile's state),
 * numbered from 1 without gaps; the newest EVENTLOG_MAX are kept and older
 * ones counted as evicted. The record folders (session.c, stacks.c,
 * profile.c, timeline.c) append to it; views, the stream and storage read
 * it. It knows nothing of sessions, so the folders depend on it and not on
 * the session that holds it. Caller holds the sessions lock.
 */
#ifndef JITSCOPE_EVENTLOG_H
#define JITSCOPE_EVENTLOG_H

#include <stddef.h>
#include <stdint.h>

#define EVENTLOG_MAX (1024u * 1024u) /* newest kept; older ones are evicted and counted */

/* One entry (48 bytes). What id, value and extra hold depends on the type:
 *   JIT_FINISHED     FunctionID      JIT duration ns      native size
 *   MODULE_*         ModuleID        base address         -
 *   ASSEMBLY_LOADED  AssemblyID      manifest ModuleID    -
 *   THREAD_*         ThreadID        OS thread id         thread row + 1 (0: unknown)
 *   CATCHUP_END      -               duration ns          functions
 *   DETACH_STATUS    -               HRESULT              state
 *   GC_FINISHED      GC reason       duration ns          generation bits      (`gc`)
 *   RUNTIME_SUSPEND  suspend reason  duration ns          1 if aborted         (`suspension`)
 *   STACK_END        snapshot number suspend ns           threads              (`stack_snapshot`)
 *   PROFILE_STATUS   requested mHz | budget permille << 32, effective mHz, wire state (`profile`)
 * time_ns is when it began (a GC's or a suspension's start). */
typedef struct eventlog_entry {
    uint64_t seq;    /* from 1, no gaps */
    int64_t time_ns; /* wall clock of the event in the target */
    uint64_t id;
    uint64_t value;
    uint16_t type; /* wire_record_type */
    uint16_t flags;
    uint32_t extra;
    uint32_t tier;         /* JIT_FINISHED: wire_tier of the compilation */
    uint32_t function_row; /* JIT_FINISHED: the function's position + 1 (0: find it by id) */
} eventlog_entry;

typedef struct eventlog {
    eventlog_entry *entries; /* ring of EVENTLOG_MAX, grown on demand */
    size_t cap;
    uint64_t last_seq; /* the newest entry's number; 0 while empty */
    uint64_t evicted;  /* entries before the oldest kept one */
    uint64_t lost;     /* entries that found no memory */
} eventlog;

/* Appends an entry (tier 0); returns it, or NULL when no memory was left
 * (counted in lost). A NULL log takes nothing (a fold that must not log). */
eventlog_entry *eventlog_append(eventlog *log, uint16_t type, uint16_t flags, int64_t time_ns,
                                uint64_t id, uint64_t value, uint32_t extra);
/* The oldest entry still kept (last_seq + 1 when none is). */
uint64_t eventlog_first_seq(const eventlog *log);
/* Entry number seq, or NULL when it is not kept (evicted, or not yet made). */
const eventlog_entry *eventlog_at(const eventlog *log, uint64_t seq);
/* Puts back an entry read from storage at its own seq (restoring in
 * increasing seq order); the log's counters come with it. 0, or -1 for a seq
 * that is 0 or not after the last one, or out of memory. */
int eventlog_restore(eventlog *log, const eventlog_entry *e);
/* The memory the ring holds, in bytes. */
size_t eventlog_bytes(const eventlog *log);
void eventlog_free(eventlog *log);

#endif
