/* test_ipc.c -- unit tests for server/ipc*.c and server/procscan.c.
 *
 * Build: make build/tests/test_ipc && build/tests/test_ipc (tests/run.sh runs it
 * under tests/unit/with_dotnet.sh, for the part against a real runtime).
 *
 * Parts (the messages themselves are test_ipc_codec.c's): /proc stat and
 * environ parsing; socket discovery and the whole I/O
 * path against a fake runtime served by a thread of this process (timeouts, bad
 * replies, hang-ups, fallback from ProcessInfo2 to ProcessInfo, permissions).
 * With JITSCOPE_TEST_DOTNET_PID set to the pid of a live .NET process it also
 * talks to the real runtime (ProcessInfo 1/2/3, procscan, and an AttachProfiler
 * with a profiler path that does not exist); JITSCOPE_TEST_DOTNET_EXTRA_PIDS
 * (comma-separated) adds processes for which only discovery and ProcessInfo run.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "check.h"
#include "ipcbytes.h"
#include "ipc.h"
#include "procscan.h"
#include "utf.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* ---- /proc parsing -------------------------------------------------------------------- */

TEST(stat_and_environ)
{
    static const char line[] = "1234 (we ) ird) (name) S 1 1234 1234 0 -1 4194560 100 0 0 0 5 3 0 "
                               "0 20 0 1 0 987654321 1000 200 "
                               "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n";
    char buf[512], out[64];
    uint64_t st = 0, st2 = 0;
    size_t len = 0;
    FILE *f;
    char old_comm[32] = "";

    CHECK(ipc_parse_stat_starttime(line, strlen(line), &st) == IPC_OK && st == 987654321,
          "stat: comm with spaces and ')' -> %llu", (unsigned long long)st);
    CHECK(ipc_parse_stat_starttime(line, 60, &st) == IPC_ERR_PROTO,
          "stat: line cut before field 22 rejected");
#define STAT_OF(text) ipc_parse_stat_starttime(text, strlen(text), &st)
    CHECK(STAT_OF("12 (x) S 1") == IPC_ERR_PROTO, "stat: short line rejected");
    CHECK(STAT_OF("12 x S 1 2 3") == IPC_ERR_PROTO, "stat: no ')' rejected");
    CHECK(STAT_OF("1 (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 x9 1") == IPC_ERR_PROTO,
          "stat: non-numeric field 22 rejected");
    CHECK(STAT_OF("1 (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99999999999999999999 1") ==
              IPC_ERR_PROTO,
          "stat: field 22 overflow rejected");
    CHECK(STAT_OF("1 (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 77") == IPC_OK && st == 77,
          "stat: field 22 at the end of the text");
    CHECK(STAT_OF("1 (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7x7 1") == IPC_ERR_PROTO,
          "stat: digits then junk in field 22 rejected");
    CHECK(STAT_OF("1 (a)  S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 77") == IPC_ERR_PROTO,
          "stat: double space (shifted fields) rejected");
#undef STAT_OF

    /* the real /proc/self/stat, before and after renaming ourselves "a) b (c" */
    f = fopen("/proc/self/stat", "r");
    if (f != NULL) {
        len = fread(buf, 1, sizeof(buf), f);
        fclose(f);
    }
    CHECK(len > 0 && ipc_parse_stat_starttime(buf, len, &st) == IPC_OK && st > 0,
          "stat: /proc/self/stat parsed");
    prctl(PR_GET_NAME, old_comm, 0, 0, 0);
    prctl(PR_SET_NAME, "a) b (c) 9 9", 0, 0, 0);
    len = 0;
    f = fopen("/proc/self/stat", "r");
    if (f != NULL) {
        len = fread(buf, 1, sizeof(buf), f);
        fclose(f);
    }
    CHECK(len > 0 && ipc_parse_stat_starttime(buf, len, &st2) == IPC_OK && st2 == st,
          "stat: same start time with comm \"a) b (c) 9 9\"");
    prctl(PR_SET_NAME, old_comm, 0, 0, 0);

    {
        static const char env[] = "A=1\0XTMPDIR=no\0TMPDIR\0TMPDIR=/var/t\0B=\0";
        size_t elen = sizeof(env) - 1;
        CHECK(ipc_environ_lookup(env, elen, "TMPDIR", out, sizeof(out)) == 1 &&
                  strcmp(out, "/var/t") == 0,
              "environ: TMPDIR found past look-alikes");
        CHECK(ipc_environ_lookup(env, elen, "B", out, sizeof(out)) == 1 && out[0] == 0,
              "environ: empty value");
        CHECK(ipc_environ_lookup(env, elen, "A", out, sizeof(out)) == 1 && strcmp(out, "1") == 0,
              "environ: first entry");
        CHECK(ipc_environ_lookup(env, elen, "C", out, sizeof(out)) == 0, "environ: absent name");
        CHECK(ipc_environ_lookup(env, elen, "TMPDIR", out, 6) == IPC_ERR_INVAL,
              "environ: value too long is INVAL");
        CHECK(ipc_environ_lookup("TMPDIR=/cut", 11, "TMPDIR", out, sizeof(out)) == 0,
              "environ: unterminated entry ignored");
        CHECK(ipc_environ_lookup(env, 0, "A", out, sizeof(out)) == 0, "environ: empty block");
    }
    {
        pid_t p = 0;
        uint64_t k = 0;
        CHECK(ipc_parse_socket_name("dotnet-diagnostic-3413-120767-socket", &p, &k) == 1 &&
                  p == 3413 && k == 120767,
              "socket name: parsed");
        CHECK(ipc_parse_socket_name("dotnet-diagnostic-3413-0-socket", &p, &k) == 1 && k == 0,
              "socket name: key 0");
        static const char *const rejected[][2] = {
            {"dotnet-diagnostic-3413-socket", "no key"},
            {"dotnet-diagnostic--1-socket", "empty pid"},
            {"dotnet-diagnostic-12-3x-socket", "junk key"},
            {"dotnet-diagnostic-0-3-socket", "pid 0"},
            {"dotnet-diagnostic-99999999999-3-socket", "pid overflow"},
            {"clr-debug-pipe-3413-120767-in", "other files"},
        };
        for (size_t i = 0; i < sizeof(rejected) / sizeof(rejected[0]); i++)
            CHECK(!ipc_parse_socket_name(rejected[i][0], &p, &k), "socket name: %s rejected",
                  rejected[i][1]);
    }
}

