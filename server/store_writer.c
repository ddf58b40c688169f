/* store_writer.c -- the storage writer thread (see store.h and store_db.h).
 *
 * Every STORE_TICK_MS, or at once when kicked (a session ended, a delete, a
 * snapshot), it takes every session's pending work out of the journal and
 * writes it in one transaction on its own connection, with no lock of the
 * server held: log entries as chunks (about STORE_CHUNK_BYTES each, entries
 * whole, compressed with zstd at a fast level, an XXH3 checksum of what is
 * stored), header rows, deletes, and compactions. A
 * compaction replaces a session's chunks up to the snapshot's cut by the
 * snapshot (zstd) and the observation frames of those chunks and of the
 * snapshot before it, in parts of about STORE_PART_BYTES. A round the
 * database refuses (disk full, I/O error) is rolled back, counted, and
 * handed back to the journal to be tried again at the next round.
 */
#include "store_db.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "grow.h"
#include "idmap.h"
#include "wire_decode.h"

enum {
    ST_CHUNK,
    ST_NEXT_CHUNK,
    ST_HEADER,
    ST_SNAP_READ,
    ST_LOG_UPTO,
    ST_SNAP_DELETE,
    ST_LOG_DELETE_UPTO,
    ST_SNAP_INSERT,
    ST_FORGET_LOG,
    ST_FORGET_SNAP,
    ST_FORGET_SESSION,
    ST_COUNT_SESSIONS,
    ST_COUNT
};

static const char *const writer_sql[ST_COUNT] = {
    [ST_CHUNK] = "INSERT INTO log (session_id, chunk, flags, bytes, checksum, codec, raw_bytes)"
                 " VALUES (?,?,?,?,?,?,?)",
    [ST_NEXT_CHUNK] =
        "SELECT max(coalesce((SELECT max(chunk) FROM log WHERE session_id = ?1), 0),"
        " coalesce((SELECT max(upto_chunk) FROM snapshots WHERE session_id = ?1), 0))",
    [ST_HEADER] = "INSERT INTO sessions (id, root_id, pid, state, created_ns, ended_ns, updated_ns,"
                  " command_line, header, summary) VALUES (?, 0, 0, ?, ?, ?, ?, '', ?, ?)"
                  " ON CONFLICT (id) DO UPDATE SET state = excluded.state,"
                  " created_ns = excluded.created_ns, ended_ns = excluded.ended_ns,"
                  " updated_ns = excluded.updated_ns, header = excluded.header,"
                  " summary = excluded.summary",
    [ST_SNAP_READ] =
        "SELECT codec, raw_bytes, bytes FROM snapshots WHERE session_id = ? AND kind = 1"
        " ORDER BY part",
    [ST_LOG_UPTO] = "SELECT chunk, bytes, checksum, codec, raw_bytes FROM log"
                    " WHERE session_id = ? AND chunk <= ? ORDER BY chunk",
    [ST_SNAP_DELETE] = "DELETE FROM snapshots WHERE session_id = ?",
    [ST_LOG_DELETE_UPTO] = "DELETE FROM log WHERE session_id = ? AND chunk <= ?",
    [ST_SNAP_INSERT] = "INSERT INTO snapshots (session_id, part, parts, kind, upto_chunk, codec,"
                       " raw_bytes, bytes) VALUES (?,?,?,?,?,?,?,?)",
    [ST_FORGET_LOG] = "DELETE FROM log WHERE session_id = ?",
    [ST_FORGET_SNAP] = "DELETE FROM snapshots WHERE session_id = ?",
    [ST_FORGET_SESSION] = "DELETE FROM sessions WHERE id = ?",
    [ST_COUNT_SESSIONS] = "SELECT count(*) FROM sessions",
};

static struct {
    sqlite3 *db;
    sqlite3_stmt *st[ST_COUNT];
    store_options options;
    pthread_t thread;
    int started;
    idmap next_chunk; /* session id -> its next chunk number (0: ask the database) */
    /* the writer's own counters (its thread only), published into stats
     * under stats_lock at the end of each round */
    uint64_t chunks, snapshots, bytes_written, sessions_stored;
    int vacuum_due;     /* a compaction freed pages: give them back after the round */
    size_t cache_bytes; /* its page cache after the last round (store_cache_bound) */
    store_packer chunk_packer, snapshot_packer; /* kept from one round to the next */
    pthread_mutex_t stats_lock;
    store_stats stats; /* the writer's part of store_stats */
} writer = {.stats_lock = PTHREAD_MUTEX_INITIALIZER};

