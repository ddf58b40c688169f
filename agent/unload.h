/* unload.h -- module unloads wait, bounded, until their functions are named.
 *
 * A FunctionID of a collectible assembly dies with its module, and the runtime
 * does not check the IDs a profiler passes: a name must be read before the
 * module's ModuleUnloadStarted returns. That callback (an app thread) calls
 * unload_started, which asks the sender thread to read ahead in the ring
 * (naming_prepare) and waits for it, at most UNLOAD_WAIT_MS; the sender serves
 * such requests from its loop, from inside a slow flush and between catch-up
 * entries (unload_service). If the wait runs out, nothing mentioned before
 * that point is looked up any more (naming_unsafe_before): names are lost and
 * counted, the app is never touched. Catch-up lists are checked against
 * unload_generation so that it never names from a list older than an unload.
 */
#ifndef JITSCOPE_UNLOAD_H
#define JITSCOPE_UNLOAD_H

#include <stdint.h>

#define UNLOAD_WAIT_MS 2000u /* longest wait of ModuleUnloadStarted for the sender */

/* App thread, first thing in ModuleUnloadStarted: records where in the ring
 * the unload began (agent.unload_fence). */
void unload_begins(void);

/* App thread, in ModuleUnloadStarted, after its record is in the ring. */
void unload_started(uint64_t module);

/* App thread, in ModuleUnloadFinished. */
void unload_finished(uint64_t module);

/* Sender thread: serves the waiting unloads (cheap when none waits). */
void unload_service(void);

/* Changes whenever an unload starts or finishes. */
uint64_t unload_generation(void);

/* Modules between ModuleUnloadStarted and ModuleUnloadFinished. */
int unload_in_progress(void);

/* The sender is leaving (detach, Shutdown): no waiting unload waits for it. */
void unload_sender_gone(void);

#endif
