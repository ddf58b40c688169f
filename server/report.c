/* report.c -- a run's report (report.h): its sessions found under the lock,
 * then each one read back when stored (persist_prepare, without the lock),
 * pinned and walked in steps of REPORT_STEP functions with the lock held
 * between sessions_let_others_in() calls, like the functions query
 * (api_functions.c): ingest never waits for more than one step. What a
 * process's entry says beyond its walk comes from the session summary the
 * dashboard shows (views.c), so the two never disagree. */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "version.h"
#include "clock.h"
#include "origin.h"
#include "persist.h"
#include "sessions.h"
#include "views.h"

#define REPORT_STEP 131072u /* functions per locked step (about 1 ms) */

typedef struct report_jit {
    uint32_t position; /* in the session's function array */
    uint64_t jit_ns;
    int64_t time_ns; /* when it finished */
    uint32_t tier, native_size;
} report_jit;

typedef struct report_origin_sum {
    uint64_t methods, count, jit_ns;
} report_origin_sum;

typedef struct report_module_r2r {
    uint64_t module_id;
    int precompiled;        /* a method of it had ReadyToRun code (used or not) */
    uint64_t jitted_no_r2r; /* methods JIT-compiled without running ReadyToRun code */
} report_module_r2r;

/* What one walk of a session's functions gathers. */
typedef struct report_walk {
    uint64_t recompiled;
    report_origin_sum origins[ORIGIN_COUNT];
    report_jit slowest[REPORT_SLOWEST];
    size_t slowest_count;
    int64_t first_own_ns; /* the first compilation of a function of the app's own code */
    uint32_t first_own_position;
    uint64_t r2r_used, r2r_rejected;
    report_module_r2r *modules; /* per module: ReadyToRun seen, JITs without it */
    size_t module_count, module_cap;
    idmap module_index;   /* module_id -> its entry in modules */
    uint64_t last_module; /* walks of one module's functions in a row: its entry, and origin */
    size_t last_module_at;
    unsigned last_origin;
} report_walk;

static double report_ms(uint64_t ns) { return (double)(ns / 1000u) / 1000.0; }

/* A count as the report writes it: a plain integer (above 2^53 - 1, which only
 * a broken or hostile agent reaches, that bound). */
static json_t *report_count(uint64_t v)
{
    return json_integer(v < (1ull << 53) ? (json_int_t)v : (json_int_t)((1ull << 53) - 1));
}

/* Keeps c when it is among the REPORT_SLOWEST slowest so far (sorted, slowest first). */
static void report_offer(report_walk *w, const report_jit *c)
{
    size_t i;

    if (w->slowest_count == REPORT_SLOWEST && c->jit_ns <= w->slowest[REPORT_SLOWEST - 1].jit_ns)
        return;
    i = w->slowest_count < REPORT_SLOWEST ? w->slowest_count++ : REPORT_SLOWEST - 1;
    while (i > 0 && w->slowest[i - 1].jit_ns < c->jit_ns) {
        w->slowest[i] = w->slowest[i - 1];
        i--;
    }
    w->slowest[i] = *c;
}

static report_module_r2r *report_module_of(report_walk *w, uint64_t module_id)
{
    size_t i;

    if (w->last_module_at < w->module_count && w->modules[w->last_module_at].module_id == module_id)
        return &w->modules[w->last_module_at];
    if ((i = idmap_get(&w->module_index, module_id)) != IDMAP_MISSING)
        return &w->modules[w->last_module_at = i];
    if (w->module_count == w->module_cap) {
        size_t cap = w->module_cap ? w->module_cap * 2 : 64;
        report_module_r2r *bigger = realloc(w->modules, cap * sizeof(*bigger));
        if (!bigger)
            return NULL;
        w->modules = bigger, w->module_cap = cap;
    }
    if (idmap_put(&w->module_index, module_id, (uint32_t)w->module_count) != 0)
        return NULL;
    w->modules[w->module_count] = (report_module_r2r){module_id, 0, 0};
    w->last_module_at = w->module_count;
    return &w->modules[w->module_count++];
}

