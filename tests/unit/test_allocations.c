/* test_allocations.c -- unit tests for the allocation records
 * (proto/wire_alloc.h: record 33 and WIRE_CMD_ALLOCATIONS) and their fold by
 * type and by (type, stack) (server/allocsites.c), driven through the wire
 * and session_apply with hand-made records (tests/unit/records.h).
 *
 * The estimates: an AllocationSampled sample stands for (mean - 1) + (size -
 * SampledByteOffset) bytes, an AllocationTick one for the bytes since the last
 * tick; objects are those bytes over the object's size; the samples the agent
 * did not send scale every total alike; the caps count what they leave out;
 * the routes answer the totals, the tree, a pprof and a speedscope file.
 * Build: make build/tests/test_allocations && build/tests/test_allocations
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixtures.h"
#include "records.h"
#include "session.h"
#include "sessions.h"
#include "views_event.h"
#include "wire_decode.h"
#include "wire_encode.h"

#define ARRAYS_AT 0x7f0000001000ull
#define NODES_AT 0x7f0000002000ull
#define ROUND_AT 0x7f0000003000ull
#define MEAN ((double)WIRE_ALLOC_SAMPLING_MEAN)

static const alloc_type *type_of(const session *s, const char *name)
{
    for (uint32_t i = 0; s->allocations && i < s->allocations->type_count; i++)
        if (strcmp(s->allocations->types[i].name, name) == 0)
            return &s->allocations->types[i];
    return NULL;
}

static int near(double a, double b)
{
    return a - b < 1e-6 * (b > 1 ? b : 1) && b - a < 1e-6 * (b > 1 ? b : 1);
}

TEST(allocation_records_round_trip_and_are_checked)
{
    static uint8_t buf[sizeof(wire_frame_header) + WIRE_MAX_PAYLOAD];
    wire_stack_frame frames[2] = {{ARRAYS_AT, ARRAYS_AT + 0x10}, {ROUND_AT, ROUND_AT + 0x20}};
    wire_record r = rec_allocation(7, "System.Byte[]", 1024, 100, WIRE_ALLOC_SAMPLED, 3, frames, 2,
                                   5),
                back;
    wire_frame f;
    size_t n, used;
    const char *why = NULL;

    n = rec_frame(&r, buf);
    CHECK(wire_decode_frame(buf, n, &f, &used, &why) == WIRE_DECODE_OK &&
              wire_decode_record(&f, &back, &why) == WIRE_DECODE_OK,
          "decodes (%s)", why ? why : "");
    CHECK(back.u.allocation.object_size == 1024 && back.u.allocation.unsent == 3 &&
              back.stack_frame_count == 2 && wire_record_frame(&back, 1).function_id == ROUND_AT &&
              back.strings[0].length == 13,
          "its fields, frames and type read back");
    r.u.allocation.source = 3;
    n = rec_frame(&r, buf);
    wire_decode_frame(buf, n, &f, &used, &why);
    CHECK(wire_decode_record(&f, &back, &why) == WIRE_DECODE_BAD, "an unknown source: bad");
    r.u.allocation.source = WIRE_ALLOC_TICK, r.u.allocation.object_size = 0;
    n = rec_frame(&r, buf);
    wire_decode_frame(buf, n, &f, &used, &why);
    CHECK(wire_decode_record(&f, &back, &why) == WIRE_DECODE_BAD, "no size: bad");
    r.u.allocation.kind = WIRE_ALLOC_KIND_UNSENT_ONLY, r.u.allocation.frame_count = 0;
    r.stack_frame_count = 0;
    n = rec_frame(&r, buf);
    wire_decode_frame(buf, n, &f, &used, &why);
    CHECK(wire_decode_record(&f, &back, &why) == WIRE_DECODE_OK, "no size, only unsent: fine");
    r = rec_allocation(7, "T", 24, 0, WIRE_ALLOC_TICK, 0, frames, 2, 5);
    n = rec_frame(&r, buf);
    ((wire_allocation *)(buf + sizeof(wire_frame_header)))->frame_count = WIRE_ALLOC_MAX_FRAMES + 1;
    wire_decode_frame(buf, n, &f, &used, &why);
    CHECK(wire_decode_record(&f, &back, &why) == WIRE_DECODE_BAD, "more frames than allowed");
}

TEST(allocations_command)
{
    uint8_t buf[sizeof(wire_frame_header) + 16];
    wire_frame_header h = {.type = WIRE_CMD_ALLOCATIONS};
    wire_cmd_allocations cmd = {.enabled = 1};
    wire_command c;
    size_t size, used = 0;
    const char *why = NULL;

    size = wire_encode(buf, &h, &cmd, sizeof(cmd), NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_OK &&
              c.type == WIRE_CMD_ALLOCATIONS && c.u.allocations.enabled == 1,
          "on");
    size = wire_encode(buf, &h, &cmd, 2, NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_BAD, "short: bad");
}

TEST(samples_are_scaled_per_source)
{
    session *s = rec_live_session(1);
    wire_stack_frame arrays[2] = {{ARRAYS_AT, 0}, {ROUND_AT, 0}};
    wire_stack_frame nodes[2] = {{NODES_AT, 0}, {ROUND_AT, 0}};
    const alloc_type *a, *b;

    /* sampled: 1024-byte arrays whose sample fell 24 bytes in: (mean - 1) + 1000 bytes each */
    for (int i = 0; i < 7; i++)
        CHECK(rec_feed(s, rec_allocation(7, "System.Byte[]", 1024, 24, WIRE_ALLOC_SAMPLED, 0,
                                         arrays, 2, 100 + i)) == 0,
              "fed (%s)", rec_why ? rec_why : "");
    for (int i = 0; i < 3; i++)
        rec_feed(s, rec_allocation(7, "App.Node", 48, 0, WIRE_ALLOC_SAMPLED, 0, nodes, 2, 200 + i));
    a = type_of(s, "System.Byte[]"), b = type_of(s, "App.Node");
    CHECK(a && b && a->samples == 7 && b->samples == 3, "two types, their samples");
    CHECK(a && near(a->bytes, 7 * (MEAN - 1 + 1000)) && near(a->objects, a->bytes / 1024),
          "byte[]: the runtime's estimator (%.0f bytes)", a ? a->bytes : 0);
    CHECK(b && near(b->bytes, 3 * (MEAN - 1 + 48)) && near(b->objects, b->bytes / 48),
          "nodes: likewise");
    CHECK(s->allocations->stack_count == 2, "one stack per (type, stack)");
    /* a tick stands for the bytes since the last one, on its object's type */
    rec_feed(s, rec_allocation(8, "App.Node", 48, 100000, WIRE_ALLOC_TICK, 0, nodes, 2, 300));
    CHECK(near(b->bytes, 3 * (MEAN - 1 + 48) + 100000), "a tick adds its bytes");
    CHECK(s->allocations->stack_count == 2 && s->allocations->source == WIRE_ALLOC_TICK,
          "the same stack; the source the last one's");
    session_free(s);
}

