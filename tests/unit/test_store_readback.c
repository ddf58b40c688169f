/* test_store_readback.c -- unit tests of sessions read back from storage
 * (server/persist.c, server/store*.c): folded from hand-made records through
 * the link's path, read back by a second open, they serve the same views, an
 * ended one from its snapshot and one left live from its log (interrupted);
 * the records refused live are counted the same read back; the rows of
 * threads whose ThreadIDs the runtime reused; what was committed survives a
 * process that dies without closing; --keep and --keep-events.
 *
 * The storage fixture (a directory per test, sessions folded from hand-made
 * records and read back) is storefix.h's.
 * Build: make build/tests/test_store_readback && build/tests/test_store_readback
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "budget.h"
#include "check.h"
#include "records.h"
#include "persist.h"
#include "sessions.h"
#include "storefix.h"

TEST(read_back_serves_the_same)
{
    char err[512], *ended_before, *live_before, *ended_after, *live_after;
    session *a, *b;
    int ida, idb;

    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "open: %s", err);
    sessions_lock();
    ended_before = ended_and_live(3000, 200, SESSION_MODE_ATTACH, 500, &a, &b);
    ida = a->id, idb = b->id;
    live_before = content(b);
    sessions_unlock();
    persist_sweep(); /* header rows; the ended session's snapshot */
    CHECK(wait_synced(ida) && wait_synced(idb), "storage caught up");
    CHECK(
        count_rows_of(storefix_dir, "SELECT count(*) FROM snapshots WHERE session_id = %d", ida) >=
                1 &&
            count_rows_of(storefix_dir, "SELECT count(*) FROM log WHERE session_id = %d", ida) == 0,
        "the ended session is a snapshot, its log compacted away");
    CHECK(count_rows_of(storefix_dir, "SELECT count(*) FROM log WHERE session_id = %d", idb) >= 1 &&
              count_rows_of(storefix_dir, "SELECT count(*) FROM snapshots WHERE session_id = %d",
                            idb) == 0,
          "the live one is its log");
    CHECK(count_rows_of(storefix_dir,
                        "SELECT sum(length(bytes)) FROM snapshots WHERE session_id = %d",
                        ida) < 3000 * 100,
          "under 100 bytes a function on disk, names included (%lld for 3000)",
          count_rows_of(storefix_dir,
                        "SELECT sum(length(bytes)) FROM snapshots WHERE session_id = %d", ida));
    close_store();

    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "opened again: %s", err);
    sessions_lock();
    CHECK(sessions_count() == 2 && !sessions_get(ida)->persist.loaded &&
              sessions_get(ida)->state == SESSION_EXITED &&
              sessions_get(idb)->state == SESSION_INTERRUPTED,
          "listed without their content: one exited, the live one interrupted");
    sessions_unlock();
    ended_after = content_of(ida);
    live_after = content_of(idb);
    CHECK(same_text(ended_before, ended_after), "the ended session serves the same (snapshot)");
    CHECK(same_text(live_before, live_after),
          "the live one serves the same (its log folded again)");
    sessions_lock();
    CHECK(sessions_get(idb)->persist.load_error[0] == '\0' &&
              sessions_get(idb)->threads[0].alive == 0,
          "no load error; its threads are not alive any more");
    sessions_unlock();
    free(ended_before), free(live_before), free(ended_after), free(live_after);
    close_store();
}

/* Records refused (over the memory budget, or inconsistent) are not in the
 * log; what they moved is (LOGREC_REFUSED before the next record taken), and
 * a snapshot keeps it (SNAPSHOT_REFUSED): read back, from the log or from the
 * snapshot, the session counts the same. */
