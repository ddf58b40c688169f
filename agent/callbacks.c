/* callbacks.c -- the ICorProfilerCallback11 table CoreCLR calls (callbacks.h).
 *
 * Every slot of ICorProfilerCallback..11 (98, in corprof.idl order) is named
 * below by a designated initializer, so the table reads as the list of what
 * the runtime may call and where it goes: IUnknown here; the agent's start and
 * end in lifecycle.c; JIT, module, assembly and thread events in events.c;
 * inlining and the ReadyToRun searches in jitinfo.c;
 * GC and suspensions in gctimeline.c; EventPipe (the tier source) in tiers.c
 * through events.h. Every other slot is one of a few shared no-op stubs, one
 * per C signature, that return S_OK: jitscope does not ask for those events
 * (eventmask.c), but answers every slot. The compiler checks each stub against
 * its slot's type, so a stub can only stand where its signature fits.
 * The floor (JITSCOPE_NULL=1, a null agent) gets a copy of the table whose
 * every event slot is such a stub too: the runtime calls the same callbacks,
 * which return at once; start, end, attach and detach stay the agent's.
 */
#include "callbacks.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "events.h"
#include "gctimeline.h"
#include "jitinfo.h"
#include "lifecycle.h"
#include "profiler.h"

typedef ICorProfilerCallback11 cb_self;

/* ---- IUnknown ---- */

static HRESULT STDMETHODCALLTYPE cb_QueryInterface(cb_self *self, REFIID riid, void **out)
{
    static const GUID *const known[] = {
        &IID_IUnknown,
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
        &IID_ICorProfilerCallback11,
    };
    size_t i;

    if (!out)
        return E_POINTER;
    for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (profiler_guid_equal(riid, known[i])) {
            *out = self;
            self->lpVtbl->AddRef(self);
            return S_OK;
        }
    }
    *out = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE cb_AddRef(cb_self *self)
{
    return atomic_fetch_add(&((profiler *)self)->refs, 1) + 1;
}

static ULONG STDMETHODCALLTYPE cb_Release(cb_self *self)
{
    ULONG left = atomic_fetch_sub(&((profiler *)self)->refs, 1) - 1;

    if (left == 0)
        free(self);
    return left;
}

/* ICorProfilerCallback11: the one slot with an answer to give. */
static HRESULT STDMETHODCALLTYPE cb_LoadAsNotificationOnly(cb_self *self, BOOL *notification_only)
{
    (void)self;
    if (notification_only)
        *notification_only = FALSE;
    return S_OK;
}

/* ---- the no-op stubs, one per signature (the IDs are all UINT_PTR) ---- */

