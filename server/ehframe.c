/* ehframe.c -- call-frame rules from an ELF file's .eh_frame (see ehframe.h). */
#include "ehframe.h"

#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#define EHFRAME_STATES 8u /* DW_CFA_remember_state depth */
#define EHFRAME_REG_RA 16u

/* A cursor over bytes [p, end): every read checks the end. */
typedef struct ehcur {
    const uint8_t *p, *end;
    uint64_t vaddr; /* the file's address of p */
    int bad;
} ehcur;

static uint64_t eh_u(ehcur *c, unsigned n)
{
    uint64_t v = 0;
    unsigned i;

    if (c->bad || (size_t)(c->end - c->p) < n) {
        c->bad = 1;
        return 0;
    }
    for (i = 0; i < n; i++)
        v |= (uint64_t)c->p[i] << (8 * i);
    c->p += n;
    c->vaddr += n;
    return v;
}

/* A LEB128 number; `is_signed`: its last byte's bit 6 extends the sign. */
static uint64_t eh_leb(ehcur *c, int is_signed)
{
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b;

    do {
        b = (uint8_t)eh_u(c, 1);
        if (shift < 64)
            v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
    } while ((b & 0x80) && !c->bad);
    if (is_signed && shift < 64 && (b & 0x40))
        v |= ~0ull << shift;
    return v;
}

static uint64_t eh_uleb(ehcur *c) { return eh_leb(c, 0); }
static int64_t eh_sleb(ehcur *c) { return (int64_t)eh_leb(c, 1); }

/* a * b as the two's complement wraps it (the file's numbers may be anything). */
static int64_t eh_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* A pointer in DW_EH_PE encoding `enc` (absolute, pc-relative, or
 * data-relative to `data`); an indirect one is not followed (bad). */
static uint64_t eh_ptr(ehcur *c, uint8_t enc, uint64_t data)
{
    uint64_t at = c->vaddr, v;

    if (enc == 0xff)
        return 0;
    switch (enc & 0x0f) {
    case 0x00: v = eh_u(c, 8); break;
    case 0x01: v = eh_uleb(c); break;
    case 0x02: v = eh_u(c, 2); break;
    case 0x03: v = eh_u(c, 4); break;
    case 0x04: v = eh_u(c, 8); break;
    case 0x09: v = (uint64_t)eh_sleb(c); break;
    case 0x0a: v = (uint64_t)(int64_t)(int16_t)eh_u(c, 2); break;
    case 0x0b: v = (uint64_t)(int64_t)(int32_t)eh_u(c, 4); break;
    case 0x0c: v = eh_u(c, 8); break;
    default: c->bad = 1; return 0;
    }
    switch (enc & 0x70) {
    case 0x00: break;
    case 0x10: v += at; break;
    case 0x30: v += data; break;
    default: c->bad = 1; return 0;
    }
    if (enc & 0x80)
        c->bad = 1;
    return v;
}

/* ---- loading ------------------------------------------------------------------- */

static int ehframe_copy(uint8_t **to, const uint8_t *from, size_t n)
{
    if (!(*to = malloc(n ? n : 1)))
        return -1;
    memcpy(*to, from, n);
    return 0;
}

