/* tiers.c -- compilation tiers from the runtime's MethodLoad events (see tiers.h). */
#include "tiers.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "emit.h"
#include "agent.h"
#include "allocations.h"
#include "exceptions.h"
#include "gcheap.h"
#include "gcreason.h"

#define TIERS_SLOTS 1024u /* power of two */
#define TIERS_JIT_KEYWORD 0x10ull
#define TIERS_LEVEL_VERBOSE 5u
#define TIERS_EVENT_METHOD_LOAD 141u
#define TIERS_EVENT_METHOD_LOAD_VERBOSE 143u
#define TIERS_EVENT_JITTING_STARTED 145u
/* MethodJittingStarted: MethodID u64, ModuleID u64, MethodToken u32,
 * MethodILSize u32, then names */
#define TIERS_OFFSET_IL_SIZE 20u
#define TIERS_JITTING_FIXED 24u
/* MethodLoad(Verbose) payload: MethodID u64, ModuleID u64, MethodStartAddress
 * u64, MethodSize u32, MethodToken u32, MethodFlags u32, then (verbose) names */
#define TIERS_OFFSET_METHOD_ID 0u
#define TIERS_OFFSET_START 16u
#define TIERS_OFFSET_SIZE 24u
#define TIERS_OFFSET_FLAGS 32u
#define TIERS_FIXED 36u
#define TIERS_FLAG_JITTED 0x8u
#define TIERS_TIER_SHIFT 7u
#define TIERS_TIER_MASK 0x7u

typedef struct tiers_slot {
    _Atomic uint64_t owner; /* OS thread holding the slot, 0 when free */
    uint64_t function;      /* written and read by the owner only */
    uint32_t generation;    /* tiers_generation at its MethodJittingStarted; the owner's */
    tiers_code code;
} tiers_slot;

static tiers_slot tiers_table[TIERS_SLOTS];
/* start, stop and status run on the runtime's threads (Initialize, Shutdown)
 * and on tiers_switch's: tiers_lock orders them. The callbacks never take it. */
static pthread_mutex_t tiers_lock = PTHREAD_MUTEX_INITIALIZER;
static ICorProfilerInfo12 *tiers_info;          /* set while a session is open */
static _Atomic EVENTPIPE_SESSION tiers_session; /* 0: none (read without the lock) */
static EVENTPIPE_SESSION tiers_gc_session;      /* gcreason.h's, 0: none; under tiers_lock */
static EVENTPIPE_SESSION tiers_exc_session;     /* exceptions.h's, 0: none; under tiers_lock */
static EVENTPIPE_SESSION tiers_alloc_session;   /* allocations.h's, 0: none; under tiers_lock */
static _Atomic uint64_t tiers_lost_count;
static HRESULT tiers_hresult; /* why the last start failed, else S_OK */

/* The end the runtime puts to the session as the process exits (tiers.h):
 * a compilation of this session's whose MethodJittingStarted came but not its
 * MethodLoad; or a session was disabled (the EventPipe provider's ProcessInfo
 * came), and then a compilation came with no event of ours at all (not even
 * its MethodJittingStarted; one whose slot was lost says so in
 * tiers_lost_here). */
static ICorProfilerInfo12 *_Atomic tiers_names_info; /* for provider names; never released */
static _Atomic EVENTPIPE_PROVIDER tiers_runtime_provider, tiers_pipe_provider;
static _Atomic int tiers_disable_seen;    /* a ProcessInfo since the session opened */
static _Atomic uint64_t tiers_disable_ns; /* when the last one came: our session's end, if ended */
static _Atomic int tiers_ended;           /* WIRE_TIERS_ENDED_BY_RUNTIME was sent */
static _Atomic uint64_t tiers_ended_said; /* the earliest end it said; 0: not said yet */
static _Atomic int tiers_cut;             /* a compilation was cut by the end: no taking back */
static _Atomic uint32_t tiers_generation; /* one more at each start: a slot's session */
static _Atomic int tiers_stopping;        /* tiers_stop is disabling our own session */
static _Thread_local int tiers_lost_here; /* this thread's last tier event found no slot */

