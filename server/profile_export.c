/* profile_export.c -- call tree, folded stacks and speedscope from a profile view
 * (see profile_export.h). */
#include "profile_export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "version.h"

static json_t *export_id(uint64_t id)
{
    char text[24];
    snprintf(text, sizeof(text), "0x%llx", (unsigned long long)id);
    return json_string(text);
}

static const char *export_name(const profile_view *v, uint32_t sym)
{
    return v->syms.items[sym].name;
}

/* ---- threads and per-second timeline --------------------------------------------- */

static json_t *export_threads(const profile_view *v)
{
    json_t *list = json_array();
    size_t i;

    for (i = 0; i < v->thread_count; i++) {
        const profile_view_thread *t = &v->threads[i];
        json_array_append_new(
            list, json_pack("{s:o, s:o, s:I, s:o, s:I, s:b, s:b}", "thread_id",
                            t->thread_id ? export_id(t->thread_id) : json_null(), "thread_key",
                            t->thread_key >= 0 ? json_integer(t->thread_key) : json_null(),
                            "os_thread_id", (json_int_t)t->os_thread_id, "name",
                            t->name ? json_string(t->name) : json_null(), "samples",
                            (json_int_t)t->samples, "jitscope", t->own, "counted", t->counted));
    }
    return list;
}

static json_t *export_timeline(const profile_view *v)
{
    json_t *list = json_array();
    size_t i;

    for (i = 0; i < v->second_count; i++)
        json_array_append_new(list, json_pack("{s:I, s:I}", "t_ms", (json_int_t)v->seconds[i].t_ms,
                                              "samples", (json_int_t)v->seconds[i].samples));
    return list;
}

/* ---- the JSON view ------------------------------------------------------------------ */

int profile_export_json(const profile_view *v, const profile_tree_opts *o, json_t *obj,
                        const char **why)
{
    if (o && profile_tree_json(v, o, obj, why) != 0)
        return -1;
    json_object_set_new(obj, "threads", export_threads(v));
    json_object_set_new(obj, "timeline", export_timeline(v));
    return 0;
}

/* ---- folded ----------------------------------------------------------------------------- */

/* Stacks by their names, root first; a prefix sorts first. */
static int folded_order(const void *a, const void *b, void *arg)
{
    const profile_view *v = arg;
    const profile_view_stack *x = &v->stacks[*(const uint32_t *)a];
    const profile_view_stack *y = &v->stacks[*(const uint32_t *)b];
    uint32_t k;

    for (k = 0; k < x->depth && k < y->depth; k++) {
        uint32_t sx = v->frames[x->first + x->depth - 1 - k];
        uint32_t sy = v->frames[y->first + y->depth - 1 - k];
        int c = sx == sy ? 0 : strcmp(export_name(v, sx), export_name(v, sy));
        if (!c && sx != sy) { /* one method's frames at two lines (split) */
            uint32_t lx = v->syms.items[sx].split ? v->syms.items[sx].line : 0;
            uint32_t ly = v->syms.items[sy].split ? v->syms.items[sy].line : 0;
            c = (lx > ly) - (lx < ly);
        }
        if (c)
            return c;
    }
    return (x->depth > y->depth) - (x->depth < y->depth);
}

/* A name with ';' made ':' and line breaks made spaces. */
static void folded_name(textbuf *out, const char *name)
{
    const char *run = name, *p;

    for (p = name; *p; p++) {
        if (*p == ';' || *p == '\n' || *p == '\r') {
            textbuf_add(out, run, (size_t)(p - run));
            textbuf_add(out, *p == ';' ? ":" : " ", 1);
            run = p + 1;
        }
    }
    textbuf_add(out, run, (size_t)(p - run));
}

