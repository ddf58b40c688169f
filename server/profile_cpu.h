/* profile_cpu.h -- a CPU profile's own tables inside profile_state (profile.h):
 * the symbol table of native frames and labels, the threads by OS thread id,
 * and the counters; plus reading its log records back (logrec.h).
 *
 * The sampler (cpuprof.h) folds its samples in through cpufold.h, which calls
 * these and logs what they added; storage's read-back calls profile_cpu_read_*
 * with the same records, so a stored CPU profile is rebuilt entry by entry
 * with the same indexes. Bounds: PROFILE_CPU_MAX_SYMBOLS symbols and
 * PROFILE_CPU_MAX_TEXT bytes of names (threads' names included), on top of
 * the stacks and samples profile.h bounds. Caller holds the sessions lock.
 */
#ifndef JITSCOPE_PROFILE_CPU_H
#define JITSCOPE_PROFILE_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#define PROFILE_CPU_MAX_SYMBOLS 262144u
#define PROFILE_CPU_MAX_TEXT (16u * 1024u * 1024u)
#define PROFILE_CPU_MAX_NAME 512u /* bytes of a symbol, module or thread name kept */

/* A new CPU profile (the previous profile goes): running at hz, each sample
 * period_ns of CPU time, fed by sampler run `run`. */
void profile_cpu_start(profile_state *p, uint32_t hz, uint64_t period_ns, int64_t now_ns,
                       uint32_t run);
/* Symbol `index`, which must be the next one: 0, or -1 (full, out of memory,
 * or not the next index). module may be NULL. */
int profile_cpu_symbol(profile_state *p, uint32_t index, const char *name, size_t name_length,
                       const char *module, size_t module_length);
/* Thread `index`: the next one (added) or one already there (its ThreadID,
 * the session's row of it and its name updated). 0, or -1. */
int profile_cpu_thread(profile_state *p, uint32_t index, uint32_t os_thread_id, uint64_t thread_id,
                       uint32_t thread_row, const char *name, size_t name_length);
/* How many bytes of a name of `length` bytes the profile keeps: at most
 * PROFILE_CPU_MAX_NAME, cut on a character boundary (what its log record
 * must carry too). */
size_t profile_cpu_cut(const char *text, size_t length);
/* The text at offset + 1 (what profile_symbol and profile_thread keep), NULL for 0. */
const char *profile_cpu_text(const profile_state *p, uint32_t offset_plus1);
/* A CPU profile's log records read back (logrec.h), one function per kind:
 * its start, a symbol, a thread, a stack, a batch of samples, its counters,
 * a batch's counts by code address.
 * 0, or -1 for a bad payload or one that does not follow what came before
 * (a record of a CPU profile without its start). */
int profile_cpu_read_start(profile_state *p, const uint8_t *b, uint32_t length, int64_t now_ns);
int profile_cpu_read_symbol(profile_state *p, const uint8_t *b, uint32_t length);
int profile_cpu_read_thread(profile_state *p, const uint8_t *b, uint32_t length);
int profile_cpu_read_stack(profile_state *p, const uint8_t *b, uint32_t length);
int profile_cpu_read_samples(profile_state *p, const uint8_t *b, uint32_t length);
int profile_cpu_read_counts(profile_state *p, const uint8_t *b, uint32_t length);
/* LOGREC_CPU_HEAT: a batch's counts by code address added (profile_heat.h). */
int profile_cpu_read_heat(profile_state *p, const uint8_t *b, uint32_t length);

#endif
