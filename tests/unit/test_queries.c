/* test_queries.c -- the functions query and per-module totals against a
 * reference, and the stores under them (server/api_functions.c, strpool.c,
 * idindex.c, sessions_pin).
 *
 * A session of 60,000 functions with pseudo-random (seeded) first JIT times,
 * JIT times, sizes with many ties, names with shared prefixes, 5 modules and
 * dynamic methods, some compiled twice, some known only from a name: every
 * sort, both orders, name and module filters, pages at the start, in the
 * middle, past the end and deeper than the bounded selection keeps, compared
 * with a plain sort of every match (the old implementation's comparison); the
 * query lets others take the lock between its steps (counted, not timed); the
 * totals per module against sums made here; a pinned session that is removed
 * stays readable until unpinned; the string pool keeps pointers stable across
 * chunks and interns; the index finds, re-points and grows.
 * Build: make build/tests/test_queries && build/tests/test_queries
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "api_util.h"
#include "check.h"
#include "fixtures.h"
#include "hugemem.h"
#include "origin.h"
#include "records.h"
#include "sessions.h"

#define N_FUNCTIONS 60000u
static uint64_t g_rand = 0x9e3779b97f4a7c15ull; /* big_session's made-up data */

static uint64_t rnd(void) { return check_random(&g_rand); }

static void name(session *s, uint64_t fid, uint64_t module_id, const char *text, uint16_t flags)
{
    rec_apply(s, rec_function_name(fid, module_id, text, flags));
}

static void jit_tier(session *s, uint64_t fid, uint64_t start, uint64_t duration,
                     uint32_t code_size, uint32_t il_size, uint64_t code_start, uint32_t tier)
{
    wire_record r = rec_jit_finished(fid, 0x77, code_start, code_size, start + duration, 0);

    r.u.jit_finished.il_size = il_size;
    r.u.jit_finished.tier = tier;
    rec_apply(s, rec_jit_started(fid, 0x77, start));
    rec_apply(s, r);
}

static void jit(session *s, uint64_t fid, uint64_t start, uint64_t duration, uint32_t code_size,
                uint32_t il_size, uint64_t code_start)
{
    jit_tier(s, fid, start, duration, code_size, il_size, code_start, WIRE_TIER_UNKNOWN);
}

/* The session the query tests read (they only read it): made by the first
 * test that needs it, the same whichever that is (the names and times come
 * from a seeded sequence), and kept to the end of the run. Its id, or -1. */
static int g_id = -1;

static int big_session(void)
{
    static const char *const spaces[] = {"System.Collections.Generic.", "System.Linq.", "App.",
                                         "App.Data.", "Zeta."};
    char text[128];
    session *s;
    uint32_t i;

    if (g_id > 0)
        return g_id;
    sessions_lock();
    s = fixture_session("dotnet big.dll");
    if (!s) {
        sessions_unlock();
        return -1;
    }
    g_id = s->id;
    rec_apply(s, rec_module_loaded(0x100, "/app/System.Private.CoreLib.dll",
                                   "System.Private.CoreLib", 0, REC_MONO));
    rec_apply(s, rec_module_loaded(0x200, "/app/System.Linq.dll", "System.Linq", 0, REC_MONO));
    rec_apply(s, rec_module_loaded(0x300, "/app/App.dll", "App", 0, REC_MONO));
    rec_apply(s, rec_module_loaded(0x400, "/app/plugins/Plugin.dll", NULL, 0, REC_MONO));
    /* a second module of the same name */
    rec_apply(s, rec_module_loaded(0x500, "/app/Other.dll", "App", 0, REC_MONO));
    for (i = 0; i < N_FUNCTIONS; i++) {
        uint64_t fid = 0x7f0000000000ull + (rnd() & 0xffffffffull) * 16u + i, m = 0x100 * (i % 6);
        uint64_t start = REC_MONO + 1000 + (rnd() % 50000000u);
        snprintf(text, sizeof(text), "%sType%u.Method%u(int)", spaces[rnd() % 5],
                 (unsigned)(rnd() % 300), (unsigned)(rnd() % 5000));
        name(s, fid, m, text, m ? 0 : WIRE_FLAG_DYNAMIC);
        if (i % 41 == 0)
            continue; /* known only from its name: not listed */
        jit_tier(s, fid, start, rnd() % 2000, (uint32_t)(rnd() % 64) * 16u, (uint32_t)(rnd() % 300),
                 fid * 4, i % 3 ? WIRE_TIER_0 : WIRE_TIER_FULL_OPTS);
        if (i % 7 == 0)
            jit_tier(s, fid, start + 100000000u, rnd() % 2000, 512, 0, fid * 4 + 64, WIRE_TIER_1);
    }
    sessions_unlock();
    return g_id;
}

