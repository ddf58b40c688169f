/* buildwatch.c -- build servers outside a run that did its work (see
 * buildwatch.h). */
#include "buildwatch.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "procname.h"
#include "sessions.h"

#define BUILDWATCH_NODEMODE_SERVER 8 /* MSBuild's server node */

/* ---- which processes are build servers ------------------------------------ */

/* The number after "nodemode:" in an MSBuild argument (/nodemode:1,
 * -nodemode:8, --nodeMode:1), or -1 when it is not one. */
static int buildwatch_nodemode(const char *arg, size_t n)
{
    size_t i = 0;
    int mode = 0;

    while (i < n && i < 2 && (arg[i] == '/' || arg[i] == '-'))
        i++;
    if (i == 0 || n - i < 10 || strncasecmp(arg + i, "nodemode:", 9) != 0)
        return -1;
    for (i += 9; i < n && arg[i] >= '0' && arg[i] <= '9' && mode < 1000; i++)
        mode = mode * 10 + (arg[i] - '0');
    return i == n ? mode : -1;
}

int buildwatch_classify(const char *cmdline, size_t length, char *name, size_t namesz)
{
    char program[PROCNAME_MAX];
    size_t at = 0;
    int mode = -1, server_arg = 0;

    if (procname_of_args(cmdline, length, '\0', program, sizeof(program)) != PROCNAME_PROGRAM)
        return 0;
    while (at < length) { /* the arguments: their /nodemode, or a "server" word */
        const char *arg = cmdline + at;
        const char *end = memchr(arg, '\0', length - at);
        size_t n = end ? (size_t)(end - arg) : length - at;
        if (mode < 0)
            mode = buildwatch_nodemode(arg, n);
        server_arg |= n == 6 && memcmp(arg, "server", 6) == 0;
        at += n + 1;
    }
    if (strcmp(program, "MSBuild") == 0 && mode >= 0)
        snprintf(name, namesz, "%s",
                 mode == BUILDWATCH_NODEMODE_SERVER ? "MSBuild server" : "MSBuild node");
    else if (strcmp(program, "VBCSCompiler") == 0)
        snprintf(name, namesz, "VBCSCompiler");
    else if (strcmp(program, "rzc") == 0 && server_arg)
        snprintf(name, namesz, "Razor server");
    else
        return 0;
    return 1;
}

/* ---- the watch -------------------------------------------------------------- */

typedef struct buildwatch_proc {
    pid_t pid;
    uint64_t start_time; /* ticks after boot: with the pid, this process and no other */
    uint64_t cpu_base;   /* its CPU ticks when the run began (0: it began since) */
    uint64_t cpu_now;
    int started_before, in_run, reported, seen;
    char name[40];
} buildwatch_proc;

static struct {
    int watching;          /* buildwatch_prepare decided to watch this run */
    int root_id;           /* the run's session */
    pid_t launched;        /* the run's launched process */
    uint64_t launch_start; /* its start time, ticks after boot */
    long ticks_per_s;
    buildwatch_proc procs[BUILDWATCH_MAX_PROCS];
    size_t count;
    pthread_t thread;
    int thread_started, stopping;
    pthread_mutex_t mutex;
    pthread_cond_t wake;
} watch = {.mutex = PTHREAD_MUTEX_INITIALIZER};

/* Whether the environment (which the app inherits) turns every reuse off. */
static int buildwatch_reuse_off(void)
{
    const char *nodes = getenv("MSBUILDDISABLENODEREUSE"),
               *compiler = getenv("UseSharedCompilation"),
               *server = getenv("DOTNET_CLI_USE_MSBUILD_SERVER");

    return nodes && strcmp(nodes, "1") == 0 && compiler && strcasecmp(compiler, "false") == 0 &&
           server && (strcmp(server, "0") == 0 || strcasecmp(server, "false") == 0);
}

/* Start time (field 22), CPU ticks (user + system, fields 14 and 15) and
 * parent of pid. 0, or -1 when it is gone. */
static int buildwatch_stat(pid_t pid, uint64_t *start, uint64_t *cpu, pid_t *parent)
{
    char text[1024], state;
    uint64_t user, sys;
    size_t n;

    if (proc_read(pid, "stat", text, sizeof(text), &n) != 0 || n == 0 ||
        proc_stat_number(text, n, 22, start) != 0 || proc_stat_number(text, n, 14, &user) != 0 ||
        proc_stat_number(text, n, 15, &sys) != 0 || proc_parse_stat(text, n, &state, parent) != 0)
        return -1;
    *cpu = user + sys;
    return 0;
}

