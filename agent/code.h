/* code.h -- WIRE_CMD_CODE: the native code of one method, every version of it.
 *
 * Sender thread only (sender.c's command switch). The server names a
 * FunctionID and an address in one of its native code versions; under the
 * runtime lock (walk.h) the agent proves the method lives (GetFunctionFromIP3
 * of that address answers this FunctionID: its code is in the code heap, so
 * its module has not unloaded, and a module unload that starts meanwhile waits
 * for the runtime lock in ModuleUnloadStarted, unload.c), refuses dynamic
 * methods (their code is freed by the finalizer thread, which waits for
 * nothing of ours) and any request while a module unload is under way, then
 * copies each version's code bytes, IL-to-native map and references
 * (wire.h, wire_code_ref) and the method's IL body into a buffer of its own.
 * With the lock released it names the methods the references lead to and
 * sends the reply: CODE_VERSION and CODE_PARTs per version, the IL's
 * CODE_PARTs, CODE_END. Every piece is capped (WIRE_CODE_*); a refused request
 * gets only a CODE_END with the reason, and is counted.
 */
#ifndef JITSCOPE_CODE_H
#define JITSCOPE_CODE_H

#include "wire.h"

/* Answers one request. Allocates its buffers on this (the sender) thread and
 * frees them before it returns. */
void code_request(const wire_cmd_code *cmd);

/* Which methods are known to live. A FunctionID is read only if the agent saw
 * it alive after the newest module unload began (agent.unload_fence): named
 * in a ring record produced after that point (JIT, name, stack, inlining and
 * code-search records, at their ring position), or listed by catch-up after it.
 * The runtime keeps finding a collectible method's code (GetFunctionFromIP,
 * EnumJITedFunctions) for a while after its module's ModuleUnloadFinished, with
 * the Module already freed; this rule keeps the agent out of that window.
 * Sender thread only. */

/* The FunctionIDs of one ring record (header and payload) at position pos. */
void code_note_record(const uint8_t *record, uint32_t length, uint64_t pos);
/* function_id was alive when the ring's head was at pos (catch-up lists). */
void code_note_alive(uint64_t function_id, uint64_t pos);
/* A new connection (or detach): nothing is known alive any more. */
void code_forget(void);
/* A hint: function_id is about to be noted (code_note_record, a few records
 * ahead), so the lines of its look-up are asked for now. */
void code_prefetch(uint64_t function_id);

#endif
