/* prefault.c -- memory a read-back is about to fill, populated beside it
 * (see prefault.h). */
#define _DEFAULT_SOURCE /* madvise */
#include "prefault.h"

#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* A region is populated in this many slices, one of every region in turn, so
 * that each stays ahead of a reader that fills all of them at once. */
#define PREFAULT_SLICES 128

static atomic_ulong prefault_refusals;

void prefault_add(prefault *pf, void *p, size_t bytes)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1);
    uintptr_t end = ((uintptr_t)p + bytes) & ~(page - 1);

    if (!p || pf->regions >= PREFAULT_REGIONS || end <= start)
        return;
    pf->region[pf->regions].at = (char *)start;
    pf->region[pf->regions].bytes = end - start;
    pf->regions++;
}

#ifdef MADV_POPULATE_WRITE
static void *prefault_run(void *arg)
{
    prefault *pf = arg;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    int slice, i;

    for (slice = 0; slice < PREFAULT_SLICES; slice++)
        for (i = 0; i < pf->regions; i++) {
            size_t pages = pf->region[i].bytes / page;
            size_t from = pages * (size_t)slice / PREFAULT_SLICES * page;
            size_t to = pages * (size_t)(slice + 1) / PREFAULT_SLICES * page;
            if (to > from &&
                madvise(pf->region[i].at + from, to - from, MADV_POPULATE_WRITE) != 0) {
                atomic_fetch_add(&prefault_refusals, 1);
                return NULL; /* no memory for it, or a kernel without it: the reader faults */
            }
        }
    return NULL;
}
#endif

int prefault_start(prefault *pf)
{
    if (pf->running || pf->regions == 0)
        return -1;
#ifdef MADV_POPULATE_WRITE
    pf->running = pthread_create(&pf->thread, NULL, prefault_run, pf) == 0;
#else
    atomic_fetch_add(&prefault_refusals, 1);
#endif
    return pf->running ? 0 : -1;
}

void prefault_wait(prefault *pf)
{
    if (pf->running)
        pthread_join(pf->thread, NULL);
    pf->running = 0;
    pf->regions = 0;
}

unsigned long prefault_refused(void) { return atomic_load(&prefault_refusals); }
