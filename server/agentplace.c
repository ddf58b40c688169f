/* agentplace.c -- the agent's places in containers (see agentplace.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "agentplace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "clock.h"
#include "inroot.h"
#include "linksock.h"
#include "proc.h"
#include "sessions.h"

#define AP_SOCKET "agent.sock"
#define AP_LIBRARY_PREFIX "libjitscope_agent-"

typedef struct ap_place {
    int id; /* 0: a free slot */
    int pins;
    dev_t tmp_dev;
    ino_t tmp_ino;
    int tmp_fd, dir_fd; /* the process's temp directory, and ours in it */
    uid_t uid;
    gid_t gid;
    int listener;              /* linksock.h handle */
    char inside[IPC_PATH_MAX]; /* the temp directory as the process sees it, ending in '/' */
    char here[256];            /* our directory as the server reached it first (messages) */
    char name[96];             /* our directory's name in it (linksock_dir_name) */
} ap_place;

static pthread_mutex_t ap_mutex = PTHREAD_MUTEX_INITIALIZER; /* guards ap_places */
static ap_place ap_places[AGENTPLACE_MAX];
static int ap_next_id = 1;
static const char *ap_agent_path = "";
static char ap_library[64]; /* libjitscope_agent-HASH.so */
static off_t ap_agent_size;

void agentplace_configure(const char *agent_path)
{
    uint64_t h = 0xcbf29ce484222325ull;
    unsigned char buf[65536];
    ssize_t n;
    int fd = open(agent_path, O_RDONLY | O_CLOEXEC);

    ap_agent_path = agent_path;
    ap_agent_size = 0;
    while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0) {
        ssize_t i;
        for (i = 0; i < n; i++) {
            h ^= buf[i];
            h *= 0x100000001b3ull;
        }
        ap_agent_size += n;
    }
    if (fd >= 0)
        close(fd);
    snprintf(ap_library, sizeof(ap_library), AP_LIBRARY_PREFIX "%016llx.so", (unsigned long long)h);
}

/* The real gid of pid (its primary group, as the server sees it). */
static gid_t ap_gid_of(pid_t pid)
{
    char buf[4096], *line;
    size_t len = 0;
    unsigned long v;

    if (proc_read(pid, "status", buf, sizeof(buf) - 1, &len) != 0)
        return (gid_t)-1;
    buf[len] = '\0';
    line = strstr(buf, "\nGid:");
    if (!line)
        return (gid_t)-1;
    errno = 0;
    v = strtoul(line + 5, NULL, 10);
    return errno ? (gid_t)-1 : (gid_t)v;
}

/* A directory stream over dir_fd's directory, on a copy of the fd (closedir
 * closes the copy, dir_fd stays open); NULL when none can be had. */
static DIR *ap_opendir(int dir_fd)
{
    int fd = dup(dir_fd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

    if (!d && fd >= 0)
        close(fd);
    return d;
}

/* Removes what a place (or a leftover directory, open at dir_fd) holds of
 * ours: the socket, library copies and half-written ones. */
static void ap_empty(int dir_fd)
{
    DIR *d = ap_opendir(dir_fd);
    struct dirent *de;

    if (!d)
        return;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, AP_SOCKET) == 0 ||
            strncmp(de->d_name, AP_LIBRARY_PREFIX, sizeof(AP_LIBRARY_PREFIX) - 1) == 0)
            unlinkat(dir_fd, de->d_name, 0);
    closedir(d);
}

/* Removes place p (ap_mutex held): its listener, files and directory. */
static void ap_remove(ap_place *p, const char *why)
{
    if (p->listener > 0)
        linksock_remove(p->listener);
    ap_empty(p->dir_fd);
    if (unlinkat(p->tmp_fd, p->name, AT_REMOVEDIR) != 0 && errno != ENOENT)
        fprintf(stderr, "jitscope: cannot remove %s: %s\n", p->here, strerror(errno));
    else if (why)
        fprintf(stderr, "jitscope: removed %s (%s)\n", p->here, why);
    close(p->dir_fd);
    close(p->tmp_fd);
    memset(p, 0, sizeof(*p));
}

__attribute__((format(printf, 4, 5))) static int ap_fail(int *status, int code, char *msg,
                                                         const char *fmt, ...);

/* Sets *status and the message (msg is AP_MSG bytes); -1. */
#define AP_MSG 512
static int ap_fail(int *status, int code, char *msg, const char *fmt, ...)
{
    va_list ap;

    *status = code;
    va_start(ap, fmt);
    vsnprintf(msg, AP_MSG, fmt, ap);
    va_end(ap);
    return -1;
}

