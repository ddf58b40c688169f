/* test_sidebyside_profile.c -- the agent's sampling profiler against the fake
 * CoreCLR (fakeclr.h; the harness is sidebyside.h; runtime A owns the agent:
 * a_up): samples at the rate asked, lowered to keep within the budget of
 * suspended time, stopped by a command, by its duration or when its server
 * goes away.
 *
 * Tests:
 *   profile            PROFILE_START 50 Hz: STARTED, ~50 samples/s with the rate,
 *                      a snapshot served between samples, STOPPED with the counts;
 *                      a profile with a duration stops by itself
 *   profile_budget     a 5 ms SuspendRuntime at 100 Hz, 2% budget -> RATE status
 *                      with ~3.6 Hz, samples follow it
 *   profile_link_lost  the server that started a profile closes the connection:
 *                      the agent connects again and sampling has stopped
 *
 * Build: make build/tests/test_sidebyside_profile (needs `make all` for the agent .so).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sidebyside.h"

TEST(profile)
{
    wire_profile_status st;
    unsigned samples = 0, snapshots = 0, samples_at_snapshot = 0, bad_rate = 0;
    int snapshot_sent = 0;
    double start;
    int first_is_started = -1;

    if (a_up() != 0)
        return;
    fake_stacks_reset();
    fake_add_thread(0xA8, 3, S_OK, 0);
    CHECK(send_profile(&conn_a, 50, 0, 0) == 0, "PROFILE_START 50 Hz, default budget");
    /* until 50 samples, the snapshot asked for after the 25th, and a sample
     * after it (counts, not times: the rate's accuracy is bench/sampling.mjs's);
     * 30 s bounds a hang */
    start = now_s();
    while ((samples < 50 || snapshots == 0 || samples == samples_at_snapshot) &&
           now_s() - start < 30.0) {
        if (conn_read(&conn_a, 100) != 1)
            continue;
        if (conn_a.last.type == WIRE_PROFILE_STATUS) {
            memcpy(&st, conn_a.last_payload, sizeof(st));
            if (first_is_started < 0)
                first_is_started = st.state == WIRE_PROFILE_STARTED && samples == 0;
            if (st.state == WIRE_PROFILE_STARTED)
                CHECK(st.requested_millihz == 50000 && st.effective_millihz == 50000 &&
                          st.budget_permille == WIRE_PROFILE_DEFAULT_BUDGET_PERMILLE &&
                          st.hresult == 0,
                      "STARTED: 50000 mHz requested and in force, budget %u permille",
                      st.budget_permille);
            else
                CHECK(0, "no other status while the fake is fast (state %u)", st.state);
        } else if (conn_a.last.type == WIRE_STACK_END) {
            wire_stack_end e;
            memcpy(&e, conn_a.last_payload, sizeof(e));
            if (e.kind == WIRE_STACK_SAMPLE) {
                samples++;
                if (e.request_id != 0 || e.effective_millihz != 50000)
                    bad_rate++;
            } else if (e.kind == WIRE_STACK_SNAPSHOT && e.request_id == 0x5A3) {
                snapshots++;
                samples_at_snapshot = samples;
            }
        }
        if (!snapshot_sent && samples >= 25) {
            snapshot_sent = 1;
            send_snapshot(&conn_a, 0x5A3); /* served between two samples */
        }
    }
    CHECK(first_is_started == 1, "PROFILE_STATUS STARTED comes before the first sample");
    CHECK(samples >= 50, "50 samples (%u in %.1f s)", samples, now_s() - start);
    CHECK(bad_rate == 0, "samples: request_id 0, effective_millihz 50000");
    CHECK(snapshots == 1 && samples_at_snapshot < samples,
          "a snapshot asked for during the profile is served while it samples (after sample "
          "%u of %u)",
          samples_at_snapshot, samples);
    CHECK(send_profile_stop(&conn_a) == 0, "PROFILE_STOP sent");
    if (CHECK(read_status(&conn_a, WIRE_PROFILE_STOPPED, &st, &samples, 30000) == 1,
              "PROFILE_STATUS STOPPED"))
        CHECK(st.samples >= samples - 1 && st.samples <= samples + 1 && st.suspended_ns > 0,
              "STOPPED counts the samples (%llu, saw %u) and the suspended time",
              (unsigned long long)st.samples, samples);
    /* a profile with a duration ends by itself */
    CHECK(send_profile(&conn_a, 20, 0, 300) == 0, "PROFILE_START 20 Hz for 300 ms");
    start = now_s();
    CHECK(read_status(&conn_a, WIRE_PROFILE_STARTED, &st, NULL, 30000) == 1, "STARTED");
    /* not before its 300 ms, with at most the samples 20 Hz allows in them (a
     * loaded machine may take fewer and end it later: no upper bound on time) */
    if (CHECK(read_status(&conn_a, WIRE_PROFILE_STOPPED, &st, NULL, 30000) == 1,
              "STOPPED without a stop command"))
        CHECK(now_s() - start >= 0.25 && st.samples >= 1 && st.samples <= 9,
              "after its 300 ms, with 1-9 samples (%.2f s, %llu)", now_s() - start,
              (unsigned long long)st.samples);
}

