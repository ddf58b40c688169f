/* cpuprof.c -- the CPU sampler runs: their registry, their thread, the perf
 * events on the target's threads, and what the machine allows (see cpuprof.h). */
#include "cpuprof.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "clock.h"
#include "cpufold.h"
#include "proc.h"
#include "frames.h"
#include "sessions.h"
#include "utf.h"

#define CPUPROF_SCAN_MS 100u   /* /proc/PID/task is read this often */
#define CPUPROF_POLL_MS 50     /* the rings are read at least this often (and at half full) */
#define CPUPROF_DATA_PAGES 32u /* 128 KiB of ring per thread (samples carry a stack copy) */
#define CPUPROF_SMALL_PAGES 8u /* when the locked-memory limit refuses 32 (CPUPROF_SMALL_COPY) */
#define CPUPROF_MAX_FAILED 4096u
#define CPUPROF_MAX_IPS (CPUPROF_MAX_PENDING * 32u) /* frames of the waiting samples */

static pthread_mutex_t cpuprof_mutex = PTHREAD_MUTEX_INITIALIZER;
static cpuprof_run *cpuprof_runs[CPUPROF_MAX_RUNS];
static _Atomic uint32_t cpuprof_ids;

uint32_t cpuprof_next_run(void)
{
    uint32_t id;

    do
        id = atomic_fetch_add(&cpuprof_ids, 1) + 1;
    while (id == 0);
    return id;
}

static void cpuprof_wake(cpuprof_run *r)
{
    uint64_t one = 1;
    ssize_t n = write(r->wake_fd, &one, sizeof(one)); /* full (EAGAIN): already woken */
    (void)n;
}

/* session.c's hooks: called with the sessions lock held; never block. */
static void cpuprof_signal(int session_id, uint32_t run, int stop)
{
    int i;

    pthread_mutex_lock(&cpuprof_mutex);
    for (i = 0; i < CPUPROF_MAX_RUNS; i++) {
        cpuprof_run *r = cpuprof_runs[i];
        if (r && r->session_id == session_id && r->run == run) {
            atomic_store(stop ? &r->stop : &r->nudge, 1);
            cpuprof_wake(r);
        }
    }
    pthread_mutex_unlock(&cpuprof_mutex);
}

static void cpuprof_hook_stop(int session_id, uint32_t run) { cpuprof_signal(session_id, run, 1); }
static void cpuprof_hook_thread(int session_id, uint32_t run)
{
    cpuprof_signal(session_id, run, 0);
}

/* ---- threads of the target ---------------------------------------------------- */

