/* describe.h -- asking the runtime about one module, assembly or compiled method.
 *
 * Shared by the callbacks (app threads, records go to the ring) and by the
 * catch-up (sender thread, records go straight to the socket), so both produce
 * the same records. Cheap calls only, fixed-size buffers given by the caller. */
#ifndef JITSCOPE_DESCRIBE_H
#define JITSCOPE_DESCRIBE_H

#include "agent.h"

#define DESCRIBE_PATH_UNITS 1024  /* module paths longer than this are cut (flagged) */
#define DESCRIBE_NAME_UNITS 256   /* assembly names */

typedef struct describe_module_text {
    WCHAR path[DESCRIBE_PATH_UNITS];
    ULONG path_length;
    WCHAR assembly[DESCRIBE_NAME_UNITS];
    ULONG assembly_length;
    int truncated;          /* the path or name did not fit */
} describe_module_text;

/* Fills the record and the names; missing pieces stay empty. */
void describe_module(ModuleID module, wire_module_loaded *out, describe_module_text *text);
/* Native code of the version in use, every code version (up to
 * WIRE_MAX_CODE_VERSIONS, returned count) and the IL size. */
unsigned describe_jit(FunctionID function, wire_jit_finished *out,
                      wire_code_version versions[WIRE_MAX_CODE_VERSIONS]);

#endif
