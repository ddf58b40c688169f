/* test_wire.c -- unit tests for proto/wire_decode.c and proto/wire_encode.c.
 *
 * Frames are built by hand from the proto/wire.h structs and strings (u16 byte
 * count + UTF-8). Covered: every record type round-trips (header, fixed part,
 * strings); every strict prefix of a valid frame is NEED_MORE; BAD for a length
 * over WIRE_MAX_PAYLOAD, unknown types, payloads shorter than the fixed part, a
 * missing or overlong string length, trailing bytes, invalid UTF-8 (overlong,
 * surrogate, truncated, > U+10FFFF), a hello with bad magic or version;
 * utf8_valid against a table and against the agent's utf8_sanitize; the
 * stack, profile and timeline records: frame_count bounded by
 * WIRE_STACK_MAX_FRAMES and equal to what the payload holds, frames read back
 * from an unaligned buffer, stack kinds, thread counts, profile states, rates
 * and budgets, suspension phases and snapshot ids checked, runtime-given
 * labels (GC and suspension reasons, generation bits) passed through; and a
 * deterministic garbage loop (200k random and mutated buffers, each in its own
 * exact-size allocation so ASan sees any overread) that must never crash and
 * never report more bytes consumed than it was given; a sequence number
 * stamped into an encoded frame gives the frame encoded with it.
 * Build: make build/tests/test_wire && build/tests/test_wire
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "utf.h"
#include "wire_decode.h"
#include "wire_encode.h"

/* ---- building frames ---------------------------------------------------- */

typedef struct sample {
    const char *what;
    uint16_t type, flags;
    const void *fixed;
    size_t fixed_len;
    unsigned nstrings;
    const char *str[2];
    size_t str_len[2];
} sample;

#define HDR sizeof(wire_frame_header)

/* Writes header + fixed + strings at out (which must be big enough); the header
 * length is the payload actually written plus `extra_len` (may be negative to
 * lie about it). Returns bytes written. */
static size_t build_frame_ex(uint8_t *out, const sample *s, uint64_t seq, long extra_len)
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

static size_t frame_size(const sample *s)
{
    size_t n = HDR + s->fixed_len;
    for (unsigned i = 0; i < s->nstrings; i++)
        n += 2 + s->str_len[i];
    return n;
}

/* The frame in its own allocation of exactly its size (ASan sees overreads). */
static uint8_t *build_frame(const sample *s, uint64_t seq, size_t *len)
{
    uint8_t *b = malloc(frame_size(s));
    *len = build_frame_ex(b, s, seq, 0);
    return b;
}

static uint8_t *copy_of(const uint8_t *p, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    memcpy(c, p, n);
    return c;
}

/* ---- one valid sample of every record type -------------------------------- */

static const char TOKEN[] = "0123456789abcdef0123456789ABCDEF";

static wire_hello hello_fixed(void)
{
    wire_hello h;

    memset(&h, 0, sizeof(h));
    memcpy(h.magic, WIRE_MAGIC, 8);
    h.version = WIRE_VERSION;
    h.pid = 4242;
    h.mode = WIRE_MODE_ATTACH;
    h.runtime_type = 2;
    h.clr_instance_id = 7;
    h.major = 10, h.minor = 0, h.build = 12, h.qfe = 3;
    h.monotonic_ns = 123456789ull;
    h.realtime_ns = 1700000000123456789ull;
    memcpy(h.token, TOKEN, WIRE_TOKEN_LEN);
    h.ring_bytes = 8u << 20;
    return h;
}

static wire_hello s_hello;
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
static const wire_drops s_drops = {{1, 2, 3, 4, 5, 6, 7}, 1000, 4096};
static const wire_catchup s_catchup = {9, 1000, 4, 0, 12500000};
static const wire_detach_status s_detach = {WIRE_DETACH_REFUSED, (int32_t)0x80131367};
static const wire_cmd_ping s_pong = {0xC0FFEEull};
/* a thread of a snapshot with two frames (a managed one, a native run) */
static struct {
    wire_stack_thread t;
    wire_stack_frame f[2];
} s_stack_thread = {{3, 0x7f00000a0000ull, 31337, 0, 9000, 2, 0},
                    {{0x7f0000001000ull, 0x7f1234560010ull}, {0, 0x7f5500001234ull}}};
static const wire_stack_end s_stack_end = {3,      77,    WIRE_STACK_SNAPSHOT, 1, 12, 0, 1, 0,
                                           183000, 120000};
static const wire_profile_status s_profile_status = {WIRE_PROFILE_RATE, 99000, 24500, 20, 1234,
                                                     5678900,           0,     0};
static const wire_gc_started s_gc_started = {0x7, 1};
static const wire_gc_finished s_gc_finished = {0};
static const wire_runtime_suspend s_runtime_suspend = {WIRE_SUSPEND_STARTED, 9};
static const wire_tiers_status s_tiers_status = {1, 0, 3};
static const wire_agent_cost s_agent_cost = {1000, 85000, {[3] = 600, [6] = 390, [17] = 10}, 7, 2};
static const wire_code_version_info s_code_version = {
    7, 0x7f0000001000ull, 0, 0x7f1234560000ull, 0, 300, 0, 1, 300, 10, 10, 3, 0, 0, 0};
/* a code part: one IL-to-native map entry */
static const struct {
    wire_code_part p;
    wire_code_map_entry e;
} s_code_part = {{7, 1, WIRE_CODE_PART_MAP, 0, 0, 0}, {0x12, 0x10, 0x20}};
static const wire_code_end s_code_end = {
    7, 0x7f0000001000ull, 0x7f0000200000ull, 123456, 2, WIRE_CODE_OK, 0, 3, 3, 40, 40, 0x06000002u,
    0};
static const wire_inlining s_inlining = {0x7f0000001000ull, 0x7f0000001040ull, 0x7f00000a0000ull};
static const wire_code_search s_code_search = {0x7f0000001000ull, WIRE_SEARCH_FOUND, 0};
static const wire_code_range s_code_range = {0x7f1234560040ull, 0x7f0000001000ull,
                                             0x7f1234560000ull, 143, 0};

static const wire_exception s_exception = {
    0x7f00000b0000ull, 0x7f0000001000ull, 0x7f1234560043ull, 10, (int32_t)0x80131509, 0x10, 0, 0};
static const wire_exception_caught s_exception_caught = {0x7f00000b0000ull, 0x7f0000001040ull};
static const char EXC_TYPE[] = "System.InvalidOperationException";
static const char EXC_MESSAGE[] = "Operation is not valid \xE2\x80\x94 here";

static const char NAME[] = "Ns.Box<System.Int64>.Get";
static const char PATH[] =
    "/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.0/System.Private.CoreLib.dll";
static const char ASM[] = "System.Private.CoreLib";
static const char UNI[] = "Fa\xC3\xA7"
                          "ade \xE4\xB8\xAD \xF0\x9F\x98\x80"; /* ç 中 😀 */

#define N_SAMPLES 32
static sample samples[N_SAMPLES];

static void make_samples(void)
{
    s_hello = hello_fixed();
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
    };
    memcpy(samples, v, sizeof(v));
}

/* Decodes a whole single-frame buffer into a record; returns the record
 * decoder's result (or the frame decoder's when that is not OK). */
static int decode_one(const uint8_t *buf, size_t len, wire_record *rec, const char **why)
{
    wire_frame f;
    size_t used = 0;
    int rc = wire_decode_frame(buf, len, &f, &used, why);

    if (rc != WIRE_DECODE_OK)
        return rc;
    return wire_decode_record(&f, rec, why);
}

static int bad_with_reason(const uint8_t *buf, size_t len)
{
    wire_record rec;
    const char *why = NULL;
    return decode_one(buf, len, &rec, &why) == WIRE_DECODE_BAD && why && *why;
}

/* The record types the decoder knows, as a bit set (bit t for type t), and
 * how many (*count). Types 1..WIRE_RECORD_TYPE_MAX may have gaps. */
static uint64_t known_record_types(unsigned *count)
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

/* ---- tests ---------------------------------------------------------------- */

