/* catchup.c -- what the process already has, for a server that arrives late.
 *
 * Runs on the sender thread after ProfilerAttachComplete (attach) or after a
 * reconnect that lost records (startup mode), never earlier (docs/RUNTIME.md, Catching up):
 * EnumModules, EnumThreads, EnumJITedFunctions2. Every record carries
 * WIRE_FLAG_CATCHUP; the server lets live callbacks win over these. Thread
 * names are not kept by the runtime, so they come from /proc/self/task/TID/comm
 * (the OS name .NET sets from Thread.Name, cut to 15 bytes). Each call into the
 * runtime is made under the runtime lock (walk.c), never while writing out.
 * Records leave through conn_emit (conn.h), function names through naming.h;
 * sender.c calls catchup_run, never the other way round.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "catchup.h"
#include "agent.h"
#include "clock.h"
#include "conn.h"
#include "describe.h"
#include "naming.h"
#include "utf.h"
#include "walk.h"

#define CATCHUP_BATCH 256

static describe_module_text catchup_text;
static char catchup_path[DESCRIBE_PATH_UNITS * 3];
static char catchup_assembly[DESCRIBE_NAME_UNITS * 3];

/* One of the runtime's lists (modules, threads, JITed functions) behind typed
 * adapters, so that one batch loop (catchup_enumerate) serves all three. */
typedef struct catchup_list {
    HRESULT (*open)(void **e); /* EnumModules & co; called under the runtime lock */
    HRESULT (*next)(void *e, ULONG want, void *batch, ULONG *got);
    void (*release)(void *e);
    size_t item_size;
    void (*each)(const void *item); /* the records of one entry */
} catchup_list;

/* Room for one batch of any of the lists. */
typedef union catchup_batch {
    ModuleID modules[CATCHUP_BATCH];
    ThreadID threads[CATCHUP_BATCH];
    COR_PRF_FUNCTION functions[CATCHUP_BATCH];
} catchup_batch;

/* Opens the list, takes it CATCHUP_BATCH entries at a time and hands each to
 * list->each until the list ends or the connection is lost. Returns how many
 * entries were handed over (0 when the runtime would not list them). */
static unsigned catchup_enumerate(const catchup_list *list)
{
    catchup_batch batch;
    void *e = NULL;
    ULONG got = 0, i;
    unsigned count = 0;
    HRESULT hr;

    walk_runtime_lock();
    hr = list->open(&e);
    walk_runtime_unlock();
    if (FAILED(hr) || !e)
        return 0;
    while (SUCCEEDED(list->next(e, CATCHUP_BATCH, &batch, &got)) && got > 0) {
        for (i = 0; i < got && conn_connected(); i++, count++)
            list->each((const unsigned char *)&batch + (size_t)i * list->item_size);
        if (got < CATCHUP_BATCH || !conn_connected())
            break;
    }
    list->release(e);
    return count;
}

/* ---- modules ---- */

static void catchup_module(const void *item)
{
    ModuleID module = *(const ModuleID *)item;
    wire_module_loaded m;
    size_t np, na;
    int cut;

    walk_runtime_lock();
    describe_module(module, &m, &catchup_text);
    walk_runtime_unlock();
    np = utf16_to_utf8(catchup_text.path, catchup_text.path_length, catchup_path,
                       sizeof(catchup_path), &cut);
    na = utf16_to_utf8(catchup_text.assembly, catchup_text.assembly_length, catchup_assembly,
                       sizeof(catchup_assembly), &cut);
    conn_emit(WIRE_MODULE_LOADED,
              WIRE_FLAG_CATCHUP | (catchup_text.truncated ? WIRE_FLAG_TRUNCATED : 0),
              clock_mono_ns(), &m, sizeof(m), catchup_path, np, catchup_assembly, na);
}

static HRESULT catchup_modules_open(void **e)
{
    ICorProfilerModuleEnum *modules = NULL;
    HRESULT hr = agent.info->lpVtbl->EnumModules(agent.info, &modules);

    *e = modules;
    return hr;
}

static HRESULT catchup_modules_next(void *e, ULONG want, void *batch, ULONG *got)
{
    return ((ICorProfilerModuleEnum *)e)->lpVtbl->Next(e, want, batch, got);
}

static void catchup_modules_release(void *e) { ((ICorProfilerModuleEnum *)e)->lpVtbl->Release(e); }

static const catchup_list catchup_modules = {
    .open = catchup_modules_open,
    .next = catchup_modules_next,
    .release = catchup_modules_release,
    .item_size = sizeof(ModuleID),
    .each = catchup_module,
};

/* ---- threads ---- */

