/* test_sidebyside_stacks.c -- the agent's stack snapshots against the fake
 * CoreCLR's suspension, thread list and walks (fakeclr.h; the harness is
 * sidebyside.h; runtime A owns the agent: a_up): one suspension per
 * snapshot, frames as the runtime gave them, names before the stacks that
 * need them, and no runtime call of the sender while the walker holds the
 * runtime suspended.
 *
 * Tests:
 *   snapshot           WIRE_CMD_SNAPSHOT: one SuspendRuntime, EnumThreads, a walk
 *                      per thread (not the walker's own), one ResumeRuntime; frames
 *                      leaf first with native runs kept, E_FAIL kept with its
 *                      frames, 600 deep -> 512 + TRUNCATED; STACK_END with
 *                      request_id, counts, suspend_ns; every FunctionID named
 *                      before its STACK_THREAD; nothing on the socket while
 *                      suspended; the walker's harmless self-walk came first
 *   suspend_interleave  our suspension's records and a GC's interleave both ways
 *                      (the fake raises the suspension callbacks on the suspending
 *                      thread); every phase carries its own suspension's reason
 *   snapshot_naming_lock  the sender names slowly while the walker suspends: no
 *                      sender call into the runtime during the suspension
 *   snapshot_dynamic   frames the runtime says are dynamic methods (its real walks
 *                      never report any): the sender asks nothing more about them
 *                      (no GetDynamicFunctionInfo: a collected one's name and
 *                      signature are freed memory), sends them without a name
 *                      and counts each once in WIRE_DROP_NAME_LATE; the other
 *                      frames are named as before
 *   snapshot_retries   SUSPENSION_IN_PROGRESS x3 -> retries 3; forever -> the
 *                      HRESULT in STACK_END, no ResumeRuntime without a suspension
 *   thread_destroyed_waits  ThreadDestroyed of the thread being walked returns
 *                      after its walk; of another thread at once
 *
 * Build: make build/tests/test_sidebyside_stacks (needs `make all` for the agent .so).
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "sidebyside.h"

static snap_read snap; /* the last walk read back */

static int wait_flag(_Atomic int *flag, int timeout_ms)
{
    double deadline = now_s() + timeout_ms / 1000.0;

    while (!atomic_load(flag) && now_s() < deadline)
        sleep_ms(1);
    return atomic_load(flag);
}

/* The frames of thread `t` as the fake reported them, leaf first, up to n. */
static int frames_match(const wire_stack_frame *f, ThreadID t, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++)
        if (f[i].function_id != FAKE_FID(t, i) || f[i].ip != FAKE_IP(t, i))
            return 0;
    return 1;
}

