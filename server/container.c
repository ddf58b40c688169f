/* container.c -- the container a process runs in (see container.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* setns */
#endif
#include "container.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "proc.h"
#include "userns.h"

static int container_is_hex(const char *p, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
            return 0;
    return 1;
}

/* The id in one path component (n bytes at c): 64 hex digits alone, or after
 * a prefix ending in '-', with ".scope" or nothing after them. */
static const char *container_id_in(const char *c, size_t n)
{
    const char *id;

    if (n >= 6 && memcmp(c + n - 6, ".scope", 6) == 0)
        n -= 6;
    if (n < CONTAINER_ID_LEN)
        return NULL;
    id = c + n - CONTAINER_ID_LEN;
    if (id != c && id[-1] != '-')
        return NULL;
    return container_is_hex(id, CONTAINER_ID_LEN) ? id : NULL;
}

int container_id_from_cgroup(const char *text, size_t len, char *out)
{
    const char *line = text, *end = text + len;

    while (line < end) {
        const char *eol = memchr(line, '\n', (size_t)(end - line)), *path, *c, *found = NULL;
        eol = eol ? eol : end;
        /* "HIERARCHY:CONTROLLERS:PATH" */
        path = memchr(line, ':', (size_t)(eol - line));
        path = path ? memchr(path + 1, ':', (size_t)(eol - path - 1)) : NULL;
        for (c = path ? path + 1 : eol; c < eol;) {
            const char *slash = memchr(c, '/', (size_t)(eol - c)), *id;
            size_t n = (size_t)((slash ? slash : eol) - c);
            if ((id = container_id_in(c, n)))
                found = id;
            c += n + 1;
        }
        if (found) {
            memcpy(out, found, CONTAINER_ID_LEN);
            out[CONTAINER_ID_LEN] = '\0';
            return 1;
        }
        line = eol + 1;
    }
    out[0] = '\0';
    return 0;
}

/* 1 when pid's namespace `kind` (mnt, pid, uts) is not ours. */
static int container_ns_differs(pid_t pid, const char *kind)
{
    char path[64], self[64];
    struct stat a, b;

    snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, kind);
    snprintf(self, sizeof(self), "/proc/self/ns/%s", kind);
    if (stat(path, &a) != 0 || stat(self, &b) != 0)
        return 0;
    return a.st_ino != b.st_ino || a.st_dev != b.st_dev;
}

typedef struct container_uts_job {
    int fd;
    char name[CONTAINER_HOSTNAME_MAX];
    int ok;
} container_uts_job;

/* A thread of its own joins the UTS namespace (only that thread's changes)
 * and asks uname; it ends right after. */
static void *container_uts_thread(void *arg)
{
    container_uts_job *job = arg;
    struct utsname u;

    if (setns(job->fd, CLONE_NEWUTS) == 0 && uname(&u) == 0) {
        snprintf(job->name, sizeof(job->name), "%s", u.nodename);
        job->ok = 1;
    }
    return NULL;
}

/* The hostname of pid's UTS namespace; else its root's /etc/hostname. */
static void container_hostname(pid_t pid, container_facts *out)
{
    container_uts_job job = {.fd = -1};
    pthread_t thread;
    char path[64];
    size_t n = 0;
    int fd;

    snprintf(path, sizeof(path), "/proc/%d/ns/uts", (int)pid);
    job.fd = open(path, O_RDONLY | O_CLOEXEC);
    if (job.fd >= 0 && pthread_create(&thread, NULL, container_uts_thread, &job) == 0)
        pthread_join(thread, NULL);
    if (job.fd >= 0)
        close(job.fd);
    if (job.ok) {
        memcpy(out->hostname, job.name, sizeof(out->hostname));
        return;
    }
    snprintf(path, sizeof(path), "/proc/%d/root/etc/hostname", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd >= 0) {
        ssize_t r = read(fd, out->hostname, sizeof(out->hostname) - 1);
        n = r > 0 ? (size_t)r : 0;
        close(fd);
    }
    while (n > 0 && (out->hostname[n - 1] == '\n' || out->hostname[n - 1] == ' '))
        n--;
    out->hostname[n] = '\0';
    out->hostname_from_file = n > 0;
}

/* The last number of the NSpid line of /proc/pid/status. */
static pid_t container_ns_pid(pid_t pid)
{
    char buf[4096], *line, *p;
    size_t len = 0;
    long v = 0;

    if (proc_read(pid, "status", buf, sizeof(buf) - 1, &len) != 0)
        return pid;
    buf[len] = '\0';
    line = strstr(buf, "\nNSpid:");
    if (!line)
        return pid;
    for (p = line + 7; *p && *p != '\n'; p++) {
        if (*p >= '0' && *p <= '9') {
            v = strtol(p, &p, 10);
            p--;
        }
    }
    return v > 0 ? (pid_t)v : pid;
}

int container_probe(pid_t pid, container_facts *out)
{
    char cgroup[8192], err[128];
    size_t len = 0;
    userns_facts u;

    memset(out, 0, sizeof(*out));
    out->pid = pid;
    out->uid = -1;
    if (proc_is_gone(pid))
        return -1;
    out->in_container = container_ns_differs(pid, "mnt") || container_ns_differs(pid, "pid") ||
                        container_ns_differs(pid, "uts");
    if (!out->in_container)
        return 0;
    out->pid = container_ns_pid(pid);
    if (proc_read(pid, "cgroup", cgroup, sizeof(cgroup), &len) == 0)
        container_id_from_cgroup(cgroup, len, out->id);
    container_hostname(pid, out);
    if (userns_probe(pid, &u, err, sizeof(err)) == 0) {
        out->user_namespace = u.other;
        out->uid = u.uid_inside == (uid_t)-1 ? -1 : (long)u.uid_inside;
    }
    return 0;
}
