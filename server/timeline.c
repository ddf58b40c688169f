/* timeline.c -- pairing GC and suspension records into a timeline (see timeline.h). */
#include "timeline.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "eventlog.h"
#include "wire_decode.h"

/* timeline_copy reads both entry types through their common head */
_Static_assert(offsetof(timeline_gc, start_ns) == 0 && offsetof(timeline_gc, duration_ns) == 8,
               "timeline_gc head");
_Static_assert(offsetof(timeline_suspension, start_ns) == 0 &&
                   offsetof(timeline_suspension, duration_ns) == 8,
               "timeline_suspension head");

/* The slot for entry number `total` of a ring of TIMELINE_KEEP elements of
 * `elem` bytes; the array grows (doubling) until it holds TIMELINE_KEEP.
 * NULL when out of memory. */
static void *timeline_slot(void **items, size_t *cap, uint64_t total, size_t elem)
{
    size_t index = (size_t)(total % TIMELINE_KEEP);

    if (index >= *cap) {
        size_t want = *cap ? *cap * 2 : 256;
        void *bigger;

        if (want > TIMELINE_KEEP)
            want = TIMELINE_KEEP;
        bigger = realloc(*items, want * elem);
        if (!bigger)
            return NULL;
        *items = bigger;
        *cap = want;
    }
    return (char *)*items + index * elem;
}

static uint64_t timeline_since(uint64_t start_mono, uint64_t end_mono)
{
    return end_mono > start_mono ? end_mono - start_mono : 0;
}

static void timeline_close_gc(timeline_state *t, eventlog *log, uint64_t end_mono, int complete)
{
    timeline_gc *g = timeline_slot((void **)&t->gcs, &t->gc_cap, t->gc_total, sizeof(*g));

    t->gc_open = 0;
    if (!g) {
        t->capacity_drops++;
        return;
    }
    t->gc_total++;
    g->start_ns = t->gc_start_ns;
    g->duration_ns = complete ? timeline_since(t->gc_start_mono, end_mono) : 0;
    g->generations = t->gc_generations;
    g->reason = t->gc_reason;
    g->complete = (uint32_t)complete;
    g->runtime_reason = t->gc_runtime_reason;
    if (complete)
        eventlog_append(log, WIRE_GC_FINISHED, 0, g->start_ns,
                        TIMELINE_GC_EVENT_ID(g->reason, g->runtime_reason), g->duration_ns,
                        g->generations);
}

static void timeline_close_suspension(timeline_state *t, int profiling, eventlog *log, int ours,
                                      uint64_t end_mono, int aborted)
{
    timeline_suspension *e = timeline_slot((void **)&t->suspensions, &t->suspension_cap,
                                           t->suspension_total, sizeof(*e));

    t->suspension_open[ours] = 0;
    if (!e) {
        t->capacity_drops++;
        return;
    }
    t->suspension_total++;
    e->start_ns = t->suspension_start_ns[ours];
    e->duration_ns = timeline_since(t->suspension_start_mono[ours], end_mono);
    e->reason = t->suspension_reason[ours];
    e->aborted = (uint32_t)aborted;
    if (e->reason == TIMELINE_SUSPEND_FOR_PROFILER && profiling)
        return; /* the sampler's own: in the timeline, not in the event log */
    eventlog_append(log, WIRE_RUNTIME_SUSPEND, 0, e->start_ns, e->reason, e->duration_ns,
                    e->aborted);
}

void timeline_gc_started(timeline_state *t, eventlog *log, const wire_record *r, int64_t when_ns)
{
    if (t->gc_open) { /* the previous finish never came */
        t->unmatched++;
        timeline_close_gc(t, log, r->time_ns, 0);
    }
    t->gc_open = 1;
    t->gc_start_mono = r->time_ns;
    t->gc_start_ns = when_ns;
    t->gc_generations = r->u.gc_started.generations;
    t->gc_reason = WIRE_GC_REASON_PROFILER(r->u.gc_started.reason);
    t->gc_runtime_reason = WIRE_GC_REASON_RUNTIME(r->u.gc_started.reason);
}

