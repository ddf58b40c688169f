/* test_store.c -- unit tests for storage (server/store*.c) and the sessions'
 * side of it (server/persist.c): each session kept as the log of what its
 * agent sent, folded again when read back.
 *
 * Sessions folded from hand-made records (through the same path as the
 * link's: framed, decoded, folded, logged) are read back by a second open
 * and serve the same views: an ended one from its snapshot, one left live
 * from its log (interrupted); what was committed survives a process that
 * dies without closing; --keep and --keep-events; a journal too small for
 * the load breaks the log (the read stops there and says so) until a
 * snapshot heals it; a disk that fills up (RLIMIT_FSIZE) is retried and
 * nothing is lost; an ended session leaves memory and comes back; a damaged
 * chunk ends the read with what came before it served; an idle session
 * writes nothing; a version 1 file is converted; corrupt, foreign, newer and
 * locked files are refused.
 * Build: make build/tests/test_store && build/tests/test_store
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>
#include <zstd.h>

#include "budget.h"
#include "check.h"
#include "fixtures.h"
#include "records.h"
#include "session_header.h"
#include "sessions.h"
#include "store.h"
#include "store_db.h"
#include "views.h"

#define MID 0x7f0000200000ull

static char g_dir[64]; /* the running test's storage directory (setup) */
/* open_with's compaction bound: 1 (setup) compacts every ended session, what
 * most tests here are about; 0 is the server's default (PERSIST_COMPACT_MIN) */
static size_t g_compact_min;

static void remove_dir(const char *dir)
{
    static const char *const files[] = {"jitscope.db", "jitscope.db-wal", "jitscope.db-shm",
                                        "jitscope.lock"};
    char path[600];
    size_t i;

    for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

static int open_with(const char *dir, unsigned keep, unsigned keep_events, size_t journal,
                     char *err, size_t size)
{
    persist_options o = {.dir = dir,
                         .keep = keep,
                         .keep_events = keep_events,
                         .journal_max = journal,
                         .unload_ms = 1,
                         .compact_min = g_compact_min};
    return persist_open(&o, err, size);
}

static int open_store(const char *dir, char *err, size_t size)
{
    return open_with(dir, 0, 0, 0, err, size);
}

/* As a server stops: the last word, then every session forgotten (the next
 * open reads them back from the file). */
static void close_store(void)
{
    persist_close();
    sessions_lock();
    sessions_free_all();
    sessions_unlock();
}

/* Waits (at most 20 s) until storage has committed all it was given for id. */
static int wait_synced(int id)
{
    int i;

    for (i = 0; i < 2000; i++) {
        if (store_synced(id))
            return 1;
        usleep(10000);
    }
    return 0;
}

/* A new session, its hello folded and logged. Caller holds the lock. */
static session *new_session(int mode, pid_t pid, const char *command)
{
    session *s = sessions_create(mode, pid, command);

    if (s)
        rec_feed(s, rec_hello(s->token));
    return s;
}

/* n functions named and JITed in s, the first `rejits` compiled twice. */
static void jit_functions(session *s, unsigned n, unsigned rejits, uint64_t base)
{
    char text[64];
    unsigned i;

    rec_feed(s, rec_module_loaded(MID, "/app/App.dll", "App", 0, REC_MONO + 2));
    rec_feed(s, rec_thread(WIRE_THREAD_CREATED, 0x1000, 1234, 0, NULL, REC_MONO + 3));
    rec_feed(s, rec_thread(WIRE_THREAD_NAME, 0x1000, 0, 0, "worker", REC_MONO + 4));
    for (i = 0; i < n; i++) {
        uint64_t fid = base + i * 16;
        snprintf(text, sizeof(text), "App.Type%u.Method%u(int)", i % 13, i);
        rec_feed(s, rec_function_name(fid, MID, text, 0));
        rec_feed(s, rec_jit_started(fid, 0x1000, REC_MONO + 100 + i * 10));
        rec_feed(s, rec_jit_finished(fid, 0x1000, 0x7f0000900000ull + i * 64, 64,
                                     REC_MONO + 105 + i * 10, 0));
    }
    for (i = 0; i < rejits && i < n; i++) {
        uint64_t fid = base + i * 16;
        rec_feed(s, rec_jit_started(fid, 0x1000, REC_MONO + 900000 + i * 10));
        rec_feed(s, rec_jit_finished(fid, 0x1000, 0x7f0000a00000ull + i * 64, 96,
                                     REC_MONO + 900007 + i * 10, 0));
    }
}

/* A new session of `functions` functions (jit_functions), its records handed
 * to storage; its id. */
static int stored_session(const char *command, unsigned functions, unsigned rejits)
{
    session *s;
    int id;

    sessions_lock();
    s = new_session(SESSION_MODE_RUN, 4242, command);
    id = s ? s->id : -1;
    if (s)
        jit_functions(s, functions, rejits, 0x7f0000300000ull);
    sessions_unlock();
    return id;
}

/* The session ends as a launched app does: exit code, link lost. Lock held. */
static void end_session(session *s)
{
    session_exit_code(s, 0, 0, REC_NOW + 1000);
    session_link_lost(s, REC_NOW + 1000);
}

/* What the views serve of s's content (its own fields left out), as JSON text. */
static char *content(session *s)
{
    json_t *all = fixture_views(s), *detail = view_session_detail(s);
    char *text;

    json_object_del(all, "threads"); /* a session read back is not live: none of its threads is */
    json_object_set(all, "counters", json_object_get(detail, "counters"));
    json_object_del(json_object_get(all, "counters"), "threads_alive");
    json_object_set(all, "drops", json_object_get(detail, "drops"));
    json_decref(detail);
    text = json_dumps(all, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(all);
    return text;
}

/* A session made by stored_session, then ended; its content as served before
 * storage touched it (in *s the session). */
static char *stored_and_ended(unsigned functions, unsigned rejits, session **s)
{
    char *before;
    int id = stored_session("dotnet app.dll", functions, rejits);

    sessions_lock();
    *s = sessions_get(id);
    end_session(*s);
    before = content(*s);
    sessions_unlock();
    return before;
}

/* An ended session of `functions` functions (`rejits` of them compiled again)
 * beside a live one of `live_functions`, made in the registry; the ended
 * one's content as served before storage touched it. Lock held. */
static char *ended_and_live(unsigned functions, unsigned rejits, int live_mode,
                            unsigned live_functions, session **ended, session **live)
{
    *ended = new_session(SESSION_MODE_RUN, 4242, "dotnet app.dll");
    *live = new_session(live_mode, 4343, "dotnet live.dll");
    jit_functions(*ended, functions, rejits, 0x7f0000300000ull);
    jit_functions(*live, live_functions, 0, 0x7f0000800000ull);
    end_session(*ended);
    return content(*ended);
}

static char *content_of(int id)
{
    char *text;

    persist_prepare(id);
    sessions_lock();
    text = sessions_get(id) ? content(sessions_get(id)) : NULL;
    sessions_unlock();
    return text;
}

static int same_text(const char *a, const char *b)
{
    size_t i = 0;

    if (!a || !b)
        return 0;
    if (strcmp(a, b) == 0)
        return 1;
    while (a[i] && a[i] == b[i])
        i++;
    printf("    first difference at %zu:\n    before ...%.120s\n    after  ...%.120s\n", i,
           a + (i > 40 ? i - 40 : 0), b + (i > 40 ? i - 40 : 0));
    return 0;
}

/* One number a query of the database file in `dir` answers, or -1. */
static long long count_rows(const char *dir, const char *sql)
{
    char path[128];
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long long n = -1;

    snprintf(path, sizeof(path), "%s/jitscope.db", dir);
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

/* count_rows with the session's id put into sql (one %d). */
static long long count_rows_of(const char *dir, const char *sql, int id)
{
    char text[256];

    snprintf(text, sizeof(text), sql, id);
    return count_rows(dir, text);
}

static int exec_sql(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open(path, &db) == SQLITE_OK &&
                     sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK
                 ? 0
                 : -1;
    sqlite3_close(db);
    return rc;
}

TEST(read_back_serves_the_same)
{
    char err[512], *ended_before, *live_before, *ended_after, *live_after;
    session *a, *b;
    int ida, idb;

    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "open: %s", err);
    sessions_lock();
    ended_before = ended_and_live(3000, 200, SESSION_MODE_ATTACH, 500, &a, &b);
    ida = a->id, idb = b->id;
    live_before = content(b);
    sessions_unlock();
    persist_sweep(); /* header rows; the ended session's snapshot */
    CHECK(wait_synced(ida) && wait_synced(idb), "storage caught up");
    CHECK(count_rows_of(g_dir, "SELECT count(*) FROM snapshots WHERE session_id = %d", ida) >= 1 &&
              count_rows_of(g_dir, "SELECT count(*) FROM log WHERE session_id = %d", ida) == 0,
          "the ended session is a snapshot, its log compacted away");
    CHECK(count_rows_of(g_dir, "SELECT count(*) FROM log WHERE session_id = %d", idb) >= 1 &&
              count_rows_of(g_dir, "SELECT count(*) FROM snapshots WHERE session_id = %d", idb) ==
                  0,
          "the live one is its log");
    CHECK(count_rows_of(g_dir, "SELECT sum(length(bytes)) FROM snapshots WHERE session_id = %d",
                        ida) < 3000 * 100,
          "under 100 bytes a function on disk, names included (%lld for 3000)",
          count_rows_of(g_dir, "SELECT sum(length(bytes)) FROM snapshots WHERE session_id = %d",
                        ida));
    close_store();

    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "opened again: %s", err);
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
    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "open: %s", err);
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
    CHECK(count_rows_of(g_dir, "SELECT count(*) FROM snapshots WHERE session_id = %d", id[0]) >= 1,
          "the ended one is a snapshot");
    close_store();
    budget_set_max(0);

    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "opened again: %s", err);
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

