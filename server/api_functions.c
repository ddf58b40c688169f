/* api_functions.c -- GET /api/sessions/{id}/functions (filter, sort, page) and
 * GET /api/sessions/{id}/modules/totals (per-module sums), without holding the
 * sessions lock for their whole length.
 *
 * Both walk the session's function array in steps of api_step_functions functions
 * (fewer when a name filter has compared API_FN_WORK_STEP bytes) with the lock held, and let the link thread in between steps
 * (sessions_let_others_in), so ingest never waits for more than one step. The
 * session is pinned meanwhile (sessions_pin): it is not freed, positions in its
 * function array stay the same functions, and names stay where they are
 * (session.h). The walk keeps only candidates for the offset + limit best rows
 * (a threshold and a buffer cut back by quickselect: no sort of every match);
 * the page itself is picked and sorted with the lock released.
 * The page's JSON is built under the lock again, in steps too. What a query
 * returns is the session as it was while it walked: functions that arrive
 * meanwhile may or may not be in it. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api_util.h"
#include "fnfilter.h"
#include "grow.h"
#include "origin.h"

#define API_FN_ROWS_STEP 512u /* JSON rows per locked step */
/* Bytes of names a locked step may compare before it lets others in, whatever
 * its count of functions: about 2 ms, also for hostile names and filters */
#define API_FN_WORK_STEP (8u * 1024u * 1024u)
#define API_FN_BATCH 32u       /* candidates of a name filter fetched ahead together */
#define API_FN_MAX_FILTER 512u /* bytes of a q= or module= filter */
#define API_DEFAULT_LIMIT 100
#define API_MAX_LIMIT 10000

size_t api_step_functions = 131072; /* about 1 ms of walking, per locked step */

enum api_fn_sort { FN_SORT_TIME, FN_SORT_JIT_TIME, FN_SORT_NAME, FN_SORT_NATIVE, FN_SORT_IL };

typedef struct api_fn_hit {
    uint64_t key;            /* the sort value, or the name record (FN_SORT_NAME) */
    uint64_t name_prefix[2]; /* FN_SORT_NAME: the name's first 16 bytes, big-endian, 0-padded */
    uint64_t function_id;
    uint32_t position; /* in the session's function array */
} api_fn_hit;

typedef struct api_fn_query {
    enum api_fn_sort sort;
    int descending;
    const char *q;        /* name substring, lower-case (owned; `names` tests it); NULL: any */
    int recompiled;       /* 1: only functions compiled 2+ times or with 2+ code versions; 0: only
                             the others; -1: any */
    uint32_t tiers;       /* bits (1 << wire_tier) of their last compilation's tier; 0: any */
    uint32_t origins;     /* bits (1 << origin.h's origin); 0: any */
    uint64_t last_module; /* origins: the module whose origin was asked last, and it */
    unsigned last_origin;
    int by_module;     /* 1: only functions of `modules` */
    uint64_t *modules; /* module IDs whose name or path matches, sorted */
    size_t module_count;
    /* the result */
    api_fn_hit *hits; /* candidates for the best `keep` (offset + limit) */
    size_t hit_count, hit_cap, keep, matched;
    int has_threshold;
    api_fn_hit threshold; /* the keep-th best match at the last cut */
    fnfilter names;       /* with q (fnfilter.h) */
} api_fn_query;

static int api_fn_cmp(const api_fn_query *q, const api_fn_hit *a, const api_fn_hit *b)
{
    int d;

    if (q->sort == FN_SORT_NAME && a->name_prefix[0] != b->name_prefix[0]) {
        d = a->name_prefix[0] > b->name_prefix[0] ? 1 : -1; /* strcmp's order of those bytes */
    } else if (q->sort == FN_SORT_NAME && a->name_prefix[1] != b->name_prefix[1]) {
        d = a->name_prefix[1] > b->name_prefix[1] ? 1 : -1;
    } else if (q->sort == FN_SORT_NAME) {
        d = fnname_order((const char *)(uintptr_t)a->key, (const char *)(uintptr_t)b->key);
        d = (d > 0) - (d < 0);
    } else {
        d = (a->key > b->key) - (a->key < b->key);
    }
    if (d == 0)
        d = (a->function_id > b->function_id) - (a->function_id < b->function_id);
    if (d == 0) /* an ID the runtime gave again to a new dynamic method: two functions */
        d = (a->position > b->position) - (a->position < b->position);
    return q->descending ? -d : d;
}

