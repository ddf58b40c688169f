/* store_journal.c -- what waits for the storage writer, per session (see store_db.h).
 *
 * Appenders (the link thread, with the sessions lock held) copy entries into
 * their session's pending log under the journal's own mutex and return; the
 * writer takes every session's pending work at once, writes it without the
 * mutex, and reports back. A session's pending work is: its log bytes, at
 * most one snapshot (the newest: it covers everything an older one did) with
 * the offset in the log where it was taken (the cut), the offset of the first
 * entry that was dropped (the break), a header row, a delete.
 *
 * Bounded: the bytes of every pending and in-flight log and snapshot together
 * stay under the journal's maximum; an append that does not fit is dropped
 * and counted, and breaks its session's log there (a read stops at the break)
 * until a snapshot taken after it is committed. A round the database refused
 * goes back to the front of its sessions' queues and is tried again.
 *
 * A committed log's memory is kept for the next one (one spare, at most
 * JOURNAL_SPARE_MAX): a log freed and made again every round was written
 * into fresh pages, a page fault and a zeroed page every 4 KiB of frames
 * (a tenth of the link thread's time in a flood of new functions). The spare
 * goes back to the system in a round whose logs are much smaller than it (an
 * idle or trickling server holds none).
 */
#include "store_db.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "grow.h"
#include "idmap.h"

#define JOURNAL_NO_BREAK SIZE_MAX
#define JOURNAL_SPARE_MAX ((size_t)64 << 20) /* a committed log's memory kept up to this */
#define JOURNAL_SPARE_MIN ((size_t)1 << 20)  /* ...and from this (a small one costs little) */

typedef struct journal_session {
    int id;
    uint8_t *log;
    size_t length, cap;
    void *snapshot;
    size_t snapshot_length, cut;
    size_t break_at; /* JOURNAL_NO_BREAK, or where the first dropped entry was */
    int broken;      /* a break that no committed snapshot has healed yet */
    int forget;
    int has_header, header_ended;
    int64_t created_ns, ended_ns, updated_ns;
    char *state, *header, *summary;
    uint64_t handed, committed; /* changes handed over, and written */
    int in_flight;
    size_t flight_bytes; /* the log and snapshot bytes the writer has taken */
} journal_session;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    journal_session **sessions;
    size_t count, cap;
    idmap index; /* id -> position in sessions */
    size_t bytes, max;
    uint64_t lost, logged;
    int kicked, stopping, ready;
    uint8_t *spare; /* a committed log's memory, for the next log (see above) */
    size_t spare_cap;
} journal = {.lock = PTHREAD_MUTEX_INITIALIZER};

int store_journal_init(size_t max_bytes)
{
    pthread_condattr_t attr;

    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&journal.wake, &attr);
    pthread_condattr_destroy(&attr);
    journal.max = max_bytes ? max_bytes : STORE_JOURNAL_MAX;
    journal.bytes = 0, journal.lost = 0, journal.logged = 0;
    journal.kicked = 0, journal.stopping = 0, journal.ready = 1;
    return 0;
}

static void journal_free_strings(journal_session *j)
{
    free(j->state), free(j->header), free(j->summary);
    j->state = j->header = j->summary = NULL;
    j->has_header = 0;
}

void store_journal_free(void)
{
    size_t i;

    pthread_mutex_lock(&journal.lock);
    for (i = 0; i < journal.count; i++) {
        journal_session *j = journal.sessions[i];
        free(j->log), free(j->snapshot);
        journal_free_strings(j);
        free(j);
    }
    free(journal.sessions);
    journal.sessions = NULL;
    journal.count = journal.cap = 0;
    free(journal.spare);
    journal.spare = NULL, journal.spare_cap = 0;
    idmap_free(&journal.index);
    journal.ready = 0;
    pthread_mutex_unlock(&journal.lock);
    pthread_cond_destroy(&journal.wake);
}

/* The session's entry, made on first use; NULL when out of memory. Lock held. */
static journal_session *journal_session_of(int id)
{
    uint32_t i = idmap_get(&journal.index, (uint64_t)id);
    journal_session *j;

    if (i != IDMAP_MISSING)
        return journal.sessions[i];
    if (grow_reserve((void **)&journal.sessions, &journal.cap, journal.count,
                     sizeof(*journal.sessions), 64, 1u << 20, GROW_KEEP) != 0 ||
        !(j = calloc(1, sizeof(*j))))
        return NULL;
    if (idmap_put(&journal.index, (uint64_t)id, (uint32_t)journal.count) != 0) {
        free(j);
        return NULL;
    }
    j->id = id;
    j->break_at = JOURNAL_NO_BREAK;
    journal.sessions[journal.count++] = j;
    return j;
}

