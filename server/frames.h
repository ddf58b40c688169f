/* frames.h -- the frames a CPU sample's frame-pointer chain misses, recovered
 * from the user registers and the copy of the user stack's top the kernel
 * takes with each sample (perfring.h: CPUPROF_STACK_COPY bytes from rsp), when
 * the sample is read (cpuprof.c), before it waits to be named.
 *
 * - A native leaf that keeps no frame pointer (libm's sin and log, memmove,
 *   the runtime's helpers, a prolog before rbp is set): the kernel's walk
 *   starts at rbp, which still holds its caller's frame, so the caller is
 *   skipped. The leaf's unwind rule at the sampled address (its file's
 *   .eh_frame, ehframe.h) says where its return address is (CFA - 8, the CFA
 *   rsp-based): that address becomes frame 1. When the leaf saved rbp and
 *   holds another value in it, the kernel's chain after it is not the
 *   thread's: it is replaced by an unwind through the copy from the leaf's
 *   caller (native frames by their rules, looked up at the call; managed ones
 *   by their frame pointers; every return address must be code), cut where
 *   the copy or a rule ends (e->cut).
 * - On-stack replacement: the OSR code runs on its method's Tier0 frame,
 *   whose saved rbp it copies as its own, so the chain goes from the OSR
 *   frame to the Tier0 call site of the patchpoint and on to the caller's
 *   caller. The Tier0 frame lies right above the OSR frame (its rsp is the
 *   OSR frame pointer + 16) and its own frame pointer slot holds the same
 *   saved rbp. Walking the frame pointers through the copy, the slots above
 *   each frame pointer that hold its saved rbp are kept as candidates (their
 *   distance and the return address above them, CPUPROF_CANDIDATES per
 *   sample); cpufold.c takes one only for a frame of OSR code whose distance
 *   is exactly 16 + the Tier0 prolog's rbp - rsp (cpusym_code fp_delta).
 * Nothing is guessed: an address is added only where the unwind rule or the
 * prolog says it is, and the kernel's own chain is kept otherwise. */
#ifndef JITSCOPE_FRAMES_H
#define JITSCOPE_FRAMES_H

#include "cpuprof_run.h"
#include "perfring.h"

/* The sample e (its nr frames already at r->ips[e->first]) completed from
 * rec's registers and stack copy: frames inserted, candidates appended after
 * the frames (e->extra). room: how many more addresses r->ips has after
 * e->first + e->nr. */
void frames_recover(cpuprof_run *r, const perfring_record *rec, cpuprof_sample *e, size_t room);

#endif
