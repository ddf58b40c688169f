/* test_sidebyside.c -- the built agent library against a fake CoreCLR, in-process.
 *
 * dlopen()s the real agent (JITSCOPE_AGENT_SO, default build/libjitscope_agent.so
 * relative to the cwd, which is the repo root under tests/run.sh) and plays the
 * runtime: class factory, profiler objects, Initialize / InitializeForAttach /
 * Shutdown / ProfilerDetachSucceeded, with a fake ICorProfilerInfo10 whose vtable
 * fills only the slots the agent calls on these paths (including a fake
 * SuspendRuntime / EnumThreads / DoStackSnapshot / ResumeRuntime whose threads
 * and frames each test sets up, and names through GetFunctionInfo2 and a fake
 * IMetaDataImport: method token T is named "M_<T in hex>"). The test itself is the
 * jitscope server: it listens on the Unix socket named by JITSCOPE_SOCKET (in a
 * mkdtemp directory) and reads the agent's frames with the wire.h structs.
 *
 * The agent is one per process, so each test claims it for itself (runtime A
 * starts, its agent connects and says hello: a_up) and gives it back (a
 * detach: release_claim, after each test); the fake's scenario starts anew
 * before each. A test therefore runs alone and in any order (CHECK_SHUFFLE).
 * Tests:
 *   exports            only DllGetClassObject is exported (nm -D, dlsym), NEEDED
 *                      is libc only, WIRE_CLSID_STRING matches WIRE_CLSID_INIT
 *   class_factory      DllGetClassObject / IClassFactory / CreateInstance /
 *                      QueryInterface / AddRef / Release, all 98 callback slots set
 *   bad_config         Initialize without a valid token, InitializeForAttach with
 *                      foreign client data: refused, the runtime is not touched,
 *                      nothing claimed
 *   too_old            a runtime that says 4.0.30319 (.NET Core 3.1 and older) or
 *                      3.1.3, or no version: Initialize and InitializeForAttach
 *                      -> CORPROF_E_PROFILER_CANCEL_ACTIVATION, a message on stderr
 *                      with the version and ".NET 5 or later", no mask, no thread,
 *                      no connection, no reference kept, nothing claimed
 *   attach_race        300 trials (JITSCOPE_TEST_ATTACH_RACE=<trials> for more): two
 *                      runtimes attach at once with different client data; the
 *                      winner's hello must carry the winner's token (the agent
 *                      claims before it copies client data, see lifecycle.c)
 *   side_by_side       runtime A: Initialize -> S_OK, SetEventMask2 (JIT, modules,
 *                      assemblies, threads, suspensions, stack snapshot; high mask
 *                      BASIC_GC; nothing immutable; all allowed after attach),
 *                      hello frame (token, 10.0.1, pid, mode, ring size),
 *                      records flow; runtime B: Initialize and InitializeForAttach
 *                      -> CORPROF_E_PROFILER_CANCEL_ACTIVATION, B's runtime never
 *                      queried, no second connection in 300 ms; B's Shutdown /
 *                      ProfilerDetachSucceeded do not disturb A (ping answered)
 *   gc_timeline        GC and suspension callbacks -> GC_STARTED (generation mask,
 *                      reason), RUNTIME_SUSPEND phases (each with the reason),
 *                      GC_FINISHED, in order; the lone ends of a GC / suspension
 *                      begun before are ignored
 *   jit_info           JITInlining -> INLINING (caller, callee, the thread's
 *                      ThreadID), the cache searches -> CODE_SEARCH (started,
 *                      found, not found); the runtime's answers never changed;
 *                      the time a JITInlining call takes (a ring write), printed
 *   snapshot           WIRE_CMD_SNAPSHOT: one SuspendRuntime, EnumThreads, a walk
 *                      per thread (not the walker's own), one ResumeRuntime; frames
 *                      leaf first with native runs kept, E_FAIL kept with its
 *                      frames, 600 deep -> 512 + TRUNCATED; STACK_END with
 *                      request_id, counts, suspend_ns; every FunctionID named
 *                      before its STACK_THREAD; nothing on the socket while
 *                      suspended; the walker's harmless self-walk came first
 *   suspend_interleave  our suspension's records and a GC's interleave both ways
 *                      (the fake raises the suspension callbacks on the suspending
 *                      thread); every phase carries its own suspension's reason
 *   snapshot_naming_lock  the sender names slowly while the walker suspends: no
 *                      sender call into the runtime during the suspension
 *   snapshot_dynamic   frames the runtime says are dynamic methods (its real walks
 *                      never report any): the sender asks nothing more about them
 *                      (no GetDynamicFunctionInfo: a collected one's name and
 *                      signature are freed memory), sends them without a name
 *                      and counts each once in WIRE_DROP_NAME_LATE; the other
 *                      frames are named as before
 *   snapshot_retries   SUSPENSION_IN_PROGRESS x3 -> retries 3; forever -> the
 *                      HRESULT in STACK_END, no ResumeRuntime without a suspension
 *   thread_destroyed_waits  ThreadDestroyed of the thread being walked returns
 *                      after its walk; of another thread at once
 *   profile            PROFILE_START 50 Hz: STARTED, ~50 samples/s with the rate,
 *                      a snapshot served between samples, STOPPED with the counts;
 *                      a profile with a duration stops by itself
 *   profile_budget     a 5 ms SuspendRuntime at 100 Hz, 2% budget -> RATE status
 *                      with ~3.6 Hz, samples follow it
 *   profile_link_lost  the server that started a profile closes the connection:
 *                      the agent connects again and sampling has stopped
 *   detach             WIRE_CMD_DETACH refused by the runtime -> DETACH_STATUS
 *                      REFUSED, agent carries on (its idle walker thread joined
 *                      first); then, while sampling, WIRE_CMD_DETACH -> STOPPED,
 *                      no walker thread left, RequestProfilerDetach on the agent's
 *                      thread, DETACH_STATUS
 *                      REQUESTED, the thread leaves by itself;
 *                      ProfilerDetachSucceeded -> DETACH_STATUS SUCCEEDED last, the
 *                      connection already closed when it returns, ICorProfilerInfo
 *                      released
 *   reclaim            after A's detach the claim is free again: runtime C (a
 *                      third object) Initialize -> S_OK, fresh hello (new token,
 *                      seq 1), walks numbered from 1 again; A's late Shutdown
 *                      harmless; B, declined beside A, untouched
 *   shutdown           C samples; C's Shutdown: PROFILE_STATUS STOPPED, the
 *                      connection closes within 3 s (in fact before Shutdown
 *                      returns), last frame WIRE_DROPS, the "jitscope-agent" and
 *                      "jitscope-walk" threads are gone; object released. A
 *                      Shutdown keeps the claim, as the process ends after it:
 *                      this test runs in a child process (in_child).
 * A watchdog ends the run with a failure if an agent call hangs (40 s in a test).
 *
 * Build: make build/tests/test_sidebyside (needs `make all` for the agent .so).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#if defined(__SANITIZE_ADDRESS__)
/* ASan's public interface (sanitizer/allocator_interface.h, not always installed) */
size_t __sanitizer_get_current_allocated_bytes(void);
#endif
#include "corprof.h"
#include "wire.h"

#define AGENT_THREAD_NAME "jitscope-agent"
#define TOKEN_A "0123456789abcdef0123456789ABCDEF"
#define TOKEN_C "fedcba9876543210fedcba9876543210"
#define RING_BYTES 65536u

/* The CoreCLR values, written out independently of corprof.h. */
#define REAL_MONITOR_MODULE_LOADS 0x00000004u
#define REAL_MONITOR_ASSEMBLY_LOADS 0x00000008u
#define REAL_MONITOR_JIT_COMPILATION 0x00000020u
#define REAL_MONITOR_THREADS 0x00000200u
#define REAL_MONITOR_ENTERLEAVE 0x00001000u
#define REAL_MONITOR_SUSPENDS 0x00010000u
#define REAL_MONITOR_CACHE_SEARCHES 0x00020000u
#define REAL_ENABLE_STACK_SNAPSHOT 0x10000000u
#define REAL_HIGH_BASIC_GC 0x00000010u
#define REAL_HIGH_MONITOR_EVENT_PIPE 0x00000080u
/* COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH of .NET 5 and later (in-memory symbols,
 * dynamic function unloads, basic GC, moved objects, large objects, EventPipe)
 * and COR_PRF_HIGH_MONITOR_IMMUTABLE (disable tiered compilation). */
#define REAL_HIGH_ALLOWABLE_AFTER_ATTACH 0x000000F6u
#define REAL_HIGH_IMMUTABLE 0x00000008u
/* The strictest COR_PRF_ALLOWABLE_AFTER_ATTACH any runtime version has had
 * (.NET Framework 4's: threads, module/assembly/appdomain loads, stack snapshot,
 * GC, suspends, class loads, JIT compilation) and the widest
 * COR_PRF_MONITOR_IMMUTABLE (including DISABLE_INLINING / DISABLE_OPTIMIZATIONS,
 * which older runtimes treat as immutable). */
#define REAL_ALLOWABLE_AFTER_ATTACH_MIN                                                            \
    (0x00000200u /* threads */ | 0x00000004u /* module loads */ |                                  \
     0x00000008u /* assembly loads */ | 0x00000010u /* appdomain loads */ |                        \
     0x10000000u /* stack snapshot */ | 0x00000080u /* GC */ | 0x00010000u /* suspends */ |        \
     0x00000002u /* class loads */ | 0x00000020u /* JIT compilation */)
#define REAL_IMMUTABLE_MAX                                                                         \
    (0x00000800u /* code transitions */ | 0x00000400u /* remoting */ |                             \
     0x00004400u /* remoting cookie */ | 0x00008400u /* remoting async */ |                        \
     0x00080000u /* inproc debugging */ | 0x00100000u /* JIT maps */ |                             \
     0x00400000u /* disable optimizations */ | 0x00200000u /* disable inlining */ |                \
     0x00800000u /* enable object allocated */ | 0x02000000u /* function args */ |                 \
     0x04000000u /* function retval */ | 0x08000000u /* frame info */ |                            \
     0x20000000u /* profile images */ | 0x40000000u /* transparency checks */ |                    \
     0x80000000u /* disable all NGEN images */)

typedef HRESULT (*dll_get_class_object_fn)(const GUID *, const GUID *, void **);

static const GUID agent_clsid = WIRE_CLSID_INIT;
static const GUID other_clsid = {
    0x12345678u, 0x1234u, 0x5678u, {0x9A, 0xBC, 0xDE, 0xF0, 0x12, 0x34, 0x56, 0x78}};

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t clock_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static pid_t my_tid(void) { return (pid_t)syscall(SYS_gettid); }

/* Threads of this process whose /proc comm is `name`. */
static int threads_named(const char *name)
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

/* Waits (up to timeout_ms) until `count` threads are named `name`. */
static int wait_threads_named(const char *name, int count, int timeout_ms)
{
    double deadline = now_s() + timeout_ms / 1000.0;
    int n;

    while ((n = threads_named(name)) != count && now_s() < deadline)
        sleep_ms(5);
    return n;
}

/* ------------------------------------------------------------------------ */
/* The fake runtime: an IUnknown that hands out a fake ICorProfilerInfo10     */
/* ------------------------------------------------------------------------ */

typedef struct fake_runtime {
    ICorProfilerInfo10 info; /* first: an ICorProfilerInfo10 * is a fake_runtime * */
    IUnknown unk;            /* what Initialize receives */
    uint16_t instance_id;
    uint16_t major, minor, build; /* what GetRuntimeInformation says (fake_init: 10.0.1) */
    HRESULT runtime_info_result;  /* and returns (S_OK) */
    _Atomic int refs;             /* shared by unk and info; the runtime itself holds 1 */
    _Atomic int unk_qi_calls, info10_handed_out, runtime_info_calls, set_mask_calls;
    _Atomic int detach_calls, enum_calls, unexpected_qi, info12_asked;
    _Atomic DWORD mask, mask_high;
    _Atomic DWORD detach_expected_ms;
    _Atomic pid_t detach_tid;
    char detach_thread_name[32]; /* written by the agent's thread before detach_calls++ */
    _Atomic HRESULT detach_result;
} fake_runtime;

static fake_runtime *rt_of_unk(IUnknown *u)
{
    return (fake_runtime *)(void *)((char *)u - offsetof(fake_runtime, unk));
}
static fake_runtime *rt_of_info(ICorProfilerInfo10 *i) { return (fake_runtime *)(void *)i; }

/* What the fake says about frames: frame i (0 = leaf) of the thread whose
 * ThreadID is t (a small number, so every test has its own FunctionIDs).
 * Every frame with i % 7 == 3 is a run of native code (FunctionID 0). */
#define FAKE_FID(t, i) ((i) % 7 == 3 ? (FunctionID)0 : (FunctionID)(((t) << 12) + (i)))
#define FAKE_IP(t, i) ((UINT_PTR)0x7f0000000000ull + ((UINT_PTR)(t) << 16) + (UINT_PTR)(i)*0x10u)
#define FAKE_TOKEN(fid) ((mdToken)(0x06000000u | ((fid)&0x00FFFFFFu)))
#define FAKE_MODULE ((ModuleID)0x4D4F44u)
#define FAKE_MAX_THREADS 8
#define FAKE_WALKER_ID(tid) ((ThreadID)0x7000u + (ThreadID)(unsigned)(tid))

typedef struct fake_thread_cfg {
    ThreadID id;
    unsigned depth;    /* frames the fake reports */
    HRESULT hr;        /* what DoStackSnapshot returns (unless the walk is aborted) */
    unsigned sleep_ms; /* the walk of this thread takes this long */
} fake_thread_cfg;

/* One scenario at a time: the test thread sets it up before sending a command
 * (the socket and the agent's hand-over order it before the walker reads it). */
static struct {
    fake_thread_cfg threads[FAKE_MAX_THREADS];
    unsigned nthreads;
    int list_self;                     /* EnumThreads also lists the caller (the walker) */
    _Atomic int busy_left;             /* SuspendRuntime says IN_PROGRESS this often first */
    _Atomic unsigned suspend_sleep_ms; /* a slow SuspendRuntime */
    _Atomic unsigned name_sleep_us;    /* a slow GetFunctionInfo2 */
    _Atomic ThreadID dynamic_thread;   /* this thread's frames are dynamic methods (0: none) */
    _Atomic int dynamic_info_calls;    /* GetDynamicFunctionInfo calls */
    _Atomic int suspended;
    _Atomic pid_t suspender;
    _Atomic int suspend_calls, suspend_ok, resume_calls, bad_resumes, nested_suspends;
    _Atomic int foreign_calls;     /* runtime calls of another thread while suspended */
    _Atomic int unsuspended_walks; /* another thread walked while not suspended */
    _Atomic int self_calls, self_calls_suspended, self_walked, init_thread_calls;
    _Atomic int walks, enums_live, enums_released_suspended, bad_walk_flags;
    _Atomic ThreadID walking;     /* the thread a walk is in */
    _Atomic uint64_t walk_end_ns; /* when the last slow walk ended */
    _Atomic int peek_fd;          /* >= 0: ResumeRuntime looks at the socket first */
    _Atomic int peek_stack_frames, peek_done;
    _Atomic int walkers_at_detach; /* "jitscope-walk" threads when detach was asked */
    /* suspension callbacks, raised on the suspending thread like the runtime does */
    ICorProfilerCallback11 *_Atomic callbacks; /* NULL: none */
    _Atomic int interleave; /* ResumeRuntime lets a "GC" start before it finishes */
    _Atomic int gc_go, gc_started, gc_finish_go;
} fs = {.peek_fd = -1, .walkers_at_detach = -1};

static void fake_note_call(void)
{
    if (atomic_load(&fs.suspended) && atomic_load(&fs.suspender) != my_tid())
        atomic_fetch_add(&fs.foreign_calls, 1);
}

static int guid_eq(const GUID *a, const GUID *b) { return memcmp(a, b, sizeof(GUID)) == 0; }

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
    if (guid_eq(riid, &IID_ICorProfilerInfo12)) { /* the tier source: this fake has none */
        atomic_fetch_add(&rt->info12_asked, 1);
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
        *pThreadId = (ThreadID)0x7000u + (ThreadID)(unsigned)my_tid();
    return S_OK;
}

/* OS thread id of a fake managed thread: a function of the ThreadID. */
#define FAKE_OS_TID(thread) ((DWORD)((thread)&0xFFFFu) + 100000u)

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
    atomic_store(&fs.walkers_at_detach, threads_named("jitscope-walk"));
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

/* ------------------------------------------------------------------------ */
/* The fake runtime's stacks: suspension, threads, walks, names             */
/* ------------------------------------------------------------------------ */

static void fake_stacks_reset(void)
{
    memset(fs.threads, 0, sizeof(fs.threads));
    fs.nthreads = 0;
    fs.list_self = 0;
    atomic_store(&fs.busy_left, 0);
    atomic_store(&fs.suspend_sleep_ms, 0);
    atomic_store(&fs.name_sleep_us, 0);
    atomic_store(&fs.dynamic_thread, 0);
    atomic_store(&fs.peek_fd, -1);
    atomic_store(&fs.peek_done, 0);
    atomic_store(&fs.peek_stack_frames, 0);
}

