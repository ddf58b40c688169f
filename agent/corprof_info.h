/* corprof_info.h -- ICorProfilerInfo .. ICorProfilerInfo10 (one flat table of 99
 * slots) and ICorProfilerInfo12, the enumerators, IMethodMalloc,
 * ICorProfilerFunctionControl and ICorProfilerAssemblyReferenceProvider, each
 * with its slot checks (the IIDs are in corprof_iids.h).
 * Part of corprof.h (read its opening comment: where the facts come from, the
 * ABI rules these declarations follow). */
#ifndef JITSCOPE_CORPROF_INFO_H
#define JITSCOPE_CORPROF_INFO_H

#include "corprof_types.h"

/* ------------------------------------------------------------------------ */
/* ICorProfilerInfo .. ICorProfilerInfo10 (implemented by the runtime)      */
/* ------------------------------------------------------------------------ */

typedef struct ICorProfilerInfo10Vtbl {
    CORPROF_IUNKNOWN_SLOTS(ICorProfilerInfo10);

    /* ICorProfilerInfo */
    HRESULT (STDMETHODCALLTYPE *GetClassFromObject)(ICorProfilerInfo10 *self, ObjectID objectId,
                                                    ClassID *pClassId);
    HRESULT (STDMETHODCALLTYPE *GetClassFromToken)(ICorProfilerInfo10 *self, ModuleID moduleId,
                                                   mdTypeDef typeDef, ClassID *pClassId);
    HRESULT (STDMETHODCALLTYPE *GetCodeInfo)(ICorProfilerInfo10 *self, FunctionID functionId,
                                             LPCBYTE *pStart, ULONG *pcSize);
    HRESULT (STDMETHODCALLTYPE *GetEventMask)(ICorProfilerInfo10 *self, DWORD *pdwEvents);
    HRESULT (STDMETHODCALLTYPE *GetFunctionFromIP)(ICorProfilerInfo10 *self, LPCBYTE ip,
                                                   FunctionID *pFunctionId);
    HRESULT (STDMETHODCALLTYPE *GetFunctionFromToken)(ICorProfilerInfo10 *self,
                                                      ModuleID moduleId, mdToken token,
                                                      FunctionID *pFunctionId);
    HRESULT (STDMETHODCALLTYPE *GetHandleFromThread)(ICorProfilerInfo10 *self, ThreadID threadId,
                                                     HANDLE *phThread);
    HRESULT (STDMETHODCALLTYPE *GetObjectSize)(ICorProfilerInfo10 *self, ObjectID objectId,
                                               ULONG *pcSize);
    HRESULT (STDMETHODCALLTYPE *IsArrayClass)(ICorProfilerInfo10 *self, ClassID classId,
                                              CorElementType *pBaseElemType,
                                              ClassID *pBaseClassId, ULONG *pcRank);
    HRESULT (STDMETHODCALLTYPE *GetThreadInfo)(ICorProfilerInfo10 *self, ThreadID threadId,
                                               DWORD *pdwWin32ThreadId);
    HRESULT (STDMETHODCALLTYPE *GetCurrentThreadID)(ICorProfilerInfo10 *self,
                                                    ThreadID *pThreadId);
    HRESULT (STDMETHODCALLTYPE *GetClassIDInfo)(ICorProfilerInfo10 *self, ClassID classId,
                                                ModuleID *pModuleId, mdTypeDef *pTypeDefToken);
    HRESULT (STDMETHODCALLTYPE *GetFunctionInfo)(ICorProfilerInfo10 *self, FunctionID functionId,
                                                 ClassID *pClassId, ModuleID *pModuleId,
                                                 mdToken *pToken);
    HRESULT (STDMETHODCALLTYPE *SetEventMask)(ICorProfilerInfo10 *self, DWORD dwEvents);
    HRESULT (STDMETHODCALLTYPE *SetEnterLeaveFunctionHooks)(ICorProfilerInfo10 *self,
                                                            FunctionEnter *pFuncEnter,
                                                            FunctionLeave *pFuncLeave,
                                                            FunctionTailcall *pFuncTailcall);
    HRESULT (STDMETHODCALLTYPE *SetFunctionIDMapper)(ICorProfilerInfo10 *self,
                                                     FunctionIDMapper *pFunc);
    HRESULT (STDMETHODCALLTYPE *GetTokenAndMetaDataFromFunction)(ICorProfilerInfo10 *self,
                                                                 FunctionID functionId,
                                                                 REFIID riid,
                                                                 IUnknown **ppImport,
                                                                 mdToken *pToken);
    HRESULT (STDMETHODCALLTYPE *GetModuleInfo)(ICorProfilerInfo10 *self, ModuleID moduleId,
                                               LPCBYTE *ppBaseLoadAddress, ULONG cchName,
                                               ULONG *pcchName, WCHAR szName[],
                                               AssemblyID *pAssemblyId);
    HRESULT (STDMETHODCALLTYPE *GetModuleMetaData)(ICorProfilerInfo10 *self, ModuleID moduleId,
                                                   DWORD dwOpenFlags, REFIID riid,
                                                   IUnknown **ppOut);
    HRESULT (STDMETHODCALLTYPE *GetILFunctionBody)(ICorProfilerInfo10 *self, ModuleID moduleId,
                                                   mdMethodDef methodId,
                                                   LPCBYTE *ppMethodHeader,
                                                   ULONG *pcbMethodSize);
    HRESULT (STDMETHODCALLTYPE *GetILFunctionBodyAllocator)(ICorProfilerInfo10 *self,
                                                            ModuleID moduleId,
                                                            IMethodMalloc **ppMalloc);
    HRESULT (STDMETHODCALLTYPE *SetILFunctionBody)(ICorProfilerInfo10 *self, ModuleID moduleId,
                                                   mdMethodDef methodid,
                                                   LPCBYTE pbNewILMethodHeader);
    HRESULT (STDMETHODCALLTYPE *GetAppDomainInfo)(ICorProfilerInfo10 *self,
                                                  AppDomainID appDomainId, ULONG cchName,
                                                  ULONG *pcchName, WCHAR szName[],
                                                  ProcessID *pProcessId);
    HRESULT (STDMETHODCALLTYPE *GetAssemblyInfo)(ICorProfilerInfo10 *self, AssemblyID assemblyId,
                                                 ULONG cchName, ULONG *pcchName,
                                                 WCHAR szName[], AppDomainID *pAppDomainId,
                                                 ModuleID *pModuleId);
    HRESULT (STDMETHODCALLTYPE *SetFunctionReJIT)(ICorProfilerInfo10 *self,
                                                  FunctionID functionId);
    HRESULT (STDMETHODCALLTYPE *ForceGC)(ICorProfilerInfo10 *self);
    HRESULT (STDMETHODCALLTYPE *SetILInstrumentedCodeMap)(ICorProfilerInfo10 *self,
                                                          FunctionID functionId, BOOL fStartJit,
                                                          ULONG cILMapEntries,
                                                          COR_IL_MAP rgILMapEntries[]);
    HRESULT (STDMETHODCALLTYPE *GetInprocInspectionInterface)(ICorProfilerInfo10 *self,
                                                              IUnknown **ppicd);
    HRESULT (STDMETHODCALLTYPE *GetInprocInspectionIThisThread)(ICorProfilerInfo10 *self,
                                                                IUnknown **ppicd);
    HRESULT (STDMETHODCALLTYPE *GetThreadContext)(ICorProfilerInfo10 *self, ThreadID threadId,
                                                  ContextID *pContextId);
    HRESULT (STDMETHODCALLTYPE *BeginInprocDebugging)(ICorProfilerInfo10 *self,
                                                      BOOL fThisThreadOnly,
                                                      DWORD *pdwProfilerContext);
    HRESULT (STDMETHODCALLTYPE *EndInprocDebugging)(ICorProfilerInfo10 *self,
                                                    DWORD dwProfilerContext);
    HRESULT (STDMETHODCALLTYPE *GetILToNativeMapping)(ICorProfilerInfo10 *self,
                                                      FunctionID functionId, ULONG32 cMap,
                                                      ULONG32 *pcMap,
                                                      COR_DEBUG_IL_TO_NATIVE_MAP map[]);

    /* ICorProfilerInfo2 */
    HRESULT (STDMETHODCALLTYPE *DoStackSnapshot)(ICorProfilerInfo10 *self, ThreadID thread,
                                                 StackSnapshotCallback *callback,
                                                 ULONG32 infoFlags, void *clientData,
                                                 BYTE context[], ULONG32 contextSize);
    HRESULT (STDMETHODCALLTYPE *SetEnterLeaveFunctionHooks2)(ICorProfilerInfo10 *self,
                                                             FunctionEnter2 *pFuncEnter,
                                                             FunctionLeave2 *pFuncLeave,
                                                             FunctionTailcall2 *pFuncTailcall);
    HRESULT (STDMETHODCALLTYPE *GetFunctionInfo2)(ICorProfilerInfo10 *self, FunctionID funcId,
                                                  COR_PRF_FRAME_INFO frameInfo,
                                                  ClassID *pClassId, ModuleID *pModuleId,
                                                  mdToken *pToken, ULONG32 cTypeArgs,
                                                  ULONG32 *pcTypeArgs, ClassID typeArgs[]);
    HRESULT (STDMETHODCALLTYPE *GetStringLayout)(ICorProfilerInfo10 *self,
                                                 ULONG *pBufferLengthOffset,
                                                 ULONG *pStringLengthOffset,
                                                 ULONG *pBufferOffset);
    HRESULT (STDMETHODCALLTYPE *GetClassLayout)(ICorProfilerInfo10 *self, ClassID classID,
                                                COR_FIELD_OFFSET rFieldOffset[],
                                                ULONG cFieldOffset, ULONG *pcFieldOffset,
                                                ULONG *pulClassSize);
    HRESULT (STDMETHODCALLTYPE *GetClassIDInfo2)(ICorProfilerInfo10 *self, ClassID classId,
                                                 ModuleID *pModuleId, mdTypeDef *pTypeDefToken,
                                                 ClassID *pParentClassId, ULONG32 cNumTypeArgs,
                                                 ULONG32 *pcNumTypeArgs, ClassID typeArgs[]);
    HRESULT (STDMETHODCALLTYPE *GetCodeInfo2)(ICorProfilerInfo10 *self, FunctionID functionID,
                                              ULONG32 cCodeInfos, ULONG32 *pcCodeInfos,
                                              COR_PRF_CODE_INFO codeInfos[]);
    HRESULT (STDMETHODCALLTYPE *GetClassFromTokenAndTypeArgs)(ICorProfilerInfo10 *self,
                                                              ModuleID moduleID,
                                                              mdTypeDef typeDef,
                                                              ULONG32 cTypeArgs,
                                                              ClassID typeArgs[],
                                                              ClassID *pClassID);
    HRESULT (STDMETHODCALLTYPE *GetFunctionFromTokenAndTypeArgs)(ICorProfilerInfo10 *self,
                                                                 ModuleID moduleID,
                                                                 mdMethodDef funcDef,
                                                                 ClassID classId,
                                                                 ULONG32 cTypeArgs,
                                                                 ClassID typeArgs[],
                                                                 FunctionID *pFunctionID);
    HRESULT (STDMETHODCALLTYPE *EnumModuleFrozenObjects)(ICorProfilerInfo10 *self,
                                                         ModuleID moduleID,
                                                         ICorProfilerObjectEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *GetArrayObjectInfo)(ICorProfilerInfo10 *self, ObjectID objectId,
                                                    ULONG32 cDimensions,
                                                    ULONG32 pDimensionSizes[],
                                                    int pDimensionLowerBounds[],
                                                    BYTE **ppData);
    HRESULT (STDMETHODCALLTYPE *GetBoxClassLayout)(ICorProfilerInfo10 *self, ClassID classId,
                                                   ULONG32 *pBufferOffset);
    HRESULT (STDMETHODCALLTYPE *GetThreadAppDomain)(ICorProfilerInfo10 *self, ThreadID threadId,
                                                    AppDomainID *pAppDomainId);
    HRESULT (STDMETHODCALLTYPE *GetRVAStaticAddress)(ICorProfilerInfo10 *self, ClassID classId,
                                                     mdFieldDef fieldToken, void **ppAddress);
    HRESULT (STDMETHODCALLTYPE *GetAppDomainStaticAddress)(ICorProfilerInfo10 *self,
                                                           ClassID classId,
                                                           mdFieldDef fieldToken,
                                                           AppDomainID appDomainId,
                                                           void **ppAddress);
    HRESULT (STDMETHODCALLTYPE *GetThreadStaticAddress)(ICorProfilerInfo10 *self,
                                                        ClassID classId, mdFieldDef fieldToken,
                                                        ThreadID threadId, void **ppAddress);
    HRESULT (STDMETHODCALLTYPE *GetContextStaticAddress)(ICorProfilerInfo10 *self,
                                                         ClassID classId,
                                                         mdFieldDef fieldToken,
                                                         ContextID contextId, void **ppAddress);
    HRESULT (STDMETHODCALLTYPE *GetStaticFieldInfo)(ICorProfilerInfo10 *self, ClassID classId,
                                                    mdFieldDef fieldToken,
                                                    COR_PRF_STATIC_TYPE *pFieldInfo);
    HRESULT (STDMETHODCALLTYPE *GetGenerationBounds)(ICorProfilerInfo10 *self,
                                                     ULONG cObjectRanges, ULONG *pcObjectRanges,
                                                     COR_PRF_GC_GENERATION_RANGE ranges[]);
    HRESULT (STDMETHODCALLTYPE *GetObjectGeneration)(ICorProfilerInfo10 *self, ObjectID objectId,
                                                     COR_PRF_GC_GENERATION_RANGE *range);
    HRESULT (STDMETHODCALLTYPE *GetNotifiedExceptionClauseInfo)(ICorProfilerInfo10 *self,
                                                                COR_PRF_EX_CLAUSE_INFO *pinfo);

    /* ICorProfilerInfo3 */
    HRESULT (STDMETHODCALLTYPE *EnumJITedFunctions)(ICorProfilerInfo10 *self,
                                                    ICorProfilerFunctionEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *RequestProfilerDetach)(ICorProfilerInfo10 *self,
                                                       DWORD dwExpectedCompletionMilliseconds);
    HRESULT (STDMETHODCALLTYPE *SetFunctionIDMapper2)(ICorProfilerInfo10 *self,
                                                      FunctionIDMapper2 *pFunc,
                                                      void *clientData);
    HRESULT (STDMETHODCALLTYPE *GetStringLayout2)(ICorProfilerInfo10 *self,
                                                  ULONG *pStringLengthOffset,
                                                  ULONG *pBufferOffset);
    HRESULT (STDMETHODCALLTYPE *SetEnterLeaveFunctionHooks3)(ICorProfilerInfo10 *self,
                                                             FunctionEnter3 *pFuncEnter3,
                                                             FunctionLeave3 *pFuncLeave3,
                                                             FunctionTailcall3 *pFuncTailcall3);
    HRESULT (STDMETHODCALLTYPE *SetEnterLeaveFunctionHooks3WithInfo)(
        ICorProfilerInfo10 *self, FunctionEnter3WithInfo *pFuncEnter3WithInfo,
        FunctionLeave3WithInfo *pFuncLeave3WithInfo,
        FunctionTailcall3WithInfo *pFuncTailcall3WithInfo);
    HRESULT (STDMETHODCALLTYPE *GetFunctionEnter3Info)(ICorProfilerInfo10 *self,
                                                       FunctionID functionId,
                                                       COR_PRF_ELT_INFO eltInfo,
                                                       COR_PRF_FRAME_INFO *pFrameInfo,
                                                       ULONG *pcbArgumentInfo,
                                                       COR_PRF_FUNCTION_ARGUMENT_INFO *pArgumentInfo);
    HRESULT (STDMETHODCALLTYPE *GetFunctionLeave3Info)(ICorProfilerInfo10 *self,
                                                       FunctionID functionId,
                                                       COR_PRF_ELT_INFO eltInfo,
                                                       COR_PRF_FRAME_INFO *pFrameInfo,
                                                       COR_PRF_FUNCTION_ARGUMENT_RANGE *pRetvalRange);
    HRESULT (STDMETHODCALLTYPE *GetFunctionTailcall3Info)(ICorProfilerInfo10 *self,
                                                          FunctionID functionId,
                                                          COR_PRF_ELT_INFO eltInfo,
                                                          COR_PRF_FRAME_INFO *pFrameInfo);
    HRESULT (STDMETHODCALLTYPE *EnumModules)(ICorProfilerInfo10 *self,
                                             ICorProfilerModuleEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *GetRuntimeInformation)(ICorProfilerInfo10 *self,
                                                       USHORT *pClrInstanceId,
                                                       COR_PRF_RUNTIME_TYPE *pRuntimeType,
                                                       USHORT *pMajorVersion,
                                                       USHORT *pMinorVersion,
                                                       USHORT *pBuildNumber,
                                                       USHORT *pQFEVersion,
                                                       ULONG cchVersionString,
                                                       ULONG *pcchVersionString,
                                                       WCHAR szVersionString[]);
    HRESULT (STDMETHODCALLTYPE *GetThreadStaticAddress2)(ICorProfilerInfo10 *self,
                                                         ClassID classId,
                                                         mdFieldDef fieldToken,
                                                         AppDomainID appDomainId,
                                                         ThreadID threadId, void **ppAddress);
    HRESULT (STDMETHODCALLTYPE *GetAppDomainsContainingModule)(ICorProfilerInfo10 *self,
                                                               ModuleID moduleId,
                                                               ULONG32 cAppDomainIds,
                                                               ULONG32 *pcAppDomainIds,
                                                               AppDomainID appDomainIds[]);
    HRESULT (STDMETHODCALLTYPE *GetModuleInfo2)(ICorProfilerInfo10 *self, ModuleID moduleId,
                                                LPCBYTE *ppBaseLoadAddress, ULONG cchName,
                                                ULONG *pcchName, WCHAR szName[],
                                                AssemblyID *pAssemblyId, DWORD *pdwModuleFlags);

    /* ICorProfilerInfo4 */
    HRESULT (STDMETHODCALLTYPE *EnumThreads)(ICorProfilerInfo10 *self,
                                             ICorProfilerThreadEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *InitializeCurrentThread)(ICorProfilerInfo10 *self);
    HRESULT (STDMETHODCALLTYPE *RequestReJIT)(ICorProfilerInfo10 *self, ULONG cFunctions,
                                              ModuleID moduleIds[], mdMethodDef methodIds[]);
    HRESULT (STDMETHODCALLTYPE *RequestRevert)(ICorProfilerInfo10 *self, ULONG cFunctions,
                                               ModuleID moduleIds[], mdMethodDef methodIds[],
                                               HRESULT status[]);
    HRESULT (STDMETHODCALLTYPE *GetCodeInfo3)(ICorProfilerInfo10 *self, FunctionID functionID,
                                              ReJITID reJitId, ULONG32 cCodeInfos,
                                              ULONG32 *pcCodeInfos,
                                              COR_PRF_CODE_INFO codeInfos[]);
    HRESULT (STDMETHODCALLTYPE *GetFunctionFromIP2)(ICorProfilerInfo10 *self, LPCBYTE ip,
                                                    FunctionID *pFunctionId,
                                                    ReJITID *pReJitId);
    HRESULT (STDMETHODCALLTYPE *GetReJITIDs)(ICorProfilerInfo10 *self, FunctionID functionId,
                                             ULONG cReJitIds, ULONG *pcReJitIds,
                                             ReJITID reJitIds[]);
    HRESULT (STDMETHODCALLTYPE *GetILToNativeMapping2)(ICorProfilerInfo10 *self,
                                                       FunctionID functionId, ReJITID reJitId,
                                                       ULONG32 cMap, ULONG32 *pcMap,
                                                       COR_DEBUG_IL_TO_NATIVE_MAP map[]);
    HRESULT (STDMETHODCALLTYPE *EnumJITedFunctions2)(ICorProfilerInfo10 *self,
                                                     ICorProfilerFunctionEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *GetObjectSize2)(ICorProfilerInfo10 *self, ObjectID objectId,
                                                SIZE_T *pcSize);

    /* ICorProfilerInfo5 */
    HRESULT (STDMETHODCALLTYPE *GetEventMask2)(ICorProfilerInfo10 *self, DWORD *pdwEventsLow,
                                               DWORD *pdwEventsHigh);
    HRESULT (STDMETHODCALLTYPE *SetEventMask2)(ICorProfilerInfo10 *self, DWORD dwEventsLow,
                                               DWORD dwEventsHigh);

    /* ICorProfilerInfo6 */
    HRESULT (STDMETHODCALLTYPE *EnumNgenModuleMethodsInliningThisMethod)(
        ICorProfilerInfo10 *self, ModuleID inlinersModuleId, ModuleID inlineeModuleId,
        mdMethodDef inlineeMethodId, BOOL *incompleteData, ICorProfilerMethodEnum **ppEnum);

    /* ICorProfilerInfo7 */
    HRESULT (STDMETHODCALLTYPE *ApplyMetaData)(ICorProfilerInfo10 *self, ModuleID moduleId);
    HRESULT (STDMETHODCALLTYPE *GetInMemorySymbolsLength)(ICorProfilerInfo10 *self,
                                                          ModuleID moduleId,
                                                          DWORD *pCountSymbolBytes);
    HRESULT (STDMETHODCALLTYPE *ReadInMemorySymbols)(ICorProfilerInfo10 *self, ModuleID moduleId,
                                                     DWORD symbolsReadOffset,
                                                     BYTE *pSymbolBytes,
                                                     DWORD countSymbolBytes,
                                                     DWORD *pCountSymbolBytesRead);

    /* ICorProfilerInfo8 */
    HRESULT (STDMETHODCALLTYPE *IsFunctionDynamic)(ICorProfilerInfo10 *self,
                                                   FunctionID functionId, BOOL *isDynamic);
    HRESULT (STDMETHODCALLTYPE *GetFunctionFromIP3)(ICorProfilerInfo10 *self, LPCBYTE ip,
                                                    FunctionID *functionId,
                                                    ReJITID *pReJitId);
    HRESULT (STDMETHODCALLTYPE *GetDynamicFunctionInfo)(ICorProfilerInfo10 *self,
                                                        FunctionID functionId,
                                                        ModuleID *moduleId,
                                                        PCCOR_SIGNATURE *ppvSig, ULONG *pbSig,
                                                        ULONG cchName, ULONG *pcchName,
                                                        WCHAR wszName[]);

    /* ICorProfilerInfo9 */
    HRESULT (STDMETHODCALLTYPE *GetNativeCodeStartAddresses)(ICorProfilerInfo10 *self,
                                                             FunctionID functionID,
                                                             ReJITID reJitId,
                                                             ULONG32 cCodeStartAddresses,
                                                             ULONG32 *pcCodeStartAddresses,
                                                             UINT_PTR codeStartAddresses[]);
    HRESULT (STDMETHODCALLTYPE *GetILToNativeMapping3)(ICorProfilerInfo10 *self,
                                                       UINT_PTR pNativeCodeStartAddress,
                                                       ULONG32 cMap, ULONG32 *pcMap,
                                                       COR_DEBUG_IL_TO_NATIVE_MAP map[]);
    HRESULT (STDMETHODCALLTYPE *GetCodeInfo4)(ICorProfilerInfo10 *self,
                                              UINT_PTR pNativeCodeStartAddress,
                                              ULONG32 cCodeInfos, ULONG32 *pcCodeInfos,
                                              COR_PRF_CODE_INFO codeInfos[]);

    /* ICorProfilerInfo10 */
    HRESULT (STDMETHODCALLTYPE *EnumerateObjectReferences)(ICorProfilerInfo10 *self,
                                                           ObjectID objectId,
                                                           ObjectReferenceCallback *callback,
                                                           void *clientData);
    HRESULT (STDMETHODCALLTYPE *IsFrozenObject)(ICorProfilerInfo10 *self, ObjectID objectId,
                                                BOOL *pbFrozen);
    HRESULT (STDMETHODCALLTYPE *GetLOHObjectSizeThreshold)(ICorProfilerInfo10 *self,
                                                           DWORD *pThreshold);
    HRESULT (STDMETHODCALLTYPE *RequestReJITWithInliners)(ICorProfilerInfo10 *self,
                                                          DWORD dwRejitFlags, ULONG cFunctions,
                                                          ModuleID moduleIds[],
                                                          mdMethodDef methodIds[]);
    HRESULT (STDMETHODCALLTYPE *SuspendRuntime)(ICorProfilerInfo10 *self);
    HRESULT (STDMETHODCALLTYPE *ResumeRuntime)(ICorProfilerInfo10 *self);
} ICorProfilerInfo10Vtbl;

