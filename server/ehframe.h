/* ehframe.h -- the call-frame rules of one x86-64 ELF file's unwind table
 * (.eh_frame, found through .eh_frame_hdr's binary search table), to recover
 * the caller of a CPU sample's leaf that keeps no frame pointer (frames.c).
 *
 * Only what that needs is interpreted: the DWARF call-frame instructions of
 * the FDE that holds an address, run up to it, give where the canonical frame
 * address (CFA) is (a register plus an offset), where the return address is
 * (CFA - 8 in every x86-64 ABI file) and where rbp was saved, if it was.
 * Expressions, 64-bit DWARF lengths and a return address kept elsewhere answer
 * "no rule". The file is outside input: every length and offset is checked
 * against the bytes read. Bounds: EHFRAME_MAX_BYTES of .eh_frame kept. */
#ifndef JITSCOPE_EHFRAME_H
#define JITSCOPE_EHFRAME_H

#include <stddef.h>
#include <stdint.h>

#define EHFRAME_MAX_BYTES (64u * 1024u * 1024u)
#define EHFRAME_REG_RBP 6
#define EHFRAME_REG_RSP 7

typedef struct ehframe {
    uint8_t *hdr; /* .eh_frame_hdr's bytes (PT_GNU_EH_FRAME) */
    size_t hdr_length;
    uint64_t hdr_vaddr;
    uint32_t count;  /* table entries */
    size_t table_at; /* the table's offset in hdr */
    uint8_t *frame;  /* .eh_frame from its start to the end of its segment */
    size_t frame_length;
    uint64_t frame_vaddr;
} ehframe;

typedef struct ehframe_rule {
    int cfa_reg;     /* EHFRAME_REG_RSP or EHFRAME_REG_RBP (others: no rule) */
    int64_t cfa_off; /* CFA = cfa_reg + cfa_off */
    int rbp_saved;   /* rbp of the caller is at CFA + rbp_off */
    int64_t rbp_off;
} ehframe_rule;

/* Reads the unwind table of the ELF file open at fd. 0 (h may be empty: no
 * table), or -1 when out of memory. */
int ehframe_load(ehframe *h, int fd);
void ehframe_free(ehframe *h);
/* The rule at virtual address pc of the file: 1 with *rule, 0 when the table
 * has none (or none this reader understands). */
int ehframe_rule_at(const ehframe *h, uint64_t pc, ehframe_rule *rule);

#endif
