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
 * step by work, whatever names and filters a hostile peer chose. */
#ifndef JITSCOPE_FNFILTER_H
#define JITSCOPE_FNFILTER_H

#include <stddef.h>
#include <stdint.h>

#include "fnname.h"

typedef struct fnfilter {
    const char *needle; /* lower-case, not empty; the caller's */
    size_t length;
    /* the last type part seen, its length, whether the needle is in it, and
     * bit k: it ends with the needle's first k bytes */
    const char *head_seen;
    size_t head_seen_length;
    int head_seen_matches;
    uint64_t head_seen_seam;
    char *whole; /* a long needle's joined name (FNNAME_MAX + 1 + STRPOOL_SLACK), made once */
} fnfilter;

void fnfilter_init(fnfilter *f, const char *needle, size_t length);
/* Whether the name of record holds the needle: 1, 0, or -1 out of memory. */
int fnfilter_record(fnfilter *f, const char *record, size_t *work);
/* The same for a plain NUL-terminated string (NULL: no). */
int fnfilter_text(const char *text, const char *needle, size_t n);
void fnfilter_free(fnfilter *f);

#endif
