/* api.c -- the REST route table, and the session, process and config routes
 * (see api.h, docs/API.md). */
#include "api.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_util.h"
#include "attach.h"
#include "ipc.h"
#include "procscan.h"
#include "sessions.h"

#define API_DEFAULT_LIMIT 100
#define API_MAX_LIMIT 10000

static int api_ws_port;
static int api_key_required;

void api_configure(int ws_port, int key_required)
{
    api_ws_port = ws_port;
    api_key_required = key_required;
}

json_t *api_error(const char *message) { return json_pack("{s:s}", "error", message); }

json_t *api_session_summary(session *s)
{
    char version[48];
    size_t i, alive = 0;

    for (i = 0; i < s->thread_count; i++)
        alive += s->threads[i].alive != 0;
    snprintf(version, sizeof(version), "%u.%u.%u.%u", s->major, s->minor, s->build, s->qfe);
    return json_pack(
        "{s:i, s:i, s:s, s:s, s:s, s:o, s:s, s:o, s:o, s:o, s:{s:s, s:s, s:i}, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I}, s:{s:I, s:I, s:I, s:I, s:I, s:I}}",
        "id", s->id, "pid", (int)s->pid, "mode", s->mode == SESSION_MODE_RUN ? "run" : "attach",
        "state", session_state_name(s->state), "command_line", s->command_line,
        "exit_code", s->has_exit_code ? json_integer(s->exit_code) : json_null(),
        "error", s->error,
        "created_ms", api_ms(s->created_ns), "connected_ms", api_ms(s->connected_ns),
        "ended_ms", api_ms(s->ended_ns),
        "runtime", "type", s->runtime_type == 2 ? "CoreCLR" : s->runtime_type ? "other" : "unknown",
        "version", s->connected_ns ? version : "", "clr_instance_id", (int)s->clr_instance_id,
        "counters", "functions", (json_int_t)s->functions_jitted, "modules",
        (json_int_t)s->module_count, "threads", (json_int_t)s->thread_count, "threads_alive",
        (json_int_t)alive, "jit_compilations", (json_int_t)s->jit_compilations,
        "jit_time_total_ns", (json_int_t)s->jit_time_total_ns, "events", (json_int_t)s->event_seq,
        "drops", "ring_full", (json_int_t)s->drops.dropped[WIRE_DROP_RING_FULL], "too_large",
        (json_int_t)s->drops.dropped[WIRE_DROP_TOO_LARGE], "no_server",
        (json_int_t)s->drops.dropped[WIRE_DROP_NO_SERVER], "name_failed",
        (json_int_t)s->drops.dropped[WIRE_DROP_NAME_FAILED], "total",
        (json_int_t)(s->drops.dropped[0] + s->drops.dropped[1] + s->drops.dropped[2]),
        "produced", (json_int_t)s->drops.produced);
}

static json_t *api_session_detail(session *s)
{
    json_t *o = api_session_summary(s);
    int64_t took = s->detach_finished_ns && s->detach_requested_ns
                       ? s->detach_finished_ns - s->detach_requested_ns
                       : 0;

    json_object_set_new(o, "link", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b}",
        "records", (json_int_t)s->records, "bytes", (json_int_t)s->bytes,
        "seq_gaps", (json_int_t)s->seq_gaps, "connections", (json_int_t)s->connections,
        "ring_bytes", (json_int_t)s->ring_bytes, "ring_used", (json_int_t)s->drops.ring_used,
        "server_capacity_drops", (json_int_t)s->capacity_drops, "connected", s->link_id != 0));
    json_object_set_new(o, "catchup", json_pack("{s:I, s:i, s:i, s:i, s:f}",
        "count", (json_int_t)s->catchups, "modules", (int)s->last_catchup.modules,
        "functions", (int)s->last_catchup.functions, "threads", (int)s->last_catchup.threads,
        "duration_ms", (double)s->last_catchup.duration_ns / 1e6));
    json_object_set_new(o, "detach", json_pack("{s:o, s:o, s:o, s:o}",
        "requested_ms", api_ms(s->detach_requested_ns),
        "finished_ms", api_ms(s->detach_finished_ns),
        "duration_ms", took ? json_real((double)took / 1e6) : json_null(),
        "hresult", s->detach_hresult ? json_sprintf("0x%08x", (unsigned)s->detach_hresult)
                                     : json_null()));
    json_object_set_new(o, "events_evicted", json_integer((json_int_t)s->events_evicted));
    json_object_set_new(o, "profile", api_profile_status(&s->profile));
    json_object_set_new(o, "stacks", json_pack("{s:I}", "snapshots",
                                               (json_int_t)s->stacks.kept_count));
    return o;
}

