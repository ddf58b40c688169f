/* procmaps.c -- a process's executable mappings (see procmaps.h). */
#include "procmaps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "procfile.h"

#define PROCMAPS_FILE_MAX (64u * 1024u * 1024u) /* a maps file larger than this is cut */

/* Hex number at *p (at least one digit, at most 16); advances *p. */
static int procmaps_hex(const char **p, const char *end, uint64_t *out)
{
    uint64_t v = 0;
    int digits = 0;

    while (*p < end && digits < 17) {
        char c = **p;
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            break;
        v = v << 4 | d;
        digits++;
        (*p)++;
    }
    if (digits == 0 || digits > 16)
        return -1;
    *out = v;
    return 0;
}

static int procmaps_dec(const char **p, const char *end, uint64_t *out)
{
    uint64_t v = 0;
    int digits = 0;

    while (*p < end && **p >= '0' && **p <= '9' && digits < 20) {
        v = v * 10 + (uint64_t)(**p - '0');
        digits++;
        (*p)++;
    }
    if (digits == 0 || digits >= 20)
        return -1;
    *out = v;
    return 0;
}

static int procmaps_expect(const char **p, const char *end, char c)
{
    if (*p >= end || **p != c)
        return -1;
    (*p)++;
    return 0;
}

static int procmaps_kind_of(const char *path, size_t n)
{
    static const char memfd[] = "/memfd:doublemapper";
    const char *dot;

    if (n == 0)
        return PROCMAPS_JIT;
    if (n >= sizeof(memfd) - 1 && memcmp(path, memfd, sizeof(memfd) - 1) == 0)
        return PROCMAPS_JIT;
    if (path[0] == '[')
        return PROCMAPS_SPECIAL;
    dot = memrchr(path, '.', n);
    if (dot && (size_t)(path + n - dot) == 4 &&
        (strncasecmp(dot, ".dll", 4) == 0 || strncasecmp(dot, ".exe", 4) == 0))
        return PROCMAPS_IMAGE;
    if (path[0] != '/')
        return PROCMAPS_SPECIAL; /* anon_inode:..., memfd of another kind */
    return PROCMAPS_ELF;
}

/* One line: "start-end perms offset major:minor inode   path". Returns 1 and
 * fills e (path bounds in *path, *path_length) for an executable mapping, 0
 * for one to leave out or a line that does not parse. */
static int procmaps_line(const char *p, const char *end, procmaps_entry *e, const char **path,
                         size_t *path_length)
{
    uint64_t major, minor;
    char perms[4];
    int i;

    if (procmaps_hex(&p, end, &e->start) || procmaps_expect(&p, end, '-') ||
        procmaps_hex(&p, end, &e->end) || procmaps_expect(&p, end, ' ') || end - p < 5)
        return 0;
    for (i = 0; i < 4; i++)
        perms[i] = *p++;
    if (procmaps_expect(&p, end, ' ') || procmaps_hex(&p, end, &e->offset) ||
        procmaps_expect(&p, end, ' ') || procmaps_hex(&p, end, &major) ||
        procmaps_expect(&p, end, ':') || procmaps_hex(&p, end, &minor) ||
        procmaps_expect(&p, end, ' ') || procmaps_dec(&p, end, &e->inode))
        return 0;
    if (perms[2] != 'x' || e->end <= e->start || major > UINT32_MAX || minor > UINT32_MAX)
        return 0;
    e->dev_major = (uint32_t)major;
    e->dev_minor = (uint32_t)minor;
    while (p < end && *p == ' ')
        p++;
    *path = p;
    *path_length = (size_t)(end - p);
    return 1;
}

int procmaps_parse(procmaps *m, const char *text, size_t length)
{
    const char *p = text, *end = text + length;
    size_t cap = 0, text_cap = 0;

    memset(m, 0, sizeof(*m));
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p)), *path = NULL;
        size_t n = 0;
        procmaps_entry e;

        if (!eol)
            eol = end;
        memset(&e, 0, sizeof(e));
        if (procmaps_line(p, eol, &e, &path, &n) && m->count < PROCMAPS_MAX &&
            (!m->count || e.start >= m->entries[m->count - 1].end)) {
            if (n > PROCMAPS_PATH_MAX) {
                n = PROCMAPS_PATH_MAX;
                e.cut = 1;
            }
            if (m->count == cap) {
                size_t c = cap ? cap * 2 : 64;
                procmaps_entry *grown = realloc(m->entries, c * sizeof(*grown));
                if (!grown)
                    goto fail;
                m->entries = grown;
                cap = c;
            }
            if (m->text_used + n + 1 > text_cap) {
                size_t c = text_cap ? text_cap : 4096;
                char *grown;
                while (c < m->text_used + n + 1)
                    c *= 2;
                if (!(grown = realloc(m->text, c)))
                    goto fail;
                m->text = grown;
                text_cap = c;
            }
            memcpy(m->text + m->text_used, path, n);
            m->text[m->text_used + n] = '\0';
            if (memchr(path, '\0', n))
                e.cut = 1; /* a NUL inside: never opened */
            e.path = (uint32_t)m->text_used;
            e.kind = procmaps_kind_of(path, n);
            m->text_used += n + 1;
            m->entries[m->count++] = e;
        }
        p = eol + 1;
    }
    if (!m->text && !(m->text = calloc(1, 1)))
        goto fail;
    return 0;
fail:
    procmaps_free(m);
    return -1;
}

int procmaps_read(procmaps *m, pid_t pid)
{
    char *buf;
    size_t used;
    int rc;

    /* cut short: what was read is parsed, the mappings past it are unknown */
    if (procfile_read(pid, "maps", PROCMAPS_FILE_MAX, &buf, &used) < 0)
        return -1;
    rc = procmaps_parse(m, buf ? buf : "", used);
    free(buf);
    if (rc != 0)
        errno = ENOMEM;
    return rc;
}

int procmaps_open_file(const procmaps *m, const procmaps_entry *e, pid_t pid)
{
    char path[PROCMAPS_PATH_MAX + 64];
    const char *mapped = procmaps_path(m, e);
    struct stat st;
    int fd;

    if (e->kind != PROCMAPS_ELF || e->cut || mapped[0] != '/')
        return -1;
    if (pid > 0)
        snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, mapped);
    else
        snprintf(path, sizeof(path), "%s", mapped);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_ino != e->inode ||
        major(st.st_dev) != e->dev_major || minor(st.st_dev) != e->dev_minor) {
        close(fd);
        return -1;
    }
    return fd;
}

const procmaps_entry *procmaps_find(const procmaps *m, uint64_t addr)
{
    size_t lo = 0, hi = m->count;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->entries[mid].end <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->count && m->entries[lo].start <= addr ? &m->entries[lo] : NULL;
}

void procmaps_free(procmaps *m)
{
    free(m->entries);
    free(m->text);
    memset(m, 0, sizeof(*m));
}
