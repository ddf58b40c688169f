/* test_kinds.c -- unit tests for server/record_kinds.c, the table of record
 * kinds, and for the entries that dispatch through it (session_apply.c,
 * views_event.c).
 *
 * Every record type proto decodes (wire_record_fixed) has exactly one row,
 * with a fold, and no other type from 1 to 65535 has an agent's row; the
 * server's own records (logrec.h) have rows with a fold of their payload and
 * nothing an agent could reach. Rows say the same as the code around them:
 * only the hello opens a connection, an agent's observation has a replay and
 * only it, an event kind has a shape. The observations are exactly the
 * frames stored sessions keep beside their snapshots (a change would change
 * what storage keeps), the event names exactly docs/API.md's. A record of a
 * kind no agent may send (unknown, or the server's own) is refused whole:
 * -1, nothing counted, the session as it was; replaying a record that is not
 * an observation, or reading back a server record of an unknown type, fails.
 * Build: make build/tests/test_kinds && build/tests/test_kinds
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "record_kinds.h"
#include "records.h"
#include "session.h"
#include "views_event.h"

TEST(every_wire_kind_has_one_row)
{
    unsigned strings, agent_rows = 0, folds = 0, same = 0, t;
    const record_kind *seen[WIRE_RECORD_TYPE_MAX + 1] = {0};

    for (t = 0; t <= UINT16_MAX; t++) {
        const record_kind *k = record_kind_of((uint16_t)t);
        size_t fixed = wire_record_fixed((uint16_t)t, &strings);
        if (fixed) {
            CHECK(k && k->type == t && k->fold && !k->fold_server,
                  "type %u: proto decodes it, the server has its row with a fold", t);
            agent_rows++;
            if (t <= WIRE_RECORD_TYPE_MAX && k)
                seen[t] = k;
        } else if (k) {
            CHECK(!k->fold && k->fold_server && logrec_is_server_type((uint16_t)t),
                  "type %u: not an agent's record, so the server's own (%s)", t, k->name);
        }
        folds += k && k->fold;
    }
    CHECK(agent_rows == WIRE_RECORD_TYPE_MAX && folds == WIRE_RECORD_TYPE_MAX,
          "one row with a fold for each of wire.h's %u record types (%u, %u)", WIRE_RECORD_TYPE_MAX,
          agent_rows, folds);
    for (t = 1; t <= WIRE_RECORD_TYPE_MAX; t++)
        for (unsigned u = 1; u < t; u++)
            same += seen[t] && seen[u] && strcmp(seen[t]->name, seen[u]->name) == 0;
    CHECK(same == 0, "every row's name is its own (%u pairs share one)", same);
    CHECK(!record_kind_of(0) && !record_kind_of(WIRE_RECORD_TYPE_MAX + 1) &&
              !record_kind_of(LOGREC_FIRST - 1) && !record_kind_of(LOGREC_REFUSED + 1) &&
              !record_kind_of(LOGREC_SECOND - 1) && !record_kind_of(LOGREC_CPU_HEAT + 1) &&
              !record_kind_of(UINT16_MAX),
          "no row around the table's three ranges");
}

TEST(rows_name_their_kind)
{
    const record_kind *k;

    k = record_kind_of(WIRE_JIT_FINISHED);
    CHECK(k && strcmp(k->name, "WIRE_JIT_FINISHED") == 0, "an agent's kind: wire.h's name");
    k = record_kind_of(WIRE_GC_HEAP_STATS);
    CHECK(k && strcmp(k->name, "WIRE_GC_HEAP_STATS") == 0, "the newest agent's kind");
    k = record_kind_of(LOGREC_RESUMED);
    CHECK(k && strcmp(k->name, "LOGREC_RESUMED") == 0, "a server's kind: logrec.h's name");
    k = record_kind_of(LOGREC_CPU_HEAT);
    CHECK(k && strcmp(k->name, "LOGREC_CPU_HEAT") == 0, "a server's kind past snapshot.h's");
    for (unsigned t = 1; t <= UINT16_MAX; t++)
        if ((k = record_kind_of((uint16_t)t)))
            CHECK(strncmp(k->name, t < LOGREC_FIRST ? "WIRE_" : "LOGREC_",
                          t < LOGREC_FIRST ? 5 : 7) == 0,
                  "type %u: %s", t, k->name);
}

TEST(rows_agree_with_what_the_code_does)
{
    unsigned opens = 0, t;

    for (t = 1; t <= UINT16_MAX; t++) {
        const record_kind *k = record_kind_of((uint16_t)t);
        if (!k)
            continue;
        opens += (k->flags & RECORD_KIND_OPENS) != 0;
        if (k->fold) /* an agent's: a replay exactly when an observation */
            CHECK(!k->replay == !(k->flags & RECORD_KIND_OBSERVATION), "%s: replay %s", k->name,
                  k->replay ? "without the observation flag" : "missing");
        else /* the server's own: no check, bound or replay (no agent sends it) */
            CHECK(!k->check && !k->accepted && !k->need && !k->replay &&
                      !(k->flags & (RECORD_KIND_OPENS | RECORD_KIND_FUNCTION_FIRST)),
                  "%s: only a fold of its payload", k->name);
        CHECK(!k->accepted || k->check, "%s: what a check keeps needs a check", k->name);
        CHECK(!!k->event == !!k->event_json && (!k->event_take || k->event),
              "%s: an event has its shape, and only an event", k->name);
        CHECK(!(k->flags & RECORD_KIND_EVENT_PROFILE) || k->event, "%s: a profile event", k->name);
    }
    CHECK(opens == 1 && (record_kind_flags(WIRE_HELLO) & RECORD_KIND_OPENS),
          "the hello, and only it, opens a connection");
    CHECK((record_kind_flags(WIRE_JIT_STARTED) & RECORD_KIND_FUNCTION_FIRST) &&
              (record_kind_flags(WIRE_JIT_FINISHED) & RECORD_KIND_FUNCTION_FIRST) &&
              (record_kind_flags(WIRE_FUNCTION_NAME) & RECORD_KIND_FUNCTION_FIRST) &&
              offsetof(wire_jit_started, function_id) == 0 &&
              offsetof(wire_jit_finished, function_id) == 0 &&
              offsetof(wire_function_name, function_id) == 0,
          "the kinds the link prefetches open with their FunctionID");
    CHECK(record_kind_flags(0) == 0 && record_kind_flags(WIRE_RECORD_TYPE_MAX + 1) == 0,
          "no flags for an unknown type");
}

