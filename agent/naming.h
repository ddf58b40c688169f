/* naming.h -- FUNCTION_NAME records, once per connection per FunctionID.
 *
 * Sender thread only. Before a record that mentions a function (a JIT record,
 * the frames of a stack record, a catch-up entry) goes out, the sender asks
 * naming to make sure the server has the function's name: the first time this
 * connection sees the FunctionID, its name is resolved from the runtime's
 * metadata (names_resolve.c, under the runtime lock) and sent with conn_emit.
 */
#ifndef JITSCOPE_NAMING_H
#define JITSCOPE_NAMING_H

#include <stdint.h>

#define NAMING_MAX (4u * 1024u * 1024u) /* functions remembered as named */

/* A new connection: every function is named again. Frees the set. */
void naming_reset(void);

/* Emits FUNCTION_NAME for function_id unless this connection has it already.
 * `dynamic` (a LCG method) names it "(dynamic method)" without asking the
 * runtime; `flags` go on the record (WIRE_FLAG_CATCHUP from catch-up). A name
 * that cannot be resolved is sent as "(unknown function 0x...)" and counted in
 * agent.name_failures. */
void naming_function(uint64_t function_id, int dynamic, uint16_t flags);

/* Names every FunctionID in a WIRE_STACK_THREAD payload (native frames have 0). */
void naming_stack_frames(const uint8_t *payload, uint32_t length);

#endif
