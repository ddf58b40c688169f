/* procscan.c -- list the .NET processes we can attach to (see procscan.h).
 *
 * Two passes, so that each directory is read once however many processes share
 * it: (1) /proc gives the candidate processes and, through ipc_target_probe, each
 * one's socket directory and start time; (2) every distinct directory (plus /tmp
 * and our own TMPDIR) is listed and each dotnet-diagnostic-{pid}-{key}-socket is
 * matched to a candidate by pid and key. A socket in the candidate's own
 * directory beats one found elsewhere; an exact key beats a key of 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "procscan.h"
#include "userns.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct candidate {
    ipc_target t;
    int ours;  /* of our user, or in a container our user started (userns.h) */
    int score; /* 0 none; higher is better, see match_score */
    uid_t sock_uid;
    char path[IPC_PATH_MAX];
} candidate;

typedef struct scan_state {
    candidate *c;
    size_t n, cap;
    char (*dirs)[IPC_PATH_MAX];
    size_t ndirs;
} scan_state;

static int add_dir(scan_state *s, const char *dir)
{
    size_t i, len = strlen(dir);
    if (len == 0 || len >= IPC_PATH_MAX)
        return 0;
    for (i = 0; i < s->ndirs; i++)
        if (strcmp(s->dirs[i], dir) == 0)
            return 0;
    if (s->ndirs >= PROCSCAN_MAX_DIRS)
        return 0; /* bounded: further directories are not listed */
    memcpy(s->dirs[s->ndirs], dir, len + 1);
    s->ndirs++;
    return 0;
}

static int add_candidate(scan_state *s, const ipc_target *t)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        candidate *bigger;
        if (cap > PROCSCAN_MAX_PROCS)
            cap = PROCSCAN_MAX_PROCS;
        if (cap <= s->n)
            return 0; /* bounded: further processes are not examined */
        bigger = realloc(s->c, cap * sizeof(*bigger));
        if (bigger == NULL)
            return -1;
        s->c = bigger;
        s->cap = cap;
    }
    memset(&s->c[s->n], 0, sizeof(s->c[s->n]));
    s->c[s->n].t = *t;
    s->n++;
    return 0;
}

/* Pass 1: candidates from /proc. */
static int collect_processes(scan_state *s, unsigned flags)
{
    DIR *d;
    struct dirent *de;
    uid_t me = geteuid();
    int rc = IPC_OK;

    d = opendir("/proc");
    if (d == NULL)
        return IPC_ERR_IO;
    while ((de = readdir(d)) != NULL) {
        char *end = NULL, path[64];
        long v;
        struct stat st;
        ipc_target t;
        userns_facts u;
        int ours;

        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        errno = 0;
        v = strtol(de->d_name, &end, 10);
        if (errno != 0 || end == NULL || *end != '\0' || v <= 0 || v > 0x7fffffffL)
            continue;
        if ((pid_t)v == getpid())
            continue;
        /* Cheap filter before reading anything else. */
        snprintf(path, sizeof(path), "/proc/%ld", v);
        if (stat(path, &st) != 0)
            continue;
        /* own user only, even as root (attach refuses the others, 403), and
         * the users of containers our user started (userns.h) */
        ours = st.st_uid == me;
        if (!ours && userns_probe((pid_t)v, &u, NULL, 0) == 0)
            ours = u.ours;
        if (!(flags & PROCSCAN_INCLUDE_OTHERS) && !ours)
            continue;
        if (ipc_target_probe((pid_t)v, &t, NULL, 0) != IPC_OK)
            continue; /* exited, or no usable socket directory */
        if (add_candidate(s, &t) != 0) {
            rc = IPC_ERR_IO;
            break;
        }
        s->c[s->n - 1].ours = ours;
        add_dir(s, t.dir);
    }
    closedir(d);
    return rc;
}