TEST(snapshot)
{
    const ThreadID t1 = 0xA1, t2 = 0xA2, t3 = 0xA3;
    int before_ok = atomic_load(&fake_scene.suspend_ok),
        before_resume = atomic_load(&fake_scene.resume_calls);
    unsigned i;

    if (a_up() != 0)
        return;
    CHECK(threads_named("jitscope-walk") == 0, "no walker thread before the first command");
    fake_stacks_reset();
    fake_add_thread(t1, 10, S_OK, 0);  /* 10 frames, two of them native */
    fake_add_thread(t2, 2, E_FAIL, 0); /* the runtime fails this one */
    fake_add_thread(t3, 600, S_OK, 0); /* deeper than WIRE_STACK_MAX_FRAMES */
    fake_scene.list_self = 1;          /* the walker is listed too */
    atomic_store(&fake_scene.peek_fd, conn_a.fd);
    CHECK(send_snapshot(&conn_a, 0x5EED0001ull) == 0, "WIRE_CMD_SNAPSHOT sent");
    /* do not read until the fake resumed: it looks at the socket while suspended */
    CHECK(wait_flag(&fake_scene.peek_done, 5000), "the walker suspended, walked and resumed");
    atomic_store(&fake_scene.peek_fd, -1);
    if (!CHECK(read_snapshot(&conn_a, WIRE_STACK_SNAPSHOT, 0x5EED0001ull, &snap, 5000) == 1,
               "STACK_END for request 0x5EED0001 arrives"))
        return;
    CHECK(atomic_load(&fake_scene.peek_stack_frames) == 0,
          "nothing of the walk reached the socket while the runtime was suspended (%d)",
          atomic_load(&fake_scene.peek_stack_frames));
    CHECK(snap.end.kind == WIRE_STACK_SNAPSHOT && snap.end.request_id == 0x5EED0001ull,
          "STACK_END: kind snapshot, request_id echoed");
    CHECK(snap.end.threads_sent == 3 && snap.end.threads_total == 3,
          "STACK_END: 3 threads sent of 3 listed, the walker itself not counted (%u of %u)",
          snap.end.threads_sent, snap.end.threads_total);
    CHECK(snap.end.hresult == 0 && snap.end.retries == 0 && snap.end.effective_millihz == 0,
          "STACK_END: S_OK, no retries, no rate (0x%08x, %u, %u)", (unsigned)snap.end.hresult,
          snap.end.retries, snap.end.effective_millihz);
    CHECK(snap.end.suspend_ns >= 60000000ull && snap.end.suspend_ns < 5000000000ull,
          "STACK_END: suspend_ns spans SuspendRuntime..ResumeRuntime (the fake held 60 ms: %llu)",
          (unsigned long long)snap.end.suspend_ns);
    CHECK(snap.end.snapshot_id >= 1, "snapshot_id assigned (%llu)",
          (unsigned long long)snap.end.snapshot_id);
    CHECK(snap.bad_records == 0, "every STACK_THREAD is 40 bytes + its frames");
    if (!CHECK(snap.nthreads == 3, "3 STACK_THREAD records before the STACK_END (%u)",
               snap.nthreads))
        return;
    for (i = 0; i < 3; i++) {
        CHECK(snap.threads[i].snapshot_id == snap.end.snapshot_id,
              "thread %u: same snapshot_id as its STACK_END", i);
        CHECK(snap.thread_time[i] == snap.end_time && snap.end_time > 0,
              "thread %u: time_ns is the suspension's start, like the STACK_END's", i);
        CHECK(snap.threads[i].os_thread_id == FAKE_OS_TID(snap.threads[i].thread_id),
              "thread %u: OS thread id from GetThreadInfo", i);
    }
    CHECK(snap.threads[0].thread_id == t1 && snap.threads[1].thread_id == t2 &&
              snap.threads[2].thread_id == t3,
          "threads in the runtime's order, the walker skipped");
    CHECK(snap.threads[0].hresult == 0 && snap.threads[0].frame_count == 10 &&
              snap.threads[0].flags == 0 && frames_match(snap.frames[0], t1, 10),
          "thread 1: 10 frames leaf first as the fake gave them, native frames with their IP");
    CHECK(snap.frames[0][3].function_id == 0 && snap.frames[0][3].ip == FAKE_IP(t1, 3),
          "thread 1: a native frame is FunctionID 0 with its IP");
    CHECK(snap.threads[1].hresult == E_FAIL && snap.threads[1].frame_count == 2 &&
              frames_match(snap.frames[1], t2, 2),
          "thread 2: E_FAIL kept (0x%08x), with the 2 frames before it",
          (unsigned)snap.threads[1].hresult);
    CHECK(snap.threads[2].frame_count == WIRE_STACK_MAX_FRAMES &&
              (snap.threads[2].flags & WIRE_STACK_TRUNCATED) && snap.threads[2].hresult == 0 &&
              frames_match(snap.frames[2], t3, WIRE_STACK_MAX_FRAMES),
          "thread 3: 600 deep -> the 512 leaf frames, TRUNCATED, S_OK (%u frames, flags %u, "
          "hr 0x%08x)",
          snap.threads[2].frame_count, snap.threads[2].flags, (unsigned)snap.threads[2].hresult);
    CHECK(snap.end.walk_ns ==
              snap.threads[0].walk_ns + snap.threads[1].walk_ns + snap.threads[2].walk_ns,
          "STACK_END walk_ns is the sum of the threads' walk_ns");
    CHECK(snap.unnamed == 0,
          "every FunctionID had its FUNCTION_NAME before its STACK_THREAD "
          "(%u without)",
          snap.unnamed);
    CHECK(conn_a.bad_names == 0, "names come from GetFunctionInfo2 + metadata (M_<token>)");
    CHECK(atomic_load(&fake_scene.suspend_ok) == before_ok + 1 &&
              atomic_load(&fake_scene.resume_calls) == before_resume + 1,
          "one SuspendRuntime, one ResumeRuntime");
    CHECK(atomic_load(&fake_scene.bad_resumes) == 0 &&
              atomic_load(&fake_scene.nested_suspends) == 0,
          "ResumeRuntime only while suspended by the same thread, no nested suspension");
    CHECK(atomic_load(&fake_scene.unsuspended_walks) == 0,
          "no thread walked outside the suspension");
    CHECK(atomic_load(&fake_scene.self_walked) == 0, "the walker never walks itself");
    CHECK(atomic_load(&fake_scene.self_calls) == 1 &&
              atomic_load(&fake_scene.self_calls_suspended) == 0 &&
              atomic_load(&fake_scene.init_thread_calls) == 1,
          "the walker's first call: one DoStackSnapshot of itself (and InitializeCurrentThread) "
          "before any suspension");
    CHECK(atomic_load(&fake_scene.enums_live) == 0 &&
              atomic_load(&fake_scene.enums_released_suspended) == 0,
          "the thread enumerator is released, after ResumeRuntime");
    CHECK(atomic_load(&fake_scene.bad_walk_flags) == 0, "DoStackSnapshot(DEFAULT, no context)");
    CHECK(atomic_load(&fake_scene.foreign_calls) == 0,
          "no other agent thread called the runtime while it was suspended");
    CHECK(threads_named("jitscope-walk") == 1, "one \"jitscope-walk\" thread");
    CHECK(threads_named(AGENT_THREAD_NAME) == 1, "and the sender");
}

