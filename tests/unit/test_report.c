/* test_report.c -- the CI report: the --fail-on grammar (server/report_cond.c)
 * with what it takes and, above all, what it refuses (hostile and mistyped
 * conditions: each refused with a message that says what is wrong); the
 * baseline check (a file that is not a report this jitscope reads); judging
 * against a baseline (relative and absolute thresholds, scopes, what is not
 * known); the Markdown (report_md.c: names from the run cannot break its
 * tables or add markup); and report_build (report.c) over a run of two
 * sessions made here.
 * Build: make build/tests/test_report && build/tests/test_report
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixtures.h"
#include "records.h"
#include "report.h"
#include "report_cond.h"
#include "report_md.h"
#include "sessions.h"

static report_conds g_conds;
static char g_err[512];

static int parses(const char *text)
{
    memset(&g_conds, 0, sizeof(g_conds));
    g_err[0] = '\0';
    return report_cond_parse(text, &g_conds, g_err, sizeof(g_err)) == 0;
}

TEST(conditions_parse_as_written)
{
    const report_cond *c = &g_conds.items[0];

    CHECK(parses("jit_time>+20%") && g_conds.count == 1 && c->metric == REPORT_JIT_TIME &&
              c->op == REPORT_GT && c->kind == REPORT_PERCENT && c->threshold == 20 &&
              c->scope[0] == '\0' && g_conds.relative,
          "jit_time>+20%%: 20%% over the baseline (%s)", g_err);
    CHECK(parses(" testhost : jit_count >= +500 ") && c->metric == REPORT_JIT_COUNT &&
              c->op == REPORT_GE && c->kind == REPORT_DELTA && c->threshold == 500 &&
              strcmp(c->scope, "testhost") == 0 &&
              strcmp(c->text, "testhost : jit_count >= +500") == 0,
          "a scope, >=, a count delta, spaces around (%s)", g_err);
    CHECK(parses("jit_time>2s") && c->kind == REPORT_ABSOLUTE && c->threshold == 2000 &&
              !g_conds.relative,
          "2s is 2,000 ms, absolute");
    CHECK(parses("first_own_code<=-250us") && c->op == REPORT_LE && c->kind == REPORT_DELTA &&
              fabs(c->threshold + 0.25) < 1e-9,
          "-250us: 0.25 ms less than the baseline");
    CHECK(parses("total:duration<.5s") && c->threshold == 500 && c->scope[0] == '\0',
          "total is the whole run; .5s");
    CHECK(parses("dotnet test:my_jit_time>1500, r2r_used<-10%,drops>0") && g_conds.count == 3 &&
              strcmp(c->scope, "dotnet test") == 0 && g_conds.items[1].metric == REPORT_R2R_USED &&
              g_conds.items[1].op == REPORT_LT && g_conds.items[1].threshold == -10 &&
              g_conds.items[2].metric == REPORT_DROPS && g_conds.items[2].threshold == 0,
          "three, comma-separated, a program with a space (%s)", g_err);
    CHECK(parses("jit_time > 20 %") == 0, "20 %% without a sign is refused (relative needs one)");
    CHECK(parses("jit_time>+20 %") && g_conds.items[0].kind == REPORT_PERCENT,
          "a space before %% is fine");
}

TEST(hostile_and_mistyped_conditions_are_refused_with_a_reason)
{
    static const struct {
        const char *text, *says;
    } bad[] = {
        {"", "empty"},
        {",", "empty"},
        {"jit_time>1,", "empty"},
        {"jit_time", "no comparison"},
        {"jit_time=5", "no comparison"},
        {"jit_time>", "no number"},
        {"jit_time>>1", "more than one comparison"},
        {"jit_time>=<1", "more than one comparison"},
        {"jit_time>1=", "more than one comparison"},
        {"jit_tme>1", "unknown metric 'jit_tme'"},
        {">1", "unknown metric ''"},
        {"JIT_TIME>1", "unknown metric"},
        {":jit_time>1", "an empty scope"},
        {"a:b:jit_time>1", "more than one ':'"},
        {"jit_time>abc", "no number"},
        {"jit_time>+-5", "no number"},
        {"jit_time>1.2.3", "no number"},
        {"jit_time>1e5", "unknown unit 'e5'"},
        {"jit_time>0x10", "unknown unit 'x10'"},
        {"jit_time>inf", "no number"},
        {"jit_time>nan", "no number"},
        {"jit_time>5h", "unknown unit 'h'"},
        {"jit_time>5 ms extra", "unknown unit"},
        {"jit_time>20%", "a percentage is relative"},
        {"jit_count>5ms", "a count: no unit"},
        {"drops>+1%x", "a count: no unit"},
        {"jit_time>10000000000000", "larger than 1e12"},
        {"jit_time>99999999999999999999999999999999999999999", "no number"},
        {"jit\x01time>1", "a control character"},
        {"jit_time>1\n", "a control character"},
    };
    char long_scope[300], many[1200];
    size_t i, n, failed = 0;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (parses(bad[i].text) || !strstr(g_err, bad[i].says) ||
            !strstr(g_err, "--fail-on condition")) {
            printf("    '%s': %s\n", bad[i].text, g_err[0] ? g_err : "accepted");
            failed++;
        }
    CHECK(failed == 0, "%zu of %zu bad conditions accepted or refused without their reason", failed,
          sizeof(bad) / sizeof(bad[0]));
    memset(long_scope, 'a', sizeof(long_scope));
    memcpy(long_scope + 250, ":jit_time>1", 12);
    CHECK(!parses(long_scope) && strstr(g_err, "longer than 255 bytes"),
          "a condition of 261 bytes");
    memset(long_scope, 'a', 70);
    memcpy(long_scope + 70, ":jit_time>1", 12);
    CHECK(!parses(long_scope) && strstr(g_err, "a scope longer than 63"), "a scope of 70 bytes");
    for (i = 0, n = 0; i < 33; i++)
        n += (size_t)snprintf(many + n, sizeof(many) - n, "%sdrops>0", i ? "," : "");
    CHECK(!parses(many) && strstr(g_err, "more than 32 conditions"), "33 conditions");
    memset(&g_conds, 0, sizeof(g_conds));
    for (i = 0; i < 32; i++)
        report_cond_parse("drops>0", &g_conds, g_err, sizeof(g_err));
    CHECK(report_cond_parse("drops>0", &g_conds, g_err, sizeof(g_err)) != 0 && g_conds.count == 32,
          "--fail-on given again counts towards the same 32");
}

/* A report as report.c writes it, trimmed to what the metrics read: a
 * `dotnet test` (no own code) and a testhost of the given numbers. */
