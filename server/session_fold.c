/* session_fold.c -- what each of an agent's record kinds does to its session:
 * one fold per kind (session_kinds.h), which the kind's row in
 * record_kinds.c points at and session_apply (session_apply.c) calls once the
 * record is admitted. Idempotent on runtime IDs, tolerant of IDs it never
 * saw, catch-up never overriding what live callbacks said. The one fold: a
 * live agent's records and a stored log read back both come through here
 * (the observations', stack walks, profile and timeline, are in
 * session_observe.c). */
#include "session_kinds.h"

#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "grow.h"

static char *session_strdup(const wire_string *s)
{
    char *copy = malloc((size_t)s->length + 1);

    if (copy) {
        memcpy(copy, s->text, s->length);
        copy[s->length] = '\0';
    }
    return copy;
}

/* The get-or-create helpers return NULL when the ID is 0 or a cap is reached;
 * *created tells a new entry. */
static session_function *session_function_slot(session *s, uint64_t id, int *created)
{
    session_function *f = session_find_function(s, id);

    *created = 0;
    if (f || id == 0)
        return f;
    if (!(f = session_function_append(s, id))) {
        s->capacity_drops++;
        return NULL;
    }
    *created = 1;
    return f;
}

/* A dynamic method has one body (the runtime's code versioning leaves dynamic
 * methods out: no tier-up, no second compilation), so a dynamic compilation
 * of a FunctionID that already made code is another method: the runtime
 * collected the first and gave its MethodDesc, and so its FunctionID, to a
 * new one. It gets a function of its own; the old one stays listed as it was
 * (its events name it by position), and the ID finds the new one. Seen at
 * the compilation's start, or at its name should the start have been lost. */
static session_function *session_dynamic_renew(session *s, session_function *f, uint16_t flags)
{
    session_function *renewed;
    uint64_t module_id = f->module_id;

    if (!(flags & WIRE_FLAG_DYNAMIC) || !(f->flags & WIRE_FLAG_DYNAMIC) || f->jit_count == 0 ||
        f->hresult < 0)
        return f; /* a failed compilation made no body: the method may be compiled again */
    /* the array may move: f is not read after this */
    renewed = session_function_append(s, f->function_id);
    if (!renewed) {
        s->capacity_drops++;
        return NULL;
    }
    renewed->flags = WIRE_FLAG_DYNAMIC;
    renewed->module_id = module_id;
    return renewed;
}

/* A JIT record named the function: it is listed and counted from now on. */
static void session_function_jitted(session *s, session_function *f)
{
    if (!f->jitted) {
        f->jitted = 1;
        s->functions_jitted++;
    }
}

static session_module *session_module_entry(session *s, uint64_t id, int *created)
{
    session_module *m = session_find_module(s, id);

    *created = 0;
    if (m || id == 0)
        return m;
    m = session_module_append(s, id);
    *created = m != NULL;
    return m;
}

static void session_log(session *s, const wire_record *r, int64_t when, uint64_t id, uint64_t value,
                        uint32_t extra)
{
    /* live, the log grows within the memory budget only (a full one reuses
     * its oldest): the records that log here unchecked (an unload, a detach
     * status) could otherwise fill it */
    if (!s->persist.quiet && s->events.last_seq < EVENTLOG_MAX &&
        !budget_allows(s->budget.held, SESSION_EVENT_BYTES)) {
        s->capacity_drops++;
        return;
    }
    eventlog_append(&s->events, r->type, r->flags, when, id, value, extra);
}

/* Replaces a module's string (what the budget counts as text). */
static void session_set_string(session *s, char **field, const wire_string *value)
{
    char *copy = session_strdup(value);

    if (copy) {
        session_memory_text(s, copy, *field);
        free(*field);
        *field = copy;
    }
}

/* A function's name, into the session's pool; out of room it keeps the name it
 * had. A method's first name is new (one per FunctionID): appended. Dynamic
 * methods are renamed each time their FunctionID is reused, often with the
 * same few names: interned, so that renaming does not grow the pool. */
static void session_set_name(session *s, session_function *f, const wire_string *value, int dynamic)
{
    const char *name = fnname_store(&s->names, (const char *)value->text, value->length, dynamic);

    if (name)
        session_function_name_set(s, f, name);
    else
        s->capacity_drops++;
}

