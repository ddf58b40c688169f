/* wire_encode.c -- frames into a caller's buffer (see wire_encode.h). */
#include "wire_encode.h"

#include <stddef.h>
#include <string.h>

#include "utf.h"

static size_t wire_text_bound(const wire_text *s)
{
    size_t n = s->utf16 ? s->length * 3 : s->length;
    return n > WIRE_MAX_STRING ? WIRE_MAX_STRING : n;
}

size_t wire_encode_bound(uint32_t fixed_length, uint32_t extra_length, const wire_text *strings,
                         unsigned string_count)
{
    size_t bound = sizeof(wire_frame_header) + (size_t)fixed_length + extra_length;
    unsigned i;

    for (i = 0; i < string_count; i++)
        bound += 2 + wire_text_bound(&strings[i]);
    return bound;
}

size_t wire_encode(uint8_t *buf, const wire_frame_header *h_in, const void *fixed,
                   uint32_t fixed_length, const void *extra, uint32_t extra_length,
                   const wire_text *strings, unsigned string_count)
{
    wire_frame_header h = *h_in;
    size_t pos = sizeof(h);
    unsigned i;

    if (fixed_length)
        memcpy(buf + pos, fixed, fixed_length);
    pos += fixed_length;
    if (extra_length)
        memcpy(buf + pos, extra, extra_length);
    pos += extra_length;
    for (i = 0; i < string_count; i++) {
        const wire_text *s = &strings[i];
        size_t cap = wire_text_bound(s), n;
        uint16_t n16;
        int truncated = 0;

        if (s->utf16)
            n = utf16_to_utf8(s->utf16, s->length, (char *)buf + pos + 2, cap, &truncated);
        else
            n = utf8_sanitize(s->utf8, s->length, (char *)buf + pos + 2, cap, &truncated);
        if (truncated)
            h.flags |= WIRE_FLAG_TRUNCATED;
        n16 = (uint16_t)n;
        memcpy(buf + pos, &n16, 2);
        pos += 2 + n;
    }
    h.length = (uint32_t)(pos - sizeof(h));
    memcpy(buf, &h, sizeof(h));
    return pos;
}

void wire_stamp_seq(uint8_t *frame, uint64_t seq)
{
    memcpy(frame + offsetof(wire_frame_header, seq), &seq, sizeof(seq));
}
