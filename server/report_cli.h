/* report_cli.h -- `jitscope run --report FILE --baseline FILE --fail-on COND`:
 * the options checked before the app starts (a bad condition, or a baseline
 * that is not a report this jitscope reads, is a usage error: exit 2 with
 * nothing started), and at the end of the run the report built (report.h),
 * judged (report_cond.h) and written as JSON and/or Markdown (report_md.h).
 * main.c calls these; the help text is cli.c's. */
#ifndef JITSCOPE_REPORT_CLI_H
#define JITSCOPE_REPORT_CLI_H

#include <jansson.h>

#include "report_cond.h"

#define REPORT_CLI_OUTPUTS 2                      /* --report given at most twice */
#define REPORT_BASELINE_MAX (64u * 1024u * 1024u) /* bytes of a --baseline file */

typedef struct report_cli {
    struct {
        const char *path;
        int markdown; /* 1: Markdown, 0: JSON */
    } outputs[REPORT_CLI_OUTPUTS];
    int output_count;
    const char *baseline_path;
    json_t *baseline; /* read and checked by report_cli_prepare */
    report_conds conds;
} report_cli;

/* One of run's options: 1 when arg is one of these (its value taken), 0 when
 * it is not, -1 when it is wrong (the message printed). */
int report_cli_option(report_cli *r, const char *arg, const char *value);
/* After the options, before the app starts: the baseline read and checked,
 * relative conditions given one, the report files writable. 0, or -1 with
 * the message printed (a usage error). */
int report_cli_prepare(report_cli *r);
/* 1 when there is something to do at the end (a report or a condition). */
int report_cli_wanted(const report_cli *r);
/* At the run's end (its agents' last records read): the report of run_id
 * built, judged and written, what it says printed on stderr. 0, or
 * CLI_EXIT_CONDITION when a condition held, or CLI_EXIT_FAILED when it could
 * not be built or written. */
int report_cli_finish(report_cli *r, int run_id);
void report_cli_free(report_cli *r);

#endif
