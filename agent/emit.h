/* emit.h -- writing records into the agent's ring from any thread.
 *
 * Used by the callbacks on the application's threads: no locks, no allocation,
 * a fixed-size stack footprint. A record that does not fit is dropped and
 * counted by the ring (never waits). Strings are copied (UTF-8) or converted
 * (UTF-16 from the runtime) straight into the reserved slot. */
#ifndef JITSCOPE_EMIT_H
#define JITSCOPE_EMIT_H

#include <stddef.h>
#include <stdint.h>

typedef struct emit_string {
    const char *utf8;       /* either utf8 ... */
    const uint16_t *utf16;  /* ... or utf16 (stops at NUL or at length) */
    size_t length;          /* bytes (utf8) or code units (utf16) */
} emit_string;

/* Emits a record of `type` with a fixed part, `extra` raw bytes after it (may be
 * 0), and up to two strings, stamped with the current time. Returns 0, or -1
 * when the record was dropped (and counted by the ring). */
int emit_record(uint16_t type, uint16_t flags, const void *fixed, uint32_t fixed_length,
                const void *extra, uint32_t extra_length, const emit_string *strings,
                unsigned string_count);

/* The same with the record's time given by the caller (CLOCK_MONOTONIC ns). */
int emit_record_at(uint16_t type, uint16_t flags, uint64_t time_ns, const void *fixed,
                   uint32_t fixed_length, const void *extra, uint32_t extra_length,
                   const emit_string *strings, unsigned string_count);

#endif
