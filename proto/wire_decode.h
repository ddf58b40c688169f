/* wire_decode.h -- the decoder of frames, used by the server for agent records (proto/wire.h).
 *
 * Pure functions over untrusted bytes: every length is checked against the
 * buffer and against the protocol's limits before it is used. Decoded strings
 * point into the caller's buffer (not NUL-terminated) and are valid UTF-8.
 * Fuzzed by tests/fuzz/fuzz_wire_decode.c, unit-tested by tests/unit/test_wire_*.c.
 */
#ifndef JITSCOPE_WIRE_DECODE_H
#define JITSCOPE_WIRE_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wire.h"

enum { WIRE_DECODE_OK = 0, WIRE_DECODE_NEED_MORE = 1, WIRE_DECODE_BAD = -1 };

typedef struct wire_frame {
    wire_frame_header header;
    const uint8_t *payload;
} wire_frame;

typedef struct wire_string {
    const char *text; /* not NUL-terminated */
    uint16_t length;
} wire_string;

typedef struct wire_record {
    uint16_t type;
    uint16_t flags;
    uint64_t seq;
    uint64_t time_ns;
    union {
        wire_hello hello;
        wire_jit_started jit_started;
        wire_jit_finished jit_finished;
        wire_function_name function_name;
        wire_module_loaded module_loaded;
        wire_module_unloaded module_unloaded;
        wire_assembly_loaded assembly_loaded;
        wire_thread thread;
        wire_drops drops;
        wire_catchup catchup;
        wire_detach_status detach;
        wire_cmd_ping pong;
        wire_stack_thread stack_thread;
        wire_stack_end stack_end;
        wire_profile_status profile_status;
        wire_gc_started gc_started;
        wire_gc_finished gc_finished;
        wire_runtime_suspend runtime_suspend;
        wire_tiers_status tiers_status;
        wire_agent_cost agent_cost;
        wire_code_version_info code_version;
        wire_code_part code_part;
        wire_code_end code_end;
        wire_inlining inlining;
        wire_code_search code_search;
        wire_code_range code_range;
        wire_exception exception;
        wire_exception_caught exception_caught;
        wire_allocation allocation;
        wire_gc_heap_stats heap_stats;
        wire_exception_counts exception_counts;
    } u;
    wire_string strings[2];
    unsigned string_count;
    wire_code_version code_versions[WIRE_MAX_CODE_VERSIONS]; /* JIT_FINISHED only */
    unsigned code_version_count;
    /* STACK_THREAD (u.stack_thread.frame_count), EXCEPTION
     * (u.exception.frame_count) and ALLOCATION: wire_stack_frame entries, leaf first,
     * pointing into the payload (not aligned: read them with
     * wire_record_frame). */
    const void *stack_frames;
    uint32_t stack_frame_count; /* how many (either kind) */
    /* CODE_PART only: its data (data_length bytes, checked against the kind's
     * entry size and caps), pointing into the payload */
    const uint8_t *data;
    uint32_t data_length;
} wire_record;

/* Frame i (< its frame_count) of a STACK_THREAD or EXCEPTION record. */
static inline wire_stack_frame wire_record_frame(const wire_record *r, uint32_t i)
{
    wire_stack_frame f;
    memcpy(&f, (const uint8_t *)r->stack_frames + (size_t)i * sizeof(f), sizeof(f));
    return f;
}

/* Splits one frame off the front of buf. NEED_MORE: wait for more bytes;
 * BAD: the stream is garbage (*why says why); OK: *consumed bytes used. */
int wire_decode_frame(const uint8_t *buf, size_t len, wire_frame *out, size_t *consumed,
                      const char **why);

/* Decodes an agent record's payload by type. Unknown types are BAD, and so are
 * values outside their enumeration (stack kinds, profile states, suspension
 * phases), a STACK_THREAD whose frame_count is over WIRE_STACK_MAX_FRAMES or
 * disagrees with the payload length, and a STACK_END with more threads sent
 * than WIRE_STACK_MAX_THREADS or than the runtime listed; and code records
 * whose counts, sizes, offsets or kinds go past the WIRE_CODE_* caps. */
int wire_decode_record(const wire_frame *frame, wire_record *out, const char **why);
/* The same for a record read back from storage: a hello of any version from
 * WIRE_VERSION_STORED_MIN up is accepted (a live agent must say WIRE_VERSION). */
int wire_decode_stored_record(const wire_frame *frame, wire_record *out, const char **why);
/* The fixed part's size of an agent record type (0: not one) and how many
 * strings follow it (the one table the decoder and record builders use). */
size_t wire_record_fixed(uint16_t type, unsigned *strings);

/* A command (server -> agent), decoded. Unknown command types are OK with only
 * `type` set: a newer server may know more, and the agent ignores them. */
typedef struct wire_command {
    uint16_t type;
    union {
        wire_cmd_detach detach;
        wire_cmd_ping ping;
        wire_cmd_snapshot snapshot;
        wire_cmd_profile_start profile_start;
        wire_cmd_profile_stop profile_stop;
        wire_cmd_tiers tiers;
        wire_cmd_code code;
        wire_cmd_code_lookup code_lookup; /* ips beyond count are 0 */
        wire_cmd_exceptions exceptions;
        wire_cmd_allocations allocations;
    } u;
} wire_command;

/* Splits and decodes one command frame off the front of buf, as
 * wire_decode_frame does, with WIRE_MAX_COMMAND as the length limit. A known
 * command whose payload is shorter than its struct is BAD; a CODE_LOOKUP
 * must carry exactly `count` addresses, 1..WIRE_CODE_LOOKUP_MAX of them. */
int wire_decode_command(const uint8_t *buf, size_t len, wire_command *out, size_t *consumed,
                        const char **why);

#endif
