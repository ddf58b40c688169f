/* diagport.c -- the diagnostic port's socket and its acceptor thread (see
 * diagport.h; the runtimes' records are dpconn.h's, their workers dpwork.h's). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "diagport.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "agentplace.h"
#include "clock.h"
#include "dpconn.h"
#include "dpwork.h"
#include "sessions.h"

#define DP_PENDING_MAX 64    /* connections whose advertise is still to come */
#define DP_ADVERTISE_MS 2000 /* a connection must advertise within this */
#define DP_STOP_WAIT_MS 5000 /* at stop: longest wait for the runtimes connected by then */

typedef struct dp_pending {
    int fd;
    size_t got;
    uint8_t buf[IPC_ADVERTISE_SIZE];
    int64_t accepted_ns;
    pid_t pid;
    uid_t uid;
} dp_pending;

static int dp_listen_fd = -1;
static int dp_wake_pipe[2] = {-1, -1};
static pthread_t dp_thread;
static int dp_started, dp_draining;
static dp_pending dp_pending_conns[DP_PENDING_MAX];
static int dp_npending;
static agentplace_paths dp_place; /* pinned while the port is open */

int diagport_enabled(void) { return dp_started; }

static void dp_wake(void)
{
    ssize_t w = write(dp_wake_pipe[1], "w", 1);
    (void)w;
}

/* Splits "PATH[=APPPATH]" into dp_cfg. 0, or -1 with err. */
static int dp_parse(const char *spec, char *err, size_t errsz)
{
    const char *eq = strchr(spec, '=');
    size_t n = eq ? (size_t)(eq - spec) : strlen(spec);
    char *slash;

    if (n == 0 || spec[0] != '/' || (eq && eq[1] != '/')) {
        snprintf(err, errsz,
                 "--diagnostic-port wants an absolute PATH, or PATH=APPPATH (both "
                 "absolute), not '%s'",
                 spec);
        return -1;
    }
    if (n >= sizeof(dp_cfg.host_path) || (eq && strlen(eq + 1) >= sizeof(dp_cfg.app_path))) {
        snprintf(err, errsz, "--diagnostic-port: a socket path has %zu bytes at most",
                 sizeof(dp_cfg.host_path) - 1);
        return -1;
    }
    memcpy(dp_cfg.host_path, spec, n);
    dp_cfg.host_path[n] = '\0';
    snprintf(dp_cfg.app_path, sizeof(dp_cfg.app_path), "%s", eq ? eq + 1 : dp_cfg.host_path);
    snprintf(dp_cfg.host_dir, sizeof(dp_cfg.host_dir), "%s", dp_cfg.host_path);
    snprintf(dp_cfg.app_dir, sizeof(dp_cfg.app_dir), "%s", dp_cfg.app_path);
    if ((slash = strrchr(dp_cfg.host_dir, '/')))
        slash[slash == dp_cfg.host_dir] = '\0';
    if ((slash = strrchr(dp_cfg.app_dir, '/')))
        slash[slash == dp_cfg.app_dir] = '\0';
    return 0;
}

typedef struct dp_bind_job {
    struct sockaddr_un addr;
    int fd, err;
} dp_bind_job;

/* Binds and listens, as the owner of the port's directory when that is not
 * the server's user (a thread of its own whose effective ids change: Linux
 * keeps them per thread): the socket is that user's, who may then connect. */
static void *dp_bind_thread(void *arg)
{
    dp_bind_job *job = arg;

    if (dp_cfg.trusted_uid != geteuid() &&
        (syscall(SYS_setresgid, -1, dp_cfg.trusted_gid, -1) != 0 ||
         syscall(SYS_setresuid, -1, dp_cfg.trusted_uid, -1) != 0)) {
        job->err = errno;
        return NULL;
    }
    job->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (job->fd < 0 || bind(job->fd, (struct sockaddr *)&job->addr, sizeof(job->addr)) != 0 ||
        listen(job->fd, 256) != 0) {
        job->err = errno;
        if (job->fd >= 0)
            close(job->fd);
        job->fd = -1;
    }
    return NULL;
}

