/* profile_shape.c -- hiding and folding a profile view's stacks (see profile_shape.h). */
#include "profile_shape.h"

#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* The waits, by method name without the parameters. */
#define W "[A-Za-z0-9_]"
static const char idle_pattern[] =
    "^(System\\.Threading\\.("
    "Monitor\\.(Wait|ObjWait)"
    "|WaitHandle\\.Wait" W "*"
    "|Thread\\.(Sleep|SleepInternal|Yield|YieldInternal|SpinWait|SpinWaitInternal)"
    "|SpinWait\\.Spin" W "*"
    "|(ManualResetEventSlim|SemaphoreSlim|CountdownEvent|Barrier)\\.Wait" W "*"
    "|Tasks\\.Task(<[^>]*>)?\\.(Wait|InternalWait" W "*|SpinThenBlockingWait|SpinWait)"
    "|LowLevel(LifoSemaphore|Monitor|SpinWaiter)\\." W "+"
    "|WaitSubsystem[.+][^[:space:]]+"
    ")|Interop[+]Sys\\.(LowLevelMonitor_" W "+|WaitForSocketEvents|SchedYield)"
    "|System\\.Net\\.Sockets\\.SocketAsyncEngine\\.EventLoop"
    ")$";
#undef W

static regex_t idle_regex;
static int idle_ok;
static pthread_once_t idle_once = PTHREAD_ONCE_INIT;

static void profile_shape_compile(void)
{
    idle_ok = regcomp(&idle_regex, idle_pattern, REG_EXTENDED | REG_NOSUB) == 0;
}

int profile_shape_is_idle_wait(const char *name)
{
    char key[512];
    const char *paren = strchr(name, '(');
    size_t n = paren ? (size_t)(paren - name) : strlen(name);

    pthread_once(&idle_once, profile_shape_compile);
    if (!idle_ok || n >= sizeof(key))
        return 0;
    memcpy(key, name, n);
    key[n] = '\0';
    return regexec(&idle_regex, key, 0, NULL, 0) == 0;
}

/* ---- classes --------------------------------------------------------------------- */

enum { SHAPE_KEEP = 0, SHAPE_UNMANAGED = 1, SHAPE_IDLE = 2 };

/* A stack's class: no managed frame, or its deepest managed frame waits. */
static int profile_shape_class(const profile_view *v, const profile_view_stack *st,
                               const signed char *idle)
{
    uint32_t k;

    for (k = 0; k < st->depth; k++) { /* leaf first: the first method is the deepest */
        uint32_t sym = v->frames[st->first + k] & ~PROFILE_SHAPE_FOLDED;
        if (v->syms.items[sym].kind == SYMBOL_METHOD)
            return idle[sym] ? SHAPE_IDLE : SHAPE_KEEP;
    }
    return SHAPE_UNMANAGED;
}

/* ---- folding ------------------------------------------------------------------------- */

static int profile_shape_foldable(const profile_view *v, uint32_t sym)
{
    int kind = v->syms.items[sym].kind;
    return kind == SYMBOL_NATIVE || kind == SYMBOL_NATIVE_LABEL;
}

/* Writes stack st folded into out (leaf first, as the view keeps stacks):
 * walking from the root, a foldable frame goes to the nearest method toward
 * the root (marked folded), or, when none owns it there, to a [native] frame
 * put at its place (labels are kept as they are and change no owner).
 * Returns the new depth (at most 2 * depth). */
static uint32_t profile_shape_fold_one(const profile_view *v, const profile_view_stack *st,
                                       uint32_t native, uint32_t *out)
{
    uint32_t rev[2 * PROFILE_MAX_DEPTH], n = 0, k;
    int owner = 0; /* a kept frame toward the root may own folded frames */

    for (k = st->depth; k-- > 0;) { /* root first */
        uint32_t sym = v->frames[st->first + k];
        if (!profile_shape_foldable(v, sym)) {
            rev[n++] = sym;
            if (v->syms.items[sym].kind == SYMBOL_METHOD)
                owner = 1; /* a label neither owns nor breaks: the method above still does */
            continue;
        }
        if (!owner) {
            rev[n++] = native; /* [native] itself is kept as the owner */
            owner = 1;
            if (sym == native)
                continue;
        }
        rev[n++] = sym | PROFILE_SHAPE_FOLDED;
    }
    for (k = 0; k < n; k++)
        out[k] = rev[n - 1 - k];
    return n;
}