/* "Microsoft-Windows-DotNETRuntime" in UTF-16 */
static const WCHAR tiers_provider[] = {'M', 'i', 'c', 'r', 'o', 's', 'o', 'f', 't', '-', 'W',
                                       'i', 'n', 'd', 'o', 'w', 's', '-', 'D', 'o', 't', 'N',
                                       'E', 'T', 'R', 'u', 'n', 't', 'i', 'm', 'e', 0};

static void tiers_log(const char *message, HRESULT hr)
{
    fprintf(stderr, "jitscope agent: %s (0x%08x); JIT tiers will show as unknown\n", message,
            (unsigned)hr);
}

int tiers_wanted_at_start(void)
{
    const char *env = getenv(WIRE_ENV_TIERS);

    return !(env && strcmp(env, "0") == 0);
}

/* tiers_lock held, the source open: exceptions.h's session. */
static void tiers_exceptions_open(void)
{
    COR_PRF_EVENTPIPE_PROVIDER_CONFIG config;
    HRESULT hr;

    if (tiers_exc_session)
        return;
    exceptions_config(&config, tiers_provider);
    hr = tiers_info->lpVtbl->EventPipeStartSession(tiers_info, 1, &config, 0, &tiers_exc_session);
    if (FAILED(hr) || !tiers_exc_session) {
        fprintf(stderr,
                "jitscope agent: EventPipeStartSession for exception events failed (0x%08x); "
                "no exceptions will be recorded\n",
                (unsigned)hr);
        tiers_exc_session = 0;
    }
}

/* tiers_lock held, the source open: allocations.h's session. */
static void tiers_allocations_open(void)
{
    COR_PRF_EVENTPIPE_PROVIDER_CONFIG config;
    HRESULT hr;

    if (tiers_alloc_session)
        return;
    allocations_config(&config, tiers_provider, agent.major);
    hr = tiers_info->lpVtbl->EventPipeStartSession(tiers_info, 1, &config, 0, &tiers_alloc_session);
    if (FAILED(hr) || !tiers_alloc_session) {
        fprintf(stderr,
                "jitscope agent: EventPipeStartSession for allocation events failed (0x%08x); "
                "no allocations will be recorded\n",
                (unsigned)hr);
        tiers_alloc_session = 0;
    }
}

/* tiers_lock held. */
static void tiers_allocations_close(void)
{
    if (!tiers_info || !tiers_alloc_session)
        return;
    atomic_store(&tiers_stopping, 1); /* the ProcessInfo its disable sends is ours */
    tiers_info->lpVtbl->EventPipeStopSession(tiers_info, tiers_alloc_session);
    atomic_store(&tiers_stopping, 0);
    tiers_alloc_session = 0;
}

/* tiers_lock held. */
static void tiers_exceptions_close(void)
{
    if (!tiers_info || !tiers_exc_session)
        return;
    atomic_store(&tiers_stopping, 1); /* the ProcessInfo its disable sends is ours */
    tiers_info->lpVtbl->EventPipeStopSession(tiers_info, tiers_exc_session);
    atomic_store(&tiers_stopping, 0);
    tiers_exc_session = 0;
}

