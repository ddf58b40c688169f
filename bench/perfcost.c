/* perfcost.c -- what kernel CPU sampling costs the thread it samples: jitscope's
 * perf event (server/perfring.c, the same attributes and ring) against `perf
 * record -e cpu-clock -F 999 -g -t TID` on the same thread, without .NET.
 *
 * A worker thread recurses DEPTH frames deep (frame pointers kept, so the
 * kernel walks DEPTH + 2 user frames per sample) and counts units of work.
 * The main thread runs phases of MS ms: off, jitscope's event (read every
 * 50 ms, as the server's sampler thread does), off, perf record (started with
 * its events disabled, enabled through its control FIFO and measured only
 * after its "ack"), PAIRS times. Each profiled phase is compared with the
 * unprofiled one before it by units per ns of the worker's own CPU time
 * (/proc/self/task/TID/schedstat): the timer interrupt and the stack walk are
 * paid in that time; the readers' work and other jobs on the machine are not.
 * Prints the median cost of each and its quartiles, and jitscope's cost minus
 * perf's per round.
 *
 * Build: make build/bench/perfcost; run: build/bench/perfcost [PAIRS [MS [DEPTH]]]
 * (needs perf and the right to sample: root or perf_event_paranoid <= 2).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perfring.h"

#define PERFCOST_MAX_PAIRS 1000
#define PERFCOST_PERIOD_NS 1001001u /* 999 Hz of the thread's CPU time */

extern char **environ;

static _Atomic uint64_t perfcost_units;
static _Atomic int perfcost_tid;
static _Atomic int perfcost_depth;
static volatile uint64_t perfcost_sink;
static uint64_t perfcost_samples;

