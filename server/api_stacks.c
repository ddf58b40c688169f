/* api_stacks.c -- the stack snapshot routes: POST /stacks (take one), GET
 * /stacks (the kept ones), GET /stacks/{n} (one, as JSON or as a text report).
 *
 * POST sends WIRE_CMD_SNAPSHOT with a fresh request id and waits, without the
 * sessions lock (sessions_wait), until the STACK_END carrying that id has been
 * applied, the agent's connection is gone, or API_STACKS_TIMEOUT_MS passed.
 * Each wait holds one of the HTTP server's threads, so one request per session
 * and API_STACKS_MAX_WAITING in all may wait at once (429 beyond). A snapshot
 * is copied out under the lock (its threads, frames and the names they need,
 * at most a few MiB) and rendered after the lock is released. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_util.h"
#include "clock.h"
#include "link.h"
#include "srcline.h"
#include "srcview.h"
#include "symbols.h"
#include "textbuf.h"

#define API_STACKS_TIMEOUT_MS 10000
#define API_STACKS_MAX_WAITING 2 /* POST /stacks waiting at once, server-wide */

static int api_stacks_waiting;      /* under the sessions lock */
static uint64_t api_stacks_request; /* last request id given, under the sessions lock */

/* A snapshot copied out of a session. */
typedef struct api_snapshot {
    stacks_walk w;        /* fields; w.threads and w.frames are this copy's own */
    char **names;         /* per thread: its name or NULL */
    uint32_t *frame_syms; /* per frame: index in syms */
    symbols syms;
    uint32_t *frame_lines; /* per frame: index in lines, UINT32_MAX none; NULL: lines=0 */
    srcline lines;
} api_snapshot;

static void api_snapshot_free(api_snapshot *v)
{
    uint32_t i;

    for (i = 0; v->names && i < v->w.thread_count; i++)
        free(v->names[i]);
    free(v->names);
    free(v->w.threads);
    free(v->w.frames);
    free(v->frame_syms);
    free(v->frame_lines);
    srcline_free(&v->lines);
    symbols_free(&v->syms);
    memset(v, 0, sizeof(*v));
}

/* Caller holds the lock. 0 or -1 (out of memory). */
static int api_snapshot_take(api_snapshot *v, session *s, const stacks_walk *w)
{
    uint32_t i;

    memset(v, 0, sizeof(*v));
    v->w = *w;
    v->w.threads = malloc((w->thread_count + 1) * sizeof(*w->threads));
    v->w.frames = malloc((w->frame_count + 1) * sizeof(*w->frames));
    v->names = calloc(w->thread_count + 1, sizeof(*v->names));
    v->frame_syms = malloc((w->frame_count + 1) * sizeof(*v->frame_syms));
    if (!v->w.threads || !v->w.frames || !v->names || !v->frame_syms)
        goto fail;
    if (w->thread_count)
        memcpy(v->w.threads, w->threads, w->thread_count * sizeof(*w->threads));
    if (w->frame_count)
        memcpy(v->w.frames, w->frames, w->frame_count * sizeof(*w->frames));
    for (i = 0; i < w->thread_count; i++) {
        stacks_thread *e = &v->w.threads[i];
        const session_thread *t = e->thread_row
                                      ? session_thread_row(s, e->thread_row)
                                      : session_thread_match(s, e->thread_id, e->os_thread_id);
        e->thread_row = t ? session_thread_row_of(s, t) : 0;
        if (t && !v->w.threads[i].os_thread_id)
            v->w.threads[i].os_thread_id = t->os_thread_id;
        if (t && t->name && !(v->names[i] = strdup(t->name)))
            goto fail;
    }
    for (i = 0; i < w->frame_count; i++)
        if (symbols_function(&v->syms, s, w->frames[i].function_id, &v->frame_syms[i]) != 0)
            goto fail;
    return 0;
fail:
    api_snapshot_free(v);
    return -1;
}

