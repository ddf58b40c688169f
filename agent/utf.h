/* utf.h -- UTF-16 (the runtime's WCHAR) to UTF-8 conversion, bounded, no allocation. */
#ifndef JITSCOPE_UTF_H
#define JITSCOPE_UTF_H

#include <stddef.h>
#include <stdint.h>

/* Converts at most `units` UTF-16 code units (stopping early at a NUL) into `out`,
 * writing at most `outsz` bytes and never a partial character. Unpaired surrogates
 * become U+FFFD. Returns bytes written (no NUL added); sets *truncated when input
 * remained. Worst case output is 3 bytes per input unit. */
size_t utf16_to_utf8(const uint16_t *in, size_t units, char *out, size_t outsz, int *truncated);

/* Copies at most outsz bytes of `in` (n bytes), replacing each byte that is not
 * part of a well-formed UTF-8 sequence by '?', never cutting a character in two.
 * Returns bytes written; sets *truncated when input remained. */
size_t utf8_sanitize(const char *in, size_t n, char *out, size_t outsz, int *truncated);

#endif
