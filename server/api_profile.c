/* api_profile.c -- the sampling profile routes: POST /profile, POST
 * /profile/stop, GET /profile (json, folded, speedscope, pprof), and the
 * ProfileStatus shape (docs/API.md).
 *
 * Two modes. Wall (the default): the agent suspends the runtime and walks
 * every thread; starting and stopping change the session's profile state
 * under the lock and send the agent its command (WIRE_CMD_PROFILE_START /
 * _STOP) without it. CPU: the server samples the target's threads itself
 * (cpuprof.h); what the machine allows is probed first, and a CPU profile
 * that is not allowed falls back to wall mode with the reason in the status
 * (`fallback`). A GET copies what it asks for out of the profile under the
 * lock (profile_view.h) and builds the body after releasing it
 * (profile_export.h, pprof.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_util.h"
#include "cpuprof.h"
#include "link.h"
#include "pprof.h"
#include "profile_export.h"
#include "profile_shape.h"
#include "profile_view.h"
#include "textbuf.h"

#define API_PROFILE_DEFAULT_HZ 49
#define API_PROFILE_MAX_DURATION_S 86400
#define API_PROFILE_MAX_THREAD_ARG 256 /* bytes of ?thread= */
#define API_PROFILE_MAX_FOCUS_ARG 4096 /* bytes of ?focus= and ?focus_module= */

/* What one GET asks the view to be (beside its threads and time window). */
typedef struct api_profile_shape {
    profile_shape_opts shape;
    profile_tree_opts tree;
    int sandwich; /* view=sandwich: the functions table, and around `focus` its trees */
} api_profile_shape;

/* Reads view=, focus=, focus_module=, fold=, hide= and jitscope_threads=:
 * 0, or the status of the 400 answered. */
static int api_profile_shape_args(api_call *c, api_profile_shape *o, profile_query *q)
{
    const api_request *req = c->req;
    const char *view = req->arg(req->ctx, "view"), *fold = req->arg(req->ctx, "fold");
    const char *hide = req->arg(req->ctx, "hide"), *own = req->arg(req->ctx, "jitscope_threads");
    const char *p;

    memset(o, 0, sizeof(*o));
    if (view && strcmp(view, "inverted") == 0)
        o->tree.inverted = 1;
    else if (view && strcmp(view, "sandwich") == 0)
        o->sandwich = 1;
    else if (view && strcmp(view, "tree") != 0)
        return api_fail(c, 400, "view must be tree, inverted or sandwich");
    o->tree.focus = req->arg(req->ctx, "focus");
    o->tree.focus_module = req->arg(req->ctx, "focus_module");
    if (o->tree.focus && !*o->tree.focus)
        o->tree.focus = NULL;
    if (o->tree.focus_module && !*o->tree.focus_module)
        o->tree.focus_module = NULL;
    if ((o->tree.focus || o->tree.focus_module) && !o->sandwich)
        return api_fail(c, 400, "focus and focus_module go with view=sandwich");
    if ((o->tree.focus && strlen(o->tree.focus) > API_PROFILE_MAX_FOCUS_ARG) ||
        (o->tree.focus_module && strlen(o->tree.focus_module) > API_PROFILE_MAX_FOCUS_ARG))
        return api_fail(c, 400, "focus is too long (%d bytes at most)", API_PROFILE_MAX_FOCUS_ARG);
    if (o->tree.focus_module && !o->tree.focus)
        return api_fail(c, 400, "focus_module needs focus");
    if (fold && strcmp(fold, "native") == 0)
        o->shape.fold_native = 1;
    else if (fold && *fold && strcmp(fold, "none") != 0)
        return api_fail(c, 400, "fold must be native or none");
    for (p = hide; p && *p;) { /* a comma-separated list */
        size_t n = strcspn(p, ",");
        if (n == 9 && strncmp(p, "unmanaged", n) == 0)
            o->shape.hide_unmanaged = 1;
        else if (n == 4 && strncmp(p, "idle", n) == 0)
            o->shape.hide_idle = 1;
        else if (n)
            return api_fail(c, 400, "hide is a comma-separated list of unmanaged and idle");
        p += n + (p[n] == ',');
    }
    if (own && strcmp(own, "include") == 0)
        q->own_threads = 1;
    else if (own && *own && strcmp(own, "exclude") != 0)
        return api_fail(c, 400, "jitscope_threads must be include or exclude");
    return 0;
}

