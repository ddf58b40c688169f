/* naming.c -- FUNCTION_NAME records, once per connection per FunctionID (see
 * naming.h for the rule on IDs that die).
 *
 * State, all of the sender thread:
 *  - naming_named: FunctionIDs named on this connection -> the slot of their
 *    module (naming_slots), so an unloaded module's IDs can be forgotten;
 *  - the name cache: names read ahead (naming_prepare) for records still in
 *    the ring, each tagged with the fence it was read for;
 *  - pending unloads: (module, fence) pairs whose IDs are forgotten once the
 *    drain passes the fence.
 * Resolving goes through names_resolve.c under the runtime lock (walk.h); the
 * text is built in static scratch space, which is why this runs on the sender
 * thread only. Dynamic methods are named on their JIT thread (events.c) and
 * never here: a FunctionID the runtime says is dynamic is not read further
 * (naming.h says why) and is counted in agent.names_late.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "naming.h"
#include "agent.h"
#include "clock.h"
#include "conn.h"
#include "idmap.h"
#include "names_cache.h"
#include "names_resolve.h"
#include "walk.h"
#include "wire.h"

#define NAMING_SLOT_NONE 0u               /* dynamic method, or module not known */
#define NAMING_SLOT_LOST (UINT32_MAX - 1) /* looked at too late: counted, never looked up */
#define NAMING_SLOTS_MAX (1u << 20)
#define NAMING_UNLOADS_MAX 256u
#define NAMING_NAME_BYTES 2048u
#define NAMING_COMMIT_WAIT_MS 100u /* read-ahead: longest wait for a record being written */

typedef struct naming_cached {
    uint64_t function_id, module_id, fence;
    uint32_t token, il_size;
    int dynamic; /* a dynamic method: nothing to send, counted when the drain meets it */
    char *name;  /* NULL once sent or purged ("" for a dynamic method) */
} naming_cached;

typedef struct naming_unload {
    uint64_t fence;
    uint32_t slot;
} naming_unload;

static idmap naming_named; /* FunctionID -> module slot */
static idmap naming_slots; /* ModuleID -> slot (1, 2, ...) */
static uint32_t naming_slot_count;

static idmap naming_cache_index; /* FunctionID -> index in naming_cache */
static naming_cached *naming_cache;
static uint32_t naming_cache_count, naming_cache_cap;

static naming_unload naming_unloads[NAMING_UNLOADS_MAX]; /* in fence order */
static unsigned naming_unload_count;
static _Atomic uint64_t naming_unsafe; /* no look-ups for records before this position */
static int naming_lost_pending;        /* LOST entries to forget once the drain passes it */

static void naming_cache_purge(uint64_t pos);
static uint64_t naming_live_gen; /* NAMING_LIVE look-ups: unload generation of the list */

/* ---- the named set ---- */

/* The module looked up last and its slot (a module's slot never changes
 * until naming_free_all): functions come in runs of one module. */
static uint64_t naming_last_module;
static uint32_t naming_last_slot;

static uint32_t naming_slot_of(uint64_t module)
{
    uint32_t slot;

    if (module == 0)
        return NAMING_SLOT_NONE;
    if (module == naming_last_module)
        return naming_last_slot;
    slot = idmap_get(&naming_slots, module);
    if (slot == IDMAP_MISSING) {
        if (naming_slot_count >= NAMING_SLOTS_MAX ||
            idmap_put(&naming_slots, module, naming_slot_count + 1) != 0)
            return NAMING_SLOT_NONE; /* then it is never forgotten: a recycled ID keeps its name */
        slot = ++naming_slot_count;
    }
    naming_last_module = module, naming_last_slot = slot;
    return slot;
}

/* The last FunctionID found in (or put into) the named set: a JIT's finished
 * record follows its started one, so the second look needs no probe. Reset
 * whenever IDs leave the set. */
static uint64_t naming_last_named;

