/* wire_decode.c -- bounded decoder of agent frames and record payloads.
 * See wire_decode.h; the layouts are proto/wire.h and docs/PROTOCOL.md. */
#include "wire_decode.h"

#include <string.h>

#include "utf.h"

int wire_decode_frame(const uint8_t *buf, size_t len, wire_frame *out, size_t *consumed,
                      const char **why)
{
    if (len < sizeof(wire_frame_header))
        return WIRE_DECODE_NEED_MORE;
    memcpy(&out->header, buf, sizeof(out->header));
    if (out->header.length > WIRE_MAX_PAYLOAD) {
        *why = "frame length over the protocol limit";
        return WIRE_DECODE_BAD;
    }
    if (len - sizeof(wire_frame_header) < out->header.length)
        return WIRE_DECODE_NEED_MORE;
    out->payload = buf + sizeof(wire_frame_header);
    *consumed = sizeof(wire_frame_header) + out->header.length;
    return WIRE_DECODE_OK;
}

/* Reads `count` strings after the fixed part; the payload must end exactly after them. */
static int wire_read_strings(const wire_frame *f, size_t fixed, unsigned count, wire_record *out,
                             const char **why)
{
    size_t pos = fixed, len = f->header.length;
    unsigned i;

    for (i = 0; i < count; i++) {
        uint16_t n;

        if (len - pos < 2) {
            *why = "string length missing";
            return WIRE_DECODE_BAD;
        }
        memcpy(&n, f->payload + pos, 2);
        pos += 2;
        if (n > WIRE_MAX_STRING || len - pos < n) {
            *why = "string longer than its record";
            return WIRE_DECODE_BAD;
        }
        if (!utf8_valid((const char *)f->payload + pos, n)) {
            *why = "string is not valid UTF-8";
            return WIRE_DECODE_BAD;
        }
        out->strings[i].text = (const char *)f->payload + pos;
        out->strings[i].length = n;
        pos += n;
    }
    if (pos != len) {
        *why = "trailing bytes after record";
        return WIRE_DECODE_BAD;
    }
    out->string_count = count;
    return WIRE_DECODE_OK;
}

/* Whether each counter in `bytes` of uint64 counters is at most
 * WIRE_COUNTER_MAX (those records are arrays of uint64 without padding). */
static int wire_counters_in_range(const void *counters, size_t bytes)
{
    const uint8_t *p = counters;

    for (size_t off = 0; off + sizeof(uint64_t) <= bytes; off += sizeof(uint64_t)) {
        uint64_t v;
        memcpy(&v, p + off, sizeof(v));
        if (v > WIRE_COUNTER_MAX)
            return 0;
    }
    return 1;
}

/* The code records (WIRE_CMD_CODE's reply, cache searches): every count,
 * size and offset within the WIRE_CODE_* caps, so a consumer may size its
 * buffers by them. */
