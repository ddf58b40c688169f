/* hashslots.c -- an open-addressing index over a caller's entries (see hashslots.h). */
#include "hashslots.h"

#include <stdlib.h>

#define HASHSLOTS_TAG(h) (((h) >> 32) << 32)

size_t hashslots_find(const hashslots *t, uint64_t h, hashslots_same_fn same, const void *entries,
                      const void *key)
{
    size_t k, mask = t->cap - 1;

    if (!t->cap)
        return HASHSLOTS_NONE;
    for (k = (size_t)h & mask; t->slots[k]; k = (k + 1) & mask) {
        size_t i = (size_t)(t->slots[k] & 0xffffffffu) - 1;
        if (HASHSLOTS_TAG(t->slots[k]) == HASHSLOTS_TAG(h) && same(entries, i, key))
            return i;
    }
    return HASHSLOTS_NONE;
}

/* Slot of the first empty place for h in slots (cap of them). */
static size_t hashslots_free_slot(const uint64_t *slots, size_t cap, uint64_t h)
{
    size_t k = (size_t)h & (cap - 1);

    while (slots[k])
        k = (k + 1) & (cap - 1);
    return k;
}

int hashslots_reserve(hashslots *t, size_t count, size_t first, hashslots_hash_fn hash,
                      const void *entries)
{
    size_t cap, i;
    uint64_t *slots;

    if ((count + 1) * 2 <= t->cap)
        return 0;
    cap = t->cap ? t->cap * 2 : first;
    if (!(slots = calloc(cap, sizeof(*slots))))
        return -1;
    for (i = 0; i < count; i++) {
        uint64_t h = hash(entries, i);
        slots[hashslots_free_slot(slots, cap, h)] = HASHSLOTS_TAG(h) | (uint64_t)(i + 1);
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

void hashslots_put(hashslots *t, uint64_t h, size_t i)
{
    t->slots[hashslots_free_slot(t->slots, t->cap, h)] = HASHSLOTS_TAG(h) | (uint64_t)(i + 1);
}

void hashslots_free(hashslots *t)
{
    free(t->slots);
    t->slots = NULL;
    t->cap = 0;
}