int tiers_start(ICorProfilerInfo10 *info)
{
    COR_PRF_EVENTPIPE_PROVIDER_CONFIG config = {tiers_provider, TIERS_JIT_KEYWORD,
                                                TIERS_LEVEL_VERBOSE, NULL};
    EVENTPIPE_SESSION session = 0;
    HRESULT hr = S_OK;
    int rc = 0;

    pthread_mutex_lock(&tiers_lock);
    if (tiers_info) /* already open */
        goto done;
    hr = info->lpVtbl->QueryInterface(info, &IID_ICorProfilerInfo12, (void **)&tiers_info);
    if (FAILED(hr) || !tiers_info) {
        tiers_info = NULL;
        hr = FAILED(hr) ? hr : E_NOINTERFACE;
        tiers_log("no ICorProfilerInfo12", hr);
        rc = -1;
        goto done;
    }
    atomic_fetch_add(&tiers_generation, 1); /* before its first event */
    hr = tiers_info->lpVtbl->EventPipeStartSession(tiers_info, 1, &config, 0, &session);
    if (FAILED(hr) || !session) {
        hr = FAILED(hr) ? hr : E_FAIL;
        tiers_log("EventPipeStartSession failed", hr);
        tiers_info->lpVtbl->info10.Release((ICorProfilerInfo10 *)tiers_info);
        tiers_info = NULL;
        rc = -1;
        goto done;
    }
    atomic_store(&tiers_disable_seen, 0);
    atomic_store(&tiers_ended, 0);
    atomic_store(&tiers_ended_said, 0);
    atomic_store(&tiers_cut, 0);
    atomic_store(&tiers_names_info, tiers_info);
    atomic_store(&tiers_session, session);
    if (gcreason_wanted()) {
        COR_PRF_EVENTPIPE_PROVIDER_CONFIG gc;
        HRESULT gc_hr;
        gcreason_config(&gc, tiers_provider);
        gc_hr = tiers_info->lpVtbl->EventPipeStartSession(tiers_info, 1, &gc, 0, &tiers_gc_session);
        if (FAILED(gc_hr) || !tiers_gc_session) {
            fprintf(stderr,
                    "jitscope agent: EventPipeStartSession for GC events failed (0x%08x); "
                    "collections will show induced or other only\n",
                    (unsigned)gc_hr);
            tiers_gc_session = 0;
        }
    }
    if (exceptions_wanted())
        tiers_exceptions_open();
    if (allocations_wanted())
        tiers_allocations_open();
done:
    tiers_hresult = hr;
    pthread_mutex_unlock(&tiers_lock);
    return rc;
}

void tiers_status(wire_tiers_status *out)
{
    pthread_mutex_lock(&tiers_lock);
    out->enabled = !tiers_info                 ? WIRE_TIERS_OFF
                   : atomic_load(&tiers_ended) ? WIRE_TIERS_ENDED_BY_RUNTIME
                                               : WIRE_TIERS_ON;
    out->hresult = tiers_hresult;
    pthread_mutex_unlock(&tiers_lock);
    out->lost = tiers_lost();
}

static void tiers_note_ended(int ended, uint64_t time_ns, int by_disable);

void tiers_stop_at_shutdown(void)
{
    /* the runtime shuts EventPipe down before it calls Shutdown: if a
     * ProcessInfo came, it was that, and nothing more comes to our session
     * (compilations after Shutdown come all the same) */
    if (tiers_running() && atomic_load(&tiers_disable_seen))
        tiers_note_ended(1, 0, 1);
    tiers_stop();
}

void tiers_stop(void)
{
    pthread_mutex_lock(&tiers_lock);
    if (tiers_info) {
        atomic_store(&tiers_stopping, 1); /* the ProcessInfo their disable sends is ours */
        tiers_info->lpVtbl->EventPipeStopSession(tiers_info, atomic_exchange(&tiers_session, 0));
        if (tiers_gc_session)
            tiers_info->lpVtbl->EventPipeStopSession(tiers_info, tiers_gc_session);
        tiers_gc_session = 0;
        if (tiers_exc_session)
            tiers_info->lpVtbl->EventPipeStopSession(tiers_info, tiers_exc_session);
        tiers_exc_session = 0;
        if (tiers_alloc_session)
            tiers_info->lpVtbl->EventPipeStopSession(tiers_info, tiers_alloc_session);
        tiers_alloc_session = 0;
        atomic_store(&tiers_stopping, 0);
        tiers_info->lpVtbl->info10.Release((ICorProfilerInfo10 *)tiers_info);
        tiers_info = NULL;
    }
    pthread_mutex_unlock(&tiers_lock);
}

int tiers_running(void) { return atomic_load(&tiers_session) != 0; }

enum { TIERS_ONLY_EXCEPTIONS = 1, TIERS_ONLY_ALLOCATIONS = 2 };