static int wire_check_code(const wire_record *r, const char **why)
{
    switch (r->type) {
    case WIRE_CODE_VERSION: {
        const wire_code_version_info *v = &r->u.code_version;
        if (v->index >= WIRE_CODE_MAX_VERSIONS || v->code_sent > WIRE_CODE_MAX_VERSION_BYTES ||
            (uint64_t)v->code_sent > (uint64_t)v->hot_size + v->cold_size ||
            v->map_sent > WIRE_CODE_MAX_MAP || v->map_sent > v->map_count ||
            v->ref_count > WIRE_CODE_MAX_REFS || (v->flags & ~(uint32_t)WIRE_CODE_FLAGS_ALL)) {
            *why = "code version record with a count or size past its caps";
            return WIRE_DECODE_BAD;
        }
        return WIRE_DECODE_OK;
    }
    case WIRE_CODE_PART: {
        const wire_code_part *p = &r->u.code_part;
        uint32_t entry = 1, cap;
        switch (p->kind) {
        case WIRE_CODE_PART_CODE: cap = WIRE_CODE_MAX_VERSION_BYTES; break;
        case WIRE_CODE_PART_MAP:
            entry = sizeof(wire_code_map_entry);
            cap = WIRE_CODE_MAX_MAP * entry;
            break;
        case WIRE_CODE_PART_REFS:
            entry = sizeof(wire_code_ref);
            cap = WIRE_CODE_MAX_REFS * entry;
            break;
        case WIRE_CODE_PART_IL: cap = WIRE_CODE_MAX_IL; break;
        default: *why = "code part of an unknown kind"; return WIRE_DECODE_BAD;
        }
        if ((p->kind == WIRE_CODE_PART_IL) != (p->index == WIRE_CODE_IL_INDEX) ||
            (p->kind != WIRE_CODE_PART_IL && p->index >= WIRE_CODE_MAX_VERSIONS)) {
            *why = "code part with an index that does not fit its kind";
            return WIRE_DECODE_BAD;
        }
        if (r->data_length == 0 || r->data_length > WIRE_CODE_CHUNK ||
            r->data_length % entry != 0 || p->offset % entry != 0 || p->offset > cap ||
            r->data_length > cap - p->offset) {
            *why = "code part whose data is empty, not whole entries, or past its cap";
            return WIRE_DECODE_BAD;
        }
        return WIRE_DECODE_OK;
    }
    case WIRE_CODE_END: {
        const wire_code_end *e = &r->u.code_end;
        if (e->status > WIRE_CODE_STATUS_MAX || e->versions_sent > WIRE_CODE_MAX_VERSIONS ||
            e->versions_sent > e->versions || e->il_sent > WIRE_CODE_MAX_IL ||
            e->il_sent > e->il_size || e->refused > WIRE_COUNTER_MAX ||
            e->elapsed_ns > WIRE_COUNTER_MAX || (e->flags & ~(uint32_t)WIRE_CODE_FLAGS_ALL)) {
            *why = "code end record with a count or status out of range";
            return WIRE_DECODE_BAD;
        }
        return WIRE_DECODE_OK;
    }
    default: /* WIRE_CODE_SEARCH */
        if (r->u.code_search.result < WIRE_SEARCH_STARTED ||
            r->u.code_search.result > WIRE_SEARCH_NOT_FOUND) {
            *why = "code search record with an unknown result";
            return WIRE_DECODE_BAD;
        }
        return WIRE_DECODE_OK;
    }
}

/* Enumerations, counts and counters inside the records. Values that come
 * from the runtime and only label things (GC and suspension reasons,
 * generation bits, HRESULTs) are not judged here: a newer runtime may add
 * some. */
