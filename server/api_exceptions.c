/* api_exceptions.c -- a session's exceptions by throw site (docs/API.md):
 * GET /api/sessions/{id}/exceptions (the sites, sorted by count or rate, those
 * that threw since a time), GET .../exceptions/{n} (one site with its recent
 * exceptions and their sampled stacks), POST .../exceptions ({"enabled": b}:
 * the agent's exception records on or off, WIRE_CMD_EXCEPTIONS). The sites are
 * copied out of the session (excsites.h) under the lock, their methods' names
 * into a symbols table, and shaped into JSON after it is released. */
#include <stdlib.h>
#include <string.h>

#include "api_util.h"
#include "link.h"
#include "srcline.h"
#include "symbols.h"

/* One site as copied: its fields, the names' places in the symbols table,
 * its recent exceptions (detail only). */
typedef struct api_exc_row {
    exc_site site; /* type and message are copies; recent[] frames and messages too (detail) */
    uint32_t method_sym, catcher_sym[EXC_CATCHERS];
    uint32_t *frame_syms[EXC_RECENT], caught_by_sym[EXC_RECENT];
    double rate;
    uint32_t src; /* the throwing method in the copy's lines (UINT32_MAX: none) */
    long line;    /* the throw's source line (srcline_at_il), -1 none */
} api_exc_row;

typedef struct api_exc_copy {
    api_exc_row *rows;
    size_t count;
    symbols syms;
    int ended;          /* the process ended: open exceptions were not handled */
    pid_t pid;          /* whose files the lines are read from (api_code_pid) */
    int gone_container; /* ... none: the process ran in a container and ended */
    srcline lines;      /* the throwing methods' PDBs (srcline.h) */
    uint64_t total, sites_dropped, catches_unpaired;
    int enabled;
} api_exc_copy;

static void api_exc_free(api_exc_copy *v)
{
    size_t i, k;

    for (i = 0; i < v->count; i++) {
        free(v->rows[i].site.type);
        free(v->rows[i].site.message);
        for (k = 0; k < EXC_RECENT; k++) {
            free(v->rows[i].site.recent[k].frames);
            free(v->rows[i].site.recent[k].message);
            free(v->rows[i].frame_syms[k]);
        }
    }
    free(v->rows);
    symbols_free(&v->syms);
    srcline_free(&v->lines);
}

/* Locked: one site into row (with its recent exceptions when detail). */
static int api_exc_take(session *s, const exc_site *site, api_exc_row *row, int detail,
                        symbols *syms, int64_t now_s)
{
    uint32_t i, k;

    memset(row, 0, sizeof(*row));
    row->site = *site;
    memset(row->site.recent, 0, sizeof(row->site.recent));
    row->site.type = strdup(site->type);
    row->site.message = strdup(site->message);
    row->rate = exc_site_rate(site, now_s);
    row->line = -1;
    row->src = UINT32_MAX;
    if (!row->site.type || !row->site.message ||
        (site->function_id && symbols_function(syms, s, site->function_id, &row->method_sym) != 0))
        return -1;
    for (i = 0; i < site->catcher_count; i++)
        if (symbols_function(syms, s, site->catchers[i].function_id, &row->catcher_sym[i]) != 0)
            return -1;
    if (!detail)
        return 0;
    for (k = 0; k < EXC_RECENT && k < site->recent_total; k++) {
        const exc_recent *from = &site->recent[(site->recent_total - 1 - k) % EXC_RECENT];
        exc_recent *to = &row->site.recent[k]; /* newest first */
        *to = *from;
        to->frames = NULL, to->message = NULL, to->frame_count = 0;
        if (from->message && !(to->message = strdup(from->message)))
            return -1;
        if (from->caught_by &&
            symbols_function(syms, s, from->caught_by, &row->caught_by_sym[k]) != 0)
            return -1;
        if (from->frame_count) {
            if (!(to->frames = malloc(from->frame_count * sizeof(*to->frames))) ||
                !(row->frame_syms[k] = malloc(from->frame_count * sizeof(uint32_t))))
                return -1;
            memcpy(to->frames, from->frames, from->frame_count * sizeof(*to->frames));
            to->frame_count = from->frame_count;
            for (i = 0; i < from->frame_count; i++)
                if (symbols_function(syms, s, from->frames[i].function_id,
                                     &row->frame_syms[k][i]) != 0)
                    return -1;
        }
    }
    return 0;
}

