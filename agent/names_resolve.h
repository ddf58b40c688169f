/* names_resolve.h -- the name of a FunctionID from the runtime's metadata.
 *
 * Implemented by names_resolve.c (metadata walk into names.h's tree, printed by
 * names_format_method, parameter lists by sig.c); names_resolve is used by
 * naming.c on the sender thread, under the runtime lock (static scratch space:
 * one caller at a time); names_dynamic on a dynamic method's JIT thread.
 */
#ifndef JITSCOPE_NAMES_RESOLVE_H
#define JITSCOPE_NAMES_RESOLVE_H

#include <stddef.h>
#include <stdint.h>

#include "corprof.h"

/* Writes the NUL-terminated formatted name into out and the function's module
 * and metadata token. Returns 0, or -1 when the runtime could not say. */
int names_resolve(ICorProfilerInfo10 *info, uint64_t function_id, char *out, size_t outsz,
                  uint64_t *module_id, uint32_t *token);

/* "[dynamic] Name(params)", or "[IL stub] Name(params)" for the runtime's own
 * stubs, from GetDynamicFunctionInfo. Stack buffers only: any thread may call
 * it, but only while the method certainly lives, i.e. inside its JIT callbacks
 * (events.c): the runtime frees a collected dynamic method's name and
 * signature and reuses its FunctionID (naming.h). Returns 0, or -1. */
int names_dynamic(ICorProfilerInfo10 *info, uint64_t function_id, char *out, size_t outsz);

#endif
