/* lifecycle.c -- the agent's start and end in a runtime (see lifecycle.h).
 *
 *   Initialize (startup: its socket and token from the environment, or from
 *     a diagnostic port's server through the runtime's own environment) /
 *   InitializeForAttach (attach: from the client data): claim the process-wide
 *     agent (side-by-side: the first runtime wins, others get
 *     CORPROF_E_PROFILER_CANCEL_ACTIVATION), check the runtime's version, set
 *     the event masks (nothing immutable, no hooks, so detach stays possible),
 *     start the tier source and the sender thread. `run --no-children`: an
 *     agent whose parent is not the launcher declines.
 *   ProfilerAttachComplete: ask the sender for a catch-up.
 *   ProfilerDetachSucceeded: last records, close, free the ring, release the
 *     claim.
 *   Shutdown: stop the walker thread (stacks.c) if any, the tier source, then
 *     the sender after a last bounded flush.
 * The floor (JITSCOPE_NULL=1 in the environment, or the attach client data's
 * "null" option) starts exactly the same way, the same event masks and the
 * same tier source, with the floor's callback table in place (callbacks.c:
 * every event returns at once); its sender says hello and nothing else.
 * The claim is taken before any of the agent's state is written, so two
 * runtimes initialising at once cannot mix their settings.
 */
#include "lifecycle.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "eventmask.h"
#include "gctimeline.h"
#include "jitinfo.h"
#include "mdcache.h"
#include "profiler.h"
#include "sender.h"
#include "stacks.h"
#include "tiers.h"
#include "utf.h"

#define LIFECYCLE_SHUTDOWN_WALKER_MS 2000 /* Shutdown: longest wait for the walker thread */
/* The oldest runtime the agent profiles: .NET 5. From it on GetRuntimeInformation
 * gives the product version (.NET Core 3.1 and older all say 4.0.30319), and the
 * runtime has what jitscope relies on: ICorProfilerInfo12 (the tier source), the
 * EventPipe event mask allowed after an attach, the diagnostics ProcessInfo
 * command (docs/RUNTIME.md, "Runtime versions"). */
#define LIFECYCLE_RUNTIME_MAJOR_MIN 5

static _Atomic int lifecycle_claimed; /* a runtime owns `agent` */

static void lifecycle_log(const char *message) { fprintf(stderr, "jitscope agent: %s\n", message); }

/* Says why a runtime older than .NET 5 (or one that does not say its version)
 * is not profiled. Runs in Initialize, before any of the app's code. */
static void lifecycle_refuse_runtime(HRESULT hr)
{
    char message[256];

    if (FAILED(hr))
        snprintf(message, sizeof(message),
                 "this runtime does not say its version (GetRuntimeInformation: 0x%08x); jitscope "
                 "needs .NET %d or later; not profiling, the app runs on without it",
                 (unsigned)hr, LIFECYCLE_RUNTIME_MAJOR_MIN);
    else
        snprintf(message, sizeof(message),
                 "this runtime says version %u.%u.%u, as .NET Core 3.1 and older do; jitscope "
                 "needs .NET %d or later; not profiling, the app runs on without it",
                 (unsigned)agent.major, (unsigned)agent.minor, (unsigned)agent.build,
                 LIFECYCLE_RUNTIME_MAJOR_MIN);
    lifecycle_log(message);
}

/* A positive number of milliseconds from the environment, else `fallback`. */
static uint64_t lifecycle_env_ms(const char *name, uint64_t fallback)
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

/* JITSCOPE_NULL=1: the agent is a floor (a null agent). */
static int lifecycle_floor_asked(void)
{
    const char *env = getenv(WIRE_ENV_NULL);

    return env && strcmp(env, "1") == 0;
}

/* Common start for both modes, with the socket path and token already checked.
 * Claims the process-wide agent first and only then writes its state. Returns
 * S_OK or the failure to give the runtime. */
