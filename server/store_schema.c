/* store_schema.c -- the database's schema and its migrations (see store.h).
 *
 * user_version is the schema version; each migration takes the file from one
 * version to the next in one transaction, so a file is always at a version
 * this code knows. Version 1 held the session header, functions, modules,
 * threads and the event log; version 2 added each function's compilations
 * and the replay log behind stack snapshots, profiles and the timeline;
 * version 3 left the compilation row of a function compiled once out;
 * version 4 keeps each session as its log and snapshots; version 5 lets a
 * snapshot's state take several parts; version 6 compresses log chunks.
 * A new file is made at the newest version in one transaction
 * (store_schema_new), not by running every migration: their tables of rows
 * would only be dropped again, and each of those transactions writes pages
 * of 64 KiB (opening a new file took 7 ms; a server is started per `run`). */
#include "store_db.h"

#include <stdio.h>
#include <string.h>

static const char *const store_migrations[STORE_SCHEMA_VERSION] = {
    /* 0 -> 1 */
    "CREATE TABLE sessions ("
    " id INTEGER PRIMARY KEY, root_id INTEGER NOT NULL, pid INTEGER NOT NULL,"
    " state TEXT NOT NULL, created_ns INTEGER NOT NULL, ended_ns INTEGER NOT NULL,"
    " updated_ns INTEGER NOT NULL, command_line TEXT NOT NULL,"
    " header TEXT NOT NULL, summary TEXT NOT NULL);"
    "CREATE TABLE functions ("
    " session_id INTEGER NOT NULL, idx INTEGER NOT NULL, function_id INTEGER NOT NULL,"
    " module_id INTEGER NOT NULL, thread_id INTEGER NOT NULL, name TEXT,"
    " token INTEGER NOT NULL, il_size INTEGER NOT NULL, native_size INTEGER NOT NULL,"
    " flags INTEGER NOT NULL, hresult INTEGER NOT NULL, jitted INTEGER NOT NULL,"
    " jit_count INTEGER NOT NULL, first_jit_ns INTEGER NOT NULL, last_jit_ns INTEGER NOT NULL,"
    " jit_time_ns INTEGER NOT NULL, jit_time_total_ns INTEGER NOT NULL, tier INTEGER NOT NULL,"
    " versions INTEGER NOT NULL, code_starts BLOB,"
    " PRIMARY KEY (session_id, idx)) WITHOUT ROWID;"
    "CREATE TABLE modules ("
    " session_id INTEGER NOT NULL, idx INTEGER NOT NULL, module_id INTEGER NOT NULL,"
    " assembly_id INTEGER NOT NULL, base_address INTEGER NOT NULL, path TEXT, assembly TEXT,"
    " loaded_ns INTEGER NOT NULL, unloaded_ns INTEGER NOT NULL, functions INTEGER NOT NULL,"
    " flags INTEGER NOT NULL, hresult INTEGER NOT NULL,"
    " PRIMARY KEY (session_id, idx)) WITHOUT ROWID;"
    "CREATE TABLE threads ("
    " session_id INTEGER NOT NULL, idx INTEGER NOT NULL, thread_id INTEGER NOT NULL,"
    " os_thread_id INTEGER NOT NULL, flags INTEGER NOT NULL, name TEXT, alive INTEGER NOT NULL,"
    " created_ns INTEGER NOT NULL, ended_ns INTEGER NOT NULL,"
    " PRIMARY KEY (session_id, idx)) WITHOUT ROWID;"
    "CREATE TABLE events ("
    " session_id INTEGER NOT NULL, seq INTEGER NOT NULL, time_ns INTEGER NOT NULL,"
    " type INTEGER NOT NULL, flags INTEGER NOT NULL, id INTEGER NOT NULL,"
    " value INTEGER NOT NULL, extra INTEGER NOT NULL, tier INTEGER NOT NULL,"
    " PRIMARY KEY (session_id, seq)) WITHOUT ROWID;",
    /* 1 -> 2 */
    "CREATE TABLE compilations ("
    " session_id INTEGER NOT NULL, function_idx INTEGER NOT NULL, n INTEGER NOT NULL,"
    " time_ns INTEGER NOT NULL, jit_ns INTEGER NOT NULL, native_size INTEGER NOT NULL,"
    " tier INTEGER NOT NULL, PRIMARY KEY (session_id, function_idx, n)) WITHOUT ROWID;"
    "ALTER TABLE functions ADD COLUMN compilations_unkept INTEGER NOT NULL DEFAULT 0;"
    "CREATE TABLE replay ("
    " session_id INTEGER NOT NULL, chunk INTEGER NOT NULL, data BLOB NOT NULL,"
    " PRIMARY KEY (session_id, chunk)) WITHOUT ROWID;",
    /* 2 -> 3: a function compiled once (most) has no compilations row, as it
     * has no compilation list in memory: its fields are that compilation.
     * compilation_count -1: written before version 3, the rows say it all. */
    "ALTER TABLE functions ADD COLUMN compilation_count INTEGER NOT NULL DEFAULT -1;",
    /* 3 -> 4: each session is the log of what its agent sent (chunks of
     * entries) and, once compacted, a snapshot of its folded state with the
     * observation frames beside it (store.h). The tables of rows are
     * converted by store_legacy.c, then dropped. */
    "CREATE TABLE log ("
    " session_id INTEGER NOT NULL, chunk INTEGER NOT NULL, flags INTEGER NOT NULL,"
    " bytes BLOB NOT NULL, checksum INTEGER NOT NULL, PRIMARY KEY (session_id, chunk));"
    "CREATE TABLE snapshots ("
    " session_id INTEGER NOT NULL, part INTEGER NOT NULL, parts INTEGER NOT NULL,"
    " upto_chunk INTEGER NOT NULL, codec INTEGER NOT NULL, raw_bytes INTEGER NOT NULL,"
    " bytes BLOB NOT NULL, PRIMARY KEY (session_id, part));",
    /* 4 -> 5: a snapshot's folded state may take several parts (at most
     * 16 MiB of frames each), so each part says what it holds: 0 the folded
     * state, 1 observation entries. Version 4 wrote the state as part 0 alone. */
    ("ALTER TABLE snapshots ADD COLUMN kind INTEGER NOT NULL DEFAULT 0;"
     "UPDATE snapshots SET kind = CASE WHEN part = 0 THEN 0 ELSE 1 END;"),
    /* 5 -> 6: a log chunk may be compressed (codec as in snapshots; 0: the
     * bytes as they came, as every chunk before), raw_bytes its size unpacked
     * (0 for a raw chunk: its length). The checksum is of the stored bytes. */
    ("ALTER TABLE log ADD COLUMN codec INTEGER NOT NULL DEFAULT 0;"
     "ALTER TABLE log ADD COLUMN raw_bytes INTEGER NOT NULL DEFAULT 0;"),
};