TEST(round_trip_every_type)
{
    uint64_t types_seen = 0;

    for (int i = 0; i < N_SAMPLES; i++) {
        const sample *s = &samples[i];
        size_t len, used = 0;
        uint8_t *buf = build_frame(s, 1000 + (uint64_t)i, &len);
        wire_frame f;
        wire_record r;
        const char *why = NULL;
        int ok;

        ok = CHECK(wire_decode_frame(buf, len, &f, &used, &why) == WIRE_DECODE_OK,
                   "%s: frame decodes", s->what);
        if (ok) {
            CHECK(used == len && f.payload == buf + HDR && f.header.length == len - HDR,
                  "%s: consumed the whole frame, payload after the header", s->what);
            CHECK(f.header.type == s->type && f.header.flags == s->flags &&
                      f.header.seq == 1000 + (uint64_t)i &&
                      f.header.time_ns == 1000000007ull * (1000 + (uint64_t)i),
                  "%s: header fields", s->what);
            ok = CHECK(wire_decode_record(&f, &r, &why) == WIRE_DECODE_OK,
                       "%s: record decodes (%s)", s->what, why ? why : "");
        }
        if (ok) {
            int strings_ok = r.string_count == s->nstrings;
            for (unsigned k = 0; strings_ok && k < s->nstrings; k++)
                strings_ok = r.strings[k].length == s->str_len[k] &&
                             memcmp(r.strings[k].text, s->str[k], s->str_len[k]) == 0 &&
                             (const uint8_t *)r.strings[k].text >= f.payload &&
                             (const uint8_t *)r.strings[k].text + r.strings[k].length <=
                                 f.payload + f.header.length;
            CHECK(r.type == s->type && r.flags == s->flags && r.seq == f.header.seq &&
                      r.time_ns == f.header.time_ns,
                  "%s: record header fields", s->what);
            /* a stack thread's fixed part is followed by its frames, a code part's by data */
            size_t fixed_part = s->type == WIRE_STACK_THREAD ? sizeof(wire_stack_thread)
                                : s->type == WIRE_CODE_PART  ? sizeof(wire_code_part)
                                                             : s->fixed_len;
            if (s->type == WIRE_CODE_PART)
                CHECK(r.data == f.payload + sizeof(wire_code_part) &&
                          r.data_length == sizeof(wire_code_map_entry) &&
                          memcmp(r.data, &s_code_part.e, sizeof(s_code_part.e)) == 0,
                      "code_part: its data points into the payload");
            CHECK(memcmp(&r.u, s->fixed, fixed_part) == 0, "%s: fixed part round-trips", s->what);
            if (s->type == WIRE_STACK_THREAD)
                CHECK(r.stack_frames == f.payload + sizeof(wire_stack_thread) &&
                          memcmp(&(wire_stack_frame[2]){wire_record_frame(&r, 0),
                                                        wire_record_frame(&r, 1)},
                                 s_stack_thread.f, sizeof(s_stack_thread.f)) == 0,
                      "stack_thread: both frames read back");
            CHECK(strings_ok, "%s: %u string(s) round-trip, pointing into the payload", s->what,
                  s->nstrings);
            types_seen |= 1ull << s->type;
        }
        free(buf);
    }
    CHECK(types_seen == known_record_types(NULL), "all %d record types (1..%d) round-tripped",
          N_SAMPLES, WIRE_RECORD_TYPE_MAX);
}

TEST(empty_strings_and_longest_string)
{
    static char big[WIRE_MAX_STRING + 1];
    sample s = samples[4]; /* module_loaded, two strings */
    wire_record r;
    const char *why = NULL;
    size_t len;
    uint8_t *buf;

    s.str[0] = "", s.str_len[0] = 0;
    s.str[1] = "", s.str_len[1] = 0;
    buf = build_frame(&s, 1, &len);
    CHECK(decode_one(buf, len, &r, &why) == WIRE_DECODE_OK && r.string_count == 2 &&
              r.strings[0].length == 0 && r.strings[1].length == 0,
          "two empty strings decode");
    free(buf);

    memset(big, 'x', sizeof(big));
    s = samples[3]; /* function_name */
    s.str[0] = big, s.str_len[0] = WIRE_MAX_STRING;
    buf = build_frame(&s, 1, &len);
    CHECK(decode_one(buf, len, &r, &why) == WIRE_DECODE_OK &&
              r.strings[0].length == WIRE_MAX_STRING,
          "a string of exactly WIRE_MAX_STRING bytes decodes");
    free(buf);
    s.str_len[0] = WIRE_MAX_STRING + 1;
    buf = build_frame(&s, 1, &len);
    CHECK(bad_with_reason(buf, len), "a string of WIRE_MAX_STRING + 1 bytes is BAD");
    free(buf);
}

TEST(every_strict_prefix_needs_more)
{
    for (int i = 0; i < N_SAMPLES; i++) {
        size_t len, bad = 0;
        uint8_t *buf = build_frame(&samples[i], 5, &len);

        for (size_t n = 0; n < len; n++) {
            uint8_t *p = copy_of(buf, n);
            wire_frame f;
            size_t used = 12345;
            const char *why = NULL;

            if (wire_decode_frame(p, n, &f, &used, &why) != WIRE_DECODE_NEED_MORE || used != 12345)
                bad++;
            free(p);
        }
        CHECK(bad == 0, "%s: all %zu strict prefixes are NEED_MORE (%zu were not)", samples[i].what,
              len, bad);
        free(buf);
    }
}

TEST(frames_back_to_back)
{
    uint8_t stream[4096];
    size_t total = 0, off = 0;
    int n = 0, ok = 1;

    for (int i = 0; i < N_SAMPLES; i++)
        total += build_frame_ex(stream + total, &samples[i], (uint64_t)i + 1, 0);
    for (;;) {
        wire_frame f;
        wire_record r;
        size_t used;
        const char *why = NULL;
        int rc = wire_decode_frame(stream + off, total - off, &f, &used, &why);

        if (rc != WIRE_DECODE_OK)
            break;
        ok &= wire_decode_record(&f, &r, &why) == WIRE_DECODE_OK && r.seq == (uint64_t)n + 1 &&
              r.type == samples[n].type;
        off += used;
        n++;
    }
    CHECK(n == N_SAMPLES && off == total && ok,
          "%d frames in one buffer decode one after another, in order (%d decoded)", N_SAMPLES, n);
}

TEST(length_limit)
{
    uint8_t hdr[HDR];
    wire_frame_header h = {.type = WIRE_DROPS, .length = WIRE_MAX_PAYLOAD + 1};
    wire_frame f;
    size_t used;
    const char *why = NULL;
    uint8_t *big;

    memcpy(hdr, &h, HDR);
    CHECK(wire_decode_frame(hdr, HDR, &f, &used, &why) == WIRE_DECODE_BAD && why,
          "length WIRE_MAX_PAYLOAD + 1 is BAD as soon as the header is there");
    h.length = UINT32_MAX;
    memcpy(hdr, &h, HDR);
    why = NULL;
    CHECK(wire_decode_frame(hdr, HDR, &f, &used, &why) == WIRE_DECODE_BAD && why,
          "length UINT32_MAX is BAD");
    h.length = WIRE_MAX_PAYLOAD;
    memcpy(hdr, &h, HDR);
    CHECK(wire_decode_frame(hdr, HDR, &f, &used, &why) == WIRE_DECODE_NEED_MORE,
          "length WIRE_MAX_PAYLOAD with only the header: NEED_MORE");
    big = calloc(1, HDR + WIRE_MAX_PAYLOAD);
    memcpy(big, &h, HDR);
    CHECK(wire_decode_frame(big, HDR + WIRE_MAX_PAYLOAD, &f, &used, &why) == WIRE_DECODE_OK &&
              used == HDR + WIRE_MAX_PAYLOAD,
          "a frame of exactly WIRE_MAX_PAYLOAD payload bytes is OK");
    CHECK(wire_decode_record(&f, &(wire_record){0}, &why) == WIRE_DECODE_BAD,
          "... but a drops record that long has trailing bytes: BAD");
    free(big);
}

TEST(unknown_types)
{
    static const uint16_t types[] = {
        0, WIRE_RECORD_TYPE_MAX + 1, 99, WIRE_CMD_DETACH, WIRE_CMD_PING, 0x7FFF, 0xFFFF};

    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        sample s = {"unknown", types[i], 0, &s_pong, sizeof(s_pong), 0, {0}, {0}};
        size_t len;
        uint8_t *buf = build_frame(&s, 1, &len);
        wire_frame f;
        size_t used;
        const char *why = NULL;

        CHECK(wire_decode_frame(buf, len, &f, &used, &why) == WIRE_DECODE_OK,
              "type %u: the frame layer does not judge types", types[i]);
        CHECK(bad_with_reason(buf, len), "type %u: the record is BAD", types[i]);
        free(buf);
    }
}

TEST(payload_shorter_than_fixed_part)
{
    for (int i = 0; i < N_SAMPLES; i++) {
        sample s = samples[i];
        size_t len, bad = 0;

        s.nstrings = 0;
        for (size_t cut = 0; cut < samples[i].fixed_len; cut++) {
            uint8_t *buf;
            s.fixed_len = cut;
            buf = build_frame(&s, 1, &len);
            /* the one shorter hello that is valid: an older agent's (next test) */
            bad += bad_with_reason(buf, len) || (s.type == WIRE_HELLO && cut == WIRE_HELLO_BASE);
            free(buf);
        }
        CHECK(bad == samples[i].fixed_len,
              "%s: all %zu payloads shorter than the fixed part are BAD", samples[i].what,
              samples[i].fixed_len);
    }
}

TEST(hello_of_an_older_agent)
{
    wire_hello h = hello_fixed();
    sample s = {"old hello", WIRE_HELLO, 0, &h, WIRE_HELLO_BASE, 0, {0}, {0}};
    wire_record r;
    const char *why = NULL;
    size_t len;
    uint8_t *buf;

    h.agent_flags = WIRE_AGENT_FLOOR, h.event_mask = 0x1234, h.event_mask_high = 0x90;
    buf = build_frame(&s, 1, &len); /* only its first WIRE_HELLO_BASE bytes go out */
    CHECK(decode_one(buf, len, &r, &why) == WIRE_DECODE_OK, "a hello of %u bytes decodes (%s)",
          WIRE_HELLO_BASE, why ? why : "");
    CHECK(r.u.hello.pid == h.pid && r.u.hello.ring_bytes == h.ring_bytes &&
              memcmp(r.u.hello.token, h.token, WIRE_TOKEN_LEN) == 0,
          "its fields are read");
    CHECK(r.u.hello.agent_flags == 0 && r.u.hello.event_mask == 0 && r.u.hello.event_mask_high == 0,
          "the fields it does not have read as 0 (not a floor, masks not known)");
    free(buf);
    s.fixed_len = sizeof(h); /* the whole of today's hello: its fields come through */
    buf = build_frame(&s, 1, &len);
    CHECK(decode_one(buf, len, &r, &why) == WIRE_DECODE_OK &&
              r.u.hello.agent_flags == WIRE_AGENT_FLOOR && r.u.hello.event_mask == 0x1234 &&
              r.u.hello.event_mask_high == 0x90,
          "a whole hello carries the agent's flags and masks");
    free(buf);
}