/* Three threads, one after another, on ThreadID 0x1000 (the runtime reuses
 * them), each named before it starts and compiling one method; a stack
 * snapshot while the second runs. Lock held. */
static void three_threads_on_one_id(session *s)
{
    static const wire_stack_frame frames[1] = {{0x7f0000300010ull, 0x10}};
    static const char *const names[3] = {"first", "second", "third"};
    static const char *const methods[3] = {"T.A()", "T.B()", "T.C()"};
    uint32_t k;

    for (k = 0; k < 3; k++) {
        uint64_t t = REC_MONO + 1000 * (k + 1), fid = 0x7f0000300000ull + k * 16;
        rec_feed(s, rec_thread(WIRE_THREAD_NAME, 0x1000, 0, 0, names[k], t));
        rec_feed(s, rec_thread(WIRE_THREAD_CREATED, 0x1000, 5000 + k, 0, NULL, t + 1));
        rec_feed(s, rec_function_name(fid, MID, methods[k], 0));
        rec_feed(s, rec_jit_started(fid, 0x1000, t + 2));
        rec_feed(s, rec_jit_finished(fid, 0x1000, 0x7f0000900000ull + k * 64, 64, t + 3, 0));
        if (k == 1) {
            rec_feed(s, rec_stack_thread((wire_stack_thread){1, 0x1000, 5001, 0, 100, 1, 0}, frames,
                                         t + 4));
            rec_feed(
                s, rec_stack_end((wire_stack_end){1, 1, WIRE_STACK_SNAPSHOT, 1, 1, 0, 0, 0, 10, 10},
                                 t + 4));
        }
        rec_feed(s, rec_thread(WIRE_THREAD_DESTROYED, 0x1000, 5000 + k, 0, NULL, t + 5));
    }
}

/* What a session read back must say of those three threads; 1 when it does. */
static int three_threads_read_back(session *s)
{
    static const char *const names[3] = {"first", "second", "third"};
    const stacks_walk *w = stacks_by_id(&s->stacks, 1);
    uint64_t seq;
    uint32_t k;
    int ok = s->thread_count == 3 && w && w->thread_count == 1 && w->threads[0].thread_row == 2;

    for (k = 0; ok && k < 3; k++) {
        const session_function *f = session_find_function(s, 0x7f0000300000ull + k * 16);
        ok = s->threads[k].os_thread_id == 5000 + k && s->threads[k].name &&
             strcmp(s->threads[k].name, names[k]) == 0 && f && f->thread_row == k + 1 &&
             session_thread_match(s, 0x1000, 5000 + k) == &s->threads[k];
    }
    for (seq = eventlog_first_seq(&s->events); ok && seq <= s->events.last_seq; seq++) {
        const eventlog_entry *e = eventlog_at(&s->events, seq);
        if (e->type == WIRE_THREAD_CREATED || e->type == WIRE_THREAD_DESTROYED)
            ok = e->extra >= 1 && e->extra <= 3 &&
                 s->threads[e->extra - 1].os_thread_id == e->value;
    }
    return ok;
}

/* The runtime reuses ThreadIDs: each thread is a row, and a function, a
 * thread event and a stack walk name their row, also when read back, from a
 * snapshot (an ended session) and from a log (a live one). */
TEST(thread_rows_read_back)
{
    char err[512];
    session *a, *b;
    int ida, idb;

    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "open: %s", err);
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

    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "opened again: %s", err);
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

/* A file of version 4 (snapshot parts without `kind`: part 0 the state, the
 * others observations) opens at this version and serves what it stored. */
TEST(a_version_4_file_is_migrated)
{
    char err[512], path[128];
    session *s;
    int id;

    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "open: %s", err);
    sessions_lock();
    s = new_session(SESSION_MODE_RUN, 4242, "dotnet threads.dll");
    id = s->id;
    rec_feed(s, rec_module_loaded(MID, "/app/App.dll", "App", 0, REC_MONO + 2));
    three_threads_on_one_id(s); /* a stack walk: an observation beside the snapshot */
    end_session(s);
    sessions_unlock();
    persist_sweep();
    CHECK(wait_synced(id), "its snapshot committed");
    close_store();
    CHECK(count_rows_of(g_dir, "SELECT count(*) FROM snapshots WHERE session_id = %d AND kind = 1",
                        id) >= 1,
          "the snapshot has an observation part");
    snprintf(path, sizeof(path), "%s/jitscope.db", g_dir);
    CHECK(exec_sql(path,
                   "ALTER TABLE snapshots DROP COLUMN kind; ALTER TABLE log DROP COLUMN codec;"
                   " ALTER TABLE log DROP COLUMN raw_bytes; PRAGMA user_version = 4;") == 0,
          "made a version 4 file");

    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "the version 4 file opens: %s", err);
    CHECK(count_rows(g_dir, "PRAGMA user_version") == STORE_SCHEMA_VERSION,
          "migrated to version %d", STORE_SCHEMA_VERSION);
    persist_prepare(id);
    sessions_lock();
    s = sessions_get(id);
    CHECK(s && s->persist.load_error[0] == '\0' && three_threads_read_back(s),
          "read back whole: threads, functions and the stack walk (%s)",
          s ? s->persist.load_error : "no session");
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
        if (open_store(g_dir, err, sizeof(err)) != 0)
            _exit(2);
        _exit(wait_synced(stored_session("dotnet app.dll", 1000, 0)) ? 0 : 3);
    }
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the first server committed and died");
    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "a second one opens the directory: %s", err);
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

    g_compact_min = 0; /* the default bound: the newest's log is short, its events are many */
    CHECK(open_with(g_dir, 2, 1000, 0, err, sizeof(err)) == 0,
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
              count_rows(g_dir, "SELECT count(*) FROM sessions") == 2 &&
              count_rows_of(g_dir, "SELECT count(*) FROM log WHERE session_id < %d", ids[2]) == 0 &&
              count_rows_of(g_dir, "SELECT count(*) FROM snapshots WHERE session_id < %d",
                            ids[2]) == 0,
          "the two oldest are deleted from the file too");
    CHECK(count_rows_of(g_dir, "SELECT count(*) FROM snapshots WHERE session_id = %d", ids[3]) >= 1,
          "a log of more events than --keep-events is compacted, however short");
    close_store();
    CHECK(open_with(g_dir, 2, 1000, 0, err, sizeof(err)) == 0, "opened again");
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