static int api_fn_cmp_r(const void *a, const void *b, void *q) { return api_fn_cmp(q, a, b); }

static uint64_t api_fn_key(const api_fn_query *q, const session_function *f)
{
    switch (q->sort) {
    case FN_SORT_TIME: return (uint64_t)f->first_jit_ns ^ (1ull << 63); /* signed order */
    case FN_SORT_JIT_TIME: return f->jit_time_total_ns;
    case FN_SORT_NAME: return (uint64_t)(uintptr_t)f->name_record;
    case FN_SORT_NATIVE: return f->native_size;
    case FN_SORT_IL: return f->il_size;
    }
    return 0;
}

static int api_fn_u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The IDs of the modules whose display name or path contains the filter (lock held). */
static int api_fn_modules(api_fn_query *q, session *s, const char *needle, size_t n)
{
    size_t i;

    q->by_module = 1;
    q->modules = malloc((s->module_count + 1) * sizeof(*q->modules));
    if (!q->modules)
        return -1;
    for (i = 0; i < s->module_count; i++) {
        const session_module *m = &s->modules[i];
        if (fnfilter_text(session_module_name(s, m->module_id), needle, n) ||
            fnfilter_text(m->path, needle, n))
            q->modules[q->module_count++] = m->module_id;
    }
    qsort(q->modules, q->module_count, sizeof(*q->modules), api_fn_u64_cmp);
    return 0;
}

static void api_fn_swap(api_fn_hit *a, api_fn_hit *b)
{
    api_fn_hit t = *a;
    *a = *b;
    *b = t;
}

/* Reorders a[0..n) so that a[nth] is what a sort would put there, with no
 * greater element before it and no smaller one after (quickselect; a hostile
 * key pattern that keeps it from converging ends in a sort of what is left). */
static void api_fn_nth(const api_fn_query *q, api_fn_hit *a, size_t n, size_t nth)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, i, j;
    int budget = 64;

    while (hi - lo > 8) {
        api_fn_hit pivot = a[lo + (hi - lo) / 2];
        if (budget-- == 0) {
            qsort_r(a + lo, (size_t)(hi - lo + 1), sizeof(*a), api_fn_cmp_r, (void *)q);
            return;
        }
        for (i = lo - 1, j = hi + 1;;) { /* Hoare: [lo, j] <= pivot <= [j + 1, hi] */
            do
                i++;
            while (api_fn_cmp(q, &a[i], &pivot) < 0);
            do
                j--;
            while (api_fn_cmp(q, &a[j], &pivot) > 0);
            if (i >= j)
                break;
            api_fn_swap(&a[i], &a[j]);
        }
        if ((ptrdiff_t)nth <= j)
            hi = j;
        else
            lo = j + 1;
    }
    for (i = lo + 1; i <= hi; i++) /* insertion sort of the last few */
        for (j = i; j > lo && api_fn_cmp(q, &a[j - 1], &a[j]) > 0; j--)
            api_fn_swap(&a[j - 1], &a[j]);
}

/* Offers one match. The best `keep` so far are kept: a match no better than the keep-th best seen (the threshold) is
 * dropped at once; the others are buffered, and a full buffer is cut back to
 * the best `keep` by a quickselect, which also gives the new threshold. Every
 * match thus costs one comparison, and the buffer's cuts O(matches) in all,
 * whatever order the matches come in. -1 out of memory. */
static int api_fn_offer(api_fn_query *q, const api_fn_hit *hit)
{
    q->matched++;
    if (q->has_threshold && api_fn_cmp(q, hit, &q->threshold) >= 0)
        return 0;
    if (q->hit_count == q->hit_cap) {
        size_t cap = q->keep + (q->keep > 4096 ? q->keep : 4096);
        api_fn_hit *bigger;
        if (q->hit_cap == cap) { /* full: cut back to the best keep */
            api_fn_nth(q, q->hits, q->hit_count, q->keep - 1);
            q->hit_count = q->keep;
            q->threshold = q->hits[q->keep - 1];
            q->has_threshold = 1;
            if (api_fn_cmp(q, hit, &q->threshold) >= 0)
                return 0;
        } else {
            cap = q->hit_cap ? q->hit_cap * 2 : 1024;
            if (cap > q->keep + (q->keep > 4096 ? q->keep : 4096))
                cap = q->keep + (q->keep > 4096 ? q->keep : 4096);
            bigger = realloc(q->hits, cap * sizeof(*bigger));
            if (!bigger)
                return -1;
            q->hits = bigger;
            q->hit_cap = cap;
        }
    }
    q->hits[q->hit_count++] = *hit;
    return 0;
}