typedef struct tiers_switch_call {
    ICorProfilerInfo10 *info;
    int on;
    int only; /* TIERS_ONLY_*: one session alone, else the source and all */
} tiers_switch_call;

static void *tiers_switch_main(void *arg)
{
    tiers_switch_call *call = arg;

    pthread_setname_np(pthread_self(), "jitscope-tiers"); /* else its creator's name */
    if (call->only) {
        pthread_mutex_lock(&tiers_lock);
        if (call->on && tiers_info)
            (call->only == TIERS_ONLY_EXCEPTIONS ? tiers_exceptions_open
                                                 : tiers_allocations_open)();
        else if (!call->on)
            (call->only == TIERS_ONLY_EXCEPTIONS ? tiers_exceptions_close
                                                 : tiers_allocations_close)();
        pthread_mutex_unlock(&tiers_lock);
    } else if (call->on) {
        tiers_start(call->info);
    } else {
        tiers_stop();
    }
    return NULL;
}

static void tiers_switch_on_thread(tiers_switch_call call);

void tiers_switch(ICorProfilerInfo10 *info, int on)
{
    tiers_switch_on_thread((tiers_switch_call){info, on, 0});
}

void tiers_switch_exceptions(ICorProfilerInfo10 *info, int on)
{
    exceptions_want(on);
    tiers_switch_on_thread((tiers_switch_call){info, on, TIERS_ONLY_EXCEPTIONS});
}

void tiers_switch_allocations(ICorProfilerInfo10 *info, int on)
{
    allocations_want(on);
    tiers_switch_on_thread((tiers_switch_call){info, on, TIERS_ONLY_ALLOCATIONS});
}

static void tiers_switch_on_thread(tiers_switch_call call)
{
    pthread_t thread;

    /* the EventPipe calls make the calling thread one the runtime knows, and
     * the runtime refuses most profiling calls from such a thread outside a
     * callback: the sender thread names methods, so it must stay unknown */
    if (pthread_create(&thread, NULL, tiers_switch_main, &call) != 0) {
        tiers_log("cannot start a thread to switch the tier source", E_FAIL);
        return;
    }
    pthread_join(thread, NULL);
}

#define TIERS_PROBES 8u /* slots tried from a thread's home slot */

static uint32_t tiers_home(uint64_t thread)
{
    uint64_t h = thread * 0x9e3779b97f4a7c15ull; /* pthread_t values are aligned pointers */
    return (uint32_t)(h >> 40);
}

/* The slot this thread holds, else the first free one from its home slot;
 * NULL when all TIERS_PROBES are held by other threads (counted). */
static tiers_slot *tiers_slot_of_this_thread(uint64_t thread)
{
    uint32_t home = tiers_home(thread), i;

    for (i = 0; i < TIERS_PROBES; i++) {
        tiers_slot *slot = &tiers_table[(home + i) & (TIERS_SLOTS - 1)];
        uint64_t owner = 0;
        if (atomic_load_explicit(&slot->owner, memory_order_relaxed) == thread ||
            atomic_compare_exchange_strong(&slot->owner, &owner, thread))
            return slot;
    }
    atomic_fetch_add_explicit(&tiers_lost_count, 1, memory_order_relaxed);
    tiers_lost_here = 1;
    return NULL;
}

/* 1 when provider is the one named `want` (UTF-16, NUL-terminated); each
 * provider's name is asked once and its handle kept in *known. */
static int tiers_provider_is(EVENTPIPE_PROVIDER provider, _Atomic EVENTPIPE_PROVIDER *known,
                             const WCHAR *want)
{
    ICorProfilerInfo12 *info = atomic_load(&tiers_names_info);
    WCHAR name[64];
    ULONG length = 0, i;

    if (atomic_load_explicit(known, memory_order_relaxed) == provider)
        return 1;
    if (!info || FAILED(info->lpVtbl->EventPipeGetProviderInfo(info, provider, 64, &length, name)))
        return 0;
    for (i = 0; i < length && i < 64 && name[i] == want[i] && want[i]; i++)
        ;
    if (i >= 64 || name[i] != want[i])
        return 0;
    atomic_store_explicit(known, provider, memory_order_relaxed);
    return 1;
}

