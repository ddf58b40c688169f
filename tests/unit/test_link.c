/* test_link.c -- link_send (server/link.c) never leaves half a command in an agent's stream.
 *
 * The real link thread and socket, a test client as the agent. The kernel's
 * part of a short write is played by this file's send(), which takes the place
 * of libc's in this binary (symbol interposition) and, while `send_budget` is
 * set, takes at most that many bytes and then reports a full buffer (EAGAIN):
 * on Linux an AF_UNIX stream never splits a command this small, so the short
 * write cannot be provoked for real. Covered: a command arrives whole; a
 * command the socket takes only part of makes link_send fail and shuts the
 * connection down (the agent sees those bytes, then the end of the stream, and
 * reconnects in step), never followed by more bytes; a command the socket
 * takes none of fails after LINK_SEND_WAIT_MS and leaves the connection open
 * and in step (the next command is the next whole frame). Those connections
 * say hello first (a session made here), as agents do. Connections that say
 * nothing are closed: the oldest at once when more than LINK_MAX_PENDING
 * wait for their hello, the others at the hello deadline (2 s), and an agent
 * past its hello is not touched by either. A session's function index and
 * its name table grow outside the sessions lock when a flood of new
 * functions (and type parts) would make them grow.
 * Build: make build/tests/test_link && build/tests/test_link
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "clock.h"
#include "link.h"
#include "records.h"
#include "sessions.h"
#include "wire.h"

static _Atomic long send_budget = -1; /* -1: pass through; else bytes still taken */

ssize_t send(int fd, const void *buf, size_t n, int flags)
{
    static ssize_t (*real)(int, const void *, size_t, int);
    long budget = atomic_load(&send_budget);

    if (!real)
        real = (ssize_t(*)(int, const void *, size_t, int))dlsym(RTLD_NEXT, "send");
    if (budget >= 0) {
        if (budget == 0) {
            errno = EAGAIN;
            return -1;
        }
        if (n > (size_t)budget)
            n = (size_t)budget;
        atomic_fetch_sub(&send_budget, (long)n);
    }
    return real(fd, buf, n, flags);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000l};
    nanosleep(&ts, NULL);
}

