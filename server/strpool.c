/* strpool.c -- interned strings in chunks that never move (see strpool.h). */
#include "strpool.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hugemem.h"

#define STRPOOL_CHUNK ((size_t)1 << STRPOOL_CHUNK_BITS)
/* The first chunks a pool makes itself are smaller (128, 256, 512 KiB, then
 * 1 MiB each), so that a session of a few thousand names does not hold a
 * megabyte for them; the smallest still holds the longest string. */
#define STRPOOL_FIRST_CHUNK ((size_t)128 << 10)
_Static_assert(STRPOOL_FIRST_CHUNK >= STRPOOL_SERIAL_BYTES + STRPOOL_MAX_PREFIX + 65535 + 1,
               "the smallest chunk holds the longest string");
#define STRPOOL_STRIDE (STRPOOL_CHUNK + 64) /* a chunk and its slack inside a reserved block */
_Static_assert(STRPOOL_SLACK <= 64, "a reserved block's chunks keep their slack");

/* h with text[0..n) mixed in, 8 bytes at a time (a type's part of 100-odd
 * bytes is hashed for each of its methods: a byte at a time was most of it) */
static uint64_t strpool_mix(uint64_t h, const char *text, size_t n)
{
    const uint64_t k = 0x9e3779b97f4a7c15ull;
    uint64_t w;

    for (; n >= 8; text += 8, n -= 8) {
        memcpy(&w, text, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
    }
    w = (uint64_t)n << 56; /* the last bytes, and how many they are */
    if (n)
        memcpy(&w, text, n); /* little-endian: the count's byte stays above them */
    h = (h ^ w) * k;
    return h ^ (h >> 32);
}

/* The hash of a[0..alen) then b[0..blen) (a string is always looked up split
 * the same way: strpool_intern with no a, fnname's records with their head) */
static uint32_t strpool_hash(const char *a, size_t alen, const char *b, size_t blen)
{
    uint64_t h = strpool_mix(0x6a09e667f3bcc909ull ^ alen, a, alen);

    h = strpool_mix(h, b, blen) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    return (uint32_t)(h >> 32) | 1u; /* 0 marks an empty slot */
}

/* A hash's first slot: its bit 0 is always 1 (0 marks an empty slot), so it is left out. */
static size_t strpool_home(uint32_t hash, size_t mask) { return (size_t)(hash >> 1) & mask; }

static const char *strpool_at(const strpool *p, uint32_t ref)
{
    return p->chunks[ref >> STRPOOL_CHUNK_BITS] + (ref & (STRPOOL_CHUNK - 1));
}

strpool_slot *strpool_reslotted(const strpool_slot *slots, size_t capacity, size_t cap)
{
    size_t i, j, mask = cap - 1;
    strpool_slot *bigger = calloc(cap, sizeof(*bigger));

    if (!bigger)
        return NULL;
    for (i = 0; i < capacity; i++) {
        if (!slots[i].hash)
            continue;
        for (j = strpool_home(slots[i].hash, mask); bigger[j].hash; j = (j + 1) & mask)
            ;
        bigger[j] = slots[i];
    }
    return bigger;
}

void strpool_install(strpool *p, strpool_slot *slots, size_t cap)
{
    free(p->slots);
    p->slots = slots;
    p->capacity = cap;
}

size_t strpool_room_for(const strpool *p, size_t more)
{
    size_t cap = p->capacity ? p->capacity : 1024;

    while ((p->count + more) * 4 > cap * 3 && cap < ((size_t)1 << 40))
        cap *= 2;
    return cap > p->capacity ? cap : 0;
}

static int strpool_grow(strpool *p)
{
    size_t cap = p->capacity ? p->capacity * 2 : 1024;
    strpool_slot *bigger = strpool_reslotted(p->slots, p->capacity, cap);

    if (!bigger)
        return -1;
    strpool_install(p, bigger, cap);
    return 0;
}

/* The size of the next chunk the pool makes itself (not in a reserved block). */
static size_t strpool_next_size(const strpool *p)
{
    size_t size = STRPOOL_FIRST_CHUNK << (p->chunk_count < 4 ? p->chunk_count : 3);

    return size < STRPOOL_CHUNK ? size : STRPOOL_CHUNK;
}

/* Room for `need` bytes at the end of the last chunk; a new chunk if not. */
static char *strpool_room(strpool *p, size_t need, uint32_t *ref)
{
    if (!p->chunks && !(p->chunks = calloc(STRPOOL_MAX_CHUNKS, sizeof(*p->chunks))))
        return NULL;
    if (p->chunk_count == 0 || p->used + need > p->last_size) {
        if (p->chunk_count >= STRPOOL_MAX_CHUNKS)
            return NULL;
        if (p->region && p->region_taken < p->region_chunks) {
            p->chunks[p->chunk_count] = p->region + (size_t)p->region_taken++ * STRPOOL_STRIDE;
            p->last_size = STRPOOL_CHUNK;
        } else {
            size_t size = strpool_next_size(p);
            if (!(p->chunks[p->chunk_count] = malloc(size + STRPOOL_SLACK)))
                return NULL;
            p->last_size = (uint32_t)size;
        }
        p->chunk_bytes += p->last_size;
        p->chunk_count++;
        p->used = 0;
    }
    *ref = (p->chunk_count - 1) << STRPOOL_CHUNK_BITS | p->used;
    p->used += (uint32_t)need;
    return p->chunks[p->chunk_count - 1] + (*ref & (STRPOOL_CHUNK - 1));
}

/* The string (a then b), its NUL, and STRPOOL_SLACK - 1 more zero bytes: a
 * reader that loads 16 bytes at a time past the NUL reads written bytes (the next string
 * overwrites them; the chunk's STRPOOL_SLACK keeps them inside it). */
static void strpool_store(char *copy, const char *a, size_t alen, const char *b, size_t blen)
{
    if (alen) /* a may be NULL then */
        memcpy(copy, a, alen);
    memcpy(copy + alen, b, blen);
    memset(copy + alen + blen, 0, STRPOOL_SLACK);
}

static int strpool_too_long(size_t alen, size_t blen)
{
    return alen > STRPOOL_MAX_PREFIX || blen > 65535;
}

const char *strpool_intern2(strpool *p, const char *a, size_t alen, const char *b, size_t blen)
{
    uint32_t hash, ref, serial;
    size_t i, mask, length = alen + blen;
    char *copy;

    if (strpool_too_long(alen, blen))
        return NULL;
    if (p->last && p->last_length == length && (!alen || memcmp(p->last, a, alen) == 0) &&
        memcmp(p->last + alen, b, blen) == 0)
        return p->last;
    if ((p->count + 1) * 4 > p->capacity * 3 && strpool_grow(p) != 0)
        return NULL;
    if (!alen && p->hint == b && p->hint_length == blen) {
        hash = p->hint_hash;
        p->hint = NULL; /* used (another text's hint stays: the frame after it is still to come) */
    } else {
        hash = strpool_hash(a, alen, b, blen);
    }
    mask = p->capacity - 1;
    for (i = strpool_home(hash, mask); p->slots[i].hash; i = (i + 1) & mask) {
        if (p->slots[i].hash == hash) {
            const char *known = strpool_at(p, p->slots[i].ref);
            if (strnlen(known, length + 1) == length && (!alen || memcmp(known, a, alen) == 0) &&
                memcmp(known + alen, b, blen) == 0) {
                p->last = known, p->last_length = length;
                return known; /* (a text with a NUL inside is never found again: a new copy) */
            }
        }
    }
    if (p->count >= p->serial_cap &&
        grow_reserve((void **)&p->serial_refs, &p->serial_cap, p->count, sizeof(*p->serial_refs),
                     256, UINT32_MAX, GROW_KEEP) != 0)
        return NULL;
    /* the serial, then the string (its reference is the string's) */
    if (!(copy = strpool_room(p, STRPOOL_SERIAL_BYTES + length + 1, &ref)))
        return NULL;
    serial = (uint32_t)p->count;
    memcpy(copy, &serial, sizeof(serial));
    copy += STRPOOL_SERIAL_BYTES, ref += STRPOOL_SERIAL_BYTES;
    strpool_store(copy, a, alen, b, blen);
    p->serial_refs[serial] = ref;
    p->slots[i] = (strpool_slot){hash, ref};
    if (strnlen(copy, length + 1) == length) /* as found through the table: none with a NUL */
        p->last = copy, p->last_length = length;
    p->count++;
    p->text_bytes += STRPOOL_SERIAL_BYTES + length + 1;
    return copy;
}

void strpool_prefetch(strpool *p, const char *text, size_t length)
{
    if (strpool_too_long(0, length) || !p->capacity ||
        (p->last && p->last_length == length && memcmp(p->last, text, length) == 0))
        return; /* the last one again (a type's methods): found by one comparison, unhashed */
    p->hint = text, p->hint_length = length;
    p->hint_hash = strpool_hash(NULL, 0, text, length);
    __builtin_prefetch(&p->slots[strpool_home(p->hint_hash, p->capacity - 1)]);
}

void strpool_hint_clear(strpool *p) { p->hint = p->hint_whole = NULL; }

const char *strpool_add2(strpool *p, const char *a, size_t alen, const char *b, size_t blen)
{
    uint32_t ref;
    char *copy;

    if (strpool_too_long(alen, blen) || !(copy = strpool_room(p, alen + blen + 1, &ref)))
        return NULL;
    strpool_store(copy, a, alen, b, blen);
    p->text_bytes += alen + blen + 1;
    return copy;
}

const char *strpool_intern(strpool *p, const char *text, size_t length)
{
    return strpool_intern2(p, NULL, 0, text, length);
}

const char *strpool_add(strpool *p, const char *text, size_t length)
{
    return strpool_add2(p, NULL, 0, text, length);
}

void strpool_reserve(strpool *p, size_t bytes)
{
    size_t chunks = (bytes + STRPOOL_CHUNK - 1) / STRPOOL_CHUNK;

    if (p->region || chunks < 2)
        return;
    if (chunks > STRPOOL_MAX_CHUNKS - p->chunk_count)
        chunks = STRPOOL_MAX_CHUNKS - p->chunk_count;
    if (!(p->region = malloc(chunks * STRPOOL_STRIDE)))
        return;
    hugemem_advise(p->region, chunks * STRPOOL_STRIDE);
    p->region_chunks = (uint32_t)chunks;
    p->region_taken = 0;
}

size_t strpool_region_bytes(const strpool *p)
{
    return p->region ? (size_t)p->region_chunks * STRPOOL_STRIDE : 0;
}

static int strpool_in_region(const strpool *p, const char *chunk)
{
    return p->region && chunk >= p->region &&
           chunk < p->region + (size_t)p->region_chunks * STRPOOL_STRIDE;
}

const char *strpool_by_serial(const strpool *p, uint32_t serial)
{
    return strpool_at(p, p->serial_refs[serial]);
}

size_t strpool_table_bytes(const strpool *p)
{
    return p->capacity * sizeof(strpool_slot) + p->serial_cap * sizeof(*p->serial_refs);
}

size_t strpool_bytes(const strpool *p) { return p->chunk_bytes + strpool_table_bytes(p); }

void strpool_free(strpool *p)
{
    uint32_t i;

    for (i = 0; i < p->chunk_count; i++)
        if (!strpool_in_region(p, p->chunks[i]))
            free(p->chunks[i]);
    free(p->region);
    free(p->chunks);
    free(p->slots);
    free(p->serial_refs);
    memset(p, 0, sizeof(*p));
}
