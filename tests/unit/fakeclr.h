/* fakeclr.h -- a fake CoreCLR for the built agent library, in-process: what the
 * test_sidebyside_* binaries play the runtime with.
 *
 * The runtime's side of the profiling API, as the agent sees it: the library
 * loaded as CoreCLR loads it (dlopen, DllGetClassObject, the class factory:
 * fakeclr_load.c), and per runtime an IUnknown that hands out a fake
 * ICorProfilerInfo10 (fakeclr_runtime.c) whose vtable fills only the slots the
 * agent calls: version, event masks, detach (fakeclr_runtime.c); suspension,
 * thread enumeration and stack walks (fakeclr_stacks.c); names through
 * GetFunctionInfo2 and a fake IMetaDataImport, and the JIT path's code
 * questions (fakeclr_names.c); and, when a test asks for it, the
 * ICorProfilerInfo12 of the tier source's EventPipe sessions (fakeclr_pipe.c). A call through any other slot is a NULL call:
 * the agent called the runtime where the tests say it must not.
 *
 * What the fake says is one scenario at a time (fake_scene): the threads to
 * walk and how each walk goes, slowed or failing calls; it also counts what
 * the agent asked and when (suspended or not, from which thread). The tests
 * set it up before they send the agent a command. Nothing here checks: the
 * tests read the counts (tests/unit/sidebyside.h is their harness, and
 * fakelink.h the server's end of the agent's socket).
 */
#ifndef JITSCOPE_TEST_FAKECLR_H
#define JITSCOPE_TEST_FAKECLR_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "corprof.h"

/* ---- small helpers of the fake and its tests ---- */

double now_s(void);                 /* CLOCK_MONOTONIC, in seconds */
uint64_t clock_ns(clockid_t clock); /* that clock, in ns */
void sleep_ms(unsigned ms);
pid_t my_tid(void);
/* Threads of this process whose /proc comm is `name` (-1: /proc unreadable). */
int threads_named(const char *name);
/* Waits (up to timeout_ms) until `count` threads are named `name`; how many are. */
int wait_threads_named(const char *name, int count, int timeout_ms);

static inline int guid_eq(const GUID *a, const GUID *b) { return memcmp(a, b, sizeof(GUID)) == 0; }

/* ---- loading the agent as CoreCLR does (fakeclr_load.c) ---- */

typedef HRESULT (*dll_get_class_object_fn)(const GUID *, const GUID *, void **);

extern void *agent_lib;                          /* dlopen()ed once per process */
extern dll_get_class_object_fn get_class_object; /* its DllGetClassObject */
extern IClassFactory *factory;                   /* what it gave for jitscope's CLSID */

/* Loads the agent library (JITSCOPE_AGENT_SO, else build/libjitscope_agent.so
 * relative to the cwd) and takes its class factory; once per process, later
 * calls return 0 at once. -1 with the reason in err. */
int fakeclr_load(char *err, size_t size);
/* A new profiler object from the factory, as the runtime makes one; NULL on failure. */
ICorProfilerCallback11 *new_profiler(void);

/* ---- one runtime (fakeclr_runtime.c) ---- */

typedef struct fake_runtime {
    ICorProfilerInfo10 info; /* first: an ICorProfilerInfo10 * is a fake_runtime * */
    IUnknown unk;            /* what Initialize receives */
    uint16_t instance_id;
    uint16_t major, minor, build; /* what GetRuntimeInformation says (fake_init: 10.0.1) */
    HRESULT runtime_info_result;  /* and returns (S_OK) */
    _Atomic int refs;             /* shared by unk and info; the runtime itself holds 1 */
    _Atomic int unk_qi_calls, info10_handed_out, runtime_info_calls, set_mask_calls;
    _Atomic int detach_calls, enum_calls, unexpected_qi, info12_asked;
    _Atomic DWORD mask, mask_high;
    _Atomic DWORD detach_expected_ms;
    _Atomic pid_t detach_tid;
    char detach_thread_name[32]; /* written by the agent's thread before detach_calls++ */
    _Atomic HRESULT detach_result;
} fake_runtime;

static inline fake_runtime *rt_of_info(ICorProfilerInfo10 *i) { return (fake_runtime *)(void *)i; }

/* A runtime of CLR instance `instance_id`, version 10.0.1, one reference
 * (its own), RequestProfilerDetach agreeing. */
void fake_init(fake_runtime *rt, uint16_t instance_id);

/* ---- what the fake says about threads, frames and names ---- */

/* Frame i (0 = leaf) of the thread whose ThreadID is t (a small number, so
 * every test has its own FunctionIDs). Every frame with i % 7 == 3 is a run
 * of native code (FunctionID 0). Every FunctionID is method FAKE_TOKEN(fid)
 * of FAKE_MODULE, named "M_<token in hex>" (M_06000005), no class. */
