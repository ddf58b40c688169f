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

#include "codemap.h"
#include "code.h"
#include "container.h"
#include "eventlog.h"
#include "allocsites.h"
#include "excsites.h"
#include "fnname.h"
#include "fnsig.h"
#include "idindex.h"
#include "idmap.h"
#include "logrec.h"
#include "procname.h"
#include "profile.h"
#include "record_check.h"
#include "stacks.h"
#include "strpool.h"
#include "timeline.h"
#include "wire_decode.h"

#define SESSION_ID_MAX                                                                             \
    1000000 /* session ids are 1..SESSION_ID_MAX (REST paths, stream subscriptions) */
#define SESSION_MAX_FUNCTIONS (4u * 1024u * 1024u)
#define SESSION_MAX_MODULES (256u * 1024u)
#define SESSION_MAX_THREADS (256u * 1024u)
#define SESSION_MAX_CODE_VERSIONS 4 /* code starts kept per function to recognise repeats */
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

/* How the agent came into the process: `jitscope run` (startup), an attach,
 * or a diagnostic port (diagport.h) whose runtime waited in suspend mode for
 * the agent as its startup profiler (a port's nosuspend runtime is attached:
 * SESSION_MODE_ATTACH with via_port set). */
enum session_mode { SESSION_MODE_RUN = 1, SESSION_MODE_ATTACH = 2, SESSION_MODE_PORT = 3 };

/* A build server outside a run that did part of its work (buildwatch.h). */
#define SESSION_OUTSIDE_MAX 8
typedef struct session_outsider {
    int32_t pid;
    uint32_t cpu_ms;        /* CPU time it used while the run's launched process ran */
    int32_t started_before; /* 1: it ran before the run began; 0: something outside started it */
    char name[40];          /* "MSBuild server", "MSBuild node", "VBCSCompiler"... */
} session_outsider;

/* One live compilation of a function (catch-up knows none of these). */
typedef struct session_compilation {
    int64_t time_ns;      /* wall clock when it finished */
    uint64_t jit_ns;      /* how long the JIT took */
    uint32_t native_size; /* bytes of the code it made */
    uint32_t tier;        /* wire_tier */
} session_compilation;

#define SESSION_MAX_COMPILATIONS 16 /* kept per function; later ones are counted only */

/* What only some functions need: those compiled live more than once, with
 * more than one code version, or past SESSION_MAX_COMPILATIONS. Made the
 * first time one of these is true (session_function_more_of), so that the
 * many functions compiled once carry none of it; until then the accessors
 * below derive its fields from the function's. */
typedef struct session_function_more {
    int64_t last_jit_ns;  /* wall clock of the last compilation */
    uint64_t jit_time_ns; /* duration of the last compilation (Finished - Started) */
    /* code start ring slots 1.. (slot 0 is the function's code_start0) */
    uint32_t code_start[SESSION_MAX_CODE_VERSIONS - 1];
    uint32_t compilations_unkept; /* compilations after the table was full */
    /* all kept compilations, in order, from the second one on (read back from
     * storage: from the first); room for the function's compilation_cap */
    session_compilation list[];
} session_function_more;

/* One function: 88 bytes, in one array per session that grows without
 * zero-filling (docs/ARCHITECTURE.md, Server memory). Its name is a record in
 * the session's string pool, its type's part shared (fnname.h); a function
 * compiled once has no `more` (its one compilation is the fields below): read
 * compilations with session_function_compilation(). function_id must stay
 * the first field (the index, idindex.h, reads it there). */
