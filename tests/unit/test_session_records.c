/* test_session_records.c -- what a session takes from its agent's connection
 * and what it refuses: the hello (token match, runtime fields, clock offset;
 * a wrong token refused), sequence gaps (a repeated or backward sequence
 * number refused), DROPS, AGENT_COST and TIERS_STATUS refused when the ring
 * and the sequence make them impossible (record_check.h), unknown record
 * types refused, hostile timestamps.
 *
 * Unit tests of server/session.c (folding agent records into a session),
 * driven by hand-made wire_record values (records.h). Every session is freed
 * (LeakSanitizer checks at exit).
 * Build: make build/tests/test_session_records && build/tests/test_session_records
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "records.h"
#include "session.h"

TEST(hello_binds_session)
{
    session *s = rec_session(1);

    CHECK(s && s->state == SESSION_STARTING && strcmp(s->token, REC_TOKEN) == 0,
          "new session: starting, token kept");
    CHECK(rec_apply(s, rec_hello(REC_TOKEN)) == 0, "hello with the session's token is accepted");
    CHECK(s->state == SESSION_LIVE, "state live (%s)", session_state_name(s->state));
    CHECK(s->runtime_type == 2 && s->clr_instance_id == 5 && s->major == 10 && s->minor == 0 &&
              s->build == 12 && s->qfe == 3 && s->ring_bytes == (8u << 20),
          "runtime type/instance/version and ring size from the hello");
    CHECK(s->pid == 999 && s->parent_pid == 77,
          "the pid the server knew stays (the hello's is of the agent's pid namespace); "
          "the parent from the hello when the server had none: %d %d",
          (int)s->pid, (int)s->parent_pid);
    CHECK(s->clock_offset_ns == REC_OFFSET, "clock offset = realtime - monotonic");
    CHECK(s->connected_ns == REC_NOW && s->connections == 1 && s->records == 1,
          "connected now, one connection, one record");
    session_free(s);

    /* the hello's pid is of the agent's namespace: never taken */
    s = session_new(1, SESSION_MODE_RUN, 0, "dotnet app.dll", REC_TOKEN);
    CHECK(s && rec_apply(s, rec_hello(REC_TOKEN)) == 0 && s->pid == 0, "no pid from the hello");
    session_free(s);
    /* the agent's parent pid is bounded: no negative pid */
    s = session_new(1, SESSION_MODE_RUN, 0, "dotnet app.dll", REC_TOKEN);
    {
        wire_record h = rec_hello(REC_TOKEN);
        h.u.hello.pid = 0xFFFFFFFFu;
        h.u.hello.parent_pid = 4194305u;
        CHECK(s && rec_apply(s, h) == 0 && s->pid == 0 && s->parent_pid == 0,
              "a parent pid out of range is unknown: %d %d", s ? (int)s->pid : -1,
              s ? (int)s->parent_pid : -1);
    }
    session_free(s);

    s = rec_session(1);
    rec_apply(s, rec_hello(REC_TOKEN));
    rec_apply(s, rec_detach(WIRE_DETACH_REQUESTED, 0));
    CHECK(rec_apply(s, rec_hello(REC_TOKEN)) == 0 && s->state == SESSION_DETACHING &&
              s->connections == 2,
          "a reconnect hello while detaching keeps the session detaching");
    session_free(s);
}

TEST(hello_wrong_token)
{
    char other[WIRE_TOKEN_LEN + 1];
    session *s = rec_session(1);

    memcpy(other, REC_TOKEN, sizeof(other));
    other[WIRE_TOKEN_LEN - 1] = 'X';
    CHECK(rec_apply(s, rec_hello(other)) == -1 && rec_why && *rec_why,
          "hello whose token differs in the last character: -1 with a reason");
    CHECK(s->state == SESSION_STARTING && s->connections == 0 && s->pid == 999 && s->major == 0,
          "session untouched: still starting, no runtime fields");
    CHECK(rec_apply(s, rec_hello("ffffffffffffffffffffffffffffffff")) == -1,
          "another wrong token: -1");
    session_free(s);
}

