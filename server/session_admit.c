/* session_admit.c -- before an agent's record is folded (session_fold.c): its
 * sequence number taken in, the record checked against what the ring and
 * the sequence allow (record_check.h) and against the session's share of
 * the memory budget (budget.h, docs/API.md "Memory budget"). A refused
 * record is counted, never half applied; the connection goes on. Caller
 * holds the sessions lock (session.h). */
#include "session_kinds.h"

#include "budget.h"
#include "linkcost.h"
#include "record_kinds.h"

/* The record's sequence number taken in, and the record checked against
 * what the session knows (record_check.h). 0, or SESSION_REFUSED (counted);
 * -1 for a hello that breaks them (the handshake: the connection goes). */
static int session_check(session *s, const wire_record *r, const record_kind *k,
                         record_check_context *c, const char **protocol_why)
{
    int in_order = r->seq > s->last_seq;
    const char *why = NULL;
    int rc;

    /* the gaps before this record count: a DROPS read its counters after them */
    *c = (record_check_context){s->last_seq,
                                s->seq_gaps + (in_order ? r->seq - s->last_seq - 1 : 0),
                                s->connections,
                                s->ring_bytes,
                                &s->drops,
                                &s->agent_cost,
                                s->tiers_known ? &s->tiers : NULL,
                                &s->checks};
    rc = record_check(c, r, &why);
    if (rc == 0 && k->check)
        rc = k->check(c, r, &why);

    s->records++;
    if (in_order) { /* an out-of-order one is refused and moves nothing */
        s->seq_gaps = c->seq_gaps;
        s->last_seq = r->seq;
    }
    if (rc != 0 && (k->flags & RECORD_KIND_OPENS)) {
        *protocol_why = why;
        return -1;
    }
    if (rc != 0) {
        s->records_refused++;
        s->refused_why = why;
        s->refusals_unlogged = 1;
        return SESSION_REFUSED;
    }
    return 0;
}

/* ---- the memory budget: what a record would add, before it is applied ---- */

/* What one more entry in an index that grows at 70% full adds (its table doubles). */
static uint64_t session_index_growth(size_t count, size_t capacity, size_t first, size_t slot)
{
    if ((count + 1) * 10 <= capacity * 7)
        return 0;
    return (capacity ? capacity : first) * slot;
}

/* What one more name adds to the pool's tables (the hash table doubles at 75%
 * full, the serials when full: strpool.c) and to the type parts' summaries
 * (fnsig.c, by serial). */
static uint64_t session_name_table_growth(const session *s)
{
    const strpool *p = &s->names;
    uint64_t grows = 0;

    if ((p->count + 1) * 4 > p->capacity * 3)
        grows += (p->capacity ? p->capacity : 1024) * sizeof(strpool_slot);
    if (p->count + 2 > p->serial_cap)
        grows += (p->serial_cap ? p->serial_cap : 256) * sizeof(*p->serial_refs);
    if (p->count + 2 > s->name_sigs.type_cap)
        grows += (s->name_sigs.type_cap ? s->name_sigs.type_cap : 256) * FNSIG_TYPE_BYTES;
    return grows;
}

static uint64_t session_new_function_bytes(session *s, uint64_t id)
{
    if (id == 0 || session_find_function(s, id))
        return 0;
    return sizeof(session_function) + FNSIG_ENTRY_BYTES +
           session_index_growth(s->function_index.count, s->function_index.capacity, 1024,
                                sizeof(idindex_slot));
}

/* A new thread row: the row, its ThreadID and OS id in their indexes. */
static uint64_t session_new_row_bytes(const session *s)
{
    return sizeof(session_thread) + 2 * SESSION_IDMAP_SLOT +
           session_index_growth(s->thread_index.count, s->thread_index.capacity, 64,
                                SESSION_IDMAP_SLOT) +
           session_index_growth(s->thread_os_index.count, s->thread_os_index.capacity, 64,
                                SESSION_IDMAP_SLOT);
}