/* "Microsoft-DotNETCore-EventPipe": its one event, ProcessInfo (1), is sent
 * to every session whenever a session is disabled */
static const WCHAR tiers_pipe_name[] = {'M', 'i', 'c', 'r', 'o', 's', 'o', 'f', 't', '-', 'D',
                                        'o', 't', 'N', 'E', 'T', 'C', 'o', 'r', 'e', '-', 'E',
                                        'v', 'e', 'n', 't', 'P', 'i', 'p', 'e', 0};
#define TIERS_EVENT_PROCESS_INFO 1u
#define TIERS_EVENT_GC_TRIGGERED 35u /* the runtime provider's, from gcreason.h's session */

void tiers_event(EVENTPIPE_PROVIDER provider, DWORD event_id, ULONG size, LPCBYTE payload,
                 ThreadID event_thread)
{
    uint64_t thread = (uint64_t)pthread_self(), function;
    uint32_t flags, il_size;
    tiers_slot *slot;

    if (event_id == TIERS_EVENT_PROCESS_INFO &&
        !tiers_provider_is(provider, &tiers_runtime_provider, tiers_provider)) {
        if (!atomic_load(&tiers_stopping) &&
            tiers_provider_is(provider, &tiers_pipe_provider, tiers_pipe_name)) {
            atomic_store(&tiers_disable_ns, clock_mono_ns());
            atomic_store(&tiers_disable_seen, 1);
        }
        return;
    }
    if (allocations_event_id(event_id)) {
        if (tiers_provider_is(provider, &tiers_runtime_provider, tiers_provider))
            allocations_event(event_id, payload, size, event_thread);
        return;
    }
    if (exceptions_event_id(event_id)) {
        if (tiers_provider_is(provider, &tiers_runtime_provider, tiers_provider))
            exceptions_event(event_id, payload, size, event_thread);
        return;
    }
    if (event_id == TIERS_EVENT_GC_TRIGGERED) {
        if (tiers_provider_is(provider, &tiers_runtime_provider, tiers_provider))
            gcreason_note(payload, size);
        return;
    }
    if (event_id == GCHEAP_EVENT_ID) {
        if (tiers_provider_is(provider, &tiers_runtime_provider, tiers_provider))
            gcheap_note(payload, size);
        return;
    }
    if (!payload || size < sizeof(function))
        return;
    memcpy(&function, payload + TIERS_OFFSET_METHOD_ID, sizeof(function));
    if (event_id == TIERS_EVENT_JITTING_STARTED && size >= TIERS_JITTING_FIXED) {
        /* before the compilation: its IL size, so that nobody has to ask the
         * runtime for it later (the IL of a collectible module may be gone) */
        memcpy(&il_size, payload + TIERS_OFFSET_IL_SIZE, sizeof(il_size));
        /* a compilation begun since: it delivers, unless one was cut (this
         * one passed the runtime's check before the end, and was slow to come) */
        if (atomic_load_explicit(&tiers_ended, memory_order_acquire) && !atomic_load(&tiers_cut))
            tiers_note_ended(0, clock_mono_ns(), 0);
        if ((slot = tiers_slot_of_this_thread(thread)) != NULL) {
            slot->function = function;
            slot->generation = atomic_load_explicit(&tiers_generation, memory_order_relaxed);
            slot->code = (tiers_code){WIRE_TIER_UNKNOWN, 0, il_size, 0};
        }
        return;
    }
    if ((event_id != TIERS_EVENT_METHOD_LOAD && event_id != TIERS_EVENT_METHOD_LOAD_VERBOSE) ||
        size < TIERS_FIXED)
        return;
    memcpy(&flags, payload + TIERS_OFFSET_FLAGS, sizeof(flags));
    if (!(flags & TIERS_FLAG_JITTED))
        return; /* precompiled code: no compilation to attach it to */
    if ((slot = tiers_slot_of_this_thread(thread)) == NULL)
        return;
    if (slot->function != function)
        slot->code.il_size = 0; /* its JittingStarted did not come, or was another's */
    slot->function = function;
    slot->code.tier = (flags >> TIERS_TIER_SHIFT) & TIERS_TIER_MASK;
    memcpy(&slot->code.start, payload + TIERS_OFFSET_START, sizeof(slot->code.start));
    memcpy(&slot->code.size, payload + TIERS_OFFSET_SIZE, sizeof(slot->code.size));
}

