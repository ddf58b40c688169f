/* perfring.h -- one thread of the target sampled by the kernel: a perf event
 * (software CPU clock, user call chains by frame pointer) and its ring buffer.
 *
 * The server opens one event per thread of the target (cpu -1: it follows the
 * thread across CPUs), maps its ring (one control page and 2^n data pages)
 * and reads the samples out from its own thread (cpuprof.c). Nothing of this
 * is in the target: the kernel takes the samples, and closing the event
 * leaves nothing behind. perfring_parse is the pure decoder of the ring's
 * records (unit-tested and fuzzed: tests/fuzz/fuzz_perfrec.c).
 */
#ifndef JITSCOPE_PERFRING_H
#define JITSCOPE_PERFRING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PERFRING_MAX_STACK 127u  /* user frames per sample (the kernel's default limit) */
#define PERFRING_MAX_COPY 16384u /* bytes of user stack a sample may copy (a multiple of 8) */

typedef struct perfring {
    int fd;
    uint32_t tid;
    void *base;        /* control page, then data */
    size_t data_bytes; /* a power of two */
    uint64_t lost;     /* samples the kernel reported lost (a full ring) */
    int hung_up;       /* the thread ended: drain once more and close */
    int copy;          /* its samples carry registers and a stack copy */
} perfring;

/* What the event samples. */
typedef struct perfring_config {
    uint64_t period_ns;  /* CPU time between samples */
    int exclude_kernel;  /* only samples taken in user mode (perf_event_paranoid 2) */
    unsigned data_pages; /* a power of two */
    unsigned stack_copy; /* bytes of the user stack copied from its top (rsp) with each
                            sample, with the user rbp, rsp and rip: 0 none, else a
                            multiple of 8 up to PERFRING_MAX_COPY */
} perfring_config;

struct perf_event_attr;
/* The event perfring_open asks for: the software CPU clock every period_ns of
 * the thread's CPU time; per sample only what perfring_parse reads (tid, time,
 * the user call chain: no kernel chain, no IP or period of their own; with
 * stack_copy, the user rbp, rsp, rip and stack_copy bytes of the user stack
 * from rsp: what frames.c recovers the frames the chain misses from), at most
 * PERFRING_MAX_STACK user frames; no
 * inheritance, no mmap/comm/task records; the reader is woken when the ring is
 * half full, not per sample (the kernel's wake-up is an interrupt in the
 * sampled thread). */
void perfring_fill_attr(struct perf_event_attr *a, const perfring_config *c);

/* Opens and maps the event of thread tid. 0, or -1 with errno (EACCES /
 * EPERM: not allowed; ESRCH: the thread is gone; EMFILE; ENOMEM / EPERM from
 * mmap: the locked-memory limit). */
int perfring_open(perfring *r, pid_t tid, const perfring_config *c);
void perfring_close(perfring *r);
/* Whether the event could be opened on tid (pid 0: the calling thread), opened
 * and closed at once, nothing mapped. 0, or -1 with errno. */
int perfring_try(pid_t tid, int exclude_kernel);

/* One record decoded. */
enum perfring_kind { PERFRING_OTHER = 0, PERFRING_SAMPLE = 1, PERFRING_LOST = 2 };
typedef struct perfring_record {
    int kind;
    uint32_t pid, tid;
    uint64_t time_ns; /* CLOCK_MONOTONIC */
    int kernel;       /* the sample was taken while the thread ran in the kernel */
    uint32_t nr;      /* user frames in ips, leaf first (context markers left out) */
    uint64_t ips[PERFRING_MAX_STACK];
    uint64_t lost;        /* PERFRING_LOST */
    int has_regs;         /* the user registers below were sampled */
    uint64_t bp, sp, ip;  /* user rbp, rsp, rip */
    uint32_t stack_bytes; /* bytes of the user stack from sp in stack (0: none) */
    const uint8_t *stack; /* in the record: valid during the callback only */
} perfring_record;

/* Decodes one record of `length` bytes (the header's size) as the events
 * above write it (sample_type TID | TIME | CALLCHAIN, with REGS_USER |
 * STACK_USER when stack_copy is not 0: `copy` says which). 0, or -1 when it
 * is not a well-formed record. */
int perfring_parse(const uint8_t *rec, size_t length, int copy, perfring_record *out);

/* Reads every whole record in the ring and hands each to fn (a record that
 * wraps around is copied first); returns how many, or -1 when the ring's
 * positions make no sense (it is then emptied). */
int perfring_drain(perfring *r, void (*fn)(void *ctx, const perfring_record *rec), void *ctx);

#endif
