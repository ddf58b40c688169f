/* emit.c -- records into the ring (see emit.h). The ring entry holds a complete
 * wire frame except the sequence number, which the sender thread assigns. */
#include "emit.h"

#include <string.h>
#include <time.h>

#include "agent.h"
#include "clock.h"
#include "wire.h"

int emit_record(uint16_t type, uint16_t flags, const void *fixed, uint32_t fixed_length,
                const void *extra, uint32_t extra_length, const wire_text *strings,
                unsigned string_count)
{
    return emit_record_at(type, flags, clock_mono_ns(), fixed, fixed_length, extra, extra_length,
                          strings, string_count);
}

int emit_record_at(uint16_t type, uint16_t flags, uint64_t time_ns, const void *fixed,
                   uint32_t fixed_length, const void *extra, uint32_t extra_length,
                   const wire_text *strings, unsigned string_count)
{
    wire_frame_header h = {.type = type, .flags = flags, .time_ns = time_ns};
    size_t bound = wire_encode_bound(fixed_length, extra_length, strings, string_count);
    ring_slot slot;

    if (!agent.ring_ready || ring_reserve(&agent.ring, (uint32_t)bound, &slot) != 0)
        return -1; /* counted by the ring */
    wire_encode(slot.data, &h, fixed, fixed_length, extra, extra_length, strings, string_count);
    ring_commit(&slot);
    return 0;
}
