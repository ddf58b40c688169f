/* api_compare.c -- GET /api/compare?a=ID&b=ID: two sessions side by side
 * (docs/API.md, "Comparing two sessions"). Each session is copied under the
 * sessions lock (compare_snapshot_take), the lock released, and the matching,
 * sorting and JSON happen on the copies (compare.c). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_export.h"
#include "api_util.h"
#include "compare.h"
#include "persist.h"

#define COMPARE_DEFAULT_LIMIT 100
#define COMPARE_MAX_LIMIT 10000
#define COMPARE_EXPORT_MAX (256u * 1024u * 1024u)
#define COMPARE_MAX_RUNNING 2

enum compare_section { SECTION_ALL, SECTION_SUMMARY, SECTION_METHODS, SECTION_MODULES };

typedef struct compare_query {
    int a, b;
    enum compare_section section;
    unsigned only; /* COMPARE_SEL_* */
    const char *only_name;
    enum compare_sort sort;
    int descending;
    long long limit, offset;
    const char *q, *module;
    int format; /* 0 JSON answer, 1 csv, 2 json file */
} compare_query;

static const char *in_name(unsigned in)
{
    return in == COMPARE_IN_A ? "a" : in == COMPARE_IN_B ? "b" : "both";
}

static json_t *opt_int(int present, uint64_t v)
{
    return present ? json_integer((json_int_t)v) : json_null();
}

/* A JIT time sum: exact in JSON (views.h, view_count). */
static json_t *opt_ns(int present, uint64_t v) { return present ? view_count(v) : json_null(); }

/* One method: flat (a_*, b_*, delta_*) so that CSV has a column per value. */
static json_t *method_row(const compare_method *m)
{
    int ia = (m->in & COMPARE_IN_A) != 0, ib = (m->in & COMPARE_IN_B) != 0;
    json_t *o = json_object();

    json_object_set_new(o, "module", json_string(m->module));
    json_object_set_new(o, "name", json_string(m->name));
    json_object_set_new(o, "in", json_string(in_name(m->in)));
    json_object_set_new(o, "a_jit_ns", opt_ns(ia, m->a.jit_ns));
    json_object_set_new(o, "b_jit_ns", opt_ns(ib, m->b.jit_ns));
    json_object_set_new(o, "delta_jit_ns", view_signed_count(compare_delta_ns(&m->a, &m->b)));
    json_object_set_new(o, "a_compilations", opt_int(ia, m->a.compilations));
    json_object_set_new(o, "b_compilations", opt_int(ib, m->b.compilations));
    json_object_set_new(
        o, "delta_compilations",
        json_integer((json_int_t)m->b.compilations - (json_int_t)m->a.compilations));
    json_object_set_new(o, "a_tier",
                        ia && m->a.compilations ? json_string(session_tier_name(m->a.tier))
                                                : json_null());
    json_object_set_new(o, "b_tier",
                        ib && m->b.compilations ? json_string(session_tier_name(m->b.tier))
                                                : json_null());
    json_object_set_new(o, "a_il_size", opt_int(ia, m->a.il_size));
    json_object_set_new(o, "b_il_size", opt_int(ib, m->b.il_size));
    json_object_set_new(o, "a_native_size", opt_int(ia, m->a.native_size));
    json_object_set_new(o, "b_native_size", opt_int(ib, m->b.native_size));
    json_object_set_new(o, "a_functions", json_integer(m->a.functions));
    json_object_set_new(o, "b_functions", json_integer(m->b.functions));
    return o;
}