/* The "GC thread" of suspend_interleave, part A: starts a GC suspension while the
 * walker's ResumeRuntime has not finished, and ends it after. */
static void *interleave_gc_thread(void *arg)
{
    double deadline = now_s() + 5;

    (void)arg;
    while (!atomic_load(&fake_scene.gc_go) && now_s() < deadline)
        sleep_ms(1);
    obj_a->lpVtbl->RuntimeSuspendStarted(obj_a, COR_PRF_SUSPEND_FOR_GC);
    atomic_store(&fake_scene.gc_started, 1);
    while (!atomic_load(&fake_scene.gc_finish_go) && now_s() < deadline)
        sleep_ms(1);
    obj_a->lpVtbl->RuntimeSuspendFinished(obj_a);
    obj_a->lpVtbl->RuntimeResumeStarted(obj_a);
    obj_a->lpVtbl->RuntimeResumeFinished(obj_a);
    return NULL;
}

/* Reads up to the STACK_END of `request_id`, keeping the RUNTIME_SUSPEND records. */
static unsigned read_phases(conn *c, uint64_t request_id, wire_runtime_suspend *out, unsigned max)
{
    double deadline = now_s() + 5;
    unsigned n = 0;

    while (now_s() < deadline && conn_read(c, 1000) == 1) {
        if (c->last.type == WIRE_RUNTIME_SUSPEND && n < max)
            memcpy(&out[n++], c->last_payload, sizeof(out[0]));
        if (c->last.type == WIRE_STACK_END) {
            wire_stack_end e;
            memcpy(&e, c->last_payload, sizeof(e));
            if (e.request_id == request_id)
                break;
        }
    }
    return n;
}

static int phases_are(const wire_runtime_suspend *got, unsigned n, const uint32_t want[][2],
                      unsigned nwant)
{
    unsigned i;

    if (n != nwant)
        return 0;
    for (i = 0; i < n; i++)
        if (got[i].phase != want[i][0] || got[i].reason != want[i][1])
            return 0;
    return 1;
}