/* The newest version's tables, as the migrations above leave them (the unit
 * test schema_new_is_the_migrated_schema compares the two column by column). */
static const char store_schema_new[] =
    "CREATE TABLE sessions ("
    " id INTEGER PRIMARY KEY, root_id INTEGER NOT NULL, pid INTEGER NOT NULL,"
    " state TEXT NOT NULL, created_ns INTEGER NOT NULL, ended_ns INTEGER NOT NULL,"
    " updated_ns INTEGER NOT NULL, command_line TEXT NOT NULL,"
    " header TEXT NOT NULL, summary TEXT NOT NULL);"
    "CREATE TABLE log ("
    " session_id INTEGER NOT NULL, chunk INTEGER NOT NULL, flags INTEGER NOT NULL,"
    " bytes BLOB NOT NULL, checksum INTEGER NOT NULL, codec INTEGER NOT NULL DEFAULT 0,"
    " raw_bytes INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (session_id, chunk));"
    "CREATE TABLE snapshots ("
    " session_id INTEGER NOT NULL, part INTEGER NOT NULL, parts INTEGER NOT NULL,"
    " upto_chunk INTEGER NOT NULL, codec INTEGER NOT NULL, raw_bytes INTEGER NOT NULL,"
    " bytes BLOB NOT NULL, kind INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (session_id, part));";

size_t store_cache_bound(sqlite3 *db)
{
    int used = 0, high = 0;

    if (sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_USED, &used, &high, 0) != SQLITE_OK)
        return 0;
    if (used > (int)STORE_CACHE_MAX) {
        sqlite3_db_release_memory(db); /* the pages no statement holds */
        if (sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_USED, &used, &high, 0) != SQLITE_OK)
            return 0;
    }
    return used > 0 ? (size_t)used : 0;
}

int store_exec(sqlite3 *db, const char *sql, char *err, size_t errsz)
{
    char *message = NULL;

    if (sqlite3_exec(db, sql, NULL, NULL, &message) == SQLITE_OK)
        return 0;
    snprintf(err, errsz, "%s", message ? message : sqlite3_errmsg(db));
    sqlite3_free(message);
    return -1;
}

