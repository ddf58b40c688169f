/* ipc_io.h -- socket I/O with a deadline, shared inside the IPC client.
 *
 * Used by ipc.c to put one request and its reply on a fresh connection to a
 * runtime's diagnostics socket (found by ipc_discover.c). Every call takes an
 * absolute deadline (CLOCK_MONOTONIC, from ipc_deadline_after) and returns
 * IPC_OK or an IPC_ERR_* code (ipc_types.h) with a message in err. The error text
 * helpers are used by ipc_discover.c and ipc.c too.
 */
#ifndef JITSCOPE_IPC_IO_H
#define JITSCOPE_IPC_IO_H

#include "ipc_types.h"

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Formats a message into err (size errsz); does nothing when err is NULL. */
void ipc_set_err(char *err, size_t errsz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Thread-safe strerror (GNU or XSI strerror_r): text for errno e. */
const char *ipc_err_text(int e, char *buf, size_t n);

/* Sets dl to ms milliseconds from now (CLOCK_MONOTONIC). */
void ipc_deadline_after(struct timespec *dl, uint64_t ms);

/* Connects a non-blocking Unix stream socket to path before dl; *fd_out is the
 * socket on IPC_OK. IPC_ERR_PERM, IPC_ERR_NOTDOTNET (nobody listens),
 * IPC_ERR_TIMEOUT, IPC_ERR_INVAL (path too long) or IPC_ERR_IO. */
int ipc_connect_deadline(const char *path, const struct timespec *dl, int *fd_out, char *err,
                         size_t errsz);

/* Sends all n bytes before dl. IPC_OK, IPC_ERR_TIMEOUT or IPC_ERR_IO. */
int ipc_send_all(int fd, const uint8_t *p, size_t n, const struct timespec *dl, char *err,
                 size_t errsz);

/* Receives exactly n bytes before dl (`what` names them in messages). IPC_OK,
 * IPC_ERR_TIMEOUT or IPC_ERR_IO (also when the peer hangs up early). */
int ipc_recv_exact(int fd, uint8_t *p, size_t n, const struct timespec *dl, const char *what,
                   char *err, size_t errsz);

#endif