/* ---- the reference: every jitted match, sorted as the old route sorted ---- */

typedef struct ref_ctx {
    const char *sort;
    int descending;
} ref_ctx;

static int ref_cmp(const void *a, const void *b, void *arg)
{
    const ref_ctx *c = arg;
    const session_function *x = *(session_function *const *)a, *y = *(session_function *const *)b;
    long long d = 0;

    if (strcmp(c->sort, "time") == 0)
        d = (x->first_jit_ns > y->first_jit_ns) - (x->first_jit_ns < y->first_jit_ns);
    else if (strcmp(c->sort, "jit_time") == 0)
        d = (x->jit_time_total_ns > y->jit_time_total_ns) -
            (x->jit_time_total_ns < y->jit_time_total_ns);
    else if (strcmp(c->sort, "native_size") == 0)
        d = (long long)x->native_size - (long long)y->native_size;
    else if (strcmp(c->sort, "il_size") == 0)
        d = (long long)x->il_size - (long long)y->il_size;
    else {
        const char *a = fixture_fn_name(x), *b = fixture_fn_name(y);
        d = strcmp(a ? a : "", b ? b : "");
    }
    if (d == 0)
        d = (x->function_id > y->function_id) - (x->function_id < y->function_id);
    return c->descending ? (d > 0 ? -1 : d < 0) : (d > 0) - (d < 0);
}

static int ref_matches(session *s, const session_function *f, const char *q, const char *mod)
{
    if (!f->jitted)
        return 0;
    if (q && (!f->name_record || !strcasestr(fixture_fn_name(f), q)))
        return 0;
    if (mod) {
        session_module *m = session_find_module(s, f->module_id);
        const char *mname = session_module_name(s, f->module_id);
        if (!(mname && strcasestr(mname, mod)) && !(m && m->path && strcasestr(m->path, mod)))
            return 0;
    }
    return 1;
}

/* Compares one query's answer with the reference; prints the first difference. */
static session_function **g_ref;
static size_t g_ref_count;
static unsigned g_ref_key;

/* key: which sort, order and filter the cached reference is for (any number
 * the caller changes with them) */
static int query_matches_reference(unsigned key, const char *sort, const char *order, const char *q,
                                   const char *mod, long offset, long limit)
{
    char path[64], a_sort[32], a_order[32], a_q[64], a_mod[64], a_off[32], a_lim[32];
    const char *args[7];
    int n = 0, ok = 1;
    session *s;
    session_function **all;
    size_t count = 0, i, total;
    ref_ctx ctx = {sort, strcmp(sort, "time") && strcmp(sort, "name")};
    api_request req;
    api_reply reply;
    json_t *list;

    snprintf(path, sizeof(path), "/api/sessions/%d/functions", g_id);
    snprintf(a_sort, sizeof(a_sort), "sort=%s", sort);
    args[n++] = a_sort;
    if (order) {
        snprintf(a_order, sizeof(a_order), "order=%s", order);
        args[n++] = a_order;
        ctx.descending = strcmp(order, "desc") == 0;
    }
    if (q) {
        snprintf(a_q, sizeof(a_q), "q=%s", q);
        args[n++] = a_q;
    }
    if (mod) {
        snprintf(a_mod, sizeof(a_mod), "module=%s", mod);
        args[n++] = a_mod;
    }
    snprintf(a_off, sizeof(a_off), "offset=%ld", offset);
    args[n++] = a_off;
    snprintf(a_lim, sizeof(a_lim), "limit=%ld", limit);
    args[n++] = a_lim;
    args[n] = NULL;
    req = (api_request){"GET", path, fixture_arg, (void *)args, NULL, 0};
    if (api_handle(&req, &reply) != 200)
        return 0;
    sessions_lock();
    s = sessions_get(g_id);
    if (!g_ref || g_ref_key != key) { /* the reference of this sort and filter, made once */
        free(g_ref);
        g_ref = malloc(s->function_count * sizeof(*g_ref));
        g_ref_count = 0;
        for (i = 0; i < s->function_count; i++)
            if (ref_matches(s, &s->functions[i], q, mod))
                g_ref[g_ref_count++] = &s->functions[i];
        qsort_r(g_ref, g_ref_count, sizeof(*g_ref), ref_cmp, &ctx);
        g_ref_key = key;
    }
    all = g_ref;
    count = g_ref_count;
    total = (size_t)json_integer_value(json_object_get(reply.json, "total"));
    list = json_object_get(reply.json, "functions");
    if (total != count) {
        printf("    total %zu, reference %zu\n", total, count);
        ok = 0;
    }
    for (i = 0; ok && (long)i < limit && (size_t)offset + i < count; i++) {
        char want[24];
        const char *got = json_string_value(
            json_object_get(json_array_get(list, i), "function_id"));
        snprintf(want, sizeof(want), "0x%llx",
                 (unsigned long long)all[(size_t)offset + i]->function_id);
        if (!got || strcmp(got, want) != 0) {
            printf("    row %zu: %s, reference %s\n", (size_t)offset + i, got ? got : "-", want);
            ok = 0;
        }
    }
    if (ok &&
        json_array_size(list) !=
            (offset < (long)count
                 ? ((size_t)limit < count - (size_t)offset ? (size_t)limit : count - (size_t)offset)
                 : 0)) {
        printf("    %zu rows\n", json_array_size(list));
        ok = 0;
    }
    sessions_unlock();
    json_decref(reply.json);
    if (!ok)
        printf("    sort=%s order=%s q=%s module=%s offset=%ld limit=%ld\n", sort,
               order ? order : "-", q ? q : "-", mod ? mod : "-", offset, limit);
    return ok;
}