static HRESULT lifecycle_begin(profiler *p, IUnknown *unk, int mode, const char *socket_path,
                               const char *token, int floor)
{
    const ICorProfilerCallback11Vtbl *table = p->iface.lpVtbl;
    ICorProfilerInfo10 *info = NULL;
    COR_PRF_RUNTIME_TYPE type = 0;
    const char *ring_env = getenv("JITSCOPE_RING_BYTES");
    uint64_t ring_bytes = ring_env ? strtoull(ring_env, NULL, 10) : AGENT_RING_DEFAULT;
    int expected = 0;
    HRESULT hr;

    if (!atomic_compare_exchange_strong(&lifecycle_claimed, &expected, 1))
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION; /* another runtime has us */
    p->owns_agent = 1;
    memcpy(agent.socket_path, socket_path, strlen(socket_path) + 1);
    memcpy(agent.token, token, WIRE_TOKEN_LEN);
    atomic_store(&agent.no_server_drops, 0);
    atomic_store(&agent.name_failures, 0);
    atomic_store(&agent.catchup_requested, 0);
    atomic_store(&agent.stopping, 0);
    atomic_store(&agent.detach_requested, 0);
    agent.floor = floor;
    if (floor) /* before any event is asked for: every one returns at once */
        p->iface.lpVtbl = p->floor_table;
    agent.give_up_ns = lifecycle_env_ms(WIRE_ENV_GIVE_UP_MS, WIRE_GIVE_UP_MS_DEFAULT) * 1000000ull;
    hr = unk->lpVtbl->QueryInterface(unk, &IID_ICorProfilerInfo10, (void **)&info);
    if (FAILED(hr) || !info) {
        lifecycle_log("this runtime has no ICorProfilerInfo10; jitscope needs .NET 5 or later; not "
                      "profiling, the app runs on without it");
        hr = FAILED(hr) ? hr : E_NOINTERFACE;
        goto fail;
    }
    agent.info = info;
    agent.mode = mode;
    hr = info->lpVtbl->GetRuntimeInformation(info, &agent.clr_instance_id, &type, &agent.major,
                                             &agent.minor, &agent.build, &agent.qfe, 0, NULL, NULL);
    agent.runtime_type = (uint16_t)type;
    if (FAILED(hr) || agent.major < LIFECYCLE_RUNTIME_MAJOR_MIN) {
        lifecycle_refuse_runtime(hr);
        hr = CORPROF_E_PROFILER_CANCEL_ACTIVATION; /* unloaded quietly; the app runs on */
        goto fail;
    }
    gctimeline_reset();
    stacks_begin();
    if (ring_init(&agent.ring, ring_bytes ? ring_bytes : AGENT_RING_DEFAULT) != 0) {
        lifecycle_log("cannot map the event buffer");
        hr = E_OUTOFMEMORY;
        goto fail;
    }
    atomic_store(&agent.ring_ready, 1);
    hr = eventmask_set(info, 0);
    if (FAILED(hr)) {
        lifecycle_log("SetEventMask2 failed");
        goto fail;
    }
    mdcache_configure();
    jitinfo_configure();
    if (tiers_wanted_at_start())
        tiers_start(info); /* before the first JIT we report; without it tiers are unknown */
    if (sender_start() != 0) {
        lifecycle_log("cannot start the sender thread");
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
    agent.floor = 0;
    p->iface.lpVtbl = table;
    p->owns_agent = 0;
    atomic_store(&lifecycle_claimed, 0);
    return hr;
}

/* Copies a bounded string that must be non-empty and fit `size` with its NUL. */
static int lifecycle_take(char *dst, size_t size, const char *src, size_t length)
{
    if (length == 0 || length >= size || memchr(src, '\0', length))
        return -1;
    memcpy(dst, src, length);
    dst[length] = '\0';
    return 0;
}

/* `jitscope run --no-children`: only the process the launcher started itself. */
static int lifecycle_wanted_here(void)
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
    lifecycle_log(message);
    return 0;
}

/* Client data: "jitscope1 <32 hex token> [null ]<socket path>" (length bytes,
 * no NUL). 0 with socket_path (NUL-terminated), token and *floor set (the
 * "null" option; left as it was without it), or -1. */
static int lifecycle_client_data(const char *text, size_t length,
                                 char socket_path[sizeof(agent.socket_path)],
                                 char token[WIRE_TOKEN_LEN], int *floor)
{
    const size_t prefix = sizeof(WIRE_CLIENT_DATA_PREFIX) - 1;
    const size_t option = sizeof(WIRE_CLIENT_DATA_FLOOR) - 1;
    size_t path_at = prefix + WIRE_TOKEN_LEN + 1;

    if (!text || length < path_at + 1 || length > 1024 ||
        memcmp(text, WIRE_CLIENT_DATA_PREFIX, prefix) != 0 || text[path_at - 1] != ' ')
        return -1;
    if (length >= path_at + option && memcmp(text + path_at, WIRE_CLIENT_DATA_FLOOR, option) == 0) {
        *floor = 1;
        path_at += option;
    }
    if (length <= path_at || lifecycle_take(socket_path, sizeof(agent.socket_path), text + path_at,
                                            length - path_at) != 0)
        return -1;
    memcpy(token, text + prefix, WIRE_TOKEN_LEN);
    return 0;
}

