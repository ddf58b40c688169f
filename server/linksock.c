/* linksock.c -- the listening sockets agents connect to (see linksock.h). */
#include "linksock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "agentpeer.h"

typedef struct linksock_listener {
    int handle; /* 0: a free slot */
    int fd;
    int closing;    /* removed: the link thread closes it at its next wake-up */
    uid_t peer_uid; /* peers of this uid are welcome too; (uid_t)-1 none */
} linksock_listener;

static char ls_dir[96];
static char ls_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static int ls_own_fd = -1;
static dev_t ls_sock_dev; /* the socket file we bound: a removed or replaced one is recreated */
static ino_t ls_sock_ino;
static int ls_recreate_failing;          /* a failed recreate is logged once, retried every sweep */
static char ls_note[AGENTPEER_NOTE_MAX]; /* written once, before ls_note_set */
static _Atomic int ls_note_set;
static pthread_mutex_t ls_mutex = PTHREAD_MUTEX_INITIALIZER; /* guards ls_listeners */
static linksock_listener ls_listeners[LINKSOCK_MAX];
static int ls_next_handle = LINKSOCK_OWN + 1;
static void (*ls_wake)(void);

const char *linksock_path(void) { return ls_path; }
const char *linksock_dir(void) { return ls_dir; }

const char *linksock_dir_name(void)
{
    const char *slash = strrchr(ls_dir, '/');

    return slash ? slash + 1 : ls_dir;
}

void linksock_set_waker(void (*wake)(void)) { ls_wake = wake; }

/* The server's own listener is slot 0 (handle LINKSOCK_OWN); a new fd for it
 * (a recreated socket) replaces the old one. ls_mutex held. */
static void ls_swap_own(int fd)
{
    if (ls_listeners[0].handle && ls_listeners[0].fd >= 0)
        close(ls_listeners[0].fd);
    ls_listeners[0] = (linksock_listener){.handle = LINKSOCK_OWN, .fd = fd, .peer_uid = (uid_t)-1};
    ls_own_fd = fd;
}

static int linksock_remake_dir(char *err, size_t errsz);

/* The directory for a data directory: its absolute path hashed (FNV-1a). */
static int linksock_stable_dir(const char *base, const char *key, char *err, size_t errsz)
{
    char resolved[4096];
    uint64_t h = 0xcbf29ce484222325ull;
    const char *p;

    if (!realpath(key, resolved))
        snprintf(resolved, sizeof(resolved), "%s", key);
    for (p = resolved; *p; p++) {
        h ^= (unsigned char)*p;
        h *= 0x100000001b3ull;
    }
    if (snprintf(ls_dir, sizeof(ls_dir), "%s/jitscope-%u-%016llx", base, (unsigned)getuid(),
                 (unsigned long long)h) >= (int)sizeof(ls_dir)) {
        snprintf(err, errsz, "socket directory name too long under %s", base);
        return -1;
    }
    if (linksock_remake_dir(err, errsz) != 0) { /* made 0700, or ours and private already */
        ls_dir[0] = '\0';
        return -1;
    }
    snprintf(ls_path, sizeof(ls_path), "%s/agent.sock", ls_dir);
    unlink(ls_path); /* a socket left by a server that died: ours to bind again */
    return 0;
}

static int linksock_make_dir(const char *stable_key, char *err, size_t errsz)
{
    const char *base = getenv("XDG_RUNTIME_DIR");
    struct stat st;

    if (!base || !*base || stat(base, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
        base = "/tmp";
    if (stable_key)
        return linksock_stable_dir(base, stable_key, err, errsz);
    if (snprintf(ls_dir, sizeof(ls_dir), "%s/jitscope-XXXXXX", base) >= (int)sizeof(ls_dir)) {
        snprintf(err, errsz, "socket directory name too long under %s", base);
        return -1;
    }
    if (!mkdtemp(ls_dir)) { /* mkdtemp creates the directory 0700 atomically */
        snprintf(err, errsz, "mkdtemp(%s): %s", ls_dir, strerror(errno));
        ls_dir[0] = '\0';
        return -1;
    }
    return 0;
}

/* A listening socket bound at ls_path (its directory exists and is ours);
 * remembers which file it is. The fd, or -1 with err set. */
static int linksock_listen_at_path(char *err, size_t errsz)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    struct stat st;
    mode_t old_mask;
    int fd, rc;

    memcpy(addr.sun_path, ls_path, strlen(ls_path) + 1);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        snprintf(err, errsz, "socket: %s", strerror(errno));
        return -1;
    }
    old_mask = umask(0077);
    rc = bind(fd, (struct sockaddr *)&addr, sizeof(addr));
    umask(old_mask);
    if (rc != 0 || listen(fd, 256) != 0 || stat(ls_path, &st) != 0) {
        snprintf(err, errsz, "bind/listen %s: %s", ls_path, strerror(errno));
        close(fd);
        return -1;
    }
    ls_sock_dev = st.st_dev;
    ls_sock_ino = st.st_ino;
    return fd;
}

