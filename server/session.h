/* session.h -- everything the server knows about one observed .NET process.
 *
 * A session is created by `run`/attach (state STARTING) and bound to an agent
 * connection by the token in the agent's hello. session_apply() folds each
 * decoded record into the state below. It is idempotent on runtime IDs, so the
 * duplicates that catch-up produces never double-count, and it tolerates IDs it
 * has never seen. Rule from docs/RUNTIME.md (Catching up): live callbacks are newer than
 * the enumeration, so a catch-up record only fills in what is unknown.
 * Stack walks, the sampling profile and the GC/suspension timeline have
 * their own files (stacks.h, profile.h, timeline.h); session_apply() hands
 * their records over. All access is under the registry lock (sessions.h);
 * the one exception, for a reader that pinned the session (sessions_pin), is
 * a function's position in `functions` and its name, which stay valid with
 * the lock released (docs/ARCHITECTURE.md, the locking rule).
 */
#ifndef JITSCOPE_SESSION_H
#define JITSCOPE_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "idindex.h"
#include "idmap.h"
#include "profile.h"
#include "session_log.h"
#include "stacks.h"
#include "strpool.h"
#include "timeline.h"
#include "wire_decode.h"

#define SESSION_ID_MAX                                                                             \
    1000000 /* session ids are 1..SESSION_ID_MAX (REST paths, stream subscriptions) */
#define SESSION_MAX_FUNCTIONS (4u * 1024u * 1024u)
#define SESSION_MAX_MODULES (256u * 1024u)
#define SESSION_MAX_THREADS (256u * 1024u)
#define SESSION_MAX_EVENTS (1024u * 1024u) /* newest kept; older ones are evicted and counted */
#define SESSION_MAX_CODE_VERSIONS 4        /* code starts kept per function to recognise repeats */
#define SESSION_JIT_NESTING 8

typedef enum session_state {
    SESSION_STARTING,     /* launched or attaching, no agent hello yet */
    SESSION_LIVE,         /* agent connected */
    SESSION_DISCONNECTED, /* agent link lost, process still running */
    SESSION_DETACHING,    /* detach requested, waiting for the runtime */
    SESSION_DETACHED,     /* agent left the process */
    SESSION_EXITED,       /* process ended */
    SESSION_FAILED,       /* launch or attach failed */
    SESSION_INTERRUPTED,  /* stored while live, and the server died: read back from storage */
} session_state;

enum session_mode { SESSION_MODE_RUN = 1, SESSION_MODE_ATTACH = 2 };

/* One live compilation of a function (catch-up knows none of these). */
typedef struct session_compilation {
    int64_t time_ns;      /* wall clock when it finished */
    uint64_t jit_ns;      /* how long the JIT took */
    uint32_t native_size; /* bytes of the code it made */
    uint32_t tier;        /* wire_tier */
} session_compilation;

#define SESSION_MAX_COMPILATIONS 16 /* kept per function; later ones are counted only */

/* One function: 128 bytes, in one array per session that grows without
 * zero-filling (docs/ARCHITECTURE.md, Server memory). Its name is interned in
 * the session's string pool; a function compiled once has no compilation list
 * (its one compilation is the fields below): read compilations with
 * session_function_compilation(). function_id must stay the first field (the
 * index, idindex.h, reads it there). */
typedef struct session_function {
    uint64_t function_id, module_id;
    uint32_t thread_row; /* its last compilation's thread: position in threads + 1, 0 unknown */
    /* low 32 bits of the distinct native code starts seen (the newest
     * SESSION_MAX_CODE_VERSIONS, a ring); two versions of one method whose
     * starts differ only above 4 GiB would count as one */
    uint32_t code_start[SESSION_MAX_CODE_VERSIONS];
    const char *name;     /* interned (session.names): valid while the session lives */
    int64_t first_jit_ns; /* wall clock, Unix ns */
    int64_t last_jit_ns;
    uint64_t jit_time_ns; /* duration of the last compilation (Finished - Started) */
    uint64_t jit_time_total_ns;
    /* all kept compilations, in order, from the second one on (read back from
     * storage: from the first); NULL while compilation_count <= 1 */
    session_compilation *compilation_list;
    uint32_t versions; /* distinct code starts; 2+ means re-JIT (tier-up, OSR...) */
    uint32_t token, il_size, native_size;
    uint32_t flags; /* WIRE_FLAG_CATCHUP (only known from enumeration), _DYNAMIC */
    int32_t hresult;
    uint32_t jit_count;           /* compilations observed live */
    uint32_t compilations_unkept; /* compilations after the table was full */
    uint8_t jitted;               /* 1: a JIT record (live or catch-up) named it. 0: known only
                       from a name record and stacks (ReadyToRun code, or compiled
                       before attach and not enumerated): named in stacks and
                       profiles, but not listed by /functions nor counted */
    uint8_t tier;                 /* wire_tier of the last compilation */
    uint8_t compilation_count, compilation_cap; /* kept (at most SESSION_MAX_COMPILATIONS) */
    uint8_t persist; /* SESSION_PERSIST_* bits: storage's view of this function */
} session_function;

