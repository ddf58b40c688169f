/* cpusym.c -- naming the frames of a CPU profile's samples (see cpusym.h). */
#include "cpusym.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "debugfile.h"
#include "grow.h"
#include "profile_cpu.h"
#include "utf.h"

#define CPUSYM_PROLOG_BYTES 64u

static const char *const cpusym_labels[CPUSYM_LABELS] = {
    "[incomplete stack: the frame chain ended in managed code]",
    "[missing frame: no frame pointer]",
    "[missing frame: stub]",
    "[unnamed managed code]",
    "[kernel]",
    "[unmapped]",
    "[symbol table full]",
    "[missing frame: on-stack replacement]",
    "[incomplete stack: the frame chain broke after a native frame]",
};

/* ---- the symbol table ------------------------------------------------------- */

static uint64_t cpusym_hash(const char *module, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const char *p;

    for (p = module ? module : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    h = (h ^ 0xff) * 0x100000001b3ull;
    for (p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    return h;
}

static int cpusym_same_module(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* (module, name) of entry i of a names array, for the index. */
static uint64_t cpusym_hash_of(const void *names, size_t i)
{
    const cpusym_symbol *e = &((const cpusym_symbol *)names)[i];
    return cpusym_hash(e->module, e->name);
}

static int cpusym_is(const void *names, size_t i, const void *key)
{
    const cpusym_symbol *e = &((const cpusym_symbol *)names)[i], *k = key;
    return strcmp(e->name, k->name) == 0 && cpusym_same_module(e->module, k->module);
}

/* The index of (module, name), added when new; CPUSYM_LABEL_FULL when the
 * table is full or memory runs out. */
static uint32_t cpusym_intern(cpusym *y, const char *module, const char *raw)
{
    char name[PROFILE_CPU_MAX_NAME + 1];
    int cut = 0;
    uint64_t h;
    size_t i;
    cpusym_symbol key;

    /* names come from files of the target: well-formed UTF-8, and as long as
     * the profile keeps them (so equal keys stay equal there) */
    name[utf8_sanitize(raw, strlen(raw), name, PROFILE_CPU_MAX_NAME, &cut)] = '\0';
    h = cpusym_hash(module, name);
    key.module = module;
    key.name = name;
    if ((i = hashslots_find(&y->name_index, h, cpusym_is, y->names, &key)) != HASHSLOTS_NONE)
        return (uint32_t)i;
    if (y->name_count >= PROFILE_CPU_MAX_SYMBOLS ||
        hashslots_reserve(&y->name_index, y->name_count, 1024, cpusym_hash_of, y->names) != 0 ||
        grow_reserve((void **)&y->names, &y->name_cap, y->name_count, sizeof(*y->names), 256,
                     PROFILE_CPU_MAX_SYMBOLS, GROW_KEEP) != 0 ||
        !(y->names[y->name_count].name = strdup(name)))
        return CPUSYM_LABEL_FULL;
    y->names[y->name_count].module = module;
    hashslots_put(&y->name_index, h, y->name_count);
    return (uint32_t)y->name_count++;
}

size_t cpusym_pending_names(const cpusym *y, size_t *first)
{
    *first = y->names_handed;
    return y->name_count - y->names_handed;
}

/* ---- files ---------------------------------------------------------------------- */

/* The module name of a path: its file name, without " (deleted)". */
static char *cpusym_module_of(const char *path)
{
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    size_t n = strlen(base);
    static const char deleted[] = " (deleted)";
    char *m;
    int cut = 0;

    if (n > sizeof(deleted) - 1 && strcmp(base + n - (sizeof(deleted) - 1), deleted) == 0)
        n -= sizeof(deleted) - 1;
    if (!(m = malloc(PROFILE_CPU_MAX_NAME + 1)))
        return NULL;
    m[utf8_sanitize(base, n, m, PROFILE_CPU_MAX_NAME, &cut)] = '\0';
    return m;
}

/* The file of an ELF mapping, its symbols read on first use: the file is
 * opened as procmaps_open_file says (the target's root, the mapped inode),
 * else it is used for its name only. NULL when out of room. */
static cpusym_file *cpusym_file_for(cpusym *y, const procmaps_entry *e)
{
    cpusym_file *f;
    size_t i;
    int fd;

    for (i = 0; i < y->file_count; i++)
        if (y->files[i].inode == e->inode && y->files[i].dev_major == e->dev_major &&
            y->files[i].dev_minor == e->dev_minor)
            return &y->files[i];
    if (y->file_count >= CPUSYM_MAX_FILES)
        return NULL;
    if (!y->files && !(y->files = calloc(CPUSYM_MAX_FILES, sizeof(*y->files))))
        return NULL;
    f = &y->files[y->file_count];
    memset(f, 0, sizeof(*f));
    if (!(f->module = cpusym_module_of(procmaps_path(&y->maps, e))))
        return NULL;
    f->inode = e->inode;
    f->dev_major = e->dev_major;
    f->dev_minor = e->dev_minor;
    y->file_count++;
    if ((fd = procmaps_open_file(&y->maps, e, y->pid)) < 0)
        return f;
    if (elfsyms_load(&f->syms, fd) == 0)
        f->ok = 1;
    (void)ehframe_load(&f->eh, fd); /* out of memory: no rules, the frames stay as walked */
    close(fd);
    if (f->ok && f->syms.names == ELFSYMS_NAMES_EXPORTS) /* stripped: its debug file names more */
        (void)debugfile_add(&f->syms, procmaps_path(&y->maps, e), y->pid, NULL, 0);
    return f;
}

/* ---- classifying an address ------------------------------------------------------ */

static uint32_t cpusym_native_name(cpusym *y, const procmaps_entry *e, uint64_t ip)
{
    char text[PROCMAPS_PATH_MAX + 64];
    uint64_t offset = ip - e->start + e->offset, start = 0;
    const char *name = NULL;
    cpusym_file *f;
    int r = 0;

    if (e->kind == PROCMAPS_SPECIAL) /* [vdso] */
        return cpusym_intern(y, NULL, procmaps_path(&y->maps, e));
    if (!(f = cpusym_file_for(y, e)))
        return CPUSYM_LABEL_FULL;
    if (f->ok)
        r = elfsyms_find(&f->syms, offset, &name, &start);
    if (r == 1)
        return cpusym_intern(y, f->module, name);
    if (r == 2)
        snprintf(text, sizeof(text), "%s+0x%llx", f->module, (unsigned long long)start);
    else
        snprintf(text, sizeof(text), "%s+0x%llx", f->module, (unsigned long long)offset);
    return cpusym_intern(y, f->module, text);
}

static uint32_t cpusym_new_ip(cpusym *y)
{
    if (y->ip_count >= CPUSYM_MAX_IPS)
        return UINT32_MAX;
    if (!y->ips && !(y->ips = malloc(CPUSYM_MAX_IPS * sizeof(*y->ips))))
        return UINT32_MAX;
    memset(&y->ips[y->ip_count], 0, sizeof(y->ips[0]));
    return (uint32_t)y->ip_count++;
}

void cpusym_batch_begin(cpusym *y)
{
    if (y->ip_count > CPUSYM_MAX_IPS / 4 * 3) { /* starts over: the batch fits */
        y->ip_count = 0;
        idmap_free(&y->ip_index);
    }
}

cpusym_ip *cpusym_find(cpusym *y, uint64_t ip)
{
    uint32_t i;

    if (!ip)
        return &y->zero;
    i = idmap_get(&y->ip_index, ip);
    return i == IDMAP_MISSING ? NULL : &y->ips[i];
}

cpusym_ip *cpusym_lookup(cpusym *y, uint64_t ip, uint64_t now_ms)
{
    const procmaps_entry *e;
    cpusym_ip *c = cpusym_find(y, ip);
    uint32_t i;

    if (c)
        return c;
    if ((i = cpusym_new_ip(y)) == UINT32_MAX || idmap_put(&y->ip_index, ip, i) != 0)
        return NULL;
    c = &y->ips[i];
    c->ip = ip;
    e = procmaps_find(&y->maps, ip);
    if (!e && now_ms - y->maps_ms >= 50) { /* a mapping made since: read them again */
        procmaps fresh;
        if (procmaps_read(&fresh, y->pid) == 0) {
            procmaps_free(&y->maps);
            y->maps = fresh;
        }
        y->maps_ms = now_ms;
        e = procmaps_find(&y->maps, ip);
    }
    if (!e) {
        c->kind = CPUSYM_NATIVE;
        c->symbol = CPUSYM_LABEL_UNMAPPED;
    } else if (e->kind == PROCMAPS_JIT || e->kind == PROCMAPS_IMAGE) {
        c->kind = CPUSYM_MANAGED;
        c->state = CPUSYM_UNKNOWN;
    } else {
        c->kind = CPUSYM_NATIVE;
        c->symbol = cpusym_native_name(y, e, ip);
    }
    return c;
}

int cpusym_leaf_rule(cpusym *y, cpusym_ip *c)
{
    const procmaps_entry *e;
    cpusym_file *f;
    ehframe_rule rule;
    uint64_t vaddr;

    if (c->rule != CPUSYM_RULE_UNREAD)
        return c->rule;
    c->rule = CPUSYM_RULE_NONE;
    if (c->kind != CPUSYM_NATIVE || !(e = procmaps_find(&y->maps, c->ip)) ||
        e->kind == PROCMAPS_SPECIAL || !(f = cpusym_file_for(y, e)) || !f->ok ||
        !elfsyms_vaddr(&f->syms, c->ip - e->start + e->offset, &vaddr) ||
        !ehframe_rule_at(&f->eh, vaddr, &rule))
        return c->rule;
    if (rule.cfa_off >= 8 && rule.cfa_off <= 65535 && rule.rbp_off >= -32768 &&
        rule.rbp_off <= 32767) {
        c->rule = rule.cfa_reg == EHFRAME_REG_RBP ? CPUSYM_RULE_RBP : CPUSYM_RULE_RSP;
        c->cfa_off = (uint16_t)rule.cfa_off;
        c->rbp_saved = (uint8_t)rule.rbp_saved;
        c->rbp_off = (int16_t)rule.rbp_off;
    }
    return c->rule;
}

/* ---- prologs ------------------------------------------------------------------------ */

/* Where an x86-64 prolog that began with push rbp sets rbp: mov rbp, rsp (two
 * encodings) or lea rbp, [rsp + disp8 / disp32]. The offset after that
 * instruction, or 0 when it is not within the bytes read. */
static uint32_t cpusym_prolog_end(const uint8_t *b, size_t n)
{
    size_t i;

    for (i = 1; i + 3 <= n; i++) {
        if (b[i] != 0x48)
            continue;
        if ((b[i + 1] == 0x8b && b[i + 2] == 0xec) || (b[i + 1] == 0x89 && b[i + 2] == 0xe5))
            return (uint32_t)(i + 3);
        if (b[i + 1] == 0x8d && i + 5 <= n && b[i + 2] == 0x6c && b[i + 3] == 0x24)
            return (uint32_t)(i + 5);
        if (b[i + 1] == 0x8d && i + 8 <= n && b[i + 2] == 0xac && b[i + 3] == 0x24)
            return (uint32_t)(i + 8);
    }
    return 0;
}

/* rbp - rsp once a prolog that began with push rbp is done: its pushes and
 * sub rsp, and where it set rbp (mov rbp, rsp or lea rbp, [rsp + disp]),
 * read up to the first other instruction. UINT32_MAX when rbp was not set
 * within them. */
static uint32_t cpusym_fp_delta(const uint8_t *b, size_t n, cpusym_code *info)
{
    uint64_t d = 8, fp = 0;
    size_t i = 1;
    int have = 0, over = 0;

    info->steps = 0;
    while (i < n && d < (1u << 30)) {
        uint32_t v;
        if (!have && !over && info->steps < CPUSYM_PROLOG_STEPS && d <= UINT16_MAX) {
            info->step_at[info->steps] = (uint8_t)i; /* after the instruction before i */
            info->step_depth[info->steps++] = (uint16_t)d;
        } else if (!have) {
            over = 1; /* more than kept: none used */
            info->steps = 0;
        }
        if (b[i] >= 0x50 && b[i] <= 0x57 && b[i] != 0x54) {
            d += 8, i += 1;
        } else if (i + 1 < n && b[i] == 0x41 && b[i + 1] >= 0x50 && b[i + 1] <= 0x57) {
            d += 8, i += 2;
        } else if (i + 3 < n && b[i] == 0x48 && b[i + 1] == 0x83 && b[i + 2] == 0xec) {
            d += b[i + 3], i += 4;
        } else if (i + 6 < n && b[i] == 0x48 && b[i + 1] == 0x81 && b[i + 2] == 0xec) {
            memcpy(&v, b + i + 3, 4);
            d += v, i += 7;
        } else if (i + 2 < n && b[i] == 0x48 &&
                   ((b[i + 1] == 0x8b && b[i + 2] == 0xec) ||
                    (b[i + 1] == 0x89 && b[i + 2] == 0xe5))) {
            fp = d, have = 1, i += 3;
        } else if (i + 4 < n && b[i] == 0x48 && b[i + 1] == 0x8d && b[i + 2] == 0x6c &&
                   b[i + 3] == 0x24 && b[i + 4] < 0x80 && b[i + 4] <= d) {
            fp = d - b[i + 4], have = 1, i += 5;
        } else if (i + 7 < n && b[i] == 0x48 && b[i + 1] == 0x8d && b[i + 2] == 0xac &&
                   b[i + 3] == 0x24) {
            memcpy(&v, b + i + 4, 4);
            if (v > d)
                break;
            fp = d - v, have = 1, i += 8;
        } else {
            break;
        }
    }
    return have && d >= fp ? (uint32_t)(d - fp) : UINT32_MAX;
}

int cpusym_prolog_depth(const cpusym_code *info, uint32_t offset, uint32_t *depth)
{
    uint32_t i;

    if (!(info->flags & CPUSYM_CODE_FP_DELTA) || (info->flags & CPUSYM_CODE_OSR) ||
        offset >= info->prolog_end || !info->steps)
        return 0;
    *depth = 0; /* at the first byte: the return address is at rsp */
    for (i = 0; i < info->steps && info->step_at[i] <= offset; i++)
        *depth = info->step_depth[i];
    return 1;
}

int cpusym_code_peek(const cpusym *y, uint64_t code_start, cpusym_code *info)
{
    uint32_t i = idmap_get(&y->code_index, code_start);

    if (i == IDMAP_MISSING)
        return 0;
    *info = y->code[i];
    return 1;
}

cpusym_code cpusym_code_info(cpusym *y, uint64_t code_start)
{
    uint8_t b[CPUSYM_PROLOG_BYTES];
    struct iovec local = {b, sizeof(b)}, remote = {(void *)(uintptr_t)code_start, sizeof(b)};
    cpusym_code info;
    uint32_t i = idmap_get(&y->code_index, code_start);
    ssize_t n;

    if (i != IDMAP_MISSING)
        return y->code[i];
    memset(&info, 0, sizeof(info));
    n = process_vm_readv(y->pid, &local, 1, &remote, 1, 0);
    if (n >= 8) {
        info.flags = CPUSYM_CODE_KNOWN;
        if (b[0] == 0x55) { /* push rbp */
            info.flags |= CPUSYM_CODE_FRAMED;
            info.prolog_end = cpusym_prolog_end(b, (size_t)n);
            if (!info.prolog_end)
                info.prolog_end = 1; /* rbp pushed; where it is set is not known */
            if ((info.fp_delta = cpusym_fp_delta(b, (size_t)n, &info)) != UINT32_MAX)
                info.flags |= CPUSYM_CODE_FP_DELTA;
            else
                info.fp_delta = 0;
        } else if (b[0] == 0x48 && b[1] == 0x8b && b[2] == 0x45 && b[3] == 0x00 && b[4] == 0x50) {
            /* mov rax, [rbp]; push rax: on-stack replacement's prolog pushes
             * the replaced frame's saved rbp as its own */
            info.flags |= CPUSYM_CODE_FRAMED | CPUSYM_CODE_OSR;
            info.prolog_end = cpusym_prolog_end(b + 4, (size_t)n - 4);
            info.prolog_end = info.prolog_end ? info.prolog_end + 4 : 5;
        }
    }
    if (y->code_count < CPUSYM_MAX_FRAMES_INFO) {
        if (!y->code && !(y->code = malloc(CPUSYM_MAX_FRAMES_INFO * sizeof(*y->code))))
            return info;
        if (idmap_put(&y->code_index, code_start, (uint32_t)y->code_count) == 0)
            y->code[y->code_count++] = info;
    }
    return info;
}

/* ---- life ------------------------------------------------------------------------------ */

int cpusym_init(cpusym *y, pid_t pid)
{
    unsigned i;

    memset(y, 0, sizeof(*y));
    y->pid = pid;
    y->zero.kind = CPUSYM_NATIVE;
    y->zero.symbol = CPUSYM_LABEL_UNMAPPED;
    for (i = 0; i < CPUSYM_LABELS; i++)
        if (cpusym_intern(y, NULL, cpusym_labels[i]) != i) {
            cpusym_free(y);
            return -1;
        }
    if (procmaps_read(&y->maps, pid) != 0) {
        int err = errno;
        cpusym_free(y);
        errno = err;
        return -1;
    }
    return 0;
}

void cpusym_free(cpusym *y)
{
    size_t i;

    procmaps_free(&y->maps);
    for (i = 0; i < y->file_count; i++) {
        elfsyms_free(&y->files[i].syms);
        ehframe_free(&y->files[i].eh);
        free(y->files[i].module);
    }
    free(y->files);
    free(y->ips);
    idmap_free(&y->ip_index);
    for (i = 0; i < y->name_count; i++)
        free(y->names[i].name);
    free(y->names);
    hashslots_free(&y->name_index);
    idmap_free(&y->code_index);
    free(y->code);
    memset(y, 0, sizeof(*y));
}