/* With the default bound (PERSIST_COMPACT_MIN) a short ended session is not
 * compacted: no snapshot is written, its log stays, compressed, under 100
 * bytes a function on disk; it leaves memory and comes back the same from
 * its log, and so after a restart. */
TEST(a_short_ended_session_stays_its_log)
{
    char err[512], *before, *after;
    session *s;
    long long stored, raw;
    int id;

    g_compact_min = 0;
    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "open (unload after 1 ms): %s", err);
    before = stored_and_ended(3000, 200, &s);
    id = s->id;
    persist_sweep(); /* its header: ended */
    CHECK(wait_synced(id), "its log and header committed");
    sessions_lock();
    CHECK(s->persist.snapshotted && s->persist.snapshot_bytes == 0, "settled without a snapshot");
    sessions_unlock();
    stored = count_rows_of(g_dir, "SELECT sum(length(bytes)) FROM log WHERE session_id = %d", id);
    raw = count_rows_of(g_dir, "SELECT sum(raw_bytes) FROM log WHERE session_id = %d", id);
    CHECK(count_rows_of(g_dir, "SELECT count(*) FROM snapshots WHERE session_id = %d", id) == 0 &&
              count_rows_of(g_dir, "SELECT count(*) FROM log WHERE session_id = %d AND codec = 1",
                            id) >= 1,
          "no snapshot; its log compressed");
    CHECK(stored > 0 && stored * 3 < raw && stored < 3000 * 100,
          "under 100 bytes a function, names included, a third of what came or less (%lld of %lld)",
          stored, raw);
    usleep(2000);
    persist_sweep(); /* nobody asked for it since */
    sessions_lock();
    CHECK(!sessions_get(id)->persist.loaded, "its content left memory");
    sessions_unlock();
    after = content_of(id);
    CHECK(same_text(before, after), "read back from its log when asked: the same");
    free(after);
    close_store();
    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "opened again: %s", err);
    after = content_of(id);
    sessions_lock();
    CHECK(same_text(before, after) && sessions_get(id)->persist.load_error[0] == '\0',
          "and after a restart, without a load error");
    sessions_unlock();
    free(before), free(after);
    close_store();
}

/* An ended session whose log passed the bound is compacted; one under it is
 * not; both read back the same. */
TEST(a_long_ended_log_is_compacted)
{
    char err[512], *before[2], *after[2];
    int id[2], k;

    g_compact_min = 200 * 1024; /* about 1,000 of these functions' records */
    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "open: %s", err);
    id[0] = stored_session("dotnet short.dll", 100, 0);
    id[1] = stored_session("dotnet long.dll", 3000, 0);
    sessions_lock();
    for (k = 0; k < 2; k++) {
        end_session(sessions_get(id[k]));
        before[k] = content(sessions_get(id[k]));
    }
    sessions_unlock();
    persist_sweep();
    CHECK(wait_synced(id[0]) && wait_synced(id[1]), "committed");
    CHECK(count_rows_of(g_dir, "SELECT count(*) FROM snapshots WHERE session_id = %d", id[0]) == 0,
          "the short log stays a log");
    CHECK(count_rows_of(g_dir, "SELECT count(*) FROM snapshots WHERE session_id = %d", id[1]) >=
                  1 &&
              count_rows_of(g_dir, "SELECT count(*) FROM log WHERE session_id = %d", id[1]) == 0,
          "the long one is a snapshot, its log compacted away");
    close_store();
    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "opened again: %s", err);
    for (k = 0; k < 2; k++) {
        after[k] = content_of(id[k]);
        CHECK(same_text(before[k], after[k]), "session %d reads back the same", id[k]);
        free(before[k]), free(after[k]);
    }
    close_store();
}

/* A new file is made at the newest version at once (store_schema_new): its
 * tables must be what the migrations make of an old file, column by column. */
static char *table_columns(const char *path, const char *table)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    char sql[96], *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);

    snprintf(sql, sizeof(sql), "PRAGMA table_info(%s)", table);
    if (out && sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK)
        while (sqlite3_step(st) == SQLITE_ROW)
            fprintf(out, "%s %s notnull=%d default=%s pk=%d;", sqlite3_column_text(st, 1),
                    sqlite3_column_text(st, 2), sqlite3_column_int(st, 3),
                    sqlite3_column_text(st, 4) ? (const char *)sqlite3_column_text(st, 4) : "-",
                    sqlite3_column_int(st, 5));
    sqlite3_finalize(st);
    sqlite3_close(db);
    if (out)
        fclose(out);
    return text;
}

TEST(schema_new_is_the_migrated_schema)
{
    static const char *const tables[] = {"sessions", "log", "snapshots"};
    char err[512], fresh[128], migrated[128];
    sqlite3 *db = NULL;
    size_t i;

    snprintf(fresh, sizeof(fresh), "%s/jitscope.db", g_dir);
    snprintf(migrated, sizeof(migrated), "%s/migrated.db", g_dir);
    CHECK(store_schema_open(fresh, STORE_SCHEMA_VERSION, &db, err, sizeof(err)) == 0,
          "a new file: %s", err);
    sqlite3_close(db);
    CHECK(store_schema_open(migrated, STORE_SCHEMA_VERSION - 1, &db, err, sizeof(err)) == 0,
          "a file of the version before, migration by migration: %s", err);
    sqlite3_close(db);
    CHECK(store_schema_open(migrated, STORE_SCHEMA_VERSION, &db, err, sizeof(err)) == 0,
          "migrated to the newest: %s", err);
    sqlite3_close(db);
    for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
        char *a = table_columns(fresh, tables[i]), *b = table_columns(migrated, tables[i]);
        CHECK(a && b && a[0] && same_text(a, b), "table %s: the same columns", tables[i]);
        free(a), free(b);
    }
    CHECK(count_rows(g_dir, "SELECT count(*) FROM sqlite_master WHERE type = 'table'") == 3,
          "a new file has just the three tables");
    snprintf(migrated, sizeof(migrated), "%s/migrated.db-wal", g_dir);
    unlink(migrated);
    snprintf(migrated, sizeof(migrated), "%s/migrated.db-shm", g_dir);
    unlink(migrated);
    snprintf(migrated, sizeof(migrated), "%s/migrated.db", g_dir);
    unlink(migrated);
}

