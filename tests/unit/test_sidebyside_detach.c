/* test_sidebyside_detach.c -- how the agent ends, against the fake CoreCLR
 * (fakeclr.h; the harness is sidebyside.h): a detach the runtime refuses and
 * one it grants (the agent's threads out of the library before it is
 * unloaded, the connection closed, the runtime's interface released, the heap
 * given back), and a runtime's Shutdown while sampling.
 *
 * Tests:
 *   detach             WIRE_CMD_DETACH refused by the runtime -> DETACH_STATUS
 *                      REFUSED, agent carries on (its idle walker thread joined
 *                      first); then, while sampling, WIRE_CMD_DETACH -> STOPPED,
 *                      no walker thread left, RequestProfilerDetach on the agent's
 *                      thread, DETACH_STATUS
 *                      REQUESTED, the thread leaves by itself;
 *                      ProfilerDetachSucceeded -> DETACH_STATUS SUCCEEDED last, the
 *                      connection already closed when it returns, ICorProfilerInfo
 *   shutdown           C samples; C's Shutdown: PROFILE_STATUS STOPPED, the
 *                      connection closes within 3 s (in fact before Shutdown
 *                      returns), its last frames the final counters (WIRE_DROPS,
 *                      WIRE_AGENT_COST), the "jitscope-agent" and "jitscope-walk"
 *                      threads are gone; object released. A Shutdown keeps the
 *                      claim, as the process ends after it: this test runs in a
 *                      child process (in_child).
 *   detach_gives_back_the_heap  8,000 JITs, then a detach: the heap in use is
 *                      back to what it was before them
 *
 * Build: make build/tests/test_sidebyside_detach (needs `make all` for the agent .so).
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sidebyside.h"
#if defined(__SANITIZE_ADDRESS__)
/* ASan's public interface (sanitizer/allocator_interface.h, not always installed) */
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

static snap_read snap; /* a walk read back */