TEST(trailing_bytes)
{
    for (int i = 0; i < N_SAMPLES; i++) {
        size_t len = frame_size(&samples[i]);
        uint8_t *buf = calloc(1, len + 3);
        int all = 1;

        for (long extra = 1; extra <= 3; extra++) {
            build_frame_ex(buf, &samples[i], 1, extra); /* header claims `extra` more bytes */
            all &= bad_with_reason(buf, len + (size_t)extra);
        }
        CHECK(all, "%s: 1, 2 or 3 bytes after the record are BAD", samples[i].what);
        free(buf);
    }
}

TEST(string_lengths)
{
    const sample *fn = &samples[3], *mod = &samples[4];
    uint8_t buf[512];
    size_t len;
    uint16_t n;

    /* missing length: payload ends right after the fixed part, or one byte later */
    len = build_frame_ex(
        buf, &(sample){"fn", WIRE_FUNCTION_NAME, 0, fn->fixed, fn->fixed_len, 0, {0}, {0}}, 1, 0);
    CHECK(bad_with_reason(buf, len), "function_name without its string length is BAD");
    len = build_frame_ex(
        buf, &(sample){"fn", WIRE_FUNCTION_NAME, 0, fn->fixed, fn->fixed_len, 0, {0}, {0}}, 1, 1);
    buf[len++] = 3;
    CHECK(bad_with_reason(buf, len), "function_name with half a string length is BAD");

    /* length past the end: say 10 bytes, give 5 */
    len = build_frame_ex(buf, fn, 1, 0);
    n = (uint16_t)(fn->str_len[0] + 1);
    memcpy(buf + HDR + fn->fixed_len, &n, 2);
    CHECK(bad_with_reason(buf, len), "string length one past the end of the payload is BAD");
    n = 0xFFFF;
    memcpy(buf + HDR + fn->fixed_len, &n, 2);
    CHECK(bad_with_reason(buf, len), "string length 65535 is BAD");
    n = (uint16_t)(fn->str_len[0] - 1);
    memcpy(buf + HDR + fn->fixed_len, &n, 2);
    CHECK(bad_with_reason(buf, len), "string length one short (leaves a trailing byte) is BAD");

    /* the second string of a module record overruns by one */
    len = build_frame_ex(buf, mod, 1, 0);
    n = (uint16_t)(mod->str_len[1] + 1);
    memcpy(buf + len - mod->str_len[1] - 2, &n, 2);
    CHECK(bad_with_reason(buf, len), "second string overrunning the payload is BAD");
    /* the second string missing entirely */
    len = build_frame_ex(
        buf,
        &(sample){
            "m1", WIRE_MODULE_LOADED, 0, mod->fixed, mod->fixed_len, 1, {PATH}, {sizeof(PATH) - 1}},
        1, 0);
    CHECK(bad_with_reason(buf, len), "module_loaded with only one string is BAD");
}

TEST(invalid_utf8_in_strings)
{
    static const struct {
        const char *bytes;
        size_t n;
        const char *what;
    } bad[] = {
        {"\xC0\xAF", 2, "overlong 2-byte '/'"},
        {"\xC1\xBF", 2, "overlong 2-byte U+007F"},
        {"\xE0\x80\xAF", 3, "overlong 3-byte"},
        {"\xF0\x80\x80\xAF", 4, "overlong 4-byte"},
        {"\xED\xA0\x80", 3, "surrogate U+D800"},
        {"\xED\xBF\xBF", 3, "surrogate U+DFFF"},
        {"\xE4\xB8", 2, "truncated 3-byte sequence at the end"},
        {"a\xF0\x9F\x98", 4, "truncated 4-byte sequence at the end"},
        {"\xE4\xB8"
         "a",
         3, "truncated 3-byte sequence before ASCII"},
        {"\xF4\x90\x80\x80", 4, "code point above U+10FFFF"},
        {"\x80", 1, "lone continuation byte"},
        {"\xFF", 1, "byte 0xFF"},
        {"\xF8\x88\x80\x80\x80", 5, "5-byte form"},
    };
    const sample *bases[] = {&samples[3], &samples[4], &samples[6], &samples[10]};

    for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
        int all = 1;
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            sample s = *bases[b];
            uint8_t buf[512];
            size_t len;

            s.str[s.nstrings - 1] = bad[i].bytes; /* last string: checks every string is read */
            s.str_len[s.nstrings - 1] = bad[i].n;
            len = build_frame_ex(buf, &s, 1, 0);
            if (!bad_with_reason(buf, len)) {
                all = 0;
                printf("    %s accepted with %s\n", s.what, bad[i].what);
            }
        }
        CHECK(all, "%s: each of %zu invalid UTF-8 strings is BAD", bases[b]->what,
              sizeof(bad) / sizeof(bad[0]));
    }
    {
        sample s = samples[4];
        uint8_t buf[512];
        size_t len;
        s.str[0] = "\xED\xA0\x80", s.str_len[0] = 3; /* first of two strings */
        len = build_frame_ex(buf, &s, 1, 0);
        CHECK(bad_with_reason(buf, len),
              "module_loaded with invalid UTF-8 in the first string is BAD");
    }
}

TEST(hello_checks)
{
    wire_hello h = hello_fixed();
    sample s = samples[0];
    uint8_t buf[256];
    size_t len;
    wire_record r;
    const char *why = NULL;

    s.fixed = &h;
    memcpy(h.magic, "JITSCOPX", 8);
    len = build_frame_ex(buf, &s, 1, 0);
    CHECK(bad_with_reason(buf, len), "hello with magic JITSCOPX is BAD");
    memcpy(h.magic, "jitscope", 8);
    len = build_frame_ex(buf, &s, 1, 0);
    CHECK(bad_with_reason(buf, len), "hello with lower-case magic is BAD");
    memcpy(h.magic, WIRE_MAGIC, 8);
    for (uint32_t v = 0; v < 4; v++) {
        h.version = v == 3 ? UINT32_MAX : v;
        len = build_frame_ex(buf, &s, 1, 0);
        if (h.version == WIRE_VERSION)
            CHECK(decode_one(buf, len, &r, &why) == WIRE_DECODE_OK &&
                      memcmp(r.u.hello.token, TOKEN, WIRE_TOKEN_LEN) == 0,
                  "hello with version %u is OK and carries the token", h.version);
        else
            CHECK(bad_with_reason(buf, len), "hello with version %u is BAD", h.version);
    }
}

/* ---- stack, profile and timeline records ------------------------------------ */

/* Decodes one frame of `type` whose payload is bytes[0..n), in an allocation of
 * exactly the frame's size placed at an odd address (frames are read with
 * memcpy, so UBSan must see no misaligned access). */
static int decode_payload_keep(uint16_t type, const void *bytes, size_t n, wire_record *r,
                               uint8_t **keep)
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

static int decode_payload(uint16_t type, const void *bytes, size_t n, wire_record *r)
{
    return decode_payload_keep(type, bytes, n, r, NULL);
}

