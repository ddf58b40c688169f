/* callbacks.h -- the ICorProfilerCallback11 table every profiler object
 * points at (callbacks.c): all 98 slots of ICorProfilerCallback..11. */
#ifndef JITSCOPE_CALLBACKS_H
#define JITSCOPE_CALLBACKS_H

#include "corprof.h"

extern const ICorProfilerCallback11Vtbl callbacks_table;
/* The floor's table (JITSCOPE_NULL=1): the same, but every event slot the
 * agent uses answers S_OK at once; lifecycle.c puts it in place of the other
 * before it asks for any event (through profiler.floor_table). */
const ICorProfilerCallback11Vtbl *callbacks_floor(void);

#endif