/* Locked: the sites (one: number; all that threw at or after since_ns: 0). */
static int api_exc_copy_sites(session *s, api_exc_copy *v, uint64_t number, int64_t since_ns)
{
    const exc_state *x = s->exceptions;
    int64_t now_s = api_now_ns() / 1000000000;
    uint32_t i;

    v->ended = s->state == SESSION_EXITED;
    v->pid = api_code_pid(s);
    v->gone_container = !v->pid && s->container.in_container;
    v->enabled = !s->exceptions_off;
    if (!x)
        return 0;
    v->total = x->total, v->sites_dropped = x->sites_dropped;
    v->catches_unpaired = x->catches_unpaired;
    if (s->state != SESSION_LIVE) /* the rate as it was when it last threw */
        for (i = 0, now_s = 0; i < x->count; i++)
            if (x->sites[i].last_ns / 1000000000 > now_s)
                now_s = x->sites[i].last_ns / 1000000000;
    if (!(v->rows = calloc(x->count ? x->count : 1, sizeof(*v->rows))))
        return -1;
    for (i = 0; i < x->count; i++) {
        const exc_site *site = &x->sites[i];
        if ((number && site->number != number) || site->last_ns < since_ns)
            continue;
        if (api_exc_take(s, site, &v->rows[v->count++], number != 0, &v->syms, now_s) != 0)
            return -1;
        if (site->function_id && site->il_offset != WIRE_IL_OFFSET_UNKNOWN &&
            srcline_want(&v->lines, s, site->function_id, &v->rows[v->count - 1].src) != 0)
            v->rows[v->count - 1].src = UINT32_MAX; /* past the methods a response resolves */
    }
    return 0;
}

/* Unlocked: each row's source line, from its method's PDB (srcline.h). */
static void api_exc_lines(api_exc_copy *v)
{
    const char *file, *why;
    uint32_t line;
    size_t i;

    srcline_resolve(&v->lines, v->pid, v->gone_container);
    for (i = 0; i < v->count; i++)
        if (v->rows[i].src != UINT32_MAX &&
            srcline_at_il(&v->lines, v->rows[i].src, v->rows[i].site.il_offset, &file, &line, &why))
            v->rows[i].line = line;
}

static json_t *api_exc_name(const api_exc_copy *v, uint64_t function_id, uint32_t sym)
{
    return function_id ? json_string(v->syms.items[sym].name) : json_null();
}

static json_t *api_exc_site_json(const api_exc_copy *v, const api_exc_row *row)
{
    const exc_site *site = &row->site;
    json_t *caught_in = json_array(), *series = json_array();
    uint32_t i;

    for (i = 0; i < site->catcher_count; i++)
        json_array_append_new(
            caught_in,
            json_pack("{s:o, s:o, s:o}", "method",
                      api_exc_name(v, site->catchers[i].function_id, row->catcher_sym[i]),
                      "function_id", view_id(site->catchers[i].function_id), "count",
                      view_count(site->catchers[i].count)));
    for (i = 0; i < EXC_SERIES; i++)
        json_array_append_new(series, json_integer(site->series[i]));
    return json_pack(
        "{s:I, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:f, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
        "s:o, s:o}",
        "site", (json_int_t)site->number, "type", site->type, "message", site->message, "method",
        api_exc_name(v, site->function_id, row->method_sym), "function_id",
        view_id(site->function_id), "il_offset",
        site->il_offset == WIRE_IL_OFFSET_UNKNOWN ? json_null() : json_integer(site->il_offset),
        "ip", view_id(site->ip), "line", row->line >= 0 ? json_integer(row->line) : json_null(),
        "count", view_count(site->count), "per_second", row->rate, "caught_in", caught_in, "caught",
        view_count(site->caught), "unhandled", view_count(v->ended ? site->open : 0), "open",
        view_count(v->ended ? 0 : site->open), "replaced", view_count(site->replaced), "first_ms",
        view_ms(site->first_ns), "last_ms", view_ms(site->last_ns), "series_end_ms",
        view_ms(site->series_end * 1000000000), "series", series);
}

static const char *api_exc_outcome(const api_exc_copy *v, uint32_t outcome)
{
    switch (outcome) {
    case EXC_CAUGHT: return "caught";
    case EXC_REPLACED: return "replaced";
    default: return v->ended ? "unhandled" : "open";
    }
}

