/* events.h -- the callbacks that turn runtime events into ring records.
 * Called on the application's threads: no locks, no allocation, no waiting. */
#ifndef JITSCOPE_EVENTS_H
#define JITSCOPE_EVENTS_H

#include "corprof.h"

/* The calling thread's ThreadID (cached per thread; 0 when the runtime has none). */
ThreadID events_thread_id(void);
/* 1 while the calling thread is compiling a dynamic method (between its
 * DynamicMethodJITCompilationStarted and Finished). */
int events_in_dynamic_jit(void);

HRESULT STDMETHODCALLTYPE cb_JITCompilationStarted(ICorProfilerCallback11 *self,
                                                   FunctionID functionId, BOOL fIsSafeToBlock);
HRESULT STDMETHODCALLTYPE cb_JITCompilationFinished(ICorProfilerCallback11 *self,
                                                    FunctionID functionId, HRESULT hrStatus,
                                                    BOOL fIsSafeToBlock);
HRESULT STDMETHODCALLTYPE cb_DynamicMethodJITCompilationStarted(ICorProfilerCallback11 *self,
                                                                FunctionID functionId,
                                                                BOOL fIsSafeToBlock,
                                                                LPCBYTE pILHeader,
                                                                ULONG cbILHeader);
HRESULT STDMETHODCALLTYPE cb_DynamicMethodJITCompilationFinished(ICorProfilerCallback11 *self,
                                                                 FunctionID functionId,
                                                                 HRESULT hrStatus,
                                                                 BOOL fIsSafeToBlock);
HRESULT STDMETHODCALLTYPE cb_EventPipeEventDelivered(
    ICorProfilerCallback11 *self, EVENTPIPE_PROVIDER provider, DWORD eventId, DWORD eventVersion,
    ULONG cbMetadataBlob, LPCBYTE metadataBlob, ULONG cbEventData, LPCBYTE eventData,
    LPCGUID pActivityId, LPCGUID pRelatedActivityId, ThreadID eventThread, ULONG numStackFrames,
    UINT_PTR stackFrames[]);
HRESULT STDMETHODCALLTYPE cb_ModuleLoadFinished(ICorProfilerCallback11 *self, ModuleID moduleId,
                                                HRESULT hrStatus);
HRESULT STDMETHODCALLTYPE cb_ModuleUnloadStarted(ICorProfilerCallback11 *self, ModuleID moduleId);
HRESULT STDMETHODCALLTYPE cb_ModuleUnloadFinished(ICorProfilerCallback11 *self, ModuleID moduleId,
                                                  HRESULT hrStatus);
HRESULT STDMETHODCALLTYPE cb_AssemblyLoadFinished(ICorProfilerCallback11 *self,
                                                  AssemblyID assemblyId, HRESULT hrStatus);
HRESULT STDMETHODCALLTYPE cb_ThreadCreated(ICorProfilerCallback11 *self, ThreadID threadId);
HRESULT STDMETHODCALLTYPE cb_ThreadDestroyed(ICorProfilerCallback11 *self, ThreadID threadId);
HRESULT STDMETHODCALLTYPE cb_ThreadAssignedToOSThread(ICorProfilerCallback11 *self,
                                                      ThreadID managedThreadId, DWORD osThreadId);
HRESULT STDMETHODCALLTYPE cb_ThreadNameChanged(ICorProfilerCallback11 *self, ThreadID threadId,
                                               ULONG cchName, WCHAR name[]);

#endif
