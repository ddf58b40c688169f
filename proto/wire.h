/* wire.h -- the jitscope agent <-> server protocol, shared by both sides.
 *
 * One Unix stream socket per agent. Every message, both directions, is a frame:
 *
 *   wire_frame_header (24 bytes, little-endian, packed by construction)
 *   payload           (header.length bytes, at most WIRE_MAX_PAYLOAD)
 *
 * The agent's first frame is WIRE_HELLO; anything else first is a protocol error.
 * Sequence numbers are assigned by the agent's sender thread, start at 1 per
 * connection and grow by exactly one per frame, so the server can see a gap.
 * Records lost inside the agent before the sender took them (buffer full, no
 * server) never get a sequence number; a record the sender had to drop because
 * the server did not read (WIRE_DROP_SLOW_SERVER) uses its number, so those
 * show as gaps. Every loss is counted per reason in WIRE_DROPS frames.
 * Timestamps are CLOCK_MONOTONIC nanoseconds of the target; the hello carries a
 * (monotonic, realtime) pair so the server can turn them into wall-clock time.
 *
 * Strings inside payloads are a uint16 byte count followed by that many bytes of
 * UTF-8 (no NUL). The full description, with every field, is docs/PROTOCOL.md.
 * x86-64 Linux only: both sides are little-endian and the structs below have no
 * padding (checked with static asserts), so they are read with memcpy.
 */
#ifndef JITSCOPE_WIRE_H
#define JITSCOPE_WIRE_H

#include <stdint.h>

/* What each version added: docs/PROTOCOL.md, "Versions". */
#define WIRE_VERSION 9u
/* The oldest version whose records decode as today's (only types were added
 * since, and fields that were 0 or reserved filled in): a session stored by a
 * server of that version reads back. */
#define WIRE_VERSION_STORED_MIN 4u
#define WIRE_MAGIC "JITSCOPE"          /* 8 bytes, no NUL, first in the hello */
#define WIRE_MAX_PAYLOAD (64u * 1024u) /* any longer frame is a protocol error */
#define WIRE_TOKEN_LEN 32u             /* session token: 32 ASCII hex characters */
#define WIRE_MAX_STRING 4096u          /* longest string a payload may carry */

/* The agent's COM class id, {B8E5C1D2-7A43-4C6E-9F10-5A3B2D1C0E7F}: what
 * CORECLR_PROFILER names in startup mode and AttachProfiler passes in attach mode. */
#define WIRE_CLSID_STRING "{B8E5C1D2-7A43-4C6E-9F10-5A3B2D1C0E7F}"
#define WIRE_CLSID_INIT                                                                            \
    {                                                                                              \
        0xB8E5C1D2u, 0x7A43u, 0x4C6Eu, { 0x9F, 0x10, 0x5A, 0x3B, 0x2D, 0x1C, 0x0E, 0x7F }          \
    }

/* Environment variables set by `jitscope run` (attach passes the same values
 * in the AttachProfiler client data, see WIRE_CLIENT_DATA_PREFIX). */
#define WIRE_ENV_SOCKET "JITSCOPE_SOCKET"
#define WIRE_ENV_TOKEN "JITSCOPE_TOKEN"
/* `jitscope run --no-children`: the launcher's pid; an agent whose parent is
 * another process declines to start (the launched app's children inherit the
 * environment, and with it the profiler). */
#define WIRE_ENV_ONLY_CHILD_OF "JITSCOPE_ONLY_CHILD_OF"
/* How long (ms) an agent keeps trying to reach a server that is gone before
 * it detaches itself (default WIRE_GIVE_UP_MS_DEFAULT), read from the
 * process's environment in both modes. Meanwhile it asks the runtime for no
 * callbacks, and a server started again on the same data directory takes its
 * session back. */
#define WIRE_ENV_GIVE_UP_MS "JITSCOPE_GIVE_UP_MS"
#define WIRE_GIVE_UP_MS_DEFAULT 60000u
/* "0": the agent does not open its EventPipe session for JIT tiers (every
 * compilation's tier is then WIRE_TIER_UNKNOWN). For measuring its cost. */
#define WIRE_ENV_TIERS "JITSCOPE_TIERS"
/* "0": with the tier source on, the agent opens no EventPipe session for the
 * runtime's GC events (a collection's reason is then induced or other only,
 * what the profiling API tells). For measuring its cost. */
#define WIRE_ENV_GC_REASONS "JITSCOPE_GC_REASONS"
/* "0": exception records off at start (WIRE_CMD_EXCEPTIONS turns them on). */
#define WIRE_ENV_EXCEPTIONS "JITSCOPE_EXCEPTIONS"
/* "1": the agent also asks for the profiling API's exception callbacks, left
 * at their no-op stubs: their cost, measured (bench/exceptions.mjs). */
#define WIRE_ENV_EXCEPTION_CALLBACKS "JITSCOPE_EXCEPTION_CALLBACKS"
/* "importer": the agent names methods through the runtime's metadata importer
 * instead of reading modules' images itself (docs/RUNTIME.md, "Reading
 * metadata"). A way out should the direct reader ever misread a module, and
 * the yardstick its tests and benchmark compare it with. */
#define WIRE_ENV_METADATA "JITSCOPE_METADATA"
/* "1": the floor, a null agent (docs/BENCHMARKS.md measures against it). It
 * asks the runtime for the same callbacks and opens the same tier source as by
 * default, but its callbacks return at once and it sends nothing but its hello
 * (flagged WIRE_AGENT_FLOOR), its tier-source status and answers to ping and
 * detach. Read from the process's environment in both modes; at attach also
 * the client data's option WIRE_CLIENT_DATA_FLOOR. */
#define WIRE_ENV_NULL "JITSCOPE_NULL"
/* "0": the agent records no JITInlining (the callback returns at once). For
 * measuring its cost. */
#define WIRE_ENV_INLINING "JITSCOPE_INLINING"