static int naming_is_named(uint64_t id)
{
    if (id == naming_last_named)
        return 1;
    if (idmap_get(&naming_named, id) == IDMAP_MISSING)
        return 0;
    naming_last_named = id;
    return 1;
}

static void naming_mark(uint64_t id, uint32_t slot)
{
    if (id != 0 && naming_named.count < NAMING_MAX && idmap_put(&naming_named, id, slot) == 0)
        naming_last_named = id; /* out of memory: named again later */
}

/* Drops every entry of the named set whose slot is `slot`. */
static void naming_forget_slot(uint32_t slot)
{
    idmap kept = {0};
    size_t i, capacity = naming_named.capacity;

    for (i = 0; i < capacity; i++)
        if (naming_named.keys[i] != 0 && naming_named.values[i] != slot &&
            idmap_put(&kept, naming_named.keys[i], naming_named.values[i]) != 0)
            break; /* out of memory: forget everything, names are sent again */
    idmap_free(&naming_named);
    if (i == capacity)
        naming_named = kept;
    else
        idmap_free(&kept);
    naming_last_named = 0;
}

void naming_reset(void)
{
    idmap_free(&naming_named);
    naming_last_named = 0;
    names_cache_forget_types(); /* unloads may have gone unseen while there was no server */
}

void naming_free_all(void)
{
    naming_reset();
    naming_cache_purge(UINT64_MAX);
    idmap_free(&naming_slots);
    naming_slot_count = 0;
    naming_last_module = 0;
    naming_unload_count = 0;
    naming_lost_pending = 0;
    atomic_store(&naming_unsafe, 0);
}

void naming_note(uint64_t function_id) { naming_mark(function_id, NAMING_SLOT_NONE); }

void naming_prefetch(uint64_t function_id) { idmap_prefetch(&naming_named, function_id); }

/* ---- the name cache ---- */

static naming_cached *naming_cache_find(uint64_t id)
{
    uint32_t i = idmap_get(&naming_cache_index, id);
    return i == IDMAP_MISSING || !naming_cache[i].name ? NULL : &naming_cache[i];
}

static int naming_cache_add(const wire_function_name *fixed, int dynamic, uint64_t fence,
                            const char *name)
{
    naming_cached *grown, *c;

    if (naming_cache_count >= NAMING_CACHE_MAX)
        return -1;
    if (naming_cache_count == naming_cache_cap) {
        uint32_t cap = naming_cache_cap ? naming_cache_cap * 2 : 64;
        grown = realloc(naming_cache, (size_t)cap * sizeof(*grown));
        if (!grown)
            return -1;
        naming_cache = grown;
        naming_cache_cap = cap;
    }
    c = &naming_cache[naming_cache_count];
    c->name = strdup(name);
    if (!c->name || idmap_put(&naming_cache_index, fixed->function_id, naming_cache_count) != 0) {
        free(c->name);
        return -1;
    }
    c->function_id = fixed->function_id, c->module_id = fixed->module_id, c->fence = fence;
    c->token = fixed->token, c->il_size = fixed->il_size, c->dynamic = dynamic;
    naming_cache_count++;
    return 0;
}

/* Drops the cached names read for fences at or before pos. */
static void naming_cache_purge(uint64_t pos)
{
    uint32_t i, kept = 0;

    for (i = 0; i < naming_cache_count; i++) {
        if (naming_cache[i].name && naming_cache[i].fence > pos)
            naming_cache[kept++] = naming_cache[i];
        else
            free(naming_cache[i].name);
    }
    naming_cache_count = kept;
    idmap_free(&naming_cache_index);
    for (i = 0; i < kept; i++)
        if (idmap_put(&naming_cache_index, naming_cache[i].function_id, i) != 0) {
            free(naming_cache[i].name); /* out of memory: that name is lost, not wrong */
            naming_cache[i].name = NULL;
        }
    if (kept == 0) {
        free(naming_cache);
        naming_cache = NULL;
        naming_cache_cap = 0;
    }
}

/* ---- resolving ---- */