static json_t *made_report(double host_jit_ms, long host_jits, json_t *first_own)
{
    return json_pack(
        "{s:i, s:s, s:s, s:s, s:[{s:s, s:i, s:{s:i, s:f, s:i, s:i, s:{s:{s:f}}}, s:{s:n}, "
        "s:f, s:{s:i, s:i}, s:{s:i}}, {s:s, s:i, s:{s:i, s:f, s:i, s:i, s:{s:{s:f}}}, "
        "s:{s:o}, s:f, s:{s:n, s:n}, s:{s:i}}]}",
        "report_version", 1, "program", "dotnet test", "command_line", "dotnet test",
        "jitscope_version", "0.1", "processes", "program", "dotnet test", "pid", 100, "jit",
        "count", 5000, "time_ms", 2000.0, "methods", 4800, "recompiled", 100, "by_origin", "app",
        "time_ms", 0.0, "first_own_code", "ms", "duration_ms", 9000.0, "ready_to_run",
        "methods_used", 11000, "jitted_in_precompiled", 2000, "drops", "total", 0, "program",
        "testhost", "pid", 101, "jit", "count", host_jits, "time_ms", host_jit_ms, "methods",
        host_jits, "recompiled", 1, "by_origin", "app", "time_ms", host_jit_ms / 2,
        "first_own_code", "ms", first_own, "duration_ms", 2500.0, "ready_to_run", "methods_used",
        "jitted_in_precompiled", "drops", "total", 3);
}

