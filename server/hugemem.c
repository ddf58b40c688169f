/* hugemem.c -- huge-page hints for big arrays (see hugemem.h). */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "hugemem.h"

#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>

#define HUGEMEM_PAGE ((uintptr_t)2 << 20)

static atomic_ulong hugemem_refusals;

void hugemem_advise(void *p, size_t bytes)
{
    uintptr_t start = ((uintptr_t)p + HUGEMEM_PAGE - 1) & ~(HUGEMEM_PAGE - 1);
    uintptr_t end = ((uintptr_t)p + bytes) & ~(HUGEMEM_PAGE - 1);

    if (!p || bytes < HUGEMEM_MIN_BYTES || end <= start)
        return;
#ifdef MADV_HUGEPAGE
    if (madvise((void *)start, end - start, MADV_HUGEPAGE) != 0)
        atomic_fetch_add(&hugemem_refusals, 1);
#else
    atomic_fetch_add(&hugemem_refusals, 1);
#endif
}

unsigned long hugemem_refused(void) { return atomic_load(&hugemem_refusals); }