/* Attach client data: "jitscope1 <token> [null ]<socket path>" (ASCII, no
 * NUL; the server's socket paths are absolute, never "null ..."). */
#define WIRE_CLIENT_DATA_PREFIX "jitscope1 "
#define WIRE_CLIENT_DATA_FLOOR "null " /* the agent is a floor (WIRE_ENV_NULL) */
/* A runtime that connected to a diagnostic port (jitscope serve
 * --diagnostic-port) in suspend mode gets the agent as its startup profiler
 * (IPC StartupProfiler), which has no client data: the server sets this
 * variable, holding the client data's text, in the runtime's own environment
 * (IPC SetEnvironmentVariable) before it resumes the runtime. The agent reads
 * it with ICorProfilerInfo11::GetEnvironmentVariable in Initialize and removes
 * it there, before any of the app's code runs (the app never sees it). */
#define WIRE_ENV_PORT_AGENT "JITSCOPE_AGENT"
/* The name of the agent's sender thread, which runs as long as the agent is
 * active in a process: the server looks for it before an attach. */
#define WIRE_AGENT_THREAD_NAME "jitscope-agent"

typedef struct wire_frame_header {
    uint16_t type;    /* wire_record_type or wire_command_type */
    uint16_t flags;   /* WIRE_FLAG_* */
    uint32_t length;  /* payload bytes following this header */
    uint64_t seq;     /* 1, 2, 3 ... per connection (commands: 0) */
    uint64_t time_ns; /* CLOCK_MONOTONIC of the event, in the target */
} wire_frame_header;
_Static_assert(sizeof(wire_frame_header) == 24, "wire header is 24 bytes");

enum wire_flags {
    WIRE_FLAG_CATCHUP = 1u << 0,   /* produced by enumeration, not by a callback */
    WIRE_FLAG_DYNAMIC = 1u << 1,   /* dynamic method (no metadata token) */
    WIRE_FLAG_TRUNCATED = 1u << 2, /* a string in the payload was cut short */
    /* THREAD_NAME only: the name is the OS thread's (/proc/self/task/TID/comm, at
     * most 15 bytes), read by the agent, not one the runtime reported */
    WIRE_FLAG_OS_NAME = 1u << 3,
};
#define WIRE_FLAGS_KNOWN                                                                           \
    (WIRE_FLAG_CATCHUP | WIRE_FLAG_DYNAMIC | WIRE_FLAG_TRUNCATED | WIRE_FLAG_OS_NAME)

/* Agent -> server. */
enum wire_record_type {
    WIRE_HELLO = 1,
    WIRE_JIT_STARTED = 2,
    WIRE_JIT_FINISHED = 3,
    WIRE_FUNCTION_NAME = 4,
    WIRE_MODULE_LOADED = 5,
    WIRE_MODULE_UNLOADED = 6,
    WIRE_ASSEMBLY_LOADED = 7,
    WIRE_THREAD_CREATED = 8,
    WIRE_THREAD_DESTROYED = 9,
    WIRE_THREAD_OS_ID = 10,
    WIRE_THREAD_NAME = 11,
    WIRE_DROPS = 12,
    WIRE_CATCHUP_BEGIN = 13,
    WIRE_CATCHUP_END = 14,
    WIRE_DETACH_STATUS = 15,
    WIRE_PONG = 16,
    WIRE_STACK_THREAD = 17,   /* one thread's walk within a snapshot or sample */
    WIRE_STACK_END = 18,      /* a snapshot or sample is complete */
    WIRE_PROFILE_STATUS = 19, /* sampler started / stopped / rate changed */
    WIRE_GC_STARTED = 20,
    WIRE_GC_FINISHED = 21,
    WIRE_RUNTIME_SUSPEND = 22,  /* one phase of a runtime suspension */
    WIRE_TIERS_STATUS = 23,     /* the JIT-tier source is on or off (after hello, on command) */
    WIRE_AGENT_COST = 24,       /* the agent's own time in JIT callbacks (with DROPS) */
    WIRE_CODE_VERSION = 25,     /* one native code version of a WIRE_CMD_CODE reply */
    WIRE_CODE_PART = 26,        /* a piece of its code bytes, IL map, references, or the IL */
    WIRE_CODE_END = 27,         /* the reply is complete (or refused: status says why) */
    WIRE_INLINING = 28,         /* the runtime let the JIT inline a callee (JITInlining) */
    WIRE_CODE_SEARCH = 29,      /* a ReadyToRun code search (JITCachedFunctionSearch*) */
    WIRE_CODE_RANGE = 30,       /* answer to WIRE_CMD_CODE_LOOKUP: the code at one address */
    WIRE_EXCEPTION = 31,        /* a managed exception thrown (the runtime's ExceptionThrown) */
    WIRE_EXCEPTION_CAUGHT = 32, /* a catch clause entered for the thread's exception */
    WIRE_ALLOCATION = 33,       /* an allocation sample with its stack (wire_alloc.h) */
    WIRE_GC_HEAP_STATS = 34,    /* the heap's generations after a collection (wire_alloc.h) */
    WIRE_EXCEPTION_COUNTS = 35, /* a site's exceptions counted, not sent (wire_exc_counts.h) */
    WIRE_RECORD_TYPE_MAX = 35
};

/* Server -> agent. */
enum wire_command_type {
    WIRE_CMD_DETACH = 100,        /* payload: wire_cmd_detach */
    WIRE_CMD_PING = 101,          /* payload: wire_cmd_ping; answered by WIRE_PONG */
    WIRE_CMD_SNAPSHOT = 102,      /* payload: wire_cmd_snapshot; answered by STACK_* */
    WIRE_CMD_PROFILE_START = 103, /* payload: wire_cmd_profile_start */
    WIRE_CMD_PROFILE_STOP = 104,  /* payload: wire_cmd_profile_stop */
    WIRE_CMD_TIERS = 105,         /* payload: wire_cmd_tiers; answered by WIRE_TIERS_STATUS */
    WIRE_CMD_CODE = 106, /* payload: wire_cmd_code; answered by CODE_VERSION/_PART, CODE_END */
    WIRE_CMD_CODE_LOOKUP = 107, /* payload: wire_cmd_code_lookup; answered by WIRE_CODE_RANGE */
    WIRE_CMD_EXCEPTIONS = 108,  /* payload: wire_cmd_exceptions (on by default) */
    WIRE_CMD_ALLOCATIONS = 109, /* payload: wire_cmd_allocations (off by default) */
};

