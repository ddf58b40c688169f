/* test_tiersource.c -- unit tests for the session's word on its tier source
 * (server/session_fold.c, TIERS_STATUS and JIT_FINISHED): the runtime ends the
 * source as the process exits (WIRE_TIERS_ENDED_BY_RUNTIME), the session keeps
 * when (tiers_ended_ns, tier_source.ended_by_runtime_ms) with `enabled` the
 * agent's setting; a compilation that was under way then and comes after the
 * agent's word with an earlier time moves the end back to it, and so does the
 * agent saying it again with an earlier time; a tier source on again forgets
 * it. And dynamic methods whose FunctionID the runtime reuses:
 * a new function each, found by the ID, their events naming their own.
 * Build: make build/tests/test_tiersource && build/tests/test_tiersource
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "records.h"
#include "session.h"
#include "views.h"

#define WALL(t) ((int64_t)(t) + REC_OFFSET)

static void jit(session *s, uint64_t fid, uint64_t t, uint32_t tier, uint16_t flags)
{
    wire_record r = rec_jit_finished(fid, 0x71, 0x1000 + fid, 32, t, flags);
    r.u.jit_finished.tier = tier;
    rec_apply(s, r);
}

TEST(ended_by_the_runtime)
{
    session *s = rec_live_session(1);
    json_t *src;

    rec_apply(s, rec_tiers_status(WIRE_TIERS_ON, 0, 0, REC_MONO + 10));
    jit(s, 0xF1, REC_MONO + 100, WIRE_TIER_0, 0);
    CHECK(s->tiers_ended_ns == 0, "not ended while tiers come");
    rec_apply(s, rec_tiers_status(WIRE_TIERS_ENDED_BY_RUNTIME, 0, 0, REC_MONO + 500));
    CHECK(s->tiers_ended_ns == WALL(REC_MONO + 500) && s->tiers.enabled == 1,
          "the end kept, enabled still the agent's setting");
    jit(s, 0xF2, REC_MONO + 600, WIRE_TIER_UNKNOWN, 0);
    CHECK(s->tiers_ended_ns == WALL(REC_MONO + 500), "a later compilation leaves it");
    jit(s, 0xF3, REC_MONO + 450, WIRE_TIER_UNKNOWN, 0);
    CHECK(s->tiers_ended_ns == WALL(REC_MONO + 450),
          "one under way as it ended, logged after the word, moves it back");
    jit(s, 0xF4, REC_MONO + 300, WIRE_TIER_1, 0);
    CHECK(s->tiers_ended_ns == WALL(REC_MONO + 450), "one with its tier does not");
    rec_apply(s, rec_tiers_status(WIRE_TIERS_ENDED_BY_RUNTIME, 0, 0, REC_MONO + 900));
    CHECK(s->tiers_ended_ns == WALL(REC_MONO + 450),
          "the agent saying it again, later, keeps the earlier");
    rec_apply(s, rec_tiers_status(WIRE_TIERS_ENDED_BY_RUNTIME, 0, 0, REC_MONO + 400));
    CHECK(s->tiers_ended_ns == WALL(REC_MONO + 400),
          "saying it again, earlier (another thread's compilation the end cut), moves it back");
    src = view_tier_source(s);
    CHECK(json_is_true(json_object_get(src, "enabled")) &&
              json_real_value(json_object_get(src, "ended_by_runtime_ms")) > 0,
          "the view says both");
    json_decref(src);
    rec_apply(s, rec_tiers_status(WIRE_TIERS_ON, 0, 0, REC_MONO + 1000));
    CHECK(s->tiers_ended_ns == 0, "on again: forgotten");
    session_free(s);
}

TEST(dynamic_id_reused)
{
    session *s = rec_live_session(1);
    session_function *f;
    uint32_t i;

    /* the first method of the ID, then more than the function array's first
     * 1,024 slots: it moves as it grows, under the fold's feet */
    for (i = 0; i < 1100; i++) {
        rec_apply(s, rec_jit_started(0xD1, 0x71, REC_MONO + 10 * i));
        rec_apply(s, rec_function_name(0xD1, 0, i ? "[dynamic] Later(int)" : "[dynamic] First(int)",
                                       WIRE_FLAG_DYNAMIC));
        jit(s, 0xD1, REC_MONO + 10 * i + 5, WIRE_TIER_FULL_OPTS, WIRE_FLAG_DYNAMIC);
    }
    CHECK(s->function_count == 1100, "a function for each method: %zu", s->function_count);
    for (i = 0; i < 1100 && s->functions[i].jit_count == 1; i++)
        ;
    CHECK(i == 1100, "each compiled once (the first not: %u)", i);
    f = session_find_function(s, 0xD1);
    CHECK(f == &s->functions[1099], "the ID finds the newest");
    session_free(s);
}

static const check_test tests[] = {
    TEST_ENTRY(ended_by_the_runtime),
    TEST_ENTRY(dynamic_id_reused),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
