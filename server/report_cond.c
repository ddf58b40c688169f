/* report_cond.c -- the --fail-on grammar and the --baseline comparison
 * (report_cond.h): parse, check a baseline report, judge. Pure. */
#include "report_cond.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "report.h"

#define REPORT_NUMBER_MAX 1e12

static const char *const report_metric_names[REPORT_METRIC_COUNT] = {
    [REPORT_JIT_TIME] = "jit_time",
    [REPORT_MY_JIT_TIME] = "my_jit_time",
    [REPORT_FIRST_OWN_CODE] = "first_own_code",
    [REPORT_DURATION] = "duration",
    [REPORT_JIT_COUNT] = "jit_count",
    [REPORT_METHODS] = "methods",
    [REPORT_RECOMPILED] = "recompiled",
    [REPORT_JITTED_IN_PRECOMPILED] = "jitted_in_precompiled",
    [REPORT_R2R_USED] = "r2r_used",
    [REPORT_DROPS] = "drops",
    [REPORT_PROCESSES] = "processes",
};
static const char *const report_op_names[] = {">", ">=", "<", "<="};

const char *report_metric_name(int metric)
{
    return metric >= 0 && metric < REPORT_METRIC_COUNT ? report_metric_names[metric] : "?";
}

int report_metric_is_time(int metric) { return metric >= 0 && metric <= REPORT_DURATION; }

/* ---- parsing ---- */

__attribute__((format(printf, 4, 5))) static int report_fail(char *err, size_t errsz,
                                                             const char *cond, const char *fmt, ...)
{
    char what[384];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(err, errsz, "--fail-on condition '%.*s': %s", (int)strnlen(cond, 200), cond, what);
    return -1;
}

/* [from, to) without the spaces around it. */
static void report_trim(const char **from, const char **to)
{
    while (*from < *to && (**from == ' ' || **from == '\t'))
        (*from)++;
    while (*to > *from && ((*to)[-1] == ' ' || (*to)[-1] == '\t'))
        (*to)--;
}

/* A plain decimal number (digits, at most one '.', digits on at least one
 * side) at the start of [p, end): its length, 0 when there is none. */
static size_t report_number(const char *p, const char *end, double *out)
{
    char text[40];
    size_t n = 0, digits = 0, dots = 0;

    while (p + n < end && ((p[n] >= '0' && p[n] <= '9') || p[n] == '.')) {
        if (p[n] == '.')
            dots++;
        else
            digits++;
        n++;
    }
    if (!digits || dots > 1 || n >= sizeof(text))
        return 0;
    memcpy(text, p, n);
    text[n] = '\0';
    *out = strtod(text, NULL);
    return n;
}

