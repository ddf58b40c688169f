/* api_code.c -- the code routes: a method's native code per version
 * (GET .../functions/{fid}/code), what was inlined where (GET
 * .../functions/{fid}/inlining) and the start-up view (GET .../startup).
 *
 * GET .../code on a live session asks the agent (WIRE_CMD_CODE, with an
 * address inside one of the method's versions that the session saw, which
 * the agent needs to prove the method still lives) and waits, without the
 * sessions lock (sessions_wait), for the reply, the link to go, or
 * API_CODE_TIMEOUT_MS; at most API_CODE_MAX_WAITING requests wait at once
 * (429 beyond). An ended session, or ?refresh=0, answers with the newest
 * code read while it was live. The reply is copied out under the lock
 * (codeview_take) and disassembled and annotated without it. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_util.h"
#include "clock.h"
#include "codeview.h"
#include "grow.h"
#include "idmap.h"
#include "link.h"
#include "procsyms.h"
#include "textbuf.h"

#define API_CODE_TIMEOUT_MS 10000
#define API_CODE_MAX_WAITING 8      /* GET .../code waiting for agents at once, server-wide */
#define API_CODE_MAX_PER_SESSION 2  /* ... and for one session */
#define API_STARTUP_WINDOW_MS 10000 /* default start-up window */
#define API_STARTUP_STEP 131072u    /* functions per locked step */
#define API_INLINING_LIST 500u      /* callers / inlinees listed at most */

static int api_code_waiting;      /* under the sessions lock */
static uint64_t api_code_request; /* last request id given, under the sessions lock */
static int api_code_session_waiting[SESSIONS_MAX];
static int api_code_session_ids[SESSIONS_MAX];

/* The slot counting one session's waiting requests (lock held); -1 when none is free. */
static int api_code_slot(int session_id)
{
    int i, free_slot = -1;

    for (i = 0; i < SESSIONS_MAX; i++) {
        if (api_code_session_waiting[i] && api_code_session_ids[i] == session_id)
            return i;
        if (!api_code_session_waiting[i] && free_slot < 0)
            free_slot = i;
    }
    if (free_slot >= 0)
        api_code_session_ids[free_slot] = session_id;
    return free_slot;
}

/* An address inside one of f's native versions (the newest the session saw). */
static uint64_t api_code_address(session *s, const session_function *f)
{
    const code_seen *e = code_seen_first(&s->code, (uint32_t)(f - s->functions));
    return e ? e->start : 0;
}

/* The process whose /proc names native addresses: while the session's
 * process runs (it has an agent or had one, and has not exited). */
static pid_t api_code_pid(const session *s)
{
    if (s->pid <= 0 || s->persist.past)
        return 0;
    switch (s->state) {
    case SESSION_LIVE:
    case SESSION_DISCONNECTED:
    case SESSION_DETACHING:
    case SESSION_DETACHED: return s->pid;
    default: return 0;
    }
}

/* Renders a copied reply: JSON {"code": ...} or the listing. */
static int api_code_reply(api_call *c, codeview *v, int text, int il)
{
    procsyms ps;
    int have_ps = v->pid && procsyms_open(&ps, v->pid) == 0, status = 200;

    if (text) {
        textbuf out;
        textbuf_init(&out, API_MAX_OUTPUT);
        if (codeview_text(v, have_ps ? &ps : NULL, il, &out) != 0) {
            status = api_fail(c, 503, "the listing is larger than the response limit");
        } else {
            c->reply->text = textbuf_take(&out, &c->reply->text_length);
            c->reply->content_type = "text/plain; charset=utf-8";
            if (!c->reply->text)
                status = api_fail(c, 503, "out of memory");
        }
        textbuf_free(&out);
    } else {
        json_t *code = codeview_json(v, have_ps ? &ps : NULL);
        if (code)
            c->reply->json = code;
        else
            status = api_fail(c, 503, "out of memory disassembling the code");
    }
    if (have_ps)
        procsyms_close(&ps);
    return status;
}

/* Waits for the reply to request_id; the lock is held on entry and return.
 * 0 with *found, or an HTTP status (the reply set). */
