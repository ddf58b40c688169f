/* test_compare.c -- unit tests for comparing two sessions (server/compare.c,
 * server/api_compare.c): sessions in the registry fed hand-made agent records,
 * then compared through compare_* and through api_handle (GET /api/compare).
 *
 * Matching: a module by its assembly name, else its file name without .dll
 * (the same assembly at two paths, or loaded twice, is one module; its
 * methods' instances are summed), dynamic methods under "(dynamic)",
 * unnamed functions counted and not matched, the runtime's per-process
 * numbers in generated names (Regex12_Scan, lambda_method3) left out of the
 * match. Deltas per method and module,
 * the tier of the latest compilation, only-in-A/only-in-B/both counts, modules
 * loaded in only one. Selection: filters, sorts, paging. The route: 400 for
 * missing or bad parameters, 404 for an unknown session, each section, CSV
 * with its file name. Scale: two sessions of 100,000 functions each, counted
 * exactly (the time is printed, not asserted).
 * Build: make build/tests/test_compare && build/tests/test_compare
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "check.h"
#include "compare.h"
#include "fixtures.h"
#include "records.h"
#include "sessions.h"

/* ---- records ----------------------------------------------------------------- */

static uint64_t g_clock_ns; /* target time of the next compilation, after REC_MONO */

static session *new_session(const char *cmd)
{
    g_clock_ns = 1000000;
    return fixture_session(cmd);
}

static void module(session *s, uint64_t id, const char *path, const char *assembly)
{
    rec_apply(s, rec_module_loaded(id, path, assembly, 0, REC_MONO));
}

/* A named function (name NULL: none) compiled once per entry of jit_ns[]
 * (0-terminated), each with its tier. */
static void function(session *s, uint64_t fid, uint64_t mid, const char *name, int dynamic,
                     const uint64_t *jit_ns, const uint32_t *tiers)
{
    uint16_t flags = dynamic ? WIRE_FLAG_DYNAMIC : 0;
    wire_record r;
    size_t k;

    if (name) {
        r = rec_function_name(fid, dynamic ? 0 : mid, name, flags);
        r.u.function_name.il_size = 20;
        rec_apply(s, r);
    }
    for (k = 0; jit_ns[k]; k++) {
        r = rec_jit_started(fid, 0x71, REC_MONO + g_clock_ns);
        r.flags = flags;
        r.u.jit_started.il_size = 20;
        rec_apply(s, r);
        g_clock_ns += jit_ns[k];
        r = rec_jit_finished(fid, 0x71, 0x7f0000000000ull + fid * 64 + k, 100 + (uint32_t)k,
                             REC_MONO + g_clock_ns, flags);
        r.u.jit_finished.il_size = 20;
        r.u.jit_finished.tier = tiers[k];
        rec_apply(s, r);
        g_clock_ns += 1000;
    }
}

#define JIT(...) ((const uint64_t[]){__VA_ARGS__, 0})
#define TIERS(...) ((const uint32_t[]){__VA_ARGS__})

static int g_a, g_b;

/* A: App (Main, Old), Lib by path only (F), OnlyA (no methods), a dynamic
 * method, a function without a name. B: App at two paths (Main in both, New),
 * Lib with its assembly name (F), Plugin (P), the dynamic method. Made
 * before each test; fixture_sessions_clear removes them after it. */