void timeline_gc_finished(timeline_state *t, eventlog *log, const wire_record *r)
{
    if (t->gc_open)
        timeline_close_gc(t, log, r->time_ns, 1);
    else
        t->unmatched++; /* a collection that began before we could see it */
}

void timeline_runtime_suspend(timeline_state *t, int profiling, eventlog *log, const wire_record *r,
                              int64_t when_ns)
{
    /* each phase pairs within its class: ours, or the runtime's */
    int ours = r->u.runtime_suspend.reason == TIMELINE_SUSPEND_FOR_PROFILER;

    switch (r->u.runtime_suspend.phase) {
    case WIRE_SUSPEND_STARTED:
        if (t->suspension_open[ours])
            t->unmatched++; /* its resume was lost: dropped */
        t->suspension_open[ours] = 1;
        t->suspension_start_mono[ours] = r->time_ns;
        t->suspension_start_ns[ours] = when_ns;
        t->suspension_reason[ours] = r->u.runtime_suspend.reason;
        break;
    case WIRE_SUSPEND_ABORTED:
    case WIRE_RESUME_FINISHED:
        if (t->suspension_open[ours])
            timeline_close_suspension(t, profiling, log, ours, r->time_ns,
                                      r->u.runtime_suspend.phase == WIRE_SUSPEND_ABORTED);
        else
            t->unmatched++;
        break;
    default: /* SUSPEND_FINISHED, RESUME_STARTED: nothing to pair */ break;
    }
}

void timeline_heap_stats(timeline_state *t, const wire_record *r, int64_t when_ns)
{
    const wire_gc_heap_stats *w = &r->u.heap_stats;
    timeline_heap *h = timeline_slot((void **)&t->heaps, &t->heap_cap, t->heap_total, sizeof(*h));

    if (!h) {
        t->capacity_drops++;
        return;
    }
    t->heap_total++;
    memset(h, 0, sizeof(*h));
    h->time_ns = when_ns;
    memcpy(h->size, w->size, sizeof(h->size));
    memcpy(h->promoted, w->promoted, sizeof(h->promoted));
}

void timeline_free(timeline_state *t)
{
    free(t->gcs);
    free(t->suspensions);
    free(t->heaps);
    memset(t, 0, sizeof(*t));
}

uint64_t timeline_gcs_evicted(const timeline_state *t)
{
    return t->gc_total > TIMELINE_KEEP ? t->gc_total - TIMELINE_KEEP : 0;
}

uint64_t timeline_suspensions_evicted(const timeline_state *t)
{
    return t->suspension_total > TIMELINE_KEEP ? t->suspension_total - TIMELINE_KEEP : 0;
}

uint64_t timeline_heaps_evicted(const timeline_state *t)
{
    return t->heap_total > TIMELINE_KEEP ? t->heap_total - TIMELINE_KEEP : 0;
}

static int timeline_overlaps(int64_t start, uint64_t duration, int64_t from_ns, int64_t to_ns)
{
    int64_t end;

    if (start > to_ns)
        return 0;
    if (duration > (uint64_t)INT64_MAX || __builtin_add_overflow(start, (int64_t)duration, &end))
        end = INT64_MAX;
    return end >= from_ns;
}

/* Entries by start, then by duration (both types begin with those two fields). */
static int timeline_by_start(const void *a, const void *b)
{
    int64_t x, y;
    uint64_t dx, dy;

    memcpy(&x, a, sizeof(x));
    memcpy(&y, b, sizeof(y));
    if (x != y)
        return x < y ? -1 : 1;
    memcpy(&dx, (const char *)a + sizeof(x), sizeof(dx));
    memcpy(&dy, (const char *)b + sizeof(y), sizeof(dy));
    return (dx > dy) - (dx < dy);
}

