/* test_sidebyside_claim.c -- who owns the agent: one per process, claimed by
 * the first runtime that starts it (the fake CoreCLR of fakeclr.h; the
 * harness is sidebyside.h). A runtime beside the owner is declined and left
 * untouched; two attaching at once, exactly one wins with its own settings;
 * after a detach a new runtime claims it afresh.
 *
 * Tests:
 *   attach_race        300 trials (JITSCOPE_TEST_ATTACH_RACE=<trials> for more): two
 *                      runtimes attach at once with different client data; the
 *                      winner's hello must carry the winner's token (the agent
 *                      claims before it copies client data, see lifecycle.c)
 *   side_by_side       runtime A: Initialize -> S_OK, SetEventMask2 (JIT, modules,
 *                      assemblies, threads, suspensions, stack snapshot; high mask
 *                      BASIC_GC; nothing immutable; all allowed after attach),
 *                      hello frame (token, 10.0.1, pid, mode, ring size),
 *                      records flow; runtime B: Initialize and InitializeForAttach
 *                      -> CORPROF_E_PROFILER_CANCEL_ACTIVATION, B's runtime never
 *                      queried, no second connection in 300 ms; B's Shutdown /
 *                      ProfilerDetachSucceeded do not disturb A (ping answered)
 *   reclaim            after A's detach the claim is free again: runtime C (a
 *                      third object) Initialize -> S_OK, fresh hello (new token,
 *                      seq 1), walks numbered from 1 again; A's late Shutdown
 *                      harmless; B, declined beside A, untouched
 *
 * Build: make build/tests/test_sidebyside_claim (needs `make all` for the agent .so).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sidebyside.h"

/* The CoreCLR values, written out independently of corprof.h. */
#define REAL_MONITOR_MODULE_LOADS 0x00000004u
#define REAL_MONITOR_ASSEMBLY_LOADS 0x00000008u
#define REAL_MONITOR_JIT_COMPILATION 0x00000020u
#define REAL_MONITOR_THREADS 0x00000200u
#define REAL_MONITOR_ENTERLEAVE 0x00001000u
#define REAL_MONITOR_SUSPENDS 0x00010000u
#define REAL_MONITOR_CACHE_SEARCHES 0x00020000u
#define REAL_ENABLE_STACK_SNAPSHOT 0x10000000u
#define REAL_HIGH_BASIC_GC 0x00000010u
#define REAL_HIGH_MONITOR_EVENT_PIPE 0x00000080u
/* COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH of .NET 5 and later (in-memory symbols,
 * dynamic function unloads, basic GC, moved objects, large objects, EventPipe)
 * and COR_PRF_HIGH_MONITOR_IMMUTABLE (disable tiered compilation). */
#define REAL_HIGH_ALLOWABLE_AFTER_ATTACH 0x000000F6u
#define REAL_HIGH_IMMUTABLE 0x00000008u
/* The strictest COR_PRF_ALLOWABLE_AFTER_ATTACH any runtime version has had
 * (.NET Framework 4's: threads, module/assembly/appdomain loads, stack snapshot,
 * GC, suspends, class loads, JIT compilation) and the widest
 * COR_PRF_MONITOR_IMMUTABLE (including DISABLE_INLINING / DISABLE_OPTIMIZATIONS,
 * which older runtimes treat as immutable). */
#define REAL_ALLOWABLE_AFTER_ATTACH_MIN                                                            \
    (0x00000200u /* threads */ | 0x00000004u /* module loads */ |                                  \
     0x00000008u /* assembly loads */ | 0x00000010u /* appdomain loads */ |                        \
     0x10000000u /* stack snapshot */ | 0x00000080u /* GC */ | 0x00010000u /* suspends */ |        \
     0x00000002u /* class loads */ | 0x00000020u /* JIT compilation */)