TEST(sequence_gaps)
{
    session *s = rec_session(1);
    wire_record r = rec_hello(REC_TOKEN);
    const char *why;

    r.seq = 1, session_apply(s, &r, REC_NOW, &why);
    r = rec_pong(0, REC_MONO + 3);
    r.seq = 2, session_apply(s, &r, REC_NOW, &why);
    r.seq = 5, session_apply(s, &r, REC_NOW, &why);
    CHECK(s->seq_gaps == 2 && s->last_seq == 5, "seq 1, 2, 5: two missing (got %llu)",
          (unsigned long long)s->seq_gaps);
    r.seq = 6, session_apply(s, &r, REC_NOW, &why);
    CHECK(s->seq_gaps == 2, "seq 6 follows: no new gap");
    CHECK(session_apply(s, &r, REC_NOW, &why) == SESSION_REFUSED && s->seq_gaps == 2 &&
              s->last_seq == 6 && s->records_refused == 1 && s->refused_why,
          "a repeated seq is refused (counted, moves nothing)");
    r.seq = 3;
    CHECK(session_apply(s, &r, REC_NOW, &why) == SESSION_REFUSED && s->last_seq == 6 &&
              s->records_refused == 2,
          "so is one going backwards");
    CHECK(s->records == 6, "six records counted");
    session_free(s);
}

/* r folded in after `gap` sequence numbers the server never saw. */
static int apply_after_gap(session *s, wire_record r, uint64_t gap)
{
    r.seq = s->last_seq + 1 + gap;
    rec_why = NULL;
    return session_apply(s, &r, REC_NOW, &rec_why);
}

/* DROPS checked against what the ring and the sequence numbers allow
 * (record_check.h): an impossible one is refused and counted, the
 * connection goes on; the counters shown stay the last possible ones. */
TEST(drops_checked_against_ring_and_sequence)
{
    session *s = rec_live_session(1); /* a ring of 8 MiB */
    wire_record r = rec_drops((wire_drops){0}, REC_MONO + 3),
                cost = rec_agent_cost((wire_agent_cost){0}, REC_MONO + 3), tiers;
    wire_drops good = {{1, 2, 3, 0, 0, 6, 7}, 100, 4096};
    struct {
        const char *what;
        wire_drops d;
    } bad[] = {
        {"2^56 ring-full with nothing produced", {{1ull << 56, 0, 0, 0, 0, 0, 0}, 0, 0}},
        {"more ring records lost than produced", {{50, 20, 20, 0, 0, 0, 11}, 100, 0}},
        {"more bytes in the ring than it has", {{1, 2, 3, 0, 0, 6, 7}, 100, (8u << 20) + 1}},
        {"slow_server without a sequence gap", {{1, 2, 3, 0, 1, 6, 7}, 100, 0}},
        {"a counter going back", {{1, 2, 2, 0, 0, 6, 7}, 100, 0}},
        {"produced going back", {{1, 2, 3, 0, 0, 6, 7}, 99, 0}},
    };
    uint64_t seq;
    size_t i;

    r.u.drops = good;
    CHECK(rec_apply(s, r) == 0 && memcmp(&s->drops, &good, sizeof(good)) == 0 &&
              s->records_refused == 0,
          "a possible DROPS is kept");
    seq = s->last_seq;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        r.u.drops = bad[i].d;
        CHECK(rec_apply(s, r) == SESSION_REFUSED && s->records_refused == i + 1 && s->refused_why,
              "refused: %s", bad[i].what);
        CHECK(memcmp(&s->drops, &good, sizeof(good)) == 0, "the last possible counters stay");
    }
    CHECK(s->link_id == 0 && s->last_seq == seq + i, "each took its sequence number all the same");

    /* a slow-server drop uses its number: the gap before a DROPS is its drop */
    r.u.drops = good;
    r.u.drops.dropped[WIRE_DROP_SLOW_SERVER] = 2;
    CHECK(apply_after_gap(s, r, 2) == 0 && s->seq_gaps == 2 &&
              s->drops.dropped[WIRE_DROP_SLOW_SERVER] == 2,
          "two gaps, two slow-server drops: kept");
    r.u.drops.dropped[WIRE_DROP_SLOW_SERVER] = 3;
    CHECK(rec_apply(s, r) == SESSION_REFUSED, "a third without its gap: refused");

    /* a new connection: drops at the end of the last one were never seen as
     * gaps; from its first DROPS on it stays that far ahead */
    CHECK(rec_apply(s, rec_hello(REC_TOKEN)) == 0 && s->connections == 2 && s->seq_gaps == 2,
          "reconnected");
    r.u.drops = good;
    r.u.drops.dropped[WIRE_DROP_SLOW_SERVER] = 1;
    CHECK(rec_apply(s, r) == SESSION_REFUSED, "fewer slow-server drops than gaps seen: refused");
    r.u.drops.dropped[WIRE_DROP_SLOW_SERVER] = 5; /* 3 lost unseen at the end of the first */
    CHECK(rec_apply(s, r) == 0, "3 ahead of the gaps after a reconnect: kept");
    r.u.drops.dropped[WIRE_DROP_SLOW_SERVER] = 6;
    CHECK(apply_after_gap(s, r, 1) == 0 && s->seq_gaps == 3, "one more gap, one more drop: kept");
    r.u.drops.dropped[WIRE_DROP_SLOW_SERVER] = 7;
    CHECK(rec_apply(s, r) == SESSION_REFUSED, "one more drop without its gap: refused");

    /* cumulative cost and tier counters never go back */
    cost.u.agent_cost.callbacks = 10;
    cost.u.agent_cost.buckets[3] = 10;
    CHECK(rec_apply(s, cost) == 0 && s->agent_cost.callbacks == 10, "agent cost kept");
    cost.u.agent_cost.buckets[3] = 9;
    CHECK(rec_apply(s, cost) == SESSION_REFUSED && s->agent_cost.buckets[3] == 10,
          "a cost bucket going back: refused");
    tiers = rec_tiers_status(1, 0, 4, REC_MONO + 3);
    CHECK(rec_apply(s, tiers) == 0, "tiers status kept");
    tiers.u.tiers_status.lost = 3;
    CHECK(rec_apply(s, tiers) == SESSION_REFUSED && s->tiers.lost == 4, "tiers lost going back");
    session_free(s);
}

