/* records.h -- agent records made by hand, for the tests that fold them.
 *
 * One builder per record type, returning a wire_record as wire_decode_record
 * would have made it: the compiler checks that a builder gets its type's
 * payload (a wire_stack_end for rec_stack_end), strings point at the caller's
 * text. rec_apply() gives a record the next sequence number of its session's
 * connection (a hello starts again at 1) and folds it in; rec_feed() does it
 * as the link thread does, through the wire and into storage; rec_frame()
 * writes one as an agent sends it. Times are the target's monotonic clock:
 * REC_MONO is the hello's, so REC_MONO + n is n ns after it; the server's
 * clock is REC_NOW. Static inline only, so a test uses what it needs.
 * Sessions in the registry, and the REST calls on them, are fixtures.h's.
 */
#ifndef JITSCOPE_TEST_RECORDS_H
#define JITSCOPE_TEST_RECORDS_H

#include <stdint.h>
#include <string.h>

#include "persist.h"
#include "session.h"
#include "wire_decode.h"
#include "wire_encode.h"

#define REC_TOKEN "0123456789abcdef0123456789abcdef"
#define REC_NOW 1700000000000000000ll               /* server wall clock */
#define REC_MONO 5000000000ull                      /* target monotonic at hello */
#define REC_REAL 1699999999000000000ull             /* target realtime at hello */
#define REC_OFFSET ((int64_t)(REC_REAL - REC_MONO)) /* what the hello makes of them */

static const char *rec_why; /* why the last rec_apply or rec_feed was refused */

/* The sequence number r takes next on s's connection. */
static inline uint64_t rec_next_seq(const session *s, const wire_record *r)
{
    return r->type == WIRE_HELLO ? 1 : s->last_seq + 1;
}

/* Folds r into s with the next sequence number; 0, or -1 with rec_why. */
static inline int rec_apply(session *s, wire_record r)
{
    r.seq = rec_next_seq(s, &r);
    rec_why = NULL;
    return session_apply(s, &r, REC_NOW, &rec_why);
}

/* r framed as an agent sends it, into buf (room for a header and
 * WIRE_MAX_PAYLOAD); returns its size. */
static inline size_t rec_frame(const wire_record *r, uint8_t *buf)
{
    unsigned strings, i;
    size_t fixed = wire_record_fixed(r->type, &strings);
    wire_frame_header h = {
        .type = r->type, .flags = r->flags, .seq = r->seq, .time_ns = r->time_ns};
    wire_text text[2];
    const void *extra = NULL;
    uint32_t extra_length = 0;

    for (i = 0; i < strings; i++)
        text[i] = (wire_text){.utf8 = r->strings[i].text, .length = r->strings[i].length};
    if (r->type == WIRE_JIT_FINISHED) {
        extra = r->code_versions;
        extra_length = r->code_version_count * (uint32_t)sizeof(wire_code_version);
    } else if (r->type == WIRE_STACK_THREAD) {
        extra = r->stack_frames;
        extra_length = r->u.stack_thread.frame_count * (uint32_t)sizeof(wire_stack_frame);
    } else if (r->type == WIRE_EXCEPTION) {
        extra = r->stack_frames;
        extra_length = r->u.exception.frame_count * (uint32_t)sizeof(wire_stack_frame);
    } else if (r->type == WIRE_ALLOCATION) {
        extra = r->stack_frames;
        extra_length = r->u.allocation.frame_count * (uint32_t)sizeof(wire_stack_frame);
    } else if (r->type == WIRE_CODE_PART) {
        extra = r->data;
        extra_length = r->data_length;
    }
    return wire_encode(buf, &h, &r->u, (uint32_t)fixed, extra, extra_length, text, strings);
}

/* As the link thread does: r is given sequence number seq, framed, decoded
 * again, folded into s, and its frame handed to storage. */
static inline int rec_feed_seq(session *s, wire_record r, uint64_t seq)
{
    static uint8_t buf[sizeof(wire_frame_header) + WIRE_MAX_PAYLOAD];
    wire_frame f;
    wire_record back;
    size_t n, used;
    int rc;

    r.seq = seq;
    n = rec_frame(&r, buf);
    rec_why = NULL;
    if (wire_decode_frame(buf, n, &f, &used, &rec_why) != WIRE_DECODE_OK ||
        wire_decode_record(&f, &back, &rec_why) != WIRE_DECODE_OK)
        return -1;
    s->bytes += used;
    rc = session_apply(s, &back, REC_NOW, &rec_why);
    if (rc != 0) /* -1, or SESSION_REFUSED: not in its log either */
        return rc;
    persist_frames(s, REC_NOW, buf, n);
    return 0;
}