static void journal_kick_locked(void)
{
    journal.kicked = 1;
    pthread_cond_signal(&journal.wake);
}

/* A dropped append: counted, and the log breaks there. */
static void journal_drop(journal_session *j, size_t bytes)
{
    journal.lost += bytes;
    if (j->break_at == JOURNAL_NO_BREAK)
        j->break_at = j->length;
    j->broken = 1;
}

size_t store_append(int session_id, int64_t now_ns, const void *frames, size_t length)
{
    store_entry_header h = {(uint32_t)length, 0, now_ns};
    size_t need = sizeof(h) + length;
    journal_session *j;

    if (length == 0 || length > STORE_ENTRY_MAX)
        return 0;
    pthread_mutex_lock(&journal.lock);
    if (!journal.ready || !(j = journal_session_of(session_id)) || j->forget) {
        pthread_mutex_unlock(&journal.lock);
        return 0;
    }
    j->handed++;
    journal.logged += length;
    if (!j->log && journal.spare && journal.spare_cap >= need) { /* pages already there */
        j->log = journal.spare, j->cap = journal.spare_cap;
        journal.spare = NULL, journal.spare_cap = 0;
    }
    if (journal.bytes + need > journal.max ||
        grow_reserve((void **)&j->log, &j->cap, j->length + need - 1, 1, 64 * 1024, journal.max,
                     GROW_KEEP) != 0) {
        journal_drop(j, length);
        need = 0;
    } else {
        memcpy(j->log + j->length, &h, sizeof(h));
        memcpy(j->log + j->length + sizeof(h), frames, length);
        j->length += need;
        journal.bytes += need;
    }
    pthread_mutex_unlock(&journal.lock);
    return need;
}

size_t store_snapshot(int session_id, void *state, size_t length)
{
    journal_session *j;

    pthread_mutex_lock(&journal.lock);
    if (!journal.ready || !(j = journal_session_of(session_id)) || j->forget) {
        pthread_mutex_unlock(&journal.lock);
        free(state);
        return 0;
    }
    if (j->snapshot) { /* this one covers all the older one did */
        journal.bytes -= j->snapshot_length;
        free(j->snapshot);
    }
    j->snapshot = state;
    j->snapshot_length = length;
    j->cut = j->length;
    if (j->break_at != JOURNAL_NO_BREAK) /* what was lost is in the snapshot */
        j->break_at = JOURNAL_NO_BREAK;
    journal.bytes += length; /* may pass the bound: a snapshot is never refused */
    j->handed++;
    journal_kick_locked();
    pthread_mutex_unlock(&journal.lock);
    return length;
}

static char *journal_dup(const char *text) { return text ? strdup(text) : NULL; }

void store_put_header(const store_header *h)
{
    journal_session *j;

    pthread_mutex_lock(&journal.lock);
    if (journal.ready && (j = journal_session_of(h->id)) && !j->forget) {
        journal_free_strings(j);
        j->state = journal_dup(h->state);
        j->header = journal_dup(h->header);
        j->summary = journal_dup(h->summary);
        j->created_ns = h->created_ns, j->ended_ns = h->ended_ns, j->updated_ns = h->updated_ns;
        j->has_header = j->state && j->header && j->summary;
        j->header_ended = h->ended_ns != 0;
        j->handed++;
        if (j->header_ended)
            journal_kick_locked(); /* an ended session is written at once */
    }
    pthread_mutex_unlock(&journal.lock);
}

void store_forget(int session_id)
{
    journal_session *j;

    pthread_mutex_lock(&journal.lock);
    if (journal.ready && (j = journal_session_of(session_id))) {
        journal.bytes -= j->length + j->snapshot_length;
        free(j->log), free(j->snapshot);
        j->log = NULL, j->snapshot = NULL;
        j->length = j->cap = j->snapshot_length = j->cut = 0;
        j->break_at = JOURNAL_NO_BREAK;
        journal_free_strings(j);
        j->forget = 1;
        j->handed++;
        journal_kick_locked();
    }
    pthread_mutex_unlock(&journal.lock);
}

void store_kick(void)
{
    pthread_mutex_lock(&journal.lock);
    journal_kick_locked();
    pthread_mutex_unlock(&journal.lock);
}

static int journal_has_work(const journal_session *j)
{
    return !j->in_flight && (j->length || j->snapshot || j->has_header || j->forget);
}

