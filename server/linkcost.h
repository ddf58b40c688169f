/* linkcost.h -- what the link thread spends per stage of a record (decode,
 * checks, budget, fold, the storage journal), measured only when the server
 * runs with JITSCOPE_LINK_COST=1 (bench/distinct.mjs sets it): one record in
 * LINKCOST_EVERY is timed stage by stage with the monotonic clock (the
 * thread's CPU clock is a system call, microseconds on a VM: more than a
 * stage), a sample whose stages took longer than LINKCOST_PREEMPTED_NS is
 * dropped (the thread lost its CPU inside it), and the scaled means go to
 * every record; the journal's appends (one per batch), the growth of arrays
 * (grow.c, rare) and the whole consume are timed every time (the first two
 * dropped past LINKCOST_WHOLE_PREEMPTED_NS). A connection's totals are written to stderr when
 * it closes. Off, each stage costs a test of a thread-local flag and an
 * atomic load. Written by the link thread only (the read-back of a stored
 * session folds through the same functions on other threads: the flags are
 * set only on the link thread, by link.c). */
#ifndef JITSCOPE_LINKCOST_H
#define JITSCOPE_LINKCOST_H

#include <stdint.h>
#include <stdio.h>

enum {
    LINKCOST_DECODE,  /* wire_decode_frame + wire_decode_record */
    LINKCOST_CHECK,   /* the sequence and the kind's checks (session_admit.c) */
    LINKCOST_BUDGET,  /* the memory budget's bound (session_admit.c) */
    LINKCOST_FOLD,    /* the kind's fold and the memory count (session_apply.c) */
    LINKCOST_JOURNAL, /* persist_frames: the batch into storage's journal */
    LINKCOST_GROW,    /* grow.c: an array made bigger (inside the fold or the check) */
    LINKCOST_CONSUME, /* all of link_consume, the stages and what is between them */
    LINKCOST_STAGES
};

#define LINKCOST_EVERY 16u            /* one record in this many is timed */
#define LINKCOST_PREEMPTED_NS 200000u /* a sampled record longer than this is dropped */
/* a journal append or an array's growth longer than this is dropped (a
 * 128 KiB batch's append takes tens of microseconds, a growth's mremap less) */
#define LINKCOST_WHOLE_PREEMPTED_NS 5000000u

/* Nonzero on this thread while the record being applied is timed. */
extern _Thread_local int linkcost_timing;
/* Nonzero on the link thread (link.c sets it): what is timed whole is timed there only. */
extern _Thread_local int linkcost_thread;

/* JITSCOPE_LINK_COST: NULL, "" or "0" off, "1" on; else -1 and why in err. */
int linkcost_configure(const char *value, char *err, size_t errsz);

/* The link thread, before each record: 1 when it is to be timed (sets linkcost_timing). */
int linkcost_sample(void);

/* The link thread, after the last record of a batch: its sample closed. */
void linkcost_end_batch(void);

/* The thread's CPU clock, for a sampled stage's start (0 when this record is not timed). */
uint64_t linkcost_start(void);

/* The same for a stage timed whole (the journal, growth, the consume): 0 when
 * off or not on the link thread. */
uint64_t linkcost_start_whole(void);

/* Adds now - start to a stage (nothing when start is 0). Returns now. */
uint64_t linkcost_add(int stage, uint64_t start);

/* Counts records applied (timed or not) for the scale of the sampled stages. */
void linkcost_records(uint64_t n);

/* Whether measuring is on. */
int linkcost_on(void);

/* Writes the totals since the last report (per record, and in all) to out,
 * labelled with the connection, and starts again from zero. */
void linkcost_report(FILE *out, int link_id);

#endif
