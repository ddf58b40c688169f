/* ilmap.c -- a code version's IL-to-native map by native offset (see ilmap.h). */
#include "ilmap.h"

#include <stdlib.h>

static int ilmap_key_cmp(const void *a, const void *b)
{
    const ilmap_key *x = a, *y = b;

    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The sorted keys of rv's map (NULL when it has none); *failed set when memory ran out. */
ilmap_key *ilmap_sorted(const code_reply_version *rv, int *failed)
{
    ilmap_key *keys;
    uint32_t i;

    *failed = 0;
    if (!rv->map_have)
        return NULL;
    if (!(keys = malloc((size_t)rv->map_have * sizeof(*keys)))) {
        *failed = 1;
        return NULL;
    }
    for (i = 0; i < rv->map_have; i++)
        keys[i] = (ilmap_key){rv->map[i].native_start, i};
    qsort(keys, rv->map_have, sizeof(*keys), ilmap_key_cmp);
    return keys;
}

/* The first key whose start is at least off. */
uint32_t ilmap_lower(const ilmap_key *keys, uint32_t n, uint32_t off)
{
    uint32_t lo = 0, hi = n;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (keys[mid].start < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The IL offset an instruction at native offset off belongs to: the map entry that starts
 * there, else the one before it if it covers it (the runtime's entries do not overlap). */
const wire_code_map_entry *ilmap_entry(const code_reply_version *rv, const ilmap_key *keys,
                                       uint32_t off)
{
    uint32_t at, before;
    const wire_code_map_entry *e;

    if (!keys)
        return NULL;
    at = ilmap_lower(keys, rv->map_have, off);
    if (at < rv->map_have && keys[at].start == off)
        return &rv->map[keys[at].index];
    if (at == 0)
        return NULL;
    before = ilmap_lower(keys, rv->map_have, keys[at - 1].start);
    e = &rv->map[keys[before].index];
    return off < e->native_end ? e : NULL;
}
