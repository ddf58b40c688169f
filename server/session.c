/* session.c -- folding agent records into one session's state (see session.h). */
#include "session.h"
#include "clock.h"
#include "grow.h"
#include "logrec.h"
#include "profile_cpu.h"
#include "wire_encode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *session_strdup(const wire_string *s)
{
    char *copy = malloc((size_t)s->length + 1);

    if (copy) {
        memcpy(copy, s->text, s->length);
        copy[s->length] = '\0';
    }
    return copy;
}

pid_t session_pid_from_agent(uint32_t pid) { return pid <= 4194304u ? (pid_t)pid : 0; }

session *session_new(int id, int mode, pid_t pid, const char *command_line, const char *token)
{
    session *s = calloc(1, sizeof(*s));

    if (!s)
        return NULL;
    s->id = id;
    s->root_id = id;
    s->mode = mode;
    s->pid = pid;
    s->state = SESSION_STARTING;
    s->persist.loaded = 1; /* its content is what it folds (storage's copies say otherwise) */
    s->command_line = strdup(command_line ? command_line : "");
    if (!s->command_line) {
        free(s);
        return NULL;
    }
    snprintf(s->token, sizeof(s->token), "%s", token);
    return s;
}

void session_free(session *s)
{
    if (!s)
        return;
    session_drop_content(s);
    free(s->command_line);
    free(s->persist.summary);
    free(s);
}

static void (*_Atomic session_record_sink)(session *s, int64_t now_ns, const void *frame,
                                           size_t length);

void session_set_record_sink(void (*sink)(session *s, int64_t now_ns, const void *frame,
                                          size_t length))
{
    session_record_sink = sink;
}

/* One of the server's own records, into the session's log (when it has one). */
static void session_emit(session *s, int64_t now_ns, uint16_t type, const void *payload,
                         uint32_t length)
{
    void (*sink)(session *, int64_t, const void *, size_t) = session_record_sink;
    uint8_t frame[sizeof(wire_frame_header) + 64];
    wire_frame_header h = {.type = type};

    if (!sink || s->persist.quiet || length > 64)
        return;
    sink(s, now_ns, frame, wire_encode(frame, &h, payload, length, NULL, 0, NULL, 0));
}

int session_log_record(session *s, int64_t now_ns, uint16_t type, const void *fixed,
                       uint32_t fixed_length, const void *extra, uint32_t extra_length)
{
    void (*sink)(session *, int64_t, const void *, size_t) = session_record_sink;
    wire_frame_header h = {.type = type};
    uint8_t *frame;

    if (!sink || s->persist.quiet)
        return 0;
    if (!logrec_is_server_type(type) || fixed_length + extra_length > WIRE_MAX_PAYLOAD ||
        !(frame = malloc(sizeof(h) + fixed_length + extra_length)))
        return -1;
    sink(s, now_ns, frame,
         wire_encode(frame, &h, fixed, fixed_length, extra, extra_length, NULL, 0));
    free(frame);
    return 0;
}

static void (*_Atomic session_cpu_stop_hook)(int session_id, uint32_t run);
static void (*_Atomic session_cpu_thread_hook)(int session_id, uint32_t run);

void session_set_cpu_hooks(void (*on_stop)(int session_id, uint32_t run),
                           void (*on_thread)(int session_id, uint32_t run))
{
    session_cpu_stop_hook = on_stop;
    session_cpu_thread_hook = on_thread;
}

int session_is_observation(uint16_t type)
{
    switch (type) {
    case WIRE_HELLO:
    case WIRE_STACK_THREAD:
    case WIRE_STACK_END:
    case WIRE_PROFILE_STATUS:
    case WIRE_GC_STARTED:
    case WIRE_GC_FINISHED:
    case WIRE_RUNTIME_SUSPEND:
    case LOGREC_PROFILE_START:
    case LOGREC_PROFILE_STOP:
    case LOGREC_CPU_START:
    case LOGREC_CPU_SYMBOL:
    case LOGREC_CPU_THREAD:
    case LOGREC_CPU_STACK:
    case LOGREC_CPU_SAMPLES:
    case LOGREC_CPU_COUNTS: return 1;
    default: return 0;
    }
}

void session_profile_start(session *s, uint32_t hz, int64_t now_ns)
{
    profile_start(&s->profile, hz, now_ns);
    session_emit(s, now_ns, LOGREC_PROFILE_START, &hz, sizeof(hz));
}

