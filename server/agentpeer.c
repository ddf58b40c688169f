/* agentpeer.c -- the jitscope server at the other end of a process's agent
 * socket (see agentpeer.h). */
#include "agentpeer.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>

#define AGENTPEER_MAX_SOCKETS 65536 /* sockets of the process looked at (more: cannot tell) */
#define AGENTPEER_MAX_AGENTS 64     /* jitscope agent sockets (server ends) kept */
#define AGENTPEER_RECV_MS 1000      /* longest wait for one part of the kernel's answer */

#define AGENTPEER_DIR_PREFIX "jitscope-"
#define AGENTPEER_SOCKET_NAME "/agent.sock"

/* A socket directory's name after "jitscope-": mkdtemp's six characters
 * (--data none), or "<uid>-<16 hex digits>" (a data directory's). */
static int agentpeer_dir_suffix(const char *p, size_t n)
{
    size_t i = 0;

    if (n == 6) {
        for (i = 0; i < n && isalnum((unsigned char)p[i]); i++)
            ;
        return i == n;
    }
    while (i < n && p[i] >= '0' && p[i] <= '9')
        i++;
    if (i == 0 || i > 10 || n != i + 1 + 16 || p[i] != '-')
        return 0;
    for (i++; i < n; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
            return 0;
    return 1;
}

int agentpeer_is_agent_socket(const char *name, size_t length)
{
    const size_t tail = sizeof(AGENTPEER_SOCKET_NAME) - 1,
                 prefix = sizeof(AGENTPEER_DIR_PREFIX) - 1;
    size_t start;

    if (length <= tail + prefix + 1 || name[0] != '/' || memchr(name, '\0', length) ||
        memcmp(name + length - tail, AGENTPEER_SOCKET_NAME, tail) != 0)
        return 0;
    for (start = length - tail; start > 0 && name[start - 1] != '/'; start--)
        ; /* the directory's own name: name[start, length - tail) */
    return start > 0 && length - tail - start > prefix &&
           memcmp(name + start, AGENTPEER_DIR_PREFIX, prefix) == 0 &&
           agentpeer_dir_suffix(name + start + prefix, length - tail - start - prefix);
}

void agentpeer_note_url(const char *text, size_t length, char *url, size_t urlsz)
{
    size_t n = 0;

    if (urlsz == 0)
        return;
    while (n < length && text[n] != '\n') {
        if (text[n] < 0x21 || text[n] > 0x7e || n + 1 >= urlsz) {
            url[0] = '\0';
            return;
        }
        url[n] = text[n];
        n++;
    }
    url[n] = '\0';
}

static int agentpeer_cmp(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* The inodes of pid's sockets, sorted, into *out (malloc'd); their count, or
 * -1 (err set) when they cannot be read, or there are more than
 * AGENTPEER_MAX_SOCKETS (one of those left out could be the agent's). */
static int agentpeer_sockets_of(pid_t pid, uint32_t **out, char *err, size_t errsz)
{
    char path[64], link[64];
    uint32_t *inodes = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    DIR *d;

    *out = NULL;
    snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
    d = opendir(path);
    if (!d) {
        snprintf(err, errsz, "%s: %s", path, strerror(errno));
        return -1;
    }
    while ((e = readdir(d))) {
        static const char prefix[] = "socket:[";
        ssize_t len = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
        unsigned long long inode;
        char *end;

        if (len <= (ssize_t)sizeof(prefix) || memcmp(link, prefix, sizeof(prefix) - 1) != 0)
            continue;
        link[len] = '\0';
        errno = 0;
        inode = strtoull(link + sizeof(prefix) - 1, &end, 10);
        if (errno || end[0] != ']' || end[1] || link[sizeof(prefix) - 1] == '-' ||
            inode > UINT32_MAX)
            continue;
        if (n == cap) {
            uint32_t *grown = NULL;
            if (cap < AGENTPEER_MAX_SOCKETS)
                grown = realloc(inodes, (cap ? cap * 2 : 64) * sizeof(*inodes));
            if (!grown) {
                snprintf(err, errsz, "process %d has too many sockets to look through", (int)pid);
                free(inodes);
                closedir(d);
                return -1;
            }
            inodes = grown;
            cap = cap ? cap * 2 : 64;
        }
        inodes[n++] = (uint32_t)inode;
    }
    closedir(d);
    if (n)
        qsort(inodes, n, sizeof(*inodes), agentpeer_cmp);
    *out = inodes;
    return (int)n;
}

typedef struct agentpeer_scan {
    const uint32_t *mine; /* the process's socket inodes, sorted */
    size_t mine_count;
    uint32_t *peers; /* their peers' inodes (room for mine_count) */
    size_t peer_count;
    struct {
        uint32_t inode;
        char path[108];
    } agents[AGENTPEER_MAX_AGENTS];
    size_t agent_count;
} agentpeer_scan;

/* One socket of the kernel's answer: its name and peer, from its attributes. */
static void agentpeer_take(agentpeer_scan *scan, const struct unix_diag_msg *m, size_t length)
{
    const struct rtattr *a = (const struct rtattr *)(m + 1);
    const char *name = NULL;
    size_t name_len = 0;
    uint32_t peer = 0;
    unsigned int left;

    if (length < NLMSG_ALIGN(sizeof(*m)))
        return;
    left = (unsigned int)(length - NLMSG_ALIGN(sizeof(*m)));
    for (; RTA_OK(a, left); a = RTA_NEXT(a, left)) {
        if (a->rta_type == UNIX_DIAG_NAME) {
            name = RTA_DATA(a);
            name_len = strnlen(name, RTA_PAYLOAD(a)); /* a path comes with its NUL */
        } else if (a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= sizeof(uint32_t)) {
            memcpy(&peer, RTA_DATA(a), sizeof(peer));
        }
    }
    if (peer && scan->peer_count < scan->mine_count &&
        bsearch(&m->udiag_ino, scan->mine, scan->mine_count, sizeof(uint32_t), agentpeer_cmp))
        scan->peers[scan->peer_count++] = peer;
    if (name && agentpeer_is_agent_socket(name, name_len) &&
        name_len < sizeof(scan->agents[0].path) && scan->agent_count < AGENTPEER_MAX_AGENTS) {
        scan->agents[scan->agent_count].inode = m->udiag_ino;
        memcpy(scan->agents[scan->agent_count].path, name, name_len);
        scan->agents[scan->agent_count].path[name_len] = '\0';
        scan->agent_count++;
    }
}

/* Asks the kernel for every Unix socket with its name and peer. 0, or -1. */
static int agentpeer_dump(agentpeer_scan *scan, char *err, size_t errsz)
{
    struct {
        struct nlmsghdr header;
        struct unix_diag_req request;
    } ask;
    struct timeval wait = {.tv_sec = AGENTPEER_RECV_MS / 1000};
    long buf[32768 / sizeof(long)]; /* the kernel's largest part of a dump; aligned */
    int fd, rc = -1;

    memset(&ask, 0, sizeof(ask));
    ask.header.nlmsg_len = sizeof(ask);
    ask.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    ask.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    ask.request.sdiag_family = AF_UNIX;
    ask.request.udiag_states = UINT32_MAX;
    ask.request.udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_PEER;
    fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0) {
        snprintf(err, errsz, "socket diagnostics: %s", strerror(errno));
        return -1;
    }
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait)) != 0 ||
        send(fd, &ask, sizeof(ask), 0) != (ssize_t)sizeof(ask)) {
        snprintf(err, errsz, "socket diagnostics: %s", strerror(errno));
        goto out;
    }
    for (;;) {
        ssize_t got = recv(fd, buf, sizeof(buf), 0);
        const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
        unsigned int left;

        if (got <= 0) {
            snprintf(err, errsz, "socket diagnostics: %s",
                     got == 0 ? "the answer ended early" : strerror(errno));
            goto out;
        }
        left = (unsigned int)got;
        for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
            if (h->nlmsg_type == NLMSG_DONE) {
                rc = 0;
                goto out;
            }
            if (h->nlmsg_type == NLMSG_ERROR) {
                snprintf(err, errsz, "socket diagnostics refused the question");
                goto out;
            }
            if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY)
                agentpeer_take(scan, NLMSG_DATA(h), h->nlmsg_len - NLMSG_HDRLEN);
        }
    }
