/* test_timeline.c -- unit tests for server/timeline.c (GCs and runtime
 * suspensions), driven through session_apply with hand-made records.
 *
 * A GC is a start and the next finish (duration from the target's monotonic
 * clock, start as wall clock, generation bits and reason kept, a `gc` event);
 * a finish without a start is ignored; a start over an unfinished GC closes
 * it as incomplete. A suspension opens at phase STARTED and closes at
 * RESUME_FINISHED or, aborted, at SUSPEND_ABORTED (a `suspension` event);
 * ends without a start are ignored; a second start drops the first. Every
 * phase carries its suspension's reason and pairs within its class (ours,
 * reason 9, or the runtime's): the two interleavings the runtime produces
 * (a GC's start before our resume finished, ours before a GC's) give two
 * whole suspensions each, listed by start. The
 * sampler's own suspensions log no event while a profile runs. The rings keep
 * the newest TIMELINE_KEEP and count evictions; copies filter by overlap with
 * a window and keep the newest `limit`, oldest first.
 * Build: make build/tests/test_timeline && build/tests/test_timeline
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "record_kinds.h"
#include "records.h"
#include "session.h"
#include "views_event.h"

#define WALL(t) ((int64_t)(t) + REC_OFFSET)

static void gc_start(session *s, uint64_t t, uint32_t generations, uint32_t reason)
{
    rec_apply(s, rec_gc_started(generations, reason, t));
}

static void gc_end(session *s, uint64_t t) { rec_apply(s, rec_gc_finished(t)); }

static void suspend(session *s, uint64_t t, uint32_t phase, uint32_t reason)
{
    rec_apply(s, rec_runtime_suspend(phase, reason, t));
}

static const timeline_gc *gc_at(const session *s, uint64_t i)
{
    return &s->timeline.gcs[i % TIMELINE_KEEP];
}

static const timeline_suspension *susp_at(const session *s, uint64_t i)
{
    return &s->timeline.suspensions[i % TIMELINE_KEEP];
}

/* ---- tests ---------------------------------------------------------------- */

TEST(gc_pairs)
{
    session *s = rec_live_session(1);
    const eventlog_entry *e;
    uint64_t events = s->events.last_seq;

    gc_end(s, REC_MONO + 10); /* a collection already running when we started watching */
    CHECK(s->timeline.gc_total == 0 && s->timeline.unmatched == 1 && s->events.last_seq == events,
          "a finish without a start is ignored, counted, logs nothing");
    gc_start(s, REC_MONO + 1000, 0x7, 1);
    CHECK(s->timeline.gc_total == 0 && s->timeline.gc_open, "a start opens a GC");
    gc_end(s, REC_MONO + 813000);
    CHECK(s->timeline.gc_total == 1 && !s->timeline.gc_open, "its finish closes it");
    CHECK(gc_at(s, 0)->start_ns == WALL(REC_MONO + 1000) && gc_at(s, 0)->duration_ns == 812000 &&
              gc_at(s, 0)->generations == 0x7 && gc_at(s, 0)->reason == 1 && gc_at(s, 0)->complete,
          "start (wall clock), duration (monotonic), generations, reason, complete");
    e = eventlog_at(&s->events, s->events.last_seq);
    CHECK(s->events.last_seq == events + 1 && e->type == WIRE_GC_FINISHED && e->value == 812000 &&
              e->extra == 0x7 && e->id == 1 && e->time_ns == WALL(REC_MONO + 1000) &&
              strcmp(record_kind_event_name(e->type), "gc") == 0,
          "one gc event: duration, generations, reason, at the GC's start");

    gc_start(s, REC_MONO + 2000000, 0x1, 0);
    gc_start(s, REC_MONO + 3000000, 0x3, 0);
    gc_end(s, REC_MONO + 3000500);
    CHECK(s->timeline.gc_total == 3 && !gc_at(s, 1)->complete && gc_at(s, 1)->duration_ns == 0 &&
              gc_at(s, 1)->generations == 0x1 && gc_at(s, 2)->complete &&
              gc_at(s, 2)->duration_ns == 500,
          "a start over an unfinished GC closes that one as incomplete");
    CHECK(s->timeline.unmatched == 2 && s->events.last_seq == events + 2,
          "counted; the incomplete one logs no event");
    gc_start(s, REC_MONO + 4000000, 0x1, 0);
    gc_end(s, REC_MONO + 3999999);
    CHECK(gc_at(s, 3)->duration_ns == 0 && gc_at(s, 3)->complete,
          "a finish stamped before its start: duration 0, not a huge number");
    CHECK(strcmp(timeline_gc_reason_name(1, 0), "induced") == 0 &&
              strcmp(timeline_gc_reason_name(0, 0), "other") == 0 &&
              strcmp(timeline_gc_reason_name(7, 0), "other") == 0,
          "GC reason names from the profiling API");
    CHECK(strcmp(timeline_gc_reason_name(0, 1), "alloc_soh") == 0 &&
              strcmp(timeline_gc_reason_name(1, 2), "induced") == 0 &&
              strcmp(timeline_gc_reason_name(0, 5), "alloc_loh") == 0 &&
              strcmp(timeline_gc_reason_name(1, 18), "induced_aggressive") == 0 &&
              strcmp(timeline_gc_reason_name(0, 19), "other") == 0 &&
              strcmp(timeline_gc_reason_name(1, 1000), "induced") == 0,
          "the runtime's own reason wins when it said one it knows");
    session_free(s);
}

