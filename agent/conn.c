/* conn.c -- the agent's connection to the server and its bounded buffers.
 *
 * Owned by the sender thread (conn.h): a non-blocking Unix socket, an output
 * buffer of CONN_OUT_BYTES and an input buffer of CONN_IN_BYTES for commands.
 * A ring record is a frame encoded once, on the app's thread (emit.c): it is
 * copied once into the output buffer and its sequence number stamped there
 * (conn_forward); the sender's own records are encoded straight into the
 * output buffer (conn_emit). The socket is written with MSG_DONTWAIT; only a
 * full buffer, a detach or Shutdown waits, and never longer than
 * CONN_FLUSH_WAIT_MS, so a server that stops reading cannot hold the agent.
 * It knows nothing above it: what a lost connection means (a profile the
 * server asked for stops) is the sender's to decide.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "conn.h"
#include "agent.h"
#include "clock.h"
#include "wire_encode.h"

static int conn_socket = -1;
static uint8_t conn_out[CONN_OUT_BYTES];
static size_t conn_out_used;
static uint8_t conn_in[CONN_IN_BYTES];
static size_t conn_in_used;
static uint64_t conn_seq;
static int conn_stalled;       /* a whole wait moved no byte; no waiting until one moves */
static uint64_t conn_deadline; /* CLOCK_MONOTONIC ns; waits end there (0: none) */
static void (*conn_wait_hook)(void);

void conn_set_deadline(uint64_t deadline_ns) { conn_deadline = deadline_ns; }

void conn_set_wait_hook(void (*hook)(void)) { conn_wait_hook = hook; }

/* The server at the other end runs as this process's user: another user
 * who took the socket's path gets no record of this app. */
static int conn_peer_is_ours(int fd)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);

    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && len == sizeof(cred) &&
           cred.uid == getuid();
}

int conn_open(void)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    int fd;

    memcpy(addr.sun_path, agent.socket_path, sizeof(addr.sun_path));
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 || !conn_peer_is_ours(fd)) {
        close(fd);
        return -1;
    }
    conn_socket = fd;
    conn_seq = 0;
    conn_stalled = 0;
    return 0;
}

void conn_close(void)
{
    if (conn_socket >= 0)
        close(conn_socket);
    conn_socket = -1;
    conn_out_used = 0;
    conn_in_used = 0;
}

int conn_connected(void) { return conn_socket >= 0; }

int conn_fd(void) { return conn_socket; }

/* May this flush still wait, `waited` ms into it? */
static int conn_may_wait(int wait, int waited)
{
    if (!wait)
        return 0;
    if (conn_deadline) /* Shutdown or detach: their own budget, even for a stalled server */
        return clock_mono_ns() < conn_deadline;
    if (conn_stalled || waited >= CONN_FLUSH_WAIT_MS)
        return 0;
    return !atomic_load(&agent.stopping); /* Shutdown began: only its own bounded flush waits */
}

int conn_flush(int wait)
{
    size_t off = 0;
    int waited = 0;

    while (off < conn_out_used && conn_socket >= 0) {
        ssize_t n = send(conn_socket, conn_out + off, conn_out_used - off,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            off += (size_t)n;
            conn_stalled = 0;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && conn_may_wait(wait, waited)) {
            struct pollfd p = {.fd = conn_socket, .events = POLLOUT};
            poll(&p, 1, 10);
            waited += 10;
            if (conn_wait_hook)
                conn_wait_hook();
            if (!conn_may_wait(wait, waited) && off == 0)
                conn_stalled = 1; /* the whole wait moved nothing */
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            break;
        conn_close();
        return -1;
    }
    memmove(conn_out, conn_out + off, conn_out_used - off);
    conn_out_used -= off;
    return 0;
}

/* Room for `need` bytes in the output buffer, flushing (with waiting) if needed. */
static int conn_room(size_t need)
{
    if (CONN_OUT_BYTES - conn_out_used >= need)
        return 0;
    if (conn_flush(1) != 0)
        return -1;
    return CONN_OUT_BYTES - conn_out_used >= need ? 0 : -1;
}

/* Room for a frame of at most `need` bytes. keep: when there is none, nothing
 * is used (CONN_NO_ROOM: the caller keeps the record); else the record is
 * dropped, counted, and its sequence number used (-1). Returns 0 when there is
 * room, -1 when not connected. */
static int conn_make_room(int keep, size_t need)
{
    if (conn_socket < 0)
        return -1;
    if (conn_room(need) == 0)
        return 0;
    if (conn_socket < 0)
        return -1;
    if (keep)
        return CONN_NO_ROOM;
    ++conn_seq; /* used all the same: the server sees the gap where it was */
    atomic_fetch_add_explicit(&agent.slow_server_drops, 1, memory_order_relaxed);
    return -1;
}

/* Frames one record into the output buffer with the next sequence number. */
static int conn_put(int keep, uint16_t type, uint16_t flags, uint64_t time_ns, const void *fixed,
                    uint32_t fixed_length, const char *s1, size_t n1, const char *s2, size_t n2)
{
    wire_frame_header h = {.type = type, .flags = flags, .time_ns = time_ns};
    wire_text strings[2] = {{.utf8 = s1, .length = n1}, {.utf8 = s2, .length = n2}};
    unsigned count = s2 ? 2 : s1 ? 1 : 0;
    int rc = conn_make_room(keep, wire_encode_bound(fixed_length, 0, strings, count));

    if (rc != 0)
        return rc;
    h.seq = ++conn_seq;
    conn_out_used += wire_encode(conn_out + conn_out_used, &h, fixed, fixed_length, NULL, 0,
                                 strings, count);
    return 0;
}

int conn_forward(const uint8_t *frame)
{
    wire_frame_header h;
    size_t size;
    int rc;

    memcpy(&h, frame, sizeof(h));
    size = sizeof(h) + (size_t)h.length;
    rc = conn_make_room(1, size);
    if (rc != 0)
        return rc;
    memcpy(conn_out + conn_out_used, frame, size);
    wire_stamp_seq(conn_out + conn_out_used, ++conn_seq);
    conn_out_used += size;
    return 0;
}

int conn_emit(uint16_t type, uint16_t flags, uint64_t time_ns, const void *fixed,
              uint32_t fixed_length, const char *s1, size_t n1, const char *s2, size_t n2)
{
    return conn_put(0, type, flags, time_ns, fixed, fixed_length, s1, n1, s2, n2);
}

int conn_emit_or_keep(uint16_t type, uint16_t flags, uint64_t time_ns, const void *fixed,
                      uint32_t fixed_length, const char *s1, size_t n1, const char *s2, size_t n2)
{
    return conn_put(1, type, flags, time_ns, fixed, fixed_length, s1, n1, s2, n2);
}

int conn_receive(void)
{
    ssize_t n = recv(conn_socket, conn_in + conn_in_used, sizeof(conn_in) - conn_in_used,
                     MSG_DONTWAIT);

    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        conn_close();
        return -1;
    }
    if (n > 0)
        conn_in_used += (size_t)n;
    return 0;
}

const uint8_t *conn_input(size_t *length)
{
    *length = conn_in_used;
    return conn_in;
}

void conn_consume(size_t n)
{
    memmove(conn_in, conn_in + n, conn_in_used - n);
    conn_in_used -= n;
}