/* The view's "view": what it shows and what it left out. */
static json_t *api_profile_shape_json(const api_profile_shape *o, const profile_query *q,
                                      const profile_view *v, const profile_shape_counts *counts)
{
    json_t *hide = json_array();

    if (o->shape.hide_unmanaged)
        json_array_append_new(hide, json_string("unmanaged"));
    if (o->shape.hide_idle)
        json_array_append_new(hide, json_string("idle"));
    return json_pack("{s:s, s:s, s:o, s:s, s:I, s:{s:I, s:I}, s:I}", "view",
                     o->sandwich        ? "sandwich"
                     : o->tree.inverted ? "inverted"
                                        : "tree",
                     "fold", o->shape.fold_native ? "native" : "none", "hide", hide,
                     "jitscope_threads", q->own_threads ? "include" : "exclude", "total",
                     (json_int_t)v->total, "kinds", "unmanaged", (json_int_t)counts->unmanaged,
                     "idle", (json_int_t)counts->idle, "jitscope_samples", (json_int_t)v->excluded);
}

/* The body's key as an integer from 1 to max into *out: 0, or the status of
 * the 400 answered. */
static int api_profile_count(api_call *c, const char *key, const json_t *v, uint32_t max,
                             uint32_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > max)
        return api_fail(c, 400, "%s must be an integer from 1 to %u", key, max);
    *out = (uint32_t)json_integer_value(v);
    return 0;
}

/* Reads {"hz": 1..1000, "duration_s": 1..86400, "mode": "wall" | "cpu"} (all
 * optional, nothing else). *cpu: 1 for CPU mode. */
static int api_profile_body(api_call *c, uint32_t *hz, uint32_t *duration_s, int *cpu)
{
    const api_request *req = c->req;
    json_error_t err;
    json_t *body, *v;
    const char *key;
    int status = 0;

    *hz = API_PROFILE_DEFAULT_HZ;
    *duration_s = 0;
    *cpu = 0;
    if (!req->body || req->body_length == 0)
        return 0;
    body = json_loadb(req->body, req->body_length, JSON_REJECT_DUPLICATES, &err);
    if (!json_is_object(body)) {
        json_decref(body);
        return api_fail(c, 400,
                        "the body must be a JSON object like {\"hz\": 49, \"duration_s\": 10, "
                        "\"mode\": \"cpu\"}");
    }
    json_object_foreach(body, key, v)
    {
        if (strcmp(key, "hz") == 0) {
            if ((status = api_profile_count(c, key, v, WIRE_PROFILE_MAX_HZ, hz)) != 0)
                break;
        } else if (strcmp(key, "duration_s") == 0) {
            if (json_is_null(v))
                continue;
            if ((status = api_profile_count(c, key, v, API_PROFILE_MAX_DURATION_S, duration_s)) !=
                0)
                break;
        } else if (strcmp(key, "mode") == 0) {
            if (!json_is_string(v) || (strcmp(json_string_value(v), "wall") != 0 &&
                                       strcmp(json_string_value(v), "cpu") != 0)) {
                status = api_fail(c, 400, "mode must be \"wall\" or \"cpu\"");
                break;
            }
            *cpu = strcmp(json_string_value(v), "cpu") == 0;
        } else {
            status = api_fail(c, 400,
                              "unknown field in the body (hz, duration_s and mode are known)");
            break;
        }
    }
    json_decref(body);
    return status;
}