typedef struct session_function {
    uint64_t function_id, module_id;
    const char *name_record; /* its name (fnname.h) in session.names; NULL: none yet */
    int64_t first_jit_ns;    /* wall clock, Unix ns */
    uint64_t jit_time_total_ns;
    session_function_more *more; /* NULL until needed (above) */
    uint32_t thread_row; /* its last compilation's thread: position in threads + 1, 0 unknown */
    /* low 32 bits of the distinct native code starts seen (the newest
     * SESSION_MAX_CODE_VERSIONS, a ring: slot 0 here, the others in `more`);
     * two versions of one method whose starts differ only above 4 GiB would
     * count as one */
    uint32_t code_start0;
    uint32_t versions; /* distinct code starts; 2+ means re-JIT (tier-up, OSR...) */
    uint32_t token, il_size, native_size;
    uint32_t flags; /* WIRE_FLAG_CATCHUP (only known from enumeration), _DYNAMIC */
    int32_t hresult;
    uint32_t jit_count; /* compilations observed live */
    uint8_t jitted;     /* 1: a JIT record (live or catch-up) named it. 0: known only
                   from a name record and stacks (ReadyToRun code, or compiled
                   before attach and not enumerated): named in stacks and
                   profiles, but not listed by /functions nor counted */
    uint8_t tier;       /* wire_tier of the last compilation */
    uint8_t compilation_count, compilation_cap; /* kept (at most SESSION_MAX_COMPILATIONS),
                                                   room in more->list (0: no list) */
} session_function;

/* The last compilation's wall clock (0: none live) and duration. */
static inline int64_t session_function_last_jit_ns(const session_function *f)
{
    return f->more ? f->more->last_jit_ns : f->jit_count ? f->first_jit_ns : 0;
}
static inline uint64_t session_function_last_jit_time(const session_function *f)
{
    return f->more ? f->more->jit_time_ns : f->jit_time_total_ns;
}
static inline uint32_t session_function_unkept(const session_function *f)
{
    return f->more ? f->more->compilations_unkept : 0;
}
/* Slot i (< SESSION_MAX_CODE_VERSIONS) of the code start ring; 0 when empty. */
static inline uint32_t session_function_code_start(const session_function *f, unsigned i)
{
    return i == 0 ? f->code_start0 : f->more ? f->more->code_start[i - 1] : 0;
}

/* Compilation i (0 <= i < f->compilation_count) of a function, in order. */
session_compilation session_function_compilation(const session_function *f, uint32_t i);

/* A function's name: session_function_name_copy writes it into out (cut to
 * size, NUL-terminated) and returns its length, or returns 0 and writes ""
 * when no name record came; the record itself is read with fnname.h. */
size_t session_function_name_copy(const session_function *f, char *out, size_t size);

typedef struct session_module {
    uint64_t module_id, assembly_id, base_address;
    char *path, *assembly;
    int64_t loaded_ns, unloaded_ns; /* unloaded_ns 0 while loaded */
    uint32_t functions;             /* functions named in it (what its unload retires) */
    uint32_t flags;
    int32_t hresult;
    uint8_t origin; /* origin.h: its origin + 1 once it cannot change; 0 not yet */
} session_module;

/* One thread for its whole life: (ThreadID, OS thread id, creation). The
 * runtime reuses a dead thread's ThreadID, so the rows are told apart by
 * their position in session.threads (the API's thread_key), which never
 * changes, not even in storage. thread_index maps a ThreadID to its current
 * row until a THREAD_DESTROYED retires it; thread_os_index maps an OS thread
 * id to the newest row that had it (session_thread.c). */
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

/* What the last read back of a session could not read (store.h's
 * store_read_report, kept by persist.c). */
typedef struct session_load_report {
    int failed;
    uint32_t parts, parts_read, parts_damaged;
    uint64_t chunks, chunks_read, chunks_damaged, bytes_unread;
} session_load_report;

/* A session as storage (store.h) sees it; persist.c keeps these fields,
 * under the sessions lock. */
typedef struct session_persist {
    int stored;    /* storage keeps it: what it folds goes into its log */
    int loaded;    /* its content is in memory (else only its header and list entry) */
    int past;      /* from an earlier server, read-only */
    int quiet;     /* being read back: the records it makes are already in its log */
    char *summary; /* not loaded: its list entry as last stored (JSON) */
    uint64_t header_hash, summary_hash; /* of what storage last got */
    int64_t summary_mono_ns;            /* when its list entry was last handed over */
    int snapshotted;                    /* ended, and its snapshot handed over */
    uint64_t log_bytes;                 /* appended since its last snapshot */
    uint64_t snapshot_bytes;            /* the size of that snapshot */
    int64_t used_mono_ns;   /* last read back or asked for (unloading: the oldest goes) */
    int resumable;          /* live when its server died, its process still runs: its agent may
                               come back to a server on the same data directory */
    int64_t resume_mono_ns; /* since when it waits for that */
    int64_t last_seen_ns;   /* wall clock of the last word storage had of it */
    char load_error[512];   /* why its content could not all be read, and how much was not */
    session_load_report load_report; /* the same in numbers */
} session_persist;