TEST(stack_thread_frame_count)
{
    enum { MAX = WIRE_STACK_MAX_FRAMES };
    size_t bytes = sizeof(wire_stack_thread) + (MAX + 2) * sizeof(wire_stack_frame);
    uint8_t *p = calloc(1, bytes), *frame = NULL;
    wire_stack_thread t = s_stack_thread.t;
    wire_record r;
    int ok = 1;

    for (uint32_t i = 0; i < MAX + 2; i++) {
        wire_stack_frame f = {0x7f0000000000ull + i, 0x7f1000000000ull + 3 * i};
        memcpy(p + sizeof(t) + i * sizeof(f), &f, sizeof(f));
    }
    t.frame_count = 0;
    memcpy(p, &t, sizeof(t));
    CHECK(decode_payload(WIRE_STACK_THREAD, p, sizeof(t), &r) == WIRE_DECODE_OK &&
              r.u.stack_thread.frame_count == 0,
          "a thread with no frames (a failed walk) decodes");
    t.frame_count = MAX;
    memcpy(p, &t, sizeof(t));
    CHECK(decode_payload_keep(WIRE_STACK_THREAD, p, sizeof(t) + MAX * sizeof(wire_stack_frame), &r,
                              &frame) == WIRE_DECODE_OK,
          "WIRE_STACK_MAX_FRAMES frames decode");
    for (uint32_t i = 0; i < MAX; i++) {
        wire_stack_frame f = wire_record_frame(&r, i);
        ok &= f.function_id == 0x7f0000000000ull + i && f.ip == 0x7f1000000000ull + 3 * i;
    }
    free(frame);
    CHECK(ok, "every one of the %u frames reads back from an unaligned payload", MAX);
    t.frame_count = MAX + 1;
    memcpy(p, &t, sizeof(t));
    CHECK(decode_payload(WIRE_STACK_THREAD, p, sizeof(t) + (MAX + 1) * sizeof(wire_stack_frame),
                         &r) == WIRE_DECODE_BAD,
          "WIRE_STACK_MAX_FRAMES + 1 frames (length consistent) is BAD");
    t.frame_count = UINT32_MAX;
    memcpy(p, &t, sizeof(t));
    CHECK(decode_payload(WIRE_STACK_THREAD, p, sizeof(t) + 2 * sizeof(wire_stack_frame), &r) ==
              WIRE_DECODE_BAD,
          "frame_count UINT32_MAX is BAD (no overflow in the length check)");
    t.frame_count = 2;
    memcpy(p, &t, sizeof(t));
    CHECK(decode_payload(WIRE_STACK_THREAD, p, sizeof(t) + sizeof(wire_stack_frame), &r) ==
              WIRE_DECODE_BAD,
          "frame_count 2 with one frame in the payload is BAD");
    CHECK(decode_payload(WIRE_STACK_THREAD, p, sizeof(t) + 3 * sizeof(wire_stack_frame), &r) ==
              WIRE_DECODE_BAD,
          "frame_count 2 with three frames in the payload is BAD");
    CHECK(decode_payload(WIRE_STACK_THREAD, p, sizeof(t) + 2 * sizeof(wire_stack_frame) - 1, &r) ==
              WIRE_DECODE_BAD,
          "a frame cut by one byte is BAD");
    t.flags = 2;
    memcpy(p, &t, sizeof(t));
    CHECK(decode_payload(WIRE_STACK_THREAD, p, sizeof(t) + 2 * sizeof(wire_stack_frame), &r) ==
              WIRE_DECODE_BAD,
          "an unknown thread flag is BAD");
    t.flags = WIRE_STACK_TRUNCATED;
    t.snapshot_id = 0;
    memcpy(p, &t, sizeof(t));
    CHECK(decode_payload(WIRE_STACK_THREAD, p, sizeof(t) + 2 * sizeof(wire_stack_frame), &r) ==
              WIRE_DECODE_BAD,
          "snapshot id 0 is BAD");
    t.snapshot_id = 9;
    t.hresult = (int32_t)0x80004005;
    memcpy(p, &t, sizeof(t));
    CHECK(decode_payload(WIRE_STACK_THREAD, p, sizeof(t) + 2 * sizeof(wire_stack_frame), &r) ==
                  WIRE_DECODE_OK &&
              r.u.stack_thread.hresult == (int32_t)0x80004005 &&
              r.u.stack_thread.flags == WIRE_STACK_TRUNCATED,
          "a truncated thread with an E_FAIL hresult decodes as sent");
    free(p);
}

TEST(stack_end_values)
{
    wire_stack_end e;
    wire_record r;

    for (uint32_t kind = 0; kind <= 3; kind++) {
        e = s_stack_end;
        e.kind = kind;
        if (kind == WIRE_STACK_SNAPSHOT || kind == WIRE_STACK_SAMPLE)
            CHECK(decode_payload(WIRE_STACK_END, &e, sizeof(e), &r) == WIRE_DECODE_OK &&
                      r.u.stack_end.kind == kind && r.u.stack_end.request_id == 77,
                  "kind %u decodes", kind);
        else
            CHECK(decode_payload(WIRE_STACK_END, &e, sizeof(e), &r) == WIRE_DECODE_BAD,
                  "kind %u is BAD", kind);
    }
    e = s_stack_end;
    e.threads_sent = e.threads_total = WIRE_STACK_MAX_THREADS;
    CHECK(decode_payload(WIRE_STACK_END, &e, sizeof(e), &r) == WIRE_DECODE_OK,
          "WIRE_STACK_MAX_THREADS threads sent decodes");
    e.threads_sent = e.threads_total = WIRE_STACK_MAX_THREADS + 1;
    CHECK(decode_payload(WIRE_STACK_END, &e, sizeof(e), &r) == WIRE_DECODE_BAD,
          "WIRE_STACK_MAX_THREADS + 1 threads sent is BAD");
    e.threads_sent = 5, e.threads_total = 4;
    CHECK(decode_payload(WIRE_STACK_END, &e, sizeof(e), &r) == WIRE_DECODE_BAD,
          "more threads sent than the runtime listed is BAD");
    e.threads_sent = 0, e.threads_total = 0, e.hresult = (int32_t)0x80131388;
    CHECK(decode_payload(WIRE_STACK_END, &e, sizeof(e), &r) == WIRE_DECODE_OK,
          "a walk that failed (no threads, an hresult) decodes");
    e = s_stack_end;
    e.snapshot_id = 0;
    CHECK(decode_payload(WIRE_STACK_END, &e, sizeof(e), &r) == WIRE_DECODE_BAD,
          "snapshot id 0 is BAD");
    e = s_stack_end;
    e.kind = WIRE_STACK_SAMPLE;
    e.effective_millihz = WIRE_PROFILE_MAX_HZ * 1000u;
    CHECK(decode_payload(WIRE_STACK_END, &e, sizeof(e), &r) == WIRE_DECODE_OK,
          "a sample at WIRE_PROFILE_MAX_HZ decodes");
    e.effective_millihz++;
    CHECK(decode_payload(WIRE_STACK_END, &e, sizeof(e), &r) == WIRE_DECODE_BAD,
          "a sample rate above WIRE_PROFILE_MAX_HZ is BAD");
}

TEST(profile_status_values)
{
    wire_profile_status p;
    wire_record r;

    for (uint32_t st = 0; st <= 5; st++) {
        p = s_profile_status;
        p.state = st;
        if (st >= WIRE_PROFILE_STARTED && st <= WIRE_PROFILE_REFUSED)
            CHECK(decode_payload(WIRE_PROFILE_STATUS, &p, sizeof(p), &r) == WIRE_DECODE_OK &&
                      memcmp(&r.u.profile_status, &p, sizeof(p)) == 0,
                  "state %u decodes as sent", st);
        else
            CHECK(decode_payload(WIRE_PROFILE_STATUS, &p, sizeof(p), &r) == WIRE_DECODE_BAD,
                  "state %u is BAD", st);
    }
    p = s_profile_status;
    p.requested_millihz = WIRE_PROFILE_MAX_HZ * 1000u + 1;
    CHECK(decode_payload(WIRE_PROFILE_STATUS, &p, sizeof(p), &r) == WIRE_DECODE_BAD,
          "a requested rate above WIRE_PROFILE_MAX_HZ is BAD");
    p = s_profile_status;
    p.effective_millihz = UINT32_MAX;
    CHECK(decode_payload(WIRE_PROFILE_STATUS, &p, sizeof(p), &r) == WIRE_DECODE_BAD,
          "an effective rate of UINT32_MAX mHz is BAD");
    p = s_profile_status;
    p.budget_permille = 1001;
    CHECK(decode_payload(WIRE_PROFILE_STATUS, &p, sizeof(p), &r) == WIRE_DECODE_BAD,
          "a budget over 1000 permille is BAD");
    p.budget_permille = 1000;
    CHECK(decode_payload(WIRE_PROFILE_STATUS, &p, sizeof(p), &r) == WIRE_DECODE_OK,
          "a budget of 1000 permille decodes");
}

TEST(timeline_record_values)
{
    wire_runtime_suspend sp;
    wire_gc_started g = {0xFFFFFFFFu, 77};
    wire_record r;

    for (uint32_t phase = 0; phase <= 6; phase++) {
        sp = (wire_runtime_suspend){phase, 99};
        if (phase >= WIRE_SUSPEND_STARTED && phase <= WIRE_RESUME_FINISHED)
            CHECK(decode_payload(WIRE_RUNTIME_SUSPEND, &sp, sizeof(sp), &r) == WIRE_DECODE_OK &&
                      r.u.runtime_suspend.phase == phase && r.u.runtime_suspend.reason == 99,
                  "suspend phase %u decodes (an unknown reason is passed on)", phase);
        else
            CHECK(decode_payload(WIRE_RUNTIME_SUSPEND, &sp, sizeof(sp), &r) == WIRE_DECODE_BAD,
                  "suspend phase %u is BAD", phase);
    }
    CHECK(decode_payload(WIRE_GC_STARTED, &g, sizeof(g), &r) == WIRE_DECODE_OK &&
              r.u.gc_started.generations == 0xFFFFFFFFu && r.u.gc_started.reason == 77,
          "GC generation bits and reason come from the runtime: passed on as sent");
    CHECK(decode_payload(WIRE_GC_STARTED, &g, sizeof(g) - 1, &r) == WIRE_DECODE_BAD &&
              decode_payload(WIRE_GC_FINISHED, &s_gc_finished, sizeof(s_gc_finished) - 1, &r) ==
                  WIRE_DECODE_BAD,
          "GC records one byte short are BAD");
}

/* Every uint64 counter of a sample record, one at a time, just over
 * WIRE_COUNTER_MAX and at UINT64_MAX (which would show as -1 in JSON): BAD. */