/* rec_feed_seq with the next sequence number of s's connection. */
static inline int rec_feed(session *s, wire_record r)
{
    return rec_feed_seq(s, r, rec_next_seq(s, &r));
}

/* A string of the record (NULL: empty). */
static inline wire_string rec_string(const char *text)
{
    return (wire_string){text ? text : "", text ? (uint16_t)strlen(text) : 0};
}

/* ---- one builder per record type ---------------------------------------- */

/* A startup agent of .NET 10.0.12.3, pid 4242, parent 77, an 8 MiB buffer. */
static inline wire_record rec_hello(const char *token)
{
    wire_record r = {.type = WIRE_HELLO, .time_ns = REC_MONO};

    memcpy(r.u.hello.magic, WIRE_MAGIC, 8);
    r.u.hello.version = WIRE_VERSION;
    r.u.hello.pid = 4242;
    r.u.hello.mode = WIRE_MODE_STARTUP;
    r.u.hello.runtime_type = 2;
    r.u.hello.clr_instance_id = 5;
    r.u.hello.major = 10, r.u.hello.minor = 0, r.u.hello.build = 12, r.u.hello.qfe = 3;
    r.u.hello.monotonic_ns = REC_MONO;
    r.u.hello.realtime_ns = REC_REAL;
    memcpy(r.u.hello.token, token, WIRE_TOKEN_LEN);
    r.u.hello.ring_bytes = 8u << 20;
    r.u.hello.parent_pid = 77;
    return r;
}

static inline wire_record rec_jit_started(uint64_t fid, uint64_t tid, uint64_t t)
{
    return (wire_record){.type = WIRE_JIT_STARTED,
                         .time_ns = t,
                         .u.jit_started = (wire_jit_started){fid, tid, 0, 0}};
}

/* A compilation of `size` native bytes at `code`, 40 bytes of IL, tier unknown. */
static inline wire_record rec_jit_finished(uint64_t fid, uint64_t tid, uint64_t code, uint32_t size,
                                           uint64_t t, uint16_t flags)
{
    return (wire_record){
        .type = WIRE_JIT_FINISHED,
        .flags = flags,
        .time_ns = t,
        .u.jit_finished = (wire_jit_finished){fid, tid, code, size, 40, 0, 0, 0, 0}};
}

static inline wire_record rec_function_name(uint64_t fid, uint64_t module_id, const char *name,
                                            uint16_t flags)
{
    return (wire_record){.type = WIRE_FUNCTION_NAME,
                         .flags = flags,
                         .time_ns = REC_MONO + 1,
                         .u.function_name = (wire_function_name){fid, module_id, 0x06000001u, 0},
                         .strings = {rec_string(name)},
                         .string_count = 1};
}

/* assembly NULL: a module without an assembly name. */
static inline wire_record rec_module_loaded(uint64_t mid, const char *path, const char *assembly,
                                            uint16_t flags, uint64_t t)
{
    return (wire_record){
        .type = WIRE_MODULE_LOADED,
        .flags = flags,
        .time_ns = t,
        .u.module_loaded = (wire_module_loaded){mid, mid + 0x100000, mid << 8, 0, 0},
        .strings = {rec_string(path), rec_string(assembly)},
        .string_count = 2};
}

static inline wire_record rec_module_unloaded(uint64_t mid, uint64_t t)
{
    return (wire_record){
        .type = WIRE_MODULE_UNLOADED, .time_ns = t, .u.module_unloaded.module_id = mid};
}

static inline wire_record rec_assembly_loaded(uint64_t aid, uint64_t manifest_module,
                                              const char *name, uint64_t t)
{
    return (wire_record){.type = WIRE_ASSEMBLY_LOADED,
                         .time_ns = t,
                         .u.assembly_loaded = (wire_assembly_loaded){aid, manifest_module, 0, 0},
                         .strings = {rec_string(name)},
                         .string_count = 1};
}

/* THREAD_CREATED, _DESTROYED, _OS_ID or _NAME (name only for the last). */
static inline wire_record rec_thread(uint16_t type, uint64_t tid, uint32_t os, uint16_t flags,
                                     const char *name, uint64_t t)
{
    wire_record r = {.type = type, .flags = flags, .time_ns = t};

    r.u.thread = (wire_thread){tid, os, 0};
    if (type == WIRE_THREAD_NAME) {
        r.strings[0] = rec_string(name);
        r.string_count = 1;
    }
    return r;
}