/* The socket directory again, at the same name (agents know the path: a run's
 * children from their environment, attached agents from the attach): made
 * 0700 by us, or already there as a directory of ours that nobody else may
 * enter. Anything else at that name (another user's directory, a symlink) is
 * refused: the socket is not recreated there. */
static int linksock_remake_dir(char *err, size_t errsz)
{
    struct stat st;

    if (mkdir(ls_dir, 0700) == 0)
        return 0;
    if (errno != EEXIST) {
        snprintf(err, errsz, "mkdir %s: %s", ls_dir, strerror(errno));
        return -1;
    }
    if (lstat(ls_dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
        (st.st_mode & 077) != 0) {
        snprintf(err, errsz, "%s is no longer a private directory of ours", ls_dir);
        return -1;
    }
    return 0;
}

/* DIR/server: who made this directory, for a server that finds one of our
 * agents in a process it was asked to attach to (agentpeer.h). */
static void linksock_write_note(void)
{
    char path[sizeof(ls_dir) + sizeof(AGENTPEER_NOTE_NAME) + 1];
    size_t n = strlen(ls_note);
    int fd;

    snprintf(path, sizeof(path), "%s/" AGENTPEER_NOTE_NAME, ls_dir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 || write(fd, ls_note, n) != (ssize_t)n)
        fprintf(stderr, "jitscope: cannot write %s: %s\n", path, strerror(errno));
    if (fd >= 0)
        close(fd);
}

void linksock_set_note(const char *text)
{
    if (ls_note_set || !ls_dir[0])
        return;
    snprintf(ls_note, sizeof(ls_note), "%s\n", text);
    linksock_write_note();
    ls_note_set = 1;
}

/* Called by the link thread every sweep: when the socket file is gone (its
 * directory removed, say, by a /tmp cleaner) or is no longer the one we bound,
 * bind a new one at the same path. Connected agents are not affected either
 * way (a connected socket does not need its file). */
void linksock_check(void)
{
    char err[256];
    struct stat st;
    int fd;

    if (stat(ls_path, &st) == 0 && st.st_dev == ls_sock_dev && st.st_ino == ls_sock_ino)
        return;
    if (linksock_remake_dir(err, sizeof(err)) != 0)
        goto failed;
    if (lstat(ls_path, &st) == 0 && unlink(ls_path) != 0) { /* a stale file of ours */
        snprintf(err, sizeof(err), "unlink %s: %s", ls_path, strerror(errno));
        goto failed;
    }
    fd = linksock_listen_at_path(err, sizeof(err));
    if (fd < 0)
        goto failed;
    pthread_mutex_lock(&ls_mutex);
    ls_swap_own(fd);
    pthread_mutex_unlock(&ls_mutex);
    ls_recreate_failing = 0;
    if (ls_note_set)
        linksock_write_note(); /* it went with the directory */
    fprintf(stderr, "jitscope: agent socket %s was removed; recreated it\n", ls_path);
    return;
failed:
    if (!ls_recreate_failing)
        fprintf(stderr, "jitscope: agent socket %s was removed and cannot be recreated: %s\n",
                ls_path, err);
    ls_recreate_failing = 1;
}

int linksock_start(const char *stable_key, char *err, size_t errsz)
{
    int fd;

    if (linksock_make_dir(stable_key, err, errsz) != 0)
        return -1;
    if (snprintf(ls_path, sizeof(ls_path), "%s/agent.sock", ls_dir) >= (int)sizeof(ls_path)) {
        snprintf(err, errsz, "socket path too long in %s", ls_dir);
        goto fail;
    }
    fd = linksock_listen_at_path(err, errsz);
    if (fd < 0)
        goto fail;
    pthread_mutex_lock(&ls_mutex);
    ls_swap_own(fd);
    pthread_mutex_unlock(&ls_mutex);
    return 0;
fail:
    linksock_stop();
    return -1;
}

int linksock_add(const char *bind_path, uid_t peer_uid, char *err, size_t errsz)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    int fd, i, handle = -1;

    if (strlen(bind_path) >= sizeof(addr.sun_path)) {
        snprintf(err, errsz, "socket path %s is too long (%zu bytes at most)", bind_path,
                 sizeof(addr.sun_path) - 1);
        return -1;
    }
    memcpy(addr.sun_path, bind_path, strlen(bind_path) + 1);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        snprintf(err, errsz, "socket: %s", strerror(errno));
        return -1;
    }
    unlink(bind_path); /* a socket left there by a server before (its directory is ours) */
    if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 || listen(fd, 256) != 0) {
        snprintf(err, errsz, "bind/listen %s: %s", bind_path, strerror(errno));
        close(fd);
        return -1;
    }
    pthread_mutex_lock(&ls_mutex);
    for (i = 1; i < LINKSOCK_MAX; i++) {
        if (!ls_listeners[i].handle) {
            handle = ls_next_handle++;
            ls_listeners[i] = (linksock_listener){.handle = handle, .fd = fd, .peer_uid = peer_uid};
            break;
        }
    }
    pthread_mutex_unlock(&ls_mutex);
    if (handle < 0) {
        snprintf(err, errsz, "too many agent sockets (%d)", LINKSOCK_MAX);
        close(fd);
        return -1;
    }
    if (ls_wake)
        ls_wake(); /* the link thread polls it from now on */
    return handle;
}

