/* test_session_threads.c -- a session's threads: catch-up never overrides
 * what live callbacks said (threads, thread names) and a destroyed thread is
 * not resurrected by it; ThreadIDs the runtime reuses are rows of their own
 * (named before start, an end missed), OS-level names, the row a JIT is on.
 *
 * Unit tests of server/session.c (folding agent records into a session),
 * driven by hand-made wire_record values (records.h). Every session is freed
 * (LeakSanitizer checks at exit).
 * Build: make build/tests/test_session_threads && build/tests/test_session_threads
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "records.h"
#include "session.h"

TEST(threads_catchup_and_destroy)
{
    session *s = rec_live_session(1);
    session_thread *t;

    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x71, 1001, 0, NULL, REC_MONO + 10));
    t = session_find_thread(s, 0x71);
    CHECK(t && t->alive && t->os_thread_id == 1001 &&
              t->created_ns == (int64_t)(REC_MONO + 10) + REC_OFFSET &&
              (t->flags & SESSION_THREAD_STARTED) && !(t->flags & WIRE_FLAG_CATCHUP),
          "live THREAD_CREATED: alive, os id, created time, started");
    rec_apply(s, rec_thread(WIRE_THREAD_DESTROYED, 0x71, 1001, 0, NULL, REC_MONO + 20));
    t = &s->threads[0];
    CHECK(s->thread_count == 1 && !t->alive && t->ended_ns == (int64_t)(REC_MONO + 20) + REC_OFFSET,
          "THREAD_DESTROYED: the row ended");
    CHECK(session_find_thread(s, 0x71) == NULL, "and its ThreadID no longer names it");
    /* EnumThreads may still list a thread whose end was already sent */
    rec_apply(s,
              rec_thread(WIRE_THREAD_CREATED, 0x71, 1001, WIRE_FLAG_CATCHUP, NULL, REC_MONO + 30));
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x71, 0, WIRE_FLAG_CATCHUP, NULL, REC_MONO + 31));
    CHECK(s->thread_count == 1 && !t->alive &&
              t->ended_ns == (int64_t)(REC_MONO + 20) + REC_OFFSET &&
              t->created_ns == (int64_t)(REC_MONO + 10) + REC_OFFSET && t->os_thread_id == 1001,
          "a late catch-up THREAD_CREATED of the ended thread (its OS id, or none) does not "
          "revive it, nor make a row");
    rec_apply(s,
              rec_thread(WIRE_THREAD_CREATED, 0x71, 2002, WIRE_FLAG_CATCHUP, NULL, REC_MONO + 32));
    t = session_find_thread(s, 0x71);
    CHECK(s->thread_count == 2 && t == &s->threads[1] && t->alive && t->os_thread_id == 2002 &&
              (t->flags & WIRE_FLAG_CATCHUP) && !s->threads[0].alive,
          "one listed with the ID on another OS thread is a new thread (a row of its own)");
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x71, 2002, 0, NULL, REC_MONO + 25));
    CHECK(s->thread_count == 2 && t->alive && !(t->flags & WIRE_FLAG_CATCHUP) &&
              t->created_ns == (int64_t)(REC_MONO + 25) + REC_OFFSET,
          "its live THREAD_CREATED, sent after the enumeration, takes the row over");

    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x72, 0, WIRE_FLAG_CATCHUP, NULL, REC_MONO + 40));
    t = session_find_thread(s, 0x72);
    CHECK(t && t->alive && (t->flags & WIRE_FLAG_CATCHUP), "catch-up creates an unknown thread");
    rec_apply(s, rec_thread(WIRE_THREAD_OS_ID, 0x72, 3003, 0, NULL, REC_MONO + 41));
    CHECK(session_find_thread(s, 0x72)->os_thread_id == 3003, "THREAD_OS_ID fills in the os id");
    rec_apply(s, rec_thread(WIRE_THREAD_OS_ID, 0x72, 4004, WIRE_FLAG_CATCHUP, NULL, REC_MONO + 42));
    CHECK(session_find_thread(s, 0x72)->os_thread_id == 3003,
          "a catch-up os id does not replace a known one");
    CHECK(rec_apply(s, rec_thread(WIRE_THREAD_DESTROYED, 0x7777, 0, 0, NULL, REC_MONO + 50)) == 0 &&
              s->thread_count == 4 && s->threads[3].thread_id == 0x7777 && !s->threads[3].alive,
          "THREAD_DESTROYED for a never-seen thread is tolerated: an ended row");

    session_mark_ended(s, REC_NOW + 5);
    CHECK(!session_find_thread(s, 0x72)->alive &&
              session_find_thread(s, 0x72)->ended_ns == REC_NOW + 5,
          "session_mark_ended ends the threads still alive");
    session_free(s);
}

