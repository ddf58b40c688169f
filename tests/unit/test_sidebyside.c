/* test_sidebyside.c -- the built agent library against a fake CoreCLR, in-process.
 *
 * dlopen()s the real agent (JITSCOPE_AGENT_SO, default build/libjitscope_agent.so
 * relative to the cwd, which is the repo root under tests/run.sh) and plays the
 * runtime: class factory, profiler objects, Initialize / InitializeForAttach /
 * Shutdown / ProfilerDetachSucceeded, with a fake ICorProfilerInfo10 whose vtable
 * fills only the slots the agent calls on these paths. The test itself is the
 * jitscope server: it listens on the Unix socket named by JITSCOPE_SOCKET (in a
 * mkdtemp directory) and reads the agent's frames with the wire.h structs.
 *
 * Tests (they share the one process-wide agent and must run in this order):
 *   exports            only DllGetClassObject is exported (nm -D, dlsym), NEEDED
 *                      is libc only, WIRE_CLSID_STRING matches WIRE_CLSID_INIT
 *   class_factory      DllGetClassObject / IClassFactory / CreateInstance /
 *                      QueryInterface / AddRef / Release, all 98 callback slots set
 *   bad_config         Initialize without a valid token, InitializeForAttach with
 *                      foreign client data: refused, the runtime is not touched,
 *                      nothing claimed
 *   attach_race        300 trials (JITSCOPE_TEST_ATTACH_RACE=<trials> for more): two
 *                      runtimes attach at once with different client data; the
 *                      winner's hello must carry the winner's token (the agent
 *                      claims before it copies client data, see profiler.c)
 *   side_by_side       runtime A: Initialize -> S_OK, event mask (JIT, modules,
 *                      assemblies, threads; nothing immutable; all allowed after
 *                      attach), hello frame (token, 10.0.1, pid, mode, ring size),
 *                      records flow; runtime B: Initialize and InitializeForAttach
 *                      -> CORPROF_E_PROFILER_CANCEL_ACTIVATION, B's runtime never
 *                      queried, no second connection in 300 ms; B's Shutdown /
 *                      ProfilerDetachSucceeded do not disturb A (ping answered)
 *   detach             WIRE_CMD_DETACH refused by the runtime -> DETACH_STATUS
 *                      REFUSED, agent carries on; then WIRE_CMD_DETACH ->
 *                      RequestProfilerDetach on the agent's thread, DETACH_STATUS
 *                      REQUESTED, the thread leaves by itself;
 *                      ProfilerDetachSucceeded -> DETACH_STATUS SUCCEEDED last, the
 *                      connection already closed when it returns, ICorProfilerInfo
 *                      released
 *   reclaim            the claim is free again: runtime C (a third object)
 *                      Initialize -> S_OK, fresh hello (new token, seq 1)
 *   shutdown           C's Shutdown: the connection closes within 3 s (in fact
 *                      before Shutdown returns), last frame WIRE_DROPS, and the
 *                      "jitscope-agent" thread is gone; objects released
 * A watchdog ends the run with a failure if an agent call hangs (20 s).
 *
 * Build: make build/tests/test_sidebyside (needs `make all` for the agent .so).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
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
#include <time.h>
#include <unistd.h>

#include "check.h"
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
/* The strictest COR_PRF_ALLOWABLE_AFTER_ATTACH any runtime version has had
 * (.NET Framework 4's: threads, module/assembly/appdomain loads, stack snapshot,
 * GC, suspends, class loads, JIT compilation) and the widest
 * COR_PRF_MONITOR_IMMUTABLE (including DISABLE_INLINING / DISABLE_OPTIMIZATIONS,
 * which older runtimes treat as immutable). */
#define REAL_ALLOWABLE_AFTER_ATTACH_MIN                                                         \
    (0x00000200u /* threads */ | 0x00000004u /* module loads */ |                             \
     0x00000008u /* assembly loads */ | 0x00000010u /* appdomain loads */ |                   \
     0x10000000u /* stack snapshot */ | 0x00000080u /* GC */ | 0x00010000u /* suspends */ |   \
     0x00000002u /* class loads */ | 0x00000020u /* JIT compilation */)
