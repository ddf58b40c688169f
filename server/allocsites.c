/* allocsites.c -- allocation samples by type and stack (see allocsites.h). */
#include "allocsites.h"

#include <stdlib.h>
#include <string.h>

static uint64_t alloc_hash_bytes(const void *p, size_t n, uint64_t h)
{
    const uint8_t *b = p;

    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull; /* FNV-1a */
    return h;
}

/* Grows an index to twice its entries' room when half full; rehash(i) gives
 * entry i's hash. 0 or -1. */
static int alloc_index_grow(uint32_t **index, uint32_t *cap, uint32_t count,
                            uint64_t (*hash_of)(const alloc_state *, uint32_t),
                            const alloc_state *a, size_t *held)
{
    uint32_t n = *cap ? *cap * 2 : 64, i, *fresh;

    if ((uint64_t)(count + 1) * 2 <= *cap)
        return 0;
    if (!(fresh = calloc(n, sizeof(*fresh))))
        return -1;
    for (i = 0; i < count; i++) {
        uint32_t k = (uint32_t)(hash_of(a, i) & (n - 1));
        while (fresh[k])
            k = (k + 1) & (n - 1);
        fresh[k] = i + 1;
    }
    *held += (size_t)(n - *cap) * sizeof(*fresh);
    free(*index);
    *index = fresh;
    *cap = n;
    return 0;
}

static uint64_t alloc_type_hash(const alloc_state *a, uint32_t i)
{
    const char *name = a->types[i].name;
    return alloc_hash_bytes(name, strlen(name), 0xcbf29ce484222325ull);
}

static uint64_t alloc_stack_hash(const alloc_state *a, uint32_t i) { return a->stacks[i].hash; }

/* The type named name (len bytes), made the first time; -1 when full or out of memory. */
static long alloc_type_at(alloc_state *a, const char *name, size_t len)
{
    uint64_t h = alloc_hash_bytes(name, len, 0xcbf29ce484222325ull);
    uint32_t k;
    alloc_type *t;

    if (a->type_index_cap) {
        for (k = (uint32_t)(h & (a->type_index_cap - 1)); a->type_index[k];
             k = (k + 1) & (a->type_index_cap - 1)) {
            t = &a->types[a->type_index[k] - 1];
            if (strlen(t->name) == len && memcmp(t->name, name, len) == 0)
                return (long)(a->type_index[k] - 1);
        }
    }
    if (a->type_count >= ALLOC_TYPES_MAX)
        return -1;
    if (a->type_count == a->type_cap) {
        uint32_t n = a->type_cap ? a->type_cap * 2 : 16;
        alloc_type *grown = realloc(a->types, n * sizeof(*grown));
        if (!grown)
            return -1;
        a->held += (size_t)(n - a->type_cap) * sizeof(*grown);
        a->types = grown, a->type_cap = n;
    }
    t = &a->types[a->type_count];
    memset(t, 0, sizeof(*t));
    if (!(t->name = strndup(name, len)))
        return -1;
    a->held += len + 1;
    a->type_count++;
    if (alloc_index_grow(&a->type_index, &a->type_index_cap, a->type_count - 1, alloc_type_hash, a,
                         &a->held) != 0) {
        free(t->name);
        a->type_count--;
        return -1;
    }
    for (k = (uint32_t)(h & (a->type_index_cap - 1)); a->type_index[k];
         k = (k + 1) & (a->type_index_cap - 1))
        ;
    a->type_index[k] = a->type_count;
    return (long)(a->type_count - 1);
}