TEST(unsent_samples_scale_every_total)
{
    session *s = rec_live_session(1);
    wire_stack_frame frames[1] = {{ARRAYS_AT, 0}};
    wire_record only = rec_allocation(0, "", 0, 0, WIRE_ALLOC_SAMPLED, 6, NULL, 0, 50);

    only.u.allocation.kind = WIRE_ALLOC_KIND_UNSENT_ONLY;
    CHECK(rec_feed(s, rec_allocation(7, "T", 100, 0, WIRE_ALLOC_SAMPLED, 0, frames, 1, 10)) == 0,
          "a sample");
    CHECK(rec_feed(s, rec_allocation(7, "T", 100, 0, WIRE_ALLOC_SAMPLED, 2, frames, 1, 20)) == 0,
          "a sample after 2 not sent");
    CHECK(rec_feed(s, only) == 0, "6 more not sent, alone (%s)", rec_why ? rec_why : "");
    CHECK(s->allocations->samples == 2 && s->allocations->unsent == 8, "2 received, 8 not sent");
    CHECK(near(alloc_scale(s->allocations), 5.0), "each received one stands for 5");
    CHECK(s->allocations->type_count == 1, "the count-only record makes no type");
    session_free(s);
}

TEST(caps_count_what_they_leave_out)
{
    session *s = rec_live_session(1);
    wire_stack_frame frames[1];
    char name[32];
    uint32_t i;

    for (i = 0; i < ALLOC_TYPES_MAX + 5; i++) {
        snprintf(name, sizeof(name), "T%u", i);
        frames[0] = (wire_stack_frame){ARRAYS_AT + i, 0};
        rec_apply(s, rec_allocation(7, name, 64, 0, WIRE_ALLOC_SAMPLED, 0, frames, 1, i));
    }
    CHECK(s->allocations->type_count == ALLOC_TYPES_MAX && s->allocations->types_dropped == 5,
          "%u types, 5 past the cap counted", ALLOC_TYPES_MAX);
    CHECK(s->allocations->samples == ALLOC_TYPES_MAX + 5, "every sample in the totals");
    for (i = 0; i < ALLOC_STACKS_MAX; i++) {
        frames[0] = (wire_stack_frame){NODES_AT + i, 0};
        rec_apply(s, rec_allocation(7, "T0", 64, 0, WIRE_ALLOC_SAMPLED, 0, frames, 1, i));
    }
    CHECK(s->allocations->stack_count == ALLOC_STACKS_MAX &&
              s->allocations->stacks_dropped == ALLOC_TYPES_MAX,
          "%u stacks, the rest counted (%llu)", ALLOC_STACKS_MAX,
          (unsigned long long)s->allocations->stacks_dropped);
    session_free(s);
}

