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
    size_t j;

    memset(f, 0, sizeof(*f));
    f->needle = needle;
    f->length = length;
    if (length < 2)
        return;
    /* a match in the own part has all the needle's pairs; one across the
     * seam from its k-th byte on (k >= 1: the type part ends with the
     * needle's first k) those from k - 1 on, the type part's last byte being
     * in the signature with the own part's first */
    for (j = 0; j + 2 <= length && j < FNFILTER_NEED; j++)
        f->need[j] = fnsig_text(needle + j, length - j);
    f->need_last = fnsig_text(needle + length - 2, 2);
    f->need_type = fnsig_type_text(needle, length);
    for (j = 0; j < length - 1 && j < FNFILTER_SEAM_BITS; j++) {
        unsigned char c = (unsigned char)needle[j];
        f->seam_ends[c >> 6] |= 1ull << (c & 63);
        if (c >= 'a' && c <= 'z') /* a type part's byte is folded in the test */
            f->seam_ends[(c - 32) >> 6] |= 1ull << ((c - 32) & 63);
    }
}

int fnfilter_uses_signatures(const fnfilter *f) { return f->length >= 2; }

enum { FNFILTER_TYPE_UNKNOWN = 0, FNFILTER_TYPE_HOLDS = 1, FNFILTER_TYPE_LAST = 0xff };

/* A type part's verdict for this filter: it holds the needle, or which of
 * need[] its methods' signatures must have (the smallest: from the longest
 * prefix of the needle it ends with); *seam its seam mask. Its text is read
 * only when its summary (fnsig.h) says it may hold the needle or end with the
 * needle's start (*read: 1 then). */
static uint8_t fnfilter_type_verdict(fnfilter *f, const strpool *pool, const fnsig_table *t,
                                     uint32_t serial, uint64_t *seam, int *read, size_t *work)
{
    unsigned char last = serial < t->type_cap ? t->type_last[serial] : 0;
    int long_needle = f->length - 1 > FNFILTER_SEAM_BITS;

    *seam = 0;
    *read = 0;
    if (last && !fnsig_type_has(&t->types[serial], &f->need_type) &&
        (long_needle || !(f->seam_ends[last >> 6] >> (last & 63) & 1)))
        return long_needle ? FNFILTER_TYPE_LAST : 2;
    *read = 1;
    fnfilter_head_seen(f, strpool_by_serial(pool, serial), work);
    *seam = f->head_seen_seam;
    if (f->head_seen_matches)
        return FNFILTER_TYPE_HOLDS;
    if (long_needle)
        return FNFILTER_TYPE_LAST; /* no mask: any seam, the needle's last pair at least */
    if (!f->head_seen_seam)
        return 2; /* need[0]: the whole needle in the own part */
    return (uint8_t)(2 + (63 - __builtin_clzll(f->head_seen_seam)) - 1);
}

/* Room in the verdicts for every type part the pool has now. */
static int fnfilter_verdict_room(fnfilter *f, const strpool *pool, uint32_t type)
{
    size_t cap = pool->count > type ? pool->count : (size_t)type + 1;
    uint8_t *verdicts = realloc(f->verdicts, cap);
    uint64_t *seams;

    if (!verdicts)
        return -1;
    f->verdicts = verdicts;
    if (!(seams = realloc(f->seams, cap * sizeof(*seams))))
        return -1;
    f->seams = seams;
    memset(verdicts + f->verdict_cap, FNFILTER_TYPE_UNKNOWN, cap - f->verdict_cap);
    f->verdict_cap = cap;
    return 0;
}

size_t fnfilter_next(fnfilter *f, const strpool *pool, const fnsig_table *t, size_t from, size_t to,
                     int *verdict, size_t *work)
{
    const uint64_t *bits = t->bits;
    const uint32_t *types = t->type;
    size_t i;

    *verdict = FNFILTER_NO;
    for (i = from; i < to; i++) {
        uint32_t type = types[i];
        uint64_t need;
        uint8_t v;
        int read = 0;

        if (type == FNSIG_NO_TYPE) {
            need = f->need[0];
        } else {
            if (type >= f->verdict_cap && fnfilter_verdict_room(f, pool, type) != 0)
                return (size_t)-1;
            if ((v = f->verdicts[type]) == FNFILTER_TYPE_UNKNOWN)
                v = f->verdicts[type] = fnfilter_type_verdict(f, pool, t, type, &f->seams[type],
                                                              &read, work);
            if (v == FNFILTER_TYPE_HOLDS) {
                *verdict = FNFILTER_YES;
                break;
            }
            need = v == FNFILTER_TYPE_LAST ? f->need_last : f->need[v - 2];
        }
        if ((bits[i] & need) == need) {
            *verdict = FNFILTER_MAYBE;
            break;
        }
        if (read)
            break; /* FNFILTER_NO, for the caller to see the work done */
    }
    *work += (i - from) * FNSIG_ENTRY_BYTES;
    return i;
}

int fnfilter_candidate(fnfilter *f, const strpool *pool, const fnsig_table *t, size_t i,
                       const char *record, size_t *work)
{
    uint32_t type = t->type[i];

    if (type != FNSIG_NO_TYPE && type < f->verdict_cap &&
        f->verdicts[type] != FNFILTER_TYPE_UNKNOWN) { /* its type part as fnfilter_next saw it */
        f->head_seen = strpool_by_serial(pool, type);
        f->head_seen_matches = f->verdicts[type] == FNFILTER_TYPE_HOLDS;
        f->head_seen_seam = f->seams[type];
    }
    return fnfilter_record(f, record, work);
}

void fnfilter_free(fnfilter *f)
{
    free(f->whole);
    free(f->verdicts);
    free(f->seams);
    f->whole = NULL;
    f->verdicts = NULL;
    f->seams = NULL;
    f->verdict_cap = 0;
}