/* The (type, stack) entry of r, made the first time; NULL when full or out of memory. */
static alloc_stack *alloc_stack_at(alloc_state *a, uint32_t type, const wire_record *r)
{
    uint32_t depth = r->stack_frame_count, i, k;
    uint64_t ids[WIRE_ALLOC_MAX_FRAMES], h;
    alloc_stack *st;

    for (i = 0; i < depth && i < WIRE_ALLOC_MAX_FRAMES; i++)
        ids[i] = wire_record_frame(r, i).function_id;
    depth = i;
    h = alloc_hash_bytes(&type, sizeof(type), 0xcbf29ce484222325ull);
    h = alloc_hash_bytes(ids, depth * sizeof(ids[0]), h);
    if (a->stack_index_cap) {
        for (k = (uint32_t)(h & (a->stack_index_cap - 1)); a->stack_index[k];
             k = (k + 1) & (a->stack_index_cap - 1)) {
            st = &a->stacks[a->stack_index[k] - 1];
            if (st->hash == h && st->type == type && st->depth == depth &&
                memcmp(st->frames, ids, depth * sizeof(ids[0])) == 0)
                return st;
        }
    }
    if (a->stack_count >= ALLOC_STACKS_MAX)
        return NULL;
    if (a->stack_count == a->stack_cap) {
        uint32_t n = a->stack_cap ? a->stack_cap * 2 : 64;
        alloc_stack *grown = realloc(a->stacks, n * sizeof(*grown));
        if (!grown)
            return NULL;
        a->held += (size_t)(n - a->stack_cap) * sizeof(*grown);
        a->stacks = grown, a->stack_cap = n;
    }
    st = &a->stacks[a->stack_count];
    memset(st, 0, sizeof(*st));
    st->type = type, st->depth = depth, st->hash = h;
    if (depth && !(st->frames = malloc(depth * sizeof(ids[0]))))
        return NULL;
    if (depth)
        memcpy(st->frames, ids, depth * sizeof(ids[0]));
    a->held += depth * sizeof(ids[0]);
    a->stack_count++;
    if (alloc_index_grow(&a->stack_index, &a->stack_index_cap, a->stack_count - 1, alloc_stack_hash,
                         a, &a->held) != 0) {
        free(st->frames);
        a->stack_count--;
        return NULL;
    }
    for (k = (uint32_t)(h & (a->stack_index_cap - 1)); a->stack_index[k];
         k = (k + 1) & (a->stack_index_cap - 1))
        ;
    a->stack_index[k] = a->stack_count;
    return st;
}

/* What one sample stands for (allocsites.h). */
static void alloc_estimate(const wire_allocation *w, double *bytes, double *objects)
{
    double size = (double)w->object_size;

    if (w->source == WIRE_ALLOC_SAMPLED)
        *bytes = (double)(WIRE_ALLOC_SAMPLING_MEAN - 1) +
                 (double)(w->object_size -
                          (w->weight < w->object_size ? w->weight : w->object_size));
    else
        *bytes = (double)w->weight > size ? (double)w->weight : size;
    *objects = *bytes / size;
}

uint32_t alloc_seconds_kept(const alloc_state *a, uint32_t *first)
{
    if (a->second_total <= a->second_cap) {
        *first = 0;
        return (uint32_t)a->second_total;
    }
    *first = (uint32_t)(a->second_total % a->second_cap);
    return a->second_cap;
}

void alloc_second_estimate(const alloc_second *sec, double *bytes, double *objects)
{
    double scale = sec->samples ? (double)(sec->samples + sec->unsent) / (double)sec->samples : 1.0;

    *bytes = sec->bytes * scale, *objects = sec->objects * scale;
}

static void alloc_second_log(eventlog *log, const alloc_second *sec)
{
    double bytes, objects;

    alloc_second_estimate(sec, &bytes, &objects);
    eventlog_append(log, WIRE_ALLOCATION, 0, sec->second * 1000000000, (uint64_t)(objects + 0.5),
                    (uint64_t)(bytes + 0.5),
                    sec->samples > UINT32_MAX ? UINT32_MAX : (uint32_t)sec->samples);
}

/* The newest second (NULL: none yet). */
static alloc_second *alloc_second_newest(alloc_state *a)
{
    uint32_t first, kept = alloc_seconds_kept(a, &first);

    return kept ? &a->seconds[(first + kept - 1) % a->second_cap] : NULL;
}

/* A record's unsent samples: skipped since the record before it, so mostly in
 * the newest second (the agent's cap is per second: a capped second's rest is
 * carried by the next second's first record); before any second, kept for
 * the first. */
static void alloc_second_unsent(alloc_state *a, uint32_t unsent)
{
    alloc_second *newest = alloc_second_newest(a);

    if (newest)
        newest->unsent += unsent;
    else
        a->unsent_before += unsent;
}

/* A count-only record at when_ns: the newest second, when over, is closed. */
static void alloc_second_tick(alloc_state *a, eventlog *log, int64_t when_ns)
{
    const alloc_second *newest = alloc_second_newest(a);

    if (newest && !a->newest_closed && when_ns / 1000000000 > newest->second) {
        alloc_second_log(log, newest);
        a->newest_closed = 1;
    }
}

