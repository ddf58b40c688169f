/* dpwork.h -- one runtime of the diagnostic port, taken through its commands
 * by a thread of its own (started by diagport.c for each new runtime).
 *
 * In order, each command on a connection of its own (dpconn.h):
 *   - refused at once, with ResumeRuntime as the very first command, when the
 *     server is stopping, the runtime's user is not one the port serves, the
 *     memory budget leaves no share for another session, or the agent cannot
 *     be placed in the port's directory;
 *   - ProcessInfo2: what it runs (refused when older than .NET 5);
 *   - ProcessEnvironment: refused when another profiler is set to load at
 *     startup or profiling is disabled in it; whether its configuration makes
 *     it wait (a suspend-mode port);
 *   - a session; then, for a runtime that waits: SetEnvironmentVariable (the
 *     agent's settings, WIRE_ENV_PORT_AGENT), StartupProfiler (tried again
 *     while the runtime has not reached its pause yet), ResumeRuntime: the
 *     agent is its startup profiler and sees every JIT from the first method
 *     of Main; for one that does not wait: AttachProfiler (tried again while
 *     the runtime is still starting);
 *   - the next connection is held, idle; the agent's hello is waited for.
 * Whatever happens, a runtime that may be waiting is sent ResumeRuntime
 * (a no-op for one that is not): jitscope never leaves it waiting. Each
 * step's outcome and the time from its first connection to ResumeRuntime's
 * answer are kept in its record (GET /api/diagnostic-port) and logged.
 */
#ifndef JITSCOPE_DPWORK_H
#define JITSCOPE_DPWORK_H

#include "dpconn.h"

#define DP_SESSION_ROOM (16ull << 20) /* the budget's share a new session needs at least */

/* The thread's body; arg is the runtime's record (its first connection queued). */
void *dpwork_main(void *arg);

#endif