#define REAL_IMMUTABLE_MAX                                                                      \
    (0x00000800u /* code transitions */ | 0x00000400u /* remoting */ |                        \
     0x00004400u /* remoting cookie */ | 0x00008400u /* remoting async */ |                   \
     0x00080000u /* inproc debugging */ | 0x00100000u /* JIT maps */ |                        \
     0x00400000u /* disable optimizations */ | 0x00200000u /* disable inlining */ |           \
     0x00800000u /* enable object allocated */ | 0x02000000u /* function args */ |            \
     0x04000000u /* function retval */ | 0x08000000u /* frame info */ |                       \
     0x20000000u /* profile images */ | 0x40000000u /* transparency checks */ |               \
     0x80000000u /* disable all NGEN images */)

typedef HRESULT (*dll_get_class_object_fn)(const GUID *, const GUID *, void **);

static const GUID agent_clsid = WIRE_CLSID_INIT;
static const GUID other_clsid = {0x12345678u, 0x1234u, 0x5678u,
                                 {0x9A, 0xBC, 0xDE, 0xF0, 0x12, 0x34, 0x56, 0x78}};

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
    _Atomic int refs;        /* shared by unk and info; the runtime itself holds 1 */
    _Atomic int unk_qi_calls, info10_handed_out, runtime_info_calls, set_mask_calls;
    _Atomic int detach_calls, enum_calls, unexpected_qi;
    _Atomic DWORD mask;
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
    if (pMajorVersion)
        *pMajorVersion = 10;
    if (pMinorVersion)
        *pMinorVersion = 0;
    if (pBuildNumber)
        *pBuildNumber = 1;
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

static HRESULT STDMETHODCALLTYPE info_GetCurrentThreadID(ICorProfilerInfo10 *self,
                                                         ThreadID *pThreadId)
{
    (void)self;
    if (pThreadId)
        *pThreadId = (ThreadID)0x7000u + (ThreadID)(unsigned)my_tid();
    return S_OK;
}

/* OS thread id of a fake managed thread: a function of the ThreadID. */
#define FAKE_OS_TID(thread) ((DWORD)((thread) & 0xFFFFu) + 100000u)