TEST(suspend_interleave)
{
    /* A: ours resumes, a GC starts before our "resume finished" */
    static const uint32_t want_a[8][2] = {{1, 9}, {2, 9}, {4, 9}, {1, 1},
                                          {5, 9}, {2, 1}, {4, 1}, {5, 1}};
    /* B: a GC resumes, ours starts before the GC's "resume finished" */
    static const uint32_t want_b[8][2] = {{1, 1}, {2, 1}, {4, 1}, {1, 9},
                                          {2, 9}, {5, 1}, {4, 9}, {5, 9}};
    wire_runtime_suspend got[16];
    pthread_t gc;
    unsigned n, i;
    int ok0;

    if (a_up() != 0)
        return;
    fake_stacks_reset();
    fake_add_thread(0xAC, 2, S_OK, 0);
    atomic_store(&fake_scene.gc_go, 0);
    atomic_store(&fake_scene.gc_started, 0);
    atomic_store(&fake_scene.gc_finish_go, 0);
    atomic_store(&fake_scene.interleave, 1);
    atomic_store(&fake_scene.callbacks, obj_a);
    if (!CHECK(pthread_create(&gc, NULL, interleave_gc_thread, NULL) == 0, "GC thread"))
        return;
    CHECK(send_snapshot(&conn_a, 0x1A) == 0, "A: snapshot sent");
    n = read_phases(&conn_a, 0x1A, got, 16);
    pthread_join(gc, NULL);
    atomic_store(&fake_scene.interleave, 0);
    /* the GC's last phases may follow the STACK_END */
    {
        wire_cmd_ping ping = {0x1A1A};
        send_command(conn_a.fd, WIRE_CMD_PING, &ping, sizeof(ping));
        while (n < 16 && conn_read(&conn_a, 2000) == 1 && conn_a.last.type != WIRE_PONG)
            if (conn_a.last.type == WIRE_RUNTIME_SUSPEND)
                memcpy(&got[n++], conn_a.last_payload, sizeof(got[0]));
    }
    CHECK(phases_are(got, n, want_a, 8),
          "A: ours 1,2,4 / GC 1 / ours 5 / GC 2,4,5, every phase with its own suspension's "
          "reason (9 ours, 1 GC)");
    for (i = 0; i < n && i < 8; i++)
        if (got[i].phase != want_a[i][0] || got[i].reason != want_a[i][1])
            printf("  A record %u: phase %u reason %u\n", i, got[i].phase, got[i].reason);

    /* B: this thread plays the GC thread */
    ok0 = atomic_load(&fake_scene.suspend_ok);
    obj_a->lpVtbl->RuntimeSuspendStarted(obj_a, COR_PRF_SUSPEND_FOR_GC);
    obj_a->lpVtbl->RuntimeSuspendFinished(obj_a);
    obj_a->lpVtbl->RuntimeResumeStarted(obj_a);
    atomic_store(&fake_scene.peek_fd, -1);
    fake_scene.threads[0].sleep_ms = 100; /* keep ours suspended while the GC finishes */
    CHECK(send_snapshot(&conn_a, 0x1B) == 0, "B: snapshot sent");
    {
        double deadline = now_s() + 3;
        while (atomic_load(&fake_scene.suspend_ok) == ok0 && now_s() < deadline)
            sleep_ms(1);
    }
    obj_a->lpVtbl->RuntimeResumeFinished(obj_a); /* the GC's, after our start */
    n = read_phases(&conn_a, 0x1B, got, 16);
    CHECK(phases_are(got, n, want_b, 8),
          "B: GC 1,2,4 / ours 1,2 / GC 5 / ours 4,5, each with its own reason");
    for (i = 0; i < n && i < 8; i++)
        if (got[i].phase != want_b[i][0] || got[i].reason != want_b[i][1])
            printf("  B record %u: phase %u reason %u\n", i, got[i].phase, got[i].reason);
    atomic_store(&fake_scene.callbacks, NULL);
}

