/* stacks.c -- the walker thread: snapshots, the sampler and its budget.
 *
 * Hand-over. The sender thread puts commands (snapshot, profile start, profile
 * stop) into a small FIFO under stacks.lock and signals stacks.wake; only agent
 * threads ever touch that mutex. The walker thread is created on the first
 * command (all signals blocked, named "jitscope-walk", its walk buffers mapped
 * first), serves the commands in order and, while a profile runs, takes a sample
 * at each deadline. A snapshot asked for during a profile is served between two
 * samples. stacks_stop (detach, Shutdown) ends it and joins it.
 *
 * Sampling. Deadlines are absolute (CLOCK_MONOTONIC): the next one is the last
 * plus the period; a sample that is late does not cause a burst, missed
 * deadlines are skipped. Each sample is kind WIRE_STACK_SAMPLE, request_id 0,
 * and carries the rate in force (effective_millihz).
 *
 * Budget. The time the runtime stays suspended per sample (SuspendRuntime call
 * to ResumeRuntime return) is averaged over about the last second: an EWMA
 * whose weight per sample is the time since the previous one over one second
 * (all of it at 1 Hz and below; 1/199 at 199 Hz), so one slow suspension counts
 * by its real share of a second instead of swinging the rate. The rate the
 * budget allows is
 *   allowed [mHz] = budget_permille * 1e9 / average suspended ns
 * (budget_permille/1000 of each second, divided by the cost of one sample).
 * Above it the rate drops at once to 90% of it (headroom, so it does not flap);
 * below, it doubles at most once a second, never past 90% of what is allowed or
 * past the requested rate; it never goes under STACKS_MIN_MILLIHZ. Each change
 * is reported with WIRE_PROFILE_STATUS RATE, at most one such record per 500 ms:
 * a change inside that gap is reported with the first sample after it, so the
 * last rate is always reported, but samples carry a new rate before its RATE
 * record does.
 *
 * Profile status records: STARTED after the first sample succeeded (REFUSED
 * with the HRESULT if that first suspension or enumeration failed for another
 * reason than a suspension already in progress), RATE, and STOPPED on a stop
 * command, the duration running out, a new start (which replaces the running
 * profile), the connection lost (sender.c), detach or Shutdown.
 */
#include "clock.h"
#include "stacks.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "emit.h"
#include "walk.h"

#define STACKS_MAX_COMMANDS 32
#define STACKS_SNAPSHOT_RETRIES 250u      /* ~0.5 s of SUSPENSION_IN_PROGRESS */
#define STACKS_SAMPLE_RETRIES 5u          /* ~10 ms: else the sample reports it */
#define STACKS_MIN_MILLIHZ 100u           /* the budget never stops sampling */
#define STACKS_STATUS_GAP_NS 500000000ull /* RATE records at most 2 per second */
#define STACKS_RAISE_GAP_NS 1000000000ull /* the rate goes up at most once a second */
#define STACKS_COST_TAU_NS 1000000000ull  /* the cost average spans about a second */
#define STACKS_E_ABORT ((int32_t)0x80004004u)

enum stacks_command_type { STACKS_SNAPSHOT = 1, STACKS_START = 2, STACKS_STOP = 3 };

typedef struct stacks_command {
    uint32_t type;
    uint64_t request_id;          /* STACKS_SNAPSHOT */
    wire_cmd_profile_start start; /* STACKS_START */
} stacks_command;

/* The running profile: the walker thread's alone. */
typedef struct stacks_profile {
    int running;
    int status_due; /* a rate change not yet reported */
    uint32_t requested_mhz, effective_mhz, budget_permille;
    uint64_t end_ns; /* 0: until stopped */
    uint64_t next_ns, period_ns;
    uint64_t samples, suspended_ns;
    uint64_t cost_ns;   /* average suspended ns per sample */
    uint64_t costed_ns; /* when cost_ns was last updated */
    uint64_t changed_ns, status_ns;
} stacks_profile;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake; /* CLOCK_MONOTONIC */
    pthread_t thread;
    int exists; /* the walker thread was created, not yet joined */
    int stop;   /* it must end */
    stacks_command queue[STACKS_MAX_COMMANDS];
    unsigned head, count;
    walk_buffers *buffers;
} stacks = {.lock = PTHREAD_MUTEX_INITIALIZER};

static pthread_once_t stacks_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t stacks_joining = PTHREAD_MUTEX_INITIALIZER; /* one stacks_stop at a time */
static _Atomic uint64_t stacks_snapshot_seq;                       /* last snapshot id handed out */

