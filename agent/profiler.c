/* profiler.c -- the COM face of the agent: class factory, profiler object, and
 * the ICorProfilerCallback11 table that CoreCLR calls.
 *
 * CoreCLR dlopens this library, calls DllGetClassObject(CLSID, IID_IClassFactory)
 * and CreateInstance, then QueryInterface down from ICorProfilerCallback11. We
 * implement every slot of Callback..Callback11 (98 slots), so we answer all of
 * them. Lifecycle:
 *   Initialize (startup) / InitializeForAttach (attach): claim the process-wide
 *     agent (side-by-side: the first runtime wins, others get
 *     CORPROF_E_PROFILER_CANCEL_ACTIVATION), set the event masks (nothing
 *     immutable, no hooks, so detach stays possible), start the sender thread.
 *   ProfilerAttachComplete: ask the sender for a catch-up.
 *   ProfilerDetachSucceeded: last record, close, free the ring.
 *   Shutdown: stop the walker thread (stacks.c) if any, flush what is left
 *     (bounded) and stop the sender.
 * The event callbacks live in events.c (JIT, modules, threads) and gctimeline.c
 * (GC, suspensions); unused slots return S_OK.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "eventmask.h"
#include "events.h"
#include "sender.h"
#include "stacks.h"
#include "gctimeline.h"
#include "jitinfo.h"
#include "mdcache.h"
#include "tiers.h"
#include "unload.h"

#define AGENT_SHUTDOWN_WALKER_MS 2000 /* Shutdown: longest wait for the walker thread */
/* The oldest runtime the agent profiles: .NET 5. From it on GetRuntimeInformation
 * gives the product version (.NET Core 3.1 and older all say 4.0.30319), and the
 * runtime has what jitscope relies on: ICorProfilerInfo12 (the tier source), the
 * EventPipe event mask allowed after an attach, the diagnostics ProcessInfo
 * command (docs/RUNTIME.md, "Runtime versions"). */
#define AGENT_RUNTIME_MAJOR_MIN 5

agent_state agent; /* zero until agent_begin; the socket is conn.c's */

static const GUID agent_clsid = WIRE_CLSID_INIT;
static _Atomic int agent_claimed; /* a runtime owns `agent` */

typedef struct profiler {
    ICorProfilerCallback11 iface; /* first: the object pointer is the interface pointer */
    _Atomic ULONG refs;
    int owns_agent; /* this runtime's instance holds the claim */
} profiler;

static int guid_equal(const GUID *a, const GUID *b) { return memcmp(a, b, sizeof(GUID)) == 0; }

static void agent_log(const char *message) { fprintf(stderr, "jitscope agent: %s\n", message); }

/* ---- IUnknown ---- */

static HRESULT STDMETHODCALLTYPE cb_QueryInterface(ICorProfilerCallback11 *self, REFIID riid,
                                                   void **out)
{
    static const GUID *const known[] = {&IID_IUnknown,
                                        &IID_ICorProfilerCallback,
                                        &IID_ICorProfilerCallback2,
                                        &IID_ICorProfilerCallback3,
                                        &IID_ICorProfilerCallback4,
                                        &IID_ICorProfilerCallback5,
                                        &IID_ICorProfilerCallback6,
                                        &IID_ICorProfilerCallback7,
                                        &IID_ICorProfilerCallback8,
                                        &IID_ICorProfilerCallback9,
                                        &IID_ICorProfilerCallback10,
                                        &IID_ICorProfilerCallback11};
    size_t i;

    if (!out)
        return E_POINTER;
    for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (guid_equal(riid, known[i])) {
            *out = self;
            self->lpVtbl->AddRef(self);
            return S_OK;
        }
    }
    *out = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE cb_AddRef(ICorProfilerCallback11 *self)
{
    return atomic_fetch_add(&((profiler *)self)->refs, 1) + 1;
}

static ULONG STDMETHODCALLTYPE cb_Release(ICorProfilerCallback11 *self)
{
    ULONG left = atomic_fetch_sub(&((profiler *)self)->refs, 1) - 1;

    if (left == 0)
        free(self);
    return left;
}

/* ---- lifecycle ---- */

/* Says why a runtime older than .NET 5 (or one that does not say its version)
 * is not profiled. Runs in Initialize, before any of the app's code. */
static void agent_refuse_runtime(HRESULT hr)
{
    char message[256];

    if (FAILED(hr))
        snprintf(message, sizeof(message),
                 "this runtime does not say its version (GetRuntimeInformation: 0x%08x); jitscope "
                 "needs .NET %d or later; not profiling, the app runs on without it",
                 (unsigned)hr, AGENT_RUNTIME_MAJOR_MIN);
    else
        snprintf(message, sizeof(message),
                 "this runtime says version %u.%u.%u, as .NET Core 3.1 and older do; jitscope "
                 "needs .NET %d or later; not profiling, the app runs on without it",
                 (unsigned)agent.major, (unsigned)agent.minor, (unsigned)agent.build,
                 AGENT_RUNTIME_MAJOR_MIN);
    agent_log(message);
}

