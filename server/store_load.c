/* store_load.c -- reading sessions back from the database (see store.h).
 *
 * At start every stored session enters the registry with its header and its
 * stored list entry only (persist.past, not loaded); one that was not ended
 * when its server died becomes interrupted, in memory and in the file. Its
 * content (threads, functions with their compilations, modules, the replay
 * log, then the event log) is read the first time a request needs it, under
 * the sessions lock. IDs are rebuilt the way ingest built them: a later
 * function or module with the same runtime ID is the one its ID finds. */
#include "store_db.h"
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "utf.h"
#include "sessions.h"
#include "store_replay.h"

static int store_ended(session_state st)
{
    return st == SESSION_EXITED || st == SESSION_DETACHED || st == SESSION_FAILED ||
           st == SESSION_INTERRUPTED;
}

/* A text column as valid UTF-8 (it goes into JSON; the file may have been
 * edited): a byte that is not becomes '?'. NULL for NULL. */
static char *store_text_dup(const unsigned char *text, size_t length)
{
    char *copy;
    int truncated;

    if (!text || !(copy = malloc(length + 1)))
        return NULL;
    copy[utf8_sanitize((const char *)text, length, copy, length, &truncated)] = '\0';
    return copy;
}

static char *store_column_dup(sqlite3_stmt *st, int i)
{
    const unsigned char *text = sqlite3_column_text(st, i);
    return store_text_dup(text, text ? (size_t)sqlite3_column_bytes(st, i) : 0);
}