#define SESSION_PERSIST_QUEUED                                                                     \
    0x1u /* in persist.dirty, or counted in persist.rewrite_count: changed since copied */
#define SESSION_PERSIST_WRITTEN 0x2u /* the writer has copied it at least once */

/* Compilation i (0 <= i < f->compilation_count) of a function, in order. */
session_compilation session_function_compilation(const session_function *f, uint32_t i);

/* A function's name, or NULL when no name record came (the accessor other
 * code should use: how names are held may change). */
static inline const char *session_function_name(const session_function *f) { return f->name; }

typedef struct session_module {
    uint64_t module_id, assembly_id, base_address;
    char *path, *assembly;
    int64_t loaded_ns, unloaded_ns; /* unloaded_ns 0 while loaded */
    uint32_t functions;             /* functions named in it (what its unload retires) */
    uint32_t flags;
    int32_t hresult;
} session_module;

/* One thread for its whole life: (ThreadID, OS thread id, creation). The
 * runtime reuses a dead thread's ThreadID, so the rows are told apart by
 * their position in session.threads (the API's thread_key), which never
 * changes, not even in storage. thread_index maps a ThreadID to its current
 * row until a THREAD_DESTROYED retires it; thread_os_index maps an OS thread
 * id to the newest row that had it. */
typedef struct session_thread {
    uint64_t thread_id;
    uint32_t os_thread_id;
    uint32_t flags; /* WIRE_FLAG_CATCHUP (known from enumeration only), SESSION_THREAD_* */
    char *name;
    int alive;
    int64_t created_ns, ended_ns;
    unsigned jit_depth; /* JIT started without finished on this thread */
    struct {
        uint64_t function_id;
        uint64_t start_ns;
    } jit_stack[SESSION_JIT_NESTING];
} session_thread;

#define SESSION_THREAD_STARTED 0x10000u /* a THREAD_CREATED (live or enumerated) came for it */
#define SESSION_THREAD_OS_NAME                                                                     \
    0x20000u /* its name is the OS's (WIRE_FLAG_OS_NAME), not the runtime's */

/* One entry of the event log behind /events and the live stream (48 bytes).
 * What id, value and extra hold depends on the type:
 *   JIT_FINISHED     FunctionID      JIT duration ns      native size
 *   MODULE_*         ModuleID        base address         -
 *   ASSEMBLY_LOADED  AssemblyID      manifest ModuleID    -
 *   THREAD_*         ThreadID        OS thread id         thread row + 1 (0: unknown)
 *   CATCHUP_END      -               duration ns          functions
 *   DETACH_STATUS    -               HRESULT              state
 *   GC_FINISHED      GC reason       duration ns          generation bits      (`gc`)
 *   RUNTIME_SUSPEND  suspend reason  duration ns          1 if aborted         (`suspension`)
 *   STACK_END        snapshot number suspend ns           threads              (`stack_snapshot`)
 *   PROFILE_STATUS   requested mHz | budget permille << 32, effective mHz, wire state (`profile`)
 * time_ns is when it began (a GC's or a suspension's start). */
typedef struct session_event {
    uint64_t seq;    /* per session, from 1, no gaps */
    int64_t time_ns; /* wall clock of the event in the target */
    uint64_t id;
    uint64_t value;
    uint16_t type; /* wire_record_type */
    uint16_t flags;
    uint32_t extra;
    uint32_t tier; /* JIT_FINISHED: wire_tier of the compilation */
    uint32_t reserved;
} session_event;

