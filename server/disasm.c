/* disasm.c -- Capstone behind disasm.h. */
#include "disasm.h"

#include <capstone/capstone.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

const char *disasm_arch_name(disasm_arch arch) { return arch == DISASM_ARM64 ? "arm64" : "x86_64"; }

/* The control transfer of an x86-64 instruction: kind and where to. */
static void disasm_x86(const cs_insn *in, disasm_insn *out)
{
    const cs_x86 *x = &in->detail->x86;
    unsigned g;

    for (g = 0; g < in->detail->groups_count; g++) {
        switch (in->detail->groups[g]) {
        case CS_GRP_CALL: out->flags |= DISASM_CALL; break;
        case CS_GRP_JUMP: out->flags |= DISASM_JUMP; break;
        case CS_GRP_RET: out->flags |= DISASM_RET; break;
        default: break;
        }
    }
    if (!(out->flags & (DISASM_CALL | DISASM_JUMP)))
        return;
    if (out->flags & DISASM_JUMP && in->id != X86_INS_JMP)
        out->flags |= DISASM_COND;
    if (x->op_count != 1)
        return;
    if (x->operands[0].type == X86_OP_IMM)
        out->target = (uint64_t)x->operands[0].imm;
    else if (x->operands[0].type == X86_OP_MEM && x->operands[0].mem.base == X86_REG_RIP &&
             x->operands[0].mem.index == X86_REG_INVALID)
        out->cell = in->address + in->size + (uint64_t)x->operands[0].mem.disp;
}

static void disasm_arm64(const cs_insn *in, disasm_insn *out)
{
    const cs_arm64 *a = &in->detail->arm64;
    unsigned g, i;

    for (g = 0; g < in->detail->groups_count; g++) {
        switch (in->detail->groups[g]) {
        case CS_GRP_CALL: out->flags |= DISASM_CALL; break;
        case CS_GRP_JUMP: out->flags |= DISASM_JUMP; break;
        case CS_GRP_RET: out->flags |= DISASM_RET; break;
        default: break;
        }
    }
    if (in->id == ARM64_INS_BL || in->id == ARM64_INS_BLR) /* Capstone 4 files them as jumps */
        out->flags = (out->flags & ~(uint32_t)DISASM_JUMP) | DISASM_CALL;
    if (!(out->flags & (DISASM_CALL | DISASM_JUMP)))
        return;
    if ((out->flags & DISASM_JUMP) &&
        (a->cc != ARM64_CC_INVALID || in->id == ARM64_INS_CBZ || in->id == ARM64_INS_CBNZ ||
         in->id == ARM64_INS_TBZ || in->id == ARM64_INS_TBNZ))
        out->flags |= DISASM_COND;
    for (i = 0; i < a->op_count; i++) /* the label is the last immediate (CBZ x0, label) */
        if (a->operands[i].type == ARM64_OP_IMM)
            out->target = (uint64_t)a->operands[i].imm;
}

int disasm_run(disasm_arch arch, const uint8_t *code, size_t size, uint64_t address,
               disasm_insn **out, size_t *count)
{
    csh handle;
    cs_insn *in = NULL;
    disasm_insn *list = NULL;
    size_t cap = 0, n = 0, off = 0;
    int rc = -1;

    *out = NULL;
    *count = 0;
    if (cs_open(arch == DISASM_ARM64 ? CS_ARCH_ARM64 : CS_ARCH_X86,
                arch == DISASM_ARM64 ? CS_MODE_ARM : CS_MODE_64, &handle) != CS_ERR_OK)
        return -1;
    cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
    if (!(in = cs_malloc(handle)))
        goto done;
    while (off < size) {
        const uint8_t *p = code + off;
        size_t left = size - off;
        uint64_t at = address + off;
        disasm_insn *d;

        if (grow_reserve((void **)&list, &cap, n, sizeof(*list), 64, DISASM_MAX_INSNS, GROW_KEEP) !=
            0)
            goto done;
        d = &list[n];
        memset(d, 0, sizeof(*d));
        d->offset = (uint32_t)off;
        if (cs_disasm_iter(handle, &p, &left, &at, in)) {
            d->size = (uint8_t)in->size;
            memcpy(d->bytes, in->bytes, in->size < sizeof(d->bytes) ? in->size : sizeof(d->bytes));
            snprintf(d->mnemonic, sizeof(d->mnemonic), "%s", in->mnemonic);
            snprintf(d->operands, sizeof(d->operands), "%s", in->op_str);
            if (arch == DISASM_ARM64)
                disasm_arm64(in, d);
            else
                disasm_x86(in, d);
            off += in->size;
        } else { /* not an instruction: one byte, shown as data */
            d->size = arch == DISASM_ARM64 && left >= 4 ? 4 : 1;
            memcpy(d->bytes, code + off, d->size);
            d->flags = DISASM_BAD;
            snprintf(d->mnemonic, sizeof(d->mnemonic), "%s", d->size == 4 ? ".word" : ".byte");
            if (d->size == 4) {
                uint32_t w;
                memcpy(&w, d->bytes, 4);
                snprintf(d->operands, sizeof(d->operands), "0x%08x", w);
            } else {
                snprintf(d->operands, sizeof(d->operands), "0x%02x", d->bytes[0]);
            }
            off += d->size;
        }
        n++;
    }
    rc = 0;
done:
    if (in)
        cs_free(in, 1);
    cs_close(&handle);
    if (rc != 0) {
        free(list);
        return -1;
    }
    *out = list;
    *count = n;
    return 0;
}
