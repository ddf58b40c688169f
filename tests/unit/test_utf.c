/* test_utf.c -- unit tests for proto/utf.c (UTF-16 -> UTF-8, UTF-8 sanitizing).
 *
 * utf16_to_utf8: ASCII, BMP (é, 中), surrogate pairs (😀 U+1F600), unpaired
 * surrogates -> U+FFFD, stop at NUL, the output bound is respected and never
 * splits a character (truncated flag set), encoding boundaries.
 * utf8_sanitize: valid input passes unchanged, each invalid byte becomes '?',
 * the length is preserved byte for byte when not truncated, never cuts a
 * character. Every output buffer is followed by a canary.
 * Build: make build/tests/test_utf && build/tests/test_utf
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "utf.h"

#define CANARY 0xA5
#define ARR(a) (sizeof(a) / sizeof((a)[0]))

static char outbuf[256 + 16];

/* Converts into outbuf with bound outsz; returns 1 when the canary after outsz
 * survived, the result equals want (wn bytes) and *truncated == want_trunc. */
static int u16(const uint16_t *in, size_t units, size_t outsz, const char *want, size_t wn,
               int want_trunc)
{
    int truncated = -1, canary = 1;
    size_t n;

    memset(outbuf, CANARY, sizeof(outbuf));
    n = utf16_to_utf8(in, units, outbuf, outsz, &truncated);
    for (size_t i = outsz; i < outsz + 16; i++)
        canary &= (unsigned char)outbuf[i] == CANARY;
    return canary && n == wn && memcmp(outbuf, want, wn) == 0 && truncated == want_trunc;
}

TEST(utf16_ascii_and_bmp)
{
    static const uint16_t hello[] = {'H', 'e', 'l', 'l', 'o'};
    static const uint16_t e_acute[] = {0x00E9};
    static const uint16_t zhong[] = {0x4E2D};
    static const uint16_t mixed[] = {'a', 0x00E9, 0x4E2D, 'z'};

    CHECK(u16(hello, 5, 64, "Hello", 5, 0), "ASCII \"Hello\"");
    CHECK(u16(e_acute, 1, 64, "\xC3\xA9", 2, 0), "U+00E9 -> C3 A9");
    CHECK(u16(zhong, 1, 64, "\xE4\xB8\xAD", 3, 0), "U+4E2D -> E4 B8 AD");
    CHECK(u16(mixed, 4, 64, "a\xC3\xA9\xE4\xB8\xADz", 7, 0), "mixed ASCII / 2-byte / 3-byte");
    CHECK(u16(hello, 0, 64, "", 0, 0), "zero units -> nothing, not truncated");
}

TEST(utf16_encoding_boundaries)
{
    static const struct {
        uint16_t u;
        const char *want;
        size_t n;
    } t[] = {
        {0x0001, "\x01", 1},         {0x007F, "\x7F", 1},         {0x0080, "\xC2\x80", 2},
        {0x07FF, "\xDF\xBF", 2},     {0x0800, "\xE0\xA0\x80", 3}, {0xD7FF, "\xED\x9F\xBF", 3},
        {0xE000, "\xEE\x80\x80", 3}, {0xFFFD, "\xEF\xBF\xBD", 3}, {0xFFFF, "\xEF\xBF\xBF", 3},
    };
    for (size_t i = 0; i < ARR(t); i++)
        CHECK(u16(&t[i].u, 1, 64, t[i].want, t[i].n, 0), "U+%04X encodes in %zu byte(s)", t[i].u,
              t[i].n);
}

TEST(utf16_surrogate_pairs)
{
    static const uint16_t grin[] = {0xD83D, 0xDE00};
    static const uint16_t first[] = {0xD800, 0xDC00};
    static const uint16_t last[] = {0xDBFF, 0xDFFF};
    static const uint16_t two[] = {'[', 0xD83D, 0xDE00, 0xD83D, 0xDE00, ']'};

    CHECK(u16(grin, 2, 64, "\xF0\x9F\x98\x80", 4, 0), "U+1F600 (D83D DE00) -> F0 9F 98 80");
    CHECK(u16(first, 2, 64, "\xF0\x90\x80\x80", 4, 0), "U+10000 (D800 DC00)");
    CHECK(u16(last, 2, 64, "\xF4\x8F\xBF\xBF", 4, 0), "U+10FFFF (DBFF DFFF)");
    CHECK(u16(two, 6, 64, "[\xF0\x9F\x98\x80\xF0\x9F\x98\x80]", 10, 0), "two pairs between ASCII");
}

