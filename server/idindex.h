/* idindex.h -- an open-addressing index over an array of records whose first
 * field is their 64-bit runtime ID (session functions): ID -> array position.
 *
 * A slot is 8 bytes, key and value together: 32 bits of the ID's hash (the
 * tag) and the position. The ID itself is not copied: a tag match is confirmed
 * against the record, which the caller reads next anyway; growth re-slots by
 * the tags alone (capacity at most 2^32), without reading a record. Against idmap.h
 * (16 bytes of key and value per slot, in two arrays) this halves the index
 * and takes one cache miss per look-up instead of two. ID 0 is never stored.
 * The caller passes the array (it may have moved since the last call).
 * The position last put is kept aside: the records of one function follow
 * each other (its compilation's start, name and end), and a look-up of the ID
 * just added is answered from the record itself, without a probe of the slots. */
#ifndef JITSCOPE_IDINDEX_H
#define JITSCOPE_IDINDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct idindex_slot {
    uint32_t tag;   /* the low 32 bits of the ID's hash: its slot, also after growth */
    uint32_t index; /* position in the record array + 1; 0: empty */
} idindex_slot;

typedef struct idindex {
    idindex_slot *slots;
    size_t capacity; /* power of two, 0 when empty */
    size_t count;
    uint32_t last; /* position + 1 of the ID put last; 0: none */
} idindex;

#define IDINDEX_MISSING UINT32_MAX

/* records: the array, stride: the size of one record (its first 8 bytes are its ID). */
uint32_t idindex_get(const idindex *m, uint64_t id, const void *records, size_t stride);
/* Asks the CPU to fetch the slot where id's look-up begins (no effect on the
 * index): a caller that knows the next IDs hides the cache miss behind its work. */
void idindex_prefetch(const idindex *m, uint64_t id);
/* Maps id to index (re-points an existing mapping). 0, or -1 for id 0 or out of memory. */
int idindex_put(idindex *m, uint64_t id, uint32_t index, const void *records, size_t stride);
/* Room for count IDs without growing again (a table read back whole). 0 or -1. */
int idindex_reserve(idindex *m, size_t count);
/* idindex_put of records[at[0..n)] (their own IDs) in one go, later ones
 * winning as with single puts: the slots are prefetched ahead, so a table
 * read back whole costs a fraction of n cache misses. 0 or -1. */
int idindex_put_many(idindex *m, const uint32_t *at, size_t n, const void *records, size_t stride);
void idindex_free(idindex *m);

/* The table is kept at most IDINDEX_LOAD_TENTHS tenths full. */
#define IDINDEX_LOAD_TENTHS 7
/* IDs it takes before it grows. */
size_t idindex_room(const idindex *m);

/* Growth in three steps, for a writer that copies the slots under its lock
 * and re-slots the copy without it (a big index's growth takes 15-30 ms; a
 * copy of its slots a tenth of that): the capacity the index needs for
 * `more` IDs (0: it has room); a table of cap slots with the entries of
 * slots[0..capacity) (NULL out of memory); that table put in place of m's
 * (freed), which must still hold what was copied. */
size_t idindex_room_for(const idindex *m, size_t more);
idindex_slot *idindex_reslotted(const idindex_slot *slots, size_t capacity, size_t cap);
void idindex_install(idindex *m, idindex_slot *slots, size_t cap);

#endif