/* Finds and pops the matching JIT start on the thread; returns the duration or 0. */
static uint64_t session_jit_duration(session_thread *t, uint64_t function_id, uint64_t end_ns)
{
    unsigned i;

    if (!t)
        return 0;
    for (i = t->jit_depth; i > 0; i--) {
        if (t->jit_stack[i - 1].function_id == function_id) {
            uint64_t start = t->jit_stack[i - 1].start_ns;
            memmove(&t->jit_stack[i - 1], &t->jit_stack[i],
                    (t->jit_depth - i) * sizeof(t->jit_stack[0]));
            t->jit_depth--;
            return end_ns > start ? end_ns - start : 0;
        }
    }
    return 0;
}

/* Whether a code start is among the newest SESSION_MAX_CODE_VERSIONS seen. */
static int session_code_known(const session_function *f, uint64_t code_start)
{
    uint32_t i,
        known = f->versions < SESSION_MAX_CODE_VERSIONS ? f->versions : SESSION_MAX_CODE_VERSIONS;

    for (i = 0; i < known; i++)
        if (session_function_code_start(f, i) == (uint32_t)code_start)
            return 1;
    return 0;
}

/* Remembers a native code start; the newest SESSION_MAX_CODE_VERSIONS are kept
 * (in a ring) to recognise repeats, which are what catch-up produces. Returns 1
 * when the start was new. */
static int session_add_code_version(session *s, session_function *f, uint64_t code_start)
{
    unsigned slot = f->versions % SESSION_MAX_CODE_VERSIONS;
    session_function_more *m;

    if (code_start == 0 || session_code_known(f, code_start))
        return 0;
    if (slot == 0)
        f->code_start0 = (uint32_t)code_start;
    else if ((m = session_function_more_of(s, f))) /* out of memory: counted, not kept */
        m->code_start[slot - 1] = (uint32_t)code_start;
    f->versions++;
    return 1;
}

/* Takes in the code versions a JIT record lists. Returns the native size of the
 * version this compilation made (the start not seen before), or 0 if none is
 * new. The count is at least what the runtime says exists. Each new start goes
 * into the session's code map with its size (codemap.h). */
static uint32_t session_take_code_versions(session *s, session_function *f, const wire_record *r,
                                           uint64_t *new_start)
{
    const wire_jit_finished *j = &r->u.jit_finished;
    uint32_t new_size = 0, position = (uint32_t)(f - s->functions);
    unsigned i;

    *new_start = 0;
    if (r->code_version_count == 0) {
        /* the tier source's code of this compilation, or the code in use */
        if (session_add_code_version(s, f, j->code_start))
            codemap_add(&s->codemap, j->code_start, j->code_size, position);
        *new_start = j->code_start;
    } else {
        for (i = 0; i < r->code_version_count; i++)
            if (session_add_code_version(s, f, r->code_versions[i].start)) {
                new_size = r->code_versions[i].size;
                *new_start = r->code_versions[i].start;
                codemap_add(&s->codemap, r->code_versions[i].start, r->code_versions[i].size,
                            position);
            }
        /* catch-up's code in use, when the versions listed leave it out
         * (ReadyToRun code); not counted as a version */
        for (i = 0; i < r->code_version_count && r->code_versions[i].start != j->code_start; i++)
            ;
        if (j->code_start && i == r->code_version_count && !session_code_known(f, j->code_start))
            codemap_add(&s->codemap, j->code_start, j->code_size, position);
    }
    if (j->code_versions > f->versions && j->code_versions <= 1u << 20)
        f->versions = j->code_versions;
    return new_size;
}

/* The agent's answer to a code lookup (the CPU profiler's, cpuprof.h): the
 * range goes into the code map, named by the function found (created if new:
 * ReadyToRun code is known from its name record and such answers only); an
 * address that is not managed code is kept as such, so it is not asked again.
 * An answer refused for a detach (E_ABORT) says nothing about the address. */