static json_t *get(const char *suffix, int *status)
{
    char path[96];
    api_request req = {"GET", path, fixture_arg, NULL, NULL, 0};
    api_reply reply;

    snprintf(path, sizeof(path), "/api/sessions/%d%s", g_id, suffix);
    *status = api_handle(&req, &reply);
    return reply.json;
}

/* ---- tests ---- */

TEST(every_sort_filter_and_page_as_a_full_sort_would_give)
{
    static const char *const sorts[] = {"time", "jit_time", "name", "native_size", "il_size"};
    static const char *const orders[] = {NULL, "asc", "desc"};
    static const struct {
        const char *q, *mod;
    } filters[] = {{NULL, NULL},
                   {"method12", NULL},
                   {NULL, "linq"},
                   {"TYPE1", "app"},
                   {NULL, "plugins/"},
                   {"no such name", NULL},
                   {"collections.GENERIC.type1", NULL}, /* a long needle: strcasestr */
                   /* across where a name's type part ends (fnname.h): short, long */
                   {"2.method1", NULL},
                   {"generic.type12.method4", NULL},
                   /* 1, 2 and 3 bytes (signatures: none, then one and two pairs), across
                    * the seam too; a case the names do not have */
                   {"7", NULL},
                   {".M", NULL},
                   {"3.m", "app"},
                   {"D(", NULL},
                   {"pE12", NULL}};
    static const long pages[][2] = {{0, 100},   {0, 1},         {950, 50},
                                    {4090, 20}, {57000, 10000}, {100001, 10},
                                    {0, 10000}, {30000, 7},     {99990, 20}};
    unsigned i, o, f, p, failed = 0, run = 0;

    if (!CHECK(big_session() > 0, "the session of 60,000 functions"))
        return;
    for (i = 0; i < 5; i++)
        for (o = 0; o < 3; o++)
            for (f = 0; f < sizeof(filters) / sizeof(filters[0]); f++)
                for (p = 0; p < 9; p++) {
                    if (pages[p][1] == 10000 && (o > 0 || f > 1))
                        continue; /* long pages: enough with a few (JSON of 10,000 rows) */
                    run++;
                    if (!query_matches_reference(1 + i * 1000 + o * 100 + f, sorts[i], orders[o],
                                                 filters[f].q, filters[f].mod, pages[p][0],
                                                 pages[p][1]))
                        failed++;
                }
    CHECK(failed == 0, "%u of %u queries differ from a sort of every match", failed, run);
    free(g_ref);
    g_ref = NULL;
}

