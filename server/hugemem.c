/* hugemem.c -- huge pages for big arrays, when asked for (see hugemem.h). */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "hugemem.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define HUGEMEM_PAGE ((uintptr_t)2 << 20)

static atomic_int hugemem_on;
static atomic_ulong hugemem_refusals;

int hugemem_configure(const char *value, char *err, size_t errsz)
{
    if (!value || !value[0] || strcmp(value, "0") == 0) {
        atomic_store(&hugemem_on, 0);
        return 0;
    }
    if (strcmp(value, "1") == 0) {
        atomic_store(&hugemem_on, 1);
        return 0;
    }
    snprintf(err, errsz, "JITSCOPE_HUGEPAGES must be 0 or 1, not '%.40s'", value);
    return -1;
}

void hugemem_advise(void *p, size_t bytes)
{
    uintptr_t start = ((uintptr_t)p + HUGEMEM_PAGE - 1) & ~(HUGEMEM_PAGE - 1);
    uintptr_t end = ((uintptr_t)p + bytes) & ~(HUGEMEM_PAGE - 1);

    if (!atomic_load(&hugemem_on) || !p || bytes < HUGEMEM_MIN_BYTES || end <= start)
        return;
#ifdef MADV_HUGEPAGE
    if (madvise((void *)start, end - start, MADV_HUGEPAGE) != 0)
        atomic_fetch_add(&hugemem_refusals, 1);
#else
    atomic_fetch_add(&hugemem_refusals, 1);
#endif
}

unsigned long hugemem_refused(void) { return atomic_load(&hugemem_refusals); }