/* Undoes a place's directory (made or found) after a failure. */
static void ap_unmake(ap_place *p)
{
    ap_empty(p->dir_fd);
    unlinkat(p->tmp_fd, p->name, AT_REMOVEDIR);
    close(p->dir_fd);
}

/* A copy of the agent library (open at in) in dir_fd, named by its content
 * (already there: kept). 0, or -1 with errno (ENOSPC: the file system is
 * full). */
static int ap_copy_library(int in, int dir_fd)
{
    char tmp[sizeof(ap_library) + 8], buf[65536];
    struct stat st;
    int out = -1, e;
    ssize_t n;

    if (fstatat(dir_fd, ap_library, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
        st.st_size == ap_agent_size)
        return 0;
    snprintf(tmp, sizeof(tmp), "%s.part", ap_library);
    unlinkat(dir_fd, tmp, 0);
    out = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0500);
    if (in < 0 || out < 0 || lseek(in, 0, SEEK_SET) != 0)
        goto fail;
    while ((n = read(in, buf, sizeof(buf))) > 0) {
        ssize_t w = 0, k;
        for (; w < n; w += k)
            if ((k = write(out, buf + w, (size_t)(n - w))) < 0)
                goto fail;
    }
    if (n < 0 || fsync(out) != 0 || close(out) != 0) {
        out = -1;
        goto fail;
    }
    out = -1;
    if (renameat(dir_fd, tmp, dir_fd, ap_library) != 0) {
        e = errno;
        unlinkat(dir_fd, tmp, 0);
        errno = e;
        return -1;
    }
    return 0;
fail:
    e = errno;
    if (out >= 0)
        close(out);
    unlinkat(dir_fd, tmp, 0);
    errno = e;
    return -1;
}

/* Our directory in the temp directory tmp_fd: made (private, of uid: the
 * thread runs as uid) or found as one we made before. Its fd, or -1 with
 * *status and msg set. */
static int ap_make_dir(int tmp_fd, const char *name, const char *here, uid_t uid, int *status,
                       char *msg)
{
    struct stat st;
    int fd, made = mkdirat(tmp_fd, name, 0700) == 0, e = errno;

    if (!made && e == EROFS)
        return ap_fail(status, 409, msg,
                       "the process's temp directory is read-only (%s), so jitscope cannot give "
                       "it the agent: give the container a writable /tmp (an emptyDir or tmpfs "
                       "volume), or set TMPDIR to a writable directory in it",
                       here);
    if (!made && (e == ENOSPC || e == EDQUOT))
        return ap_fail(status, 507, msg,
                       "the process's temp directory is full (%s): free some space in it, or "
                       "give the container a larger /tmp",
                       here);
    if (!made && e != EEXIST)
        return ap_fail(status, 500, msg, "cannot make %s: %s", here, strerror(e));
    fd = openat(tmp_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) ||
        (!made && ((st.st_uid != uid && st.st_uid != geteuid()) || (st.st_mode & 077) != 0))) {
        if (fd >= 0)
            close(fd);
        return ap_fail(status, 409, msg,
                       "%s is there but is not a private directory jitscope made: remove it, "
                       "then attach again",
                       here);
    }
    if (st.st_uid != uid || fchmod(fd, 0700) != 0) {
        e = st.st_uid != uid ? EPERM : errno;
        close(fd);
        if (made)
            unlinkat(tmp_fd, name, AT_REMOVEDIR);
        return ap_fail(status, 500, msg, "cannot make %s private to uid %u: %s", here,
                       (unsigned)uid, strerror(e));
    }
    return fd;
}

typedef struct ap_job {
    ap_place *p;
    int in; /* the agent library, opened by the server */
    int status;
    char msg[AP_MSG];
    int rc;
} ap_job;

/* The directory, library copy and listening socket of a place, made by a
 * thread that runs as the process's user (its effective uid and gid, which
 * Linux keeps per thread, changed by the raw system calls; the thread ends
 * right after): they are that user's files, a file of the server's uid could
 * not even be made in a user namespace's tmpfs where that uid has no
 * mapping (EOVERFLOW), and the agent, which checks that its server runs as
 * its own user (SO_PEERCRED gives the credentials the socket was made
 * listening with), finds its own user at the other end. */