/* The socket at dp_cfg.host_path: a stale one (its server died) replaced. */
static int dp_listen(char *err, size_t errsz)
{
    dp_bind_job job = {.addr = {.sun_family = AF_UNIX}, .fd = -1};
    struct stat st;
    pthread_t thread;

    memcpy(job.addr.sun_path, dp_cfg.host_path, strlen(dp_cfg.host_path) + 1);
    if (lstat(dp_cfg.host_path, &st) == 0) {
        int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), served;
        if (!S_ISSOCK(st.st_mode)) {
            snprintf(err, errsz, "%s is there and is not a socket", dp_cfg.host_path);
            if (probe >= 0)
                close(probe);
            return -1;
        }
        served = probe >= 0 && connect(probe, (struct sockaddr *)&job.addr, sizeof(job.addr)) == 0;
        if (probe >= 0)
            close(probe);
        if (served) {
            snprintf(err, errsz, "%s is served by another process (another jitscope server?)",
                     dp_cfg.host_path);
            return -1;
        }
        unlink(dp_cfg.host_path); /* left by a server that died */
    }
    if (pthread_create(&thread, NULL, dp_bind_thread, &job) != 0) {
        snprintf(err, errsz, "cannot start a thread");
        return -1;
    }
    pthread_join(thread, NULL);
    if (dp_cfg.trusted_uid != geteuid())
        prctl(PR_SET_DUMPABLE, 1); /* a thread's ids changed: the process is dumpable again */
    if (job.fd < 0) {
        snprintf(err, errsz, "cannot listen on %s: %s", dp_cfg.host_path, strerror(job.err));
        return -1;
    }
    return job.fd;
}

/* Takes one connection off the backlog into the pending list (its advertise
 * is read as it comes). 0, or -1 when the backlog is empty. */
static int dp_accept(void)
{
    struct ucred cred = {0};
    socklen_t len = sizeof(cred);
    int fd = accept4(dp_listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK), i, oldest = 0;

    if (fd < 0)
        return errno == EINTR || errno == ECONNABORTED ? 0 : -1;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
        cred.uid = (uid_t)-1;
    if (dp_npending == DP_PENDING_MAX) { /* the oldest silent one makes room */
        for (i = 1; i < dp_npending; i++)
            if (dp_pending_conns[i].accepted_ns < dp_pending_conns[oldest].accepted_ns)
                oldest = i;
        close(dp_pending_conns[oldest].fd);
        dp_pending_conns[oldest] = dp_pending_conns[--dp_npending];
    }
    dp_pending_conns[dp_npending++] = (dp_pending){
        .fd = fd, .accepted_ns = (int64_t)clock_mono_ns(), .pid = cred.pid, .uid = cred.uid};
    return 0;
}

/* An advertised connection to its runtime: queued for its worker, held when
 * its worker is done, or a new runtime's first (its worker started). */
static void dp_route(const dp_pending *p, const ipc_advertise *adv)
{
    pthread_attr_t attr;
    pthread_t worker;
    dp_runtime *r;

    dpconn_lock();
    r = dpconn_find(adv->cookie);
    if (r && r->worker) {
        if (dpconn_queue(r, p->fd, p->accepted_ns) != 0)
            close(p->fd);
    } else if (r) { /* it connected again while done: hold this one */
        if (r->held >= 0)
            close(r->held);
        r->held = p->fd;
        r->gone = 0;
    } else if ((r = dpconn_add(adv->cookie))) {
        r->pid_inside = adv->pid;
        r->pid = p->pid;
        r->uid = p->uid;
        r->first_ns = p->accepted_ns;
        r->worker = 1;
        dpconn_queue(r, p->fd, p->accepted_ns);
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&worker, &attr, dpwork_main, r) != 0) {
            r->worker = 0;
            r->queued = 0;
            close(p->fd);
            fprintf(stderr, "jitscope: diagnostic port: cannot start a thread for a runtime\n");
        }
        pthread_attr_destroy(&attr);
    } else {
        close(p->fd);
        fprintf(stderr,
                "jitscope: diagnostic port: more than %d runtimes at once; one is not "
                "taken\n",
                DP_RUNTIMES_MAX);
    }
    dpconn_unlock();
}

/* Reads what pending connection i sent; routes it once its advertise is
 * whole. 1 when it left the list (slot i holds another now). */
static int dp_read_pending(int i)
{
    dp_pending *p = &dp_pending_conns[i];
    ipc_advertise adv;
    ssize_t n = read(p->fd, p->buf + p->got, sizeof(p->buf) - p->got);

    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (n > 0)
        p->got += (size_t)n;
    if (n > 0 && p->got < sizeof(p->buf))
        return 0;
    if (n > 0 && ipc_parse_advertise(p->buf, p->got, &adv) == IPC_OK)
        dp_route(p, &adv);
    else
        close(p->fd); /* not a runtime's advertise, or gone before it */
    dp_pending_conns[i] = dp_pending_conns[--dp_npending];
    return 1;
}

