/* report_cli.c -- run's --report, --baseline and --fail-on (report_cli.h). */
#include "report_cli.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_help.h"
#include "report.h"
#include "report_md.h"

/* "md:FILE", "json:FILE", or FILE.json / FILE.md / FILE.markdown. */
static int report_cli_output(report_cli *r, const char *value)
{
    const char *dot = strrchr(value, '.'), *path = value;
    int markdown;

    if (strncmp(value, "md:", 3) == 0)
        markdown = 1, path = value + 3;
    else if (strncmp(value, "json:", 5) == 0)
        markdown = 0, path = value + 5;
    else if (dot && strcmp(dot, ".json") == 0)
        markdown = 0;
    else if (dot && (strcmp(dot, ".md") == 0 || strcmp(dot, ".markdown") == 0))
        markdown = 1;
    else {
        fprintf(stderr,
                "jitscope: --report %s: name a .json or .md file, or say which: json:FILE or "
                "md:FILE\n",
                value);
        return -1;
    }
    if (!*path) {
        fprintf(stderr, "jitscope: --report %s: no file name\n", value);
        return -1;
    }
    if (r->output_count == REPORT_CLI_OUTPUTS) {
        fprintf(stderr, "jitscope: --report at most twice (one JSON, one Markdown)\n");
        return -1;
    }
    r->outputs[r->output_count].path = path;
    r->outputs[r->output_count++].markdown = markdown;
    return 1;
}

int report_cli_option(report_cli *r, const char *arg, const char *value)
{
    char err[512];

    if (strcmp(arg, "--report") != 0 && strcmp(arg, "--baseline") != 0 &&
        strcmp(arg, "--fail-on") != 0)
        return 0;
    if (!value) {
        fprintf(stderr, "jitscope: %s wants a value (see jitscope run --help)\n", arg);
        return -1;
    }
    if (strcmp(arg, "--report") == 0)
        return report_cli_output(r, value);
    if (strcmp(arg, "--baseline") == 0) {
        if (r->baseline_path) {
            fprintf(stderr, "jitscope: --baseline once only\n");
            return -1;
        }
        r->baseline_path = value;
        return 1;
    }
    if (report_cond_parse(value, &r->conds, err, sizeof(err)) != 0) {
        fprintf(stderr, "jitscope: %s\n", err);
        return -1;
    }
    return 1;
}

/* The baseline file: read (bounded), parsed, checked. */
static int report_cli_read_baseline(report_cli *r)
{
    char err[512];
    json_error_t jerr;
    FILE *f = fopen(r->baseline_path, "rb");
    char *data = NULL;
    size_t length = 0, cap = 0, n;

    if (!f) {
        fprintf(stderr, "jitscope: --baseline %s: %s\n", r->baseline_path, strerror(errno));
        return -1;
    }
    do {
        if (length == cap) {
            char *bigger;
            cap = cap ? cap * 2 : 65536;
            if (cap > REPORT_BASELINE_MAX + 1)
                cap = REPORT_BASELINE_MAX + 1;
            if (!(bigger = realloc(data, cap))) {
                fprintf(stderr, "jitscope: --baseline %s: out of memory\n", r->baseline_path);
                goto fail;
            }
            data = bigger;
        }
        n = fread(data + length, 1, cap - length, f);
        length += n;
    } while (n > 0 && length < REPORT_BASELINE_MAX + 1);
    if (ferror(f)) {
        fprintf(stderr, "jitscope: --baseline %s: cannot be read\n", r->baseline_path);
        goto fail;
    }
    if (length > REPORT_BASELINE_MAX) {
        fprintf(stderr, "jitscope: --baseline %s: larger than %u MiB: not a jitscope report\n",
                r->baseline_path, REPORT_BASELINE_MAX >> 20);
        goto fail;
    }
    r->baseline = json_loadb(data ? data : "", length, JSON_REJECT_DUPLICATES, &jerr);
    if (!r->baseline) {
        fprintf(stderr, "jitscope: --baseline %s: not JSON (line %d, column %d: %s)\n",
                r->baseline_path, jerr.line, jerr.column, jerr.text);
        goto fail;
    }
    if (report_baseline_check(r->baseline, err, sizeof(err)) != 0) {
        fprintf(stderr, "jitscope: --baseline %s: %s\n", r->baseline_path, err);
        goto fail;
    }
    free(data);
    fclose(f);
    return 0;
fail:
    json_decref(r->baseline);
    r->baseline = NULL;
    free(data);
    fclose(f);
    return -1;
}

