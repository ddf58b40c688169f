/* fuzz_ehframe.c -- libFuzzer target for the call-frame rule reader,
 * ehframe_rule_at in server/ehframe.c (the .eh_frame_hdr table and the
 * .eh_frame CIEs, FDEs and call-frame instructions of a file the target
 * maps: outside input).
 *
 * The input: u16 length of the header part, u64 address asked, u64 the
 * header's address, u64 .eh_frame's address, the header's bytes, then
 * .eh_frame's bytes (as ehframe_load keeps them). Checked: an answer is a
 * CFA on rsp or rbp, and no read goes outside the two parts (ASan).
 */
#include <stdlib.h>
#include <string.h>

#include "ehframe.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ehframe h;
    ehframe_rule rule;
    uint16_t hl;
    uint64_t pc;
    size_t rest;

    if (size < 26)
        return 0;
    memcpy(&hl, data, 2);
    memset(&h, 0, sizeof(h));
    memcpy(&pc, data + 2, 8);
    memcpy(&h.hdr_vaddr, data + 10, 8);
    memcpy(&h.frame_vaddr, data + 18, 8);
    data += 26;
    size -= 26;
    if (hl > size)
        hl = (uint16_t)size;
    rest = size - hl;
    h.hdr = malloc(hl ? hl : 1);
    h.frame = malloc(rest ? rest : 1);
    if (!h.hdr || !h.frame) {
        free(h.hdr);
        free(h.frame);
        return 0;
    }
    memcpy(h.hdr, data, hl);
    memcpy(h.frame, data + hl, rest);
    h.hdr_length = hl;
    h.frame_length = rest;
    if (hl >= 12) { /* as ehframe_load leaves it: the table after a 12-byte header */
        h.table_at = 12;
        h.count = (uint32_t)((hl - 12) / 8);
    }
    if (ehframe_rule_at(&h, pc, &rule) == 1)
        FUZZ_REQUIRE(rule.cfa_reg == EHFRAME_REG_RSP || rule.cfa_reg == EHFRAME_REG_RBP);
    ehframe_free(&h);
    return 0;
}