static int check_baseline(const char *json, const char *says)
{
    json_error_t jerr;
    json_t *b = json_loads(json, 0, &jerr);
    int rc;

    g_err[0] = '\0';
    rc = report_baseline_check(b, g_err, sizeof(g_err));
    json_decref(b);
    if (says && (rc == 0 || !strstr(g_err, says)))
        printf("    %s: %s\n", json, rc == 0 ? "accepted" : g_err);
    return says ? rc != 0 && strstr(g_err, says) != NULL : rc == 0;
}

TEST(a_baseline_must_be_a_report_this_jitscope_reads)
{
    json_t *good = made_report(1000, 4000, json_real(150));
    char *text = json_dumps(good, 0);
    size_t ok = 0, n = 0;

    CHECK(check_baseline(text, NULL), "a report is a baseline (%s)", g_err);
    free(text);
    json_decref(good);
    n++, ok += check_baseline("[1,2]", "not a jitscope report");
    n++, ok += check_baseline("{}", "no report_version");
    n++, ok += check_baseline("{\"report_version\": \"1\"}", "no report_version");
    n++, ok += check_baseline("{\"report_version\": 0}", "no report_version");
    n++, ok += check_baseline("{\"report_version\": 2, \"processes\": []}", "newer than this");
    n++, ok += check_baseline("{\"report_version\": 1}", "processes: not an array");
    n++, ok += check_baseline("{\"report_version\": 1, \"processes\": [7]}",
                              "processes[0]: not an object");
    n++, ok += check_baseline("{\"report_version\": 1, \"processes\": [{\"program\": 5}]}",
                              "processes[0].program: not a string");
    n++, ok += check_baseline("{\"report_version\": 1, \"processes\": [{\"program\": \"x\"}]}",
                              "processes[0].jit.time_ms: not a number");
    n++, ok += check_baseline("{\"report_version\": 1, \"program\": [], \"processes\": []}",
                              "program: not a string");
    n++, ok += check_baseline("{\"report_version\": 1, \"generated_ms\": \"x\", \"processes\": []}",
                              "generated_ms: not a number");
    good = made_report(1000, 4000, json_real(150));
    json_object_set_new(
        json_object_get(json_array_get(json_object_get(good, "processes"), 1), "jit"), "count",
        json_real(1.5));
    text = json_dumps(good, 0);
    n++, ok += check_baseline(text, "processes[1].jit.count: not a whole number");
    free(text);
    json_object_set_new(
        json_object_get(json_array_get(json_object_get(good, "processes"), 1), "jit"), "count",
        json_integer(-3));
    text = json_dumps(good, 0);
    n++, ok += check_baseline(text, "processes[1].jit.count: not a whole number of 0 or more");
    free(text);
    json_decref(good);
    CHECK(ok == n, "%zu of %zu bad baselines refused with the field that is wrong", ok, n);
}

static const json_t *condition(const json_t *report, size_t i)
{
    return json_array_get(json_object_get(report, "conditions"), i);
}