static void setup(void)
{
    session *a, *b;

    sessions_lock();
    a = new_session("dotnet app.dll");
    b = new_session("dotnet app.dll");
    if (!CHECK(a && b, "the two sessions every test compares are made")) {
        sessions_unlock();
        return;
    }
    module(a, 0x10, "/a/App.dll", "App");
    module(a, 0x11, "/x/Lib.dll", NULL);
    module(a, 0x12, "/a/OnlyA.dll", "OnlyA");
    function(a, 0x100, 0x10, "App.Main()", 0, JIT(1000), TIERS(WIRE_TIER_0));
    function(a, 0x101, 0x10, "App.Old()", 0, JIT(500), TIERS(WIRE_TIER_0));
    function(a, 0x102, 0x11, "Lib.F(int)", 0, JIT(300), TIERS(WIRE_TIER_0));
    function(a, 0x103, 0, "[dynamic] D()", 1, JIT(50), TIERS(WIRE_TIER_FULL_OPTS));
    function(a, 0x104, 0x10, NULL, 0, JIT(70), TIERS(WIRE_TIER_0));
    g_a = a->id;

    module(b, 0x20, "/b/App.dll", "App");
    module(b, 0x21, "/other/App.dll", "App");
    module(b, 0x22, "/y/Lib.dll", "Lib");
    module(b, 0x23, "/b/Plugin.dll", "Plugin");
    function(b, 0x200, 0x20, "App.Main()", 0, JIT(1500, 2000), TIERS(WIRE_TIER_0, WIRE_TIER_1));
    function(b, 0x201, 0x21, "App.Main()", 0, JIT(100), TIERS(WIRE_TIER_0));
    function(b, 0x202, 0x20, "App.New()", 0, JIT(700), TIERS(WIRE_TIER_0));
    function(b, 0x203, 0x22, "Lib.F(int)", 0, JIT(300), TIERS(WIRE_TIER_0));
    function(b, 0x204, 0x23, "Plugin.P()", 0, JIT(40), TIERS(WIRE_TIER_0));
    function(b, 0x205, 0, "[dynamic] D()", 1, JIT(60), TIERS(WIRE_TIER_FULL_OPTS));
    g_b = b->id;
    sessions_unlock();
}

static int build(int a, int b, compare_snapshot *sa, compare_snapshot *sb, compare_result *r)
{
    int rc;

    sessions_lock();
    rc = compare_snapshot_take(sa, sessions_get(a)) | compare_snapshot_take(sb, sessions_get(b));
    sessions_unlock();
    return rc ? rc : compare_build(sa, sb, r);
}

static const compare_method *method(const compare_result *r, const char *module, const char *name)
{
    size_t i;
    for (i = 0; i < r->method_count; i++)
        if (strcmp(r->methods[i].module, module) == 0 && strcmp(r->methods[i].name, name) == 0)
            return &r->methods[i];
    return NULL;
}

static const compare_module *module_row(const compare_result *r, const char *module)
{
    size_t i;
    for (i = 0; i < r->module_count; i++)
        if (strcmp(r->modules[i].module, module) == 0)
            return &r->modules[i];
    return NULL;
}

/* ---- requests ------------------------------------------------------------------ */

static fixture_reply get(const char *const *args)
{
    return fixture_call("GET", "/api/compare", args, NULL);
}

static char g_args[8][64];

/* "a=ID", "b=ID" and up to 5 more, NULL-terminated (static storage). */
static const char *const *query(int a, int b, const char *x1, const char *x2, const char *x3)
{
    static const char *list[9];
    const char *extra[3] = {x1, x2, x3};
    size_t n = 0, i;

    snprintf(g_args[0], sizeof(g_args[0]), "a=%d", a);
    snprintf(g_args[1], sizeof(g_args[1]), "b=%d", b);
    list[n++] = g_args[0];
    list[n++] = g_args[1];
    for (i = 0; i < 3; i++)
        if (extra[i])
            list[n++] = extra[i];
    list[n] = NULL;
    return list;
}

static int status_of(const char *const *args, int want)
{
    return fixture_status_is("GET", "/api/compare", args, NULL, want);
}

/* ---- tests ---------------------------------------------------------------------- */

