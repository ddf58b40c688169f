/* store_writer.c -- the storage writer thread (see store.h).
 *
 * Each round: under the sessions lock, copy out of every session that is not
 * a past one what changed since the last round (its header and summary when
 * they changed, at most STORE_SLICE_FUNCTIONS functions and
 * STORE_SLICE_EVENTS events, its modules and threads when they changed, its
 * replay log), release the lock, and write the copy in one transaction. A
 * round that hit a slice limit is followed at once by another; otherwise the
 * writer sleeps STORE_TICK_MS or until kicked. Deletions (the API, --keep)
 * run on this thread too, after the round that may still hold rows of them. */
#include "store_db.h"
#include "store.h"

#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "sessions.h"
#include "views.h"

#define STORE_WRITER_NICE 10 /* the writer thread's nice value (ingest keeps 0) */

typedef struct copied_function {
    uint32_t idx;
    session_function f; /* its pointers are not used: name and compilations below */
    const char *name;   /* interned: valid while its session is pinned (copied_session) */
    uint64_t thread_id; /* of f.thread_row, the row written as thread_idx */
    session_compilation first;
    session_compilation *more; /* compilations 2.. (f.compilation_count - 1), or NULL */
} copied_function;

typedef struct copied_session {
    int id, root_id, pid;
    int64_t created_ns, ended_ns;
    char *state, *command_line, *header, *summary; /* header NULL: unchanged */
    int live;                                      /* not ended */
    int seen; /* live, header unchanged: mark its row's updated_ns (when it was last seen) */
    copied_function *functions;
    size_t function_count;
    session *pinned;         /* pinned while its functions' names are used, else NULL */
    session_module *modules; /* NULL: unchanged; path and assembly owned */
    size_t module_count;
    session_thread *threads; /* NULL: unchanged; name owned */
    size_t thread_count;
    session_event *events;
    size_t event_count;
    unsigned char *replay;
    size_t replay_len;
} copied_session;

typedef struct copied_round {
    copied_session *sessions;
    size_t count;
    int more; /* a slice limit was hit: run again at once */
    uint64_t backlog;
    uint64_t deferred; /* rewrites waiting for their batch */
    uint64_t now_ns;   /* monotonic, when the round was copied */
} copied_round;

enum {
    ST_SESSION,
    ST_FUNCTION,
    ST_COMPILATION,
    ST_MODULE,
    ST_THREAD,
    ST_EVENT,
    ST_EVENTS_TRIM,
    ST_REPLAY,
    ST_TOUCH,
    ST_COUNT
};

static const char *const writer_sql[ST_COUNT] = {
    "INSERT OR REPLACE INTO sessions (id, root_id, pid, state, created_ns, ended_ns, updated_ns,"
    " command_line, header, summary) VALUES (?,?,?,?,?,?,?,?,?,?)",
    "INSERT OR REPLACE INTO functions (session_id, idx, function_id, module_id, thread_id, name,"
    " token, il_size, native_size, flags, hresult, jitted, jit_count, first_jit_ns, last_jit_ns,"
    " jit_time_ns, jit_time_total_ns, tier, versions, code_starts, compilations_unkept,"
    " compilation_count, thread_idx) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT OR REPLACE INTO compilations (session_id, function_idx, n, time_ns, jit_ns,"
    " native_size, tier) VALUES (?,?,?,?,?,?,?)",
    "INSERT OR REPLACE INTO modules (session_id, idx, module_id, assembly_id, base_address, path,"
    " assembly, loaded_ns, unloaded_ns, functions, flags, hresult) VALUES "
    "(?,?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT OR REPLACE INTO threads (session_id, idx, thread_id, os_thread_id, flags, name, alive,"
    " created_ns, ended_ns) VALUES (?,?,?,?,?,?,?,?,?)",
    "INSERT OR REPLACE INTO events (session_id, seq, time_ns, type, flags, id, value, extra, tier)"
    " VALUES (?,?,?,?,?,?,?,?,?)",
    "DELETE FROM events WHERE session_id = ? AND seq <= ?",
    "INSERT INTO replay (session_id, chunk, data) VALUES (?, (SELECT coalesce(max(chunk), 0) + 1"
    " FROM replay WHERE session_id = ?1), ?)",
    "UPDATE sessions SET updated_ns = ? WHERE id = ?",
};

static struct {
    sqlite3 *db;
    sqlite3_stmt *st[ST_COUNT];
    pthread_t thread;
    int running;
    pthread_mutex_t mutex; /* guards what follows */
    pthread_cond_t wake;
    int stop, kicked;
    int *forget;
    size_t forget_count, forget_cap;
    unsigned keep, keep_events;
    uint64_t rewrite_ns; /* how long a function's rewrite may wait (0: not at all) */
    uint64_t seen_ns;    /* how often an idle live session's row is marked "still seen" */
    int final;           /* the writer is stopping: everything goes now */
    store_stats stats;
} writer = {.mutex = PTHREAD_MUTEX_INITIALIZER};

