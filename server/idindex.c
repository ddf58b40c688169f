/* idindex.c -- ID -> position over records that hold their own ID (see idindex.h). */
#include "idindex.h"

#include <stdlib.h>
#include <string.h>

#include "hugemem.h"

static uint32_t idindex_hash(uint64_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ull;
    key ^= key >> 33;
    return (uint32_t)key;
}

static uint64_t idindex_key(const void *records, size_t stride, uint32_t index)
{
    uint64_t id;

    memcpy(&id, (const char *)records + (size_t)index * stride, sizeof(id));
    return id;
}

/* The slot of id, or the empty slot where it would go. */
static size_t idindex_find(const idindex *m, uint64_t id, uint32_t tag, const void *records,
                           size_t stride)
{
    size_t mask = m->capacity - 1, i;

    for (i = tag & mask; m->slots[i].index != 0; i = (i + 1) & mask)
        if (m->slots[i].tag == tag && idindex_key(records, stride, m->slots[i].index - 1) == id)
            break;
    return i;
}

uint32_t idindex_get(const idindex *m, uint64_t id, const void *records, size_t stride)
{
    size_t i;

    if (m->capacity == 0 || id == 0)
        return IDINDEX_MISSING;
    if (m->last && idindex_key(records, stride, m->last - 1) == id)
        return m->last - 1;
    i = idindex_find(m, id, idindex_hash(id), records, stride);
    return m->slots[i].index ? m->slots[i].index - 1 : IDINDEX_MISSING;
}

void idindex_prefetch(const idindex *m, uint64_t id)
{
    if (m->capacity)
        __builtin_prefetch(&m->slots[idindex_hash(id) & (m->capacity - 1)]);
}

idindex_slot *idindex_reslotted(const idindex_slot *slots, size_t capacity, size_t cap)
{
    size_t mask = cap - 1, i, j;
    idindex_slot *bigger;

    if (cap > ((size_t)1 << 32) || !(bigger = calloc(cap, sizeof(*bigger))))
        return NULL;
    hugemem_advise(bigger, cap * sizeof(*bigger));
    for (i = 0; i < capacity; i++) {
        if (!slots[i].index)
            continue;
        for (j = slots[i].tag & mask; bigger[j].index; j = (j + 1) & mask)
            ;
        bigger[j] = slots[i];
    }
    return bigger;
}

void idindex_install(idindex *m, idindex_slot *slots, size_t cap)
{
    free(m->slots);
    m->slots = slots;
    m->capacity = cap;
}

size_t idindex_room(const idindex *m)
{
    size_t fits = m->capacity * IDINDEX_LOAD_TENTHS / 10;

    return fits > m->count ? fits - m->count : 0;
}

size_t idindex_room_for(const idindex *m, size_t more)
{
    size_t cap = m->capacity ? m->capacity : 1024;

    while ((m->count + more) * 10 > cap * IDINDEX_LOAD_TENTHS)
        cap *= 2;
    return cap == m->capacity ? 0 : cap;
}

/* Makes the table cap slots (a power of two), re-slotting by the tags (no
 * record is read). */
static int idindex_resize(idindex *m, size_t cap)
{
    idindex_slot *bigger = idindex_reslotted(m->slots, m->capacity, cap);

    if (!bigger)
        return -1;
    idindex_install(m, bigger, cap);
    return 0;
}

static int idindex_grow(idindex *m)
{
    return idindex_resize(m, m->capacity ? m->capacity * 2 : 1024);
}

int idindex_reserve(idindex *m, size_t count)
{
    size_t cap = count > m->count ? idindex_room_for(m, count - m->count) : 0;

    return cap == 0 ? 0 : idindex_resize(m, cap);
}

int idindex_put(idindex *m, uint64_t id, uint32_t index, const void *records, size_t stride)
{
    uint32_t tag;
    size_t i;

    if (id == 0 || index == UINT32_MAX)
        return -1;
    if (idindex_room(m) == 0 && idindex_grow(m) != 0)
        return -1;
    tag = idindex_hash(id);
    i = idindex_find(m, id, tag, records, stride);
    if (!m->slots[i].index)
        m->count++;
    m->slots[i] = (idindex_slot){tag, index + 1};
    m->last = index + 1;
    return 0;
}

#define IDINDEX_AHEAD 16 /* slots prefetched ahead of the insert */

int idindex_put_many(idindex *m, const uint32_t *at, size_t n, const void *records, size_t stride)
{
    uint32_t *tags;
    size_t i;

    if (n == 0)
        return 0;
    if (idindex_reserve(m, m->count + n) != 0 || !(tags = malloc(n * sizeof(*tags))))
        return -1;
    m->last = 0;
    for (i = 0; i < n; i++) /* the records in order: a sequential read */
        tags[i] = idindex_hash(idindex_key(records, stride, at[i]));
    for (i = 0; i < n; i++) {
        uint64_t id = idindex_key(records, stride, at[i]);
        size_t slot;
        if (i + IDINDEX_AHEAD < n)
            __builtin_prefetch(&m->slots[tags[i + IDINDEX_AHEAD] & (m->capacity - 1)], 1);
        if (id == 0)
            continue;
        slot = idindex_find(m, id, tags[i], records, stride);
        if (!m->slots[slot].index)
            m->count++;
        m->slots[slot] = (idindex_slot){tags[i], at[i] + 1};
    }
    free(tags);
    return 0;
}

void idindex_free(idindex *m)
{
    free(m->slots);
    m->slots = NULL;
    m->capacity = m->count = 0;
    m->last = 0;
}