TEST(refusals_survive_read_back)
{
    static char big[4001]; /* a 4,000-byte name and its NUL */
    char err[512], name[64];
    session *s[2];
    uint64_t before[2][5];
    int id[2], k, refused;
    unsigned i;

    memset(big, 'x', sizeof(big) - 1);
    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "open: %s", err);
    budget_set_max(64ull << 20);
    sessions_lock();
    for (k = 0; k < 2; k++) {
        s[k] = new_session(SESSION_MODE_RUN, 4242 + k, "dotnet hog.dll");
        id[k] = s[k]->id;
        session_budget_connected(s[k], 1); /* as link.c binds it: it shares the budget */
        for (i = 0, refused = 0; i < 20000 && !refused; i++) {
            snprintf(name, sizeof(name), "Hog%d.Method%u", k, i);
            memcpy(big, name, strlen(name));
            refused = rec_feed(s[k], rec_function_name(0x7f0000300000ull +
                                                           (uint64_t)k * 0x10000000 + i * 16,
                                                       MID, big, 0)) == SESSION_REFUSED;
        }
        rec_feed(s[k], rec_function_name(0x7f0000300000ull + 8, MID, big, 0)); /* refused too */
        {
            wire_record d = rec_drops((wire_drops){0}, REC_MONO + 5);
            d.u.drops.dropped[WIRE_DROP_SLOW_SERVER] = 1; /* not the 3 gaps: inconsistent */
            CHECK(rec_feed_seq(s[k], d, s[k]->last_seq + 4) == SESSION_REFUSED,
                  "session %d: after three numbers the agent dropped, an inconsistent DROPS", k);
            d.u.drops.dropped[WIRE_DROP_SLOW_SERVER] = 3;
            CHECK(rec_feed(s[k], d) == 0, "session %d: a possible one is taken", k);
        }
        before[k][0] = s[k]->records, before[k][1] = s[k]->seq_gaps;
        before[k][2] = s[k]->last_seq, before[k][3] = s[k]->records_refused;
        before[k][4] = s[k]->budget.refused_records;
        CHECK(i > 100 && s[k]->records_refused == 1 && s[k]->budget.refused_records == 2 &&
                  s[k]->seq_gaps == 3,
              "session %d: %u names taken, 2 refused for room, 1 inconsistent", k, i);
    }
    end_session(s[0]); /* the first ends: a snapshot; the second stays live: its log */
    sessions_unlock();
    persist_sweep();
    CHECK(wait_synced(id[0]) && wait_synced(id[1]), "storage caught up");
    persist_sweep(); /* the snapshot, had it waited for the writer (the budget is spent) */
    CHECK(wait_synced(id[0]), "the snapshot committed");
    CHECK(count_rows_of(storefix_dir, "SELECT count(*) FROM snapshots WHERE session_id = %d",
                        id[0]) >= 1,
          "the ended one is a snapshot");
    close_store();
    budget_set_max(0);

    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "opened again: %s", err);
    for (k = 0; k < 2; k++) {
        session *back;
        persist_prepare(id[k]);
        sessions_lock();
        back = sessions_get(id[k]);
        CHECK(back && back->persist.load_error[0] == '\0' && back->records == before[k][0] &&
                  back->seq_gaps == before[k][1] && back->last_seq == before[k][2] &&
                  back->records_refused == before[k][3] &&
                  back->budget.refused_records == before[k][4] &&
                  back->budget.refused[SESSION_REFUSED_FUNCTIONS] == 2,
              "%s read back counts the same: records %llu, gaps %llu, refused %llu + %llu (%s)",
              k == 0 ? "from its snapshot" : "from its log",
              back ? (unsigned long long)back->records : 0,
              back ? (unsigned long long)back->seq_gaps : 0,
              back ? (unsigned long long)back->records_refused : 0,
              back ? (unsigned long long)back->budget.refused_records : 0,
              back ? back->persist.load_error : "?");
        sessions_unlock();
    }
    close_store();
}

/* The runtime reuses ThreadIDs: each thread is a row, and a function, a
 * thread event and a stack walk name their row, also when read back, from a
 * snapshot (an ended session) and from a log (a live one). */
TEST(thread_rows_read_back)
{
    char err[512];
    session *a, *b;
    int ida, idb;

    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "open: %s", err);
    sessions_lock();
    a = new_session(SESSION_MODE_RUN, 4242, "dotnet threads.dll");
    b = new_session(SESSION_MODE_ATTACH, 4343, "dotnet threads-live.dll");
    ida = a->id, idb = b->id;
    rec_feed(a, rec_module_loaded(MID, "/app/App.dll", "App", 0, REC_MONO + 2));
    rec_feed(b, rec_module_loaded(MID, "/app/App.dll", "App", 0, REC_MONO + 2));
    three_threads_on_one_id(a);
    three_threads_on_one_id(b);
    CHECK(three_threads_read_back(a) && three_threads_read_back(b), "as folded live");
    end_session(a);
    sessions_unlock();
    persist_sweep();
    CHECK(wait_synced(ida) && wait_synced(idb), "storage caught up");
    close_store();

    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "opened again: %s", err);
    persist_prepare(ida);
    persist_prepare(idb);
    sessions_lock();
    CHECK(sessions_get(ida) && three_threads_read_back(sessions_get(ida)),
          "from its snapshot: three rows, each function, event and the walk on its own");
    CHECK(sessions_get(idb) && three_threads_read_back(sessions_get(idb)),
          "from its log: the same");
    sessions_unlock();
    close_store();
}