/* The interrupted session's row says so from now on. */
static void store_mark_interrupted(sqlite3 *db, const session *s, const char *summary)
{
    json_t *header = store_header_to_json(s);
    char *text = header ? json_dumps(header, JSON_COMPACT) : NULL;
    sqlite3_stmt *st = NULL;

    if (text && sqlite3_prepare_v2(db,
                                   "UPDATE sessions SET state = ?, ended_ns = ?, header = ?, "
                                   "summary = ? WHERE id = ?",
                                   -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, session_state_name(s->state), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, s->ended_ns);
        sqlite3_bind_text(st, 3, text, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, summary, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 5, s->id);
        if (sqlite3_step(st) != SQLITE_DONE)
            fprintf(stderr, "jitscope: storage: marking session %d interrupted: %s\n", s->id,
                    sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    free(text);
    json_decref(header);
}

/* The stored list entry, with what an interruption changes. */
static char *store_summary_text(const char *stored, const session *s, int interrupted)
{
    json_t *summary = json_loads(stored, 0, NULL);
    char *text;

    if (!json_is_object(summary)) {
        json_decref(summary);
        return NULL;
    }
    if (interrupted) {
        json_object_set_new(summary, "state", json_string(session_state_name(s->state)));
        json_object_set_new(summary, "ended_ms", json_real((double)s->ended_ns / 1e6));
    }
    text = json_dumps(summary, JSON_COMPACT);
    json_decref(summary);
    return text;
}

/* One row of the sessions table into the registry. 0, or -1 with why. */
static int store_adopt_row(sqlite3 *db, sqlite3_stmt *st, char *err, size_t errsz)
{
    int id = sqlite3_column_int(st, 0);
    const char *header_text = (const char *)sqlite3_column_text(st, 1);
    const char *summary_text = (const char *)sqlite3_column_text(st, 2);
    const char *command_line = (const char *)sqlite3_column_text(st, 3);
    int64_t updated_ns = sqlite3_column_int64(st, 4);
    json_t *header = header_text ? json_loads(header_text, 0, NULL) : NULL;
    session *s = NULL;
    char *clean;
    int interrupted = 0;

    if (!json_is_object(header) || !summary_text) {
        snprintf(err, errsz, "session %d: its stored header is not readable", id);
        goto fail;
    }
    clean = store_text_dup((const unsigned char *)(command_line ? command_line : ""),
                           command_line ? strlen(command_line) : 0);
    s = clean ? session_new(id, SESSION_MODE_RUN, 0, clean, "") : NULL;
    free(clean);
    if (!s) {
        snprintf(err, errsz, "out of memory");
        goto fail;
    }
    store_header_from_json(s, header);
    s->id = id;
    if (!store_ended(s->state)) { /* its server died while it was live */
        s->state = SESSION_INTERRUPTED;
        if (!s->ended_ns)
            s->ended_ns = updated_ns;
        interrupted = 1;
    }
    s->persist.past = 1;
    s->persist.summary = store_summary_text(summary_text, s, interrupted);
    if (!s->persist.summary) {
        snprintf(err, errsz, "session %d: its stored summary is not readable", id);
        goto fail;
    }
    if (interrupted)
        store_mark_interrupted(db, s, s->persist.summary);
    if (sessions_adopt(s) != 0) {
        snprintf(err, errsz, "session %d: no room in the registry", id);
        goto fail;
    }
    json_decref(header);
    return 0;
fail:
    json_decref(header);
    session_free(s);
    return -1;
}

int store_load_index(sqlite3 *db, char *err, size_t errsz)
{
    sqlite3_stmt *st = NULL;
    int rc, count = 0;

    if (sqlite3_prepare_v2(db,
                           "SELECT id, header, summary, command_line, updated_ns FROM sessions "
                           "ORDER BY id",
                           -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errsz, "%s", sqlite3_errmsg(db));
        return -1;
    }
    sessions_lock();
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char why[256];
        if (store_adopt_row(db, st, why, sizeof(why)) == 0)
            count++;
        else
            fprintf(stderr, "jitscope: storage: %s (left in the file)\n", why);
    }
    sessions_unlock();
    if (rc != SQLITE_DONE) {
        snprintf(err, errsz, "reading the sessions: %s", sqlite3_errmsg(db));
        count = -1;
    }
    sqlite3_finalize(st);
    return count;
}

/* ---- one session's content ---------------------------------------------------- */

static int store_statement(sqlite3 *db, const char *sql, int session_id, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int(*st, 1, session_id);
    return 0;
}

/* A function's thread (the threads are read first): its row, or for a file
 * older than schema v4 (idx -2) the newest row of its ThreadID. 0: unknown. */
static uint32_t store_load_thread_row(session *s, uint64_t thread_id, sqlite3_int64 idx)
{
    const session_thread *t;

    if (idx >= 0)
        return (uint64_t)idx < s->thread_count ? (uint32_t)idx + 1 : 0;
    if (idx != -2 || !(t = session_find_thread(s, thread_id)))
        return 0;
    return session_thread_row_of(s, t);
}

static int store_load_functions(sqlite3 *db, session *s)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;

    if (store_statement(
            db,
            "SELECT idx, function_id, module_id, thread_id, name, token, il_size,"
            " native_size, flags, hresult, jitted, jit_count, first_jit_ns, last_jit_ns,"
            " jit_time_ns, jit_time_total_ns, tier, versions, code_starts,"
            " compilations_unkept, compilation_count, thread_idx FROM functions"
            " WHERE session_id = ? ORDER BY idx",
            s->id, &st) != 0)
        goto done;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        uint64_t id = (uint64_t)sqlite3_column_int64(st, 1);
        session_function *f;
        char *name;
        int blob = sqlite3_column_bytes(st, 18);
        if (sqlite3_column_int64(st, 0) != (sqlite3_int64)s->function_count)
            goto done; /* rows are written for every index, in order */
        if (!(f = session_function_append(s, id)))
            goto done;
        f->module_id = (uint64_t)sqlite3_column_int64(st, 2);
        f->thread_row = store_load_thread_row(s, (uint64_t)sqlite3_column_int64(st, 3),
                                              sqlite3_column_int64(st, 21));
        if ((name = store_column_dup(st, 4))) { /* valid UTF-8, then into the name pool */
            int rc_name = session_function_set_name(s, f, name, strlen(name));
            free(name);
            if (rc_name != 0)
                goto done;
        }
        f->token = (uint32_t)sqlite3_column_int64(st, 5);
        f->il_size = (uint32_t)sqlite3_column_int64(st, 6);
        f->native_size = (uint32_t)sqlite3_column_int64(st, 7);
        f->flags = (uint32_t)sqlite3_column_int64(st, 8);
        f->hresult = (int32_t)sqlite3_column_int64(st, 9);
        f->jitted = sqlite3_column_int64(st, 10) != 0;
        f->jit_count = (uint32_t)sqlite3_column_int64(st, 11);
        f->first_jit_ns = sqlite3_column_int64(st, 12);
        f->last_jit_ns = sqlite3_column_int64(st, 13);
        f->jit_time_ns = (uint64_t)sqlite3_column_int64(st, 14);
        f->jit_time_total_ns = (uint64_t)sqlite3_column_int64(st, 15);
        f->tier = (uint8_t)(sqlite3_column_int64(st, 16) & 0xff);
        f->versions = (uint32_t)sqlite3_column_int64(st, 17);
        if (blob > 0 && (size_t)blob <= sizeof(f->code_start))
            memcpy(f->code_start, sqlite3_column_blob(st, 18), (size_t)blob);
        f->compilations_unkept = (uint32_t)sqlite3_column_int64(st, 19);
        /* compiled once: no compilations row, the fields above are it (-1:
         * a file older than schema v3, whose rows say it all) */
        if (sqlite3_column_int64(st, 20) == 1)
            f->compilation_count = 1;
        if (f->tier >= WIRE_TIER_COUNT)
            f->tier = WIRE_TIER_UNKNOWN;
        s->functions_jitted += f->jitted;
    }
