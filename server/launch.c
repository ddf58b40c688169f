/* launch.c -- spawning the observed app and reaping it (see launch.h). */
#include "launch.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "link.h"
#include "sessions.h"
#include "wire.h"

extern char **environ;

#define LAUNCH_BACKLOG_MS 10000 /* at most, for the link thread to take the backlog */

static pid_t launch_pid = -1;
static int launch_session_id;
static pthread_t launch_reaper;
static int launch_reaper_started;
static _Atomic int launch_done;
static int launch_code; /* the app's exit code, 128 + signal; read once launch_done */
static void (*launch_exit_hook)(void);

static void *launch_reap(void *arg)
{
    int status = 0, code, sig;
    pid_t r;
    struct timespec ts;
    session *s;

    (void)arg;
    do {
        r = waitpid(launch_pid, &status, 0);
    } while (r < 0 && errno == EINTR);
    sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + sig;
    clock_gettime(CLOCK_REALTIME, &ts);
    /* an agent that connected before the app ended may still wait in the
     * backlog: bound first, so the session ends once its records are in
     * (session_exit_code waits for a bound link to close), not before them */
    link_take_backlog(LAUNCH_BACKLOG_MS);
    sessions_lock();
    s = sessions_get(launch_session_id);
    if (s)
        session_exit_code(s, code, sig, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
    sessions_unlock();
    if (sig)
        fprintf(stderr, "jitscope: app (pid %d) killed by signal %d (%s), exit code %d\n",
                (int)launch_pid, sig,
                session_signal_name(sig) ? session_signal_name(sig) : "unnamed", code);
    else
        fprintf(stderr, "jitscope: app (pid %d) exited with code %d\n", (int)launch_pid, code);
    launch_code = code;
    launch_done = 1; /* after the code: a reader that sees done sees the code */
    if (launch_exit_hook)
        launch_exit_hook();
    return NULL;
}

/* The variables launch_app sets itself; the user's other JITSCOPE_* tuning
 * (JITSCOPE_RING_BYTES, JITSCOPE_GIVE_UP_MS) goes through. */
static int launch_is_ours(const char *entry)
{
    static const char *const ours[] = {"CORECLR_", "DOTNET_PROFILER", WIRE_ENV_SOCKET "=",
                                       WIRE_ENV_TOKEN "=", WIRE_ENV_ONLY_CHILD_OF "="};

    for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
        if (strncmp(entry, ours[i], strlen(ours[i])) == 0)
            return 1;
    return 0;
}

int launch_app(char *const argv[], const char *agent_path, const char *socket_path,
               const char *token, int no_children, int session_id, pid_t *pid_out, char *err,
               size_t errsz)
{
    enum { OURS = 7 };
    char vars[OURS][4200];
    char **envp = NULL;
    size_t n = 0, k = 0, i;
    int rc;

    while (environ[n])
        n++;
    envp = calloc(n + OURS + 1, sizeof(char *));
    if (!envp) {
        snprintf(err, errsz, "out of memory");
        return -1;
    }
    for (i = 0; i < n; i++)
        if (!launch_is_ours(environ[i]))
            envp[k++] = environ[i];
    snprintf(vars[0], sizeof(vars[0]), "CORECLR_ENABLE_PROFILING=1");
    snprintf(vars[1], sizeof(vars[1]), "CORECLR_PROFILER=%s", WIRE_CLSID_STRING);
    snprintf(vars[2], sizeof(vars[2]), "CORECLR_PROFILER_PATH=%s", agent_path);
    snprintf(vars[3], sizeof(vars[3]), "CORECLR_PROFILER_PATH_64=%s", agent_path);
    snprintf(vars[4], sizeof(vars[4]), "%s=%s", WIRE_ENV_SOCKET, socket_path);
    snprintf(vars[5], sizeof(vars[5]), "%s=%s", WIRE_ENV_TOKEN, token);
    /* the launched app's parent is this process: its children's parent is not */
    snprintf(vars[6], sizeof(vars[6]), "%s=%d", WIRE_ENV_ONLY_CHILD_OF, (int)getpid());
    for (i = 0; i < OURS; i++)
        if (i < 6 || no_children)
            envp[k++] = vars[i];
    envp[k] = NULL;
    /* the server blocks SIGINT/SIGTERM/SIGPIPE for sigwait; the app must not inherit that */
    posix_spawnattr_t attr;
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    rc = posix_spawnp(&launch_pid, argv[0], NULL, &attr, argv, envp);
    posix_spawnattr_destroy(&attr);
    free(envp);
    if (rc != 0) {
        snprintf(err, errsz, "cannot start %s: %s", argv[0], strerror(rc));
        launch_pid = -1;
        return -1;
    }
    launch_session_id = session_id;
    if (pthread_create(&launch_reaper, NULL, launch_reap, NULL) != 0) {
        snprintf(err, errsz, "pthread_create: reaper");
        kill(launch_pid, SIGKILL);
        waitpid(launch_pid, NULL, 0);
        return -1;
    }
    launch_reaper_started = 1;
    *pid_out = launch_pid;
    return 0;
}

void launch_on_exit(void (*hook)(void)) { launch_exit_hook = hook; }

int launch_exit_code(int *code)
{
    if (!launch_done)
        return 0;
    *code = launch_code;
    return 1;
}

void launch_stop(void)
{
    int waited;

    if (!launch_reaper_started)
        return;
    if (!launch_done) {
        kill(launch_pid, SIGTERM);
        for (waited = 0; waited < 300 && !launch_done; waited++)
            usleep(10000);
        if (!launch_done)
            kill(launch_pid, SIGKILL);
    }
    pthread_join(launch_reaper, NULL);
    launch_reaper_started = 0;
}