/* The runtime's own reason rides in the start's reason (wire.h): kept with
 * the GC, and named by it in the event and the timeline; without it, the
 * profiling API's induced/other. */
TEST(gc_runtime_reason)
{
    session *s = rec_live_session(1);
    const eventlog_entry *e;
    json_t *j;

    gc_start(s, REC_MONO + 100, 0x1, WIRE_GC_REASON(0, 4 + 1)); /* alloc_loh */
    gc_end(s, REC_MONO + 200);
    gc_start(s, REC_MONO + 300, 0x7, WIRE_GC_REASON(1, 1 + 1)); /* induced, both say so */
    gc_end(s, REC_MONO + 400);
    gc_start(s, REC_MONO + 500, 0x1, WIRE_GC_REASON(0, 0)); /* an older agent: unknown */
    gc_end(s, REC_MONO + 600);
    CHECK(gc_at(s, 0)->reason == 0 && gc_at(s, 0)->runtime_reason == 5 &&
              gc_at(s, 1)->reason == 1 && gc_at(s, 1)->runtime_reason == 2 &&
              gc_at(s, 2)->reason == 0 && gc_at(s, 2)->runtime_reason == 0,
          "both reasons kept apart");
    e = eventlog_at(&s->events, s->events.last_seq - 2);
    j = view_event(s, e);
    CHECK(strcmp(json_string_value(json_object_get(j, "reason")), "alloc_loh") == 0 &&
              json_is_false(json_object_get(j, "induced")),
          "the event names the runtime's reason");
    json_decref(j);
    e = eventlog_at(&s->events, s->events.last_seq);
    j = view_event(s, e);
    CHECK(strcmp(json_string_value(json_object_get(j, "reason")), "other") == 0,
          "without it: the profiling API's word");
    json_decref(j);
    session_free(s);
}

