/* procsyms.c -- native address names from /proc/PID/maps and ELF symbols
 * (see procsyms.h). */
#include "procsyms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debugfile.h"

int procsyms_parse_maps(procsyms *p, const char *text, size_t length)
{
    memset(p, 0, sizeof(*p));
    return procmaps_parse(&p->maps, text, length);
}

int procsyms_open(procsyms *p, pid_t pid)
{
    memset(p, 0, sizeof(*p));
    /* cut short (longer than procmaps' bound): the mappings past it are unknown */
    if (procmaps_read(&p->maps, pid) != 0)
        return -1;
    p->pid = pid;
    return 0;
}

void procsyms_close(procsyms *p)
{
    unsigned i;

    procmaps_free(&p->maps);
    for (i = 0; i < p->file_count; i++) {
        free(p->files[i].path);
        elfsyms_free(&p->files[i].syms);
    }
    free(p->files);
    memset(p, 0, sizeof(*p));
}

/* The mapping's file, its symbols read once per table (NULL when there is no room). */
static procsyms_file *procsyms_file_for(procsyms *p, const procmaps_entry *m)
{
    const char *path = procmaps_path(&p->maps, m);
    procsyms_file *f;
    unsigned i;
    int fd;

    for (i = 0; i < p->file_count; i++)
        if (strcmp(p->files[i].path, path) == 0)
            return &p->files[i];
    if (p->file_count == PROCSYMS_MAX_FILES ||
        (!p->files && !(p->files = calloc(PROCSYMS_MAX_FILES, sizeof(*p->files)))))
        return NULL;
    f = &p->files[p->file_count];
    if (!(f->path = strdup(path)))
        return NULL;
    p->file_count++;
    if ((fd = procmaps_open_file(&p->maps, m, p->pid)) >= 0) {
        f->ok = elfsyms_load(&f->syms, fd) == 0;
        close(fd);
        if (f->ok && f->syms.names == ELFSYMS_NAMES_EXPORTS) /* stripped: its debug file */
            (void)debugfile_add(&f->syms, path, p->pid, NULL, 0);
    }
    return f;
}

static const char *procsyms_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int procsyms_name(procsyms *p, uint64_t address, char *buf, size_t size)
{
    const procmaps_entry *m = procmaps_find(&p->maps, address);
    const procsyms_file *f;
    const char *path, *base, *symbol = NULL;
    uint64_t offset, vaddr = 0, start = 0;

    buf[0] = '\0';
    if (!m)
        return PROCSYMS_UNKNOWN;
    path = procmaps_path(&p->maps, m);
    if (m->kind == PROCMAPS_JIT || m->kind == PROCMAPS_SPECIAL ||
        strncmp(path, "/memfd:", 7) == 0) {
        snprintf(buf, size, "%s", path[0] == '[' ? path : "[anonymous]");
        return PROCSYMS_ANON;
    }
    offset = address - m->start + m->offset;
    base = procsyms_base_name(path);
    if (m->kind == PROCMAPS_IMAGE) {
        snprintf(buf, size, "%s+0x%llx", base, (unsigned long long)offset);
        return PROCSYMS_IMAGE;
    }
    f = procsyms_file_for(p, m);
    if (!f || !f->ok || !elfsyms_vaddr(&f->syms, offset, &vaddr))
        snprintf(buf, size, "%s+0x%llx", base, (unsigned long long)offset);
    else if (elfsyms_find(&f->syms, offset, &symbol, &start) == 1)
        snprintf(buf, size, "%s!%s+0x%llx", base, symbol, (unsigned long long)(vaddr - start));
    else
        snprintf(buf, size, "%s+0x%llx", base, (unsigned long long)vaddr);
    return PROCSYMS_FILE;
}
