/* session.c -- one session's memory: made, freed, its tables (functions,
 * modules, threads) and what they hold, its content moved or dropped as a
 * whole (see session.h). What each kind of record does to it is its row's
 * in record_kinds.c (the agent's folds in session_fold.c); its state machine
 * and the server's own records session_state.c's; the names of things
 * session_names.c's. */
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

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
    session_budget_forget(s);
    free(s->command_line);
    free(s->persist.summary);
    free(s);
}

_Static_assert(sizeof(session_function) == 88, "session_function: 88 bytes (docs/ARCHITECTURE.md)");

session_function *session_find_function(session *s, uint64_t id)
{
    uint32_t i = idindex_get(&s->function_index, id, s->functions, sizeof(*s->functions));
    return i == IDINDEX_MISSING ? NULL : &s->functions[i];
}

session_compilation session_function_compilation(const session_function *f, uint32_t i)
{
    if (f->compilation_cap && i < f->compilation_count)
        return f->more->list[i];
    /* compiled once: that compilation is what the function says of its last one */
    return (session_compilation){session_function_last_jit_ns(f), session_function_last_jit_time(f),
                                 f->native_size, f->tier};
}

void session_memory_usage(const session *s, session_memory *m)
{
    m->functions = s->function_count * sizeof(*s->functions);
    m->functions_reserved = s->function_cap * sizeof(*s->functions);
    m->function_index = s->function_index.capacity * sizeof(*s->function_index.slots);
    m->name_signatures = fnsig_bytes(&s->name_sigs, s->function_count);
    m->names = strpool_bytes(&s->names);
    m->events = eventlog_bytes(&s->events);
    m->compilations = s->compilation_bytes;
    m->code_ranges = codemap_bytes(&s->codemap);
}

