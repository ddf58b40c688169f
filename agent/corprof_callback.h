/* corprof_callback.h -- IUnknown, IClassFactory and ICorProfilerCallback ..
 * ICorProfilerCallback11 (one flat table of 98 slots, implemented by the
 * agent), each with its slot checks (the IIDs are in corprof_iids.h).
 * Part of corprof.h (read its opening comment: where the facts come from, the
 * ABI rules these declarations follow). */
#ifndef JITSCOPE_CORPROF_CALLBACK_H
#define JITSCOPE_CORPROF_CALLBACK_H

#include "corprof_types.h"

/* ------------------------------------------------------------------------ */
/* IUnknown, IClassFactory                                                  */
/* ------------------------------------------------------------------------ */

typedef struct IUnknownVtbl {
    CORPROF_IUNKNOWN_SLOTS(IUnknown);
} IUnknownVtbl;

CORPROF_OBJECT(IUnknown, 3);

typedef struct IClassFactoryVtbl {
    CORPROF_IUNKNOWN_SLOTS(IClassFactory);
    /* IClassFactory */
    HRESULT (STDMETHODCALLTYPE *CreateInstance)(IClassFactory *self, IUnknown *pUnkOuter,
                                                REFIID riid, void **ppvObject);
    HRESULT (STDMETHODCALLTYPE *LockServer)(IClassFactory *self, BOOL fLock);
} IClassFactoryVtbl;

CORPROF_OBJECT(IClassFactory, 3 + 2);

/* ------------------------------------------------------------------------ */
/* ICorProfilerCallback .. ICorProfilerCallback11 (implemented by us)       */
/* ------------------------------------------------------------------------ */