TEST(other_records_and_unknown_types)
{
    session *s = rec_live_session(1);
    wire_record r = rec_drops((wire_drops){0}, REC_MONO + 3);
    static const uint16_t bad[] = {0, WIRE_RECORD_TYPE_MAX + 1, WIRE_CMD_DETACH, WIRE_CMD_PING,
                                   0xFFFF};

    r.u.drops = (wire_drops){{1, 2, 3, 4, 0, 6, 7}, 100, 4096};
    rec_apply(s, r);
    CHECK(memcmp(&s->drops, &r.u.drops, sizeof(wire_drops)) == 0,
          "DROPS counters are kept as sent");
    r = rec_catchup(WIRE_CATCHUP_END, (wire_catchup){0}, REC_MONO + 3);
    r.u.catchup = (wire_catchup){9, 1000, 4, 0, 12500000};
    rec_apply(s, r);
    CHECK(s->catchups == 1 && s->last_catchup.functions == 1000 &&
              s->last_catchup.duration_ns == 12500000,
          "CATCHUP_END counted and kept");
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(rec_apply(s, rec_empty(bad[i], REC_MONO + 3)) == -1 && rec_why && *rec_why,
              "type %u is refused with a reason", bad[i]);
    CHECK(s->state == SESSION_LIVE, "refused records leave the state alone");
    /* zero IDs are ignored, never stored */
    CHECK(rec_apply(s, rec_jit_finished(0, 0, 0x1000, 10, REC_MONO, 0)) == 0 &&
              s->function_count == 0 &&
              rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0, 0, 0, NULL, REC_MONO)) == 0 &&
              s->thread_count == 0,
          "records with ID 0 are accepted and ignored");
    session_free(s);
}

/* Times come from the agent (untrusted bytes). A hostile or corrupt time_ns
 * must not overflow the conversion to wall-clock time (signed overflow is
 * undefined behaviour; in practice it wraps to a time before 1970). */
TEST(hostile_timestamps)
{
    session *s = rec_live_session(1);
    session_function *f;

    CHECK(rec_apply(s, rec_jit_finished(0xF1, 0x71, 0x1000, 10, (uint64_t)INT64_MAX, 0)) == 0,
          "JIT_FINISHED with time_ns INT64_MAX is accepted");
    f = session_find_function(s, 0xF1);
    CHECK(f && f->first_jit_ns >= 0 && session_function_last_jit_ns(f) >= 0,
          "its wall-clock time is not negative (first_jit_ns %lld)",
          f ? (long long)f->first_jit_ns : 0ll);
    CHECK(eventlog_at(&s->events, 1) && eventlog_at(&s->events, 1)->time_ns >= 0,
          "nor is the event's time");
    session_free(s);
}

static const check_test tests[] = {
    TEST_ENTRY(hello_binds_session),
    TEST_ENTRY(hello_wrong_token),
    TEST_ENTRY(sequence_gaps),
    TEST_ENTRY(drops_checked_against_ring_and_sequence),
    TEST_ENTRY(other_records_and_unknown_types),
    TEST_ENTRY(hostile_timestamps),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