/* One integer PRAGMA's value, or -1 with why in err. */
static long long store_pragma(sqlite3 *db, const char *name, char *err, size_t errsz)
{
    char sql[64];
    sqlite3_stmt *st = NULL;
    long long v = -1;

    snprintf(sql, sizeof(sql), "PRAGMA %s", name);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    else
        snprintf(err, errsz, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return v;
}

/* How many tables a file without our marks already has (0: a new file we may
 * make ours); -1 with why in err when it cannot be read. */
static long long store_pragma_count_tables(sqlite3 *db, char *err, size_t errsz)
{
    sqlite3_stmt *st = NULL;
    long long n = -1;

    err[0] = '\0';
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    else
        snprintf(err, errsz, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return n;
}

/* One script and the version it leaves the file at, in one transaction. */
static int store_migration(sqlite3 *db, const char *script, int version, char *err, size_t errsz)
{
    char sql[128];

    snprintf(sql, sizeof(sql), "PRAGMA user_version = %d; PRAGMA application_id = %d;", version,
             STORE_APPLICATION_ID);
    if (store_exec(db, "BEGIN IMMEDIATE", err, errsz) != 0)
        return -1;
    if (store_exec(db, script, err, errsz) != 0 || store_exec(db, sql, err, errsz) != 0 ||
        store_exec(db, "COMMIT", err, errsz) != 0) {
        char ignored[64];
        store_exec(db, "ROLLBACK", ignored, sizeof(ignored));
        return -1;
    }
    return 0;
}

static int store_migrate(sqlite3 *db, int from, int target, char *err, size_t errsz)
{
    int v;

    if (from == 0 && target == STORE_SCHEMA_VERSION) /* a new file: the newest tables at once */
        return store_migration(db, store_schema_new, target, err, errsz);
    for (v = from; v < target; v++)
        if (store_migration(db, store_migrations[v], v + 1, err, errsz) != 0)
            return -1;
    return 0;
}

int store_schema_open(const char *path, int target, sqlite3 **out, char *err, size_t errsz)
{
    sqlite3 *db = NULL;
    long long version, app;
    char why[256] = "";

    *out = NULL;
    if (target < 1 || target > STORE_SCHEMA_VERSION) {
        snprintf(err, errsz, "no schema version %d", target);
        return -1;
    }
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        snprintf(err, errsz, "%s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        goto fail;
    }
    sqlite3_busy_timeout(db, 2000);
    sqlite3_extended_result_codes(db, 1);
    /* the first read of the header tells a corrupt or foreign file */
    if ((version = store_pragma(db, "user_version", why, sizeof(why))) < 0 ||
        (app = store_pragma(db, "application_id", why, sizeof(why))) < 0) {
        snprintf(err, errsz, "%s: %s (corrupt, or not a database)", path, why);
        goto fail;
    }
    if (app != 0 && app != STORE_APPLICATION_ID) {
        snprintf(err, errsz, "%s is an SQLite database of another program (application_id %lld)",
                 path, app);
        goto fail;
    }
    if (app == 0 && version != 0) {
        snprintf(err, errsz, "%s is not a jitscope database (user_version %lld)", path, version);
        goto fail;
    }
    if (version == 0 && store_pragma_count_tables(db, why, sizeof(why)) != 0) {
        snprintf(err, errsz,
                 "%s is not a jitscope database (it holds tables of another program)%s%s", path,
                 why[0] ? ": " : "", why);
        goto fail;
    }
    if (version > STORE_SCHEMA_VERSION) {
        snprintf(err, errsz,
                 "%s has schema version %lld, made by a newer jitscope; this one reads up to %d",
                 path, version, STORE_SCHEMA_VERSION);
        goto fail;
    }
    /* a new file gets large pages (what it holds is mostly blobs of log chunks
     * and snapshots, written a page per system call) and gives the pages a
     * compaction frees back to the file system (store_writer.c); both can be
     * set only on an empty file. Its switch to WAL (written with the rollback
     * journal) is not synced: eight fdatasyncs of an empty file, most of
     * opening a new one, which only a power loss in that moment could undo. */
    if ((version == 0 && store_exec(db,
                                    "PRAGMA synchronous = OFF; PRAGMA page_size = 65536;"
                                    " PRAGMA auto_vacuum = INCREMENTAL;",
                                    why, sizeof(why)) != 0) ||
        /* the WAL is cut back to 64 MiB after a checkpoint that emptied it */
        store_exec(db,
                   "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
                   " PRAGMA journal_size_limit = 67108864;",
                   why, sizeof(why)) != 0 ||
        store_migrate(db, (int)version, target, why, sizeof(why)) != 0) {
        snprintf(err, errsz, "%s: %s", path, why);
        goto fail;
    }
    /* an integrity problem in the schema itself shows here, not later */
    if (store_exec(db, "SELECT count(*) FROM sessions", why, sizeof(why)) != 0) {
        snprintf(err, errsz, "%s: %s", path, why);
        goto fail;
    }
    *out = db;
    return 0;
fail:
    sqlite3_close(db);
    return -1;
}
