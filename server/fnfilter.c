/* fnfilter.c -- the functions query's name filter (see fnfilter.h). */
#include "fnfilter.h"

#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define FNFILTER_SHORT 16u     /* longer needles go to strcasestr (linear) */
#define FNFILTER_SEAM_BITS 63u /* filters up to 64 bytes test the seam from a mask */

/* How many of the needle's n lower-case bytes, from the i-th on, at (ASCII
 * case folded) matches: n on a whole match, less at the first difference
 * (also at at's NUL). */
static size_t fnfilter_matched(const char *at, const char *needle, size_t n, size_t i)
{
    for (; i < n; i++) {
        unsigned char h = (unsigned char)at[i];
        if ((h >= 'A' && h <= 'Z' ? h + 32 : h) != (unsigned char)needle[i])
            break;
    }
    return i;
}

/* ASCII case-insensitive substring test; the needle is lower-case already and
 * not empty. Plain bytes, for any string. */
static int fnfilter_plain_at(const char *hay, const char *needle, size_t n)
{
    unsigned char first = (unsigned char)needle[0];
    const char *p;

    for (p = hay; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != first)
            continue;
        if (fnfilter_matched(p, needle, n, 1) == n)
            return 1;
    }
    return 0;
}

/* The same for a name in a session's string pool, 16 bytes at a time: a
 * block with neither the needle's first two bytes (either case) one after
 * the other nor the end is skipped whole. It may read up to 16 bytes past the
 * name's NUL, which the pool allows (STRPOOL_SLACK, zeroed). Adds the bytes
 * it compared to *work. A needle longer than FNFILTER_SHORT is left to
 * strcasestr (linear whatever the name: a hostile name and needle cannot
 * make it quadratic). */
static int fnfilter_pooled(const char *name, const char *needle, size_t n, size_t *work)
{
    size_t done = 0;
    int found = 0;

    if (n > FNFILTER_SHORT) {
        *work += strlen(name) * 4;
        return strcasestr(name, needle) != NULL;
    }
#if defined(__SSE2__)
    {
        unsigned char first = (unsigned char)needle[0];
        unsigned char second = n > 1 ? (unsigned char)needle[1] : 0;
        const __m128i zero = _mm_setzero_si128(), c1 = _mm_set1_epi8((char)first);
        const __m128i c2 = _mm_set1_epi8((char)second);
        /* OR 0x20 turns A-Z into a-z (and other bytes into candidates only) */
        const __m128i f1 = _mm_set1_epi8(first >= 'a' && first <= 'z' ? 0x20 : 0);
        const __m128i f2 = _mm_set1_epi8(second >= 'a' && second <= 'z' ? 0x20 : 0);
        const char *p;

        for (p = name; !found; p += 16) {
            __m128i w = _mm_loadu_si128((const __m128i *)(const void *)p);
            unsigned end = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, zero));
            unsigned hit = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_or_si128(w, f1), c1));
            if (n > 1) { /* and the needle's second byte next: far fewer candidates */
                __m128i w2 = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
                hit &= (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_or_si128(w2, f2), c2));
            }
            if (end)
                hit &= (end & -end) - 1; /* only before the NUL */
            done += 16;
            for (; hit && !found; hit &= hit - 1) {
                size_t i = fnfilter_matched(p + __builtin_ctz(hit), needle, n, 0);
                done += i;
                found = i == n;
            }
            if (end)
                break;
        }
    }
#else
    found = fnfilter_plain_at(name, needle, n);
    done = strlen(name) * n;
#endif
    *work += done;
    return found;
}

/* A new type part for the name filter: whether the filter is in it, and
 * which of the filter's first bytes it ends with (the seam mask). */
static void fnfilter_head_seen(fnfilter *q, const char *head, size_t *work)
{
    size_t length = strlen(head), k, most = q->length - 1;
    unsigned char first = (unsigned char)q->needle[0];

    q->head_seen = head;
    q->head_seen_length = length;
    q->head_seen_matches = fnfilter_pooled(head, q->needle, q->length, work);
    q->head_seen_seam = 0;
    if (most > FNFILTER_SEAM_BITS)
        return; /* a longer filter is tested on the whole name */
    if (most > length)
        most = length;
    for (k = 1; k <= most; k++) {
        unsigned char c = (unsigned char)head[length - k];
        if ((c >= 'A' && c <= 'Z' ? c + 32 : c) == first &&
            fnfilter_matched(head + length - k, q->needle, k, 1) == k)
            q->head_seen_seam |= 1ull << k;
    }
    *work += most;
}

/* The name filter on a name record (fnname.h): in its type part (tested
 * once for a run of the type's methods), in its own part, or across the
 * two. Adds the bytes it compared to *work. 1 in, 0 not, -1 out of memory. */
int fnfilter_record(fnfilter *q, const char *record, size_t *work)
{
    fnname n = fnname_parts(record);
    size_t n1 = q->length - 1, k;
    uint64_t seam;

    if (!*n.head)
        return fnfilter_pooled(n.tail, q->needle, q->length, work);
    if (n.head != q->head_seen)
        fnfilter_head_seen(q, n.head, work);
    if (q->head_seen_matches || fnfilter_pooled(n.tail, q->needle, q->length, work))
        return 1;
    if (n1 == 0)
        return 0;
    if (n1 <= FNFILTER_SEAM_BITS) {
        for (seam = q->head_seen_seam; seam; seam &= seam - 1) {
            k = (size_t)__builtin_ctzll(seam);
            *work += q->length - k;
            if (fnfilter_matched(n.tail, q->needle + k, q->length - k, 0) == q->length - k)
                return 1;
        }
        return 0;
    }
    if (!q->whole && !(q->whole = calloc(1, FNNAME_MAX + 1 + STRPOOL_SLACK)))
        return -1;
    *work += fnname_copy(record, q->whole, FNNAME_MAX + 1);
    return fnfilter_pooled(q->whole, q->needle, q->length, work);
}

int fnfilter_text(const char *text, const char *needle, size_t n)
{
    return text && fnfilter_plain_at(text, needle, n);
}

void fnfilter_init(fnfilter *f, const char *needle, size_t length)
{
    memset(f, 0, sizeof(*f));
    f->needle = needle;
    f->length = length;
}

void fnfilter_free(fnfilter *f)
{
    free(f->whole);
    f->whole = NULL;
}