/* What a session holds against the server's memory budget (budget.h), and
 * what it refused for want of room, by what the record would have added. */
enum session_refused_kind {
    SESSION_REFUSED_FUNCTIONS, /* a new function (its name with it) */
    SESSION_REFUSED_NAMES,     /* a name for a function already known */
    SESSION_REFUSED_MODULES,   /* a new module, or an assembly's name */
    SESSION_REFUSED_THREADS,   /* a new thread, or a thread's name */
    SESSION_REFUSED_EVENTS,    /* an entry of the event log (a re-JIT, an unload...) */
    SESSION_REFUSED_OTHER,     /* stacks, profile samples, GCs and suspensions, the code
                                  view's records (an inline, a code reply's piece) */
    SESSION_REFUSED_KINDS
};
/* A record that grows a session's state leaves the last 1/64 of its share
 * of the memory budget to records that only update it (counters, ends). */
#define SESSION_BUDGET_SPARE 64
typedef struct session_budget {
    uint64_t held;         /* bytes accounted: what the budget's total has of this session */
    uint64_t text;         /* module paths and assembly names, thread names */
    uint64_t observations; /* stacks, profile and timeline, as last counted */
    uint64_t unwritten;    /* its log and snapshot waiting for storage: at least what
                              is (what it handed over since storage last said) */
    uint64_t unlogged;     /* records taken that the link has yet to hand over (their
                              frames' bytes, at most) */
    uint64_t refused[SESSION_REFUSED_KINDS];
    uint64_t refused_records; /* their sum */
    int counted;              /* in the registry: its bytes are in the budget's total */
    int connected;            /* counted among the budget's connected sessions */
} session_budget;

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
    char program[PROCNAME_MAX]; /* what it runs, in a word (procname.h); "" unknown */
    char error[256];            /* why a launch/attach failed, or the detach refusal */
    int has_exit_code, exit_code;
    int exit_signal;     /* the signal that ended the launched process (exit_code 128+n); 0 none */
    uint64_t start_time; /* its process's start (proc_start_time): a later process with the same
                            pid is another one */
    int not_child;       /* run mode, taken back after a restart: not ours to reap */
    /* where it runs (container.h: in_container 0 when it shares the server's
     * namespaces), probed when it was attached or connected */
    container_facts container;
    int place_id; /* agentplace.h: its agent's place in its container, 0 none */
    /* a runtime that came through the diagnostic port (diagport.h): its
     * instance cookie (ProcessInfo, the advertise), and whether its process
     * is visible here at all (a sidecar sharing only a volume sees no pid:
     * pid is then 0 and the port's connection says when it ended) */
    int via_port, pid_hidden;
    uint8_t runtime_cookie[16];
    int64_t created_ns, connected_ns, ended_ns;
    /* a run's root: build servers it did not start that worked while it ran */
    session_outsider outside[SESSION_OUTSIDE_MAX];
    uint32_t outside_count;
    /* runtime identity from the hello */
    uint16_t runtime_type, clr_instance_id, major, minor, build, qfe;
    uint32_t ring_bytes;
    /* from the hello too: WIRE_AGENT_* (a floor agent), and the event masks
     * the runtime held for the agent (0 and 0: it did not say) */
    uint32_t agent_flags, event_mask, event_mask_high;
    int64_t clock_offset_ns; /* realtime - monotonic of the target */
    /* link */
    int link_id; /* connection currently bound, 0 when none */
    uint64_t records, bytes, last_seq, seq_gaps, connections;
    /* records refused for breaking what the ring and the sequence allow
     * (record_check.h): counted, not folded in; the connection goes on */
    uint64_t records_refused;
    const char *refused_why; /* the last one's reason (a static string), NULL before any */
    int refusals_unlogged; /* refused records since the last one taken (logrec.h: LOGREC_REFUSED) */
    record_check_state checks;
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
    fnsig_table name_sigs;    /* per function position: its name's signature (fnsig.h) */
    codemap codemap;          /* compilations' code ranges, code lookups (CPU profiles) */
    strpool names;            /* function names, interned */
    size_t compilation_bytes; /* what the functions' compilation lists hold */
    session_module *modules;
    size_t module_count, module_cap;
    idmap module_index;
    /* origin.c: System.Private.CoreLib among the modules (position + 1; 0 not
     * found yet) and how many modules it looked through for it */
    size_t origin_corelib_row, origin_modules_seen;
    session_thread *threads; /* append-only: a position stays the same thread */
    size_t thread_count, thread_cap;
    idmap thread_index, thread_os_index;
    size_t functions_jitted; /* functions with jitted set: what /functions lists */
    uint64_t jit_time_total_ns, jit_compilations, capacity_drops;
    uint64_t tier_compilations[WIRE_TIER_COUNT], tier_jit_ns[WIRE_TIER_COUNT]; /* live JITs */
    wire_tiers_status tiers; /* the agent's last word on its tier source */
    int tiers_known;         /* 1 once the agent sent a WIRE_TIERS_STATUS */
    /* when the runtime ended the tier source as the process began to exit
     * (WIRE_TIERS_ENDED_BY_RUNTIME): compilations after it carry no tier; 0 */
    int64_t tiers_ended_ns;
    uint64_t resumes;           /* times a restarted server took it back (LOGREC_RESUMED) */
    logrec_resumed last_resume; /* the newest of them */
    stacks_state stacks;
    profile_state profile;
    timeline_state timeline;
    exc_state *exceptions;    /* made at its first exception (excsites.h); NULL: none yet */
    int exceptions_off;       /* POST .../exceptions {"enabled": false} was sent last */
    alloc_state *allocations; /* made at its first sample (allocsites.h); NULL: none yet */
    int allocations_on;       /* POST .../allocations {"enabled": true} was sent last */
    code_state code;          /* code versions, inlining, ReadyToRun, code replies (code.h) */
    eventlog events;          /* what happened, newest EVENTLOG_MAX kept */
    session_persist persist;
    session_budget budget;
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
    size_t code_ranges;     /* codemap.h: 16 bytes per code version */
    size_t name_signatures; /* fnsig.h: 12 bytes per function */
} session_memory;
void session_memory_usage(const session *s, session_memory *m);
/* ---- what s holds, as the memory budget counts it (session_memory.c) ---- */
/* Bytes a few things take (what the budget counts). */
#define SESSION_EVENT_BYTES sizeof(eventlog_entry)
#define SESSION_IDMAP_SLOT (sizeof(uint64_t) + sizeof(uint32_t))
/* What s holds, accounted again into the server's budget (budget.h). Caller
 * holds the sessions lock; the fold calls it after each record (observed:
 * after one that may have grown stacks, profile or timeline), storage after
 * it read a session back. */
