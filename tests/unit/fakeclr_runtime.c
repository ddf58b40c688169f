/* fakeclr_runtime.c -- one fake CoreCLR runtime: the IUnknown Initialize
 * receives, the ICorProfilerInfo10 it hands out and that interface's vtable,
 * with the calls about the runtime itself (its version, the event masks, a
 * detach, the enumerations the agent tries); the helpers the fake and its
 * tests share (clocks, threads by name).
 *
 * The vtable's other slots come from fakeclr_stacks.c (suspension, walks),
 * fakeclr_names.c (names, code) and fakeclr_pipe.c (EventPipe, the tail of
 * the ICorProfilerInfo12 table that begins with ICorProfilerInfo10's, given
 * only when the scenario asks for it); every slot none of them fills stays
 * NULL.
 * See fakeclr.h.
 */
#include "fakeclr.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- small helpers ---- */

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t clock_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

pid_t my_tid(void) { return (pid_t)syscall(SYS_gettid); }

int threads_named(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int count = 0;

    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL) {
        char path[300], comm[64];
        FILE *f;

        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
        f = fopen(path, "r");
        if (!f)
            continue; /* the thread just ended */
        if (fgets(comm, sizeof(comm), f)) {
            comm[strcspn(comm, "\n")] = '\0';
            if (strcmp(comm, name) == 0)
                count++;
        }
        fclose(f);
    }
    closedir(d);
    return count;
}

int wait_threads_named(const char *name, int count, int timeout_ms)
{
    double deadline = now_s() + timeout_ms / 1000.0;
    int n;

    while ((n = threads_named(name)) != count && now_s() < deadline)
        sleep_ms(5);
    return n;
}

/* ---- the runtime's IUnknown and ICorProfilerInfo10 ---- */

static fake_runtime *rt_of_unk(IUnknown *u)
{
    return (fake_runtime *)(void *)((char *)u - offsetof(fake_runtime, unk));
}

static HRESULT STDMETHODCALLTYPE fake_qi(fake_runtime *rt, REFIID riid, void **out)
{
    if (!out)
        return E_POINTER;
    if (guid_eq(riid, &IID_ICorProfilerInfo10) || guid_eq(riid, &IID_ICorProfilerInfo9) ||
        guid_eq(riid, &IID_ICorProfilerInfo8) || guid_eq(riid, &IID_ICorProfilerInfo7) ||
        guid_eq(riid, &IID_ICorProfilerInfo6) || guid_eq(riid, &IID_ICorProfilerInfo5) ||
        guid_eq(riid, &IID_ICorProfilerInfo4) || guid_eq(riid, &IID_ICorProfilerInfo3) ||
        guid_eq(riid, &IID_ICorProfilerInfo2) || guid_eq(riid, &IID_ICorProfilerInfo)) {
        *out = &rt->info;
        atomic_fetch_add(&rt->refs, 1);
        atomic_fetch_add(&rt->info10_handed_out, 1);
        return S_OK;
    }
    if (guid_eq(riid, &IID_IUnknown)) {
        *out = &rt->unk;
        atomic_fetch_add(&rt->refs, 1);
        return S_OK;
    }
    if (guid_eq(riid, &IID_ICorProfilerInfo12)) { /* the tier source: if the test wants it */
        atomic_fetch_add(&rt->info12_asked, 1);
        if (atomic_load(&fake_scene.pipe)) {
            *out = &rt->info; /* its vtable is the head of an ICorProfilerInfo12 one */
            atomic_fetch_add(&rt->refs, 1);
            return S_OK;
        }
        *out = NULL;
        return E_NOINTERFACE;
    }
    atomic_fetch_add(&rt->unexpected_qi, 1);
    *out = NULL;
    return E_NOINTERFACE;
}