static int writer_step(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);

    sqlite3_reset(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

static sqlite3_stmt *writer_statement(int which, int session_id)
{
    sqlite3_stmt *st = writer.st[which];

    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    sqlite3_bind_int(st, 1, session_id);
    return st;
}

/* The next chunk number of a session's log (after everything it has,
 * compacted chunks included). 0 on error. */
static uint64_t writer_next_chunk(int session_id)
{
    uint32_t cached = idmap_get(&writer.next_chunk, (uint64_t)session_id);
    sqlite3_stmt *st;
    uint64_t next = 0;

    if (cached != IDMAP_MISSING)
        return cached;
    st = writer_statement(ST_NEXT_CHUNK, session_id);
    if (sqlite3_step(st) == SQLITE_ROW)
        next = (uint64_t)sqlite3_column_int64(st, 0) + 1;
    sqlite3_reset(st);
    return next;
}

/* One chunk, compressed (an empty mark stays raw). */
static int writer_put_chunk(int session_id, uint64_t chunk, int flags, const uint8_t *bytes,
                            size_t length)
{
    sqlite3_stmt *st = writer_statement(ST_CHUNK, session_id);
    const void *stored = length ? bytes : (const void *)"";
    size_t stored_length = length;
    int codec = STORE_CODEC_RAW;

    if (length) {
        if (store_pack(&writer.chunk_packer, bytes, length, &stored, &stored_length) != 0)
            return -1; /* out of memory: the round fails and is tried again */
        codec = STORE_CODEC_ZSTD;
    }
    sqlite3_bind_int64(st, 2, (sqlite3_int64)chunk);
    sqlite3_bind_int(st, 3, flags);
    sqlite3_bind_blob64(st, 4, stored, stored_length, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)store_checksum(stored, stored_length));
    sqlite3_bind_int(st, 6, codec);
    sqlite3_bind_int64(st, 7, codec == STORE_CODEC_RAW ? 0 : (sqlite3_int64)length);
    if (writer_step(st) != 0)
        return -1;
    writer.chunks++;
    writer.bytes_written += stored_length;
    return 0;
}

/* The end of the last whole entry at or before `limit` (at least one entry). */
static size_t writer_entries_up_to(const uint8_t *log, size_t length, size_t limit)
{
    size_t off = 0;

    while (off < length) {
        store_entry_header h;
        size_t next;
        memcpy(&h, log + off, sizeof(h));
        next = off + sizeof(h) + h.length;
        if (off > 0 && next > limit)
            break;
        off = next;
    }
    return off;
}

/* log[0..length) as chunks; the first flagged `flags`. *last is the number
 * of the last chunk written (unchanged when none). */
static int writer_put_log(int session_id, const uint8_t *log, size_t length, int flags,
                          uint64_t *next, uint64_t *last)
{
    size_t off = 0;

    if (length == 0 && flags) { /* a break with nothing after it yet: an empty mark */
        if (writer_put_chunk(session_id, *next, flags, NULL, 0) != 0)
            return -1;
        *last = (*next)++;
    }
    while (off < length) {
        size_t n = writer_entries_up_to(log + off, length - off, STORE_CHUNK_BYTES);
        if (writer_put_chunk(session_id, *next, flags, log + off, n) != 0)
            return -1;
        *last = (*next)++;
        flags = 0;
        off += n;
    }
    return 0;
}

/* ---- compaction ---------------------------------------------------------------- */

typedef struct writer_buf {
    uint8_t *data;
    size_t length, cap;
} writer_buf;

static int writer_buf_add(writer_buf *b, const void *bytes, size_t n)
{
    if (n == 0)
        return 0;
    if (grow_reserve((void **)&b->data, &b->cap, b->length + n - 1, 1, 64 * 1024, SIZE_MAX / 2,
                     GROW_KEEP) != 0)
        return -1;
    memcpy(b->data + b->length, bytes, n);
    b->length += n;
    return 0;
}

/* Keeps the observation frames of one entry (its own entry in out). */
static int writer_keep_observations(void *ctx, int part, int64_t now_ns, const uint8_t *frames,
                                    size_t length)
{
    writer_buf *out = ctx;
    size_t off = 0, start = out->length;
    store_entry_header h = {0, 0, now_ns};

    (void)part;
    if (writer_buf_add(out, &h, sizeof(h)) != 0)
        return 2; /* out of memory: the compaction fails (and is tried again) */
    while (off < length) {
        wire_frame f;
        size_t used;
        const char *why;
        if (wire_decode_frame(frames + off, length - off, &f, &used, &why) != WIRE_DECODE_OK)
            break; /* what is stored was whole when it was written; a damaged tail ends here */
        if (writer.options.observation && writer.options.observation(f.header.type) &&
            writer_buf_add(out, frames + off, used) != 0)
            return 2;
        off += used;
    }
    h.length = (uint32_t)(out->length - start - sizeof(h));
    if (h.length == 0)
        out->length = start; /* nothing kept: no entry */
    else
        memcpy(out->data + start, &h, sizeof(h));
    return 0;
}

