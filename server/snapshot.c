/* snapshot.c -- a session's folded state as SNAPSHOT_* frames, and back (see snapshot.h). */
#include "snapshot.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "wire_encode.h"

/* SNAPSHOT_REFUSED: what the server refused of the agent's records, and what
 * the consistency rules keep (record_check.h). */
typedef struct snapshot_refused {
    uint64_t inconsistent;                                /* session.records_refused */
    uint64_t memory[SESSION_REFUSED_KINDS];               /* session.budget.refused */
    uint64_t drops_known, drops_connection, drops_unseen; /* session.checks */
} snapshot_refused;
_Static_assert(sizeof(snapshot_refused) == 8 * (4 + SESSION_REFUSED_KINDS),
               "snapshot_refused has no padding");

/* SNAPSHOT_SESSION: the counters and identity that folding the agent's
 * records made (the session's own fields, such as its state, are its
 * header's, store.h). */
typedef struct snapshot_session {
    uint64_t records, bytes, last_seq, seq_gaps, connections, catchups;
    uint64_t jit_time_total_ns, jit_compilations, capacity_drops;
    uint64_t tier_compilations[WIRE_TIER_COUNT], tier_jit_ns[WIRE_TIER_COUNT];
    uint64_t events_last_seq, events_evicted, events_lost, resumes;
    logrec_resumed last_resume;
    int64_t connected_ns, clock_offset_ns, detach_requested_ns, detach_finished_ns;
    wire_drops drops;
    wire_agent_cost agent_cost;
    wire_catchup last_catchup;
    wire_tiers_status tiers;
    uint16_t runtime_type, clr_instance_id, major, minor, build, qfe, reserved16[2];
    uint32_t ring_bytes;
    int32_t detach_hresult;
    uint32_t tiers_known;
    uint32_t reserved;
    int64_t tiers_ended_ns; /* format 4 on; what an older snapshot lacks reads as 0 */
} snapshot_session;
_Static_assert(sizeof(snapshot_session) == 9 * 8 + 2 * 8 * WIRE_TIER_COUNT + 4 * 8 + 4 * 8 +
                                               sizeof(logrec_resumed) + sizeof(wire_drops) +
                                               sizeof(wire_agent_cost) + sizeof(wire_catchup) +
                                               sizeof(wire_tiers_status) + 8 * 2 + 4 * 4 + 8,
               "snapshot_session has no padding");

typedef struct snapshot_module {
    uint64_t module_id, assembly_id, base_address;
    int64_t loaded_ns, unloaded_ns;
    uint32_t functions, flags;
    int32_t hresult;
    uint32_t reserved;
} snapshot_module;
_Static_assert(sizeof(snapshot_module) == 56, "snapshot_module layout");

typedef struct snapshot_jit_start {
    uint64_t function_id, start_ns;
} snapshot_jit_start;

typedef struct snapshot_thread {
    uint64_t thread_id;
    int64_t created_ns, ended_ns;
    uint32_t os_thread_id, flags, alive, jit_depth;
    snapshot_jit_start jit_stack[SESSION_JIT_NESTING];
} snapshot_thread;
_Static_assert(sizeof(snapshot_thread) == 40 + 16 * SESSION_JIT_NESTING, "snapshot_thread layout");

typedef struct snapshot_function {
    uint64_t function_id, module_id, thread_id;
    int64_t first_jit_ns, last_jit_ns;
    uint64_t jit_time_ns, jit_time_total_ns;
    uint32_t code_start[SESSION_MAX_CODE_VERSIONS];
    uint32_t versions, token, il_size, native_size, flags;
    int32_t hresult;
    uint32_t jit_count, compilations_unkept;
    uint8_t jitted, tier, compilation_count, listed; /* listed: compilations follow */
    uint32_t thread_row; /* its thread's row (position + 1); 0: unknown, or a snapshot taken
                            before rows were kept (then thread_id's newest row) */
} snapshot_function;
_Static_assert(sizeof(snapshot_function) == 7 * 8 + 4 * SESSION_MAX_CODE_VERSIONS + 8 * 4 + 8,
               "snapshot_function layout");