TEST(snapshot_naming_lock)
{
    const ThreadID t4 = 0xA4;

    if (a_up() != 0)
        return;
    /* the sender names snapshot 1's 52 new functions, slowly, while the walker
     * takes snapshot 2 with a 30 ms walk: the runtime lock keeps them apart */
    fake_stacks_reset();
    fake_add_thread(t4, 60, S_OK, 30);
    atomic_store(&fake_scene.name_sleep_us, 1000);
    atomic_store(&fake_scene.foreign_calls, 0);
    CHECK(send_snapshot(&conn_a, 0x10C1) == 0 && send_snapshot(&conn_a, 0x10C2) == 0,
          "two WIRE_CMD_SNAPSHOT sent back to back");
    CHECK(read_snapshot(&conn_a, WIRE_STACK_SNAPSHOT, 0x10C1, &snap, 5000) == 1 &&
              snap.nthreads == 1 && snap.unnamed == 0,
          "snapshot 1 arrives, named");
    CHECK(read_snapshot(&conn_a, WIRE_STACK_SNAPSHOT, 0x10C2, &snap, 5000) == 1 &&
              snap.nthreads == 1 && snap.unnamed == 0,
          "snapshot 2 arrives, named");
    CHECK(atomic_load(&fake_scene.foreign_calls) == 0,
          "the sender made no runtime call while the walker held the runtime suspended (%d)",
          atomic_load(&fake_scene.foreign_calls));
    atomic_store(&fake_scene.name_sleep_us, 0);
}

/* The cumulative drop counters of the next WIRE_DROPS (sent every 500 ms). */
static int read_drops(conn *c, wire_drops *out, int timeout_ms)
{
    if (conn_wait_type(c, WIRE_DROPS, timeout_ms) != 1 || c->last_length != sizeof(*out))
        return -1;
    memcpy(out, c->last_payload, sizeof(*out));
    return 0;
}