done:
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int store_load_compilations(sqlite3 *db, session *s)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;

    if (store_statement(db,
                        "SELECT function_idx, time_ns, jit_ns, native_size, tier FROM compilations"
                        " WHERE session_id = ? ORDER BY function_idx, n",
                        s->id, &st) != 0)
        goto done;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sqlite3_int64 idx = sqlite3_column_int64(st, 0);
        session_function *f;
        session_compilation c;
        if (idx < 0 || (uint64_t)idx >= s->function_count)
            continue;
        f = &s->functions[idx];
        c = (session_compilation){
            sqlite3_column_int64(st, 1), (uint64_t)sqlite3_column_int64(st, 2),
            (uint32_t)sqlite3_column_int64(st, 3), (uint32_t)sqlite3_column_int64(st, 4)};
        if (!f->compilation_list)
            f->compilation_count = 0; /* its rows are all of them, the first included */
        if (f->compilation_count < SESSION_MAX_COMPILATIONS)
            session_function_keep_compilation(s, f, &c); /* out of memory: not kept */
    }
done:
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int store_load_modules(sqlite3 *db, session *s)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;

    if (store_statement(db,
                        "SELECT module_id, assembly_id, base_address, path, assembly, loaded_ns,"
                        " unloaded_ns, functions, flags, hresult FROM modules WHERE session_id = ?"
                        " ORDER BY idx",
                        s->id, &st) != 0)
        goto done;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        uint64_t id = (uint64_t)sqlite3_column_int64(st, 0);
        session_module *m = session_module_append(s, id);
        if (!m)
            goto done;
        m->assembly_id = (uint64_t)sqlite3_column_int64(st, 1);
        m->base_address = (uint64_t)sqlite3_column_int64(st, 2);
        m->path = store_column_dup(st, 3);
        m->assembly = store_column_dup(st, 4);
        m->loaded_ns = sqlite3_column_int64(st, 5);
        m->unloaded_ns = sqlite3_column_int64(st, 6);
        m->functions = (uint32_t)sqlite3_column_int64(st, 7);
        m->flags = (uint32_t)sqlite3_column_int64(st, 8);
        m->hresult = (int32_t)sqlite3_column_int64(st, 9);
    }