_Static_assert(sizeof(session_compilation) == 24, "session_compilation layout");

#define SNAPSHOT_EVENTS_PER_FRAME (WIRE_MAX_PAYLOAD / sizeof(eventlog_entry))

int snapshot_is_record(uint16_t type) { return type >= SNAPSHOT_BEGIN && type <= SNAPSHOT_REFUSED; }

/* ---- encoding -------------------------------------------------------------------- */

static int snapshot_put(textbuf *out, uint16_t type, uint16_t flags, const void *fixed,
                        uint32_t fixed_length, const void *extra, uint32_t extra_length,
                        const wire_text *strings, unsigned string_count)
{
    uint8_t frame[sizeof(wire_frame_header) + WIRE_MAX_PAYLOAD];
    wire_frame_header h = {.type = type, .flags = flags};

    if (wire_encode_bound(fixed_length, extra_length, strings, string_count) > sizeof(frame))
        return -1;
    return textbuf_add(
        out, (const char *)frame,
        wire_encode(frame, &h, fixed, fixed_length, extra, extra_length, strings, string_count));
}

static wire_text snapshot_text(const char *text)
{
    return (wire_text){.utf8 = text ? text : "", .length = text ? strlen(text) : 0};
}

static int snapshot_put_session(const session *s, uint64_t first_event, textbuf *out)
{
    snapshot_session r;

    memset(&r, 0, sizeof(r));
    r.records = s->records, r.bytes = s->bytes, r.last_seq = s->last_seq;
    r.seq_gaps = s->seq_gaps, r.connections = s->connections, r.catchups = s->catchups;
    r.jit_time_total_ns = s->jit_time_total_ns, r.jit_compilations = s->jit_compilations;
    r.capacity_drops = s->capacity_drops;
    memcpy(r.tier_compilations, s->tier_compilations, sizeof(r.tier_compilations));
    memcpy(r.tier_jit_ns, s->tier_jit_ns, sizeof(r.tier_jit_ns));
    r.events_last_seq = s->events.last_seq;
    r.events_evicted = first_event > 0 ? first_event - 1 : 0; /* what the snapshot leaves out */
    r.events_lost = s->events.lost;
    r.resumes = s->resumes, r.last_resume = s->last_resume;
    r.connected_ns = s->connected_ns, r.clock_offset_ns = s->clock_offset_ns;
    r.detach_requested_ns = s->detach_requested_ns;
    r.detach_finished_ns = s->detach_finished_ns;
    r.drops = s->drops, r.agent_cost = s->agent_cost, r.last_catchup = s->last_catchup;
    r.tiers = s->tiers;
    r.runtime_type = s->runtime_type, r.clr_instance_id = s->clr_instance_id;
    r.major = s->major, r.minor = s->minor, r.build = s->build, r.qfe = s->qfe;
    r.ring_bytes = s->ring_bytes, r.detach_hresult = s->detach_hresult;
    r.tiers_known = (uint32_t)s->tiers_known;
    r.tiers_ended_ns = s->tiers_ended_ns;
    return snapshot_put(out, SNAPSHOT_SESSION, 0, &r, sizeof(r), NULL, 0, NULL, 0);
}

static int snapshot_put_module(const session *s, size_t i, textbuf *out)
{
    const session_module *m = &s->modules[i];
    snapshot_module r = {m->module_id, m->assembly_id, m->base_address,
                         m->loaded_ns, m->unloaded_ns, m->functions,
                         m->flags,     m->hresult,     0};
    wire_text strings[2] = {snapshot_text(m->path), snapshot_text(m->assembly)};

    return snapshot_put(out, SNAPSHOT_MODULE, 0, &r, sizeof(r), NULL, 0, strings, 2);
}