/* The settings a diagnostic port's server left in the runtime's own
 * environment (WIRE_ENV_PORT_AGENT), which the C library's getenv does not
 * see: read through ICorProfilerInfo11, then removed there, before the app
 * runs. 0 with the settings, -1 when there are none (or they are not ours). */
static int lifecycle_port_settings(IUnknown *unk, char socket_path[sizeof(agent.socket_path)],
                                   char token[WIRE_TOKEN_LEN], int *floor)
{
    static const WCHAR name[] = {'J', 'I', 'T', 'S', 'C', 'O', 'P', 'E',
                                 '_', 'A', 'G', 'E', 'N', 'T', 0};
    _Static_assert(sizeof(name) / sizeof(name[0]) == sizeof(WIRE_ENV_PORT_AGENT), "name");
    ICorProfilerInfo12 *info = NULL;
    WCHAR value[1024];
    char text[3 * 1024];
    ULONG length = 0;
    size_t n;
    int cut, rc = -1;

    if (FAILED(unk->lpVtbl->QueryInterface(unk, &IID_ICorProfilerInfo12, (void **)&info)) || !info)
        return -1;
    if (SUCCEEDED(info->lpVtbl->GetEnvironmentVariable(info, name, 1024, &length, value)) &&
        length > 0 && length <= 1024) {
        n = utf16_to_utf8((const uint16_t *)value, length, text, sizeof(text) - 1, &cut);
        rc = lifecycle_client_data(text, n, socket_path, token, floor);
        info->lpVtbl->SetEnvironmentVariable(info, name, NULL);
    }
    info->lpVtbl->info10.Release((ICorProfilerInfo10 *)info);
    return rc;
}

HRESULT STDMETHODCALLTYPE cb_Initialize(ICorProfilerCallback11 *self, IUnknown *unk)
{
    const char *socket_env = getenv(WIRE_ENV_SOCKET), *token_env = getenv(WIRE_ENV_TOKEN);
    char socket_path[sizeof(agent.socket_path)], token[WIRE_TOKEN_LEN];
    int floor = lifecycle_floor_asked();

    if (atomic_load(&lifecycle_claimed))
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION; /* side-by-side: not us, quietly */
    if (socket_env && token_env && strlen(token_env) == WIRE_TOKEN_LEN &&
        lifecycle_take(socket_path, sizeof(socket_path), socket_env, strlen(socket_env)) == 0) {
        memcpy(token, token_env, WIRE_TOKEN_LEN); /* jitscope run */
    } else if (lifecycle_port_settings(unk, socket_path, token, &floor) != 0) {
        lifecycle_log(WIRE_ENV_SOCKET " / " WIRE_ENV_TOKEN " missing or invalid; not profiling");
        return E_FAIL;
    }
    if (!lifecycle_wanted_here())
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION; /* the app runs on without us */
    return lifecycle_begin((profiler *)self, unk, WIRE_MODE_STARTUP, socket_path, token, floor);
}

HRESULT STDMETHODCALLTYPE cb_InitializeForAttach(ICorProfilerCallback11 *self, IUnknown *unk,
                                                 void *data, UINT length)
{
    char socket_path[sizeof(agent.socket_path)], token[WIRE_TOKEN_LEN];
    int floor = lifecycle_floor_asked();

    if (atomic_load(&lifecycle_claimed))
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    if (lifecycle_client_data(data, length, socket_path, token, &floor) != 0) {
        lifecycle_log("attach client data is not jitscope's; not profiling");
        return E_INVALIDARG;
    }
    return lifecycle_begin((profiler *)self, unk, WIRE_MODE_ATTACH, socket_path, token, floor);
}

HRESULT STDMETHODCALLTYPE cb_ProfilerAttachComplete(ICorProfilerCallback11 *self)
{
    if (((profiler *)self)->owns_agent)
        atomic_store(&agent.catchup_requested, 1);
    return S_OK;
}

HRESULT STDMETHODCALLTYPE cb_ProfilerDetachSucceeded(ICorProfilerCallback11 *self)
{
    profiler *p = (profiler *)self;

    if (!p->owns_agent)
        return S_OK;
    sender_detach_succeeded();
    agent.info->lpVtbl->Release(agent.info);
    agent.info = NULL;
    p->owns_agent = 0;
    atomic_store(&lifecycle_claimed, 0);
    return S_OK;
}

HRESULT STDMETHODCALLTYPE cb_Shutdown(ICorProfilerCallback11 *self)
{
    if (((profiler *)self)->owns_agent) {
        stacks_stop(LIFECYCLE_SHUTDOWN_WALKER_MS); /* its last records, then the sender's flush */
        tiers_stop_at_shutdown();
        sender_stop();
    }
    return S_OK;
}