static void counters_refused_over_max(uint16_t type, const void *sample, size_t size,
                                      const char *what)
{
    const uint64_t values[] = {WIRE_COUNTER_MAX + 1, UINT64_MAX};
    uint8_t bytes[512]; /* larger than any fixed part (wire_agent_cost: 288) */
    wire_record r;

    for (size_t off = 0; off + sizeof(uint64_t) <= size; off += sizeof(uint64_t)) {
        for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
            memcpy(bytes, sample, size);
            memcpy(bytes + off, &values[k], sizeof(values[k]));
            CHECK(decode_payload(type, bytes, size, &r) == WIRE_DECODE_BAD,
                  "%s counter %zu of %llu is BAD", what, off / sizeof(uint64_t),
                  (unsigned long long)values[k]);
        }
    }
}

TEST(counters_in_range)
{
    wire_drops d = s_drops;
    wire_agent_cost c = s_agent_cost;
    wire_record r;

    d.ring_used = WIRE_COUNTER_MAX;
    d.dropped[WIRE_DROP_SHUTDOWN] = WIRE_COUNTER_MAX;
    CHECK(decode_payload(WIRE_DROPS, &d, sizeof(d), &r) == WIRE_DECODE_OK &&
              r.u.drops.ring_used == WIRE_COUNTER_MAX,
          "drops counters of WIRE_COUNTER_MAX decode");
    c.buckets[WIRE_COST_BUCKETS - 1] = WIRE_COUNTER_MAX;
    CHECK(decode_payload(WIRE_AGENT_COST, &c, sizeof(c), &r) == WIRE_DECODE_OK,
          "a cost bucket of WIRE_COUNTER_MAX decodes");
    counters_refused_over_max(WIRE_DROPS, &s_drops, sizeof(s_drops), "drops");
    counters_refused_over_max(WIRE_AGENT_COST, &s_agent_cost, sizeof(s_agent_cost), "agent cost");
}

/* ---- utf8_valid ------------------------------------------------------ */

TEST(valid_utf8_table)
{
    static const struct {
        const char *s;
        size_t n;
        int valid;
        const char *what;
    } t[] = {
        {"", 0, 1, "empty"},
        {"plain ASCII", 11, 1, "ASCII"},
        {"a\0b", 3, 1, "embedded NUL"},
        {"\x7F", 1, 1, "U+007F"},
        {"\xC2\x80", 2, 1, "U+0080"},
        {"\xC3\xA9", 2, 1, "e acute"},
        {"\xDF\xBF", 2, 1, "U+07FF"},
        {"\xE0\xA0\x80", 3, 1, "U+0800"},
        {"\xE4\xB8\xAD", 3, 1, "CJK U+4E2D"},
        {"\xED\x9F\xBF", 3, 1, "U+D7FF, last before the surrogates"},
        {"\xEE\x80\x80", 3, 1, "U+E000, first after the surrogates"},
        {"\xEF\xBF\xBD", 3, 1, "U+FFFD"},
        {"\xEF\xBF\xBF", 3, 1, "U+FFFF"},
        {"\xF0\x90\x80\x80", 4, 1, "U+10000"},
        {"\xF0\x9F\x98\x80", 4, 1, "emoji U+1F600"},
        {"\xF4\x8F\xBF\xBF", 4, 1, "U+10FFFF"},
        {"a\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80z", 11, 1, "mixed"},
        {"\x80", 1, 0, "lone continuation"},
        {"\xBF", 1, 0, "lone continuation 0xBF"},
        {"\xC0\x80", 2, 0, "overlong NUL"},
        {"\xC1\xBF", 2, 0, "overlong U+007F"},
        {"\xE0\x80\x80", 3, 0, "overlong 3-byte NUL"},
        {"\xE0\x9F\xBF", 3, 0, "overlong U+07FF"},
        {"\xF0\x80\x80\x80", 4, 0, "overlong 4-byte NUL"},
        {"\xF0\x8F\xBF\xBF", 4, 0, "overlong U+FFFF"},
        {"\xED\xA0\x80", 3, 0, "surrogate U+D800"},
        {"\xED\xAF\xBF", 3, 0, "surrogate U+DBFF"},
        {"\xED\xB0\x80", 3, 0, "surrogate U+DC00"},
        {"\xED\xBF\xBF", 3, 0, "surrogate U+DFFF"},
        {"\xED\xA0\xBD\xED\xB8\x80", 6, 0, "CESU-8 surrogate pair"},
        {"\xF4\x90\x80\x80", 4, 0, "U+110000"},
        {"\xF5\x80\x80\x80", 4, 0, "lead byte 0xF5"},
        {"\xF7\xBF\xBF\xBF", 4, 0, "lead byte 0xF7"},
        {"\xF8\x88\x80\x80\x80", 5, 0, "5-byte form"},
        {"\xFC\x84\x80\x80\x80\x80", 6, 0, "6-byte form"},
        {"\xFE", 1, 0, "0xFE"},
        {"\xFF", 1, 0, "0xFF"},
        {"\xC3", 1, 0, "truncated 2-byte"},
        {"\xE4\xB8", 2, 0, "truncated 3-byte"},
        {"\xF0\x9F\x98", 3, 0, "truncated 4-byte"},
        {"\xC3\x28", 2, 0, "bad continuation"},
        {"\xE4\x28\xAD", 3, 0, "bad second byte"},
        {"\xE4\xB8\x28", 3, 0, "bad third byte"},
        {"\xF0\x9F\x98\x28", 4, 0, "bad fourth byte"},
        {"ok\xC3", 3, 0, "valid then truncated"},
        {"\xC3\xA9\x80", 3, 0, "valid then stray continuation"},
    };

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        char *copy = (char *)copy_of((const uint8_t *)t[i].s, t[i].n); /* exact size */
        CHECK(utf8_valid(copy, t[i].n) == t[i].valid, "utf8_valid(%s) == %d", t[i].what,
              t[i].valid);
        free(copy);
    }
    CHECK(utf8_valid(NULL, 0) == 1, "zero bytes at NULL are valid");
    CHECK(utf8_valid("\xE4\xB8\xAD", 2) == 0, "the length bounds the check (cut character)");
}

static uint64_t rng_state; /* made-up data: every test starts the sequence again */

static void rng_reset(void) { rng_state = 0x9E3779B97F4A7C15ull; }
static uint64_t xorshift(void) { return check_random(&rng_state); }

/* The agent writes strings through utf8_sanitize; the server accepts strings
 * with utf8_valid. They must agree: a string is valid exactly when
 * sanitizing leaves it unchanged, and what the agent sends is always valid. */
TEST(valid_utf8_agrees_with_agent_sanitizer)
{
    unsigned long disagree = 0, unsent = 0, valid_seen = 0;

    for (int i = 0; i < 100000; i++) {
        uint8_t in[24];
        char out[24];
        size_t n = xorshift() % sizeof(in), m;
        int truncated;

        for (size_t k = 0; k < n; k++) {
            uint64_t r = xorshift();
            /* mostly bytes that form or nearly form multi-byte sequences */
            static const uint8_t pool[] = {0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2,
                                           0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF};
            in[k] = (r & 1) ? pool[(r >> 1) % sizeof(pool)] : (uint8_t)(r >> 8);
        }
        m = utf8_sanitize((const char *)in, n, out, sizeof(out), &truncated);
        if (utf8_valid((const char *)in, n) != (m == n && memcmp(in, out, n) == 0))
            disagree++;
        if (!utf8_valid(out, m) || m != n || truncated)
            unsent++;
        valid_seen += utf8_valid((const char *)in, n);
    }
    CHECK(disagree == 0,
          "utf8_valid(s) == (utf8_sanitize(s) == s) on 100000 random strings "
          "(%lu disagree)",
          disagree);
    CHECK(unsent == 0, "utf8_sanitize output is always valid for the server, same length (%lu not)",
          unsent);
    CHECK(valid_seen > 2000 && valid_seen < 98000,
          "the random strings mix valid and invalid (%lu valid)", valid_seen);
}

/* ---- garbage ------------------------------------------------------------- */

typedef struct garbage_stats {
    unsigned long frames_ok, records_ok, violations, bad, need_more;
    unsigned long ok_by_type[WIRE_RECORD_TYPE_MAX + 1];
} garbage_stats;

/* Decodes everything in buf as the link does and checks what the decoder says. */
static void decode_all(const uint8_t *buf, size_t len, garbage_stats *st)
{
    size_t off = 0;

    for (;;) {
        wire_frame f;
        wire_record r;
        size_t used = (size_t)-1;
        const char *why = NULL;
        int rc = wire_decode_frame(buf + off, len - off, &f, &used, &why);

        if (rc == WIRE_DECODE_NEED_MORE) {
            st->need_more++;
            return;
        }
        if (rc != WIRE_DECODE_OK) {
            st->bad++;
            st->violations += rc != WIRE_DECODE_BAD || !why;
            return;
        }
        st->frames_ok++;
        if (used > len - off || used < HDR || used != HDR + f.header.length ||
            f.payload != buf + off + HDR || f.header.length > WIRE_MAX_PAYLOAD) {
            st->violations++;
            return;
        }
        why = NULL;
        rc = wire_decode_record(&f, &r, &why);
        if (rc == WIRE_DECODE_OK) {
            st->records_ok++;
            if (r.type == 0 || r.type > WIRE_RECORD_TYPE_MAX || r.string_count > 2)
                st->violations++;
            else
                st->ok_by_type[r.type]++;
            for (unsigned k = 0; k < r.string_count && k < 2; k++) {
                const uint8_t *t = (const uint8_t *)r.strings[k].text;
                if (t < f.payload || t + r.strings[k].length > f.payload + f.header.length ||
                    r.strings[k].length > WIRE_MAX_STRING ||
                    !utf8_valid(r.strings[k].text, r.strings[k].length))
                    st->violations++;
            }
            if (r.type == WIRE_HELLO &&
                (memcmp(r.u.hello.magic, WIRE_MAGIC, 8) != 0 || r.u.hello.version != WIRE_VERSION))
                st->violations++;
        } else if (rc != WIRE_DECODE_BAD || !why) {
            st->violations++;
        }
        off += used;
    }
}

