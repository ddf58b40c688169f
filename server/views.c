/* views.c -- the JSON shapes of what a session holds (see views.h). */
#include "views.h"

#include "origin.h"
#include "budget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *view_count(uint64_t v)
{
    return v <= VIEW_EXACT_MAX ? json_integer((json_int_t)v)
                               : json_sprintf("%llu", (unsigned long long)v);
}

json_t *view_signed_count(int64_t v)
{
    uint64_t magnitude = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

    return magnitude <= VIEW_EXACT_MAX ? json_integer((json_int_t)v)
                                       : json_sprintf("%lld", (long long)v);
}

json_t *view_id(uint64_t id)
{
    char text[24];
    snprintf(text, sizeof(text), "0x%llx", (unsigned long long)id);
    return json_string(text);
}

json_t *view_ms(int64_t ns) { return ns ? json_real((double)ns / 1e6) : json_null(); }

json_t *view_str(const char *s) { return s ? json_string(s) : json_null(); }

json_t *view_name_record(const char *record)
{
    char small[512], *big;
    size_t length;
    json_t *j;

    if (!record)
        return json_null();
    length = fnname_copy(record, small, sizeof(small));
    if (length < sizeof(small))
        return json_stringn(small, length);
    if (!(big = fnname_dup(record)))
        return NULL;
    j = json_stringn(big, length);
    free(big);
    return j;
}

json_t *view_function_name(const session_function *f) { return view_name_record(f->name_record); }

json_t *view_hresult(int32_t hr) { return json_sprintf("0x%08x", (unsigned)hr); }

json_t *view_generations(uint32_t bits)
{
    json_t *list = json_array();
    unsigned g;

    for (g = 0; g < 32; g++)
        if (bits & (1u << g))
            json_array_append_new(list, json_integer(g));
    return list;
}

/* A CPU profile's own counters (profile.h, profile_cpu_counts); null in wall mode. */
static json_t *view_profile_cpu(const profile_state *p)
{
    const profile_cpu_counts *c = &p->cpu.counts;

    if (p->mode != PROFILE_MODE_CPU)
        return json_null();
    return json_pack("{s:I, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
                     "period_ns", (json_int_t)c->period_ns, "kernel", !c->kernel_excluded,
                     "samples", (json_int_t)c->samples, "lost", (json_int_t)c->lost, "complete",
                     (json_int_t)c->complete, "broken", (json_int_t)c->broken, "missing",
                     (json_int_t)c->missing, "unresolved", (json_int_t)c->unresolved,
                     "kernel_samples", (json_int_t)c->kernel, "lookups", (json_int_t)c->lookups,
                     "threads", (json_int_t)c->threads, "threads_seen", (json_int_t)c->threads_seen,
                     "threads_failed", (json_int_t)c->threads_failed, "cpu_ns",
                     (json_int_t)(p->sample_count * c->period_ns));
}

/* `mode` says what a profile measures: "wall" (wall clock: each sample
 * suspends the runtime and walks every managed thread, running or waiting) or
 * "cpu" (CPU time: the kernel samples the threads that run, cpuprof.h). */
json_t *view_profile_status(const profile_state *p)
{
    json_t *o = json_pack(
        "{s:s, s:f, s:f, s:f, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o}", "state",
        profile_state_name(p->state), "requested_hz", (double)p->requested_millihz / 1000.0,
        "effective_hz", (double)p->effective_millihz / 1000.0, "budget_pct",
        (double)p->budget_permille / 10.0, "started_ms", view_ms(p->started_ns), "stopped_ms",
        view_ms(p->stopped_ns), "samples", view_count(p->walks), "thread_samples",
        view_count(p->thread_samples), "suspended_ns_total", view_count(p->suspended_ns_total),
        "suspend_ns_p50", view_count(profile_suspend_p50(p)), "suspend_ns_max",
        view_count(p->suspend_ns_max), "distinct_stacks", (json_int_t)p->stack_count,
        "dropped_samples", view_count(p->dropped_samples), "dropped_stacks",
        view_count(p->dropped_stacks));

    if (o)
        json_object_set_new(o, "mode", json_string(profile_mode_name(p->mode)));
    if (o)
        json_object_set_new(o, "error",
                            p->hresult        ? json_sprintf("the agent could not start sampling: "
                                                                    "HRESULT 0x%08x",
                                                             (unsigned)p->hresult)
                            : p->cpu.error[0] ? json_string(p->cpu.error)
                                              : json_null());
    if (o)
        json_object_set_new(o, "fallback", p->fallback[0] ? json_string(p->fallback) : json_null());
    if (o)
        json_object_set_new(o, "cpu", view_profile_cpu(p));
    return o;
}