int profile_export_folded(const profile_view *v, textbuf *out, const char **why)
{
    uint32_t *order = malloc((v->stack_count + 1) * sizeof(*order));
    size_t i;

    if (!order) {
        *why = "out of memory";
        return -1;
    }
    for (i = 0; i < v->stack_count; i++)
        order[i] = (uint32_t)i;
    qsort_r(order, v->stack_count, sizeof(*order), folded_order, (void *)v);
    for (i = 0; i < v->stack_count;) {
        const profile_view_stack *st = &v->stacks[order[i]];
        uint64_t count = 0;
        uint32_t k;
        size_t j = i;

        while (j < v->stack_count && folded_order(&order[i], &order[j], (void *)v) == 0)
            count += v->stacks[order[j++]].count;
        for (k = st->depth; k-- > 0;) {
            const symbol *sym = &v->syms.items[v->frames[st->first + k]];
            folded_name(out, sym->name);
            if (sym->split)
                textbuf_printf(out, ":%u", sym->line);
            if (k)
                textbuf_add(out, ";", 1);
        }
        textbuf_printf(out, " %llu\n", (unsigned long long)count);
        i = j;
    }
    free(order);
    if (out->overflow) {
        *why = "the folded stacks are larger than the response limit; filter by thread or time";
        return -1;
    }
    return 0;
}

/* ---- speedscope ------------------------------------------------------------------------- */

typedef struct speedscope_run {
    uint32_t stack; /* UINT32_MAX: none yet */
    uint64_t weight;
} speedscope_run;

/* Bytes the samples of a view would take, roughly (7 per frame index, 16 per run). */
static size_t speedscope_estimate(const profile_view *v)
{
    uint32_t *last = malloc((v->thread_count + 1) * sizeof(*last));
    size_t bytes = 256, i;

    if (!last)
        return SIZE_MAX;
    for (i = 0; i < v->thread_count; i++)
        last[i] = UINT32_MAX;
    for (i = 0; i < v->syms.count; i++)
        bytes += 32 + strlen(v->syms.items[i].name) * 2 +
                 (v->syms.items[i].module ? strlen(v->syms.items[i].module) : 0);
    for (i = 0; i < v->thread_count; i++)
        bytes += 200 + (v->threads[i].name ? strlen(v->threads[i].name) * 2 : 0);
    for (i = 0; i < v->sample_count; i++) {
        const profile_view_sample *e = &v->samples[i];
        if (last[e->thread] != e->stack)
            bytes += 16 + (size_t)v->stacks[e->stack].depth * 7;
        last[e->thread] = e->stack;
    }
    free(last);
    return bytes;
}

static json_t *speedscope_profile_name(const profile_view_thread *t)
{
    if (!t->thread_id) /* CPU mode: a thread the agent did not report (native) */
        return t->name ? json_sprintf("Thread os %u \"%s\"", t->os_thread_id, t->name)
                       : json_sprintf("Thread os %u", t->os_thread_id);
    return t->name ? json_sprintf("Thread 0x%llx (os %u) \"%s\"", (unsigned long long)t->thread_id,
                                  t->os_thread_id, t->name)
                   : json_sprintf("Thread 0x%llx (os %u)", (unsigned long long)t->thread_id,
                                  t->os_thread_id);
}

/* The root-first array of frame indexes of a stack, made once and shared. */
static json_t *speedscope_stack(const profile_view *v, json_t **stacks, json_t **indexes,
                                uint32_t s)
{
    const profile_view_stack *st = &v->stacks[s];
    uint32_t k;

    if (stacks[s])
        return stacks[s];
    stacks[s] = json_array();
    for (k = st->depth; k-- > 0;) {
        uint32_t sym = v->frames[st->first + k];
        if (!indexes[sym])
            indexes[sym] = json_integer(sym);
        json_array_append(stacks[s], indexes[sym]);
    }
    return stacks[s];
}

static void speedscope_flush(const profile_view *v, json_t **stacks, json_t **indexes,
                             speedscope_run *r, json_t *samples, json_t *weights)
{
    json_array_append(samples, speedscope_stack(v, stacks, indexes, r->stack));
    json_array_append_new(weights, json_integer((json_int_t)r->weight));
    r->stack = UINT32_MAX;
}