void session_memory_sync(session *s);
void session_memory_observed(session *s);
/* A module's or thread's string was kept and/or one let go (NULL: none):
 * what the budget counts as text (synced with the record). */
void session_memory_text(session *s, const char *kept, const char *let_go);
/* Storage took `bytes` more of s's log or snapshot to write (they count as
 * held until written); logged: the agent's frames taken so far (counted at
 * most as each was taken, session_apply, now as they are). Or asks storage
 * again what of it is still unwritten (budget_unwritten: what the writer
 * finished is given back). Sessions lock held. */
void session_memory_handed(session *s, uint64_t bytes);
void session_memory_logged(session *s, uint64_t bytes);
void session_memory_unwritten(session *s);
/* s enters the registry (its bytes count in the budget's total from now on),
 * or leaves it for good (they no longer do; nor is it connected). */
void session_budget_count(session *s);
void session_budget_forget(session *s);
/* The same after content came in all at once (read back from storage):
 * strings and stacks counted anew. */
void session_memory_recount(session *s);
/* s is connected to an agent (1) or no longer (0): counted among the
 * sessions that share the budget. Caller holds the sessions lock. */
void session_budget_connected(session *s, int connected);

/* f's `more`, made now if it has none (its fields then what the function
 * said so far). NULL out of memory (counted in capacity_drops). */
