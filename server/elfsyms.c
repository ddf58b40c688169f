/* elfsyms.c -- function symbols of an ELF file, with libelf (see elfsyms.h). */
#include "elfsyms.h"

#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define ELFSYMS_EH_SDATA4_DATAREL 0x3b /* DW_EH_PE_datarel | DW_EH_PE_sdata4 */
#define ELFSYMS_EH_UDATA4 0x03
#define ELFSYMS_EH_OMIT 0xff

static int elfsyms_add(elfsyms *t, uint64_t start, uint64_t size, const char *name)
{
    size_t n = strlen(name);

    if (t->symbol_count >= ELFSYMS_MAX_SYMBOLS || t->text_used + n + 1 > ELFSYMS_MAX_TEXT)
        return 0; /* the rest is left unnamed */
    if (t->symbol_count == t->symbol_cap) {
        size_t c = t->symbol_cap ? t->symbol_cap * 2 : 1024;
        elfsyms_symbol *grown = realloc(t->symbols, c * sizeof(*grown));
        if (!grown)
            return -1;
        t->symbols = grown;
        t->symbol_cap = c;
    }
    if (t->text_used + n + 1 > t->text_cap) {
        size_t c = t->text_cap ? t->text_cap : 65536;
        char *grown;
        while (c < t->text_used + n + 1)
            c *= 2;
        if (!(grown = realloc(t->text, c)))
            return -1;
        t->text = grown;
        t->text_cap = c;
    }
    memcpy(t->text + t->text_used, name, n + 1);
    t->symbols[t->symbol_count++] = (elfsyms_symbol){start, size, (uint32_t)t->text_used};
    t->text_used += n + 1;
    return 0;
}

/* Every sized function symbol of .symtab and .dynsym; *symtab set when a
 * .symtab gave some. */
static int elfsyms_read_symbols(elfsyms *t, Elf *e, int *symtab)
{
    Elf_Scn *scn = NULL;

    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *d;
        size_t n, i;

        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
            sh.sh_entsize == 0 || !(d = elf_getdata(scn, NULL)))
            continue;
        n = sh.sh_size / sh.sh_entsize;
        for (i = 0; i < n; i++) {
            GElf_Sym sym;
            const char *name;
            if (!gelf_getsym(d, (int)i, &sym) || i > INT32_MAX)
                break;
            if ((GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
                 GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC) ||
                sym.st_shndx == SHN_UNDEF || sym.st_value == 0 || sym.st_size == 0)
                continue;
            name = elf_strptr(e, sh.sh_link, sym.st_name);
            if (!name || !*name)
                continue;
            if (elfsyms_add(t, sym.st_value, sym.st_size, name) != 0)
                return -1;
            if (sh.sh_type == SHT_SYMTAB)
                *symtab = 1;
        }
    }
    return 0;
}

static int elfsyms_by_start(const void *a, const void *b)
{
    const elfsyms_symbol *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->size < y->size) - (x->size > y->size); /* the larger first */
}

static int elfsyms_u64_order(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Bytes of a DW_EH_PE value of this encoding (the formats the linker writes). */
static size_t elfsyms_eh_size(unsigned enc)
{
    switch (enc & 0x0f) {
    case 0x00: return 8; /* absptr */
    case 0x02:
    case 0x0a: return 2;
    case 0x03:
    case 0x0b: return 4;
    case 0x04:
    case 0x0c: return 8;
    default: return 0;
    }
}

/* Function starts from .eh_frame_hdr's binary search table (when it is in
 * the one format GNU ld writes: datarel sdata4 pairs). */
static int elfsyms_read_unwind(elfsyms *t, Elf *e, const GElf_Phdr *ph)
{
    size_t size = 0, skip, i;
    const unsigned char *raw = (const unsigned char *)elf_rawfile(e, &size), *h;
    uint32_t count;

    if (!raw || ph->p_offset > size || ph->p_filesz > size - ph->p_offset || ph->p_filesz < 8)
        return 0;
    h = raw + ph->p_offset;
    if (h[0] != 1 || h[1] == ELFSYMS_EH_OMIT || h[2] != ELFSYMS_EH_UDATA4 ||
        h[3] != ELFSYMS_EH_SDATA4_DATAREL || !(skip = elfsyms_eh_size(h[1])))
        return 0;
    if (4 + skip + 4 > ph->p_filesz)
        return 0;
    memcpy(&count, h + 4 + skip, 4);
    if (count == 0 || count > ELFSYMS_MAX_STARTS || (ph->p_filesz - 8 - skip) / 8 < count)
        return 0;
    if (!(t->starts = malloc((size_t)count * sizeof(*t->starts))))
        return -1;
    for (i = 0; i < count; i++) {
        int32_t rel;
        memcpy(&rel, h + 8 + skip + i * 8, 4);
        t->starts[i] = ph->p_vaddr + (uint64_t)(int64_t)rel;
    }
    t->start_count = count;
    qsort(t->starts, count, sizeof(*t->starts), elfsyms_u64_order);
    return 0;
}

/* ---- build ID, debug link, MiniDebugInfo --------------------------------------- */

/* The NT_GNU_BUILD_ID note of e, from its note sections (or, in a file
 * without section headers, its PT_NOTE segments). */
static void elfsyms_read_build_id(elfsyms *t, Elf *e)
{
    Elf_Scn *scn = NULL;

    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        GElf_Nhdr nh;
        Elf_Data *d;
        size_t off = 0, name_off, desc_off;

        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
            continue;
        while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz > 0 &&
                nh.n_descsz <= ELFSYMS_MAX_BUILD_ID && desc_off + nh.n_descsz <= d->d_size &&
                name_off + 4 <= d->d_size &&
                memcmp((const char *)d->d_buf + name_off, "GNU", 4) == 0) {
                memcpy(t->build_id, (const char *)d->d_buf + desc_off, nh.n_descsz);
                t->build_id_length = nh.n_descsz;
                return;
            }
        }
    }
}

