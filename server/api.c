/* api.c -- the REST route table and its matcher, and the session, process and
 * config routes (see api.h, docs/API.md). The stack, profile and timeline
 * handlers are in api_stacks.c, api_profile.c and api_timeline.c; the JSON
 * shapes in views.c. */
#include "api.h"
#include "budget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_route.h"
#include "persist.h"
#include "store.h"
#include "api_export.h"
#include "api_util.h"
#include "version.h"
#include "views_event.h"
#include "attach.h"
#include "ipc.h"
#include "openapi_doc.h"
#include "origin.h"
#include "proclist.h"
#include "sessions.h"

#define API_MAX_LIMIT 10000

static int api_ws_port;
static int api_key_required;

void api_configure(int ws_port, int key_required)
{
    api_ws_port = ws_port;
    api_key_required = key_required;
}

/* GET /api/sessions/{id}/functions/{fid}: one function, with its compilations.
 * ?key=N: the function at that position, which must have that FunctionID (a
 * dynamic method's ID names a later method once the runtime reused it). */
static int api_function(api_call *c)
{
    session_function *f = session_find_function(c->s, c->n);
    long long key;

    if (api_arg_int(c->req, "key", 0, (long long)SESSION_MAX_FUNCTIONS - 1, -1, &key) != 0)
        return api_fail(c, 400, "key must be a function_key: 0..%u", SESSION_MAX_FUNCTIONS - 1);
    if (key >= 0)
        f = (size_t)key < c->s->function_count && c->s->functions[key].function_id == c->n &&
                    c->s->functions[key].jitted
                ? &c->s->functions[key]
                : NULL;
    if (!f)
        return api_fail(c, 404, "session %d knows no function 0x%llx%s", c->session_id,
                        (unsigned long long)c->n, key >= 0 ? " at that key" : "");
    c->reply->json = json_pack("{s:o}", "function", view_function(c->s, f));
    return 200;
}

static int api_events(api_call *c)
{
    const api_request *req = c->req;
    session *s = c->s;
    long long after, limit;
    uint64_t seq, first = eventlog_first_seq(&s->events);
    json_t *list;

    if (api_arg_int(req, "after", 0, 1LL << 62, 0, &after) != 0 ||
        api_arg_int(req, "limit", 1, API_MAX_LIMIT, 1000, &limit) != 0)
        return api_fail(c, 400, "after must be >= 0 and limit 1..10000");
    list = json_array();
    seq = (uint64_t)after + 1 < first ? first : (uint64_t)after + 1;
    for (; seq <= s->events.last_seq && json_array_size(list) < (size_t)limit; seq++)
        json_array_append_new(list, view_event(s, eventlog_at(&s->events, seq)));
    c->reply->json = json_pack("{s:o, s:o, s:o, s:b}", "events", list, "next_after",
                               view_count(seq - 1 > (uint64_t)after ? seq - 1 : (uint64_t)after),
                               "last_seq", view_count(s->events.last_seq), "evicted",
                               (uint64_t)after + 1 < first && s->events.evicted > 0);
    return 200;
}

static int api_detail(api_call *c)
{
    c->reply->json = view_session_detail(c->s);
    return 200;
}

static int api_modules(api_call *c)
{
    json_t *list = json_array();
    size_t i;

    for (i = 0; i < c->s->module_count; i++) {
        json_t *m = view_module(&c->s->modules[i]);
        json_object_set_new(m, "origin",
                            json_string(origin_name(origin_of_module(c->s, &c->s->modules[i]))));
        json_array_append_new(list, m);
    }
    c->reply->json = json_pack("{s:o}", "modules", list);
    return 200;
}

static int api_threads(api_call *c)
{
    json_t *list = json_array();
    size_t i;

    for (i = 0; i < c->s->thread_count; i++)
        json_array_append_new(list, view_thread(c->s, &c->s->threads[i]));
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
                                   view_session_detail(sessions_get(c->session_id)));
    sessions_unlock();
    return c->reply->json ? 202 : api_fail(c, 404, "no such session");
}

/* GET /api/processes: attachable .NET processes of this user. */
static int api_processes(api_call *c)
{
    proclist procs;
    json_t *list;
    size_t i;

    if (proclist_build(&procs) < 0)
        return api_fail(c, 500, "cannot list processes");
    list = json_array();
    for (i = 0; i < procs.count; i++) {
        const proclist_item *p = &procs.items[i];
        session *s;
        json_t *sid;

        sessions_lock();
        s = sessions_by_pid(p->pid);
        sid = s ? json_integer(s->id) : json_null();
        sessions_unlock();
        json_array_append_new(
            list,
            json_pack("{s:i, s:s, s:s, s:s, s:s, s:o, s:o}", "pid", (int)p->pid, "command_line",
                      p->info_ok ? p->info.command_line : "", "runtime_version",
                      p->info_ok ? p->info.runtime_version : "", "entry_assembly",
                      p->info_ok ? p->info.entrypoint_assembly : "", "error", p->error,
                      "session_id", sid, "container", view_container(&p->container)));
    }
    c->reply->json = json_pack("{s:o, s:b}", "processes", list, "truncated", procs.truncated);
    proclist_free(&procs);
    return 200;
}

