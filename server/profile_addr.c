/* profile_addr.c -- a profile's frames by code address (see profile_addr.h). */
#include "profile_addr.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

static uint64_t profile_addr_hash(const uint64_t *seq, uint32_t depth)
{
    uint64_t h = 0x84222325cbf29ce4ull ^ depth;
    uint32_t i;

    for (i = 0; i < depth; i++) {
        h ^= seq[i];
        h *= 0x100000001b3ull;
        h ^= h >> 31;
    }
    return h;
}

static int profile_addr_grow_index(profile_addr *a)
{
    size_t cap = a->index_cap ? a->index_cap * 2 : 1024, i;
    uint32_t *index = calloc(cap, sizeof(*index));

    if (!index)
        return -1;
    for (i = 0; i < a->stack_count; i++) {
        size_t slot = (size_t)a->stacks[i].hash & (cap - 1);
        while (index[slot])
            slot = (slot + 1) & (cap - 1);
        index[slot] = (uint32_t)i + 1;
    }
    free(a->index);
    a->index = index;
    a->index_cap = cap;
    return 0;
}

/* The id of the address stack seq[0..depth), made when new; NONE when it does not fit. */
static uint32_t profile_addr_intern(profile_addr *a, const uint64_t *seq, uint32_t depth)
{
    uint64_t h = profile_addr_hash(seq, depth);
    size_t slot;
    profile_addr_stack *st;

    if (a->index_cap) {
        for (slot = (size_t)h & (a->index_cap - 1); a->index[slot];
             slot = (slot + 1) & (a->index_cap - 1)) {
            const profile_addr_stack *c = &a->stacks[a->index[slot] - 1];
            if (c->hash == h && c->depth == depth &&
                memcmp(&a->frames[c->first], seq, depth * sizeof(*seq)) == 0)
                return a->index[slot] - 1;
        }
    }
    if (!depth || a->stack_count >= PROFILE_ADDR_MAX_STACKS ||
        a->frame_count + depth > PROFILE_ADDR_MAX_FRAMES ||
        ((a->stack_count + 1) * 2 > a->index_cap && profile_addr_grow_index(a) != 0) ||
        grow_reserve((void **)&a->stacks, &a->stack_cap, a->stack_count, sizeof(*a->stacks), 256,
                     PROFILE_ADDR_MAX_STACKS, GROW_KEEP) != 0 ||
        grow_reserve((void **)&a->frames, &a->frame_cap, a->frame_count + depth - 1,
                     sizeof(*a->frames), 1024, PROFILE_ADDR_MAX_FRAMES, GROW_KEEP) != 0)
        return PROFILE_ADDR_NONE;
    st = &a->stacks[a->stack_count];
    st->hash = h;
    st->first = (uint32_t)a->frame_count;
    st->depth = depth;
    memcpy(&a->frames[a->frame_count], seq, depth * sizeof(*seq));
    a->frame_count += depth;
    for (slot = (size_t)h & (a->index_cap - 1); a->index[slot];
         slot = (slot + 1) & (a->index_cap - 1))
        ;
    a->index[slot] = (uint32_t)a->stack_count + 1;
    return (uint32_t)a->stack_count++;
}

int profile_addr_set(profile_addr *a, size_t sample, const uint64_t *addresses, uint32_t depth)
{
    uint32_t id = PROFILE_ADDR_NONE, k;
    int any = 0;

    for (k = 0; k < depth && !any; k++)
        any = addresses[k] != 0;
    if (sample < a->sample_count)
        return -1; /* set once, in order */
    if (grow_reserve((void **)&a->by_sample, &a->sample_cap, sample, sizeof(*a->by_sample), 1024,
                     (size_t)1 << 20, GROW_KEEP) != 0) {
        a->dropped++;
        return -1;
    }
    while (a->sample_count < sample) /* samples before it without addresses */
        a->by_sample[a->sample_count++] = PROFILE_ADDR_NONE;
    if (any && (id = profile_addr_intern(a, addresses, depth)) == PROFILE_ADDR_NONE)
        a->dropped++;
    a->by_sample[a->sample_count++] = id;
    return any && id == PROFILE_ADDR_NONE ? -1 : 0;
}

const uint64_t *profile_addr_get(const profile_addr *a, size_t sample, uint32_t *depth)
{
    uint32_t id;

    *depth = 0;
    if (sample >= a->sample_count || (id = a->by_sample[sample]) == PROFILE_ADDR_NONE ||
        id >= a->stack_count)
        return NULL;
    *depth = a->stacks[id].depth;
    return &a->frames[a->stacks[id].first];
}

size_t profile_addr_bytes(const profile_addr *a)
{
    return a->frame_cap * sizeof(*a->frames) + a->stack_cap * sizeof(*a->stacks) +
           a->index_cap * sizeof(*a->index) + a->sample_cap * sizeof(*a->by_sample);
}

void profile_addr_free(profile_addr *a)
{
    free(a->frames);
    free(a->stacks);
    free(a->index);
    free(a->by_sample);
    memset(a, 0, sizeof(*a));
}
