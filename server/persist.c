/* persist.c -- the sessions' side of storage (see persist.h). */
#include "persist.h"
#include "budget.h"

#include <errno.h>
#include <jansson.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "proc.h"
#include "record_kinds.h"
#include "session_header.h"
#include "sessions.h"
#include "snapshot.h"
#include "store.h"
#include "views.h"
#include "wire_decode.h"

static struct {
    int enabled;
    persist_options options;
    size_t compact_min; /* an ended session's log bytes that make its snapshot pay */
    int freed;          /* sessions left memory since the last sweep (sessions lock) */
} persist;

int persist_enabled(void) { return persist.enabled; }

static uint64_t persist_hash(uint64_t h, const void *bytes, size_t n)
{
    const unsigned char *p = bytes;
    size_t i;

    for (i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static int persist_state_ended(session_state st)
{
    return st == SESSION_EXITED || st == SESSION_DETACHED || st == SESSION_FAILED ||
           st == SESSION_INTERRUPTED;
}

/* ---- into the log ------------------------------------------------------------------ */

static void persist_put_header(session *s, int64_t now_ns);

/* Hands frames to storage; the bytes it keeps waiting for the writer. */
static size_t persist_append(session *s, int64_t now_ns, const void *frames, size_t length)
{
    if (!persist.enabled || s->persist.quiet || s->persist.past)
        return 0;
    if (!s->persist.stored) /* its row first: a log without one is never listed */
        persist_put_header(s, now_ns);
    s->persist.log_bytes += length;
    s->persist.last_seen_ns = now_ns;
    return store_append(s->id, now_ns, frames, length);
}

void persist_frames(session *s, int64_t now_ns, const void *frames, size_t length)
{
    session_memory_logged(s, persist_append(s, now_ns, frames, length));
}

/* session_set_record_sink: the session's own records go where the agent's do. */
static void persist_sink(session *s, int64_t now_ns, const void *frame, size_t length)
{
    session_memory_handed(s, persist_append(s, now_ns, frame, length));
}

/* ---- header rows ------------------------------------------------------------------- */

/* What changes the header row: the session's own fields. */
static uint64_t persist_own_hash(const session *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    int64_t v[] = {
        s->state,       s->pid,         s->parent_pid,          s->has_exit_code,  s->exit_code,
        s->exit_signal, s->ended_ns,    s->detach_requested_ns, s->created_ns,     s->root_id,
        s->mode,        s->agent_flags, s->event_mask,          s->event_mask_high};

    uint64_t outside_ms = 0;
    uint32_t i;

    for (i = 0; i < s->outside_count; i++) /* a run's build servers outside it (buildwatch.h) */
        outside_ms += s->outside[i].cpu_ms;
    h = persist_hash(h, v, sizeof(v));
    h = persist_hash(h, &s->outside_count, sizeof(s->outside_count));
    h = persist_hash(h, &outside_ms, sizeof(outside_ms));
    h = persist_hash(h, s->program, strlen(s->program));
    h = persist_hash(h, s->error, strlen(s->error));
    h = persist_hash(h, &s->container, sizeof(s->container)); /* where it runs, and how it came */
    h = persist_hash(h, &s->via_port, sizeof(s->via_port));
    return persist_hash(h, s->command_line, strlen(s->command_line));
}

/* What moves the list entry besides them: the counters it shows. */
static uint64_t persist_summary_hash(const session *s)
{
    uint64_t v[] = {s->functions_jitted, s->module_count,      s->thread_count,
                    s->jit_compilations, s->jit_time_total_ns, s->events.last_seq,
                    s->drops.produced,   s->connected_ns != 0};

    return persist_hash(0xcbf29ce484222325ull, v, sizeof(v));
}

/* Hands storage the session's header row (caller holds the sessions lock). */
static void persist_put_header(session *s, int64_t now_ns)
{
    json_t *header;
    json_t *summary;
    char *header_text, *summary_text;

    if (!s->start_time && s->pid > 0) /* what tells its process from a later one */
        s->start_time = proc_start_time(s->pid);
    header = session_header_to_json(s);
    summary = view_session_summary(s);
    header_text = header ? json_dumps(header, JSON_COMPACT) : NULL;
    summary_text = summary ? json_dumps(summary, JSON_COMPACT) : NULL;

    if (header_text && summary_text) {
        store_header h = {s->id,         session_state_name(s->state),
                          header_text,   summary_text,
                          s->created_ns, persist_state_ended(s->state) ? s->ended_ns : 0,
                          now_ns,        0};
        store_put_header(&h);
        s->persist.stored = 1;
        s->persist.header_hash = persist_own_hash(s);
        s->persist.summary_hash = persist_summary_hash(s);
        s->persist.summary_mono_ns = (int64_t)clock_mono_ns();
    }
    free(header_text);
    free(summary_text);
    json_decref(header);
    json_decref(summary);
}

/* ---- snapshots and unloading ------------------------------------------------------- */

static void persist_snapshot(session *s)
{
    textbuf out;
    char *bytes;
    size_t length = 0;

    textbuf_init(&out, (size_t)4 << 30);
    if (snapshot_encode(s, persist.options.keep_events, &out) != 0 ||
        !(bytes = textbuf_take(&out, &length))) {
        textbuf_free(&out);
        fprintf(stderr, "jitscope: storage: session %d: no memory for its snapshot\n", s->id);
        return;
    }
    session_memory_handed(s, store_snapshot(s->id, bytes, length));
    s->persist.log_bytes = 0;
    s->persist.snapshot_bytes = length;
}

static int persist_unloadable(const session *s)
{
    return s->persist.stored && s->persist.loaded && s->persist.snapshotted && !s->pins &&
           !s->link_id && store_synced(s->id);
}

/* Takes an ended session's content out of memory; its list entry stays. */
static void persist_unload(session *s)
{
    json_t *summary = view_session_summary(s);
    char *text = summary ? json_dumps(summary, JSON_COMPACT) : NULL;

    json_decref(summary);
    if (!text)
        return;
    free(s->persist.summary);
    s->persist.summary = text;
    session_drop_content(s);
    s->persist.loaded = 0;
    persist.freed = 1;
}

/* A session waiting for its agent after a restart that will not come: its
 * agent left the process (it gives up after a while without a server), or
 * the wait is over. */
static void persist_resume_expired(session *s, int64_t now_ns, int64_t mono_ns)
{
    if (!s->persist.resumable || s->link_id)
        return;
    if (mono_ns - s->persist.resume_mono_ns < (int64_t)PERSIST_RESUME_WAIT_MS * 1000000 &&
        proc_has_thread(s->pid, WIRE_AGENT_THREAD_NAME) != 0)
        return;
    s->persist.resumable = 0;
    session_resume_abandoned(s, now_ns);
}

/* Whether an ended session's snapshot pays (PERSIST_COMPACT_MIN): its log
 * is long, or broke (a snapshot makes it whole), or holds events beyond
 * --keep-events (a snapshot keeps only the newest). Lock held. */
static int persist_compaction_pays(session *s)
{
    unsigned keep = persist.options.keep_events;

    return s->persist.log_bytes >= persist.compact_min ||
           (store_broken(s->id) && s->persist.log_bytes > 0) ||
           (keep && s->events.last_seq >= keep &&
            eventlog_first_seq(&s->events) <= s->events.last_seq - keep);
}

/* An ended session whose compaction was decided (done, or not needed). */
static void persist_settled(session *s)
{
    s->persist.snapshotted = 1;
    /* its end counts as a use: it stays loaded the unload delay from now (a
     * session nobody read back had none, and left at the first sweep after its
     * snapshot was committed, while its user was still looking at it) */
    s->persist.used_mono_ns = (int64_t)clock_mono_ns();
}

/* One session's turn in the sweep (lock held); 1 when it ended and wants
 * its snapshot. */
static int persist_sweep_one(session *s, int64_t now_ns, int64_t mono_ns)
{
    int ended;
    uint64_t bound = 2 * s->persist.snapshot_bytes;

    if (s->persist.past) /* read back: nothing of it changes */
        return 0;
    persist_resume_expired(s, now_ns, mono_ns);
    ended = persist_state_ended(s->state) && !s->link_id;
    if (!s->persist.stored || persist_own_hash(s) != s->persist.header_hash ||
        (persist_summary_hash(s) != s->persist.summary_hash &&
         (ended || mono_ns - s->persist.summary_mono_ns >= (int64_t)PERSIST_SUMMARY_MS * 1000000)))
        persist_put_header(s, now_ns);
    if (bound < PERSIST_LOG_BOUND)
        bound = PERSIST_LOG_BOUND;
    if (ended && !s->persist.snapshotted) {
        if (persist_compaction_pays(s))
            return 1;       /* the caller snapshots it without the lock held */
        persist_settled(s); /* its log is what storage keeps */
        return 0;
    }
    if (!ended &&
        (s->persist.log_bytes > bound || (store_broken(s->id) && s->persist.log_bytes > 0))) {
        persist_snapshot(s); /* a long log, or one that broke: a snapshot makes it whole */
    }
    return 0;
}

/* An ended session's snapshot: nothing folds into it any more, so it is
 * encoded with the lock released (the session pinned), which a session of
 * millions of functions would otherwise hold for a second. Lock held. */
static void persist_snapshot_ended(session *s)
{
    textbuf out;
    char *bytes = NULL;
    size_t length = 0;
    int rc;

    sessions_pin(s);
    sessions_unlock();
    textbuf_init(&out, (size_t)4 << 30);
    rc = snapshot_encode(s, persist.options.keep_events, &out);
    if (rc == 0)
        bytes = textbuf_take(&out, &length);
    textbuf_free(&out);
    sessions_lock();
    if (!bytes) {
        fprintf(stderr, "jitscope: storage: session %d: no memory for its snapshot\n", s->id);
    } else if (!s->forgotten) {
        session_memory_handed(s, store_snapshot(s->id, bytes, length));
        s->persist.log_bytes = 0;
        s->persist.snapshot_bytes = length;
    } else {
        free(bytes);
    }
    persist_settled(s);
    sessions_unpin(s);
}

/* Ended sessions nobody asked for lately leave memory; at most
 * PERSIST_LOADED_MAX stay, the least recently used going first. */
static void persist_unload_idle(int64_t mono_ns)
{
    size_t i, loaded = 0;
    int64_t idle = (int64_t)(persist.options.unload_ms ? persist.options.unload_ms
                                                       : PERSIST_UNLOAD_MS) *
                   1000000;

    for (i = 0; i < sessions_count(); i++) {
        session *s = sessions_at(i);
        if (!persist_unloadable(s))
            continue;
        if (mono_ns - s->persist.used_mono_ns >= idle)
            persist_unload(s);
        else
            loaded++;
    }
    while (loaded > PERSIST_LOADED_MAX) {
        session *oldest = NULL;
        for (i = 0; i < sessions_count(); i++) {
            session *s = sessions_at(i);
            if (persist_unloadable(s) &&
                (!oldest || s->persist.used_mono_ns < oldest->persist.used_mono_ns))
                oldest = s;
        }
        if (!oldest)
            break;
        persist_unload(oldest);
        loaded--;
    }
}

unsigned persist_make_room(void)
{
    uint64_t max = budget_max(), enough = max - max / 16;
    unsigned released = 0;
    size_t i = 0;

    for (i = 0; i < sessions_count(); i++) /* what the writer finished is given back */
        session_memory_unwritten(sessions_at(i));
    i = 0;
    while (budget_held() > enough && i < sessions_count()) {
        session *s = sessions_at(i);
        if (!persist.enabled && sessions_may_forget(s) && !s->pins) {
            fprintf(stderr, "jitscope: memory budget spent: session %d (ended) forgotten\n", s->id);
            sessions_remove(s->id); /* the next one moves into position i */
            released++;
            continue;
        }
        if (persist.enabled && persist_unloadable(s)) {
            persist_unload(s); /* read back on its next request */
            released++;
        }
        i++;
    }
    return released;
}

/* --keep: the oldest ended sessions beyond it are deleted. */
static void persist_retention(void)
{
    unsigned keep = persist.options.keep ? persist.options.keep : STORE_KEEP_DEFAULT;
    size_t i, ended = 0;

    for (i = 0; i < sessions_count(); i++)
        ended += sessions_may_forget(sessions_at(i)) && sessions_at(i)->persist.stored;
    for (i = 0; ended > keep && i < sessions_count();) {
        session *s = sessions_at(i);
        if (sessions_may_forget(s) && s->persist.stored) {
            store_forget(s->id);
            sessions_remove(s->id); /* the next one moves into position i */
            persist.freed = 1;
            ended--;
        } else {
            i++;
        }
    }
}

/* 1 while something waits for the writer or is being written. */
static int persist_writer_busy(void)
{
    store_stats st;

    store_get_stats(&st);
    return st.backlog > 0;
}

/* What sessions that left memory freed goes back to the system: glibc's
 * malloc keeps freed memory resident for its next requests, and most of what
 * a session's content leaves lies between blocks that stay (other sessions',
 * storage's), where it never trims on its own (in the attach/detach soak a
 * malloc_trim by hand at cycle 300 gave back 3.4 of the server's 31.2 MB).
 * Called without the sessions lock, after a sweep that found sessions had
 * left memory (unloaded, here or by persist_make_room, or deleted). */
static void persist_give_back(void) { malloc_trim(0); }

void persist_sweep(void)
{
    int64_t now_ns = (int64_t)clock_real_ns(), mono_ns = (int64_t)clock_mono_ns();
    size_t i;
    int freed;

    if (!persist.enabled)
        return;
    sessions_lock();
    for (i = 0; i < sessions_count(); i++) /* what the writer finished is given back */
        session_memory_unwritten(sessions_at(i));
    for (i = 0; i < sessions_count(); i++) {
        session *s = sessions_at(i);
        if (!persist_sweep_one(s, now_ns, mono_ns))
            continue;
        /* a snapshot doubles what the session holds until it is written:
         * beyond the memory budget, the writer finishes what it has first */
        if (budget_held() + s->budget.held > budget_max() && persist_writer_busy())
            continue;
        persist_snapshot_ended(s); /* may let others in: i stays valid, the registry
                                      only grows or keeps a pinned session */
    }
    persist_unload_idle(mono_ns);
    persist_retention();
    freed = persist.freed;
    persist.freed = 0;
    sessions_unlock();
    if (freed)
        persist_give_back();
}

void persist_forget(int session_id)
{
    if (persist.enabled)
        store_forget(session_id);
}

/* ---- reading back ------------------------------------------------------------------ */

typedef struct persist_loader {
    session *s;
    int64_t last_now_ns; /* the newest entry's arrival */
    snapshot_reader snapshot;
    int snapshot_open;  /* state parts came and the snapshot is not finished yet */
    uint64_t log_bytes; /* of the log after the snapshot (what a compaction would cover) */
    char why[200];
} persist_loader;

static int persist_loader_fail(persist_loader *L, const char *what, const char *why)
{
    snprintf(L->why, sizeof(L->why), "%s: %s", what, why ? why : "not valid");
    return -1;
}

/* The snapshot's state parts are over (the first observation or log entry,
 * or the end): it must have added up. */
static int persist_snapshot_done(persist_loader *L)
{
    const char *why = NULL;

    if (!L->snapshot_open)
        return 0;
    L->snapshot_open = 0;
    return snapshot_finish(L->s, &L->snapshot, &why) == 0
               ? 0
               : persist_loader_fail(L, "its snapshot", why);
}

/* One entry of a stored session's log (or one part of its snapshot's state,
 * whole frames), folded into the session being read. */
static int persist_fold_entry(void *ctx, int part, int64_t now_ns, const uint8_t *bytes,
                              size_t length)
{
    persist_loader *L = ctx;
    session *s = L->s;
    size_t off = 0;

    if (part != STORE_PART_SNAPSHOT && persist_snapshot_done(L) != 0)
        return -1;
    L->snapshot_open |= part == STORE_PART_SNAPSHOT;
    if (now_ns > L->last_now_ns)
        L->last_now_ns = now_ns;
    while (off < length) {
        wire_frame f;
        wire_record r;
        size_t used;
        const char *why = NULL;
        if (wire_decode_frame(bytes + off, length - off, &f, &used, &why) != WIRE_DECODE_OK)
            return persist_loader_fail(L, "a stored frame", why ? why : "cut short");
        if (part == STORE_PART_SNAPSHOT) {
            if (snapshot_apply(s, &L->snapshot, f.header.type, f.header.flags, f.payload,
                               f.header.length, &why) != 0)
                return persist_loader_fail(L, "its snapshot", why);
        } else if (logrec_is_server_type(f.header.type)) {
            if (session_apply_server(s, f.header.type, f.payload, f.header.length, now_ns) != 0)
                return persist_loader_fail(L, "a record of the server's", "not valid");
        } else if (wire_decode_stored_record(&f, &r, &why) != WIRE_DECODE_OK) {
            return persist_loader_fail(L, "a stored record", why);
        } else if (part == STORE_PART_OBSERVATION) {
            if (session_replay(s, &r, now_ns) != 0)
                return persist_loader_fail(L, "an observation", "not one");
        } else {
            s->bytes += used;
            L->log_bytes += used;
            if (session_apply(s, &r, now_ns, &why) < 0) /* one it refuses is counted */
                return persist_loader_fail(L, "a stored record", why);
        }
        off += used;
    }
    return 0;
}

void persist_prepare(int session_id)
{
    persist_loader L = {0};
    store_read_report report = {0};
    char err[448] = "";
    session *s, *copy;
    int rc;

    if (!persist.enabled)
        return;
    sessions_lock();
    s = sessions_peek(session_id);
    if (!s || s->persist.loaded || !s->persist.stored) {
        if (s)
            s->persist.used_mono_ns = (int64_t)clock_mono_ns();
        sessions_unlock();
        return;
    }
    sessions_pin(s);
    copy = session_new(s->id, s->mode, s->pid, s->command_line, s->token);
    sessions_unlock();
    if (!copy) {
        snprintf(err, sizeof(err), "out of memory");
        rc = -1;
    } else {
        copy->persist.quiet = 1;
        L.s = copy;
        rc = store_read(session_id, persist_fold_entry, &L, &report, err, sizeof(err));
        if (rc == 0)
            rc = persist_snapshot_done(&L); /* a snapshot with nothing after it */
        snapshot_reader_free(&L.snapshot);  /* a read given up halfway */
    }
    sessions_lock();
    if (!s->forgotten && !s->persist.loaded) {
        if (copy)
            session_take_content(s, copy);
        s->persist.loaded = 1;
        s->persist.used_mono_ns = (int64_t)clock_mono_ns();
        if (L.last_now_ns > s->persist.last_seen_ns)
            s->persist.last_seen_ns = L.last_now_ns; /* what a resumed session's gap starts at */
        s->persist.log_bytes = L.log_bytes; /* a resumed session's log goes on from there */
        free(s->persist.summary);
        s->persist.summary = NULL;
        /* the fold's own complaint first, then what storage could not read */
        snprintf(s->persist.load_error, sizeof(s->persist.load_error), "%s%s", rc == 0 ? "" : L.why,
                 rc == 0 ? "" : err);
        s->persist.load_report.failed = rc != 0;
        s->persist.load_report.parts = report.parts;
        s->persist.load_report.parts_read = report.parts_read;
        s->persist.load_report.parts_damaged = report.parts_damaged;
        s->persist.load_report.chunks = report.chunks;
        s->persist.load_report.chunks_read = report.chunks_read;
        s->persist.load_report.chunks_damaged = report.chunks_damaged;
        s->persist.load_report.bytes_unread = report.bytes_unread;
        if (s->persist.past) { /* its process is not ours to watch any more */
            s->persist.quiet = 1;
            session_mark_ended(s, s->ended_ns);
            s->persist.quiet = 0;
        }
        if (rc != 0)
            fprintf(stderr, "jitscope: storage: session %d: %s (what came before is served)\n",
                    session_id, s->persist.load_error);
    }
    sessions_unpin(s);
    sessions_unlock();
    session_free(copy);
}

/* ---- at start ---------------------------------------------------------------------- */

/* A stored session's list entry with what an interruption changes. */
static char *persist_summary_text(const char *stored, const session *s, int interrupted)
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

/* One stored session into the registry, header only. */
static int persist_adopt(void *ctx, const store_header *h)
{
    json_t *header = json_loads(h->header, 0, NULL);
    session *s = session_new(h->id, SESSION_MODE_RUN, 0, "", "");
    int interrupted = 0;

    (void)ctx;
    if (!s || !json_is_object(header)) {
        fprintf(stderr,
                "jitscope: storage: session %d: its header is not readable (left in the "
                "file)\n",
                h->id);
        goto done;
    }
    session_header_from_json(s, header, 0);
    s->id = h->id;
    s->persist.stored = 1;
    s->persist.past = 1;
    s->persist.loaded = 0; /* header only, until a request needs its content */
    s->persist.last_seen_ns = h->updated_ns;
    if (!persist_state_ended(s->state) && s->pid > 0 && s->start_time &&
        proc_start_time(s->pid) == s->start_time && !proc_is_gone(s->pid) &&
        proc_has_thread(s->pid, WIRE_AGENT_THREAD_NAME) > 0) {
        /* its server died while it was live, its process and its agent still
         * run: the agent keeps trying the same socket; the session waits */
        session_stored_waiting(s);
        s->persist.past = 0;
        s->persist.resumable = 1;
        s->persist.resume_mono_ns = (int64_t)clock_mono_ns();
        s->not_child = s->mode == SESSION_MODE_RUN && s->root_id == s->id;
    } else if (!persist_state_ended(s->state)) { /* its server died while it was live */
        session_stored_interrupted(s, h->updated_ns);
        interrupted = 1;
    }
    s->persist.summary = persist_summary_text(h->summary, s, interrupted);
    if (!s->persist.summary) {
        fprintf(stderr, "jitscope: storage: session %d: its list entry is not readable\n", h->id);
        goto done;
    }
    if (interrupted) { /* the row says so from now on */
        json_t *own = session_header_to_json(s);
        char *text = own ? json_dumps(own, JSON_COMPACT) : NULL;
        store_header row = {s->id,         session_state_name(s->state),
                            text,          s->persist.summary,
                            s->created_ns, s->ended_ns,
                            h->updated_ns, 0};
        if (text)
            store_put_header(&row);
        free(text);
        json_decref(own);
    }
    sessions_lock();
    if (sessions_adopt(s) != 0) {
        sessions_unlock();
        fprintf(stderr, "jitscope: storage: session %d: no room in the registry\n", h->id);
        goto done;
    }
    sessions_unlock();
    s = NULL;
done:
    session_free(s);
    json_decref(header);
    return 0;
}

void persist_resumed(session *s, int64_t now_ns)
{
    uint8_t frame[SESSION_RESUMED_FRAME];
    size_t n;

    if (!s->persist.resumable)
        return;
    s->persist.resumable = 0;
    n = session_resumed(s, s->persist.last_seen_ns, now_ns, frame);
    persist_append(s, now_ns, frame, n);
    fprintf(stderr, "jitscope: session %d (pid %d) is back after %.1f s without a server\n", s->id,
            (int)s->pid, (double)s->last_resume.gap_ns / 1e9);
}

/* The sessions that wait for their agents are read back now, before any
 * agent can connect (the link thread is not running yet). */
static void persist_load_resumable(void)
{
    int ids[SESSIONS_MAX];
    size_t i, n = 0;

    sessions_lock();
    for (i = 0; i < sessions_count() && n < SESSIONS_MAX; i++)
        if (sessions_at(i)->persist.resumable)
            ids[n++] = sessions_at(i)->id;
    sessions_unlock();
    for (i = 0; i < n; i++)
        persist_prepare(ids[i]);
}

/* budget_unwritten: what of a session waits for the writer. */
static uint64_t persist_unwritten(int session_id) { return store_unwritten(session_id); }

/* PERSIST_COMPACT_MIN, or what the options or JITSCOPE_COMPACT_MIN say. 0, or -1 with why. */
static int persist_compact_min(const persist_options *o, char *err, size_t errsz)
{
    const char *text = getenv("JITSCOPE_COMPACT_MIN");
    char *end = NULL;
    unsigned long long v;

    persist.compact_min = o->compact_min ? o->compact_min : PERSIST_COMPACT_MIN;
    if (o->compact_min || !text)
        return 0;
    errno = 0;
    v = strtoull(text, &end, 10);
    if (!text[0] || *end || errno || text[0] == '-' || v > SIZE_MAX) {
        snprintf(err, errsz, "JITSCOPE_COMPACT_MIN must be a number of bytes, not '%.40s'", text);
        return -1;
    }
    persist.compact_min = v ? (size_t)v : 1; /* 0: every ended session that logged anything */
    return 0;
}

int persist_open(const persist_options *o, char *err, size_t errsz)
{
    store_options so = {o->dir, o->keep, o->keep_events, o->journal_max,
                        record_kind_is_observation};

    persist.options = *o;
    if (!o->dir || strcmp(o->dir, "none") == 0)
        return 0;
    if (persist_compact_min(o, err, errsz) != 0)
        return -1;
    if (store_open(&so, err, errsz) != 0)
        return -1;
    if (store_list(persist_adopt, NULL, err, errsz) != 0) {
        store_close();
        return -1;
    }
    session_set_record_sink(persist_sink);
    budget_set_unwritten(persist_unwritten);
    persist.enabled = 1;
    persist_load_resumable();
    return 0;
}

void persist_close(void)
{
    int64_t now_ns = (int64_t)clock_real_ns();
    size_t i;

    if (!persist.enabled)
        return;
    sessions_lock();
    for (i = 0; i < sessions_count(); i++) { /* the last word of every session's row */
        session *s = sessions_at(i);
        if (!s->persist.past)
            persist_put_header(s, now_ns);
    }
    sessions_unlock();
    session_set_record_sink(NULL);
    budget_set_unwritten(NULL);
    persist.enabled = 0;
    store_close();
}
