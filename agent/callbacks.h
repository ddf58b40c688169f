/* callbacks.h -- the ICorProfilerCallback11 table every profiler object
 * points at (callbacks.c): all 98 slots of ICorProfilerCallback..11. */
#ifndef JITSCOPE_CALLBACKS_H
#define JITSCOPE_CALLBACKS_H

#include "corprof.h"

extern const ICorProfilerCallback11Vtbl callbacks_table;

#endif
