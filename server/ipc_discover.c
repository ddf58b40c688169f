/* ipc_discover.c -- finding the diagnostics socket of a pid (see ipc_discover.h).
 *
 * Reads /proc/{pid} (owner, start time, NSpid, mount namespace, TMPDIR from the
 * environment, working directory) to work out where the target's runtime put
 * dotnet-diagnostic-{pid}-{key}-socket, then looks for it there. The pure
 * parsers of /proc text and socket names come first so they can be unit-tested.
 * ipc.c uses ipc_socket_path before each command; procscan.c uses the parsers.
 * The facts about socket naming and their sources are listed at the top of ipc.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* CLOCK_BOOTTIME, strnlen */
#endif
#include "ipc_discover.h"
#include "ipc_io.h"
#include "proc.h"
#include "procfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define IPC_STAT_MAX 4096u           /* /proc/pid/stat is a few hundred bytes */
#define IPC_STATUS_MAX (64u * 1024u) /* /proc/pid/status */
#define IPC_ENVIRON_MAX (4u * 1024u * 1024u)
#define IPC_SOCKET_PREFIX "dotnet-diagnostic-"
#define IPC_SOCKET_SUFFIX "-socket"
#define IPC_SCAN_MAX_ENTRIES 100000u /* directory entries looked at in one scan */

/* ---- pure helpers ---------------------------------------------------------- */

int ipc_parse_stat_starttime(const char *text, size_t len, uint64_t *start_time)
{
    if (text == NULL || start_time == NULL)
        return IPC_ERR_INVAL;
    return proc_stat_number(text, len, 22, start_time) == 0 ? IPC_OK : IPC_ERR_PROTO;
}

int ipc_environ_lookup(const char *block, size_t len, const char *name, char *out, size_t outsz)
{
    size_t namelen, pos = 0;

    if (block == NULL || name == NULL || out == NULL || outsz == 0)
        return IPC_ERR_INVAL;
    namelen = strlen(name);
    if (namelen == 0)
        return IPC_ERR_INVAL;
    out[0] = '\0';
    while (pos < len) {
        const char *entry = block + pos;
        const char *nul = memchr(entry, '\0', len - pos);
        size_t elen;
        if (nul == NULL)
            break; /* unterminated last entry (a cut read): ignore it */
        elen = (size_t)(nul - entry);
        if (elen > namelen && memcmp(entry, name, namelen) == 0 && entry[namelen] == '=') {
            size_t vlen = elen - namelen - 1;
            if (vlen + 1 > outsz)
                return IPC_ERR_INVAL;
            memcpy(out, entry + namelen + 1, vlen);
            out[vlen] = '\0';
            return 1;
        }
        pos += elen + 1;
    }
    return 0;
}

