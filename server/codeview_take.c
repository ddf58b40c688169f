/* codeview_take.c -- a code reply copied out of the session under the
 * sessions lock, with what the view needs of the session: each version's
 * compilation, the names of the methods its references lead to and of its
 * inlinees, the module's file (see codeview.h). */
#include <stdlib.h>
#include <string.h>

#include "codeview.h"

static void *codeview_dup(const void *p, size_t n)
{
    void *copy;

    if (!p || n == 0)
        return NULL;
    if ((copy = malloc(n)))
        memcpy(copy, p, n);
    return copy;
}

static char *codeview_strdup(const char *s) { return s ? strdup(s) : NULL; }

/* The name table entry of a FunctionID the session knows; CODEVIEW_NONE when
 * it knows none (only_named: and unless it has a name). */
static uint32_t codeview_sym(codeview *v, session *s, uint64_t fid, int only_named)
{
    const session_function *f;
    uint32_t index;

    if (!fid)
        return CODEVIEW_NONE;
    f = session_find_function(s, fid);
    if (!f || (only_named && !f->name_record))
        return CODEVIEW_NONE;
    return symbols_function(&v->syms, s, fid, &index) == 0 ? index : CODEVIEW_NONE;
}

/* Version i's compilation: its start's entry among the versions seen. */
static void codeview_compilation(codeview *v, session *s, const session_function *f,
                                 uint32_t position, unsigned i)
{
    codeview_version *cv = &v->versions[i];
    const code_seen *seen = code_seen_find(&s->code, position,
                                           v->reply.versions[i].info.code_start);

    cv->index = i;
    cv->ordinal = seen && seen->ordinal != CODE_NO_ORDINAL ? seen->ordinal : -1;
    if (cv->ordinal >= 0 && (uint32_t)cv->ordinal < f->compilation_count) {
        session_compilation c = session_function_compilation(f, (uint32_t)cv->ordinal);
        cv->compiled = 1;
        cv->tier = c.tier;
        cv->time_ns = c.time_ns;
        cv->jit_ns = c.jit_ns;
    }
}

/* The callees inlined into version i's compilation, each once. */
static int codeview_inlinees(codeview *v, session *s, uint32_t position, unsigned i)
{
    codeview_version *cv = &v->versions[i];
    const code_inline *in;
    uint32_t cap = 0;

    if (cv->ordinal < 0)
        return 0;
    for (in = code_inlines_of_root(&s->code, position); in;
         in = code_inline_next(&s->code, in->next_root)) {
        uint32_t sym, k;
        if (in->ordinal != (uint16_t)cv->ordinal || in->callee >= s->function_count)
            continue;
        sym = codeview_sym(v, s, s->functions[in->callee].function_id, 0);
        if (sym == CODEVIEW_NONE)
            continue;
        for (k = 0; k < cv->inlinee_count && cv->inlinees[k] != sym; k++)
            ;
        if (k < cv->inlinee_count)
            continue;
        if (cv->inlinee_count == cap) {
            uint32_t *bigger;
            if (cap >= 4096 || !(bigger = realloc(cv->inlinees, (cap ? cap * 2 : 16) * 4)))
                return cap >= 4096 ? 0 : -1;
            cv->inlinees = bigger;
            cap = cap ? cap * 2 : 16;
        }
        cv->inlinees[cv->inlinee_count++] = sym;
    }
    return 0;
}

static int codeview_order_less(const codeview *v, unsigned a, unsigned b)
{
    const codeview_version *x = &v->versions[a], *y = &v->versions[b];

    if (x->ordinal != y->ordinal)
        return x->ordinal < y->ordinal; /* -1 (not seen compiled) first */
    return v->reply.versions[a].info.code_start < v->reply.versions[b].info.code_start;
}