TEST(routes_answer_types_tree_and_pprof)
{
    static const char *const stack[] = {"group=stack", NULL},
                             *const pprof[] = {"format=pprof", NULL},
                             *const thread[] = {"group=thread", NULL},
                             *const speedscope[] = {"format=speedscope", NULL};
    wire_stack_frame arrays[2] = {{ARRAYS_AT, 0}, {ROUND_AT, 0}};
    wire_stack_frame nodes[2] = {{NODES_AT, 0}, {ROUND_AT, 0}};
    fixture_reply r;
    json_t *types, *tree, *round;
    char path[64];
    session *s;

    sessions_lock();
    s = fixture_session("app");
    if (!CHECK(s != NULL, "a session")) {
        sessions_unlock();
        return;
    }
    snprintf(path, sizeof(path), "/api/sessions/%d/allocations", s->id);
    rec_apply(s, rec_function_name(ARRAYS_AT, 0, "App.AllocArrays()", 0));
    rec_apply(s, rec_function_name(NODES_AT, 0, "App.AllocNodes()", 0));
    rec_apply(s, rec_function_name(ROUND_AT, 0, "App.Round()", 0));
    for (int i = 0; i < 7; i++)
        rec_apply(s, rec_allocation(7, "System.Byte[]", 1024, 1024, WIRE_ALLOC_SAMPLED, 0, arrays,
                                    2, 100 + i));
    for (int i = 0; i < 3; i++)
        rec_apply(s, rec_allocation(7, "App.Node", 48, 48, WIRE_ALLOC_SAMPLED, 0, nodes, 2, 200));
    sessions_unlock();

    r = fixture_call("GET", path, NULL, NULL);
    types = json_object_get(r.json, "types");
    CHECK(r.status == 200 && json_array_size(types) == 2 &&
              strcmp(json_string_value(json_object_get(json_array_get(types, 0), "type")),
                     "System.Byte[]") == 0 &&
              json_integer_value(json_object_get(json_array_get(types, 0), "bytes")) ==
                  7 * (WIRE_ALLOC_SAMPLING_MEAN - 1) &&
              strcmp(json_string_value(json_object_get(r.json, "source")), "sampled") == 0,
          "the types, most bytes first");
    fixture_reply_free(&r);

    r = fixture_call("GET", path, stack, NULL);
    tree = json_object_get(r.json, "tree");
    round = json_array_get(json_object_get(tree, "children"), 0);
    CHECK(r.status == 200 &&
              strcmp(json_string_value(json_object_get(round, "name")), "App.Round()") == 0 &&
              json_array_size(json_object_get(round, "children")) == 2 &&
              json_integer_value(json_object_get(round, "bytes")) ==
                  10 * (WIRE_ALLOC_SAMPLING_MEAN - 1),
          "the tree: callers first, the caller holding both");
    fixture_reply_free(&r);

    r = fixture_call("GET", path, pprof, NULL);
    CHECK(r.status == 200 && r.text && (uint8_t)r.text[0] == 0x1f && (uint8_t)r.text[1] == 0x8b,
          "a gzip file");
    fixture_reply_free(&r);
    r = fixture_call("GET", path, speedscope, NULL);
    CHECK(r.status == 200 &&
              strcmp(json_string_value(json_object_get(
                         json_array_get(json_object_get(r.json, "profiles"), 0), "unit")),
                     "bytes") == 0 &&
              json_array_size(json_object_get(
                  json_array_get(json_object_get(r.json, "profiles"), 0), "samples")) == 2,
          "speedscope: one sample per (type, stack), in bytes");
    fixture_reply_free(&r);
    CHECK(fixture_status_is("GET", path, thread, NULL, 400), "an unknown group: 400");
    CHECK(fixture_status_is("POST", path, NULL, "{}", 400), "a body without enabled: 400");
    fixture_sessions_clear();
}

