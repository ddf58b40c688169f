/* tiers.h -- the optimisation tier of each JIT compilation (Tier0, Tier1, OSR,
 * instrumented, FullOpts, MinOpts), as the runtime itself reports it.
 *
 * The profiling API has no call that tells a compilation's tier; the runtime's
 * MethodLoad event does (MethodFlags bits 7-9). tiers_start opens an in-process
 * EventPipe session (ICorProfilerInfo12) for the runtime provider's JIT keyword.
 * The level must be verbose: the runtime checks that level before it does any
 * of its JIT event work, so at a lower one nothing comes. The JIT then also
 * sends MethodJittingStarted and MethodLoadVerbose with the names formatted;
 * bench/ measures what that costs. Such a session is synchronous: each MethodLoad
 * reaches cb_EventPipeEventDelivered on the JIT thread, after the code is made
 * and just before JITCompilationFinished on the same thread. tiers_event parks
 * the tier (with the code's start and size, which spares the JIT thread the
 * profiling API's code-info calls) in a slot of a fixed table (1024 slots, a thread takes the first
 * free one of 8 from its home slot); the JIT-finished callback takes it back
 * with tiers_take. No allocation, no lock, no record of its own. When all 8
 * are held by other threads mid-JIT the tier is lost (the compilation reports
 * WIRE_TIER_UNKNOWN) and counted.
 *
 * The runtime shuts EventPipe down as the process begins to exit (first thing
 * in its shutdown, before the ProcessExit handlers run and before the
 * profiler's Shutdown), which disables this session: compilations from then on
 * (ProcessExit handlers, threads still at work) come with no event at all.
 * Two things mean our session has ended: a compilation that was under way
 * as it ended (its MethodJittingStarted came, from this session, its code was
 * made, its MethodLoad did not come: the runtime stops writing events a
 * moment before it says anything else); and after a session was disabled
 * (each disable sends the EventPipe provider's ProcessInfo event to every
 * session; not of our own tiers_stop), a compilation with no event of ours
 * (neither MethodJittingStarted nor MethodLoad, and no lost slot). tiers_take
 * then sends a WIRE_TIERS_STATUS saying so (WIRE_TIERS_ENDED_BY_RUNTIME),
 * before that compilation's record, so the server can say why the tiers from
 * then on are unknown. Its time: the compilation's, or the last ProcessInfo's
 * (when our session was disabled) if earlier; a thread that sees an earlier
 * end than was said (compilations under way on several threads finish in any
 * order) says it again, and the server keeps the earliest. Another tool's
 * session ending sends ProcessInfo too, but ours keeps delivering; should a
 * compilation begin with its event after the note, it is taken back
 * (WIRE_TIERS_ON), unless a compilation was cut (a MethodJittingStarted can
 * come late, from a thread that passed the runtime's check just before the
 * end). The profiler's Shutdown says it too if no compilation did
 * (compilations still come after it).
 *
 * Catch-up cannot know tiers: the runtime's rundown (the events for code that
 * already exists) is not delivered to synchronous sessions. The session is
 * stopped before the agent asks to detach. JITSCOPE_TIERS=0 leaves it off.
 */
#ifndef JITSCOPE_TIERS_H
#define JITSCOPE_TIERS_H

#include <stdint.h>

#include "corprof.h"
#include "wire.h"

/* 0 when JITSCOPE_TIERS=0 asks the agent to start without tiers. */
int tiers_wanted_at_start(void);
/* Opens the session (called by agent_begin, and by the sender thread on
 * WIRE_CMD_TIERS). 0, or -1 (tiers stay unknown; the reason is logged and
 * kept for tiers_status). */
int tiers_start(ICorProfilerInfo10 *info);
/* Closes it (in a callback: a failed start). Idempotent. */
void tiers_stop(void);
/* Shutdown's tiers_stop: first says (WIRE_TIERS_ENDED_BY_RUNTIME) that the
 * runtime ended the session, when a ProcessInfo said a session was disabled
 * and nothing has said so yet: compilations can still come after Shutdown. */
void tiers_stop_at_shutdown(void);
/* tiers_start (on) or tiers_stop (off) from a thread of its own, and waits:
 * for the sender thread (commands, detach), which must not become a thread the
 * runtime knows (it would lose the right to call ICorProfilerInfo outside a
 * callback, which naming needs). */
void tiers_switch(ICorProfilerInfo10 *info, int on);
/* The same for exceptions.h's session alone (WIRE_CMD_EXCEPTIONS): wanted or
 * not from now on, and opened or closed now if the source is open (else at
 * its next start). */
void tiers_switch_exceptions(ICorProfilerInfo10 *info, int on);
/* The same for allocations.h's session (WIRE_CMD_ALLOCATIONS). */
void tiers_switch_allocations(ICorProfilerInfo10 *info, int on);
/* 1 while a session is open. */
int tiers_running(void);

/* cb_EventPipeEventDelivered: keeps the tier of a MethodLoad(Verbose) event;
 * notes a ProcessInfo of the EventPipe provider (a session was disabled). */
void tiers_event(EVENTPIPE_PROVIDER provider, DWORD event_id, ULONG size, LPCBYTE payload,
                 ThreadID thread);
/* What MethodLoad said of one compilation: its tier, and where its code is. */
typedef struct tiers_code {
    uint32_t tier;    /* wire_tier; WIRE_TIER_UNKNOWN when the event did not come */
    uint32_t size;    /* native bytes (MethodSize) */
    uint32_t il_size; /* MethodILSize of the MethodJittingStarted before it, 0 if none */
    uint64_t start;   /* MethodStartAddress, 0 when the event did not come */
} tiers_code;

/* The JIT-finished callbacks: what MethodLoad said of the compilation of
 * `function` that just finished on this thread (succeeded: its status did).
 * Returns 1, or 0 when nothing was parked for it (out->tier is then
 * WIRE_TIER_UNKNOWN, out->start 0). now_ns: the compilation's record's time,
 * which a WIRE_TIERS_STATUS it sends (above) takes too. */
int tiers_take(FunctionID function, uint64_t now_ns, int succeeded, tiers_code *out);
/* Tiers lost to slot collisions so far. */
uint64_t tiers_lost(void);
/* On or off, why not, and the losses: the WIRE_TIERS_STATUS payload. */
void tiers_status(wire_tiers_status *out);

#endif