/* File:line of the snapshot's managed frames (srcline.h): takes the lock,
 * wants each frame's method, fills them (api_lines_fill) and returns with the
 * lock released. Without memory, or with the session gone, frames have none. */
static void api_snapshot_lines(api_call *c, api_snapshot *v)
{
    session *s;
    uint32_t i;

    sessions_lock();
    if (!(s = sessions_get(c->session_id)) ||
        !(v->frame_lines = malloc((v->w.frame_count + 1) * sizeof(*v->frame_lines)))) {
        sessions_unlock();
        return;
    }
    for (i = 0; i < v->w.frame_count; i++) {
        const wire_stack_frame *f = &v->w.frames[i];
        if (!f->function_id || !f->ip ||
            srcline_want(&v->lines, s, f->function_id, &v->frame_lines[i]) != 0)
            v->frame_lines[i] = UINT32_MAX;
    }
    (void)api_lines_fill(c, &v->lines, 1);
}

/* Frame k of a thread (first its leaf) as file:line: 1 with *file, *line; else 0 with *why
 * (NULL: a native frame, nothing to say). */
static int api_snapshot_line(api_snapshot *v, const stacks_thread *t, uint32_t k, const char **file,
                             uint32_t *line, const char **why, uint32_t *il)
{
    uint32_t i = t->first_frame + k;
    const wire_stack_frame *f = &v->w.frames[i];

    *file = NULL;
    *line = 0;
    *why = NULL;
    *il = UINT32_MAX;
    if (!f->function_id)
        return 0;
    if (!v->frame_lines) {
        *why = "lines=0";
        return 0;
    }
    if (v->frame_lines[i] == UINT32_MAX) {
        *why = "not resolved (out of memory or too many methods)";
        return 0;
    }
    /* a caller's ip is its return address: the call instruction ends just before it */
    return srcline_at(&v->lines, v->frame_lines[i], k == 0 ? f->ip : f->ip - 1, file, line, why,
                      il);
}

/* Names of the HRESULTs a walk reports (for people; the number is always there). */
static const char *api_hresult_name(int32_t hr)
{
    switch ((uint32_t)hr) {
    case 0x80004005u: return "E_FAIL";
    case 0x80004001u: return "E_NOTIMPL";
    case 0x80070057u: return "E_INVALIDARG";
    case 0x8007000Eu: return "E_OUTOFMEMORY";
    case 0x80131351u: return "CORPROF_E_DATAINCOMPLETE";
    case 0x80131355u: return "CORPROF_E_NOT_MANAGED_THREAD";
    case 0x8013135Eu: return "CORPROF_E_STACKSNAPSHOT_INVALID_TGT_THREAD";
    case 0x8013135Fu: return "CORPROF_E_STACKSNAPSHOT_UNMANAGED_CTX";
    case 0x80131360u: return "CORPROF_E_STACKSNAPSHOT_UNSAFE";
    case 0x80131361u: return "CORPROF_E_STACKSNAPSHOT_ABORTED";
    case 0x80131363u: return "CORPROF_E_UNSUPPORTED_CALL_SEQUENCE";
    case 0x80131364u: return "CORPROF_E_ASYNCHRONOUS_UNSAFE";
    case 0x80131367u: return "CORPROF_E_PROFILER_DETACHING";
    case 0x80131388u: return "CORPROF_E_SUSPENSION_IN_PROGRESS";
    default: return NULL;
    }
}

/* Roughly the bytes the JSON of a snapshot takes. */
static size_t api_snapshot_size(const api_snapshot *v)
{
    size_t bytes = 512, i;

    for (i = 0; i < v->w.thread_count; i++)
        bytes += 320 + (v->names[i] ? 2 * strlen(v->names[i]) : 0);
    for (i = 0; i < v->w.frame_count; i++) {
        const symbol *sym = &v->syms.items[v->frame_syms[i]];
        bytes += 128 + 2 * strlen(sym->name) + (sym->module ? 2 * strlen(sym->module) : 0) +
                 (v->frame_lines ? 512 : 0); /* file, line or the reason */
    }
    return bytes;
}