static json_t *module_row(const compare_module *m)
{
    json_t *o = json_object();

    json_object_set_new(o, "module", json_string(m->module));
    json_object_set_new(o, "in", json_string(in_name(m->in)));
    json_object_set_new(o, "a_jit_ns", view_count(m->a.jit_ns));
    json_object_set_new(o, "b_jit_ns", view_count(m->b.jit_ns));
    json_object_set_new(o, "delta_jit_ns", view_signed_count(compare_delta_ns(&m->a, &m->b)));
    json_object_set_new(o, "a_methods", json_integer(m->a.functions));
    json_object_set_new(o, "b_methods", json_integer(m->b.functions));
    json_object_set_new(o, "delta_methods",
                        json_integer((json_int_t)m->b.functions - (json_int_t)m->a.functions));
    json_object_set_new(o, "only_a_methods", json_integer(m->only_a));
    json_object_set_new(o, "only_b_methods", json_integer(m->only_b));
    json_object_set_new(o, "a_compilations", json_integer(m->a.compilations));
    json_object_set_new(o, "b_compilations", json_integer(m->b.compilations));
    json_object_set_new(o, "a_loads", json_integer(m->a_loads));
    json_object_set_new(o, "b_loads", json_integer(m->b_loads));
    json_object_set_new(o, "a_path", view_str(m->a_path));
    json_object_set_new(o, "b_path", view_str(m->b_path));
    return o;
}

/* One page of a list: {"only", "total", "offset", "limit", "rows"}; NULL out of memory. */
static json_t *page(const compare_result *r, const compare_query *q, int methods, unsigned only,
                    const char *only_name)
{
    size_t *idx, n, i;
    json_t *rows;

    if (compare_select(r, methods, only, q->q, q->module, q->sort, q->descending, &idx, &n) != 0)
        return NULL;
    rows = json_array();
    for (i = (size_t)q->offset; i < n && i < (size_t)q->offset + (size_t)q->limit; i++)
        json_array_append_new(rows, methods ? method_row(&r->methods[idx[i]])
                                            : module_row(&r->modules[idx[i]]));
    free(idx);
    return json_pack("{s:s, s:I, s:I, s:I, s:o}", "only", only_name, "total", (json_int_t)n,
                     "offset", (json_int_t)q->offset, "limit", (json_int_t)q->limit, "rows", rows);
}

static json_t *side_summary(const compare_snapshot *s, const compare_result *r, unsigned bit)
{
    uint64_t only_ns = 0, both_ns = 0;
    size_t modules = 0, i;

    for (i = 0; i < r->module_count; i++)
        modules += (r->modules[i].in & bit) != 0;
    for (i = 0; i < r->method_count; i++) {
        const compare_method *m = &r->methods[i];
        uint64_t ns = bit == COMPARE_IN_A ? m->a.jit_ns : m->b.jit_ns;
        if (m->in == bit)
            only_ns += ns;
        else if (m->in == COMPARE_IN_BOTH)
            both_ns += ns;
    }
    return json_pack("{s:I, s:I, s:o, s:o, s:I, s:o, s:o}", "functions", (json_int_t)s->functions,
                     "unnamed", (json_int_t)s->unnamed, "compilations", view_count(s->compilations),
                     "jit_time_total_ns", view_count(s->jit_ns), "modules", (json_int_t)modules,
                     "only_jit_ns", view_count(only_ns), "both_jit_ns", view_count(both_ns));
}

static json_t *summary(const compare_snapshot *a, const compare_snapshot *b,
                       const compare_result *r)
{
    compare_side sa = {.jit_ns = a->jit_ns}, sb = {.jit_ns = b->jit_ns};

    return json_pack(
        "{s:o, s:o, s:o, s:{s:I, s:I, s:I}, s:{s:I, s:I, s:I}}", "a",
        side_summary(a, r, COMPARE_IN_A), "b", side_summary(b, r, COMPARE_IN_B), "delta_jit_ns",
        view_signed_count(compare_delta_ns(&sa, &sb)), "methods", "only_a",
        (json_int_t)r->methods_in[COMPARE_IN_A], "only_b", (json_int_t)r->methods_in[COMPARE_IN_B],
        "both", (json_int_t)r->methods_in[COMPARE_IN_BOTH], "modules", "only_a",
        (json_int_t)r->modules_in[COMPARE_IN_A], "only_b", (json_int_t)r->modules_in[COMPARE_IN_B],
        "both", (json_int_t)r->modules_in[COMPARE_IN_BOTH]);
}

static int parse_only(const char *text, unsigned *only, const char **name)
{
    static const struct {
        const char *name;
        unsigned sel;
    } names[] = {{"a", COMPARE_SEL_A},
                 {"b", COMPARE_SEL_B},
                 {"both", COMPARE_SEL_BOTH},
                 {"all", COMPARE_SEL_ALL}};
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(text, names[i].name) == 0)
            return *only = names[i].sel, *name = names[i].name, 0;
    return -1;
}

