/* fnsig.c -- dense signatures of functions' names (see fnsig.h). */
#include "fnsig.h"

#include <stdlib.h>
#include <string.h>

#include "fnname.h"
#include "grow.h"

uint64_t fnsig_text(const char *text, size_t n)
{
    uint64_t bits = 0;
    size_t i;

    for (i = 1; i < n; i++)
        bits |= fnsig_bit((unsigned char)text[i - 1], (unsigned char)text[i]);
    return bits;
}

fnsig_type fnsig_type_text(const char *text, size_t n)
{
    fnsig_type s = {{0, 0}};
    size_t i;

    for (i = 1; i < n; i++) {
        unsigned bit = (unsigned)(fnsig_pair((unsigned char)text[i - 1], (unsigned char)text[i]) >>
                                  57);
        s.bits[bit >> 6] |= 1ull << (bit & 63);
    }
    return s;
}

/* The own part's pairs, after the type part's last byte (0: none). */
static uint64_t fnsig_own(const char *tail, unsigned char last)
{
    const unsigned char *p = (const unsigned char *)tail;
    uint64_t bits;

    if (!*p)
        return 0;
    bits = last ? fnsig_bit(last, p[0]) : 0;
    for (; p[1]; p++)
        bits |= fnsig_bit(p[0], p[1]);
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
    size_t length, cap = t->type_cap;

    if (serial < t->type_cap && t->type_last[serial])
        return t->type_last[serial];
    length = strlen(head);
    if (serial >= t->type_cap &&
        (grow_reserve((void **)&t->types, &cap, serial, sizeof(*t->types), 256, UINT32_MAX,
                      GROW_ZERO) != 0 ||
         grow_reserve((void **)&t->type_last, &t->type_cap, cap - 1, 1, 256, UINT32_MAX,
                      GROW_ZERO) != 0)) /* types may be bigger: type_cap says what both hold */
        return (unsigned char)head[length - 1];
    t->types[serial] = fnsig_type_text(head, length);
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

size_t fnsig_bytes(const fnsig_table *t, size_t count)
{
    return count * FNSIG_ENTRY_BYTES + t->type_cap * FNSIG_TYPE_BYTES;
}

void fnsig_free(fnsig_table *t)
{
    free(t->bits);
    free(t->type);
    free(t->types);
    free(t->type_last);
    memset(t, 0, sizeof(*t));
}
