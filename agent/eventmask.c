/* eventmask.c -- the agent's event masks (see eventmask.h). */
#include "eventmask.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"

/* Low mask: JIT, modules, assemblies, threads, runtime suspensions, and the
 * right to call DoStackSnapshot. High mask (SetEventMask2): GC start and end
 * only (BASIC_GC: no object tracking, and concurrent GC stays on), and the
 * EventPipe events of our own session (tiers.c). */
#define EVENTMASK_FULL                                                                             \
    (COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_MODULE_LOADS |                              \
     COR_PRF_MONITOR_ASSEMBLY_LOADS | COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_SUSPENDS |         \
     COR_PRF_ENABLE_STACK_SNAPSHOT)
#define EVENTMASK_FULL_HIGH (COR_PRF_HIGH_BASIC_GC | COR_PRF_HIGH_MONITOR_EVENT_PIPE)
/* Startup mode only: the ReadyToRun code searches (jitinfo.c). The runtime
 * refuses this flag after an attach (it is not in COR_PRF_ALLOWABLE_AFTER_ATTACH:
 * SetEventMask2 would fail with CORPROF_E_UNSUPPORTED_FOR_ATTACHING_PROFILER),
 * so an attached agent cannot tell precompiled code from JIT misses. */
#define EVENTMASK_STARTUP_ONLY COR_PRF_MONITOR_CACHE_SEARCHES

_Static_assert((EVENTMASK_FULL & COR_PRF_MONITOR_IMMUTABLE) == 0, "the mask must stay detachable");
_Static_assert((EVENTMASK_FULL & ~COR_PRF_ALLOWABLE_AFTER_ATTACH) == 0,
               "the mask must be allowed after attach");
_Static_assert((EVENTMASK_STARTUP_ONLY & COR_PRF_MONITOR_IMMUTABLE) == 0,
               "the startup mask must stay detachable");
_Static_assert((EVENTMASK_STARTUP_ONLY & COR_PRF_ALLOWABLE_AFTER_ATTACH) == 0,
               "the startup-only flags are the ones attach may not have");
_Static_assert((EVENTMASK_FULL_HIGH & COR_PRF_HIGH_MONITOR_IMMUTABLE) == 0,
               "the high mask must stay detachable");
_Static_assert((EVENTMASK_FULL_HIGH & ~COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH) == 0,
               "the high mask must be allowed after attach");

/* Measuring only (WIRE_ENV_EXCEPTION_CALLBACKS): allowed after attach, not immutable. */
#define EVENTMASK_EXCEPTION_CALLBACKS COR_PRF_MONITOR_EXCEPTIONS
_Static_assert((EVENTMASK_EXCEPTION_CALLBACKS & ~COR_PRF_ALLOWABLE_AFTER_ATTACH) == 0 &&
                   (EVENTMASK_EXCEPTION_CALLBACKS & COR_PRF_MONITOR_IMMUTABLE) == 0,
               "the exception callbacks may be asked for after attach, and given back");

HRESULT eventmask_set(ICorProfilerInfo10 *info, int quiet)
{
    const char *callbacks = getenv(WIRE_ENV_EXCEPTION_CALLBACKS);
    DWORD low = EVENTMASK_FULL | (agent.mode == WIRE_MODE_STARTUP ? EVENTMASK_STARTUP_ONLY : 0) |
                (callbacks && strcmp(callbacks, "1") == 0 ? EVENTMASK_EXCEPTION_CALLBACKS : 0);

    return info->lpVtbl->SetEventMask2(info, quiet ? 0 : low, quiet ? 0 : EVENTMASK_FULL_HIGH);
}

void eventmask_get(ICorProfilerInfo10 *info, uint32_t *low, uint32_t *high)
{
    DWORD l = 0, h = 0;

    if (FAILED(info->lpVtbl->GetEventMask2(info, &l, &h)))
        l = h = 0;
    *low = (uint32_t)l;
    *high = (uint32_t)h;
}
