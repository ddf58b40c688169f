/* stacks.h -- assembling stack walks, and the snapshots a session keeps.
 *
 * The agent sends one walk of every managed thread as WIRE_STACK_THREAD
 * records (one per thread, frames leaf first) closed by one WIRE_STACK_END,
 * which says what the walk was: a snapshot on request or a profile sample
 * (proto/wire.h). Thread records do not carry the kind, so every walk is
 * assembled here first, keyed by the agent's snapshot_id, until its END:
 * - kind SNAPSHOT: kept (the newest STACKS_KEEP, and at most STACKS_KEEP_FRAMES
 *   frames in all, oldest evicted first), numbered 1, 2, 3... per session, and
 *   logged as a `stack_snapshot` event;
 * - kind SAMPLE: handed to the profile (profile.h), then forgotten.
 * Only FunctionIDs and IPs are stored; names are looked up when a response is
 * built. Hostile input is tolerated: at most STACKS_PENDING walks are assembled
 * at once (the oldest is abandoned and counted in lost_walks), a walk holds at
 * most WIRE_STACK_MAX_THREADS threads and WIRE_STACK_MAX_TOTAL_FRAMES frames
 * (2 MiB), a thread named twice in one walk counts once, and records for a
 * walk already closed (late threads, a repeated END) are ignored and counted.
 * An END for a walk never seen is a walk with no threads (complete: false when
 * it says threads were sent). Caller holds the sessions lock.
 */
#ifndef JITSCOPE_SERVER_STACKS_H
#define JITSCOPE_SERVER_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "eventlog.h"
#include "wire.h"

#define STACKS_KEEP 64u               /* newest snapshots kept per session */
#define STACKS_KEEP_FRAMES (1u << 20) /* frames kept in those snapshots: 16 MiB */
#define STACKS_PENDING 4u             /* walks assembled at the same time */
#define STACKS_CLOSED_MEMORY 64u      /* recently closed snapshot_ids remembered */

typedef struct stacks_thread {
    uint64_t thread_id;
    uint64_t walk_ns;
    uint32_t os_thread_id;
    int32_t hresult;
    uint32_t first_frame; /* index of its first (leaf) frame in the walk's frames */
    uint32_t frame_count;
    uint32_t flags;      /* WIRE_STACK_TRUNCATED */
    uint32_t thread_row; /* the session's row of this thread (position + 1), 0 unknown */
} stacks_thread;

/* One walk: being assembled (pending), or a kept snapshot. */
typedef struct stacks_walk {
    uint64_t snapshot_id; /* the agent's; 0: a free pending slot */
    uint64_t id;          /* kept snapshots: the session's number, from 1 */
    uint64_t request_id;  /* from the END: the POST /stacks that asked for it */
    uint64_t age;         /* pending: order of creation, to abandon the oldest */
    int64_t time_ns;      /* wall clock of the suspension */
    uint64_t suspend_ns, walk_ns;
    int32_t hresult;
    uint32_t retries, threads_sent, threads_total, kind;
    stacks_thread *threads;
    uint32_t thread_count;
    size_t thread_cap;
    wire_stack_frame *frames;
    uint32_t frame_count;
    size_t frame_cap;
} stacks_walk;

/* The walks' slots are made at the session's first stack record and freed with its
 * content (stacks_free): most sessions never walk a stack, and an ended one
 * read back from storage only when asked, so they carry none of it. */
typedef struct stacks_state {
    stacks_walk *pending; /* STACKS_PENDING slots; NULL until the first walk */
    uint64_t pending_age;
    stacks_walk *kept; /* STACKS_KEEP, a ring: kept_first is the oldest; NULL until the first kept */
    unsigned kept_first, kept_count;
    uint64_t kept_frames;
    uint64_t closed[STACKS_CLOSED_MEMORY]; /* ring of snapshot_ids whose END came */
    unsigned closed_next;
    uint64_t last_id;         /* number of the newest kept snapshot */
    uint64_t lost_walks;      /* abandoned before their END */
    uint64_t ignored_records; /* late, repeated, or over a cap */
    uint64_t capacity_drops;  /* threads lost to a failed allocation */
    int requests_waiting;     /* POST /stacks calls waiting on this session (api) */
} stacks_state;

struct wire_record;

/* One thread's walk; thread_row: the session's row of that thread (the
 * session resolves ThreadIDs, which the runtime reuses), 0 unknown. */
void stacks_apply_thread(stacks_state *st, const struct wire_record *r, uint32_t thread_row);
/* Empties a walk and keeps its arrays for the next one. */
void stacks_walk_recycle(stacks_walk *w);
/* A snapshot or sample is complete. A snapshot is kept and logged to `log`;
 * a sample's walk is returned: the caller adds it to the profile and hands it
 * back with stacks_walk_recycle. NULL for snapshots and repeated ENDs. */
stacks_walk *stacks_apply_end(stacks_state *st, eventlog *log, const struct wire_record *r,
                              int64_t when_ns);
/* A new agent connection: walks in progress are abandoned, ids start over. */
void stacks_link_reset(stacks_state *st);
/* Frees every walk and their slots. */
void stacks_free(stacks_state *st);
/* The bytes of the pending and kept slots made so far (the walks' own arrays
 * not counted). */
size_t stacks_block_bytes(const stacks_state *st);

/* Kept snapshots, by position (0 = oldest), by number, by request. NULL: none. */
const stacks_walk *stacks_at(const stacks_state *st, unsigned index);
const stacks_walk *stacks_by_id(const stacks_state *st, uint64_t id);
const stacks_walk *stacks_by_request(const stacks_state *st, uint64_t request_id);

/* Whether a thread's walk found it in native code only, rather than failing:
 * no frame, and DoStackSnapshot answered S_OK (a thread that never ran
 * managed code) or E_FAIL (the runtime's frame iterator found no frame to
 * start from: the finalizer's or the tiered compilation worker's wait, the
 * JIT at work; docs/RUNTIME.md, "Stack snapshots"). */
int stacks_thread_native_only(const stacks_thread *t);
/* 1 when every thread the agent said it sent arrived. */
int stacks_complete(const stacks_walk *w);

#endif
