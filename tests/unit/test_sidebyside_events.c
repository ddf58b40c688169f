/* test_sidebyside_events.c -- the runtime's callbacks become the agent's
 * records: a collection and its suspensions, inlining and ReadyToRun searches,
 * compilations with and without the tier source's events (the fake CoreCLR of
 * fakeclr.h; the harness is sidebyside.h; runtime A owns the agent: a_up).
 *
 * Tests:
 *   gc_timeline        GC and suspension callbacks -> GC_STARTED (generation mask,
 *                      reason), RUNTIME_SUSPEND phases (each with the reason),
 *                      GC_FINISHED, in order; the lone ends of a GC / suspension
 *                      begun before are ignored
 *   jit_info           JITInlining -> INLINING (caller, callee, the thread's
 *                      ThreadID), the cache searches -> CODE_SEARCH (started,
 *                      found, not found); the runtime's answers never changed;
 *                      the time a JITInlining call takes (a ring write), printed
 *   jit_without_method_load  a compilation whose MethodJittingStarted came but
 *                      not its MethodLoad: tier unknown, its code from the runtime
 *                      (one code version), the IL size from the event
 *   tier_source_ended_under_a_compilation  the runtime ends the tier source as
 *                      the process exits: a compilation cut by it (its
 *                      MethodJittingStarted, no MethodLoad) finishes before
 *                      the ProcessInfo; the end the agent says (TIERS_STATUS
 *                      ENDED_BY_RUNTIME) is no later, and said before it;
 *                      a late MethodJittingStarted does not take it back
 *   tier_source_switched_under_a_compilation  one whose MethodLoad did not
 *                      come because the server switched the source off and on
 *                      while it compiled: the runtime ended nothing
 *
 * Build: make build/tests/test_sidebyside_events (needs `make all` for the agent .so).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sidebyside.h"

TEST(gc_timeline)
{
    BOOL gens[3] = {TRUE, FALSE, TRUE};
    wire_cmd_ping ping = {0x71E11E};
    uint16_t types[16];
    uint8_t payloads[16][8];
    unsigned n = 0;

    if (a_up() != 0)
        return;
    /* the ends of a collection and a suspension that began before the agent */
    obj_a->lpVtbl->GarbageCollectionFinished(obj_a);
    obj_a->lpVtbl->RuntimeSuspendFinished(obj_a);
    obj_a->lpVtbl->RuntimeResumeFinished(obj_a);
    /* then a whole collection with its suspension */
    CHECK(obj_a->lpVtbl->GarbageCollectionStarted(obj_a, 3, gens, COR_PRF_GC_INDUCED) == S_OK,
          "GarbageCollectionStarted -> S_OK");
    obj_a->lpVtbl->RuntimeSuspendStarted(obj_a, COR_PRF_SUSPEND_FOR_GC);
    obj_a->lpVtbl->RuntimeSuspendFinished(obj_a);
    obj_a->lpVtbl->RuntimeResumeStarted(obj_a);
    obj_a->lpVtbl->RuntimeResumeFinished(obj_a);
    obj_a->lpVtbl->RuntimeSuspendAborted(obj_a);
    CHECK(obj_a->lpVtbl->GarbageCollectionFinished(obj_a) == S_OK,
          "GarbageCollectionFinished -> S_OK");
    send_command(conn_a.fd, WIRE_CMD_PING, &ping, sizeof(ping));
    while (n < 16 && conn_read(&conn_a, 30000) == 1 && conn_a.last.type != WIRE_PONG) {
        uint16_t t = conn_a.last.type;
        if (t == WIRE_GC_STARTED || t == WIRE_GC_FINISHED || t == WIRE_RUNTIME_SUSPEND) {
            types[n] = t;
            memcpy(payloads[n], conn_a.last_payload, 8);
            CHECK(conn_a.last_length == 8, "timeline record of 8 bytes (type %u: %u)", t,
                  conn_a.last_length);
            n++;
        }
    }
    if (!CHECK(n == 7, "7 timeline records, the 3 lone ends ignored (got %u)", n))
        return;
    {
        wire_gc_started g;
        wire_runtime_suspend s;
        static const uint32_t phases[5] = {WIRE_SUSPEND_STARTED, WIRE_SUSPEND_FINISHED,
                                           WIRE_RESUME_STARTED, WIRE_RESUME_FINISHED,
                                           WIRE_SUSPEND_ABORTED};
        unsigned i;

        memcpy(&g, payloads[0], sizeof(g));
        CHECK(types[0] == WIRE_GC_STARTED && g.generations == 0x5u && g.reason == 1,
              "GC_STARTED first: generations 0 and 2 (mask 0x%x), induced (%u)", g.generations,
              g.reason);
        for (i = 0; i < 5; i++) {
            memcpy(&s, payloads[1 + i], sizeof(s));
            CHECK(types[1 + i] == WIRE_RUNTIME_SUSPEND && s.phase == phases[i],
                  "RUNTIME_SUSPEND phase %u in order (got type %u phase %u)", phases[i],
                  types[1 + i], s.phase);
            CHECK(s.reason == COR_PRF_SUSPEND_FOR_GC,
                  "phase %u carries its suspension's reason: for GC (%u)", phases[i], s.reason);
        }
        CHECK(types[6] == WIRE_GC_FINISHED, "GC_FINISHED last (type %u)", types[6]);
    }
}