done:
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int store_load_threads(sqlite3 *db, session *s)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;

    if (store_statement(db,
                        "SELECT thread_id, os_thread_id, flags, name, alive, created_ns, ended_ns,"
                        " idx FROM threads WHERE session_id = ? ORDER BY idx",
                        s->id, &st) != 0)
        goto done;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        uint64_t id = (uint64_t)sqlite3_column_int64(st, 0);
        session_thread *t;
        if (sqlite3_column_int64(st, 7) != (sqlite3_int64)s->thread_count)
            goto done; /* rows are written for every index, in order: the idx is the thread_key */
        if (!(t = session_thread_append(s, id)))
            goto done;
        session_thread_set_os(s, t, (uint32_t)sqlite3_column_int64(st, 1));
        t->flags = (uint32_t)sqlite3_column_int64(st, 2);
        t->name = store_column_dup(st, 3);
        t->alive = 0; /* a past session's process is not ours to watch */
        t->created_ns = sqlite3_column_int64(st, 5);
        t->ended_ns = sqlite3_column_int64(st, 6);
        if (!t->ended_ns)
            t->ended_ns = s->ended_ns;
    }
done:
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int store_load_replay(sqlite3 *db, session *s)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;

    if (store_statement(db, "SELECT data FROM replay WHERE session_id = ? ORDER BY chunk", s->id,
                        &st) != 0)
        goto done;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (store_replay_apply(s, sqlite3_column_blob(st, 0),
                               (size_t)sqlite3_column_bytes(st, 0)) != 0) {
            rc = SQLITE_CORRUPT;
            break;
        }
    profile_stop(&s->profile, s->ended_ns); /* a profile the log left running ended with it */
done:
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* The event log, as memory keeps it: the newest SESSION_MAX_EVENTS, each at
 * its seq's slot. Replaying made events of its own; these replace them. */
static int store_load_events(sqlite3 *db, session *s)
{
    sqlite3_stmt *st = NULL;
    uint64_t last = 0, first = 0;
    int rc = -1;

    free(s->events);
    s->events = NULL;
    s->event_cap = 0;
    if (store_statement(db,
                        "SELECT seq, time_ns, type, flags, id, value, extra, tier FROM events"
                        " WHERE session_id = ? ORDER BY seq",
                        s->id, &st) != 0)
        goto done;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        uint64_t seq = (uint64_t)sqlite3_column_int64(st, 0);
        session_event *e;
        size_t slot;
        if (seq == 0 || seq <= last)
            continue;
        if (!first)
            first = seq;
        if (seq != last + 1 && last) /* a gap: what came before it is not kept */
            first = seq;
        if (s->event_cap < SESSION_MAX_EVENTS &&
            grow_reserve((void **)&s->events, &s->event_cap,
                         (size_t)((seq - 1) % SESSION_MAX_EVENTS), sizeof(*e), 64,
                         SESSION_MAX_EVENTS, GROW_ZERO) != 0)
            goto done;
        slot = (size_t)((seq - 1) % SESSION_MAX_EVENTS);
        e = &s->events[slot];
        e->seq = seq;
        e->time_ns = sqlite3_column_int64(st, 1);
        e->type = (uint16_t)sqlite3_column_int64(st, 2);
        e->flags = (uint16_t)sqlite3_column_int64(st, 3);
        e->id = (uint64_t)sqlite3_column_int64(st, 4);
        e->value = (uint64_t)sqlite3_column_int64(st, 5);
        e->extra = (uint32_t)sqlite3_column_int64(st, 6);
        e->tier = (uint32_t)sqlite3_column_int64(st, 7);
        last = seq;
    }