json_t *api_cpu_probe_json(pid_t pid)
{
    cpuprof_probe_result r;

    cpuprof_probe(pid, &r);
    return json_pack("{s:b, s:b, s:o, s:{s:b, s:b, s:b}, s:o}", "available", r.available, "kernel",
                     r.available && r.kernel, "perf_event_paranoid",
                     r.paranoid == -100 ? json_null() : json_integer(r.paranoid), "capabilities",
                     "perfmon", r.cap_perfmon, "sys_admin", r.cap_sys_admin, "sys_ptrace",
                     r.cap_sys_ptrace, "reason", r.available ? json_null() : json_string(r.reason));
}

/* The answer after s's profile started or stopped (s locked): its status;
 * unlocks and wakes the session's stream clients. */
static int api_profile_changed(api_call *c, session *s, int status)
{
    c->reply->json = json_pack("{s:o}", "profile", view_profile_status(&s->profile));
    sessions_unlock();
    sessions_notify(c->session_id);
    return status;
}

static int api_profile_no_agent(api_call *c, const session *s)
{
    int status = api_fail(c, 409, "session %d is %s: there is no live agent to sample",
                          c->session_id, session_state_name(s->state));
    sessions_unlock();
    return status;
}

/* The session's pid when it is live with an agent and no profile runs;
 * else the reply is set (409, 429) and the lock released. Lock held on 0. */
static int api_profile_may_start(api_call *c, session **out)
{
    session *s;

    if (!(s = api_lock_session(c)))
        return 404;
    if (s->state != SESSION_LIVE || !s->link_id)
        return api_profile_no_agent(c, s);
    if (s->agent_flags & WIRE_AGENT_FLOOR) {
        sessions_unlock();
        return api_fail(c, 409,
                        "session %d's agent is a floor (JITSCOPE_NULL=1): it samples nothing",
                        c->session_id);
    }
    if (s->profile.state == PROFILE_RUNNING) {
        sessions_unlock();
        return api_fail(c, 429, "a profile is already running in session %d: stop it first",
                        c->session_id);
    }
    *out = s;
    return 0;
}

/* CPU mode: the profile starts now and the sampler with it (cpuprof.h). */
static int api_profile_post_cpu(api_call *c, uint32_t hz, uint32_t duration_s, int kernel)
{
    uint32_t run = cpuprof_next_run();
    char why[256];
    session *s;
    pid_t pid;
    int status;

    if ((status = api_profile_may_start(c, &s)) != 0)
        return status;
    pid = s->pid;
    session_profile_start_cpu(s, hz, 1000000000u / hz, run, api_now_ns());
    sessions_unlock();
    if (cpuprof_start(c->session_id, pid, hz, kernel, run, duration_s * 1000u, why, sizeof(why)) !=
        0) {
        if ((s = api_lock_session(c)) != NULL) {
            if (s->profile.mode == PROFILE_MODE_CPU && s->profile.cpu.run == run) {
                snprintf(s->profile.cpu.error, sizeof(s->profile.cpu.error), "%s", why);
                session_profile_stop(s, api_now_ns());
            }
            sessions_unlock();
        }
        return api_fail(c, 503, "could not start the CPU sampler: %s", why);
    }
    if (!(s = api_lock_session(c)))
        return 404;
    return api_profile_changed(c, s, 202);
}

int api_profile_post(api_call *c)
{
    wire_cmd_profile_start cmd = {0};
    cpuprof_probe_result probe = {0};
    uint32_t hz, duration_s;
    session *s;
    pid_t pid;
    int link_id, status, cpu;

    if ((status = api_profile_body(c, &hz, &duration_s, &cpu)) != 0)
        return status;
    if (cpu) { /* what the machine allows for this process, asked without the lock */
        if ((status = api_profile_may_start(c, &s)) != 0)
            return status;
        pid = s->pid;
        sessions_unlock();
        cpuprof_probe(pid, &probe);
        if (probe.available)
            return api_profile_post_cpu(c, hz, duration_s, probe.kernel);
    }
    if ((status = api_profile_may_start(c, &s)) != 0)
        return status;
    session_profile_start(s, hz, api_now_ns()); /* the previous profile goes */
    if (cpu)
        snprintf(s->profile.fallback, sizeof(s->profile.fallback),
                 "CPU mode is not available: %s. Sampling wall clock instead.", probe.reason);
    link_id = s->link_id;
    sessions_unlock();

    cmd.hz = hz;
    cmd.duration_ms = duration_s * 1000u;
    status = link_send(link_id, WIRE_CMD_PROFILE_START, &cmd, sizeof(cmd)) == 0 ? 202 : 502;
    if (!(s = api_lock_session(c)))
        return 404;
    if (status != 202) {
        session_profile_stop(s, api_now_ns());
        sessions_unlock();
        return api_fail(c, 502, "could not send the profile command to the agent");
    }
    return api_profile_changed(c, s, 202);
}

