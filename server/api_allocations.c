/* api_allocations.c -- a session's sampled allocations (docs/API.md):
 * GET /api/sessions/{id}/allocations (estimated bytes and objects per type;
 * ?group=stack: per allocating stack as a tree, callers first, the type the
 * leaf; ?format=pprof: alloc_space and alloc_objects per stack, the type its
 * leaf frame; ?format=speedscope: the same as one speedscope profile weighted
 * by bytes), POST .../allocations ({"enabled": b}: the agent's allocation
 * records on or off, WIRE_CMD_ALLOCATIONS). The types and stacks are copied
 * out of the session (allocsites.h) under the lock, their methods' names into
 * a symbols table, and shaped after it is released. Every estimate is scaled
 * by the samples the agent counted but did not send (alloc_scale).
 * ?series=second adds `per_second`: the estimated bytes and objects of each
 * second that had samples (each scaled by its own samples not sent) (the newest ALLOC_SECONDS_KEEP, oldest first; the
 * newest may still grow), the series the live stream's `allocation_second`
 * events continue. */
#include <stdlib.h>
#include <string.h>

#include "api_util.h"
#include "link.h"
#include "pprof.h"
#include "symbols.h"

typedef struct api_alloc_copy {
    alloc_state a;        /* types (names copied) and stacks (frames as symbol indexes) */
    uint32_t *stack_syms; /* stack i's frames' symbols at stack_first[i] */
    uint32_t *stack_first;
    symbols syms;
    alloc_second *seconds; /* oldest first, second_count of them (?series=second) */
    uint32_t second_count;
    double scale;
    int enabled, any;
} api_alloc_copy;

static void api_alloc_free(api_alloc_copy *v)
{
    uint32_t i;

    for (i = 0; i < v->a.type_count; i++)
        free(v->a.types[i].name);
    free(v->a.types);
    free(v->a.stacks);
    free(v->stack_syms);
    free(v->stack_first);
    free(v->seconds);
    symbols_free(&v->syms);
}

/* Locked: the seconds kept, oldest first. */
static int api_alloc_copy_seconds(const alloc_state *a, api_alloc_copy *v)
{
    uint32_t first, kept = alloc_seconds_kept(a, &first), i;

    if (!(v->seconds = calloc(kept + 1, sizeof(*v->seconds))))
        return -1;
    for (i = 0; i < kept; i++)
        v->seconds[i] = a->seconds[(first + i) % a->second_cap];
    v->second_count = kept;
    return 0;
}

static json_t *api_alloc_amount(double v)
{
    return json_integer((json_int_t)(v + 0.5)); /* v >= 0 */
}

/* `per_second` and `seconds_evicted` into o. */
static void api_alloc_series(json_t *o, const api_alloc_copy *v)
{
    json_t *list = json_array();
    uint32_t i;

    double bytes, objects;

    for (i = 0; i < v->second_count; i++) {
        alloc_second_estimate(&v->seconds[i], &bytes, &objects);
        json_array_append_new(list, json_pack("{s:o, s:o, s:o, s:o, s:o}", "time_ms",
                                              view_ms(v->seconds[i].second * 1000000000), "bytes",
                                              api_alloc_amount(bytes), "objects",
                                              api_alloc_amount(objects), "samples",
                                              view_count(v->seconds[i].samples), "unsent",
                                              view_count(v->seconds[i].unsent)));
    }
    json_object_set_new(o, "per_second", list);
    json_object_set_new(o, "seconds_evicted",
                        view_count(v->a.second_total - (uint64_t)v->second_count));
}

