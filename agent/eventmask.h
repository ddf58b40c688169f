/* eventmask.h -- which runtime callbacks the agent asks for, and going quiet.
 *
 * The full mask (JIT, modules, assemblies, threads, suspensions, GC start and
 * end, our EventPipe session's events, the right to walk stacks) is set in
 * Initialize / InitializeForAttach. While no server has been connected for a
 * while (sender.c), every record would only be discarded: the agent then asks
 * for no callbacks at all, so the app runs as if it were not there, and asks
 * for them again when a server connects (which then gets a catch-up of what
 * happened meanwhile). Every flag is mutable, so detach stays possible.
 */
#ifndef JITSCOPE_EVENTMASK_H
#define JITSCOPE_EVENTMASK_H

#include <stdint.h>

#include "corprof.h"

/* Sets the full mask (quiet 0) or none (quiet 1). Returns the HRESULT. */
HRESULT eventmask_set(ICorProfilerInfo10 *info, int quiet);
/* The masks the runtime holds for the agent now (its own word, GetEventMask2):
 * what the hello reports, so a floor and a default agent can be compared.
 * Both 0 when the runtime does not say. */
void eventmask_get(ICorProfilerInfo10 *info, uint32_t *low, uint32_t *high);

#endif