static void *ap_make_thread(void *arg)
{
    ap_job *job = arg;
    ap_place *p = job->p;
    char bind_path[64], err[256];
    int e;

    job->rc = -1;
    if (p->uid != geteuid() && (syscall(SYS_setresgid, -1, p->gid, -1) != 0 ||
                                syscall(SYS_setresuid, -1, p->uid, -1) != 0)) {
        ap_fail(&job->status, 500, job->msg, "cannot act as uid %u: %s", (unsigned)p->uid,
                strerror(errno));
        return NULL;
    }
    p->dir_fd = ap_make_dir(p->tmp_fd, p->name, p->here, p->uid, &job->status, job->msg);
    if (p->dir_fd < 0)
        return NULL;
    if (ap_copy_library(job->in, p->dir_fd) != 0) {
        e = errno;
        ap_unmake(p);
        if (e == ENOSPC || e == EDQUOT)
            ap_fail(&job->status, 507, job->msg,
                    "the process's temp directory is full (%s): the agent library (%lld bytes) "
                    "does not fit; free some space in it, or give the container a larger /tmp",
                    p->here, (long long)ap_agent_size);
        else
            ap_fail(&job->status, 500, job->msg, "cannot copy the agent library into %s: %s",
                    p->here, strerror(e));
        return NULL;
    }
    snprintf(bind_path, sizeof(bind_path), "/proc/self/fd/%d/" AP_SOCKET, p->dir_fd);
    p->listener = linksock_add(bind_path, p->uid, err, sizeof(err));
    if (p->listener < 0) {
        ap_unmake(p);
        ap_fail(&job->status, 500, job->msg, "cannot make the agent socket in %s: %s", p->here,
                err);
        return NULL;
    }
    job->rc = 0;
    return NULL;
}

/* A place made (ap_mutex held): the slot p, filled, of uid/gid. */
static int ap_make(ap_place *p, uid_t uid, gid_t gid, int *status, char *msg)
{
    ap_job job = {.p = p};
    pthread_t thread;

    p->uid = uid;
    p->gid = gid;
    job.in = open(ap_agent_path, O_RDONLY | O_CLOEXEC);
    if (job.in < 0)
        return ap_fail(status, 500, msg, "cannot read the agent library %s: %s", ap_agent_path,
                       strerror(errno));
    if (p->uid == geteuid()) {
        ap_make_thread(&job);
    } else if (pthread_create(&thread, NULL, ap_make_thread, &job) == 0) {
        pthread_join(thread, NULL);
        /* a thread's credentials changing made the process undumpable: it
         * is again (core dumps, /proc/PID of the server for its user) */
        prctl(PR_SET_DUMPABLE, 1);
    } else {
        ap_fail(&job.status, 500, job.msg, "cannot start a thread: %s", strerror(errno));
    }
    close(job.in);
    if (job.rc != 0) {
        *status = job.status;
        memcpy(msg, job.msg, AP_MSG);
        return -1;
    }
    p->id = ap_next_id++;
    return 0;
}

/* The place in the directory open at tmp_fd (inside: how the process sees
 * it, ending in '/'; here: how the server names it), of uid/gid: found
 * (same directory and user) or made; pinned; its paths in out. Takes tmp_fd
 * (closed, or kept by the place). */