static void session_apply_code_range(session *s, const wire_code_range *c)
{
    session_function *f;
    int created;

    if (!c->function_id) {
        if (c->hresult != (int32_t)0x80004004u)
            codemap_add(&s->codemap, c->ip, 1, CODEMAP_NOT_MANAGED);
        return;
    }
    if (!(f = session_function_slot(s, c->function_id, &created)))
        return;
    if (c->size)
        codemap_add(&s->codemap, c->start, c->size, (uint32_t)(f - s->functions));
    else
        codemap_add(&s->codemap, c->ip, 1, (uint32_t)(f - s->functions));
}

/* Keeps one live compilation (with f->tier and f->native_size already set);
 * past SESSION_MAX_COMPILATIONS, or out of memory, it is only counted. The
 * first needs no list (the function's fields say it all); the second makes
 * the list, with the first copied from `first` (those fields before this
 * compilation changed them). */
static void session_add_compilation(session *s, session_function *f,
                                    const session_compilation *first, int64_t when,
                                    uint64_t duration)
{
    int new_list = f->compilation_cap == 0;
    session_function_more *m;

    if (f->compilation_count == 0) {
        f->compilation_count = 1;
        return;
    }
    if (session_function_list_room(s, f) != 0) {
        if ((m = session_function_more_of(s, f)))
            m->compilations_unkept++;
        return;
    }
    if (new_list)
        f->more->list[0] = *first;
    f->more->list[f->compilation_count++] = (session_compilation){when, duration, f->native_size,
                                                                  f->tier};
}

static void session_apply_jit(session *s, const wire_record *r, int64_t when)
{
    const wire_jit_finished *j = &r->u.jit_finished;
    int catchup = (r->flags & WIRE_FLAG_CATCHUP) != 0, created;
    session_function *f = session_function_slot(s, j->function_id, &created);
    uint64_t duration = 0;
    eventlog_entry *e;
    session_thread *thread;
    uint32_t new_size;
    session_compilation first;
    uint64_t new_start;
    uint32_t position;
    unsigned i;

    if (!f)
        return;
    position = (uint32_t)(f - s->functions);
    session_function_jitted(s, f);
    /* every version listed, for the code view (code.h); this compilation's is new_start */
    for (i = 0; i < r->code_version_count; i++)
        code_note_version(&s->code, position, r->code_versions[i].start, r->code_versions[i].size,
                          CODE_NO_ORDINAL);
    if (catchup) {
        /* enumeration only fills in what live callbacks did not already say */
        session_take_code_versions(s, f, r, &new_start);
        code_note_version(&s->code, position, j->code_start, j->code_size, CODE_NO_ORDINAL);
        if (f->jit_count == 0) {
            f->flags |= WIRE_FLAG_CATCHUP | (r->flags & WIRE_FLAG_DYNAMIC);
            f->il_size = j->il_size;
            f->native_size = j->code_size;
            if (!f->first_jit_ns)
                f->first_jit_ns = when;
        }
        if (created)
            session_log(s, r, when, j->function_id, 0, j->code_size);
        return;
    }
    thread = session_thread_for_jit(s, j->thread_id);
    duration = session_jit_duration(thread, j->function_id, r->time_ns);
    first = session_function_compilation(f, 0);
    f->flags = (f->flags & ~(uint32_t)WIRE_FLAG_CATCHUP) | (r->flags & WIRE_FLAG_DYNAMIC);
    f->thread_row = thread ? session_thread_row_of(s, thread) : 0;
    if (j->il_size)
        f->il_size = j->il_size;
    new_size = session_take_code_versions(s, f, r, &new_start);
    if (new_size || j->code_size) /* else: a version already seen; keep its size */
        f->native_size = new_size ? new_size : j->code_size;
    if (j->hresult >= 0) /* a failed JIT made no code */
        code_note_version(&s->code, position, new_start, f->native_size,
                          f->jit_count < CODE_NO_ORDINAL ? (uint16_t)f->jit_count
                                                         : CODE_NO_ORDINAL - 1);
    f->hresult = j->hresult;
    f->jit_count++;
    if (!f->first_jit_ns || f->jit_count == 1)
        f->first_jit_ns = when;
    f->jit_time_total_ns += duration;
    if (f->jit_count > 1 || f->more) { /* else: derived from the fields above */
        session_function_more *m = session_function_more_of(s, f);
        if (m)
            m->last_jit_ns = when, m->jit_time_ns = duration;
    }
    s->jit_time_total_ns += duration;
    s->jit_compilations++;
    f->tier = j->tier < WIRE_TIER_COUNT ? j->tier : WIRE_TIER_UNKNOWN; /* hostile input */
    /* a compilation under way on another thread as the runtime ended the tier
     * source can come after the agent's word with an earlier time: the end
     * was at least that early */
    if (f->tier == WIRE_TIER_UNKNOWN && s->tiers_ended_ns && when < s->tiers_ended_ns)
        s->tiers_ended_ns = when;
    s->tier_compilations[f->tier]++;
    s->tier_jit_ns[f->tier] += duration;
    session_add_compilation(s, f, &first, when, duration);
    e = eventlog_append(&s->events, r->type, r->flags, when, j->function_id, duration,
                        f->native_size);
    if (e) {
        e->tier = f->tier;
        e->function_row = position + 1; /* its FunctionID may name a later method */
    }
}

