/* mallocopt.c -- the server's settings of glibc's malloc (see mallocopt.h). */
#include "mallocopt.h"

#include <malloc.h>
#include <stdio.h>

void mallocopt_fix_thresholds(void)
{
    /* setting either also stops glibc from moving them */
    if (mallopt(M_MMAP_THRESHOLD, MALLOCOPT_MMAP_MIN) != 1 ||
        mallopt(M_TRIM_THRESHOLD, MALLOCOPT_TRIM_MIN) != 1)
        fprintf(stderr, "jitscope: malloc refused its thresholds (memory freed may stay "
                        "resident)\n");
}
