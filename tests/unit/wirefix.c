/* wirefix.c -- what the test_wire_* binaries share: frames built by hand from
 * the proto/wire.h structs and strings (u16 byte count + UTF-8), one valid
 * sample of every record type (its hello records.h's rec_hello), and the
 * decoder run on a frame. Nothing here checks. See wirefix.h.
 */
#include "wirefix.h"

#include <stdlib.h>
#include <string.h>

#include "records.h"

/* Writes header + fixed + strings at out (which must be big enough); the header
 * length is the payload actually written plus `extra_len` (may be negative to
 * lie about it). Returns bytes written. */
size_t build_frame_ex(uint8_t *out, const sample *s, uint64_t seq, long extra_len)
{
    wire_frame_header h = {
        .type = s->type, .flags = s->flags, .seq = seq, .time_ns = 1000000007ull * seq};
    size_t pos = HDR;

    memcpy(out + pos, s->fixed, s->fixed_len);
    pos += s->fixed_len;
    for (unsigned i = 0; i < s->nstrings; i++) {
        uint16_t n = (uint16_t)s->str_len[i];
        memcpy(out + pos, &n, 2);
        memcpy(out + pos + 2, s->str[i], s->str_len[i]);
        pos += 2 + s->str_len[i];
    }
    h.length = (uint32_t)((long)(pos - HDR) + extra_len);
    memcpy(out, &h, HDR);
    return pos;
}

size_t frame_size(const sample *s)
{
    size_t n = HDR + s->fixed_len;
    for (unsigned i = 0; i < s->nstrings; i++)
        n += 2 + s->str_len[i];
    return n;
}

/* The frame in its own allocation of exactly its size (ASan sees overreads). */
uint8_t *build_frame(const sample *s, uint64_t seq, size_t *len)
{
    uint8_t *b = malloc(frame_size(s));
    *len = build_frame_ex(b, s, seq, 0);
    return b;
}

uint8_t *copy_of(const uint8_t *p, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    memcpy(c, p, n);
    return c;
}

/* ---- one valid sample of every record type -------------------------------- */

static wire_hello s_hello; /* made by make_samples: records.h's */
static const wire_jit_started s_jit_started = {0x7f0000001000ull, 0x7f00000a0000ull, 38, 0};
static const wire_jit_finished s_jit_finished = {
    0x7f0000001000ull, 0x7f00000a0000ull, 0x7f1234560000ull, 143, 38, 0, 0, WIRE_TIER_1, 0};
static const wire_function_name s_function_name = {0x7f0000001000ull, 0x7f0000200000ull,
                                                   0x06000002u, 0};
static const wire_module_loaded s_module_loaded = {0x7f0000200000ull, 0x7f0000300000ull,
                                                   0x7f5500000000ull, 0, 0};
static const wire_module_unloaded s_module_unloaded = {0x7f0000200000ull};
static const wire_assembly_loaded s_assembly_loaded = {0x7f0000300000ull, 0x7f0000200000ull,
                                                       (int32_t)0x80131040, 0};
static const wire_thread s_thread = {0x7f00000a0000ull, 31337, 0};
const wire_drops s_drops = {{1, 2, 3, 4, 5, 6, 7}, 1000, 4096};
static const wire_catchup s_catchup = {9, 1000, 4, 0, 12500000};
static const wire_detach_status s_detach = {WIRE_DETACH_REFUSED, (int32_t)0x80131367};
const wire_cmd_ping s_pong = {0xC0FFEEull};
const sample_stack_thread s_stack_thread = {
    {3, 0x7f00000a0000ull, 31337, 0, 9000, 2, 0},
    {{0x7f0000001000ull, 0x7f1234560010ull}, {0, 0x7f5500001234ull}}};
const wire_stack_end s_stack_end = {3, 77, WIRE_STACK_SNAPSHOT, 1, 12, 0, 1, 0, 183000, 120000};
const wire_profile_status s_profile_status = {WIRE_PROFILE_RATE, 99000, 24500, 20, 1234,
                                              5678900,           0,     0};