TEST(snapshot_dynamic)
{
    const ThreadID td = 0xAD, tm = 0xAE; /* td: dynamic methods; tm: methods with metadata */
    const unsigned depth = 12;
    unsigned i, managed = 0, dyn_named = 0, meta_unnamed = 0;
    wire_drops before, after, again;

    if (a_up() != 0)
        return;
    fake_stacks_reset();
    fake_add_thread(td, depth, S_OK, 0);
    fake_add_thread(tm, 5, S_OK, 0);
    atomic_store(&fake_scene.dynamic_thread, td);
    atomic_store(&fake_scene.dynamic_info_calls, 0);
    if (!CHECK(read_drops(&conn_a, &before, 2000) == 0, "a WIRE_DROPS before the snapshot"))
        return;
    CHECK(send_snapshot(&conn_a, 0xD7A1) == 0, "WIRE_CMD_SNAPSHOT sent");
    if (!CHECK(read_snapshot(&conn_a, WIRE_STACK_SNAPSHOT, 0xD7A1, &snap, 5000) == 1 &&
                   snap.nthreads == 2,
               "the snapshot arrives with both threads (%u)", snap.nthreads))
        return;
    CHECK(snap.threads[0].thread_id == td && snap.threads[0].frame_count == depth &&
              frames_match(snap.frames[0], td, depth),
          "the dynamic methods' frames are sent as the runtime gave them (FunctionID and IP)");
    for (i = 0; i < depth; i++) {
        if (!FAKE_FID(td, i))
            continue;
        managed++;
        dyn_named += conn_was_named(&conn_a, FAKE_FID(td, i));
    }
    for (i = 0; i < 5; i++)
        meta_unnamed += FAKE_FID(tm, i) && !conn_was_named(&conn_a, FAKE_FID(tm, i));
    CHECK(atomic_load(&fake_scene.dynamic_info_calls) == 0,
          "GetDynamicFunctionInfo was never asked for a frame's FunctionID (%d calls)",
          atomic_load(&fake_scene.dynamic_info_calls));
    CHECK(dyn_named == 0, "no FUNCTION_NAME for a dynamic method met in a stack (%u of %u)",
          dyn_named, managed);
    CHECK(meta_unnamed == 0, "the other thread's functions are named as before (%u without)",
          meta_unnamed);
    if (!CHECK(read_drops(&conn_a, &after, 2000) == 0, "a WIRE_DROPS after the snapshot"))
        return;
    CHECK(after.dropped[WIRE_DROP_NAME_LATE] - before.dropped[WIRE_DROP_NAME_LATE] == managed,
          "each dynamic method met is counted in name_late (%llu more, %u met)",
          (unsigned long long)(after.dropped[WIRE_DROP_NAME_LATE] -
                               before.dropped[WIRE_DROP_NAME_LATE]),
          managed);
    CHECK(after.dropped[WIRE_DROP_NAME_FAILED] == before.dropped[WIRE_DROP_NAME_FAILED],
          "and not as a name the runtime failed to give");

    /* the same frames again: counted once per connection, like a name is sent once */
    CHECK(send_snapshot(&conn_a, 0xD7A2) == 0, "a second WIRE_CMD_SNAPSHOT sent");
    CHECK(read_snapshot(&conn_a, WIRE_STACK_SNAPSHOT, 0xD7A2, &snap, 5000) == 1 &&
              snap.nthreads == 2,
          "the second snapshot arrives");
    if (CHECK(read_drops(&conn_a, &again, 2000) == 0, "a WIRE_DROPS after it"))
        CHECK(again.dropped[WIRE_DROP_NAME_LATE] == after.dropped[WIRE_DROP_NAME_LATE],
              "the same dynamic methods are not counted again (%llu, was %llu)",
              (unsigned long long)again.dropped[WIRE_DROP_NAME_LATE],
              (unsigned long long)after.dropped[WIRE_DROP_NAME_LATE]);
    CHECK(atomic_load(&fake_scene.dynamic_info_calls) == 0, "still no GetDynamicFunctionInfo");
    atomic_store(&fake_scene.dynamic_thread, 0);
}

TEST(snapshot_retries)
{
    int ok0, resume0, calls0;

    if (a_up() != 0)
        return;
    fake_stacks_reset();
    fake_add_thread(0xA5, 3, S_OK, 0);
    ok0 = atomic_load(&fake_scene.suspend_ok), resume0 = atomic_load(&fake_scene.resume_calls);
    calls0 = atomic_load(&fake_scene.suspend_calls);
    atomic_store(&fake_scene.busy_left, 3);
    CHECK(send_snapshot(&conn_a, 0x4E7) == 0, "snapshot with a suspension in progress");
    if (CHECK(read_snapshot(&conn_a, WIRE_STACK_SNAPSHOT, 0x4E7, &snap, 5000) == 1,
              "its STACK_END arrives")) {
        CHECK(snap.end.retries == 3 && snap.end.hresult == 0 && snap.end.threads_sent == 1,
              "3 x SUSPENSION_IN_PROGRESS, then walked: retries 3, S_OK (%u, 0x%08x)",
              snap.end.retries, (unsigned)snap.end.hresult);
        CHECK(atomic_load(&fake_scene.suspend_calls) == calls0 + 4 &&
                  atomic_load(&fake_scene.suspend_ok) == ok0 + 1 &&
                  atomic_load(&fake_scene.resume_calls) == resume0 + 1,
              "4 SuspendRuntime calls, 1 success, 1 ResumeRuntime");
    }
    atomic_store(&fake_scene.busy_left, 1000000);
    CHECK(send_snapshot(&conn_a, 0x4E8) == 0, "snapshot while suspension never becomes possible");
    if (CHECK(read_snapshot(&conn_a, WIRE_STACK_SNAPSHOT, 0x4E8, &snap, 5000) == 1,
              "its STACK_END arrives (bounded retries)")) {
        CHECK(snap.end.hresult == CORPROF_E_SUSPENSION_IN_PROGRESS && snap.end.retries >= 50 &&
                  snap.end.threads_sent == 0 && snap.end.suspend_ns == 0 && snap.nthreads == 0,
              "STACK_END carries CORPROF_E_SUSPENSION_IN_PROGRESS after %u retries, nothing "
              "walked (0x%08x)",
              snap.end.retries, (unsigned)snap.end.hresult);
        CHECK(atomic_load(&fake_scene.resume_calls) == resume0 + 1 &&
                  atomic_load(&fake_scene.suspend_ok) == ok0 + 1,
              "no ResumeRuntime without a successful SuspendRuntime");
    }
    atomic_store(&fake_scene.busy_left, 0);
}