int api_profile_stop(api_call *c)
{
    wire_cmd_profile_stop cmd = {0};
    session *s;
    int link_id;

    if (!(s = api_lock_session(c)))
        return 404;
    if (s->profile.state != PROFILE_RUNNING) {
        int status = api_fail(c, 409, "no profile is running in session %d", c->session_id);
        sessions_unlock();
        return status;
    }
    if (s->profile.mode == PROFILE_MODE_CPU) { /* the server's own sampler: no agent needed */
        session_profile_stop(s, api_now_ns());
        return api_profile_changed(c, s, 200);
    }
    if (s->state != SESSION_LIVE || !s->link_id)
        return api_profile_no_agent(c, s);
    link_id = s->link_id;
    sessions_unlock();
    if (link_send(link_id, WIRE_CMD_PROFILE_STOP, &cmd, sizeof(cmd)) != 0)
        return api_fail(c, 502, "could not send the stop command to the agent");
    if (!(s = api_lock_session(c)))
        return 404;
    session_profile_stop(s, api_now_ns());
    return api_profile_changed(c, s, 200);
}

/* Whether a CPU profile could start in this session now: the probe for its
 * process when it is live, else why not. */
static json_t *api_profile_cpu_mode(int live, pid_t pid)
{
    if (!live)
        return json_pack("{s:b, s:b, s:n, s:{s:b, s:b, s:b}, s:s}", "available", 0, "kernel", 0,
                         "perf_event_paranoid", "capabilities", "perfmon", 0, "sys_admin", 0,
                         "sys_ptrace", 0, "reason", "the session has no live process to sample");
    return api_cpu_probe_json(pid);
}