TEST(matching)
{
    compare_snapshot sa, sb;
    compare_result r;
    const compare_method *m;
    const compare_module *mod;

    CHECK(build(g_a, g_b, &sa, &sb, &r) == 0, "built");
    CHECK(sa.functions == 5 && sa.unnamed == 1 && sa.fn_count == 4, "A: 5 JITed, 1 unnamed");
    CHECK(sb.functions == 6 && sb.unnamed == 0, "B: 6 JITed");
    CHECK(r.methods_in[COMPARE_IN_A] == 1 && r.methods_in[COMPARE_IN_B] == 2 &&
              r.methods_in[COMPARE_IN_BOTH] == 3,
          "1 only in A, 2 only in B, 3 in both (got %zu %zu %zu)", r.methods_in[1], r.methods_in[2],
          r.methods_in[3]);
    m = method(&r, "App", "App.Old()");
    CHECK(m && m->in == COMPARE_IN_A && m->a.jit_ns == 500 && m->b.functions == 0, "Old: only A");
    m = method(&r, "App", "App.New()");
    CHECK(m && m->in == COMPARE_IN_B && m->b.jit_ns == 700, "New: only B");
    CHECK((m = method(&r, "Plugin", "Plugin.P()")) && m->in == COMPARE_IN_B, "P: only B");
    m = method(&r, "App", "App.Main()");
    CHECK(m && m->in == COMPARE_IN_BOTH, "Main: in both (two paths of App in B)");
    CHECK(m && m->a.jit_ns == 1000 && m->a.compilations == 1 && m->a.tier == WIRE_TIER_0,
          "Main in A: 1000 ns, 1 compilation, Tier0");
    CHECK(m && m->b.jit_ns == 3600 && m->b.compilations == 3 && m->b.functions == 2,
          "Main in B: two instances summed (1500 + 2000 + 100 ns, 3 compilations)");
    CHECK(m && m->b.tier == WIRE_TIER_0, "Main in B: the tier of the latest compilation "
                                         "(the second instance's Tier0, after Tier1)");
    CHECK(m && compare_delta_ns(&m->a, &m->b) == 2600, "Main: delta +2600 ns");
    m = method(&r, "Lib", "Lib.F(int)");
    CHECK(m && m->in == COMPARE_IN_BOTH && compare_delta_ns(&m->a, &m->b) == 0,
          "Lib matched by file name (A) and assembly name (B), delta 0");
    m = method(&r, COMPARE_DYNAMIC, "[dynamic] D()");
    CHECK(m && m->in == COMPARE_IN_BOTH && compare_delta_ns(&m->a, &m->b) == 10 &&
              m->a.tier == WIRE_TIER_FULL_OPTS,
          "dynamic method matched by name, delta +10 ns, FullOpts");
    m = method(&r, "App", "App.Old()");
    CHECK(m && compare_delta_ns(&m->a, &m->b) == -500, "only in A: delta -500");

    mod = module_row(&r, "App");
    CHECK(mod && mod->in == COMPARE_IN_BOTH && mod->a_loads == 1 && mod->b_loads == 2,
          "App: both, loaded once in A and twice in B");
    CHECK(mod && mod->a.functions == 2 && mod->b.functions == 2 && mod->only_a == 1 &&
              mod->only_b == 1,
          "App: 2 methods each side, 1 only in A, 1 only in B");
    CHECK(mod && mod->a.jit_ns == 1500 && mod->b.jit_ns == 4300 &&
              compare_delta_ns(&mod->a, &mod->b) == 2800,
          "App: 1500 vs 4300 ns");
    CHECK(mod && mod->a_path && strcmp(mod->a_path, "/a/App.dll") == 0 && mod->b_path &&
              strcmp(mod->b_path, "/b/App.dll") == 0,
          "App: each side's first path");
    CHECK((mod = module_row(&r, "OnlyA")) && mod->in == COMPARE_IN_A && mod->a.functions == 0,
          "OnlyA: loaded only in A, no methods");
    CHECK((mod = module_row(&r, "Plugin")) && mod->in == COMPARE_IN_B, "Plugin: only in B");
    CHECK((mod = module_row(&r, COMPARE_DYNAMIC)) && mod->in == COMPARE_IN_BOTH &&
              mod->a_loads == 0,
          "(dynamic): both, no module instance");
    CHECK(r.modules_in[COMPARE_IN_A] == 1 && r.modules_in[COMPARE_IN_B] == 1 &&
              r.modules_in[COMPARE_IN_BOTH] == 3,
          "modules: 1 only A, 1 only B, 3 both");
    compare_result_free(&r);
    compare_snapshot_free(&sa);
    compare_snapshot_free(&sb);
}

/* The runtime numbers compiled regexes and expression-tree lambdas per
 * process: two runs of one program name them differently. */