enum wire_mode { WIRE_MODE_STARTUP = 1, WIRE_MODE_ATTACH = 2 };

/* WIRE_HELLO: fixed part only. */
typedef struct wire_hello {
    char magic[8];    /* WIRE_MAGIC */
    uint32_t version; /* WIRE_VERSION */
    uint32_t pid;
    uint32_t mode;         /* wire_mode */
    uint16_t runtime_type; /* COR_PRF_RUNTIME_TYPE: 2 = CoreCLR */
    uint16_t clr_instance_id;
    uint16_t major, minor, build, qfe;
    uint64_t monotonic_ns; /* clock pair read together at connect */
    uint64_t realtime_ns;
    char token[WIRE_TOKEN_LEN];
    uint32_t ring_bytes; /* capacity of the agent's buffer */
    uint32_t parent_pid; /* getppid() at connect: places the process in a tree */
    /* WIRE_HELLO_BASE bytes end here: agents before these fields sent only
     * those, and such a hello reads as if the fields below were 0 */
    uint32_t agent_flags; /* WIRE_AGENT_* */
    /* the event masks the runtime holds for the agent at connect
     * (GetEventMask2: COR_PRF_MONITOR_*, COR_PRF_HIGH_*); 0 and 0: not known */
    uint32_t event_mask, event_mask_high;
    uint32_t reserved;
} wire_hello;
_Static_assert(sizeof(wire_hello) == 104, "wire_hello layout");
#define WIRE_HELLO_BASE 88u /* the hello's length before agent_flags */

enum wire_agent_flags {
    WIRE_AGENT_FLOOR = 1u << 0, /* a null agent (WIRE_ENV_NULL): it records nothing */
};

typedef struct wire_jit_started {
    uint64_t function_id;
    uint64_t thread_id; /* ThreadID (managed), 0 when unknown */
    uint32_t il_size;   /* dynamic methods: IL header size given by the runtime */
    uint32_t reserved;
} wire_jit_started;
_Static_assert(sizeof(wire_jit_started) == 24, "wire_jit_started layout");

/* WIRE_JIT_FINISHED: fixed part, then min(code_versions, WIRE_MAX_CODE_VERSIONS)
 * wire_code_version entries: every native code version of the function the
 * runtime knows right after this compilation (ICorProfilerInfo9), in the
 * runtime's order, which is not the order of creation. The server finds the
 * new one as the start it has not seen before. code_start/code_size are what
 * GetCodeInfo2 reports (the version currently in use): sent by catch-up, and by
 * live JITs only when the versions cannot be listed (else 0). */
#define WIRE_MAX_CODE_VERSIONS 8u

/* Optimisation tier of one compilation, as the runtime reports it in its own
 * MethodLoad event (MethodFlags bits 7-9, the runtime's JitOptimizationTier):
 * the same numbers. ReadyToRun code is never compiled, so it has no tier here. */
typedef enum wire_tier {
    WIRE_TIER_UNKNOWN = 0,        /* not reported (catch-up, tiers off, older runtime) */
    WIRE_TIER_MIN_OPTS = 1,       /* MinOptJitted: optimisation disabled or given up */
    WIRE_TIER_FULL_OPTS = 2,      /* Optimized: tiering off for it, or switched to full opts */
    WIRE_TIER_0 = 3,              /* QuickJitted */
    WIRE_TIER_1 = 4,              /* OptimizedTier1 */
    WIRE_TIER_1_OSR = 5,          /* OptimizedTier1OSR: on-stack replacement of a loop */
    WIRE_TIER_0_INSTRUMENTED = 6, /* InstrumentedTier: Tier0 with PGO probes */
    WIRE_TIER_1_INSTRUMENTED = 7, /* InstrumentedTierOptimized */
    WIRE_TIER_COUNT = 8
} wire_tier;

typedef struct wire_jit_finished {
    uint64_t function_id;
    uint64_t thread_id;
    uint64_t code_start; /* code in use (GetCodeInfo2), 0 if unknown or not asked */
    uint32_t code_size;
    uint32_t il_size;
    int32_t hresult;        /* JIT status from the runtime */
    uint32_t code_versions; /* native code versions that exist, 0 if unknown */
    uint32_t tier;          /* wire_tier of this compilation */
    uint32_t reserved;
} wire_jit_finished;
_Static_assert(sizeof(wire_jit_finished) == 48, "wire_jit_finished layout");

typedef struct wire_code_version {
    uint64_t start;
    uint32_t size; /* native bytes of that version (GetCodeInfo4), 0 if unknown */
    uint32_t reserved;
} wire_code_version;
_Static_assert(sizeof(wire_code_version) == 16, "wire_code_version layout");

/* WIRE_FUNCTION_NAME: fixed part, then one string: the formatted name. */
typedef struct wire_function_name {
    uint64_t function_id;
    uint64_t module_id; /* 0 for dynamic methods */
    uint32_t token;     /* mdMethodDef, 0 for dynamic methods */
    uint32_t il_size;   /* IL bytes of the method body, 0 when unknown (dynamic methods) */
} wire_function_name;
_Static_assert(sizeof(wire_function_name) == 24, "wire_function_name layout");

/* WIRE_MODULE_LOADED: fixed part, then strings: file path, assembly name. */
typedef struct wire_module_loaded {
    uint64_t module_id;
    uint64_t assembly_id;
    uint64_t base_address;
    int32_t hresult;
    uint32_t reserved;
} wire_module_loaded;
_Static_assert(sizeof(wire_module_loaded) == 32, "wire_module_loaded layout");

