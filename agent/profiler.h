/* profiler.h -- the profiler object CoreCLR holds: what CreateInstance
 * (factory.c) makes, the callback table (callbacks.c) points at, and the
 * lifecycle callbacks (lifecycle.c) look into. Its first member is the
 * interface, so the object's address is the interface pointer CoreCLR gets.
 */
#ifndef JITSCOPE_PROFILER_H
#define JITSCOPE_PROFILER_H

#include <stdatomic.h>
#include <string.h>

#include "corprof.h"

typedef struct profiler {
    ICorProfilerCallback11 iface; /* first: the object pointer is the interface pointer */
    _Atomic ULONG refs;
    int owns_agent; /* this runtime's instance holds the claim on `agent` (lifecycle.c) */
    /* the floor's callback table (callbacks.c), which lifecycle.c puts in
     * iface's place when the agent is a null agent (JITSCOPE_NULL=1) */
    const ICorProfilerCallback11Vtbl *floor_table;
} profiler;

static inline int profiler_guid_equal(const GUID *a, const GUID *b)
{
    return memcmp(a, b, sizeof(GUID)) == 0;
}

#endif