/* A file the report can be written to: itself writable, or its directory. */
static int report_cli_writable(const char *path)
{
    char copy[PATH_MAX];

    if (access(path, F_OK) == 0) {
        if (access(path, W_OK) == 0)
            return 0;
    } else {
        snprintf(copy, sizeof(copy), "%s", path);
        if (access(dirname(copy), W_OK) == 0)
            return 0;
    }
    fprintf(stderr, "jitscope: --report %s: cannot be written: %s\n", path, strerror(errno));
    return -1;
}

int report_cli_prepare(report_cli *r)
{
    int i;

    if (r->conds.relative && !r->baseline_path) {
        fprintf(stderr, "jitscope: --fail-on: a relative threshold (+N%%, +N, -N...) compares with "
                        "an earlier run: give --baseline FILE.json\n");
        return -1;
    }
    if (r->baseline_path && !r->output_count && !r->conds.count) {
        fprintf(stderr, "jitscope: --baseline is for --report or --fail-on\n");
        return -1;
    }
    if (r->output_count == 2 && r->outputs[0].markdown == r->outputs[1].markdown) {
        fprintf(stderr, "jitscope: --report twice: one JSON and one Markdown\n");
        return -1;
    }
    for (i = 0; i < r->output_count; i++)
        if (report_cli_writable(r->outputs[i].path) != 0)
            return -1;
    return r->baseline_path ? report_cli_read_baseline(r) : 0;
}

int report_cli_wanted(const report_cli *r) { return r->output_count > 0 || r->conds.count > 0; }

/* Writes text to path (replacing it). 0, or -1 with the message printed. */
static int report_cli_write(const char *path, const char *text, size_t length)
{
    FILE *f = fopen(path, "w");
    int ok;

    if (!f) {
        fprintf(stderr, "jitscope: --report %s: %s\n", path, strerror(errno));
        return -1;
    }
    ok = fwrite(text, 1, length, f) == length;
    ok &= fclose(f) == 0;
    if (!ok)
        fprintf(stderr, "jitscope: --report %s: could not be written whole\n", path);
    return ok ? 0 : -1;
}

/* One line on stderr per condition judged. */
static void report_cli_say(const json_t *report)
{
    const json_t *c;
    size_t i;

    json_array_foreach(json_object_get(report, "conditions"), i, c)
    {
        const json_t *held = json_object_get(c, "held");
        const char *unit = json_string_value(json_object_get(c, "unit"));
        const char *u = unit && strcmp(unit, "ms") == 0 ? " ms" : "";
        if (json_is_null(held))
            fprintf(stderr, "jitscope: --fail-on '%s': not judged: %s\n",
                    json_string_value(json_object_get(c, "condition")),
                    json_string_value(json_object_get(c, "why")));
        else
            fprintf(stderr, "jitscope: --fail-on '%s': %s (%.6g%s %s %.6g%s)\n",
                    json_string_value(json_object_get(c, "condition")),
                    json_is_true(held) ? "HELD: a regression" : "did not hold",
                    json_number_value(json_object_get(c, "value")), u,
                    json_string_value(json_object_get(c, "op")),
                    json_number_value(json_object_get(c, "limit")), u);
    }
}

int report_cli_finish(report_cli *r, int run_id)
{
    char err[256];
    int status, held, i, rc = 0;
    json_t *report = report_build(run_id, &status, err, sizeof(err));

    if (!report) {
        fprintf(stderr, "jitscope: the report could not be made: %s\n", err);
        return CLI_EXIT_FAILED;
    }
    held = report_judge(report, r->baseline, r->baseline_path, &r->conds);
    for (i = 0; i < r->output_count; i++) {
        size_t length = 0;
        char *text = r->outputs[i].markdown
                         ? report_markdown(report, &length)
                         : json_dumps(report, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        if (text && !r->outputs[i].markdown)
            length = strlen(text);
        if (!text || report_cli_write(r->outputs[i].path, text, length) != 0) {
            if (!text)
                fprintf(stderr, "jitscope: --report %s: out of memory\n", r->outputs[i].path);
            rc = CLI_EXIT_FAILED;
        } else {
            fprintf(stderr, "jitscope: report written to %s\n", r->outputs[i].path);
        }
        free(text);
    }
    report_cli_say(report);
    if (held)
        fprintf(stderr,
                "jitscope: %d of %zu --fail-on conditions held (exit code %d unless the "
                "app failed)\n",
                held, r->conds.count, CLI_EXIT_CONDITION);
    json_decref(report);
    return rc ? rc : held ? CLI_EXIT_CONDITION : 0;
}

void report_cli_free(report_cli *r)
{
    json_decref(r->baseline);
    r->baseline = NULL;
}