static void cpuprof_thread_name(cpuprof_run *r, uint32_t tid, char *out, size_t size)
{
    char path[64], raw[32];
    ssize_t n;
    int fd, cut = 0;

    out[0] = '\0';
    snprintf(path, sizeof(path), "/proc/%d/task/%u/comm", (int)r->pid, tid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return;
    n = read(fd, raw, sizeof(raw) - 1);
    close(fd);
    if (n <= 0)
        return;
    if (raw[n - 1] == '\n')
        n--;
    out[utf8_sanitize(raw, (size_t)n, out, size - 1, &cut)] = '\0';
}

/* The run's entry for a thread (its OS name read now), made on first sight. */
static int cpuprof_thread_entry(cpuprof_run *r, uint32_t tid)
{
    cpuprof_thread *grown, *t;

    if (idmap_get(&r->thread_by_tid, tid) != IDMAP_MISSING)
        return 0;
    if (!(grown = realloc(r->threads, (r->thread_count + 1) * sizeof(*grown))))
        return -1;
    r->threads = grown;
    if (idmap_put(&r->thread_by_tid, tid, (uint32_t)r->thread_count) != 0)
        return -1;
    t = &r->threads[r->thread_count++];
    memset(t, 0, sizeof(*t));
    t->tid = tid;
    t->index = UINT32_MAX;
    cpuprof_thread_name(r, tid, t->name, sizeof(t->name));
    return 0;
}

static void cpuprof_failed(cpuprof_run *r, uint32_t tid)
{
    r->counts.threads_failed++;
    if (r->failed_tids.count < CPUPROF_MAX_FAILED)
        (void)idmap_put(&r->failed_tids, tid, 1);
}

/* Follows one thread: its event, ring and entry. */
static void cpuprof_follow(cpuprof_run *r, uint32_t tid)
{
    perfring ring, *grown;
    perfring_config c = r->config;
    struct epoll_event ev;

    if (r->ring_count >= CPUPROF_MAX_THREADS) {
        cpuprof_failed(r, tid);
        return;
    }
    if (perfring_open(&ring, (pid_t)tid, &c) != 0) {
        if (errno == ESRCH)
            return;                         /* ended meanwhile */
        c.data_pages = CPUPROF_SMALL_PAGES; /* the locked-memory limit (mmap: EPERM) */
        c.stack_copy = CPUPROF_SMALL_COPY;
        if ((errno != EPERM && errno != ENOMEM) || perfring_open(&ring, (pid_t)tid, &c) != 0) {
            if (errno != ESRCH)
                cpuprof_failed(r, tid);
            return;
        }
    }
    if (!(grown = realloc(r->rings, (r->ring_count + 1) * sizeof(*grown))) ||
        cpuprof_thread_entry(r, tid) != 0) {
        if (grown)
            r->rings = grown;
        perfring_close(&ring);
        cpuprof_failed(r, tid);
        return;
    }
    r->rings = grown;
    ev.events = EPOLLIN;
    ev.data.u64 = tid;
    if (epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, ring.fd, &ev) != 0 ||
        idmap_put(&r->ring_by_tid, tid, (uint32_t)r->ring_count + 1) != 0) {
        perfring_close(&ring);
        cpuprof_failed(r, tid);
        return;
    }
    r->rings[r->ring_count++] = ring;
    r->counts.threads_seen++;
}

/* Every thread in /proc/PID/task not followed yet. */
static void cpuprof_scan(cpuprof_run *r)
{
    char path[64];
    struct dirent *de;
    DIR *d;

    snprintf(path, sizeof(path), "/proc/%d/task", (int)r->pid);
    if (!(d = opendir(path)))
        return; /* the process is gone: its session ends, and this run with it */
    while ((de = readdir(d)) != NULL) {
        char *end;
        unsigned long tid = strtoul(de->d_name, &end, 10);

        if (*end || tid == 0 || tid > UINT32_MAX)
            continue;
        uint32_t ring = idmap_get(&r->ring_by_tid, tid);
        if ((ring == IDMAP_MISSING || ring == 0) &&
            idmap_get(&r->failed_tids, tid) == IDMAP_MISSING)
            cpuprof_follow(r, (uint32_t)tid);
    }
    closedir(d);
}

/* ---- samples -------------------------------------------------------------------- */

static void cpuprof_on_record(void *ctx, const perfring_record *rec)
{
    cpuprof_run *r = ctx;
    cpuprof_sample *e;

    if (rec->kind == PERFRING_LOST) {
        r->counts.lost += rec->lost;
        return;
    }
    r->counts.samples++;
    if (r->sample_count >= CPUPROF_MAX_PENDING ||
        r->ip_count + rec->nr + 1 + CPUPROF_CANDIDATES > CPUPROF_MAX_IPS) {
        r->dropped++; /* the batch behind: counted, never hidden */
        return;
    }
    e = &r->samples[r->sample_count++];
    memset(e, 0, sizeof(*e));
    e->wall_ns = (int64_t)rec->time_ns + r->wall_offset_ns;
    e->seen_ms = cpuprof_run_ms(r);
    e->tid = rec->tid;
    e->first = (uint32_t)r->ip_count;
    e->nr = (uint16_t)rec->nr;
    e->kernel = (uint8_t)rec->kernel;
    e->truncated = rec->nr >= PERFRING_MAX_STACK;
    memcpy(&r->ips[r->ip_count], rec->ips, rec->nr * sizeof(uint64_t));
    frames_recover(r, rec, e, 1 + CPUPROF_CANDIDATES);
    r->ip_count += e->nr + e->extra;
}