#define FAKE_FID(t, i) ((i) % 7 == 3 ? (FunctionID)0 : (FunctionID)(((t) << 12) + (i)))
#define FAKE_IP(t, i) ((UINT_PTR)0x7f0000000000ull + ((UINT_PTR)(t) << 16) + (UINT_PTR)(i)*0x10u)
#define FAKE_TOKEN(fid) ((mdToken)(0x06000000u | ((fid)&0x00FFFFFFu)))
#define FAKE_MODULE ((ModuleID)0x4D4F44u)
#define FAKE_MAX_THREADS 8
/* The ThreadID GetCurrentThreadID gives the OS thread `tid`. */
#define FAKE_WALKER_ID(tid) ((ThreadID)0x7000u + (ThreadID)(unsigned)(tid))
/* OS thread id of a fake managed thread: a function of the ThreadID. */
#define FAKE_OS_TID(thread) ((DWORD)((thread)&0xFFFFu) + 100000u)

typedef struct fake_thread_cfg {
    ThreadID id;
    unsigned depth;    /* frames the fake reports */
    HRESULT hr;        /* what DoStackSnapshot returns (unless the walk is aborted) */
    unsigned sleep_ms; /* the walk of this thread takes this long */
} fake_thread_cfg;

/* One scenario at a time: the test thread sets it up before sending a command
 * (the socket and the agent's hand-over order it before the walker reads it). */
typedef struct fake_scenario {
    fake_thread_cfg threads[FAKE_MAX_THREADS];
    unsigned nthreads;
    int list_self;                     /* EnumThreads also lists the caller (the walker) */
    _Atomic int busy_left;             /* SuspendRuntime says IN_PROGRESS this often first */
    _Atomic unsigned suspend_sleep_ms; /* a slow SuspendRuntime */
    _Atomic unsigned name_sleep_us;    /* a slow GetFunctionInfo2 */
    _Atomic ThreadID dynamic_thread;   /* this thread's frames are dynamic methods (0: none) */
    _Atomic int dynamic_info_calls;    /* GetDynamicFunctionInfo calls */
    _Atomic int suspended;
    _Atomic pid_t suspender;
    _Atomic int suspend_calls, suspend_ok, resume_calls, bad_resumes, nested_suspends;
    _Atomic int foreign_calls;     /* runtime calls of another thread while suspended */
    _Atomic int unsuspended_walks; /* another thread walked while not suspended */
    _Atomic int self_calls, self_calls_suspended, self_walked, init_thread_calls;
    _Atomic int walks, enums_live, enums_released_suspended, bad_walk_flags;
    _Atomic ThreadID walking;     /* the thread a walk is in */
    _Atomic uint64_t walk_end_ns; /* when the last slow walk ended */
    _Atomic int peek_fd;          /* >= 0: ResumeRuntime looks at the socket first */
    _Atomic int peek_stack_frames, peek_done;
    _Atomic int walkers_at_detach; /* "jitscope-walk" threads when detach was asked */
    /* suspension callbacks, raised on the suspending thread like the runtime does */
    ICorProfilerCallback11 *_Atomic callbacks; /* NULL: none */
    _Atomic int interleave; /* ResumeRuntime lets a "GC" start before it finishes */
    _Atomic int gc_go, gc_started, gc_finish_go;
    /* the tier source: set before Initialize, ICorProfilerInfo12 is given and
     * EventPipe sessions start (fakeclr_pipe.c) */
    _Atomic int pipe;
    _Atomic int pipe_started, pipe_open; /* sessions started; started and not stopped */
} fake_scenario;

extern fake_scenario fake_scene;

/* The whole scenario as new: no threads, no counts, nothing slowed down. Only
 * while nothing of the agent runs (between tests). */
void fake_scene_clear(void);
/* The threads and what slows or fails as new, the counts kept. */
void fake_stacks_reset(void);
/* One more thread for EnumThreads to list and DoStackSnapshot to walk. */
void fake_add_thread(ThreadID id, unsigned depth, HRESULT hr, unsigned sleep_ms);

/* ---- inside the fake: its parts' shares of the ICorProfilerInfo10 vtable ---- */

/* Counts a runtime call made by another thread while one thread holds the
 * runtime suspended (fake_scene.foreign_calls). */
void fake_note_call(void);
void fakeclr_stacks_slots(ICorProfilerInfo10Vtbl *v); /* fakeclr_stacks.c */
void fakeclr_names_slots(ICorProfilerInfo10Vtbl *v);  /* fakeclr_names.c */
void fakeclr_pipe_slots(ICorProfilerInfo12Vtbl *v);   /* fakeclr_pipe.c */

/* The providers whose events a test delivers to the tier source (their
 * names: EventPipeGetProviderInfo, fakeclr_pipe.c). */
#define FAKE_PROVIDER_RUNTIME ((EVENTPIPE_PROVIDER)0x5201u) /* Microsoft-Windows-DotNETRuntime */
#define FAKE_PROVIDER_PIPE ((EVENTPIPE_PROVIDER)0x5202u)    /* Microsoft-DotNETCore-EventPipe */

#endif