static int ap_take_at(int tmp_fd, const char *inside, const char *here, uid_t uid, gid_t gid,
                      agentplace_paths *out, int *status, char *msg, size_t msgsz)
{
    char m[AP_MSG];
    ap_place *p = NULL, fresh;
    struct stat st;
    int i;

    memset(&fresh, 0, sizeof(fresh));
    snprintf(fresh.name, sizeof(fresh.name), "%s", linksock_dir_name());
    snprintf(fresh.inside, sizeof(fresh.inside), "%s", inside);
    snprintf(fresh.here, sizeof(fresh.here), "%s%s", here, linksock_dir_name());
    if (strlen(inside) + strlen(linksock_dir_name()) + sizeof("/" AP_SOCKET) >
        sizeof(out->socket)) {
        snprintf(msg, msgsz,
                 "%s is too long a path for a socket in it (%zu bytes at most in all): use a "
                 "shorter one",
                 inside, sizeof(out->socket) - 1);
        *status = 409;
        close(tmp_fd);
        return -1;
    }
    if (fstat(tmp_fd, &st) != 0) {
        snprintf(msg, msgsz, "cannot stat %s: %s", here, strerror(errno));
        *status = 500;
        close(tmp_fd);
        return -1;
    }
    pthread_mutex_lock(&ap_mutex);
    for (i = 0; i < AGENTPLACE_MAX && !p; i++)
        if (ap_places[i].id && ap_places[i].tmp_dev == st.st_dev &&
            ap_places[i].tmp_ino == st.st_ino && ap_places[i].uid == uid)
            p = &ap_places[i];
    if (p) {
        close(tmp_fd);
    } else {
        for (i = 0; i < AGENTPLACE_MAX && ap_places[i].id; i++)
            ;
        if (i == AGENTPLACE_MAX) {
            pthread_mutex_unlock(&ap_mutex);
            close(tmp_fd);
            snprintf(msg, msgsz, "too many agent places at once (%d)", AGENTPLACE_MAX);
            *status = 503;
            return -1;
        }
        fresh.tmp_fd = tmp_fd;
        fresh.tmp_dev = st.st_dev;
        fresh.tmp_ino = st.st_ino;
        if (ap_make(&fresh, uid, gid, status, m) != 0) {
            pthread_mutex_unlock(&ap_mutex);
            close(tmp_fd);
            snprintf(msg, msgsz, "%s", m);
            return -1;
        }
        p = &ap_places[i];
        *p = fresh;
        fprintf(stderr, "jitscope: made %s (uid %u)\n", p->here, (unsigned)p->uid);
    }
    p->pins++;
    out->place = p->id;
    /* the lengths were checked above: what the process sees fits */
    if (snprintf(out->library, sizeof(out->library), "%s%s/%s", p->inside, p->name, ap_library) >=
            (int)sizeof(out->library) ||
        snprintf(out->socket, sizeof(out->socket), "%s%s/" AP_SOCKET, p->inside, p->name) >=
            (int)sizeof(out->socket))
        out->socket[0] = out->library[0] = '\0';
    snprintf(out->dir_here, sizeof(out->dir_here), "%s", p->here);
    pthread_mutex_unlock(&ap_mutex);
    return 0;
}

int agentplace_take(pid_t pid, const ipc_target *t, const userns_facts *u, agentplace_paths *out,
                    int *status, char *msg, size_t msgsz)
{
    char prefix[64];
    size_t plen;
    int n, tmp_fd;

    memset(out, 0, sizeof(*out));
    if (!t->foreign_root) { /* it sees the server's files */
        snprintf(out->library, sizeof(out->library), "%s", ap_agent_path);
        snprintf(out->socket, sizeof(out->socket), "%s", linksock_path());
        return 0;
    }
    if (!u->can_give) {
        snprintf(msg, msgsz,
                 "process %d runs as uid %u (uid %ld in its container): jitscope, running as uid "
                 "%u, cannot give that user the agent's files (a private directory and a socket "
                 "in its temp directory); run jitscope as root, or as uid %u",
                 (int)pid, (unsigned)u->uid, (long)(int)u->uid_inside, (unsigned)getuid(),
                 (unsigned)u->uid);
        *status = 403;
        return -1;
    }
    n = snprintf(prefix, sizeof(prefix), "/proc/%d/root", (int)pid);
    plen = strlen(t->dir);
    if (n < 0 || plen <= (size_t)n || strncmp(t->dir, prefix, (size_t)n) != 0) {
        snprintf(msg, msgsz, "cannot tell process %d's temp directory from %s", (int)pid, t->dir);
        *status = 500;
        return -1;
    }
    tmp_fd = inroot_open(pid, t->dir + n, O_RDONLY | O_DIRECTORY);
    if (tmp_fd < 0) {
        snprintf(msg, msgsz, "cannot open process %d's temp directory %s: %s", (int)pid, t->dir + n,
                 strerror(errno));
        *status = 500;
        return -1;
    }
    return ap_take_at(tmp_fd, t->dir + n, t->dir, u->uid, ap_gid_of(pid), out, status, msg, msgsz);
}

int agentplace_take_dir(const char *dir, const char *inside, uid_t uid, gid_t gid,
                        agentplace_paths *out, int *status, char *msg, size_t msgsz)
{
    char here[256], seen[IPC_PATH_MAX];
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    memset(out, 0, sizeof(*out));
    if (fd < 0) {
        snprintf(msg, msgsz, "cannot open %s: %s", dir, strerror(errno));
        *status = 500;
        return -1;
    }
    snprintf(here, sizeof(here), "%s/", dir);
    snprintf(seen, sizeof(seen), "%s/", inside);
    return ap_take_at(fd, seen, here, uid, gid, out, status, msg, msgsz);
}

const char *agentplace_library_name(void) { return ap_library; }