/* The held connection of runtime r ended: its process did (or it dropped
 * the connection). A session whose process the server cannot see ends now,
 * unless its agent is still connected. Takes the locks. */
static void dp_held_ended(int runtime_id)
{
    int session_id = 0, hidden = 0;
    size_t i;

    dpconn_lock();
    for (i = 0; i < DP_RUNTIMES_MAX; i++) {
        dp_runtime *r = dpconn_at(i);
        if (r && r->id == runtime_id && r->held >= 0) {
            close(r->held);
            r->held = -1;
            r->gone = 1;
            session_id = r->session_id;
            hidden = r->pid <= 0;
        }
    }
    dpconn_signal();
    dpconn_unlock();
    if (session_id && hidden) {
        session *s;
        sessions_lock();
        s = sessions_get(session_id);
        if (s && !s->link_id && !s->ended_ns && s->pid_hidden)
            session_exited(s, (int64_t)clock_real_ns());
        sessions_unlock();
        sessions_notify(session_id);
    }
}

/* Sessions of hidden processes whose runtime's connection ended before their
 * agent's did: they end once the agent's is gone too (every 500 ms). */
static void dp_end_hidden(void)
{
    int ids[DP_RUNTIMES_MAX], n = 0, k;
    size_t i;

    dpconn_lock();
    for (i = 0; i < DP_RUNTIMES_MAX; i++) {
        dp_runtime *r = dpconn_at(i);
        if (r && r->gone && r->session_id && r->pid <= 0)
            ids[n++] = r->session_id;
    }
    dpconn_unlock();
    sessions_lock();
    for (k = 0; k < n; k++) {
        session *s = sessions_get(ids[k]);
        if (s && !s->link_id && !s->ended_ns && s->pid_hidden && s->state == SESSION_DISCONNECTED)
            session_exited(s, (int64_t)clock_real_ns());
    }
    sessions_unlock();
}

/* 1 once a draining acceptor may end: nothing waits in the backlog or for
 * its advertise, and no worker runs. */
static int dp_drained(void)
{
    size_t i;
    int busy = dp_npending > 0;

    dpconn_lock();
    for (i = 0; i < DP_RUNTIMES_MAX && !busy; i++)
        busy = dpconn_at(i) && dpconn_at(i)->worker;
    dpconn_unlock();
    return !busy;
}

static void *dp_main(void *arg)
{
    int64_t last_sweep = 0, drain_deadline = 0;

    (void)arg;
    pthread_setname_np(pthread_self(), "jitscope-port");
    for (;;) {
        struct pollfd fds[2 + DP_PENDING_MAX + DP_RUNTIMES_MAX];
        int held_ids[DP_RUNTIMES_MAX], nheld = 0, n = 2, i, accepted = 0, polled = dp_npending;
        int64_t now = (int64_t)clock_mono_ns();
        char sink[64];

        fds[0] = (struct pollfd){.fd = dp_wake_pipe[0], .events = POLLIN};
        fds[1] = (struct pollfd){.fd = dp_listen_fd, .events = POLLIN};
        for (i = 0; i < dp_npending; i++)
            fds[n++] = (struct pollfd){.fd = dp_pending_conns[i].fd, .events = POLLIN};
        dpconn_lock();
        for (i = 0; i < DP_RUNTIMES_MAX; i++) {
            dp_runtime *r = dpconn_at((size_t)i);
            if (r && r->held >= 0) {
                held_ids[nheld++] = r->id;
                fds[n++] = (struct pollfd){.fd = r->held, .events = POLLIN};
            }
        }
        dpconn_unlock();
        if (poll(fds, (nfds_t)n, dp_draining ? 20 : 250) < 0 && errno != EINTR)
            break;
        if (fds[0].revents)
            while (read(dp_wake_pipe[0], sink, sizeof(sink)) > 0)
                ;
        /* the whole backlog: a runtime's connection is taken at once */
        while ((fds[1].revents & POLLIN) || dp_draining) {
            if (dp_accept() != 0)
                break;
            accepted = 1;
        }
        /* pending ones, last first: one that leaves the list takes the last
         * one's slot (one polled already, or one accepted since: next round) */
        for (i = polled - 1; i >= 0; i--)
            if (fds[2 + i].revents)
                dp_read_pending(i);
        for (i = dp_npending - 1; i >= 0; i--) {
            if (now - dp_pending_conns[i].accepted_ns <= (int64_t)DP_ADVERTISE_MS * 1000000)
                continue;
            close(dp_pending_conns[i].fd); /* no advertise: not a runtime */
            dp_pending_conns[i] = dp_pending_conns[--dp_npending];
        }
        for (i = 0; i < nheld; i++) {
            struct pollfd *h = &fds[n - nheld + i];
            if (h->revents && (recv(h->fd, sink, sizeof(sink), MSG_DONTWAIT) <= 0 ||
                               (h->revents & (POLLHUP | POLLERR))))
                dp_held_ended(held_ids[i]);
        }
        if (now - last_sweep > 500000000) {
            dp_end_hidden();
            last_sweep = now;
        }
        if (dp_draining) {
            if (!drain_deadline)
                drain_deadline = now + (int64_t)DP_STOP_WAIT_MS * 1000000;
            if ((!accepted && dp_drained()) || now > drain_deadline)
                break;
        }
    }
    return NULL;
}