int api_profile_get(api_call *c)
{
    const api_request *req = c->req;
    const char *format = req->arg(req->ctx, "format"), *why = NULL;
    profile_query q = {0};
    api_profile_shape shape;
    profile_shape_counts counts;
    profile_view v;
    json_t *status;
    session *s;
    int rc, kind, live, mode;
    pid_t pid;
    int64_t started_ns, stopped_ns;
    uint64_t period_ns;

    long long key, lines;

    q.thread = req->arg(req->ctx, "thread");
    if (api_arg_int(req, "thread_key", 0, SESSION_MAX_THREADS - 1, -1, &key) != 0)
        return api_fail(c, 400, "thread_key must be a thread's key (0..%u)",
                        SESSION_MAX_THREADS - 1);
    q.thread_row = (uint32_t)(key + 1); /* 0: every thread */
    if (!format || strcmp(format, "json") == 0)
        kind = 0;
    else if (strcmp(format, "folded") == 0)
        kind = 1;
    else if (strcmp(format, "speedscope") == 0)
        kind = 2;
    else if (strcmp(format, "pprof") == 0)
        kind = 3;
    else
        return api_fail(c, 400, "format must be json, folded, speedscope or pprof");
    if (q.thread && strlen(q.thread) > API_PROFILE_MAX_THREAD_ARG)
        return api_fail(c, 400, "thread is too long (%d bytes at most)",
                        API_PROFILE_MAX_THREAD_ARG);
    if (api_arg_ms(req, "from_ms", 0, &q.from_ns) != 0 ||
        api_arg_ms(req, "to_ms", INT64_MAX, &q.to_ns) != 0 || q.from_ns > q.to_ns)
        return api_fail(c, 400, "from_ms and to_ms must be Unix milliseconds, from_ms <= to_ms");
    if ((rc = api_profile_shape_args(c, &shape, &q)) != 0)
        return rc;
    if (kind != 0 && (shape.sandwich || shape.tree.inverted))
        return api_fail(c, 400, "view=%s is a view of the JSON format only",
                        shape.sandwich ? "sandwich" : "inverted");
    q.with_samples = kind == 2 || kind == 3;
    if (api_arg_int(req, "lines", 0, 2, kind == 3 ? 2 : kind == 2 ? 1 : 0, &lines) != 0)
        return api_fail(c, 400,
                        "lines must be 0 (none), 1 (each method's file) or 2 (frames "
                        "split by line)");
    q.by_address = lines == 2;
    if (!(s = api_lock_session(c)))
        return 404;
    status = view_profile_status(&s->profile);
    rc = profile_view_take(&v, s, &q);
    live = s->state == SESSION_LIVE && s->link_id;
    pid = s->pid;
    mode = s->profile.mode;
    period_ns = s->profile.cpu.counts.period_ns;
    started_ns = s->profile.started_ns;
    stopped_ns = s->profile.stopped_ns;
    if (rc != 0 || !lines) {
        sessions_unlock();
    } else if (api_lines_view(c, &v, (int)lines) != 0) { /* releases the lock */
        profile_view_free(&v);
        rc = -1;
    }
    if (rc != 0 || profile_shape_apply(&v, &shape.shape, &counts) != 0) {
        json_decref(status);
        if (rc == 0)
            profile_view_free(&v);
        return api_fail(c, 503, "out of memory copying the profile");
    }
    if (kind != 0)
        profile_shape_drop_folded(&v); /* the exports name the frames they keep only */
    if (kind == 0) {
        c->reply->json = json_pack("{s:o, s:o, s:o}", "profile", status, "cpu_mode",
                                   api_profile_cpu_mode(live, pid), "view",
                                   api_profile_shape_json(&shape, &q, &v, &counts));
        if (shape.sandwich)
            rc = profile_tree_functions(&v, c->reply->json, &why);
        if (rc == 0) /* a sandwich without its method yet: the table only */
            rc = profile_export_json(&v, shape.sandwich && !shape.tree.focus ? NULL : &shape.tree,
                                     c->reply->json, &why);
    } else if (kind == 1) {
        textbuf out;
        json_decref(status);
        textbuf_init(&out, API_MAX_OUTPUT);
        rc = profile_export_folded(&v, &out, &why);
        if (rc == 0) {
            c->reply->text = textbuf_take(&out, &c->reply->text_length);
            c->reply->content_type = "text/plain; charset=utf-8";
            rc = c->reply->text ? 0 : -1;
        }
        textbuf_free(&out);
    } else if (kind == 2) {
        char name[64];
        json_decref(status);
        snprintf(name, sizeof(name), "jitscope session %d", c->session_id);
        c->reply->json = profile_export_speedscope(&v, name, API_MAX_OUTPUT, &why);
        rc = c->reply->json ? 0 : -1;
        snprintf(c->reply->disposition, sizeof(c->reply->disposition),
                 "attachment; filename=\"jitscope-session-%d.speedscope.json\"", c->session_id);
    } else {
        pprof_options o = {.cpu = mode == PROFILE_MODE_CPU,
                           .period_ns = period_ns,
                           .time_ns = started_ns,
                           .duration_ns = stopped_ns > started_ns ? stopped_ns - started_ns : 0};
        json_decref(status);
        rc = pprof_export(&v, &o, API_MAX_OUTPUT, (uint8_t **)&c->reply->text,
                          &c->reply->text_length, &why);
        c->reply->content_type = "application/octet-stream";
        snprintf(c->reply->disposition, sizeof(c->reply->disposition),
                 "attachment; filename=\"jitscope-session-%d.pb.gz\"", c->session_id);
    }
    profile_view_free(&v);
    if (rc != 0) {
        c->reply->disposition[0] = '\0';
        c->reply->content_type = NULL;
        return api_fail(c, 503, "%s", why ? why : "out of memory building the profile");
    }
    return 200;
}
