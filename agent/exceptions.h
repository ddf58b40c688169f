/* exceptions.h -- every managed exception thrown, and where it was caught,
 * from the runtime's own exception events.
 *
 * tiers.c opens a third in-process EventPipe session beside the tier source
 * and the GC reasons, for the runtime provider's Exception keyword (0x8000) at
 * the informational level, while exceptions are wanted (on by default; off
 * with JITSCOPE_EXCEPTIONS=0, or at run time by WIRE_CMD_EXCEPTIONS). The
 * runtime delivers ExceptionThrown_V1 synchronously on the throwing thread as
 * the first pass of dispatch meets the throwing frame, with its type's full
 * name and its message formatted by the runtime (the floor pays that too).
 * exceptions_event finds its site: the throwing frame is the first of the
 * thread's own walk (walk_current_thread, one frame: the event's address is 0
 * on .NET 9 and 10 and the catcher's on .NET 8), once per site: a site already
 * resolved is found on the frame-pointer chain (its return address, at the
 * depth where it was met when resolved), its method and IL offset resolved
 * once per address (GetFunctionFromIP, the code version starting nearest below
 * it, its IL-to-native map) in a fixed cache of EXC_CACHE_SLOTS. Then
 * exccount.h decides: most exceptions of a site are only counted (sent as
 * WIRE_EXCEPTION_COUNTS deltas by the sender); a bounded sample (the first
 * WIRE_EXCEPTION_SAMPLED_FIRST per site, then one a second per site) becomes a
 * WIRE_EXCEPTION with the message cut to WIRE_EXCEPTION_MESSAGE_MAX bytes and
 * the thread's stack, up to 64 frames. ExceptionCatchStart, on the same thread
 * as a catch clause begins, becomes a WIRE_EXCEPTION_CAUGHT with the catching
 * method when the thread's exception went out as a record, else is counted.
 * No allocation, no lock: stack buffers, atomics, the ring (a full ring drops
 * and counts, as for every record).
 * docs/RUNTIME.md ("Exceptions") says why these events and not the profiling
 * API's exception callbacks, and what each costs. */
#ifndef JITSCOPE_EXCEPTIONS_H
#define JITSCOPE_EXCEPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "corprof.h"

/* 1 while exceptions are wanted: JITSCOPE_EXCEPTIONS=0 at start says no, the
 * server's command sets it. */
int exceptions_wanted(void);
void exceptions_want(int on);
/* The session's one provider: the runtime's, Exception keyword, informational. */
void exceptions_config(COR_PRF_EVENTPIPE_PROVIDER_CONFIG *out, const WCHAR *runtime_provider);
/* 1 for the event ids this module reads (of the runtime's provider). */
int exceptions_event_id(DWORD event_id);
/* One of those events, on the thread that raised it (its ThreadID: thread). */
void exceptions_event(DWORD event_id, const uint8_t *payload, size_t size, ThreadID thread);

#endif