/* The section of e named `name`, NULL when none. */
static Elf_Scn *elfsyms_section(Elf *e, const char *name)
{
    Elf_Scn *scn = NULL;
    size_t strndx;

    if (elf_getshdrstrndx(e, &strndx) != 0)
        return NULL;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        const char *n;
        if (gelf_getshdr(scn, &sh) && (n = elf_strptr(e, strndx, sh.sh_name)) &&
            strcmp(n, name) == 0)
            return scn;
    }
    return NULL;
}

/* .gnu_debuglink: a file name (NUL-terminated, padded to 4 bytes) and the
 * CRC-32 of that file. */
static void elfsyms_read_debuglink(elfsyms *t, Elf *e)
{
    Elf_Scn *scn = elfsyms_section(e, ".gnu_debuglink");
    Elf_Data *d = scn ? elf_rawdata(scn, NULL) : NULL;
    const char *name;
    size_t n, crc_at;

    if (!d || !d->d_buf || d->d_size < 8)
        return;
    name = d->d_buf;
    n = strnlen(name, d->d_size);
    crc_at = (n + 4) & ~(size_t)3;
    if (n == 0 || n >= sizeof(t->debuglink) || crc_at + 4 > d->d_size || memchr(name, '/', n))
        return; /* a name, never a path */
    memcpy(t->debuglink, name, n);
    t->debuglink[n] = '\0';
    memcpy(&t->debuglink_crc, (const char *)d->d_buf + crc_at, 4);
}

/* The xz stream of .gnu_debugdata, decompressed (at most ELFSYMS_MAX_DEBUGDATA
 * bytes): NULL when there is none or it is not whole. */
static char *elfsyms_unxz(const uint8_t *in, size_t n, size_t *out_n)
{
    lzma_stream z = LZMA_STREAM_INIT;
    size_t cap = n * 4 + 4096;
    char *out = NULL;
    lzma_ret r;

    if (lzma_stream_decoder(&z, 256u << 20, 0) != LZMA_OK)
        return NULL;
    z.next_in = in;
    z.avail_in = n;
    for (;;) {
        char *grown;
        if (cap > ELFSYMS_MAX_DEBUGDATA)
            cap = ELFSYMS_MAX_DEBUGDATA;
        if (!(grown = realloc(out, cap)))
            break;
        out = grown;
        z.next_out = (uint8_t *)out + z.total_out;
        z.avail_out = cap - z.total_out;
        r = lzma_code(&z, LZMA_FINISH);
        if (r == LZMA_STREAM_END) {
            *out_n = z.total_out;
            lzma_end(&z);
            return out;
        }
        if (r != LZMA_OK || z.avail_out != 0 || cap >= ELFSYMS_MAX_DEBUGDATA)
            break; /* damaged, or larger than we take */
        cap *= 2;
    }
    lzma_end(&z);
    free(out);
    return NULL;
}

/* The symbols of the ELF file compressed in .gnu_debugdata. 0 or -1 (out of memory). */
static int elfsyms_read_debugdata(elfsyms *t, Elf *e)
{
    Elf_Scn *scn = elfsyms_section(e, ".gnu_debugdata");
    Elf_Data *d = scn ? elf_rawdata(scn, NULL) : NULL;
    size_t n = 0;
    char *raw;
    Elf *mini;
    int symtab = 0, rc = 0;

    if (!d || !d->d_buf || !d->d_size || !(raw = elfsyms_unxz(d->d_buf, d->d_size, &n)))
        return 0;
    if ((mini = elf_memory(raw, n)) != NULL && elf_kind(mini) == ELF_K_ELF) {
        rc = elfsyms_read_symbols(t, mini, &symtab);
        if (symtab && t->names < ELFSYMS_NAMES_DEBUGDATA)
            t->names = ELFSYMS_NAMES_DEBUGDATA;
    }
    if (mini)
        elf_end(mini);
    free(raw);
    return rc;
}