/* The runtime ended our session, at time_ns (by_disable: or at the last
 * ProcessInfo, which came as it was disabled, if earlier), or (after that was
 * said for want of an event) it delivers again (at time_ns): said from the
 * thread that saw it. The end is said again when a thread sees an earlier
 * one than was said: compilations under way on several threads as the
 * session ended finish in any order, and the server keeps the earliest. */
static void tiers_note_ended(int ended, uint64_t time_ns, int by_disable)
{
    wire_tiers_status status = {.enabled = ended ? WIRE_TIERS_ENDED_BY_RUNTIME : WIRE_TIERS_ON};
    uint64_t said;

    if (ended && by_disable) {
        /* the runtime stops writing events a moment before it sends
         * ProcessInfo: a compilation in that moment is earlier still */
        uint64_t disabled = atomic_load(&tiers_disable_ns);
        if (!time_ns || disabled < time_ns)
            time_ns = disabled;
    }
    if (atomic_exchange(&tiers_ended, ended) == ended) {
        if (!ended)
            return;
        /* said already (or being said, 0 until then): again if this is earlier */
        said = atomic_load(&tiers_ended_said);
        do {
            if (said && said <= time_ns)
                return;
        } while (!atomic_compare_exchange_weak(&tiers_ended_said, &said, time_ns));
    } else {
        atomic_store(&tiers_ended_said, ended ? time_ns : 0);
    }
    status.lost = tiers_lost();
    emit_record_at(WIRE_TIERS_STATUS, 0, time_ns, &status, sizeof(status), NULL, 0, NULL, 0);
}

int tiers_take(FunctionID function, uint64_t now_ns, int succeeded, tiers_code *out)
{
    uint64_t thread = (uint64_t)pthread_self();
    uint32_t home = tiers_home(thread), i;
    int found = 0, any = 0, cut = 0;

    *out = (tiers_code){WIRE_TIER_UNKNOWN, 0, 0, 0};
    for (i = 0; i < TIERS_PROBES; i++) {
        tiers_slot *slot = &tiers_table[(home + i) & (TIERS_SLOTS - 1)];
        if (atomic_load_explicit(&slot->owner, memory_order_relaxed) != thread)
            continue;
        if (slot->function == function) {
            *out = slot->code;
            found = 1;
            /* its MethodJittingStarted came, from the session open now, and
             * the code was made, but its MethodLoad did not come: the session
             * ended under it (our own stop makes a new generation or leaves
             * none running) */
            cut = out->tier == WIRE_TIER_UNKNOWN && succeeded &&
                  slot->generation == atomic_load_explicit(&tiers_generation, memory_order_relaxed);
        }
        any = 1;
        atomic_store_explicit(&slot->owner, 0, memory_order_release);
        break;
    }
    if (cut && tiers_running()) {
        atomic_store(&tiers_cut, 1);    /* before tiers_ended */
        tiers_note_ended(1, now_ns, 0); /* before this compilation's record */
    }
    /* or no event at all for this compilation, after a ProcessInfo: none come any more */
    else if (!any && !tiers_lost_here &&
             atomic_load_explicit(&tiers_disable_seen, memory_order_relaxed) && tiers_running())
        tiers_note_ended(1, now_ns, 1);
    tiers_lost_here = 0;
    return found;
}

uint64_t tiers_lost(void) { return atomic_load_explicit(&tiers_lost_count, memory_order_relaxed); }
