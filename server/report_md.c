/* report_md.c -- a run's report as Markdown (report_md.h). */
#include "report_md.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "textbuf.h"

/* Text from the run, escaped for Markdown: ASCII punctuation that marks up
 * (or ends a table cell) gets a backslash, '<', '>' and '&' become entities,
 * line breaks and other control characters a space. At most max bytes of it. */
static void md_text(textbuf *b, const char *s, size_t max)
{
    size_t i, n = s ? strnlen(s, max + 1) : 0;

    if (!s || !*s) {
        textbuf_str(b, "–");
        return;
    }
    for (i = 0; i < n && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '<')
            textbuf_str(b, "&lt;");
        else if (c == '>')
            textbuf_str(b, "&gt;");
        else if (c == '&')
            textbuf_str(b, "&amp;");
        else if (c < 0x20 || c == 0x7f)
            textbuf_add(b, " ", 1);
        else if (strchr("\\`*_[]{}()#+!|~$", c))
            textbuf_printf(b, "\\%c", c);
        else
            textbuf_add(b, (const char *)&c, 1);
    }
    if (n > max)
        textbuf_str(b, "…");
}

/* Text from the run as a code span (method names, conditions: their <>, *
 * and _ as they are), '|' escaped for the table it is in; escaped text
 * (md_text) when it holds a backtick or a control character. */