/* Slots: IUnknown 3 + Info 33 + 2: 21 + 3: 14 + 4: 10 + 5: 2 + 6: 1 + 7: 3
 * + 8: 3 + 9: 3 + 10: 6 (the indexes the agent calls are checked below
 * Info12, whose table begins with this one) */
CORPROF_OBJECT(ICorProfilerInfo10, 3 + 33 + 21 + 14 + 10 + 2 + 1 + 3 + 3 + 3 + 6);

/* ICorProfilerInfo12: the whole ICorProfilerInfo10 table, then the Info11 and
 * Info12 slots. Call the inherited slots as
 *     p->lpVtbl->info10.SetEventMask((ICorProfilerInfo10 *)p, mask);
 * (the object is the same, only the static type differs). */
typedef struct ICorProfilerInfo12Vtbl {
    ICorProfilerInfo10Vtbl info10;

    /* ICorProfilerInfo11 */
    HRESULT (STDMETHODCALLTYPE *GetEnvironmentVariable)(ICorProfilerInfo12 *self,
                                                        const WCHAR *szName, ULONG cchValue,
                                                        ULONG *pcchValue, WCHAR szValue[]);
    HRESULT (STDMETHODCALLTYPE *SetEnvironmentVariable)(ICorProfilerInfo12 *self,
                                                        const WCHAR *szName,
                                                        const WCHAR *szValue);

    /* ICorProfilerInfo12 */
    HRESULT (STDMETHODCALLTYPE *EventPipeStartSession)(
        ICorProfilerInfo12 *self, UINT32 cProviderConfigs,
        COR_PRF_EVENTPIPE_PROVIDER_CONFIG pProviderConfigs[], BOOL requestRundown,
        EVENTPIPE_SESSION *pSession);
    HRESULT (STDMETHODCALLTYPE *EventPipeAddProviderToSession)(
        ICorProfilerInfo12 *self, EVENTPIPE_SESSION session,
        COR_PRF_EVENTPIPE_PROVIDER_CONFIG providerConfig);
    HRESULT (STDMETHODCALLTYPE *EventPipeStopSession)(ICorProfilerInfo12 *self,
                                                      EVENTPIPE_SESSION session);
    HRESULT (STDMETHODCALLTYPE *EventPipeCreateProvider)(ICorProfilerInfo12 *self,
                                                         const WCHAR *providerName,
                                                         EVENTPIPE_PROVIDER *pProvider);
    HRESULT (STDMETHODCALLTYPE *EventPipeGetProviderInfo)(ICorProfilerInfo12 *self,
                                                          EVENTPIPE_PROVIDER provider,
                                                          ULONG cchName, ULONG *pcchName,
                                                          WCHAR providerName[]);
    HRESULT (STDMETHODCALLTYPE *EventPipeDefineEvent)(
        ICorProfilerInfo12 *self, EVENTPIPE_PROVIDER provider, const WCHAR *eventName,
        UINT32 eventID, UINT64 keywords, UINT32 eventVersion, UINT32 level, UINT8 opcode,
        BOOL needStack, UINT32 cParamDescs, COR_PRF_EVENTPIPE_PARAM_DESC pParamDescs[],
        EVENTPIPE_EVENT *pEvent);
    HRESULT (STDMETHODCALLTYPE *EventPipeWriteEvent)(ICorProfilerInfo12 *self,
                                                     EVENTPIPE_EVENT event, UINT32 cData,
                                                     COR_PRF_EVENT_DATA data[],
                                                     LPCGUID pActivityId,
                                                     LPCGUID pRelatedActivityId);
} ICorProfilerInfo12Vtbl;