TEST(profile_budget)
{
    wire_profile_status st;
    unsigned samples = 0, wrong = 0;
    double start;

    if (a_up() != 0)
        return;
    fake_stacks_reset();
    fake_add_thread(0xA9, 2, S_OK, 0);
    atomic_store(&fake_scene.suspend_sleep_ms, 5); /* 5 ms per sample: 100 Hz would be 50% */
    CHECK(send_profile(&conn_a, 100, 20, 0) == 0, "PROFILE_START 100 Hz, budget 2%%");
    CHECK(read_status(&conn_a, WIRE_PROFILE_STARTED, &st, NULL, 30000) == 1, "STARTED");
    if (CHECK(read_status(&conn_a, WIRE_PROFILE_RATE, &st, NULL, 30000) == 1,
              "PROFILE_STATUS RATE: the budget lowered the rate"))
        CHECK(st.requested_millihz == 100000 && st.effective_millihz >= 100 &&
                  st.effective_millihz <= 4000,
              "effective rate at most 2%% / 5 ms = 4 Hz, never under 0.1 Hz (%u mHz)",
              st.effective_millihz);
    /* how far under 4 Hz depends on how long a suspension took, which a loaded
     * machine stretches (a 5 ms sleep measured as 25): what holds is the bound.
     * Two samples at the lowered rate: at the 0.1 Hz floor that takes 20 s */
    start = now_s();
    while (samples < 2 && now_s() - start < 30.0) {
        wire_stack_end e;

        if (conn_read(&conn_a, 100) != 1)
            continue;
        if (conn_a.last.type == WIRE_PROFILE_STATUS) { /* the rate may move again */
            memcpy(&st, conn_a.last_payload, sizeof(st));
            continue;
        }
        if (conn_a.last.type != WIRE_STACK_END)
            continue;
        memcpy(&e, conn_a.last_payload, sizeof(e));
        if (e.kind != WIRE_STACK_SAMPLE)
            continue;
        samples++;
        /* the rate in force; a RATE status may lag it by up to 500 ms */
        if (e.effective_millihz < 100 || e.effective_millihz > 4000)
            wrong++;
    }
    CHECK(samples == 2, "samples come at the lowered rate (%u)", samples);
    CHECK(wrong == 0, "samples carry the lowered rate (0.1..4 Hz) in effective_millihz");
    CHECK(send_profile_stop(&conn_a) == 0, "PROFILE_STOP sent");
    if (CHECK(read_status(&conn_a, WIRE_PROFILE_STOPPED, &st, NULL, 30000) == 1, "STOPPED"))
        CHECK(st.samples > 0 && st.suspended_ns >= st.samples * 5000000ull,
              "suspended_ns counts the slow suspensions (%llu ns in %llu samples)",
              (unsigned long long)st.suspended_ns, (unsigned long long)st.samples);
    atomic_store(&fake_scene.suspend_sleep_ms, 0);
}

/* The server that asked for a profile goes away: the sender, seeing its
 * connection gone, stops the profile (conn.c only closes the socket), and the
 * next server finds no sampling going on. */
TEST(profile_link_lost)
{
    wire_profile_status st;
    int quiet = 0;
    double start;

    if (a_up() != 0)
        return;
    fake_stacks_reset();
    fake_add_thread(0xAA, 2, S_OK, 0);
    CHECK(send_profile(&conn_a, 100, 0, 0) == 0, "PROFILE_START 100 Hz");
    if (!CHECK(read_status(&conn_a, WIRE_PROFILE_STARTED, &st, NULL, 30000) == 1, "STARTED"))
        return;
    close(conn_a.fd); /* the server is gone */
    conn_a.fd = accept_agent(5000);
    conn_a.next_seq = 1;
    if (!CHECK(conn_a.fd >= 0, "the agent connects again") ||
        !CHECK(conn_read(&conn_a, 3000) == 1 && conn_a.last.type == WIRE_HELLO, "with a hello"))
        return;
    /* at 100 Hz every 200 ms would see ~20 suspensions: wait for a window with none */
    for (start = now_s(); !quiet && now_s() - start < 5.0;) {
        int calls = atomic_load(&fake_scene.suspend_calls);
        double window = now_s() + 0.2;
        while (now_s() < window)
            conn_read(&conn_a, 50); /* the new connection's records (hello, catch-up) */
        quiet = atomic_load(&fake_scene.suspend_calls) == calls;
    }
    CHECK(quiet, "sampling stopped when its server went away");
}

static const check_test tests[] = {TEST_ENTRY(profile), TEST_ENTRY(profile_budget),
                                   TEST_ENTRY(profile_link_lost), TEST_END};

int main(int argc, char **argv) { return sidebyside_main(argc, argv, tests); }