TEST(utf16_unpaired_surrogates)
{
    static const uint16_t high_then_ascii[] = {0xD83D, 'A'};
    static const uint16_t lone_low[] = {'x', 0xDE00, 'y'};
    static const uint16_t reversed[] = {0xDE00, 0xD83D};
    static const uint16_t high_high_low[] = {0xD83D, 0xD83D, 0xDE00};
    static const uint16_t high_at_end[] = {'a', 0xD83D};
    static const uint16_t pair_cut_by_units[] = {0xD83D, 0xDE00};
    static const uint16_t high_nul[] = {0xD83D, 0, 0xDE00};

    CHECK(u16(high_then_ascii, 2, 64,
              "\xEF\xBF\xBD"
              "A",
              4, 0),
          "high surrogate + 'A' -> U+FFFD A");
    CHECK(u16(lone_low, 3, 64, "x\xEF\xBF\xBDy", 5, 0), "lone low surrogate -> U+FFFD");
    CHECK(u16(reversed, 2, 64, "\xEF\xBF\xBD\xEF\xBF\xBD", 6, 0), "low then high -> two U+FFFD");
    CHECK(u16(high_high_low, 3, 64, "\xEF\xBF\xBD\xF0\x9F\x98\x80", 7, 0),
          "high, then a valid pair -> U+FFFD U+1F600");
    CHECK(u16(high_at_end, 2, 64, "a\xEF\xBF\xBD", 4, 0), "high surrogate as the last unit");
    CHECK(u16(pair_cut_by_units, 1, 64, "\xEF\xBF\xBD", 3, 0),
          "a pair cut by `units` is not read past the bound: U+FFFD");
    CHECK(u16(high_nul, 3, 64, "\xEF\xBF\xBD", 3, 0), "high surrogate then NUL: U+FFFD, stop");
}

TEST(utf16_stops_at_nul)
{
    static const uint16_t s[] = {'a', 'b', 0, 'c', 'd'};
    static const uint16_t first[] = {0, 'x'};

    CHECK(u16(s, 5, 64, "ab", 2, 0), "stops at NUL, not truncated");
    CHECK(u16(first, 2, 64, "", 0, 0), "NUL first -> empty");
}

/* The bound tests' text is a, é, 中, 😀 and one more byte: characters end at
 * 1, 3, 6, 10 and 11 bytes. How many bytes of whole characters fit in outsz. */
static size_t whole_characters_in(size_t outsz)
{
    static const size_t ends[] = {0, 1, 3, 6, 10, 11};
    size_t fit = 0;

    for (size_t i = 0; i < ARR(ends); i++)
        if (ends[i] <= outsz)
            fit = ends[i];
    return fit;
}

TEST(utf16_output_bound)
{
    static const uint16_t s[] = {'a', 0x00E9, 0x4E2D, 0xD83D, 0xDE00, 'z'};
    /* a | C3 A9 | E4 B8 AD | F0 9F 98 80 | z : character ends at 1, 3, 6, 10, 11 */
    static const char full[] = "a\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80z";
    int all = 1;

    for (size_t outsz = 0; outsz <= 12; outsz++) {
        size_t fit = whole_characters_in(outsz);
        int ok = u16(s, ARR(s), outsz, full, fit, fit < 11);
        all &= ok;
        CHECK(ok, "outsz %zu: %zu bytes (whole characters only), truncated %d, canary intact",
              outsz, fit, fit < 11);
    }
    CHECK(all, "no bound ever splits a character or writes past outsz");

    /* worst case of the header comment: 3 bytes per unit fits */
    uint16_t cjk[50];
    for (int i = 0; i < 50; i++)
        cjk[i] = 0x4E00 + (uint16_t)i;
    int truncated = -1;
    char big[150];
    CHECK(utf16_to_utf8(cjk, 50, big, sizeof(big), &truncated) == 150 && truncated == 0,
          "50 BMP units fit in 3 x 50 bytes");
    CHECK(utf16_to_utf8(cjk, 50, big, 149, &truncated) == 147 && truncated == 1,
          "one byte less: 49 characters, truncated");
}

/* ---- utf8_sanitize ------------------------------------------------------ */

