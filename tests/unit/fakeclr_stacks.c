/* fakeclr_stacks.c -- the fake CoreCLR's stacks: SuspendRuntime and
 * ResumeRuntime, EnumThreads (an enumerator the agent must release),
 * DoStackSnapshot of the threads the scenario lists, InitializeCurrentThread;
 * and the scenario itself (fake_scene), which says how each goes and counts
 * what the agent asked: suspended or not, from which thread, nested or not.
 *
 * The suspension callbacks are raised on the suspending thread, as the runtime
 * raises them, when the scenario names an object to raise them on. ResumeRuntime
 * may look at the agent's socket first (peek_fd): nothing of a walk may reach it
 * while the runtime is suspended. See fakeclr.h.
 */
#include "fakeclr.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "wire.h"

fake_scenario fake_scene = {.peek_fd = -1, .walkers_at_detach = -1};

void fake_note_call(void)
{
    if (atomic_load(&fake_scene.suspended) && atomic_load(&fake_scene.suspender) != my_tid())
        atomic_fetch_add(&fake_scene.foreign_calls, 1);
}

void fake_scene_clear(void)
{
    memset(&fake_scene, 0, sizeof(fake_scene));
    atomic_store(&fake_scene.peek_fd, -1);
    atomic_store(&fake_scene.walkers_at_detach, -1);
}

void fake_stacks_reset(void)
{
    memset(fake_scene.threads, 0, sizeof(fake_scene.threads));
    fake_scene.nthreads = 0;
    fake_scene.list_self = 0;
    atomic_store(&fake_scene.busy_left, 0);
    atomic_store(&fake_scene.suspend_sleep_ms, 0);
    atomic_store(&fake_scene.name_sleep_us, 0);
    atomic_store(&fake_scene.dynamic_thread, 0);
    atomic_store(&fake_scene.peek_fd, -1);
    atomic_store(&fake_scene.peek_done, 0);
    atomic_store(&fake_scene.peek_stack_frames, 0);
}

void fake_add_thread(ThreadID id, unsigned depth, HRESULT hr, unsigned sleep_ms)
{
    if (fake_scene.nthreads < FAKE_MAX_THREADS)
        fake_scene.threads[fake_scene.nthreads++] = (fake_thread_cfg){id, depth, hr, sleep_ms};
}

/* A thread enumerator the agent must Release (after ResumeRuntime). */
typedef struct fake_enum {
    ICorProfilerThreadEnum iface;
    _Atomic int refs;
    ThreadID ids[FAKE_MAX_THREADS + 1];
    ULONG count, pos;
} fake_enum;

