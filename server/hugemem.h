/* hugemem.h -- asks the kernel to back the server's big arrays with huge pages.
 *
 * Reading a large stored session back touches a few hundred MiB of fresh
 * memory (functions, their index, their names). With 4 KiB pages that is one
 * page fault per 4 KiB, and the faults cost more than the reading; with
 * transparent huge pages in "madvise" mode (Debian's default) a region the
 * process marked MADV_HUGEPAGE faults 2 MiB at a time. Only whole 2 MiB
 * stretches inside an allocation are marked, so nothing outside it changes. */
#ifndef JITSCOPE_HUGEMEM_H
#define JITSCOPE_HUGEMEM_H

#include <stddef.h>

/* Allocations of at least this many bytes are worth marking. */
#define HUGEMEM_MIN_BYTES ((size_t)8 << 20)

/* Marks the whole 2 MiB stretches of [p, p + bytes) for huge pages when bytes
 * >= HUGEMEM_MIN_BYTES. A hint: where the kernel has no transparent huge pages
 * it is refused, and memory works as before, so the result is only counted
 * (hugemem_refused) and never an error. */
void hugemem_advise(void *p, size_t bytes);

/* How many hints the kernel refused since the server started. */
unsigned long hugemem_refused(void);

#endif