static HRESULT STDMETHODCALLTYPE unk_QueryInterface(IUnknown *self, REFIID riid, void **out)
{
    atomic_fetch_add(&rt_of_unk(self)->unk_qi_calls, 1);
    return fake_qi(rt_of_unk(self), riid, out);
}
static ULONG STDMETHODCALLTYPE unk_AddRef(IUnknown *self)
{
    return (ULONG)(atomic_fetch_add(&rt_of_unk(self)->refs, 1) + 1);
}
static ULONG STDMETHODCALLTYPE unk_Release(IUnknown *self)
{
    return (ULONG)(atomic_fetch_sub(&rt_of_unk(self)->refs, 1) - 1);
}

static HRESULT STDMETHODCALLTYPE info_QueryInterface(ICorProfilerInfo10 *self, REFIID riid,
                                                     void **out)
{
    return fake_qi(rt_of_info(self), riid, out);
}
static ULONG STDMETHODCALLTYPE info_AddRef(ICorProfilerInfo10 *self)
{
    return (ULONG)(atomic_fetch_add(&rt_of_info(self)->refs, 1) + 1);
}
static ULONG STDMETHODCALLTYPE info_Release(ICorProfilerInfo10 *self)
{
    return (ULONG)(atomic_fetch_sub(&rt_of_info(self)->refs, 1) - 1);
}