session_function_more *session_function_more_of(session *s, session_function *f);
/* What storage read back of a function beyond its plain fields: its last
 * compilation, compilations not kept and code start ring; `more` is made
 * only when they say more than the function's fields do. -1 out of memory. */
int session_function_set_history(session *s, session_function *f, int64_t last_jit_ns,
                                 uint64_t jit_time_ns, uint32_t compilations_unkept,
                                 const uint32_t code_start[SESSION_MAX_CODE_VERSIONS]);

/* For the fold and a snapshot's read-back (snapshot.c): appends a zeroed function with this
 * ID (0: not indexed; a later one takes an ID over), its name into the pool,
 * a kept compilation in order. NULL / -1 when a cap is reached or memory
 * runs out. */
session_function *session_function_append(session *s, uint64_t id);
/* Room for this many functions, modules and threads, and about name_bytes of
 * names, at once (a session read back from a snapshot knows its counts): no
 * doubling copies, big arrays on huge pages. 0 or -1. */
int session_reserve(session *s, size_t functions, size_t modules, size_t threads,
                    size_t name_bytes);
/* A zeroed module / a new live thread with this ID, appended; the ID finds it
 * from now on (ingest for a reused ID, storage's read-back in file order).
 * NULL at a cap or out of memory (counted in capacity_drops). */
session_module *session_module_append(session *s, uint64_t id);
session_thread *session_thread_append(session *s, uint64_t id);
/* Gives a thread its OS thread id; the OS id finds it from now on (storage's
 * read-back too). -1 out of memory (counted). */
int session_thread_set_os(session *s, session_thread *t, uint32_t os_thread_id);
int session_function_set_name(session *s, session_function *f, const char *name, size_t length);
/* Gives f the name record (fnname.h; NULL: none) and its signature
 * (fnsig.h): every name a function gets goes through here. */
void session_function_name_set(session *s, session_function *f, const char *record);
int session_function_keep_compilation(session *s, session_function *f,
                                      const session_compilation *c);
/* Room in f's compilation list for one more (made, or doubled up to
 * SESSION_MAX_COMPILATIONS); -1 when full or out of memory. */
int session_function_list_room(session *s, session_function *f);

/* A pid an agent reported (hello pid, parent pid): the agent's word, so 0
 * (unknown) unless it lies in 1..4194304 (the largest pid_max Linux allows). */
pid_t session_pid_from_agent(uint32_t pid);

session *session_new(int id, int mode, pid_t pid, const char *command_line, const char *token);
void session_free(session *s);

/* Where the records the server makes itself (logrec.h: a profile started or
 * stopped) go, so that storage logs them in order with the agent's: installed
 * by persist.c; not called for a session being read back (persist.quiet). */
void session_set_record_sink(void (*sink)(session *s, int64_t now_ns, const void *frame,
                                          size_t length));
/* Applies one of the server's own records (logrec.h) read back from a log
 * through its kind's row (session_apply.c): 0, or -1 for an unknown type or a
 * bad payload. */
int session_apply_server(session *s, uint16_t type, const uint8_t *payload, uint32_t length,
                         int64_t now_ns);
/* Moves the content (functions, modules, threads, events, observations,
 * counters) of `from` into `to`, whose own fields stay; from keeps none. */
void session_take_content(session *to, session *from);
/* Frees the content, keeping the session's own fields (an ended session
 * leaves memory; persist.c reads it back when asked). */
void session_drop_content(session *s);

/* A sampling profile starts / stops on the server's word (also logged for
 * storage's replay, so a stored profile reads back as it was). A CPU profile
 * (cpuprof.h) is fed by sampler run `run`; stopping it, for whatever reason
 * (the user, detach, exit, the link lost), tells that sampler to end through
 * the stop hook. */
void session_profile_start(session *s, uint32_t hz, int64_t now_ns);
void session_profile_start_cpu(session *s, uint32_t hz, uint64_t period_ns, uint32_t run,
                               int64_t now_ns);