static const wire_gc_started s_gc_started = {0x7, 1};
const wire_gc_finished s_gc_finished = {0};
static const wire_runtime_suspend s_runtime_suspend = {WIRE_SUSPEND_STARTED, 9};
static const wire_tiers_status s_tiers_status = {1, 0, 3};
const wire_agent_cost s_agent_cost = {1000, 85000, {[3] = 600, [6] = 390, [17] = 10}, 7, 2};
const wire_code_version_info s_code_version = {
    7, 0x7f0000001000ull, 0, 0x7f1234560000ull, 0, 300, 0, 1, 300, 10, 10, 3, 0, 0, 0};
const sample_code_part s_code_part = {{7, 1, WIRE_CODE_PART_MAP, 0, 0, 0}, {0x12, 0x10, 0x20}};
const wire_code_end s_code_end = {
    7, 0x7f0000001000ull, 0x7f0000200000ull, 123456, 2, WIRE_CODE_OK, 0, 3, 3, 40, 40, 0x06000002u,
    0};
static const wire_inlining s_inlining = {0x7f0000001000ull, 0x7f0000001040ull, 0x7f00000a0000ull};
const wire_code_search s_code_search = {0x7f0000001000ull, WIRE_SEARCH_FOUND, 0};
const wire_code_range s_code_range = {0x7f1234560040ull, 0x7f0000001000ull, 0x7f1234560000ull, 143,
                                      0};

static const char NAME[] = "Ns.Box<System.Int64>.Get";
static const char PATH[] =
    "/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.0/System.Private.CoreLib.dll";
static const char ASM[] = "System.Private.CoreLib";
static const char UNI[] = "Fa\xC3\xA7"
                          "ade \xE4\xB8\xAD \xF0\x9F\x98\x80"; /* ç 中 😀 */

const wire_exception s_exception = {
    0x7f00000b0000ull, 0x7f0000001000ull, 0x7f1234560043ull, 10, (int32_t)0x80131509, 0x10, 0, 0};
const wire_exception_caught s_exception_caught = {0x7f00000b0000ull, 0x7f0000001040ull};
/* an allocation sample with one frame */
static const struct {
    wire_allocation a;
    wire_stack_frame f;
} s_allocation = {{0x7f00000b0000ull, 0x7f5500010000ull, 1024, 300, WIRE_ALLOC_SAMPLED, 0, 2, 1},
                  {0x7f0000001000ull, 0x7f1234560010ull}};
/* the heap after a collection */
static const wire_gc_heap_stats s_heap_stats = {
    {1000, 2000, 3000, 4000, 5000}, {100, 200, 300, 400, 500}, 64, 3, 90, WIRE_HEAP_HAS_POH, 0};
static const char ALLOC_TYPE[] = "System.Byte[]";
static const wire_exception_counts s_exception_counts = {
    0x7f0000001000ull, 0x7f1234560043ull, 0x7f0000001040ull, 10, 91, 90, 1, 0, 90};
static const char EXC_TYPE[] = "System.InvalidOperationException";
static const char EXC_MESSAGE[] = "Operation is not valid \xE2\x80\x94 here";

sample samples[N_SAMPLES];

