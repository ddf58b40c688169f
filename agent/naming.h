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

/* naming_function's has_metadata */
enum { NAMING_ASK_DYNAMIC = 0, NAMING_HAS_METADATA = 1 };

/* Emits FUNCTION_NAME for function_id unless this connection has it already.
 * NAMING_HAS_METADATA: the caller knows it is not a dynamic method (a JIT
 * record without WIRE_FLAG_DYNAMIC), so it is resolved from metadata at once;
 * NAMING_ASK_DYNAMIC (catch-up, stack frames): the runtime is asked first and
 * a dynamic method is named as events.c names it. `flags` go on the record
 * (WIRE_FLAG_CATCHUP from catch-up). A name that cannot be resolved is sent as
 * "(unknown function 0x...)" and counted in agent.name_failures. */
void naming_function(uint64_t function_id, int has_metadata, uint16_t flags);

/* A FUNCTION_NAME for function_id went out already (a dynamic method named on
 * its JIT thread): not again on this connection. */
void naming_note(uint64_t function_id);

/* Names every FunctionID in a WIRE_STACK_THREAD payload (native frames have 0). */
void naming_stack_frames(const uint8_t *payload, uint32_t length);

#endif
