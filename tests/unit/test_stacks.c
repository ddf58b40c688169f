/* test_stacks.c -- unit tests for server/stacks.c (assembling stack walks and
 * keeping snapshots), driven through session_apply with hand-made records.
 *
 * A snapshot's thread records gathered until its END (frames, hresults, walk
 * times, thread order kept; the request id found again); walks of two
 * snapshots interleaved and closed in the other order; threads missing
 * (complete: false); an END for a walk never seen; a repeated END and a late
 * thread ignored and counted; one thread twice in a walk; more walks open at
 * once than STACKS_PENDING (the oldest abandoned); a new connection's hello
 * abandoning what was in progress; the newest STACKS_KEEP kept and the
 * STACKS_KEEP_FRAMES frame budget; a hostile walk over
 * WIRE_STACK_MAX_TOTAL_FRAMES cut at the leaf end and marked truncated;
 * sample walks handed to the profile, not kept; the `stack_snapshot` event; a
 * function named for a stack only is neither listed nor counted; the walks'
 * slots made at the first walk and freed with the session's content.
 * Build: make build/tests/test_stacks && build/tests/test_stacks
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "check.h"
#include "record_kinds.h"
#include "records.h"
#include "session.h"

/* Frames for thread records: frame i of thread `tid` is function tid*100+i, ip tid*1000+i;
 * every third frame is a native run (function 0). */
static wire_stack_frame g_frames[WIRE_STACK_MAX_FRAMES];

static wire_record stack_thread(uint64_t snap, uint64_t tid, uint32_t frames, uint32_t flags)
{
    for (uint32_t i = 0; i < frames; i++)
        g_frames[i] = (wire_stack_frame){i % 3 == 2 ? 0 : tid * 100 + i, tid * 1000 + i};
    return rec_stack_thread(
        (wire_stack_thread){snap, tid, (uint32_t)tid + 4000, 0, 7000 + tid, frames, flags},
        g_frames, REC_MONO + 100);
}

static wire_record stack_end(uint64_t snap, uint64_t request, uint32_t kind, uint32_t sent)
{
    return rec_stack_end(
        (wire_stack_end){snap, request, kind, sent, sent + 2, 0, 1, 0, 183000, 120000},
        REC_MONO + 100);
}

/* Applies one walk of `threads` threads (tids 1..threads, `frames` frames each) and its END. */
static void walk(session *s, uint64_t snap, uint64_t request, uint32_t kind, uint32_t threads,
                 uint32_t frames)
{
    for (uint32_t t = 1; t <= threads; t++)
        rec_apply(s, stack_thread(snap, t, frames, 0));
    rec_apply(s, stack_end(snap, request, kind, threads));
}

/* ---- tests ---------------------------------------------------------------- */

