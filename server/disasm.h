/* disasm.h -- machine code to instructions (Capstone), for the code view.
 *
 * Pure: bytes in, a list of instructions out, no session, no lock. Each
 * instruction carries what the annotation needs: whether it transfers control
 * (call, jump, conditional jump, return) and where to, when the code says:
 * a direct target (call/jmp rel32, arm64 BL/B/B.cond/CBZ/TBZ), or the cell
 * an x86-64 call/jmp [rip+disp] reads its target from. Bytes that do not
 * decode become one ".byte" entry each (a data word in the code, a cut-off
 * last instruction), so every byte of the input is accounted for.
 */
#ifndef JITSCOPE_DISASM_H
#define JITSCOPE_DISASM_H

#include <stddef.h>
#include <stdint.h>

typedef enum disasm_arch { DISASM_X86_64 = 1, DISASM_ARM64 = 2 } disasm_arch;

enum disasm_flags {
    DISASM_CALL = 1u << 0,
    DISASM_JUMP = 1u << 1, /* unconditional or conditional */
    DISASM_COND = 1u << 2, /* a conditional jump */
    DISASM_RET = 1u << 3,
    DISASM_BAD = 1u << 4, /* a byte that did not decode */
};

typedef struct disasm_insn {
    uint32_t offset; /* from the start of the bytes given */
    uint8_t size;
    uint8_t bytes[16];
    uint32_t flags;  /* disasm_flags */
    uint64_t target; /* a direct call/jump's destination, else 0 */
    uint64_t cell;   /* an x86-64 call/jmp [rip+disp]'s cell, else 0 */
    char mnemonic[32];
    char operands[160];
} disasm_insn;

#define DISASM_MAX_INSNS (512u * 1024u)

/* Disassembles size bytes that sit at `address` in the target. *out is
 * malloc'd (free it), *count its entries. 0, or -1 (no engine for the
 * architecture, or out of memory). */
int disasm_run(disasm_arch arch, const uint8_t *code, size_t size, uint64_t address,
               disasm_insn **out, size_t *count);

/* "x86_64" / "arm64". */
const char *disasm_arch_name(disasm_arch arch);

#endif
