/* events.c -- JIT, module, assembly and thread callbacks -> ring records.
 *
 * The app's threads run this code. Each callback reads what it needs from the
 * runtime with cheap calls, writes one record with emit_record and returns S_OK
 * (a profiler never fails an app's event). Names of methods are NOT resolved
 * here: the sender thread does that once per FunctionID, off the JIT path;
 * dynamic methods are the exception (events_name_dynamic says why).
 * Two exceptions to "never wait", both bounded: ThreadDestroyed for a thread
 * the walker is walking at that moment waits until that walk ends (walk.c),
 * and ModuleUnloadStarted waits until the names of the module's functions
 * still to be sent are read (unload.c). */
#include "events.h"

#include <string.h>

#include "agent.h"
#include "clock.h"
#include "describe.h"
#include "emit.h"
#include "names_resolve.h"
#include "tiers.h"
#include "unload.h"
#include "walk.h"

/* The calling thread's ThreadID, asked of the runtime once per thread: a
 * ThreadDestroyed anywhere makes every thread ask again (cheap, and a
 * ThreadID is the address of a runtime object that may be reused). */
static _Atomic uint64_t events_thread_generation;
static _Thread_local ThreadID events_cached_thread;
static _Thread_local uint64_t events_cached_generation;
static _Thread_local unsigned events_dynamic_jits; /* dynamic compilations open on this thread */

static ThreadID events_current_thread(void)
{
    uint64_t generation = atomic_load_explicit(&events_thread_generation, memory_order_relaxed);
    ThreadID t = 0;

    if (events_cached_thread && events_cached_generation == generation)
        return events_cached_thread;
    if (FAILED(agent.info->lpVtbl->GetCurrentThreadID(agent.info, &t)))
        t = 0;
    events_cached_thread = t;
    events_cached_generation = generation;
    return t;
}

ThreadID events_thread_id(void) { return events_current_thread(); }

int events_in_dynamic_jit(void) { return events_dynamic_jits != 0; }

/* The agent's own time in one JIT callback since start_ns, into the shared
 * histogram (wire.h: WIRE_AGENT_COST) that the sender reports. */
static void events_cost(uint64_t start_ns)
{
    uint64_t ns = clock_mono_ns() - start_ns;
    unsigned bucket;

    if (ns < (uint64_t)WIRE_COST_LINEAR * WIRE_COST_STEP_NS) {
        bucket = (unsigned)(ns / WIRE_COST_STEP_NS);
    } else {
        uint64_t octaves = ns / ((uint64_t)WIRE_COST_LINEAR * WIRE_COST_STEP_NS);
        bucket = WIRE_COST_LINEAR + (unsigned)(63 - __builtin_clzll(octaves));
        if (bucket >= WIRE_COST_BUCKETS)
            bucket = WIRE_COST_BUCKETS - 1;
    }
    atomic_fetch_add_explicit(&agent.cost_callbacks, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&agent.cost_total_ns, ns, memory_order_relaxed);
    atomic_fetch_add_explicit(&agent.cost_buckets[bucket], 1, memory_order_relaxed);
}

static void events_jit_started(FunctionID function, uint16_t flags, ULONG il_size)
{
    uint64_t now = clock_mono_ns();
    wire_jit_started j = {
        .function_id = function, .thread_id = events_current_thread(), .il_size = il_size};

    emit_record_at(WIRE_JIT_STARTED, flags, now, &j, sizeof(j), NULL, 0, NULL, 0);
    events_cost(now);
}

/* Starts a JIT-finished record: which function, on which thread, how it
 * ended, and the tier and code range when tiers.c already saw the method load
 * (then returns 1 and leaves what it knew in *code, the IL size too). That
 * is the fast path: the JIT thread makes no call into the runtime; without
 * it the caller asks the runtime for the code versions and the IL size. A
 * compilation whose MethodJittingStarted came but not its MethodLoad (the tier
 * source stopped while it compiled: Shutdown, switched off, no server) takes
 * the slow path too, or its code would be unknown and not count as a version. */
static int events_finished_begin(wire_jit_finished *j, FunctionID function, HRESULT status,
                                 uint64_t now, tiers_code *code)
{
    memset(j, 0, sizeof(*j));
    j->function_id = function;
    j->thread_id = events_current_thread();
    j->hresult = status;
    if (!tiers_take(function, now, SUCCEEDED(status), code) || code->start == 0)
        return 0;
    j->tier = code->tier;
    j->code_start = code->start;
    j->code_size = code->size;
    return 1;
}

static void events_jit_finished(FunctionID function, uint16_t flags, HRESULT status)
{
    wire_code_version versions[WIRE_MAX_CODE_VERSIONS];
    uint64_t now = clock_mono_ns();
    wire_jit_finished j;
    tiers_code code;
    unsigned kept = 0;
    int known = events_finished_begin(&j, function, status, now, &code);

    j.il_size = code.il_size; /* from its MethodJittingStarted; 0: the runtime is asked */
    if (!known && SUCCEEDED(status))
        kept = describe_jit(function, 0, &j, versions);
    emit_record_at(WIRE_JIT_FINISHED, flags, now, &j, sizeof(j), versions,
                   (uint32_t)(kept * sizeof(versions[0])), NULL, 0);
    events_cost(now);
}