static int api_code_wait(api_call *c, uint64_t request_id, int link_id, const code_reply **found)
{
    struct timespec deadline = clock_deadline_ms(CLOCK_MONOTONIC, API_CODE_TIMEOUT_MS);
    session *s;

    for (;;) {
        if (!(s = sessions_get(c->session_id)))
            return api_fail(c, 404, "the session is gone");
        if ((*found = code_reply_find(&s->code, request_id, CODE_NONE)))
            return 0;
        if (s->link_id != link_id)
            return api_fail(c, 409, "the agent went away before the code arrived");
        if (sessions_wait(&deadline) != 0 &&
            !(*found = code_reply_find(&s->code, request_id, CODE_NONE)))
            return api_fail(c, 504,
                            "the agent did not answer the code request within %d s (an agent "
                            "that predates code requests ignores it)",
                            API_CODE_TIMEOUT_MS / 1000);
    }
}

static const char *api_code_refusal(uint32_t status)
{
    switch (status) {
    case WIRE_CODE_NOT_ALIVE:
        return "the method's code is gone (its module unloaded, or the address the server knew "
               "is no longer its code)";
    case WIRE_CODE_UNLOADING: return "a module was unloading; nothing was read (try again)";
    case WIRE_CODE_DYNAMIC:
        return "a dynamic method: its code may be freed at any moment, so it is never read";
    case WIRE_CODE_DETACHING: return "the agent is detaching";
    case WIRE_CODE_FAILED: return "the runtime listed no native code for the method";
    case WIRE_CODE_NO_MEMORY: return "the agent could not get memory for the reply";
    case WIRE_CODE_NOT_SEEN:
        return "the agent has not seen the method alive on its present connection (it was "
               "compiled before a reconnect and not listed again)";
    case WIRE_CODE_STALE:
        return "a module unloaded since the agent last saw the method alive, and it may have "
               "died with it: its code is read again once it is seen (compiled, on a stack)";
    default: return "the agent refused";
    }
}

