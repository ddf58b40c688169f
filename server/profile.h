/* profile.h -- one session's sampling profile: what the flame graph is made of.
 *
 * Sample walks (stacks.h, kind SAMPLE) arrive here thread by thread. Each
 * thread's stack, a sequence of FunctionIDs (0 for a native run, plus
 * PROFILE_FRAME_TRUNCATED at the root end of a cut stack), is deduplicated by
 * a hash of the sequence into a stack id; a sample is then a compact
 * (time, thread index, stack id) entry of 8 bytes. Bounds, each counted when
 * hit: PROFILE_MAX_STACKS distinct stacks holding PROFILE_MAX_FRAMES
 * FunctionIDs in all (a sample whose new stack does not fit is dropped and
 * counted in dropped_stacks and dropped_samples), PROFILE_MAX_SAMPLES samples
 * and PROFILE_MAX_THREADS threads (dropped_samples). At most about 27 MiB a
 * session. The status (state, rates, budget) follows the server's commands and
 * the agent's PROFILE_STATUS records; suspension statistics come from the
 * sample walks' STACK_END (p50 from a log-scale histogram, within 1/32).
 * profile_view.h turns this into responses. Caller holds the sessions lock.
 */
#ifndef JITSCOPE_PROFILE_H
#define JITSCOPE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "eventlog.h"
#include "idmap.h"
#include "stacks.h"

#define PROFILE_MAX_STACKS 65536u      /* distinct stacks: ids fit a uint16_t */
#define PROFILE_MAX_FRAMES (1u << 21)  /* FunctionIDs in all distinct stacks: 16 MiB */
#define PROFILE_MAX_SAMPLES (1u << 20) /* thread samples: 8 MiB */
#define PROFILE_MAX_THREADS 65535u     /* threads told apart: index fits a uint16_t */
#define PROFILE_MAX_DEPTH (WIRE_STACK_MAX_FRAMES + 1u) /* frames + the truncation mark */
#define PROFILE_FRAME_TRUNCATED 1u /* pseudo FunctionID: the stack was cut here */
#define PROFILE_HIST_BUCKETS 976u  /* suspension histogram: 16 per power of two */

enum profile_run_state { PROFILE_IDLE = 0, PROFILE_RUNNING = 1, PROFILE_STOPPED = 2 };

typedef struct profile_sample {
    uint32_t t_ms;   /* wall clock ms after base_ns */
    uint16_t thread; /* index in threads */
    uint16_t stack;  /* stack id */
} profile_sample;

typedef struct profile_stack {
    uint64_t hash;
    uint32_t first; /* index of its leaf frame in frames */
    uint32_t depth;
} profile_stack;

/* One thread of the profile: a row of the session (thread_row, position + 1)
 * when the walk knew it, else its ThreadID (which the runtime reuses). */
typedef struct profile_thread {
    uint64_t thread_id;
    uint32_t os_thread_id;
    uint32_t thread_row; /* 0: not known */
} profile_thread;

typedef struct profile_state {
    /* status */
    int state; /* profile_run_state */
    uint32_t requested_millihz, effective_millihz, budget_permille;
    int32_t hresult;                            /* why the agent refused to start, 0 */
    int64_t started_ns, stopped_ns;             /* wall clock */
    uint64_t agent_samples, agent_suspended_ns; /* as the agent last reported them */
    uint64_t walks;                             /* sample walks received */
    uint64_t thread_samples;                    /* thread stacks in them (kept and dropped) */
    uint64_t suspended_ns_total, suspend_ns_max;
    uint32_t suspend_hist[PROFILE_HIST_BUCKETS];
    uint64_t dropped_samples, dropped_stacks;
    /* data */
    int64_t base_ns; /* wall clock of t_ms 0: the first sample */
    int has_base;
    profile_sample *samples;
    size_t sample_count, sample_cap;
    profile_stack *stacks;
    size_t stack_count, stack_cap;
    uint64_t *frames; /* the stacks' FunctionIDs, each stack leaf first */
    size_t frame_count, frame_cap;
    uint32_t *index; /* open addressing on the hash: stack id + 1, 0 empty */
    size_t index_cap;
    profile_thread *threads;
    size_t thread_count, thread_cap;
    idmap thread_index;
} profile_state;

struct wire_record;

/* POST /profile: discards the previous profile, state running at hz. */
void profile_start(profile_state *p, uint32_t hz, int64_t now_ns);
/* POST /profile/stop, or the agent went away: state stopped. */
void profile_stop(profile_state *p, int64_t now_ns);
/* One PROFILE_STATUS record; logged as a `profile` event. */
void profile_apply_status(profile_state *p, eventlog *log, const struct wire_record *r,
                          int64_t when_ns);
/* One sample walk (kind SAMPLE) that stacks.c assembled. */
void profile_add_walk(profile_state *p, const stacks_walk *w, uint32_t effective_millihz);
void profile_free(profile_state *p);

uint64_t profile_suspend_p50(const profile_state *p);
const char *profile_state_name(int state);

#endif