/* Records lost on the way, every cause (names that could not be read are not
 * records: name_failed and name_late are counted apart). */
static uint64_t view_records_lost(const wire_drops *drops)
{
    const uint64_t *d = drops->dropped;

    return d[WIRE_DROP_RING_FULL] + d[WIRE_DROP_TOO_LARGE] + d[WIRE_DROP_NO_SERVER] +
           d[WIRE_DROP_SLOW_SERVER] + d[WIRE_DROP_SHUTDOWN];
}

/* The launched process's end by a signal: "exit_signal": 9, "exit_signal_name":
 * "SIGKILL" (both null when it exited by itself or is not known to have ended). */
static json_t *view_exit_signal(json_t *o, int exit_signal)
{
    const char *name = exit_signal ? session_signal_name(exit_signal) : NULL;

    if (!o)
        return NULL;
    json_object_set_new(o, "exit_signal", exit_signal ? json_integer(exit_signal) : json_null());
    json_object_set_new(o, "exit_signal_name", name ? json_string(name) : json_null());
    return o;
}

/* Why a session has no exit code (null when it has one). */
static const char *view_exit_code_unknown(const session *s)
{
    if (s->has_exit_code)
        return NULL;
    switch (s->state) {
    case SESSION_STARTING:
    case SESSION_LIVE:
    case SESSION_DISCONNECTED:
    case SESSION_DETACHING: return "still running";
    case SESSION_DETACHED:
        return "the agent left the process, which may still be running: jitscope no longer "
               "watches it";
    case SESSION_INTERRUPTED: return "the server that recorded it stopped before the process ended";
    case SESSION_FAILED: return "it never ran under jitscope";
    case SESSION_EXITED: break;
    }
    if (s->mode == SESSION_MODE_RUN && s->root_id == s->id && s->not_child)
        return "this server took the run back after a restart, so the launched process was not "
               "its child: only a process's parent is told its exit code";
    if (s->mode == SESSION_MODE_RUN && s->root_id == s->id)
        return "the launched process's end was not recorded";
    return "jitscope did not start it, and only a process's parent is told its exit code "
           "(jitscope saw it end through /proc)";
}

/* What the session summary says that its stored list entry may lack, or may
 * say as it was when written: the program, why there is no exit code, a
 * run's build servers outside it. */
static json_t *view_summary_names(json_t *o, const view_summary *v)
{
    json_t *outside;
    uint32_t i;

    if (!o)
        return NULL;
    json_object_set_new(o, "program", json_string(v->program));
    json_object_set_new(o, "container", view_container(&v->container));
    json_object_set_new(o, "diagnostic_port",
                        v->via_port ? json_pack("{s:b}", "suspend", v->port_suspended)
                                    : json_null());
    json_object_set_new(o, "exit_code_unknown", view_str(v->exit_code_unknown));
    outside = json_array();
    for (i = 0; i < v->outside_count && i < SESSION_OUTSIDE_MAX; i++)
        json_array_append_new(outside, json_pack("{s:i, s:s, s:I, s:b}", "pid",
                                                 (int)v->outside[i].pid, "name", v->outside[i].name,
                                                 "cpu_ms", (json_int_t)v->outside[i].cpu_ms,
                                                 "started_before", v->outside[i].started_before));
    json_object_set_new(o, "build_servers_outside", outside);
    return o;
}

int view_text_keep(view_text *text, const char *s, const char **out)
{
    size_t n;

    if (!s || !text) {
        *out = s;
        return 0;
    }
    n = strlen(s) + 1;
    if (text->size - text->used < n)
        return -1;
    memcpy(text->data + text->used, s, n);
    *out = text->data + text->used;
    text->used += n;
    return 0;
}

