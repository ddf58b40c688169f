/* corprof_info.h -- ICorProfilerInfo .. ICorProfilerInfo10 (one flat table of 99
 * slots) and ICorProfilerInfo12, the enumerators, IMethodMalloc,
 * ICorProfilerFunctionControl and ICorProfilerAssemblyReferenceProvider, with
 * their IIDs (Info13..15 by IID only).
 * Part of corprof.h (read its opening comment: where the facts come from, the
 * ABI rules these declarations follow). */
#ifndef JITSCOPE_CORPROF_INFO_H
#define JITSCOPE_CORPROF_INFO_H

#include "corprof_types.h"

/* ------------------------------------------------------------------------ */
/* ICorProfilerInfo .. ICorProfilerInfo10 (implemented by the runtime)      */
/* ------------------------------------------------------------------------ */

typedef struct ICorProfilerInfo10Vtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(ICorProfilerInfo10 *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(ICorProfilerInfo10 *self);
    ULONG (STDMETHODCALLTYPE *Release)(ICorProfilerInfo10 *self);

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

struct ICorProfilerInfo10 {
    const ICorProfilerInfo10Vtbl *lpVtbl;
};

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

struct ICorProfilerInfo12 {
    const ICorProfilerInfo12Vtbl *lpVtbl;
};

/* ------------------------------------------------------------------------ */
/* Enumerators: IUnknown + Skip, Reset, Clone, GetCount, Next               */
/* ------------------------------------------------------------------------ */

typedef struct ICorProfilerModuleEnumVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(ICorProfilerModuleEnum *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(ICorProfilerModuleEnum *self);
    ULONG (STDMETHODCALLTYPE *Release)(ICorProfilerModuleEnum *self);
    /* ICorProfilerModuleEnum */
    HRESULT (STDMETHODCALLTYPE *Skip)(ICorProfilerModuleEnum *self, ULONG celt);
    HRESULT (STDMETHODCALLTYPE *Reset)(ICorProfilerModuleEnum *self);
    HRESULT (STDMETHODCALLTYPE *Clone)(ICorProfilerModuleEnum *self,
                                       ICorProfilerModuleEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *GetCount)(ICorProfilerModuleEnum *self, ULONG *pcelt);
    HRESULT (STDMETHODCALLTYPE *Next)(ICorProfilerModuleEnum *self, ULONG celt, ModuleID ids[],
                                      ULONG *pceltFetched);
} ICorProfilerModuleEnumVtbl;

struct ICorProfilerModuleEnum {
    const ICorProfilerModuleEnumVtbl *lpVtbl;
};

typedef struct ICorProfilerFunctionEnumVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(ICorProfilerFunctionEnum *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(ICorProfilerFunctionEnum *self);
    ULONG (STDMETHODCALLTYPE *Release)(ICorProfilerFunctionEnum *self);
    /* ICorProfilerFunctionEnum */
    HRESULT (STDMETHODCALLTYPE *Skip)(ICorProfilerFunctionEnum *self, ULONG celt);
    HRESULT (STDMETHODCALLTYPE *Reset)(ICorProfilerFunctionEnum *self);
    HRESULT (STDMETHODCALLTYPE *Clone)(ICorProfilerFunctionEnum *self,
                                       ICorProfilerFunctionEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *GetCount)(ICorProfilerFunctionEnum *self, ULONG *pcelt);
    HRESULT (STDMETHODCALLTYPE *Next)(ICorProfilerFunctionEnum *self, ULONG celt,
                                      COR_PRF_FUNCTION ids[], ULONG *pceltFetched);
} ICorProfilerFunctionEnumVtbl;

struct ICorProfilerFunctionEnum {
    const ICorProfilerFunctionEnumVtbl *lpVtbl;
};

typedef struct ICorProfilerThreadEnumVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(ICorProfilerThreadEnum *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(ICorProfilerThreadEnum *self);
    ULONG (STDMETHODCALLTYPE *Release)(ICorProfilerThreadEnum *self);
    /* ICorProfilerThreadEnum */
    HRESULT (STDMETHODCALLTYPE *Skip)(ICorProfilerThreadEnum *self, ULONG celt);
    HRESULT (STDMETHODCALLTYPE *Reset)(ICorProfilerThreadEnum *self);
    HRESULT (STDMETHODCALLTYPE *Clone)(ICorProfilerThreadEnum *self,
                                       ICorProfilerThreadEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *GetCount)(ICorProfilerThreadEnum *self, ULONG *pcelt);
    HRESULT (STDMETHODCALLTYPE *Next)(ICorProfilerThreadEnum *self, ULONG celt, ThreadID ids[],
                                      ULONG *pceltFetched);
} ICorProfilerThreadEnumVtbl;

struct ICorProfilerThreadEnum {
    const ICorProfilerThreadEnumVtbl *lpVtbl;
};

typedef struct ICorProfilerObjectEnumVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(ICorProfilerObjectEnum *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(ICorProfilerObjectEnum *self);
    ULONG (STDMETHODCALLTYPE *Release)(ICorProfilerObjectEnum *self);
    /* ICorProfilerObjectEnum */
    HRESULT (STDMETHODCALLTYPE *Skip)(ICorProfilerObjectEnum *self, ULONG celt);
    HRESULT (STDMETHODCALLTYPE *Reset)(ICorProfilerObjectEnum *self);
    HRESULT (STDMETHODCALLTYPE *Clone)(ICorProfilerObjectEnum *self,
                                       ICorProfilerObjectEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *GetCount)(ICorProfilerObjectEnum *self, ULONG *pcelt);
    HRESULT (STDMETHODCALLTYPE *Next)(ICorProfilerObjectEnum *self, ULONG celt,
                                      ObjectID objects[], ULONG *pceltFetched);
} ICorProfilerObjectEnumVtbl;

struct ICorProfilerObjectEnum {
    const ICorProfilerObjectEnumVtbl *lpVtbl;
};

typedef struct ICorProfilerMethodEnumVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(ICorProfilerMethodEnum *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(ICorProfilerMethodEnum *self);
    ULONG (STDMETHODCALLTYPE *Release)(ICorProfilerMethodEnum *self);
    /* ICorProfilerMethodEnum */
    HRESULT (STDMETHODCALLTYPE *Skip)(ICorProfilerMethodEnum *self, ULONG celt);
    HRESULT (STDMETHODCALLTYPE *Reset)(ICorProfilerMethodEnum *self);
    HRESULT (STDMETHODCALLTYPE *Clone)(ICorProfilerMethodEnum *self,
                                       ICorProfilerMethodEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *GetCount)(ICorProfilerMethodEnum *self, ULONG *pcelt);
    HRESULT (STDMETHODCALLTYPE *Next)(ICorProfilerMethodEnum *self, ULONG celt,
                                      COR_PRF_METHOD elements[], ULONG *pceltFetched);
} ICorProfilerMethodEnumVtbl;

struct ICorProfilerMethodEnum {
    const ICorProfilerMethodEnumVtbl *lpVtbl;
};

/* ------------------------------------------------------------------------ */
/* Small helper interfaces that appear in the signatures above              */
/* ------------------------------------------------------------------------ */

typedef struct IMethodMallocVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(IMethodMalloc *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(IMethodMalloc *self);
    ULONG (STDMETHODCALLTYPE *Release)(IMethodMalloc *self);
    /* IMethodMalloc */
    PVOID (STDMETHODCALLTYPE *Alloc)(IMethodMalloc *self, ULONG cb);
} IMethodMallocVtbl;

struct IMethodMalloc {
    const IMethodMallocVtbl *lpVtbl;
};

typedef struct ICorProfilerFunctionControlVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(ICorProfilerFunctionControl *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(ICorProfilerFunctionControl *self);
    ULONG (STDMETHODCALLTYPE *Release)(ICorProfilerFunctionControl *self);
    /* ICorProfilerFunctionControl */
    HRESULT (STDMETHODCALLTYPE *SetCodegenFlags)(ICorProfilerFunctionControl *self, DWORD flags);
    HRESULT (STDMETHODCALLTYPE *SetILFunctionBody)(ICorProfilerFunctionControl *self,
                                                   ULONG cbNewILMethodHeader,
                                                   LPCBYTE pbNewILMethodHeader);
    HRESULT (STDMETHODCALLTYPE *SetILInstrumentedCodeMap)(ICorProfilerFunctionControl *self,
                                                          ULONG cILMapEntries,
                                                          COR_IL_MAP rgILMapEntries[]);
} ICorProfilerFunctionControlVtbl;

struct ICorProfilerFunctionControl {
    const ICorProfilerFunctionControlVtbl *lpVtbl;
};

typedef struct ICorProfilerAssemblyReferenceProviderVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(ICorProfilerAssemblyReferenceProvider *self,
                                                REFIID riid, void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(ICorProfilerAssemblyReferenceProvider *self);
    ULONG (STDMETHODCALLTYPE *Release)(ICorProfilerAssemblyReferenceProvider *self);
    /* ICorProfilerAssemblyReferenceProvider */
    HRESULT (STDMETHODCALLTYPE *AddAssemblyReference)(
        ICorProfilerAssemblyReferenceProvider *self,
        const COR_PRF_ASSEMBLY_REFERENCE_INFO *pAssemblyRefInfo);
} ICorProfilerAssemblyReferenceProviderVtbl;

struct ICorProfilerAssemblyReferenceProvider {
    const ICorProfilerAssemblyReferenceProviderVtbl *lpVtbl;
};

/* ---- interface IDs ---- */

/* {28B5557D-3F3F-48B4-90B2-5F9EEA2F6C48} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo =
    {0x28B5557D, 0x3F3F, 0x48B4, {0x90, 0xB2, 0x5F, 0x9E, 0xEA, 0x2F, 0x6C, 0x48}};
/* {CC0935CD-A518-487D-B0BB-A93214E65478} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo2 =
    {0xCC0935CD, 0xA518, 0x487D, {0xB0, 0xBB, 0xA9, 0x32, 0x14, 0xE6, 0x54, 0x78}};
/* {B555ED4F-452A-4E54-8B39-B5360BAD32A0} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo3 =
    {0xB555ED4F, 0x452A, 0x4E54, {0x8B, 0x39, 0xB5, 0x36, 0x0B, 0xAD, 0x32, 0xA0}};
/* {0D8FDCAA-6257-47BF-B1BF-94DAC88466EE} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo4 =
    {0x0D8FDCAA, 0x6257, 0x47BF, {0xB1, 0xBF, 0x94, 0xDA, 0xC8, 0x84, 0x66, 0xEE}};
/* {07602928-CE38-4B83-81E7-74ADAF781214} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo5 =
    {0x07602928, 0xCE38, 0x4B83, {0x81, 0xE7, 0x74, 0xAD, 0xAF, 0x78, 0x12, 0x14}};
/* {F30A070D-BFFB-46A7-B1D8-8781EF7B698A} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo6 =
    {0xF30A070D, 0xBFFB, 0x46A7, {0xB1, 0xD8, 0x87, 0x81, 0xEF, 0x7B, 0x69, 0x8A}};
/* {9AEECC0D-63E0-4187-8C00-E312F503F663} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo7 =
    {0x9AEECC0D, 0x63E0, 0x4187, {0x8C, 0x00, 0xE3, 0x12, 0xF5, 0x03, 0xF6, 0x63}};
/* {C5AC80A6-782E-4716-8044-39598C60CFBF} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo8 =
    {0xC5AC80A6, 0x782E, 0x4716, {0x80, 0x44, 0x39, 0x59, 0x8C, 0x60, 0xCF, 0xBF}};
/* {008170DB-F8CC-4796-9A51-DC8AA0B47012} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo9 =
    {0x008170DB, 0xF8CC, 0x4796, {0x9A, 0x51, 0xDC, 0x8A, 0xA0, 0xB4, 0x70, 0x12}};
/* {2F1B5152-C869-40C9-AA5F-3ABE026BD720} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo10 =
    {0x2F1B5152, 0xC869, 0x40C9, {0xAA, 0x5F, 0x3A, 0xBE, 0x02, 0x6B, 0xD7, 0x20}};
/* {06398876-8987-4154-B621-40A00D6E4D04} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo11 =
    {0x06398876, 0x8987, 0x4154, {0xB6, 0x21, 0x40, 0xA0, 0x0D, 0x6E, 0x4D, 0x04}};
/* {27B24CCD-1CB1-47C5-96EE-98190DC30959} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo12 =
    {0x27B24CCD, 0x1CB1, 0x47C5, {0x96, 0xEE, 0x98, 0x19, 0x0D, 0xC3, 0x09, 0x59}};
/* {6E6C7EE2-0701-4EC2-9D29-2E8733B66934} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo13 =
    {0x6E6C7EE2, 0x0701, 0x4EC2, {0x9D, 0x29, 0x2E, 0x87, 0x33, 0xB6, 0x69, 0x34}};
/* {F460E352-D76D-4FE9-835F-F6AF9D6E862D} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo14 =
    {0xF460E352, 0xD76D, 0x4FE9, {0x83, 0x5F, 0xF6, 0xAF, 0x9D, 0x6E, 0x86, 0x2D}};
/* {B446462D-BD22-41DD-872D-DC714C49EB56} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo15 =
    {0xB446462D, 0xBD22, 0x41DD, {0x87, 0x2D, 0xDC, 0x71, 0x4C, 0x49, 0xEB, 0x56}};
/* {2C6269BD-2D13-4321-AE12-6686365FD6AF} */
static const GUID CORPROF_UNUSED IID_ICorProfilerObjectEnum =
    {0x2C6269BD, 0x2D13, 0x4321, {0xAE, 0x12, 0x66, 0x86, 0x36, 0x5F, 0xD6, 0xAF}};
/* {FF71301A-B994-429D-A10B-B345A65280EF} */
static const GUID CORPROF_UNUSED IID_ICorProfilerFunctionEnum =
    {0xFF71301A, 0xB994, 0x429D, {0xA1, 0x0B, 0xB3, 0x45, 0xA6, 0x52, 0x80, 0xEF}};
/* {B0266D75-2081-4493-AF7F-028BA34DB891} */
static const GUID CORPROF_UNUSED IID_ICorProfilerModuleEnum =
    {0xB0266D75, 0x2081, 0x4493, {0xAF, 0x7F, 0x02, 0x8B, 0xA3, 0x4D, 0xB8, 0x91}};
/* {571194F7-25ED-419F-AA8B-7016B3159701} */
static const GUID CORPROF_UNUSED IID_ICorProfilerThreadEnum =
    {0x571194F7, 0x25ED, 0x419F, {0xAA, 0x8B, 0x70, 0x16, 0xB3, 0x15, 0x97, 0x01}};
/* {FCCEE788-0088-454B-A811-C99F298D1942} */
static const GUID CORPROF_UNUSED IID_ICorProfilerMethodEnum =
    {0xFCCEE788, 0x0088, 0x454B, {0xA8, 0x11, 0xC9, 0x9F, 0x29, 0x8D, 0x19, 0x42}};
/* {A0EFB28B-6EE2-4D7B-B983-A75EF7BEEDB8} */
static const GUID CORPROF_UNUSED IID_IMethodMalloc =
    {0xA0EFB28B, 0x6EE2, 0x4D7B, {0xB9, 0x83, 0xA7, 0x5E, 0xF7, 0xBE, 0xED, 0xB8}};
/* {F0963021-E1EA-4732-8581-E01B0BD3C0C6} */
static const GUID CORPROF_UNUSED IID_ICorProfilerFunctionControl =
    {0xF0963021, 0xE1EA, 0x4732, {0x85, 0x81, 0xE0, 0x1B, 0x0B, 0xD3, 0xC0, 0xC6}};
/* {66A78C24-2EEF-4F65-B45F-DD1D8038BF3C} */
static const GUID CORPROF_UNUSED IID_ICorProfilerAssemblyReferenceProvider =
    {0x66A78C24, 0x2EEF, 0x4F65, {0xB4, 0x5F, 0xDD, 0x1D, 0x80, 0x38, 0xBF, 0x3C}};

/* ---- layout checks ---- */

/* Info: IUnknown 3 + Info 33 + 2: 21 + 3: 14 + 4: 10 + 5: 2 + 6: 1 + 7: 3
 * + 8: 3 + 9: 3 + 10: 6 = 99; Info11 +2, Info12 +7 = 108 */
_Static_assert(sizeof(ICorProfilerInfo10Vtbl) == 99 * sizeof(void *),
               "ICorProfilerInfo10: 99 slots");
_Static_assert(sizeof(ICorProfilerInfo12Vtbl) == 108 * sizeof(void *),
               "ICorProfilerInfo12: 108 slots");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetClassFromObject) == 3, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetFunctionInfo) == 15, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, SetEventMask) == 16, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, ForceGC) == 28, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetILToNativeMapping) == 35, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, DoStackSnapshot) == 36, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetCodeInfo2) == 42, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetNotifiedExceptionClauseInfo) == 56,
               "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, EnumJITedFunctions) == 57, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, RequestProfilerDetach) == 58, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetRuntimeInformation) == 67, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetModuleInfo2) == 70, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, EnumThreads) == 71, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetFunctionFromIP2) == 76, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, EnumJITedFunctions2) == 79, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetEventMask2) == 81, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, SetEventMask2) == 82, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetNativeCodeStartAddresses) == 90,
               "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetFunctionFromIP) == 7, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetILFunctionBody) == 22, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetReJITIDs) == 77, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, IsFunctionDynamic) == 87, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetFunctionFromIP3) == 88, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetILToNativeMapping3) == 91, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetCodeInfo4) == 92, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, SuspendRuntime) == 97, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, ResumeRuntime) == 98, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo12Vtbl, GetEnvironmentVariable) == 99, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo12Vtbl, EventPipeStartSession) == 101, "slot");