TEST(detach)
{
    wire_cmd_detach cmd = {.expected_ms = 1234}, refused = {0};
    wire_profile_status pst;
    tail_info tail;
    wire_detach_status s;
    HRESULT hr;
    int n, stopped_first = 0;

    if (a_up() != 0)
        return;

    /* first the runtime refuses: the agent reports it and carries on */
    atomic_store(&rt_a.detach_result, CORPROF_E_IMMUTABLE_FLAGS_SET);
    refused.expected_ms = 100000; /* more than the agent passes on */
    CHECK(send_command(conn_a.fd, WIRE_CMD_DETACH, &refused, sizeof(refused)) == 0,
          "WIRE_CMD_DETACH sent (runtime will refuse)");
    if (!CHECK(conn_wait_type(&conn_a, WIRE_DETACH_STATUS, 3000) == 1,
               "DETACH_STATUS arrives after the refused command"))
        return;
    memcpy(&s, conn_a.last_payload, sizeof(s));
    CHECK(s.state == WIRE_DETACH_REFUSED && s.hresult == CORPROF_E_IMMUTABLE_FLAGS_SET,
          "refused: DETACH_STATUS REFUSED with the runtime's HRESULT (state %u, hr 0x%08x)",
          s.state, (unsigned)s.hresult);
    CHECK(atomic_load(&rt_a.detach_calls) == 1, "refused: RequestProfilerDetach called once");
    CHECK(atomic_load(&fake_scene.walkers_at_detach) == 0,
          "the idle walker thread was joined before RequestProfilerDetach (%d left)",
          atomic_load(&fake_scene.walkers_at_detach));
    CHECK(atomic_load(&rt_a.detach_expected_ms) == 60000,
          "refused: expected_ms capped at 60000 (%u)",
          (unsigned)atomic_load(&rt_a.detach_expected_ms));
    CHECK(ping(&conn_a, 0xDE7AC4ull, 2000), "refused: the agent still answers a ping");
    CHECK(threads_named(AGENT_THREAD_NAME) == 1, "refused: the agent thread still runs");
    CHECK(atomic_load(&rt_a.refs) == 2, "refused: ICorProfilerInfo10 still held");

    /* now the runtime agrees, and a profile is running when the detach comes */
    fake_stacks_reset();
    fake_add_thread(0xAA, 3, S_OK, 0);
    CHECK(send_profile(&conn_a, 40, 0, 0) == 0, "PROFILE_START 40 Hz before the detach");
    CHECK(read_status(&conn_a, WIRE_PROFILE_STARTED, &pst, NULL, 30000) == 1 &&
              read_snapshot(&conn_a, WIRE_STACK_SAMPLE, 0, &snap, 2000) == 1,
          "sampling runs (STARTED, a sample)");
    CHECK(wait_threads_named("jitscope-walk", 1, 1000) == 1, "the walker thread runs again");
    atomic_store(&fake_scene.walkers_at_detach, -1);
    atomic_store(&rt_a.detach_result, S_OK);
    CHECK(send_command(conn_a.fd, WIRE_CMD_DETACH, &cmd, sizeof(cmd)) == 0, "WIRE_CMD_DETACH sent");
    for (;;) {
        if (!CHECK(conn_read(&conn_a, 3000) == 1, "DETACH_STATUS arrives after the command"))
            return;
        if (conn_a.last.type == WIRE_PROFILE_STATUS && conn_a.last_length == sizeof(pst)) {
            memcpy(&pst, conn_a.last_payload, sizeof(pst));
            stopped_first |= pst.state == WIRE_PROFILE_STOPPED;
        }
        if (conn_a.last.type == WIRE_DETACH_STATUS)
            break;
    }
    CHECK(stopped_first, "PROFILE_STATUS STOPPED is sent before DETACH_STATUS");
    CHECK(atomic_load(&fake_scene.walkers_at_detach) == 0,
          "the sampler stopped and the walker thread was gone when RequestProfilerDetach was "
          "called (%d \"jitscope-walk\" threads)",
          atomic_load(&fake_scene.walkers_at_detach));
    memcpy(&s, conn_a.last_payload, sizeof(s));
    CHECK(conn_a.last_length == sizeof(s) && s.state == WIRE_DETACH_REQUESTED && s.hresult == 0,
          "first DETACH_STATUS: REQUESTED, S_OK (state %u, hr 0x%08x)", s.state,
          (unsigned)s.hresult);
    CHECK(atomic_load(&rt_a.detach_calls) == 2, "RequestProfilerDetach called again (%d in all)",
          atomic_load(&rt_a.detach_calls));
    CHECK(atomic_load(&rt_a.detach_expected_ms) == 1234,
          "the command's expected_ms reached RequestProfilerDetach (%u)",
          (unsigned)atomic_load(&rt_a.detach_expected_ms));
    CHECK(atomic_load(&rt_a.detach_tid) != my_tid() &&
              strcmp(rt_a.detach_thread_name, AGENT_THREAD_NAME) == 0,
          "RequestProfilerDetach came from the agent's own thread (\"%s\")",
          rt_a.detach_thread_name);
    /* the runtime unloads the library after ProfilerDetachSucceeded: the agent's
     * thread must be out of it before that */
    n = wait_threads_named(AGENT_THREAD_NAME, 0, 2000);
    CHECK(n == 0, "after RequestProfilerDetach the agent thread leaves by itself (%d left)", n);

    hr = obj_a->lpVtbl->ProfilerDetachSucceeded(obj_a);
    claimed = (owner){0};
    CHECK(hr == S_OK, "A: ProfilerDetachSucceeded -> S_OK");
    /* the runtime unloads the library right after this returns: by then the last
     * record must be written and the socket closed */
    memset(&tail, 0, sizeof(tail));
    conn_read_to_eof(&conn_a, 0, &tail);
    CHECK(tail.eof, "the connection was already closed when ProfilerDetachSucceeded returned");
    if (!tail.eof)
        conn_read_to_eof(&conn_a, 3000, &tail);
    CHECK(tail.eof, "the agent closed the connection after ProfilerDetachSucceeded (%.3f s)",
          tail.seconds);
    CHECK(tail.statuses >= 1 && tail.status_states[tail.statuses - 1] == WIRE_DETACH_SUCCEEDED &&
              tail.status_hresults[tail.statuses - 1] == 0,
          "a DETACH_STATUS SUCCEEDED, S_OK follows the REQUESTED one (%u statuses after it)",
          tail.statuses);
    CHECK(tail.statuses == 1, "exactly REQUESTED then SUCCEEDED (%u statuses after REQUESTED)",
          tail.statuses);
    CHECK(tail.last_type == WIRE_DETACH_STATUS,
          "DETACH_STATUS SUCCEEDED is the last frame "
          "(last type %u)",
          tail.last_type);
    CHECK(conn_a.seq_errors == 0 && conn_a.bad_length == 0,
          "A: no sequence gap up to the end (%u frames)", conn_a.frames);
    CHECK(threads_named(AGENT_THREAD_NAME) == 0 && threads_named("jitscope-walk") == 0,
          "no agent thread after the detach");
    CHECK(atomic_load(&rt_a.refs) == 1, "the agent released A's ICorProfilerInfo10 (refs %d)",
          atomic_load(&rt_a.refs));
    CHECK(atomic_load(&rt_a.detach_calls) == 2, "no further RequestProfilerDetach");
    close(conn_a.fd);
    conn_a.fd = -1;
}

/* Runtime C shuts down while sampling. A Shutdown keeps the claim (the
 * process ends after it), so this runs in a child process: see in_child. */