/* Functions [from, to) of s into w; -1 out of memory. Lock held. */
static int report_walk_step(report_walk *w, session *s, size_t from, size_t to)
{
    size_t i;
    uint32_t k;

    for (i = from; i < to; i++) {
        const session_function *f = &s->functions[i];
        uint8_t r2r = code_r2r(&s->code, (uint32_t)i);
        unsigned origin;

        if (r2r & CODE_R2R_USED)
            w->r2r_used++;
        else if (r2r & CODE_R2R_HAS)
            w->r2r_rejected++;
        if (f->module_id && (r2r || f->jit_count)) {
            report_module_r2r *m = report_module_of(w, f->module_id);
            if (!m)
                return -1;
            m->precompiled |= r2r != 0;
            m->jitted_no_r2r += f->jit_count && !(r2r & CODE_R2R_USED);
        }
        if (!f->jitted)
            continue; /* known only from stacks or ReadyToRun: not a compiled function */
        if (!f->module_id || (f->flags & WIRE_FLAG_DYNAMIC)) {
            origin = ORIGIN_DYNAMIC;
        } else {
            if (f->module_id != w->last_module)
                w->last_module = f->module_id, w->last_origin = origin_of_function(s, f);
            origin = w->last_origin;
        }
        w->origins[origin].methods++;
        w->origins[origin].count += f->jit_count;
        w->origins[origin].jit_ns += f->jit_time_total_ns;
        w->recompiled += f->jit_count > 1 || f->versions > 1;
        if (origin == ORIGIN_APP && f->jit_count && f->first_jit_ns &&
            (!w->first_own_ns || f->first_jit_ns < w->first_own_ns))
            w->first_own_ns = f->first_jit_ns, w->first_own_position = (uint32_t)i;
        for (k = 0; k < f->compilation_count; k++) {
            session_compilation c = session_function_compilation(f, k);
            report_jit j = {(uint32_t)i, c.jit_ns, c.time_ns, c.tier, c.native_size};
            report_offer(w, &j);
        }
    }
    return 0;
}

static json_t *report_origins(const report_walk *w)
{
    json_t *o = json_object();
    unsigned i;

    for (i = 0; i < ORIGIN_COUNT; i++)
        json_object_set_new(o, origin_name(i),
                            json_pack("{s:o, s:o, s:f}", "methods",
                                      report_count(w->origins[i].methods), "count",
                                      report_count(w->origins[i].count), "time_ms",
                                      report_ms(w->origins[i].jit_ns)));
    return o;
}

static json_t *report_tiers(const session *s)
{
    json_t *o = json_object();
    uint32_t t;

    for (t = 0; t < WIRE_TIER_COUNT; t++)
        if (s->tier_compilations[t])
            json_object_set_new(o, session_tier_name(t),
                                json_pack("{s:o, s:f}", "count",
                                          report_count(s->tier_compilations[t]), "time_ms",
                                          report_ms(s->tier_jit_ns[t])));
    return o;
}

static json_t *report_slowest(session *s, const report_walk *w)
{
    json_t *list = json_array();
    size_t i;

    for (i = 0; i < w->slowest_count; i++) {
        const report_jit *j = &w->slowest[i];
        const session_function *f = &s->functions[j->position];
        json_array_append_new(
            list,
            json_pack("{s:o, s:o, s:s, s:s, s:f, s:o, s:I, s:I}", "name", view_function_name(f),
                      "module", view_str(session_module_name(s, f->module_id)), "origin",
                      origin_name(origin_of_function(s, f)), "tier", session_tier_name(j->tier),
                      "jit_ms", report_ms(j->jit_ns), "at_ms",
                      j->time_ns && s->created_ns && j->time_ns >= s->created_ns
                          ? json_real(report_ms((uint64_t)(j->time_ns - s->created_ns)))
                          : json_null(),
                      "il_size", (json_int_t)f->il_size, "native_size",
                      (json_int_t)j->native_size));
    }
    return list;
}

static json_t *report_first_own(session *s, const report_walk *w)
{
    const char *why = NULL;

    if (w->first_own_ns && s->created_ns && w->first_own_ns >= s->created_ns)
        return json_pack("{s:f, s:o, s:n}", "ms",
                         report_ms((uint64_t)(w->first_own_ns - s->created_ns)), "method",
                         view_function_name(&s->functions[w->first_own_position]), "why");
    if (w->first_own_ns)
        why = "its own code was compiled before the session began (an attach)";
    else if (s->mode == SESSION_MODE_ATTACH)
        why = "no method of its own code was JIT-compiled while jitscope watched (attached)";
    else
        why = "no method of its own code was JIT-compiled: it ran only the runtime's, the SDK's "
              "or packages' code (or ReadyToRun code of its own)";
    return json_pack("{s:n, s:n, s:s}", "ms", "method", "why", why);
}

