/* hashslots.h -- an open-addressing index over a caller's array of entries:
 * a power-of-two count of 8-byte slots, each the upper 32 bits of an entry's
 * 64-bit hash and its position + 1 (0: empty), kept at most half full. The
 * caller keeps the entries, hashes them and says when one is the key looked
 * for. Used by the pprof export's string table (pprof.c) and the CPU
 * profile's (module, name) symbols (cpusym.c).
 */
#ifndef JITSCOPE_HASHSLOTS_H
#define JITSCOPE_HASHSLOTS_H

#include <stddef.h>
#include <stdint.h>

#define HASHSLOTS_NONE SIZE_MAX

typedef struct hashslots {
    uint64_t *slots;
    size_t cap; /* power of two, 0 before the first entry */
} hashslots;

/* Entry i's hash, as it was given to hashslots_put. */
typedef uint64_t (*hashslots_hash_fn)(const void *entries, size_t i);
/* 1 when entry i is key. */
typedef int (*hashslots_same_fn)(const void *entries, size_t i, const void *key);

/* The position of the entry of hash h that same() says is key, or
 * HASHSLOTS_NONE. */
size_t hashslots_find(const hashslots *t, uint64_t h, hashslots_same_fn same, const void *entries,
                      const void *key);
/* Room for entry `count`, the next to be put: once it would be over half
 * full, the slots are rebuilt twice as many (`first` when none), entries
 * [0, count) placed again by hash(). 0, or -1 when out of memory (t as it
 * was). */
int hashslots_reserve(hashslots *t, size_t count, size_t first, hashslots_hash_fn hash,
                      const void *entries);
/* Indexes entry i of hash h (after hashslots_reserve made room; i < 2^32 - 1). */
void hashslots_put(hashslots *t, uint64_t h, size_t i);
void hashslots_free(hashslots *t);

#endif
