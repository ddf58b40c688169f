/* test_store_files.c -- unit tests of storage's files of other versions
 * and other programs: a version 4 file is migrated and a version 1 file
 * converted, each serving what it stored; a new file's schema is the migrated
 * one, column by column; a session's header round-trips, an old file's with
 * its counters; corrupt, foreign, newer and locked files are refused.
 *
 * The storage fixture (a directory per test, sessions folded from hand-made
 * records and read back) is storefix.h's.
 * Build: make build/tests/test_store_files && build/tests/test_store_files
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "check.h"
#include "fixtures.h"
#include "records.h"
#include "session_header.h"
#include "persist.h"
#include "sessions.h"
#include "store.h"
#include "store_db.h"
#include "storefix.h"

/* A file of version 4 (snapshot parts without `kind`: part 0 the state, the
 * others observations) opens at this version and serves what it stored. */
TEST(a_version_4_file_is_migrated)
{
    char err[512], path[128];
    session *s;
    int id;

    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "open: %s", err);
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
    CHECK(count_rows_of(storefix_dir,
                        "SELECT count(*) FROM snapshots WHERE session_id = %d AND kind = 1",
                        id) >= 1,
          "the snapshot has an observation part");
    snprintf(path, sizeof(path), "%s/jitscope.db", storefix_dir);
    CHECK(exec_sql(path,
                   "ALTER TABLE snapshots DROP COLUMN kind; ALTER TABLE log DROP COLUMN codec;"
                   " ALTER TABLE log DROP COLUMN raw_bytes; PRAGMA user_version = 4;") == 0,
          "made a version 4 file");

    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "the version 4 file opens: %s", err);
    CHECK(count_rows(storefix_dir, "PRAGMA user_version") == STORE_SCHEMA_VERSION,
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

    snprintf(fresh, sizeof(fresh), "%s/jitscope.db", storefix_dir);
    snprintf(migrated, sizeof(migrated), "%s/migrated.db", storefix_dir);
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
    CHECK(count_rows(storefix_dir, "SELECT count(*) FROM sqlite_master WHERE type = 'table'") == 3,
          "a new file has just the three tables");
    snprintf(migrated, sizeof(migrated), "%s/migrated.db-wal", storefix_dir);
    unlink(migrated);
    snprintf(migrated, sizeof(migrated), "%s/migrated.db-shm", storefix_dir);
    unlink(migrated);
    snprintf(migrated, sizeof(migrated), "%s/migrated.db", storefix_dir);
    unlink(migrated);
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

    snprintf(path, sizeof(path), "%s/jitscope.db", storefix_dir);
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
    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "the server opens it: %s", err);
    CHECK(count_rows(storefix_dir, "SELECT count(*) FROM sqlite_schema WHERE name = 'functions'") ==
                  0 &&
              count_rows(storefix_dir, "SELECT count(*) FROM snapshots WHERE session_id = 5") == 1,
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
    CHECK(count_rows(storefix_dir, "PRAGMA user_version") == STORE_SCHEMA_VERSION,
          "the file is at version %d now", STORE_SCHEMA_VERSION);
}

TEST(refuses_what_it_cannot_use)
{
    char path[128], err[512];
    FILE *f;
    int i;

    snprintf(path, sizeof(path), "%s/jitscope.db", storefix_dir);
    f = fopen(path, "w");
    for (i = 0; f && i < 8192; i++)
        fputc((i * 7919) & 0xff, f);
    if (f)
        fclose(f);
    CHECK(open_store(storefix_dir, err, sizeof(err)) != 0 && strstr(err, "not a database"),
          "garbage: %s", err);
    unlink(path);
    CHECK(exec_sql(path, "PRAGMA application_id = 1234; CREATE TABLE t (x);") == 0,
          "another program's database");
    CHECK(open_store(storefix_dir, err, sizeof(err)) != 0 && strstr(err, "another program"), "%s",
          err);
    unlink(path);
    CHECK(exec_sql(path, "PRAGMA application_id = 1246319699; PRAGMA user_version = 99;") == 0,
          "a newer jitscope's file");
    CHECK(open_store(storefix_dir, err, sizeof(err)) != 0 && strstr(err, "newer jitscope"), "%s",
          err);
    unlink(path);
    CHECK(exec_sql(path, "CREATE TABLE notes (x);") == 0, "an SQLite file of another program");
    CHECK(open_store(storefix_dir, err, sizeof(err)) != 0 &&
              strstr(err, "tables of another program"),
          "is not made ours: %s", err);
    unlink(path);

    /* another program holds jitscope's file locked for writing */
    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "a good file: %s", err);
    close_store();
    {
        sqlite3 *holder = NULL;
        CHECK(sqlite3_open(path, &holder) == SQLITE_OK &&
                  sqlite3_exec(holder, "BEGIN EXCLUSIVE; DELETE FROM sessions;", NULL, NULL,
                               NULL) == SQLITE_OK,
              "a writer holds the file");
        CHECK(open_store(storefix_dir, err, sizeof(err)) != 0 && strstr(err, "locked"),
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
    TEST_ENTRY(a_version_4_file_is_migrated),
    TEST_ENTRY(schema_new_is_the_migrated_schema),
    TEST_ENTRY(header_round_trip),
    TEST_ENTRY(converts_a_version_1_file),
    TEST_ENTRY(refuses_what_it_cannot_use),
    TEST_END,
};

/* Each test has a directory of its own for storage, removed after it with
 * whatever the test left open. */
static void setup(void) { CHECK(storefix_setup() == 0, "a directory for storage"); }

int main(int argc, char **argv)
{
    return check_main_each(argc, argv, tests, setup, storefix_teardown);
}
