/* profile_view.c -- filtering and copying a profile for one response (see profile_view.h). */
#include "profile_view.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpusym.h"
#include "grow.h"
#include "profile_cpu.h"
#include "session.h"
#include "srcline.h"

/* The session's row of a profile thread: the one the walk (or the CPU
 * sampler) named, else the ThreadID's current one (a profile read back from
 * an old file); NULL for a thread the agent never reported (CPU mode). */
static session_thread *profile_view_row(session *s, const profile_thread *t)
{
    if (t->thread_row)
        return session_thread_row(s, t->thread_row);
    return t->thread_id ? session_find_thread(s, t->thread_id) : NULL;
}

/* A profile thread's name: its row's, else in CPU mode the OS name the
 * sampler read. NULL when none. */
static const char *profile_view_thread_name(session *s, const profile_thread *t)
{
    const session_thread *st = profile_view_row(s, t);

    if (st && st->name)
        return st->name;
    return s->profile.mode == PROFILE_MODE_CPU ? profile_cpu_text(&s->profile, t->name) : NULL;
}

/* Does profile thread t match the query's thread arguments? */
static int profile_view_thread_matches(session *s, const profile_thread *t, const profile_query *q)
{
    const char *arg = q->thread;
    const session_thread *st = profile_view_row(s, t);
    const char *name;
    unsigned long long v;
    char *end;

    if (q->thread_row && (!st || session_thread_row_of(s, st) != q->thread_row))
        return 0;
    if (!arg || !*arg)
        return 1;
    if ((arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X')) || (arg[0] >= '0' && arg[0] <= '9')) {
        int hex = arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X');
        errno = 0;
        v = strtoull(arg, &end, hex ? 16 : 10);
        if (!errno && end != arg && !*end && (hex ? !!arg[2] : 1)) {
            if (hex)
                return v != 0 && v == t->thread_id;
            return v != 0 && (v == t->os_thread_id || (st && v == st->os_thread_id));
        }
    }
    name = profile_view_thread_name(s, t);
    return name && strcmp(name, arg) == 0;
}

/* Whether a profile thread is one of jitscope's own (by the name the agent gives them). */
static int profile_view_is_own(session *s, const profile_thread *t)
{
    const char *name = profile_view_thread_name(s, t);
    return name && strncmp(name, PROFILE_VIEW_OWN_PREFIX, strlen(PROFILE_VIEW_OWN_PREFIX)) == 0;
}

static int profile_view_compare_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Samples per second of the matched samples (their wall-clock ms in ms[0..n)). */
static int profile_view_seconds(profile_view *v, int64_t *ms, size_t n)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    size_t i, k;

    if (!n)
        return 0;
    for (i = 0; i < n; i++) {
        ms[i] /= 1000; /* now seconds */
        lo = ms[i] < lo ? ms[i] : lo;
        hi = ms[i] > hi ? ms[i] : hi;
    }
    if ((uint64_t)(hi - lo) < PROFILE_VIEW_MAX_SECONDS) { /* dense: zeros included */
        v->second_count = (size_t)(hi - lo) + 1;
        v->seconds = calloc(v->second_count, sizeof(*v->seconds));
        if (!v->seconds)
            return -1;
        for (k = 0; k < v->second_count; k++)
            v->seconds[k].t_ms = (lo + (int64_t)k) * 1000;
        for (i = 0; i < n; i++)
            v->seconds[ms[i] - lo].samples++;
        return 0;
    }
    qsort(ms, n, sizeof(*ms), profile_view_compare_i64); /* sparse: seconds with samples */
    v->seconds = calloc(n, sizeof(*v->seconds));
    if (!v->seconds)
        return -1;
    for (i = 0; i < n; i++) {
        if (!v->second_count || v->seconds[v->second_count - 1].t_ms != ms[i] * 1000)
            v->seconds[v->second_count++].t_ms = ms[i] * 1000;
        v->seconds[v->second_count - 1].samples++;
    }
    return 0;
}