static json_t *api_snapshot_json(api_snapshot *v)
{
    json_t *threads = json_array();
    uint32_t i, k;

    for (i = 0; i < v->w.thread_count; i++) {
        const stacks_thread *t = &v->w.threads[i];
        const char *hr_name = t->hresult ? api_hresult_name(t->hresult) : NULL;
        json_t *frames = json_array();

        for (k = 0; k < t->frame_count; k++) {
            const wire_stack_frame *f = &v->w.frames[t->first_frame + k];
            const symbol *sym = &v->syms.items[v->frame_syms[t->first_frame + k]];
            const char *file, *why;
            uint32_t line, il;
            int have = api_snapshot_line(v, t, k, &file, &line, &why, &il);
            json_t *o = json_pack("{s:o, s:s, s:o, s:o, s:b}", "function_id",
                                  f->function_id ? view_id(f->function_id) : json_null(), "name",
                                  sym->name, "module", view_str(sym->module), "ip", view_id(f->ip),
                                  "native", f->function_id == 0);
            json_object_set_new(o, "file", have ? srcview_string(file) : json_null());
            json_object_set_new(o, "line", have ? json_integer(line) : json_null());
            json_object_set_new(o, "il_offset", il != UINT32_MAX ? json_integer(il) : json_null());
            if (!have && why)
                json_object_set_new(o, "line_reason", srcview_string(why));
            json_array_append_new(frames, o);
        }
        json_array_append_new(
            threads,
            json_pack("{s:o, s:o, s:I, s:o, s:i, s:o, s:b, s:o, s:b, s:o}", "thread_id",
                      view_id(t->thread_id), "thread_key",
                      t->thread_row ? json_integer((json_int_t)t->thread_row - 1) : json_null(),
                      "os_thread_id", (json_int_t)t->os_thread_id, "name", view_str(v->names[i]),
                      "hresult", (int)t->hresult, "hresult_name", view_str(hr_name), "native_only",
                      stacks_thread_native_only(t), "walk_ns", view_count(t->walk_ns), "truncated",
                      (t->flags & WIRE_STACK_TRUNCATED) != 0, "frames", frames));
    }
    return json_pack("{s:I, s:o, s:o, s:o, s:i, s:I, s:I, s:I, s:b, s:o}", "id",
                     (json_int_t)v->w.id, "time_ms", view_ms(v->w.time_ns), "suspend_ns",
                     view_count(v->w.suspend_ns), "walk_ns", view_count(v->w.walk_ns), "hresult",
                     (int)v->w.hresult, "retries", (json_int_t)v->w.retries, "threads_total",
                     (json_int_t)v->w.threads_total, "threads_sent", (json_int_t)v->w.threads_sent,
                     "complete", stacks_complete(&v->w), "threads", threads);
}

/* A thread name on one line of the text report: line breaks become spaces. */
static void api_text_name(textbuf *out, const char *name)
{
    const char *run = name, *p;

    for (p = name; *p; p++) {
        if (*p == '\n' || *p == '\r') {
            textbuf_add(out, run, (size_t)(p - run));
            textbuf_add(out, " ", 1);
            run = p + 1;
        }
    }
    textbuf_add(out, run, (size_t)(p - run));
}

/* The text report: a summary line, then per thread a header line and one
 * indented line per frame, leaf first. */