void agentplace_unpin(int place)
{
    int i;

    pthread_mutex_lock(&ap_mutex);
    for (i = 0; i < AGENTPLACE_MAX; i++)
        if (place && ap_places[i].id == place && ap_places[i].pins > 0)
            ap_places[i].pins--;
    pthread_mutex_unlock(&ap_mutex);
}

/* Whether session s still needs its place. */
static int ap_needed_by(const session *s)
{
    return s->place_id && (s->state == SESSION_STARTING || s->state == SESSION_LIVE ||
                           s->state == SESSION_DISCONNECTED || s->state == SESSION_DETACHING ||
                           s->persist.resumable);
}

void agentplace_sweep(void)
{
    int needed[AGENTPLACE_MAX], nneeded = 0, i, k;
    size_t j, n;

    pthread_mutex_lock(&ap_mutex);
    for (i = 0; i < AGENTPLACE_MAX && !ap_places[i].id; i++)
        ;
    pthread_mutex_unlock(&ap_mutex);
    if (i == AGENTPLACE_MAX)
        return; /* no place: nothing to look up */
    sessions_lock();
    n = sessions_count();
    for (j = 0; j < n; j++) {
        const session *s = sessions_at(j);
        if (ap_needed_by(s) && nneeded < AGENTPLACE_MAX)
            needed[nneeded++] = s->place_id;
    }
    sessions_unlock();
    pthread_mutex_lock(&ap_mutex);
    for (i = 0; i < AGENTPLACE_MAX; i++) {
        ap_place *p = &ap_places[i];
        int used = 0;
        if (!p->id || p->pins)
            continue;
        for (k = 0; k < nneeded && !used; k++)
            used = needed[k] == p->id;
        if (!used)
            ap_remove(p, "no session needs it any more");
    }
    pthread_mutex_unlock(&ap_mutex);
}

void agentplace_stop(void)
{
    int i;

    pthread_mutex_lock(&ap_mutex);
    for (i = 0; i < AGENTPLACE_MAX; i++)
        if (ap_places[i].id)
            ap_remove(&ap_places[i], "the server stops");
    pthread_mutex_unlock(&ap_mutex);
}

size_t agentplace_count(void)
{
    size_t n = 0;
    int i;

    pthread_mutex_lock(&ap_mutex);
    for (i = 0; i < AGENTPLACE_MAX; i++)
        n += ap_places[i].id != 0;
    pthread_mutex_unlock(&ap_mutex);
    return n;
}

/* 1 when path, as the server sees it, is the directory st describes. */
static int ap_same_dir(const char *path, const struct stat *st)
{
    struct stat here;

    return stat(path, &here) == 0 && here.st_dev == st->st_dev && here.st_ino == st->st_ino;
}

/* 1 when dir_fd is the directory of the server's own agent socket (never a
 * leftover, whatever reached it). */
static int ap_is_link_dir(int dir_fd)
{
    char dir[sizeof(((struct sockaddr_un *)0)->sun_path) + 8], *slash;
    struct stat st;

    snprintf(dir, sizeof(dir), "%s", linksock_path());
    if ((slash = strrchr(dir, '/')) == NULL || fstat(dir_fd, &st) != 0)
        return 0;
    *slash = '\0';
    return ap_same_dir(dir, &st);
}

/* 1 when something listens on the agent socket in the directory dir_fd (a
 * live server's place), 0 when nothing does or there is none. */
static int ap_served(int dir_fd)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), rc;

    snprintf(addr.sun_path, sizeof(addr.sun_path), "/proc/self/fd/%d/" AP_SOCKET, dir_fd);
    if (fd < 0)
        return 1; /* cannot tell: leave it */
    rc = connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0 || errno == EAGAIN;
    close(fd);
    return rc;
}

/* Leftovers in the temp directory tmp_fd of a container: directories named
 * jitscope-* that hold an agent socket or library copy, and that are ours
 * (our name, and no place of ours is there now) or whose socket nobody
 * serves (their server is gone). */