/* FNV-1a: h (FNV_START to begin) folded with n bytes; fingerprints only. */
#define FNV_START 1469598103934665603ull
static uint64_t writer_hash(uint64_t h, const void *bytes, size_t n)
{
    const unsigned char *b = bytes;

    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* ---- slice buffers ----------------------------------------------------------
 * A slice's copy is a few MiB: malloc maps such blocks and free unmaps them,
 * and every unmap interrupts the other threads of the process (ingest) to
 * flush their TLBs. So the writer keeps its slice buffers, full-size, for the
 * next round (only the writer thread uses them). */
enum { BUF_FUNCTIONS, BUF_EVENTS, BUF_KINDS, BUF_KEEP = 8 };

static struct {
    void *kept[BUF_KINDS][BUF_KEEP];
    unsigned count[BUF_KINDS];
} writer_bufs;

static size_t writer_buf_size(int kind)
{
    return kind == BUF_FUNCTIONS ? STORE_SLICE_FUNCTIONS * sizeof(copied_function)
                                 : STORE_SLICE_EVENTS * sizeof(session_event);
}

static void *writer_buf_get(int kind)
{
    return writer_bufs.count[kind] ? writer_bufs.kept[kind][--writer_bufs.count[kind]]
                                   : malloc(writer_buf_size(kind));
}

static void writer_buf_put(int kind, void *buf)
{
    if (buf && writer_bufs.count[kind] < BUF_KEEP)
        writer_bufs.kept[kind][writer_bufs.count[kind]++] = buf;
    else
        free(buf);
}

static void writer_bufs_free(void)
{
    int k;

    for (k = 0; k < BUF_KINDS; k++)
        while (writer_bufs.count[k])
            free(writer_bufs.kept[k][--writer_bufs.count[k]]);
}

/* ---- copying out, under the sessions lock -------------------------------- */

static char *writer_dup(const char *text) { return text ? strdup(text) : NULL; }

static int writer_copy_function(copied_function *out, const session *s, uint32_t idx)
{
    const session_function *f = &s->functions[idx];

    uint32_t n;

    out->idx = idx;
    out->f = *f;
    out->thread_id = f->thread_row && f->thread_row <= s->thread_count
                         ? s->threads[f->thread_row - 1].thread_id
                         : 0;
    out->f.name = NULL;
    out->f.compilation_list = NULL;
    out->name = f->name; /* no copy: the session is pinned until the round is written */
    out->more = NULL;
    if (f->compilation_count)
        out->first = session_function_compilation(f, 0);
    if (f->compilation_count > 1) { /* tier-ups: a minority */
        out->more = malloc((size_t)(f->compilation_count - 1) * sizeof(*out->more));
        if (!out->more)
            return -1;
        for (n = 1; n < f->compilation_count; n++)
            out->more[n - 1] = session_function_compilation(f, n);
    }
    return 0;
}

/* Copies f into c's next slot and marks it written; a copy that finds no
 * memory is counted lost. */
static void writer_take_function(copied_session *c, session *s, uint32_t idx, uint64_t *lost)
{
    if (writer_copy_function(&c->functions[c->function_count], s, idx) == 0) {
        s->functions[idx].persist = SESSION_PERSIST_WRITTEN;
        c->function_count++;
    } else {
        s->functions[idx].persist &= (uint8_t)~SESSION_PERSIST_QUEUED;
        (*lost)++;
    }
}

/* Up to `room` of the functions waiting for a rewrite, in index order from
 * where the running batch stopped: a slice then covers neighbouring rows, so
 * a batch writes each page of the table about once. At most
 * STORE_SCAN_FUNCTIONS are looked at per round, which bounds the time the
 * sessions lock is held when few of many functions wait. At the end of the
 * table the batch is over, and what was queued behind it starts waiting anew. */
static void writer_take_rewrites(copied_session *c, session *s, size_t room, uint64_t now_ns,
                                 uint64_t *lost)
{
    const uint8_t both = SESSION_PERSIST_QUEUED | SESSION_PERSIST_WRITTEN;
    session_persist *p = &s->persist;
    size_t i, taken = 0, end = (size_t)p->rewrite_cursor + STORE_SCAN_FUNCTIONS;

    if (end > s->function_count)
        end = s->function_count;
    for (i = p->rewrite_cursor; i < end && taken < room && p->rewrite_count; i++) {
        if ((s->functions[i].persist & both) != both)
            continue;
        writer_take_function(c, s, (uint32_t)i, lost);
        p->rewrite_count--;
        taken++;
    }
    if (i >= s->function_count || !p->rewrite_count) {
        p->rewrite_cursor = 0;
        p->rewrite_since_ns = p->rewrite_count ? now_ns : 0;
    } else {
        p->rewrite_cursor = (uint32_t)i;
    }
}

/* Up to STORE_SLICE_FUNCTIONS of the changed functions; 1 when some are left
 * to write now. Functions not written yet go at once (newest marks first:
 * rows are keyed, so order does not matter). Functions written before and
 * compiled again wait for their batch: until the oldest of them has waited
 * writer.rewrite_ns, the session ended, or the writer stops. A rewrite lands
 * on the function's page wherever it is in the table, so one per re-JIT per
 * round costs a page of disk writes each. */
static int writer_copy_functions(copied_session *c, session *s, copied_round *round, uint64_t *lost)
{
    session_persist *p = &s->persist;
    size_t want, room, i;
    int due;

    if (p->dirty_all) { /* a mark found no memory: every function is a candidate */
        for (i = 0; i < s->function_count; i++)
            s->functions[i].persist &= (uint8_t)~SESSION_PERSIST_QUEUED;
        p->dirty_count = p->rewrite_count = 0;
        p->rewrite_since_ns = 0;
        p->rewrite_cursor = 0;
        p->dirty_all = 0;
        free(p->dirty);
        p->dirty = malloc(s->function_count * sizeof(*p->dirty) + 1);
        p->dirty_cap = p->dirty ? s->function_count : 0;
        for (i = 0; p->dirty && i < s->function_count; i++) {
            s->functions[i].persist |= SESSION_PERSIST_QUEUED;
            p->dirty[p->dirty_count++] = (uint32_t)i;
        }
        if (!p->dirty) {
            *lost += s->function_count;
            return 0;
        }
    }
    due = p->rewrite_count > 0 &&
          (writer.final || writer.rewrite_ns == 0 || s->ended_ns || s->state == SESSION_FAILED ||
           p->rewrite_cursor != 0 || round->now_ns - p->rewrite_since_ns >= writer.rewrite_ns);
    want = p->dirty_count < STORE_SLICE_FUNCTIONS ? p->dirty_count : STORE_SLICE_FUNCTIONS;
    room = due ? STORE_SLICE_FUNCTIONS - want : 0;
    if (want + room) {
        c->functions = writer_buf_get(BUF_FUNCTIONS); /* want + room <= STORE_SLICE_FUNCTIONS */
        if (!c->functions)
            return 1;           /* try again next round */
        p->dirty_count -= want; /* the list's tail: nothing moves under the lock */
        for (i = 0; i < want; i++)
            if (p->dirty[p->dirty_count + i] < s->function_count)
                writer_take_function(c, s, p->dirty[p->dirty_count + i], lost);
        if (room)
            writer_take_rewrites(c, s, room, round->now_ns, lost);
    }
    if (due) /* the rest of the batch goes at the next round */
        round->backlog += p->rewrite_count;
    else
        round->deferred += p->rewrite_count;
    return p->dirty_count > 0 || (due && p->rewrite_count > 0);
}

static int writer_copy_modules(copied_session *c, const session *s)
{
    size_t i;

    c->modules = calloc(s->module_count + 1, sizeof(*c->modules));
    if (!c->modules)
        return -1;
    for (i = 0; i < s->module_count; i++) {
        c->modules[i] = s->modules[i];
        c->modules[i].path = writer_dup(s->modules[i].path);
        c->modules[i].assembly = writer_dup(s->modules[i].assembly);
    }
    c->module_count = s->module_count;
    return 0;
}

static int writer_copy_threads(copied_session *c, const session *s)
{
    size_t i;

    c->threads = calloc(s->thread_count + 1, sizeof(*c->threads));
    if (!c->threads)
        return -1;
    for (i = 0; i < s->thread_count; i++) {
        c->threads[i] = s->threads[i];
        c->threads[i].name = writer_dup(s->threads[i].name);
    }
    c->thread_count = s->thread_count;
    return 0;
}

/* The events after the last one written, at most a slice; 1 when some are left. */
static int writer_copy_events(copied_session *c, session *s, uint64_t *lost)
{
    session_persist *p = &s->persist;
    uint64_t first = session_first_event_seq(s), from = p->stored_event_seq + 1, seq;
    size_t n;

    if (from < first) { /* evicted from memory before they were written */
        *lost += first - from;
        from = first;
        p->stored_event_seq = first - 1;
    }
    if (from > s->event_seq)
        return 0;
    n = (size_t)(s->event_seq - from + 1);
    if (n > STORE_SLICE_EVENTS)
        n = STORE_SLICE_EVENTS;
    c->events = writer_buf_get(BUF_EVENTS); /* n <= STORE_SLICE_EVENTS */
    if (!c->events)
        return 1;
    for (seq = from; seq < from + n; seq++)
        c->events[c->event_count++] = *session_event_at(s, seq);
    p->stored_event_seq = from + n - 1;
    return p->stored_event_seq < s->event_seq;
}

/* What the header and the list entry are made of changes with one of these
 * (agent records move the events, functions, modules, threads, catch-ups and
 * drop counts; the server's own changes are state transitions, exit, detach
 * and error text), so an unchanged session costs a hash, not two JSON
 * documents, per round. The agent's periodic records (every 500 ms, even
 * while the app idles) move only counters that are not hashed here: records
 * and bytes received (hashed apart, into *traffic), records produced, ring
 * use, the agent's cost histogram, sequence gaps, the tier source's status.
 * Those are written with the next hashed change, or when the "still seen"
 * mark is due, the session ends or the writer stops. */
static uint64_t writer_fingerprint(const session *s, uint64_t *traffic)
{
    uint64_t h;
    const int64_t link[] = {(int64_t)s->records, (int64_t)s->bytes};
    const int64_t fields[] = {s->state,
                              s->link_id,
                              s->connections,
                              s->ended_ns,
                              s->connected_ns,
                              s->has_exit_code,
                              s->exit_code,
                              s->exit_signal,
                              s->detach_requested_ns,
                              s->detach_finished_ns,
                              s->detach_hresult,
                              (int64_t)s->module_count,
                              (int64_t)s->thread_count,
                              (int64_t)s->persist.threads_gen,
                              (int64_t)s->event_seq,
                              (int64_t)s->functions_jitted,
                              (int64_t)s->catchups,
                              (int64_t)s->capacity_drops,
                              (int64_t)s->tiers.enabled,
                              (int64_t)s->tiers.lost,
                              s->pid,
                              s->parent_pid};

    *traffic = writer_hash(FNV_START, link, sizeof(link));
    h = writer_hash(FNV_START, fields, sizeof(fields));
    h = writer_hash(h, s->drops.dropped, sizeof(s->drops.dropped));
    h = writer_hash(h, s->error, strlen(s->error) + 1); /* with its NUL: a separator */
    return s->command_line ? writer_hash(h, s->command_line, strlen(s->command_line)) : h;
}

/* Whether a copy holds nothing to write: the round leaves it out, and a
 * round of only such copies opens no transaction. */
static int writer_copy_empty(const copied_session *c)
{
    return !c->header && !c->seen && !c->function_count && !c->modules && !c->threads &&
           !c->event_count && !c->replay_len;
}

static int writer_copy_session(copied_session *c, session *s, copied_round *round)
{
    session_persist *p = &s->persist;
    uint64_t lost = 0, traffic, print = writer_fingerprint(s, &traffic);
    int more = 0, seen_due;

    memset(c, 0, sizeof(*c));
    c->id = s->id;
    c->live = !s->ended_ns && s->state != SESSION_FAILED;
    /* at the server's stop too: a live session ends, as interrupted, when it stops */
    seen_due = c->live && (writer.final || round->now_ns - p->stored_seen_ns >= writer.seen_ns);
    if (print != p->stored_header_hash ||
        (traffic != p->stored_traffic_hash && (seen_due || !c->live))) {
        json_t *header = store_header_to_json(s), *summary = view_session_summary(s);
        c->header = header ? json_dumps(header, JSON_COMPACT) : NULL;
        c->summary = summary ? json_dumps(summary, JSON_COMPACT) : NULL;
        json_decref(header);
        json_decref(summary);
        if (!c->header || !c->summary) {
            free(c->header);
            free(c->summary);
            return -1;
        }
        c->root_id = s->root_id;
        c->pid = (int)s->pid;
        c->created_ns = s->created_ns;
        c->ended_ns = s->ended_ns;
        c->state = strdup(session_state_name(s->state));
        c->command_line = writer_dup(s->command_line);
        p->stored_header_hash = print;
        p->stored_traffic_hash = traffic;
        p->stored_seen_ns = round->now_ns; /* the header row says when it was written */
    } else if (seen_due) {
        c->seen = 1; /* an interrupted session ends when it was last seen */
        p->stored_seen_ns = round->now_ns;
    }
    more |= writer_copy_functions(c, s, round, &lost);
    if (c->function_count) {
        sessions_pin(s); /* its interned names stay valid until the round is written */
        c->pinned = s;
    }
    if (p->modules_gen != p->stored_modules_gen && writer_copy_modules(c, s) == 0)
        p->stored_modules_gen = p->modules_gen;
    if (p->threads_gen != p->stored_threads_gen && writer_copy_threads(c, s) == 0)
        p->stored_threads_gen = p->threads_gen;
    more |= writer_copy_events(c, s, &lost);
    c->replay = p->replay; /* the log moves to the writer whole */
    c->replay_len = p->replay_len;
    p->replay = NULL;
    p->replay_len = p->replay_cap = 0;
    round->backlog += p->dirty_count + (s->event_seq - p->stored_event_seq);
    round->more |= more;
    pthread_mutex_lock(&writer.mutex);
    writer.stats.lost += lost + (p->replay_lost - p->replay_lost_counted);
    p->replay_lost_counted = p->replay_lost; /* the detail keeps the session's total */
    pthread_mutex_unlock(&writer.mutex);
    return 0;
}

static void writer_free_copy(copied_session *c)
{
    size_t i;

    for (i = 0; i < c->function_count; i++)
        free(c->functions[i].more);
    for (i = 0; i < c->module_count; i++) {
        free(c->modules[i].path);
        free(c->modules[i].assembly);
    }
    for (i = 0; i < c->thread_count; i++)
        free(c->threads[i].name);
    writer_buf_put(BUF_FUNCTIONS, c->functions);
    free(c->modules);
    free(c->threads);
    writer_buf_put(BUF_EVENTS, c->events);
    free(c->replay);
    free(c->state);
    free(c->command_line);
    free(c->header);
    free(c->summary);
}

/* Copies one round out of the registry (takes the sessions lock). */
static void writer_copy_round(copied_round *round)
{
    size_t n, i;

    memset(round, 0, sizeof(*round));
    round->now_ns = clock_mono_ns();
    sessions_lock();
    n = sessions_count();
    round->sessions = calloc(n + 1, sizeof(*round->sessions));
    for (i = 0; round->sessions && i < n; i++) {
        session *s = sessions_at(i);
        if (s->persist.past)
            continue;
        copied_session *c = &round->sessions[round->count];
        if (writer_copy_session(c, s, round) != 0)
            continue;
        if (writer_copy_empty(c))
            writer_free_copy(c);
        else
            round->count++;
    }
    sessions_unlock();
}

/* ---- writing, outside the lock --------------------------------------------- */

static int writer_step(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);

    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static void bind_text(sqlite3_stmt *st, int i, const char *text)
{
    if (text)
        sqlite3_bind_text(st, i, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

static int writer_put_header(const copied_session *c)
{
    sqlite3_stmt *st = writer.st[ST_SESSION];

    sqlite3_bind_int(st, 1, c->id);
    sqlite3_bind_int(st, 2, c->root_id);
    sqlite3_bind_int(st, 3, c->pid);
    bind_text(st, 4, c->state);
    sqlite3_bind_int64(st, 5, c->created_ns);
    sqlite3_bind_int64(st, 6, c->ended_ns);
    sqlite3_bind_int64(st, 7, (sqlite3_int64)clock_real_ns());
    bind_text(st, 8, c->command_line ? c->command_line : "");
    bind_text(st, 9, c->header);
    bind_text(st, 10, c->summary);
    return writer_step(st);
}

static int writer_put_function(int session_id, const copied_function *cf, uint64_t *rows)
{
    const session_function *f = &cf->f;
    sqlite3_stmt *st = writer.st[ST_FUNCTION];
    unsigned versions = f->versions < SESSION_MAX_CODE_VERSIONS ? f->versions
                                                                : SESSION_MAX_CODE_VERSIONS;
    uint32_t n;

    sqlite3_bind_int(st, 1, session_id);
    sqlite3_bind_int64(st, 2, cf->idx);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)f->function_id);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)f->module_id);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)cf->thread_id);
    bind_text(st, 6, cf->name);
    sqlite3_bind_int64(st, 7, f->token);
    sqlite3_bind_int64(st, 8, f->il_size);
    sqlite3_bind_int64(st, 9, f->native_size);
    sqlite3_bind_int64(st, 10, f->flags);
    sqlite3_bind_int64(st, 11, f->hresult);
    sqlite3_bind_int64(st, 12, f->jitted);
    sqlite3_bind_int64(st, 13, f->jit_count);
    sqlite3_bind_int64(st, 14, f->first_jit_ns);
    sqlite3_bind_int64(st, 15, f->last_jit_ns);
    sqlite3_bind_int64(st, 16, (sqlite3_int64)f->jit_time_ns);
    sqlite3_bind_int64(st, 17, (sqlite3_int64)f->jit_time_total_ns);
    sqlite3_bind_int64(st, 18, f->tier);
    sqlite3_bind_int64(st, 19, f->versions);
    sqlite3_bind_blob(st, 20, f->code_start, (int)(versions * sizeof(f->code_start[0])),
                      SQLITE_STATIC);
    sqlite3_bind_int64(st, 21, f->compilations_unkept);
    sqlite3_bind_int64(st, 22, f->compilation_count);
    sqlite3_bind_int64(st, 23, (sqlite3_int64)f->thread_row - 1); /* -1: unknown */
    if (writer_step(st) != 0)
        return -1;
    (*rows)++;
    if (f->compilation_count < 2)
        return 0; /* compiled once: the row above is that compilation (schema v3) */
    st = writer.st[ST_COMPILATION];
    for (n = 0; n < f->compilation_count; n++) {
        const session_compilation *k = n ? &cf->more[n - 1] : &cf->first;
        sqlite3_bind_int(st, 1, session_id);
        sqlite3_bind_int64(st, 2, cf->idx);
        sqlite3_bind_int64(st, 3, n);
        sqlite3_bind_int64(st, 4, k->time_ns);
        sqlite3_bind_int64(st, 5, (sqlite3_int64)k->jit_ns);
        sqlite3_bind_int64(st, 6, k->native_size);
        sqlite3_bind_int64(st, 7, k->tier);
        if (writer_step(st) != 0)
            return -1;
        (*rows)++;
    }
    return 0;
}