static int snapshot_put_thread(const session *s, size_t i, textbuf *out)
{
    const session_thread *t = &s->threads[i];
    snapshot_thread r;
    wire_text name = snapshot_text(t->name);
    unsigned k;

    memset(&r, 0, sizeof(r));
    r.thread_id = t->thread_id, r.created_ns = t->created_ns, r.ended_ns = t->ended_ns;
    r.os_thread_id = t->os_thread_id, r.flags = t->flags, r.alive = (uint32_t)t->alive;
    r.jit_depth = t->jit_depth;
    for (k = 0; k < t->jit_depth && k < SESSION_JIT_NESTING; k++)
        r.jit_stack[k] = (snapshot_jit_start){t->jit_stack[k].function_id,
                                              t->jit_stack[k].start_ns};
    return snapshot_put(out, SNAPSHOT_THREAD, t->name ? SNAPSHOT_HAS_NAME : 0, &r, sizeof(r), NULL,
                        0, &name, 1);
}

static int snapshot_put_function(const session *s, size_t i, textbuf *out)
{
    const session_function *f = &s->functions[i];
    snapshot_function r;
    char text[FNNAME_MAX + 1];
    wire_text name = {.utf8 = text, .length = session_function_name_copy(f, text, sizeof(text))};
    uint32_t listed = f->compilation_cap ? f->compilation_count : 0;
    unsigned k;
    uint16_t flags = f->name_record ? SNAPSHOT_HAS_NAME : 0;

    if (f->function_id &&
        idindex_get(&s->function_index, f->function_id, s->functions, sizeof(*f)) == i)
        flags |= SNAPSHOT_INDEXED;
    memset(&r, 0, sizeof(r));
    r.function_id = f->function_id, r.module_id = f->module_id;
    r.thread_row = f->thread_row <= s->thread_count ? f->thread_row : 0;
    r.thread_id = r.thread_row ? s->threads[r.thread_row - 1].thread_id : 0;
    r.first_jit_ns = f->first_jit_ns, r.last_jit_ns = session_function_last_jit_ns(f);
    r.jit_time_ns = session_function_last_jit_time(f), r.jit_time_total_ns = f->jit_time_total_ns;
    for (k = 0; k < SESSION_MAX_CODE_VERSIONS; k++)
        r.code_start[k] = session_function_code_start(f, k);
    r.versions = f->versions, r.token = f->token, r.il_size = f->il_size;
    r.native_size = f->native_size, r.flags = f->flags, r.hresult = f->hresult;
    r.jit_count = f->jit_count, r.compilations_unkept = session_function_unkept(f);
    r.jitted = f->jitted, r.tier = f->tier, r.compilation_count = f->compilation_count;
    r.listed = listed != 0;
    return snapshot_put(out, SNAPSHOT_FUNCTION, flags, &r, sizeof(r), listed ? f->more->list : NULL,
                        listed * (uint32_t)sizeof(session_compilation), &name, 1);
}

static int snapshot_put_events(const session *s, uint64_t first, textbuf *out, uint64_t *count)
{
    eventlog_entry block[SNAPSHOT_EVENTS_PER_FRAME];
    uint64_t seq;
    uint32_t n = 0;

    *count = 0;
    for (seq = first; seq <= s->events.last_seq; seq++) {
        const eventlog_entry *e = eventlog_at(&s->events, seq);
        if (!e)
            continue;
        block[n++] = *e;
        (*count)++;
        if (n == SNAPSHOT_EVENTS_PER_FRAME || seq == s->events.last_seq) {
            if (snapshot_put(out, SNAPSHOT_EVENTS, 0, block, n * (uint32_t)sizeof(block[0]), NULL,
                             0, NULL, 0) != 0)
                return -1;
            n = 0;
        }
    }
    return 0;
}

static int snapshot_put_refused(const session *s, textbuf *out)
{
    snapshot_refused r;

    memset(&r, 0, sizeof(r));
    r.inconsistent = s->records_refused;
    memcpy(r.memory, s->budget.refused, sizeof(r.memory));
    r.drops_known = (uint64_t)s->checks.drops_known;
    r.drops_connection = s->checks.drops_connection;
    r.drops_unseen = s->checks.drops_unseen;
    return snapshot_put(out, SNAPSHOT_REFUSED, 0, &r, sizeof(r), NULL, 0, NULL, 0);
}