__attribute__((noinline)) static uint64_t perfcost_leaf(uint64_t x)
{
    for (int i = 0; i < 200; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

__attribute__((noinline)) static uint64_t perfcost_deep(int depth, uint64_t x)
{
    uint64_t r;

    if (depth == 0)
        return perfcost_leaf(x);
    r = perfcost_deep(depth - 1, x + 1);
    perfcost_sink = r; /* keeps the call from becoming a jump */
    return r + 1;
}

static void *perfcost_worker(void *arg)
{
    uint64_t x = 1;
    int depth = atomic_load(&perfcost_depth);

    (void)arg;
    atomic_store(&perfcost_tid, (int)syscall(SYS_gettid));
    for (;;) {
        x = perfcost_deep(depth, x);
        atomic_fetch_add_explicit(&perfcost_units, 1, memory_order_relaxed);
    }
    return NULL;
}

static uint64_t perfcost_thread_ns(int tid)
{
    char path[64], buf[128];
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return 0;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return strtoull(buf, NULL, 10);
}

static void perfcost_sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
}

static void perfcost_count(void *ctx, const perfring_record *rec)
{
    (void)ctx;
    if (rec->kind == PERFRING_SAMPLE)
        perfcost_samples++;
}

/* perf record on thread tid, sampling when this returns (its pid), or -1. */
static pid_t perfcost_perf_start(int tid, const char *dir)
{
    char t[16], ctl[256], ack[256], control[600], out[256], buf[16];
    char *argv[] = {"perf", "record", "-q", "-D", "-1", "--control", control, "-e", "cpu-clock",
                    "-F",   "999",    "-g", "-t", t,    "-o",        out,     NULL};
    pid_t pid;
    int fd;
    ssize_t n;

    snprintf(t, sizeof(t), "%d", tid);
    snprintf(ctl, sizeof(ctl), "%s/ctl", dir);
    snprintf(ack, sizeof(ack), "%s/ack", dir);
    snprintf(out, sizeof(out), "%s/perf.data", dir);
    snprintf(control, sizeof(control), "fifo:%s,%s", ctl, ack);
    if (posix_spawnp(&pid, "perf", NULL, NULL, argv, environ) != 0)
        return -1;
    if ((fd = open(ctl, O_WRONLY | O_CLOEXEC)) < 0 || write(fd, "enable\n", 7) != 7)
        goto fail;
    close(fd);
    if ((fd = open(ack, O_RDONLY | O_CLOEXEC)) < 0)
        goto fail;
    n = read(fd, buf, sizeof(buf) - 1); /* "ack\n" once the events are on */
    close(fd);
    if (n < 3 || memcmp(buf, "ack", 3) != 0)
        goto fail;
    return pid;
fail:
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

static int perfcost_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void perfcost_print(const char *name, double *cost, int n)
{
    qsort(cost, (size_t)n, sizeof(double), perfcost_cmp);
    printf("%-34s median %5.2f%%  quartiles %5.2f%% to %5.2f%%\n", name, cost[n / 2], cost[n / 4],
           cost[(3 * n) / 4]);
}

int main(int argc, char **argv)
{
    static double cost[2][PERFCOST_MAX_PAIRS], diff[PERFCOST_MAX_PAIRS];
    char dir[] = "/tmp/jitscope-perfcost-XXXXXX", ctl[300], ack[300];
    long pairs = argc > 1 ? strtol(argv[1], NULL, 10) : 20;
    long ms = argc > 2 ? strtol(argv[2], NULL, 10) : 500;
    long depth = argc > 3 ? strtol(argv[3], NULL, 10) : 10;
    uint64_t jit_samples = 0, jit_ns = 0;
    pthread_t worker;
    int tid;

    if (pairs < 1 || pairs > PERFCOST_MAX_PAIRS || ms < 100 || ms > 60000 || depth < 0 ||
        depth > 1000) {
        fprintf(stderr, "usage: perfcost [PAIRS 1-%d [MS 100-60000 [DEPTH 0-1000]]]\n",
                PERFCOST_MAX_PAIRS);
        return 2;
    }
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(ctl, sizeof(ctl), "%s/ctl", dir);
    snprintf(ack, sizeof(ack), "%s/ack", dir);
    if (mkfifo(ctl, 0600) != 0 || mkfifo(ack, 0600) != 0) {
        perror("mkfifo");
        return 1;
    }
    atomic_store(&perfcost_depth, (int)depth);
    if (pthread_create(&worker, NULL, perfcost_worker, NULL) != 0)
        return 1;
    while (!(tid = atomic_load(&perfcost_tid)))
        perfcost_sleep_ms(1);
    perfcost_sleep_ms(300);
    for (long i = 0; i < pairs; i++) {
        for (int arm = 0; arm < 2; arm++) {
            double rate[2];
            for (int on = 0; on < 2; on++) {
                perfring ring;
                perfring_config c = {PERFCOST_PERIOD_NS, 0, 8};
                pid_t perf = -1;
                uint64_t u0, n0, u1, n1, s0 = perfcost_samples;

                if (on && arm == 0 && perfring_open(&ring, tid, &c) != 0) {
                    perror("perf_event_open");
                    return 1;
                }
                if (on && arm == 1 && (perf = perfcost_perf_start(tid, dir)) < 0) {
                    fprintf(stderr, "perf record did not start sampling\n");
                    return 1;
                }
                u0 = atomic_load(&perfcost_units);
                n0 = perfcost_thread_ns(tid);
                for (long k = 0; k < ms / 50; k++) {
                    perfcost_sleep_ms(50);
                    if (on && arm == 0)
                        (void)perfring_drain(&ring, perfcost_count, NULL);
                }
                u1 = atomic_load(&perfcost_units);
                n1 = perfcost_thread_ns(tid);
                rate[on] = (double)(u1 - u0) / (double)(n1 - n0 ? n1 - n0 : 1);
                if (on && arm == 0) {
                    perfring_close(&ring);
                    jit_samples += perfcost_samples - s0;
                    jit_ns += n1 - n0;
                }
                if (perf > 0) {
                    kill(perf, SIGINT);
                    waitpid(perf, NULL, 0);
                }
            }
            cost[arm][i] = (1.0 - rate[1] / rate[0]) * 100.0;
        }
        diff[i] = cost[0][i] - cost[1][i];
    }
    printf("worker %ld frames deep, %ld pairs of %ld ms phases; jitscope's event took %.0f "
           "samples per second of the worker's CPU\n",
           depth + 2, pairs, ms, jit_ns ? (double)jit_samples * 1e9 / (double)jit_ns : 0.0);
    perfcost_print("jitscope's event (perfring)", cost[0], (int)pairs);
    perfcost_print("perf record -e cpu-clock -F 999 -g", cost[1], (int)pairs);
    perfcost_print("jitscope minus perf, per round", diff, (int)pairs);
    unlink(ctl);
    unlink(ack);
    {
        char data[300];
        snprintf(data, sizeof(data), "%s/perf.data", dir);
        unlink(data);
        snprintf(data, sizeof(data), "%s/perf.data.old", dir);
        unlink(data);
    }
    rmdir(dir);
    return 0;
}
