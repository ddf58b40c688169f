/* test_session_jit.c -- a session's compilations: JIT time = Finished -
 * Started on the same thread, nested and interleaved compilations; function
 * names set once; code versions counted by distinct code start (re-JIT), the
 * newest kept; what a function compiled again carries; each compilation's
 * tier.
 *
 * Unit tests of server/session.c (folding agent records into a session),
 * driven by hand-made wire_record values (records.h). Every session is freed
 * (LeakSanitizer checks at exit).
 * Build: make build/tests/test_session_jit && build/tests/test_session_jit
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixtures.h"
#include "records.h"
#include "session.h"

#define MODULE_ID 0x7f0000200000ull /* the module of the functions named here */

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

/* Each live compilation keeps its tier: the function's history, the event's
 * tier, the totals per tier; a tier out of range is unknown; catch-up adds no
 * compilation; past SESSION_MAX_COMPILATIONS they are counted only; the
 * agent's tier-source status is kept. */
TEST(tiers_per_compilation)
{
    session *s = rec_session(1);
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

static const check_test tests[] = {
    TEST_ENTRY(jit_time_from_started_and_finished),
    TEST_ENTRY(nested_and_interleaved_jits),
    TEST_ENTRY(function_name_set_once),
    TEST_ENTRY(code_versions),
    TEST_ENTRY(code_versions_beyond_the_kept_ones),
    TEST_ENTRY(only_functions_compiled_again_carry_more),
    TEST_ENTRY(tiers_per_compilation),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
