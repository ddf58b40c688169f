/* procfile.c -- a whole /proc file read into memory (see procfile.h). */
#include "procfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define PROCFILE_FIRST_BYTES 65536u

int procfile_fill(int fd, char *buf, size_t cap, size_t *length)
{
    size_t n = 0;

    while (n < cap) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        n += (size_t)r;
    }
    *length = n;
    return 0;
}

int procfile_read(pid_t pid, const char *name, size_t max, char **text, size_t *length)
{
    char path[96], *buf = NULL;
    size_t used = 0, cap = 0, n;
    int fd, rc = 0, err;

    *text = NULL;
    *length = 0;
    snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    for (;;) {
        if (used == cap) {
            size_t c = cap ? cap * 2 : PROCFILE_FIRST_BYTES;
            char *grown = c <= max ? realloc(buf, c) : NULL;
            if (!grown) {
                rc = 1; /* what was read is kept: the rest is unknown */
                break;
            }
            buf = grown;
            cap = c;
        }
        if (procfile_fill(fd, buf + used, cap - used, &n) != 0) {
            err = errno;
            close(fd);
            free(buf);
            errno = err;
            return -1;
        }
        used += n;
        if (used < cap)
            break; /* its end came first */
    }
    close(fd);
    *text = buf;
    *length = used;
    return rc;
}