/* Common start for both modes, with the socket path and token already checked.
 * Claims the process-wide agent first and only then writes its state, so two
 * runtimes initialising at once cannot mix their settings. Returns S_OK or the
 * failure to give the runtime. */
/* A positive number of milliseconds from the environment, else `fallback`. */
static uint64_t agent_env_ms(const char *name, uint64_t fallback)
{
    const char *text = getenv(name);
    char *end = NULL;
    unsigned long long v;

    if (!text || !*text)
        return fallback;
    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno || *end || v == 0 || v > 86400000ull)
        return fallback;
    return v;
}

static HRESULT agent_begin(profiler *p, IUnknown *unk, int mode, const char *socket_path,
                           const char *token)
{
    ICorProfilerInfo10 *info = NULL;
    COR_PRF_RUNTIME_TYPE type = 0;
    const char *ring_env = getenv("JITSCOPE_RING_BYTES");
    uint64_t ring_bytes = ring_env ? strtoull(ring_env, NULL, 10) : AGENT_RING_DEFAULT;
    int expected = 0;
    HRESULT hr;

    if (!atomic_compare_exchange_strong(&agent_claimed, &expected, 1))
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION; /* another runtime has us */
    p->owns_agent = 1;
    memcpy(agent.socket_path, socket_path, strlen(socket_path) + 1);
    memcpy(agent.token, token, WIRE_TOKEN_LEN);
    atomic_store(&agent.no_server_drops, 0);
    atomic_store(&agent.name_failures, 0);
    atomic_store(&agent.catchup_requested, 0);
    atomic_store(&agent.stopping, 0);
    atomic_store(&agent.detach_requested, 0);
    agent.give_up_ns = agent_env_ms(WIRE_ENV_GIVE_UP_MS, WIRE_GIVE_UP_MS_DEFAULT) * 1000000ull;
    hr = unk->lpVtbl->QueryInterface(unk, &IID_ICorProfilerInfo10, (void **)&info);
    if (FAILED(hr) || !info) {
        agent_log("this runtime has no ICorProfilerInfo10; jitscope needs .NET 5 or later; not "
                  "profiling, the app runs on without it");
        hr = FAILED(hr) ? hr : E_NOINTERFACE;
        goto fail;
    }
    agent.info = info;
    agent.mode = mode;
    hr = info->lpVtbl->GetRuntimeInformation(info, &agent.clr_instance_id, &type, &agent.major,
                                             &agent.minor, &agent.build, &agent.qfe, 0, NULL, NULL);
    agent.runtime_type = (uint16_t)type;
    if (FAILED(hr) || agent.major < AGENT_RUNTIME_MAJOR_MIN) {
        agent_refuse_runtime(hr);
        hr = CORPROF_E_PROFILER_CANCEL_ACTIVATION; /* unloaded quietly; the app runs on */
        goto fail;
    }
    gctimeline_reset();
    stacks_begin();
    if (ring_init(&agent.ring, ring_bytes ? ring_bytes : AGENT_RING_DEFAULT) != 0) {
        agent_log("cannot map the event buffer");
        hr = E_OUTOFMEMORY;
        goto fail;
    }
    atomic_store(&agent.ring_ready, 1);
    hr = eventmask_set(info, 0);
    if (FAILED(hr)) {
        agent_log("SetEventMask2 failed");
        goto fail;
    }
    mdcache_configure();
    jitinfo_configure();
    if (tiers_wanted_at_start())
        tiers_start(info); /* before the first JIT we report; without it tiers are unknown */
    if (sender_start() != 0) {
        agent_log("cannot start the sender thread");
        hr = E_FAIL;
        goto fail;
    }
    return S_OK;
fail:
    tiers_stop();
    atomic_store(&agent.ring_ready, 0);
    ring_destroy(&agent.ring);
    if (agent.info)
        agent.info->lpVtbl->Release(agent.info);
    agent.info = NULL;
    p->owns_agent = 0;
    atomic_store(&agent_claimed, 0);
    return hr;
}

/* Copies a bounded string that must be non-empty and fit `size` with its NUL. */
static int agent_take(char *dst, size_t size, const char *src, size_t length)
{
    if (length == 0 || length >= size || memchr(src, '\0', length))
        return -1;
    memcpy(dst, src, length);
    dst[length] = '\0';
    return 0;
}

