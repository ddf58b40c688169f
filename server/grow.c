/* grow.c -- capped doubling of arrays (see grow.h). */
#include "grow.h"

#include <stdlib.h>
#include <string.h>

#include "hugemem.h"
#include "linkcost.h"

int grow_reserve(void **items, size_t *cap, size_t count, size_t elem, size_t first, size_t max,
                 int zero)
{
    size_t want;
    void *bigger;
    uint64_t t;

    if (count < *cap)
        return 0;
    if (count >= max)
        return -1;
    want = *cap ? *cap * 2 : first;
    while (want <= count && want < max)
        want *= 2;
    if (want > max)
        want = max;
    t = linkcost_start_whole();
    bigger = realloc(*items, want * elem);
    if (!bigger)
        return -1;
    hugemem_advise(bigger, want * elem); /* before the new part is first touched */
    if (zero == GROW_ZERO)
        memset((char *)bigger + *cap * elem, 0, (want - *cap) * elem);
    *items = bigger;
    *cap = want;
    linkcost_add(LINKCOST_GROW, t);
    return 0;
}
