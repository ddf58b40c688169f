/* emit.c -- records into the ring (see emit.h). The ring entry holds a complete
 * wire frame except the sequence number, which the sender thread assigns. */
#include "emit.h"

#include <string.h>
#include <time.h>

#include "agent.h"
#include "clock.h"
#include "utf.h"
#include "wire.h"

static size_t emit_string_bound(const emit_string *s)
{
    size_t n = s->utf16 ? s->length * 3 : s->length;
    return n > WIRE_MAX_STRING ? WIRE_MAX_STRING : n;
}

int emit_record(uint16_t type, uint16_t flags, const void *fixed, uint32_t fixed_length,
                const void *extra, uint32_t extra_length, const emit_string *strings,
                unsigned string_count)
{
    return emit_record_at(type, flags, clock_mono_ns(), fixed, fixed_length, extra, extra_length,
                          strings, string_count);
}

int emit_record_at(uint16_t type, uint16_t flags, uint64_t time_ns, const void *fixed,
                   uint32_t fixed_length, const void *extra, uint32_t extra_length,
                   const emit_string *strings, unsigned string_count)
{
    wire_frame_header h = {.type = type, .flags = flags, .time_ns = time_ns};
    size_t bound = sizeof(h) + fixed_length + extra_length, pos;
    ring_slot slot;
    unsigned i;

    for (i = 0; i < string_count; i++)
        bound += 2 + emit_string_bound(&strings[i]);
    if (!agent.ring_ready || ring_reserve(&agent.ring, (uint32_t)bound, &slot) != 0)
        return -1; /* counted by the ring */
    pos = sizeof(h);
    memcpy(slot.data + pos, fixed, fixed_length);
    pos += fixed_length;
    if (extra_length)
        memcpy(slot.data + pos, extra, extra_length);
    pos += extra_length;
    for (i = 0; i < string_count; i++) {
        const emit_string *s = &strings[i];
        size_t cap = emit_string_bound(s), n;
        uint16_t n16;
        int truncated = 0;

        if (s->utf16) {
            n = utf16_to_utf8(s->utf16, s->length, (char *)slot.data + pos + 2, cap, &truncated);
        } else {
            n = utf8_sanitize(s->utf8, s->length, (char *)slot.data + pos + 2, cap, &truncated);
        }
        if (truncated)
            h.flags |= WIRE_FLAG_TRUNCATED;
        n16 = (uint16_t)n;
        memcpy(slot.data + pos, &n16, 2);
        pos += 2 + n;
    }
    h.length = (uint32_t)(pos - sizeof(h));
    memcpy(slot.data, &h, sizeof(h));
    ring_commit(&slot);
    return 0;
}
