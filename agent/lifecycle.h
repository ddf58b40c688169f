/* lifecycle.h -- the callbacks that start and end the agent in a runtime
 * (lifecycle.c): Initialize (startup), InitializeForAttach (attach),
 * ProfilerAttachComplete, ProfilerDetachSucceeded and Shutdown. The first
 * runtime to initialise claims the process-wide `agent` (agent.h); any other
 * is declined with CORPROF_E_PROFILER_CANCEL_ACTIVATION and its Shutdown or
 * detach leaves the agent alone. callbacks.c puts them in the table.
 */
#ifndef JITSCOPE_LIFECYCLE_H
#define JITSCOPE_LIFECYCLE_H

#include "corprof.h"

HRESULT STDMETHODCALLTYPE cb_Initialize(ICorProfilerCallback11 *self, IUnknown *unk);
HRESULT STDMETHODCALLTYPE cb_InitializeForAttach(ICorProfilerCallback11 *self, IUnknown *unk,
                                                 void *data, UINT length);
HRESULT STDMETHODCALLTYPE cb_ProfilerAttachComplete(ICorProfilerCallback11 *self);
HRESULT STDMETHODCALLTYPE cb_ProfilerDetachSucceeded(ICorProfilerCallback11 *self);
HRESULT STDMETHODCALLTYPE cb_Shutdown(ICorProfilerCallback11 *self);

#endif