static HRESULT STDMETHODCALLTYPE info_GetRuntimeInformation(
    ICorProfilerInfo10 *self, USHORT *pClrInstanceId, COR_PRF_RUNTIME_TYPE *pRuntimeType,
    USHORT *pMajorVersion, USHORT *pMinorVersion, USHORT *pBuildNumber, USHORT *pQFEVersion,
    ULONG cchVersionString, ULONG *pcchVersionString, WCHAR szVersionString[])
{
    static const char version[] = "10.0.1";
    fake_runtime *rt = rt_of_info(self);
    ULONG i;

    atomic_fetch_add(&rt->runtime_info_calls, 1);
    if (pClrInstanceId)
        *pClrInstanceId = rt->instance_id;
    if (pRuntimeType)
        *pRuntimeType = COR_PRF_CORE_CLR;
    if (FAILED(rt->runtime_info_result))
        return rt->runtime_info_result;
    if (pMajorVersion)
        *pMajorVersion = rt->major;
    if (pMinorVersion)
        *pMinorVersion = rt->minor;
    if (pBuildNumber)
        *pBuildNumber = rt->build;
    if (pQFEVersion)
        *pQFEVersion = 0;
    if (pcchVersionString)
        *pcchVersionString = sizeof(version);
    if (szVersionString && cchVersionString) {
        for (i = 0; i < cchVersionString && i < sizeof(version); i++)
            szVersionString[i] = (WCHAR)version[i];
        szVersionString[cchVersionString - 1 < sizeof(version) - 1 ? cchVersionString - 1
                                                                   : sizeof(version) - 1] = 0;
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_SetEventMask(ICorProfilerInfo10 *self, DWORD dwEvents)
{
    fake_runtime *rt = rt_of_info(self);

    atomic_store(&rt->mask, dwEvents);
    atomic_fetch_add(&rt->set_mask_calls, 1);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_SetEventMask2(ICorProfilerInfo10 *self, DWORD dwEventsLow,
                                                    DWORD dwEventsHigh)
{
    fake_runtime *rt = rt_of_info(self);

    atomic_store(&rt->mask, dwEventsLow);
    atomic_store(&rt->mask_high, dwEventsHigh);
    atomic_fetch_add(&rt->set_mask_calls, 1);
    return S_OK;
}

/* what the runtime answers: the masks last set (the agent reports them in its hello) */
static HRESULT STDMETHODCALLTYPE info_GetEventMask2(ICorProfilerInfo10 *self, DWORD *pdwEventsLow,
                                                    DWORD *pdwEventsHigh)
{
    fake_runtime *rt = rt_of_info(self);

    if (!pdwEventsLow || !pdwEventsHigh)
        return E_INVALIDARG;
    *pdwEventsLow = atomic_load(&rt->mask);
    *pdwEventsHigh = atomic_load(&rt->mask_high);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetCurrentThreadID(ICorProfilerInfo10 *self,
                                                         ThreadID *pThreadId)
{
    (void)self;
    if (pThreadId)
        *pThreadId = FAKE_WALKER_ID(my_tid());
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetThreadInfo(ICorProfilerInfo10 *self, ThreadID threadId,
                                                    DWORD *pdwWin32ThreadId)
{
    (void)self;
    fake_note_call();
    if (!pdwWin32ThreadId)
        return E_POINTER;
    *pdwWin32ThreadId = FAKE_OS_TID(threadId);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_RequestProfilerDetach(ICorProfilerInfo10 *self,
                                                            DWORD dwExpectedCompletionMilliseconds)
{
    fake_runtime *rt = rt_of_info(self);

    fake_note_call();
    atomic_store(&fake_scene.walkers_at_detach, threads_named("jitscope-walk"));
    atomic_store(&rt->detach_expected_ms, dwExpectedCompletionMilliseconds);
    atomic_store(&rt->detach_tid, my_tid());
    if (pthread_getname_np(pthread_self(), rt->detach_thread_name,
                           sizeof(rt->detach_thread_name)) != 0)
        rt->detach_thread_name[0] = '\0';
    atomic_fetch_add(&rt->detach_calls, 1);
    return atomic_load(&rt->detach_result);
}

static HRESULT STDMETHODCALLTYPE info_EnumModules(ICorProfilerInfo10 *self,
                                                  ICorProfilerModuleEnum **ppEnum)
{
    fake_note_call();
    atomic_fetch_add(&rt_of_info(self)->enum_calls, 1);
    if (ppEnum)
        *ppEnum = NULL;
    return E_FAIL;
}
static HRESULT STDMETHODCALLTYPE info_EnumJITedFunctions2(ICorProfilerInfo10 *self,
                                                          ICorProfilerFunctionEnum **ppEnum)
{
    atomic_fetch_add(&rt_of_info(self)->enum_calls, 1);
    if (ppEnum)
        *ppEnum = NULL;
    return E_FAIL;
}

/* The slots this file fills; fake_init adds fakeclr_stacks.c's and
 * fakeclr_names.c's, once. Every other slot stays NULL: a call through one of
 * them is a crash, i.e. the agent called the runtime where the tests say it
 * must not. */
static ICorProfilerInfo12Vtbl fake_info_vtbl = {
    .info10 = {
        .QueryInterface = info_QueryInterface,
        .AddRef = info_AddRef,
        .Release = info_Release,
        .GetThreadInfo = info_GetThreadInfo,
        .GetCurrentThreadID = info_GetCurrentThreadID,
        .SetEventMask = info_SetEventMask,
        .RequestProfilerDetach = info_RequestProfilerDetach,
        .EnumModules = info_EnumModules,
        .GetRuntimeInformation = info_GetRuntimeInformation,
        .EnumJITedFunctions2 = info_EnumJITedFunctions2,
        .SetEventMask2 = info_SetEventMask2,
        .GetEventMask2 = info_GetEventMask2,
    }};
static pthread_once_t fake_info_vtbl_once = PTHREAD_ONCE_INIT;

static void fake_info_vtbl_fill(void)
{
    fakeclr_stacks_slots(&fake_info_vtbl.info10);
    fakeclr_names_slots(&fake_info_vtbl.info10);
    fakeclr_pipe_slots(&fake_info_vtbl);
}

static const IUnknownVtbl fake_unk_vtbl = {
    .QueryInterface = unk_QueryInterface,
    .AddRef = unk_AddRef,
    .Release = unk_Release,
};

void fake_init(fake_runtime *rt, uint16_t instance_id)
{
    pthread_once(&fake_info_vtbl_once, fake_info_vtbl_fill);
    memset(rt, 0, sizeof(*rt));
    rt->info.lpVtbl = &fake_info_vtbl.info10;
    rt->unk.lpVtbl = &fake_unk_vtbl;
    rt->instance_id = instance_id;
    rt->major = 10, rt->minor = 0, rt->build = 1;
    atomic_init(&rt->refs, 1);
    atomic_init(&rt->detach_result, S_OK);
}
