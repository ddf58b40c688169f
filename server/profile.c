/* profile.c -- folding sample walks into a deduplicated profile (see profile.h). */
#include "profile.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "eventlog.h"
#include "wire_decode.h"

/* ---- suspension histogram: exact below 16 ns, then 16 buckets per power of two */

static unsigned profile_bucket(uint64_t v)
{
    unsigned b;

    if (v < 16)
        return (unsigned)v;
    b = 63u - (unsigned)__builtin_clzll(v); /* >= 4 */
    return 16u + (b - 4u) * 16u + (unsigned)((v >> (b - 4u)) & 15u);
}

static uint64_t profile_bucket_low(unsigned i, uint64_t *width)
{
    unsigned b, sub;

    if (i < 16) {
        *width = 1;
        return i;
    }
    b = (i - 16u) / 16u + 4u;
    sub = (i - 16u) % 16u;
    *width = 1ull << (b - 4u);
    return (uint64_t)(16u + sub) << (b - 4u);
}

uint64_t profile_suspend_p50(const profile_state *p)
{
    uint64_t total = 0, seen = 0, width, low;
    unsigned i;

    for (i = 0; p->suspend_hist && i < PROFILE_HIST_BUCKETS; i++)
        total += p->suspend_hist[i];
    if (!total)
        return 0;
    for (i = 0; i < PROFILE_HIST_BUCKETS; i++) {
        seen += p->suspend_hist[i];
        if (seen * 2 >= total)
            break;
    }
    low = profile_bucket_low(i, &width);
    low += width / 2; /* the middle of the bucket, never above the largest seen */
    return low < p->suspend_ns_max ? low : p->suspend_ns_max;
}

/* ---- status ------------------------------------------------------------------- */

static void profile_clear_data(profile_state *p)
{
    free(p->samples);
    free(p->stacks);
    free(p->frames);
    free(p->index);
    idmap_free(&p->thread_index);
    free(p->threads);
    free(p->cpu.symbols);
    free(p->cpu.text);
    free(p->suspend_hist);
    profile_heat_free(&p->heat);
    profile_addr_free(&p->addr);
}

void profile_free(profile_state *p)
{
    profile_clear_data(p);
    memset(p, 0, sizeof(*p));
}

size_t profile_block_bytes(const profile_state *p)
{
    return p->suspend_hist ? PROFILE_HIST_BUCKETS * sizeof(*p->suspend_hist) : 0;
}

void profile_start(profile_state *p, uint32_t hz, int64_t now_ns)
{
    uint32_t number = p->number;

    profile_free(p);
    p->number = number + 1;
    p->state = PROFILE_RUNNING;
    p->requested_millihz = p->effective_millihz = hz * 1000u;
    p->budget_permille = WIRE_PROFILE_DEFAULT_BUDGET_PERMILLE;
    p->started_ns = now_ns;
}

void profile_stop(profile_state *p, int64_t now_ns)
{
    if (p->state == PROFILE_RUNNING) {
        p->state = PROFILE_STOPPED;
        p->stopped_ns = now_ns;
    }
}

void profile_apply_status(profile_state *p, eventlog *log, const wire_record *r, int64_t when_ns)
{
    const wire_profile_status *st = &r->u.profile_status;

    if (p->mode == PROFILE_MODE_CPU)
        return; /* the agent's sampler does not feed a CPU profile: a wall profile's late word */
    switch (st->state) {
    case WIRE_PROFILE_STARTED:
        p->state = PROFILE_RUNNING;
        p->stopped_ns = 0;
        p->hresult = 0;
        if (!p->started_ns)
            p->started_ns = when_ns;
        break;
    case WIRE_PROFILE_STOPPED: /* also when this server did not start it */
        if (p->state == PROFILE_RUNNING || !p->stopped_ns)
            p->stopped_ns = when_ns;
        p->state = PROFILE_STOPPED;
        break;
    case WIRE_PROFILE_REFUSED:
        p->state = PROFILE_STOPPED;
        p->stopped_ns = when_ns;
        p->hresult = st->hresult;
        break;
    default: /* WIRE_PROFILE_RATE: the budget moved the rate */ break;
    }
    if (st->requested_millihz)
        p->requested_millihz = st->requested_millihz;
    if (st->effective_millihz || st->state == WIRE_PROFILE_RATE)
        p->effective_millihz = st->effective_millihz;
    if (st->budget_permille)
        p->budget_permille = st->budget_permille;
    p->agent_samples = st->samples;
    p->agent_suspended_ns = st->suspended_ns;
    profile_log_change(log, when_ns, p->requested_millihz, p->budget_permille, p->effective_millihz,
                       st->state);
}

