/* stacks.c -- assembling stack walks; keeping snapshots (see stacks.h). */
#include "stacks.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "eventlog.h"
#include "wire_decode.h"

static void stacks_walk_free(stacks_walk *w)
{
    free(w->threads);
    free(w->frames);
    memset(w, 0, sizeof(*w));
}

/* Empties a pending slot but keeps its arrays for the next walk (samples come
 * many times a second). */
void stacks_walk_recycle(stacks_walk *w)
{
    stacks_thread *threads = w->threads;
    wire_stack_frame *frames = w->frames;
    uint32_t thread_cap = w->thread_cap, frame_cap = w->frame_cap;

    memset(w, 0, sizeof(*w));
    w->threads = threads, w->thread_cap = thread_cap;
    w->frames = frames, w->frame_cap = frame_cap;
}

static int stacks_was_closed(const stacks_state *st, uint64_t snapshot_id)
{
    unsigned i;

    for (i = 0; i < STACKS_CLOSED_MEMORY; i++)
        if (st->closed[i] == snapshot_id)
            return 1;
    return 0;
}

/* The pending walk with this id; a new one when there is none (abandoning the
 * oldest pending walk when every slot is taken). NULL when the slots could
 * not be made (counted in capacity_drops). */
static stacks_walk *stacks_pending(stacks_state *st, uint64_t snapshot_id)
{
    stacks_walk *free_slot = NULL, *oldest = NULL;
    unsigned i;

    if (!st->pending && !(st->pending = calloc(STACKS_PENDING, sizeof(*st->pending)))) {
        st->capacity_drops++;
        return NULL;
    }
    for (i = 0; i < STACKS_PENDING; i++) {
        stacks_walk *w = &st->pending[i];
        if (w->snapshot_id == snapshot_id)
            return w;
        if (!w->snapshot_id && !free_slot)
            free_slot = w;
        if (w->snapshot_id && (!oldest || w->age < oldest->age))
            oldest = w;
    }
    if (!free_slot) {
        st->lost_walks++; /* its END never came */
        stacks_walk_recycle(oldest);
        free_slot = oldest;
    }
    free_slot->snapshot_id = snapshot_id;
    free_slot->age = ++st->pending_age;
    return free_slot;
}

void stacks_apply_thread(stacks_state *st, const wire_record *r, uint32_t thread_row)
{
    const wire_stack_thread *t = &r->u.stack_thread;
    stacks_walk *w;
    stacks_thread *e;
    uint32_t i, n, room;

    if (stacks_was_closed(st, t->snapshot_id)) {
        st->ignored_records++; /* after its END */
        return;
    }
    if (!(w = stacks_pending(st, t->snapshot_id)))
        return;
    for (i = 0; i < w->thread_count; i++) {
        if (w->threads[i].thread_id == t->thread_id) {
            st->ignored_records++; /* the same thread twice in one walk */
            return;
        }
    }
    if (w->thread_count >= WIRE_STACK_MAX_THREADS) {
        st->ignored_records++;
        return;
    }
    n = t->frame_count;
    room = WIRE_STACK_MAX_TOTAL_FRAMES - w->frame_count;
    if (n > room)
        n = room; /* keep the leaf end, as the agent would have */
    if (grow_reserve((void **)&w->threads, &w->thread_cap, w->thread_count, sizeof(*e), 16,
                     WIRE_STACK_MAX_THREADS, GROW_KEEP) != 0 ||
        (n && grow_reserve((void **)&w->frames, &w->frame_cap, w->frame_count + n - 1,
                           sizeof(*w->frames), 16, WIRE_STACK_MAX_TOTAL_FRAMES, GROW_KEEP) != 0)) {
        st->capacity_drops++;
        return;
    }
    e = &w->threads[w->thread_count++];
    e->thread_id = t->thread_id;
    e->walk_ns = t->walk_ns;
    e->os_thread_id = t->os_thread_id;
    e->hresult = t->hresult;
    e->first_frame = w->frame_count;
    e->frame_count = n;
    e->flags = t->flags | (n < t->frame_count ? (uint32_t)WIRE_STACK_TRUNCATED : 0u);
    e->thread_row = thread_row;
    for (i = 0; i < n; i++)
        w->frames[w->frame_count + i] = wire_record_frame(r, i);
    w->frame_count += n;
}

/* Makes room for a snapshot of `frames` frames: the oldest kept ones go. */
static void stacks_make_room(stacks_state *st, uint32_t frames)
{
    while (st->kept_count &&
           (st->kept_count >= STACKS_KEEP || st->kept_frames + frames > STACKS_KEEP_FRAMES)) {
        stacks_walk *old = &st->kept[st->kept_first];
        st->kept_frames -= old->frame_count;
        stacks_walk_free(old);
        st->kept_first = (st->kept_first + 1) % STACKS_KEEP;
        st->kept_count--;
    }
}

