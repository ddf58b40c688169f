/* test_session_state.c -- a session's event log (seqs from 1 without gaps,
 * session_event_at, eviction after EVENTLOG_MAX) and its state: detach
 * transitions; an exit by a signal (kept with the exit code, EXITED once the
 * link is lost) and signal names.
 *
 * Unit tests of server/session.c (folding agent records into a session),
 * driven by hand-made wire_record values (records.h). Every session is freed
 * (LeakSanitizer checks at exit).
 * Build: make build/tests/test_session_state && build/tests/test_session_state
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "records.h"
#include "session.h"

#define MODULE_ID 0x7f0000200000ull /* the module of the functions named here */

TEST(event_log)
{
    session *s = rec_live_session(1);
    static const uint16_t logged[] = {
        WIRE_JIT_FINISHED, WIRE_MODULE_LOADED,   WIRE_THREAD_CREATED,   WIRE_THREAD_NAME,
        WIRE_CATCHUP_END,  WIRE_MODULE_UNLOADED, WIRE_THREAD_DESTROYED, WIRE_ASSEMBLY_LOADED};
    int ok = 1;

    CHECK(s->events.last_seq == 0 && eventlog_first_seq(&s->events) == 1 &&
              eventlog_at(&s->events, 1) == NULL,
          "no events yet (the hello is not an event)");
    rec_apply(s, rec_jit_started(0xF1, 0x71, REC_MONO + 1)); /* not logged */
    rec_apply(s, rec_jit_finished(0xF1, 0x71, 0x1000, 10, REC_MONO + 2, 0));
    rec_apply(s, rec_function_name(0xF1, MODULE_ID, "A.B", 0)); /* not logged */
    rec_apply(s, rec_module_loaded(0x200000, "/a.dll", "a", 0, REC_MONO + 2));
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x72, 5, 0, NULL, REC_MONO + 3));
    rec_apply(s, rec_thread(WIRE_THREAD_OS_ID, 0x72, 6, 0, NULL, REC_MONO + 4)); /* not logged */
    rec_apply(s, rec_thread(WIRE_THREAD_NAME, 0x72, 0, 0, "n", REC_MONO + 5));
    rec_apply(s, rec_catchup(WIRE_CATCHUP_BEGIN, (wire_catchup){0}, REC_MONO + 3)); /* not logged */
    rec_apply(s, rec_catchup(WIRE_CATCHUP_END, (wire_catchup){0}, REC_MONO + 3));
    rec_apply(s, rec_drops((wire_drops){0}, REC_MONO + 3)); /* not logged */
    rec_apply(s, rec_pong(0, REC_MONO + 3));                /* not logged */
    rec_apply(s, rec_module_unloaded(0x200000, 0));
    rec_apply(s, rec_thread(WIRE_THREAD_DESTROYED, 0x72, 0, 0, NULL, REC_MONO + 6));
    rec_apply(s, rec_assembly_loaded(0x300, 0x200000, NULL, 0));
    CHECK(s->events.last_seq == 8, "8 events from 14 records (got %llu)",
          (unsigned long long)s->events.last_seq);
    for (uint64_t seq = 1; seq <= 8; seq++) {
        const eventlog_entry *e = eventlog_at(&s->events, seq);
        ok &= e && e->seq == seq && e->type == logged[seq - 1];
    }
    CHECK(ok, "eventlog_at(&1..8): seqs 1..8 without gaps->events, in order, with their types");
    CHECK(eventlog_at(&s->events, 0) == NULL && eventlog_at(&s->events, 9) == NULL,
          "seq 0 and the next seq are not there");
    CHECK(eventlog_first_seq(&s->events) == 1 && s->events.evicted == 0, "nothing evicted");
    CHECK(eventlog_at(&s->events, 1)->value == 1 && eventlog_at(&s->events, 1)->extra == 10 &&
              eventlog_at(&s->events, 1)->id == 0xF1 &&
              eventlog_at(&s->events, 1)->time_ns == (int64_t)(REC_MONO + 2) + REC_OFFSET,
          "JIT event: function id, duration 1 ns, native size 10, wall-clock time");
    session_free(s);
}