/* What stored sessions keep beside their snapshots: a change here changes
 * what storage keeps (docs/STORAGE.md), so the list is pinned. */
TEST(observations_are_what_storage_keeps)
{
    static const uint16_t kept[] = {
        WIRE_HELLO,           WIRE_STACK_THREAD,    WIRE_STACK_END,
        WIRE_PROFILE_STATUS,  WIRE_GC_STARTED,      WIRE_GC_FINISHED,
        WIRE_RUNTIME_SUSPEND, WIRE_CODE_VERSION,    WIRE_CODE_PART,
        WIRE_CODE_END,        LOGREC_PROFILE_START, LOGREC_PROFILE_STOP,
        LOGREC_CPU_START,     LOGREC_CPU_SYMBOL,    LOGREC_CPU_THREAD,
        LOGREC_CPU_STACK,     LOGREC_CPU_SAMPLES,   LOGREC_CPU_COUNTS,
        LOGREC_CPU_HEAT,      WIRE_EXCEPTION,       WIRE_EXCEPTION_CAUGHT,
        WIRE_ALLOCATION,      WIRE_GC_HEAP_STATS,   WIRE_EXCEPTION_COUNTS,
    };
    unsigned t, n = 0, i;

    for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
        CHECK(record_kind_is_observation(kept[i]), "%s: an observation",
              record_kind_of(kept[i]) ? record_kind_of(kept[i])->name : "(no row)");
    for (t = 0; t <= UINT16_MAX; t++)
        n += record_kind_is_observation((uint16_t)t);
    CHECK(n == sizeof(kept) / sizeof(kept[0]), "no other type is one (%u are)", n);
}

/* The event types docs/API.md names ("Event: ... plus, by type"). */
TEST(event_names_are_the_apis)
{
    static const struct {
        uint16_t type;
        const char *name;
    } events[] = {
        {WIRE_JIT_FINISHED, "jit"},
        {WIRE_MODULE_LOADED, "module_load"},
        {WIRE_MODULE_UNLOADED, "module_unload"},
        {WIRE_ASSEMBLY_LOADED, "assembly_load"},
        {WIRE_THREAD_CREATED, "thread_start"},
        {WIRE_THREAD_DESTROYED, "thread_end"},
        {WIRE_THREAD_NAME, "thread_name"},
        {WIRE_CATCHUP_END, "catchup"},
        {WIRE_DETACH_STATUS, "detach"},
        {WIRE_GC_FINISHED, "gc"},
        {WIRE_RUNTIME_SUSPEND, "suspension"},
        {WIRE_STACK_END, "stack_snapshot"},
        {WIRE_PROFILE_STATUS, "profile"},
        {LOGREC_RESUMED, "resumed"},
        {WIRE_EXCEPTION, "exception"},
        {WIRE_ALLOCATION, "allocation_second"},
    };
    unsigned t, n = 0, i;

    for (i = 0; i < sizeof(events) / sizeof(events[0]); i++)
        CHECK(strcmp(record_kind_event_name(events[i].type), events[i].name) == 0, "%s: %s",
              record_kind_of(events[i].type)->name, record_kind_event_name(events[i].type));
    for (t = 0; t <= UINT16_MAX; t++)
        n += record_kind_of((uint16_t)t) && record_kind_of((uint16_t)t)->event;
    CHECK(n == sizeof(events) / sizeof(events[0]), "no other kind logs an event (%u do)", n);
    CHECK(strcmp(record_kind_event_name(WIRE_JIT_STARTED), "other") == 0 &&
              strcmp(record_kind_event_name(999), "other") == 0,
          "other");
}