typedef struct wire_module_unloaded {
    uint64_t module_id;
} wire_module_unloaded;

/* WIRE_ASSEMBLY_LOADED: fixed part, then one string: assembly name. */
typedef struct wire_assembly_loaded {
    uint64_t assembly_id;
    uint64_t manifest_module_id;
    int32_t hresult;
    uint32_t reserved;
} wire_assembly_loaded;
_Static_assert(sizeof(wire_assembly_loaded) == 24, "wire_assembly_loaded layout");

/* WIRE_THREAD_CREATED, _DESTROYED, _OS_ID share one layout. A ThreadID is the
 * address of the runtime's thread object: once a thread was destroyed (and its
 * managed Thread finalized) a new thread may get the same ID, so the OS thread
 * id comes with every thread record that knows it: (ThreadID, OS thread id)
 * tells the threads apart. */
typedef struct wire_thread {
    uint64_t thread_id;
    uint32_t os_thread_id; /* Linux tid, 0 when not known (yet: a thread not started) */
    uint32_t reserved;
} wire_thread;
_Static_assert(sizeof(wire_thread) == 16, "wire_thread layout");

/* WIRE_THREAD_NAME: fixed part (wire_thread), then one string (may be empty).
 * Without WIRE_FLAG_OS_NAME the runtime's ThreadNameChanged (Thread.Name); with
 * it the OS thread's name, which the runtime's own threads only have. */

enum wire_drop_reason {
    WIRE_DROP_RING_FULL = 0,   /* app thread found the buffer full */
    WIRE_DROP_TOO_LARGE = 1,   /* record larger than a buffer slot may be */
    WIRE_DROP_NO_SERVER = 2,   /* discarded while no server was connected */
    WIRE_DROP_NAME_FAILED = 3, /* function name could not be resolved */
    WIRE_DROP_SLOW_SERVER = 4, /* the server did not read: dropped with its sequence number */
    WIRE_DROP_NAME_LATE = 5,   /* name not read in time: module unloaded or profiler detaching */
    WIRE_DROP_SHUTDOWN = 6,    /* left in the buffer at Shutdown / detach, never sent */
    WIRE_DROP_REASONS = 7
};

/* Every cumulative counter the agent sends (WIRE_DROPS, WIRE_AGENT_COST) is
 * at most this: 2^56 is years of counting at any real rate, and the server
 * can add up to 256 of them and hand them to JSON as signed 64-bit integers
 * without overflowing. A larger one is a corrupt record. */
#define WIRE_COUNTER_MAX ((uint64_t)1 << 56)

/* WIRE_AGENT_COST: the agent's own time inside JIT callbacks on the app's
 * threads, cumulative since it loaded. Buckets 0..15 are 16 ns wide
 * ([16i, 16i+16) ns: fine where the target is, 100 ns); bucket 16+k holds
 * [256 << k, 512 << k) ns, and the last one also everything slower. */
#define WIRE_COST_BUCKETS 32u
#define WIRE_COST_LINEAR 16u /* buckets of WIRE_COST_STEP_NS each */
#define WIRE_COST_STEP_NS 16u
typedef struct wire_agent_cost {
    uint64_t callbacks; /* JIT-started and JIT-finished callbacks measured */
    uint64_t total_ns;
    uint64_t buckets[WIRE_COST_BUCKETS];
    /* How the agent read the metadata it names methods from: modules read
     * straight from their image, and the times it had to ask the runtime for
     * an importer instead (dynamic and collectible modules), which makes the
     * runtime's own metadata reads in that module slower from then on. */
    uint64_t metadata_direct_modules;
    uint64_t metadata_importer_opens;
} wire_agent_cost;
_Static_assert(sizeof(wire_agent_cost) == 288, "wire_agent_cost layout");

/* WIRE_DROPS: cumulative counters since the agent loaded. */
typedef struct wire_drops {
    uint64_t dropped[WIRE_DROP_REASONS];
    uint64_t produced;  /* records app threads tried to write */
    uint64_t ring_used; /* bytes waiting in the buffer when sent */
} wire_drops;
_Static_assert(sizeof(wire_drops) == 72, "wire_drops layout");

/* WIRE_CATCHUP_BEGIN / _END: counts are filled in the END record. */
typedef struct wire_catchup {
    uint32_t modules;
    uint32_t functions;
    uint32_t threads;
    uint32_t quiet_ms; /* END: how long the agent asked for no callbacks (no server) before it */
    uint64_t duration_ns;
} wire_catchup;
_Static_assert(sizeof(wire_catchup) == 24, "wire_catchup layout");

enum wire_detach_state {
    WIRE_DETACH_REQUESTED = 1, /* RequestProfilerDetach returned hresult */
    WIRE_DETACH_REFUSED = 2,   /* RequestProfilerDetach failed with hresult */
    WIRE_DETACH_SUCCEEDED = 3, /* ProfilerDetachSucceeded ran; last record */
};

typedef struct wire_detach_status {
    uint32_t state; /* wire_detach_state */
    int32_t hresult;
} wire_detach_status;

typedef struct wire_cmd_detach {
    uint32_t expected_ms; /* hint passed to RequestProfilerDetach */
    uint32_t reserved;
} wire_cmd_detach;

typedef struct wire_cmd_ping {
    uint64_t cookie; /* echoed in WIRE_PONG */
} wire_cmd_ping;

/* ---- stacks: snapshots (on request) and samples (profile) ----
 *
 * One walk of every managed thread, made by the agent's walker thread between
 * SuspendRuntime and ResumeRuntime, is sent after ResumeRuntime as one
 * WIRE_STACK_THREAD per thread walked (fixed part, then frame_count
 * wire_stack_frame entries, leaf first), then one WIRE_STACK_END that closes
 * it. Every FunctionID in the frames is named (WIRE_FUNCTION_NAME) before the
 * STACK_THREAD that holds it, as for JIT records. The header's time_ns of
 * both is the moment the suspension began. */