session_module *session_find_module(session *s, uint64_t id)
{
    uint32_t i = idmap_get(&s->module_index, id);
    return i == IDMAP_MISSING ? NULL : &s->modules[i];
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

int session_reserve(session *s, size_t functions, size_t modules, size_t threads, size_t name_bytes)
{
    strpool_reserve(&s->names, name_bytes);
    if (functions > SESSION_MAX_FUNCTIONS || modules > SESSION_MAX_MODULES ||
        threads > SESSION_MAX_THREADS)
        return -1;
    if ((functions &&
         grow_reserve((void **)&s->functions, &s->function_cap, functions - 1,
                      sizeof(*s->functions), functions, SESSION_MAX_FUNCTIONS, GROW_KEEP) != 0) ||
        (functions && idindex_reserve(&s->function_index, functions) != 0) ||
        (functions && fnsig_reserve(&s->name_sigs, functions - 1, SESSION_MAX_FUNCTIONS) != 0) ||
        (modules &&
         grow_reserve((void **)&s->modules, &s->module_cap, modules - 1, sizeof(*s->modules),
                      modules, SESSION_MAX_MODULES, GROW_KEEP) != 0) ||
        (threads &&
         grow_reserve((void **)&s->threads, &s->thread_cap, threads - 1, sizeof(*s->threads),
                      threads, SESSION_MAX_THREADS, GROW_KEEP) != 0))
        return -1;
    return 0;
}

session_function *session_function_append(session *s, uint64_t id)
{
    session_function *f;

    if (grow_reserve((void **)&s->functions, &s->function_cap, s->function_count, sizeof(*f), 1024,
                     SESSION_MAX_FUNCTIONS, GROW_KEEP) != 0)
        return NULL;
    if (fnsig_reserve(&s->name_sigs, s->function_count, SESSION_MAX_FUNCTIONS) != 0)
        return NULL;
    fnsig_set(&s->name_sigs, s->function_count, NULL);
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
    const char *record = fnname_store(&s->names, name, length, 0);

    if (!record)
        return -1;
    session_function_name_set(s, f, record);
    return 0;
}

void session_function_name_set(session *s, session_function *f, const char *record)
{
    f->name_record = record;
    fnsig_set(&s->name_sigs, (size_t)(f - s->functions), record);
}

size_t session_function_name_copy(const session_function *f, char *out, size_t size)
{
    if (!f->name_record) {
        out[0] = '\0';
        return 0;
    }
    return fnname_copy(f->name_record, out, size);
}

session_function_more *session_function_more_of(session *s, session_function *f)
{
    session_function_more *m;

    if (f->more)
        return f->more;
    if (!(m = calloc(1, sizeof(*m)))) {
        s->capacity_drops++;
        return NULL;
    }
    m->last_jit_ns = session_function_last_jit_ns(f);
    m->jit_time_ns = session_function_last_jit_time(f);
    f->more = m;
    s->compilation_bytes += sizeof(*m);
    return m;
}

int session_function_list_room(session *s, session_function *f)
{
    session_function_more *m;
    size_t cap;

    if (f->compilation_count < f->compilation_cap)
        return 0;
    if (f->compilation_count >= SESSION_MAX_COMPILATIONS || !session_function_more_of(s, f))
        return -1;
    cap = f->compilation_cap ? (size_t)f->compilation_cap * 2 : 2;
    if (cap > SESSION_MAX_COMPILATIONS)
        cap = SESSION_MAX_COMPILATIONS;
    if (!(m = realloc(f->more, sizeof(*m) + cap * sizeof(m->list[0]))))
        return -1;
    f->more = m;
    s->compilation_bytes += (cap - f->compilation_cap) * sizeof(session_compilation);
    f->compilation_cap = (uint8_t)cap;
    return 0;
}

int session_function_keep_compilation(session *s, session_function *f, const session_compilation *c)
{
    if (session_function_list_room(s, f) != 0)
        return -1;
    f->more->list[f->compilation_count++] = *c;
    return 0;
}

int session_function_set_history(session *s, session_function *f, int64_t last_jit_ns,
                                 uint64_t jit_time_ns, uint32_t compilations_unkept,
                                 const uint32_t code_start[SESSION_MAX_CODE_VERSIONS])
{
    session_function_more *m;
    uint32_t beyond = 0;
    unsigned i;

    f->code_start0 = code_start[0];
    for (i = 1; i < SESSION_MAX_CODE_VERSIONS; i++)
        beyond |= code_start[i];
    if (!f->more && !beyond && !compilations_unkept &&
        last_jit_ns == session_function_last_jit_ns(f) &&
        jit_time_ns == session_function_last_jit_time(f))
        return 0; /* the function's fields say it all */
    if (!(m = session_function_more_of(s, f)))
        return -1;
    m->last_jit_ns = last_jit_ns;
    m->jit_time_ns = jit_time_ns;
    m->compilations_unkept = compilations_unkept;
    memcpy(m->code_start, code_start + 1, sizeof(m->code_start));
    return 0;
}

void session_take_content(session *to, session *from)
{
    session own = *to; /* the fields that stay to's */
    session_budget held;

    session_drop_content(to);
    held = to->budget; /* what the memory budget counts of it, after the drop */
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
    memcpy(to->program, own.program, sizeof(to->program));
    memcpy(to->outside, own.outside, sizeof(to->outside));
    to->outside_count = own.outside_count;
    to->created_ns = own.created_ns, to->ended_ns = own.ended_ns;
    to->link_id = own.link_id;
    to->container = own.container, to->place_id = own.place_id;
    to->via_port = own.via_port, to->pid_hidden = own.pid_hidden;
    memcpy(to->runtime_cookie, own.runtime_cookie, sizeof(to->runtime_cookie));
    to->persist = own.persist;
    to->pins = own.pins, to->forgotten = own.forgotten;
    /* from keeps its own fields and none of the content */
    from->functions = NULL, from->function_count = from->function_cap = 0;
    from->function_index = (idindex){0};
    from->name_sigs = (fnsig_table){0};
    from->names = (strpool){0};
    from->modules = NULL, from->module_count = from->module_cap = 0;
    from->module_index = (idmap){0};
    from->origin_corelib_row = from->origin_modules_seen = 0;
    from->threads = NULL, from->thread_count = from->thread_cap = 0;
    from->thread_index = (idmap){0};
    from->thread_os_index = (idmap){0};
    from->events = (eventlog){0};
    from->codemap = (codemap){0};
    memset(&from->stacks, 0, sizeof(from->stacks));
    memset(&from->profile, 0, sizeof(from->profile));
    memset(&from->timeline, 0, sizeof(from->timeline));
    from->exceptions = NULL;
    from->allocations = NULL;
    memset(&from->code, 0, sizeof(from->code));
    from->persist.summary = NULL;
    /* the budget's count stays to's (from is a private copy, never counted) */
    to->budget.held = held.held, to->budget.counted = held.counted;
    to->budget.connected = held.connected, to->budget.unwritten = held.unwritten;
    to->budget.unlogged = held.unlogged;
    from->budget.held = from->budget.text = from->budget.observations = 0;
    from->budget.unwritten = from->budget.unlogged = 0;
    session_memory_recount(to);
}

void session_drop_content(session *s)
{
    size_t i;

    for (i = 0; i < s->function_count; i++)
        free(s->functions[i].more);
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
    s->origin_corelib_row = s->origin_modules_seen = 0;
    s->threads = NULL, s->thread_count = s->thread_cap = 0;
    eventlog_free(&s->events);
    codemap_free(&s->codemap);
    stacks_free(&s->stacks);
    profile_free(&s->profile);
    timeline_free(&s->timeline);
    if (s->exceptions) {
        exc_free(s->exceptions);
        free(s->exceptions);
        s->exceptions = NULL;
    }
    if (s->allocations) {
        alloc_free(s->allocations);
        free(s->allocations);
        s->allocations = NULL;
    }
    code_free(&s->code);
    memset(&s->stacks, 0, sizeof(s->stacks));
    memset(&s->profile, 0, sizeof(s->profile));
    memset(&s->timeline, 0, sizeof(s->timeline));
    idindex_free(&s->function_index);
    fnsig_free(&s->name_sigs);
    strpool_free(&s->names);
    idmap_free(&s->module_index);
    idmap_free(&s->thread_index);
    idmap_free(&s->thread_os_index);
    s->functions_jitted = 0;
    s->compilation_bytes = 0;
    s->budget.text = s->budget.observations = 0;
    session_memory_sync(s);
}
