/* test_session.c -- unit tests for server/session.c (folding agent records into
 * a session), driven by hand-made wire_record values.
 *
 * Hello (token match, runtime fields, clock offset; wrong token refused); JIT
 * time = Finished - Started on the same thread, nested and interleaved
 * compilations; function names set once; code versions counted by distinct
 * code start (re-JIT); catch-up records never override what live callbacks
 * said (functions, modules, threads, thread names) and create what is unknown;
 * unknown IDs tolerated; a destroyed thread is not resurrected by catch-up;
 * sequence gaps (a repeated or backward sequence number refused); DROPS,
 * AGENT_COST and TIERS_STATUS refused when the ring and the sequence make
 * them impossible (record_check.h); the event log (seqs from 1 without gaps, session_event_at,
 * eviction after EVENTLOG_MAX); detach state transitions; unknown record
 * types refused; an exit by a signal (kept with the exit code, EXITED once the
 * link is lost) and signal names. Every session is freed (LeakSanitizer checks at exit).
 * Build: make build/tests/test_session && build/tests/test_session
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "check.h"
#include "records.h"
#include "session.h"

#define MODULE_ID 0x7f0000200000ull /* the module of the functions named here */

static session *new_session(void)
{
    return session_new(1, SESSION_MODE_RUN, 999, "dotnet app.dll", REC_TOKEN);
}

/* ---- tests ---------------------------------------------------------------- */