/* Locked: the types, the stacks when stacks, the seconds when seconds. */
static int api_alloc_copy_out(session *s, api_alloc_copy *v, int stacks, int seconds)
{
    const alloc_state *a = s->allocations;
    uint32_t i, k, frames = 0, at = 0;

    v->enabled = s->allocations_on;
    v->scale = 1.0;
    if (!a)
        return 0;
    v->any = 1;
    v->a = *a;
    v->a.types = NULL, v->a.stacks = NULL, v->a.type_index = NULL, v->a.stack_index = NULL;
    v->a.type_count = 0, v->a.stack_count = 0, v->a.seconds = NULL;
    v->scale = alloc_scale(a);
    if (seconds && api_alloc_copy_seconds(a, v) != 0)
        return -1;
    if (!(v->a.types = calloc(a->type_count + 1, sizeof(*v->a.types))))
        return -1;
    for (i = 0; i < a->type_count; i++, v->a.type_count++) {
        v->a.types[i] = a->types[i];
        if (!(v->a.types[i].name = strdup(a->types[i].name)))
            return -1;
    }
    if (!stacks)
        return 0;
    for (i = 0; i < a->stack_count; i++)
        frames += a->stacks[i].depth;
    v->a.stacks = calloc(a->stack_count + 1, sizeof(*v->a.stacks));
    v->stack_first = calloc(a->stack_count + 1, sizeof(*v->stack_first));
    v->stack_syms = calloc(frames + 1, sizeof(*v->stack_syms));
    if (!v->a.stacks || !v->stack_first || !v->stack_syms)
        return -1;
    for (i = 0; i < a->stack_count; i++, v->a.stack_count++) {
        v->a.stacks[i] = a->stacks[i];
        v->a.stacks[i].frames = NULL;
        v->stack_first[i] = at;
        for (k = 0; k < a->stacks[i].depth; k++)
            if (symbols_function(&v->syms, s, a->stacks[i].frames[k], &v->stack_syms[at++]) != 0)
                return -1;
    }
    return 0;
}

static int api_alloc_by_bytes(const void *x, const void *y)
{
    const alloc_type *a = x, *b = y;
    return a->bytes < b->bytes ? 1 : a->bytes > b->bytes ? -1 : strcmp(a->name, b->name);
}

/* ---- ?group=stack: a tree, callers first ---- */

typedef struct api_alloc_node {
    json_t *json, *children;
    double bytes, objects;
} api_alloc_node;

/* The child of parent named name (made the first time). */
static json_t *api_alloc_child(json_t *children, const char *name, const char *kind)
{
    size_t i;
    json_t *c;

    json_array_foreach(children, i, c) if (strcmp(json_string_value(json_object_get(c, "name")),
                                                  name) == 0) return c;
    c = json_pack("{s:s, s:s, s:f, s:f, s:[]}", "name", name, "kind", kind, "bytes", 0.0, "objects",
                  0.0, "children");
    json_array_append_new(children, c);
    return c;
}

static void api_alloc_add(json_t *node, double bytes, double objects)
{
    json_object_set_new(node, "bytes",
                        json_real(json_real_value(json_object_get(node, "bytes")) + bytes));
    json_object_set_new(node, "objects",
                        json_real(json_real_value(json_object_get(node, "objects")) + objects));
}

/* Rounds every node's amounts to integers. */
static void api_alloc_round(json_t *node)
{
    size_t i;
    json_t *c;

    json_object_set_new(node, "bytes",
                        api_alloc_amount(json_real_value(json_object_get(node, "bytes"))));
    json_object_set_new(node, "objects",
                        api_alloc_amount(json_real_value(json_object_get(node, "objects"))));
    json_array_foreach(json_object_get(node, "children"), i, c) api_alloc_round(c);
}

static json_t *api_alloc_tree(const api_alloc_copy *v)
{
    json_t *root = json_pack("{s:s, s:s, s:f, s:f, s:[]}", "name", "all", "kind", "root", "bytes",
                             0.0, "objects", 0.0, "children");
    uint32_t i, k;

    for (i = 0; i < v->a.stack_count; i++) {
        const alloc_stack *st = &v->a.stacks[i];
        double bytes = st->bytes * v->scale, objects = st->objects * v->scale;
        json_t *node = root;

        api_alloc_add(root, bytes, objects);
        for (k = st->depth; k-- > 0;) { /* root end first */
            node = api_alloc_child(json_object_get(node, "children"),
                                   v->syms.items[v->stack_syms[v->stack_first[i] + k]].name,
                                   "method");
            api_alloc_add(node, bytes, objects);
        }
        node = api_alloc_child(json_object_get(node, "children"), v->a.types[st->type].name,
                               "type");
        api_alloc_add(node, bytes, objects);
    }
    api_alloc_round(root);
    return root;
}

/* ---- ?format=pprof: one view stack per (type, stack), the type its leaf ---- */

