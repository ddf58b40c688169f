/* link.h -- the server's end of the agent sockets.
 *
 * link_start creates a private directory (mode 0700, made by mkdtemp so there is
 * no window where it is open) holding one listening Unix socket, and a thread
 * that accepts agents, checks each peer's uid with SO_PEERCRED, splits the
 * byte stream into frames (wire_decode.h) and applies records to the session
 * named by the token in the agent's hello. A connection that sends garbage is
 * dropped with a logged reason; other connections are not affected. A
 * connection has 2 s to say hello, and at most 64 are waiting for theirs at
 * once beside the 64 agents past it (a newer one closes the oldest waiting),
 * so silent peers of our uid can never keep an agent or an attach out.
 * Commands (detach, ping) go back down the same socket via link_send. After
 * records were applied the link thread calls sessions_notify (lock not held).
 * Every sweep (500 ms) the link thread checks that the socket file is still the
 * one it bound; when it was removed (or its directory, say by a /tmp cleaner),
 * it makes the directory again at the same path (0700, or refuses when the
 * name now belongs to someone else) and binds a new socket there, logging it:
 * connected agents go on, new agents, reconnects and attaches work again.
 * The directory also holds the server's note (link_set_note: its dashboard
 * URL), written again with it.
 *
 * With storage on, the directory's name is stable for the data directory
 * (link_start's `stable_key`): jitscope-<uid>-<hash of the data directory's
 * path> under $XDG_RUNTIME_DIR (else /tmp), made 0700 or, left by a server
 * that died, taken back only when it is still a private directory of ours. An
 * agent whose server died keeps trying that path, so a server started on the
 * same data directory takes its session back (persist.h).
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
/* How many times a session's function index grew outside the sessions lock
 * (link_grow_index_ahead in link.c), since the start. */
unsigned long link_index_grown_ahead(void);

#endif