int ehframe_load(ehframe *h, int fd)
{
    GElf_Phdr hdr = {0}, loads[32];
    size_t phnum = 0, size = 0, i, nloads = 0;
    const uint8_t *raw;
    int rc = 0, have = 0;
    Elf *e;

    memset(h, 0, sizeof(*h));
    if (elf_version(EV_CURRENT) == EV_NONE || !(e = elf_begin(fd, ELF_C_READ_MMAP, NULL)))
        return 0;
    if (elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &phnum) != 0 ||
        !(raw = (const uint8_t *)elf_rawfile(e, &size)))
        goto done;
    for (i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e, (int)i, &ph))
            continue;
        if (ph.p_type == PT_GNU_EH_FRAME) {
            hdr = ph;
            have = 1;
        } else if (ph.p_type == PT_LOAD && nloads < sizeof(loads) / sizeof(loads[0])) {
            loads[nloads++] = ph;
        }
    }
    if (!have || hdr.p_offset > size || hdr.p_filesz > size - hdr.p_offset || hdr.p_filesz < 12)
        goto done;
    {
        const uint8_t *b = raw + hdr.p_offset;
        ehcur c = {b + 4, b + hdr.p_filesz, hdr.p_vaddr + 4, 0};
        uint64_t frame, count;
        size_t table_bytes;

        if (b[0] != 1 || b[3] != 0x3b) /* version 1, a datarel sdata4 table */
            goto done;
        frame = eh_ptr(&c, b[1], hdr.p_vaddr);
        count = eh_ptr(&c, b[2], hdr.p_vaddr);
        if (c.bad || count == 0 || count > (uint64_t)(c.end - c.p) / 8 ||
            count > EHFRAME_MAX_BYTES / 8)
            goto done;
        table_bytes = (size_t)(c.p - b) + (size_t)count * 8; /* the header's own bytes only */
        for (i = 0; i < nloads; i++) {
            const GElf_Phdr *l = &loads[i];
            size_t off, n;
            if (frame < l->p_vaddr || frame - l->p_vaddr >= l->p_filesz)
                continue;
            off = (size_t)(frame - l->p_vaddr + l->p_offset);
            n = (size_t)(l->p_filesz - (frame - l->p_vaddr));
            if (off > size || n > size - off)
                break;
            if (n > EHFRAME_MAX_BYTES)
                n = EHFRAME_MAX_BYTES;
            if (ehframe_copy(&h->frame, raw + off, n) != 0 ||
                ehframe_copy(&h->hdr, b, table_bytes) != 0) {
                ehframe_free(h);
                rc = -1;
                goto done;
            }
            h->frame_length = n;
            h->frame_vaddr = frame;
            h->hdr_length = table_bytes;
            h->hdr_vaddr = hdr.p_vaddr;
            h->count = (uint32_t)count;
            h->table_at = (size_t)(c.p - b);
            break;
        }
    }
done:
    elf_end(e);
    return rc;
}

void ehframe_free(ehframe *h)
{
    free(h->hdr);
    free(h->frame);
    memset(h, 0, sizeof(*h));
}

/* ---- the rule at an address ------------------------------------------------------ */

typedef struct ehstate {
    int cfa_reg;
    int64_t cfa_off;
    int cfa_bad; /* an expression, or a register this reader does not follow */
    int rbp_saved, ra_bad;
    int64_t rbp_off;
} ehstate;

typedef struct ehcie {
    uint64_t code_align;
    int64_t data_align;
    uint8_t fde_enc;
    int has_aug;
    ehcur init; /* its initial instructions */
} ehcie;

/* A cursor over the frame's bytes at file address vaddr, for n bytes. */
static ehcur eh_at(const ehframe *h, uint64_t vaddr, uint64_t n)
{
    ehcur c = {NULL, NULL, vaddr, 1};

    if (vaddr < h->frame_vaddr || vaddr - h->frame_vaddr > h->frame_length ||
        n > h->frame_length - (vaddr - h->frame_vaddr))
        return c;
    c.p = h->frame + (vaddr - h->frame_vaddr);
    c.end = c.p + n;
    c.bad = 0;
    return c;
}

static int eh_cie(const ehframe *h, uint64_t vaddr, ehcie *cie)
{
    ehcur c = eh_at(h, vaddr, 4), body;
    uint64_t length = eh_u(&c, 4), ra;
    const char *aug;
    uint8_t version;
    size_t k;

    if (c.bad || length == 0 || length == 0xffffffffu)
        return 0;
    body = eh_at(h, vaddr + 4, length);
    if (body.bad || eh_u(&body, 4) != 0) /* CIE id */
        return 0;
    version = (uint8_t)eh_u(&body, 1);
    aug = (const char *)body.p;
    for (k = 0; body.p + k < body.end && aug[k]; k++)
        ;
    if (body.p + k >= body.end || (version != 1 && version != 3))
        return 0;
    body.p += k + 1;
    body.vaddr += k + 1;
    memset(cie, 0, sizeof(*cie));
    if (aug[0] == 'e' && aug[1] == 'h')
        return 0; /* the old GCC form */
    cie->code_align = eh_uleb(&body);
    cie->data_align = eh_sleb(&body);
    ra = version == 1 ? eh_u(&body, 1) : eh_uleb(&body);
    if (ra != EHFRAME_REG_RA)
        return 0;
    if (aug[0] == 'z') {
        uint64_t n = eh_uleb(&body);
        const uint8_t *after;
        cie->has_aug = 1;
        if (body.bad || n > (uint64_t)(body.end - body.p))
            return 0;
        after = body.p + n;
        for (k = 1; aug[k]; k++) {
            if (aug[k] == 'R') {
                cie->fde_enc = (uint8_t)eh_u(&body, 1);
            } else if (aug[k] == 'P') {
                uint8_t enc = (uint8_t)eh_u(&body, 1);
                (void)eh_ptr(&body, enc & 0x7f, 0);
            } else if (aug[k] == 'L') {
                (void)eh_u(&body, 1);
            } else if (aug[k] != 'S' && aug[k] != 'B') {
                break; /* unknown: the augmentation's length skips it */
            }
        }
        body.vaddr += (uint64_t)(after - body.p);
        body.p = after;
    } else if (aug[0]) {
        return 0;
    }
    cie->init = body;
    return !body.bad;
}