/* A valid frame of a random type with random fixed bytes and random valid
 * strings, then 0..4 random mutations. Returns the length written to out. */
static size_t mutated_frame(uint8_t *out, size_t cap)
{
    const sample *base = &samples[xorshift() % N_SAMPLES];
    uint8_t fixed[512]; /* larger than any fixed part (wire_agent_cost: 288) */
    char strs[2][40];
    sample s = *base;
    size_t len;
    unsigned mutations = (unsigned)(xorshift() % 5);

    for (size_t k = 0; k < s.fixed_len; k++)
        fixed[k] = (xorshift() & 3) ? ((const uint8_t *)base->fixed)[k] : (uint8_t)xorshift();
    if (s.type == WIRE_HELLO && (xorshift() & 7)) { /* mostly keep the hello acceptable */
        memcpy(fixed, WIRE_MAGIC, 8);
        memcpy(fixed + 8, &(uint32_t){WIRE_VERSION}, 4);
    }
    if ((s.type == WIRE_DROPS || s.type == WIRE_AGENT_COST) && (xorshift() & 7)) {
        for (size_t k = 7; k < s.fixed_len;
             k += 8) /* mostly keep counters under WIRE_COUNTER_MAX */
            fixed[k] = 0;
    }
    s.fixed = fixed;
    for (unsigned i = 0; i < s.nstrings; i++) {
        size_t n = xorshift() % sizeof(strs[i]);
        for (size_t k = 0; k < n; k++)
            strs[i][k] = (char)('a' + xorshift() % 26);
        s.str[i] = strs[i];
        s.str_len[i] = n;
    }
    len = build_frame_ex(out, &s, xorshift(), 0);
    while (mutations-- > 0 && len > 0) {
        uint64_t r = xorshift();
        switch (r % 6) {
        case 0: /* flip a byte */ out[(r >> 8) % len] ^= (uint8_t)(1u << ((r >> 40) % 8)); break;
        case 1: /* random byte */ out[(r >> 8) % len] = (uint8_t)(r >> 32); break;
        case 2: /* cut */ len = (r >> 8) % (len + 1); break;
        case 3: /* append random bytes */
            for (size_t k = (r >> 8) % 8; k > 0 && len < cap; k--)
                out[len++] = (uint8_t)xorshift();
            break;
        case 4: /* nudge the header length */
            if (len >= 8) {
                uint32_t l;
                memcpy(&l, out + 4, 4);
                l += (uint32_t)((int)((r >> 8) % 7) - 3);
                memcpy(out + 4, &l, 4);
            }
            break;
        default: /* nudge a string length */
            if (len > HDR + s.fixed_len + 1)
                out[HDR + s.fixed_len + ((r >> 8) & 1)] += (uint8_t)((int)((r >> 16) % 5) - 2);
            break;
        }
    }
    return len;
}

TEST(garbage_never_crashes_or_overreads)
{
    enum { ROUNDS = 200000 };
    garbage_stats st;
    uint8_t tmp[4096];
    unsigned types_ok = 0, types_known = 0;

    memset(&st, 0, sizeof(st));
    rng_state = 0x2545F4914F6CDD1Dull;
    for (int i = 0; i < ROUNDS; i++) {
        size_t len = 0;
        uint8_t *buf;

        if (i % 2 == 0) { /* pure random bytes, sometimes with a plausible header */
            len = xorshift() % ((i % 1000 == 0) ? 70000 : 300);
            buf = malloc(len ? len : 1);
            for (size_t k = 0; k < len; k++)
                buf[k] = (uint8_t)xorshift();
            if (len >= HDR && (xorshift() & 1)) {
                uint16_t type = (uint16_t)(xorshift() % (WIRE_RECORD_TYPE_MAX + 2));
                uint32_t plen = (uint32_t)(len - HDR - xorshift() % 3 * (len > HDR + 2));
                memcpy(buf, &type, 2);
                memcpy(buf + 4, &plen, 4);
            }
        } else { /* 1..3 mutated valid frames back to back */
            unsigned frames = 1 + (unsigned)(xorshift() % 3);
            for (unsigned k = 0; k < frames && len < sizeof(tmp) - 512; k++)
                len += mutated_frame(tmp + len, sizeof(tmp) - len);
            buf = copy_of(tmp, len);
        }
        decode_all(buf, len, &st);
        free(buf);
    }
    for (int t = 1; t <= WIRE_RECORD_TYPE_MAX; t++)
        types_ok += st.ok_by_type[t] > 0;
    (void)known_record_types(&types_known);
    CHECK(st.violations == 0,
          "%d random/mutated buffers: no OK with more bytes consumed than given, no string "
          "outside its payload, BAD always with a reason (%lu violations)",
          ROUNDS, st.violations);
    CHECK(types_ok == types_known,
          "mutated frames decoded as every record type at least once (%u types; %lu frames, "
          "%lu records OK, %lu BAD, %lu NEED_MORE)",
          types_ok, st.frames_ok, st.records_ok, st.bad, st.need_more);
    CHECK(st.bad > 1000 && st.need_more > 1000, "both BAD and NEED_MORE were exercised");
}

/* ---- the encoder (proto/wire_encode.c) and the command decoder ----------- */

/* Flags: only the known bits, and WIRE_FLAG_OS_NAME only on a thread name. */
TEST(record_flags)
{
    wire_thread t = {0x71, 4071, 0};
    sample name = {
        "name", WIRE_THREAD_NAME, WIRE_FLAG_OS_NAME, &t, sizeof(t), 1, {".NET Finalizer"}, {14}};
    sample created = {"created", WIRE_THREAD_CREATED, WIRE_FLAG_OS_NAME, &t, sizeof(t), 0, {0},
                      {0}};
    sample unknown = {"unknown", WIRE_THREAD_CREATED, 1u << 4, &t, sizeof(t), 0, {0}, {0}};
    sample catchup = {"catchup",
                      WIRE_THREAD_NAME,
                      WIRE_FLAG_OS_NAME | WIRE_FLAG_CATCHUP,
                      &t,
                      sizeof(t),
                      1,
                      {"dotnet"},
                      {6}};
    wire_record r;
    const char *why = NULL;
    size_t len;
    uint8_t *b;

    b = build_frame(&name, 1, &len);
    CHECK(decode_one(b, len, &r, &why) == WIRE_DECODE_OK && r.flags == WIRE_FLAG_OS_NAME &&
              r.u.thread.os_thread_id == 4071 && r.strings[0].length == 14,
          "an OS name: a THREAD_NAME flagged WIRE_FLAG_OS_NAME, with the OS thread id");
    free(b);
    b = build_frame(&catchup, 1, &len);
    CHECK(decode_one(b, len, &r, &why) == WIRE_DECODE_OK &&
              r.flags == (WIRE_FLAG_OS_NAME | WIRE_FLAG_CATCHUP),
          "also from the catch-up");
    free(b);
    b = build_frame(&created, 1, &len);
    CHECK(bad_with_reason(b, len), "WIRE_FLAG_OS_NAME on another record: refused");
    free(b);
    b = build_frame(&unknown, 1, &len);
    CHECK(bad_with_reason(b, len), "an unknown flag: refused");
    free(b);
}

TEST(encoder_round_trips_through_the_decoder)
{
    wire_module_loaded m = {.module_id = 0x1234, .assembly_id = 0x99};
    static const uint16_t path16[] = {'/', 'a', 0xD83D, 0xDE00, '.', 'd', 'l', 'l'}; /* U+1F600 */
    wire_text strings[2] = {{.utf16 = path16, .length = 8}, {.utf8 = "As\xFFm", .length = 4}};
    wire_frame_header h = {
        .type = WIRE_MODULE_LOADED, .flags = WIRE_FLAG_CATCHUP, .seq = 7, .time_ns = 42};
    size_t bound = wire_encode_bound(sizeof(m), 0, strings, 2), size, used = 0;
    uint8_t *buf = malloc(bound);
    wire_frame f;
    wire_record r;
    const char *why = NULL;

    CHECK(bound == HDR + sizeof(m) + 2 + 24 + 2 + 4,
          "bound: header, fixed, 3 bytes a UTF-16 unit (%zu)", bound);
    size = wire_encode(buf, &h, &m, sizeof(m), NULL, 0, strings, 2);
    CHECK(size <= bound, "never more than the bound (%zu <= %zu)", size, bound);
    CHECK(wire_decode_frame(buf, size, &f, &used, &why) == WIRE_DECODE_OK && used == size,
          "one whole frame");
    CHECK(wire_decode_record(&f, &r, &why) == WIRE_DECODE_OK, "decodes (%s)", why ? why : "");
    CHECK(r.seq == 7 && r.time_ns == 42 && r.flags == WIRE_FLAG_CATCHUP,
          "header fields kept, no truncation flag");
    CHECK(r.u.module_loaded.module_id == 0x1234 && r.u.module_loaded.assembly_id == 0x99,
          "fixed part");
    CHECK(r.string_count == 2 && r.strings[0].length == 10 &&
              memcmp(r.strings[0].text, "/a\xF0\x9F\x98\x80.dll", 10) == 0,
          "UTF-16 with a surrogate pair converted");
    CHECK(r.strings[1].length == 4 && memcmp(r.strings[1].text, "As?m", 4) == 0,
          "a bad UTF-8 byte becomes '?'");
    free(buf);
}