int view_summary_take(session *s, view_summary *v, view_text *text)
{
    size_t mark = text ? text->used : 0, i;

    memset(v, 0, sizeof(*v));
    if (view_text_keep(text, !s->persist.loaded ? s->persist.summary : NULL, &v->stored) != 0 ||
        view_text_keep(text, s->command_line, &v->command_line) != 0 ||
        view_text_keep(text, s->error, &v->error) != 0) {
        text->used = mark;
        return -1;
    }
    v->id = s->id, v->root_id = s->root_id, v->mode = s->mode;
    v->pid = s->pid, v->parent_pid = s->parent_pid, v->state = s->state;
    v->has_exit_code = s->has_exit_code, v->exit_code = s->exit_code;
    v->exit_signal = s->exit_signal;
    v->created_ns = s->created_ns, v->connected_ns = s->connected_ns, v->ended_ns = s->ended_ns;
    v->runtime_type = s->runtime_type, v->clr_instance_id = s->clr_instance_id;
    v->major = s->major, v->minor = s->minor, v->build = s->build, v->qfe = s->qfe;
    v->functions = s->functions_jitted, v->modules = s->module_count;
    v->threads = s->thread_count;
    for (i = 0; i < s->thread_count; i++)
        v->threads_alive += s->threads[i].alive != 0;
    v->jit_compilations = s->jit_compilations, v->jit_time_total_ns = s->jit_time_total_ns;
    v->events = s->events.last_seq;
    v->drops = s->drops;
    v->refused_inconsistent = s->records_refused;
    v->refused_memory = s->budget.refused_records;
    if (s->program[0])
        snprintf(v->program, sizeof(v->program), "%s", s->program);
    else /* stored by an older server: from the joined command line */
        procname_of_args(s->command_line ? s->command_line : "",
                         s->command_line ? strlen(s->command_line) : 0, ' ', v->program,
                         sizeof(v->program));
    v->exit_code_unknown = view_exit_code_unknown(s); /* a constant string */
    v->outside_count = s->outside_count < SESSION_OUTSIDE_MAX ? s->outside_count
                                                              : SESSION_OUTSIDE_MAX;
    memcpy(v->outside, s->outside, v->outside_count * sizeof(v->outside[0]));
    v->container = s->container;
    v->via_port = s->via_port;
    v->port_suspended = s->mode == SESSION_MODE_PORT;
    return 0;
}

json_t *view_container(const container_facts *c)
{
    if (!c->in_container)
        return json_null();
    return json_pack("{s:o, s:s, s:i, s:b, s:o}", "id", c->id[0] ? json_string(c->id) : json_null(),
                     "hostname", c->hostname, "pid", (int)c->pid, "user_namespace",
                     c->user_namespace, "uid", c->uid >= 0 ? json_integer(c->uid) : json_null());
}

const char *view_mode_name(int mode)
{
    return mode == SESSION_MODE_RUN ? "run" : mode == SESSION_MODE_PORT ? "port" : "attach";
}

json_t *view_summary_json(const view_summary *v)
{
    char version[48];
    json_t *o;

    if (v->stored) {
        /* a stored session not in memory: its list entry as stored */
        o = json_loads(v->stored, 0, NULL);
        if (json_is_object(o) && !json_object_get(o, "refused")) /* stored before it was */
            json_object_set_new(o, "refused",
                                json_pack("{s:o, s:o}", "inconsistent",
                                          view_count(v->refused_inconsistent), "memory",
                                          view_count(v->refused_memory)));
        if (json_is_object(o))
            return view_summary_names(o, v); /* its header read back has them */
        json_decref(o);
    }
    /* the product version ("8.0.31"), as ProcessInfo and `dotnet --list-runtimes` spell
     * it: the runtime reports its patch as the build number and 0 as the QFE */
    if (v->qfe)
        snprintf(version, sizeof(version), "%u.%u.%u.%u", v->major, v->minor, v->build, v->qfe);
    else
        snprintf(version, sizeof(version), "%u.%u.%u", v->major, v->minor, v->build);
    o = json_pack(
        "{s:i, s:i, s:i, s:i, s:s, s:s, s:s, s:o, s:s, s:o, s:o, s:o, s:{s:s, s:s, s:i}, "
        "s:{s:I, s:I, s:I, s:I, s:o, s:o, s:o}, s:{s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
        "s:o, s:o}, s:{s:o, s:o}}",
        "id", v->id, "root_id", v->root_id, "pid", (int)v->pid, "parent_pid", (int)v->parent_pid,
        "mode", view_mode_name(v->mode), "state", session_state_name(v->state), "command_line",
        v->command_line, "exit_code", v->has_exit_code ? json_integer(v->exit_code) : json_null(),
        "error", v->error, "created_ms", view_ms(v->created_ns), "connected_ms",
        view_ms(v->connected_ns), "ended_ms", view_ms(v->ended_ns), "runtime", "type",
        v->runtime_type == 2 ? "CoreCLR"
        : v->runtime_type    ? "other"
                             : "unknown",
        "version", v->connected_ns ? version : "", "clr_instance_id", (int)v->clr_instance_id,
        "counters", "functions", (json_int_t)v->functions, "modules", (json_int_t)v->modules,
        "threads", (json_int_t)v->threads, "threads_alive", (json_int_t)v->threads_alive,
        "jit_compilations", view_count(v->jit_compilations), "jit_time_total_ns",
        view_count(v->jit_time_total_ns), "events", view_count(v->events), "drops", "ring_full",
        view_count(v->drops.dropped[WIRE_DROP_RING_FULL]), "too_large",
        view_count(v->drops.dropped[WIRE_DROP_TOO_LARGE]), "no_server",
        view_count(v->drops.dropped[WIRE_DROP_NO_SERVER]), "name_failed",
        view_count(v->drops.dropped[WIRE_DROP_NAME_FAILED]), "slow_server",
        view_count(v->drops.dropped[WIRE_DROP_SLOW_SERVER]), "name_late",
        view_count(v->drops.dropped[WIRE_DROP_NAME_LATE]), "shutdown",
        view_count(v->drops.dropped[WIRE_DROP_SHUTDOWN]), "total",
        view_count(view_records_lost(&v->drops)), "produced", view_count(v->drops.produced),
        "refused", "inconsistent", view_count(v->refused_inconsistent), "memory",
        view_count(v->refused_memory));
    return view_summary_names(view_exit_signal(o, v->exit_signal), v);
}