TEST(generated_names)
{
    static const struct {
        const char *name, *stable; /* stable NULL: left as it is */
    } cases[] = {
        {"[dynamic] Regex12_Scan(RegexRunner, ReadOnlySpan<char>)",
         "[dynamic] Regex*_Scan(RegexRunner, ReadOnlySpan<char>)"},
        {"[dynamic] Regex213_TryFindNextPossibleStartingPosition(RegexRunner, ReadOnlySpan<char>)",
         "[dynamic] Regex*_TryFindNextPossibleStartingPosition(RegexRunner, ReadOnlySpan<char>)"},
        {"[dynamic] Regex3_Go(RegexRunner)", "[dynamic] Regex*_Go(RegexRunner)"},
        {"[dynamic] Regex4_Scan_\\d+x(RegexRunner, ReadOnlySpan<char>)",
         "[dynamic] Regex*_Scan_\\d+x(RegexRunner, ReadOnlySpan<char>)"},
        {"[dynamic] lambda_method41(Closure, int)", "[dynamic] lambda_method*(Closure, int)"},
        {"[dynamic] lambda_method7", "[dynamic] lambda_method*"},
        {"[dynamic] lambda_methods(Closure)", NULL},
        {"[dynamic] Regex_Scan(RegexRunner)", NULL},
        {"[dynamic] Regex12Scan(RegexRunner)", NULL},
        {"[dynamic] get_Item1(object)", NULL},
        {"[IL stub] IL_STUB_PInvoke(int)", NULL},
        {"Regex12_Scan(RegexRunner)", NULL},
        {"App.<>c__DisplayClass0_0.<Main>b__0(int)", NULL},
    };
    char out[256];
    size_t i;
    compare_snapshot sa, sb;
    compare_result r;
    const compare_method *m;
    session *a, *b;
    int ida, idb;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int changed;
        memset(out, 'x', sizeof(out));
        out[sizeof(out) - 1] = '\0';
        changed = compare_stable_name(cases[i].name, out, sizeof(out));
        if (cases[i].stable)
            CHECK(changed == 1 && strcmp(out, cases[i].stable) == 0, "%s -> %s (got %s)",
                  cases[i].name, cases[i].stable, changed ? out : "unchanged");
        else
            CHECK(changed == 0, "%s stays as it is", cases[i].name);
    }
    CHECK(compare_stable_name("[dynamic] Regex12_Scan(x)", out, 12) == 1 &&
              strcmp(out, "[dynamic] R") == 0,
          "cut to the buffer");

    /* A compiled two regexes and a lambda, B the same program one regex later */
    sessions_lock();
    a = new_session("dotnet regex.dll");
    module(a, 0x10, "/a/App.dll", "App");
    function(a, 0x300, 0, "[dynamic] Regex1_Scan(RegexRunner, ReadOnlySpan<char>)", 1, JIT(100),
             TIERS(WIRE_TIER_FULL_OPTS));
    function(a, 0x301, 0, "[dynamic] Regex2_Scan(RegexRunner, ReadOnlySpan<char>)", 1, JIT(200),
             TIERS(WIRE_TIER_FULL_OPTS));
    function(a, 0x302, 0, "[dynamic] lambda_method3(Closure, int)", 1, JIT(30),
             TIERS(WIRE_TIER_FULL_OPTS));
    function(a, 0x303, 0x10, "App.Regex1_Scan()", 0, JIT(10), TIERS(WIRE_TIER_0));
    ida = a->id;
    b = new_session("dotnet regex.dll");
    module(b, 0x20, "/b/App.dll", "App");
    function(b, 0x400, 0, "[dynamic] Regex213_Scan(RegexRunner, ReadOnlySpan<char>)", 1, JIT(150),
             TIERS(WIRE_TIER_FULL_OPTS));
    function(b, 0x401, 0, "[dynamic] lambda_method9(Closure, int)", 1, JIT(40),
             TIERS(WIRE_TIER_FULL_OPTS));
    function(b, 0x402, 0x20, "App.Regex2_Scan()", 0, JIT(10), TIERS(WIRE_TIER_0));
    idb = b->id;
    sessions_unlock();

    CHECK(build(ida, idb, &sa, &sb, &r) == 0, "built");
    m = method(&r, COMPARE_DYNAMIC, "[dynamic] Regex*_Scan(RegexRunner, ReadOnlySpan<char>)");
    CHECK(m && m->in == COMPARE_IN_BOTH && m->a.functions == 2 && m->b.functions == 1 &&
              m->a.jit_ns == 300 && m->b.jit_ns == 150,
          "Regex1/2_Scan in A and Regex213_Scan in B: one row, in both, 2 and 1 functions");
    m = method(&r, COMPARE_DYNAMIC, "[dynamic] lambda_method*(Closure, int)");
    CHECK(m && m->in == COMPARE_IN_BOTH && compare_delta_ns(&m->a, &m->b) == 10,
          "lambda_method3 and lambda_method9: one row, delta +10 ns");
    CHECK(method(&r, "App", "App.Regex1_Scan()") && method(&r, "App", "App.Regex2_Scan()") &&
              r.methods_in[COMPARE_IN_A] == 1 && r.methods_in[COMPARE_IN_B] == 1 &&
              r.methods_in[COMPARE_IN_BOTH] == 2,
          "a method of the app's own named so keeps its number (1 only in A, 1 only in B)");
    compare_result_free(&r);
    compare_snapshot_free(&sa);
    compare_snapshot_free(&sb);
    sessions_lock();
    sessions_remove(ida);
    sessions_remove(idb);
    sessions_unlock();
}