/* 1 when f has a compilation at one of the tiers (bits of wire_tier): one of
 * those it keeps, or its last (a catch-up function's only, its tier unknown). */
static int api_fn_has_tier(const session_function *f, uint32_t tiers)
{
    uint32_t k;

    if (tiers & (1u << (f->tier < WIRE_TIER_COUNT ? f->tier : WIRE_TIER_UNKNOWN)))
        return 1;
    for (k = 0; k + 1 < f->compilation_count; k++) { /* the last is f->tier */
        uint32_t tier = session_function_compilation(f, k).tier;
        if (tiers & (1u << (tier < WIRE_TIER_COUNT ? tier : WIRE_TIER_UNKNOWN)))
            return 1;
    }
    return 0;
}

/* Function i of s, whose name the filter did not rule out (verdict: fnfilter.h;
 * FNFILTER_MAYBE without signatures), offered when it passes the rest. */
static int api_fn_consider(api_fn_query *q, session *s, size_t i, int verdict, int signatures,
                           size_t *work)
{
    const session_function *f = &s->functions[i];
    api_fn_hit hit;

    if (q->q && verdict == FNFILTER_MAYBE) { /* the name first: jitted is a cache line further */
        int in = !f->name_record ? 0
                 : signatures    ? fnfilter_candidate(&q->names, &s->names, &s->name_sigs, i,
                                                      f->name_record, work)
                                 : fnfilter_record(&q->names, f->name_record, work);
        if (in <= 0)
            return in;
    }
    if (!f->jitted)
        return 0; /* known only from stacks: not a compiled function */
    if (q->recompiled >= 0 && (f->jit_count > 1 || f->versions > 1) != q->recompiled)
        return 0;
    if (q->tiers && !api_fn_has_tier(f, q->tiers))
        return 0;
    if (q->origins) {
        unsigned origin = (f->flags & WIRE_FLAG_DYNAMIC) ? ORIGIN_DYNAMIC : ORIGIN_UNKNOWN;
        if (f->module_id && !(f->flags & WIRE_FLAG_DYNAMIC)) { /* runs of one module: asked once */
            if (f->module_id != q->last_module)
                q->last_module = f->module_id, q->last_origin = origin_of_function(s, f);
            origin = q->last_origin;
        }
        if (!(q->origins & (1u << origin)))
            return 0;
    }
    if (q->by_module &&
        !bsearch(&f->module_id, q->modules, q->module_count, sizeof(*q->modules), api_fn_u64_cmp))
        return 0;
    hit.key = api_fn_key(q, f);
    if (q->sort != FN_SORT_NAME)
        hit.name_prefix[0] = hit.name_prefix[1] = 0;
    else if (!fnsig_name_prefix(&s->name_sigs, i, hit.name_prefix)) /* its type part's, unread */
        fnname_prefix(f->name_record, hit.name_prefix);
    hit.function_id = f->function_id;
    hit.position = (uint32_t)i;
    return api_fn_offer(q, &hit);
}

/* One locked step: functions [from, to) of s, or fewer when the name filter
 * has done API_FN_WORK_STEP of work. Returns where it stopped, or -1 out of
 * memory. With a filter's signatures (fnfilter_next), the functions they do
 * not rule out are taken API_FN_BATCH at a time, their records and names
 * fetched ahead together: each is a cache miss or two, which then overlap. */
static ptrdiff_t api_fn_walk(api_fn_query *q, session *s, size_t from, size_t to)
{
    size_t i = from, work = 0, batch[API_FN_BATCH], n, k;
    int verdicts[API_FN_BATCH], verdict;

    if (!q->q || !fnfilter_uses_signatures(&q->names)) {
        for (; i < to && work < API_FN_WORK_STEP; i++)
            if (api_fn_consider(q, s, i, FNFILTER_MAYBE, 0, &work) < 0)
                return -1;
        return (ptrdiff_t)i;
    }
    while (i < to && work < API_FN_WORK_STEP) {
        for (n = 0; n < API_FN_BATCH && i < to && work < API_FN_WORK_STEP; i++) {
            i = fnfilter_next(&q->names, &s->names, &s->name_sigs, i, to, &verdict, &work);
            if (i == (size_t)-1)
                return -1;
            if (i >= to)
                break;
            if (verdict != FNFILTER_NO)
                batch[n] = i, verdicts[n++] = verdict;
        }
        for (k = 0; k < n; k++)
            __builtin_prefetch(&s->functions[batch[k]].name_record);
        for (k = 0; k < n; k++)
            if (verdicts[k] == FNFILTER_MAYBE && s->functions[batch[k]].name_record)
                __builtin_prefetch(s->functions[batch[k]].name_record);
        for (k = 0; k < n; k++)
            if (api_fn_consider(q, s, batch[k], verdicts[k], 1, &work) < 0)
                return -1;
    }
    return (ptrdiff_t)i;
}

