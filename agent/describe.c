/* describe.c -- module and JIT facts from ICorProfilerInfo (see describe.h). */
#include "describe.h"
#include "ilbody.h"

#include <stdlib.h>
#include <string.h>

#define DESCRIBE_CODE_RANGES 4
#define DESCRIBE_PATH_MAX_UNITS 65536u /* longer is not a path: not asked again */

/* HRESULT_FROM_WIN32(ERROR_INSUFFICIENT_BUFFER): what GetModuleInfo2 answers
 * when the path does not fit (with the length it needs). */
#define DESCRIBE_E_INSUFFICIENT_BUFFER ((HRESULT)0x8007007A)

/* A path longer than text->path: asked again into a buffer of the length the
 * runtime gave, and the END kept (the file name is what identifies a module),
 * flagged truncated. Module loads are rare: one allocation here is fine. */
static HRESULT describe_long_path(ModuleID module, describe_module_text *text, LPCBYTE *base,
                                  AssemblyID *assembly)
{
    ICorProfilerInfo10 *info = agent.info;
    ULONG need = text->path_length, got = 0;
    DWORD flags = 0;
    WCHAR *whole;
    HRESULT hr;

    if (need > DESCRIBE_PATH_MAX_UNITS)
        return E_FAIL;
    whole = malloc((size_t)need * sizeof(WCHAR));
    if (!whole)
        return E_OUTOFMEMORY;
    hr = info->lpVtbl->GetModuleInfo2(info, module, base, need, &got, whole, assembly, &flags);
    if (SUCCEEDED(hr)) {
        if (got > need)
            got = need;
        if (got > 0 && whole[got - 1] == 0)
            got--; /* the count includes the terminating NUL */
        if (got > DESCRIBE_PATH_UNITS) {
            memcpy(text->path, whole + (got - DESCRIBE_PATH_UNITS),
                   DESCRIBE_PATH_UNITS * sizeof(WCHAR));
            got = DESCRIBE_PATH_UNITS;
            text->truncated = 1;
        } else {
            memcpy(text->path, whole, (size_t)got * sizeof(WCHAR));
        }
        text->path_length = got;
    }
    free(whole);
    return hr;
}

void describe_module(ModuleID module, wire_module_loaded *out, describe_module_text *text)
{
    ICorProfilerInfo10 *info = agent.info;
    LPCBYTE base = NULL;
    AssemblyID assembly = 0;
    AppDomainID domain = 0;
    ModuleID manifest = 0;
    DWORD flags = 0;

    HRESULT hr;

    memset(out, 0, sizeof(*out));
    text->path_length = text->assembly_length = 0;
    text->truncated = 0;
    out->module_id = module;
    hr = info->lpVtbl->GetModuleInfo2(info, module, &base, DESCRIBE_PATH_UNITS, &text->path_length,
                                      text->path, &assembly, &flags);
    if (hr == DESCRIBE_E_INSUFFICIENT_BUFFER && text->path_length > DESCRIBE_PATH_UNITS)
        hr = describe_long_path(module, text, &base, &assembly);
    if (SUCCEEDED(hr)) {
        out->base_address = (uint64_t)(uintptr_t)base;
        out->assembly_id = assembly;
    } else {
        text->path_length = 0;
    }
    if (text->path_length > DESCRIBE_PATH_UNITS) {
        text->path_length = DESCRIBE_PATH_UNITS; /* the runtime wrote what fits */
        text->truncated = 1;
    }
    if (assembly && FAILED(info->lpVtbl->GetAssemblyInfo(info, assembly, DESCRIBE_NAME_UNITS,
                                                         &text->assembly_length, text->assembly,
                                                         &domain, &manifest)))
        text->assembly_length = 0;
    if (text->assembly_length > DESCRIBE_NAME_UNITS) {
        text->assembly_length = DESCRIBE_NAME_UNITS;
        text->truncated = 1;
    }
}

unsigned describe_jit(FunctionID function, int code_in_use, wire_jit_finished *out,
                      wire_code_version versions[WIRE_MAX_CODE_VERSIONS])
{
    ICorProfilerInfo10 *info = agent.info;
    COR_PRF_CODE_INFO ranges[DESCRIBE_CODE_RANGES];
    UINT_PTR starts[WIRE_MAX_CODE_VERSIONS];
    ULONG32 count = 0, i, k, n = 0, kept = 0;
    ClassID cls = 0;
    ModuleID module = 0;
    mdToken token = 0;
    LPCBYTE header = NULL;
    ULONG il = 0;
    ilbody body;

    /* tier-up and OSR compile the same FunctionID again; GetCodeInfo2 would still
     * show the code in use, so list every version (the new one is among them) */
    if (SUCCEEDED(info->lpVtbl->GetNativeCodeStartAddresses(info, function, 0,
                                                            WIRE_MAX_CODE_VERSIONS, &n, starts))) {
        out->code_versions = n;
        kept = n < WIRE_MAX_CODE_VERSIONS ? n : WIRE_MAX_CODE_VERSIONS;
        for (k = 0; k < kept; k++) {
            versions[k].start = starts[k];
            versions[k].size = 0;
            versions[k].reserved = 0;
            count = 0;
            if (SUCCEEDED(info->lpVtbl->GetCodeInfo4(info, starts[k], DESCRIBE_CODE_RANGES, &count,
                                                     ranges)))
                for (i = 0; i < count && i < DESCRIBE_CODE_RANGES; i++)
                    versions[k].size += (uint32_t)ranges[i].size;
        }
    }
    /* the code in use: what catch-up reports, and the fallback when the runtime
     * cannot list versions (live JITs skip it otherwise: one call less per JIT) */
    if ((code_in_use || kept == 0) &&
        SUCCEEDED(
            info->lpVtbl->GetCodeInfo2(info, function, DESCRIBE_CODE_RANGES, &count, ranges)) &&
        count > 0) {
        out->code_start = ranges[0].startAddress;
        for (i = 0; i < count && i < DESCRIBE_CODE_RANGES; i++)
            out->code_size += (uint32_t)ranges[i].size;
    }
    /* the IL code's size (the JIT's "IL size"), not the body's: the body
     * GetILFunctionBody gives has its header (and EH sections) too */
    if (!(out->il_size) &&
        SUCCEEDED(info->lpVtbl->GetFunctionInfo(info, function, &cls, &module, &token)) && token &&
        SUCCEEDED(info->lpVtbl->GetILFunctionBody(info, module, token, &header, &il)) &&
        ilbody_parse(header, il < ILBODY_FAT_HEADER ? il : ILBODY_FAT_HEADER, &body) == 0 &&
        (uint64_t)body.header_size + body.code_size <= il)
        out->il_size = body.code_size;
    return kept;
}