static inline wire_record rec_drops(wire_drops d, uint64_t t)
{
    return (wire_record){.type = WIRE_DROPS, .time_ns = t, .u.drops = d};
}

/* CATCHUP_BEGIN or CATCHUP_END. */
static inline wire_record rec_catchup(uint16_t type, wire_catchup c, uint64_t t)
{
    return (wire_record){.type = type, .time_ns = t, .u.catchup = c};
}

static inline wire_record rec_detach(uint32_t state, int32_t hr)
{
    return (wire_record){.type = WIRE_DETACH_STATUS,
                         .time_ns = REC_MONO + 9,
                         .u.detach = (wire_detach_status){state, hr}};
}

static inline wire_record rec_pong(uint64_t cookie, uint64_t t)
{
    return (wire_record){.type = WIRE_PONG, .time_ns = t, .u.pong.cookie = cookie};
}

/* One thread's walk: th.frame_count frames at `frames`, leaf first. */
static inline wire_record rec_stack_thread(wire_stack_thread th, const wire_stack_frame *frames,
                                           uint64_t t)
{
    return (wire_record){
        .type = WIRE_STACK_THREAD, .time_ns = t, .u.stack_thread = th, .stack_frames = frames};
}

static inline wire_record rec_stack_end(wire_stack_end e, uint64_t t)
{
    return (wire_record){.type = WIRE_STACK_END, .time_ns = t, .u.stack_end = e};
}

static inline wire_record rec_profile_status(wire_profile_status p, uint64_t t)
{
    return (wire_record){.type = WIRE_PROFILE_STATUS, .time_ns = t, .u.profile_status = p};
}

static inline wire_record rec_gc_started(uint32_t generations, uint32_t reason, uint64_t t)
{
    return (wire_record){.type = WIRE_GC_STARTED,
                         .time_ns = t,
                         .u.gc_started = (wire_gc_started){generations, reason}};
}

static inline wire_record rec_gc_finished(uint64_t t)
{
    return (wire_record){.type = WIRE_GC_FINISHED, .time_ns = t};
}

/* The heap after a collection: generation g's size (g + 1) * unit, its
 * survivors (g + 1) * unit / 10. */
static inline wire_record rec_gc_heap_stats(uint64_t unit, uint64_t t)
{
    wire_record r = {.type = WIRE_GC_HEAP_STATS, .time_ns = t};

    for (unsigned g = 0; g < WIRE_HEAP_GENERATIONS; g++) {
        r.u.heap_stats.size[g] = (g + 1) * unit;
        r.u.heap_stats.promoted[g] = (g + 1) * unit / 10;
    }
    r.u.heap_stats.flags = WIRE_HEAP_HAS_POH;
    return r;
}

static inline wire_record rec_runtime_suspend(uint32_t phase, uint32_t reason, uint64_t t)
{
    return (wire_record){.type = WIRE_RUNTIME_SUSPEND,
                         .time_ns = t,
                         .u.runtime_suspend = (wire_runtime_suspend){phase, reason}};
}

static inline wire_record rec_tiers_status(uint32_t enabled, int32_t hr, uint64_t lost, uint64_t t)
{
    return (wire_record){.type = WIRE_TIERS_STATUS,
                         .time_ns = t,
                         .u.tiers_status = (wire_tiers_status){enabled, hr, lost}};
}

static inline wire_record rec_agent_cost(wire_agent_cost c, uint64_t t)
{
    return (wire_record){.type = WIRE_AGENT_COST, .time_ns = t, .u.agent_cost = c};
}

/* One native code version of the reply to code request v.request_id. */
static inline wire_record rec_code_version(wire_code_version_info v, uint64_t t)
{
    return (wire_record){.type = WIRE_CODE_VERSION, .time_ns = t, .u.code_version = v};
}

/* A piece of a code reply: p.kind's `length` bytes at data. */
static inline wire_record rec_code_part(wire_code_part p, const void *data, uint32_t length,
                                        uint64_t t)
{
    return (wire_record){
        .type = WIRE_CODE_PART, .time_ns = t, .u.code_part = p, .data = data, .data_length = length};
}

static inline wire_record rec_code_end(wire_code_end e, uint64_t t)
{
    return (wire_record){.type = WIRE_CODE_END, .time_ns = t, .u.code_end = e};
}