int diagport_start(const char *spec, char *err, size_t errsz)
{
    char msg[512];
    struct stat st;
    int status;

    if (dp_parse(spec, err, errsz) != 0)
        return -1;
    if (stat(dp_cfg.host_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errsz, "--diagnostic-port: %s is not a directory", dp_cfg.host_dir);
        return -1;
    }
    /* its owner's runtimes are served too; root serving another user's
     * volume makes the port's files as that user */
    dp_cfg.trusted_uid = getuid() == 0 ? st.st_uid : getuid();
    dp_cfg.trusted_gid = getuid() == 0 ? st.st_gid : getgid();
    if (agentplace_take_dir(dp_cfg.host_dir, dp_cfg.app_dir, dp_cfg.trusted_uid, dp_cfg.trusted_gid,
                            &dp_place, &status, msg, sizeof(msg)) != 0) {
        if (status == 409) { /* a path too long for the agent's socket: never works */
            snprintf(err, errsz, "--diagnostic-port: %s", msg);
            return -1;
        }
        fprintf(stderr, "jitscope: diagnostic port: %s (tried again for each runtime)\n", msg);
        dp_place.place = 0;
    }
    dp_listen_fd = dp_listen(err, errsz);
    if (dp_listen_fd < 0 || pipe2(dp_wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        if (dp_listen_fd >= 0)
            snprintf(err, errsz, "pipe2: %s", strerror(errno));
        goto fail;
    }
    dpconn_set_waker(dp_wake);
    if (pthread_create(&dp_thread, NULL, dp_main, NULL) != 0) {
        snprintf(err, errsz, "cannot start the diagnostic port's thread");
        goto fail;
    }
    dp_started = 1;
    fprintf(stderr, "jitscope: diagnostic port %s%s%s (agent in %s)\n", dp_cfg.host_path,
            strcmp(dp_cfg.host_path, dp_cfg.app_path) ? ", the apps' " : "",
            strcmp(dp_cfg.host_path, dp_cfg.app_path) ? dp_cfg.app_path : "",
            dp_place.place ? dp_place.dir_here : dp_cfg.host_dir);
    return 0;
fail:
    if (dp_listen_fd >= 0) {
        close(dp_listen_fd);
        unlink(dp_cfg.host_path);
    }
    dp_listen_fd = -1;
    agentplace_unpin(dp_place.place);
    return -1;
}

void diagport_stopping(void) { dpconn_set_stopping(); }

void diagport_stop(void)
{
    size_t i;

    if (!dp_started)
        return;
    dpconn_set_stopping();
    /* no new runtime from now on (one that connects later waits for the next
     * server); those connected by now are taken off the backlog and resumed */
    unlink(dp_cfg.host_path);
    dp_draining = 1;
    dp_wake();
    pthread_join(dp_thread, NULL);
    dpconn_wait_idle(DP_STOP_WAIT_MS); /* no worker may outlive the sessions it works on */
    close(dp_listen_fd);
    dp_listen_fd = -1;
    for (; dp_npending > 0; dp_npending--)
        close(dp_pending_conns[dp_npending - 1].fd);
    dpconn_lock();
    for (i = 0; i < DP_RUNTIMES_MAX; i++) {
        dp_runtime *r = dpconn_at(i);
        if (r && r->held >= 0) {
            close(r->held);
            r->held = -1;
        }
    }
    dpconn_unlock();
    dpconn_set_waker(NULL);
    close(dp_wake_pipe[0]);
    close(dp_wake_pipe[1]);
    agentplace_unpin(dp_place.place);
    dp_started = 0;
}