#define NAMING_READ_DYNAMIC 1 /* naming_read: a dynamic method, nothing read */

/* Caller holds the runtime lock. The name of a method with metadata. With
 * ask_dynamic the runtime is asked first whether id is a dynamic method: such
 * an ID is not read any further (NAMING_READ_DYNAMIC), because nothing tells
 * the agent that the method still lives (naming.h). Returns 0, -1 when the
 * runtime could not say, or NAMING_READ_DYNAMIC. */
static int naming_read(uint64_t id, int ask_dynamic, char *name, size_t size,
                       wire_function_name *fixed)
{
    BOOL dynamic = FALSE;

    if (ask_dynamic && SUCCEEDED(agent.info->lpVtbl->IsFunctionDynamic(agent.info, id, &dynamic)) &&
        dynamic)
        return NAMING_READ_DYNAMIC;
    return names_resolve(agent.info, id, name, size, &fixed->module_id, &fixed->token);
}

/* A dynamic method met outside its JIT callbacks: no name is read or sent; it
 * is counted once and not looked at again on this connection (with its
 * module's slot when the read-ahead of that module's unload found it, so that
 * the ID is forgotten with the module's). */
static int naming_dynamic_unnamed(uint64_t id, uint64_t module)
{
    atomic_fetch_add_explicit(&agent.names_late, 1, memory_order_relaxed);
    naming_mark(id, naming_slot_of(module));
    return 0;
}

void naming_live_since(uint64_t generation) { naming_live_gen = generation; }

/* Sends one FUNCTION_NAME; the function counts as named once it is on its way.
 * For a ring record, no room means: nothing sent, the record waits in the ring
 * (CONN_NO_ROOM); for catch-up, the name is dropped and counted like any
 * record of the sender's own. */
static int naming_send(uint64_t ring_pos, uint16_t flags, const wire_function_name *fixed,
                       const char *name, size_t n)
{
    int rc = ring_pos == NAMING_LIVE ? conn_emit(WIRE_FUNCTION_NAME, flags, clock_mono_ns(), fixed,
                                                 sizeof(*fixed), name, n, NULL, 0)
                                     : conn_emit_or_keep(WIRE_FUNCTION_NAME, flags, clock_mono_ns(),
                                                         fixed, sizeof(*fixed), name, n, NULL, 0);
    if (rc == 0)
        naming_mark(fixed->function_id, naming_slot_of(fixed->module_id));
    return rc;
}

/* Runtime lock held. May a FunctionID mentioned at ring_pos be looked up now? */
static int naming_may_look_up(uint64_t ring_pos)
{
    if (atomic_load(&agent.detach_requested))
        return 0; /* every call would fail, and must not be made */
    if (ring_pos == NAMING_LIVE)
        return atomic_load(&agent.unload_gen) == naming_live_gen;
    return ring_pos >= atomic_load(&naming_unsafe);
}

int naming_function(uint64_t function_id, int has_metadata, uint16_t flags, uint64_t ring_pos)
{
    static char name[NAMING_NAME_BYTES];
    wire_function_name fixed = {.function_id = function_id};
    naming_cached *c;
    size_t n;
    int rc = -1, looked = 0;

    if (function_id == 0 || naming_is_named(function_id))
        return 0;
    if ((c = naming_cache_find(function_id)) != NULL) {
        if (c->dynamic)
            return naming_dynamic_unnamed(function_id, c->module_id);
        fixed.module_id = c->module_id;
        fixed.token = c->token;
        fixed.il_size = c->il_size;
        rc = naming_send(ring_pos, flags, &fixed, c->name, strlen(c->name));
        return rc == CONN_NO_ROOM ? CONN_NO_ROOM : 0;
    }
    walk_runtime_lock();
    if (naming_may_look_up(ring_pos)) { /* checked under the lock unload.c takes to give up */
        looked = 1;
        rc = naming_read(function_id, !has_metadata, name, sizeof(name), &fixed);
    }
    walk_runtime_unlock();
    if (!looked && ring_pos == NAMING_LIVE && !atomic_load(&agent.detach_requested))
        return -1; /* the caller's list went stale: it takes a new one */
    if (!looked) {
        atomic_fetch_add_explicit(&agent.names_late, 1, memory_order_relaxed);
        naming_mark(function_id, NAMING_SLOT_LOST);
        naming_lost_pending = 1;
        return 0;
    }
    if (rc == NAMING_READ_DYNAMIC)
        return naming_dynamic_unnamed(function_id, 0);
    if (rc == 0) {
        n = strlen(name);
    } else {
        atomic_fetch_add_explicit(&agent.name_failures, 1, memory_order_relaxed);
        n = (size_t)snprintf(name, sizeof(name), "(unknown function 0x%llx)",
                             (unsigned long long)function_id);
    }
    return naming_send(ring_pos, flags, &fixed, name, n) == CONN_NO_ROOM ? CONN_NO_ROOM : 0;
}