static int san(const char *in, size_t n, size_t outsz, const char *want, size_t wn, int want_trunc)
{
    int truncated = -1, canary = 1;
    size_t got;
    char *copy = malloc(n ? n : 1); /* exact size: ASan sees any overread */

    memcpy(copy, in, n);
    memset(outbuf, CANARY, sizeof(outbuf));
    got = utf8_sanitize(copy, n, outbuf, outsz, &truncated);
    free(copy);
    for (size_t i = outsz; i < outsz + 16; i++)
        canary &= (unsigned char)outbuf[i] == CANARY;
    return canary && got == wn && memcmp(outbuf, want, wn) == 0 && truncated == want_trunc;
}

TEST(sanitize_valid_unchanged)
{
    static const struct {
        const char *s;
        size_t n;
        const char *what;
    } t[] = {
        {"", 0, "empty"},
        {"plain ASCII path /tmp/x.dll", 27, "ASCII"},
        {"a\0b", 3, "embedded NUL"},
        {"Fa\xC3\xA7"
         "ade",
         7, "2-byte"},
        {"\xE4\xB8\xAD\xE6\x96\x87", 6, "3-byte"},
        {"\xF0\x9F\x98\x80", 4, "4-byte"},
        {"\xF4\x8F\xBF\xBF\xEF\xBF\xBF\xED\x9F\xBF\xEE\x80\x80", 13, "boundary code points"},
    };
    for (size_t i = 0; i < ARR(t); i++)
        CHECK(san(t[i].s, t[i].n, 64, t[i].s, t[i].n, 0), "valid %s passes unchanged", t[i].what);
}

TEST(sanitize_invalid_bytes)
{
    static const struct {
        const char *in;
        size_t n;
        const char *want;
        const char *what;
    } t[] = {
        {"a\xC0\xAF"
         "b",
         4, "a??b", "overlong '/'"},
        {"\xE0\x80\xAF", 3, "???", "overlong 3-byte"},
        {"\xF0\x80\x80\xAF", 4, "????", "overlong 4-byte"},
        {"\xED\xA0\x80", 3, "???", "surrogate"},
        {"\xE4\xB8", 2, "??", "truncated at the end"},
        {"\xE4\xB8"
         "A",
         3, "??A", "truncated before ASCII"},
        {"\xF4\x90\x80\x80", 4, "????", "above U+10FFFF"},
        {"\x80", 1, "?", "lone continuation"},
        {"\xFF\xFE", 2, "??", "0xFF 0xFE"},
        {"\xC3\xA9\x80\xC3\xA9", 5, "\xC3\xA9?\xC3\xA9", "stray continuation between valid"},
        {"\xC3\x28", 2, "?(", "bad continuation keeps the next byte"},
        {"\xF0\x9F\x98\xF0\x9F\x98\x80", 7, "???\xF0\x9F\x98\x80", "cut 4-byte then a valid one"},
    };
    for (size_t i = 0; i < ARR(t); i++)
        CHECK(san(t[i].in, t[i].n, 64, t[i].want, t[i].n, 0), "%s -> \"%s\", same length",
              t[i].what, t[i].want);
}

TEST(sanitize_bound)
{
    /* a | C3 A9 | E4 B8 AD | F0 9F 98 80 | ? (0xFF) : ends at 1, 3, 6, 10, 11 */
    static const char in[] = "a\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80\xFF";
    static const char want[] = "a\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80?";
    int all = 1;

    for (size_t outsz = 0; outsz <= 12; outsz++) {
        size_t fit = whole_characters_in(outsz);
        int ok = san(in, 11, outsz, want, fit, fit < 11);
        all &= ok;
        CHECK(ok, "outsz %zu: %zu bytes, truncated %d, canary intact", outsz, fit, fit < 11);
    }
    CHECK(all, "no bound splits a character or writes past outsz");
}

static uint64_t rng; /* made-up data: every test starts the sequence again */

static void rng_reset(void) { rng = 0xDEADBEEFCAFEF00Dull; }
static uint64_t xorshift(void) { return check_random(&rng); }

/* Random bytes: output has the input's length, is valid UTF-8, and differs
 * from the input only where a byte became '?'. */