/* An event's JSON: the common fields and its kind's own, from its row. */
TEST(event_json_through_the_row)
{
    session *s = rec_live_session(1);
    const char *name = "App.Program::Main()";
    json_t *j;
    const eventlog_entry *e;

    rec_apply(s, rec_function_name(0x1000, 0x2000, name, 0));
    rec_apply(s, rec_jit_finished(0x1000, 0, 0x7000, 64, REC_MONO + 2, 0));
    e = eventlog_at(&s->events, s->events.last_seq);
    CHECK(e && e->type == WIRE_JIT_FINISHED, "a jit event");
    j = e ? view_event(s, e) : NULL;
    CHECK(j && strcmp(json_string_value(json_object_get(j, "type")), "jit") == 0 &&
              strcmp(json_string_value(json_object_get(j, "name")), name) == 0 &&
              json_integer_value(json_object_get(j, "native_size")) == 64 &&
              json_object_get(j, "seq") && json_object_get(j, "tier"),
          "type, the common fields and the kind's own");
    json_decref(j);
    session_free(s);
}

/* A record of a kind no agent may send is refused whole before anything is
 * counted; the session goes on as it was. */
TEST(unknown_kind_refused)
{
    static const uint16_t refused[] = {0,
                                       WIRE_RECORD_TYPE_MAX + 1,
                                       99,
                                       WIRE_CMD_DETACH,
                                       LOGREC_RESUMED,
                                       LOGREC_REFUSED,
                                       210,
                                       UINT16_MAX};
    session *s = rec_live_session(1);
    uint64_t records = s->records, last_seq = s->last_seq, refused_count = s->records_refused;
    unsigned i;

    for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        wire_record r = rec_empty(refused[i], REC_MONO + 1);
        const char *why = NULL;
        r.seq = s->last_seq + 1;
        CHECK(session_apply(s, &r, REC_NOW, &why) == -1 && why &&
                  strcmp(why, "record type not valid from an agent") == 0,
              "type %u refused: %s", refused[i], why ? why : "(no reason)");
    }
    CHECK(s->records == records && s->last_seq == last_seq && s->records_refused == refused_count,
          "nothing counted, the sequence as it was");
    CHECK(rec_apply(s, rec_jit_finished(0x1000, 0, 0x7000, 64, REC_MONO + 2, 0)) == 0 &&
              s->last_seq == last_seq + 1,
          "the next record is taken");
    session_free(s);
}

TEST(replay_and_server_records_only_of_their_kinds)
{
    session *s = rec_live_session(1);
    wire_record r = rec_jit_finished(0x1000, 0, 0x7000, 64, REC_MONO + 2, 0);
    uint32_t hz = 100;

    CHECK(session_replay(s, &r, REC_NOW) == -1, "a JIT is not an observation: not replayed");
    r = rec_empty(WIRE_RECORD_TYPE_MAX + 1, REC_MONO);
    CHECK(session_replay(s, &r, REC_NOW) == -1, "nor an unknown type");
    r = rec_gc_started(1, 0, REC_MONO + 5);
    CHECK(session_replay(s, &r, REC_NOW) == 0 && s->timeline.gc_open, "an observation is");
    CHECK(session_apply_server(s, WIRE_HELLO, NULL, 0, REC_NOW) == -1 &&
              session_apply_server(s, 210, NULL, 0, REC_NOW) == -1 &&
              session_apply_server(s, LOGREC_LAST + 1, NULL, 0, REC_NOW) == -1,
          "a server record of no server kind is not read back");
    CHECK(session_apply_server(s, LOGREC_PROFILE_START, (const uint8_t *)&hz, sizeof(hz),
                               REC_NOW) == 0 &&
              s->profile.state == PROFILE_RUNNING,
          "one of the server's kinds is");
    CHECK(session_apply_server(s, LOGREC_PROFILE_START, (const uint8_t *)&hz, 2, REC_NOW) == -1,
          "its fold checks its payload");
    session_free(s);
}

static const check_test tests[] = {
    TEST_ENTRY(every_wire_kind_has_one_row),
    TEST_ENTRY(rows_name_their_kind),
    TEST_ENTRY(rows_agree_with_what_the_code_does),
    TEST_ENTRY(observations_are_what_storage_keeps),
    TEST_ENTRY(event_names_are_the_apis),
    TEST_ENTRY(event_json_through_the_row),
    TEST_ENTRY(unknown_kind_refused),
    TEST_ENTRY(replay_and_server_records_only_of_their_kinds),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