#define REAL_IMMUTABLE_MAX                                                                         \
    (0x00000800u /* code transitions */ | 0x00000400u /* remoting */ |                             \
     0x00004400u /* remoting cookie */ | 0x00008400u /* remoting async */ |                        \
     0x00080000u /* inproc debugging */ | 0x00100000u /* JIT maps */ |                             \
     0x00400000u /* disable optimizations */ | 0x00200000u /* disable inlining */ |                \
     0x00800000u /* enable object allocated */ | 0x02000000u /* function args */ |                 \
     0x04000000u /* function retval */ | 0x08000000u /* frame info */ |                            \
     0x20000000u /* profile images */ | 0x40000000u /* transparency checks */ |                    \
     0x80000000u /* disable all NGEN images */)

static snap_read snap; /* a walk read back (reclaim) */

/* 300 trials by default (JITSCOPE_TEST_ATTACH_RACE=<trials>): two runtimes call
 * InitializeForAttach at the same moment with different client data. Exactly
 * one must win, and the winner's hello must carry the winner's own token: the
 * loser's client data must never reach the agent's state. Each trial ends with
 * a detach, so the claim is free for the next one. */
static ICorProfilerCallback11 *race_objs[2];
static fake_runtime race_rts[2];
static conn race_conn = {.fd = -1};
static char race_data[2][256];
static _Atomic int race_go;
static HRESULT race_hr[2];

static void *race_thread(void *arg)
{
    int i = (int)(intptr_t)arg;

    while (!atomic_load(&race_go))
        ;
    race_hr[i] = race_objs[i]->lpVtbl->InitializeForAttach(
        race_objs[i], &race_rts[i].unk, race_data[i], (UINT)strlen(race_data[i]));
    return NULL;
}