static void ap_clean_tmp(int tmp_fd, const struct stat *tmp, const char *where)
{
    DIR *d = ap_opendir(tmp_fd);
    struct dirent *de;
    int i;

    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        struct stat st;
        int sub, ours = strcmp(de->d_name, linksock_dir_name()) == 0, held = 0;

        if (strncmp(de->d_name, "jitscope-", 9) != 0)
            continue;
        pthread_mutex_lock(&ap_mutex);
        for (i = 0; i < AGENTPLACE_MAX; i++)
            held |= ours && ap_places[i].id && ap_places[i].tmp_dev == tmp->st_dev &&
                    ap_places[i].tmp_ino == tmp->st_ino;
        pthread_mutex_unlock(&ap_mutex);
        sub = held ? -1
                   : openat(tmp_fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0)
            continue;
        if ((fstatat(sub, AP_SOCKET, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
             fstatat(sub, ap_library, &st, AT_SYMLINK_NOFOLLOW) == 0) &&
            (ours || !ap_served(sub)) && !ap_is_link_dir(sub)) {
            ap_empty(sub);
            if (unlinkat(tmp_fd, de->d_name, AT_REMOVEDIR) == 0)
                fprintf(stderr, "jitscope: removed %s%s, left by a server before\n", where,
                        de->d_name);
        }
        close(sub);
    }
    closedir(d);
}

/* The places of sessions to be taken back, made again. */
static void ap_restore_sessions(void)
{
    struct {
        int id;
        pid_t pid;
    } want[AGENTPLACE_MAX];
    size_t n = 0, i, count;

    sessions_lock();
    count = sessions_count();
    for (i = 0; i < count && n < AGENTPLACE_MAX; i++) {
        const session *s = sessions_at(i);
        if (s->persist.resumable && s->mode == SESSION_MODE_ATTACH && s->pid > 0) {
            want[n].id = s->id;
            want[n++].pid = s->pid;
        }
    }
    sessions_unlock();
    for (i = 0; i < n; i++) {
        agentplace_paths paths;
        char err[256], msg[AP_MSG];
        ipc_target t;
        userns_facts u;
        session *s;
        int status;

        if (ipc_target_probe(want[i].pid, &t, err, sizeof(err)) != IPC_OK || !t.foreign_root ||
            userns_probe(want[i].pid, &u, err, sizeof(err)) != 0 || !u.ours)
            continue;
        if (agentplace_take(want[i].pid, &t, &u, &paths, &status, msg, sizeof(msg)) != 0) {
            fprintf(stderr, "jitscope: session %d cannot be taken back: %s\n", want[i].id, msg);
            continue;
        }
        sessions_lock();
        if ((s = sessions_get(want[i].id)))
            s->place_id = paths.place;
        sessions_unlock();
        agentplace_unpin(paths.place);
    }
}

void agentplace_restore(void)
{
    struct {
        dev_t dev;
        ino_t ino;
    } seen[256];
    size_t nseen = 0, k;
    struct stat self_mnt;
    DIR *d = opendir("/proc");
    struct dirent *de;

    ap_restore_sessions();
    if (!d || stat("/proc/self/ns/mnt", &self_mnt) != 0) {
        if (d)
            closedir(d);
        return;
    }
    while ((de = readdir(d)) != NULL) {
        char path[64], err[256];
        struct stat mnt, tmp;
        ipc_target t;
        userns_facts u;
        pid_t pid = (pid_t)strtol(de->d_name, NULL, 10);
        int tmp_fd, n;

        if (pid <= 0 || pid == getpid())
            continue;
        snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
        if (stat(path, &mnt) != 0 || mnt.st_ino == self_mnt.st_ino)
            continue; /* gone, or sees our files: its temp directory is not a container's */
        if (ipc_target_probe(pid, &t, err, sizeof(err)) != IPC_OK || !t.foreign_root ||
            userns_probe(pid, &u, err, sizeof(err)) != 0 || !u.ours)
            continue;
        n = snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
        if (strncmp(t.dir, path, (size_t)n) != 0 ||
            (tmp_fd = inroot_open(pid, t.dir + n, O_RDONLY | O_DIRECTORY)) < 0)
            continue;
        /* a mount namespace of its own, but our temp directory (unshare -m
         * without a root of its own, a service with its own mounts): not a
         * container's; what is there is ours and other live servers' */
        if (fstat(tmp_fd, &tmp) == 0 && !ap_same_dir(t.dir + n, &tmp)) {
            for (k = 0; k < nseen && (seen[k].dev != tmp.st_dev || seen[k].ino != tmp.st_ino); k++)
                ;
            if (k == nseen && nseen < sizeof(seen) / sizeof(seen[0])) {
                seen[nseen].dev = tmp.st_dev;
                seen[nseen++].ino = tmp.st_ino;
                ap_clean_tmp(tmp_fd, &tmp, t.dir);
            }
        }
        close(tmp_fd);
    }
    closedir(d);
}