json_t *view_session_summary(session *s)
{
    view_summary v;

    view_summary_take(s, &v, NULL); /* pointing into s: cannot fail */
    return view_summary_json(&v);
}

/* Lower bound of cost bucket i, in ns (wire.h: WIRE_AGENT_COST). */
static double view_cost_bucket_low(unsigned i)
{
    return i < WIRE_COST_LINEAR ? (double)i * WIRE_COST_STEP_NS
                                : (double)(WIRE_COST_LINEAR * WIRE_COST_STEP_NS) *
                                      (double)(1ull << (i - WIRE_COST_LINEAR));
}

/* The q-quantile of the agent's cost histogram, interpolated in its bucket. */
static double view_cost_quantile(const wire_agent_cost *c, double q)
{
    uint64_t total = 0, seen = 0;
    unsigned i;

    for (i = 0; i < WIRE_COST_BUCKETS; i++)
        total += c->buckets[i];
    if (total == 0)
        return 0;
    for (i = 0; i < WIRE_COST_BUCKETS; i++) {
        double low = view_cost_bucket_low(i), high = view_cost_bucket_low(i + 1);
        if (c->buckets[i] && (double)(seen + c->buckets[i]) >= q * (double)total)
            return low +
                   (high - low) * ((q * (double)total - (double)seen) / (double)c->buckets[i]);
        seen += c->buckets[i];
    }
    return view_cost_bucket_low(WIRE_COST_BUCKETS);
}

json_t *view_agent_cost(const wire_agent_cost *c)
{
    json_t *buckets = json_array();
    unsigned i;

    for (i = 0; i < WIRE_COST_BUCKETS; i++)
        json_array_append_new(buckets, view_count(c->buckets[i]));
    return json_pack("{s:o, s:f, s:f, s:f, s:o, s:{s:o, s:o}}", "jit_callbacks",
                     view_count(c->callbacks), "mean_ns",
                     c->callbacks ? (double)c->total_ns / (double)c->callbacks : 0.0, "p50_ns",
                     view_cost_quantile(c, 0.5), "p99_ns", view_cost_quantile(c, 0.99), "buckets",
                     buckets, "metadata", "direct_modules", view_count(c->metadata_direct_modules),
                     "importer_opens", view_count(c->metadata_importer_opens));
}

/* What the session holds, in bytes (session_memory in session.h). */
static json_t *view_session_memory(const session *s)
{
    session_memory m;
    json_t *o;

    session_memory_usage(s, &m);
    o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:{s:o, s:o, s:o, s:o, "
                  "s:o, s:o}}",
                  "functions", (json_int_t)m.functions, "functions_reserved",
                  (json_int_t)m.functions_reserved, "function_index", (json_int_t)m.function_index,
                  "compilations", (json_int_t)m.compilations, "names", (json_int_t)m.names,
                  "name_text", (json_int_t)s->names.text_bytes, "events", (json_int_t)m.events,
                  "function_bytes",
                  (json_int_t)(m.functions + m.function_index + m.compilations + m.name_signatures),
                  "held", (json_int_t)s->budget.held, "unwritten",
                  (json_int_t)(s->budget.unwritten + s->budget.unlogged), "share",
                  s->budget.connected ? json_integer((json_int_t)budget_share()) : json_null(),
                  "refused", "functions", view_count(s->budget.refused[SESSION_REFUSED_FUNCTIONS]),
                  "names", view_count(s->budget.refused[SESSION_REFUSED_NAMES]), "modules",
                  view_count(s->budget.refused[SESSION_REFUSED_MODULES]), "threads",
                  view_count(s->budget.refused[SESSION_REFUSED_THREADS]), "events",
                  view_count(s->budget.refused[SESSION_REFUSED_EVENTS]), "other",
                  view_count(s->budget.refused[SESSION_REFUSED_OTHER]));
    if (o) {
        json_object_set_new(o, "code_ranges", json_integer((json_int_t)m.code_ranges));
        json_object_set_new(o, "name_signatures", json_integer((json_int_t)m.name_signatures));
    }
    return o;
}