static json_t *api_function_json(session *s, const session_function *f)
{
    json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:i, s:i, s:I, s:I, s:i, s:o, s:o, s:o, s:b, s:b}",
        "function_id", api_id(f->function_id),
        "name", api_str(f->name),
        "module_id", api_id(f->module_id),
        "module", api_str(session_module_name(s, f->module_id)),
        "token", f->token ? json_sprintf("0x%08x", f->token) : json_null(),
        "il_size", (int)f->il_size, "native_size", (int)f->native_size,
        "versions", (int)f->versions, "jit_count", (int)f->jit_count,
        "jit_ns", (json_int_t)f->jit_time_ns, "jit_total_ns", (json_int_t)f->jit_time_total_ns,
        "hresult", (int)f->hresult,
        "first_jit_ms", api_ms(f->first_jit_ns), "last_jit_ms", api_ms(f->last_jit_ns),
        "thread_id", f->thread_id ? api_id(f->thread_id) : json_null(),
        "catchup", (f->flags & WIRE_FLAG_CATCHUP) != 0,
        "dynamic", (f->flags & WIRE_FLAG_DYNAMIC) != 0);
    return o;
}

enum api_sort { SORT_TIME, SORT_JIT_TIME, SORT_NAME, SORT_NATIVE, SORT_IL };

typedef struct api_sort_ctx {
    session *s;
    enum api_sort key;
    int descending;
} api_sort_ctx;

static int api_compare_functions(const void *a, const void *b, void *arg)
{
    const api_sort_ctx *c = arg;
    const session_function *x = &c->s->functions[*(const uint32_t *)a];
    const session_function *y = &c->s->functions[*(const uint32_t *)b];
    long long d = 0;

    switch (c->key) {
    case SORT_TIME: d = (x->first_jit_ns > y->first_jit_ns) - (x->first_jit_ns < y->first_jit_ns); break;
    case SORT_JIT_TIME: d = (x->jit_time_total_ns > y->jit_time_total_ns) - (x->jit_time_total_ns < y->jit_time_total_ns); break;
    case SORT_NATIVE: d = (long long)x->native_size - (long long)y->native_size; break;
    case SORT_IL: d = (long long)x->il_size - (long long)y->il_size; break;
    case SORT_NAME: d = strcmp(x->name ? x->name : "", y->name ? y->name : ""); break;
    }
    if (d == 0)
        d = (x->function_id > y->function_id) - (x->function_id < y->function_id);
    return c->descending ? (d > 0 ? -1 : d < 0) : (d > 0) - (d < 0);
}

static int api_functions(api_call *c)
{
    const api_request *req = c->req;
    session *s = c->s;
    const char *q = req->arg(req->ctx, "q"), *mod = req->arg(req->ctx, "module");
    const char *sort = req->arg(req->ctx, "sort"), *order = req->arg(req->ctx, "order");
    api_sort_ctx ctx = {s, SORT_TIME, 0};
    long long limit, offset;
    uint32_t *picked;
    size_t n = 0, i;
    json_t *list;

    if (api_arg_int(req, "limit", 1, API_MAX_LIMIT, API_DEFAULT_LIMIT, &limit) != 0 ||
        api_arg_int(req, "offset", 0, 1LL << 40, 0, &offset) != 0)
        return api_fail(c, 400, "limit must be 1..10000 and offset >= 0");
    if (!sort || strcmp(sort, "time") == 0) ctx.key = SORT_TIME;
    else if (strcmp(sort, "jit_time") == 0) ctx.key = SORT_JIT_TIME, ctx.descending = 1;
    else if (strcmp(sort, "name") == 0) ctx.key = SORT_NAME;
    else if (strcmp(sort, "native_size") == 0) ctx.key = SORT_NATIVE, ctx.descending = 1;
    else if (strcmp(sort, "il_size") == 0) ctx.key = SORT_IL, ctx.descending = 1;
    else
        return api_fail(c, 400, "sort must be one of time, jit_time, name, native_size, il_size");
    if (order && strcmp(order, "asc") == 0) ctx.descending = 0;
    else if (order && strcmp(order, "desc") == 0) ctx.descending = 1;
    else if (order)
        return api_fail(c, 400, "order must be asc or desc");
    if ((q && strlen(q) > 512) || (mod && strlen(mod) > 512))
        return api_fail(c, 400, "filter too long (512 bytes at most)");
    picked = malloc((s->function_count + 1) * sizeof(*picked));
    if (!picked)
        return api_fail(c, 503, "out of memory");
    for (i = 0; i < s->function_count; i++) {
        const session_function *f = &s->functions[i];
        const char *mname;

        if (!f->jitted)
            continue; /* known only from stacks: not a compiled function */
        if (q && *q && (!f->name || !strcasestr(f->name, q)))
            continue;
        if (mod && *mod) {
            session_module *m = session_find_module(s, f->module_id);
            mname = session_module_name(s, f->module_id);
            if (!(mname && strcasestr(mname, mod)) && !(m && m->path && strcasestr(m->path, mod)))
                continue;
        }
        picked[n++] = (uint32_t)i;
    }
    qsort_r(picked, n, sizeof(*picked), api_compare_functions, &ctx);
    list = json_array();
    for (i = (size_t)offset; i < n && i < (size_t)offset + (size_t)limit; i++)
        json_array_append_new(list, api_function_json(s, &s->functions[picked[i]]));
    free(picked);
    c->reply->json = json_pack("{s:I, s:I, s:I, s:o}", "total", (json_int_t)n, "offset",
                               (json_int_t)offset, "limit", (json_int_t)limit, "functions", list);
    return 200;
}