TEST(encoder_cuts_long_strings_and_flags_it)
{
    size_t n = WIRE_MAX_STRING + 100;
    char *text = malloc(n);
    wire_text s = {.utf8 = text, .length = n};
    wire_frame_header h = {.type = WIRE_FUNCTION_NAME, .seq = 1};
    wire_function_name fn = {.function_id = 5};
    size_t bound, size, used;
    uint8_t *buf;
    wire_frame f;
    wire_record r;
    const char *why = NULL;

    memset(text, 'x', n);
    text[WIRE_MAX_STRING - 1] = '\xC3'; /* a two-byte character across the cut */
    text[WIRE_MAX_STRING] = '\xA9';
    bound = wire_encode_bound(sizeof(fn), 0, &s, 1);
    buf = malloc(bound);
    size = wire_encode(buf, &h, &fn, sizeof(fn), NULL, 0, &s, 1);
    CHECK(wire_decode_frame(buf, size, &f, &used, &why) == WIRE_DECODE_OK &&
              wire_decode_record(&f, &r, &why) == WIRE_DECODE_OK,
          "decodes (%s)", why ? why : "");
    CHECK(r.flags & WIRE_FLAG_TRUNCATED, "cut string flagged");
    CHECK(r.strings[0].length == WIRE_MAX_STRING - 1,
          "cut before the character, not inside it (%u)", (unsigned)r.strings[0].length);
    free(buf);
    free(text);
}

/* The agent encodes a ring record once without its number and stamps the
 * number later (wire_stamp_seq): the result is the frame encoded with it. */
TEST(stamped_seq_is_the_encoding_with_it)
{
    static const char name[] = "Ns.Type.M\xff(int)"; /* a bad byte: sanitized */
    wire_text s = {.utf8 = name, .length = sizeof(name) - 1};
    wire_frame_header h = {.type = WIRE_FUNCTION_NAME, .flags = WIRE_FLAG_CATCHUP, .time_ns = 77};
    wire_function_name fn = {.function_id = 5, .module_id = 6, .token = 0x06000001};
    uint8_t stamped[256], direct[256];
    size_t n1, n2;

    n1 = wire_encode(stamped, &h, &fn, sizeof(fn), NULL, 0, &s, 1);
    wire_stamp_seq(stamped, 0x0102030405060708ull);
    h.seq = 0x0102030405060708ull;
    n2 = wire_encode(direct, &h, &fn, sizeof(fn), NULL, 0, &s, 1);
    CHECK(n1 == n2 && memcmp(stamped, direct, n1) == 0,
          "byte for byte the frame encoded with that number (%zu bytes)", n1);
}

TEST(commands)
{
    uint8_t buf[HDR + WIRE_MAX_COMMAND + 8];
    wire_cmd_profile_start ps = {.hz = 49, .duration_ms = 1000};
    wire_cmd_detach d = {.expected_ms = 5000};
    wire_frame_header h = {.type = WIRE_CMD_PROFILE_START};
    wire_command c;
    size_t size, used = 0, two;
    const char *why = NULL;

    size = wire_encode(buf, &h, &ps, sizeof(ps), NULL, 0, NULL, 0);
    h.type = WIRE_CMD_DETACH;
    two = size + wire_encode(buf + size, &h, &d, sizeof(d), NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, two, &c, &used, &why) == WIRE_DECODE_OK && used == size &&
              c.type == WIRE_CMD_PROFILE_START && c.u.profile_start.hz == 49 &&
              c.u.profile_start.duration_ms == 1000,
          "profile start");
    CHECK(wire_decode_command(buf + used, two - used, &c, &used, &why) == WIRE_DECODE_OK &&
              c.type == WIRE_CMD_DETACH && c.u.detach.expected_ms == 5000,
          "then detach, back to back");
    for (size_t k = 0; k < size; k++)
        CHECK(wire_decode_command(buf, k, &c, &used, &why) == WIRE_DECODE_NEED_MORE,
              "prefix %zu needs more", k);
    h.type = WIRE_CMD_SNAPSHOT;
    size = wire_encode(buf, &h, &d, 4, NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_BAD,
          "snapshot shorter than its id: bad");
    h.type = WIRE_CMD_TIERS;
    size = wire_encode(buf, &h, &(wire_cmd_tiers){.enabled = 1}, sizeof(wire_cmd_tiers), NULL, 0,
                       NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_OK &&
              c.type == WIRE_CMD_TIERS && c.u.tiers.enabled == 1,
          "tiers on");
    size = wire_encode(buf, &h, &d, 2, NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_BAD,
          "tiers shorter than its flag: bad");
    h.type = WIRE_CMD_CODE;
    size = wire_encode(buf, &h, &(wire_cmd_code){5, 0x7f00001000ull, 0x7f12340000ull, 0, 0},
                       sizeof(wire_cmd_code), NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_OK &&
              c.type == WIRE_CMD_CODE && c.u.code.request_id == 5 &&
              c.u.code.function_id == 0x7f00001000ull && c.u.code.code_address == 0x7f12340000ull,
          "code request");
    size = wire_encode(buf, &h, &d, sizeof(d), NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_BAD,
          "code request shorter than its fields: bad");
    h.type = 4242;
    size = wire_encode(buf, &h, &d, sizeof(d), NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_OK && c.type == 4242 &&
              used == size,
          "unknown command: skipped whole, for a newer server");
    memset(buf, 0, sizeof(buf));
    h.type = WIRE_CMD_PING;
    h.length = WIRE_MAX_COMMAND + 1;
    memcpy(buf, &h, sizeof(h));
    CHECK(wire_decode_command(buf, HDR, &c, &used, &why) == WIRE_DECODE_BAD,
          "over WIRE_MAX_COMMAND: bad at once, not need-more");
}

TEST(stored_hello_of_an_older_version)
{
    wire_hello h = hello_fixed();
    sample s = {"hello", WIRE_HELLO, 0, &h, sizeof(h), 0, {0}, {0}};
    size_t len, used;
    uint8_t *buf;
    wire_frame f;
    wire_record r;
    const char *why = NULL;

    h.version = WIRE_VERSION_STORED_MIN;
    buf = build_frame(&s, 1, &len);
    CHECK(wire_decode_frame(buf, len, &f, &used, &why) == WIRE_DECODE_OK, "framed");
    CHECK(wire_decode_record(&f, &r, &why) == WIRE_DECODE_BAD,
          "a live agent of version %u is refused", WIRE_VERSION_STORED_MIN);
    CHECK(wire_decode_stored_record(&f, &r, &why) == WIRE_DECODE_OK,
          "a stored session of version %u reads back", WIRE_VERSION_STORED_MIN);
    free(buf);
    h.version = WIRE_VERSION_STORED_MIN - 1;
    buf = build_frame(&s, 1, &len);
    wire_decode_frame(buf, len, &f, &used, &why);
    CHECK(wire_decode_stored_record(&f, &r, &why) == WIRE_DECODE_BAD, "older ones do not");
    free(buf);
    h.version = WIRE_VERSION + 1;
    buf = build_frame(&s, 1, &len);
    wire_decode_frame(buf, len, &f, &used, &why);
    CHECK(wire_decode_stored_record(&f, &r, &why) == WIRE_DECODE_BAD, "nor newer ones");
    free(buf);
}

