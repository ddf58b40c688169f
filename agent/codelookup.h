/* codelookup.h -- which method's code is at an address, for the server's CPU
 * profiler (WIRE_CMD_CODE_LOOKUP, answered by WIRE_CODE_RANGE).
 *
 * The server samples the target's threads from outside (perf events) and names
 * the managed frames through the code ranges the JIT records gave it. Code
 * the agent never reported (ReadyToRun code of the framework, code compiled
 * before an attach) is looked up here: GetFunctionFromIP, then the code
 * version holding the address (GetNativeCodeStartAddresses and GetCodeInfo4,
 * else GetCodeInfo2), so the server can name every later address in that range
 * without asking again. The function is named first (naming.h), as for stack
 * frames, while the code at the address still exists; a dynamic method is not
 * named (naming.h says why). Sender thread only; each runtime call under the
 * runtime lock (walk.h). */
#ifndef JITSCOPE_CODELOOKUP_H
#define JITSCOPE_CODELOOKUP_H

#include "wire.h"

/* Answers every address of the command with one WIRE_CODE_RANGE (conn_emit),
 * in order. Nothing is asked of the runtime once a detach was requested: the
 * answers then say E_ABORT. */
void codelookup_answer(const wire_cmd_code_lookup *cmd);

#endif
