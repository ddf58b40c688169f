/* idmap.c -- linear-probing hash map uint64 -> uint32 (see idmap.h). */
#include "idmap.h"

#include <stdlib.h>
#include <string.h>

static size_t idmap_slot(uint64_t key, size_t mask)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & mask;
}

uint32_t idmap_get(const idmap *m, uint64_t key)
{
    size_t mask, i;

    if (m->capacity == 0 || key == 0)
        return IDMAP_MISSING;
    mask = m->capacity - 1;
    for (i = idmap_slot(key, mask); m->keys[i] != 0; i = (i + 1) & mask)
        if (m->keys[i] == key)
            return m->values[i];
    return IDMAP_MISSING;
}

/* The new tables are cleared with memset, not taken from calloc: a large
 * calloc is fresh zero-filled pages that the probes below read before they
 * write, so each page would first be mapped to the shared zero page and then
 * copied on its first write, which also flushes the page from every other
 * core's TLB (an interrupt to the threads running there: the agent's sender
 * would stop the app's threads, the server's link thread its others).
 * Writing every page first costs one fault a page and no flush. Values need
 * no clearing: only slots with a key are ever read. */
static int idmap_grow(idmap *m)
{
    size_t cap = m->capacity ? m->capacity * 2 : 64, i;
    idmap bigger = {malloc(cap * sizeof(uint64_t)), malloc(cap * sizeof(uint32_t)), cap, 0};

    if (!bigger.keys || !bigger.values) {
        free(bigger.keys);
        free(bigger.values);
        return -1;
    }
    memset(bigger.keys, 0, cap * sizeof(uint64_t));
    for (i = 0; i < m->capacity; i++)
        if (m->keys[i] != 0)
            idmap_put(&bigger, m->keys[i], m->values[i]);
    idmap_free(m);
    *m = bigger;
    return 0;
}

int idmap_put(idmap *m, uint64_t key, uint32_t value)
{
    size_t mask, i;

    if (key == 0)
        return -1;
    if ((m->count + 1) * 10 > m->capacity * 7 && idmap_grow(m) != 0)
        return -1;
    mask = m->capacity - 1;
    for (i = idmap_slot(key, mask); m->keys[i] != 0; i = (i + 1) & mask) {
        if (m->keys[i] == key) {
            m->values[i] = value;
            return 0;
        }
    }
    m->keys[i] = key;
    m->values[i] = value;
    m->count++;
    return 0;
}

void idmap_prefetch(const idmap *m, uint64_t key)
{
    size_t i;

    if (m->capacity == 0)
        return;
    i = idmap_slot(key, m->capacity - 1);
    __builtin_prefetch(&m->keys[i]);
    __builtin_prefetch(&m->values[i]);
}

void idmap_free(idmap *m)
{
    free(m->keys);
    free(m->values);
    m->keys = NULL;
    m->values = NULL;
    m->capacity = m->count = 0;
}
