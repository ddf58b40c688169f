/* fmtread.h -- what the readers of file formats (pdb.c, pefile.c) share:
 * little-endian fields read from bytes already bounds-checked by the caller,
 * and the message of a malformed input written to the caller's buffer.
 * Header-only so that the fuzzers of each reader link that reader alone. */
#ifndef JITSCOPE_FMTREAD_H
#define JITSCOPE_FMTREAD_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

static inline uint32_t fmtread_u16(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8;
}

static inline uint32_t fmtread_u32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Writes the message (when err has room) and returns -1. */
__attribute__((format(printf, 3, 4))) static inline int fmtread_fail(char *err, size_t size,
                                                                     const char *fmt, ...)
{
    va_list ap;
    if (err && size) {
        va_start(ap, fmt);
        vsnprintf(err, size, fmt, ap);
        va_end(ap);
    }
    return -1;
}

#endif
