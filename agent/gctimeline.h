/* gctimeline.h -- GC and runtime-suspension callbacks -> ring records.
 *
 * The runtime calls these on its GC thread or on whichever thread suspends
 * or resumes it (also on the agent's walker thread: our own suspensions, reason
 * COR_PRF_SUSPEND_FOR_PROFILER). Ring writes only: no lock, no allocation, no
 * call into the runtime. */
#ifndef JITSCOPE_GCTIMELINE_H
#define JITSCOPE_GCTIMELINE_H

#include "corprof.h"

/* A new agent begins: GC and suspension callbacks are ignored again until the
 * first start of each (one already running belongs to nobody's timeline). */
void gctimeline_reset(void);
/* GarbageCollectionStarted calls since the process loaded the agent (which
 * collection the heap statistics that follow belong to: gcheap.h). */
uint64_t gctimeline_gc_count(void);

HRESULT STDMETHODCALLTYPE cb_GarbageCollectionStarted(ICorProfilerCallback11 *self,
                                                      int cGenerations, BOOL generationCollected[],
                                                      COR_PRF_GC_REASON reason);
HRESULT STDMETHODCALLTYPE cb_GarbageCollectionFinished(ICorProfilerCallback11 *self);
HRESULT STDMETHODCALLTYPE cb_RuntimeSuspendStarted(ICorProfilerCallback11 *self,
                                                   COR_PRF_SUSPEND_REASON suspendReason);
HRESULT STDMETHODCALLTYPE cb_RuntimeSuspendFinished(ICorProfilerCallback11 *self);
HRESULT STDMETHODCALLTYPE cb_RuntimeSuspendAborted(ICorProfilerCallback11 *self);
HRESULT STDMETHODCALLTYPE cb_RuntimeResumeStarted(ICorProfilerCallback11 *self);
HRESULT STDMETHODCALLTYPE cb_RuntimeResumeFinished(ICorProfilerCallback11 *self);

#endif