TEST(a_query_lets_others_take_the_lock_between_its_steps)
{
    static const char *const routes[] = {"/functions", "/modules/totals"};
    uint64_t before;
    int status;
    json_t *j;

    if (!CHECK(big_session() > 0, "the session of 60,000 functions"))
        return;
    for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
        before = sessions_let_in_count();
        j = get(routes[i], &status);
        /* 60,000 functions in steps of 4,096 */
        CHECK(status == 200 && sessions_let_in_count() - before >= 14,
              "%s released the lock %llu times", routes[i],
              (unsigned long long)(sessions_let_in_count() - before));
        json_decref(j);
    }
}

/* GET /api/sessions/{id}/functions?{arg} (arg: "q=..."): the reply's total,
 * or -1 when it did not answer 200; the first row's function_id into
 * first_id ("" without one). */
static long functions_total(int id, const char *arg, char *first_id, size_t first_size)
{
    const char *args[] = {arg, NULL};
    char path[64];
    api_request req = {"GET", path, fixture_arg, (void *)args, NULL, 0};
    api_reply reply;
    const char *first;
    long total;

    snprintf(path, sizeof(path), "/api/sessions/%d/functions", id);
    total = api_handle(&req, &reply) == 200
                ? (long)json_integer_value(json_object_get(reply.json, "total"))
                : -1;
    first = json_string_value(json_object_get(
        json_array_get(json_object_get(reply.json, "functions"), 0), "function_id"));
    snprintf(first_id, first_size, "%s", first ? first : "");
    json_decref(reply.json);
    return total;
}

static void remove_session(int id)
{
    sessions_lock();
    sessions_remove(id);
    sessions_unlock();
}

/* Names and a filter chosen to make a naive substring search quadratic (and
 * that the names' signatures do not rule out: fnsig.h): the walk still lets
 * others in, bounded by the work it did, not by how many functions it read. */
TEST(a_hostile_filter_still_lets_others_in)
{
    static char text[4001];
    char first[32];
    uint64_t before;
    session *s;
    unsigned i;
    long total;
    int id;

    memset(text, 'a', sizeof(text) - 1);
    text[1] = 'b'; /* "abaaa...": the needles' pairs are all there, so each name is searched */
    sessions_lock();
    s = sessions_create(SESSION_MODE_ATTACH, 4545, "hostile");
    id = s->id;
    for (i = 0; i < 1500; i++) {
        name(s, 0x9000000 + i * 16u, 0, text, 0);
        jit(s, 0x9000000 + i * 16u, REC_MONO + i, 10, 16, 1, 0x1000 + i * 64u);
    }
    sessions_unlock();
    api_step_functions = 65536; /* one step by count: only the work bound can split it */
    before = sessions_let_in_count();
    total = functions_total(id, "q=aaaaaaaaaaaaaab", first, sizeof(first));
    CHECK(total == 0 && sessions_let_in_count() - before >= 5,
          "1,500 names of 4,000 'a': nothing matches, the lock let others in %llu times",
          (unsigned long long)(sessions_let_in_count() - before));
    CHECK(functions_total(id, "q=aaaaaaaaaaaaaaaaaaaaaaab", first, sizeof(first)) == 0,
          "a long needle (strcasestr) finds nothing either");
    remove_session(id);
}

/* Filters longer than the seam mask's 64 bytes are tested on the whole name
 * joined (fnname.h): one across the cut between type and method parts
 * matches, in either case; one that differs in its last byte does not. */
TEST(a_long_filter_matches_across_a_names_two_parts)
{
    static const char *const type = "Contoso.Orders.Infrastructure.Persistence.Repository<"
                                    "Contoso.Orders.Domain.Order>.";
    char text[512], q_across[160], q_wrong[160], first[32];
    session *s;
    int id;

    sessions_lock();
    s = sessions_create(SESSION_MODE_ATTACH, 4546, "long filter");
    id = s->id;
    snprintf(text, sizeof(text), "%sSaveChangesAsync(CancellationToken)", type);
    name(s, 0xA000, 0, text, 0);
    jit(s, 0xA000, REC_MONO, 10, 16, 1, 0x1000);
    snprintf(text, sizeof(text), "%sLoad()", type);
    name(s, 0xA010, 0, text, 0);
    jit(s, 0xA010, REC_MONO + 1, 10, 16, 1, 0x2000);
    sessions_unlock();
    /* 80 bytes: the type part's last 60, the method part's first 20 */
    snprintf(q_across, sizeof(q_across), "q=%sSAVECHANGESASYNC(CAN", type + strlen(type) - 60);
    snprintf(q_wrong, sizeof(q_wrong), "q=%sSAVECHANGESASYNC(CAX", type + strlen(type) - 60);
    CHECK(functions_total(id, q_across, first, sizeof(first)) == 1 && strcmp(first, "0xa000") == 0,
          "an 80-byte filter across the cut finds the one method");
    CHECK(functions_total(id, q_wrong, first, sizeof(first)) == 0,
          "and one that differs at its end finds none");
    remove_session(id);
}