void make_samples(void)
{
    s_hello = rec_hello(REC_TOKEN).u.hello;
    sample v[N_SAMPLES] = {
        {"hello", WIRE_HELLO, 0, &s_hello, sizeof(s_hello), 0, {0}, {0}},
        {"jit_started", WIRE_JIT_STARTED, 0, &s_jit_started, sizeof(s_jit_started), 0, {0}, {0}},
        {"jit_finished",
         WIRE_JIT_FINISHED,
         WIRE_FLAG_CATCHUP,
         &s_jit_finished,
         sizeof(s_jit_finished),
         0,
         {0},
         {0}},
        {"function_name",
         WIRE_FUNCTION_NAME,
         WIRE_FLAG_TRUNCATED,
         &s_function_name,
         sizeof(s_function_name),
         1,
         {NAME},
         {sizeof(NAME) - 1}},
        {"module_loaded",
         WIRE_MODULE_LOADED,
         0,
         &s_module_loaded,
         sizeof(s_module_loaded),
         2,
         {PATH, ASM},
         {sizeof(PATH) - 1, sizeof(ASM) - 1}},
        {"module_unloaded",
         WIRE_MODULE_UNLOADED,
         0,
         &s_module_unloaded,
         sizeof(s_module_unloaded),
         0,
         {0},
         {0}},
        {"assembly_loaded",
         WIRE_ASSEMBLY_LOADED,
         0,
         &s_assembly_loaded,
         sizeof(s_assembly_loaded),
         1,
         {ASM},
         {sizeof(ASM) - 1}},
        {"thread_created", WIRE_THREAD_CREATED, 0, &s_thread, sizeof(s_thread), 0, {0}, {0}},
        {"thread_destroyed", WIRE_THREAD_DESTROYED, 0, &s_thread, sizeof(s_thread), 0, {0}, {0}},
        {"thread_os_id", WIRE_THREAD_OS_ID, 0, &s_thread, sizeof(s_thread), 0, {0}, {0}},
        {"thread_name",
         WIRE_THREAD_NAME,
         0,
         &s_thread,
         sizeof(s_thread),
         1,
         {UNI},
         {sizeof(UNI) - 1}},
        {"drops", WIRE_DROPS, 0, &s_drops, sizeof(s_drops), 0, {0}, {0}},
        {"catchup_begin",
         WIRE_CATCHUP_BEGIN,
         WIRE_FLAG_CATCHUP,
         &s_catchup,
         sizeof(s_catchup),
         0,
         {0},
         {0}},
        {"catchup_end",
         WIRE_CATCHUP_END,
         WIRE_FLAG_CATCHUP,
         &s_catchup,
         sizeof(s_catchup),
         0,
         {0},
         {0}},
        {"detach_status", WIRE_DETACH_STATUS, 0, &s_detach, sizeof(s_detach), 0, {0}, {0}},
        {"pong", WIRE_PONG, 0, &s_pong, sizeof(s_pong), 0, {0}, {0}},
        {"stack_thread", WIRE_STACK_THREAD, 0, &s_stack_thread, sizeof(s_stack_thread), 0, {0}, {0}},
        {"stack_end", WIRE_STACK_END, 0, &s_stack_end, sizeof(s_stack_end), 0, {0}, {0}},
        {"profile_status",
         WIRE_PROFILE_STATUS,
         0,
         &s_profile_status,
         sizeof(s_profile_status),
         0,
         {0},
         {0}},
        {"gc_started", WIRE_GC_STARTED, 0, &s_gc_started, sizeof(s_gc_started), 0, {0}, {0}},
        {"gc_finished", WIRE_GC_FINISHED, 0, &s_gc_finished, sizeof(s_gc_finished), 0, {0}, {0}},
        {"runtime_suspend",
         WIRE_RUNTIME_SUSPEND,
         0,
         &s_runtime_suspend,
         sizeof(s_runtime_suspend),
         0,
         {0},
         {0}},
        {"tiers_status", WIRE_TIERS_STATUS, 0, &s_tiers_status, sizeof(s_tiers_status), 0, {0}, {0}},
        {"agent_cost", WIRE_AGENT_COST, 0, &s_agent_cost, sizeof(s_agent_cost), 0, {0}, {0}},
        {"code_version", WIRE_CODE_VERSION, 0, &s_code_version, sizeof(s_code_version), 0, {0}, {0}},
        {"code_part",
         WIRE_CODE_PART,
         0,
         &s_code_part,
         sizeof(wire_code_part) + sizeof(wire_code_map_entry),
         0,
         {0},
         {0}},
        {"code_end", WIRE_CODE_END, 0, &s_code_end, sizeof(s_code_end), 0, {0}, {0}},
        {"inlining", WIRE_INLINING, WIRE_FLAG_DYNAMIC, &s_inlining, sizeof(s_inlining), 0, {0}, {0}},
        {"code_search", WIRE_CODE_SEARCH, 0, &s_code_search, sizeof(s_code_search), 0, {0}, {0}},
        {"code_range", WIRE_CODE_RANGE, 0, &s_code_range, sizeof(s_code_range), 0, {0}, {0}},
        {"exception",
         WIRE_EXCEPTION,
         0,
         &s_exception,
         sizeof(s_exception),
         2,
         {EXC_TYPE, EXC_MESSAGE},
         {sizeof(EXC_TYPE) - 1, sizeof(EXC_MESSAGE) - 1}},
        {"exception_caught",
         WIRE_EXCEPTION_CAUGHT,
         0,
         &s_exception_caught,
         sizeof(s_exception_caught),
         0,
         {0},
         {0}},
        {"allocation",
         WIRE_ALLOCATION,
         0,
         &s_allocation,
         sizeof(s_allocation),
         1,
         {ALLOC_TYPE},
         {sizeof(ALLOC_TYPE) - 1}},
        {"gc_heap_stats", WIRE_GC_HEAP_STATS, 0, &s_heap_stats, sizeof(s_heap_stats), 0, {0}, {0}},
        {"exception_counts",
         WIRE_EXCEPTION_COUNTS,
         0,
         &s_exception_counts,
         sizeof(s_exception_counts),
         1,
         {EXC_TYPE},
         {sizeof(EXC_TYPE) - 1}},
    };
    memcpy(samples, v, sizeof(v));
}