void session_profile_start_cpu(session *s, uint32_t hz, uint64_t period_ns, uint32_t run,
                               int64_t now_ns)
{
    logrec_cpu_start rec = {.hz = hz, .period_ns = period_ns};

    profile_cpu_start(&s->profile, hz, period_ns, now_ns, run);
    session_emit(s, now_ns, LOGREC_CPU_START, &rec, sizeof(rec));
    eventlog_append(&s->events, WIRE_PROFILE_STATUS, 0, now_ns, (uint64_t)hz * 1000u,
                    (uint64_t)hz * 1000u, WIRE_PROFILE_STARTED);
}

void session_profile_stop(session *s, int64_t now_ns)
{
    void (*hook)(int, uint32_t) = session_cpu_stop_hook;

    if (s->profile.state != PROFILE_RUNNING)
        return;
    profile_stop(&s->profile, now_ns);
    session_emit(s, now_ns, LOGREC_PROFILE_STOP, NULL, 0);
    if (s->profile.mode == PROFILE_MODE_CPU) {
        eventlog_append(&s->events, WIRE_PROFILE_STATUS, 0, now_ns,
                        (uint64_t)s->profile.requested_millihz, s->profile.effective_millihz,
                        WIRE_PROFILE_STOPPED);
        if (hook && s->profile.cpu.run)
            hook(s->id, s->profile.cpu.run); /* the sampler ends on its own */
    }
}

static int session_apply_resumed(session *s, const uint8_t *payload, uint32_t length,
                                 int64_t now_ns);

int session_apply_server(session *s, uint16_t type, const uint8_t *payload, uint32_t length,
                         int64_t now_ns)
{
    uint32_t hz;

    switch (type) {
    case LOGREC_PROFILE_START:
        if (length != sizeof(hz))
            return -1;
        memcpy(&hz, payload, sizeof(hz));
        profile_start(&s->profile, hz, now_ns);
        return 0;
    case LOGREC_PROFILE_STOP: profile_stop(&s->profile, now_ns); return 0;
    case LOGREC_RESUMED: return session_apply_resumed(s, payload, length, now_ns);
    case LOGREC_CPU_START:
    case LOGREC_CPU_SYMBOL:
    case LOGREC_CPU_THREAD:
    case LOGREC_CPU_STACK:
    case LOGREC_CPU_SAMPLES:
    case LOGREC_CPU_COUNTS: return profile_cpu_apply(&s->profile, type, payload, length, now_ns);
    default: return -1;
    }
}

_Static_assert(sizeof(session_function) == 128,
               "session_function: 128 bytes (docs/ARCHITECTURE.md)");

session_function *session_find_function(session *s, uint64_t id)
{
    uint32_t i = idindex_get(&s->function_index, id, s->functions, sizeof(*s->functions));
    return i == IDINDEX_MISSING ? NULL : &s->functions[i];
}

session_compilation session_function_compilation(const session_function *f, uint32_t i)
{
    if (f->compilation_list && i < f->compilation_count)
        return f->compilation_list[i];
    /* compiled once: that compilation is what the function says of its last one */
    return (session_compilation){f->last_jit_ns, f->jit_time_ns, f->native_size, f->tier};
}

void session_memory_usage(const session *s, session_memory *m)
{
    m->functions = s->function_count * sizeof(*s->functions);
    m->functions_reserved = s->function_cap * sizeof(*s->functions);
    m->function_index = s->function_index.capacity * sizeof(*s->function_index.slots);
    m->names = strpool_bytes(&s->names);
    m->events = eventlog_bytes(&s->events);
    m->compilations = s->compilation_bytes;
    m->code_ranges = codemap_bytes(&s->code);
}

session_module *session_find_module(session *s, uint64_t id)
{
    uint32_t i = idmap_get(&s->module_index, id);
    return i == IDMAP_MISSING ? NULL : &s->modules[i];
}

session_thread *session_find_thread(session *s, uint64_t id)
{
    uint32_t i = idmap_get(&s->thread_index, id);
    return i == IDMAP_MISSING ? NULL : &s->threads[i];
}

const char *session_module_name(session *s, uint64_t module_id)
{
    session_module *m = module_id ? session_find_module(s, module_id) : NULL;
    const char *slash;

    if (!m)
        return NULL;
    if (m->assembly)
        return m->assembly;
    if (m->path && (slash = strrchr(m->path, '/')))
        return slash + 1;
    return m->path;
}

/* Appends a zeroed entry to an array indexed by `index` under `id` (an existing
 * mapping is re-pointed to the new entry). NULL when a cap is reached or memory
 * runs out, counted in capacity_drops. The array grows without zero-filling:
 * only the entry handed out is cleared. */