/* The origin a function of big_session has by construction (origin.h): its
 * CoreLib lies in /app, so the app is self-contained: System.Linq beside it is
 * the framework's; App.dll, Plugin.dll and Other.dll are the app's; module 0
 * holds the dynamic methods. */
static unsigned made_origin(const session_function *f)
{
    switch (f->module_id) {
    case 0: return ORIGIN_DYNAMIC;
    case 0x100:
    case 0x200: return ORIGIN_FRAMEWORK;
    default: return ORIGIN_APP;
    }
}

static int has_tier(const session_function *f, uint32_t tiers)
{
    uint32_t k;

    for (k = 0; k < f->compilation_count; k++)
        if (tiers & (1u << session_function_compilation(f, k).tier))
            return 1;
    return 0;
}

/* recompiled, tier and origin (docs/API.md): each alone and together, with a
 * name filter, counted against what the session holds, over many locked
 * steps; a page of them in the order of the sort; bad values refused. */
TEST(recompiled_tier_and_origin_filters_count_what_they_say)
{
    static const struct {
        const char *arg[4];
        int recompiled; /* -1 any */
        uint32_t tiers, origins;
        const char *q;
        int none; /* 1: the session has no such function */
    } cases[] = {
        {{"recompiled=true"}, 1, 0, 0, NULL, 0},
        {{"recompiled=false"}, 0, 0, 0, NULL, 0},
        {{"tier=Tier1"}, -1, 1u << WIRE_TIER_1, 0, NULL, 0},
        {{"tier=tier0,FullOpts"}, -1, 1u << WIRE_TIER_0 | 1u << WIRE_TIER_FULL_OPTS, 0, NULL, 0},
        {{"origin=app"}, -1, 0, 1u << ORIGIN_APP, NULL, 0},
        {{"origin=framework,dynamic"}, -1, 0, 1u << ORIGIN_FRAMEWORK | 1u << ORIGIN_DYNAMIC, NULL, 0},
        {{"origin=package"}, -1, 0, 1u << ORIGIN_PACKAGE, NULL, 1},
        {{"origin=app", "recompiled=1", "tier=Tier0"},
         1,
         1u << WIRE_TIER_0,
         1u << ORIGIN_APP,
         NULL,
         0},
        {{"origin=dynamic", "recompiled=true", "q=method1"},
         1,
         0,
         1u << ORIGIN_DYNAMIC,
         "method1",
         0},
    };
    static const char *const bad[] = {
        "recompiled=yes", "tier=Tier2",      "tier=",       "tier=Tier0,",
        "origin=mine",    "origin=app,,sdk", "origin=APP ", "recompiled="};
    char path[64];
    size_t c, i, bad_ok = 0;
    session *s;

    if (!CHECK(big_session() > 0, "the session of 60,000 functions"))
        return;
    snprintf(path, sizeof(path), "/api/sessions/%d/functions", g_id);
    for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const char *args[6] = {cases[c].arg[0], cases[c].arg[1], cases[c].arg[2], NULL};
        size_t n = 0, want = 0, k, rows_ok = 1;
        fixture_reply r;
        json_t *list;
        uint64_t before = sessions_let_in_count();

        while (args[n])
            n++;
        args[n++] = "sort=jit_time";
        args[n] = "limit=500";
        r = fixture_call("GET", path, args, NULL);
        sessions_lock();
        s = sessions_get(g_id);
        for (i = 0; i < s->function_count; i++) {
            const session_function *f = &s->functions[i];
            if (!f->jitted ||
                (cases[c].recompiled >= 0 &&
                 (f->jit_count > 1 || f->versions > 1) != cases[c].recompiled) ||
                (cases[c].tiers && !has_tier(f, cases[c].tiers)) ||
                (cases[c].origins && !(cases[c].origins & (1u << made_origin(f)))) ||
                (cases[c].q && !strcasestr(fixture_fn_name(f), cases[c].q)))
                continue;
            want++;
        }
        list = json_object_get(r.json, "functions");
        for (k = 0; k < json_array_size(list); k++) { /* each row is one the filter says */
            json_t *row = json_array_get(list, k);
            const char *origin = json_string_value(json_object_get(row, "origin"));
            if (cases[c].origins &&
                !(origin && (cases[c].origins & (1u << origin_from_name(origin, strlen(origin))))))
                rows_ok = 0;
            if (cases[c].recompiled == 1 &&
                json_integer_value(json_object_get(row, "jit_count")) < 2 &&
                json_integer_value(json_object_get(row, "versions")) < 2)
                rows_ok = 0;
            if (k > 0 && json_integer_value(json_object_get(row, "jit_total_ns")) >
                             json_integer_value(
                                 json_object_get(json_array_get(list, k - 1), "jit_total_ns")))
                rows_ok = 0;
        }
        sessions_unlock();
        CHECK(r.status == 200 &&
                  (size_t)json_integer_value(json_object_get(r.json, "total")) == want &&
                  json_array_size(list) == (want < 500 ? want : 500) && rows_ok &&
                  (want > 0) != cases[c].none && sessions_let_in_count() - before >= 14,
              "%s %s %s: %d, total %lld of %zu, %zu rows as filtered and sorted: %s", args[0],
              cases[c].arg[1] ? args[1] : "", cases[c].arg[2] ? args[2] : "", r.status,
              (long long)json_integer_value(json_object_get(r.json, "total")), want,
              json_array_size(list), rows_ok ? "yes" : "no");
        fixture_reply_free(&r);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *args[] = {bad[i], NULL};
        fixture_reply r = fixture_call("GET", path, args, NULL);
        bad_ok += r.status == 400 && json_string_value(json_object_get(r.json, "error"));
        fixture_reply_free(&r);
    }
    CHECK(bad_ok == sizeof(bad) / sizeof(bad[0]), "%zu of %zu bad filters refused with a 400",
          bad_ok, sizeof(bad) / sizeof(bad[0]));
}