static int api_alloc_pprof(api_call *c, const api_alloc_copy *v)
{
    profile_view pv;
    pprof_options o = {0};
    uint32_t i, k, type_sym, at = 0, frames = 0;
    const char *why = "out of memory building the pprof file";
    double *bytes = NULL, *objects = NULL;
    int rc = -1;

    memset(&pv, 0, sizeof(pv));
    pv.syms = v->syms; /* borrowed: not freed here */
    for (i = 0; i < v->a.stack_count; i++)
        frames += v->a.stacks[i].depth + 1;
    pv.stacks = calloc(v->a.stack_count + 1, sizeof(*pv.stacks));
    pv.frames = calloc(frames + 1, sizeof(*pv.frames));
    pv.samples = calloc(v->a.stack_count + 1, sizeof(*pv.samples));
    pv.threads = calloc(1, sizeof(*pv.threads));
    bytes = calloc(v->a.stack_count + 1, sizeof(*bytes));
    objects = calloc(v->a.stack_count + 1, sizeof(*objects));
    if (!pv.stacks || !pv.frames || !pv.samples || !pv.threads || !bytes || !objects)
        goto done;
    pv.thread_count = 1;
    pv.threads[0].counted = 1;
    pv.threads[0].thread_key = -1;
    for (i = 0; i < v->a.stack_count; i++) {
        const alloc_stack *st = &v->a.stacks[i];
        if (symbols_label(&pv.syms, v->a.types[st->type].name, &type_sym) != 0)
            goto done;
        pv.stacks[i] = (profile_view_stack){at, st->depth + 1, st->samples};
        pv.frames[at++] = type_sym;
        for (k = 0; k < st->depth; k++)
            pv.frames[at++] = v->stack_syms[v->stack_first[i] + k];
        pv.samples[i] = (profile_view_sample){0, i};
        bytes[i] = st->bytes * v->scale, objects[i] = st->objects * v->scale;
    }
    pv.stack_count = pv.sample_count = v->a.stack_count;
    pv.frame_count = at;
    o.alloc_bytes = bytes, o.alloc_objects = objects;
    rc = pprof_export(&pv, &o, API_MAX_OUTPUT, (uint8_t **)&c->reply->text, &c->reply->text_length,
                      &why);
done:
    ((api_alloc_copy *)v)->syms = pv.syms; /* labels added: freed with the copy */
    free(pv.stacks), free(pv.frames), free(pv.samples), free(pv.threads);
    free(bytes), free(objects);
    if (rc != 0)
        return api_fail(c, 503, "%s", why);
    c->reply->content_type = "application/octet-stream";
    snprintf(c->reply->disposition, sizeof(c->reply->disposition),
             "attachment; filename=\"jitscope-session-%d.alloc.pb.gz\"", c->session_id);
    return 200;
}

/* ---- ?format=speedscope: one sampled profile, each (type, stack) a sample
 * weighted by its estimated bytes, the type its last frame ---- */

static int api_alloc_speedscope(api_call *c, const api_alloc_copy *v)
{
    json_t *frames = json_array(), *samples = json_array(), *weights = json_array();
    json_int_t total = 0;
    uint32_t i, k;
    size_t type_base = v->syms.count;

    for (i = 0; i < v->syms.count; i++)
        json_array_append_new(frames,
                              json_pack("{s:s, s:s}", "name", v->syms.items[i].name, "file",
                                        v->syms.items[i].module ? v->syms.items[i].module : ""));
    for (i = 0; i < v->a.type_count; i++)
        json_array_append_new(frames,
                              json_pack("{s:s, s:s}", "name", v->a.types[i].name, "file", ""));
    for (i = 0; i < v->a.stack_count; i++) {
        const alloc_stack *st = &v->a.stacks[i];
        json_t *stack = json_array();
        json_int_t w = (json_int_t)(st->bytes * v->scale + 0.5);
        for (k = st->depth; k-- > 0;) /* root first */
            json_array_append_new(stack, json_integer(v->stack_syms[v->stack_first[i] + k]));
        json_array_append_new(stack, json_integer((json_int_t)(type_base + st->type)));
        json_array_append_new(samples, stack);
        json_array_append_new(weights, json_integer(w));
        total += w;
    }
    c->reply->json = json_pack(
        "{s:s, s:{s:o}, s:[{s:s, s:s, s:s, s:i, s:I, s:o, s:o}], s:s, s:i, s:s}", "$schema",
        "https://www.speedscope.app/file-format-schema.json", "shared", "frames", frames,
        "profiles", "type", "sampled", "name", "allocations (estimated bytes)", "unit", "bytes",
        "startValue", 0, "endValue", total, "samples", samples, "weights", weights, "name",
        "jitscope allocations", "activeProfileIndex", 0, "exporter", "jitscope");
    if (!c->reply->json)
        return api_fail(c, 503, "out of memory building the speedscope file");
    snprintf(c->reply->disposition, sizeof(c->reply->disposition),
             "attachment; filename=\"jitscope-session-%d.alloc.speedscope.json\"", c->session_id);
    return 200;
}