static int parse_sort(const char *text, enum compare_sort *sort, int *descending)
{
    static const struct {
        const char *name;
        enum compare_sort sort;
        int descending;
    } names[] = {{"jit_time", COMPARE_SORT_JIT_TIME, 1},
                 {"delta", COMPARE_SORT_DELTA, 1},
                 {"abs_delta", COMPARE_SORT_ABS_DELTA, 1},
                 {"a_jit_time", COMPARE_SORT_A_JIT_TIME, 1},
                 {"b_jit_time", COMPARE_SORT_B_JIT_TIME, 1},
                 {"compilations", COMPARE_SORT_COMPILATIONS, 1},
                 {"name", COMPARE_SORT_NAME, 0},
                 {"module", COMPARE_SORT_MODULE, 0}};
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(text, names[i].name) == 0)
            return *sort = names[i].sort, *descending = names[i].descending, 0;
    return -1;
}

/* Reads and checks the query; 0, or the status of the error it set. */
static int parse_query(api_call *c, compare_query *q)
{
    const api_request *req = c->req;
    const char *a = req->arg(req->ctx, "a"), *b = req->arg(req->ctx, "b");
    const char *section = req->arg(req->ctx, "section"), *only = req->arg(req->ctx, "only");
    const char *sort = req->arg(req->ctx, "sort"), *order = req->arg(req->ctx, "order");
    long long va, vb;

    memset(q, 0, sizeof(*q));
    if (!a || !b)
        return api_fail(c, 400, "compare needs two sessions: /api/compare?a=ID&b=ID");
    if (api_arg_int(req, "a", 1, SESSION_ID_MAX, 0, &va) != 0 ||
        api_arg_int(req, "b", 1, SESSION_ID_MAX, 0, &vb) != 0)
        return api_fail(c, 400, "a and b must be session ids (1..%d)", SESSION_ID_MAX);
    q->a = (int)va;
    q->b = (int)vb;
    if (!section || strcmp(section, "all") == 0)
        q->section = SECTION_ALL;
    else if (strcmp(section, "summary") == 0)
        q->section = SECTION_SUMMARY;
    else if (strcmp(section, "methods") == 0)
        q->section = SECTION_METHODS;
    else if (strcmp(section, "modules") == 0)
        q->section = SECTION_MODULES;
    else
        return api_fail(c, 400, "section must be one of all, summary, methods, modules");
    q->only = COMPARE_SEL_ALL;
    q->only_name = "all";
    if (only && parse_only(only, &q->only, &q->only_name) != 0)
        return api_fail(c, 400, "only must be one of a, b, both, all");
    if (only && q->section != SECTION_METHODS && q->section != SECTION_MODULES)
        return api_fail(c, 400, "only= goes with section=methods or section=modules");
    q->sort = COMPARE_SORT_JIT_TIME;
    q->descending = 1;
    if (sort && parse_sort(sort, &q->sort, &q->descending) != 0)
        return api_fail(c, 400,
                        "sort must be one of jit_time, delta, abs_delta, a_jit_time, "
                        "b_jit_time, compilations, name, module");
    if (order && strcmp(order, "asc") == 0)
        q->descending = 0;
    else if (order && strcmp(order, "desc") == 0)
        q->descending = 1;
    else if (order)
        return api_fail(c, 400, "order must be asc or desc");
    if (api_arg_int(req, "limit", 1, COMPARE_MAX_LIMIT, COMPARE_DEFAULT_LIMIT, &q->limit) != 0 ||
        api_arg_int(req, "offset", 0, 1LL << 40, 0, &q->offset) != 0)
        return api_fail(c, 400, "limit must be 1..10000 and offset >= 0");
    q->q = req->arg(req->ctx, "q");
    q->module = req->arg(req->ctx, "module");
    if ((q->q && strlen(q->q) > 512) || (q->module && strlen(q->module) > 512))
        return api_fail(c, 400, "filter too long (512 bytes at most)");
    if ((q->format = api_export_format(req)) < 0)
        return api_fail(c, 400, "format must be csv or json");
    if (q->format && q->section != SECTION_METHODS && q->section != SECTION_MODULES)
        return api_fail(c, 400, "format= goes with section=methods or section=modules");
    return 0;
}

