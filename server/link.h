/* link.h -- the server's end of the agent sockets.
 *
 * link_start makes the server's own listening socket (linksock.h: a private
 * directory, stable for a data directory), and a thread that accepts agents
 * on it and on the other listeners linksock.h holds (in containers, in a
 * diagnostic port's directory), checks each peer's uid with SO_PEERCRED, splits the
 * byte stream into frames (wire_decode.h) and applies records to the session
 * named by the token in the agent's hello. A connection that sends garbage is
 * dropped with a logged reason; other connections are not affected. A
 * connection has 2 s to say hello, and at most 64 are waiting for theirs at
 * once beside the 64 agents past it (a newer one closes the oldest waiting),
 * so silent peers of our uid can never keep an agent or an attach out.
 * Commands (detach, ping) go back down the same socket via link_send. After
 * records were applied the link thread calls sessions_notify (lock not held).
 * Every sweep (500 ms) the link thread has the server's own socket made again
 * if it was removed (linksock_check), and calls the sweep hook (link_on_sweep).
 */
#ifndef JITSCOPE_LINK_H
#define JITSCOPE_LINK_H

#include <stddef.h>
#include <stdint.h>

/* stable_key: the data directory (the socket's path follows from it), or
 * NULL for a directory of its own (mkdtemp). */
int link_start(const char *stable_key, char *err, size_t errsz);
const char *link_socket_path(void);
/* Leaves text (the dashboard URL) in the socket's directory for other servers
 * (agentpeer.h); once, after link_start. */
void link_set_note(const char *text);
/* Sends one command frame to the connection bound to a session. 0 or -1. */
int link_send(int link_id, uint16_t type, const void *payload, uint32_t length);
void link_stop(void);
/* Has the link thread accept every agent connection waiting in the backlog and
 * read the hello of each (a process that ended connected before it ended: its
 * session takes its records before anyone is told it ended). Waits at most
 * max_ms; 1 when done, 0 when not (no link thread, or the time ran out). */
unsigned link_take_backlog(int max_ms);
/* A function the link thread calls at every sweep (500 ms), without a lock:
 * agentplace.c's, installed by main.c (a call back up, not a dependency). */
void link_on_sweep(void (*hook)(void));
/* How many times a session's function index grew outside the sessions lock
 * (link_grow_index_ahead in link.c), since the start. */
unsigned long link_index_grown_ahead(void);
/* The same for a session's name table (link_grow_names_ahead). */
unsigned long link_names_grown_ahead(void);

#endif
