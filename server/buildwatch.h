/* buildwatch.h -- `jitscope run -- dotnet build`: build servers outside the
 * run that did part of its work.
 *
 * The SDK hands a build to MSBuild worker nodes, the MSBuild server and the
 * compiler server (VBCSCompiler; Razor's rzc server). With node reuse on (the
 * SDK's default) they outlive a build, and the next build connects to them
 * instead of starting its own: its work then runs in processes the run did not
 * start, without the agent, and the run shows only the CLI's few hundred
 * methods. The watcher tells the user so.
 *
 * It watches runs of an SDK command (`dotnet build`, `dotnet test`...; see
 * procname.h) unless the environment turns all three kinds of reuse off
 * (MSBUILDDISABLENODEREUSE=1, UseSharedCompilation=false,
 * DOTNET_CLI_USE_MSBUILD_SERVER=0: nothing can go outside then). Before the
 * app is launched it lists this user's build servers (by their arguments,
 * buildwatch_classify) with their CPU time; every BUILDWATCH_TICK_MS while the
 * launched process runs, and once more when it has ended, it lists them again.
 * A build server outside the run (started before it, or started since by
 * one that was, as a warm MSBuild server starts the compiler server; and
 * without a session of this run or an attach) that used BUILDWATCH_CPU_MS of
 * CPU or more since the run began did work meanwhile, which during an SDK
 * command is the build's:
 * it is reported once on stderr, with how to see it (attach to it, or run
 * with reuse off), and in the run's session (session.outside, the API's
 * `build_servers_outside`), its CPU time kept up to date until the run ends.
 * An idle build server costs no CPU, so it is never reported.
 */
#ifndef JITSCOPE_BUILDWATCH_H
#define JITSCOPE_BUILDWATCH_H

#include <stddef.h>
#include <sys/types.h>

#define BUILDWATCH_TICK_MS 500
#define BUILDWATCH_CPU_MS 50    /* CPU time that counts as work done (an idle one uses none) */
#define BUILDWATCH_MAX_PROCS 64 /* build servers followed at once */

/* Before launch_app: whether this run is watched (argv, the environment), and
 * the build servers running now with their CPU time. */
void buildwatch_prepare(char *const argv[]);
/* After launch_app: watches while the run's launched process lives (a thread
 * of its own). 0, or -1 when it cannot start (the run goes on unwatched). */
int buildwatch_start(int root_id, pid_t launched);
/* Ends the watch (before the sessions are freed). */
void buildwatch_stop(void);

/* Whether /proc/PID/cmdline (NUL-separated arguments) is a build server, and
 * which: "MSBuild node" (MSBuild with /nodemode:N), "MSBuild server"
 * (/nodemode:8), "VBCSCompiler", "Razor server" (rzc server) into name. 1 or
 * 0. Pure. */
int buildwatch_classify(const char *cmdline, size_t length, char *name, size_t namesz);

#endif