static json_t *report_r2r(const session *s, const report_walk *w)
{
    uint64_t jitted_in_precompiled = 0;
    size_t i;

    if (!s->code.r2r_searches)
        return json_pack(
            "{s:b, s:n, s:n, s:n, s:s}", "known", 0, "methods_used", "methods_rejected",
            "jitted_in_precompiled", "why",
            s->mode == SESSION_MODE_ATTACH
                ? "ReadyToRun use is seen from a process's start only (jitscope run), not after "
                  "an attach"
                : "the runtime reported no ReadyToRun lookups for this process");
    for (i = 0; i < w->module_count; i++)
        if (w->modules[i].precompiled)
            jitted_in_precompiled += w->modules[i].jitted_no_r2r;
    return json_pack("{s:b, s:o, s:o, s:o, s:n}", "known", 1, "methods_used",
                     report_count(w->r2r_used), "methods_rejected", report_count(w->r2r_rejected),
                     "jitted_in_precompiled", report_count(jitted_in_precompiled), "why");
}

/* What was lost of what the process did: the agent's count of records it could
 * not send, gaps in the link's sequence, records the server refused, and
 * what it could not keep for want of room. */
static json_t *report_drops(const session *s, json_t *summary)
{
    json_int_t agent = json_integer_value(
        json_object_get(json_object_get(summary, "drops"), "total"));
    uint64_t refused = s->records_refused + s->budget.refused_records;

    return json_pack("{s:o, s:I, s:o, s:o, s:o}", "total",
                     report_count((uint64_t)agent + s->seq_gaps + refused + s->capacity_drops),
                     "agent", agent, "link_gaps", report_count(s->seq_gaps), "refused",
                     report_count(refused), "server", report_count(s->capacity_drops));
}

/* Copies a field of the summary into o. */
static void report_copy(json_t *o, const char *to, json_t *summary, const char *from)
{
    json_t *v = json_object_get(summary, from);
    json_object_set(o, to, v ? v : json_null());
}

/* One process's entry: the session walked in steps (it is pinned meanwhile).
 * Lock held; it is let go between steps. NULL out of memory. */
static json_t *report_process(session *s)
{
    report_walk w;
    json_t *o, *summary, *jit;
    size_t at, end, total;
    char program[PROCNAME_MAX];

    memset(&w, 0, sizeof(w));
    w.last_module_at = (size_t)-1;
    sessions_pin(s);
    total = s->function_count;
    for (at = 0; at < total; at = end) {
        end = total - at > REPORT_STEP ? at + REPORT_STEP : total;
        if (at > 0)
            sessions_let_others_in();
        if (report_walk_step(&w, s, at, end) != 0) {
            sessions_unpin(s);
            free(w.modules);
            idmap_free(&w.module_index);
            return NULL;
        }
    }
    summary = view_session_summary(s);
    o = json_object();
    json_object_set_new(o, "session_id", json_integer(s->id));
    report_copy(o, "pid", summary, "pid");
    report_copy(o, "parent_pid", summary, "parent_pid");
    if (!s->program[0] && s->command_line)
        procname_of_args(s->command_line, strlen(s->command_line), ' ', program, sizeof(program));
    json_object_set_new(o, "program",
                        json_string(s->program[0]     ? s->program
                                    : s->command_line ? program
                                                      : ""));
    report_copy(o, "command_line", summary, "command_line");
    report_copy(o, "state", summary, "state");
    report_copy(o, "exit_code", summary, "exit_code");
    report_copy(o, "started_ms", summary, "created_ms");
    report_copy(o, "ended_ms", summary, "ended_ms");
    json_object_set_new(o, "duration_ms",
                        s->ended_ns && s->created_ns && s->ended_ns >= s->created_ns
                            ? json_real(report_ms((uint64_t)(s->ended_ns - s->created_ns)))
                            : json_null());
    report_copy(o, "runtime_version", json_object_get(summary, "runtime"), "version");
    jit = json_pack("{s:o, s:f, s:o, s:o}", "count", report_count(s->jit_compilations), "time_ms",
                    report_ms(s->jit_time_total_ns), "methods", report_count(s->functions_jitted),
                    "recompiled", report_count(w.recompiled));
    json_object_set_new(jit, "by_tier", report_tiers(s));
    json_object_set_new(jit, "by_origin", report_origins(&w));
    json_object_set_new(o, "jit", jit);
    json_object_set_new(o, "slowest", report_slowest(s, &w));
    json_object_set_new(o, "first_own_code", report_first_own(s, &w));
    json_object_set_new(o, "ready_to_run", report_r2r(s, &w));
    json_object_set_new(o, "drops", report_drops(s, summary));
    json_object_set_new(o, "complete", json_boolean(!s->persist.load_error[0]));
    json_decref(summary);
    sessions_unpin(s);
    free(w.modules);
    idmap_free(&w.module_index);
    return o;
}

