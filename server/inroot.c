/* inroot.c -- a path opened from a process's root without leaving it (see
 * inroot.h). */
#include "inroot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define INROOT_PATH_MAX 4096u

static int inroot_walk_forced;

void inroot_force_walk(int on) { inroot_walk_forced = on; }

/* The component walk: every directory on the way opened with O_NOFOLLOW
 * (a link there fails with ELOOP or ENOTDIR), ".." refused (EXDEV), the last
 * component opened with flags | O_NOFOLLOW (an O_PATH open of a link gives
 * the link itself, which the callers' checks turn away). */
static int inroot_walk(int root, const char *path, int flags)
{
    char buf[INROOT_PATH_MAX];
    char *part, *next;
    int dir, fd;

    if (strlen(path) >= sizeof(buf)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, strlen(path) + 1);
    if ((dir = dup(root)) < 0)
        return -1;
    part = buf;
    for (;;) {
        char *rest;
        while (*part == '/')
            part++;
        next = strchr(part, '/');
        if (next)
            *next = '\0';
        rest = next ? next + 1 : NULL;
        while (rest && *rest == '/')
            rest++; /* "a//b" */
        if (!strcmp(part, "..")) {
            close(dir);
            errno = EXDEV;
            return -1;
        }
        if (!rest || !*rest) { /* the last component ("a/" included) */
            fd = openat(dir, *part ? part : ".", flags | O_NOFOLLOW | O_CLOEXEC);
            close(dir);
            return fd;
        }
        if (*part && strcmp(part, ".") != 0) {
            fd = openat(dir, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            close(dir);
            if (fd < 0)
                return -1;
            dir = fd;
        }
        part = rest;
    }
}

int inroot_open(pid_t pid, const char *path, int flags)
{
    struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC),
                           .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
    char root_path[64];
    int root, fd, e;

    if (!path || path[0] != '/') {
        errno = EINVAL;
        return -1;
    }
    snprintf(root_path, sizeof(root_path), "/proc/%d/root", (int)pid);
    if ((root = open(root_path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
        return -1;
    fd = inroot_walk_forced ? -1 : (int)syscall(SYS_openat2, root, path, &how, sizeof(how));
    if (fd < 0 &&
        (inroot_walk_forced || errno == ENOSYS || errno == EPERM)) /* EPERM: a seccomp filter */
        fd = inroot_walk(root, path, flags);
    e = errno;
    close(root);
    errno = e;
    return fd;
}