TEST(sanitize_random_properties)
{
    unsigned long bad_len = 0, invalid_out = 0, bad_subst = 0, changed = 0;

    for (int i = 0; i < 50000; i++) {
        char in[32], out[32];
        size_t n = xorshift() % sizeof(in), m;
        int truncated;

        for (size_t k = 0; k < n; k++) {
            uint64_t r = xorshift();
            in[k] = (char)((r & 3) == 0   ? 0x80 | (r >> 8 & 0x3F)
                           : (r & 3) == 1 ? 0xC2 + (r >> 8) % 0x33
                                          : (r >> 8));
        }
        m = utf8_sanitize(in, n, out, sizeof(out), &truncated);
        bad_len += m != n || truncated;
        invalid_out += !utf8_valid(out, m);
        for (size_t k = 0; k < m && k < n; k++) {
            if (out[k] != in[k]) {
                changed++;
                bad_subst += out[k] != '?' || (unsigned char)in[k] < 0x80;
            }
        }
    }
    CHECK(bad_len == 0, "length preserved byte for byte when the output is big enough (%lu not)",
          bad_len);
    CHECK(invalid_out == 0, "output is always valid UTF-8 (%lu not)", invalid_out);
    CHECK(bad_subst == 0 && changed > 0,
          "only non-ASCII bytes are replaced, and only by '?' (%lu replaced, %lu wrong)", changed,
          bad_subst);
}

/* The byte-at-a-time rule utf8_sanitize and utf8_valid follow, written from
 * utf8_decode_one alone: their ASCII runs, taken eight bytes at a time, must
 * give the same bytes, the same cut and the same verdict. */
static size_t sanitize_reference(const char *in, size_t n, char *out, size_t outsz, int *truncated)
{
    size_t i = 0, o = 0;

    *truncated = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = utf8_decode_one((const unsigned char *)in + i, n - i, &cp);
        size_t put = len ? len : 1;
        if (o + put > outsz) {
            *truncated = 1;
            break;
        }
        if (len == 0)
            out[o] = '?';
        else
            memcpy(out + o, in + i, len);
        o += put;
        i += put;
    }
    return o;
}

static int valid_reference(const char *in, size_t n)
{
    size_t i = 0;

    while (i < n) {
        uint32_t cp;
        size_t len = utf8_decode_one((const unsigned char *)in + i, n - i, &cp);
        if (len == 0)
            return 0;
        i += len;
    }
    return 1;
}

TEST(ascii_runs_as_byte_at_a_time)
{
    static const char *const pieces[] = {"\xC3\xA9", "\xE4\xB8\xAD", "\xF0\x9F\x98\x80",
                                         "\xFF",     "\xE4\xB8",     "\x80"};
    unsigned long differ = 0, verdicts = 0, runs_of_8 = 0;

    for (int i = 0; i < 20000; i++) {
        char in[160], out[160], want[160];
        size_t n = 0, outsz, got, expect;
        int t1, t2, only_valid = (int)(xorshift() & 1);

        while (n < 100) {
            size_t run = xorshift() % 41, k;
            const char *p = pieces[xorshift() % (only_valid ? 3 : ARR(pieces))];
            runs_of_8 += run >= 8;
            for (k = 0; k < run; k++)
                in[n++] = (char)(0x20 + xorshift() % 0x5F);
            memcpy(in + n, p, strlen(p));
            n += strlen(p);
        }
        outsz = xorshift() % (n + 2);
        got = utf8_sanitize(in, n, out, outsz, &t1);
        expect = sanitize_reference(in, n, want, outsz, &t2);
        differ += got != expect || t1 != t2 || memcmp(out, want, got) != 0;
        verdicts += utf8_valid(in, n) != valid_reference(in, n) ||
                    utf8_valid(in, n) != (only_valid ? 1 : valid_reference(in, n));
    }
    CHECK(runs_of_8 > 10000, "long ASCII runs were tried (%lu)", runs_of_8);
    CHECK(differ == 0, "utf8_sanitize: same bytes, length and cut as byte at a time (%lu differ)",
          differ);
    CHECK(verdicts == 0, "utf8_valid: same verdict as byte at a time (%lu differ)", verdicts);
}

static const check_test tests[] = {
    TEST_ENTRY(utf16_ascii_and_bmp),
    TEST_ENTRY(utf16_encoding_boundaries),
    TEST_ENTRY(utf16_surrogate_pairs),
    TEST_ENTRY(utf16_unpaired_surrogates),
    TEST_ENTRY(utf16_stops_at_nul),
    TEST_ENTRY(utf16_output_bound),
    TEST_ENTRY(sanitize_valid_unchanged),
    TEST_ENTRY(sanitize_invalid_bytes),
    TEST_ENTRY(sanitize_bound),
    TEST_ENTRY(sanitize_random_properties),
    TEST_ENTRY(ascii_runs_as_byte_at_a_time),
    TEST_END,
};

int main(int argc, char **argv) { return check_main_each(argc, argv, tests, rng_reset, NULL); }