HRESULT STDMETHODCALLTYPE cb_JITCompilationStarted(ICorProfilerCallback11 *self,
                                                   FunctionID functionId, BOOL fIsSafeToBlock)
{
    (void)self, (void)fIsSafeToBlock;
    events_jit_started(functionId, 0, 0);
    return S_OK;
}

HRESULT STDMETHODCALLTYPE cb_JITCompilationFinished(ICorProfilerCallback11 *self,
                                                    FunctionID functionId, HRESULT hrStatus,
                                                    BOOL fIsSafeToBlock)
{
    (void)self, (void)fIsSafeToBlock;
    events_jit_finished(functionId, 0, hrStatus);
    return S_OK;
}

/* A dynamic method is named here, on the JIT thread, because only now is it
 * certainly alive: once collected, its FunctionID is reused by the next one.
 * One runtime call and a few KB of stack, against a JIT that takes 100 us+. */
static void events_name_dynamic(FunctionID function)
{
    char name[1024];
    wire_function_name fixed = {.function_id = function};
    wire_text text;

    if (names_dynamic(agent.info, function, name, sizeof(name)) != 0)
        return; /* the server shows it as an unnamed dynamic method */
    text = (wire_text){.utf8 = name, .length = strlen(name)};
    emit_record(WIRE_FUNCTION_NAME, WIRE_FLAG_DYNAMIC, &fixed, sizeof(fixed), NULL, 0, &text, 1);
}

HRESULT STDMETHODCALLTYPE cb_DynamicMethodJITCompilationStarted(ICorProfilerCallback11 *self,
                                                                FunctionID functionId,
                                                                BOOL fIsSafeToBlock,
                                                                LPCBYTE pILHeader, ULONG cbILHeader)
{
    (void)self, (void)fIsSafeToBlock, (void)pILHeader;
    events_dynamic_jits++;
    events_jit_started(functionId, WIRE_FLAG_DYNAMIC, cbILHeader);
    return S_OK;
}

HRESULT STDMETHODCALLTYPE cb_DynamicMethodJITCompilationFinished(ICorProfilerCallback11 *self,
                                                                 FunctionID functionId,
                                                                 HRESULT hrStatus,
                                                                 BOOL fIsSafeToBlock)
{
    uint64_t now = clock_mono_ns();
    wire_jit_finished j;
    COR_PRF_CODE_INFO range;
    ULONG32 count = 0;
    tiers_code code;

    (void)self, (void)fIsSafeToBlock;
    if (events_dynamic_jits)
        events_dynamic_jits--;
    /* no metadata: only the code range; the IL size came with the start */
    if (!events_finished_begin(&j, functionId, hrStatus, now, &code) && SUCCEEDED(hrStatus) &&
        SUCCEEDED(agent.info->lpVtbl->GetCodeInfo2(agent.info, functionId, 1, &count, &range)) &&
        count > 0) {
        j.code_start = range.startAddress;
        j.code_size = (uint32_t)range.size;
    }
    events_name_dynamic(functionId);
    emit_record_at(WIRE_JIT_FINISHED, WIRE_FLAG_DYNAMIC, now, &j, sizeof(j), NULL, 0, NULL, 0);
    events_cost(now);
    return S_OK;
}

/* Events of our own EventPipe session (tiers.c): the runtime's MethodLoad, on
 * the JIT thread just before JITCompilationFinished. */
HRESULT STDMETHODCALLTYPE cb_EventPipeEventDelivered(
    ICorProfilerCallback11 *self, EVENTPIPE_PROVIDER provider, DWORD eventId, DWORD eventVersion,
    ULONG cbMetadataBlob, LPCBYTE metadataBlob, ULONG cbEventData, LPCBYTE eventData,
    LPCGUID pActivityId, LPCGUID pRelatedActivityId, ThreadID eventThread, ULONG numStackFrames,
    UINT_PTR stackFrames[])
{
    (void)self, (void)eventVersion, (void)cbMetadataBlob, (void)metadataBlob;
    (void)pActivityId, (void)pRelatedActivityId, (void)numStackFrames, (void)stackFrames;
    tiers_event(provider, eventId, cbEventData, eventData, eventThread);
    return S_OK;
}

HRESULT STDMETHODCALLTYPE cb_ModuleLoadFinished(ICorProfilerCallback11 *self, ModuleID moduleId,
                                                HRESULT hrStatus)
{
    describe_module_text text; /* 2.5 KB of stack, for a rare event */
    wire_module_loaded m;
    wire_text strings[2];

    (void)self;
    describe_module(moduleId, &m, &text);
    m.hresult = hrStatus;
    strings[0] = (wire_text){.utf16 = text.path, .length = text.path_length};
    strings[1] = (wire_text){.utf16 = text.assembly, .length = text.assembly_length};
    emit_record(WIRE_MODULE_LOADED, text.truncated ? WIRE_FLAG_TRUNCATED : 0, &m, sizeof(m), NULL,
                0, strings, 2);
    return S_OK;
}