/* How good a socket with `key` in `dir` is for candidate c (0: not its). */
static int match_score(const candidate *c, const char *dir, uint64_t key, time_t mtime)
{
    int own = strcmp(c->t.dir, dir) == 0;
    if (!own && c->t.foreign_root)
        return 0; /* a containerised pid means nothing in our own /tmp */
    if (!ipc_socket_key_ok(&c->t, key, mtime))
        return 0;
    return (key == c->t.start_time ? 2 : 0) + (own ? 1 : 0) + 1;
}

/* Pass 2: list one directory and attach its sockets to candidates. */
static void scan_dir(scan_state *s, const char *dir)
{
    DIR *d;
    struct dirent *de;
    unsigned seen = 0;

    d = opendir(dir);
    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL && seen++ < 100000u) {
        pid_t p;
        uint64_t key;
        struct stat st;
        size_t i, dlen, nlen;
        int stated = 0;

        if (!ipc_parse_socket_name(de->d_name, &p, &key))
            continue;
        for (i = 0; i < s->n; i++) {
            candidate *c = &s->c[i];
            int score;
            if (c->t.ns_pid != p)
                continue;
            if (!stated) {
                if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
                    !S_ISSOCK(st.st_mode))
                    break;
                stated = 1;
            }
            score = match_score(c, dir, key, st.st_mtime);
            if (score <= c->score)
                continue;
            dlen = strlen(dir);
            nlen = strlen(de->d_name);
            if (dlen + nlen >= sizeof(c->path))
                continue;
            memcpy(c->path, dir, dlen);
            memcpy(c->path + dlen, de->d_name, nlen + 1);
            c->score = score;
            c->sock_uid = st.st_uid;
        }
    }
    closedir(d);
}

static int by_pid(const void *a, const void *b)
{
    const procscan_entry *x = a, *y = b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

int procscan_list_ex(procscan_entry *out, size_t max, size_t *count, unsigned flags)
{
    scan_state s;
    const char *env_tmp;
    size_t i, n = 0, found = 0;
    int rc;

    if (count == NULL || (out == NULL && max > 0))
        return IPC_ERR_INVAL;
    *count = 0;
    memset(&s, 0, sizeof(s));
    s.dirs = calloc(PROCSCAN_MAX_DIRS, sizeof(*s.dirs));
    if (s.dirs == NULL)
        return IPC_ERR_IO;

    rc = collect_processes(&s, flags);
    if (rc != IPC_OK)
        goto fail;
    add_dir(&s, "/tmp/");
    env_tmp = getenv("TMPDIR");
    if (env_tmp != NULL && env_tmp[0] == '/') {
        char dir[IPC_PATH_MAX];
        size_t len = strlen(env_tmp);
        if (len + 2 <= sizeof(dir)) {
            memcpy(dir, env_tmp, len + 1);
            if (dir[len - 1] != '/') {
                dir[len] = '/';
                dir[len + 1] = '\0';
            }
            add_dir(&s, dir);
        }
    }
    for (i = 0; i < s.ndirs; i++)
        scan_dir(&s, s.dirs[i]);

    for (i = 0; i < s.n; i++) {
        const candidate *c = &s.c[i];
        int can;
        if (c->score == 0)
            continue;
        can = c->ours && c->sock_uid == c->t.uid;
        if (!can && !(flags & PROCSCAN_INCLUDE_OTHERS))
            continue;
        found++;
        if (n >= max)
            continue;
        memset(&out[n], 0, sizeof(out[n]));
        out[n].pid = c->t.pid;
        out[n].ns_pid = c->t.ns_pid;
        out[n].uid = c->sock_uid;
        out[n].can_attach = can;
        out[n].start_time = c->t.start_time;
        memcpy(out[n].socket_path, c->path, sizeof(out[n].socket_path));
        n++;
    }
    if (n > 1)
        qsort(out, n, sizeof(*out), by_pid);
    *count = n;
    rc = found > n ? PROCSCAN_MORE : IPC_OK;

fail:
    free(s.c);
    free(s.dirs);
    return rc;
}

int procscan_list(procscan_entry *out, size_t max, size_t *count)
{
    return procscan_list_ex(out, max, count, 0);
}
