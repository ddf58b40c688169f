/* allocations.c -- allocation samples as records (see allocations.h). */
#include "allocations.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "clock.h"
#include "conn.h"
#include "emit.h"
#include "utf.h"
#include "walk.h"

#define ALLOC_KEYWORD_SAMPLING 0x80000000000ull /* AllocationSampling (.NET 10) */
#define ALLOC_KEYWORD_GC 0x1ull                 /* GC: AllocationTick at verbose */
#define ALLOC_LEVEL_INFORMATIONAL 4u
#define ALLOC_LEVEL_VERBOSE 5u
#define ALLOC_EVENT_SAMPLED 303u /* AllocationSampled */
#define ALLOC_EVENT_TICK 10u     /* GCAllocationTick_V4 */
#define ALLOC_SAMPLING_MAJOR 10u /* the first runtime with AllocationSampled */
#define ALLOC_SECOND_NS 1000000000ull

static _Atomic int alloc_on_at_start = -1; /* -1: not read yet */
static _Atomic int alloc_wanted_now = 0;
static _Atomic uint64_t alloc_second;  /* the current second (monotonic s) */
static _Atomic uint32_t alloc_sent;    /* records sent in it */
static _Atomic uint32_t alloc_unsent;  /* samples not sent since the last record */
static _Atomic uint64_t alloc_last_ns; /* the newest record's time (monotonic ns), 0: none */
static uint64_t alloc_ticked_for;      /* sender thread: the alloc_last_ns it ticked past */

int allocations_wanted(void)
{
    if (atomic_load(&alloc_on_at_start) < 0) {
        const char *env = getenv(WIRE_ENV_ALLOCATIONS);
        int on = env && strcmp(env, "1") == 0;
        int unread = -1;
        if (atomic_compare_exchange_strong(&alloc_on_at_start, &unread, on) && on)
            atomic_store(&alloc_wanted_now, 1);
    }
    return atomic_load(&alloc_wanted_now);
}

void allocations_want(int on)
{
    (void)allocations_wanted(); /* the environment read first, so it does not undo this */
    atomic_store(&alloc_wanted_now, on != 0);
}

void allocations_config(COR_PRF_EVENTPIPE_PROVIDER_CONFIG *out, const WCHAR *runtime_provider,
                        unsigned major)
{
    if (major >= ALLOC_SAMPLING_MAJOR)
        *out = (COR_PRF_EVENTPIPE_PROVIDER_CONFIG){runtime_provider, ALLOC_KEYWORD_SAMPLING,
                                                   ALLOC_LEVEL_INFORMATIONAL, NULL};
    else
        *out = (COR_PRF_EVENTPIPE_PROVIDER_CONFIG){runtime_provider, ALLOC_KEYWORD_GC,
                                                   ALLOC_LEVEL_VERBOSE, NULL};
}

int allocations_event_id(DWORD event_id)
{
    return event_id == ALLOC_EVENT_SAMPLED || event_id == ALLOC_EVENT_TICK;
}

/* 1 when this second's cap has room (the sample is then sent), else counted. */
static int alloc_admit(uint64_t now)
{
    uint64_t second = now / ALLOC_SECOND_NS, seen = atomic_load(&alloc_second);

    if (second != seen && atomic_compare_exchange_strong(&alloc_second, &seen, second))
        atomic_store(&alloc_sent, 0);
    if (atomic_fetch_add(&alloc_sent, 1) < WIRE_ALLOC_MAX_PER_SECOND)
        return 1;
    atomic_fetch_add(&alloc_unsent, 1);
    return 0;
}

/* The length in UTF-16 units of the NUL-terminated string at payload + at;
 * -1 when the payload ends first. *end: the byte after its NUL. */
static long alloc_utf16(const uint8_t *payload, size_t size, size_t at, size_t *end)
{
    size_t i;

    for (i = at; i + 1 < size; i += 2)
        if (payload[i] == 0 && payload[i + 1] == 0) {
            *end = i + 2;
            return (long)((i - at) / 2);
        }
    return -1;
}