/* Shared by both copies: walks the ring newest first, keeps up to `limit`
 * matches and returns them oldest first. */
static int timeline_copy(const void *items, uint64_t total, size_t elem, int64_t from_ns,
                         int64_t to_ns, size_t limit, void **out, size_t *count, size_t *matched)
{
    uint64_t kept = total < TIMELINE_KEEP ? total : TIMELINE_KEEP, i;
    size_t want = limit < kept ? limit : (size_t)kept, n = 0, m = 0;
    char *copy = NULL;

    *out = NULL;
    *count = *matched = 0;
    if (want && !(copy = malloc(want * elem)))
        return -1;
    for (i = 0; i < kept; i++) {
        const char *e = (const char *)items + (size_t)((total - 1 - i) % TIMELINE_KEEP) * elem;
        int64_t start;
        uint64_t duration;

        /* both entry types begin with start_ns, duration_ns */
        memcpy(&start, e, sizeof(start));
        memcpy(&duration, e + sizeof(start), sizeof(duration));
        if (!timeline_overlaps(start, duration, from_ns, to_ns))
            continue;
        m++;
        if (n < want)
            memcpy(copy + (want - 1 - n++) * elem, e, elem); /* fill from the back */
    }
    if (n && n < want)
        memmove(copy, copy + (want - n) * elem, n * elem);
    if (n > 1) /* closing order differs from start order where two overlapped */
        qsort(copy, n, elem, timeline_by_start);
    if (!n) {
        free(copy);
        copy = NULL;
    }
    *out = copy;
    *count = n;
    *matched = m;
    return 0;
}

int timeline_copy_gcs(const timeline_state *t, int64_t from_ns, int64_t to_ns, size_t limit,
                      timeline_gc **out, size_t *count, size_t *matched)
{
    return timeline_copy(t->gcs, t->gc_total, sizeof(**out), from_ns, to_ns, limit, (void **)out,
                         count, matched);
}

int timeline_copy_heaps(const timeline_state *t, int64_t from_ns, int64_t to_ns, size_t limit,
                        timeline_heap **out, size_t *count, size_t *matched)
{
    return timeline_copy(t->heaps, t->heap_total, sizeof(**out), from_ns, to_ns, limit,
                         (void **)out, count, matched);
}

int timeline_copy_suspensions(const timeline_state *t, int64_t from_ns, int64_t to_ns, size_t limit,
                              timeline_suspension **out, size_t *count, size_t *matched)
{
    return timeline_copy(t->suspensions, t->suspension_total, sizeof(**out), from_ns, to_ns, limit,
                         (void **)out, count, matched);
}

const char *timeline_gc_reason_name(uint32_t reason, uint32_t runtime_reason)
{
    /* the runtime's gc_reason, as its GCTriggered and GCStart events carry it */
    static const char *const names[] = {
        "alloc_soh",
        "induced",
        "low_memory",
        "empty",
        "alloc_loh",
        "oos_soh",
        "oos_loh",
        "induced_not_forced",
        "gc_stress",
        "low_memory_blocking",
        "induced_compacting",
        "low_memory_host",
        "pm_full_gc",
        "low_memory_host_blocking",
        "bgc_tuning_soh",
        "bgc_tuning_loh",
        "bgc_stepping",
        "induced_aggressive",
    };

    if (runtime_reason && runtime_reason - 1 < sizeof(names) / sizeof(names[0]))
        return names[runtime_reason - 1];
    return reason == 1 ? "induced" : "other";
}

const char *timeline_suspend_reason_name(uint32_t reason)
{
    switch (reason) {
    case 1: return "gc";
    case 2: return "appdomain_shutdown";
    case 3: return "code_pitching";
    case 4: return "shutdown";
    case 6: return "debugger";
    case 7: return "gc_prep";
    case 8: return "rejit";
    case TIMELINE_SUSPEND_FOR_PROFILER: return "profiler";
    default: return "other";
    }
}