static int report_parse_one(const char *from, const char *to, report_cond *c, char *err,
                            size_t errsz)
{
    const char *op, *colon, *left_end, *right, *p, *unit;
    char cond[REPORT_COND_TEXT_MAX];
    double number, scale = 1;
    size_t n, i;
    int sign = 0;

    report_trim(&from, &to);
    n = (size_t)(to - from);
    if (n == 0)
        return report_fail(err, errsz, "", "empty (two commas in a row, or one at an end?)");
    if (n >= REPORT_COND_TEXT_MAX)
        return report_fail(err, errsz, from, "longer than %d bytes", REPORT_COND_TEXT_MAX - 1);
    memcpy(cond, from, n);
    cond[n] = '\0';
    memset(c, 0, sizeof(*c));
    memcpy(c->text, cond, n + 1);
    for (i = 0; i < n; i++)
        if ((unsigned char)cond[i] < 0x20 || (unsigned char)cond[i] == 0x7f)
            return report_fail(err, errsz, cond, "a control character at byte %zu", i + 1);
    op = strpbrk(cond, "<>");
    if (!op)
        return report_fail(err, errsz, cond,
                           "no comparison: write METRIC>THRESHOLD, e.g. "
                           "jit_time>+20%%");
    c->op = op[0] == '>' ? REPORT_GT : REPORT_LT;
    right = op + 1;
    if (*right == '=')
        c->op += 1, right++; /* >= and <= follow > and < */
    if (strpbrk(right, "<>="))
        return report_fail(err, errsz, cond, "more than one comparison");
    /* [scope:]metric */
    left_end = op;
    colon = memchr(cond, ':', (size_t)(op - cond));
    p = cond;
    if (colon) {
        const char *s = cond, *e = colon;
        report_trim(&s, &e);
        if (s == e)
            return report_fail(err, errsz, cond, "an empty scope before ':'");
        if ((size_t)(e - s) >= REPORT_SCOPE_MAX)
            return report_fail(err, errsz, cond, "a scope longer than %d bytes",
                               REPORT_SCOPE_MAX - 1);
        if (memchr(colon + 1, ':', (size_t)(op - colon - 1)))
            return report_fail(err, errsz, cond, "more than one ':'");
        if (!((size_t)(e - s) == 5 && strncasecmp(s, "total", 5) == 0))
            memcpy(c->scope, s, (size_t)(e - s));
        p = colon + 1;
    }
    report_trim(&p, &left_end);
    for (c->metric = 0; c->metric < REPORT_METRIC_COUNT; c->metric++)
        if (strlen(report_metric_names[c->metric]) == (size_t)(left_end - p) &&
            memcmp(report_metric_names[c->metric], p, (size_t)(left_end - p)) == 0)
            break;
    if (c->metric == REPORT_METRIC_COUNT)
        return report_fail(err, errsz, cond,
                           "unknown metric '%.*s' (jit_time, my_jit_time, first_own_code, "
                           "duration, jit_count, methods, recompiled, jitted_in_precompiled, "
                           "r2r_used, drops, processes)",
                           (int)(left_end - p), p);
    /* threshold */
    p = right;
    left_end = cond + n;
    report_trim(&p, &left_end);
    if (p < left_end && (*p == '+' || *p == '-'))
        sign = *p == '+' ? 1 : -1, p++;
    if (!(i = report_number(p, left_end, &number)))
        return report_fail(err, errsz, cond, "no number after '%s'", report_op_names[c->op]);
    if (number > REPORT_NUMBER_MAX)
        return report_fail(err, errsz, cond, "a number larger than 1e12");
    unit = p + i;
    while (unit < left_end && (*unit == ' ' || *unit == '\t'))
        unit++;
    n = (size_t)(left_end - unit);
    if (n == 1 && *unit == '%') {
        if (!sign)
            return report_fail(err, errsz, cond,
                               "a percentage is relative to the baseline: write +%g%% or -%g%%",
                               number, number);
        c->kind = REPORT_PERCENT;
        c->threshold = sign * number;
        return 0;
    }
    if (n > 0 && !report_metric_is_time(c->metric))
        return report_fail(err, errsz, cond, "%s is a count: no unit ('%.*s')",
                           report_metric_names[c->metric], (int)n, unit);
    if (n == 2 && memcmp(unit, "ms", 2) == 0)
        scale = 1;
    else if (n == 2 && memcmp(unit, "us", 2) == 0)
        scale = 0.001;
    else if (n == 1 && *unit == 's')
        scale = 1000;
    else if (n > 0)
        return report_fail(err, errsz, cond, "unknown unit '%.*s' (us, ms, s; or %% with a sign)",
                           (int)n, unit);
    c->kind = sign ? REPORT_DELTA : REPORT_ABSOLUTE;
    c->threshold = (sign ? sign : 1) * number * scale;
    return 0;
}

int report_cond_parse(const char *text, report_conds *conds, char *err, size_t errsz)
{
    const char *at = text, *comma;
    size_t length = strnlen(text, REPORT_COND_LIST_MAX + 1);

    if (length > REPORT_COND_LIST_MAX) {
        snprintf(err, errsz, "--fail-on: longer than %d bytes", REPORT_COND_LIST_MAX);
        return -1;
    }
    do {
        comma = strchr(at, ',');
        if (conds->count == REPORT_COND_MAX) {
            snprintf(err, errsz, "--fail-on: more than %d conditions", REPORT_COND_MAX);
            return -1;
        }
        if (report_parse_one(at, comma ? comma : at + strlen(at), &conds->items[conds->count], err,
                             errsz) != 0)
            return -1;
        conds->relative |= conds->items[conds->count].kind != REPORT_ABSOLUTE;
        conds->count++;
        if (comma)
            at = comma + 1;
    } while (comma);
    return 0;
}

/* ---- a report's metrics ---- */

/* The JSON path of a metric in a process's entry. */
static const char *const report_metric_paths[REPORT_METRIC_COUNT][4] = {
    [REPORT_JIT_TIME] = {"jit", "time_ms"},
    [REPORT_MY_JIT_TIME] = {"jit", "by_origin", "app", "time_ms"},
    [REPORT_FIRST_OWN_CODE] = {"first_own_code", "ms"},
    [REPORT_DURATION] = {"duration_ms"},
    [REPORT_JIT_COUNT] = {"jit", "count"},
    [REPORT_METHODS] = {"jit", "methods"},
    [REPORT_RECOMPILED] = {"jit", "recompiled"},
    [REPORT_JITTED_IN_PRECOMPILED] = {"ready_to_run", "jitted_in_precompiled"},
    [REPORT_R2R_USED] = {"ready_to_run", "methods_used"},
    [REPORT_DROPS] = {"drops", "total"},
};

/* Whether the metric may be null in a process (not known for it). */
static int report_metric_nullable(int metric)
{
    return metric == REPORT_FIRST_OWN_CODE || metric == REPORT_DURATION ||
           metric == REPORT_JITTED_IN_PRECOMPILED || metric == REPORT_R2R_USED;
}