_Static_assert(sizeof(ICorProfilerModuleEnumVtbl) == 8 * sizeof(void *), "enum: 8 slots");
_Static_assert(sizeof(ICorProfilerFunctionEnumVtbl) == 8 * sizeof(void *), "enum: 8 slots");
_Static_assert(sizeof(ICorProfilerThreadEnumVtbl) == 8 * sizeof(void *), "enum: 8 slots");
_Static_assert(sizeof(ICorProfilerObjectEnumVtbl) == 8 * sizeof(void *), "enum: 8 slots");
_Static_assert(sizeof(ICorProfilerMethodEnumVtbl) == 8 * sizeof(void *), "enum: 8 slots");
_Static_assert(CORPROF_SLOT(ICorProfilerModuleEnumVtbl, Next) == 7, "slot");
_Static_assert(sizeof(IMethodMallocVtbl) == 4 * sizeof(void *), "IMethodMalloc: 4 slots");
_Static_assert(sizeof(ICorProfilerFunctionControlVtbl) == 6 * sizeof(void *),
               "ICorProfilerFunctionControl: 6 slots");
_Static_assert(sizeof(ICorProfilerAssemblyReferenceProviderVtbl) == 4 * sizeof(void *),
               "ICorProfilerAssemblyReferenceProvider: 4 slots");

#endif