static json_t *api_exc_recent_json(const api_exc_copy *v, const api_exc_row *row)
{
    json_t *list = json_array();
    uint32_t k, i;

    for (k = 0; k < EXC_RECENT && k < row->site.recent_total; k++) {
        const exc_recent *e = &row->site.recent[k];
        json_t *stack = e->frame_count ? json_array() : json_null();
        for (i = 0; i < e->frame_count; i++)
            json_array_append_new(
                stack, json_pack("{s:o, s:o, s:o}", "method",
                                 e->frames[i].function_id
                                     ? json_string(v->syms.items[row->frame_syms[k][i]].name)
                                     : json_string("[native]"),
                                 "function_id", view_id(e->frames[i].function_id), "ip",
                                 view_id(e->frames[i].ip)));
        json_array_append_new(
            list, json_pack("{s:o, s:o, s:s?, s:s, s:o, s:o, s:o}", "time_ms", view_ms(e->time_ns),
                            "thread_id", view_id(e->thread_id), "message", e->message, "outcome",
                            api_exc_outcome(v, e->outcome), "caught_in",
                            api_exc_name(v, e->caught_by, row->caught_by_sym[k]), "hresult",
                            view_hresult(e->hresult), "stack", stack));
    }
    return list;
}

static int api_exc_by_count(const void *a, const void *b)
{
    const api_exc_row *x = a, *y = b;

    if (x->site.count != y->site.count)
        return x->site.count > y->site.count ? -1 : 1;
    return x->site.number < y->site.number ? -1 : 1;
}

static int api_exc_by_rate(const void *a, const void *b)
{
    const api_exc_row *x = a, *y = b;

    if (x->rate != y->rate)
        return x->rate > y->rate ? -1 : 1;
    return api_exc_by_count(a, b);
}

int api_exceptions_list(api_call *c)
{
    const char *sort = c->req->arg(c->req->ctx, "sort");
    api_exc_copy v = {0};
    json_t *sites;
    int64_t since_ns;
    session *s;
    size_t i;
    int rc;

    if (sort && strcmp(sort, "count") != 0 && strcmp(sort, "rate") != 0)
        return api_fail(c, 400, "sort must be count or rate");
    if (api_arg_ms(c->req, "since", 0, &since_ns) != 0)
        return api_fail(c, 400, "since must be Unix milliseconds");
    if (!(s = api_lock_session(c)))
        return 404;
    rc = api_exc_copy_sites(s, &v, 0, since_ns);
    sessions_unlock();
    if (rc == 0)
        api_exc_lines(&v);
    if (rc != 0) {
        api_exc_free(&v);
        return api_fail(c, 503, "out of memory copying the exceptions");
    }
    qsort(v.rows, v.count, sizeof(*v.rows),
          sort && strcmp(sort, "rate") == 0 ? api_exc_by_rate : api_exc_by_count);
    sites = json_array();
    for (i = 0; i < v.count; i++)
        json_array_append_new(sites, api_exc_site_json(&v, &v.rows[i]));
    c->reply->json = json_pack("{s:o, s:o, s:o, s:o, s:b}", "sites", sites, "total",
                               view_count(v.total), "sites_dropped", view_count(v.sites_dropped),
                               "catches_unpaired", view_count(v.catches_unpaired), "enabled",
                               v.enabled);
    api_exc_free(&v);
    return 200;
}

int api_exceptions_site(api_call *c)
{
    api_exc_copy v = {0};
    session *s;
    json_t *o;
    int rc;

    if (!(s = api_lock_session(c)))
        return 404;
    rc = api_exc_copy_sites(s, &v, c->n, 0);
    sessions_unlock();
    if (rc == 0)
        api_exc_lines(&v);
    if (rc != 0) {
        api_exc_free(&v);
        return api_fail(c, 503, "out of memory copying the exceptions");
    }
    if (v.count == 0) {
        api_exc_free(&v);
        return api_fail(c, 404, "session %d has no exception site %llu", c->session_id,
                        (unsigned long long)c->n);
    }
    o = api_exc_site_json(&v, &v.rows[0]);
    json_object_set_new(o, "recent", api_exc_recent_json(&v, &v.rows[0]));
    c->reply->json = o;
    api_exc_free(&v);
    return 200;
}

int api_exceptions_post(api_call *c)
{
    wire_cmd_exceptions cmd = {0};
    session *s;
    int enabled, link_id, status;

    if ((status = api_switch_request(c, &enabled, &link_id)) != 0)
        return status;
    cmd.enabled = enabled ? 1u : 0u;
    if (link_send(link_id, WIRE_CMD_EXCEPTIONS, &cmd, sizeof(cmd)) != 0)
        return api_fail(c, 502, "could not send the exceptions command to the agent");
    if ((s = api_lock_session(c)) != NULL) {
        s->exceptions_off = !enabled;
        sessions_unlock();
    }
    c->reply->json = json_pack("{s:b}", "enabled", enabled);
    return 202;
}