int api_code_get(api_call *c)
{
    const char *format = c->req->arg(c->req->ctx, "format");
    const code_reply *r = NULL;
    long long refresh, il, max_bytes, profile;
    session_function *f;
    session *s;
    codeview v;
    int text, status = 0, slot = -1, link_id = 0, asked = 0;
    wire_cmd_code cmd;

    if (format && strcmp(format, "json") != 0 && strcmp(format, "text") != 0)
        return api_fail(c, 400, "format must be json or text");
    if (api_arg_int(c->req, "refresh", 0, 1, 1, &refresh) != 0 ||
        api_arg_int(c->req, "il", 0, 1, 0, &il) != 0 ||
        api_arg_int(c->req, "max_bytes", 4096, WIRE_CODE_MAX_REQUEST_BYTES, 0, &max_bytes) != 0)
        return api_fail(c, 400, "refresh and il must be 0 or 1, max_bytes 4096..%u",
                        WIRE_CODE_MAX_REQUEST_BYTES);
    if (api_arg_int(c->req, "profile", 1, UINT32_MAX, 0, &profile) != 0)
        return api_fail(c, 400, "profile must be a profile's number, 1..%u", UINT32_MAX);
    text = format && strcmp(format, "text") == 0;
    if (!(s = api_lock_session(c)))
        return 404;
    if (!(f = session_find_function(s, c->n))) {
        status = api_fail(c, 404, "session %d knows no function 0x%llx", c->session_id,
                          (unsigned long long)c->n);
        goto out;
    }
    if (profile && (uint64_t)profile != s->profile.number) {
        status = api_fail(c, 404,
                          "session %d has no profile %lld: it keeps its newest only (%u; 0: none)",
                          c->session_id, profile, s->profile.number);
        goto out;
    }
    if (refresh && s->state == SESSION_LIVE && s->link_id) {
        uint64_t address = api_code_address(s, f);
        if (f->flags & WIRE_FLAG_DYNAMIC) {
            status = api_fail(c, 409, "0x%llx is a dynamic method: %s", (unsigned long long)c->n,
                              api_code_refusal(WIRE_CODE_DYNAMIC));
            goto out;
        }
        if (!address) {
            status = api_fail(c, 409,
                              "no native code address of 0x%llx is known: the session never saw "
                              "it compiled (ReadyToRun code is found from a compiled caller's "
                              "calls only)",
                              (unsigned long long)c->n);
            goto out;
        }
        if (api_code_waiting >= API_CODE_MAX_WAITING || (slot = api_code_slot(c->session_id)) < 0 ||
            api_code_session_waiting[slot] >= API_CODE_MAX_PER_SESSION) {
            slot = -1;
            status = api_fail(c, 429,
                              "other code requests are waiting; try again when they are done");
            goto out;
        }
        cmd = (wire_cmd_code){++api_code_request, c->n, address, (uint32_t)max_bytes, 0};
        link_id = s->link_id;
        api_code_waiting++;
        api_code_session_waiting[slot]++;
        sessions_unlock();
        asked = link_send(link_id, WIRE_CMD_CODE, &cmd, sizeof(cmd)) == 0;
        sessions_lock();
        status = asked ? api_code_wait(c, cmd.request_id, link_id, &r)
                       : api_fail(c, 502, "could not send the code request to the agent");
        api_code_waiting--;
        api_code_session_waiting[slot]--;
        if (status)
            goto out;
        s = sessions_get(c->session_id);
        f = s ? session_find_function(s, c->n) : NULL;
        if (!f) {
            status = api_fail(c, 404, "the function is gone");
            goto out;
        }
        if (r->end.status != WIRE_CODE_OK) {
            status = api_fail(c, 409, "%s", api_code_refusal(r->end.status));
            goto out;
        }
    } else if (!(r = code_reply_find(&s->code, 0, (uint32_t)(f - s->functions)))) {
        status = api_fail(c, 409,
                          "no code of 0x%llx was read while session %d was live (it is %s; the "
                          "code view reads code from a live agent)",
                          (unsigned long long)c->n, c->session_id, session_state_name(s->state));
        goto out;
    }
    if (codeview_take(&v, s, f, r, api_code_pid(s)) != 0) {
        codeview_free(&v);
        status = api_fail(c, 503, "out of memory copying the code");
        goto out;
    }
    sessions_unlock();
    status = api_code_reply(c, &v, text, il != 0);
    codeview_free(&v);
    return status;
out:
    sessions_unlock();
    return status;
}

/* ---- GET .../functions/{fid}/inlining (locked) ---- */

static json_t *api_fn_ref(session *s, uint32_t position)
{
    const session_function *f = position < s->function_count ? &s->functions[position] : NULL;

    if (!f)
        return json_null();
    return json_pack("{s:o, s:o}", "function_id", view_id(f->function_id), "name",
                     view_function_name(f));
}

int api_inlining_get(api_call *c)
{
    session *s = c->s;
    session_function *f = session_find_function(s, c->n);
    json_t *compilations, *callers;
    const code_inline *in;
    idmap roots = {0};
    uint32_t position, i, sites = 0, methods = 0, listed = 0;

    if (!f)
        return api_fail(c, 404, "session %d knows no function 0x%llx", c->session_id,
                        (unsigned long long)c->n);
    position = (uint32_t)(f - s->functions);
    compilations = json_array();
    for (i = 0; i < f->compilation_count; i++) {
        session_compilation k = session_function_compilation(f, i);
        json_t *inlinees = json_array();
        for (in = code_inlines_of_root(&s->code, position); in;
             in = code_inline_next(&s->code, in->next_root))
            if (in->ordinal == i && json_array_size(inlinees) < API_INLINING_LIST)
                json_array_append_new(inlinees,
                                      json_pack("{s:o, s:o}", "callee", api_fn_ref(s, in->callee),
                                                "caller", api_fn_ref(s, in->caller)));
        json_array_append_new(compilations,
                              json_pack("{s:i, s:s, s:o, s:o}", "compilation", (int)i + 1, "tier",
                                        session_tier_name(k.tier), "time_ms", view_ms(k.time_ns),
                                        "inlinees", inlinees));
    }
    /* each root once: a set of the roots met (the list can hold millions of
     * sites, and this runs under the sessions lock) */
    callers = json_array();
    for (in = code_inlines_of_callee(&s->code, position); in;
         in = code_inline_next(&s->code, in->next_callee)) {
        sites++;
        if (idmap_get(&roots, (uint64_t)in->root + 1) != IDMAP_MISSING)
            continue;
        (void)idmap_put(&roots, (uint64_t)in->root + 1, 1); /* out of memory: counted again */
        methods++;
        if (listed++ < API_INLINING_LIST)
            json_array_append_new(callers, api_fn_ref(s, in->root));
    }
    idmap_free(&roots);
    c->reply->json = json_pack(
        "{s:o, s:o, s:o, s:{s:i, s:i, s:o}, s:I, s:I}", "function_id", view_id(f->function_id),
        "name", view_function_name(f), "compilations", compilations, "inlined_into", "methods",
        (int)methods, "sites", (int)sites, "callers", callers, "inline_records",
        (json_int_t)s->code.inline_records, "inlines_dropped", (json_int_t)s->code.inlines_dropped);
    return 200;
}