/* ---- fake runtime: a listening socket named for this process -------------------------------- */

enum fake_action { FAKE_REPLY, FAKE_SILENT, FAKE_HANGUP, FAKE_INFO2_UNKNOWN };

static struct {
    int lfd;
    pthread_t thread;
    _Atomic int stop;
    _Atomic int action;
    uint8_t reply[512];
    size_t reply_len;
    uint8_t request[70000];
    _Atomic size_t request_len;
    char path[IPC_PATH_MAX];
} g_fake;

static int read_full(int fd, uint8_t *p, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = read(fd, p + done, n - done);
        if (r <= 0)
            return -1;
        done += (size_t)r;
    }
    return 0;
}

/* The fake runtime: answers each request as g_fake.action says. It sends with
 * MSG_NOSIGNAL: a client that gave up and closed first (its deadline passed
 * on a loaded machine) must fail its own check, not kill the test by SIGPIPE
 * (run 8 of two concurrent make test: exit 141). */
static void *fake_main(void *arg)
{
    (void)arg;
    while (!atomic_load(&g_fake.stop)) {
        int fd = accept(g_fake.lfd, NULL, NULL), action = atomic_load(&g_fake.action);
        size_t size;
        if (fd < 0)
            continue;
        if (atomic_load(&g_fake.stop)) {
            close(fd);
            break;
        }
        if (read_full(fd, g_fake.request, 20) != 0) {
            close(fd);
            continue;
        }
        size = (size_t)g_fake.request[14] | ((size_t)g_fake.request[15] << 8);
        if (size > 20 && read_full(fd, g_fake.request + 20, size - 20) != 0) {
            close(fd);
            continue;
        }
        atomic_store(&g_fake.request_len, size);
        if (action == FAKE_REPLY) {
            if (send(fd, g_fake.reply, g_fake.reply_len, MSG_NOSIGNAL) < 0)
                perror("fake write");
        } else if (action == FAKE_SILENT) {
            uint8_t b;
            while (read(fd, &b, 1) > 0) /* until the client gives up and closes */
                ;
        } else if (action == FAKE_INFO2_UNKNOWN) {
            if (g_fake.request[17] == 0x04) {
                uint8_t err[24];
                make_reply(err, 0xFF, 1, IPC_HR_UNKNOWN_COMMAND);
                if (send(fd, err, sizeof(err), MSG_NOSIGNAL) < 0)
                    perror("fake write");
            } else if (send(fd, g_fake.reply, g_fake.reply_len, MSG_NOSIGNAL) < 0) {
                perror("fake write");
            }
        }
        close(fd); /* FAKE_HANGUP: close without a word */
    }
    return NULL;
}

