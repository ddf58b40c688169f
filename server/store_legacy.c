/* store_legacy.c -- files of storage versions 1-3 converted to logs (see store_db.h).
 *
 * Those versions kept each session as rows: functions (with compilations),
 * modules, threads, events, and a replay log of the records behind stack
 * snapshots, profiles and the timeline. At open, each such session is read
 * back into a session as those versions did, and stored as a snapshot
 * (snapshot.h) with its replay log as the observations beside it, in one
 * transaction per session; then the old tables are dropped. A server killed
 * halfway goes on where it stopped at the next open. This is the one place
 * storage uses the session model (session.h's tables on a private session,
 * session_header.h, snapshot.h's encoder): to read what its old files meant.
 * It never calls the registry (sessions.h) or persist.c, which sit above
 * storage, and touches no live session.
 */
#include "store_db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "grow.h"
#include "logrec.h"
#include "session_header.h"
#include "snapshot.h"
#include "utf.h"
#include "wire_encode.h"

/* A text column as valid UTF-8 (it goes into JSON; the file may have been
 * edited): a byte that is not becomes '?'. NULL for NULL. */
static char *legacy_text_dup(const unsigned char *text, size_t length)
{
    char *copy;
    int truncated;

    if (!text || !(copy = malloc(length + 1)))
        return NULL;
    copy[utf8_sanitize((const char *)text, length, copy, length, &truncated)] = '\0';
    return copy;
}

static uint64_t legacy_u64(sqlite3_stmt *st, int i)
{
    return (uint64_t)sqlite3_column_int64(st, i);
}
static uint32_t legacy_u32(sqlite3_stmt *st, int i)
{
    return (uint32_t)sqlite3_column_int64(st, i);
}

static char *legacy_column_dup(sqlite3_stmt *st, int i)
{
    const unsigned char *text = sqlite3_column_text(st, i);
    return legacy_text_dup(text, text ? (size_t)sqlite3_column_bytes(st, i) : 0);
}

static int legacy_statement(sqlite3 *db, const char *sql, int session_id, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int(*st, 1, session_id);
    return 0;
}

/* Reads the rows of sql (its one parameter: the session's id) into the
 * session, one call of row each, until one fails. Returns 0 when every row was
 * read, -1 otherwise. */