/* Slots: Info10 99 + Info11 2 + Info12 7 */
CORPROF_OBJECT(ICorProfilerInfo12, 99 + 2 + 7);
/* the slots the agent calls */
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, GetClassFromObject, 3);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, GetFunctionFromIP, 7);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, GetFunctionInfo, 15);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, SetEventMask, 16);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, GetILFunctionBody, 22);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, ForceGC, 28);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, GetILToNativeMapping, 35);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, DoStackSnapshot, 36);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, GetCodeInfo2, 42);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, GetNotifiedExceptionClauseInfo, 56);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, EnumJITedFunctions, 57);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, RequestProfilerDetach, 58);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, GetRuntimeInformation, 67);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, GetModuleInfo2, 70);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, EnumThreads, 71);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, GetFunctionFromIP2, 76);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, GetReJITIDs, 77);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, EnumJITedFunctions2, 79);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, GetEventMask2, 81);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, SetEventMask2, 82);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, IsFunctionDynamic, 87);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, GetFunctionFromIP3, 88);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, GetNativeCodeStartAddresses, 90);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, GetILToNativeMapping3, 91);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, GetCodeInfo4, 92);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, SuspendRuntime, 97);
CORPROF_CHECK_SLOT(ICorProfilerInfo10Vtbl, ResumeRuntime, 98);
CORPROF_CHECK_SLOT(ICorProfilerInfo12Vtbl, GetEnvironmentVariable, 99);
CORPROF_CHECK_SLOT(ICorProfilerInfo12Vtbl, EventPipeStartSession, 101);