/* CoreCLR's ThreadID is the address of the runtime's Thread object; once a
 * thread has ended and its managed Thread was finalized, that memory can hold
 * the next Thread, with the same ID. Each thread is a row of its own. */
TEST(thread_id_reused_after_destroy)
{
    session *s = rec_live_session(1);
    session_thread *t;

    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x71, 1001, 0, NULL, REC_MONO + 10));
    rec_apply(s, rec_thread(WIRE_THREAD_NAME, 0x71, 1001, 0, "first", REC_MONO + 11));
    rec_apply(s, rec_thread(WIRE_THREAD_DESTROYED, 0x71, 1001, 0, NULL, REC_MONO + 20));
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x71, 1002, 0, NULL, REC_MONO + 30));
    t = session_find_thread(s, 0x71);
    CHECK(s->thread_count == 2 && t == &s->threads[1], "a new row for the reused ID");
    CHECK(t->os_thread_id == 1002 && t->created_ns == (int64_t)(REC_MONO + 30) + REC_OFFSET &&
              t->alive == 1 && t->ended_ns == 0 && t->name == NULL,
          "the new thread: its os id, created time, alive, no name (alive %d, ended_ns %lld)",
          t->alive, (long long)t->ended_ns);
    t = &s->threads[0];
    CHECK(t->os_thread_id == 1001 && !t->alive &&
              t->ended_ns == (int64_t)(REC_MONO + 20) + REC_OFFSET && t->name &&
              strcmp(t->name, "first") == 0,
          "the old thread keeps its os id, end and name");
    session_free(s);
}

/* Thread.Name is set before Start: the name comes first (no OS id yet), with
 * an ID an ended thread had; the THREAD_CREATED that follows is the same
 * thread. The event log names the rows. */
TEST(thread_named_before_start_on_a_reused_id)
{
    session *s = rec_live_session(1);
    const eventlog_entry *e;
    int ok = 1;

    rec_apply(s, rec_thread(WIRE_THREAD_NAME, 0x71, 0, 0, "a", REC_MONO + 1));
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x71, 1001, 0, NULL, REC_MONO + 2));
    rec_apply(s, rec_thread(WIRE_THREAD_OS_ID, 0x71, 1001, 0, NULL, REC_MONO + 3));
    rec_apply(s, rec_thread(WIRE_THREAD_DESTROYED, 0x71, 1001, 0, NULL, REC_MONO + 4));
    rec_apply(s, rec_thread(WIRE_THREAD_NAME, 0x71, 0, 0, "b", REC_MONO + 5));
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x71, 1002, 0, NULL, REC_MONO + 6));
    rec_apply(s, rec_thread(WIRE_THREAD_OS_ID, 0x71, 1002, 0, NULL, REC_MONO + 7));
    CHECK(s->thread_count == 2, "two threads, two rows (got %zu)", s->thread_count);
    CHECK(s->threads[0].os_thread_id == 1001 && strcmp(s->threads[0].name, "a") == 0 &&
              !s->threads[0].alive &&
              s->threads[0].created_ns == (int64_t)(REC_MONO + 2) + REC_OFFSET,
          "the first: its own name and os id, ended");
    CHECK(s->threads[1].os_thread_id == 1002 && strcmp(s->threads[1].name, "b") == 0 &&
              s->threads[1].alive &&
              s->threads[1].created_ns == (int64_t)(REC_MONO + 6) + REC_OFFSET &&
              (s->threads[1].flags & SESSION_THREAD_STARTED),
          "the second: its own name (given before it started) and os id, alive");
    for (uint64_t seq = 1; seq <= s->events.last_seq; seq++) {
        e = eventlog_at(&s->events, seq);
        ok &= e->extra == (seq <= 3 ? 1u : 2u);
    }
    CHECK(s->events.last_seq == 5 && ok, "the thread events name their rows (%llu events)",
          (unsigned long long)s->events.last_seq);
    session_free(s);
}