TEST(selection)
{
    compare_snapshot sa, sb;
    compare_result r;
    size_t *idx = NULL, n = 0;

    CHECK(build(g_a, g_b, &sa, &sb, &r) == 0, "built");
    CHECK(compare_select(&r, 1, COMPARE_SEL_ALL, NULL, NULL, COMPARE_SORT_DELTA, 1, &idx, &n) ==
                  0 &&
              n == 6,
          "all 6 methods");
    CHECK(n == 6 && strcmp(r.methods[idx[0]].name, "App.Main()") == 0 &&
              strcmp(r.methods[idx[1]].name, "App.New()") == 0 &&
              strcmp(r.methods[idx[5]].name, "App.Old()") == 0,
          "by delta, largest increase first, largest decrease last");
    free(idx);
    CHECK(compare_select(&r, 1, COMPARE_SEL_ALL, NULL, NULL, COMPARE_SORT_ABS_DELTA, 1, &idx, &n) ==
                  0 &&
              n == 6 && strcmp(r.methods[idx[2]].name, "App.Old()") == 0,
          "by |delta|: Main, New, Old");
    free(idx);
    CHECK(compare_select(&r, 1, COMPARE_SEL_B, NULL, NULL, COMPARE_SORT_NAME, 0, &idx, &n) == 0 &&
              n == 2 && strcmp(r.methods[idx[0]].name, "App.New()") == 0 &&
              strcmp(r.methods[idx[1]].name, "Plugin.P()") == 0,
          "only B by name");
    free(idx);
    CHECK(compare_select(&r, 1, COMPARE_SEL_ALL, "main", NULL, COMPARE_SORT_NAME, 0, &idx, &n) ==
                  0 &&
              n == 1,
          "q= is a case-insensitive substring");
    free(idx);
    CHECK(compare_select(&r, 1, COMPARE_SEL_A | COMPARE_SEL_BOTH, NULL, "app", COMPARE_SORT_MODULE,
                         0, &idx, &n) == 0 &&
              n == 2 && strcmp(r.methods[idx[0]].name, "App.Main()") == 0,
          "module= filter with two classes of rows");
    free(idx);
    CHECK(compare_select(&r, 0, COMPARE_SEL_A | COMPARE_SEL_B, NULL, NULL, COMPARE_SORT_NAME, 0,
                         &idx, &n) == 0 &&
              n == 2 && strcmp(r.modules[idx[0]].module, "OnlyA") == 0 &&
              strcmp(r.modules[idx[1]].module, "Plugin") == 0,
          "modules loaded in only one");
    free(idx);
    compare_result_free(&r);
    compare_snapshot_free(&sa);
    compare_snapshot_free(&sb);
}