TEST(suspension_phases)
{
    session *s = rec_live_session(1);
    const eventlog_entry *e;
    uint64_t events = s->events.last_seq;

    suspend(s, REC_MONO + 100, WIRE_SUSPEND_STARTED, 1);
    suspend(s, REC_MONO + 200, WIRE_SUSPEND_FINISHED, 1);
    suspend(s, REC_MONO + 900, WIRE_RESUME_STARTED, 1);
    CHECK(s->timeline.suspension_total == 0, "open until the resume finishes");
    suspend(s, REC_MONO + 1100, WIRE_RESUME_FINISHED, 1);
    CHECK(s->timeline.suspension_total == 1 && susp_at(s, 0)->start_ns == WALL(REC_MONO + 100) &&
              susp_at(s, 0)->duration_ns == 1000 && susp_at(s, 0)->reason == 1 &&
              !susp_at(s, 0)->aborted,
          "phase 1 to 5: one suspension, its reason from phase 1, 1000 ns");
    e = eventlog_at(&s->events, s->events.last_seq);
    CHECK(s->events.last_seq == events + 1 && e->type == WIRE_RUNTIME_SUSPEND && e->id == 1 &&
              e->value == 1000 && e->extra == 0 &&
              strcmp(record_kind_event_name(e->type), "suspension") == 0,
          "a suspension event");

    suspend(s, REC_MONO + 2000, WIRE_SUSPEND_STARTED, 9);
    suspend(s, REC_MONO + 2300, WIRE_SUSPEND_ABORTED, 9);
    CHECK(s->timeline.suspension_total == 2 && susp_at(s, 1)->aborted &&
              susp_at(s, 1)->duration_ns == 300 && susp_at(s, 1)->reason == 9,
          "an aborted suspension closes at phase 3");
    e = eventlog_at(&s->events, s->events.last_seq);
    CHECK(e->type == WIRE_RUNTIME_SUSPEND && e->extra == 1 && e->id == 9, "its event says aborted");

    events = s->events.last_seq;
    suspend(s, REC_MONO + 3000, WIRE_RESUME_FINISHED, 1);
    suspend(s, REC_MONO + 3001, WIRE_SUSPEND_ABORTED, 9);
    suspend(s, REC_MONO + 3002, WIRE_SUSPEND_FINISHED, 1);
    suspend(s, REC_MONO + 3003, WIRE_RESUME_STARTED, 9);
    CHECK(s->timeline.suspension_total == 2 && s->events.last_seq == events &&
              s->timeline.unmatched == 2,
          "ends without a start are ignored (two counted: the closing phases)");
    suspend(s, REC_MONO + 4000, WIRE_SUSPEND_STARTED, 1);
    suspend(s, REC_MONO + 5000, WIRE_SUSPEND_STARTED, 7);
    suspend(s, REC_MONO + 5400, WIRE_RESUME_FINISHED, 7);
    CHECK(s->timeline.suspension_total == 3 && susp_at(s, 2)->reason == 7 &&
              susp_at(s, 2)->duration_ns == 400 && s->timeline.unmatched == 3,
          "a start over an open suspension drops the open one");
    CHECK(strcmp(timeline_suspend_reason_name(9), "profiler") == 0 &&
              strcmp(timeline_suspend_reason_name(1), "gc") == 0 &&
              strcmp(timeline_suspend_reason_name(7), "gc_prep") == 0 &&
              strcmp(timeline_suspend_reason_name(5), "other") == 0 &&
              strcmp(timeline_suspend_reason_name(1234), "other") == 0,
          "suspension reason names");
    session_free(s);
}

TEST(sampler_suspensions_not_logged_while_profiling)
{
    session *s = rec_live_session(1);
    uint64_t events;

    profile_start(&s->profile, 99, REC_NOW);
    events = s->events.last_seq;
    suspend(s, REC_MONO + 100, WIRE_SUSPEND_STARTED, TIMELINE_SUSPEND_FOR_PROFILER);
    suspend(s, REC_MONO + 200, WIRE_RESUME_FINISHED, TIMELINE_SUSPEND_FOR_PROFILER);
    suspend(s, REC_MONO + 300, WIRE_SUSPEND_STARTED, 1);
    suspend(s, REC_MONO + 400, WIRE_RESUME_FINISHED, 1);
    CHECK(s->timeline.suspension_total == 2 && s->events.last_seq == events + 1,
          "while a profile runs, our own suspension is in the timeline but not the log; a GC's is");
    profile_stop(&s->profile, REC_NOW);
    suspend(s, REC_MONO + 500, WIRE_SUSPEND_STARTED, TIMELINE_SUSPEND_FOR_PROFILER);
    suspend(s, REC_MONO + 600, WIRE_RESUME_FINISHED, TIMELINE_SUSPEND_FOR_PROFILER);
    CHECK(s->events.last_seq == events + 2,
          "with no profile running, a snapshot's suspension is logged");
    session_free(s);
}

