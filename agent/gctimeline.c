/* gctimeline.c -- GC starts and ends, runtime suspensions and resumes, as records.
 *
 * Which suspension a phase belongs to. The runtime suspends itself for one
 * reason at a time, but it calls RuntimeResumeFinished after it has let the
 * next suspender in, on another thread: records of two suspensions interleave
 * (seen in about 2% of the walks during a GC-heavy run, in both orders: a GC's
 * resume after our start, and ours after a GC's start). So every phase carries
 * the reason of its own suspension: COR_PRF_SUSPEND_FOR_PROFILER when it runs on
 * the walker thread (all our suspensions, and only they, begin and end there),
 * else the reason of the last suspension the runtime began on its own. Pairing
 * "ours" with "ours" and the others with the others is then exact.
 *
 * Catch-up rule: a collection (or suspension) already under way when the agent
 * began shows up as a lone "finished" callback. Until the first start of its
 * kind has been seen, such callbacks are ignored, so the server never has to
 * pair an end with a start that was never sent (docs/RUNTIME.md, Catching up).
 * Our own suspensions always begin after the agent did. This state is reset by
 * gctimeline_reset when an agent begins, before the event mask is set. */
#include "gctimeline.h"

#include <stdatomic.h>

#include "emit.h"
#include "gcreason.h"
#include "walk.h"
#include "wire.h"

static _Atomic int gctimeline_gc_seen;      /* a GarbageCollectionStarted was seen */
static _Atomic int gctimeline_suspend_seen; /* a suspension begun by the runtime was seen */
static _Atomic uint32_t gctimeline_reason;  /* the reason of that last one */
static _Atomic uint64_t gctimeline_gcs;     /* GarbageCollectionStarted calls so far */

uint64_t gctimeline_gc_count(void)
{
    return atomic_load_explicit(&gctimeline_gcs, memory_order_relaxed);
}

void gctimeline_reset(void)
{
    atomic_store(&gctimeline_gc_seen, 0);
    atomic_store(&gctimeline_suspend_seen, 0);
    atomic_store(&gctimeline_reason, 0);
}

HRESULT STDMETHODCALLTYPE cb_GarbageCollectionStarted(ICorProfilerCallback11 *self,
                                                      int cGenerations, BOOL generationCollected[],
                                                      COR_PRF_GC_REASON reason)
{
    wire_gc_started g = {.reason = WIRE_GC_REASON(reason & 0xffu, gcreason_take())};
    int i;

    (void)self;
    for (i = 0; generationCollected && i < cGenerations && i < 32; i++)
        if (generationCollected[i])
            g.generations |= 1u << i;
    atomic_store_explicit(&gctimeline_gc_seen, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&gctimeline_gcs, 1, memory_order_relaxed);
    emit_record(WIRE_GC_STARTED, 0, &g, sizeof(g), NULL, 0, NULL, 0);
    return S_OK;
}

HRESULT STDMETHODCALLTYPE cb_GarbageCollectionFinished(ICorProfilerCallback11 *self)
{
    wire_gc_finished g = {0};

    (void)self;
    if (atomic_load_explicit(&gctimeline_gc_seen, memory_order_relaxed))
        emit_record(WIRE_GC_FINISHED, 0, &g, sizeof(g), NULL, 0, NULL, 0);
    return S_OK;
}

/* reason: the runtime's, for a start; ignored for the other phases. */
static void gctimeline_phase(uint32_t phase, uint32_t reason)
{
    wire_runtime_suspend s = {.phase = phase, .reason = reason};

    if (walk_on_walker_thread()) {
        s.reason = COR_PRF_SUSPEND_FOR_PROFILER;
    } else if (phase == WIRE_SUSPEND_STARTED) {
        atomic_store_explicit(&gctimeline_reason, reason, memory_order_relaxed);
        atomic_store_explicit(&gctimeline_suspend_seen, 1, memory_order_release);
    } else if (!atomic_load_explicit(&gctimeline_suspend_seen, memory_order_acquire)) {
        return; /* the end of a suspension that began before us */
    } else {
        s.reason = atomic_load_explicit(&gctimeline_reason, memory_order_relaxed);
    }
    emit_record(WIRE_RUNTIME_SUSPEND, 0, &s, sizeof(s), NULL, 0, NULL, 0);
}

HRESULT STDMETHODCALLTYPE cb_RuntimeSuspendStarted(ICorProfilerCallback11 *self,
                                                   COR_PRF_SUSPEND_REASON suspendReason)
{
    (void)self;
    gctimeline_phase(WIRE_SUSPEND_STARTED, (uint32_t)suspendReason);
    return S_OK;
}

/* The phases after the start carry nothing but the phase: one template, one
 * row a callback. */
#define GCTIMELINE_PHASE_CALLBACK(callback, phase)                                                 \
    HRESULT STDMETHODCALLTYPE callback(ICorProfilerCallback11 *self)                               \
    {                                                                                              \
        (void)self;                                                                                \
        gctimeline_phase(phase, 0);                                                                \
        return S_OK;                                                                               \
    }

GCTIMELINE_PHASE_CALLBACK(cb_RuntimeSuspendFinished, WIRE_SUSPEND_FINISHED)
GCTIMELINE_PHASE_CALLBACK(cb_RuntimeSuspendAborted, WIRE_SUSPEND_ABORTED)
GCTIMELINE_PHASE_CALLBACK(cb_RuntimeResumeStarted, WIRE_RESUME_STARTED)
GCTIMELINE_PHASE_CALLBACK(cb_RuntimeResumeFinished, WIRE_RESUME_FINISHED)