static void stacks_init_wake(void)
{
    pthread_condattr_t attr;

    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&stacks.wake, &attr);
    pthread_condattr_destroy(&attr);
}

void stacks_begin(void)
{
    pthread_once(&stacks_once, stacks_init_wake);
    atomic_store(&stacks_snapshot_seq, 0);
}

static uint64_t stacks_next_id(void) { return atomic_fetch_add(&stacks_snapshot_seq, 1) + 1; }

/* ---- profile status and rate ---- */

static void stacks_status(const stacks_profile *p, uint32_t state, int32_t hresult)
{
    wire_profile_status s;

    memset(&s, 0, sizeof(s));
    s.state = state;
    s.requested_millihz = p->requested_mhz;
    s.effective_millihz = p->effective_mhz;
    s.budget_permille = p->budget_permille;
    s.samples = p->samples;
    s.suspended_ns = p->suspended_ns;
    s.hresult = hresult;
    emit_record(WIRE_PROFILE_STATUS, 0, &s, sizeof(s), NULL, 0, NULL, 0);
}

static uint64_t stacks_period_ns(uint32_t mhz) { return 1000000000000ull / mhz; }

/* After a sample that kept the runtime suspended for cost_ns (0: not suspended). */
static void stacks_rate_update(stacks_profile *p, uint64_t cost_ns, uint64_t now)
{
    uint64_t allowed, eff = p->effective_mhz;

    if (cost_ns && p->cost_ns) {
        uint64_t dt = now - p->costed_ns;
        double w = dt >= STACKS_COST_TAU_NS ? 1.0 : (double)dt / (double)STACKS_COST_TAU_NS;
        p->cost_ns = (uint64_t)((double)p->cost_ns + w * ((double)cost_ns - (double)p->cost_ns));
        if (p->cost_ns == 0)
            p->cost_ns = 1;
        p->costed_ns = now;
    } else if (cost_ns) {
        p->cost_ns = cost_ns;
        p->costed_ns = now;
    }
    if (p->cost_ns) {
        allowed = (uint64_t)p->budget_permille * 1000000000ull / p->cost_ns;
        if (allowed < eff) {
            eff = allowed - allowed / 10;
        } else if (eff < p->requested_mhz && allowed > eff + eff / 4 &&
                   now - p->changed_ns >= STACKS_RAISE_GAP_NS) {
            eff *= 2;
            if (eff > allowed - allowed / 10)
                eff = allowed - allowed / 10;
        }
        if (eff > p->requested_mhz)
            eff = p->requested_mhz;
        if (eff < STACKS_MIN_MILLIHZ)
            eff = STACKS_MIN_MILLIHZ;
        if (eff != p->effective_mhz) {
            p->effective_mhz = (uint32_t)eff;
            p->period_ns = stacks_period_ns(p->effective_mhz);
            p->changed_ns = now;
            p->status_due = 1;
        }
    }
    if (p->status_due && now - p->status_ns >= STACKS_STATUS_GAP_NS) {
        stacks_status(p, WIRE_PROFILE_RATE, 0);
        p->status_due = 0;
        p->status_ns = now;
    }
}

static void stacks_profile_end(stacks_profile *p)
{
    if (!p->running)
        return;
    stacks_status(p, WIRE_PROFILE_STOPPED, 0);
    p->running = 0;
}

/* One sample at its deadline (the walker thread). */
static void stacks_sample(stacks_profile *p, walk_buffers *b)
{
    uint64_t id = stacks_next_id(), deadline = p->next_ns, now;
    walk_result r;

    walk_take(b, STACKS_SAMPLE_RETRIES, &r);
    if (r.suspend_ns) {
        p->samples++;
        p->suspended_ns += r.suspend_ns;
    }
    now = clock_mono_ns();
    stacks_rate_update(p, r.suspend_ns, now);
    walk_emit(b, &r, id, WIRE_STACK_SAMPLE, 0, p->effective_mhz);
    p->next_ns = deadline + p->period_ns;
    while (p->next_ns <= now) /* late: skip the missed deadlines, keep the phase */
        p->next_ns += p->period_ns;
}