int naming_stack_frames(const uint8_t *payload, uint32_t length, uint64_t ring_pos)
{
    wire_stack_thread t;
    wire_stack_frame f;
    uint32_t i, n;

    if (length < sizeof(t))
        return 0;
    memcpy(&t, payload, sizeof(t));
    n = (length - (uint32_t)sizeof(t)) / (uint32_t)sizeof(f);
    if (t.frame_count < n)
        n = t.frame_count;
    for (i = 0; i < n && conn_connected(); i++) {
        memcpy(&f, payload + sizeof(t) + (size_t)i * sizeof(f), sizeof(f));
        if (f.function_id &&
            naming_function(f.function_id, NAMING_ASK_DYNAMIC, 0, ring_pos) == CONN_NO_ROOM)
            return CONN_NO_ROOM;
    }
    return 0;
}

/* The FunctionIDs of an exception record (the thrower, then its sampled
 * stack's frames), a caught one (the catcher) or an allocation sample (its
 * stack's frames): up to cap of them. */
static unsigned naming_exception_ids(uint16_t type, const uint8_t *payload, uint32_t length,
                                     uint64_t *ids, unsigned cap)
{
    wire_exception e;
    wire_stack_frame f;
    uint32_t i, n;
    unsigned count = 0;

    if (type == WIRE_EXCEPTION_CAUGHT && length >= sizeof(wire_exception_caught) && cap > 0) {
        memcpy(&ids[0], payload + offsetof(wire_exception_caught, function_id), sizeof(ids[0]));
        return 1;
    }
    if (type == WIRE_ALLOCATION && length >= sizeof(wire_allocation)) {
        wire_allocation a;
        memcpy(&a, payload, sizeof(a));
        n = (length - (uint32_t)sizeof(a)) / (uint32_t)sizeof(f);
        if (a.frame_count < n)
            n = a.frame_count;
        for (i = 0; i < n && count < cap; i++) {
            memcpy(&f, payload + sizeof(a) + (size_t)i * sizeof(f), sizeof(f));
            ids[count++] = f.function_id;
        }
        return count;
    }
    if (type != WIRE_EXCEPTION || length < sizeof(e) || cap == 0)
        return 0;
    memcpy(&e, payload, sizeof(e));
    ids[count++] = e.function_id;
    n = (length - (uint32_t)sizeof(e)) / (uint32_t)sizeof(f);
    if (e.frame_count < n)
        n = e.frame_count;
    for (i = 0; i < n && count < cap; i++) {
        memcpy(&f, payload + sizeof(e) + (size_t)i * sizeof(f), sizeof(f));
        ids[count++] = f.function_id;
    }
    return count;
}

int naming_exception_functions(uint16_t type, const uint8_t *payload, uint32_t length,
                               uint64_t ring_pos)
{
    uint64_t ids[WIRE_EXCEPTION_MAX_FRAMES + 1];
    unsigned i, n = naming_exception_ids(type, payload, length, ids, WIRE_EXCEPTION_MAX_FRAMES + 1);

    for (i = 0; i < n && conn_connected(); i++)
        if (ids[i] && naming_function(ids[i], NAMING_ASK_DYNAMIC, 0, ring_pos) == CONN_NO_ROOM)
            return CONN_NO_ROOM;
    return 0;
}

