/* textbuf.h -- a growable text buffer with a hard cap, for the routes that
 * answer with text (folded stacks, snapshot reports).
 *
 * The cap is given at init; an append that would pass it fails and marks the
 * buffer as overflowed, and every later append fails too, so a caller may
 * append freely and check once at the end. No sprintf/strcat: appends are
 * length-counted, formatting goes through vsnprintf into the buffer's room. */
#ifndef JITSCOPE_TEXTBUF_H
#define JITSCOPE_TEXTBUF_H

#include <stddef.h>

typedef struct textbuf {
    char *data; /* NUL-terminated when length > 0 */
    size_t length, cap;
    size_t max;   /* bytes of text allowed, the NUL not counted */
    int overflow; /* an append failed (cap or memory) */
} textbuf;

void textbuf_init(textbuf *b, size_t max);
int textbuf_add(textbuf *b, const char *text, size_t n); /* 0, or -1 once overflowed */
int textbuf_str(textbuf *b, const char *text);
__attribute__((format(printf, 2, 3))) int textbuf_printf(textbuf *b, const char *fmt, ...);
/* Hands the text over (malloc'd, NUL-terminated, never NULL unless out of
 * memory) and resets the buffer. */
char *textbuf_take(textbuf *b, size_t *length);
void textbuf_free(textbuf *b);

#endif