/* Sorts for the median below. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

TEST(jit_info)
{
    enum { BATCH = 400, BATCHES = 31 }; /* a batch's records (48 B each) fit the 64 KiB ring */
    const ThreadID me = (ThreadID)0x7000u + (ThreadID)(unsigned)my_tid();
    BOOL yes = TRUE, no = FALSE, cached = TRUE;
    wire_cmd_ping ping = {0x1A11E};
    wire_inlining in[2];
    wire_code_search search[3];
    double per_call[BATCHES];
    unsigned n_in = 0, n_search = 0, b, i, pongs = 0;

    if (a_up() != 0)
        return;
    CHECK(obj_a->lpVtbl->JITInlining(obj_a, 0x600A, 0x600B, &yes) == S_OK && yes == TRUE,
          "JITInlining -> S_OK, TRUE left TRUE");
    CHECK(obj_a->lpVtbl->JITInlining(obj_a, 0x600A, 0x600C, &no) == S_OK && no == FALSE,
          "JITInlining -> S_OK, FALSE left FALSE (the runtime's answer is never changed)");
    CHECK(obj_a->lpVtbl->JITCachedFunctionSearchStarted(obj_a, 0x600D, &cached) == S_OK &&
              cached == TRUE,
          "JITCachedFunctionSearchStarted -> S_OK, the precompiled code still used");
    obj_a->lpVtbl->JITCachedFunctionSearchFinished(obj_a, 0x600D, COR_PRF_CACHED_FUNCTION_FOUND);
    obj_a->lpVtbl->JITCachedFunctionSearchFinished(obj_a, 0x600E,
                                                   COR_PRF_CACHED_FUNCTION_NOT_FOUND);
    send_command(conn_a.fd, WIRE_CMD_PING, &ping, sizeof(ping));
    while (conn_read(&conn_a, 30000) == 1 && conn_a.last.type != WIRE_PONG) {
        if (conn_a.last.type == WIRE_INLINING && n_in < 2 &&
            CHECK(conn_a.last_length == sizeof(wire_inlining), "INLINING of %zu bytes (%u)",
                  sizeof(wire_inlining), conn_a.last_length))
            memcpy(&in[n_in++], conn_a.last_payload, sizeof(in[0]));
        if (conn_a.last.type == WIRE_CODE_SEARCH && n_search < 3 &&
            CHECK(conn_a.last_length == sizeof(wire_code_search), "CODE_SEARCH of %zu bytes (%u)",
                  sizeof(wire_code_search), conn_a.last_length))
            memcpy(&search[n_search++], conn_a.last_payload, sizeof(search[0]));
    }
    if (CHECK(n_in == 2, "2 INLINING records (got %u)", n_in))
        CHECK(in[0].caller == 0x600A && in[0].callee == 0x600B && in[0].thread_id == me &&
                  in[1].caller == 0x600A && in[1].callee == 0x600C && in[1].thread_id == me,
              "INLINING: caller, callee and the JIT thread's ThreadID, in order");
    if (CHECK(n_search == 3, "3 CODE_SEARCH records (got %u)", n_search))
        CHECK(search[0].function_id == 0x600D && search[0].result == WIRE_SEARCH_STARTED &&
                  search[1].function_id == 0x600D && search[1].result == WIRE_SEARCH_FOUND &&
                  search[2].function_id == 0x600E && search[2].result == WIRE_SEARCH_NOT_FOUND,
              "CODE_SEARCH: started, found, not found");

    /* The cost on the JIT thread: batches of calls timed, the ring emptied between
     * them (the sender forwards; the ping's answer comes after the batch). */
    for (b = 0; b < BATCHES; b++) {
        double t0 = now_s();
        for (i = 0; i < BATCH; i++) {
            BOOL answer = TRUE;
            obj_a->lpVtbl->JITInlining(obj_a, 0x600A, 0x6010 + (i & 7), &answer);
        }
        per_call[b] = (now_s() - t0) * 1e9 / BATCH;
        ping.cookie = 0x1A11F + b;
        send_command(conn_a.fd, WIRE_CMD_PING, &ping, sizeof(ping));
        while (conn_read(&conn_a, 30000) == 1 && conn_a.last.type != WIRE_PONG)
            ;
        pongs += conn_a.last.type == WIRE_PONG;
    }
    qsort(per_call, BATCHES, sizeof(per_call[0]), cmp_double);
    printf("  JITInlining on the JIT thread: %.0f ns a call (median of %d batches of %d; "
           "fastest %.0f, slowest %.0f)\n",
           per_call[BATCHES / 2], BATCHES, BATCH, per_call[0], per_call[BATCHES - 1]);
    /* how fast is a benchmark's (the agent's cost per JIT: bench/overhead.mjs,
     * docs/BENCHMARKS.md): printed here, not bounded, as a loaded machine
     * stretches any bound; checked: the sender kept up with every batch */
    CHECK(pongs == BATCHES, "the sender answered the ping after each batch (%u of %d)", pongs,
          BATCHES);
}