#define WIRE_STACK_MAX_FRAMES 512u          /* frames kept per thread walk */
#define WIRE_STACK_MAX_TOTAL_FRAMES 131072u /* frames kept per snapshot, all threads */
#define WIRE_STACK_MAX_THREADS 4096u        /* threads walked per snapshot */

enum wire_stack_kind { WIRE_STACK_SNAPSHOT = 1, WIRE_STACK_SAMPLE = 2 };

enum wire_stack_thread_flags {
    WIRE_STACK_TRUNCATED = 1u << 0, /* deeper than WIRE_STACK_MAX_FRAMES, or the
                                       snapshot's total ran out: frames cut at the root end */
};

typedef struct wire_stack_thread {
    uint64_t snapshot_id;  /* agent-assigned, from 1, shared by snapshots and samples */
    uint64_t thread_id;    /* ThreadID */
    uint32_t os_thread_id; /* 0 when unknown */
    int32_t hresult;       /* DoStackSnapshot's result (E_FAIL happens: shown, not hidden) */
    uint64_t walk_ns;      /* how long this thread's walk took */
    uint32_t frame_count;  /* entries that follow, <= WIRE_STACK_MAX_FRAMES */
    uint32_t flags;        /* wire_stack_thread_flags */
} wire_stack_thread;
_Static_assert(sizeof(wire_stack_thread) == 40, "wire_stack_thread layout");

/* A frame: function_id 0 is a run of native (unmanaged) code at ip. */
typedef struct wire_stack_frame {
    uint64_t function_id;
    uint64_t ip;
} wire_stack_frame;
_Static_assert(sizeof(wire_stack_frame) == 16, "wire_stack_frame layout");

typedef struct wire_stack_end {
    uint64_t snapshot_id;
    uint64_t request_id;        /* wire_cmd_snapshot.request_id; 0 for samples */
    uint32_t kind;              /* wire_stack_kind */
    uint32_t threads_sent;      /* WIRE_STACK_THREAD records written before this one */
    uint32_t threads_total;     /* threads the runtime listed (more than sent: cap hit) */
    int32_t hresult;            /* SuspendRuntime / EnumThreads failure: nothing walked */
    uint32_t retries;           /* SuspendRuntime said SUSPENSION_IN_PROGRESS this often */
    uint32_t effective_millihz; /* samples: the sampler's rate now, x1000; else 0 */
    uint64_t suspend_ns;        /* SuspendRuntime call to ResumeRuntime return */
    uint64_t walk_ns;           /* sum of the threads' walk_ns */
} wire_stack_end;
_Static_assert(sizeof(wire_stack_end) == 56, "wire_stack_end layout");

enum wire_profile_state {
    WIRE_PROFILE_STARTED = 1,
    WIRE_PROFILE_STOPPED = 2, /* by command, duration over, detach or shutdown */
    WIRE_PROFILE_RATE = 3,    /* the budget lowered (or restored) the rate */
    WIRE_PROFILE_REFUSED = 4, /* could not start: hresult says why */
};

typedef struct wire_profile_status {
    uint32_t state; /* wire_profile_state */
    uint32_t requested_millihz;
    uint32_t effective_millihz;
    uint32_t budget_permille; /* suspended time allowed per wall time, in 1/1000 */
    uint64_t samples;         /* samples taken since start */
    uint64_t suspended_ns;    /* total suspended time since start */
    int32_t hresult;
    uint32_t reserved;
} wire_profile_status;
_Static_assert(sizeof(wire_profile_status) == 40, "wire_profile_status layout");

/* ---- GC and runtime suspensions (the timeline) ---- */

typedef struct wire_gc_started {
    uint32_t generations; /* bit g set: generation g collected (0, 1, 2, 3 = LOH, 4 = POH) */
    /* the low byte: COR_PRF_GC_REASON (0 other, 1 induced); the byte above it:
     * the runtime's own reason (its GCTriggered event's) + 1, 0 unknown (an
     * older agent's, or no GC event came) */
    uint32_t reason;
} wire_gc_started;
_Static_assert(sizeof(wire_gc_started) == 8, "wire_gc_started layout");
#define WIRE_GC_REASON(profiler, runtime_plus_1)                                                   \
    ((uint32_t)(profiler) | (uint32_t)(runtime_plus_1) << 8)
#define WIRE_GC_REASON_PROFILER(reason) ((reason)&0xffu)
#define WIRE_GC_REASON_RUNTIME(reason) (((reason) >> 8) & 0xffu) /* + 1; 0 unknown */

typedef struct wire_gc_finished {
    uint64_t reserved;
} wire_gc_finished;

enum wire_suspend_phase {
    WIRE_SUSPEND_STARTED = 1,
    WIRE_SUSPEND_FINISHED = 2,
    WIRE_SUSPEND_ABORTED = 3,
    WIRE_RESUME_STARTED = 4,
    WIRE_RESUME_FINISHED = 5,
};

typedef struct wire_runtime_suspend {
    uint32_t phase;  /* wire_suspend_phase */
    uint32_t reason; /* COR_PRF_SUSPEND_REASON of the suspension this phase belongs
                               to, in every phase (9 = profiler, i.e. us). The records of two
                               suspensions can interleave (the runtime reports a resume as
                               finished after the next suspender got in): pair ours (9) with
                               ours and the others with the others */
} wire_runtime_suspend;
_Static_assert(sizeof(wire_runtime_suspend) == 8, "wire_runtime_suspend layout");

/* ---- commands ---- */

typedef struct wire_cmd_snapshot {
    uint64_t request_id; /* echoed in WIRE_STACK_END */
} wire_cmd_snapshot;

#define WIRE_PROFILE_MAX_HZ 1000u
#define WIRE_PROFILE_DEFAULT_BUDGET_PERMILLE 20u /* 2% of wall time suspended */

