/* naming.c -- FUNCTION_NAME records, once per connection per FunctionID.
 *
 * The set of FunctionIDs already named on this connection is a proto/idmap,
 * capped at NAMING_MAX entries: a full set (or one that cannot grow) names a
 * function again, which costs a record and nothing else, since the server keeps
 * the first name it gets. Resolving goes through names_resolve.c under the
 * runtime lock (walk.h); the text is built in static scratch space, which is
 * why this runs on the sender thread only. Dynamic methods are named on the
 * JIT thread (events.c); here only those met in catch-up or in stacks.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "naming.h"
#include "agent.h"
#include "clock.h"
#include "conn.h"
#include "idmap.h"
#include "names_resolve.h"
#include "walk.h"
#include "wire.h"

static idmap naming_named; /* FunctionIDs named on this connection */

/* Returns 1 when id was not in the set (and adds it, if there is room). */
static int naming_add(uint64_t id)
{
    if (id == 0 || idmap_get(&naming_named, id) != IDMAP_MISSING)
        return 0;
    if (naming_named.count < NAMING_MAX)
        (void)idmap_put(&naming_named, id, 1); /* out of memory: it is named again later */
    return 1; /* a full set names again; the server keeps the first name */
}

void naming_reset(void) { idmap_free(&naming_named); }

static int naming_resolve(uint64_t function_id, char *name, size_t size, wire_function_name *f)
{
    int rc;

    walk_runtime_lock();
    rc = names_resolve(agent.info, function_id, name, size, &f->module_id, &f->token);
    walk_runtime_unlock();
    return rc;
}

/* A dynamic method's name, if function_id is one; catch-up and stack frames
 * do not say whether a function is dynamic, so ask. Under the runtime lock
 * like every runtime call of this thread (no call while the walker holds the
 * runtime suspended). */
static int naming_dynamic(uint64_t function_id, char *name, size_t size)
{
    BOOL dynamic = FALSE;
    int rc = -1;

    walk_runtime_lock();
    if (SUCCEEDED(agent.info->lpVtbl->IsFunctionDynamic(agent.info, function_id, &dynamic)) &&
        dynamic)
        rc = names_dynamic(agent.info, function_id, name, size);
    walk_runtime_unlock();
    return rc;
}

void naming_note(uint64_t function_id) { (void)naming_add(function_id); }

void naming_function(uint64_t function_id, int has_metadata, uint16_t flags)
{
    static char name[2048];
    wire_function_name fixed = {.function_id = function_id};
    size_t n;

    if (!naming_add(function_id))
        return;
    if (!has_metadata && naming_dynamic(function_id, name, sizeof(name)) == 0) {
        n = strlen(name);
        flags |= WIRE_FLAG_DYNAMIC;
    } else if (naming_resolve(function_id, name, sizeof(name), &fixed) == 0) {
        n = strlen(name);
    } else {
        atomic_fetch_add_explicit(&agent.name_failures, 1, memory_order_relaxed);
        n = (size_t)snprintf(name, sizeof(name), "(unknown function 0x%llx)",
                             (unsigned long long)function_id);
    }
    conn_emit(WIRE_FUNCTION_NAME, flags, clock_mono_ns(), &fixed, sizeof(fixed), name, n, NULL, 0);
}

void naming_stack_frames(const uint8_t *payload, uint32_t length)
{
    wire_stack_thread t;
    wire_stack_frame f;
    uint32_t i, n;

    if (length < sizeof(t))
        return;
    memcpy(&t, payload, sizeof(t));
    n = (length - (uint32_t)sizeof(t)) / (uint32_t)sizeof(f);
    if (t.frame_count < n)
        n = t.frame_count;
    for (i = 0; i < n && conn_connected(); i++) {
        memcpy(&f, payload + sizeof(t) + (size_t)i * sizeof(f), sizeof(f));
        if (f.function_id)
            naming_function(f.function_id, NAMING_ASK_DYNAMIC, 0);
    }
}
