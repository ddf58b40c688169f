/* procscan.h -- discovery of the .NET processes the server can attach to.
 *
 * Walks /proc, and for every process we may talk to (same effective uid, or any
 * when we are root) works out where its diagnostics socket must be (the target's
 * own TMPDIR from /proc/{pid}/environ, its start time from /proc/{pid}/stat; see
 * ipc.h), then lists those directories -- plus /tmp and our own TMPDIR -- once
 * each, and keeps the processes whose socket is there with a matching start-time
 * key. Stale sockets (no such pid, or a key of an earlier process with the same
 * pid) are skipped. The result feeds the server's process list and `attach`.
 */
#ifndef JITSCOPE_PROCSCAN_H
#define JITSCOPE_PROCSCAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ipc.h"

#define PROCSCAN_MAX_PROCS 65536u /* processes examined in one scan */
#define PROCSCAN_MAX_DIRS 64u     /* distinct socket directories listed in one scan */

/* procscan_list_ex flags */
#define PROCSCAN_INCLUDE_OTHERS 1u /* also list processes whose socket we cannot use */

/* Positive return: out was filled to max and more processes were found. */
#define PROCSCAN_MORE 1

typedef struct procscan_entry {
    pid_t pid;           /* as seen from here */
    pid_t ns_pid;        /* as seen by the target (differs in a container) */
    uid_t uid;           /* owner of the socket */
    int can_attach;      /* 1: socket is ours, or we are root */
    uint64_t start_time; /* field 22 of /proc/{pid}/stat */
    char socket_path[IPC_PATH_MAX];
} procscan_entry;

/* Attachable .NET processes, sorted by pid. IPC_OK with *count entries written,
 * PROCSCAN_MORE when there were more than max, or IPC_ERR_INVAL / IPC_ERR_IO. */
int procscan_list(procscan_entry *out, size_t max, size_t *count);

/* Same with flags (PROCSCAN_INCLUDE_OTHERS lists other users' processes too,
 * as far as /proc lets us see them, with can_attach = 0). */
int procscan_list_ex(procscan_entry *out, size_t max, size_t *count, unsigned flags);

#endif