TEST(snapshot_assembled)
{
    session *s = rec_live_session(1);
    const stacks_walk *w;
    const eventlog_entry *e;
    uint64_t events = s->events.last_seq;
    wire_record r;
    int frames_ok = 1;

    rec_apply(s, stack_thread(5, 0x72, 4, 0));
    r = stack_thread(5, 0x71, 0, 0);
    r.u.stack_thread.hresult = (int32_t)0x80004005;
    rec_apply(s, r);
    rec_apply(s, stack_thread(5, 0x73, 7, WIRE_STACK_TRUNCATED));
    CHECK(s->stacks.kept_count == 0, "nothing kept before the END");
    rec_apply(s, stack_end(5, 42, WIRE_STACK_SNAPSHOT, 3));
    w = stacks_at(&s->stacks, 0);
    if (!CHECK(s->stacks.kept_count == 1 && w, "one snapshot kept after its END"))
        goto done;
    CHECK(w->id == 1 && w->snapshot_id == 5 && w->request_id == 42 &&
              w->kind == WIRE_STACK_SNAPSHOT,
          "numbered 1 in the session; agent id and request id kept");
    CHECK(w->time_ns == (int64_t)(REC_MONO + 100) + REC_OFFSET,
          "time = the suspension's, as wall clock");
    CHECK(w->suspend_ns == 183000 && w->walk_ns == 120000 && w->retries == 1 &&
              w->threads_total == 5 && w->threads_sent == 3 && stacks_complete(w),
          "END fields kept; all 3 threads arrived: complete");
    CHECK(w->thread_count == 3 && w->threads[0].thread_id == 0x72 &&
              w->threads[1].thread_id == 0x71 && w->threads[2].thread_id == 0x73,
          "threads in arrival order");
    CHECK(w->threads[1].hresult == (int32_t)0x80004005 && w->threads[1].frame_count == 0,
          "a failed walk is kept with its hresult and no frames");
    CHECK(w->threads[0].os_thread_id == 0x72 + 4000 && w->threads[0].walk_ns == 7000 + 0x72,
          "os thread id and walk time per thread");
    CHECK((w->threads[2].flags & WIRE_STACK_TRUNCATED) &&
              !(w->threads[0].flags & WIRE_STACK_TRUNCATED),
          "the truncated flag per thread");
    CHECK(w->frame_count == 11, "4 + 0 + 7 frames");
    for (uint32_t t = 0; t < 3; t++)
        for (uint32_t i = 0; i < w->threads[t].frame_count; i++) {
            const wire_stack_frame *f = &w->frames[w->threads[t].first_frame + i];
            uint64_t tid = w->threads[t].thread_id;
            frames_ok &= f->ip == tid * 1000 + i &&
                         f->function_id == (i % 3 == 2 ? 0 : tid * 100 + i);
        }
    CHECK(frames_ok, "every frame kept, leaf first, native runs as function 0");
    CHECK(stacks_by_request(&s->stacks, 42) == w && stacks_by_request(&s->stacks, 43) == NULL &&
              stacks_by_request(&s->stacks, 0) == NULL,
          "found by its request id (0 is never a request)");
    CHECK(stacks_by_id(&s->stacks, 1) == w && stacks_by_id(&s->stacks, 2) == NULL,
          "found by number");
    CHECK(s->events.last_seq == events + 1, "one event");
    e = eventlog_at(&s->events, s->events.last_seq);
    CHECK(e && e->type == WIRE_STACK_END && e->id == 1 && e->value == 183000 && e->extra == 3 &&
              e->time_ns == w->time_ns &&
              strcmp(record_kind_event_name(e->type), "stack_snapshot") == 0,
          "a stack_snapshot event: number, suspend ns, threads");
done:
    session_free(s);
}

TEST(walks_interleaved_and_closed_out_of_order)
{
    session *s = rec_live_session(1);
    const stacks_walk *a, *b;

    rec_apply(s, stack_thread(7, 1, 3, 0));
    rec_apply(s, stack_thread(8, 1, 5, 0));
    rec_apply(s, stack_thread(7, 2, 2, 0));
    rec_apply(s, stack_thread(8, 2, 1, 0));
    rec_apply(s, stack_end(8, 80, WIRE_STACK_SNAPSHOT, 2));
    rec_apply(s, stack_thread(7, 3, 4, 0));
    rec_apply(s, stack_end(7, 70, WIRE_STACK_SNAPSHOT, 3));
    a = stacks_by_request(&s->stacks, 70);
    b = stacks_by_request(&s->stacks, 80);
    CHECK(a && b && s->stacks.kept_count == 2, "both snapshots kept");
    CHECK(b && b->id == 1 && b->thread_count == 2 && b->frame_count == 6,
          "the one closed first is number 1, with its own 2 threads");
    CHECK(a && a->id == 2 && a->thread_count == 3 && a->frame_count == 9 && stacks_complete(a),
          "the other is number 2 with 3 threads, including one after the other's END");
    CHECK(s->stacks.lost_walks == 0 && s->stacks.ignored_records == 0, "nothing lost or ignored");
    session_free(s);
}

TEST(missing_threads_and_unknown_ids)
{
    session *s = rec_live_session(1);
    const stacks_walk *w;
    wire_record r;

    rec_apply(s, stack_thread(11, 1, 2, 0));
    rec_apply(s, stack_thread(11, 3, 2, 0));
    rec_apply(s, stack_end(11, 1, WIRE_STACK_SNAPSHOT, 4));
    w = stacks_by_request(&s->stacks, 1);
    CHECK(w && w->thread_count == 2 && w->threads_sent == 4 && !stacks_complete(w),
          "2 of 4 threads arrived: kept, complete false");

    rec_apply(s, stack_end(99, 2, WIRE_STACK_SNAPSHOT, 3));
    w = stacks_by_request(&s->stacks, 2);
    CHECK(w && w->thread_count == 0 && !stacks_complete(w),
          "an END for a walk never seen: a snapshot without threads, incomplete");

    r = stack_end(100, 3, WIRE_STACK_SNAPSHOT, 0);
    r.u.stack_end.hresult = (int32_t)0x80131388;
    r.u.stack_end.threads_total = 0;
    rec_apply(s, r);
    w = stacks_by_request(&s->stacks, 3);
    CHECK(w && w->thread_count == 0 && stacks_complete(w) && w->hresult == (int32_t)0x80131388,
          "a failed suspension (no thread sent, an hresult) is complete, with its hresult");
    session_free(s);
}