/* What storage (store.h) has still to write of a session, kept by the record
 * folders under the sessions lock and copied out by the storage writer. All
 * of it stays empty while storage is off (session_persist_enable). */
/* Entries of a session's replay log (store_replay.h reads them back). */
enum session_replay_kind {
    SESSION_REPLAY_FRAME = 1,         /* an agent record's frame */
    SESSION_REPLAY_PROFILE_START = 2, /* the server started a profile: data uint32 hz */
    SESSION_REPLAY_PROFILE_STOP = 3,  /* the server stopped it (command, link lost, end) */
};

#define SESSION_REPLAY_PENDING_MAX (64u << 20)   /* log bytes waiting for the writer */
#define SESSION_REPLAY_SESSION_MAX (1024u << 20) /* log bytes for one session, in all */

/* A replay log entry: this header, then its data padded to 8 bytes. */
#define SESSION_REPLAY_PADDED(length) (((size_t)(length) + 7u) & ~(size_t)7u)
typedef struct session_replay_header {
    uint8_t kind;
    uint8_t zero[3];
    uint32_t length;
    int64_t now_ns; /* the server's wall clock when it was applied */
} session_replay_header;

typedef struct session_persist {
    int past;        /* read back from the database (read-only; never written again) */
    int loaded;      /* past: its content was read (else only its header and summary) */
    char *summary;   /* past and not loaded: its list entry (JSON) as stored */
    uint32_t *dirty; /* indexes of the functions not yet written, changed since marked */
    size_t dirty_count, dirty_cap;
    /* Functions written before and changed again (a re-JIT) are not listed:
     * they carry SESSION_PERSIST_QUEUED and SESSION_PERSIST_WRITTEN, and the
     * writer rewrites them in batches, in index order (store_writer.c) */
    size_t rewrite_count;              /* functions waiting so */
    uint64_t rewrite_since_ns;         /* monotonic: when the oldest of them was queued */
    uint32_t rewrite_cursor;           /* the writer's: where its running batch goes on */
    int dirty_all;                     /* a mark found no memory: the writer copies them all */
    uint64_t modules_gen, threads_gen; /* bumped by every module / thread change */
    /* replay log: the records behind stack snapshots, profiles and the
     * GC/suspension timeline, and the server's profile start/stop, in order
     * (store_replay.h), waiting for the writer */
    unsigned char *replay;
    size_t replay_len, replay_cap;
    uint64_t replay_total, replay_lost; /* bytes logged; bytes lost (over the cap) */
    /* the writer's own: what it has written */
    uint64_t stored_modules_gen, stored_threads_gen, stored_event_seq;
    uint64_t stored_header_hash;  /* fingerprint of the header last written (store_writer.c) */
    uint64_t stored_traffic_hash; /* and of its link traffic counters (records, bytes) */
    uint64_t stored_seen_ns;      /* monotonic: when its row last said it was seen live */
    uint64_t replay_lost_counted; /* of replay_lost, what the stats' `lost` has */
    char load_error[160];         /* past: why its content could not all be read */
} session_persist;