int api_allocations_get(api_call *c)
{
    const char *group = c->req->arg(c->req->ctx, "group");
    const char *format = c->req->arg(c->req->ctx, "format");
    const char *series = c->req->arg(c->req->ctx, "series");
    api_alloc_copy v;
    json_t *types;
    session *s;
    uint32_t i;
    int rc, stacks;

    memset(&v, 0, sizeof(v));
    if (group && strcmp(group, "type") != 0 && strcmp(group, "stack") != 0)
        return api_fail(c, 400, "group must be type or stack");
    if (format && strcmp(format, "json") != 0 && strcmp(format, "pprof") != 0 &&
        strcmp(format, "speedscope") != 0)
        return api_fail(c, 400, "format must be json, pprof or speedscope");
    if (series && strcmp(series, "second") != 0)
        return api_fail(c, 400, "series must be second");
    stacks = (group && strcmp(group, "stack") == 0) || (format && strcmp(format, "json") != 0);
    if (!(s = api_lock_session(c)))
        return 404;
    rc = api_alloc_copy_out(s, &v, stacks, series != NULL);
    sessions_unlock();
    if (rc != 0) {
        api_alloc_free(&v);
        return api_fail(c, 503, "out of memory copying the allocations");
    }
    if (format && strcmp(format, "pprof") == 0) {
        rc = api_alloc_pprof(c, &v);
        api_alloc_free(&v);
        return rc;
    }
    if (format && strcmp(format, "speedscope") == 0) {
        rc = api_alloc_speedscope(c, &v);
        api_alloc_free(&v);
        return rc;
    }
    c->reply->json = json_pack(
        "{s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:f}", "enabled", v.enabled, "samples",
        view_count(v.a.samples), "unsent", view_count(v.a.unsent), "dropped",
        json_pack("{s:o, s:o}", "types", view_count(v.a.types_dropped), "stacks",
                  view_count(v.a.stacks_dropped)),
        "bytes", api_alloc_amount(v.a.bytes * v.scale), "objects",
        api_alloc_amount(v.a.objects * v.scale), "types", json_array(), "scale", v.scale);
    if (v.any && v.a.source)
        json_object_set_new(c->reply->json, "source",
                            json_string(v.a.source == WIRE_ALLOC_SAMPLED ? "sampled" : "tick"));
    if (series)
        api_alloc_series(c->reply->json, &v);
    if (stacks) {
        json_object_set_new(c->reply->json, "tree", api_alloc_tree(&v));
    } else {
        qsort(v.a.types, v.a.type_count, sizeof(*v.a.types), api_alloc_by_bytes);
        types = json_object_get(c->reply->json, "types");
        for (i = 0; i < v.a.type_count; i++)
            json_array_append_new(
                types, json_pack("{s:s, s:o, s:o, s:o}", "type", v.a.types[i].name, "bytes",
                                 api_alloc_amount(v.a.types[i].bytes * v.scale), "objects",
                                 api_alloc_amount(v.a.types[i].objects * v.scale), "samples",
                                 view_count(v.a.types[i].samples)));
    }
    api_alloc_free(&v);
    return 200;
}

int api_allocations_post(api_call *c)
{
    wire_cmd_allocations cmd = {0};
    session *s;
    int enabled, link_id, status;

    if ((status = api_switch_request(c, &enabled, &link_id)) != 0)
        return status;
    cmd.enabled = enabled ? 1u : 0u;
    if (link_send(link_id, WIRE_CMD_ALLOCATIONS, &cmd, sizeof(cmd)) != 0)
        return api_fail(c, 502, "could not send the allocations command to the agent");
    if ((s = api_lock_session(c)) != NULL) {
        s->allocations_on = enabled;
        sessions_unlock();
    }
    c->reply->json = json_pack("{s:b}", "enabled", enabled);
    return 202;
}
