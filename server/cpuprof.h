/* cpuprof.h -- CPU profiles without stopping the runtime: the server samples
 * the target's threads with the kernel's perf events and names the frames
 * with the session's code map and the agent's code lookups.
 *
 * One sampler run per running CPU profile, on a thread of its own
 * ("jitscope-cpu"): it opens a perf event (software CPU clock, period
 * 1/hz of CPU time, user call chains by frame pointer) on every thread of the
 * target (perfring.h), follows threads as they come (/proc/PID/task every
 * 100 ms, and at once when the agent reports a thread) and go (the event
 * hangs up), reads the rings every 50 ms (sooner when one is half full), and
 * every 100 ms names a batch of
 * samples (cpusym.h) and folds it into the session's profile (cpufold.c)
 * under the sessions lock, which is the only lock it takes and never across
 * I/O. The runtime is never suspended and the agent does nothing but answer
 * code lookups on its own thread.
 *
 * A run ends when its profile stops for any reason (POST /profile/stop, the
 * duration, detach, the process's exit, the link lost: session.c's stop hook),
 * when its session is gone, or at server shutdown; it closes every event, so
 * nothing of it stays in the target. Bounds per run: CPUPROF_MAX_THREADS
 * threads followed (each ring 32 KiB + 4 KiB, 8 KiB when the locked-memory
 * limit is tight), CPUPROF_MAX_PENDING samples waiting to be named. At most
 * CPUPROF_MAX_RUNS runs at once.
 *
 * Permissions (docs/API.md, "CPU profiles"): perf_event_open on another
 * process needs ptrace read access to it (the same uid and no capabilities it
 * lacks, or CAP_SYS_PTRACE) and, unless CAP_PERFMON (or CAP_SYS_ADMIN) is
 * held, kernel.perf_event_paranoid <= 2 (2: user mode only, so time in the
 * kernel is not sampled). cpuprof_probe says what is possible and why not.
 */
#ifndef JITSCOPE_CPUPROF_H
#define JITSCOPE_CPUPROF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CPUPROF_MAX_RUNS 8
#define CPUPROF_MAX_THREADS 1024u
#define CPUPROF_MAX_PENDING 65536u

/* What the machine allows for one process (pid 0: the server's own, as a
 * stand-in for any process of its user). */
typedef struct cpuprof_probe_result {
    int available; /* a CPU profile can be taken */
    int kernel;    /* kernel-mode time is sampled too (else user mode only) */
    int paranoid;  /* kernel.perf_event_paranoid, -100 when it cannot be read */
    int cap_perfmon, cap_sys_admin, cap_sys_ptrace; /* effective capabilities of the server */
    char reason[320]; /* when not available: why, and what would allow it */
} cpuprof_probe_result;

void cpuprof_probe(pid_t pid, cpuprof_probe_result *out);

/* A run id for a new profile (never 0). */
uint32_t cpuprof_next_run(void);
/* Starts the sampler of session_id's process pid at hz, for run (the profile
 * already says so: session_profile_start_cpu); kernel: sample kernel-mode
 * time too (the probe allowed it). With duration_ms the run stops the profile
 * itself once that much time has passed. 0, or -1 with why. */
int cpuprof_start(int session_id, pid_t pid, uint32_t hz, int kernel, uint32_t run,
                  uint32_t duration_ms, char *why, size_t why_size);
/* Server shutdown: every run ends and is joined. */
void cpuprof_shutdown(void);

#endif
