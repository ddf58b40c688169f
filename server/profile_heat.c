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

/* The entry of address, or NULL. */
static const profile_heat_entry *profile_heat_find(const profile_heat *h, uint64_t address)
{
    size_t slot;

    for (slot = profile_heat_slot(address, h->cap); h->slots[slot].address;
         slot = (slot + 1) & (h->cap - 1))
        if (h->slots[slot].address == address)
            return &h->slots[slot];
    return NULL;
}

/* Doubles a collect's list; frees it when there is no memory. 0 or -1. */
static int profile_heat_more(profile_heat_entry **list, size_t *cap)
{
    size_t more = *cap ? *cap * 2 : 256;
    profile_heat_entry *grown = realloc(*list, more * sizeof(**list));

    if (!grown) {
        free(*list);
        *list = NULL;
        return -1;
    }
    *list = grown;
    *cap = more;
    return 0;
}

/* Whether address lies in one of the sorted, disjoint ranges r[0..n) (pairs). */
static int profile_heat_inside(const uint64_t *r, unsigned n, uint64_t address)
{
    unsigned lo = 0, len = n;

    while (len > 0) { /* the first range that ends after address, without branches to miss */
        unsigned half = len / 2;
        int after = r[2 * (lo + half) + 1] <= address;
        lo = after ? lo + half + 1 : lo;
        len = after ? len - half - 1 : half;
    }
    return lo < n && address >= r[2 * lo];
}

static unsigned profile_heat_page_bit(uint64_t page)
{
    return (unsigned)((page * 0x9e3779b97f4a7c15ull) >> 52); /* 0..4095 */
}

static int profile_heat_range_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

long profile_heat_collect(const profile_heat *h, const uint64_t *ranges, unsigned range_count,
                          profile_heat_entry **out)
{
    uint64_t sorted[2 * PROFILE_HEAT_RANGES_MAX], bytes = 0, pages[64];
    size_t i = 0, n = 0, cap = 0;
    unsigned r, m = 0;
    const profile_heat_entry *e;
    profile_heat_entry *list = NULL;

    *out = NULL;
    if (range_count > PROFILE_HEAT_RANGES_MAX)
        return -1;
    memcpy(sorted, ranges, range_count * 2 * sizeof(*ranges));
    qsort(sorted, range_count, 2 * sizeof(*sorted), profile_heat_range_cmp); /* by start */
    for (r = 0; r < range_count; r++) { /* empty ones out, overlapping ones merged */
        if (sorted[2 * r + 1] <= sorted[2 * r])
            continue;
        if (m && sorted[2 * r] <= sorted[2 * m - 1]) {
            if (sorted[2 * r + 1] > sorted[2 * m - 1])
                sorted[2 * m - 1] = sorted[2 * r + 1];
            continue;
        }
        sorted[2 * m] = sorted[2 * r];
        sorted[2 * m + 1] = sorted[2 * r + 1];
        m++;
    }
    for (r = 0; r < m; r++)
        bytes += sorted[2 * r + 1] - sorted[2 * r];
    if (bytes < h->cap / 4) { /* small code: look each of its addresses up */
        for (r = 0; r < m && h->cap; r++) {
            uint64_t a;
            for (a = sorted[2 * r]; a < sorted[2 * r + 1]; a++) {
                if (!(e = profile_heat_find(h, a)))
                    continue;
                if (n == cap && profile_heat_more(&list, &cap) != 0)
                    return -1;
                list[n++] = *e;
            }
        }
        *out = list; /* found in address order */
        return (long)n;
    }
    /* the ranges' 4 KiB pages in a filter of 4,096 bits: most entries are
     * turned away by one bit, the rest placed by the binary search */
    memset(pages, bytes > (16u << 20) ? 0xff : 0, sizeof(pages));
    for (r = 0; r < m && bytes <= (16u << 20); r++) {
        uint64_t pg;
        for (pg = sorted[2 * r] >> 12; pg <= (sorted[2 * r + 1] - 1) >> 12; pg++) {
            unsigned bit = profile_heat_page_bit(pg);
            pages[bit / 64] |= 1ull << (bit % 64);
        }
    }
    while (m && (e = profile_heat_next(h, &i))) {
        unsigned bit = profile_heat_page_bit(e->address >> 12);
        if (!(pages[bit / 64] >> (bit % 64) & 1) || !profile_heat_inside(sorted, m, e->address))
            continue;
        if (n == cap && profile_heat_more(&list, &cap) != 0)
            return -1;
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