TEST(event_log_eviction)
{
    session *s = rec_live_session(1);
    const uint64_t extra = 10, total = EVENTLOG_MAX + extra;
    wire_record r = rec_catchup(WIRE_CATCHUP_END, (wire_catchup){0}, REC_MONO + 3);
    const char *why;
    double t0 = check_seconds();
    int ok = 1;

    for (uint64_t i = 0; i < total; i++) {
        r.seq = s->last_seq + 1;
        r.u.catchup.functions = (uint32_t)i;
        session_apply(s, &r, REC_NOW, &why);
    }
    CHECK(check_seconds() - t0 < 5.0, "%llu events applied in %.2f s", (unsigned long long)total,
          check_seconds() - t0);
    CHECK(s->events.last_seq == total && s->events.evicted == extra, "event_seq %llu, evicted %llu",
          (unsigned long long)s->events.last_seq, (unsigned long long)s->events.evicted);
    CHECK(eventlog_first_seq(&s->events) == extra + 1, "first retained seq is %llu (got %llu)",
          (unsigned long long)(extra + 1), (unsigned long long)eventlog_first_seq(&s->events));
    CHECK(eventlog_at(&s->events, extra) == NULL && eventlog_at(&s->events, 1) == NULL,
          "evicted seqs are gone");
    for (uint64_t seq = extra + 1; seq <= extra + 100; seq++)
        ok &= eventlog_at(&s->events, seq) && eventlog_at(&s->events, seq)->seq == seq &&
              eventlog_at(&s->events, seq)->extra == (uint32_t)(seq - 1);
    for (uint64_t seq = total - 100; seq <= total; seq++)
        ok &= eventlog_at(&s->events, seq) && eventlog_at(&s->events, seq)->seq == seq &&
              eventlog_at(&s->events, seq)->extra == (uint32_t)(seq - 1);
    CHECK(ok, "the oldest and newest retained events are where their seq says");
    CHECK(eventlog_at(&s->events, total + 1) == NULL, "nothing after the last");
    CHECK(s->catchups == total && s->last_catchup.functions == (uint32_t)(total - 1),
          "catch-up counters follow");
    session_free(s);
}

TEST(detach_transitions)
{
    session *s = rec_live_session(1);

    CHECK(rec_apply(s, rec_detach(WIRE_DETACH_REQUESTED, 0)) == 0 && s->state == SESSION_DETACHING,
          "requested -> detaching");
    CHECK(rec_apply(s, rec_detach(WIRE_DETACH_REFUSED, (int32_t)0x80131367)) == 0 &&
              s->state == SESSION_LIVE,
          "refused -> live again");
    CHECK(strstr(s->error, "refused") && strstr(s->error, "0x80131367") &&
              s->detach_hresult == (int32_t)0x80131367,
          "the refusal and its HRESULT are kept (\"%s\")", s->error);
    CHECK(rec_apply(s, rec_detach(WIRE_DETACH_REQUESTED, 0)) == 0 && s->state == SESSION_DETACHING,
          "requested again -> detaching");
    CHECK(rec_apply(s, rec_detach(WIRE_DETACH_SUCCEEDED, 0)) == 0 && s->state == SESSION_DETACHED &&
              s->detach_finished_ns == REC_NOW && s->ended_ns == REC_NOW,
          "succeeded -> detached, finished and ended now");
    CHECK(s->events.last_seq == 4 && eventlog_at(&s->events, 4)->extra == WIRE_DETACH_SUCCEEDED,
          "each status is an event carrying its state");
    CHECK(rec_apply(s, rec_detach(0, 0)) == -1 && rec_why && rec_apply(s, rec_detach(4, 0)) == -1,
          "unknown detach states 0 and 4 are refused");
    CHECK(s->state == SESSION_DETACHED, "and change nothing");
    session_free(s);
}

TEST(exit_by_signal)
{
    session *s = rec_live_session(1);
    s->link_id = 3;

    session_exit_code(s, 137, 9, REC_NOW + 1);
    CHECK(s->state == SESSION_LIVE && s->has_exit_code && s->exit_code == 137 &&
              s->exit_signal == 9,
          "exit and signal recorded; still live while the link has data to read");
    session_link_lost(s, REC_NOW + 2);
    CHECK(s->state == SESSION_EXITED && s->ended_ns == REC_NOW + 1, "exited once the link is lost");
    session_free(s);

    s = rec_live_session(1);
    session_exit_code(s, 3, 0, REC_NOW);
    CHECK(s->state == SESSION_EXITED && s->exit_code == 3 && s->exit_signal == 0,
          "an exit by itself has no signal");
    session_free(s);

    CHECK(strcmp(session_signal_name(9), "SIGKILL") == 0 &&
              strcmp(session_signal_name(15), "SIGTERM") == 0 &&
              strcmp(session_signal_name(6), "SIGABRT") == 0 &&
              strcmp(session_signal_name(11), "SIGSEGV") == 0,
          "signal names");
    CHECK(!session_signal_name(0) && !session_signal_name(-1) && !session_signal_name(16) &&
              !session_signal_name(64) && !session_signal_name(1 << 30),
          "no name for 0, negatives, unnamed and out-of-range numbers");
}

static const check_test tests[] = {
    TEST_ENTRY(event_log),
    TEST_ENTRY(event_log_eviction),
    TEST_ENTRY(detach_transitions),
    TEST_ENTRY(exit_by_signal),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