/* Copies one session under the lock: its snapshot and its summary. */
static int take(api_call *c, int id, compare_snapshot *snap, json_t **view)
{
    session *s;
    int rc;

    persist_prepare(id); /* a stored session is read before the lock is taken */
    sessions_lock();
    s = sessions_get(id);
    if (!s) {
        sessions_unlock();
        return api_fail(c, 404, "no such session: %d", id);
    }
    rc = compare_snapshot_take(snap, s);
    *view = rc == 0 ? view_session_summary(s) : NULL;
    sessions_unlock();
    if (rc != 0 || !*view) {
        json_decref(*view);
        compare_snapshot_free(snap);
        return api_fail(c, 503, "out of memory");
    }
    return 0;
}

/* The answer as a file: CSV of the one list, or the JSON answer itself. */
static int export_list(api_call *c, const compare_query *q)
{
    api_reply *reply = c->reply;
    const char *list = q->section == SECTION_METHODS ? "methods" : "modules";
    json_t *rows = json_object_get(json_object_get(reply->json, list), "rows");

    snprintf(reply->disposition, sizeof(reply->disposition),
             "attachment; filename=\"jitscope-compare-%d-%d-%s-%s.%s\"", q->a, q->b, list,
             q->only_name, q->format == 1 ? "csv" : "json");
    return api_export_rows(reply, q->format, rows, COMPARE_EXPORT_MAX);
}

static int compare_run(api_call *c, const compare_query *qp)
{
    compare_snapshot sa, sb;
    compare_result r;
    compare_query q = *qp;
    json_t *va = NULL, *vb = NULL, *o;
    int status;

    if ((status = take(c, q.a, &sa, &va)) != 0)
        return status;
    if ((status = take(c, q.b, &sb, &vb)) != 0) {
        json_decref(va);
        compare_snapshot_free(&sa);
        return status;
    }
    /* the lock is released: everything below works on the copies */
    status = compare_build(&sa, &sb, &r) == 0 ? 200 : 503;
    o = json_pack("{s:o, s:o}", "a", va, "b", vb);
    if (status == 200 && o) {
        if (q.section == SECTION_ALL || q.section == SECTION_SUMMARY)
            json_object_set_new(o, "summary", summary(&sa, &sb, &r));
        if (q.section == SECTION_ALL || q.section == SECTION_MODULES)
            json_object_set_new(o, "modules", page(&r, &q, 0, q.only, q.only_name));
        if (q.section == SECTION_METHODS)
            json_object_set_new(o, "methods", page(&r, &q, 1, q.only, q.only_name));
        if (q.section == SECTION_ALL)
            json_object_set_new(o, "methods",
                                json_pack("{s:o*, s:o*, s:o*}", "only_a",
                                          page(&r, &q, 1, COMPARE_SEL_A, "a"), "only_b",
                                          page(&r, &q, 1, COMPARE_SEL_B, "b"), "both",
                                          page(&r, &q, 1, COMPARE_SEL_BOTH, "both")));
        compare_result_free(&r);
    }
    compare_snapshot_free(&sa);
    compare_snapshot_free(&sb);
    if (status != 200 || !o) {
        json_decref(o);
        return api_fail(c, 503, "out of memory");
    }
    c->reply->json = o;
    return q.format ? export_list(c, &q) : 200;
}

/* At most COMPARE_MAX_RUNNING comparisons at once: each holds copies of two
 * sessions (up to SESSION_MAX_FUNCTIONS names each) while it computes. */
static atomic_int compare_running;

int api_compare(api_call *c)
{
    compare_query q;
    int status;

    if ((status = parse_query(c, &q)) != 0)
        return status;
    if (atomic_fetch_add(&compare_running, 1) >= COMPARE_MAX_RUNNING) {
        atomic_fetch_sub(&compare_running, 1);
        return api_fail(c, 429, "%d comparisons are being computed; retry in a moment",
                        COMPARE_MAX_RUNNING);
    }
    status = compare_run(c, &q);
    atomic_fetch_sub(&compare_running, 1);
    return status;
}
