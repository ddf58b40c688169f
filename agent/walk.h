/* walk.h -- one walk of every managed thread's stack, and its records.
 *
 * walk_take runs on the agent's walker thread (stacks.c) only: SuspendRuntime,
 * EnumThreads, DoStackSnapshot per thread into buffers mapped beforehand,
 * ResumeRuntime. Between suspend and resume it allocates nothing, takes no
 * lock an application thread may hold, writes nothing to the ring or the socket
 * and resolves no names. walk_emit sends the result afterwards (records
 * WIRE_STACK_THREAD ... WIRE_STACK_END, docs/PROTOCOL.md).
 *
 * Also here, because both guard the suspended window:
 *  - the runtime lock: the agent's own threads (walker, sender) make their
 *    calls into the runtime one thread at a time (see walk_runtime_lock);
 *  - the walked thread: cb_ThreadDestroyed waits while its thread is walked. */
#ifndef JITSCOPE_WALK_H
#define JITSCOPE_WALK_H

#include <stdint.h>

#include <time.h>

#include "corprof.h"
#include "wire.h"

/* One thread of a walk. Its frames are frames[first_frame .. +frame_count). */
typedef struct walk_thread {
    uint64_t thread_id;
    uint64_t walk_ns;
    uint32_t os_thread_id;
    int32_t hresult;
    uint32_t first_frame;
    uint32_t frame_count;
    uint32_t flags; /* wire_stack_thread_flags */
    uint32_t reserved;
} walk_thread;

/* The buffers of one walk, mapped once when the walker starts (about 2.4 MiB). */
typedef struct walk_buffers {
    ThreadID ids[WIRE_STACK_MAX_THREADS];
    walk_thread threads[WIRE_STACK_MAX_THREADS];
    wire_stack_frame frames[WIRE_STACK_MAX_TOTAL_FRAMES];
} walk_buffers;

typedef struct walk_result {
    uint64_t start_ns;      /* SuspendRuntime was first called */
    uint64_t suspend_ns;    /* from then until ResumeRuntime returned; 0 if never suspended */
    uint64_t walk_ns;       /* sum of the threads' walks */
    uint32_t threads;       /* entries filled in buffers->threads */
    uint32_t threads_total; /* threads the runtime listed, the walker itself not counted */
    uint32_t retries;       /* SuspendRuntime said SUSPENSION_IN_PROGRESS this often */
    int32_t hresult;        /* SuspendRuntime / EnumThreads / ResumeRuntime failure, else S_OK */
} walk_result;

walk_buffers *walk_buffers_map(void); /* NULL when the memory cannot be had */
void walk_buffers_unmap(walk_buffers *b);

/* Once on the walker thread, before its first walk: per-thread runtime setup
 * (InitializeCurrentThread and one harmless DoStackSnapshot of itself), and our
 * own ThreadID, if the runtime gave us one, so the walk skips it. */
void walk_thread_init(void);

/* One suspended walk. max_retries bounds the SuspendRuntime attempts refused with
 * CORPROF_E_SUSPENSION_IN_PROGRESS (about 2 ms apart). Returns r->hresult. */
int32_t walk_take(walk_buffers *b, unsigned max_retries, walk_result *r);

/* The walk's records, after ResumeRuntime: one WIRE_STACK_THREAD per thread,
 * then WIRE_STACK_END. Waits (bounded) for room in the ring rather than drop a
 * thread's record. */
void walk_emit(const walk_buffers *b, const walk_result *r, uint64_t snapshot_id, uint32_t kind,
               uint64_t request_id, uint32_t effective_millihz);

/* A WIRE_STACK_END for a request that was not walked at all (hresult says why). */
void walk_emit_failed(uint64_t snapshot_id, uint32_t kind, uint64_t request_id, int32_t hresult);

/* Thread identity of the walker (gctimeline.c tells our suspensions from the
 * runtime's by it). walk_thread_init registers the calling thread as the
 * walker, walk_thread_exit unregisters it. */
int walk_on_walker_thread(void);
void walk_thread_exit(void);
/* The calling thread's own managed frames, leaf first, at most cap of them
 * (the leaf end kept), walked by DoStackSnapshot without a suspension (a
 * thread may walk itself): an application thread's sampled exception
 * (exceptions.c). Returns how many were stored. */
uint32_t walk_current_thread(wire_stack_frame *out, uint32_t cap);

/* cb_ThreadDestroyed: returns once `thread` is not being walked (bounded wait).
 * On the usual path one atomic load. */
void walk_thread_destroyed(ThreadID thread);

/* The runtime lock (see walk.c for why): taken only by agent threads. */
void walk_runtime_lock(void);
void walk_runtime_unlock(void);

/* The runtime lock, waiting until the CLOCK_REALTIME time `until` at most.
 * Returns 0 (held) or -1. */
int walk_runtime_timedlock(const struct timespec *until);

/* Waits (at most WALK_EMITTED_WAIT_MS) until a stack walk already taken has
 * put its records in the ring (unload.c: they go before its fence). */
void walk_wait_emitted(void);

#endif