TEST(a_full_journal_breaks_the_log_until_a_snapshot)
{
    char err[512];
    store_stats st;
    session *s;
    int id;

    CHECK(open_with(g_dir, 0, 0, 16 * 1024, err, sizeof(err)) == 0, "open with a 16 KiB journal");
    id = stored_session("dotnet app.dll", 3000, 0);
    store_get_stats(&st);
    CHECK(st.lost > 0 && store_broken(id),
          "entries dropped and counted (%llu bytes), the log broken", (unsigned long long)st.lost);
    close_store(); /* no sweep: no snapshot */
    CHECK(open_with(g_dir, 0, 0, 16 * 1024, err, sizeof(err)) == 0, "opened again");
    persist_prepare(id);
    sessions_lock();
    s = sessions_get(id);
    CHECK(s && strstr(s->persist.load_error, "broken") && s->functions_jitted < 3000,
          "the read stops at the break and says so (%s; %zu functions before it)",
          s ? s->persist.load_error : "?", s ? s->functions_jitted : 0);
    sessions_unlock();
    close_store();

    CHECK(open_with(g_dir, 0, 0, 16 * 1024, err, sizeof(err)) == 0, "and again, for a new session");
    sessions_lock();
    s = new_session(SESSION_MODE_RUN, 4243, "dotnet app.dll");
    id = s->id;
    jit_functions(s, 3000, 0, 0x7f0000300000ull);
    sessions_unlock();
    CHECK(store_broken(id), "broken again");
    persist_sweep(); /* a broken log: a snapshot of what memory holds */
    CHECK(wait_synced(id) && !store_broken(id), "the snapshot committed heals it");
    close_store();
    CHECK(open_with(g_dir, 0, 0, 16 * 1024, err, sizeof(err)) == 0, "opened once more");
    persist_prepare(id);
    sessions_lock();
    s = sessions_get(id);
    CHECK(s && s->functions_jitted == 3000 && s->persist.load_error[0] == '\0',
          "every function is served, no error (%zu)", s ? s->functions_jitted : 0);
    sessions_unlock();
    close_store();
}

static off_t file_size(const char *dir, const char *name)
{
    char path[600];
    struct stat st;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return stat(path, &st) == 0 ? st.st_size : 0;
}

/* The disk is full: no file of this process may grow past the database's
 * files as they are (SIGXFSZ ignored: a write fails instead); *unlimited is
 * the limit to set back for room again. */
static void disk_full(struct rlimit *unlimited)
{
    struct rlimit limited;
    off_t wal = file_size(g_dir, "jitscope.db-wal"), db = file_size(g_dir, "jitscope.db");

    signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, unlimited);
    limited = *unlimited;
    limited.rlim_cur = (rlim_t)(wal > db ? wal : db);
    setrlimit(RLIMIT_FSIZE, &limited);
}

TEST(a_full_disk_is_retried)
{
    char err[512];
    store_stats st = {0};
    struct rlimit unlimited;
    session *s;
    int id, i;

    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "open: %s", err);
    id = stored_session("dotnet app.dll", 100, 0);
    CHECK(wait_synced(id), "the first records are on disk");
    disk_full(&unlimited);
    sessions_lock();
    s = sessions_get(id);
    jit_functions(s, 2000, 0, 0x7f0000800000ull);
    sessions_unlock();
    for (i = 0; i < 500 && st.write_errors < 2; i++) {
        usleep(10000);
        store_get_stats(&st);
    }
    CHECK(st.write_errors >= 2 && st.last_error[0] && !store_synced(id),
          "writes fail and are tried again (%llu errors: %s)", (unsigned long long)st.write_errors,
          st.last_error);
    setrlimit(RLIMIT_FSIZE, &unlimited); /* room again */
    CHECK(wait_synced(id), "it all goes in once there is room");
    store_get_stats(&st);
    CHECK(st.last_error[0] == '\0' && st.last_error_ns > 0 && st.lost == 0,
          "the error is over (when it was is kept), nothing was lost");
    close_store();
    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "opened again");
    persist_prepare(id);
    sessions_lock();
    s = sessions_get(id);
    CHECK(s && s->functions_jitted == 2100 && s->persist.load_error[0] == '\0',
          "all 2100 functions are served (%zu)", s ? s->functions_jitted : 0);
    sessions_unlock();
    close_store();
}

/* What waits for the writer is held too (budget.h): while the disk is full,
 * a session's log counts in its share, so it is refused long before its
 * state alone would be; once written it is given back, and the session
 * takes names again. */
TEST(unwritten_log_counts_in_the_budget)
{
    static char big[1001]; /* a 1,000-byte name and its NUL */
    char err[512], prefix[32];
    struct rlimit unlimited;
    uint64_t state, share;
    session *s;
    int id, rc = 0;
    unsigned i;

    memset(big, 'y', sizeof(big) - 1);
    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "open: %s", err);
    sessions_lock();
    s = new_session(SESSION_MODE_RUN, 4242, "dotnet app.dll");
    id = s->id;
    session_budget_connected(s, 1); /* as link.c binds it */
    jit_functions(s, 100, 0, 0x7f0000300000ull);
    sessions_unlock();
    CHECK(wait_synced(id), "the first records are on disk");
    persist_sweep(); /* storage is asked what of it waits */
    sessions_lock();
    CHECK(s->budget.unwritten == 0 && s->budget.unlogged == 0,
          "written: nothing of its log is held (%llu, %llu)",
          (unsigned long long)s->budget.unwritten, (unsigned long long)s->budget.unlogged);
    budget_set_max(2 * (s->budget.held + (512u << 10))); /* its share: 512 KiB more */
    share = budget_share();
    sessions_unlock();
    disk_full(&unlimited);
    sessions_lock();
    for (i = 0; i < 5000 && rc == 0; i++) {
        snprintf(prefix, sizeof(prefix), "Big.Method%u", i);
        memcpy(big, prefix, strlen(prefix));
        rc = rec_feed(s, rec_function_name(0x7f0000800000ull + i * 16, MID, big, 0));
    }
    state = s->budget.held - s->budget.unwritten - s->budget.unlogged;
    CHECK(rc == SESSION_REFUSED && s->budget.refused[SESSION_REFUSED_FUNCTIONS] == 1 &&
              s->budget.held <= share,
          "refused at its share (%u names taken; held %llu of %llu)", i - 1,
          (unsigned long long)s->budget.held, (unsigned long long)share);
    CHECK(store_unwritten(id) > (200u << 10) && s->budget.unwritten >= store_unwritten(id),
          "its log waits for the writer and counts in what it holds (%zu bytes; %llu counted)",
          store_unwritten(id), (unsigned long long)s->budget.unwritten);
    CHECK((i - 1) * sizeof(big) < (384u << 10),
          "refused long before its names alone filled the 512 KiB (%u names)", i - 1);
    sessions_unlock();
    setrlimit(RLIMIT_FSIZE, &unlimited); /* room again */
    CHECK(wait_synced(id), "it all goes in once there is room");
    persist_sweep();
    sessions_lock();
    CHECK(s->budget.unwritten == 0 && s->budget.held == state,
          "written: given back (held %llu, its state %llu)", (unsigned long long)s->budget.held,
          (unsigned long long)state);
    CHECK(rec_feed(s, rec_function_name(0x7f0000900000ull, MID, "Small.Method()", 0)) == 0,
          "it takes names again");
    session_budget_connected(s, 0);
    sessions_unlock();
    budget_set_max(0);
    close_store();
}

/* An ended session's snapshot holds it a second time until written: while
 * it would take the total past the budget and the writer has other work
 * (here: the disk is full), the sweep leaves it for later; once the writer
 * is done, it is taken. */
TEST(an_ended_snapshot_waits_for_the_writer)
{
    char err[512];
    struct rlimit unlimited;
    session *s;
    int id;

    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "open: %s", err);
    id = stored_session("dotnet app.dll", 2000, 0);
    CHECK(wait_synced(id), "its first records are on disk");
    disk_full(&unlimited);
    sessions_lock();
    s = sessions_get(id);
    jit_functions(s, 100, 0, 0x7f0000800000ull); /* they wait for the writer */
    end_session(s);
    session_memory_unwritten(s); /* storage says what still waits, as a sweep would */
    budget_set_max(budget_held() + s->budget.held / 2); /* its snapshot would not fit */
    sessions_unlock();
    persist_sweep();
    sessions_lock();
    CHECK(!s->persist.snapshotted && budget_held() <= budget_max(),
          "its snapshot waits (held %llu of %llu)", (unsigned long long)budget_held(),
          (unsigned long long)budget_max());
    sessions_unlock();
    setrlimit(RLIMIT_FSIZE, &unlimited); /* room again */
    CHECK(wait_synced(id), "the writer caught up");
    persist_sweep();
    sessions_lock();
    CHECK(s->persist.snapshotted, "then the snapshot is taken");
    sessions_unlock();
    CHECK(wait_synced(id), "and written");
    budget_set_max(0);
    close_store();
}

