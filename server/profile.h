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
 *
 * Two modes share these tables. Wall mode (PROFILE_MODE_WALL) is the agent's
 * suspended walks above. CPU mode (PROFILE_MODE_CPU) is fed by the server's
 * own sampler of the target's threads (cpuprof.h) through profile_cpu.h:
 * threads are then told apart by their OS thread id, and a stack's frames are
 * FunctionIDs (managed code) or PROFILE_FRAME_SYMBOL | i, entry i of the CPU
 * profile's symbol table (native functions, and labels that say where frames
 * were lost). profile_view.h turns this into responses. Caller holds the
 * sessions lock.
 */
#ifndef JITSCOPE_PROFILE_H
#define JITSCOPE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "eventlog.h"
#include "idmap.h"
#include "profile_addr.h"
#include "profile_heat.h"
#include "stacks.h"

#define PROFILE_MAX_STACKS 65536u      /* distinct stacks: ids fit a uint16_t */
#define PROFILE_MAX_FRAMES (1u << 21)  /* FunctionIDs in all distinct stacks: 16 MiB */
#define PROFILE_MAX_SAMPLES (1u << 20) /* thread samples: 8 MiB */
#define PROFILE_MAX_THREADS 65535u     /* threads told apart: index fits a uint16_t */
#define PROFILE_MAX_DEPTH (WIRE_STACK_MAX_FRAMES + 1u) /* frames + the truncation mark */
#define PROFILE_FRAME_TRUNCATED 1u /* pseudo FunctionID: the stack was cut here */
/* CPU mode: a frame that is entry (key & ~PROFILE_FRAME_SYMBOL) of the CPU
 * profile's symbol table; FunctionIDs are user-space pointers, below 2^63 */
#define PROFILE_FRAME_SYMBOL (1ull << 63)
#define PROFILE_HIST_BUCKETS 976u /* suspension histogram: 16 per power of two */

enum profile_run_state { PROFILE_IDLE = 0, PROFILE_RUNNING = 1, PROFILE_STOPPED = 2 };
enum profile_mode { PROFILE_MODE_WALL = 0, PROFILE_MODE_CPU = 1 };

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
    uint64_t thread_id; /* CPU mode: the managed ThreadID when known, else 0 */
    uint32_t os_thread_id;
    uint32_t thread_row; /* 0: not known */
    uint32_t name;       /* CPU mode: offset + 1 of its OS name in cpu.text, 0 none */
    uint32_t reserved;
} profile_thread;

/* CPU mode: one entry of the symbol table (offsets into cpu.text). */
typedef struct profile_symbol {
    uint32_t name;
    uint32_t module; /* UINT32_MAX: none */
} profile_symbol;

/* CPU mode's counters (what the sampler saw, cpuprof.h); LOGREC_CPU_COUNTS
 * carries them whole. */
typedef struct profile_cpu_counts {
    uint64_t samples;        /* samples the kernel delivered (kept or not) */
    uint64_t lost;           /* samples the kernel could not deliver (a full ring) */
    uint64_t broken;         /* chains that did not reach the thread's start */
    uint64_t missing;        /* samples with a frame known to be missing (no frame pointer, stub) */
    uint64_t complete;       /* samples with neither: a whole chain */
    uint64_t unresolved;     /* managed frames no method was found for */
    uint64_t kernel;         /* samples taken while the thread ran in the kernel */
    uint64_t lookups;        /* addresses asked of the agent */
    uint64_t threads;        /* threads followed now */
    uint64_t threads_seen;   /* threads followed in all */
    uint64_t threads_failed; /* threads that could not be followed */
    uint64_t period_ns;      /* CPU time per sample */
    uint64_t kernel_excluded; /* 1: the kernel would only sample user mode (perf_event_paranoid) */
    uint64_t reserved;
} profile_cpu_counts;
_Static_assert(sizeof(profile_cpu_counts) == 112, "profile_cpu_counts layout");

typedef struct profile_cpu {
    profile_symbol *symbols;
    size_t symbol_count, symbol_cap;
    char *text; /* NUL-terminated names of symbols and threads */
    size_t text_used, text_cap;
    profile_cpu_counts counts;
    uint32_t run;    /* the sampler run that feeds it (cpuprof.h); 0 once read back */
    char error[256]; /* why the sampler stopped by itself */
} profile_cpu;

typedef struct profile_state {
    /* status */
    int state;          /* profile_run_state */
    int mode;           /* profile_mode */
    char fallback[448]; /* CPU mode was asked for and could not be used: why */
    uint32_t requested_millihz, effective_millihz, budget_permille;
    int32_t hresult;                            /* why the agent refused to start, 0 */
    int64_t started_ns, stopped_ns;             /* wall clock */
    uint64_t agent_samples, agent_suspended_ns; /* as the agent last reported them */
    uint64_t walks;                             /* sample walks received */
    uint64_t thread_samples;                    /* thread stacks in them (kept and dropped) */
    uint64_t suspended_ns_total, suspend_ns_max;
    uint32_t *suspend_hist; /* PROFILE_HIST_BUCKETS, made at the first suspension; NULL: none */
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
    idmap thread_index; /* wall: ThreadID -> index; CPU: OS thread id -> index */
    profile_cpu cpu;    /* CPU mode only */
    profile_heat heat;  /* the samples by code address (profile_heat.h) */
    profile_addr addr;  /* each sample's frames by code address (profile_addr.h) */
    uint32_t number;    /* the session's profiles started so far, this one included */
} profile_state;

struct wire_record;

/* POST /profile: discards the previous profile, state running at hz (its
 * number one more than the previous one's). */
void profile_start(profile_state *p, uint32_t hz, int64_t now_ns);
/* POST /profile/stop, or the agent went away: state stopped. */
void profile_stop(profile_state *p, int64_t now_ns);
/* One PROFILE_STATUS record; logged as a `profile` event (log NULL: not logged). */
void profile_apply_status(profile_state *p, eventlog *log, const struct wire_record *r,
                          int64_t when_ns);
/* A `profile` event: the profile changed (change: WIRE_PROFILE_STARTED,
 * _STOPPED, _RATE, _REFUSED) at when_ns, to these rates (mHz) and budget
 * (permille); the agent's word or the server's (a CPU profile). */
void profile_log_change(eventlog *log, int64_t when_ns, uint64_t requested_millihz,
                        uint32_t budget_permille, uint64_t effective_millihz, uint32_t change);
/* One sample walk (kind SAMPLE) that stacks.c assembled. */
void profile_add_walk(profile_state *p, const stacks_walk *w, uint32_t effective_millihz);
/* The id of the stack seq[0..depth) (leaf first), added when new (*created
 * then 1); -1 when a new stack does not fit (counted in dropped_stacks). */
int profile_stack_intern(profile_state *p, const uint64_t *seq, uint32_t depth, int *created);
/* One sample of thread index `thread` in stack `stack` at wall clock when_ns;
 * -1 when it is not kept (counted in dropped_samples). */
int profile_add_sample(profile_state *p, int64_t when_ns, uint32_t thread, uint32_t stack);
void profile_free(profile_state *p);
/* The bytes of the blocks a profile makes when first used (its histogram). */
size_t profile_block_bytes(const profile_state *p);

uint64_t profile_suspend_p50(const profile_state *p);
const char *profile_state_name(int state);
const char *profile_mode_name(int mode);

#endif