/* The tier source's events for one compilation, on this (the JIT) thread:
 * MethodJittingStarted (id 145: MethodID, ModuleID, token, IL size), and with
 * load_start the MethodLoadVerbose (143: MethodID, ModuleID, start, size,
 * token, flags with the tier in bits 7-9 and 0x8 "jitted"). */
static void tier_events(FunctionID fid, uint64_t load_start)
{
    uint8_t started[24] = {0}, loaded[36] = {0};
    uint32_t il = 17, size = 99, flags = 0x8u | (WIRE_TIER_1 << 7);

    memcpy(started, &fid, 8);
    memcpy(started + 20, &il, 4);
    obj_a->lpVtbl->EventPipeEventDelivered(obj_a, 0, 145, 0, 0, NULL, sizeof(started), started,
                                           NULL, NULL, 0, 0, NULL);
    if (!load_start)
        return;
    memcpy(loaded, &fid, 8);
    memcpy(loaded + 16, &load_start, 8);
    memcpy(loaded + 24, &size, 4);
    memcpy(loaded + 32, &flags, 4);
    obj_a->lpVtbl->EventPipeEventDelivered(obj_a, 0, 143, 0, 0, NULL, sizeof(loaded), loaded, NULL,
                                           NULL, 0, 0, NULL);
}