TEST(repeated_end_late_thread_duplicate_thread)
{
    session *s = rec_live_session(1);
    uint64_t events;
    const stacks_walk *w;

    rec_apply(s, stack_thread(21, 1, 2, 0));
    rec_apply(s, stack_thread(21, 1, 9, 0)); /* the same thread again */
    rec_apply(s, stack_end(21, 5, WIRE_STACK_SNAPSHOT, 1));
    w = stacks_at(&s->stacks, 0);
    CHECK(w && w->thread_count == 1 && w->frame_count == 2 && s->stacks.ignored_records == 1,
          "a thread named twice in one walk counts once (the first), the second is counted");
    events = s->events.last_seq;
    rec_apply(s, stack_end(21, 5, WIRE_STACK_SNAPSHOT, 1));
    CHECK(s->stacks.kept_count == 1 && s->events.last_seq == events &&
              s->stacks.ignored_records == 2,
          "a repeated END: no second snapshot, no event, counted");
    rec_apply(s, stack_thread(21, 2, 3, 0));
    CHECK(s->stacks.kept_count == 1 && stacks_at(&s->stacks, 0)->thread_count == 1 &&
              s->stacks.ignored_records == 3,
          "a thread after its walk's END is ignored and counted");
    for (unsigned i = 0; i < STACKS_PENDING; i++)
        CHECK(s->stacks.pending[i].snapshot_id == 0, "pending slot %u is free", i);
    session_free(s);
}

TEST(too_many_walks_at_once)
{
    session *s = rec_live_session(1);
    const stacks_walk *w;

    for (uint64_t id = 31; id < 31 + STACKS_PENDING + 1; id++)
        rec_apply(s, stack_thread(id, 1, 2, 0));
    CHECK(s->stacks.lost_walks == 1, "one walk more than STACKS_PENDING: the oldest is abandoned");
    rec_apply(s, stack_end(31, 1, WIRE_STACK_SNAPSHOT, 1));
    w = stacks_by_request(&s->stacks, 1);
    CHECK(w && w->thread_count == 0 && !stacks_complete(w),
          "the abandoned walk's END finds no threads: incomplete");
    rec_apply(s, stack_end(31 + STACKS_PENDING, 2, WIRE_STACK_SNAPSHOT, 1));
    w = stacks_by_request(&s->stacks, 2);
    CHECK(w && w->thread_count == 1 && stacks_complete(w), "the newest walk is whole");
    session_free(s);
}

TEST(new_connection_abandons_walks_in_progress)
{
    session *s = rec_live_session(1);
    const stacks_walk *w;

    walk(s, 1, 1, WIRE_STACK_SNAPSHOT, 1, 2);
    rec_apply(s, stack_thread(2, 1, 2, 0));
    rec_apply(s, rec_hello(REC_TOKEN));
    CHECK(s->stacks.lost_walks == 1 && s->stacks.kept_count == 1,
          "the hello of a reconnect abandons the walk in progress; kept snapshots stay");
    walk(s, 1, 2, WIRE_STACK_SNAPSHOT, 2, 3);
    w = stacks_by_request(&s->stacks, 2);
    CHECK(w && w->id == 2 && w->thread_count == 2,
          "the new connection's walk 1 is not taken for a repeat of the old walk 1");
    rec_apply(s, stack_end(2, 3, WIRE_STACK_SNAPSHOT, 1));
    w = stacks_by_request(&s->stacks, 3);
    CHECK(w && w->thread_count == 0, "the abandoned walk's threads are gone");
    session_free(s);
}

TEST(newest_64_kept)
{
    session *s = rec_live_session(1);
    int order_ok = 1;

    for (uint64_t i = 1; i <= STACKS_KEEP + 6; i++)
        walk(s, i, 1000 + i, WIRE_STACK_SNAPSHOT, 2, 3);
    CHECK(s->stacks.kept_count == STACKS_KEEP, "%u kept", STACKS_KEEP);
    for (unsigned i = 0; i < s->stacks.kept_count; i++)
        order_ok &= stacks_at(&s->stacks, i)->id == 7 + i;
    CHECK(order_ok, "the newest, oldest first: numbers 7..70");
    CHECK(stacks_by_id(&s->stacks, 6) == NULL && stacks_by_id(&s->stacks, 70) != NULL &&
              stacks_by_request(&s->stacks, 1006) == NULL,
          "evicted snapshots are gone");
    CHECK(s->stacks.kept_frames == (uint64_t)STACKS_KEEP * 6, "kept frames counted");
    CHECK(s->stacks.last_id == STACKS_KEEP + 6, "last number");
    session_free(s);
}