static uint64_t session_new_thread_bytes(session *s, uint64_t id)
{
    if (id == 0 || session_find_thread(s, id))
        return 0;
    return session_new_row_bytes(s);
}

/* What reaching the newest function's position adds to one of the code
 * view's per-function arrays (code.c: zero-filled, doubling from 1,024). */
static uint64_t session_code_reach_bytes(const session *s, size_t cap, size_t elem)
{
    if (cap > s->function_count + 2) /* a record adds at most two functions */
        return 0;
    return (1024 + 2 * ((uint64_t)s->function_count + 3)) * elem;
}

/* What a CODE_VERSION allocates for its reply: the reply itself when it is
 * the first piece, then the code, map and references it announces, within a
 * reply's cap (code.c). */
static uint64_t session_code_version_bytes(const wire_code_version_info *v)
{
    uint64_t n = (uint64_t)v->code_sent + (uint64_t)v->map_sent * sizeof(wire_code_map_entry) +
                 (uint64_t)v->ref_count * sizeof(wire_code_ref);

    return sizeof(code_reply) + (n < CODE_REPLY_MAX_BYTES ? n : CODE_REPLY_MAX_BYTES);
}

/* What n more ranges add to the code map (codemap.h: its tail doubles from
 * 256, counted at its capacity). */
static uint64_t session_codemap_bytes(const session *s, uint64_t n)
{
    const codemap *m = &s->codemap;

    if (m->tail_count + n <= m->tail_cap)
        return 0;
    return (m->tail_cap + 2 * n + 256) * sizeof(codemap_range);
}

static uint64_t session_event_bytes(const session *s)
{
    return s->events.last_seq < EVENTLOG_MAX ? SESSION_EVENT_BYTES : 0;
}

/* ---- each kind's budget bound (session_kinds.h: the rows of record_kinds.c
 * point here; a kind without one adds nothing that grows) ---- */

/* What a stack end, a profile status, a GC or a suspension may add: a
 * sample's stack, a GC or a suspension may double one of the profile's or
 * timeline's arrays: at most what they hold (their caps keep any one under
 * 16 MiB). */
uint64_t session_need_observation(session *s, const wire_record *r, unsigned *refused_kind,
                                  int *fixed)
{
    *refused_kind = SESSION_REFUSED_OTHER;
    *fixed = 0;
    return sizeof(wire_frame_header) + sizeof(r->u) + session_event_bytes(s) + 64 * 1024 +
           (s->budget.observations < (16u << 20) ? s->budget.observations : (16u << 20));
}

/* A stack walk's thread: its frames and threads are kept, beside what any
 * observation may add. */
uint64_t session_need_stack_thread(session *s, const wire_record *r, unsigned *refused_kind,
                                   int *fixed)
{
    return session_need_observation(s, r, refused_kind, fixed) +
           (uint64_t)r->u.stack_thread.frame_count * 2 * sizeof(wire_stack_frame) +
           2 * sizeof(stacks_thread);
}

uint64_t session_need_jit_started(session *s, const wire_record *r, unsigned *refused_kind,
                                  int *fixed)
{
    uint64_t fn = session_new_function_bytes(s, r->u.jit_started.function_id);

    *fixed = 0;
    *refused_kind = fn ? SESSION_REFUSED_FUNCTIONS : SESSION_REFUSED_THREADS;
    return fn + session_new_thread_bytes(s, r->u.jit_started.thread_id);
}

uint64_t session_need_jit_finished(session *s, const wire_record *r, unsigned *refused_kind,
                                   int *fixed)
{
    uint64_t fn = session_new_function_bytes(s, r->u.jit_finished.function_id);
    /* its `more` (a second code version, a second compilation), and a
     * compilation list: at most its doubling to the cap */
    uint64_t need = fn + session_event_bytes(s) + sizeof(session_function_more) +
                    (fn ? 0 : SESSION_MAX_COMPILATIONS / 2 * sizeof(session_compilation));

    /* the code view notes each version it lists and its own (code.h) */
    need += ((uint64_t)r->code_version_count + 1) * sizeof(code_seen) +
            session_code_reach_bytes(s, s->code.seen_head_cap, sizeof(uint32_t)) +
            session_codemap_bytes(s, (uint64_t)r->code_version_count + 1);
    *fixed = 0;
    *refused_kind = fn ? SESSION_REFUSED_FUNCTIONS : SESSION_REFUSED_EVENTS;
    return need;
}

