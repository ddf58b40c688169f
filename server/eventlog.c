/* eventlog.c -- a session's event log, a ring of numbered entries (see eventlog.h). */
#include "eventlog.h"

#include <stdlib.h>

#include "grow.h"

_Static_assert(sizeof(eventlog_entry) == 48, "eventlog_entry: 48 bytes (docs/ARCHITECTURE.md)");

eventlog_entry *eventlog_append(eventlog *log, uint16_t type, uint16_t flags, int64_t time_ns,
                                uint64_t id, uint64_t value, uint32_t extra)
{
    eventlog_entry *e;

    if (!log) /* a fold that logs nothing (a session read back quietly) */
        return NULL;
    /* the ring grows without zero-filling until it holds EVENTLOG_MAX */
    if (log->last_seq < EVENTLOG_MAX &&
        grow_reserve((void **)&log->entries, &log->cap, (size_t)log->last_seq, sizeof(*e), 64,
                     EVENTLOG_MAX, GROW_KEEP) != 0) {
        log->lost++;
        return NULL;
    }
    if (log->last_seq >= EVENTLOG_MAX)
        log->evicted++;
    e = &log->entries[log->last_seq % EVENTLOG_MAX];
    *e = (eventlog_entry){.seq = ++log->last_seq,
                          .time_ns = time_ns,
                          .id = id,
                          .value = value,
                          .type = type,
                          .flags = flags,
                          .extra = extra};
    return e;
}

uint64_t eventlog_first_seq(const eventlog *log)
{
    uint64_t first = log->last_seq > EVENTLOG_MAX ? log->last_seq - EVENTLOG_MAX + 1 : 1;

    /* a log restored from storage may start later (--keep-events) */
    return log->evicted + 1 > first ? log->evicted + 1 : first;
}

const eventlog_entry *eventlog_at(const eventlog *log, uint64_t seq)
{
    if (seq == 0 || seq > log->last_seq || seq < eventlog_first_seq(log))
        return NULL;
    return &log->entries[(seq - 1) % EVENTLOG_MAX];
}

int eventlog_restore(eventlog *log, const eventlog_entry *e)
{
    size_t slot = (size_t)((e->seq - 1) % EVENTLOG_MAX);

    if (e->seq == 0 || e->seq <= log->last_seq ||
        (log->cap < EVENTLOG_MAX && grow_reserve((void **)&log->entries, &log->cap, slot,
                                                 sizeof(*e), 64, EVENTLOG_MAX, GROW_ZERO) != 0))
        return -1;
    log->entries[slot] = *e;
    log->last_seq = e->seq;
    return 0;
}

size_t eventlog_bytes(const eventlog *log) { return log->cap * sizeof(*log->entries); }

void eventlog_free(eventlog *log)
{
    free(log->entries);
    *log = (eventlog){0};
}
