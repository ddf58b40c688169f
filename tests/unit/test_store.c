/* test_store.c -- unit tests for server/store*.c (sessions kept in SQLite).
 *
 * A session folded from hand-made records is written by the real writer
 * thread (store_close flushes it), read back by a second store_open as a
 * past session, and compared field by field; a live session left behind
 * comes back interrupted; the header's JSON round trip; a schema version 1
 * file (as an older jitscope wrote it) is migrated to the current version
 * with its rows intact; a corrupt file, another program's database and a
 * newer schema are refused with a clear reason; DELETE's path
 * (store_forget) removes every row of a session.
 * Build: make build/tests/test_store && build/tests/test_store
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "wire_encode.h"
#include "sessions.h"
#include "store.h"
#include "store_db.h"

static const int64_t NOW = 1700000000000000000ll;
static const uint64_t MONO = 5000000000ull;
static uint64_t g_seq;

static void temp_dir(char *out, size_t size)
{
    snprintf(out, size, "/tmp/jitscope-test-store-XXXXXX");
    if (!mkdtemp(out))
        out[0] = '\0';
}

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

static int apply(session *s, wire_record r)
{
    const char *why = NULL;

    r.seq = ++g_seq;
    return session_apply(s, &r, NOW, &why);
}

static wire_record hello(const char *token)
{
    wire_record r = {.type = WIRE_HELLO, .time_ns = MONO};

    memcpy(r.u.hello.magic, WIRE_MAGIC, 8);
    r.u.hello.version = WIRE_VERSION;
    memcpy(r.u.hello.token, token, WIRE_TOKEN_LEN);
    r.u.hello.runtime_type = 2;
    r.u.hello.major = 10;
    r.u.hello.realtime_ns = 1699999999000000000ull;
    r.u.hello.monotonic_ns = MONO;
    return r;
}

static wire_record jit(uint64_t fid, uint64_t code, uint64_t t)
{
    wire_record r = {.type = WIRE_JIT_FINISHED, .time_ns = t};
    r.u.jit_finished = (wire_jit_finished){fid, 0x1000, code, 64, 40, 0, 0, 0, 0};
    return r;
}

static wire_record name(uint64_t fid, const char *text)
{
    wire_record r = {.type = WIRE_FUNCTION_NAME, .time_ns = MONO + 1};
    r.u.function_name = (wire_function_name){fid, 0x7f0000200000ull, 0x06000001u, 12};
    r.strings[0] = (wire_string){text, (uint16_t)strlen(text)};
    r.string_count = 1;
    return r;
}

static wire_record module(uint64_t mid, const char *path, const char *assembly)
{
    wire_record r = {.type = WIRE_MODULE_LOADED, .time_ns = MONO + 2};
    r.u.module_loaded = (wire_module_loaded){mid, mid + 0x100000, mid << 8, 0, 0};
    r.strings[0] = (wire_string){path, (uint16_t)strlen(path)};
    r.strings[1] = (wire_string){assembly, (uint16_t)strlen(assembly)};
    r.string_count = 2;
    return r;
}

static wire_record thread(uint64_t tid, const char *text)
{
    wire_record r = {.type = WIRE_THREAD_NAME, .time_ns = MONO + 3};
    r.u.thread = (wire_thread){tid, 1234, 0};
    r.strings[0] = (wire_string){text, (uint16_t)strlen(text)};
    r.string_count = 1;
    return r;
}

static int open_store_events(const char *dir, unsigned keep, unsigned keep_events, char *err,
                             size_t size)
{
    store_options o = {.dir = dir, .keep = keep, .keep_events = keep_events};
    return store_open(&o, err, size);
}

static int open_store(const char *dir, unsigned keep, char *err, size_t size)
{
    return open_store_events(dir, keep, 0, err, size);
}

/* As a server stops: the writer's last round, then every session forgotten
 * (the next store_open reads them back from the file). */
static void close_store(void)
{
    store_close();
    sessions_lock();
    sessions_free_all();
    sessions_unlock();
}