/* Its callee and caller may be new functions; an inline. */
uint64_t session_need_inlining(session *s, const wire_record *r, unsigned *refused_kind, int *fixed)
{
    uint64_t fn = session_new_function_bytes(s, r->u.inlining.callee) +
                  session_new_function_bytes(s, r->u.inlining.caller);

    *fixed = 0;
    *refused_kind = fn ? SESSION_REFUSED_FUNCTIONS : SESSION_REFUSED_OTHER;
    return fn + sizeof(code_inline) +
           session_code_reach_bytes(s, s->code.root_head_cap, sizeof(uint32_t)) +
           session_code_reach_bytes(s, s->code.callee_head_cap, sizeof(uint32_t));
}

/* A new function, perhaps; its ReadyToRun bits. */
uint64_t session_need_code_search(session *s, const wire_record *r, unsigned *refused_kind,
                                  int *fixed)
{
    uint64_t fn = session_new_function_bytes(s, r->u.code_search.function_id);

    *fixed = 0;
    *refused_kind = fn ? SESSION_REFUSED_FUNCTIONS : SESSION_REFUSED_OTHER;
    return fn + session_code_reach_bytes(s, s->code.r2r_cap, 1);
}

/* A code lookup's answer: its function, perhaps new; a range. */
uint64_t session_need_code_range(session *s, const wire_record *r, unsigned *refused_kind,
                                 int *fixed)
{
    uint64_t fn = session_new_function_bytes(s, r->u.code_range.function_id);

    *fixed = 0;
    *refused_kind = fn ? SESSION_REFUSED_FUNCTIONS : SESSION_REFUSED_OTHER;
    return fn + session_codemap_bytes(s, 1);
}

/* An exception: its site (made the first time), its recent entry's message
 * and frames, the session's exception state the first time. */
uint64_t session_need_exception(session *s, const wire_record *r, unsigned *refused_kind,
                                int *fixed)
{
    static const exc_state none;

    *fixed = 0;
    *refused_kind = SESSION_REFUSED_OTHER;
    return (s->exceptions ? 0 : sizeof(exc_state)) +
           exc_need(s->exceptions ? s->exceptions : &none, r);
}

/* Exceptions counted by the agent: their site (made the first time), the
 * session's exception state the first time. */
uint64_t session_need_exception_counts(session *s, const wire_record *r, unsigned *refused_kind,
                                       int *fixed)
{
    static const exc_state none;

    *fixed = 0;
    *refused_kind = SESSION_REFUSED_OTHER;
    return (s->exceptions ? 0 : sizeof(exc_state)) +
           exc_counts_need(s->exceptions ? s->exceptions : &none, r);
}

/* An allocation sample: its type and stack (made the first time), the
 * session's allocation state the first time. */
uint64_t session_need_allocation(session *s, const wire_record *r, unsigned *refused_kind,
                                 int *fixed)
{
    static const alloc_state none;

    *fixed = 0;
    *refused_kind = SESSION_REFUSED_OTHER;
    return (s->allocations ? 0 : sizeof(alloc_state)) +
           alloc_need(s->allocations ? s->allocations : &none, r);
}

/* A version of a code reply: its buffers. */
uint64_t session_need_code_version(session *s, const wire_record *r, unsigned *refused_kind,
                                   int *fixed)
{
    (void)s;
    *fixed = 0;
    *refused_kind = SESSION_REFUSED_OTHER;
    return session_code_version_bytes(&r->u.code_version);
}

/* Fills what its version made room for; IL grows its buffer. */
uint64_t session_need_code_part(session *s, const wire_record *r, unsigned *refused_kind,
                                int *fixed)
{
    (void)s;
    *fixed = 1;
    *refused_kind = SESSION_REFUSED_OTHER;
    return r->u.code_part.kind == WIRE_CODE_PART_IL ? (uint64_t)r->data_length : 0;
}