/* With the default unload delay, an ended session stays loaded that long after
 * it ended, however soon its snapshot is committed: its user is likely still
 * looking at it. */
TEST(an_ended_session_stays_loaded_a_while)
{
    persist_options o = {.dir = g_dir}; /* the default delay, PERSIST_UNLOAD_MS */
    char err[512];
    session *s;
    int id;

    CHECK(persist_open(&o, err, sizeof(err)) == 0, "open: %s", err);
    id = stored_session("dotnet app.dll", 200, 0);
    sessions_lock();
    end_session(sessions_get(id));
    sessions_unlock();
    persist_sweep(); /* its snapshot */
    CHECK(wait_synced(id), "its snapshot committed");
    persist_sweep(); /* committed now: the sweep looks at it again */
    sessions_lock();
    s = sessions_get(id);
    CHECK(s && s->persist.loaded && s->function_count == 200,
          "it is still in memory right after its end (%zu functions)",
          s ? s->function_count : (size_t)0);
    sessions_unlock();
    close_store();
}

TEST(an_ended_session_leaves_memory_and_comes_back)
{
    char err[512], *before, *after;
    session *s;
    int id;

    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "open (unload after 1 ms): %s", err);
    before = stored_and_ended(2000, 10, &s);
    id = s->id;
    persist_sweep(); /* its snapshot */
    CHECK(wait_synced(id), "its snapshot committed");
    usleep(2000);
    persist_sweep(); /* nobody asked for it since */
    sessions_lock();
    s = sessions_get(id);
    CHECK(s && !s->persist.loaded && s->function_count == 0 && s->persist.summary,
          "its content left memory; its list entry stays");
    sessions_unlock();
    after = content_of(id);
    CHECK(same_text(before, after), "read back when asked: the same");
    free(before), free(after);
    close_store();
}

/* The memory budget nearly spent: an ended session whose snapshot is
 * committed leaves memory at once (not after PERSIST_UNLOAD_MS) and comes
 * back the same; a live one stays. */
TEST(a_spent_budget_unloads_ended_sessions_at_once)
{
    /* the default unload delay (PERSIST_UNLOAD_MS): only the budget makes it leave
     * (with open_store's 1 ms, the sweep that hands the snapshot over could
     * unload it itself once the writer had committed it in the meantime) */
    persist_options o = {.dir = g_dir};
    char err[512], *before, *after;
    session *s, *live;
    int id, live_id;

    CHECK(persist_open(&o, err, sizeof(err)) == 0, "open: %s", err);
    sessions_lock();
    before = ended_and_live(2000, 10, SESSION_MODE_RUN, 100, &s, &live);
    id = s->id, live_id = live->id;
    sessions_unlock();
    persist_sweep(); /* its snapshot */
    CHECK(wait_synced(id), "its snapshot committed");
    sessions_lock();
    CHECK(s->persist.loaded && persist_make_room() == 0, "room enough: nothing leaves");
    budget_set_max(budget_held() + 4096); /* nearly spent */
    CHECK(persist_make_room() == 1 && !s->persist.loaded && s->function_count == 0 &&
              s->persist.summary,
          "the ended session left memory at once; its list entry stays");
    CHECK(sessions_get(live_id)->persist.loaded && sessions_get(live_id)->function_count == 100,
          "the live one keeps its own");
    sessions_unlock();
    budget_set_max(0);
    after = content_of(id);
    CHECK(same_text(before, after), "read back when asked: the same");
    free(before), free(after);
    close_store();
}

/* A session's log in three rounds committed apart; `damage` (an UPDATE of
 * the log with %lld for a chunk number) is done to round 1's first chunk; the
 * read must end there, say `reason` and where, and serve round 0. */
static void damaged_chunk_ends_the_read(const char *damage, const char *reason)
{
    char path[128], err[512], sql[200];
    session *s;
    long long chunks[3] = {0, 0, 0};
    int id = 0, round;

    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "open: %s", err);
    for (round = 0; round < 3; round++) { /* each round's records committed apart */
        sessions_lock();
        s = round == 0 ? new_session(SESSION_MODE_RUN, 4242, "dotnet app.dll") : sessions_get(id);
        id = s->id;
        jit_functions(s, 100, 0, 0x7f0000300000ull + (uint64_t)round * 0x100000);
        sessions_unlock();
        CHECK(wait_synced(id), "round %d committed", round);
        chunks[round] = count_rows_of(g_dir, "SELECT max(chunk) FROM log WHERE session_id = %d",
                                      id);
    }
    close_store();
    /* the first chunk of round 1's records: everything of round 0 comes before it
     * (however many chunks the writer made of each) */
    snprintf(path, sizeof(path), "%s/jitscope.db", g_dir);
    snprintf(sql, sizeof(sql), damage, chunks[0] + 1);
    CHECK(chunks[0] >= 1 && chunks[1] > chunks[0] && exec_sql(path, sql) == 0,
          "chunk %lld (round 1's first) damaged on disk", chunks[0] + 1);
    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "opened again");
    persist_prepare(id);
    sessions_lock();
    s = sessions_get(id);
    snprintf(sql, sizeof(sql), "chunk %lld", chunks[0] + 1);
    CHECK(s && strstr(s->persist.load_error, sql) && strstr(s->persist.load_error, reason) &&
              s->functions_jitted == 100,
          "the read ends at the damage and says where and why (%s), what came before is served "
          "(%zu)",
          s ? s->persist.load_error : "?", s ? s->functions_jitted : 0);
    sessions_unlock();
    close_store();
}

TEST(a_damaged_chunk_ends_the_read)
{
    damaged_chunk_ends_the_read(
        "UPDATE log SET bytes = CAST(zeroblob(length(bytes)) AS BLOB) WHERE chunk = %lld",
        "checksum");
}

/* Log chunks are stored compressed: one whose row says another unpacked size
 * than its bytes unpack to (its checksum, of what is stored, still right) is
 * damaged too, and so is one of a codec this server does not know. */
TEST(a_chunk_that_does_not_unpack_ends_the_read)
{
    damaged_chunk_ends_the_read("UPDATE log SET raw_bytes = raw_bytes + 1 WHERE chunk = %lld",
                                "unpacked size");
}

TEST(a_chunk_of_an_unknown_codec_ends_the_read)
{
    damaged_chunk_ends_the_read("UPDATE log SET codec = 9 WHERE chunk = %lld", "does not know");
}

/* Damage in two places: the read ends at the first (what came before it is
 * served) and the report says all that could not be read: how many chunks
 * of how many, that the later one is damaged too, and the bytes. */