static int writer_put_module(int session_id, size_t idx, const session_module *m)
{
    sqlite3_stmt *st = writer.st[ST_MODULE];

    sqlite3_bind_int(st, 1, session_id);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)idx);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)m->module_id);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)m->assembly_id);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)m->base_address);
    bind_text(st, 6, m->path);
    bind_text(st, 7, m->assembly);
    sqlite3_bind_int64(st, 8, m->loaded_ns);
    sqlite3_bind_int64(st, 9, m->unloaded_ns);
    sqlite3_bind_int64(st, 10, m->functions);
    sqlite3_bind_int64(st, 11, m->flags);
    sqlite3_bind_int64(st, 12, m->hresult);
    return writer_step(st);
}

static int writer_put_thread(int session_id, size_t idx, const session_thread *t)
{
    sqlite3_stmt *st = writer.st[ST_THREAD];

    sqlite3_bind_int(st, 1, session_id);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)idx);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)t->thread_id);
    sqlite3_bind_int64(st, 4, t->os_thread_id);
    sqlite3_bind_int64(st, 5, t->flags);
    bind_text(st, 6, t->name);
    sqlite3_bind_int(st, 7, t->alive);
    sqlite3_bind_int64(st, 8, t->created_ns);
    sqlite3_bind_int64(st, 9, t->ended_ns);
    return writer_step(st);
}

