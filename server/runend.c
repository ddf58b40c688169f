/* runend.c -- the end of a `run --exit`: every session of the run ended (see
 * runend.h). */
#include "runend.h"

#include <stdio.h>
#include <time.h>

#include "attach.h"
#include "clock.h"
#include "proc.h"
#include "sessions.h"

static int runend_is_ended(const session *s)
{
    return s->ended_ns || s->state == SESSION_EXITED || s->state == SESSION_DETACHED ||
           s->state == SESSION_FAILED || s->state == SESSION_INTERRUPTED;
}

static int runend_of_run(const session *s, int run_id)
{
    return s->root_id == run_id && !s->persist.past;
}

static void runend_deadline(struct timespec *deadline, int ms)
{
    clock_gettime(CLOCK_MONOTONIC, deadline);
    deadline->tv_sec += ms / 1000;
    deadline->tv_nsec += (long)(ms % 1000) * 1000000l;
    if (deadline->tv_nsec >= 1000000000l) {
        deadline->tv_sec++;
        deadline->tv_nsec -= 1000000000l;
    }
}

/* One look with the lock held: sessions of ended processes whose connection
 * is closed become EXITED; returns how many still read their agent's last
 * records (the launched app's until the reaper and its link say it ended). */
static int runend_drain_look(int run_id)
{
    int64_t now = (int64_t)clock_real_ns();
    int pending = 0;
    size_t i;

    for (i = 0; i < sessions_count(); i++) {
        session *s = sessions_at(i);
        if (!runend_of_run(s, run_id) || runend_is_ended(s))
            continue;
        if (s->id == run_id || proc_is_gone(s->pid) == 0) {
            pending += s->id == run_id; /* a process that outlives the app: detached next */
            continue;
        }
        if (s->link_id) {
            pending++; /* its last records are still on the way */
            continue;
        }
        session_exited(s, now);
        sessions_notify(s->id);
    }
    return pending;
}

/* The sessions of processes that outlive the app, with their agent linked. */
static size_t runend_outliving(int run_id, int ids[SESSIONS_MAX])
{
    size_t i, n = 0;

    for (i = 0; i < sessions_count() && n < SESSIONS_MAX; i++) {
        session *s = sessions_at(i);
        if (runend_of_run(s, run_id) && s->id != run_id && !runend_is_ended(s) && s->link_id &&
            s->state == SESSION_LIVE && !proc_is_gone(s->pid))
            ids[n++] = s->id;
    }
    return n;
}

static int runend_detach_pending(const int ids[], size_t n)
{
    size_t i;
    int pending = 0;

    for (i = 0; i < n; i++) {
        const session *s = sessions_get(ids[i]);
        pending += s && s->state == SESSION_DETACHING && s->link_id;
    }
    return pending;
}

static void runend_report(int run_id)
{
    size_t i;

    for (i = 0; i < sessions_count(); i++) {
        const session *s = sessions_at(i);
        if (runend_of_run(s, run_id) && !runend_is_ended(s))
            fprintf(stderr, "jitscope: session %d (pid %d, %s) is still %s as the server stops\n",
                    s->id, (int)s->pid, s->program[0] ? s->program : "?",
                    session_state_name(s->state));
    }
}

void runend_settle(int run_id)
{
    struct timespec deadline;
    int ids[SESSIONS_MAX];
    char message[256];
    size_t n, i;

    runend_deadline(&deadline, RUNEND_DRAIN_MS);
    sessions_lock();
    while (runend_drain_look(run_id) > 0 && sessions_wait(&deadline) == 0)
        ;
    n = runend_outliving(run_id, ids);
    sessions_unlock();
    for (i = 0; i < n; i++) {
        const session *s;
        int status = detach_session(ids[i], message, sizeof(message));
        sessions_lock();
        s = sessions_get(ids[i]);
        if (s)
            fprintf(stderr, "jitscope: pid %d (%s) outlives the run: %s\n", (int)s->pid,
                    s->program[0] ? s->program : "?",
                    status == 202 ? "detaching the agent" : message);
        sessions_unlock();
    }
    runend_deadline(&deadline, RUNEND_DETACH_MS);
    sessions_lock();
    while (runend_detach_pending(ids, n) > 0 && sessions_wait(&deadline) == 0)
        ;
    runend_drain_look(run_id); /* a process that ended meanwhile */
    runend_report(run_id);
    sessions_unlock();
}