TEST(attach_race)
{
    static const char *const tokens[2] = {"11111111111111111111111111111111",
                                          "22222222222222222222222222222222"};
    const char *env = getenv("JITSCOPE_TEST_ATTACH_RACE");
    int trials = env && strtol(env, NULL, 10) > 0 ? (int)strtol(env, NULL, 10) : 300, trial,
        wrong = 0, both = 0, none = 0, lost = 0;

    if (setup() != 0)
        return;
    for (trial = 0; trial < trials; trial++) {
        conn *c = &race_conn;
        wire_cmd_detach cmd = {0};
        pthread_t t[2];
        tail_info tail;
        wire_hello h;
        int i, w;

        for (i = 0; i < 2; i++) {
            fake_init(&race_rts[i], (uint16_t)(20 + i));
            race_objs[i] = new_profiler();
            snprintf(race_data[i], sizeof(race_data[i]), "%s%s %s", WIRE_CLIENT_DATA_PREFIX,
                     tokens[i], sock_path);
        }
        atomic_store(&race_go, 0);
        for (i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, race_thread, (void *)(intptr_t)i);
        atomic_store(&race_go, 1);
        for (i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        if (race_hr[0] == S_OK && race_hr[1] == S_OK) {
            both++;
            break; /* two owners: nothing sane can follow */
        }
        if (race_hr[0] != S_OK && race_hr[1] != S_OK) {
            none++;
            break;
        }
        w = race_hr[0] == S_OK ? 0 : 1;
        claimed = (owner){&race_rts[w], race_objs[w], c};
        if (conn_accept(c, 3000) != 0 || c->last.type != WIRE_HELLO) {
            lost++;
            break;
        }
        memcpy(&h, c->last_payload, sizeof(h));
        if (memcmp(h.token, tokens[w], WIRE_TOKEN_LEN) != 0 || h.clr_instance_id != 20 + w) {
            if (wrong++ < 3)
                printf("  trial %d: runtime %d won, its hello says instance %u, token %.32s\n",
                       trial, w, h.clr_instance_id, h.token);
        }
        send_command(c->fd, WIRE_CMD_DETACH, &cmd, sizeof(cmd));
        if (conn_wait_type(c, WIRE_DETACH_STATUS, 3000) != 1) {
            lost++;
            break;
        }
        race_objs[w]->lpVtbl->ProfilerDetachSucceeded(race_objs[w]);
        claimed = (owner){0};
        memset(&tail, 0, sizeof(tail));
        conn_read_to_eof(c, 3000, &tail);
        close(c->fd);
        c->fd = -1;
        for (i = 0; i < 2; i++) {
            race_objs[i]->lpVtbl->Release(race_objs[i]);
            race_objs[i] = NULL;
        }
    }
    CHECK(both == 0 && none == 0, "exactly one of two racing runtimes wins (both %d, none %d)",
          both, none);
    CHECK(lost == 0, "every trial's winner connected and detached");
    CHECK(wrong == 0, "the winner's hello carries the winner's token (wrong in %d of %d trials)",
          wrong, trial);
    /* what a trial stopped half way left: the winner's claim, then both objects */
    release_claim();
    release_object(&race_objs[0], "a racing runtime's object");
    release_object(&race_objs[1], "a racing runtime's object");
}

TEST(side_by_side)
{
    char client_data[256];
    ThreadID managed = 0x5555AAAAu;
    wire_thread t;
    DWORD mask;
    HRESULT hr;
    int n;

    if (setup() != 0)
        return;
    /* runtime A: first, so it owns the agent; the agent connects to us and says hello */
    if (a_up() != 0)
        return;
    fake_init(&rt_b, 4);
    obj_b = new_profiler();
    if (!CHECK(obj_b && obj_a != obj_b, "two profiler objects for two runtimes"))
        return;
    CHECK(atomic_load(&rt_a.info10_handed_out) == 1, "A: the agent asked for ICorProfilerInfo10");
    CHECK(atomic_load(&rt_a.unexpected_qi) == 0, "A: no other interface was asked for");
    CHECK(atomic_load(&rt_a.runtime_info_calls) >= 1, "A: GetRuntimeInformation called");
    CHECK(atomic_load(&rt_a.refs) == 2,
          "A: the agent holds one ICorProfilerInfo10 reference "
          "(runtime refs %d)",
          atomic_load(&rt_a.refs));
    CHECK(atomic_load(&rt_a.set_mask_calls) == 1, "A: SetEventMask2 called once (%d)",
          atomic_load(&rt_a.set_mask_calls));
    mask = atomic_load(&rt_a.mask);
    CHECK(mask & REAL_MONITOR_JIT_COMPILATION, "A: mask has JIT compilation (0x%08x)", mask);
    CHECK(mask & REAL_MONITOR_MODULE_LOADS, "A: mask has module loads");
    CHECK(mask & REAL_MONITOR_ASSEMBLY_LOADS, "A: mask has assembly loads");
    CHECK(mask & REAL_MONITOR_THREADS, "A: mask has threads");
    CHECK(mask & REAL_MONITOR_SUSPENDS, "A: mask has runtime suspensions");
    CHECK(mask & REAL_ENABLE_STACK_SNAPSHOT, "A: mask enables DoStackSnapshot");
    CHECK(atomic_load(&rt_a.mask_high) == (REAL_HIGH_BASIC_GC | REAL_HIGH_MONITOR_EVENT_PIPE),
          "A: high mask is BASIC_GC and the EventPipe of the tier source (0x%08x)",
          atomic_load(&rt_a.mask_high));
    CHECK(atomic_load(&rt_a.info12_asked) == 1,
          "A: asked once for ICorProfilerInfo12 (the tier source), and ran on without it");
    CHECK((atomic_load(&rt_a.mask_high) & REAL_HIGH_IMMUTABLE) == 0 &&
              (atomic_load(&rt_a.mask_high) & ~REAL_HIGH_ALLOWABLE_AFTER_ATTACH) == 0 &&
              (atomic_load(&rt_a.mask_high) & ~COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH) == 0,
          "A: high mask: nothing immutable, all allowed after attach");
    CHECK((mask & COR_PRF_MONITOR_IMMUTABLE) == 0 && (mask & REAL_IMMUTABLE_MAX) == 0,
          "A: nothing immutable in the mask (detach stays possible)");
    CHECK((mask & REAL_MONITOR_ENTERLEAVE) == 0, "A: no enter/leave hooks");
    /* a startup agent also asks for the ReadyToRun searches, which an attach may not have */
    CHECK(mask & REAL_MONITOR_CACHE_SEARCHES, "A (startup): mask has the cache searches");
    CHECK((mask & ~REAL_MONITOR_CACHE_SEARCHES & ~COR_PRF_ALLOWABLE_AFTER_ATTACH) == 0 &&
              (mask & ~REAL_MONITOR_CACHE_SEARCHES & ~REAL_ALLOWABLE_AFTER_ATTACH_MIN) == 0,
          "A: everything else in the mask is allowed after attach (0x%08x)", mask);

    check_hello(&conn_a, TOKEN_A, WIRE_MODE_STARTUP, 3);
    CHECK(wait_threads_named(AGENT_THREAD_NAME, 1, 1000) == 1,
          "A: one \"" AGENT_THREAD_NAME "\" thread");

    /* records flow from A's callbacks to the socket */
    hr = obj_a->lpVtbl->ThreadCreated(obj_a, managed);
    CHECK(hr == S_OK, "A: ThreadCreated -> S_OK");
    if (CHECK(conn_wait_type(&conn_a, WIRE_THREAD_CREATED, 2000) == 1,
              "A: WIRE_THREAD_CREATED arrives") &&
        CHECK(conn_a.last_length == sizeof(t), "A: thread record size")) {
        memcpy(&t, conn_a.last_payload, sizeof(t));
        CHECK(t.thread_id == managed && t.os_thread_id == FAKE_OS_TID(managed),
              "A: thread record carries the ThreadID and the runtime's OS tid");
    }

    /* runtime B, side by side: declined, untouched */
    hr = obj_b->lpVtbl->Initialize(obj_b, &rt_b.unk);
    CHECK(hr == CORPROF_E_PROFILER_CANCEL_ACTIVATION,
          "runtime B: Initialize -> CORPROF_E_PROFILER_CANCEL_ACTIVATION (0x%08x)", (unsigned)hr);
    snprintf(client_data, sizeof(client_data), "%s%s %s", WIRE_CLIENT_DATA_PREFIX, TOKEN_C,
             sock_path);
    hr = obj_b->lpVtbl->InitializeForAttach(obj_b, &rt_b.unk, client_data,
                                            (UINT)strlen(client_data));
    CHECK(hr == CORPROF_E_PROFILER_CANCEL_ACTIVATION,
          "runtime B: InitializeForAttach (valid client data) -> "
          "CORPROF_E_PROFILER_CANCEL_ACTIVATION (0x%08x)",
          (unsigned)hr);
    CHECK(atomic_load(&rt_b.set_mask_calls) == 0, "B: SetEventMask never called");
    CHECK(atomic_load(&rt_b.unk_qi_calls) == 0 && atomic_load(&rt_b.runtime_info_calls) == 0,
          "B: its runtime was never queried");
    CHECK(atomic_load(&rt_b.refs) == 1, "B: no reference kept on B's runtime");
    n = accept_agent(300);
    CHECK(n < 0, "B: no second connection within 300 ms");
    if (n >= 0)
        close(n);
    CHECK(threads_named(AGENT_THREAD_NAME) == 1, "still one agent thread");

    /* B's runtime going away must not take A's agent with it */
    CHECK(obj_b->lpVtbl->Shutdown(obj_b) == S_OK, "B: Shutdown -> S_OK");
    CHECK(obj_b->lpVtbl->ProfilerAttachComplete(obj_b) == S_OK, "B: ProfilerAttachComplete");
    CHECK(obj_b->lpVtbl->ProfilerDetachSucceeded(obj_b) == S_OK,
          "B: ProfilerDetachSucceeded -> S_OK");
    CHECK(ping(&conn_a, 0x1122334455667788ull, 2000),
          "A's agent still answers a ping after B's Shutdown/DetachSucceeded");
    CHECK(threads_named(AGENT_THREAD_NAME) == 1, "A's agent thread still runs");
    CHECK(atomic_load(&rt_a.refs) == 2, "A's ICorProfilerInfo10 reference is still held");
    CHECK(atomic_load(&rt_a.detach_calls) == 0, "nobody asked A's runtime for a detach");
    CHECK(conn_a.seq_errors == 0 && conn_a.bad_length == 0,
          "A: frame sequence numbers 1, 2, 3 ... without a gap (%u frames)", conn_a.frames);
}

/* After a detach the claim is free again: runtime C (a third object)
 * Initialize -> S_OK and a fresh hello (new token, seq 1); the detached A's
 * late Shutdown does not disturb it; a fourth runtime is declined. */
TEST(reclaim)
{
    HRESULT hr;

    if (a_up() != 0)
        return;
    fake_init(&rt_b, 4);
    obj_b = new_profiler();
    CHECK(obj_b &&
              obj_b->lpVtbl->Initialize(obj_b, &rt_b.unk) == CORPROF_E_PROFILER_CANCEL_ACTIVATION,
          "B is declined while A owns the agent");
    fake_add_thread(0xAB, 2, S_OK, 0);
    CHECK(send_snapshot(&conn_a, 0xAAA1) == 0 && send_snapshot(&conn_a, 0xAAA2) == 0 &&
              read_snapshot(&conn_a, WIRE_STACK_SNAPSHOT, 0xAAA2, &snap, 5000) == 1 &&
              snap.end.snapshot_id == 2,
          "A's agent numbers its walks 1, 2");
    release_claim(); /* A detaches */
    /* a new session reads its settings again: a different token this time */
    setenv(WIRE_ENV_TOKEN, TOKEN_C, 1);
    fake_init(&rt_c, 9);
    obj_c = new_profiler();
    if (!CHECK(obj_c != NULL && obj_c != obj_a && obj_c != obj_b, "a third profiler object"))
        return;
    hr = obj_c->lpVtbl->Initialize(obj_c, &rt_c.unk);
    if (!CHECK(hr == S_OK,
               "runtime C after A's detach: Initialize -> S_OK (0x%08x): the claim "
               "was released",
               (unsigned)hr))
        return;
    claimed = (owner){&rt_c, obj_c, &conn_c};
    CHECK(atomic_load(&rt_c.set_mask_calls) == 1, "C: SetEventMask called");
    CHECK(atomic_load(&rt_c.mask) == atomic_load(&rt_a.mask) &&
              atomic_load(&rt_c.mask_high) == atomic_load(&rt_a.mask_high),
          "C: same masks as A");
    CHECK(atomic_load(&rt_b.set_mask_calls) == 0 && atomic_load(&rt_b.unk_qi_calls) == 0,
          "B's runtime is still untouched");
    if (!CHECK(conn_accept(&conn_c, 3000) == 0, "C: a new connection within 3 s, its first frame"))
        return;
    check_hello(&conn_c, TOKEN_C, WIRE_MODE_STARTUP, 9);
    CHECK(wait_threads_named(AGENT_THREAD_NAME, 1, 1000) == 1, "C: one agent thread again");
    CHECK(ping(&conn_c, 0xC0FFEEull, 2000), "C: the new session answers a ping");
    CHECK(send_snapshot(&conn_c, 0xCCC1) == 0 &&
              read_snapshot(&conn_c, WIRE_STACK_SNAPSHOT, 0xCCC1, &snap, 5000) == 1 &&
              snap.end.snapshot_id == 1,
          "C: a new owner's agent numbers its walks from 1 again (%llu)",
          (unsigned long long)snap.end.snapshot_id);
    CHECK(obj_a->lpVtbl->Shutdown(obj_a) == S_OK, "the detached A's Shutdown -> S_OK");
    CHECK(ping(&conn_c, 0xC0FFEE2ull, 2000), "C: still answers after A's late Shutdown");
    {
        ICorProfilerCallback11 *d = new_profiler();
        if (CHECK(d != NULL, "a fourth object")) {
            fake_runtime rt_d;
            fake_init(&rt_d, 10);
            CHECK(d->lpVtbl->Initialize(d, &rt_d.unk) == CORPROF_E_PROFILER_CANCEL_ACTIVATION,
                  "while C owns the agent, a fourth runtime is declined");
            CHECK(atomic_load(&rt_d.unk_qi_calls) == 0, "... and not queried");
            CHECK(d->lpVtbl->Release(d) == 0, "fourth object released");
        }
    }
}

static const check_test tests[] = {TEST_ENTRY(attach_race), TEST_ENTRY(side_by_side),
                                   TEST_ENTRY(reclaim), TEST_END};

int main(int argc, char **argv) { return sidebyside_main(argc, argv, tests); }