/* A module unloaded: its FunctionIDs may now be given to other methods, so
 * they stop finding its functions (which stay listed, as they were). */
static void session_retire_functions(session *s, uint64_t module_id)
{
    idindex kept = {0};
    size_t i, capacity = s->function_index.capacity;

    for (i = 0; i < capacity; i++) {
        const idindex_slot *slot = &s->function_index.slots[i];
        const session_function *f = slot->index ? &s->functions[slot->index - 1] : NULL;
        if (f && f->module_id != module_id &&
            idindex_put(&kept, f->function_id, slot->index - 1, s->functions, sizeof(*f)) != 0) {
            idindex_free(&kept); /* out of memory: keep the old index, IDs may be shared */
            s->capacity_drops++;
            return;
        }
    }
    idindex_free(&s->function_index);
    s->function_index = kept;
}

static void session_apply_module(session *s, const wire_record *r, int64_t when)
{
    const wire_module_loaded *m = &r->u.module_loaded;
    int created;
    session_module *e = session_module_entry(s, m->module_id, &created);

    if (!e || (!created && (r->flags & WIRE_FLAG_CATCHUP)))
        return; /* known already: the callback (or an earlier enumeration) wins */
    if (!created && e->unloaded_ns) { /* an unloaded module's ID given to a new one */
        e = session_module_append(s, m->module_id);
        if (!e)
            return;
    }
    e->assembly_id = m->assembly_id;
    e->base_address = m->base_address;
    e->hresult = m->hresult;
    e->flags = r->flags;
    e->loaded_ns = when;
    e->unloaded_ns = 0;
    if (r->strings[0].length)
        session_set_string(s, &e->path, &r->strings[0]);
    if (r->strings[1].length)
        session_set_string(s, &e->assembly, &r->strings[1]);
    session_log(s, r, when, m->module_id, m->base_address, 0);
}

_Static_assert(SESSION_MAX_FUNCTIONS == 4u * 1024u * 1024u,
               "code.c sizes its per-function arrays for this many");

/* WIRE_INLINING: the compilation it belongs to is the one open on its thread
 * (the innermost JIT started and not finished there); the record's caller is
 * the method whose call site it is, the root itself or one of its inlinees. */
static void session_apply_inlining(session *s, const wire_record *r)
{
    const wire_inlining *in = &r->u.inlining;
    session_thread *t = session_find_thread(s, in->thread_id);
    uint64_t root_id = t && t->jit_depth ? t->jit_stack[t->jit_depth - 1].function_id : 0;
    session_function *root, *caller, *callee;
    uint16_t ordinal = CODE_NO_ORDINAL;
    int created;

    callee = session_function_slot(s, in->callee, &created);
    caller = session_function_slot(s, in->caller, &created);
    root = root_id ? session_find_function(s, root_id) : NULL;
    if (root)
        ordinal = root->jit_count < CODE_NO_ORDINAL ? (uint16_t)root->jit_count : CODE_NO_ORDINAL;
    else
        root = caller; /* no compilation open on the thread (attached mid-JIT, or lost records) */
    code_note_inline(&s->code, root ? (uint32_t)(root - s->functions) : CODE_NONE, ordinal,
                     caller ? (uint32_t)(caller - s->functions) : CODE_NONE,
                     callee ? (uint32_t)(callee - s->functions) : CODE_NONE,
                     r->flags & WIRE_FLAG_DYNAMIC);
}

