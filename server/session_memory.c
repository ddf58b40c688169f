/* session_memory.c -- what a session holds as the memory budget counts it
 * (budget.h, docs/API.md "Memory budget"): its tables, indexes, name text,
 * strings, event log, stacks, profile and timeline, the code view's state
 * (code.h) and code map (codemap.h), and what of its log and snapshot waits for the storage writer; kept in the budget's total as it
 * changes. Whether a record may add to it is session_admit.c's. Caller holds
 * the sessions lock (session.h). */
#include "session.h"

#include <string.h>

#include "budget.h"

/* Stacks, profile and timeline: what their arrays and blocks hold. */
static uint64_t session_observation_bytes(const session *s)
{
    const profile_state *p = &s->profile;
    uint64_t n = p->sample_cap * sizeof(*p->samples) + p->stack_cap * sizeof(*p->stacks) +
                 p->frame_cap * sizeof(*p->frames) + p->index_cap * sizeof(*p->index) +
                 p->thread_cap * sizeof(*p->threads) +
                 p->thread_index.capacity * SESSION_IDMAP_SLOT +
                 s->timeline.gc_cap * sizeof(*s->timeline.gcs) +
                 s->timeline.suspension_cap * sizeof(*s->timeline.suspensions) +
                 s->timeline.heap_cap * sizeof(*s->timeline.heaps) +
                 p->cpu.symbol_cap * sizeof(*p->cpu.symbols) + p->cpu.text_cap +
                 profile_heat_bytes(&p->heat) + profile_addr_bytes(&p->addr);
    unsigned i;

    n += stacks_block_bytes(&s->stacks) + profile_block_bytes(p);
    if (s->exceptions)
        n += sizeof(*s->exceptions) + s->exceptions->bytes;
    if (s->allocations)
        n += sizeof(*s->allocations) + s->allocations->held;
    for (i = 0; s->stacks.pending && i < STACKS_PENDING; i++)
        n += s->stacks.pending[i].thread_cap * sizeof(stacks_thread) +
             s->stacks.pending[i].frame_cap * sizeof(wire_stack_frame);
    for (i = 0; s->stacks.kept && i < STACKS_KEEP; i++)
        n += s->stacks.kept[i].thread_cap * sizeof(stacks_thread) +
             s->stacks.kept[i].frame_cap * sizeof(wire_stack_frame);
    return n;
}

/* The code view's state (code.h): the versions and inlines written, the
 * per-function arrays (zero-filled as they grow: all of them), the code
 * replies kept. */
static uint64_t session_code_bytes(const code_state *c)
{
    return c->seen_count * sizeof(*c->seen) + c->inline_count * sizeof(*c->inlines) +
           (c->seen_head_cap + c->root_head_cap + c->callee_head_cap) * sizeof(uint32_t) +
           c->r2r_cap + c->reply_bytes;
}

/* What the session holds, in bytes: what is written of its arrays (they grow
 * without zero-filling, so the reserved rest is not resident), its indexes,
 * name text, strings, the event log, stacks, profile and timeline (a CPU
 * profile's symbols too), the code view's state, the code map (codemap.h),
 * and what waits for storage. */
static uint64_t session_held_bytes(const session *s)
{
    uint64_t events = s->events.last_seq < EVENTLOG_MAX ? s->events.last_seq : EVENTLOG_MAX;

    return s->function_count * sizeof(*s->functions) +
           s->function_index.capacity * sizeof(*s->function_index.slots) +
           fnsig_bytes(&s->name_sigs, s->function_count) + s->names.text_bytes +
           strpool_table_bytes(&s->names) + s->compilation_bytes +
           s->module_count * sizeof(*s->modules) + s->module_index.capacity * SESSION_IDMAP_SLOT +
           s->thread_count * sizeof(*s->threads) +
           (s->thread_index.capacity + s->thread_os_index.capacity) * SESSION_IDMAP_SLOT +
           s->budget.text + events * SESSION_EVENT_BYTES + s->budget.observations +
           session_code_bytes(&s->code) + codemap_bytes(&s->codemap) + s->budget.unwritten +
           s->budget.unlogged;
}

void session_memory_sync(session *s)
{
    uint64_t held = session_held_bytes(s);

    if (s->budget.counted) /* a private copy (being read back) is not the registry's */
        budget_held_change((int64_t)held - (int64_t)s->budget.held);
    s->budget.held = held;
}

void session_memory_observed(session *s)
{
    s->budget.observations = session_observation_bytes(s);
    session_memory_sync(s);
}

void session_memory_text(session *s, const char *kept, const char *let_go)
{
    uint64_t gone = let_go ? strlen(let_go) + 1 : 0;

    s->budget.text += kept ? strlen(kept) + 1 : 0;
    s->budget.text -= gone <= s->budget.text ? gone : s->budget.text;
}

void session_memory_handed(session *s, uint64_t bytes)
{
    s->budget.unwritten += bytes;
    session_memory_sync(s);
}

void session_memory_logged(session *s, uint64_t bytes)
{
    s->budget.unwritten += bytes;
    s->budget.unlogged = 0;
    session_memory_sync(s);
}

void session_memory_unwritten(session *s)
{
    if (!s->budget.unwritten)
        return; /* it only grows by what this session hands over */
    s->budget.unwritten = budget_unwritten(s->id);
    session_memory_sync(s);
}

void session_budget_count(session *s)
{
    if (s->budget.counted)
        return;
    s->budget.counted = 1;
    budget_held_change((int64_t)s->budget.held);
}

void session_budget_forget(session *s)
{
    if (s->budget.counted)
        budget_held_change(-(int64_t)s->budget.held);
    s->budget.counted = 0;
    session_budget_connected(s, 0);
}

void session_memory_recount(session *s)
{
    uint64_t text = 0;
    size_t i;

    for (i = 0; i < s->module_count; i++)
        text += (s->modules[i].path ? strlen(s->modules[i].path) + 1 : 0) +
                (s->modules[i].assembly ? strlen(s->modules[i].assembly) + 1 : 0);
    for (i = 0; i < s->thread_count; i++)
        text += s->threads[i].name ? strlen(s->threads[i].name) + 1 : 0;
    s->budget.text = text;
    session_memory_observed(s);
}

void session_budget_connected(session *s, int connected)
{
    if (s->budget.connected == (connected != 0))
        return;
    s->budget.connected = connected != 0;
    budget_live_change(connected ? 1 : -1);
}
