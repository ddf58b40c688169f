/* proc.c -- parent, liveness and command line of a process from /proc (see proc.h). */
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "procfile.h"
#include "procname.h"
#include "utf.h"

int proc_stat_field(const char *text, size_t len, unsigned field, size_t *at)
{
    size_t i, close = len;
    unsigned n = 2; /* the last ')' ends field 2: comm may hold spaces and ')' */

    if (text == NULL || field < 3)
        return -1;
    for (i = len; i > 0; i--) {
        if (text[i - 1] == ')') {
            close = i - 1;
            break;
        }
    }
    if (close == len)
        return -1;
    i = close + 1;
    for (;;) { /* fields are separated by single spaces */
        if (i >= len || text[i] != ' ')
            return -1;
        i++;
        if (++n == field)
            break;
        if (i >= len || text[i] == ' ')
            return -1; /* an empty field: the line is not what we think */
        for (; i < len && text[i] != ' '; i++)
            if (text[i] == '\n' || text[i] == '\0')
                return -1;
    }
    *at = i;
    return 0;
}

int proc_stat_number(const char *text, size_t len, unsigned field, uint64_t *out)
{
    uint64_t v = 0;
    size_t i, digits = 0;

    if (proc_stat_field(text, len, field, &i) != 0)
        return -1;
    for (; i < len && text[i] >= '0' && text[i] <= '9'; i++, digits++) {
        unsigned d = (unsigned)(text[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (digits == 0 || (i < len && text[i] != ' ' && text[i] != '\n'))
        return -1; /* followed by a separator, or the end of a cut text */
    *out = v;
    return 0;
}

int proc_parse_stat(const char *text, size_t len, char *state, pid_t *ppid)
{
    uint64_t parent;
    size_t at;

    if (proc_stat_field(text, len, 3, &at) != 0 || at >= len ||
        proc_stat_number(text, len, 4, &parent) != 0 || parent > 0x7fffffffu)
        return -1;
    *state = text[at];
    *ppid = (pid_t)parent;
    return 0;
}

int proc_read(pid_t pid, const char *name, char *buf, size_t cap, size_t *len)
{
    char path[64];
    int fd, rc, saved;

    *len = 0;
    snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    rc = procfile_fill(fd, buf, cap, len);
    saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

static int proc_stat(pid_t pid, char *state, pid_t *ppid)
{
    char buf[1024];
    size_t n;

    if (pid <= 0 || proc_read(pid, "stat", buf, sizeof(buf), &n) != 0 || n == 0)
        return -1;
    return proc_parse_stat(buf, n, state, ppid);
}

pid_t proc_parent_pid(pid_t pid)
{
    char state;
    pid_t ppid;

    return proc_stat(pid, &state, &ppid) == 0 ? ppid : 0;
}

uint64_t proc_start_time(pid_t pid)
{
    char text[1024];
    size_t len;
    uint64_t start = 0;

    if (pid <= 0 || proc_read(pid, "stat", text, sizeof(text), &len) != 0 ||
        proc_stat_number(text, len, 22, &start) != 0)
        return 0;
    return start;
}

int proc_is_gone(pid_t pid)
{
    char state;
    pid_t ppid;

    if (pid <= 0)
        return 1;
    if (kill(pid, 0) != 0 && errno == ESRCH)
        return 1;
    /* alive or not ours to signal: a zombie (or a dead task) has only its
     * exit status left */
    return proc_stat(pid, &state, &ppid) == 0 && (state == 'Z' || state == 'X');
}

int proc_has_thread(pid_t pid, const char *comm)
{
    char dir[48];
    struct dirent *e;
    DIR *d;
    size_t want = strlen(comm);
    int found = 0;

    if (pid <= 0)
        return 0;
    snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
    d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    while (!found && (e = readdir(d))) {
        char name[96], text[32];
        size_t n;
        int fd;
        ssize_t r;

        if (e->d_name[0] < '0' || e->d_name[0] > '9' || strlen(e->d_name) > 20)
            continue;
        if (snprintf(name, sizeof(name), "%s/%.20s/comm", dir, e->d_name) >= (int)sizeof(name))
            continue; /* cannot happen: a pid directory and a 20-digit name fit */
        fd = open(name, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue; /* the thread ended meanwhile */
        r = read(fd, text, sizeof(text) - 1);
        close(fd);
        if (r <= 0)
            continue;
        n = (size_t)r;
        if (text[n - 1] == '\n')
            n--;
        found = n == want && memcmp(text, comm, n) == 0;
    }
    closedir(d);
    return found;
}

int proc_command_line(pid_t pid, char *out, size_t outsz)
{
    char raw[4096];
    size_t n, i, len;
    int truncated;

    if (outsz == 0)
        return -1;
    out[0] = '\0';
    if (pid <= 0 || proc_read(pid, "cmdline", raw, sizeof(raw), &n) != 0 || n == 0)
        return -1;
    while (n > 0 && raw[n - 1] == '\0') /* the last argument's NUL */
        n--;
    for (i = 0; i < n; i++)
        if (raw[i] == '\0')
            raw[i] = ' ';
    /* arguments are bytes, not necessarily UTF-8: the JSON needs UTF-8 */
    len = utf8_sanitize(raw, n, out, outsz - 1, &truncated);
    out[len] = '\0';
    return 0;
}

int proc_program_name(pid_t pid, char *out, size_t outsz)
{
    char raw[4096];
    size_t n;

    if (outsz)
        out[0] = '\0';
    if (pid <= 0 || proc_read(pid, "cmdline", raw, sizeof(raw), &n) != 0 || n == 0)
        return -1;
    return procname_of_args(raw, n, '\0', out, outsz) == PROCNAME_NONE ? -1 : 0;
}