/* Ends a reply (a first piece: the reply itself). */
uint64_t session_need_code_end(session *s, const wire_record *r, unsigned *refused_kind, int *fixed)
{
    (void)s, (void)r;
    *fixed = 1;
    *refused_kind = SESSION_REFUSED_OTHER;
    return sizeof(code_reply);
}

uint64_t session_need_function_name(session *s, const wire_record *r, unsigned *refused_kind,
                                    int *fixed)
{
    uint64_t need = 0, fn = session_new_function_bytes(s, r->u.function_name.function_id);
    session_function *f = fn ? NULL : session_find_function(s, r->u.function_name.function_id);

    if (fn || !f || !f->name_record || (r->flags & WIRE_FLAG_DYNAMIC)) /* a name is taken */
        need = (uint64_t)r->strings[0].length + 2 +
               FNNAME_HEAD_BYTES + /* two NULs: a new type part */
               2 * (sizeof(strpool_slot) + STRPOOL_SERIAL_BYTES) + session_name_table_growth(s);
    *fixed = 0;
    *refused_kind = fn ? SESSION_REFUSED_FUNCTIONS : SESSION_REFUSED_NAMES;
    return fn + need;
}

/* A module loaded, or an assembly's name for one. */
uint64_t session_need_module(session *s, const wire_record *r, unsigned *refused_kind, int *fixed)
{
    uint64_t need = sizeof(session_module) + 2 * SESSION_IDMAP_SLOT + session_event_bytes(s);

    for (unsigned i = 0; i < r->string_count; i++)
        need += (uint64_t)r->strings[i].length + 1;
    *fixed = 0;
    *refused_kind = SESSION_REFUSED_MODULES;
    return need;
}

/* Never refused for a known module: its IDs must retire. */
uint64_t session_need_module_unloaded(session *s, const wire_record *r, unsigned *refused_kind,
                                      int *fixed)
{
    *refused_kind = SESSION_REFUSED_MODULES;
    *fixed = session_find_module(s, r->u.module_unloaded.module_id) ||
             !r->u.module_unloaded.module_id;
    return *fixed ? 0 : sizeof(session_module) + 2 * SESSION_IDMAP_SLOT;
}

/* A thread not seen live yet gets a row (session_thread.c). */
uint64_t session_need_thread_row(session *s, const wire_record *r, unsigned *refused_kind,
                                 int *fixed)
{
    uint64_t need = session_new_row_bytes(s) + session_event_bytes(s);

    if (r->string_count)
        need += (uint64_t)r->strings[0].length + 1;
    *fixed = 0;
    *refused_kind = SESSION_REFUSED_THREADS;
    return need;
}

/* Never refused for a live thread (a THREAD_DESTROYED: it ended). */
uint64_t session_need_thread_id(session *s, const wire_record *r, unsigned *refused_kind,
                                int *fixed)
{
    uint64_t need = session_new_thread_bytes(s, r->u.thread.thread_id);

    *refused_kind = SESSION_REFUSED_THREADS;
    *fixed = need == 0;
    return need;
}

/* An upper bound of the bytes r would add to s's state, and what it would
 * add (enum session_refused_kind); *fixed is set for a record that only ends,
 * completes or counts what s knows (its state does not grow). A kind without
 * a bound adds nothing that grows: counters and status, and what they say is
 * never refused (a CATCHUP_END's or DETACH_STATUS's event-log entry may be). */
static uint64_t session_record_need(session *s, const wire_record *r, const record_kind *k,
                                    unsigned *kind, int *fixed)
{
    *kind = SESSION_REFUSED_OTHER;
    *fixed = 1;
    return k->need ? k->need(s, r, kind, fixed) : 0;
}

/* An upper bound of what r adds to s's log on its way to storage (its frame
 * and an entry's header; budget.h: it is held until written). */
