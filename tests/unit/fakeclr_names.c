/* fakeclr_names.c -- the fake CoreCLR's answers about functions: what a
 * FunctionID is (GetFunctionInfo, GetFunctionInfo2: method FAKE_TOKEN(fid) of
 * FAKE_MODULE, no class), a fake IMetaDataImport that names method T "M_<T in
 * hex>", dynamic methods (the frames of the scenario's dynamic_thread), the
 * module (no image in memory, so the agent's own metadata reader declines it)
 * and the JIT path's code questions (IL size, code start and size).
 *
 * Every call counts as a runtime call for fake_note_call: a name asked while
 * another thread holds the runtime suspended is a foreign call. See fakeclr.h.
 */
#include "fakeclr.h"

#include <stdio.h>

/* Names: every FunctionID is method FAKE_TOKEN(fid) of FAKE_MODULE, no class,
 * except the frames of fake_scene.dynamic_thread, which are dynamic methods. */
static HRESULT STDMETHODCALLTYPE info_IsFunctionDynamic(ICorProfilerInfo10 *self,
                                                        FunctionID functionId, BOOL *isDynamic)
{
    ThreadID dyn = atomic_load(&fake_scene.dynamic_thread);

    (void)self;
    fake_note_call();
    *isDynamic = dyn && (functionId >> 12) == dyn;
    return S_OK;
}

/* Answers like the runtime does for a live dynamic method ("D_<fid>", no
 * signature), and counts: the agent must not ask outside the JIT callbacks. */