store_work *store_journal_take(size_t *count)
{
    store_work *works = NULL;
    size_t i, n = 0, logged = 0;
    uint8_t *unneeded = NULL;

    pthread_mutex_lock(&journal.lock);
    for (i = 0; i < journal.count; i++)
        n += journal_has_work(journal.sessions[i]);
    if (n && (works = calloc(n, sizeof(*works)))) {
        n = 0;
        for (i = 0; i < journal.count; i++) {
            journal_session *j = journal.sessions[i];
            store_work *w = &works[n];
            if (!journal_has_work(j))
                continue;
            n++;
            w->id = j->id;
            w->log = j->log, w->log_length = j->length, w->log_cap = j->cap;
            logged += j->length;
            w->snapshot = j->snapshot, w->snapshot_length = j->snapshot_length;
            w->cut = j->snapshot ? j->cut : 0;
            w->handed = j->handed;
            w->forget = j->forget;
            w->has_header = j->has_header, w->header_ended = j->header_ended;
            w->created_ns = j->created_ns, w->ended_ns = j->ended_ns, w->updated_ns = j->updated_ns;
            w->state = j->state, w->header = j->header, w->summary = j->summary;
            w->break_at = j->break_at == JOURNAL_NO_BREAK ? SIZE_MAX : j->break_at;
            j->log = NULL, j->length = j->cap = 0;
            j->snapshot = NULL, j->snapshot_length = j->cut = 0;
            j->break_at = JOURNAL_NO_BREAK;
            j->state = j->header = j->summary = NULL, j->has_header = 0;
            j->in_flight = 1;
            j->flight_bytes = w->log_length + w->snapshot_length;
        }
    }
    if (journal.spare && logged < journal.spare_cap / 8) { /* the spare is not needed now */
        unneeded = journal.spare;
        journal.spare = NULL, journal.spare_cap = 0;
    }
    journal.kicked = 0;
    pthread_mutex_unlock(&journal.lock);
    free(unneeded);
    *count = n;
    return works;
}

void store_journal_free_work(store_work *w)
{
    free(w->log), free(w->snapshot), free(w->state), free(w->header), free(w->summary);
    memset(w, 0, sizeof(*w));
}

/* Puts a failed work back in front of what came meanwhile. Lock held. */
static void journal_requeue(journal_session *j, store_work *w)
{
    size_t shift = w->log_length;
    uint8_t *log;

    if (j->forget || w->forget) {
        journal.bytes -= w->log_length + w->snapshot_length;
        store_journal_free_work(w);
        return;
    }
    if (shift) {
        log = malloc(shift + j->length);
        if (!log) { /* cannot keep it: lost, and the log breaks before what came after */
            journal.lost += shift;
            journal.bytes -= shift;
            j->broken = 1;
            if (j->break_at == JOURNAL_NO_BREAK)
                j->break_at = 0;
            shift = 0;
        } else {
            memcpy(log, w->log, shift);
            if (j->length)
                memcpy(log + shift, j->log, j->length);
            free(j->log);
            j->log = log;
            j->length += shift;
            j->cap = j->length;
            if (j->break_at != JOURNAL_NO_BREAK)
                j->break_at += shift;
            if (j->snapshot)
                j->cut += shift;
        }
    }
    if (w->break_at != SIZE_MAX && shift)
        j->break_at = w->break_at; /* the earlier break comes first */
    if (w->snapshot) {
        if (j->snapshot) { /* a newer one came meanwhile: it covers this one */
            journal.bytes -= w->snapshot_length;
        } else {
            j->snapshot = w->snapshot, j->snapshot_length = w->snapshot_length;
            j->cut = w->cut;
            w->snapshot = NULL;
        }
    }
    if (w->has_header && !j->has_header) {
        j->state = w->state, j->header = w->header, j->summary = w->summary;
        j->created_ns = w->created_ns, j->ended_ns = w->ended_ns, j->updated_ns = w->updated_ns;
        j->has_header = 1, j->header_ended = w->header_ended;
        w->state = w->header = w->summary = NULL;
    }
    if (j->snapshot && j->break_at != JOURNAL_NO_BREAK && j->break_at <= j->cut)
        j->break_at = JOURNAL_NO_BREAK;
    free(w->snapshot);
    w->snapshot = NULL;
    free(w->log);
    w->log = NULL;
    store_journal_free_work(w);
}

/* Sessions whose delete is committed leave the journal: nothing of theirs
 * can come any more (the registry let them go before it asked), and one kept
 * would be handed to the writer, deleted again, at every round for the rest
 * of the server's life. The index is made again over those that stay; when
 * there is no memory for it, nothing changes (tried again after the next
 * delete). Lock held. */