/* What the last read back of a stored session could not read (null: all of it). */
static json_t *view_load_report(const session *s)
{
    const session_load_report *r = &s->persist.load_report;

    if (!r->failed)
        return json_null();
    return json_pack("{s:I, s:I, s:I, s:o, s:o, s:o, s:o}", "snapshot_parts", (json_int_t)r->parts,
                     "snapshot_parts_read", (json_int_t)r->parts_read, "snapshot_parts_damaged",
                     (json_int_t)r->parts_damaged, "log_chunks", view_count(r->chunks),
                     "log_chunks_read", view_count(r->chunks_read), "log_chunks_damaged",
                     view_count(r->chunks_damaged), "bytes_not_read", view_count(r->bytes_unread));
}

/* What the agent said of itself in its hello: a floor (null agent), and the
 * event masks the runtime held for it (null until an agent said them). */
static json_t *view_agent(const session *s)
{
    int known = s->event_mask || s->event_mask_high;

    return json_pack("{s:b, s:o, s:o}", "floor", (s->agent_flags & WIRE_AGENT_FLOOR) != 0,
                     "event_mask", known ? json_integer(s->event_mask) : json_null(),
                     "event_mask_high", known ? json_integer(s->event_mask_high) : json_null());
}

json_t *view_session_detail(session *s)
{
    json_t *o = view_session_summary(s);
    int64_t took = s->detach_finished_ns && s->detach_requested_ns
                       ? s->detach_finished_ns - s->detach_requested_ns
                       : 0;

    json_object_set_new(
        o, "link",
        json_pack("{s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:b, s:o, s:s?}", "records",
                  view_count(s->records), "bytes", view_count(s->bytes), "seq_gaps",
                  view_count(s->seq_gaps), "connections", view_count(s->connections), "ring_bytes",
                  (json_int_t)s->ring_bytes, "ring_used", view_count(s->drops.ring_used),
                  "server_capacity_drops", view_count(s->capacity_drops), "connected",
                  s->link_id != 0, "records_refused", view_count(s->records_refused),
                  "last_refused", s->refused_why));
    json_object_set_new(o, "catchup",
                        json_pack("{s:o, s:i, s:i, s:i, s:f, s:I}", "count",
                                  view_count(s->catchups), "modules", (int)s->last_catchup.modules,
                                  "functions", (int)s->last_catchup.functions, "threads",
                                  (int)s->last_catchup.threads, "duration_ms",
                                  (double)s->last_catchup.duration_ns / 1e6, "quiet_ms",
                                  (json_int_t)s->last_catchup.quiet_ms));
    json_object_set_new(
        o, "detach",
        json_pack("{s:o, s:o, s:o, s:o}", "requested_ms", view_ms(s->detach_requested_ns),
                  "finished_ms", view_ms(s->detach_finished_ns), "duration_ms",
                  took ? json_real((double)took / 1e6) : json_null(), "hresult",
                  s->detach_hresult ? view_hresult(s->detach_hresult) : json_null()));
    json_object_set_new(o, "events_evicted", view_count(s->events.evicted));
    /* read back from storage (a run from before this server started): read-only */
    json_object_set_new(
        o, "stored",
        json_pack("{s:b, s:s?, s:o, s:I, s:o}", "past", s->persist.past, "load_error",
                  s->persist.load_error[0] ? s->persist.load_error : NULL, "load_report",
                  view_load_report(s), "resumes", (json_int_t)s->resumes, "last_gap_ms",
                  s->resumes ? json_real((double)s->last_resume.gap_ns / 1e6) : json_null()));
    json_object_set_new(o, "profile", view_profile_status(&s->profile));
    json_object_set_new(o, "stacks",
                        json_pack("{s:I}", "snapshots", (json_int_t)s->stacks.kept_count));
    json_object_set_new(o, "agent_cost", view_agent_cost(&s->agent_cost));
    json_object_set_new(o, "tiers", view_tier_totals(s));
    json_object_set_new(o, "tier_source", view_tier_source(s));
    json_object_set_new(o, "agent", view_agent(s));
    json_object_set_new(
        o, "code",
        json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:I}", "inline_records",
                  (json_int_t)s->code.inline_records, "inlines_dropped",
                  (json_int_t)s->code.inlines_dropped, "ready_to_run_searches",
                  (json_int_t)s->code.r2r_searches, "ready_to_run_used",
                  (json_int_t)s->code.r2r_found, "replies", (json_int_t)s->code.replies_done,
                  "replies_refused", (json_int_t)s->code.replies_refused, "replies_incomplete",
                  (json_int_t)s->code.replies_broken, "agent_refused",
                  view_count(s->code.agent_refused), "versions_seen",
                  (json_int_t)s->code.seen_count, "memory", (json_int_t)code_memory(&s->code)));
    json_object_set_new(o, "memory", view_session_memory(s));
    return o;
}