typedef struct session {
    int id;
    pid_t pid;
    int mode;
    /* process tree of one `jitscope run`: the launched process's session is the
     * root (root_id == id); every other process of the run that loads the agent
     * gets a session of its own with the root's id and token */
    int root_id;
    pid_t parent_pid; /* from /proc when the agent connected (else its hello); 0 unknown */
    session_state state;
    char token[WIRE_TOKEN_LEN + 1];
    char *command_line;
    char error[256]; /* why a launch/attach failed, or the detach refusal */
    int has_exit_code, exit_code;
    int exit_signal; /* the signal that ended the launched process (exit_code 128+n); 0 none */
    int64_t created_ns, connected_ns, ended_ns;
    /* runtime identity from the hello */
    uint16_t runtime_type, clr_instance_id, major, minor, build, qfe;
    uint32_t ring_bytes;
    int64_t clock_offset_ns; /* realtime - monotonic of the target */
    /* link */
    int link_id; /* connection currently bound, 0 when none */
    uint64_t records, bytes, last_seq, seq_gaps, connections;
    wire_drops drops;
    wire_agent_cost agent_cost; /* the agent's own time in JIT callbacks (cumulative) */
    uint64_t catchups;
    wire_catchup last_catchup;
    int64_t detach_requested_ns, detach_finished_ns;
    int32_t detach_hresult;
    /* state */
    session_function *functions; /* append-only: a position stays the same function */
    size_t function_count, function_cap;
    idindex function_index;
    strpool names;            /* function names, interned */
    size_t compilation_bytes; /* what the functions' compilation lists hold */
    session_module *modules;
    size_t module_count, module_cap;
    idmap module_index;
    session_thread *threads; /* append-only: a position stays the same thread */
    size_t thread_count, thread_cap;
    idmap thread_index, thread_os_index;
    size_t functions_jitted; /* functions with jitted set: what /functions lists */
    uint64_t jit_time_total_ns, jit_compilations, capacity_drops;
    uint64_t tier_compilations[WIRE_TIER_COUNT], tier_jit_ns[WIRE_TIER_COUNT]; /* live JITs */
    wire_tiers_status tiers; /* the agent's last word on its tier source */
    int tiers_known;         /* 1 once the agent sent a WIRE_TIERS_STATUS */
    stacks_state stacks;
    profile_state profile;
    timeline_state timeline;
    /* event log: ring of SESSION_MAX_EVENTS */
    session_event *events;
    size_t event_cap;
    uint64_t event_seq; /* last seq given */
    uint64_t events_evicted;
    session_persist persist;
    /* readers that work on this session with the lock released (the functions
     * query): while pinned it is not freed, only taken out of the registry
     * (sessions.c frees it at the last unpin) */
    unsigned pins;
    int forgotten;
} session;

/* What a session holds in memory, in bytes (GET /api/sessions/{id}: "memory").
 * functions: the records in use; functions_reserved: the array's capacity, of
 * which the part beyond them is address space never written (it grows without
 * zero-filling, so those pages are not resident). */
typedef struct session_memory {
    size_t functions, functions_reserved, function_index, names, events, compilations;
} session_memory;
void session_memory_usage(const session *s, session_memory *m);

/* For storage's read-back (store_load.c): appends a zeroed function with this
 * ID (0: not indexed; a later one takes an ID over), its name into the pool,
 * a kept compilation in order. NULL / -1 when a cap is reached or memory
 * runs out. */
session_function *session_function_append(session *s, uint64_t id);
/* A zeroed module / a new live thread with this ID, appended; the ID finds it
 * from now on (ingest for a reused ID, storage's read-back in file order).
 * NULL at a cap or out of memory (counted in capacity_drops). */
session_module *session_module_append(session *s, uint64_t id);
session_thread *session_thread_append(session *s, uint64_t id);
/* Gives a thread its OS thread id; the OS id finds it from now on (storage's
 * read-back too). -1 out of memory (counted). */
int session_thread_set_os(session *s, session_thread *t, uint32_t os_thread_id);
int session_function_set_name(session *s, session_function *f, const char *name, size_t length);
int session_function_keep_compilation(session *s, session_function *f,
                                      const session_compilation *c);

/* A pid an agent reported (hello pid, parent pid): the agent's word, so 0
 * (unknown) unless it lies in 1..4194304 (the largest pid_max Linux allows). */
pid_t session_pid_from_agent(uint32_t pid);

session *session_new(int id, int mode, pid_t pid, const char *command_line, const char *token);
void session_free(session *s);

/* Storage is on: from now on, sessions note what changed for its writer. */
void session_persist_enable(void);
int session_persist_enabled(void);
/* The agent's record of this type goes into the replay log (hello, stacks,
 * profile, timeline): link.c hands its frame to session_persist_log. */
int session_persist_wants(uint16_t record_type);
/* Appends one replay log entry; past SESSION_REPLAY_PENDING_MAX bytes
 * waiting, or SESSION_REPLAY_SESSION_MAX logged, it is counted as lost. */
void session_persist_log(session *s, unsigned kind, int64_t now_ns, const void *data,
                         uint32_t length);

/* A sampling profile starts / stops on the server's word (also logged for
 * storage's replay, so a stored profile reads back as it was). */
void session_profile_start(session *s, uint32_t hz, int64_t now_ns);
void session_profile_stop(session *s, int64_t now_ns);