/* Ring i's thread ended: what it holds is read, then it is closed. */
static void cpuprof_unfollow(cpuprof_run *r, size_t i)
{
    perfring *ring = &r->rings[i];

    (void)perfring_drain(ring, cpuprof_on_record, r);
    epoll_ctl(r->epoll_fd, EPOLL_CTL_DEL, ring->fd, NULL);
    idmap_put(&r->ring_by_tid, ring->tid, 0); /* 0: not followed (idmap keeps the key) */
    perfring_close(ring);
    r->rings[i] = r->rings[--r->ring_count];
    if (i < r->ring_count)
        idmap_put(&r->ring_by_tid, r->rings[i].tid, (uint32_t)i + 1);
}

static void cpuprof_drain_all(cpuprof_run *r)
{
    size_t i;

    for (i = 0; i < r->ring_count; i++)
        (void)perfring_drain(&r->rings[i], cpuprof_on_record, r);
    for (i = r->ring_count; i-- > 0;)
        if (r->rings[i].hung_up)
            cpuprof_unfollow(r, i);
}

/* ---- the run's thread ------------------------------------------------------------ */

static void cpuprof_run_free(cpuprof_run *r)
{
    size_t i;

    for (i = 0; i < r->ring_count; i++)
        perfring_close(&r->rings[i]);
    free(r->rings);
    idmap_free(&r->ring_by_tid);
    idmap_free(&r->failed_tids);
    free(r->threads);
    idmap_free(&r->thread_by_tid);
    free(r->samples);
    free(r->ips);
    cpusym_free(&r->sym);
    if (r->epoll_fd >= 0)
        close(r->epoll_fd);
    if (r->wake_fd >= 0)
        close(r->wake_fd);
    free(r);
}

/* Stops the run's profile (the duration is over, or the sampler cannot go
 * on: why), if it still is the session's; the stop hook then ends the run. */
static void cpuprof_stop_profile(cpuprof_run *r, const char *why)
{
    session *s;

    sessions_lock();
    s = sessions_get(r->session_id);
    if (s && s->profile.mode == PROFILE_MODE_CPU && s->profile.cpu.run == r->run) {
        if (why)
            snprintf(s->profile.cpu.error, sizeof(s->profile.cpu.error), "%s", why);
        session_profile_stop(s, (int64_t)clock_real_ns());
    }
    sessions_unlock();
    atomic_store(&r->stop, 1);
}

static void *cpuprof_main(void *arg)
{
    cpuprof_run *r = arg;
    struct epoll_event evs[64];
    uint64_t next_scan = 0, next_batch = CPUPROF_BATCH_MS;
    int sym_ok;

    pthread_setname_np(pthread_self(), "jitscope-cpu");
    sym_ok = cpusym_init(&r->sym, r->pid) == 0;
    if (!sym_ok) {
        char why[128];
        snprintf(why, sizeof(why), "the CPU sampler could not read the process's maps: %s",
                 strerror(errno));
        cpuprof_stop_profile(r, why);
    }
    while (sym_ok && !atomic_load(&r->stop)) {
        uint64_t now = cpuprof_run_ms(r);
        int n, i;

        if (r->duration_ms && now >= r->duration_ms) {
            cpuprof_stop_profile(r, NULL);
            break;
        }

        if (atomic_exchange(&r->nudge, 0) || now >= next_scan) {
            cpuprof_scan(r);
            next_scan = now + CPUPROF_SCAN_MS;
        }
        n = epoll_wait(r->epoll_fd, evs, 64, CPUPROF_POLL_MS);
        for (i = 0; i < n; i++) {
            if (evs[i].data.u64 == 0) { /* the wake-up */
                uint64_t v;
                ssize_t got = read(r->wake_fd, &v, sizeof(v));
                (void)got;
            } else if (evs[i].events & (EPOLLHUP | EPOLLERR)) {
                uint32_t k = idmap_get(&r->ring_by_tid, evs[i].data.u64);
                if (k != IDMAP_MISSING && k != 0)
                    r->rings[k - 1].hung_up = 1;
            }
        }
        cpuprof_drain_all(r);
        if (cpuprof_run_ms(r) >= next_batch) {
            if (cpufold_batch(r, 0) != 0)
                break; /* the profile is not ours any more */
            next_batch = cpuprof_run_ms(r) + CPUPROF_BATCH_MS;
        }
    }
    if (sym_ok) {
        cpuprof_drain_all(r);
        (void)cpufold_batch(r, 1);
    }
    /* what the run holds goes now; the rest when it is joined */
    for (size_t i = 0; i < r->ring_count; i++)
        perfring_close(&r->rings[i]);
    r->ring_count = 0;
    cpusym_free(&r->sym);
    free(r->samples);
    free(r->ips);
    r->samples = NULL;
    r->ips = NULL;
    r->sample_count = r->ip_count = 0;
    atomic_store(&r->done, 1);
    return NULL;
}