json_t *profile_export_speedscope(const profile_view *v, const char *name, size_t max_bytes,
                                  const char **why)
{
    json_t **stacks = NULL, **indexes = NULL, *frames, *profiles, **samples = NULL,
           **weights = NULL, *file = NULL;
    speedscope_run *run = NULL;
    uint64_t *total = NULL; /* per thread: its samples in the view */
    size_t i;

    if (speedscope_estimate(v) > max_bytes) {
        *why =
            "the speedscope file would be larger than the response limit; filter by thread or time";
        return NULL;
    }
    stacks = calloc(v->stack_count + 1, sizeof(*stacks));
    indexes = calloc(v->syms.count + 1, sizeof(*indexes));
    samples = calloc(v->thread_count + 1, sizeof(*samples));
    weights = calloc(v->thread_count + 1, sizeof(*weights));
    run = calloc(v->thread_count + 1, sizeof(*run));
    total = calloc(v->thread_count + 1, sizeof(*total));
    if (!stacks || !indexes || !samples || !weights || !run || !total) {
        *why = "out of memory";
        goto done;
    }
    frames = json_array();
    for (i = 0; i < v->syms.count; i++) {
        const symbol *sym = &v->syms.items[i];
        json_t *frame = json_pack("{s:s, s:s}", "name", sym->name, "file",
                                  sym->file     ? sym->file
                                  : sym->module ? sym->module
                                                : "");
        if (sym->file && sym->line)
            json_object_set_new(frame, "line", json_integer(sym->line));
        json_array_append_new(frames, frame);
    }
    for (i = 0; i < v->thread_count; i++) {
        samples[i] = json_array();
        weights[i] = json_array();
        run[i].stack = UINT32_MAX;
    }
    /* in time order; a run of one stack on one thread is one weighted sample */
    for (i = 0; i < v->sample_count; i++) {
        const profile_view_sample *e = &v->samples[i];
        speedscope_run *r = &run[e->thread];
        if (r->stack != UINT32_MAX && r->stack != e->stack)
            speedscope_flush(v, stacks, indexes, r, samples[e->thread], weights[e->thread]);
        if (r->stack == UINT32_MAX)
            *r = (speedscope_run){e->stack, 0};
        r->weight++;
        total[e->thread]++;
    }
    for (i = 0; i < v->thread_count; i++)
        if (run[i].stack != UINT32_MAX)
            speedscope_flush(v, stacks, indexes, &run[i], samples[i], weights[i]);
    profiles = json_array();
    for (i = 0; i < v->thread_count; i++) {
        if (!total[i]) /* not counted (jitscope's own), or all its samples hidden */
            continue;
        json_array_append_new(profiles,
                              json_pack("{s:s, s:o, s:s, s:i, s:I, s:o, s:o}", "type", "sampled",
                                        "name", speedscope_profile_name(&v->threads[i]), "unit",
                                        "none", "startValue", 0, "endValue", (json_int_t)total[i],
                                        "samples", samples[i], "weights", weights[i]));
        samples[i] = weights[i] = NULL;
    }
    file = json_pack("{s:s, s:{s:o}, s:o, s:s, s:i, s:s}", "$schema",
                     "https://www.speedscope.app/file-format-schema.json", "shared", "frames",
                     frames, "profiles", profiles, "name", name, "activeProfileIndex", 0,
                     "exporter", "jitscope@" JITSCOPE_VERSION);
    if (!file)
        *why = "could not build the speedscope file";
done:
    for (i = 0; stacks && i < v->stack_count; i++)
        json_decref(stacks[i]);
    for (i = 0; indexes && i < v->syms.count; i++)
        json_decref(indexes[i]);
    for (i = 0; samples && i < v->thread_count; i++) {
        json_decref(samples[i]);
        json_decref(weights[i]);
    }
    free(stacks);
    free(indexes);
    free(samples);
    free(weights);
    free(run);
    free(total);
    return file;
}