TEST(module_totals_add_up)
{
    struct {
        const char *name;
        uint64_t methods, jits, rejit, jit_ns, il, native;
    } want[5] = {{NULL, 0, 0, 0, 0, 0, 0},
                 {"System.Private.CoreLib", 0, 0, 0, 0, 0, 0},
                 {"System.Linq", 0, 0, 0, 0, 0, 0},
                 {"App", 0, 0, 0, 0, 0, 0},
                 {"Plugin.dll", 0, 0, 0, 0, 0, 0}};
    int status, found = 0, rows_ok = 1;
    size_t i, k;
    json_t *j, *rows;
    uint64_t all = 0, prev = UINT64_MAX;
    session *s;

    if (!CHECK(big_session() > 0, "the session of 60,000 functions"))
        return;
    j = get("/modules/totals", &status);
    rows = json_object_get(j, "modules");
    sessions_lock();
    s = sessions_get(g_id);
    for (i = 0; i < s->function_count; i++) {
        const session_function *f = &s->functions[i];
        const char *m = session_module_name(s, f->module_id);
        if (!f->jitted)
            continue;
        for (k = 0; k < 5; k++)
            if ((!m && !want[k].name) || (m && want[k].name && strcmp(m, want[k].name) == 0))
                break;
        want[k].methods++, want[k].jits += f->jit_count;
        want[k].rejit += f->jit_count > 1 || f->versions > 1;
        want[k].jit_ns += f->jit_time_total_ns, want[k].il += f->il_size;
        want[k].native += f->native_size;
        all++;
    }
    sessions_unlock();
    CHECK(status == 200 && json_array_size(rows) == 5 &&
              (uint64_t)json_integer_value(json_object_get(j, "functions")) == all,
          "five rows (App's two modules are one), %llu functions", (unsigned long long)all);
    for (i = 0; i < json_array_size(rows); i++) {
        json_t *row = json_array_get(rows, i);
        const char *n = json_string_value(json_object_get(row, "module"));
        uint64_t t = (uint64_t)json_integer_value(json_object_get(row, "jit_ns"));
        if (t > prev)
            rows_ok = 0; /* most JIT time first */
        prev = t;
        for (k = 0; k < 5; k++) {
            if (!((!n && !want[k].name) || (n && want[k].name && strcmp(n, want[k].name) == 0)))
                continue;
            found++;
            rows_ok &= (uint64_t)json_integer_value(json_object_get(row, "methods")) ==
                           want[k].methods &&
                       (uint64_t)json_integer_value(json_object_get(row, "jits")) == want[k].jits &&
                       (uint64_t)json_integer_value(json_object_get(row, "rejit")) ==
                           want[k].rejit &&
                       (uint64_t)json_integer_value(json_object_get(row, "jit_ns")) ==
                           want[k].jit_ns &&
                       (uint64_t)json_integer_value(json_object_get(row, "il")) == want[k].il &&
                       (uint64_t)json_integer_value(json_object_get(row, "native")) ==
                           want[k].native;
        }
    }
    CHECK(found == 5 && rows_ok, "each row is the sum of its module's functions, by JIT time");
    json_decref(j);
}