static int bind_socket(const char *path, int do_listen)
{
    struct sockaddr_un a;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    memset(&a, 0, sizeof(a));
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
    unlink(path);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || (do_listen && listen(fd, 16) != 0)) {
        close(fd);
        return -1;
    }
    return fd;
}

static void fake_set_reply(const uint8_t *p, size_t n)
{
    memcpy(g_fake.reply, p, n);
    g_fake.reply_len = n;
    atomic_store(&g_fake.action, FAKE_REPLY);
}

TEST(fake_runtime)
{
    ipc_target t;
    char err[512], path[IPC_PATH_MAX], stale[IPC_PATH_MAX], zero[IPC_PATH_MAX];
    int rc, sfd = -1, zfd = -1;
    int32_t hr = 0;
    static ipc_procinfo pi;
    static wbuf w;
    uint8_t reply[600];
    double t0, dt;

    rc = ipc_target_probe(getpid(), &t, err, sizeof(err));
    CHECK(rc == IPC_OK && t.ns_pid == getpid() && t.start_time > 0 && t.env_readable,
          "probe self: %s (dir %s)", rc == IPC_OK ? "ok" : err, t.dir);
    if (rc != IPC_OK)
        return;

    rc = ipc_socket_path(getpid(), path, sizeof(path), err, sizeof(err));
    CHECK(rc == IPC_ERR_NOTDOTNET, "socket path: self has no socket -> NOTDOTNET (%s)", err);
    rc = ipc_socket_path(0x7ffffff0, path, sizeof(path), err, sizeof(err));
    CHECK(rc == IPC_ERR_NOPROC, "socket path: pid 0x7ffffff0 -> NOPROC (%s)", err);
    rc = ipc_socket_path(-5, path, sizeof(path), err, sizeof(err));
    CHECK(rc == IPC_ERR_INVAL, "socket path: negative pid -> INVAL");

    /* a stale socket (wrong key, an hour old) must not be taken */
    if (snprintf(stale, sizeof(stale), "%sdotnet-diagnostic-%d-%llu-socket", t.dir, (int)getpid(),
                 (unsigned long long)t.start_time + 17) >= (int)sizeof(stale) ||
        snprintf(zero, sizeof(zero), "%sdotnet-diagnostic-%d-0-socket", t.dir, (int)getpid()) >=
            (int)sizeof(zero) ||
        snprintf(g_fake.path, sizeof(g_fake.path), "%sdotnet-diagnostic-%d-%llu-socket", t.dir,
                 (int)getpid(), (unsigned long long)t.start_time) >= (int)sizeof(g_fake.path)) {
        CHECK(0, "fake: TMPDIR %s too long for socket names", t.dir);
        return;
    }
    sfd = bind_socket(stale, 0);
    if (sfd >= 0) {
        struct timespec times[2];
        clock_gettime(CLOCK_REALTIME, &times[0]);
        times[0].tv_sec -= 3600;
        times[1] = times[0];
        utimensat(AT_FDCWD, stale, times, AT_SYMLINK_NOFOLLOW);
    }
    rc = ipc_socket_path(getpid(), path, sizeof(path), err, sizeof(err));
    CHECK(sfd >= 0 && rc == IPC_ERR_NOTDOTNET,
          "socket path: stale socket of an earlier process skipped");

    /* key 0 (runtime could not read its start time) is found by the directory scan */
    zfd = bind_socket(zero, 0);
    rc = ipc_socket_path(getpid(), path, sizeof(path), err, sizeof(err));
    CHECK(zfd >= 0 && rc == IPC_OK && strcmp(path, zero) == 0,
          "socket path: key-0 socket found by scan (%s)", path);

    /* the fake runtime at the expected name wins over both */
    g_fake.lfd = bind_socket(g_fake.path, 1);
    CHECK(g_fake.lfd >= 0, "fake: listening at %s", g_fake.path);
    if (g_fake.lfd < 0)
        goto done;
    rc = ipc_socket_path(getpid(), path, sizeof(path), err, sizeof(err));
    CHECK(rc == IPC_OK && strcmp(path, g_fake.path) == 0, "socket path: exact name preferred");
    {
        char small[10];
        rc = ipc_socket_path(getpid(), small, sizeof(small), err, sizeof(err));
        CHECK(rc == IPC_ERR_INVAL, "socket path: small output buffer -> INVAL");
    }
    if (pthread_create(&g_fake.thread, NULL, fake_main, NULL) != 0) {
        CHECK(0, "fake: thread");
        goto done;
    }

    /* AttachProfiler: the bytes on the wire and an error reply */
    make_reply(reply, 0xFF, 1, IPC_HR_PROFILER_ALREADY_ACTIVE);
    fake_set_reply(reply, 24);
    rc = ipc_attach_profiler(getpid(), 1000, k_clsid, "/opt/x.so", (const uint8_t *)"hi", 2, &hr,
                             err, sizeof(err));
    CHECK(rc == IPC_OK && hr == IPC_HR_PROFILER_ALREADY_ACTIVE,
          "fake attach: error HRESULT passed through (rc %d %s)", rc, rc ? err : "");
    {
        uint8_t expect[128];
        size_t n = ipc_build_attach(expect, sizeof(expect), 1000, k_clsid, "/opt/x.so",
                                    (const uint8_t *)"hi", 2);
        CHECK(atomic_load(&g_fake.request_len) == n && memcmp(g_fake.request, expect, n) == 0,
              "fake attach: runtime received the exact request (%zu bytes)", n);
    }
    make_reply(reply, 0x00, 1, 0);
    fake_set_reply(reply, 24);
    rc = ipc_attach_profiler(getpid(), 1000, k_clsid, "/opt/x.so", NULL, 0, &hr, err, sizeof(err));
    CHECK(rc == IPC_OK && hr == 0, "fake attach: S_OK");

    /* bad replies */
    make_reply(reply, 0x00, 1, 0);
    reply[0] = 'X';
    fake_set_reply(reply, 24);
    rc = ipc_attach_profiler(getpid(), 1000, k_clsid, "/opt/x.so", NULL, 0, &hr, err, sizeof(err));
    CHECK(rc == IPC_ERR_PROTO, "fake attach: bad magic -> PROTO (%s)", err);
    make_reply(reply, 0x00, 1, 0);
    reply[14] = 0xFF;
    reply[15] = 0xFF;
    fake_set_reply(reply, 24);
    rc = ipc_attach_profiler(getpid(), 1000, k_clsid, "/opt/x.so", NULL, 0, &hr, err, sizeof(err));
    CHECK(rc == IPC_ERR_PROTO, "fake attach: 65535-byte reply refused -> PROTO (%s)", err);
    make_reply(reply, 0x00, 1, 0);
    fake_set_reply(reply, 22);
    rc = ipc_attach_profiler(getpid(), 1000, k_clsid, "/opt/x.so", NULL, 0, &hr, err, sizeof(err));
    CHECK(rc == IPC_ERR_IO, "fake attach: reply cut short -> IO (%s)", err);
    atomic_store(&g_fake.action, FAKE_HANGUP);
    rc = ipc_attach_profiler(getpid(), 1000, k_clsid, "/opt/x.so", NULL, 0, &hr, err, sizeof(err));
    CHECK(rc == IPC_ERR_IO, "fake attach: hang-up -> IO (%s)", err);

    /* a runtime that never answers: deadline = timeout + margin */
    atomic_store(&g_fake.action, FAKE_SILENT);
    t0 = now_ms();
    rc = ipc_attach_profiler(getpid(), 100, k_clsid, "/opt/x.so", NULL, 0, &hr, err, sizeof(err));
    dt = now_ms() - t0;
    CHECK(rc == IPC_ERR_TIMEOUT && dt >= 100 + IPC_ATTACH_MARGIN_MS - 50 &&
              dt < 100 + IPC_ATTACH_MARGIN_MS + 2000,
          "fake attach: silent runtime -> TIMEOUT after %.0f ms (%s)", dt, err);

    /* ProcessInfo2 and the fallback to ProcessInfo */
    make_info(&w, 2);
    memcpy(reply, "DOTNET_IPC_V1", 14);
    reply[14] = (uint8_t)(20 + w.n);
    reply[15] = (uint8_t)((20 + w.n) >> 8);
    reply[16] = 0xFF;
    reply[17] = 0x00;
    reply[18] = reply[19] = 0;
    memcpy(reply + 20, w.b, w.n);
    fake_set_reply(reply, 20 + w.n);
    rc = ipc_process_info(getpid(), &pi, err, sizeof(err));
    CHECK(rc == IPC_OK && pi.version == 2 && pi.pid == 4242 &&
              strcmp(pi.runtime_version, "10.0.12") == 0,
          "fake info: ProcessInfo2 parsed (rc %d %s)", rc, rc ? err : "");
    make_info(&w, 1);
    reply[14] = (uint8_t)(20 + w.n);
    reply[15] = (uint8_t)((20 + w.n) >> 8);
    memcpy(reply + 20, w.b, w.n);
    memcpy(g_fake.reply, reply, 20 + w.n);
    g_fake.reply_len = 20 + w.n;
    atomic_store(&g_fake.action, FAKE_INFO2_UNKNOWN);
    rc = ipc_process_info(getpid(), &pi, err, sizeof(err));
    CHECK(rc == IPC_OK && pi.version == 1 && strcmp(pi.os, "Linux") == 0 &&
              g_fake.request[17] == 0x00,
          "fake info: unknown ProcessInfo2 falls back to ProcessInfo (rc %d %s)", rc,
          rc ? err : "");
    make_reply(reply, 0xFF, 1, IPC_HR_NOT_YET_AVAILABLE);
    fake_set_reply(reply, 24);
    hr = 0;
    rc = ipc_query_process_info(getpid(), IPC_PROCESS_INFO3, &pi, &hr, err, sizeof(err));
    CHECK(rc == IPC_ERR_RUNTIME && hr == IPC_HR_NOT_YET_AVAILABLE,
          "fake info: error reply -> RUNTIME (%s)", err);
    make_reply(reply, 0xFF, 1, IPC_HR_UNKNOWN_COMMAND); /* .NET Core 3.1 */
    fake_set_reply(reply, 24);
    rc = ipc_process_info(getpid(), &pi, err, sizeof(err));
    CHECK(rc == IPC_ERR_TOO_OLD && strstr(err, "older than .NET 5") &&
              g_fake.request[17] == IPC_PROCESS_INFO,
          "fake info: neither ProcessInfo2 nor ProcessInfo known -> TOO_OLD (rc %d: %s)", rc, err);
    make_reply(reply, 0x00, 1, 0);
    fake_set_reply(reply, 24);
    rc = ipc_process_info(getpid(), &pi, err, sizeof(err));
    CHECK(rc == IPC_ERR_PROTO, "fake info: 4-byte payload -> PROTO (%s)", err);

    /* another user may not use our socket: a child drops to uid 65534 */
    if (geteuid() == 0) {
        pid_t child = fork();
        if (child == 0) {
            char cerr[256], cpath[IPC_PATH_MAX];
            int crc;
            if (setgid(65534) != 0 || setuid(65534) != 0)
                _exit(2);
            crc = ipc_socket_path(getppid(), cpath, sizeof(cpath), cerr, sizeof(cerr));
            _exit(crc == IPC_ERR_PERM ? 0 : 1);
        }
        if (child > 0) {
            int status = 0;
            waitpid(child, &status, 0);
            CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "perm: other uid gets PERM for our socket (exit %d)",
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        }
    } else {
        printf("skip perm: not root\n");
    }

    atomic_store(&g_fake.stop, 1);
    {
        /* wake the accept() */
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un a;
        memset(&a, 0, sizeof(a));
        a.sun_family = AF_UNIX;
        snprintf(a.sun_path, sizeof(a.sun_path), "%s", g_fake.path);
        if (fd >= 0) {
            if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0)
                perror("wake connect");
            close(fd);
        }
    }
    pthread_join(g_fake.thread, NULL);