static HRESULT STDMETHODCALLTYPE info_GetDynamicFunctionInfo(
    ICorProfilerInfo10 *self, FunctionID functionId, ModuleID *moduleId, PCCOR_SIGNATURE *ppvSig,
    ULONG *pbSig, ULONG cchName, ULONG *pcchName, WCHAR wszName[])
{
    char name[32];
    int n = snprintf(name, sizeof(name), "D_%llx", (unsigned long long)functionId), i;

    (void)self;
    fake_note_call();
    atomic_fetch_add(&fake_scene.dynamic_info_calls, 1);
    if (moduleId)
        *moduleId = 0;
    if (ppvSig)
        *ppvSig = NULL;
    if (pbSig)
        *pbSig = 0;
    for (i = 0; i < n && (ULONG)i + 1 < cchName; i++)
        wszName[i] = (WCHAR)name[i];
    if (cchName)
        wszName[i] = 0;
    if (pcchName)
        *pcchName = (ULONG)n + 1;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetFunctionInfo2(ICorProfilerInfo10 *self, FunctionID funcId,
                                                       COR_PRF_FRAME_INFO frameInfo,
                                                       ClassID *pClassId, ModuleID *pModuleId,
                                                       mdToken *pToken, ULONG32 cTypeArgs,
                                                       ULONG32 *pcTypeArgs, ClassID typeArgs[])
{
    unsigned us = atomic_load(&fake_scene.name_sleep_us);

    (void)self, (void)frameInfo, (void)cTypeArgs, (void)typeArgs;
    fake_note_call();
    if (us) {
        struct timespec ts = {0, (long)us * 1000L};
        nanosleep(&ts, NULL);
        fake_note_call(); /* a suspension that began while we were "inside" */
    }
    if (pClassId)
        *pClassId = 0;
    if (pModuleId)
        *pModuleId = FAKE_MODULE;
    if (pToken)
        *pToken = FAKE_TOKEN(funcId);
    if (pcTypeArgs)
        *pcTypeArgs = 0;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE md_QueryInterface(IMetaDataImport *self, REFIID riid, void **out)
{
    (void)self, (void)riid;
    *out = NULL;
    return E_NOINTERFACE;
}
static ULONG STDMETHODCALLTYPE md_AddRef(IMetaDataImport *self)
{
    (void)self;
    return 2;
}
static ULONG STDMETHODCALLTYPE md_Release(IMetaDataImport *self)
{
    (void)self;
    return 1;
}

/* The method's name is "M_" and its token in hex, e.g. M_06000005. */
static HRESULT STDMETHODCALLTYPE md_GetMethodProps(IMetaDataImport *self, mdMethodDef mb,
                                                   mdTypeDef *pClass, LPWSTR szMethod,
                                                   ULONG cchMethod, ULONG *pchMethod,
                                                   DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob,
                                                   ULONG *pcbSigBlob, ULONG *pulCodeRVA,
                                                   DWORD *pdwImplFlags)
{
    char name[32];
    int n = snprintf(name, sizeof(name), "M_%08x", (unsigned)mb), i;

    (void)self;
    fake_note_call();
    for (i = 0; i < n && (ULONG)i + 1 < cchMethod; i++)
        szMethod[i] = (WCHAR)name[i];
    if (cchMethod)
        szMethod[i] = 0;
    if (pchMethod)
        *pchMethod = (ULONG)n + 1;
    if (pClass)
        *pClass = 0;
    if (pdwAttr)
        *pdwAttr = 0;
    if (ppvSigBlob)
        *ppvSigBlob = NULL;
    if (pcbSigBlob)
        *pcbSigBlob = 0;
    if (pulCodeRVA)
        *pulCodeRVA = 0;
    if (pdwImplFlags)
        *pdwImplFlags = 0;
    return S_OK;
}

static const IMetaDataImportVtbl fake_md_vtbl = {
    .QueryInterface = md_QueryInterface,
    .AddRef = md_AddRef,
    .Release = md_Release,
    .GetMethodProps = md_GetMethodProps,
};
static IMetaDataImport fake_md = {&fake_md_vtbl};

/* Every fake method's IL is 42 bytes (asked only on the JIT path without tiers). */
#define FAKE_IL_SIZE 42u
static HRESULT STDMETHODCALLTYPE info_GetILFunctionBody(ICorProfilerInfo10 *self, ModuleID moduleId,
                                                        mdMethodDef methodId,
                                                        LPCBYTE *ppMethodHeader,
                                                        ULONG *pcbMethodSize)
{
    (void)self, (void)methodId;
    fake_note_call();
    if (moduleId != FAKE_MODULE)
        return E_INVALIDARG;
    *ppMethodHeader = NULL;
    *pcbMethodSize = FAKE_IL_SIZE;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetModuleMetaData(ICorProfilerInfo10 *self, ModuleID moduleId,
                                                        DWORD dwOpenFlags, REFIID riid,
                                                        IUnknown **ppOut)
{
    (void)self, (void)dwOpenFlags;
    fake_note_call();
    *ppOut = NULL;
    if (moduleId != FAKE_MODULE || !guid_eq(riid, &IID_IMetaDataImport))
        return E_INVALIDARG;
    *ppOut = (IUnknown *)(void *)&fake_md;
    return S_OK;
}

/* The fake module has no image in memory: the agent's direct metadata reader
 * (agent/mdcache.c) declines it and names go through the fake importer. */
static HRESULT STDMETHODCALLTYPE info_GetModuleInfo2(ICorProfilerInfo10 *self, ModuleID moduleId,
                                                     LPCBYTE *ppBaseLoadAddress, ULONG cchName,
                                                     ULONG *pcchName, WCHAR szName[],
                                                     AssemblyID *pAssemblyId, DWORD *pdwModuleFlags)
{
    (void)self, (void)cchName, (void)szName;
    fake_note_call();
    if (moduleId != FAKE_MODULE)
        return E_INVALIDARG;
    if (ppBaseLoadAddress)
        *ppBaseLoadAddress = NULL;
    if (pcchName)
        *pcchName = 0;
    if (pAssemblyId)
        *pAssemblyId = 0;
    if (pdwModuleFlags)
        *pdwModuleFlags = 0;
    return S_OK;
}

/* The JIT path's code questions: one version of 64 bytes at an address made
 * from the FunctionID, and the method's module and token. */
static HRESULT STDMETHODCALLTYPE info_GetNativeCodeStartAddresses(ICorProfilerInfo10 *self,
                                                                  FunctionID functionID,
                                                                  ReJITID reJitId, ULONG32 max,
                                                                  ULONG32 *count, UINT_PTR starts[])
{
    (void)self, (void)reJitId;
    fake_note_call();
    *count = 1;
    if (max >= 1)
        starts[0] = (UINT_PTR)0x7e0000000000ull + (UINT_PTR)functionID * 64u;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetCodeInfo4(ICorProfilerInfo10 *self, UINT_PTR start,
                                                   ULONG32 max, ULONG32 *count,
                                                   COR_PRF_CODE_INFO infos[])
{
    (void)self;
    fake_note_call();
    *count = 1;
    if (max >= 1)
        infos[0] = (COR_PRF_CODE_INFO){.startAddress = start, .size = 64};
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetFunctionInfo(ICorProfilerInfo10 *self, FunctionID function,
                                                      ClassID *cls, ModuleID *module,
                                                      mdToken *token)
{
    (void)self;
    fake_note_call();
    *cls = 0;
    *module = FAKE_MODULE;
    *token = FAKE_TOKEN(function);
    return S_OK;
}

void fakeclr_names_slots(ICorProfilerInfo10Vtbl *v)
{
    v->GetFunctionInfo2 = info_GetFunctionInfo2;
    v->IsFunctionDynamic = info_IsFunctionDynamic;
    v->GetDynamicFunctionInfo = info_GetDynamicFunctionInfo;
    v->GetModuleMetaData = info_GetModuleMetaData;
    v->GetModuleInfo2 = info_GetModuleInfo2;
    v->GetILFunctionBody = info_GetILFunctionBody;
    v->GetNativeCodeStartAddresses = info_GetNativeCodeStartAddresses;
    v->GetCodeInfo4 = info_GetCodeInfo4;
    v->GetFunctionInfo = info_GetFunctionInfo;
}