TEST(a_damaged_log_is_reported_whole)
{
    char path[128], err[512], sql[160], count[48];
    session *s;
    long long chunks;
    int id = 0, round;

    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "open: %s", err);
    for (round = 0; round < 5; round++) { /* five commits: five chunks at least */
        sessions_lock();
        s = round == 0 ? new_session(SESSION_MODE_RUN, 4242, "dotnet app.dll") : sessions_get(id);
        id = s->id;
        jit_functions(s, 100, 0, 0x7f0000300000ull + (uint64_t)round * 0x100000);
        sessions_unlock();
        CHECK(wait_synced(id), "round %d committed", round);
    }
    close_store();
    snprintf(path, sizeof(path), "%s/jitscope.db", g_dir);
    /* a round's commit may be cut into two chunks: the first round is in chunk 1 at
     * least, and chunk 2 is never the last (five rounds, five commits) */
    chunks = count_rows(g_dir, "SELECT count(*) FROM log");
    snprintf(sql, sizeof(sql),
             "UPDATE log SET bytes = CAST(zeroblob(length(bytes)) AS BLOB) WHERE chunk IN (2, "
             "%lld)",
             chunks);
    CHECK(chunks >= 5 && exec_sql(path, sql) == 0,
          "its second and last chunks zeroed on disk (of %lld)", chunks);
    snprintf(count, sizeof(count), "1 of %lld log chunks", chunks);
    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "opened again");
    persist_prepare(id);
    sessions_lock();
    s = sessions_get(id);
    if (CHECK(s != NULL, "the session")) {
        const session_load_report *r = &s->persist.load_report;
        CHECK(strstr(s->persist.load_error, "chunk 2 is damaged") &&
                  strstr(s->persist.load_error, count) &&
                  strstr(s->persist.load_error, "2 chunks)"),
              "the reason and the rest: %s", s->persist.load_error);
        CHECK(r->failed && r->chunks == (uint64_t)chunks && r->chunks_read == 1 &&
                  r->chunks_damaged == 2 && r->bytes_unread > 0 && r->parts == 0,
              "in numbers: %llu of %llu chunks read, %llu damaged, %llu bytes not read",
              (unsigned long long)r->chunks_read, (unsigned long long)r->chunks,
              (unsigned long long)r->chunks_damaged, (unsigned long long)r->bytes_unread);
        CHECK(s->functions_jitted <= 100, "what came before is served (%zu)", s->functions_jitted);
    }
    sessions_unlock();
    close_store();
}

/* What a snapshot read delivered: its parts' first bytes, in order. */
typedef struct parts_seen {
    int n;
    uint8_t first[16];
} parts_seen;

static int note_part(void *ctx, int part, int64_t now_ns, const uint8_t *bytes, size_t length)
{
    parts_seen *seen = ctx;

    (void)now_ns;
    if (part != STORE_PART_SNAPSHOT || length != 1000 || seen->n >= 16)
        return -1;
    seen->first[seen->n++] = bytes[0];
    return 0;
}

/* A snapshot of `parts` state parts (part i: 1000 bytes of i), written as the
 * writer writes them but for `damage` (an UPDATE, %d for the session), read
 * back by store_read_log; the parts delivered in *seen, its result. */
static int read_snapshot_parts(int parts, const char *damage, parts_seen *seen,
                               store_read_report *rep, char *err, size_t errsz)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    uint8_t raw[1000];
    char sql[200];
    int i, rc = -1;

    memset(seen, 0, sizeof(*seen));
    if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
        sqlite3_exec(db,
                     "CREATE TABLE snapshots (session_id INTEGER, part INTEGER, parts INTEGER,"
                     " kind INTEGER, upto_chunk INTEGER, codec INTEGER, raw_bytes INTEGER,"
                     " bytes BLOB);"
                     "CREATE TABLE log (session_id INTEGER, chunk INTEGER, flags INTEGER,"
                     " bytes BLOB, checksum INTEGER, codec INTEGER, raw_bytes INTEGER);",
                     NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO snapshots VALUES (7, ?, ?, 0, 0, 1, 1000, ?)", -1, &st,
                           NULL) != SQLITE_OK)
        goto done;
    for (i = 0; i < parts; i++) {
        void *packed = NULL;
        size_t length = 0;
        memset(raw, i, sizeof(raw));
        if (store_compress(raw, sizeof(raw), &packed, &length) != 0)
            goto done;
        sqlite3_bind_int(st, 1, i);
        sqlite3_bind_int(st, 2, parts);
        sqlite3_bind_blob(st, 3, packed, (int)length, free);
        if (sqlite3_step(st) != SQLITE_DONE || sqlite3_reset(st) != SQLITE_OK)
            goto done;
    }
    snprintf(sql, sizeof(sql), damage ? damage : "SELECT 1", 7);
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
        goto done;
    rc = store_read_log(db, 7, note_part, seen, rep, err, errsz);
done:
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

/* The start of a zstd frame that says it unpacks to `size` bytes (its
 * header and a block of one byte), into out; its length, 0 on failure. */
static size_t zstd_frame_claiming(uint64_t size, uint8_t *out, size_t cap)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_inBuffer in = {"x", 1, 0};
    ZSTD_outBuffer o = {out, cap, 0};
    size_t rc = c ? ZSTD_CCtx_setPledgedSrcSize(c, size) : 1;

    if (!ZSTD_isError(rc) && c)
        rc = ZSTD_compressStream2(c, &o, &in, ZSTD_e_flush);
    ZSTD_freeCCtx(c);
    return c && !ZSTD_isError(rc) ? o.pos : 0;
}

/* A snapshot of more parts than are unpacked at once is delivered whole and
 * in order; a damaged part, or a missing one, ends the read there (what came
 * before it is delivered), and the parts after it are still counted. */
TEST(snapshot_parts_in_order_and_a_damaged_one_ends_the_read)
{
    store_read_report rep;
    parts_seen seen;
    char err[512];
    int rc, i, ordered = 1;

    rc = read_snapshot_parts(9, NULL, &seen, &rep, err, sizeof(err));
    for (i = 0; i < seen.n; i++)
        ordered &= seen.first[i] == i;
    CHECK(rc == 0 && seen.n == 9 && ordered && rep.parts == 9 && rep.parts_read == 9,
          "nine parts delivered in order (%d: %d, read %u of %u; %s)", rc, seen.n, rep.parts_read,
          rep.parts, err);

    rc = read_snapshot_parts(9,
                             "UPDATE snapshots SET bytes = zeroblob(length(bytes))"
                             " WHERE session_id = %d AND part = 4",
                             &seen, &rep, err, sizeof(err));
    ordered = 1;
    for (i = 0; i < seen.n; i++)
        ordered &= seen.first[i] == i;
    CHECK(rc < 0 && seen.n == 4 && ordered && strstr(err, "part 4") && rep.parts == 9 &&
              rep.parts_read == 4 && rep.parts_damaged == 1 && rep.bytes_unread == 5 * 1000,
          "a damaged part 4 ends the read after parts 0-3 (%d parts; read %u of %u, damaged %u, "
          "%llu bytes unread: %s)",
          seen.n, rep.parts_read, rep.parts, rep.parts_damaged,
          (unsigned long long)rep.bytes_unread, err);

    rc = read_snapshot_parts(9, "DELETE FROM snapshots WHERE session_id = %d AND part = 6", &seen,
                             &rep, err, sizeof(err));
    CHECK(rc < 0 && seen.n == 6 && strstr(err, "lacks part 6") && rep.parts == 9 &&
              rep.parts_read == 6,
          "a missing part 6 ends the read after parts 0-5 (%d parts; read %u of %u: %s)", seen.n,
          rep.parts_read, rep.parts, err);

    { /* a part whose frame and row both say 8 GiB: refused before memory is asked for it */
        uint8_t frame[64];
        char hex[2 * sizeof(frame) + 1] = "", damage[256];
        size_t n = zstd_frame_claiming((uint64_t)8 << 30, frame, sizeof(frame)), k;
        for (k = 0; k < n; k++)
            snprintf(hex + 2 * k, 3, "%02x", frame[k]);
        snprintf(damage, sizeof(damage),
                 "UPDATE snapshots SET bytes = X'%s', raw_bytes = %llu"
                 " WHERE session_id = %%d AND part = 2",
                 hex, 8ull << 30);
        rc = n ? read_snapshot_parts(9, damage, &seen, &rep, err, sizeof(err)) : 0;
        CHECK(rc < 0 && seen.n == 2 && rep.parts_damaged == 1 &&
                  strstr(err, "more than a part can hold"),
              "a part that says it unpacks to 8 GiB ends the read after parts 0-1 (%d parts: %s)",
              seen.n, err);
    }
}