/* Parses an unsigned decimal that ends exactly at `end`; 0 on failure. */
static int parse_dec(const char *s, const char *end, uint64_t *out)
{
    uint64_t v = 0;
    if (s >= end)
        return 0;
    for (; s < end; s++) {
        unsigned d;
        if (*s < '0' || *s > '9')
            return 0;
        d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

int ipc_parse_socket_name(const char *name, pid_t *pid, uint64_t *key)
{
    const size_t plen = sizeof(IPC_SOCKET_PREFIX) - 1, slen = sizeof(IPC_SOCKET_SUFFIX) - 1;
    const char *p, *end, *dash;
    size_t n;
    uint64_t vpid, vkey;

    if (name == NULL)
        return 0;
    n = strnlen(name, 256);
    if (n < plen + slen + 3 || n == 256)
        return 0;
    if (memcmp(name, IPC_SOCKET_PREFIX, plen) != 0 ||
        memcmp(name + n - slen, IPC_SOCKET_SUFFIX, slen) != 0)
        return 0;
    p = name + plen;
    end = name + n - slen;
    dash = memchr(p, '-', (size_t)(end - p));
    if (dash == NULL)
        return 0;
    if (!parse_dec(p, dash, &vpid) || !parse_dec(dash + 1, end, &vkey))
        return 0;
    if (vpid == 0 || vpid > INT_MAX)
        return 0;
    if (pid != NULL)
        *pid = (pid_t)vpid;
    if (key != NULL)
        *key = vkey;
    return 1;
}

int ipc_socket_key_ok(const ipc_target *t, uint64_t key, time_t mtime)
{
    if (t == NULL)
        return 0;
    if (key == t->start_time)
        return 1;
    if (key != 0)
        return 0;
    /* Key 0: the runtime could not read its start time. Accept the socket only
     * when it is not older than the process (2 s of slack for rounding). */
    if (t->start_realtime == 0)
        return 0;
    return mtime + 2 >= t->start_realtime;
}

/* ---- /proc probing --------------------------------------------------------- */

/* Reads /proc/pid/environ into a heap buffer of at most IPC_ENVIRON_MAX bytes
 * (bounded: the rest is not looked at). The buffer starts at 64 KiB and
 * doubles as the file goes on (procfile.h): a buffer of the bound at every
 * attach made glibc's malloc raise its thresholds to 4 MiB (mmap) and 8 MiB
 * (trim) for the whole server, which then kept the memory freed below them. */
static int read_environ(pid_t pid, char **out, size_t *len)
{
    int rc = procfile_read(pid, "environ", IPC_ENVIRON_MAX, out, len);

    if (rc < 0)
        return -1;
    if (*out == NULL) { /* not even its first bytes had room */
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* Innermost pid from the NSpid line of /proc/pid/status; pid itself when absent. */
static pid_t read_ns_pid(pid_t pid)
{
    char *buf;
    size_t len = 0;
    pid_t result = pid;
    const char *line;

    buf = malloc(IPC_STATUS_MAX);
    if (buf == NULL)
        return pid;
    if (proc_read(pid, "status", buf, IPC_STATUS_MAX, &len) != 0)
        goto done;
    line = buf;
    while ((size_t)(line - buf) < len) {
        size_t rest = len - (size_t)(line - buf);
        const char *eol = memchr(line, '\n', rest);
        size_t llen = eol ? (size_t)(eol - line) : rest;
        if (llen > 6 && memcmp(line, "NSpid:", 6) == 0) {
            const char *q = line + llen, *start;
            uint64_t v;
            while (q > line + 6 && (q[-1] == ' ' || q[-1] == '\t'))
                q--;
            start = q;
            while (start > line + 6 && start[-1] >= '0' && start[-1] <= '9')
                start--;
            if (parse_dec(start, q, &v) && v > 0 && v <= INT_MAX)
                result = (pid_t)v;
            break;
        }
        if (eol == NULL)
            break;
        line = eol + 1;
    }
done:
    free(buf);
    return result;
}

/* Wall-clock start of a process from its start time in clock ticks since boot. */
static time_t start_realtime(uint64_t ticks)
{
    struct timespec real, boot;
    long hz = sysconf(_SC_CLK_TCK);
    double up, started;

    if (hz <= 0 || clock_gettime(CLOCK_REALTIME, &real) != 0 ||
        clock_gettime(CLOCK_BOOTTIME, &boot) != 0)
        return 0;
    up = (double)boot.tv_sec + (double)boot.tv_nsec / 1e9;
    started = (double)ticks / (double)hz;
    if (started > up)
        started = up;
    return real.tv_sec - (time_t)(up - started);
}

/* 1 when pid lives in another mount namespace than we do (0 when unknown). */
static int other_mount_ns(pid_t pid)
{
    char path[64];
    struct stat self, other;
    snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
    if (stat("/proc/self/ns/mnt", &self) != 0 || stat(path, &other) != 0)
        return 0;
    return self.st_dev != other.st_dev || self.st_ino != other.st_ino;
}

/* Appends s to buf (NUL-terminated, size sz). 0, or -1 when it does not fit. */
static int append(char *buf, size_t sz, const char *s)
{
    size_t have = strnlen(buf, sz), add = strlen(s);
    if (have >= sz || add >= sz - have)
        return -1;
    memcpy(buf + have, s, add + 1);
    return 0;
}

int ipc_target_probe(pid_t pid, ipc_target *t, char *err, size_t errsz)
{
    char path[64], stat_text[IPC_STAT_MAX], tmpdir[PATH_MAX], cwd[PATH_MAX], ebuf[128];
    char *env = NULL;
    size_t len = 0, envlen = 0;
    struct stat st;
    int rc = IPC_ERR_IO, found = 0;

    if (t == NULL || pid <= 0) {
        ipc_set_err(err, errsz, "invalid pid %d", (int)pid);
        return IPC_ERR_INVAL;
    }
    memset(t, 0, sizeof(*t));
    t->pid = pid;
    snprintf(path, sizeof(path), "/proc/%d", (int)pid);
    if (stat(path, &st) != 0) {
        rc = errno == ENOENT ? IPC_ERR_NOPROC : IPC_ERR_IO;
        ipc_set_err(err, errsz, "stat(%s): %s", path, ipc_err_text(errno, ebuf, sizeof(ebuf)));
        goto fail;
    }
    t->uid = st.st_uid;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    if (proc_read(pid, "stat", stat_text, sizeof(stat_text), &len) != 0) {
        rc = errno == ENOENT || errno == ESRCH ? IPC_ERR_NOPROC : IPC_ERR_IO;
        ipc_set_err(err, errsz, "read(%s): %s", path, ipc_err_text(errno, ebuf, sizeof(ebuf)));
        goto fail;
    }
    if (ipc_parse_stat_starttime(stat_text, len, &t->start_time) != IPC_OK) {
        rc = IPC_ERR_IO;
        ipc_set_err(err, errsz, "%s: cannot parse the start time", path);
        goto fail;
    }
    t->start_realtime = start_realtime(t->start_time);
    t->ns_pid = read_ns_pid(pid);

    /* The target's TMPDIR, as the runtime's GetTempPath sees it. */
    tmpdir[0] = '\0';
    if (read_environ(pid, &env, &envlen) == 0) {
        t->env_readable = 1;
        found = ipc_environ_lookup(env, envlen, "TMPDIR", tmpdir, sizeof(tmpdir));
        if (found < 0) {
            rc = IPC_ERR_NOTDOTNET;
            ipc_set_err(err, errsz, "pid %d: TMPDIR is too long for a socket path", (int)pid);
            goto fail;
        }
    } else if (errno == ENOENT || errno == ESRCH) {
        rc = IPC_ERR_NOPROC;
        ipc_set_err(err, errsz, "pid %d exited", (int)pid);
        goto fail;
    }
    if (tmpdir[0] == '\0')
        memcpy(tmpdir, "/tmp/", sizeof("/tmp/"));

    t->dir[0] = '\0';
    if (other_mount_ns(pid)) {
        t->foreign_root = 1;
        snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
        if (append(t->dir, sizeof(t->dir), path) != 0)
            goto toolong;
    }
    if (tmpdir[0] != '/') {
        /* Relative TMPDIR: relative to the target's working directory. */
        ssize_t r;
        snprintf(path, sizeof(path), "/proc/%d/cwd", (int)pid);
        r = readlink(path, cwd, sizeof(cwd) - 1);
        if (r < 0) {
            rc = errno == EACCES || errno == EPERM ? IPC_ERR_PERM : IPC_ERR_IO;
            ipc_set_err(err, errsz, "readlink(%s) for relative TMPDIR \"%s\": %s", path, tmpdir,
                        ipc_err_text(errno, ebuf, sizeof(ebuf)));
            goto fail;
        }
        cwd[r] = '\0';
        if (append(t->dir, sizeof(t->dir), cwd) != 0 || append(t->dir, sizeof(t->dir), "/") != 0)
            goto toolong;
    }
    if (append(t->dir, sizeof(t->dir), tmpdir) != 0)
        goto toolong;
    len = strlen(t->dir);
    if (len == 0 || t->dir[len - 1] != '/') {
        if (append(t->dir, sizeof(t->dir), "/") != 0)
            goto toolong;
    }
    free(env);
    return IPC_OK;

toolong:
    rc = IPC_ERR_NOTDOTNET;
    ipc_set_err(err, errsz, "pid %d: socket directory is too long for a Unix socket path",
                (int)pid);
fail:
    free(env);
    return rc;
}

/* Best socket for t in t->dir. 1 found (path, st filled), 0 none, <0 error. */
static int scan_dir_for(const ipc_target *t, char *out, size_t outsz, struct stat *st_out,
                        char *err, size_t errsz)
{
    DIR *d;
    struct dirent *de;
    char ebuf[128], best[IPC_PATH_MAX];
    struct stat best_st;
    int best_exact = 0, have = 0;
    unsigned seen = 0;

    d = opendir(t->dir);
    if (d == NULL) {
        int e = errno;
        ipc_set_err(err, errsz, "opendir(%s): %s", t->dir, ipc_err_text(e, ebuf, sizeof(ebuf)));
        if (e == EACCES || e == EPERM)
            return IPC_ERR_PERM;
        return e == ENOENT || e == ENOTDIR ? 0 : IPC_ERR_IO;
    }
    memset(&best_st, 0, sizeof(best_st));
    while ((de = readdir(d)) != NULL && seen++ < IPC_SCAN_MAX_ENTRIES) {
        pid_t p;
        uint64_t key;
        struct stat st;
        char cand[IPC_PATH_MAX];
        int exact;

        if (!ipc_parse_socket_name(de->d_name, &p, &key) || p != t->ns_pid)
            continue;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISSOCK(st.st_mode))
            continue;
        if (!ipc_socket_key_ok(t, key, st.st_mtime)) {
            /* Not provably this process's: keep only as a last resort (newest). */
            if (st.st_mtime + 2 < t->start_realtime)
                continue; /* older than the process: a stale socket of a previous pid */
        }
        exact = key == t->start_time;
        cand[0] = '\0';
        if (append(cand, sizeof(cand), t->dir) != 0 || append(cand, sizeof(cand), de->d_name) != 0)
            continue;
        if (!have || (exact && !best_exact) ||
            (exact == best_exact && st.st_mtime > best_st.st_mtime)) {
            memcpy(best, cand, sizeof(best));
            best_st = st;
            best_exact = exact;
            have = 1;
        }
    }
    closedir(d);
    if (!have)
        return 0;
    if (strlen(best) >= outsz)
        return IPC_ERR_INVAL;
    memcpy(out, best, strlen(best) + 1);
    *st_out = best_st;
    return 1;
}

int ipc_socket_path(pid_t pid, char *out, size_t outsz, char *err, size_t errsz)
{
    struct statvfs vfs;
    ipc_target t;
    char name[96], path[IPC_PATH_MAX];
    struct stat st;
    int rc, n;

    if (out == NULL || outsz == 0) {
        ipc_set_err(err, errsz, "no output buffer");
        return IPC_ERR_INVAL;
    }
    out[0] = '\0';
    rc = ipc_target_probe(pid, &t, err, errsz);
    if (rc != IPC_OK)
        return rc;

    n = snprintf(name, sizeof(name), IPC_SOCKET_PREFIX "%d-%llu" IPC_SOCKET_SUFFIX, (int)t.ns_pid,
                 (unsigned long long)t.start_time);
    if (n < 0 || (size_t)n >= sizeof(name))
        return IPC_ERR_INVAL;
    path[0] = '\0';
    if (append(path, sizeof(path), t.dir) == 0 && append(path, sizeof(path), name) == 0 &&
        lstat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
        rc = 1;
    } else {
        rc = scan_dir_for(&t, path, sizeof(path), &st, err, errsz);
        if (rc < 0)
            return rc;
    }
    if (rc == 0) {
        if (!t.env_readable && t.uid != geteuid() && geteuid() != 0) {
            ipc_set_err(err, errsz, "pid %d belongs to uid %u and its environment is unreadable",
                        (int)pid, (unsigned)t.uid);
            return IPC_ERR_PERM;
        }
        if (statvfs(t.dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY)) {
            ipc_set_err(err, errsz,
                        "pid %d's temp directory %s is read-only, so its runtime could not make "
                        "its diagnostics socket there: give the process (its container) a "
                        "writable /tmp (an emptyDir or tmpfs volume), or set its TMPDIR to a "
                        "writable directory",
                        (int)pid, t.dir);
            return IPC_ERR_NOTDOTNET;
        }
        ipc_set_err(err, errsz,
                    "no %s%d-*%s in %s (not a .NET process, or diagnostics disabled with "
                    "DOTNET_EnableDiagnostics=0)",
                    IPC_SOCKET_PREFIX, (int)t.ns_pid, IPC_SOCKET_SUFFIX, t.dir);
        return IPC_ERR_NOTDOTNET;
    }
    if (strlen(path) >= outsz) {
        ipc_set_err(err, errsz, "output buffer too small for %s", path);
        return IPC_ERR_INVAL;
    }
    memcpy(out, path, strlen(path) + 1);
    if (st.st_uid != geteuid() && geteuid() != 0) {
        ipc_set_err(err, errsz, "%s belongs to uid %u (we are uid %u)", path, (unsigned)st.st_uid,
                    (unsigned)geteuid());
        return IPC_ERR_PERM;
    }
    return IPC_OK;
}
