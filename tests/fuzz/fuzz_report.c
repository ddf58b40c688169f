/* fuzz_report.c -- libFuzzer target for what `jitscope run` reads from its
 * user before the app starts: the --fail-on conditions (report_cond_parse)
 * and the --baseline file (parsed by jansson, checked by
 * report_baseline_check), then judged (report_judge) and written as Markdown
 * (report_markdown), all in server/report_cond.c and report_md.c.
 *
 * The input is a --fail-on argument up to the first newline, then the
 * baseline file. Checked: a condition list parses or says why; what parses
 * has at most REPORT_COND_MAX conditions of known metrics and operators with
 * finite thresholds; a baseline is accepted or refused with a reason; one that
 * is accepted is judged as the run itself against itself (no relative
 * condition holds then, but for a '<' or '>=' whose limit is the value), the
 * verdict agrees with the conditions that held, and its Markdown keeps no
 * markup but the report's own.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "report_cond.h"
#include "report_md.h"

/* Outside code spans (where '<' is text), Markdown with the report's own
 * tags taken out has no '<' left; code spans are closed. */
static int only_own_markup(const char *md)
{
    static const char *const own[] = {"<details>",  "</details>", "<summary>",
                                      "</summary>", "<sub>",      "</sub>"};
    const char *p;
    int in_code = 0;
    size_t i;

    for (p = md; *p; p++) {
        if (*p == '\\' && p[1] && !in_code) {
            p++; /* an escaped character (none in a code span) */
            continue;
        }
        if (*p == '`') {
            in_code = !in_code;
            continue;
        }
        if (*p != '<' || in_code)
            continue;
        for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
            if (strncmp(p, own[i], strlen(own[i])) == 0)
                break;
        if (i == sizeof(own) / sizeof(own[0]))
            return 0;
    }
    return !in_code;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t cond_len = nl ? (size_t)(nl - data) : size, i, held_seen = 0, length;
    char *cond = malloc(cond_len + 1), err[512];
    report_conds conds;
    json_t *baseline, *run;
    json_error_t jerr;
    int held, parsed;
    char *md;

    if (!cond)
        return 0;
    memcpy(cond, data, cond_len);
    cond[cond_len] = '\0';
    memset(&conds, 0, sizeof(conds));
    err[0] = '\0';
    parsed = report_cond_parse(cond, &conds, err, sizeof(err)) == 0;
    FUZZ_REQUIRE(parsed || err[0]);
    FUZZ_REQUIRE(conds.count <= REPORT_COND_MAX);
    for (i = 0; i < conds.count; i++) {
        const report_cond *c = &conds.items[i];
        FUZZ_REQUIRE(c->metric >= 0 && c->metric < REPORT_METRIC_COUNT);
        FUZZ_REQUIRE(c->op >= REPORT_GT && c->op <= REPORT_LE);
        FUZZ_REQUIRE(isfinite(c->threshold) && fabs(c->threshold) <= 1e15);
        FUZZ_REQUIRE(strlen(c->text) < REPORT_COND_TEXT_MAX && strlen(c->scope) < REPORT_SCOPE_MAX);
    }
    free(cond);
    if (!nl)
        return 0;
    baseline = json_loadb((const char *)nl + 1, size - cond_len - 1, JSON_REJECT_DUPLICATES, &jerr);
    if (!baseline)
        return 0;
    err[0] = '\0';
    if (report_baseline_check(baseline, err, sizeof(err)) != 0) {
        FUZZ_REQUIRE(err[0]);
        json_decref(baseline);
        return 0;
    }
    run = json_deep_copy(baseline);
    held = report_judge(run, baseline, "fuzz.json", parsed ? &conds : NULL);
    FUZZ_REQUIRE(held >= 0 && (size_t)held <= conds.count);
    for (i = 0; i < json_array_size(json_object_get(run, "conditions")); i++)
        held_seen += json_is_true(
            json_object_get(json_array_get(json_object_get(run, "conditions"), i), "held"));
    FUZZ_REQUIRE(held_seen == (size_t)held);
    FUZZ_REQUIRE(
        !parsed || !conds.count ||
        strcmp(json_string_value(json_object_get(run, "verdict")), held ? "fail" : "pass") == 0);
    md = report_markdown(run, &length);
    FUZZ_REQUIRE(md && strlen(md) == length && only_own_markup(md));
    free(md);
    json_decref(run);
    json_decref(baseline);
    return 0;
}