static inline wire_record rec_inlining(uint64_t caller, uint64_t callee, uint64_t tid, uint64_t t)
{
    return (wire_record){
        .type = WIRE_INLINING, .time_ns = t, .u.inlining = (wire_inlining){caller, callee, tid}};
}

/* result: a wire_code_search_result. */
static inline wire_record rec_code_search(uint64_t fid, uint32_t result, uint64_t t)
{
    return (wire_record){.type = WIRE_CODE_SEARCH,
                         .time_ns = t,
                         .u.code_search = (wire_code_search){fid, result, 0}};
}

/* An exception of `type` thrown by fid at IL offset il on thread tid, with
 * `message` and n frames of its stack (0: not sampled). */
static inline wire_record rec_exception(uint64_t tid, uint64_t fid, uint32_t il, const char *type,
                                        const char *message, const wire_stack_frame *frames,
                                        uint32_t n, uint64_t t)
{
    wire_record r = {.type = WIRE_EXCEPTION, .time_ns = t, .string_count = 2};

    r.u.exception = (wire_exception){.thread_id = tid,
                                     .function_id = fid,
                                     .ip = fid + 0x40 + il,
                                     .il_offset = il,
                                     .hresult = (int32_t)0x80131509,
                                     .frame_count = n};
    r.strings[0] = rec_string(type);
    r.strings[1] = rec_string(message);
    r.stack_frames = n ? frames : NULL;
    r.stack_frame_count = n;
    return r;
}

/* Exceptions of `type` counted by the agent at fid's IL offset il (its
 * address as rec_exception's): thrown, caught, replaced, the change in open
 * ones, and catches by method catcher (0: none). */
static inline wire_record rec_exception_counts(uint64_t fid, uint32_t il, const char *type,
                                               uint32_t thrown, uint32_t caught, uint32_t replaced,
                                               int32_t open, uint64_t catcher, uint32_t catches,
                                               uint64_t t)
{
    wire_record r = {.type = WIRE_EXCEPTION_COUNTS, .time_ns = t, .string_count = 1};

    r.u.exception_counts = (wire_exception_counts){.function_id = fid,
                                                   .ip = fid + 0x40 + il,
                                                   .catcher_id = catcher,
                                                   .il_offset = il,
                                                   .thrown = thrown,
                                                   .caught = caught,
                                                   .replaced = replaced,
                                                   .open = open,
                                                   .catches = catches};
    r.strings[0] = rec_string(type);
    return r;
}

/* A catch clause of method fid entered for thread tid's exception. */
static inline wire_record rec_exception_caught(uint64_t tid, uint64_t fid, uint64_t t)
{
    return (wire_record){.type = WIRE_EXCEPTION_CAUGHT,
                         .time_ns = t,
                         .u.exception_caught = (wire_exception_caught){tid, fid}};
}

/* An allocation sample of `type` (size bytes; weight: SampledByteOffset or the
 * tick's bytes, as source says) on thread tid, with n frames of its stack;
 * unsent: the samples the agent did not send before it. */
static inline wire_record rec_allocation(uint64_t tid, const char *type, uint64_t size,
                                         uint64_t weight, uint32_t source, uint32_t unsent,
                                         const wire_stack_frame *frames, uint32_t n, uint64_t t)
{
    wire_record r = {.type = WIRE_ALLOCATION, .time_ns = t, .string_count = 1};

    r.u.allocation = (wire_allocation){.thread_id = tid,
                                       .type_id = 0x7f5500010000ull,
                                       .object_size = size,
                                       .weight = weight,
                                       .source = source,
                                       .unsent = unsent,
                                       .frame_count = n};
    r.strings[0] = rec_string(type);
    r.stack_frames = n ? frames : NULL;
    r.stack_frame_count = n;
    return r;
}

/* A record of any type with an all-zero payload (records the server must
 * take whatever their content, or refuse). */
static inline wire_record rec_empty(uint16_t type, uint64_t t)
{
    return (wire_record){.type = type, .time_ns = t};
}

/* ---- sessions ----------------------------------------------------------- */

/* A new session of `run` mode with the test token, before its hello. */
static inline session *rec_session(int id)
{
    return session_new(id, SESSION_MODE_RUN, 999, "dotnet app.dll", REC_TOKEN);
}

/* A new session of `run` mode with the test token, its hello folded in. */
static inline session *rec_live_session(int id)
{
    session *s = rec_session(id);

    if (s)
        rec_apply(s, rec_hello(REC_TOKEN));
    return s;
}

#endif
