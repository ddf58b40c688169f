/* strpool.h -- a session's strings (function names): interned ones are
 * stored once each, NUL-terminated, in chunks of 1 MiB (the first three a
 * pool makes itself 128, 256 and 512 KiB) that never move or shrink, and is
 * found again through an open-addressing table of 8-byte slots (32-bit hash,
 * 32-bit reference into the chunks).
 *
 * A pointer that strpool_intern() returned stays valid until strpool_free(),
 * whatever is interned later: readers may keep it (and read it without the
 * sessions lock, as the functions query does while the session is pinned).
 * Bounded: at most STRPOOL_MAX_BYTES of text, then interning fails. */
#ifndef JITSCOPE_STRPOOL_H
#define JITSCOPE_STRPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define STRPOOL_CHUNK_BITS 20u /* 1 MiB per chunk; a string is at most WIRE_MAX_STRING */
#define STRPOOL_MAX_CHUNKS 1024u
#define STRPOOL_SLACK                                                                              \
    32u /* zero bytes after each string, and room after a chunk's end: readers may load a \
           string 16 bytes at a time, and 16 bytes one further */
#define STRPOOL_MAX_BYTES ((size_t)STRPOOL_MAX_CHUNKS << STRPOOL_CHUNK_BITS) /* 1 GiB */

typedef struct strpool_slot {
    uint32_t hash; /* 0: empty */
    uint32_t ref;  /* chunk << STRPOOL_CHUNK_BITS | offset */
} strpool_slot;

typedef struct strpool {
    char **chunks; /* STRPOOL_MAX_CHUNKS pointers once the first string comes */
    uint32_t chunk_count;
    uint32_t used;      /* bytes used in the last chunk */
    uint32_t last_size; /* the last chunk's size (the first ones a pool makes are smaller) */
    size_t chunk_bytes; /* all its chunks' sizes */
    strpool_slot *slots;
    size_t capacity;   /* power of two, 0 when empty */
    size_t count;      /* distinct strings */
    size_t text_bytes; /* their bytes, NULs (and interned ones' serials) included */
    char *region;      /* strpool_reserve's block, carved into chunks; NULL without one */
    uint32_t region_chunks, region_taken;
    /* the last string interned: the same again (a type's part for its
     * methods, one after the other) is found by one comparison, unhashed */
    const char *last;
    size_t last_length;
    /* the interned strings by serial (strpool_serial), as references */
    uint32_t *serial_refs;
    size_t serial_cap;
    /* strpool_prefetch's text (NULL: none), its length and hash */
    const char *hint;
    size_t hint_length;
    uint32_t hint_hash;
    /* the caller's note beside it (fnname.c: the name the text was cut from,
     * its length and the cut), cleared with it */
    const char *hint_whole;
    size_t hint_whole_length, hint_cut;
} strpool;

/* The interned copy of text[0..length) (no NUL inside expected; the copy is
 * NUL-terminated). NULL when length > 65535, the pool is full, or memory
 * runs out. */
const char *strpool_intern(strpool *p, const char *text, size_t length);
/* A copy of text[0..length) in the pool, without looking for an equal one or
 * being found later (for strings that are known to be new: no table slot, no
 * cache miss into it). NULL as strpool_intern. */
const char *strpool_add(strpool *p, const char *text, size_t length);
/* The same for the text a[0..alen) followed by b[0..blen), as one string
 * (a, at most STRPOOL_MAX_PREFIX bytes, is a header its user puts before the
 * text: fnname.h's reference to a shared part). */
#define STRPOOL_MAX_PREFIX 64u
const char *strpool_intern2(strpool *p, const char *a, size_t alen, const char *b, size_t blen);
const char *strpool_add2(strpool *p, const char *a, size_t alen, const char *b, size_t blen);
/* An interned string's serial: the order in which it was interned (0, 1,
 * ...: strings interned again keep theirs), held in the 4 bytes before it.
 * Only for what strpool_intern/strpool_intern2 returned: a dense number that
 * readers may index arrays with (fnsig.h: a function's type part). */
#define STRPOOL_SERIAL_BYTES 4u
static inline uint32_t strpool_serial(const char *interned)
{
    uint32_t serial;
    memcpy(&serial, interned - STRPOOL_SERIAL_BYTES, sizeof(serial));
    return serial;
}
/* The interned string of that serial (< p->count). */
const char *strpool_by_serial(const strpool *p, uint32_t serial);
/* Makes room for about `bytes` more text at once, in one block marked for
 * huge pages (hugemem.h), so that reading a large session back does not fault
 * 4 KiB at a time. A hint: when the pool already has a block, or the block
 * cannot be had, it does nothing (chunks come one by one as before). The room
 * is virtual memory until strings fill it. */
void strpool_reserve(strpool *p, size_t bytes);
/* The bytes of strpool_reserve's block (0 without one): what may be touched
 * ahead of the strings that fill it (prefault.h). */
size_t strpool_region_bytes(const strpool *p);
/* Bytes the pool holds: chunks in use plus its tables (a reserved block's
 * chunks count once strings reach them). */
size_t strpool_bytes(const strpool *p);
/* What the budget counts of its tables: the hash slots and the serials. */
size_t strpool_table_bytes(const strpool *p);
void strpool_free(strpool *p);

/* Growing the table ahead, most of it outside the caller's lock (link.c,
 * as idindex.h's): the capacity the table needs before `more` strings more
 * are interned, or 0 when it has room for them; a copy of slots[0..capacity)
 * re-slotted into a calloc'd table of cap slots (NULL when out of memory);
 * that table put in place of the pool's (the old one freed). */
size_t strpool_room_for(const strpool *p, size_t more);
strpool_slot *strpool_reslotted(const strpool_slot *slots, size_t capacity, size_t cap);
void strpool_install(strpool *p, strpool_slot *slots, size_t cap);

/* Starts fetching the table slot that text[0..length) is looked up in first,
 * and keeps its hash for the strpool_intern of the same text at the same
 * address that comes next (the link thread, a frame ahead: a string new to
 * a big table costs a cache miss there, which the frame before then hides).
 * strpool_hint_clear forgets it; the caller must before the text's memory
 * changes. */
void strpool_prefetch(strpool *p, const char *text, size_t length);
void strpool_hint_clear(strpool *p);

#endif
