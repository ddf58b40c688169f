/* test_session_known.c -- what a session knows of functions and modules:
 * catch-up records never override what live callbacks said and create what is
 * unknown; unknown IDs tolerated; an unloaded module frees its FunctionIDs,
 * and repeated unloads do not rebuild the index each time.
 *
 * Unit tests of server/session.c (folding agent records into a session),
 * driven by hand-made wire_record values (records.h). Every session is freed
 * (LeakSanitizer checks at exit).
 * Build: make build/tests/test_session_known && build/tests/test_session_known
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

static const check_test tests[] = {
    TEST_ENTRY(catchup_never_overrides_live_function),
    TEST_ENTRY(catchup_creates_unknown_function),
    TEST_ENTRY(modules_catchup_and_unknown),
    TEST_ENTRY(unloaded_module_frees_its_function_ids),
    TEST_ENTRY(repeated_unloads_do_not_rebuild_the_index),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