/* A function's live compilations in order: its tier history. */
static json_t *view_compilations(const session_function *f)
{
    json_t *list = json_array();
    uint32_t i;

    for (i = 0; i < f->compilation_count; i++) {
        const session_compilation c = session_function_compilation(f, i);
        json_array_append_new(list,
                              json_pack("{s:s, s:o, s:I, s:o}", "tier", session_tier_name(c.tier),
                                        "time_ms", view_ms(c.time_ns), "native_size",
                                        (json_int_t)c.native_size, "jit_ns", view_count(c.jit_ns)));
    }
    return list;
}

/* Live compilations and their JIT time per tier (tiers never seen are left out). */
json_t *view_tier_totals(const session *s)
{
    json_t *o = json_object();
    uint32_t t;

    for (t = 0; t < WIRE_TIER_COUNT; t++)
        if (s->tier_compilations[t])
            json_object_set_new(o, session_tier_name(t),
                                json_pack("{s:o, s:o}", "compilations",
                                          view_count(s->tier_compilations[t]), "jit_ns",
                                          view_count(s->tier_jit_ns[t])));
    return o;
}

json_t *view_tier_source(const session *s)
{
    return json_pack("{s:o, s:o, s:o, s:o}", "enabled",
                     s->tiers_known ? json_boolean(s->tiers.enabled) : json_null(), "error",
                     s->tiers.hresult ? view_hresult(s->tiers.hresult) : json_null(), "lost",
                     view_count(s->tiers.lost), "ended_by_runtime_ms", view_ms(s->tiers_ended_ns));
}

/* A thread row (position + 1) as the API names it: thread_key (its position,
 * stable for the session's life and in storage) and its ThreadID; null when
 * unknown. */
static json_t *view_thread_key(uint32_t row)
{
    return row ? json_integer((json_int_t)row - 1) : json_null();
}

static json_t *view_thread_id(session *s, uint32_t row)
{
    const session_thread *t = session_thread_row(s, row);
    return t && t->thread_id ? view_id(t->thread_id) : json_null();
}

/* Where a thread's name came from: the runtime (Thread.Name), the OS (the
 * runtime's own threads; 15 bytes at most), or null without a name. */
static json_t *view_thread_name_source(const session_thread *t)
{
    if (!t->name)
        return json_null();
    return json_string(t->flags & SESSION_THREAD_OS_NAME ? "os" : "runtime");
}

json_t *view_function(session *s, const session_function *f)
{
    json_t *o = json_pack(
        "{s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:o, s:o, s:i, s:o, s:o, s:o, s:b, s:b, "
        "s:s, s:o, s:I}",
        "function_id", view_id(f->function_id), "name", view_function_name(f), "module_id",
        view_id(f->module_id), "module", view_str(session_module_name(s, f->module_id)), "token",
        f->token ? json_sprintf("0x%08x", f->token) : json_null(), "il_size",
        (json_int_t)f->il_size, "native_size", (json_int_t)f->native_size, "versions",
        (json_int_t)f->versions, "jit_count", (json_int_t)f->jit_count, "jit_ns",
        view_count(session_function_last_jit_time(f)), "jit_total_ns",
        view_count(f->jit_time_total_ns), "hresult", (int)f->hresult, "first_jit_ms",
        view_ms(f->first_jit_ns), "last_jit_ms", view_ms(session_function_last_jit_ns(f)),
        "thread_id", view_thread_id(s, f->thread_row), "catchup",
        (f->flags & WIRE_FLAG_CATCHUP) != 0, "dynamic", (f->flags & WIRE_FLAG_DYNAMIC) != 0, "tier",
        session_tier_name(f->tier), "tiers", view_compilations(f), "tiers_unkept",
        (json_int_t)session_function_unkept(f));
    json_object_set_new(o, "thread_key", view_thread_key(f->thread_row));
    json_object_set_new(o, "function_key", json_integer((json_int_t)(f - s->functions)));
    json_object_set_new(o, "origin", json_string(origin_name(origin_of_function(s, f))));
    return o;
}

json_t *view_module(const session_module *m)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:b}", "module_id",
                     view_id(m->module_id), "assembly_id", view_id(m->assembly_id), "path",
                     view_str(m->path), "assembly", view_str(m->assembly), "base_address",
                     view_id(m->base_address), "loaded_ms", view_ms(m->loaded_ns), "unloaded_ms",
                     view_ms(m->unloaded_ns), "loaded", m->unloaded_ns == 0, "catchup",
                     (m->flags & WIRE_FLAG_CATCHUP) != 0);
}