static void stacks_profile_begin(stacks_profile *p, walk_buffers *b,
                                 const wire_cmd_profile_start *cmd)
{
    uint32_t hz = cmd->hz < 1 ? 1 : cmd->hz > WIRE_PROFILE_MAX_HZ ? WIRE_PROFILE_MAX_HZ : cmd->hz;
    uint64_t id, now;
    walk_result r;

    stacks_profile_end(p); /* a new start replaces the running profile */
    memset(p, 0, sizeof(*p));
    p->requested_mhz = p->effective_mhz = hz * 1000u;
    p->budget_permille = cmd->budget_permille == 0     ? WIRE_PROFILE_DEFAULT_BUDGET_PERMILLE
                         : cmd->budget_permille > 1000 ? 1000
                                                       : cmd->budget_permille;
    p->period_ns = stacks_period_ns(p->effective_mhz);
    id = stacks_next_id();
    walk_take(b, STACKS_SAMPLE_RETRIES, &r);
    now = clock_mono_ns();
    if (FAILED(r.hresult) && r.hresult != CORPROF_E_SUSPENSION_IN_PROGRESS) {
        stacks_status(p, WIRE_PROFILE_REFUSED, r.hresult);
        return;
    }
    p->running = 1;
    if (r.suspend_ns) {
        p->samples = 1;
        p->suspended_ns = r.suspend_ns;
        p->cost_ns = r.suspend_ns;
        p->costed_ns = now;
    }
    p->end_ns = cmd->duration_ms ? r.start_ns + (uint64_t)cmd->duration_ms * 1000000u : 0;
    p->changed_ns = p->status_ns = now;
    stacks_status(p, WIRE_PROFILE_STARTED, 0);
    walk_emit(b, &r, id, WIRE_STACK_SAMPLE, 0, p->effective_mhz);
    p->next_ns = r.start_ns + p->period_ns;
}

static void stacks_run(stacks_profile *p, walk_buffers *b, const stacks_command *c)
{
    walk_result r;
    uint64_t id;

    switch (c->type) {
    case STACKS_SNAPSHOT:
        id = stacks_next_id();
        walk_take(b, STACKS_SNAPSHOT_RETRIES, &r);
        walk_emit(b, &r, id, WIRE_STACK_SNAPSHOT, c->request_id, 0);
        break;
    case STACKS_START: stacks_profile_begin(p, b, &c->start); break;
    case STACKS_STOP: stacks_profile_end(p); break;
    }
}

/* The next moment the running profile needs the walker. */
static uint64_t stacks_due(const stacks_profile *p)
{
    return p->end_ns && p->end_ns < p->next_ns ? p->end_ns : p->next_ns;
}

static void stacks_timed_wait(uint64_t due_ns)
{
    struct timespec ts = clock_timespec(due_ns); /* the condition's clock: CLOCK_MONOTONIC */
    pthread_cond_timedwait(&stacks.wake, &stacks.lock, &ts);
}

static void *stacks_main(void *arg)
{
    walk_buffers *b = arg;
    stacks_profile p;
    stacks_command c, left[STACKS_MAX_COMMANDS];
    unsigned nleft = 0, i;

    memset(&p, 0, sizeof(p));
    pthread_setname_np(pthread_self(), "jitscope-walk");
    walk_thread_init();
    pthread_mutex_lock(&stacks.lock);
    for (;;) {
        int have = 0;

        while (!stacks.stop && stacks.count == 0) {
            if (!p.running)
                pthread_cond_wait(&stacks.wake, &stacks.lock);
            else if (clock_mono_ns() >= stacks_due(&p))
                break;
            else
                stacks_timed_wait(stacks_due(&p));
        }
        if (stacks.stop)
            break;
        if (stacks.count) {
            c = stacks.queue[stacks.head];
            stacks.head = (stacks.head + 1) % STACKS_MAX_COMMANDS;
            stacks.count--;
            have = 1;
        }
        pthread_mutex_unlock(&stacks.lock);
        if (have) {
            stacks_run(&p, b, &c);
        } else if (p.end_ns && clock_mono_ns() >= p.end_ns) {
            stacks_profile_end(&p); /* the duration is over */
        } else {
            stacks_sample(&p, b);
        }
        pthread_mutex_lock(&stacks.lock);
    }
    while (stacks.count) { /* what nobody will serve now */
        left[nleft++] = stacks.queue[stacks.head];
        stacks.head = (stacks.head + 1) % STACKS_MAX_COMMANDS;
        stacks.count--;
    }
    pthread_mutex_unlock(&stacks.lock);
    stacks_profile_end(&p);
    for (i = 0; i < nleft; i++)
        if (left[i].type == STACKS_SNAPSHOT)
            walk_emit_failed(stacks_next_id(), WIRE_STACK_SNAPSHOT, left[i].request_id,
                             STACKS_E_ABORT);
    walk_thread_exit();
    return NULL;
}