static int wire_check_values(const wire_record *r, const char **why)
{
    switch (r->type) {
    case WIRE_DROPS:
        if (!wire_counters_in_range(&r->u.drops, sizeof(r->u.drops))) {
            *why = "drops record with a counter over WIRE_COUNTER_MAX";
            return WIRE_DECODE_BAD;
        }
        return WIRE_DECODE_OK;
    case WIRE_AGENT_COST:
        if (!wire_counters_in_range(&r->u.agent_cost, sizeof(r->u.agent_cost))) {
            *why = "agent cost record with a counter over WIRE_COUNTER_MAX";
            return WIRE_DECODE_BAD;
        }
        return WIRE_DECODE_OK;
    case WIRE_STACK_THREAD:
        if (r->u.stack_thread.snapshot_id == 0) {
            *why = "stack thread record without a snapshot id";
            return WIRE_DECODE_BAD;
        }
        if (r->u.stack_thread.flags & ~(uint32_t)WIRE_STACK_TRUNCATED) {
            *why = "stack thread record with unknown flags";
            return WIRE_DECODE_BAD;
        }
        return WIRE_DECODE_OK;
    case WIRE_STACK_END: {
        const wire_stack_end *e = &r->u.stack_end;
        if (e->snapshot_id == 0) {
            *why = "stack end record without a snapshot id";
            return WIRE_DECODE_BAD;
        }
        if (e->kind != WIRE_STACK_SNAPSHOT && e->kind != WIRE_STACK_SAMPLE) {
            *why = "stack end record of an unknown kind";
            return WIRE_DECODE_BAD;
        }
        if (e->threads_sent > WIRE_STACK_MAX_THREADS || e->threads_sent > e->threads_total) {
            *why = "stack end record with more threads sent than allowed or listed";
            return WIRE_DECODE_BAD;
        }
        if (e->effective_millihz > WIRE_PROFILE_MAX_HZ * 1000u) {
            *why = "stack end record with a sampling rate over WIRE_PROFILE_MAX_HZ";
            return WIRE_DECODE_BAD;
        }
        return WIRE_DECODE_OK;
    }
    case WIRE_PROFILE_STATUS: {
        const wire_profile_status *p = &r->u.profile_status;
        if (p->state < WIRE_PROFILE_STARTED || p->state > WIRE_PROFILE_REFUSED) {
            *why = "profile status with an unknown state";
            return WIRE_DECODE_BAD;
        }
        if (p->requested_millihz > WIRE_PROFILE_MAX_HZ * 1000u ||
            p->effective_millihz > WIRE_PROFILE_MAX_HZ * 1000u || p->budget_permille > 1000u) {
            *why = "profile status with a rate or budget out of range";
            return WIRE_DECODE_BAD;
        }
        return WIRE_DECODE_OK;
    }
    case WIRE_CODE_VERSION:
    case WIRE_CODE_PART:
    case WIRE_CODE_END:
    case WIRE_CODE_SEARCH: return wire_check_code(r, why);
    case WIRE_CODE_RANGE: {
        const wire_code_range *c = &r->u.code_range;
        if (c->function_id == 0 && (c->start != 0 || c->size != 0)) {
            *why = "code range record with a range but no function";
            return WIRE_DECODE_BAD;
        }
        if (c->size != 0 && (c->start > c->ip || c->ip - c->start >= c->size)) {
            *why = "code range record whose range does not hold its address";
            return WIRE_DECODE_BAD;
        }
        return WIRE_DECODE_OK;
    }
    case WIRE_EXCEPTION:
        if (r->u.exception.thread_id == 0 || r->strings[0].length == 0 ||
            r->strings[0].length > WIRE_EXCEPTION_TYPE_MAX ||
            r->strings[1].length > WIRE_EXCEPTION_MESSAGE_MAX) {
            *why = "exception record without a thread or a type, or with a string past its cap";
            return WIRE_DECODE_BAD;
        }
        return WIRE_DECODE_OK;
    case WIRE_ALLOCATION:
        if ((r->u.allocation.object_size == 0 &&
             r->u.allocation.kind != WIRE_ALLOC_KIND_UNSENT_ONLY) ||
            r->strings[0].length > WIRE_ALLOC_TYPE_MAX ||
            (r->u.allocation.source != WIRE_ALLOC_SAMPLED &&
             r->u.allocation.source != WIRE_ALLOC_TICK)) {
            *why = "allocation record without a size, of an unknown source, or a long type";
            return WIRE_DECODE_BAD;
        }
        return WIRE_DECODE_OK;
    case WIRE_GC_HEAP_STATS:
        if (r->u.heap_stats.flags & ~WIRE_HEAP_HAS_POH) {
            *why = "heap statistics with unknown flags";
            return WIRE_DECODE_BAD;
        }
        return WIRE_DECODE_OK;
    case WIRE_EXCEPTION_COUNTS:
        if (r->strings[0].length == 0 || r->strings[0].length > WIRE_EXCEPTION_TYPE_MAX ||
            (r->u.exception_counts.catches != 0) != (r->u.exception_counts.catcher_id != 0)) {
            *why = "exception counts record without a type, or a catcher without catches";
            return WIRE_DECODE_BAD;
        }
        return WIRE_DECODE_OK;
    case WIRE_EXCEPTION_CAUGHT:
        if (r->u.exception_caught.thread_id == 0) {
            *why = "caught-exception record without a thread";
            return WIRE_DECODE_BAD;
        }
        return WIRE_DECODE_OK;
    case WIRE_RUNTIME_SUSPEND:
        if (r->u.runtime_suspend.phase < WIRE_SUSPEND_STARTED ||
            r->u.runtime_suspend.phase > WIRE_RESUME_FINISHED) {
            *why = "runtime suspend record with an unknown phase";
            return WIRE_DECODE_BAD;
        }
        return WIRE_DECODE_OK;
    default: return WIRE_DECODE_OK;
    }
}