/* A compilation's code and tier come from the tier source's MethodLoad; one
 * whose MethodJittingStarted came but not its MethodLoad (the tier source
 * stopped while it compiled: Shutdown, switched off) is described by the
 * runtime instead, so its code is known and counts as a code version (a
 * tier-up at an app's exit showed 2 compilations and 1 code version). */
TEST(jit_without_method_load)
{
    const FunctionID with = 0x6A01, without = 0x6A02;
    wire_cmd_ping ping = {0x7A1E5};
    wire_jit_finished j[2];
    uint64_t version = 0;
    unsigned n = 0;
    uint32_t lengths[2] = {0, 0};

    if (a_up() != 0)
        return;
    obj_a->lpVtbl->JITCompilationStarted(obj_a, with, TRUE);
    tier_events(with, 0x7f0000001000ull);
    obj_a->lpVtbl->JITCompilationFinished(obj_a, with, S_OK, TRUE);
    obj_a->lpVtbl->JITCompilationStarted(obj_a, without, TRUE);
    tier_events(without, 0);
    obj_a->lpVtbl->JITCompilationFinished(obj_a, without, S_OK, TRUE);
    send_command(conn_a.fd, WIRE_CMD_PING, &ping, sizeof(ping));
    while (conn_read(&conn_a, 30000) == 1 && conn_a.last.type != WIRE_PONG)
        if (conn_a.last.type == WIRE_JIT_FINISHED && n < 2) {
            memcpy(&j[n], conn_a.last_payload, sizeof(j[n]));
            lengths[n] = conn_a.last_length;
            if (n == 1 && conn_a.last_length >= sizeof(j[1]) + sizeof(wire_code_version))
                memcpy(&version, conn_a.last_payload + sizeof(j[1]), sizeof(version));
            n++;
        }
    if (!CHECK(n == 2, "2 JIT_FINISHED records (%u)", n))
        return;
    CHECK(
        j[0].function_id == with && j[0].code_start == 0x7f0000001000ull && j[0].code_size == 99 &&
            j[0].tier == WIRE_TIER_1 && j[0].il_size == 17 && lengths[0] == sizeof(j[0]),
        "with its MethodLoad: the tier, code and IL size the events said, no call to the runtime");
    CHECK(j[1].function_id == without && j[1].tier == WIRE_TIER_UNKNOWN && j[1].il_size == 17,
          "without it: tier unknown, the IL size from MethodJittingStarted");
    CHECK(j[1].code_versions == 1 && version == 0x7e0000000000ull + without * 64u,
          "without it: the code versions the runtime lists (%u, 0x%llx), so the new one counts",
          j[1].code_versions, (unsigned long long)version);
}

/* The runtime ends the tier source first thing as the process exits: it
 * stops writing events, then sends the EventPipe provider's ProcessInfo (a
 * session was disabled). A compilation under way has had its
 * MethodJittingStarted, not its MethodLoad, and can finish between the two:
 * its tier is unknown because of the end, so the end the agent says must be
 * no later than it (a test host's, 0.07 ms before the ProcessInfo, was
 * unknown before the end the session gave: trees.test.mjs). Then one with no
 * event at all, after the ProcessInfo, says nothing earlier. */