typedef struct ICorProfilerCallback11Vtbl {
    CORPROF_IUNKNOWN_SLOTS(ICorProfilerCallback11);

    /* ICorProfilerCallback */
    HRESULT (STDMETHODCALLTYPE *Initialize)(ICorProfilerCallback11 *self,
                                            IUnknown *pICorProfilerInfoUnk);
    HRESULT (STDMETHODCALLTYPE *Shutdown)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *AppDomainCreationStarted)(ICorProfilerCallback11 *self,
                                                          AppDomainID appDomainId);
    HRESULT (STDMETHODCALLTYPE *AppDomainCreationFinished)(ICorProfilerCallback11 *self,
                                                           AppDomainID appDomainId,
                                                           HRESULT hrStatus);
    HRESULT (STDMETHODCALLTYPE *AppDomainShutdownStarted)(ICorProfilerCallback11 *self,
                                                          AppDomainID appDomainId);
    HRESULT (STDMETHODCALLTYPE *AppDomainShutdownFinished)(ICorProfilerCallback11 *self,
                                                           AppDomainID appDomainId,
                                                           HRESULT hrStatus);
    HRESULT (STDMETHODCALLTYPE *AssemblyLoadStarted)(ICorProfilerCallback11 *self,
                                                     AssemblyID assemblyId);
    HRESULT (STDMETHODCALLTYPE *AssemblyLoadFinished)(ICorProfilerCallback11 *self,
                                                      AssemblyID assemblyId, HRESULT hrStatus);
    HRESULT (STDMETHODCALLTYPE *AssemblyUnloadStarted)(ICorProfilerCallback11 *self,
                                                       AssemblyID assemblyId);
    HRESULT (STDMETHODCALLTYPE *AssemblyUnloadFinished)(ICorProfilerCallback11 *self,
                                                        AssemblyID assemblyId, HRESULT hrStatus);
    HRESULT (STDMETHODCALLTYPE *ModuleLoadStarted)(ICorProfilerCallback11 *self,
                                                   ModuleID moduleId);
    HRESULT (STDMETHODCALLTYPE *ModuleLoadFinished)(ICorProfilerCallback11 *self,
                                                    ModuleID moduleId, HRESULT hrStatus);
    HRESULT (STDMETHODCALLTYPE *ModuleUnloadStarted)(ICorProfilerCallback11 *self,
                                                     ModuleID moduleId);
    HRESULT (STDMETHODCALLTYPE *ModuleUnloadFinished)(ICorProfilerCallback11 *self,
                                                      ModuleID moduleId, HRESULT hrStatus);
    HRESULT (STDMETHODCALLTYPE *ModuleAttachedToAssembly)(ICorProfilerCallback11 *self,
                                                          ModuleID moduleId,
                                                          AssemblyID AssemblyId);
    HRESULT (STDMETHODCALLTYPE *ClassLoadStarted)(ICorProfilerCallback11 *self, ClassID classId);
    HRESULT (STDMETHODCALLTYPE *ClassLoadFinished)(ICorProfilerCallback11 *self, ClassID classId,
                                                   HRESULT hrStatus);
    HRESULT (STDMETHODCALLTYPE *ClassUnloadStarted)(ICorProfilerCallback11 *self,
                                                    ClassID classId);
    HRESULT (STDMETHODCALLTYPE *ClassUnloadFinished)(ICorProfilerCallback11 *self,
                                                     ClassID classId, HRESULT hrStatus);
    HRESULT (STDMETHODCALLTYPE *FunctionUnloadStarted)(ICorProfilerCallback11 *self,
                                                       FunctionID functionId);
    HRESULT (STDMETHODCALLTYPE *JITCompilationStarted)(ICorProfilerCallback11 *self,
                                                       FunctionID functionId,
                                                       BOOL fIsSafeToBlock);
    HRESULT (STDMETHODCALLTYPE *JITCompilationFinished)(ICorProfilerCallback11 *self,
                                                        FunctionID functionId, HRESULT hrStatus,
                                                        BOOL fIsSafeToBlock);
    HRESULT (STDMETHODCALLTYPE *JITCachedFunctionSearchStarted)(ICorProfilerCallback11 *self,
                                                                FunctionID functionId,
                                                                BOOL *pbUseCachedFunction);
    HRESULT (STDMETHODCALLTYPE *JITCachedFunctionSearchFinished)(ICorProfilerCallback11 *self,
                                                                 FunctionID functionId,
                                                                 COR_PRF_JIT_CACHE result);
    HRESULT (STDMETHODCALLTYPE *JITFunctionPitched)(ICorProfilerCallback11 *self,
                                                    FunctionID functionId);
    HRESULT (STDMETHODCALLTYPE *JITInlining)(ICorProfilerCallback11 *self, FunctionID callerId,
                                             FunctionID calleeId, BOOL *pfShouldInline);
    HRESULT (STDMETHODCALLTYPE *ThreadCreated)(ICorProfilerCallback11 *self, ThreadID threadId);
    HRESULT (STDMETHODCALLTYPE *ThreadDestroyed)(ICorProfilerCallback11 *self, ThreadID threadId);
    HRESULT (STDMETHODCALLTYPE *ThreadAssignedToOSThread)(ICorProfilerCallback11 *self,
                                                          ThreadID managedThreadId,
                                                          DWORD osThreadId);
    HRESULT (STDMETHODCALLTYPE *RemotingClientInvocationStarted)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *RemotingClientSendingMessage)(ICorProfilerCallback11 *self,
                                                              GUID *pCookie, BOOL fIsAsync);
    HRESULT (STDMETHODCALLTYPE *RemotingClientReceivingReply)(ICorProfilerCallback11 *self,
                                                              GUID *pCookie, BOOL fIsAsync);
    HRESULT (STDMETHODCALLTYPE *RemotingClientInvocationFinished)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *RemotingServerReceivingMessage)(ICorProfilerCallback11 *self,
                                                                GUID *pCookie, BOOL fIsAsync);
    HRESULT (STDMETHODCALLTYPE *RemotingServerInvocationStarted)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *RemotingServerInvocationReturned)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *RemotingServerSendingReply)(ICorProfilerCallback11 *self,
                                                            GUID *pCookie, BOOL fIsAsync);
    HRESULT (STDMETHODCALLTYPE *UnmanagedToManagedTransition)(ICorProfilerCallback11 *self,
                                                              FunctionID functionId,
                                                              COR_PRF_TRANSITION_REASON reason);
    HRESULT (STDMETHODCALLTYPE *ManagedToUnmanagedTransition)(ICorProfilerCallback11 *self,
                                                              FunctionID functionId,
                                                              COR_PRF_TRANSITION_REASON reason);
    HRESULT (STDMETHODCALLTYPE *RuntimeSuspendStarted)(ICorProfilerCallback11 *self,
                                                       COR_PRF_SUSPEND_REASON suspendReason);
    HRESULT (STDMETHODCALLTYPE *RuntimeSuspendFinished)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *RuntimeSuspendAborted)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *RuntimeResumeStarted)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *RuntimeResumeFinished)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *RuntimeThreadSuspended)(ICorProfilerCallback11 *self,
                                                        ThreadID threadId);
    HRESULT (STDMETHODCALLTYPE *RuntimeThreadResumed)(ICorProfilerCallback11 *self,
                                                      ThreadID threadId);
    HRESULT (STDMETHODCALLTYPE *MovedReferences)(ICorProfilerCallback11 *self,
                                                 ULONG cMovedObjectIDRanges,
                                                 ObjectID oldObjectIDRangeStart[],
                                                 ObjectID newObjectIDRangeStart[],
                                                 ULONG cObjectIDRangeLength[]);
    HRESULT (STDMETHODCALLTYPE *ObjectAllocated)(ICorProfilerCallback11 *self, ObjectID objectId,
                                                 ClassID classId);
    HRESULT (STDMETHODCALLTYPE *ObjectsAllocatedByClass)(ICorProfilerCallback11 *self,
                                                         ULONG cClassCount, ClassID classIds[],
                                                         ULONG cObjects[]);
    HRESULT (STDMETHODCALLTYPE *ObjectReferences)(ICorProfilerCallback11 *self, ObjectID objectId,
                                                  ClassID classId, ULONG cObjectRefs,
                                                  ObjectID objectRefIds[]);
    HRESULT (STDMETHODCALLTYPE *RootReferences)(ICorProfilerCallback11 *self, ULONG cRootRefs,
                                                ObjectID rootRefIds[]);
    HRESULT (STDMETHODCALLTYPE *ExceptionThrown)(ICorProfilerCallback11 *self,
                                                 ObjectID thrownObjectId);
    HRESULT (STDMETHODCALLTYPE *ExceptionSearchFunctionEnter)(ICorProfilerCallback11 *self,
                                                              FunctionID functionId);
    HRESULT (STDMETHODCALLTYPE *ExceptionSearchFunctionLeave)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *ExceptionSearchFilterEnter)(ICorProfilerCallback11 *self,
                                                            FunctionID functionId);
    HRESULT (STDMETHODCALLTYPE *ExceptionSearchFilterLeave)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *ExceptionSearchCatcherFound)(ICorProfilerCallback11 *self,
                                                             FunctionID functionId);
    HRESULT (STDMETHODCALLTYPE *ExceptionOSHandlerEnter)(ICorProfilerCallback11 *self,
                                                         UINT_PTR unused);
    HRESULT (STDMETHODCALLTYPE *ExceptionOSHandlerLeave)(ICorProfilerCallback11 *self,
                                                         UINT_PTR unused);
    HRESULT (STDMETHODCALLTYPE *ExceptionUnwindFunctionEnter)(ICorProfilerCallback11 *self,
                                                              FunctionID functionId);
    HRESULT (STDMETHODCALLTYPE *ExceptionUnwindFunctionLeave)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *ExceptionUnwindFinallyEnter)(ICorProfilerCallback11 *self,
                                                             FunctionID functionId);
    HRESULT (STDMETHODCALLTYPE *ExceptionUnwindFinallyLeave)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *ExceptionCatcherEnter)(ICorProfilerCallback11 *self,
                                                       FunctionID functionId, ObjectID objectId);
    HRESULT (STDMETHODCALLTYPE *ExceptionCatcherLeave)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *COMClassicVTableCreated)(ICorProfilerCallback11 *self,
                                                         ClassID wrappedClassId,
                                                         REFGUID implementedIID, void *pVTable,
                                                         ULONG cSlots);
    HRESULT (STDMETHODCALLTYPE *COMClassicVTableDestroyed)(ICorProfilerCallback11 *self,
                                                           ClassID wrappedClassId,
                                                           REFGUID implementedIID,
                                                           void *pVTable);
    HRESULT (STDMETHODCALLTYPE *ExceptionCLRCatcherFound)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *ExceptionCLRCatcherExecute)(ICorProfilerCallback11 *self);

    /* ICorProfilerCallback2 */
    HRESULT (STDMETHODCALLTYPE *ThreadNameChanged)(ICorProfilerCallback11 *self,
                                                   ThreadID threadId, ULONG cchName,
                                                   WCHAR name[]); /* not NUL-terminated */
    HRESULT (STDMETHODCALLTYPE *GarbageCollectionStarted)(ICorProfilerCallback11 *self,
                                                          int cGenerations,
                                                          BOOL generationCollected[],
                                                          COR_PRF_GC_REASON reason);
    HRESULT (STDMETHODCALLTYPE *SurvivingReferences)(ICorProfilerCallback11 *self,
                                                     ULONG cSurvivingObjectIDRanges,
                                                     ObjectID objectIDRangeStart[],
                                                     ULONG cObjectIDRangeLength[]);
    HRESULT (STDMETHODCALLTYPE *GarbageCollectionFinished)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *FinalizeableObjectQueued)(ICorProfilerCallback11 *self,
                                                          DWORD finalizerFlags,
                                                          ObjectID objectID);
    HRESULT (STDMETHODCALLTYPE *RootReferences2)(ICorProfilerCallback11 *self, ULONG cRootRefs,
                                                 ObjectID rootRefIds[],
                                                 COR_PRF_GC_ROOT_KIND rootKinds[],
                                                 COR_PRF_GC_ROOT_FLAGS rootFlags[],
                                                 UINT_PTR rootIds[]);
    HRESULT (STDMETHODCALLTYPE *HandleCreated)(ICorProfilerCallback11 *self, GCHandleID handleId,
                                               ObjectID initialObjectId);
    HRESULT (STDMETHODCALLTYPE *HandleDestroyed)(ICorProfilerCallback11 *self,
                                                 GCHandleID handleId);

    /* ICorProfilerCallback3 */
    HRESULT (STDMETHODCALLTYPE *InitializeForAttach)(ICorProfilerCallback11 *self,
                                                     IUnknown *pCorProfilerInfoUnk,
                                                     void *pvClientData, UINT cbClientData);
    HRESULT (STDMETHODCALLTYPE *ProfilerAttachComplete)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *ProfilerDetachSucceeded)(ICorProfilerCallback11 *self);

    /* ICorProfilerCallback4 */
    HRESULT (STDMETHODCALLTYPE *ReJITCompilationStarted)(ICorProfilerCallback11 *self,
                                                         FunctionID functionId, ReJITID rejitId,
                                                         BOOL fIsSafeToBlock);
    HRESULT (STDMETHODCALLTYPE *GetReJITParameters)(ICorProfilerCallback11 *self,
                                                    ModuleID moduleId, mdMethodDef methodId,
                                                    ICorProfilerFunctionControl *pFunctionControl);
    HRESULT (STDMETHODCALLTYPE *ReJITCompilationFinished)(ICorProfilerCallback11 *self,
                                                          FunctionID functionId, ReJITID rejitId,
                                                          HRESULT hrStatus, BOOL fIsSafeToBlock);
    HRESULT (STDMETHODCALLTYPE *ReJITError)(ICorProfilerCallback11 *self, ModuleID moduleId,
                                            mdMethodDef methodId, FunctionID functionId,
                                            HRESULT hrStatus);
    HRESULT (STDMETHODCALLTYPE *MovedReferences2)(ICorProfilerCallback11 *self,
                                                  ULONG cMovedObjectIDRanges,
                                                  ObjectID oldObjectIDRangeStart[],
                                                  ObjectID newObjectIDRangeStart[],
                                                  SIZE_T cObjectIDRangeLength[]);
    HRESULT (STDMETHODCALLTYPE *SurvivingReferences2)(ICorProfilerCallback11 *self,
                                                      ULONG cSurvivingObjectIDRanges,
                                                      ObjectID objectIDRangeStart[],
                                                      SIZE_T cObjectIDRangeLength[]);

    /* ICorProfilerCallback5 */
    HRESULT (STDMETHODCALLTYPE *ConditionalWeakTableElementReferences)(
        ICorProfilerCallback11 *self, ULONG cRootRefs, ObjectID keyRefIds[],
        ObjectID valueRefIds[], GCHandleID rootIds[]);

    /* ICorProfilerCallback6 */
    HRESULT (STDMETHODCALLTYPE *GetAssemblyReferences)(
        ICorProfilerCallback11 *self, const WCHAR *wszAssemblyPath,
        ICorProfilerAssemblyReferenceProvider *pAsmRefProvider);

    /* ICorProfilerCallback7 */
    HRESULT (STDMETHODCALLTYPE *ModuleInMemorySymbolsUpdated)(ICorProfilerCallback11 *self,
                                                              ModuleID moduleId);

    /* ICorProfilerCallback8 */
    HRESULT (STDMETHODCALLTYPE *DynamicMethodJITCompilationStarted)(ICorProfilerCallback11 *self,
                                                                    FunctionID functionId,
                                                                    BOOL fIsSafeToBlock,
                                                                    LPCBYTE pILHeader,
                                                                    ULONG cbILHeader);
    HRESULT (STDMETHODCALLTYPE *DynamicMethodJITCompilationFinished)(ICorProfilerCallback11 *self,
                                                                     FunctionID functionId,
                                                                     HRESULT hrStatus,
                                                                     BOOL fIsSafeToBlock);

    /* ICorProfilerCallback9 */
    HRESULT (STDMETHODCALLTYPE *DynamicMethodUnloaded)(ICorProfilerCallback11 *self,
                                                       FunctionID functionId);

    /* ICorProfilerCallback10 */
    HRESULT (STDMETHODCALLTYPE *EventPipeEventDelivered)(
        ICorProfilerCallback11 *self, EVENTPIPE_PROVIDER provider, DWORD eventId,
        DWORD eventVersion, ULONG cbMetadataBlob, LPCBYTE metadataBlob, ULONG cbEventData,
        LPCBYTE eventData, LPCGUID pActivityId, LPCGUID pRelatedActivityId,
        ThreadID eventThread, ULONG numStackFrames, UINT_PTR stackFrames[]);
    HRESULT (STDMETHODCALLTYPE *EventPipeProviderCreated)(ICorProfilerCallback11 *self,
                                                          EVENTPIPE_PROVIDER provider);

    /* ICorProfilerCallback11 */
    HRESULT (STDMETHODCALLTYPE *LoadAsNotificationOnly)(ICorProfilerCallback11 *self,
                                                        BOOL *pbNotificationOnly);
} ICorProfilerCallback11Vtbl;