static void shutdown_in_child(void)
{
    tail_info tail;
    HRESULT hr;
    ULONG refs;
    int n;

    setenv(WIRE_ENV_TOKEN, TOKEN_C, 1);
    if (claim(&rt_c, 9, &obj_c, &conn_c) != 0)
        return;
    /* sampling when the runtime shuts down */
    fake_stacks_reset();
    fake_add_thread(0xAB, 2, S_OK, 0);
    CHECK(send_profile(&conn_c, 40, 0, 0) == 0, "C: PROFILE_START");
    if (CHECK(read_snapshot(&conn_c, WIRE_STACK_SAMPLE, 0, &snap, 2000) == 1, "C: a sample"))
        CHECK(snap.end.snapshot_id == 1 && snap.statuses == 1 &&
                  snap.status.state == WIRE_PROFILE_STARTED,
              "C: its first walk is number 1 (%llu), STARTED before it",
              (unsigned long long)snap.end.snapshot_id);
    CHECK(threads_named("jitscope-walk") == 1, "C: the walker thread runs");
    hr = obj_c->lpVtbl->Shutdown(obj_c);
    CHECK(hr == S_OK, "C: Shutdown -> S_OK");
    /* with a server that reads promptly, Shutdown's bounded flush finishes at once,
     * so the sender has closed the socket (and been joined) before Shutdown returns */
    memset(&tail, 0, sizeof(tail));
    conn_read_to_eof(&conn_c, 0, &tail);
    CHECK(tail.eof, "C: the connection was already closed when Shutdown returned");
    if (!tail.eof)
        conn_read_to_eof(&conn_c, 3000, &tail);
    CHECK(tail.eof, "C: the agent's connection closed (recv 0) within 3 s (%.3f s)", tail.seconds);
    CHECK(tail.statuses == 0, "C: no detach status on a plain Shutdown");
    CHECK(tail.frames >= 1 && tail.last_type == WIRE_AGENT_COST,
          "C: Shutdown's last frames are the final counters, WIRE_DROPS then WIRE_AGENT_COST "
          "(last type %u)",
          tail.last_type);
    CHECK(tail.profile_stopped == 1, "C: Shutdown stopped the profile (PROFILE_STATUS STOPPED "
                                     "sent before the connection closed)");
    CHECK(threads_named("jitscope-walk") == 0, "C: the walker thread was joined by Shutdown");
    CHECK(conn_c.seq_errors == 0 && conn_c.bad_length == 0,
          "C: no sequence gap up to the end (%u frames)", conn_c.frames);
    n = wait_threads_named(AGENT_THREAD_NAME, 0, 1000);
    CHECK(n == 0, "C: the \"" AGENT_THREAD_NAME "\" thread is gone (%d left)", n);
    CHECK(atomic_load(&rt_c.detach_calls) == 0, "C: no detach was requested");
    close(conn_c.fd);
    conn_c.fd = -1;
    refs = obj_c->lpVtbl->Release(obj_c);
    CHECK(refs == 0, "object C released after its Shutdown (%u)", refs);
    obj_c = NULL;
    CHECK(accept_agent(0) < 0, "no stray connection is pending");
}

TEST(shutdown)
{
    if (setup() == 0)
        in_child(shutdown_in_child);
}

/* The heap in use now: ASan's count when the test runs under it (its
 * allocator serves the agent's malloc too), glibc's otherwise. */
static size_t heap_in_use(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return __sanitizer_get_current_allocated_bytes();
#else
    return mallinfo2().uordblks;
#endif
}

/* The runtime unloads the agent's library after a detach: whatever the agent
 * still holds on the heap then is lost for the life of the app, once per
 * attach. After thousands of JITs (names read and cached, every FunctionID
 * remembered as alive for code requests) a detach gives it all back. */
TEST(detach_gives_back_the_heap)
{
    enum { BATCH = 400, BATCHES = 20 }; /* a batch's records fit the 64 KiB ring */
    wire_cmd_ping ping = {0xF4EE};
    size_t before, after;
    unsigned b, i, jits = 0;

    if (a_up() != 0)
        return;
    before = heap_in_use();
    for (b = 0; b < BATCHES; b++) {
        for (i = 0; i < BATCH; i++) {
            FunctionID fid = (FunctionID)(0x100000u + b * BATCH + i);
            obj_a->lpVtbl->JITCompilationStarted(obj_a, fid, TRUE);
            obj_a->lpVtbl->JITCompilationFinished(obj_a, fid, S_OK, TRUE);
        }
        ping.cookie = 0xF4EE0 + b;
        send_command(conn_a.fd, WIRE_CMD_PING, &ping, sizeof(ping));
        while (conn_read(&conn_a, 3000) == 1 && conn_a.last.type != WIRE_PONG)
            jits += conn_a.last.type == WIRE_JIT_FINISHED;
    }
    CHECK(jits == BATCH * BATCHES, "the agent forwarded every JIT (%u of %u)", jits,
          BATCH * BATCHES);
    release_claim();
    after = heap_in_use();
    printf("  heap in use: %zu bytes with the agent up, %zu after its detach\n", before, after);
    CHECK(after <= before + 16384,
          "after the detach the agent holds nothing more on the heap than before its JITs "
          "(%zd bytes more)",
          (ssize_t)(after - before));
}

static const check_test tests[] = {TEST_ENTRY(detach), TEST_ENTRY(shutdown),
                                   TEST_ENTRY(detach_gives_back_the_heap), TEST_END};

int main(int argc, char **argv) { return sidebyside_main(argc, argv, tests); }