TEST(a_pinned_session_outlives_its_removal)
{
    session *s;
    const char *text;
    char whole[64];
    int id;

    sessions_lock();
    s = sessions_create(SESSION_MODE_ATTACH, 4444, "x");
    id = s->id;
    name(s, 0xAB0, 0, "Pinned.Name()", 0);
    text = session_find_function(s, 0xAB0)->name_record;
    sessions_pin(s);
    sessions_remove(id);
    CHECK(sessions_get(id) == NULL, "removed from the registry at once");
    CHECK(fnname_copy(text, whole, sizeof(whole)) == 13 && strcmp(whole, "Pinned.Name()") == 0 &&
              session_find_function(s, 0xAB0) != NULL,
          "still readable while pinned");
    sessions_unpin(s); /* frees it: ASan reports a leak or a use after free */
    sessions_unlock();
}

TEST(string_pool_pointers_stay_and_interned_strings_are_shared)
{
    strpool p = {0};
    const char *first = strpool_add(&p, "first", 5), *a, *b;
    char text[200];
    unsigned i;
    int stable = 1;

    for (i = 0; i < 20000; i++) { /* past a chunk (1 MiB) */
        snprintf(text, sizeof(text), "%0150u", i);
        if (!strpool_add(&p, text, strlen(text)))
            stable = 0;
    }
    CHECK(stable && p.chunk_count >= 3 && strcmp(first, "first") == 0,
          "three chunks later the first string is where it was");
    a = strpool_intern(&p, "Dyn.Method()", 12);
    b = strpool_intern(&p, "Dyn.Method()x", 12);
    CHECK(a && a == b, "an equal string is interned once");
    CHECK(strpool_intern(&p, "Dyn.Method", 10) != a, "a prefix is another string");
    CHECK(strpool_intern(&p, "a\0b", 3) != strpool_intern(&p, "a\0b", 3),
          "a string with a NUL inside is never found again (a new copy each time)");
    strpool_free(&p);
}

/* The VmFlags line of the mapping of /proc/self/smaps that holds p ("" if none). */
static void vm_flags_of(const void *p, char *out, size_t size)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int inside = 0;

    out[0] = '\0';
    while (f && fgets(line, sizeof(line), f)) {
        char *dash, *space;
        unsigned long lo = strtoul(line, &dash, 16), hi;
        if (*dash == '-' && (hi = strtoul(dash + 1, &space, 16), *space == ' '))
            inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
            snprintf(out, size, "%s", line + 8);
            break;
        }
    }
    if (f)
        fclose(f);
}