/* The observations of the current snapshot and of the chunks up to `upto`. */
static int writer_gather_observations(int session_id, uint64_t upto, writer_buf *out)
{
    sqlite3_stmt *st = writer_statement(ST_SNAP_READ, session_id);
    const char *why;
    void *raw = NULL; /* one buffer for every part */
    size_t cap = 0;
    int rc = 0;

    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        int codec = sqlite3_column_int(st, 0);
        size_t raw_length = (size_t)sqlite3_column_int64(st, 1);
        const void *bytes = sqlite3_column_blob(st, 2);
        size_t length = (size_t)sqlite3_column_bytes(st, 2);
        if (codec == STORE_CODEC_ZSTD &&
            store_decompress(bytes, length, raw_length, &raw, &cap, &why) == 0)
            rc = writer_buf_add(out, raw, raw_length);
        else if (codec == STORE_CODEC_RAW && length == raw_length)
            rc = writer_buf_add(out, bytes, length);
        /* (a damaged part is left out: its observations are lost) */
    }
    sqlite3_reset(st);
    st = writer_statement(ST_LOG_UPTO, session_id);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)upto);
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        const uint8_t *bytes = sqlite3_column_blob(st, 1);
        size_t length = (size_t)sqlite3_column_bytes(st, 1);
        if ((uint64_t)sqlite3_column_int64(st, 2) != store_checksum(bytes, length) ||
            store_chunk_unpack(sqlite3_column_int(st, 3), sqlite3_column_int64(st, 4), &bytes,
                               &length, &raw, &cap, &why) != 0)
            continue; /* damaged: its observations are lost */
        /* a chunk whose entries do not add up ends where they stop */
        rc = store_entries(bytes, length, writer_keep_observations, out, 0, &why) == 2 ? -1 : 0;
    }
    free(raw);
    sqlite3_reset(st);
    return rc;
}

static int writer_put_part(int session_id, int part, int parts, int kind, uint64_t upto,
                           const uint8_t *raw, size_t length)
{
    sqlite3_stmt *st = writer_statement(ST_SNAP_INSERT, session_id);
    const void *packed = NULL;
    size_t packed_length = 0;
    int rc;

    if (store_pack(&writer.snapshot_packer, raw, length, &packed, &packed_length) != 0)
        return -1;
    sqlite3_bind_int(st, 2, part);
    sqlite3_bind_int(st, 3, parts);
    sqlite3_bind_int(st, 4, kind);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)upto);
    sqlite3_bind_int(st, 6, STORE_CODEC_ZSTD);
    sqlite3_bind_int64(st, 7, (sqlite3_int64)length);
    sqlite3_bind_blob64(st, 8, packed, packed_length, SQLITE_STATIC);
    rc = writer_step(st);
    sqlite3_clear_bindings(st);
    if (rc == 0)
        writer.bytes_written += packed_length;
    return rc;
}

/* Replaces the session's chunks up to `upto` and its snapshot by a new one:
 * the state in parts of about STORE_PART_BYTES (whole frames: a reader
 * decompresses one part at a time), then the observations likewise (whole
 * entries). */
static int writer_compact(int session_id, uint64_t upto, const uint8_t *state, size_t length)
{
    writer_buf obs = {0};
    sqlite3_stmt *st;
    size_t off, n;
    int parts = 0, part = 0, rc = -1;

    if (writer_gather_observations(session_id, upto, &obs) != 0)
        goto done;
    for (off = 0; off < length || parts == 0; off += n, parts++)
        n = store_frames_up_to(state + off, length - off, STORE_PART_BYTES);
    for (off = 0; off < obs.length; off += n, parts++)
        n = writer_entries_up_to(obs.data + off, obs.length - off, STORE_PART_BYTES);
    st = writer_statement(ST_SNAP_DELETE, session_id);
    if (writer_step(st) != 0)
        goto done;
    st = writer_statement(ST_LOG_DELETE_UPTO, session_id);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)upto);
    if (writer_step(st) != 0)
        goto done;
    for (off = 0; off < length || part == 0; off += n) {
        n = store_frames_up_to(state + off, length - off, STORE_PART_BYTES);
        if (writer_put_part(session_id, part++, parts, STORE_SNAPSHOT_STATE, upto, state + off,
                            n) != 0)
            goto done;
    }
    for (off = 0; off < obs.length; off += n) {
        n = writer_entries_up_to(obs.data + off, obs.length - off, STORE_PART_BYTES);
        if (writer_put_part(session_id, part++, parts, STORE_SNAPSHOT_OBSERVATIONS, upto,
                            obs.data + off, n) != 0)
            goto done;
    }
    writer.snapshots++;
    writer.vacuum_due = 1;
    rc = 0;