static json_t *api_module_json(const session_module *m)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:b}",
        "module_id", api_id(m->module_id), "assembly_id", api_id(m->assembly_id),
        "path", api_str(m->path), "assembly", api_str(m->assembly),
        "base_address", api_id(m->base_address), "loaded_ms", api_ms(m->loaded_ns),
        "unloaded_ms", api_ms(m->unloaded_ns), "loaded", m->unloaded_ns == 0,
        "catchup", (m->flags & WIRE_FLAG_CATCHUP) != 0);
}

static json_t *api_thread_json(const session_thread *t)
{
    return json_pack("{s:o, s:i, s:o, s:b, s:o, s:o, s:b}",
        "thread_id", api_id(t->thread_id), "os_thread_id", (int)t->os_thread_id,
        "name", api_str(t->name), "alive", t->alive != 0, "created_ms", api_ms(t->created_ns),
        "ended_ms", api_ms(t->ended_ns), "catchup", (t->flags & WIRE_FLAG_CATCHUP) != 0);
}

json_t *api_event_json(session *s, const session_event *e)
{
    json_t *o = json_pack("{s:I, s:s, s:o, s:b}", "seq", (json_int_t)e->seq, "type",
                          session_event_type_name(e->type), "time_ms", api_ms(e->time_ns),
                          "catchup", (e->flags & WIRE_FLAG_CATCHUP) != 0);

    switch (e->type) {
    case WIRE_JIT_FINISHED: {
        session_function *f = session_find_function(s, e->id);
        json_object_set_new(o, "function_id", api_id(e->id));
        json_object_set_new(o, "name", api_str(f ? f->name : NULL));
        json_object_set_new(o, "module", api_str(f ? session_module_name(s, f->module_id) : NULL));
        json_object_set_new(o, "jit_ns", json_integer((json_int_t)e->value));
        json_object_set_new(o, "native_size", json_integer(e->extra));
        json_object_set_new(o, "il_size", json_integer(f ? f->il_size : 0));
        json_object_set_new(o, "versions", json_integer(f ? f->versions : 0));
        json_object_set_new(o, "thread_id", f && f->thread_id ? api_id(f->thread_id) : json_null());
        json_object_set_new(o, "dynamic", json_boolean(e->flags & WIRE_FLAG_DYNAMIC));
        break;
    }
    case WIRE_MODULE_LOADED:
    case WIRE_MODULE_UNLOADED: {
        session_module *m = session_find_module(s, e->id);
        json_object_set_new(o, "module_id", api_id(e->id));
        json_object_set_new(o, "path", api_str(m ? m->path : NULL));
        json_object_set_new(o, "assembly", api_str(m ? m->assembly : NULL));
        break;
    }
    case WIRE_ASSEMBLY_LOADED:
        json_object_set_new(o, "assembly_id", api_id(e->id));
        json_object_set_new(o, "module_id", api_id(e->value));
        break;
    case WIRE_THREAD_CREATED:
    case WIRE_THREAD_DESTROYED:
    case WIRE_THREAD_NAME: {
        session_thread *t = session_find_thread(s, e->id);
        json_object_set_new(o, "thread_id", api_id(e->id));
        json_object_set_new(o, "os_thread_id", json_integer((json_int_t)e->value));
        json_object_set_new(o, "name", api_str(t ? t->name : NULL));
        break;
    }
    case WIRE_CATCHUP_END:
        json_object_set_new(o, "functions", json_integer(e->extra));
        json_object_set_new(o, "duration_ms", json_real((double)e->value / 1e6));
        break;
    case WIRE_DETACH_STATUS:
        json_object_set_new(o, "state", json_integer(e->extra));
        json_object_set_new(o, "hresult", json_sprintf("0x%08x", (unsigned)e->value));
        break;
    case WIRE_GC_FINISHED:
        json_object_set_new(o, "duration_ns", json_integer((json_int_t)e->value));
        json_object_set_new(o, "generations", api_generations(e->extra));
        json_object_set_new(o, "reason", json_string(timeline_gc_reason_name((uint32_t)e->id)));
        break;
    case WIRE_RUNTIME_SUSPEND:
        json_object_set_new(o, "duration_ns", json_integer((json_int_t)e->value));
        json_object_set_new(o, "reason",
                            json_string(timeline_suspend_reason_name((uint32_t)e->id)));
        json_object_set_new(o, "by_jitscope",
                            json_boolean(e->id == TIMELINE_SUSPEND_FOR_PROFILER));
        json_object_set_new(o, "aborted", json_boolean(e->extra != 0));
        break;
    case WIRE_STACK_END:
        json_object_set_new(o, "snapshot_id", json_integer((json_int_t)e->id));
        json_object_set_new(o, "threads", json_integer(e->extra));
        json_object_set_new(o, "suspend_ns", json_integer((json_int_t)e->value));
        break;
    case WIRE_PROFILE_STATUS: {
        /* the status now, with the state and rates this change reported */
        static const char *const changes[] = {"", "started", "stopped", "rate", "refused"};
        json_t *status = api_profile_status(&s->profile);
        json_object_update(o, status);
        json_decref(status);
        json_object_set_new(o, "change", json_string(e->extra <= 4 ? changes[e->extra] : ""));
        json_object_set_new(o, "state", json_string(e->extra == WIRE_PROFILE_STARTED ||
                                                            e->extra == WIRE_PROFILE_RATE
                                                        ? "running" : "stopped"));
        json_object_set_new(o, "requested_hz", json_real((double)(uint32_t)e->id / 1000.0));
        json_object_set_new(o, "effective_hz", json_real((double)e->value / 1000.0));
        json_object_set_new(o, "budget_pct", json_real((double)(e->id >> 32) / 10.0));
        break;
    }
    }
    return o;
}