static HRESULT STDMETHODCALLTYPE noop(cb_self *self)
{
    (void)self;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_id(cb_self *self, UINT_PTR id)
{
    (void)self, (void)id;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_id_hr(cb_self *self, UINT_PTR id, HRESULT hr)
{
    (void)self, (void)id, (void)hr;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_id_id(cb_self *self, UINT_PTR a, UINT_PTR b)
{
    (void)self, (void)a, (void)b;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_id_transition(cb_self *self, UINT_PTR id,
                                                    COR_PRF_TRANSITION_REASON reason)
{
    (void)self, (void)id, (void)reason;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_remoting(cb_self *self, GUID *cookie, BOOL is_async)
{
    (void)self, (void)cookie, (void)is_async;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_dword_id(cb_self *self, DWORD flags, UINT_PTR id)
{
    (void)self, (void)flags, (void)id;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_ids(cb_self *self, ULONG count, UINT_PTR ids[])
{
    (void)self, (void)count, (void)ids;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_ids_counts(cb_self *self, ULONG count, UINT_PTR ids[],
                                                 ULONG counts[])
{
    (void)self, (void)count, (void)ids, (void)counts;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_ids_sizes(cb_self *self, ULONG count, UINT_PTR ids[],
                                                SIZE_T sizes[])
{
    (void)self, (void)count, (void)ids, (void)sizes;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_ranges(cb_self *self, ULONG count, UINT_PTR from[],
                                             UINT_PTR to[], ULONG lengths[])
{
    (void)self, (void)count, (void)from, (void)to, (void)lengths;
    return S_OK;
}

/* MovedReferences2 (SIZE_T lengths) and ConditionalWeakTableElementReferences
 * (GCHandleID roots): both UINT_PTR arrays, one signature */
static HRESULT STDMETHODCALLTYPE noop_ranges_wide(cb_self *self, ULONG count, UINT_PTR a[],
                                                  UINT_PTR b[], UINT_PTR c[])
{
    (void)self, (void)count, (void)a, (void)b, (void)c;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_object_refs(cb_self *self, UINT_PTR object, UINT_PTR cls,
                                                  ULONG count, UINT_PTR refs[])
{
    (void)self, (void)object, (void)cls, (void)count, (void)refs;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_root_refs2(cb_self *self, ULONG count, UINT_PTR refs[],
                                                 COR_PRF_GC_ROOT_KIND kinds[],
                                                 COR_PRF_GC_ROOT_FLAGS flags[], UINT_PTR ids[])
{
    (void)self, (void)count, (void)refs, (void)kinds, (void)flags, (void)ids;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_com_vtable(cb_self *self, UINT_PTR cls, REFGUID iid,
                                                 void *vtable, ULONG slots)
{
    (void)self, (void)cls, (void)iid, (void)vtable, (void)slots;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_com_vtable_gone(cb_self *self, UINT_PTR cls, REFGUID iid,
                                                      void *vtable)
{
    (void)self, (void)cls, (void)iid, (void)vtable;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_rejit_started(cb_self *self, UINT_PTR function,
                                                    UINT_PTR rejit, BOOL safe_to_block)
{
    (void)self, (void)function, (void)rejit, (void)safe_to_block;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_rejit_parameters(cb_self *self, UINT_PTR module,
                                                       mdMethodDef method,
                                                       ICorProfilerFunctionControl *control)
{
    (void)self, (void)module, (void)method, (void)control;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_rejit_finished(cb_self *self, UINT_PTR function,
                                                     UINT_PTR rejit, HRESULT hr, BOOL safe_to_block)
{
    (void)self, (void)function, (void)rejit, (void)hr, (void)safe_to_block;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_rejit_error(cb_self *self, UINT_PTR module,
                                                  mdMethodDef method, UINT_PTR function, HRESULT hr)
{
    (void)self, (void)module, (void)method, (void)function, (void)hr;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_assembly_refs(cb_self *self, const WCHAR *path,
                                                    ICorProfilerAssemblyReferenceProvider *refs)
{
    (void)self, (void)path, (void)refs;
    return S_OK;
}

/* the floor's stubs for the slots the agent uses (callbacks_floor) */
static HRESULT STDMETHODCALLTYPE noop_id_bool(cb_self *self, UINT_PTR id, BOOL safe)
{
    (void)self, (void)id, (void)safe;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_id_hr_bool(cb_self *self, UINT_PTR id, HRESULT hr, BOOL safe)
{
    (void)self, (void)id, (void)hr, (void)safe;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_cache_search(cb_self *self, UINT_PTR id, BOOL *use_cached)
{
    (void)self, (void)id, (void)use_cached; /* left TRUE: the precompiled code is used */
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_cache_found(cb_self *self, UINT_PTR id,
                                                  COR_PRF_JIT_CACHE result)
{
    (void)self, (void)id, (void)result;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_inlining(cb_self *self, UINT_PTR caller, UINT_PTR callee,
                                               BOOL *should_inline)
{
    (void)self, (void)caller, (void)callee, (void)should_inline; /* never vetoed */
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_id_dword(cb_self *self, UINT_PTR id, DWORD value)
{
    (void)self, (void)id, (void)value;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_suspend(cb_self *self, COR_PRF_SUSPEND_REASON reason)
{
    (void)self, (void)reason;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_thread_name(cb_self *self, UINT_PTR id, ULONG length,
                                                  WCHAR name[])
{
    (void)self, (void)id, (void)length, (void)name;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_gc_started(cb_self *self, int generations, BOOL collected[],
                                                 COR_PRF_GC_REASON reason)
{
    (void)self, (void)generations, (void)collected, (void)reason;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_dynamic_started(cb_self *self, UINT_PTR id, BOOL safe,
                                                      LPCBYTE header, ULONG header_size)
{
    (void)self, (void)id, (void)safe, (void)header, (void)header_size;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE noop_eventpipe_event(
    cb_self *self, EVENTPIPE_PROVIDER provider, DWORD event_id, DWORD version, ULONG metadata_size,
    LPCBYTE metadata, ULONG data_size, LPCBYTE data, LPCGUID activity, LPCGUID related,
    ThreadID thread, ULONG frame_count, UINT_PTR frames[])
{
    (void)self, (void)provider, (void)event_id, (void)version, (void)metadata_size;
    (void)metadata, (void)data_size, (void)data, (void)activity, (void)related, (void)thread;
    (void)frame_count, (void)frames;
    return S_OK;
}

/* ---- the table: every slot, in corprof.idl order ---- */

const ICorProfilerCallback11Vtbl callbacks_table = {
    /* IUnknown */
    .QueryInterface = cb_QueryInterface,
    .AddRef = cb_AddRef,
    .Release = cb_Release,
    /* ICorProfilerCallback */
    .Initialize = cb_Initialize,
    .Shutdown = cb_Shutdown,
    .AppDomainCreationStarted = noop_id,
    .AppDomainCreationFinished = noop_id_hr,
    .AppDomainShutdownStarted = noop_id,
    .AppDomainShutdownFinished = noop_id_hr,
    .AssemblyLoadStarted = noop_id,
    .AssemblyLoadFinished = cb_AssemblyLoadFinished,
    .AssemblyUnloadStarted = noop_id,
    .AssemblyUnloadFinished = noop_id_hr,
    .ModuleLoadStarted = noop_id,
    .ModuleLoadFinished = cb_ModuleLoadFinished,
    .ModuleUnloadStarted = cb_ModuleUnloadStarted,
    .ModuleUnloadFinished = cb_ModuleUnloadFinished,
    .ModuleAttachedToAssembly = noop_id_id,
    .ClassLoadStarted = noop_id,
    .ClassLoadFinished = noop_id_hr,
    .ClassUnloadStarted = noop_id,
    .ClassUnloadFinished = noop_id_hr,
    .FunctionUnloadStarted = noop_id,
    .JITCompilationStarted = cb_JITCompilationStarted,
    .JITCompilationFinished = cb_JITCompilationFinished,
    .JITCachedFunctionSearchStarted = cb_JITCachedFunctionSearchStarted,
    .JITCachedFunctionSearchFinished = cb_JITCachedFunctionSearchFinished,
    .JITFunctionPitched = noop_id,
    .JITInlining = cb_JITInlining,
    .ThreadCreated = cb_ThreadCreated,
    .ThreadDestroyed = cb_ThreadDestroyed,
    .ThreadAssignedToOSThread = cb_ThreadAssignedToOSThread,
    .RemotingClientInvocationStarted = noop,
    .RemotingClientSendingMessage = noop_remoting,
    .RemotingClientReceivingReply = noop_remoting,
    .RemotingClientInvocationFinished = noop,
    .RemotingServerReceivingMessage = noop_remoting,
    .RemotingServerInvocationStarted = noop,
    .RemotingServerInvocationReturned = noop,
    .RemotingServerSendingReply = noop_remoting,
    .UnmanagedToManagedTransition = noop_id_transition,
    .ManagedToUnmanagedTransition = noop_id_transition,
    .RuntimeSuspendStarted = cb_RuntimeSuspendStarted,
    .RuntimeSuspendFinished = cb_RuntimeSuspendFinished,
    .RuntimeSuspendAborted = cb_RuntimeSuspendAborted,
    .RuntimeResumeStarted = cb_RuntimeResumeStarted,
    .RuntimeResumeFinished = cb_RuntimeResumeFinished,
    .RuntimeThreadSuspended = noop_id,
    .RuntimeThreadResumed = noop_id,
    .MovedReferences = noop_ranges,
    .ObjectAllocated = noop_id_id,
    .ObjectsAllocatedByClass = noop_ids_counts,
    .ObjectReferences = noop_object_refs,
    .RootReferences = noop_ids,
    .ExceptionThrown = noop_id,
    .ExceptionSearchFunctionEnter = noop_id,
    .ExceptionSearchFunctionLeave = noop,
    .ExceptionSearchFilterEnter = noop_id,
    .ExceptionSearchFilterLeave = noop,
    .ExceptionSearchCatcherFound = noop_id,
    .ExceptionOSHandlerEnter = noop_id,
    .ExceptionOSHandlerLeave = noop_id,
    .ExceptionUnwindFunctionEnter = noop_id,
    .ExceptionUnwindFunctionLeave = noop,
    .ExceptionUnwindFinallyEnter = noop_id,
    .ExceptionUnwindFinallyLeave = noop,
    .ExceptionCatcherEnter = noop_id_id,
    .ExceptionCatcherLeave = noop,
    .COMClassicVTableCreated = noop_com_vtable,
    .COMClassicVTableDestroyed = noop_com_vtable_gone,
    .ExceptionCLRCatcherFound = noop,
    .ExceptionCLRCatcherExecute = noop,
    /* ICorProfilerCallback2 */
    .ThreadNameChanged = cb_ThreadNameChanged,
    .GarbageCollectionStarted = cb_GarbageCollectionStarted,
    .SurvivingReferences = noop_ids_counts,
    .GarbageCollectionFinished = cb_GarbageCollectionFinished,
    .FinalizeableObjectQueued = noop_dword_id,
    .RootReferences2 = noop_root_refs2,
    .HandleCreated = noop_id_id,
    .HandleDestroyed = noop_id,
    /* ICorProfilerCallback3 */
    .InitializeForAttach = cb_InitializeForAttach,
    .ProfilerAttachComplete = cb_ProfilerAttachComplete,
    .ProfilerDetachSucceeded = cb_ProfilerDetachSucceeded,
    /* ICorProfilerCallback4 */
    .ReJITCompilationStarted = noop_rejit_started,
    .GetReJITParameters = noop_rejit_parameters,
    .ReJITCompilationFinished = noop_rejit_finished,
    .ReJITError = noop_rejit_error,
    .MovedReferences2 = noop_ranges_wide,
    .SurvivingReferences2 = noop_ids_sizes,
    /* ICorProfilerCallback5 */
    .ConditionalWeakTableElementReferences = noop_ranges_wide,
    /* ICorProfilerCallback6 */
    .GetAssemblyReferences = noop_assembly_refs,
    /* ICorProfilerCallback7 */
    .ModuleInMemorySymbolsUpdated = noop_id,
    /* ICorProfilerCallback8 */
    .DynamicMethodJITCompilationStarted = cb_DynamicMethodJITCompilationStarted,
    .DynamicMethodJITCompilationFinished = cb_DynamicMethodJITCompilationFinished,
    /* ICorProfilerCallback9 */
    .DynamicMethodUnloaded = noop_id,
    /* ICorProfilerCallback10 */
    .EventPipeEventDelivered = cb_EventPipeEventDelivered,
    .EventPipeProviderCreated = noop_id,
    /* ICorProfilerCallback11 */
    .LoadAsNotificationOnly = cb_LoadAsNotificationOnly,
};

/* ---- the floor's table: the one above, every slot the agent uses a stub ---- */

static ICorProfilerCallback11Vtbl callbacks_floor_table;
static pthread_once_t callbacks_floor_once = PTHREAD_ONCE_INIT;

static void callbacks_floor_make(void)
{
    ICorProfilerCallback11Vtbl *t = &callbacks_floor_table;

    *t = callbacks_table;
    t->AssemblyLoadFinished = noop_id_hr;
    t->ModuleLoadFinished = noop_id_hr;
    t->ModuleUnloadStarted = noop_id;
    t->ModuleUnloadFinished = noop_id_hr;
    t->JITCompilationStarted = noop_id_bool;
    t->JITCompilationFinished = noop_id_hr_bool;
    t->JITCachedFunctionSearchStarted = noop_cache_search;
    t->JITCachedFunctionSearchFinished = noop_cache_found;
    t->JITInlining = noop_inlining;
    t->ThreadCreated = noop_id;
    t->ThreadDestroyed = noop_id;
    t->ThreadAssignedToOSThread = noop_id_dword;
    t->RuntimeSuspendStarted = noop_suspend;
    t->RuntimeSuspendFinished = noop;
    t->RuntimeSuspendAborted = noop;
    t->RuntimeResumeStarted = noop;
    t->RuntimeResumeFinished = noop;
    t->ThreadNameChanged = noop_thread_name;
    t->GarbageCollectionStarted = noop_gc_started;
    t->GarbageCollectionFinished = noop;
    t->DynamicMethodJITCompilationStarted = noop_dynamic_started;
    t->DynamicMethodJITCompilationFinished = noop_id_hr_bool;
    t->EventPipeEventDelivered = noop_eventpipe_event;
}

const ICorProfilerCallback11Vtbl *callbacks_floor(void)
{
    pthread_once(&callbacks_floor_once, callbacks_floor_make);
    return &callbacks_floor_table;
}
