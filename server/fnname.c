/* fnname.c -- function names as a shared type's part and their own (see fnname.h). */
#include "fnname.h"

#include <stdlib.h>
#include <string.h>

size_t fnname_split(const char *text, size_t length)
{
    /* what each byte is to the cut: most are nothing (one test a byte) */
    enum { PLAIN, OPENS, CLOSES, DOT };
    static const unsigned char kind[256] = {
        ['<'] = OPENS,  ['('] = OPENS,  ['['] = OPENS, ['>'] = CLOSES,
        [')'] = CLOSES, [']'] = CLOSES, ['.'] = DOT};
    size_t i, depth = 0, dot = 0;

    /* from the end: only the method's own part is read (its parameter
     * list and type arguments), not the long type part before it; a dot
     * at the very start is no cut */
    for (i = length; i > 1 && !dot;) {
        unsigned char k = kind[(unsigned char)text[--i]];
        if (k == PLAIN)
            continue;
        if (k == CLOSES)
            depth++;
        else if (k == OPENS)
            depth -= depth > 0;
        else if (depth == 0)
            dot = i;
    }
    if (!dot)
        return 0;
    i = dot;
    if (i > 1 && text[i - 1] == '.') /* "Ns.Type..ctor": the method is ".ctor" */
        i--;
    return i + 1 >= FNNAME_MIN_HEAD ? i + 1 : 0;
}

/* The address as FNNAME_HEAD_BYTES bytes of 7 bits, high bit set (no NUL). */
static void fnname_encode(const char *head, char out[FNNAME_HEAD_BYTES])
{
    uint64_t address = (uint64_t)(uintptr_t)head;
    unsigned i;

    for (i = 0; i < FNNAME_HEAD_BYTES; i++)
        out[i] = (char)(0x80u | ((address >> (7u * i)) & 0x7fu));
}

void fnname_prefetch(strpool *p, const char *text, size_t length)
{
    size_t cut = length <= FNNAME_MAX ? fnname_split(text, length) : 0;

    if (cut)
        strpool_prefetch(p, text, cut);
    /* the cut kept for fnname_store of the same name (a long name's split
     * reads its parameter list: once is enough) */
    p->hint_whole = text, p->hint_whole_length = length, p->hint_cut = cut;
}

const char *fnname_store(strpool *p, const char *text, size_t length, int intern)
{
    const char *head = NULL;
    char encoded[FNNAME_HEAD_BYTES];
    size_t cut;

    if (length > FNNAME_MAX)
        return NULL;
    if (p->hint_whole == text && p->hint_whole_length == length) {
        cut = p->hint_cut;
        p->hint_whole = NULL;
    } else {
        cut = fnname_split(text, length);
    }
    /* a part's address must fit the record's 49 bits (user space on Linux
     * is below 2^47); one that does not leaves the name whole */
    if (cut && (head = strpool_intern(p, text, cut)) &&
        (uint64_t)(uintptr_t)head >> (7u * FNNAME_HEAD_BYTES) == 0) {
        text += cut;
        length -= cut;
    } else {
        head = NULL;
    }
    fnname_encode(head, encoded);
    return intern ? strpool_intern2(p, encoded, sizeof(encoded), text, length)
                  : strpool_add2(p, encoded, sizeof(encoded), text, length);
}

size_t fnname_length(const char *record)
{
    fnname n = fnname_parts(record);
    return strlen(n.head) + strlen(n.tail);
}

size_t fnname_copy(const char *record, char *out, size_t size)
{
    fnname n = fnname_parts(record);
    size_t head = strlen(n.head), tail = strlen(n.tail), k;

    k = head < size - 1 ? head : size - 1;
    memcpy(out, n.head, k);
    if (tail > size - 1 - k)
        tail = size - 1 - k;
    memcpy(out + k, n.tail, tail);
    out[k + tail] = '\0';
    return strlen(n.head) + strlen(n.tail);
}

char *fnname_dup(const char *record)
{
    size_t length = fnname_length(record);
    char *copy = malloc(length + 1);

    if (copy)
        fnname_copy(record, copy, length + 1);
    return copy;
}

/* Byte order of x[0..n) joined with y, against z: the rest of the comparison
 * once one name's type part is a prefix of the other's. */
static int fnname_cmp_rest(const char *x, size_t n, const char *y, const char *z)
{
    const unsigned char *a = (const unsigned char *)x, *b = (const unsigned char *)z;
    size_t i;

    for (i = 0; i < n; i++, b++)
        if (a[i] != *b)
            return (a[i] > *b) - (a[i] < *b);
    return strcmp(y, (const char *)b);
}

int fnname_cmp(const char *a, const char *b)
{
    fnname x = fnname_parts(a), y = fnname_parts(b);
    const unsigned char *p = (const unsigned char *)x.head, *q = (const unsigned char *)y.head;

    if (x.head == y.head)
        return strcmp(x.tail, y.tail);
    while (*p && *p == *q) /* most names differ early in their type parts */
        p++, q++;
    if (*p && *q)
        return (*p > *q) - (*p < *q);
    if (!*p && !*q)
        return strcmp(x.tail, y.tail);
    /* one type part is a prefix of the other: the shorter name's own part
     * goes on against the longer type part's rest, then its own part */
    if (!*p)
        return -fnname_cmp_rest((const char *)q, strlen((const char *)q), y.tail, x.tail);
    return fnname_cmp_rest((const char *)p, strlen((const char *)p), x.tail, y.tail);
}

int fnname_order(const char *x, const char *y)
{
    fnname n;

    if (x && y)
        return fnname_cmp(x, y);
    if (!x && !y)
        return 0;
    n = fnname_parts(x ? x : y);
    return *n.head || *n.tail ? (x ? 1 : -1) : 0;
}

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "fnname_word loads names as such");
_Static_assert(FNNAME_MIN_HEAD >= 16,
               "a name's first 16 bytes are in its type part when it has one");

/* 8 bytes of a name from p as a big-endian number, 0 from its NUL on (and
 * once *ended, all 0). The pool's slack makes the load safe past the NUL. */
static uint64_t fnname_word(const char *p, int *ended)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t w, nul;

    if (*ended)
        return 0;
    memcpy(&w, p, sizeof(w));
    nul = (w - ones) & ~w & highs; /* the lowest set bit marks the first NUL */
    if (nul) {
        unsigned bytes = (unsigned)__builtin_ctzll(nul) >> 3;
        w = bytes ? w & ((1ull << (8 * bytes)) - 1) : 0;
        *ended = 1;
    }
    return __builtin_bswap64(w);
}

void fnname_text_prefix(const char *from, uint64_t prefix[2])
{
    int ended = 0;

    prefix[0] = fnname_word(from, &ended);
    prefix[1] = fnname_word(from + 8, &ended);
}

void fnname_prefix(const char *record, uint64_t prefix[2])
{
    fnname n;

    prefix[0] = prefix[1] = 0;
    if (!record)
        return;
    n = fnname_parts(record);
    /* a type part has FNNAME_MIN_HEAD (16) bytes at least: the prefix is its */
    fnname_text_prefix(*n.head ? n.head : n.tail, prefix);
}
