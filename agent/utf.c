/* utf.c -- UTF-16 to UTF-8 for names and paths handed over by the runtime.
 * Pure function: used by the agent on app threads (module paths, thread names)
 * and on the sender thread (metadata names); unit-tested in tests/unit. */
#include "utf.h"

static size_t utf8_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t utf16_to_utf8(const uint16_t *in, size_t units, char *out, size_t outsz, int *truncated)
{
    size_t i = 0, n = 0;

    *truncated = 0;
    while (i < units && in[i] != 0) {
        uint32_t cp = in[i];
        size_t used = 1, len, k;
        char enc[4];

        if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < units && in[i + 1] >= 0xDC00 &&
            in[i + 1] <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (in[i + 1] - 0xDC00u);
            used = 2;
        } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            cp = 0xFFFD;
        }
        len = utf8_encode(cp, enc);
        if (n + len > outsz) {
            *truncated = 1;
            return n;
        }
        for (k = 0; k < len; k++)
            out[n + k] = enc[k];
        n += len;
        i += used;
    }
    return n;
}

/* Length of the well-formed UTF-8 sequence at s (n bytes left), 0 if malformed. */
static size_t utf8_sequence_length(const unsigned char *s, size_t n)
{
    size_t need, k;
    uint32_t cp, min;

    if (s[0] < 0x80)
        return 1;
    if ((s[0] & 0xE0) == 0xC0)
        need = 1, cp = s[0] & 0x1Fu, min = 0x80;
    else if ((s[0] & 0xF0) == 0xE0)
        need = 2, cp = s[0] & 0x0Fu, min = 0x800;
    else if ((s[0] & 0xF8) == 0xF0)
        need = 3, cp = s[0] & 0x07u, min = 0x10000;
    else
        return 0;
    if (n <= need)
        return 0;
    for (k = 1; k <= need; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[k] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return need + 1;
}

size_t utf8_sanitize(const char *in, size_t n, char *out, size_t outsz, int *truncated)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t i = 0, o = 0;

    *truncated = 0;
    while (i < n) {
        size_t len = utf8_sequence_length(s + i, n - i), k;

        if (o + (len ? len : 1) > outsz) {
            *truncated = 1;
            break;
        }
        if (len == 0) {
            out[o++] = '?';
            i++;
            continue;
        }
        for (k = 0; k < len; k++)
            out[o++] = (char)s[i + k];
        i += len;
    }
    return o;
}