static void journal_drop_forgotten(void)
{
    idmap index = {0};
    size_t i, n = 0;

    for (i = 0; i < journal.count; i++) {
        const journal_session *j = journal.sessions[i];
        if (j->forget && !j->in_flight && j->committed == j->handed)
            continue;
        if (idmap_put(&index, (uint64_t)j->id, (uint32_t)n++) != 0) {
            idmap_free(&index);
            return;
        }
    }
    n = 0;
    for (i = 0; i < journal.count; i++) {
        journal_session *j = journal.sessions[i];
        if (j->forget && !j->in_flight && j->committed == j->handed) {
            free(j->log), free(j->snapshot);
            journal_free_strings(j);
            free(j);
            continue;
        }
        journal.sessions[n++] = j;
    }
    journal.count = n;
    idmap_free(&journal.index);
    journal.index = index;
}

size_t store_journal_sessions(void)
{
    size_t n;

    pthread_mutex_lock(&journal.lock);
    n = journal.count;
    pthread_mutex_unlock(&journal.lock);
    return n;
}

size_t store_journal_spare(void)
{
    size_t cap;

    pthread_mutex_lock(&journal.lock);
    cap = journal.spare_cap;
    pthread_mutex_unlock(&journal.lock);
    return cap;
}

/* A committed log's memory kept as the spare when it is worth it (big, and
 * mostly used: a trickle that took the spare lets it go) and bigger than the
 * one kept (which is freed then). Lock held. */
static void journal_keep_spare(store_work *w)
{
    if (!w->log || w->log_cap < JOURNAL_SPARE_MIN || w->log_cap > JOURNAL_SPARE_MAX ||
        w->log_cap <= journal.spare_cap || w->log_length < w->log_cap / 8)
        return;
    free(journal.spare);
    journal.spare = w->log, journal.spare_cap = w->log_cap;
    w->log = NULL;
}

void store_journal_done(store_work *works, size_t count, int ok)
{
    size_t i;
    int forgotten = 0;

    pthread_mutex_lock(&journal.lock);
    for (i = 0; i < count; i++) {
        store_work *w = &works[i];
        uint32_t at = idmap_get(&journal.index, (uint64_t)w->id);
        journal_session *j = at == IDMAP_MISSING ? NULL : journal.sessions[at];
        if (!j) {
            store_journal_free_work(w);
            continue;
        }
        j->in_flight = 0;
        j->flight_bytes = 0;
        if (!ok) {
            journal_requeue(j, w);
            continue;
        }
        journal.bytes -= w->log_length + w->snapshot_length;
        j->committed = w->handed;
        forgotten |= w->forget;
        /* a committed snapshot heals the log, unless something was lost after it */
        if (w->snapshot && w->break_at == SIZE_MAX && j->break_at == JOURNAL_NO_BREAK)
            j->broken = 0;
        journal_keep_spare(w);
        store_journal_free_work(w);
    }
    if (forgotten)
        journal_drop_forgotten();
    pthread_mutex_unlock(&journal.lock);
    free(works);
}

/* What one session's journal says, read under the lock (all 0 when the
 * journal has no such session). */
typedef struct journal_status {
    int found, synced, broken;
    size_t unwritten;
} journal_status;

static journal_status journal_status_of(int session_id)
{
    journal_status st = {0, 0, 0, 0};
    uint32_t at;

    pthread_mutex_lock(&journal.lock);
    at = journal.ready ? idmap_get(&journal.index, (uint64_t)session_id) : IDMAP_MISSING;
    if (at != IDMAP_MISSING) {
        const journal_session *j = journal.sessions[at];
        st.found = 1;
        st.synced = j->committed == j->handed && !j->broken && !j->in_flight;
        st.broken = j->broken;
        st.unwritten = j->length + j->snapshot_length + j->flight_bytes;
    }
    pthread_mutex_unlock(&journal.lock);
    return st;
}

int store_synced(int session_id)
{
    journal_status st = journal_status_of(session_id);
    return !st.found || st.synced;
}

int store_broken(int session_id) { return journal_status_of(session_id).broken; }

size_t store_unwritten(int session_id) { return journal_status_of(session_id).unwritten; }

void store_journal_stats(store_stats *out)
{
    pthread_mutex_lock(&journal.lock);
    out->backlog = journal.bytes;
    out->lost = journal.lost;
    out->bytes_logged = journal.logged;
    pthread_mutex_unlock(&journal.lock);
}

int store_journal_wait(unsigned ms)
{
    struct timespec deadline;
    int stopping;

    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += ms / 1000;
    deadline.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&journal.lock);
    while (!journal.kicked && !journal.stopping &&
           pthread_cond_timedwait(&journal.wake, &journal.lock, &deadline) != ETIMEDOUT)
        ;
    stopping = journal.stopping;
    pthread_mutex_unlock(&journal.lock);
    return stopping;
}

void store_journal_stop(void)
{
    pthread_mutex_lock(&journal.lock);
    journal.stopping = 1;
    pthread_cond_signal(&journal.wake);
    pthread_mutex_unlock(&journal.lock);
}