size_t wire_record_fixed(uint16_t type, unsigned *strings)
{
    *strings = 0;
    switch (type) {
    case WIRE_HELLO: return sizeof(wire_hello);
    case WIRE_JIT_STARTED: return sizeof(wire_jit_started);
    case WIRE_JIT_FINISHED: return sizeof(wire_jit_finished);
    case WIRE_FUNCTION_NAME: *strings = 1; return sizeof(wire_function_name);
    case WIRE_MODULE_LOADED: *strings = 2; return sizeof(wire_module_loaded);
    case WIRE_MODULE_UNLOADED: return sizeof(wire_module_unloaded);
    case WIRE_ASSEMBLY_LOADED: *strings = 1; return sizeof(wire_assembly_loaded);
    case WIRE_THREAD_CREATED:
    case WIRE_THREAD_DESTROYED:
    case WIRE_THREAD_OS_ID: return sizeof(wire_thread);
    case WIRE_THREAD_NAME: *strings = 1; return sizeof(wire_thread);
    case WIRE_DROPS: return sizeof(wire_drops);
    case WIRE_CATCHUP_BEGIN:
    case WIRE_CATCHUP_END: return sizeof(wire_catchup);
    case WIRE_DETACH_STATUS: return sizeof(wire_detach_status);
    case WIRE_PONG: return sizeof(wire_cmd_ping);
    case WIRE_STACK_THREAD: return sizeof(wire_stack_thread);
    case WIRE_STACK_END: return sizeof(wire_stack_end);
    case WIRE_PROFILE_STATUS: return sizeof(wire_profile_status);
    case WIRE_GC_STARTED: return sizeof(wire_gc_started);
    case WIRE_GC_FINISHED: return sizeof(wire_gc_finished);
    case WIRE_RUNTIME_SUSPEND: return sizeof(wire_runtime_suspend);
    case WIRE_TIERS_STATUS: return sizeof(wire_tiers_status);
    case WIRE_AGENT_COST: return sizeof(wire_agent_cost);
    case WIRE_CODE_VERSION: return sizeof(wire_code_version_info);
    case WIRE_CODE_PART: return sizeof(wire_code_part);
    case WIRE_CODE_END: return sizeof(wire_code_end);
    case WIRE_INLINING: return sizeof(wire_inlining);
    case WIRE_CODE_SEARCH: return sizeof(wire_code_search);
    case WIRE_CODE_RANGE: return sizeof(wire_code_range);
    case WIRE_EXCEPTION: *strings = 2; return sizeof(wire_exception);
    case WIRE_EXCEPTION_CAUGHT: return sizeof(wire_exception_caught);
    case WIRE_ALLOCATION: *strings = 1; return sizeof(wire_allocation);
    case WIRE_GC_HEAP_STATS: return sizeof(wire_gc_heap_stats);
    case WIRE_EXCEPTION_COUNTS: *strings = 1; return sizeof(wire_exception_counts);
    default: return 0;
    }
}

