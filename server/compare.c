/* compare.c -- two sessions matched method by method and module by module
 * (see compare.h): snapshot copies, the merge, filtering and sorting. */
#include "compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the snapshot's strings: one chain of blocks ---------------------------- */

#define COMPARE_BLOCK (256u * 1024u)

struct compare_arena {
    struct compare_arena *next;
    size_t used, size;
    char data[];
};

static const char *arena_copy(compare_arena **head, const char *text, size_t n)
{
    compare_arena *b = *head;
    char *out;

    if (!b || b->size - b->used < n + 1) {
        size_t size = n + 1 > COMPARE_BLOCK ? n + 1 : COMPARE_BLOCK;
        compare_arena *nb = malloc(sizeof(*nb) + size);
        if (!nb)
            return NULL;
        nb->next = b;
        nb->used = 0;
        nb->size = size;
        *head = b = nb;
    }
    out = b->data + b->used;
    if (text) /* NULL: room only, the caller writes it */
        memcpy(out, text, n);
    out[n] = '\0';
    b->used += n + 1;
    return out;
}

static void arena_free(compare_arena *b)
{
    while (b) {
        compare_arena *next = b->next;
        free(b);
        b = next;
    }
}

/* ---- stable names of generated methods ---------------------------------------- */

#define COMPARE_DYNAMIC_PREFIX "[dynamic] "

/* Names the runtime gives the methods it emits, before and after its counter:
 * System.Text.RegularExpressions (RegexOptions.Compiled) and
 * System.Linq.Expressions (LambdaExpression.Compile without a name). */
static const struct {
    const char *before, *after;
} compare_counted_names[] = {
    {"Regex", "_"},
    {"lambda_method", ""},
};

int compare_stable_name(const char *name, char *out, size_t outsz)
{
    const size_t prefix = sizeof(COMPARE_DYNAMIC_PREFIX) - 1;
    size_t i, before, digits;
    const char *at, *rest;

    if (!name || outsz == 0 || strncmp(name, COMPARE_DYNAMIC_PREFIX, prefix) != 0)
        return 0;
    at = name + prefix;
    for (i = 0; i < sizeof(compare_counted_names) / sizeof(compare_counted_names[0]); i++) {
        const char *after = compare_counted_names[i].after;
        before = strlen(compare_counted_names[i].before);
        if (strncmp(at, compare_counted_names[i].before, before) != 0)
            continue;
        for (digits = 0; at[before + digits] >= '0' && at[before + digits] <= '9'; digits++)
            ;
        rest = at + before + digits;
        if (digits == 0 || strncmp(rest, after, strlen(after)) != 0)
            continue;
        /* the method's name ends at its parameter list (or a space): lambda_method7
         * is counted, lambda_methods is somebody's own name */
        if (!*after && *rest && *rest != '(' && *rest != ' ')
            continue;
        snprintf(out, outsz, "%.*s*%s", (int)(prefix + before), name, rest);
        return 1;
    }
    return 0;
}

/* ---- snapshot --------------------------------------------------------------- */

/* A module's identity: assembly name, else the file name without .dll/.exe. */
static const char *module_identity(compare_arena **arena, const session_module *m)
{
    const char *name = m->assembly, *slash;
    size_t n;

    if (name && *name)
        return arena_copy(arena, name, strlen(name));
    if (!m->path || !*m->path)
        return COMPARE_UNKNOWN;
    slash = strrchr(m->path, '/');
    name = slash ? slash + 1 : m->path;
    n = strlen(name);
    if (n > 4 && (strcasecmp(name + n - 4, ".dll") == 0 || strcasecmp(name + n - 4, ".exe") == 0))
        n -= 4;
    return n ? arena_copy(arena, name, n) : COMPARE_UNKNOWN;
}