static int snapshot_put_code(void *ctx, const void *payload, uint32_t length)
{
    return snapshot_put(ctx, SNAPSHOT_CODE, 0, payload, length, NULL, 0, NULL, 0);
}

int snapshot_encode(const session *s, uint64_t max_events, textbuf *out)
{
    snapshot_begin counts = {
        SNAPSHOT_FORMAT,
        s->names.text_bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)s->names.text_bytes,
        s->function_count,
        s->module_count,
        s->thread_count,
        0};
    uint64_t first = eventlog_first_seq(&s->events);
    size_t i;

    if (max_events && s->events.last_seq >= max_events && first <= s->events.last_seq - max_events)
        first = s->events.last_seq - max_events + 1; /* --keep-events */
    counts.events = s->events.last_seq >= first ? s->events.last_seq - first + 1 : 0;
    if (snapshot_put(out, SNAPSHOT_BEGIN, 0, &counts, sizeof(counts), NULL, 0, NULL, 0) != 0 ||
        snapshot_put_session(s, first, out) != 0 || snapshot_put_refused(s, out) != 0)
        return -1;
    for (i = 0; i < s->module_count; i++)
        if (snapshot_put_module(s, i, out) != 0)
            return -1;
    for (i = 0; i < s->thread_count; i++)
        if (snapshot_put_thread(s, i, out) != 0)
            return -1;
    for (i = 0; i < s->function_count; i++)
        if (snapshot_put_function(s, i, out) != 0)
            return -1;
    if (snapshot_put_events(s, first, out, &counts.events) != 0 ||
        code_snapshot_encode(&s->code, s->function_count, snapshot_put_code, out) != 0)
        return -1;
    return snapshot_put(out, SNAPSHOT_END, 0, &counts, sizeof(counts), NULL, 0, NULL, 0);
}

/* ---- restoring ------------------------------------------------------------------- */

/* A payload read front to back; every take is checked against its end. */
typedef struct snapshot_cursor {
    const uint8_t *at, *end;
} snapshot_cursor;

static int snapshot_take(snapshot_cursor *c, void *out, size_t n)
{
    if ((size_t)(c->end - c->at) < n)
        return -1;
    memcpy(out, c->at, n);
    c->at += n;
    return 0;
}

/* A string as wire.h frames it (u16 byte count, bytes); *text points into the payload. */
static int snapshot_take_string(snapshot_cursor *c, const char **text, uint16_t *length)
{
    if (snapshot_take(c, length, sizeof(*length)) != 0 || (size_t)(c->end - c->at) < *length)
        return -1;
    *text = (const char *)c->at;
    c->at += *length;
    return 0;
}

static char *snapshot_strdup(const char *text, uint16_t length)
{
    char *copy;

    if (length == 0)
        return NULL;
    copy = malloc((size_t)length + 1);
    if (copy) {
        memcpy(copy, text, length);
        copy[length] = '\0';
    }
    return copy;
}

static int snapshot_restore_session(session *s, snapshot_reader *rd, snapshot_cursor *c)
{
    snapshot_session r;
    size_t length = rd->counts.format >= 4 ? sizeof(r) : offsetof(snapshot_session, tiers_ended_ns);

    memset(&r, 0, sizeof(r));
    if (snapshot_take(c, &r, length) != 0)
        return -1;
    rd->events_last_seq = r.events_last_seq; /* the events that follow must end there */
    s->records = r.records, s->bytes = r.bytes, s->last_seq = r.last_seq;
    s->seq_gaps = r.seq_gaps, s->connections = r.connections, s->catchups = r.catchups;
    s->jit_time_total_ns = r.jit_time_total_ns, s->jit_compilations = r.jit_compilations;
    s->capacity_drops = r.capacity_drops;
    memcpy(s->tier_compilations, r.tier_compilations, sizeof(r.tier_compilations));
    memcpy(s->tier_jit_ns, r.tier_jit_ns, sizeof(r.tier_jit_ns));
    s->events.evicted = r.events_evicted, s->events.lost = r.events_lost;
    s->resumes = r.resumes, s->last_resume = r.last_resume;
    s->connected_ns = r.connected_ns, s->clock_offset_ns = r.clock_offset_ns;
    s->detach_requested_ns = r.detach_requested_ns;
    s->detach_finished_ns = r.detach_finished_ns;
    s->drops = r.drops, s->agent_cost = r.agent_cost, s->last_catchup = r.last_catchup;
    s->tiers = r.tiers;
    s->runtime_type = r.runtime_type, s->clr_instance_id = r.clr_instance_id;
    s->major = r.major, s->minor = r.minor, s->build = r.build, s->qfe = r.qfe;
    s->ring_bytes = r.ring_bytes, s->detach_hresult = r.detach_hresult;
    s->tiers_known = r.tiers_known != 0;
    s->tiers_ended_ns = r.tiers_ended_ns;
    return 0;
}