static void elfsyms_sort(elfsyms *t)
{
    if (t->symbol_count)
        qsort(t->symbols, t->symbol_count, sizeof(*t->symbols), elfsyms_by_start);
}

int elfsyms_add_debug_file(elfsyms *t, int fd)
{
    elfsyms other;
    Elf *e;
    int symtab = 0, rc = 0;
    size_t size = 0;
    const char *raw;

    if (elf_version(EV_CURRENT) == EV_NONE || !(e = elf_begin(fd, ELF_C_READ_MMAP, NULL)))
        return 0;
    memset(&other, 0, sizeof(other));
    if (elf_kind(e) != ELF_K_ELF)
        goto done;
    elfsyms_read_build_id(&other, e);
    if (t->build_id_length) { /* the same build, or not ours */
        if (other.build_id_length != t->build_id_length ||
            memcmp(other.build_id, t->build_id, t->build_id_length) != 0)
            goto done;
    } else if (!t->debuglink[0] || !(raw = elf_rawfile(e, &size)) ||
               (uint32_t)crc32_z(0, (const Bytef *)raw, size) != t->debuglink_crc) {
        goto done;
    }
    if (elfsyms_read_symbols(t, e, &symtab) != 0) {
        rc = -1;
        goto done;
    }
    elfsyms_sort(t);
    if (symtab) {
        t->names = ELFSYMS_NAMES_DEBUG_FILE;
        rc = 1;
    }
done:
    elf_end(e);
    return rc;
}

int elfsyms_load(elfsyms *t, int fd)
{
    GElf_Phdr eh_frame = {0};
    size_t phnum = 0, i;
    int have_eh = 0, rc = -1, symtab = 0;
    Elf *e;

    memset(t, 0, sizeof(*t));
    if (elf_version(EV_CURRENT) == EV_NONE)
        return -1;
    if (!(e = elf_begin(fd, ELF_C_READ_MMAP, NULL)))
        return -1;
    if (elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &phnum) != 0)
        goto done;
    for (i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e, (int)i, &ph))
            continue;
        if (ph.p_type == PT_LOAD && t->load_count < ELFSYMS_MAX_LOADS)
            t->loads[t->load_count++] = (elfsyms_segment){ph.p_offset, ph.p_filesz, ph.p_vaddr};
        else if (ph.p_type == PT_GNU_EH_FRAME) {
            eh_frame = ph;
            have_eh = 1;
        }
    }
    if (elfsyms_read_symbols(t, e, &symtab) != 0 ||
        (have_eh && elfsyms_read_unwind(t, e, &eh_frame) != 0))
        goto done;
    t->names = symtab ? ELFSYMS_NAMES_SYMTAB : ELFSYMS_NAMES_EXPORTS;
    elfsyms_read_build_id(t, e);
    elfsyms_read_debuglink(t, e);
    if (!symtab && elfsyms_read_debugdata(t, e) != 0)
        goto done;
    elfsyms_sort(t);
    rc = 0;
done:
    if (rc != 0)
        elfsyms_free(t); /* what was read of a file that failed */
    elf_end(e);
    return rc;
}

int elfsyms_vaddr(const elfsyms *t, uint64_t offset, uint64_t *vaddr)
{
    unsigned i;

    for (i = 0; i < t->load_count; i++)
        if (offset >= t->loads[i].offset && offset - t->loads[i].offset < t->loads[i].filesz) {
            *vaddr = offset - t->loads[i].offset + t->loads[i].vaddr;
            return 1;
        }
    return 0;
}

int elfsyms_find(const elfsyms *t, uint64_t offset, const char **name, uint64_t *start)
{
    uint64_t v = 0;
    size_t lo, hi, k;

    if (!elfsyms_vaddr(t, offset, &v))
        return 0;
    for (lo = 0, hi = t->symbol_count; lo < hi;) { /* first symbol starting above v */
        size_t mid = lo + (hi - lo) / 2;
        if (t->symbols[mid].start <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* symbols may nest or repeat (aliases): look back a little for one holding v */
    for (k = 0; lo > 0 && k < 4; k++, lo--) {
        const elfsyms_symbol *s = &t->symbols[lo - 1];
        if (v - s->start < s->size) {
            *name = t->text + s->name;
            *start = s->start;
            return 1;
        }
    }
    for (lo = 0, hi = t->start_count; lo < hi;) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->starts[mid] <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    *name = NULL;
    *start = t->starts[lo - 1];
    return 2;
}

void elfsyms_free(elfsyms *t)
{
    free(t->symbols);
    free(t->starts);
    free(t->text);
    memset(t, 0, sizeof(*t));
}