/* Whether a build server that began during the run was started by one from
 * before it (a warm MSBuild server starting the compiler server or a node):
 * then it works for the build outside the run too. Any other one is the
 * run's (its launched process's descendant; or orphaned, or of a build of
 * somebody else's: not this run's to report). */
static int buildwatch_started_outside(pid_t parent)
{
    size_t i;

    for (i = 0; i < watch.count; i++)
        if (watch.procs[i].pid == parent && watch.procs[i].started_before)
            return 1;
    return 0;
}

/* One look at /proc: this user's build servers, added or updated. */
static void buildwatch_scan(int before_launch)
{
    struct dirent *e;
    size_t i;
    DIR *d = opendir("/proc");

    if (!d)
        return;
    for (i = 0; i < watch.count; i++)
        watch.procs[i].seen = 0;
    while ((e = readdir(d))) {
        char *end, cmdline[4096], name[40], path[64];
        uint64_t start, cpu;
        buildwatch_proc *p = NULL;
        struct stat st;
        pid_t parent;
        long pid;
        size_t n;

        errno = 0;
        pid = strtol(e->d_name, &end, 10);
        if (errno || *end || pid <= 1 || pid > 4194304 || pid == (long)getpid())
            continue;
        snprintf(path, sizeof(path), "/proc/%ld", pid);
        if (stat(path, &st) != 0 || st.st_uid != getuid() ||
            buildwatch_stat((pid_t)pid, &start, &cpu, &parent) != 0)
            continue;
        for (i = 0; i < watch.count && !p; i++)
            if (watch.procs[i].pid == (pid_t)pid && watch.procs[i].start_time == start)
                p = &watch.procs[i];
        if (!p) {
            if (watch.count == BUILDWATCH_MAX_PROCS ||
                proc_read((pid_t)pid, "cmdline", cmdline, sizeof(cmdline), &n) != 0 ||
                !buildwatch_classify(cmdline, n, name, sizeof(name)))
                continue;
            p = &watch.procs[watch.count++];
            memset(p, 0, sizeof(*p));
            p->pid = (pid_t)pid;
            p->start_time = start;
            memcpy(p->name, name, sizeof(p->name));
            p->started_before = before_launch || start < watch.launch_start;
            /* one that began since: all its CPU time is the run's */
            p->cpu_base = p->started_before ? cpu : 0;
            p->in_run = !p->started_before && !buildwatch_started_outside(parent);
        }
        p->cpu_now = cpu;
        p->seen = 1;
    }
    closedir(d);
}

static void buildwatch_report(const buildwatch_proc *p, uint64_t cpu_ms, const char *command)
{
    fprintf(stderr,
            "jitscope: the build went to %s pid %d, which this run did not start (%s; %.1f s "
            "of CPU during the run): its work is not in this run's sessions. To see it: "
            "jitscope attach %d (or Attach on the dashboard), or run with node reuse off: "
            "MSBUILDDISABLENODEREUSE=1 UseSharedCompilation=false "
            "DOTNET_CLI_USE_MSBUILD_SERVER=0 jitscope run -- %.200s\n",
            p->name, (int)p->pid,
            p->started_before ? "it was running before, without the agent"
                              : "started meanwhile by a process outside the run",
            (double)cpu_ms / 1000, (int)p->pid, command);
}

/* CPU time p used since the run began, in ms. */
static uint64_t buildwatch_used_ms(const buildwatch_proc *p)
{
    uint64_t used = p->cpu_now > p->cpu_base ? p->cpu_now - p->cpu_base : 0;
    return used * 1000 / (uint64_t)watch.ticks_per_s;
}

/* One round: look again, note what is new in the run's session and update
 * it, then report the new ones (off the lock). 1 when the run's launched
 * process has ended (this was the last round). */