/* One process's value of a metric: 1 known, 0 null, -1 missing or of the
 * wrong type (path written into where). */
static int report_process_value(const json_t *p, int metric, double *out, char *where,
                                size_t wheresz)
{
    const char *const *path = report_metric_paths[metric];
    const json_t *v = p;
    int i, used = 0;

    for (i = 0; i < 4 && path[i]; i++) {
        used += snprintf(where + used, wheresz - (size_t)used, ".%s", path[i]);
        if ((size_t)used >= wheresz)
            used = (int)wheresz - 1;
        v = json_is_object(v) ? json_object_get(v, path[i]) : NULL;
    }
    if (json_is_null(v) && report_metric_nullable(metric))
        return 0;
    if (!json_is_number(v) || json_number_value(v) < 0 ||
        (!report_metric_is_time(metric) && !json_is_integer(v)))
        return -1;
    *out = json_number_value(v);
    return 1;
}

/* 1 when process p is in scope ("" all). */
static int report_in_scope(const json_t *p, const char *scope)
{
    const char *program = json_string_value(json_object_get(p, "program"));
    return !scope[0] || (program && strcasecmp(program, scope) == 0);
}

/* A metric of the processes in scope: sums, except duration and
 * first_own_code (the longest). 1 known, 0 not (no process in scope, or
 * none knows it). */
static int report_value(const json_t *report, const char *scope, int metric, double *out)
{
    const json_t *processes = json_object_get(report, "processes"), *p;
    char where[96];
    size_t i;
    int known = 0;
    double v;

    *out = 0;
    json_array_foreach(processes, i, p)
    {
        if (!report_in_scope(p, scope))
            continue;
        if (metric == REPORT_PROCESSES) {
            *out += 1, known = 1;
            continue;
        }
        where[0] = '\0';
        if (report_process_value(p, metric, &v, where, sizeof(where)) != 1)
            continue;
        if (metric == REPORT_DURATION || metric == REPORT_FIRST_OWN_CODE)
            *out = known && *out > v ? *out : v;
        else
            *out += v;
        known = 1;
    }
    return known;
}

int report_baseline_check(const json_t *b, char *err, size_t errsz)
{
    const json_t *version = json_object_get(b, "report_version"), *processes, *p;
    char where[96];
    size_t i;
    int m;
    double v;

    if (!json_is_object(b)) {
        snprintf(err, errsz, "not a jitscope report (a JSON object with report_version)");
        return -1;
    }
    if (!json_is_integer(version) || json_integer_value(version) < 1) {
        snprintf(err, errsz, "not a jitscope report: no report_version");
        return -1;
    }
    if (json_integer_value(version) > REPORT_VERSION) {
        snprintf(err, errsz, "report_version %lld is newer than this jitscope reads (%d)",
                 (long long)json_integer_value(version), REPORT_VERSION);
        return -1;
    }
    for (m = 0; m < 4; m++) { /* what a comparison shows of it */
        static const char *const texts[] = {"program", "command_line", "jitscope_version"};
        const json_t *v = json_object_get(b, m < 3 ? texts[m] : "generated_ms");
        if (v && !json_is_null(v) && (m < 3 ? !json_is_string(v) : !json_is_number(v))) {
            snprintf(err, errsz, "%s: not a %s", m < 3 ? texts[m] : "generated_ms",
                     m < 3 ? "string" : "number");
            return -1;
        }
    }
    processes = json_object_get(b, "processes");
    if (!json_is_array(processes)) {
        snprintf(err, errsz, "processes: not an array");
        return -1;
    }
    json_array_foreach(processes, i, p)
    {
        const json_t *program = json_object_get(p, "program");
        if (!json_is_object(p)) {
            snprintf(err, errsz, "processes[%zu]: not an object", i);
            return -1;
        }
        if (!json_is_string(program) && !json_is_null(program)) {
            snprintf(err, errsz, "processes[%zu].program: not a string", i);
            return -1;
        }
        for (m = 0; m < REPORT_METRIC_COUNT; m++) {
            if (m == REPORT_PROCESSES)
                continue;
            where[0] = '\0';
            if (report_process_value(p, m, &v, where, sizeof(where)) < 0) {
                snprintf(err, errsz, "processes[%zu]%s: %s", i, where,
                         report_metric_is_time(m) ? "not a number of 0 or more"
                                                  : "not a whole number of 0 or more");
                return -1;
            }
        }
    }
    return 0;
}

/* ---- judging ---- */

static json_t *report_num(int known, double v) { return known ? json_real(v) : json_null(); }

