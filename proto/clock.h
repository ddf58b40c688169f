/* clock.h -- the clocks of jitscope's timestamps, for agent and server alike.
 *
 * Record times on the wire are CLOCK_MONOTONIC nanoseconds of the target; the
 * hello pairs one with CLOCK_REALTIME so the server can show wall-clock time.
 * Both sides measure intervals and deadlines with the same monotonic clock. */
#ifndef JITSCOPE_CLOCK_H
#define JITSCOPE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns_of(clockid_t which)
{
    struct timespec ts;
    clock_gettime(which, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC in nanoseconds: record timestamps, intervals, deadlines. */
static inline uint64_t clock_mono_ns(void) { return clock_ns_of(CLOCK_MONOTONIC); }

/* CLOCK_REALTIME in nanoseconds since the epoch. */
static inline uint64_t clock_real_ns(void) { return clock_ns_of(CLOCK_REALTIME); }

#endif