static int legacy_rows(sqlite3 *db, session *s, const char *sql,
                       int (*row)(session *s, sqlite3_stmt *st))
{
    sqlite3_stmt *st = NULL;
    int rc = -1;

    if (legacy_statement(db, sql, s->id, &st) == 0)
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            if (row(s, st) != 0) {
                rc = -1;
                break;
            }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* A function's thread: versions 1-3 kept its ThreadID, which the runtime
 * reuses; the newest row with it (the threads are read first). 0: none. */
static uint32_t legacy_thread_row(session *s, uint64_t thread_id)
{
    const session_thread *t = thread_id ? session_find_thread(s, thread_id) : NULL;

    return t ? session_thread_row_of(s, t) : 0;
}

static int legacy_read_function(session *s, sqlite3_stmt *st)
{
    uint64_t id = legacy_u64(st, 1);
    session_function *f;
    char *name;
    uint32_t code_start[SESSION_MAX_CODE_VERSIONS] = {0};
    int blob = sqlite3_column_bytes(st, 18);
    if (sqlite3_column_int64(st, 0) != (sqlite3_int64)s->function_count)
        return -1; /* rows are written for every index, in order */
    if (!(f = session_function_append(s, id)))
        return -1;
    f->module_id = legacy_u64(st, 2);
    f->thread_row = legacy_thread_row(s, legacy_u64(st, 3));
    if ((name = legacy_column_dup(st, 4))) { /* valid UTF-8, then into the name pool */
        int rc_name = session_function_set_name(s, f, name, strlen(name));
        free(name);
        if (rc_name != 0)
            return -1;
    }
    f->token = legacy_u32(st, 5);
    f->il_size = legacy_u32(st, 6);
    f->native_size = legacy_u32(st, 7);
    f->flags = legacy_u32(st, 8);
    f->hresult = (int32_t)sqlite3_column_int64(st, 9);
    f->jitted = sqlite3_column_int64(st, 10) != 0;
    f->jit_count = legacy_u32(st, 11);
    f->first_jit_ns = sqlite3_column_int64(st, 12);
    f->jit_time_total_ns = legacy_u64(st, 15);
    f->tier = (uint8_t)(sqlite3_column_int64(st, 16) & 0xff);
    f->versions = legacy_u32(st, 17);
    if (blob > 0 && (size_t)blob <= sizeof(code_start))
        memcpy(code_start, sqlite3_column_blob(st, 18), (size_t)blob);
    if (session_function_set_history(s, f, sqlite3_column_int64(st, 13), legacy_u64(st, 14),
                                     legacy_u32(st, 19), code_start) != 0)
        return -1;
    /* compiled once: no compilations row, the fields above are it (-1:
     * a file older than schema v3, whose rows say it all) */
    if (sqlite3_column_int64(st, 20) == 1)
        f->compilation_count = 1;
    if (f->tier >= WIRE_TIER_COUNT)
        f->tier = WIRE_TIER_UNKNOWN;
    s->functions_jitted += f->jitted;
    return 0;
}

static int legacy_read_compilation(session *s, sqlite3_stmt *st)
{
    sqlite3_int64 idx = sqlite3_column_int64(st, 0);
    session_function *f;
    session_compilation c;
    if (idx < 0 || (uint64_t)idx >= s->function_count)
        return 0;
    f = &s->functions[idx];
    c = (session_compilation){sqlite3_column_int64(st, 1), legacy_u64(st, 2), legacy_u32(st, 3),
                              legacy_u32(st, 4)};
    if (!f->compilation_cap)
        f->compilation_count = 0; /* its rows are all of them, the first included */
    if (f->compilation_count < SESSION_MAX_COMPILATIONS)
        session_function_keep_compilation(s, f, &c); /* out of memory: not kept */
    return 0;
}

static int legacy_read_module(session *s, sqlite3_stmt *st)
{
    session_module *m = session_module_append(s, legacy_u64(st, 0));

    if (!m)
        return -1;
    m->assembly_id = legacy_u64(st, 1);
    m->base_address = legacy_u64(st, 2);
    m->path = legacy_column_dup(st, 3);
    m->assembly = legacy_column_dup(st, 4);
    m->loaded_ns = sqlite3_column_int64(st, 5);
    m->unloaded_ns = sqlite3_column_int64(st, 6);
    m->functions = legacy_u32(st, 7);
    m->flags = legacy_u32(st, 8);
    m->hresult = (int32_t)sqlite3_column_int64(st, 9);
    return 0;
}

static int legacy_read_thread(session *s, sqlite3_stmt *st)
{
    session_thread *t = session_thread_append(s, legacy_u64(st, 0));

    if (!t)
        return -1;
    session_thread_set_os(s, t, legacy_u32(st, 1));
    t->flags = legacy_u32(st, 2);
    t->name = legacy_column_dup(st, 3);
    t->alive = 0; /* a past session's process is not ours to watch */
    t->created_ns = sqlite3_column_int64(st, 5);
    t->ended_ns = sqlite3_column_int64(st, 6);
    if (!t->ended_ns)
        t->ended_ns = s->ended_ns;
    return 0;
}

/* The row tables of versions 1-3, in the order they are read: the threads
 * before the functions, which name their rows. */
static const struct legacy_table {
    const char *sql;
    int (*row)(session *s, sqlite3_stmt *st);
} legacy_tables[] = {
    {"SELECT thread_id, os_thread_id, flags, name, alive, created_ns, ended_ns"
     " FROM threads WHERE session_id = ? ORDER BY idx",
     legacy_read_thread},
    {"SELECT idx, function_id, module_id, thread_id, name, token, il_size,"
     " native_size, flags, hresult, jitted, jit_count, first_jit_ns, last_jit_ns,"
     " jit_time_ns, jit_time_total_ns, tier, versions, code_starts,"
     " compilations_unkept, compilation_count FROM functions WHERE session_id = ?"
     " ORDER BY idx",
     legacy_read_function},
    {"SELECT function_idx, time_ns, jit_ns, native_size, tier FROM compilations"
     " WHERE session_id = ? ORDER BY function_idx, n",
     legacy_read_compilation},
    {"SELECT module_id, assembly_id, base_address, path, assembly, loaded_ns,"
     " unloaded_ns, functions, flags, hresult FROM modules WHERE session_id = ?"
     " ORDER BY idx",
     legacy_read_module},
};

/* The events (seq order); after a gap, only what follows it was kept. */
static int legacy_load_events(sqlite3 *db, session *s)
{
    sqlite3_stmt *st = NULL;
    eventlog_entry *rows = NULL;
    size_t count = 0, cap = 0, first = 0, i;
    int rc = -1;

    if (legacy_statement(db,
                         "SELECT seq, time_ns, type, flags, id, value, extra, tier FROM events"
                         " WHERE session_id = ? ORDER BY seq",
                         s->id, &st) != 0)
        goto done;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        eventlog_entry e = {
            .seq = legacy_u64(st, 0),
            .time_ns = sqlite3_column_int64(st, 1),
            .type = (uint16_t)sqlite3_column_int64(st, 2),
            .flags = (uint16_t)sqlite3_column_int64(st, 3),
            .id = legacy_u64(st, 4),
            .value = legacy_u64(st, 5),
            .extra = legacy_u32(st, 6),
            .tier = legacy_u32(st, 7),
        };
        if (e.seq == 0 || (count && e.seq <= rows[count - 1].seq))
            continue;
        if (count && e.seq != rows[count - 1].seq + 1)
            first = count; /* a gap: what came before it is not kept */
        if (grow_reserve((void **)&rows, &cap, count, sizeof(*rows), 1024, EVENTLOG_MAX * 2,
                         GROW_KEEP) != 0) {
            rc = SQLITE_NOMEM;
            goto done;
        }
        rows[count++] = e;
    }
    if (rc != SQLITE_DONE)
        goto done;
    if (count > first + EVENTLOG_MAX)
        first = count - EVENTLOG_MAX;
    eventlog_free(&s->events);
    s->events.evicted = count ? rows[first].seq - 1 : 0;
    for (i = first; i < count; i++)
        if (eventlog_restore(&s->events, &rows[i]) != 0) {
            rc = SQLITE_NOMEM;
            goto done;
        }
done:
    sqlite3_finalize(st);
    free(rows);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* ---- the replay log, as observation entries ---------------------------------------- */

/* The old replay log's entries: a header and its data padded to 8 bytes. */
enum { LEGACY_FRAME = 1, LEGACY_PROFILE_START = 2, LEGACY_PROFILE_STOP = 3 };
typedef struct legacy_replay_header {
    uint8_t kind;
    uint8_t zero[3];
    uint32_t length;
    int64_t now_ns;
} legacy_replay_header;
#define LEGACY_PADDED(length) (((size_t)(length) + 7u) & ~(size_t)7u)

typedef struct legacy_buf {
    uint8_t *data;
    size_t length, cap;
} legacy_buf;

static int legacy_add(legacy_buf *b, const void *bytes, size_t n)
{
    if (n && grow_reserve((void **)&b->data, &b->cap, b->length + n - 1, 1, 64 * 1024, SIZE_MAX / 2,
                          GROW_KEEP) != 0)
        return -1;
    memcpy(b->data + b->length, bytes, n);
    b->length += n;
    return 0;
}

/* One observation entry: a frame at now_ns. */
static int legacy_entry(legacy_buf *out, int64_t now_ns, const void *frame, size_t length)
{
    store_entry_header h = {(uint32_t)length, 0, now_ns};

    return legacy_add(out, &h, sizeof(h)) || legacy_add(out, frame, length);
}

static int legacy_server_record(legacy_buf *out, int64_t now_ns, uint16_t type, const void *payload,
                                uint32_t length)
{
    uint8_t frame[sizeof(wire_frame_header) + 16];
    wire_frame_header h = {.type = type};

    return legacy_entry(out, now_ns, frame,
                        wire_encode(frame, &h, payload, length, NULL, 0, NULL, 0));
}

static int legacy_replay_chunk(legacy_buf *out, const uint8_t *log, size_t length)
{
    size_t at = 0;

    while (at < length) {
        legacy_replay_header h;
        const uint8_t *data = log + at + sizeof(h);
        if (length - at < sizeof(h))
            return -1;
        memcpy(&h, log + at, sizeof(h));
        if (LEGACY_PADDED(h.length) > length - at - sizeof(h))
            return -1;
        if (h.kind == LEGACY_FRAME) {
            if (legacy_entry(out, h.now_ns, data, h.length) != 0)
                return -1;
        } else if (h.kind == LEGACY_PROFILE_START && h.length == sizeof(uint32_t)) {
            if (legacy_server_record(out, h.now_ns, LOGREC_PROFILE_START, data, 4) != 0)
                return -1;
        } else if (h.kind == LEGACY_PROFILE_STOP) {
            if (legacy_server_record(out, h.now_ns, LOGREC_PROFILE_STOP, NULL, 0) != 0)
                return -1;
        } else {
            return -1;
        }
        at += sizeof(h) + LEGACY_PADDED(h.length);
    }
    return 0;
}

static int legacy_load_replay(sqlite3 *db, int session_id, legacy_buf *out)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;

    if (legacy_statement(db, "SELECT data FROM replay WHERE session_id = ? ORDER BY chunk",
                         session_id, &st) != 0)
        goto done;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (legacy_replay_chunk(out, sqlite3_column_blob(st, 0),
                                (size_t)sqlite3_column_bytes(st, 0)) != 0) {
            rc = SQLITE_CORRUPT; /* what was converted before it is kept */
            break;
        }
done:
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* ---- one session ------------------------------------------------------------------- */

static int legacy_put_part(sqlite3 *db, int session_id, int part, int parts, const void *raw,
                           size_t length)
{
    sqlite3_stmt *st = NULL;
    void *packed = NULL;
    size_t packed_length = 0;
    int rc = -1;

    if (store_compress(raw, length, &packed, &packed_length) != 0 ||
        sqlite3_prepare_v2(db,
                           "INSERT INTO snapshots (session_id, part, parts, kind, upto_chunk,"
                           " codec, raw_bytes, bytes) VALUES (?, ?, ?, ?, 0, ?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        goto done;
    sqlite3_bind_int(st, 1, session_id);
    sqlite3_bind_int(st, 2, part);
    sqlite3_bind_int(st, 3, parts);
    sqlite3_bind_int(st, 4, part == 0 ? STORE_SNAPSHOT_STATE : STORE_SNAPSHOT_OBSERVATIONS);
    sqlite3_bind_int(st, 5, STORE_CODEC_ZSTD);
    sqlite3_bind_int64(st, 6, (sqlite3_int64)length);
    sqlite3_bind_blob64(st, 7, packed, packed_length, SQLITE_STATIC);
    rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
done:
    sqlite3_finalize(st);
    free(packed);
    return rc;
}

static int legacy_delete_rows(sqlite3 *db, int session_id)
{
    static const char *const tables[] = {"functions", "compilations", "modules",
                                         "threads",   "events",       "replay"};
    char sql[96];
    size_t i;

    for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
        sqlite3_stmt *st = NULL;
        int rc;
        snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE session_id = ?", tables[i]);
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
            return -1;
        sqlite3_bind_int(st, 1, session_id);
        rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            return -1;
    }
    return 0;
}

/* The session's header row rewritten in today's form. */
static int legacy_put_header(sqlite3 *db, const session *s)
{
    json_t *header = session_header_to_json(s);
    char *text = header ? json_dumps(header, JSON_COMPACT) : NULL;
    sqlite3_stmt *st = NULL;
    int rc = -1;

    if (text && sqlite3_prepare_v2(db, "UPDATE sessions SET header = ? WHERE id = ?", -1, &st,
                                   NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, s->id);
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    }
    sqlite3_finalize(st);
    free(text);
    json_decref(header);
    return rc;
}

/* Reads one session as versions 1-3 stored it and stores it as a snapshot. */
static int legacy_convert_session(sqlite3 *db, int id, const char *header_text,
                                  const char *command_line, char *err, size_t errsz)
{
    json_t *header = header_text ? json_loads(header_text, 0, NULL) : NULL;
    char *clean = legacy_text_dup((const unsigned char *)(command_line ? command_line : ""),
                                  command_line ? strlen(command_line) : 0);
    session *s = clean ? session_new(id, SESSION_MODE_RUN, 0, clean, "") : NULL;
    legacy_buf observations = {0};
    textbuf state;
    char *state_bytes = NULL;
    size_t state_length = 0, i;
    int rc = -1, parts;

    textbuf_init(&state, (size_t)4 << 30);
    free(clean);
    if (!s || !json_is_object(header)) {
        snprintf(err, errsz, "session %d: its header is not readable", id);
        goto done;
    }
    session_header_from_json(s, header, 1);
    s->id = id;
    /* what could be read is kept: a table that fails to read is left empty */
    for (i = 0; i < sizeof(legacy_tables) / sizeof(legacy_tables[0]); i++)
        legacy_rows(db, s, legacy_tables[i].sql, legacy_tables[i].row);
    legacy_load_events(db, s);
    legacy_load_replay(db, id, &observations);
    if (snapshot_encode(s, 0, &state) != 0 ||
        !(state_bytes = textbuf_take(&state, &state_length))) {
        snprintf(err, errsz, "session %d: out of memory", id);
        goto done;
    }
    parts = observations.length ? 2 : 1;
    if (legacy_put_part(db, id, 0, parts, state_bytes, state_length) != 0 ||
        (observations.length &&
         legacy_put_part(db, id, 1, parts, observations.data, observations.length) != 0) ||
        legacy_put_header(db, s) != 0 || legacy_delete_rows(db, id) != 0) {
        snprintf(err, errsz, "session %d: %s", id, sqlite3_errmsg(db));
        goto done;
    }
    rc = 0;
done:
    json_decref(header);
    session_free(s);
    textbuf_free(&state);
    free(state_bytes);
    free(observations.data);
    return rc;
}

static int legacy_has_old_tables(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    int found = 0;

    if (sqlite3_prepare_v2(
            db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'functions'", -1, &st,
            NULL) == SQLITE_OK)
        found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

int store_legacy_convert(sqlite3 *db, const store_options *o, char *err, size_t errsz)
{
    sqlite3_stmt *st = NULL;
    int *ids = NULL, rc = -1;
    size_t count = 0, cap = 0, i;

    (void)o;
    if (!legacy_has_old_tables(db))
        return 0;
    if (sqlite3_prepare_v2(
            db,
            "SELECT id FROM sessions WHERE id NOT IN (SELECT session_id FROM snapshots)"
            " ORDER BY id",
            -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errsz, "listing sessions to convert: %s", sqlite3_errmsg(db));
        return -1;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (grow_reserve((void **)&ids, &cap, count, sizeof(*ids), 64, 1u << 20, GROW_KEEP) != 0)
            goto done;
        ids[count++] = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
    st = NULL;
    if (count)
        fprintf(stderr, "jitscope: storage: converting %zu stored sessions to this version's log\n",
                count);
    for (i = 0; i < count; i++) {
        char why[256];
        const char *header, *command_line;
        if (sqlite3_prepare_v2(db, "SELECT header, command_line FROM sessions WHERE id = ?", -1,
                               &st, NULL) != SQLITE_OK)
            goto failed;
        sqlite3_bind_int(st, 1, ids[i]);
        if (sqlite3_step(st) != SQLITE_ROW) {
            sqlite3_finalize(st);
            st = NULL;
            continue;
        }
        header = (const char *)sqlite3_column_text(st, 0);
        command_line = (const char *)sqlite3_column_text(st, 1);
        if (store_exec(db, "BEGIN IMMEDIATE", why, sizeof(why)) != 0)
            goto failed;
        if (legacy_convert_session(db, ids[i], header, command_line, why, sizeof(why)) != 0) {
            fprintf(stderr, "jitscope: storage: %s: kept as it was, without content\n", why);
            store_exec(db, "ROLLBACK", why, sizeof(why));
            /* its content cannot be read: the session stays, empty */
            if (store_exec(db, "BEGIN IMMEDIATE", why, sizeof(why)) != 0 ||
                legacy_delete_rows(db, ids[i]) != 0)
                goto failed;
        }
        sqlite3_finalize(st);
        st = NULL;
        if (store_exec(db, "COMMIT", why, sizeof(why)) != 0)
            goto failed;
    }
    if (store_exec(db,
                   "DROP TABLE IF EXISTS functions; DROP TABLE IF EXISTS compilations;"
                   " DROP TABLE IF EXISTS modules; DROP TABLE IF EXISTS threads;"
                   " DROP TABLE IF EXISTS events; DROP TABLE IF EXISTS replay;",
                   err, errsz) != 0)
        goto done;
    rc = 0;
    goto done;
failed:
    snprintf(err, errsz, "converting stored sessions: %s", sqlite3_errmsg(db));
    store_exec(db, "ROLLBACK", (char[64]){0}, 64);
done:
    sqlite3_finalize(st);
    free(ids);
    return rc;
}