static int wire_decode_any(const wire_frame *f, wire_record *out, uint32_t oldest, const char **why)
{
    size_t fixed;
    unsigned strings = 0;

    memset(out, 0, sizeof(*out));
    out->type = f->header.type;
    out->flags = f->header.flags;
    out->seq = f->header.seq;
    out->time_ns = f->header.time_ns;
    fixed = wire_record_fixed(f->header.type, &strings);
    if (fixed == 0) {
        *why = "unknown record type";
        return WIRE_DECODE_BAD;
    }
    if (f->header.flags & ~(uint16_t)WIRE_FLAGS_KNOWN) {
        *why = "record with unknown flags";
        return WIRE_DECODE_BAD;
    }
    if ((f->header.flags & WIRE_FLAG_OS_NAME) && f->header.type != WIRE_THREAD_NAME) {
        *why = "OS-name flag on a record that is not a thread name";
        return WIRE_DECODE_BAD;
    }
    if (f->header.type == WIRE_HELLO && f->header.length == WIRE_HELLO_BASE)
        fixed = WIRE_HELLO_BASE; /* an agent from before agent_flags: the rest reads as 0 */
    if (f->header.length < fixed) {
        *why = "record shorter than its fixed part";
        return WIRE_DECODE_BAD;
    }
    memcpy(&out->u, f->payload, fixed);
    if (f->header.type == WIRE_JIT_FINISHED) {
        /* followed by one entry per known code version, at most WIRE_MAX_CODE_VERSIONS */
        uint32_t n = out->u.jit_finished.code_versions;
        size_t bytes;
        out->code_version_count = n < WIRE_MAX_CODE_VERSIONS ? n : WIRE_MAX_CODE_VERSIONS;
        bytes = out->code_version_count * sizeof(wire_code_version);
        if (f->header.length - fixed < bytes) {
            *why = "code versions missing from a JIT record";
            return WIRE_DECODE_BAD;
        }
        memcpy(out->code_versions, f->payload + fixed, bytes);
        fixed += bytes;
    } else if (f->header.type == WIRE_STACK_THREAD) {
        /* followed by exactly frame_count frames, at most WIRE_STACK_MAX_FRAMES */
        uint32_t n = out->u.stack_thread.frame_count;
        if (n > WIRE_STACK_MAX_FRAMES) {
            *why = "stack thread record with more than WIRE_STACK_MAX_FRAMES frames";
            return WIRE_DECODE_BAD;
        }
        if (f->header.length - fixed != (size_t)n * sizeof(wire_stack_frame)) {
            *why = "stack thread record whose length disagrees with its frame count";
            return WIRE_DECODE_BAD;
        }
        out->stack_frames = f->payload + fixed;
        out->stack_frame_count = n;
        fixed += (size_t)n * sizeof(wire_stack_frame);
    } else if (f->header.type == WIRE_EXCEPTION) {
        /* followed by frame_count frames (at most WIRE_EXCEPTION_MAX_FRAMES), then its strings */
        uint32_t n = out->u.exception.frame_count;
        if (n > WIRE_EXCEPTION_MAX_FRAMES ||
            f->header.length - fixed < (size_t)n * sizeof(wire_stack_frame)) {
            *why = "exception record with more frames than allowed or sent";
            return WIRE_DECODE_BAD;
        }
        out->stack_frames = f->payload + fixed;
        out->stack_frame_count = n;
        fixed += (size_t)n * sizeof(wire_stack_frame);
    } else if (f->header.type == WIRE_ALLOCATION) {
        /* followed by frame_count frames (at most WIRE_ALLOC_MAX_FRAMES), then its type */
        uint32_t n = out->u.allocation.frame_count;
        if (n > WIRE_ALLOC_MAX_FRAMES ||
            f->header.length - fixed < (size_t)n * sizeof(wire_stack_frame)) {
            *why = "allocation record with more frames than allowed or sent";
            return WIRE_DECODE_BAD;
        }
        out->stack_frames = f->payload + fixed;
        out->stack_frame_count = n;
        fixed += (size_t)n * sizeof(wire_stack_frame);
    } else if (f->header.type == WIRE_CODE_PART) {
        /* followed by its data, to the payload's end (checked in wire_check_code) */
        out->data = f->payload + fixed;
        out->data_length = f->header.length - (uint32_t)fixed;
        fixed = f->header.length;
    }
    if (wire_read_strings(f, fixed, strings, out, why) != WIRE_DECODE_OK)
        return WIRE_DECODE_BAD;
    if (wire_check_values(out, why) != WIRE_DECODE_OK)
        return WIRE_DECODE_BAD;
    if (f->header.type == WIRE_HELLO) {
        if (memcmp(out->u.hello.magic, WIRE_MAGIC, 8) != 0) {
            *why = "hello without the jitscope magic";
            return WIRE_DECODE_BAD;
        }
        if (out->u.hello.version < oldest || out->u.hello.version > WIRE_VERSION) {
            *why = "unsupported protocol version";
            return WIRE_DECODE_BAD;
        }
    }
    return WIRE_DECODE_OK;
}