static int buildwatch_round(void)
{
    char command[256] = "";
    size_t i, k, fresh[BUILDWATCH_MAX_PROCS], fresh_count = 0;
    int ended, changed = 0;
    session *root;

    buildwatch_scan(0);
    sessions_lock();
    root = sessions_peek(watch.root_id);
    ended = !root || root->has_exit_code || root->state == SESSION_EXITED;
    if (root && root->command_line)
        snprintf(command, sizeof(command), "%s", root->command_line);
    for (i = 0; root && i < watch.count; i++) {
        buildwatch_proc *p = &watch.procs[i];
        uint64_t used_ms = buildwatch_used_ms(p);
        uint32_t cpu_ms = used_ms > UINT32_MAX ? UINT32_MAX : (uint32_t)used_ms;
        session_outsider *o = NULL;

        if (p->in_run || !p->seen)
            continue;
        for (k = 0; k < root->outside_count; k++)
            if (root->outside[k].pid == p->pid)
                o = &root->outside[k];
        if (!o) {
            session *own = sessions_by_pid(p->pid);
            if (p->reported || used_ms < BUILDWATCH_CPU_MS ||
                root->outside_count == SESSION_OUTSIDE_MAX ||
                (own && (own->root_id == watch.root_id || own->mode == SESSION_MODE_ATTACH)))
                continue; /* idle, full, or observed here (a child of the run, or attached) */
            o = &root->outside[root->outside_count++];
            memset(o, 0, sizeof(*o));
            o->pid = p->pid;
            o->started_before = p->started_before;
            snprintf(o->name, sizeof(o->name), "%s", p->name);
            p->reported = 1;
            fresh[fresh_count++] = i;
        }
        changed |= o->cpu_ms != cpu_ms;
        o->cpu_ms = cpu_ms;
    }
    sessions_unlock();
    for (k = 0; k < fresh_count; k++) {
        const buildwatch_proc *p = &watch.procs[fresh[k]];
        buildwatch_report(p, buildwatch_used_ms(p), command[0] ? command : "dotnet build");
    }
    if (changed)
        sessions_notify(watch.root_id);
    return ended;
}

static void *buildwatch_main(void *arg)
{
    struct timespec next;
    int stop = 0;

    (void)arg;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!stop) {
        next.tv_nsec += BUILDWATCH_TICK_MS * 1000000L;
        if (next.tv_nsec >= 1000000000L) {
            next.tv_sec++;
            next.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&watch.mutex);
        while (!watch.stopping &&
               pthread_cond_timedwait(&watch.wake, &watch.mutex, &next) != ETIMEDOUT)
            ;
        stop = watch.stopping;
        pthread_mutex_unlock(&watch.mutex);
        if (buildwatch_round()) /* at the stop too: the last look */
            break;
    }
    return NULL;
}

void buildwatch_prepare(char *const argv[])
{
    char program[PROCNAME_MAX];
    size_t argc = 0;

    while (argv[argc])
        argc++;
    watch.watching = procname_of_argv((const char *const *)argv, argc, program, sizeof(program)) ==
                         PROCNAME_SDK_COMMAND &&
                     !buildwatch_reuse_off();
    if (!watch.watching)
        return;
    watch.ticks_per_s = sysconf(_SC_CLK_TCK);
    if (watch.ticks_per_s <= 0)
        watch.ticks_per_s = 100;
    buildwatch_scan(1);
}

int buildwatch_start(int root_id, pid_t launched)
{
    pthread_condattr_t attr;
    uint64_t cpu;
    pid_t parent;

    if (!watch.watching)
        return 0;
    watch.root_id = root_id;
    watch.launched = launched;
    if (buildwatch_stat(launched, &watch.launch_start, &cpu, &parent) != 0)
        watch.launch_start = UINT64_MAX; /* gone already: whatever runs began before */
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&watch.wake, &attr);
    pthread_condattr_destroy(&attr);
    if (pthread_create(&watch.thread, NULL, buildwatch_main, NULL) != 0) {
        pthread_cond_destroy(&watch.wake);
        fprintf(stderr, "jitscope: cannot watch for build servers outside the run\n");
        return -1;
    }
    watch.thread_started = 1;
    return 0;
}

void buildwatch_stop(void)
{
    if (!watch.thread_started)
        return;
    pthread_mutex_lock(&watch.mutex);
    watch.stopping = 1;
    pthread_cond_signal(&watch.wake);
    pthread_mutex_unlock(&watch.mutex);
    pthread_join(watch.thread, NULL);
    pthread_cond_destroy(&watch.wake);
    watch.thread_started = 0;
}