TEST(frame_budget_and_walk_cap)
{
    session *s = rec_live_session(1);
    const stacks_walk *w;
    uint32_t threads = 200;

    /* 200 threads x 512 frames = 102,400 frames a snapshot: 10 fit STACKS_KEEP_FRAMES */
    for (uint64_t i = 1; i <= 12; i++)
        walk(s, i, i, WIRE_STACK_SNAPSHOT, threads, WIRE_STACK_MAX_FRAMES);
    CHECK(s->stacks.kept_frames <= STACKS_KEEP_FRAMES && s->stacks.kept_count == 10,
          "the frame budget keeps the newest 10 (%u kept, %llu frames)", s->stacks.kept_count,
          (unsigned long long)s->stacks.kept_frames);
    CHECK(stacks_at(&s->stacks, 0)->id == 3, "the oldest ones went first");

    /* a hostile walk: 264 threads of 500 frames is more than WIRE_STACK_MAX_TOTAL_FRAMES */
    walk(s, 50, 50, WIRE_STACK_SNAPSHOT, 264, 500);
    w = stacks_by_request(&s->stacks, 50);
    CHECK(w && w->frame_count == WIRE_STACK_MAX_TOTAL_FRAMES && w->thread_count == 264,
          "a walk holds at most WIRE_STACK_MAX_TOTAL_FRAMES frames");
    CHECK(w && w->threads[261].frame_count == 500 &&
              !(w->threads[261].flags & WIRE_STACK_TRUNCATED),
          "threads within the cap are whole");
    CHECK(w && w->threads[262].frame_count == WIRE_STACK_MAX_TOTAL_FRAMES - 262 * 500 &&
              (w->threads[262].flags & WIRE_STACK_TRUNCATED) && w->threads[263].frame_count == 0 &&
              (w->threads[263].flags & WIRE_STACK_TRUNCATED),
          "the threads over the cap keep their leaf end (72 frames, then none), marked truncated");
    CHECK(w && w->frames[w->threads[262].first_frame].ip == 263 * 1000,
          "a cut thread keeps its leaf frame first");
    session_free(s);
}

TEST(samples_go_to_the_profile)
{
    session *s = rec_live_session(1);
    uint64_t events = s->events.last_seq;

    walk(s, 1, 0, WIRE_STACK_SAMPLE, 3, 4);
    walk(s, 2, 0, WIRE_STACK_SAMPLE, 3, 4);
    CHECK(s->stacks.kept_count == 0 && s->events.last_seq == events,
          "sample walks are not kept as snapshots and log no event");
    CHECK(s->profile.walks == 2 && s->profile.sample_count == 6 && s->profile.stack_count == 3,
          "the profile has 2 walks, 6 samples, 3 distinct stacks");
    for (unsigned i = 0; i < STACKS_PENDING; i++)
        CHECK(s->stacks.pending[i].snapshot_id == 0, "pending slot %u is free again", i);
    walk(s, 3, 9, WIRE_STACK_SNAPSHOT, 1, 1);
    CHECK(s->stacks.kept_count == 1 && stacks_at(&s->stacks, 0)->id == 1,
          "samples use no snapshot numbers: the next snapshot is number 1");
    session_free(s);
}

TEST(function_known_only_from_stacks)
{
    session *s = rec_live_session(1);
    session_function *f;

    rec_apply(s, rec_function_name(0x7100, 0x200000, "System.Threading.Monitor.Wait", 0));
    walk(s, 1, 1, WIRE_STACK_SNAPSHOT, 1, 1);
    f = session_find_function(s, 0x7100);
    CHECK(f && f->name_record && strcmp(fixture_fn_name(f), "System.Threading.Monitor.Wait") == 0 &&
              !f->jitted,
          "a function named for a stack has its name, and is not marked compiled");
    CHECK(s->functions_jitted == 0 && s->jit_compilations == 0,
          "it is not counted as a function nor as a compilation");
    rec_apply(s, rec_jit_finished(0x7100, 0, 0x1000, 64, REC_MONO + 5, 0));
    CHECK(f->jitted && s->functions_jitted == 1 && s->jit_compilations == 1,
          "once a JIT record names it, it is listed and counted");
    session_free(s);
}