/* A row of the ID for another OS thread means that thread's end was missed
 * (records lost, no server for a while): it is ended, and a new row begins. */
TEST(thread_end_missed)
{
    session *s = rec_live_session(1);

    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x71, 1001, 0, NULL, REC_MONO + 1));
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x71, 1002, 0, NULL, REC_MONO + 9));
    CHECK(s->thread_count == 2 && !s->threads[0].alive &&
              s->threads[0].ended_ns == (int64_t)(REC_MONO + 9) + REC_OFFSET && s->threads[1].alive,
          "a live THREAD_CREATED on another OS thread ends the old row (at the latest then)");
    rec_apply(s, rec_thread(WIRE_THREAD_NAME, 0x71, 1003, 0, "c", REC_MONO + 10));
    CHECK(s->thread_count == 3 && !s->threads[1].alive && strcmp(s->threads[2].name, "c") == 0 &&
              s->threads[2].os_thread_id == 1003,
          "so does a name for another OS thread");
    rec_apply(s, rec_thread(WIRE_THREAD_DESTROYED, 0x71, 1001, 0, NULL, REC_MONO + 11));
    CHECK(s->thread_count == 3 && s->threads[2].alive &&
              s->threads[0].ended_ns == (int64_t)(REC_MONO + 9) + REC_OFFSET,
          "a late end of the first thread finds its row, not the current one");
    session_free(s);
}

/* The runtime names its own threads only at the OS level: the agent sends
 * those names flagged WIRE_FLAG_OS_NAME; a name from Thread.Name wins. */
TEST(thread_os_names)
{
    session *s = rec_live_session(1);
    session_thread *t;

    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x71, 1001, 0, NULL, REC_MONO + 1));
    rec_apply(s, rec_thread(WIRE_THREAD_NAME, 0x71, 1001, WIRE_FLAG_OS_NAME, ".NET Finalizer",
                            REC_MONO + 2));
    t = session_find_thread(s, 0x71);
    CHECK(t->name && strcmp(t->name, ".NET Finalizer") == 0 && (t->flags & SESSION_THREAD_OS_NAME),
          "an OS name names a thread without a name");
    rec_apply(s, rec_thread(WIRE_THREAD_NAME, 0x71, 1001, 0, "worker", REC_MONO + 3));
    CHECK(strcmp(t->name, "worker") == 0 && !(t->flags & SESSION_THREAD_OS_NAME),
          "Thread.Name replaces it");
    rec_apply(s,
              rec_thread(WIRE_THREAD_NAME, 0x71, 1001, WIRE_FLAG_OS_NAME, "dotnet", REC_MONO + 4));
    CHECK(strcmp(t->name, "worker") == 0, "an OS name never replaces Thread.Name");

    rec_apply(s, rec_thread(WIRE_THREAD_NAME, 0x72, 0, 0, "early", REC_MONO + 5));
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x72, 2002, 0, NULL, REC_MONO + 6));
    rec_apply(
        s, rec_thread(WIRE_THREAD_NAME, 0x72, 2002, WIRE_FLAG_OS_NAME, "early-os", REC_MONO + 7));
    CHECK(strcmp(session_find_thread(s, 0x72)->name, "early") == 0,
          "nor a name given before the thread started");
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x73, 3003, 0, NULL, REC_MONO + 8));
    rec_apply(s,
              rec_thread(WIRE_THREAD_NAME, 0x73, 3999, WIRE_FLAG_OS_NAME, "stale", REC_MONO + 9));
    CHECK(session_find_thread(s, 0x73)->name == NULL && s->thread_count == 3,
          "an OS name read for another OS thread is dropped (no row made)");
    session_free(s);
}