static int writer_put_event(int session_id, const session_event *e)
{
    sqlite3_stmt *st = writer.st[ST_EVENT];

    sqlite3_bind_int(st, 1, session_id);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)e->seq);
    sqlite3_bind_int64(st, 3, e->time_ns);
    sqlite3_bind_int64(st, 4, e->type);
    sqlite3_bind_int64(st, 5, e->flags);
    sqlite3_bind_int64(st, 6, (sqlite3_int64)e->id);
    sqlite3_bind_int64(st, 7, (sqlite3_int64)e->value);
    sqlite3_bind_int64(st, 8, e->extra);
    sqlite3_bind_int64(st, 9, e->tier);
    return writer_step(st);
}

static int writer_put_session(const copied_session *c, uint64_t *rows)
{
    size_t i;

    if (c->header && writer_put_header(c) != 0)
        return -1;
    if (c->seen) {
        sqlite3_stmt *st = writer.st[ST_TOUCH];
        sqlite3_bind_int64(st, 1, (sqlite3_int64)clock_real_ns());
        sqlite3_bind_int(st, 2, c->id);
        if (writer_step(st) != 0)
            return -1;
    }
    for (i = 0; i < c->function_count; i++)
        if (writer_put_function(c->id, &c->functions[i], rows) != 0)
            return -1;
    for (i = 0; i < c->module_count; i++)
        if (writer_put_module(c->id, i, &c->modules[i]) != 0)
            return -1;
    for (i = 0; i < c->thread_count; i++)
        if (writer_put_thread(c->id, i, &c->threads[i]) != 0)
            return -1;
    for (i = 0; i < c->event_count; i++)
        if (writer_put_event(c->id, &c->events[i]) != 0)
            return -1;
    if (c->event_count && c->events[c->event_count - 1].seq > writer.keep_events) {
        /* --keep-events: the newest ones (at most what memory keeps) */
        sqlite3_stmt *st = writer.st[ST_EVENTS_TRIM];
        sqlite3_bind_int(st, 1, c->id);
        sqlite3_bind_int64(st, 2,
                           (sqlite3_int64)(c->events[c->event_count - 1].seq - writer.keep_events));
        if (writer_step(st) != 0)
            return -1;
    }
    if (c->replay_len) {
        sqlite3_stmt *st = writer.st[ST_REPLAY];
        sqlite3_bind_int(st, 1, c->id);
        sqlite3_bind_blob(st, 2, c->replay, (int)c->replay_len, SQLITE_STATIC);
        if (writer_step(st) != 0)
            return -1;
    }
    *rows += c->module_count + c->thread_count + c->event_count + (c->header != NULL);
    return 0;
}