int compare_snapshot_take(compare_snapshot *snap, session *s)
{
    const char **keys = NULL;
    char *name;
    size_t i, n;
    int rc = -1;

    memset(snap, 0, sizeof(*snap));
    snap->compilations = s->jit_compilations;
    snap->jit_ns = s->jit_time_total_ns;
    if (s->module_count) {
        keys = malloc(s->module_count * sizeof(*keys));
        snap->mods = malloc(s->module_count * sizeof(*snap->mods));
        if (!keys || !snap->mods)
            goto done;
    }
    for (i = 0; i < s->module_count; i++) {
        const session_module *m = &s->modules[i];
        keys[i] = module_identity(&snap->strings, m);
        snap->mods[i].module = keys[i];
        snap->mods[i].path = m->path ? arena_copy(&snap->strings, m->path, strlen(m->path)) : NULL;
        if (!keys[i] || (m->path && !snap->mods[i].path))
            goto done;
    }
    snap->mod_count = s->module_count;
    if (s->functions_jitted) {
        snap->fns = malloc(s->functions_jitted * sizeof(*snap->fns));
        if (!snap->fns)
            goto done;
    }
    for (i = 0; i < s->function_count; i++) {
        const session_function *f = &s->functions[i];
        const char *module;
        session_module *m;

        if (!f->jitted)
            continue; /* known only from stacks: not a compiled function */
        snap->functions++;
        if (!f->name_record || !(n = fnname_length(f->name_record)) ||
            snap->fn_count == s->functions_jitted) {
            snap->unnamed++;
            continue;
        }
        m = (f->flags & WIRE_FLAG_DYNAMIC) || !f->module_id ? NULL
                                                            : session_find_module(s, f->module_id);
        module = m                                                 ? keys[m - s->modules]
                 : (f->flags & WIRE_FLAG_DYNAMIC) || !f->module_id ? COMPARE_DYNAMIC
                                                                   : COMPARE_UNKNOWN;
        if (!(name = (char *)arena_copy(&snap->strings, NULL, n)))
            goto done;
        fnname_copy(f->name_record, name, n + 1);
        if (f->flags & WIRE_FLAG_DYNAMIC) { /* never longer: it fits over the copy */
            char *whole = strdup(name);
            if (!whole)
                goto done;
            (void)compare_stable_name(whole, name, n + 1);
            free(whole);
        }
        snap->fns[snap->fn_count++] = (compare_fn){
            .module = module,
            .name = name,
            .jit_ns = f->jit_time_total_ns,
            .last_jit_ns = session_function_last_jit_ns(f),
            .compilations = f->jit_count,
            .tier = f->tier,
            .il_size = f->il_size,
            .native_size = f->native_size,
        };
    }
    rc = 0;
done:
    free(keys);
    if (rc != 0)
        compare_snapshot_free(snap);
    return rc;
}

void compare_snapshot_free(compare_snapshot *snap)
{
    free(snap->fns);
    free(snap->mods);
    arena_free(snap->strings);
    memset(snap, 0, sizeof(*snap));
}

/* ---- matching --------------------------------------------------------------- */

static int fn_order(const void *x, const void *y)
{
    const compare_fn *a = x, *b = y;
    int d = strcmp(a->module, b->module);
    return d ? d : strcmp(a->name, b->name);
}

static int mod_order(const void *x, const void *y)
{
    const compare_mod *a = x, *b = y;
    return strcmp(a->module, b->module);
}

