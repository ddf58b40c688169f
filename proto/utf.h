/* utf.h -- the one UTF module of jitscope: UTF-16 <-> UTF-8 and UTF-8 checks.
 *
 * Bounded, no allocation, pure: fit for the agent's application threads (module
 * paths, thread names), its sender thread (metadata names), and the server's
 * parsers of outside bytes (agent records, diagnostics IPC replies). UTF-16 is
 * the runtime's WCHAR and the diagnostics IPC's string encoding: 16-bit units
 * in little-endian order (x86-64 only, like the rest of the wire format). */
#ifndef JITSCOPE_UTF_H
#define JITSCOPE_UTF_H

#include <stddef.h>
#include <stdint.h>

/* Length of the well-formed UTF-8 sequence at s (n > 0 bytes left) and its code
 * point in *cp; 0 when malformed (overlong, surrogate, > U+10FFFF, cut short). */
size_t utf8_decode_one(const unsigned char *s, size_t n, uint32_t *cp);

/* 1 when the n bytes are well-formed UTF-8. */
int utf8_valid(const char *s, size_t n);

/* Converts at most `units` UTF-16 code units (stopping early at a NUL) into `out`,
 * writing at most `outsz` bytes and never a partial character. Unpaired surrogates
 * become U+FFFD. Returns bytes written (no NUL added); sets *truncated when input
 * remained. Worst case output is 3 bytes per input unit. */
size_t utf16_to_utf8(const uint16_t *in, size_t units, char *out, size_t outsz, int *truncated);

/* The same from little-endian bytes at any alignment (2 * units bytes). */
size_t utf16le_to_utf8(const uint8_t *in, size_t units, char *out, size_t outsz, int *truncated);

/* Copies at most outsz bytes of `in` (n bytes), replacing each byte that is not
 * part of a well-formed UTF-8 sequence by '?', never cutting a character in two.
 * Returns bytes written; sets *truncated when input remained. */
size_t utf8_sanitize(const char *in, size_t n, char *out, size_t outsz, int *truncated);

/* Converts the NUL-terminated UTF-8 string `in` to UTF-16LE bytes in `out`
 * (room for out_units units), terminating NUL included. Returns the units
 * written including the NUL, or 0 when `in` is malformed or does not fit. */
size_t utf8_to_utf16le(const char *in, uint8_t *out, size_t out_units);

#endif