/* ------------------------------------------------------------------------ */
/* Enumerators: IUnknown + Skip, Reset, Clone, GetCount, Next               */
/* ------------------------------------------------------------------------ */

/* The five differ only in the type of the items Next hands out, so one
 * template declares each: its vtable (these 8 slots, in this order, checked)
 * and its object. */
#define CORPROF_DECLARE_ENUM(Enum, Item)                                          \
    typedef struct Enum##Vtbl {                                                  \
        CORPROF_IUNKNOWN_SLOTS(Enum);                                            \
        HRESULT (STDMETHODCALLTYPE *Skip)(Enum *self, ULONG celt);               \
        HRESULT (STDMETHODCALLTYPE *Reset)(Enum *self);                          \
        HRESULT (STDMETHODCALLTYPE *Clone)(Enum *self, Enum **ppEnum);           \
        HRESULT (STDMETHODCALLTYPE *GetCount)(Enum *self, ULONG *pcelt);         \
        HRESULT (STDMETHODCALLTYPE *Next)(Enum *self, ULONG celt, Item items[],  \
                                          ULONG *pceltFetched);                  \
    } Enum##Vtbl;                                                                \
    CORPROF_OBJECT(Enum, 3 + 5);                                                        \
    CORPROF_CHECK_SLOT(Enum##Vtbl, Next, 7)

CORPROF_DECLARE_ENUM(ICorProfilerModuleEnum, ModuleID);
CORPROF_DECLARE_ENUM(ICorProfilerFunctionEnum, COR_PRF_FUNCTION);
CORPROF_DECLARE_ENUM(ICorProfilerThreadEnum, ThreadID);
CORPROF_DECLARE_ENUM(ICorProfilerObjectEnum, ObjectID);
CORPROF_DECLARE_ENUM(ICorProfilerMethodEnum, COR_PRF_METHOD);

/* ------------------------------------------------------------------------ */
/* Small helper interfaces that appear in the signatures above              */
/* ------------------------------------------------------------------------ */

typedef struct IMethodMallocVtbl {
    CORPROF_IUNKNOWN_SLOTS(IMethodMalloc);
    /* IMethodMalloc */
    PVOID (STDMETHODCALLTYPE *Alloc)(IMethodMalloc *self, ULONG cb);
} IMethodMallocVtbl;

CORPROF_OBJECT(IMethodMalloc, 3 + 1);

typedef struct ICorProfilerFunctionControlVtbl {
    CORPROF_IUNKNOWN_SLOTS(ICorProfilerFunctionControl);
    /* ICorProfilerFunctionControl */
    HRESULT (STDMETHODCALLTYPE *SetCodegenFlags)(ICorProfilerFunctionControl *self, DWORD flags);
    HRESULT (STDMETHODCALLTYPE *SetILFunctionBody)(ICorProfilerFunctionControl *self,
                                                   ULONG cbNewILMethodHeader,
                                                   LPCBYTE pbNewILMethodHeader);
    HRESULT (STDMETHODCALLTYPE *SetILInstrumentedCodeMap)(ICorProfilerFunctionControl *self,
                                                          ULONG cILMapEntries,
                                                          COR_IL_MAP rgILMapEntries[]);
} ICorProfilerFunctionControlVtbl;

CORPROF_OBJECT(ICorProfilerFunctionControl, 3 + 3);

typedef struct ICorProfilerAssemblyReferenceProviderVtbl {
    CORPROF_IUNKNOWN_SLOTS(ICorProfilerAssemblyReferenceProvider);
    /* ICorProfilerAssemblyReferenceProvider */
    HRESULT (STDMETHODCALLTYPE *AddAssemblyReference)(
        ICorProfilerAssemblyReferenceProvider *self,
        const COR_PRF_ASSEMBLY_REFERENCE_INFO *pAssemblyRefInfo);
} ICorProfilerAssemblyReferenceProviderVtbl;

CORPROF_OBJECT(ICorProfilerAssemblyReferenceProvider, 3 + 1);

#endif
