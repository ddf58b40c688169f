/* ilbody.c -- a method's IL body header, tiny or fat (see ilbody.h). */
#include "ilbody.h"

#define ILBODY_FORMAT_MASK 0x3u
#define ILBODY_TINY 0x2u /* CorILMethod_TinyFormat: code size in the upper 6 bits */
#define ILBODY_FAT 0x3u  /* CorILMethod_FatFormat: flags and size (in dwords) in 16 bits */

int ilbody_parse(const uint8_t *body, size_t available, ilbody *out)
{
    uint32_t words;

    if (!body || available < 1)
        return -1;
    if ((body[0] & ILBODY_FORMAT_MASK) == ILBODY_TINY) {
        out->header_size = 1;
        out->code_size = body[0] >> 2;
        return 0;
    }
    if ((body[0] & ILBODY_FORMAT_MASK) != ILBODY_FAT || available < ILBODY_FAT_HEADER)
        return -1;
    words = body[1] >> 4; /* the high 4 bits of the 16-bit flags word */
    if (words * 4u < ILBODY_FAT_HEADER || words * 4u > available)
        return -1;
    out->header_size = words * 4u;
    out->code_size = (uint32_t)body[4] | (uint32_t)body[5] << 8 | (uint32_t)body[6] << 16 |
                     (uint32_t)body[7] << 24;
    return 0;
}
