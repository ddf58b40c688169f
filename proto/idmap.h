/* idmap.h -- open-addressing map from 64-bit runtime IDs to array indexes.
 * Sessions keep their functions, modules and threads in arrays; this finds
 * an entry by FunctionID/ModuleID/ThreadID in O(1). Key 0 is never stored. */
#ifndef JITSCOPE_IDMAP_H
#define JITSCOPE_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct idmap {
    uint64_t *keys;
    uint32_t *values;
    size_t capacity; /* power of two, 0 when empty */
    size_t count;
} idmap;

#define IDMAP_MISSING UINT32_MAX

uint32_t idmap_get(const idmap *m, uint64_t key);
int idmap_put(idmap *m, uint64_t key, uint32_t value); /* 0 ok, -1 out of memory or key 0 */
void idmap_free(idmap *m);
/* Asks the cache for the lines where a look-up of key starts (a hint: the map
 * does not change), for a caller that knows which keys it will look up next. */
void idmap_prefetch(const idmap *m, uint64_t key);

#endif