/* A JIT is on a row: after the ID moved on to a new thread, the function
 * compiled before still names the old thread. */
TEST(jit_thread_rows)
{
    session *s = rec_live_session(1);

    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x71, 1001, 0, NULL, REC_MONO + 1));
    rec_apply(s, rec_jit_started(0xF1, 0x71, REC_MONO + 2));
    rec_apply(s, rec_thread(WIRE_THREAD_DESTROYED, 0x71, 1001, 0, NULL, REC_MONO + 3));
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x71, 1002, 0, NULL, REC_MONO + 4));
    rec_apply(s, rec_jit_finished(0xF1, 0x71, 0x1000, 16, REC_MONO + 5, 0));
    CHECK(session_function_last_jit_time(session_find_function(s, 0xF1)) == 0,
          "a start on the ended thread does not pair with a finish on the new one");
    rec_apply(s, rec_jit_started(0xF2, 0x71, REC_MONO + 6));
    rec_apply(s, rec_jit_finished(0xF2, 0x71, 0x2000, 16, REC_MONO + 8, 0));
    CHECK(session_find_function(s, 0xF2)->thread_row == 2 &&
              session_function_last_jit_time(session_find_function(s, 0xF2)) == 2,
          "the new thread's JIT: its row, its time");
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x72, 2002, 0, NULL, REC_MONO + 9));
    rec_apply(s, rec_jit_finished(0xF3, 0x72, 0x3000, 16, REC_MONO + 10, 0));
    rec_apply(s, rec_thread(WIRE_THREAD_DESTROYED, 0x72, 2002, 0, NULL, REC_MONO + 11));
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x72, 2003, 0, NULL, REC_MONO + 12));
    CHECK(session_find_function(s, 0xF3)->thread_row == 3 && s->threads[2].os_thread_id == 2002,
          "a function keeps the row of the thread that compiled it");
    session_free(s);
}

TEST(thread_names)
{
    session *s = rec_live_session(1);

    rec_apply(s, rec_thread(WIRE_THREAD_NAME, 0x71, 0, 0, "worker", REC_MONO + 1));
    CHECK(session_find_thread(s, 0x71) && session_find_thread(s, 0x71)->name &&
              strcmp(session_find_thread(s, 0x71)->name, "worker") == 0,
          "live THREAD_NAME for an unknown thread creates and names it");
    rec_apply(s, rec_thread(WIRE_THREAD_NAME, 0x71, 0, 0, "renamed", REC_MONO + 2));
    CHECK(strcmp(session_find_thread(s, 0x71)->name, "renamed") == 0, "a live rename overrides");
    rec_apply(s, rec_thread(WIRE_THREAD_NAME, 0x71, 0, WIRE_FLAG_CATCHUP, "stale", REC_MONO + 3));
    CHECK(strcmp(session_find_thread(s, 0x71)->name, "renamed") == 0,
          "a catch-up name does not override an existing one");
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x72, 0, 0, NULL, REC_MONO + 4));
    rec_apply(s,
              rec_thread(WIRE_THREAD_NAME, 0x72, 0, WIRE_FLAG_CATCHUP, "from-enum", REC_MONO + 5));
    CHECK(session_find_thread(s, 0x72)->name &&
              strcmp(session_find_thread(s, 0x72)->name, "from-enum") == 0,
          "a catch-up name fills in a missing one");
    rec_apply(s, rec_thread(WIRE_THREAD_NAME, 0x71, 0, 0, "", REC_MONO + 6));
    CHECK(session_find_thread(s, 0x71)->name == NULL, "a live empty name clears it");
    session_free(s);
}

static const check_test tests[] = {
    TEST_ENTRY(threads_catchup_and_destroy),
    TEST_ENTRY(thread_id_reused_after_destroy),
    TEST_ENTRY(thread_named_before_start_on_a_reused_id),
    TEST_ENTRY(thread_end_missed),
    TEST_ENTRY(thread_os_names),
    TEST_ENTRY(jit_thread_rows),
    TEST_ENTRY(thread_names),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
