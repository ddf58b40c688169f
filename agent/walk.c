/* walk.c -- one suspended walk of every managed thread (see walk.h).
 *
 * Order on the walker thread, all with the runtime lock held:
 *   SuspendRuntime (again, about 2 ms later and with the lock let go, while it
 *   answers SUSPENSION_IN_PROGRESS, at most max_retries times), EnumThreads
 *   (the runtime does not take its thread-store lock for it while a profiler
 *   holds the runtime suspended), then per listed thread GetThreadInfo and
 *   DoStackSnapshot(thread, NULL context) with frames going straight into the
 *   mapped buffers, then ResumeRuntime. The walker's own ThreadID, if the runtime
 *   lists it, is skipped. The thread enumerator is released only after the
 *   resume (its release frees memory). Records are written by walk_emit, after
 *   all that. GetThreadInfo is asked while suspended rather than after: it only
 *   reads the runtime's thread object (no lock, no allocation), and only then is
 *   the ThreadID sure to name a live thread.
 *
 * Truncation: a thread keeps at most WIRE_STACK_MAX_FRAMES frames and a walk at
 * most WIRE_STACK_MAX_TOTAL_FRAMES; the frame callback aborts the walk when its
 * share is full, so the frames kept are the leaf end. A walk we aborted that way
 * reports S_OK with WIRE_STACK_TRUNCATED, not the runtime's
 * CORPROF_E_STACKSNAPSHOT_ABORTED; any other result is reported as it came,
 * with the frames gathered before it. Threads past the total get no walk at all
 * (TRUNCATED, no frames); threads past WIRE_STACK_MAX_THREADS are only counted.
 *
 * The runtime lock. The sender thread calls into the runtime too: names
 * (GetFunctionInfo2, GetClassIDInfo2, GetModuleMetaData and IMetaDataImport),
 * catch-up enumerations, RequestProfilerDetach. Those calls take locks inside
 * the runtime (loader, metadata, thread store). If the sender were inside one
 * while we suspend the runtime, SuspendRuntime could wait for a lock the sender
 * holds, or the sender could wait inside the runtime for a lock held by an
 * application thread we have just stopped while our walk needs the same lock:
 * a deadlock with the application stopped. So both threads take this mutex
 * around their runtime calls: the walker from
 * before SuspendRuntime to after ResumeRuntime, the sender around each name or
 * enumeration step. It is never held across socket I/O or a wait on the other
 * thread; no application thread ever takes it, and the callbacks never do, so it
 * cannot make the application wait. Its cost is the sender waiting out one
 * suspended window (tens to hundreds of microseconds).
 *
 * The walked thread. A thread's ThreadID must stay valid while we walk it.
 * Removing a thread from the runtime needs the thread-store lock, which the
 * suspension holds until ResumeRuntime, so the runtime itself already keeps it;
 * in addition (the profiling API's rule) cb_ThreadDestroyed does not return
 * while its thread is the one published in walk_walking.
 */
#include "clock.h"
#include "walk.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "agent.h"
#include "emit.h"

#define WALK_RETRY_SLEEP_NS 2000000u       /* between SuspendRuntime attempts */
#define WALK_DESTROY_WAIT_NS 2000000000ull /* longest ThreadDestroyed wait */
#define WALK_DESTROY_SPINS 64              /* yields before it sleeps */
#define WALK_EMIT_WAIT_NS 500000000ull     /* per walk: waiting for ring room */
#define WALK_EMITTED_WAIT_MS 1000u         /* an unload waits at most this for a walk's records */

static pthread_mutex_t walk_runtime = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t walk_walking; /* ThreadID under DoStackSnapshot, 0 when none */
static ThreadID walk_self;            /* the walker's own ThreadID, 0 when it has none */
static pthread_t walk_pthread;        /* the walker thread, valid while walk_registered */
static _Atomic int walk_registered;
/* from a successful suspension until its records are in the ring: the frames
 * were alive when taken, and an unload that starts meanwhile waits for them */
static _Atomic int walk_emitting;

typedef struct walk_cursor {
    wire_stack_frame *out;
    uint32_t count, cap;
    int full; /* a frame was refused: the walk was aborted by us */
} walk_cursor;

void walk_runtime_lock(void) { pthread_mutex_lock(&walk_runtime); }
void walk_runtime_unlock(void) { pthread_mutex_unlock(&walk_runtime); }

int walk_runtime_timedlock(const struct timespec *until)
{
    return pthread_mutex_timedlock(&walk_runtime, until) == 0 ? 0 : -1;
}

void walk_wait_emitted(void)
{
    unsigned ms;

    for (ms = 0; atomic_load(&walk_emitting) && ms < WALK_EMITTED_WAIT_MS; ms++)
        clock_sleep_ns(1000000u);
}

