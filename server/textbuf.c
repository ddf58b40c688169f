/* textbuf.c -- capped growable text buffer (see textbuf.h). */
#include "textbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void textbuf_init(textbuf *b, size_t max)
{
    memset(b, 0, sizeof(*b));
    b->max = max;
}

/* Makes room for n more bytes and a NUL. */
static int textbuf_room(textbuf *b, size_t n)
{
    size_t want;
    char *bigger;

    if (b->overflow || n > b->max - b->length) {
        b->overflow = 1;
        return -1;
    }
    if (b->length + n + 1 <= b->cap)
        return 0;
    want = b->cap ? b->cap : 4096;
    while (want < b->length + n + 1)
        want *= 2;
    if (want > b->max + 1)
        want = b->max + 1;
    bigger = realloc(b->data, want);
    if (!bigger) {
        b->overflow = 1;
        return -1;
    }
    b->data = bigger;
    b->cap = want;
    return 0;
}

int textbuf_add(textbuf *b, const char *text, size_t n)
{
    if (textbuf_room(b, n) != 0)
        return -1;
    memcpy(b->data + b->length, text, n);
    b->length += n;
    b->data[b->length] = '\0';
    return 0;
}

int textbuf_str(textbuf *b, const char *text) { return textbuf_add(b, text, strlen(text)); }

int textbuf_printf(textbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || textbuf_room(b, (size_t)n) != 0) {
        b->overflow = 1;
        return -1;
    }
    va_start(ap, fmt);
    vsnprintf(b->data + b->length, b->cap - b->length, fmt, ap);
    va_end(ap);
    b->length += (size_t)n;
    return 0;
}

char *textbuf_take(textbuf *b, size_t *length)
{
    char *text = b->data ? b->data : calloc(1, 1);

    *length = b->data ? b->length : 0;
    b->data = NULL;
    b->length = b->cap = 0;
    return text;
}

void textbuf_free(textbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->length = b->cap = 0;
}