/* Two sessions: 1 ended (exited) with 3000 functions, 2 still live. */
static void record_two_sessions(void)
{
    session *a, *b;
    char text[64];
    unsigned i;

    sessions_lock();
    a = sessions_create(SESSION_MODE_RUN, 4242, "dotnet app.dll");
    b = sessions_create(SESSION_MODE_ATTACH, 4343, "dotnet live.dll");
    apply(a, hello(a->token));
    apply(b, hello(b->token));
    apply(a, module(0x7f0000200000ull, "/app/App.dll", "App"));
    apply(a, thread(0x1000, "worker"));
    for (i = 0; i < 3000; i++) {
        snprintf(text, sizeof(text), "App.Type.Method%u(int)", i);
        apply(a, name(0x7f0000300000ull + i * 16, text));
        apply(a, jit(0x7f0000300000ull + i * 16, 0x7f0000900000ull + i * 64, MONO + 100 + i));
    }
    apply(a, jit(0x7f0000300000ull, 0x7f0000a00000ull, MONO + 9000)); /* a second version */
    apply(b, name(0x7f0000400000ull, "Live.Method()"));
    apply(b, jit(0x7f0000400000ull, 0x7f0000b00000ull, MONO + 50));
    session_exit_code(a, 0, 0, NOW + 1000);
    session_link_lost(a, NOW + 1000);
    sessions_unlock();
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

TEST(written_and_read_back)
{
    char dir[64], err[512];
    session *a, *b;
    const session_function *f;

    temp_dir(dir, sizeof(dir));
    CHECK(open_store(dir, 0, err, sizeof(err)) == 0, "an empty directory opens");
    record_two_sessions();
    close_store(); /* the writer's last round writes everything */

    CHECK(open_store(dir, 0, err, sizeof(err)) == 0, "and opens again: %s", err);
    sessions_lock();
    CHECK(sessions_count() == 2, "both sessions are listed (%zu)", sessions_count());
    a = sessions_peek(1);
    b = sessions_peek(2);
    CHECK(a && a->persist.past && !a->persist.loaded && a->state == SESSION_EXITED,
          "session 1 is past, not read yet, exited");
    CHECK(b && b->state == SESSION_INTERRUPTED && b->ended_ns != 0,
          "session 2 was live when its server stopped: interrupted");
    a = sessions_get(1);
    CHECK(a->persist.loaded && a->persist.load_error[0] == '\0', "read back on first use");
    CHECK(a->function_count == 3000 && a->functions_jitted == 3000, "3000 functions (%zu)",
          a->function_count);
    f = session_find_function(a, 0x7f0000300000ull + 77 * 16);
    CHECK(f && strcmp(f->name, "App.Type.Method77(int)") == 0 && f->il_size == 40 &&
              f->native_size == 64 && f->token == 0x06000001u && f->jit_count == 1,
          "a function by its ID, with its name and numbers");
    CHECK(f && f->compilation_count == 1 && !f->compilation_list &&
              session_function_compilation(f, 0).native_size == 64 &&
              session_function_compilation(f, 0).time_ns == f->last_jit_ns,
          "compiled once: one compilation, the function's own fields, as in memory");
    f = session_find_function(a, 0x7f0000300000ull);
    CHECK(f && f->versions == 2 && f->compilation_count == 2 && f->jit_count == 2 &&
              session_function_compilation(f, 0).time_ns !=
                  session_function_compilation(f, 1).time_ns,
          "its compilations and code versions");
    CHECK(count_rows(dir, "SELECT count(*) FROM compilations WHERE session_id = 1") == 2,
          "compilations rows only for the function compiled twice (schema v3)");
    CHECK(a->module_count == 1 && strcmp(session_module_name(a, 0x7f0000200000ull), "App") == 0,
          "the module");
    CHECK(a->thread_count == 1 && strcmp(a->threads[0].name, "worker") == 0 && !a->threads[0].alive,
          "the thread, ended");
    CHECK(a->event_seq > 3000 && session_event_at(a, 1) && session_event_at(a, a->event_seq),
          "the event log (%llu)", (unsigned long long)a->event_seq);
    CHECK(a->pid == 4242 && a->major == 10 && a->jit_compilations == 3001 &&
              strcmp(a->command_line, "dotnet app.dll") == 0,
          "the header");
    sessions_unlock();
    store_prepare(2); /* as request handlers do: read without the sessions lock */
    sessions_lock();
    b = sessions_peek(2);
    CHECK(b->persist.loaded && b->function_count == 1 &&
              strcmp(b->functions[0].name, "Live.Method()") == 0 &&
              session_find_function(b, 0x7f0000400000ull) == &b->functions[0],
          "the interrupted session's function, read off the lock and moved in");
    sessions_unlock();

    store_forget(1); /* DELETE's path */
    close_store();
    CHECK(open_store(dir, 0, err, sizeof(err)) == 0, "opens a third time");
    sessions_lock();
    CHECK(sessions_count() == 1 && sessions_peek(2) && !sessions_peek(1),
          "the deleted session is gone, the other stays");
    CHECK(sessions_peek(2)->state == SESSION_INTERRUPTED, "and stays interrupted");
    sessions_unlock();
    close_store();
    remove_dir(dir);
}

/* A record's frame into the session's replay log, as the link thread logs it. */
static void log_frame(session *s, uint16_t type, const void *fixed, uint32_t n, const void *extra,
                      uint32_t extra_n)
{
    uint8_t buf[256];
    wire_frame_header h = {.type = type, .seq = g_seq, .time_ns = MONO + 12};
    size_t size = wire_encode(buf, &h, fixed, n, extra, extra_n, NULL, 0);

    session_persist_log(s, SESSION_REPLAY_FRAME, NOW, buf, (uint32_t)size);
}

/* The runtime reuses ThreadIDs: each thread is a row, and a function, a
 * thread event and a stack walk name their row, also when read back. */
TEST(thread_rows_read_back)
{
    char dir[64], err[512];
    static const wire_stack_frame frames[1] = {{0x7f0000300000ull, 0x10}};
    session *a;
    wire_record r;
    int ok = 1, id;

    temp_dir(dir, sizeof(dir));
    CHECK(open_store(dir, 0, err, sizeof(err)) == 0, "an empty directory opens: %s", err);
    sessions_lock();
    a = sessions_create(SESSION_MODE_RUN, 4242, "dotnet threads.dll");
    id = a->id;
    apply(a, hello(a->token));
    for (uint32_t k = 0; k < 3; k++) { /* three threads, one after another, on ThreadID 0x1000 */
        r = (wire_record){.type = WIRE_THREAD_CREATED, .time_ns = MONO + 10 * k};
        r.u.thread = (wire_thread){0x1000, 5000 + k, 0};
        apply(a, r);
        apply(a, name(0x7f0000300000ull + k * 16, k == 0 ? "T.A()" : k == 1 ? "T.B()" : "T.C()"));
        apply(a, jit(0x7f0000300000ull + k * 16, 0x7f0000900000ull + k * 64, MONO + 10 * k + 1));
        if (k ==
            1) { /* a snapshot while the second one runs, logged for the replay as link.c does */
            wire_stack_thread st = {1, 0x1000, 5001, 0, 100, 1, 0};
            wire_stack_end se = {1, 1, WIRE_STACK_SNAPSHOT, 1, 1, 0, 0, 0, 10, 10};
            r = (wire_record){.type = WIRE_STACK_THREAD, .time_ns = MONO + 12};
            r.u.stack_thread = st;
            r.stack_frames = frames;
            apply(a, r);
            log_frame(a, WIRE_STACK_THREAD, &st, sizeof(st), frames, sizeof(frames));
            r = (wire_record){.type = WIRE_STACK_END, .time_ns = MONO + 12};
            r.u.stack_end = se;
            apply(a, r);
            log_frame(a, WIRE_STACK_END, &se, sizeof(se), NULL, 0);
        }
        r = (wire_record){.type = WIRE_THREAD_DESTROYED, .time_ns = MONO + 10 * k + 2};
        r.u.thread = (wire_thread){0x1000, 5000 + k, 0};
        apply(a, r);
    }
    session_exit_code(a, 0, 0, NOW + 1000);
    session_link_lost(a, NOW + 1000);
    sessions_unlock();
    close_store();

    CHECK(open_store(dir, 0, err, sizeof(err)) == 0, "and opens again: %s", err);
    sessions_lock();
    a = sessions_get(id);
    CHECK(a && a->thread_count == 3, "three rows (%zu)", a ? a->thread_count : 0);
    for (uint32_t k = 0; a && k < 3 && k < a->thread_count; k++) {
        const session_function *f = session_find_function(a, 0x7f0000300000ull + k * 16);
        ok &= a->threads[k].os_thread_id == 5000 + k && f && f->thread_row == k + 1;
    }
    CHECK(ok, "each function names the row of the thread that compiled it");
    CHECK(a && session_thread_match(a, 0x1000, 5001) == &a->threads[1],
          "the OS thread id finds its row again");
    CHECK(a && stacks_by_id(&a->stacks, 1) &&
              stacks_by_id(&a->stacks, 1)->threads[0].thread_row == 2,
          "the replayed snapshot names the second thread's row");
    for (uint64_t seq = 1; a && seq <= a->event_seq; seq++) {
        const session_event *e = session_event_at(a, seq);
        if (e->type == WIRE_THREAD_CREATED || e->type == WIRE_THREAD_DESTROYED)
            ok &= e->extra >= 1 && e->extra <= 3 &&
                  a->threads[e->extra - 1].os_thread_id == e->value;
    }
    CHECK(ok, "thread events name their rows");
    sessions_unlock();
    close_store();
    remove_dir(dir);
}

TEST(keep_deletes_the_oldest)
{
    char dir[64], err[512];
    int i, id[4];

    temp_dir(dir, sizeof(dir));
    CHECK(open_store(dir, 2, err, sizeof(err)) == 0, "opens with keep 2");
    for (i = 0; i < 4; i++) {
        sessions_lock();
        session *s = sessions_create(SESSION_MODE_RUN, 100 + i, "dotnet x.dll");
        session_exited(s, NOW);
        id[i] = s->id;
        sessions_unlock();
    }
    store_kick();
    store_close();
    sessions_lock();
    CHECK(sessions_count() == 2 && sessions_peek(id[2]) && sessions_peek(id[3]),
          "the newest two stay");
    sessions_free_all();
    sessions_unlock();
    CHECK(open_store(dir, 2, err, sizeof(err)) == 0, "opens again");
    sessions_lock();
    CHECK(sessions_count() == 2 && sessions_peek(id[2]) && sessions_peek(id[3]),
          "and only they are in the file");
    sessions_unlock();
    close_store();
    remove_dir(dir);
}

TEST(keep_events_trims_the_log)
{
    char dir[64], err[512];
    session *s;
    int id;
    uint64_t last;

    temp_dir(dir, sizeof(dir));
    CHECK(open_store_events(dir, 0, 1000, err, sizeof(err)) == 0, "opens with keep-events 1000");
    record_two_sessions(); /* the first one logs 3000+ events */
    sessions_lock();
    id = sessions_at(sessions_count() - 2)->id;
    last = sessions_peek(id)->event_seq;
    sessions_unlock();
    close_store();
    CHECK(open_store_events(dir, 0, 1000, err, sizeof(err)) == 0, "opens again");
    sessions_lock();
    s = sessions_get(id);
    CHECK(s && s->event_seq == last && s->events_evicted == last - 1000 &&
              session_event_at(s, last - 999) && !session_event_at(s, last - 1000),
          "the newest 1000 events are kept (of %llu)", (unsigned long long)last);
    sessions_unlock();
    close_store();
    remove_dir(dir);
}

/* A writer round that started after this call is done (the one running now
 * may have copied before the caller's change: two more); the stats after it. */
static store_stats one_round(void)
{
    store_stats st;
    uint64_t rounds;
    int waited = 0;

    store_get_stats(&st);
    rounds = st.rounds;
    while (store_kick(), store_get_stats(&st), st.rounds < rounds + 2 && waited++ < 3000)
        usleep(10000);
    return st;
}

/* Replay-log bytes lost to its caps: counted once in the stats' `lost`, and
 * kept whole in the session (its detail shows them). */
TEST(replay_losses_counted_once)
{
    char dir[64], err[512];
    store_stats st;
    session *s;
    uint64_t rounds;
    int i, id;

    temp_dir(dir, sizeof(dir));
    CHECK(open_store(dir, 0, err, sizeof(err)) == 0, "opens");
    sessions_lock();
    s = sessions_create(SESSION_MODE_RUN, 77, "dotnet lossy.dll");
    s->persist.replay_lost = 100;
    id = s->id;
    sessions_unlock();
    for (i = 0; i < 3; i++) { /* three rounds, each seeing the same replay_lost */
        store_get_stats(&st);
        rounds = st.rounds;
        st = one_round();
        CHECK(st.rounds >= rounds + 2, "round %d was done", i + 1);
    }
    store_get_stats(&st);
    CHECK(st.lost == 100, "counted once in the stats (%llu)", (unsigned long long)st.lost);
    sessions_lock();
    CHECK(sessions_peek(id)->persist.replay_lost == 100, "the session keeps its total");
    sessions_unlock();
    close_store();
    remove_dir(dir);
}

/* Rounds until the writer has nothing left for its next one (two in a row
 * say so: a round's stats are taken while it copies); the stats then. */
static store_stats caught_up(void)
{
    store_stats st = one_round();
    int rounds = 0;

    while (rounds++ < 500) {
        uint64_t backlog = st.backlog;
        st = one_round();
        if (backlog == 0 && st.backlog == 0)
            break;
    }
    return st;
}

/* `n` functions of a live session, each JITed once and written; then each
 * JITed again, last first (only the first and the last: ends_only). */
static session *rejit(unsigned n, int ends_only)
{
    session *s;
    unsigned i;
    char text[64];

    sessions_lock();
    s = sessions_create(SESSION_MODE_RUN, 5151, "dotnet tiers.dll");
    apply(s, hello(s->token));
    for (i = 0; i < n; i++) {
        snprintf(text, sizeof(text), "Tiers.Type.Method%u()", i);
        apply(s, name(0x7f0000300000ull + i * 16, text));
        apply(s, jit(0x7f0000300000ull + i * 16, 0x7f0000900000ull + i * 64, MONO + 100 + i));
    }
    sessions_unlock();
    caught_up(); /* every function written once */
    sessions_lock();
    for (i = n; i-- > 0;)
        if (!ends_only || i == 0 || i == n - 1)
            apply(s,
                  jit(0x7f0000300000ull + i * 16, 0x7f0001900000ull + i * 64, MONO + 900000 + i));
    sessions_unlock();
    return s;
}

static session *rejit_all(unsigned n) { return rejit(n, 0); }

static const char *const REJITTED = "SELECT count(*) FROM functions WHERE jit_count = 2";

/* A function already written that compiles again (a tier-up) waits for its
 * batch of rewrites (--rewrite-delay): one row rewrite per re-JIT per round
 * scattered over the table cost a page of disk writes each. The batch goes
 * when the session ends, when the writer stops, or with no delay at the next
 * round; every row is then as in memory, across several slices. */
TEST(rewrites_wait_for_their_batch)
{
    const unsigned n = STORE_SLICE_FUNCTIONS + 1000; /* a batch of two slices */
    char dir[64], err[512];
    store_options delayed = {.rewrite_ms = 60000}, none = {.rewrite_ms = 0};
    store_stats st;
    session *s;

    temp_dir(dir, sizeof(dir));
    delayed.dir = none.dir = dir;
    CHECK(store_open(&delayed, err, sizeof(err)) == 0, "opens with a delay of 60 s");
    s = rejit_all(n);
    st = caught_up();
    CHECK(count_rows(dir, "SELECT count(*) FROM functions") == n && count_rows(dir, REJITTED) == 0,
          "every function written once, no re-JIT written yet (%lld)", count_rows(dir, REJITTED));
    CHECK(st.deferred == n && st.backlog == 0,
          "the stats say %u deferred, none in the backlog "
          "(%llu, %llu)",
          n, (unsigned long long)st.deferred, (unsigned long long)st.backlog);
    sessions_lock();
    session_exited(s, NOW + 5000);
    sessions_unlock();
    st = caught_up();
    CHECK(count_rows(dir, REJITTED) == n && st.deferred == 0,
          "its end writes them all (%lld rows, %llu deferred)", count_rows(dir, REJITTED),
          (unsigned long long)st.deferred);
    close_store();

    CHECK(store_open(&delayed, err, sizeof(err)) == 0, "opens again");
    s = rejit_all(n); /* a second session, left live */
    close_store();    /* as the server stops */
    CHECK(count_rows(dir, REJITTED) == 2 * n,
          "the writer's last round writes a live session's "
          "(%lld of %u)",
          count_rows(dir, REJITTED), 2 * n);

    CHECK(store_open(&none, err, sizeof(err)) == 0, "opens with no delay");
    s = rejit_all(n);
    st = caught_up();
    CHECK(count_rows(dir, REJITTED) == 3 * n && st.deferred == 0,
          "with no delay the next rounds write them (%lld of %u)", count_rows(dir, REJITTED),
          3 * n);
    close_store();

    /* two waiting among more functions than a round looks at */
    CHECK(store_open(&delayed, err, sizeof(err)) == 0, "opens with a delay again");
    s = rejit(STORE_SCAN_FUNCTIONS + 1000, 1);
    sessions_lock();
    session_exited(s, NOW + 5000);
    sessions_unlock();
    st = caught_up();
    CHECK(count_rows(dir, REJITTED) == 3 * n + 2 && st.deferred == 0 && st.backlog == 0,
          "the first and the last of %u, rounds apart (%lld of %u)", STORE_SCAN_FUNCTIONS + 1000,
          count_rows(dir, REJITTED) - 3 * n, 2);
    close_store();
    remove_dir(dir);
}

/* An idle live session: its agent's periodic records move only the link
 * traffic counters. No round commits for them until its "still seen" mark is
 * due (STORE_SEEN_MS; an hour here, made due by moving the last mark back),
 * which then writes its header once; an unchanged one gets only the mark; a
 * real change is written at the next round; the server's stop writes the
 * traffic and the mark at once. */
TEST(idle_session_commits_nothing)
{
    char dir[64], err[512];
    const char *updated = "SELECT updated_ns FROM sessions";
    const uint64_t hour_ns = 3600ull * 1000000000u;
    store_options hourly = {.seen_ms = 3600u * 1000u}; /* no mark comes due by itself here */
    store_stats st;
    session *s;
    uint64_t commits, rows, records;
    long long seen;
    int i;

    temp_dir(dir, sizeof(dir));
    hourly.dir = dir;
    CHECK(store_open(&hourly, err, sizeof(err)) == 0, "opens, marking idle sessions hourly");
    sessions_lock();
    s = sessions_create(SESSION_MODE_RUN, 4242, "dotnet idle.dll");
    apply(s, hello(s->token));
    sessions_unlock();
    st = caught_up();
    commits = st.commits;
    rows = st.rows;
    seen = count_rows(dir, updated);
    for (i = 0; i < 3; i++) {
        sessions_lock();
        s->records++; /* a DROPS record every 500 ms */
        s->bytes += 96;
        sessions_unlock();
        st = one_round();
    }
    CHECK(st.commits == commits && st.rows == rows && count_rows(dir, updated) == seen,
          "traffic alone: no commit (%llu more), no row",
          (unsigned long long)(st.commits - commits));

    sessions_lock();
    s->persist.stored_seen_ns -= hour_ns; /* as if an hour went by (unsigned: wraps back) */
    sessions_unlock();
    st = one_round();
    CHECK(
        st.commits == commits + 1 && st.rows == rows + 1 && count_rows(dir, updated) > seen,
        "the mark is due: one commit writes the header with its traffic (%llu commits, %llu rows)",
        (unsigned long long)(st.commits - commits), (unsigned long long)(st.rows - rows));
    seen = count_rows(dir, updated);

    sessions_lock();
    s->persist.stored_seen_ns -= hour_ns;
    sessions_unlock();
    st = one_round();
    CHECK(st.commits == commits + 2 && st.rows == rows + 1 && count_rows(dir, updated) > seen,
          "due again, nothing changed: only the mark (%llu commits, %llu rows)",
          (unsigned long long)(st.commits - commits), (unsigned long long)(st.rows - rows));

    sessions_lock();
    snprintf(s->error, sizeof(s->error), "something the user should see");
    sessions_unlock();
    st = one_round();
    CHECK(st.commits == commits + 3 && st.rows == rows + 2,
          "a real change goes at the next round (%llu commits, %llu rows)",
          (unsigned long long)(st.commits - commits), (unsigned long long)(st.rows - rows));

    seen = count_rows(dir, updated);
    sessions_lock();
    s->records += 2; /* traffic again, then the server stops with the session live */
    records = s->records;
    sessions_unlock();
    close_store();
    CHECK(count_rows(dir, "SELECT json_extract(header, '$.records') FROM sessions") ==
                  (long long)records &&
              count_rows(dir, updated) > seen,
          "the stop writes the traffic and the mark (records %lld, want %llu)",
          count_rows(dir, "SELECT json_extract(header, '$.records') FROM sessions"),
          (unsigned long long)records);
    remove_dir(dir);
}

TEST(header_round_trip)
{
    session *s = session_new(7, SESSION_MODE_ATTACH, 99, "cmd", "0123456789abcdef0123456789abcdef");
    session *t = session_new(7, SESSION_MODE_RUN, 0, "cmd", "");
    json_t *h;

    s->state = SESSION_DETACHED;
    s->drops.dropped[WIRE_DROP_SLOW_SERVER] = 12345;
    s->agent_cost.buckets[3] = 77;
    s->tier_jit_ns[2] = 1ull << 40;
    s->clock_offset_ns = -5;
    s->detach_hresult = (int32_t)0x80004005;
    s->last_seq = UINT64_MAX; /* the full unsigned range */
    snprintf(s->error, sizeof(s->error), "refused");
    h = store_header_to_json(s);
    store_header_from_json(t, h);
    CHECK(t->state == SESSION_DETACHED && t->mode == SESSION_MODE_ATTACH && t->pid == 99,
          "state, mode, pid");
    CHECK(t->drops.dropped[WIRE_DROP_SLOW_SERVER] == 12345 && t->agent_cost.buckets[3] == 77 &&
              t->tier_jit_ns[2] == 1ull << 40,
          "arrays");
    CHECK(t->clock_offset_ns == -5 && t->detach_hresult == (int32_t)0x80004005 &&
              t->last_seq == UINT64_MAX,
          "signed and unsigned extremes");
    CHECK(strcmp(t->token, s->token) == 0 && strcmp(t->error, "refused") == 0, "strings");
    json_decref(h);
    session_free(s);
    session_free(t);
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

TEST(migrates_from_version_1)
{
    char dir[64], path[128], err[512];
    sqlite3 *db = NULL;
    session *s;
    long long version = 0;
    sqlite3_stmt *st = NULL;

    temp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/jitscope.db", dir);
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
    CHECK(open_store(dir, 0, err, sizeof(err)) == 0, "the server opens it: %s", err);
    sessions_lock();
    s = sessions_get(5);
    CHECK(s && s->pid == 77 && s->functions[0].jit_count == 1 &&
              strcmp(s->functions[0].name, "Old.Method()") == 0 &&
              s->functions[0].compilation_count == 0,
          "its session reads back (no compilations: version 1 did not keep them)");
    CHECK(s && s->module_count == 1 && s->event_seq == 1, "modules and events");
    CHECK(s && s->function_count == 2 && strcmp(s->functions[1].name, "Old?()") == 0,
          "a name that is not UTF-8 (an edited file) reads back with '?' for the bad byte");
    CHECK(s && s->thread_count == 2 && s->functions[0].thread_row == 2,
          "a function written before thread rows were kept names its ThreadID's newest row (%u)",
          s ? s->functions[0].thread_row : 0);
    sessions_unlock();
    close_store();
    if (sqlite3_open(path, &db) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        version = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    CHECK(version == STORE_SCHEMA_VERSION, "the file is at version %d now (%lld)",
          STORE_SCHEMA_VERSION, version);
    remove_dir(dir);
}

TEST(refuses_what_it_cannot_use)
{
    char dir[64], path[128], err[512];
    FILE *f;
    int i;

    temp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/jitscope.db", dir);
    f = fopen(path, "w");
    for (i = 0; f && i < 8192; i++)
        fputc((i * 7919) & 0xff, f);
    if (f)
        fclose(f);
    CHECK(open_store(dir, 0, err, sizeof(err)) != 0 && strstr(err, "not a database"), "garbage: %s",
          err);
    unlink(path);
    CHECK(exec_sql(path, "PRAGMA application_id = 1234; CREATE TABLE t (x);") == 0,
          "another program's database");
    CHECK(open_store(dir, 0, err, sizeof(err)) != 0 && strstr(err, "another program"), "%s", err);
    unlink(path);
    CHECK(exec_sql(path, "PRAGMA application_id = 1246319699; PRAGMA user_version = 99;") == 0,
          "a newer jitscope's file");
    CHECK(open_store(dir, 0, err, sizeof(err)) != 0 && strstr(err, "newer jitscope"), "%s", err);
    unlink(path);
    CHECK(exec_sql(path, "CREATE TABLE notes (x);") == 0, "an SQLite file of another program");
    CHECK(open_store(dir, 0, err, sizeof(err)) != 0 && strstr(err, "tables of another program"),
          "is not made ours: %s", err);
    unlink(path);

    /* another program holds jitscope's file locked for writing */
    CHECK(open_store(dir, 0, err, sizeof(err)) == 0, "a good file: %s", err);
    store_close();
    {
        sqlite3 *holder = NULL;
        CHECK(sqlite3_open(path, &holder) == SQLITE_OK &&
                  sqlite3_exec(holder, "BEGIN EXCLUSIVE; DELETE FROM sessions;", NULL, NULL,
                               NULL) == SQLITE_OK,
              "a writer holds the file");
        CHECK(open_store(dir, 0, err, sizeof(err)) != 0 && strstr(err, "locked"),
              "a locked file: %s", err);
        sqlite3_exec(holder, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_close(holder);
    }
    unlink(path);
    sessions_lock();
    CHECK(sessions_count() == 0, "nothing was listed from any of them");
    sessions_unlock();
    remove_dir(dir);
}

static const check_test tests[] = {
    TEST_ENTRY(written_and_read_back),
    TEST_ENTRY(thread_rows_read_back),
    TEST_ENTRY(keep_deletes_the_oldest),
    TEST_ENTRY(keep_events_trims_the_log),
    TEST_ENTRY(replay_losses_counted_once),
    TEST_ENTRY(header_round_trip),
    TEST_ENTRY(migrates_from_version_1),
    TEST_ENTRY(refuses_what_it_cannot_use),
    TEST_ENTRY(rewrites_wait_for_their_batch),
    TEST_ENTRY(idle_session_commits_nothing),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