/* Reads up to n bytes, waiting at most ms for each; returns the count, -2 at EOF first. */
static ssize_t read_some(int fd, uint8_t *buf, size_t n, int ms)
{
    size_t got = 0;

    while (got < n) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        ssize_t r;
        if (poll(&p, 1, ms) <= 0)
            break;
        r = read(fd, buf + got, n - got);
        if (r == 0)
            return got ? (ssize_t)got : -2;
        if (r < 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

static int agent_connect(void)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    snprintf(a.sun_path, sizeof(a.sun_path), "%s", link_socket_path());
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Says hello on fd for a new attach session of this process, as an agent
 * does; the session's id, or -1. */
static int agent_hello(int fd)
{
    uint8_t frame[sizeof(wire_frame_header) + sizeof(wire_hello)];
    wire_record r;
    session *s;
    size_t n;
    int id;

    sessions_lock();
    s = sessions_create(SESSION_MODE_ATTACH, getpid(), "test_link");
    id = s ? s->id : -1;
    if (s)
        r = rec_hello(s->token);
    sessions_unlock();
    if (!s)
        return -1;
    r.seq = 1;
    r.u.hello.pid = (uint32_t)getpid();
    r.u.hello.mode = WIRE_MODE_ATTACH;
    n = rec_frame(&r, frame);
    return write(fd, frame, n) == (ssize_t)n ? id : -1;
}

/* The link id of session `id` once the link thread has bound it (the hello
 * read), waiting up to 4 s; 0 when it never was. */
static int agent_link_id(int id)
{
    int i, link_id = 0;

    for (i = 0; i < 400 && !link_id; i++) {
        session *s;
        sessions_lock();
        s = sessions_get(id);
        link_id = s ? s->link_id : 0;
        sessions_unlock();
        if (!link_id)
            sleep_ms(10);
    }
    return link_id;
}

/* A connection that said hello and that the link thread took: its fd, and
 * its link id in *link_id; -1 when any step failed. */
static int agent_open(int *link_id)
{
    wire_cmd_ping ping = {.cookie = 7};
    uint8_t buf[sizeof(wire_frame_header) + sizeof(ping)];
    int fd = agent_connect(), id;

    *link_id = 0;
    if (fd < 0)
        return -1;
    id = agent_hello(fd);
    if (id < 0 || !(*link_id = agent_link_id(id)) ||
        link_send(*link_id, WIRE_CMD_PING, &ping, sizeof(ping)) != 0 ||
        read_some(fd, buf, sizeof(buf), 2000) != (ssize_t)sizeof(buf)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Each test has a link of its own (a new socket), and leaves no session. */
static char link_err[256];

static void setup(void)
{
    link_err[0] = '\0';
    CHECK(link_start(NULL, link_err, sizeof(link_err)) == 0, "link_start: %s", link_err);
}

static void teardown(void)
{
    link_stop();
    sessions_lock();
    sessions_free_all();
    sessions_unlock();
}

/* Reads the next frame on the agent's end of a link and checks that it is
 * `ping`, whole: header, type, length and payload (what: the checks' name). */
static void expect_ping(int fd, const wire_cmd_ping *ping, const char *what)
{
    uint8_t buf[64];
    wire_frame_header h;

    CHECK(read_some(fd, buf, sizeof(h) + sizeof(*ping), 2000) ==
              (ssize_t)(sizeof(h) + sizeof(*ping)),
          "%s", what);
    memcpy(&h, buf, sizeof(h));
    CHECK(h.type == WIRE_CMD_PING && h.length == sizeof(*ping) &&
              memcmp(buf + sizeof(h), ping, sizeof(*ping)) == 0,
          "%s: type %u length %u, payload intact", what, h.type, h.length);
}

TEST(command_arrives_whole)
{
    wire_cmd_ping ping = {.cookie = 0x1122334455667788ull};
    int fd, link_id;

    fd = agent_open(&link_id);
    CHECK(fd >= 0, "an agent connection, accepted");
    CHECK(link_send(link_id, WIRE_CMD_PING, &ping, sizeof(ping)) == 0, "command sent");
    expect_ping(fd, &ping, "a whole frame arrives");
    CHECK(link_send(link_id, WIRE_CMD_PING, NULL, WIRE_MAX_COMMAND + 1) == -1,
          "an oversized command is refused");
    close(fd);
}

/* Sends a ping on the link while the socket takes only `budget` bytes of it:
 * link_send's result, and in *ms how long the call took. */
static int ping_with_budget(int link_id, const wire_cmd_ping *ping, long budget, uint64_t *ms)
{
    uint64_t t0;
    int rc;

    atomic_store(&send_budget, budget);
    t0 = clock_mono_ns();
    rc = link_send(link_id, WIRE_CMD_PING, ping, sizeof(*ping));
    *ms = (clock_mono_ns() - t0) / 1000000;
    atomic_store(&send_budget, -1);
    return rc;
}

TEST(part_of_a_command_shuts_the_link)
{
    wire_cmd_ping ping = {.cookie = 42};
    uint8_t buf[256];
    uint64_t ms;
    ssize_t got, more;
    int fd, rc, link_id;

    fd = agent_open(&link_id);
    CHECK(fd >= 0, "an agent connection, accepted");
    rc = ping_with_budget(link_id, &ping, 10, &ms); /* the socket takes 10 of the 32 bytes */
    CHECK(rc == -1, "link_send reports the short write");
    CHECK(ms < 5000, "within its wait (took %llu ms)", (unsigned long long)ms);
    got = read_some(fd, buf, 10, 2000);
    CHECK(got == 10, "the agent sees the 10 bytes that went out (%zd)", got);
    /* then the end of the stream, not more bytes a later command would add */
    rc = link_send(link_id, WIRE_CMD_PING, &ping, sizeof(ping));
    more = read_some(fd, buf, sizeof(buf), 3000);
    CHECK(more == -2, "then end of stream, not the rest of a frame (%zd)", more);
    CHECK(rc == -1 || more == -2, "no command goes into a broken stream");
    close(fd);
}

TEST(full_socket_leaves_the_stream_in_step)
{
    wire_cmd_ping ping = {.cookie = 9};
    uint64_t ms;
    int fd, rc, link_id;

    fd = agent_open(&link_id);
    CHECK(fd >= 0, "an agent connection, accepted");
    rc = ping_with_budget(link_id, &ping, 0, &ms); /* the socket takes nothing */
    CHECK(rc == -1, "a command the socket takes none of fails");
    CHECK(ms >= 400 && ms < 5000, "after the send wait (%llu ms; 500 ms, loaded machine)",
          (unsigned long long)ms);
    CHECK(link_send(link_id, WIRE_CMD_PING, &ping, sizeof(ping)) == 0, "the link is still up");
    expect_ping(fd, &ping, "in step: the next command is the next whole frame");
    close(fd);
}

/* Watches n connections at once and sets closed_ns[i] to when the peer closed
 * fds[i] (EOF), or leaves 0 for those still open after limit_ms. */
static void watch_closes(const int *fds, int n, uint64_t *closed_ns, long limit_ms)
{
    struct pollfd p[128];
    uint64_t start = clock_mono_ns();
    uint8_t buf[256];
    int i, open_n = n;

    for (i = 0; i < n; i++) {
        p[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
        closed_ns[i] = 0;
    }
    while (open_n > 0 && (long)((clock_mono_ns() - start) / 1000000) < limit_ms) {
        if (poll(p, (nfds_t)n, 50) <= 0)
            continue;
        for (i = 0; i < n; i++) {
            if (!p[i].revents || closed_ns[i])
                continue;
            if (read(fds[i], buf, sizeof(buf)) <= 0) {
                closed_ns[i] = clock_mono_ns();
                p[i].fd = -1; /* poll skips it from now on */
                open_n--;
            }
        }
    }
}

#define SILENT 100 /* more than LINK_MAX_PENDING (64) */

TEST(silent_connections_are_closed)
{
    wire_cmd_ping ping = {.cookie = 5};
    uint8_t buf[64];
    int agent, fds[SILENT], i, open_ok = 1, link_id;
    uint64_t t0[SILENT], closed[SILENT], oldest_last = 0, newest_first = UINT64_MAX;

    agent = agent_open(&link_id);
    CHECK(agent >= 0, "an agent past its hello");
    for (i = 0; i < SILENT; i++) {
        t0[i] = clock_mono_ns();
        fds[i] = agent_connect();
        open_ok &= fds[i] >= 0;
    }
    CHECK(open_ok, "%d silent connections made", SILENT);
    watch_closes(fds, SILENT, closed, 15000);
    for (i = 0; i < SILENT; i++) {
        CHECK(closed[i] != 0, "silent connection %d closed (within 15 s)", i);
        if (i < SILENT - 64 && closed[i] > oldest_last)
            oldest_last = closed[i];
        if (i >= SILENT - 64 && closed[i] < newest_first)
            newest_first = closed[i];
        if (i >= SILENT - 64)
            CHECK(closed[i] - t0[i] >= 1900000000ull,
                  "the newest 64 keep their 2 s for a hello (%d: closed after %llu ms)", i,
                  (unsigned long long)((closed[i] - t0[i]) / 1000000));
    }
    CHECK(oldest_last <= newest_first, "the oldest %d went first, to make room for newer ones",
          SILENT - 64);
    CHECK(link_send(link_id, WIRE_CMD_PING, &ping, sizeof(ping)) == 0 &&
              read_some(agent, buf, sizeof(wire_frame_header) + sizeof(ping), 2000) ==
                  (ssize_t)(sizeof(wire_frame_header) + sizeof(ping)),
          "the agent past its hello is still connected");
    for (i = 0; i < SILENT; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    close(agent);
}

/* Writes all of buf to fd; 0 or -1. */
static int write_all(int fd, const uint8_t *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w <= 0)
            return -1;
        buf += w, n -= (size_t)w;
    }
    return 0;
}

/* Frames that name 120,000 new functions make the session's function index
 * grow past 64K slots several times: it grows with its slots re-slotted
 * outside the sessions lock (a functions query is not kept waiting 15-30 ms
 * at a million functions), and every function is found afterwards. */
TEST(a_big_function_index_grows_outside_the_lock)
{
    enum { N = 120000 };
    static uint8_t buf[1u << 16];
    unsigned long before = link_index_grown_ahead();
    size_t used = 0, found = 0, count = 0;
    int fd = agent_connect(), id = fd >= 0 ? agent_hello(fd) : -1, ok = 1, tries;
    unsigned i;
    session *s;

    CHECK(id > 0 && agent_link_id(id), "an agent connection, bound to its session");
    for (i = 0; ok && i < N; i++) {
        wire_record r = rec_jit_finished(0x7f0000000000ull + (uint64_t)i * 16u, 0x71,
                                         0x10000000ull + (uint64_t)i * 64u, 64, REC_MONO + i, 0);
        r.seq = 2 + i;
        if (used + 256 > sizeof(buf)) {
            ok = write_all(fd, buf, used) == 0;
            used = 0;
        }
        used += rec_frame(&r, buf + used);
    }
    ok = ok && write_all(fd, buf, used) == 0;
    CHECK(ok, "%u JIT records written", (unsigned)N);
    for (tries = 0; tries < 3000 && count < N; tries++) { /* up to 30 s */
        sessions_lock();
        s = sessions_get(id);
        count = s ? s->function_count : 0;
        sessions_unlock();
        if (count < N)
            sleep_ms(10);
    }
    sessions_lock();
    s = sessions_get(id);
    for (i = 0; s && i < N; i++) {
        const session_function *f = session_find_function(s, 0x7f0000000000ull + (uint64_t)i * 16u);
        found += f && f->function_id == 0x7f0000000000ull + (uint64_t)i * 16u;
    }
    sessions_unlock();
    CHECK(count == N && found == N, "all %u applied (%zu) and found by their IDs (%zu)",
          (unsigned)N, count, found);
    CHECK(link_index_grown_ahead() - before >= 2, "the index grew outside the lock (%lu times)",
          link_index_grown_ahead() - before);
    close(fd);
}

/* Frames that name 120,000 functions, each with a type part of its own (a
 * distinct generic instantiation), make the session's name table grow past
 * 64K slots: it grows re-slotted outside the sessions lock, and every name
 * reads back as it came. */
TEST(a_big_name_table_grows_outside_the_lock)
{
    enum { N = 120000 };
    static uint8_t buf[1u << 16];
    unsigned long before = link_names_grown_ahead();
    size_t used = 0, same = 0, count = 0;
    int fd = agent_connect(), id = fd >= 0 ? agent_hello(fd) : -1, ok = 1, tries;
    unsigned i;
    char name[96], back[96];
    session *s;

    CHECK(id > 0 && agent_link_id(id), "an agent connection, bound to its session");
    for (i = 0; ok && i < N; i++) {
        wire_record r;
        snprintf(name, sizeof(name), "Contoso.Api.Factory<Contoso.Orders.Item%u>.Invoke()", i);
        r = rec_function_name(0x7f0000000000ull + (uint64_t)i * 16u, 0, name, 0);
        r.seq = 2 + i;
        if (used + 256 > sizeof(buf)) {
            ok = write_all(fd, buf, used) == 0;
            used = 0;
        }
        used += rec_frame(&r, buf + used);
    }
    ok = ok && write_all(fd, buf, used) == 0;
    CHECK(ok, "%u names written", (unsigned)N);
    for (tries = 0; tries < 3000 && count < N; tries++) { /* up to 30 s */
        sessions_lock();
        s = sessions_get(id);
        count = s ? s->names.count : 0;
        sessions_unlock();
        if (count < N)
            sleep_ms(10);
    }
    sessions_lock();
    s = sessions_get(id);
    for (i = 0; s && i < N; i++) {
        const session_function *f = session_find_function(s, 0x7f0000000000ull + (uint64_t)i * 16u);
        snprintf(name, sizeof(name), "Contoso.Api.Factory<Contoso.Orders.Item%u>.Invoke()", i);
        same += f && session_function_name_copy(f, back, sizeof(back)) == strlen(name) &&
                strcmp(back, name) == 0;
    }
    sessions_unlock();
    CHECK(count >= N && same == N, "every type part interned (%zu) and every name as it came (%zu)",
          count, same);
    CHECK(link_names_grown_ahead() - before >= 1,
          "the name table grew outside the lock (%lu times)", link_names_grown_ahead() - before);
    close(fd);
}

static const check_test tests[] = {
    TEST_ENTRY(command_arrives_whole),
    TEST_ENTRY(part_of_a_command_shuts_the_link),
    TEST_ENTRY(full_socket_leaves_the_stream_in_step),
    TEST_ENTRY(silent_connections_are_closed),
    TEST_ENTRY(a_big_function_index_grows_outside_the_lock),
    TEST_ENTRY(a_big_name_table_grows_outside_the_lock),
    TEST_END,
};

int main(int argc, char **argv) { return check_main_each(argc, argv, tests, setup, teardown); }