/* Joins and frees the runs that ended. Caller holds cpuprof_mutex. */
static void cpuprof_reap(void)
{
    int i;

    for (i = 0; i < CPUPROF_MAX_RUNS; i++) {
        cpuprof_run *r = cpuprof_runs[i];
        if (r && atomic_load(&r->done)) {
            pthread_join(r->thread, NULL);
            cpuprof_run_free(r);
            cpuprof_runs[i] = NULL;
        }
    }
}

int cpuprof_start(int session_id, pid_t pid, uint32_t hz, int kernel, uint32_t run,
                  uint32_t duration_ms, char *why, size_t why_size)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 0};
    sigset_t all, old;
    cpuprof_run *r;
    int slot = -1, i, rc;

    session_set_cpu_hooks(cpuprof_hook_stop, cpuprof_hook_thread);
    if (!(r = calloc(1, sizeof(*r)))) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    r->wake_fd = r->epoll_fd = -1;
    r->session_id = session_id;
    r->run = run;
    r->pid = pid;
    r->hz = hz;
    r->duration_ms = duration_ms;
    r->config = (perfring_config){1000000000u / hz, !kernel, CPUPROF_DATA_PAGES,
                                  CPUPROF_STACK_COPY};
    r->counts.period_ns = r->config.period_ns;
    r->counts.kernel_excluded = !kernel;
    r->start_mono_ns = clock_mono_ns();
    r->wall_offset_ns = (int64_t)clock_real_ns() - (int64_t)r->start_mono_ns;
    r->samples = malloc(CPUPROF_MAX_PENDING * sizeof(*r->samples));
    r->ips = malloc(CPUPROF_MAX_IPS * sizeof(*r->ips));
    r->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    r->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (!r->samples || !r->ips || r->wake_fd < 0 || r->epoll_fd < 0 ||
        epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, r->wake_fd, &ev) != 0) {
        snprintf(why, why_size, "could not set up the sampler: %s", strerror(errno));
        cpuprof_run_free(r);
        return -1;
    }
    pthread_mutex_lock(&cpuprof_mutex);
    cpuprof_reap();
    for (i = 0; i < CPUPROF_MAX_RUNS && slot < 0; i++)
        if (!cpuprof_runs[i])
            slot = i;
    if (slot < 0) {
        pthread_mutex_unlock(&cpuprof_mutex);
        snprintf(why, why_size, "%d CPU profiles run already (the most at once)", CPUPROF_MAX_RUNS);
        cpuprof_run_free(r);
        return -1;
    }
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* signals are the main thread's */
    rc = pthread_create(&r->thread, NULL, cpuprof_main, r);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_mutex_unlock(&cpuprof_mutex);
        snprintf(why, why_size, "could not start the sampler thread: %s", strerror(rc));
        cpuprof_run_free(r);
        return -1;
    }
    cpuprof_runs[slot] = r;
    pthread_mutex_unlock(&cpuprof_mutex);
    return 0;
}

