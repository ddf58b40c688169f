/* jitinfo.c -- JITInlining and the ReadyToRun cache searches -> ring records
 * (see jitinfo.h). JITInlining runs on the JIT thread inside the compilation,
 * once per call site the runtime allows to be inlined (Tier0 and MinOpts code
 * inline nothing, so it comes with optimised compilations only): the record is
 * the whole of its cost. */
#include "jitinfo.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "emit.h"
#include "events.h"

static int jitinfo_inlining = 1; /* written once in Initialize, before any callback */

void jitinfo_configure(void)
{
    const char *env = getenv(WIRE_ENV_INLINING);

    jitinfo_inlining = !(env && strcmp(env, "0") == 0);
}

HRESULT STDMETHODCALLTYPE cb_JITInlining(ICorProfilerCallback11 *self, FunctionID callerId,
                                         FunctionID calleeId, BOOL *pfShouldInline)
{
    wire_inlining r;

    (void)self, (void)pfShouldInline;     /* left as the runtime set it: never vetoed */
    if (!jitinfo_inlining || !agent.info) /* not initialised: no thread to ask about */
        return S_OK;
    r = (wire_inlining){.caller = callerId, .callee = calleeId, .thread_id = events_thread_id()};
    emit_record(WIRE_INLINING, events_in_dynamic_jit() ? WIRE_FLAG_DYNAMIC : 0, &r, sizeof(r), NULL,
                0, NULL, 0);
    return S_OK;
}

static void jitinfo_search(FunctionID function, uint32_t result)
{
    wire_code_search r = {.function_id = function, .result = result};
    emit_record(WIRE_CODE_SEARCH, 0, &r, sizeof(r), NULL, 0, NULL, 0);
}

HRESULT STDMETHODCALLTYPE cb_JITCachedFunctionSearchStarted(ICorProfilerCallback11 *self,
                                                            FunctionID functionId,
                                                            BOOL *pbUseCachedFunction)
{
    (void)self, (void)pbUseCachedFunction; /* left TRUE: the precompiled code is used */
    jitinfo_search(functionId, WIRE_SEARCH_STARTED);
    return S_OK;
}

HRESULT STDMETHODCALLTYPE cb_JITCachedFunctionSearchFinished(ICorProfilerCallback11 *self,
                                                             FunctionID functionId,
                                                             COR_PRF_JIT_CACHE result)
{
    (void)self;
    jitinfo_search(functionId, result == COR_PRF_CACHED_FUNCTION_FOUND ? WIRE_SEARCH_FOUND
                                                                       : WIRE_SEARCH_NOT_FOUND);
    return S_OK;
}