static int snapshot_restore_module(session *s, snapshot_cursor *c)
{
    snapshot_module r;
    const char *path, *assembly;
    uint16_t path_length, assembly_length;
    session_module *m;

    if (snapshot_take(c, &r, sizeof(r)) != 0 || snapshot_take_string(c, &path, &path_length) != 0 ||
        snapshot_take_string(c, &assembly, &assembly_length) != 0 || r.module_id == 0 ||
        !(m = session_module_append(s, r.module_id)))
        return -1;
    m->assembly_id = r.assembly_id, m->base_address = r.base_address;
    m->loaded_ns = r.loaded_ns, m->unloaded_ns = r.unloaded_ns;
    m->functions = r.functions, m->flags = r.flags, m->hresult = r.hresult;
    m->path = snapshot_strdup(path, path_length);
    m->assembly = snapshot_strdup(assembly, assembly_length);
    return (path_length && !m->path) || (assembly_length && !m->assembly) ? -1 : 0;
}

static int snapshot_restore_thread(session *s, snapshot_cursor *c, uint16_t flags)
{
    snapshot_thread r;
    const char *name;
    uint16_t length;
    session_thread *t;
    unsigned k;

    if (snapshot_take(c, &r, sizeof(r)) != 0 || snapshot_take_string(c, &name, &length) != 0 ||
        r.thread_id == 0 || r.jit_depth > SESSION_JIT_NESTING ||
        !(t = session_thread_append(s, r.thread_id)))
        return -1;
    t->created_ns = r.created_ns, t->ended_ns = r.ended_ns;
    t->flags = r.flags, t->alive = r.alive != 0;
    if (session_thread_set_os(s, t, r.os_thread_id) != 0)
        return -1;
    t->jit_depth = r.jit_depth;
    for (k = 0; k < r.jit_depth; k++) {
        t->jit_stack[k].function_id = r.jit_stack[k].function_id;
        t->jit_stack[k].start_ns = r.jit_stack[k].start_ns;
    }
    if (flags & SNAPSHOT_HAS_NAME) {
        /* an empty name is a name (the app set ""), unlike none */
        t->name = malloc((size_t)length + 1);
        if (!t->name)
            return -1;
        memcpy(t->name, name, length);
        t->name[length] = '\0';
    }
    return 0;
}

/* A function's thread row: the one the snapshot names (its threads come
 * first), else its ThreadID's newest row. */
static uint32_t snapshot_thread_row(session *s, const snapshot_function *r)
{
    const session_thread *t;

    if (r->thread_row && r->thread_row <= s->thread_count)
        return r->thread_row;
    t = r->thread_id ? session_find_thread(s, r->thread_id) : NULL;
    return t ? session_thread_row_of(s, t) : 0;
}

