/* cpufold.h -- the fold half of a CPU sampler run (cpuprof_run.h): its
 * waiting samples named and folded into the session's profile under the
 * sessions lock, logged as the server's records (logrec.h). Called by the
 * run's own thread (cpuprof.c); calls nothing of cpuprof.c. */
#ifndef JITSCOPE_CPUFOLD_H
#define JITSCOPE_CPUFOLD_H

#include "cpuprof_run.h"

/* Names and folds what can be folded of the waiting samples (all of them when
 * final: answers still missing are given up). Returns 0, or -1 when the
 * run's profile is gone (another profile, the session removed): the run ends. */
int cpufold_batch(cpuprof_run *r, int final);

#endif