static HRESULT STDMETHODCALLTYPE info_GetThreadInfo(ICorProfilerInfo10 *self, ThreadID threadId,
                                                    DWORD *pdwWin32ThreadId)
{
    (void)self;
    if (!pdwWin32ThreadId)
        return E_POINTER;
    *pdwWin32ThreadId = FAKE_OS_TID(threadId);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE info_RequestProfilerDetach(ICorProfilerInfo10 *self,
                                                            DWORD dwExpectedCompletionMilliseconds)
{
    fake_runtime *rt = rt_of_info(self);

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
    atomic_fetch_add(&rt_of_info(self)->enum_calls, 1);
    if (ppEnum)
        *ppEnum = NULL;
    return E_FAIL;
}
static HRESULT STDMETHODCALLTYPE info_EnumThreads(ICorProfilerInfo10 *self,
                                                  ICorProfilerThreadEnum **ppEnum)
{
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
    atomic_init(&rt->refs, 1);
    atomic_init(&rt->detach_result, S_OK);
}

/* ------------------------------------------------------------------------ */
/* The fake server side: one listening socket, frames read with wire.h       */
/* ------------------------------------------------------------------------ */

typedef struct conn {
    int fd;
    uint64_t next_seq;      /* the seq the next frame must carry */
    unsigned seq_errors;    /* frames whose seq was not next_seq */
    unsigned frames;
    unsigned bad_length;    /* frames longer than WIRE_MAX_PAYLOAD */
    wire_frame_header last; /* the last frame read */
    uint32_t last_length;
    uint8_t last_payload[WIRE_MAX_PAYLOAD];
} conn;

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
    int eof;                 /* 1 when recv returned 0 */
    unsigned frames;
    double seconds;          /* time to EOF */
    uint16_t last_type;      /* type of the last frame before EOF (0: none) */
    uint32_t status_states[8];
    int32_t status_hresults[8];
    unsigned statuses;
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
    CHECK(h.pid == (uint32_t)getpid(), "hello pid is ours (%u, got %u)", (unsigned)getpid(),
          h.pid);
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
    CHECK(h.reserved == 0, "hello reserved is 0");
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
    strcpy(sock_dir, "/tmp/jitscope-sbs-XXXXXX");
    if (!CHECK(mkdtemp(sock_dir) != NULL, "mkdtemp: %s", strerror(errno)))
        return -1;
    snprintf(sock_path, sizeof(sock_path), "%s/agent.sock", sock_dir);
    strcpy(addr.sun_path, sock_path);
    listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (!CHECK(listen_fd >= 0 &&
                   bind(listen_fd, (struct sockaddr *)&addr, sizeof(addr)) == 0 &&
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
    FILE *p = popen(cmd, "r");

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
    static const char *const internal[] = {"agent", "sender_start", "sender_stop",
                                           "sender_emit", "emit_record", "ring_init",
                                           "catchup_run", "names_resolve",
                                           "cb_JITCompilationStarted", "utf16_to_utf8"};
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
            if (sscanf(line, "%63s %7s %255s", addr, type, name) != 3)
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
                sscanf(lb + 1, "%127[^]]", lib);
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
             agent_clsid.Data4[1], agent_clsid.Data4[2], agent_clsid.Data4[3],
             agent_clsid.Data4[4], agent_clsid.Data4[5], agent_clsid.Data4[6],
             agent_clsid.Data4[7]);
    CHECK(strcasecmp(clsid, WIRE_CLSID_STRING) == 0, "WIRE_CLSID_STRING %s = WIRE_CLSID_INIT %s",
          WIRE_CLSID_STRING, clsid);
}

TEST(class_factory)
{
    static const GUID *const callbacks[] = {
        &IID_ICorProfilerCallback,  &IID_ICorProfilerCallback2, &IID_ICorProfilerCallback3,
        &IID_ICorProfilerCallback4, &IID_ICorProfilerCallback5, &IID_ICorProfilerCallback6,
        &IID_ICorProfilerCallback7, &IID_ICorProfilerCallback8, &IID_ICorProfilerCallback9,
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

    CHECK(atomic_load(&rt.unk_qi_calls) == 0 && atomic_load(&rt.set_mask_calls) == 0 &&
              atomic_load(&rt.refs) == 1,
          "refused runtime: not queried, no mask, no reference kept");
    CHECK(threads_named(AGENT_THREAD_NAME) == 0, "refused runtime: no agent thread");
    CHECK(accept_agent(0) < 0, "refused runtime: no connection");
    CHECK(x->lpVtbl->Release(x) == 0, "Release -> 0");
}

/* 300 trials by default (JITSCOPE_TEST_ATTACH_RACE=<trials>): two runtimes call
 * InitializeForAttach at the same moment with different client data. Exactly
 * one must win, and the winner's hello must carry the winner's own token: the
 * loser's client data must never reach the agent's state. Each trial ends with
 * a detach, so the claim is free for the next one and for side_by_side. */
static ICorProfilerCallback11 *race_objs[2];
static fake_runtime race_rts[2];
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
    int trials = env && atoi(env) > 0 ? atoi(env) : 300, trial, wrong = 0, both = 0, none = 0,
        lost = 0;

    if (setup() != 0)
        return;
    for (trial = 0; trial < trials; trial++) {
        conn c = {.fd = -1, .next_seq = 1};
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
        c.fd = accept_agent(3000);
        if (c.fd < 0 || conn_read(&c, 3000) != 1 || c.last.type != WIRE_HELLO) {
            lost++;
            break;
        }
        memcpy(&h, c.last_payload, sizeof(h));
        if (memcmp(h.token, tokens[w], WIRE_TOKEN_LEN) != 0 || h.clr_instance_id != 20 + w) {
            if (wrong++ < 3)
                printf("  trial %d: runtime %d won, its hello says instance %u, token %.32s\n",
                       trial, w, h.clr_instance_id, h.token);
        }
        send_command(c.fd, WIRE_CMD_DETACH, &cmd, sizeof(cmd));
        if (conn_wait_type(&c, WIRE_DETACH_STATUS, 3000) != 1) {
            lost++;
            break;
        }
        race_objs[w]->lpVtbl->ProfilerDetachSucceeded(race_objs[w]);
        memset(&tail, 0, sizeof(tail));
        conn_read_to_eof(&c, 3000, &tail);
        close(c.fd);
        for (i = 0; i < 2; i++)
            race_objs[i]->lpVtbl->Release(race_objs[i]);
    }
    CHECK(both == 0 && none == 0, "exactly one of two racing runtimes wins (both %d, none %d)",
          both, none);
    CHECK(lost == 0, "every trial's winner connected and detached");
    CHECK(wrong == 0, "the winner's hello carries the winner's token (wrong in %d of %d trials)",
          wrong, trial);
}

/* State shared by the side-by-side tests, in order. */
static fake_runtime rt_a, rt_b, rt_c;
static ICorProfilerCallback11 *obj_a, *obj_b, *obj_c;
static conn conn_a = {.fd = -1}, conn_c = {.fd = -1};
static int a_running, a_detached, c_running;

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
    fake_init(&rt_a, 3);
    fake_init(&rt_b, 4);
    obj_a = new_profiler();
    obj_b = new_profiler();
    if (!CHECK(obj_a && obj_b && obj_a != obj_b, "two profiler objects for two runtimes"))
        return;

    /* runtime A: first, so it owns the agent */
    hr = obj_a->lpVtbl->Initialize(obj_a, &rt_a.unk);
    if (!CHECK(hr == S_OK, "runtime A: Initialize -> S_OK (0x%08x)", (unsigned)hr))
        return;
    a_running = 1;
    CHECK(atomic_load(&rt_a.info10_handed_out) == 1, "A: the agent asked for ICorProfilerInfo10");
    CHECK(atomic_load(&rt_a.unexpected_qi) == 0, "A: no other interface was asked for");
    CHECK(atomic_load(&rt_a.runtime_info_calls) >= 1, "A: GetRuntimeInformation called");
    CHECK(atomic_load(&rt_a.refs) == 2, "A: the agent holds one ICorProfilerInfo10 reference "
                                        "(runtime refs %d)", atomic_load(&rt_a.refs));
    CHECK(atomic_load(&rt_a.set_mask_calls) == 1, "A: SetEventMask called once (%d)",
          atomic_load(&rt_a.set_mask_calls));
    mask = atomic_load(&rt_a.mask);
    CHECK(mask & REAL_MONITOR_JIT_COMPILATION, "A: mask has JIT compilation (0x%08x)", mask);
    CHECK(mask & REAL_MONITOR_MODULE_LOADS, "A: mask has module loads");
    CHECK(mask & REAL_MONITOR_ASSEMBLY_LOADS, "A: mask has assembly loads");
    CHECK(mask & REAL_MONITOR_THREADS, "A: mask has threads");
    CHECK((mask & COR_PRF_MONITOR_IMMUTABLE) == 0 && (mask & REAL_IMMUTABLE_MAX) == 0,
          "A: nothing immutable in the mask (detach stays possible)");
    CHECK((mask & REAL_MONITOR_ENTERLEAVE) == 0, "A: no enter/leave hooks");
    CHECK((mask & ~COR_PRF_ALLOWABLE_AFTER_ATTACH) == 0 &&
              (mask & ~REAL_ALLOWABLE_AFTER_ATTACH_MIN) == 0,
          "A: everything in the mask is allowed after attach (0x%08x)", mask);

    /* the agent connects to us and says hello */
    conn_a.fd = accept_agent(3000);
    conn_a.next_seq = 1;
    if (!CHECK(conn_a.fd >= 0, "A: the agent connected to JITSCOPE_SOCKET within 3 s"))
        return;
    CHECK(conn_read(&conn_a, 3000) == 1, "A: first frame read");
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

TEST(detach)
{
    wire_cmd_detach cmd = {.expected_ms = 1234}, refused = {0};
    tail_info tail;
    wire_detach_status s;
    HRESULT hr;
    int n;

    if (!a_running || conn_a.fd < 0) {
        CHECK(0, "needs side_by_side first (A running)");
        return;
    }

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
    CHECK(atomic_load(&rt_a.detach_expected_ms) == 60000,
          "refused: expected_ms capped at 60000 (%u)",
          (unsigned)atomic_load(&rt_a.detach_expected_ms));
    CHECK(ping(&conn_a, 0xDE7AC4ull, 2000), "refused: the agent still answers a ping");
    CHECK(threads_named(AGENT_THREAD_NAME) == 1, "refused: the agent thread still runs");
    CHECK(atomic_load(&rt_a.refs) == 2, "refused: ICorProfilerInfo10 still held");

    /* now the runtime agrees */
    atomic_store(&rt_a.detach_result, S_OK);
    CHECK(send_command(conn_a.fd, WIRE_CMD_DETACH, &cmd, sizeof(cmd)) == 0,
          "WIRE_CMD_DETACH sent");
    if (!CHECK(conn_wait_type(&conn_a, WIRE_DETACH_STATUS, 3000) == 1,
               "DETACH_STATUS arrives after the command"))
        return;
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
    CHECK(tail.last_type == WIRE_DETACH_STATUS, "DETACH_STATUS SUCCEEDED is the last frame "
                                                "(last type %u)", tail.last_type);
    CHECK(conn_a.seq_errors == 0 && conn_a.bad_length == 0,
          "A: no sequence gap up to the end (%u frames)", conn_a.frames);
    CHECK(threads_named(AGENT_THREAD_NAME) == 0, "no agent thread after the detach");
    CHECK(atomic_load(&rt_a.refs) == 1, "the agent released A's ICorProfilerInfo10 (refs %d)",
          atomic_load(&rt_a.refs));
    CHECK(atomic_load(&rt_a.detach_calls) == 2, "no further RequestProfilerDetach");
    close(conn_a.fd);
    conn_a.fd = -1;
    a_running = 0;
    a_detached = 1;
}

TEST(reclaim)
{
    HRESULT hr;

    if (!a_detached) {
        CHECK(0, "needs detach first");
        return;
    }
    /* a new session reads its settings again: a different token this time */
    setenv(WIRE_ENV_TOKEN, TOKEN_C, 1);
    fake_init(&rt_c, 9);
    obj_c = new_profiler();
    if (!CHECK(obj_c != NULL && obj_c != obj_a && obj_c != obj_b, "a third profiler object"))
        return;
    hr = obj_c->lpVtbl->Initialize(obj_c, &rt_c.unk);
    if (!CHECK(hr == S_OK, "runtime C after A's detach: Initialize -> S_OK (0x%08x): the claim "
                           "was released",
               (unsigned)hr))
        return;
    c_running = 1;
    CHECK(atomic_load(&rt_c.set_mask_calls) == 1, "C: SetEventMask called");
    CHECK(atomic_load(&rt_c.mask) == atomic_load(&rt_a.mask), "C: same mask as A");
    CHECK(atomic_load(&rt_b.set_mask_calls) == 0 && atomic_load(&rt_b.unk_qi_calls) == 0,
          "B's runtime is still untouched");
    conn_c.fd = accept_agent(3000);
    conn_c.next_seq = 1;
    if (!CHECK(conn_c.fd >= 0, "C: a new connection within 3 s"))
        return;
    CHECK(conn_read(&conn_c, 3000) == 1, "C: first frame read");
    check_hello(&conn_c, TOKEN_C, WIRE_MODE_STARTUP, 9);
    CHECK(wait_threads_named(AGENT_THREAD_NAME, 1, 1000) == 1, "C: one agent thread again");
    CHECK(ping(&conn_c, 0xC0FFEEull, 2000), "C: the new session answers a ping");
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

TEST(shutdown)
{
    tail_info tail;
    HRESULT hr;
    ULONG refs;
    int n;

    if (!c_running || conn_c.fd < 0) {
        CHECK(0, "needs reclaim first (C running)");
        return;
    }
    hr = obj_c->lpVtbl->Shutdown(obj_c);
    CHECK(hr == S_OK, "C: Shutdown -> S_OK");
    /* with a server that reads promptly, Shutdown's bounded flush finishes at once,
     * so the sender has closed the socket (and been joined) before Shutdown returns */
    memset(&tail, 0, sizeof(tail));
    conn_read_to_eof(&conn_c, 0, &tail);
    CHECK(tail.eof, "C: the connection was already closed when Shutdown returned");
    if (!tail.eof)
        conn_read_to_eof(&conn_c, 3000, &tail);
    CHECK(tail.eof, "C: the agent's connection closed (recv 0) within 3 s (%.3f s)",
          tail.seconds);
    CHECK(tail.statuses == 0, "C: no detach status on a plain Shutdown");
    CHECK(tail.frames >= 1 && tail.last_type == WIRE_DROPS,
          "C: Shutdown's last frame is the final WIRE_DROPS (last type %u)", tail.last_type);
    CHECK(conn_c.seq_errors == 0 && conn_c.bad_length == 0,
          "C: no sequence gap up to the end (%u frames)", conn_c.frames);
    n = wait_threads_named(AGENT_THREAD_NAME, 0, 1000);
    CHECK(n == 0, "C: the \"" AGENT_THREAD_NAME "\" thread is gone (%d left)", n);
    CHECK(atomic_load(&rt_c.detach_calls) == 0, "C: no detach was requested");
    close(conn_c.fd);
    conn_c.fd = -1;
    c_running = 0;

    refs = obj_a->lpVtbl->Release(obj_a);
    CHECK(refs == 0, "object A released (%u)", refs);
    refs = obj_b->lpVtbl->Release(obj_b);
    CHECK(refs == 0, "object B released (%u)", refs);
    refs = obj_c->lpVtbl->Release(obj_c);
    CHECK(refs == 0, "object C released (%u)", refs);
    obj_a = obj_b = obj_c = NULL;
    CHECK(accept_agent(0) < 0, "no stray connection is pending");
}

static const check_test tests[] = {
    TEST_ENTRY(exports),
    TEST_ENTRY(class_factory),
    TEST_ENTRY(bad_config),
    TEST_ENTRY(attach_race),
    TEST_ENTRY(side_by_side),
    TEST_ENTRY(detach),
    TEST_ENTRY(reclaim),
    TEST_ENTRY(shutdown),
    TEST_END
};

/* A hung agent call (a join that never returns) must not hang the suite. */
#define WATCHDOG_SECONDS 20

static void *watchdog(void *arg)
{
    (void)arg;
    sleep(WATCHDOG_SECONDS);
    printf("  FAIL %s: still running after %d s: an agent call hangs\n", check_current,
           WATCHDOG_SECONDS);
    printf("test_sidebyside: %lu passed, %lu failed\n", check_passed, check_failed + 1);
    fflush(stdout);
    teardown();
    _exit(1);
}

int main(int argc, char **argv)
{
    pthread_t dog;
    int rc;
    int dog_started = pthread_create(&dog, NULL, watchdog, NULL) == 0;

    rc = check_main(argc, argv, tests);
    if (dog_started) {
        pthread_cancel(dog); /* it sleeps in sleep(), a cancellation point */
        pthread_join(dog, NULL);
    }

    teardown();
    return rc;
}