TEST(string_pool_reserved_block_and_huge_pages_when_asked)
{
    strpool p = {0};
    const char *first, *late = NULL;
    char text[200], flags[600];
    unsigned i;
    int stable = 1;

    strpool_reserve(&p, 3u << 20); /* three chunks in one block */
    CHECK(p.region && p.region_chunks == 3, "a block of three chunks: %u", p.region_chunks);
    CHECK(strpool_region_bytes(&p) >= 3u << 20 && strpool_region_bytes(&p) < 4u << 20,
          "its size, what a read-back may populate ahead: %zu", strpool_region_bytes(&p));
    first = strpool_add(&p, "first", 5);
    CHECK(first == p.region, "the first string opens the block");
    for (i = 0; i < 40000; i++) { /* about 6 MiB: past the block */
        snprintf(text, sizeof(text), "%0150u", i);
        if (!(late = strpool_add(&p, text, strlen(text))))
            stable = 0;
    }
    CHECK(stable && p.chunk_count >= 6 && p.region_taken == 3 && strcmp(first, "first") == 0,
          "chunks past the block come one by one; the first string stays (%u chunks)",
          p.chunk_count);
    CHECK(late && (late < p.region || late >= p.region + 3 * ((1u << 20) + 64)),
          "the last string is in a chunk of its own");
    CHECK(strpool_bytes(&p) >= (size_t)p.chunk_count << 20, "the pool counts its chunks");
    strpool_free(&p); /* LeakSanitizer: the block and the other chunks freed once each */

    {
        size_t bytes = (size_t)16 << 20;
        char *big = malloc(bytes);
        unsigned long refused = hugemem_refused();
        char err[128] = "";
        CHECK(big != NULL, "16 MiB");
        hugemem_advise(big, bytes);
        vm_flags_of(big + bytes / 2, flags, sizeof(flags));
        CHECK(strstr(flags, " hg") == NULL,
              "by default a big block is not marked for huge pages (VmFlags:%s)", flags);
        CHECK(hugemem_configure("1", err, sizeof(err)) == 0, "JITSCOPE_HUGEPAGES=1 taken");
        hugemem_advise(big, bytes);
        vm_flags_of(big + bytes / 2, flags, sizeof(flags));
        CHECK(strstr(flags, " hg") != NULL || hugemem_refused() == refused + 1,
              "asked for, the middle of a big block is marked for huge pages (VmFlags:%s), or "
              "the refusal is counted",
              flags);
        CHECK(hugemem_configure("yes", err, sizeof(err)) == -1 && strstr(err, "'yes'"),
              "anything but 0 or 1 is refused (%s)", err);
        CHECK(hugemem_configure(NULL, err, sizeof(err)) == 0, "unset: off again");
        free(big);
    }
}

TEST(index_finds_repoints_and_grows)
{
    enum { N = 100000 };
    struct rec {
        uint64_t id;
        uint32_t v;
    } *recs = malloc(N * sizeof(*recs));
    idindex m = {0};
    unsigned i, ok = 1;

    for (i = 0; i < N; i++) {
        recs[i].id = 0x7f0000000000ull + (uint64_t)i * 64u;
        ok &= idindex_put(&m, recs[i].id, i, recs, sizeof(*recs)) == 0;
    }
    for (i = 0; i < N; i++)
        ok &= idindex_get(&m, recs[i].id, recs, sizeof(*recs)) == i;
    CHECK(ok && m.count == N && m.capacity * 7 >= N * 10, "100,000 IDs found after growth");
    CHECK(idindex_get(&m, 0x7f0000000001ull, recs, sizeof(*recs)) == IDINDEX_MISSING &&
              idindex_get(&m, 0, recs, sizeof(*recs)) == IDINDEX_MISSING &&
              idindex_put(&m, 0, 1, recs, sizeof(*recs)) == -1,
          "unknown ID and ID 0: missing");
    recs[7].id = recs[5].id; /* a second record with 5's ID: re-pointed */
    CHECK(idindex_put(&m, recs[5].id, 7, recs, sizeof(*recs)) == 0 && m.count == N &&
              idindex_get(&m, recs[5].id, recs, sizeof(*recs)) == 7,
          "re-pointing keeps one entry");
    idindex_free(&m);
    free(recs);
}

static const check_test tests[] = {
    TEST_ENTRY(every_sort_filter_and_page_as_a_full_sort_would_give),
    TEST_ENTRY(a_query_lets_others_take_the_lock_between_its_steps),
    TEST_ENTRY(a_hostile_filter_still_lets_others_in),
    TEST_ENTRY(a_long_filter_matches_across_a_names_two_parts),
    TEST_ENTRY(recompiled_tier_and_origin_filters_count_what_they_say),
    TEST_ENTRY(module_totals_add_up),
    TEST_ENTRY(a_pinned_session_outlives_its_removal),
    TEST_ENTRY(string_pool_pointers_stay_and_interned_strings_are_shared),
    TEST_ENTRY(string_pool_reserved_block_and_huge_pages_when_asked),
    TEST_ENTRY(index_finds_repoints_and_grows),
    TEST_END,
};

/* Each test starts with the step the query tests are written for. */
static void setup(void) { api_step_functions = 4096; /* many steps in 60,000 functions */ }

int main(int argc, char **argv)
{
    int rc = check_main_each(argc, argv, tests, setup, NULL);

    fixture_sessions_clear();
    return rc;
}