TEST(conditions_are_judged_against_the_baseline)
{
    json_t *base = made_report(1000, 4000, json_real(150));
    json_t *now = made_report(1300, 4600, json_null());
    int held;

    memset(&g_conds, 0, sizeof(g_conds));
    CHECK(report_cond_parse("jit_time>+20%,testhost:jit_time>+20%,testhost:jit_count>+500,"
                            "testhost:jit_count>+700,jit_time>10s,testhost:first_own_code>200,"
                            "vstest.console:jit_time>1,processes<3,TESTHOST:drops>=3",
                            &g_conds, g_err, sizeof(g_err)) == 0,
          "nine conditions (%s)", g_err);
    held = report_judge(now, base, "base.json", &g_conds);
    CHECK(held == 4, "4 held, not %d", held);
    /* the run: 3,300 ms against 3,000: +10% */
    CHECK(json_is_false(json_object_get(condition(now, 0), "held")) &&
              json_number_value(json_object_get(condition(now, 0), "limit")) == 3600,
          "jit_time>+20%%: 3,300 ms is under 3,600");
    CHECK(json_is_true(json_object_get(condition(now, 1), "held")) &&
              json_number_value(json_object_get(condition(now, 1), "value")) == 1300 &&
              json_number_value(json_object_get(condition(now, 1), "baseline")) == 1000,
          "testhost:jit_time>+20%%: 1,300 over 1,200");
    CHECK(json_is_true(json_object_get(condition(now, 2), "held")) &&
              json_is_false(json_object_get(condition(now, 3), "held")),
          "600 more JITs: over +500, not over +700");
    CHECK(json_is_false(json_object_get(condition(now, 4), "held")),
          "absolute: 3.3 s is not over 10 s");
    CHECK(json_is_null(json_object_get(condition(now, 5), "held")) &&
              strstr(json_string_value(json_object_get(condition(now, 5), "why")), "not known"),
          "first_own_code unknown now: not judged, and why");
    CHECK(json_is_null(json_object_get(condition(now, 6), "held")) &&
              strstr(json_string_value(json_object_get(condition(now, 6), "why")),
                     "no process of that program ran"),
          "a program that did not run: not judged");
    CHECK(json_is_true(json_object_get(condition(now, 7), "held")) &&
              json_is_true(json_object_get(condition(now, 8), "held")),
          "processes<3 (an absolute count) and a scope in other case");
    CHECK(strcmp(json_string_value(json_object_get(now, "verdict")), "fail") == 0, "verdict fail");
    CHECK(strcmp(json_string_value(json_object_get(json_object_get(now, "baseline"), "file")),
                 "base.json") == 0 &&
              json_array_size(json_object_get(now, "comparison")) >= 20,
          "the baseline and the comparison are in the report (%zu rows)",
          json_array_size(json_object_get(now, "comparison")));
    json_decref(now);

    /* without a baseline: relative conditions are not judged, absolute ones are */
    now = made_report(1300, 4600, json_real(90));
    memset(&g_conds, 0, sizeof(g_conds));
    report_cond_parse("jit_time>+20%,testhost:first_own_code>200", &g_conds, g_err, sizeof(g_err));
    CHECK(report_judge(now, NULL, NULL, &g_conds) == 0 &&
              json_is_null(json_object_get(condition(now, 0), "held")) &&
              json_is_false(json_object_get(condition(now, 1), "held")) &&
              strcmp(json_string_value(json_object_get(now, "verdict")), "pass") == 0 &&
              json_is_null(json_object_get(now, "baseline")) &&
              json_array_size(json_object_get(now, "comparison")) == 0,
          "no baseline: the relative one not judged, verdict pass");
    json_decref(now);
    now = made_report(1300, 4600, json_real(90));
    CHECK(report_judge(now, NULL, NULL, NULL) == 0 && json_is_null(json_object_get(now, "verdict")),
          "no conditions: no verdict");
    json_decref(now);
    json_decref(base);
}

/* The number of unescaped '|' in a line. */
static int pipes(const char *line, size_t n)
{
    int count = 0;
    size_t i;

    for (i = 0; i < n; i++)
        count += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
    return count;
}