done:
    free(obs.data);
    return rc;
}

/* ---- one round ----------------------------------------------------------------- */

static int writer_forget(int session_id)
{
    return writer_step(writer_statement(ST_FORGET_LOG, session_id)) ||
           writer_step(writer_statement(ST_FORGET_SNAP, session_id)) ||
           writer_step(writer_statement(ST_FORGET_SESSION, session_id));
}

static int writer_put_header(const store_work *w)
{
    sqlite3_stmt *st = writer_statement(ST_HEADER, w->id);

    sqlite3_bind_text(st, 2, w->state, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, w->created_ns);
    sqlite3_bind_int64(st, 4, w->ended_ns);
    sqlite3_bind_int64(st, 5, w->updated_ns);
    sqlite3_bind_text(st, 6, w->header, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, w->summary, -1, SQLITE_STATIC);
    return writer_step(st);
}

/* One session's work; the chunk numbers it used are kept in *next. */
static int writer_put_work(const store_work *w, uint64_t *next)
{
    size_t before = w->snapshot ? w->cut : w->log_length;
    size_t lost = w->break_at < w->log_length ? w->break_at : w->log_length;
    uint64_t last = *next - 1;

    if (w->forget)
        return writer_forget(w->id);
    if (w->has_header && writer_put_header(w) != 0)
        return -1;
    if (w->break_at != SIZE_MAX && w->break_at < before)
        before = w->break_at; /* (never, with a snapshot: it covers the loss) */
    if (writer_put_log(w->id, w->log, before, 0, next, &last) != 0)
        return -1;
    if (w->snapshot && writer_compact(w->id, last, w->snapshot, w->snapshot_length) != 0)
        return -1;
    if (w->break_at == SIZE_MAX)
        return writer_put_log(w->id, w->log + before, w->log_length - before, 0, next, &last);
    /* the entries up to the loss, then a BREAK and what came after */
    if (lost > before && writer_put_log(w->id, w->log + before, lost - before, 0, next, &last) != 0)
        return -1;
    return writer_put_log(w->id, w->log + lost, w->log_length - lost, STORE_CHUNK_BREAK, next,
                          &last);
}

static void writer_note_error(const char *what)
{
    pthread_mutex_lock(&writer.stats_lock);
    writer.stats.write_errors++;
    snprintf(writer.stats.last_error, sizeof(writer.stats.last_error), "%s: %s", what,
             sqlite3_errmsg(writer.db));
    writer.stats.last_error_ns = (int64_t)clock_real_ns();
    pthread_mutex_unlock(&writer.stats_lock);
    fprintf(stderr, "jitscope: storage: %s: %s (will retry)\n", what, sqlite3_errmsg(writer.db));
}

static void writer_count_sessions(void)
{
    sqlite3_stmt *st = writer.st[ST_COUNT_SESSIONS];

    if (sqlite3_step(st) == SQLITE_ROW)
        writer.sessions_stored = (uint64_t)sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
}

/* The round's counters, for store_get_stats. */
static void writer_publish(int committed)
{
    pthread_mutex_lock(&writer.stats_lock);
    writer.stats.rounds++;
    writer.stats.chunks = writer.chunks;
    writer.stats.snapshots = writer.snapshots;
    writer.stats.bytes_written = writer.bytes_written;
    writer.stats.sessions_stored = writer.sessions_stored;
    writer.stats.cache_bytes = writer.cache_bytes;
    if (committed) {
        writer.stats.commits++;
        writer.stats.last_commit_ns = (int64_t)clock_real_ns();
        writer.stats.last_error[0] = '\0'; /* recovered; last_error_ns says when it was */
    }
    pthread_mutex_unlock(&writer.stats_lock);
}