/* The slots of walks being assembled and kept, and the profile's suspension
 * histogram, are made when a session first walks a stack and freed with its
 * content (an ended session leaving memory), not carried inline by every
 * session: the registry keeps many sessions, most never walk a stack, and
 * ended ones are mostly not loaded. (Inline, they made a session 18,064
 * bytes; the soak's hundred ended sessions kept 1.8 MB of them.) */
TEST(walk_slots_made_on_use_and_freed_with_the_content)
{
    session *s = rec_live_session(1);
    size_t blocks = STACKS_PENDING * sizeof(stacks_walk) + STACKS_KEEP * sizeof(stacks_walk) +
                    PROFILE_HIST_BUCKETS * sizeof(uint32_t);

    CHECK(sizeof(session) <= 6 * 1024, "a session is %zu bytes, at most 6 KiB", sizeof(session));
    CHECK(!s->stacks.pending && !s->stacks.kept && !s->profile.suspend_hist &&
              s->budget.observations == 0,
          "a session that never walked a stack has no slots and counts none");
    walk(s, 1, 7, WIRE_STACK_SNAPSHOT, 2, 3);
    walk(s, 2, 0, WIRE_STACK_SAMPLE, 2, 3);
    CHECK(s->stacks.pending && s->stacks.kept && s->profile.suspend_hist &&
              s->stacks.kept_count == 1 && s->profile.walks == 1,
          "a snapshot and a sample make them");
    CHECK(stacks_block_bytes(&s->stacks) + profile_block_bytes(&s->profile) == blocks &&
              s->budget.observations > blocks,
          "the memory budget counts them (%llu bytes observed, %zu of them the slots)",
          (unsigned long long)s->budget.observations, blocks);
    session_drop_content(s); /* what an ended session leaving memory does */
    CHECK(!s->stacks.pending && !s->stacks.kept && !s->profile.suspend_hist &&
              s->stacks.kept_count == 0 && s->budget.observations == 0,
          "dropping the content frees them");
    walk(s, 3, 8, WIRE_STACK_SNAPSHOT, 1, 1);
    CHECK(s->stacks.kept_count == 1 && stacks_by_request(&s->stacks, 8),
          "a walk after that makes them again");
    session_free(s);
}

/* A walk without frames is a thread in native code (DoStackSnapshot: S_OK for a
 * thread that never ran managed code, E_FAIL when its frame iterator finds no
 * frame) unless the runtime said something else or the walk was cut. */
TEST(native_only_walks_told_from_failures)
{
    stacks_thread t = {0};

    CHECK(stacks_thread_native_only(&t), "S_OK, no frame: native code only");
    t.hresult = (int32_t)0x80004005;
    CHECK(stacks_thread_native_only(&t), "E_FAIL, no frame: native code only");
    t.hresult = (int32_t)0x80131360;
    CHECK(!stacks_thread_native_only(&t), "CORPROF_E_STACKSNAPSHOT_UNSAFE: a failure");
    t.hresult = (int32_t)0x80004005;
    t.frame_count = 2;
    CHECK(!stacks_thread_native_only(&t), "E_FAIL after 2 frames: a walk that broke part way");
    t.frame_count = 0;
    t.flags = WIRE_STACK_TRUNCATED;
    CHECK(!stacks_thread_native_only(&t), "not walked (the snapshot's frames ran out)");
}

static const check_test tests[] = {
    TEST_ENTRY(snapshot_assembled),
    TEST_ENTRY(walks_interleaved_and_closed_out_of_order),
    TEST_ENTRY(missing_threads_and_unknown_ids),
    TEST_ENTRY(repeated_end_late_thread_duplicate_thread),
    TEST_ENTRY(too_many_walks_at_once),
    TEST_ENTRY(new_connection_abandons_walks_in_progress),
    TEST_ENTRY(newest_64_kept),
    TEST_ENTRY(frame_budget_and_walk_cap),
    TEST_ENTRY(samples_go_to_the_profile),
    TEST_ENTRY(function_known_only_from_stacks),
    TEST_ENTRY(walk_slots_made_on_use_and_freed_with_the_content),
    TEST_ENTRY(native_only_walks_told_from_failures),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