/* Applies one agent record; returns 0, or -1 when the record breaks the session
 * protocol (the caller drops the connection). Never fails on unknown IDs. */
int session_apply(session *s, const wire_record *r, int64_t now_ns, const char **why);

/* Applies one record of a stored session's replay log (store_replay.h):
 * HELLO (walk ids start over), stack, profile and timeline records, as they
 * were applied live at now_ns. -1 for any other type. */
int session_replay(session *s, const wire_record *r, int64_t now_ns);

/* Appends an event that no single record makes (gc, suspension,
 * stack_snapshot, profile): see session_event for the fields. */
/* session_log_event: declared in session_log.h (the record folders' view) */

/* ---- state transitions: the only writers of session.state ----------------
 * (see the diagram in docs/ARCHITECTURE.md). Caller holds the sessions lock. */

/* The agent said hello: LIVE (a session already DETACHING stays so). */
void session_hello(session *s);
/* The server sent the detach command: DETACHING, detach timing reset. */
void session_detach_sent(session *s, int64_t now_ns);
/* The detach command could not be sent: back to LIVE if still DETACHING. */
void session_detach_unsent(session *s);
/* The agent's DETACH_STATUS: requested (DETACHING), refused (LIVE, with the
 * reason in error), succeeded (DETACHED). -1 on an unknown state. */
int session_detach_status(session *s, uint32_t state, int32_t hresult, int64_t now_ns);
/* The agent connection went away: link_id cleared, a running profile stops;
 * EXITED when the process's exit code is known, else a connected session
 * becomes DISCONNECTED. */
void session_link_lost(session *s, int64_t now_ns);
/* The launched process exited with code (run mode, the reaper), or was killed
 * by signal (then code is 128 + signal, the shell's convention): recorded; the
 * session is EXITED now, or when its link is lost (data still to be read). */
void session_exit_code(session *s, int code, int signal, int64_t now_ns);
/* The process is gone (reaper or liveness sweep): EXITED, and ended. */
void session_exited(session *s, int64_t now_ns);

/* The process is gone: no thread of it is alive any more. */
void session_mark_ended(session *s, int64_t now_ns);

/* Oldest retained event seq (events with a smaller seq were evicted). */
uint64_t session_first_event_seq(const session *s);
const session_event *session_event_at(const session *s, uint64_t seq);

session_function *session_find_function(session *s, uint64_t function_id);
session_module *session_find_module(session *s, uint64_t module_id);
/* The thread a ThreadID names now: its newest row, NULL once a THREAD_DESTROYED
 * retired the ID (or never seen). */
session_thread *session_find_thread(session *s, uint64_t thread_id);
/* The thread a record with both IDs is about (a stack walk, a name): the
 * newest row of that OS thread if it had this ThreadID, else the ThreadID's
 * current row unless that is another OS thread. NULL when none. */
session_thread *session_thread_match(session *s, uint64_t thread_id, uint32_t os_thread_id);
/* A thread by its row (position + 1, as session_function.thread_row and the
 * event log keep it); NULL for 0 or out of range. */
session_thread *session_thread_row(session *s, uint32_t row);
/* Folds a THREAD_* record in (session_thread.c; session_apply calls it). */
void session_apply_thread(session *s, const wire_record *r, int64_t when);
/* The thread a JIT record names: its current row, made when unknown (a thread
 * created before the agent saw it). NULL for ThreadID 0 or at the cap. */
session_thread *session_thread_for_jit(session *s, uint64_t thread_id);
/* The row (position + 1) of a thread of this session. */
static inline uint32_t session_thread_row_of(const session *s, const session_thread *t)
{
    return (uint32_t)(t - s->threads) + 1;
}
/* A module's display name: its assembly, else the file name of its path. NULL when unknown. */
const char *session_module_name(session *s, uint64_t module_id);

const char *session_state_name(session_state st);
/* "SIGKILL" for 9...: the name of a signal that ends a process; NULL for 0 or
 * a number without a name here (the number is always reported as well). */
const char *session_signal_name(int signal);
/* "Tier0", "Tier1", "Tier1-OSR"... ("unknown" for WIRE_TIER_UNKNOWN and anything else). */
const char *session_tier_name(uint32_t tier);
const char *session_event_type_name(uint16_t type);

#endif
