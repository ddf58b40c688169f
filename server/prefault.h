/* prefault.h -- memory a read-back is about to fill, made resident on a
 * thread beside it.
 *
 * Reading a large stored session back fills a few hundred MiB of fresh memory
 * (its functions, their index, their names), and the kernel's page faults
 * for it, one per 4 KiB page, were half of the reading thread's time. A
 * snapshot says up front how big those arrays will be, so they are made at
 * once; prefault then populates them (MADV_POPULATE_WRITE, which faults a
 * range in in one call, about half the cost of faulting page by page) on a
 * thread of its own, in slices taken from every region in turn, while the
 * reading thread fills them from the start. Populating never changes what
 * the memory holds, so the two need no lock; the owner only has to wait
 * (prefault_wait) before it moves or frees a region. A kernel without
 * MADV_POPULATE_WRITE (before 5.14) refuses it: the thread stops, the refusal
 * is counted, and the reader faults its pages as before. */
#ifndef JITSCOPE_PREFAULT_H
#define JITSCOPE_PREFAULT_H

#include <pthread.h>
#include <stddef.h>

#define PREFAULT_REGIONS 4

typedef struct prefault {
    struct {
        char *at;
        size_t bytes;
    } region[PREFAULT_REGIONS];
    int regions;
    int running; /* a thread populates: prefault_wait joins it */
    pthread_t thread;
} prefault;

/* Adds the whole pages of [p, p + bytes) (ignored when there is no room left
 * for a region, or nothing of a page in it). Before prefault_start only. */
void prefault_add(prefault *pf, void *p, size_t bytes);
/* Starts populating the regions added; 0, or -1 when there is nothing to do
 * or no thread could be had (the memory then faults in as it is used). */
int prefault_start(prefault *pf);
/* Waits for the thread, if one runs, and forgets the regions (pf can be used
 * again). Call it before a region is moved or freed. */
void prefault_wait(prefault *pf);
/* Populations the kernel refused since the server started. */
unsigned long prefault_refused(void);

#endif