done:
    if (g_fake.lfd >= 0) {
        close(g_fake.lfd);
        unlink(g_fake.path);
    }
    if (sfd >= 0) {
        close(sfd);
        unlink(stale);
    }
    if (zfd >= 0) {
        close(zfd);
        unlink(zero);
    }
}

/* ---- a real .NET process ------------------------------------------------------------------ */

static void check_real_info(pid_t pid, int full)
{
    static ipc_procinfo pi;
    char err[512], path[IPC_PATH_MAX];
    int rc;
    double t0;

    rc = ipc_socket_path(pid, path, sizeof(path), err, sizeof(err));
    CHECK(rc == IPC_OK, "real %d: socket %s", (int)pid, rc == IPC_OK ? path : err);
    t0 = now_ms();
    rc = ipc_process_info(pid, &pi, err, sizeof(err));
    CHECK(rc == IPC_OK, "real %d: ProcessInfo2 in %.1f ms (%s)", (int)pid, now_ms() - t0,
          rc == IPC_OK ? "ok" : err);
    if (rc == IPC_OK) {
        printf("  pid=%llu os=%s arch=%s entrypoint=%s runtime=%s\n  cmdline=%s\n",
               (unsigned long long)pi.pid, pi.os, pi.arch, pi.entrypoint_assembly,
               pi.runtime_version, pi.command_line);
        ipc_target t;
        pid_t expect = ipc_target_probe(pid, &t, NULL, 0) == IPC_OK ? t.ns_pid : pid;
        CHECK(pi.version == 2 && pi.pid == (uint64_t)expect,
              "real %d: pid matches (%d in its namespace)", (int)pid, (int)expect);
        CHECK(strcmp(pi.os, "Linux") == 0 && strcmp(pi.arch, "x64") == 0, "real %d: Linux x64",
              (int)pid);
        CHECK(strncmp(pi.runtime_version, "10.", 3) == 0, "real %d: runtime version %s", (int)pid,
              pi.runtime_version);
    }
    if (!full)
        return;
    rc = ipc_query_process_info(pid, IPC_PROCESS_INFO, &pi, NULL, err, sizeof(err));
    CHECK(rc == IPC_OK && pi.version == 1 && pi.pid == (uint64_t)pid, "real %d: ProcessInfo (v1)",
          (int)pid);
    rc = ipc_query_process_info(pid, IPC_PROCESS_INFO3, &pi, NULL, err, sizeof(err));
    CHECK(rc == IPC_OK && pi.info3_version >= 1 && strcmp(pi.runtime_rid, "linux-x64") == 0,
          "real %d: ProcessInfo3 version %u rid %s", (int)pid, pi.info3_version, pi.runtime_rid);
}