/* Samples 0.1 s apart over three seconds, a late one for the first, then
 * a fourth second whose first sample says 4 were not sent before it: each
 * second closed is one allocation_second event, the late one is added to its
 * own second, the 4 unsent scale the third second alone, ticks close the
 * newest second once it is over, and ?series=second answers every second. */
TEST(seconds_are_a_series_and_closed_ones_are_events)
{
    static const char *const series[] = {"series=second", NULL}, *const bad[] = {"series=minute",
                                                                                 NULL};
    wire_stack_frame frames[1] = {{ARRAYS_AT, 0}};
    const uint64_t sec = 1000000000ull, base = REC_MONO + 7 * sec; /* wall: ...006.0 s */
    const int64_t first = ((int64_t)(base + REC_OFFSET)) / (int64_t)sec;
    uint64_t events;
    wire_record tick;
    fixture_reply r;
    json_t *list, *ev;
    char path[64];
    session *s;
    int i;

    sessions_lock();
    s = fixture_session("app");
    if (!CHECK(s != NULL, "a session")) {
        sessions_unlock();
        return;
    }
    snprintf(path, sizeof(path), "/api/sessions/%d/allocations", s->id);
    events = s->events.last_seq;
    for (i = 0; i < 30; i++) /* 10 per second, over seconds first .. first + 2 */
        CHECK(rec_apply(s, rec_allocation(7, "T", 1024, 1024, WIRE_ALLOC_SAMPLED, 0, frames, 1,
                                          base + (uint64_t)i * sec / 10)) == 0,
              "fed (%s)", rec_why ? rec_why : "");
    CHECK(s->events.last_seq - events == 2, "two seconds closed, two events (%llu)",
          (unsigned long long)(s->events.last_seq - events));
    rec_apply(s, rec_allocation(7, "T", 1024, 1024, WIRE_ALLOC_SAMPLED, 0, frames, 1,
                                base + sec / 2)); /* late: the first second's */
    rec_apply(s, rec_allocation(7, "T", 1024, 1024, WIRE_ALLOC_SAMPLED, 4, frames, 1,
                                base + 3 * sec)); /* 4 unsent before it: the third second's */
    CHECK(s->events.last_seq - events == 3,
          "the late one logs nothing, the fourth second closes the third");
    CHECK(s->allocations->second_total == 4 && s->allocations->seconds[0].second == first &&
              s->allocations->seconds[0].samples == 11 &&
              s->allocations->seconds[1].samples == 10 && s->allocations->seconds[3].samples == 1,
          "four seconds, the late sample in the first");
    tick = rec_allocation(0, "", 0, 0, WIRE_ALLOC_SAMPLED, 0, NULL, 0, base + 3 * sec + sec / 2);
    tick.u.allocation.kind = WIRE_ALLOC_KIND_UNSENT_ONLY;
    rec_apply(s, tick); /* within the fourth second: it stays open */
    CHECK(s->events.last_seq - events == 3, "a tick within the newest second closes nothing");
    tick.time_ns = base + 4 * sec + sec / 5;
    rec_apply(s, tick);
    CHECK(s->events.last_seq - events == 4, "a tick after its end closes the newest second");
    rec_apply(s, tick);
    CHECK(s->events.last_seq - events == 4, "once");
    rec_apply(s,
              rec_allocation(7, "T", 1024, 1024, WIRE_ALLOC_SAMPLED, 0, frames, 1, base + 6 * sec));
    CHECK(s->events.last_seq - events == 4 && s->allocations->second_total == 5,
          "a later second opens without logging the closed one again");
    ev = view_event(s, eventlog_at(&s->events, events + 1));
    CHECK(strcmp(json_string_value(json_object_get(ev, "type")), "allocation_second") == 0 &&
              json_integer_value(json_object_get(ev, "samples")) == 10 &&
              json_integer_value(json_object_get(ev, "bytes")) == (json_int_t)(10.0 * (MEAN - 1)) &&
              json_real_value(json_object_get(ev, "time_ms")) == (double)first * 1000.0,
          "the first second's event: 10 samples, their bytes");
    json_decref(ev);
    ev = view_event(s, eventlog_at(&s->events, events + 3));
    CHECK(json_integer_value(json_object_get(ev, "bytes")) == (json_int_t)(14.0 * (MEAN - 1)) &&
              json_real_value(json_object_get(ev, "time_ms")) == (double)(first + 2) * 1000.0,
          "the third second's: scaled by the 4 not sent, (10 + 4) / 10");
    json_decref(ev);
    sessions_unlock();

    r = fixture_call("GET", path, series, NULL);
    list = json_object_get(r.json, "per_second");
    CHECK(r.status == 200 && json_array_size(list) == 5 &&
              json_integer_value(json_object_get(json_array_get(list, 0), "samples")) == 11 &&
              json_integer_value(json_object_get(json_array_get(list, 1), "bytes")) ==
                  (json_int_t)(10.0 * (MEAN - 1)) &&
              json_integer_value(json_object_get(json_array_get(list, 2), "bytes")) ==
                  (json_int_t)(14.0 * (MEAN - 1)) &&
              json_integer_value(json_object_get(json_array_get(list, 2), "unsent")) == 4 &&
              json_integer_value(json_object_get(r.json, "seconds_evicted")) == 0,
          "?series=second: the five seconds, oldest first, each scaled by its own");
    fixture_reply_free(&r);
    r = fixture_call("GET", path, NULL, NULL);
    CHECK(r.status == 200 && !json_object_get(r.json, "per_second"), "no series unless asked");
    fixture_reply_free(&r);
    CHECK(fixture_status_is("GET", path, bad, NULL, 400), "an unknown series: 400");
    fixture_sessions_clear();
}