TEST(hello_binds_session)
{
    session *s = new_session();

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

    s = new_session();
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
    session *s = new_session();

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

TEST(jit_time_from_started_and_finished)
{
    session *s = rec_live_session(1);
    session_function *f;
    session_thread *t;

    rec_apply(s, rec_jit_started(0xF1, 0x71, REC_MONO + 1000));
    t = session_find_thread(s, 0x71);
    CHECK(t && t->alive && t->jit_depth == 1, "JIT_STARTED creates the unknown thread, depth 1");
    CHECK(session_find_function(s, 0xF1) != NULL, "and the function");
    rec_apply(s, rec_jit_finished(0xF1, 0x71, 0x10000, 128, REC_MONO + 1500, 0));
    f = session_find_function(s, 0xF1);
    CHECK(f && session_function_last_jit_time(f) == 500 && f->jit_time_total_ns == 500,
          "jit_time_ns = finished - started = 500 (got %llu)",
          f ? (unsigned long long)session_function_last_jit_time(f) : 0ull);
    CHECK(f && f->jit_count == 1 && f->versions == 1 &&
              session_function_code_start(f, 0) == 0x10000,
          "one compilation, one code version");
    CHECK(f && f->native_size == 128 && f->il_size == 40 &&
              f->thread_row == session_thread_row_of(s, session_find_thread(s, 0x71)) &&
              f->hresult == 0,
          "sizes, thread and hresult from the record");
    CHECK(f && f->first_jit_ns == (int64_t)(REC_MONO + 1500) + REC_OFFSET &&
              session_function_last_jit_ns(f) == f->first_jit_ns,
          "first/last JIT time = target time + clock offset");
    CHECK(!(f->flags & WIRE_FLAG_CATCHUP), "not flagged catch-up");
    CHECK(s->jit_compilations == 1 && s->jit_time_total_ns == 500, "session totals");
    CHECK(session_find_thread(s, 0x71)->jit_depth == 0, "thread's JIT stack is empty again");

    /* a finish without a start, and a finish on another thread */
    rec_apply(s, rec_jit_finished(0xF2, 0x71, 0x20000, 64, REC_MONO + 2000, 0));
    f = session_find_function(s, 0xF2);
    CHECK(f && f->jit_count == 1 && session_function_last_jit_time(f) == 0,
          "JIT_FINISHED without a start: time 0");
    rec_apply(s, rec_jit_started(0xF3, 0x71, REC_MONO + 3000));
    rec_apply(s, rec_jit_finished(0xF3, 0x72, 0x30000, 64, REC_MONO + 3100, 0));
    f = session_find_function(s, 0xF3);
    CHECK(f && session_function_last_jit_time(f) == 0 &&
              session_find_thread(s, 0x71)->jit_depth == 1,
          "a finish on another thread does not pair with the start");
    session_free(s);
}

TEST(nested_and_interleaved_jits)
{
    session *s = rec_live_session(1);

    /* B compiles while A is being compiled (a static constructor, say) */
    rec_apply(s, rec_jit_started(0xA, 0x71, 100));
    rec_apply(s, rec_jit_started(0xB, 0x71, 200));
    rec_apply(s, rec_jit_finished(0xB, 0x71, 0xB000, 10, 260, 0));
    rec_apply(s, rec_jit_finished(0xA, 0x71, 0xA000, 10, 400, 0));
    CHECK(session_function_last_jit_time(session_find_function(s, 0xB)) == 60 &&
              session_function_last_jit_time(session_find_function(s, 0xA)) == 300,
          "nested: inner 60, outer 300");

    /* not LIFO: the first started finishes first */
    rec_apply(s, rec_jit_started(0xC, 0x71, 1000));
    rec_apply(s, rec_jit_started(0xD, 0x71, 1100));
    rec_apply(s, rec_jit_finished(0xC, 0x71, 0xC000, 10, 1400, 0));
    rec_apply(s, rec_jit_finished(0xD, 0x71, 0xD000, 10, 1500, 0));
    CHECK(session_function_last_jit_time(session_find_function(s, 0xC)) == 400 &&
              session_function_last_jit_time(session_find_function(s, 0xD)) == 400,
          "interleaved: pairs by function, 400 and 400");

    /* the same function compiled on two threads at once */
    rec_apply(s, rec_jit_started(0xE, 0x71, 2000));
    rec_apply(s, rec_jit_started(0xE, 0x72, 2050));
    rec_apply(s, rec_jit_finished(0xE, 0x72, 0xE000, 10, 2070, 0));
    CHECK(session_function_last_jit_time(session_find_function(s, 0xE)) == 20,
          "second thread's compilation: 20");
    rec_apply(s, rec_jit_finished(0xE, 0x71, 0xE000, 10, 2300, 0));
    CHECK(session_function_last_jit_time(session_find_function(s, 0xE)) == 300 &&
              session_find_function(s, 0xE)->jit_count == 2 &&
              session_find_function(s, 0xE)->jit_time_total_ns == 320,
          "first thread's: 300; count 2, total 320");

    /* deeper than SESSION_JIT_NESTING: the ones that did not fit get no time */
    for (uint64_t i = 0; i < SESSION_JIT_NESTING + 2; i++)
        rec_apply(s, rec_jit_started(0x100 + i, 0x73, 10000 + i));
    for (uint64_t i = SESSION_JIT_NESTING + 2; i-- > 0;)
        rec_apply(s, rec_jit_finished(0x100 + i, 0x73, 0x9000 + i, 8, 20000, 0));
    int ok = 1;
    for (uint64_t i = 0; i < SESSION_JIT_NESTING + 2; i++) {
        uint64_t want = i < SESSION_JIT_NESTING ? 10000 - i : 0;
        ok &= session_function_last_jit_time(session_find_function(s, 0x100 + i)) == want;
    }
    CHECK(ok && session_find_thread(s, 0x73)->jit_depth == 0,
          "%d nested compilations: the %d kept are timed, the rest get 0, stack empty",
          SESSION_JIT_NESTING + 2, SESSION_JIT_NESTING);
    session_free(s);
}

TEST(function_name_set_once)
{
    session *s = rec_live_session(1);
    session_function *f;

    rec_apply(s, rec_jit_finished(0xF1, 0x71, 0x1000, 10, REC_MONO + 10, 0));
    rec_apply(s, rec_function_name(0xF1, MODULE_ID, "Ns.Box<System.Int64>.Get", 0));
    f = session_find_function(s, 0xF1);
    CHECK(f && f->name_record && strcmp(fixture_fn_name(f), "Ns.Box<System.Int64>.Get") == 0,
          "FUNCTION_NAME names a known function");
    CHECK(f->module_id == 0x7f0000200000ull && f->token == 0x06000001u, "module and token set");
    rec_apply(s, rec_function_name(0xF1, MODULE_ID, "Something.Else", 0));
    CHECK(strcmp(fixture_fn_name(session_find_function(s, 0xF1)), "Ns.Box<System.Int64>.Get") == 0,
          "a second FUNCTION_NAME does not rename it");
    rec_apply(s, rec_function_name(0xF9, MODULE_ID, "Ns.First.Seen", 0));
    f = session_find_function(s, 0xF9);
    CHECK(f && strcmp(fixture_fn_name(f), "Ns.First.Seen") == 0 && f->jit_count == 0,
          "FUNCTION_NAME before any JIT record creates the function");
    session_free(s);
}

TEST(code_versions)
{
    session *s = rec_live_session(1);
    session_function *f;

    rec_apply(s, rec_jit_finished(0xF1, 0x71, 0x1000, 100, REC_MONO + 10, 0));
    rec_apply(s, rec_jit_finished(0xF1, 0x71, 0x2000, 80, REC_MONO + 20, 0));
    f = session_find_function(s, 0xF1);
    CHECK(f->versions == 2 && f->jit_count == 2 && f->native_size == 80,
          "a second code start: versions 2 (re-JIT), count 2, size of the newest");
    rec_apply(s, rec_jit_finished(0xF1, 0x71, 0x2000, 80, REC_MONO + 30, 0));
    f = session_find_function(s, 0xF1);
    CHECK(f->versions == 2 && f->jit_count == 3, "the same code start again: still 2 versions");
    rec_apply(s, rec_jit_finished(0xF1, 0x71, 0x1000, 100, REC_MONO + 40, 0));
    CHECK(session_find_function(s, 0xF1)->versions == 2, "an older code start again: still 2");
    rec_apply(s, rec_jit_finished(0xF1, 0x71, 0, 100, REC_MONO + 50, 0));
    CHECK(session_find_function(s, 0xF1)->versions == 2, "code start 0 (unknown) is not a version");
    session_free(s);
}

/* versions counts distinct code starts; the newest SESSION_MAX_CODE_VERSIONS of
 * them are remembered. A remembered code start must not count again (e.g. a
 * catch-up repeating the current code). One older than that counts again: by
 * design, since a code address freed and reused later is a new version. */
TEST(code_versions_beyond_the_kept_ones)
{
    session *s = rec_live_session(1);
    uint32_t n = SESSION_MAX_CODE_VERSIONS + 2;

    for (uint32_t i = 0; i < n; i++)
        rec_apply(s, rec_jit_finished(0xF1, 0x71, 0x1000 * (i + 1), 10, REC_MONO + i, 0));
    CHECK(session_find_function(s, 0xF1)->versions == n, "%u distinct code starts: versions %u", n,
          n);
    rec_apply(s, rec_jit_finished(0xF1, 0x71, 0x1000 * (n - 3), 10, REC_MONO + 100, 0));
    CHECK(session_find_function(s, 0xF1)->versions == n, "a recent one again: still %u", n);
    rec_apply(s, rec_jit_finished(0xF1, 0x71, 0x1000 * n, 10, 0, WIRE_FLAG_CATCHUP));
    CHECK(session_find_function(s, 0xF1)->versions == n,
          "catch-up repeating the newest code start: still %u (got %u)", n,
          session_find_function(s, 0xF1)->versions);
    rec_apply(s, rec_jit_finished(0xF1, 0x71, 0x1000 * n, 10, REC_MONO + 200, 0));
    CHECK(session_find_function(s, 0xF1)->versions == n,
          "live JIT repeating the newest code start: still %u (got %u)", n,
          session_find_function(s, 0xF1)->versions);
    session_free(s);
}

/* A function compiled once carries nothing beyond its 88 bytes (its last
 * compilation is its first); the second compilation, or a second code
 * version from catch-up, makes its `more`, and what it says is the same. */
TEST(only_functions_compiled_again_carry_more)
{
    session *s = rec_live_session(1);
    session_function *f;
    uint64_t bytes;

    rec_apply(s, rec_jit_started(0xF1, 0x71, REC_MONO + 100));
    rec_apply(s, rec_jit_finished(0xF1, 0x71, 0x1000, 100, REC_MONO + 350, 0));
    f = session_find_function(s, 0xF1);
    bytes = s->compilation_bytes;
    CHECK(f && !f->more && bytes == 0 && session_function_last_jit_time(f) == 250 &&
              session_function_last_jit_ns(f) == f->first_jit_ns &&
              session_function_compilation(f, 0).jit_ns == 250,
          "compiled once: no more, its last compilation derived from its first");
    rec_apply(s, rec_jit_started(0xF1, 0x71, REC_MONO + 1000));
    rec_apply(s, rec_jit_finished(0xF1, 0x71, 0x2000, 80, REC_MONO + 1040, 0));
    f = session_find_function(s, 0xF1);
    CHECK(f->more && s->compilation_bytes > bytes && session_function_last_jit_time(f) == 40 &&
              f->jit_time_total_ns == 290 && session_function_last_jit_ns(f) > f->first_jit_ns &&
              session_function_compilation(f, 0).jit_ns == 250 &&
              session_function_compilation(f, 1).jit_ns == 40 &&
              session_function_code_start(f, 1) == 0x2000,
          "compiled again: more made, last compilation 40 ns, the first kept in its list");
    /* a method compiled twice before attach: catch-up lists both versions */
    {
        wire_record r = rec_jit_finished(0xF2, 0, 0x6000, 20, REC_MONO + 2000, WIRE_FLAG_CATCHUP);
        r.code_versions[0] = (wire_code_version){.start = 0x5000, .size = 10};
        r.code_versions[1] = (wire_code_version){.start = 0x6000, .size = 20};
        r.code_version_count = 2;
        rec_apply(s, r);
    }
    f = session_find_function(s, 0xF2);
    CHECK(f && f->more && f->versions == 2 && f->jit_count == 0 &&
              session_function_last_jit_ns(f) == 0 && session_function_code_start(f, 0) == 0x5000 &&
              session_function_code_start(f, 1) == 0x6000,
          "catch-up of two versions: more holds the second, no live compilation");
    session_free(s);
}

TEST(catchup_never_overrides_live_function)
{
    session *s = rec_live_session(1);
    session_function before, *f;
    uint64_t events;

    rec_apply(s, rec_jit_started(0xF1, 0x71, REC_MONO + 100));
    rec_apply(s, rec_jit_finished(0xF1, 0x71, 0x1000, 128, REC_MONO + 350, 0));
    before = *session_find_function(s, 0xF1);
    events = s->events.last_seq;
    CHECK(rec_apply(s, rec_jit_finished(0xF1, 0x71, 0x1000, 999, REC_MONO + 9000,
                                        WIRE_FLAG_CATCHUP)) == 0,
          "catch-up JIT_FINISHED for a live-seen function is accepted");
    f = session_find_function(s, 0xF1);
    CHECK(f->jit_count == before.jit_count &&
              session_function_last_jit_time(f) == session_function_last_jit_time(&before) &&
              f->jit_time_total_ns == before.jit_time_total_ns,
          "jit_count and times unchanged");
    CHECK(f->native_size == 128 && f->il_size == before.il_size && f->versions == 1,
          "sizes and versions unchanged");
    CHECK(f->first_jit_ns == before.first_jit_ns &&
              session_function_last_jit_ns(f) == session_function_last_jit_ns(&before),
          "first/last JIT times unchanged");
    CHECK(!(f->flags & WIRE_FLAG_CATCHUP), "not flagged catch-up");
    CHECK(s->events.last_seq == events && s->jit_compilations == 1,
          "no event, no extra compilation");
    session_free(s);
}

TEST(catchup_creates_unknown_function)
{
    session *s = rec_live_session(1);
    session_function *f;
    const eventlog_entry *e;

    rec_apply(s, rec_jit_finished(0xF5, 0, 0x5000, 77, REC_MONO + 10, WIRE_FLAG_CATCHUP));
    f = session_find_function(s, 0xF5);
    CHECK(f && (f->flags & WIRE_FLAG_CATCHUP), "catch-up for an unknown function creates it, "
                                               "flagged catch-up");
    CHECK(f && f->jit_count == 0 && session_function_last_jit_time(f) == 0 &&
              f->native_size == 77 && f->versions == 1,
          "no compilation counted, size and code version known");
    e = eventlog_at(&s->events, s->events.last_seq);
    CHECK(e && e->type == WIRE_JIT_FINISHED && e->id == 0xF5 && (e->flags & WIRE_FLAG_CATCHUP),
          "one catch-up event logged");
    uint64_t events = s->events.last_seq;
    rec_apply(s, rec_jit_finished(0xF5, 0, 0x5000, 77, REC_MONO + 20, WIRE_FLAG_CATCHUP));
    CHECK(s->events.last_seq == events && session_find_function(s, 0xF5)->versions == 1,
          "the same catch-up record again changes nothing");
    rec_apply(s, rec_jit_finished(0xF6, 0, 0x6000, 10, REC_MONO + 30,
                                  WIRE_FLAG_CATCHUP | WIRE_FLAG_DYNAMIC));
    CHECK(session_find_function(s, 0xF6)->flags == (WIRE_FLAG_CATCHUP | WIRE_FLAG_DYNAMIC),
          "catch-up keeps the dynamic flag");
    rec_apply(s, rec_jit_finished(0xF5, 0x71, 0x7000, 90, REC_MONO + 40, 0));
    f = session_find_function(s, 0xF5);
    CHECK(!(f->flags & WIRE_FLAG_CATCHUP) && f->jit_count == 1 && f->native_size == 90 &&
              f->versions == 2,
          "a later live JIT clears the catch-up flag and counts");
    CHECK(s->jit_compilations == 1, "catch-up records are not compilations");
    session_free(s);
}

TEST(modules_catchup_and_unknown)
{
    session *s = rec_live_session(1);
    session_module *m;
    uint64_t events;

    rec_apply(s, rec_module_loaded(0x200000, "/app/A.dll", "A", 0, REC_MONO + 2));
    events = s->events.last_seq;
    CHECK(rec_apply(s, rec_module_loaded(0x200000, "/stale/A.dll", "Stale", WIRE_FLAG_CATCHUP,
                                         REC_MONO + 2)) == 0,
          "catch-up duplicate of a live module load is accepted");
    m = session_find_module(s, 0x200000);
    CHECK(m && strcmp(m->path, "/app/A.dll") == 0 && strcmp(m->assembly, "A") == 0 && m->flags == 0,
          "path, assembly and flags unchanged");
    CHECK(s->events.last_seq == events && s->module_count == 1, "no event, no second module");

    rec_apply(s, rec_module_loaded(0x300000, "/enum/B.dll", "B", WIRE_FLAG_CATCHUP, REC_MONO + 2));
    rec_apply(s, rec_module_loaded(0x300000, "/live/B.dll", "B", 0, REC_MONO + 2));
    m = session_find_module(s, 0x300000);
    CHECK(m && strcmp(m->path, "/live/B.dll") == 0 && !(m->flags & WIRE_FLAG_CATCHUP),
          "a live load after the enumeration wins");

    CHECK(rec_apply(s, rec_module_unloaded(0x999000, REC_MONO + 50)) == 0,
          "MODULE_UNLOADED for a never-seen module is tolerated");
    m = session_find_module(s, 0x999000);
    CHECK(!m || m->unloaded_ns == (int64_t)(REC_MONO + 50) + REC_OFFSET,
          "(if it is recorded, as unloaded)");
    rec_apply(
        s, rec_module_loaded(0x999000, "/enum/Gone.dll", "Gone", WIRE_FLAG_CATCHUP, REC_MONO + 2));
    m = session_find_module(s, 0x999000);
    CHECK(!m || m->unloaded_ns != 0, "a late enumeration does not bring an unloaded module back");
    CHECK(rec_apply(s, rec_module_unloaded(0, 0)) == 0, "module id 0 is tolerated");

    /* assembly names fill in, never override */
    wire_record a = rec_assembly_loaded(0x1300000, 0x300000, "Other", REC_MONO + 60);
    rec_apply(s, a);
    CHECK(strcmp(session_find_module(s, 0x300000)->assembly, "B") == 0,
          "ASSEMBLY_LOADED does not replace a known assembly name");
    rec_apply(s, rec_module_loaded(0x400000, "/app/C.dll", "", 0, REC_MONO + 2));
    a.u.assembly_loaded.manifest_module_id = 0x400000;
    a.strings[0] = (wire_string){"C", 1};
    rec_apply(s, a);
    CHECK(session_find_module(s, 0x400000)->assembly &&
              strcmp(session_find_module(s, 0x400000)->assembly, "C") == 0,
          "ASSEMBLY_LOADED fills in a missing assembly name");
    session_free(s);
}

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

TEST(sequence_gaps)
{
    session *s = new_session();
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

/* A collectible module unloads: its FunctionIDs may be given to new methods,
 * which must not inherit the old functions' names and counts; the old ones
 * stay listed. A module ID reused by a new module is a new module. */
TEST(unloaded_module_frees_its_function_ids)
{
    session *s = rec_live_session(1);
    wire_record n;

    rec_apply(s, rec_module_loaded(0x200000, "/p/Plugin1.dll", "Plugin1", 0, REC_MONO + 2));
    n = rec_function_name(0xF00, MODULE_ID, "Plugin1.Old()", 0);
    n.u.function_name.module_id = 0x200000;
    rec_apply(s, n);
    rec_apply(s, rec_jit_finished(0xF00, 0, 0x1000, 10, REC_MONO + 5, 0));
    n = rec_module_unloaded(0, REC_MONO + 3);
    n.u.module_unloaded.module_id = 0x200000;
    CHECK(rec_apply(s, n) == 0 && session_find_function(s, 0xF00) == NULL,
          "after the unload the ID finds nothing");
    rec_apply(s, rec_module_loaded(0x200000, "/p/Plugin2.dll", "Plugin2", 0, REC_MONO + 2));
    CHECK(s->module_count == 2 && strcmp(session_module_name(s, 0x200000), "Plugin2") == 0,
          "the reused module ID is a second module");
    n = rec_function_name(0xF00, MODULE_ID, "Plugin2.New()", 0);
    n.u.function_name.module_id = 0x200000;
    rec_apply(s, n);
    rec_apply(s, rec_jit_finished(0xF00, 0, 0x2000, 20, REC_MONO + 9, 0));
    CHECK(s->function_count == 2, "the reused FunctionID is a second function");
    CHECK(strcmp(fixture_fn_name(&s->functions[0]), "Plugin1.Old()") == 0 &&
              s->functions[0].jit_count == 1,
          "the old one keeps its name and count");
    CHECK(session_find_function(s, 0xF00) == &s->functions[1] &&
              strcmp(fixture_fn_name(&s->functions[1]), "Plugin2.New()") == 0 &&
              s->functions[1].jit_count == 1,
          "the new one has its own name and count");
    session_free(s);
}

/* The function index is rebuilt (O(functions)) only for the first unload of
 * a known module that named functions: repeated, unknown or empty unloads
 * (a duplicate, or a hostile agent's stream) leave it alone. */
TEST(repeated_unloads_do_not_rebuild_the_index)
{
    session *s = rec_live_session(1);
    wire_record n, u = rec_module_unloaded(0, REC_MONO + 3);
    const void *keys;

    rec_apply(s, rec_module_loaded(0x200000, "/p/Plugin1.dll", "Plugin1", 0, REC_MONO + 2));
    rec_apply(s, rec_module_loaded(0x300000, "/p/Empty.dll", "Empty", 0, REC_MONO + 2));
    n = rec_function_name(0xF00, MODULE_ID, "Plugin1.Old()", 0);
    n.u.function_name.module_id = 0x200000;
    rec_apply(s, n);
    rec_apply(s, rec_jit_finished(0xF00, 0, 0x1000, 10, REC_MONO + 5, 0));
    rec_apply(s, rec_jit_finished(0xF10, 0, 0x1100, 10, REC_MONO + 6, 0));
    keys = (const void *)s->function_index.slots;
    u.u.module_unloaded.module_id = 0x300000;
    rec_apply(s, u);
    CHECK((const void *)s->function_index.slots == keys, "a module without functions: no rebuild");
    u.u.module_unloaded.module_id = 0x900000;
    rec_apply(s, u);
    CHECK((const void *)s->function_index.slots == keys, "an unknown module: no rebuild");
    u.u.module_unloaded.module_id = 0x200000;
    rec_apply(s, u);
    CHECK((const void *)s->function_index.slots != keys &&
              session_find_function(s, 0xF00) == NULL && session_find_function(s, 0xF10) != NULL,
          "the first unload of Plugin1 retires its function only");
    keys = (const void *)s->function_index.slots;
    rec_apply(s, u);
    rec_apply(s, u);
    CHECK((const void *)s->function_index.slots == keys, "repeated unloads: no rebuild");
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

/* Each live compilation keeps its tier: the function's history, the event's
 * tier, the totals per tier; a tier out of range is unknown; catch-up adds no
 * compilation; past SESSION_MAX_COMPILATIONS they are counted only; the
 * agent's tier-source status is kept. */
TEST(tiers_per_compilation)
{
    session *s = new_session();
    session_function *f;
    const eventlog_entry *e;
    wire_record r;
    static const uint32_t tiers[] = {WIRE_TIER_0, WIRE_TIER_0_INSTRUMENTED, WIRE_TIER_1, 99};
    unsigned i;

    rec_apply(s, rec_hello(REC_TOKEN));
    rec_apply(s, rec_jit_finished(0xF9, 0x71, 0x9000, 10, REC_MONO + 5, WIRE_FLAG_CATCHUP));
    for (i = 0; i < 4; i++) {
        rec_apply(s, rec_jit_started(0xF1, 0x71, REC_MONO + 100 * i));
        r = rec_jit_finished(0xF1, 0x71, 0x1000 * (i + 1), 16 * (i + 1), REC_MONO + 100 * i + 10,
                             0);
        r.u.jit_finished.tier = tiers[i];
        rec_apply(s, r);
        f = session_find_function(s, 0xF1);
        if (i == 0)
            CHECK(f && f->compilation_count == 1 && !f->compilation_cap &&
                      session_function_compilation(f, 0).tier == WIRE_TIER_0 &&
                      session_function_compilation(f, 0).native_size == 16 &&
                      session_function_compilation(f, 0).time_ns == session_function_last_jit_ns(f),
                  "compiled once: no list, the function's own fields are its compilation");
    }
    f = session_find_function(s, 0xF1);
    CHECK(f && f->compilation_count == 4, "four compilations kept");
    CHECK(f && session_function_compilation(f, 0).tier == WIRE_TIER_0 &&
              session_function_compilation(f, 1).tier == WIRE_TIER_0_INSTRUMENTED &&
              session_function_compilation(f, 2).tier == WIRE_TIER_1 &&
              session_function_compilation(f, 3).tier == WIRE_TIER_UNKNOWN,
          "in order; 99 is not a tier: unknown");
    CHECK(f && session_function_compilation(f, 2).jit_ns == 10 &&
              session_function_compilation(f, 2).native_size == 48,
          "each with its JIT time and size");
    CHECK(f && session_function_compilation(f, 0).jit_ns == 10 &&
              session_function_compilation(f, 0).native_size == 16 &&
              session_function_compilation(f, 0).time_ns == f->more->list[0].time_ns &&
              f->more->list[0].time_ns < f->more->list[1].time_ns,
          "the first, kept in the function until the second came, copied as it was");
    CHECK(f && f->tier == WIRE_TIER_UNKNOWN, "the function's tier is its last compilation's");
    CHECK(session_find_function(s, 0xF9)->compilation_count == 0, "catch-up: no compilation");
    CHECK(s->tier_compilations[WIRE_TIER_0] == 1 && s->tier_compilations[WIRE_TIER_1] == 1 &&
              s->tier_compilations[WIRE_TIER_UNKNOWN] == 1 && s->tier_jit_ns[WIRE_TIER_1] == 10,
          "totals per tier");
    e = eventlog_at(&s->events, s->events.last_seq);
    CHECK(e && e->type == WIRE_JIT_FINISHED && e->tier == WIRE_TIER_UNKNOWN, "last event");
    e = eventlog_at(&s->events, s->events.last_seq - 1);
    CHECK(e && e->tier == WIRE_TIER_1, "the event before carries Tier1");
    for (i = 0; i < SESSION_MAX_COMPILATIONS + 3; i++)
        rec_apply(s, rec_jit_finished(0xF2, 0x72, 0x100 + i, 8, REC_MONO + 1000 + i, 0));
    f = session_find_function(s, 0xF2);
    CHECK(f && f->compilation_count == SESSION_MAX_COMPILATIONS && session_function_unkept(f) == 3,
          "kept up to the limit, the rest counted");
    CHECK(strcmp(session_tier_name(WIRE_TIER_1_OSR), "Tier1-OSR") == 0 &&
              strcmp(session_tier_name(WIRE_TIER_0_INSTRUMENTED), "Instrumented Tier0") == 0 &&
              strcmp(session_tier_name(1234), "unknown") == 0,
          "tier names");
    r = rec_tiers_status(0, 0, 0, REC_MONO + 3);
    r.u.tiers_status = (wire_tiers_status){7, 0, 5};
    CHECK(rec_apply(s, r) == 0 && s->tiers_known && s->tiers.enabled == 1 && s->tiers.lost == 5,
          "tier-source status kept (enabled normalised to 1)");
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
    TEST_ENTRY(hello_binds_session),
    TEST_ENTRY(hello_wrong_token),
    TEST_ENTRY(jit_time_from_started_and_finished),
    TEST_ENTRY(nested_and_interleaved_jits),
    TEST_ENTRY(function_name_set_once),
    TEST_ENTRY(code_versions),
    TEST_ENTRY(code_versions_beyond_the_kept_ones),
    TEST_ENTRY(only_functions_compiled_again_carry_more),
    TEST_ENTRY(catchup_never_overrides_live_function),
    TEST_ENTRY(catchup_creates_unknown_function),
    TEST_ENTRY(modules_catchup_and_unknown),
    TEST_ENTRY(threads_catchup_and_destroy),
    TEST_ENTRY(thread_id_reused_after_destroy),
    TEST_ENTRY(thread_named_before_start_on_a_reused_id),
    TEST_ENTRY(thread_end_missed),
    TEST_ENTRY(thread_os_names),
    TEST_ENTRY(jit_thread_rows),
    TEST_ENTRY(thread_names),
    TEST_ENTRY(sequence_gaps),
    TEST_ENTRY(drops_checked_against_ring_and_sequence),
    TEST_ENTRY(event_log),
    TEST_ENTRY(event_log_eviction),
    TEST_ENTRY(detach_transitions),
    TEST_ENTRY(unloaded_module_frees_its_function_ids),
    TEST_ENTRY(repeated_unloads_do_not_rebuild_the_index),
    TEST_ENTRY(other_records_and_unknown_types),
    TEST_ENTRY(hostile_timestamps),
    TEST_ENTRY(tiers_per_compilation),
    TEST_ENTRY(exit_by_signal),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
