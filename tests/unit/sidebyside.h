/* sidebyside.h -- the harness of the test_sidebyside_* binaries: the built
 * agent library against a fake CoreCLR (fakeclr.h), in-process, the test
 * itself the jitscope server (fakelink.h).
 *
 * The agent is one per process, so each test claims it for itself (runtime A
 * starts, its agent connects and says hello: a_up) and gives it back (a
 * detach: release_claim, after each test); the fake's scenario starts anew
 * before each. A test therefore runs alone and in any order (CHECK_SHUFFLE).
 * A test that needs a Shutdown, which keeps the claim for the rest of the
 * process as the runtime's process ends after it, runs in a child process
 * (in_child). A watchdog ends the run with a failure if an agent call hangs
 * (40 s in a test).
 *
 * A binary includes this after check.h, lists its tests and ends with
 *   int main(int argc, char **argv) { return sidebyside_main(argc, argv, tests); }
 * Static inline only (the checks count in the binary's own check.h counters);
 * what does not check is in the fixtures, fakeclr*.c and fakelink.c.
 * Build: make build/tests/test_sidebyside_<subject> (needs `make all` for the
 * agent .so).
 */
#ifndef JITSCOPE_TEST_SIDEBYSIDE_H
#define JITSCOPE_TEST_SIDEBYSIDE_H

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fakeclr.h"
#include "fakelink.h"
#include "wire.h"

#define AGENT_THREAD_NAME "jitscope-agent"
#define TOKEN_A "0123456789abcdef0123456789ABCDEF"
#define TOKEN_C "fedcba9876543210fedcba9876543210"
#define RING_BYTES 65536u

/* The agent library loaded, a socket to serve it and the settings of runtime
 * A in the environment, once per process (before any agent runs). 0, or -1
 * after a failed check. */
static int sidebyside_ready;

static inline int setup(void)
{
    char err[256] = "", ring[32];

    if (sidebyside_ready)
        return 0;
    if (fakeclr_load(err, sizeof(err)) != 0 || fakelink_listen(err, sizeof(err)) != 0) {
        CHECK(0, "the agent library loaded and a socket to serve it: %s", err);
        return -1;
    }
    setenv(WIRE_ENV_SOCKET, sock_path, 1);
    setenv(WIRE_ENV_TOKEN, TOKEN_A, 1);
    snprintf(ring, sizeof(ring), "%u", RING_BYTES);
    setenv("JITSCOPE_RING_BYTES", ring, 1);
    sidebyside_ready = 1;
    return 0;
}

/* Checks a WIRE_HELLO (already in c->last) against what the fake said. */
static inline void check_hello(const conn *c, const char *token, uint32_t mode,
                               uint16_t instance_id)
{
    wire_hello h;
    uint64_t mono = clock_ns(CLOCK_MONOTONIC), real = clock_ns(CLOCK_REALTIME);

    if (!CHECK(c->last.type == WIRE_HELLO, "first frame is WIRE_HELLO (got type %u)",
               (unsigned)c->last.type))
        return;
    CHECK(c->last.seq == 1, "hello carries seq 1 (got %llu)", (unsigned long long)c->last.seq);
    CHECK(c->last.flags == 0, "hello has no flags (got 0x%x)", (unsigned)c->last.flags);
    if (!CHECK(c->last_length == sizeof(wire_hello), "hello payload is %zu bytes (got %u)",
               sizeof(wire_hello), (unsigned)c->last_length))
        return;
    memcpy(&h, c->last_payload, sizeof(h));
    CHECK(memcmp(h.magic, WIRE_MAGIC, 8) == 0, "hello magic is JITSCOPE");
    CHECK(h.version == WIRE_VERSION, "hello version %u (got %u)", WIRE_VERSION, h.version);
    CHECK(h.pid == (uint32_t)getpid(), "hello pid is ours (%u, got %u)", (unsigned)getpid(), h.pid);
    CHECK(h.mode == mode, "hello mode %u (got %u)", mode, h.mode);
    CHECK(memcmp(h.token, token, WIRE_TOKEN_LEN) == 0, "hello carries the token %s", token);
    CHECK(h.runtime_type == COR_PRF_CORE_CLR && h.runtime_type == 2,
          "hello runtime type CoreCLR (got %u)", h.runtime_type);
    CHECK(h.clr_instance_id == instance_id, "hello clr instance %u (got %u)", instance_id,
          h.clr_instance_id);
    CHECK(h.major == 10 && h.minor == 0 && h.build == 1 && h.qfe == 0,
          "hello runtime version 10.0.1.0 (got %u.%u.%u.%u)", h.major, h.minor, h.build, h.qfe);
    CHECK(h.ring_bytes == RING_BYTES, "hello ring_bytes = JITSCOPE_RING_BYTES %u (got %u)",
          RING_BYTES, h.ring_bytes);
    CHECK(h.parent_pid == (uint32_t)getppid(), "hello parent pid is our parent (%u, got %u)",
          (unsigned)getppid(), h.parent_pid);
    CHECK(h.monotonic_ns <= mono && mono - h.monotonic_ns < 5000000000ull,
          "hello monotonic clock is ours and recent");
    CHECK(h.realtime_ns <= real + 1000000000ull && real - h.realtime_ns < 5000000000ull,
          "hello realtime clock is recent");
    CHECK(c->last.time_ns == h.monotonic_ns, "hello frame time = its monotonic_ns");
}

