/* utf.c -- UTF-16 <-> UTF-8 conversion and UTF-8 checks (see utf.h).
 * Pure functions; unit-tested by tests/unit/test_utf.c and test_wire_utf8.c, and run
 * by the wire decoder's fuzz target. */
#include "utf.h"

#include <string.h>

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

size_t utf8_decode_one(const unsigned char *s, size_t n, uint32_t *cp)
{
    size_t need, k;
    uint32_t c, min;

    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if ((s[0] & 0xE0) == 0xC0)
        need = 1, c = s[0] & 0x1Fu, min = 0x80;
    else if ((s[0] & 0xF0) == 0xE0)
        need = 2, c = s[0] & 0x0Fu, min = 0x800;
    else if ((s[0] & 0xF8) == 0xF0)
        need = 3, c = s[0] & 0x07u, min = 0x10000;
    else
        return 0;
    if (n <= need)
        return 0;
    for (k = 1; k <= need; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (s[k] & 0x3Fu);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return need + 1;
}

/* How many bytes from s (n left) are ASCII, eight at a time where it can: the
 * names and paths that pass through here are nearly all ASCII. */
static size_t ascii_run(const unsigned char *s, size_t n)
{
    size_t i = 0;

    while (n - i >= 8) {
        uint64_t word;
        memcpy(&word, s + i, sizeof(word));
        if (word & 0x8080808080808080ull)
            break;
        i += 8;
    }
    while (i < n && s[i] < 0x80)
        i++;
    return i;
}

int utf8_valid(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;

    while (i < n) {
        uint32_t cp;
        size_t len;

        if ((i += ascii_run(s + i, n - i)) == n)
            break;
        len = utf8_decode_one(s + i, n - i, &cp);
        if (len == 0)
            return 0;
        i += len;
    }
    return 1;
}

/* One converter for both UTF-16 inputs: units are read as two little-endian
 * bytes (a uint16_t array on x86-64 is exactly that). */
static size_t utf16_convert(const uint8_t *in, size_t units, char *out, size_t outsz,
                            int *truncated)
{
    size_t i = 0, n = 0;

    *truncated = 0;
    while (i < units) {
        uint32_t cp = (uint32_t)in[2 * i] | (uint32_t)in[2 * i + 1] << 8, lo = 0;
        size_t used = 1, len;
        char enc[4];

        if (cp == 0)
            break;
        if (i + 1 < units)
            lo = (uint32_t)in[2 * i + 2] | (uint32_t)in[2 * i + 3] << 8;
        if (cp >= 0xD800 && cp <= 0xDBFF && lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00u);
            used = 2;
        } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            cp = 0xFFFD;
        }
        len = utf8_encode(cp, enc);
        if (n + len > outsz) {
            *truncated = 1;
            return n;
        }
        memcpy(out + n, enc, len);
        n += len;
        i += used;
    }
    return n;
}

size_t utf16_to_utf8(const uint16_t *in, size_t units, char *out, size_t outsz, int *truncated)
{
    return utf16_convert((const uint8_t *)in, units, out, outsz, truncated);
}

size_t utf16le_to_utf8(const uint8_t *in, size_t units, char *out, size_t outsz, int *truncated)
{
    return utf16_convert(in, units, out, outsz, truncated);
}

size_t utf8_sanitize(const char *in, size_t n, char *out, size_t outsz, int *truncated)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t i = 0, o = 0;

    *truncated = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = ascii_run(s + i, n - i);

        if (len > 0) {
            if (len > outsz - o) {
                len = outsz - o;
                *truncated = 1;
            }
            memcpy(out + o, s + i, len);
            o += len;
            i += len;
            if (*truncated)
                break;
            continue;
        }
        len = utf8_decode_one(s + i, n - i, &cp);
        if (o + (len ? len : 1) > outsz) {
            *truncated = 1;
            break;
        }
        if (len == 0) {
            out[o++] = '?';
            i++;
            continue;
        }
        memcpy(out + o, s + i, len);
        o += len;
        i += len;
    }
    return o;
}

static void put_unit(uint8_t *out, size_t index, uint32_t unit)
{
    out[2 * index] = (uint8_t)(unit & 0xFF);
    out[2 * index + 1] = (uint8_t)(unit >> 8);
}

size_t utf8_to_utf16le(const char *in, uint8_t *out, size_t out_units)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t left, n = 0;

    if (in == NULL || out == NULL)
        return 0;
    left = strlen(in);
    while (left > 0) {
        uint32_t cp = 0;
        size_t used = utf8_decode_one(s, left, &cp);
        if (used == 0)
            return 0;
        s += used;
        left -= used;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            if (out_units - n < 3) /* the pair and the terminator */
                return 0;
            put_unit(out, n, 0xD800 + (cp >> 10));
            put_unit(out, n + 1, 0xDC00 + (cp & 0x3FF));
            n += 2;
        } else {
            if (out_units - n < 2)
                return 0;
            put_unit(out, n, cp);
            n++;
        }
    }
    if (out_units - n < 1)
        return 0;
    put_unit(out, n, 0);
    return n + 1;
}
