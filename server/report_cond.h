/* report_cond.h -- `jitscope run --fail-on` conditions and `--baseline`
 * comparison: a small grammar, parsed before the app starts, judged on the
 * run's report (report.h) against an earlier one. Pure: no I/O, no lock, no
 * session; the baseline comes in as parsed JSON, checked here (fuzzed:
 * tests/fuzz/fuzz_report_cond.c).
 *
 * Grammar (docs/API.md, "Reports"; several conditions: comma-separated, or
 * --fail-on again):
 *   condition := [scope ':'] metric op threshold
 *   scope     := "total" (the default: every process of the run) | a program
 *                as the report names it ("testhost", "dotnet test",
 *                "vstest.console"; ASCII case-insensitive): the processes of
 *                that program together
 *   metric    := jit_time | my_jit_time | first_own_code | duration   (times)
 *              | jit_count | methods | recompiled | jitted_in_precompiled
 *              | r2r_used | drops | processes                          (counts)
 *   op        := '>' | '>=' | '<' | '<='
 *   threshold := NUMBER [unit]              absolute: value op NUMBER
 *              | ('+'|'-') NUMBER '%'       relative: value op baseline * (1 +- N/100)
 *              | ('+'|'-') NUMBER [unit]    relative: value op baseline +- NUMBER
 *   unit      := "us" | "ms" | "s" (times only; default ms); counts take none
 *   NUMBER    := digits ['.' digits], at most 1e12
 * A condition "holds" when its comparison is true: that is the regression
 * that makes `run` exit CLI_EXIT_CONDITION. Spaces around the parts are
 * allowed. A relative threshold needs --baseline. */
#ifndef JITSCOPE_REPORT_COND_H
#define JITSCOPE_REPORT_COND_H

#include <jansson.h>
#include <stddef.h>

#define REPORT_COND_MAX 32        /* conditions in all */
#define REPORT_COND_TEXT_MAX 256  /* bytes of one condition */
#define REPORT_COND_LIST_MAX 4096 /* bytes of one --fail-on */
#define REPORT_SCOPE_MAX 64       /* bytes of a scope (the program names of procname.h fit) */

enum report_metric {
    REPORT_JIT_TIME,
    REPORT_MY_JIT_TIME,
    REPORT_FIRST_OWN_CODE,
    REPORT_DURATION,
    REPORT_JIT_COUNT,
    REPORT_METHODS,
    REPORT_RECOMPILED,
    REPORT_JITTED_IN_PRECOMPILED,
    REPORT_R2R_USED,
    REPORT_DROPS,
    REPORT_PROCESSES,
    REPORT_METRIC_COUNT
};
enum report_op { REPORT_GT, REPORT_GE, REPORT_LT, REPORT_LE };
enum report_threshold { REPORT_ABSOLUTE, REPORT_PERCENT, REPORT_DELTA };

typedef struct report_cond {
    char text[REPORT_COND_TEXT_MAX]; /* as written, without the spaces around it */
    char scope[REPORT_SCOPE_MAX];    /* "" for total */
    int metric, op, kind;            /* report_metric, report_op, report_threshold */
    double threshold;                /* in the metric's unit (ms, or a count); PERCENT: percent;
                                        relative ones signed */
} report_cond;

typedef struct report_conds {
    report_cond items[REPORT_COND_MAX];
    size_t count;
    int relative; /* some need a baseline */
} report_conds;

/* The metric's name ("jit_time"...), and 1 when it is a time (ms). */
const char *report_metric_name(int metric);
int report_metric_is_time(int metric);

/* Parses one --fail-on argument (comma-separated conditions) onto conds.
 * 0, or -1 with err saying which condition and what is wrong with it. */
int report_cond_parse(const char *text, report_conds *conds, char *err, size_t errsz);

/* 0 when baseline is a report this jitscope compares with (its version, and
 * every field a metric reads of the right type), else -1 with err naming the
 * field ("processes[2].jit.time_ms: not a number"). */
int report_baseline_check(const json_t *baseline, char *err, size_t errsz);

/* Fills report's "baseline" (what it was compared with; baseline_file as
 * given), "comparison" (each metric of the run and of each program, now and
 * then; with a baseline only), "conditions" (each judged: held true/false, or
 * null when a value it needs is not known) and "verdict" ("fail" when one
 * held, "pass" otherwise; null without conditions). Returns how many held.
 * baseline may be NULL (then relative conditions are not known). */
int report_judge(json_t *report, const json_t *baseline, const char *baseline_file,
                 const report_conds *conds);

#endif