/* Decodes a whole single-frame buffer into a record; returns the record
 * decoder's result (or the frame decoder's when that is not OK). */
int decode_one(const uint8_t *buf, size_t len, wire_record *rec, const char **why)
{
    wire_frame f;
    size_t used = 0;
    int rc = wire_decode_frame(buf, len, &f, &used, why);

    if (rc != WIRE_DECODE_OK)
        return rc;
    return wire_decode_record(&f, rec, why);
}

int bad_with_reason(const uint8_t *buf, size_t len)
{
    wire_record rec;
    const char *why = NULL;
    return decode_one(buf, len, &rec, &why) == WIRE_DECODE_BAD && why && *why;
}

/* The record types the decoder knows, as a bit set (bit t for type t), and
 * how many (*count). Types 1..WIRE_RECORD_TYPE_MAX may have gaps. */
uint64_t known_record_types(unsigned *count)
{
    uint64_t bits = 0;
    unsigned n = 0, strings;

    for (uint16_t t = 1; t <= WIRE_RECORD_TYPE_MAX; t++)
        if (wire_record_fixed(t, &strings)) {
            bits |= 1ull << t;
            n++;
        }
    if (count)
        *count = n;
    return bits;
}

/* Decodes one frame of `type` whose payload is bytes[0..n), in an allocation of
 * exactly the frame's size placed at an odd address (frames are read with
 * memcpy, so UBSan must see no misaligned access). */
int decode_payload_keep(uint16_t type, const void *bytes, size_t n, wire_record *r, uint8_t **keep)
{
    sample s = {"payload", type, 0, bytes, n, 0, {0}, {0}};
    uint8_t *raw = malloc(frame_size(&s) + 1), *buf = raw + 1;
    const char *why = NULL;
    int rc;

    build_frame_ex(buf, &s, 1, 0);
    rc = decode_one(buf, frame_size(&s), r, &why);
    if (rc == WIRE_DECODE_BAD && (!why || !*why))
        rc = 99; /* BAD without a reason: a failure of its own */
    if (keep)
        *keep = raw; /* the record points into it: the caller frees it */
    else
        free(raw);
    return rc;
}

int decode_payload(uint16_t type, const void *bytes, size_t n, wire_record *r)
{
    return decode_payload_keep(type, bytes, n, r, NULL);
}
