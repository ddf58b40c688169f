/* fnsig.c -- dense signatures of functions' names (see fnsig.h). */
#include "fnsig.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fnname.h"
#include "grow.h"

/* fnsig_pair's top 7 bits for every pair of bytes, made once: one load a
 * pair instead of two multiplications (the link thread signs every name) */
static uint8_t fnsig_pairs[65536];
static pthread_once_t fnsig_pairs_once = PTHREAD_ONCE_INIT;

static void fnsig_pairs_make(void)
{
    unsigned x;

    for (x = 0; x < 65536; x++)
        fnsig_pairs[x] = (uint8_t)(fnsig_pair((unsigned char)(x >> 8), (unsigned char)x) >> 57);
}

static const uint8_t *fnsig_pairs_table(void)
{
    pthread_once(&fnsig_pairs_once, fnsig_pairs_make);
    return fnsig_pairs;
}

/* The table's entry of the pair a, b: its bit in a name's signature is >> 1. */
#define FNSIG_PAIR(table, a, b) ((table)[(unsigned)(a) << 8 | (unsigned)(b)])

uint64_t fnsig_text(const char *text, size_t n)
{
    const uint8_t *table = fnsig_pairs_table();
    const unsigned char *p = (const unsigned char *)text;
    uint64_t bits = 0;
    size_t i;

    for (i = 1; i < n; i++)
        bits |= 1ull << (FNSIG_PAIR(table, p[i - 1], p[i]) >> 1);
    return bits;
}

fnsig_type fnsig_type_text(const char *text, size_t n)
{
    const uint8_t *table = fnsig_pairs_table();
    const unsigned char *p = (const unsigned char *)text;
    fnsig_type s = {{0, 0}};
    size_t i;

    for (i = 1; i < n; i++) {
        unsigned bit = FNSIG_PAIR(table, p[i - 1], p[i]);
        s.bits[bit >> 6] |= 1ull << (bit & 63);
    }
    return s;
}

/* The own part's pairs, after the type part's last byte (0: none). */
static uint64_t fnsig_own(const char *tail, unsigned char last)
{
    const uint8_t *table = fnsig_pairs_table();
    const unsigned char *p = (const unsigned char *)tail;
    uint64_t bits;

    if (!*p)
        return 0;
    bits = last ? 1ull << (FNSIG_PAIR(table, last, p[0]) >> 1) : 0;
    for (; p[1]; p++)
        bits |= 1ull << (FNSIG_PAIR(table, p[0], p[1]) >> 1);
    return bits;
}

uint64_t fnsig_record(const char *record)
{
    fnname n;
    size_t h;

    if (!record)
        return 0;
    n = fnname_parts(record);
    h = strlen(n.head);
    return fnsig_own(n.tail, h ? (unsigned char)n.head[h - 1] : 0);
}

int fnsig_reserve(fnsig_table *t, size_t count, size_t max)
{
    size_t cap = t->cap;

    if (count < t->cap)
        return 0;
    /* both arrays to the same capacity: the second grown from the first's old one */
    if (grow_reserve((void **)&t->bits, &cap, count, sizeof(*t->bits), 1024, max, GROW_KEEP) != 0)
        return -1;
    if (grow_reserve((void **)&t->type, &t->cap, cap - 1, sizeof(*t->type), 1024, max, GROW_KEEP) !=
        0)
        return -1; /* bits is bigger but cap says what both hold */
    return 0;
}

/* The last byte of the type part `head` of that serial (not 0), and its
 * summary made the first time (out of memory: not made; read from the text
 * again next time). */
static unsigned char fnsig_type_note(fnsig_table *t, const char *head, uint32_t serial)
{
    size_t length, cap = t->type_cap, cap2 = t->type_cap;

    if (serial < t->type_cap && t->type_last[serial])
        return t->type_last[serial];
    length = strlen(head);
    if (serial >= t->type_cap &&
        (grow_reserve((void **)&t->types, &cap, serial, sizeof(*t->types), 256, UINT32_MAX,
                      GROW_ZERO) != 0 ||
         grow_reserve((void **)&t->type_prefix, &cap2, serial, sizeof(*t->type_prefix), 256,
                      UINT32_MAX, GROW_ZERO) != 0 ||
         grow_reserve((void **)&t->type_last, &t->type_cap, cap - 1, 1, 256, UINT32_MAX,
                      GROW_ZERO) != 0)) /* the others may be bigger: type_cap says what all hold */
        return (unsigned char)head[length - 1];
    t->types[serial] = fnsig_type_text(head, length);
    fnname_text_prefix(head, t->type_prefix[serial].words);
    /* last after the bits: a summary whose last byte is set is whole */
    return t->type_last[serial] = (unsigned char)head[length - 1];
}

void fnsig_set(fnsig_table *t, size_t i, const char *record)
{
    fnname n;

    if (!record) {
        t->bits[i] = 0;
        t->type[i] = FNSIG_NO_TYPE;
        return;
    }
    n = fnname_parts(record);
    if (!*n.head) {
        t->bits[i] = fnsig_own(n.tail, 0);
        t->type[i] = FNSIG_NO_TYPE;
        return;
    }
    t->type[i] = strpool_serial(n.head);
    t->bits[i] = fnsig_own(n.tail, fnsig_type_note(t, n.head, t->type[i]));
}

int fnsig_name_prefix(const fnsig_table *t, size_t i, uint64_t prefix[2])
{
    uint32_t type = t->type[i];

    if (type == FNSIG_NO_TYPE || type >= t->type_cap || !t->type_last[type])
        return 0;
    prefix[0] = t->type_prefix[type].words[0];
    prefix[1] = t->type_prefix[type].words[1];
    return 1;
}

size_t fnsig_bytes(const fnsig_table *t, size_t count)
{
    return count * FNSIG_ENTRY_BYTES + t->type_cap * FNSIG_TYPE_BYTES;
}

void fnsig_free(fnsig_table *t)
{
    free(t->bits);
    free(t->type);
    free(t->types);
    free(t->type_prefix);
    free(t->type_last);
    memset(t, 0, sizeof(*t));
}
