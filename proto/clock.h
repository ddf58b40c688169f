/* clock.h -- the clocks of jitscope's timestamps, for agent and server alike.
 *
 * Record times on the wire are CLOCK_MONOTONIC nanoseconds of the target; the
 * hello pairs one with CLOCK_REALTIME so the server can show wall-clock time.
 * Both sides measure intervals and deadlines with the same monotonic clock;
 * the helpers below turn them into the timespecs that waits and sleeps take. */
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

/* Nanoseconds as a timespec: an absolute time on some clock, or a length. */
static inline struct timespec clock_timespec(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    return ts;
}

/* `which` now plus ms, as the absolute deadline a timed wait takes
 * (pthread_mutex_timedlock and pthread_timedjoin_np: CLOCK_REALTIME; a
 * condition variable: the clock it was made with). */
static inline struct timespec clock_deadline_ms(clockid_t which, uint64_t ms)
{
    return clock_timespec(clock_ns_of(which) + ms * 1000000u);
}

/* Sleeps for ns nanoseconds (less when a signal comes). */
static inline void clock_sleep_ns(uint64_t ns)
{
    struct timespec ts = clock_timespec(ns);
    nanosleep(&ts, NULL);
}

#endif
