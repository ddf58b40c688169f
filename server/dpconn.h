/* dpconn.h -- the runtimes on the diagnostic port and their connections,
 * shared by the port's acceptor thread (diagport.c) and the workers that take
 * each runtime through its commands (dpwork.c).
 *
 * A runtime connects, advertises itself (its cookie) and waits for one
 * command; every command consumes its connection and the runtime connects
 * again at once. The acceptor reads each advertise and hands the connection to
 * the runtime's record, found by cookie; its worker takes connections from
 * there one by one (dpconn_next) and, once done, leaves the last one held and
 * idle (dpconn_hold): the runtime then waits on it (no reconnect loop), and the
 * acceptor learns from its end that the process exited. Everything here is
 * under one mutex (the `dp_runtime` fields are read and written with
 * dpconn_lock held) and a condition the workers wait on.
 */
#ifndef JITSCOPE_DPCONN_H
#define JITSCOPE_DPCONN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ipc.h"

#define DP_RUNTIMES_MAX 64 /* runtimes remembered (ended ones give their slot up first) */
#define DP_QUEUE 4         /* connections waiting for a runtime's worker */
#define DP_REASON_MAX 320

/* What jitscope did with a runtime (GET /api/diagnostic-port: "outcome"). */
enum dp_outcome {
    DP_WORKING,  /* being taken through its commands */
    DP_STARTUP,  /* the agent was its startup profiler (it waited in suspend mode) */
    DP_ATTACHED, /* the agent was attached (nosuspend, or after a late start) */
    DP_REFUSED,  /* resumed without the agent: reason says why */
    DP_FAILED,   /* the agent was given but did not come, or a command failed */
    DP_KNOWN,    /* a runtime of a session this server already has (after a restart) */
};

typedef struct dp_runtime {
    int id; /* 0: a free slot */
    uint8_t cookie[IPC_GUID_SIZE];
    uint64_t pid_inside;         /* as it advertised it (its own pid namespace) */
    pid_t pid;                   /* as the server sees it (SO_PEERCRED), 0 when not visible here */
    uid_t uid;                   /* its uid as the server sees it */
    int worker;                  /* 1 while its worker runs */
    int queue[DP_QUEUE];         /* advertised connections for the worker */
    int64_t queued_ns[DP_QUEUE]; /* when each was accepted (CLOCK_MONOTONIC) */
    int queued;
    int held;          /* the idle connection held after the worker, -1 none */
    int gone;          /* its held connection ended: the process exited */
    int64_t first_ns;  /* its first connection accepted (CLOCK_MONOTONIC) */
    int64_t seen_ns;   /* the same, wall clock */
    double resumed_ms; /* ResumeRuntime answered, ms after first_ns; < 0 not sent */
    int suspended;     /* its configuration made it wait (a suspend-mode port) */
    int outcome;       /* enum dp_outcome */
    char reason[DP_REASON_MAX];
    int session_id;
    char runtime_version[64];
    char command_line[512];
} dp_runtime;

/* The port as configured (diagport_start), read by everyone. */
typedef struct dp_config {
    char host_path[IPC_PATH_MAX]; /* the socket as the server sees it */
    char app_path[IPC_PATH_MAX];  /* as the apps see it (the same by default) */
    char host_dir[IPC_PATH_MAX], app_dir[IPC_PATH_MAX]; /* their directories */
    uid_t trusted_uid; /* besides ours: the directory's owner (root serving a volume) */
    gid_t trusted_gid;
} dp_config;
extern dp_config dp_cfg;

void dpconn_lock(void);
void dpconn_unlock(void);
/* Wakes the workers (a connection was queued, or the server stops). Lock held. */
void dpconn_signal(void);
/* The runtime with this cookie, or NULL. Lock held. */
dp_runtime *dpconn_find(const uint8_t cookie[IPC_GUID_SIZE]);
/* A new record (a free slot, else the oldest ended one's), or NULL. Lock held. */
dp_runtime *dpconn_add(const uint8_t cookie[IPC_GUID_SIZE]);
/* The records, for a listing: slot i (NULL when free). Lock held. */
dp_runtime *dpconn_at(size_t i);
/* Queues an advertised connection for r (accepted at accepted_ns): 0, or -1
 * when its queue is full (the caller closes it). Lock held. */
int dpconn_queue(dp_runtime *r, int fd, int64_t accepted_ns);

/* Worker: r's next connection within timeout_ms (-1 on timeout or when the
 * server stops and none comes). Takes the lock itself. */
int dpconn_next(dp_runtime *r, int timeout_ms);
/* Worker: done; fd (a fresh connection) stays open and idle, watched by the
 * acceptor. Takes the lock itself; wakes the acceptor. */
void dpconn_hold(dp_runtime *r, int fd);

/* The server stops: from the word (dpconn_set_stopping), or as soon as
 * SIGINT or SIGTERM is pending for the process (before its main thread even
 * took it), every runtime is resumed without the agent. */
void dpconn_set_stopping(void);
int dpconn_stopping(void);

/* Waits until no worker runs (at stop): 0, or -1 after about timeout_ms. */
int dpconn_wait_idle(int timeout_ms);

/* How the acceptor is woken up (set by diagport.c). */
void dpconn_set_waker(void (*wake)(void));

#endif