out:
    close(fd);
    return rc;
}

/* The note next to an agent socket: the URL its server left, if the
 * directory and the note are ours. */
static void agentpeer_read_note(const char *socket_path, char *url, size_t urlsz)
{
    char path[160], text[AGENTPEER_NOTE_MAX];
    const char *slash = strrchr(socket_path, '/');
    struct stat st;
    ssize_t n;
    int fd;

    url[0] = '\0';
    if (!slash || snprintf(path, sizeof(path), "%.*s/" AGENTPEER_NOTE_NAME,
                           (int)(slash - socket_path), socket_path) >= (int)sizeof(path))
        return;
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == getuid() &&
        (n = read(fd, text, sizeof(text))) > 0)
        agentpeer_note_url(text, (size_t)n, url, urlsz);
    close(fd);
}

int agentpeer_find(pid_t pid, char *socket_path, size_t pathsz, char *url, size_t urlsz, char *err,
                   size_t errsz)
{
    agentpeer_scan *scan = NULL;
    uint32_t *mine;
    size_t i, k;
    int n, found = -1;

    socket_path[0] = url[0] = '\0';
    n = agentpeer_sockets_of(pid, &mine, err, errsz);
    if (n <= 0)
        return n;
    scan = calloc(1, sizeof(*scan));
    if (!scan || !(scan->peers = malloc((size_t)n * sizeof(*scan->peers)))) {
        snprintf(err, errsz, "out of memory");
        goto out;
    }
    scan->mine = mine;
    scan->mine_count = (size_t)n;
    if (agentpeer_dump(scan, err, errsz) != 0)
        goto out;
    found = 0;
    for (i = 0; i < scan->peer_count && !found; i++)
        for (k = 0; k < scan->agent_count && !found; k++)
            if (scan->peers[i] == scan->agents[k].inode) {
                snprintf(socket_path, pathsz, "%s", scan->agents[k].path);
                agentpeer_read_note(scan->agents[k].path, url, urlsz);
                found = 1;
            }
out:
    if (scan)
        free(scan->peers);
    free(scan);
    free(mine);
    return found;
}