static void api_fn_query_free(api_fn_query *q)
{
    free(q->hits);
    fnfilter_free(&q->names);
    free(q->modules);
    free((char *)q->q);
}

/* Lower-case copy of an ASCII filter (other bytes as they are). */
static char *api_fn_lower(const char *text)
{
    char *copy = strdup(text), *p;

    for (p = copy; p && *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p + 32);
    return copy;
}

/* A comma-separated list of names into bits: name_of(i) for i < count (tiers
 * case-insensitively: "tier1" is Tier1). 0, or -1 for an empty or unknown name. */
static int api_fn_names(const char *list, unsigned count, const char *(*name_of)(unsigned),
                        uint32_t *bits)
{
    const char *at = list, *end;
    unsigned i;

    *bits = 0;
    do {
        size_t n;
        end = strchr(at, ',');
        n = end ? (size_t)(end - at) : strlen(at);
        for (i = 0; i < count; i++)
            if (strlen(name_of(i)) == n && strncasecmp(name_of(i), at, n) == 0)
                break;
        if (n == 0 || i == count)
            return -1;
        *bits |= 1u << i;
        if (end)
            at = end + 1;
    } while (end);
    return 0;
}

static const char *api_fn_tier_name(unsigned tier) { return session_tier_name(tier); }

/* The functions query's filters beyond name and module: recompiled, tier,
 * origin (docs/API.md). 0, or an HTTP status with the reply set. */
static int api_fn_filters(api_call *c, api_fn_query *q)
{
    const api_request *req = c->req;
    const char *recompiled = req->arg(req->ctx, "recompiled"), *tier = req->arg(req->ctx, "tier");
    const char *origin = req->arg(req->ctx, "origin");

    q->recompiled = -1;
    if (recompiled && (strcmp(recompiled, "true") == 0 || strcmp(recompiled, "1") == 0))
        q->recompiled = 1;
    else if (recompiled && (strcmp(recompiled, "false") == 0 || strcmp(recompiled, "0") == 0))
        q->recompiled = 0;
    else if (recompiled)
        return api_fail(c, 400, "recompiled must be true or false");
    if (tier && api_fn_names(tier, WIRE_TIER_COUNT, api_fn_tier_name, &q->tiers) != 0)
        return api_fail(c, 400,
                        "tier must be a comma-separated list of Tier0, Instrumented Tier0, Tier1, "
                        "Instrumented Tier1, Tier1-OSR, FullOpts, MinOpts, unknown");
    if (origin && api_fn_names(origin, ORIGIN_COUNT, origin_name, &q->origins) != 0)
        return api_fail(c, 400,
                        "origin must be a comma-separated list of app, package, framework, sdk, "
                        "in_memory, dynamic, unknown");
    return 0;
}

