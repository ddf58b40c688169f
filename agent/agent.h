/* agent.h -- process-wide state of the jitscope agent inside the target.
 *
 * One agent per process (docs/RUNTIME.md, Several runtimes): the first runtime that creates
 * our profiler owns `agent`; later runtimes are declined. The ring is written by
 * callbacks (emit.c) and drained by the sender thread (sender.c), the only
 * thread that talks to the server. State only: each module declares its own
 * functions in its own header. */
#ifndef JITSCOPE_AGENT_H
#define JITSCOPE_AGENT_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/un.h>

#include "corprof.h"
#include "ring.h"
#include "wire.h"

#define AGENT_RING_DEFAULT (8u * 1024u * 1024u) /* JITSCOPE_RING_BYTES overrides */

typedef struct agent_state {
    ring ring;
    _Atomic int ring_ready;   /* ring usable by emit_record */
    ICorProfilerInfo10 *info; /* of the runtime we profile */
    int mode;                 /* wire_mode */
    int floor; /* a null agent (WIRE_ENV_NULL): callbacks_floor_table, sends nothing */
    char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    char token[WIRE_TOKEN_LEN];
    uint16_t runtime_type, clr_instance_id, major, minor, build, qfe;
    uint64_t give_up_ns;           /* detach after this long without a server */
    _Atomic int catchup_requested; /* ProfilerAttachComplete: enumerate */
    _Atomic int stopping;          /* Shutdown: flush and end the sender */
    _Atomic int detach_requested;  /* RequestProfilerDetach succeeded */
    _Atomic int sender_running;    /* the sender thread exists: unload fences wait for it */
    _Atomic uint64_t unload_gen;   /* bumped when a module unload starts or finishes (unload.c) */
    /* 1 + the ring position where the newest module unload began (0: none yet):
     * a record at a lower position may name code that has died since (code.c) */
    _Atomic uint64_t unload_fence;
    _Atomic uint64_t name_failures;
    _Atomic uint64_t no_server_drops;
    _Atomic uint64_t slow_server_drops; /* conn.c: the server did not read (sequence used) */
    _Atomic uint64_t names_late;        /* naming.c: read too late to be read safely */
    _Atomic uint64_t shutdown_drops;    /* left in the ring at Shutdown / detach */
    /* the agent's own time in JIT callbacks (events.c; wire.h WIRE_AGENT_COST) */
    _Alignas(64) _Atomic uint64_t cost_callbacks; /* a line of their own: added to per callback */
    _Atomic uint64_t cost_total_ns;
    _Atomic uint64_t cost_buckets[WIRE_COST_BUCKETS];
} agent_state;

extern agent_state agent;

#endif