/* ---- one fold per record kind (the rows of record_kinds.c point here) ---- */

int session_fold_hello(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                       const char **why)
{
    const wire_hello *h = &r->u.hello;

    (void)when;
    if (memcmp(h->token, s->token, WIRE_TOKEN_LEN) != 0) {
        *why = "hello token does not match the session";
        return -1;
    }
    /* s->pid stays the server's own (the spawn, the attach, the peer's
     * credentials): the hello's pid is of the agent's pid namespace */
    if (!s->parent_pid)
        s->parent_pid = session_pid_from_agent(h->parent_pid);
    s->runtime_type = h->runtime_type;
    s->clr_instance_id = h->clr_instance_id;
    s->major = h->major, s->minor = h->minor, s->build = h->build, s->qfe = h->qfe;
    s->ring_bytes = h->ring_bytes;
    s->agent_flags = h->agent_flags;
    s->event_mask = h->event_mask, s->event_mask_high = h->event_mask_high;
    s->clock_offset_ns = (int64_t)(h->realtime_ns - h->monotonic_ns);
    s->connected_ns = now_ns;
    s->connections++;
    stacks_link_reset(&s->stacks); /* walk ids start over on a new connection */
    session_hello(s);
    return 0;
}

int session_fold_jit_started(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                             const char **why)
{
    const wire_jit_started *j = &r->u.jit_started;
    session_thread *t = session_thread_for_jit(s, j->thread_id);
    int created;
    session_function *f = session_function_slot(s, j->function_id, &created);

    (void)when, (void)now_ns, (void)why;
    if (f && !created)
        f = session_dynamic_renew(s, f, r->flags);
    if (f && j->il_size)
        f->il_size = j->il_size; /* dynamic methods: only the start knows it */
    if (f)
        session_function_jitted(s, f);
    if (t && t->jit_depth < SESSION_JIT_NESTING) {
        t->jit_stack[t->jit_depth].function_id = j->function_id;
        t->jit_stack[t->jit_depth].start_ns = r->time_ns;
        t->jit_depth++;
    }
    return 0;
}

int session_fold_jit_finished(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                              const char **why)
{
    (void)now_ns, (void)why;
    session_apply_jit(s, r, when);
    return 0;
}

int session_fold_function_name(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                               const char **why)
{
    const wire_function_name *n = &r->u.function_name;
    int created;
    session_function *f = session_function_slot(s, n->function_id, &created);
    session_module *owner;

    (void)when, (void)now_ns, (void)why;
    if (f && !created)
        f = session_dynamic_renew(s, f, r->flags);
    if (!f)
        return 0;
    owner = f->module_id == n->module_id ? NULL : session_find_module(s, n->module_id);
    if (owner && owner->functions < UINT32_MAX)
        owner->functions++; /* what an unload of it must retire */
    f->module_id = n->module_id;
    f->token = n->token;
    if (n->il_size && !f->il_size)
        f->il_size = n->il_size; /* JIT records leave it to the name now */
    /* a dynamic method's FunctionID is reused once it is collected: its
     * latest name is the one that counts */
    if (!f->name_record || (r->flags & WIRE_FLAG_DYNAMIC)) /* the old one stays in the pool */
        session_set_name(s, f, &r->strings[0], (r->flags & WIRE_FLAG_DYNAMIC) != 0);
    f->flags |= r->flags & WIRE_FLAG_DYNAMIC;
    return 0;
}

int session_fold_module_loaded(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                               const char **why)
{
    (void)now_ns, (void)why;
    session_apply_module(s, r, when);
    return 0;
}