static void md_code(textbuf *b, const char *s, size_t max)
{
    size_t i, n = s ? strnlen(s, max + 1) : 0;

    for (i = 0; i < n && i < max; i++)
        if (s[i] == '`' || (unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            break;
    if (!n || i < n) {
        md_text(b, s, max);
        return;
    }
    textbuf_add(b, "`", 1);
    for (i = 0; i < n && i < max; i++) {
        if (s[i] == '|')
            textbuf_add(b, "\\", 1);
        textbuf_add(b, &s[i], 1);
    }
    if (n > max)
        textbuf_str(b, "…");
    textbuf_add(b, "`", 1);
}

/* A whole number with thousands separators: 24,281. */
static void md_int(textbuf *b, double v)
{
    char digits[32];
    size_t n, i;

    if (v < 0)
        textbuf_add(b, "-", 1), v = -v;
    n = (size_t)snprintf(digits, sizeof(digits), "%.0f", v);
    for (i = 0; i < n && i < sizeof(digits); i++) {
        if (i > 0 && (n - i) % 3 == 0)
            textbuf_add(b, ",", 1);
        textbuf_add(b, &digits[i], 1);
    }
}

/* A time in ms: "812.4 ms", from a second on "6.35 s". */
static void md_ms(textbuf *b, double ms)
{
    if (fabs(ms) >= 1000)
        textbuf_printf(b, "%.2f s", ms / 1000);
    else
        textbuf_printf(b, "%.1f ms", ms);
}

/* A value of a metric (a time or a count); null: "–". */
static void md_value(textbuf *b, const json_t *v, int is_time)
{
    if (!json_is_number(v))
        textbuf_str(b, "–");
    else if (is_time)
        md_ms(b, json_number_value(v));
    else
        md_int(b, json_number_value(v));
}

/* 1 when a condition's or comparison row's unit is ms. */
static int md_is_ms(const json_t *row)
{
    const char *unit = json_string_value(json_object_get(row, "unit"));
    return unit && strcmp(unit, "ms") == 0;
}

/* A process id as it is written: 8452. */
static void md_pid(textbuf *b, const json_t *v)
{
    if (json_is_integer(v))
        textbuf_printf(b, "%lld", (long long)json_integer_value(v));
    else
        textbuf_str(b, "–");
}

static const json_t *md_get(const json_t *o, const char *a, const char *b)
{
    const json_t *v = json_object_get(o, a);
    return b ? json_object_get(v, b) : v;
}

static void md_processes(textbuf *b, const json_t *report)
{
    const json_t *p;
    size_t i;

    textbuf_str(b, "| Process | pid | JITs | JIT time | my code's | methods | recompiled | "
                   "ReadyToRun used | JITed in R2R modules | first own code | lost |\n"
                   "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    json_array_foreach(json_object_get(report, "processes"), i, p)
    {
        const json_t *jit = json_object_get(p, "jit");
        textbuf_str(b, "| ");
        md_text(b, json_string_value(json_object_get(p, "program")), 64);
        textbuf_str(b, " | ");
        md_pid(b, json_object_get(p, "pid"));
        textbuf_str(b, " | ");
        md_value(b, json_object_get(jit, "count"), 0);
        textbuf_str(b, " | ");
        md_value(b, json_object_get(jit, "time_ms"), 1);
        textbuf_str(b, " | ");
        md_value(b, md_get(json_object_get(jit, "by_origin"), "app", "time_ms"), 1);
        textbuf_str(b, " | ");
        md_value(b, json_object_get(jit, "methods"), 0);
        textbuf_str(b, " | ");
        md_value(b, json_object_get(jit, "recompiled"), 0);
        textbuf_str(b, " | ");
        md_value(b, md_get(p, "ready_to_run", "methods_used"), 0);
        textbuf_str(b, " | ");
        md_value(b, md_get(p, "ready_to_run", "jitted_in_precompiled"), 0);
        textbuf_str(b, " | ");
        md_value(b, md_get(p, "first_own_code", "ms"), 1);
        textbuf_str(b, " | ");
        md_value(b, md_get(p, "drops", "total"), 0);
        textbuf_str(b, " |\n");
    }
}

static void md_conditions(textbuf *b, const json_t *report)
{
    const json_t *list = json_object_get(report, "conditions"), *c;
    size_t i;

    if (!json_array_size(list))
        return;
    textbuf_str(b, "\n### Conditions (--fail-on)\n\n| Condition | now | baseline | limit | "
                   "result |\n|---|--:|--:|--:|---|\n");
    json_array_foreach(list, i, c)
    {
        const json_t *held = json_object_get(c, "held");
        int is_time = md_is_ms(c);
        textbuf_str(b, "| ");
        md_code(b, json_string_value(json_object_get(c, "condition")), 200);
        textbuf_str(b, " | ");
        md_value(b, json_object_get(c, "value"), is_time);
        textbuf_str(b, " | ");
        md_value(b, json_object_get(c, "baseline"), is_time);
        textbuf_str(b, " | ");
        md_value(b, json_object_get(c, "limit"), is_time);
        textbuf_str(b, " | ");
        if (json_is_true(held))
            textbuf_str(b, "❌ held: regression");
        else if (json_is_false(held))
            textbuf_str(b, "✅ did not hold");
        else {
            textbuf_str(b, "⚠️ not judged: ");
            md_text(b, json_string_value(json_object_get(c, "why")), 200);
        }
        textbuf_str(b, " |\n");
    }
}

/* The comparison: the run's totals in a table, each program's in one below. */
static void md_comparison(textbuf *b, const json_t *report)
{
    const json_t *rows = json_object_get(report, "comparison"), *r;
    const json_t *base = json_object_get(report, "baseline");
    const char *scope = NULL;
    size_t i;

    if (!json_is_object(base))
        return;
    textbuf_str(b, "\n### Compared with the baseline\n\n");
    md_text(b, json_string_value(json_object_get(base, "file")), 200);
    textbuf_str(b, ": a run of ");
    md_code(b, json_string_value(json_object_get(base, "command_line")), 200);
    textbuf_str(b, "\n");
    json_array_foreach(rows, i, r)
    {
        const char *s = json_string_value(json_object_get(r, "scope"));
        int is_time = md_is_ms(r);
        const json_t *pct = json_object_get(r, "delta_pct");
        if (!s)
            continue;
        if (!scope || strcmp(scope, s) != 0) {
            scope = s;
            textbuf_str(b, strcmp(s, "total") == 0 ? "\n**The whole run**\n\n"
                                                   : "\n**Processes of program ");
            if (strcmp(s, "total") != 0) {
                md_text(b, s, 64);
                textbuf_str(b, "**\n\n");
            }
            textbuf_str(b, "| metric | baseline | now | change |\n|---|--:|--:|--:|\n");
        }
        textbuf_str(b, "| ");
        md_text(b, json_string_value(json_object_get(r, "metric")), 64);
        textbuf_str(b, " | ");
        md_value(b, json_object_get(r, "baseline"), is_time);
        textbuf_str(b, " | ");
        md_value(b, json_object_get(r, "value"), is_time);
        textbuf_str(b, " | ");
        if (json_is_number(pct))
            textbuf_printf(b, "%+.1f%%", json_number_value(pct));
        else if (json_is_number(json_object_get(r, "delta")))
            md_value(b, json_object_get(r, "delta"), is_time);
        else
            textbuf_str(b, "–");
        textbuf_str(b, " |\n");
    }
}

/* The processes' order for their slowest JITs: most JIT time first. */
static int md_by_time(const void *a, const void *b)
{
    double x = json_number_value(
        json_object_get(json_object_get(*(json_t *const *)a, "jit"), "time_ms"));
    double y = json_number_value(
        json_object_get(json_object_get(*(json_t *const *)b, "jit"), "time_ms"));
    return (x < y) - (x > y);
}

static void md_slowest(textbuf *b, const json_t *report)
{
    const json_t *processes = json_object_get(report, "processes"), *j;
    json_t *order[REPORT_MD_SLOWEST_OF];
    size_t i, k, n = 0, total = json_array_size(processes);

    textbuf_str(b, "\n### Slowest JITs\n");
    for (i = 0; i < total; i++) /* the processes with most JIT time, the others left to the JSON */
        if (json_array_size(json_object_get(json_array_get(processes, i), "slowest"))) {
            if (n < REPORT_MD_SLOWEST_OF)
                order[n++] = json_array_get(processes, i);
            else if (md_by_time(&order[n - 1], &(json_t *){json_array_get(processes, i)}) > 0)
                order[n - 1] = json_array_get(processes, i);
            qsort(order, n, sizeof(order[0]), md_by_time);
        }
    for (i = 0; i < n; i++) {
        const json_t *p = order[i], *list = json_object_get(p, "slowest");
        textbuf_str(b, "\n<details><summary>");
        md_text(b, json_string_value(json_object_get(p, "program")), 64);
        textbuf_str(b, " (pid ");
        md_pid(b, json_object_get(p, "pid"));
        textbuf_str(b, ")</summary>\n\n| JIT time | method | module | whose | tier | at |\n"
                       "|--:|---|---|---|---|--:|\n");
        json_array_foreach(list, k, j)
        {
            textbuf_str(b, "| ");
            md_value(b, json_object_get(j, "jit_ms"), 1);
            textbuf_str(b, " | ");
            md_code(b, json_string_value(json_object_get(j, "name")), 300);
            textbuf_str(b, " | ");
            md_text(b, json_string_value(json_object_get(j, "module")), 100);
            textbuf_str(b, " | ");
            md_text(b, json_string_value(json_object_get(j, "origin")), 20);
            textbuf_str(b, " | ");
            md_text(b, json_string_value(json_object_get(j, "tier")), 30);
            textbuf_str(b, " | ");
            md_value(b, json_object_get(j, "at_ms"), 1);
            textbuf_str(b, " |\n");
        }
        textbuf_str(b, "\n</details>\n");
    }
    if (total > n && n == REPORT_MD_SLOWEST_OF)
        textbuf_printf(b,
                       "\nThose of the %zu processes with less JIT time are in the JSON report.\n",
                       total - n);
}

char *report_markdown(const json_t *report, size_t *length)
{
    const json_t *totals = json_object_get(report, "totals");
    const char *verdict = json_string_value(json_object_get(report, "verdict"));
    const json_t *conds = json_object_get(report, "conditions"), *c, *code;
    size_t i, held = 0;
    textbuf b;

    textbuf_init(&b, REPORT_MD_MAX);
    json_array_foreach(conds, i, c) held += json_is_true(json_object_get(c, "held"));
    textbuf_str(&b, "## jitscope: ");
    md_code(&b, json_string_value(json_object_get(report, "command_line")), 120);
    if (verdict && strcmp(verdict, "fail") == 0)
        textbuf_printf(&b, " — ❌ %zu of %zu conditions held\n\n", held, json_array_size(conds));
    else if (verdict)
        textbuf_printf(&b, " — ✅ no condition held (%zu)\n\n", json_array_size(conds));
    else
        textbuf_str(&b, "\n\n");
    md_text(&b, json_string_value(json_object_get(report, "program")), 64);
    textbuf_str(&b, " (session ");
    md_value(&b, json_object_get(report, "session_id"), 0);
    textbuf_str(&b, ") ");
    md_text(&b, json_string_value(json_object_get(report, "state")), 20);
    code = json_object_get(report, "exit_code");
    if (json_is_integer(code))
        textbuf_printf(&b, " with code %lld", (long long)json_integer_value(code));
    if (json_is_number(json_object_get(report, "duration_ms"))) {
        textbuf_str(&b, " after ");
        md_ms(&b, json_number_value(json_object_get(report, "duration_ms")));
    }
    textbuf_str(&b, ": ");
    md_value(&b, json_object_get(totals, "processes"), 0);
    textbuf_str(&b, json_integer_value(json_object_get(totals, "processes")) == 1 ? " process, "
                                                                                  : " processes, ");
    md_value(&b, json_object_get(totals, "jit_count"), 0);
    textbuf_str(&b, " JIT compilations of ");
    md_value(&b, json_object_get(totals, "methods"), 0);
    textbuf_str(&b, " methods in ");
    md_value(&b, json_object_get(totals, "jit_time_ms"), 1);
    textbuf_str(&b, ", ");
    md_value(&b, json_object_get(totals, "drops"), 0);
    textbuf_str(&b, " records lost.\n\n");
    md_processes(&b, report);
    md_conditions(&b, report);
    md_comparison(&b, report);
    md_slowest(&b, report);
    textbuf_str(&b, "\n<sub>JIT time is the JIT's own time, summed over threads. *my code's*: "
                    "JIT time of the app's own modules; *first own code*: from the process's start "
                    "to the first JIT of its own code; *JITed in R2R modules*: methods compiled by "
                    "the JIT although their module is precompiled (what to give crossgen). "
                    "jitscope ");
    md_text(&b, json_string_value(json_object_get(report, "jitscope_version")), 20);
    textbuf_str(&b, ", report_version ");
    md_value(&b, json_object_get(report, "report_version"), 0);
    textbuf_str(&b, ".</sub>\n");
    if (b.overflow) {
        textbuf_free(&b);
        return NULL;
    }
    return textbuf_take(&b, length);
}
