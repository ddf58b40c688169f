/* cpuprof_run.h -- one CPU sampler run: the data cpuprof.c (the thread, its
 * events) and cpufold.c (naming and folding its samples) share; no
 * functions. Calls go one way: the run's thread (cpuprof.c) calls the fold
 * (cpufold.h), which calls nothing of cpuprof.c. Only the run's own thread
 * touches it, apart from the atomics at the top. */
#ifndef JITSCOPE_CPUPROF_RUN_H
#define JITSCOPE_CPUPROF_RUN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "clock.h"
#include "cpusym.h"
#include "idmap.h"
#include "perfring.h"
#include "profile.h"

#define CPUPROF_BATCH_MS 100u        /* samples are named and folded this often */
#define CPUPROF_LOOKUP_WAIT_MS 1500u /* an address asked of the agent: longest wait */
#define CPUPROF_LOOKUPS_PER_BATCH 300u
#define CPUPROF_STACK_COPY 4096u /* bytes of user stack copied with each sample (frames.h) */
#define CPUPROF_SMALL_COPY 1024u /* the same when the locked-memory limit allows a small ring */
#define CPUPROF_CANDIDATES 8u    /* on-stack-replacement callers kept per sample (frames.h) */

typedef struct cpuprof_sample {
    int64_t wall_ns;
    uint64_t seen_ms; /* when it was read (ms since the run began) */
    uint32_t tid;
    uint32_t first; /* its frames: ips[first .. first + nr), leaf first */
    uint16_t nr;
    uint8_t kernel;      /* taken in the kernel */
    uint8_t truncated;   /* the kernel's frame limit was reached */
    uint8_t extra;       /* candidates: ips[first + nr ..+ extra] (frames.h) */
    uint8_t cut;         /* the chain was cut after a leaf that reused rbp (frames.h) */
    uint8_t leaf_caller; /* frame 1 is the leaf's caller, found by frames.c */
    uint8_t cand_k[CPUPROF_CANDIDATES];     /* the frame whose frame pointer a candidate is under */
    uint16_t cand_dist[CPUPROF_CANDIDATES]; /* its distance from that frame pointer (bytes) */
} cpuprof_sample;

typedef struct cpuprof_thread {
    uint32_t tid;
    uint32_t index;     /* in the profile, UINT32_MAX until it has one */
    uint64_t thread_id; /* the managed ThreadID when known */
    int handed;         /* its current ThreadID and name are in the profile's log */
    char name[16];      /* /proc/PID/task/TID/comm */
} cpuprof_thread;

typedef struct cpuprof_run {
    _Atomic int stop;  /* the profile stopped, or shutdown */
    _Atomic int nudge; /* a thread started: look at /proc/PID/task now */
    _Atomic int done;  /* the thread has ended (joinable) */
    int wake_fd;       /* eventfd: stop and nudge wake the thread */
    pthread_t thread;
    int session_id;
    uint32_t run;
    pid_t pid;
    uint32_t hz;
    uint32_t duration_ms; /* 0: until stopped */
    perfring_config config;
    int64_t wall_offset_ns; /* realtime - monotonic of the server, at start */
    uint64_t start_mono_ns;
    /* events */
    int epoll_fd;
    perfring *rings;
    size_t ring_count;
    idmap ring_by_tid; /* tid -> index in rings + 1 */
    idmap failed_tids; /* threads that could not be followed (not tried again) */
    /* threads met in samples */
    cpuprof_thread *threads;
    size_t thread_count;
    idmap thread_by_tid;
    /* samples waiting to be folded */
    cpuprof_sample *samples;
    size_t sample_count;
    uint64_t *ips; /* CPUPROF_MAX_IPS (cpuprof.c) */
    size_t ip_count;
    cpusym sym;
    /* what the profile's counters add up (profile_cpu_counts) */
    profile_cpu_counts counts;
    uint64_t dropped; /* samples not kept while waiting (over CPUPROF_MAX_PENDING) */
    uint64_t counts_logged_ms;
    int counts_changed;
} cpuprof_run;

/* ms since the run began. */
static inline uint64_t cpuprof_run_ms(const cpuprof_run *r)
{
    return (clock_mono_ns() - r->start_mono_ns) / 1000000u;
}

#endif
