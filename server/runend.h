/* runend.h -- how `run --exit` ends its run's sessions once the launched app
 * has ended, before the server stops and storage writes its last round.
 *
 * A session still live when the server stops is read back as interrupted
 * ("the server recording this session stopped while it was live"), which a
 * clean run is not. The processes of a `dotnet test` end just before the
 * launched one (testhost, then vstest.console, then `dotnet test`), sooner
 * than the liveness sweep (sessions.h, every 500 ms) looks at them. So here:
 *   - every session of the run whose process has ended reads what its agent
 *     sent, up to its closed connection, and is EXITED at once (the launched
 *     process's own session ends by the reaper's word, as always);
 *   - a process of the run that outlives the app (an MSBuild node or the
 *     compiler server under node reuse) is detached: it runs on without the
 *     agent, and its session is DETACHED.
 * Each step waits at most RUNEND_DRAIN_MS; what is still not ended then is
 * said on stderr and left as it is. */
#ifndef JITSCOPE_RUNEND_H
#define JITSCOPE_RUNEND_H

#define RUNEND_DRAIN_MS 10000 /* longest wait for ended processes' last records */
#define RUNEND_DETACH_MS 5000 /* longest wait for the outliving processes' detach */

/* Takes and releases the sessions lock; run_id is the launched app's session. */
void runend_settle(int run_id);

#endif
