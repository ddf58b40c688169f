/* ipc_io.c -- socket I/O with a deadline for the diagnostics IPC client (see ipc_io.h).
 *
 * Non-blocking Unix socket connect, send and receive, each bounded by one
 * absolute CLOCK_MONOTONIC deadline so that a stopped or hostile runtime can
 * never make a call wait forever; and the error text helpers the whole IPC
 * client (ipc.c, ipc_discover.c) uses. Knows nothing of the message format.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* GNU strerror_r */
#endif
#include "ipc_io.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

_Static_assert(sizeof(((struct sockaddr_un *)0)->sun_path) == IPC_PATH_MAX, "sun_path size");

/* ---- error text ----------------------------------------------------------- */

void ipc_set_err(char *err, size_t errsz, const char *fmt, ...)
{
    va_list ap;
    if (err == NULL || errsz == 0)
        return;
    va_start(ap, fmt);
    if (vsnprintf(err, errsz, fmt, ap) < 0)
        err[0] = '\0';
    va_end(ap);
}

/* Thread-safe strerror (GNU or XSI strerror_r). */
const char *ipc_err_text(int e, char *buf, size_t n)
{
#if defined(_GNU_SOURCE)
    return strerror_r(e, buf, n);
#else
    if (strerror_r(e, buf, n) != 0)
        snprintf(buf, n, "errno %d", e);
    return buf;
#endif
}

/* ---- socket I/O with a deadline ---------------------------------------------- */

void ipc_deadline_after(struct timespec *dl, uint64_t ms)
{
    clock_gettime(CLOCK_MONOTONIC, dl);
    dl->tv_sec += (time_t)(ms / 1000u);
    dl->tv_nsec += (long)(ms % 1000u) * 1000000L;
    if (dl->tv_nsec >= 1000000000L) {
        dl->tv_sec++;
        dl->tv_nsec -= 1000000000L;
    }
}

/* Milliseconds left before dl (0 when passed), capped to fit poll(). */
static int ms_left(const struct timespec *dl)
{
    struct timespec now;
    int64_t ms;
    clock_gettime(CLOCK_MONOTONIC, &now);
    ms = (int64_t)(dl->tv_sec - now.tv_sec) * 1000 + (dl->tv_nsec - now.tv_nsec) / 1000000;
    if (ms <= 0)
        return 0;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* Waits for `events` on fd until dl. IPC_OK, IPC_ERR_TIMEOUT or IPC_ERR_IO. */
static int wait_fd(int fd, short events, const struct timespec *dl, const char *what, char *err,
                   size_t errsz)
{
    char ebuf[128];
    for (;;) {
        struct pollfd pfd;
        int left = ms_left(dl), r;
        if (left == 0) {
            ipc_set_err(err, errsz, "%s: timed out", what);
            return IPC_ERR_TIMEOUT;
        }
        pfd.fd = fd;
        pfd.events = events;
        pfd.revents = 0;
        r = poll(&pfd, 1, left);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            ipc_set_err(err, errsz, "poll(%s): %s", what, ipc_err_text(errno, ebuf, sizeof(ebuf)));
            return IPC_ERR_IO;
        }
        if (r > 0)
            return IPC_OK; /* readiness or error: the next call reports which */
    }
}

int ipc_connect_deadline(const char *path, const struct timespec *dl, int *fd_out, char *err,
                         size_t errsz)
{
    struct sockaddr_un addr;
    char ebuf[128];
    size_t plen = strlen(path);
    int fd, rc;

    *fd_out = -1;
    if (plen >= sizeof(addr.sun_path)) {
        ipc_set_err(err, errsz, "socket path too long: %s", path);
        return IPC_ERR_INVAL;
    }
    memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path, path, plen + 1);

    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        ipc_set_err(err, errsz, "socket(AF_UNIX): %s", ipc_err_text(errno, ebuf, sizeof(ebuf)));
        return IPC_ERR_IO;
    }
    for (;;) {
        int e;
        if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
            break;
        e = errno;
        if (e == EINTR)
            continue;
        if (e == EAGAIN) {
            /* Listen backlog full: the runtime's server thread is busy. Retry. */
            struct timespec pause = {0, 10 * 1000 * 1000};
            if (ms_left(dl) == 0) {
                ipc_set_err(err, errsz, "connect(%s): backlog full until the deadline", path);
                rc = IPC_ERR_TIMEOUT;
                goto fail;
            }
            nanosleep(&pause, NULL);
            continue;
        }
        if (e == EINPROGRESS) {
            int soerr = 0;
            socklen_t sl = sizeof(soerr);
            rc = wait_fd(fd, POLLOUT, dl, "connect", err, errsz);
            if (rc != IPC_OK)
                goto fail;
            if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0)
                soerr = errno;
            if (soerr == 0)
                break;
            e = soerr;
        }
        ipc_set_err(err, errsz, "connect(%s): %s", path, ipc_err_text(e, ebuf, sizeof(ebuf)));
        if (e == EACCES || e == EPERM)
            rc = IPC_ERR_PERM;
        else if (e == ECONNREFUSED || e == ENOENT)
            rc = IPC_ERR_NOTDOTNET; /* stale socket: nobody listens any more */
        else
            rc = IPC_ERR_IO;
        goto fail;
    }
    *fd_out = fd;
    return IPC_OK;

fail:
    close(fd);
    return rc;
}

int ipc_send_all(int fd, const uint8_t *p, size_t n, const struct timespec *dl, char *err,
                 size_t errsz)
{
    char ebuf[128];
    size_t done = 0;
    while (done < n) {
        ssize_t r = send(fd, p + done, n - done, MSG_NOSIGNAL);
        if (r > 0) {
            done += (size_t)r;
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int rc = wait_fd(fd, POLLOUT, dl, "send", err, errsz);
            if (rc != IPC_OK)
                return rc;
            continue;
        }
        ipc_set_err(err, errsz, "send: %s (after %zu of %zu bytes)",
                    r < 0 ? ipc_err_text(errno, ebuf, sizeof(ebuf)) : "no progress", done, n);
        return IPC_ERR_IO;
    }
    return IPC_OK;
}

int ipc_recv_exact(int fd, uint8_t *p, size_t n, const struct timespec *dl, const char *what,
                   char *err, size_t errsz)
{
    char ebuf[128];
    size_t done = 0;
    while (done < n) {
        ssize_t r = recv(fd, p + done, n - done, 0);
        if (r > 0) {
            done += (size_t)r;
            continue;
        }
        if (r == 0) {
            ipc_set_err(err, errsz,
                        "recv(%s): the runtime closed the connection after %zu of %zu bytes", what,
                        done, n);
            return IPC_ERR_IO;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            int rc = wait_fd(fd, POLLIN, dl, what, err, errsz);
            if (rc != IPC_OK)
                return rc;
            continue;
        }
        ipc_set_err(err, errsz, "recv(%s): %s", what, ipc_err_text(errno, ebuf, sizeof(ebuf)));
        return IPC_ERR_IO;
    }
    return IPC_OK;
}