/* Reads the event into a (its type name's place in *name_at, units in
 * *name_units). AllocationSampled: AllocationKind u32, ClrInstanceID u16,
 * TypeID ptr, TypeName, [HeapIndex u32,] Address ptr, ObjectSize u64,
 * SampledByteOffset u64 (read from the end: whether HeapIndex is there
 * differs between the manifest and the runtime's event source). Tick (V4):
 * AllocationAmount u32, AllocationKind u32, ClrInstanceID u16,
 * AllocationAmount64 u64, TypeID ptr, TypeName, HeapIndex u32, Address ptr,
 * ObjectSize u64. 0, or -1 when the payload is not that. */
static int alloc_read(DWORD event_id, const uint8_t *p, size_t size, wire_allocation *a,
                      size_t *name_at, long *name_units)
{
    size_t type_at = event_id == ALLOC_EVENT_SAMPLED ? 6 : 18, end = 0;

    if (size < type_at + 8 + 2)
        return -1;
    memcpy(&a->type_id, p + type_at, 8);
    *name_at = type_at + 8;
    if ((*name_units = alloc_utf16(p, size, *name_at, &end)) < 0)
        return -1;
    if (event_id == ALLOC_EVENT_SAMPLED) {
        uint32_t kind;
        if (size - end < 8 + 8 + 8)
            return -1;
        memcpy(&kind, p, 4);
        memcpy(&a->object_size, p + size - 16, 8);
        memcpy(&a->weight, p + size - 8, 8);
        a->kind = kind;
        a->source = WIRE_ALLOC_SAMPLED;
        if (a->weight > a->object_size)
            a->weight = a->object_size;
    } else {
        if (size - end < 4 + 8 + 8)
            return -1;
        memcpy(&a->kind, p + 4, 4);
        memcpy(&a->weight, p + 10, 8);
        memcpy(&a->object_size, p + end + 4 + 8, 8);
        a->source = WIRE_ALLOC_TICK;
    }
    return a->object_size ? 0 : -1;
}

void allocations_flush_unsent(void)
{
    uint64_t last = atomic_load_explicit(&alloc_last_ns, memory_order_relaxed), now;
    int tick = last != 0 && last != alloc_ticked_for;
    wire_allocation a;

    memset(&a, 0, sizeof(a));
    a.kind = WIRE_ALLOC_KIND_UNSENT_ONLY;
    a.source = WIRE_ALLOC_SAMPLED;
    if ((a.unsent = atomic_exchange(&alloc_unsent, 0)) == 0 && !tick)
        return;
    now = clock_mono_ns();
    if (tick && now >= last + 1000000000ull)
        alloc_ticked_for = last; /* past the end of the newest sample's second: the last tick */
    conn_emit(WIRE_ALLOCATION, 0, now, &a, sizeof(a), "", 0, NULL, 0);
}

void allocations_event(DWORD event_id, const uint8_t *payload, size_t size, ThreadID thread)
{
    char type[WIRE_ALLOC_TYPE_MAX];
    wire_stack_frame frames[WIRE_ALLOC_MAX_FRAMES];
    wire_allocation a;
    size_t name_at, type_len;
    long name_units;
    int cut = 0;
    uint64_t now;

    if (!payload || !atomic_load_explicit(&alloc_wanted_now, memory_order_relaxed))
        return;
    memset(&a, 0, sizeof(a));
    if (alloc_read(event_id, payload, size, &a, &name_at, &name_units) != 0)
        return;
    now = clock_mono_ns();
    if (!alloc_admit(now))
        return;
    a.unsent = atomic_exchange(&alloc_unsent, 0);
    type_len = utf16le_to_utf8(payload + name_at, (size_t)name_units, type, sizeof(type), &cut);
    if (type_len == 0)
        type[0] = '?', type_len = 1;
    if (!thread && FAILED(agent.info->lpVtbl->GetCurrentThreadID(agent.info, &thread)))
        thread = 0;
    a.thread_id = thread;
    a.frame_count = walk_current_thread(frames, WIRE_ALLOC_MAX_FRAMES);
    wire_text name = {.utf8 = type, .length = type_len};
    emit_record_at(WIRE_ALLOCATION, cut ? WIRE_FLAG_TRUNCATED : 0, now, &a, sizeof(a), frames,
                   a.frame_count * (uint32_t)sizeof(wire_stack_frame), &name, 1);
    atomic_store_explicit(&alloc_last_ns, now, memory_order_relaxed);
}