static int api_events(api_call *c)
{
    const api_request *req = c->req;
    session *s = c->s;
    long long after, limit;
    uint64_t seq, first = session_first_event_seq(s);
    json_t *list;

    if (api_arg_int(req, "after", 0, 1LL << 62, 0, &after) != 0 ||
        api_arg_int(req, "limit", 1, API_MAX_LIMIT, 1000, &limit) != 0)
        return api_fail(c, 400, "after must be >= 0 and limit 1..10000");
    list = json_array();
    seq = (uint64_t)after + 1 < first ? first : (uint64_t)after + 1;
    for (; seq <= s->event_seq && json_array_size(list) < (size_t)limit; seq++)
        json_array_append_new(list, api_event_json(s, session_event_at(s, seq)));
    c->reply->json = json_pack("{s:o, s:I, s:I, s:b}", "events", list, "next_after",
                      (json_int_t)(seq - 1 > (uint64_t)after ? seq - 1 : (uint64_t)after),
                      "last_seq", (json_int_t)s->event_seq,
                      "evicted", (uint64_t)after + 1 < first && s->events_evicted > 0);
    return 200;
}

static int api_detail(api_call *c)
{
    c->reply->json = api_session_detail(c->s);
    return 200;
}

static int api_modules(api_call *c)
{
    json_t *list = json_array();
    size_t i;

    for (i = 0; i < c->s->module_count; i++)
        json_array_append_new(list, api_module_json(&c->s->modules[i]));
    c->reply->json = json_pack("{s:o}", "modules", list);
    return 200;
}

static int api_threads(api_call *c)
{
    json_t *list = json_array();
    size_t i;

    for (i = 0; i < c->s->thread_count; i++)
        json_array_append_new(list, api_thread_json(&c->s->threads[i]));
    c->reply->json = json_pack("{s:o}", "threads", list);
    return 200;
}