TEST(markdown_escapes_what_comes_from_the_run)
{
    json_t *r = made_report(1300, 4600, json_real(90));
    json_t *host = json_array_get(json_object_get(r, "processes"), 1);
    size_t length, rows = 0, bad_rows = 0;
    char *md, *line, *next;

    json_object_set_new(host, "program", json_string("test|host<script>alert(1)</script>"));
    json_object_set_new(
        host, "slowest",
        json_pack("[{s:s, s:s, s:s, s:s, s:f, s:f}, {s:s, s:s, s:s, s:s, s:f, s:n}]", "name",
                  "Ns.T<int>.M(a|b)\n## not a heading", "module", "M*d_u`le", "origin", "app",
                  "tier", "Tier0", "jit_ms", 12.5, "at_ms", 30.0, "name", "Ns.`Tick`<T>.Run(int)",
                  "module", "[link](http://x)", "origin", "app", "tier", "Tier1", "jit_ms", 3.25,
                  "at_ms"));
    json_object_set_new(r, "session_id", json_integer(1));
    md = report_markdown(r, &length);
    if (!CHECK(md && length == strlen(md), "Markdown made"))
        goto done;
    CHECK(!strstr(md, "<script>") && strstr(md, "&lt;script&gt;"), "no markup from a name");
    CHECK(!strstr(md, "\n## not a heading"), "a line break in a name does not start a line");
    CHECK(strstr(md, "`Ns.T<int>.M(a\\|b) ## not a heading`") ||
              strstr(md, "Ns.T&lt;int&gt;.M\\(a\\|b\\)"),
          "a method name as code, its | escaped");
    CHECK(strstr(md, "Ns.\\`Tick\\`&lt;T&gt;.Run\\(int\\)") != NULL,
          "one with backticks escaped instead of a code span");
    CHECK(strstr(md, "\\[link\\]\\(http://x\\)") != NULL, "no link from a module name");
    /* every table row has as many cells as its header */
    for (line = md; line && *line; line = next) {
        int want = 0;
        next = strchr(line, '\n');
        if (*line == '|' && line[1] != '-') {
            const char *l = line;
            int n = pipes(l, next ? (size_t)(next - l) : strlen(l));
            rows++;
            /* tables: processes 12 pipes, slowest 7 */
            want = n == 12 || n == 7;
            bad_rows += !want;
        }
        if (next)
            next++;
    }
    CHECK(rows >= 5 && bad_rows == 0, "%zu table rows, %zu with a cell too many or too few", rows,
          bad_rows);
    CHECK(strstr(md, "| 101 |") != NULL, "pids as they are written (no thousands separator)");
done:
    free(md);
    json_decref(r);
}

/* A run made here: `dotnet test` (its root: framework code only, ReadyToRun
 * lookups) and a testhost child (its own code first JIT-compiled 5 ms after
 * it began, a framework method compiled twice). */
