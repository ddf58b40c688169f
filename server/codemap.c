/* codemap.c -- a session's native code ranges (see codemap.h). */
#include "codemap.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

int codemap_add(codemap *m, uint64_t start, uint32_t size, uint32_t function)
{
    if (size == 0 || start == 0)
        return 0;
    if (function == CODEMAP_NOT_MANAGED && m->not_managed >= CODEMAP_MAX_NOT_MANAGED) {
        m->dropped++;
        return -1;
    }
    if (m->sorted_count + m->tail_count >= CODEMAP_MAX ||
        grow_reserve((void **)&m->tail, &m->tail_cap, m->tail_count, sizeof(*m->tail), 256,
                     CODEMAP_MAX, GROW_KEEP) != 0) {
        m->dropped++;
        return -1;
    }
    m->tail[m->tail_count++] = (codemap_range){start, size, function};
    m->tail_sorted = 0;
    if (function == CODEMAP_NOT_MANAGED)
        m->not_managed++;
    return 0;
}

/* By start; a stable sort keeps equal starts in arrival order (insertion sort
 * for short runs, else merge sort through a scratch array). */
static int codemap_sort(codemap_range *a, size_t n)
{
    codemap_range *tmp;
    size_t width, i;

    if (n < 32) {
        for (i = 1; i < n; i++) {
            codemap_range v = a[i];
            size_t j = i;
            while (j > 0 && a[j - 1].start > v.start) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = v;
        }
        return 0;
    }
    if (!(tmp = malloc(n * sizeof(*tmp))))
        return -1;
    for (width = 1; width < n; width *= 2) {
        for (i = 0; i < n; i += 2 * width) {
            size_t lo = i, mid = i + width < n ? i + width : n,
                   hi = i + 2 * width < n ? i + 2 * width : n, x = lo, y = mid, k = lo;
            while (x < mid && y < hi)
                tmp[k++] = a[y].start < a[x].start ? a[y++] : a[x++];
            while (x < mid)
                tmp[k++] = a[x++];
            while (y < hi)
                tmp[k++] = a[y++];
        }
        memcpy(a, tmp, n * sizeof(*a));
    }
    free(tmp);
    return 0;
}

/* Merges the (sorted) tail into the sorted part; the tail's entries go after
 * sorted entries of the same start (they are newer). */
static int codemap_merge(codemap *m)
{
    size_t n = m->sorted_count + m->tail_count, x, y, k;
    codemap_range *out;

    if (!(out = malloc((n ? n : 1) * sizeof(*out))))
        return -1;
    for (x = 0, y = 0, k = 0; x < m->sorted_count || y < m->tail_count;) {
        if (y >= m->tail_count || (x < m->sorted_count && m->sorted[x].start <= m->tail[y].start))
            out[k++] = m->sorted[x++];
        else
            out[k++] = m->tail[y++];
    }
    free(m->sorted);
    m->sorted = out;
    m->sorted_count = m->sorted_cap = n;
    m->tail_count = 0;
    m->tail_sorted = 1;
    return 0;
}

/* In a[0..n), sorted: the last range with start <= ip that holds ip, looking
 * back past ranges that do not hold it while an earlier one still might (at
 * most 8 steps: overlaps only come from reused memory). NULL when none. */
static const codemap_range *codemap_search(const codemap_range *a, size_t n, uint64_t ip)
{
    size_t lo = 0, hi = n, steps;

    while (lo < hi) { /* first index with start > ip */
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].start <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (steps = 0; lo > 0 && steps < 8; steps++, lo--)
        if (ip - a[lo - 1].start < a[lo - 1].size)
            return &a[lo - 1];
    return NULL;
}

int codemap_find(codemap *m, uint64_t ip, codemap_range *out)
{
    const codemap_range *a, *b;

    if (m->tail_count && !m->tail_sorted) {
        if (codemap_sort(m->tail, m->tail_count) == 0)
            m->tail_sorted = 1;
    }
    if (m->tail_count && m->tail_sorted && m->tail_count * 8 >= m->sorted_count)
        (void)codemap_merge(m); /* out of memory: both stay searchable */
    a = codemap_search(m->sorted, m->sorted_count, ip);
    b = m->tail_sorted ? codemap_search(m->tail, m->tail_count, ip) : NULL;
    if (!m->tail_sorted) { /* could not sort (out of memory): a plain scan, newest last */
        size_t i;
        for (i = 0; i < m->tail_count; i++)
            if (ip - m->tail[i].start < m->tail[i].size && (!b || m->tail[i].start >= b->start))
                b = &m->tail[i];
    }
    if (b && (!a || b->start >= a->start)) /* the tail is newer at equal starts */
        a = b;
    if (!a)
        return 0;
    *out = *a;
    return 1;
}

size_t codemap_count(const codemap *m) { return m->sorted_count + m->tail_count; }

size_t codemap_bytes(const codemap *m)
{
    return (m->sorted_cap + m->tail_cap) * sizeof(codemap_range);
}

void codemap_free(codemap *m)
{
    free(m->sorted);
    free(m->tail);
    memset(m, 0, sizeof(*m));
}