/* ---- who owns the agent: each test claims it for itself and gives it back ---- */

/* The runtimes of the tests (A: the usual owner, B: one declined beside it,
 * C: a later owner) and the server's connections to their agents (a binary
 * whose tests need no B or C leaves them be). */
static __attribute__((unused)) fake_runtime rt_a, rt_b, rt_c;
static ICorProfilerCallback11 *obj_a, *obj_b, *obj_c;
static __attribute__((unused)) conn conn_a = {.fd = -1}, conn_c = {.fd = -1};

/* The runtime that owns the agent now and the connection its agent made
 * (obj NULL: nobody). Every test leaves the agent unclaimed, as a runtime
 * gives it up for good: a detach (ProfilerDetachSucceeded releases the claim;
 * a Shutdown never does, so the shutdown test runs in a process of its own). */
typedef struct owner {
    fake_runtime *rt;
    ICorProfilerCallback11 *obj;
    conn *c;
} owner;
static owner claimed;

/* Runtime `rt` (instance id `instance`) starts with object *obj (made here)
 * and the settings in the environment; on S_OK it owns the agent, and the
 * agent's connection, its hello read, is c. 0, or -1 after a failed check. */
static inline int claim(fake_runtime *rt, uint16_t instance, ICorProfilerCallback11 **obj, conn *c)
{
    HRESULT hr;

    if (setup() != 0)
        return -1;
    fake_init(rt, instance);
    *obj = new_profiler();
    if (!CHECK(*obj != NULL, "a profiler object for runtime %u", instance))
        return -1;
    hr = (*obj)->lpVtbl->Initialize(*obj, &rt->unk);
    if (!CHECK(hr == S_OK, "runtime %u: Initialize -> S_OK (0x%08x)", instance, (unsigned)hr))
        return -1;
    claimed = (owner){rt, *obj, c};
    return CHECK(conn_accept(c, 3000) == 0 && c->last.type == WIRE_HELLO,
                 "runtime %u: its agent connected and said hello", instance)
               ? 0
               : -1;
}

/* Runtime A owns the agent: where every test of a running agent starts. */
static inline int a_up(void) { return claim(&rt_a, 3, &obj_a, &conn_a); }

/* The owner gives the agent back as a runtime does on a detach: the command,
 * RequestProfilerDetach (the fake agrees), the agent's thread gone, then
 * ProfilerDetachSucceeded; the connection read to its end and closed. */
static inline void release_claim(void)
{
    wire_cmd_detach cmd = {0};
    tail_info tail;
    owner o = claimed;

    if (!o.obj)
        return;
    claimed = (owner){0};
    atomic_store(&o.rt->detach_result, S_OK);
    if (o.c->fd >= 0 && send_command(o.c->fd, WIRE_CMD_DETACH, &cmd, sizeof(cmd)) == 0)
        conn_wait_type(o.c, WIRE_DETACH_STATUS, 3000);
    CHECK(wait_threads_named(AGENT_THREAD_NAME, 0, 3000) == 0,
          "the owner's agent asked for a detach and its thread left");
    o.obj->lpVtbl->ProfilerDetachSucceeded(o.obj);
    if (o.c->fd >= 0) {
        memset(&tail, 0, sizeof(tail));
        conn_read_to_eof(o.c, 3000, &tail);
        close(o.c->fd);
        o.c->fd = -1;
    }
}