/* The kind of entry i of a CPU profile's symbol table: a native function
 * (with its module), native work without a name (the kernel, an address in
 * no mapping, the vDSO), or a label (cpusym.h's CPUSYM_LABEL_*). */
static int profile_view_cpu_kind(uint64_t i, const char *module)
{
    if (module)
        return SYMBOL_NATIVE;
    if (i >= CPUSYM_LABELS || i == CPUSYM_LABEL_KERNEL || i == CPUSYM_LABEL_UNMAPPED)
        return SYMBOL_NATIVE_LABEL;
    return SYMBOL_LABEL;
}

/* A stack of the view: a stack of the profile (with the address stack
 * addr, PROFILE_ADDR_NONE when not told apart by address) and its samples. */
typedef struct profile_view_used {
    uint32_t stack, addr;
    uint64_t count;
} profile_view_used;

/* Copies the used stacks as symbol indexes (and, by_address, each frame's code address). */
static int profile_view_stacks(profile_view *v, session *s, const profile_view_used *used,
                               size_t used_count, int by_address)
{
    const profile_state *p = &s->profile;
    size_t i, frames = 0;
    uint32_t truncated = UINT32_MAX, unknown = UINT32_MAX;

    for (i = 0; i < used_count; i++)
        frames += p->stacks[used[i].stack].depth ? p->stacks[used[i].stack].depth : 1;
    v->stacks = calloc(used_count ? used_count : 1, sizeof(*v->stacks));
    v->frames = malloc((frames ? frames : 1) * sizeof(*v->frames));
    if (by_address)
        v->addrs = calloc(frames ? frames : 1, sizeof(*v->addrs));
    if (!v->stacks || !v->frames || (by_address && !v->addrs))
        return -1;
    for (i = 0; i < used_count; i++) {
        const profile_stack *ps = &p->stacks[used[i].stack];
        const uint64_t *at = NULL;
        uint32_t k, at_depth = 0;
        profile_view_stack *vs;

        if (by_address && used[i].addr != PROFILE_ADDR_NONE && used[i].addr < p->addr.stack_count) {
            at = &p->addr.frames[p->addr.stacks[used[i].addr].first];
            at_depth = p->addr.stacks[used[i].addr].depth;
        }
        vs = &v->stacks[v->stack_count++];
        vs->first = (uint32_t)v->frame_count;
        vs->count = used[i].count;
        if (ps->depth == 0) {
            if (unknown == UINT32_MAX && symbols_label(&v->syms, "[unknown]", &unknown) != 0)
                return -1;
            v->frames[v->frame_count++] = unknown;
            vs->depth = 1;
            continue;
        }
        for (k = 0; k < ps->depth; k++) {
            uint64_t fid = p->frames[ps->first + k];
            uint32_t sym;
            if (fid == PROFILE_FRAME_TRUNCATED) {
                if (truncated == UINT32_MAX &&
                    symbols_label(&v->syms, "[truncated]", &truncated) != 0)
                    return -1;
                sym = truncated;
            } else if (fid & PROFILE_FRAME_SYMBOL) {
                uint64_t i = fid & ~PROFILE_FRAME_SYMBOL;
                const profile_symbol *e = i < p->cpu.symbol_count ? &p->cpu.symbols[i] : NULL;
                const char *name = e ? profile_cpu_text(p, e->name) : NULL;
                const char *module = e && e->module != UINT32_MAX ? profile_cpu_text(p, e->module)
                                                                  : NULL;
                if (symbols_named(&v->syms, fid, name ? name : "[?]", module,
                                  profile_view_cpu_kind(i, module), &sym) != 0)
                    return -1;
            } else if (symbols_function(&v->syms, s, fid, &sym) != 0) {
                return -1;
            }
            if (at && k < at_depth)
                v->addrs[v->frame_count] = at[k];
            v->frames[v->frame_count++] = sym;
        }
        vs->depth = ps->depth;
    }
    return 0;
}

/* The view's stacks: per stack with samples (count[i]), or (by_address) per
 * (stack, address stack) pair, whose view index each sample gets in
 * sample_view[] (UINT32_MAX: not in the view). *used malloc'd. 0 or -1. */
