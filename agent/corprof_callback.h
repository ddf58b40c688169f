/* corprof_callback.h -- IUnknown, IClassFactory and ICorProfilerCallback ..
 * ICorProfilerCallback11 (one flat table of 98 slots, implemented by the
 * agent), with their IIDs.
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

CORPROF_OBJECT(IUnknown);

typedef struct IClassFactoryVtbl {
    CORPROF_IUNKNOWN_SLOTS(IClassFactory);
    /* IClassFactory */
    HRESULT (STDMETHODCALLTYPE *CreateInstance)(IClassFactory *self, IUnknown *pUnkOuter,
                                                REFIID riid, void **ppvObject);
    HRESULT (STDMETHODCALLTYPE *LockServer)(IClassFactory *self, BOOL fLock);
} IClassFactoryVtbl;

CORPROF_OBJECT(IClassFactory);

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

CORPROF_OBJECT(ICorProfilerCallback11);

/* ---- interface IDs ---- */

/* {00000000-0000-0000-C000-000000000046} */
static const GUID CORPROF_UNUSED IID_IUnknown =
    {0x00000000, 0x0000, 0x0000, {0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46}};
/* {00000001-0000-0000-C000-000000000046} */
static const GUID CORPROF_UNUSED IID_IClassFactory =
    {0x00000001, 0x0000, 0x0000, {0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46}};
/* {176FBED1-A55C-4796-98CA-A9DA0EF883E7} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback =
    {0x176FBED1, 0xA55C, 0x4796, {0x98, 0xCA, 0xA9, 0xDA, 0x0E, 0xF8, 0x83, 0xE7}};
/* {8A8CC829-CCF2-49FE-BBAE-0F022228071A} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback2 =
    {0x8A8CC829, 0xCCF2, 0x49FE, {0xBB, 0xAE, 0x0F, 0x02, 0x22, 0x28, 0x07, 0x1A}};
/* {4FD2ED52-7731-4B8D-9469-03D2CC3086C5} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback3 =
    {0x4FD2ED52, 0x7731, 0x4B8D, {0x94, 0x69, 0x03, 0xD2, 0xCC, 0x30, 0x86, 0xC5}};
/* {7B63B2E3-107D-4D48-B2F6-F61E229470D2} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback4 =
    {0x7B63B2E3, 0x107D, 0x4D48, {0xB2, 0xF6, 0xF6, 0x1E, 0x22, 0x94, 0x70, 0xD2}};
/* {8DFBA405-8C9F-45F8-BFFA-83B14CEF78B5} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback5 =
    {0x8DFBA405, 0x8C9F, 0x45F8, {0xBF, 0xFA, 0x83, 0xB1, 0x4C, 0xEF, 0x78, 0xB5}};
/* {FC13DF4B-4448-4F4F-950C-BA8D19D00C36} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback6 =
    {0xFC13DF4B, 0x4448, 0x4F4F, {0x95, 0x0C, 0xBA, 0x8D, 0x19, 0xD0, 0x0C, 0x36}};
/* {F76A2DBA-1D52-4539-866C-2AA518F9EFC3} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback7 =
    {0xF76A2DBA, 0x1D52, 0x4539, {0x86, 0x6C, 0x2A, 0xA5, 0x18, 0xF9, 0xEF, 0xC3}};
/* {5BED9B15-C079-4D47-BFE2-215A140C07E0} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback8 =
    {0x5BED9B15, 0xC079, 0x4D47, {0xBF, 0xE2, 0x21, 0x5A, 0x14, 0x0C, 0x07, 0xE0}};
/* {27583EC3-C8F5-482F-8052-194B8CE4705A} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback9 =
    {0x27583EC3, 0xC8F5, 0x482F, {0x80, 0x52, 0x19, 0x4B, 0x8C, 0xE4, 0x70, 0x5A}};
/* {CEC5B60E-C69C-495F-87F6-84D28EE16FFB} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback10 =
    {0xCEC5B60E, 0xC69C, 0x495F, {0x87, 0xF6, 0x84, 0xD2, 0x8E, 0xE1, 0x6F, 0xFB}};
/* {42350846-AAED-47F7-B128-FD0C98881CDE} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback11 =
    {0x42350846, 0xAAED, 0x47F7, {0xB1, 0x28, 0xFD, 0x0C, 0x98, 0x88, 0x1C, 0xDE}};

/* ---- layout checks ---- */

_Static_assert(sizeof(IUnknownVtbl) == 3 * sizeof(void *), "IUnknown: 3 slots");
_Static_assert(sizeof(IClassFactoryVtbl) == 5 * sizeof(void *), "IClassFactory: 5 slots");
/* Callback: IUnknown 3 + Callback 69 + 2: 8 + 3: 3 + 4: 6 + 5..7: 1 each
 * + 8: 2 + 9: 1 + 10: 2 + 11: 1 = 98 */
_Static_assert(sizeof(ICorProfilerCallback11Vtbl) == 98 * sizeof(void *),
               "ICorProfilerCallback11: 98 slots");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, Initialize) == 3, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, JITCompilationStarted) == 23, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, ExceptionCLRCatcherExecute) == 71,
               "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, ThreadNameChanged) == 72, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, InitializeForAttach) == 80, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, ProfilerAttachComplete) == 81, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, ProfilerDetachSucceeded) == 82,
               "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, ReJITCompilationStarted) == 83,
               "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, DynamicMethodJITCompilationStarted) ==
                   92,
               "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, EventPipeEventDelivered) == 95,
               "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, LoadAsNotificationOnly) == 97, "slot");

#endif