TEST(evictions_and_copies)
{
    session *s = rec_live_session(1);
    timeline_gc *copy = NULL;
    timeline_suspension *scopy = NULL;
    size_t n, matched;
    int ok = 1;

    for (uint64_t i = 0; i < TIMELINE_KEEP + 10; i++) {
        gc_start(s, REC_MONO + i * 1000, 1, 0);
        gc_end(s, REC_MONO + i * 1000 + 100);
    }
    CHECK(s->timeline.gc_total == TIMELINE_KEEP + 10 && timeline_gcs_evicted(&s->timeline) == 10 &&
              s->timeline.gc_cap == TIMELINE_KEEP,
          "%u + 10 GCs: the ring holds %u, 10 evicted", TIMELINE_KEEP, TIMELINE_KEEP);
    CHECK(timeline_copy_gcs(&s->timeline, 0, INT64_MAX, TIMELINE_KEEP, &copy, &n, &matched) == 0 &&
              n == TIMELINE_KEEP && matched == TIMELINE_KEEP,
          "a copy of everything: the %u kept", TIMELINE_KEEP);
    for (size_t i = 0; copy && i < n; i++)
        ok &= copy[i].start_ns == WALL(REC_MONO + (i + 10) * 1000) && copy[i].duration_ns == 100;
    CHECK(ok, "oldest first, the first 10 gone");
    free(copy);

    /* a window: GCs starting at 20,000..20,999 ns and 21,000.. overlap [20,050, 21,050] */
    CHECK(timeline_copy_gcs(&s->timeline, WALL(REC_MONO + 20050), WALL(REC_MONO + 21050), 100,
                            &copy, &n, &matched) == 0 &&
              n == 2 && copy[0].start_ns == WALL(REC_MONO + 20000) &&
              copy[1].start_ns == WALL(REC_MONO + 21000),
          "a window keeps the entries that overlap it (one starting before it)");
    free(copy);
    CHECK(timeline_copy_gcs(&s->timeline, WALL(REC_MONO + 20000), WALL(REC_MONO + 29999), 3, &copy,
                            &n, &matched) == 0 &&
              n == 3 && matched == 10 && copy[0].start_ns == WALL(REC_MONO + 27000) &&
              copy[2].start_ns == WALL(REC_MONO + 29000),
          "a limit keeps the newest, oldest first, and says how many matched");
    free(copy);
    CHECK(timeline_copy_gcs(&s->timeline, WALL(REC_MONO) + 999999999999ll, INT64_MAX, 10, &copy, &n,
                            &matched) == 0 &&
              n == 0 && matched == 0 && copy == NULL,
          "an empty window: nothing, no allocation");
    CHECK(timeline_copy_suspensions(&s->timeline, 0, INT64_MAX, 10, &scopy, &n, &matched) == 0 &&
              n == 0 && scopy == NULL,
          "no suspensions yet");
    for (uint64_t i = 0; i < 5; i++) {
        suspend(s, REC_MONO + i * 10, WIRE_SUSPEND_STARTED, 1);
        suspend(s, REC_MONO + i * 10 + 5, WIRE_RESUME_FINISHED, 1);
    }
    CHECK(timeline_copy_suspensions(&s->timeline, 0, INT64_MAX, 10, &scopy, &n, &matched) == 0 &&
              n == 5 && scopy[4].start_ns == WALL(REC_MONO + 40) && scopy[4].duration_ns == 5 &&
              timeline_suspensions_evicted(&s->timeline) == 0,
          "suspensions copy the same way");
    free(scopy);
    session_free(s);
}

/* The runtime reports a resume as finished after it let the next suspender
 * in, on another thread: the records of a GC's suspension and ours interleave
 * both ways. (Times in us after REC_MONO.) */