static int profile_view_pairs(const profile_state *p, const uint64_t *count,
                              const unsigned char *counted, int by_address,
                              profile_view_used **used, size_t *used_count, uint32_t *sample_view)
{
    size_t i, n = 0, cap = 0;
    profile_view_used *list = NULL;
    uint32_t *stack_view = calloc(p->stack_count + 1, sizeof(*stack_view));
    idmap pairs = {0};
    int rc = -1;

    if (!stack_view)
        goto out;
    if (!by_address) {
        for (i = 0; i < p->stack_count; i++) {
            if (!count[i])
                continue;
            if (grow_reserve((void **)&list, &cap, n, sizeof(*list), 64, SIZE_MAX / sizeof(*list),
                             GROW_KEEP) != 0)
                goto out;
            stack_view[i] = (uint32_t)n;
            list[n++] = (profile_view_used){(uint32_t)i, PROFILE_ADDR_NONE, count[i]};
        }
    }
    for (i = 0; i < p->sample_count; i++) {
        const profile_sample *e = &p->samples[i];
        uint32_t addr, at;
        uint64_t key;
        if (!counted[i]) {
            sample_view[i] = UINT32_MAX;
            continue;
        }
        if (!by_address) {
            sample_view[i] = stack_view[e->stack];
            continue;
        }
        addr = i < p->addr.sample_count ? p->addr.by_sample[i] : PROFILE_ADDR_NONE;
        key = ((((uint64_t)(addr == PROFILE_ADDR_NONE ? 0 : addr + 1)) << 16) | e->stack) + 1;
        if ((at = idmap_get(&pairs, key)) == IDMAP_MISSING) {
            if (grow_reserve((void **)&list, &cap, n, sizeof(*list), 64, SIZE_MAX / sizeof(*list),
                             GROW_KEEP) != 0)
                goto out;
            at = (uint32_t)n;
            list[n++] = (profile_view_used){e->stack, addr, 0};
            if (idmap_put(&pairs, key, at) != 0)
                goto out;
        }
        list[at].count++;
        sample_view[i] = at;
    }
    rc = 0;
out:
    idmap_free(&pairs);
    free(stack_view);
    if (rc != 0) {
        free(list);
        list = NULL;
        n = 0;
    }
    *used = list;
    *used_count = n;
    return rc;
}

