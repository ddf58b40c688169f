/* naming.h -- FUNCTION_NAME records, once per connection per FunctionID, read
 * while the function is certainly alive.
 *
 * Sender thread only. Before a record that mentions a function (a JIT record,
 * the frames of a stack record, a catch-up entry) goes out, the sender asks
 * naming to make sure the server has the function's name: the first time this
 * connection sees the FunctionID, its name is resolved from the runtime's
 * metadata (names_resolve.c, under the runtime lock) and sent with conn_emit.
 *
 * The rule for IDs that die (collectible assemblies): the runtime does not
 * check a FunctionID, so a name is read only while its method lives. A module's
 * ModuleUnloadStarted waits (unload.c) until naming_prepare has read ahead in
 * the ring and kept the names of that module's functions that are still to be
 * sent (the "name cache"); once the drain passes that point, the module's IDs
 * are forgotten, so a recycled ID is named afresh. A FunctionID mentioned
 * before a point the app could not wait for (naming_unsafe_before), or after
 * detach was requested, is never looked up: counted in agent.names_late.
 *
 * Dynamic methods (LCG, IL stubs) are never named here. The runtime frees a
 * collected one's name and signature and hands its FunctionID to the next
 * DynamicMethod, and only its JIT callbacks prove it alive: events.c names it
 * there. The runtime's stack walks and JIT enumeration leave dynamic methods
 * out (docs/RUNTIME.md), so none should reach this file; one that does
 * (IsFunctionDynamic says so) is not read further, sent without a name and
 * counted once in agent.names_late.
 */
#ifndef JITSCOPE_NAMING_H
#define JITSCOPE_NAMING_H

#include <stdint.h>

#define NAMING_MAX (4u * 1024u * 1024u) /* functions remembered as named */
#define NAMING_CACHE_MAX (64u * 1024u)  /* names read ahead and not sent yet */
#define NAMING_LIVE UINT64_MAX          /* not from the ring: the caller knows it lives */

/* A new connection: every function is named again. Names read ahead stay:
 * the records they belong to are still in the ring. */
void naming_reset(void);

/* Detach: everything is freed (the library is about to be unloaded). */
void naming_free_all(void);

/* naming_function's has_metadata */
enum { NAMING_ASK_DYNAMIC = 0, NAMING_HAS_METADATA = 1 };

/* Emits FUNCTION_NAME for function_id unless this connection has it already.
 * ring_pos: where the record that mentions it sits in the ring (NAMING_LIVE
 * for catch-up). NAMING_HAS_METADATA: the caller knows it is not a dynamic
 * method (a JIT record without WIRE_FLAG_DYNAMIC); NAMING_ASK_DYNAMIC (catch-up,
 * stack frames): the runtime is asked first, and a dynamic method is counted,
 * not named (above). `flags` go on the record (WIRE_FLAG_CATCHUP from
 * catch-up). A name the runtime cannot give is sent as "(unknown function
 * 0x...)" and counted in agent.name_failures. Returns 0;
 * CONN_NO_ROOM for a ring record when the output has no room (nothing sent:
 * the caller keeps its record and asks again); -1 for NAMING_LIVE when a module
 * unload started since naming_live_since (nothing looked up: the caller's list
 * of IDs may hold dead ones). */
int naming_function(uint64_t function_id, int has_metadata, uint16_t flags, uint64_t ring_pos);

/* NAMING_LIVE look-ups are for a list taken at this unload generation. */
void naming_live_since(uint64_t generation);

/* A FUNCTION_NAME for function_id went out already (a dynamic method named on
 * its JIT thread): not again on this connection. */
void naming_note(uint64_t function_id);

/* A hint: function_id is about to be looked up (its record is a few records
 * ahead in the ring), so the named set's lines for it are asked for now. */
void naming_prefetch(uint64_t function_id);

/* Names every FunctionID in a WIRE_STACK_THREAD payload (native frames have
 * 0). Returns 0, or CONN_NO_ROOM as naming_function. */
int naming_stack_frames(const uint8_t *payload, uint32_t length, uint64_t ring_pos);
/* The same for an EXCEPTION record (its thrower and its sampled frames), an
 * ALLOCATION (its frames) or an
 * EXCEPTION_CAUGHT (its catcher). */
int naming_exception_functions(uint16_t type, const uint8_t *payload, uint32_t length,
                               uint64_t ring_pos);

/* Names the FunctionIDs of a WIRE_INLINING (caller unless the compilation is
 * of a dynamic method, and callee) or WIRE_CODE_SEARCH payload. Returns 0, or
 * CONN_NO_ROOM as naming_function. */
int naming_record_functions(uint16_t type, uint16_t flags, const uint8_t *payload, uint32_t length,
                            uint64_t ring_pos);

/* Caller holds the runtime lock (walk.h). Reads ahead in the ring from its tail
 * up to `fence` and keeps the name of every function mentioned there that is
 * not named yet and belongs to `module` (0: every function, as before detach);
 * of a dynamic method it keeps only that it is one (the drain then asks the
 * runtime nothing more about it). Stops early, leaving the rest unread, when
 * *stop becomes non-zero. */
void naming_prepare(uint64_t fence, uint64_t module, const _Atomic int *stop);

/* The unload of `module` was prepared up to `fence`: once the drain passes
 * fence, its FunctionIDs are forgotten (they may be reused). */
void naming_module_unloaded(uint64_t module, uint64_t fence);

/* Caller holds the runtime lock. An unload that could not wait: no FunctionID
 * mentioned before ring position `fence` is looked up any more. */
void naming_unsafe_before(uint64_t fence);

/* The drain released everything before ring position `pos`. */
void naming_passed(uint64_t pos);

#endif