TEST(interleaved_suspensions_pair_by_reason)
{
    session *s = rec_live_session(1);
    timeline_suspension *copy = NULL;
    size_t n, matched;
    const uint64_t US = 1000;

    /* a GC's 10..14, ours 13..17: our start before the GC's resume finished */
    suspend(s, REC_MONO + 10 * US, WIRE_SUSPEND_STARTED, 1);
    suspend(s, REC_MONO + 11 * US, WIRE_SUSPEND_FINISHED, 1);
    suspend(s, REC_MONO + 12 * US, WIRE_RESUME_STARTED, 1);
    suspend(s, REC_MONO + 13 * US, WIRE_SUSPEND_STARTED, 9);
    suspend(s, REC_MONO + 14 * US, WIRE_RESUME_FINISHED, 1);
    suspend(s, REC_MONO + 15 * US, WIRE_SUSPEND_FINISHED, 9);
    suspend(s, REC_MONO + 16 * US, WIRE_RESUME_STARTED, 9);
    suspend(s, REC_MONO + 17 * US, WIRE_RESUME_FINISHED, 9);
    /* ours 20..24, a GC's 23..27: the GC's start before our resume finished */
    suspend(s, REC_MONO + 20 * US, WIRE_SUSPEND_STARTED, 9);
    suspend(s, REC_MONO + 21 * US, WIRE_SUSPEND_FINISHED, 9);
    suspend(s, REC_MONO + 22 * US, WIRE_RESUME_STARTED, 9);
    suspend(s, REC_MONO + 23 * US, WIRE_SUSPEND_STARTED, 1);
    suspend(s, REC_MONO + 24 * US, WIRE_RESUME_FINISHED, 9);
    suspend(s, REC_MONO + 25 * US, WIRE_SUSPEND_FINISHED, 1);
    suspend(s, REC_MONO + 26 * US, WIRE_RESUME_STARTED, 1);
    suspend(s, REC_MONO + 27 * US, WIRE_RESUME_FINISHED, 1);
    /* a GC's 30..33, which closes after ours 31..32 */
    suspend(s, REC_MONO + 30 * US, WIRE_SUSPEND_STARTED, 1);
    suspend(s, REC_MONO + 31 * US, WIRE_SUSPEND_STARTED, 9);
    suspend(s, REC_MONO + 32 * US, WIRE_RESUME_FINISHED, 9);
    suspend(s, REC_MONO + 33 * US, WIRE_RESUME_FINISHED, 1);
    CHECK(s->timeline.suspension_total == 6 && s->timeline.unmatched == 0,
          "six whole suspensions, nothing unmatched");
    CHECK(timeline_copy_suspensions(&s->timeline, 0, INT64_MAX, 10, &copy, &n, &matched) == 0 &&
              n == 6,
          "all six copied");
    if (copy && n == 6) {
        static const struct {
            uint64_t start_us, us;
            uint32_t reason;
        } want[] = {{10, 4, 1}, {13, 4, 9}, {20, 4, 9}, {23, 4, 1}, {30, 3, 1}, {31, 1, 9}};
        int ok = 1;
        for (size_t i = 0; i < 6; i++)
            ok &= copy[i].start_ns == WALL(REC_MONO + want[i].start_us * US) &&
                  copy[i].duration_ns == want[i].us * US && copy[i].reason == want[i].reason &&
                  !copy[i].aborted;
        CHECK(ok, "each with its own start, duration and reason, listed by start");
    }
    free(copy);
    session_free(s);
}

/* The heap after each collection: a ring of its own, copied by window, kept
 * beside a snapshot (an observation, replayed alike), logging no event. */
TEST(heap_stats_after_each_gc)
{
    session *s = rec_live_session(1), *again = rec_live_session(2);
    uint64_t events = s->events.last_seq;
    timeline_heap *out = NULL;
    size_t n = 0, matched = 0;
    const char *why = NULL;

    for (uint64_t i = 0; i < 3; i++)
        CHECK(rec_apply(s, rec_gc_heap_stats(1000 * (i + 1), REC_MONO + 1000 * (i + 1))) == 0,
              "folded (%s)", rec_why ? rec_why : "");
    CHECK(s->timeline.heap_total == 3 && s->events.last_seq == events, "three kept, no event");
    CHECK(timeline_copy_heaps(&s->timeline, 0, INT64_MAX, 2, &out, &n, &matched) == 0 && n == 2 &&
              matched == 3 && out[0].size[0] == 2000 && out[1].size[4] == 15000 &&
              out[1].promoted[4] == 1500 &&
              out[1].time_ns == (int64_t)(REC_OFFSET + REC_MONO + 3000),
          "the newest two of three, oldest first: sizes, survivors, time");
    free(out);
    CHECK(record_kind_is_observation(WIRE_GC_HEAP_STATS) &&
              record_kind_of(WIRE_GC_HEAP_STATS)->replay(again, &(wire_record){0}, 5, 0, &why) ==
                  0 &&
              again->timeline.heap_total == 1,
          "an observation whose replay folds it");
    session_free(s);
    session_free(again);
}

static const check_test tests[] = {
    TEST_ENTRY(gc_pairs),
    TEST_ENTRY(gc_runtime_reason),
    TEST_ENTRY(suspension_phases),
    TEST_ENTRY(sampler_suspensions_not_logged_while_profiling),
    TEST_ENTRY(interleaved_suspensions_pair_by_reason),
    TEST_ENTRY(evictions_and_copies),
    TEST_ENTRY(heap_stats_after_each_gc),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