json_t *view_thread(const session *s, const session_thread *t)
{
    return json_pack("{s:I, s:o, s:I, s:o, s:o, s:b, s:o, s:o, s:b}", "thread_key",
                     (json_int_t)(session_thread_row_of(s, t) - 1), "thread_id",
                     view_id(t->thread_id), "os_thread_id", (json_int_t)t->os_thread_id, "name",
                     view_str(t->name), "name_source", view_thread_name_source(t), "alive",
                     t->alive != 0, "created_ms", view_ms(t->created_ns), "ended_ms",
                     view_ms(t->ended_ns), "catchup", (t->flags & WIRE_FLAG_CATCHUP) != 0);
}

/* ---- each record kind's event view (record_kinds.c's rows point here) ---- */

void view_event_jit_take(session *s, const eventlog_entry *e, view_event_copy *c,
                         view_event_names *n)
{
    /* by position: a dynamic method's FunctionID names a later method once reused */
    session_function *f = e->function_row && e->function_row <= s->function_count &&
                                  s->functions[e->function_row - 1].function_id == e->id
                              ? &s->functions[e->function_row - 1]
                              : session_find_function(s, e->id);
    const session_thread *t;

    c->origin = f ? origin_of_function(s, f) : ORIGIN_UNKNOWN;
    if (!f)
        return;
    t = session_thread_row(s, f->thread_row);
    n->record = f->name_record;
    n->module = session_module_name(s, f->module_id);
    c->thread_id = t ? t->thread_id : 0;
    c->thread_row = f->thread_row;
    c->il_size = f->il_size;
    c->versions = f->versions;
    c->function_row = (uint32_t)(f - s->functions) + 1;
}

void view_event_module_take(session *s, const eventlog_entry *e, view_event_copy *c,
                            view_event_names *n)
{
    session_module *m = session_find_module(s, e->id);

    (void)c;
    n->module = m ? m->path : NULL;
    n->assembly = m ? m->assembly : NULL;
}

void view_event_thread_take(session *s, const eventlog_entry *e, view_event_copy *c,
                            view_event_names *n)
{
    /* events stored before rows were logged name the ID's newest row */
    session_thread *t = e->extra ? session_thread_row(s, e->extra) : session_find_thread(s, e->id);

    n->name = t ? t->name : NULL;
    c->thread_row = t ? session_thread_row_of(s, t) : 0;
}

void view_event_jit_fields(json_t *o, const view_event_copy *c, const profile_state *profile)
{
    const eventlog_entry *e = &c->e;

    (void)profile;
    json_object_set_new(o, "function_id", view_id(e->id));
    json_object_set_new(o, "function_key",
                        c->function_row ? json_integer((json_int_t)c->function_row - 1)
                                        : json_null());
    json_object_set_new(o, "name",
                        c->name_record ? view_name_record(c->name_record) : view_str(c->name));
    json_object_set_new(o, "module", view_str(c->module));
    json_object_set_new(o, "jit_ns", view_count(e->value));
    json_object_set_new(o, "native_size", json_integer(e->extra));
    json_object_set_new(o, "il_size", json_integer(c->il_size));
    json_object_set_new(o, "versions", json_integer(c->versions));
    json_object_set_new(o, "thread_id", c->thread_id ? view_id(c->thread_id) : json_null());
    json_object_set_new(o, "thread_key", view_thread_key(c->thread_row));
    json_object_set_new(o, "dynamic", json_boolean(e->flags & WIRE_FLAG_DYNAMIC));
    json_object_set_new(o, "tier", json_string(session_tier_name(e->tier)));
    json_object_set_new(o, "origin", json_string(origin_name(c->origin)));
}

void view_event_module_fields(json_t *o, const view_event_copy *c, const profile_state *profile)
{
    (void)profile;
    json_object_update_new(o, json_pack("{s:o, s:o, s:o}", "module_id", view_id(c->e.id), "path",
                                        view_str(c->module), "assembly", view_str(c->assembly)));
}

void view_event_assembly_fields(json_t *o, const view_event_copy *c, const profile_state *profile)
{
    (void)profile;
    json_object_set_new(o, "assembly_id", view_id(c->e.id));
    json_object_set_new(o, "module_id", view_id(c->e.value));
}

void view_event_thread_fields(json_t *o, const view_event_copy *c, const profile_state *profile)
{
    (void)profile;
    json_object_set_new(o, "thread_id", view_id(c->e.id));
    json_object_set_new(o, "thread_key", view_thread_key(c->thread_row));
    json_object_set_new(o, "os_thread_id", view_count(c->e.value));
    json_object_set_new(o, "name", view_str(c->name));
}