TEST(an_idle_session_writes_nothing)
{
    char err[512];
    store_stats a, b;
    int id, i;

    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "open: %s", err);
    id = stored_session("dotnet app.dll", 10, 0);
    persist_sweep();
    CHECK(wait_synced(id), "caught up");
    store_get_stats(&a);
    for (i = 0; i < 3; i++) {
        persist_sweep();
        usleep(300 * 1000); /* more than a round */
    }
    store_get_stats(&b);
    CHECK(b.commits == a.commits && b.rounds > a.rounds,
          "rounds go by (%llu), nothing is committed (%llu then %llu)",
          (unsigned long long)(b.rounds - a.rounds), (unsigned long long)a.commits,
          (unsigned long long)b.commits);
    close_store();
}

/* Sessions deleted by --keep leave the writer's journal once their delete is
 * committed: the writer is not handed them again, so rounds go by with
 * nothing committed, and the journal holds only the session kept. (Before,
 * every deleted session stayed in it and was deleted again at every round,
 * a server's whole life long: a soak of 1,000 attach/detach cycles had the
 * writer run 2,700 deletes every 250 ms at the end.) */
TEST(deleted_sessions_leave_the_journal)
{
    char err[512];
    store_stats a, b;
    int i, ids[3];

    CHECK(open_with(g_dir, 1, 0, 0, err, sizeof(err)) == 0, "open with --keep 1: %s", err);
    for (i = 0; i < 3; i++) {
        ids[i] = stored_session("dotnet app.dll", 10, 0);
        sessions_lock();
        end_session(sessions_get(ids[i]));
        sessions_unlock();
        persist_sweep(); /* its snapshot; the older ones past --keep deleted */
    }
    CHECK(wait_synced(ids[0]) && wait_synced(ids[1]) && wait_synced(ids[2]),
          "the deletes and the newest's snapshot committed");
    CHECK(count_rows(g_dir, "SELECT count(*) FROM sessions") == 1, "one session in the file");
    CHECK(store_journal_sessions() == 1, "the journal holds the kept session only (%zu)",
          store_journal_sessions());
    store_get_stats(&a);
    for (i = 0; i < 2000; i++) { /* at most 20 s for three rounds */
        store_get_stats(&b);
        if (b.rounds >= a.rounds + 3)
            break;
        usleep(10000);
    }
    CHECK(b.rounds >= a.rounds + 3 && b.commits == a.commits,
          "%llu rounds go by, none commits (%llu commits then %llu)",
          (unsigned long long)(b.rounds - a.rounds), (unsigned long long)a.commits,
          (unsigned long long)b.commits);
    close_store();
}

/* n functions whose names are 64 hex digits of a pseudo-random sequence:
 * text zstd packs to about half, so their log and snapshot are megabytes
 * on disk. Lock held. */
static void jit_random_names(session *s, unsigned n)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    char text[80];
    unsigned i, k;

    rec_feed(s, rec_module_loaded(MID, "/app/App.dll", "App", 0, REC_MONO + 2));
    for (i = 0; i < n; i++) {
        uint64_t fid = 0x7f0000300000ull + (uint64_t)i * 16;
        for (k = 0; k < 4; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            snprintf(text + k * 16, sizeof(text) - k * 16, "%016llx", (unsigned long long)x);
        }
        rec_feed(s, rec_function_name(fid, MID, text, 0));
        rec_feed(s,
                 rec_jit_finished(fid, 0, 0x7f0000900000ull + i * 64, 64, REC_MONO + 105 + i, 0));
    }
}

/* The writer's page cache stays within STORE_CACHE_MAX after a round that
 * had far more pages dirty (a session's megabytes of log, compacted into a
 * snapshot, then deleted by --keep and vacuumed away): SQLite keeps every
 * page one transaction had until it is told to give them back, so the
 * writer's cache grew with the largest session it ever wrote or deleted. */
TEST(the_writer_page_cache_stays_bounded)
{
    char err[512];
    store_stats st;
    session *s;
    int ids[2];

    CHECK(open_with(g_dir, 1, 0, 0, err, sizeof(err)) == 0, "open with --keep 1: %s", err);
    sessions_lock();
    s = new_session(SESSION_MODE_RUN, 4242, "dotnet big.dll");
    ids[0] = s->id;
    jit_random_names(s, 60000);
    end_session(s);
    sessions_unlock();
    persist_sweep(); /* its snapshot, in the round that deletes its log */
    CHECK(wait_synced(ids[0]), "its snapshot committed");
    ids[1] = stored_session("dotnet small.dll", 10, 0);
    sessions_lock();
    end_session(sessions_get(ids[1]));
    sessions_unlock();
    persist_sweep(); /* --keep 1: the big one is deleted */
    CHECK(wait_synced(ids[0]) && wait_synced(ids[1]), "the delete committed");
    store_get_stats(&st);
    CHECK(st.bytes_written > 2 * STORE_CACHE_MAX,
          "the rounds wrote %llu bytes, more than the cache may keep",
          (unsigned long long)st.bytes_written);
    CHECK(st.cache_bytes > 0 && st.cache_bytes <= STORE_CACHE_MAX,
          "the writer's page cache after them: %llu bytes (at most %u)",
          (unsigned long long)st.cache_bytes, STORE_CACHE_MAX);
    close_store();
}

TEST(header_round_trip)
{
    session *s = session_new(7, SESSION_MODE_ATTACH, 99, "cmd line", REC_TOKEN);
    session *t = session_new(7, SESSION_MODE_RUN, 0, "", "");
    json_t *h, *old;

    s->state = SESSION_DETACHED;
    s->has_exit_code = 1, s->exit_code = 137, s->exit_signal = 9;
    s->created_ns = 1, s->ended_ns = INT64_MAX;
    s->drops.dropped[WIRE_DROP_SLOW_SERVER] = 12345; /* folded: not the header's */
    snprintf(s->error, sizeof(s->error), "refused");
    h = session_header_to_json(s);
    session_header_from_json(t, h, 0);
    CHECK(t->state == SESSION_DETACHED && t->mode == SESSION_MODE_ATTACH && t->pid == 99 &&
              t->exit_code == 137 && t->exit_signal == 9 && t->ended_ns == INT64_MAX,
          "its own fields");
    CHECK(strcmp(t->token, s->token) == 0 && strcmp(t->error, "refused") == 0 &&
              strcmp(t->command_line, "cmd line") == 0,
          "its strings");
    CHECK(t->drops.dropped[WIRE_DROP_SLOW_SERVER] == 0 && !json_object_get(h, "drops.dropped"),
          "counters are not in it (folding the log makes them)");
    old = json_pack("{s:s, s:I, s:[I,I,I,I,I,I,I]}", "state", "exited", "last_seq",
                    (json_int_t)UINT64_MAX, "drops.dropped", 1, 2, 3, 4, 5, 6, 7);
    session_header_from_json(t, old, 1);
    CHECK(t->last_seq == UINT64_MAX && t->drops.dropped[2] == 3,
          "an old file's header gives its counters too (the full unsigned range)");
    json_decref(h);
    json_decref(old);
    session_free(s);
    session_free(t);
}