TEST(tier_source_ended_under_a_compilation)
{
    const FunctionID whole = 0x6B00, cut = 0x6B01, none = 0x6B02, failed = 0x6B03, late = 0x6B04;
    uint8_t info[8] = {0};
    wire_cmd_ping ping = {0x7E4D};
    uint64_t jit_ns[4] = {0, 0, 0, 0}, ended_ns = 0;
    uint32_t tiers[4] = {WIRE_TIER_COUNT, WIRE_TIER_COUNT, WIRE_TIER_COUNT, WIRE_TIER_COUNT};
    unsigned i, endings = 0, ended_before_cut = 0, taken_back = 0;

    atomic_store(&fake_scene.pipe, 1);
    if (a_up() != 0)
        return;
    CHECK(atomic_load(&fake_scene.pipe_open) >= 1, "the tier source's session started");
    obj_a->lpVtbl->JITCompilationStarted(obj_a, whole, TRUE);
    tier_events(whole, 0x7f0000002000ull);
    obj_a->lpVtbl->JITCompilationFinished(obj_a, whole, S_OK, TRUE);
    /* a failed compilation has no MethodLoad either: it made no code */
    obj_a->lpVtbl->JITCompilationStarted(obj_a, failed, TRUE);
    tier_events(failed, 0);
    obj_a->lpVtbl->JITCompilationFinished(obj_a, failed, E_FAIL, TRUE);
    sleep_ms(1); /* the cut one surely later on the clock */
    obj_a->lpVtbl->JITCompilationStarted(obj_a, cut, TRUE);
    tier_events(cut, 0); /* the session ended while it compiled */
    obj_a->lpVtbl->JITCompilationFinished(obj_a, cut, S_OK, TRUE);
    /* another thread's MethodJittingStarted that passed the runtime's check
     * before the end comes after that: no taking the end back */
    obj_a->lpVtbl->JITCompilationStarted(obj_a, late, TRUE);
    tier_events(late, 0);
    obj_a->lpVtbl->JITCompilationFinished(obj_a, late, S_OK, TRUE);
    sleep_ms(2); /* the ProcessInfo surely later on the clock */
    obj_a->lpVtbl->EventPipeEventDelivered(obj_a, FAKE_PROVIDER_PIPE, 1, 0, 0, NULL, sizeof(info),
                                           info, NULL, NULL, 0, 0, NULL);
    sleep_ms(2);
    obj_a->lpVtbl->JITCompilationStarted(obj_a, none, TRUE);
    obj_a->lpVtbl->JITCompilationFinished(obj_a, none, S_OK, TRUE);
    send_command(conn_a.fd, WIRE_CMD_PING, &ping, sizeof(ping));
    while (conn_read(&conn_a, 30000) == 1 && conn_a.last.type != WIRE_PONG) {
        if (conn_a.last.type == WIRE_JIT_FINISHED) {
            wire_jit_finished j;
            memcpy(&j, conn_a.last_payload, sizeof(j));
            for (i = 0; i < 4; i++)
                if (j.function_id == whole + i)
                    jit_ns[i] = conn_a.last.time_ns, tiers[i] = j.tier;
        } else if (conn_a.last.type == WIRE_TIERS_STATUS) {
            wire_tiers_status t;
            memcpy(&t, conn_a.last_payload, sizeof(t));
            if (t.enabled != WIRE_TIERS_ENDED_BY_RUNTIME) {
                taken_back += endings > 0;
                continue;
            }
            endings++;
            if (!ended_ns || conn_a.last.time_ns < ended_ns)
                ended_ns = conn_a.last.time_ns;
            ended_before_cut += jit_ns[1] == 0;
        }
    }
    if (!CHECK(jit_ns[0] && jit_ns[1] && jit_ns[2] && jit_ns[3], "the 4 compilations' records"))
        return;
    CHECK(tiers[0] == WIRE_TIER_1 && tiers[1] == WIRE_TIER_UNKNOWN && tiers[2] == WIRE_TIER_UNKNOWN,
          "the whole one's tier known, the cut one's and the late one's unknown (%u %u %u)",
          tiers[0], tiers[1], tiers[2]);
    if (!CHECK(endings >= 1, "the agent said the runtime ended the source"))
        return;
    CHECK(ended_ns <= jit_ns[1] && ended_ns > jit_ns[0] && ended_ns > jit_ns[3],
          "the end said (%llu) is after the whole compilation (%llu) and the failed one (%llu), "
          "and no later than the cut one (%llu), the ProcessInfo after it",
          (unsigned long long)ended_ns, (unsigned long long)jit_ns[0],
          (unsigned long long)jit_ns[3], (unsigned long long)jit_ns[1]);
    CHECK(ended_before_cut >= 1, "said before the cut compilation's record (%u of %u)",
          ended_before_cut, endings);
    CHECK(taken_back == 0, "never taken back (%u TIERS_STATUS after the end)", taken_back);
}

