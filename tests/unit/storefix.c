/* storefix.c -- what the test_store_* binaries share: a storage directory
 * of each test's own, storage opened and closed as the server does, sessions
 * made of hand-made records (records.h, fed through the link's path into
 * storage) and read back, and the database file looked at with SQLite.
 * Nothing here checks. See storefix.h.
 */
#include "storefix.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "budget.h"
#include "fixtures.h"
#include "records.h"
#include "sessions.h"
#include "store.h"
#include "views.h"

char storefix_dir[64];
size_t storefix_compact_min;

void remove_dir(const char *dir)
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

int open_with(const char *dir, unsigned keep, unsigned keep_events, size_t journal, char *err,
              size_t size)
{
    persist_options o = {.dir = dir,
                         .keep = keep,
                         .keep_events = keep_events,
                         .journal_max = journal,
                         .unload_ms = 1,
                         .compact_min = storefix_compact_min};
    return persist_open(&o, err, size);
}

int open_store(const char *dir, char *err, size_t size)
{
    return open_with(dir, 0, 0, 0, err, size);
}

/* As a server stops: the last word, then every session forgotten (the next
 * open reads them back from the file). */
void close_store(void)
{
    persist_close();
    sessions_lock();
    sessions_free_all();
    sessions_unlock();
}

/* Waits (at most 20 s) until storage has committed all it was given for id. */
int wait_synced(int id)
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
session *new_session(int mode, pid_t pid, const char *command)
{
    session *s = sessions_create(mode, pid, command);

    if (s)
        rec_feed(s, rec_hello(s->token));
    return s;
}

/* n functions named and JITed in s, the first `rejits` compiled twice. */
void jit_functions(session *s, unsigned n, unsigned rejits, uint64_t base)
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
int stored_session(const char *command, unsigned functions, unsigned rejits)
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
void end_session(session *s)
{
    session_exit_code(s, 0, 0, REC_NOW + 1000);
    session_link_lost(s, REC_NOW + 1000);
}

/* What the views serve of s's content (its own fields left out), as JSON text. */
char *content(session *s)
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
char *stored_and_ended(unsigned functions, unsigned rejits, session **s)
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
char *ended_and_live(unsigned functions, unsigned rejits, int live_mode, unsigned live_functions,
                     session **ended, session **live)
{
    *ended = new_session(SESSION_MODE_RUN, 4242, "dotnet app.dll");
    *live = new_session(live_mode, 4343, "dotnet live.dll");
    jit_functions(*ended, functions, rejits, 0x7f0000300000ull);
    jit_functions(*live, live_functions, 0, 0x7f0000800000ull);
    end_session(*ended);
    return content(*ended);
}

char *content_of(int id)
{
    char *text;

    persist_prepare(id);
    sessions_lock();
    text = sessions_get(id) ? content(sessions_get(id)) : NULL;
    sessions_unlock();
    return text;
}

int same_text(const char *a, const char *b)
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
long long count_rows(const char *dir, const char *sql)
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
long long count_rows_of(const char *dir, const char *sql, int id)
{
    char text[256];

    snprintf(text, sizeof(text), sql, id);
    return count_rows(dir, text);
}

int exec_sql(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open(path, &db) == SQLITE_OK &&
                     sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK
                 ? 0
                 : -1;
    sqlite3_close(db);
    return rc;
}

/* Three threads, one after another, on ThreadID 0x1000 (the runtime reuses
 * them), each named before it starts and compiling one method; a stack
 * snapshot while the second runs. Lock held. */
void three_threads_on_one_id(session *s)
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
int three_threads_read_back(session *s)
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

off_t file_size(const char *dir, const char *name)
{
    char path[600];
    struct stat st;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return stat(path, &st) == 0 ? st.st_size : 0;
}

/* The disk is full: no file of this process may grow past the database's
 * files as they are (SIGXFSZ ignored: a write fails instead); *unlimited is
 * the limit to set back for room again. */
void disk_full(struct rlimit *unlimited)
{
    struct rlimit limited;
    off_t wal = file_size(storefix_dir, "jitscope.db-wal"),
          db = file_size(storefix_dir, "jitscope.db");

    signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, unlimited);
    limited = *unlimited;
    limited.rlim_cur = (rlim_t)(wal > db ? wal : db);
    setrlimit(RLIMIT_FSIZE, &limited);
}

int storefix_setup(void)
{
    storefix_compact_min = 1;
    snprintf(storefix_dir, sizeof(storefix_dir), "/tmp/jitscope-test-store-XXXXXX");
    return mkdtemp(storefix_dir) != NULL ? 0 : -1;
}

void storefix_teardown(void)
{
    budget_set_max(0); /* a test that stopped half way may have left it set */
    close_store();
    remove_dir(storefix_dir);
}
