/* pprof.h -- a profile view (profile_view.h) as a pprof file: gzip-compressed
 * profile.proto (server/pprof/profile.proto), the format `go tool pprof`,
 * Pyroscope and Grafana read.
 *
 * Runs without the sessions lock. One function and one location per symbol
 * of the view (frames are already names: addresses are folded into
 * functions), one mapping per module; a function's filename is its source
 * file when its PDB was found (else its module) and start_line its first
 * line; a frame split by line (symbols.h) is a location whose Line is its
 * method's function at that line, so `go tool pprof -lines` and `-list`
 * work; one sample per (stack, thread) with the
 * thread's name and OS id as labels ("thread", "thread_id"). A CPU profile's
 * sample types are samples/count and cpu/nanoseconds (each sample is the
 * sampling period of CPU time); a wall-clock profile's only samples/count,
 * since its rate moves with the suspension budget. The protobuf is encoded by
 * protobuf-c, the gzip by zlib. */
#ifndef JITSCOPE_PPROF_H
#define JITSCOPE_PPROF_H

#include <stddef.h>
#include <stdint.h>

#include "profile_view.h"

typedef struct pprof_options {
    int cpu;             /* a CPU profile (else wall clock) */
    uint64_t period_ns;  /* CPU mode: CPU time per sample */
    int64_t time_ns;     /* the profile's start, Unix ns */
    int64_t duration_ns; /* how long it ran, 0 unknown */
    /* allocations (api_allocations.c): per view stack its estimated bytes and
     * objects, the sample types alloc_objects/count and alloc_space/bytes
     * (one sample per stack; cpu ignored) */
    const double *alloc_bytes, *alloc_objects;
} pprof_options;

/* The file, malloc'd, in *out (*length bytes). 0, or -1 with *why (larger
 * than max_bytes, out of memory). */
int pprof_export(const profile_view *v, const pprof_options *o, size_t max_bytes, uint8_t **out,
                 size_t *length, const char **why);

#endif