/* `jitscope run --no-children`: only the process the launcher started itself. */
static int agent_is_wanted_here(void)
{
    const char *only = getenv(WIRE_ENV_ONLY_CHILD_OF);
    char message[128];
    char *end = NULL;
    long launcher;

    if (!only || !*only)
        return 1;
    errno = 0;
    launcher = strtol(only, &end, 10);
    if (errno || *end || launcher <= 0 || (pid_t)launcher == getppid())
        return 1;
    snprintf(message, sizeof(message),
             "pid %d is a child of the launched app (run --no-children); not profiling",
             (int)getpid());
    agent_log(message);
    return 0;
}

static HRESULT STDMETHODCALLTYPE cb_Initialize(ICorProfilerCallback11 *self, IUnknown *unk)
{
    const char *socket_env = getenv(WIRE_ENV_SOCKET), *token = getenv(WIRE_ENV_TOKEN);
    char socket_path[sizeof(agent.socket_path)];

    if (atomic_load(&agent_claimed))
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION; /* side-by-side: not us, quietly */
    if (!socket_env || !token || strlen(token) != WIRE_TOKEN_LEN ||
        agent_take(socket_path, sizeof(socket_path), socket_env, strlen(socket_env)) != 0) {
        agent_log(WIRE_ENV_SOCKET " / " WIRE_ENV_TOKEN " missing or invalid; not profiling");
        return E_FAIL;
    }
    if (!agent_is_wanted_here())
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION; /* the app runs on without us */
    return agent_begin((profiler *)self, unk, WIRE_MODE_STARTUP, socket_path, token);
}

/* Client data: "jitscope1 <32 hex token> <socket path>". */
static HRESULT STDMETHODCALLTYPE cb_InitializeForAttach(ICorProfilerCallback11 *self, IUnknown *unk,
                                                        void *data, UINT length)
{
    const size_t prefix = sizeof(WIRE_CLIENT_DATA_PREFIX) - 1;
    const char *text = data;
    char socket_path[sizeof(agent.socket_path)], token[WIRE_TOKEN_LEN];

    if (atomic_load(&agent_claimed))
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    if (!text || length < prefix + WIRE_TOKEN_LEN + 2 || length > 1024 ||
        memcmp(text, WIRE_CLIENT_DATA_PREFIX, prefix) != 0 ||
        text[prefix + WIRE_TOKEN_LEN] != ' ' ||
        agent_take(socket_path, sizeof(socket_path), text + prefix + WIRE_TOKEN_LEN + 1,
                   length - prefix - WIRE_TOKEN_LEN - 1) != 0) {
        agent_log("attach client data is not jitscope's; not profiling");
        return E_INVALIDARG;
    }
    memcpy(token, text + prefix, WIRE_TOKEN_LEN);
    return agent_begin((profiler *)self, unk, WIRE_MODE_ATTACH, socket_path, token);
}