static void fake_add_thread(ThreadID id, unsigned depth, HRESULT hr, unsigned sleep_ms)
{
    if (fs.nthreads < FAKE_MAX_THREADS)
        fs.threads[fs.nthreads++] = (fake_thread_cfg){id, depth, hr, sleep_ms};
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
        if (atomic_load(&fs.suspended))
            atomic_fetch_add(&fs.enums_released_suspended, 1);
        atomic_fetch_sub(&fs.enums_live, 1);
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
    for (i = 0; i < fs.nthreads; i++) {
        e->ids[e->count++] = fs.threads[i].id;
        if (i == 0 && fs.list_self) /* the walker, among the others */
            e->ids[e->count++] = FAKE_WALKER_ID(my_tid());
    }
    atomic_fetch_add(&fs.enums_live, 1);
    *ppEnum = &e->iface;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_SuspendRuntime(ICorProfilerInfo10 *self)
{
    unsigned ms = atomic_load(&fs.suspend_sleep_ms);

    (void)self;
    atomic_fetch_add(&fs.suspend_calls, 1);
    if (atomic_load(&fs.busy_left) > 0) {
        atomic_fetch_sub(&fs.busy_left, 1);
        return CORPROF_E_SUSPENSION_IN_PROGRESS;
    }
    if (atomic_load(&fs.suspended))
        atomic_fetch_add(&fs.nested_suspends, 1);
    if (ms)
        sleep_ms(ms);
    if (atomic_load(&fs.callbacks)) {
        ICorProfilerCallback11 *cb = atomic_load(&fs.callbacks);
        cb->lpVtbl->RuntimeSuspendStarted(cb, COR_PRF_SUSPEND_FOR_PROFILER);
        cb->lpVtbl->RuntimeSuspendFinished(cb);
    }
    atomic_store(&fs.suspender, my_tid());
    atomic_store(&fs.suspended, 1);
    atomic_fetch_add(&fs.suspend_ok, 1);
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
    int fd = atomic_load(&fs.peek_fd);

    (void)self;
    atomic_fetch_add(&fs.resume_calls, 1);
    if (!atomic_load(&fs.suspended) || atomic_load(&fs.suspender) != my_tid()) {
        atomic_fetch_add(&fs.bad_resumes, 1);
        return CORPROF_E_UNSUPPORTED_CALL_SEQUENCE;
    }
    if (fd >= 0) {
        /* still suspended: had anything of this walk been written into the ring,
         * the sender (5 ms poll) would have put it on the socket by now */
        sleep_ms(60);
        atomic_store(&fs.peek_stack_frames, peek_stack_frames(fd));
        atomic_store(&fs.peek_done, 1);
    }
    atomic_store(&fs.suspended, 0);
    if (atomic_load(&fs.callbacks)) {
        ICorProfilerCallback11 *cb = atomic_load(&fs.callbacks);
        cb->lpVtbl->RuntimeResumeStarted(cb);
        if (atomic_load(&fs.interleave)) { /* the next suspender gets in first */
            double deadline = now_s() + 2;
            atomic_store(&fs.gc_go, 1);
            while (!atomic_load(&fs.gc_started) && now_s() < deadline)
                sleep_ms(1);
        }
        cb->lpVtbl->RuntimeResumeFinished(cb);
        atomic_store(&fs.gc_finish_go, 1);
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
        atomic_fetch_add(&fs.bad_walk_flags, 1);
    if (thread == 0) { /* the caller itself: the walker's harmless first call */
        atomic_fetch_add(&fs.self_calls, 1);
        if (atomic_load(&fs.suspended))
            atomic_fetch_add(&fs.self_calls_suspended, 1);
        return S_OK;
    }
    if (!atomic_load(&fs.suspended) || atomic_load(&fs.suspender) != my_tid())
        atomic_fetch_add(&fs.unsuspended_walks, 1);
    if (thread == FAKE_WALKER_ID(my_tid()))
        atomic_fetch_add(&fs.self_walked, 1);
    for (k = 0; k < fs.nthreads; k++)
        if (fs.threads[k].id == thread)
            cfg = &fs.threads[k];
    if (!cfg)
        return E_INVALIDARG;
    atomic_fetch_add(&fs.walks, 1);
    atomic_store(&fs.walking, thread);
    for (i = 0; i < cfg->depth; i++) {
        if (FAILED(callback(FAKE_FID(thread, i), FAKE_IP(thread, i), 0, 0, NULL, clientData))) {
            atomic_store(&fs.walking, 0);
            return CORPROF_E_STACKSNAPSHOT_ABORTED; /* what the runtime says */
        }
    }
    if (cfg->sleep_ms) {
        sleep_ms(cfg->sleep_ms);
        atomic_store(&fs.walk_end_ns, clock_ns(CLOCK_MONOTONIC));
    }
    atomic_store(&fs.walking, 0);
    return cfg->hr;
}

static HRESULT STDMETHODCALLTYPE info_InitializeCurrentThread(ICorProfilerInfo10 *self)
{
    (void)self;
    atomic_fetch_add(&fs.init_thread_calls, 1);
    return S_OK;
}

/* Names: every FunctionID is method FAKE_TOKEN(fid) of FAKE_MODULE, no class,
 * except the frames of fs.dynamic_thread, which are dynamic methods. */
static HRESULT STDMETHODCALLTYPE info_IsFunctionDynamic(ICorProfilerInfo10 *self,
                                                        FunctionID functionId, BOOL *isDynamic)
{
    ThreadID dyn = atomic_load(&fs.dynamic_thread);

    (void)self;
    fake_note_call();
    *isDynamic = dyn && (functionId >> 12) == dyn;
    return S_OK;
}

/* Answers like the runtime does for a live dynamic method ("D_<fid>", no
 * signature), and counts: the agent must not ask outside the JIT callbacks. */
static HRESULT STDMETHODCALLTYPE info_GetDynamicFunctionInfo(
    ICorProfilerInfo10 *self, FunctionID functionId, ModuleID *moduleId, PCCOR_SIGNATURE *ppvSig,
    ULONG *pbSig, ULONG cchName, ULONG *pcchName, WCHAR wszName[])
{
    char name[32];
    int n = snprintf(name, sizeof(name), "D_%llx", (unsigned long long)functionId), i;

    (void)self;
    fake_note_call();
    atomic_fetch_add(&fs.dynamic_info_calls, 1);
    if (moduleId)
        *moduleId = 0;
    if (ppvSig)
        *ppvSig = NULL;
    if (pbSig)
        *pbSig = 0;
    for (i = 0; i < n && (ULONG)i + 1 < cchName; i++)
        wszName[i] = (WCHAR)name[i];
    if (cchName)
        wszName[i] = 0;
    if (pcchName)
        *pcchName = (ULONG)n + 1;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetFunctionInfo2(ICorProfilerInfo10 *self, FunctionID funcId,
                                                       COR_PRF_FRAME_INFO frameInfo,
                                                       ClassID *pClassId, ModuleID *pModuleId,
                                                       mdToken *pToken, ULONG32 cTypeArgs,
                                                       ULONG32 *pcTypeArgs, ClassID typeArgs[])
{
    unsigned us = atomic_load(&fs.name_sleep_us);

    (void)self, (void)frameInfo, (void)cTypeArgs, (void)typeArgs;
    fake_note_call();
    if (us) {
        struct timespec ts = {0, (long)us * 1000L};
        nanosleep(&ts, NULL);
        fake_note_call(); /* a suspension that began while we were "inside" */
    }
    if (pClassId)
        *pClassId = 0;
    if (pModuleId)
        *pModuleId = FAKE_MODULE;
    if (pToken)
        *pToken = FAKE_TOKEN(funcId);
    if (pcTypeArgs)
        *pcTypeArgs = 0;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE md_QueryInterface(IMetaDataImport *self, REFIID riid, void **out)
{
    (void)self, (void)riid;
    *out = NULL;
    return E_NOINTERFACE;
}
static ULONG STDMETHODCALLTYPE md_AddRef(IMetaDataImport *self)
{
    (void)self;
    return 2;
}
static ULONG STDMETHODCALLTYPE md_Release(IMetaDataImport *self)
{
    (void)self;
    return 1;
}

/* The method's name is "M_" and its token in hex, e.g. M_06000005. */
static HRESULT STDMETHODCALLTYPE md_GetMethodProps(IMetaDataImport *self, mdMethodDef mb,
                                                   mdTypeDef *pClass, LPWSTR szMethod,
                                                   ULONG cchMethod, ULONG *pchMethod,
                                                   DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob,
                                                   ULONG *pcbSigBlob, ULONG *pulCodeRVA,
                                                   DWORD *pdwImplFlags)
{
    char name[32];
    int n = snprintf(name, sizeof(name), "M_%08x", (unsigned)mb), i;

    (void)self;
    fake_note_call();
    for (i = 0; i < n && (ULONG)i + 1 < cchMethod; i++)
        szMethod[i] = (WCHAR)name[i];
    if (cchMethod)
        szMethod[i] = 0;
    if (pchMethod)
        *pchMethod = (ULONG)n + 1;
    if (pClass)
        *pClass = 0;
    if (pdwAttr)
        *pdwAttr = 0;
    if (ppvSigBlob)
        *ppvSigBlob = NULL;
    if (pcbSigBlob)
        *pcbSigBlob = 0;
    if (pulCodeRVA)
        *pulCodeRVA = 0;
    if (pdwImplFlags)
        *pdwImplFlags = 0;
    return S_OK;
}

static const IMetaDataImportVtbl fake_md_vtbl = {
    .QueryInterface = md_QueryInterface,
    .AddRef = md_AddRef,
    .Release = md_Release,
    .GetMethodProps = md_GetMethodProps,
};
static IMetaDataImport fake_md = {&fake_md_vtbl};

/* Every fake method's IL is 42 bytes (asked only on the JIT path without tiers). */
#define FAKE_IL_SIZE 42u
static HRESULT STDMETHODCALLTYPE info_GetILFunctionBody(ICorProfilerInfo10 *self, ModuleID moduleId,
                                                        mdMethodDef methodId,
                                                        LPCBYTE *ppMethodHeader,
                                                        ULONG *pcbMethodSize)
{
    (void)self, (void)methodId;
    fake_note_call();
    if (moduleId != FAKE_MODULE)
        return E_INVALIDARG;
    *ppMethodHeader = NULL;
    *pcbMethodSize = FAKE_IL_SIZE;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetModuleMetaData(ICorProfilerInfo10 *self, ModuleID moduleId,
                                                        DWORD dwOpenFlags, REFIID riid,
                                                        IUnknown **ppOut)
{
    (void)self, (void)dwOpenFlags;
    fake_note_call();
    *ppOut = NULL;
    if (moduleId != FAKE_MODULE || !guid_eq(riid, &IID_IMetaDataImport))
        return E_INVALIDARG;
    *ppOut = (IUnknown *)(void *)&fake_md;
    return S_OK;
}

/* The fake module has no image in memory: the agent's direct metadata reader
 * (agent/mdcache.c) declines it and names go through the fake importer. */
static HRESULT STDMETHODCALLTYPE info_GetModuleInfo2(ICorProfilerInfo10 *self, ModuleID moduleId,
                                                     LPCBYTE *ppBaseLoadAddress, ULONG cchName,
                                                     ULONG *pcchName, WCHAR szName[],
                                                     AssemblyID *pAssemblyId, DWORD *pdwModuleFlags)
{
    (void)self, (void)cchName, (void)szName;
    fake_note_call();
    if (moduleId != FAKE_MODULE)
        return E_INVALIDARG;
    if (ppBaseLoadAddress)
        *ppBaseLoadAddress = NULL;
    if (pcchName)
        *pcchName = 0;
    if (pAssemblyId)
        *pAssemblyId = 0;
    if (pdwModuleFlags)
        *pdwModuleFlags = 0;
    return S_OK;
}

/* The JIT path's code questions: one version of 64 bytes at an address made
 * from the FunctionID, and the method's module and token. */
static HRESULT STDMETHODCALLTYPE info_GetNativeCodeStartAddresses(ICorProfilerInfo10 *self,
                                                                  FunctionID functionID,
                                                                  ReJITID reJitId, ULONG32 max,
                                                                  ULONG32 *count, UINT_PTR starts[])
{
    (void)self, (void)reJitId;
    fake_note_call();
    *count = 1;
    if (max >= 1)
        starts[0] = (UINT_PTR)0x7e0000000000ull + (UINT_PTR)functionID * 64u;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetCodeInfo4(ICorProfilerInfo10 *self, UINT_PTR start,
                                                   ULONG32 max, ULONG32 *count,
                                                   COR_PRF_CODE_INFO infos[])
{
    (void)self;
    fake_note_call();
    *count = 1;
    if (max >= 1)
        infos[0] = (COR_PRF_CODE_INFO){.startAddress = start, .size = 64};
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_GetFunctionInfo(ICorProfilerInfo10 *self, FunctionID function,
                                                      ClassID *cls, ModuleID *module,
                                                      mdToken *token)
{
    (void)self;
    fake_note_call();
    *cls = 0;
    *module = FAKE_MODULE;
    *token = FAKE_TOKEN(function);
    return S_OK;
}

/* Every other slot stays NULL: a call through one of them is a crash, i.e. the
 * agent called the runtime where this test says it must not. */
static const ICorProfilerInfo10Vtbl fake_info_vtbl = {
    .QueryInterface = info_QueryInterface,
    .AddRef = info_AddRef,
    .Release = info_Release,
    .GetThreadInfo = info_GetThreadInfo,
    .GetCurrentThreadID = info_GetCurrentThreadID,
    .SetEventMask = info_SetEventMask,
    .RequestProfilerDetach = info_RequestProfilerDetach,
    .EnumModules = info_EnumModules,
    .GetRuntimeInformation = info_GetRuntimeInformation,
    .EnumThreads = info_EnumThreads,
    .EnumJITedFunctions2 = info_EnumJITedFunctions2,
    .SetEventMask2 = info_SetEventMask2,
    .GetEventMask2 = info_GetEventMask2,
    .InitializeCurrentThread = info_InitializeCurrentThread,
    .SuspendRuntime = info_SuspendRuntime,
    .ResumeRuntime = info_ResumeRuntime,
    .DoStackSnapshot = info_DoStackSnapshot,
    .GetFunctionInfo2 = info_GetFunctionInfo2,
    .IsFunctionDynamic = info_IsFunctionDynamic,
    .GetDynamicFunctionInfo = info_GetDynamicFunctionInfo,
    .GetModuleMetaData = info_GetModuleMetaData,
    .GetModuleInfo2 = info_GetModuleInfo2,
    .GetILFunctionBody = info_GetILFunctionBody,
    .GetNativeCodeStartAddresses = info_GetNativeCodeStartAddresses,
    .GetCodeInfo4 = info_GetCodeInfo4,
    .GetFunctionInfo = info_GetFunctionInfo,
};

static const IUnknownVtbl fake_unk_vtbl = {
    .QueryInterface = unk_QueryInterface,
    .AddRef = unk_AddRef,
    .Release = unk_Release,
};

static void fake_init(fake_runtime *rt, uint16_t instance_id)
{
    memset(rt, 0, sizeof(*rt));
    rt->info.lpVtbl = &fake_info_vtbl;
    rt->unk.lpVtbl = &fake_unk_vtbl;
    rt->instance_id = instance_id;
    rt->major = 10, rt->minor = 0, rt->build = 1;
    atomic_init(&rt->refs, 1);
    atomic_init(&rt->detach_result, S_OK);
}

/* ------------------------------------------------------------------------ */
/* The fake server side: one listening socket, frames read with wire.h       */
/* ------------------------------------------------------------------------ */

typedef struct conn {
    int fd;
    uint64_t next_seq;   /* the seq the next frame must carry */
    unsigned seq_errors; /* frames whose seq was not next_seq */
    unsigned frames;
    unsigned bad_length;    /* frames longer than WIRE_MAX_PAYLOAD */
    wire_frame_header last; /* the last frame read */
    uint32_t last_length;
    uint8_t last_payload[WIRE_MAX_PAYLOAD];
    uint64_t named[8192]; /* FunctionIDs named by a FUNCTION_NAME so far */
    unsigned nnamed;
    unsigned bad_names; /* FUNCTION_NAMEs whose text is not the fake's name */
} conn;

/* Remembers a FUNCTION_NAME (c->last) and checks its text: "M_<token>". */
static void conn_note_name(conn *c)
{
    wire_function_name f;
    char expect[32];
    uint16_t n;

    if (c->last_length < sizeof(f) + 2)
        return;
    memcpy(&f, c->last_payload, sizeof(f));
    memcpy(&n, c->last_payload + sizeof(f), 2);
    snprintf(expect, sizeof(expect), "M_%08x", (unsigned)FAKE_TOKEN(f.function_id));
    if (f.module_id == FAKE_MODULE &&
        (n != strlen(expect) || memcmp(c->last_payload + sizeof(f) + 2, expect, n) != 0 ||
         f.token != FAKE_TOKEN(f.function_id)))
        c->bad_names++;
    if (c->nnamed < sizeof(c->named) / sizeof(c->named[0]))
        c->named[c->nnamed++] = f.function_id;
}

static int conn_was_named(const conn *c, uint64_t fid)
{
    unsigned i;

    for (i = 0; i < c->nnamed; i++)
        if (c->named[i] == fid)
            return 1;
    return 0;
}

static char sock_dir[64], sock_path[128];
static int listen_fd = -1;
static void *agent_lib;
static dll_get_class_object_fn get_class_object;
static IClassFactory *factory;

/* Reads exactly n bytes before the deadline. Returns 1, 0 on EOF before the
 * first byte, -1 on timeout, error or EOF in the middle. */
static int read_full(int fd, void *buf, size_t n, double deadline)
{
    size_t got = 0;

    while (got < n) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int left = (int)((deadline - now_s()) * 1000.0), r;
        ssize_t k;

        if (left < 0)
            left = 0; /* past the deadline: only what is already buffered */
        r = poll(&p, 1, left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        k = recv(fd, (char *)buf + got, n - got, 0);
        if (k < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            return got == 0 ? 0 : -1;
        got += (size_t)k;
    }
    return 1;
}

/* One frame into c->last / c->last_payload. Returns 1, 0 on EOF, -1 on timeout. */
static int conn_read(conn *c, int timeout_ms)
{
    double deadline = now_s() + timeout_ms / 1000.0;
    wire_frame_header h;
    int r = read_full(c->fd, &h, sizeof(h), deadline);

    if (r <= 0)
        return r;
    if (h.length > WIRE_MAX_PAYLOAD) {
        c->bad_length++;
        return -1;
    }
    if (h.length && read_full(c->fd, c->last_payload, h.length, deadline) != 1)
        return -1;
    if (h.seq != c->next_seq)
        c->seq_errors++;
    c->next_seq = h.seq + 1;
    c->frames++;
    c->last = h;
    c->last_length = h.length;
    if (h.type == WIRE_FUNCTION_NAME)
        conn_note_name(c);
    return 1;
}

/* Skips frames until one of `type`. Returns 1, 0 on EOF, -1 on timeout. */
static int conn_wait_type(conn *c, uint16_t type, int timeout_ms)
{
    double deadline = now_s() + timeout_ms / 1000.0;

    for (;;) {
        int left = (int)((deadline - now_s()) * 1000.0), r;
        if (left <= 0)
            return -1;
        r = conn_read(c, left);
        if (r <= 0)
            return r;
        if (c->last.type == type)
            return 1;
    }
}

/* Reads frames until EOF. Remembers the last DETACH_STATUS states seen, in order. */
typedef struct tail_info {
    int eof; /* 1 when recv returned 0 */
    unsigned frames;
    double seconds;     /* time to EOF */
    uint16_t last_type; /* type of the last frame before EOF (0: none) */
    uint32_t status_states[8];
    int32_t status_hresults[8];
    unsigned statuses;
    unsigned profile_stopped; /* PROFILE_STATUS STOPPED records */
} tail_info;

/* Reads frames until EOF, at most timeout_ms; with 0, only what is already
 * buffered (EOF is then seen only if the agent had closed before the call).
 * Accumulates into *t (the caller zeroes it). */
static void conn_read_to_eof(conn *c, int timeout_ms, tail_info *t)
{
    double start = now_s(), deadline = start + timeout_ms / 1000.0;

    for (;;) {
        int left = (int)((deadline - now_s()) * 1000.0), r;
        r = conn_read(c, left > 0 ? left : 0);
        if (r == 0) {
            t->eof = 1;
            break;
        }
        if (r < 0)
            break;
        t->frames++;
        t->last_type = c->last.type;
        if (c->last.type == WIRE_DETACH_STATUS && c->last_length >= sizeof(wire_detach_status) &&
            t->statuses < 8) {
            wire_detach_status s;
            memcpy(&s, c->last_payload, sizeof(s));
            t->status_states[t->statuses] = s.state;
            t->status_hresults[t->statuses] = s.hresult;
            t->statuses++;
        }
        if (c->last.type == WIRE_PROFILE_STATUS && c->last_length >= 4 &&
            c->last_payload[0] == WIRE_PROFILE_STOPPED)
            t->profile_stopped++;
    }
    t->seconds += now_s() - start;
}

static int send_command(int fd, uint16_t type, const void *payload, uint32_t length)
{
    uint8_t buf[sizeof(wire_frame_header) + 64];
    wire_frame_header h = {.type = type, .length = length};

    memcpy(buf, &h, sizeof(h));
    memcpy(buf + sizeof(h), payload, length);
    return send(fd, buf, sizeof(h) + length, MSG_NOSIGNAL) == (ssize_t)(sizeof(h) + length) ? 0
                                                                                            : -1;
}

/* Accepts one agent connection within timeout_ms; -1 if none came. */
static int accept_agent(int timeout_ms)
{
    struct pollfd p = {.fd = listen_fd, .events = POLLIN};
    int r;

    do
        r = poll(&p, 1, timeout_ms);
    while (r < 0 && errno == EINTR);
    if (r <= 0)
        return -1;
    return accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
}

/* Ping the agent: 1 when the matching PONG came back within timeout_ms. */
static int ping(conn *c, uint64_t cookie, int timeout_ms)
{
    wire_cmd_ping cmd = {cookie};
    double deadline = now_s() + timeout_ms / 1000.0;

    if (send_command(c->fd, WIRE_CMD_PING, &cmd, sizeof(cmd)) != 0)
        return 0;
    while (now_s() < deadline) {
        wire_cmd_ping echo;
        int left = (int)((deadline - now_s()) * 1000.0);
        if (left <= 0 || conn_wait_type(c, WIRE_PONG, left) != 1)
            return 0;
        if (c->last_length < sizeof(echo))
            return 0;
        memcpy(&echo, c->last_payload, sizeof(echo));
        if (echo.cookie == cookie)
            return 1;
    }
    return 0;
}

/* Checks a WIRE_HELLO (already in c->last) against what the fake said. */
static void check_hello(const conn *c, const char *token, uint32_t mode, uint16_t instance_id)
{
    wire_hello h;
    uint64_t mono = clock_ns(CLOCK_MONOTONIC), real = clock_ns(CLOCK_REALTIME);

    if (!CHECK(c->last.type == WIRE_HELLO, "first frame is WIRE_HELLO (got type %u)",
               (unsigned)c->last.type))
        return;
    CHECK(c->last.seq == 1, "hello carries seq 1 (got %llu)", (unsigned long long)c->last.seq);
    CHECK(c->last.flags == 0, "hello has no flags (got 0x%x)", (unsigned)c->last.flags);
    if (!CHECK(c->last_length == sizeof(wire_hello), "hello payload is %zu bytes (got %u)",
               sizeof(wire_hello), (unsigned)c->last_length))
        return;
    memcpy(&h, c->last_payload, sizeof(h));
    CHECK(memcmp(h.magic, WIRE_MAGIC, 8) == 0, "hello magic is JITSCOPE");
    CHECK(h.version == WIRE_VERSION, "hello version %u (got %u)", WIRE_VERSION, h.version);
    CHECK(h.pid == (uint32_t)getpid(), "hello pid is ours (%u, got %u)", (unsigned)getpid(), h.pid);
    CHECK(h.mode == mode, "hello mode %u (got %u)", mode, h.mode);
    CHECK(memcmp(h.token, token, WIRE_TOKEN_LEN) == 0, "hello carries the token %s", token);
    CHECK(h.runtime_type == COR_PRF_CORE_CLR && h.runtime_type == 2,
          "hello runtime type CoreCLR (got %u)", h.runtime_type);
    CHECK(h.clr_instance_id == instance_id, "hello clr instance %u (got %u)", instance_id,
          h.clr_instance_id);
    CHECK(h.major == 10 && h.minor == 0 && h.build == 1 && h.qfe == 0,
          "hello runtime version 10.0.1.0 (got %u.%u.%u.%u)", h.major, h.minor, h.build, h.qfe);
    CHECK(h.ring_bytes == RING_BYTES, "hello ring_bytes = JITSCOPE_RING_BYTES %u (got %u)",
          RING_BYTES, h.ring_bytes);
    CHECK(h.parent_pid == (uint32_t)getppid(), "hello parent pid is our parent (%u, got %u)",
          (unsigned)getppid(), h.parent_pid);
    CHECK(h.monotonic_ns <= mono && mono - h.monotonic_ns < 5000000000ull,
          "hello monotonic clock is ours and recent");
    CHECK(h.realtime_ns <= real + 1000000000ull && real - h.realtime_ns < 5000000000ull,
          "hello realtime clock is recent");
    CHECK(c->last.time_ns == h.monotonic_ns, "hello frame time = its monotonic_ns");
}

/* ------------------------------------------------------------------------ */
/* Agent objects                                                            */
/* ------------------------------------------------------------------------ */

static ICorProfilerCallback11 *new_profiler(void)
{
    void *out = NULL;
    HRESULT hr;

    if (!factory)
        return NULL;
    hr = factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback2, &out);
    if (FAILED(hr))
        return NULL;
    return out;
}

static int setup(void)
{
    const char *so = getenv("JITSCOPE_AGENT_SO");
    void *sym, *out = NULL;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};

    if (agent_lib)
        return 0;
    if (!so || !*so)
        so = "build/libjitscope_agent.so";
    agent_lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!CHECK(agent_lib != NULL, "dlopen %s: %s", so, agent_lib ? "ok" : dlerror()))
        return -1;
    sym = dlsym(agent_lib, "DllGetClassObject");
    if (!CHECK(sym != NULL, "dlsym DllGetClassObject"))
        return -1;
    memcpy(&get_class_object, &sym, sizeof(sym));
    if (!CHECK(get_class_object(&agent_clsid, &IID_IClassFactory, &out) == S_OK && out,
               "DllGetClassObject(jitscope CLSID, IClassFactory) -> S_OK"))
        return -1;
    factory = out;

    /* the server side: a socket in a private directory */
    snprintf(sock_dir, sizeof(sock_dir), "%s", "/tmp/jitscope-sbs-XXXXXX");
    if (!CHECK(mkdtemp(sock_dir) != NULL, "mkdtemp: %s", strerror(errno)))
        return -1;
    snprintf(sock_path, sizeof(sock_path), "%s/agent.sock", sock_dir);
    if (!CHECK(strlen(sock_path) < sizeof(addr.sun_path), "socket path fits: %s", sock_path))
        return -1;
    memcpy(addr.sun_path, sock_path, strlen(sock_path) + 1);
    listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (!CHECK(listen_fd >= 0 && bind(listen_fd, (struct sockaddr *)&addr, sizeof(addr)) == 0 &&
                   listen(listen_fd, 8) == 0,
               "listen on %s: %s", sock_path, strerror(errno)))
        return -1;
    setenv(WIRE_ENV_SOCKET, sock_path, 1);
    setenv(WIRE_ENV_TOKEN, TOKEN_A, 1);
    {
        char ring[32];
        snprintf(ring, sizeof(ring), "%u", RING_BYTES);
        setenv("JITSCOPE_RING_BYTES", ring, 1);
    }
    return 0;
}

static void teardown(void)
{
    if (listen_fd >= 0)
        close(listen_fd);
    if (sock_path[0])
        unlink(sock_path);
    if (sock_dir[0])
        rmdir(sock_dir);
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                    */
/* ------------------------------------------------------------------------ */

/* Runs a command, returns its output (static buffer) or NULL. */
static const char *run_capture(const char *cmd, int *status)
{
    static char out[16384];
    size_t used = 0, n;
    FILE *p = popen(cmd, "r"); /* checksrc: allow popen (the test runs nm and readelf) */

    if (!p)
        return NULL;
    while (used < sizeof(out) - 1 && (n = fread(out + used, 1, sizeof(out) - 1 - used, p)) > 0)
        used += n;
    out[used] = '\0';
    *status = pclose(p);
    return out;
}

TEST(exports)
{
    const char *so = getenv("JITSCOPE_AGENT_SO");
    const char *out, *line;
    char cmd[1200];
    int status = -1;
    static const char *const internal[] = {
        "agent",        "sender_start", "sender_stop", "conn_emit",     "naming_function",
        "emit_record",  "ring_init",    "catchup_run", "names_resolve", "cb_JITCompilationStarted",
        "utf16_to_utf8"};
    unsigned i, defined = 0, ours = 0;
    char clsid[64];

    if (setup() != 0)
        return;
    if (!so || !*so)
        so = "build/libjitscope_agent.so";

    /* nm -D --defined-only: DllGetClassObject, and nothing else */
    snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s' 2>/dev/null", so);
    out = run_capture(cmd, &status);
    if (!out || status != 0 || !*out) {
        printf("  note: nm not usable (status %d): export list not checked with nm\n", status);
    } else {
        for (line = out; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
            char addr[64], type[8], name[256];
            if (sscanf(line, "%63s %7s %255s", addr, type, name) != 3) /* checksrc: allow sscanf */
                continue;
            defined++;
            if (strcmp(name, "DllGetClassObject") == 0) {
                ours++;
                CHECK(strcmp(type, "T") == 0, "DllGetClassObject is a global text symbol (%s)",
                      type);
            } else {
                CHECK(0, "unexpected exported symbol: %s %s", type, name);
            }
        }
        CHECK(ours == 1 && defined == 1, "exactly one defined dynamic symbol (%u)", defined);
    }
    for (i = 0; i < sizeof(internal) / sizeof(internal[0]); i++)
        CHECK(dlsym(agent_lib, internal[i]) == NULL, "%s is not exported", internal[i]);

    /* libc (and the pthread/loader stubs) only */
    snprintf(cmd, sizeof(cmd), "readelf -d '%s' 2>/dev/null", so);
    out = run_capture(cmd, &status);
    if (!out || status != 0 || !strstr(out, "NEEDED")) {
        printf("  note: readelf not usable (status %d): NEEDED not checked\n", status);
    } else {
        for (line = strstr(out, "(NEEDED)"); line; line = strstr(line + 1, "(NEEDED)")) {
            char lib[128] = "";
            const char *lb = strchr(line, '[');
            if (lb)
                sscanf(lb + 1, "%127[^]]", lib); /* checksrc: allow sscanf (bounded) */
            if (strncmp(lib, "libasan.so", 10) == 0 || strncmp(lib, "libubsan.so", 11) == 0) {
                printf("  note: sanitizer build of the agent (NEEDED %s)\n", lib);
                continue;
            }
            CHECK(strcmp(lib, "libc.so.6") == 0 || strcmp(lib, "libpthread.so.0") == 0 ||
                      strcmp(lib, "ld-linux-x86-64.so.2") == 0,
                  "agent needs only libc: NEEDED %s", lib);
        }
    }

    /* the CLSID string that CORECLR_PROFILER names is the CLSID the factory answers */
    snprintf(clsid, sizeof(clsid), "{%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X}",
             agent_clsid.Data1, agent_clsid.Data2, agent_clsid.Data3, agent_clsid.Data4[0],
             agent_clsid.Data4[1], agent_clsid.Data4[2], agent_clsid.Data4[3], agent_clsid.Data4[4],
             agent_clsid.Data4[5], agent_clsid.Data4[6], agent_clsid.Data4[7]);
    CHECK(strcasecmp(clsid, WIRE_CLSID_STRING) == 0, "WIRE_CLSID_STRING %s = WIRE_CLSID_INIT %s",
          WIRE_CLSID_STRING, clsid);
}

TEST(class_factory)
{
    static const GUID *const callbacks[] = {
        &IID_ICorProfilerCallback,   &IID_ICorProfilerCallback2,  &IID_ICorProfilerCallback3,
        &IID_ICorProfilerCallback4,  &IID_ICorProfilerCallback5,  &IID_ICorProfilerCallback6,
        &IID_ICorProfilerCallback7,  &IID_ICorProfilerCallback8,  &IID_ICorProfilerCallback9,
        &IID_ICorProfilerCallback10, &IID_ICorProfilerCallback11, &IID_IUnknown};
    void *out, *p1 = NULL, *p2 = NULL, *f2 = NULL;
    ICorProfilerCallback11 *cb;
    unsigned i, null_slots = 0;
    fake_runtime outer;
    HRESULT hr;
    ULONG refs;
    BOOL notify_only = TRUE;

    if (setup() != 0)
        return;

    out = (void *)&outer;
    hr = get_class_object(&other_clsid, &IID_IClassFactory, &out);
    CHECK(hr == CLASS_E_CLASSNOTAVAILABLE, "wrong CLSID -> CLASS_E_CLASSNOTAVAILABLE (0x%08x)",
          (unsigned)hr);
    CHECK(out == NULL, "wrong CLSID: *out is NULL");
    CHECK(get_class_object(&agent_clsid, &IID_IClassFactory, NULL) == E_POINTER,
          "NULL out -> E_POINTER");
    out = (void *)&outer;
    hr = get_class_object(&agent_clsid, &IID_ICorProfilerCallback11, &out);
    CHECK(hr == E_NOINTERFACE && out == NULL,
          "factory asked for a callback interface -> E_NOINTERFACE (0x%08x)", (unsigned)hr);
    hr = get_class_object(&agent_clsid, &IID_IUnknown, &f2);
    CHECK(hr == S_OK && f2 == (void *)factory, "factory as IUnknown -> S_OK, same object");
    hr = factory->lpVtbl->QueryInterface(factory, &IID_IClassFactory, &f2);
    CHECK(hr == S_OK && f2 == (void *)factory, "factory QueryInterface(IClassFactory)");
    CHECK(factory->lpVtbl->AddRef(factory) >= 1 && factory->lpVtbl->Release(factory) >= 1,
          "static factory: AddRef/Release never reach 0");
    CHECK(factory->lpVtbl->LockServer(factory, TRUE) == S_OK &&
              factory->lpVtbl->LockServer(factory, FALSE) == S_OK,
          "LockServer -> S_OK");

    /* aggregation is refused */
    fake_init(&outer, 99);
    out = (void *)&outer;
    hr = factory->lpVtbl->CreateInstance(factory, &outer.unk, &IID_ICorProfilerCallback2, &out);
    CHECK(hr == CLASS_E_NOAGGREGATION, "outer unknown -> CLASS_E_NOAGGREGATION (0x%08x)",
          (unsigned)hr);
    CHECK(out == NULL, "aggregation refused: *out is NULL");
    CHECK(atomic_load(&outer.unk_qi_calls) == 0 && atomic_load(&outer.refs) == 1,
          "aggregation refused: the outer unknown was not touched");
    CHECK(factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback2, NULL) ==
              E_POINTER,
          "CreateInstance with NULL out -> E_POINTER");
    out = (void *)&outer;
    hr = factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerInfo, &out);
    CHECK(hr == E_NOINTERFACE && out == NULL,
          "CreateInstance(ICorProfilerInfo) -> E_NOINTERFACE, nothing returned (0x%08x)",
          (unsigned)hr);

    /* two instances, two objects */
    hr = factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback2, &p1);
    CHECK(hr == S_OK && p1, "CreateInstance(NULL, ICorProfilerCallback2) -> S_OK");
    hr = factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback2, &p2);
    CHECK(hr == S_OK && p2, "second CreateInstance -> S_OK");
    if (!p1 || !p2)
        return;
    CHECK(p1 != p2, "two CreateInstance calls give two distinct objects");
    cb = p1;

    /* every slot of the 98-entry table is filled: the runtime calls them all */
    for (i = 0; i < sizeof(ICorProfilerCallback11Vtbl) / sizeof(void *); i++) {
        void *slot;
        memcpy(&slot, (const char *)cb->lpVtbl + i * sizeof(void *), sizeof(slot));
        if (!slot) {
            null_slots++;
            CHECK(0, "callback vtable slot %u is NULL", i);
        }
    }
    CHECK(null_slots == 0, "all %zu callback slots are set",
          sizeof(ICorProfilerCallback11Vtbl) / sizeof(void *));
    CHECK(((ICorProfilerCallback11 *)p2)->lpVtbl == cb->lpVtbl, "both objects share the table");

    /* reference counting: CreateInstance hands out exactly one reference */
    refs = cb->lpVtbl->AddRef(cb);
    CHECK(refs == 2, "AddRef after CreateInstance -> 2 (got %u)", refs);
    refs = cb->lpVtbl->Release(cb);
    CHECK(refs == 1, "Release -> 1 (got %u)", refs);

    for (i = 0; i < sizeof(callbacks) / sizeof(callbacks[0]); i++) {
        out = NULL;
        hr = cb->lpVtbl->QueryInterface(cb, callbacks[i], &out);
        CHECK(hr == S_OK && out == p1, "QueryInterface(%s%u) -> S_OK, same object",
              i == 11 ? "IUnknown" : "ICorProfilerCallback", i == 11 ? 0 : i + 1);
    }
    refs = cb->lpVtbl->AddRef(cb);
    CHECK(refs == 2 + sizeof(callbacks) / sizeof(callbacks[0]),
          "each successful QueryInterface added one reference (refs %u)", refs);
    for (i = 0; i < sizeof(callbacks) / sizeof(callbacks[0]) + 1; i++)
        refs = cb->lpVtbl->Release(cb);
    CHECK(refs == 1, "releasing them brings it back to 1 (got %u)", refs);

    out = (void *)&outer;
    hr = cb->lpVtbl->QueryInterface(cb, &IID_ICorProfilerInfo, &out);
    CHECK(hr == E_NOINTERFACE && out == NULL, "QueryInterface(ICorProfilerInfo) -> E_NOINTERFACE");
    out = (void *)&outer;
    hr = cb->lpVtbl->QueryInterface(cb, &IID_IClassFactory, &out);
    CHECK(hr == E_NOINTERFACE && out == NULL, "QueryInterface(IClassFactory) -> E_NOINTERFACE");
    CHECK(cb->lpVtbl->QueryInterface(cb, &IID_ICorProfilerCallback, NULL) == E_POINTER,
          "QueryInterface with NULL out -> E_POINTER");
    refs = cb->lpVtbl->AddRef(cb);
    CHECK(refs == 2, "failed QueryInterfaces added no reference (refs %u)", refs);
    cb->lpVtbl->Release(cb);

    CHECK(cb->lpVtbl->LoadAsNotificationOnly(cb, &notify_only) == S_OK && notify_only == FALSE,
          "LoadAsNotificationOnly -> FALSE (a full profiler)");
    {
        /* the slots of events jitscope does not ask for (the shared no-op stubs,
         * each signature at least once): S_OK, answers left as the runtime set them */
        const ICorProfilerCallback11Vtbl *v = cb->lpVtbl;
        BOOL use_cached = TRUE, should_inline = TRUE;
        GUID cookie = {0};
        ULONG counts[1] = {0};
        UINT_PTR ids[1] = {0}, more_ids[1] = {0};
        SIZE_T sizes[1] = {0};
        COR_PRF_GC_ROOT_KIND kinds[1] = {0};
        COR_PRF_GC_ROOT_FLAGS root_flags[1] = {0};
        HRESULT any = v->ExceptionSearchFunctionLeave(cb) | v->RemotingServerInvocationStarted(cb) |
                      v->AppDomainCreationStarted(cb, 1) | v->ClassLoadStarted(cb, 2) |
                      v->DynamicMethodUnloaded(cb, 3) | v->EventPipeProviderCreated(cb, 4) |
                      v->ClassLoadFinished(cb, 5, E_FAIL) | v->ModuleAttachedToAssembly(cb, 7, 8) |
                      v->HandleCreated(cb, 9, 10) |
                      v->UnmanagedToManagedTransition(cb, 15, COR_PRF_TRANSITION_CALL) |
                      v->RemotingClientSendingMessage(cb, &cookie, TRUE) |
                      v->FinalizeableObjectQueued(cb, 0, 16) | v->RootReferences(cb, 1, ids) |
                      v->ObjectsAllocatedByClass(cb, 1, ids, counts) |
                      v->SurvivingReferences2(cb, 1, ids, sizes) |
                      v->MovedReferences(cb, 1, ids, more_ids, counts) |
                      v->MovedReferences2(cb, 1, ids, more_ids, sizes) |
                      v->ConditionalWeakTableElementReferences(cb, 1, ids, more_ids, ids) |
                      v->ObjectReferences(cb, 17, 18, 1, ids) |
                      v->RootReferences2(cb, 1, ids, kinds, root_flags, more_ids) |
                      v->COMClassicVTableCreated(cb, 19, &cookie, NULL, 0) |
                      v->COMClassicVTableDestroyed(cb, 19, &cookie, NULL) |
                      v->ReJITCompilationStarted(cb, 20, 21, TRUE) |
                      v->ReJITCompilationFinished(cb, 20, 21, S_OK, TRUE) |
                      v->GetReJITParameters(cb, 22, 0x06000001, NULL) |
                      v->ReJITError(cb, 22, 0x06000001, 20, E_FAIL) |
                      v->GetAssemblyReferences(cb, NULL, NULL);
        CHECK(any == S_OK, "unused callbacks: S_OK (0x%08x)", (unsigned)any);
        /* an unload's end, and jitinfo.c's callbacks (inlining, ReadyToRun
         * searches), which never veto: harmless on an object that never
         * initialised */
        any = v->ModuleUnloadFinished(cb, 6, S_OK) |
              v->JITCachedFunctionSearchStarted(cb, 11, &use_cached) |
              v->JITInlining(cb, 12, 13, &should_inline) |
              v->JITCachedFunctionSearchFinished(cb, 14, COR_PRF_CACHED_FUNCTION_FOUND);
        CHECK(any == S_OK && use_cached == TRUE && should_inline == TRUE,
              "inlining and cache-search callbacks: S_OK, their answers untouched (0x%08x)",
              (unsigned)any);
    }

    /* an object that never initialised: Shutdown / detach callbacks are harmless */
    CHECK(cb->lpVtbl->Shutdown(cb) == S_OK, "Shutdown on an uninitialised object -> S_OK");
    CHECK(cb->lpVtbl->ProfilerDetachSucceeded(cb) == S_OK,
          "ProfilerDetachSucceeded on an uninitialised object -> S_OK");
    CHECK(cb->lpVtbl->ProfilerAttachComplete(cb) == S_OK,
          "ProfilerAttachComplete on an uninitialised object -> S_OK");
    CHECK(threads_named(AGENT_THREAD_NAME) == 0, "no agent thread exists yet");

    refs = cb->lpVtbl->Release(cb);
    CHECK(refs == 0, "last Release of object 1 -> 0 (got %u)", refs);
    refs = ((ICorProfilerCallback11 *)p2)->lpVtbl->Release(p2);
    CHECK(refs == 0, "last Release of object 2 -> 0 (got %u)", refs);
}

TEST(bad_config)
{
    static const char foreign[] = "someoneelse1 0123456789abcdef0123456789abcdef /tmp/x.sock";
    ICorProfilerCallback11 *x;
    fake_runtime rt;
    HRESULT hr;

    if (setup() != 0)
        return;
    x = new_profiler();
    if (!CHECK(x != NULL, "CreateInstance"))
        return;
    fake_init(&rt, 50);

    setenv(WIRE_ENV_TOKEN, "0123456789abcdef", 1); /* too short */
    hr = x->lpVtbl->Initialize(x, &rt.unk);
    CHECK(hr == E_FAIL, "Initialize with a 16-character token -> E_FAIL (0x%08x)", (unsigned)hr);
    unsetenv(WIRE_ENV_TOKEN);
    hr = x->lpVtbl->Initialize(x, &rt.unk);
    CHECK(hr == E_FAIL, "Initialize without JITSCOPE_TOKEN -> E_FAIL (0x%08x)", (unsigned)hr);
    setenv(WIRE_ENV_TOKEN, TOKEN_A, 1);

    hr = x->lpVtbl->InitializeForAttach(x, &rt.unk, (void *)foreign, sizeof(foreign) - 1);
    CHECK(hr == E_INVALIDARG, "InitializeForAttach with foreign client data -> E_INVALIDARG");
    hr = x->lpVtbl->InitializeForAttach(x, &rt.unk, NULL, 0);
    CHECK(hr == E_INVALIDARG, "InitializeForAttach without client data -> E_INVALIDARG");

    /* Initialize without the settings in the C library's environment asks
     * the runtime's own (ICorProfilerInfo12, for a diagnostic port's server's
     * JITSCOPE_AGENT): that one question, nothing else */
    CHECK(atomic_load(&rt.unk_qi_calls) == atomic_load(&rt.info12_asked) &&
              atomic_load(&rt.unexpected_qi) == 0 && atomic_load(&rt.set_mask_calls) == 0 &&
              atomic_load(&rt.refs) == 1,
          "refused runtime: asked for its environment only, no mask, no reference kept");
    CHECK(threads_named(AGENT_THREAD_NAME) == 0, "refused runtime: no agent thread");
    CHECK(accept_agent(0) < 0, "refused runtime: no connection");
    CHECK(x->lpVtbl->Release(x) == 0, "Release -> 0");
}

/* Runs fn(x, rt) with the process's stderr going to a pipe; what was written
 * (at most size - 1 bytes) ends up in out. Returns fn's HRESULT. */
static HRESULT with_stderr_captured(HRESULT (*fn)(ICorProfilerCallback11 *, fake_runtime *),
                                    ICorProfilerCallback11 *x, fake_runtime *rt, char *out,
                                    size_t size)
{
    int pipe_fds[2], saved;
    ssize_t n;
    size_t used = 0;
    HRESULT hr;

    out[0] = '\0';
    if (pipe(pipe_fds) != 0)
        return fn(x, rt);
    fflush(stderr);
    saved = dup(2);
    dup2(pipe_fds[1], 2);
    close(pipe_fds[1]);
    hr = fn(x, rt);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    while (used + 1 < size && (n = read(pipe_fds[0], out + used, size - 1 - used)) > 0)
        used += (size_t)n;
    out[used] = '\0';
    close(pipe_fds[0]);
    return hr;
}

typedef HRESULT init_fn(ICorProfilerCallback11 *x, fake_runtime *rt);

static HRESULT init_startup(ICorProfilerCallback11 *x, fake_runtime *rt)
{
    return x->lpVtbl->Initialize(x, &rt->unk);
}

static HRESULT init_attach(ICorProfilerCallback11 *x, fake_runtime *rt)
{
    char data[256];
    int n = snprintf(data, sizeof(data), "%s%s %s", WIRE_CLIENT_DATA_PREFIX, TOKEN_A, sock_path);

    return x->lpVtbl->InitializeForAttach(x, &rt->unk, data, (UINT)n);
}

/* A runtime older than .NET 5 (.NET Core 3.1 says 4.0.30319), or one that does
 * not say its version: Initialize and InitializeForAttach refuse with
 * CORPROF_E_PROFILER_CANCEL_ACTIVATION and a message on stderr that names the
 * version and what is needed; nothing started (no mask, no thread, no
 * connection), the reference released, nothing claimed (attach_race and
 * side_by_side after it claim the agent). */
TEST(too_old)
{
    static const struct {
        uint16_t major, minor, build;
        HRESULT info_result;
        const char *says;
    } runtimes[] = {{4, 0, 30319, S_OK, "says version 4.0.30319"},
                    {3, 1, 3, S_OK, "says version 3.1.3"},
                    {10, 0, 1, E_FAIL, "does not say its version"}};
    init_fn *const inits[] = {init_startup, init_attach};
    char said[1024];
    size_t i, j;

    if (setup() != 0)
        return;
    setenv(WIRE_ENV_TOKEN, TOKEN_A, 1);
    for (i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
        for (j = 0; j < 2; j++) {
            ICorProfilerCallback11 *x = new_profiler();
            fake_runtime rt;
            HRESULT hr;

            if (!CHECK(x != NULL, "CreateInstance"))
                return;
            fake_init(&rt, 60);
            rt.major = runtimes[i].major, rt.minor = runtimes[i].minor;
            rt.build = runtimes[i].build, rt.runtime_info_result = runtimes[i].info_result;
            hr = with_stderr_captured(inits[j], x, &rt, said, sizeof(said));
            CHECK(hr == CORPROF_E_PROFILER_CANCEL_ACTIVATION,
                  "%s, %s: refused with CORPROF_E_PROFILER_CANCEL_ACTIVATION (0x%08x)",
                  runtimes[i].says, j ? "attach" : "startup", (unsigned)hr);
            CHECK(strstr(said, runtimes[i].says) && strstr(said, "needs .NET 5 or later") &&
                      strstr(said, "not profiling"),
                  "%s, %s: the message names the version and what is needed: \"%s\"",
                  runtimes[i].says, j ? "attach" : "startup", said);
            CHECK(atomic_load(&rt.runtime_info_calls) == 1 && atomic_load(&rt.set_mask_calls) == 0,
                  "%s: asked its version, set no event mask", runtimes[i].says);
            CHECK(atomic_load(&rt.refs) == 1, "%s: no reference kept (runtime refs %d)",
                  runtimes[i].says, atomic_load(&rt.refs));
            CHECK(threads_named(AGENT_THREAD_NAME) == 0, "%s: no agent thread", runtimes[i].says);
            CHECK(accept_agent(0) < 0, "%s: no connection", runtimes[i].says);
            /* nothing was claimed: the object's Shutdown is a no-op */
            CHECK(x->lpVtbl->Shutdown(x) == S_OK, "Shutdown of a refused object");
            CHECK(x->lpVtbl->Release(x) == 0, "Release -> 0");
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Who owns the agent: each test claims it for itself and gives it back     */
/* ------------------------------------------------------------------------ */

/* The runtimes of the tests (A: the usual owner, B: one declined beside it,
 * C: a later owner) and the server's connections to their agents. */
static fake_runtime rt_a, rt_b, rt_c;
static ICorProfilerCallback11 *obj_a, *obj_b, *obj_c;
static conn conn_a = {.fd = -1}, conn_c = {.fd = -1};

/* The runtime that owns the agent now and the connection its agent made
 * (obj NULL: nobody). Every test leaves the agent unclaimed, as a runtime
 * gives it up for good: a detach (ProfilerDetachSucceeded releases the claim;
 * a Shutdown never does, so the shutdown test runs in a process of its own). */
typedef struct owner {
    fake_runtime *rt;
    ICorProfilerCallback11 *obj;
    conn *c;
} owner;
static owner claimed;

/* Starts conn c on a connection the agent makes within timeout_ms, and
 * reads its first frame (the hello). 0, or -1 when none came. */
static int conn_accept(conn *c, int timeout_ms)
{
    memset(c, 0, sizeof(*c));
    c->next_seq = 1;
    c->fd = accept_agent(timeout_ms);
    return c->fd >= 0 && conn_read(c, 3000) == 1 ? 0 : -1;
}

/* Runtime `rt` (instance id `instance`) starts with object *obj (made here)
 * and the settings in the environment; on S_OK it owns the agent, and the
 * agent's connection, its hello read, is c. 0, or -1 after a failed check. */
static int claim(fake_runtime *rt, uint16_t instance, ICorProfilerCallback11 **obj, conn *c)
{
    HRESULT hr;

    if (setup() != 0)
        return -1;
    fake_init(rt, instance);
    *obj = new_profiler();
    if (!CHECK(*obj != NULL, "a profiler object for runtime %u", instance))
        return -1;
    hr = (*obj)->lpVtbl->Initialize(*obj, &rt->unk);
    if (!CHECK(hr == S_OK, "runtime %u: Initialize -> S_OK (0x%08x)", instance, (unsigned)hr))
        return -1;
    claimed = (owner){rt, *obj, c};
    return CHECK(conn_accept(c, 3000) == 0 && c->last.type == WIRE_HELLO,
                 "runtime %u: its agent connected and said hello", instance)
               ? 0
               : -1;
}

/* Runtime A owns the agent: where every test of a running agent starts. */
static int a_up(void) { return claim(&rt_a, 3, &obj_a, &conn_a); }

/* The owner gives the agent back as a runtime does on a detach: the command,
 * RequestProfilerDetach (the fake agrees), the agent's thread gone, then
 * ProfilerDetachSucceeded; the connection read to its end and closed. */
static void release_claim(void)
{
    wire_cmd_detach cmd = {0};
    tail_info tail;
    owner o = claimed;

    if (!o.obj)
        return;
    claimed = (owner){0};
    atomic_store(&o.rt->detach_result, S_OK);
    if (o.c->fd >= 0 && send_command(o.c->fd, WIRE_CMD_DETACH, &cmd, sizeof(cmd)) == 0)
        conn_wait_type(o.c, WIRE_DETACH_STATUS, 3000);
    CHECK(wait_threads_named(AGENT_THREAD_NAME, 0, 3000) == 0,
          "the owner's agent asked for a detach and its thread left");
    o.obj->lpVtbl->ProfilerDetachSucceeded(o.obj);
    if (o.c->fd >= 0) {
        memset(&tail, 0, sizeof(tail));
        conn_read_to_eof(o.c, 3000, &tail);
        close(o.c->fd);
        o.c->fd = -1;
    }
}

/* Releases *obj (when the test has not), which must be its last reference. */
static void release_object(ICorProfilerCallback11 **obj, const char *what)
{
    ULONG refs;

    if (!*obj)
        return;
    refs = (*obj)->lpVtbl->Release(*obj);
    CHECK(refs == 0, "%s released (%u)", what, refs);
    *obj = NULL;
}

/* Runs body in a child process, as after a runtime's Shutdown nothing can
 * claim the agent again in the process (the runtime's process ends). The
 * child's checks count here: it sends its counts back through a pipe. */
static pid_t child_pid;

static void in_child(void (*body)(void))
{
    unsigned long counts[2] = {0, 0};
    int fds[2], status = 0;
    ssize_t got = -1;

    fflush(stdout);
    if (!CHECK(pipe(fds) == 0, "a pipe for the child's counts"))
        return;
    child_pid = fork();
    if (child_pid == 0) {
        close(fds[0]);
        check_passed = check_failed = 0;
        body();
        counts[0] = check_passed, counts[1] = check_failed;
        got = write(fds[1], counts, sizeof(counts));
        fflush(stdout);
        _exit(got == (ssize_t)sizeof(counts) ? 0 : 1);
    }
    close(fds[1]);
    if (child_pid > 0) {
        got = read(fds[0], counts, sizeof(counts));
        waitpid(child_pid, &status, 0);
    }
    close(fds[0]);
    child_pid = 0;
    check_passed += counts[0];
    check_failed += counts[1];
    CHECK(got == (ssize_t)sizeof(counts) && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the child process ran the test to its end");
}

/* 300 trials by default (JITSCOPE_TEST_ATTACH_RACE=<trials>): two runtimes call
 * InitializeForAttach at the same moment with different client data. Exactly
 * one must win, and the winner's hello must carry the winner's own token: the
 * loser's client data must never reach the agent's state. Each trial ends with
 * a detach, so the claim is free for the next one. */
static ICorProfilerCallback11 *race_objs[2];
static fake_runtime race_rts[2];
static conn race_conn = {.fd = -1};
static char race_data[2][256];
static _Atomic int race_go;
static HRESULT race_hr[2];

static void *race_thread(void *arg)
{
    int i = (int)(intptr_t)arg;

    while (!atomic_load(&race_go))
        ;
    race_hr[i] = race_objs[i]->lpVtbl->InitializeForAttach(
        race_objs[i], &race_rts[i].unk, race_data[i], (UINT)strlen(race_data[i]));
    return NULL;
}

TEST(attach_race)
{
    static const char *const tokens[2] = {"11111111111111111111111111111111",
                                          "22222222222222222222222222222222"};
    const char *env = getenv("JITSCOPE_TEST_ATTACH_RACE");
    int trials = env && strtol(env, NULL, 10) > 0 ? (int)strtol(env, NULL, 10) : 300, trial,
        wrong = 0, both = 0, none = 0, lost = 0;

    if (setup() != 0)
        return;
    for (trial = 0; trial < trials; trial++) {
        conn *c = &race_conn;
        wire_cmd_detach cmd = {0};
        pthread_t t[2];
        tail_info tail;
        wire_hello h;
        int i, w;

        for (i = 0; i < 2; i++) {
            fake_init(&race_rts[i], (uint16_t)(20 + i));
            race_objs[i] = new_profiler();
            snprintf(race_data[i], sizeof(race_data[i]), "%s%s %s", WIRE_CLIENT_DATA_PREFIX,
                     tokens[i], sock_path);
        }
        atomic_store(&race_go, 0);
        for (i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, race_thread, (void *)(intptr_t)i);
        atomic_store(&race_go, 1);
        for (i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        if (race_hr[0] == S_OK && race_hr[1] == S_OK) {
            both++;
            break; /* two owners: nothing sane can follow */
        }
        if (race_hr[0] != S_OK && race_hr[1] != S_OK) {
            none++;
            break;
        }
        w = race_hr[0] == S_OK ? 0 : 1;
        claimed = (owner){&race_rts[w], race_objs[w], c};
        if (conn_accept(c, 3000) != 0 || c->last.type != WIRE_HELLO) {
            lost++;
            break;
        }
        memcpy(&h, c->last_payload, sizeof(h));
        if (memcmp(h.token, tokens[w], WIRE_TOKEN_LEN) != 0 || h.clr_instance_id != 20 + w) {
            if (wrong++ < 3)
                printf("  trial %d: runtime %d won, its hello says instance %u, token %.32s\n",
                       trial, w, h.clr_instance_id, h.token);
        }
        send_command(c->fd, WIRE_CMD_DETACH, &cmd, sizeof(cmd));
        if (conn_wait_type(c, WIRE_DETACH_STATUS, 3000) != 1) {
            lost++;
            break;
        }
        race_objs[w]->lpVtbl->ProfilerDetachSucceeded(race_objs[w]);
        claimed = (owner){0};
        memset(&tail, 0, sizeof(tail));
        conn_read_to_eof(c, 3000, &tail);
        close(c->fd);
        c->fd = -1;
        for (i = 0; i < 2; i++) {
            race_objs[i]->lpVtbl->Release(race_objs[i]);
            race_objs[i] = NULL;
        }
    }
    CHECK(both == 0 && none == 0, "exactly one of two racing runtimes wins (both %d, none %d)",
          both, none);
    CHECK(lost == 0, "every trial's winner connected and detached");
    CHECK(wrong == 0, "the winner's hello carries the winner's token (wrong in %d of %d trials)",
          wrong, trial);
}

TEST(side_by_side)
{
    char client_data[256];
    ThreadID managed = 0x5555AAAAu;
    wire_thread t;
    DWORD mask;
    HRESULT hr;
    int n;

    if (setup() != 0)
        return;
    /* runtime A: first, so it owns the agent; the agent connects to us and says hello */
    if (a_up() != 0)
        return;
    fake_init(&rt_b, 4);
    obj_b = new_profiler();
    if (!CHECK(obj_b && obj_a != obj_b, "two profiler objects for two runtimes"))
        return;
    CHECK(atomic_load(&rt_a.info10_handed_out) == 1, "A: the agent asked for ICorProfilerInfo10");
    CHECK(atomic_load(&rt_a.unexpected_qi) == 0, "A: no other interface was asked for");
    CHECK(atomic_load(&rt_a.runtime_info_calls) >= 1, "A: GetRuntimeInformation called");
    CHECK(atomic_load(&rt_a.refs) == 2,
          "A: the agent holds one ICorProfilerInfo10 reference "
          "(runtime refs %d)",
          atomic_load(&rt_a.refs));
    CHECK(atomic_load(&rt_a.set_mask_calls) == 1, "A: SetEventMask2 called once (%d)",
          atomic_load(&rt_a.set_mask_calls));
    mask = atomic_load(&rt_a.mask);
    CHECK(mask & REAL_MONITOR_JIT_COMPILATION, "A: mask has JIT compilation (0x%08x)", mask);
    CHECK(mask & REAL_MONITOR_MODULE_LOADS, "A: mask has module loads");
    CHECK(mask & REAL_MONITOR_ASSEMBLY_LOADS, "A: mask has assembly loads");
    CHECK(mask & REAL_MONITOR_THREADS, "A: mask has threads");
    CHECK(mask & REAL_MONITOR_SUSPENDS, "A: mask has runtime suspensions");
    CHECK(mask & REAL_ENABLE_STACK_SNAPSHOT, "A: mask enables DoStackSnapshot");
    CHECK(atomic_load(&rt_a.mask_high) == (REAL_HIGH_BASIC_GC | REAL_HIGH_MONITOR_EVENT_PIPE),
          "A: high mask is BASIC_GC and the EventPipe of the tier source (0x%08x)",
          atomic_load(&rt_a.mask_high));
    CHECK(atomic_load(&rt_a.info12_asked) == 1,
          "A: asked once for ICorProfilerInfo12 (the tier source), and ran on without it");
    CHECK((atomic_load(&rt_a.mask_high) & REAL_HIGH_IMMUTABLE) == 0 &&
              (atomic_load(&rt_a.mask_high) & ~REAL_HIGH_ALLOWABLE_AFTER_ATTACH) == 0 &&
              (atomic_load(&rt_a.mask_high) & ~COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH) == 0,
          "A: high mask: nothing immutable, all allowed after attach");
    CHECK((mask & COR_PRF_MONITOR_IMMUTABLE) == 0 && (mask & REAL_IMMUTABLE_MAX) == 0,
          "A: nothing immutable in the mask (detach stays possible)");
    CHECK((mask & REAL_MONITOR_ENTERLEAVE) == 0, "A: no enter/leave hooks");
    /* a startup agent also asks for the ReadyToRun searches, which an attach may not have */
    CHECK(mask & REAL_MONITOR_CACHE_SEARCHES, "A (startup): mask has the cache searches");
    CHECK((mask & ~REAL_MONITOR_CACHE_SEARCHES & ~COR_PRF_ALLOWABLE_AFTER_ATTACH) == 0 &&
              (mask & ~REAL_MONITOR_CACHE_SEARCHES & ~REAL_ALLOWABLE_AFTER_ATTACH_MIN) == 0,
          "A: everything else in the mask is allowed after attach (0x%08x)", mask);

    check_hello(&conn_a, TOKEN_A, WIRE_MODE_STARTUP, 3);
    CHECK(wait_threads_named(AGENT_THREAD_NAME, 1, 1000) == 1,
          "A: one \"" AGENT_THREAD_NAME "\" thread");

    /* records flow from A's callbacks to the socket */
    hr = obj_a->lpVtbl->ThreadCreated(obj_a, managed);
    CHECK(hr == S_OK, "A: ThreadCreated -> S_OK");
    if (CHECK(conn_wait_type(&conn_a, WIRE_THREAD_CREATED, 2000) == 1,
              "A: WIRE_THREAD_CREATED arrives") &&
        CHECK(conn_a.last_length == sizeof(t), "A: thread record size")) {
        memcpy(&t, conn_a.last_payload, sizeof(t));
        CHECK(t.thread_id == managed && t.os_thread_id == FAKE_OS_TID(managed),
              "A: thread record carries the ThreadID and the runtime's OS tid");
    }

    /* runtime B, side by side: declined, untouched */
    hr = obj_b->lpVtbl->Initialize(obj_b, &rt_b.unk);
    CHECK(hr == CORPROF_E_PROFILER_CANCEL_ACTIVATION,
          "runtime B: Initialize -> CORPROF_E_PROFILER_CANCEL_ACTIVATION (0x%08x)", (unsigned)hr);
    snprintf(client_data, sizeof(client_data), "%s%s %s", WIRE_CLIENT_DATA_PREFIX, TOKEN_C,
             sock_path);
    hr = obj_b->lpVtbl->InitializeForAttach(obj_b, &rt_b.unk, client_data,
                                            (UINT)strlen(client_data));
    CHECK(hr == CORPROF_E_PROFILER_CANCEL_ACTIVATION,
          "runtime B: InitializeForAttach (valid client data) -> "
          "CORPROF_E_PROFILER_CANCEL_ACTIVATION (0x%08x)",
          (unsigned)hr);
    CHECK(atomic_load(&rt_b.set_mask_calls) == 0, "B: SetEventMask never called");
    CHECK(atomic_load(&rt_b.unk_qi_calls) == 0 && atomic_load(&rt_b.runtime_info_calls) == 0,
          "B: its runtime was never queried");
    CHECK(atomic_load(&rt_b.refs) == 1, "B: no reference kept on B's runtime");
    n = accept_agent(300);
    CHECK(n < 0, "B: no second connection within 300 ms");
    if (n >= 0)
        close(n);
    CHECK(threads_named(AGENT_THREAD_NAME) == 1, "still one agent thread");

    /* B's runtime going away must not take A's agent with it */
    CHECK(obj_b->lpVtbl->Shutdown(obj_b) == S_OK, "B: Shutdown -> S_OK");
    CHECK(obj_b->lpVtbl->ProfilerAttachComplete(obj_b) == S_OK, "B: ProfilerAttachComplete");
    CHECK(obj_b->lpVtbl->ProfilerDetachSucceeded(obj_b) == S_OK,
          "B: ProfilerDetachSucceeded -> S_OK");
    CHECK(ping(&conn_a, 0x1122334455667788ull, 2000),
          "A's agent still answers a ping after B's Shutdown/DetachSucceeded");
    CHECK(threads_named(AGENT_THREAD_NAME) == 1, "A's agent thread still runs");
    CHECK(atomic_load(&rt_a.refs) == 2, "A's ICorProfilerInfo10 reference is still held");
    CHECK(atomic_load(&rt_a.detach_calls) == 0, "nobody asked A's runtime for a detach");
    CHECK(conn_a.seq_errors == 0 && conn_a.bad_length == 0,
          "A: frame sequence numbers 1, 2, 3 ... without a gap (%u frames)", conn_a.frames);
}

/* ------------------------------------------------------------------------ */
/* Stacks, profile, GC timeline (runtime A owns the agent: a_up)            */
/* ------------------------------------------------------------------------ */

/* One snapshot or sample as the server sees it. */
typedef struct snap_read {
    wire_stack_end end;
    uint64_t end_time;
    unsigned nthreads;
    wire_stack_thread threads[FAKE_MAX_THREADS + 1];
    uint64_t thread_time[FAKE_MAX_THREADS + 1];
    wire_stack_frame frames[FAKE_MAX_THREADS + 1][WIRE_STACK_MAX_FRAMES];
    unsigned unnamed;     /* managed frames with no FUNCTION_NAME before their record */
    unsigned bad_records; /* STACK_THREAD whose length does not match its frame_count */
    unsigned statuses;    /* PROFILE_STATUS records met on the way */
    wire_profile_status status;
} snap_read;

static snap_read snap;

static void snap_thread(conn *c, snap_read *s)
{
    wire_stack_thread t;
    uint32_t i;

    if (c->last_length < sizeof(t)) {
        s->bad_records++;
        return;
    }
    memcpy(&t, c->last_payload, sizeof(t));
    if (c->last_length != sizeof(t) + t.frame_count * sizeof(wire_stack_frame) ||
        t.frame_count > WIRE_STACK_MAX_FRAMES) {
        s->bad_records++;
        return;
    }
    if (s->nthreads && s->threads[0].snapshot_id != t.snapshot_id)
        s->nthreads = 0; /* another walk's records: start again */
    if (s->nthreads > FAKE_MAX_THREADS)
        return;
    s->threads[s->nthreads] = t;
    s->thread_time[s->nthreads] = c->last.time_ns;
    memcpy(s->frames[s->nthreads], c->last_payload + sizeof(t),
           t.frame_count * sizeof(wire_stack_frame));
    for (i = 0; i < t.frame_count; i++)
        if (s->frames[s->nthreads][i].function_id &&
            !conn_was_named(c, s->frames[s->nthreads][i].function_id))
            s->unnamed++;
    s->nthreads++;
}

/* Reads until the STACK_END of kind `kind` and (snapshots) `request_id`,
 * keeping that walk's STACK_THREAD records. 1, or -1 on timeout / EOF. */
static int read_snapshot(conn *c, uint32_t kind, uint64_t request_id, snap_read *s, int timeout_ms)
{
    double deadline = now_s() + timeout_ms / 1000.0;

    memset(s, 0, sizeof(*s));
    for (;;) {
        int left = (int)((deadline - now_s()) * 1000.0);
        if (left <= 0 || conn_read(c, left) != 1)
            return -1;
        if (c->last.type == WIRE_STACK_THREAD) {
            snap_thread(c, s);
        } else if (c->last.type == WIRE_PROFILE_STATUS &&
                   c->last_length == sizeof(wire_profile_status)) {
            memcpy(&s->status, c->last_payload, sizeof(s->status));
            s->statuses++;
        } else if (c->last.type == WIRE_STACK_END && c->last_length == sizeof(s->end)) {
            memcpy(&s->end, c->last_payload, sizeof(s->end));
            s->end_time = c->last.time_ns;
            if (s->end.kind == kind &&
                (kind != WIRE_STACK_SNAPSHOT || s->end.request_id == request_id)) {
                if (s->nthreads && s->threads[0].snapshot_id != s->end.snapshot_id)
                    s->nthreads = 0;
                return 1;
            }
            s->nthreads = 0;
        }
    }
}

/* Reads until a PROFILE_STATUS in `state`; samples seen on the way are counted. */
static int read_status(conn *c, uint32_t state, wire_profile_status *out, unsigned *samples,
                       int timeout_ms)
{
    double deadline = now_s() + timeout_ms / 1000.0;

    for (;;) {
        int left = (int)((deadline - now_s()) * 1000.0);
        if (left <= 0 || conn_read(c, left) != 1)
            return -1;
        if (c->last.type == WIRE_STACK_END && samples)
            (*samples)++;
        if (c->last.type == WIRE_PROFILE_STATUS && c->last_length == sizeof(*out)) {
            memcpy(out, c->last_payload, sizeof(*out));
            if (out->state == state)
                return 1;
        }
    }
}

static int wait_flag(_Atomic int *flag, int timeout_ms)
{
    double deadline = now_s() + timeout_ms / 1000.0;

    while (!atomic_load(flag) && now_s() < deadline)
        sleep_ms(1);
    return atomic_load(flag);
}

static int send_snapshot(conn *c, uint64_t request_id)
{
    wire_cmd_snapshot cmd = {request_id};
    return send_command(c->fd, WIRE_CMD_SNAPSHOT, &cmd, sizeof(cmd));
}

static int send_profile(conn *c, uint32_t hz, uint32_t budget, uint32_t duration_ms)
{
    wire_cmd_profile_start cmd = {hz, budget, duration_ms, 0};
    return send_command(c->fd, WIRE_CMD_PROFILE_START, &cmd, sizeof(cmd));
}

static int send_profile_stop(conn *c)
{
    wire_cmd_profile_stop cmd = {0};
    return send_command(c->fd, WIRE_CMD_PROFILE_STOP, &cmd, sizeof(cmd));
}

/* The frames of thread `t` as the fake reported them, leaf first, up to n. */
static int frames_match(const wire_stack_frame *f, ThreadID t, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++)
        if (f[i].function_id != FAKE_FID(t, i) || f[i].ip != FAKE_IP(t, i))
            return 0;
    return 1;
}

TEST(gc_timeline)
{
    BOOL gens[3] = {TRUE, FALSE, TRUE};
    wire_cmd_ping ping = {0x71E11E};
    uint16_t types[16];
    uint8_t payloads[16][8];
    unsigned n = 0;

    if (a_up() != 0)
        return;
    /* the ends of a collection and a suspension that began before the agent */
    obj_a->lpVtbl->GarbageCollectionFinished(obj_a);
    obj_a->lpVtbl->RuntimeSuspendFinished(obj_a);
    obj_a->lpVtbl->RuntimeResumeFinished(obj_a);
    /* then a whole collection with its suspension */
    CHECK(obj_a->lpVtbl->GarbageCollectionStarted(obj_a, 3, gens, COR_PRF_GC_INDUCED) == S_OK,
          "GarbageCollectionStarted -> S_OK");
    obj_a->lpVtbl->RuntimeSuspendStarted(obj_a, COR_PRF_SUSPEND_FOR_GC);
    obj_a->lpVtbl->RuntimeSuspendFinished(obj_a);
    obj_a->lpVtbl->RuntimeResumeStarted(obj_a);
    obj_a->lpVtbl->RuntimeResumeFinished(obj_a);
    obj_a->lpVtbl->RuntimeSuspendAborted(obj_a);
    CHECK(obj_a->lpVtbl->GarbageCollectionFinished(obj_a) == S_OK,
          "GarbageCollectionFinished -> S_OK");
    send_command(conn_a.fd, WIRE_CMD_PING, &ping, sizeof(ping));
    while (n < 16 && conn_read(&conn_a, 2000) == 1 && conn_a.last.type != WIRE_PONG) {
        uint16_t t = conn_a.last.type;
        if (t == WIRE_GC_STARTED || t == WIRE_GC_FINISHED || t == WIRE_RUNTIME_SUSPEND) {
            types[n] = t;
            memcpy(payloads[n], conn_a.last_payload, 8);
            CHECK(conn_a.last_length == 8, "timeline record of 8 bytes (type %u: %u)", t,
                  conn_a.last_length);
            n++;
        }
    }
    if (!CHECK(n == 7, "7 timeline records, the 3 lone ends ignored (got %u)", n))
        return;
    {
        wire_gc_started g;
        wire_runtime_suspend s;
        static const uint32_t phases[5] = {WIRE_SUSPEND_STARTED, WIRE_SUSPEND_FINISHED,
                                           WIRE_RESUME_STARTED, WIRE_RESUME_FINISHED,
                                           WIRE_SUSPEND_ABORTED};
        unsigned i;

        memcpy(&g, payloads[0], sizeof(g));
        CHECK(types[0] == WIRE_GC_STARTED && g.generations == 0x5u && g.reason == 1,
              "GC_STARTED first: generations 0 and 2 (mask 0x%x), induced (%u)", g.generations,
              g.reason);
        for (i = 0; i < 5; i++) {
            memcpy(&s, payloads[1 + i], sizeof(s));
            CHECK(types[1 + i] == WIRE_RUNTIME_SUSPEND && s.phase == phases[i],
                  "RUNTIME_SUSPEND phase %u in order (got type %u phase %u)", phases[i],
                  types[1 + i], s.phase);
            CHECK(s.reason == COR_PRF_SUSPEND_FOR_GC,
                  "phase %u carries its suspension's reason: for GC (%u)", phases[i], s.reason);
        }
        CHECK(types[6] == WIRE_GC_FINISHED, "GC_FINISHED last (type %u)", types[6]);
    }
}

/* Sorts for the median below. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

TEST(jit_info)
{
    enum { BATCH = 400, BATCHES = 31 }; /* a batch's records (48 B each) fit the 64 KiB ring */
    const ThreadID me = (ThreadID)0x7000u + (ThreadID)(unsigned)my_tid();
    BOOL yes = TRUE, no = FALSE, cached = TRUE;
    wire_cmd_ping ping = {0x1A11E};
    wire_inlining in[2];
    wire_code_search search[3];
    double per_call[BATCHES];
    unsigned n_in = 0, n_search = 0, b, i;

    if (a_up() != 0)
        return;
    CHECK(obj_a->lpVtbl->JITInlining(obj_a, 0x600A, 0x600B, &yes) == S_OK && yes == TRUE,
          "JITInlining -> S_OK, TRUE left TRUE");
    CHECK(obj_a->lpVtbl->JITInlining(obj_a, 0x600A, 0x600C, &no) == S_OK && no == FALSE,
          "JITInlining -> S_OK, FALSE left FALSE (the runtime's answer is never changed)");
    CHECK(obj_a->lpVtbl->JITCachedFunctionSearchStarted(obj_a, 0x600D, &cached) == S_OK &&
              cached == TRUE,
          "JITCachedFunctionSearchStarted -> S_OK, the precompiled code still used");
    obj_a->lpVtbl->JITCachedFunctionSearchFinished(obj_a, 0x600D, COR_PRF_CACHED_FUNCTION_FOUND);
    obj_a->lpVtbl->JITCachedFunctionSearchFinished(obj_a, 0x600E,
                                                   COR_PRF_CACHED_FUNCTION_NOT_FOUND);
    send_command(conn_a.fd, WIRE_CMD_PING, &ping, sizeof(ping));
    while (conn_read(&conn_a, 2000) == 1 && conn_a.last.type != WIRE_PONG) {
        if (conn_a.last.type == WIRE_INLINING && n_in < 2 &&
            CHECK(conn_a.last_length == sizeof(wire_inlining), "INLINING of %zu bytes (%u)",
                  sizeof(wire_inlining), conn_a.last_length))
            memcpy(&in[n_in++], conn_a.last_payload, sizeof(in[0]));
        if (conn_a.last.type == WIRE_CODE_SEARCH && n_search < 3 &&
            CHECK(conn_a.last_length == sizeof(wire_code_search), "CODE_SEARCH of %zu bytes (%u)",
                  sizeof(wire_code_search), conn_a.last_length))
            memcpy(&search[n_search++], conn_a.last_payload, sizeof(search[0]));
    }
    if (CHECK(n_in == 2, "2 INLINING records (got %u)", n_in))
        CHECK(in[0].caller == 0x600A && in[0].callee == 0x600B && in[0].thread_id == me &&
                  in[1].caller == 0x600A && in[1].callee == 0x600C && in[1].thread_id == me,
              "INLINING: caller, callee and the JIT thread's ThreadID, in order");
    if (CHECK(n_search == 3, "3 CODE_SEARCH records (got %u)", n_search))
        CHECK(search[0].function_id == 0x600D && search[0].result == WIRE_SEARCH_STARTED &&
                  search[1].function_id == 0x600D && search[1].result == WIRE_SEARCH_FOUND &&
                  search[2].function_id == 0x600E && search[2].result == WIRE_SEARCH_NOT_FOUND,
              "CODE_SEARCH: started, found, not found");

    /* The cost on the JIT thread: batches of calls timed, the ring emptied between
     * them (the sender forwards; the ping's answer comes after the batch). */
    for (b = 0; b < BATCHES; b++) {
        double t0 = now_s();
        for (i = 0; i < BATCH; i++) {
            BOOL answer = TRUE;
            obj_a->lpVtbl->JITInlining(obj_a, 0x600A, 0x6010 + (i & 7), &answer);
        }
        per_call[b] = (now_s() - t0) * 1e9 / BATCH;
        ping.cookie = 0x1A11F + b;
        send_command(conn_a.fd, WIRE_CMD_PING, &ping, sizeof(ping));
        while (conn_read(&conn_a, 2000) == 1 && conn_a.last.type != WIRE_PONG)
            ;
    }
    qsort(per_call, BATCHES, sizeof(per_call[0]), cmp_double);
    printf("  JITInlining on the JIT thread: %.0f ns a call (median of %d batches of %d; "
           "fastest %.0f, slowest %.0f)\n",
           per_call[BATCHES / 2], BATCHES, BATCH, per_call[0], per_call[BATCHES - 1]);
    CHECK(per_call[BATCHES / 2] < 5000.0,
          "JITInlining stays a ring write: %.0f ns a call (median), under 5 us",
          per_call[BATCHES / 2]);
}

/* The tier source's events for one compilation, on this (the JIT) thread:
 * MethodJittingStarted (id 145: MethodID, ModuleID, token, IL size), and with
 * load_start the MethodLoadVerbose (143: MethodID, ModuleID, start, size,
 * token, flags with the tier in bits 7-9 and 0x8 "jitted"). */
static void tier_events(FunctionID fid, uint64_t load_start)
{
    uint8_t started[24] = {0}, loaded[36] = {0};
    uint32_t il = 17, size = 99, flags = 0x8u | (WIRE_TIER_1 << 7);

    memcpy(started, &fid, 8);
    memcpy(started + 20, &il, 4);
    obj_a->lpVtbl->EventPipeEventDelivered(obj_a, 0, 145, 0, 0, NULL, sizeof(started), started,
                                           NULL, NULL, 0, 0, NULL);
    if (!load_start)
        return;
    memcpy(loaded, &fid, 8);
    memcpy(loaded + 16, &load_start, 8);
    memcpy(loaded + 24, &size, 4);
    memcpy(loaded + 32, &flags, 4);
    obj_a->lpVtbl->EventPipeEventDelivered(obj_a, 0, 143, 0, 0, NULL, sizeof(loaded), loaded, NULL,
                                           NULL, 0, 0, NULL);
}

/* A compilation's code and tier come from the tier source's MethodLoad; one
 * whose MethodJittingStarted came but not its MethodLoad (the tier source
 * stopped while it compiled: Shutdown, switched off) is described by the
 * runtime instead, so its code is known and counts as a code version (a
 * tier-up at an app's exit showed 2 compilations and 1 code version). */
TEST(jit_without_method_load)
{
    const FunctionID with = 0x6A01, without = 0x6A02;
    wire_cmd_ping ping = {0x7A1E5};
    wire_jit_finished j[2];
    uint64_t version = 0;
    unsigned n = 0;
    uint32_t lengths[2] = {0, 0};

    if (a_up() != 0)
        return;
    obj_a->lpVtbl->JITCompilationStarted(obj_a, with, TRUE);
    tier_events(with, 0x7f0000001000ull);
    obj_a->lpVtbl->JITCompilationFinished(obj_a, with, S_OK, TRUE);
    obj_a->lpVtbl->JITCompilationStarted(obj_a, without, TRUE);
    tier_events(without, 0);
    obj_a->lpVtbl->JITCompilationFinished(obj_a, without, S_OK, TRUE);
    send_command(conn_a.fd, WIRE_CMD_PING, &ping, sizeof(ping));
    while (conn_read(&conn_a, 3000) == 1 && conn_a.last.type != WIRE_PONG)
        if (conn_a.last.type == WIRE_JIT_FINISHED && n < 2) {
            memcpy(&j[n], conn_a.last_payload, sizeof(j[n]));
            lengths[n] = conn_a.last_length;
            if (n == 1 && conn_a.last_length >= sizeof(j[1]) + sizeof(wire_code_version))
                memcpy(&version, conn_a.last_payload + sizeof(j[1]), sizeof(version));
            n++;
        }
    if (!CHECK(n == 2, "2 JIT_FINISHED records (%u)", n))
        return;
    CHECK(
        j[0].function_id == with && j[0].code_start == 0x7f0000001000ull && j[0].code_size == 99 &&
            j[0].tier == WIRE_TIER_1 && j[0].il_size == 17 && lengths[0] == sizeof(j[0]),
        "with its MethodLoad: the tier, code and IL size the events said, no call to the runtime");
    CHECK(j[1].function_id == without && j[1].tier == WIRE_TIER_UNKNOWN && j[1].il_size == 17,
          "without it: tier unknown, the IL size from MethodJittingStarted");
    CHECK(j[1].code_versions == 1 && version == 0x7e0000000000ull + without * 64u,
          "without it: the code versions the runtime lists (%u, 0x%llx), so the new one counts",
          j[1].code_versions, (unsigned long long)version);
}

TEST(snapshot)
{
    const ThreadID t1 = 0xA1, t2 = 0xA2, t3 = 0xA3;
    int before_ok = atomic_load(&fs.suspend_ok), before_resume = atomic_load(&fs.resume_calls);
    unsigned i;

    if (a_up() != 0)
        return;
    CHECK(threads_named("jitscope-walk") == 0, "no walker thread before the first command");
    fake_stacks_reset();
    fake_add_thread(t1, 10, S_OK, 0);  /* 10 frames, two of them native */
    fake_add_thread(t2, 2, E_FAIL, 0); /* the runtime fails this one */
    fake_add_thread(t3, 600, S_OK, 0); /* deeper than WIRE_STACK_MAX_FRAMES */
    fs.list_self = 1;                  /* the walker is listed too */
    atomic_store(&fs.peek_fd, conn_a.fd);
    CHECK(send_snapshot(&conn_a, 0x5EED0001ull) == 0, "WIRE_CMD_SNAPSHOT sent");
    /* do not read until the fake resumed: it looks at the socket while suspended */
    CHECK(wait_flag(&fs.peek_done, 5000), "the walker suspended, walked and resumed");
    atomic_store(&fs.peek_fd, -1);
    if (!CHECK(read_snapshot(&conn_a, WIRE_STACK_SNAPSHOT, 0x5EED0001ull, &snap, 5000) == 1,
               "STACK_END for request 0x5EED0001 arrives"))
        return;
    CHECK(atomic_load(&fs.peek_stack_frames) == 0,
          "nothing of the walk reached the socket while the runtime was suspended (%d)",
          atomic_load(&fs.peek_stack_frames));
    CHECK(snap.end.kind == WIRE_STACK_SNAPSHOT && snap.end.request_id == 0x5EED0001ull,
          "STACK_END: kind snapshot, request_id echoed");
    CHECK(snap.end.threads_sent == 3 && snap.end.threads_total == 3,
          "STACK_END: 3 threads sent of 3 listed, the walker itself not counted (%u of %u)",
          snap.end.threads_sent, snap.end.threads_total);
    CHECK(snap.end.hresult == 0 && snap.end.retries == 0 && snap.end.effective_millihz == 0,
          "STACK_END: S_OK, no retries, no rate (0x%08x, %u, %u)", (unsigned)snap.end.hresult,
          snap.end.retries, snap.end.effective_millihz);
    CHECK(snap.end.suspend_ns >= 60000000ull && snap.end.suspend_ns < 5000000000ull,
          "STACK_END: suspend_ns spans SuspendRuntime..ResumeRuntime (the fake held 60 ms: %llu)",
          (unsigned long long)snap.end.suspend_ns);
    CHECK(snap.end.snapshot_id >= 1, "snapshot_id assigned (%llu)",
          (unsigned long long)snap.end.snapshot_id);
    CHECK(snap.bad_records == 0, "every STACK_THREAD is 40 bytes + its frames");
    if (!CHECK(snap.nthreads == 3, "3 STACK_THREAD records before the STACK_END (%u)",
               snap.nthreads))
        return;
    for (i = 0; i < 3; i++) {
        CHECK(snap.threads[i].snapshot_id == snap.end.snapshot_id,
              "thread %u: same snapshot_id as its STACK_END", i);
        CHECK(snap.thread_time[i] == snap.end_time && snap.end_time > 0,
              "thread %u: time_ns is the suspension's start, like the STACK_END's", i);
        CHECK(snap.threads[i].os_thread_id == FAKE_OS_TID(snap.threads[i].thread_id),
              "thread %u: OS thread id from GetThreadInfo", i);
    }
    CHECK(snap.threads[0].thread_id == t1 && snap.threads[1].thread_id == t2 &&
              snap.threads[2].thread_id == t3,
          "threads in the runtime's order, the walker skipped");
    CHECK(snap.threads[0].hresult == 0 && snap.threads[0].frame_count == 10 &&
              snap.threads[0].flags == 0 && frames_match(snap.frames[0], t1, 10),
          "thread 1: 10 frames leaf first as the fake gave them, native frames with their IP");
    CHECK(snap.frames[0][3].function_id == 0 && snap.frames[0][3].ip == FAKE_IP(t1, 3),
          "thread 1: a native frame is FunctionID 0 with its IP");
    CHECK(snap.threads[1].hresult == E_FAIL && snap.threads[1].frame_count == 2 &&
              frames_match(snap.frames[1], t2, 2),
          "thread 2: E_FAIL kept (0x%08x), with the 2 frames before it",
          (unsigned)snap.threads[1].hresult);
    CHECK(snap.threads[2].frame_count == WIRE_STACK_MAX_FRAMES &&
              (snap.threads[2].flags & WIRE_STACK_TRUNCATED) && snap.threads[2].hresult == 0 &&
              frames_match(snap.frames[2], t3, WIRE_STACK_MAX_FRAMES),
          "thread 3: 600 deep -> the 512 leaf frames, TRUNCATED, S_OK (%u frames, flags %u, "
          "hr 0x%08x)",
          snap.threads[2].frame_count, snap.threads[2].flags, (unsigned)snap.threads[2].hresult);
    CHECK(snap.end.walk_ns ==
              snap.threads[0].walk_ns + snap.threads[1].walk_ns + snap.threads[2].walk_ns,
          "STACK_END walk_ns is the sum of the threads' walk_ns");
    CHECK(snap.unnamed == 0,
          "every FunctionID had its FUNCTION_NAME before its STACK_THREAD "
          "(%u without)",
          snap.unnamed);
    CHECK(conn_a.bad_names == 0, "names come from GetFunctionInfo2 + metadata (M_<token>)");
    CHECK(atomic_load(&fs.suspend_ok) == before_ok + 1 &&
              atomic_load(&fs.resume_calls) == before_resume + 1,
          "one SuspendRuntime, one ResumeRuntime");
    CHECK(atomic_load(&fs.bad_resumes) == 0 && atomic_load(&fs.nested_suspends) == 0,
          "ResumeRuntime only while suspended by the same thread, no nested suspension");
    CHECK(atomic_load(&fs.unsuspended_walks) == 0, "no thread walked outside the suspension");
    CHECK(atomic_load(&fs.self_walked) == 0, "the walker never walks itself");
    CHECK(atomic_load(&fs.self_calls) == 1 && atomic_load(&fs.self_calls_suspended) == 0 &&
              atomic_load(&fs.init_thread_calls) == 1,
          "the walker's first call: one DoStackSnapshot of itself (and InitializeCurrentThread) "
          "before any suspension");
    CHECK(atomic_load(&fs.enums_live) == 0 && atomic_load(&fs.enums_released_suspended) == 0,
          "the thread enumerator is released, after ResumeRuntime");
    CHECK(atomic_load(&fs.bad_walk_flags) == 0, "DoStackSnapshot(DEFAULT, no context)");
    CHECK(atomic_load(&fs.foreign_calls) == 0,
          "no other agent thread called the runtime while it was suspended");
    CHECK(threads_named("jitscope-walk") == 1, "one \"jitscope-walk\" thread");
    CHECK(threads_named(AGENT_THREAD_NAME) == 1, "and the sender");
}

/* The "GC thread" of suspend_interleave, part A: starts a GC suspension while the
 * walker's ResumeRuntime has not finished, and ends it after. */
static void *interleave_gc_thread(void *arg)
{
    double deadline = now_s() + 5;

    (void)arg;
    while (!atomic_load(&fs.gc_go) && now_s() < deadline)
        sleep_ms(1);
    obj_a->lpVtbl->RuntimeSuspendStarted(obj_a, COR_PRF_SUSPEND_FOR_GC);
    atomic_store(&fs.gc_started, 1);
    while (!atomic_load(&fs.gc_finish_go) && now_s() < deadline)
        sleep_ms(1);
    obj_a->lpVtbl->RuntimeSuspendFinished(obj_a);
    obj_a->lpVtbl->RuntimeResumeStarted(obj_a);
    obj_a->lpVtbl->RuntimeResumeFinished(obj_a);
    return NULL;
}

/* Reads up to the STACK_END of `request_id`, keeping the RUNTIME_SUSPEND records. */
static unsigned read_phases(conn *c, uint64_t request_id, wire_runtime_suspend *out, unsigned max)
{
    double deadline = now_s() + 5;
    unsigned n = 0;

    while (now_s() < deadline && conn_read(c, 1000) == 1) {
        if (c->last.type == WIRE_RUNTIME_SUSPEND && n < max)
            memcpy(&out[n++], c->last_payload, sizeof(out[0]));
        if (c->last.type == WIRE_STACK_END) {
            wire_stack_end e;
            memcpy(&e, c->last_payload, sizeof(e));
            if (e.request_id == request_id)
                break;
        }
    }
    return n;
}

static int phases_are(const wire_runtime_suspend *got, unsigned n, const uint32_t want[][2],
                      unsigned nwant)
{
    unsigned i;

    if (n != nwant)
        return 0;
    for (i = 0; i < n; i++)
        if (got[i].phase != want[i][0] || got[i].reason != want[i][1])
            return 0;
    return 1;
}

TEST(suspend_interleave)
{
    /* A: ours resumes, a GC starts before our "resume finished" */
    static const uint32_t want_a[8][2] = {{1, 9}, {2, 9}, {4, 9}, {1, 1},
                                          {5, 9}, {2, 1}, {4, 1}, {5, 1}};
    /* B: a GC resumes, ours starts before the GC's "resume finished" */
    static const uint32_t want_b[8][2] = {{1, 1}, {2, 1}, {4, 1}, {1, 9},
                                          {2, 9}, {5, 1}, {4, 9}, {5, 9}};
    wire_runtime_suspend got[16];
    pthread_t gc;
    unsigned n, i;
    int ok0;

    if (a_up() != 0)
        return;
    fake_stacks_reset();
    fake_add_thread(0xAC, 2, S_OK, 0);
    atomic_store(&fs.gc_go, 0);
    atomic_store(&fs.gc_started, 0);
    atomic_store(&fs.gc_finish_go, 0);
    atomic_store(&fs.interleave, 1);
    atomic_store(&fs.callbacks, obj_a);
    if (!CHECK(pthread_create(&gc, NULL, interleave_gc_thread, NULL) == 0, "GC thread"))
        return;
    CHECK(send_snapshot(&conn_a, 0x1A) == 0, "A: snapshot sent");
    n = read_phases(&conn_a, 0x1A, got, 16);
    pthread_join(gc, NULL);
    atomic_store(&fs.interleave, 0);
    /* the GC's last phases may follow the STACK_END */
    {
        wire_cmd_ping ping = {0x1A1A};
        send_command(conn_a.fd, WIRE_CMD_PING, &ping, sizeof(ping));
        while (n < 16 && conn_read(&conn_a, 2000) == 1 && conn_a.last.type != WIRE_PONG)
            if (conn_a.last.type == WIRE_RUNTIME_SUSPEND)
                memcpy(&got[n++], conn_a.last_payload, sizeof(got[0]));
    }
    CHECK(phases_are(got, n, want_a, 8),
          "A: ours 1,2,4 / GC 1 / ours 5 / GC 2,4,5, every phase with its own suspension's "
          "reason (9 ours, 1 GC)");
    for (i = 0; i < n && i < 8; i++)
        if (got[i].phase != want_a[i][0] || got[i].reason != want_a[i][1])
            printf("  A record %u: phase %u reason %u\n", i, got[i].phase, got[i].reason);

    /* B: this thread plays the GC thread */
    ok0 = atomic_load(&fs.suspend_ok);
    obj_a->lpVtbl->RuntimeSuspendStarted(obj_a, COR_PRF_SUSPEND_FOR_GC);
    obj_a->lpVtbl->RuntimeSuspendFinished(obj_a);
    obj_a->lpVtbl->RuntimeResumeStarted(obj_a);
    atomic_store(&fs.peek_fd, -1);
    fs.threads[0].sleep_ms = 100; /* keep ours suspended while the GC finishes */
    CHECK(send_snapshot(&conn_a, 0x1B) == 0, "B: snapshot sent");
    {
        double deadline = now_s() + 3;
        while (atomic_load(&fs.suspend_ok) == ok0 && now_s() < deadline)
            sleep_ms(1);
    }
    obj_a->lpVtbl->RuntimeResumeFinished(obj_a); /* the GC's, after our start */
    n = read_phases(&conn_a, 0x1B, got, 16);
    CHECK(phases_are(got, n, want_b, 8),
          "B: GC 1,2,4 / ours 1,2 / GC 5 / ours 4,5, each with its own reason");
    for (i = 0; i < n && i < 8; i++)
        if (got[i].phase != want_b[i][0] || got[i].reason != want_b[i][1])
            printf("  B record %u: phase %u reason %u\n", i, got[i].phase, got[i].reason);
    atomic_store(&fs.callbacks, NULL);
}

TEST(snapshot_naming_lock)
{
    const ThreadID t4 = 0xA4;

    if (a_up() != 0)
        return;
    /* the sender names snapshot 1's 52 new functions, slowly, while the walker
     * takes snapshot 2 with a 30 ms walk: the runtime lock keeps them apart */
    fake_stacks_reset();
    fake_add_thread(t4, 60, S_OK, 30);
    atomic_store(&fs.name_sleep_us, 1000);
    atomic_store(&fs.foreign_calls, 0);
    CHECK(send_snapshot(&conn_a, 0x10C1) == 0 && send_snapshot(&conn_a, 0x10C2) == 0,
          "two WIRE_CMD_SNAPSHOT sent back to back");
    CHECK(read_snapshot(&conn_a, WIRE_STACK_SNAPSHOT, 0x10C1, &snap, 5000) == 1 &&
              snap.nthreads == 1 && snap.unnamed == 0,
          "snapshot 1 arrives, named");
    CHECK(read_snapshot(&conn_a, WIRE_STACK_SNAPSHOT, 0x10C2, &snap, 5000) == 1 &&
              snap.nthreads == 1 && snap.unnamed == 0,
          "snapshot 2 arrives, named");
    CHECK(atomic_load(&fs.foreign_calls) == 0,
          "the sender made no runtime call while the walker held the runtime suspended (%d)",
          atomic_load(&fs.foreign_calls));
    atomic_store(&fs.name_sleep_us, 0);
}

/* The cumulative drop counters of the next WIRE_DROPS (sent every 500 ms). */
static int read_drops(conn *c, wire_drops *out, int timeout_ms)
{
    if (conn_wait_type(c, WIRE_DROPS, timeout_ms) != 1 || c->last_length != sizeof(*out))
        return -1;
    memcpy(out, c->last_payload, sizeof(*out));
    return 0;
}

TEST(snapshot_dynamic)
{
    const ThreadID td = 0xAD, tm = 0xAE; /* td: dynamic methods; tm: methods with metadata */
    const unsigned depth = 12;
    unsigned i, managed = 0, dyn_named = 0, meta_unnamed = 0;
    wire_drops before, after, again;

    if (a_up() != 0)
        return;
    fake_stacks_reset();
    fake_add_thread(td, depth, S_OK, 0);
    fake_add_thread(tm, 5, S_OK, 0);
    atomic_store(&fs.dynamic_thread, td);
    atomic_store(&fs.dynamic_info_calls, 0);
    if (!CHECK(read_drops(&conn_a, &before, 2000) == 0, "a WIRE_DROPS before the snapshot"))
        return;
    CHECK(send_snapshot(&conn_a, 0xD7A1) == 0, "WIRE_CMD_SNAPSHOT sent");
    if (!CHECK(read_snapshot(&conn_a, WIRE_STACK_SNAPSHOT, 0xD7A1, &snap, 5000) == 1 &&
                   snap.nthreads == 2,
               "the snapshot arrives with both threads (%u)", snap.nthreads))
        return;
    CHECK(snap.threads[0].thread_id == td && snap.threads[0].frame_count == depth &&
              frames_match(snap.frames[0], td, depth),
          "the dynamic methods' frames are sent as the runtime gave them (FunctionID and IP)");
    for (i = 0; i < depth; i++) {
        if (!FAKE_FID(td, i))
            continue;
        managed++;
        dyn_named += conn_was_named(&conn_a, FAKE_FID(td, i));
    }
    for (i = 0; i < 5; i++)
        meta_unnamed += FAKE_FID(tm, i) && !conn_was_named(&conn_a, FAKE_FID(tm, i));
    CHECK(atomic_load(&fs.dynamic_info_calls) == 0,
          "GetDynamicFunctionInfo was never asked for a frame's FunctionID (%d calls)",
          atomic_load(&fs.dynamic_info_calls));
    CHECK(dyn_named == 0, "no FUNCTION_NAME for a dynamic method met in a stack (%u of %u)",
          dyn_named, managed);
    CHECK(meta_unnamed == 0, "the other thread's functions are named as before (%u without)",
          meta_unnamed);
    if (!CHECK(read_drops(&conn_a, &after, 2000) == 0, "a WIRE_DROPS after the snapshot"))
        return;
    CHECK(after.dropped[WIRE_DROP_NAME_LATE] - before.dropped[WIRE_DROP_NAME_LATE] == managed,
          "each dynamic method met is counted in name_late (%llu more, %u met)",
          (unsigned long long)(after.dropped[WIRE_DROP_NAME_LATE] -
                               before.dropped[WIRE_DROP_NAME_LATE]),
          managed);
    CHECK(after.dropped[WIRE_DROP_NAME_FAILED] == before.dropped[WIRE_DROP_NAME_FAILED],
          "and not as a name the runtime failed to give");

    /* the same frames again: counted once per connection, like a name is sent once */
    CHECK(send_snapshot(&conn_a, 0xD7A2) == 0, "a second WIRE_CMD_SNAPSHOT sent");
    CHECK(read_snapshot(&conn_a, WIRE_STACK_SNAPSHOT, 0xD7A2, &snap, 5000) == 1 &&
              snap.nthreads == 2,
          "the second snapshot arrives");
    if (CHECK(read_drops(&conn_a, &again, 2000) == 0, "a WIRE_DROPS after it"))
        CHECK(again.dropped[WIRE_DROP_NAME_LATE] == after.dropped[WIRE_DROP_NAME_LATE],
              "the same dynamic methods are not counted again (%llu, was %llu)",
              (unsigned long long)again.dropped[WIRE_DROP_NAME_LATE],
              (unsigned long long)after.dropped[WIRE_DROP_NAME_LATE]);
    CHECK(atomic_load(&fs.dynamic_info_calls) == 0, "still no GetDynamicFunctionInfo");
    atomic_store(&fs.dynamic_thread, 0);
}

TEST(snapshot_retries)
{
    int ok0, resume0, calls0;

    if (a_up() != 0)
        return;
    fake_stacks_reset();
    fake_add_thread(0xA5, 3, S_OK, 0);
    ok0 = atomic_load(&fs.suspend_ok), resume0 = atomic_load(&fs.resume_calls);
    calls0 = atomic_load(&fs.suspend_calls);
    atomic_store(&fs.busy_left, 3);
    CHECK(send_snapshot(&conn_a, 0x4E7) == 0, "snapshot with a suspension in progress");
    if (CHECK(read_snapshot(&conn_a, WIRE_STACK_SNAPSHOT, 0x4E7, &snap, 5000) == 1,
              "its STACK_END arrives")) {
        CHECK(snap.end.retries == 3 && snap.end.hresult == 0 && snap.end.threads_sent == 1,
              "3 x SUSPENSION_IN_PROGRESS, then walked: retries 3, S_OK (%u, 0x%08x)",
              snap.end.retries, (unsigned)snap.end.hresult);
        CHECK(atomic_load(&fs.suspend_calls) == calls0 + 4 &&
                  atomic_load(&fs.suspend_ok) == ok0 + 1 &&
                  atomic_load(&fs.resume_calls) == resume0 + 1,
              "4 SuspendRuntime calls, 1 success, 1 ResumeRuntime");
    }
    atomic_store(&fs.busy_left, 1000000);
    CHECK(send_snapshot(&conn_a, 0x4E8) == 0, "snapshot while suspension never becomes possible");
    if (CHECK(read_snapshot(&conn_a, WIRE_STACK_SNAPSHOT, 0x4E8, &snap, 5000) == 1,
              "its STACK_END arrives (bounded retries)")) {
        CHECK(snap.end.hresult == CORPROF_E_SUSPENSION_IN_PROGRESS && snap.end.retries >= 50 &&
                  snap.end.threads_sent == 0 && snap.end.suspend_ns == 0 && snap.nthreads == 0,
              "STACK_END carries CORPROF_E_SUSPENSION_IN_PROGRESS after %u retries, nothing "
              "walked (0x%08x)",
              snap.end.retries, (unsigned)snap.end.hresult);
        CHECK(atomic_load(&fs.resume_calls) == resume0 + 1 &&
                  atomic_load(&fs.suspend_ok) == ok0 + 1,
              "no ResumeRuntime without a successful SuspendRuntime");
    }
    atomic_store(&fs.busy_left, 0);
}

/* ThreadDestroyed for the thread being walked, from another thread. */
static _Atomic int destroy_saw_walk;
static uint64_t destroy_other_ns, destroy_walked_ns, destroy_returned_ns;

static void *destroy_thread(void *arg)
{
    double deadline = now_s() + 5;
    uint64_t t0;

    (void)arg;
    while (atomic_load(&fs.walking) != 0xA6 && now_s() < deadline)
        sched_yield();
    if (atomic_load(&fs.walking) != 0xA6)
        return NULL;
    atomic_store(&destroy_saw_walk, 1);
    t0 = clock_ns(CLOCK_MONOTONIC);
    obj_a->lpVtbl->ThreadDestroyed(obj_a, 0xA7); /* not the one being walked */
    destroy_other_ns = clock_ns(CLOCK_MONOTONIC) - t0;
    t0 = clock_ns(CLOCK_MONOTONIC);
    obj_a->lpVtbl->ThreadDestroyed(obj_a, 0xA6);
    destroy_returned_ns = clock_ns(CLOCK_MONOTONIC);
    destroy_walked_ns = destroy_returned_ns - t0;
    return NULL;
}

TEST(thread_destroyed_waits)
{
    pthread_t helper;

    if (a_up() != 0)
        return;
    fake_stacks_reset();
    fake_add_thread(0xA6, 4, S_OK, 300); /* its walk takes 300 ms */
    fake_add_thread(0xA7, 1, S_OK, 0);
    atomic_store(&destroy_saw_walk, 0);
    if (!CHECK(pthread_create(&helper, NULL, destroy_thread, NULL) == 0, "helper thread"))
        return;
    CHECK(send_snapshot(&conn_a, 0xDE57) == 0, "snapshot sent");
    CHECK(read_snapshot(&conn_a, WIRE_STACK_SNAPSHOT, 0xDE57, &snap, 5000) == 1 &&
              snap.nthreads == 2,
          "the snapshot arrives with both threads");
    pthread_join(helper, NULL);
    if (!CHECK(atomic_load(&destroy_saw_walk), "ThreadDestroyed was called during the walk"))
        return;
    CHECK(destroy_other_ns < 100000000ull,
          "ThreadDestroyed of a thread not being walked returns at once (%.1f ms)",
          destroy_other_ns / 1e6);
    CHECK(destroy_returned_ns >= atomic_load(&fs.walk_end_ns) && destroy_walked_ns > 150000000ull,
          "ThreadDestroyed of the walked thread returned only after its walk ended (waited %.1f "
          "ms)",
          destroy_walked_ns / 1e6);
}

TEST(profile)
{
    wire_profile_status st;
    unsigned samples = 0, snapshots = 0, late = 0, bad_rate = 0;
    double start, mid_sent = 0;
    int first_is_started = -1;

    if (a_up() != 0)
        return;
    fake_stacks_reset();
    fake_add_thread(0xA8, 3, S_OK, 0);
    CHECK(send_profile(&conn_a, 50, 0, 0) == 0, "PROFILE_START 50 Hz, default budget");
    start = now_s();
    while (now_s() - start < 1.0) {
        if (conn_read(&conn_a, 100) != 1)
            continue;
        if (conn_a.last.type == WIRE_PROFILE_STATUS) {
            memcpy(&st, conn_a.last_payload, sizeof(st));
            if (first_is_started < 0)
                first_is_started = st.state == WIRE_PROFILE_STARTED && samples == 0;
            if (st.state == WIRE_PROFILE_STARTED)
                CHECK(st.requested_millihz == 50000 && st.effective_millihz == 50000 &&
                          st.budget_permille == WIRE_PROFILE_DEFAULT_BUDGET_PERMILLE &&
                          st.hresult == 0,
                      "STARTED: 50000 mHz requested and in force, budget %u permille",
                      st.budget_permille);
            else
                CHECK(0, "no other status while the fake is fast (state %u)", st.state);
        } else if (conn_a.last.type == WIRE_STACK_END) {
            wire_stack_end e;
            memcpy(&e, conn_a.last_payload, sizeof(e));
            if (e.kind == WIRE_STACK_SAMPLE) {
                samples++;
                if (e.request_id != 0 || e.effective_millihz != 50000)
                    bad_rate++;
            } else if (e.kind == WIRE_STACK_SNAPSHOT && e.request_id == 0x5A3) {
                snapshots++;
                if (now_s() - mid_sent > 0.2)
                    late++;
            }
        }
        if (!mid_sent && now_s() - start > 0.5) {
            mid_sent = now_s();
            send_snapshot(&conn_a, 0x5A3); /* served between two samples */
        }
    }
    CHECK(first_is_started == 1, "PROFILE_STATUS STARTED comes before the first sample");
    CHECK(samples >= 35 && samples <= 60, "about 50 samples in 1 s (%u)", samples);
    CHECK(bad_rate == 0, "samples: request_id 0, effective_millihz 50000");
    CHECK(snapshots == 1 && late == 0, "a snapshot asked for during the profile is served "
                                       "within 200 ms");
    CHECK(send_profile_stop(&conn_a) == 0, "PROFILE_STOP sent");
    if (CHECK(read_status(&conn_a, WIRE_PROFILE_STOPPED, &st, &samples, 2000) == 1,
              "PROFILE_STATUS STOPPED"))
        CHECK(st.samples >= samples - 1 && st.samples <= samples + 1 && st.suspended_ns > 0,
              "STOPPED counts the samples (%llu, saw %u) and the suspended time",
              (unsigned long long)st.samples, samples);
    /* a profile with a duration ends by itself */
    CHECK(send_profile(&conn_a, 20, 0, 300) == 0, "PROFILE_START 20 Hz for 300 ms");
    start = now_s();
    CHECK(read_status(&conn_a, WIRE_PROFILE_STARTED, &st, NULL, 2000) == 1, "STARTED");
    if (CHECK(read_status(&conn_a, WIRE_PROFILE_STOPPED, &st, NULL, 3000) == 1,
              "STOPPED without a stop command"))
        CHECK(now_s() - start >= 0.25 && now_s() - start < 1.5 && st.samples >= 4 &&
                  st.samples <= 9,
              "after about 300 ms and ~6 samples (%.2f s, %llu)", now_s() - start,
              (unsigned long long)st.samples);
}

TEST(profile_budget)
{
    wire_profile_status st;
    unsigned samples = 0, wrong = 0;
    double start;

    if (a_up() != 0)
        return;
    fake_stacks_reset();
    fake_add_thread(0xA9, 2, S_OK, 0);
    atomic_store(&fs.suspend_sleep_ms, 5); /* 5 ms per sample: 100 Hz would be 50% */
    CHECK(send_profile(&conn_a, 100, 20, 0) == 0, "PROFILE_START 100 Hz, budget 2%%");
    CHECK(read_status(&conn_a, WIRE_PROFILE_STARTED, &st, NULL, 2000) == 1, "STARTED");
    if (CHECK(read_status(&conn_a, WIRE_PROFILE_RATE, &st, NULL, 3000) == 1,
              "PROFILE_STATUS RATE: the budget lowered the rate"))
        CHECK(st.requested_millihz == 100000 && st.effective_millihz >= 100 &&
                  st.effective_millihz <= 4000,
              "effective rate at most 2%% / 5 ms = 4 Hz, never under 0.1 Hz (%u mHz)",
              st.effective_millihz);
    /* how far under 4 Hz depends on how long a suspension took, which a loaded
     * machine stretches (a 5 ms sleep measured as 25): what holds is the bound.
     * Two samples at the lowered rate: at the 0.1 Hz floor that takes 20 s */
    start = now_s();
    while (samples < 2 && now_s() - start < 30.0) {
        wire_stack_end e;

        if (conn_read(&conn_a, 100) != 1)
            continue;
        if (conn_a.last.type == WIRE_PROFILE_STATUS) { /* the rate may move again */
            memcpy(&st, conn_a.last_payload, sizeof(st));
            continue;
        }
        if (conn_a.last.type != WIRE_STACK_END)
            continue;
        memcpy(&e, conn_a.last_payload, sizeof(e));
        if (e.kind != WIRE_STACK_SAMPLE)
            continue;
        samples++;
        /* the rate in force; a RATE status may lag it by up to 500 ms */
        if (e.effective_millihz < 100 || e.effective_millihz > 4000)
            wrong++;
    }
    CHECK(samples == 2, "samples come at the lowered rate (%u)", samples);
    CHECK(wrong == 0, "samples carry the lowered rate (0.1..4 Hz) in effective_millihz");
    CHECK(send_profile_stop(&conn_a) == 0, "PROFILE_STOP sent");
    if (CHECK(read_status(&conn_a, WIRE_PROFILE_STOPPED, &st, NULL, 2000) == 1, "STOPPED"))
        CHECK(st.samples > 0 && st.suspended_ns >= st.samples * 5000000ull,
              "suspended_ns counts the slow suspensions (%llu ns in %llu samples)",
              (unsigned long long)st.suspended_ns, (unsigned long long)st.samples);
    atomic_store(&fs.suspend_sleep_ms, 0);
}

/* The server that asked for a profile goes away: the sender, seeing its
 * connection gone, stops the profile (conn.c only closes the socket), and the
 * next server finds no sampling going on. */
TEST(profile_link_lost)
{
    wire_profile_status st;
    int quiet = 0;
    double start;

    if (a_up() != 0)
        return;
    fake_stacks_reset();
    fake_add_thread(0xAA, 2, S_OK, 0);
    CHECK(send_profile(&conn_a, 100, 0, 0) == 0, "PROFILE_START 100 Hz");
    if (!CHECK(read_status(&conn_a, WIRE_PROFILE_STARTED, &st, NULL, 2000) == 1, "STARTED"))
        return;
    close(conn_a.fd); /* the server is gone */
    conn_a.fd = accept_agent(5000);
    conn_a.next_seq = 1;
    if (!CHECK(conn_a.fd >= 0, "the agent connects again") ||
        !CHECK(conn_read(&conn_a, 3000) == 1 && conn_a.last.type == WIRE_HELLO, "with a hello"))
        return;
    /* at 100 Hz every 200 ms would see ~20 suspensions: wait for a window with none */
    for (start = now_s(); !quiet && now_s() - start < 5.0;) {
        int calls = atomic_load(&fs.suspend_calls);
        double window = now_s() + 0.2;
        while (now_s() < window)
            conn_read(&conn_a, 50); /* the new connection's records (hello, catch-up) */
        quiet = atomic_load(&fs.suspend_calls) == calls;
    }
    CHECK(quiet, "sampling stopped when its server went away");
}

TEST(detach)
{
    wire_cmd_detach cmd = {.expected_ms = 1234}, refused = {0};
    wire_profile_status pst;
    tail_info tail;
    wire_detach_status s;
    HRESULT hr;
    int n, stopped_first = 0;

    if (a_up() != 0)
        return;

    /* first the runtime refuses: the agent reports it and carries on */
    atomic_store(&rt_a.detach_result, CORPROF_E_IMMUTABLE_FLAGS_SET);
    refused.expected_ms = 100000; /* more than the agent passes on */
    CHECK(send_command(conn_a.fd, WIRE_CMD_DETACH, &refused, sizeof(refused)) == 0,
          "WIRE_CMD_DETACH sent (runtime will refuse)");
    if (!CHECK(conn_wait_type(&conn_a, WIRE_DETACH_STATUS, 3000) == 1,
               "DETACH_STATUS arrives after the refused command"))
        return;
    memcpy(&s, conn_a.last_payload, sizeof(s));
    CHECK(s.state == WIRE_DETACH_REFUSED && s.hresult == CORPROF_E_IMMUTABLE_FLAGS_SET,
          "refused: DETACH_STATUS REFUSED with the runtime's HRESULT (state %u, hr 0x%08x)",
          s.state, (unsigned)s.hresult);
    CHECK(atomic_load(&rt_a.detach_calls) == 1, "refused: RequestProfilerDetach called once");
    CHECK(atomic_load(&fs.walkers_at_detach) == 0,
          "the idle walker thread was joined before RequestProfilerDetach (%d left)",
          atomic_load(&fs.walkers_at_detach));
    CHECK(atomic_load(&rt_a.detach_expected_ms) == 60000,
          "refused: expected_ms capped at 60000 (%u)",
          (unsigned)atomic_load(&rt_a.detach_expected_ms));
    CHECK(ping(&conn_a, 0xDE7AC4ull, 2000), "refused: the agent still answers a ping");
    CHECK(threads_named(AGENT_THREAD_NAME) == 1, "refused: the agent thread still runs");
    CHECK(atomic_load(&rt_a.refs) == 2, "refused: ICorProfilerInfo10 still held");

    /* now the runtime agrees, and a profile is running when the detach comes */
    fake_stacks_reset();
    fake_add_thread(0xAA, 3, S_OK, 0);
    CHECK(send_profile(&conn_a, 40, 0, 0) == 0, "PROFILE_START 40 Hz before the detach");
    CHECK(read_status(&conn_a, WIRE_PROFILE_STARTED, &pst, NULL, 2000) == 1 &&
              read_snapshot(&conn_a, WIRE_STACK_SAMPLE, 0, &snap, 2000) == 1,
          "sampling runs (STARTED, a sample)");
    CHECK(wait_threads_named("jitscope-walk", 1, 1000) == 1, "the walker thread runs again");
    atomic_store(&fs.walkers_at_detach, -1);
    atomic_store(&rt_a.detach_result, S_OK);
    CHECK(send_command(conn_a.fd, WIRE_CMD_DETACH, &cmd, sizeof(cmd)) == 0, "WIRE_CMD_DETACH sent");
    for (;;) {
        if (!CHECK(conn_read(&conn_a, 3000) == 1, "DETACH_STATUS arrives after the command"))
            return;
        if (conn_a.last.type == WIRE_PROFILE_STATUS && conn_a.last_length == sizeof(pst)) {
            memcpy(&pst, conn_a.last_payload, sizeof(pst));
            stopped_first |= pst.state == WIRE_PROFILE_STOPPED;
        }
        if (conn_a.last.type == WIRE_DETACH_STATUS)
            break;
    }
    CHECK(stopped_first, "PROFILE_STATUS STOPPED is sent before DETACH_STATUS");
    CHECK(atomic_load(&fs.walkers_at_detach) == 0,
          "the sampler stopped and the walker thread was gone when RequestProfilerDetach was "
          "called (%d \"jitscope-walk\" threads)",
          atomic_load(&fs.walkers_at_detach));
    memcpy(&s, conn_a.last_payload, sizeof(s));
    CHECK(conn_a.last_length == sizeof(s) && s.state == WIRE_DETACH_REQUESTED && s.hresult == 0,
          "first DETACH_STATUS: REQUESTED, S_OK (state %u, hr 0x%08x)", s.state,
          (unsigned)s.hresult);
    CHECK(atomic_load(&rt_a.detach_calls) == 2, "RequestProfilerDetach called again (%d in all)",
          atomic_load(&rt_a.detach_calls));
    CHECK(atomic_load(&rt_a.detach_expected_ms) == 1234,
          "the command's expected_ms reached RequestProfilerDetach (%u)",
          (unsigned)atomic_load(&rt_a.detach_expected_ms));
    CHECK(atomic_load(&rt_a.detach_tid) != my_tid() &&
              strcmp(rt_a.detach_thread_name, AGENT_THREAD_NAME) == 0,
          "RequestProfilerDetach came from the agent's own thread (\"%s\")",
          rt_a.detach_thread_name);
    /* the runtime unloads the library after ProfilerDetachSucceeded: the agent's
     * thread must be out of it before that */
    n = wait_threads_named(AGENT_THREAD_NAME, 0, 2000);
    CHECK(n == 0, "after RequestProfilerDetach the agent thread leaves by itself (%d left)", n);

    hr = obj_a->lpVtbl->ProfilerDetachSucceeded(obj_a);
    claimed = (owner){0};
    CHECK(hr == S_OK, "A: ProfilerDetachSucceeded -> S_OK");
    /* the runtime unloads the library right after this returns: by then the last
     * record must be written and the socket closed */
    memset(&tail, 0, sizeof(tail));
    conn_read_to_eof(&conn_a, 0, &tail);
    CHECK(tail.eof, "the connection was already closed when ProfilerDetachSucceeded returned");
    if (!tail.eof)
        conn_read_to_eof(&conn_a, 3000, &tail);
    CHECK(tail.eof, "the agent closed the connection after ProfilerDetachSucceeded (%.3f s)",
          tail.seconds);
    CHECK(tail.statuses >= 1 && tail.status_states[tail.statuses - 1] == WIRE_DETACH_SUCCEEDED &&
              tail.status_hresults[tail.statuses - 1] == 0,
          "a DETACH_STATUS SUCCEEDED, S_OK follows the REQUESTED one (%u statuses after it)",
          tail.statuses);
    CHECK(tail.statuses == 1, "exactly REQUESTED then SUCCEEDED (%u statuses after REQUESTED)",
          tail.statuses);
    CHECK(tail.last_type == WIRE_DETACH_STATUS,
          "DETACH_STATUS SUCCEEDED is the last frame "
          "(last type %u)",
          tail.last_type);
    CHECK(conn_a.seq_errors == 0 && conn_a.bad_length == 0,
          "A: no sequence gap up to the end (%u frames)", conn_a.frames);
    CHECK(threads_named(AGENT_THREAD_NAME) == 0 && threads_named("jitscope-walk") == 0,
          "no agent thread after the detach");
    CHECK(atomic_load(&rt_a.refs) == 1, "the agent released A's ICorProfilerInfo10 (refs %d)",
          atomic_load(&rt_a.refs));
    CHECK(atomic_load(&rt_a.detach_calls) == 2, "no further RequestProfilerDetach");
    close(conn_a.fd);
    conn_a.fd = -1;
}

/* After a detach the claim is free again: runtime C (a third object)
 * Initialize -> S_OK and a fresh hello (new token, seq 1); the detached A's
 * late Shutdown does not disturb it; a fourth runtime is declined. */
TEST(reclaim)
{
    HRESULT hr;

    if (a_up() != 0)
        return;
    fake_init(&rt_b, 4);
    obj_b = new_profiler();
    CHECK(obj_b &&
              obj_b->lpVtbl->Initialize(obj_b, &rt_b.unk) == CORPROF_E_PROFILER_CANCEL_ACTIVATION,
          "B is declined while A owns the agent");
    fake_add_thread(0xAB, 2, S_OK, 0);
    CHECK(send_snapshot(&conn_a, 0xAAA1) == 0 && send_snapshot(&conn_a, 0xAAA2) == 0 &&
              read_snapshot(&conn_a, WIRE_STACK_SNAPSHOT, 0xAAA2, &snap, 5000) == 1 &&
              snap.end.snapshot_id == 2,
          "A's agent numbers its walks 1, 2");
    release_claim(); /* A detaches */
    /* a new session reads its settings again: a different token this time */
    setenv(WIRE_ENV_TOKEN, TOKEN_C, 1);
    fake_init(&rt_c, 9);
    obj_c = new_profiler();
    if (!CHECK(obj_c != NULL && obj_c != obj_a && obj_c != obj_b, "a third profiler object"))
        return;
    hr = obj_c->lpVtbl->Initialize(obj_c, &rt_c.unk);
    if (!CHECK(hr == S_OK,
               "runtime C after A's detach: Initialize -> S_OK (0x%08x): the claim "
               "was released",
               (unsigned)hr))
        return;
    claimed = (owner){&rt_c, obj_c, &conn_c};
    CHECK(atomic_load(&rt_c.set_mask_calls) == 1, "C: SetEventMask called");
    CHECK(atomic_load(&rt_c.mask) == atomic_load(&rt_a.mask) &&
              atomic_load(&rt_c.mask_high) == atomic_load(&rt_a.mask_high),
          "C: same masks as A");
    CHECK(atomic_load(&rt_b.set_mask_calls) == 0 && atomic_load(&rt_b.unk_qi_calls) == 0,
          "B's runtime is still untouched");
    if (!CHECK(conn_accept(&conn_c, 3000) == 0, "C: a new connection within 3 s, its first frame"))
        return;
    check_hello(&conn_c, TOKEN_C, WIRE_MODE_STARTUP, 9);
    CHECK(wait_threads_named(AGENT_THREAD_NAME, 1, 1000) == 1, "C: one agent thread again");
    CHECK(ping(&conn_c, 0xC0FFEEull, 2000), "C: the new session answers a ping");
    CHECK(send_snapshot(&conn_c, 0xCCC1) == 0 &&
              read_snapshot(&conn_c, WIRE_STACK_SNAPSHOT, 0xCCC1, &snap, 5000) == 1 &&
              snap.end.snapshot_id == 1,
          "C: a new owner's agent numbers its walks from 1 again (%llu)",
          (unsigned long long)snap.end.snapshot_id);
    CHECK(obj_a->lpVtbl->Shutdown(obj_a) == S_OK, "the detached A's Shutdown -> S_OK");
    CHECK(ping(&conn_c, 0xC0FFEE2ull, 2000), "C: still answers after A's late Shutdown");
    {
        ICorProfilerCallback11 *d = new_profiler();
        if (CHECK(d != NULL, "a fourth object")) {
            fake_runtime rt_d;
            fake_init(&rt_d, 10);
            CHECK(d->lpVtbl->Initialize(d, &rt_d.unk) == CORPROF_E_PROFILER_CANCEL_ACTIVATION,
                  "while C owns the agent, a fourth runtime is declined");
            CHECK(atomic_load(&rt_d.unk_qi_calls) == 0, "... and not queried");
            CHECK(d->lpVtbl->Release(d) == 0, "fourth object released");
        }
    }
}

/* Runtime C shuts down while sampling. A Shutdown keeps the claim (the
 * process ends after it), so this runs in a child process: see in_child. */
static void shutdown_in_child(void)
{
    tail_info tail;
    HRESULT hr;
    ULONG refs;
    int n;

    setenv(WIRE_ENV_TOKEN, TOKEN_C, 1);
    if (claim(&rt_c, 9, &obj_c, &conn_c) != 0)
        return;
    /* sampling when the runtime shuts down */
    fake_stacks_reset();
    fake_add_thread(0xAB, 2, S_OK, 0);
    CHECK(send_profile(&conn_c, 40, 0, 0) == 0, "C: PROFILE_START");
    if (CHECK(read_snapshot(&conn_c, WIRE_STACK_SAMPLE, 0, &snap, 2000) == 1, "C: a sample"))
        CHECK(snap.end.snapshot_id == 1 && snap.statuses == 1 &&
                  snap.status.state == WIRE_PROFILE_STARTED,
              "C: its first walk is number 1 (%llu), STARTED before it",
              (unsigned long long)snap.end.snapshot_id);
    CHECK(threads_named("jitscope-walk") == 1, "C: the walker thread runs");
    hr = obj_c->lpVtbl->Shutdown(obj_c);
    CHECK(hr == S_OK, "C: Shutdown -> S_OK");
    /* with a server that reads promptly, Shutdown's bounded flush finishes at once,
     * so the sender has closed the socket (and been joined) before Shutdown returns */
    memset(&tail, 0, sizeof(tail));
    conn_read_to_eof(&conn_c, 0, &tail);
    CHECK(tail.eof, "C: the connection was already closed when Shutdown returned");
    if (!tail.eof)
        conn_read_to_eof(&conn_c, 3000, &tail);
    CHECK(tail.eof, "C: the agent's connection closed (recv 0) within 3 s (%.3f s)", tail.seconds);
    CHECK(tail.statuses == 0, "C: no detach status on a plain Shutdown");
    CHECK(tail.frames >= 1 && tail.last_type == WIRE_AGENT_COST,
          "C: Shutdown's last frames are the final counters, WIRE_DROPS then WIRE_AGENT_COST "
          "(last type %u)",
          tail.last_type);
    CHECK(tail.profile_stopped == 1, "C: Shutdown stopped the profile (PROFILE_STATUS STOPPED "
                                     "sent before the connection closed)");
    CHECK(threads_named("jitscope-walk") == 0, "C: the walker thread was joined by Shutdown");
    CHECK(conn_c.seq_errors == 0 && conn_c.bad_length == 0,
          "C: no sequence gap up to the end (%u frames)", conn_c.frames);
    n = wait_threads_named(AGENT_THREAD_NAME, 0, 1000);
    CHECK(n == 0, "C: the \"" AGENT_THREAD_NAME "\" thread is gone (%d left)", n);
    CHECK(atomic_load(&rt_c.detach_calls) == 0, "C: no detach was requested");
    close(conn_c.fd);
    conn_c.fd = -1;
    refs = obj_c->lpVtbl->Release(obj_c);
    CHECK(refs == 0, "object C released after its Shutdown (%u)", refs);
    obj_c = NULL;
    CHECK(accept_agent(0) < 0, "no stray connection is pending");
}

TEST(shutdown)
{
    if (setup() == 0)
        in_child(shutdown_in_child);
}

/* The heap in use now: ASan's count when the test runs under it (its
 * allocator serves the agent's malloc too), glibc's otherwise. */
static size_t heap_in_use(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return __sanitizer_get_current_allocated_bytes();
#else
    return mallinfo2().uordblks;
#endif
}

/* The runtime unloads the agent's library after a detach: whatever the agent
 * still holds on the heap then is lost for the life of the app, once per
 * attach. After thousands of JITs (names read and cached, every FunctionID
 * remembered as alive for code requests) a detach gives it all back. */
TEST(detach_gives_back_the_heap)
{
    enum { BATCH = 400, BATCHES = 20 }; /* a batch's records fit the 64 KiB ring */
    wire_cmd_ping ping = {0xF4EE};
    size_t before, after;
    unsigned b, i, jits = 0;

    if (a_up() != 0)
        return;
    before = heap_in_use();
    for (b = 0; b < BATCHES; b++) {
        for (i = 0; i < BATCH; i++) {
            FunctionID fid = (FunctionID)(0x100000u + b * BATCH + i);
            obj_a->lpVtbl->JITCompilationStarted(obj_a, fid, TRUE);
            obj_a->lpVtbl->JITCompilationFinished(obj_a, fid, S_OK, TRUE);
        }
        ping.cookie = 0xF4EE0 + b;
        send_command(conn_a.fd, WIRE_CMD_PING, &ping, sizeof(ping));
        while (conn_read(&conn_a, 3000) == 1 && conn_a.last.type != WIRE_PONG)
            jits += conn_a.last.type == WIRE_JIT_FINISHED;
    }
    CHECK(jits == BATCH * BATCHES, "the agent forwarded every JIT (%u of %u)", jits,
          BATCH * BATCHES);
    release_claim();
    after = heap_in_use();
    printf("  heap in use: %zu bytes with the agent up, %zu after its detach\n", before, after);
    CHECK(after <= before + 16384,
          "after the detach the agent holds nothing more on the heap than before its JITs "
          "(%zd bytes more)",
          (ssize_t)(after - before));
}

static const check_test tests[] = {TEST_ENTRY(exports),
                                   TEST_ENTRY(class_factory),
                                   TEST_ENTRY(bad_config),
                                   TEST_ENTRY(too_old),
                                   TEST_ENTRY(attach_race),
                                   TEST_ENTRY(side_by_side),
                                   TEST_ENTRY(gc_timeline),
                                   TEST_ENTRY(jit_info),
                                   TEST_ENTRY(jit_without_method_load),
                                   TEST_ENTRY(snapshot),
                                   TEST_ENTRY(suspend_interleave),
                                   TEST_ENTRY(snapshot_naming_lock),
                                   TEST_ENTRY(snapshot_dynamic),
                                   TEST_ENTRY(snapshot_retries),
                                   TEST_ENTRY(thread_destroyed_waits),
                                   TEST_ENTRY(profile),
                                   TEST_ENTRY(profile_budget),
                                   TEST_ENTRY(profile_link_lost),
                                   TEST_ENTRY(detach),
                                   TEST_ENTRY(reclaim),
                                   TEST_ENTRY(shutdown),
                                   TEST_ENTRY(detach_gives_back_the_heap),
                                   TEST_END};

/* A hung agent call (a join that never returns) must not hang the suite:
 * a test still running WATCHDOG_SECONDS after it began fails the run. */
#define WATCHDOG_SECONDS 40
static _Atomic double watchdog_deadline; /* now_s() the running test must end by; 0: none */

static void *watchdog(void *arg)
{
    (void)arg;
    for (;;) {
        double deadline = atomic_load(&watchdog_deadline);
        if (deadline > 0 && now_s() > deadline)
            break;
        sleep(1);
    }
    printf("  FAIL %s: still running after %d s: an agent call hangs\n", check_current,
           WATCHDOG_SECONDS);
    printf("test_sidebyside: %lu passed, %lu failed\n", check_passed, check_failed + 1);
    fflush(stdout);
    if (child_pid > 0)
        kill(child_pid, SIGKILL);
    teardown();
    _exit(1);
}

/* Before each test: the fake runtime's scenario as new (no threads to walk,
 * no counts, nothing slowed down) and runtime A's settings in the
 * environment. Nothing of the agent runs between tests, so nothing reads
 * the scenario while it is reset. */
static void before_each(void)
{
    memset(&fs, 0, sizeof(fs));
    atomic_store(&fs.peek_fd, -1);
    atomic_store(&fs.walkers_at_detach, -1);
    setenv(WIRE_ENV_TOKEN, TOKEN_A, 1);
    atomic_store(&watchdog_deadline, now_s() + WATCHDOG_SECONDS);
}

/* After each test: the agent given back and the objects released, whatever
 * the test left (a failed check may have stopped it half way); then no
 * thread of the agent, no connection waiting. */
static void after_each(void)
{
    int fd;

    release_claim();
    release_object(&race_objs[0], "a racing runtime's object");
    release_object(&race_objs[1], "a racing runtime's object");
    release_object(&obj_a, "object A");
    release_object(&obj_b, "object B");
    release_object(&obj_c, "object C");
    CHECK(wait_threads_named(AGENT_THREAD_NAME, 0, 3000) == 0 &&
              wait_threads_named("jitscope-walk", 0, 3000) == 0,
          "the test left no thread of the agent");
    fd = accept_agent(0);
    CHECK(fd < 0, "the test left no connection waiting");
    if (fd >= 0)
        close(fd);
    atomic_store(&watchdog_deadline, 0);
}

int main(int argc, char **argv)
{
    pthread_t dog;
    int rc;
    int dog_started = pthread_create(&dog, NULL, watchdog, NULL) == 0;

    rc = check_main_each(argc, argv, tests, before_each, after_each);
    if (dog_started) {
        pthread_cancel(dog); /* it sleeps in sleep(), a cancellation point */
        pthread_join(dog, NULL);
    }

    teardown();
    return rc;
}