void cpuprof_shutdown(void)
{
    cpuprof_run *runs[CPUPROF_MAX_RUNS];
    int i, n = 0;

    pthread_mutex_lock(&cpuprof_mutex);
    for (i = 0; i < CPUPROF_MAX_RUNS; i++) {
        if (cpuprof_runs[i]) {
            atomic_store(&cpuprof_runs[i]->stop, 1);
            cpuprof_wake(cpuprof_runs[i]);
            runs[n++] = cpuprof_runs[i];
            cpuprof_runs[i] = NULL;
        }
    }
    pthread_mutex_unlock(&cpuprof_mutex);
    for (i = 0; i < n; i++) { /* each ends within one batch (it may wait for the lock) */
        pthread_join(runs[i]->thread, NULL);
        cpuprof_run_free(runs[i]);
    }
}

/* ---- what the machine allows -------------------------------------------------------- */

static int cpuprof_read_int(const char *path, int *out)
{
    char buf[32], *end;
    long v;
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return -1;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    errno = 0;
    v = strtol(buf, &end, 10);
    if (errno || end == buf || v < INT32_MIN || v > INT32_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

/* The server's effective capabilities, from /proc/self/status. */
static uint64_t cpuprof_caps(void)
{
    char buf[4096], *p;
    size_t n;

    if (proc_read(getpid(), "status", buf, sizeof(buf) - 1, &n) != 0 || n == 0)
        return 0;
    buf[n] = '\0';
    p = strstr(buf, "\nCapEff:");
    return p ? strtoull(p + 8, NULL, 16) : 0;
}

void cpuprof_probe(pid_t pid, cpuprof_probe_result *o)
{
    uint64_t caps = cpuprof_caps();
    char path[64];
    int err, fd, readable = 1;

    memset(o, 0, sizeof(*o));
    if (cpuprof_read_int("/proc/sys/kernel/perf_event_paranoid", &o->paranoid) != 0)
        o->paranoid = -100;
    o->cap_perfmon = (caps >> 38) & 1;
    o->cap_sys_admin = (caps >> 21) & 1;
    o->cap_sys_ptrace = (caps >> 19) & 1;
    if (perfring_try(pid, 0) == 0) {
        o->available = o->kernel = 1;
        return;
    }
    err = errno;
    if (err == EACCES || err == EPERM) {
        if (perfring_try(pid, 1) == 0) {
            o->available = 1; /* user mode only (perf_event_paranoid 2) */
            return;
        }
        err = errno;
    }
    if (pid > 0) { /* may the server read the process at all (ptrace read access)? */
        snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
        if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0)
            close(fd);
        else
            readable = errno != EACCES && errno != EPERM;
    }
    switch (err) {
    case ESRCH: snprintf(o->reason, sizeof(o->reason), "process %d is gone", (int)pid); break;
    case ENOSYS:
        snprintf(o->reason, sizeof(o->reason), "this kernel has no perf events (perf_event_open)");
        break;
    case ENOENT:
    case ENODEV:
    case EOPNOTSUPP:
        snprintf(o->reason, sizeof(o->reason),
                 "this kernel cannot sample the CPU clock (perf_event_open: %s)", strerror(err));
        break;
    case EACCES:
    case EPERM:
        if (!readable)
            snprintf(o->reason, sizeof(o->reason),
                     "jitscope may not read process %d: it needs ptrace read access (the same "
                     "user, and no capability the process has and jitscope lacks; or "
                     "CAP_SYS_PTRACE)",
                     (int)pid);
        else if (o->paranoid > 2 && !o->cap_perfmon && !o->cap_sys_admin)
            snprintf(o->reason, sizeof(o->reason),
                     "kernel.perf_event_paranoid is %d: allow user-space sampling of your own "
                     "processes with `sysctl kernel.perf_event_paranoid=2`, or give jitscope "
                     "CAP_PERFMON (`setcap cap_perfmon+ep jitscope`)",
                     o->paranoid);
        else
            snprintf(o->reason, sizeof(o->reason),
                     "perf_event_open is not allowed here (%s): a seccomp filter (containers "
                     "block it by default: --cap-add PERFMON or a seccomp profile that allows "
                     "it) or a security module",
                     strerror(err));
        break;
    default:
        snprintf(o->reason, sizeof(o->reason), "perf_event_open failed: %s", strerror(err));
        break;
    }
}
