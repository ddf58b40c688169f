/* describe.h -- asking the runtime about one module, assembly or compiled method.
 *
 * Shared by the callbacks (app threads, records go to the ring) and by the
 * catch-up (sender thread, records go straight to the socket), so both produce
 * the same records. Cheap calls only, fixed-size buffers given by the caller. */
#ifndef JITSCOPE_DESCRIBE_H
#define JITSCOPE_DESCRIBE_H

#include "agent.h"

#define DESCRIBE_PATH_UNITS 1024 /* module paths longer than this are cut (flagged) */
#define DESCRIBE_NAME_UNITS 256  /* assembly names */

typedef struct describe_module_text {
    WCHAR path[DESCRIBE_PATH_UNITS];
    ULONG path_length;
    WCHAR assembly[DESCRIBE_NAME_UNITS];
    ULONG assembly_length;
    int truncated; /* the path or name did not fit */
} describe_module_text;

/* Fills the record and the names; missing pieces stay empty. */
void describe_module(ModuleID module, wire_module_loaded *out, describe_module_text *text);
/* Every native code version (up to WIRE_MAX_CODE_VERSIONS, returned count), the
 * IL size, and the code in use (GetCodeInfo2) when code_in_use is set or the
 * versions cannot be listed. */
unsigned describe_jit(FunctionID function, int code_in_use, wire_jit_finished *out,
                      wire_code_version versions[WIRE_MAX_CODE_VERSIONS]);

#endif