static HRESULT STDMETHODCALLTYPE fenum_QueryInterface(ICorProfilerThreadEnum *self, REFIID riid,
                                                      void **out)
{
    (void)self, (void)riid;
    *out = NULL;
    return E_NOINTERFACE;
}
static ULONG STDMETHODCALLTYPE fenum_AddRef(ICorProfilerThreadEnum *self)
{
    return (ULONG)(atomic_fetch_add(&((fake_enum *)self)->refs, 1) + 1);
}
static ULONG STDMETHODCALLTYPE fenum_Release(ICorProfilerThreadEnum *self)
{
    int left = atomic_fetch_sub(&((fake_enum *)self)->refs, 1) - 1;

    if (left == 0) {
        if (atomic_load(&fake_scene.suspended))
            atomic_fetch_add(&fake_scene.enums_released_suspended, 1);
        atomic_fetch_sub(&fake_scene.enums_live, 1);
        free(self);
    }
    return (ULONG)left;
}
static HRESULT STDMETHODCALLTYPE fenum_Skip(ICorProfilerThreadEnum *self, ULONG celt)
{
    fake_enum *e = (fake_enum *)self;
    e->pos = e->pos + celt > e->count ? e->count : e->pos + celt;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE fenum_Reset(ICorProfilerThreadEnum *self)
{
    ((fake_enum *)self)->pos = 0;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE fenum_Clone(ICorProfilerThreadEnum *self,
                                             ICorProfilerThreadEnum **out)
{
    (void)self;
    *out = NULL;
    return E_NOTIMPL;
}
static HRESULT STDMETHODCALLTYPE fenum_GetCount(ICorProfilerThreadEnum *self, ULONG *n)
{
    *n = ((fake_enum *)self)->count;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE fenum_Next(ICorProfilerThreadEnum *self, ULONG celt,
                                            ThreadID ids[], ULONG *fetched)
{
    fake_enum *e = (fake_enum *)self;
    ULONG n = 0;

    while (n < celt && e->pos < e->count)
        ids[n++] = e->ids[e->pos++];
    if (fetched)
        *fetched = n;
    return n == celt ? S_OK : S_FALSE;
}

static const ICorProfilerThreadEnumVtbl fake_enum_vtbl = {
    .QueryInterface = fenum_QueryInterface,
    .AddRef = fenum_AddRef,
    .Release = fenum_Release,
    .Skip = fenum_Skip,
    .Reset = fenum_Reset,
    .Clone = fenum_Clone,
    .GetCount = fenum_GetCount,
    .Next = fenum_Next,
};

static HRESULT STDMETHODCALLTYPE info_EnumThreads(ICorProfilerInfo10 *self,
                                                  ICorProfilerThreadEnum **ppEnum)
{
    fake_enum *e;
    unsigned i;

    atomic_fetch_add(&rt_of_info(self)->enum_calls, 1);
    fake_note_call();
    *ppEnum = NULL;
    e = calloc(1, sizeof(*e));
    if (!e)
        return E_OUTOFMEMORY;
    e->iface.lpVtbl = &fake_enum_vtbl;
    atomic_init(&e->refs, 1);
    for (i = 0; i < fake_scene.nthreads; i++) {
        e->ids[e->count++] = fake_scene.threads[i].id;
        if (i == 0 && fake_scene.list_self) /* the walker, among the others */
            e->ids[e->count++] = FAKE_WALKER_ID(my_tid());
    }
    atomic_fetch_add(&fake_scene.enums_live, 1);
    *ppEnum = &e->iface;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_SuspendRuntime(ICorProfilerInfo10 *self)
{
    unsigned ms = atomic_load(&fake_scene.suspend_sleep_ms);

    (void)self;
    atomic_fetch_add(&fake_scene.suspend_calls, 1);
    if (atomic_load(&fake_scene.busy_left) > 0) {
        atomic_fetch_sub(&fake_scene.busy_left, 1);
        return CORPROF_E_SUSPENSION_IN_PROGRESS;
    }
    if (atomic_load(&fake_scene.suspended))
        atomic_fetch_add(&fake_scene.nested_suspends, 1);
    if (ms)
        sleep_ms(ms);
    if (atomic_load(&fake_scene.callbacks)) {
        ICorProfilerCallback11 *cb = atomic_load(&fake_scene.callbacks);
        cb->lpVtbl->RuntimeSuspendStarted(cb, COR_PRF_SUSPEND_FOR_PROFILER);
        cb->lpVtbl->RuntimeSuspendFinished(cb);
    }
    atomic_store(&fake_scene.suspender, my_tid());
    atomic_store(&fake_scene.suspended, 1);
    atomic_fetch_add(&fake_scene.suspend_ok, 1);
    return S_OK;
}

/* Counts the STACK_THREAD / STACK_END frames waiting, unread, in the socket. */
static int peek_stack_frames(int fd)
{
    static uint8_t buf[1 << 20];
    ssize_t n = recv(fd, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
    size_t off = 0;
    int found = 0;

    while (n > 0 && off + sizeof(wire_frame_header) <= (size_t)n) {
        wire_frame_header h;
        memcpy(&h, buf + off, sizeof(h));
        if (h.type == WIRE_STACK_THREAD || h.type == WIRE_STACK_END)
            found++;
        off += sizeof(h) + h.length;
    }
    return found;
}

static HRESULT STDMETHODCALLTYPE info_ResumeRuntime(ICorProfilerInfo10 *self)
{
    int fd = atomic_load(&fake_scene.peek_fd);

    (void)self;
    atomic_fetch_add(&fake_scene.resume_calls, 1);
    if (!atomic_load(&fake_scene.suspended) || atomic_load(&fake_scene.suspender) != my_tid()) {
        atomic_fetch_add(&fake_scene.bad_resumes, 1);
        return CORPROF_E_UNSUPPORTED_CALL_SEQUENCE;
    }
    if (fd >= 0) {
        /* still suspended: had anything of this walk been written into the ring,
         * the sender (5 ms poll) would have put it on the socket by now */
        sleep_ms(60);
        atomic_store(&fake_scene.peek_stack_frames, peek_stack_frames(fd));
        atomic_store(&fake_scene.peek_done, 1);
    }
    atomic_store(&fake_scene.suspended, 0);
    if (atomic_load(&fake_scene.callbacks)) {
        ICorProfilerCallback11 *cb = atomic_load(&fake_scene.callbacks);
        cb->lpVtbl->RuntimeResumeStarted(cb);
        if (atomic_load(&fake_scene.interleave)) { /* the next suspender gets in first */
            double deadline = now_s() + 2;
            atomic_store(&fake_scene.gc_go, 1);
            while (!atomic_load(&fake_scene.gc_started) && now_s() < deadline)
                sleep_ms(1);
        }
        cb->lpVtbl->RuntimeResumeFinished(cb);
        atomic_store(&fake_scene.gc_finish_go, 1);
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_DoStackSnapshot(ICorProfilerInfo10 *self, ThreadID thread,
                                                      StackSnapshotCallback *callback,
                                                      ULONG32 infoFlags, void *clientData,
                                                      BYTE context[], ULONG32 contextSize)
{
    const fake_thread_cfg *cfg = NULL;
    unsigned k, i;

    (void)self;
    if (infoFlags != COR_PRF_SNAPSHOT_DEFAULT || context || contextSize)
        atomic_fetch_add(&fake_scene.bad_walk_flags, 1);
    if (thread == 0) { /* the caller itself: the walker's harmless first call */
        atomic_fetch_add(&fake_scene.self_calls, 1);
        if (atomic_load(&fake_scene.suspended))
            atomic_fetch_add(&fake_scene.self_calls_suspended, 1);
        return S_OK;
    }
    if (!atomic_load(&fake_scene.suspended) || atomic_load(&fake_scene.suspender) != my_tid())
        atomic_fetch_add(&fake_scene.unsuspended_walks, 1);
    if (thread == FAKE_WALKER_ID(my_tid()))
        atomic_fetch_add(&fake_scene.self_walked, 1);
    for (k = 0; k < fake_scene.nthreads; k++)
        if (fake_scene.threads[k].id == thread)
            cfg = &fake_scene.threads[k];
    if (!cfg)
        return E_INVALIDARG;
    atomic_fetch_add(&fake_scene.walks, 1);
    atomic_store(&fake_scene.walking, thread);
    for (i = 0; i < cfg->depth; i++) {
        if (FAILED(callback(FAKE_FID(thread, i), FAKE_IP(thread, i), 0, 0, NULL, clientData))) {
            atomic_store(&fake_scene.walking, 0);
            return CORPROF_E_STACKSNAPSHOT_ABORTED; /* what the runtime says */
        }
    }
    if (cfg->sleep_ms) {
        sleep_ms(cfg->sleep_ms);
        atomic_store(&fake_scene.walk_end_ns, clock_ns(CLOCK_MONOTONIC));
    }
    atomic_store(&fake_scene.walking, 0);
    return cfg->hr;
}

static HRESULT STDMETHODCALLTYPE info_InitializeCurrentThread(ICorProfilerInfo10 *self)
{
    (void)self;
    atomic_fetch_add(&fake_scene.init_thread_calls, 1);
    return S_OK;
}

void fakeclr_stacks_slots(ICorProfilerInfo10Vtbl *v)
{
    v->EnumThreads = info_EnumThreads;
    v->InitializeCurrentThread = info_InitializeCurrentThread;
    v->SuspendRuntime = info_SuspendRuntime;
    v->ResumeRuntime = info_ResumeRuntime;
    v->DoStackSnapshot = info_DoStackSnapshot;
}
