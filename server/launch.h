/* launch.h -- `jitscope run`: start an app with the agent loaded at startup.
 *
 * The child gets CORECLR_ENABLE_PROFILING, CORECLR_PROFILER (our CLSID),
 * CORECLR_PROFILER_PATH (the agent .so) and the agent link's socket path and
 * session token; any such variables inherited from our own environment are
 * replaced. A reaper thread waits for the child and records its exit code in
 * the session, which stays readable afterwards. */
#ifndef JITSCOPE_LAUNCH_H
#define JITSCOPE_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>

/* Starts argv with the agent's startup environment; with no_children the
 * agent declines to start in any process whose parent is not this one. May be
 * called with the sessions lock held (the reaper takes it only once the app
 * has exited). */
int launch_app(char *const argv[], const char *agent_path, const char *socket_path,
               const char *token, int no_children, int session_id, pid_t *pid_out, char *err,
               size_t errsz);
/* hook is called by the reaper thread once the app's exit is recorded (in
 * its session too). Set it before launch_app. */
void launch_on_exit(void (*hook)(void));
/* 1 with *code set once the launched app has ended: its exit code, or 128 +
 * the signal that killed it; 0 while it runs (or none was launched). */
int launch_exit_code(int *code);
/* Ends a still-running child (SIGTERM, then SIGKILL after 3 s) and joins the reaper. */
void launch_stop(void);

#endif