static HRESULT STDMETHODCALLTYPE cb_ProfilerAttachComplete(ICorProfilerCallback11 *self)
{
    if (((profiler *)self)->owns_agent)
        atomic_store(&agent.catchup_requested, 1);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE cb_ProfilerDetachSucceeded(ICorProfilerCallback11 *self)
{
    profiler *p = (profiler *)self;

    if (!p->owns_agent)
        return S_OK;
    sender_detach_succeeded();
    agent.info->lpVtbl->Release(agent.info);
    agent.info = NULL;
    p->owns_agent = 0;
    atomic_store(&agent_claimed, 0);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE cb_Shutdown(ICorProfilerCallback11 *self)
{
    if (((profiler *)self)->owns_agent) {
        stacks_stop(AGENT_SHUTDOWN_WALKER_MS); /* its last records, then the sender's flush */
        tiers_stop();
        sender_stop();
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE cb_LoadAsNotificationOnly(ICorProfilerCallback11 *self,
                                                           BOOL *pbNotificationOnly)
{
    (void)self;
    if (pbNotificationOnly)
        *pbNotificationOnly = FALSE;
    return S_OK;
}

/* ---- callbacks jitscope does not use: one line each, S_OK ---- */
/* clang-format off: the table of no-op slots reads best one line per slot */

static HRESULT STDMETHODCALLTYPE cb_AppDomainCreationStarted(ICorProfilerCallback11 *self,
                                                             AppDomainID appDomainId)
{
    (void)self;
    (void)appDomainId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_AppDomainCreationFinished(ICorProfilerCallback11 *self,
                                                              AppDomainID appDomainId,
                                                              HRESULT hrStatus)
{
    (void)self;
    (void)appDomainId;
    (void)hrStatus;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_AppDomainShutdownStarted(ICorProfilerCallback11 *self,
                                                             AppDomainID appDomainId)
{
    (void)self;
    (void)appDomainId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_AppDomainShutdownFinished(ICorProfilerCallback11 *self,
                                                              AppDomainID appDomainId,
                                                              HRESULT hrStatus)
{
    (void)self;
    (void)appDomainId;
    (void)hrStatus;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_AssemblyLoadStarted(ICorProfilerCallback11 *self,
                                                        AssemblyID assemblyId)
{
    (void)self;
    (void)assemblyId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_AssemblyUnloadStarted(ICorProfilerCallback11 *self,
                                                          AssemblyID assemblyId)
{
    (void)self;
    (void)assemblyId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_AssemblyUnloadFinished(ICorProfilerCallback11 *self,
                                                           AssemblyID assemblyId, HRESULT hrStatus)
{
    (void)self;
    (void)assemblyId;
    (void)hrStatus;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ModuleLoadStarted(ICorProfilerCallback11 *self,
                                                      ModuleID moduleId)
{
    (void)self;
    (void)moduleId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ModuleUnloadFinished(ICorProfilerCallback11 *self,
                                                         ModuleID moduleId, HRESULT hrStatus)
{
    (void)self;
    (void)hrStatus;
    unload_finished(moduleId);
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ModuleAttachedToAssembly(ICorProfilerCallback11 *self,
                                                             ModuleID moduleId,
                                                             AssemblyID AssemblyId)
{
    (void)self;
    (void)moduleId;
    (void)AssemblyId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ClassLoadStarted(ICorProfilerCallback11 *self, ClassID classId)
{
    (void)self;
    (void)classId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ClassLoadFinished(ICorProfilerCallback11 *self, ClassID classId,
                                                      HRESULT hrStatus)
{
    (void)self;
    (void)classId;
    (void)hrStatus;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ClassUnloadStarted(ICorProfilerCallback11 *self,
                                                       ClassID classId)
{
    (void)self;
    (void)classId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ClassUnloadFinished(ICorProfilerCallback11 *self,
                                                        ClassID classId, HRESULT hrStatus)
{
    (void)self;
    (void)classId;
    (void)hrStatus;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_FunctionUnloadStarted(ICorProfilerCallback11 *self,
                                                          FunctionID functionId)
{
    (void)self;
    (void)functionId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_JITFunctionPitched(ICorProfilerCallback11 *self,
                                                       FunctionID functionId)
{
    (void)self;
    (void)functionId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_RemotingClientInvocationStarted(ICorProfilerCallback11 *self)
{
    (void)self;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_RemotingClientSendingMessage(ICorProfilerCallback11 *self,
                                                                 GUID *pCookie, BOOL fIsAsync)
{
    (void)self;
    (void)pCookie;
    (void)fIsAsync;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_RemotingClientReceivingReply(ICorProfilerCallback11 *self,
                                                                 GUID *pCookie, BOOL fIsAsync)
{
    (void)self;
    (void)pCookie;
    (void)fIsAsync;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_RemotingClientInvocationFinished(ICorProfilerCallback11 *self)
{
    (void)self;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_RemotingServerReceivingMessage(ICorProfilerCallback11 *self,
                                                                   GUID *pCookie, BOOL fIsAsync)
{
    (void)self;
    (void)pCookie;
    (void)fIsAsync;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_RemotingServerInvocationStarted(ICorProfilerCallback11 *self)
{
    (void)self;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_RemotingServerInvocationReturned(ICorProfilerCallback11 *self)
{
    (void)self;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_RemotingServerSendingReply(ICorProfilerCallback11 *self,
                                                               GUID *pCookie, BOOL fIsAsync)
{
    (void)self;
    (void)pCookie;
    (void)fIsAsync;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_UnmanagedToManagedTransition(ICorProfilerCallback11 *self,
                                                                 FunctionID functionId,
                                                                 COR_PRF_TRANSITION_REASON reason)
{
    (void)self;
    (void)functionId;
    (void)reason;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ManagedToUnmanagedTransition(ICorProfilerCallback11 *self,
                                                                 FunctionID functionId,
                                                                 COR_PRF_TRANSITION_REASON reason)
{
    (void)self;
    (void)functionId;
    (void)reason;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_RuntimeThreadSuspended(ICorProfilerCallback11 *self,
                                                           ThreadID threadId)
{
    (void)self;
    (void)threadId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_RuntimeThreadResumed(ICorProfilerCallback11 *self,
                                                         ThreadID threadId)
{
    (void)self;
    (void)threadId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_MovedReferences(ICorProfilerCallback11 *self,
                                                    ULONG cMovedObjectIDRanges,
                                                    ObjectID oldObjectIDRangeStart[],
                                                    ObjectID newObjectIDRangeStart[],
                                                    ULONG cObjectIDRangeLength[])
{
    (void)self;
    (void)cMovedObjectIDRanges;
    (void)oldObjectIDRangeStart;
    (void)newObjectIDRangeStart;
    (void)cObjectIDRangeLength;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ObjectAllocated(ICorProfilerCallback11 *self, ObjectID objectId,
                                                    ClassID classId)
{
    (void)self;
    (void)objectId;
    (void)classId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ObjectsAllocatedByClass(ICorProfilerCallback11 *self,
                                                            ULONG cClassCount, ClassID classIds[],
                                                            ULONG cObjects[])
{
    (void)self;
    (void)cClassCount;
    (void)classIds;
    (void)cObjects;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ObjectReferences(ICorProfilerCallback11 *self,
                                                     ObjectID objectId, ClassID classId,
                                                     ULONG cObjectRefs, ObjectID objectRefIds[])
{
    (void)self;
    (void)objectId;
    (void)classId;
    (void)cObjectRefs;
    (void)objectRefIds;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_RootReferences(ICorProfilerCallback11 *self, ULONG cRootRefs,
                                                   ObjectID rootRefIds[])
{
    (void)self;
    (void)cRootRefs;
    (void)rootRefIds;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ExceptionThrown(ICorProfilerCallback11 *self,
                                                    ObjectID thrownObjectId)
{
    (void)self;
    (void)thrownObjectId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ExceptionSearchFunctionEnter(ICorProfilerCallback11 *self,
                                                                 FunctionID functionId)
{
    (void)self;
    (void)functionId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ExceptionSearchFunctionLeave(ICorProfilerCallback11 *self)
{
    (void)self;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ExceptionSearchFilterEnter(ICorProfilerCallback11 *self,
                                                               FunctionID functionId)
{
    (void)self;
    (void)functionId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ExceptionSearchFilterLeave(ICorProfilerCallback11 *self)
{
    (void)self;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ExceptionSearchCatcherFound(ICorProfilerCallback11 *self,
                                                                FunctionID functionId)
{
    (void)self;
    (void)functionId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ExceptionOSHandlerEnter(ICorProfilerCallback11 *self,
                                                            UINT_PTR unused)
{
    (void)self;
    (void)unused;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ExceptionOSHandlerLeave(ICorProfilerCallback11 *self,
                                                            UINT_PTR unused)
{
    (void)self;
    (void)unused;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ExceptionUnwindFunctionEnter(ICorProfilerCallback11 *self,
                                                                 FunctionID functionId)
{
    (void)self;
    (void)functionId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ExceptionUnwindFunctionLeave(ICorProfilerCallback11 *self)
{
    (void)self;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ExceptionUnwindFinallyEnter(ICorProfilerCallback11 *self,
                                                                FunctionID functionId)
{
    (void)self;
    (void)functionId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ExceptionUnwindFinallyLeave(ICorProfilerCallback11 *self)
{
    (void)self;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ExceptionCatcherEnter(ICorProfilerCallback11 *self,
                                                          FunctionID functionId, ObjectID objectId)
{
    (void)self;
    (void)functionId;
    (void)objectId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ExceptionCatcherLeave(ICorProfilerCallback11 *self)
{
    (void)self;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_COMClassicVTableCreated(ICorProfilerCallback11 *self,
                                                            ClassID wrappedClassId,
                                                            REFGUID implementedIID, void *pVTable,
                                                            ULONG cSlots)
{
    (void)self;
    (void)wrappedClassId;
    (void)implementedIID;
    (void)pVTable;
    (void)cSlots;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_COMClassicVTableDestroyed(ICorProfilerCallback11 *self,
                                                              ClassID wrappedClassId,
                                                              REFGUID implementedIID, void *pVTable)
{
    (void)self;
    (void)wrappedClassId;
    (void)implementedIID;
    (void)pVTable;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ExceptionCLRCatcherFound(ICorProfilerCallback11 *self)
{
    (void)self;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ExceptionCLRCatcherExecute(ICorProfilerCallback11 *self)
{
    (void)self;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_SurvivingReferences(ICorProfilerCallback11 *self,
                                                        ULONG cSurvivingObjectIDRanges,
                                                        ObjectID objectIDRangeStart[],
                                                        ULONG cObjectIDRangeLength[])
{
    (void)self;
    (void)cSurvivingObjectIDRanges;
    (void)objectIDRangeStart;
    (void)cObjectIDRangeLength;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_FinalizeableObjectQueued(ICorProfilerCallback11 *self,
                                                             DWORD finalizerFlags,
                                                             ObjectID objectID)
{
    (void)self;
    (void)finalizerFlags;
    (void)objectID;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_RootReferences2(ICorProfilerCallback11 *self, ULONG cRootRefs,
                                                    ObjectID rootRefIds[],
                                                    COR_PRF_GC_ROOT_KIND rootKinds[],
                                                    COR_PRF_GC_ROOT_FLAGS rootFlags[],
                                                    UINT_PTR rootIds[])
{
    (void)self;
    (void)cRootRefs;
    (void)rootRefIds;
    (void)rootKinds;
    (void)rootFlags;
    (void)rootIds;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_HandleCreated(ICorProfilerCallback11 *self, GCHandleID handleId,
                                                  ObjectID initialObjectId)
{
    (void)self;
    (void)handleId;
    (void)initialObjectId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_HandleDestroyed(ICorProfilerCallback11 *self,
                                                    GCHandleID handleId)
{
    (void)self;
    (void)handleId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ReJITCompilationStarted(ICorProfilerCallback11 *self,
                                                            FunctionID functionId, ReJITID rejitId,
                                                            BOOL fIsSafeToBlock)
{
    (void)self;
    (void)functionId;
    (void)rejitId;
    (void)fIsSafeToBlock;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_GetReJITParameters(ICorProfilerCallback11 *self,
                                                       ModuleID moduleId, mdMethodDef methodId,
                                                       ICorProfilerFunctionControl *pFunctionControl)
{
    (void)self;
    (void)moduleId;
    (void)methodId;
    (void)pFunctionControl;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ReJITCompilationFinished(ICorProfilerCallback11 *self,
                                                             FunctionID functionId, ReJITID rejitId,
                                                             HRESULT hrStatus, BOOL fIsSafeToBlock)
{
    (void)self;
    (void)functionId;
    (void)rejitId;
    (void)hrStatus;
    (void)fIsSafeToBlock;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ReJITError(ICorProfilerCallback11 *self, ModuleID moduleId,
                                               mdMethodDef methodId, FunctionID functionId,
                                               HRESULT hrStatus)
{
    (void)self;
    (void)moduleId;
    (void)methodId;
    (void)functionId;
    (void)hrStatus;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_MovedReferences2(ICorProfilerCallback11 *self,
                                                     ULONG cMovedObjectIDRanges,
                                                     ObjectID oldObjectIDRangeStart[],
                                                     ObjectID newObjectIDRangeStart[],
                                                     SIZE_T cObjectIDRangeLength[])
{
    (void)self;
    (void)cMovedObjectIDRanges;
    (void)oldObjectIDRangeStart;
    (void)newObjectIDRangeStart;
    (void)cObjectIDRangeLength;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_SurvivingReferences2(ICorProfilerCallback11 *self,
                                                         ULONG cSurvivingObjectIDRanges,
                                                         ObjectID objectIDRangeStart[],
                                                         SIZE_T cObjectIDRangeLength[])
{
    (void)self;
    (void)cSurvivingObjectIDRanges;
    (void)objectIDRangeStart;
    (void)cObjectIDRangeLength;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ConditionalWeakTableElementReferences(
    ICorProfilerCallback11 *self, ULONG cRootRefs, ObjectID keyRefIds[], ObjectID valueRefIds[],
    GCHandleID rootIds[])
{
    (void)self;
    (void)cRootRefs;
    (void)keyRefIds;
    (void)valueRefIds;
    (void)rootIds;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE
cb_GetAssemblyReferences(ICorProfilerCallback11 *self, const WCHAR *wszAssemblyPath,
                         ICorProfilerAssemblyReferenceProvider *pAsmRefProvider)
{
    (void)self;
    (void)wszAssemblyPath;
    (void)pAsmRefProvider;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_ModuleInMemorySymbolsUpdated(ICorProfilerCallback11 *self,
                                                                 ModuleID moduleId)
{
    (void)self;
    (void)moduleId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_DynamicMethodUnloaded(ICorProfilerCallback11 *self,
                                                          FunctionID functionId)
{
    (void)self;
    (void)functionId;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE cb_EventPipeProviderCreated(ICorProfilerCallback11 *self,
                                                             EVENTPIPE_PROVIDER provider)
{
    (void)self;
    (void)provider;
    return S_OK;
}
/* clang-format on */

/* ---- the table: every slot of ICorProfilerCallback..11, in corprof.idl order ---- */

static const ICorProfilerCallback11Vtbl profiler_callbacks = {
    .QueryInterface = cb_QueryInterface,
    .AddRef = cb_AddRef,
    .Release = cb_Release,
    .Initialize = cb_Initialize,
    .Shutdown = cb_Shutdown,
    .AppDomainCreationStarted = cb_AppDomainCreationStarted,
    .AppDomainCreationFinished = cb_AppDomainCreationFinished,
    .AppDomainShutdownStarted = cb_AppDomainShutdownStarted,
    .AppDomainShutdownFinished = cb_AppDomainShutdownFinished,
    .AssemblyLoadStarted = cb_AssemblyLoadStarted,
    .AssemblyLoadFinished = cb_AssemblyLoadFinished,
    .AssemblyUnloadStarted = cb_AssemblyUnloadStarted,
    .AssemblyUnloadFinished = cb_AssemblyUnloadFinished,
    .ModuleLoadStarted = cb_ModuleLoadStarted,
    .ModuleLoadFinished = cb_ModuleLoadFinished,
    .ModuleUnloadStarted = cb_ModuleUnloadStarted,
    .ModuleUnloadFinished = cb_ModuleUnloadFinished,
    .ModuleAttachedToAssembly = cb_ModuleAttachedToAssembly,
    .ClassLoadStarted = cb_ClassLoadStarted,
    .ClassLoadFinished = cb_ClassLoadFinished,
    .ClassUnloadStarted = cb_ClassUnloadStarted,
    .ClassUnloadFinished = cb_ClassUnloadFinished,
    .FunctionUnloadStarted = cb_FunctionUnloadStarted,
    .JITCompilationStarted = cb_JITCompilationStarted,
    .JITCompilationFinished = cb_JITCompilationFinished,
    .JITCachedFunctionSearchStarted = cb_JITCachedFunctionSearchStarted,
    .JITCachedFunctionSearchFinished = cb_JITCachedFunctionSearchFinished,
    .JITFunctionPitched = cb_JITFunctionPitched,
    .JITInlining = cb_JITInlining,
    .ThreadCreated = cb_ThreadCreated,
    .ThreadDestroyed = cb_ThreadDestroyed,
    .ThreadAssignedToOSThread = cb_ThreadAssignedToOSThread,
    .RemotingClientInvocationStarted = cb_RemotingClientInvocationStarted,
    .RemotingClientSendingMessage = cb_RemotingClientSendingMessage,
    .RemotingClientReceivingReply = cb_RemotingClientReceivingReply,
    .RemotingClientInvocationFinished = cb_RemotingClientInvocationFinished,
    .RemotingServerReceivingMessage = cb_RemotingServerReceivingMessage,
    .RemotingServerInvocationStarted = cb_RemotingServerInvocationStarted,
    .RemotingServerInvocationReturned = cb_RemotingServerInvocationReturned,
    .RemotingServerSendingReply = cb_RemotingServerSendingReply,
    .UnmanagedToManagedTransition = cb_UnmanagedToManagedTransition,
    .ManagedToUnmanagedTransition = cb_ManagedToUnmanagedTransition,
    .RuntimeSuspendStarted = cb_RuntimeSuspendStarted,
    .RuntimeSuspendFinished = cb_RuntimeSuspendFinished,
    .RuntimeSuspendAborted = cb_RuntimeSuspendAborted,
    .RuntimeResumeStarted = cb_RuntimeResumeStarted,
    .RuntimeResumeFinished = cb_RuntimeResumeFinished,
    .RuntimeThreadSuspended = cb_RuntimeThreadSuspended,
    .RuntimeThreadResumed = cb_RuntimeThreadResumed,
    .MovedReferences = cb_MovedReferences,
    .ObjectAllocated = cb_ObjectAllocated,
    .ObjectsAllocatedByClass = cb_ObjectsAllocatedByClass,
    .ObjectReferences = cb_ObjectReferences,
    .RootReferences = cb_RootReferences,
    .ExceptionThrown = cb_ExceptionThrown,
    .ExceptionSearchFunctionEnter = cb_ExceptionSearchFunctionEnter,
    .ExceptionSearchFunctionLeave = cb_ExceptionSearchFunctionLeave,
    .ExceptionSearchFilterEnter = cb_ExceptionSearchFilterEnter,
    .ExceptionSearchFilterLeave = cb_ExceptionSearchFilterLeave,
    .ExceptionSearchCatcherFound = cb_ExceptionSearchCatcherFound,
    .ExceptionOSHandlerEnter = cb_ExceptionOSHandlerEnter,
    .ExceptionOSHandlerLeave = cb_ExceptionOSHandlerLeave,
    .ExceptionUnwindFunctionEnter = cb_ExceptionUnwindFunctionEnter,
    .ExceptionUnwindFunctionLeave = cb_ExceptionUnwindFunctionLeave,
    .ExceptionUnwindFinallyEnter = cb_ExceptionUnwindFinallyEnter,
    .ExceptionUnwindFinallyLeave = cb_ExceptionUnwindFinallyLeave,
    .ExceptionCatcherEnter = cb_ExceptionCatcherEnter,
    .ExceptionCatcherLeave = cb_ExceptionCatcherLeave,
    .COMClassicVTableCreated = cb_COMClassicVTableCreated,
    .COMClassicVTableDestroyed = cb_COMClassicVTableDestroyed,
    .ExceptionCLRCatcherFound = cb_ExceptionCLRCatcherFound,
    .ExceptionCLRCatcherExecute = cb_ExceptionCLRCatcherExecute,
    .ThreadNameChanged = cb_ThreadNameChanged,
    .GarbageCollectionStarted = cb_GarbageCollectionStarted,
    .SurvivingReferences = cb_SurvivingReferences,
    .GarbageCollectionFinished = cb_GarbageCollectionFinished,
    .FinalizeableObjectQueued = cb_FinalizeableObjectQueued,
    .RootReferences2 = cb_RootReferences2,
    .HandleCreated = cb_HandleCreated,
    .HandleDestroyed = cb_HandleDestroyed,
    .InitializeForAttach = cb_InitializeForAttach,
    .ProfilerAttachComplete = cb_ProfilerAttachComplete,
    .ProfilerDetachSucceeded = cb_ProfilerDetachSucceeded,
    .ReJITCompilationStarted = cb_ReJITCompilationStarted,
    .GetReJITParameters = cb_GetReJITParameters,
    .ReJITCompilationFinished = cb_ReJITCompilationFinished,
    .ReJITError = cb_ReJITError,
    .MovedReferences2 = cb_MovedReferences2,
    .SurvivingReferences2 = cb_SurvivingReferences2,
    .ConditionalWeakTableElementReferences = cb_ConditionalWeakTableElementReferences,
    .GetAssemblyReferences = cb_GetAssemblyReferences,
    .ModuleInMemorySymbolsUpdated = cb_ModuleInMemorySymbolsUpdated,
    .DynamicMethodJITCompilationStarted = cb_DynamicMethodJITCompilationStarted,
    .DynamicMethodJITCompilationFinished = cb_DynamicMethodJITCompilationFinished,
    .DynamicMethodUnloaded = cb_DynamicMethodUnloaded,
    .EventPipeEventDelivered = cb_EventPipeEventDelivered,
    .EventPipeProviderCreated = cb_EventPipeProviderCreated,
    .LoadAsNotificationOnly = cb_LoadAsNotificationOnly,
};

/* ---- class factory ---- */

static HRESULT STDMETHODCALLTYPE factory_QueryInterface(IClassFactory *self, REFIID riid,
                                                        void **out)
{
    if (!out)
        return E_POINTER;
    if (guid_equal(riid, &IID_IUnknown) || guid_equal(riid, &IID_IClassFactory)) {
        *out = self;
        return S_OK;
    }
    *out = NULL;
    return E_NOINTERFACE;
}

/* The factory is a static object: reference counts are meaningless for it. */
static ULONG STDMETHODCALLTYPE factory_AddRef(IClassFactory *self)
{
    (void)self;
    return 2;
}

static ULONG STDMETHODCALLTYPE factory_Release(IClassFactory *self)
{
    (void)self;
    return 1;
}

static HRESULT STDMETHODCALLTYPE factory_CreateInstance(IClassFactory *self, IUnknown *outer,
                                                        REFIID riid, void **out)
{
    profiler *p;
    HRESULT hr;

    (void)self;
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (outer)
        return CLASS_E_NOAGGREGATION;
    p = calloc(1, sizeof(*p));
    if (!p)
        return E_OUTOFMEMORY;
    p->iface.lpVtbl = &profiler_callbacks;
    atomic_init(&p->refs, 1);
    hr = cb_QueryInterface(&p->iface, riid, out);
    cb_Release(&p->iface); /* the QueryInterface reference is the caller's */
    return hr;
}

static HRESULT STDMETHODCALLTYPE factory_LockServer(IClassFactory *self, BOOL lock)
{
    (void)self, (void)lock;
    return S_OK;
}

static const IClassFactoryVtbl factory_vtbl = {
    .QueryInterface = factory_QueryInterface,
    .AddRef = factory_AddRef,
    .Release = factory_Release,
    .CreateInstance = factory_CreateInstance,
    .LockServer = factory_LockServer,
};

static IClassFactory factory = {&factory_vtbl};

__attribute__((visibility("default"))) HRESULT STDMETHODCALLTYPE
DllGetClassObject(const GUID *clsid, const GUID *iid, void **out);

HRESULT STDMETHODCALLTYPE DllGetClassObject(const GUID *clsid, const GUID *iid, void **out)
{
    if (!out || !clsid || !iid)
        return E_POINTER;
    *out = NULL;
    if (!guid_equal(clsid, &agent_clsid))
        return CLASS_E_CLASSNOTAVAILABLE;
    return factory_QueryInterface(&factory, iid, out);
}