/* More seconds than kept: the oldest are evicted and counted, the ring keeps
 * the newest in order. */
TEST(seconds_keep_the_newest)
{
    session *s = rec_live_session(1);
    wire_stack_frame frames[1] = {{ARRAYS_AT, 0}};
    uint32_t first, kept, i;

    for (i = 0; i < ALLOC_SECONDS_KEEP + 10; i++)
        rec_apply(s, rec_allocation(7, "T", 64, 64, WIRE_ALLOC_SAMPLED, 0, frames, 1,
                                    REC_MONO + (uint64_t)i * 1000000000ull + 1));
    kept = alloc_seconds_kept(s->allocations, &first);
    CHECK(kept == ALLOC_SECONDS_KEEP && s->allocations->second_total == ALLOC_SECONDS_KEEP + 10,
          "the newest %u kept", ALLOC_SECONDS_KEEP);
    CHECK(s->allocations->seconds[(first + kept - 1) % s->allocations->second_cap].second -
                  s->allocations->seconds[first].second ==
              ALLOC_SECONDS_KEEP - 1,
          "oldest first, consecutive");
    session_free(s);
}

static const check_test tests[] = {
    TEST_ENTRY(allocation_records_round_trip_and_are_checked),
    TEST_ENTRY(allocations_command),
    TEST_ENTRY(samples_are_scaled_per_source),
    TEST_ENTRY(unsent_samples_scale_every_total),
    TEST_ENTRY(caps_count_what_they_leave_out),
    TEST_ENTRY(routes_answer_types_tree_and_pprof),
    TEST_ENTRY(seconds_are_a_series_and_closed_ones_are_events),
    TEST_ENTRY(seconds_keep_the_newest),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