static int api_snapshot_text(api_snapshot *v, textbuf *out)
{
    uint32_t i, k;

    textbuf_printf(out,
                   "Snapshot %llu: %u threads (%u listed by the runtime), suspended %llu ns, "
                   "hresult 0x%08x%s\n",
                   (unsigned long long)v->w.id, v->w.thread_count, v->w.threads_total,
                   (unsigned long long)v->w.suspend_ns, (unsigned)v->w.hresult,
                   stacks_complete(&v->w) ? "" : ", incomplete (thread records lost)");
    for (i = 0; i < v->w.thread_count; i++) {
        const stacks_thread *t = &v->w.threads[i];

        textbuf_printf(out, "\nThread 0x%llx (os %u)", (unsigned long long)t->thread_id,
                       t->os_thread_id);
        if (v->names[i]) {
            textbuf_str(out, " \"");
            api_text_name(out, v->names[i]);
            textbuf_str(out, "\"");
        }
        textbuf_str(out, "\n");
        if (stacks_thread_native_only(t) && t->hresult) {
            textbuf_printf(out,
                           "    (no managed frame: the thread is in native code; HRESULT "
                           "0x%08x E_FAIL)\n",
                           (unsigned)t->hresult);
        } else if (t->hresult && !t->frame_count) {
            const char *name = api_hresult_name(t->hresult);
            textbuf_printf(out, "    (walk failed: HRESULT 0x%08x%s%s)\n", (unsigned)t->hresult,
                           name ? " " : "", name ? name : "");
        } else if (!t->frame_count) {
            textbuf_str(out, "    (no managed frames)\n");
        }
        for (k = 0; k < t->frame_count; k++) {
            const wire_stack_frame *f = &v->w.frames[t->first_frame + k];
            const symbol *sym = &v->syms.items[v->frame_syms[t->first_frame + k]];
            const char *file, *why;
            uint32_t line, il;
            if (!f->function_id) {
                textbuf_printf(out, "    [native] 0x%llx\n", (unsigned long long)f->ip);
                continue;
            }
            textbuf_str(out, "    ");
            api_text_name(out, sym->name);
            if (sym->module) {
                textbuf_str(out, " [");
                api_text_name(out, sym->module);
                textbuf_str(out, "]");
            }
            if (api_snapshot_line(v, t, k, &file, &line, &why, &il)) {
                textbuf_str(out, " in ");
                api_text_name(out, file);
                textbuf_printf(out, ":line %u", line);
            }
            textbuf_str(out, "\n");
        }
        if (t->flags & WIRE_STACK_TRUNCATED)
            textbuf_str(out, "    ... (deeper frames were cut)\n");
    }
    return out->overflow ? -1 : 0;
}

/* Renders a copied snapshot into the reply: JSON {"snapshot"} or the text report. */
static int api_snapshot_reply(api_call *c, api_snapshot *v, int text, int status)
{
    if (text) {
        textbuf out;
        textbuf_init(&out, API_MAX_OUTPUT);
        if (api_snapshot_text(v, &out) != 0) {
            textbuf_free(&out);
            return api_fail(c, 503, "the snapshot report is larger than the response limit");
        }
        c->reply->text = textbuf_take(&out, &c->reply->text_length);
        c->reply->content_type = "text/plain; charset=utf-8";
        textbuf_free(&out);
        return c->reply->text ? status : api_fail(c, 503, "out of memory");
    }
    if (api_snapshot_size(v) > API_MAX_OUTPUT)
        return api_fail(c, 503, "the snapshot is larger than the response limit; use ?format=text");
    c->reply->json = json_pack("{s:o}", "snapshot", api_snapshot_json(v));
    return status;
}