/* 1 when there was work (written or handed back). */
static int writer_round(void)
{
    size_t count = 0, i;
    store_work *works = store_journal_take(&count);
    uint64_t *next = NULL;
    char err[256];
    int ok = 0, counted = 0, deleted = 0;
    uint64_t chunks = writer.chunks, snapshots = writer.snapshots, bytes = writer.bytes_written;

    if (!works) {
        writer_publish(0);
        return 0;
    }
    next = calloc(count, sizeof(*next));
    if (!next || store_exec(writer.db, "BEGIN IMMEDIATE", err, sizeof(err)) != 0) {
        writer_note_error("begin");
        goto done;
    }
    for (i = 0; i < count; i++) {
        next[i] = works[i].forget ? 1 : writer_next_chunk(works[i].id);
        if (next[i] == 0 || writer_put_work(&works[i], &next[i]) != 0)
            break;
        counted |= works[i].forget || works[i].has_header;
        deleted |= works[i].forget;
    }
    if (i < count || store_exec(writer.db, "COMMIT", err, sizeof(err)) != 0) {
        writer_note_error(i < count ? "writing a session's log" : "commit");
        store_exec(writer.db, "ROLLBACK", err, sizeof(err));
        idmap_free(&writer.next_chunk); /* numbers taken in the round are free again */
        writer.chunks = chunks, writer.snapshots = snapshots, writer.bytes_written = bytes;
        goto done;
    }
    ok = 1;
    if (deleted) /* a deleted session's number goes with it (the others are
                           asked of the database again when next needed) */
        idmap_free(&writer.next_chunk);
    for (i = 0; i < count; i++) /* remembered only once committed */
        if (!works[i].forget &&
            idmap_put(&writer.next_chunk, (uint64_t)works[i].id, (uint32_t)next[i]) != 0)
            idmap_free(&writer.next_chunk);
    if (counted)
        writer_count_sessions();
    if (writer.vacuum_due) { /* the pages compactions freed go back to the file system */
        writer.vacuum_due = 0;
        store_exec(writer.db, "PRAGMA incremental_vacuum", err, sizeof(err));
    }
done:
    writer.cache_bytes = store_cache_bound(writer.db);
    writer_publish(ok);
    free(next);
    store_journal_done(works, count, ok);
    return 1;
}

static void *writer_main(void *arg)
{
    int stopping = 0, left;

    (void)arg;
    pthread_setname_np(pthread_self(), "jitscope-store");
    while (!stopping) {
        /* rounds start every STORE_TICK_MS, at once after one that took longer */
        uint64_t began = clock_mono_ns(), took;
        writer_round();
        took = (clock_mono_ns() - began) / 1000000u;
        stopping = store_journal_wait(took >= STORE_TICK_MS ? 0 : STORE_TICK_MS - (unsigned)took);
    }
    /* everything handed over is written; a database that keeps refusing gets
     * a few more tries, not forever (shutdown stays bounded) */
    for (left = 8; left > 0 && writer_round(); left--)
        ;
    return NULL;
}

int store_writer_start(sqlite3 *db, const store_options *o, char *err, size_t errsz)
{
    int i;

    writer.db = db;
    writer.options = *o;
    writer.chunk_packer.level = STORE_LOG_ZSTD_LEVEL;
    writer.snapshot_packer.level = STORE_ZSTD_LEVEL;
    memset(&writer.stats, 0, sizeof(writer.stats));
    writer.chunks = writer.snapshots = writer.bytes_written = 0;
    for (i = 0; i < ST_COUNT; i++) {
        if (sqlite3_prepare_v3(db, writer_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &writer.st[i],
                               NULL) != SQLITE_OK) {
            snprintf(err, errsz, "preparing the writer's statements: %s", sqlite3_errmsg(db));
            goto fail;
        }
    }
    writer_count_sessions();
    writer.stats.sessions_stored = writer.sessions_stored;
    if (pthread_create(&writer.thread, NULL, writer_main, NULL) != 0) {
        snprintf(err, errsz, "cannot start the writer thread");
        goto fail;
    }
    writer.started = 1;
    return 0;
fail:
    for (i = 0; i < ST_COUNT; i++) {
        sqlite3_finalize(writer.st[i]);
        writer.st[i] = NULL;
    }
    return -1;
}

void store_writer_stop(void)
{
    int i;

    if (writer.started) {
        store_journal_stop();
        pthread_join(writer.thread, NULL);
        writer.started = 0;
    }
    for (i = 0; i < ST_COUNT; i++) {
        sqlite3_finalize(writer.st[i]);
        writer.st[i] = NULL;
    }
    idmap_free(&writer.next_chunk);
    store_packer_free(&writer.chunk_packer);
    store_packer_free(&writer.snapshot_packer);
}

void store_writer_stats(store_stats *out)
{
    pthread_mutex_lock(&writer.stats_lock);
    *out = writer.stats;
    pthread_mutex_unlock(&writer.stats_lock);
}