int wire_decode_record(const wire_frame *f, wire_record *out, const char **why)
{
    return wire_decode_any(f, out, WIRE_VERSION, why);
}

int wire_decode_stored_record(const wire_frame *f, wire_record *out, const char **why)
{
    return wire_decode_any(f, out, WIRE_VERSION_STORED_MIN, why);
}

int wire_decode_command(const uint8_t *buf, size_t len, wire_command *out, size_t *consumed,
                        const char **why)
{
    wire_frame f;
    size_t need = 0;
    int rc;

    if (len >= sizeof(wire_frame_header)) {
        memcpy(&f.header, buf, sizeof(f.header));
        if (f.header.length > WIRE_MAX_COMMAND) {
            *why = "command longer than WIRE_MAX_COMMAND";
            return WIRE_DECODE_BAD;
        }
    }
    rc = wire_decode_frame(buf, len, &f, consumed, why);
    if (rc != WIRE_DECODE_OK)
        return rc;
    memset(out, 0, sizeof(*out));
    out->type = f.header.type;
    switch (f.header.type) {
    case WIRE_CMD_DETACH: need = sizeof(out->u.detach); break;
    case WIRE_CMD_PING: need = sizeof(out->u.ping); break;
    case WIRE_CMD_SNAPSHOT: need = sizeof(out->u.snapshot); break;
    case WIRE_CMD_PROFILE_START: need = sizeof(out->u.profile_start); break;
    case WIRE_CMD_PROFILE_STOP: need = 0; break; /* its payload carries nothing yet */
    case WIRE_CMD_TIERS: need = sizeof(out->u.tiers); break;
    case WIRE_CMD_CODE: need = sizeof(out->u.code); break;
    case WIRE_CMD_EXCEPTIONS: need = sizeof(out->u.exceptions); break;
    case WIRE_CMD_ALLOCATIONS: need = sizeof(out->u.allocations); break;
    case WIRE_CMD_CODE_LOOKUP: {
        uint32_t count;
        if (f.header.length < sizeof(uint64_t)) {
            *why = "command payload shorter than its fields";
            return WIRE_DECODE_BAD;
        }
        memcpy(&count, f.payload, sizeof(count));
        if (count == 0 || count > WIRE_CODE_LOOKUP_MAX ||
            f.header.length != sizeof(uint64_t) + (size_t)count * sizeof(uint64_t)) {
            *why = "code lookup command whose length disagrees with its count";
            return WIRE_DECODE_BAD;
        }
        need = f.header.length;
        break;
    }
    default: return WIRE_DECODE_OK;
    }
    if (f.header.length < need) {
        *why = "command payload shorter than its fields";
        return WIRE_DECODE_BAD;
    }
    memcpy(&out->u, f.payload, need);
    return WIRE_DECODE_OK;
}