int api_stacks_post(api_call *c)
{
    wire_cmd_snapshot cmd;
    struct timespec deadline;
    api_snapshot v;
    int link_id, status = 0, have = 0;
    long long lines;
    session *s;

    if (api_arg_int(c->req, "lines", 0, 1, 1, &lines) != 0)
        return api_fail(c, 400, "lines must be 0 or 1");
    if (!(s = api_lock_session(c)))
        return 404;
    if (s->state != SESSION_LIVE || !s->link_id) {
        status = api_fail(c, 409, "session %d is %s: there is no live agent to take a snapshot",
                          c->session_id, session_state_name(s->state));
        sessions_unlock();
        return status;
    }
    if (s->agent_flags & WIRE_AGENT_FLOOR) {
        sessions_unlock();
        return api_fail(c, 409, "session %d's agent is a floor (JITSCOPE_NULL=1): it walks nothing",
                        c->session_id);
    }
    if (s->stacks.requests_waiting || api_stacks_waiting >= API_STACKS_MAX_WAITING) {
        sessions_unlock();
        return api_fail(c, 429, "another stack snapshot is being taken; try again when it is done");
    }
    cmd.request_id = ++api_stacks_request;
    link_id = s->link_id;
    s->stacks.requests_waiting++;
    api_stacks_waiting++;
    sessions_unlock();

    if (link_send(link_id, WIRE_CMD_SNAPSHOT, &cmd, sizeof(cmd)) != 0)
        status = api_fail(c, 502, "could not send the snapshot command to the agent");
    deadline = clock_deadline_ms(CLOCK_MONOTONIC, API_STACKS_TIMEOUT_MS);
    sessions_lock();
    while (!status) {
        const stacks_walk *w;
        if (!(s = sessions_get(c->session_id))) {
            status = api_fail(c, 404, "the session is gone");
        } else if ((w = stacks_by_request(&s->stacks, cmd.request_id))) {
            if (api_snapshot_take(&v, s, w) == 0)
                have = 1, status = 201;
            else
                status = api_fail(c, 503, "out of memory copying the snapshot");
        } else if (s->link_id != link_id) {
            status = api_fail(c, 409, "the agent went away before the snapshot arrived");
        } else if (sessions_wait(&deadline) != 0 &&
                   !stacks_by_request(&s->stacks, cmd.request_id)) {
            status = api_fail(c, 504,
                              "the agent did not answer the snapshot request within %d s "
                              "(an agent that predates snapshots ignores it)",
                              API_STACKS_TIMEOUT_MS / 1000);
        }
    }
    if ((s = sessions_get(c->session_id)))
        s->stacks.requests_waiting--;
    api_stacks_waiting--;
    sessions_unlock();
    if (have) {
        if (lines)
            api_snapshot_lines(c, &v);
        status = api_snapshot_reply(c, &v, 0, status);
        api_snapshot_free(&v);
    }
    return status;
}

int api_stacks_list(api_call *c)
{
    json_t *list = json_array();
    unsigned i;

    for (i = 0; i < c->s->stacks.kept_count; i++) {
        const stacks_walk *w = stacks_at(&c->s->stacks, i);
        json_array_append_new(
            list, json_pack("{s:I, s:o, s:o, s:I, s:I, s:b}", "id", (json_int_t)w->id, "time_ms",
                            view_ms(w->time_ns), "suspend_ns", view_count(w->suspend_ns), "threads",
                            (json_int_t)w->thread_count, "frames", (json_int_t)w->frame_count,
                            "complete", stacks_complete(w)));
    }
    c->reply->json = json_pack("{s:o}", "snapshots", list);
    return 200;
}

int api_stacks_get(api_call *c)
{
    const char *format = c->req->arg(c->req->ctx, "format");
    const stacks_walk *w;
    api_snapshot v;
    session *s;
    int text, status;
    long long lines;

    if (format && strcmp(format, "json") != 0 && strcmp(format, "text") != 0)
        return api_fail(c, 400, "format must be json or text");
    text = format && strcmp(format, "text") == 0;
    if (api_arg_int(c->req, "lines", 0, 1, 1, &lines) != 0)
        return api_fail(c, 400, "lines must be 0 or 1");
    if (!(s = api_lock_session(c)))
        return 404;
    if (!(w = stacks_by_id(&s->stacks, c->n))) {
        status = api_fail(c, 404, "no snapshot %llu in session %d (the newest %u are kept)",
                          (unsigned long long)c->n, c->session_id, STACKS_KEEP);
        sessions_unlock();
        return status;
    }
    status = api_snapshot_take(&v, s, w);
    sessions_unlock();
    if (status != 0)
        return api_fail(c, 503, "out of memory copying the snapshot");
    if (lines)
        api_snapshot_lines(c, &v);
    status = api_snapshot_reply(c, &v, text, 200);
    api_snapshot_free(&v);
    return status;
}
