/* excsites.h -- one session's managed exceptions, folded per throw site.
 *
 * The agent sends a WIRE_EXCEPTION per sampled exception thrown (type, message,
 * throwing method and IL offset, thread, sometimes its stack), a
 * WIRE_EXCEPTION_CAUGHT per catch clause entered for one of those (proto/wire.h),
 * and counts the rest per site in WIRE_EXCEPTION_COUNTS deltas (older agents
 * sent every exception as an EXCEPTION: the same fold). A site is
 * (type, throwing method, IL offset; the throw address when the method is not
 * known): per site exact counts, the first message, the catching methods with
 * their counts, per-second counts of the last EXC_SERIES seconds it threw (the
 * dashboard's sparkline, and its rate), and its newest EXC_RECENT exceptions
 * with their messages and sampled stacks. A thread's exception stays open
 * until a catch on that thread closes it (caught; caught_in counts every
 * catch clause entered for it, a rethrown one's too), a newer throw on that
 * thread replaces it (thrown while it unwound: neither), or the session ends
 * with it open: the runtime ends the process on an unhandled exception, so an
 * ended session's open exceptions are its unhandled ones. At most
 * EXC_SITES_MAX sites (more: counted in sites_dropped), EXC_THREADS_MAX
 * threads with an open exception (more: the oldest is forgotten and counted).
 * Each exception is also an `exception` event of the session's log. Times are
 * wall clock (Unix ns). Caller holds the sessions lock. */
#ifndef JITSCOPE_EXCSITES_H
#define JITSCOPE_EXCSITES_H

#include <stddef.h>
#include <stdint.h>

#include "eventlog.h"
#include "wire_decode.h"

#define EXC_SITES_MAX 4096u
#define EXC_RECENT 16u /* newest exceptions kept per site */
#define EXC_SERIES 60u /* per-second counts kept per site */
#define EXC_CATCHERS 8u
#define EXC_THREADS_MAX 256u
#define EXC_RATE_SECONDS 10u /* per_second: the site's last 10 s */

enum exc_outcome { EXC_OPEN = 0, EXC_CAUGHT = 1, EXC_REPLACED = 2 };

typedef struct exc_recent {
    int64_t time_ns;
    uint64_t thread_id;
    uint64_t caught_by; /* the catching method's FunctionID (outcome CAUGHT) */
    uint32_t outcome;   /* exc_outcome */
    uint32_t frame_count;
    wire_stack_frame *frames; /* leaf first; NULL when not sampled */
    char *message;
    int32_t hresult;
    uint16_t runtime_flags;
} exc_recent;

typedef struct exc_catcher {
    uint64_t function_id;
    uint64_t count;
} exc_catcher;

typedef struct exc_site {
    uint32_t number; /* from 1, its place in the session + 1 */
    uint32_t il_offset;
    uint64_t function_id, ip;
    char *type, *message; /* message: the first one */
    uint64_t count, caught, open, replaced, catchers_other;
    int64_t first_ns, last_ns;
    exc_catcher catchers[EXC_CATCHERS];
    uint32_t catcher_count;
    uint32_t series[EXC_SERIES]; /* series[i]: second series_end - (EXC_SERIES - 1) + i */
    int64_t series_end;          /* the newest second counted (Unix s) */
    exc_recent recent[EXC_RECENT];
    uint64_t recent_total; /* exceptions kept so far: entry i at i % EXC_RECENT */
} exc_site;

/* A thread's newest exception: open until caught; once caught it stays as
 * the thread's last, for a catch that follows a rethrow (`throw;`): .NET 10
 * raises no ExceptionThrown for a rethrow, so a catch on a thread with no open
 * exception is its last one caught again (its catcher counted, not its
 * catch); a rethrow the runtime does report (WIRE_EXCEPTION_RETHROWN) opens
 * it again instead of counting a throw. */
typedef struct exc_open {
    uint64_t thread_id;
    uint32_t site;    /* index */
    uint16_t caught;  /* 1 while a catch has closed it */
    uint16_t counted; /* 1 once it counted in its site's caught */
    uint64_t recent;  /* its recent_total position */
} exc_open;

typedef struct exc_state {
    exc_site *sites;
    uint32_t count, cap;
    uint32_t *index; /* open addressing: site index + 1, 0 empty */
    uint32_t index_cap;
    exc_open open[EXC_THREADS_MAX];
    uint32_t open_count;
    uint64_t total, sites_dropped, open_forgotten, catches_unpaired;
    size_t bytes; /* what it holds (session_memory.c) */
} exc_state;

/* A WIRE_EXCEPTION; log: the session's event log (NULL: replay, no event).
 * 0, or -1 when out of memory (counted nowhere else: the caller's). */
int exc_thrown(exc_state *x, eventlog *log, const wire_record *r, int64_t when_ns);
/* A WIRE_EXCEPTION_COUNTS: exceptions the agent counted at a site without
 * sending them (proto/wire_exc_counts.h), added to its counts, its series
 * (at the record's time) and its catchers; logs one `exception` event with
 * the site's new count when it adds throws. 0, or -1 as exc_thrown. */
int exc_counts(exc_state *x, eventlog *log, const wire_record *r, int64_t when_ns);
/* A WIRE_EXCEPTION_CAUGHT. */
void exc_caught(exc_state *x, const wire_record *r);
/* The site numbered `number` (from 1), or NULL. */
const exc_site *exc_site_at(const exc_state *x, uint64_t number);
/* Exceptions per second over the site's EXC_RATE_SECONDS seconds ending at `now_s`. */
double exc_site_rate(const exc_site *site, int64_t now_s);
/* An upper bound of the bytes r adds: an EXCEPTION, an EXCEPTION_COUNTS. */
uint64_t exc_need(const exc_state *x, const wire_record *r);
uint64_t exc_counts_need(const exc_state *x, const wire_record *r);
void exc_free(exc_state *x);

#endif