static int api_detach(api_call *c)
{
    char message[512];
    int status = detach_session(c->session_id, message, sizeof(message));

    if (status != 202)
        return api_fail(c, status, "%s", message);
    sessions_lock();
    if (sessions_get(c->session_id))
        c->reply->json = json_pack("{s:o}", "session",
                                   api_session_detail(sessions_get(c->session_id)));
    sessions_unlock();
    return c->reply->json ? 202 : api_fail(c, 404, "no such session");
}

/* The routes under /api/sessions/{id}, one row each: method, the rest of the
 * path ('#' stands for a positive number, c->n), whether the dispatcher holds
 * the lock and finds the session for the handler, and the handler. */
enum { API_LOCKED = 1 };

typedef struct api_route {
    const char *method;
    const char *path;
    unsigned flags;
    int (*handler)(api_call *c);
} api_route;

static const api_route api_session_routes[] = {
    {"GET", "", API_LOCKED, api_detail},
    {"GET", "/functions", API_LOCKED, api_functions},
    {"GET", "/modules", API_LOCKED, api_modules},
    {"GET", "/threads", API_LOCKED, api_threads},
    {"GET", "/events", API_LOCKED, api_events},
    {"POST", "/detach", 0, api_detach},
    {"POST", "/stacks", 0, api_stacks_post},
    {"GET", "/stacks", API_LOCKED, api_stacks_list},
    {"GET", "/stacks/#", 0, api_stacks_get},
    {"POST", "/profile", 0, api_profile_post},
    {"GET", "/profile", 0, api_profile_get},
    {"POST", "/profile/stop", 0, api_profile_stop},
    {"GET", "/timeline", 0, api_timeline_get},
};

enum { API_NO_MATCH, API_MATCH, API_BAD_NUMBER };

/* Matches a route's path pattern against the rest of a request path. */
static int api_route_match(const char *pattern, const char *path, uint64_t *n)
{
    const char *hash = strchr(pattern, '#');
    unsigned long long v;
    char *end;

    if (!hash)
        return strcmp(pattern, path) == 0 ? API_MATCH : API_NO_MATCH;
    if (strncmp(pattern, path, (size_t)(hash - pattern)) != 0)
        return API_NO_MATCH;
    path += hash - pattern;
    if (*path < '0' || *path > '9')
        return *path && *path != '/' ? API_BAD_NUMBER : API_NO_MATCH;
    errno = 0;
    v = strtoull(path, &end, 10);
    if (errno || v == 0 || v > (1ull << 53) || strcmp(end, hash + 1) != 0)
        return API_BAD_NUMBER;
    *n = v;
    return API_MATCH;
}

/* Routes under /api/sessions ("" or "/{id}..."). */
static int api_sessions_route(const api_request *req, const char *method, const char *rest,
                              api_reply *reply)
{
    api_call c = {req, reply, 0, 0, NULL};
    const api_route *route = NULL;
    int wrong_method = 0, status;
    char *end;
    long id;
    size_t i;

    if (*rest == '\0') {
        json_t *list;
        if (strcmp(method, "GET") != 0)
            return api_fail(&c, 405, "method not allowed");
        list = json_array();
        sessions_lock();
        for (i = 0; i < sessions_count(); i++)
            json_array_append_new(list, api_session_summary(sessions_at(i)));
        sessions_unlock();
        reply->json = json_pack("{s:o}", "sessions", list);
        return 200;
    }
    if (*rest != '/')
        return api_fail(&c, 404, "no such route");
    errno = 0;
    id = strtol(rest + 1, &end, 10);
    if (errno || end == rest + 1 || rest[1] < '0' || rest[1] > '9' || id <= 0 || id > 1000000 ||
        (*end && *end != '/'))
        return api_fail(&c, 400, "session id must be a positive integer");
    c.session_id = (int)id;
    for (i = 0; i < sizeof(api_session_routes) / sizeof(api_session_routes[0]); i++) {
        uint64_t n = 0;
        int m = api_route_match(api_session_routes[i].path, end, &n);

        if (m == API_BAD_NUMBER)
            return api_fail(&c, 400, "expected a positive number in %s", api_session_routes[i].path);
        if (m != API_MATCH)
            continue;
        if (strcmp(api_session_routes[i].method, method) != 0) {
            wrong_method = 1;
            continue;
        }
        route = &api_session_routes[i];
        c.n = n;
        break;
    }
    if (!route)
        return api_fail(&c, wrong_method ? 405 : 404, wrong_method ? "method not allowed"
                                                                   : "no such route");
    if (!(route->flags & API_LOCKED))
        return route->handler(&c);
    if (!(c.s = api_lock_session(&c)))
        return 404;
    status = route->handler(&c);
    sessions_unlock();
    return status;
}