int profile_view_take(profile_view *v, session *s, const profile_query *q)
{
    const profile_state *p = &s->profile;
    uint64_t *count = NULL, *per_thread = NULL;
    uint32_t *thread_remap = NULL, *sample_view = NULL;
    unsigned char *selected = NULL; /* 1: listed, 2: listed and counted */
    unsigned char *counted = NULL;  /* per sample: in the view's stacks */
    profile_view_used *used = NULL;
    size_t used_count = 0;
    int64_t *ms = NULL;
    size_t i, n = 0;
    int rc = -1, named = (q->thread && *q->thread) || q->thread_row;

    memset(v, 0, sizeof(*v));
    count = calloc(p->stack_count + 1, sizeof(*count));
    per_thread = calloc(p->thread_count + 1, sizeof(*per_thread));
    thread_remap = calloc(p->thread_count + 1, sizeof(*thread_remap));
    sample_view = malloc((p->sample_count + 1) * sizeof(*sample_view));
    counted = calloc(p->sample_count + 1, 1);
    selected = calloc(p->thread_count + 1, 1);
    ms = malloc((p->sample_count + 1) * sizeof(*ms));
    if (!count || !per_thread || !thread_remap || !sample_view || !counted || !selected || !ms)
        goto fail;
    for (i = 0; i < p->thread_count; i++)
        if (profile_view_thread_matches(s, &p->threads[i], q))
            selected[i] = q->own_threads || named || !profile_view_is_own(s, &p->threads[i]) ? 2
                                                                                             : 1;
    for (i = 0; i < p->sample_count; i++) {
        const profile_sample *e = &p->samples[i];
        int64_t at = p->base_ns + (int64_t)e->t_ms * 1000000;
        if (!selected[e->thread] || at < q->from_ns || at > q->to_ns)
            continue;
        per_thread[e->thread]++;
        if (selected[e->thread] == 1) {
            v->excluded++;
            continue;
        }
        count[e->stack]++;
        counted[i] = 1;
        ms[n++] = at / 1000000;
    }
    v->total = n;
    if (profile_view_seconds(v, ms, n) != 0 ||
        profile_view_pairs(p, count, counted, q->by_address, &used, &used_count, sample_view) !=
            0 ||
        profile_view_stacks(v, s, used, used_count, q->by_address) != 0)
        goto fail;
    v->threads = calloc(p->thread_count + 1, sizeof(*v->threads));
    if (!v->threads)
        goto fail;
    for (i = 0; i < p->thread_count; i++) {
        profile_view_thread *t;
        const session_thread *st;
        if (!per_thread[i])
            continue;
        thread_remap[i] = (uint32_t)v->thread_count;
        t = &v->threads[v->thread_count++];
        const char *name;
        st = profile_view_row(s, &p->threads[i]);
        t->thread_id = p->threads[i].thread_id;
        t->thread_key = st ? (int64_t)session_thread_row_of(s, st) - 1 : -1;
        t->os_thread_id = p->threads[i].os_thread_id ? p->threads[i].os_thread_id
                                                     : (st ? st->os_thread_id : 0);
        t->samples = per_thread[i];
        t->counted = selected[i] == 2;
        t->own = profile_view_is_own(s, &p->threads[i]);
        name = profile_view_thread_name(s, &p->threads[i]);
        if (name && !(t->name = strdup(name)))
            goto fail;
    }
    if (q->with_samples && n) {
        v->samples = malloc(n * sizeof(*v->samples));
        if (!v->samples)
            goto fail;
        for (i = 0; i < p->sample_count; i++) {
            const profile_sample *e = &p->samples[i];
            if (!counted[i])
                continue;
            v->samples[v->sample_count++] = (profile_view_sample){thread_remap[e->thread],
                                                                  sample_view[i]};
        }
    }
    rc = 0;
fail:
    free(count);
    free(per_thread);
    free(thread_remap);
    free(sample_view);
    free(counted);
    free(used);
    free(selected);
    free(ms);
    if (rc != 0)
        profile_view_free(v);
    return rc;
}

void profile_view_free(profile_view *v)
{
    size_t i;

    for (i = 0; i < v->thread_count; i++)
        free(v->threads[i].name);
    free(v->threads);
    free(v->stacks);
    free(v->frames);
    free(v->addrs);
    free(v->samples);
    free(v->seconds);
    symbols_free(&v->syms);
    memset(v, 0, sizeof(*v));
}

int profile_view_lines(profile_view *v, srcline *L, const uint32_t *fn_of, int split)
{
    size_t i, count = v->syms.count;
    idmap made = {0};
    int rc = -1;

    for (i = 0; i < count; i++) {
        symbol *sym = &v->syms.items[i];
        const srcline_fn *e;
        if (sym->kind != SYMBOL_METHOD || fn_of[i] >= L->count)
            continue;
        e = &L->fns[fn_of[i]];
        if (e->file && !(sym->file = strdup(e->file)))
            return -1;
        sym->line = e->first_line;
    }
    if (!split || !v->addrs)
        return 0;
    for (i = 0; i < v->frame_count; i++) {
        uint32_t base = v->frames[i], line, at;
        const char *file, *why;
        uint64_t key;
        if (!v->addrs[i] || base >= count || fn_of[base] >= L->count ||
            !srcline_at(L, fn_of[base], v->addrs[i], &file, &line, &why, NULL))
            continue;
        key = ((uint64_t)base << 32 | line) + 1;
        if ((at = idmap_get(&made, key)) == IDMAP_MISSING) {
            if (symbols_line(&v->syms, base, file, line, &at) != 0 ||
                idmap_put(&made, key, at) != 0)
                goto out;
        }
        v->frames[i] = at;
    }
    rc = 0;
out:
    idmap_free(&made);
    return rc;
}
