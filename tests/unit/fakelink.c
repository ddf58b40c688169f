/* fakelink.c -- the jitscope server's end of the agent's socket, as the
 * test_sidebyside_* binaries play it: the listening socket, frames read and
 * checked for sequence and names, commands written, snapshots and profile
 * statuses read back. See fakelink.h.
 */
#include "fakelink.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

char sock_path[128];
static char sock_dir[64];
static int listen_fd = -1;

/* Remembers a FUNCTION_NAME (c->last) and checks its text: "M_<token>". */
static void conn_note_name(conn *c)
{
    wire_function_name f;
    char expect[32];
    uint16_t n;

    if (c->last_length < sizeof(f) + 2)
        return;
    memcpy(&f, c->last_payload, sizeof(f));
    memcpy(&n, c->last_payload + sizeof(f), 2);
    snprintf(expect, sizeof(expect), "M_%08x", (unsigned)FAKE_TOKEN(f.function_id));
    if (f.module_id == FAKE_MODULE &&
        (n != strlen(expect) || memcmp(c->last_payload + sizeof(f) + 2, expect, n) != 0 ||
         f.token != FAKE_TOKEN(f.function_id)))
        c->bad_names++;
    if (c->nnamed < sizeof(c->named) / sizeof(c->named[0]))
        c->named[c->nnamed++] = f.function_id;
}

int conn_was_named(const conn *c, uint64_t fid)
{
    unsigned i;

    for (i = 0; i < c->nnamed; i++)
        if (c->named[i] == fid)
            return 1;
    return 0;
}

int fakelink_listen(char *err, size_t size)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};

    if (listen_fd >= 0)
        return 0;
    snprintf(sock_dir, sizeof(sock_dir), "%s", "/tmp/jitscope-sbs-XXXXXX");
    if (!mkdtemp(sock_dir)) {
        snprintf(err, size, "mkdtemp: %s", strerror(errno));
        sock_dir[0] = '\0';
        return -1;
    }
    snprintf(sock_path, sizeof(sock_path), "%s/agent.sock", sock_dir);
    if (strlen(sock_path) >= sizeof(addr.sun_path)) {
        snprintf(err, size, "socket path does not fit: %s", sock_path);
        return -1;
    }
    memcpy(addr.sun_path, sock_path, strlen(sock_path) + 1);
    listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
        listen(listen_fd, 8) != 0) {
        snprintf(err, size, "listen on %s: %s", sock_path, strerror(errno));
        if (listen_fd >= 0)
            close(listen_fd);
        listen_fd = -1;
        return -1;
    }
    return 0;
}

void fakelink_close(void)
{
    if (listen_fd >= 0)
        close(listen_fd);
    listen_fd = -1;
    if (sock_path[0])
        unlink(sock_path);
    if (sock_dir[0])
        rmdir(sock_dir);
}

/* Reads exactly n bytes before the deadline. Returns 1, 0 on EOF before the
 * first byte, -1 on timeout, error or EOF in the middle. */