static int snapshot_restore_function(session *s, snapshot_reader *rd, snapshot_cursor *c,
                                     uint16_t flags)
{
    snapshot_function r;
    const char *name;
    uint16_t length;
    session_function *f;
    uint32_t i, index = (uint32_t)s->function_count;

    if (snapshot_take(c, &r, sizeof(r)) != 0 || r.compilation_count > SESSION_MAX_COMPILATIONS ||
        r.tier >= WIRE_TIER_COUNT || !(f = session_function_append(s, 0)))
        return -1;
    f->function_id = r.function_id, f->module_id = r.module_id;
    f->thread_row = snapshot_thread_row(s, &r);
    f->first_jit_ns = r.first_jit_ns, f->jit_time_total_ns = r.jit_time_total_ns;
    f->versions = r.versions, f->token = r.token, f->il_size = r.il_size;
    f->native_size = r.native_size, f->flags = r.flags, f->hresult = r.hresult;
    f->jit_count = r.jit_count;
    f->jitted = r.jitted != 0, f->tier = r.tier;
    if (session_function_set_history(s, f, r.last_jit_ns, r.jit_time_ns, r.compilations_unkept,
                                     r.code_start) != 0)
        return -1;
    if (f->jitted)
        s->functions_jitted++;
    if (r.listed) {
        for (i = 0; i < r.compilation_count; i++) {
            session_compilation k;
            if (snapshot_take(c, &k, sizeof(k)) != 0 ||
                session_function_keep_compilation(s, f, &k) != 0)
                return -1;
        }
    } else {
        f->compilation_count = r.compilation_count; /* 0 or 1: the fields above say it all */
        if (r.compilation_count > 1)
            return -1;
    }
    if (snapshot_take_string(c, &name, &length) != 0)
        return -1;
    if (flags & SNAPSHOT_HAS_NAME) {
        const char *record = fnname_store(&s->names, name, length,
                                          (f->flags & WIRE_FLAG_DYNAMIC) != 0);
        if (!record)
            return -1;
        session_function_name_set(s, f, record);
    }
    if ((flags & SNAPSHOT_INDEXED) && f->function_id) { /* indexed all at once at END */
        if (grow_reserve((void **)&rd->indexed, &rd->indexed_cap, rd->indexed_count,
                         sizeof(*rd->indexed), 1024, SESSION_MAX_FUNCTIONS, GROW_KEEP) != 0)
            return -1;
        rd->indexed[rd->indexed_count++] = index;
    }
    return 0;
}

static int snapshot_restore_events(session *s, snapshot_reader *rd, const uint8_t *payload,
                                   uint32_t length)
{
    uint32_t i, n = length / (uint32_t)sizeof(eventlog_entry);

    if (length % sizeof(eventlog_entry) != 0)
        return -1;
    for (i = 0; i < n; i++) {
        eventlog_entry e;
        memcpy(&e, payload + (size_t)i * sizeof(e), sizeof(e));
        if (eventlog_restore(&s->events, &e) != 0)
            return -1;
        rd->events++;
    }
    return 0;
}

static int snapshot_restore_refused(session *s, snapshot_cursor *c)
{
    snapshot_refused r;
    unsigned k;

    if (snapshot_take(c, &r, sizeof(r)) != 0)
        return -1;
    s->records_refused = r.inconsistent;
    memcpy(s->budget.refused, r.memory, sizeof(r.memory));
    s->budget.refused_records = 0;
    for (k = 0; k < SESSION_REFUSED_KINDS; k++)
        s->budget.refused_records += r.memory[k];
    s->checks.drops_known = r.drops_known != 0;
    s->checks.drops_connection = r.drops_connection;
    s->checks.drops_unseen = r.drops_unseen;
    return 0;
}

/* The room BEGIN made for the functions, their index and their names (the
 * most of what a read-back fills: prefault.h), populated on a thread beside
 * the reading; rd->room is waited for before any of it can move. */
static void snapshot_populate(session *s, snapshot_reader *rd)
{
    prefault_add(&rd->room, s->functions, s->function_cap * sizeof(*s->functions));
    prefault_add(&rd->room, s->function_index.slots,
                 s->function_index.capacity * sizeof(*s->function_index.slots));
    if (s->names.region) { /* strpool_reserve's block: name_bytes, or less at the pool's cap */
        size_t block = strpool_region_bytes(&s->names);
        prefault_add(&rd->room, s->names.region,
                     rd->counts.name_bytes < block ? rd->counts.name_bytes : block);
    }
    prefault_start(&rd->room);
}

