/* hugemem.h -- huge pages for the server's big arrays, when asked for.
 *
 * With transparent huge pages in "madvise" mode (Debian's default) a region
 * marked MADV_HUGEPAGE faults 2 MiB at a time instead of 4 KiB, which saves
 * page faults where fresh 2 MiB blocks are cheap to zero. They are not cheap
 * everywhere: on a VM whose balloon driver reports free memory to the host
 * (free page reporting, as on the VM the benchmarks run on), a free 2 MiB block
 * is handed back to the host within a second or two, and zeroing it again
 * faults it in on the host: a read-back of 1,000,000 functions took about
 * 1 s with huge pages against 0.4 s with 4 KiB pages, which come from
 * smaller free blocks the host never takes (docs/BENCHMARKS.md). So the
 * marking is off unless JITSCOPE_HUGEPAGES=1 (hugemem_configure); only whole
 * 2 MiB stretches inside an allocation are marked, so nothing outside it
 * changes. */
#ifndef JITSCOPE_HUGEMEM_H
#define JITSCOPE_HUGEMEM_H

#include <stddef.h>

/* Allocations of at least this many bytes are worth marking. */
#define HUGEMEM_MIN_BYTES ((size_t)8 << 20)

/* JITSCOPE_HUGEPAGES's value: NULL, "" or "0" leave the marking off, "1" turns
 * it on; 0, or -1 with why for anything else. */
int hugemem_configure(const char *value, char *err, size_t errsz);

/* When turned on: marks the whole 2 MiB stretches of [p, p + bytes) for huge
 * pages when bytes >= HUGEMEM_MIN_BYTES. A hint: where the kernel has no
 * transparent huge pages it is refused, and memory works as before, so the
 * result is only counted (hugemem_refused) and never an error. */
void hugemem_advise(void *p, size_t bytes);

/* How many hints the kernel refused since the server started. */
unsigned long hugemem_refused(void);

#endif