static void writer_fail(const char *what)
{
    pthread_mutex_lock(&writer.mutex);
    writer.stats.write_errors++;
    snprintf(writer.stats.last_error, sizeof(writer.stats.last_error), "%s: %s", what,
             sqlite3_errmsg(writer.db));
    pthread_mutex_unlock(&writer.mutex);
    fprintf(stderr, "jitscope: storage: %s: %s\n", what, sqlite3_errmsg(writer.db));
}

/* Writes one round in one transaction. A failed round is rolled back and
 * counted (its changes are lost, and say so in the stats). */
static void writer_write_round(copied_round *round)
{
    char err[256];
    uint64_t rows = 0, replay = 0, lost = 0;
    size_t i;
    int ok = round->count == 0 || store_exec(writer.db, "BEGIN", err, sizeof(err)) == 0;

    for (i = 0; ok && i < round->count; i++) {
        ok = writer_put_session(&round->sessions[i], &rows) == 0;
        replay += round->sessions[i].replay_len;
    }
    if (ok && round->count && store_exec(writer.db, "COMMIT", err, sizeof(err)) != 0)
        ok = 0;
    if (!ok) {
        writer_fail("writing a round");
        store_exec(writer.db, "ROLLBACK", err, sizeof(err));
        for (i = 0; i < round->count; i++)
            lost += round->sessions[i].function_count + round->sessions[i].event_count;
    }
    sessions_lock();
    for (i = 0; i < round->count; i++)
        if (round->sessions[i].pinned)
            sessions_unpin(round->sessions[i].pinned); /* frees one removed meanwhile */
    sessions_unlock();
    for (i = 0; i < round->count; i++)
        writer_free_copy(&round->sessions[i]);
    free(round->sessions);
    pthread_mutex_lock(&writer.mutex);
    writer.stats.rounds++;
    if (ok && round->count) {
        writer.stats.commits++;
        writer.stats.rows += rows;
        writer.stats.bytes_replay += replay;
        writer.stats.last_commit_ns = (int64_t)clock_real_ns();
    }
    writer.stats.lost += lost;
    writer.stats.backlog = round->backlog;
    writer.stats.deferred = round->deferred;
    pthread_mutex_unlock(&writer.mutex);
}