void linksock_remove(int handle)
{
    int i;

    pthread_mutex_lock(&ls_mutex);
    for (i = 1; i < LINKSOCK_MAX; i++)
        if (ls_listeners[i].handle == handle)
            ls_listeners[i].closing = 1;
    pthread_mutex_unlock(&ls_mutex);
    if (ls_wake)
        ls_wake();
}

size_t linksock_poll_set(struct pollfd *fds, int *handles, size_t max)
{
    size_t n = 0;
    int i;

    pthread_mutex_lock(&ls_mutex);
    for (i = 0; i < LINKSOCK_MAX; i++) {
        linksock_listener *l = &ls_listeners[i];
        if (l->handle && l->closing) {
            close(l->fd);
            memset(l, 0, sizeof(*l));
        }
        if (l->handle && n < max) {
            fds[n] = (struct pollfd){.fd = l->fd, .events = POLLIN};
            handles[n++] = l->handle;
        }
    }
    pthread_mutex_unlock(&ls_mutex);
    return n;
}

int linksock_peer_ok(int handle, uid_t uid)
{
    int i, ok = uid == getuid();

    pthread_mutex_lock(&ls_mutex);
    for (i = 0; i < LINKSOCK_MAX && !ok; i++)
        ok = ls_listeners[i].handle == handle && ls_listeners[i].peer_uid != (uid_t)-1 &&
             ls_listeners[i].peer_uid == uid;
    pthread_mutex_unlock(&ls_mutex);
    return ok;
}

void linksock_stop(void)
{
    int i;

    pthread_mutex_lock(&ls_mutex);
    for (i = 0; i < LINKSOCK_MAX; i++) {
        if (ls_listeners[i].handle)
            close(ls_listeners[i].fd);
        memset(&ls_listeners[i], 0, sizeof(ls_listeners[i]));
    }
    ls_own_fd = -1;
    pthread_mutex_unlock(&ls_mutex);
    if (ls_path[0])
        unlink(ls_path);
    if (ls_dir[0]) {
        char note[sizeof(ls_dir) + sizeof(AGENTPEER_NOTE_NAME) + 1];
        snprintf(note, sizeof(note), "%s/" AGENTPEER_NOTE_NAME, ls_dir);
        unlink(note);
        rmdir(ls_dir);
    }
    ls_path[0] = ls_dir[0] = '\0';
}
