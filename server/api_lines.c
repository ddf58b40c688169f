/* api_lines.c -- file:line for the frames of a response (srcline.h), shared
 * by GET .../stacks/{n} and the profile's trees and exports.
 *
 * Called with the sessions lock held and the methods wanted (srcline_want):
 * the lock is released while each module's PDB is read (the methods with no
 * PDB, most of the runtime's own, need nothing more), taken again to read
 * the code of those that have one (the code already read when it came after
 * the method's last compilation, else asked of the agent while the session is
 * live, at most API_LINES_MAX_ASK methods a response and none after one went
 * unanswered, else the newest code read: api_code_fetch), and released for
 * good. The session may end or go
 * meanwhile: its methods then keep the code they had or none.
 * api_lines_view does this for the method frames of a profile view. */
#include <stdlib.h>
#include <string.h>

#include "api_util.h"
#include "profile_view.h"
#include "srcline.h"

#define API_LINES_MAX_ASK 256u

/* The code already read of a method is still all of it when it came after
 * the method's last compilation: the agent is asked again only else (and an
 * agent that does not answer, a stopped process, costs one wait, not one a
 * method). */
static int api_lines_current(const code_reply *r, const session_function *f)
{
    return r && r->complete && !r->broken && r->end.status == WIRE_CODE_OK &&
           r->time_ns >= session_function_last_jit_ns(f);
}

int api_lines_fill(api_call *c, srcline *L, int want_code)
{
    session *s = sessions_get(c->session_id);
    pid_t pid = s ? api_code_pid(s) : 0;
    int gone_container = s && !pid && s->container.in_container;
    uint64_t saved_n = c->n;
    unsigned asked = 0;
    size_t i;

    sessions_unlock();
    srcline_resolve(L, pid, gone_container);
    if (!want_code)
        return 0;
    sessions_lock();
    for (i = 0; i < L->count; i++) {
        srcline_fn *e = &L->fns[i];
        session_function *f;
        const code_reply *r = NULL;
        if (!e->file)
            continue; /* no line without a PDB: its code is not needed */
        if (!(s = sessions_get(c->session_id)) || !(f = session_find_function(s, e->function_id))) {
            (void)srcline_take_code(L, (uint32_t)i, NULL, "the session or method is gone");
            continue;
        }
        r = code_reply_find(&s->code, 0, (uint32_t)(f - s->functions));
        if (s->state == SESSION_LIVE && s->link_id && asked < API_LINES_MAX_ASK &&
            !api_lines_current(r, f)) {
            int status;
            asked++;
            c->n = e->function_id;
            status = api_code_fetch(c, 1, 0, &s, &f, &r);
            c->n = saved_n;
            if (status) {
                const char *why = json_string_value(json_object_get(c->reply->json, "error"));
                char reason[512];
                snprintf(reason, sizeof(reason), "its code could not be read: %s",
                         why ? why : "no answer");
                json_decref(c->reply->json);
                c->reply->json = NULL;
                (void)srcline_take_code(L, (uint32_t)i, NULL, reason);
                if (status == 504)
                    asked = API_LINES_MAX_ASK; /* a stopped agent: the others wait no more */
                continue;
            }
        }
        if (srcline_take_code(L, (uint32_t)i, r,
                              "no code of it was read while the session was live") != 0)
            break; /* out of memory: the rest have no line */
    }
    sessions_unlock();
    return 0;
}

int api_lines_view(api_call *c, profile_view *v, int lines)
{
    session *s = sessions_get(c->session_id);
    uint32_t *fn_of = malloc((v->syms.count + 1) * sizeof(*fn_of));
    srcline L = {0};
    size_t i;
    int rc;

    if (!fn_of || !s) {
        sessions_unlock();
        free(fn_of);
        return -1;
    }
    for (i = 0; i < v->syms.count; i++) {
        const symbol *sym = &v->syms.items[i];
        if (sym->kind != SYMBOL_METHOD || !sym->function_id ||
            srcline_want(&L, s, sym->function_id, &fn_of[i]) != 0)
            fn_of[i] = UINT32_MAX;
    }
    (void)api_lines_fill(c, &L, lines == 2 && v->addrs);
    rc = profile_view_lines(v, &L, fn_of, lines == 2);
    srcline_free(&L);
    free(fn_of);
    free(v->addrs); /* the frames are symbols of their lines now */
    v->addrs = NULL;
    return rc;
}