/* ---- deletions and retention ------------------------------------------------ */

static void writer_delete(int id)
{
    static const char *const tables[] = {"functions", "compilations", "modules", "threads",
                                         "events",    "replay",       "sessions"};
    char sql[96], err[256];
    size_t i;

    if (store_exec(writer.db, "BEGIN", err, sizeof(err)) != 0)
        goto fail;
    for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
        snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE %s = %d", tables[i],
                 strcmp(tables[i], "sessions") == 0 ? "id" : "session_id", id);
        if (store_exec(writer.db, sql, err, sizeof(err)) != 0) {
            store_exec(writer.db, "ROLLBACK", err, sizeof(err));
            goto fail;
        }
    }
    if (store_exec(writer.db, "COMMIT", err, sizeof(err)) == 0)
        return;
fail:
    writer_fail("deleting a session");
}

/* --keep: the oldest ended sessions beyond `keep` leave memory and the file. */
static void writer_retention(void)
{
    int doomed[SESSIONS_MAX];
    size_t n, i, ended = 0, count = 0;

    sessions_lock();
    n = sessions_count();
    for (i = 0; i < n; i++)
        ended += sessions_may_forget(sessions_at(i));
    for (i = 0; i < n && ended > writer.keep; i++) {
        session *s = sessions_at(i); /* oldest first */
        if (sessions_may_forget(s)) {
            doomed[count++] = s->id;
            ended--;
        }
    }
    for (i = 0; i < count; i++)
        sessions_remove(doomed[i]);
    sessions_unlock();
    for (i = 0; i < count; i++)
        writer_delete(doomed[i]);
}