HRESULT STDMETHODCALLTYPE cb_ModuleUnloadStarted(ICorProfilerCallback11 *self, ModuleID moduleId)
{
    wire_module_unloaded m = {moduleId};

    (void)self;
    unload_begins(); /* before its record: what is produced from now on is newer */
    emit_record(WIRE_MODULE_UNLOADED, 0, &m, sizeof(m), NULL, 0, NULL, 0);
    unload_started(moduleId); /* the one other wait: bounded, until its names are read */
    return S_OK;
}

HRESULT STDMETHODCALLTYPE cb_ModuleUnloadFinished(ICorProfilerCallback11 *self, ModuleID moduleId,
                                                  HRESULT hrStatus)
{
    (void)self, (void)hrStatus;
    unload_finished(moduleId); /* else unload_in_progress() stays true for good */
    return S_OK;
}

HRESULT STDMETHODCALLTYPE cb_AssemblyLoadFinished(ICorProfilerCallback11 *self,
                                                  AssemblyID assemblyId, HRESULT hrStatus)
{
    WCHAR name[DESCRIBE_NAME_UNITS];
    ULONG length = 0;
    AppDomainID domain = 0;
    ModuleID manifest = 0;
    wire_assembly_loaded a = {.assembly_id = assemblyId, .hresult = hrStatus};
    wire_text s;

    (void)self;
    if (FAILED(agent.info->lpVtbl->GetAssemblyInfo(agent.info, assemblyId, DESCRIBE_NAME_UNITS,
                                                   &length, name, &domain, &manifest)))
        length = 0;
    a.manifest_module_id = manifest;
    s = (wire_text){.utf16 = name,
                    .length = length < DESCRIBE_NAME_UNITS ? length : DESCRIBE_NAME_UNITS};
    emit_record(WIRE_ASSEMBLY_LOADED, 0, &a, sizeof(a), NULL, 0, &s, 1);
    return S_OK;
}

/* The OS thread id of a runtime thread, 0 when it has none (not started, or
 * ending): one cheap call, so that every thread record can say which thread
 * of the OS it is about (a ThreadID alone is reused, wire.h says why). */
static DWORD events_os_thread(ThreadID thread)
{
    DWORD os = 0;

    if (FAILED(agent.info->lpVtbl->GetThreadInfo(agent.info, thread, &os)))
        os = 0;
    return os;
}

static void events_thread(uint16_t type, ThreadID thread, DWORD os_tid)
{
    wire_thread t = {.thread_id = thread, .os_thread_id = os_tid};
    emit_record(type, 0, &t, sizeof(t), NULL, 0, NULL, 0);
}

/* On the new thread itself, once it runs (the runtime calls this and then
 * ThreadAssignedToOSThread from the thread's start). The sender reads its OS
 * name when it sends this record (naming the runtime's own threads). */
HRESULT STDMETHODCALLTYPE cb_ThreadCreated(ICorProfilerCallback11 *self, ThreadID threadId)
{
    (void)self;
    events_thread(WIRE_THREAD_CREATED, threadId, events_os_thread(threadId));
    return S_OK;
}

/* On the ending thread, before the runtime marks it dead; its OS id is still
 * there, so the server can tell it from a later thread with the same ID. */
HRESULT STDMETHODCALLTYPE cb_ThreadDestroyed(ICorProfilerCallback11 *self, ThreadID threadId)
{
    (void)self;
    atomic_fetch_add_explicit(&events_thread_generation, 1, memory_order_relaxed);
    walk_thread_destroyed(threadId); /* the one wait a callback may do: bounded, see walk.c */
    events_thread(WIRE_THREAD_DESTROYED, threadId, events_os_thread(threadId));
    return S_OK;
}

HRESULT STDMETHODCALLTYPE cb_ThreadAssignedToOSThread(ICorProfilerCallback11 *self,
                                                      ThreadID managedThreadId, DWORD osThreadId)
{
    (void)self;
    events_thread(WIRE_THREAD_OS_ID, managedThreadId, osThreadId);
    return S_OK;
}

/* On the thread that set Thread.Name, which may be another one, and often
 * before the named thread was started (then it has no OS id yet). */
HRESULT STDMETHODCALLTYPE cb_ThreadNameChanged(ICorProfilerCallback11 *self, ThreadID threadId,
                                               ULONG cchName, WCHAR name[])
{
    wire_thread t = {.thread_id = threadId, .os_thread_id = events_os_thread(threadId)};
    /* the name is not NUL-terminated and may be empty (or NULL when empty) */
    wire_text s = {.utf16 = name, .length = name ? cchName : 0};

    (void)self;
    emit_record(WIRE_THREAD_NAME, 0, &t, sizeof(t), NULL, 0, &s, 1);
    return S_OK;
}
