/* jitinfo.h -- what the JIT and the ReadyToRun loader decide, as ring records.
 *
 * JITInlining (the runtime lets the JIT inline a callee into the method being
 * compiled) and JITCachedFunctionSearchStarted / Finished (the runtime found
 * ReadyToRun code for a method, and uses it) on the application's threads:
 * one WIRE_INLINING or WIRE_CODE_SEARCH record into the ring each, nothing
 * else (no lock, no allocation, no call into the runtime). The agent never
 * vetoes: *pfShouldInline and *pbUseCachedFunction stay TRUE. The sender names
 * the methods (naming.h) as for JIT records.
 */
#ifndef JITSCOPE_JITINFO_H
#define JITSCOPE_JITINFO_H

#include "corprof.h"

/* Reads WIRE_ENV_INLINING once, at Initialize. */
void jitinfo_configure(void);

HRESULT STDMETHODCALLTYPE cb_JITInlining(ICorProfilerCallback11 *self, FunctionID callerId,
                                         FunctionID calleeId, BOOL *pfShouldInline);
HRESULT STDMETHODCALLTYPE cb_JITCachedFunctionSearchStarted(ICorProfilerCallback11 *self,
                                                            FunctionID functionId,
                                                            BOOL *pbUseCachedFunction);
HRESULT STDMETHODCALLTYPE cb_JITCachedFunctionSearchFinished(ICorProfilerCallback11 *self,
                                                             FunctionID functionId,
                                                             COR_PRF_JIT_CACHE result);

#endif
