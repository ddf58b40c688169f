/* profile_view.h -- the part of a profile one GET /profile asks for, copied out.
 *
 * profile_view_take() runs under the sessions lock: it keeps the samples of
 * the threads and the wall-clock window asked for (jitscope's own threads
 * listed but not counted, unless asked for), counts them per stack, per
 * thread and per second, and copies the stacks used (as indexes into a table
 * of names, symbols.h), so that the response (profile_export.h) is built after
 * the lock is released. Cost: one pass over the samples (at most
 * PROFILE_MAX_SAMPLES) and one over the frames of the stacks used; memory at
 * most about 40 MiB for a full profile, 8 MiB of it only when the samples
 * themselves are wanted (speedscope keeps their order).
 */
#ifndef JITSCOPE_PROFILE_VIEW_H
#define JITSCOPE_PROFILE_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "symbols.h"

#define PROFILE_VIEW_MAX_SECONDS 100000u /* a wider window gets only its non-empty seconds */
/* The agent names its threads jitscope-agent (the sender), jitscope-walk (the
 * walker) and jitscope-tiers (the tier source's switch): jitscope's own
 * threads, marked in a view and left out of its totals unless asked for. */
#define PROFILE_VIEW_OWN_PREFIX "jitscope-"

typedef struct profile_query {
    const char *thread;     /* NULL or "": every thread; "0x..": a ThreadID; digits: an
                               OS thread id; anything else: a thread name (exact) */
    uint32_t thread_row;    /* 0: every thread; else only this row's (thread_key + 1) */
    int64_t from_ns, to_ns; /* wall clock window, inclusive */
    int with_samples;       /* keep each sample (thread, stack), in order */
    int own_threads;        /* 1: jitscope's own threads count too (else only when the
                               thread filter names one of them) */
    int by_address;         /* stacks told apart by their frames' code addresses too
                               (profile_addr.h), each frame's in `addrs`: to split by line */
} profile_query;

typedef struct profile_view_stack {
    uint32_t first; /* its leaf frame in frames */
    uint32_t depth; /* >= 1: an empty stack is one "[unknown]" frame */
    uint64_t count; /* samples */
} profile_view_stack;

typedef struct profile_view_thread {
    uint64_t thread_id;
    int64_t thread_key; /* the session's row, -1 when the walk did not know it */
    uint32_t os_thread_id;
    char *name; /* NULL: none */
    uint64_t samples;
    int own;     /* one of jitscope's own threads (PROFILE_VIEW_OWN_PREFIX) */
    int counted; /* its samples are in the view's stacks and total */
} profile_view_thread;

typedef struct profile_view_sample {
    uint32_t thread; /* index in threads */
    uint32_t stack;  /* index in stacks */
} profile_view_sample;

typedef struct profile_view_second {
    int64_t t_ms; /* the second's start, Unix ms */
    uint64_t samples;
} profile_view_second;

typedef struct profile_view {
    symbols syms;
    profile_view_stack *stacks; /* only stacks with samples */
    size_t stack_count;
    uint32_t *frames; /* symbol indexes, each stack leaf first */
    size_t frame_count;
    uint64_t *addrs;              /* by_address: per frame its code address (0: none), else NULL */
    profile_view_thread *threads; /* only threads with samples, first seen first */
    size_t thread_count;
    profile_view_sample *samples; /* with_samples only */
    size_t sample_count;
    profile_view_second *seconds; /* ascending */
    size_t second_count;
    uint64_t total;    /* samples matched and counted */
    uint64_t excluded; /* samples of jitscope's own threads matched but not counted */
} profile_view;

struct session;

/* Caller holds the sessions lock. 0, or -1 when out of memory (v is then empty). */
int profile_view_take(profile_view *v, struct session *s, const profile_query *q);
/* File:line on the view's method frames (srcline.h, resolved by the caller
 * for the FunctionIDs of the symbols; fn_of[i]: symbol i's entry in L, or
 * UINT32_MAX): each method symbol gets its file and first line; with split
 * (and addrs) each frame with a line becomes a symbol of that line (the
 * method's name, its `base` the method's symbol). 0 or -1 (out of memory). */
struct srcline;
int profile_view_lines(profile_view *v, struct srcline *L, const uint32_t *fn_of, int split);
void profile_view_free(profile_view *v);

#endif