/* Releases *obj (when the test has not), which must be its last reference. */
static inline void release_object(ICorProfilerCallback11 **obj, const char *what)
{
    ULONG refs;

    if (!*obj)
        return;
    refs = (*obj)->lpVtbl->Release(*obj);
    CHECK(refs == 0, "%s released (%u)", what, refs);
    *obj = NULL;
}

/* Runs body in a child process, as after a runtime's Shutdown nothing can
 * claim the agent again in the process (the runtime's process ends). The
 * child's checks count here: it sends its counts back through a pipe. */
static pid_t child_pid;

static inline void in_child(void (*body)(void))
{
    unsigned long counts[2] = {0, 0};
    int fds[2], status = 0;
    ssize_t got = -1;

    fflush(stdout);
    if (!CHECK(pipe(fds) == 0, "a pipe for the child's counts"))
        return;
    child_pid = fork();
    if (child_pid == 0) {
        close(fds[0]);
        check_passed = check_failed = 0;
        body();
        counts[0] = check_passed, counts[1] = check_failed;
        got = write(fds[1], counts, sizeof(counts));
        fflush(stdout);
        _exit(got == (ssize_t)sizeof(counts) ? 0 : 1);
    }
    close(fds[1]);
    if (child_pid > 0) {
        got = read(fds[0], counts, sizeof(counts));
        waitpid(child_pid, &status, 0);
    }
    close(fds[0]);
    child_pid = 0;
    check_passed += counts[0];
    check_failed += counts[1];
    CHECK(got == (ssize_t)sizeof(counts) && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the child process ran the test to its end");
}

/* ---- each test alone: the scenario before it, the agent given back after ---- */

/* A hung agent call (a join that never returns) must not hang the suite:
 * a test still running WATCHDOG_SECONDS after it began fails the run. */
#define WATCHDOG_SECONDS 40
static _Atomic double watchdog_deadline; /* now_s() the running test must end by; 0: none */

static inline void *watchdog(void *arg)
{
    (void)arg;
    for (;;) {
        double deadline = atomic_load(&watchdog_deadline);
        if (deadline > 0 && now_s() > deadline)
            break;
        sleep(1);
    }
    printf("  FAIL %s: still running after %d s: an agent call hangs\n", check_current,
           WATCHDOG_SECONDS);
    printf("%s: %lu passed, %lu failed\n", check_binary, check_passed, check_failed + 1);
    fflush(stdout);
    if (child_pid > 0)
        kill(child_pid, SIGKILL);
    fakelink_close();
    _exit(1);
}

/* Before each test: the fake runtime's scenario as new (no threads to walk,
 * no counts, nothing slowed down) and runtime A's settings in the
 * environment. Nothing of the agent runs between tests, so nothing reads
 * the scenario while it is reset. */
static inline void before_each(void)
{
    fake_scene_clear();
    setenv(WIRE_ENV_TOKEN, TOKEN_A, 1);
    atomic_store(&watchdog_deadline, now_s() + WATCHDOG_SECONDS);
}

/* After each test: the agent given back and the objects released, whatever
 * the test left (a failed check may have stopped it half way); then no
 * thread of the agent, no connection waiting. */
static inline void after_each(void)
{
    int fd;

    release_claim();
    release_object(&obj_a, "object A");
    release_object(&obj_b, "object B");
    release_object(&obj_c, "object C");
    CHECK(wait_threads_named(AGENT_THREAD_NAME, 0, 3000) == 0 &&
              wait_threads_named("jitscope-walk", 0, 3000) == 0,
          "the test left no thread of the agent");
    fd = accept_agent(0);
    CHECK(fd < 0, "the test left no connection waiting");
    if (fd >= 0)
        close(fd);
    atomic_store(&watchdog_deadline, 0);
}

/* The tests of `tests`, each alone (check_main_each), under the watchdog. */
static inline int sidebyside_main(int argc, char **argv, const check_test *tests)
{
    pthread_t dog;
    int rc;
    int dog_started = pthread_create(&dog, NULL, watchdog, NULL) == 0;

    rc = check_main_each(argc, argv, tests, before_each, after_each);
    if (dog_started) {
        pthread_cancel(dog); /* it sleeps in sleep(), a cancellation point */
        pthread_join(dog, NULL);
    }
    fakelink_close();
    return rc;
}

#endif
