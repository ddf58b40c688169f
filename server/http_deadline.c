/* http_deadline.c -- closes HTTP connections that trickle their request, and
 * the oldest untrusted ones when too many are open (see http_deadline.h). */
#include "http_deadline.h"
#include "clock.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/tcp.h> /* struct tcp_info with tcpi_bytes_received (glibc's is older) */
#include <sys/socket.h>
#include <time.h>

#define HTTP_SWEEP_MS 500

typedef struct deadline_conn {
    int fd;
    int shut;             /* shutdown() done, waiting for libmicrohttpd to close it */
    int trusted;          /* a whole request with the key (any, without a key) came */
    int begun;            /* the request line of the awaited request came */
    uint64_t bytes_mark;  /* TCP bytes received when the awaited request's clock started */
    uint64_t deadline_ns; /* 0: a request is being answered, no deadline */
    struct deadline_conn *prev, *next;
} deadline_conn;

/* The registry, oldest connection first; every field under deadline_mutex. */
static pthread_mutex_t deadline_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t deadline_cond;
static deadline_conn *deadline_head, *deadline_tail;
static unsigned deadline_untrusted; /* registered, neither trusted nor shut down */
static pthread_t deadline_thread;
static int deadline_running, deadline_stopping;
static int deadline_tls; /* bytes received say nothing then: a TLS handshake is bytes too */
static unsigned long deadline_closed_count, deadline_idle_count, deadline_evicted_count;
static unsigned deadline_evicted_unlogged;

static uint64_t deadline_from_now(void)
{
    return clock_mono_ns() + (uint64_t)HTTP_REQUEST_SECONDS * 1000000000ull;
}

/* Bytes the kernel has received on a TCP socket since it was accepted; 0 when
 * it cannot say (then a connection counts as idle unless its request line came). */
static uint64_t deadline_bytes_received(int fd)
{
    struct tcp_info info;
    socklen_t length = sizeof(info);

    memset(&info, 0, sizeof(info));
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0 ||
        length < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(info.tcpi_bytes_received))
        return 0;
    return info.tcpi_bytes_received;
}

/* A connection past its deadline had begun its request (its request line
 * came, or bytes came since its clock started) rather than sent nothing: a
 * browser opens sockets ahead of need and keeps answered ones open, and those
 * are closed without a word. */
static int deadline_begun(const deadline_conn *d)
{
    return d->begun || (!deadline_tls && deadline_bytes_received(d->fd) > d->bytes_mark);
}

static deadline_conn *deadline_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(
        c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/* Shuts a connection's socket down; libmicrohttpd sees the end of the stream
 * and closes it. The fd is still this connection's: it leaves the registry
 * (under the lock held here) before libmicrohttpd closes it. */
static void deadline_shut(deadline_conn *d)
{
    if (shutdown(d->fd, SHUT_RDWR) != 0 && errno != ENOTCONN)
        fprintf(stderr, "jitscope: shutdown of an HTTP connection: %s\n", strerror(errno));
    d->shut = 1;
    if (!d->trusted)
        deadline_untrusted--;
}

/* Over HTTP_MAX_UNTRUSTED: the oldest untrusted connection goes (not `newest`,
 * which has only just arrived). A real client shows its key (or sends its
 * request) within milliseconds of connecting, so only a flood of more than
 * HTTP_MAX_UNTRUSTED newer connections can push it out. */
static void deadline_evict(const deadline_conn *newest)
{
    deadline_conn *d;

    for (d = deadline_head; d && deadline_untrusted > HTTP_MAX_UNTRUSTED; d = d->next) {
        if (d->trusted || d->shut || d == newest)
            continue;
        deadline_shut(d);
        deadline_evicted_count++;
        if (deadline_evicted_unlogged++ == 0)
            pthread_cond_signal(&deadline_cond); /* the sweeper logs it */
    }
}

void http_deadline_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    deadline_conn *d = *socket_context;

    (void)cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(
            c, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (!info || !(d = calloc(1, sizeof(*d))))
            return; /* not watched: the idle timeout still applies */
        d->fd = info->connect_fd;
        d->deadline_ns = deadline_from_now();
        pthread_mutex_lock(&deadline_mutex);
        d->prev = deadline_tail;
        if (deadline_tail)
            deadline_tail->next = d;
        else
            deadline_head = d;
        deadline_tail = d;
        deadline_untrusted++;
        deadline_evict(d);
        pthread_mutex_unlock(&deadline_mutex);
        *socket_context = d;
        return;
    }
    if (!d) /* MHD_CONNECTION_NOTIFY_CLOSED: called before the fd is closed */
        return;
    pthread_mutex_lock(&deadline_mutex);
    if (d->prev)
        d->prev->next = d->next;
    else
        deadline_head = d->next;
    if (d->next)
        d->next->prev = d->prev;
    else
        deadline_tail = d->prev;
    if (!d->trusted && !d->shut)
        deadline_untrusted--;
    pthread_mutex_unlock(&deadline_mutex);
    free(d);
    *socket_context = NULL;
}