static void *session_append(session *s, void **items, size_t *count, size_t *cap, idmap *index,
                            size_t elem, size_t max, uint64_t id)
{
    void *e;

    if (grow_reserve(items, cap, *count, elem, 64, max, GROW_KEEP) != 0 ||
        idmap_put(index, id, (uint32_t)*count) != 0) {
        s->capacity_drops++;
        return NULL;
    }
    e = (char *)*items + elem * (*count)++;
    memset(e, 0, elem);
    return e;
}

session_module *session_module_append(session *s, uint64_t id)
{
    session_module *m = session_append(s, (void **)&s->modules, &s->module_count, &s->module_cap,
                                       &s->module_index, sizeof(*m), SESSION_MAX_MODULES, id);
    if (m)
        m->module_id = id;
    return m;
}

session_function *session_function_append(session *s, uint64_t id)
{
    session_function *f;

    if (grow_reserve((void **)&s->functions, &s->function_cap, s->function_count, sizeof(*f), 1024,
                     SESSION_MAX_FUNCTIONS, GROW_KEEP) != 0)
        return NULL;
    f = &s->functions[s->function_count];
    memset(f, 0, sizeof(*f));
    f->function_id = id; /* before the index reads it */
    if (id && idindex_put(&s->function_index, id, (uint32_t)s->function_count, s->functions,
                          sizeof(*f)) != 0)
        return NULL;
    s->function_count++;
    return f;
}

int session_function_set_name(session *s, session_function *f, const char *name, size_t length)
{
    const char *copy = strpool_add(&s->names, name, length);

    if (!copy)
        return -1;
    f->name = copy;
    return 0;
}