TEST(converts_a_version_1_file)
{
    char path[128], err[512];
    sqlite3 *db = NULL;
    session *s;

    snprintf(path, sizeof(path), "%s/jitscope.db", g_dir);
    CHECK(store_schema_open(path, 1, &db, err, sizeof(err)) == 0, "a version 1 file: %s", err);
    sqlite3_close(db);
    CHECK(exec_sql(path,
                   "INSERT INTO sessions VALUES (5, 5, 77, 'exited', 1, 2, 3, 'dotnet v1.dll',"
                   " '{\"pid\":77,\"mode\":1,\"root_id\":5,\"state\":\"exited\","
                   "\"jit_compilations\":1}',"
                   " '{\"id\":5,\"state\":\"exited\"}');"
                   "INSERT INTO functions VALUES (5, 0, 4096, 8192, 1, 'Old.Method()', 100, 10,"
                   " 20, 0, 0, 1, 1, 1000, 1000, 500, 500, 0, 1, NULL);"
                   "INSERT INTO functions VALUES (5, 1, 4112, 8192, 1,"
                   " CAST(X'4F6C64FF2829' AS TEXT), 101, 10, 20, 0, 0, 1, 1, 1000, 1000, 500, 500,"
                   " 0, 1, NULL);"
                   "INSERT INTO modules VALUES (5, 0, 8192, 1, 2, '/old/Old.dll', 'Old', 1, 0,"
                   " 1, 0, 0);"
                   "INSERT INTO events VALUES (5, 1, 1000, 3, 0, 4096, 500, 20, 0);"
                   "INSERT INTO threads VALUES (5, 0, 1, 11, 0, 'old-a', 0, 900, 950);"
                   "INSERT INTO threads VALUES (5, 1, 1, 12, 0, 'old-b', 0, 960, 1100);") == 0,
          "rows as version 1 wrote them");
    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "the server opens it: %s", err);
    CHECK(count_rows(g_dir, "SELECT count(*) FROM sqlite_schema WHERE name = 'functions'") == 0 &&
              count_rows(g_dir, "SELECT count(*) FROM snapshots WHERE session_id = 5") == 1,
          "converted to a snapshot, the old tables dropped");
    persist_prepare(5);
    sessions_lock();
    s = sessions_get(5);
    CHECK(s && s->pid == 77 && strcmp(s->command_line, "dotnet v1.dll") == 0 &&
              s->function_count == 2 && s->functions[0].jit_count == 1 &&
              strcmp(fixture_fn_name(&s->functions[0]), "Old.Method()") == 0 &&
              s->functions[0].compilation_count == 0 && s->jit_compilations == 1,
          "its session reads back (no compilations: version 1 did not keep them)");
    CHECK(s && s->module_count == 1 && s->events.last_seq == 1, "modules and events");
    CHECK(s && s->function_count == 2 && strcmp(fixture_fn_name(&s->functions[1]), "Old?()") == 0,
          "a name that is not UTF-8 (an edited file) reads back with '?' for the bad byte");
    CHECK(s && s->thread_count == 2 && s->functions[0].thread_row == 2 &&
              session_thread_match(s, 1, 11) == &s->threads[0],
          "its threads; a function of it names its ThreadID's newest row (%u)",
          s ? s->functions[0].thread_row : 0);
    sessions_unlock();
    close_store();
    CHECK(count_rows(g_dir, "PRAGMA user_version") == STORE_SCHEMA_VERSION,
          "the file is at version %d now", STORE_SCHEMA_VERSION);
}

TEST(refuses_what_it_cannot_use)
{
    char path[128], err[512];
    FILE *f;
    int i;

    snprintf(path, sizeof(path), "%s/jitscope.db", g_dir);
    f = fopen(path, "w");
    for (i = 0; f && i < 8192; i++)
        fputc((i * 7919) & 0xff, f);
    if (f)
        fclose(f);
    CHECK(open_store(g_dir, err, sizeof(err)) != 0 && strstr(err, "not a database"), "garbage: %s",
          err);
    unlink(path);
    CHECK(exec_sql(path, "PRAGMA application_id = 1234; CREATE TABLE t (x);") == 0,
          "another program's database");
    CHECK(open_store(g_dir, err, sizeof(err)) != 0 && strstr(err, "another program"), "%s", err);
    unlink(path);
    CHECK(exec_sql(path, "PRAGMA application_id = 1246319699; PRAGMA user_version = 99;") == 0,
          "a newer jitscope's file");
    CHECK(open_store(g_dir, err, sizeof(err)) != 0 && strstr(err, "newer jitscope"), "%s", err);
    unlink(path);
    CHECK(exec_sql(path, "CREATE TABLE notes (x);") == 0, "an SQLite file of another program");
    CHECK(open_store(g_dir, err, sizeof(err)) != 0 && strstr(err, "tables of another program"),
          "is not made ours: %s", err);
    unlink(path);

    /* another program holds jitscope's file locked for writing */
    CHECK(open_store(g_dir, err, sizeof(err)) == 0, "a good file: %s", err);
    close_store();
    {
        sqlite3 *holder = NULL;
        CHECK(sqlite3_open(path, &holder) == SQLITE_OK &&
                  sqlite3_exec(holder, "BEGIN EXCLUSIVE; DELETE FROM sessions;", NULL, NULL,
                               NULL) == SQLITE_OK,
              "a writer holds the file");
        CHECK(open_store(g_dir, err, sizeof(err)) != 0 && strstr(err, "locked"),
              "a locked file: %s", err);
        sqlite3_exec(holder, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_close(holder);
    }
    unlink(path);
    sessions_lock();
    CHECK(sessions_count() == 0, "nothing was listed from any of them");
    sessions_unlock();
}

static const check_test tests[] = {
    TEST_ENTRY(read_back_serves_the_same),
    TEST_ENTRY(refusals_survive_read_back),
    TEST_ENTRY(thread_rows_read_back),
    TEST_ENTRY(a_version_4_file_is_migrated),
    TEST_ENTRY(committed_survives_a_crash),
    TEST_ENTRY(keep_and_keep_events),
    TEST_ENTRY(a_short_ended_session_stays_its_log),
    TEST_ENTRY(a_long_ended_log_is_compacted),
    TEST_ENTRY(schema_new_is_the_migrated_schema),
    TEST_ENTRY(a_full_journal_breaks_the_log_until_a_snapshot),
    TEST_ENTRY(a_full_disk_is_retried),
    TEST_ENTRY(unwritten_log_counts_in_the_budget),
    TEST_ENTRY(an_ended_snapshot_waits_for_the_writer),
    TEST_ENTRY(an_ended_session_stays_loaded_a_while),
    TEST_ENTRY(an_ended_session_leaves_memory_and_comes_back),
    TEST_ENTRY(a_spent_budget_unloads_ended_sessions_at_once),
    TEST_ENTRY(a_damaged_chunk_ends_the_read),
    TEST_ENTRY(a_chunk_that_does_not_unpack_ends_the_read),
    TEST_ENTRY(a_chunk_of_an_unknown_codec_ends_the_read),
    TEST_ENTRY(a_damaged_log_is_reported_whole),
    TEST_ENTRY(snapshot_parts_in_order_and_a_damaged_one_ends_the_read),
    TEST_ENTRY(an_idle_session_writes_nothing),
    TEST_ENTRY(deleted_sessions_leave_the_journal),
    TEST_ENTRY(the_writer_page_cache_stays_bounded),
    TEST_ENTRY(header_round_trip),
    TEST_ENTRY(converts_a_version_1_file),
    TEST_ENTRY(refuses_what_it_cannot_use),
    TEST_END,
};

/* Each test has a directory of its own for storage, removed after it with
 * whatever the test left open. */
static void setup(void)
{
    g_compact_min = 1;
    snprintf(g_dir, sizeof(g_dir), "/tmp/jitscope-test-store-XXXXXX");
    CHECK(mkdtemp(g_dir) != NULL, "a directory for storage");
}

static void teardown(void)
{
    budget_set_max(0); /* a test that stopped half way may have left it set */
    close_store();
    remove_dir(g_dir);
}

int main(int argc, char **argv) { return check_main_each(argc, argv, tests, setup, teardown); }