static int str_order(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void side_add(compare_side *s, const compare_fn *f)
{
    s->jit_ns += f->jit_ns;
    s->compilations += f->compilations;
    s->functions++;
    s->il_size = f->il_size;
    if (f->compilations && (s->last_jit_ns == 0 || f->last_jit_ns >= s->last_jit_ns)) {
        s->last_jit_ns = f->last_jit_ns;
        s->tier = f->tier;
        s->native_size = f->native_size;
    } else if (!s->native_size) {
        s->native_size = f->native_size;
    }
}

/* A method's side summed into its module's (functions: methods JITed). */
static void module_side_add(compare_side *m, const compare_side *me)
{
    m->functions++;
    m->compilations += me->compilations;
    m->jit_ns += me->jit_ns;
    m->il_size += me->il_size;
    m->native_size += me->native_size;
}

/* Sorted copies of a snapshot's functions and modules. */
static int sorted_copy(const compare_snapshot *s, compare_fn **fns, compare_mod **mods)
{
    *fns = malloc((s->fn_count + 1) * sizeof(**fns));
    *mods = malloc((s->mod_count + 1) * sizeof(**mods));
    if (!*fns || !*mods) {
        free(*fns);
        free(*mods);
        return -1;
    }
    if (s->fn_count)
        memcpy(*fns, s->fns, s->fn_count * sizeof(**fns));
    if (s->mod_count)
        memcpy(*mods, s->mods, s->mod_count * sizeof(**mods));
    qsort(*fns, s->fn_count, sizeof(**fns), fn_order);
    qsort(*mods, s->mod_count, sizeof(**mods), mod_order);
    return 0;
}

/* The methods: a merge of the two sorted function lists, equal keys summed. */
static int merge_methods(const compare_fn *fa, size_t na, const compare_fn *fb, size_t nb,
                         compare_result *r)
{
    size_t i = 0, j = 0, n = 0;

    r->methods = malloc((na + nb + 1) * sizeof(*r->methods));
    if (!r->methods)
        return -1;
    while (i < na || j < nb) {
        compare_method *m = &r->methods[n++];
        const compare_fn *key;
        int d = i == na ? 1 : j == nb ? -1 : fn_order(&fa[i], &fb[j]);

        memset(m, 0, sizeof(*m));
        key = d <= 0 ? &fa[i] : &fb[j];
        m->module = key->module;
        m->name = key->name;
        if (d <= 0) {
            m->in |= COMPARE_IN_A;
            while (i < na && fn_order(&fa[i], key) == 0)
                side_add(&m->a, &fa[i++]);
        }
        if (d >= 0) {
            m->in |= COMPARE_IN_B;
            while (j < nb && fn_order(&fb[j], key) == 0)
                side_add(&m->b, &fb[j++]);
        }
        r->methods_in[m->in]++;
    }
    r->method_count = n;
    return 0;
}

static int find_module(const compare_result *r, const char *name, size_t *at)
{
    size_t lo = 0, hi = r->module_count;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int d = strcmp(r->modules[mid].module, name);
        if (d == 0)
            return *at = mid, 0;
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Counts one side's module instances (side: COMPARE_IN_A or _B) into the
 * merged modules; the first instance's path is the one shown. */
static void count_loads(compare_result *r, const compare_mod *mods, size_t n, unsigned side)
{
    size_t i, k;

    for (i = 0; i < n; i++)
        if (find_module(r, mods[i].module, &k) == 0) {
            compare_module *m = &r->modules[k];
            uint32_t *loads = side == COMPARE_IN_A ? &m->a_loads : &m->b_loads;
            if (!(*loads)++)
                *(side == COMPARE_IN_A ? &m->a_path : &m->b_path) = mods[i].path;
            m->in |= side;
        }
}

/* The modules: every identity loaded or owning a method on either side. */
static int merge_modules(const compare_mod *ma, size_t na, const compare_mod *mb, size_t nb,
                         compare_result *r)
{
    size_t cap = na + nb + r->method_count + 1, n = 0, i, k;
    const char **names = malloc(cap * sizeof(*names));

    if (!names)
        return -1;
    for (i = 0; i < na; i++)
        names[n++] = ma[i].module;
    for (i = 0; i < nb; i++)
        names[n++] = mb[i].module;
    for (i = 0; i < r->method_count; i++)
        if (i == 0 || strcmp(r->methods[i].module, r->methods[i - 1].module) != 0)
            names[n++] = r->methods[i].module;
    qsort(names, n, sizeof(*names), str_order);
    r->modules = calloc(n + 1, sizeof(*r->modules));
    if (!r->modules) {
        free(names);
        return -1;
    }
    for (i = 0; i < n; i++)
        if (r->module_count == 0 || strcmp(names[i], r->modules[r->module_count - 1].module) != 0)
            r->modules[r->module_count++].module = names[i];
    free(names);
    count_loads(r, ma, na, COMPARE_IN_A);
    count_loads(r, mb, nb, COMPARE_IN_B);
    for (i = 0; i < r->method_count; i++) {
        const compare_method *me = &r->methods[i];
        compare_module *m;

        if (find_module(r, me->module, &k) != 0)
            continue;
        m = &r->modules[k];
        if (me->in & COMPARE_IN_A)
            module_side_add(&m->a, &me->a);
        if (me->in & COMPARE_IN_B)
            module_side_add(&m->b, &me->b);
        m->in |= me->in;
        if (me->in == COMPARE_IN_A)
            m->only_a++;
        else if (me->in == COMPARE_IN_B)
            m->only_b++;
    }
    for (i = 0; i < r->module_count; i++)
        r->modules_in[r->modules[i].in]++;
    return 0;
}

int compare_build(const compare_snapshot *a, const compare_snapshot *b, compare_result *r)
{
    compare_fn *fa = NULL, *fb = NULL;
    compare_mod *ma = NULL, *mb = NULL;
    int rc = -1;

    memset(r, 0, sizeof(*r));
    if (sorted_copy(a, &fa, &ma) != 0)
        return -1;
    if (sorted_copy(b, &fb, &mb) != 0)
        goto out;
    if (merge_methods(fa, a->fn_count, fb, b->fn_count, r) != 0 ||
        merge_modules(ma, a->mod_count, mb, b->mod_count, r) != 0) {
        compare_result_free(r);
        goto out;
    }
    rc = 0;
out:
    free(fa);
    free(fb);
    free(ma);
    free(mb);
    return rc;
}

void compare_result_free(compare_result *r)
{
    free(r->methods);
    free(r->modules);
    memset(r, 0, sizeof(*r));
}

/* ---- selection -------------------------------------------------------------- */

int64_t compare_delta_ns(const compare_side *a, const compare_side *b)
{
    if (b->jit_ns >= a->jit_ns)
        return b->jit_ns - a->jit_ns > (uint64_t)INT64_MAX ? INT64_MAX
                                                           : (int64_t)(b->jit_ns - a->jit_ns);
    return a->jit_ns - b->jit_ns > (uint64_t)INT64_MAX ? -INT64_MAX
                                                       : -(int64_t)(a->jit_ns - b->jit_ns);
}

typedef struct select_ctx {
    const compare_result *r;
    int methods, descending;
    enum compare_sort sort;
} select_ctx;

static void row_sides(const select_ctx *c, size_t i, const compare_side **a, const compare_side **b,
                      const char **module, const char **name)
{
    if (c->methods) {
        const compare_method *m = &c->r->methods[i];
        *a = &m->a, *b = &m->b, *module = m->module, *name = m->name;
    } else {
        const compare_module *m = &c->r->modules[i];
        *a = &m->a, *b = &m->b, *module = m->module, *name = "";
    }
}

#define CMP3(x, y) (((x) > (y)) - ((x) < (y)))

static int select_order(const void *x, const void *y, void *arg)
{
    const select_ctx *c = arg;
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    const compare_side *ai, *bi, *aj, *bj;
    const char *mi, *ni, *mj, *nj;
    int d = 0;

    row_sides(c, i, &ai, &bi, &mi, &ni);
    row_sides(c, j, &aj, &bj, &mj, &nj);
    switch (c->sort) {
    case COMPARE_SORT_JIT_TIME: {
        uint64_t ti = ai->jit_ns > bi->jit_ns ? ai->jit_ns : bi->jit_ns;
        uint64_t tj = aj->jit_ns > bj->jit_ns ? aj->jit_ns : bj->jit_ns;
        d = CMP3(ti, tj);
        break;
    }
    case COMPARE_SORT_DELTA: d = CMP3(compare_delta_ns(ai, bi), compare_delta_ns(aj, bj)); break;
    case COMPARE_SORT_ABS_DELTA: {
        int64_t di = compare_delta_ns(ai, bi), dj = compare_delta_ns(aj, bj);
        d = CMP3(di < 0 ? -di : di, dj < 0 ? -dj : dj);
        break;
    }
    case COMPARE_SORT_A_JIT_TIME: d = CMP3(ai->jit_ns, aj->jit_ns); break;
    case COMPARE_SORT_B_JIT_TIME: d = CMP3(bi->jit_ns, bj->jit_ns); break;
    case COMPARE_SORT_COMPILATIONS: {
        uint32_t ci = ai->compilations > bi->compilations ? ai->compilations : bi->compilations;
        uint32_t cj = aj->compilations > bj->compilations ? aj->compilations : bj->compilations;
        d = CMP3(ci, cj);
        break;
    }
    case COMPARE_SORT_NAME:
        d = c->methods ? strcmp(ni, nj) : 0;
        if (d == 0)
            d = strcmp(mi, mj);
        break;
    case COMPARE_SORT_MODULE: break; /* the tie order below is (module, name) */
    }
    if (c->descending)
        d = -d;
    if (d == 0) /* rows are stored in (module, name) order: their index is that order */
        d = CMP3(i, j);
    return d;
}

int compare_select(const compare_result *r, int methods, unsigned in_mask, const char *q,
                   const char *module, enum compare_sort sort, int descending, size_t **out,
                   size_t *count)
{
    size_t total = methods ? r->method_count : r->module_count, n = 0, i;
    select_ctx ctx = {r, methods, descending, sort};

    *count = 0;
    *out = malloc((total + 1) * sizeof(**out));
    if (!*out)
        return -1;
    if (q && !*q)
        q = NULL;
    if (module && !*module)
        module = NULL;
    for (i = 0; i < total; i++) {
        const char *mname = methods ? r->methods[i].module : r->modules[i].module;
        const char *name = methods ? r->methods[i].name : mname;
        unsigned in = methods ? r->methods[i].in : r->modules[i].in;

        if (!(in_mask & (1u << in)))
            continue;
        if (q && !strcasestr(name, q))
            continue;
        if (module && !strcasestr(mname, module))
            continue;
        (*out)[n++] = i;
    }
    qsort_r(*out, n, sizeof(**out), select_order, &ctx);
    *count = n;
    return 0;
}