TEST(real)
{
    const char *s = getenv("JITSCOPE_TEST_DOTNET_PID"),
               *extra = getenv("JITSCOPE_TEST_DOTNET_EXTRA_PIDS");
    pid_t pid;
    char err[512];
    int rc, i;
    size_t count = 0, k;
    static procscan_entry list[256];
    static ipc_procinfo pi;

    if (s == NULL || strtol(s, NULL, 10) <= 0) {
        printf("skip real: JITSCOPE_TEST_DOTNET_PID not set\n");
        return;
    }
    pid = (pid_t)strtol(s, NULL, 10);
    check_real_info(pid, 1);

    rc = procscan_list(list, sizeof(list) / sizeof(list[0]), &count);
    {
        int seen = 0;
        for (k = 0; k < count; k++) {
            printf("  procscan: pid %d socket %s uid %u attach %d\n", (int)list[k].pid,
                   list[k].socket_path, (unsigned)list[k].uid, list[k].can_attach);
            if (list[k].pid == pid && list[k].can_attach)
                seen = 1;
        }
        CHECK(rc == IPC_OK && seen, "procscan: lists pid %d (%zu processes)", (int)pid, count);
    }
    while (extra != NULL && *extra != '\0') {
        pid_t e = (pid_t)strtol(extra, NULL, 10);
        const char *comma = strchr(extra, ',');
        extra = comma != NULL ? comma + 1 : NULL;
        {
            int seen = 0;
            if (e <= 0)
                continue;
            check_real_info(e, 0);
            for (k = 0; k < count; k++)
                if (list[k].pid == e)
                    seen = 1;
            CHECK(seen, "procscan: lists extra pid %d", (int)e);
        }
    }

    /* AttachProfiler with a profiler that does not exist: what does the runtime say? */
    for (i = 0; i < 2; i++) {
        int32_t hr = 0;
        double t0 = now_ms(), dt;
        rc = ipc_attach_profiler(pid, 3000, k_clsid, "/nonexistent/jitscope/libmissing.so",
                                 (const uint8_t *)"x", 1, &hr, err, sizeof(err));
        dt = now_ms() - t0;
        printf("  attach #%d with a missing profiler: rc=%d hresult=0x%08x (%s) in %.1f ms%s%s\n",
               i + 1, rc, (unsigned)hr, ipc_hresult_name(hr), dt, rc ? " err=" : "", rc ? err : "");
        CHECK(rc == IPC_OK && hr < 0,
              "real attach #%d: runtime answers with an error HRESULT 0x%08x", i + 1, (unsigned)hr);
    }
    rc = ipc_process_info(pid, &pi, err, sizeof(err));
    CHECK(rc == IPC_OK, "real: runtime still answers after failed attaches");
}