static int read_full(int fd, void *buf, size_t n, double deadline)
{
    size_t got = 0;

    while (got < n) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int left = (int)((deadline - now_s()) * 1000.0), r;
        ssize_t k;

        if (left < 0)
            left = 0; /* past the deadline: only what is already buffered */
        r = poll(&p, 1, left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        k = recv(fd, (char *)buf + got, n - got, 0);
        if (k < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            return got == 0 ? 0 : -1;
        got += (size_t)k;
    }
    return 1;
}

int conn_read(conn *c, int timeout_ms)
{
    double deadline = now_s() + timeout_ms / 1000.0;
    wire_frame_header h;
    int r = read_full(c->fd, &h, sizeof(h), deadline);

    if (r <= 0)
        return r;
    if (h.length > WIRE_MAX_PAYLOAD) {
        c->bad_length++;
        return -1;
    }
    if (h.length && read_full(c->fd, c->last_payload, h.length, deadline) != 1)
        return -1;
    if (h.seq != c->next_seq)
        c->seq_errors++;
    c->next_seq = h.seq + 1;
    c->frames++;
    c->last = h;
    c->last_length = h.length;
    if (h.type == WIRE_FUNCTION_NAME)
        conn_note_name(c);
    return 1;
}

int conn_wait_type(conn *c, uint16_t type, int timeout_ms)
{
    double deadline = now_s() + timeout_ms / 1000.0;

    for (;;) {
        int left = (int)((deadline - now_s()) * 1000.0), r;
        if (left <= 0)
            return -1;
        r = conn_read(c, left);
        if (r <= 0)
            return r;
        if (c->last.type == type)
            return 1;
    }
}

void conn_read_to_eof(conn *c, int timeout_ms, tail_info *t)
{
    double start = now_s(), deadline = start + timeout_ms / 1000.0;

    for (;;) {
        int left = (int)((deadline - now_s()) * 1000.0), r;
        r = conn_read(c, left > 0 ? left : 0);
        if (r == 0) {
            t->eof = 1;
            break;
        }
        if (r < 0)
            break;
        t->frames++;
        t->last_type = c->last.type;
        if (c->last.type == WIRE_DETACH_STATUS && c->last_length >= sizeof(wire_detach_status) &&
            t->statuses < 8) {
            wire_detach_status s;
            memcpy(&s, c->last_payload, sizeof(s));
            t->status_states[t->statuses] = s.state;
            t->status_hresults[t->statuses] = s.hresult;
            t->statuses++;
        }
        if (c->last.type == WIRE_PROFILE_STATUS && c->last_length >= 4 &&
            c->last_payload[0] == WIRE_PROFILE_STOPPED)
            t->profile_stopped++;
    }
    t->seconds += now_s() - start;
}

int send_command(int fd, uint16_t type, const void *payload, uint32_t length)
{
    uint8_t buf[sizeof(wire_frame_header) + 64];
    wire_frame_header h = {.type = type, .length = length};

    memcpy(buf, &h, sizeof(h));
    memcpy(buf + sizeof(h), payload, length);
    return send(fd, buf, sizeof(h) + length, MSG_NOSIGNAL) == (ssize_t)(sizeof(h) + length) ? 0
                                                                                            : -1;
}

int accept_agent(int timeout_ms)
{
    struct pollfd p = {.fd = listen_fd, .events = POLLIN};
    int r;

    do
        r = poll(&p, 1, timeout_ms);
    while (r < 0 && errno == EINTR);
    if (r <= 0)
        return -1;
    return accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
}

int ping(conn *c, uint64_t cookie, int timeout_ms)
{
    wire_cmd_ping cmd = {cookie};
    double deadline = now_s() + timeout_ms / 1000.0;

    if (send_command(c->fd, WIRE_CMD_PING, &cmd, sizeof(cmd)) != 0)
        return 0;
    while (now_s() < deadline) {
        wire_cmd_ping echo;
        int left = (int)((deadline - now_s()) * 1000.0);
        if (left <= 0 || conn_wait_type(c, WIRE_PONG, left) != 1)
            return 0;
        if (c->last_length < sizeof(echo))
            return 0;
        memcpy(&echo, c->last_payload, sizeof(echo));
        if (echo.cookie == cookie)
            return 1;
    }
    return 0;
}

int conn_accept(conn *c, int timeout_ms)
{
    memset(c, 0, sizeof(*c));
    c->next_seq = 1;
    c->fd = accept_agent(timeout_ms);
    return c->fd >= 0 && conn_read(c, 3000) == 1 ? 0 : -1;
}

static void snap_thread(conn *c, snap_read *s)
{
    wire_stack_thread t;
    uint32_t i;

    if (c->last_length < sizeof(t)) {
        s->bad_records++;
        return;
    }
    memcpy(&t, c->last_payload, sizeof(t));
    if (c->last_length != sizeof(t) + t.frame_count * sizeof(wire_stack_frame) ||
        t.frame_count > WIRE_STACK_MAX_FRAMES) {
        s->bad_records++;
        return;
    }
    if (s->nthreads && s->threads[0].snapshot_id != t.snapshot_id)
        s->nthreads = 0; /* another walk's records: start again */
    if (s->nthreads > FAKE_MAX_THREADS)
        return;
    s->threads[s->nthreads] = t;
    s->thread_time[s->nthreads] = c->last.time_ns;
    memcpy(s->frames[s->nthreads], c->last_payload + sizeof(t),
           t.frame_count * sizeof(wire_stack_frame));
    for (i = 0; i < t.frame_count; i++)
        if (s->frames[s->nthreads][i].function_id &&
            !conn_was_named(c, s->frames[s->nthreads][i].function_id))
            s->unnamed++;
    s->nthreads++;
}

int read_snapshot(conn *c, uint32_t kind, uint64_t request_id, snap_read *s, int timeout_ms)
{
    double deadline = now_s() + timeout_ms / 1000.0;

    memset(s, 0, sizeof(*s));
    for (;;) {
        int left = (int)((deadline - now_s()) * 1000.0);
        if (left <= 0 || conn_read(c, left) != 1)
            return -1;
        if (c->last.type == WIRE_STACK_THREAD) {
            snap_thread(c, s);
        } else if (c->last.type == WIRE_PROFILE_STATUS &&
                   c->last_length == sizeof(wire_profile_status)) {
            memcpy(&s->status, c->last_payload, sizeof(s->status));
            s->statuses++;
        } else if (c->last.type == WIRE_STACK_END && c->last_length == sizeof(s->end)) {
            memcpy(&s->end, c->last_payload, sizeof(s->end));
            s->end_time = c->last.time_ns;
            if (s->end.kind == kind &&
                (kind != WIRE_STACK_SNAPSHOT || s->end.request_id == request_id)) {
                if (s->nthreads && s->threads[0].snapshot_id != s->end.snapshot_id)
                    s->nthreads = 0;
                return 1;
            }
            s->nthreads = 0;
        }
    }
}

/* Waits for a PROFILE_STATUS of state (counting the samples read meanwhile):
 * 1, or -1 once timeout_ms passed. The callers give 30 s: a wait, not a
 * timing claim (a loaded machine can keep the fake runtime's walker off the
 * CPU for seconds). */
int read_status(conn *c, uint32_t state, wire_profile_status *out, unsigned *samples,
                int timeout_ms)
{
    double deadline = now_s() + timeout_ms / 1000.0;

    for (;;) {
        int left = (int)((deadline - now_s()) * 1000.0);
        if (left <= 0 || conn_read(c, left) != 1)
            return -1;
        if (c->last.type == WIRE_STACK_END && samples)
            (*samples)++;
        if (c->last.type == WIRE_PROFILE_STATUS && c->last_length == sizeof(*out)) {
            memcpy(out, c->last_payload, sizeof(*out));
            if (out->state == state)
                return 1;
        }
    }
}

int send_snapshot(conn *c, uint64_t request_id)
{
    wire_cmd_snapshot cmd = {request_id};
    return send_command(c->fd, WIRE_CMD_SNAPSHOT, &cmd, sizeof(cmd));
}

int send_profile(conn *c, uint32_t hz, uint32_t budget, uint32_t duration_ms)
{
    wire_cmd_profile_start cmd = {hz, budget, duration_ms, 0};
    return send_command(c->fd, WIRE_CMD_PROFILE_START, &cmd, sizeof(cmd));
}

int send_profile_stop(conn *c)
{
    wire_cmd_profile_stop cmd = {0};
    return send_command(c->fd, WIRE_CMD_PROFILE_STOP, &cmd, sizeof(cmd));
}