done:
    sqlite3_finalize(st);
    s->event_seq = last;
    s->events_evicted = first > 1 ? first - 1 : 0;
    return rc == SQLITE_DONE ? 0 : -1;
}

int store_load_content(sqlite3 *db, session *s, char *err, size_t errsz)
{
    static const struct {
        const char *what;
        int (*load)(sqlite3 *, session *);
    } steps[] = {{"threads", store_load_threads},           {"functions", store_load_functions},
                 {"compilations", store_load_compilations}, {"modules", store_load_modules},
                 {"replay log", store_load_replay},         {"events", store_load_events}};
    size_t i;
    int rc = 0;

    s->functions_jitted = 0;
    for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        if (steps[i].load(db, s) != 0) {
            snprintf(err, errsz, "reading its %s: %s", steps[i].what, sqlite3_errmsg(db));
            snprintf(s->persist.load_error, sizeof(s->persist.load_error), "%s", err);
            rc = -1; /* what was read is served; the rest is said missing */
        }
    }
    s->persist.loaded = 1;
    free(s->persist.summary);
    s->persist.summary = NULL;
    return rc;
}

/* Moves the content read into `from` (a copy of to's header) into `to`. */
static void store_move_content(session *to, session *from)
{
    to->functions = from->functions;
    to->function_count = from->function_count;
    to->function_cap = from->function_cap;
    to->function_index = from->function_index;
    to->names = from->names; /* the functions' names point into it */
    to->compilation_bytes = from->compilation_bytes;
    to->functions_jitted = from->functions_jitted;
    to->modules = from->modules;
    to->module_count = from->module_count;
    to->module_cap = from->module_cap;
    to->module_index = from->module_index;
    to->threads = from->threads;
    to->thread_count = from->thread_count;
    to->thread_cap = from->thread_cap;
    to->thread_index = from->thread_index;
    to->thread_os_index = from->thread_os_index;
    to->events = from->events;
    to->event_cap = from->event_cap;
    to->event_seq = from->event_seq;
    to->events_evicted = from->events_evicted;
    to->stacks = from->stacks;
    to->profile = from->profile;
    to->timeline = from->timeline;
    memcpy(to->persist.load_error, from->persist.load_error, sizeof(to->persist.load_error));
    free(to->persist.summary);
    to->persist.summary = NULL;
    to->persist.loaded = 1;
    from->functions = NULL, from->function_count = 0, from->function_index = (idindex){0};
    from->names = (strpool){0};
    from->modules = NULL, from->module_count = 0, from->module_index = (idmap){0};
    from->threads = NULL, from->thread_count = 0, from->thread_index = (idmap){0};
    from->thread_os_index = (idmap){0};
    from->events = NULL;
    memset(&from->stacks, 0, sizeof(from->stacks));
    memset(&from->profile, 0, sizeof(from->profile));
    memset(&from->timeline, 0, sizeof(from->timeline));
}

void store_prepare(int session_id)
{
    session *s, *copy;
    sqlite3 *db;
    char err[256];
    int rc;

    sessions_lock();
    s = sessions_peek(session_id);
    if (!s || !s->persist.past || s->persist.loaded || !(copy = malloc(sizeof(*copy)))) {
        sessions_unlock();
        return;
    }
    *copy = *s; /* its header; a past session not read yet has no content */
    copy->command_line = NULL;
    copy->persist.summary = NULL;
    sessions_unlock();

    if ((db = store_reader_lock())) {
        rc = store_load_content(db, copy, err, sizeof(err));
        store_reader_unlock();
        if (rc != 0)
            fprintf(stderr, "jitscope: storage: session %d: %s\n", session_id, err);
        sessions_lock();
        s = sessions_peek(session_id); /* still there, still not read by someone else? */
        if (s && s->persist.past && !s->persist.loaded)
            store_move_content(s, copy);
        sessions_unlock();
    }
    session_free(copy); /* what was not moved */
}
