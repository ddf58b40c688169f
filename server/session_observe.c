/* session_observe.c -- the folds of the records a stored session's snapshot
 * keeps beside it, because what they fold into is folded again after it
 * rather than stored in it: stack walks (stacks.h), the sampling profile
 * (profile.h) and the GC/suspension timeline (timeline.h); and their
 * replays (session_kinds.h; the rows of record_kinds.c point here). Live,
 * each also accounts what those now hold (session_memory_observed); a replay
 * logs no events (the snapshot's event log has them). Caller holds the
 * sessions lock. */
#include "session_kinds.h"

#include <stdlib.h>

/* STACK_THREAD: one thread's walk, filed under the thread as it is now (a
 * walked thread is alive while it is walked). */
static void session_stack_thread(session *s, const wire_record *r)
{
    const session_thread *t = session_thread_match(s, r->u.stack_thread.thread_id,
                                                   r->u.stack_thread.os_thread_id);

    stacks_apply_thread(&s->stacks, r, t ? session_thread_row_of(s, t) : 0);
}

/* STACK_END: a walk complete; a sample's goes into the profile. */
static void session_stack_end(session *s, const wire_record *r, int64_t when, eventlog *log)
{
    stacks_walk *sample = stacks_apply_end(&s->stacks, log, r, when);

    if (sample) {
        profile_add_walk(&s->profile, sample, r->u.stack_end.effective_millihz);
        stacks_walk_recycle(sample);
    }
}

/* ---- folds ---- */

int session_fold_stack_thread(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                              const char **why)
{
    (void)when, (void)now_ns, (void)why;
    session_stack_thread(s, r);
    session_memory_observed(s);
    return 0;
}

int session_fold_stack_end(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                           const char **why)
{
    (void)now_ns, (void)why;
    session_stack_end(s, r, when, &s->events);
    session_memory_observed(s);
    return 0;
}

int session_fold_profile_status(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                const char **why)
{
    (void)now_ns, (void)why;
    profile_apply_status(&s->profile, &s->events, r, when);
    session_memory_observed(s);
    return 0;
}

int session_fold_gc_started(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                            const char **why)
{
    (void)now_ns, (void)why;
    timeline_gc_started(&s->timeline, &s->events, r, when);
    session_memory_observed(s);
    return 0;
}

int session_fold_gc_finished(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                             const char **why)
{
    (void)when, (void)now_ns, (void)why;
    timeline_gc_finished(&s->timeline, &s->events, r);
    session_memory_observed(s);
    return 0;
}

int session_fold_runtime_suspend(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                 const char **why)
{
    (void)now_ns, (void)why;
    timeline_runtime_suspend(&s->timeline, s->profile.state == PROFILE_RUNNING, &s->events, r,
                             when);
    session_memory_observed(s);
    return 0;
}

/* EXCEPTION (or, counts: EXCEPTION_COUNTS): into its site (excsites.h), made
 * with the session's first one; log NULL for a replay. */
static int session_exception(session *s, const wire_record *r, int64_t when, eventlog *log,
                             int counts, const char **why)
{
    if (!s->exceptions && !(s->exceptions = calloc(1, sizeof(*s->exceptions)))) {
        *why = "no memory for the session's exceptions";
        return -1;
    }
    if ((counts ? exc_counts(s->exceptions, log, r, when)
                : exc_thrown(s->exceptions, log, r, when)) != 0) {
        *why = "no memory for an exception's site";
        return -1;
    }
    return 0;
}

int session_fold_exception(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                           const char **why)
{
    int rc;

    (void)now_ns;
    rc = session_exception(s, r, when, &s->events, 0, why);
    session_memory_observed(s);
    return rc;
}

int session_replay_exception(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                             const char **why)
{
    (void)now_ns;
    return session_exception(s, r, when, NULL, 0, why);
}

/* EXCEPTION_COUNTS: the exceptions the agent counted at a site, live (with
 * an `exception` event when it adds throws) and replayed. */
int session_fold_exception_counts(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                  const char **why)
{
    int rc;

    (void)now_ns;
    rc = session_exception(s, r, when, &s->events, 1, why);
    session_memory_observed(s);
    return rc;
}

int session_replay_exception_counts(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                    const char **why)
{
    (void)now_ns;
    return session_exception(s, r, when, NULL, 1, why);
}

/* EXCEPTION_CAUGHT: closes its thread's open exception (a catch with none
 * open: its throw came before an attach, and is counted). Live and replayed
 * alike: it logs nothing. */
int session_fold_exception_caught(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                  const char **why)
{
    (void)when, (void)now_ns, (void)why;
    if (s->exceptions)
        exc_caught(s->exceptions, r);
    return 0;
}

/* ALLOCATION: into its type, stack and second (allocsites.h), made with the
 * session's first one; a second it closes is an event (log NULL: a replay). */
static int session_allocation(session *s, const wire_record *r, int64_t when, eventlog *log,
                              const char **why)
{
    if (!s->allocations && !(s->allocations = calloc(1, sizeof(*s->allocations)))) {
        *why = "no memory for the session's allocations";
        return -1;
    }
    if (alloc_sample(s->allocations, log, r, when) != 0) {
        *why = "no memory for an allocation's type, stack or second";
        return -1;
    }
    return 0;
}

int session_replay_allocation(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                              const char **why)
{
    (void)now_ns;
    return session_allocation(s, r, when, NULL, why);
}

int session_fold_allocation(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                            const char **why)
{
    int rc;

    (void)now_ns;
    rc = session_allocation(s, r, when, &s->events, why);
    session_memory_observed(s);
    return rc;
}

/* ---- replays ---- */

/* The hello's: a connection's walk ids start over (its fold is
 * session_fold.c's). */
int session_replay_hello(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                         const char **why)
{
    (void)r, (void)when, (void)now_ns, (void)why;
    stacks_link_reset(&s->stacks);
    return 0;
}

int session_replay_stack_thread(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                const char **why)
{
    (void)when, (void)now_ns, (void)why;
    session_stack_thread(s, r);
    return 0;
}

int session_replay_stack_end(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                             const char **why)
{
    (void)now_ns, (void)why;
    session_stack_end(s, r, when, NULL);
    return 0;
}

int session_replay_profile_status(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                  const char **why)
{
    (void)now_ns, (void)why;
    profile_apply_status(&s->profile, NULL, r, when);
    return 0;
}

int session_replay_gc_started(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                              const char **why)
{
    (void)now_ns, (void)why;
    timeline_gc_started(&s->timeline, NULL, r, when);
    return 0;
}

int session_replay_gc_finished(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                               const char **why)
{
    (void)when, (void)now_ns, (void)why;
    timeline_gc_finished(&s->timeline, NULL, r);
    return 0;
}

/* GC_HEAP_STATS: into the timeline's heap ring; live and replayed alike. */
int session_fold_gc_heap_stats(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                               const char **why)
{
    (void)now_ns, (void)why;
    timeline_heap_stats(&s->timeline, r, when);
    session_memory_observed(s);
    return 0;
}

int session_replay_runtime_suspend(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                   const char **why)
{
    (void)now_ns, (void)why;
    timeline_runtime_suspend(&s->timeline, s->profile.state == PROFILE_RUNNING, NULL, r, when);
    return 0;
}