int session_fold_module_unloaded(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                 const char **why)
{
    int created, retire;
    session_module *m = session_module_entry(s, r->u.module_unloaded.module_id, &created);

    (void)now_ns, (void)why;
    if (!m)
        return 0;
    /* the index is rebuilt once per loaded module that named functions: a
     * repeated or unknown unload (hostile, or a duplicate) costs O(1), not
     * O(functions). A module whose load record was lost (counted as a drop)
     * keeps its FunctionIDs mapped. */
    retire = !created && m->unloaded_ns == 0 && m->functions > 0;
    m->unloaded_ns = when;
    session_log(s, r, when, m->module_id, 0, 0);
    if (retire)
        session_retire_functions(s, m->module_id);
    return 0;
}

int session_fold_assembly_loaded(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                 const char **why)
{
    session_module *m = session_find_module(s, r->u.assembly_loaded.manifest_module_id);

    (void)now_ns, (void)why;
    if (m && !m->assembly && r->strings[0].length)
        session_set_string(s, &m->assembly, &r->strings[0]);
    session_log(s, r, when, r->u.assembly_loaded.assembly_id,
                r->u.assembly_loaded.manifest_module_id, 0);
    return 0;
}

int session_fold_drops(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                       const char **why)
{
    (void)when, (void)now_ns, (void)why;
    s->drops = r->u.drops;
    return 0;
}

int session_fold_nothing(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                         const char **why)
{
    (void)s, (void)r, (void)when, (void)now_ns, (void)why;
    return 0;
}

int session_fold_catchup_end(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                             const char **why)
{
    (void)now_ns, (void)why;
    s->catchups++;
    s->last_catchup = r->u.catchup;
    session_log(s, r, when, 0, r->u.catchup.duration_ns, r->u.catchup.functions);
    return 0;
}

int session_fold_detach_status(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                               const char **why)
{
    if (session_detach_status(s, r->u.detach.state, r->u.detach.hresult, now_ns) != 0) {
        *why = "unknown detach state";
        return -1;
    }
    session_log(s, r, when, 0, (uint64_t)(uint32_t)r->u.detach.hresult, r->u.detach.state);
    return 0;
}

int session_fold_tiers_status(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                              const char **why)
{
    (void)now_ns, (void)why;
    s->tiers = r->u.tiers_status;
    if (s->tiers.enabled == WIRE_TIERS_ENDED_BY_RUNTIME) {
        s->tiers.enabled = WIRE_TIERS_ON; /* the agent's setting; the runtime ended it */
        /* said again when a thread of the agent saw an earlier end: the earliest */
        if (!s->tiers_ended_ns || when < s->tiers_ended_ns)
            s->tiers_ended_ns = when;
    } else {
        s->tiers.enabled = s->tiers.enabled != WIRE_TIERS_OFF;
        s->tiers_ended_ns = 0; /* on again, or a new start */
    }
    s->tiers_known = 1;
    return 0;
}

int session_fold_agent_cost(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                            const char **why)
{
    (void)when, (void)now_ns, (void)why;
    s->agent_cost = r->u.agent_cost;
    return 0;
}

int session_fold_code_version(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                              const char **why)
{
    (void)when, (void)why;
    code_apply_reply_version(&s->code, &r->u.code_version, now_ns);
    return 0;
}

int session_fold_code_part(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                           const char **why)
{
    (void)when, (void)why;
    code_apply_reply_part(&s->code, r, now_ns);
    return 0;
}

/* A code reply's END is filed under the function its FunctionID finds now. */
int session_fold_code_end(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                          const char **why)
{
    session_function *f = session_find_function(s, r->u.code_end.function_id);

    (void)when, (void)why;
    code_apply_reply_end(&s->code, &r->u.code_end, f ? (uint32_t)(f - s->functions) : CODE_NONE,
                         now_ns);
    return 0;
}

int session_fold_inlining(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                          const char **why)
{
    (void)when, (void)now_ns, (void)why;
    session_apply_inlining(s, r);
    return 0;
}

int session_fold_code_search(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                             const char **why)
{
    int created;
    session_function *f = session_function_slot(s, r->u.code_search.function_id, &created);

    (void)when, (void)now_ns, (void)why;
    code_note_search(&s->code, f ? (uint32_t)(f - s->functions) : CODE_NONE,
                     r->u.code_search.result);
    return 0;
}

int session_fold_code_range(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                            const char **why)
{
    (void)when, (void)now_ns, (void)why;
    session_apply_code_range(s, &r->u.code_range);
    return 0;
}
