/* userns.c -- user namespaces of target processes (see userns.h).
 *
 * Facts relied on (Linux user_namespaces(7), ioctl_ns(2)): /proc/PID/uid_map
 * read by a process of the parent namespace gives, per line, the first uid
 * inside, the first uid in the reader's namespace and a count; /proc/PID/status
 * gives uids as the reader's namespace sees them; NS_GET_OWNER_UID on a user
 * namespace's fd gives its creator's uid (in the caller's namespace) and
 * NS_GET_PARENT its parent, failing with EPERM above the caller's own.
 */
#include "userns.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc.h"

/* One unsigned decimal at *p (spaces before it skipped), below 2^32. */
static int userns_number(const char **p, const char *end, uint32_t *out)
{
    uint64_t v = 0;
    const char *q = *p;

    while (q < end && (*q == ' ' || *q == '\t'))
        q++;
    if (q == end || *q < '0' || *q > '9')
        return -1;
    for (; q < end && *q >= '0' && *q <= '9'; q++) {
        v = v * 10 + (uint64_t)(*q - '0');
        if (v > UINT32_MAX)
            return -1;
    }
    *p = q;
    *out = (uint32_t)v;
    return 0;
}

int userns_parse_map(const char *text, size_t len, userns_extent *out, size_t max, size_t *n)
{
    const char *p = text, *end = text + len;

    *n = 0;
    while (p < end) {
        userns_extent e;
        if (*p == '\n') {
            p++;
            continue;
        }
        if (*n == max || userns_number(&p, end, &e.inside) != 0 ||
            userns_number(&p, end, &e.outside) != 0 || userns_number(&p, end, &e.count) != 0 ||
            e.count == 0 || (uint64_t)e.inside + e.count > (1ull << 32) ||
            (uint64_t)e.outside + e.count > (1ull << 32))
            return -1;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p < end && *p != '\n')
            return -1;
        out[(*n)++] = e;
    }
    return 0;
}

int userns_to_inside(const userns_extent *map, size_t n, uint32_t outside, uint32_t *inside)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (outside >= map[i].outside && outside - map[i].outside < map[i].count) {
            *inside = map[i].inside + (outside - map[i].outside);
            return 0;
        }
    return -1;
}

/* The real uid from /proc/pid/status ("Uid:\treal\teffective..."). */
static int userns_status_uid(pid_t pid, uid_t *uid)
{
    char buf[4096], *line;
    size_t len = 0;
    unsigned long v;

    if (proc_read(pid, "status", buf, sizeof(buf) - 1, &len) != 0)
        return -1;
    buf[len] = '\0';
    line = strstr(buf, "\nUid:");
    if (!line)
        return -1;
    errno = 0;
    v = strtoul(line + 5, NULL, 10);
    if (errno)
        return -1;
    *uid = (uid_t)v;
    return 0;
}

/* 1 when fd is the same namespace as our own user namespace. */
static int userns_is_ours(int fd, const struct stat *self)
{
    struct stat st;

    return fstat(fd, &st) == 0 && st.st_dev == self->st_dev && st.st_ino == self->st_ino;
}

/* Walks up from the namespace open at fd: the owner of the namespace right
 * below ours, or -1 when ours is not above it. Closes fd. */
static int userns_owner_below_ours(int fd, const struct stat *self, uid_t *owner)
{
    int depth;

    for (depth = 0; depth < 33; depth++) { /* the kernel nests 32 at most */
        uid_t uid;
        int parent = ioctl(fd, NS_GET_PARENT);
        if (parent < 0 || ioctl(fd, NS_GET_OWNER_UID, &uid) != 0) {
            if (parent >= 0)
                close(parent);
            break;
        }
        if (userns_is_ours(parent, self)) {
            close(parent);
            close(fd);
            *owner = uid;
            return 0;
        }
        close(fd);
        fd = parent;
    }
    close(fd);
    return -1;
}

/* The uid inside of out->uid by pid's uid_map (-1 when unmapped). */
static void userns_inside(pid_t pid, userns_facts *out)
{
    char text[8192];
    userns_extent map[USERNS_EXTENTS_MAX];
    size_t len = 0, n = 0;
    uint32_t inside;

    out->uid_inside = (uid_t)-1;
    if (proc_read(pid, "uid_map", text, sizeof(text), &len) == 0 &&
        userns_parse_map(text, len, map, USERNS_EXTENTS_MAX, &n) == 0 &&
        userns_to_inside(map, n, (uint32_t)out->uid, &inside) == 0)
        out->uid_inside = (uid_t)inside;
}

/* A process whose namespace the server may not open (another user's): its
 * uid_map, which anyone may read, tells whether it is ours; its owner is
 * not known. Never ours to act for unless of our own uid in our namespace. */
static int userns_from_maps(pid_t pid, userns_facts *out)
{
    char mine[8192], theirs[8192];
    size_t a = 0, b = 0;

    if (proc_read(getpid(), "uid_map", mine, sizeof(mine), &a) != 0 ||
        proc_read(pid, "uid_map", theirs, sizeof(theirs), &b) != 0)
        return -1;
    out->other = a != b || memcmp(mine, theirs, a) != 0;
    out->owner = (uid_t)-1;
    out->ours = !out->other && out->uid == getuid();
    out->can_give = out->uid == getuid() || getuid() == 0;
    if (out->other)
        userns_inside(pid, out);
    return 0;
}

int userns_probe(pid_t pid, userns_facts *out, char *err, size_t errsz)
{
    char path[64];
    struct stat self;
    int fd;

    memset(out, 0, sizeof(*out));
    if (userns_status_uid(pid, &out->uid) != 0) {
        if (err)
            snprintf(err, errsz, "cannot read /proc/%d/status: %s", (int)pid, strerror(errno));
        return -1;
    }
    out->uid_inside = out->uid;
    snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM))
        return userns_from_maps(pid, out);
    if (fd < 0 || stat("/proc/self/ns/user", &self) != 0) {
        if (err)
            snprintf(err, errsz, "cannot open %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (userns_is_ours(fd, &self)) {
        close(fd);
        out->ours = out->uid == getuid();
        out->can_give = out->ours || getuid() == 0;
        return 0;
    }
    out->other = 1;
    out->owner = (uid_t)-1;
    out->ours = userns_owner_below_ours(fd, &self, &out->owner) == 0 && out->owner == getuid();
    out->can_give = out->uid == getuid() || getuid() == 0;
    userns_inside(pid, out);
    return 0;
}