TEST(a_runs_report_has_each_process_and_what_it_did)
{
    session *root, *host;
    json_t *r, *p0, *p1;
    int status, id;
    char err[128];

    sessions_lock();
    root = fixture_session("dotnet test");
    id = root->id;
    root->created_ns = (int64_t)REC_REAL;
    snprintf(root->program, sizeof(root->program), "dotnet test");
    rec_apply(root, rec_module_loaded(0x100,
                                      "/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.1/"
                                      "System.Private.CoreLib.dll",
                                      "System.Private.CoreLib", 0, REC_MONO));
    rec_apply(root, rec_function_name(0xA1, 0x100, "System.String.Concat(string, string)", 0));
    rec_apply(root, rec_jit_started(0xA1, 0x77, REC_MONO + 1000));
    rec_apply(root, rec_jit_finished(0xA1, 0x77, 0x1000, 64, REC_MONO + 3001000, 0));
    rec_apply(root, rec_function_name(0xA2, 0x100, "System.Int32.Parse(string)", 0));
    rec_apply(root, rec_code_search(0xA2, WIRE_SEARCH_STARTED, REC_MONO + 10));
    rec_apply(root, rec_code_search(0xA2, WIRE_SEARCH_FOUND, REC_MONO + 11));
    host = sessions_create_child(root, 4343, 4242, "dotnet exec testhost.dll");
    rec_apply(host, rec_hello(root->token));
    host->created_ns = (int64_t)REC_REAL;
    snprintf(host->program, sizeof(host->program), "testhost");
    rec_apply(host, rec_module_loaded(0x100,
                                      "/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.1/"
                                      "System.Private.CoreLib.dll",
                                      "System.Private.CoreLib", 0, REC_MONO));
    rec_apply(host, rec_module_loaded(0x200, "/src/TestMe/bin/TestMe.dll", "TestMe", 0, REC_MONO));
    rec_apply(host, rec_function_name(0xB1, 0x200, "TestMe.Tests.Adds()", 0));
    rec_apply(host, rec_jit_started(0xB1, 0x78, REC_MONO + 4000000));
    rec_apply(host, rec_jit_finished(0xB1, 0x78, 0x2000, 80, REC_MONO + 5000000, 0));
    rec_apply(host, rec_function_name(0xB2, 0x100, "System.Linq.Enumerable.Sum(int[])", 0));
    rec_apply(host, rec_jit_started(0xB2, 0x78, REC_MONO + 6000000));
    rec_apply(host, rec_jit_finished(0xB2, 0x78, 0x3000, 90, REC_MONO + 8000000, 0));
    rec_apply(host, rec_jit_started(0xB2, 0x78, REC_MONO + 9000000));
    rec_apply(host, rec_jit_finished(0xB2, 0x78, 0x4000, 40, REC_MONO + 9500000, 0));
    sessions_unlock();

    r = report_build(id, &status, err, sizeof(err));
    if (!CHECK(r && status == 200, "the report (%d %s)", status, r ? "" : err))
        return;
    p0 = json_array_get(json_object_get(r, "processes"), 0);
    p1 = json_array_get(json_object_get(r, "processes"), 1);
    CHECK(json_integer_value(json_object_get(r, "report_version")) == REPORT_VERSION &&
              json_array_size(json_object_get(r, "processes")) == 2 &&
              strcmp(json_string_value(json_object_get(p0, "program")), "dotnet test") == 0 &&
              strcmp(json_string_value(json_object_get(p1, "program")), "testhost") == 0 &&
              json_integer_value(json_object_get(p1, "pid")) == 4343,
          "the run's two processes, the root first, named as on the dashboard");
    CHECK(json_integer_value(json_object_get(json_object_get(r, "totals"), "jit_count")) == 4 &&
              json_integer_value(json_object_get(json_object_get(r, "totals"), "recompiled")) ==
                  1 &&
              fabs(json_number_value(json_object_get(json_object_get(r, "totals"), "jit_time_ms")) -
                   6.5) < 1e-9,
          "totals: 4 JITs, 6.5 ms, one method recompiled");
    CHECK(fabs(json_number_value(json_object_get(json_object_get(p1, "first_own_code"), "ms")) -
               5) < 1e-9 &&
              strcmp(json_string_value(
                         json_object_get(json_object_get(p1, "first_own_code"), "method")),
                     "TestMe.Tests.Adds()") == 0 &&
              json_is_null(json_object_get(json_object_get(p0, "first_own_code"), "ms")) &&
              json_string_value(json_object_get(json_object_get(p0, "first_own_code"), "why")),
          "first own code: 5 ms in the test host, none (and why) in dotnet test");
    CHECK(fabs(json_number_value(json_object_get(
                   json_object_get(json_object_get(json_object_get(p1, "jit"), "by_origin"), "app"),
                   "time_ms")) -
               1) < 1e-9,
          "the test host's own code: 1 ms of JIT time");
    CHECK(strcmp(json_string_value(
                     json_object_get(json_array_get(json_object_get(p0, "slowest"), 0), "name")),
                 "System.String.Concat(string, string)") == 0 &&
              json_array_size(json_object_get(p1, "slowest")) == 3 &&
              json_number_value(json_object_get(json_array_get(json_object_get(p1, "slowest"), 0),
                                                "jit_ms")) == 2,
          "the slowest JITs, slowest first, each compilation of a method");
    CHECK(json_is_true(json_object_get(json_object_get(p0, "ready_to_run"), "known")) &&
              json_integer_value(
                  json_object_get(json_object_get(p0, "ready_to_run"), "methods_used")) == 1 &&
              json_integer_value(json_object_get(json_object_get(p0, "ready_to_run"),
                                                 "jitted_in_precompiled")) == 1,
          "ReadyToRun: one method used it, one JITed in that precompiled module");
    json_decref(r);
    r = report_build(host->id, &status, err, sizeof(err));
    CHECK(r && json_array_size(json_object_get(r, "processes")) == 1,
          "a child's report is its own process only");
    json_decref(r);
    CHECK(!report_build(999999, &status, err, sizeof(err)) && status == 404,
          "no such session: 404");
    fixture_sessions_clear();
}

static const check_test tests[] = {
    TEST_ENTRY(conditions_parse_as_written),
    TEST_ENTRY(hostile_and_mistyped_conditions_are_refused_with_a_reason),
    TEST_ENTRY(a_baseline_must_be_a_report_this_jitscope_reads),
    TEST_ENTRY(conditions_are_judged_against_the_baseline),
    TEST_ENTRY(markdown_escapes_what_comes_from_the_run),
    TEST_ENTRY(a_runs_report_has_each_process_and_what_it_did),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