void view_event_catchup_fields(json_t *o, const view_event_copy *c, const profile_state *profile)
{
    (void)profile;
    json_object_set_new(o, "functions", json_integer(c->e.extra));
    json_object_set_new(o, "duration_ms", json_real((double)c->e.value / 1e6));
}

void view_event_detach_fields(json_t *o, const view_event_copy *c, const profile_state *profile)
{
    (void)profile;
    json_object_set_new(o, "state", json_integer(c->e.extra));
    json_object_set_new(o, "hresult", view_hresult((int32_t)c->e.value));
}

/* EXCEPTION: id is its site's number, value the throwing FunctionID, extra
 * the site's count with it; the method's name (as `name`) and the site's type
 * (carried as `module`) are copied. */
void view_event_exception_take(session *s, const eventlog_entry *e, view_event_copy *c,
                               view_event_names *n)
{
    const exc_site *site = s->exceptions ? exc_site_at(s->exceptions, e->id) : NULL;
    session_function *f = e->value ? session_find_function(s, e->value) : NULL;

    (void)c;
    n->record = f ? f->name_record : NULL;
    n->module = site ? site->type : NULL;
}

void view_event_exception_fields(json_t *o, const view_event_copy *c, const profile_state *profile)
{
    const eventlog_entry *e = &c->e;

    (void)profile;
    json_object_set_new(o, "site", view_count(e->id));
    json_object_set_new(o, "exception_type", view_str(c->module));
    json_object_set_new(o, "method",
                        c->name_record ? view_name_record(c->name_record) : view_str(c->name));
    json_object_set_new(o, "function_id", view_id(e->value));
    json_object_set_new(o, "count", view_count(e->extra));
}

void view_event_gc_fields(json_t *o, const view_event_copy *c, const profile_state *profile)
{
    const eventlog_entry *e = &c->e;

    (void)profile;
    json_object_set_new(o, "duration_ns", view_count(e->value));
    json_object_set_new(o, "generations", view_generations(e->extra));
    json_object_set_new(
        o, "reason",
        json_string(timeline_gc_reason_name(TIMELINE_GC_EVENT_REASON(e->id),
                                            TIMELINE_GC_EVENT_RUNTIME_REASON(e->id))));
    json_object_set_new(o, "induced", json_boolean(TIMELINE_GC_EVENT_REASON(e->id) == 1));
}

void view_event_suspension_fields(json_t *o, const view_event_copy *c, const profile_state *profile)
{
    const eventlog_entry *e = &c->e;

    (void)profile;
    json_object_set_new(o, "duration_ns", view_count(e->value));
    json_object_set_new(o, "reason", json_string(timeline_suspend_reason_name((uint32_t)e->id)));
    json_object_set_new(o, "by_jitscope", json_boolean(e->id == TIMELINE_SUSPEND_FOR_PROFILER));
    json_object_set_new(o, "aborted", json_boolean(e->extra != 0));
}

void view_event_stack_end_fields(json_t *o, const view_event_copy *c, const profile_state *profile)
{
    (void)profile;
    json_object_set_new(o, "snapshot_id", view_count(c->e.id));
    json_object_set_new(o, "threads", json_integer(c->e.extra));
    json_object_set_new(o, "suspend_ns", view_count(c->e.value));
}

/* The status now, with the state and rates this change reported. */
void view_event_profile_fields(json_t *o, const view_event_copy *c, const profile_state *profile)
{
    static const char *const changes[] = {"", "started", "stopped", "rate", "refused"};
    const eventlog_entry *e = &c->e;
    json_t *status = view_profile_status(profile);

    json_object_update(o, status);
    json_decref(status);
    json_object_set_new(o, "change", json_string(e->extra <= 4 ? changes[e->extra] : ""));
    json_object_set_new(
        o, "state",
        json_string(e->extra == WIRE_PROFILE_STARTED || e->extra == WIRE_PROFILE_RATE ? "running"
                                                                                      : "stopped"));
    json_object_set_new(o, "requested_hz", json_real((double)(uint32_t)e->id / 1000.0));
    json_object_set_new(o, "effective_hz", json_real((double)e->value / 1000.0));
    json_object_set_new(o, "budget_pct", json_real((double)(e->id >> 32) / 10.0));
}

/* A restarted server took the session back. */
void view_event_resumed_fields(json_t *o, const view_event_copy *c, const profile_state *profile)
{
    (void)profile;
    json_object_set_new(o, "gap_ms", json_real((double)c->e.value / 1e6));
}