/* GET /api/processes: attachable .NET processes of this user. */
static int api_processes(json_t **body)
{
    enum { MAX_PROCESSES = 512 };
    procscan_entry *entries = calloc(MAX_PROCESSES, sizeof(*entries));
    ipc_procinfo *info = calloc(1, sizeof(*info));
    size_t count = 0, i;
    json_t *list = json_array();
    char err[256];

    if (!entries || !info || procscan_list(entries, MAX_PROCESSES, &count) < 0) {
        free(entries);
        free(info);
        json_decref(list);
        *body = api_error("cannot list processes");
        return 500;
    }
    for (i = 0; i < count; i++) {
        session *s;
        json_t *sid;
        int ok = ipc_process_info(entries[i].pid, info, err, sizeof(err)) == IPC_OK;

        sessions_lock();
        s = sessions_by_pid(entries[i].pid);
        sid = s ? json_integer(s->id) : json_null();
        sessions_unlock();
        json_array_append_new(list, json_pack("{s:i, s:s, s:s, s:s, s:s, s:o}",
            "pid", (int)entries[i].pid,
            "command_line", ok ? info->command_line : "",
            "runtime_version", ok ? info->runtime_version : "",
            "entry_assembly", ok ? info->entrypoint_assembly : "",
            "error", ok ? "" : err, "session_id", sid));
    }
    free(entries);
    free(info);
    *body = json_pack("{s:o}", "processes", list);
    return 200;
}

/* Parses "/123" + suffix into a positive id below max; -1 when malformed. */
static long api_path_id(const char *text, const char *suffix, long max)
{
    char *end;
    long id;

    if (*text != '/' || text[1] < '0' || text[1] > '9')
        return -1;
    errno = 0;
    id = strtol(text + 1, &end, 10);
    if (errno || end == text + 1 || id <= 0 || id > max || strcmp(end, suffix) != 0)
        return -1;
    return id;
}

/* POST /api/processes/{pid}/attach */
static int api_attach(const api_request *req, api_reply *reply)
{
    attach_result r;
    long id = api_path_id(req->path + 14, "/attach", 1L << 30);

    if (id < 0) {
        reply->json = api_error("expected /api/processes/{pid}/attach");
        return strstr(req->path, "/attach") ? 400 : 404;
    }
    attach_process((pid_t)id, &r);
    if (r.status != 201) {
        reply->json = api_error(r.message);
        return r.status;
    }
    sessions_lock();
    reply->json = json_pack("{s:o}", "session", api_session_detail(sessions_get(r.session_id)));
    sessions_unlock();
    return 201;
}

int api_handle(const api_request *req, api_reply *reply)
{
    const char *method = strcmp(req->method, "HEAD") == 0 ? "GET" : req->method;
    int get = strcmp(method, "GET") == 0, post = strcmp(method, "POST") == 0;
    int status;

    memset(reply, 0, sizeof(*reply));
    if (!get && !post) {
        reply->json = api_error("method not allowed");
        status = 405;
    } else if (strncmp(req->path, "/api/processes/", 15) == 0) {
        if (post) {
            status = api_attach(req, reply);
        } else {
            reply->json = api_error(strstr(req->path, "/attach") ? "method not allowed"
                                                                 : "no such route");
            status = strstr(req->path, "/attach") ? 405 : 404;
        }
    } else if (strcmp(req->path, "/api/processes") == 0 || strcmp(req->path, "/api/config") == 0) {
        if (!get) {
            reply->json = api_error("method not allowed");
            status = 405;
        } else if (strcmp(req->path, "/api/processes") == 0) {
            status = api_processes(&reply->json);
        } else {
            reply->json = json_pack("{s:s, s:i, s:b}", "version", JITSCOPE_VERSION, "ws_port",
                                    api_ws_port, "api_key_required", api_key_required);
            status = 200;
        }
    } else if (strncmp(req->path, "/api/sessions", 13) == 0) {
        status = api_sessions_route(req, method, req->path + 13, reply);
    } else {
        reply->json = api_error("no such route");
        status = 404;
    }
    if (!reply->json && !reply->text) { /* jansson refused something (should not happen): say so */
        reply->json = api_error("internal error building the response");
        status = 500;
    }
    return status;
}