typedef struct wire_cmd_profile_start {
    uint32_t hz;              /* 1..WIRE_PROFILE_MAX_HZ */
    uint32_t budget_permille; /* 0 = default */
    uint32_t duration_ms;     /* 0 = until WIRE_CMD_PROFILE_STOP */
    uint32_t reserved;
} wire_cmd_profile_start;

typedef struct wire_cmd_profile_stop {
    uint64_t reserved;
} wire_cmd_profile_stop;

/* Turns the agent's JIT-tier source (its EventPipe session) on or off. */
typedef struct wire_cmd_tiers {
    uint32_t enabled; /* 1 on, 0 off */
    uint32_t reserved;
} wire_cmd_tiers;

/* wire_tiers_status.enabled */
enum wire_tiers_state {
    WIRE_TIERS_OFF = 0,
    WIRE_TIERS_ON = 1, /* compilations carry their tier */
    /* the runtime ended the source: it shuts EventPipe down as the process
     * begins to exit, before the profiler's Shutdown, and compilations from
     * then on carry no tier (sent from the first such compilation, before
     * its record, or at Shutdown; sent again by a thread that saw an earlier
     * end: the earliest time is the end) */
    WIRE_TIERS_ENDED_BY_RUNTIME = 2,
};

typedef struct wire_tiers_status {
    uint32_t enabled; /* wire_tiers_state */
    int32_t hresult;  /* why it could not be turned on, else 0 */
    uint64_t lost;    /* tiers lost so far (all slots busy) */
} wire_tiers_status;
_Static_assert(sizeof(wire_tiers_status) == 16, "wire_tiers_status layout");

/* ---- the code the JIT produced (WIRE_CMD_CODE, records 25-27) ----
 *
 * The server names a FunctionID and an address inside one of its native code
 * versions that it saw (a JIT record's code start, a stack frame's IP). On its
 * sender thread, under the runtime lock, the agent asks the runtime which
 * method owns that address (GetFunctionFromIP): only when it is this one is the
 * method known to live (its code is in the code heap, so its module has not
 * unloaded), and only then is anything read; an unload that starts meanwhile
 * waits for the runtime lock (agent/unload.c). For each native code version
 * (GetNativeCodeStartAddresses per ReJIT id, GetCodeInfo4 per start) it copies
 * the code bytes, the IL-to-native map (GetILToNativeMapping3) and what the
 * control transfers in the code lead to (wire_code_ref), then the method's IL
 * body, and sends them after the lock is released: per version one
 * CODE_VERSION, then its CODE_PARTs; the IL's CODE_PARTs; one CODE_END. Every
 * piece is bounded (below); what did not fit is marked truncated. A request
 * the agent refuses gets only a CODE_END with the reason (and is counted). */
#define WIRE_CODE_MAX_VERSIONS 16u                  /* versions sent per reply */
#define WIRE_CODE_MAX_VERSION_BYTES (256u * 1024u)  /* code bytes kept per version */
#define WIRE_CODE_MAX_MAP 16384u                    /* IL-to-native entries per version */
#define WIRE_CODE_MAX_REFS 1024u                    /* references resolved per version */
#define WIRE_CODE_MAX_IL (128u * 1024u)             /* IL body bytes (header and code) */
#define WIRE_CODE_MAX_REQUEST_BYTES (1024u * 1024u) /* code bytes of all versions together */
#define WIRE_CODE_CHUNK 49152u     /* data bytes per CODE_PART: whole map entries and refs */
#define WIRE_CODE_IL_INDEX 0xFFFFu /* wire_code_part.index of the IL body */

typedef struct wire_cmd_code {
    uint64_t request_id;   /* echoed in every record of the reply */
    uint64_t function_id;  /* the method */
    uint64_t code_address; /* an address in one of its native code versions (proof it lives) */
    uint32_t max_bytes;    /* code bytes of the whole reply: 0 = WIRE_CODE_MAX_REQUEST_BYTES */
    uint32_t reserved;
} wire_cmd_code;
_Static_assert(sizeof(wire_cmd_code) == 32, "wire_cmd_code layout");

enum wire_code_flags {
    WIRE_CODE_TRUNCATED_CODE = 1u << 0,     /* version: not all its code bytes were sent */
    WIRE_CODE_TRUNCATED_MAP = 1u << 1,      /* version: not all its IL-to-native entries */
    WIRE_CODE_TRUNCATED_REFS = 1u << 2,     /* version: more references than were resolved */
    WIRE_CODE_TRUNCATED_VERSIONS = 1u << 3, /* end: more versions than were sent */
    WIRE_CODE_TRUNCATED_IL = 1u << 4,       /* end: not all of the IL body was sent */
    WIRE_CODE_FLAGS_ALL = (1u << 5) - 1
};

/* WIRE_CODE_VERSION: one native code version; its pieces follow as CODE_PARTs
 * with the same request id and index. */
typedef struct wire_code_version_info {
    uint64_t request_id;
    uint64_t function_id;
    uint64_t rejit_id;   /* 0: the original IL */
    uint64_t code_start; /* first byte (the hot range) */
    uint64_t cold_start; /* a second range (hot/cold split), 0 when none */
    uint32_t hot_size, cold_size;
    uint32_t index;     /* 0.. within this reply, < WIRE_CODE_MAX_VERSIONS */
    uint32_t code_sent; /* code bytes in CODE_PARTs: the hot range, then the cold one */
    uint32_t map_count; /* IL-to-native entries the runtime has */
    uint32_t map_sent;  /* entries in CODE_PARTs (<= map_count, WIRE_CODE_MAX_MAP) */
    uint32_t ref_count; /* wire_code_ref entries in CODE_PARTs (<= WIRE_CODE_MAX_REFS) */
    uint32_t flags;     /* wire_code_flags */
    int32_t hresult;    /* a runtime call that failed for this version, else 0 */
    uint32_t reserved;
} wire_code_version_info;
_Static_assert(sizeof(wire_code_version_info) == 80, "wire_code_version_info layout");