/* ThreadDestroyed for the thread being walked, from another thread. */
static _Atomic int destroy_saw_walk;
static uint64_t destroy_other_ns, destroy_other_returned_ns, destroy_walked_ns, destroy_returned_ns;

static void *destroy_thread(void *arg)
{
    double deadline = now_s() + 5;
    uint64_t t0;

    (void)arg;
    while (atomic_load(&fake_scene.walking) != 0xA6 && now_s() < deadline)
        sched_yield();
    if (atomic_load(&fake_scene.walking) != 0xA6)
        return NULL;
    atomic_store(&destroy_saw_walk, 1);
    t0 = clock_ns(CLOCK_MONOTONIC);
    obj_a->lpVtbl->ThreadDestroyed(obj_a, 0xA7); /* not the one being walked */
    destroy_other_returned_ns = clock_ns(CLOCK_MONOTONIC);
    destroy_other_ns = destroy_other_returned_ns - t0;
    t0 = clock_ns(CLOCK_MONOTONIC);
    obj_a->lpVtbl->ThreadDestroyed(obj_a, 0xA6);
    destroy_returned_ns = clock_ns(CLOCK_MONOTONIC);
    destroy_walked_ns = destroy_returned_ns - t0;
    return NULL;
}

TEST(thread_destroyed_waits)
{
    pthread_t helper;

    if (a_up() != 0)
        return;
    fake_stacks_reset();
    fake_add_thread(0xA6, 4, S_OK, 300); /* its walk takes 300 ms */
    fake_add_thread(0xA7, 1, S_OK, 0);
    atomic_store(&destroy_saw_walk, 0);
    if (!CHECK(pthread_create(&helper, NULL, destroy_thread, NULL) == 0, "helper thread"))
        return;
    CHECK(send_snapshot(&conn_a, 0xDE57) == 0, "snapshot sent");
    CHECK(read_snapshot(&conn_a, WIRE_STACK_SNAPSHOT, 0xDE57, &snap, 5000) == 1 &&
              snap.nthreads == 2,
          "the snapshot arrives with both threads");
    pthread_join(helper, NULL);
    if (!CHECK(atomic_load(&destroy_saw_walk), "ThreadDestroyed was called during the walk"))
        return;
    /* an order, not a time: it returned while the walk (300 ms) went on */
    CHECK(destroy_other_returned_ns < atomic_load(&fake_scene.walk_end_ns),
          "ThreadDestroyed of a thread not being walked returns during the walk (took %.1f ms)",
          destroy_other_ns / 1e6);
    CHECK(destroy_returned_ns >= atomic_load(&fake_scene.walk_end_ns) &&
              destroy_walked_ns > 150000000ull,
          "ThreadDestroyed of the walked thread returned only after its walk ended (waited %.1f "
          "ms)",
          destroy_walked_ns / 1e6);
}

static const check_test tests[] = {TEST_ENTRY(snapshot),
                                   TEST_ENTRY(suspend_interleave),
                                   TEST_ENTRY(snapshot_naming_lock),
                                   TEST_ENTRY(snapshot_dynamic),
                                   TEST_ENTRY(snapshot_retries),
                                   TEST_ENTRY(thread_destroyed_waits),
                                   TEST_END};

int main(int argc, char **argv) { return sidebyside_main(argc, argv, tests); }
