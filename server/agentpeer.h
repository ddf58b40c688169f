/* agentpeer.h -- which jitscope server the agent in another process talks to.
 *
 * A process takes one profiler: while a jitscope agent runs in it (its thread
 * is there), another server cannot attach (attach.c). To tell the user whose
 * agent it is, the process's sockets are followed to their other ends with the
 * kernel's socket diagnostics (NETLINK_SOCK_DIAG for Unix sockets: each
 * socket's inode, bound name and peer's inode, as `ss -x` shows them): a
 * socket of the process whose peer is bound at a jitscope agent socket
 * (DIR/agent.sock, DIR named jitscope-XXXXXX, or jitscope-UID-HASH for a
 * data directory's) is the agent's connection to the
 * live server that made DIR, and that server left its dashboard URL in
 * DIR/server (link_set_note). An agent whose server is gone has no such
 * connection (it waits to detach itself). Thread-safe; no lock taken.
 */
#ifndef JITSCOPE_AGENTPEER_H
#define JITSCOPE_AGENTPEER_H

#include <stddef.h>
#include <sys/types.h>

#define AGENTPEER_NOTE_NAME "server" /* the note's file name in the socket directory */
#define AGENTPEER_NOTE_MAX 256       /* bytes of a note read at most */

/* 1 when a socket of pid is connected to a jitscope server's agent socket:
 * socket_path gets that socket's path and url the server's note (its dashboard
 * URL; empty when it left none or the note is not ours). 0 when pid has no
 * such connection, -1 when it cannot be told (err says why). */
int agentpeer_find(pid_t pid, char *socket_path, size_t pathsz, char *url, size_t urlsz, char *err,
                   size_t errsz);

/* Whether a bound Unix socket name is a jitscope agent socket (pure). */
int agentpeer_is_agent_socket(const char *name, size_t length);

/* A note's text as the URL it may hold: printable ASCII up to the first line
 * end, at most urlsz - 1 bytes; empty when it holds anything else (pure). */
void agentpeer_note_url(const char *text, size_t length, char *url, size_t urlsz);

#endif