/* Runs instructions until the location passes pc (or they end). 0 when they
 * make no sense. */
static int eh_run(ehcur *c, const ehcie *cie, uint64_t loc, uint64_t pc, ehstate *s,
                  const ehstate *initial)
{
    ehstate stack[EHFRAME_STATES];
    unsigned depth = 0;

    while (c->p < c->end && !c->bad) {
        uint8_t op = (uint8_t)eh_u(c, 1), low = op & 0x3f;
        uint64_t reg, delta = 0;
        int64_t off;

        switch (op >> 6) {
        case 1: delta = low * cie->code_align; break;
        case 2:
            off = eh_mul((int64_t)eh_uleb(c), cie->data_align);
            if (low == EHFRAME_REG_RBP) {
                s->rbp_saved = 1;
                s->rbp_off = off;
            } else if (low == EHFRAME_REG_RA && off != -8) {
                s->ra_bad = 1;
            }
            continue;
        case 3:
            if (low == EHFRAME_REG_RBP) {
                s->rbp_saved = initial ? initial->rbp_saved : 0;
                s->rbp_off = initial ? initial->rbp_off : 0;
            }
            continue;
        default: break;
        }
        if (op >> 6 == 0) {
            switch (op) {
            case 0x00: continue;
            case 0x01: return 0; /* set_loc: not in position-independent files */
            case 0x02: delta = eh_u(c, 1) * cie->code_align; break;
            case 0x03: delta = eh_u(c, 2) * cie->code_align; break;
            case 0x04: delta = eh_u(c, 4) * cie->code_align; break;
            case 0x05:
            case 0x11:
                reg = eh_uleb(c);
                off = eh_mul(op == 0x05 ? (int64_t)eh_uleb(c) : eh_sleb(c), cie->data_align);
                if (reg == EHFRAME_REG_RBP) {
                    s->rbp_saved = 1;
                    s->rbp_off = off;
                } else if (reg == EHFRAME_REG_RA && off != -8) {
                    s->ra_bad = 1;
                }
                continue;
            case 0x06:
            case 0x07:
            case 0x08:
                reg = eh_uleb(c);
                if (reg == EHFRAME_REG_RBP) {
                    s->rbp_saved = op == 0x06 && initial ? initial->rbp_saved : 0;
                    s->rbp_off = op == 0x06 && initial ? initial->rbp_off : 0;
                } else if (reg == EHFRAME_REG_RA) {
                    s->ra_bad = 1;
                }
                continue;
            case 0x09:
                reg = eh_uleb(c);
                (void)eh_uleb(c);
                if (reg == EHFRAME_REG_RBP || reg == EHFRAME_REG_RA)
                    s->ra_bad = 1; /* kept in another register: not followed */
                continue;
            case 0x0a:
                if (depth >= EHFRAME_STATES)
                    return 0;
                stack[depth++] = *s;
                continue;
            case 0x0b:
                if (!depth)
                    return 0;
                *s = stack[--depth];
                continue;
            case 0x0c:
            case 0x12:
                s->cfa_reg = (int)eh_uleb(c);
                s->cfa_off = op == 0x0c ? (int64_t)eh_uleb(c) : eh_mul(eh_sleb(c), cie->data_align);
                s->cfa_bad = 0;
                continue;
            case 0x0d: s->cfa_reg = (int)eh_uleb(c); continue;
            case 0x0e: s->cfa_off = (int64_t)eh_uleb(c); continue;
            case 0x13: s->cfa_off = eh_mul(eh_sleb(c), cie->data_align); continue;
            case 0x0f: {
                uint64_t n = eh_uleb(c);
                s->cfa_bad = 1;
                if (n > (uint64_t)(c->end - c->p))
                    return 0;
                c->p += n;
                c->vaddr += n;
                continue;
            }
            case 0x10:
            case 0x16: {
                uint64_t n;
                reg = eh_uleb(c);
                n = eh_uleb(c);
                if (reg == EHFRAME_REG_RBP || reg == EHFRAME_REG_RA)
                    s->ra_bad = 1;
                if (n > (uint64_t)(c->end - c->p))
                    return 0;
                c->p += n;
                c->vaddr += n;
                continue;
            }
            case 0x14:
            case 0x15:
                reg = eh_uleb(c);
                if (op == 0x14)
                    (void)eh_uleb(c);
                else
                    (void)eh_sleb(c);
                if (reg == EHFRAME_REG_RBP || reg == EHFRAME_REG_RA)
                    s->ra_bad = 1;
                continue;
            case 0x2e: (void)eh_uleb(c); continue;
            case 0x2f:
                reg = eh_uleb(c);
                off = eh_mul(eh_mul((int64_t)eh_uleb(c), cie->data_align), -1);
                if (reg == EHFRAME_REG_RBP) {
                    s->rbp_saved = 1;
                    s->rbp_off = off;
                }
                continue;
            default: return 0;
            }
        }
        if (loc + delta > pc)
            return 1; /* the row that holds pc is the current one */
        loc += delta;
    }
    return !c->bad;
}

