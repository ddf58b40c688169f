/* catchup.c -- what the process already has, for a server that arrives late.
 *
 * Runs on the sender thread after ProfilerAttachComplete (attach) or after a
 * reconnect that lost records (startup mode), never earlier (docs/RUNTIME.md, Catching up):
 * EnumModules, EnumThreads, EnumJITedFunctions2. Every record carries
 * WIRE_FLAG_CATCHUP; the server lets live callbacks win over these. Thread
 * names are not kept by the runtime, so they come from the OS (osname.h: the
 * name .NET gives its own threads or sets from Thread.Name, cut to 15 bytes,
 * flagged WIRE_FLAG_OS_NAME). Each call into the
 * runtime is made under the runtime lock (walk.c), never while writing out.
 * Records leave through conn_emit (conn.h), function names through naming.h;
 * sender.c calls catchup_run, never the other way round.
 *
 * IDs in a list die when their module unloads, and the runtime does not check
 * them. So a list is taken only while no module is unloading, every look-up
 * first checks (under the runtime lock) that no unload started since the list
 * was taken, and a list that went stale is taken again, up to
 * CATCHUP_ATTEMPTS times. Between entries the sender keeps serving unloads
 * (unload.h), and Shutdown stops a catch-up at once.
 */
#include <stdatomic.h>
#include <string.h>

#include "catchup.h"
#include "agent.h"
#include "clock.h"
#include "code.h"
#include "conn.h"
#include "describe.h"
#include "naming.h"
#include "osname.h"
#include "unload.h"
#include "utf.h"
#include "walk.h"

#define CATCHUP_BATCH 256
#define CATCHUP_ATTEMPTS 8           /* a list that went stale is taken again this often */
#define CATCHUP_UNLOAD_WAIT_MS 5000u /* longest wait for unloads in progress to finish */

static uint64_t catchup_gen; /* unload generation when the current list was taken */
static uint64_t catchup_pos; /* the ring's head then */

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
    int (*each)(const void *item); /* the records of one entry; -1: the list went stale */
} catchup_list;

/* Room for one batch of any of the lists. */
typedef union catchup_batch {
    ModuleID modules[CATCHUP_BATCH];
    ThreadID threads[CATCHUP_BATCH];
    COR_PRF_FUNCTION functions[CATCHUP_BATCH];
} catchup_batch;

static int catchup_go_on(void) { return conn_connected() && !atomic_load(&agent.stopping); }

/* Takes the runtime lock if no unload started since the list was taken:
 * then the IDs of the list are alive for as long as the lock is held (an
 * unload's callback cannot end before the sender serves it, and it gives up
 * only under this lock). Returns 0 with the lock held, -1 without. */
static int catchup_lock_fresh(void)
{
    walk_runtime_lock();
    if (unload_generation() == catchup_gen)
        return 0;
    walk_runtime_unlock();
    return -1;
}

/* Waits, serving them, until no module is unloading. Returns 0, or -1 when it
 * took too long or catch-up must stop. */
static int catchup_wait_unloads(void)
{
    unsigned waited = 0;

    while (unload_in_progress()) {
        if (!catchup_go_on() || waited >= CATCHUP_UNLOAD_WAIT_MS)
            return -1;
        unload_service();
        clock_sleep_ns(5000000u);
        waited += 5;
    }
    return 0;
}

/* Opens the list, takes it CATCHUP_BATCH entries at a time and hands each to
 * list->each until the list ends, the connection is lost or Shutdown begins; a
 * list that went stale is taken again. Returns how many entries of the last
 * list were handed over (0 when the runtime would not list them). */
