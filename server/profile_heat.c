/* profile_heat.c -- a profile's samples by code address (see profile_heat.h). */
#include "profile_heat.h"

#include <stdlib.h>
#include <string.h>

static size_t profile_heat_slot(uint64_t address, size_t cap)
{
    uint64_t x = address * 0x9e3779b97f4a7c15ull;

    return (size_t)(x ^ (x >> 29)) & (cap - 1);
}

/* Doubles the table (power of two, at most half full). 0 or -1. */
static int profile_heat_grow(profile_heat *h)
{
    size_t cap = h->cap ? h->cap * 2 : 1024, i;
    profile_heat_entry *slots = calloc(cap, sizeof(*slots));

    if (!slots)
        return -1;
    for (i = 0; i < h->cap; i++) {
        size_t slot;
        if (!h->slots[i].address)
            continue;
        for (slot = profile_heat_slot(h->slots[i].address, cap); slots[slot].address;
             slot = (slot + 1) & (cap - 1))
            ;
        slots[slot] = h->slots[i];
    }
    free(h->slots);
    h->slots = slots;
    h->cap = cap;
    return 0;
}

int profile_heat_add(profile_heat *h, uint64_t address, uint32_t self, uint32_t total)
{
    size_t slot;

    if (!address)
        return -1;
    if (h->cap) {
        for (slot = profile_heat_slot(address, h->cap); h->slots[slot].address;
             slot = (slot + 1) & (h->cap - 1)) {
            profile_heat_entry *e = &h->slots[slot];
            if (e->address == address) {
                e->self = e->self + self < e->self ? UINT32_MAX : e->self + self;
                e->total = e->total + total < e->total ? UINT32_MAX : e->total + total;
                return 0;
            }
        }
    }
    if (h->count >= PROFILE_HEAT_MAX ||
        ((h->count + 1) * 2 > h->cap && profile_heat_grow(h) != 0)) {
        h->dropped++;
        return -1;
    }
    for (slot = profile_heat_slot(address, h->cap); h->slots[slot].address;
         slot = (slot + 1) & (h->cap - 1))
        ;
    h->slots[slot] = (profile_heat_entry){address, self, total};
    h->count++;
    return 0;
}

static int profile_heat_u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

void profile_heat_sample(profile_heat *h, const uint64_t *addresses, uint32_t count, int leaf)
{
    uint64_t sorted[PROFILE_HEAT_SORT_MAX];
    uint32_t i, k, n = 0;

    if (count > PROFILE_HEAT_SORT_MAX)
        count = PROFILE_HEAT_SORT_MAX;
    if (count <= 32) { /* most stacks: compare with the frames before */
        for (i = 0; i < count; i++) {
            uint64_t a = addresses[i];
            for (k = 0; k < i && addresses[k] != a; k++)
                ;
            if (a && k == i)
                (void)profile_heat_add(h, a, leaf && i == 0, 1);
        }
        return;
    }
    if (leaf && addresses[0])
        (void)profile_heat_add(h, addresses[0], 1, 0);
    for (i = 0; i < count; i++)
        if (addresses[i])
            sorted[n++] = addresses[i];
    qsort(sorted, n, sizeof(*sorted), profile_heat_u64_cmp);
    for (i = 0; i < n; i++)
        if (i == 0 || sorted[i] != sorted[i - 1])
            (void)profile_heat_add(h, sorted[i], 0, 1);
}

const profile_heat_entry *profile_heat_next(const profile_heat *h, size_t *i)
{
    while (*i < h->cap) {
        const profile_heat_entry *e = &h->slots[(*i)++];
        if (e->address)
            return e;
    }
    return NULL;
}

static int profile_heat_cmp(const void *a, const void *b)
{
    uint64_t x = ((const profile_heat_entry *)a)->address,
             y = ((const profile_heat_entry *)b)->address;

    return x < y ? -1 : x > y;
}

long profile_heat_collect(const profile_heat *h, const uint64_t *ranges, unsigned range_count,
                          profile_heat_entry **out)
{
    size_t i = 0, n = 0, cap = 0;
    const profile_heat_entry *e;
    profile_heat_entry *list = NULL;

    *out = NULL;
    while ((e = profile_heat_next(h, &i))) {
        unsigned r;
        for (r = 0; r < range_count; r++)
            if (e->address >= ranges[2 * r] && e->address < ranges[2 * r + 1])
                break;
        if (r == range_count)
            continue;
        if (n == cap) {
            size_t more = cap ? cap * 2 : 256;
            profile_heat_entry *grown = realloc(list, more * sizeof(*list));
            if (!grown) {
                free(list);
                return -1;
            }
            list = grown;
            cap = more;
        }
        list[n++] = *e;
    }
    if (n)
        qsort(list, n, sizeof(*list), profile_heat_cmp);
    *out = list;
    return (long)n;
}

size_t profile_heat_bytes(const profile_heat *h) { return h->cap * sizeof(*h->slots); }

void profile_heat_free(profile_heat *h)
{
    free(h->slots);
    memset(h, 0, sizeof(*h));
}