void session_profile_stop(session *s, int64_t now_ns);
/* What the CPU sampler (cpuprof.c) installs: on_stop when a CPU profile
 * stops, on_thread when a thread starts or gets its OS id while one runs.
 * Both are called with the sessions lock held and must not block. */
void session_set_cpu_hooks(void (*on_stop)(int session_id, uint32_t run),
                           void (*on_thread)(int session_id, uint32_t run));
/* A thread started or got its OS id: a running CPU profile's sampler looks
 * for new threads at once (the thread hook). */
void session_cpu_thread_started(session *s);
/* One of the server's own records (logrec.h) of any size up to
 * WIRE_MAX_PAYLOAD, fixed part then extra bytes, into the session's log.
 * 0 (also when the session has no log), -1 when it could not be made. */
int session_log_record(session *s, int64_t now_ns, uint16_t type, const void *fixed,
                       uint32_t fixed_length, const void *extra, uint32_t extra_length);

/* Before an agent's record is folded (session_admit.c): its sequence number
 * taken in, the record checked against what the session knows
 * (record_check.h, and its kind's check) and against its share of the memory
 * budget (budget.h; its kind's bound). k is r's row (record_kinds.h). 0,
 * SESSION_REFUSED (counted), or -1 for a hello that breaks the checks
 * (*why). On 0 the record counts as taken: it must be folded. */
struct record_kind;
int session_admit(session *s, const wire_record *r, const struct record_kind *k, const char **why);
/* What refused records moved (their sequence numbers and counts), as they
 * left it; once a record is taken after them, logged before it
 * (LOGREC_REFUSED, session_state.c). */
void session_refusals_state(const session *s, logrec_refused *out);
void session_refusals_logged(session *s, int64_t now_ns, const logrec_refused *before);
/* A restarted server took s back (its agent's hello came) after a gap since
 * since_ns: LOGREC_RESUMED made into frame (SESSION_RESUMED_FRAME bytes) and
 * folded in (s->last_resume). Returns the frame's size, for the caller to log
 * it (session_state.c). */
#define SESSION_RESUMED_FRAME (sizeof(wire_frame_header) + sizeof(logrec_resumed))
size_t session_resumed(session *s, int64_t since_ns, int64_t now_ns, void *frame);

/* Applies one agent record through its kind's row (record_kinds.h,
 * session_apply.c); returns 0, SESSION_REFUSED when the record was
 * not folded in (it breaks what the ring and the sequence allow,
 * record_check.h: counted in records_refused; or what it would add does not
 * fit the session's share of the memory budget, budget.h: counted in
 * budget.refused; the connection goes on either way), or -1
 * when it breaks the session protocol (the caller drops the connection): a
 * type no agent may send (unknown, or the server's own) is refused before
 * anything is counted. Never fails on unknown IDs. */
#define SESSION_REFUSED 1
int session_apply(session *s, const wire_record *r, int64_t now_ns, const char **why);

/* Applies one observation kept beside a snapshot (record_kind_is_observation):
 * its kind's replay: HELLO (walk ids start over), stack, profile, timeline
 * and code reply records, as they were applied live at now_ns, without
 * logging events (the snapshot's event log has them). -1 for any other type. */
int session_replay(session *s, const wire_record *r, int64_t now_ns);

/* ---- state transitions: the only writers of session.state ----------------
 * (see the diagram in docs/ARCHITECTURE.md; besides them session_new starts
 * a session STARTING and session_header_from_json restores the state a
 * stored header says). Caller holds the sessions lock. */

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
/* A stored session read back at a restart (persist.c) that was live when its
 * server died: its process and agent still run, so it waits for the agent's
 * hello (DISCONNECTED); or they do not, so it ended with its server
 * (INTERRUPTED, ended when its server last wrote of it unless it says when). */
void session_stored_waiting(session *s);
void session_stored_interrupted(session *s, int64_t last_seen_ns);
/* A stored session waiting for its agent whose agent will not come (it gave
 * up, or the wait is over): INTERRUPTED and ended now, if still DISCONNECTED. */
void session_resume_abandoned(session *s, int64_t now_ns);

/* The process is gone: no thread of it is alive any more. */
void session_mark_ended(session *s, int64_t now_ns);

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

#endif