void profile_log_change(eventlog *log, int64_t when_ns, uint64_t requested_millihz,
                        uint32_t budget_permille, uint64_t effective_millihz, uint32_t change)
{
    eventlog_append(log, WIRE_PROFILE_STATUS, 0, when_ns,
                    requested_millihz | (uint64_t)budget_permille << 32, effective_millihz, change);
}

const char *profile_mode_name(int mode) { return mode == PROFILE_MODE_CPU ? "cpu" : "wall"; }

const char *profile_state_name(int state)
{
    switch (state) {
    case PROFILE_RUNNING: return "running";
    case PROFILE_STOPPED: return "stopped";
    default: return "idle";
    }
}

/* ---- samples -------------------------------------------------------------------- */

/* The thread's index, created on first sight; -1 when it cannot be kept.
 * Threads are told apart by the session's row when the walk had one (a
 * ThreadID alone may be two threads), else by ThreadID; a row number cannot
 * be an ID (those are user-space addresses, below 2^63). */
static int profile_thread_index(profile_state *p, const stacks_thread *from)
{
    uint64_t key = from->thread_row ? (1ull << 63) | from->thread_row : from->thread_id;
    uint32_t i = idmap_get(&p->thread_index, key);
    profile_thread *t;

    if (i != IDMAP_MISSING) {
        if (from->os_thread_id)
            p->threads[i].os_thread_id = from->os_thread_id;
        return (int)i;
    }
    if (key == 0 ||
        grow_reserve((void **)&p->threads, &p->thread_cap, p->thread_count, sizeof(*p->threads),
                     256, PROFILE_MAX_THREADS, GROW_KEEP) != 0 ||
        idmap_put(&p->thread_index, key, (uint32_t)p->thread_count) != 0)
        return -1;
    t = &p->threads[p->thread_count];
    t->thread_id = from->thread_id;
    t->os_thread_id = from->os_thread_id;
    t->thread_row = from->thread_row;
    t->name = 0;
    t->reserved = 0;
    return (int)p->thread_count++;
}

static uint64_t profile_hash(const uint64_t *seq, uint32_t depth)
{
    uint64_t h = 0xcbf29ce484222325ull ^ depth;
    uint32_t i;

    for (i = 0; i < depth; i++) {
        h ^= seq[i];
        h *= 0x100000001b3ull;
        h ^= h >> 29;
    }
    return h;
}

/* Rebuilds the hash index with room for twice the stacks (power of two). */
static int profile_grow_index(profile_state *p)
{
    size_t cap = p->index_cap ? p->index_cap * 2 : 1024, i;
    uint32_t *index = calloc(cap, sizeof(*index));

    if (!index)
        return -1;
    for (i = 0; i < p->stack_count; i++) {
        size_t slot = (size_t)p->stacks[i].hash & (cap - 1);
        while (index[slot])
            slot = (slot + 1) & (cap - 1);
        index[slot] = (uint32_t)i + 1;
    }
    free(p->index);
    p->index = index;
    p->index_cap = cap;
    return 0;
}

int profile_stack_intern(profile_state *p, const uint64_t *seq, uint32_t depth, int *created)
{
    uint64_t h = profile_hash(seq, depth);
    size_t slot;
    profile_stack *st;

    *created = 0;
    if (p->index_cap) {
        for (slot = (size_t)h & (p->index_cap - 1); p->index[slot];
             slot = (slot + 1) & (p->index_cap - 1)) {
            const profile_stack *c = &p->stacks[p->index[slot] - 1];
            if (c->hash == h && c->depth == depth &&
                memcmp(&p->frames[c->first], seq, depth * sizeof(*seq)) == 0)
                return (int)(p->index[slot] - 1);
        }
    }
    if (p->stack_count >= PROFILE_MAX_STACKS || p->frame_count + depth > PROFILE_MAX_FRAMES ||
        ((p->stack_count + 1) * 2 > p->index_cap && profile_grow_index(p) != 0) ||
        grow_reserve((void **)&p->stacks, &p->stack_cap, p->stack_count, sizeof(*p->stacks), 256,
                     PROFILE_MAX_STACKS, GROW_KEEP) != 0 ||
        (depth && grow_reserve((void **)&p->frames, &p->frame_cap, p->frame_count + depth - 1,
                               sizeof(*p->frames), 256, PROFILE_MAX_FRAMES, GROW_KEEP) != 0)) {
        p->dropped_stacks++;
        return -1;
    }
    st = &p->stacks[p->stack_count];
    st->hash = h;
    st->first = (uint32_t)p->frame_count;
    st->depth = depth;
    if (depth)
        memcpy(&p->frames[p->frame_count], seq, depth * sizeof(*seq));
    p->frame_count += depth;
    for (slot = (size_t)h & (p->index_cap - 1); p->index[slot];
         slot = (slot + 1) & (p->index_cap - 1))
        ;
    p->index[slot] = (uint32_t)p->stack_count + 1;
    *created = 1;
    return (int)p->stack_count++;
}