TEST(route)
{
    const char *none[] = {NULL}, *only_a[] = {"a=1", NULL}, *bad[] = {"a=1", "b=x", NULL};
    const char *zero[] = {"a=0", "b=1", NULL};
    fixture_reply r;
    json_t *rows;
    char want[128];

    CHECK(status_of(none, 400), "no a, b: 400");
    CHECK(status_of(only_a, 400), "no b: 400");
    CHECK(status_of(bad, 400), "b=x: 400");
    CHECK(status_of(zero, 400), "a=0: 400");
    CHECK(status_of(query(g_a, 999, NULL, NULL, NULL), 404), "unknown session: 404");
    CHECK(status_of(query(g_a, g_b, "section=x", NULL, NULL), 400), "section=x: 400");
    CHECK(status_of(query(g_a, g_b, "section=methods", "only=c", NULL), 400), "only=c: 400");
    CHECK(status_of(query(g_a, g_b, "only=a", NULL, NULL), 400), "only= without section: 400");
    CHECK(status_of(query(g_a, g_b, "section=methods", "sort=size", NULL), 400), "sort: 400");
    CHECK(status_of(query(g_a, g_b, "section=methods", "order=up", NULL), 400), "order: 400");
    CHECK(status_of(query(g_a, g_b, "section=methods", "limit=0", NULL), 400), "limit=0: 400");
    CHECK(status_of(query(g_a, g_b, "format=csv", NULL, NULL), 400), "csv of all: 400");
    CHECK(status_of(query(g_a, g_b, "section=methods", "format=xml", NULL), 400), "xml: 400");
    CHECK(status_of(query(g_a, g_a, NULL, NULL, NULL), 200), "a session with itself: 200");

    r = get(query(g_a, g_b, NULL, NULL, NULL));
    CHECK(r.status == 200, "all: 200");
    CHECK(json_integer_value(json_object_get(json_object_get(r.json, "a"), "id")) == g_a &&
              json_integer_value(json_object_get(json_object_get(r.json, "b"), "id")) == g_b,
          "the two session summaries");
    CHECK(json_integer_value(json_object_get(
              json_object_get(json_object_get(r.json, "summary"), "methods"), "only_b")) == 2,
          "summary.methods.only_b");
    CHECK(json_integer_value(json_object_get(
              json_object_get(json_object_get(r.json, "summary"), "a"), "unnamed")) == 1,
          "summary.a.unnamed");
    CHECK(json_integer_value(json_object_get(
              json_object_get(json_object_get(r.json, "summary"), "b"), "only_jit_ns")) == 740,
          "summary.b.only_jit_ns: New + P");
    rows = json_object_get(json_object_get(json_object_get(r.json, "methods"), "only_a"), "rows");
    CHECK(json_array_size(rows) == 1 &&
              strcmp(json_string_value(json_object_get(json_array_get(rows, 0), "name")),
                     "App.Old()") == 0 &&
              json_is_null(json_object_get(json_array_get(rows, 0), "b_jit_ns")),
          "methods.only_a: Old, b_jit_ns null");
    CHECK(json_integer_value(json_object_get(json_object_get(r.json, "modules"), "total")) == 5,
          "modules.total 5");
    fixture_reply_free(&r);

    r = get(query(g_a, g_b, "section=methods", "only=both", "sort=delta"));
    rows = json_object_get(json_object_get(r.json, "methods"), "rows");
    CHECK(r.status == 200 && json_array_size(rows) == 3 && !json_object_get(r.json, "summary"),
          "section=methods: only that list");
    CHECK(json_integer_value(json_object_get(json_array_get(rows, 0), "delta_jit_ns")) == 2600 &&
              strcmp(json_string_value(json_object_get(json_array_get(rows, 0), "b_tier")),
                     "Tier0") == 0 &&
              json_integer_value(json_object_get(json_array_get(rows, 0), "b_functions")) == 2,
          "Main first: +2600 ns, b_tier, b_functions 2");
    fixture_reply_free(&r);

    r = get(query(g_a, g_b, "section=methods", "limit=1", "offset=1"));
    rows = json_object_get(json_object_get(r.json, "methods"), "rows");
    CHECK(json_array_size(rows) == 1 &&
              json_integer_value(json_object_get(json_object_get(r.json, "methods"), "total")) == 6,
          "paging: one row of 6");
    fixture_reply_free(&r);

    r = get(query(g_a, g_b, "section=modules", "only=b", "format=csv"));
    CHECK(r.status == 200 && r.text &&
              strncmp(r.text, "module,in,a_jit_ns,b_jit_ns,delta_jit_ns,", 41) == 0 &&
              strstr(r.text, "\r\nPlugin,b,0,40,40,") != NULL,
          "modules only in B as CSV: %s", r.text ? r.text : "(none)");
    snprintf(want, sizeof(want), "attachment; filename=\"jitscope-compare-%d-%d-modules-b.csv\"",
             g_a, g_b);
    CHECK(strcmp(r.disposition, want) == 0, "file name: %s", r.disposition);
    fixture_reply_free(&r);
}

