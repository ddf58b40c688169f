/* procsyms.c -- native address names from /proc/PID/maps and ELF symbols
 * (see procsyms.h). */
#include "procsyms.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "procfile.h"

#define PROCSYMS_MAPS_MAX_BYTES (16u * 1024u * 1024u)
#define PROCSYMS_MAX_NAMES (64u * 1024u * 1024u) /* string table bytes read per file */

/* ---- /proc/PID/maps ---- */

/* A hex number at *p, moving past it; -1 when there is none. */
static int procsyms_hex(const char **p, const char *end, uint64_t *out)
{
    uint64_t v = 0;
    int digits = 0;

    while (*p < end && digits < 17) {
        char ch = **p;
        int d = ch >= '0' && ch <= '9'   ? ch - '0'
                : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                         : -1;
        if (d < 0)
            break;
        v = v * 16 + (uint64_t)d;
        digits++;
        (*p)++;
    }
    *out = v;
    return digits > 0 && digits <= 16 ? 0 : -1;
}

static void procsyms_skip(const char **p, const char *end, char what)
{
    while (*p < end && **p == what)
        (*p)++;
}

static const char *procsyms_field(const char **p, const char *end)
{
    const char *start;

    procsyms_skip(p, end, ' ');
    start = *p;
    while (*p < end && **p != ' ')
        (*p)++;
    return start;
}

/* One line [p, end): 0 and *m filled, or -1. */
static int procsyms_parse_line(const char *p, const char *end, procsyms_map *m)
{
    const char *perms, *path;
    uint64_t dummy;

    memset(m, 0, sizeof(*m));
    if (procsyms_hex(&p, end, &m->start) != 0 || p >= end || *p++ != '-' ||
        procsyms_hex(&p, end, &m->end) != 0 || m->end <= m->start)
        return -1;
    perms = procsyms_field(&p, end);
    if (p - perms < 4)
        return -1;
    m->exec = perms[2] == 'x';
    procsyms_skip(&p, end, ' ');
    if (procsyms_hex(&p, end, &m->offset) != 0)
        return -1;
    procsyms_field(&p, end); /* device */
    procsyms_skip(&p, end, ' ');
    if (procsyms_hex(&p, end, &dummy) != 0 && p < end && *p != ' ') /* inode (decimal) */
        return -1;
    while (p < end && *p != ' ')
        p++;
    procsyms_skip(&p, end, ' ');
    path = p;
    if (end > path) {
        size_t n = (size_t)(end - path);
        if (n > 4096)
            return -1;
        if (!(m->path = malloc(n + 1)))
            return -1;
        memcpy(m->path, path, n);
        m->path[n] = '\0';
    }
    return 0;
}

int procsyms_parse_maps(procsyms *p, const char *text, size_t length)
{
    const char *at = text, *end = text + length;
    size_t cap = 0;

    while (at < end) {
        const char *eol = memchr(at, '\n', (size_t)(end - at));
        procsyms_map m;
        if (!eol)
            eol = end;
        if (procsyms_parse_line(at, eol, &m) == 0) {
            if (grow_reserve((void **)&p->maps, &cap, p->map_count, sizeof(*p->maps), 64,
                             PROCSYMS_MAX_MAPS, GROW_KEEP) != 0) {
                free(m.path);
                return p->map_count >= PROCSYMS_MAX_MAPS ? 0 : -1;
            }
            p->maps[p->map_count++] = m;
        }
        at = eol + 1;
    }
    return 0;
}

/* ---- ELF ---- */

static int procsyms_sym_order(const void *a, const void *b)
{
    const procsyms_sym *x = a, *y = b;
    return x->value < y->value ? -1 : x->value > y->value;
}