/* The second of when_ns, opened when it is later than the newest (the newest
 * then closed: logged); NULL when out of memory. */
static alloc_second *alloc_second_at(alloc_state *a, eventlog *log, int64_t when_ns)
{
    int64_t sec = when_ns >= 0 ? when_ns / 1000000000 : -((-when_ns + 999999999) / 1000000000);
    uint32_t first, kept = alloc_seconds_kept(a, &first), i;
    alloc_second *newest = kept ? &a->seconds[(first + kept - 1) % a->second_cap] : NULL, *at;

    if (newest && sec <= newest->second) {
        for (i = kept; i-- > 0;) {
            at = &a->seconds[(first + i) % a->second_cap];
            if (at->second <= sec)
                return at->second == sec ? at : &a->seconds[(first + i + 1) % a->second_cap];
        }
        return &a->seconds[first];
    }
    if (a->second_total == a->second_cap && a->second_cap < ALLOC_SECONDS_KEEP) {
        uint32_t n = a->second_cap ? a->second_cap * 2 : 16;
        alloc_second *grown = realloc(a->seconds, n * sizeof(*grown));
        if (!grown)
            return NULL;
        a->held += (size_t)(n - a->second_cap) * sizeof(*grown);
        a->seconds = grown, a->second_cap = n;
        newest = kept ? &a->seconds[kept - 1] : NULL;
    }
    if (newest && !a->newest_closed)
        alloc_second_log(log, newest);
    a->newest_closed = 0;
    at = &a->seconds[a->second_total % a->second_cap];
    memset(at, 0, sizeof(*at));
    at->second = sec;
    at->unsent = a->unsent_before;
    a->unsent_before = 0;
    a->second_total++;
    return at;
}

int alloc_sample(alloc_state *a, eventlog *log, const wire_record *r, int64_t when_ns)
{
    alloc_second *sec;
    const wire_allocation *w = &r->u.allocation;
    double bytes, objects;
    alloc_stack *st;
    long type;

    if (w->kind == WIRE_ALLOC_KIND_UNSENT_ONLY) {
        a->unsent += w->unsent;
        alloc_second_unsent(a, w->unsent);
        alloc_second_tick(a, log, when_ns);
        return 0;
    }
    alloc_estimate(w, &bytes, &objects);
    a->samples++;
    a->unsent += w->unsent;
    alloc_second_unsent(a, w->unsent);
    a->source = w->source;
    a->bytes += bytes, a->objects += objects;
    if (!(sec = alloc_second_at(a, log, when_ns)))
        return -1;
    sec->samples++;
    sec->bytes += bytes, sec->objects += objects;
    type = alloc_type_at(a, r->strings[0].text, r->strings[0].length);
    if (type < 0) {
        a->types_dropped++;
        return a->type_count >= ALLOC_TYPES_MAX ? 0 : -1;
    }
    a->types[type].samples++;
    a->types[type].bytes += bytes, a->types[type].objects += objects;
    if (!(st = alloc_stack_at(a, (uint32_t)type, r))) {
        a->stacks_dropped++;
        return a->stack_count >= ALLOC_STACKS_MAX ? 0 : -1;
    }
    st->samples++;
    st->bytes += bytes, st->objects += objects;
    return 0;
}

double alloc_scale(const alloc_state *a)
{
    return a->samples ? (double)(a->samples + a->unsent) / (double)a->samples : 1.0;
}

uint64_t alloc_need(const alloc_state *a, const wire_record *r)
{
    /* a new type and stack, and a doubling of each table and its index */
    return (uint64_t)r->stack_frame_count * 8u + r->strings[0].length + 1u +
           (uint64_t)(a->type_cap ? a->type_cap : 16) * sizeof(alloc_type) +
           (uint64_t)(a->stack_cap ? a->stack_cap : 64) * sizeof(alloc_stack) +
           (uint64_t)(a->type_index_cap + a->stack_index_cap + 128) * 4u +
           (uint64_t)(a->second_cap ? a->second_cap : 16) * sizeof(alloc_second);
}

void alloc_free(alloc_state *a)
{
    uint32_t i;

    for (i = 0; i < a->type_count; i++)
        free(a->types[i].name);
    for (i = 0; i < a->stack_count; i++)
        free(a->stacks[i].frames);
    free(a->types);
    free(a->type_index);
    free(a->stacks);
    free(a->stack_index);
    free(a->seconds);
    memset(a, 0, sizeof(*a));
}