stacks_walk *stacks_apply_end(stacks_state *st, eventlog *log, const wire_record *r,
                              int64_t when_ns)
{
    const wire_stack_end *e = &r->u.stack_end;
    stacks_walk *w, *kept;

    if (stacks_was_closed(st, e->snapshot_id)) {
        st->ignored_records++; /* a repeated END */
        return NULL;
    }
    st->closed[st->closed_next] = e->snapshot_id;
    st->closed_next = (st->closed_next + 1) % STACKS_CLOSED_MEMORY;
    if (!(w = stacks_pending(st, e->snapshot_id)))
        return NULL;
    w->request_id = e->request_id;
    w->time_ns = when_ns;
    w->suspend_ns = e->suspend_ns;
    w->walk_ns = e->walk_ns;
    w->hresult = e->hresult;
    w->retries = e->retries;
    w->threads_sent = e->threads_sent;
    w->threads_total = e->threads_total;
    w->kind = e->kind;
    if (e->kind == WIRE_STACK_SAMPLE)
        return w; /* the profile's, then recycled */
    /* a snapshot: the pending slot's arrays move into the kept ring */
    if (!st->kept && !(st->kept = calloc(STACKS_KEEP, sizeof(*st->kept)))) {
        st->capacity_drops++;
        stacks_walk_recycle(w);
        return NULL;
    }
    stacks_make_room(st, w->frame_count);
    kept = &st->kept[(st->kept_first + st->kept_count) % STACKS_KEEP];
    *kept = *w;
    memset(w, 0, sizeof(*w));
    kept->id = ++st->last_id;
    kept->age = 0;
    if (kept->thread_count < kept->thread_cap && kept->thread_count) { /* give back the slack */
        void *fit = realloc(kept->threads, kept->thread_count * sizeof(*kept->threads));
        if (fit)
            kept->threads = fit, kept->thread_cap = kept->thread_count;
    }
    if (kept->frame_count < kept->frame_cap && kept->frame_count) {
        void *fit = realloc(kept->frames, kept->frame_count * sizeof(*kept->frames));
        if (fit)
            kept->frames = fit, kept->frame_cap = kept->frame_count;
    }
    st->kept_count++;
    st->kept_frames += kept->frame_count;
    eventlog_append(log, WIRE_STACK_END, r->flags, when_ns, kept->id, kept->suspend_ns,
                    kept->thread_count);
    return NULL;
}

void stacks_link_reset(stacks_state *st)
{
    unsigned i;

    for (i = 0; st->pending && i < STACKS_PENDING; i++) {
        if (st->pending[i].snapshot_id) {
            st->lost_walks++;
            stacks_walk_recycle(&st->pending[i]);
        }
    }
    memset(st->closed, 0, sizeof(st->closed));
    st->closed_next = 0;
}

void stacks_free(stacks_state *st)
{
    unsigned i;

    for (i = 0; st->pending && i < STACKS_PENDING; i++)
        stacks_walk_free(&st->pending[i]);
    for (i = 0; i < st->kept_count; i++)
        stacks_walk_free(&st->kept[(st->kept_first + i) % STACKS_KEEP]);
    free(st->pending);
    free(st->kept);
    st->pending = st->kept = NULL;
    st->kept_first = st->kept_count = 0;
    st->kept_frames = 0;
}

size_t stacks_block_bytes(const stacks_state *st)
{
    return (st->pending ? STACKS_PENDING * sizeof(*st->pending) : 0) +
           (st->kept ? STACKS_KEEP * sizeof(*st->kept) : 0);
}

const stacks_walk *stacks_at(const stacks_state *st, unsigned index)
{
    return index < st->kept_count ? &st->kept[(st->kept_first + index) % STACKS_KEEP] : NULL;
}

/* The kept walk whose id, or (by_request) whose request id, is key. */
static const stacks_walk *stacks_find(const stacks_state *st, uint64_t key, int by_request)
{
    unsigned i;

    for (i = 0; i < st->kept_count; i++) {
        const stacks_walk *w = stacks_at(st, i);
        if ((by_request ? w->request_id : w->id) == key)
            return w;
    }
    return NULL;
}

const stacks_walk *stacks_by_id(const stacks_state *st, uint64_t id)
{
    return stacks_find(st, id, 0);
}

const stacks_walk *stacks_by_request(const stacks_state *st, uint64_t request_id)
{
    return request_id ? stacks_find(st, request_id, 1) : NULL;
}

int stacks_complete(const stacks_walk *w) { return w->thread_count >= w->threads_sent; }

int stacks_thread_native_only(const stacks_thread *t)
{
    return !t->frame_count && !(t->flags & WIRE_STACK_TRUNCATED) &&
           (t->hresult == 0 || (uint32_t)t->hresult == 0x80004005u); /* S_OK, E_FAIL */
}
