/* unload.c -- module unloads wait, bounded, until their functions are named
 * (see unload.h).
 *
 * Requests live in a fixed table (no allocation on the app's thread), under
 * unload_mutex; the sender serves them holding the runtime lock (walk.h) for
 * the whole read-ahead. An app thread that gives up takes the runtime lock
 * first (bounded), so it gives up either before the sender started on its
 * request or after it finished, never in the middle of a look-up: the sender
 * checks unload_abandon between look-ups and lets go at once.
 */
#include "unload.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "agent.h"
#include "clock.h"
#include "naming.h"
#include "walk.h"

#define UNLOAD_SLOTS 16u
#define UNLOAD_LOCK_WAIT_MS 5000u /* giving up: longest wait for the runtime lock */

enum { UNLOAD_FREE, UNLOAD_WAITING, UNLOAD_SERVED };

typedef struct unload_request {
    uint64_t module, fence;
    int state;
} unload_request;

static pthread_mutex_t unload_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t unload_cond = PTHREAD_COND_INITIALIZER; /* a request was served */
static unload_request unload_requests[UNLOAD_SLOTS];
static _Atomic int unload_waiting; /* requests in UNLOAD_WAITING */
static _Atomic int unload_abandon; /* app threads giving up: the sender lets go */
static _Atomic int unload_open;    /* started and not finished */

uint64_t unload_generation(void) { return atomic_load(&agent.unload_gen); }

int unload_in_progress(void) { return atomic_load(&unload_open) > 0; }

/* The wait ran out (or there was no room to ask): give up on `fence`. */
static void unload_give_up(unload_request *r, uint64_t fence)
{
    struct timespec until = clock_deadline_ms(CLOCK_REALTIME, UNLOAD_LOCK_WAIT_MS);
    int locked;

    atomic_fetch_add(&unload_abandon, 1);
    locked = walk_runtime_timedlock(&until) == 0;
    pthread_mutex_lock(&unload_mutex);
    if (!r || r->state == UNLOAD_WAITING) {
        naming_unsafe_before(fence); /* under the runtime lock: no look-up is running */
        if (r)
            atomic_fetch_sub(&unload_waiting, 1);
    }
    if (r)
        r->state = UNLOAD_FREE;
    atomic_fetch_sub(&unload_abandon, 1);
    pthread_mutex_unlock(&unload_mutex);
    if (locked)
        walk_runtime_unlock();
}

void unload_begins(void)
{
    uint64_t fence = ring_head(&agent.ring) + 1, now = atomic_load(&agent.unload_fence);

    while (fence > now && !atomic_compare_exchange_weak(&agent.unload_fence, &now, fence))
        ;
}

void unload_started(uint64_t module)
{
    struct timespec until;
    unload_request *r = NULL;
    uint64_t fence;
    unsigned i;

    atomic_fetch_add(&agent.unload_gen, 1);
    atomic_fetch_add(&unload_open, 1);
    if (!atomic_load(&agent.sender_running) || !atomic_load(&agent.ring_ready))
        return;          /* nobody reads the ring later: nothing to wait for */
    walk_wait_emitted(); /* a stack walk's records, taken before, are in the ring first */
    fence = ring_head(&agent.ring);
    until = clock_deadline_ms(CLOCK_REALTIME, UNLOAD_WAIT_MS);
    pthread_mutex_lock(&unload_mutex);
    for (i = 0; i < UNLOAD_SLOTS && !r; i++)
        if (unload_requests[i].state == UNLOAD_FREE)
            r = &unload_requests[i];
    if (!r) {
        pthread_mutex_unlock(&unload_mutex);
        unload_give_up(NULL, fence);
        return;
    }
    *r = (unload_request){module, fence, UNLOAD_WAITING};
    atomic_fetch_add(&unload_waiting, 1);
    while (r->state == UNLOAD_WAITING && atomic_load(&agent.sender_running) &&
           pthread_cond_timedwait(&unload_cond, &unload_mutex, &until) != ETIMEDOUT)
        ;
    if (r->state == UNLOAD_SERVED) {
        r->state = UNLOAD_FREE;
        pthread_mutex_unlock(&unload_mutex);
        return;
    }
    pthread_mutex_unlock(&unload_mutex);
    unload_give_up(r, fence);
}

void unload_finished(uint64_t module)
{
    int open = atomic_load(&unload_open);

    (void)module;
    /* an unload that started before an attach finishes without having started here */
    while (open > 0 && !atomic_compare_exchange_weak(&unload_open, &open, open - 1))
        ;
    atomic_fetch_add(&agent.unload_gen, 1);
}

void unload_service(void)
{
    unload_request todo[UNLOAD_SLOTS];
    unsigned i, n = 0;

    if (atomic_load(&unload_waiting) == 0)
        return;
    walk_runtime_lock();
    pthread_mutex_lock(&unload_mutex);
    for (i = 0; i < UNLOAD_SLOTS; i++)
        if (unload_requests[i].state == UNLOAD_WAITING)
            todo[n++] = unload_requests[i];
    pthread_mutex_unlock(&unload_mutex);
    for (i = 0; i < n && !atomic_load(&unload_abandon); i++)
        naming_prepare(todo[i].fence, todo[i].module, &unload_abandon);
    pthread_mutex_lock(&unload_mutex);
    if (!atomic_load(&unload_abandon)) {
        for (i = 0; i < UNLOAD_SLOTS; i++) {
            unload_request *r = &unload_requests[i];
            unsigned k = 0;
            if (r->state != UNLOAD_WAITING)
                continue;
            /* a request that came in meanwhile was not read for: next round */
            while (k < n && !(todo[k].module == r->module && todo[k].fence == r->fence))
                k++;
            if (k == n)
                continue;
            naming_module_unloaded(r->module, r->fence);
            r->state = UNLOAD_SERVED;
            atomic_fetch_sub(&unload_waiting, 1);
        }
        pthread_cond_broadcast(&unload_cond);
    }
    pthread_mutex_unlock(&unload_mutex);
    walk_runtime_unlock();
}

void unload_sender_gone(void)
{
    pthread_mutex_lock(&unload_mutex);
    atomic_store(&agent.sender_running, 0);
    pthread_cond_broadcast(&unload_cond);
    pthread_mutex_unlock(&unload_mutex);
}