/* The wall-clock milliseconds of a sample after the profile's base (set by
 * its first sample). */
static uint32_t profile_t_ms(profile_state *p, int64_t when_ns)
{
    uint64_t ms;

    if (!p->has_base) {
        p->base_ns = when_ns;
        p->has_base = 1;
    }
    ms = when_ns > p->base_ns ? (uint64_t)(when_ns - p->base_ns) / 1000000u : 0;
    return ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
}

int profile_add_sample(profile_state *p, int64_t when_ns, uint32_t thread, uint32_t stack)
{
    uint32_t t_ms = profile_t_ms(p, when_ns);

    if (thread >= p->thread_count || stack >= p->stack_count ||
        p->sample_count >= PROFILE_MAX_SAMPLES ||
        grow_reserve((void **)&p->samples, &p->sample_cap, p->sample_count, sizeof(*p->samples),
                     256, PROFILE_MAX_SAMPLES, GROW_KEEP) != 0) {
        p->dropped_samples++;
        return -1;
    }
    p->samples[p->sample_count++] = (profile_sample){
        .t_ms = t_ms, .thread = (uint16_t)thread, .stack = (uint16_t)stack};
    return 0;
}

static void profile_note_suspension(profile_state *p, uint64_t suspend_ns)
{
    p->suspended_ns_total += suspend_ns;
    if (suspend_ns > p->suspend_ns_max)
        p->suspend_ns_max = suspend_ns;
    if (!p->suspend_hist) /* without memory for it the median is only not known */
        p->suspend_hist = calloc(PROFILE_HIST_BUCKETS, sizeof(*p->suspend_hist));
    if (p->suspend_hist)
        p->suspend_hist[profile_bucket(suspend_ns)]++;
}

/* A walk's managed frames by address for the heat (profile_heat.h): the
 * leaf's where the runtime stopped the thread, a caller's the last byte of
 * its call (the return address - 1). */
static void profile_walk_heat(profile_state *p, const stacks_walk *w, const stacks_thread *t)
{
    uint64_t at[WIRE_STACK_MAX_FRAMES];
    uint32_t k, n = t->frame_count < WIRE_STACK_MAX_FRAMES ? t->frame_count : WIRE_STACK_MAX_FRAMES;

    for (k = 0; k < n; k++) {
        const wire_stack_frame *fr = &w->frames[t->first_frame + k];
        at[k] = !fr->function_id || !fr->ip ? 0 : k == 0 ? fr->ip : fr->ip - 1;
    }
    profile_heat_sample(&p->heat, at, n, 1);
    (void)profile_addr_set(&p->addr, p->sample_count - 1, at, n); /* not kept: counted */
}

void profile_add_walk(profile_state *p, const stacks_walk *w, uint32_t effective_millihz)
{
    uint64_t seq[PROFILE_MAX_DEPTH];
    uint32_t i, k, t_ms;

    if (p->mode != PROFILE_MODE_WALL)
        return; /* an agent's walk in the middle of a CPU profile is not one of its samples */
    p->walks++;
    profile_note_suspension(p, w->suspend_ns);
    if (effective_millihz)
        p->effective_millihz = effective_millihz;
    t_ms = profile_t_ms(p, w->time_ns);
    for (i = 0; i < w->thread_count; i++) {
        const stacks_thread *t = &w->threads[i];
        uint32_t depth = 0;
        int thread, stack, created;

        p->thread_samples++;
        for (k = 0; k < t->frame_count && depth < WIRE_STACK_MAX_FRAMES; k++)
            seq[depth++] = w->frames[t->first_frame + k].function_id;
        if (t->flags & WIRE_STACK_TRUNCATED)
            seq[depth++] = PROFILE_FRAME_TRUNCATED;
        else if (stacks_thread_native_only(t))
            seq[depth++] = 0; /* in native code only: one [native] run, no failure */
        if (p->sample_count >= PROFILE_MAX_SAMPLES || (thread = profile_thread_index(p, t)) < 0 ||
            (stack = profile_stack_intern(p, seq, depth, &created)) < 0 ||
            grow_reserve((void **)&p->samples, &p->sample_cap, p->sample_count, sizeof(*p->samples),
                         256, PROFILE_MAX_SAMPLES, GROW_KEEP) != 0) {
            p->dropped_samples++;
            continue;
        }
        p->samples[p->sample_count++] = (profile_sample){
            .t_ms = t_ms, .thread = (uint16_t)thread, .stack = (uint16_t)stack};
        profile_walk_heat(p, w, t);
    }
}