/* ---- the rebuild ------------------------------------------------------------------------ */

int profile_shape_apply(profile_view *v, const profile_shape_opts *o, profile_shape_counts *counts)
{
    signed char *idle = calloc(v->syms.count + 1, 1);
    unsigned char *cls = calloc(v->stack_count + 1, 1);
    uint32_t *remap = malloc((v->stack_count + 1) * sizeof(*remap)), *frames = NULL, native = 0;
    profile_view_stack *stacks = NULL;
    size_t i, frame_count = 0, stack_count = 0, room = 0;
    int rc = -1;

    memset(counts, 0, sizeof(*counts));
    if (!idle || !cls || !remap || (o->fold_native && symbols_native(&v->syms, &native) != 0))
        goto done;
    for (i = 0; i < v->syms.count; i++)
        idle[i] = v->syms.items[i].kind == SYMBOL_METHOD &&
                  profile_shape_is_idle_wait(v->syms.items[i].name);
    for (i = 0; i < v->stack_count; i++) {
        cls[i] = (unsigned char)profile_shape_class(v, &v->stacks[i], idle);
        if (cls[i] == SHAPE_UNMANAGED)
            counts->unmanaged += v->stacks[i].count;
        else if (cls[i] == SHAPE_IDLE)
            counts->idle += v->stacks[i].count;
        room += (o->fold_native ? 2u : 1u) * v->stacks[i].depth;
    }
    stacks = calloc(v->stack_count + 1, sizeof(*stacks));
    frames = malloc((room + 1) * sizeof(*frames));
    if (!stacks || !frames)
        goto done;
    v->total = 0;
    for (i = 0; i < v->stack_count; i++) {
        const profile_view_stack *st = &v->stacks[i];
        profile_view_stack *to = &stacks[stack_count];
        if ((cls[i] == SHAPE_UNMANAGED && o->hide_unmanaged) ||
            (cls[i] == SHAPE_IDLE && o->hide_idle)) {
            remap[i] = UINT32_MAX;
            continue;
        }
        remap[i] = (uint32_t)stack_count++;
        to->first = (uint32_t)frame_count;
        to->count = st->count;
        if (o->fold_native) {
            to->depth = profile_shape_fold_one(v, st, native, frames + frame_count);
        } else {
            memcpy(frames + frame_count, v->frames + st->first, st->depth * sizeof(*frames));
            to->depth = st->depth;
        }
        frame_count += to->depth;
        v->total += st->count;
    }
    if (v->samples) { /* the samples of hidden stacks go too */
        size_t kept = 0;
        for (i = 0; i < v->sample_count; i++) {
            uint32_t to = remap[v->samples[i].stack];
            if (to != UINT32_MAX)
                v->samples[kept++] = (profile_view_sample){v->samples[i].thread, to};
        }
        v->sample_count = kept;
    }
    free(v->stacks);
    free(v->frames);
    v->stacks = stacks;
    v->frames = frames;
    v->stack_count = stack_count;
    v->frame_count = frame_count;
    stacks = NULL;
    frames = NULL;
    rc = 0;
done:
    free(idle);
    free(cls);
    free(remap);
    free(stacks);
    free(frames);
    return rc;
}

void profile_shape_drop_folded(profile_view *v)
{
    size_t i, at = 0;

    for (i = 0; i < v->stack_count; i++) {
        profile_view_stack *st = &v->stacks[i];
        uint32_t k, first = (uint32_t)at;
        for (k = 0; k < st->depth; k++) {
            uint32_t sym = v->frames[st->first + k];
            if (!(sym & PROFILE_SHAPE_FOLDED))
                v->frames[at++] = sym;
        }
        st->first = first;
        st->depth = (uint32_t)at - first;
    }
    v->frame_count = at;
}