enum wire_code_part_kind {
    WIRE_CODE_PART_CODE = 1, /* native code bytes */
    WIRE_CODE_PART_MAP = 2,  /* wire_code_map_entry[] */
    WIRE_CODE_PART_REFS = 3, /* wire_code_ref[] */
    WIRE_CODE_PART_IL = 4,   /* the IL body (index WIRE_CODE_IL_INDEX) */
};

/* WIRE_CODE_PART: fixed part, then data up to the payload's end (at most
 * WIRE_CODE_CHUNK bytes; maps and refs in whole entries). `offset` is in bytes
 * of that piece's stream; pieces come in order. */
typedef struct wire_code_part {
    uint64_t request_id;
    uint32_t index; /* the version, or WIRE_CODE_IL_INDEX */
    uint16_t kind;  /* wire_code_part_kind */
    uint16_t reserved;
    uint32_t offset;
    uint32_t reserved2;
} wire_code_part;
_Static_assert(sizeof(wire_code_part) == 24, "wire_code_part layout");

/* COR_DEBUG_IL_TO_NATIVE_MAP as the runtime gives it. il_offset is an IL
 * offset, or 0xFFFFFFFF (no mapping), 0xFFFFFFFE (prolog), 0xFFFFFFFD (epilog). */
typedef struct wire_code_map_entry {
    uint32_t il_offset;
    uint32_t native_start, native_end; /* offsets from the version's start */
} wire_code_map_entry;
_Static_assert(sizeof(wire_code_map_entry) == 12, "wire_code_map_entry layout");

enum wire_code_ref_kind {
    WIRE_CODE_REF_DIRECT = 1,   /* call/jmp rel32: address is the target itself */
    WIRE_CODE_REF_INDIRECT = 2, /* call/jmp [rip+disp32]: address is the cell, value its content */
    WIRE_CODE_REF_THUNK = 4, /* the target was a jump thunk (jmp [rip+disp32]); target is past it */
    WIRE_CODE_REF_UNREADABLE = 8, /* a word could not be read (nothing mapped there) */
    WIRE_CODE_REF_KINDS = 15
};

/* Where one control transfer in the code leads, as the agent found it: the
 * code bytes are scanned for the x86-64 forms call/jmp rel32 and call/jmp
 * [rip+disp32] (a few such byte pairs are no instruction at all; the server
 * looks up only the ones its disassembly finds), each address is read with a
 * read that cannot fault (process_vm_readv), and GetFunctionFromIP names the
 * managed method the final target is in. method_hint is the word after the
 * thunk's data cell, which in the runtime's fixup precode is the method: the
 * server uses it only when it is a FunctionID of the session. */
typedef struct wire_code_ref {
    uint64_t address;     /* the cell (INDIRECT) or the target (DIRECT) */
    uint64_t value;       /* the cell's content; the target itself for DIRECT */
    uint64_t target;      /* where the transfer lands: value, or past one thunk */
    uint64_t function_id; /* the managed method whose code target is in; 0 none */
    uint64_t method_hint; /* see above; 0 none */
    uint32_t kind;        /* wire_code_ref_kind bits */
    uint32_t reserved;
} wire_code_ref;
_Static_assert(sizeof(wire_code_ref) == 48, "wire_code_ref layout");
_Static_assert(WIRE_CODE_CHUNK % sizeof(wire_code_map_entry) == 0 &&
                   WIRE_CODE_CHUNK % sizeof(wire_code_ref) == 0 &&
                   WIRE_CODE_CHUNK + sizeof(wire_code_part) <= WIRE_MAX_PAYLOAD,
               "a CODE_PART holds whole entries and fits a frame");

enum wire_code_status {
    WIRE_CODE_OK = 0,
    WIRE_CODE_NOT_ALIVE = 1, /* the address is not (or no longer) this method's code */
    WIRE_CODE_UNLOADING = 2, /* a module unload was under way: nothing read */
    WIRE_CODE_DYNAMIC = 3,   /* a dynamic method: freed at any time, never read */
    WIRE_CODE_DETACHING = 4, /* the agent is leaving */
    WIRE_CODE_FAILED = 5,    /* the runtime listed no code version (hresult says why) */
    WIRE_CODE_NO_MEMORY = 6, /* the agent could not get a buffer for the reply */
    WIRE_CODE_NOT_SEEN = 7,  /* the agent has not seen the method alive on this connection */
    WIRE_CODE_STALE = 8,     /* a module unload began since the agent last saw it alive */
    WIRE_CODE_STATUS_MAX = 8
};

/* WIRE_CODE_END: the reply's last record. */
typedef struct wire_code_end {
    uint64_t request_id;
    uint64_t function_id;
    uint64_t module_id;  /* the method's module (GetFunctionInfo), 0 when refused */
    uint64_t elapsed_ns; /* the agent's time on the request, runtime calls and copies */
    uint64_t refused;    /* requests this agent has refused so far (any reason) */
    uint32_t status;     /* wire_code_status */
    int32_t hresult;
    uint32_t versions;      /* native code versions the runtime listed */
    uint32_t versions_sent; /* CODE_VERSION records before this one */
    uint32_t il_size;       /* the IL body's bytes (header and code), 0 when unknown */
    uint32_t il_sent;       /* of them in CODE_PARTs */
    uint32_t token;         /* the method's mdMethodDef */
    uint32_t flags;         /* WIRE_CODE_TRUNCATED_VERSIONS, _IL */
} wire_code_end;
_Static_assert(sizeof(wire_code_end) == 72, "wire_code_end layout");

/* WIRE_INLINING: JITInlining, on the JIT thread: the runtime allowed the JIT to
 * inline callee into caller (the method being compiled, or an inlinee of it),
 * in the compilation running on thread_id. The JIT may still decide against
 * it on its own heuristics later (docs/RUNTIME.md, "Inlining").
 * WIRE_FLAG_DYNAMIC: the compilation is of a dynamic method. */