int api_functions_list(api_call *c)
{
    const api_request *req = c->req;
    const char *q = req->arg(req->ctx, "q"), *mod = req->arg(req->ctx, "module");
    const char *sort = req->arg(req->ctx, "sort"), *order = req->arg(req->ctx, "order");
    api_fn_query query = {0};
    long long limit, offset;
    size_t total, at, i, end;
    ptrdiff_t reached;
    json_t *list = NULL;
    session *s;
    int status = 200;

    if (api_arg_int(req, "limit", 1, API_MAX_LIMIT, API_DEFAULT_LIMIT, &limit) != 0 ||
        api_arg_int(req, "offset", 0, 1LL << 40, 0, &offset) != 0)
        return api_fail(c, 400, "limit must be 1..10000 and offset >= 0");
    if (!sort || strcmp(sort, "time") == 0)
        query.sort = FN_SORT_TIME;
    else if (strcmp(sort, "jit_time") == 0)
        query.sort = FN_SORT_JIT_TIME, query.descending = 1;
    else if (strcmp(sort, "name") == 0)
        query.sort = FN_SORT_NAME;
    else if (strcmp(sort, "native_size") == 0)
        query.sort = FN_SORT_NATIVE, query.descending = 1;
    else if (strcmp(sort, "il_size") == 0)
        query.sort = FN_SORT_IL, query.descending = 1;
    else
        return api_fail(c, 400, "sort must be one of time, jit_time, name, native_size, il_size");
    if (order && strcmp(order, "asc") == 0)
        query.descending = 0;
    else if (order && strcmp(order, "desc") == 0)
        query.descending = 1;
    else if (order)
        return api_fail(c, 400, "order must be asc or desc");
    if ((q && strlen(q) > API_FN_MAX_FILTER) || (mod && strlen(mod) > API_FN_MAX_FILTER))
        return api_fail(c, 400, "filter too long (512 bytes at most)");
    if ((status = api_fn_filters(c, &query)) != 0)
        return status;
    status = 200;
    if (q && *q) {
        if (!(query.q = api_fn_lower(q)))
            return api_fail(c, 503, "out of memory");
        fnfilter_init(&query.names, query.q, strlen(query.q));
    }
    query.keep = (size_t)offset + (size_t)limit;
    if (!(s = api_lock_session(c))) {
        api_fn_query_free(&query);
        return 404;
    }
    sessions_pin(s);
    if (mod && *mod) {
        char *needle = api_fn_lower(mod);
        int rc = needle ? api_fn_modules(&query, s, needle, strlen(needle)) : -1;
        free(needle);
        if (rc != 0) {
            status = api_fail(c, 503, "out of memory");
            goto done;
        }
    }
    total = s->function_count; /* functions that come later are not in this answer */
    for (at = 0; at < total; at = (size_t)reached) {
        end = total - at > api_step_functions ? at + api_step_functions : total;
        if (at > 0)
            sessions_let_others_in();
        if ((reached = api_fn_walk(&query, s, at, end)) < 0) {
            status = api_fail(c, 503, "out of memory");
            goto done;
        }
    }
    /* the page in order, with the lock released (names stay put: pinned):
     * the best keep, of those the ones past the offset, and those sorted */
    sessions_unlock();
    if (query.hit_count > query.keep) {
        api_fn_nth(&query, query.hits, query.hit_count, query.keep - 1);
        query.hit_count = query.keep;
    }
    if ((size_t)offset < query.hit_count) {
        if (offset > 0)
            api_fn_nth(&query, query.hits, query.hit_count, (size_t)offset);
        qsort_r(query.hits + offset, query.hit_count - (size_t)offset, sizeof(*query.hits),
                api_fn_cmp_r, &query);
    }
    sessions_lock();
    list = json_array();
    for (i = (size_t)offset; i < query.hit_count && i < (size_t)offset + (size_t)limit; i++) {
        if (i > (size_t)offset && (i - (size_t)offset) % API_FN_ROWS_STEP == 0)
            sessions_let_others_in();
        json_array_append_new(list, view_function(s, &s->functions[query.hits[i].position]));
    }
    c->reply->json = json_pack("{s:I, s:I, s:I, s:o}", "total", (json_int_t)query.matched, "offset",
                               (json_int_t)offset, "limit", (json_int_t)limit, "functions", list);
done:
    sessions_unpin(s);
    sessions_unlock();
    api_fn_query_free(&query);
    return status;
}

/* ---- per-module totals ---- */

typedef struct api_module_sum {
    uint64_t module_id;
    uint64_t methods, jits, rejit, jit_ns, il, native, catchup;
} api_module_sum;

typedef struct api_module_sums {
    api_module_sum *items;
    size_t count, cap;
    idmap index; /* module_id + 1 -> item (ID 0: dynamic methods, no module) */
} api_module_sums;

static api_module_sum *api_module_sum_of(api_module_sums *t, uint64_t module_id)
{
    uint32_t i = idmap_get(&t->index, module_id + 1);

    if (i != IDMAP_MISSING)
        return &t->items[i];
    if (grow_reserve((void **)&t->items, &t->cap, t->count, sizeof(*t->items), 64,
                     SIZE_MAX / sizeof(*t->items), GROW_KEEP) != 0)
        return NULL;
    if (idmap_put(&t->index, module_id + 1, (uint32_t)t->count) != 0)
        return NULL;
    memset(&t->items[t->count], 0, sizeof(t->items[0]));
    t->items[t->count].module_id = module_id;
    return &t->items[t->count++];
}