static int report_compare(double value, int op, double limit)
{
    switch (op) {
    case REPORT_GT: return value > limit;
    case REPORT_GE: return value >= limit;
    case REPORT_LT: return value < limit;
    default: return value <= limit;
    }
}

static json_t *report_judge_one(const report_cond *c, const json_t *report, const json_t *baseline,
                                int *held)
{
    double value = 0, base = 0, limit = 0;
    int has_value = report_value(report, c->scope, c->metric, &value);
    int has_base = baseline && report_value(baseline, c->scope, c->metric, &base);
    const char *why = NULL;

    *held = 0;
    if (!has_value && c->scope[0] && !report_value(report, c->scope, REPORT_PROCESSES, &limit))
        why = "no process of that program ran";
    else if (!has_value)
        why = "not known in this run (the report says why, per process)";
    else if (c->kind != REPORT_ABSOLUTE && !baseline)
        why = "relative to a baseline, and there is none (--baseline)";
    else if (c->kind != REPORT_ABSOLUTE && !has_base)
        why = "the baseline does not know it";
    if (!why) {
        limit = c->kind == REPORT_ABSOLUTE ? c->threshold
                : c->kind == REPORT_DELTA  ? base + c->threshold
                                           : base * (1 + c->threshold / 100);
        *held = report_compare(value, c->op, limit);
    }
    return json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:s?}", "condition", c->text, "scope",
        c->scope[0] ? c->scope : "total", "metric", report_metric_names[c->metric], "unit",
        report_metric_is_time(c->metric) ? "ms" : "count", "op", report_op_names[c->op], "value",
        report_num(has_value, value), "baseline", report_num(has_base, base), "limit",
        report_num(!why, limit), "held", why ? json_null() : json_boolean(*held), "why", why);
}

/* Adds a scope's rows to the comparison (every metric either side knows). */
static void report_compare_scope(json_t *rows, const json_t *report, const json_t *baseline,
                                 const char *scope)
{
    int m;

    for (m = 0; m < REPORT_METRIC_COUNT; m++) {
        double now = 0, then = 0;
        int has_now = report_value(report, scope, m, &now);
        int has_then = report_value(baseline, scope, m, &then);
        if (!has_now && !has_then)
            continue;
        json_array_append_new(
            rows, json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o}", "scope",
                            scope[0] ? scope : "total", "metric", report_metric_names[m], "unit",
                            report_metric_is_time(m) ? "ms" : "count", "value",
                            report_num(has_now, now), "baseline", report_num(has_then, then),
                            "delta", report_num(has_now && has_then, now - then), "delta_pct",
                            report_num(has_now && has_then && then != 0,
                                       then != 0 ? (now - then) / then * 100 : 0)));
    }
}

/* The programs of a report's processes, each once, in order (not more than max). */
static size_t report_programs(const json_t *report, const char **out, size_t have, size_t max)
{
    const json_t *p;
    size_t i, k;

    json_array_foreach(json_object_get(report, "processes"), i, p)
    {
        const char *program = json_string_value(json_object_get(p, "program"));
        if (!program || !program[0] || strlen(program) >= REPORT_SCOPE_MAX)
            continue;
        for (k = 0; k < have && strcasecmp(out[k], program) != 0; k++)
            ;
        if (k == have && have < max)
            out[have++] = program;
    }
    return have;
}

int report_judge(json_t *report, const json_t *baseline, const char *baseline_file,
                 const report_conds *conds)
{
    json_t *list = json_array(), *rows = json_array();
    const char *programs[REPORT_MAX_TREE * 2];
    size_t i, n = 0;
    int held, count = 0;

    for (i = 0; conds && i < conds->count; i++) {
        json_array_append_new(list, report_judge_one(&conds->items[i], report, baseline, &held));
        count += held;
    }
    if (baseline) {
        report_compare_scope(rows, report, baseline, "");
        n = report_programs(report, programs, 0, sizeof(programs) / sizeof(programs[0]));
        n = report_programs(baseline, programs, n, sizeof(programs) / sizeof(programs[0]));
        for (i = 0; i < n; i++)
            report_compare_scope(rows, report, baseline, programs[i]);
        json_object_set_new(report, "baseline",
                            json_pack("{s:s, s:O?, s:O?, s:O?, s:O?}", "file",
                                      baseline_file ? baseline_file : "", "generated_ms",
                                      json_object_get(baseline, "generated_ms"), "program",
                                      json_object_get(baseline, "program"), "command_line",
                                      json_object_get(baseline, "command_line"), "jitscope_version",
                                      json_object_get(baseline, "jitscope_version")));
    }
    if (!baseline)
        json_object_set_new(report, "baseline", json_null());
    json_object_set_new(report, "comparison", rows);
    json_object_set_new(report, "conditions", list);
    json_object_set_new(report, "verdict",
                        conds && conds->count ? json_string(count ? "fail" : "pass") : json_null());
    return count;
}