typedef struct wire_inlining {
    uint64_t caller;
    uint64_t callee;
    uint64_t thread_id;
} wire_inlining;
_Static_assert(sizeof(wire_inlining) == 24, "wire_inlining layout");

enum wire_code_search_result {
    WIRE_SEARCH_STARTED = 1,   /* the image has ReadyToRun code for it (Started) */
    WIRE_SEARCH_FOUND = 2,     /* that code is used (Finished, FOUND) */
    WIRE_SEARCH_NOT_FOUND = 3, /* Finished, NOT_FOUND */
};

/* WIRE_CODE_SEARCH: JITCachedFunctionSearchStarted / Finished (startup mode
 * only: the runtime refuses COR_PRF_MONITOR_CACHE_SEARCHES after an attach). */
typedef struct wire_code_search {
    uint64_t function_id;
    uint32_t result; /* wire_code_search_result */
    uint32_t reserved;
} wire_code_search;
_Static_assert(sizeof(wire_code_search) == 16, "wire_code_search layout");

/* ---- code lookups: which method's code is at an address ----
 *
 * The server's CPU profiler samples the target's threads from outside (perf
 * events) and names most managed frames through the code ranges of the JIT
 * records. Code the agent never reported (ReadyToRun code, code compiled
 * before an attach) is looked up by address: the server sends up to
 * WIRE_CODE_LOOKUP_MAX addresses per command; the agent answers each address
 * with one WIRE_CODE_RANGE, in order (GetFunctionFromIP on its sender thread),
 * after the FUNCTION_NAME of the function it found. */
#define WIRE_CODE_LOOKUP_MAX 30u

typedef struct wire_cmd_code_lookup {
    uint32_t count; /* 1..WIRE_CODE_LOOKUP_MAX addresses follow in ips */
    uint32_t reserved;
    uint64_t ips[WIRE_CODE_LOOKUP_MAX];
} wire_cmd_code_lookup;
_Static_assert(sizeof(wire_cmd_code_lookup) == 248, "wire_cmd_code_lookup layout");

typedef struct wire_code_range {
    uint64_t ip;          /* the address asked about */
    uint64_t function_id; /* the method whose code holds it; 0: none (hresult says why) */
    uint64_t start;       /* the code version (or chunk) that holds ip: start and size */
    uint32_t size;        /* 0 when the method is known but not the range */
    int32_t hresult;      /* GetFunctionFromIP's result (E_FAIL: not managed code) */
} wire_code_range;
_Static_assert(sizeof(wire_code_range) == 32, "wire_code_range layout");

/* ---- exceptions (records 31-32, WIRE_CMD_EXCEPTIONS; agent/exceptions.h) ----
 * An EXCEPTION per sampled exception thrown (the runtime's ExceptionThrown_V1,
 * on the throwing thread: the first WIRE_EXCEPTION_SAMPLED_FIRST per site, then
 * one a second) with type, message, throwing method, IL offset and stack; an
 * EXCEPTION_CAUGHT per catch clause entered for one; the rest counted per site
 * (wire_exc_counts.h). No record says "unhandled": the runtime ends the process. */
#define WIRE_EXCEPTION_MESSAGE_MAX 256u /* message bytes kept (UTF-8; cut: TRUNCATED) */
#define WIRE_EXCEPTION_TYPE_MAX 512u    /* type name bytes kept */
#define WIRE_EXCEPTION_MAX_FRAMES 64u   /* stack frames of a sampled exception */
#define WIRE_EXCEPTION_SAMPLED_FIRST 8u /* exceptions per site with a stack, then 1/s */
#define WIRE_IL_OFFSET_UNKNOWN 0xFFFFFFFFu

/* wire_exception.runtime_flags: the runtime's ExceptionFlags */
enum wire_exception_flags {
    WIRE_EXCEPTION_HAS_INNER = 0x1u,
    WIRE_EXCEPTION_NESTED = 0x2u,
    WIRE_EXCEPTION_RETHROWN = 0x4u,
    WIRE_EXCEPTION_CORRUPTED = 0x8u,
    WIRE_EXCEPTION_CLS_COMPLIANT = 0x10u,
};

/* WIRE_EXCEPTION: fixed part, frame_count wire_stack_frame entries (leaf
 * first), then two strings: the type's full name and the message. */
typedef struct wire_exception {
    uint64_t thread_id;     /* ThreadID of the throwing thread */
    uint64_t function_id;   /* the throwing method; 0: not managed code known to the runtime */
    uint64_t ip;            /* the throw site's native address (the runtime's ExceptionEIP) */
    uint32_t il_offset;     /* the throw site's IL offset, or WIRE_IL_OFFSET_UNKNOWN */
    int32_t hresult;        /* the exception's HResult */
    uint16_t runtime_flags; /* wire_exception_flags */
    uint16_t reserved;
    uint32_t frame_count; /* <= WIRE_EXCEPTION_MAX_FRAMES; 0: not sampled */
} wire_exception;
_Static_assert(sizeof(wire_exception) == 40, "wire_exception layout");

typedef struct wire_exception_caught {
    uint64_t thread_id;   /* the thread whose exception it is */
    uint64_t function_id; /* the method whose catch clause runs */
} wire_exception_caught;
_Static_assert(sizeof(wire_exception_caught) == 16, "wire_exception_caught layout");

/* Turns exception records on or off (the agent's EventPipe session for them). */
typedef struct wire_cmd_exceptions {
    uint32_t enabled; /* 1 on, 0 off */
    uint32_t reserved;
} wire_cmd_exceptions;

#include "wire_alloc.h"
#include "wire_exc_counts.h"

#define WIRE_MAX_COMMAND 256u /* longest command payload; a longer one is not our server */

#endif /* JITSCOPE_WIRE_H */