/* Creates the walker thread if there is none. stacks.lock held. Returns 0 or
 * the HRESULT to answer with. */
static int32_t stacks_start_locked(void)
{
    sigset_t all, old;
    int rc;

    if (stacks.exists)
        return stacks.stop ? STACKS_E_BUSY : S_OK; /* a stop is under way */
    pthread_once(&stacks_once, stacks_init_wake);
    stacks.buffers = walk_buffers_map();
    if (!stacks.buffers)
        return E_OUTOFMEMORY;
    stacks.head = stacks.count = 0;
    stacks.stop = 0;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the app's signals are not ours to handle */
    rc = pthread_create(&stacks.thread, NULL, stacks_main, stacks.buffers);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        walk_buffers_unmap(stacks.buffers);
        stacks.buffers = NULL;
        return E_OUTOFMEMORY;
    }
    stacks.exists = 1;
    return S_OK;
}

/* Queues a command, starting the walker if needed. Returns S_OK or why not. */
static int32_t stacks_queue(const stacks_command *c)
{
    int32_t hr;

    pthread_mutex_lock(&stacks.lock);
    hr = stacks_start_locked();
    if (SUCCEEDED(hr) && stacks.count == STACKS_MAX_COMMANDS)
        hr = STACKS_E_BUSY;
    if (SUCCEEDED(hr)) {
        stacks.queue[(stacks.head + stacks.count) % STACKS_MAX_COMMANDS] = *c;
        stacks.count++;
        pthread_cond_signal(&stacks.wake);
    }
    pthread_mutex_unlock(&stacks.lock);
    return hr;
}

void stacks_snapshot(uint64_t request_id)
{
    stacks_command c = {.type = STACKS_SNAPSHOT, .request_id = request_id};
    int32_t hr = stacks_queue(&c);

    if (FAILED(hr))
        walk_emit_failed(stacks_next_id(), WIRE_STACK_SNAPSHOT, request_id, hr);
}

void stacks_profile_start(const wire_cmd_profile_start *cmd)
{
    stacks_command c = {.type = STACKS_START, .start = *cmd};
    int32_t hr = stacks_queue(&c);

    if (FAILED(hr)) {
        stacks_profile p;
        memset(&p, 0, sizeof(p));
        p.requested_mhz = (cmd->hz < 1                     ? 1
                           : cmd->hz > WIRE_PROFILE_MAX_HZ ? WIRE_PROFILE_MAX_HZ
                                                           : cmd->hz) *
                          1000u;
        p.budget_permille = cmd->budget_permille ? cmd->budget_permille
                                                 : WIRE_PROFILE_DEFAULT_BUDGET_PERMILLE;
        stacks_status(&p, WIRE_PROFILE_REFUSED, hr);
    }
}

void stacks_profile_stop(void)
{
    stacks_command c = {.type = STACKS_STOP};

    pthread_mutex_lock(&stacks.lock);
    if (stacks.exists && !stacks.stop && stacks.count < STACKS_MAX_COMMANDS) {
        stacks.queue[(stacks.head + stacks.count) % STACKS_MAX_COMMANDS] = c;
        stacks.count++;
        pthread_cond_signal(&stacks.wake);
    }
    pthread_mutex_unlock(&stacks.lock);
}

int stacks_stop(unsigned wait_ms)
{
    struct timespec deadline = clock_deadline_ms(CLOCK_REALTIME, wait_ms);
    int rc;

    /* detach (sender thread) and Shutdown (a runtime thread) may both get here */
    if (pthread_mutex_timedlock(&stacks_joining, &deadline) != 0)
        return -1;
    pthread_mutex_lock(&stacks.lock);
    if (!stacks.exists) {
        pthread_mutex_unlock(&stacks.lock);
        pthread_mutex_unlock(&stacks_joining);
        return 0;
    }
    stacks.stop = 1;
    pthread_cond_signal(&stacks.wake);
    pthread_mutex_unlock(&stacks.lock);
    rc = pthread_timedjoin_np(stacks.thread, NULL, &deadline);
    if (rc == 0) {
        pthread_mutex_lock(&stacks.lock);
        stacks.exists = 0;
        stacks.stop = 0;
        walk_buffers_unmap(stacks.buffers);
        stacks.buffers = NULL;
        pthread_mutex_unlock(&stacks.lock);
    } /* else still walking: stop stays set, a later call may join it */
    pthread_mutex_unlock(&stacks_joining);
    return rc == 0 ? 0 : -1;
}