/* The FunctionIDs of an inlining or code-search record, and for each whether
 * the runtime must be asked if it is dynamic (only a dynamic compilation can
 * inline a dynamic method, and its own ID is never looked up here). */
static unsigned naming_record_ids(uint16_t type, uint16_t flags, const uint8_t *payload,
                                  uint32_t length, uint64_t ids[2], int ask_dynamic[2])
{
    if (type == WIRE_INLINING && length >= sizeof(wire_inlining)) {
        wire_inlining r;
        memcpy(&r, payload, sizeof(r));
        if (flags & WIRE_FLAG_DYNAMIC) { /* the caller is the dynamic method, or inside it */
            ids[0] = r.callee, ask_dynamic[0] = 1;
            return 1;
        }
        ids[0] = r.caller, ids[1] = r.callee, ask_dynamic[0] = ask_dynamic[1] = 0;
        return 2;
    }
    if (type == WIRE_CODE_SEARCH && length >= sizeof(wire_code_search)) {
        wire_code_search r;
        memcpy(&r, payload, sizeof(r));
        ids[0] = r.function_id, ask_dynamic[0] = 0; /* ReadyToRun code: metadata */
        return 1;
    }
    return 0;
}

int naming_record_functions(uint16_t type, uint16_t flags, const uint8_t *payload, uint32_t length,
                            uint64_t ring_pos)
{
    uint64_t ids[2];
    int ask[2];
    unsigned i, n = naming_record_ids(type, flags, payload, length, ids, ask);

    for (i = 0; i < n && conn_connected(); i++)
        if (naming_function(ids[i], ask[i] ? NAMING_ASK_DYNAMIC : NAMING_HAS_METADATA, 0,
                            ring_pos) == CONN_NO_ROOM)
            return CONN_NO_ROOM;
    return 0;
}

/* ---- reading ahead ---- */

/* Runtime lock held. Keeps the name of one function mentioned ahead, if it is
 * not named yet and belongs to `module` (0: any); for a dynamic method, that it
 * is one, so that the drain asks the runtime nothing more about the ID. */
static void naming_prepare_one(uint64_t id, int ask_dynamic, uint64_t module, uint64_t fence)
{
    static char name[NAMING_NAME_BYTES];
    wire_function_name fixed = {.function_id = id};
    ClassID cls = 0;
    ModuleID owner = 0;
    mdToken token = 0;
    int rc;

    if (id == 0 || naming_is_named(id) || naming_cache_find(id))
        return;
    if (module != 0 &&
        (FAILED(agent.info->lpVtbl->GetFunctionInfo(agent.info, id, &cls, &owner, &token)) ||
         owner != module))
        return; /* another module's: it lives on, and is named when its record goes out */
    rc = naming_read(id, ask_dynamic, name, sizeof(name), &fixed);
    if (rc == NAMING_READ_DYNAMIC) {
        fixed.module_id = module; /* forgotten with the module's IDs once the drain passes */
        name[0] = '\0';
    } else if (rc != 0) {
        return; /* the drain names it "(unknown ...)" while it still lives */
    }
    if (naming_cache_add(&fixed, rc == NAMING_READ_DYNAMIC, fence, name) != 0) {
        /* no room to keep it: it must not be looked up after the unload, nor
         * anything else not read ahead before this fence */
        naming_unsafe_before(fence);
    }
}

