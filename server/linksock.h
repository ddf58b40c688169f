/* linksock.h -- the listening sockets agents connect to (link.c accepts on
 * them and reads the agents).
 *
 * The server's own: a private directory (mode 0700, made by mkdtemp so there
 * is no window where it is open) holding agent.sock. With storage on, the
 * directory's name is stable for the data directory (linksock_start's
 * `stable_key`): jitscope-<uid>-<hash of the data directory's path> under
 * $XDG_RUNTIME_DIR (else /tmp), made 0700 or, left by a server that died,
 * taken back only when it is still a private directory of ours. An agent
 * whose server died keeps trying that path, so a server started on the same
 * data directory takes its session back (persist.h). Every sweep (500 ms) the
 * link thread calls linksock_check: when the socket file was removed (or its
 * directory, say by a /tmp cleaner), the directory is made again at the same
 * path (0700, or refused when the name now belongs to someone else) and a new
 * socket bound there: connected agents go on, new agents, reconnects and
 * attaches work again. The directory also holds the server's note
 * (linksock_set_note: its dashboard URL), written again with it.
 *
 * Others: a socket where an agent in a container can reach it (agentplace.c:
 * in the container's temp directory; diagport.c: in a diagnostic port's
 * directory), added and removed while the server runs. Each says which uid
 * its peers may have besides the server's own (the container's user, as the
 * server sees it). A removed one is closed by the link thread at its next
 * wake-up, never under its poll.
 */
#ifndef JITSCOPE_LINKSOCK_H
#define JITSCOPE_LINKSOCK_H

#include <poll.h>
#include <stddef.h>
#include <sys/types.h>

#define LINKSOCK_MAX 64 /* listening sockets at once, the server's own included */
#define LINKSOCK_OWN 1  /* the server's own socket's handle */

/* stable_key: the data directory (the socket's path follows from it), or
 * NULL for a directory of its own (mkdtemp). 0, or -1 with err. */
int linksock_start(const char *stable_key, char *err, size_t errsz);
/* The server's own socket and its directory ("" before linksock_start). */
const char *linksock_path(void);
const char *linksock_dir(void);
/* The name of the server's own directory (jitscope-...): agentplace.c names
 * its directories in containers after it. */
const char *linksock_dir_name(void);
void linksock_set_note(const char *text);
/* The link thread's sweep: the server's own socket made again if removed. */
void linksock_check(void);
/* Closes every socket; removes the server's own socket and directory. */
void linksock_stop(void);

/* How the link thread is woken up (set once by link.c). */
void linksock_set_waker(void (*wake)(void));
/* Another listening socket bound at bind_path (its directory made by the
 * caller; a socket file left there is replaced), whose peers may also be of
 * uid peer_uid. Its handle (> LINKSOCK_OWN), or -1 with err. Any thread. */
int linksock_add(const char *bind_path, uid_t peer_uid, char *err, size_t errsz);
/* Closes it soon (at the link thread's next wake-up). Any thread. */
void linksock_remove(int handle);
/* For the link thread: closes the removed ones, then fills fds (POLLIN) and
 * their handles; how many (at most max). */
size_t linksock_poll_set(struct pollfd *fds, int *handles, size_t max);
/* 1 when a peer of uid may connect on listener handle. */
int linksock_peer_ok(int handle, uid_t uid);

#endif
