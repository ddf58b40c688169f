/* wire_encode.h -- the one encoder of jitscope frames (wire.h), for both sides.
 *
 * Writes a complete frame into a buffer the caller owns: no allocation, no
 * lock, bounded stack, so the agent's callbacks can encode straight into a
 * reserved ring slot on the application's thread. Also used by the agent's
 * sender for the records it makes itself and by the server for commands.
 * Strings are UTF-8 (sanitized: a bad byte becomes '?') or UTF-16 from the
 * runtime (converted), each cut at WIRE_MAX_STRING bytes on a character
 * boundary; a cut sets WIRE_FLAG_TRUNCATED in the frame's header. */
#ifndef JITSCOPE_WIRE_ENCODE_H
#define JITSCOPE_WIRE_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

typedef struct wire_text {
    const char *utf8;      /* either utf8 ... */
    const uint16_t *utf16; /* ... or utf16 (stops at NUL or at length) */
    size_t length;         /* bytes (utf8) or code units (utf16) */
} wire_text;

/* Bytes a frame needs at most: header, fixed part, extra bytes, and each
 * string's u16 length plus its longest encoding (capped at WIRE_MAX_STRING). */
size_t wire_encode_bound(uint32_t fixed_length, uint32_t extra_length, const wire_text *strings,
                         unsigned string_count);

/* Encodes header + fixed + extra + strings into buf, which has room for
 * wire_encode_bound() bytes. The header's type, flags, seq and time_ns come
 * from *h; its length is computed. Returns the frame's size in bytes. */
size_t wire_encode(uint8_t *buf, const wire_frame_header *h, const void *fixed,
                   uint32_t fixed_length, const void *extra, uint32_t extra_length,
                   const wire_text *strings, unsigned string_count);

/* Stamps `seq` into an encoded frame's header, in place: the agent's ring
 * holds frames encoded once on the app's thread, numbered by the sender when
 * it copies them out (the frame is then byte for byte what wire_encode makes
 * with that seq). */
void wire_stamp_seq(uint8_t *frame, uint64_t seq);

#endif