static int api_module_sum_walk(api_module_sums *t, const session *s, size_t from, size_t to)
{
    api_module_sum *m = NULL;
    size_t i;

    for (i = from; i < to; i++) {
        const session_function *f = &s->functions[i];
        if (!f->jitted)
            continue;
        if ((!m || m->module_id != f->module_id) && !(m = api_module_sum_of(t, f->module_id)))
            return -1;
        m->methods++;
        m->jits += f->jit_count;
        m->rejit += f->jit_count > 1 || f->versions > 1;
        m->jit_ns += f->jit_time_total_ns;
        m->il += f->il_size;
        m->native += f->native_size;
        m->catchup += (f->flags & WIRE_FLAG_CATCHUP) != 0;
    }
    return 0;
}

/* Sums are merged per module name: sorted by name, then by JIT time. */
typedef struct api_module_row {
    const char *name; /* NULL: dynamic methods, or a module never described */
    api_module_sum sum;
} api_module_row;

static int api_module_name_cmp(const void *a, const void *b)
{
    const char *x = ((const api_module_row *)a)->name, *y = ((const api_module_row *)b)->name;
    return strcmp(x ? x : "", y ? y : "");
}

static int api_module_time_cmp(const void *a, const void *b)
{
    uint64_t x = ((const api_module_row *)a)->sum.jit_ns,
             y = ((const api_module_row *)b)->sum.jit_ns;
    int d = (x < y) - (x > y);
    return d ? d : api_module_name_cmp(a, b);
}

/* GET /api/sessions/{id}/modules/totals: what the dashboard's "By module" tab
 * shows, summed on the server: one row per module name (a module loaded twice,
 * e.g. a collectible one, is one row; its IDs are listed), most JIT time first. */
int api_module_totals(api_call *c)
{
    api_module_sums t = {0};
    api_module_row *rows = NULL;
    size_t total, at, end, i, n = 0, functions = 0;
    json_t *list;
    session *s;
    int status = 200;

    if (!(s = api_lock_session(c)))
        return 404;
    sessions_pin(s);
    total = s->function_count;
    for (at = 0; at < total; at = end) {
        end = total - at > api_step_functions ? at + api_step_functions : total;
        if (at > 0)
            sessions_let_others_in();
        if (api_module_sum_walk(&t, s, at, end) != 0) {
            status = api_fail(c, 503, "out of memory");
            goto done;
        }
    }
    if (!(rows = malloc((t.count + 1) * sizeof(*rows)))) {
        status = api_fail(c, 503, "out of memory");
        goto done;
    }
    for (i = 0; i < t.count; i++) {
        rows[i].name = t.items[i].module_id ? session_module_name(s, t.items[i].module_id) : NULL;
        rows[i].sum = t.items[i];
    }
    qsort(rows, t.count, sizeof(*rows), api_module_name_cmp);
    for (i = 0; i < t.count; i++) { /* merge rows of one name into rows[n] */
        if (n > 0 && api_module_name_cmp(&rows[n - 1], &rows[i]) == 0) {
            api_module_sum *m = &rows[n - 1].sum, *o = &rows[i].sum;
            m->methods += o->methods, m->jits += o->jits, m->rejit += o->rejit;
            m->jit_ns += o->jit_ns, m->il += o->il, m->native += o->native;
            m->catchup += o->catchup;
        } else {
            rows[n++] = rows[i];
        }
    }
    qsort(rows, n, sizeof(*rows), api_module_time_cmp);
    list = json_array();
    for (i = 0; i < n; i++) {
        const api_module_sum *m = &rows[i].sum;
        functions += m->methods;
        json_array_append_new(
            list, json_pack("{s:o, s:I, s:o, s:I, s:o, s:o, s:o, s:I}", "module",
                            view_str(rows[i].name), "methods", (json_int_t)m->methods, "jits",
                            view_count(m->jits), "rejit", (json_int_t)m->rejit, "jit_ns",
                            view_count(m->jit_ns), "il", view_count(m->il), "native",
                            view_count(m->native), "catchup", (json_int_t)m->catchup));
    }
    c->reply->json = json_pack("{s:I, s:o}", "functions", (json_int_t)functions, "modules", list);
done:
    sessions_unpin(s);
    sessions_unlock();
    free(rows);
    free(t.items);
    idmap_free(&t.index);
    return status;
}