/* POST /api/processes/{pid}/attach */
static int api_attach(api_call *c)
{
    attach_result r;

    attach_process((pid_t)c->n, &r);
    if (r.status != 201)
        return api_fail(c, r.status, "%s", r.message);
    sessions_lock();
    c->reply->json = json_pack("{s:o}", "session", view_session_detail(sessions_get(r.session_id)));
    sessions_unlock();
    return 201;
}

/* GET /api/sessions */
static int api_sessions(api_call *c)
{
    json_t *list = json_array();
    size_t i;

    sessions_lock();
    for (i = 0; i < sessions_count(); i++)
        json_array_append_new(list, view_session_summary(sessions_at(i)));
    sessions_unlock();
    c->reply->json = json_pack("{s:o}", "sessions", list);
    return 200;
}

/* DELETE /api/sessions/{id}: an ended session leaves memory and storage. */
static int api_delete(api_call *c)
{
    session *s;

    sessions_lock();
    s = sessions_peek(c->session_id);
    if (!s) {
        sessions_unlock();
        return api_fail(c, 404, "no session %d", c->session_id);
    }
    if (!sessions_may_forget(s)) {
        int status = api_fail(c, 409,
                              "session %d is %s: detach it or let its process end first "
                              "(or it is the root of a run that goes on)",
                              c->session_id, session_state_name(s->state));
        sessions_unlock();
        return status;
    }
    sessions_remove(c->session_id);
    sessions_unlock();
    persist_forget(c->session_id);
    sessions_notify(c->session_id);
    c->reply->json = json_pack("{s:i, s:b}", "deleted", c->session_id, "stored", persist_enabled());
    return 200;
}

/* What storage is doing (--data), for the dashboard and scripts. */
static json_t *api_storage_status(void)
{
    store_stats st;

    store_get_stats(&st);
    if (!st.enabled)
        return json_pack("{s:b}", "enabled", 0);
    return json_pack(
        "{s:b, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s?, s:o}", "enabled",
        1, "path", st.path, "sessions_stored", view_count(st.sessions_stored), "backlog_bytes",
        view_count(st.backlog), "lost_bytes", view_count(st.lost), "write_errors",
        view_count(st.write_errors), "rounds", view_count(st.rounds), "commits",
        view_count(st.commits), "chunks", view_count(st.chunks), "snapshots",
        view_count(st.snapshots), "bytes_logged", view_count(st.bytes_logged), "bytes_written",
        view_count(st.bytes_written), "last_commit_ms", view_ms(st.last_commit_ns), "last_error",
        st.last_error[0] ? st.last_error : NULL, "last_error_ms", view_ms(st.last_error_ns));
}

/* GET /api/config */
static int api_config(api_call *c)
{
    json_t *memory;

    sessions_lock();
    memory = json_pack("{s:I, s:I, s:I, s:I}", "max", (json_int_t)budget_max(), "held",
                       (json_int_t)budget_held(), "connected_sessions", (json_int_t)budget_live(),
                       "share", (json_int_t)budget_share());
    sessions_unlock();
    c->reply->json = json_pack("{s:s, s:i, s:b, s:I, s:o, s:o}", "version", JITSCOPE_VERSION,
                               "ws_port", api_ws_port, "api_key_required", api_key_required,
                               "event_log_capacity", (json_int_t)EVENTLOG_MAX, "storage",
                               api_storage_status(), "memory", memory);
    if (c->reply->json) /* CPU profiles: what this machine allows the server's user */
        json_object_set_new(c->reply->json, "cpu_profiling", api_cpu_probe_json(0));
    return 200;
}

/* GET /api/openapi.json: the OpenAPI 3.1 description of this API (openapi_doc.h). */
static int api_openapi(api_call *c)
{
    size_t length;
    const char *doc = openapi_document(&length);

    if (!(c->reply->text = malloc(length)))
        return api_fail(c, 503, "out of memory");
    memcpy(c->reply->text, doc, length);
    c->reply->text_length = length;
    c->reply->content_type = "application/json";
    return 200;
}

/* The REST routes, one row each (docs/API.md); the pattern syntax and
 * API_LOCKED are described in api_route.h. Adding a route is adding a row. */