TEST(code_record_caps)
{
    wire_code_version_info v = s_code_version;
    wire_code_end e = s_code_end;
    wire_code_search cs = s_code_search;
    struct {
        wire_code_part p;
        uint8_t data[48];
    } part = {{7, 0, WIRE_CODE_PART_CODE, 0, 0, 0}, {0x55, 0x48}};
    wire_record r;

    CHECK(decode_payload(WIRE_CODE_VERSION, &v, sizeof(v), &r) == WIRE_DECODE_OK, "version ok");
    v.index = WIRE_CODE_MAX_VERSIONS;
    CHECK(decode_payload(WIRE_CODE_VERSION, &v, sizeof(v), &r) == WIRE_DECODE_BAD, "index cap");
    v = s_code_version, v.code_sent = v.hot_size + 1;
    CHECK(decode_payload(WIRE_CODE_VERSION, &v, sizeof(v), &r) == WIRE_DECODE_BAD,
          "more code sent than the version has");
    v = s_code_version, v.hot_size = UINT32_MAX, v.cold_size = UINT32_MAX,
    v.code_sent = WIRE_CODE_MAX_VERSION_BYTES + 1;
    CHECK(decode_payload(WIRE_CODE_VERSION, &v, sizeof(v), &r) == WIRE_DECODE_BAD,
          "code over the per-version cap (sizes do not overflow)");
    v = s_code_version, v.map_sent = v.map_count + 1;
    CHECK(decode_payload(WIRE_CODE_VERSION, &v, sizeof(v), &r) == WIRE_DECODE_BAD,
          "more map entries than the runtime has");
    v = s_code_version, v.ref_count = WIRE_CODE_MAX_REFS + 1;
    CHECK(decode_payload(WIRE_CODE_VERSION, &v, sizeof(v), &r) == WIRE_DECODE_BAD, "ref cap");
    v = s_code_version, v.flags = 1u << 20;
    CHECK(decode_payload(WIRE_CODE_VERSION, &v, sizeof(v), &r) == WIRE_DECODE_BAD, "unknown flags");

    CHECK(decode_payload(WIRE_CODE_PART, &part, sizeof(part.p) + 5, &r) == WIRE_DECODE_OK &&
              r.data_length == 5,
          "code bytes: any length");
    CHECK(decode_payload(WIRE_CODE_PART, &part, sizeof(part.p), &r) == WIRE_DECODE_BAD,
          "an empty part");
    part.p.kind = WIRE_CODE_PART_REFS;
    CHECK(decode_payload(WIRE_CODE_PART, &part, sizeof(part.p) + 47, &r) == WIRE_DECODE_BAD,
          "refs: whole entries only");
    CHECK(decode_payload(WIRE_CODE_PART, &part, sizeof(part.p) + 48, &r) == WIRE_DECODE_OK,
          "refs: one entry");
    part.p.offset = WIRE_CODE_MAX_REFS * (uint32_t)sizeof(wire_code_ref);
    CHECK(decode_payload(WIRE_CODE_PART, &part, sizeof(part.p) + 48, &r) == WIRE_DECODE_BAD,
          "refs past their cap");
    part.p.offset = 0, part.p.kind = 9;
    CHECK(decode_payload(WIRE_CODE_PART, &part, sizeof(part.p) + 1, &r) == WIRE_DECODE_BAD,
          "unknown kind");
    part.p.kind = WIRE_CODE_PART_IL;
    CHECK(decode_payload(WIRE_CODE_PART, &part, sizeof(part.p) + 1, &r) == WIRE_DECODE_BAD,
          "IL with a version's index");
    part.p.index = WIRE_CODE_IL_INDEX;
    CHECK(decode_payload(WIRE_CODE_PART, &part, sizeof(part.p) + 1, &r) == WIRE_DECODE_OK,
          "IL with its own index");
    part.p.offset = WIRE_CODE_MAX_IL;
    CHECK(decode_payload(WIRE_CODE_PART, &part, sizeof(part.p) + 1, &r) == WIRE_DECODE_BAD,
          "IL past its cap");
    part.p.offset = 0, part.p.kind = WIRE_CODE_PART_CODE;
    CHECK(decode_payload(WIRE_CODE_PART, &part, sizeof(part.p) + 1, &r) == WIRE_DECODE_BAD,
          "code with the IL's index");

    CHECK(decode_payload(WIRE_CODE_END, &e, sizeof(e), &r) == WIRE_DECODE_OK, "end ok");
    e.status = WIRE_CODE_STATUS_MAX + 1;
    CHECK(decode_payload(WIRE_CODE_END, &e, sizeof(e), &r) == WIRE_DECODE_BAD, "unknown status");
    e = s_code_end, e.versions_sent = e.versions + 1;
    CHECK(decode_payload(WIRE_CODE_END, &e, sizeof(e), &r) == WIRE_DECODE_BAD,
          "more versions sent than listed");
    e = s_code_end, e.il_sent = e.il_size + 1;
    CHECK(decode_payload(WIRE_CODE_END, &e, sizeof(e), &r) == WIRE_DECODE_BAD,
          "more IL sent than it has");
    e = s_code_end, e.refused = WIRE_COUNTER_MAX + 1;
    CHECK(decode_payload(WIRE_CODE_END, &e, sizeof(e), &r) == WIRE_DECODE_BAD, "counter cap");
    cs.result = 0;
    CHECK(decode_payload(WIRE_CODE_SEARCH, &cs, sizeof(cs), &r) == WIRE_DECODE_BAD,
          "unknown search result");
}

/* The CPU profiler's code lookups: the command carries exactly `count`
 * addresses (1..WIRE_CODE_LOOKUP_MAX), and an answer's range holds its address. */
TEST(code_lookups)
{
    uint8_t buf[HDR + WIRE_MAX_COMMAND + 8];
    wire_frame_header h = {.type = WIRE_CMD_CODE_LOOKUP};
    wire_cmd_code_lookup cmd;
    wire_command c;
    wire_record r;
    size_t size, used = 0;
    const char *why = NULL;

    memset(&cmd, 0, sizeof(cmd));
    for (uint32_t i = 0; i < WIRE_CODE_LOOKUP_MAX; i++)
        cmd.ips[i] = 0x7f0000100000ull + i * 16;
    cmd.count = WIRE_CODE_LOOKUP_MAX;
    size = wire_encode(buf, &h, &cmd, 8 + WIRE_CODE_LOOKUP_MAX * 8, NULL, 0, NULL, 0);
    CHECK(size - HDR <= WIRE_MAX_COMMAND, "the largest lookup fits a command");
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_OK &&
              c.type == WIRE_CMD_CODE_LOOKUP && c.u.code_lookup.count == WIRE_CODE_LOOKUP_MAX &&
              c.u.code_lookup.ips[WIRE_CODE_LOOKUP_MAX - 1] == cmd.ips[WIRE_CODE_LOOKUP_MAX - 1],
          "30 addresses");
    cmd.count = 2;
    size = wire_encode(buf, &h, &cmd, 8 + 2 * 8, NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_OK &&
              c.u.code_lookup.count == 2 && c.u.code_lookup.ips[1] == cmd.ips[1] &&
              c.u.code_lookup.ips[2] == 0,
          "2 addresses, the rest zero");
    size = wire_encode(buf, &h, &cmd, 8 + 3 * 8, NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_BAD && why,
          "a length that disagrees with the count: bad");
    cmd.count = 0;
    size = wire_encode(buf, &h, &cmd, 8, NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_BAD, "no address: bad");
    cmd.count = WIRE_CODE_LOOKUP_MAX + 1;
    size = wire_encode(buf, &h, &cmd, 8 + 8 * 8, NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_BAD, "31: bad");
    size = wire_encode(buf, &h, &cmd, 4, NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_BAD,
          "shorter than its count: bad");

    /* answers */
    {
        wire_code_range a = s_code_range;
        wire_frame_header rh = {.type = WIRE_CODE_RANGE, .seq = 1};
        size = wire_encode(buf, &rh, &a, sizeof(a), NULL, 0, NULL, 0);
        CHECK(decode_one(buf, size, &r, &why) == WIRE_DECODE_OK && r.u.code_range.size == 143 &&
                  r.u.code_range.function_id == a.function_id,
              "an answer with its range");
        a.ip = a.start + a.size; /* one past the end */
        size = wire_encode(buf, &rh, &a, sizeof(a), NULL, 0, NULL, 0);
        CHECK(bad_with_reason(buf, size), "a range that does not hold the address: bad");
        a.ip = a.start - 1;
        size = wire_encode(buf, &rh, &a, sizeof(a), NULL, 0, NULL, 0);
        CHECK(bad_with_reason(buf, size), "an address below the range: bad");
        a = (wire_code_range){.ip = 0x1234, .hresult = (int32_t)0x80004005};
        size = wire_encode(buf, &rh, &a, sizeof(a), NULL, 0, NULL, 0);
        CHECK(decode_one(buf, size, &r, &why) == WIRE_DECODE_OK,
              "no function (not managed code): fine");
        a.start = 0x1000;
        size = wire_encode(buf, &rh, &a, sizeof(a), NULL, 0, NULL, 0);
        CHECK(bad_with_reason(buf, size), "a range without a function: bad");
    }
}

static const check_test tests[] = {
    TEST_ENTRY(stored_hello_of_an_older_version),
    TEST_ENTRY(code_record_caps),
    TEST_ENTRY(round_trip_every_type),
    TEST_ENTRY(code_lookups),
    TEST_ENTRY(counters_in_range),
    TEST_ENTRY(empty_strings_and_longest_string),
    TEST_ENTRY(every_strict_prefix_needs_more),
    TEST_ENTRY(frames_back_to_back),
    TEST_ENTRY(length_limit),
    TEST_ENTRY(unknown_types),
    TEST_ENTRY(payload_shorter_than_fixed_part),
    TEST_ENTRY(hello_of_an_older_agent),
    TEST_ENTRY(trailing_bytes),
    TEST_ENTRY(string_lengths),
    TEST_ENTRY(invalid_utf8_in_strings),
    TEST_ENTRY(hello_checks),
    TEST_ENTRY(stack_thread_frame_count),
    TEST_ENTRY(stack_end_values),
    TEST_ENTRY(profile_status_values),
    TEST_ENTRY(timeline_record_values),
    TEST_ENTRY(valid_utf8_table),
    TEST_ENTRY(valid_utf8_agrees_with_agent_sanitizer),
    TEST_ENTRY(garbage_never_crashes_or_overreads),
    TEST_ENTRY(record_flags),
    TEST_ENTRY(encoder_round_trips_through_the_decoder),
    TEST_ENTRY(encoder_cuts_long_strings_and_flags_it),
    TEST_ENTRY(stamped_seq_is_the_encoding_with_it),
    TEST_ENTRY(commands),
    TEST_END,
};

int main(int argc, char **argv)
{
    make_samples();
    return check_main_each(argc, argv, tests, rng_reset, NULL);
}
