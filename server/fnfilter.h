/* fnfilter.h -- the functions query's name filter (`q=`, `module=`): an
 * ASCII case-insensitive substring test, on function names held as fnname
 * records and on plain strings (module names and paths).
 *
 * A name record is tested in its type part (once for a run of the type's
 * methods: the filter keeps the last type part it saw), in its own part, and
 * across the two (for filters up to 64 bytes, from a mask of how the type
 * part ends; longer ones on the whole name joined). Pool strings are scanned
 * 16 bytes at a time, which their STRPOOL_SLACK zero bytes allow. Each test
 * adds the bytes it compared to *work, so that a caller can bound a locked
 * step by work, whatever names and filters a hostile peer chose.
 *
 * A session's functions are walked with their names' signatures first
 * (fnsig.h, filters of 2 bytes or more: fnfilter_next): a type part is
 * tested once per query (its verdict kept by its pool serial, its text read
 * only when its summary allows a match or a seam), and a function's own part
 * only when its signature has the needle's pairs that a match there must
 * have (all of them, or from where the longest seam the type part allows
 * leaves off). */
#ifndef JITSCOPE_FNFILTER_H
#define JITSCOPE_FNFILTER_H

#include <stddef.h>
#include <stdint.h>

#include "fnname.h"
#include "fnsig.h"

#define FNFILTER_NEED 63u /* need[j] for j < 63: seams of filters up to 64 bytes */

typedef struct fnfilter {
    const char *needle; /* lower-case, not empty; the caller's */
    size_t length;
    /* the last type part seen, whether the needle is in it, and bit k: it
     * ends with the needle's first k bytes */
    const char *head_seen;
    int head_seen_matches;
    uint64_t head_seen_seam;
    char *whole; /* a long needle's joined name (FNNAME_MAX + 1 + STRPOOL_SLACK), made once */
    /* with signatures (fnsig.h, needles of 2 bytes or more): need[j] the
     * signature of the needle's bytes from j on (j <= 62: where a match across
     * the seam may start in the own part), need_last of its last two bytes */
    uint64_t need[FNFILTER_NEED], need_last;
    fnsig_type need_type;  /* the needle's pairs as a type part's signature has them */
    uint64_t seam_ends[4]; /* bytes a type part must end with to hold the needle's start */
    uint8_t *verdicts;     /* per type part serial: FNFILTER_TYPE_* or 2 + j (need[j]) */
    uint64_t *seams;       /* per type part serial: its seam mask (head_seen_seam) */
    size_t verdict_cap;    /* of both */
} fnfilter;

/* What fnfilter_next says of the function at the position it returns. */
enum { FNFILTER_NO = 0, FNFILTER_YES = 1, FNFILTER_MAYBE = 2 };

void fnfilter_init(fnfilter *f, const char *needle, size_t length);
/* Whether the name of record holds the needle: 1, 0, or -1 out of memory. */
int fnfilter_record(fnfilter *f, const char *record, size_t *work);
/* Whether the signatures (fnsig.h) can rule names out: the needle has 2
 * bytes or more (a 1-byte one is tested on every name). */
int fnfilter_uses_signatures(const fnfilter *f);
/* With the session's signatures t and pool (lock held): from position
 * `from` on, the first function whose signature does not rule the needle out,
 * or the first whose type part the filter had to test (bounded work a call),
 * or `to`. *verdict: FNFILTER_YES its type part holds the needle (a match),
 * FNFILTER_MAYBE only fnfilter_record can say, FNFILTER_NO not a match. Adds
 * the bytes it read to *work. (size_t)-1 out of memory. */
size_t fnfilter_next(fnfilter *f, const strpool *pool, const fnsig_table *t, size_t from, size_t to,
                     int *verdict, size_t *work);
/* fnfilter_record for the function at position i whose verdict was
 * FNFILTER_MAYBE: its type part's test as fnfilter_next made it, not again. */
int fnfilter_candidate(fnfilter *f, const strpool *pool, const fnsig_table *t, size_t i,
                       const char *record, size_t *work);
/* The same for a plain NUL-terminated string (NULL: no). */
int fnfilter_text(const char *text, const char *needle, size_t n);
void fnfilter_free(fnfilter *f);

#endif