static const api_route api_routes[] = {
    {"GET", "/api/config", api_config, 0, NULL},
    {"GET", "/api/openapi.json", api_openapi, 0, NULL},
    {"GET", "/api/processes", api_processes, 0, NULL},
    {"GET", "/api/diagnostic-port", api_diagnostic_port, 0, NULL},
    {"POST", "/api/processes/{pid}/attach", api_attach, 0, NULL},
    {"GET", "/api/sessions", api_sessions, 0, NULL},
    {"GET", "/api/sessions/{id}", api_detail, API_LOCKED, NULL},
    {"DELETE", "/api/sessions/{id}", api_delete, 0, NULL},
    {"GET", "/api/compare", api_compare, 0, NULL},
    {"GET", "/api/sessions/{id}/functions", api_functions_list, 0, "functions"},
    {"GET", "/api/sessions/{id}/functions/{fid}", api_function, API_LOCKED, NULL},
    {"GET", "/api/sessions/{id}/functions/{fid}/code", api_code_get, 0, NULL},
    {"GET", "/api/sessions/{id}/functions/{fid}/source", api_source_get, 0, NULL},
    {"GET", "/api/sessions/{id}/functions/{fid}/inlining", api_inlining_get, API_LOCKED, NULL},
    {"GET", "/api/sessions/{id}/startup", api_startup_get, 0, NULL},
    {"GET", "/api/sessions/{id}/report", api_report_get, 0, NULL},
    {"GET", "/api/sessions/{id}/modules", api_modules, API_LOCKED, "modules"},
    {"GET", "/api/sessions/{id}/modules/totals", api_module_totals, 0, NULL},
    {"GET", "/api/sessions/{id}/threads", api_threads, API_LOCKED, "threads"},
    {"GET", "/api/sessions/{id}/events", api_events, API_LOCKED, "events"},
    {"POST", "/api/sessions/{id}/detach", api_detach, 0, NULL},
    {"POST", "/api/sessions/{id}/stacks", api_stacks_post, 0, NULL},
    {"GET", "/api/sessions/{id}/stacks", api_stacks_list, API_LOCKED, NULL},
    {"GET", "/api/sessions/{id}/stacks/{n}", api_stacks_get, 0, NULL},
    {"POST", "/api/sessions/{id}/profile", api_profile_post, 0, NULL},
    {"GET", "/api/sessions/{id}/profile", api_profile_get, 0, NULL},
    {"POST", "/api/sessions/{id}/profile/stop", api_profile_stop, 0, NULL},
    {"POST", "/api/sessions/{id}/tiers", api_tiers_post, 0, NULL},
    {"GET", "/api/sessions/{id}/timeline", api_timeline_get, 0, NULL},
    {"GET", "/api/sessions/{id}/exceptions", api_exceptions_list, 0, NULL},
    {"GET", "/api/sessions/{id}/exceptions/{n}", api_exceptions_site, 0, NULL},
    {"POST", "/api/sessions/{id}/exceptions", api_exceptions_post, 0, NULL},
    {"GET", "/api/sessions/{id}/allocations", api_allocations_get, 0, NULL},
    {"POST", "/api/sessions/{id}/allocations", api_allocations_post, 0, NULL},
};

const api_route *api_route_table(size_t *count)
{
    *count = sizeof(api_routes) / sizeof(api_routes[0]);
    return api_routes;
}

int api_handle(const api_request *req, api_reply *reply)
{
    const api_route *route;
    const char *message;
    api_route_args args = {0, 0};
    api_call c = {req, reply, 0, 0, NULL};
    int status, format = 0;

    memset(reply, 0, sizeof(*reply));
    status = api_route_find(api_routes, sizeof(api_routes) / sizeof(api_routes[0]), req->method,
                            req->path, &route, &args, &message);
    c.session_id = args.session_id;
    c.n = args.n;
    if (status == 0 && c.session_id && strcmp(req->method, "DELETE") != 0)
        persist_prepare(c.session_id); /* a stored session is read before the lock is taken */
    if (status == 0 && route->export_list && (format = api_export_format(req)) < 0)
        status = api_fail(&c, 400, "format must be csv or json");
    else if (status != 0)
        status = api_fail(&c, status, "%s", message);
    else if (!(route->flags & API_LOCKED)) {
        status = route->handler(&c); /* a list route that locks in steps itself */
        if (status == 200 && format)
            status = api_export(reply, format, c.session_id, route->export_list);
    } else if (!(c.s = api_lock_session(&c)))
        status = 404;
    else {
        status = route->handler(&c);
        if (status == 200 && format)
            status = api_export(reply, format, c.session_id, route->export_list);
        sessions_unlock();
    }
    if (!reply->json && !reply->text) { /* jansson refused something (should not happen): say so */
        reply->json = api_error("internal error building the response");
        status = 500;
    }
    return status;
}
