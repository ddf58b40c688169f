/* attach.h -- attaching the agent to a running .NET process, and detaching it.
 *
 * attach_process speaks the runtime's diagnostics IPC (ipc.h): AttachProfiler
 * with our CLSID, the agent library's path and, as client data, the agent
 * link's socket path and a fresh session token. It answers only once the agent
 * has said hello on the link (or it is sure the attach did not happen), and
 * never leaves a half-made session behind. Results map to HTTP statuses:
 * 201 attached, 404 no process / not .NET, 403 another user's, 409 a profiler
 * is already active, 429 another attach is running, 503 runtime not ready,
 * 500 the runtime could not load the agent, 504 timed out.
 *
 * detach_session sends the detach command down the agent link; the session
 * becomes `detaching`, then `detached` when the agent's last record arrives. */
#ifndef JITSCOPE_ATTACH_H
#define JITSCOPE_ATTACH_H

#include <stddef.h>
#include <sys/types.h>

#define ATTACH_HELLO_TIMEOUT_MS 10000
#define ATTACH_RUNTIME_TIMEOUT_MS 5000
#define DETACH_EXPECTED_MS 300 /* hint to RequestProfilerDetach; the runtime waits >= 300 ms */

typedef struct attach_result {
    int status;     /* HTTP status */
    int session_id; /* when 201 */
    char message[512];
} attach_result;

void attach_set_agent_path(const char *path);
/* What attach_process checks before it makes a session: pid is a running .NET
 * process (.NET 5 or later: it answers ProcessInfo) of our user with a
 * diagnostics socket and no jitscope agent of another server (whose server,
 * when alive, the message names). 0, or -1 with
 * out's status and message set as attach_process would. Used by `jitscope
 * attach` before it starts anything. */
int attach_check(pid_t pid, attach_result *out);
void attach_process(pid_t pid, attach_result *out);
/* Returns the HTTP status: 202 sent, 404 no session, 409 not live, 502 link failed. */
int detach_session(int session_id, char *message, size_t size);

#endif