void http_deadline_request_in(struct MHD_Connection *c, int trusted)
{
    deadline_conn *d = deadline_of(c);

    if (!d)
        return;
    pthread_mutex_lock(&deadline_mutex);
    d->deadline_ns = 0;
    if (trusted && !d->trusted && !d->shut) {
        d->trusted = 1;
        deadline_untrusted--;
    }
    pthread_mutex_unlock(&deadline_mutex);
}

void *http_deadline_request_line(void *cls, const char *uri, struct MHD_Connection *c)
{
    deadline_conn *d = deadline_of(c);

    (void)cls, (void)uri;
    if (d) {
        pthread_mutex_lock(&deadline_mutex);
        d->begun = 1;
        pthread_mutex_unlock(&deadline_mutex);
    }
    return NULL; /* the access handler's first call still sees NULL */
}

void http_deadline_response_out(struct MHD_Connection *c)
{
    deadline_conn *d = deadline_of(c);
    uint64_t mark;

    if (!d)
        return;
    mark = deadline_tls ? 0 : deadline_bytes_received(d->fd);
    pthread_mutex_lock(&deadline_mutex);
    d->deadline_ns = deadline_from_now();
    d->begun = 0;
    d->bytes_mark = mark;
    pthread_mutex_unlock(&deadline_mutex);
}

void http_deadline_closed(unsigned long counts[HTTP_CLOSED_KINDS])
{
    pthread_mutex_lock(&deadline_mutex);
    counts[HTTP_CLOSED_IDLE] = deadline_idle_count;
    counts[HTTP_CLOSED_INCOMPLETE] = deadline_closed_count;
    counts[HTTP_CLOSED_UNTRUSTED] = deadline_evicted_count;
    pthread_mutex_unlock(&deadline_mutex);
}

static void *deadline_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&deadline_mutex);
    while (!deadline_stopping) {
        struct timespec until;
        uint64_t now = clock_mono_ns();
        unsigned closed = 0;
        deadline_conn *d;

        for (d = deadline_head; d; d = d->next) {
            if (d->shut || !d->deadline_ns || now < d->deadline_ns)
                continue;
            if (deadline_begun(d))
                closed++;
            else
                deadline_idle_count++; /* ordinary: said nowhere but /metrics */
            deadline_shut(d);
        }
        if (closed) {
            deadline_closed_count += closed;
            fprintf(stderr,
                    "jitscope: closed %u HTTP connection(s) whose request was still incomplete "
                    "%d s after it began (a slow or stalled client)\n",
                    closed, HTTP_REQUEST_SECONDS);
        }
        if (deadline_evicted_unlogged) {
            fprintf(stderr,
                    "jitscope: closed %u HTTP connection(s) that had not shown the API key (or, "
                    "without one, sent a whole request): over %d such were open\n",
                    deadline_evicted_unlogged, HTTP_MAX_UNTRUSTED);
            deadline_evicted_unlogged = 0;
        }
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += HTTP_SWEEP_MS * 1000000l;
        until.tv_sec += until.tv_nsec / 1000000000l;
        until.tv_nsec %= 1000000000l;
        pthread_cond_timedwait(&deadline_cond, &deadline_mutex, &until);
    }
    pthread_mutex_unlock(&deadline_mutex);
    return NULL;
}

int http_deadline_start(int tls, char *err, size_t errsz)
{
    pthread_condattr_t attr;
    int rc;

    if (pthread_condattr_init(&attr) != 0 ||
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) != 0 ||
        pthread_cond_init(&deadline_cond, &attr) != 0) {
        snprintf(err, errsz, "cannot set up the HTTP request deadline's condition variable");
        return -1;
    }
    pthread_condattr_destroy(&attr);
    deadline_stopping = 0;
    deadline_tls = tls;
    rc = pthread_create(&deadline_thread, NULL, deadline_main, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&deadline_cond);
        snprintf(err, errsz, "pthread_create: HTTP deadline thread: %s", strerror(rc));
        return -1;
    }
    deadline_running = 1;
    return 0;
}

/* Called after MHD_stop_daemon: every connection is gone by then. */
void http_deadline_stop(void)
{
    if (!deadline_running)
        return;
    pthread_mutex_lock(&deadline_mutex);
    deadline_stopping = 1;
    pthread_cond_signal(&deadline_cond);
    pthread_mutex_unlock(&deadline_mutex);
    pthread_join(deadline_thread, NULL);
    pthread_cond_destroy(&deadline_cond);
    deadline_running = 0;
}