int snapshot_apply(session *s, snapshot_reader *rd, uint16_t type, uint16_t flags,
                   const uint8_t *payload, uint32_t length, const char **why)
{
    snapshot_cursor c = {payload, payload + length};
    int rc;

    if (type != SNAPSHOT_BEGIN && (!rd->begun || rd->ended)) {
        *why = "snapshot record outside BEGIN..END";
        return -1;
    }
    switch (type) {
    case SNAPSHOT_BEGIN:
        if (rd->begun || snapshot_take(&c, &rd->counts, sizeof(rd->counts)) != 0 ||
            rd->counts.format < 1 || rd->counts.format > SNAPSHOT_FORMAT) {
            *why = "snapshot: bad or repeated BEGIN (or a format this server does not know)";
            return -1;
        }
        rd->begun = 1;
        /* the counts it announces are room made at once (bounded by the session's caps;
         * what does not fit is refused record by record as ever) */
        session_reserve(s, (size_t)rd->counts.functions, (size_t)rd->counts.modules,
                        (size_t)rd->counts.threads, rd->counts.name_bytes);
        snapshot_populate(s, rd);
        return 0;
    case SNAPSHOT_SESSION: rc = snapshot_restore_session(s, rd, &c); break;
    case SNAPSHOT_REFUSED: rc = snapshot_restore_refused(s, &c); break;
    case SNAPSHOT_MODULE:
        rc = snapshot_restore_module(s, &c);
        rd->modules++;
        break;
    case SNAPSHOT_THREAD:
        rc = snapshot_restore_thread(s, &c, flags);
        rd->threads++;
        break;
    case SNAPSHOT_FUNCTION:
        if (s->function_count >= s->function_cap)
            prefault_wait(&rd->room); /* more than BEGIN said: the array is about to move */
        rc = snapshot_restore_function(s, rd, &c, flags);
        rd->functions++;
        break;
    case SNAPSHOT_EVENTS:
        rc = snapshot_restore_events(s, rd, payload, length);
        c.at = c.end;
        break;
    case SNAPSHOT_CODE:
        rc = code_snapshot_restore(&s->code, s->function_count, payload, length);
        c.at = c.end;
        break;
    case SNAPSHOT_END: {
        snapshot_begin end;
        if (snapshot_take(&c, &end, sizeof(end)) != 0 ||
            memcmp(&end, &rd->counts, sizeof(end)) != 0) {
            *why = "snapshot: END does not repeat BEGIN";
            return -1;
        }
        rd->ended = 1;
        prefault_wait(&rd->room); /* before the index could grow */
        if (idindex_put_many(&s->function_index, rd->indexed, rd->indexed_count, s->functions,
                             sizeof(*s->functions)) != 0) {
            *why = "snapshot: no memory for its functions' index";
            return -1;
        }
        return 0;
    }
    default: *why = "not a snapshot record"; return -1;
    }
    if (rc != 0 || c.at != c.end) {
        *why = "snapshot: a record does not fit its layout (or memory ran out)";
        return -1;
    }
    return 0;
}

void snapshot_reader_free(snapshot_reader *rd)
{
    prefault_wait(&rd->room);
    free(rd->indexed);
    rd->indexed = NULL;
    rd->indexed_count = rd->indexed_cap = 0;
}

int snapshot_finish(const session *s, snapshot_reader *rd, const char **why)
{
    snapshot_reader_free(rd);
    if (!rd->begun || !rd->ended) {
        *why = "snapshot: incomplete (no END)";
        return -1;
    }
    if (rd->functions != rd->counts.functions || rd->modules != rd->counts.modules ||
        rd->threads != rd->counts.threads || rd->events != rd->counts.events) {
        *why = "snapshot: the records do not add up to the counts it announced";
        return -1;
    }
    if (s->events.last_seq != rd->events_last_seq) {
        *why = "snapshot: its event log does not end where its counters say";
        return -1;
    }
    return 0;
}