void naming_prepare(uint64_t fence, uint64_t module, const _Atomic int *stop)
{
    uint64_t pos = ring_tail(&agent.ring);
    unsigned spins = 0;

    while (pos < fence && !atomic_load(stop)) {
        wire_frame_header h;
        uint32_t length;
        uint64_t at = pos;
        const uint8_t *rec = ring_read_at(&agent.ring, &pos, &length);

        if (!rec) { /* a producer between reserve and commit, maybe preempted there */
            if (++spins > NAMING_COMMIT_WAIT_MS) {
                naming_unsafe_before(fence); /* not read ahead: not looked up later either */
                break;
            }
            clock_sleep_ns(1000000u);
            pos = at;
            continue;
        }
        if (length < sizeof(h))
            continue;
        memcpy(&h, rec, sizeof(h));
        if ((h.type == WIRE_JIT_STARTED || h.type == WIRE_JIT_FINISHED) &&
            !(h.flags & WIRE_FLAG_DYNAMIC) && h.length >= sizeof(uint64_t)) {
            uint64_t id;
            memcpy(&id, rec + sizeof(h), sizeof(id));
            naming_prepare_one(id, 0, module, fence);
        } else if (h.type == WIRE_INLINING || h.type == WIRE_CODE_SEARCH) {
            uint64_t ids[2];
            int ask[2];
            unsigned i, n = naming_record_ids(h.type, h.flags, rec + sizeof(h), h.length, ids, ask);
            for (i = 0; i < n; i++)
                naming_prepare_one(ids[i], ask[i], module, fence);
        } else if (h.type == WIRE_EXCEPTION || h.type == WIRE_EXCEPTION_CAUGHT ||
                   h.type == WIRE_ALLOCATION) {
            uint64_t ids[WIRE_EXCEPTION_MAX_FRAMES + 1];
            unsigned i, n = naming_exception_ids(h.type, rec + sizeof(h), h.length, ids,
                                                 WIRE_EXCEPTION_MAX_FRAMES + 1);
            for (i = 0; i < n && !atomic_load(stop); i++)
                naming_prepare_one(ids[i], 1, module, fence);
        } else if (h.type == WIRE_STACK_THREAD && h.length >= sizeof(wire_stack_thread)) {
            wire_stack_thread t;
            wire_stack_frame f;
            uint32_t i, n;
            memcpy(&t, rec + sizeof(h), sizeof(t));
            n = (h.length - (uint32_t)sizeof(t)) / (uint32_t)sizeof(f);
            for (i = 0; i < n && i < t.frame_count && !atomic_load(stop); i++) {
                memcpy(&f, rec + sizeof(h) + sizeof(t) + (size_t)i * sizeof(f), sizeof(f));
                naming_prepare_one(f.function_id, 1, module, fence);
            }
        }
    }
}

/* ---- unloads ---- */

void naming_module_unloaded(uint64_t module, uint64_t fence)
{
    uint32_t slot = idmap_get(&naming_slots, module);

    if (slot == IDMAP_MISSING)
        return; /* none of its functions was named: nothing to forget */
    if (naming_unload_count == NAMING_UNLOADS_MAX) {
        /* too many at once: forget now, and read nothing mentioned before fence */
        naming_unsafe_before(fence);
        naming_forget_slot(slot);
        return;
    }
    naming_unloads[naming_unload_count++] = (naming_unload){fence, slot};
}

void naming_unsafe_before(uint64_t fence)
{
    uint64_t now = atomic_load(&naming_unsafe);

    while (fence > now && !atomic_compare_exchange_weak(&naming_unsafe, &now, fence))
        ;
}

void naming_passed(uint64_t pos)
{
    unsigned done = 0, i;

    while (done < naming_unload_count && naming_unloads[done].fence <= pos)
        naming_forget_slot(naming_unloads[done++].slot);
    if (done) {
        for (i = done; i < naming_unload_count; i++)
            naming_unloads[i - done] = naming_unloads[i];
        naming_unload_count -= done;
    }
    /* entries are added in fence order: the first has the lowest */
    if (naming_cache_count && naming_cache[0].fence <= pos)
        naming_cache_purge(pos);
    if (naming_lost_pending && pos >= atomic_load(&naming_unsafe)) {
        naming_forget_slot(NAMING_SLOT_LOST);
        naming_lost_pending = 0;
    }
}
