/* mallocopt.h -- the server's settings of glibc's malloc, made once at the
 * start of `serve` before any other thread runs (main.c). */
#ifndef JITSCOPE_MALLOCOPT_H
#define JITSCOPE_MALLOCOPT_H

/* Fixes malloc's thresholds: blocks of MALLOCOPT_MMAP_MIN and more are
 * mappings of their own, unmapped when freed; an arena's free top past
 * MALLOCOPT_TRIM_MIN goes back to the system. Left to itself glibc moves both
 * up to the largest block ever freed (up to 32 MiB, and twice that), so a
 * server that once answered with a few MiB of JSON, or read a file into a
 * large buffer, kept that much free and resident in each thread's arena for
 * good (docs/BENCHMARKS.md, the attach/detach soak). Says so on stderr when
 * malloc refuses (the server runs on, its memory less bounded). */
#define MALLOCOPT_MMAP_MIN (256 * 1024)
#define MALLOCOPT_TRIM_MIN (1024 * 1024)
void mallocopt_fix_thresholds(void);

#endif
