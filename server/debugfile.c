/* debugfile.c -- finding a stripped ELF file's separate debug file (see debugfile.h). */
#include "debugfile.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEBUGFILE_PATH_MAX 4096

/* Tries one candidate path: opened only when it is a regular file. 1 when it
 * is t's debug file (its symbols added), 0 not, -1 out of memory. */
static int debugfile_try(elfsyms *t, const char *path, char *found, size_t found_size)
{
    struct stat st;
    int fd, rc;

    if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0)
        return 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return 0;
    }
    rc = elfsyms_add_debug_file(t, fd);
    close(fd);
    if (rc == 1 && found)
        snprintf(found, found_size, "%s", path);
    return rc;
}

/* Tries the path fmt makes (one too long for a path is no candidate). */
static int debugfile_at(elfsyms *t, char *found, size_t found_size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int debugfile_at(elfsyms *t, char *found, size_t found_size, const char *fmt, ...)
{
    char path[DEBUGFILE_PATH_MAX];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(path, sizeof(path), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(path))
        return 0;
    return debugfile_try(t, path, found, found_size);
}

/* The build ID as lower-case hex: "ab" and "cdef..." parts. */
static int debugfile_build_id(const elfsyms *t, char *head, char *tail)
{
    size_t i;

    if (t->build_id_length < 2)
        return 0;
    snprintf(head, 3, "%02x", t->build_id[0]);
    for (i = 1; i < t->build_id_length; i++)
        snprintf(tail + 2 * (i - 1), 3, "%02x", t->build_id[i]);
    return 1;
}

/* debuginfod's cache directory, "" when none can be named. */
static void debugfile_cache_dir(char *out, size_t size)
{
    const char *v;

    out[0] = '\0';
    if ((v = getenv("DEBUGINFOD_CACHE_PATH")) && v[0] == '/')
        snprintf(out, size, "%s", v);
    else if ((v = getenv("XDG_CACHE_HOME")) && v[0] == '/')
        snprintf(out, size, "%s/debuginfod_client", v);
    else if ((v = getenv("HOME")) && v[0] == '/')
        snprintf(out, size, "%s/.cache/debuginfod_client", v);
}

int debugfile_add(elfsyms *t, const char *mapped_path, pid_t pid, char *found, size_t found_size)
{
    char root[64] = "", cache[1024];
    char head[3], tail[2 * ELFSYMS_MAX_BUILD_ID + 1];
    const char *slash = mapped_path[0] == '/' ? strrchr(mapped_path, '/') : NULL;
    int rc, have_id = debugfile_build_id(t, head, tail),
            dir = slash ? (int)(slash - mapped_path) : 0;

    if (pid > 0)
        snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
    if (have_id) {
        rc = debugfile_at(t, found, found_size, "%s/usr/lib/debug/.build-id/%s/%s.debug", root,
                          head, tail);
        if (rc == 0 && root[0]) /* the server's own: the build ID makes them safe to use */
            rc = debugfile_at(t, found, found_size, "/usr/lib/debug/.build-id/%s/%s.debug", head,
                              tail);
        if (rc != 0)
            return rc;
    }
    if (t->debuglink[0] && slash) {
        rc = debugfile_at(t, found, found_size, "%s%.*s/%s", root, dir, mapped_path, t->debuglink);
        if (rc == 0)
            rc = debugfile_at(t, found, found_size, "%s%.*s/.debug/%s", root, dir, mapped_path,
                              t->debuglink);
        if (rc == 0)
            rc = debugfile_at(t, found, found_size, "%s/usr/lib/debug%.*s/%s", root, dir,
                              mapped_path, t->debuglink);
        if (rc != 0)
            return rc;
    }
    debugfile_cache_dir(cache, sizeof(cache));
    if (have_id && cache[0])
        return debugfile_at(t, found, found_size, "%s/%s%s/debuginfo", cache, head, tail);
    return 0;
}