walk_buffers *walk_buffers_map(void)
{
    void *p = mmap(NULL, sizeof(walk_buffers), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void walk_buffers_unmap(walk_buffers *b)
{
    if (b)
        munmap(b, sizeof(*b));
}

/* The runtime calls this per frame, leaf first, on the walker thread, while the
 * runtime is suspended: stores one frame, nothing else. */
static HRESULT STDMETHODCALLTYPE walk_frame(FunctionID funcId, UINT_PTR ip,
                                            COR_PRF_FRAME_INFO frameInfo, ULONG32 contextSize,
                                            BYTE context[], void *clientData)
{
    walk_cursor *c = clientData;

    (void)frameInfo, (void)contextSize, (void)context;
    if (c->count >= c->cap) {
        c->full = 1;
        return E_FAIL; /* abort: the leaf end is what we keep */
    }
    c->out[c->count].function_id = funcId;
    c->out[c->count].ip = ip;
    c->count++;
    return S_OK;
}

int walk_on_walker_thread(void)
{
    return atomic_load(&walk_registered) && pthread_equal(walk_pthread, pthread_self());
}

void walk_thread_exit(void) { atomic_store(&walk_registered, 0); }

void walk_thread_init(void)
{
    ICorProfilerInfo10 *info = agent.info;
    wire_stack_frame scratch[4];
    walk_cursor c = {.out = scratch, .cap = 4};
    ThreadID self = 0;

    walk_pthread = pthread_self();
    atomic_store(&walk_registered, 1);
    walk_runtime_lock();
    info->lpVtbl->InitializeCurrentThread(info);
    /* thread 0 is the caller; this thread runs no managed code, so the runtime
     * has nothing to walk: the point is its per-thread setup, done now rather
     * than during a suspension */
    info->lpVtbl->DoStackSnapshot(info, 0, walk_frame, COR_PRF_SNAPSHOT_DEFAULT, &c, NULL, 0);
    if (FAILED(info->lpVtbl->GetCurrentThreadID(info, &self)))
        self = 0;
    walk_runtime_unlock();
    walk_self = self;
}

uint32_t walk_current_thread(wire_stack_frame *out, uint32_t cap)
{
    walk_cursor c = {.out = out, .cap = cap};

    agent.info->lpVtbl->DoStackSnapshot(agent.info, 0, walk_frame, COR_PRF_SNAPSHOT_DEFAULT, &c,
                                        NULL, 0);
    return c.count;
}

/* One thread, while suspended. `used` frames of the walk are already taken. */
static void walk_one(walk_buffers *b, uint32_t index, ThreadID thread, uint32_t *used)
{
    ICorProfilerInfo10 *info = agent.info;
    walk_thread *w = &b->threads[index];
    uint32_t left = WIRE_STACK_MAX_TOTAL_FRAMES - *used;
    walk_cursor c = {.out = b->frames + *used,
                     .cap = left < WIRE_STACK_MAX_FRAMES ? left : WIRE_STACK_MAX_FRAMES};
    DWORD os = 0;
    uint64_t t0;
    HRESULT hr;

    memset(w, 0, sizeof(*w));
    w->thread_id = thread;
    w->first_frame = *used;
    atomic_store(&walk_walking, thread);
    if (SUCCEEDED(info->lpVtbl->GetThreadInfo(info, thread, &os)))
        w->os_thread_id = os;
    if (c.cap == 0) { /* the walk's total is spent: not walked */
        w->flags = WIRE_STACK_TRUNCATED;
        atomic_store(&walk_walking, 0);
        return;
    }
    t0 = clock_mono_ns();
    hr = info->lpVtbl->DoStackSnapshot(info, thread, walk_frame, COR_PRF_SNAPSHOT_DEFAULT, &c, NULL,
                                       0);
    w->walk_ns = clock_mono_ns() - t0;
    atomic_store(&walk_walking, 0);
    if (c.full) {
        w->flags = WIRE_STACK_TRUNCATED;
        if (hr == CORPROF_E_STACKSNAPSHOT_ABORTED)
            hr = S_OK; /* our own abort, not the runtime's failure */
    }
    w->hresult = hr;
    w->frame_count = c.count;
    *used += c.count;
}

int32_t walk_take(walk_buffers *b, unsigned max_retries, walk_result *r)
{
    ICorProfilerInfo10 *info = agent.info;
    ICorProfilerThreadEnum *e = NULL;
    ULONG got = 0, count = 0, i;
    uint32_t used = 0, listed_self = 0;
    HRESULT hr;

    memset(r, 0, sizeof(*r));
    walk_runtime_lock();
    r->start_ns = clock_mono_ns();
    for (;;) {
        hr = info->lpVtbl->SuspendRuntime(info);
        if (hr != CORPROF_E_SUSPENSION_IN_PROGRESS || r->retries >= max_retries)
            break;
        r->retries++;
        walk_runtime_unlock(); /* a GC is running: let the sender work meanwhile */
        clock_sleep_ns(WALK_RETRY_SLEEP_NS);
        walk_runtime_lock();
    }
    if (FAILED(hr)) {
        walk_runtime_unlock();
        r->hresult = hr;
        return hr;
    }
    atomic_store(&walk_emitting, 1);
    /* ---- suspended: only runtime calls and our own buffers until ResumeRuntime ---- */
    hr = info->lpVtbl->EnumThreads(info, &e);
    if (SUCCEEDED(hr) && e) {
        if (FAILED(e->lpVtbl->GetCount(e, &count)))
            count = 0;
        if (FAILED(e->lpVtbl->Next(e, WIRE_STACK_MAX_THREADS, b->ids, &got)) ||
            got > WIRE_STACK_MAX_THREADS)
            got = 0;
        for (i = 0; i < got; i++) {
            if (walk_self && b->ids[i] == walk_self) {
                listed_self = 1;
                continue;
            }
            walk_one(b, r->threads, b->ids[i], &used);
            r->walk_ns += b->threads[r->threads].walk_ns;
            r->threads++;
        }
        if (count < got)
            count = got;
        r->threads_total = count - listed_self;
    } else {
        r->hresult = FAILED(hr) ? hr : E_FAIL;
    }
    hr = info->lpVtbl->ResumeRuntime(info);
    /* ---- resumed ---- */
    r->suspend_ns = clock_mono_ns() - r->start_ns;
    walk_runtime_unlock();
    if (e)
        e->lpVtbl->Release(e);
    if (FAILED(hr) && SUCCEEDED(r->hresult))
        r->hresult = hr;
    if (FAILED(r->hresult))
        atomic_store(&walk_emitting, 0); /* a failed walk may be emitted, or not */
    return r->hresult;
}

/* Waits, within *budget_ns for the whole walk, until the ring has room for a
 * record of `bytes` (twice that, for a padding entry at the wrap). */
static void walk_wait_room(uint32_t bytes, uint64_t *budget_ns)
{
    uint64_t need = 2u * ((uint64_t)bytes + 16u);

    while (*budget_ns > 0 && atomic_load(&agent.ring_ready) &&
           agent.ring.capacity - ring_used_bytes(&agent.ring) < need) {
        clock_sleep_ns(1000000u);
        *budget_ns = *budget_ns > 1000000u ? *budget_ns - 1000000u : 0;
    }
}

void walk_emit(const walk_buffers *b, const walk_result *r, uint64_t snapshot_id, uint32_t kind,
               uint64_t request_id, uint32_t effective_millihz)
{
    wire_stack_end end;
    uint64_t budget = WALK_EMIT_WAIT_NS;
    uint32_t i;

    memset(&end, 0, sizeof(end));
    for (i = 0; i < r->threads; i++) {
        const walk_thread *w = &b->threads[i];
        wire_stack_thread t = {.snapshot_id = snapshot_id,
                               .thread_id = w->thread_id,
                               .os_thread_id = w->os_thread_id,
                               .hresult = w->hresult,
                               .walk_ns = w->walk_ns,
                               .frame_count = w->frame_count,
                               .flags = w->flags};
        uint32_t extra = w->frame_count * (uint32_t)sizeof(wire_stack_frame);

        walk_wait_room((uint32_t)(sizeof(wire_frame_header) + sizeof(t)) + extra, &budget);
        if (emit_record_at(WIRE_STACK_THREAD, 0, r->start_ns, &t, sizeof(t),
                           b->frames + w->first_frame, extra, NULL, 0) == 0)
            end.threads_sent++;
    }
    end.snapshot_id = snapshot_id;
    end.request_id = request_id;
    end.kind = kind;
    end.threads_total = r->threads_total;
    end.hresult = r->hresult;
    end.retries = r->retries;
    end.effective_millihz = effective_millihz;
    end.suspend_ns = r->suspend_ns;
    end.walk_ns = r->walk_ns;
    walk_wait_room((uint32_t)(sizeof(wire_frame_header) + sizeof(end)), &budget);
    emit_record_at(WIRE_STACK_END, 0, r->start_ns, &end, sizeof(end), NULL, 0, NULL, 0);
    atomic_store(&walk_emitting, 0);
}

void walk_emit_failed(uint64_t snapshot_id, uint32_t kind, uint64_t request_id, int32_t hresult)
{
    wire_stack_end end;

    memset(&end, 0, sizeof(end));
    end.snapshot_id = snapshot_id;
    end.request_id = request_id;
    end.kind = kind;
    end.hresult = hresult;
    emit_record(WIRE_STACK_END, 0, &end, sizeof(end), NULL, 0, NULL, 0);
}

void walk_thread_destroyed(ThreadID thread)
{
    uint64_t deadline;
    unsigned spins = 0;

    if (thread == 0 || atomic_load(&walk_walking) != thread)
        return; /* the usual path */
    deadline = clock_mono_ns() + WALK_DESTROY_WAIT_NS;
    while (atomic_load(&walk_walking) == thread && clock_mono_ns() < deadline) {
        if (spins++ < WALK_DESTROY_SPINS)
            sched_yield();
        else
            clock_sleep_ns(100000u);
    }
}