static uint64_t session_record_log_bytes(const wire_record *r)
{
    uint64_t n = 16 + sizeof(wire_frame_header) + sizeof(r->u) +
                 (uint64_t)r->code_version_count * sizeof(wire_code_version);
    unsigned i;

    if (!budget_counts_unwritten())
        return 0;
    for (i = 0; i < r->string_count; i++)
        n += 2 + (uint64_t)r->strings[i].length;                    /* its length, its bytes */
    n += r->data_length;                                            /* a code part's data */
    n += (uint64_t)r->stack_frame_count * sizeof(wire_stack_frame); /* a walk's, an exception's */
    return n;
}

/* 1 when s may take need more bytes: within its share (a record that grows
 * s's state leaves the last 1/SESSION_BUDGET_SPARE of it to those that only
 * update it, so an agent's counters and ends still come in when names no
 * longer do) and, for one that grows, within the budget's total. */
static int session_budget_fits(const session *s, uint64_t need, uint64_t share, int fixed)
{
    if (fixed)
        return s->budget.held + need <= share;
    return budget_allows(s->budget.held, need + share / SESSION_BUDGET_SPARE);
}

/* 0 when r fits s's share of the memory budget, with its copy for storage;
 * SESSION_REFUSED (counted) when not. Far from both limits a record is let
 * through without looking: no record adds more than a doubling of the
 * indexes, of the code view's per-function arrays and of the code map's
 * tail, a code reply's buffers and 32 MiB. */
static int session_budget_check(session *s, const wire_record *r, const record_kind *k)
{
    uint64_t share = budget_share(), held = s->budget.held, max = budget_max(),
             total = budget_held(), room, need;
    unsigned kind;
    int fixed;

    if (s->persist.quiet || (k->flags & RECORD_KIND_OPENS))
        return 0; /* read back: it was taken when it came; a hello starts a connection */
    room = share > held ? share - held : 0;
    if (max - (total < max ? total : max) < room)
        room = max - (total < max ? total : max);
    if (room >
        s->function_index.capacity * sizeof(idindex_slot) * 2 + strpool_table_bytes(&s->names) +
            (s->module_index.capacity + s->thread_index.capacity + s->thread_os_index.capacity) *
                SESSION_IDMAP_SLOT +
            (s->code.seen_head_cap + s->code.root_head_cap + s->code.callee_head_cap) *
                sizeof(uint32_t) * 2 +
            s->code.r2r_cap * 2 + 2 * sizeof(code_reply) + CODE_REPLY_MAX_BYTES +
            s->codemap.tail_cap * sizeof(codemap_range) + share / SESSION_BUDGET_SPARE +
            (32u << 20))
        return 0;
    need = session_record_need(s, r, k, &kind, &fixed) + session_record_log_bytes(r);
    if (s->refusals_unlogged && budget_counts_unwritten()) /* the refusals' trace goes first */
        need += 16 + sizeof(wire_frame_header) + sizeof(logrec_refused);
    if (need == 0 || session_budget_fits(s, need, share, fixed))
        return 0;
    session_memory_unwritten(s); /* what the writer finished since is given back */
    if (session_budget_fits(s, need, share, fixed))
        return 0;
    s->budget.refused[kind]++;
    s->budget.refused_records++;
    s->refusals_unlogged = 1;
    return SESSION_REFUSED;
}

int session_admit(session *s, const wire_record *r, const record_kind *k, const char **why)
{
    record_check_context c;
    int checked;
    uint64_t t = linkcost_start();

    if (k->flags & RECORD_KIND_OPENS)
        s->last_seq = 0; /* a connection's numbers start at 1 */
    checked = session_check(s, r, k, &c, why);
    t = linkcost_add(LINKCOST_CHECK, t);
    if (checked != 0)
        return checked;
    if (session_budget_check(s, r, k) != 0)
        return SESSION_REFUSED;
    linkcost_add(LINKCOST_BUDGET, t);
    if (k->accepted)
        k->accepted(&s->checks, &c, r);
    if (!s->persist.quiet) /* its frame goes into the log as it came (the link hands it over) */
        s->budget.unlogged += session_record_log_bytes(r);
    return 0;
}