/* A target whose environment is longer than the first 64 KiB read of it
 * (the environ buffer grows as the file goes on, up to its bound): its
 * TMPDIR, the last variable, still names the socket directory. */
TEST(environ_longer_than_the_first_read)
{
    static char filler[300][1024];
    char *envp[302], comm[32] = "", path[64], err[256];
    char *argv[] = {"sleep", "30", NULL};
    ipc_target t;
    pid_t pid;
    int i, rc = -1, fd;

    for (i = 0; i < 300; i++) {
        snprintf(filler[i], 16, "FILLER%03d=", i);
        memset(filler[i] + 10, 'a' + i % 26, sizeof(filler[i]) - 11);
        filler[i][sizeof(filler[i]) - 1] = '\0';
        envp[i] = filler[i];
    }
    envp[300] = "TMPDIR=/tmp/jitscope-environ-test";
    envp[301] = NULL;
    pid = fork();
    if (pid == 0) {
        execve("/bin/sleep", argv, envp);
        _exit(127);
    }
    CHECK(pid > 0, "a child to probe");
    if (pid <= 0)
        return;
    snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
    for (i = 0; i < 2000 && strncmp(comm, "sleep", 5) != 0; i++) { /* until it ran exec */
        ssize_t n = -1;
        if ((fd = open(path, O_RDONLY)) >= 0) {
            n = read(fd, comm, sizeof(comm) - 1);
            close(fd);
        }
        comm[n > 0 ? n : 0] = '\0';
        if (strncmp(comm, "sleep", 5) != 0)
            usleep(10000);
    }
    CHECK(strncmp(comm, "sleep", 5) == 0, "the child runs sleep with a 300 KiB environment");
    if (strncmp(comm, "sleep", 5) == 0)
        rc = ipc_target_probe(pid, &t, err, sizeof(err));
    CHECK(rc == IPC_OK && t.env_readable && strcmp(t.dir, "/tmp/jitscope-environ-test/") == 0,
          "its TMPDIR, 300 KiB in, is found: %s", rc == IPC_OK ? t.dir : err);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

static const check_test tests[] = {
    TEST_ENTRY(stat_and_environ),
    TEST_ENTRY(environ_longer_than_the_first_read),
    TEST_ENTRY(fake_runtime),
    TEST_ENTRY(real),
    TEST_END,
};

int main(int argc, char **argv) { return check_main_each(argc, argv, tests, NULL, NULL); }