/* One symbol table section (and its string table) into e. 0 or -1. */
static int procsyms_elf_symtab(procsyms_elf *e,
                               int (*read)(void *ctx, uint64_t offset, void *buf, size_t n),
                               void *ctx, uint64_t file_size, const Elf64_Shdr *symtab,
                               const Elf64_Shdr *strtab)
{
    size_t count, i, cap = 0;

    if (symtab->sh_entsize != sizeof(Elf64_Sym) || symtab->sh_size > file_size ||
        symtab->sh_offset > file_size - symtab->sh_size || strtab->sh_size == 0 ||
        strtab->sh_size > PROCSYMS_MAX_NAMES || strtab->sh_size > file_size ||
        strtab->sh_offset > file_size - strtab->sh_size)
        return -1;
    if (!(e->names = malloc(strtab->sh_size + 1)) ||
        read(ctx, strtab->sh_offset, e->names, strtab->sh_size) != 0)
        return -1;
    e->names[strtab->sh_size] = '\0';
    e->names_size = strtab->sh_size;
    count = symtab->sh_size / sizeof(Elf64_Sym);
    for (i = 0; i < count && e->sym_count < PROCSYMS_MAX_SYMBOLS; i++) {
        Elf64_Sym s;
        if (read(ctx, symtab->sh_offset + i * sizeof(s), &s, sizeof(s)) != 0)
            return -1;
        if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || s.st_value == 0 || s.st_shndx == SHN_UNDEF ||
            s.st_name >= e->names_size)
            continue;
        if (grow_reserve((void **)&e->syms, &cap, e->sym_count, sizeof(*e->syms), 256,
                         PROCSYMS_MAX_SYMBOLS, GROW_KEEP) != 0)
            return -1;
        e->syms[e->sym_count++] = (procsyms_sym){s.st_value, s.st_size, s.st_name};
    }
    if (e->sym_count)
        qsort(e->syms, e->sym_count, sizeof(*e->syms), procsyms_sym_order);
    return 0;
}

int procsyms_elf_load(procsyms_elf *e, int (*read)(void *ctx, uint64_t offset, void *buf, size_t n),
                      void *ctx, uint64_t file_size)
{
    Elf64_Ehdr h;
    Elf64_Shdr *sections = NULL;
    const Elf64_Shdr *best = NULL;
    unsigned i;
    int rc = -1;

    if (file_size < sizeof(h) || read(ctx, 0, &h, sizeof(h)) != 0 ||
        memcmp(h.e_ident, ELFMAG, SELFMAG) != 0 || h.e_ident[EI_CLASS] != ELFCLASS64 ||
        h.e_ident[EI_DATA] != ELFDATA2LSB)
        return -1;
    if (h.e_phentsize == sizeof(Elf64_Phdr) && h.e_phnum < 4096 && h.e_phoff <= file_size &&
        (uint64_t)h.e_phnum * sizeof(Elf64_Phdr) <= file_size - h.e_phoff) {
        for (i = 0; i < h.e_phnum && e->segment_count < 16; i++) {
            Elf64_Phdr ph;
            if (read(ctx, h.e_phoff + (uint64_t)i * sizeof(ph), &ph, sizeof(ph)) != 0)
                return -1;
            if (ph.p_type == PT_LOAD)
                e->segments[e->segment_count++] = (procsyms_segment){ph.p_offset, ph.p_vaddr,
                                                                     ph.p_filesz};
        }
    }
    e->ok = 1;
    if (h.e_shentsize != sizeof(Elf64_Shdr) || h.e_shnum == 0 || h.e_shoff > file_size ||
        (uint64_t)h.e_shnum * sizeof(Elf64_Shdr) > file_size - h.e_shoff)
        return 0; /* no section table: addresses get file+offset names */
    if (!(sections = malloc((size_t)h.e_shnum * sizeof(*sections))) ||
        read(ctx, h.e_shoff, sections, (size_t)h.e_shnum * sizeof(*sections)) != 0)
        goto done;
    for (i = 0; i < h.e_shnum; i++) /* .symtab when present (unstripped), else .dynsym */
        if ((sections[i].sh_type == SHT_SYMTAB ||
             (sections[i].sh_type == SHT_DYNSYM && (!best || best->sh_type != SHT_SYMTAB))) &&
            sections[i].sh_link < h.e_shnum)
            best = &sections[i];
    if (best && procsyms_elf_symtab(e, read, ctx, file_size, best, &sections[best->sh_link]) != 0) {
        free(e->syms);
        free(e->names);
        e->syms = NULL, e->names = NULL, e->sym_count = e->names_size = 0;
    }
    rc = 0;
done:
    free(sections);
    return rc;
}

void procsyms_elf_free(procsyms_elf *e)
{
    free(e->path);
    free(e->syms);
    free(e->names);
    memset(e, 0, sizeof(*e));
}

/* ---- a process ---- */

