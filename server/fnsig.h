/* fnsig.h -- a dense summary of each function's name, beside the session's
 * function array, so that the functions query's name filter (fnfilter.h)
 * reads 12 bytes a function and looks at a name only when it may hold the
 * filter, instead of walking every 88-byte function and every name.
 *
 * Per function, at its position in the function array: a 64-bit signature
 * of its own part (bit fnsig_pair of each pair of bytes one after the other,
 * ASCII case folded), with the pair across the seam (the type part's last
 * byte, then the own part's first), and its type part's serial in the pool
 * (strpool_serial), FNSIG_NO_TYPE when it has none. Per type part (by
 * serial): a 128-bit signature of its pairs and its last byte, so that a
 * filter reads a type part's text only when it may hold the filter or end
 * with the filter's beginning, and its first 16 bytes, the name prefix a
 * name sort compares (fnname_prefix) of all its methods.
 *
 * A filter of two bytes or more that is in a name but not wholly in its type
 * part has all its pairs from some point on in the own part's signature
 * (fnfilter.c says which), so a signature without them rules the name out:
 * no false negatives, only candidates that the exact test then reads. Set
 * under the sessions lock with the name (session_function_name_set), grown
 * with the function array, counted in the session's memory. */
#ifndef JITSCOPE_FNSIG_H
#define JITSCOPE_FNSIG_H

#include <stddef.h>
#include <stdint.h>

#define FNSIG_NO_TYPE UINT32_MAX /* the name has no shared type part (or no name) */
#define FNSIG_ENTRY_BYTES (sizeof(uint64_t) + sizeof(uint32_t))
#define FNSIG_TYPE_BYTES (4 * sizeof(uint64_t) + 1)

typedef struct fnsig_type {
    uint64_t bits[2]; /* its pairs' bits (fnsig_pair's top 7 bits) */
} fnsig_type;

typedef struct fnsig_prefix {
    uint64_t words[2]; /* fnname_text_prefix of a type part: its methods' names' */
} fnsig_prefix;

typedef struct fnsig_table {
    uint64_t *bits;            /* per function: its signature (0: no name) */
    uint32_t *type;            /* per function: its type part's serial, or FNSIG_NO_TYPE */
    size_t cap;                /* entries both arrays have room for */
    fnsig_type *types;         /* per pool serial: a type part's signature */
    fnsig_prefix *type_prefix; /* per pool serial: a type part's first 16 bytes (fnname.h) */
    uint8_t *type_last;        /* per pool serial: a type part's last byte (0: no summary) */
    size_t type_cap;           /* entries both have room for (zeroed) */
} fnsig_table;

/* The pair of bytes a, b (A-Z as a-z) mixed (splitmix64's finaliser): its top
 * 6 bits are its bit in a name's signature, its top 7 in a type part's. A
 * plain multiplication put pairs with the same first byte on related bits:
 * several times the candidates for a filter such as "getorder". */
static inline uint64_t fnsig_pair(unsigned char a, unsigned char b)
{
    uint64_t x = (uint64_t)(a >= 'A' && a <= 'Z' ? a + 32 : a) << 8 |
                 (uint64_t)(b >= 'A' && b <= 'Z' ? b + 32 : b);

    x *= 0xbf58476d1ce4e5b9ull;
    return (x ^ (x >> 31)) * 0x94d049bb133111ebull;
}
static inline uint64_t fnsig_bit(unsigned char a, unsigned char b)
{
    return 1ull << (fnsig_pair(a, b) >> 58);
}

/* The signature of text[0..n): the bits of its pairs of bytes. */
uint64_t fnsig_text(const char *text, size_t n);
/* The same as a type part's (128 bits). */
fnsig_type fnsig_type_text(const char *text, size_t n);
/* Whether signature has every bit of need. */
static inline int fnsig_type_has(const fnsig_type *signature, const fnsig_type *need)
{
    return (signature->bits[0] & need->bits[0]) == need->bits[0] &&
           (signature->bits[1] & need->bits[1]) == need->bits[1];
}
/* The signature of a name record (fnname.h): its own part's pairs, and the
 * pair of its type part's last byte and its own part's first. NULL: 0. */
uint64_t fnsig_record(const char *record);

/* Room for entries [0, count], not past `max`. -1 at it or out of memory. */
int fnsig_reserve(fnsig_table *t, size_t count, size_t max);
/* Entry i (< cap) for the name record (NULL: none), and its type part's
 * summary when it is new (out of memory: none, and readers read the type
 * part itself, as for any serial without one). */
void fnsig_set(fnsig_table *t, size_t i, const char *record);
/* The name prefix (fnname_prefix) of function i from its type part's
 * summary, without reading its name: 1, or 0 when it has none (no type
 * part, or no summary). */
int fnsig_name_prefix(const fnsig_table *t, size_t i, uint64_t prefix[2]);
/* Bytes held: entries in use (`count`) and the type parts' summaries. */
size_t fnsig_bytes(const fnsig_table *t, size_t count);
void fnsig_free(fnsig_table *t);

#endif