static unsigned catchup_enumerate(const catchup_list *list)
{
    catchup_batch batch;
    unsigned attempt, count = 0;

    for (attempt = 0; attempt < CATCHUP_ATTEMPTS && catchup_go_on(); attempt++) {
        void *e = NULL;
        ULONG got = 0, i;
        int stale = 0;
        HRESULT hr;

        if (catchup_wait_unloads() != 0)
            break;
        walk_runtime_lock();
        catchup_gen = unload_generation();
        catchup_pos = ring_head(&agent.ring);
        naming_live_since(catchup_gen);
        hr = list->open(&e);
        walk_runtime_unlock();
        if (FAILED(hr) || !e)
            return 0;
        count = 0;
        while (!stale && SUCCEEDED(list->next(e, CATCHUP_BATCH, &batch, &got)) && got > 0) {
            for (i = 0; i < got && catchup_go_on() && !stale; i++, count++) {
                unload_service();
                stale = list->each((const unsigned char *)&batch + (size_t)i * list->item_size);
            }
            if (got < CATCHUP_BATCH || !catchup_go_on())
                break;
        }
        list->release(e);
        if (!stale)
            return count;
    }
    return count;
}

/* ---- modules ---- */

static int catchup_module(const void *item)
{
    ModuleID module = *(const ModuleID *)item;
    wire_module_loaded m;
    size_t np, na;
    int cut;

    if (catchup_lock_fresh() != 0)
        return -1;
    describe_module(module, &m, &catchup_text);
    walk_runtime_unlock();
    np = utf16_to_utf8(catchup_text.path, catchup_text.path_length, catchup_path,
                       sizeof(catchup_path), &cut);
    na = utf16_to_utf8(catchup_text.assembly, catchup_text.assembly_length, catchup_assembly,
                       sizeof(catchup_assembly), &cut);
    conn_emit(WIRE_MODULE_LOADED,
              WIRE_FLAG_CATCHUP | (catchup_text.truncated ? WIRE_FLAG_TRUNCATED : 0),
              clock_mono_ns(), &m, sizeof(m), catchup_path, np, catchup_assembly, na);
    return 0;
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

static int catchup_thread(const void *item)
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
    osname_send(thread, os, WIRE_FLAG_CATCHUP);
    return 0; /* ThreadIDs do not die with modules */
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

static int catchup_function(const void *item)
{
    FunctionID function = ((const COR_PRF_FUNCTION *)item)->functionId;
    struct {
        wire_jit_finished j;
        wire_code_version versions[WIRE_MAX_CODE_VERSIONS];
    } rec;
    unsigned kept;

    memset(&rec, 0, sizeof(rec));
    rec.j.function_id = function;
    if (catchup_lock_fresh() != 0)
        return -1;
    kept = describe_jit(function, 1, &rec.j, rec.versions);
    walk_runtime_unlock();
    if (naming_function(function, NAMING_ASK_DYNAMIC, WIRE_FLAG_CATCHUP, NAMING_LIVE) != 0)
        return -1;                          /* an unload started: the list may hold dead IDs */
    code_note_alive(function, catchup_pos); /* alive when the list was taken */
    conn_emit(WIRE_JIT_FINISHED, WIRE_FLAG_CATCHUP, clock_mono_ns(), &rec,
              (uint32_t)(sizeof(rec.j) + kept * sizeof(rec.versions[0])), NULL, 0, NULL, 0);
    return 0;
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

void catchup_run(uint32_t quiet_ms)
{
    wire_catchup c;
    uint64_t start = clock_mono_ns();

    memset(&c, 0, sizeof(c));
    conn_emit(WIRE_CATCHUP_BEGIN, WIRE_FLAG_CATCHUP, start, &c, sizeof(c), NULL, 0, NULL, 0);
    c.modules = catchup_enumerate(&catchup_modules);
    c.threads = catchup_enumerate(&catchup_threads);
    c.functions = catchup_enumerate(&catchup_functions);
    c.duration_ns = clock_mono_ns() - start;
    c.quiet_ms = quiet_ms;
    conn_emit(WIRE_CATCHUP_END, WIRE_FLAG_CATCHUP, clock_mono_ns(), &c, sizeof(c), NULL, 0, NULL,
              0);
}
