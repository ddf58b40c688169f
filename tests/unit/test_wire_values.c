/* test_wire_values.c -- unit tests of the values of the stack, profile,
 * timeline, counter and code records as proto/wire_decode.c checks them:
 * frame_count bounded by WIRE_STACK_MAX_FRAMES and equal to what the payload
 * holds, frames read back from an unaligned buffer, stack kinds, thread
 * counts, profile states, rates and budgets, suspension phases and snapshot
 * ids checked, runtime-given labels (GC and suspension reasons, generation
 * bits) passed through; counters over their maximum refused; the code
 * records' caps.
 *
 * Frames are built by hand from the proto/wire.h structs and strings (u16
 * byte count + UTF-8): wirefix.h, with one valid sample of every record type.
 * Build: make build/tests/test_wire_values && build/tests/test_wire_values
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "wire_decode.h"
#include "wirefix.h"

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

static const check_test tests[] = {
    TEST_ENTRY(stack_thread_frame_count),
    TEST_ENTRY(stack_end_values),
    TEST_ENTRY(profile_status_values),
    TEST_ENTRY(timeline_record_values),
    TEST_ENTRY(counters_in_range),
    TEST_ENTRY(code_record_caps),
    TEST_END,
};

int main(int argc, char **argv)
{
    make_samples();
    return check_main_each(argc, argv, tests, NULL, NULL);
}
