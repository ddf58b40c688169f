/* dpconn.c -- the diagnostic port's runtimes and connections (see dpconn.h). */
#include "dpconn.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

dp_config dp_cfg;

static pthread_mutex_t dp_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dp_cond;
static pthread_once_t dp_cond_once = PTHREAD_ONCE_INIT;
static dp_runtime dp_runtimes[DP_RUNTIMES_MAX];
static int dp_next_id = 1;
static _Atomic int dp_stop_word;
static void (*dp_wake)(void);

static void dpconn_init_cond(void)
{
    pthread_condattr_t a;

    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&dp_cond, &a);
    pthread_condattr_destroy(&a);
}

void dpconn_lock(void)
{
    pthread_once(&dp_cond_once, dpconn_init_cond);
    pthread_mutex_lock(&dp_mutex);
}

void dpconn_unlock(void) { pthread_mutex_unlock(&dp_mutex); }

void dpconn_signal(void) { pthread_cond_broadcast(&dp_cond); }

void dpconn_set_waker(void (*wake)(void)) { dp_wake = wake; }

dp_runtime *dpconn_find(const uint8_t cookie[IPC_GUID_SIZE])
{
    size_t i;

    for (i = 0; i < DP_RUNTIMES_MAX; i++)
        if (dp_runtimes[i].id && memcmp(dp_runtimes[i].cookie, cookie, IPC_GUID_SIZE) == 0)
            return &dp_runtimes[i];
    return NULL;
}

dp_runtime *dpconn_add(const uint8_t cookie[IPC_GUID_SIZE])
{
    dp_runtime *r = NULL;
    size_t i;

    for (i = 0; i < DP_RUNTIMES_MAX && !r; i++)
        if (!dp_runtimes[i].id)
            r = &dp_runtimes[i];
    for (i = 0; i < DP_RUNTIMES_MAX && !r; i++) /* the oldest of those that ended */
        if (dp_runtimes[i].gone && !dp_runtimes[i].worker && dp_runtimes[i].held < 0 &&
            (!r || dp_runtimes[i].first_ns < r->first_ns))
            r = &dp_runtimes[i];
    if (!r)
        return NULL;
    memset(r, 0, sizeof(*r));
    r->id = dp_next_id++;
    memcpy(r->cookie, cookie, IPC_GUID_SIZE);
    r->held = -1;
    r->resumed_ms = -1;
    r->first_ns = (int64_t)clock_mono_ns();
    r->seen_ns = (int64_t)clock_real_ns();
    return r;
}

dp_runtime *dpconn_at(size_t i)
{
    return i < DP_RUNTIMES_MAX && dp_runtimes[i].id ? &dp_runtimes[i] : NULL;
}

int dpconn_queue(dp_runtime *r, int fd, int64_t accepted_ns)
{
    if (r->queued == DP_QUEUE)
        return -1;
    r->queue[r->queued] = fd;
    r->queued_ns[r->queued++] = accepted_ns;
    pthread_cond_broadcast(&dp_cond);
    return 0;
}

int dpconn_next(dp_runtime *r, int timeout_ms)
{
    struct timespec deadline;
    int fd = -1;

    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    dpconn_lock();
    while (!r->queued && !r->gone && pthread_cond_timedwait(&dp_cond, &dp_mutex, &deadline) == 0)
        ;
    if (r->queued) {
        fd = r->queue[0];
        memmove(r->queue, r->queue + 1, (size_t)(r->queued - 1) * sizeof(r->queue[0]));
        memmove(r->queued_ns, r->queued_ns + 1, (size_t)(r->queued - 1) * sizeof(r->queued_ns[0]));
        r->queued--;
    }
    dpconn_unlock();
    return fd;
}

void dpconn_hold(dp_runtime *r, int fd)
{
    dpconn_lock();
    if (r->held >= 0)
        close(r->held);
    r->held = fd;
    dpconn_unlock();
    if (dp_wake)
        dp_wake();
}

void dpconn_set_stopping(void)
{
    dp_stop_word = 1;
    dpconn_lock();
    pthread_cond_broadcast(&dp_cond);
    dpconn_unlock();
}

int dpconn_stopping(void)
{
    sigset_t pending;

    if (dp_stop_word)
        return 1;
    /* the main thread takes SIGINT/SIGTERM with sigwait; until it has, the
     * signal is pending for the process: the server is stopping already */
    return sigpending(&pending) == 0 &&
           (sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1);
}

int dpconn_wait_idle(int timeout_ms)
{
    struct timespec deadline;
    size_t i;
    int busy = 1;

    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000 + 1;
    dpconn_lock();
    while (busy) {
        busy = 0;
        for (i = 0; i < DP_RUNTIMES_MAX; i++)
            busy |= dp_runtimes[i].id && dp_runtimes[i].worker;
        if (busy && pthread_cond_timedwait(&dp_cond, &dp_mutex, &deadline) != 0)
            break;
    }
    dpconn_unlock();
    return busy ? -1 : 0;
}