static int procsyms_read_fd(void *ctx, uint64_t offset, void *buf, size_t n)
{
    int fd = *(int *)ctx;
    size_t done = 0;

    while (done < n) {
        ssize_t got = pread(fd, (char *)buf + done, n - done, (off_t)(offset + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        done += (size_t)got;
    }
    return 0;
}

int procsyms_open(procsyms *p, pid_t pid)
{
    char *text;
    size_t used;
    int rc;

    memset(p, 0, sizeof(*p));
    /* cut short (longer than the bound, or out of memory) fails too */
    rc = procfile_read(pid, "maps", PROCSYMS_MAPS_MAX_BYTES, &text, &used);
    if (rc == 0 && procsyms_parse_maps(p, text ? text : "", used) != 0)
        rc = -1;
    free(text);
    if (rc != 0) {
        procsyms_close(p);
        return -1;
    }
    p->pid = pid;
    return 0;
}

void procsyms_close(procsyms *p)
{
    size_t i;

    for (i = 0; i < p->map_count; i++)
        free(p->maps[i].path);
    free(p->maps);
    for (i = 0; i < p->file_count; i++)
        procsyms_elf_free(&p->files[i]);
    memset(p, 0, sizeof(*p));
}

/* The file's symbols, read once per table (NULL when there is no room). */
static procsyms_elf *procsyms_file(procsyms *p, const char *path)
{
    char where[PATH_MAX + 32];
    procsyms_elf *e;
    struct stat st;
    unsigned i;
    int fd;

    for (i = 0; i < p->file_count; i++)
        if (strcmp(p->files[i].path, path) == 0)
            return &p->files[i];
    if (p->file_count == PROCSYMS_MAX_FILES)
        return NULL;
    e = &p->files[p->file_count];
    memset(e, 0, sizeof(*e));
    if (!(e->path = strdup(path)))
        return NULL;
    p->file_count++;
    /* the path the target mapped, as the target sees it; never blocking (a
     * FIFO put where a deleted library was would hang this thread) */
    if (p->pid > 0)
        snprintf(where, sizeof(where), "/proc/%d/root%s", (int)p->pid, path);
    else
        snprintf(where, sizeof(where), "%s", path);
    fd = open(where, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd >= 0) {
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
            procsyms_elf_load(e, procsyms_read_fd, &fd, (uint64_t)st.st_size) != 0)
            e->ok = 0;
        close(fd);
    }
    return e;
}

static const char *procsyms_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int procsyms_is_image(const char *path)
{
    size_t n = strlen(path);
    return (n > 4 && (strcmp(path + n - 4, ".dll") == 0 || strcmp(path + n - 4, ".exe") == 0));
}

int procsyms_name(procsyms *p, uint64_t address, char *buf, size_t size)
{
    const procsyms_map *m = NULL;
    procsyms_elf *e;
    uint64_t file_offset, vaddr = 0;
    size_t i, lo, hi;
    int have_vaddr = 0;

    buf[0] = '\0';
    for (i = 0; i < p->map_count && !m; i++)
        if (address >= p->maps[i].start && address < p->maps[i].end)
            m = &p->maps[i];
    if (!m)
        return PROCSYMS_UNKNOWN;
    if (!m->path || m->path[0] == '[' || strncmp(m->path, "/memfd:", 7) == 0 ||
        strstr(m->path, "doublemapper")) {
        snprintf(buf, size, "%s", m->path && m->path[0] == '[' ? m->path : "[anonymous]");
        return PROCSYMS_ANON;
    }
    file_offset = address - m->start + m->offset;
    if (procsyms_is_image(m->path)) {
        snprintf(buf, size, "%s+0x%llx", procsyms_base_name(m->path),
                 (unsigned long long)file_offset);
        return PROCSYMS_IMAGE;
    }
    e = procsyms_file(p, m->path);
    if (e && e->ok) {
        for (i = 0; i < e->segment_count; i++) {
            const procsyms_segment *s = &e->segments[i];
            if (file_offset >= s->offset && file_offset - s->offset < s->filesz) {
                vaddr = file_offset - s->offset + s->vaddr;
                have_vaddr = 1;
                break;
            }
        }
    }
    if (have_vaddr && e->sym_count) { /* the last symbol at or below vaddr */
        lo = 0, hi = e->sym_count;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (e->syms[mid].value <= vaddr)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo > 0) {
            const procsyms_sym *s = &e->syms[lo - 1];
            if (s->size > 0 && vaddr - s->value < s->size) {
                snprintf(buf, size, "%s!%s+0x%llx", procsyms_base_name(m->path), e->names + s->name,
                         (unsigned long long)(vaddr - s->value));
                return PROCSYMS_FILE;
            }
        }
    }
    snprintf(buf, size, "%s+0x%llx", procsyms_base_name(m->path),
             (unsigned long long)(have_vaddr ? vaddr : file_offset));
    return PROCSYMS_FILE;
}