static double ms_between(const struct timespec *t0, const struct timespec *t1)
{
    return (double)(t1->tv_sec - t0->tv_sec) * 1e3 + (double)(t1->tv_nsec - t0->tv_nsec) / 1e6;
}

/* Two sessions of 100,000 functions each, 1,000 different on each side. */
TEST(scale)
{
    compare_snapshot snap;
    enum { N = 100000, DIFF = 1000 };
    struct timespec t0, t1;
    session *a, *b;
    char name[96];
    fixture_reply r;
    json_t *s;
    size_t i;

    sessions_lock();
    a = new_session("dotnet big.dll");
    module(a, 0x10, "/a/Big.dll", "Big");
    for (i = 0; i < N; i++) {
        snprintf(name, sizeof(name), "Big.Type%zu.Method(int, string)", i);
        function(a, 0x100000 + i, 0x10, name, 0, JIT(100 + i % 7), TIERS(WIRE_TIER_0));
    }
    b = new_session("dotnet big.dll");
    module(b, 0x20, "/b/Big.dll", "Big");
    for (i = DIFF; i < N + DIFF; i++) {
        snprintf(name, sizeof(name), "Big.Type%zu.Method(int, string)", i);
        function(b, 0x900000 + i, 0x20, name, 0, JIT(100 + i % 5), TIERS(WIRE_TIER_0));
    }
    sessions_unlock();
    clock_gettime(CLOCK_MONOTONIC, &t0);
    r = get(query(a->id, b->id, "section=methods", "only=b", "sort=name"));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("    100,000 vs 100,000 functions: the request took %.1f ms\n", ms_between(&t0, &t1));
    sessions_lock(); /* what the lock is held for: one session's copy */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(compare_snapshot_take(&snap, a) == 0, "snapshot");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    sessions_unlock();
    compare_snapshot_free(&snap);
    printf("    copying one session of 100,000 functions under the lock: %.1f ms\n",
           ms_between(&t0, &t1));
    s = json_object_get(r.json, "methods");
    CHECK(r.status == 200 && json_integer_value(json_object_get(s, "total")) == DIFF,
          "1,000 only in B");
    CHECK(strcmp(json_string_value(
                     json_object_get(json_array_get(json_object_get(s, "rows"), 0), "name")),
                 "Big.Type100000.Method(int, string)") == 0,
          "sorted by name");
    fixture_reply_free(&r);
    r = get(query(a->id, b->id, "section=summary", NULL, NULL));
    s = json_object_get(json_object_get(r.json, "summary"), "methods");
    CHECK(json_integer_value(json_object_get(s, "only_a")) == DIFF &&
              json_integer_value(json_object_get(s, "both")) == N - DIFF,
          "1,000 only in A, 99,000 in both");
    fixture_reply_free(&r);
}

static const check_test tests[] = {
    TEST_ENTRY(matching), TEST_ENTRY(generated_names), TEST_ENTRY(selection),
    TEST_ENTRY(route),    TEST_ENTRY(scale),           TEST_END,
};

int main(int argc, char **argv)
{
    return check_main_each(argc, argv, tests, setup, fixture_sessions_clear);
}