TEST(committed_survives_a_crash)
{
    char err[512];
    pid_t child;
    int status = -1, functions = -1, id;

    fflush(stdout);
    child = fork();
    if (child == 0) { /* a server that dies without closing, once its log is committed */
        if (open_store(storefix_dir, err, sizeof(err)) != 0)
            _exit(2);
        _exit(wait_synced(stored_session("dotnet app.dll", 1000, 0)) ? 0 : 3);
    }
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the first server committed and died");
    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "a second one opens the directory: %s",
          err);
    sessions_lock();
    id = sessions_count() == 1 ? sessions_at(0)->id : 0; /* the one the first server made */
    sessions_unlock();
    persist_prepare(id);
    sessions_lock();
    if (sessions_get(id))
        functions = (int)sessions_get(id)->functions_jitted;
    CHECK(functions == 1000 && sessions_get(id)->state == SESSION_INTERRUPTED &&
              sessions_get(id)->persist.load_error[0] == '\0',
          "every function committed is served (%d), the session interrupted", functions);
    sessions_unlock();
    close_store();
}

TEST(keep_and_keep_events)
{
    char err[512];
    session *s;
    int i, ids[4];

    storefix_compact_min = 0; /* the default bound: the newest's log is short, its events are many */
    CHECK(open_with(storefix_dir, 2, 1000, 0, err, sizeof(err)) == 0,
          "open with --keep 2 --keep-events 1000");
    for (i = 0; i < 4; i++) {
        sessions_lock();
        s = new_session(SESSION_MODE_RUN, 100 + i, "dotnet app.dll");
        ids[i] = s->id;
        jit_functions(s, i == 3 ? 3000 : 10, 0, 0x7f0000300000ull);
        end_session(s);
        sessions_unlock();
        persist_sweep();
    }
    sessions_lock();
    CHECK(sessions_count() == 2 && sessions_get(ids[2]) && sessions_get(ids[3]),
          "the two newest stay");
    sessions_unlock();
    /* the newest one's snapshot and the oldest two's deletions, each committed */
    CHECK(wait_synced(ids[0]) && wait_synced(ids[1]) && wait_synced(ids[3]) &&
              count_rows(storefix_dir, "SELECT count(*) FROM sessions") == 2 &&
              count_rows_of(storefix_dir, "SELECT count(*) FROM log WHERE session_id < %d",
                            ids[2]) == 0 &&
              count_rows_of(storefix_dir, "SELECT count(*) FROM snapshots WHERE session_id < %d",
                            ids[2]) == 0,
          "the two oldest are deleted from the file too");
    CHECK(count_rows_of(storefix_dir, "SELECT count(*) FROM snapshots WHERE session_id = %d",
                        ids[3]) >= 1,
          "a log of more events than --keep-events is compacted, however short");
    close_store();
    CHECK(open_with(storefix_dir, 2, 1000, 0, err, sizeof(err)) == 0, "opened again");
    persist_prepare(ids[3]);
    sessions_lock();
    s = sessions_get(ids[3]);
    CHECK(s && s->functions_jitted == 3000 && s->events.evicted == s->events.last_seq - 1000 &&
              eventlog_at(&s->events, s->events.last_seq) &&
              !eventlog_at(&s->events, s->events.last_seq - 1000),
          "its functions all back, the newest 1000 of its %llu events",
          s ? (unsigned long long)s->events.last_seq : 0ull);
    sessions_unlock();
    close_store();
}

static const check_test tests[] = {
    TEST_ENTRY(read_back_serves_the_same), TEST_ENTRY(refusals_survive_read_back),
    TEST_ENTRY(thread_rows_read_back),     TEST_ENTRY(committed_survives_a_crash),
    TEST_ENTRY(keep_and_keep_events),      TEST_END,
};

/* Each test has a directory of its own for storage, removed after it with
 * whatever the test left open. */
static void setup(void) { CHECK(storefix_setup() == 0, "a directory for storage"); }

int main(int argc, char **argv)
{
    return check_main_each(argc, argv, tests, setup, storefix_teardown);
}