/* ---- GET .../startup ---- */

typedef struct api_startup_module {
    uint64_t module_id;
    uint64_t jit_ns;
    uint32_t compilations, methods_jitted, r2r_used, r2r_rejected, jitted_no_r2r;
    uint32_t window_methods, window_no_r2r; /* the same two, for methods JITed in the window */
} api_startup_module;

typedef struct api_startup_method {
    uint32_t position;
    uint32_t compilations;
    uint64_t jit_ns;
    int64_t first_ns;
} api_startup_method;

static int api_startup_by_time(const void *a, const void *b)
{
    const api_startup_method *x = a, *y = b;
    return x->jit_ns < y->jit_ns ? 1 : x->jit_ns > y->jit_ns ? -1 : 0;
}

int api_startup_get(api_call *c)
{
    long long window_ms, limit;
    api_startup_module *mods = NULL;
    api_startup_method *methods = NULL;
    size_t nmods = 0, capmods = 0, nmethods = 0, capmethods = 0, i, done = 0;
    idmap mod_index = {0};
    uint64_t total_ns = 0, total_compilations = 0;
    int64_t start_ns, end_ns;
    json_t *jmods, *jmethods;
    session *s;
    int mode, status = 200, cache_searches;

    if (api_arg_int(c->req, "window_ms", 1, 86400000LL, API_STARTUP_WINDOW_MS, &window_ms) != 0 ||
        api_arg_int(c->req, "limit", 1, 10000, 200, &limit) != 0)
        return api_fail(c, 400, "window_ms must be 1..86400000 and limit 1..10000");
    if (!(s = api_lock_session(c)))
        return 404;
    sessions_pin(s);
    mode = s->mode;
    cache_searches = s->code.r2r_searches > 0;
    start_ns = s->created_ns;
    end_ns = start_ns + (int64_t)window_ms * 1000000;
    while (status == 200) {
        size_t stop = done + API_STARTUP_STEP;
        for (i = done; i < s->function_count && i < stop; i++) {
            const session_function *f = &s->functions[i];
            uint8_t r2r = code_r2r(&s->code, (uint32_t)i);
            uint32_t k, mi, compilations = 0;
            uint64_t jit_ns = 0;
            int64_t first = 0;
            api_startup_module *m;
            if (!f->module_id || (!f->jit_count && !r2r))
                continue;
            mi = idmap_get(&mod_index, f->module_id);
            if (mi == IDMAP_MISSING) {
                if (grow_reserve((void **)&mods, &capmods, nmods, sizeof(*mods), 64,
                                 SESSION_MAX_MODULES, GROW_ZERO) != 0 ||
                    idmap_put(&mod_index, f->module_id, (uint32_t)nmods) != 0) {
                    status = api_fail(c, 503, "out of memory");
                    break;
                }
                mi = (uint32_t)nmods++;
                mods[mi].module_id = f->module_id;
            }
            m = &mods[mi];
            if (r2r & CODE_R2R_USED)
                m->r2r_used++;
            else if (r2r & CODE_R2R_HAS)
                m->r2r_rejected++;
            if (f->jit_count) {
                m->methods_jitted++;
                if (!(r2r & CODE_R2R_USED))
                    m->jitted_no_r2r++;
            }
            for (k = 0; k < f->compilation_count; k++) {
                session_compilation sc = session_function_compilation(f, k);
                if (sc.time_ns < start_ns || sc.time_ns > end_ns)
                    continue;
                compilations++;
                jit_ns += sc.jit_ns;
                if (!first)
                    first = sc.time_ns;
            }
            if (!compilations)
                continue;
            m->window_methods++;
            if (!(r2r & CODE_R2R_USED))
                m->window_no_r2r++;
            m->compilations += compilations;
            m->jit_ns += jit_ns;
            total_ns += jit_ns;
            total_compilations += compilations;
            if (grow_reserve((void **)&methods, &capmethods, nmethods, sizeof(*methods), 256,
                             SESSION_MAX_FUNCTIONS, GROW_KEEP) != 0) {
                status = api_fail(c, 503, "out of memory");
                break;
            }
            methods[nmethods++] = (api_startup_method){(uint32_t)i, compilations, jit_ns, first};
        }
        done = i;
        if (done >= s->function_count || status != 200)
            break;
        sessions_let_others_in();
    }
    if (status == 200) {
        if (nmethods)
            qsort(methods, nmethods, sizeof(*methods), api_startup_by_time);
        jmods = json_array();
        for (i = 0; i < nmods; i++) {
            const api_startup_module *m = &mods[i];
            int precompiled = m->r2r_used + m->r2r_rejected > 0;
            json_t *one = json_pack(
                "{s:o, s:o, s:o, s:i, s:i, s:i, s:o, s:o, s:i, s:i}", "module_id",
                view_id(m->module_id), "module", view_str(session_module_name(s, m->module_id)),
                "precompiled", cache_searches ? json_boolean(precompiled) : json_null(),
                "ready_to_run_methods", (int)m->r2r_used, "ready_to_run_rejected",
                (int)m->r2r_rejected, "jitted_methods", (int)m->methods_jitted,
                "jitted_in_precompiled",
                cache_searches && precompiled ? json_integer(m->jitted_no_r2r) : json_null(),
                "startup_jit_ns", view_count(m->jit_ns), "startup_compilations",
                (int)m->compilations, "startup_methods", (int)m->window_methods);
            json_object_set_new(one, "startup_jitted_in_precompiled",
                                cache_searches && precompiled ? json_integer(m->window_no_r2r)
                                                              : json_null());
            json_array_append_new(jmods, one);
        }
        jmethods = json_array();
        for (i = 0; i < nmethods && i < (size_t)limit; i++) {
            const session_function *f = &s->functions[methods[i].position];
            uint8_t r2r = code_r2r(&s->code, methods[i].position);
            json_array_append_new(
                jmethods, json_pack("{s:o, s:o, s:o, s:o, s:i, s:o, s:s}", "function_id",
                                    view_id(f->function_id), "name", view_function_name(f),
                                    "module", view_str(session_module_name(s, f->module_id)),
                                    "jit_ns", view_count(methods[i].jit_ns), "compilations",
                                    (int)methods[i].compilations, "first_jit_ms",
                                    view_ms(methods[i].first_ns), "ready_to_run",
                                    (r2r & CODE_R2R_USED)  ? "used"
                                    : (r2r & CODE_R2R_HAS) ? "rejected"
                                    : cache_searches       ? "none"
                                                           : "unknown"));
        }
        c->reply->json = json_pack(
            "{s:s, s:b, s:I, s:o, s:o, s:o, s:I, s:I, s:I, s:o, s:o}", "mode", view_mode_name(mode),
            "cache_searches", cache_searches, "window_ms", (json_int_t)window_ms, "start_ms",
            view_ms(start_ns), "end_ms", view_ms(end_ns), "jit_ns", view_count(total_ns),
            "compilations", (json_int_t)total_compilations, "methods", (json_int_t)nmethods,
            "ready_to_run_used", (json_int_t)s->code.r2r_found, "modules", jmods, "top_methods",
            jmethods);
    }
    sessions_unpin(s);
    sessions_unlock();
    free(mods);
    free(methods);
    idmap_free(&mod_index);
    return status;
}