/* Slots: IUnknown 3 + Callback 69 + 2: 8 + 3: 3 + 4: 6 + 5..7: 1 each
 * + 8: 2 + 9: 1 + 10: 2 + 11: 1 = 98 */
CORPROF_OBJECT(ICorProfilerCallback11, 3 + 69 + 8 + 3 + 6 + 1 + 1 + 1 + 2 + 1 + 2 + 1);
CORPROF_CHECK_SLOT(ICorProfilerCallback11Vtbl, Initialize, 3);
CORPROF_CHECK_SLOT(ICorProfilerCallback11Vtbl, JITCompilationStarted, 23);
CORPROF_CHECK_SLOT(ICorProfilerCallback11Vtbl, ExceptionCLRCatcherExecute, 71);
CORPROF_CHECK_SLOT(ICorProfilerCallback11Vtbl, ThreadNameChanged, 72);
CORPROF_CHECK_SLOT(ICorProfilerCallback11Vtbl, InitializeForAttach, 80);
CORPROF_CHECK_SLOT(ICorProfilerCallback11Vtbl, ProfilerAttachComplete, 81);
CORPROF_CHECK_SLOT(ICorProfilerCallback11Vtbl, ProfilerDetachSucceeded, 82);
CORPROF_CHECK_SLOT(ICorProfilerCallback11Vtbl, ReJITCompilationStarted, 83);
CORPROF_CHECK_SLOT(ICorProfilerCallback11Vtbl, DynamicMethodJITCompilationStarted, 92);
CORPROF_CHECK_SLOT(ICorProfilerCallback11Vtbl, EventPipeEventDelivered, 95);
CORPROF_CHECK_SLOT(ICorProfilerCallback11Vtbl, LoadAsNotificationOnly, 97);

#endif