int codeview_take(codeview *v, session *s, const session_function *f, const code_reply *r,
                  pid_t live_pid)
{
    uint32_t position = (uint32_t)(f - s->functions);
    const code_inline *in;
    unsigned i, k;

    memset(v, 0, sizeof(*v));
    v->function_id = f->function_id;
    v->pid = live_pid;
    v->arch = DISASM_X86_64; /* the agent runs on x86-64 Linux (wire.h) */
    v->compilations = f->jit_count;
    v->r2r = code_r2r(&s->code, position);
    v->catchup = (f->flags & WIRE_FLAG_CATCHUP) != 0;
    v->name = f->name_record ? fnname_dup(f->name_record) : NULL;
    v->module = codeview_strdup(session_module_name(s, f->module_id));
    {
        const session_module *m = f->module_id ? session_find_module(s, f->module_id) : NULL;
        v->module_path = codeview_strdup(m && m->path && m->path[0] ? m->path : NULL);
        v->files_gone = !live_pid && s->container.in_container;
    }
    v->reply = *r;
    v->reply.il = codeview_dup(r->il, r->il_have);
    for (i = 0; i < r->version_count; i++) {
        code_reply_version *d = &v->reply.versions[i];
        const code_reply_version *o = &r->versions[i];
        d->code = codeview_dup(o->code, o->code_have);
        d->map = codeview_dup(o->map, (size_t)o->map_have * sizeof(*o->map));
        d->refs = codeview_dup(o->refs, (size_t)o->ref_have * sizeof(*o->refs));
        if ((o->code_have && !d->code) || (o->map_have && !d->map) || (o->ref_have && !d->refs))
            return -1; /* out of memory: no counts without their arrays */
    }
    if (r->il_have && !v->reply.il)
        return -1;
    for (i = 0; i < r->version_count; i++) {
        const code_reply_version *o = &v->reply.versions[i];
        codeview_version *cv = &v->versions[i];
        codeview_compilation(v, s, f, position, i);
        if (o->ref_have && !(cv->ref_sym = malloc(o->ref_have * sizeof(uint32_t))))
            return -1;
        for (k = 0; k < o->ref_have; k++) {
            uint32_t sym = codeview_sym(v, s, o->refs[k].function_id, 0);
            if (sym == CODEVIEW_NONE) /* a precode's method: only when the session knows it */
                sym = codeview_sym(v, s, o->refs[k].method_hint, 1);
            cv->ref_sym[k] = sym;
        }
        if (codeview_inlinees(v, s, position, i) != 0)
            return -1;
        cv->inlining_known = cv->compiled &&
                             (cv->tier == WIRE_TIER_0 || cv->tier == WIRE_TIER_0_INSTRUMENTED ||
                              cv->tier == WIRE_TIER_MIN_OPTS || s->code.inline_records > 0);
        v->order[i] = i;
    }
    for (i = 1; i < r->version_count; i++) /* few: insertion sort */
        for (k = i; k > 0 && codeview_order_less(v, v->order[k], v->order[k - 1]); k--) {
            unsigned t = v->order[k];
            v->order[k] = v->order[k - 1];
            v->order[k - 1] = t;
        }
    for (in = code_inlines_of_callee(&s->code, position); in;
         in = code_inline_next(&s->code, in->next_callee)) {
        const code_inline *seen;
        v->inlined_sites++;
        /* count each root once: the first inline of it in the chain */
        for (seen = code_inlines_of_callee(&s->code, position); seen != in;
             seen = code_inline_next(&s->code, seen->next_callee))
            if (seen->root == in->root)
                break;
        if (seen == in)
            v->inlined_into++;
    }
    return codeheat_take(&v->heat, &s->profile, r);
}

void codeview_free(codeview *v)
{
    unsigned i;

    for (i = 0; i < v->reply.version_count; i++) {
        free(v->reply.versions[i].code);
        free(v->reply.versions[i].map);
        free(v->reply.versions[i].refs);
        free(v->versions[i].ref_sym);
        free(v->versions[i].inlinees);
    }
    free(v->reply.il);
    free(v->name);
    free(v->module);
    free(v->module_path);
    ilcalls_close(&v->il_module);
    symbols_free(&v->syms);
    codeheat_free(&v->heat);
    memset(v, 0, sizeof(*v));
}
