/* diagport.h -- listen mode: `jitscope serve --diagnostic-port PATH[=APPPATH]`.
 *
 * The server listens on PATH as a diagnostic port: a runtime started with
 * DOTNET_DiagnosticPorts=APPPATH[,suspend|nosuspend] connects to it and
 * advertises itself, so a sidecar that shares only a volume with the app (no
 * pid namespace: it cannot see the process) observes it. APPPATH is where the
 * app sees PATH (a volume mounted at another path in its container; PATH by
 * default). Each runtime is taken through its commands by a thread of its own
 * (dpwork.h): the agent as its startup profiler when it waits in suspend mode,
 * attached otherwise, a session of its own either way; the agent library and
 * the agent socket are placed in PATH's directory (agentplace.h), which is
 * where the app finds them. The acceptor thread (jitscope-port) reads every
 * connection's advertise and hands it to its runtime (dpconn.h), and watches
 * the connection held idle for each runtime: its end is the process's end
 * when the server cannot see the process.
 *
 * The socket at PATH is made by the owner of PATH's directory (a volume's
 * owner: root serving another user's volume acts as that user), so that user
 * and the server's own may connect; runtimes of other users are resumed
 * without the agent. A socket left at PATH by a server that died is replaced;
 * one another process serves is an error. A runtime waiting in suspend mode
 * is never left waiting by jitscope: it is resumed whatever is decided about
 * it, and when the server stops, every runtime connected by then is resumed
 * before the socket goes (PATH is removed first: one that connects later waits
 * for the next server, as the runtime does while nothing listens).
 */
#ifndef JITSCOPE_DIAGPORT_H
#define JITSCOPE_DIAGPORT_H

#include <stddef.h>

/* Listens on the port spec "PATH" or "PATH=APPPATH" (absolute paths). 0, or
 * -1 with err (the path, its directory, a server already on it). */
int diagport_start(const char *spec, char *err, size_t errsz);
/* 1 when the server listens on a diagnostic port. */
int diagport_enabled(void);
/* The server is about to stop (its main thread got SIGINT/SIGTERM): every
 * runtime from now on is resumed without the agent. */
void diagport_stopping(void);
/* Resumes every runtime connected by now, then closes the port. */
void diagport_stop(void);

#endif