/* Reads the connection until the agent's TIERS_STATUS saying `enabled`
 * (WIRE_TIERS_OFF or WIRE_TIERS_ON), which answers a WIRE_CMD_TIERS once the
 * switch is done (a status said before, at the connection's start, can still
 * be in the stream: it is read past); how many said ENDED_BY_RUNTIME go to
 * *endings. 1, or 0 if none came. */
static int read_tiers_status(unsigned *endings, uint32_t enabled)
{
    wire_tiers_status t;

    while (conn_read(&conn_a, 30000) == 1) {
        if (conn_a.last.type != WIRE_TIERS_STATUS)
            continue;
        memcpy(&t, conn_a.last_payload, sizeof(t));
        if (t.enabled == WIRE_TIERS_ENDED_BY_RUNTIME)
            ++*endings;
        else if (t.enabled == enabled)
            return 1;
    }
    return 0;
}

/* Our own stop while a method compiles also keeps its MethodLoad from coming:
 * that is no end by the runtime, even with the source on again when the
 * compilation finishes (the session it began in is not the one open). */
TEST(tier_source_switched_under_a_compilation)
{
    const FunctionID fid = 0x6C01;
    wire_cmd_tiers off = {0, 0}, on = {1, 0};
    wire_cmd_ping ping = {0x5E55};
    unsigned endings = 0, started;

    atomic_store(&fake_scene.pipe, 1);
    if (a_up() != 0)
        return;
    started = (unsigned)atomic_load(&fake_scene.pipe_started);
    obj_a->lpVtbl->JITCompilationStarted(obj_a, fid, TRUE);
    tier_events(fid, 0);
    send_command(conn_a.fd, WIRE_CMD_TIERS, &off, sizeof(off));
    CHECK(read_tiers_status(&endings, WIRE_TIERS_OFF) == 1, "switched off");
    send_command(conn_a.fd, WIRE_CMD_TIERS, &on, sizeof(on));
    CHECK(read_tiers_status(&endings, WIRE_TIERS_ON) == 1, "switched on");
    CHECK((unsigned)atomic_load(&fake_scene.pipe_started) > started,
          "a new session started (%d, %u before)", atomic_load(&fake_scene.pipe_started), started);
    obj_a->lpVtbl->JITCompilationFinished(obj_a, fid, S_OK, TRUE);
    send_command(conn_a.fd, WIRE_CMD_PING, &ping, sizeof(ping));
    while (conn_read(&conn_a, 30000) == 1 && conn_a.last.type != WIRE_PONG)
        if (conn_a.last.type == WIRE_TIERS_STATUS) {
            wire_tiers_status t;
            memcpy(&t, conn_a.last_payload, sizeof(t));
            endings += t.enabled == WIRE_TIERS_ENDED_BY_RUNTIME;
        }
    CHECK(conn_a.last.type == WIRE_PONG, "the ping answered");
    CHECK(endings == 0, "no end by the runtime said (%u)", endings);
}

static const check_test tests[] = {TEST_ENTRY(gc_timeline),
                                   TEST_ENTRY(jit_info),
                                   TEST_ENTRY(jit_without_method_load),
                                   TEST_ENTRY(tier_source_ended_under_a_compilation),
                                   TEST_ENTRY(tier_source_switched_under_a_compilation),
                                   TEST_END};

int main(int argc, char **argv) { return sidebyside_main(argc, argv, tests); }