static void writer_run_deletions(void)
{
    for (;;) {
        int id;
        pthread_mutex_lock(&writer.mutex);
        if (!writer.forget_count) {
            pthread_mutex_unlock(&writer.mutex);
            return;
        }
        id = writer.forget[--writer.forget_count];
        pthread_mutex_unlock(&writer.mutex);
        writer_delete(id);
    }
}

static void writer_count_stored(void)
{
    sqlite3_stmt *st = NULL;
    uint64_t n = 0;

    if (sqlite3_prepare_v2(writer.db, "SELECT count(*) FROM sessions", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = (uint64_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    pthread_mutex_lock(&writer.mutex);
    writer.stats.sessions_stored = n;
    pthread_mutex_unlock(&writer.mutex);
}

/* ---- the thread ----------------------------------------------------------------- */

/* One round; returns 1 when it hit a slice limit (more to write now). */
static int writer_round(void)
{
    copied_round round;

    writer_copy_round(&round);
    writer_write_round(&round);
    writer_run_deletions();
    return round.more;
}

static void *writer_main(void *arg)
{
    (void)arg;
    /* background work: when the cores are busy, ingest and requests go first
     * and the writer's backlog grows (shown) instead; Linux nice is per thread */
    if (setpriority(PRIO_PROCESS, (id_t)gettid(), STORE_WRITER_NICE) != 0)
        fprintf(stderr, "jitscope: storage: cannot lower the writer's priority: %s\n",
                strerror(errno));
    pthread_setname_np(pthread_self(), "jitscope-store");
    for (;;) {
        struct timespec deadline;
        int stop;

        while (writer_round())
            ;
        writer_retention();
        writer_count_stored();
        clock_gettime(CLOCK_MONOTONIC, &deadline);
        deadline.tv_nsec += STORE_TICK_MS * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&writer.mutex);
        while (!writer.stop && !writer.kicked &&
               pthread_cond_timedwait(&writer.wake, &writer.mutex, &deadline) != ETIMEDOUT)
            ;
        writer.kicked = 0;
        stop = writer.stop;
        pthread_mutex_unlock(&writer.mutex);
        if (stop)
            break;
    }
    writer.final = 1;      /* rewrites wait no longer */
    while (writer_round()) /* the last word: everything still in memory */
        ;
    writer_retention();
    writer_run_deletions();
    writer_bufs_free();
    return NULL;
}

int store_writer_start(sqlite3 *db, const struct store_options *o, char *err, size_t errsz)
{
    pthread_condattr_t attr;
    int i;

    writer.db = db;
    writer.keep = o->keep;
    writer.keep_events = o->keep_events;
    writer.rewrite_ns = (uint64_t)o->rewrite_ms * 1000000u;
    writer.seen_ns = (uint64_t)o->seen_ms * 1000000u;
    writer.final = 0;
    for (i = 0; i < ST_COUNT; i++) {
        if (sqlite3_prepare_v3(db, writer_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &writer.st[i],
                               NULL) != SQLITE_OK) {
            snprintf(err, errsz, "preparing the writer: %s", sqlite3_errmsg(db));
            goto fail;
        }
    }
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&writer.wake, &attr);
    pthread_condattr_destroy(&attr);
    writer.stop = writer.kicked = 0;
    if (pthread_create(&writer.thread, NULL, writer_main, NULL) != 0) {
        snprintf(err, errsz, "cannot start the storage writer: %s", strerror(errno));
        goto fail;
    }
    writer.running = 1;
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

    if (!writer.running)
        return;
    pthread_mutex_lock(&writer.mutex);
    writer.stop = 1;
    pthread_cond_signal(&writer.wake);
    pthread_mutex_unlock(&writer.mutex);
    pthread_join(writer.thread, NULL);
    writer.running = 0;
    for (i = 0; i < ST_COUNT; i++) {
        sqlite3_finalize(writer.st[i]);
        writer.st[i] = NULL;
    }
    pthread_cond_destroy(&writer.wake);
    free(writer.forget);
    writer.forget = NULL;
    writer.forget_count = writer.forget_cap = 0;
}

void store_writer_forget(int session_id)
{
    pthread_mutex_lock(&writer.mutex);
    if (writer.forget_count == writer.forget_cap) {
        size_t cap = writer.forget_cap ? writer.forget_cap * 2 : 16;
        int *grown = realloc(writer.forget, cap * sizeof(*grown));
        if (!grown) {
            writer.stats.lost++;
            pthread_mutex_unlock(&writer.mutex);
            return;
        }
        writer.forget = grown;
        writer.forget_cap = cap;
    }
    writer.forget[writer.forget_count++] = session_id;
    writer.kicked = 1;
    pthread_cond_signal(&writer.wake);
    pthread_mutex_unlock(&writer.mutex);
}

void store_writer_kick(void)
{
    pthread_mutex_lock(&writer.mutex);
    writer.kicked = 1;
    if (writer.running)
        pthread_cond_signal(&writer.wake);
    pthread_mutex_unlock(&writer.mutex);
}

void store_writer_stats(store_stats *out)
{
    pthread_mutex_lock(&writer.mutex);
    *out = writer.stats;
    pthread_mutex_unlock(&writer.mutex);
    out->rewrite_delay_ms = (unsigned)(writer.rewrite_ns / 1000000u); /* set once at start */
}
