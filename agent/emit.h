/* emit.h -- writing records into the agent's ring from any thread.
 *
 * Used by the callbacks on the application's threads: no locks, no allocation,
 * a fixed-size stack footprint. A record that does not fit is dropped and
 * counted by the ring (never waits). The frame is encoded (proto/wire_encode.c)
 * straight into the reserved slot. */
#ifndef JITSCOPE_EMIT_H
#define JITSCOPE_EMIT_H

#include <stddef.h>
#include <stdint.h>

#include "wire_encode.h"

/* Emits a record of `type` with a fixed part, `extra` raw bytes after it (may be
 * 0), and up to two strings, stamped with the current time. Returns 0, or -1
 * when the record was dropped (and counted by the ring). */
int emit_record(uint16_t type, uint16_t flags, const void *fixed, uint32_t fixed_length,
                const void *extra, uint32_t extra_length, const wire_text *strings,
                unsigned string_count);

/* The same with the record's time given by the caller (CLOCK_MONOTONIC ns). */
int emit_record_at(uint16_t type, uint16_t flags, uint64_t time_ns, const void *fixed,
                   uint32_t fixed_length, const void *extra, uint32_t extra_length,
                   const wire_text *strings, unsigned string_count);

#endif