static void catchup_thread_name(ThreadID thread, DWORD os_tid)
{
    char path[64], name[64];
    wire_thread t = {.thread_id = thread, .os_thread_id = os_tid};
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/self/task/%u/comm", (unsigned)os_tid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    n = read(fd, name, sizeof(name) - 1);
    close(fd);
    if (n <= 0)
        return;
    while (n > 0 && (name[n - 1] == '\n' || name[n - 1] == '\0'))
        n--;
    conn_emit(WIRE_THREAD_NAME, WIRE_FLAG_CATCHUP, clock_mono_ns(), &t, sizeof(t), name, (size_t)n,
              NULL, 0);
}

static void catchup_thread(const void *item)
{
    ThreadID thread = *(const ThreadID *)item;
    DWORD os = 0;
    wire_thread t = {.thread_id = thread};

    walk_runtime_lock();
    if (SUCCEEDED(agent.info->lpVtbl->GetThreadInfo(agent.info, thread, &os)))
        t.os_thread_id = os;
    walk_runtime_unlock();
    conn_emit(WIRE_THREAD_CREATED, WIRE_FLAG_CATCHUP, clock_mono_ns(), &t, sizeof(t), NULL, 0, NULL,
              0);
    if (os)
        catchup_thread_name(thread, os);
}

static HRESULT catchup_threads_open(void **e)
{
    ICorProfilerThreadEnum *threads = NULL;
    HRESULT hr = agent.info->lpVtbl->EnumThreads(agent.info, &threads);

    *e = threads;
    return hr;
}

static HRESULT catchup_threads_next(void *e, ULONG want, void *batch, ULONG *got)
{
    return ((ICorProfilerThreadEnum *)e)->lpVtbl->Next(e, want, batch, got);
}

static void catchup_threads_release(void *e) { ((ICorProfilerThreadEnum *)e)->lpVtbl->Release(e); }

static const catchup_list catchup_threads = {
    .open = catchup_threads_open,
    .next = catchup_threads_next,
    .release = catchup_threads_release,
    .item_size = sizeof(ThreadID),
    .each = catchup_thread,
};

/* ---- JITed functions ---- */

static void catchup_function(const void *item)
{
    FunctionID function = ((const COR_PRF_FUNCTION *)item)->functionId;
    struct {
        wire_jit_finished j;
        wire_code_version versions[WIRE_MAX_CODE_VERSIONS];
    } rec;
    unsigned kept;

    memset(&rec, 0, sizeof(rec));
    rec.j.function_id = function;
    walk_runtime_lock();
    kept = describe_jit(function, 1, &rec.j, rec.versions);
    walk_runtime_unlock();
    naming_function(function, NAMING_ASK_DYNAMIC, WIRE_FLAG_CATCHUP);
    conn_emit(WIRE_JIT_FINISHED, WIRE_FLAG_CATCHUP, clock_mono_ns(), &rec,
              (uint32_t)(sizeof(rec.j) + kept * sizeof(rec.versions[0])), NULL, 0, NULL, 0);
}

static HRESULT catchup_functions_open(void **e)
{
    ICorProfilerFunctionEnum *functions = NULL;
    HRESULT hr = agent.info->lpVtbl->EnumJITedFunctions2(agent.info, &functions);

    *e = functions;
    return hr;
}

static HRESULT catchup_functions_next(void *e, ULONG want, void *batch, ULONG *got)
{
    return ((ICorProfilerFunctionEnum *)e)->lpVtbl->Next(e, want, batch, got);
}

static void catchup_functions_release(void *e)
{
    ((ICorProfilerFunctionEnum *)e)->lpVtbl->Release(e);
}

static const catchup_list catchup_functions = {
    .open = catchup_functions_open,
    .next = catchup_functions_next,
    .release = catchup_functions_release,
    .item_size = sizeof(COR_PRF_FUNCTION),
    .each = catchup_function,
};

/* ---- the whole catch-up ---- */

void catchup_run(void)
{
    wire_catchup c;
    uint64_t start = clock_mono_ns();

    memset(&c, 0, sizeof(c));
    conn_emit(WIRE_CATCHUP_BEGIN, WIRE_FLAG_CATCHUP, start, &c, sizeof(c), NULL, 0, NULL, 0);
    c.modules = catchup_enumerate(&catchup_modules);
    c.threads = catchup_enumerate(&catchup_threads);
    c.functions = catchup_enumerate(&catchup_functions);
    c.duration_ns = clock_mono_ns() - start;
    conn_emit(WIRE_CATCHUP_END, WIRE_FLAG_CATCHUP, clock_mono_ns(), &c, sizeof(c), NULL, 0, NULL,
              0);
}