int session_function_keep_compilation(session *s, session_function *f, const session_compilation *c)
{
    size_t cap = f->compilation_cap;

    if (grow_reserve((void **)&f->compilation_list, &cap, f->compilation_count,
                     sizeof(*f->compilation_list), 2, SESSION_MAX_COMPILATIONS, GROW_KEEP) != 0)
        return -1;
    s->compilation_bytes += (cap - f->compilation_cap) * sizeof(session_compilation);
    f->compilation_cap = (uint8_t)cap;
    f->compilation_list[f->compilation_count++] = *c;
    return 0;
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

/* A new thread entry; also used when the runtime reuses a dead thread's ThreadID:
 * the old thread stays in the list as ended and the index points to the new one. */
session_thread *session_thread_append(session *s, uint64_t id)
{
    session_thread *t = session_append(s, (void **)&s->threads, &s->thread_count, &s->thread_cap,
                                       &s->thread_index, sizeof(*t), SESSION_MAX_THREADS, id);
    if (t) {
        t->thread_id = id;
        t->alive = 1;
    }
    return t;
}

static session_thread *session_thread_entry(session *s, uint64_t id, int *created)
{
    session_thread *t = session_find_thread(s, id);

    *created = 0;
    if (t || id == 0)
        return t;
    t = session_thread_append(s, id);
    *created = t != NULL;
    return t;
}

static void session_log(session *s, const wire_record *r, int64_t when, uint64_t id, uint64_t value,
                        uint32_t extra)
{
    eventlog_append(&s->events, r->type, r->flags, when, id, value, extra);
}

static void session_set_string(char **field, const wire_string *value)
{
    char *copy = session_strdup(value);

    if (copy) {
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
    const char *text = (const char *)value->text;
    const char *name = dynamic ? strpool_intern(&s->names, text, value->length)
                               : strpool_add(&s->names, text, value->length);

    if (name)
        f->name = name;
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
        if (f->code_start[i] == (uint32_t)code_start)
            return 1;
    return 0;
}

/* Remembers a native code start; the newest SESSION_MAX_CODE_VERSIONS are kept
 * (in a ring) to recognise repeats, which are what catch-up produces. Returns 1
 * when the start was new. */
static int session_add_code_version(session_function *f, uint64_t code_start)
{
    if (code_start == 0 || session_code_known(f, code_start))
        return 0;
    f->code_start[f->versions % SESSION_MAX_CODE_VERSIONS] = (uint32_t)code_start;
    f->versions++;
    return 1;
}

/* Takes in the code versions a JIT record lists. Returns the native size of the
 * version this compilation made (the start not seen before), or 0 if none is
 * new. The count is at least what the runtime says exists. Each new start goes
 * into the session's code map with its size (codemap.h). */
static uint32_t session_take_code_versions(session *s, session_function *f, const wire_record *r)
{
    const wire_jit_finished *j = &r->u.jit_finished;
    uint32_t new_size = 0, position = (uint32_t)(f - s->functions);
    unsigned i;

    if (r->code_version_count == 0) {
        /* the tier source's code of this compilation, or the code in use */
        if (session_add_code_version(f, j->code_start))
            codemap_add(&s->code, j->code_start, j->code_size, position);
    } else {
        for (i = 0; i < r->code_version_count; i++)
            if (session_add_code_version(f, r->code_versions[i].start)) {
                new_size = r->code_versions[i].size;
                codemap_add(&s->code, r->code_versions[i].start, r->code_versions[i].size,
                            position);
            }
        /* catch-up's code in use, when the versions listed leave it out
         * (ReadyToRun code); not counted as a version */
        for (i = 0; i < r->code_version_count && r->code_versions[i].start != j->code_start; i++)
            ;
        if (j->code_start && i == r->code_version_count && !session_code_known(f, j->code_start))
            codemap_add(&s->code, j->code_start, j->code_size, position);
    }
    if (j->code_versions > f->versions && j->code_versions <= 1u << 20)
        f->versions = j->code_versions;
    return new_size;
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
    size_t cap = f->compilation_cap;

    if (f->compilation_count == 0) {
        f->compilation_count = 1;
        return;
    }
    if (f->compilation_count >= SESSION_MAX_COMPILATIONS ||
        grow_reserve((void **)&f->compilation_list, &cap, f->compilation_count,
                     sizeof(*f->compilation_list), 2, SESSION_MAX_COMPILATIONS, GROW_KEEP) != 0) {
        f->compilations_unkept++;
        return;
    }
    if (f->compilation_cap == 0)
        f->compilation_list[0] = *first;
    s->compilation_bytes += (cap - f->compilation_cap) * sizeof(session_compilation);
    f->compilation_cap = (uint8_t)cap;
    f->compilation_list[f->compilation_count++] = (session_compilation){when, duration,
                                                                        f->native_size, f->tier};
}

static void session_apply_jit(session *s, const wire_record *r, int64_t when)
{
    const wire_jit_finished *j = &r->u.jit_finished;
    int catchup = (r->flags & WIRE_FLAG_CATCHUP) != 0, created;
    session_function *f = session_function_slot(s, j->function_id, &created);
    uint64_t duration = 0;
    eventlog_entry *e;
    uint32_t new_size;
    session_compilation first;

    if (!f)
        return;
    session_function_jitted(s, f);
    if (catchup) {
        /* enumeration only fills in what live callbacks did not already say */
        session_take_code_versions(s, f, r);
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
    duration = session_jit_duration(session_find_thread(s, j->thread_id), j->function_id,
                                    r->time_ns);
    first = session_function_compilation(f, 0);
    f->flags = (f->flags & ~(uint32_t)WIRE_FLAG_CATCHUP) | (r->flags & WIRE_FLAG_DYNAMIC);
    f->thread_id = j->thread_id;
    if (j->il_size)
        f->il_size = j->il_size;
    new_size = session_take_code_versions(s, f, r);
    if (new_size || j->code_size) /* else: a version already seen; keep its size */
        f->native_size = new_size ? new_size : j->code_size;
    f->hresult = j->hresult;
    f->jit_count++;
    if (!f->first_jit_ns || f->jit_count == 1)
        f->first_jit_ns = when;
    f->last_jit_ns = when;
    f->jit_time_ns = duration;
    f->jit_time_total_ns += duration;
    s->jit_time_total_ns += duration;
    s->jit_compilations++;
    f->tier = j->tier < WIRE_TIER_COUNT ? j->tier : WIRE_TIER_UNKNOWN; /* hostile input */
    s->tier_compilations[f->tier]++;
    s->tier_jit_ns[f->tier] += duration;
    session_add_compilation(s, f, &first, when, duration);
    e = eventlog_append(&s->events, r->type, r->flags, when, j->function_id, duration,
                        f->native_size);
    if (e)
        e->tier = f->tier;
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
            codemap_add(&s->code, c->ip, 1, CODEMAP_NOT_MANAGED);
        return;
    }
    if (!(f = session_function_slot(s, c->function_id, &created)))
        return;
    if (c->size)
        codemap_add(&s->code, c->start, c->size, (uint32_t)(f - s->functions));
    else
        codemap_add(&s->code, c->ip, 1, (uint32_t)(f - s->functions));
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
        session_set_string(&e->path, &r->strings[0]);
    if (r->strings[1].length)
        session_set_string(&e->assembly, &r->strings[1]);
    session_log(s, r, when, m->module_id, m->base_address, 0);
}

static void session_apply_thread(session *s, const wire_record *r, int64_t when)
{
    const wire_thread *w = &r->u.thread;
    int catchup = (r->flags & WIRE_FLAG_CATCHUP) != 0, created;
    session_thread *t = session_thread_entry(s, w->thread_id, &created);

    if (!t)
        return;
    if (w->os_thread_id && (!catchup || !t->os_thread_id))
        t->os_thread_id = w->os_thread_id;
    switch (r->type) {
    case WIRE_THREAD_CREATED:
        if (!created && catchup)
            return;
        if (!created && !t->alive) {
            /* the runtime reuses a dead thread's ThreadID: a new thread */
            t = session_thread_append(s, w->thread_id);
            if (!t)
                return;
            t->os_thread_id = w->os_thread_id;
        }
        t->created_ns = when;
        t->flags = r->flags;
        break;
    case WIRE_THREAD_DESTROYED:
        t->alive = 0;
        t->ended_ns = when;
        t->jit_depth = 0;
        break;
    case WIRE_THREAD_NAME:
        if (catchup && t->name)
            return;
        if (r->strings[0].length) {
            session_set_string(&t->name, &r->strings[0]);
        } else {
            free(t->name);
            t->name = NULL;
        }
        break;
    default: /* WIRE_THREAD_OS_ID */ break;
    }
    if (s->profile.mode == PROFILE_MODE_CPU && s->profile.state == PROFILE_RUNNING &&
        s->profile.cpu.run && (r->type == WIRE_THREAD_CREATED || r->type == WIRE_THREAD_OS_ID)) {
        void (*hook)(int, uint32_t) = session_cpu_thread_hook;
        if (hook) /* a new thread: the CPU sampler follows it now, not at its next look */
            hook(s->id, s->profile.cpu.run);
    }
    if (r->type != WIRE_THREAD_OS_ID)
        session_log(s, r, when, w->thread_id, t->os_thread_id, 0);
}

/* Target's monotonic time -> wall clock; times from the agent are untrusted, so
 * anything that would overflow or land before 1970 becomes "now". */
static int64_t session_wall_ns(const session *s, uint64_t monotonic_ns, int64_t now_ns)
{
    int64_t wall;

    if (monotonic_ns == 0 || monotonic_ns > (uint64_t)INT64_MAX ||
        __builtin_add_overflow((int64_t)monotonic_ns, s->clock_offset_ns, &wall) || wall < 0)
        return now_ns;
    return wall;
}

/* Stack walks, profile samples and the GC/suspension timeline: what a
 * stored session's replay log holds (session_replay). */
static void session_apply_observation(session *s, const wire_record *r, int64_t when, int quiet)
{
    eventlog *log = quiet ? NULL : &s->events;
    stacks_walk *sample;

    switch (r->type) {
    case WIRE_STACK_THREAD: stacks_apply_thread(&s->stacks, r); break;
    case WIRE_STACK_END:
        sample = stacks_apply_end(&s->stacks, log, r, when);
        if (sample) {
            profile_add_walk(&s->profile, sample, r->u.stack_end.effective_millihz);
            stacks_walk_recycle(sample);
        }
        break;
    case WIRE_PROFILE_STATUS: profile_apply_status(&s->profile, log, r, when); break;
    default: timeline_apply(&s->timeline, s->profile.state == PROFILE_RUNNING, log, r, when); break;
    }
}

int session_apply(session *s, const wire_record *r, int64_t now_ns, const char **why)
{
    int64_t when = session_wall_ns(s, r->time_ns, now_ns);
    int created;

    if (r->type == WIRE_HELLO)
        s->last_seq = 0; /* a connection's numbers start at 1 */
    if (r->seq != s->last_seq + 1)
        s->seq_gaps += r->seq > s->last_seq ? r->seq - s->last_seq - 1 : 1;
    s->last_seq = r->seq;
    s->records++;
    switch (r->type) {
    case WIRE_HELLO: {
        const wire_hello *h = &r->u.hello;
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
        s->clock_offset_ns = (int64_t)(h->realtime_ns - h->monotonic_ns);
        s->connected_ns = now_ns;
        s->connections++;
        stacks_link_reset(&s->stacks); /* walk ids start over on a new connection */
        session_hello(s);
        break;
    }
    case WIRE_JIT_STARTED: {
        const wire_jit_started *j = &r->u.jit_started;
        session_thread *t = session_thread_entry(s, j->thread_id, &created);
        session_function *f = session_function_slot(s, j->function_id, &created);
        if (f && j->il_size)
            f->il_size = j->il_size; /* dynamic methods: only the start knows it */
        if (f)
            session_function_jitted(s, f);
        if (t && t->jit_depth < SESSION_JIT_NESTING) {
            t->jit_stack[t->jit_depth].function_id = j->function_id;
            t->jit_stack[t->jit_depth].start_ns = r->time_ns;
            t->jit_depth++;
        }
        break;
    }
    case WIRE_JIT_FINISHED: session_apply_jit(s, r, when); break;
    case WIRE_FUNCTION_NAME: {
        const wire_function_name *n = &r->u.function_name;
        session_function *f = session_function_slot(s, n->function_id, &created);
        if (f) {
            session_module *owner = f->module_id == n->module_id
                                        ? NULL
                                        : session_find_module(s, n->module_id);
            if (owner && owner->functions < UINT32_MAX)
                owner->functions++; /* what an unload of it must retire */
            f->module_id = n->module_id;
            f->token = n->token;
            if (n->il_size && !f->il_size)
                f->il_size = n->il_size; /* JIT records leave it to the name now */
            /* a dynamic method's FunctionID is reused once it is collected:
             * its latest name is the one that counts */
            if (!f->name || (r->flags & WIRE_FLAG_DYNAMIC)) /* the old one stays in the pool */
                session_set_name(s, f, &r->strings[0], (r->flags & WIRE_FLAG_DYNAMIC) != 0);
            f->flags |= r->flags & WIRE_FLAG_DYNAMIC;
        }
        break;
    }
    case WIRE_MODULE_LOADED: session_apply_module(s, r, when); break;
    case WIRE_MODULE_UNLOADED: {
        session_module *m = session_module_entry(s, r->u.module_unloaded.module_id, &created);
        if (m) {
            /* the index is rebuilt once per loaded module that named functions:
             * a repeated or unknown unload (hostile, or a duplicate) costs O(1),
             * not O(functions). A module whose load record was lost (counted as
             * a drop) keeps its FunctionIDs mapped. */
            int retire = !created && m->unloaded_ns == 0 && m->functions > 0;
            m->unloaded_ns = when;
            session_log(s, r, when, m->module_id, 0, 0);
            if (retire)
                session_retire_functions(s, m->module_id);
        }
        break;
    }
    case WIRE_ASSEMBLY_LOADED: {
        session_module *m = session_find_module(s, r->u.assembly_loaded.manifest_module_id);
        if (m && !m->assembly && r->strings[0].length)
            session_set_string(&m->assembly, &r->strings[0]);
        session_log(s, r, when, r->u.assembly_loaded.assembly_id,
                    r->u.assembly_loaded.manifest_module_id, 0);
        break;
    }
    case WIRE_THREAD_CREATED:
    case WIRE_THREAD_DESTROYED:
    case WIRE_THREAD_OS_ID:
    case WIRE_THREAD_NAME: session_apply_thread(s, r, when); break;
    case WIRE_DROPS: s->drops = r->u.drops; break;
    case WIRE_CATCHUP_BEGIN: break;
    case WIRE_CATCHUP_END:
        s->catchups++;
        s->last_catchup = r->u.catchup;
        session_log(s, r, when, 0, r->u.catchup.duration_ns, r->u.catchup.functions);
        break;
    case WIRE_DETACH_STATUS:
        if (session_detach_status(s, r->u.detach.state, r->u.detach.hresult, now_ns) != 0) {
            *why = "unknown detach state";
            return -1;
        }
        session_log(s, r, when, 0, (uint64_t)(uint32_t)r->u.detach.hresult, r->u.detach.state);
        break;
    case WIRE_PONG: break;
    case WIRE_STACK_THREAD:
    case WIRE_STACK_END:
    case WIRE_PROFILE_STATUS:
    case WIRE_GC_STARTED:
    case WIRE_GC_FINISHED:
    case WIRE_RUNTIME_SUSPEND: session_apply_observation(s, r, when, 0); break;
    case WIRE_AGENT_COST: s->agent_cost = r->u.agent_cost; break;
    case WIRE_CODE_RANGE: session_apply_code_range(s, &r->u.code_range); break;
    case WIRE_TIERS_STATUS:
        s->tiers = r->u.tiers_status;
        s->tiers.enabled = s->tiers.enabled != 0;
        s->tiers_known = 1;
        break;
    default: *why = "record type not valid from an agent"; return -1;
    }
    return 0;
}

int session_replay(session *s, const wire_record *r, int64_t now_ns)
{
    switch (r->type) {
    case WIRE_HELLO: stacks_link_reset(&s->stacks); return 0;
    case WIRE_STACK_THREAD:
    case WIRE_STACK_END:
    case WIRE_PROFILE_STATUS:
    case WIRE_GC_STARTED:
    case WIRE_GC_FINISHED:
    case WIRE_RUNTIME_SUSPEND:
        session_apply_observation(s, r, session_wall_ns(s, r->time_ns, now_ns), 1);
        return 0;
    default: return -1;
    }
}

/* LOGREC_RESUMED: the session was taken back after a gap (a server restart). */
static int session_apply_resumed(session *s, const uint8_t *payload, uint32_t length,
                                 int64_t now_ns)
{
    logrec_resumed r;
    eventlog_entry *e;

    if (length != sizeof(r))
        return -1;
    memcpy(&r, payload, sizeof(r));
    s->resumes++;
    s->last_resume = r;
    e = eventlog_append(&s->events, LOGREC_RESUMED, 0, r.since_ns ? r.since_ns : now_ns, 0,
                        r.gap_ns, r.lost > UINT32_MAX ? UINT32_MAX : (uint32_t)r.lost);
    (void)e;
    return 0;
}

void session_take_content(session *to, session *from)
{
    session own = *to; /* the fields that stay to's */

    session_drop_content(to);
    *to = *from;
    /* its own fields back */
    to->id = own.id, to->pid = own.pid, to->mode = own.mode, to->root_id = own.root_id;
    to->parent_pid = own.parent_pid, to->state = own.state;
    memcpy(to->token, own.token, sizeof(to->token));
    to->command_line = own.command_line;
    memcpy(to->error, own.error, sizeof(to->error));
    to->has_exit_code = own.has_exit_code, to->exit_code = own.exit_code;
    to->exit_signal = own.exit_signal;
    to->start_time = own.start_time, to->not_child = own.not_child;
    to->created_ns = own.created_ns, to->ended_ns = own.ended_ns;
    to->link_id = own.link_id;
    to->persist = own.persist;
    to->pins = own.pins, to->forgotten = own.forgotten;
    /* from keeps its own fields and none of the content */
    from->functions = NULL, from->function_count = from->function_cap = 0;
    from->function_index = (idindex){0};
    from->names = (strpool){0};
    from->modules = NULL, from->module_count = from->module_cap = 0;
    from->module_index = (idmap){0};
    from->threads = NULL, from->thread_count = from->thread_cap = 0;
    from->thread_index = (idmap){0};
    from->events = (eventlog){0};
    from->code = (codemap){0};
    memset(&from->stacks, 0, sizeof(from->stacks));
    memset(&from->profile, 0, sizeof(from->profile));
    memset(&from->timeline, 0, sizeof(from->timeline));
    from->persist.summary = NULL;
}

void session_drop_content(session *s)
{
    size_t i;

    for (i = 0; i < s->function_count; i++)
        free(s->functions[i].compilation_list);
    for (i = 0; i < s->module_count; i++) {
        free(s->modules[i].path);
        free(s->modules[i].assembly);
    }
    for (i = 0; i < s->thread_count; i++)
        free(s->threads[i].name);
    free(s->functions);
    free(s->modules);
    free(s->threads);
    s->functions = NULL, s->function_count = s->function_cap = 0;
    s->modules = NULL, s->module_count = s->module_cap = 0;
    s->threads = NULL, s->thread_count = s->thread_cap = 0;
    eventlog_free(&s->events);
    codemap_free(&s->code);
    stacks_free(&s->stacks);
    profile_free(&s->profile);
    timeline_free(&s->timeline);
    memset(&s->stacks, 0, sizeof(s->stacks));
    memset(&s->profile, 0, sizeof(s->profile));
    memset(&s->timeline, 0, sizeof(s->timeline));
    idindex_free(&s->function_index);
    strpool_free(&s->names);
    idmap_free(&s->module_index);
    idmap_free(&s->thread_index);
    s->functions_jitted = 0;
    s->compilation_bytes = 0;
}

const char *session_state_name(session_state st)
{
    switch (st) {
    case SESSION_STARTING: return "starting";
    case SESSION_LIVE: return "live";
    case SESSION_DISCONNECTED: return "disconnected";
    case SESSION_DETACHING: return "detaching";
    case SESSION_DETACHED: return "detached";
    case SESSION_EXITED: return "exited";
    case SESSION_FAILED: return "failed";
    case SESSION_INTERRUPTED: return "interrupted";
    }
    return "unknown";
}

const char *session_signal_name(int signal)
{
    static const char *const names[] = {
        NULL,      "SIGHUP",  "SIGINT",    "SIGQUIT", "SIGILL",   "SIGTRAP", "SIGABRT", "SIGBUS",
        "SIGFPE",  "SIGKILL", "SIGUSR1",   "SIGSEGV", "SIGUSR2",  "SIGPIPE", "SIGALRM", "SIGTERM",
        NULL,      "SIGCHLD", "SIGCONT",   "SIGSTOP", "SIGTSTP",  "SIGTTIN", "SIGTTOU", "SIGURG",
        "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO",   "SIGPWR",  "SIGSYS",
    };

    if (signal <= 0 || (size_t)signal >= sizeof(names) / sizeof(names[0]))
        return NULL;
    return names[signal];
}

const char *session_tier_name(uint32_t tier)
{
    /* the names the JIT itself prints (DOTNET_JitDisasmSummary) */
    switch (tier) {
    case WIRE_TIER_MIN_OPTS: return "MinOpts";
    case WIRE_TIER_FULL_OPTS: return "FullOpts";
    case WIRE_TIER_0: return "Tier0";
    case WIRE_TIER_1: return "Tier1";
    case WIRE_TIER_1_OSR: return "Tier1-OSR";
    case WIRE_TIER_0_INSTRUMENTED: return "Instrumented Tier0";
    case WIRE_TIER_1_INSTRUMENTED: return "Instrumented Tier1";
    }
    return "unknown";
}

const char *session_event_type_name(uint16_t type)
{
    switch (type) {
    case WIRE_JIT_FINISHED: return "jit";
    case WIRE_MODULE_LOADED: return "module_load";
    case WIRE_MODULE_UNLOADED: return "module_unload";
    case WIRE_ASSEMBLY_LOADED: return "assembly_load";
    case WIRE_THREAD_CREATED: return "thread_start";
    case WIRE_THREAD_DESTROYED: return "thread_end";
    case WIRE_THREAD_NAME: return "thread_name";
    case WIRE_CATCHUP_END: return "catchup";
    case WIRE_DETACH_STATUS: return "detach";
    case WIRE_GC_FINISHED: return "gc";
    case WIRE_RUNTIME_SUSPEND: return "suspension";
    case WIRE_STACK_END: return "stack_snapshot";
    case WIRE_PROFILE_STATUS: return "profile";
    case LOGREC_RESUMED: return "resumed";
    default: return "other";
    }
}

/* ---- state transitions (see session.h) ---- */

void session_hello(session *s)
{
    if (s->state != SESSION_DETACHING)
        s->state = SESSION_LIVE;
}

void session_detach_sent(session *s, int64_t now_ns)
{
    s->state = SESSION_DETACHING;
    s->detach_requested_ns = now_ns;
    s->detach_finished_ns = 0;
    s->error[0] = '\0';
}

void session_detach_unsent(session *s)
{
    if (s->state == SESSION_DETACHING)
        s->state = SESSION_LIVE;
}

int session_detach_status(session *s, uint32_t state, int32_t hresult, int64_t now_ns)
{
    s->detach_hresult = hresult;
    if (state == WIRE_DETACH_REQUESTED) {
        s->state = SESSION_DETACHING;
    } else if (state == WIRE_DETACH_REFUSED) {
        s->state = SESSION_LIVE;
        snprintf(s->error, sizeof(s->error), "detach refused by the runtime: HRESULT 0x%08x",
                 (unsigned)hresult);
    } else if (state == WIRE_DETACH_SUCCEEDED) {
        s->state = SESSION_DETACHED;
        s->detach_finished_ns = now_ns;
        s->ended_ns = now_ns;
        session_profile_stop(s, now_ns);
    } else {
        return -1;
    }
    return 0;
}

void session_link_lost(session *s, int64_t now_ns)
{
    s->link_id = 0;
    session_profile_stop(s, now_ns);
    if (s->has_exit_code)
        session_exited(s, now_ns);
    else if (s->state == SESSION_LIVE || s->state == SESSION_STARTING ||
             s->state == SESSION_DETACHING)
        s->state = SESSION_DISCONNECTED;
}

void session_exit_code(session *s, int code, int signal, int64_t now_ns)
{
    s->has_exit_code = 1;
    s->exit_code = code;
    s->exit_signal = signal;
    s->ended_ns = now_ns;
    if (!s->link_id) /* else session_link_lost does it once all data is read */
        session_exited(s, now_ns);
}

void session_exited(session *s, int64_t now_ns)
{
    s->state = SESSION_EXITED;
    session_mark_ended(s, now_ns);
}

void session_mark_ended(session *s, int64_t now_ns)
{
    size_t i;

    session_profile_stop(s, now_ns);
    if (!s->ended_ns)
        s->ended_ns = now_ns;
    for (i = 0; i < s->thread_count; i++) {
        if (s->threads[i].alive) {
            s->threads[i].alive = 0;
            s->threads[i].ended_ns = s->ended_ns;
        }
    }
}