int ehframe_rule_at(const ehframe *h, uint64_t pc, ehframe_rule *rule)
{
    const uint8_t *t = h->hdr ? h->hdr + h->table_at : NULL;
    uint32_t lo = 0, hi = h->count;
    int32_t loc_rel, fde_rel;
    uint64_t fde, length, cie_at, start, range;
    ehcur c, body;
    ehcie cie;
    ehstate s, initial;

    if (!t || !h->count)
        return 0;
    while (lo < hi) { /* the first entry starting above pc */
        uint32_t mid = lo + (hi - lo) / 2;
        memcpy(&loc_rel, t + (size_t)mid * 8, 4);
        if (h->hdr_vaddr + (uint64_t)(int64_t)loc_rel <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    memcpy(&fde_rel, t + (size_t)(lo - 1) * 8 + 4, 4);
    fde = h->hdr_vaddr + (uint64_t)(int64_t)fde_rel;
    c = eh_at(h, fde, 8);
    length = eh_u(&c, 4);
    if (c.bad || length < 8 || length == 0xffffffffu)
        return 0;
    body = eh_at(h, fde + 4, length);
    cie_at = fde + 4 - eh_u(&body, 4);
    if (body.bad || !eh_cie(h, cie_at, &cie))
        return 0;
    start = eh_ptr(&body, cie.fde_enc, 0);
    range = eh_ptr(&body, cie.fde_enc & 0x0f, 0);
    if (body.bad || pc < start || pc - start >= range)
        return 0;
    if (cie.has_aug) {
        uint64_t n = eh_uleb(&body);
        if (body.bad || n > (uint64_t)(body.end - body.p))
            return 0;
        body.p += n;
        body.vaddr += n;
    }
    memset(&s, 0, sizeof(s));
    s.cfa_bad = 1;
    if (!eh_run(&cie.init, &cie, start, UINT64_MAX, &s, NULL))
        return 0;
    initial = s;
    if (!eh_run(&body, &cie, start, pc, &s, &initial))
        return 0;
    if (s.cfa_bad || s.ra_bad || (s.cfa_reg != EHFRAME_REG_RSP && s.cfa_reg != EHFRAME_REG_RBP))
        return 0;
    rule->cfa_reg = s.cfa_reg;
    rule->cfa_off = s.cfa_off;
    rule->rbp_saved = s.rbp_saved;
    rule->rbp_off = s.rbp_off;
    return 1;
}
