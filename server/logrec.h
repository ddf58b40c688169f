/* logrec.h -- the records the server writes into a session's log itself.
 *
 * A session's log (store.h) is what its agent sent, frame by frame, with the
 * server's clock at arrival. A few things that change what a session shows
 * come from the server, not the agent (a profile started or stopped on a
 * user's request, a session taken back after a restart); they go into the
 * same log as frames of the same format (wire.h's header), with record types
 * of their own from LOGREC_FIRST up, which no agent may send (the decoder
 * refuses them from an agent). Snapshots (snapshot.h) use the same range.
 *
 * A CPU profile (cpuprof.h) is the server's own observation, so all of it is
 * logged as such records, in the deduplicated form it is kept in (profile.h):
 * its start, each new symbol, thread and stack once, then its samples in
 * batches of 8 bytes a sample and its counters when they change (at most once
 * a second). Reading them back (profile_cpu.h) rebuilds the same profile; they
 * are observations, kept beside a snapshot. Bounded as the profile is: about
 * 25 MiB at most for one profile. Its samples by code address (profile_heat.h)
 * are logged per batch of the sampler as what the batch added to each address
 * (LOGREC_CPU_HEAT), at most 16 bytes a distinct address a batch.
 */
#ifndef JITSCOPE_LOGREC_H
#define JITSCOPE_LOGREC_H

#include <stdint.h>

enum logrec_type {
    LOGREC_FIRST = 200,
    LOGREC_PROFILE_START = 200, /* payload: uint32_t hz */
    LOGREC_PROFILE_STOP = 201,  /* no payload */
    LOGREC_RESUMED = 202,       /* logrec_resumed: the session was taken back after a gap */
    LOGREC_CPU_START = 203,     /* logrec_cpu_start: a CPU profile started (its own stop: 201) */
    LOGREC_CPU_SYMBOL = 204,    /* logrec_cpu_symbol, then the name and module bytes */
    LOGREC_CPU_THREAD = 205,    /* logrec_cpu_thread, then the name bytes */
    LOGREC_CPU_STACK = 206,     /* logrec_cpu_stack, then depth uint64 frames, leaf first */
    LOGREC_CPU_SAMPLES = 207,   /* logrec_cpu_samples, then count profile_sample entries */
    LOGREC_CPU_COUNTS = 208,    /* profile_cpu_counts (profile.h), whole */
    LOGREC_REFUSED = 209,       /* logrec_refused: agent records refused, not in the log */
    /* 210-219: snapshot.h */
    LOGREC_SECOND = 220,   /* the server's records go on here */
    LOGREC_CPU_HEAT = 220, /* logrec_cpu_heat, then count profile_heat_entry (profile_heat.h) */
    LOGREC_LAST = 229
};

/* LOGREC_RESUMED: a server started on the session's data directory took the
 * session back when its agent reconnected. */
typedef struct logrec_resumed {
    int64_t since_ns;    /* wall clock of the last record before the gap */
    uint64_t gap_ns;     /* how long nothing was received */
    uint64_t lost;       /* records the agent counted as lost meanwhile (no server) */
    uint64_t server_pid; /* the server that took it back */
} logrec_resumed;
_Static_assert(sizeof(logrec_resumed) == 32, "logrec_resumed layout");

/* LOGREC_REFUSED: the agent's records the server refused (inconsistent, or
 * over the memory budget) are not in the log; what they moved is, in one of
 * these before the next record that was taken: the session's counters as the
 * refused ones left them (absolute values; a fold sets them). */
#define LOGREC_REFUSED_KINDS 6 /* session.h: enum session_refused_kind */
typedef struct logrec_refused {
    uint64_t last_seq, seq_gaps, records;  /* the sequence and what arrived, refused ones too */
    uint64_t inconsistent;                 /* session.records_refused */
    uint64_t memory[LOGREC_REFUSED_KINDS]; /* session.budget.refused */
} logrec_refused;
_Static_assert(sizeof(logrec_refused) == 80, "logrec_refused layout");
typedef struct logrec_cpu_start {
    uint32_t hz;
    uint32_t reserved;
    uint64_t period_ns;
} logrec_cpu_start;
_Static_assert(sizeof(logrec_cpu_start) == 16, "logrec_cpu_start layout");

typedef struct logrec_cpu_symbol {
    uint32_t index;         /* the next entry of the symbol table */
    uint16_t name_length;   /* bytes of the name that follow (UTF-8, 1..PROFILE_CPU_MAX_NAME) */
    uint16_t module_length; /* then the module's, 0xffff: none */
} logrec_cpu_symbol;
_Static_assert(sizeof(logrec_cpu_symbol) == 8, "logrec_cpu_symbol layout");

typedef struct logrec_cpu_thread {
    uint64_t thread_id; /* the managed ThreadID, 0 unknown */
    uint32_t index;     /* the next entry, or one to update */
    uint32_t os_thread_id;
    uint16_t name_length; /* bytes of the OS name that follow */
    uint16_t reserved;
    uint32_t thread_row; /* the session's row of the thread (position + 1), 0 unknown */
} logrec_cpu_thread;
_Static_assert(sizeof(logrec_cpu_thread) == 24, "logrec_cpu_thread layout");

typedef struct logrec_cpu_stack {
    uint32_t id; /* the next stack id */
    uint32_t depth;
} logrec_cpu_stack;
_Static_assert(sizeof(logrec_cpu_stack) == 8, "logrec_cpu_stack layout");

typedef struct logrec_cpu_samples {
    int64_t base_ns; /* wall clock of t_ms 0 */
    uint32_t count;
    uint32_t reserved;
} logrec_cpu_samples;
_Static_assert(sizeof(logrec_cpu_samples) == 16, "logrec_cpu_samples layout");

/* LOGREC_CPU_HEAT: what a batch of CPU samples added to the profile's counts
 * by code address: count entries of {address, self, total} follow. */
#define LOGREC_CPU_HEAT_MAX 4096u /* entries a record */
typedef struct logrec_cpu_heat {
    uint32_t count;
    uint32_t reserved;
} logrec_cpu_heat;
_Static_assert(sizeof(logrec_cpu_heat) == 8, "logrec_cpu_heat layout");

static inline int logrec_is_server_type(uint16_t type)
{
    return type >= LOGREC_FIRST && type <= LOGREC_LAST;
}

#endif