/* The ids of the sessions of the report: id, then (when it is a root) its
 * children in id order. Lock held. */
static size_t report_tree(const session *root, int *ids, size_t max)
{
    size_t n = 0, i;

    ids[n++] = root->id;
    if (root->root_id != root->id)
        return n;
    for (i = 0; i < sessions_count() && n < max; i++) {
        const session *s = sessions_at(i);
        if (s->root_id == root->id && s->id != root->id)
            ids[n++] = s->id;
    }
    return n;
}

static int report_id_cmp(const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static void report_add(json_t *totals, const char *key, json_t *from)
{
    json_t *v = json_object_get(totals, key);
    double sum = json_number_value(v) + json_number_value(from);

    json_object_set_new(totals, key,
                        json_is_integer(v) && json_is_integer(from) ? json_integer((json_int_t)sum)
                                                                    : json_real(sum));
}

json_t *report_build(int session_id, int *status, char *err, size_t errsz)
{
    int ids[REPORT_MAX_TREE];
    size_t n, i;
    json_t *report, *processes, *totals, *root_entry = NULL;
    session *s;

    persist_prepare(session_id);
    sessions_lock();
    s = sessions_get(session_id);
    if (!s) {
        sessions_unlock();
        *status = 404;
        snprintf(err, errsz, "no session %d", session_id);
        return NULL;
    }
    n = report_tree(s, ids, REPORT_MAX_TREE);
    sessions_unlock();
    qsort(ids + 1, n - 1, sizeof(ids[0]), report_id_cmp);
    processes = json_array();
    totals = json_pack("{s:I, s:i, s:f, s:i, s:i, s:i}", "processes", (json_int_t)0, "jit_count", 0,
                       "jit_time_ms", 0.0, "methods", 0, "recompiled", 0, "drops", 0);
    for (i = 0; i < n; i++) {
        json_t *p;
        persist_prepare(ids[i]); /* a stored session's content, read before the lock */
        sessions_lock();
        s = sessions_get(ids[i]);
        p = s ? report_process(s) : NULL;
        sessions_unlock();
        if (!p && s) {
            json_decref(processes);
            json_decref(totals);
            *status = 503;
            snprintf(err, errsz, "out of memory");
            return NULL;
        }
        if (!p)
            continue; /* deleted meanwhile */
        json_object_set_new(
            totals, "processes",
            json_integer(json_integer_value(json_object_get(totals, "processes")) + 1));
        report_add(totals, "jit_count", json_object_get(json_object_get(p, "jit"), "count"));
        report_add(totals, "jit_time_ms", json_object_get(json_object_get(p, "jit"), "time_ms"));
        report_add(totals, "methods", json_object_get(json_object_get(p, "jit"), "methods"));
        report_add(totals, "recompiled", json_object_get(json_object_get(p, "jit"), "recompiled"));
        report_add(totals, "drops", json_object_get(json_object_get(p, "drops"), "total"));
        if (i == 0)
            root_entry = p;
        json_array_append_new(processes, p);
    }
    if (!root_entry) {
        json_decref(processes);
        json_decref(totals);
        *status = 404;
        snprintf(err, errsz, "no session %d", session_id);
        return NULL;
    }
    report = json_pack("{s:i, s:s, s:f, s:i}", "report_version", REPORT_VERSION, "jitscope_version",
                       JITSCOPE_VERSION, "generated_ms", (double)clock_real_ns() / 1e6,
                       "session_id", session_id);
    report_copy(report, "program", root_entry, "program");
    report_copy(report, "command_line", root_entry, "command_line");
    report_copy(report, "state", root_entry, "state");
    report_copy(report, "exit_code", root_entry, "exit_code");
    report_copy(report, "started_ms", root_entry, "started_ms");
    report_copy(report, "ended_ms", root_entry, "ended_ms");
    report_copy(report, "duration_ms", root_entry, "duration_ms");
    json_object_set_new(report, "totals", totals);
    json_object_set_new(report, "processes", processes);
    json_object_set_new(report, "baseline", json_null());
    json_object_set_new(report, "comparison", json_array());
    json_object_set_new(report, "conditions", json_array());
    json_object_set_new(report, "verdict", json_null());
    *status = 200;
    return report;
}
