/* agentplace.h -- where a process in a container finds the agent library and
 * the agent socket, and their removal once no session needs them.
 *
 * A process in another mount namespace (a container) cannot see the server's
 * paths. Its place is a directory of the server's in the process's own temp
 * directory (its TMPDIR, through /proc/PID/root), named as the server's own
 * socket directory (linksock_dir_name: stable for a data directory), private
 * (0700) and owned by the process's user: in it a copy of the agent library,
 * named by its content hash (libjitscope_agent-HASH.so: repeated attaches and
 * several processes sharing that temp directory use one copy), and a
 * listening agent socket (linksock.h) whose peers may be of that user. The
 * paths handed to AttachProfiler are the ones the process sees. Every step
 * goes through file descriptors opened without following a link the
 * container could plant (openat2 RESOLVE_IN_ROOT from its root, then *at
 * calls with O_NOFOLLOW), so nothing outside the container is ever touched.
 *
 * A place stays while a session that uses it (session.place_id) is starting,
 * live, disconnected, detaching or waiting to be taken back; the link
 * thread's sweep (agentplace_sweep, 500 ms) removes the others: socket,
 * library copy (a copy still mapped by a process is only unlinked: its memory
 * goes when the process unmaps it) and directory. At the server's stop every
 * place goes; at its start (agentplace_restore) the places of sessions to be
 * taken back are made again at the same paths, and directories a server left
 * in containers (killed, or one whose socket nobody serves) are removed.
 */
#ifndef JITSCOPE_AGENTPLACE_H
#define JITSCOPE_AGENTPLACE_H

#include <stddef.h>
#include <sys/types.h>

#include "ipc.h"
#include "userns.h"

#define AGENTPLACE_MAX 64 /* places at once */
#define AGENTPLACE_PATH_MAX 108

typedef struct agentplace_paths {
    int place;                        /* 0: the server's own paths (not in a container) */
    char library[256];                /* the agent library, as the process sees it */
    char socket[AGENTPLACE_PATH_MAX]; /* the agent socket, as the process sees it */
    char dir_here[256];               /* the place as the server reaches it (messages) */
} agentplace_paths;

/* The server's agent library (its content is hashed here, once). */
void agentplace_configure(const char *agent_path);

/* The paths process pid must be given: the server's own when it sees the
 * server's files, else its place (made, or shared with another process of
 * the same temp directory). The place is pinned until agentplace_unpin (the
 * sweep leaves it). 0, or -1 with an HTTP status (403, 409, 500, 507) and a
 * message naming the cause and what to do. */
int agentplace_take(pid_t pid, const ipc_target *t, const userns_facts *u, agentplace_paths *out,
                    int *status, char *msg, size_t msgsz);
/* The place in directory dir (a diagnostic port's: the server's path; the
 * processes see it at `inside`), of uid/gid: as agentplace_take. */
int agentplace_take_dir(const char *dir, const char *inside, uid_t uid, gid_t gid,
                        agentplace_paths *out, int *status, char *msg, size_t msgsz);
/* libjitscope_agent-HASH.so: the copies' name. */
const char *agentplace_library_name(void);
/* The attach is over: the place's session (if any) now says it uses it. */
void agentplace_unpin(int place);
/* The link thread's sweep: places no session needs are removed. */
void agentplace_sweep(void);
/* At the server's start, after storage read its sessions back and the link
 * started: the places of sessions to be taken back, and leftovers removed. */
void agentplace_restore(void);
/* At the server's stop: every place removed. */
void agentplace_stop(void);
/* How many places there are (GET /api/config). */
size_t agentplace_count(void);

#endif
